/*
 * run_model.c - the online timing model of `torusemu run --virtual-time`
 * (run_model.h).
 *
 * A thread of the launcher repeats: read every rank's state (vt_feed.h:
 * what it may still send), then take every message queued in the feed;
 * compute each rank's bound, the virtual time before which it will send
 * nothing more (rank_bound: its clock, or a delivery it waits for, or a
 * collective's exit), feed the timing model the messages sent before the
 * smallest bound F, ordered by (send time, rank, order sent), and run it
 * up to F - 1 ps, one event time at a time while a bound waits for
 * deliveries still to come; each message's delivery (its last packet at the
 * destination) is written into the feed for its receiver (doc/virtual-
 * time.md, "Synchronisation").  Messages are fed in time order whatever the
 * host did, and nothing is fed at a time the model has passed, so the
 * result depends only on the messages and their send times (a rank blocked
 * in the host's MPI for 2 s while the model waits is let go, relax(), and
 * what it then sends late is counted and reported).  Every 50 ms of host time the
 * counters the model produced since the last time are added to the store
 * (temu_net_stall_counters_flush: each counter's growth since the last
 * look), so PAPI readers see them grow during the run.  The model is of the
 * level the configuration names (temu_net: `--model packet|flow`).
 */
#define _GNU_SOURCE 1
#include "run_model.h"

#include "torusemu_timing.h"
#include "vt_feed.h"

#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define PUBLISH_NS 50000000ll /* host time between two additions to the store */
/* Idle rounds the model thread yields the core before it sleeps: a rank
 * that wakes it pays a system call, but only the rank it waits for wakes
 * it (vt_feed.c, wake_model_for), and on a loaded host each yield is a
 * context switch: 16 rounds were 38 % of the thread's CPU in GPCNeT's
 * latency test. */
#define IDLE_YIELDS 2

typedef struct pending {
    tmpi_vt_rec rec;
    int32_t rank;
    uint64_t seq;
} pending;

/* a message sent to a rank and not yet taken by a receive */
typedef struct cand {
    int32_t src;
    uint64_t seq;
} cand;

/* a delivery time and the message's sender */
typedef struct delivery_at {
    int64_t when;
    int32_t src;
} delivery_at;

typedef struct cand_list {
    cand *v;
    size_t n, cap;
} cand_list;

/* A blocking collective's bound as one bound() pass computed it: the same
 * for every member (rank_bound), so computed once per pass, not once per
 * member (each computation looks at every member's messages: 16 ranks in
 * GPCNeT's collectives made these looks most of the model thread's CPU). */
typedef struct coll_memo {
    uint64_t comm, seq;
    int64_t bound;
    int step;
} coll_memo;
#define COLL_MEMOS 8

struct run_model {
    temu_session *s;
    const temu_machine *m;
    temu_net *net;
    tmpi_vt_feed *feed;
    char path[4096];
    pthread_t thread;
    int stop;
    pending *pend;
    size_t npend, cap;
    int sorted; /* pend is in feeding order */
    /* per rank: its state as last read, its untaken messages, the state
     * version the stall rule let go (run_model.h) */
    tmpi_vt_state *st;
    uint64_t *ver;
    cand_list *cands;
    uint64_t *relaxed;
    int delivered; /* a message was delivered since the ranks were woken */
    /* what the model's counters (Gemini tile stalls, BG/Q receive-FIFO
     * occupancy, message-unit pending requests) already added to the
     * session */
    temu_tm_flushed *flushed;
    uint64_t messages;
    int64_t published_at; /* model time at the last look */
    uint64_t published_msgs;
    /* per communicator id: the last blocking collective some member left
     * and its exit (the members' left[] rings, read after their states) */
    uint64_t *left_seq1;
    int64_t *left_exit;
    size_t nleft_ids;
    uint64_t *left_seen; /* per rank: entries of its ring read */
    delivery_at *dtimes; /* scratch (recv_bound) */
    size_t ncapd;
    uint64_t late, lost, relaxations;
    int64_t last_arrival;  /* the latest packet arrival so far (ps) */
    int64_t thread_cpu_ns; /* the model thread's CPU time, at its end */
    /* the second smallest rank bound and the smallest's rank, of the last
     * bound() (publish_poll) */
    int64_t bound_min2;
    int32_t bound_min_rank;
    coll_memo memo[COLL_MEMOS]; /* this bound() pass's collectives */
    int nmemo;
    int32_t nranks;
    int failed;
};

