/*
 * allocator.c - which nodes a job of a production period gets
 * (production.h; doc/production.md, "Allocators").
 *
 * Two allocators over the machine's nodes:
 *
 *   nid   the first free nodes in node-id order (on Gemini the nid order:
 *         Z fastest, then Y, then X, two nodes per Gemini), wherever they
 *         lie: the "standard algorithm" NCSA describes for Blue Waters,
 *         which "attempts to maximize processor utilization by assigning
 *         disconnected groups of nodes to a job when contiguous blocks of
 *         nodes are not available" (NCSA, "Topology Aware Scheduling",
 *         bluewaters.ncsa.illinois.edu/topology-aware-scheduling).
 *   topo  Blue Waters' topology-aware scheduling, in production from
 *         January 13, 2015 (so through seed 004's January-May 2017): each
 *         job gets "a contiguous prism of nodes in the Blue Waters torus",
 *         "a convex cuboid node allocation" (same page), taken from a
 *         table of shapes - whole Geminis, so a job holds a box of Geminis
 *         of at least its nodes / 2 and leaves the rest of the box idle
 *         (the "internal fragmentation due to convex prism shape
 *         requirement" of Li, Malawski and Nabrzyski, "Topology-aware
 *         Scheduling on Blue Waters with Proactive Queue Scanning and
 *         Migration-based Job Placement").  A job waits while no box of
 *         its shapes is free, as on Blue Waters ("jobs waiting longer in
 *         the job queue").  The shape table and the search are ours: the
 *         boxes that hold the job with at most 25 % more Geminis than the
 *         smallest, most cubic first (least surface: fewest links leaving
 *         the box), at the first free position in Gemini order, wrapping
 *         around the torus.  Inside its box a job's ranks follow node-id order.
 *
 * Occupancy is one byte per node; the topo search tests a box in O(1)
 * with prefix sums of busy Geminis over the torus doubled in every
 * dimension (so boxes that wrap are ordinary boxes there).
 */
#include "production.h"

#include <stdlib.h>
#include <string.h>

/* Most shapes tried per job (a size has few boxes within 25 % of it). */
#define ALLOC_SHAPES 24

typedef struct shape {
    int32_t side[3];
    int64_t volume, surface;
} shape;

struct temu_alloc {
    temu_machine m;
    int kind;
    int64_t free_nodes;
    uint8_t *busy; /* per node */
    /* topo: prefix sums of busy Geminis over [0, 2X] x [0, 2Y] x [0, 2Z] */
    int32_t *sum;
    int32_t ext[3]; /* 2 x size + 1 */
    int dirty;
};

temu_status temu_alloc_create(const temu_machine *m, int kind, temu_alloc **out, temu_error *err)
{
    temu_alloc *a = NULL;
    temu_status st = TEMU_OK;
    *out = NULL;
    if (kind != TEMU_ALLOC_NID && kind != TEMU_ALLOC_TOPO) {
        return temu_fail(err, TEMU_EINVAL, "unknown allocator %d", kind);
    }
    if (kind == TEMU_ALLOC_TOPO && m->ndims != 3) {
        return temu_fail(err, TEMU_EINVAL,
                         "the topo allocator places boxes on a 3-D torus; %s has %d dimensions",
                         m->name, m->ndims);
    }
    a = calloc(1, sizeof *a);
    if (a == NULL) {
        return temu_fail(err, TEMU_ENOMEM, "out of memory for the allocator");
    }
    a->m = *m;
    a->kind = kind;
    a->free_nodes = m->nnodes;
    a->busy = calloc((size_t)m->nnodes, 1);
    if (a->busy == NULL) {
        st = temu_fail(err, TEMU_ENOMEM, "out of memory for the allocator");
    }
    if (st == TEMU_OK && kind == TEMU_ALLOC_TOPO) {
        int64_t cells = 1;
        for (int d = 0; d < 3; d++) {
            a->ext[d] = 2 * m->size[d] + 1;
            cells *= a->ext[d];
        }
        a->sum = calloc((size_t)cells, sizeof *a->sum);
        a->dirty = 1;
        if (a->sum == NULL) {
            st = temu_fail(err, TEMU_ENOMEM, "out of memory for the allocator");
        }
    }
    if (st != TEMU_OK) {
        temu_alloc_free(a);
        return st;
    }
    *out = a;
    return TEMU_OK;
}

