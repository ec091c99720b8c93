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
 * by now. */
void tm_flow_settle(temu_tm *t, int64_t qi);

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
        tm_event_credit(t, t->now + readout + (n - 1) * sp / 2 + t->c.credit_ps,
                        (int32_t)(q / t->nvc), (int32_t)(q % t->nvc), (int32_t)total);
    } else {
        tm_flow_give_back(t, q, tr, (uint32_t)n, sp, t->now + readout + t->c.credit_ps);
    }
}

#pragma GCC visibility pop

#endif
