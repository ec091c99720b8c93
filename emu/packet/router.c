/*
 * router.c - the packet model's router: what each event (event.h) does,
 * stage by stage, as a BookSim router's pipeline runs (buffer, route
 * computation, VC and switch allocation, switch traversal):
 *
 *   queue     A train enters an input queue (or its node's source queue);
 *             the first in a queue is its head.  The head is READY when it
 *             may leave: router_ps after its header arrived (no delay in a
 *             source queue), not before the train ahead of it was read out
 *             (in a router's input queue: turn_ps after that, the VC
 *             turnaround),
 *             and not so early that its tail would be overtaken on a faster
 *             channel (become_head).
 *   route     READY: the routing function gives the channels the head may
 *             take (routing.h: its next channel; an adaptive head still
 *             choosing, every productive one); it waits at each of them
 *             (arbiter.h), and its queue's input stall opens (stats.h).
 *             A routed head whose channel is idle, wanted by nobody else
 *             and has its credit goes at once (go_at_once), as it would
 *             as that channel's one waiter.
 *   allocate  TRY (the channel is free, or an ejection channel's trains
 *             leave it room) and CREDIT (space known free downstream): if
 *             the channel may take a train, the arbiter picks one waiter
 *             (arbiter.h) and the train's share that goes now (train.h);
 *             an adaptive head fixes its route and leaves its other
 *             channels.  No waiter with credit: the channel's credit
 *             stall and token shortage (stats.h), and with trains a
 *             wake-up when their credit comes back (flow.c).
 *   traverse  The train's packets start onto the channel (transmit): its
 *             queue's space goes back upstream (flow.h), the channel is
 *             busy until its last packet is sent, the downstream queue's
 *             credit is taken, the routing function moves the train on
 *             (routing.h) and it enters the next queue; the queue's next
 *             head may leave once this train is read out.
 *   deliver   DELIVER: the last tail reached the destination node.
 *
 * Between the stages the state is the queues and their heads, each
 * channel's waiters, and per channel: busy_until, share (ejection), a
 * TRY pending (at most one; try_pending), a credit stall open (stalled)
 * and the heads of its queues waiting (inq_waiting).  A train's `open`:
 * an adaptive head whose channel and VC are not chosen yet.
 */
#define TEMU_BUILDING_LIBRARY 1
#include "arbiter.h"
#include "channel.h"
#include "event.h"
#include "flow.h"
#include "routing.h"
#include "stats.h"
#include "train.h"

/* ---------------------------------------------------------------- queue */

/* The train now first in queue q becomes its head at head_time (when the
 * last tail of the train before it has been read out): when may it leave?
 * Always inline: every grant asks, and as a call its saved registers cost
 * about a fifth of it (callgrind, bench_load_sweep's BG/Q at twice
 * saturation). */
static inline __attribute__((always_inline)) void become_head(temu_tm *t, int64_t q,
                                                              int64_t head_time)
{
    int32_t p = t->q[q].head;
    if (p < 0) {
        return;
    }
    tm_train *tr = &t->tr[p];
    int64_t ready = tr->hdr + (tm_is_source(t, q) ? 0 : t->c.router_ps);
    int64_t s_out = tm_chan_ser_cached(&t->ch[tr->chan], tr->bytes);
    if (head_time > ready) {
        ready = head_time;
    }
    /* VC turnaround: a router input queue routes its head and allocates
     * it a VC only once the train ahead of it has left, so the head may
     * leave turn_ps after that at the earliest (doc/model.md, "VC
     * turnaround"); 0: none, as before */
    if (t->c.turn_ps > 0 && !tm_is_source(t, q) && t->q[q].left_at + t->c.turn_ps > ready) {
        ready = t->q[q].left_at + t->c.turn_ps;
    }
    /* cut-through onto a faster channel cannot overtake the arriving tail */
    if (tr->tail - s_out > ready) {
        ready = tr->tail - s_out;
    }
    tm_event_ready(t, ready, (int32_t)q, p, tr->chan);
}

/* Train p enters queue q; an empty queue's new head may leave no earlier
 * than head_time.  Always inline: every hop but the last enters a queue
 * from transmit. */
static inline __attribute__((always_inline)) void arrive(temu_tm *t, int64_t q, int32_t p,
                                                         int64_t head_time)
{
    t->tr[p].next = -1;
    if (t->q[q].tail >= 0) {
        t->tr[t->q[q].tail].next = p;
        t->q[q].tail = p;
        return;
    }
    t->q[q].head = t->q[q].tail = p;
    become_head(t, q, head_time);
}

