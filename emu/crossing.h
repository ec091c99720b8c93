/*
 * crossing.h - a message's volume counters, counted as its packets cross
 * (emu/crossing.c; doc/series.md, "When traffic is counted").
 *
 * Without virtual time a message's counters land in the store at once
 * (inject.c).  In virtual time the timing model reports every train that
 * starts onto a channel (temu_tm_set_hop), and these functions add what
 * that crossing accounts for, when it happens:
 *   - a router-to-router link: that hop's link counters (Gemini tile phits
 *     and packets of the receiving tile, BG/Q chunks sent and packets
 *     received, BG/P packets, chunks and acknowledgements);
 *   - a node's injection channel: Gemini's host tiles, and the node
 *     counters of the injecting side (NIC requests and responses sent,
 *     BG/Q message-unit injection and its L2 reads);
 *   - a node's ejection channel: the node counters of the receiving side.
 * Times: a packet counts as a packet when it starts onto the channel; its
 * phits (Gemini) or chunks (Blue Gene) count one by one as the channel
 * finishes sending each, unit j of u at start + (j + 1) x ser / u.  Summed
 * over a message's crossings the counters are exactly temu_inject's.
 */
#ifndef TEMU_CROSSING_H
#define TEMU_CROSSING_H

#ifndef TEMU_BUILDING_LIBRARY
#error "crossing.h is private to libtorusemu"
#endif

#include "torusemu.h"
#include "torusemu_timing.h"

/* The node counters of a message still to count, and its packets counted
 * so far at its ends. */
typedef struct temu_ledger temu_ledger;

/* A message is sent: the store's message and byte totals now, and its
 * node counters into *out to be spread over its packets (NULL: none, as on
 * BG/P or within a node).  out NULL: no time series will look, so every
 * node counter goes into the store now (the same end-of-run counts, and no
 * ledger, which on BG/Q is about 1 KB a message under way).  TEMU_ENOMEM
 * when there is no memory for it. */
temu_status temu_crossing_begin(temu_session *s, const temu_message *msg, temu_ledger **out,
                                temu_error *err);

/* What crossing h (of direction dir, 0 from the message's source) accounts
 * for in the time (after_ps, until_ps]: add it to the store.  Windows that
 * tile the time line add up to the whole crossing.  *lg is the message's
 * ledger; once every packet of the message has been counted at both ends
 * it is freed and set to NULL.  Link hops of adaptively routed trains are
 * the route counters' (timing_bridge.c), not counted here. */
void temu_crossing_count(temu_session *s, temu_ledger **lg, int dir, const temu_tm_hop *h,
                         int64_t after_ps, int64_t until_ps);

/* Is all of crossing h over by time t (its last unit sent)? */
int temu_crossing_done_by(const temu_tm_hop *h, int64_t t);

void temu_ledger_free(temu_ledger *lg);

#endif
