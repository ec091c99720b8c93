/*
 * booksim_cases.h - the BookSim2 validation cases, independent of the model
 * under test.
 *
 * tests/fixtures/booksim/torus.tsv holds what BookSim2 measured on k-ary
 * n-cube tori (n = 3, 4, 5) with dimension-order routing; its header gives
 * the version, the local changes and every parameter.  This header makes the
 * same traffic (Bernoulli injection of 4-flit packets, BookSim's node
 * numbering and patterns, src/traffic.cpp) and drives a model through a
 * bk_driver: a small table of functions (create, send one packet, run until,
 * stall counts of one channel, destroy).  A model level plugs in by
 * providing one driver and calling bk_check_rows() for each shape.
 *
 * Tolerances (issue 11): saturation within 15 % - the model is stable at
 * 0.85 x BookSim's saturation load and saturated at 1.15 x, so its own
 * saturation point lies within 15 % of BookSim's; mean packet latency within
 * 25 % at the loads below saturation; per-link stall: Spearman rank
 * correlation >= 0.8 between the model's channels and BookSim's, for the
 * credit stall and the inq stall separately (stall-*.tsv, definitions there
 * and in doc/model.md), where links differ; printed only where every link of
 * a class is statistically equal (the fixture row says which).
 *
 * A driver may list known gaps (bk_gap): saturation rows the model misses
 * by a measured ratio.  Those are asserted AT the measured ratio, within a
 * stated margin, so that the test fails when the gap grows or closes; they
 * are printed as known deviations and listed in doc/model.md.
 *
 * Saturated = some source's packets, created in the measurement window,
 * took on average more than 500 cycles (BookSim's latency_thres) - the
 * criterion by which the fixture's BookSim saturation was found too.
 *
 * Everything here is static: one test program includes it per model level.
 */
#ifndef BOOKSIM_CASES_H
#define BOOKSIM_CASES_H

#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

#define BK_CYCLE 1000 /* ps: one BookSim cycle */
#define BK_FLIT 16    /* bytes */
#define BK_PKT_FLITS 4
#define BK_WARMUP 3000  /* cycles */
#define BK_MEASURE 6000 /* cycles */
#define BK_MAX_N 5      /* dimensions */

/* A k-ary n-cube; BookSim numbers node b = sum of digit_d * k^d, digit 0
 * fastest, and routes digit 0 first. */
typedef struct bk_cube {
    int k, n, nodes;
} bk_cube;

/* Called once per delivered packet. */
typedef void (*bk_delivery_fn)(void *ctx, uint64_t tag, int64_t created_ps, int64_t delivered_ps);

/* A known gap: on this shape and pattern the model's saturation load is
 * `ratio` x BookSim's (measured), outside the 15 % tolerance; or, with a
 * `load`, its mean latency at that load of a "lat" row is `ratio` x
 * BookSim's, outside the 25 %. */
typedef struct bk_gap {
    const char *shape;   /* "4x4x4" */
    const char *pattern; /* "shuffle" */
    double ratio;        /* model's saturation (or latency) / BookSim's, measured */
    double margin;       /* asserted: stable at ratio - margin, saturated at ratio + margin;
                            a latency within ratio -+ margin */
    const char *tracked; /* where the deviation is tracked ("issue 26") */
    double load;         /* 0: a saturation gap; else the "lat" row's load */
} bk_gap;

/* A model level under test.  Node ids are BookSim's; one cycle is BK_CYCLE
 * ps; the model is configured like BookSim's network (torus.tsv's header). */
typedef struct bk_driver {
    const char *name;
    void *(*create)(const bk_cube *cube, bk_delivery_fn fn, void *ctx);
    /* one packet of BK_PKT_FLITS flits from src to dst, created at at_ps */
    void (*send)(void *model, int64_t at_ps, int src, int dst, uint64_t tag);
    void (*run_until)(void *model, int64_t ps);
    int64_t (*now)(const void *model);
    /* stall cycles so far of the channel leaving node b along dimension
     * (digit) d in direction plus (1) or minus (0) */
    void (*link_stalls)(const void *model, int b, int d, int plus, double *credit, double *inq);
    void (*destroy)(void *model);
    const bk_gap *gaps; /* known gaps, ended by a NULL shape; NULL = none */
} bk_driver;

