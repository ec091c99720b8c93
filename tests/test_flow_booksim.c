/*
 * test_flow_booksim.c - the flow level against BookSim2 and against the
 * packet model on the BookSim cases (tests/booksim_cases.h: the traffic;
 * tests/fixtures/booksim/torus.tsv: BookSim's figures and their
 * provenance; tests/booksim_models.h: the network of both levels).
 *
 * Every packet is one flow of one packet, injected as BookSim injects it
 * (Bernoulli, per node and cycle).  Per case (issue 24, item 3):
 *   saturation  within 15 % of BookSim's AND of the packet model's: the
 *               flow level is stable at 0.85 x the larger of the two and
 *               saturated at 1.15 x the smaller (the same 500-cycle
 *               criterion); the packet model's saturation is its measured
 *               bisection (fb_packet_sat below), not run here;
 *   latency     mean packet latency within 25 % of BookSim's at 0.2, 0.5
 *               and 0.8 x BookSim's saturation;
 *   stalls      at the fixture's stall load, both levels run on the same
 *               traffic: Spearman rank correlation of the per-link credit
 *               stall and of the inq stall, flow vs packet, >= 0.8 where
 *               links differ (torus.tsv's HOW "assert" or "inq"; on
 *               "report" rows every link of a class is statistically
 *               equal, the ranks are noise: printed only); and the totals
 *               over all links of each stall, flow / packet, within the
 *               factor FB_STALL_FACTOR (doc/model.md, "Flow level:
 *               validation", says why that factor).
 * A case the flow level misses is asserted at its measured value within a
 * stated margin (fb_gaps), so that a change is noticed, and listed in
 * doc/model.md.  BOOKSIM_BISECT=1 also prints the flow level's own
 * saturation by bisection (7 runs per case).
 */
#include "booksim_models.h"

#include <time.h>

/* Stall totals, flow / packet, asserted within [1 / F, F] (doc/model.md). */
#define FB_STALL_FACTOR 2.0

/* The packet model's saturation, as a ratio to BookSim's: bisection of
 * test_timing_booksim (BOOKSIM_BISECT=1, the highest stable ratio,
 * resolution 1/128) on this tree, 2026-12-02, with BookSim's VC
 * turnaround and injection VCs (booksim_models.h; doc/model.md's table of
 * the packet model). */
typedef struct fb_packet_sat {
    const char *shape, *pattern;
    double ratio;
} fb_packet_sat;

static const fb_packet_sat fb_packet[] = {
    {"4x4x4", "uniform", 1.016},
    {"4x4x4", "tornado", 0.984},
    {"4x4x4", "transpose", 1.000},
    {"4x4x4", "alltoall", 1.016},
    {"4x4x4", "bitrev", 1.008},
    {"4x4x4", "shuffle", 0.984},
    {"4x4x4", "bitcomp", 0.984},
    {"4x4x4", "neighbor", 0.984},
    {"6x6x6", "uniform", 1.000},
    {"6x6x6", "tornado", 0.992},
    {"8x8x8", "uniform", 0.961},
    {"8x8x8", "tornado", 0.938},
    {"8x8x8", "bitrev", 0.945},
    {"8x8x8", "alltoall", 0.898},
    {"4x4x4x4", "uniform", 1.000},
    {"4x4x4x4", "tornado", 1.016},
    {"2x2x2x2x2", "uniform", 0.992},
    {"2x2x2x2x2", "neighbor", 1.023},
    {"2x2x2x2x2", "shuffle", 1.023},
    {"2x2x2x2x2", "bitrev", 0.992},
    {"3x3x3x3", "uniform", 0.992},
    {"3x3x3x3", "tornado", 1.000},
    {NULL, NULL, 0},
};

/* Known gaps of the flow level: saturation `ratio` x BookSim's, measured by
 * bisection (BOOKSIM_BISECT=1); doc/model.md lists them. */
