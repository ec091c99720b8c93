/*
 * replay.c - the replay engine: a stream of MPI-level operations into a
 * session store, as a live run would have counted them (doc/replay.md).
 *
 * Sends are injected by their sender, once, at the send -- what the MPI
 * layer does (mpi/account.c).  Collectives go through the decomposition the
 * live layer uses too (the collective library coll/: coll.c's
 * tmpi_coll_choose and tmpi_coll_sends, BG/Q class routes in classroute.c),
 * so a replay and a live run cannot disagree on an algorithm.  Receives
 * only complete the bookkeeping: they are matched to sends in hashed
 * queues (match.c).
 * Whether a message is counted as it is read or the ranks run in virtual
 * time is the replay's mode (replay_mode.h: counting or timed).
 */
#define TEMU_BUILDING_LIBRARY 1
#include "emu_internal.h"
#include "match.h"
#include "replay_mode.h"
#include "torusemu_replay.h"
#include "torusemu_vtime.h"

#include "classroute.h"
#include "coll.h"

#include <stdlib.h>
#include <string.h>

/* Communicator ids above this are refused (the table is indexed by id). */
#define MAX_COMM_ID (1 << 24)

typedef struct rcomm {
    int32_t defined;
    int32_t n;
    int32_t *world;      /* comm rank -> world rank; NULL for the world   */
    int32_t spans_world; /* holds every rank of the job                   */
    /* BG/Q class routes: distinct member nodes (sorted), box, trees */
    int32_t nnodes;
    int32_t box;
    int64_t *nodes;
    tmpi_trees trees;
} rcomm;

struct temu_replay {
    temu_session *s;
    const temu_machine *m;
    int32_t nranks;
    rcomm *comms;
    int32_t ncomms;
    int32_t first_free; /* lowest undefined communicator id (>= 1) */
    temu_match *match;
    int sends_only; /* temu_replay_sends_only */
    temu_replay_stats st;
    temu_vt *vt;                  /* temu_replay_set_vtime: each rank's program too */
    const temu_replay_mode *mode; /* counting, or timed with vt */
};

const char *temu_coll_op_name(int op)
{
    return op >= 0 && op < TEMU_COLL_OPS ? tmpi_coll_op_name((temu_coll_op)op) : NULL;
}

int temu_coll_op_lists(int op)
{
    switch (op) {
    case TEMU_COLL_SCATTERV:
    case TEMU_COLL_ALLGATHERV:
    case TEMU_COLL_ALLTOALLV:
    case TEMU_COLL_REDUCE_SCATTER:
        return TEMU_COLL_LISTS_RANKS;
    case TEMU_COLL_NEIGHBOR_ALLGATHER:
    case TEMU_COLL_NEIGHBOR_ALLTOALL:
        return TEMU_COLL_LISTS_NEIGHBORS;
    default:
        return op >= 0 && op < TEMU_COLL_OPS ? TEMU_COLL_LISTS_NONE : -1;
    }
}

temu_status temu_replay_create(temu_session *s, temu_replay **out, temu_error *err)
{
    *out = NULL;
    if (temu_session_nranks(s) <= 0) {
        return temu_fail(err, TEMU_EINVAL, "replay: the session has no rank mapping");
    }
    temu_replay *r = calloc(1, sizeof *r);
    if (r == NULL || (r->match = temu_match_new()) == NULL ||
        (r->comms = calloc(1, sizeof *r->comms)) == NULL) {
        temu_replay_free(r);
        return temu_fail(err, TEMU_ENOMEM, "replay: out of memory (%zu bytes and matching queues)",
                         sizeof *r + sizeof *r->comms);
    }
    r->s = s;
    r->mode = &temu_replay_counting;
    r->m = temu_session_machine(s);
    r->nranks = temu_session_nranks(s);
    r->ncomms = 1;
    r->first_free = 1;
    r->comms[0].defined = 1;
    r->comms[0].n = r->nranks;
    r->comms[0].spans_world = 1;
    tmpi_trees_init(&r->comms[0].trees);
    *out = r;
    return TEMU_OK;
}

