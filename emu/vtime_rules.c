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

double temu_vt_mean(const double *x, size_t n)
{
    double s = 0;
    for (size_t i = 0; i < n; i++) {
        s += x[i];
    }
    return n > 0 ? s / (double)n : 0;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

double temu_vt_quantile(double *x, size_t n, double q)
{
    if (n == 0) {
        return 0;
    }
    qsort(x, n, sizeof *x, cmp_double);
    size_t k = (size_t)ceil(q * (double)n - 1e-9);
    return x[k > 0 ? k - 1 : 0];
}
