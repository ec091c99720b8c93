/*
 * model.c - the packet model as a whole: its creation (channels, queues,
 * the machine's neighbours and coordinates), what its users ask of its
 * shape and state, and its ops table (emu/model.h).
 */
#define TEMU_BUILDING_LIBRARY 1
#include "../model.h"
#include "flow.h"
#include "packet.h"
#include "routing.h"
#include "../bigmem.h"

#include <stdlib.h>
#include <string.h>

/* The arrays of a model t of machine m and configuration c; 0, or -1 when
 * out of memory. */
static int alloc_arrays(temu_tm *t, const temu_machine *m, const temu_tm_config *c)
{
    t->ch = aligned_alloc(64, (size_t)t->nchan * sizeof *t->ch); /* tm_chan's layout */
    if (t->ch) {
        temu_mem_huge(t->ch, (size_t)t->nchan * sizeof *t->ch); /* before its pages are touched */
        memset(t->ch, 0, (size_t)t->nchan * sizeof *t->ch);
    }
    /* malloc, not calloc: a waiter is written before it is read, and
     * pages of channels that never have one are never touched */
    t->wait0 = malloc((size_t)(t->nchan * TM_WAIT_INLINE) * sizeof *t->wait0);
    if (t->ch && t->wait0) {
        for (int64_t i = 0; i < t->nchan; i++) {
            t->ch[i].wait = &t->wait0[i * TM_WAIT_INLINE];
            t->ch[i].capwait = TM_WAIT_INLINE;
        }
    }
    t->q = calloc((size_t)(t->nchan * t->nvc + m->nnodes), sizeof *t->q);
    t->nbr = malloc((size_t)(m->nrouters * t->tlinks) * sizeof *t->nbr);
    t->coord = malloc((size_t)(m->nrouters * m->ndims) * sizeof *t->coord);
    t->node_router = malloc((size_t)m->nnodes * sizeof *t->node_router);
    t->sent = calloc((size_t)m->nnodes, sizeof *t->sent);
    t->back_vcs = calloc((size_t)t->nchan, sizeof *t->back_vcs);
    if (c->flow == TEMU_TM_TOKEN) {
        t->vc_pk = calloc((size_t)(t->ntorus * t->nvc), sizeof *t->vc_pk);
        t->vc_bytes = calloc((size_t)(t->ntorus * t->nvc), sizeof *t->vc_bytes);
        /* a row a channel, in whole 64-byte lines (tm_notok_row) */
        t->notok_row = (t->nvc + 1 + TM_NOTOK_SINCE + 7) / 8 * 8;
        size_t bytes = (size_t)(t->ntorus * t->notok_row) * sizeof *t->notok;
        t->notok = aligned_alloc(64, bytes > 0 ? bytes : 64);
        if (t->notok != NULL) {
            temu_mem_huge(t->notok, bytes); /* before its pages are touched */
            memset(t->notok, 0, bytes);
        }
    }
    if (c->mu_request_ps > 0) {
        t->mu_pend = calloc((size_t)(2 * m->nnodes), sizeof *t->mu_pend);
    }
    if (t->maxlanes > 1) {
        t->host = calloc((size_t)(m->nnodes * t->maxlanes), sizeof *t->host);
    }
    if (t->train > 1) {
        t->ret = calloc((size_t)(t->nchan * t->nvc), sizeof *t->ret);
    }
    /* read at random on every hop: 2 MB pages (bigmem.h), like the
     * channels; not wait0, whose pages stay untouched where no channel
     * has a waiter */
    temu_mem_huge(t->q, (size_t)(t->nchan * t->nvc + m->nnodes) * sizeof *t->q);
    temu_mem_huge(t->ret, (size_t)(t->nchan * t->nvc) * sizeof *t->ret);
    if (!t->ch || !t->wait0 || !t->q || !t->nbr || !t->coord || !t->node_router || !t->sent ||
        !t->back_vcs || (t->train > 1 && !t->ret) ||
        (c->flow == TEMU_TM_TOKEN && (!t->vc_pk || !t->vc_bytes || !t->notok)) ||
        (c->mu_request_ps > 0 && !t->mu_pend) || (t->maxlanes > 1 && !t->host)) {
        return -1;
    }
    return 0;
}

/* The table of tm_route_step, if every dimension is short enough: 0, or
 * -1 when out of memory. */
static int fill_steps(temu_tm *t, const temu_machine *m)
{
    int64_t n = 0;
    for (int d = 0; d < m->ndims; d++) {
        if (m->size[d] > TM_STEP_TABLE_MAX) {
            return 0; /* computed hop by hop */
        }
        t->step_off[d] = n;
        n += (int64_t)m->size[d] * m->size[d];
    }
    t->dim_step = malloc((size_t)n * sizeof *t->dim_step);
    if (!t->dim_step) {
        return -1;
    }
    for (int d = 0; d < m->ndims; d++) {
        for (int32_t from = 0; from < m->size[d]; from++) {
            for (int32_t to = 0; to < m->size[d]; to++) {
                t->dim_step[t->step_off[d] + (int64_t)from * m->size[d] + to] =
                    (uint16_t)tm_route_step_code(m, d, from, to);
            }
        }
    }
    return 0;
}