static int64_t host_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000ll + ts.tv_nsec;
}

static int before(const pending *a, const pending *b)
{
    if (a->rec.when != b->rec.when) {
        return a->rec.when < b->rec.when;
    }
    return a->rank != b->rank ? a->rank < b->rank : a->seq < b->seq;
}

static int cmp_pending(const void *x, const void *y)
{
    const pending *a = x, *b = y;
    return before(a, b) ? -1 : before(b, a);
}

static void fail_once(run_model *rm, const char *what)
{
    if (!rm->failed) {
        fprintf(stderr, "torusemu: run: timing model: %s\n", what);
        rm->failed = 1;
    }
}

static void cand_add(run_model *rm, int32_t dst, int32_t src, uint64_t seq)
{
    cand_list *l = &rm->cands[dst];
    if (l->n == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 16;
        cand *v = realloc(l->v, cap * sizeof *v);
        if (v == NULL) {
            fail_once(rm, "out of memory");
            return;
        }
        l->v = v;
        l->cap = cap;
    }
    l->v[l->n++] = (cand){src, seq};
}

/* Tags of the model's packets: sender, sequence number, direction. */
#define TAG_DIR 1u
#define TAG_RANK_BITS 20
static uint64_t tag_of(int32_t rank, uint64_t seq, int dir)
{
    return (seq << (TAG_RANK_BITS + 1)) | ((uint64_t)rank << 1) | (uint64_t)dir;
}

/* Packets reached their destination (one at a time on the packet level, a
 * flow's at once on the flow level, the last at `done`): the message is
 * delivered with its last packet; the replies (direction 1) count only for
 * one-sided transactions (TMPI_VT_F_RMA: the origin's get completes when
 * the data is back, its put when the target's acknowledgements are). */
static void on_arrival(void *ctx, uint64_t tag, uint64_t units, int64_t created, int64_t done)
{
    run_model *rm = ctx;
    (void)created;
    int32_t rank = (int32_t)((tag >> 1) & ((1u << TAG_RANK_BITS) - 1));
    uint64_t seq = tag >> (TAG_RANK_BITS + 1);
    tmpi_vt_deliv *d = &rm->feed->q[rank].deliv[seq % TMPI_VT_DELIV_CAP];
    if (done > rm->last_arrival) {
        rm->last_arrival = done;
    }
    if ((tag & TAG_DIR) && !d->both) {
        return;
    }
    if (d->left > 0) {
        d->left = d->left > units ? d->left - units : 0;
        if (d->left == 0) {
            tmpi_vt_feed_deliver(rm->feed, rank, seq, done);
            rm->delivered = 1;
        }
    }
}

/* The collectives rank r left since the last look. */
static void read_left(run_model *rm, int32_t r)
{
    const tmpi_vt_queue *q = &rm->feed->q[r];
    uint64_t n = __atomic_load_n(&q->nleft, __ATOMIC_ACQUIRE);
    uint64_t i = n - rm->left_seen[r] > TMPI_VT_LEFT_CAP ? n - TMPI_VT_LEFT_CAP : rm->left_seen[r];
    for (; i < n; i++) {
        tmpi_vt_left l = q->left[i % TMPI_VT_LEFT_CAP];
        if (l.comm >= rm->nleft_ids) {
            size_t cap = l.comm + 64;
            uint64_t *s1 = realloc(rm->left_seq1, cap * sizeof *s1);
            int64_t *x = s1 != NULL ? realloc(rm->left_exit, cap * sizeof *x) : NULL;
            if (s1 != NULL) {
                rm->left_seq1 = s1;
            }
            if (x == NULL) {
                fail_once(rm, "out of memory");
                break;
            }
            rm->left_exit = x;
            memset(&rm->left_seq1[rm->nleft_ids], 0, (cap - rm->nleft_ids) * sizeof *s1);
            rm->nleft_ids = cap;
        }
        if (l.seq + 1 > rm->left_seq1[l.comm]) {
            rm->left_seq1[l.comm] = l.seq + 1;
            rm->left_exit[l.comm] = l.exit;
        }
    }
    rm->left_seen[r] = n;
}

/* Take every queued record; 1 if there were some.  The states are read
 * first: a rank queues its messages before it declares what it waits for. */
