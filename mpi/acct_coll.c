/*
 * acct_coll.c - collectives into the counter store.
 *
 * A call is described for coll.c (sizes in bytes, per-rank blocks), the
 * algorithm of the emulated machine's MPI is chosen, and this rank injects
 * the messages it sends in that algorithm as point-to-point messages (the
 * MPI protocol applies to them as to any send).  BG/Q class-route
 * collectives are injected whole by communicator rank 0 on the collective
 * virtual channels (classroute.c).  Collectives on intercommunicators are
 * not decomposed (a warning says so once).
 */
#include "tmpi.h"

#include <stdlib.h>
#include <string.h>

static int warned_inter;

typedef struct emit_ctx {
    const tmpi_comm *comm;
    int inject;            /* counting (not paused)                           */
    int pass;              /* TMPI_VT_PASS_*                                  */
    int64_t vt_ps;         /* virtual time: this rank's messages one after another */
    uint64_t first, count; /* PASS_BEFORE: their sequence numbers in the feed */
    const char *send_base; /* bytes of the send side, or NULL            */
    const char *recv_base; /* bytes of the receive side, or NULL         */
    int recv_ready;        /* recv_base already holds the final data     */
    temu_kind kind;        /* of its messages (tmpi_coll_msg_kind)       */
} emit_ctx;

static void emit_inject(void *ctx, const tmpi_msg *m)
{
    emit_ctx *e = ctx;
    const void *payload = NULL;
    int32_t w = tmpi_comm_local(e->comm, m->dst);
    if (w < 0) {
        return;
    }
    if (m->buf == TMPI_BUF_SEND && e->send_base != NULL) {
        payload = e->send_base + m->off;
    } else if (m->buf == TMPI_BUF_RECV && e->recv_base != NULL && e->recv_ready) {
        payload = e->recv_base + m->off;
    }
    if (e->inject && e->pass != TMPI_VT_PASS_BEFORE) {
        temu_inject_ranks(tmpi_g.session, tmpi_g.world_rank, w, m->bytes, payload, e->kind, NULL);
    }
    if (tmpi_vt_on && e->pass != TMPI_VT_PASS_AFTER) {
        temu_message msg = {tmpi_g.node, tmpi_g.rank_node[w], m->bytes,
                            tmpi_g.want_payload ? payload : NULL, e->kind};
        int64_t lat = tmpi_vt_coll_latency(&msg, tmpi_vt_message_latency(&msg));
        e->vt_ps += lat;
        if (e->pass == TMPI_VT_PASS_BEFORE) {
            uint64_t seq = tmpi_vt_feed_coll(&msg, e->inject, lat, e->vt_ps);
            e->first = e->count++ == 0 ? seq : e->first;
        } else if (e->inject) {
            tmpi_vt_feed_message(&msg);
        }
    }
}

/* ------------------------------------------------------------ helpers */

static int type_size(MPI_Datatype t)
{
    int s = 0;
    return tmpi_type_valid(t) && PMPI_Type_size(t, &s) == MPI_SUCCESS ? s : 0;
}

/* Extent of a dense type (see account.c), else -1 (no offsets). */
static MPI_Aint dense_extent(MPI_Datatype t, MPI_Aint *tlb)
{
    MPI_Aint lb, ext, textent;
    int size = type_size(t);
    if (size <= 0 || PMPI_Type_get_true_extent(t, tlb, &textent) != MPI_SUCCESS ||
        PMPI_Type_get_extent(t, &lb, &ext) != MPI_SUCCESS || textent != size || ext != size) {
        return -1;
    }
    return ext;
}

/* Base address of a buffer of a dense type, or NULL. */
static const char *base_of(const void *buf, MPI_Datatype t)
{
    MPI_Aint tlb;
    if (!tmpi_g.want_payload || buf == NULL || buf == MPI_IN_PLACE || dense_extent(t, &tlb) < 0) {
        return NULL;
    }
    return (const char *)buf + tlb;
}

/* Predefined reduction on a predefined type: what the BG collective
 * networks could combine. */