/* The machine's shape as the routing function reads it, and every
 * channel's rate and flight time. */
static void fill_machine(temu_tm *t, const temu_machine *m, const temu_tm_config *c)
{
    for (int64_t i = 0; i < t->nchan * t->nvc + m->nnodes; i++) {
        t->q[i].head = t->q[i].tail = -1;
        t->q[i].left_at = INT64_MIN / 4; /* no train has left yet: no VC turnaround */
    }
    for (int64_t r = 0; r < m->nrouters; r++) {
        temu_router_coords(m, r, &t->coord[r * m->ndims]);
        for (int l = 0; l < t->tlinks; l++) {
            t->nbr[r * t->tlinks + l] = (int32_t)temu_link_neighbor(m, r, l);
        }
    }
    for (int64_t n = 0; n < m->nnodes; n++) {
        t->node_router[n] = (int32_t)temu_node_router(m, n);
    }
    for (int64_t r = 0; r < m->nrouters; r++) {
        for (int l = 0; l < t->tlinks; l++) {
            int lanes = t->nbr[r * t->tlinks + l] >= 0 ? t->lanes[l] : 0; /* set above */
            double gbs = tm_params_lane_gbs(m, c, r, l);
            for (int k = 0; k < lanes; k++) {
                tm_chan *ch = &t->ch[tm_chan_id(t, r, l, k)];
                ch->ps_per_byte = 1000.0 / gbs;
                ch->wire_ps = c->wire_ps;
            }
        }
    }
    for (int64_t n = 0; n < m->nnodes; n++) {
        tm_chan *in = &t->ch[tm_inject_chan(t, n)], *ej = &t->ch[tm_eject_chan(t, n)];
        in->ps_per_byte = ej->ps_per_byte = 1000.0 / c->node_gbs;
        in->wire_ps = ej->wire_ps = c->node_wire_ps;
    }
}

temu_status temu_tm_create(const temu_machine *m, const temu_tm_config *c, temu_tm **out,
                           temu_error *err)
{
    temu_status st;
    temu_tm *t;
    *out = NULL;
    st = tm_params_check(m, c, err);
    if (st != TEMU_OK) {
        return st;
    }
    t = calloc(1, sizeof *t);
    if (!t) {
        return temu_fail(err, TEMU_ENOMEM, "timing model: out of memory");
    }
    t->m = *m;
    t->c = *c;
    t->train = c->train_packets > 1 ? c->train_packets : 1;
    t->per = c->flow == TEMU_TM_CREDIT || t->train > 1 ? 2 : 1;
    t->bubble = c->flow == TEMU_TM_TOKEN && t->per == 1;
    t->nvc = (int)c->classes * t->per;
    t->maxlanes = temu_machine_family(m)->info.max_lanes; /* Gemini 8 tiles, else 1 */
    t->tlinks = 2 * m->ndims;
    for (int l = 0; l < t->tlinks; l++) {
        t->lanes[l] = tm_params_lanes(m, l);
    }
    t->ntorus = m->nrouters * t->tlinks * t->maxlanes;
    t->nchan = t->ntorus + 2 * m->nnodes;
    t->nqin = t->nchan * t->nvc;
    t->freetr = -1;
    t->last_bucket = -1;
    if (alloc_arrays(t, m, c) != 0 || fill_steps(t, m) != 0) {
        temu_tm_destroy(t);
        return temu_fail(err, TEMU_ENOMEM, "timing model: out of memory for %lld channels",
                         (long long)t->nchan);
    }
    fill_machine(t, m, c);
    tm_flow_init(t);
    if (c->threads > 0) {
        st = tm_engine_create(t, err);
        if (st != TEMU_OK) {
            temu_tm_destroy(t);
            return st;
        }
    }
    *out = t;
    return TEMU_OK;
}

void temu_tm_destroy(temu_tm *t)
{
    if (!t) {
        return;
    }
    tm_engine_destroy(t);
    if (t->ch) {
        for (int64_t i = 0; i < t->nchan; i++) {
            if (t->ch[i].capwait > TM_WAIT_INLINE) {
                free(t->ch[i].wait); /* moved to the heap (tm_arb_grow) */
            }
        }
    }
    free(t->ch);
    free(t->wait0);
    free(t->vc_pk);
    free(t->vc_bytes);
    free(t->notok);
    free(t->mu_pend);
    free(t->host);
    free(t->q);
    free(t->ret);
    free(t->nbr);
    free(t->coord);
    free(t->dim_step);
    free(t->node_router);
    free(t->sent);
    free(t->back_vcs);
    free(t->tr_block);
    temu_evq_free(&t->events);
    free(t);
}

void temu_tm_config_get(const temu_tm *t, temu_tm_config *out)
{
    *out = t->c;
}

void temu_tm_set_delivery(temu_tm *t, temu_tm_delivery_fn fn, void *ctx)
{
    t->deliver = fn;
    t->ctx = ctx;
    if (t->eng != NULL) {
        tm_engine_callbacks(t);
    }
}

