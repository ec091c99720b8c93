/*
 * flow.h - flow control of the packet model (flow.c): every input queue's
 * space as its sending side knows it, in bytes (credits on Gemini, tokens
 * on Blue Gene), taken when a train starts towards the queue and given
 * back credit_ps after its packets are read out of it.  Deadlock freedom:
 * credits use two dateline VCs per class (routing.c picks the VC); tokens
 * with single packets one VC per class and the bubble rule (a packet
 * entering a ring needs room for one more maximal packet); trains use
 * dateline VCs with tokens too.  Private to the packet model.
 */
#ifndef TEMU_PACKET_FLOW_H
#define TEMU_PACKET_FLOW_H

#include "event.h"
#include "packet.h"

#pragma GCC visibility push(hidden)

/* Every input queue's space at the start (the queue's size per VC; a node
 * takes whatever its ejection channel brings). */
void tm_flow_init(temu_tm *t);

/* Queue qi's credit with what its train's return stream has brought back
 * by now (trains' queues only: tm_flow_settle). */
void tm_flow_settle_stream(temu_tm *t, int64_t qi);

/* The same, inline: single packets keep no return streams, and every
 * allocation asks. */
static inline void tm_flow_settle(temu_tm *t, int64_t qi)
{
    if (t->ret != NULL) {
        tm_flow_settle_stream(t, qi);
    }
}

/* Train tr's n packets leave queue q from now, sp apart: their credit
 * comes back upstream one packet at a time from t0 (tm_return). */
void tm_flow_give_back(temu_tm *t, int64_t q, const tm_train *tr, uint32_t n, int64_t sp,
                       int64_t t0);

/* Channel c's waiters are all short of credit that trains' return streams
 * will bring: look again when the first one's need is back. */
void tm_flow_wake(temu_tm *t, const tm_chan *ch, int64_t c);

/* Extra room a head needs on top of its packet: the bubble rule's maximal
 * packet when it enters a ring under tokens with single packets. */
static inline int32_t tm_flow_bubble(const temu_tm *t, const tm_train *tr)
{
    return t->bubble && tr->enter ? (int32_t)t->c.max_packet : 0;
}

/* A train of `total` bytes starts towards queue qi: its space is taken
 * (beyond the queue's size for a whole train, train.h). */
static inline void tm_flow_take(temu_tm *t, int64_t qi, int64_t total)
{
    t->q[qi].credit -= total;
}

/* CREDIT event: `bytes` freed in the queue of channel c, VC vc, are known
 * upstream now. */
static inline void tm_flow_credit_back(temu_tm *t, int64_t c, int vc, int64_t bytes)
{
    t->q[c * t->nvc + vc].credit += bytes;
}

/* Queue q's kept returns that are back by now go into its credit; 0 when
 * it keeps none after. */
static inline int tm_flow_fold(tm_queue *q, int64_t now)
{
    while (q->back_bytes[0] != 0 && q->back_at[0] <= now) {
        q->credit += q->back_bytes[0];
        for (int i = 1; i < TM_BACK_SLOTS; i++) {
            q->back_at[i - 1] = q->back_at[i];
            q->back_bytes[i - 1] = q->back_bytes[i];
        }
        q->back_bytes[TM_BACK_SLOTS - 1] = 0;
    }
    return q->back_bytes[0] != 0;
}

/* Queue q keeps `bytes` coming back at `when`, in time order: 0, or -1 if
 * it has no room left. */
static inline int tm_flow_keep(tm_queue *q, int64_t when, int64_t bytes)
{
    int i = TM_BACK_SLOTS - 1;
    if (q->back_bytes[i] != 0) {
        return -1;
    }
    for (; i > 0 && (q->back_bytes[i - 1] == 0 || q->back_at[i - 1] > when); i--) {
        q->back_at[i] = q->back_at[i - 1];
        q->back_bytes[i] = q->back_bytes[i - 1];
    }
    q->back_at[i] = when;
    q->back_bytes[i] = bytes;
    return 0;
}