static const bk_gap fb_gaps[] = {
    /* stable at 1.164 x, saturated at 1.172 x (the packet model: 0.984 x);
     * 1.172 x and 1.180 x before the flow level had the VC turnaround
     * (fm_route.c, add_turnaround), which bounds its busiest VCs where
     * its credit loop already did (doc/model.md says why that is) */
    {"4x4x4", "shuffle", 1.164, 0.02, "doc/model.md, Flow level: validation", 0},
    /* bisection (BOOKSIM_BISECT=1, 2026-12-03, with the flow level's VC
     * turnaround): stable at 1.492 x, saturated at 1.500 x; asserted
     * stable at 1.34 x (make check) and saturated at 1.64 x (FB_ALL=1);
     * above BookSim's and the packet model's (0.992 x) tolerance: a known
     * gap.  Without the flow level's turnaround (main's build, the same
     * day) the bisection gives 1.492 x too; the earlier bracket was stable
     * at 1.30 x, saturated at 1.60 x */
    {"6x6x6", "tornado", 1.49, 0.15, "doc/model.md, Flow level: validation", 0},
    /* The rows only FB_ALL=1 runs, bisected on 2026-12-04 (highest stable
     * ratio; the next, 1/128 above, saturated).  Many destinations a node
     * (uniform, all-to-all): above BookSim's, max-min rates having no
     * blocking, as 8x8x8 tornado (stable at 1.492 x, the bisection's top:
     * the same gap as 6x6x6 tornado's); 3x3x3x3 uniform below it, its
     * ejection channels derated by the head-of-line table to 0.618
     * (fm_params.c; doc/model.md measures it) */
    {"4x4x4", "uniform", 1.273, 0.02, "doc/model.md, Flow level: validation", 0},
    {"4x4x4", "alltoall", 1.180, 0.02, "doc/model.md, Flow level: validation", 0},
    {"3x3x3x3", "uniform", 0.836, 0.02, "doc/model.md, Flow level: validation", 0},
    /* margin 0: stable at the ratio, saturation not bracketed (8x8x8
     * tornado's bisection ended at its range's top, 1.5 x) */
    {"8x8x8", "tornado", 1.492, 0, "doc/model.md, Flow level: validation", 0},
    /* 8x8x8 all-to-all bisected (1.398 x stable, 1.406 x not); the others
     * not (seven runs of these sizes near saturation took more than half
     * an hour here): stable where measured (4x4x4x4 at 1.15 x BookSim's,
     * 8x8x8 at 1.105 x, 6x6x6 at 1.5 x: FB_ALL=1 on 2026-12-04, worst
     * source 101.5 cycles), their saturation not bracketed */
    {"4x4x4x4", "uniform", 1.15, 0, "doc/model.md, Flow level: validation", 0},
    {"6x6x6", "uniform", 1.5, 0, "doc/model.md, Flow level: validation", 0},
    {"8x8x8", "uniform", 1.105, 0, "doc/model.md, Flow level: validation", 0},
    {"8x8x8", "alltoall", 1.398, 0.02, "doc/model.md, Flow level: validation", 0},
    {NULL, NULL, 0, 0, NULL, 0},
};

/* A figure the flow level misses (outside its tolerance): asserted AT its
 * measured value within `margin`, so that a change either way is noticed;
 * doc/model.md lists them.  what: "lat" (relative error of the mean
 * latency at `load`), "credit-rank", "inq-rank" (Spearman, flow vs packet),
 * "credit-total", "inq-total" (flow / packet). */
typedef struct fb_known {
    const char *shape, *pattern, *what;
    double load; /* "lat": the row's load; else 0 */
    double value, margin;
} fb_known;