/* --- traffic, as BookSim's src/traffic.cpp makes it -------------------- */

typedef struct bk_traffic {
    const char *pattern;
    bk_cube cube;
    int *next;    /* alltoall: per source, the next offset (0 .. nodes-2) */
    uint64_t rng; /* injection and uniform destinations */
} bk_traffic;

/* Bits of a node id (bit patterns need a power-of-two node count). */
static int bk_id_bits(int nodes)
{
    int bits = 0;
    while ((1 << bits) < nodes) {
        bits++;
    }
    return bits;
}

/* Every digit moved by `shift` around its ring (TornadoTrafficPattern with
 * shift (k + 1) / 2 - 1, NeighborTrafficPattern with shift 1). */
static int bk_digit_shift(const bk_cube *c, int b, int shift)
{
    int r = 0, off = 1;
    for (int d = 0; d < c->n; d++) {
        r += off * (((b / off) % c->k + shift) % c->k);
        off *= c->k;
    }
    return r;
}

/* Bit permutations (BitRev, Transpose, Shuffle, BitComp TrafficPattern). */
static int bk_bit_dest(const char *pattern, int nodes, int b)
{
    int bits = bk_id_bits(nodes), mask = nodes - 1;
    if (strcmp(pattern, "bitrev") == 0) {
        int r = 0;
        for (int i = 0; i < bits; i++) {
            r = (r << 1) | ((b >> i) & 1);
        }
        return r;
    }
    if (strcmp(pattern, "shuffle") == 0) {
        /* rotate the id left by one bit */
        return ((b << 1) & mask) | ((b << 1) & nodes ? 1 : 0);
    }
    if (strcmp(pattern, "bitcomp") == 0) {
        return ~b & mask;
    }
    ck_assert_msg(strcmp(pattern, "transpose") == 0, "unknown traffic pattern %s", pattern);
    /* swap the low and high halves of the id's bits */
    int shift = bits / 2, lo = (1 << shift) - 1;
    return ((b >> shift) & lo) | ((b << shift) & (lo << shift));
}

static int bk_traffic_dest(bk_traffic *tr, int b)
{
    const bk_cube *c = &tr->cube;
    if (strcmp(tr->pattern, "uniform") == 0) {
        return (int)(test_rng_next(&tr->rng) % (uint64_t)c->nodes);
    }
    if (strcmp(tr->pattern, "alltoall") == 0) {
        /* each source cycles through every other node in a fixed rotating
         * order (the local BookSim pattern of the fixture's header) */
        int j = tr->next[b];
        tr->next[b] = (j + 1) % (c->nodes - 1);
        return (b + 1 + j) % c->nodes;
    }
    if (strcmp(tr->pattern, "tornado") == 0) {
        return bk_digit_shift(c, b, (c->k + 1) / 2 - 1);
    }
    if (strcmp(tr->pattern, "neighbor") == 0) {
        return bk_digit_shift(c, b, 1);
    }
    return bk_bit_dest(tr->pattern, c->nodes, b);
}

/* --- one run ------------------------------------------------------------ */

typedef struct bk_meas {
    int64_t *sum;   /* per source: latency sum (ps) of measured packets */
    int64_t *count; /* per source: measured packets delivered          */
    int64_t *sent;  /* per source: measured packets created            */
} bk_meas;

static void bk_on_delivery(void *ctx, uint64_t tag, int64_t created, int64_t delivered)
{
    bk_meas *m = ctx;
    int64_t src = (int64_t)(tag >> 1);
    if (tag & 1) {
        m->sum[src] += delivered - created;
        m->count[src]++;
    }
}

typedef struct bk_result {
    double latency; /* cycles, mean over measured packets */
    double worst;   /* cycles, worst per-source mean       */
    double overall; /* cycles, BookSim's own abort rule (printed only): mean
                       over every measured packet, those still in the
                       network counted at their age when the drain stopped
                       (a lower bound)                                     */
} bk_result;

