/*
 * torusemu_crossing.h - a message's volume counters, counted as its
 * packets cross channels in virtual time (emu/crossing.c; doc/series.md,
 * "When traffic is counted").
 *
 * A driver that runs a model level itself (the packet model's
 * temu_tm_set_hop, the flow model's temu_fm_set_hop) hands every hop
 * record it is told of to temu_crossing_count, in windows of time that
 * tile the time line, and the store then holds at every window's end what
 * had crossed by then: link counters as packets start onto links, node
 * counters (Gemini NIC, BG/Q message unit and L2) as the message's
 * packets leave and enter its nodes.  Summed over a message's crossings
 * the counters are exactly temu_inject's.  Virtual time (emu/vtime.c)
 * counts a replay's messages this way; `torusemu production` its steady
 * streams (workload/production_run.c).
 */
#ifndef TORUSEMU_CROSSING_H
#define TORUSEMU_CROSSING_H

#include "torusemu.h"
#include "torusemu_timing.h"

#ifdef __cplusplus
extern "C" {
#endif

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

/* All of crossing h, of a message without a ledger (temu_crossing_begin
 * with out NULL), into the store, from any thread, at the same time as
 * others: its updates are atomic adds, whose sums do not depend on their
 * order.  0, counting nothing, when watches are armed on the store (their
 * signals follow the order of the updates: count it with
 * temu_crossing_count in order then); 1 when counted. */
int temu_crossing_count_now(temu_session *s, const temu_tm_hop *h);

/* Is all of crossing h over by time t (its last unit sent)? */
int temu_crossing_done_by(const temu_tm_hop *h, int64_t t);

void temu_ledger_free(temu_ledger *lg);

#ifdef __cplusplus
}
#endif

#endif