static const fb_known fb_known_gaps[] = {
    /* Measured with the node's source queue (a node's packets go in turn)
     * and the exact re-solve together (2026-12-02): latency at 0.8 x
     * saturation is within 25 % on every case run here (4x4x4 tornado, bit
     * complement, neighbour +14.7 %, bit reversal +20.5 %; 6x6x6 tornado
     * +8.5 %, 4x4x4x4 tornado +7.5 %, 2x2x2x2x2 neighbour +3.2 %), so no
     * latency gap is left.  With the back-pressure term counting a held-back
     * flow only while its backlog fills the buffer at the lane's end
     * (backlog_spill) and a lane's own credit loop counted only where its
     * stream is not already paced by the one lane feeding it (fm_solve.c,
     * lane_paced; 2026-12-02), every credit rank is >= 0.8 (0.840 shuffle
     * to 0.997).  With the packet model's VC turnaround (booksim_models.h)
     * every credit total is within the factor (4x4x4 one-hop patterns:
     * 0.695, 2.10 before: the packet model's first-dimension lanes now
     * stall 22.7 % of the time, 7.5 % before), but 6x6x6 tornado's inq
     * total (2.69 before the turnaround).  With the flow level's VC
     * turnaround too (fm_route.c, add_turnaround; 2026-12-03): latency at
     * 0.8 x saturation within 25 % everywhere (4x4x4 tornado +16.4 %,
     * bit reversal +23.9 %, 6x6x6 tornado +9.6 %, 4x4x4x4 tornado +9.3 %,
     * 2x2x2x2x2 neighbour +4.5 %), credit ranks 0.837 (shuffle) to 0.999,
     * credit totals 0.64 to 1.55, and 6x6x6 tornado's inq total 2.384
     * (2.42 before): */
    {"6x6x6", "tornado", "inq-total", 0, 2.38, 0.3},
    /* The rows only FB_ALL=1 runs, first measured all together on
     * 2026-12-04 (FB_ALL=1 FB_MEASURE=1; doc/model.md lists them): where
     * every node sends to many nodes (uniform, all-to-all) the inq stall
     * total is 2.9 to 3.8 x the packet model's (the flow level's open-queue
     * wait for the next channel, growing dimension by dimension along the
     * route where the packet model's falls), 8x8x8 tornado's 2.03 x;
     * 3x3x3x3 uniform misses everything (its ejection channels derated
     * by the head-of-line table: fb_gaps; without the derating its
     * latency is +5.7 %, its totals 1.23 and 2.48); 2x2x2x2x2 bit
     * reversal's latency at 0.8 x saturation is +32.1 %. */
    {"4x4x4", "uniform", "inq-total", 0, 3.41, 0.5},
    {"4x4x4", "alltoall", "inq-total", 0, 3.75, 0.5},
    {"6x6x6", "uniform", "inq-total", 0, 3.22, 0.5},
    {"4x4x4x4", "uniform", "inq-total", 0, 3.31, 0.5},
    {"2x2x2x2x2", "uniform", "inq-total", 0, 3.36, 0.5},
    {"8x8x8", "uniform", "inq-total", 0, 2.90, 0.5},
    {"8x8x8", "tornado", "inq-total", 0, 2.03, 0.3},
    {"2x2x2x2x2", "bitrev", "lat", 0.2656, 0.321, 0.05},
    {"3x3x3x3", "uniform", "lat", 0.5750, 0.892, 0.05},
    {"3x3x3x3", "uniform", "credit-total", 0, 5.61, 0.5},
    {"3x3x3x3", "uniform", "inq-total", 0, 6.94, 0.5},
    {NULL, NULL, NULL, 0, 0, 0},
};

/* FB_MEASURE=1: print every figure, assert nothing (for calibrating). */
static int fb_measuring(void);
/* Whether a "sat" row's saturated run is made (fb_fast_cases). */
static int fb_sat_side_runs(const char *shape, const char *pattern);

/* Assert `ok`, or, where the figure is a known gap, that `value` is within
 * its margin of the measured value. */
static void fb_assert(const char *shape, const char *pattern, const char *what, double load,
                      double value, int ok)
{
    for (const fb_known *k = fb_known_gaps; k->shape; k++) {
        if (strcmp(k->shape, shape) == 0 && strcmp(k->pattern, pattern) == 0 &&
            strcmp(k->what, what) == 0 && fabs(k->load - load) < 1e-9) {
            fprintf(stderr, "flow %s %s %s: KNOWN GAP, %.3f (measured %.3f -+ %.3f)\n", shape,
                    pattern, what, value, k->value, k->margin);
            ck_assert_msg(fb_measuring() || fabs(value - k->value) <= k->margin,
                          "flow %s %s %s: %.3f, known gap measured at %.3f -+ %.3f", shape, pattern,
                          what, value, k->value, k->margin);
            return;
        }
    }
    ck_assert_msg(fb_measuring() || ok, "flow %s %s %s: %.3f outside the tolerance", shape, pattern,
                  what, value);
}

/* FB_MEASURE=1: print every figure, assert nothing (for calibrating). */
static int fb_measuring(void)
{
    const char *m = getenv("FB_MEASURE");
    return m && *m;
}

/* FB_SKIP_SAT=1: the latency and stall rows only (while measuring). */
static int fb_skip_sat(void)
{
    const char *m = getenv("FB_SKIP_SAT");
    return m && *m;
}

static const bk_driver fb_flow = {
    "flow",       bkm_flow_create,      bkm_flow_send,    bkm_flow_run_until,
    bkm_flow_now, bkm_flow_link_stalls, bkm_flow_destroy, fb_gaps,
};

static const bk_driver fb_packet_driver = {
    "packet",       bkm_packet_create,      bkm_packet_send,    bkm_packet_run_until,
    bkm_packet_now, bkm_packet_link_stalls, bkm_packet_destroy, NULL,
};

