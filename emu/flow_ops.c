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
 * (temu_model_stall_counters_flush).
 *
 * The counters kept per VC come from the flow model's per-class stalls
 * (temu_fm_lane_class_stalls_get) and what crossed each link per class
 * (the hop function, which this table always registers) - doc/model.md,
 * "Model levels":
 *   - BG/P no-token cycles of a VC: the part of the lane's credit stall
 *     that VC's packets waited for;
 *   - BG/Q receive-FIFO occupancy of a VC: every packet of the VC waits its
 *     own serialization (cut-through read-out) plus the VC's part of the
 *     lane's input-queue stall (one packet waiting while the head is
 *     blocked: a lower bound);
 *   - BG/Q message-unit pending requests: each request pending
 *     mu_request_ps, as the packet model counts them, counted when its
 *     packets are sent (the packet model: when they leave the node, and
 *     writes when they arrive) - equal totals once the run is over.
 */
#define TEMU_BUILDING_LIBRARY 1
#include "emu_internal.h"
#include "model.h"
#include "torusemu_flow.h"

#include <math.h>
#include <stdlib.h>

typedef struct flow_level {
    temu_fm *f;
    temu_machine m;        /* the links the counters walk */
    int64_t mu_request_ps; /* temu_tm_config's */
    uint32_t classes;
    int tlinks;
    temu_tm_hop_fn hop; /* the driver's (NULL: none) */
    void *hop_ctx;
    /* [router][link][class]: the serialization (ps) of the packets that
     * crossed */
    int64_t *cls_ser_ps;
    uint64_t *mu_requests; /* [node][0 reads, 1 writes] */
} flow_level;

/* Every crossing: tallied per link and class, then the driver's. */
static void on_hop(void *ctx, const temu_tm_hop *h)
{
    flow_level *fl = ctx;
    if (h->kind == TEMU_TM_HOP_LINK && h->vc_class < fl->classes) {
        size_t i =
            ((size_t)h->router * (size_t)fl->tlinks + (size_t)h->link) * fl->classes + h->vc_class;
        fl->cls_ser_ps[i] += (int64_t)h->packets * h->ser_ps;
    }
    if (fl->hop != NULL) {
        fl->hop(fl->hop_ctx, h);
    }
}

static void flow_level_free(flow_level *fl)
{
    if (fl != NULL) {
        temu_fm_destroy(fl->f);
        free(fl->cls_ser_ps);
        free(fl->mu_requests);
        free(fl);
    }
}

static temu_status ops_create(const temu_machine *m, const temu_tm_config *c, void **out,
                              temu_error *err)
{
    flow_level *fl = calloc(1, sizeof *fl);
    temu_status st = TEMU_OK;
    *out = NULL;
    if (fl != NULL) {
        size_t per = (size_t)(m->nrouters * 2 * m->ndims) * c->classes;
        fl->m = *m;
        fl->mu_request_ps = c->mu_request_ps;
        fl->classes = c->classes;
        fl->tlinks = 2 * m->ndims;
        fl->cls_ser_ps = calloc(per + 1, sizeof *fl->cls_ser_ps);
        fl->mu_requests = calloc((size_t)(2 * m->nnodes), sizeof *fl->mu_requests);
    }
    if (fl == NULL || fl->cls_ser_ps == NULL || fl->mu_requests == NULL) {
        flow_level_free(fl);
        return temu_fail(err, TEMU_ENOMEM, "flow model: out of memory");
    }
    st = temu_fm_create(m, c, &fl->f, err);
    if (st != TEMU_OK) {
        flow_level_free(fl);
        return st;
    }
    temu_fm_set_hop(fl->f, on_hop, fl);
    *out = fl;
    return TEMU_OK;
}

static void ops_destroy(void *model)
{
    flow_level_free(model);
}

static void ops_set_delivery(void *model, temu_tm_delivery_fn fn, void *ctx)
{
    temu_fm_set_delivery(((flow_level *)model)->f, fn, ctx);
}

static void ops_set_hop(void *model, temu_tm_hop_fn fn, void *ctx)
{
    flow_level *fl = model;
    fl->hop = fn;
    fl->hop_ctx = ctx;
}