/* Per torus channel, indexed [b * 2n + 2d + plus]: stall cycles in the
 * measurement window [BK_WARMUP, BK_WARMUP + BK_MEASURE). */
typedef struct bk_stalls {
    double *credit;
    double *inq;
} bk_stalls;

static size_t bk_channels(const bk_cube *c)
{
    return (size_t)c->nodes * 2 * (size_t)c->n;
}

/* Add (sign +1) or subtract (-1) every channel's stall cycles so far. */
static void bk_snapshot(const bk_driver *drv, const void *model, const bk_cube *c, int sign,
                        bk_stalls *st)
{
    for (size_t i = 0; i < bk_channels(c); i++) {
        double credit, inq;
        int b = (int)(i / (2 * (size_t)c->n)), l = (int)(i % (2 * (size_t)c->n));
        drv->link_stalls(model, b, l / 2, l % 2, &credit, &inq);
        st->credit[i] += sign * credit;
        st->inq[i] += sign * inq;
    }
}

/* The means of a finished run (bk_run_case). */
static bk_result bk_result_of(const bk_meas *ms, int nodes, int64_t drained_at)
{
    bk_result r = {0, 0, 0};
    int64_t sum = 0, count = 0, sent = 0;
    for (int b = 0; b < nodes; b++) {
        double mean;
        sum += ms->sum[b];
        count += ms->count[b];
        sent += ms->sent[b];
        if (ms->count[b] < ms->sent[b]) {
            mean = INFINITY; /* not drained: saturated */
        } else {
            mean = ms->count[b] ? (double)ms->sum[b] / (double)ms->count[b] / BK_CYCLE : 0;
        }
        r.worst = mean > r.worst ? mean : r.worst;
    }
    r.latency = count ? (double)sum / (double)count / BK_CYCLE : 0;
    /* a packet created in the window is at least this old when the drain stops */
    double age = (double)(drained_at - (int64_t)(BK_WARMUP + BK_MEASURE) * BK_CYCLE) / BK_CYCLE;
    r.overall = sent ? ((double)sum / BK_CYCLE + (double)(sent - count) * age) / (double)sent : 0;
    return r;
}

/* One case at `load` flits/node/cycle; if st is not NULL, also every
 * channel's stall cycles in the measurement window. */
static bk_result bk_run_case(const bk_driver *drv, const bk_cube *c, const char *pattern,
                             double load, bk_stalls *st)
{
    bk_meas ms = {calloc((size_t)c->nodes, sizeof(int64_t)),
                  calloc((size_t)c->nodes, sizeof(int64_t)),
                  calloc((size_t)c->nodes, sizeof(int64_t))};
    bk_traffic tr = {pattern, *c, calloc((size_t)c->nodes, sizeof(int)),
                     0x5eed0000u + (uint64_t)c->k};
    double p = load / BK_PKT_FLITS; /* packets per node per cycle */
    ck_assert(tr.next && ms.sum && ms.count && ms.sent);
    void *model = drv->create(c, bk_on_delivery, &ms);
    for (int64_t cyc = 0; cyc < BK_WARMUP + BK_MEASURE; cyc++) {
        int measured = cyc >= BK_WARMUP;
        if (st && cyc == BK_WARMUP) {
            bk_snapshot(drv, model, c, -1, st);
        }
        for (int b = 0; b < c->nodes; b++) {
            if ((double)(test_rng_next(&tr.rng) >> 11) * 0x1.0p-53 >= p) {
                continue;
            }
            int d = bk_traffic_dest(&tr, b);
            ms.sent[b] += measured;
            drv->send(model, cyc * BK_CYCLE, b, d, ((uint64_t)b << 1) | (uint64_t)measured);
        }
        drv->run_until(model, cyc * BK_CYCLE);
    }
    if (st) {
        drv->run_until(model, (int64_t)(BK_WARMUP + BK_MEASURE) * BK_CYCLE);
        bk_snapshot(drv, model, c, +1, st);
    }
    /* drain, with a bound: a saturated network would take very long */
    drv->run_until(model, (int64_t)(BK_WARMUP + 4 * BK_MEASURE) * BK_CYCLE);
    bk_result r = bk_result_of(&ms, c->nodes, drv->now(model));
    drv->destroy(model);
    free(ms.sum);
    free(ms.count);
    free(ms.sent);
    free(tr.next);
    return r;
}