void temu_tm_set_hop(temu_tm *t, temu_tm_hop_fn fn, void *ctx)
{
    t->hop = fn;
    t->hop_ctx = ctx;
    if (t->eng != NULL) {
        tm_engine_callbacks(t);
    }
}

void temu_tm_set_hop_now(temu_tm *t, temu_tm_hop_now_fn fn, void *ctx)
{
    t->hop_now = fn; /* the regions read it from the model's own handle */
    t->hop_now_ctx = ctx;
}

int64_t temu_tm_now(const temu_tm *t)
{
    return t->now;
}

int64_t temu_tm_next_event(const temu_tm *t)
{
    if (t->eng != NULL) {
        return tm_engine_next(t);
    }
    int64_t next = temu_evq_next_time(&t->events);
    /* no event left: the last credit still comes back upstream then
     * (tm_flow_return keeps it without one), as its event did */
    return next == INT64_MAX && t->back_last > t->now ? t->back_last : next;
}

uint64_t temu_tm_pending(const temu_tm *t)
{
    return t->eng != NULL ? tm_engine_pending(t) : t->pending;
}

temu_status temu_tm_check(const temu_tm *t, temu_error *err)
{
    if (t->eng != NULL ? tm_engine_oom(t) : t->oom) {
        return temu_fail(err, TEMU_ENOMEM,
                         "timing model: out of memory during the run; results incomplete");
    }
    return TEMU_OK;
}

int temu_tm_lanes(const temu_tm *t, int64_t router, int link)
{
    if (router < 0 || router >= t->m.nrouters || link < 0 || link >= t->tlinks ||
        temu_link_neighbor(&t->m, router, link) < 0) {
        return 0;
    }
    return t->lanes[link]; /* tm_params_lanes, at creation */
}

double temu_tm_lane_gbs(const temu_tm *t, int64_t router, int link, int lane)
{
    if (lane < 0 || lane >= temu_tm_lanes(t, router, link)) {
        return 0;
    }
    return 1000.0 / t->ch[tm_chan_id(t, router, link, lane)].ps_per_byte;
}

uint32_t temu_tm_adaptive_classes(const temu_tm *t)
{
    return t->c.routing == TEMU_TM_ADAPTIVE ? t->c.dynamic_vcs : 0;
}

/* ------------------------------------------------------- the ops table */

static temu_status ops_create(const temu_machine *m, const temu_tm_config *c, void **out,
                              temu_error *err)
{
    temu_tm *t = NULL;
    temu_status st = temu_tm_create(m, c, &t, err);
    *out = t;
    return st;
}

static void ops_destroy(void *model)
{
    temu_tm_destroy(model);
}

static void ops_set_delivery(void *model, temu_tm_delivery_fn fn, void *ctx)
{
    temu_tm_set_delivery(model, fn, ctx);
}

static void ops_set_hop(void *model, temu_tm_hop_fn fn, void *ctx)
{
    temu_tm_set_hop(model, fn, ctx);
}

static void ops_set_hop_now(void *model, temu_tm_hop_now_fn fn, void *ctx)
{
    temu_tm_set_hop_now(model, fn, ctx);
}

static temu_status ops_inject(void *model, int64_t when_ps, const temu_machine *m,
                              const temu_message *msg, int dir, uint64_t tag, uint64_t *units,
                              uint64_t *bytes, temu_error *err)
{
    return temu_tm_send_message_dir(model, when_ps, m, msg, dir, tag, units, bytes, err);
}

static int64_t ops_advance(void *model, int64_t until_ps)
{
    return temu_tm_run(model, until_ps);
}

static int64_t ops_step(void *model, int64_t until_ps, const int32_t *answer)
{
    return temu_tm_run_step(model, until_ps, answer);
}

static int64_t ops_next_event(const void *model)
{
    return temu_tm_next_event(model);
}

static int64_t ops_now(const void *model)
{
    return temu_tm_now(model);
}

static void ops_totals(const void *model, temu_tm_totals *out)
{
    temu_tm_totals_get(model, out);
}

static temu_status ops_check(const void *model, temu_error *err)
{
    return temu_tm_check(model, err);
}

/* The links are counted as packets cross (crossing.c): the model adds its
 * stall and occupancy counters only. */
static temu_status ops_counters(const void *model, temu_tm_flushed *flushed, temu_session *s,
                                temu_error *err)
{
    return temu_tm_stall_counters_flush(model, flushed, s, err);
}

const temu_model_ops temu_model_packet = {
    .name = "packet",
    .create = ops_create,
    .destroy = ops_destroy,
    .set_delivery = ops_set_delivery,
    .set_hop = ops_set_hop,
    .set_hop_now = ops_set_hop_now,
    .set_done = NULL, /* one delivery per packet */
    .inject = ops_inject,
    .advance = ops_advance,
    .step = ops_step,
    .next_event = ops_next_event,
    .now = ops_now,
    .totals = ops_totals,
    .check = ops_check,
    .counters = ops_counters,
};