void temu_replay_free(temu_replay *r)
{
    if (r == NULL) {
        return;
    }
    for (int32_t i = 0; r->comms != NULL && i < r->ncomms; i++) {
        free(r->comms[i].world);
        free(r->comms[i].nodes);
        tmpi_trees_free(&r->comms[i].trees);
    }
    free(r->comms);
    temu_match_free(r->match);
    free(r);
}

static rcomm *comm_get(temu_replay *r, int32_t id)
{
    return id >= 0 && id < r->ncomms && r->comms[id].defined ? &r->comms[id] : NULL;
}

temu_status temu_replay_comm(temu_replay *r, int32_t id, int32_t n, const int32_t *members,
                             temu_error *err)
{
    if (id <= 0 || id >= MAX_COMM_ID) {
        return temu_fail(err, TEMU_ERANGE, "replay: communicator id %d outside 1..%d", id,
                         MAX_COMM_ID - 1);
    }
    if (comm_get(r, id) != NULL) {
        return temu_fail(err, TEMU_EINVAL, "replay: communicator %d defined twice", id);
    }
    if (n <= 0 || n > r->nranks) {
        return temu_fail(err, TEMU_EINVAL, "replay: communicator %d has %d members (1..%d)", id, n,
                         r->nranks);
    }
    for (int32_t i = 0; i < n; i++) {
        if (members[i] < 0 || members[i] >= r->nranks) {
            return temu_fail(err, TEMU_ERANGE,
                             "replay: communicator %d member %d is world rank %d (0..%d)", id, i,
                             members[i], r->nranks - 1);
        }
    }
    if (id >= r->ncomms) {
        int32_t ncap = r->ncomms;
        while (ncap <= id) {
            ncap *= 2;
        }
        rcomm *grown = realloc(r->comms, (size_t)ncap * sizeof *grown);
        if (grown == NULL) {
            return temu_fail(err, TEMU_ENOMEM, "replay: out of memory: %zu bytes for communicators",
                             (size_t)ncap * sizeof *grown);
        }
        memset(grown + r->ncomms, 0, (size_t)(ncap - r->ncomms) * sizeof *grown);
        r->comms = grown;
        r->ncomms = ncap;
    }
    rcomm *c = &r->comms[id];
    c->world = malloc((size_t)n * sizeof *c->world);
    if (c->world == NULL) {
        return temu_fail(err, TEMU_ENOMEM,
                         "replay: out of memory: %zu bytes for communicator %d's members",
                         (size_t)n * sizeof *c->world, id);
    }
    memcpy(c->world, members, (size_t)n * sizeof *members);
    c->n = n;
    /* the live layer: an intracommunicator holding every rank of the job
     * (its size is the world's, members distinct by MPI's rules) */
    c->spans_world = n == r->nranks;
    tmpi_trees_init(&c->trees);
    c->defined = 1;
    while (comm_get(r, r->first_free) != NULL) {
        r->first_free++;
    }
    return TEMU_OK;
}

temu_session *temu_replay_session(const temu_replay *r)
{
    return r->s;
}

int32_t temu_replay_nranks(const temu_replay *r)
{
    return r->nranks;
}

int32_t temu_replay_unused_comm(const temu_replay *r)
{
    return r->first_free;
}

temu_status temu_replay_comm_members(const temu_replay *r, int32_t id, int32_t *n,
                                     const int32_t **members, temu_error *err)
{
    const rcomm *c = comm_get((temu_replay *)r, id);
    if (c == NULL) {
        return temu_fail(err, TEMU_ERANGE, "replay: communicator %d is not defined", id);
    }
    *n = c->n;
    *members = c->world;
    return TEMU_OK;
}

/* World rank of communicator rank i, or -1. */
static int32_t world_of(const rcomm *c, int32_t i)
{
    if (i < 0 || i >= c->n) {
        return -1;
    }
    return c->world != NULL ? c->world[i] : i;
}

static temu_status peers(temu_replay *r, int32_t comm, int32_t a, int32_t b, int32_t *wa,
                         int32_t *wb, const char *what, temu_error *err)
{
    const rcomm *c = comm_get(r, comm);
    if (c == NULL) {
        return temu_fail(err, TEMU_ERANGE, "replay: %s on communicator %d, which is not defined",
                         what, comm);
    }
    *wa = world_of(c, a);
    *wb = world_of(c, b);
    if (*wa < 0 || *wb < 0) {
        return temu_fail(err, TEMU_ERANGE,
                         "replay: %s between ranks %d and %d of communicator %d (size %d)", what, a,
                         b, comm, c->n);
    }
    return TEMU_OK;
}