/* --- rank correlation --------------------------------------------------- */

/* Ranks of x[0..n-1], 1-based, tied values sharing the mean of their ranks. */
static void bk_ranks(const double *x, size_t n, double *rank)
{
    size_t *order = malloc(n * sizeof *order);
    ck_assert(order != NULL);
    for (size_t i = 0; i < n; i++) {
        order[i] = i;
    }
    /* insertion sort by value: n is a few thousand at most */
    for (size_t i = 1; i < n; i++) {
        size_t v = order[i], j = i;
        while (j > 0 && x[order[j - 1]] > x[v]) {
            order[j] = order[j - 1];
            j--;
        }
        order[j] = v;
    }
    for (size_t i = 0; i < n;) {
        size_t j = i;
        while (j + 1 < n && x[order[j + 1]] == x[order[i]]) {
            j++;
        }
        for (size_t m = i; m <= j; m++) {
            rank[order[m]] = (double)(i + j) / 2 + 1; /* mean of ranks i+1 .. j+1 */
        }
        i = j + 1;
    }
    free(order);
}

/* Spearman's rank correlation: Pearson's correlation of the ranks (ties
 * averaged).  NAN when one side is constant. */
static double bk_spearman(const double *x, const double *y, size_t n)
{
    double *rx = malloc(n * sizeof *rx), *ry = malloc(n * sizeof *ry);
    double sxy = 0, sxx = 0, syy = 0, mean = (double)(n + 1) / 2;
    ck_assert(rx != NULL && ry != NULL);
    bk_ranks(x, n, rx);
    bk_ranks(y, n, ry);
    for (size_t i = 0; i < n; i++) {
        sxy += (rx[i] - mean) * (ry[i] - mean);
        sxx += (rx[i] - mean) * (rx[i] - mean);
        syy += (ry[i] - mean) * (ry[i] - mean);
    }
    free(rx);
    free(ry);
    return sxx > 0 && syy > 0 ? sxy / sqrt(sxx * syy) : NAN;
}

/* --- fixtures ----------------------------------------------------------- */

static FILE *bk_fixture(const char *name)
{
    char path[4096];
    const char *src = getenv("top_srcdir");
    snprintf(path, sizeof path, "%s/tests/fixtures/booksim/%s", src && *src ? src : ".", name);
    FILE *f = fopen(path, "r");
    ck_assert_msg(f != NULL, "cannot open %s", path);
    return f;
}

/* "4x4x4x4" -> k 4, n 4; every dimension of the same size (BookSim's
 * torus is a k-ary n-cube). */
static bk_cube bk_cube_parse(const char *shape)
{
    bk_cube c = {0, 0, 1};
    const char *s = shape;
    while (*s) {
        char *end;
        long v = strtol(s, &end, 10);
        ck_assert_msg(end != s && v >= 2 && (c.k == 0 || v == c.k) && c.n < BK_MAX_N,
                      "torus.tsv: bad shape %s (want KxKx... with 2 <= K, 3 to %d dimensions)",
                      shape, BK_MAX_N);
        c.k = (int)v;
        c.n++;
        c.nodes *= c.k;
        s = *end == 'x' ? end + 1 : end;
        ck_assert_msg(*end == 'x' || *end == '\0', "torus.tsv: bad shape %s", shape);
    }
    ck_assert_msg(c.n >= 3, "torus.tsv: bad shape %s (fewer than 3 dimensions)", shape);
    return c;
}

/* BookSim's per-channel stall cycles of one case (stall-SHAPE-PATTERN.tsv,
 * rows "NODE DIM DIR FLITS CREDIT INQ"). */
