/*
 * machine_spec.c - fuzz the machine-spec parser (temu_machine_parse).
 * Invariants: an accepted spec gives a machine whose canonical name parses
 * back to the same topology, and whose node and router names fit.
 */
#include "fuzz.h"
#include "torusemu.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static FILE *sink;
    temu_machine m, again;
    temu_error err;
    char *spec = fuzz_string(data, size, 512);
    if (sink == NULL) {
        sink = fopen("/dev/null", "w");
    }
    if (temu_machine_parse(spec, &m, &err) == TEMU_OK) {
        FUZZ_CHECK(temu_machine_parse(m.name, &again, &err) == TEMU_OK);
        FUZZ_CHECK(again.system == m.system && again.ndims == m.ndims &&
                   again.nnodes == m.nnodes && again.nrouters == m.nrouters &&
                   strcmp(again.name, m.name) == 0);
        FUZZ_CHECK(m.nnodes >= 1 && m.nnodes == m.nrouters * m.nodes_per_router);
        for (int d = 0; d < m.ndims; d++) {
            FUZZ_CHECK(again.size[d] == m.size[d] && again.torus[d] == m.torus[d] &&
                       again.dim_order[d] == m.dim_order[d]);
        }
        char name[128];
        int64_t last = m.nnodes - 1;
        FUZZ_CHECK(temu_node_name(&m, last, name, sizeof name) > 0);
        FUZZ_CHECK(temu_router_name(&m, temu_node_router(&m, last), name, sizeof name) > 0);
        if (sink != NULL) {
            temu_machine_describe(&m, sink);
        }
    } else {
        FUZZ_CHECK(err.message[0] != '\0');
    }
    free(spec);
    return 0;
}