/* Queue qi's space `bytes` is known upstream again at `when` (ps).  A
 * CREDIT event then wakes the channel's waiting heads; it can let one go
 * only if the channel is idle then with heads waiting: stalled (its heads
 * short of credit), or freed at that very instant with heads that came
 * while it was busy (their TRY comes after the CREDIT).  Otherwise the
 * return needs no event: the queue keeps it (TM_BACK_SLOTS at a time;
 * tm_flow_due adds it when the channel is next looked at; tm_flow_stalled
 * and tm_flow_freeing make it an event if the channel comes to either
 * state before). */
static inline void tm_flow_return(temu_tm *t, int64_t qi, int64_t when, int64_t bytes)
{
    tm_queue *q = &t->q[qi];
    const tm_chan *ch = &t->ch[qi / t->nvc];
    /* the parallel engine (region.c): the channel belongs to the upstream
     * router's region, possibly another thread's, so its state is not read
     * here and every return is an event, handed over at the window's end */
    if (t->eng == NULL && !ch->stalled && ch->short_mask == 0 &&
        !(ch->nwait > 0 && when == ch->busy_until)) {
        tm_flow_fold(q, t->now); /* back already: the bit stays */
        if (tm_flow_keep(q, when, bytes) == 0) {
            t->back_vcs[qi / t->nvc] |= 1u << (qi % t->nvc);
            t->back_last = when > t->back_last ? when : t->back_last;
            return;
        }
    }
    tm_event_credit(t, when, (int32_t)(qi / t->nvc), (int32_t)(qi % t->nvc), (int32_t)bytes);
}

/* Channel c is looked at now: the space its queues kept that is back by
 * now is added to their credit. */
static inline void tm_flow_due(temu_tm *t, int64_t c)
{
    tm_queue *cq = &t->q[c * t->nvc];
    for (uint32_t m = t->back_vcs[c]; m != 0; m &= m - 1) {
        int v = __builtin_ctz(m);
        if (cq[v].back_at[0] <= t->now && tm_flow_fold(&cq[v], t->now) == 0) {
            t->back_vcs[c] &= ~(1u << v);
        }
    }
}

/* The space channel c's queues keep, still to come back at `at` or at
 * any time (at < 0), becomes CREDIT events (flow.c; only when some queue
 * of c keeps a return: tm_flow_stalled, tm_flow_freeing). */
void tm_flow_back_events(temu_tm *t, int64_t c, int64_t at);

/* Channel c stalls now (its heads wait for credit): what its queues keep
 * comes back by CREDIT events, which wake them. */
static inline void tm_flow_stalled(temu_tm *t, int64_t c)
{
    if (t->back_vcs[c] != 0) {
        tm_flow_back_events(t, c, -1);
    }
}

/* Busy channel c has heads waiting for it to free (a TRY at busy_until):
 * what its queues keep for that instant comes back by a CREDIT event,
 * which comes before the TRY. */
static inline void tm_flow_freeing(temu_tm *t, const tm_chan *ch, int64_t c)
{
    if (t->back_vcs[c] != 0) {
        tm_flow_back_events(t, c, ch->busy_until);
    }
}

/* Train tr's n packets (`total` bytes) leave input queue q from now, sp
 * apart, each read out in readout ps: the queue's space comes back
 * upstream credit_ps after the tails are read out. */
static inline void tm_flow_release(temu_tm *t, int64_t q, const tm_train *tr, int64_t n,
                                   int64_t total, int64_t readout, int64_t sp)
{
    if (n == 1 || t->ret == NULL || total > t->qbytes) {
        /* a packet, or a train larger than the queue, which went in on
         * credit it did not have: given back packet by packet, the queue
         * would stay below zero, and every other sender out, until nearly
         * the whole train had left; at the mean of its packets' times the
         * others get in halfway, nearer what interleaved single packets
         * would do (measured, doc/model.md "Packet trains") */
        tm_flow_return(t, q, t->now + readout + (n - 1) * sp / 2 + t->c.credit_ps, total);
    } else if (t->eng != NULL) {
        /* the parallel engine: the stream's state is the upstream router's
         * (its region's), so the whole stream goes there as one message,
         * taken at its first credit's time, no sooner than the lookahead
         * (region.c) */
        tm_engine_stream(t, q, tr, (uint32_t)n, sp, t->now + readout + t->c.credit_ps);
    } else {
        tm_flow_give_back(t, q, tr, (uint32_t)n, sp, t->now + readout + t->c.credit_ps);
    }
}

#pragma GCC visibility pop

#endif
