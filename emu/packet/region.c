/*
 * region.c - the packet model's parallel engine (temu_tm_config.threads
 * > 0; doc/model.md, "Parallel engine").
 *
 * The machine is cut into N regions, slabs across its longest dimension
 * (engine_partition; a node goes with its router).  Each region has a
 * view of the model: a copy of the model's handle sharing its arrays
 * (channels, queues, statistics) but with its own event queue, train
 * slots, time and totals, run by one thread.  What a region owns: its
 * routers' channels (their state, waiters, credit as the sender knows
 * it, statistics), the input queues
 * at its routers (their trains, occupancy, the input-stall fields of the
 * channel feeding them) and its nodes.  Only three things cross a region's
 * edge, all later than the window's end:
 *   - a train crossing a torus link: it enters the downstream queue, whose
 *     head it may become no earlier than its header's arrival plus the
 *     router's latency (wire_ps + router_ps after it started);
 *   - a credit coming back upstream: credit_ps after the packet's tail was
 *     read out, itself at least one serialization of the smallest packet
 *     sent so far after the packet started leaving;
 *   - a train's credit stream (tm_return, flow.h), whole, fixed when the
 *     train's read-out starts: the upstream region takes it at its first
 *     credit's time, as late as a single packet's credit.  A queue's next
 *     train is read out only after the last one's, so its stream begins
 *     after the last one's ended and each stream comes back packet by
 *     packet to its end (the serial engine, which keeps one stream per
 *     queue from the read-out on, folds the rest of the last one into one
 *     return at the mean of its times).
 * A train's split (train.h) is decided by the sender from its credit
 * alone (all of it home or in the stream it holds: every train sent there
 * has begun its read-out), not from the downstream queue, which is
 * another region's.
 * So windows of that lookahead run in parallel: every region processes
 * its events up to the window's end, the trains and credits for other
 * regions wait in its out-boxes, and at the barrier each region takes
 * what came for it.  A train handed over enters its queue as it would
 * have when it started: if the queue is empty and its last head left
 * after that start (in the same window), the newcomer is its head from
 * when that one was read out, else from its start; at the very instant of
 * the start, the departure is after it if its event comes after the
 * start's by content (temu_evq_before), as the serial engine would mostly
 * have taken them.  Every torus crossing
 * goes this way, inside a region too, so one region (threads 1) and N
 * regions compute the same thing; events of one instant are ordered by
 * content (event.h), so no region's order depends on another's.
 *
 * The windows are the same whatever N (they start at the earliest event
 * of all regions), so the deliveries and hops the users' functions are
 * told of, collected per window and sorted (deliveries by time, tag,
 * creation, arrival; hops by start, channel and tag), come in the same
 * order for every N: each region sorts its own lists on its thread, and
 * the calling thread merges them straight into the users' functions at
 * the barrier.  Those functions must not send.  temu_tm_run_step also
 * ends a window at the first pending delivery and no later than one
 * ejection after its start (node_wire_ps + a serialization), so a driver
 * whose ranks answer a delivery at once (virtual time) sees the model
 * stop at that instant.
 */
#define TEMU_BUILDING_LIBRARY 1
#include "channel.h"
#include "event.h"
#include "flow.h"
#include "packet.h"
#include "train.h"

#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#ifdef __linux__
#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

/* A train that crossed a torus link into queue q, started at sent_at by
 * event `by`.  Inside its region it stays in its slot p; to another
 * region it travels as the copy tr (p -1). */
typedef struct tm_handover {
    int64_t sent_at, q;
    temu_event by;
    int32_t p;
    tm_train tr;
} tm_handover;

/* A train's credit stream (tm_return) for queue q, as the downstream
 * region fixed it when the train's read-out started: the upstream region
 * takes it at its first credit's time t0 (tm_engine_stream). */
typedef struct tm_stream {
    int64_t q;
    tm_return r;
} tm_stream;

/* What one region's events gave one region (itself included) in a window. */
typedef struct tm_box {
    tm_handover *ho;
    temu_event *cr; /* credits */
    tm_stream *st;  /* trains' credit streams */
    int64_t nho, capho, ncr, capcr, nst, capst;
} tm_box;

/* A delivery told at the barrier: the event's time, then the user's. */
typedef struct tm_delivery {
    int64_t t;
    uint64_t tag;
    int64_t created, at;
} tm_delivery;

/* A region's reports of one kind in a window (items of that kind's size),
 * and how far the barrier's merge has told them. */
typedef struct tm_list {
    void *v;
    int64_t n, cap, told;
} tm_list;

/* The kinds of reports: hops of even and of odd windows (a window's hops
 * are told while the regions run the next one), and deliveries. */
enum { REP_HOPS, REP_HOPS_ODD, REP_DELIVERIES, REP_KINDS };

/* What a region tells the others at a barrier (by window parity). */
typedef struct tm_published {
    int64_t next;       /* its earliest event (INT64_MAX: none) */
    int64_t deliver;    /* its earliest pending delivery          */
    int stop; /* region 0's: the driver answers the window's deliveries */
    int oom;
} tm_published;

