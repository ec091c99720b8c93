/*
 * arbiter.h - who gets a channel (arbiter.c): the heads of input queues
 * waiting for a channel (its waiters), and, when the channel may take a
 * train, the one that goes: among the waiting heads with enough credit
 * on their VC, the one ready first (then the lower queue id), first come,
 * first served.  An adaptive head waits at every productive channel at
 * once and chooses its VC when a channel would take it (routing.h); once
 * it goes, it is withdrawn from the others.  Static inline where every
 * event asks.  Private to the packet model.
 */
#ifndef TEMU_PACKET_ARBITER_H
#define TEMU_PACKET_ARBITER_H

#include "flow.h"
#include "packet.h"
#include "routing.h"
#include "stats.h"

#pragma GCC visibility push(hidden)

/* The waiter that goes: its queue (-1: none can), head train, VC, ready
 * time, the credit on that VC and the bubble room it keeps. */
typedef struct tm_grant {
    int64_t q;
    int64_t ready, credit, bubble;
    int32_t p;
    int vc;
} tm_grant;

/* Room for one more waiter on channel ch: 0, or -1 when out of memory. */
int tm_arb_grow(tm_chan *ch);

/* Queue q's head train p waits for channel ch from now (its READY): 0, or
 * -1 when out of memory. */
static inline int tm_arb_wait(const temu_tm *t, tm_chan *ch, int32_t q, int32_t p)
{
    const tm_train *tr = &t->tr[p];
    if (ch->nwait == ch->capwait && tm_arb_grow(ch) != 0) {
        return -1;
    }
    tm_waiter *w = &ch->wait[ch->nwait++];
    w->ready = t->now;
    w->q = q;
    w->p = p;
    w->vc = tr->vc;
    w->need = tr->bytes;
    w->open = tr->open;
    /* bubble: keep room for one more packet in the ring */
    w->bubble = tm_flow_bubble(t, tr);
    w->need += w->bubble;
    return 0;
}

static inline void tm_arb_remove(tm_chan *ch, int64_t q)
{
    for (int i = 0; i < ch->nwait; i++) {
        if (ch->wait[i].q == q) {
            ch->wait[i] = ch->wait[--ch->nwait];
            return;
        }
    }
}

/* The VC waiter w's head would take on channel c now, or -1 (then *lack
 * gains the VCs it lacks tokens on); *bubble: the room kept beyond its
 * packet.  Routed heads: their VC when the credit covers their need. */
static inline int tm_arb_waiter_vc(temu_tm *t, const tm_waiter *w, int64_t c, uint32_t *lack,
                                   int64_t *bubble)
{
    if (w->open) {
        return tm_route_choose_vc(t, &t->tr[w->p], c, lack, bubble);
    }
    *bubble = w->bubble;
    tm_flow_settle(t, c * t->nvc + w->vc);
    if (t->q[c * t->nvc + w->vc].credit >= w->need) {
        return (int)w->vc;
    }
    *lack |= 1u << w->vc;
    return -1;
}

/* Which of channel c's waiters goes now (g->q < 0: none has credit; then
 * *lack holds the VCs they lack tokens on). */
static inline void tm_arb_pick(temu_tm *t, const tm_chan *ch, int64_t c, tm_grant *g,
                               uint32_t *lack)
{
    const tm_queue *cq = &t->q[c * t->nvc];
    g->q = -1;
    g->ready = g->credit = g->bubble = 0;
    g->p = -1;
    g->vc = -1;
    for (int i = 0; i < ch->nwait; i++) {
        const tm_waiter *w = &ch->wait[i];
        int64_t bubble;
        int vc = tm_arb_waiter_vc(t, w, c, lack, &bubble);
        if (vc < 0) {
            continue;
        }
        if (g->q < 0 || w->ready < g->ready || (w->ready == g->ready && w->q < g->q)) {
            g->q = w->q;
            g->p = w->p;
            g->ready = w->ready;
            g->credit = cq[vc].credit;
            g->bubble = bubble;
            g->vc = vc;
        }
    }
}

/* A waiting head left idle channel c for another: its stall state is
 * what the remaining waiters make it. */
static inline void tm_arb_left(temu_tm *t, int64_t c)
{
    tm_chan *ch = &t->ch[c];
    uint32_t lack = 0;
    int64_t bubble;
    if (ch->busy_until > t->now) {
        return;
    }
    tm_flow_due(t, c);
    for (int i = 0; i < ch->nwait; i++) {
        tm_arb_waiter_vc(t, &ch->wait[i], c, &lack, &bubble);
    }
    if (ch->nwait == 0) {
        tm_stats_stall_close(ch, t->now);
    }
    tm_stats_short(t, c, lack);
}

/* Adaptive train tr, head of queue q, goes on channel c: it stops waiting
 * for its other productive channels, whose stall state is then what
 * their remaining waiters make it. */
static inline void tm_arb_withdraw(temu_tm *t, int64_t q, const tm_train *tr, int64_t c)
{
    for (int i = 0; i < tr->ncand; i++) {
        if (tr->cand[i] != c) {
            tm_arb_remove(&t->ch[tr->cand[i]], q);
            tm_arb_left(t, tr->cand[i]);
        }
    }
}

#pragma GCC visibility pop

#endif