static temu_status post(temu_replay *r, int side, int32_t comm, int32_t src, int32_t dst,
                        int32_t tag, uint64_t bytes, temu_error *err)
{
    temu_match_key k = {comm, src, dst, tag};
    uint64_t other = 0;
    int got = temu_match_post(r->match, &k, side, bytes, &other);
    if (got < 0) {
        return temu_fail(err, TEMU_ENOMEM, "replay: out of memory (matching queues)");
    }
    if (got == 1 && bytes != TEMU_REPLAY_ANY_SIZE && other != TEMU_REPLAY_ANY_SIZE &&
        bytes != other) {
        uint64_t sent = side == TEMU_MATCH_SEND ? bytes : other;
        uint64_t rcvd = side == TEMU_MATCH_SEND ? other : bytes;
        return temu_fail(err, TEMU_EINVAL,
                         "replay: rank %d sent %llu bytes to rank %d (communicator %d, tag %d) "
                         "but the matching receive has %llu",
                         src, (unsigned long long)sent, dst, comm, tag, (unsigned long long)rcvd);
    }
    return TEMU_OK;
}

/* The payload pointer handed to the model for a recorded address: only
 * on BG/Q, where the model uses the address alone (an L2 slice); elsewhere
 * it would read bytes a replay does not have. */
static const void *address(const temu_replay *r, uint64_t addr)
{
    return r->s->family->info.payload == TEMU_PAYLOAD_ADDRESS ? (const void *)(uintptr_t)addr
                                                              : NULL;
}

temu_status temu_replay_send(temu_replay *r, int32_t comm, int32_t src, int32_t dst, int32_t tag,
                             uint64_t bytes, temu_error *err)
{
    return temu_replay_send_at(r, comm, src, dst, tag, bytes, 0, err);
}

void temu_replay_set_vtime(temu_replay *r, temu_vt *vt)
{
    r->vt = vt;
    r->mode = vt != NULL ? &temu_replay_timed : &temu_replay_counting;
}

temu_vt *temu_replay_vtime(const temu_replay *r)
{
    return r->vt;
}

/* The rank's program gets point-to-point operation p (send or receive;
 * the timed mode's). */
static temu_status vt_p2p(temu_replay *r, int send, int32_t comm, int32_t src, int32_t dst,
                          int32_t tag, int32_t ws, int32_t wd, uint64_t bytes, uint64_t req,
                          uint64_t addr, int inject, temu_error *err)
{
    temu_vt_p2p p = {comm, src, dst, tag, ws, wd, bytes, req, addr, inject};
    return send ? r->mode->send(r->vt, &p, err) : r->mode->recv(r->vt, &p, err);
}

temu_status temu_replay_send_at(temu_replay *r, int32_t comm, int32_t src, int32_t dst, int32_t tag,
                                uint64_t bytes, uint64_t addr, temu_error *err)
{
    return temu_replay_isend(r, comm, src, dst, tag, bytes, addr, 0, err);
}

temu_status temu_replay_isend(temu_replay *r, int32_t comm, int32_t src, int32_t dst, int32_t tag,
                              uint64_t bytes, uint64_t addr, uint64_t req, temu_error *err)
{
    int32_t ws, wd;
    temu_status st = peers(r, comm, src, dst, &ws, &wd, "send", err);
    if (st == TEMU_OK && bytes == TEMU_REPLAY_ANY_SIZE) {
        st = temu_fail(err, TEMU_EINVAL, "replay: a send needs its size");
    }
    if (st == TEMU_OK) {
        st = r->mode->message(r->s, ws, wd, bytes, address(r, addr), TEMU_KIND_P2P, err);
    }
    if (st == TEMU_OK) {
        r->st.sends++;
        r->st.messages++;
        if (!r->sends_only) {
            st = post(r, TEMU_MATCH_SEND, comm, src, dst, tag, bytes, err);
        }
    }
    return st == TEMU_OK ? vt_p2p(r, 1, comm, src, dst, tag, ws, wd, bytes, req,
                                  (uint64_t)(uintptr_t)address(r, addr), 1, err)
                         : st;
}