void temu_alloc_free(temu_alloc *a)
{
    if (a != NULL) {
        free(a->busy);
        free(a->sum);
        free(a);
    }
}

int64_t temu_alloc_free_nodes(const temu_alloc *a)
{
    return a->free_nodes;
}

/* ------------------------------------------------------------- nid */

static int nid_take(temu_alloc *a, int64_t nodes, int64_t *held, int64_t *nheld)
{
    int64_t k = 0;
    for (int64_t n = 0; n < a->m.nnodes && k < nodes; n++) {
        if (!a->busy[n]) {
            held[k++] = n;
        }
    }
    for (int64_t i = 0; i < k; i++) {
        a->busy[held[i]] = 1;
    }
    *nheld = k;
    return 1;
}

/* ------------------------------------------------------------- topo */

static int64_t sum_at(const temu_alloc *a, int32_t x, int32_t y, int32_t z)
{
    return a->sum[((int64_t)x * a->ext[1] + y) * a->ext[2] + z];
}

static int router_busy(const temu_alloc *a, int64_t router)
{
    int64_t npr = a->m.nodes_per_router;
    for (int64_t k = 0; k < npr; k++) {
        if (a->busy[router * npr + k]) {
            return 1;
        }
    }
    return 0;
}

/* sum[x][y][z] = busy Geminis with doubled coordinates below (x, y, z). */
static void prefix_build(temu_alloc *a)
{
    const int32_t *n = a->m.size;
    for (int32_t x = 0; x < a->ext[0]; x++) {
        for (int32_t y = 0; y < a->ext[1]; y++) {
            for (int32_t z = 0; z < a->ext[2]; z++) {
                int64_t v = 0;
                if (x > 0 && y > 0 && z > 0) {
                    int32_t c[3] = {(x - 1) % n[0], (y - 1) % n[1], (z - 1) % n[2]};
                    v = router_busy(a, temu_router_index(&a->m, c)) + sum_at(a, x - 1, y, z) +
                        sum_at(a, x, y - 1, z) + sum_at(a, x, y, z - 1) -
                        sum_at(a, x - 1, y - 1, z) - sum_at(a, x - 1, y, z - 1) -
                        sum_at(a, x, y - 1, z - 1) + sum_at(a, x - 1, y - 1, z - 1);
                }
                a->sum[((int64_t)x * a->ext[1] + y) * a->ext[2] + z] = (int32_t)v;
            }
        }
    }
    a->dirty = 0;
}

/* Busy Geminis in the box of shape s at origin o (doubled coordinates). */
static int64_t box_busy(const temu_alloc *a, const int32_t *o, const shape *s)
{
    int32_t x0 = o[0], y0 = o[1], z0 = o[2];
    int32_t x1 = x0 + s->side[0], y1 = y0 + s->side[1], z1 = z0 + s->side[2];
    return sum_at(a, x1, y1, z1) - sum_at(a, x0, y1, z1) - sum_at(a, x1, y0, z1) -
           sum_at(a, x1, y1, z0) + sum_at(a, x0, y0, z1) + sum_at(a, x0, y1, z0) +
           sum_at(a, x1, y0, z0) - sum_at(a, x0, y0, z0);
}

/* Least surface first (fewest links leave the box), then fewest Geminis. */
static int shape_cmp(const void *pa, const void *pb)
{
    const shape *x = pa, *y = pb;
    if (x->surface != y->surface) {
        return x->surface < y->surface ? -1 : 1;
    }
    if (x->volume != y->volume) {
        return x->volume < y->volume ? -1 : 1;
    }
    return memcmp(x->side, y->side, sizeof x->side);
}

/* The boxes of Geminis that hold `routers` Geminis with at most 25 % more
 * Geminis than the smallest such box, least surface first, at most
 * ALLOC_SHAPES of them; their number (0 also when out of memory: the job
 * waits). */
static int shapes_for(const temu_machine *m, int64_t routers, shape *out)
{
    shape *all = malloc((size_t)m->size[0] * (size_t)m->size[1] * sizeof *all);
    int n = 0, k = 0;
    for (int32_t x = 1; all != NULL && x <= m->size[0]; x++) {
        for (int32_t y = 1; y <= m->size[1]; y++) {
            int64_t xy = (int64_t)x * y, z = (routers + xy - 1) / xy; /* fewest layers */
            if (z <= m->size[2]) {
                all[n++] = (shape){{x, y, (int32_t)z}, xy * z, 2 * (xy + x * z + y * z)};
            }
        }
    }
    /* the smallest volume, then those within 25 % of it by surface */
    int64_t least = INT64_MAX;
    for (int i = 0; i < n; i++) {
        least = all[i].volume < least ? all[i].volume : least;
    }
    if (n > 0) {
        qsort(all, (size_t)n, sizeof all[0], shape_cmp);
    }
    for (int i = 0; i < n && k < ALLOC_SHAPES; i++) {
        if (all[i].volume * 4 <= least * 5) {
            out[k++] = all[i];
        }
    }
    free(all);
    return k;
}