static int hardware_op(MPI_Op op, MPI_Datatype t)
{
    int ni, na, nd, combiner;
    int known = op == MPI_MAX || op == MPI_MIN || op == MPI_SUM || op == MPI_PROD ||
                op == MPI_LAND || op == MPI_BAND || op == MPI_LOR || op == MPI_BOR ||
                op == MPI_LXOR || op == MPI_BXOR || op == MPI_MAXLOC || op == MPI_MINLOC;
    return known && tmpi_type_valid(t) &&
           PMPI_Type_get_envelope(t, &ni, &na, &nd, &combiner) == MPI_SUCCESS &&
           combiner == MPI_COMBINER_NAMED;
}

/* Out-neighbours of a process topology, in the order the neighbourhood
 * collectives use (MPI-3.1 section 7.6): Cartesian dimension by dimension,
 * the - then the + neighbour; graph and distributed graph in their lists.
 * MPI_PROC_NULL entries are kept as -1.  Returns the count, -1 if none. */
static int out_neighbors(MPI_Comm comm, int rank, int32_t **out)
{
    int status, n = -1;
    int *list = NULL;
    *out = NULL;
    if (PMPI_Topo_test(comm, &status) != MPI_SUCCESS) {
        return -1;
    }
    if (status == MPI_CART) {
        int nd = 0;
        PMPI_Cartdim_get(comm, &nd);
        list = malloc((size_t)(2 * nd + 1) * sizeof *list);
        for (int d = 0; list != NULL && d < nd; d++) {
            PMPI_Cart_shift(comm, d, 1, &list[2 * d], &list[2 * d + 1]);
        }
        n = list != NULL ? 2 * nd : -1;
    } else if (status == MPI_GRAPH) {
        PMPI_Graph_neighbors_count(comm, rank, &n);
        list = malloc((size_t)(n + 1) * sizeof *list);
        if (list == NULL || PMPI_Graph_neighbors(comm, rank, n, list) != MPI_SUCCESS) {
            n = -1;
        }
    } else if (status == MPI_DIST_GRAPH) {
        int indeg = 0, outdeg = 0, weighted = 0;
        PMPI_Dist_graph_neighbors_count(comm, &indeg, &outdeg, &weighted);
        int *src = malloc((size_t)(indeg + 1) * sizeof *src);
        int *sw = malloc((size_t)(indeg + 1) * sizeof *sw);
        int *dw = malloc((size_t)(outdeg + 1) * sizeof *dw);
        list = malloc((size_t)(outdeg + 1) * sizeof *list);
        if (src != NULL && sw != NULL && dw != NULL && list != NULL &&
            PMPI_Dist_graph_neighbors(comm, indeg, src, weighted ? sw : MPI_UNWEIGHTED, outdeg,
                                      list, weighted ? dw : MPI_UNWEIGHTED) == MPI_SUCCESS) {
            n = outdeg;
        }
        free(src);
        free(sw);
        free(dw);
    }
    if (n >= 0 && list != NULL) {
        *out = malloc((size_t)(n + 1) * sizeof **out);
        for (int i = 0; *out != NULL && i < n; i++) {
            (*out)[i] = list[i] == MPI_PROC_NULL ? -1 : list[i];
        }
        if (*out == NULL) {
            n = -1;
        }
    }
    free(list);
    return n;
}

int tmpi_neighbor_count(MPI_Comm comm)
{
    int32_t *nb = NULL;
    int rank = 0;
    PMPI_Comm_rank(comm, &rank);
    int n = out_neighbors(comm, rank, &nb);
    free(nb);
    return n;
}

/* --------------------------------------------------------- class routes */

/* A class-route collective (classroute.c), injected whole by communicator
 * rank 0. */
