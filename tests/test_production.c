/*
 * test_production.c - the pure parts of a production period
 * (workload/production.c, workload/allocator.c, temu_pattern_pairs):
 * a pattern's pairs are the messages its replay sends, the samplers hold
 * their stated moments, the allocators place what they say (nid order; a
 * free box of Geminis, closer together than nid order on a fragmented
 * machine), the queue fills the machine first-come first-served with
 * backfill, and everything is a function of the seed.
 */
#include "production.h"
#include "testutil.h"
#include "torusemu_replay.h"

#include <math.h>

/* ------------------------------------------------------------ pairs */

static temu_status inject_pair(void *ctx, int32_t from, int32_t to, uint64_t bytes, temu_error *err)
{
    return temu_inject_ranks(ctx, from, to, bytes, NULL, TEMU_KIND_P2P, err);
}

/* One step of p replayed and its pairs injected: every counter equal. */
static void pairs_as_replay(const temu_pattern *p, int32_t nranks)
{
    temu_session *a = test_mapped_store("gemini:2x2x2", nranks, 1, NULL);
    temu_session *b = test_mapped_store("gemini:2x2x2", nranks, 1, NULL);
    temu_replay *r;
    temu_error err;
    ck_assert_int_eq(temu_replay_create(a, &r, &err), TEMU_OK);
    ck_assert_msg(temu_pattern_replay(r, p, NULL, NULL, &err) == TEMU_OK, "%s", err.message);
    ck_assert_msg(temu_replay_finish(r, &err) == TEMU_OK, "%s", err.message);
    temu_replay_free(r);
    ck_assert_msg(temu_pattern_pairs(p, nranks, inject_pair, b, &err) == TEMU_OK, "%s",
                  err.message);
    uint64_t n = temu_machine_counter_count(temu_session_machine(a)), differ = 0, nonzero = 0;
    for (uint64_t i = 0; i < n; i++) {
        differ += temu_counter_read(a, (int64_t)i) != temu_counter_read(b, (int64_t)i);
        nonzero += temu_counter_read(a, (int64_t)i) != 0;
    }
    ck_assert_uint_eq(differ, 0);
    ck_assert_uint_gt(nonzero, 0);
    temu_session_close(a);
    temu_session_close(b);
}

START_TEST(pairs_are_the_replay)
{
    temu_pattern p = {.kind = TEMU_PATTERN_HALO, .grid = {2, 2, 4}, .size = 10, .vars = 2};
    pairs_as_replay(&p, 16);
    p = (temu_pattern){.kind = TEMU_PATTERN_NEIGHBOR, .grid = {4, 2, 2}, .bytes = 5000};
    pairs_as_replay(&p, 16);
    p = (temu_pattern){.kind = TEMU_PATTERN_TORNADO, .bytes = 700};
    pairs_as_replay(&p, 16);
    p = (temu_pattern){.kind = TEMU_PATTERN_RANDOM, .bytes = 9000, .seed = 77};
    pairs_as_replay(&p, 16);
    /* all-to-all of 64 KiB pairs: the pairwise exchange sends each pair */
    p = (temu_pattern){.kind = TEMU_PATTERN_FFT, .grid = {4, 4}, .size = 256, .phase = 1};
    pairs_as_replay(&p, 16);
}
END_TEST

static temu_status count_pair(void *ctx, int32_t from, int32_t to, uint64_t bytes, temu_error *err)
{
    (void)from, (void)to, (void)err;
    uint64_t *c = ctx;
    c[0]++;
    c[1] += bytes;
    return TEMU_OK;
}