void tm_router_arrive(temu_tm *t, int64_t q, int32_t p, int64_t head_time)
{
    arrive(t, q, p, head_time);
}

void tm_router_append(temu_tm *t, int64_t q, int32_t p)
{
    arrive(t, q, p, t->now);
}

/* ------------------------------------------------------------- traverse */

/* Try channel c again when the trains on it have all been sent. */
static void retry_when_free(temu_tm *t, tm_chan *ch, int64_t c)
{
    if (!ch->try_pending) {
        ch->try_pending = 1;
        tm_event_try(t, ch->busy_until, (int32_t)c);
    }
    if (ch->nwait > 0) {
        tm_flow_freeing(t, ch, c);
    }
}

/* Channel ch is busy with a train's packets from now to `until`; on an
 * ejection channel trains share, it takes `part` of its time. */
static void occupy(temu_tm *t, tm_chan *ch, uint32_t part, int64_t until)
{
    if (ch->busy_until <= t->now) {
        ch->share = (uint16_t)part;
        ch->busy_until = until;
    } else {
        ch->share = (uint16_t)(ch->share + part);
        ch->busy_until = until > ch->busy_until ? until : ch->busy_until;
    }
}

/* Queue q's head train p starts m of its packets onto channel c now. */
static void transmit(temu_tm *t, int64_t q, int32_t p, int64_t c, uint32_t m)
{
    if (m < t->tr[p].n && tm_train_split(t, q, m) != 0) {
        return;
    }
    tm_chan *ch = &t->ch[c];
    tm_train *tr = &t->tr[p];
    int src = tm_is_source(t, q);
    int64_t n = tr->n, nbig = tr->nbig;
    int64_t total = nbig * tr->bytes + (n - nbig) * tr->small;
    int64_t ser = tm_chan_ser_cached(ch, tr->bytes); /* the first packet is a largest one */
    int64_t ser_small = nbig < n ? tm_chan_ser(ch, tr->small) : ser;
    /* the input port reads the packet out at the rate it came in (our
     * assumption: the router's internal path is as fast as its input, and
     * a slower output holds at most the packet it is sending, as Gemini's
     * column buffers do); a source queue empties at its injection rate */
    int64_t readout = src                ? ser
                      : t->eng == NULL ? tm_chan_ser_cached(&t->ch[q / t->nvc], tr->bytes)
                                       : tm_chan_ser(&t->ch[q / t->nvc], tr->bytes); /* the
                      * upstream channel's cache is its region's to write */
    int64_t sp = tm_train_spacing(t, tr, tr->n, src, readout, ser);
    int64_t last = t->now + (n - 1) * sp; /* the last packet starts */
    int vc = tr->vc;

    t->q[q].head = tr->next;
    t->q[q].left_at = last + readout;
    if (tr->next < 0) {
        t->q[q].tail = -1;
        if (t->eng != NULL) {
            tm_engine_popped(t, q, last + readout);
        }
    }
    tm_arb_remove(ch, q);
    if (src) {
        tm_stats_mu_reads(t, tr);
    } else {
        tm_stats_inq_leave(t, q, tr, n, readout, sp);
        tm_flow_release(t, q, tr, n, total, readout, sp);
    }
    if (t->hop != NULL) {
        tm_stats_report_hop(t, tr, c, vc, total, sp, ser);
    }
    /* the part of the channel's time this train takes (ejection channels
     * with shared trains only), added to that of trains still arriving */
    occupy(t, ch, n == 1 || !tm_chan_shared(t, c) ? SHARE_ONE : tm_chan_part(ser, sp),
           last + ser_small);
    tm_stats_carried(ch, n, nbig, total, ser, ser_small);
    if (c >= t->ntorus + t->m.nnodes) {
        tr->hdr = t->now + ser + ch->wire_ps; /* the first packet's delivery */
        tr->sp = sp;
        tm_event_deliver(t, last + ser_small + ch->wire_ps, p);
    } else {
        if (c < t->ntorus) {
            tm_stats_torus_hop(t, tr, c, vc, n, total);
        }
        tm_flow_take(t, c * t->nvc + vc, total);
        tr->hdr = t->now + ch->wire_ps;
        tr->tail = t->now + ser + ch->wire_ps;
        tr->sp = sp;
        tm_route_advance(t, tr);
        if (t->eng != NULL && c < t->ntorus) {
            tm_engine_handover(t, c * t->nvc + vc, p);
        } else {
            arrive(t, c * t->nvc + vc, p, t->now);
        }
    }
    become_head(t, q, last + readout);
    if (ch->nwait > 0) {
        retry_when_free(t, ch, c);
    }
}

