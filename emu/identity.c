/*
 * identity.c - who the calling process is on the emulated machine.
 * The only process-global state of the library: one record, written by the
 * MPI layer at MPI_Init and read by the PAPI components of the same process.
 */
#define TEMU_BUILDING_LIBRARY 1
#include "emu_internal.h"

#include <errno.h>
#include <stdlib.h>

static temu_identity current = {-1, 0, 0, 0, 0, 0, 0, NULL};

/* Where launchers put the rank, most specific first (torusemu.h). */
static const char *const rank_vars[] = {TEMU_RANK_ENV, "OMPI_COMM_WORLD_RANK", "PMIX_RANK",
                                        "PMI_RANK"};

void temu_slot_placement(const temu_machine *m, int32_t t, int32_t *core, int32_t *hwthread)
{
    int32_t cores = m->cores_per_node > 0 ? m->cores_per_node : 1;
    int32_t threads = m->threads_per_core > 0 ? m->threads_per_core : 1;
    int32_t c = t % cores;
    int32_t k = (t / cores) % threads;
    *core = c;
    *hwthread = c * threads + k;
}

void temu_identity_set(const temu_machine *m, int32_t rank, int64_t node, int32_t t)
{
    temu_identity id = {rank, node, t, 0, 0, 1, 1, "MPI_Init"};
    temu_slot_placement(m, t, &id.core, &id.hwthread);
    current = id;
}

static int env_int(const char *name, long long *out)
{
    const char *v = getenv(name);
    char *end;
    if (v == NULL || *v == '\0') {
        return 0;
    }
    errno = 0;
    long long x = strtoll(v, &end, 10);
    if (errno != 0 || *end != '\0' || x < 0) {
        return 0;
    }
    *out = x;
    return 1;
}

temu_identity temu_identity_get(const temu_session *s)
{
    temu_identity id = current;
    long long v;
    if (id.explicit_set) {
        return id;
    }
    id.rank = -1;
    id.node = 0;
    id.t = 0;
    id.known = 0;
    id.from = NULL;
    for (size_t i = 0; i < sizeof rank_vars / sizeof rank_vars[0]; i++) {
        if (env_int(rank_vars[i], &v)) {
            id.rank = (int32_t)v;
            if (s != NULL && v < s->nranks) {
                id.node = s->mapping[v].node;
                id.t = s->mapping[v].t;
                id.known = 1;
                id.from = rank_vars[i];
            }
            break;
        }
    }
    if (env_int(TEMU_NODE_ENV, &v) && (s == NULL || v < s->machine.nnodes)) {
        id.node = v;
        id.known = 1;
        id.from = TEMU_NODE_ENV;
    }
    if (s != NULL) {
        temu_slot_placement(&s->machine, id.t, &id.core, &id.hwthread);
    }
    return id;
}
