/*
 * vtime_rules.c - arithmetic of ranks in virtual time (vtime_rules.h).
 */
#define TEMU_BUILDING_LIBRARY 1
#include "vtime_rules.h"
#include "emu_internal.h"

#include <math.h>
#include <stdlib.h>

int64_t temu_vt_scale_ps(int64_t ps, double scale)
{
    if (ps <= 0 || !(scale > 0)) {
        return 0;
    }
    return (int64_t)llround((double)ps * scale);
}

int64_t temu_vt_gap_ps(int64_t last_end_ns, int64_t begin_ns, double scale)
{
    if (last_end_ns < 0 || begin_ns < 0 || begin_ns <= last_end_ns) {
        return 0;
    }
    return temu_vt_scale_ps((begin_ns - last_end_ns) * 1000, scale);
}

int temu_vt_eager(const temu_machine *m, temu_kind kind, uint64_t bytes)
{
    /* one-sided operations complete remotely (at the origin's next
     * synchronization), collectives' messages follow the point-to-point
     * rule as the MPI libraries send them with it */
    if (kind == TEMU_KIND_ALLTOALL && temu_machine_family(m)->alltoall_fifo) {
        return 1; /* BG/Q's many-to-many protocol: no rendezvous, whatever the size */
    }
    return kind != TEMU_KIND_PUT && kind != TEMU_KIND_GET && bytes < m->protocol.eager_limit;
}

int64_t temu_vt_inject_done(int64_t *free_ps, int64_t t_ps, uint64_t wire_bytes, double node_gbs)
{
    int64_t start = *free_ps > t_ps ? *free_ps : t_ps;
    if (wire_bytes == 0) {
        return t_ps;
    }
    /* GB/s = bytes per ns: 1000 / gbs picoseconds per byte, rounded up as
     * the timing model's serialization (emu/packet/channel.h) */
    *free_ps = start + (int64_t)ceil((double)wire_bytes * 1000.0 / node_gbs - 1e-6);
    return *free_ps;
}