START_TEST(pairs_by_hand)
{
    temu_error err;
    uint64_t c[2] = {0, 0};
    /* 2x2x2 halo without wrap: every rank has 3 neighbours, 24 messages of
     * (4 + 2)^2 x 1 x 8 = 288 bytes */
    temu_pattern p = {.kind = TEMU_PATTERN_HALO, .grid = {2, 2, 2}, .size = 4, .vars = 1};
    ck_assert_int_eq(temu_pattern_pairs(&p, 8, count_pair, c, &err), TEMU_OK);
    ck_assert_uint_eq(c[0], 24);
    ck_assert_uint_eq(c[1], 24 * 288);
    /* fft rows of 4 in a 4x3 grid: 3 rows x 4 x 3 pairs */
    c[0] = c[1] = 0;
    p = (temu_pattern){.kind = TEMU_PATTERN_FFT, .grid = {4, 3}, .size = 12, .phase = 1};
    ck_assert_int_eq(temu_pattern_pairs(&p, 12, count_pair, c, &err), TEMU_OK);
    ck_assert_uint_eq(c[0], 36);
    /* 16 x 12^3 bytes, 1/12 a rank, 1/4 of that to each member of its row */
    ck_assert_uint_eq(c[1], 36 * (16 * 12 * 12 * 12 / 12 / 4));
    p = (temu_pattern){.kind = TEMU_PATTERN_GPCNET};
    ck_assert_int_eq(temu_pattern_pairs(&p, 12, count_pair, c, &err), TEMU_EINVAL);
    ck_assert_ptr_nonnull(strstr(err.message, "gpcnet"));
}
END_TEST

/* A stream of a production phase is T PUT transactions: the volume model
 * plans T request packets of 32 phits on VC0 and T responses of 3 phits
 * back on VC1 (production_run.c sends these as two flows). */
START_TEST(stream_is_a_put)
{
    temu_machine m = test_machine("gemini:4x4x4");
    temu_error err;
    temu_plan p;
    uint64_t t = 1000003;
    temu_message msg = {3, 77, t * 64, NULL, TEMU_KIND_PUT};
    ck_assert_uint_eq(temu_gemini_put_request_phits(64, 0), 32);
    ck_assert_msg(temu_plan_message(&m, &msg, &p, &err) == TEMU_OK, "%s", err.message);
    uint64_t pk[2][2] = {{0}}, ph[2][2] = {{0}};
    for (int dir = 0; dir < 2; dir++) {
        for (int vc = 0; vc < 2; vc++) {
            for (int k = 0; k < TEMU_SLOTS; k++) {
                pk[dir][vc] += p.pkts[dir][vc][k];
                ph[dir][vc] += p.phits[dir][vc][k];
            }
        }
    }
    ck_assert_uint_eq(pk[0][0], t);
    ck_assert_uint_eq(ph[0][0], 32 * t);
    ck_assert_uint_eq(pk[1][1], t);
    ck_assert_uint_eq(ph[1][1], 3 * t);
    ck_assert_uint_eq(pk[0][1] + pk[1][0], 0);
}
END_TEST

/* ----------------------------------------------------------- draws */

#define DRAWS 200000

/* The share of powers of two among the sizes drawn: 80 % rounded to one,
 * and of the others floor(2^u) is 2^j for u in [j, log2(2^j + 1)). */
static double pow2_expected(const temu_prod_params *p)
{
    double l = log2((double)p->max_job_nodes), b = log2((double)p->small_nodes);
    double lo[2] = {0, b}, hi[2] = {b, l}, share[2] = {p->small_share, 1 - p->small_share};
    double plain = 0;
    for (int st = 0; st < 2; st++) {
        for (int j = 0; j <= (int)floor(l); j++) {
            double x = fmax(j, lo[st]), y = fmin(fmin(log2(exp2(j) + 1), l), hi[st]);
            plain += y > x ? share[st] * (y - x) / (hi[st] - lo[st]) : 0;
        }
    }
    return p->pow2_share + (1 - p->pow2_share) * plain;
}

