/*
 * test_flow.c - the flow level (torusemu_flow.h, emu/flow/): its max-min
 * solver on textbook cases computed by hand, its constants, and the model
 * against the packet model and against figures computed by hand (the
 * round machine of timingutil.h: every channel 1 GB/s, router 20 ns, wire
 * 3 ns, so a packet of b bytes serializes in exactly 1000*b ps).
 */
#include "../emu/flow/fm_maxmin.h"
#include "../emu/flow/fm_params.h"
#include "timingutil.h"
#include "torusemu_flow.h"

#include <math.h>
#include <stdint.h>

#define NREC 256

/* --------------------------------------------------------------- solver */

/* A problem of up to 8 flows on up to 8 channels, solved. */
typedef struct mm_case {
    int32_t nf, nc;
    double cap[8], w[8], bound[8], coef[32], rate[8];
    int32_t start[9], chan[32], limit[8];
    uint8_t full[8];
} mm_case;

/* Flow f crosses the n channels cs (coefficient 1 each unless coefs). */
static void mm_flow(mm_case *k, const int32_t *cs, int n, const double *coefs)
{
    int32_t f = k->nf++, e = k->start[f];
    k->w[f] = 1.0;
    for (int i = 0; i < n; i++) {
        k->chan[e + i] = cs[i];
        k->coef[e + i] = coefs ? coefs[i] : 1.0;
    }
    k->start[f + 1] = e + n;
}

static void mm_solve(mm_case *k)
{
    fm_mm_problem p = {k->nf, k->nc, k->cap, k->w, k->bound, k->start, k->chan, k->coef};
    fm_mm_result r = {k->rate, k->limit, k->full};
    fm_mm_work w = {0};
    ck_assert_int_eq(fm_mm_solve(&p, &w, &r), 0);
    fm_mm_work_free(&w);
}

static mm_case mm_new(int nc, const double *caps)
{
    mm_case k;
    memset(&k, 0, sizeof k);
    k.nc = nc;
    for (int i = 0; i < nc; i++) {
        k.cap[i] = caps[i];
    }
    return k;
}

/* Three flows on two links: f0 crosses A and B, f1 A only, f2 B only.
 * Equal capacities 1: every flow 1/2.  B of capacity 2: A fills first at
 * 1/2 (f0, f1), then B gives f2 what f0 leaves: 2 - 1/2 = 3/2. */
START_TEST(test_mm_three_flows_two_links)
{
    const int32_t ab[2] = {0, 1}, a[1] = {0}, b[1] = {1};
    mm_case k = mm_new(2, (double[]){1.0, 1.0});
    mm_flow(&k, ab, 2, NULL);
    mm_flow(&k, a, 1, NULL);
    mm_flow(&k, b, 1, NULL);
    mm_solve(&k);
    for (int f = 0; f < 3; f++) {
        ck_assert_double_eq_tol(k.rate[f], 0.5, 1e-12);
    }
    ck_assert(k.full[0] && k.full[1]);

    k = mm_new(2, (double[]){1.0, 2.0});
    mm_flow(&k, ab, 2, NULL);
    mm_flow(&k, a, 1, NULL);
    mm_flow(&k, b, 1, NULL);
    mm_solve(&k);
    ck_assert_double_eq_tol(k.rate[0], 0.5, 1e-12);
    ck_assert_double_eq_tol(k.rate[1], 0.5, 1e-12);
    ck_assert_double_eq_tol(k.rate[2], 1.5, 1e-12);
    ck_assert_int_eq(k.limit[0], 0);
    ck_assert_int_eq(k.limit[1], 0);
    ck_assert_int_eq(k.limit[2], 1);
}
END_TEST

/* A bound stops a flow early and its share goes to the others: f1
 * bounded at 0.2 on A; f0 then fills A at 0.8 (before B, which would
 * give it 1.0), and f2 takes the rest of B: 2 - 0.8 = 1.2. */
START_TEST(test_mm_bound)
{
    const int32_t ab[2] = {0, 1}, a[1] = {0}, b[1] = {1};
    mm_case k = mm_new(2, (double[]){1.0, 2.0});
    mm_flow(&k, ab, 2, NULL);
    mm_flow(&k, a, 1, NULL);
    mm_flow(&k, b, 1, NULL);
    k.bound[1] = 0.2;
    mm_solve(&k);
    ck_assert_double_eq_tol(k.rate[0], 0.8, 1e-12);
    ck_assert_double_eq_tol(k.rate[1], 0.2, 1e-12);
    ck_assert_double_eq_tol(k.rate[2], 1.2, 1e-12);
    ck_assert_int_eq(k.limit[1], -1);
    ck_assert_int_eq(k.limit[0], 0);
    /* a bound above the fair share changes nothing */
    k = mm_new(1, (double[]){1.0});
    mm_flow(&k, (int32_t[]){0}, 1, NULL);
    mm_flow(&k, (int32_t[]){0}, 1, NULL);
    k.bound[0] = 0.9;
    mm_solve(&k);
    ck_assert_double_eq_tol(k.rate[0], 0.5, 1e-12);
    ck_assert_double_eq_tol(k.rate[1], 0.5, 1e-12);
}
END_TEST

/* Weights share in proportion (1:3 -> 1/4, 3/4); a coefficient of 2 (a
 * packet twice as long on the channel) halves what a rate may be: both
 * at level 1/3, f0 using 2/3 of the channel. */
START_TEST(test_mm_weights_and_coefficients)
{
    mm_case k = mm_new(1, (double[]){1.0});
    mm_flow(&k, (int32_t[]){0}, 1, NULL);
    mm_flow(&k, (int32_t[]){0}, 1, NULL);
    k.w[1] = 3.0;
    mm_solve(&k);
    ck_assert_double_eq_tol(k.rate[0], 0.25, 1e-12);
    ck_assert_double_eq_tol(k.rate[1], 0.75, 1e-12);

    k = mm_new(1, (double[]){1.0});
    mm_flow(&k, (int32_t[]){0}, 1, (double[]){2.0});
    mm_flow(&k, (int32_t[]){0}, 1, NULL);
    mm_solve(&k);
    ck_assert_double_eq_tol(k.rate[0], 1.0 / 3, 1e-12);
    ck_assert_double_eq_tol(k.rate[1], 1.0 / 3, 1e-12);
}
END_TEST

/* A chain: f0 on A, B, C; f1 on A; f2 on C with capacities 1, 0.3, 1.
 * B stops f0 at 0.3, then A gives f1 0.7 and C gives f2 0.7. */
START_TEST(test_mm_chain_bottleneck)
{
    mm_case k = mm_new(3, (double[]){1.0, 0.3, 1.0});
    mm_flow(&k, (int32_t[]){0, 1, 2}, 3, NULL);
    mm_flow(&k, (int32_t[]){0}, 1, NULL);
    mm_flow(&k, (int32_t[]){2}, 1, NULL);
    mm_solve(&k);
    ck_assert_double_eq_tol(k.rate[0], 0.3, 1e-12);
    ck_assert_double_eq_tol(k.rate[1], 0.7, 1e-12);
    ck_assert_double_eq_tol(k.rate[2], 0.7, 1e-12);
    ck_assert_int_eq(k.limit[0], 1);
}
END_TEST

/* Larger problems, drawn at random (a fixed linear congruential
 * sequence), checked against the definition of weighted max-min fairness
 * rather than against figures: no channel carries more than its capacity,
 * and every flow either runs at its bound or has a bottleneck, a full
 * channel on its route where no flow has a higher level (rate / weight)
 * (Bertsekas and Gallager, "Data Networks", 6.5.2).  Heaps of hundreds of
 * entries exercise what the small cases above cannot: the order of pops
 * and renewals deep in the heap.  One work area serves every problem, as
 * in the model, so its reuse is checked too. */
static uint32_t mm_draw(uint32_t *x, uint32_t n)
{
    *x = *x * 1664525u + 1013904223u;
    return (*x >> 8) % n;
}