static double fb_packet_ratio(const char *shape, const char *pattern)
{
    for (const fb_packet_sat *p = fb_packet; p->shape; p++) {
        if (strcmp(p->shape, shape) == 0 && strcmp(p->pattern, pattern) == 0) {
            return p->ratio;
        }
    }
    ck_assert_msg(fb_measuring(), "no packet-model saturation for %s %s", shape, pattern);
    return 1;
}

/* A "sat" row: stable at 0.85 x max(BookSim, packet), saturated at 1.15 x
 * min(BookSim, packet); or a known gap's ratio to BookSim -+ its margin. */
static void fb_check_sat(const char *shape, const char *pattern, double load)
{
    bk_cube c = bk_cube_parse(shape);
    const bk_gap *g = bk_gap_find(&fb_flow, shape, pattern, 0);
    double pk = fb_packet_ratio(shape, pattern);
    double lo = 0.85 * (pk > 1 ? pk : 1), hi = 1.15 * (pk < 1 ? pk : 1);
    if (g) {
        lo = g->ratio - g->margin;
        hi = g->ratio + g->margin;
    }
    /* a gap of margin 0: stable at its ratio, its saturation not bracketed
     * (above the bisection's range, or not bisected) */
    int bracketed = !g || g->margin > 0;
    clock_t t0 = clock();
    bk_result below = bk_run_case(&fb_flow, &c, pattern, lo * load, NULL);
    if (fb_measuring()) {
        fprintf(stderr, "  (stable run: %.1f s CPU)\n", (double)(clock() - t0) / CLOCKS_PER_SEC);
    }
    int sat_side = bracketed && fb_sat_side_runs(shape, pattern);
    bk_result above = {NAN, NAN, NAN}; /* not run: make check's half_sat cases */
    if (sat_side) {
        above = bk_run_case(&fb_flow, &c, pattern, hi * load, NULL);
    } else if (!bracketed) {
        fprintf(stderr, "flow %s %s sat: stable at %.3f x, saturation not bracketed above\n",
                shape, pattern, lo);
    } else {
        fprintf(stderr, "flow %s %s sat: the saturated side runs only with FB_ALL=1\n", shape,
                pattern);
    }
    const char *bisect = getenv("BOOKSIM_BISECT");
    if (bisect && *bisect) {
        bk_bisect(&fb_flow, shape, pattern, load);
    }
    fprintf(stderr,
            "flow %s %s sat: BookSim %.4f, packet %.3f x; flow at %.3fx worst %.1f, at %.3fx "
            "worst %.1f cycles%s\n",
            shape, pattern, load, pk, lo, below.worst, hi, above.worst,
            g ? " (KNOWN GAP, asserted at its measured ratio)" : "");
    ck_assert_msg(fb_measuring() || below.worst < 500,
                  "flow %s %s: saturated at %.3f x BookSim's %.4f", shape, pattern, lo, load);
    ck_assert_msg(fb_measuring() || !sat_side || above.worst >= 500,
                  "flow %s %s: not saturated at %.3f x BookSim's %.4f", shape, pattern, hi, load);
}

/* A "lat" row: within 25 % of BookSim's. */
static void fb_check_latency(const char *shape, const char *pattern, double load, double lat)
{
    bk_cube c = bk_cube_parse(shape);
    bk_result r = bk_run_case(&fb_flow, &c, pattern, load, NULL);
    fprintf(stderr, "flow %s %s load %.4f: latency flow %.2f, BookSim %.2f cycles (%+.1f %%)\n",
            shape, pattern, load, r.latency, lat, 100 * (r.latency / lat - 1));
    fb_assert(shape, pattern, "lat", load, r.latency / lat - 1, fabs(r.latency / lat - 1) <= 0.25);
}

static double fb_sum(const double *x, size_t n)
{
    double s = 0;
    for (size_t i = 0; i < n; i++) {
        s += x[i];
    }
    return s;
}

/* Totals of one stall over all links, flow / packet (1 where neither
 * stalls). */
static double fb_total_ratio(const char *tag, const char *what, const double *flow,
                             const double *packet, size_t n)
{
    double f = fb_sum(flow, n), p = fb_sum(packet, n);
    double ratio = p > 0 ? f / p : (f > 0 ? INFINITY : 1);
    fprintf(stderr, "%s: %s stall total flow %.0f, packet %.0f cycles (x %.2f)\n", tag, what, f, p,
            ratio);
    return ratio;
}

