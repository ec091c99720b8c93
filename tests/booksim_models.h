/*
 * booksim_models.h - the BookSim2 cases' network for both model levels:
 * the machine standing for a k-ary n-cube, the configuration matching
 * BookSim's (torus.tsv's header), and one bk_driver per level (packet:
 * torusemu_timing.h; flow: torusemu_flow.h, every packet one flow).
 *
 * k-ary 3-cubes run on a BG/P machine (bgp:KxKxK), 4- and 5-cubes on a
 * BG/Q one (bgq:KxKxKxKx1 with a mesh E of one node, bgq:KxKxKxKxK); every
 * machine routes its dimensions in dim_order, so BookSim's digit d (routed
 * d-th) is our dimension dim_order[d].
 *
 * Static inline (a program uses one driver or both); includes booksim_cases.h.
 */
#ifndef BOOKSIM_MODELS_H
#define BOOKSIM_MODELS_H

#include "booksim_cases.h"
#include "testutil.h"
#include "torusemu_flow.h"
#include "torusemu_timing.h"

/* Our machine for a k-ary n-cube. */
static inline temu_machine bkm_machine(const bk_cube *c)
{
    char spec[64];
    int k = c->k;
    if (c->n == 3) {
        snprintf(spec, sizeof spec, "bgp:%dx%dx%d,torus=111", k, k, k);
    } else if (c->n == 4) {
        snprintf(spec, sizeof spec, "bgq:%dx%dx%dx%dx1,torus=11110", k, k, k, k);
    } else {
        snprintf(spec, sizeof spec, "bgq:%dx%dx%dx%dx%d,torus=11111", k, k, k, k, k);
    }
    return test_machine(spec);
}

/* BookSim's network: one cycle = 1000 ps, 16-byte flits, 4-flit packets,
 * 2 VCs of 8 flits, router pipeline 4 cycles, VC turnaround 2 cycles,
 * channel latency 2, injection and ejection latency 1. */
static inline temu_tm_config bkm_config(void)
{
    temu_tm_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.router_ps = 4 * BK_CYCLE; /* routing, VC allocation, switch allocation, traversal */
    cfg.wire_ps = 2 * BK_CYCLE;   /* BookSim's torus channel latency                       */
    cfg.node_wire_ps = 1 * BK_CYCLE;
    cfg.credit_ps = 2 * BK_CYCLE; /* credits return over a channel of the same latency    */
    cfg.buffer_bytes = 8 * BK_FLIT;
    cfg.max_packet = BK_PKT_FLITS * BK_FLIT;
    cfg.classes = 1;
    cfg.flow = TEMU_TM_CREDIT;
    cfg.link_gbs = BK_FLIT * 1000.0 / BK_CYCLE; /* one flit per cycle */
    cfg.node_gbs = cfg.link_gbs;
    /* the VC turnaround: after a tail leaves an input VC, the next head
     * there is routed (routing_delay 1) and allocated a VC (vc_alloc_delay
     * 1) before it bids for the switch (iq_router.cpp, _SWAllocUpdate);
     * the source spreads its packets over the injection port's 2 VCs
     * (trafficmanager.cpp, _Step: the VC after the one used last) */
    cfg.turn_ps = 2 * BK_CYCLE;
    cfg.inject_vcs = 1;
    return cfg;
}

/* What both levels keep: the machine and our node of each BookSim node. */
typedef struct bkm_net {
    temu_machine m;
    bk_cube cube;
    int64_t *node;
} bkm_net;

static inline void bkm_net_init(bkm_net *n, const bk_cube *c)
{
    n->m = bkm_machine(c);
    n->cube = *c;
    n->node = calloc((size_t)c->nodes, sizeof *n->node);
    ck_assert(n->node != NULL);
    for (int b = 0; b < c->nodes; b++) {
        int32_t coord[TEMU_MAX_DIMS] = {0};
        for (int d = 0, rest = b; d < c->n; d++, rest /= c->k) {
            coord[n->m.dim_order[d]] = rest % c->k;
        }
        n->node[b] = temu_router_index(&n->m, coord);
    }
}

/* The lane of the channel leaving BookSim node b along digit d. */
static inline int bkm_link(const bkm_net *n, int d, int plus)
{
    int dim = n->m.dim_order[d];
    return plus ? TEMU_LINK_PLUS(dim) : TEMU_LINK_MINUS(dim);
}

/* --- the packet model --------------------------------------------------- */

typedef struct bkm_packet {
    bkm_net net;
    temu_tm *t;
} bkm_packet;

static inline void *bkm_packet_create(const bk_cube *c, bk_delivery_fn fn, void *ctx)
{
    bkm_packet *pm = calloc(1, sizeof *pm);
    temu_tm_config cfg = bkm_config();
    temu_error err;
    ck_assert(pm != NULL);
    bkm_net_init(&pm->net, c);
    ck_assert_msg(temu_tm_create(&pm->net.m, &cfg, &pm->t, &err) == TEMU_OK, "%s", err.message);
    temu_tm_set_delivery(pm->t, fn, ctx);
    return pm;
}

