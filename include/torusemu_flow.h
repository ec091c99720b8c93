/*
 * torusemu_flow.h - the flow-level network model (`--model flow`).
 *
 * The second model level beside the packet model (torusemu_timing.h): a
 * message (or a steady stream between two nodes) is one flow on its route,
 * sharing the bandwidth of every channel it crosses with the other flows
 * there; work is done per flow start, end or rate change, not per packet,
 * so it reaches seconds to hours of a whole machine.  It takes the packet
 * model's configuration (temu_tm_config: rates, latencies, buffers, the
 * machine's lanes and link rules) and routes, and reports the packet
 * model's lane statistics (temu_tm_lane_stats), the stall figures
 * estimated from the modelled utilisation and back-pressure (doc/model.md,
 * "Flow level", says how and what the level leaves out).
 *
 * Time is in picoseconds.  Results are deterministic: equal inputs give
 * equal outputs on every host.
 */
#ifndef TORUSEMU_FLOW_H
#define TORUSEMU_FLOW_H

#include "torusemu_timing.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct temu_fm temu_fm;

temu_status temu_fm_create(const temu_machine *m, const temu_tm_config *c, temu_fm **out,
                           temu_error *err);
void temu_fm_destroy(temu_fm *f);

/* Called once per packet delivered, as temu_tm_delivery_fn (a flow of
 * count packets: count calls, each with that packet's delivery time),
 * all when the flow's last packet arrives: the times are spaced evenly at
 * the flow's final rate (earlier packets' exact times are not kept). */
void temu_fm_set_delivery(temu_fm *f, temu_tm_delivery_fn fn, void *ctx);

/* Called once per flow when its last packet reached the destination (for
 * drivers that do not want one call per packet: long steady streams). */
typedef void (*temu_fm_done_fn)(void *ctx, uint64_t tag, uint64_t packets, int64_t created_ps,
                                int64_t done_ps);
void temu_fm_set_done(temu_fm *f, temu_fm_done_fn fn, void *ctx);

/* What crossed which channel, as temu_tm_hop_fn (evenly spaced packets
 * of a stretch of constant rate).  Unlike the packet model's, a record's
 * start_ps may lie after the model's time at the call (never before it):
 * each is told when the model's clock is about to pass it, in the order
 * of start_ps; a packet crosses all channels of its route at once. */
void temu_fm_set_hop(temu_fm *f, temu_tm_hop_fn fn, void *ctx);

/* A flow of `count` packets of `bytes` wire bytes each from node src to
 * node dst in class cls, created at when_ps (>= temu_fm_now), lanes picked
 * by lane_key as temu_tm_send does.  max_gbs > 0 caps its rate (GB/s = bytes
 * per ns: a steady stream of a job's phase); 0: as fast as the network
 * lets it. */
temu_status temu_fm_send(temu_fm *f, int64_t when_ps, int64_t src, int64_t dst, uint32_t bytes,
                         uint64_t count, uint32_t cls, uint32_t lane_key, double max_gbs,
                         uint64_t tag, temu_error *err);

/* Process everything up to and including until_ps (INT64_MAX: until every
 * flow has ended); returns the new current time. */
int64_t temu_fm_run(temu_fm *f, int64_t until_ps);
int64_t temu_fm_now(const temu_fm *f);
/* When the model next has something to do (INT64_MAX: nothing). */
int64_t temu_fm_next_event(const temu_fm *f);
/* Flows sent and not yet ended. */
uint64_t temu_fm_pending(const temu_fm *f);

/* A lane's statistics so far, as temu_tm_lane_stats_get: packets and
 * bytes exact, busy time from the flows' rates, stalls estimated. */
temu_status temu_fm_lane_stats_get(const temu_fm *f, int64_t router, int link, int lane,
                                   temu_tm_lane_stats *out, temu_error *err);

/* The part of a lane's credit stall and input-queue stall (ps, as
 * temu_fm_lane_stats_get's) that packets of class cls waited for: each
 * class's own terms of the estimate (its flows held back further on, its
 * VC buffers out of room, its load on the next channels), the lane's
 * figures split by them; summed over the classes, the lane's figures. */
temu_status temu_fm_lane_class_stalls_get(const temu_fm *f, int64_t router, int link, int lane,
                                          uint32_t cls, int64_t *credit_ps, int64_t *inq_ps,
                                          temu_error *err);

/* The model's estimated stalls since the previous flush through f added
 * to s's counters where the packet model's land (temu_net_stall_counters_flush
 * of the flow level, timing_bridge.c: Gemini credit stall on the sending
 * tile, inq stall on the receiving one, in router cycles); also marks s's
 * counters as the flow level's (temu_tm_session_level).  s's machine must be
 * the model's.  Counters that need per-VC figures (BG/P no-token, BG/Q
 * receive FIFO and message unit) are not added: for those use temu_net. */
temu_status temu_fm_stall_counters_flush(const temu_fm *fm, temu_tm_flushed *f, temu_session *s,
                                         temu_error *err);

/* What the model did: flows started, rate solutions computed, and
 * (flow, channel) rate updates made by them; lanes whose stall rates were
 * evaluated (each once per instant that changed it); instants whose
 * changes waited for the end of a solve window (flow_window_ps > 0, each
 * counted once). */
typedef struct temu_fm_totals {
    uint64_t flows, solves, updates;
    uint64_t stall_lanes;
    uint64_t deferred;
} temu_fm_totals;
void temu_fm_totals_get(const temu_fm *f, temu_fm_totals *out);

#ifdef __cplusplus
}
#endif

#endif