static void classroute(tmpi_comm *c, const tmpi_coll *k)
{
    temu_slot slot;
    int root_rank = k->op == TEMU_COLL_BCAST || k->op == TEMU_COLL_REDUCE ? k->root : 0;
    temu_kind kind = c->spans_world ? TEMU_KIND_COLL_WORLD : TEMU_KIND_COLL_SUB;
    uint64_t bytes = k->op == TEMU_COLL_BARRIER ? 0 : k->bytes;

    if (c->rank != 0 || !tmpi_comm_nodes(c) ||
        temu_session_rank_slot(tmpi_g.session, tmpi_comm_local(c, root_rank), &slot, NULL) !=
            TEMU_OK) {
        return;
    }
    tmpi_classroute_coll(tmpi_g.session, &c->trees, c->nodes, c->nnodes, slot.node, k->op, bytes,
                         kind);
}

/* ----------------------------------------------------------- the call */

typedef struct scratch {
    uint64_t *blocks, *offs;
    int32_t *nb;
} scratch;

static int alloc_arrays(scratch *s, int n, int want_offs)
{
    s->blocks = calloc((size_t)n + 1, sizeof *s->blocks);
    s->offs = want_offs ? calloc((size_t)n + 1, sizeof *s->offs) : NULL;
    return s->blocks != NULL && (!want_offs || s->offs != NULL);
}

/* blocks[j] = counts[j] * size(type); offs[j] = displs[j] * extent when the
 * type is dense, else no offsets. */
static int fill_v(scratch *s, tmpi_coll *k, int n, const int *counts, const int *displs,
                  MPI_Datatype type)
{
    MPI_Aint tlb;
    MPI_Aint ext = displs != NULL ? dense_extent(type, &tlb) : -1;
    int size = type_size(type);
    if (counts == NULL || !alloc_arrays(s, n, ext >= 0)) {
        return 0;
    }
    for (int j = 0; j < n; j++) {
        s->blocks[j] = counts[j] > 0 ? (uint64_t)counts[j] * (uint64_t)size : 0;
        if (s->offs != NULL) {
            s->offs[j] = displs[j] >= 0 ? (uint64_t)displs[j] * (uint64_t)ext : 0;
        }
    }
    k->blocks = s->blocks;
    k->offs = s->offs;
    return 1;
}

/* *w variants: a type per block, displacements in bytes (int, or MPI_Aint
 * for the neighbourhood ones); offsets only when every type is dense (their
 * true lower bounds are added). */
static int fill_w(scratch *s, tmpi_coll *k, int n, const int *counts, const int *displs,
                  const MPI_Aint *adispls, const MPI_Datatype *types)
{
    int dense = displs != NULL || adispls != NULL;
    if (counts == NULL || types == NULL || !alloc_arrays(s, n, 1)) {
        return 0;
    }
    for (int j = 0; j < n; j++) {
        MPI_Aint tlb = 0;
        s->blocks[j] = counts[j] > 0 ? (uint64_t)counts[j] * (uint64_t)type_size(types[j]) : 0;
        if (dense && counts[j] > 0 && dense_extent(types[j], &tlb) < 0) {
            dense = 0;
        }
        if (dense) {
            int64_t d = displs != NULL ? (int64_t)displs[j] : (int64_t)adispls[j];
            s->offs[j] = (uint64_t)(d + (int64_t)tlb);
        }
    }
    k->blocks = s->blocks;
    k->offs = dense ? s->offs : NULL;
    return 1;
}