START_TEST(sizes_hold_their_moments)
{
    temu_prod_params p;
    temu_prod_params_default(&p, 27648);
    uint64_t s = 42;
    double sum = 0;
    int64_t pow2 = 0, small = 0, lo = INT64_MAX, hi = 0;
    for (int i = 0; i < DRAWS; i++) {
        int64_t n = temu_prod_draw_nodes(&p, &s);
        sum += (double)n;
        pow2 += (n & (n - 1)) == 0;
        small += n <= 64;
        lo = n < lo ? n : lo;
        hi = n > hi ? n : hi;
    }
    double mean = temu_prod_mean_nodes(&p), want2 = pow2_expected(&p);
    /* the stated mean worked out by hand for the large stage alone: u on
     * [6, L], L = log2 26864 = 14.7134, width 8.7134; rounded to a power of
     * two (80 %): 64 x 0.5 + (2^7 + ... + 2^13) x 1 + 2^14 x (L - 13.5) =
     * 36168.3, / 8.7134 = 4150.9; floor(2^u) (20 %): (26864 - 64) /
     * ln(26864 / 64) - 0.5 = 4436.8; together 4208.1 */
    temu_prod_params big = p;
    big.small_share = 0;
    ck_assert_msg(fabs(temu_prod_mean_nodes(&big) - 4208.1) < 0.5, "large stage %g",
                  temu_prod_mean_nodes(&big));
    /* the mean of the draws: about 57 nodes, its standard error about
     * 1.8 % (the large stage's 1 % of draws carry it); 8 % is over four
     * standard errors */
    ck_assert_msg(fabs(sum / DRAWS - mean) < 0.08 * mean, "mean %g, stated %g", sum / DRAWS, mean);
    ck_assert_int_eq(lo, 1);
    ck_assert_int_le(hi, 26864);
    ck_assert_int_gt(hi, 16384);
    /* 99 % in the small stage (up to 64 nodes, which the large stage's
     * lowest can reach too) */
    ck_assert_msg(small > 0.99 * DRAWS && small < 0.992 * DRAWS, "%lld small", (long long)small);
    /* the standard error of the share of powers of two is 0.0008 */
    ck_assert_msg(fabs((double)pow2 / DRAWS - want2) < 0.005, "%lld powers of two, want %g",
                  (long long)pow2, want2 * DRAWS);
}
END_TEST

START_TEST(runtimes_hold_their_moments)
{
    temu_prod_params p;
    temu_prod_params_default(&p, 1024);
    uint64_t s = 7;
    double sum = 0, logsum = 0;
    for (int i = 0; i < DRAWS; i++) {
        int64_t t = temu_prod_draw_run(&p, &s);
        ck_assert_int_ge(t, p.min_run_ps);
        ck_assert_int_le(t, p.max_run_ps);
        sum += (double)t;
        logsum += log((double)t);
    }
    double mean = temu_prod_mean_run_ps(&p); /* (48 h - 1 min) / ln 2880 = 6.0 h */
    ck_assert_msg(fabs(mean / 3.6e15 / ((48.0 - 1.0 / 60) / log(2880.0)) - 1) < 1e-9, "%g", mean);
    ck_assert_msg(fabs(sum / DRAWS - mean) < 0.02 * mean, "mean %g, stated %g", sum / DRAWS, mean);
    /* log-uniform: the mean log is the middle of the logs */
    double mid = 0.5 * (log((double)p.min_run_ps) + log((double)p.max_run_ps));
    ck_assert_msg(fabs(logsum / DRAWS - mid) < 0.02, "mean log %g, middle %g", logsum / DRAWS, mid);
}
END_TEST

START_TEST(patterns_and_phases)
{
    uint64_t s = 3;
    int64_t count[TEMU_PATTERNS] = {0};
    for (int i = 0; i < DRAWS; i++) {
        count[temu_prod_draw_pattern(&s)]++;
    }
    for (int k = 0; k < TEMU_PROD_PATTERNS; k++) {
        double share = (double)count[temu_prod_pattern_kinds[k]] / DRAWS;
        ck_assert_msg(fabs(share - temu_prod_pattern_shares[k]) < 0.01, "pattern %d: %g", k, share);
    }
    temu_prod_params p;
    temu_prod_params_default(&p, 1024);
    temu_prod_job j = {.id = 5, .start_ps = 0, .run_ps = INT64_MAX / 2};
    double len = 0, gbs = 0;
    for (int32_t i = 0; i < DRAWS; i++) {
        temu_prod_phase ph;
        temu_prod_phase_draw(&p, &j, i, 0, &ph);
        ck_assert_int_gt(ph.end_ps, ph.start_ps);
        len += (double)(ph.end_ps - ph.start_ps);
        gbs += ph.node_gbs;
    }
    /* exponential: 5 min and 0.1 GB/s (the 1 GB/s cap takes e^-10 of it) */
    ck_assert_msg(fabs(len / DRAWS / (double)p.mean_phase_ps - 1) < 0.01, "%g", len / DRAWS);
    ck_assert_msg(fabs(gbs / DRAWS / 0.1 - 1) < 0.01, "%g", gbs / DRAWS);
    /* a phase ends with its job */
    j.run_ps = 1000;
    temu_prod_phase ph;
    temu_prod_phase_draw(&p, &j, 0, 0, &ph);
    ck_assert_int_eq(ph.end_ps, 1000);
}
END_TEST

