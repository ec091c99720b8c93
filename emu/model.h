/*
 * model.h - the seam between virtual time and a network model level.
 * Private to libtorusemu.
 *
 * Virtual time (emu/vtime.c) runs the ranks' programs; a model level
 * moves their messages through the machine and says when each has
 * arrived.  Virtual time reaches a model only through its ops table, so a
 * model level is one table and the directory behind it:
 *
 *   temu_model_packet  the packet model (emu/packet/, torusemu_timing.h):
 *                      packets and trains through routers, channels,
 *                      credits and arbitration, event by event.
 *   temu_model_flow    the flow model (emu/flow/, torusemu_flow.h; its
 *                      table in emu/flow_ops.c): flows sharing channel
 *                      bandwidth, work per flow start, end or rate change.
 *
 * temu_model_of picks the table of temu_tm_config.level; virtual time
 * (temu_vt_create) and temu_net (emu/net.c, the live run's online model)
 * reach a level only through it.  Each level reads the same parameters
 * (temu_tm_config: rates, latencies, buffer sizes; the machine's link
 * rules through temu_link_lanes, temu_tm_link_lane_gbs and
 * temu_tm_ser_ps); a message is cut into packets by one function
 * (temu_model_send_message_dir) for every level, and every level's lane
 * statistics become the machines' counters by one function
 * (temu_model_stall_counters_flush), so the volume counters are equal
 * and the stall counters land in the same places whatever the level.
 *
 * What a level promises:
 *   - inject: one direction of a message (dir 0: the source's packets, 1:
 *     the destination's replies) enters at when_ps >= now, every unit it is
 *     cut into carrying `tag`; *units and *bytes say what was sent (0:
 *     nothing crosses the network).  Its arrival is `units` deliveries of
 *     that tag.
 *   - advance: process everything up to until_ps (INT64_MAX: until the
 *     network is empty) and call the delivery function of each unit that
 *     arrived, in the order of virtual time; returns the model's time.
 *   - next_event: when the model next has something to do (INT64_MAX:
 *     nothing), so virtual time can interleave it with the ranks.
 *   - drain: advance(INT64_MAX); what crossed which link is told to the
 *     hop function as it crosses (temu_tm_hop; crossing.c counts it).
 *   - counters: add the model's own counters (stalls, occupancy) to the
 *     store, since the last flush through `flushed`.
 *   - totals: what the model has done so far (events processed,
 *     packet-hops; a progress report's figures).
 *   - check: TEMU_ENOMEM if the model lost work for want of memory.
 * Results are deterministic: equal inputs, equal outputs on every host.
 */
#ifndef TEMU_MODEL_H
#define TEMU_MODEL_H

#include "torusemu_timing.h"

#pragma GCC visibility push(hidden)

/* Units of one tag that arrived together: `units` of them, created at
 * created_ps, the last at done_ps (temu_fm_done_fn's shape). */
typedef void (*temu_model_done_fn)(void *ctx, uint64_t tag, uint64_t units, int64_t created_ps,
                                   int64_t done_ps);

typedef struct temu_model_ops {
    const char *name;
    temu_status (*create)(const temu_machine *m, const temu_tm_config *c, void **out,
                          temu_error *err);
    void (*destroy)(void *model);
    void (*set_delivery)(void *model, temu_tm_delivery_fn fn, void *ctx);
    void (*set_hop)(void *model, temu_tm_hop_fn fn, void *ctx);
    /* NULL, or: hops offered to fn first on the threads that make them
     * (temu_tm_set_hop_now) */
    void (*set_hop_now)(void *model, temu_tm_hop_now_fn fn, void *ctx);
    /* NULL, or: tell fn once per group of units that arrived together
     * instead of once per unit (set_delivery then not used): a level whose
     * flows carry millions of packets makes one call per flow, not one per
     * packet (the flow level). */
    void (*set_done)(void *model, temu_model_done_fn fn, void *ctx);
    temu_status (*inject)(void *model, int64_t when_ps, const temu_machine *m,
                          const temu_message *msg, int dir, uint64_t tag, uint64_t *units,
                          uint64_t *bytes, temu_error *err);
    int64_t (*advance)(void *model, int64_t until_ps);
    /* NULL, or: advance, but return after the first instant whose
     * deliveries made *answer non-zero (its time): the parallel engine's
     * way to take long strides (temu_tm_run_step; used when config
     * threads > 0) */
    int64_t (*step)(void *model, int64_t until_ps, const int32_t *answer);
    int64_t (*next_event)(const void *model);
    int64_t (*now)(const void *model);
    void (*totals)(const void *model, temu_tm_totals *out);
    temu_status (*check)(const void *model, temu_error *err);
    temu_status (*counters)(const void *model, temu_tm_flushed *flushed, temu_session *s,
                            temu_error *err);
} temu_model_ops;