/* One call per flow: a flow of a 1 GiB message is 16 M Gemini packets. */
static void ops_set_done(void *model, temu_model_done_fn fn, void *ctx)
{
    temu_fm_set_done(((flow_level *)model)->f, fn, ctx);
}

/* A bucket's packets as flows of one packet size each: the units mod
 * count packets one unit larger first, then the rest; BG/Q: their
 * message-unit requests counted at their ends. */
static temu_status flow_send(void *model, const temu_model_units *u, temu_error *err)
{
    flow_level *fl = model;
    temu_status st = TEMU_OK;
    uint64_t base = u->units / u->count, big = u->units % u->count;
    fl->mu_requests[2 * u->src] += u->reads;
    fl->mu_requests[2 * u->dst + 1] += u->writes;
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

/* BG/P: the part of the lane's credit stall the VC's packets waited for
 * (the flow model's per-class figures: a VC is a class). */
static temu_status stats_vc(const void *model, int64_t router, int link, int lane, uint32_t vc,
                            temu_tm_vc_stats *out, temu_error *err)
{
    const flow_level *fl = model;
    int64_t inq_ps = 0;
    out->adaptive_packets = out->adaptive_bytes = 0; /* crossings count every link */
    return temu_fm_lane_class_stalls_get(fl->f, router, link, lane, vc, &out->no_token_ps, &inq_ps,
                                         err);
}

/* BG/Q: packets x ps in the queue at the lane's receiving end: each
 * packet's serialization, and the class's part of the input-queue stall. */
static temu_status stats_occupancy(const void *model, int64_t router, int link, int lane,
                                   uint32_t cls, int64_t *packet_ps, temu_error *err)
{
    const flow_level *fl = model;
    int64_t credit_ps = 0, inq_ps = 0;
    temu_status st =
        temu_fm_lane_class_stalls_get(fl->f, router, link, lane, cls, &credit_ps, &inq_ps, err);
    *packet_ps = 0;
    if (st == TEMU_OK) {
        size_t i = ((size_t)router * (size_t)fl->tlinks + (size_t)link) * fl->classes + cls;
        *packet_ps = fl->cls_ser_ps[i] + inq_ps;
    }
    return st;
}

/* BG/Q: every request pending mu_request_ps. */
static temu_status stats_mu_pending(const void *model, int64_t node, int64_t *read_ps,
                                    int64_t *write_ps, temu_error *err)
{
    const flow_level *fl = model;
    if (node < 0 || node >= fl->m.nnodes) {
        return temu_fail(err, TEMU_ERANGE, "flow model: node %lld outside 0..%lld", (long long)node,
                         (long long)fl->m.nnodes - 1);
    }
    *read_ps = (int64_t)fl->mu_requests[2 * node] * fl->mu_request_ps;
    *write_ps = (int64_t)fl->mu_requests[2 * node + 1] * fl->mu_request_ps;
    return TEMU_OK;
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
        .vc = stats_vc,
        .occupancy = stats_occupancy,
        .mu_pending = stats_mu_pending,
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

/* A bare flow model's lane statistics through the same translation as the
 * level's (temu_model_stall_counters_flush): a driver that feeds temu_fm
 * itself (a production period's capped streams) gets the counters temu_net
 * would give.  Without the level's per-class tallies the per-VC figures
 * (BG/P no-token, BG/Q receive-FIFO, message-unit requests) are left out;
 * Gemini's stall counters need only the lanes'. */
temu_status temu_fm_stall_counters_flush(const temu_fm *fm, temu_tm_flushed *flushed,
                                         temu_session *s, temu_error *err)
{
    flow_level fl = {.f = (temu_fm *)fm, .m = *temu_session_machine(s)};
    const temu_model_stats src = {
        .model = &fl,
        .level = TEMU_TM_FLOW,
        .adaptive = 0,
        .lanes = stats_lanes,
        .lane = stats_lane,
        .check = ops_check,
    };
    return temu_model_stall_counters_flush(&src, flushed, s, err);
}