temu_status temu_replay_send_uncounted(temu_replay *r, int32_t comm, int32_t src, int32_t dst,
                                       int32_t tag, uint64_t bytes, temu_error *err)
{
    int32_t ws, wd;
    temu_status st = peers(r, comm, src, dst, &ws, &wd, "send", err);
    if (st == TEMU_OK && !r->sends_only) {
        st = post(r, TEMU_MATCH_SEND, comm, src, dst, tag, bytes, err);
    }
    /* uncounted, but it took its time on the network */
    return st == TEMU_OK ? vt_p2p(r, 1, comm, src, dst, tag, ws, wd, bytes, 0, 0, 0, err) : st;
}

void temu_replay_sends_only(temu_replay *r)
{
    r->sends_only = 1;
}

temu_status temu_replay_recv(temu_replay *r, int32_t comm, int32_t dst, int32_t src, int32_t tag,
                             uint64_t bytes, temu_error *err)
{
    return temu_replay_irecv(r, comm, dst, src, tag, bytes, 0, err);
}

temu_status temu_replay_irecv(temu_replay *r, int32_t comm, int32_t dst, int32_t src, int32_t tag,
                              uint64_t bytes, uint64_t req, temu_error *err)
{
    int32_t ws, wd;
    temu_status st = peers(r, comm, src, dst, &ws, &wd, "receive", err);
    if (st == TEMU_OK) {
        r->st.recvs++;
        st = post(r, TEMU_MATCH_RECV, comm, src, dst, tag, bytes, err);
    }
    return st == TEMU_OK ? vt_p2p(r, 0, comm, src, dst, tag, ws, wd, bytes, req, 0, 0, err) : st;
}

static temu_status world_rank_ok(const temu_replay *r, int32_t rank, temu_error *err)
{
    if (rank < 0 || rank >= r->nranks) {
        return temu_fail(err, TEMU_ERANGE, "replay: rank %d outside 0..%d", rank, r->nranks - 1);
    }
    return TEMU_OK;
}

temu_status temu_replay_irecv_post(temu_replay *r, int32_t rank, uint64_t req, temu_error *err)
{
    temu_status st = world_rank_ok(r, rank, err);
    return st == TEMU_OK ? r->mode->recv_post(r->vt, rank, req, err) : st;
}

temu_status temu_replay_wait(temu_replay *r, int32_t rank, uint64_t req, temu_error *err)
{
    temu_status st = world_rank_ok(r, rank, err);
    return st == TEMU_OK ? r->mode->wait(r->vt, rank, req, err) : st;
}

temu_status temu_replay_trace_time(temu_replay *r, int32_t rank, int64_t begin_ns, int64_t end_ns,
                                   temu_error *err)
{
    temu_status st = world_rank_ok(r, rank, err);
    return st == TEMU_OK ? r->mode->trace_time(r->vt, rank, begin_ns, end_ns, err) : st;
}

temu_status temu_replay_rma(temu_replay *r, int32_t comm, int32_t origin, int32_t target,
                            uint64_t bytes, temu_kind kind, temu_error *err)
{
    return temu_replay_rma_at(r, comm, origin, target, bytes, kind, 0, err);
}

temu_status temu_replay_rma_at(temu_replay *r, int32_t comm, int32_t origin, int32_t target,
                               uint64_t bytes, temu_kind kind, uint64_t addr, temu_error *err)
{
    int32_t wo, wt;
    if (kind != TEMU_KIND_PUT && kind != TEMU_KIND_GET) {
        return temu_fail(err, TEMU_EINVAL, "replay: one-sided operation of kind %s",
                         temu_kind_name(kind));
    }
    temu_status st = peers(r, comm, origin, target, &wo, &wt, "one-sided operation", err);
    if (st == TEMU_OK) {
        st = r->mode->message(r->s, wo, wt, bytes, address(r, addr), kind, err);
    }
    if (st == TEMU_OK) {
        r->st.rma++;
        r->st.messages++;
        st =
            r->mode->rma(r->vt, wo, wt, bytes, kind, (uint64_t)(uintptr_t)address(r, addr), 1, err);
    }
    return st;
}

/* ---------------------------------------------------------- collectives */

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

/* Distinct nodes of the members and whether they fill a box, as the live
 * layer computes them (mpi/state.c). */