static int drain(run_model *rm)
{
    int got = 0;
    for (int32_t r = 0; r < rm->feed->nranks; r++) {
        rm->ver[r] = tmpi_vt_feed_read_state(rm->feed, r, &rm->st[r]);
    }
    for (int32_t r = 0; r < rm->feed->nranks; r++) {
        read_left(rm, r);
    }
    for (int32_t r = 0; r < rm->feed->nranks; r++) {
        tmpi_vt_queue *q = &rm->feed->q[r];
        uint64_t head = q->head, tail = __atomic_load_n(&q->tail, __ATOMIC_ACQUIRE);
        for (; head < tail; head++) {
            if (rm->npend == rm->cap) {
                size_t cap = rm->cap ? 2 * rm->cap : 1024;
                pending *p = realloc(rm->pend, cap * sizeof *p);
                if (p == NULL) {
                    break; /* the rest waits in the queue */
                }
                rm->pend = p;
                rm->cap = cap;
            }
            pending *p = &rm->pend[rm->npend++];
            *p = (pending){q->rec[head % TMPI_VT_FEED_CAP], r, head};
            if ((p->rec.flags & TMPI_VT_F_STAMPED) && p->rec.dst_rank >= 0 &&
                p->rec.dst_rank < rm->feed->nranks) {
                cand_add(rm, p->rec.dst_rank, r, head);
            }
            rm->sorted = 0;
            got = 1;
        }
        __atomic_store_n(&q->head, head, __ATOMIC_RELEASE);
    }
    return got;
}

/* Message p into the model at its send time (or now, if the model has
 * passed it: counted as late). */
static void feed_one(run_model *rm, const pending *p)
{
    const tmpi_vt_rec *r = &p->rec;
    temu_message msg = {r->src, r->dst, r->bytes, NULL, (temu_kind)r->kind};
    temu_error err;
    uint64_t packets = 0, bytes = 0, replies = 0;
    int64_t now = temu_net_now(rm->net), when = r->when;
    tmpi_vt_deliv *d = &rm->feed->q[p->rank].deliv[p->seq % TMPI_VT_DELIV_CAP];
    if (when < now) {
        rm->late++;
        when = now;
    }
    if (d->left != 0) {
        rm->lost++; /* its slot's message is still in the network: overwritten */
    }
    d->left = 0;
    d->prefix = r->prefix;
    d->both = (r->flags & TMPI_VT_F_RMA) != 0;
    if (!(r->flags & TMPI_VT_F_NOMODEL)) {
        if (temu_net_send_message_dir(rm->net, when, rm->m, &msg, 0, tag_of(p->rank, p->seq, 0),
                                      &packets, &bytes, &err) != TEMU_OK ||
            temu_net_send_message_dir(rm->net, when, rm->m, &msg, 1, tag_of(p->rank, p->seq, 1),
                                      &replies, &bytes, &err) != TEMU_OK) {
            fail_once(rm, err.message);
            packets = replies = 0;
        }
        rm->messages++;
    }
    if (d->both) {
        packets += replies;
    }
    if (packets == 0) { /* nothing crosses the network: there at once */
        tmpi_vt_feed_deliver(rm->feed, p->rank, p->seq,
                             r->flags & TMPI_VT_F_NOMODEL ? r->arrival : when);
        rm->delivered = 1;
    } else {
        d->left = packets;
    }
}

/* Feed the pending messages sent at or before `upto`, in order. */
static int feed_upto(run_model *rm, int64_t upto)
{
    size_t n = 0, k = 0;
    if (!rm->sorted && rm->npend > 0) { /* qsort must not get NULL, even for 0 items */
        qsort(rm->pend, rm->npend, sizeof *rm->pend, cmp_pending);
        rm->sorted = 1;
    }
    while (n < rm->npend && rm->pend[n].rec.when <= upto) {
        feed_one(rm, &rm->pend[n++]);
    }
    for (size_t i = n; i < rm->npend; i++) {
        rm->pend[k++] = rm->pend[i];
    }
    rm->npend = k;
    return n > 0;
}

static int64_t max64(int64_t a, int64_t b)
{
    return a > b ? a : b;
}

static int cmp_delivered(const void *x, const void *y)
{
    const delivery_at *a = x, *b = y;
    return (a->when > b->when) - (a->when < b->when);
}