/* Spearman of one stall, flow vs packet, printed; 1 where both are zero
 * on every link (they agree), 0 where only one side is constant. */
static double fb_rank(const char *tag, const char *what, const double *flow, const double *packet,
                      size_t n)
{
    double r = bk_spearman(flow, packet, n);
    if (isnan(r)) {
        int zero = 1;
        for (size_t i = 0; i < n; i++) {
            zero = zero && flow[i] == 0 && packet[i] == 0;
        }
        r = zero ? 1 : 0;
        fprintf(stderr, "%s: %s stall %s\n", tag, what,
                zero ? "zero on every channel in both" : "constant on one side only");
    } else {
        fprintf(stderr, "%s: %s stall rank correlation %.3f\n", tag, what, r);
    }
    return r;
}

/* A "stall" row: both levels on the same traffic at `load`. */
static void fb_check_stalls(const char *shape, const char *pattern, double load, const char *how)
{
    bk_cube c = bk_cube_parse(shape);
    size_t n = bk_channels(&c);
    bk_stalls fl = {calloc(n, sizeof(double)), calloc(n, sizeof(double))};
    bk_stalls pk = {calloc(n, sizeof(double)), calloc(n, sizeof(double))};
    int assert_it = strcmp(how, "report") != 0;
    char tag[96];
    snprintf(tag, sizeof tag, "flow vs packet %s %s", shape, pattern);
    ck_assert(fl.credit && fl.inq && pk.credit && pk.inq);
    bk_run_case(&fb_flow, &c, pattern, load, &fl);
    bk_run_case(&fb_packet_driver, &c, pattern, load, &pk);
    double rc = fb_rank(tag, "credit", fl.credit, pk.credit, n);
    double ri = fb_rank(tag, "inq", fl.inq, pk.inq, n);
    double tc = fb_total_ratio(tag, "credit", fl.credit, pk.credit, n);
    double ti = fb_total_ratio(tag, "inq", fl.inq, pk.inq, n);
    if (assert_it) {
        fb_assert(shape, pattern, "credit-rank", 0, rc, rc >= 0.8);
        fb_assert(shape, pattern, "inq-rank", 0, ri, ri >= 0.8);
    }
    fb_assert(shape, pattern, "credit-total", 0, tc,
              tc >= 1 / FB_STALL_FACTOR && tc <= FB_STALL_FACTOR);
    fb_assert(shape, pattern, "inq-total", 0, ti,
              ti >= 1 / FB_STALL_FACTOR && ti <= FB_STALL_FACTOR);
    bk_print_classes(tag, &c, &fl, &pk);
    free(fl.credit);
    free(fl.inq);
    free(pk.credit);
    free(pk.inq);
}

/* The cases make check runs: the permutations (every node sends to one
 * node), whose runs take seconds: the 4x4x4 ones, 6x6x6 tornado, the
 * 4-cube's tornado and the 5-cube's neighbour (issue 24 asks for a 6x6x6
 * and a 4-D torus).  Where every node's packets spread over many
 * destinations (uniform, alltoall) or the network is 8x8x8, thousands of
 * one-packet flows share channels near saturation and every start or end
 * re-solves them: minutes per row (doc/model.md).  The saturated runs of
 * the 4-cube's tornado (1.15 x, 256 nodes' backlog growing until Little's
 * law stops it: 100 s of CPU) and of 6x6x6 tornado (1.64 x) run
 * only with FB_ALL=1; make check runs their stable side (half_sat).
 * FB_ALL=1 runs every case and side. */
typedef struct fb_fast {
    const char *shape, *pattern;
    int half_sat; /* the saturated side of the "sat" row only with FB_ALL */
} fb_fast;

static const fb_fast fb_fast_cases[] = {
    {"4x4x4", "tornado", 0},   {"4x4x4", "transpose", 0}, {"4x4x4", "bitrev", 0},
    {"4x4x4", "shuffle", 0},   {"4x4x4", "bitcomp", 0},   {"4x4x4", "neighbor", 0},
    {"6x6x6", "tornado", 1},   {"4x4x4x4", "tornado", 1}, {"2x2x2x2x2", "neighbor", 0},
    {NULL, NULL, 0},
};

static int fb_all(void)
{
    const char *all = getenv("FB_ALL");
    return all && *all;
}

/* The fast case of shape and pattern, NULL: not one. */
static const fb_fast *fb_fast_find(const char *shape, const char *pattern)
{
    for (const fb_fast *c = fb_fast_cases; c->shape; c++) {
        if (strcmp(c->shape, shape) == 0 && strcmp(c->pattern, pattern) == 0) {
            return c;
        }
    }
    return NULL;
}