START_TEST(jobs_are_the_seeds)
{
    temu_prod_params p;
    temu_prod_params_default(&p, 27648);
    temu_prod_job a, b, c;
    int same = 0;
    for (int64_t id = 0; id < 100; id++) {
        temu_prod_job_draw(&p, id, 17, &a);
        temu_prod_job_draw(&p, id, 17, &b);
        ck_assert_int_eq(a.nodes, b.nodes);
        ck_assert_int_eq(a.run_ps, b.run_ps);
        ck_assert_int_eq(a.pattern, b.pattern);
        ck_assert_int_eq(a.submit_ps, 17);
        ck_assert_int_eq(a.start_ps, -1);
        p.seed = 2;
        temu_prod_job_draw(&p, id, 17, &c);
        p.seed = 1;
        same += c.nodes == a.nodes && c.run_ps == a.run_ps;
    }
    ck_assert_int_le(same, 5);
}
END_TEST

START_TEST(pattern_parameters_fit)
{
    int64_t sizes[] = {1, 2, 7, 12, 64, 100, 1000, 26864};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        temu_prod_job j = {.nodes = sizes[i], .pattern = TEMU_PATTERN_HALO};
        temu_pattern p;
        temu_prod_pattern_of(&j, NULL, &p);
        ck_assert_int_eq((int64_t)p.grid[0] * p.grid[1] * p.grid[2], sizes[i]);
        j.pattern = TEMU_PATTERN_FFT;
        temu_prod_pattern_of(&j, NULL, &p);
        ck_assert_int_eq((int64_t)p.grid[0] * p.grid[1], sizes[i]);
        ck_assert_int_le(p.grid[0], 16);
    }
    temu_prod_job j = {.nodes = 1000, .pattern = TEMU_PATTERN_HALO};
    temu_pattern p;
    temu_prod_pattern_of(&j, NULL, &p);
    ck_assert_int_eq(p.grid[0], 10);
    ck_assert_int_eq(p.grid[2], 10);
    j.pattern = TEMU_PATTERN_FFT;
    temu_prod_pattern_of(&j, NULL, &p);
    ck_assert_int_eq(p.grid[0], 10); /* the largest divisor of 1000 up to 16 */
}
END_TEST

/* ------------------------------------------------------- allocators */

static temu_alloc *alloc_of(const temu_machine *m, int kind)
{
    temu_alloc *a;
    temu_error err;
    ck_assert_msg(temu_alloc_create(m, kind, &a, &err) == TEMU_OK, "%s", err.message);
    return a;
}

START_TEST(nid_order)
{
    temu_machine m = test_machine("gemini:4x4x4");
    temu_alloc *a = alloc_of(&m, TEMU_ALLOC_NID);
    int64_t held[128], n;
    ck_assert_int_eq(temu_alloc_take(a, 5, held, &n), 1);
    ck_assert_int_eq(n, 5);
    for (int i = 0; i < 5; i++) {
        ck_assert_int_eq(held[i], i);
    }
    int64_t two[2] = {1, 3};
    temu_alloc_release(a, two, 2);
    ck_assert_int_eq(temu_alloc_take(a, 3, held, &n), 1);
    ck_assert_int_eq(held[0], 1);
    ck_assert_int_eq(held[1], 3);
    ck_assert_int_eq(held[2], 5);
    ck_assert_int_eq(temu_alloc_free_nodes(a), 122);
    ck_assert_int_eq(temu_alloc_take(a, 123, held, &n), 0);
    ck_assert_int_eq(temu_alloc_take(a, 122, held, &n), 1);
    ck_assert_int_eq(temu_alloc_free_nodes(a), 0);
    temu_alloc_free(a);
}
END_TEST

/* The held nodes are whole Geminis filling a box of sides s (in some
 * rotation of the ring), each node once. */