static int comm_nodes(temu_replay *r, rcomm *c)
{
    if (c->nodes != NULL) {
        return 1;
    }
    int64_t *nodes = malloc((size_t)c->n * sizeof *nodes);
    if (nodes == NULL) {
        return 0;
    }
    for (int32_t i = 0; i < c->n; i++) {
        temu_slot slot;
        temu_session_rank_slot(r->s, world_of(c, i), &slot, NULL);
        nodes[i] = slot.node;
    }
    qsort(nodes, (size_t)c->n, sizeof *nodes, cmp_i64);
    int32_t u = 1;
    for (int32_t i = 1; i < c->n; i++) {
        if (nodes[i] != nodes[u - 1]) {
            nodes[u++] = nodes[i];
        }
    }
    c->nnodes = u;
    c->box = tmpi_nodes_form_box(r->m, nodes, u);
    c->nodes = nodes;
    return 1;
}

typedef struct emit_ctx {
    temu_replay *r;
    const rcomm *c;
    const temu_replay_coll *rc;
    int32_t comm, me; /* the caller: communicator and its rank there */
    int32_t from;     /* world rank of the caller */
    temu_status st;
    temu_error *err;
} emit_ctx;

/* Like the live layer's emit_inject (mpi/acct_coll.c): a slice of the send
 * buffer, or of the receive buffer once it holds the final data. */
static void emit(void *ctx, const tmpi_msg *m)
{
    emit_ctx *e = ctx;
    int32_t w = world_of(e->c, m->dst);
    uint64_t addr = 0;
    if (w < 0 || e->st != TEMU_OK) {
        return;
    }
    if (m->buf == TMPI_BUF_SEND && e->rc->send_base != 0) {
        addr = e->rc->send_base + m->off;
    } else if (m->buf == TMPI_BUF_RECV && e->rc->recv_base != 0 && e->rc->recv_ready) {
        addr = e->rc->recv_base + m->off;
    }
    /* an all-to-all's blocks are of their own kind (BG/Q: PAMI's
     * many-to-many protocol) */
    temu_kind kind = tmpi_coll_msg_kind((temu_coll_op)e->rc->op);
    e->r->st.messages++;
    e->st = e->r->mode->message(e->r->s, e->from, w, m->bytes, address(e->r, addr), kind, e->err);
    if (e->st == TEMU_OK) {
        e->st = e->r->mode->coll_msg(e->r->vt, e->comm, e->me, m->dst, w, m->bytes, kind, m->round,
                                     (uint64_t)(uintptr_t)address(e->r, addr), e->err);
    }
}

/* The lists of rank me's collective rc against its operation and
 * communicator c (id comm): what coll.c reads must be there. */
static temu_status coll_lists_check(const rcomm *c, int32_t comm, int32_t me,
                                    const temu_replay_coll *rc, temu_error *err)
{
    const char *name = temu_coll_op_name(rc->op);
    int lists = temu_coll_op_lists(rc->op);
    if (lists != TEMU_COLL_LISTS_NEIGHBORS && (rc->nnb != 0 || rc->nb != NULL)) {
        return temu_fail(err, TEMU_EINVAL,
                         "replay: %s by rank %d of communicator %d: nb/nnb given, but %s has no "
                         "neighbours",
                         name, me, comm, name);
    }
    if (rc->nnb < 0 || (rc->nnb > 0 && rc->nb == NULL)) {
        return temu_fail(err, TEMU_EINVAL,
                         "replay: %s by rank %d of communicator %d: nnb is %d with %s nb", name, me,
                         comm, rc->nnb, rc->nb == NULL ? "no" : "a list");
    }
    for (int32_t i = 0; i < rc->nnb; i++) {
        if (rc->nb[i] < -1 || rc->nb[i] >= c->n) {
            return temu_fail(err, TEMU_ERANGE,
                             "replay: %s by rank %d of communicator %d: out-neighbour nb[%d] is "
                             "%d, outside -1..%d (-1: none)",
                             name, me, comm, i, rc->nb[i], c->n - 1);
        }
    }
    if (lists == TEMU_COLL_LISTS_NONE && rc->blocks != NULL) {
        return temu_fail(err, TEMU_EINVAL,
                         "replay: %s by rank %d of communicator %d: blocks given, but %s takes "
                         "one size (bytes)",
                         name, me, comm, name);
    }
    if (rc->offs != NULL && rc->blocks == NULL) {
        return temu_fail(err, TEMU_EINVAL,
                         "replay: %s by rank %d of communicator %d: offs without blocks", name, me,
                         comm);
    }
    return TEMU_OK;
}

