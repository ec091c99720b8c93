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
 *
 * A second level - a flow model, or a parallel engine of the packet
 * model - plugs in beside it: its own directory (emu/flow/, ...) with its
 * own ops table, chosen where virtual time creates its model
 * (temu_vt_create).  It reads the same parameters (temu_tm_config: rates,
 * latencies, buffer sizes; the machine's link rules through
 * temu_link_lanes, temu_tm_link_lane_gbs and temu_tm_ser_ps) and does
 * not touch emu/packet/.
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

typedef struct temu_model_ops {
    const char *name;
    temu_status (*create)(const temu_machine *m, const temu_tm_config *c, void **out,
                          temu_error *err);
    void (*destroy)(void *model);
    void (*set_delivery)(void *model, temu_tm_delivery_fn fn, void *ctx);
    void (*set_hop)(void *model, temu_tm_hop_fn fn, void *ctx);
    temu_status (*inject)(void *model, int64_t when_ps, const temu_machine *m,
                          const temu_message *msg, int dir, uint64_t tag, uint64_t *units,
                          uint64_t *bytes, temu_error *err);
    int64_t (*advance)(void *model, int64_t until_ps);
    int64_t (*next_event)(const void *model);
    int64_t (*now)(const void *model);
    void (*totals)(const void *model, temu_tm_totals *out);
    temu_status (*check)(const void *model, temu_error *err);
    temu_status (*counters)(const void *model, temu_tm_flushed *flushed, temu_session *s,
                            temu_error *err);
} temu_model_ops;

/* The packet model (emu/packet/model.c). */
extern const temu_model_ops temu_model_packet;

#pragma GCC visibility pop

#endif
