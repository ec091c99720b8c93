/*
 * flow_ops.c - the flow model's ops table (emu/model.h) on top of its
 * interface (torusemu_flow.h; the model itself is emu/flow/).
 *
 * A message is cut into the packets the volume model counts by the same
 * function as for the packet model (temu_model_send_message_dir), so the
 * packets and bytes each direction reports are the packet model's; each
 * bucket (VC, Gemini tile slot) enters as one or two flows: its packets
 * one unit larger than the rest first, then the others (the even split of
 * temu_tm_send_even).  The flow model's lane statistics become the
 * machines' stall counters through the packet model's translation
 * (temu_model_stall_counters_flush).  What the flow interface does not
 * give - per-VC no-token time (BG/P NO_VCx_TOKENS), queue occupancy (BG/Q
 * receive FIFOs) and message-unit pending requests (BG/Q) - stays 0 at
 * this level (doc/model.md, "Flow level").
 */
#define TEMU_BUILDING_LIBRARY 1
#include "emu_internal.h"
#include "model.h"
#include "torusemu_flow.h"

#include <stdlib.h>

typedef struct flow_level {
    temu_fm *f;
    temu_machine m; /* the links the counters walk */
} flow_level;

static temu_status ops_create(const temu_machine *m, const temu_tm_config *c, void **out,
                              temu_error *err)
{
    flow_level *fl = calloc(1, sizeof *fl);
    temu_status st = TEMU_OK;
    *out = NULL;
    if (fl == NULL) {
        return temu_fail(err, TEMU_ENOMEM, "flow model: out of memory");
    }
    fl->m = *m;
    st = temu_fm_create(m, c, &fl->f, err);
    if (st != TEMU_OK) {
        free(fl);
        return st;
    }
    *out = fl;
    return TEMU_OK;
}

static void ops_destroy(void *model)
{
    flow_level *fl = model;
    if (fl != NULL) {
        temu_fm_destroy(fl->f);
        free(fl);
    }
}

static void ops_set_delivery(void *model, temu_tm_delivery_fn fn, void *ctx)
{
    temu_fm_set_delivery(((flow_level *)model)->f, fn, ctx);
}

static void ops_set_hop(void *model, temu_tm_hop_fn fn, void *ctx)
{
    temu_fm_set_hop(((flow_level *)model)->f, fn, ctx);
}

/* One call per flow: a flow of a 1 GiB message is 16 M Gemini packets. */
static void ops_set_done(void *model, temu_model_done_fn fn, void *ctx)
{
    temu_fm_set_done(((flow_level *)model)->f, fn, ctx);
}

/* A bucket's packets as flows of one packet size each: the units mod
 * count packets one unit larger first, then the rest (the message-unit
 * requests of BG/Q are not modelled at this level). */
static temu_status flow_send(void *model, const temu_model_units *u, temu_error *err)
{
    flow_level *fl = model;
    temu_status st = TEMU_OK;
    uint64_t base = u->units / u->count, big = u->units % u->count;
    if (big > 0) {
        st = temu_fm_send(fl->f, u->when_ps, u->src, u->dst, (uint32_t)((base + 1) * u->unit_bytes),
                          big, u->cls, u->lane_key, 0, u->tag, err);
    }
    if (st == TEMU_OK && u->count > big) {
        st = temu_fm_send(fl->f, u->when_ps, u->src, u->dst, (uint32_t)(base * u->unit_bytes),
                          u->count - big, u->cls, u->lane_key, 0, u->tag, err);
    }
    return st;
}

static temu_status ops_inject(void *model, int64_t when_ps, const temu_machine *m,
                              const temu_message *msg, int dir, uint64_t tag, uint64_t *units,
                              uint64_t *bytes, temu_error *err)
{
    /* a whole bucket at once: one flow carries any number of packets */
    temu_model_sender to = {model, UINT32_MAX, flow_send};
    return temu_model_send_message_dir(&to, when_ps, m, msg, dir, tag, units, bytes, err);
}

static int64_t ops_advance(void *model, int64_t until_ps)
{
    return temu_fm_run(((flow_level *)model)->f, until_ps);
}

static int64_t ops_next_event(const void *model)
{
    return temu_fm_next_event(((const flow_level *)model)->f);
}

static int64_t ops_now(const void *model)
{
    return temu_fm_now(((const flow_level *)model)->f);
}

/* A progress report's figures: the flow model's unit of work is a rate
 * solution (events) and the (flow, channel) rate updates it makes
 * (train-hops); it moves no packets hop by hop (packet-hops 0). */
static void ops_totals(const void *model, temu_tm_totals *out)
{
    temu_fm_totals ft;
    temu_fm_totals_get(((const flow_level *)model)->f, &ft);
    out->packet_hops = 0;
    out->train_hops = ft.updates;
    out->events = ft.flows + ft.solves;
}

/* The flow interface reports no lost work (temu_fm_send fails at once
 * when memory runs out). */
static temu_status ops_check(const void *model, temu_error *err)
{
    (void)model;
    (void)err;
    return TEMU_OK;
}

/* ------------------------------------------------ statistics for counters */

static int stats_lanes(const void *model, int64_t router, int link)
{
    const flow_level *fl = model;
    if (router < 0 || router >= fl->m.nrouters || link < 0 || link >= 2 * fl->m.ndims ||
        temu_link_neighbor(&fl->m, router, link) < 0) {
        return 0;
    }
    return temu_link_lanes(&fl->m, link);
}

static temu_status stats_lane(const void *model, int64_t router, int link, int lane,
                              temu_tm_lane_stats *out, temu_error *err)
{
    return temu_fm_lane_stats_get(((const flow_level *)model)->f, router, link, lane, out, err);
}

static temu_status ops_counters(const void *model, temu_tm_flushed *flushed, temu_session *s,
                                temu_error *err)
{
    const temu_model_stats src = {
        .model = model,
        .level = TEMU_TM_FLOW,
        .adaptive = 0, /* the crossings count every link (vtime.c) */
        .lanes = stats_lanes,
        .lane = stats_lane,
        .vc = NULL,
        .occupancy = NULL,
        .mu_pending = NULL,
        .check = ops_check,
    };
    return temu_model_stall_counters_flush(&src, flushed, s, err);
}

const temu_model_ops temu_model_flow = {
    .name = "flow",
    .create = ops_create,
    .destroy = ops_destroy,
    .set_delivery = ops_set_delivery,
    .set_hop = ops_set_hop,
    .set_done = ops_set_done,
    .inject = ops_inject,
    .advance = ops_advance,
    .next_event = ops_next_event,
    .now = ops_now,
    .totals = ops_totals,
    .check = ops_check,
    .counters = ops_counters,
};
