/*
 * classroute.c - BG/Q class-route trees (pure) and their counts (thin).
 * The model is described in classroute.h and doc/mpi.md.
 */
#include "classroute.h"

#include <stdlib.h>
#include <string.h>

static int hop_cmp(const void *a, const void *b)
{
    const temu_hop *x = a, *y = b;
    if (x->from != y->from) {
        return x->from < y->from ? -1 : 1;
    }
    return x->link - y->link;
}

int tmpi_classroute_edges(const temu_machine *m, const int64_t *nodes, int32_t nnodes, int64_t root,
                          int up, temu_hop **edges)
{
    int64_t rr = temu_node_router(m, root);
    size_t cap = 0, n = 0;
    temu_hop *all = NULL;
    temu_hop path[TEMU_MAX_HOPS];

    *edges = NULL;
    for (int32_t i = 0; i < nnodes; i++) {
        int64_t r = temu_node_router(m, nodes[i]);
        int h = up ? temu_route(m, r, rr, path, TEMU_MAX_HOPS)
                   : temu_route(m, rr, r, path, TEMU_MAX_HOPS);
        if (h <= 0) {
            continue;
        }
        if (n + (size_t)h > cap) {
            size_t ncap = cap ? cap * 2 : 64;
            while (ncap < n + (size_t)h) {
                ncap *= 2;
            }
            temu_hop *grown = realloc(all, ncap * sizeof *all);
            if (grown == NULL) {
                free(all);
                return -1;
            }
            all = grown;
            cap = ncap;
        }
        memcpy(all + n, path, (size_t)h * sizeof *path);
        n += (size_t)h;
    }
    if (n == 0) {
        free(all);
        return 0;
    }
    qsort(all, n, sizeof *all, hop_cmp);
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (k == 0 || hop_cmp(&all[k - 1], &all[i]) != 0) {
            all[k++] = all[i];
        }
    }
    *edges = all;
    return (int)k;
}

int tmpi_nodes_form_box(const temu_machine *m, const int64_t *nodes, int32_t nnodes)
{
    int32_t lo[TEMU_MAX_DIMS], hi[TEMU_MAX_DIMS], c[TEMU_MAX_DIMS];
    int64_t volume = 1;
    if (nnodes <= 0) {
        return 0;
    }
    for (int d = 0; d < m->ndims; d++) {
        lo[d] = INT32_MAX;
        hi[d] = -1;
    }
    /* distinct routers, by sorting a copy */
    int64_t *r = malloc((size_t)nnodes * sizeof *r);
    if (r == NULL) {
        return 0;
    }
    for (int32_t i = 0; i < nnodes; i++) {
        r[i] = temu_node_router(m, nodes[i]);
    }
    for (int32_t i = 1; i < nnodes; i++) { /* insertion sort: communicators are small */
        int64_t v = r[i];
        int32_t j = i - 1;
        while (j >= 0 && r[j] > v) {
            r[j + 1] = r[j];
            j--;
        }
        r[j + 1] = v;
    }
    int64_t distinct = 0;
    for (int32_t i = 0; i < nnodes; i++) {
        if (i > 0 && r[i] == r[i - 1]) {
            continue;
        }
        distinct++;
        temu_router_coords(m, r[i], c);
        for (int d = 0; d < m->ndims; d++) {
            lo[d] = c[d] < lo[d] ? c[d] : lo[d];
            hi[d] = c[d] > hi[d] ? c[d] : hi[d];
        }
    }
    free(r);
    for (int d = 0; d < m->ndims; d++) {
        volume *= hi[d] - lo[d] + 1;
    }
    /* distinct routers inside the bounding box fill it iff counts match */
    return volume == distinct;
}

void tmpi_classroute_inject(temu_session *s, const temu_hop *edges, int nedges, const int64_t *inj,
                            int32_t ninj, const int64_t *rcv, int32_t nrcv, uint64_t bytes,
                            temu_kind kind)
{
    if (temu_family_info_get(temu_session_machine(s)->system)->collnet ==
        TEMU_COLLNET_CLASS_ROUTES) {
        temu_inject_tree(s, bytes, kind, edges, nedges, inj, ninj, rcv, nrcv, NULL);
    }
}

void tmpi_trees_init(tmpi_trees *t)
{
    memset(t, 0, sizeof *t);
    t->root[0] = t->root[1] = -1;
}

void tmpi_trees_free(tmpi_trees *t)
{
    free(t->edges[0]);
    free(t->edges[1]);
    tmpi_trees_init(t);
}

/* Tree for root node `root`, up or down, from the cache or built now. */
static int tree_for(const temu_machine *m, tmpi_trees *t, const int64_t *nodes, int32_t nnodes,
                    int64_t root, int up, const temu_hop **edges)
{
    if (t->root[up] != root) {
        temu_hop *e = NULL;
        int n = tmpi_classroute_edges(m, nodes, nnodes, root, up, &e);
        if (n < 0) {
            return -1;
        }
        free(t->edges[up]);
        t->edges[up] = e;
        t->n[up] = n;
        t->root[up] = root;
    }
    *edges = t->edges[up];
    return t->n[up];
}

int tmpi_classroute_coll(temu_session *s, tmpi_trees *t, const int64_t *nodes, int32_t nnodes,
                         int64_t root, temu_coll_op op, uint64_t bytes, temu_kind kind)
{
    const temu_machine *m = temu_session_machine(s);
    const temu_hop *edges = NULL;
    int up = op != TEMU_COLL_BCAST, down = op != TEMU_COLL_REDUCE;
    if (up) {
        int n = tree_for(m, t, nodes, nnodes, root, 1, &edges);
        if (n < 0) {
            return -1;
        }
        tmpi_classroute_inject(s, edges, n, nodes, nnodes, op == TEMU_COLL_REDUCE ? &root : NULL,
                               op == TEMU_COLL_REDUCE, bytes, kind);
    }
    if (down) {
        int n = tree_for(m, t, nodes, nnodes, root, 0, &edges);
        if (n < 0) {
            return -1;
        }
        const int64_t *rcv = nodes;
        int32_t nrcv = nnodes;
        int64_t *others = NULL;
        if (op == TEMU_COLL_BCAST) { /* every node but the root's receives */
            others = malloc((size_t)nnodes * sizeof *others);
            if (others == NULL) {
                return -1;
            }
            nrcv = 0;
            for (int32_t i = 0; i < nnodes; i++) {
                if (nodes[i] != root) {
                    others[nrcv++] = nodes[i];
                }
            }
            rcv = others;
        }
        tmpi_classroute_inject(s, edges, n, op == TEMU_COLL_BCAST ? &root : NULL, op == TEMU_COLL_BCAST, rcv,
                               nrcv, bytes, kind);
        free(others);
    }
    return 0;
}