/* When a blocking receive of rank r ends at the earliest: for each entry of
 * want[] (n messages from src, or from anyone), the n-th earliest delivery
 * among the messages from there sent to r and not yet taken (INT64_MAX:
 * fewer than n delivered yet); the latest of those.  Taken ones leave the
 * list. */
static int64_t recv_bound(run_model *rm, int32_t r, const tmpi_vt_want *want)
{
    cand_list *l = &rm->cands[r];
    int64_t when;
    size_t k = 0, nd = 0;
    for (size_t i = 0; i < l->n; i++) {
        cand c = l->v[i];
        if (tmpi_vt_feed_taken(rm->feed, c.src, c.seq, rm->ver[r])) {
            continue;
        }
        l->v[k++] = c;
        if (tmpi_vt_feed_delivery(rm->feed, c.src, c.seq, &when) == 1) {
            if (nd == rm->ncapd) {
                size_t cap = rm->ncapd ? 2 * rm->ncapd : 64;
                delivery_at *d = realloc(rm->dtimes, cap * sizeof *d);
                if (d == NULL) {
                    fail_once(rm, "out of memory");
                    return INT64_MAX;
                }
                rm->dtimes = d;
                rm->ncapd = cap;
            }
            rm->dtimes[nd++] = (delivery_at){when, c.src};
        }
    }
    l->n = k;
    if (nd > 0) { /* dtimes is NULL until the first delivery */
        qsort(rm->dtimes, nd, sizeof *rm->dtimes, cmp_delivered);
    }
    int64_t b = INT64_MIN;
    for (int w = 0; w < TMPI_VT_WANTS && want[w].n > 0; w++) {
        uint32_t seen = 0;
        size_t i = 0;
        for (; i < nd && seen < want[w].n; i++) {
            seen += want[w].src < 0 || rm->dtimes[i].src == want[w].src;
        }
        if (seen < want[w].n) {
            return INT64_MAX;
        }
        b = max64(b, rm->dtimes[i - 1].when);
    }
    return b == INT64_MIN ? INT64_MAX : b;
}

/* Exit of a member of a blocking collective (mpi/rank_vtime.c, coll_exit: the same
 * rule): its clock + its messages' chain, later by the most any of its
 * messages was delivered after the chain would have it there; INT64_MAX
 * while one of them is in the network. */
static int64_t member_exit(const run_model *rm, int32_t r, const tmpi_vt_state *s)
{
    int64_t late = 0;
    for (uint64_t i = 0; i < s->coll_count; i++) {
        uint64_t seq = s->coll_first + i;
        int64_t when = 0;
        int got = tmpi_vt_feed_delivery(rm->feed, r, seq, &when);
        if (got == 0) {
            return INT64_MAX;
        }
        if (got == 1) {
            int64_t prefix = rm->feed->q[r].deliv[seq % TMPI_VT_DELIV_CAP].prefix;
            late = max64(late, when - s->clock - prefix);
        }
    }
    return s->clock + s->coll_chain + late;
}

/* Rank r in a blocking collective: every member in, the latest exit;
 * else the members still outside hold the model (each enters no earlier
 * than it may send, and every member leaves after the last one entered). */
static int64_t coll_bound_compute(const run_model *rm, int32_t r, int *step)
{
    const tmpi_vt_state *s = &rm->st[r];
    int64_t x = INT64_MIN;
    uint32_t in = 0;
    for (int32_t o = 0; o < rm->feed->nranks; o++) {
        const tmpi_vt_state *t = &rm->st[o];
        if (t->mode == TMPI_VT_COLL && t->coll_comm == s->coll_comm && t->coll_seq == s->coll_seq &&
            (s->coll_comm != 0 || o == r)) {
            in++;
            x = max64(x, member_exit(rm, o, t));
        }
    }
    if (in < s->coll_size) {
        /* a member has left it already: its exit is known */
        if (s->coll_comm != 0 && s->coll_comm < rm->nleft_ids &&
            rm->left_seq1[s->coll_comm] == s->coll_seq + 1) {
            return rm->left_exit[s->coll_comm];
        }
        return INT64_MAX;
    }
    if (x == INT64_MAX) {
        *step = 1;
    }
    return x;
}

/* The same, each collective (coll_comm, coll_seq; not MPI_COMM_SELF's, id
 * 0, whose members are one rank each) computed once per bound() pass. */