static int fb_case_runs(const char *shape, const char *pattern)
{
    return fb_all() || fb_fast_find(shape, pattern) != NULL;
}

/* Whether the "sat" row's saturated run is made (not for half_sat cases
 * in make check). */
static int fb_sat_side_runs(const char *shape, const char *pattern)
{
    const fb_fast *c = fb_fast_find(shape, pattern);
    return fb_all() || c == NULL || !c->half_sat;
}

/* One row of the fixture on the flow level (bk_each_row), unless
 * FB_PATTERN or the fast set leave it out; its CPU time when measuring. */
static void fb_check_row(void *ctx, const bk_row *r)
{
    const char *only = getenv("FB_PATTERN");
    (void)ctx;
    if ((only && *only && strcmp(only, r->pattern) != 0) || !fb_case_runs(r->shape, r->pattern)) {
        return;
    }
    clock_t t0 = clock();
    if (strcmp(r->kind, "sat") == 0) {
        if (fb_skip_sat()) {
            return;
        }
        fb_check_sat(r->shape, r->pattern, r->load);
    } else if (strcmp(r->kind, "lat") == 0) {
        fb_check_latency(r->shape, r->pattern, r->load, r->lat);
    } else {
        fb_check_stalls(r->shape, r->pattern, r->load, r->how);
    }
    if (fb_measuring()) {
        fprintf(stderr, "  (%s row: %.1f s CPU)\n", r->kind, (double)(clock() - t0) / CLOCKS_PER_SEC);
    }
}

/* The fixture's rows of one shape. */
static void fb_check_rows(const char *want_shape, int want_rows)
{
    bk_each_row(want_shape, want_rows, fb_check_row, NULL);
}

/* One packet alone on BookSim's network, 3 hops: both levels deliver it at
 * the same ps.  Its 64 bytes fit the 128-byte buffer, so the credit loop
 * (12 cycles for 2 packets) does not pace it (it did: 2 cycles late). */
static void fb_on_one(void *ctx, uint64_t tag, int64_t created, int64_t delivered)
{
    (void)tag;
    *(int64_t *)ctx = delivered - created;
}

START_TEST(test_lone_packet)
{
    bk_cube c = bk_cube_parse("4x4x4");
    int64_t lat[2] = {0, 0};
    const bk_driver *drv[2] = {&fb_flow, &fb_packet_driver};
    for (int i = 0; i < 2; i++) {
        void *model = drv[i]->create(&c, fb_on_one, &lat[i]);
        drv[i]->send(model, 0, 0, 1 + 4 + 16, 0); /* one hop in each digit */
        drv[i]->run_until(model, 1000 * BK_CYCLE);
        drv[i]->destroy(model);
    }
    ck_assert_int_gt(lat[1], 0);
    ck_assert_int_eq(lat[0], lat[1]);
}
END_TEST

START_TEST(test_4x4x4)
{
    fb_check_rows("4x4x4", 40);
}
END_TEST

START_TEST(test_6x6x6)
{
    fb_check_rows("6x6x6", 10);
}
END_TEST

START_TEST(test_8x8x8)
{
    fb_check_rows("8x8x8", 20);
}
END_TEST

START_TEST(test_4x4x4x4)
{
    fb_check_rows("4x4x4x4", 10);
}
END_TEST

START_TEST(test_2x2x2x2x2)
{
    fb_check_rows("2x2x2x2x2", 20);
}
END_TEST

START_TEST(test_3x3x3x3)
{
    fb_check_rows("3x3x3x3", 10);
}
END_TEST

int main(void)
{
    const struct {
        const char *name;
        const TTest *test;
    } cases[] = {
        {"lone", test_lone_packet}, {"4x4x4", test_4x4x4},     {"6x6x6", test_6x6x6},
        {"8x8x8", test_8x8x8},      {"4x4x4x4", test_4x4x4x4}, {"2x2x2x2x2", test_2x2x2x2x2},
        {"3x3x3x3", test_3x3x3x3},
    };
    Suite *s = suite_create("flow-booksim");
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        TCase *tc = tcase_create(cases[i].name);
        tcase_add_test(tc, cases[i].test);
        suite_add_tcase(s, tc);
    }
    SRunner *sr = srunner_create(s);
    srunner_set_fork_status(sr, CK_NOFORK);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