static void assert_box(const temu_machine *m, const int64_t *held, int64_t n, const int32_t *s)
{
    ck_assert_int_eq(n, (int64_t)s[0] * s[1] * s[2] * m->nodes_per_router);
    int32_t seen[3][64] = {{0}};
    for (int64_t i = 0; i < n; i++) {
        int32_t c[3];
        temu_router_coords(m, held[i] / m->nodes_per_router, c);
        for (int d = 0; d < 3; d++) {
            seen[d][c[d]] = 1;
        }
        for (int64_t k = 0; k < i; k++) {
            ck_assert_int_ne(held[k], held[i]);
        }
    }
    for (int d = 0; d < 3; d++) {
        int span = 0;
        for (int x = 0; x < m->size[d]; x++) {
            span += seen[d][x];
        }
        ck_assert_int_eq(span, s[d]);
    }
}

START_TEST(topo_boxes)
{
    temu_machine m = test_machine("gemini:8x8x8");
    temu_alloc *a = alloc_of(&m, TEMU_ALLOC_TOPO);
    int64_t held[1024], n;
    /* 16 nodes = 8 Geminis: a 2x2x2 cube */
    ck_assert_int_eq(temu_alloc_need(a, 16), 16);
    ck_assert_int_eq(temu_alloc_take(a, 16, held, &n), 1);
    assert_box(&m, held, n, (int32_t[]){2, 2, 2});
    /* 14 nodes = 7 Geminis: still a 2x2x2 box, two nodes spare */
    ck_assert_int_eq(temu_alloc_need(a, 14), 16);
    ck_assert_int_eq(temu_alloc_take(a, 14, held, &n), 1);
    assert_box(&m, held, n, (int32_t[]){2, 2, 2});
    /* 128 nodes = 64 Geminis: 4x4x4 */
    ck_assert_int_eq(temu_alloc_take(a, 128, held, &n), 1);
    assert_box(&m, held, n, (int32_t[]){4, 4, 4});
    ck_assert_int_eq(temu_alloc_free_nodes(a), 1024 - 16 - 16 - 128);
    temu_alloc_free(a);
}
END_TEST

START_TEST(topo_waits_for_a_box)
{
    temu_machine m = test_machine("gemini:4x4x4");
    temu_alloc *a = alloc_of(&m, TEMU_ALLOC_TOPO);
    int64_t held[128], n, first[128], nfirst;
    /* a 2x4x4 half, then a Gemini in the middle of the other half */
    ck_assert_int_eq(temu_alloc_take(a, 64, first, &nfirst), 1);
    ck_assert_int_eq(temu_alloc_take(a, 2, held, &n), 1);
    assert_box(&m, held, n, (int32_t[]){1, 1, 1});
    /* 64 nodes are free but no 32-Gemini box is: the job waits */
    ck_assert_int_eq(temu_alloc_free_nodes(a), 62);
    ck_assert_int_eq(temu_alloc_take(a, 60, held, &n), 0);
    ck_assert_int_eq(n, 0);
    temu_alloc_release(a, first, nfirst);
    ck_assert_int_eq(temu_alloc_take(a, 60, held, &n), 1);
    ck_assert_int_eq(n, 64); /* a 32-Gemini box for 30 Geminis' worth */
    temu_alloc_free(a);
}
END_TEST

/* Mean hop distance between the ranks of one job. */
static double job_distance(const temu_machine *m, const int64_t *nodes, int64_t n)
{
    double sum = 0;
    int64_t pairs = 0;
    for (int64_t i = 0; i < n; i++) {
        for (int64_t k = i + 1; k < n; k++) {
            sum += temu_route_distance(m, temu_node_router(m, nodes[i]),
                                       temu_node_router(m, nodes[k]));
            pairs++;
        }
    }
    return pairs > 0 ? sum / (double)pairs : 0;
}

/* A machine fragmented by jobs that came and went, then jobs placed:
 * the mean distance within them, averaged over the jobs. */