static void bk_read_stalls(const char *shape, const bk_cube *c, const char *pattern, bk_stalls *bs)
{
    char name[128], line[256];
    size_t rows = 0;
    snprintf(name, sizeof name, "stall-%s-%s.tsv", shape, pattern);
    FILE *f = bk_fixture(name);
    while (fgets(line, sizeof line, f)) {
        int b, d;
        char dir;
        long flits;
        double credit, inq;
        if (line[0] == '#') {
            continue;
        }
        ck_assert_msg(
            sscanf(line, "%d %d %c %ld %lf %lf", &b, &d, &dir, &flits, &credit, &inq) == 6 &&
                b >= 0 && b < c->nodes && d >= 0 && d < c->n && (dir == '+' || dir == '-'),
            "%s: bad row: %s", name, line);
        size_t i = (size_t)b * 2 * (size_t)c->n + 2 * (size_t)d + (dir == '+');
        bs->credit[i] = credit;
        bs->inq[i] = inq;
        rows++;
    }
    fclose(f);
    ck_assert_msg(rows == bk_channels(c), "%s: %zu rows, want one per channel (%zu)", name, rows,
                  bk_channels(c));
}

/* --- the checks --------------------------------------------------------- */

/* Agreement of one stall measure over all channels: Spearman >= 0.8; where
 * one simulator shows the same value on every channel the ranks say nothing,
 * and then both must show exactly zero everywhere. */
static void bk_check_rank(const char *tag, const char *what, const double *ours, const double *bs,
                          size_t n, int assert_it)
{
    double r = bk_spearman(ours, bs, n);
    if (isnan(r)) {
        int zero = 1;
        for (size_t i = 0; i < n; i++) {
            zero = zero && ours[i] == 0 && bs[i] == 0;
        }
        fprintf(stderr, "%s: %s stall %s\n", tag, what,
                zero ? "zero on every channel in both" : "constant on one side only");
        ck_assert_msg(!assert_it || zero, "%s: %s stall constant on one side only", tag, what);
        return;
    }
    fprintf(stderr, "%s: %s stall rank correlation %.3f%s\n", tag, what, r,
            assert_it ? "" : " (reported, not asserted)");
    ck_assert_msg(!assert_it || r >= 0.8, "%s: %s stall rank correlation %.3f < 0.8", tag, what, r);
}

/* Mean stall fraction per class of link (doc/model.md's table), printed. */
static void bk_print_classes(const char *tag, const bk_cube *c, const bk_stalls *ours,
                             const bk_stalls *bs)
{
    size_t n = bk_channels(c), per_node = 2 * (size_t)c->n;
    for (size_t l = 0; l < per_node; l++) {
        double oc = 0, bc = 0, oi = 0, bi = 0;
        for (size_t i = l; i < n; i += per_node) {
            oc += ours->credit[i];
            bc += bs->credit[i];
            oi += ours->inq[i];
            bi += bs->inq[i];
        }
        double per = (double)c->nodes * BK_MEASURE / 100; /* -> % of the window */
        fprintf(stderr, "%s d%zu%c: credit %.1f / %.1f %%, inq %.1f / %.1f %% (ours / BookSim)\n",
                tag, l / 2, l % 2 ? '+' : '-', oc / per, bc / per, oi / per, bi / per);
    }
}

/* A "stall SHAPE PATTERN LOAD HOW" row.  HOW: "assert" where links differ;
 * "inq" where they differ but the credit stall is a known disagreement
 * (printed, doc/model.md says why); "report" where every link of a class
 * (dimension and direction) is statistically equal, so that ranks within a
 * class are noise (printed only). */
static void bk_check_stalls(const bk_driver *drv, const char *shape, const char *pattern,
                            double load, const char *how)
{
    bk_cube c = bk_cube_parse(shape);
    size_t n = bk_channels(&c);
    bk_stalls ours = {calloc(n, sizeof(double)), calloc(n, sizeof(double))};
    bk_stalls bs = {calloc(n, sizeof(double)), calloc(n, sizeof(double))};
    int assert_inq = strcmp(how, "assert") == 0 || strcmp(how, "inq") == 0;
    int assert_credit = strcmp(how, "assert") == 0;
    char tag[96];
    snprintf(tag, sizeof tag, "%s %s %s", drv->name, shape, pattern);
    ck_assert_msg(assert_inq || strcmp(how, "report") == 0, "stall row: bad mode %s", how);
    ck_assert(ours.credit && ours.inq && bs.credit && bs.inq);
    bk_read_stalls(shape, &c, pattern, &bs);
    bk_run_case(drv, &c, pattern, load, &ours);
    bk_check_rank(tag, "credit", ours.credit, bs.credit, n, assert_credit);
    bk_check_rank(tag, "inq", ours.inq, bs.inq, n, assert_inq);
    bk_print_classes(tag, &c, &ours, &bs);
    free(ours.credit);
    free(ours.inq);
    free(bs.credit);
    free(bs.inq);
}