static int64_t coll_bound(run_model *rm, int32_t r, int *step)
{
    const tmpi_vt_state *s = &rm->st[r];
    for (int i = 0; s->coll_comm != 0 && i < rm->nmemo; i++) {
        const coll_memo *c = &rm->memo[i];
        if (c->comm == s->coll_comm && c->seq == s->coll_seq) {
            *step |= c->step;
            return c->bound;
        }
    }
    int own = 0;
    int64_t b = coll_bound_compute(rm, r, &own);
    if (s->coll_comm != 0 && rm->nmemo < COLL_MEMOS) {
        rm->memo[rm->nmemo++] = (coll_memo){s->coll_comm, s->coll_seq, b, own};
    }
    *step |= own;
    return b;
}

/* The earliest virtual time at which rank r may still send (doc/virtual-
 * time.md, "Synchronisation"), from its state as last read; *step set when
 * that time depends on deliveries still to come (the model then advances
 * one event time at a time). */
static int64_t rank_bound(run_model *rm, int32_t r, int *step)
{
    const tmpi_vt_state *s = &rm->st[r];
    int64_t when = 0;
    int relaxed = rm->relaxed[r] == rm->ver[r];
    switch (s->mode) {
    case TMPI_VT_RUNNING:
        if (relaxed && s->in_mpi) {
            return INT64_MAX;
        }
        /* after a poll that found nothing the model may run the clock's own
         * picosecond: a send at the clock is then still not late */
        return s->poll && s->clock < INT64_MAX ? s->clock + 1 : s->clock;
    case TMPI_VT_WAIT:
        if (relaxed && s->src == r) {
            return INT64_MAX;
        }
        if (tmpi_vt_feed_delivery(rm->feed, (int32_t)s->src, s->seq, &when) == 0) {
            *step = 1;
            return INT64_MAX;
        }
        return max64(s->clock, when);
    case TMPI_VT_RECV: {
        int64_t d = relaxed ? INT64_MAX : recv_bound(rm, r, s->want);
        *step = 1;
        return d == INT64_MAX ? INT64_MAX : max64(s->clock, d);
    }
    case TMPI_VT_COLL:
        return coll_bound(rm, r, step);
    default:
        return INT64_MAX;
    }
}

static int64_t bound(run_model *rm, int *step)
{
    int64_t min = INT64_MAX, min2 = INT64_MAX;
    int32_t min_rank = -1;
    *step = 0;
    rm->nmemo = 0; /* the states may have changed since the last pass */
    for (int32_t r = 0; r < rm->feed->nranks; r++) {
        int64_t v = rank_bound(rm, r, step);
        if (v < min) {
            min2 = min;
            min = v;
            min_rank = r;
        } else if (v < min2) {
            min2 = v;
        }
    }
    /* kept for the polling ranks (publish_poll) */
    rm->bound_min2 = min2;
    rm->bound_min_rank = min_rank;
    return min;
}

/* Where the model waits, for ranks that poll (vt_feed.h): its next time
 * and the two smallest rank bounds of the last bound(). */
static void publish_poll(run_model *rm, int64_t limit, int64_t next)
{
    tmpi_vt_feed_poll_publish(rm->feed, next, limit, rm->bound_min_rank, rm->bound_min2);
}

/* The ranks asleep for a delivery published since the last call wake. */
static void wake_ranks(run_model *rm)
{
    if (rm->delivered) {
        rm->delivered = 0;
        tmpi_vt_feed_wake_ranks(rm->feed);
    }
}

/* Advance as far as the ranks allow: feed every message sent before the
 * bound and process the events before it, one event time at a time while
 * a rank's bound waits for a delivery (each delivery may lower it to its
 * time).  1 if anything happened. */
static int advance(run_model *rm)
{
    int progress = 0;
    for (;;) {
        int step = 0;
        int64_t limit = bound(rm, &step);
        int64_t next = temu_net_next_event(rm->net);
        if (!rm->sorted && rm->npend > 0) {
            qsort(rm->pend, rm->npend, sizeof *rm->pend, cmp_pending);
            rm->sorted = 1;
        }
        if (rm->npend > 0 && rm->pend[0].rec.when < next) {
            next = rm->pend[0].rec.when;
        }
        if (next >= limit || next == INT64_MAX) {
            publish_poll(rm, limit, next);
            wake_ranks(rm);
            return progress;
        }
        int64_t upto = step ? next : limit - 1;
        progress |= feed_upto(rm, upto);
        if (temu_net_next_event(rm->net) <= upto) {
            temu_net_run(rm->net, upto);
            progress = 1;
        }
        wake_ranks(rm);
    }
}

