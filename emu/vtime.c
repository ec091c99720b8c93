/*
 * vtime.c - ranks in virtual time over the timing model
 * (torusemu_vtime.h; doc/replay.md, "Virtual time").
 *
 * Recording builds one operation list per rank and matches receives to
 * sends (match.c, MPI's non-overtaking order), all before the run or,
 * from sources (temu_vt_set_sources; one per job of a mix, on its own
 * ranks), a round at a time when one of a source's ranks has run out of
 * operations; what its ranks are done with is then released
 * (release_rounds: a message once it has arrived and its sender and
 * receiver are past it, in any order; collective instances with the
 * rounds every rank is past), their ids never reused.  Each source has its
 * own window of ids (vwin), source k's all below source k + 1's, the
 * order recording them whole one after the other gives.  temu_vt_run then executes
 * the lists as a conservative discrete-event simulation on top of the
 * timing model's own, which it reaches only through the model level's
 * ops table (emu/model.h; today the packet model, emu/packet/): the rank
 * heap holds runnable ranks by their clock, the model is stepped to its
 * next event whenever that comes first (ties: the network first, then
 * the lower rank), and a rank that must wait leaves the heap until a
 * delivery wakes it.  The rules of each operation (eager limit,
 * injection, gaps) are in vtime_rules.c.
 *
 * A message's counters go into the store as its packets cross (crossing.c,
 * told of every crossing by the model's hop function): a series snapshot
 * at time T holds what crossed by T.  A train of several packets is told
 * once; with snapshots its packets that start after the next snapshot are
 * held back and counted at the snapshot that follows their start.
 */
#define TEMU_BUILDING_LIBRARY 1
#include "bigmem.h"
#include "crossing.h"
#include "emu_internal.h"
#include "match.h"
#include "model.h"
#include "torusemu_vtime.h"
#include "vtime_rules.h"

#include <stdlib.h>
#include <string.h>

enum {
    OP_COMPUTE, /* x = picoseconds                                */
    OP_SEND,    /* blocking send of message a                     */
    OP_START,   /* non-blocking send or one-sided op a, request x */
    OP_IRECV,   /* non-blocking receive a (a receive slot), req x */
    OP_RECV,    /* blocking receive a (a receive slot)            */
    OP_WAIT,    /* request x                                      */
    OP_WAITALL, /* x = 1: only what the rank did not name (auto)  */
    OP_COLL,    /* instance a, member x                           */
    OP_MARK
};

/* Set on the type of a rank's last operation of a source's round
 * (temu_vt_set_source): executing it completes the round for the rank. */
#define OP_ROUND_END 0x10000
#define OP_TYPE(op) ((op)->type & ~OP_ROUND_END)

typedef struct vop {
    int32_t type;
    int32_t a;
    int64_t x;
} vop;

/* vmsg.rrnd of a message without a receive: one-sided (only its origin
 * reads it) or a collective's (its instance's members read it) */
#define RRND_NONE (-3)
#define RRND_COLL (-2)

/* A message on the network (point-to-point, one-sided or a collective's).
 * 104 bytes, as many as before rnd and rrnd came (kind became a byte):
 * seed 003's all-to-all on Mira holds 11.8 M of them at once. */
typedef struct vmsg {
    int32_t src, dst; /* world ranks */
    uint64_t bytes;
    uint64_t payload; /* the volume and timing models' (compression, L2) */
    int32_t round;    /* a collective's round */
    /* the source round that recorded it (0 without sources); -1 once
     * released (release_msgs): its place in its window is a hole */
    int32_t rnd;
    /* a collective member's lists; a point-to-point message's next_in:
     * its receive slot once matched (released with it) */
    int32_t next_in, next_out;
    int64_t local_t;          /* eager: when its packets have left the node */
    int64_t cpu_t;            /* when the sender's o_s is over (MPI costs)    */
    int64_t shm_t;            /* on-node: when shared memory delivers it; -1  */
    int64_t arrive_t, done_t; /* last packet of the message / of its replies */
    uint64_t left;            /* packets of the direction in flight */
    /* point-to-point: the source round by which its receive was recorded
     * (the later of the receive's and the send's), -1 until matched;
     * RRND_NONE, RRND_COLL: no receive */
    int32_t rrnd;
    int8_t kind, started, eager, inject; /* inject: count it in the store as it crosses */
    temu_ledger *ledger;                 /* its node counters still to count (crossing.c) */
} vmsg;

/* What a non-blocking operation waits for. */
enum { PEND_SEND, PEND_RECV };
typedef struct pend {
    int32_t type, id;
    uint64_t req; /* 0: the rank did not name it (completed by a wait-all) */
} pend;

typedef struct vrank {
    vop *ops; /* operations op_base + 0 .. op_base + nops - 1 (the older are done) */
    int32_t nops, capops;
    int32_t pc;
    int64_t op_base;
    /* the source's rounds holding operations of it not all executed yet,
     * oldest first (queue rq_head .. rq_n - 1): the rank is past every
     * round before the first of them, or past all recorded if none (a
     * round may give a rank no operation: a chunk of a trace) */
    int32_t *rq;
    int32_t rq_head, rq_n, rq_cap;
    int32_t win; /* the window of its source (temu_vt_set_sources), -1: none */
    int32_t node;
    int64_t clock, compute;
    int64_t send_free; /* the gap g after its last send's start: the next may start */
    int queued, blocked, finished;
    int retired; /* its source gives it no more operations (temu_vt_rank_retire) */
    uint64_t done_ops;
    pend *pend;
    int32_t npend, cappend;
    int64_t *marks;
    int32_t nmarks, capmarks;
    int64_t last_end_ns; /* trace: end of the previous operation */
    struct post {
        uint64_t req;
        int32_t slot;
    } * posts; /* receives posted whose match comes at completion */
    int32_t nposts, capposts;
} vrank;

/* One collective call of every member of a communicator. */
typedef struct vinst {
    int32_t n, sync, entered;
    /* spans: its communicator has more members than the source recording
     * it has ranks (GPCNeT's barrier of canaries and congestors): the other
     * members come from other sources' rounds; left: members that have
     * completed it */
    int32_t spans, left;
    int32_t callers, comm, call; /* recorded: members that call it; where */
    int64_t last_entry;
    int32_t *world;   /* member -> world rank                  */
    int32_t *in_head; /* member -> first message it receives   */
    int32_t *out_head, *out_tail;
    int32_t *cursor; /* member -> next message to send, -1 none */
    int64_t *enter_t;
    /* member -> the first of its receives not yet arrived and of its sends
     * not yet done (-1: all), and the latest time of those before: a member
     * woken by each arrival looks at each of its messages once in all */
    int32_t *scan_in, *scan_out;
    int64_t *seen_t;
    /* done once every member has entered (temu_vt_coll_at_end) */
    temu_vt_coll_fn at_end;
    void (*at_end_free)(void *ctx);
    void *at_end_ctx;
} vinst;

typedef struct vcomm {
    int32_t n;
    int32_t *calls; /* member -> collectives called so far */
    int32_t *cur;   /* member -> its current instance       */
    int32_t *inst;  /* call number -> instance              */
    int32_t ninst, capinst;
} vcomm;

typedef struct rank_ev {
    int64_t t;
    int32_t rank;
} rank_ev;

/* A crossing not over by the next snapshot: what follows `after` is
 * counted at the snapshots that follow. */
typedef struct held_hop {
    temu_tm_hop h;
    int64_t after;
} held_hop;

/* A window of ids: messages, receive slots and collective instances, each
 * array holding ids base .. base + n - 1, the older ones released
 * (release_rounds; messages also out of order: holes in msg[], and the
 * ones still held below msg_base aside); and the source that records
 * into it, if any.  Window w's ids start at
 * w << win_shift: with several sources, each source's ids all come before
 * the next one's, as when they are recorded whole one after the other. */
typedef struct vwin {
    vmsg *msg;
    int32_t msg_base, nmsg, capmsg;
    int32_t ndead; /* released messages still in msg[] (holes: vmsg.rnd -1) */
    /* messages below msg_base still held (stragglers: a message in flight
     * or not yet sent while later ones are done), ascending ids; nside_dead
     * of them released since (holes, dropped once they are half) */
    struct side_msg {
        int32_t id;
        vmsg m;
    } * side;
    int32_t nside, capside, nside_dead;
    /* messages done (packets and replies arrived) not yet released: those
     * release_msgs looks at */
    int32_t *done_ids;
    int32_t ndone_ids, capdone_ids;
    int32_t *slot_msg; /* receive slot -> matched message, -1; SLOT_GONE */
    int32_t slot_base, nslot, capslot;
    int32_t nslot_dead; /* released slots still in slot_msg[] */
    /* slots below slot_base still held, as the messages' stragglers */
    struct side_slot {
        int32_t id, msg;
    } * sside;
    int32_t nsside, capsside, nsside_dead;
    vinst *inst;
    int32_t inst_base, ninst, capinst;
    /* generation per round as ranks reach it (temu_vt_set_source) */
    temu_vt_source_fn source;
    void *source_ctx;
    int32_t *src_rank, src_n; /* the ranks it gives operations to */
    int source_more;          /* 0: it said it has no more rounds */
    int32_t nrounds;          /* rounds recorded */
    /* round round_base + i -> the first collective instance it recorded,
     * of the rounds from the oldest some rank is not past (round_base) */
    int32_t *round_inst;
    int32_t round_base, nround_inst, capround_inst;
    int32_t *nops_before; /* rank -> operations before the round being generated */
} vwin;