/* Rank me's collective rc on communicator c (id comm) before it is
 * decomposed. */
static temu_status coll_check(const rcomm *c, int32_t comm, int32_t me, const temu_replay_coll *rc,
                              temu_error *err)
{
    if (temu_coll_op_lists(rc->op) < 0) {
        return temu_fail(err, TEMU_EINVAL, "replay: unknown collective operation %d", rc->op);
    }
    if (me < 0 || me >= c->n) {
        return temu_fail(err, TEMU_ERANGE, "replay: %s by rank %d of communicator %d (size %d)",
                         temu_coll_op_name(rc->op), me, comm, c->n);
    }
    int rooted = rc->op == TEMU_COLL_BCAST || rc->op == TEMU_COLL_REDUCE ||
                 rc->op == TEMU_COLL_GATHER || rc->op == TEMU_COLL_GATHERV ||
                 rc->op == TEMU_COLL_SCATTER || rc->op == TEMU_COLL_SCATTERV;
    if (rooted && (rc->root < 0 || rc->root >= c->n)) {
        return temu_fail(err, TEMU_ERANGE, "replay: %s with root %d on communicator %d (size %d)",
                         temu_coll_op_name(rc->op), rc->root, comm, c->n);
    }
    return coll_lists_check(c, comm, me, rc, err);
}

/* A collective on the class routes to count when its members are all in
 * (temu_vt_coll_at_end): a copy of the member nodes, so it outlives the
 * replay (a timed run may free the replay before it runs), and its trees
 * made when it is counted. */
typedef struct classroute_later {
    int64_t root;
    temu_coll_op op;
    uint64_t bytes;
    temu_kind kind;
    int32_t nnodes;
    int64_t nodes[];
} classroute_later;

static int classroute_count(void *ctx, temu_session *s)
{
    classroute_later *x = ctx;
    tmpi_trees t;
    tmpi_trees_init(&t);
    int rc = tmpi_classroute_coll(s, &t, x->nodes, x->nnodes, x->root, x->op, x->bytes, x->kind);
    tmpi_trees_free(&t);
    return rc;
}

static temu_status later_classroute(temu_replay *r, int32_t comm, const rcomm *c, int64_t root,
                                    temu_coll_op op, uint64_t bytes, temu_kind kind,
                                    temu_error *err)
{
    size_t size = sizeof(classroute_later) + (size_t)c->nnodes * sizeof(int64_t);
    classroute_later *x = malloc(size);
    if (x == NULL) {
        return temu_fail(err, TEMU_ENOMEM, "replay: out of memory: %zu bytes for a class route",
                         size);
    }
    *x = (classroute_later){root, op, bytes, kind, c->nnodes};
    memcpy(x->nodes, c->nodes, (size_t)c->nnodes * sizeof(int64_t));
    return temu_vt_coll_at_end(r->vt, comm, 0, classroute_count, free, x, err);
}