START_TEST(test_mm_random_is_max_min)
{
    enum { NF = 600, NC = 400, NE = NF * 8 };
    static double cap[NC], w[NF], bound[NF], coef[NE], rate[NF], load[NC];
    static int32_t start[NF + 1], chan[NE], limit[NF];
    static uint8_t full[NC];
    const double tol = 1e-9;
    uint32_t x = 12345;
    fm_mm_work work = {0};
    for (int trial = 0; trial < 60; trial++) {
        int32_t nc = 2 + (int32_t)mm_draw(&x, NC - 1), nf = 1 + (int32_t)mm_draw(&x, NF), ne = 0;
        for (int32_t c = 0; c < nc; c++) {
            cap[c] = 0.25 + mm_draw(&x, 8) * 0.25;
        }
        for (int32_t f = 0; f < nf; f++) {
            int32_t hops = 1 + (int32_t)mm_draw(&x, 8);
            w[f] = 1.0 + mm_draw(&x, 3);
            bound[f] = mm_draw(&x, 10) < 3 ? 0.01 + mm_draw(&x, 50) * 0.01 : 0.0;
            start[f] = ne;
            for (int32_t h = 0; h < hops; h++) {
                int32_t c = (int32_t)mm_draw(&x, (uint32_t)nc), dup = 0;
                for (int32_t e = start[f]; e < ne; e++) {
                    dup |= chan[e] == c;
                }
                if (!dup) {
                    chan[ne] = c;
                    coef[ne++] = 1.0 + mm_draw(&x, 3) * 0.5;
                }
            }
        }
        start[nf] = ne;
        fm_mm_problem p = {nf, nc, cap, w, bound, start, chan, coef};
        fm_mm_result r = {rate, limit, full};
        ck_assert_int_eq(fm_mm_solve(&p, &work, &r), 0);
        for (int32_t c = 0; c < nc; c++) {
            load[c] = 0;
        }
        for (int32_t f = 0; f < nf; f++) {
            ck_assert(rate[f] > 0);
            for (int32_t e = start[f]; e < start[f + 1]; e++) {
                load[chan[e]] += coef[e] * rate[f];
            }
        }
        for (int32_t c = 0; c < nc; c++) {
            ck_assert_msg(load[c] <= cap[c] * (1 + tol), "trial %d: channel %d carries %g of %g", trial,
                          c, load[c], cap[c]);
        }
        for (int32_t f = 0; f < nf; f++) {
            if (limit[f] < 0) {
                ck_assert_msg(bound[f] > 0 && fabs(rate[f] - bound[f]) <= tol * bound[f],
                              "trial %d: flow %d stopped by a bound it has not", trial, f);
                continue;
            }
            int32_t c = limit[f], on = 0;
            ck_assert(full[c]);
            ck_assert_msg(load[c] >= cap[c] * (1 - tol), "trial %d: flow %d's bottleneck %d not full",
                          trial, f, c);
            for (int32_t g = 0; g < nf; g++) {
                for (int32_t e = start[g]; e < start[g + 1]; e++) {
                    if (chan[e] != c) {
                        continue;
                    }
                    on |= g == f;
                    ck_assert_msg(rate[g] / w[g] <= rate[f] / w[f] * (1 + tol),
                                  "trial %d: flow %d is above flow %d on its bottleneck %d", trial, g, f,
                                  c);
                }
            }
            ck_assert(on);
        }
    }
    fm_mm_work_free(&work);
}
END_TEST

/* --------------------------------------------------------------- params */

START_TEST(test_params)
{
    const fm_params *p = &fm_params_default;
    /* no input queue mixes outputs: no head-of-line blocking */
    ck_assert_double_eq(fm_params_eta(p, 4, 0, 1), 1.0);
    ck_assert_double_eq(fm_params_eta(p, 1, 1, 1), 1.0);
    ck_assert_double_eq_tol(fm_params_eta(p, 2, 1, 1), 0.75, 1e-12);
    ck_assert_double_eq_tol(fm_params_eta(p, 50, 1, 1), 0.6184, 1e-12);
    ck_assert_double_eq(fm_params_wait(p, 0.0, 0.9), 0.0);
    ck_assert_double_eq_tol(fm_params_wait(p, 0.25, 0.5), 0.25, 1e-12);
    ck_assert(fm_params_wait(p, 0.5, 1.5) == fm_params_wait(p, 0.5, 0.98));
    ck_assert_double_eq(fm_params_full(0.0, 4), 0.0);
    ck_assert_double_eq_tol(fm_params_full(1.0, 4), 0.2, 1e-12);
    double prev = 0;
    for (int i = 1; i <= 20; i++) {
        double v = fm_params_full(0.1 * i, 4);
        ck_assert(v > prev);
        prev = v;
    }
}
END_TEST

/* --------------------------------------------------------------- model */

typedef struct rec {
    int64_t created[NREC], delivered[NREC];
    uint64_t tag[NREC];
    int n;
    int done;
    int64_t done_ps[NREC];
    uint64_t done_packets[NREC];
} rec;

static void on_flow_delivery(void *ctx, uint64_t tag, int64_t created, int64_t delivered)
{
    rec *r = ctx;
    if (r->n < NREC) {
        r->created[r->n] = created;
        r->tag[r->n] = tag;
        r->delivered[r->n] = delivered;
    }
    r->n++;
}

static void on_done(void *ctx, uint64_t tag, uint64_t packets, int64_t created, int64_t done)
{
    rec *r = ctx;
    (void)created;
    ck_assert_uint_lt(tag, NREC);
    r->done_ps[tag] = done;
    r->done_packets[tag] = packets;
    r->done++;
}

static temu_fm *fm_make(const temu_machine *m, const temu_tm_config *c, rec *r)
{
    temu_fm *f;
    temu_error err;
    ck_assert_msg(temu_fm_create(m, c, &f, &err) == TEMU_OK, "%s", err.message);
    if (r != NULL) {
        memset(r, 0, sizeof *r);
        temu_fm_set_delivery(f, on_flow_delivery, r);
        temu_fm_set_done(f, on_done, r);
    }
    return f;
}

static void fm_send(temu_fm *f, int64_t when, int64_t src, int64_t dst, uint32_t bytes,
                    uint64_t count, uint32_t lane_key, double max_gbs, uint64_t tag)
{
    temu_error err;
    ck_assert_msg(temu_fm_send(f, when, src, dst, bytes, count, 0, lane_key, max_gbs, tag, &err) ==
                      TEMU_OK,
                  "%s", err.message);
}

static temu_tm_lane_stats fm_lane(const temu_fm *f, int64_t router, int link, int lane)
{
    temu_tm_lane_stats s;
    temu_error err;
    ck_assert_msg(temu_fm_lane_stats_get(f, router, link, lane, &s, &err) == TEMU_OK, "%s",
                  err.message);
    return s;
}

/* A machine's own configuration, routed deterministically (the flow
 * level's route) with single packets. */
static temu_tm_config machine_config(const temu_machine *m)
{
    temu_tm_config c;
    temu_error err;
    ck_assert_msg(temu_tm_config_default(m, &c, &err) == TEMU_OK, "%s", err.message);
    c.routing = TEMU_TM_DETERMINISTIC;
    c.train_packets = 1;
    return c;
}

/* Deliveries of `count` packets of `bytes` from src to dst created at
 * 1000 ps, in the packet model, into out[count]; the last returned. */
static int64_t packet_model_time(const temu_machine *m, const temu_tm_config *c, int64_t src,
                                 int64_t dst, uint32_t bytes, uint32_t count, uint32_t key,
                                 int64_t *out)
{
    temu_tm *t;
    temu_error err;
    rec r;
    memset(&r, 0, sizeof r);
    ck_assert_msg(temu_tm_create(m, c, &t, &err) == TEMU_OK, "%s", err.message);
    temu_tm_set_delivery(t, on_flow_delivery, &r);
    ck_assert_msg(temu_tm_send_train(t, 1000, src, dst, bytes, count, 0, key, 0, &err) == TEMU_OK,
                  "%s", err.message);
    temu_tm_run(t, INT64_MAX);
    temu_tm_destroy(t);
    ck_assert_int_eq(r.n, (int)count);
    memcpy(out, r.delivered, count * sizeof *out);
    return r.delivered[count - 1];
}

/* The same in the flow level. */
static int64_t flow_model_time(const temu_machine *m, const temu_tm_config *c, int64_t src,
                               int64_t dst, uint32_t bytes, uint32_t count, uint32_t key,
                               int64_t *out)
{
    rec r;
    temu_fm *f = fm_make(m, c, &r);
    fm_send(f, 1000, src, dst, bytes, count, key, 0, 0);
    temu_fm_run(f, INT64_MAX);
    ck_assert_uint_eq(temu_fm_pending(f), 0);
    temu_fm_destroy(f);
    ck_assert_int_eq(r.n, (int)count);
    ck_assert_int_eq(r.done, 1);
    ck_assert_int_eq(r.done_ps[0], r.delivered[count - 1]);
    memcpy(out, r.delivered, count * sizeof *out);
    return r.delivered[count - 1];
}