/* Add what the model counted since the last call to the store (each
 * counter the floor of its total in the hardware's unit, so the additions
 * sum to the model's totals). */
static void publish(run_model *rm)
{
    temu_error err;
    if (temu_net_now(rm->net) == rm->published_at && rm->messages == rm->published_msgs) {
        return; /* nothing happened in the model */
    }
    rm->published_at = temu_net_now(rm->net);
    rm->published_msgs = rm->messages;
    if (temu_net_stall_counters_flush(rm->net, rm->flushed, rm->s, &err) != TEMU_OK) {
        fail_once(rm, err.message);
    }
}

/* The ranks have let the model wait this long (host time) while some of
 * them sit in MPI calls: the stall rule lets those go (run_model.h). */
#define STALL_NS 2000000000ll

/* Let go the ranks that may be blocked in the host's MPI waiting for a rank
 * that waits for the model: RUNNING inside an MPI call, or in a receive
 * whose bound comes from a message it may never take. */
static void relax(run_model *rm)
{
    for (int32_t r = 0; r < rm->feed->nranks; r++) {
        const tmpi_vt_state *s = &rm->st[r];
        if ((s->mode == TMPI_VT_RUNNING && s->in_mpi) || s->mode == TMPI_VT_RECV ||
            (s->mode == TMPI_VT_WAIT && s->src == r)) {
            if (rm->relaxed[r] != rm->ver[r]) {
                rm->relaxed[r] = rm->ver[r];
                rm->relaxations++;
            }
        }
    }
}

/* A rank is computing (outside MPI): it will come back; nothing to let go. */
static int computing(const run_model *rm)
{
    for (int32_t r = 0; r < rm->feed->nranks; r++) {
        if (rm->st[r].mode == TMPI_VT_RUNNING && !rm->st[r].in_mpi) {
            return 1;
        }
    }
    return 0;
}

static void *model_thread(void *arg)
{
    run_model *rm = arg;
    int64_t published = host_ns(), moved = host_ns();
    unsigned idle = 0;
    while (!__atomic_load_n(&rm->stop, __ATOMIC_ACQUIRE)) {
        int progress = drain(rm); /* the states first, then the queues */
        progress |= advance(rm);
        int64_t now = host_ns();
        if (now - published >= PUBLISH_NS) {
            publish(rm);
            published = now;
        }
        /* the run moves when the model does, or while the relay across
         * hosts may still bring news (that is no reason to spin, though) */
        if (progress || tmpi_vt_feed_relay_busy(rm->feed, now)) {
            moved = now;
        }
        if (progress) {
            idle = 0;
        } else {
            int step = 0;
            if (now - moved >= STALL_NS && bound(rm, &step) < INT64_MAX && !computing(rm) &&
                (rm->npend > 0 || temu_net_next_event(rm->net) < INT64_MAX)) {
                relax(rm);
                moved = now;
            }
            /* the ranks usually answer within microseconds: yield first,
             * then sleep until one of them publishes something (it wakes
             * the model), at the latest at the next look at the counters */
            if (++idle < IDLE_YIELDS) {
                sched_yield();
            } else {
                int64_t left = PUBLISH_NS - (host_ns() - published);
                tmpi_vt_feed_model_sleep(rm->feed, rm->ver, left > 1000000 ? left : 1000000);
            }
        }
    }
    struct timespec cpu;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &cpu);
    rm->thread_cpu_ns = (int64_t)cpu.tv_sec * 1000000000ll + cpu.tv_nsec;
    return NULL;
}

/* Everything run_model_start made: the feed file goes too. */
static void release(run_model *rm)
{
    if (rm->feed != NULL) {
        tmpi_vt_feed_unmap(rm->feed);
        unlink(rm->path);
    }
    temu_net_free(rm->net);
    temu_tm_flushed_free(rm->flushed);
    free(rm->pend);
    for (int32_t r = 0; rm->cands != NULL && r < rm->nranks; r++) {
        free(rm->cands[r].v);
    }
    free(rm->cands);
    free(rm->dtimes);
    free(rm->left_seq1);
    free(rm->left_exit);
    free(rm->left_seen);
    free(rm->st);
    free(rm->ver);
    free(rm->relaxed);
    free(rm);
}