typedef struct tm_region {
    temu_tm v;   /* the region's view of the model */
    tm_box *out; /* [n] for each region */
    int64_t *dheap;
    int64_t ndh, capdh; /* pending deliveries' times, a min-heap */
    tm_list rep[REP_KINDS]; /* hops (temu_tm_hop), deliveries (tm_delivery) */
    int hops;               /* the list of this window's hops: REP_HOPS + its parity */
    uint64_t delivered, crossings;
    uint64_t wait_ns, sleeps; /* at the barriers: time waited, futex sleeps */
    uint64_t handovers;       /* trains taken in, from itself too */
    uint64_t hops_now;        /* hops the model's hop_now counted on this thread */
    uint64_t win_events; /* events of the window just run */
    tm_published pub[2];
    tm_return *st;     /* streams taken in, waiting for their t0 (slots) */
    int32_t *st_free;  /* free slots of st, a stack */
    int64_t nst, capst, nfree, capfree;
    pthread_t th;
    int started;
} tm_region;

/* A barrier that spins a little, then sleeps until the last thread comes
 * (the threads share cores with other work: a spinning thread can keep
 * the one it waits for off the core). */
typedef struct tm_barrier {
    atomic_uint count, gen, sleepers;
    unsigned n;
    unsigned spins; /* polls of gen before sleeping (BARRIER_SPINS_*) */
} tm_barrier;

struct tm_engine {
    temu_tm *t; /* the model's own handle: the users' functions, the time */
    int n;
    tm_region *reg;
    int32_t *region_of;          /* [nrouters] */
    int64_t *popped_at, *free_at; /* [ntorus * nvc] torus queues' last departure, and its read-out end */
    temu_event *popped_by;        /* [ntorus * nvc] the event it happened in */
    int64_t hop_ps;              /* wire_ps + router_ps */
    double fast_ppb, node_ppb;   /* ps per byte: fastest torus lane, a node's channels */
    uint32_t min_bytes;          /* smallest packet sent so far */
    int64_t until; /* the advance under way */
    int stop;      /* temu_tm_run_step: stop after deliveries ... */
    const int32_t *answer; /* ... that made this non-zero (NULL: any) */
    int stopped;
    int64_t last_end; /* the last window's end */
    uint64_t windows, advances;
    uint64_t critical; /* each window's busiest region's events, summed */
    uint64_t serial_ns;  /* thread 0 alone at the barrier: deliveries told, stop decided */
    uint64_t hops_ns;    /* thread 0 telling a window's hops while the others run the next */
    int *live;           /* [n] regions with reports left, in the merge */
    tm_barrier bar;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    atomic_uint epoch; /* one more per advance: the workers start */
    int quit;
    int sync_ok; /* mu and cv made */
};

/* ------------------------------------------------------------ barrier */

static uint64_t clock_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Sleep while *a holds v (or return at once if it no longer does). */
static void barrier_sleep(atomic_uint *a, unsigned v)
{
#ifdef __linux__
    syscall(SYS_futex, (unsigned *)a, FUTEX_WAIT_PRIVATE, v, NULL, NULL, 0);
#else
    (void)a;
    (void)v;
    sched_yield();
#endif
}