/* One packet alone is delivered exactly when the packet model delivers
 * it, on the three families' own parameters (Gemini's tiles by medium,
 * BG/P, BG/Q), over long routes, a tie at k/2, within one router and to
 * itself; a lone flow of 16 packets too (the brief allowed one
 * serialization of its slowest channel; it is exact). */
START_TEST(test_lone_flow_matches_packet_model)
{
    const char *specs[3] = {"gemini:4x6x4", "bgp:8x4x4", "bgq:4x4x4x4x2"};
    for (int s = 0; s < 3; s++) {
        temu_machine m = test_machine(specs[s]);
        temu_tm_config c = machine_config(&m);
        int64_t last = m.nnodes - 1;
        int64_t pairs[5][2] = {{0, last}, {last, 0}, {0, last / 2}, {0, 1}, {3, 3}};
        uint32_t sizes[2] = {c.max_packet, 24};
        for (int p = 0; p < 5; p++) {
            for (int z = 0; z < 2; z++) {
                for (uint32_t key = 0; key < 3; key++) {
                    int64_t pa[16], fa[16];
                    int64_t a =
                        packet_model_time(&m, &c, pairs[p][0], pairs[p][1], sizes[z], 1, key, pa);
                    int64_t b =
                        flow_model_time(&m, &c, pairs[p][0], pairs[p][1], sizes[z], 1, key, fa);
                    ck_assert_msg(a == b, "%s %lld->%lld %u bytes key %u: packet %lld flow %lld",
                                  specs[s], (long long)pairs[p][0], (long long)pairs[p][1],
                                  sizes[z], key, (long long)a, (long long)b);
                    int64_t an =
                        packet_model_time(&m, &c, pairs[p][0], pairs[p][1], sizes[z], 16, key, pa);
                    int64_t bn =
                        flow_model_time(&m, &c, pairs[p][0], pairs[p][1], sizes[z], 16, key, fa);
                    /* the packet model's pipeline delivers one packet per
                     * serialization of the slowest channel, as the flow drains */
                    ck_assert_msg(an == bn, "%s %lld->%lld 16 x %u bytes: packet %lld flow %lld",
                                  specs[s], (long long)pairs[p][0], (long long)pairs[p][1],
                                  sizes[z], (long long)an, (long long)bn);
                    /* every packet, not only the last */
                    ck_assert_mem_eq(pa, fa, sizeof pa);
                }
            }
        }
    }
}
END_TEST

/* When an 8-byte message (one 24-byte packet) from node 4 to node 9 of
 * gemini:2x2x2 arrives, sent at 600 ns, alone or behind PUT-incast-like
 * streams of 64 96-byte packets from node 12 and/or node 7 to node 8 sent
 * at 0 (packet model when packet, else flow level); ps after its send. */
static int64_t behind_incast(const temu_machine *m, int from12, int from7, int packet)
{
    temu_tm_config c = machine_config(m);
    temu_error err;
    rec r;
    const int64_t at = 600000;
    int64_t arrived = -1;
    if (packet) {
        temu_tm *t;
        memset(&r, 0, sizeof r);
        ck_assert_msg(temu_tm_create(m, &c, &t, &err) == TEMU_OK, "%s", err.message);
        temu_tm_set_delivery(t, on_flow_delivery, &r);
        for (uint32_t k = 0; k < 64; k++) {
            ck_assert(!from12 || temu_tm_send(t, 0, 12, 8, c.max_packet, 0, k, 1, &err) == TEMU_OK);
            ck_assert(!from7 || temu_tm_send(t, 0, 7, 8, c.max_packet, 0, k, 2, &err) == TEMU_OK);
        }
        ck_assert(temu_tm_send(t, at, 4, 9, 24, 0, 1, 9, &err) == TEMU_OK);
        temu_tm_run(t, INT64_MAX);
        temu_tm_destroy(t);
        for (int i = 0; i < r.n && i < NREC; i++) {
            arrived = r.tag[i] == 9 ? r.delivered[i] : arrived;
        }
    } else {
        temu_fm *f = fm_make(m, &c, &r);
        if (from12) {
            fm_send(f, 0, 12, 8, c.max_packet, 64, 0, 0, 1);
        }
        if (from7) {
            fm_send(f, 0, 7, 8, c.max_packet, 64, 0, 0, 2);
        }
        fm_send(f, at, 4, 9, 24, 1, 1, 0, 9);
        temu_fm_run(f, INT64_MAX);
        temu_fm_destroy(f);
        arrived = r.done_ps[9];
    }
    ck_assert_int_gt(arrived, at);
    return arrived - at;
}

/* Head-of-line blocking, the cause of the flow level's low GPCNeT
 * Allreduce impact (doc/model.md, "Known gaps": there the allreduce's
 * messages from node 4 waited up to 1,070 ns in router 4's input queue
 * behind a PUT incast's packets from node 12 to node 8).  With node 8's
 * ejection channel oversubscribed by nodes 12 and 7, the packets from
 * node 12 queue in router 4's input from router 6, which the message from
 * node 4 to node 9 shares: the packet model delivers it only after them
 * (measured 1,092,330 ps against 314,616 alone), though node 9's ejection
 * channel is idle; with the stream from node 7 alone (another input) it is
 * not delayed, and from node 12 alone (no queue) little (365,358 ps).
 * The flow level has no queue behind other flows: the message drains at
 * its share and arrives as alone (314,616 ps). */
START_TEST(test_head_of_line_packet_model_only)
{
    temu_machine m = test_machine("gemini:2x2x2");
    int64_t alone = behind_incast(&m, 0, 0, 1);
    ck_assert_int_eq(behind_incast(&m, 0, 0, 0), alone);
    ck_assert_int_eq(behind_incast(&m, 0, 1, 1), alone);
    ck_assert_int_lt(behind_incast(&m, 1, 0, 1), alone + 100000);
    int64_t packet = behind_incast(&m, 1, 1, 1), flow = behind_incast(&m, 1, 1, 0);
    ck_assert_msg(packet > alone + 500000, "packet model: %lld ps, alone %lld", (long long)packet,
                  (long long)alone);
    ck_assert_msg(flow < alone + 100000, "flow level: %lld ps, alone %lld", (long long)flow,
                  (long long)alone);
}
END_TEST

/* tests/test_timing_booksim.c's configuration: one class, credits, two
 * 64-byte packets per input queue, 16 GB/s channels (4 ns a packet). */
static temu_tm_config shallow_config(void)
{
    temu_tm_config c = round_config();
    c.router_ps = 4000;
    c.wire_ps = c.credit_ps = 2000;
    c.node_wire_ps = 1000;
    c.buffer_bytes = 128;
    c.max_packet = 64;
    c.link_gbs = c.node_gbs = 16.0;
    return c;
}

/* Shallow buffers (tests/test_timing_booksim.c's configuration: two
 * 64-byte packets per input queue, a packet holding its space for
 * 2 + 4 + 4 + 2 ns from the credit taken to the credit back) pace a lone
 * flow at one packet per 6 ns, not per its 4-ns serialization: the flow
 * level's buffer constraint gives the packet model's times. */
START_TEST(test_shallow_buffers_pace_a_flow)
{
    temu_machine m = test_machine("bgp:4x4x4");
    temu_tm_config c = shallow_config();
    int64_t pa[16], fa[16];
    int64_t a = packet_model_time(&m, &c, 0, node(&m, 2, 1, 3), 64, 16, 0, pa);
    int64_t b = flow_model_time(&m, &c, 0, node(&m, 2, 1, 3), 64, 16, 0, fa);
    ck_assert_int_eq(pa[15] - pa[13], 12000); /* two packets per 12 ns */
    ck_assert_msg(llabs(a - b) <= 4000, "packet %lld flow %lld", (long long)a, (long long)b);
}
END_TEST

/* The VC turnaround (temu_tm_config.turn_ps; fm_route.c, add_turnaround):
 * packets back to back in one router input VC leave one per read-out +
 * turn_ps, so a lone flow of 16 packets of 4 ns with a 2-ns turnaround
 * drains at one per 6 ns through a router (deep buffers: no credit loop),
 * as in the packet model; without the turnaround constraint the flow
 * level sends one per 4 ns (30 ns early).  Also within one router (the
 * injection VC read out onto the ejection channel), and with inject_vcs:
 * one send is one flow, all of its packets on one VC of the injection
 * port, in both levels. */