static double placed_distance(const temu_machine *m, int kind)
{
    temu_alloc *a = alloc_of(m, kind);
    int64_t *held = malloc((size_t)m->nnodes * 40 * sizeof *held), n[40];
    uint64_t s = 11;
    int jobs = 0;
    for (int i = 0; i < 40; i++) {
        int64_t want = 2 + (int64_t)(temu_prod_rng(&s) % 31);
        n[i] = 0;
        temu_alloc_take(a, want, held + (int64_t)i * m->nnodes, &n[i]);
    }
    for (int i = 0; i < 40; i += 2) {
        temu_alloc_release(a, held + (int64_t)i * m->nnodes, n[i]);
    }
    double sum = 0;
    for (int i = 0; i < 20; i++) {
        int64_t want = 2 + (int64_t)(temu_prod_rng(&s) % 31), got;
        int64_t *h = held + (int64_t)(2 * i) * m->nnodes;
        if (temu_alloc_take(a, want, h, &got)) {
            sum += job_distance(m, h, want);
            jobs++;
        }
    }
    ck_assert_int_ge(jobs, 15);
    free(held);
    temu_alloc_free(a);
    return sum / jobs;
}

START_TEST(topo_closer_than_nid)
{
    temu_machine m = test_machine("gemini:8x8x8");
    double nid = placed_distance(&m, TEMU_ALLOC_NID), topo = placed_distance(&m, TEMU_ALLOC_TOPO);
    /* a box of k Geminis spans about k^(1/3) per side; nid order runs
     * along Z rows and picks up the holes left behind */
    ck_assert_msg(topo < 0.75 * nid, "topo %g hops, nid %g", topo, nid);
}
END_TEST

START_TEST(allocator_refusals)
{
    temu_machine m = test_machine("bgq:2x2x2x2x2");
    temu_alloc *a;
    temu_error err;
    ck_assert_int_eq(temu_alloc_create(&m, TEMU_ALLOC_TOPO, &a, &err), TEMU_EINVAL);
    ck_assert_ptr_nonnull(strstr(err.message, "5 dimensions"));
    ck_assert_int_eq(temu_alloc_create(&m, 7, &a, &err), TEMU_EINVAL);
}
END_TEST

/* ------------------------------------------------------------ queue */

typedef struct trace {
    int64_t events, last_start_id;
    int64_t ids[4096];
    int64_t starts[4096];
    int fcfs_broken;
} trace;

static void on_job(void *ctx, const temu_prod_job *j, int started)
{
    trace *t = ctx;
    if (started && t->events < 4096) {
        t->ids[t->events] = j->id;
        t->starts[t->events++] = j->start_ps;
        ck_assert_int_ge(j->start_ps, j->submit_ps);
        ck_assert_int_ge(j->nheld, j->nodes);
    }
}

/* Run a queue on machine spec for `minutes` of events; the trace. */
static void run_queue(const char *spec, int kind, uint64_t seed, double minutes, trace *t,
                      double *mean_used)
{
    temu_machine m = test_machine(spec);
    temu_alloc *a = alloc_of(&m, kind);
    temu_prod_params p;
    temu_prod_params_default(&p, m.nnodes);
    p.seed = seed;
    p.max_job_nodes = m.nnodes / 4;
    temu_prod_queue *q;
    temu_error err;
    ck_assert_msg(temu_prod_queue_create(&p, a, &q, &err) == TEMU_OK, "%s", err.message);
    memset(t, 0, sizeof *t);
    double area = 0;
    int64_t now = 0, end = (int64_t)(minutes * 6e13);
    while (now <= end) {
        ck_assert_int_eq(temu_prod_queue_advance(q, now, on_job, t, &err), TEMU_OK);
        temu_prod_queue_stats st;
        temu_prod_queue_stats_get(q, &st);
        ck_assert_int_le(st.busy_nodes, m.nnodes);
        ck_assert_int_eq(st.busy_nodes, m.nnodes - temu_alloc_free_nodes(a));
        int64_t next = temu_prod_queue_next(q);
        ck_assert_int_gt(next, now);
        area += (double)st.used_nodes * (double)((next < end ? next : end) - now);
        now = next;
    }
    *mean_used = area / ((double)m.nnodes * (double)end);
    temu_prod_queue_free(q);
    temu_alloc_free(a);
}

START_TEST(queue_fills_the_machine)
{
    trace t;
    double used;
    run_queue("gemini:4x4x4", TEMU_ALLOC_NID, 1, 600, &t, &used);
    ck_assert_int_gt(t.events, 20);
    /* the backlog keeps the machine busy: on average over 80 % of its
     * nodes run ranks (a large job at the head drains some; backfill
     * fills the rest) */
    ck_assert_msg(used > 0.8, "mean use %g", used);
    /* the first jobs start at time 0 in submission order */
    ck_assert_int_eq(t.ids[0], 0);
    ck_assert_int_eq(t.starts[0], 0);
}
END_TEST

