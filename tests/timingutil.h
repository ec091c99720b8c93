/*
 * timingutil.h - helpers shared by the timing-model unit tests.
 */
#ifndef TEMU_TIMINGUTIL_H
#define TEMU_TIMINGUTIL_H

#include "testutil.h"
#include "torusemu_timing.h"

#define NPK 64

/* Delivery times of packets tagged 0..NPK-1. */
typedef struct got {
    int64_t created[NPK], delivered[NPK];
    int n;
} got;

static inline void on_delivery(void *ctx, uint64_t tag, int64_t created, int64_t delivered)
{
    got *g = ctx;
    ck_assert_uint_lt(tag, NPK);
    g->created[tag] = created;
    g->delivered[tag] = delivered;
    g->n++;
}

/* A model that must be created; g (if not NULL) records its deliveries. */
static inline temu_tm *make(const temu_machine *m, const temu_tm_config *c, got *g)
{
    temu_tm *t;
    temu_error err;
    ck_assert_msg(temu_tm_create(m, c, &t, &err) == TEMU_OK, "%s", err.message);
    if (g != NULL) {
        memset(g, 0, sizeof *g);
        temu_tm_set_delivery(t, on_delivery, g);
    }
    return t;
}

/* A packet that must be accepted (lane key 0). */
static inline void tm_send(temu_tm *t, int64_t when, int64_t src, int64_t dst, uint32_t bytes,
                           uint32_t cls, uint64_t tag)
{
    temu_error err;
    ck_assert_msg(temu_tm_send(t, when, src, dst, bytes, cls, 0, tag, &err) == TEMU_OK, "%s",
                  err.message);
}

/* Router (= node on Blue Gene) at x, y, z of a 3-D machine. */
static inline int64_t node(const temu_machine *m, int x, int y, int z)
{
    int32_t c[3] = {x, y, z};
    return temu_router_index(m, c);
}

/* Lane 0 of a link. */
static inline temu_tm_lane_stats lane(const temu_tm *t, int64_t router, int link)
{
    temu_tm_lane_stats s;
    temu_error err;
    ck_assert_msg(temu_tm_lane_stats_get(t, router, link, 0, &s, &err) == TEMU_OK, "%s",
                  err.message);
    return s;
}

/* A round machine: every link and node channel 1 GB/s (a packet of b
 * bytes serializes in exactly 1000*b ps), router 20 ns, wire and credit
 * return 3 ns, deep buffers, one class, credits, deterministic routing. */
static inline temu_tm_config round_config(void)
{
    temu_tm_config c;
    memset(&c, 0, sizeof c);
    c.router_ps = 20000;
    c.wire_ps = 3000;
    c.node_wire_ps = 0;
    c.credit_ps = 3000;
    c.buffer_bytes = 4096; /* deep: a lone flow never waits for credit */
    c.max_packet = 256;
    c.classes = 1;
    c.flow = TEMU_TM_CREDIT;
    c.link_gbs = 1.0;
    c.node_gbs = 1.0;
    return c;
}

#endif
