/*
 * train.h - packet trains (train.c; doc/model.md, "Packet trains"): up to
 * train_packets consecutive packets of one send moving as one unit,
 * exact where nothing competes.  A train starts when its first packet
 * could (credit for one packet); it then takes credit for all its
 * packets.  That credit returns upstream packet by packet as they are
 * read out (flow.c: no event each) if the train fits its queue, else all
 * at once at the mean of the packets' read-out times.  On Gemini trains
 * share the ejection channel (channel.h).  If the downstream queue is not
 * empty (the parallel engine, torus channels: if the sender's credit is
 * neither home nor in the stream it holds) and the whole train does not
 * fit in the credit, the train is
 * split: what fits goes, the rest waits as a new train.  Trains travel on
 * two dateline VCs per class, also with tokens (the bubble rule keeps a
 * ring deadlock-free only while no queue holds more than its size; the
 * VCs then share the queue's bytes).  With trains of one packet every
 * rule is the per-packet one.  Private to the packet model.
 */
#ifndef TEMU_PACKET_TRAIN_H
#define TEMU_PACKET_TRAIN_H

#include "channel.h"
#include "packet.h"

#pragma GCC visibility push(hidden)

/* A free train slot (the array may move), or -1 when out of memory. */
int32_t tm_train_alloc(temu_tm *t);

/* Leave the first m packets of queue q's head train at its head and put
 * the rest behind it as a train of its own; -1 if out of memory. */
int tm_train_split(temu_tm *t, int64_t q, uint32_t m);

/* Source queue q's head is READY: if it is a bucket (packet.h, TM_MSG_*),
 * its first train of at most t->train packets is cut off and stays the
 * head, as if each train had been sent on its own.  The rest waits
 * behind it, or, when the message's buckets take turns, behind the last
 * of them; those get the next serial numbers.  -1 if out of memory. */
int tm_train_cut(temu_tm *t, int64_t q);

/* CREATE: record p and the buckets joined to it (TM_MSG_MORE) enter node
 * `node`'s source queue. */
void tm_train_enter_source(temu_tm *t, int64_t node, int32_t p);

/* Delivered train p's slot is free again. */
static inline void tm_train_free(temu_tm *t, int32_t p)
{
    t->tr[p].next = t->freetr;
    t->freetr = p;
}

/* Wire bytes of train tr. */
static inline int64_t tm_train_bytes(const tm_train *tr)
{
    return (int64_t)tr->nbig * tr->bytes + (int64_t)(tr->n - tr->nbig) * tr->small;
}

/* Spacing of the train's packets on the channel it starts on now: the
 * first starts now and the last when the per-packet model would start it
 * (after its own arrival, and after the packets ahead of it were read in at
 * the input rate and sent at the output rate). */
static inline int64_t tm_train_spacing(const temu_tm *t, const tm_train *tr, uint32_t n, int src,
                                       int64_t s_in, int64_t s_out)
{
    int64_t k = (int64_t)n - 1;
    if (k == 0) {
        return s_out;
    }
    int64_t lo = s_in > s_out ? s_in : s_out;
    int64_t last = t->now + k * lo;
    int64_t arrive = tr->hdr + k * tr->sp + (src ? 0 : t->c.router_ps);
    int64_t cut = tr->tail + k * tr->sp - s_out;
    last = arrive > last ? arrive : last;
    last = cut > last ? cut : last;
    return (last - t->now + k - 1) / k;
}

/* Bytes queue qi's train credit stream has still to bring back (all of
 * it fixed: the parallel engine hands a stream over whole, flow.h). */
static inline int64_t tm_train_incoming(const temu_tm *t, int64_t qi)
{
    const tm_return *r = &t->ret[qi];
    return (int64_t)r->nbig * r->big + (int64_t)(r->n - r->nbig) * r->small;
}

/* Packets of queue q's head train to send on channel c now.  The train
 * started because its first packet had credit.  If the queue it enters is
 * empty it goes whole and takes credit for all its packets, which may
 * exceed the queue's size: the rest streams in as the queue drains, and a
 * full queue stops the next train upstream.  If that queue holds others
 * and the credit does not cover the train, only what the credit covers
 * goes and the rest waits as a train of its own (train_whole: it goes
 * whole anyway).  The debt cannot deadlock: trains travel on dateline VCs,
 * whose dependencies have no cycle (the bubble rule of tokens would not
 * survive it). */
static inline uint32_t tm_train_share(const temu_tm *t, int32_t p, int64_t c, int64_t credit,
                                      int64_t bubble)
{
    const tm_train *tr = &t->tr[p];
    if (tr->n == 1 || c >= t->ntorus + t->m.nnodes || credit - bubble >= tm_train_bytes(tr) ||
        t->c.train_whole) {
        return tr->n;
    }
    /* the parallel engine, torus channels: the downstream queue is another
     * region's, so the sender judges it by what it owns, its credit: the
     * queue counts as empty when all of it is home or in the stream it
     * holds (every train it sent there has begun its read-out, the
     * serial engine's "empty", known at the last one's first credit:
     * one read-out and credit_ps later) */
    int64_t qi = c * t->nvc + tr->vc;
    if (t->eng != NULL && c < t->ntorus ? credit + tm_train_incoming(t, qi) >= t->qbytes
                                        : t->q[qi].head < 0) {
        return tr->n;
    }
    return (uint32_t)((credit - bubble) / tr->bytes);
}

/* The part of ejection channel c's time (tm_chan_part) the first m packets
 * of queue q's head train p would take if they started now. */
static inline uint32_t tm_train_part_now(temu_tm *t, int64_t q, int32_t p, int64_t c, uint32_t m)
{
    const tm_train *tr = &t->tr[p];
    if (m == 1) {
        return SHARE_ONE;
    }
    int64_t ser = tm_chan_ser_cached(&t->ch[c], tr->bytes);
    int64_t readout = tm_chan_ser_cached(&t->ch[q / t->nvc], tr->bytes);
    return tm_chan_part(ser, tm_train_spacing(t, tr, m, 0, readout, ser));
}

#pragma GCC visibility pop

#endif