/* At time 0 the machine is caught in production: at least 95 % of its
 * nodes held, on Blue Waters' whole torus with both allocators (a backlog
 * of twice its nodes placed first-fit held 65 % with the topo allocator:
 * its largest jobs waited and the rest did not fill it). */
START_TEST(queue_starts_full)
{
    temu_machine m = test_machine("gemini:24x24x24");
    for (int kind = 0; kind < 2; kind++) {
        temu_alloc *a = alloc_of(&m, kind);
        temu_prod_params p;
        temu_prod_params_default(&p, m.nnodes);
        temu_prod_queue *q;
        temu_error err;
        trace t;
        memset(&t, 0, sizeof t);
        ck_assert_msg(temu_prod_queue_create(&p, a, &q, &err) == TEMU_OK, "%s", err.message);
        ck_assert_int_eq(temu_prod_queue_advance(q, 0, on_job, &t, &err), TEMU_OK);
        temu_prod_queue_stats st;
        temu_prod_queue_stats_get(q, &st);
        ck_assert_msg(st.busy_nodes * 20 >= m.nnodes * 19, "allocator %d: %lld of %lld nodes held",
                      kind, (long long)st.busy_nodes, (long long)m.nnodes);
        ck_assert_int_eq(st.busy_nodes, m.nnodes - temu_alloc_free_nodes(a));
        temu_prod_queue_free(q);
        temu_alloc_free(a);
    }
}
END_TEST

START_TEST(queue_is_the_seed)
{
    trace a, b, c;
    double used;
    run_queue("gemini:4x4x4", TEMU_ALLOC_TOPO, 9, 300, &a, &used);
    run_queue("gemini:4x4x4", TEMU_ALLOC_TOPO, 9, 300, &b, &used);
    ck_assert_int_eq(a.events, b.events);
    ck_assert_int_eq(memcmp(a.ids, b.ids, sizeof a.ids), 0);
    ck_assert_int_eq(memcmp(a.starts, b.starts, sizeof a.starts), 0);
    run_queue("gemini:4x4x4", TEMU_ALLOC_TOPO, 10, 300, &c, &used);
    ck_assert(a.events != c.events || memcmp(a.starts, c.starts, sizeof a.starts) != 0);
}
END_TEST

START_TEST(queue_backfills)
{
    /* with backfill some job starts before one submitted earlier, also
     * after time 0 */
    trace t;
    double used;
    run_queue("gemini:4x4x4", TEMU_ALLOC_NID, 1, 600, &t, &used);
    int overtaken = 0, later = 0;
    for (int64_t i = 1; i < t.events; i++) {
        /* after the first-fit placement of time 0 */
        later += t.starts[i] > 0;
        overtaken += t.starts[i] > 0 && t.ids[i] < t.ids[i - 1];
    }
    ck_assert_int_gt(later, 20);
    ck_assert_int_gt(overtaken, 0);
}
END_TEST

/* ------------------------------------------------------------ the run */

/* A bare flow model's stalls reach the store through the bridge every
 * level's counters take: each tile's credit stall is its lane's credit
 * stall time in whole 800 MHz cycles, its inq stall the incoming lane's
 * (what workload/production_run.c used to add by hand), after two flushes
 * as after one, and the store says the flow level wrote it. */
