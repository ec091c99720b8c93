/*
 * route.c - deterministic dimension-ordered routing on a torus or mesh.
 *
 * Gemini: X then Y then Z, all hops of a dimension before the next, the
 * shortest direction per dimension (Pedretti 2013 section V.C).  BG/P: X, Y, Z.
 * BG/Q: longest dimension first (machine.c computes dim_order).
 * Tie rule (distance exactly n/2 on an even torus ring): go in the plus
 * direction, on every system (doc/model.md; the hardware rule is not
 * documented for Gemini, lanl/PPT machine configurations).
 * Pure functions: no globals, no allocation.
 */
#define TEMU_BUILDING_LIBRARY 1
#include "emu_internal.h"

/* Steps and direction (+1 / -1) needed along one dimension. */
int temu_route_dim_steps(const temu_machine *m, int dim, int32_t from, int32_t to, int *dir)
{
    int32_t n = m->size[dim];
    if (from == to) {
        *dir = 0;
        return 0;
    }
    if (!m->torus[dim]) {
        *dir = to > from ? 1 : -1;
        return to > from ? to - from : from - to;
    }
    int32_t fwd = ((to - from) % n + n) % n;
    if (2 * fwd <= n) {
        *dir = 1;
        return fwd;
    }
    *dir = -1;
    return n - fwd;
}

int temu_route(const temu_machine *m, int64_t src, int64_t dst, temu_hop *hops, int max)
{
    int32_t cs[TEMU_MAX_DIMS], cd[TEMU_MAX_DIMS];
    int64_t stride[TEMU_MAX_DIMS];
    int64_t cur = src;
    int n = 0;

    temu_router_coords(m, src, cs);
    temu_router_coords(m, dst, cd);
    stride[m->ndims - 1] = 1;
    for (int d = m->ndims - 2; d >= 0; d--) {
        stride[d] = stride[d + 1] * m->size[d + 1];
    }
    for (int i = 0; i < m->ndims; i++) {
        int d = m->dim_order[i];
        int dir;
        int steps = temu_route_dim_steps(m, d, cs[d], cd[d], &dir);
        int32_t v = cs[d];
        int link = dir > 0 ? TEMU_LINK_PLUS(d) : TEMU_LINK_MINUS(d);
        for (int s = 0; s < steps; s++) {
            int32_t next = v + dir;
            int64_t to;
            if (next < 0) {
                next = m->size[d] - 1;
            } else if (next >= m->size[d]) {
                next = 0;
            }
            to = cur + (int64_t)(next - v) * stride[d];
            if (n >= max) {
                return -1;
            }
            hops[n].from = cur;
            hops[n].to = to;
            hops[n].link = link;
            hops[n].in_link = link ^ 1;
            n++;
            cur = to;
            v = next;
        }
    }
    return n;
}

int temu_route_distance(const temu_machine *m, int64_t src, int64_t dst)
{
    int32_t cs[TEMU_MAX_DIMS], cd[TEMU_MAX_DIMS];
    int total = 0;
    temu_router_coords(m, src, cs);
    temu_router_coords(m, dst, cd);
    for (int d = 0; d < m->ndims; d++) {
        int dir;
        total += temu_route_dim_steps(m, d, cs[d], cd[d], &dir);
    }
    return total;
}