START_TEST(test_turnaround_paces_a_flow)
{
    temu_machine m = test_machine("bgp:4x4x4");
    temu_tm_config c = shallow_config();
    c.buffer_bytes = 4096;
    c.turn_ps = 2000;
    int64_t dst[2] = {node(&m, 2, 1, 3), 0};
    for (int d = 0; d < 2; d++) {
        for (uint32_t spread = 0; spread < 2; spread++) {
            int64_t pa[16], fa[16];
            c.inject_vcs = spread;
            int64_t a = packet_model_time(&m, &c, 0, dst[d], 64, 16, 0, pa);
            int64_t b = flow_model_time(&m, &c, 0, dst[d], 64, 16, 0, fa);
            ck_assert_int_eq(pa[15] - pa[14], 6000);
            ck_assert_msg(a == b, "to %lld, inject_vcs %u: packet %lld flow %lld",
                          (long long)dst[d], spread, (long long)a, (long long)b);
        }
    }
}
END_TEST

/* Two flows share the X+ link leaving x=1 on the round machine: A from
 * (0,0,0) to (2,0,0), 10 packets; B from (1,0,0) to (3,0,0), 4 packets;
 * 100 bytes each, S = 100000 ps per packet on every channel.  Each gets
 * half the link: B drains its 4 packets in 8S, then A has 6 left alone at
 * one per S: 14S.  Delivery adds the pipeline: 2 hops, S + 3 x 20000 +
 * 2 x 3000 less S = 66000. */
START_TEST(test_two_flows_share_a_link)
{
    temu_machine m = test_machine("bgp:8x4x4");
    temu_tm_config c = round_config();
    rec r;
    temu_fm *f = fm_make(&m, &c, &r);
    fm_send(f, 0, node(&m, 0, 0, 0), node(&m, 2, 0, 0), 100, 10, 0, 0, 0);
    fm_send(f, 0, node(&m, 1, 0, 0), node(&m, 3, 0, 0), 100, 4, 0, 0, 1);
    ck_assert_int_eq(temu_fm_next_event(f), 0);
    temu_fm_run(f, INT64_MAX);
    ck_assert_int_eq(r.done, 2);
    ck_assert_int_eq(r.done_ps[1], 8 * 100000 + 66000);
    ck_assert_int_eq(r.done_ps[0], 14 * 100000 + 66000);
    ck_assert_uint_eq(r.done_packets[0], 10);
    ck_assert_int_eq(r.n, 14);
    /* the shared link: 14 packets, busy 14 S; A's first link 10 */
    temu_tm_lane_stats s = fm_lane(f, node(&m, 1, 0, 0), TEMU_LINK_PLUS(0), 0);
    ck_assert_uint_eq(s.packets, 14);
    ck_assert_uint_eq(s.bytes, 1400);
    ck_assert_int_eq(s.busy_ps, 14 * 100000);
    ck_assert_uint_eq(fm_lane(f, node(&m, 0, 0, 0), TEMU_LINK_PLUS(0), 0).packets, 10);
    temu_fm_totals tot;
    temu_fm_totals_get(f, &tot);
    ck_assert_uint_eq(tot.flows, 2);
    ck_assert_uint_ge(tot.solves, 2);
    temu_fm_destroy(f);
}
END_TEST

/* A change reaches flows that do not share a channel with it, and the
 * derating follows the input queues.  Round machine, S = 100000 ps per
 * 100-byte packet, along X: A x0->x2 (links x0-x1, L1 = x1-x2), B x1->x3
 * (L1, L2 = x2-x3), C x2->x4 (L2, x3-x4), and from 8S D x2->x3 (L2).
 *   0..8S   L1 and L2 full; L2 is fed by L1, whose queue holds A (to
 *           eject) and B (to L2): head-of-line blocking, eta(2) = 0.75,
 *           so B = C = 0.375/S, A = 1 - 0.375 = 0.625/S (5, 3, 3 drained);
 *   8S      D joins L2: B = C = D = 0.25/S, and A, which does not cross
 *           L2, rises to 0.75/S; its last 3 packets end at 12S;
 *   12S     L1 holds only B: L2 no longer derated, B = C = D = 1/3 per S
 *           (B, C 4 drained, D 1); D's last packet ends at 15S;
 *   15S     B = C = 0.5/S (5 drained each): C's last 2 end at 19S;
 *   19S     B alone at 1/S: its last 2 end at 21S.
 * Deliveries add the pipeline less S: 66000 ps for 2 hops, 43000 for 1. */
START_TEST(test_rates_follow_changes)
{
    temu_machine m = test_machine("bgp:8x4x4");
    temu_tm_config c = round_config();
    rec r;
    temu_fm *f = fm_make(&m, &c, &r);
    const int64_t s = 100000;
    fm_send(f, 0, node(&m, 0, 0, 0), node(&m, 2, 0, 0), 100, 8, 0, 0, 0);
    fm_send(f, 0, node(&m, 1, 0, 0), node(&m, 3, 0, 0), 100, 9, 0, 0, 1);
    fm_send(f, 0, node(&m, 2, 0, 0), node(&m, 4, 0, 0), 100, 7, 0, 0, 2);
    /* D is sent while C, from the same node, is under way: capped (far above
     * any rate it gets) it bypasses the node's source queue */
    fm_send(f, 8 * s, node(&m, 2, 0, 0), node(&m, 3, 0, 0), 100, 2, 0, 1000.0, 3);
    temu_fm_run(f, INT64_MAX);
    ck_assert_int_eq(r.done, 4);
    ck_assert_int_eq(r.done_ps[0], 12 * s + 66000);
    ck_assert_int_eq(r.done_ps[3], 15 * s + 43000);
    ck_assert_int_eq(r.done_ps[2], 19 * s + 66000);
    ck_assert_int_eq(r.done_ps[1], 21 * s + 66000);
    /* L2 was busy 0.75 of 0..12S, all of 12S..19S, and B's 2S: 9 + 7 + 2;
     * it carried every packet of B, C and D */
    temu_tm_lane_stats l2 = fm_lane(f, node(&m, 2, 0, 0), TEMU_LINK_PLUS(0), 0);
    ck_assert_int_eq(l2.busy_ps, 18 * s);
    ck_assert_uint_eq(l2.packets, 9 + 7 + 2);
    temu_fm_destroy(f);
}
END_TEST

/* One instant, two solves, stall rates once (fm_model.c, step): on the
 * round machine x0 sends A1 to x2 and A2 to (0,1,0), x1 sends B to x3,
 * all at 0.  The first solve gives A1 and B half of x1's X+ link each, so
 * x0's injection channel has time to spare and its source queue admits A2
 * in a second solve of the same instant.  The lanes whose stall rates
 * change: the first solve's 7 (x0's and x1's injection channels, X+ of x0,
 * x1 and x2, the ejection channels of x2 and x3) and the second's 4 (x0's
 * injection channel, its Y+ link, (0,1,0)'s ejection channel, and x0's X+
 * link, fed by the injection channel whose queue changed), two of them in
 * both: 9 lanes, each evaluated once (evaluated after each solve: 11). */
START_TEST(test_one_instant_stall_rates_once)
{
    temu_machine m = test_machine("bgp:8x4x4");
    temu_tm_config c = round_config();
    rec r;
    temu_fm *f = fm_make(&m, &c, &r);
    temu_fm_totals tot;
    fm_send(f, 0, node(&m, 0, 0, 0), node(&m, 2, 0, 0), 100, 10, 0, 0, 0);
    fm_send(f, 0, node(&m, 0, 0, 0), node(&m, 0, 1, 0), 100, 10, 0, 0, 1);
    fm_send(f, 0, node(&m, 1, 0, 0), node(&m, 3, 0, 0), 100, 10, 0, 0, 2);
    temu_fm_run(f, 0);
    temu_fm_totals_get(f, &tot);
    ck_assert_uint_eq(tot.flows, 3);
    ck_assert_uint_eq(tot.stall_lanes, 9);
    /* A2 went at 0 with the half the injection channel left */
    ck_assert_int_eq(fm_lane(f, node(&m, 0, 0, 0), TEMU_LINK_PLUS(1), 0).packets, 1);
    temu_fm_destroy(f);
}
END_TEST