struct temu_vt {
    temu_session *s;
    const temu_machine *m;
    temu_tm_config tc;
    const temu_model_ops *net; /* the model level the messages cross (emu/model.h) */
    void *model;
    int32_t nranks;
    vrank *rk;
    /* messages, receive slots and collective instances by id, in windows
     * (one without sources or with one; one per source with several) */
    vwin *win;
    int32_t nwin;
    int32_t cur;                            /* the window recording goes to */
    int win_shift;                          /* id >> win_shift: its window */
    int32_t win_ids;                        /* ids a window has room for (INT32_MAX: one window) */
    int full;                               /* a window ran out of ids */
    int64_t nmsg_all, nslot_all, ninst_all; /* held in all windows */
    /* messages held (in any window) whose vmsg.inject is 0: while there are none, a hop
     * of a held message needs no look at its message (on_hop; on Mira's
     * 11.8 M messages the look was a cache miss a hop, 5 % of the CPU
     * of seed 003's all-to-all, doc/performance.md) */
    int32_t nmsg_quiet;
    int64_t colls_open; /* collective instances some member has not called yet */
    /* collective instances spanning several sources (vinst.spans) that some
     * member has not completed yet: no window releases a round meanwhile */
    int64_t spans_open;
    temu_match *match;
    temu_vt_held held_stats;
    uint64_t ops_held; /* rank operations not yet released */
    vcomm *comm;
    int32_t ncomm;
    int64_t *nic_free; /* per node */
    int post_all;
    double scale;
    uint64_t next_auto; /* requests for post-all operations */
    /* running */
    rank_ev *heap;
    int32_t nheap;
    int32_t *done_list; /* message tag of each direction completed by a run step */
    int32_t ndone, capdone;
    int32_t *pin; /* release_msgs: messages still named (pins_collect) */
    int32_t npin, cappin;
    int oom;
    uint64_t net_msgs;
    int64_t tick_ps, next_tick;
    temu_vt_tick_fn tick;
    void *tick_ctx;
    held_hop *held; /* crossings of trains still to count (snapshots only) */
    int32_t nheld, capheld;
    int64_t nw_ps; /* virtual time the store's network cycles have counted to */
    /* progress (temu_vt_set_watch) */
    temu_vt_watch watch;
    uint64_t watch_left; /* steps to the next call; counts down */
    uint64_t steps, ops_recorded, ops_done;
    uint64_t pk_sent[2], pk_delivered; /* packets: [direction] sent, delivered */
    /* payload bytes of the messages recorded, started, arrived (their
     * replies sent): the packets still to come are extrapolated from them */
    uint64_t pay_recorded, pay_started, pay_arrived;
};

/* ------------------------------------------------------------ growth */

/* Make room for one more element in *arr of *cap (element size sz). */
static int grow(void **arr, int32_t n, int32_t *cap, size_t sz)
{
    if (n < *cap) {
        return 0;
    }
    int32_t ncap = *cap > 0 ? 2 * *cap : 8;
    void *g = realloc(*arr, (size_t)ncap * sz);
    if (g == NULL) {
        return -1;
    }
    *arr = g;
    *cap = ncap;
    temu_mem_huge(g, (size_t)ncap * sz); /* the messages: read at random (bigmem.h) */
    return 0;
}

#define GROW(arr, n, cap) grow((void **)&(arr), (n), &(cap), sizeof *(arr))

/* The window of an id; message, receive slot and collective instance by
 * id (in their windows). */
#define WIN(v, id) (&(v)->win[(uint32_t)(id) >> (v)->win_shift])
#define MSG(v, id) (*msg_at(v, id))
#define SLOT(v, id) (*slot_at(v, id))
#define INST(v, id) (WIN(v, id)->inst[(id)-WIN(v, id)->inst_base])

/* In an array of n elements of size sz, each starting with its int32_t
 * id, ascending: the index of the first with an id >= id. */
