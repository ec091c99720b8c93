/*
 * link_name.c - fuzz the link-name and message-kind parsers
 * (temu_link_parse, temu_kind_parse).  Invariant: a name that parses is
 * the name of what it parses to (or the Gemini alias "host").
 */
#include "fuzz.h"
#include "torusemu.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *specs[] = {"nodeboard", "gemini-tiny", "bgp-16"};
    static temu_machine machines[3];
    static int ready;
    temu_error err;
    if (!ready) {
        for (int i = 0; i < 3; i++) {
            FUZZ_CHECK(temu_machine_parse(specs[i], &machines[i], &err) == TEMU_OK);
        }
        ready = 1;
    }
    char *name = fuzz_string(data, size, 64);
    for (int i = 0; i < 3; i++) {
        int link = temu_link_parse(&machines[i], name);
        if (link >= 0) {
            FUZZ_CHECK(link < machines[i].nlinks);
            FUZZ_CHECK(strcmp(temu_link_name(&machines[i], link), name) == 0 ||
                       strcmp(name, "host") == 0);
        }
    }
    int kind = temu_kind_parse(name);
    if (kind >= 0) {
        FUZZ_CHECK(strcmp(temu_kind_name((temu_kind)kind), name) == 0);
    }
    free(name);
    return 0;
}