/* A node's flows leave its source queue in the order sent, as in the
 * packet model (one FIFO per node): on the round machine (S = 100000 ps
 * per 100-byte packet, 4096-byte buffers) x0 sends A, 40 packets to x2,
 * and B, 30 packets to (0,1,0), at once.  B does not fit in the buffer
 * behind A: A drains alone by 40S (66000 ps of pipeline: 2 hops), then B
 * by 70S (43000: 1 hop) - not both at half the injection channel (B at
 * 60S, A at 70S); and the packet model delivers both at the same ps. */
START_TEST(test_source_queue_is_fifo)
{
    temu_machine m = test_machine("bgp:8x4x4");
    temu_tm_config c = round_config();
    const int64_t s = 100000;
    int64_t src = node(&m, 0, 0, 0), dst[2] = {node(&m, 2, 0, 0), node(&m, 0, 1, 0)};
    uint32_t count[2] = {40, 30};
    rec r, pr;
    temu_fm *f = fm_make(&m, &c, &r);
    temu_tm *t;
    temu_error err;
    memset(&pr, 0, sizeof pr);
    ck_assert_msg(temu_tm_create(&m, &c, &t, &err) == TEMU_OK, "%s", err.message);
    temu_tm_set_delivery(t, on_flow_delivery, &pr);
    for (uint64_t i = 0; i < 2; i++) {
        fm_send(f, 0, src, dst[i], 100, count[i], 0, 0, i);
        ck_assert_msg(temu_tm_send_train(t, 0, src, dst[i], 100, count[i], 0, 0, i, &err) ==
                          TEMU_OK,
                      "%s", err.message);
    }
    temu_fm_run(f, INT64_MAX);
    temu_tm_run(t, INT64_MAX);
    ck_assert_int_eq(r.done, 2);
    ck_assert_int_eq(r.done_ps[0], 40 * s + 66000);
    ck_assert_int_eq(r.done_ps[1], 70 * s + 43000);
    ck_assert_int_eq(pr.n, 70);
    ck_assert_int_eq(pr.delivered[39], r.done_ps[0]);
    ck_assert_int_eq(pr.delivered[69], r.done_ps[1]);
    temu_tm_destroy(t);
    temu_fm_destroy(f);
}
END_TEST

/* A flow capped at 0.25 GB/s (100-byte packets: one per 400000 ps) alone:
 * 5 packets drain in 2000000 ps. */
START_TEST(test_rate_cap)
{
    temu_machine m = test_machine("bgp:8x4x4");
    temu_tm_config c = round_config();
    rec r;
    temu_fm *f = fm_make(&m, &c, &r);
    fm_send(f, 0, node(&m, 0, 0, 0), node(&m, 1, 0, 0), 100, 5, 0, 0.25, 0);
    temu_fm_run(f, INT64_MAX);
    /* one hop: pipeline S + 2 x 20000 + 3000, less S */
    ck_assert_int_eq(r.done_ps[0], 2000000 + 43000);
    temu_fm_destroy(f);
}
END_TEST