/* ------------------------------------------------------------- allocate */

/* No waiter of channel c has credit now. */
static void refuse(temu_tm *t, tm_chan *ch, int64_t c, int sending, uint32_t lack)
{
    if (sending) {
        retry_when_free(t, ch, c); /* not idle: no credit stall */
        return;
    }
    if (t->ret != NULL) {
        /* short of credit that trains' return streams will bring */
        tm_flow_wake(t, ch, c);
    }
    if (ch->nwait > 0) {
        tm_flow_stalled(t, c); /* woken when the space its queues keep is back */
    }
    tm_stats_stall_open(ch, t->now);
    tm_stats_short(t, c, lack);
}

/* Waiter g goes: m packets of its head train onto channel c. */
static inline __attribute__((always_inline)) void grant(temu_tm *t, tm_chan *ch, int64_t c,
                                                        const tm_grant *g, uint32_t m)
{
    tm_stats_stall_close(ch, t->now);
    tm_stats_short(t, c, 0);
    tm_train *head = &t->tr[g->p];
    if (head->open) {
        tm_arb_withdraw(t, g->q, head, c);
        tm_route_fix(t, head, c, g->vc, g->bubble);
    }
    transmit(t, g->q, g->p, c, m);
}

/* Channel c may take a train (TRY, CREDIT, a new waiter). */
static void allocate(temu_tm *t, int64_t c)
{
    tm_chan *ch = &t->ch[c];
    tm_grant g;
    uint32_t lack = 0;
    /* trains still arriving into an ejection channel's node (not idle):
     * another may join them while their parts leave room */
    int sending = ch->busy_until > t->now;
    tm_flow_due(t, c);
    /* no head waits (a CREDIT that came back to an unwanted channel): no
     * stall or shortage is open (each closes when its last waiter goes),
     * and the next head to wait asks for the channel itself, so no TRY
     * is scheduled that would find nobody */
    if (ch->nwait == 0) {
        return;
    }
    if (sending && (ch->share >= SHARE_ONE || !tm_chan_shared(t, c))) {
        retry_when_free(t, ch, c);
        return;
    }
    tm_arb_pick(t, ch, c, &g, &lack);
    if (g.q < 0) {
        refuse(t, ch, c, sending, lack);
        return;
    }
    uint32_t m = tm_train_share(t, g.p, c, g.credit, g.bubble);
    if (sending && ch->share + tm_train_part_now(t, g.q, g.p, c, m) > SHARE_ONE) {
        retry_when_free(t, ch, c); /* the first in line does not fit beside them */
        return;
    }
    grant(t, ch, c, &g, m);
}

/* Routed head p of queue q asks for channel c: if c is idle, nobody waits
 * for it and the head's VC has the credit, allocate would grant it as the
 * channel's one waiter, so it goes at once without being made one (0;
 * the waiter array's writes, its removal and, at low load, its first
 * allocation are saved); otherwise -1 and nothing has changed but credit
 * that was due by now. */
static int go_at_once(temu_tm *t, int64_t q, int32_t p, int64_t c)
{
    tm_chan *ch = &t->ch[c];
    const tm_train *tr = &t->tr[p];
    if (tr->open || ch->nwait > 0 || ch->busy_until > t->now) {
        return -1;
    }
    int64_t qi = c * t->nvc + tr->vc;
    int64_t bubble = tm_flow_bubble(t, tr);
    tm_flow_due(t, c);
    tm_flow_settle(t, qi);
    if (t->q[qi].credit < (int64_t)tr->bytes + bubble) {
        return -1;
    }
    tm_grant g = {
        .q = q, .ready = t->now, .credit = t->q[qi].credit, .bubble = bubble, .p = p, .vc = tr->vc};
    grant(t, ch, c, &g, tm_train_share(t, p, c, g.credit, bubble));
    return 0;
}

/* ---------------------------------------------------------------- route */

/* READY of queue q: its head train p (the event says which, and the
 * channel it takes next, so that neither waits for the queue's line) may
 * leave. */
