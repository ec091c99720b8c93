/*
 * classroute.h - Blue Gene/Q collective class routes on the emulated torus.
 *
 * BG/Q ran barrier, broadcast and reductions with predefined operations on
 * "class routes": a spanning tree of the torus links over the nodes of a
 * communicator, along which the routers combine (reduce) or replicate
 * (broadcast) packets on the collective virtual channels (VC 4 for
 * MPI_COMM_WORLD, VC 5 for a sub-communicator; BG/Q driver, doc/references.md).
 * Our model of the tree (doc/mpi.md): the union of the deterministic routes
 * from every member node to the root node (up) or from the root to every
 * member (down).  Deterministic dimension-ordered routes to one node form a
 * tree, so every link of the union carries the data exactly once.
 *
 * Part of the collective library (coll/, libtoruscoll): used by the MPI
 * layer and the replay engine.  Not installed.
 */
#ifndef TMPI_CLASSROUTE_H
#define TMPI_CLASSROUTE_H

#include "torusemu.h"

#include "coll.h"

/* Not exported from a shared library that links this library in (each of
 * libtorusemu and libtorusemu_mpi carries its own copy). */
#pragma GCC visibility push(hidden)

/* Links of the class-route tree over `nodes` (node ids; duplicates
 * allowed) towards root (up = 1) or from root (up = 0), each once, sorted
 * by (from router, link).  Returns the count and a malloc'ed array in
 * *edges (NULL when the count is 0), or -1 when out of memory.  Pure. */
int tmpi_classroute_edges(const temu_machine *m, const int64_t *nodes, int32_t nnodes, int64_t root,
                          int up, temu_hop **edges);

/* 1 when the distinct nodes fill a rectangular block of the machine exactly
 * (every coordinate between the minimum and maximum of each dimension,
 * without wrapping), the shape a BG/Q sub-communicator needed to get its own
 * class route.  Pure. */
int tmpi_nodes_form_box(const temu_machine *m, const int64_t *nodes, int32_t nnodes);

/*
 * Add one class-route operation of `bytes` to the store: the chunks and
 * packets of the data on every edge (collective VC of `kind`), message-unit
 * and L2 counts of one injection at each node of `inj` and one reception at
 * each node of `rcv`, and one message of `bytes` per injection to the
 * session totals.  Nothing at all when the tree has no edge (every member on
 * one node: shared memory).
 */
void tmpi_classroute_inject(temu_session *s, const temu_hop *edges, int nedges, const int64_t *inj,
                            int32_t ninj, const int64_t *rcv, int32_t nrcv, uint64_t bytes,
                            temu_kind kind);

/* The class-route trees of one communicator, cached by root node:
 * [0] down (from the root), [1] up (towards it). */
typedef struct tmpi_trees {
    int64_t root[2]; /* -1: nothing cached */
    int32_t n[2];
    temu_hop *edges[2];
} tmpi_trees;

void tmpi_trees_init(tmpi_trees *t);
void tmpi_trees_free(tmpi_trees *t);

/*
 * One class-route collective (doc/mpi.md) over the distinct member nodes
 * `nodes` of a communicator, whose root (bcast, reduce) or rank 0 (barrier,
 * allreduce) sits on node `root`: barrier and allreduce go up the tree to
 * `root` and the result comes down; a reduce goes up; a broadcast comes
 * down.  Every node injects its contribution once and receives the result
 * once.  `bytes` is the buffer (0 for a barrier).  Called once per
 * operation (by communicator rank 0 in a live run).  Returns 0, or -1 when
 * out of memory (nothing counted).
 */
int tmpi_classroute_coll(temu_session *s, tmpi_trees *t, const int64_t *nodes, int32_t nnodes,
                         int64_t root, temu_coll_op op, uint64_t bytes, temu_kind kind);

#pragma GCC visibility pop

#endif