/* Hold every node of the box (ranks in node-id order inside it). */
static void box_hold(temu_alloc *a, const int32_t *o, const shape *s, int64_t *held, int64_t *nheld)
{
    int64_t k = 0, npr = a->m.nodes_per_router;
    int32_t first[3];
    for (int d = 0; d < 3; d++) {
        first[d] = o[d] % a->m.size[d];
    }
    /* node-id order: the box's Geminis sorted by index, x slowest */
    for (int32_t x = 0; x < a->m.size[0]; x++) {
        int32_t dx = (x - first[0] + a->m.size[0]) % a->m.size[0];
        for (int32_t y = 0; dx < s->side[0] && y < a->m.size[1]; y++) {
            int32_t dy = (y - first[1] + a->m.size[1]) % a->m.size[1];
            for (int32_t z = 0; dy < s->side[1] && z < a->m.size[2]; z++) {
                int32_t dz = (z - first[2] + a->m.size[2]) % a->m.size[2];
                if (dz >= s->side[2]) {
                    continue;
                }
                int32_t c[3] = {x, y, z};
                int64_t r = temu_router_index(&a->m, c);
                for (int64_t j = 0; j < npr; j++) {
                    held[k++] = r * npr + j;
                    a->busy[r * npr + j] = 1;
                }
            }
        }
    }
    *nheld = k;
    a->dirty = 1;
}

/* First free box of one of the shapes: origins in Gemini order, wrapping
 * where the dimension is a torus. */
static int topo_take(temu_alloc *a, int64_t nodes, int64_t *held, int64_t *nheld)
{
    int64_t npr = a->m.nodes_per_router;
    shape sh[ALLOC_SHAPES];
    int ns = shapes_for(&a->m, (nodes + npr - 1) / npr, sh);
    if (a->dirty) {
        prefix_build(a);
    }
    for (int i = 0; i < ns; i++) {
        int32_t lim[3];
        for (int d = 0; d < 3; d++) {
            lim[d] = a->m.torus[d] ? a->m.size[d] : a->m.size[d] - sh[i].side[d] + 1;
            if (sh[i].side[d] == a->m.size[d]) {
                lim[d] = 1; /* a box the length of the ring: one position */
            }
        }
        int32_t o[3];
        for (o[0] = 0; o[0] < lim[0]; o[0]++) {
            for (o[1] = 0; o[1] < lim[1]; o[1]++) {
                for (o[2] = 0; o[2] < lim[2]; o[2]++) {
                    if (box_busy(a, o, &sh[i]) == 0) {
                        box_hold(a, o, &sh[i], held, nheld);
                        return 1;
                    }
                }
            }
        }
    }
    return 0;
}

int64_t temu_alloc_need(const temu_alloc *a, int64_t nodes)
{
    if (a->kind == TEMU_ALLOC_NID) {
        return nodes;
    }
    shape sh[ALLOC_SHAPES];
    int64_t npr = a->m.nodes_per_router;
    int ns = shapes_for(&a->m, (nodes + npr - 1) / npr, sh);
    return ns > 0 ? sh[0].volume * npr : a->m.nnodes + 1;
}

int temu_alloc_take(temu_alloc *a, int64_t nodes, int64_t *held, int64_t *nheld)
{
    *nheld = 0;
    if (nodes <= 0 || temu_alloc_need(a, nodes) > a->free_nodes) {
        return 0;
    }
    int ok = a->kind == TEMU_ALLOC_NID ? nid_take(a, nodes, held, nheld)
                                       : topo_take(a, nodes, held, nheld);
    a->free_nodes -= *nheld;
    return ok;
}

void temu_alloc_release(temu_alloc *a, const int64_t *held, int64_t n)
{
    for (int64_t i = 0; i < n; i++) {
        a->busy[held[i]] = 0;
    }
    a->free_nodes += n;
    a->dirty = 1;
}