void tmpi_acct_coll(const tmpi_call *call)
{
    tmpi_comm *c = tmpi_comm_get(call->comm);
    tmpi_coll k;
    tmpi_coll_env env;
    scratch s = {NULL, NULL, NULL};
    emit_ctx e;
    int in_place = call->sendbuf == MPI_IN_PLACE;

    if (c == NULL) {
        return;
    }
    if (c->inter) {
        tmpi_warn_once(&warned_inter,
                       "collectives on intercommunicators are not counted (doc/mpi.md)");
        return;
    }
    memset(&k, 0, sizeof k);
    memset(&env, 0, sizeof env);
    k.op = call->op;
    k.n = c->size;
    k.root = call->root;
    k.commutative = 1;
    /* Buffers are looked at only where MPI says they are significant at this
     * rank (a non-root's receive arguments may be anything): the cases
     * below set what their messages use. */
    /* before the host's call (PASS_BEFORE) no receive buffer holds its data */
    int received = call->blocking && call->vt_pass != TMPI_VT_PASS_BEFORE;
    e.comm = c;
    e.kind = tmpi_coll_msg_kind(call->op);
    e.inject = tmpi_counting();
    e.pass = call->vt_pass;
    e.vt_ps = 0;
    e.first = e.count = 0;
    e.send_base = NULL;
    e.recv_base = NULL;
    e.recv_ready = received;
    if (c->size <= 1) {
        return;
    }

    switch (call->op) {
    case TEMU_COLL_BARRIER:
        break;
    case TEMU_COLL_BCAST: /* one buffer: sendbuf = recvbuf, sendtype = recvtype */
        k.bytes = tmpi_type_bytes(call->sendcount, call->sendtype);
        e.recv_base = base_of(call->recvbuf, call->recvtype);
        e.recv_ready = received || c->rank == call->root;
        break;
    case TEMU_COLL_GATHER:
        if (c->rank == call->root) {
            k.bytes = tmpi_type_bytes(call->recvcount, call->recvtype);
        } else {
            k.bytes = tmpi_type_bytes(call->sendcount, call->sendtype);
            e.send_base = base_of(call->sendbuf, call->sendtype);
        }
        break;
    case TEMU_COLL_GATHERV:
        if (c->rank != call->root) {
            k.bytes = tmpi_type_bytes(call->sendcount, call->sendtype);
            e.send_base = base_of(call->sendbuf, call->sendtype);
        }
        break;
    case TEMU_COLL_SCATTER:
        if (c->rank == call->root) {
            k.bytes = tmpi_type_bytes(call->sendcount, call->sendtype);
            e.send_base = base_of(call->sendbuf, call->sendtype);
        } else {
            k.bytes = tmpi_type_bytes(call->recvcount, call->recvtype);
        }
        break;
    case TEMU_COLL_SCATTERV:
        if (c->rank == call->root) {
            if (!fill_v(&s, &k, c->size, call->sendcounts, call->sdispls, call->sendtype)) {
                goto done;
            }
            e.send_base = base_of(call->sendbuf, call->sendtype);
        }
        break;
    case TEMU_COLL_ALLGATHER:
        k.bytes = tmpi_type_bytes(call->recvcount, call->recvtype);
        e.recv_base = base_of(call->recvbuf, call->recvtype);
        break;
    case TEMU_COLL_ALLGATHERV:
        if (!fill_v(&s, &k, c->size, call->recvcounts, call->rdispls, call->recvtype)) {
            goto done;
        }
        e.recv_base = base_of(call->recvbuf, call->recvtype);
        break;
    case TEMU_COLL_ALLTOALL:
        if (in_place) {
            k.bytes = tmpi_type_bytes(call->recvcount, call->recvtype);
        } else {
            k.bytes = tmpi_type_bytes(call->sendcount, call->sendtype);
            e.send_base = base_of(call->sendbuf, call->sendtype);
        }
        break;
    case TEMU_COLL_ALLTOALLV: {
        int ok;
        if (call->displs_bytes) { /* alltoallw */
            ok = in_place ? fill_w(&s, &k, c->size, call->recvcounts, NULL, NULL, call->recvtypes)
                          : fill_w(&s, &k, c->size, call->sendcounts, call->sdispls, NULL,
                                   call->sendtypes);
        } else {
            ok = in_place
                     ? fill_v(&s, &k, c->size, call->recvcounts, NULL, call->recvtype)
                     : fill_v(&s, &k, c->size, call->sendcounts, call->sdispls, call->sendtype);
        }
        if (!ok) {
            goto done;
        }
        e.send_base = in_place ? NULL : base_of(call->sendbuf, call->sendtype);
        break;
    }
    case TEMU_COLL_REDUCE:
    case TEMU_COLL_ALLREDUCE:
    case TEMU_COLL_SCAN:
    case TEMU_COLL_EXSCAN:
        k.count = call->sendcount > 0 ? (uint64_t)call->sendcount : 0;
        k.elem = (uint64_t)type_size(call->sendtype);
        k.bytes = k.count * k.elem;
        if (call->rop != MPI_OP_NULL) {
            int comm_op = 1;
            PMPI_Op_commutative(call->rop, &comm_op);
            k.commutative = comm_op;
        }
        env.hw_op = hardware_op(call->rop, call->sendtype);
        e.send_base = in_place ? NULL : base_of(call->sendbuf, call->sendtype);
        if (call->op != TEMU_COLL_REDUCE) { /* every rank holds the result */
            e.recv_base = base_of(call->recvbuf, call->recvtype);
        }
        break;
    case TEMU_COLL_REDUCE_SCATTER:
        k.elem = (uint64_t)type_size(call->sendtype);
        if (call->recvcounts != NULL) {
            if (!fill_v(&s, &k, c->size, call->recvcounts, NULL, call->sendtype)) {
                goto done;
            }
        } else {
            k.bytes = tmpi_type_bytes(call->recvcount, call->sendtype);
        }
        e.send_base = in_place ? NULL : base_of(call->sendbuf, call->sendtype);
        break;
    case TEMU_COLL_NEIGHBOR_ALLGATHER:
    case TEMU_COLL_NEIGHBOR_ALLTOALL: {
        k.nnb = out_neighbors(call->comm, c->rank, &s.nb);
        if (k.nnb < 0) {
            goto done;
        }
        k.nb = s.nb;
        if (call->sendcounts != NULL) { /* neighbor_alltoallv / _w */
            int ok = call->sendtypes != NULL
                         ? fill_w(&s, &k, k.nnb, call->sendcounts, NULL, call->sdispls_aint,
                                  call->sendtypes)
                         : fill_v(&s, &k, k.nnb, call->sendcounts, call->sdispls, call->sendtype);
            if (!ok) {
                goto done;
            }
        } else {
            k.bytes = tmpi_type_bytes(call->sendcount, call->sendtype);
        }
        e.send_base = base_of(call->sendbuf, call->sendtype);
        break;
    }
    case TEMU_COLL_OPS:
        goto done;
    }

    env.collnet = (int32_t)tmpi_g.fam->collnet;
    env.bruck_alltoall = tmpi_g.fam->bruck_alltoall;
    env.blocking = call->blocking;
    env.spans_world = c->spans_world;
    if (env.collnet == TEMU_COLLNET_CLASS_ROUTES && !c->spans_world && call->blocking &&
        (k.op == TEMU_COLL_BARRIER || k.op == TEMU_COLL_BCAST || k.op == TEMU_COLL_REDUCE ||
         k.op == TEMU_COLL_ALLREDUCE) &&
        tmpi_comm_nodes(c)) {
        env.box = c->box;
    }
    k.algo = tmpi_coll_choose(&env, &k);
    if (tmpi_trace_file != NULL && e.inject && e.pass != TMPI_VT_PASS_BEFORE) {
        tmpi_trace_coll(c, &k, &env, e.send_base, e.recv_base, e.recv_ready);
    }
    if (k.algo == TMPI_ALGO_CLASSROUTE) {
        if (e.inject && e.pass != TMPI_VT_PASS_BEFORE) {
            classroute(c, &k);
        }
    } else if (k.algo != TMPI_ALGO_COLLNET) {
        tmpi_coll_sends(&k, c->rank, emit_inject, &e);
    }
    if (e.pass == TMPI_VT_PASS_BEFORE) {
        /* the online model's way: pmpi_coll.c ends it after the host's call */
        tmpi_vt_coll_declare(call->comm, e.vt_ps, e.first, e.count);
    } else if (e.pass == TMPI_VT_PASS_AFTER) {
        /* counted only */
    } else if (tmpi_vt_on && call->blocking) {
        /* every member leaves at the latest (clock + own chain): doc/virtual-time.md */
        tmpi_vt_coll(call->comm, e.vt_ps);
    } else if (tmpi_vt_on && call->request != NULL) {
        tmpi_vt_icoll_start(call->comm, e.vt_ps, *call->request);
    }
done:
    free(s.blocks);
    free(s.offs);
    free(s.nb);
}