/* A little deterministic generator for workloads (xorshift64). */
static uint64_t rnd(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

/* Expected packets per (router, link, lane), from temu_route's hops. */
static void expect_route(const temu_machine *m, int64_t src, int64_t dst, uint32_t key,
                         uint64_t count, uint64_t *want)
{
    temu_hop hops[64];
    int n = temu_route(m, temu_node_router(m, src), temu_node_router(m, dst), hops, 64);
    ck_assert_int_ge(n, 0);
    for (int i = 0; i < n; i++) {
        int lane = (int)(key % (uint32_t)temu_link_lanes(m, hops[i].link));
        want[(hops[i].from * m->nlinks + hops[i].link) * 8 + lane] += count;
    }
}

/* Random flows on a Gemini torus (8 tiles per direction): every lane's
 * packets and bytes are what the routes imply, and the totals are the
 * same run after run (and from a second model fed the same flows). */
START_TEST(test_lane_volumes_follow_routes)
{
    temu_machine m = test_machine("gemini:4x3x4");
    temu_tm_config c = machine_config(&m);
    size_t nl = (size_t)(m.nrouters * m.nlinks * 8);
    uint64_t *want = calloc(nl, sizeof *want);
    temu_tm_lane_stats *first = calloc(nl, sizeof *first);
    for (int round = 0; round < 2; round++) {
        uint64_t seed = 12345;
        rec r;
        temu_fm *f = fm_make(&m, &c, &r);
        for (int i = 0; i < 60; i++) {
            int64_t src = (int64_t)(rnd(&seed) % (uint64_t)m.nnodes);
            int64_t dst = (int64_t)(rnd(&seed) % (uint64_t)m.nnodes);
            uint32_t key = (uint32_t)(rnd(&seed) % 16);
            uint64_t count = 1 + rnd(&seed) % 40;
            int64_t when = (int64_t)(rnd(&seed) % 2000000);
            if (round == 0) {
                expect_route(&m, src, dst, key, count, want);
            }
            /* sends must come in order of time: run up to each */
            temu_fm_run(f, when > temu_fm_now(f) ? when : temu_fm_now(f));
            fm_send(f, temu_fm_now(f), src, dst, 64, count, key, 0, (uint64_t)i);
        }
        temu_fm_run(f, INT64_MAX);
        ck_assert_int_eq(r.done, 60);
        for (int64_t rt = 0; rt < m.nrouters; rt++) {
            for (int l = 0; l < 2 * m.ndims; l++) {
                for (int k = 0; k < temu_link_lanes(&m, l); k++) {
                    size_t at = (size_t)((rt * m.nlinks + l) * 8 + k);
                    temu_tm_lane_stats s = fm_lane(f, rt, l, k);
                    ck_assert_uint_eq(s.packets, want[at]);
                    ck_assert_uint_eq(s.bytes, want[at] * 64);
                    if (round == 0) {
                        first[at] = s;
                    } else {
                        ck_assert_mem_eq(&s, &first[at], sizeof s);
                    }
                }
            }
        }
        temu_fm_destroy(f);
    }
    free(want);
    free(first);
}
END_TEST

/* Two capped flows merge onto the X+ link leaving x=1: A from (0,0,0) to
 * (2,0,0), B from (1,0,0) to (3,0,0), each at g GB/s.  A alone: no lane
 * stalls (nothing competes).  Together: A's first lane's input queue
 * waits for the shared link, more as g grows; at g = 0.5 the shared link
 * is full, the buffers before it fill and A's first lane stalls for
 * credit whenever it is idle (back-pressure). */
static int64_t merge_stall(double g, int with_b)
{
    temu_machine m = test_machine("bgp:8x4x4");
    temu_tm_config c = round_config();
    temu_fm *f = fm_make(&m, &c, NULL);
    fm_send(f, 0, node(&m, 0, 0, 0), node(&m, 2, 0, 0), 100, 1000000, 0, g, 0);
    if (with_b) {
        fm_send(f, 0, node(&m, 1, 0, 0), node(&m, 3, 0, 0), 100, 1000000, 0, g, 1);
    }
    temu_fm_run(f, 100000000);
    temu_tm_lane_stats s = fm_lane(f, node(&m, 0, 0, 0), TEMU_LINK_PLUS(0), 0);
    temu_tm_lane_stats t = fm_lane(f, node(&m, 1, 0, 0), TEMU_LINK_PLUS(0), 0);
    /* below saturation: A's lane idles only for want of packets */
    ck_assert_int_eq(s.credit_stall_ps, g < 0.5 ? 0 : (int64_t)llround(100000000 * (1 - g)));
    ck_assert_int_eq(t.inq_stall_ps, 0);
    ck_assert_int_eq(t.busy_ps, (int64_t)llround(100000000 * g * (with_b ? 2 : 1)));
    temu_fm_destroy(f);
    return s.inq_stall_ps;
}

START_TEST(test_stalls_grow_with_load)
{
    ck_assert_int_eq(merge_stall(0.4, 0), 0);
    int64_t prev = 0;
    for (int i = 1; i <= 5; i++) { /* g = 0.1 .. 0.5 */
        int64_t v = merge_stall(0.1 * i, 1);
        ck_assert_msg(v > prev, "g %.1f: inq stall %lld after %lld", 0.1 * i, (long long)v,
                      (long long)prev);
        prev = v;
    }
}
END_TEST

/* Back-pressure needs a backlog that fills the buffer: flows A (0,0,0) ->
 * (2,0,0) and B (1,0,0) -> (2,0,0), n packets of 256 bytes each, share the
 * link out of (1,0,0) at half its time each, so A's first lane sends one
 * packet per 512 ns and idles half the time, A held back further on.  The
 * buffer at that lane's end holds 4096 bytes (16 packets): with 8 packets
 * A never fills it, and the lane's credit stall is only the queue-full
 * term (M/M/1/K, z = 0.5, K = 16: 8e-6 of its busy time, 16 ps); the rule
 * before counted every idle moment (2,048,000 ps).  With 64 packets the
 * backlog fills it when the rates are solved, and the stall rate stands
 * until the next solve (here: the flows' end), so every idle moment counts:
 * half of 64 x 512 ns (a limit, doc/model.md: the packet model would stop
 * stalling once A has fewer than 16 left). */
static int64_t held_back_credit(uint64_t n)
{
    temu_machine m = test_machine("bgp:8x4x4");
    temu_tm_config c = round_config();
    temu_fm *f = fm_make(&m, &c, NULL);
    fm_send(f, 0, node(&m, 0, 0, 0), node(&m, 2, 0, 0), 256, n, 0, 0, 0);
    fm_send(f, 0, node(&m, 1, 0, 0), node(&m, 2, 0, 0), 256, n, 0, 0, 1);
    temu_fm_run(f, INT64_MAX);
    temu_tm_lane_stats s = fm_lane(f, node(&m, 0, 0, 0), TEMU_LINK_PLUS(0), 0);
    ck_assert_uint_eq(s.packets, n);
    temu_fm_destroy(f);
    return s.credit_stall_ps;
}

START_TEST(test_back_pressure_needs_a_backlog)
{
    int64_t few = held_back_credit(8), many = held_back_credit(64);
    ck_assert_msg(few <= 100, "8 packets: credit stall %lld ps", (long long)few);
    ck_assert_msg(llabs(many - 16384000) <= 1000, "64 packets: credit stall %lld ps",
                  (long long)many);
}
END_TEST

/* A lane waits for its own credit only where its stream is not paced yet
 * (doc/model.md, "Flow level: validation"): on BookSim's shallow buffers
 * (test_shallow_buffers_pace_a_flow) streams go from (0,0,0) to (3,0,0),
 * three X+ lanes.  The first lane is fed by the node; the second and third
 * each by the one lane before them, whose loop (as long as theirs) has
 * already spaced the packets, so they never wait for credit, as in the
 * packet model (4x4x4 tornado: only the first dimension's lanes stall).
 * `n` capped streams of g GB/s each (n = 2: they share the buffers' two
 * slots, Erlang B), or one uncapped stream (n = 0: its loop limits it).
 * Returns lane `hop`'s credit stall (ps) over 10 us. */
static int64_t paced_credit(int n, double g, int hop)
{
    temu_machine m = test_machine("bgp:8x4x4");
    temu_tm_config c = shallow_config();
    temu_fm *f = fm_make(&m, &c, NULL);
    for (int i = 0; i < (n > 0 ? n : 1); i++) {
        fm_send(f, 0, node(&m, 0, 0, 0), node(&m, 3, 0, 0), 64, 1000000, 0, n > 0 ? g : 0,
                (uint64_t)i);
    }
    temu_fm_run(f, 10000000);
    temu_tm_lane_stats s = fm_lane(f, node(&m, hop, 0, 0), TEMU_LINK_PLUS(0), 0);
    temu_fm_destroy(f);
    return s.credit_stall_ps;
}

START_TEST(test_paced_lanes_wait_for_no_credit)
{
    ck_assert_int_gt(paced_credit(2, 4.0, 0), 0);
    ck_assert_int_gt(paced_credit(0, 0, 0), 0);
    for (int hop = 1; hop <= 2; hop++) {
        ck_assert_int_eq(paced_credit(2, 4.0, hop), 0);
        ck_assert_int_eq(paced_credit(0, 0, hop), 0);
    }
}
END_TEST

/* Per-class stalls: held_back_credit's A and B (64 packets, class 0) and
 * C, 64 packets of class 1 from (0,0,0) to (1,0,0), alone at its
 * destination.  On A's first lane class 0's part is nearly all of the
 * lane's credit stall and all of its inq stall; the parts sum to the
 * lane's figures (the split by packet share gave class 1 half). */
START_TEST(test_stalls_per_class)
{
    temu_machine m = test_machine("bgp:8x4x4");
    temu_tm_config c = round_config();
    temu_error err;
    int64_t credit[2], inq[2];
    c.classes = 2;
    temu_fm *f = fm_make(&m, &c, NULL);
    fm_send(f, 0, node(&m, 0, 0, 0), node(&m, 2, 0, 0), 256, 64, 0, 0, 0);
    fm_send(f, 0, node(&m, 1, 0, 0), node(&m, 2, 0, 0), 256, 64, 0, 0, 1);
    ck_assert_int_eq(
        temu_fm_send(f, 0, node(&m, 0, 0, 0), node(&m, 1, 0, 0), 256, 64, 1, 0, 0.05, 2, &err),
        TEMU_OK);
    temu_fm_run(f, INT64_MAX);
    temu_tm_lane_stats s = fm_lane(f, node(&m, 0, 0, 0), TEMU_LINK_PLUS(0), 0);
    for (uint32_t k = 0; k < 2; k++) {
        ck_assert_msg(temu_fm_lane_class_stalls_get(f, node(&m, 0, 0, 0), TEMU_LINK_PLUS(0), 0, k,
                                                    &credit[k], &inq[k], &err) == TEMU_OK,
                      "%s", err.message);
    }
    ck_assert_int_gt(s.credit_stall_ps, 0);
    ck_assert_int_gt(s.inq_stall_ps, 0);
    /* class 1: only the queue-full term's trace (M/M/1/K, K = 16) */
    ck_assert_msg(credit[1] * 1000 < s.credit_stall_ps, "class 1 credit %lld of %lld ps",
                  (long long)credit[1], (long long)s.credit_stall_ps);
    ck_assert_int_eq(inq[1], 0);
    ck_assert(llabs(credit[0] + credit[1] - s.credit_stall_ps) <= 1);
    ck_assert(llabs(inq[0] - s.inq_stall_ps) <= 1);
    ck_assert_int_eq(
        temu_fm_lane_class_stalls_get(f, 0, TEMU_LINK_PLUS(0), 0, 2, &credit[0], &inq[0], &err),
        TEMU_ERANGE);
    temu_fm_destroy(f);
}
END_TEST

/* A lone flow on the round machine stalls nowhere: every lane of its
 * route is at its rate, none behind a slower one. */
START_TEST(test_lone_flow_no_stall)
{
    temu_machine m = test_machine("bgp:8x4x4");
    temu_tm_config c = round_config();
    temu_fm *f = fm_make(&m, &c, NULL);
    fm_send(f, 0, node(&m, 0, 0, 0), node(&m, 3, 2, 1), 256, 40, 0, 0, 0);
    temu_fm_run(f, INT64_MAX);
    for (int64_t rt = 0; rt < m.nrouters; rt++) {
        for (int l = 0; l < 6; l++) {
            temu_tm_lane_stats s = fm_lane(f, rt, l, 0);
            ck_assert_int_eq(s.inq_stall_ps + s.credit_stall_ps + s.no_dynamic_ps, 0);
            ck_assert(s.packets == 0 || s.packets == 40);
            ck_assert_int_eq(s.busy_ps, (int64_t)s.packets * 256000);
        }
    }
    temu_fm_destroy(f);
}
END_TEST

/* A steady stream of 2^40 packets (a job's phase) costs its start and
 * nothing per packet: run for 10 ms of virtual time, its lanes have
 * counted exactly the packets started (one per 100 ns at 1 GB/s, packet
 * 0 at time 0), in one solve. */
START_TEST(test_long_stream_costs_no_work_per_packet)
{
    temu_machine m = test_machine("bgp:8x4x4");
    temu_tm_config c = round_config();
    temu_fm *f = fm_make(&m, &c, NULL);
    temu_fm_totals tot;
    fm_send(f, 0, node(&m, 0, 0, 0), node(&m, 2, 1, 0), 100, 1ull << 40, 0, 0, 0);
    temu_fm_run(f, 10000000000); /* 10 ms */
    temu_tm_lane_stats s = fm_lane(f, node(&m, 1, 0, 0), TEMU_LINK_PLUS(0), 0);
    ck_assert_uint_eq(s.packets, 100001);
    ck_assert_uint_eq(s.bytes, 10000100);
    ck_assert_int_eq(s.busy_ps, 10000000000);
    temu_fm_totals_get(f, &tot);
    ck_assert_uint_eq(tot.flows, 1);
    ck_assert_uint_eq(tot.solves, 1);
    ck_assert_uint_eq(temu_fm_pending(f), 1);
    temu_fm_destroy(f);
}
END_TEST

/* A lone stream at half a link's rate on the Blue Gene machines' own
 * parameters stalls nowhere: its input buffers are deep enough for its
 * credit loop and nothing else uses them (a steady stream is not random
 * traffic: no buffer is ever out of room). */
START_TEST(test_lone_stream_on_machines_no_stall)
{
    const char *specs[2] = {"bgp:8x4x4", "bgq:4x4x4x4x2"};
    for (int i = 0; i < 2; i++) {
        temu_machine m = test_machine(specs[i]);
        temu_tm_config c = machine_config(&m);
        temu_fm *f = fm_make(&m, &c, NULL);
        /* at half a link's rate: its lanes are idle half of the time */
        fm_send(f, 0, 0, m.nnodes - 1, c.max_packet, 1000, 0,
                temu_tm_link_lane_gbs(&m, &c, 0, TEMU_LINK_PLUS(0)) / 2, 0);
        temu_fm_run(f, INT64_MAX);
        for (int64_t rt = 0; rt < m.nrouters; rt++) {
            for (int l = 0; l < 2 * m.ndims; l++) {
                temu_tm_lane_stats s = fm_lane(f, rt, l, 0);
                ck_assert_msg(s.inq_stall_ps + s.credit_stall_ps + s.no_dynamic_ps == 0,
                              "%s router %lld link %d: inq %lld credit %lld", specs[i],
                              (long long)rt, l, (long long)s.inq_stall_ps,
                              (long long)s.credit_stall_ps);
            }
        }
        temu_fm_destroy(f);
    }
}
END_TEST

/* --------------------------------------------------------------- hops */

typedef struct hops {
    const temu_fm *f;
    uint64_t packets, bytes, link_packets;
    int64_t last_start;
    int calls, bad;
    int64_t until; /* count the packets started by then */
    uint64_t started;
} hops;

static void on_hop(void *ctx, const temu_tm_hop *h)
{
    hops *k = ctx;
    k->calls++;
    /* told before the model's time passes the crossing, in order */
    if (h->start_ps < temu_fm_now(k->f) || h->start_ps < k->last_start || h->packets == 0) {
        fprintf(stderr, "hop at %lld after %lld, now %lld, %u packets\n", (long long)h->start_ps,
                (long long)k->last_start, (long long)temu_fm_now(k->f), h->packets);
        k->bad++;
    }
    k->last_start = h->start_ps;
    k->packets += h->packets;
    k->bytes += h->bytes;
    if (h->kind == TEMU_TM_HOP_LINK) {
        k->link_packets += h->packets;
        for (uint32_t i = 0; i < h->packets; i++) {
            k->started += h->start_ps + (int64_t)i * h->spacing_ps <= k->until;
        }
    }
}

/* Hop records: on every channel of the route (injection, 3 links,
 * ejection) every packet once, told in order of time and never after the
 * model's time passed it; a run stopped at any time has told exactly the
 * packets its lanes count by then. */
START_TEST(test_hops_tell_every_crossing_in_time)
{
    temu_machine m = test_machine("bgp:8x4x4");
    temu_tm_config c = round_config();
    temu_fm *f = fm_make(&m, &c, NULL);
    hops k;
    memset(&k, 0, sizeof k);
    k.f = f;
    k.until = INT64_MAX;
    temu_fm_set_hop(f, on_hop, &k);
    fm_send(f, 0, node(&m, 0, 0, 0), node(&m, 3, 0, 0), 100, 30, 0, 0, 0);
    fm_send(f, 250000, node(&m, 1, 0, 0), node(&m, 2, 0, 0), 100, 7, 0, 0, 1);
    for (int64_t t = 0; t < 5000000; t += 333333) {
        temu_fm_run(f, t);
        uint64_t lanes = 0;
        for (int x = 0; x < 3; x++) {
            lanes += fm_lane(f, node(&m, x, 0, 0), TEMU_LINK_PLUS(0), 0).packets;
        }
        ck_assert_uint_eq(lanes, k.link_packets);
    }
    temu_fm_run(f, INT64_MAX);
    ck_assert_int_eq(k.bad, 0);
    ck_assert_uint_eq(k.packets, 30 * 5 + 7 * 3);
    ck_assert_uint_eq(k.bytes, 100 * (30 * 5 + 7 * 3));
    ck_assert_uint_eq(k.link_packets, 30 * 3 + 7);
    temu_fm_destroy(f);
}
END_TEST

/* --------------------------------------------------------------- input */

/* --------------------------------------------------------------- solve window */

/* Flows far apart: every event is more than the window after the last
 * solve, so each is solved at once and a window changes nothing, bit for
 * bit (deliveries, lane counters, stall integrals), and no solve waits. */
START_TEST(test_window_exact_when_sparse)
{
    temu_machine m = test_machine("bgp:8x4x4");
    temu_fm_totals tot[2];
    temu_tm_lane_stats first[4];
    int64_t deliv[2][NREC];
    for (int round = 0; round < 2; round++) {
        temu_tm_config c = round_config();
        c.flow_window_ps = round == 0 ? 0 : 50000; /* 50 ns: below S = 100 ns */
        rec r;
        temu_fm *f = fm_make(&m, &c, &r);
        /* one flow of 3 packets (3 S) every 10 us, each alone: its start,
         * drain and delivery are S or more apart from any other event */
        for (int i = 0; i < 8; i++) {
            fm_send(f, (int64_t)i * 10000000, node(&m, i % 3, 0, 0), node(&m, 4, i % 2, 0), 100, 3,
                    0, 0, (uint64_t)i);
        }
        temu_fm_run(f, INT64_MAX);
        ck_assert_int_eq(r.done, 8);
        memcpy(deliv[round], r.delivered, sizeof deliv[round]);
        temu_fm_totals_get(f, &tot[round]);
        for (int k = 0; k < 4; k++) {
            temu_tm_lane_stats ls = fm_lane(f, node(&m, k, 0, 0), TEMU_LINK_PLUS(0), 0);
            if (round == 0) {
                first[k] = ls;
            } else {
                ck_assert_mem_eq(&ls, &first[k], sizeof ls);
            }
        }
        temu_fm_destroy(f);
    }
    ck_assert_mem_eq(deliv[0], deliv[1], sizeof deliv[0]);
    ck_assert_uint_eq(tot[1].deferred, 0);
    ck_assert_uint_eq(tot[1].solves, tot[0].solves);
}
END_TEST

/* The bound a window W gives, derived: a change waits at most W for its
 * solve, and a flow that waits is at rate 0 meanwhile.  One node sends
 * N one-packet flows to one destination at 0: its source queue takes them
 * one after the other (each alone on the route: S = 100 ns), and the next
 * goes onto the channels when the one ahead ends.  Exactly, flow k
 * (1-based) ends at k S.  With W > S each hand-over waits for the next
 * solve, at most W after the end before it, so flow k ends no earlier
 * than exactly and no later than (k - 1) W after (here exactly
 * (k - 1) W + S: the solves fall every W).  The packets crossing every
 * lane are the same. */
START_TEST(test_window_delays_at_most_one_window_a_change)
{
    enum { N = 6 };
    const int64_t s = 100000, w = 250000;
    temu_machine m = test_machine("bgp:8x4x4");
    int64_t done[2][N];
    temu_tm_lane_stats ls[2];
    temu_fm_totals tot;
    for (int round = 0; round < 2; round++) {
        temu_tm_config c = round_config();
        c.flow_window_ps = round == 0 ? 0 : w;
        rec r;
        temu_fm *f = fm_make(&m, &c, &r);
        for (int k = 0; k < N; k++) {
            fm_send(f, 0, node(&m, 0, 0, 0), node(&m, 2, 0, 0), 100, 1, 0, 0, (uint64_t)k);
        }
        temu_fm_run(f, INT64_MAX);
        ck_assert_int_eq(r.done, N);
        memcpy(done[round], r.done_ps, sizeof done[round]);
        ls[round] = fm_lane(f, node(&m, 1, 0, 0), TEMU_LINK_PLUS(0), 0);
        if (round == 1) {
            temu_fm_totals_get(f, &tot);
        }
        temu_fm_destroy(f);
    }
    for (int k = 0; k < N; k++) {
        ck_assert_int_eq(done[0][k], (k + 1) * s + 66000); /* 2 hops' pipeline */
        ck_assert_int_ge(done[1][k], done[0][k]);
        ck_assert_int_le(done[1][k], done[0][k] + k * w);
        ck_assert_int_eq(done[1][k], k * w + s + 66000);
    }
    ck_assert_uint_eq(ls[1].packets, ls[0].packets);
    ck_assert_uint_eq(ls[1].bytes, ls[0].bytes);
    ck_assert_uint_eq(tot.deferred, N); /* every flow's end waited for its solve */
}
END_TEST

/* Changes denser than the window share solves: 16 nodes send 20 packets
 * each to one node, one send every 10 ns; W = 100 ns.  Exactly, every
 * send is an instant with its own solve; with the window at most one
 * solve point per W (two solves each at most: the source queue's second),
 * so fewer solves, counted.  Every lane carries the same packets and
 * bytes.  The last flow ends no earlier than exactly (the ejection
 * channel is the bottleneck and the exact rates keep it full whenever
 * flows wait for it) and no later than one window per solve point that
 * waited (at most W of the channel's service lost at each). */
START_TEST(test_window_fewer_solves)
{
    const int64_t w = 100000;
    temu_machine m = test_machine("bgp:8x4x4");
    temu_fm_totals tot[2];
    int64_t last[2];
    uint64_t packets[2][4];
    for (int round = 0; round < 2; round++) {
        temu_tm_config c = round_config();
        c.flow_window_ps = round == 0 ? 0 : w;
        rec r;
        temu_fm *f = fm_make(&m, &c, &r);
        for (int i = 0; i < 16; i++) {
            temu_fm_run(f, (int64_t)i * 10000);
            fm_send(f, (int64_t)i * 10000, node(&m, i % 8, i / 8, 1), node(&m, 3, 2, 2), 100, 20, 0,
                    0, (uint64_t)i);
        }
        temu_fm_run(f, INT64_MAX);
        ck_assert_int_eq(r.done, 16);
        last[round] = 0;
        for (int i = 0; i < 16; i++) {
            last[round] = r.done_ps[i] > last[round] ? r.done_ps[i] : last[round];
        }
        for (int k = 0; k < 4; k++) {
            packets[round][k] = fm_lane(f, node(&m, k, 0, 1), TEMU_LINK_PLUS(0), 0).packets;
        }
        temu_fm_totals_get(f, &tot[round]);
        temu_fm_destroy(f);
    }
    ck_assert_mem_eq(packets[0], packets[1], sizeof packets[0]);
    ck_assert_uint_ge(tot[0].solves, 16);
    ck_assert_uint_eq(tot[0].deferred, 0);
    ck_assert_uint_gt(tot[1].deferred, 0);
    ck_assert_uint_lt(tot[1].solves, tot[0].solves);
    ck_assert_uint_le(tot[1].solves, 2 * ((uint64_t)(last[1] / w) + 1));
    ck_assert_int_ge(last[1], last[0]);
    ck_assert_int_le(last[1], last[0] + (int64_t)tot[1].deferred * w);
}
END_TEST

START_TEST(test_bad_input)
{
    temu_machine m = test_machine("bgp:8x4x4");
    temu_tm_config c = round_config();
    temu_fm *f = fm_make(&m, &c, NULL);
    temu_error err;
    ck_assert_int_eq(temu_fm_send(f, 0, m.nnodes, 0, 100, 1, 0, 0, 0, 0, &err), TEMU_ERANGE);
    ck_assert_str_eq(err.message, "flow model: node 128 or 0 outside 0..127");
    ck_assert_int_eq(temu_fm_send(f, 0, -1, 0, 100, 1, 0, 0, 0, 0, &err), TEMU_ERANGE);
    ck_assert_int_eq(temu_fm_send(f, 0, 0, 1, 100, 0, 0, 0, 0, 0, &err), TEMU_EINVAL);
    ck_assert_str_eq(err.message, "flow model: a flow of 0 packets (1..2^52)");
    ck_assert_int_eq(temu_fm_send(f, -5, 0, 1, 100, 1, 0, 0, 0, 0, &err), TEMU_EINVAL);
    ck_assert_str_eq(err.message, "flow model: flow created at -5 ps, before now (0 ps)");
    ck_assert_int_eq(temu_fm_send(f, 0, 0, 1, 0, 1, 0, 0, 0, 0, &err), TEMU_EINVAL);
    ck_assert_int_eq(temu_fm_send(f, 0, 0, 1, 100, 1, 1, 0, 0, 0, &err), TEMU_EINVAL);
    ck_assert_str_eq(err.message, "flow model: class 1, the model has 1");
    ck_assert_int_eq(temu_fm_send(f, 0, 0, 1, 100, 1, 0, 0, -1.0, 0, &err), TEMU_EINVAL);
    ck_assert_int_eq(temu_fm_send(f, 0, 0, 1, 100, 1, 0, 0, NAN, 0, &err), TEMU_EINVAL);
    temu_tm_lane_stats s;
    ck_assert_int_eq(temu_fm_lane_stats_get(f, 0, 0, 1, &s, &err), TEMU_ERANGE);
    ck_assert_int_eq(temu_fm_lane_stats_get(f, m.nrouters, 0, 0, &s, &err), TEMU_ERANGE);
    ck_assert_int_eq(temu_fm_lane_stats_get(f, 0, 6, 0, &s, &err), TEMU_ERANGE);
    /* nothing was accepted */
    ck_assert_uint_eq(temu_fm_pending(f), 0);
    ck_assert_int_eq(temu_fm_next_event(f), INT64_MAX);
    temu_fm_destroy(f);
    temu_fm *g = NULL;
    c.node_gbs = 0;
    ck_assert_int_eq(temu_fm_create(&m, &c, &g, &err), TEMU_EINVAL);
    ck_assert_ptr_null(g);
    c = round_config();
    c.flow_window_ps = -1;
    ck_assert_int_eq(temu_fm_create(&m, &c, &g, &err), TEMU_EINVAL);
    ck_assert_str_eq(err.message, "flow model: negative solve window (-1 ps)");
    ck_assert_ptr_null(g);
}
END_TEST

static Suite *flow_suite(void)
{
    Suite *s = suite_create("flow");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_mm_three_flows_two_links);
    tcase_add_test(tc, test_mm_bound);
    tcase_add_test(tc, test_mm_weights_and_coefficients);
    tcase_add_test(tc, test_mm_chain_bottleneck);
    tcase_add_test(tc, test_mm_random_is_max_min);
    tcase_add_test(tc, test_params);
    tcase_add_test(tc, test_lone_flow_matches_packet_model);
    tcase_add_test(tc, test_shallow_buffers_pace_a_flow);
    tcase_add_test(tc, test_turnaround_paces_a_flow);
    tcase_add_test(tc, test_two_flows_share_a_link);
    tcase_add_test(tc, test_head_of_line_packet_model_only);
    tcase_add_test(tc, test_rate_cap);
    tcase_add_test(tc, test_source_queue_is_fifo);
    tcase_add_test(tc, test_one_instant_stall_rates_once);
    tcase_add_test(tc, test_rates_follow_changes);
    tcase_add_test(tc, test_lane_volumes_follow_routes);
    tcase_add_test(tc, test_stalls_grow_with_load);
    tcase_add_test(tc, test_back_pressure_needs_a_backlog);
    tcase_add_test(tc, test_paced_lanes_wait_for_no_credit);
    tcase_add_test(tc, test_stalls_per_class);
    tcase_add_test(tc, test_lone_flow_no_stall);
    tcase_add_test(tc, test_lone_stream_on_machines_no_stall);
    tcase_add_test(tc, test_long_stream_costs_no_work_per_packet);
    tcase_add_test(tc, test_hops_tell_every_crossing_in_time);
    tcase_add_test(tc, test_window_exact_when_sparse);
    tcase_add_test(tc, test_window_delays_at_most_one_window_a_change);
    tcase_add_test(tc, test_window_fewer_solves);
    tcase_add_test(tc, test_bad_input);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return test_run(flow_suite());
}