/* The packet model (emu/packet/model.c), the flow model (emu/flow_ops.c). */
extern const temu_model_ops temu_model_packet;
extern const temu_model_ops temu_model_flow;

/* The table of level (temu_tm_level); NULL with TEMU_EINVAL in err if
 * there is none. */
const temu_model_ops *temu_model_of(uint32_t level, temu_error *err);

/* `count` packets carrying `units` units of unit_bytes in all, split
 * evenly (the first units mod count packets one unit larger), created at
 * when_ps at node src for node dst in class cls on lane_key, tagged tag;
 * BG/Q: `reads` and `writes` message-unit requests among them. */
typedef struct temu_model_units {
    int64_t when_ps, src, dst;
    uint64_t count, units;
    uint32_t unit_bytes, cls, lane_key;
    uint64_t tag, reads, writes;
    uint32_t turns; /* 1: a later bucket of the message, its packets taken in  */
                    /* turn with the earlier ones' train by train (Gemini)    */
} temu_model_units;

/* A level as the packetizer sees it: up to `train` packets of a bucket
 * go in one call of send (0 or 1: one at a time; UINT32_MAX: the whole
 * bucket), buckets taken in turn. */
typedef struct temu_model_sender {
    void *model;
    uint32_t train;
    temu_status (*send)(void *model, const temu_model_units *u, temu_error *err);
} temu_model_sender;

/* Direction dir of a message cut into the packets the volume model counts
 * (temu_plan_message), as temu_tm_send_message_dir says, into any level. */
temu_status temu_model_send_message_dir(const temu_model_sender *to, int64_t when_ps,
                                        const temu_machine *m, const temu_message *msg, int dir,
                                        uint64_t tag, uint64_t *packets, uint64_t *bytes,
                                        temu_error *err);

/* A level's statistics as the machines' counters read them
 * (timing_bridge.c): lanes of a link (0: none), a lane's statistics, and
 * where the level has them (NULL: none, those counters stay 0) a VC's,
 * a queue's occupancy, BG/Q's message-unit pending requests and Gemini's
 * host tile input stall.  adaptive:
 * the classes the level routes adaptively (temu_tm_adaptive_classes). */
typedef struct temu_model_stats {
    const void *model;
    uint32_t level, adaptive;
    int (*lanes)(const void *model, int64_t router, int link);
    temu_status (*lane)(const void *model, int64_t router, int link, int lane,
                        temu_tm_lane_stats *out, temu_error *err);
    temu_status (*vc)(const void *model, int64_t router, int link, int lane, uint32_t vc,
                      temu_tm_vc_stats *out, temu_error *err);
    temu_status (*occupancy)(const void *model, int64_t router, int link, int lane, uint32_t cls,
                             int64_t *packet_ps, temu_error *err);
    temu_status (*mu_pending)(const void *model, int64_t node, int64_t *read_ps, int64_t *write_ps,
                              temu_error *err);
    /* Gemini: a node's injection stall on host tile slot (NULL: none) */
    temu_status (*host_inq)(const void *model, int64_t node, int slot, int64_t *ps,
                            temu_error *err);
    temu_status (*check)(const void *model, temu_error *err);
} temu_model_stats;

/* temu_tm_stall_counters_flush of any level's statistics. */
temu_status temu_model_stall_counters_flush(const temu_model_stats *src, temu_tm_flushed *f,
                                            temu_session *s, temu_error *err);

#pragma GCC visibility pop

#endif
