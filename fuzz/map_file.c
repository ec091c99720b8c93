/*
 * map_file.c - fuzz the map-file parser (temu_mapping_parse_text).  The
 * first byte picks a machine, the next two the rank count (1..64) and
 * ranks per node (1..4); the rest is the map text.  Invariant: an accepted
 * map places every rank on a slot of the machine, no slot twice.
 */
#include "fuzz.h"
#include "torusemu.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *specs[] = {"nodeboard", "gemini-tiny", "bgp-16", "bgp:2x2x2,torus=010"};
    static temu_machine machines[4];
    static int ready;
    temu_mapping map;
    temu_error err;
    if (!ready) {
        for (int i = 0; i < 4; i++) {
            FUZZ_CHECK(temu_machine_parse(specs[i], &machines[i], &err) == TEMU_OK);
        }
        ready = 1;
    }
    if (size < 3) {
        return 0;
    }
    const temu_machine *m = &machines[data[0] % 4];
    int32_t nranks = 1 + data[1] % 64, rpn = 1 + data[2] % 4;
    char *text = fuzz_string(data + 3, size - 3, 1 << 16);
    if (temu_mapping_parse_text(m, nranks, rpn, text, "fuzz", &map, &err) == TEMU_OK) {
        FUZZ_CHECK(map.nranks == nranks && map.ranks_per_node == rpn);
        for (int32_t a = 0; a < nranks; a++) {
            FUZZ_CHECK(map.slot[a].node >= 0 && map.slot[a].node < m->nnodes);
            FUZZ_CHECK(map.slot[a].t >= 0 && map.slot[a].t < rpn);
            for (int32_t b = 0; b < a; b++) {
                FUZZ_CHECK(map.slot[a].node != map.slot[b].node || map.slot[a].t != map.slot[b].t);
            }
        }
        temu_mapping_free(&map);
    } else {
        FUZZ_CHECK(err.message[0] != '\0');
    }
    free(text);
    return 0;
}