temu_status temu_replay_collective(temu_replay *r, int32_t comm, int32_t me,
                                   const temu_replay_coll *rc, temu_error *err)
{
    rcomm *c = comm_get(r, comm);
    tmpi_coll k;
    tmpi_coll_env env;
    if (c == NULL) {
        return temu_fail(err, TEMU_ERANGE, "replay: collective on communicator %d, not defined",
                         comm);
    }
    temu_status st = coll_check(c, comm, me, rc, err);
    if (st != TEMU_OK) {
        return st;
    }
    r->st.colls++;
    if (c->n <= 1) {
        return TEMU_OK;
    }
    memset(&k, 0, sizeof k);
    memset(&env, 0, sizeof env);
    k.op = (temu_coll_op)rc->op;
    k.n = c->n;
    k.root = rc->root;
    k.commutative = rc->commutative;
    k.bytes = rc->bytes;
    k.elem = rc->elem;
    k.count = rc->count != 0 ? rc->count : rc->elem > 0 ? rc->bytes / rc->elem : rc->bytes;
    k.blocks = rc->blocks;
    k.offs = rc->offs;
    k.nnb = rc->nnb;
    k.nb = rc->nb;
    env.collnet = (int32_t)temu_machine_family(r->m)->info.collnet;
    env.bruck_alltoall = temu_machine_family(r->m)->info.bruck_alltoall;
    env.blocking = rc->blocking;
    env.spans_world = c->spans_world;
    env.hw_op = rc->hw_op;
    if (env.collnet == TEMU_COLLNET_CLASS_ROUTES && !c->spans_world && rc->blocking &&
        (k.op == TEMU_COLL_BARRIER || k.op == TEMU_COLL_BCAST || k.op == TEMU_COLL_REDUCE ||
         k.op == TEMU_COLL_ALLREDUCE)) {
        if (!comm_nodes(r, c)) {
            return temu_fail(err, TEMU_ENOMEM,
                             "replay: out of memory: %zu bytes for communicator %d's nodes",
                             (size_t)c->n * sizeof *c->nodes, comm);
        }
        env.box = c->box;
    }
    k.algo = tmpi_coll_choose(&env, &k);
    /* off the torus (class routes, BG/P's collective network): the
     * members only wait for each other */
    st = r->mode->coll_enter(r->vt, comm, c->n, me, world_of(c, me),
                             k.algo == TMPI_ALGO_CLASSROUTE || k.algo == TMPI_ALGO_COLLNET, err);
    if (st != TEMU_OK) {
        return st;
    }
    if (k.algo == TMPI_ALGO_CLASSROUTE) {
        if (me != 0) {
            return TEMU_OK; /* communicator rank 0 injects it whole */
        }
        temu_slot slot;
        int32_t root_rank = k.op == TEMU_COLL_BCAST || k.op == TEMU_COLL_REDUCE ? k.root : 0;
        temu_kind kind = c->spans_world ? TEMU_KIND_COLL_WORLD : TEMU_KIND_COLL_SUB;
        uint64_t bytes = k.op == TEMU_COLL_BARRIER ? 0 : k.bytes;
        if (!comm_nodes(r, c) ||
            temu_session_rank_slot(r->s, world_of(c, root_rank), &slot, err) != TEMU_OK) {
            return temu_fail(err, TEMU_ENOMEM, "replay: out of memory (class route)");
        }
        r->st.messages++;
        if (r->vt != NULL) { /* counted in virtual time, when every member is in */
            return later_classroute(r, comm, c, slot.node, k.op, bytes, kind, err);
        }
        if (tmpi_classroute_coll(r->s, &c->trees, c->nodes, c->nnodes, slot.node, k.op, bytes,
                                 kind) != 0) {
            return temu_fail(err, TEMU_ENOMEM, "replay: out of memory (class route)");
        }
        return TEMU_OK;
    }
    if (k.algo == TMPI_ALGO_COLLNET) {
        return TEMU_OK; /* BG/P collective network: no torus traffic */
    }
    emit_ctx e = {r, c, rc, comm, me, world_of(c, me), TEMU_OK, err};
    tmpi_coll_sends(&k, me, emit, &e);
    return e.st;
}

void temu_replay_get_stats(const temu_replay *r, temu_replay_stats *st)
{
    *st = r->st;
    st->unmatched_sends = temu_match_pending(r->match, TEMU_MATCH_SEND);
    st->unmatched_recvs = temu_match_pending(r->match, TEMU_MATCH_RECV);
}

temu_status temu_replay_finish(temu_replay *r, temu_error *err)
{
    temu_match_key k;
    int side;
    uint64_t n;
    if (!temu_match_first_waiting(r->match, &k, &side, &n)) {
        return TEMU_OK;
    }
    return temu_fail(err, TEMU_EINVAL,
                     "replay: %llu sends and %llu receives left unmatched, e.g. %llu %s from rank "
                     "%d to rank %d (communicator %d, tag %d)",
                     (unsigned long long)temu_match_pending(r->match, TEMU_MATCH_SEND),
                     (unsigned long long)temu_match_pending(r->match, TEMU_MATCH_RECV),
                     (unsigned long long)n, side == TEMU_MATCH_SEND ? "send(s)" : "receive(s)",
                     k.src, k.dst, k.comm, k.tag);
}