static void barrier_wake(atomic_uint *a)
{
#ifdef __linux__
    syscall(SYS_futex, (unsigned *)a, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
#else
    (void)a;
#endif
}

/* Spins before sleeping.  When every thread has a core of its own, a
 * window's barrier is met within tens of microseconds and a futex sleep
 * and wake-up costs about as much again (measured on this 2-core host: the
 * Gemini 8x8x8 halo ran 0.11 x as fast on 2 threads as on 1 with a 2 us
 * spin, 1.4-1.6 x with about 400 us); with more threads than online cores
 * a spinning thread keeps the one it waits for off its core, so it spins
 * only about 2 us before it sleeps. */
#define BARRIER_SPINS_OWN_CORES 200000
#define BARRIER_SPINS_SHARED 1000

/* The last thread to arrive moves gen on and wakes the sleepers: the
 * arrival (count), the sleepers' count and gen are sequentially
 * consistent, so either the last thread sees a sleeper or the sleeper
 * sees the new gen before it sleeps. */
static void barrier_wait(tm_barrier *b, tm_region *r)
{
    if (b->n == 1) {
        return;
    }
    uint64_t t0 = clock_ns();
    unsigned gen = atomic_load(&b->gen);
    if (atomic_fetch_add(&b->count, 1) + 1 == b->n) {
        atomic_store(&b->count, 0);
        atomic_fetch_add(&b->gen, 1);
        if (atomic_load(&b->sleepers) > 0) {
            barrier_wake(&b->gen);
        }
    } else {
        unsigned spin = 0;
        while (atomic_load_explicit(&b->gen, memory_order_acquire) == gen && spin < b->spins) {
            spin++;
        }
        if (spin == b->spins) {
            atomic_fetch_add(&b->sleepers, 1);
            while (atomic_load(&b->gen) == gen) {
                r->sleeps++;
                barrier_sleep(&b->gen, gen);
            }
            atomic_fetch_sub(&b->sleepers, 1);
        }
    }
    r->wait_ns += clock_ns() - t0;
}

/* ------------------------------------------------------------ growth */

/* Room for one more of `size` bytes in *a (n used, *cap allocated): 0, or
 * -1 when out of memory. */
static int grow(void **a, int64_t n, int64_t *cap, size_t size)
{
    if (n < *cap) {
        return 0;
    }
    int64_t c = *cap ? 2 * *cap : 256;
    void *p = realloc(*a, (size_t)c * size);
    if (p == NULL) {
        return -1;
    }
    *a = p;
    *cap = c;
    return 0;
}

/* ------------------------------------------------------------ ownership */

static int chan_region(const struct tm_engine *e, const temu_tm *t, int64_t c)
{
    if (c < t->ntorus) {
        return e->region_of[c / t->maxlanes / t->tlinks];
    }
    return e->region_of[t->node_router[(c - t->ntorus) % t->m.nnodes]];
}

/* Region of torus queue q (its channel's downstream router). */
static int queue_region(const struct tm_engine *e, const temu_tm *t, int64_t q)
{
    return e->region_of[t->nbr[q / t->nvc / t->maxlanes]];
}

/* ------------------------------------------------------------ deliveries heap */

static int dheap_push(tm_region *r, int64_t when)
{
    if (grow((void **)&r->dheap, r->ndh, &r->capdh, sizeof *r->dheap) != 0) {
        return -1;
    }
    int64_t i = r->ndh++;
    while (i > 0 && r->dheap[(i - 1) / 2] > when) {
        r->dheap[i] = r->dheap[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    r->dheap[i] = when;
    return 0;
}

static void dheap_pop(tm_region *r)
{
    int64_t last = r->dheap[--r->ndh], i = 0;
    for (;;) {
        int64_t k = 2 * i + 1;
        if (k >= r->ndh) {
            break;
        }
        if (k + 1 < r->ndh && r->dheap[k + 1] < r->dheap[k]) {
            k++;
        }
        if (r->dheap[k] >= last) {
            break;
        }
        r->dheap[i] = r->dheap[k];
        i = k;
    }
    if (r->ndh > 0) {
        r->dheap[i] = last;
    }
}

/* ------------------------------------------------------------ the router's calls */

int tm_engine_push(temu_tm *t, const tm_event_slot *s)
{
    struct tm_engine *e = t->eng;
    tm_region *r = &e->reg[t->rid];
    if (s->ev.type == TM_EV_CREDIT) {
        int o = chan_region(e, t, s->ev.credit.chan);
        if (o != t->rid) {
            tm_box *b = &r->out[o];
            if (grow((void **)&b->cr, b->ncr, &b->capcr, sizeof *b->cr) != 0) {
                t->oom = 1;
                return -1;
            }
            b->cr[b->ncr++] = s->raw;
            return 0;
        }
    } else if (s->ev.type == TM_EV_DELIVER && dheap_push(r, s->ev.t) != 0) {
        t->oom = 1;
        return -1;
    }
    if (temu_evq_push(&t->events, &s->raw) != 0) {
        t->oom = 1;
        return -1;
    }
    return 0;
}

void tm_engine_handover(temu_tm *t, int64_t q, int32_t p)
{
    struct tm_engine *e = t->eng;
    int o = queue_region(e, t, q);
    tm_box *b = &e->reg[t->rid].out[o];
    if (grow((void **)&b->ho, b->nho, &b->capho, sizeof *b->ho) != 0) {
        t->oom = 1; /* the train is lost: the run stops */
        return;
    }
    tm_handover *h = &b->ho[b->nho++];
    h->sent_at = t->now;
    h->q = q;
    h->by = t->cur;
    if (o == t->rid) {
        h->p = p; /* no copy: a slot's number orders nothing (event.h) */
        return;
    }
    h->p = -1;
    h->tr = t->tr[p];
    tm_train_free(t, p);
}

void tm_engine_popped(temu_tm *t, int64_t q, int64_t free_at)
{
    if (q < t->ntorus * t->nvc) {
        t->eng->popped_at[q] = t->now;
        t->eng->free_at[q] = free_at;
        t->eng->popped_by[q] = t->cur;
    }
}

void tm_engine_stream(temu_tm *t, int64_t q, const tm_train *tr, uint32_t n, int64_t sp,
                      int64_t t0)
{
    struct tm_engine *e = t->eng;
    tm_box *b = &e->reg[t->rid].out[chan_region(e, t, q / t->nvc)];
    if (grow((void **)&b->st, b->nst, &b->capst, sizeof *b->st) != 0) {
        t->oom = 1; /* the credit is lost: the run stops */
        return;
    }
    b->st[b->nst++] = (tm_stream){
        q, {.t0 = t0, .sp = sp, .woken_at = -1, .n = n, .nbig = tr->nbig < n ? tr->nbig : n,
            .big = tr->bytes, .small = tr->small}};
}

/* Region r keeps stream s until its t0: a CREDIT event of the queue's
 * channel and VC whose bytes, negative, name its slot (an event's content
 * orders it, event.h: a queue has at most one stream starting at one
 * instant, as its trains' read-outs do not overlap). */
static int stream_keep(tm_region *r, const tm_stream *s)
{
    temu_tm *v = &r->v;
    int32_t k;
    if (r->nfree > 0) {
        k = r->st_free[--r->nfree];
    } else {
        if (grow((void **)&r->st, r->nst, &r->capst, sizeof *r->st) != 0 ||
            grow((void **)&r->st_free, r->nst, &r->capfree, sizeof *r->st_free) != 0 ||
            r->nst >= INT32_MAX) {
            return -1;
        }
        k = (int32_t)r->nst++;
    }
    r->st[k] = s->r;
    tm_event_slot ev = {.ev = {.t = s->r.t0,
                               .type = TM_EV_CREDIT,
                               .credit = {(int32_t)(s->q / v->nvc), (int32_t)(s->q % v->nvc),
                                          -1 - k}}};
    return temu_evq_push(&v->events, &ev.raw);
}

void tm_engine_stream_in(temu_tm *t, int64_t c, int vc, int32_t slot)
{
    tm_region *r = &t->eng->reg[t->rid];
    int64_t q = c * t->nvc + vc;
    tm_return *old = &t->ret[q];
    tm_flow_settle(t, q);
    if (old->n > 0) {
        /* not met so far: a queue's next train is read out after the last
         * one's, so its stream starts after the last one's ended; kept as
         * the serial engine does (tm_flow_give_back) */
        tm_event_credit(t, old->t0 + (int64_t)(old->n - 1) * old->sp / 2, (int32_t)c, vc,
                        (int32_t)tm_train_incoming(t, q));
    }
    *old = r->st[slot];
    r->st_free[r->nfree++] = slot; /* room: st_free grows with st */
}

temu_tm *tm_engine_sender(temu_tm *t, int64_t src, uint32_t bytes)
{
    struct tm_engine *e = t->eng;
    if (bytes > 0 && bytes < e->min_bytes) {
        e->min_bytes = bytes;
    }
    return &e->reg[e->region_of[t->node_router[src]]].v;
}

/* ------------------------------------------------------------ buffered reports */

static void region_deliver(void *ctx, uint64_t tag, int64_t created, int64_t at)
{
    tm_region *r = ctx;
    tm_list *l = &r->rep[REP_DELIVERIES];
    if (grow(&l->v, l->n, &l->cap, sizeof(tm_delivery)) != 0) {
        r->v.oom = 1;
        return;
    }
    ((tm_delivery *)l->v)[l->n++] = (tm_delivery){r->v.now, tag, created, at};
}

/* A hop of the region's: counted here if the users' hop_now takes it,
 * else kept for thread 0 to tell in order. */
static void region_hop(void *ctx, const temu_tm_hop *h)
{
    tm_region *r = ctx;
    const temu_tm *t = r->v.eng->t;
    if (t->hop_now != NULL && t->hop_now(t->hop_now_ctx, h)) {
        r->hops_now++;
        return;
    }
    tm_list *l = &r->rep[r->hops];
    if (grow(&l->v, l->n, &l->cap, sizeof *h) != 0) {
        r->v.oom = 1;
        return;
    }
    ((temu_tm_hop *)l->v)[l->n++] = *h;
}

static int cmp_i64(int64_t a, int64_t b)
{
    return a < b ? -1 : a > b;
}

static int cmp_delivery(const void *x, const void *y)
{
    const tm_delivery *a = x, *b = y;
    int c = cmp_i64(a->t, b->t);
    c = c ? c : (a->tag > b->tag) - (a->tag < b->tag);
    c = c ? c : cmp_i64(a->created, b->created);
    return c ? c : cmp_i64(a->at, b->at);
}

/* Hops by start, then where (kind, node, router, link, lane), then what;
 * field by field, most hops differ in the first or second. */
static int cmp_hop(const void *x, const void *y)
{
    const temu_tm_hop *a = x, *b = y;
    int c = cmp_i64(a->start_ps, b->start_ps);
    c = c ? c : cmp_i64(a->kind, b->kind);
    c = c ? c : cmp_i64(a->node, b->node);
    c = c ? c : cmp_i64(a->router, b->router);
    c = c ? c : cmp_i64(a->link, b->link);
    c = c ? c : cmp_i64(a->lane, b->lane);
    c = c ? c : cmp_i64((int64_t)a->tag, (int64_t)b->tag);
    c = c ? c : cmp_i64(a->packets, b->packets);
    c = c ? c : cmp_i64((int64_t)a->bytes, (int64_t)b->bytes);
    return c ? c : cmp_i64(a->spacing_ps, b->spacing_ps);
}

/* Each kind's item size and order. */
static const struct {
    size_t size;
    int (*cmp)(const void *, const void *);
} rep_kind[REP_KINDS] = {{sizeof(temu_tm_hop), cmp_hop},
                         {sizeof(temu_tm_hop), cmp_hop},
                         {sizeof(tm_delivery), cmp_delivery}};

static const void *list_at(const tm_list *l, int kind, int64_t i)
{
    return (const char *)l->v + (size_t)i * rep_kind[kind].size;
}

/* A region's own reports of the window in their order (its thread, before
 * the barrier): sorted unless in order already (they mostly are: by
 * time, out of order only within an instant). */
static void region_reports_sort(tm_region *r)
{
    for (int k = 0; k < REP_KINDS; k++) {
        tm_list *l = &r->rep[k];
        if (k != REP_DELIVERIES && k != r->hops) {
            continue; /* the last window's hops: thread 0 may be telling them */
        }
        l->told = 0;
        for (int64_t i = 1; i < l->n; i++) {
            if (rep_kind[k].cmp(list_at(l, k, i - 1), list_at(l, k, i)) > 0) {
                qsort(l->v, (size_t)l->n, rep_kind[k].size, rep_kind[k].cmp);
                break;
            }
        }
    }
}

static void report_tell(const temu_tm *t, int kind, const void *x)
{
    if (kind != REP_DELIVERIES) {
        t->hop(t->hop_ctx, x);
    } else {
        const tm_delivery *d = x;
        t->deliver(t->ctx, d->tag, d->created, d->at);
    }
}

/* The window's reports of one kind, every region's list sorted, merged
 * straight into the user's function. */
static void reports_merge(struct tm_engine *e, int kind)
{
    int nl = 0;
    for (int i = 0; i < e->n; i++) {
        if (e->reg[i].rep[kind].n > 0) {
            e->live[nl++] = i;
        }
    }
    while (nl > 0) {
        int best = 0;
        for (int k = 1; k < nl; k++) {
            const tm_list *a = &e->reg[e->live[k]].rep[kind], *b = &e->reg[e->live[best]].rep[kind];
            if (rep_kind[kind].cmp(list_at(a, kind, a->told), list_at(b, kind, b->told)) < 0) {
                best = k;
            }
        }
        tm_list *l = &e->reg[e->live[best]].rep[kind];
        report_tell(e->t, kind, list_at(l, kind, l->told++));
        if (l->told == l->n) {
            l->n = 0;
            e->live[best] = e->live[--nl];
        }
    }
}

/* ------------------------------------------------------------ windows */

/* The lookahead: nothing a region does reaches another sooner (ps). */
static int64_t lookahead(const struct tm_engine *e)
{
    const temu_tm_config *c = &e->t->c;
    int64_t l = c->credit_ps + tm_ser_ps(e->fast_ppb, e->min_bytes);
    l = l < e->hop_ps ? l : e->hop_ps;
    return l > 1 ? l : 1;
}

/* No delivery is scheduled sooner than this after its cause (ps). */
static int64_t deliver_ahead(const struct tm_engine *e)
{
    int64_t l = e->t->c.node_wire_ps + tm_ser_ps(e->node_ppb, e->min_bytes);
    return l > 1 ? l : 1;
}

/* The next window's end into *end from what the regions published (par):
 * 1, or 0 when the advance is over.  Every thread decides alike. */
static int window_next(const struct tm_engine *e, int par, int64_t *end)
{
    int64_t w = INT64_MAX, d = INT64_MAX;
    int oom = 0;
    for (int i = 0; i < e->n; i++) {
        const tm_published *p = &e->reg[i].pub[par];
        w = p->next < w ? p->next : w;
        d = p->deliver < d ? p->deliver : d;
        oom |= p->oom;
    }
    if (oom || e->reg[0].pub[par].stop || w == INT64_MAX || w > e->until) {
        return 0;
    }
    int64_t l = lookahead(e), x = w > INT64_MAX - l ? INT64_MAX : w + l - 1;
    if (e->stop) {
        int64_t la = deliver_ahead(e), y = w > INT64_MAX - la ? INT64_MAX : w + la - 1;
        x = y < x ? y : x;
        x = d < x ? d : x;
    }
    *end = x < e->until ? x : e->until;
    return 1;
}

/* Region i's events up to end. */
static void window_run(tm_region *r, int64_t end)
{
    uint64_t before = r->v.tot.events;
    tm_router_run_events(&r->v, end);
    r->win_events = r->v.tot.events - before;
    region_reports_sort(r);
    r->delivered = 0;
    while (r->ndh > 0 && r->dheap[0] <= end) {
        dheap_pop(r);
        r->delivered++;
    }
}

/* Region i takes what every region's window gave it. */
static void window_absorb(struct tm_engine *e, int i)
{
    tm_region *r = &e->reg[i];
    temu_tm *v = &r->v;
    for (int s = 0; s < e->n; s++) {
        tm_box *b = &e->reg[s].out[i];
        for (int64_t k = 0; k < b->nho && !v->oom; k++) {
            const tm_handover *h = &b->ho[k];
            int32_t p = h->p;
            if (p < 0 && (p = tm_train_alloc(v)) < 0) {
                v->oom = 1;
                break;
            }
            if (h->p < 0) {
                v->tr[p] = h->tr;
            }
            /* its queue emptied after it started (at the same instant: by
             * an event after its own, by content): it is the head from the
             * read-out of the one that left */
            int64_t at = e->popped_at[h->q];
            int after = at > h->sent_at ||
                        (at == h->sent_at && temu_evq_before(&h->by, &e->popped_by[h->q]));
            int64_t head = after ? e->free_at[h->q] : h->sent_at;
            tm_router_arrive(v, h->q, p, head);
        }
        for (int64_t k = 0; k < b->ncr; k++) {
            if (temu_evq_push(&v->events, &b->cr[k]) != 0) {
                v->oom = 1;
            }
        }
        for (int64_t k = 0; k < b->nst; k++) {
            if (stream_keep(r, &b->st[k]) != 0) {
                v->oom = 1;
            }
        }
        if (s != i) {
            r->crossings += (uint64_t)(b->nho + b->ncr + b->nst);
        }
        r->handovers += (uint64_t)b->nho;
        b->nho = b->ncr = b->nst = 0;
    }
}

static void region_publish(tm_region *r, int par, int stop)
{
    tm_published *p = &r->pub[par];
    p->next = temu_evq_next_time(&r->v.events);
    p->deliver = r->ndh > 0 ? r->dheap[0] : INT64_MAX;
    p->stop = stop;
    p->oom = r->v.oom;
}

/* Does the advance stop after this window (thread 0, at the barrier, the
 * deliveries told)?  Also sums the busiest region's events (the window's
 * critical path, of the speed-up the partition allows). */
static int window_stops(struct tm_engine *e)
{
    uint64_t got = 0, most = 0;
    for (int i = 0; i < e->n; i++) {
        got += e->reg[i].delivered;
        most = e->reg[i].win_events > most ? e->reg[i].win_events : most;
    }
    e->critical += most;
    e->stopped = e->stop && got > 0 && (e->answer == NULL || *e->answer != 0);
    return e->stopped;
}

/* One advance, run by every thread i alike (thread 0 is the caller's). */
static void engine_windows(struct tm_engine *e, int i)
{
    tm_region *r = &e->reg[i];
    int par = 0, stop = 0;
    int64_t end;
    region_publish(r, par, 0);
    barrier_wait(&e->bar, r);
    while (window_next(e, par, &end)) {
        if (i == 0) {
            e->last_end = end;
            e->windows++;
        }
        r->hops = REP_HOPS + par;
        if (i == 0) {
            /* the last window's hops, while the other regions run this one */
            uint64_t t0 = clock_ns();
            reports_merge(e, REP_HOPS + (par ^ 1));
            e->hops_ns += clock_ns() - t0;
        }
        window_run(r, end);
        barrier_wait(&e->bar, r);
        window_absorb(e, i);
        if (i == 0) {
            uint64_t t0 = clock_ns();
            reports_merge(e, REP_DELIVERIES);
            stop = window_stops(e);
            e->serial_ns += clock_ns() - t0;
        }
        par ^= 1;
        region_publish(r, par, stop);
        barrier_wait(&e->bar, r);
    }
    if (i == 0) {
        uint64_t t0 = clock_ns();
        reports_merge(e, REP_HOPS + (par ^ 1)); /* the advance's last window's */
        e->serial_ns += clock_ns() - t0;
    }
    barrier_wait(&e->bar, r); /* all have decided before the caller goes on */
}

static void *worker_main(void *arg)
{
    tm_region *r = arg;
    struct tm_engine *e = r->v.eng;
    unsigned seen = 0;
    for (;;) {
        /* a short spin (the ranks' answer to a delivery is often quick),
         * then asleep: a yielding thread still takes the core from others */
        unsigned spin = 0;
        while (atomic_load_explicit(&e->epoch, memory_order_acquire) == seen &&
               spin < 4 * e->bar.spins) {
            spin++;
        }
        pthread_mutex_lock(&e->mu);
        while (atomic_load_explicit(&e->epoch, memory_order_acquire) == seen && !e->quit) {
            pthread_cond_wait(&e->cv, &e->mu);
        }
        int quit = e->quit;
        seen = atomic_load_explicit(&e->epoch, memory_order_acquire);
        pthread_mutex_unlock(&e->mu);
        if (quit) {
            return NULL;
        }
        engine_windows(e, r->v.rid);
    }
}

int64_t tm_engine_run(temu_tm *t, int64_t until_ps, int stop, const int32_t *answer)
{
    struct tm_engine *e = t->eng;
    int64_t now = t->now;
    if (t->oom) {
        return t->now;
    }
    e->until = until_ps;
    e->stop = stop;
    e->answer = answer;
    e->advances++;
    e->stopped = 0;
    pthread_mutex_lock(&e->mu);
    atomic_fetch_add_explicit(&e->epoch, 1, memory_order_release);
    pthread_cond_broadcast(&e->cv);
    pthread_mutex_unlock(&e->mu);
    engine_windows(e, 0);
    for (int i = 0; i < e->n; i++) {
        tm_region *r = &e->reg[i];
        now = r->v.now > now ? r->v.now : now;
        t->oom |= r->v.oom;
    }
    if (!e->stopped && until_ps != INT64_MAX && until_ps > now) {
        now = until_ps;
    }
    t->now = now;
    for (int i = 0; i < e->n; i++) {
        e->reg[i].v.now = now;
    }
    return now;
}

int64_t temu_tm_run_step(temu_tm *t, int64_t until_ps, const int32_t *answer)
{
    if (t->eng != NULL) {
        return tm_engine_run(t, until_ps, 1, answer);
    }
    for (;;) {
        int64_t tn = temu_tm_next_event(t);
        uint64_t pending = t->pending;
        if (tn > until_ps || t->oom) {
            return temu_tm_run(t, until_ps);
        }
        temu_tm_run(t, tn);
        if (t->pending != pending && (answer == NULL || *answer != 0)) {
            return tn; /* packets were delivered at tn, and answered */
        }
    }
}

/* ------------------------------------------------------------ the engine's life */

/* The regions' views of model t: copies sharing its arrays, each with
 * nothing of its own yet. */
static int views_make(struct tm_engine *e, temu_tm *t)
{
    for (int i = 0; i < e->n; i++) {
        tm_region *r = &e->reg[i];
        temu_tm *v = &r->v;
        memcpy(v, t, sizeof *v);
        v->tr = NULL;
        v->tr_block = NULL;
        v->ntr = v->captr = 0;
        v->freetr = -1;
        temu_evq_init(&v->events);
        v->now = 0;
        v->pending = 0;
        memset(&v->tot, 0, sizeof v->tot);
        v->oom = 0;
        v->deliver = NULL;
        v->hop = NULL;
        v->eng = e;
        v->rid = i;
        r->out = calloc((size_t)e->n, sizeof *r->out);
        if (r->out == NULL) {
            return -1;
        }
    }
    return 0;
}

/* The machine's lookahead figures: flight plus router latency, the
 * fastest torus lane's and the nodes' ps per byte. */
static void engine_rates(struct tm_engine *e, const temu_tm *t)
{
    e->hop_ps = t->c.wire_ps + t->c.router_ps;
    e->node_ppb = 1000.0 / t->c.node_gbs;
    e->fast_ppb = e->node_ppb;
    for (int64_t c = 0; c < t->ntorus; c++) {
        double ppb = t->ch[c].ps_per_byte;
        if (ppb > 0 && ppb < e->fast_ppb) {
            e->fast_ppb = ppb;
        }
    }
    e->min_bytes = t->c.max_packet;
}

/* Regions as slabs across the longest dimension (the first of equal
 * ones): consecutive blocks of the routers numbered with that dimension
 * the slowest, so a slab's faces are the machine's smallest cross
 * section and N above that dimension's size cuts slabs further. */
static void engine_partition(struct tm_engine *e, const temu_machine *m)
{
    int d = 0;
    for (int k = 1; k < m->ndims; k++) {
        d = m->size[k] > m->size[d] ? k : d;
    }
    int64_t below = 1; /* routers per step of dimension d in the machine's numbering */
    for (int k = d + 1; k < m->ndims; k++) {
        below *= m->size[k];
    }
    int64_t per = m->nrouters / m->size[d]; /* routers per plane across d */
    for (int64_t r = 0; r < m->nrouters; r++) {
        int64_t x = r / below % m->size[d];           /* the coordinate along d */
        int64_t rest = r / below / m->size[d] * below + r % below; /* within its plane */
        e->region_of[r] = (int32_t)((x * per + rest) * e->n / m->nrouters);
    }
}

static int workers_start(struct tm_engine *e)
{
    for (int i = 1; i < e->n; i++) {
        if (pthread_create(&e->reg[i].th, NULL, worker_main, &e->reg[i]) != 0) {
            return -1;
        }
        e->reg[i].started = 1;
    }
    return 0;
}

temu_status tm_engine_create(temu_tm *t, temu_error *err)
{
    int n = (int)t->c.threads;
    struct tm_engine *e = calloc(1, sizeof *e);
    if (e == NULL) {
        return temu_fail(err, TEMU_ENOMEM, "timing model: out of memory for %d regions", n);
    }
    t->eng = e;
    t->rid = -1;
    e->t = t;
    e->n = n;
    e->reg = calloc((size_t)n, sizeof *e->reg);
    e->region_of = malloc((size_t)t->m.nrouters * sizeof *e->region_of);
    e->popped_at = calloc((size_t)(t->ntorus * t->nvc), sizeof *e->popped_at);
    e->free_at = calloc((size_t)(t->ntorus * t->nvc), sizeof *e->free_at);
    e->popped_by = calloc((size_t)(t->ntorus * t->nvc), sizeof *e->popped_by);
    e->live = calloc((size_t)n, sizeof *e->live);
    e->bar.n = (unsigned)n;
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    e->bar.spins = cores >= n ? BARRIER_SPINS_OWN_CORES : BARRIER_SPINS_SHARED;
    if (pthread_mutex_init(&e->mu, NULL) == 0 && pthread_cond_init(&e->cv, NULL) == 0) {
        e->sync_ok = 1;
    }
    if (!e->reg || !e->region_of || !e->popped_at || !e->free_at || !e->popped_by || !e->live ||
        !e->sync_ok || views_make(e, t) != 0) {
        return temu_fail(err, TEMU_ENOMEM, "timing model: out of memory for %d regions", n);
    }
    engine_partition(e, &t->m);
    engine_rates(e, t);
    if (workers_start(e) != 0) {
        return temu_fail(err, TEMU_ENOMEM, "timing model: cannot start %d threads", n);
    }
    return TEMU_OK;
}

void tm_engine_destroy(temu_tm *t)
{
    struct tm_engine *e = t->eng;
    if (e == NULL) {
        return;
    }
    if (e->sync_ok) {
        pthread_mutex_lock(&e->mu);
        e->quit = 1;
        pthread_cond_broadcast(&e->cv);
        pthread_mutex_unlock(&e->mu);
    }
    for (int i = 0; e->reg != NULL && i < e->n; i++) {
        tm_region *r = &e->reg[i];
        if (r->started) {
            pthread_join(r->th, NULL);
        }
        for (int k = 0; r->out != NULL && k < e->n; k++) {
            free(r->out[k].ho);
            free(r->out[k].cr);
            free(r->out[k].st);
        }
        free(r->out);
        free(r->v.tr_block);
        temu_evq_free(&r->v.events);
        free(r->dheap);
        free(r->st);
        free(r->st_free);
        for (int k = 0; k < REP_KINDS; k++) {
            free(r->rep[k].v);
        }
    }
    if (e->sync_ok) {
        pthread_mutex_destroy(&e->mu);
        pthread_cond_destroy(&e->cv);
    }
    free(e->reg);
    free(e->region_of);
    free(e->popped_at);
    free(e->free_at);
    free(e->popped_by);
    free(e->live);
    free(e);
    t->eng = NULL;
}

void tm_engine_callbacks(temu_tm *t)
{
    struct tm_engine *e = t->eng;
    for (int i = 0; i < e->n; i++) {
        tm_region *r = &e->reg[i];
        r->v.deliver = t->deliver != NULL ? region_deliver : NULL;
        r->v.ctx = r;
        r->v.hop = t->hop != NULL ? region_hop : NULL;
        r->v.hop_ctx = r;
    }
}

/* ------------------------------------------------------------ the whole's figures */

void tm_engine_totals(const temu_tm *t, temu_tm_totals *out)
{
    memset(out, 0, sizeof *out);
    for (int i = 0; i < t->eng->n; i++) {
        const temu_tm_totals *x = &t->eng->reg[i].v.tot;
        out->packet_hops += x->packet_hops;
        out->train_hops += x->train_hops;
        out->events += x->events;
    }
}

int64_t tm_engine_next(const temu_tm *t)
{
    int64_t w = INT64_MAX;
    for (int i = 0; i < t->eng->n; i++) {
        int64_t x = temu_evq_next_time(&t->eng->reg[i].v.events);
        w = x < w ? x : w;
    }
    return w;
}

uint64_t tm_engine_pending(const temu_tm *t)
{
    uint64_t n = 0; /* a region's count may wrap: sent in one, delivered in another */
    for (int i = 0; i < t->eng->n; i++) {
        n += t->eng->reg[i].v.pending;
    }
    return n;
}

int tm_engine_oom(const temu_tm *t)
{
    int oom = t->oom;
    for (int i = 0; i < t->eng->n; i++) {
        oom |= t->eng->reg[i].v.oom;
    }
    return oom;
}

void temu_tm_sync_stats_get(const temu_tm *t, temu_tm_sync_stats *out)
{
    memset(out, 0, sizeof *out);
    if (t->eng == NULL) {
        return;
    }
    temu_tm_totals tot;
    tm_engine_totals(t, &tot);
    out->windows = t->eng->windows;
    out->advances = t->eng->advances;
    out->events = tot.events;
    out->critical = t->eng->critical;
    out->serial_ns = t->eng->serial_ns;
    out->hops_ns = t->eng->hops_ns;
    for (int i = 0; i < t->eng->n; i++) {
        const tm_region *r = &t->eng->reg[i];
        out->crossings += r->crossings;
        out->wait_ns += r->wait_ns;
        out->sleeps += r->sleeps;
        out->handovers += r->handovers;
        out->hops_now += r->hops_now;
    }
    out->lookahead_ps = lookahead(t->eng);
    out->regions = (uint32_t)t->eng->n;
}