int run_model_start(run_model **out, temu_session *s, uint32_t level, uint32_t threads,
                    const char *feed_path, int32_t nranks, char *why, size_t len)
{
    temu_tm_config c;
    temu_error err;
    run_model *rm = calloc(1, sizeof *rm);
    *out = NULL;
    if (rm == NULL) {
        snprintf(why, len, "out of memory");
        return -1;
    }
    rm->s = s;
    rm->m = temu_session_machine(s);
    snprintf(rm->path, sizeof rm->path, "%s", feed_path);
    if (temu_tm_config_default(rm->m, &c, &err) != TEMU_OK ||
        /* the live volume counters are counted as the ranks send, along the
         * deterministic route, so the model routes that way too
         * (doc/virtual-time.md) */
        (c.routing = TEMU_TM_DETERMINISTIC, c.level = level,
         /* the packet level runs on the replays' engine (doc/model.md,
          * "Parallel engine"): the same results for every number of regions */
         c.threads = level == TEMU_TM_PACKET ? threads : 0,
         temu_net_create(rm->m, &c, &rm->net, &err)) != TEMU_OK ||
        temu_tm_flushed_create(rm->m, &rm->flushed, &err) != TEMU_OK) {
        snprintf(why, len, "timing model: %s", err.message);
        goto fail;
    }
    rm->nranks = nranks;
    rm->st = calloc((size_t)nranks + 1, sizeof *rm->st);
    rm->ver = calloc((size_t)nranks + 1, sizeof *rm->ver);
    rm->relaxed = calloc((size_t)nranks + 1, sizeof *rm->relaxed);
    rm->cands = calloc((size_t)nranks + 1, sizeof *rm->cands);
    rm->left_seen = calloc((size_t)nranks + 1, sizeof *rm->left_seen);
    if (nranks >= (1 << TAG_RANK_BITS)) {
        snprintf(why, len, "virtual time: at most %d ranks", (1 << TAG_RANK_BITS) - 1);
        goto fail;
    }
    if (rm->st == NULL || rm->ver == NULL || rm->relaxed == NULL || rm->cands == NULL ||
        rm->left_seen == NULL) {
        snprintf(why, len, "out of memory");
        goto fail;
    }
    rm->feed = tmpi_vt_feed_map(feed_path, 1, nranks, why, len);
    if (rm->feed == NULL) {
        goto fail;
    }
    for (int32_t r = 0; r < nranks; r++) {
        rm->relaxed[r] = UINT64_MAX; /* no state version is let go */
    }
    temu_net_set_arrival(rm->net, on_arrival, rm);
    if (pthread_create(&rm->thread, NULL, model_thread, rm) != 0) {
        snprintf(why, len, "cannot start the model thread");
        goto fail;
    }
    *out = rm;
    return 0;
fail:
    release(rm);
    return -1;
}

void run_model_finish(run_model *rm, uint64_t *messages, int64_t *end_ps, int64_t *cpu_ns)
{
    __atomic_store_n(&rm->stop, 1, __ATOMIC_RELEASE);
    tmpi_vt_feed_wake_model(rm->feed);
    pthread_join(rm->thread, NULL);
    /* every rank has ended: whatever they queued is all there is */
    drain(rm);
    feed_upto(rm, INT64_MAX);
    temu_net_run(rm->net, INT64_MAX);
    publish(rm);
    if (rm->late > 0 || rm->lost > 0 || rm->relaxations > 0) {
        fprintf(stderr,
                "torusemu: run: virtual time: %" PRIu64 " message(s) reached the timing model "
                "after it had passed their send time and %" PRIu64 " delivery time(s) were "
                "overwritten before use (%" PRIu64 " rank(s) blocked in MPI were let go after "
                "%d s without progress): the virtual times of this run may not repeat "
                "(doc/virtual-time.md)\n",
                rm->late, rm->lost, rm->relaxations, (int)(STALL_NS / 1000000000));
    }
    *messages = rm->messages;
    /* the model's own clock has run to the end of time once every rank
     * was done: the last packet's arrival is the figure */
    *end_ps = rm->last_arrival;
    *cpu_ns = rm->thread_cpu_ns;
    release(rm);
}