static void on_ready(temu_tm *t, int64_t q, int32_t p, int32_t chan)
{
    int64_t cand[TEMU_MAX_DIMS];
    if (!tm_is_source(t, q)) {
        tm_stats_inq_wait(t, q);
    } else if (tm_train_cut(t, q) != 0) {
        return; /* out of memory: t->oom stops the run */
    }
    const tm_train *tr = &t->tr[p];
    /* the candidates' credit as of now, before the route reads it */
    for (int i = 0; tr->open && i < tr->ncand; i++) {
        tm_flow_due(t, tr->cand[i]);
    }
    int n = tm_route_order(t, tr, chan, cand);
    if (n == 1 && go_at_once(t, q, p, cand[0]) == 0) {
        return;
    }
    for (int i = 0; i < n; i++) {
        if (tm_arb_wait(t, &t->ch[cand[i]], (int32_t)q, p) != 0) {
            t->oom = 1; /* the packet would be lost: temu_tm_run stops */
            return;
        }
    }
    for (int i = 0; i < n && t->q[q].head == p; i++) {
        allocate(t, cand[i]);
    }
}

/* -------------------------------------------------------------- deliver */

static void on_deliver(temu_tm *t, int32_t p)
{
    /* a copy: the callback may send, and a new train may move t->tr */
    const tm_train tr = t->tr[p];
    if (t->deliver) {
        for (uint32_t i = 0; i < tr.n; i++) {
            t->deliver(t->ctx, tr.tag, tr.created, tr.hdr + (int64_t)i * tr.sp);
        }
    }
    tm_stats_mu_writes(t, &tr);
    t->pending -= tr.n;
    tm_train_free(t, p);
}

/* ------------------------------------------------------------------ run */

/* Start loading the train, channel or queue event x will touch first.
 * On a large machine they are rarely in cache (Mira: 0.6 M channels of
 * 128 bytes, millions of trains), and an event handled meanwhile takes
 * longer than a miss, so the next event of the instant finds them. */
static inline void prefetch_event(const temu_tm *t, const temu_event *x)
{
    const tm_event *e = &((const tm_event_slot *)x)->ev;
    switch (e->type) {
    case TM_EV_READY:
        __builtin_prefetch(&t->tr[e->ready.train]);
        __builtin_prefetch(&t->ch[e->ready.chan]);
        break;
    case TM_EV_TRY:
        __builtin_prefetch(&t->ch[e->try_chan.chan]);
        break;
    case TM_EV_CREDIT:
        __builtin_prefetch(&t->ch[e->credit.chan]);
        __builtin_prefetch(&t->q[(int64_t)e->credit.chan * t->nvc + e->credit.vc]);
        break;
    case TM_EV_CREATE:
        __builtin_prefetch(&t->tr[e->create.train]);
        break;
    default:
        __builtin_prefetch(&t->tr[e->deliver.train]);
        break;
    }
}

void tm_router_run_events(temu_tm *t, int64_t until_ps)
{
    tm_event_slot s;
    const tm_event *e = &s.ev;
    int got;
    while (!t->oom && (got = tm_event_pop(t, until_ps, &s)) != 0) {
        if (got < 0) {
            t->oom = 1; /* events were lost: temu_tm_check reports it */
            break;
        }
        t->now = e->t;
        t->tot.events++;
        if (t->eng != NULL) {
            t->cur = s.raw;
        }
        const temu_event *next = temu_evq_peek_now(&t->events);
        if (next != NULL) {
            prefetch_event(t, next);
        }
        switch (e->type) {
        case TM_EV_CREATE:
            tm_train_enter_source(t, e->create.node, e->create.train);
            break;
        case TM_EV_READY:
            on_ready(t, e->ready.queue, e->ready.train, e->ready.chan);
            break;
        case TM_EV_TRY:
            t->ch[e->try_chan.chan].try_pending = 0;
            allocate(t, e->try_chan.chan);
            break;
        case TM_EV_CREDIT:
            if (e->credit.bytes < 0) {
                /* the parallel engine: a train's credit stream begins */
                tm_engine_stream_in(t, e->credit.chan, e->credit.vc, -1 - e->credit.bytes);
            } else {
                tm_flow_credit_back(t, e->credit.chan, e->credit.vc, e->credit.bytes);
            }
            allocate(t, e->credit.chan);
            break;
        default:
            on_deliver(t, e->deliver.train);
            break;
        }
    }
}

int64_t temu_tm_run(temu_tm *t, int64_t until_ps)
{
    if (t->eng != NULL) {
        return tm_engine_run(t, until_ps, 0, NULL);
    }
    tm_router_run_events(t, until_ps);
    if (until_ps != INT64_MAX && until_ps > t->now) {
        t->now = until_ps;
    } else if (!t->oom && until_ps == INT64_MAX && t->back_last > t->now) {
        /* drained: the last credit came back when no event said so */
        t->now = t->back_last;
    }
    return t->now;
}