/* The known gap of a saturation row (load 0) or of a latency row (its load). */
static const bk_gap *bk_gap_find(const bk_driver *drv, const char *shape, const char *pattern,
                                 double load)
{
    for (const bk_gap *g = drv->gaps; g && g->shape; g++) {
        if (strcmp(g->shape, shape) == 0 && strcmp(g->pattern, pattern) == 0 &&
            fabs(g->load - load) < 1e-9) {
            return g;
        }
    }
    return NULL;
}

/* The model's own saturation load, as a ratio to BookSim's `load`: the
 * highest stable ratio found by bisection on [0.5, 1.5] in 7 steps
 * (resolution 1/128), the search the fixture's BookSim figures came from.
 * Measured only when BOOKSIM_BISECT is set in the environment (7 runs per
 * row): the figures of doc/model.md and of the known gaps come from it. */
static void bk_bisect(const bk_driver *drv, const char *shape, const char *pattern, double load)
{
    bk_cube c = bk_cube_parse(shape);
    double lo = 0.5, hi = 1.5;
    for (int step = 0; step < 7; step++) {
        double mid = (lo + hi) / 2;
        if (bk_run_case(drv, &c, pattern, mid * load, NULL).worst < 500) {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    fprintf(stderr, "%s %s %s: saturation %.4f = %.3f x BookSim's %.4f (bisection, next %.3f)\n",
            drv->name, shape, pattern, lo * load, lo, load, hi);
}

/* A "sat SHAPE PATTERN LOAD" row: stable at `lo` x LOAD, saturated at
 * `hi` x LOAD - 0.85 and 1.15, or a known gap's measured ratio -+ its
 * margin. */
static void bk_check_sat(const bk_driver *drv, const char *shape, const char *pattern, double load)
{
    bk_cube c = bk_cube_parse(shape);
    const bk_gap *g = bk_gap_find(drv, shape, pattern, 0);
    double lo = g ? g->ratio - g->margin : 0.85, hi = g ? g->ratio + g->margin : 1.15;
    bk_result below = bk_run_case(drv, &c, pattern, lo * load, NULL);
    bk_result above = bk_run_case(drv, &c, pattern, hi * load, NULL);
    const char *bisect = getenv("BOOKSIM_BISECT");
    if (bisect && *bisect) {
        bk_bisect(drv, shape, pattern, load);
    }
    fprintf(stderr,
            "%s %s %s sat %.4f: at %.2fx worst %.1f, overall %.1f; at %.2fx worst %.1f, "
            "overall %.1f cycles\n",
            drv->name, shape, pattern, load, lo, below.worst, below.overall, hi, above.worst,
            above.overall);
    if (g) {
        fprintf(stderr,
                "%s %s %s: KNOWN DEVIATION (%s): saturation %.2f x BookSim's, outside the 15 %% "
                "tolerance; asserted at %.2f -+ %.2f so that a change shows\n",
                drv->name, shape, pattern, g->tracked, g->ratio, g->ratio, g->margin);
        ck_assert_msg(g->ratio - g->margin > 1.15 || g->ratio + g->margin < 0.85,
                      "%s %s: a known gap inside the tolerance is no gap", shape, pattern);
    }
    ck_assert_msg(below.worst < 500, "%s %s %s: saturated at %.2f x BookSim's %.4f", drv->name,
                  shape, pattern, lo, load);
    ck_assert_msg(above.worst >= 500, "%s %s %s: not saturated at %.2f x BookSim's %.4f", drv->name,
                  shape, pattern, hi, load);
}

/* A "lat SHAPE PATTERN LOAD LATENCY" row: within 25 %. */
static void bk_check_latency(const bk_driver *drv, const char *shape, const char *pattern,
                             double load, double lat)
{
    bk_cube c = bk_cube_parse(shape);
    bk_result r = bk_run_case(drv, &c, pattern, load, NULL);
    const bk_gap *g = bk_gap_find(drv, shape, pattern, load);
    fprintf(stderr, "%s %s %s load %.4f: ours %.2f, BookSim %.2f cycles (%+.1f %%)\n", drv->name,
            shape, pattern, load, r.latency, lat, 100 * (r.latency / lat - 1));
    if (g) {
        fprintf(stderr,
                "%s %s %s load %.4f: KNOWN DEVIATION (%s): latency %.3f x BookSim's, asserted at "
                "%.3f -+ %.3f\n",
                drv->name, shape, pattern, load, g->tracked, r.latency / lat, g->ratio, g->margin);
        ck_assert_msg(fabs(r.latency / lat - g->ratio) <= g->margin,
                      "%s %s %s load %.4f: latency %.3f x BookSim's, known gap measured at %.3f",
                      drv->name, shape, pattern, load, r.latency / lat, g->ratio);
        return;
    }
    ck_assert_msg(fabs(r.latency / lat - 1) <= 0.25, "%s %s %s load %.4f: latency %.2f vs %.2f",
                  drv->name, shape, pattern, load, r.latency, lat);
}

/* One row of torus.tsv: "sat SHAPE PATTERN LOAD", "lat SHAPE PATTERN LOAD
 * LATENCY" or "stall SHAPE PATTERN LOAD HOW" (per-link figures in
 * stall-SHAPE-PATTERN.tsv); lat and how are set for their kinds only. */
typedef struct bk_row {
    char kind[8], shape[32], pattern[32], how[16];
    double load, lat;
} bk_row;

/* Called once per row of the shape asked for. */
typedef void (*bk_row_fn)(void *ctx, const bk_row *row);

/* Every row of shape want_shape in torus.tsv, parsed, to fn in file order.
 * want_rows is the number of rows of that shape in the file: a row that
 * does not parse fails the test instead of being skipped. */
static void bk_each_row(const char *want_shape, int want_rows, bk_row_fn fn, void *ctx)
{
    FILE *f = bk_fixture("torus.tsv");
    char line[512];
    int rows = 0;
    while (fgets(line, sizeof line, f)) {
        bk_row r;
        memset(&r, 0, sizeof r);
        if (line[0] == '#' ||
            sscanf(line, "%7s %31s %31s %lf", r.kind, r.shape, r.pattern, &r.load) != 4 ||
            strcmp(r.shape, want_shape) != 0) {
            continue;
        }
        int ok = strcmp(r.kind, "sat") == 0 ||
                 (strcmp(r.kind, "lat") == 0 &&
                  sscanf(line, "%*s %*s %*s %*f %lf", &r.lat) == 1) ||
                 (strcmp(r.kind, "stall") == 0 &&
                  sscanf(line, "%*s %*s %*s %*f %15s", r.how) == 1);
        if (!ok) {
            ck_abort_msg("torus.tsv: row not understood: %s", line);
        }
        rows++;
        fn(ctx, &r);
    }
    fclose(f);
    ck_assert_int_eq(rows, want_rows);
}

/* One row checked against model drv (ctx). */
static void bk_check_row(void *ctx, const bk_row *r)
{
    const bk_driver *drv = ctx;
    if (strcmp(r->kind, "sat") == 0) {
        bk_check_sat(drv, r->shape, r->pattern, r->load);
    } else if (strcmp(r->kind, "lat") == 0) {
        bk_check_latency(drv, r->shape, r->pattern, r->load, r->lat);
    } else {
        bk_check_stalls(drv, r->shape, r->pattern, r->load, r->how);
    }
}

/* The fixture's rows of one shape against model drv (bk_each_row). */
static __attribute__((unused)) void bk_check_rows(const bk_driver *drv, const char *want_shape,
                                                 int want_rows)
{
    bk_each_row(want_shape, want_rows, bk_check_row, (void *)drv);
}

#endif /* BOOKSIM_CASES_H */