START_TEST(bare_flow_flush_is_the_bridge)
{
    temu_machine m = test_machine("gemini:4x4x4");
    temu_session *s;
    temu_tm_config tc;
    temu_fm *fm;
    temu_tm_flushed *fl;
    temu_error err;
    ck_assert_int_eq(temu_session_create_private(&m, &s, &err), TEMU_OK);
    ck_assert_int_eq(temu_tm_config_default(&m, &tc, &err), TEMU_OK);
    ck_assert_int_eq(temu_fm_create(&m, &tc, &fm, &err), TEMU_OK);
    ck_assert_int_eq(temu_tm_flushed_create(&m, &fl, &err), TEMU_OK);
    /* every other node sends to nodes 0-2: the links into them stall */
    for (int64_t n = 3; n < m.nnodes; n++) {
        ck_assert_int_eq(
            temu_fm_send(fm, 0, n, n % 3, 96, 20000, 0, (uint32_t)n, 0, (uint64_t)n, &err),
            TEMU_OK);
    }
    temu_fm_run(fm, 2000000);
    ck_assert_msg(temu_fm_stall_counters_flush(fm, fl, s, &err) == TEMU_OK, "%s", err.message);
    temu_fm_run(fm, INT64_MAX);
    ck_assert_msg(temu_fm_stall_counters_flush(fm, fl, s, &err) == TEMU_OK, "%s", err.message);
    ck_assert_int_eq(temu_tm_session_level(s), TEMU_TM_FLOW);
    uint64_t hz = temu_family_info_get(m.system)->router_hz, stalled = 0;
    for (int64_t r = 0; r < m.nrouters; r++) {
        for (int l = 0; l < 2 * m.ndims; l++) {
            int tiles[8];
            int64_t peer = temu_link_neighbor(&m, r, l);
            temu_gemini_link_tiles(l, tiles);
            for (int k = 0; k < temu_link_lanes(&m, l); k++) {
                temu_tm_lane_stats ls;
                ck_assert_int_eq(temu_fm_lane_stats_get(fm, r, l, k, &ls, &err), TEMU_OK);
                uint64_t c = temu_clock_cycles(hz, ls.credit_stall_ps);
                uint64_t q = temu_clock_cycles(hz, ls.inq_stall_ps);
                ck_assert_uint_eq(
                    temu_counter_read(
                        s, temu_idx_gemini_tile(&m, r, tiles[k], TEMU_TILE_CREDIT_STALL)),
                    c);
                ck_assert_uint_eq(
                    temu_counter_read(s, temu_idx_gemini_tile(&m, peer,
                                                              temu_gemini_peer_tile(tiles[k]),
                                                              TEMU_TILE_INQ_STALL)),
                    q);
                stalled += c + q > 0;
            }
        }
    }
    ck_assert_uint_gt(stalled, 0);
    temu_tm_flushed_free(fl);
    temu_fm_destroy(fm);
    temu_session_close(s);
}
END_TEST

/* A production period's store is the flow level's (temu_tm_session_level:
 * `torusemu stalls` and the events' descriptions say which level counted). */
START_TEST(run_is_the_flow_level)
{
    temu_machine m = test_machine("gemini:4x4x4");
    temu_session *s;
    temu_error err;
    char path[256];
    test_store_path(path, sizeof path, "prod-level");
    temu_prod_run_opts o = {.allocator = TEMU_ALLOC_TOPO,
                            .duration_ps = 120 * (int64_t)1000000000000,
                            .interval_ps = 60 * (int64_t)1000000000000,
                            .series = path};
    temu_prod_params_default(&o.params, m.nnodes);
    temu_prod_report rep;
    ck_assert_int_eq(temu_session_create_private(&m, &s, &err), TEMU_OK);
    ck_assert_msg(temu_prod_run(s, &o, &rep, &err) == TEMU_OK, "%s", err.message);
    ck_assert_uint_eq(rep.snapshots, 3);
    ck_assert_int_eq(temu_tm_session_level(s), TEMU_TM_FLOW);
    temu_session_close(s);
    remove(path);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("production");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, pairs_are_the_replay);
    tcase_add_test(tc, pairs_by_hand);
    tcase_add_test(tc, stream_is_a_put);
    tcase_add_test(tc, sizes_hold_their_moments);
    tcase_add_test(tc, runtimes_hold_their_moments);
    tcase_add_test(tc, patterns_and_phases);
    tcase_add_test(tc, jobs_are_the_seeds);
    tcase_add_test(tc, pattern_parameters_fit);
    tcase_add_test(tc, nid_order);
    tcase_add_test(tc, topo_boxes);
    tcase_add_test(tc, topo_waits_for_a_box);
    tcase_add_test(tc, topo_closer_than_nid);
    tcase_add_test(tc, allocator_refusals);
    tcase_add_test(tc, queue_fills_the_machine);
    tcase_add_test(tc, queue_starts_full);
    tcase_add_test(tc, queue_is_the_seed);
    tcase_add_test(tc, queue_backfills);
    tcase_add_test(tc, bare_flow_flush_is_the_bridge);
    tcase_add_test(tc, run_is_the_flow_level);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return test_run(suite());
}
