/*
 * mapfile.c - map files in the format torusemu reads (doc/mapping.md):
 * "A B C D E T" (BG/Q), "X Y Z T" (BG/P), "X Y Z N T" (Gemini).
 */
#include "mapfile.h"

#include "torusemu.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

int ex_write_map(const char *path, const char *spec, int32_t nranks, const int64_t *node,
                 const int32_t *t)
{
    temu_machine m;
    temu_error err;
    if (temu_machine_parse(spec, &m, &err) != TEMU_OK) {
        fprintf(stderr, "%s\n", err.message);
        return -1;
    }
    FILE *f = fopen(path, "w");
    if (f == NULL) {
        fprintf(stderr, "cannot write %s: %s\n", path, strerror(errno));
        return -1;
    }
    fprintf(f, "# %d ranks on %s\n", nranks, m.name);
    for (int32_t r = 0; r < nranks; r++) {
        int32_t c[TEMU_MAX_DIMS];
        if (node[r] < 0 || node[r] >= m.nnodes) {
            fprintf(stderr, "rank %d: node %lld is outside %s\n", r, (long long)node[r], m.name);
            fclose(f);
            return -1;
        }
        temu_router_coords(&m, temu_node_router(&m, node[r]), c);
        for (int d = 0; d < m.ndims; d++) {
            fprintf(f, "%d ", c[d]);
        }
        if (m.system == TEMU_SYSTEM_GEMINI) {
            fprintf(f, "%d ", (int)(node[r] % m.nodes_per_router));
        }
        fprintf(f, "%d\n", t[r]);
    }
    if (fclose(f) != 0) {
        fprintf(stderr, "cannot write %s: %s\n", path, strerror(errno));
        return -1;
    }
    return 0;
}
