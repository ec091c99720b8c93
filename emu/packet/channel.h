/*
 * channel.h - channels of the packet model: how long a packet occupies
 * one, and how trains share a node's ejection channel.  Static inline:
 * every hop asks.  Private to the packet model.
 */
#ifndef TEMU_PACKET_CHANNEL_H
#define TEMU_PACKET_CHANNEL_H

#include "packet.h"

#include <math.h>

#pragma GCC visibility push(hidden)

/* Serialization of `bytes` at ps_per_byte (1000 / GB/s), in ps rounded up
 * (less a rounding guard, so an exact product is not rounded up).  The one
 * rule: the model's channels, and the live run's model of one message
 * through temu_tm_ser_ps (mpi/vt_model.c). */
static inline int64_t tm_ser_ps(double ps_per_byte, uint32_t bytes)
{
    return (int64_t)ceil((double)bytes * ps_per_byte - 1e-6);
}

/* Serialization of `bytes` on a channel. */
static inline int64_t tm_chan_ser(const tm_chan *ch, uint32_t bytes)
{
    return tm_ser_ps(ch->ps_per_byte, bytes);
}

/* The same, remembered: trains repeat sizes. */
static inline int64_t tm_chan_ser_cached(tm_chan *ch, uint32_t bytes)
{
    if (ch->ser_bytes != bytes) {
        ch->ser_bytes = bytes;
        ch->ser_val = tm_chan_ser(ch, bytes);
    }
    return ch->ser_val;
}

/* An ejection channel's whole time, in tm_chan.share.  A train whose
 * packets arrive slower than the node takes them (from one link, or one
 * Gemini tile) uses the channel ser/sp of the time (ser: a packet's
 * serialization, sp: their spacing), and trains from several links share
 * it while their parts add up to at most the whole (rounded up), as the
 * single packets they stand for would interleave.  A single packet, or a
 * train at the channel's own rate, takes all of it. */
#define SHARE_ONE 32768u

/* Do trains share channel c by their parts of its time (SHARE_ONE)?  Only
 * Gemini's ejection channels, which the eight tiles feed at an eighth of a
 * link's rate each (doc/model.md, "Packet trains"). */
static inline int tm_chan_shared(const temu_tm *t, int64_t c)
{
    return t->train > 1 && t->maxlanes > 1 && c >= t->ntorus + t->m.nnodes;
}

/* The part of a channel's time (of SHARE_ONE) a train takes whose packets
 * are each sent in ser ps, sp ps apart (sp >= ser): rounded up. */
static inline uint32_t tm_chan_part(int64_t ser, int64_t sp)
{
    if (sp <= ser) {
        return SHARE_ONE;
    }
    return (uint32_t)(((uint64_t)ser * SHARE_ONE + (uint64_t)sp - 1) / (uint64_t)sp);
}

#pragma GCC visibility pop

#endif