static int32_t by_id(const void *arr, int32_t n, size_t sz, int32_t id)
{
    int32_t lo = 0, hi = n;
    while (lo < hi) {
        int32_t mid = lo + (hi - lo) / 2;
        int32_t at;
        memcpy(&at, (const char *)arr + (size_t)mid * sz, sizeof at);
        if (at < id) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    return lo;
}

/* Straggler id of window w (below its msg_base), NULL if it has none. */
static vmsg *side_find(const vwin *w, int32_t id)
{
    int32_t i = by_id(w->side, w->nside, sizeof *w->side, id);
    return i < w->nside && w->side[i].id == id ? &w->side[i].m : NULL;
}

/* Message id (held): in its window's array, or a straggler below it. */
static inline vmsg *msg_at(const temu_vt *v, int64_t id)
{
    const vwin *w = WIN(v, id);
    int64_t i = id - w->msg_base;
    return i >= 0 ? &w->msg[i] : side_find(w, (int32_t)id);
}

/* A released receive slot's message (slot_msg: -1 is unmatched). */
#define SLOT_GONE (-2)

/* Straggler receive slot id of window w: its message, NULL if none. */
static int32_t *sside_find(const vwin *w, int32_t id)
{
    int32_t i = by_id(w->sside, w->nsside, sizeof *w->sside, id);
    return i < w->nsside && w->sside[i].id == id ? &w->sside[i].msg : NULL;
}

/* Receive slot id's message (the slot held). */
static inline int32_t *slot_at(const temu_vt *v, int64_t id)
{
    const vwin *w = WIN(v, id);
    int64_t i = id - w->slot_base;
    return i >= 0 ? &w->slot_msg[i] : sside_find(w, (int32_t)id);
}

/* Is receive slot id held (recorded, not released)? */
static int slot_held(const temu_vt *v, int32_t id)
{
    const vwin *w = WIN(v, id);
    if (id >= w->slot_base + w->nslot) {
        return 0;
    }
    const int32_t *m = id >= w->slot_base ? &w->slot_msg[id - w->slot_base] : sside_find(w, id);
    return m != NULL && *m != SLOT_GONE;
}

static temu_status oom(temu_error *err)
{
    return temu_fail(err, TEMU_ENOMEM, "virtual time: out of memory");
}

/* No new message, slot or instance: out of memory, or out of ids. */
static temu_status no_id(const temu_vt *v, temu_error *err)
{
    if (v->full) {
        return temu_fail(err, TEMU_ERANGE,
                         "virtual time: a source recorded more than the %d messages, receives "
                         "or collective calls its window of ids holds",
                         (int)v->win_ids);
    }
    return oom(err);
}

/* Room in the current window for one more id after base + n. */
static int win_room(temu_vt *v, int32_t base, int32_t n)
{
    int64_t used = (int64_t)base + n - ((int64_t)v->cur << v->win_shift);
    if (v->nwin > 1 && used >= v->win_ids) {
        v->full = 1;
        return 0;
    }
    return 1;
}

/* ------------------------------------------------------------ create */

temu_status temu_vt_create(temu_session *s, const temu_tm_config *tc, temu_vt **out,
                           temu_error *err)
{
    temu_vt *v = calloc(1, sizeof *v);
    temu_status st = TEMU_OK;
    *out = NULL;
    if (v == NULL) {
        return oom(err);
    }
    v->s = s;
    v->m = temu_session_machine(s);
    v->nranks = temu_session_nranks(s);
    v->scale = 1.0;
    v->watch_left = UINT64_MAX; /* no watch */
    if (v->nranks <= 0) {
        st = temu_fail(err, TEMU_EINVAL, "virtual time: the session has no rank mapping");
    } else if (tc != NULL) {
        v->tc = *tc;
    } else {
        st = temu_tm_config_default(v->m, &v->tc, err);
    }
    if (st == TEMU_OK) {
        v->net = temu_model_of(v->tc.level, err); /* the level the configuration names */
        if (v->net != NULL && v->tc.threads > 0 && v->net->step == NULL) {
            v->net = NULL;
            st = temu_fail(err, TEMU_EINVAL,
                           "virtual time: threads run the packet level only, not the %s level",
                           temu_tm_level_name(v->tc.level));
        }
        st = v->net != NULL ? v->net->create(v->m, &v->tc, &v->model, err) : TEMU_EINVAL;
    }
    if (st == TEMU_OK) {
        v->win = calloc(1, sizeof *v->win);
        v->nwin = 1;
        v->win_shift = 31; /* every id (0 .. INT32_MAX) in window 0 */
        v->win_ids = INT32_MAX;
        v->rk = calloc((size_t)v->nranks, sizeof *v->rk);
        v->nic_free = calloc((size_t)v->m->nnodes, sizeof *v->nic_free);
        v->heap = malloc((size_t)v->nranks * sizeof *v->heap);
        v->match = temu_match_new();
        if (v->win == NULL || v->rk == NULL || v->nic_free == NULL || v->heap == NULL ||
            v->match == NULL) {
            st = oom(err);
        }
    }
    for (int32_t r = 0; st == TEMU_OK && r < v->nranks; r++) {
        temu_slot slot;
        st = temu_session_rank_slot(s, r, &slot, err);
        v->rk[r].node = slot.node;
        v->rk[r].last_end_ns = -1;
        v->rk[r].win = -1;
    }
    if (st != TEMU_OK) {
        temu_vt_free(v);
        return st;
    }
    *out = v;
    return TEMU_OK;
}

static void inst_free(vinst *in)
{
    if (in->at_end_free != NULL) {
        in->at_end_free(in->at_end_ctx);
    }
    free(in->world);
    free(in->in_head);
    free(in->out_head);
    free(in->out_tail);
    free(in->cursor);
    free(in->enter_t);
    free(in->scan_in);
    free(in->scan_out);
    free(in->seen_t);
}

void temu_vt_free(temu_vt *v)
{
    if (v == NULL) {
        return;
    }
    for (int32_t r = 0; v->rk != NULL && r < v->nranks; r++) {
        free(v->rk[r].ops);
        free(v->rk[r].pend);
        free(v->rk[r].marks);
        free(v->rk[r].posts);
        free(v->rk[r].rq);
    }
    for (int32_t w = 0; v->win != NULL && w < v->nwin; w++) {
        vwin *x = &v->win[w];
        for (int32_t i = 0; i < x->ninst; i++) {
            inst_free(&x->inst[i]);
        }
        for (int32_t i = 0; i < x->nmsg; i++) {
            temu_ledger_free(x->msg[i].ledger); /* a run that stopped half-way */
        }
        for (int32_t i = 0; i < x->nside; i++) {
            temu_ledger_free(x->side[i].m.ledger);
        }
        free(x->inst);
        free(x->msg);
        free(x->side);
        free(x->done_ids);
        free(x->slot_msg);
        free(x->sside);
        free(x->round_inst);
        free(x->nops_before);
        free(x->src_rank);
    }
    free(v->win);
    for (int32_t i = 0; i < v->ncomm; i++) {
        free(v->comm[i].calls);
        free(v->comm[i].cur);
        free(v->comm[i].inst);
    }
    free(v->comm);
    free(v->rk);
    free(v->nic_free);
    free(v->heap);
    free(v->done_list);
    free(v->pin);
    free(v->held);
    temu_match_free(v->match);
    if (v->net != NULL) {
        v->net->destroy(v->model);
    }
    free(v);
}

void temu_vt_set_post_all(temu_vt *v, int on)
{
    v->post_all = on;
}

temu_status temu_vt_set_compute_scale(temu_vt *v, double scale, temu_error *err)
{
    if (!(scale >= 0) || scale > 1e12) {
        return temu_fail(err, TEMU_EINVAL, "virtual time: compute scale %g (0 or more)", scale);
    }
    v->scale = scale;
    return TEMU_OK;
}

temu_status temu_vt_set_tick(temu_vt *v, int64_t interval_ps, temu_vt_tick_fn fn, void *ctx,
                             temu_error *err)
{
    if (interval_ps <= 0) {
        return temu_fail(err, TEMU_EINVAL, "virtual time: interval %lld ps (positive)",
                         (long long)interval_ps);
    }
    v->tick_ps = interval_ps;
    v->next_tick = interval_ps;
    v->tick = fn;
    v->tick_ctx = ctx;
    return TEMU_OK;
}

void temu_vt_set_watch(temu_vt *v, const temu_vt_watch *w)
{
    memset(&v->watch, 0, sizeof v->watch);
    if (w != NULL && w->every > 0 && w->progress != NULL) {
        v->watch = *w;
    }
    v->watch_left = v->watch.every > 0 ? v->watch.every : UINT64_MAX;
}

/* Packets still to come for the payload bytes of `all` not yet in `seen`,
 * at `packets` per `seen` bytes (a progress estimate). */
static uint64_t extrapolate(uint64_t packets, uint64_t seen, uint64_t all)
{
    if (seen == 0 || all <= seen) {
        return 0;
    }
    return (uint64_t)((long double)packets / (long double)seen * (long double)(all - seen));
}

/* The watch's progress call at virtual time t. */
static void watch_call(temu_vt *v, int64_t t)
{
    temu_tm_totals tot;
    v->net->totals(v->model, &tot);
    temu_vt_progress p = {t,
                          v->steps,
                          tot.events,
                          v->ops_done,
                          v->ops_recorded,
                          v->pk_delivered,
                          v->pk_sent[0] + v->pk_sent[1] +
                              extrapolate(v->pk_sent[0], v->pay_started, v->pay_recorded) +
                              extrapolate(v->pk_sent[1], v->pay_arrived, v->pay_recorded)};
    v->watch_left = v->watch.every;
    v->watch.progress(v->watch.ctx, &p);
}

/* ------------------------------------------------------------ recording */

static temu_status check_rank(const temu_vt *v, int32_t rank, temu_error *err)
{
    if (rank < 0 || rank >= v->nranks) {
        return temu_fail(err, TEMU_ERANGE, "virtual time: rank %d outside 0..%d", rank,
                         v->nranks - 1);
    }
    return TEMU_OK;
}

/* *high = max(*high, now): a high-water mark. */
static void peak(uint64_t *high, uint64_t now)
{
    *high = now > *high ? now : *high;
}

static temu_status add_op(temu_vt *v, int32_t rank, int32_t type, int32_t a, int64_t x,
                          temu_error *err)
{
    vrank *r = &v->rk[rank];
    if (GROW(r->ops, r->nops, r->capops) != 0) {
        return oom(err);
    }
    r->ops[r->nops++] = (vop){type, a, x};
    v->ops_recorded++;
    v->ops_held++;
    peak(&v->held_stats.ops_peak, v->ops_held);
    return TEMU_OK;
}

/* A new message; rrnd: RRND_NONE, RRND_COLL, or -1 (point-to-point). */
static int32_t new_msg(temu_vt *v, int32_t src, int32_t dst, uint64_t bytes, temu_kind kind,
                       int32_t round, uint64_t payload, int inject, int32_t rrnd)
{
    vwin *w = &v->win[v->cur];
    if (!win_room(v, w->msg_base, w->nmsg) || GROW(w->msg, w->nmsg, w->capmsg) != 0) {
        return -1;
    }
    vmsg *g = &w->msg[w->nmsg];
    memset(g, 0, sizeof *g);
    g->src = src;
    g->dst = dst;
    g->bytes = bytes;
    g->kind = (int8_t)kind;
    g->round = round;
    g->rnd = w->nrounds; /* the round being recorded (0 without sources) */
    g->rrnd = rrnd;
    g->next_in = g->next_out = -1;
    g->local_t = g->arrive_t = g->done_t = g->shm_t = -1;
    g->eager = (int8_t)temu_vt_eager(v->m, kind, bytes);
    g->payload = payload;
    g->inject = (int8_t)(inject != 0);
    v->nmsg_quiet += !g->inject;
    v->pay_recorded += bytes;
    v->held_stats.messages++;
    peak(&v->held_stats.messages_peak, (uint64_t)++v->nmsg_all);
    return w->msg_base + w->nmsg++;
}

temu_status temu_vt_compute(temu_vt *v, int32_t rank, int64_t ps, temu_error *err)
{
    temu_status st = check_rank(v, rank, err);
    if (st == TEMU_OK && ps < 0) {
        st = temu_fail(err, TEMU_EINVAL, "virtual time: rank %d computes %lld ps", rank,
                       (long long)ps);
    }
    int64_t scaled = temu_vt_scale_ps(ps, v->scale);
    return st == TEMU_OK && scaled > 0 ? add_op(v, rank, OP_COMPUTE, 0, scaled, err) : st;
}

temu_status temu_vt_trace_time(temu_vt *v, int32_t rank, int64_t begin_ns, int64_t end_ns,
                               temu_error *err)
{
    temu_status st = check_rank(v, rank, err);
    if (st != TEMU_OK) {
        return st;
    }
    vrank *r = &v->rk[rank];
    int64_t gap = temu_vt_gap_ps(r->last_end_ns, begin_ns, v->scale);
    if (gap > 0) {
        st = add_op(v, rank, OP_COMPUTE, 0, gap, err);
    }
    r->last_end_ns = end_ns >= 0 ? end_ns : begin_ns >= 0 ? begin_ns : r->last_end_ns;
    return st;
}

static temu_status check_p2p(const temu_vt *v, const temu_vt_p2p *p, temu_error *err)
{
    temu_status st = check_rank(v, p->wsrc, err);
    return st == TEMU_OK ? check_rank(v, p->wdst, err) : st;
}

/* Post one side of a match; the message or slot of the other side when it
 * was waiting, else -1.  -2: out of memory. */
static int64_t post(temu_vt *v, const temu_vt_p2p *p, int side, int32_t id)
{
    temu_match_key k = {p->comm, p->src, p->dst, p->tag};
    uint64_t other = 0;
    int got = temu_match_post(v->match, &k, side, (uint64_t)id, &other);
    return got < 0 ? -2 : got == 1 ? (int64_t)other : -1;
}

static int msg_held(const temu_vt *v, uint64_t id);

/* A receive matched to message id, or a send to receive slot id (which),
 * found it released: a source's round let it go while its partner was
 * still to be recorded.  Never expected (release_rounds keeps both
 * sides of a match until it is made); said rather than read freed. */
static temu_status released(int32_t id, const char *which, temu_error *err)
{
    return temu_fail(err, TEMU_EINVAL,
                     "virtual time: %s %d was released before its partner was recorded", which, id);
}

temu_status temu_vt_send(temu_vt *v, const temu_vt_p2p *p, temu_error *err)
{
    temu_status st = check_p2p(v, p, err);
    if (st != TEMU_OK) {
        return st;
    }
    int32_t id =
        new_msg(v, p->wsrc, p->wdst, p->bytes, TEMU_KIND_P2P, 0, p->payload, p->inject, -1);
    int64_t slot = id < 0 ? -2 : post(v, p, TEMU_MATCH_SEND, id);
    if (slot == -2) {
        return no_id(v, err);
    }
    if (slot >= 0) {
        if (!slot_held(v, (int32_t)slot)) {
            return released((int32_t)slot, "receive slot", err);
        }
        SLOT(v, slot) = id;
        MSG(v, id).next_in = (int32_t)slot;
        MSG(v, id).rrnd = v->win[v->cur].nrounds; /* its receive was recorded by now */
    }
    if (p->req == 0 && !v->post_all) {
        return add_op(v, p->wsrc, OP_SEND, id, 0, err);
    }
    return add_op(v, p->wsrc, OP_START, id, (int64_t)p->req, err);
}

static int32_t new_slot(temu_vt *v)
{
    vwin *w = &v->win[v->cur];
    if (!win_room(v, w->slot_base, w->nslot) || GROW(w->slot_msg, w->nslot, w->capslot) != 0) {
        return -1;
    }
    w->slot_msg[w->nslot] = -1;
    peak(&v->held_stats.slots_peak, (uint64_t)++v->nslot_all);
    return w->slot_base + w->nslot++;
}

temu_status temu_vt_recv_post(temu_vt *v, int32_t rank, uint64_t req, temu_error *err)
{
    temu_status st = check_rank(v, rank, err);
    if (st != TEMU_OK) {
        return st;
    }
    vrank *r = &v->rk[rank];
    int32_t slot = new_slot(v);
    if (slot < 0 || GROW(r->posts, r->nposts, r->capposts) != 0) {
        return no_id(v, err);
    }
    r->posts[r->nposts++] = (struct post){req, slot};
    return add_op(v, rank, OP_IRECV, slot, (int64_t)req, err);
}

temu_status temu_vt_recv(temu_vt *v, const temu_vt_p2p *p, temu_error *err)
{
    temu_status st = check_p2p(v, p, err);
    if (st != TEMU_OK) {
        return st;
    }
    vrank *r = &v->rk[p->wdst];
    int32_t slot = -1;
    /* a non-blocking receive posted earlier: its match is known now */
    for (int32_t i = 0; p->req != 0 && i < r->nposts; i++) {
        if (r->posts[i].req == p->req) {
            slot = r->posts[i].slot;
            r->posts[i] = r->posts[--r->nposts];
            break;
        }
    }
    int posted = slot >= 0;
    if (!posted && (slot = new_slot(v)) < 0) {
        return no_id(v, err);
    }
    int64_t id = post(v, p, TEMU_MATCH_RECV, slot);
    if (id == -2) {
        return oom(err);
    }
    if (id >= 0) {
        if (!msg_held(v, (uint64_t)id)) {
            return released((int32_t)id, "message", err);
        }
        SLOT(v, slot) = (int32_t)id;
        MSG(v, id).next_in = slot;
        MSG(v, id).rrnd = v->win[v->cur].nrounds;
    }
    if (posted) {
        return add_op(v, p->wdst, OP_WAIT, 0, (int64_t)p->req, err);
    }
    if (p->req == 0 && !v->post_all) {
        return add_op(v, p->wdst, OP_RECV, slot, 0, err);
    }
    st = add_op(v, p->wdst, OP_IRECV, slot, (int64_t)p->req, err);
    return st == TEMU_OK && p->req != 0 ? add_op(v, p->wdst, OP_WAIT, 0, (int64_t)p->req, err) : st;
}

temu_status temu_vt_wait(temu_vt *v, int32_t rank, uint64_t req, temu_error *err)
{
    temu_status st = check_rank(v, rank, err);
    if (st != TEMU_OK) {
        return st;
    }
    return req == 0 ? add_op(v, rank, OP_WAITALL, 0, 0, err)
                    : add_op(v, rank, OP_WAIT, 0, (int64_t)req, err);
}

temu_status temu_vt_rma(temu_vt *v, int32_t origin, int32_t target, uint64_t bytes, temu_kind kind,
                        uint64_t payload, int inject, temu_error *err)
{
    temu_status st = check_rank(v, origin, err);
    if (st == TEMU_OK) {
        st = check_rank(v, target, err);
    }
    if (st == TEMU_OK && kind != TEMU_KIND_PUT && kind != TEMU_KIND_GET) {
        st = temu_fail(err, TEMU_EINVAL, "virtual time: one-sided operation of kind %s",
                       temu_kind_name(kind));
    }
    if (st != TEMU_OK) {
        return st;
    }
    int32_t id = new_msg(v, origin, target, bytes, kind, 0, payload, inject, RRND_NONE);
    return id < 0 ? no_id(v, err) : add_op(v, origin, OP_START, id, 0, err);
}

temu_status temu_vt_mark(temu_vt *v, int32_t rank, temu_error *err)
{
    temu_status st = check_rank(v, rank, err);
    return st == TEMU_OK ? add_op(v, rank, OP_MARK, 0, 0, err) : st;
}

/* Communicator id's table, created with n members on first use. */
static temu_status comm_of(temu_vt *v, int32_t id, int32_t n, vcomm **out, temu_error *err)
{
    *out = NULL;
    if (id < 0 || id >= (1 << 24)) {
        return temu_fail(err, TEMU_ERANGE, "virtual time: communicator id %d", id);
    }
    if (id >= v->ncomm) {
        int32_t ncap = v->ncomm > 0 ? v->ncomm : 4;
        while (ncap <= id) {
            ncap *= 2;
        }
        vcomm *g = realloc(v->comm, (size_t)ncap * sizeof *g);
        if (g == NULL) {
            return oom(err);
        }
        memset(g + v->ncomm, 0, (size_t)(ncap - v->ncomm) * sizeof *g);
        v->comm = g;
        v->ncomm = ncap;
    }
    vcomm *c = &v->comm[id];
    if (c->n == 0) {
        c->calls = calloc((size_t)n, sizeof *c->calls);
        c->cur = calloc((size_t)n, sizeof *c->cur);
        if (c->calls == NULL || c->cur == NULL) {
            free(c->calls);
            free(c->cur);
            c->calls = c->cur = NULL;
            return oom(err);
        }
        c->n = n;
    } else if (c->n != n) {
        return temu_fail(err, TEMU_EINVAL, "virtual time: communicator %d has %d members, not %d",
                         id, c->n, n);
    }
    *out = c;
    return TEMU_OK;
}

static int32_t new_inst(temu_vt *v, int32_t n, int sync)
{
    vwin *w = &v->win[v->cur];
    if (!win_room(v, w->inst_base, w->ninst) || GROW(w->inst, w->ninst, w->capinst) != 0) {
        return -1;
    }
    vinst *in = &w->inst[w->ninst];
    memset(in, 0, sizeof *in);
    in->n = n;
    in->sync = sync;
    in->world = malloc((size_t)n * sizeof *in->world);
    in->in_head = malloc((size_t)n * sizeof *in->in_head);
    in->out_head = malloc((size_t)n * sizeof *in->out_head);
    in->out_tail = malloc((size_t)n * sizeof *in->out_tail);
    in->cursor = malloc((size_t)n * sizeof *in->cursor);
    in->enter_t = malloc((size_t)n * sizeof *in->enter_t);
    in->scan_in = malloc((size_t)n * sizeof *in->scan_in);
    in->scan_out = malloc((size_t)n * sizeof *in->scan_out);
    in->seen_t = malloc((size_t)n * sizeof *in->seen_t);
    w->ninst++; /* freed with the others even when incomplete */
    v->colls_open++;
    peak(&v->held_stats.colls_peak, (uint64_t)++v->ninst_all);
    if (in->world == NULL || in->in_head == NULL || in->out_head == NULL || in->out_tail == NULL ||
        in->cursor == NULL || in->enter_t == NULL || in->scan_in == NULL || in->scan_out == NULL ||
        in->seen_t == NULL) {
        return -1;
    }
    for (int32_t i = 0; i < n; i++) {
        in->world[i] = -1;
        in->in_head[i] = in->out_head[i] = in->out_tail[i] = in->cursor[i] = -1;
        in->enter_t[i] = -1;
    }
    return w->inst_base + w->ninst - 1;
}

temu_status temu_vt_coll_enter(temu_vt *v, int32_t comm, int32_t n, int32_t me, int32_t rank,
                               int sync_only, temu_error *err)
{
    temu_status st = check_rank(v, rank, err);
    if (st == TEMU_OK && (n <= 0 || me < 0 || me >= n)) {
        st = temu_fail(err, TEMU_ERANGE, "virtual time: member %d of a communicator of %d", me, n);
    }
    vcomm *c = NULL;
    if (st == TEMU_OK) {
        st = comm_of(v, comm, n, &c, err);
    }
    if (st != TEMU_OK) {
        return st;
    }
    int32_t call = c->calls[me]++;
    if (call >= c->ninst) {
        int32_t id = new_inst(v, n, sync_only);
        if (id < 0 || GROW(c->inst, c->ninst, c->capinst) != 0) {
            return no_id(v, err);
        }
        const vwin *w = &v->win[v->cur];
        if (w->source != NULL && n > w->src_n) {
            INST(v, id).spans = 1;
            v->spans_open++;
        }
        c->inst[c->ninst++] = id;
    }
    int32_t id = c->inst[call];
    vinst *in = &INST(v, id);
    if (in->sync != sync_only) {
        return temu_fail(err, TEMU_EINVAL,
                         "virtual time: members of communicator %d disagree on collective %d", comm,
                         call);
    }
    in->world[me] = rank;
    v->colls_open -= ++in->callers == in->n;
    in->comm = comm;
    in->call = call;
    c->cur[me] = id;
    /* one-sided and posted-at-once operations complete at a collective */
    st = add_op(v, rank, OP_WAITALL, 0, 1, err);
    return st == TEMU_OK ? add_op(v, rank, OP_COLL, id, me, err) : st;
}

temu_status temu_vt_coll_at_end(temu_vt *v, int32_t comm, int32_t me, temu_vt_coll_fn fn,
                                void (*release)(void *ctx), void *ctx, temu_error *err)
{
    if (comm < 0 || comm >= v->ncomm || v->comm[comm].n == 0 || me < 0 || me >= v->comm[comm].n ||
        v->comm[comm].calls[me] == 0) {
        if (release != NULL) {
            release(ctx);
        }
        return temu_fail(err, TEMU_EINVAL,
                         "virtual time: member %d of communicator %d is in no collective", me,
                         comm);
    }
    vinst *in = &INST(v, v->comm[comm].cur[me]);
    if (in->at_end_free != NULL) {
        in->at_end_free(in->at_end_ctx);
    }
    in->at_end = fn;
    in->at_end_free = release;
    in->at_end_ctx = ctx;
    return TEMU_OK;
}

temu_status temu_vt_coll_msg(temu_vt *v, int32_t comm, int32_t me, int32_t to, int32_t wto,
                             uint64_t bytes, int32_t round, uint64_t payload, temu_error *err)
{
    return temu_vt_coll_msg_kind(v, comm, me, to, wto, bytes, TEMU_KIND_P2P, round, payload, err);
}

temu_status temu_vt_coll_msg_kind(temu_vt *v, int32_t comm, int32_t me, int32_t to, int32_t wto,
                                  uint64_t bytes, temu_kind kind, int32_t round, uint64_t payload,
                                  temu_error *err)
{
    if (comm < 0 || comm >= v->ncomm || v->comm[comm].n == 0 || me < 0 || me >= v->comm[comm].n ||
        to < 0 || to >= v->comm[comm].n || v->comm[comm].calls[me] == 0) {
        return temu_fail(err, TEMU_EINVAL,
                         "virtual time: collective message from member %d to %d of communicator "
                         "%d outside a collective",
                         me, to, comm);
    }
    temu_status st = check_rank(v, wto, err);
    if (st != TEMU_OK) {
        return st;
    }
    vinst *in = &INST(v, v->comm[comm].cur[me]);
    if (kind != TEMU_KIND_P2P && kind != TEMU_KIND_ALLTOALL) {
        return temu_fail(err, TEMU_EINVAL, "virtual time: collective message of kind %s",
                         temu_kind_name(kind));
    }
    int32_t id = new_msg(v, in->world[me], wto, bytes, kind, round, payload, 1, RRND_COLL);
    if (id < 0) {
        return no_id(v, err);
    }
    in = &INST(v, v->comm[comm].cur[me]);
    if (in->out_tail[me] >= 0 && MSG(v, in->out_tail[me]).round > round) {
        return temu_fail(err, TEMU_EINVAL,
                         "virtual time: member %d of communicator %d sends round %d after round %d",
                         me, comm, round, MSG(v, in->out_tail[me]).round);
    }
    MSG(v, id).next_in = in->in_head[to];
    in->in_head[to] = id;
    if (in->out_tail[me] >= 0) {
        MSG(v, in->out_tail[me]).next_out = id;
    } else {
        in->out_head[me] = id;
    }
    in->out_tail[me] = id;
    return TEMU_OK;
}

/* ------------------------------------------------------------ running */

static void heap_push(temu_vt *v, int64_t t, int32_t rank)
{
    rank_ev e = {t, rank};
    int32_t i = v->nheap++;
    while (i > 0) {
        rank_ev *p = &v->heap[(i - 1) / 2];
        if (p->t < t || (p->t == t && p->rank < rank)) {
            break;
        }
        v->heap[i] = *p;
        i = (i - 1) / 2;
    }
    v->heap[i] = e;
}

static rank_ev heap_pop(temu_vt *v)
{
    rank_ev top = v->heap[0], last = v->heap[--v->nheap];
    int32_t i = 0;
    for (;;) {
        int32_t c = 2 * i + 1;
        if (c >= v->nheap) {
            break;
        }
        if (c + 1 < v->nheap &&
            (v->heap[c + 1].t < v->heap[c].t ||
             (v->heap[c + 1].t == v->heap[c].t && v->heap[c + 1].rank < v->heap[c].rank))) {
            c++;
        }
        if (last.t < v->heap[c].t || (last.t == v->heap[c].t && last.rank < v->heap[c].rank)) {
            break;
        }
        v->heap[i] = v->heap[c];
        i = c;
    }
    if (v->nheap > 0) {
        v->heap[i] = last;
    }
    return top;
}

/* Rank runs (again) at t. */
static void schedule(temu_vt *v, int32_t rank, int64_t t)
{
    vrank *r = &v->rk[rank];
    r->blocked = 0;
    r->queued = 1;
    heap_push(v, t > r->clock ? t : r->clock, rank);
}

/* Something rank may wait for happened at t. */
static void wake(temu_vt *v, int32_t rank, int64_t t)
{
    if (v->rk[rank].blocked) {
        schedule(v, rank, t);
    }
}

/* n packets of direction tag arrived: the direction is done with its
 * last. */
static void units_arrived(temu_vt *v, uint64_t tag, uint64_t n)
{
    vmsg *g = &MSG(v, tag >> 1);
    v->pk_delivered += n;
    g->left = g->left > n ? g->left - n : 0;
    if (g->left == 0) {
        if (GROW(v->done_list, v->ndone, v->capdone) != 0) {
            v->oom = 1;
            return;
        }
        v->done_list[v->ndone++] = (int32_t)tag;
    }
}

static void on_delivery(void *ctx, uint64_t tag, int64_t created, int64_t delivered)
{
    (void)created;
    (void)delivered;
    units_arrived(ctx, tag, 1);
}

/* A level that tells arrivals per flow (model.h, set_done). */
static void on_done(void *ctx, uint64_t tag, uint64_t units, int64_t created, int64_t done)
{
    (void)created;
    (void)done;
    units_arrived(ctx, tag, units);
}

/* Send direction dir of message id at t; *packets: how many. */
static temu_status send_dir(temu_vt *v, int32_t id, int dir, int64_t t, uint64_t *packets,
                            uint64_t *bytes, temu_error *err)
{
    vmsg *g = &MSG(v, id);
    temu_message tm = {v->rk[g->src].node, v->rk[g->dst].node, g->bytes,
                       (const void *)(uintptr_t)g->payload, (temu_kind)g->kind};
    temu_status st = v->net->inject(v->model, t, v->m, &tm, dir, (uint64_t)id * 2 + (uint64_t)dir,
                                    packets, bytes, err);
    g->left = *packets;
    v->pk_sent[dir] += *packets;
    return st;
}

/* ---- MPI software costs: LogGP's o_s, o_r and g and on-node copies, the
 * family's (temu_tm_mpi_costs; doc/virtual-time.md, "MPI software
 * costs"), applied here and nowhere else */

/* A send of message g asked for at t: it starts once the sender is free
 * again (the gap g after its previous send's start, or the end of that
 * send's on-node copy) and leaves o_s later (g->cpu_t, the time returned:
 * its packets enter the network).  Both ranks on one node: g->shm_t, when
 * the shared-memory path (its latency and copy, bytes / GB/s = ns) has
 * delivered it, from the start (the published on-node latency holds the
 * whole call).  A copy through shared memory is done by a process's CPU
 * (Buntinas, Mercier and Gropp, "Design and Evaluation of Nemesis, a
 * Scalable, Low-Latency, Message-Passing Communication Subsystem", CCGrid
 * 2006): one rank's copies follow one another at the copy bandwidth, they
 * do not overlap, so the next send waits for the copy too. */
static int64_t costs_send(temu_vt *v, vmsg *g, int64_t t)
{
    const temu_tm_mpi_costs *c = &v->tc.mpi;
    vrank *r = &v->rk[g->src];
    int64_t begin = t > r->send_free ? t : r->send_free, busy = c->gap_ps;
    g->cpu_t = begin + c->send_ps;
    if (r->node == v->rk[g->dst].node) {
        int64_t copy = temu_tm_shm_copy_ps(c, g->bytes);
        g->shm_t = begin + c->shm_ps + copy;
        busy = copy > busy ? copy : busy;
    }
    r->send_free = begin + busy;
    return g->cpu_t;
}

/* When the receiver has message g whose last packet arrived at t (without
 * a network: at its start): o_r later; on-node, when shared memory has
 * delivered it (not before the packets of a family that also counts them
 * through its NIC: Blue Gene's message-unit loopback). */
static int64_t costs_received(const temu_vt *v, const vmsg *g, int64_t t)
{
    if (g->shm_t >= 0) {
        return t > g->shm_t ? t : g->shm_t;
    }
    return t + v->tc.mpi.recv_ps;
}

/* Direction dir of message id has wholly arrived at t. */
static temu_status arrived(temu_vt *v, int32_t id, int dir, int64_t t, temu_error *err)
{
    vmsg *g = &MSG(v, id);
    temu_status st = TEMU_OK;
    if (dir == 0) {
        uint64_t pk = 0, by = 0;
        g->arrive_t = costs_received(v, g, t);
        v->pay_arrived += g->bytes;
        wake(v, g->dst, g->arrive_t);
        /* the replies leave when the request has arrived (a message's
         * granularity: doc/replay.md) */
        st = send_dir(v, id, 1, t, &pk, &by, err);
        if (st != TEMU_OK || pk > 0) {
            return st;
        }
    }
    g->done_t = t;
    wake(v, g->src, t);
    vwin *w = WIN(v, id);
    if (w->source != NULL) { /* a message release_msgs may now let go */
        if (GROW(w->done_ids, w->ndone_ids, w->capdone_ids) != 0) {
            return oom(err);
        }
        w->done_ids[w->ndone_ids++] = id;
    }
    return st;
}

/* The message of a crossing's tag. */
static temu_message message_of(const temu_vt *v, const vmsg *g)
{
    return (temu_message){v->rk[g->src].node, v->rk[g->dst].node, g->bytes,
                          (const void *)(uintptr_t)g->payload, (temu_kind)g->kind};
}

/* Is id a message the run holds (in its window, not released)?  A hop
 * looks here: without holes (no sources, or none released) no message is
 * read. */
static int msg_held(const temu_vt *v, uint64_t id)
{
    if (id > INT32_MAX || (id >> v->win_shift) >= (uint64_t)v->nwin) {
        return 0;
    }
    const vwin *w = WIN(v, id);
    if (id >= (uint64_t)w->msg_base + (uint64_t)w->nmsg) {
        return 0;
    }
    if (id >= (uint64_t)w->msg_base) {
        return w->ndead == 0 || w->msg[id - (uint64_t)w->msg_base].rnd >= 0;
    }
    const vmsg *g = w->nside > 0 ? side_find(w, (int32_t)id) : NULL;
    return g != NULL && g->rnd >= 0;
}

/* Count what crossing h accounts for in (after, until]. */
static void count_crossing(temu_vt *v, const temu_tm_hop *h, int64_t after, int64_t until)
{
    vmsg *g = &MSG(v, h->tag >> 1);
    temu_crossing_count(v->s, &g->ledger, (int)(h->tag & 1u), h, after, until);
}

/* The model's hop function: a train of a message starts onto a channel.
 * Counted now up to the next snapshot; what comes after is held. */
static void on_hop(void *ctx, const temu_tm_hop *h)
{
    temu_vt *v = ctx;
    int64_t until = v->tick != NULL ? v->next_tick : INT64_MAX;
    uint64_t id = h->tag >> 1;
    temu_crossing_prefetch(v->s, h); /* its counters' misses beside the message's */
    if (!msg_held(v, id) || (v->nmsg_quiet > 0 && !MSG(v, id).inject)) {
        return; /* not a message of this run's (a caller's own packet) */
    }
    if (!temu_crossing_done_by(h, until)) {
        if (GROW(v->held, v->nheld, v->capheld) != 0) {
            v->oom = 1;
            return;
        }
        v->held[v->nheld++] = (held_hop){*h, until};
    }
    count_crossing(v, h, h->start_ps - 1, until);
}

/* The parallel engine's regions offer each hop here first, on their own
 * threads (temu_tm_set_hop_now).  Without snapshots no message has a
 * ledger and a crossing is counted whole, as atomic adds: taken at once,
 * unless watches are armed.  v->msg is not resized or moved while regions
 * run (the ranks act, and released rounds are dropped, between strides);
 * ids are kept across releases, so a message is found in its window at
 * id - msg_base as in on_hop. */
static int on_hop_now(void *ctx, const temu_tm_hop *h)
{
    temu_vt *v = ctx;
    if (v->tick != NULL) {
        return 0;
    }
    uint64_t id = h->tag >> 1;
    if (!msg_held(v, id) || (v->nmsg_quiet > 0 && !MSG(v, id).inject)) {
        return 1; /* not a message of this run's: nothing to count */
    }
    return temu_crossing_count_now(v->s, h);
}

/* Count what the held crossings account for up to t. */
static void release_held(temu_vt *v, int64_t t)
{
    int32_t k = 0;
    for (int32_t i = 0; i < v->nheld; i++) {
        held_hop *x = &v->held[i];
        count_crossing(v, &x->h, x->after, t);
        x->after = t;
        if (!temu_crossing_done_by(&x->h, t)) {
            v->held[k++] = *x;
        }
    }
    v->nheld = k;
}

/* Put message id on the network at t. */
static temu_status start(temu_vt *v, int32_t id, int64_t t, temu_error *err)
{
    vmsg *g = &MSG(v, id);
    uint64_t pk = 0, by = 0;
    if (g->started) {
        return TEMU_OK;
    }
    g->started = 1;
    v->pay_started += g->bytes;
    temu_status st = TEMU_OK;
    if (g->inject && v->s->readonly) {
        st = temu_fail(err, TEMU_EINVAL, "cannot inject into a session attached read-only");
    } else if (g->inject) {
        temu_message msg = message_of(v, g);
        /* node counters spread over the packets only where snapshots
         * will see them (a ledger per message under way); else now */
        st = temu_crossing_begin(v->s, &msg, v->tick != NULL ? &g->ledger : NULL, err);
    }
    t = costs_send(v, g, t);
    if (st == TEMU_OK) {
        st = send_dir(v, id, 0, t, &pk, &by, err);
    }
    g = &MSG(v, id);
    g->local_t = temu_vt_inject_done(&v->nic_free[v->rk[g->src].node], t, by, v->tc.node_gbs);
    if (st == TEMU_OK && pk == 0) {
        st = arrived(v, id, 0, t, err); /* within the node: no network */
    } else if (pk > 0) {
        v->net_msgs++;
    }
    return st;
}

/* When message id is complete at its sender; -1: not yet. */
static int64_t send_done(const temu_vt *v, int32_t id)
{
    const vmsg *g = &MSG(v, id);
    return g->eager ? g->local_t : g->done_t;
}

static int64_t max64(int64_t a, int64_t b)
{
    return a > b ? a : b;
}

/* Completion time of a pending operation; -1: not yet. */
static int64_t pend_done(const temu_vt *v, const pend *p)
{
    if (p->type == PEND_SEND) {
        return send_done(v, p->id);
    }
    int32_t id = SLOT(v, p->id);
    return id < 0 ? -1 : MSG(v, id).arrive_t;
}

/* Wait for the pending operations with request req (all: every one;
 * autos: those without a request): the time they are all done, -1 if
 * one is not. */
static int64_t wait_pend(temu_vt *v, vrank *r, uint64_t req, int all, int autos)
{
    int64_t t = r->clock;
    for (int32_t i = 0; i < r->npend; i++) {
        const pend *p = &r->pend[i];
        if (all || (autos && p->req == 0) || (!autos && p->req == req)) {
            int64_t d = pend_done(v, p);
            if (d < 0) {
                return -1;
            }
            t = max64(t, d);
        }
    }
    int32_t k = 0;
    for (int32_t i = 0; i < r->npend; i++) {
        const pend *p = &r->pend[i];
        if (!(all || (autos && p->req == 0) || (!autos && p->req == req))) {
            r->pend[k++] = *p;
        }
    }
    r->npend = k;
    return t;
}

static int add_pend(vrank *r, int32_t type, int32_t id, uint64_t req)
{
    if (GROW(r->pend, r->npend, r->cappend) != 0) {
        return -1;
    }
    r->pend[r->npend++] = (pend){type, id, req};
    return 0;
}

/* A collective for member me of instance id at the rank's clock: the time
 * it completes, -1 if it must wait. */
static int64_t coll_step(temu_vt *v, vrank *r, int32_t id, int32_t me, temu_status *st,
                         temu_error *err)
{
    vinst *in = &INST(v, id);
    int64_t t = r->clock;
    if (in->callers < in->n) {
        /* only a collective spanning sources: the others are complete when
         * their round is (round_colls_check) */
        *st = temu_fail(err, TEMU_EINVAL,
                        "virtual time: rank %d enters a collective of communicator %d spanning "
                        "sources before all %d members have recorded it (%d have)",
                        (int)(r - v->rk), in->comm, in->n, in->callers);
        return -1;
    }
    if (in->enter_t[me] < 0) {
        in->enter_t[me] = t;
        in->cursor[me] = in->out_head[me];
        in->scan_in[me] = in->in_head[me];
        in->scan_out[me] = in->out_head[me];
        in->seen_t[me] = t;
        in->last_entry = max64(in->last_entry, t);
        if (++in->entered == in->n && in->at_end != NULL && in->at_end(in->at_end_ctx, v->s) != 0) {
            v->oom = 1;
        }
        if (in->entered == in->n && in->sync) {
            for (int32_t i = 0; i < in->n; i++) {
                wake(v, in->world[i], t);
            }
        }
    }
    if (in->sync) {
        return in->entered == in->n ? max64(t, in->last_entry) : -1;
    }
    while (in->cursor[me] >= 0) {
        int32_t k = MSG(v, in->cursor[me]).round;
        for (int32_t j = k > 0 ? in->in_head[me] : -1; j >= 0; j = MSG(v, j).next_in) {
            if (MSG(v, j).round < k && MSG(v, j).arrive_t < 0) {
                return -1;
            }
        }
        int32_t next = MSG(v, in->cursor[me]).next_out;
        *st = start(v, in->cursor[me], t, err);
        if (*st != TEMU_OK) {
            return -1;
        }
        in = &INST(v, id);
        in->cursor[me] = next;
    }
    /* an arrival time or a send's completion, once known, stays */
    for (int32_t j = in->scan_in[me]; j >= 0; j = in->scan_in[me] = MSG(v, j).next_in) {
        if (MSG(v, j).arrive_t < 0) {
            return -1;
        }
        in->seen_t[me] = max64(in->seen_t[me], MSG(v, j).arrive_t);
    }
    for (int32_t j = in->scan_out[me]; j >= 0; j = in->scan_out[me] = MSG(v, j).next_out) {
        int64_t d = send_done(v, j);
        if (d < 0) {
            return -1;
        }
        in->seen_t[me] = max64(in->seen_t[me], d);
    }
    return max64(t, in->seen_t[me]);
}

/* ------------------------------------------------------------ sources */

temu_status temu_vt_set_sources(temu_vt *v, int32_t n, const temu_vt_source *src, temu_error *err)
{
    if (v->ops_recorded > 0 || v->nmsg_all > 0 || v->ninst_all > 0 || v->nslot_all > 0 ||
        v->win[0].source != NULL) {
        return temu_fail(err, TEMU_EINVAL, "virtual time: a source on a run already recorded");
    }
    if (n <= 0 || n > 1024) {
        return temu_fail(err, TEMU_EINVAL, "virtual time: %d sources (1 .. 1024)", n);
    }
    for (int32_t k = 0; k < n; k++) {
        const temu_vt_source *x = &src[k];
        if (x->fn == NULL || x->n <= 0 ||
            (x->ranks == NULL && (x->first < 0 || x->n > v->nranks - x->first))) {
            return temu_fail(err, TEMU_EINVAL, "virtual time: a source of ranks %d .. %lld",
                             x->first, (long long)x->first + x->n - 1);
        }
        for (int32_t i = 0; x->ranks != NULL && i < x->n; i++) {
            if (x->ranks[i] < 0 || x->ranks[i] >= v->nranks) {
                return temu_fail(err, TEMU_EINVAL, "virtual time: a source with rank %d of %d",
                                 x->ranks[i], v->nranks);
            }
        }
    }
    /* a rank's operations come from one source: mark each source's ranks
     * (win, reset if two share one) */
    temu_status st = TEMU_OK;
    for (int32_t k = 0; k < n && st == TEMU_OK; k++) {
        for (int32_t i = 0; i < src[k].n && st == TEMU_OK; i++) {
            int32_t rank = src[k].ranks != NULL ? src[k].ranks[i] : src[k].first + i;
            if (v->rk[rank].win >= 0) {
                st = temu_fail(err, TEMU_EINVAL, "virtual time: sources %d and %d share ranks",
                               (int)v->rk[rank].win, k);
            }
            v->rk[rank].win = k;
        }
    }
    if (st != TEMU_OK) {
        for (int32_t i = 0; i < v->nranks; i++) {
            v->rk[i].win = -1;
        }
        return st;
    }
    if (n > 1) {
        vwin *g = realloc(v->win, (size_t)n * sizeof *g);
        if (g == NULL) {
            return oom(err);
        }
        memset(g + 1, 0, (size_t)(n - 1) * sizeof *g);
        v->win = g;
        v->nwin = n;
        /* ids below 2^30, so that tags (id * 2 + direction) stay int32 */
        int bits = 0;
        while ((1 << bits) < n) {
            bits++;
        }
        v->win_shift = 30 - bits;
        v->win_ids = (int32_t)1 << v->win_shift;
    }
    for (int32_t k = 0; k < n; k++) {
        vwin *w = &v->win[k];
        w->msg_base = w->slot_base = w->inst_base = (int32_t)((int64_t)k << v->win_shift);
        w->nops_before = malloc((size_t)src[k].n * sizeof *w->nops_before);
        w->src_rank = malloc((size_t)src[k].n * sizeof *w->src_rank);
        if (w->nops_before == NULL || w->src_rank == NULL) {
            return oom(err);
        }
        w->source = src[k].fn;
        w->source_ctx = src[k].ctx;
        w->src_n = src[k].n;
        w->source_more = 1;
        for (int32_t i = 0; i < src[k].n; i++) {
            w->src_rank[i] = src[k].ranks != NULL ? src[k].ranks[i] : src[k].first + i;
        }
    }
    return TEMU_OK;
}

temu_status temu_vt_set_source(temu_vt *v, int32_t first, int32_t n, temu_vt_source_fn fn,
                               void *ctx, temu_error *err)
{
    temu_vt_source one = {first, n, fn, ctx, NULL};
    return temu_vt_set_sources(v, 1, &one, err);
}

/* Is rank past source round k of its window (has it executed every
 * operation of round k: its oldest round with operations left is later,
 * or it has none left)?  A rank of another window is not. */
static int rank_past(const temu_vt *v, int32_t rank, int32_t wi, int32_t k)
{
    const vrank *r = &v->rk[rank];
    return r->win == wi && (r->rq_head == r->rq_n || r->rq[r->rq_head] > k);
}

static int cmp_id(const void *a, const void *b)
{
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return (x > y) - (x < y);
}

/* The messages of window w some rank of its source still refers to
 * (pending operations: a send, or a receive's matched message) or whose
 * crossings are still to count, in v->pin, sorted; -1 if out of memory. */
static int pins_collect(temu_vt *v, const vwin *w)
{
    v->npin = 0;
    for (int32_t i = 0; i < w->src_n; i++) {
        const vrank *r = &v->rk[w->src_rank[i]];
        for (int32_t k = 0; k < r->npend; k++) {
            int32_t id = r->pend[k].id;
            if (r->pend[k].type == PEND_RECV) {
                id = slot_held(v, id) ? SLOT(v, id) : -1;
            }
            if (id < 0) {
                continue; /* a receive not matched yet */
            }
            if (GROW(v->pin, v->npin, v->cappin) != 0) {
                return -1;
            }
            v->pin[v->npin++] = id;
        }
    }
    for (int32_t k = 0; k < v->nheld; k++) { /* crossings still to count */
        int32_t id = (int32_t)(v->held[k].h.tag >> 1);
        if (WIN(v, id) == w) {
            if (GROW(v->pin, v->npin, v->cappin) != 0) {
                return -1;
            }
            v->pin[v->npin++] = id;
        }
    }
    if (v->npin > 1) { /* v->pin is NULL until something is pinned */
        qsort(v->pin, (size_t)v->npin, sizeof *v->pin, cmp_id);
    }
    return 0;
}

static int pinned(const temu_vt *v, int32_t id)
{
    return v->npin > 0 && bsearch(&id, v->pin, (size_t)v->npin, sizeof *v->pin, cmp_id) != NULL;
}

/* Is window wi's done message g (id) read by nothing any more: its sender
 * is past the round that recorded it, its receiver past the round by
 * which its receive was (point-to-point; unmatched: waiting in the
 * matcher for a receive a later round may record), every rank of the
 * window past its round (a collective's: its instance is released with
 * that round, `done`), and no pending operation or held crossing names
 * it? */
static int msg_unread(const temu_vt *v, int32_t wi, const vmsg *g, int32_t id, int32_t done)
{
    if (!rank_past(v, g->src, wi, g->rnd)) {
        return 0;
    }
    if (g->rrnd == RRND_COLL
            ? g->rnd >= done
            : g->rrnd != RRND_NONE && (g->rrnd < 0 || !rank_past(v, g->dst, wi, g->rrnd))) {
        return 0;
    }
    return !pinned(v, id);
}

/* Drop the first k elements (of size sz) of an array of *n. */
static void drop_front(void *arr, int32_t *n, int32_t k, size_t sz)
{
    if (k == 0) {
        return; /* nothing to drop; arr may still be NULL (never grown) */
    }
    memmove(arr, (char *)arr + (size_t)k * sz, (size_t)(*n - k) * sz);
    *n -= k;
}

/* Window w's array of messages kept to about twice those it holds: its
 * front, once at least half of the array, is dropped, the released
 * messages in it forgotten and the held ones moved aside (w->side, found
 * by id: their ids stay); the stragglers aside are pruned once half of
 * them are released.  Each message moves at most once, and the array
 * only when half of it goes (the copies: O(1) a message). */
static int msgs_compact(vwin *w)
{
    int32_t k = 0, dead = w->ndead;
    while (k < w->nmsg && (w->msg[k].rnd < 0 || 2 * (int64_t)dead > w->nmsg - k)) {
        dead -= w->msg[k].rnd < 0;
        k++;
    }
    if (k > 0 && 2 * (int64_t)k >= w->nmsg) {
        /* room aside first: a message (its ledger) never in both places */
        while ((int64_t)w->capside < (int64_t)w->nside + k - (w->ndead - dead)) {
            if (GROW(w->side, w->capside, w->capside) != 0) {
                return -1;
            }
        }
        for (int32_t i = 0; i < k; i++) {
            if (w->msg[i].rnd >= 0) {
                w->side[w->nside++] = (struct side_msg){w->msg_base + i, w->msg[i]};
            }
        }
        drop_front(w->msg, &w->nmsg, k, sizeof *w->msg);
        w->msg_base += k;
        w->ndead = dead;
    }
    if (w->nside_dead > 0 && 2 * w->nside_dead >= w->nside) {
        int32_t n = 0;
        for (int32_t i = 0; i < w->nside; i++) {
            if (w->side[i].m.rnd >= 0) {
                w->side[n++] = w->side[i];
            }
        }
        w->nside = n;
        w->nside_dead = 0;
    }
    return 0;
}

/* Receive slot id is released (its message is). */
static void slot_release(temu_vt *v, int32_t id)
{
    vwin *w = WIN(v, id);
    if (id >= w->slot_base) {
        w->slot_msg[id - w->slot_base] = SLOT_GONE;
        w->nslot_dead++;
    } else {
        *sside_find(w, id) = SLOT_GONE;
        w->nsside_dead++;
    }
    v->nslot_all--;
}

/* Window w's receive slots kept as its messages (msgs_compact). */
static int slots_compact(vwin *w)
{
    int32_t k = 0, dead = w->nslot_dead;
    while (k < w->nslot && (w->slot_msg[k] == SLOT_GONE || 2 * (int64_t)dead > w->nslot - k)) {
        dead -= w->slot_msg[k] == SLOT_GONE;
        k++;
    }
    if (k > 0 && 2 * (int64_t)k >= w->nslot) {
        while ((int64_t)w->capsside < (int64_t)w->nsside + k - (w->nslot_dead - dead)) {
            if (GROW(w->sside, w->capsside, w->capsside) != 0) {
                return -1;
            }
        }
        for (int32_t i = 0; i < k; i++) {
            if (w->slot_msg[i] != SLOT_GONE) {
                w->sside[w->nsside++] = (struct side_slot){w->slot_base + i, w->slot_msg[i]};
            }
        }
        drop_front(w->slot_msg, &w->nslot, k, sizeof *w->slot_msg);
        w->slot_base += k;
        w->nslot_dead = dead;
    }
    if (w->nsside_dead > 0 && 2 * w->nsside_dead >= w->nsside) {
        int32_t n = 0;
        for (int32_t i = 0; i < w->nsside; i++) {
            if (w->sside[i].msg != SLOT_GONE) {
                w->sside[n++] = w->sside[i];
            }
        }
        w->nsside = n;
        w->nsside_dead = 0;
    }
    return 0;
}

/* Release window wi's done messages nothing reads any more (msg_unread),
 * in any order: their ids stay (the model orders equal times by them),
 * their places become holes until msgs_compact drops them, and so do
 * their receive slots'. */
static int release_msgs(temu_vt *v, int32_t wi, int32_t done)
{
    vwin *w = &v->win[wi];
    if (w->ndone_ids == 0) {
        return 0;
    }
    if (pins_collect(v, w) != 0) {
        return -1;
    }
    int32_t kept = 0;
    for (int32_t i = 0; i < w->ndone_ids; i++) {
        int32_t id = w->done_ids[i];
        vmsg *g = msg_at(v, id);
        if (!msg_unread(v, wi, g, id, done)) {
            w->done_ids[kept++] = id;
            continue;
        }
        temu_ledger_free(g->ledger);
        g->ledger = NULL;
        g->rnd = -1;
        if (g->rrnd >= 0) { /* its receive slot goes with it */
            slot_release(v, g->next_in);
        }
        v->nmsg_quiet -= !g->inject;
        v->nmsg_all--;
        if (id >= w->msg_base) {
            w->ndead++;
        } else {
            w->nside_dead++;
        }
    }
    w->ndone_ids = kept;
    return msgs_compact(w) != 0 || slots_compact(w) != 0 ? -1 : 0;
}

/* Release what window w's source is done with: its messages as above,
 * and the collective instances of the rounds every rank of it is past. */
static int release_rounds(temu_vt *v, vwin *w)
{
    int32_t done = w->nrounds;
    if (v->spans_open > 0) {
        return 0; /* a member of another source may still read its messages */
    }
    for (int32_t i = 0; i < w->src_n; i++) {
        const vrank *r = &v->rk[w->src_rank[i]];
        int32_t in = r->rq_head < r->rq_n ? r->rq[r->rq_head] : w->nrounds;
        done = in < done ? in : done;
    }
    if (release_msgs(v, (int32_t)(w - v->win), done) != 0) {
        return -1;
    }
    int32_t inst_end =
        done < w->nrounds ? w->round_inst[done - w->round_base] : w->inst_base + w->ninst;
    int32_t k = inst_end - w->inst_base < w->ninst ? inst_end - w->inst_base : w->ninst;
    for (int32_t i = 0; i < k; i++) {
        inst_free(&w->inst[i]);
    }
    drop_front(w->inst, &w->ninst, k, sizeof *w->inst);
    w->inst_base += k;
    v->ninst_all -= k;
    /* the rounds every rank is past: no longer asked for (once half) */
    k = done - w->round_base;
    if (k > 0 && 2 * (int64_t)k >= w->nround_inst) {
        drop_front(w->round_inst, &w->nround_inst, k, sizeof *w->round_inst);
        w->round_base = done;
    }
    return 0;
}

/* Forget the operations rank has executed once they are at least half of
 * those held (each operation moves O(1) times on average). */
static void ops_compact(temu_vt *v, vrank *r)
{
    if (r->pc > 0 && r->pc >= r->nops - r->pc) {
        v->ops_held -= (uint64_t)r->pc;
        r->op_base += r->pc;
        drop_front(r->ops, &r->nops, r->pc, sizeof *r->ops);
        r->pc = 0;
    }
}

/* A member of window w's collective instances first .. that never calls
 * it; TEMU_OK if all do. */
static temu_status round_colls_check(const vwin *w, int32_t first, temu_error *err)
{
    for (int32_t i = first; i < w->inst_base + w->ninst; i++) {
        const vinst *in = &w->inst[i - w->inst_base];
        if (in->callers < in->n && !in->spans) {
            int32_t me = 0;
            while (in->world[me] >= 0) {
                me++;
            }
            return temu_fail(err, TEMU_EINVAL,
                             "virtual time: member %d of communicator %d never calls its "
                             "collective number %d (%d of %d members do)",
                             me, in->comm, in->call + 1, in->callers, in->n);
        }
    }
    return TEMU_OK;
}

/* Have window w's source record its next round (or find it has none). */
static temu_status source_round(temu_vt *v, int32_t wi, temu_error *err)
{
    vwin *w = &v->win[wi];
    if (release_rounds(v, w) != 0) {
        return oom(err);
    }
    for (int32_t i = 0; i < w->src_n; i++) {
        vrank *r = &v->rk[w->src_rank[i]];
        ops_compact(v, r);
        w->nops_before[i] = r->nops;
    }
    if (GROW(w->round_inst, w->nround_inst, w->capround_inst) != 0) {
        return oom(err);
    }
    int32_t at = w->inst_base + w->ninst;
    int more = 0;
    v->cur = wi;
    temu_status st = w->source(w->source_ctx, &more, err);
    v->cur = 0;
    w->source_more = st == TEMU_OK && more;
    if (!w->source_more) {
        return st;
    }
    int32_t k = w->nrounds++;
    w->round_inst[w->nround_inst++] = at;
    v->held_stats.rounds++;
    for (int32_t i = 0; i < w->src_n; i++) {
        vrank *r = &v->rk[w->src_rank[i]];
        if (r->nops > w->nops_before[i]) {
            r->ops[r->nops - 1].type |= OP_ROUND_END;
            if (r->rq_head > 0 && r->rq_head >= r->rq_n - r->rq_head) {
                drop_front(r->rq, &r->rq_n, r->rq_head, sizeof *r->rq);
                r->rq_head = 0;
            }
            if (GROW(r->rq, r->rq_n, r->rq_cap) != 0) {
                return oom(err);
            }
            r->rq[r->rq_n++] = k;
        }
    }
    return round_colls_check(w, at, err);
}

/* Rank has executed all its operations: its source's next rounds until
 * it has more or the source has no more. */
static temu_status source_until(temu_vt *v, int32_t rank, temu_error *err)
{
    temu_status st = TEMU_OK;
    int32_t wi = v->rk[rank].win;
    if (wi < 0) {
        return st;
    }
    while (st == TEMU_OK && v->win[wi].source_more && !v->rk[rank].retired &&
           v->rk[rank].pc == v->rk[rank].nops) {
        st = source_round(v, wi, err);
    }
    return st;
}

/* Execute rank's next operation at its clock: its clock after it, -1 if it
 * must wait. */
static int64_t exec(temu_vt *v, int32_t rank, temu_status *st, temu_error *err)
{
    vrank *r = &v->rk[rank];
    if (r->pc == r->nops && r->win >= 0 && v->win[r->win].source_more && !r->retired) {
        *st = source_until(v, rank, err);
        r = &v->rk[rank];
        if (*st != TEMU_OK) {
            return -1;
        }
    }
    if (r->pc == r->nops) { /* the end: what is still pending */
        return wait_pend(v, r, 0, 1, 0);
    }
    const vop *op = &r->ops[r->pc];
    int64_t t = r->clock, d;
    switch (OP_TYPE(op)) {
    case OP_COMPUTE:
        r->compute += op->x;
        return t + op->x;
    case OP_SEND:
        *st = start(v, op->a, t, err);
        d = send_done(v, op->a);
        return d < 0 ? -1 : max64(t, d);
    case OP_START:
        *st = start(v, op->a, t, err);
        r = &v->rk[rank];
        if (add_pend(r, PEND_SEND, op->a, (uint64_t)op->x) != 0) {
            *st = oom(err);
        }
        return max64(t, MSG(v, op->a).cpu_t); /* the call returns after o_s */
    case OP_IRECV:
        if (add_pend(r, PEND_RECV, op->a, (uint64_t)op->x) != 0) {
            *st = oom(err);
        }
        return t;
    case OP_RECV: {
        int32_t id = SLOT(v, op->a);
        return id < 0 || MSG(v, id).arrive_t < 0 ? -1 : max64(t, MSG(v, id).arrive_t);
    }
    case OP_WAIT:
        return wait_pend(v, r, (uint64_t)op->x, 0, 0);
    case OP_WAITALL:
        return wait_pend(v, r, 0, op->x == 0, op->x != 0);
    case OP_COLL:
        d = coll_step(v, r, op->a, (int32_t)op->x, st, err);
        if (d >= 0 && INST(v, op->a).spans && ++INST(v, op->a).left == INST(v, op->a).n) {
            v->spans_open--;
        }
        return d;
    default: /* OP_MARK */
        if (GROW(r->marks, r->nmarks, r->capmarks) != 0) {
            *st = oom(err);
        } else {
            r->marks[r->nmarks++] = t;
        }
        return t;
    }
}

/* Run rank from time t until it waits, ends or its clock moves on. */
static temu_status step(temu_vt *v, int32_t rank, int64_t t, temu_error *err)
{
    vrank *r = &v->rk[rank];
    temu_status st = TEMU_OK;
    r->queued = 0;
    r->clock = max64(r->clock, t);
    for (;;) {
        int64_t next = exec(v, rank, &st, err);
        r = &v->rk[rank];
        if (st != TEMU_OK) {
            return st;
        }
        if (next < 0) {
            r->blocked = 1;
            return TEMU_OK;
        }
        if (r->pc == r->nops) {
            r->clock = next;
            r->finished = 1;
            return TEMU_OK;
        }
        r->rq_head += (r->ops[r->pc].type & OP_ROUND_END) != 0;
        r->pc++;
        r->done_ops++;
        v->ops_done++;
        if (next != r->clock) {
            r->clock = next;
            schedule(v, rank, next);
            return TEMU_OK;
        }
    }
}

/* The network clock of a store with virtual time (PEVT_NW_CYCLES) runs to
 * t, every node's alike (the run starts at 0 on all of them), but no
 * further than the run's end, the predicted runtime: once every rank has
 * ended, a snapshot taken later (the model may still have bookkeeping
 * events) sees the clock stopped there.  A rank that has not ended at a
 * snapshot's time t ends at t or later (the snapshot is taken before
 * anything at t is processed). */
static void network_clock_to(temu_vt *v, int64_t t)
{
    int64_t end = 0;
    for (int32_t i = 0; i < v->nranks && end >= 0; i++) {
        end = v->rk[i].finished ? max64(end, v->rk[i].clock) : -1;
    }
    t = end >= 0 && end < t ? end : t;
    if (t > v->nw_ps) {
        temu_bgq_nw_cycles_advance(v->s, v->nw_ps, t);
        v->nw_ps = t;
    }
}

/* Virtual time reached t: snapshot ticks up to it. */
static temu_status ticks_until(temu_vt *v, int64_t t, temu_error *err)
{
    temu_status st = TEMU_OK;
    while (v->tick != NULL && st == TEMU_OK && v->next_tick < t) {
        v->net->advance(v->model, v->next_tick);
        release_held(v, v->next_tick);
        network_clock_to(v, v->next_tick);
        st = v->tick(v->tick_ctx, v, v->next_tick, err);
        v->next_tick += v->tick_ps;
    }
    return st;
}

static temu_status stuck(const temu_vt *v, temu_error *err)
{
    static const char *const names[] = {"compute",      "send",       "non-blocking operation",
                                        "receive post", "receive",    "wait",
                                        "wait-all",     "collective", "mark"};
    for (int32_t i = 0; i < v->nranks; i++) {
        const vrank *r = &v->rk[i];
        if (!r->finished) {
            const char *what =
                r->pc < r->nops ? names[OP_TYPE(&r->ops[r->pc])] : "end (pending operations)";
            return temu_fail(
                err, TEMU_EINVAL,
                "virtual time: rank %d waits for ever at operation %d (%s) at %lld ps: "
                "a receive without its send or a collective some member never "
                "calls",
                i, (int)(r->op_base + r->pc), what, (long long)r->clock);
        }
    }
    return TEMU_OK;
}

/* The model's events from tn (its next) on, before the ranks' next at tr:
 * the instant tn (the serial engine), or with threads everything up to
 * tr or the next snapshot tick, stopping at the first instant that
 * completed a message, whose answers may come at once (the same steps
 * the instant-by-instant loop takes, in long strides).  Returns the
 * instant the model stopped at. */
static int64_t model_stride(temu_vt *v, int64_t tn, int64_t tr)
{
    if (v->tc.threads == 0) {
        v->net->advance(v->model, tn);
        return tn;
    }
    int64_t until = v->tick != NULL && v->next_tick < tr ? v->next_tick : tr;
    return v->net->step(v->model, until, &v->ndone); /* completions to answer */
}

temu_status temu_vt_run(temu_vt *v, temu_error *err)
{
    temu_status st = TEMU_OK;
    for (int32_t w = 0; w < v->nwin && st == TEMU_OK; w++) {
        st = round_colls_check(&v->win[w], v->win[w].inst_base, err);
    }
    if (st != TEMU_OK) {
        return st;
    }
    if (v->net->set_done != NULL) {
        v->net->set_done(v->model, on_done, v);
    } else {
        v->net->set_delivery(v->model, on_delivery, v);
    }
    v->net->set_hop(v->model, on_hop, v);
    if (v->net->set_hop_now != NULL) {
        v->net->set_hop_now(v->model, on_hop_now, v);
    }
    /* every source's first round before any rank runs, source 0's first:
     * a collective spanning sources (GPCNeT's barrier of every rank) has
     * all its members recorded before one enters it, as when recorded
     * whole (a member entering it earlier would miss the messages recorded
     * later: coll_step refuses that) */
    for (int32_t w = 0; w < v->nwin && st == TEMU_OK; w++) {
        st = v->win[w].source != NULL && v->win[w].source_more ? source_round(v, w, err) : st;
    }
    for (int32_t i = 0; i < v->nranks; i++) {
        schedule(v, i, 0);
    }
    while (st == TEMU_OK) {
        int64_t tn = v->net->next_event(v->model);
        int64_t tr = v->nheap > 0 ? v->heap[0].t : INT64_MAX;
        if (tn == INT64_MAX && tr == INT64_MAX) {
            break;
        }
        v->steps++;
        if (--v->watch_left == 0) {
            watch_call(v, tn < tr ? tn : tr);
        }
        st = ticks_until(v, tn < tr ? tn : tr, err);
        if (st != TEMU_OK) {
            break;
        }
        if (tn <= tr) {
            tn = model_stride(v, tn, tr);
            st = v->net->check(v->model, err);
            if (v->oom) {
                st = oom(err);
            }
            /* completions found by this step, in delivery order */
            for (int32_t i = 0; st == TEMU_OK && i < v->ndone; i++) {
                st = arrived(v, v->done_list[i] >> 1, v->done_list[i] & 1, tn, err);
            }
            v->ndone = 0;
        } else {
            rank_ev e = heap_pop(v);
            st = step(v, e.rank, e.t, err);
        }
    }
    if (st == TEMU_OK) {
        st = stuck(v, err);
    }
    /* the run ends when its last rank does, or its last packet if later */
    int64_t end = max64(temu_vt_runtime(v), v->net->now(v->model));
    if (st == TEMU_OK && v->tick != NULL) {
        st = ticks_until(v, end, err);
        release_held(v, INT64_MAX); /* every packet has started by the end */
    }
    if (st == TEMU_OK) {
        network_clock_to(v, temu_vt_runtime(v));
    }
    if (st == TEMU_OK && v->tick != NULL) {
        st = v->tick(v->tick_ctx, v, end, err);
    }
    return st;
}

/* ------------------------------------------------------------ results */

int32_t temu_vt_nranks(const temu_vt *v)
{
    return v->nranks;
}

void temu_vt_rank_get(const temu_vt *v, int32_t rank, temu_vt_rank_stats *out)
{
    memset(out, 0, sizeof *out);
    if (rank >= 0 && rank < v->nranks) {
        const vrank *r = &v->rk[rank];
        out->end_ps = r->clock;
        out->compute_ps = r->compute;
        out->comm_ps = r->clock - r->compute;
        out->ops = r->done_ops;
    }
}

int64_t temu_vt_runtime(const temu_vt *v)
{
    int64_t t = 0;
    for (int32_t i = 0; i < v->nranks; i++) {
        t = max64(t, v->rk[i].clock);
    }
    return t;
}

const int64_t *temu_vt_marks(const temu_vt *v, int32_t rank, int32_t *n)
{
    if (rank < 0 || rank >= v->nranks) {
        *n = 0;
        return NULL;
    }
    *n = v->rk[rank].nmarks;
    return v->rk[rank].marks;
}

void temu_vt_rank_retire(temu_vt *v, int32_t rank)
{
    if (rank >= 0 && rank < v->nranks) {
        v->rk[rank].retired = 1;
    }
}

int temu_vt_rank_ended(const temu_vt *v, int32_t rank)
{
    return rank >= 0 && rank < v->nranks && v->rk[rank].finished;
}

int64_t temu_vt_colls_open(const temu_vt *v)
{
    return v->colls_open;
}

void temu_vt_held_get(const temu_vt *v, temu_vt_held *out)
{
    *out = v->held_stats;
}

uint64_t temu_vt_messages(const temu_vt *v)
{
    return v->net_msgs;
}

void temu_vt_model_totals(const temu_vt *v, temu_tm_totals *out)
{
    v->net->totals(v->model, out);
}

temu_tm *temu_vt_model(temu_vt *v)
{
    return v->net == &temu_model_packet ? v->model : NULL;
}

temu_status temu_vt_counters_flush(const temu_vt *v, temu_tm_flushed *f, temu_session *s,
                                   temu_error *err)
{
    return v->net->counters(v->model, f, s, err);
}