static inline void bkm_packet_send(void *model, int64_t at_ps, int src, int dst, uint64_t tag)
{
    bkm_packet *pm = model;
    temu_error err;
    ck_assert_msg(temu_tm_send(pm->t, at_ps, pm->net.node[src], pm->net.node[dst],
                               BK_PKT_FLITS * BK_FLIT, 0, 0, tag, &err) == TEMU_OK,
                  "%s", err.message);
}

static inline void bkm_packet_run_until(void *model, int64_t ps)
{
    bkm_packet *pm = model;
    temu_tm_run(pm->t, ps);
}

static inline int64_t bkm_packet_now(const void *model)
{
    const bkm_packet *pm = model;
    return temu_tm_now(pm->t);
}

static inline void bkm_packet_link_stalls(const void *model, int b, int d, int plus, double *credit,
                                          double *inq)
{
    const bkm_packet *pm = model;
    temu_tm_lane_stats ls;
    temu_error err;
    ck_assert_msg(temu_tm_lane_stats_get(pm->t, pm->net.node[b], bkm_link(&pm->net, d, plus), 0,
                                         &ls, &err) == TEMU_OK,
                  "%s", err.message);
    *credit = (double)ls.credit_stall_ps / BK_CYCLE;
    *inq = (double)ls.inq_stall_ps / BK_CYCLE;
}

static inline void bkm_packet_destroy(void *model)
{
    bkm_packet *pm = model;
    temu_tm_destroy(pm->t);
    free(pm->net.node);
    free(pm);
}

/* --- the flow level: every packet one flow of one packet ----------------- */

/* A run whose backlog of packets exceeds what Little's law allows
 * a network whose packets take 500 cycles on average (sent per cycle x
 * 500) is saturated beyond doubt: the flow driver stops moving it, so
 * that the packets still in it count as never delivered (the harness's
 * "saturated"), instead of solving an ever larger backlog of flows (the
 * cost of a flow's start grows with the flows sharing its channels).
 * Checked from the end of the warm-up on, when the rate sent is known. */
#define BKM_BACKLOG_FACTOR 1

typedef struct bkm_flow {
    bkm_net net;
    temu_fm *f;
    uint64_t sent;
    int stopped;
} bkm_flow;

static inline void *bkm_flow_create(const bk_cube *c, bk_delivery_fn fn, void *ctx)
{
    bkm_flow *fm = calloc(1, sizeof *fm);
    temu_tm_config cfg = bkm_config();
    temu_error err;
    /* FB_FLOW_WINDOW=PS: the flow level's solve window (doc/model.md,
     * "Flow level: solve window"), for measuring what it moves; unset: exact */
    const char *w = getenv("FB_FLOW_WINDOW");
    cfg.flow_window_ps = w != NULL && *w != '\0' ? strtoll(w, NULL, 10) : 0;
    ck_assert(fm != NULL);
    bkm_net_init(&fm->net, c);
    ck_assert_msg(temu_fm_create(&fm->net.m, &cfg, &fm->f, &err) == TEMU_OK, "%s", err.message);
    temu_fm_set_delivery(fm->f, fn, ctx);
    return fm;
}

static inline void bkm_flow_send(void *model, int64_t at_ps, int src, int dst, uint64_t tag)
{
    bkm_flow *fm = model;
    temu_error err;
    fm->sent++;
    ck_assert_msg(temu_fm_send(fm->f, at_ps, fm->net.node[src], fm->net.node[dst],
                               BK_PKT_FLITS * BK_FLIT, 1, 0, 0, 0, tag, &err) == TEMU_OK,
                  "%s", err.message);
}

static inline void bkm_flow_run_until(void *model, int64_t ps)
{
    bkm_flow *fm = model;
    int64_t cycles = ps / BK_CYCLE;
    if (!fm->stopped && cycles >= BK_WARMUP &&
        (double)temu_fm_pending(fm->f) >
            BKM_BACKLOG_FACTOR * 500.0 * (double)fm->sent / (double)cycles) {
        fm->stopped = 1;
    }
    if (!fm->stopped) {
        temu_fm_run(fm->f, ps);
    }
}

static inline int64_t bkm_flow_now(const void *model)
{
    const bkm_flow *fm = model;
    return temu_fm_now(fm->f);
}

static inline void bkm_flow_link_stalls(const void *model, int b, int d, int plus, double *credit,
                                        double *inq)
{
    const bkm_flow *fm = model;
    temu_tm_lane_stats ls;
    temu_error err;
    ck_assert_msg(temu_fm_lane_stats_get(fm->f, fm->net.node[b], bkm_link(&fm->net, d, plus), 0,
                                         &ls, &err) == TEMU_OK,
                  "%s", err.message);
    *credit = (double)ls.credit_stall_ps / BK_CYCLE;
    *inq = (double)ls.inq_stall_ps / BK_CYCLE;
}

static inline void bkm_flow_destroy(void *model)
{
    bkm_flow *fm = model;
    temu_fm_destroy(fm->f);
    free(fm->net.node);
    free(fm);
}

#endif /* BOOKSIM_MODELS_H */
