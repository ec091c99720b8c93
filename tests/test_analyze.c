/*
 * test_analyze.c - the pure parts of `torusemu analyze` (utils/analyze.c,
 * utils/features.c): d-link figures against hand-computed values of seed
 * 004's equations and doc/model.md's bandwidths, Pearson's coefficient,
 * the CCDF, and congestion regions with their evolution (wrap-around,
 * split, merge, gaps, mesh lines).
 */
#include "testutil.h"

#include "../utils/analyze.h"
#include "../utils/features.h"
#include "../utils/figure.h"

#include <math.h>

/* Two frames of machine m with every router sampled at t0 and t1. */
static void frames(const temu_machine *m, an_frame *a, an_frame *b, int64_t t0, int64_t t1)
{
    size_t n = (size_t)m->nrouters;
    a->t_ps = malloc(n * sizeof *a->t_ps);
    b->t_ps = malloc(n * sizeof *b->t_ps);
    a->links = calloc(n * AN_DIRS, sizeof *a->links);
    b->links = calloc(n * AN_DIRS, sizeof *b->links);
    a->nic = calloc((size_t)m->nnodes, sizeof *a->nic);
    b->nic = calloc((size_t)m->nnodes, sizeof *b->nic);
    a->node_seen = calloc((size_t)m->nnodes, 1);
    b->node_seen = calloc((size_t)m->nnodes, 1);
    ck_assert(a->t_ps && b->t_ps && a->links && b->links && a->nic && b->nic && a->node_seen &&
              b->node_seen);
    a->time_ps = t0;
    b->time_ps = t1;
    a->stall_unit_ps = b->stall_unit_ps = 1; /* stalls in ps */
    for (size_t r = 0; r < n; r++) {
        a->t_ps[r] = t0;
        b->t_ps[r] = t1;
    }
}

static void frames_free(an_frame *a, an_frame *b)
{
    free(a->t_ps);
    free(b->t_ps);
    free(a->links);
    free(b->links);
    free(a->nic);
    free(b->nic);
    free(a->node_seen);
    free(b->node_seen);
}

#define MINUTE_PS 60000000000000LL

START_TEST(test_dlink_metrics)
{
    temu_machine m = test_machine("gemini:4x2x2");
    an_frame a, b;
    an_metrics x;
    frames(&m, &a, &b, MINUTE_PS, 2 * MINUTE_PS);
    /* router 0, X+ (link 1): an X d-link is 8 cable tiles, 8 x 3.125 Gb/s
     * x 3 lanes / 8 = 9.375 GB/s.  A quarter of a minute's capacity:
     * 0.25 x 9.375e9 x 60 = 140625000000 bytes -> P_bu 25. */
    an_link *l0 = &a.links[0 * AN_DIRS + 1], *l1 = &b.links[0 * AN_DIRS + 1];
    l0->bytes = 1000;
    l1->bytes = 1000 + 140625000000ull;
    l0->packets = 5;
    l1->packets = 5 + 8000;
    /* 8 tiles x 60 s = 480 s of tile time; inq 240 s stalled -> 50 %,
     * credit 120 s -> 25 % (eqs. 1-2) */
    l1->inq = 240000000000000ull;
    l1->credit = 120000000000000ull;
    ck_assert_int_eq(an_dlink_metrics(&m, 0, 1, &a, &b, &x), 0);
    ck_assert_int_eq(x.tiles, 8);
    ck_assert(x.bandwidth == 9.375);
    ck_assert_uint_eq(x.bytes, 140625000000ull);
    ck_assert_uint_eq(x.packets, 8000);
    ck_assert_int_eq(x.dt_ps, MINUTE_PS);
    ck_assert(x.ppm == 8000.0);
    ck_assert(x.pbu == 25.0);
    ck_assert(x.pts_inq == 50.0);
    ck_assert(x.pts_credit == 25.0);
    ck_assert(an_metric(&x, AN_PPM) == 8000.0 && an_metric(&x, AN_PTS_CREDIT) == 25.0);
    /* Y d-links have 4 tiles: router 0 (y=0) Y+ is inside a blade
     * (mezzanine, 4 x 2.34375 = 9.375 GB/s); router 2 (y=1) Y+ wraps to y=0
     * over a cable (4 x 1.171875 = 4.6875 GB/s) */
    ck_assert_int_eq(an_dlink_metrics(&m, 0, 3, &a, &b, &x), 0);
    ck_assert_int_eq(x.tiles, 4);
    ck_assert(x.bandwidth == 9.375);
    ck_assert_int_eq(an_dlink_metrics(&m, 2, 3, &a, &b, &x), 0);
    ck_assert(x.bandwidth == 4.6875);
    /* half a minute: rates double */
    a.links[5 * AN_DIRS + 0].packets = 10;
    b.links[5 * AN_DIRS + 0].packets = 70;
    b.t_ps[5] = MINUTE_PS + MINUTE_PS / 2;
    ck_assert_int_eq(an_dlink_metrics(&m, 5, 0, &a, &b, &x), 0);
    ck_assert(x.ppm == 120.0);
    /* a router without a sample, or no time between samples */
    a.t_ps[6] = -1;
    ck_assert_int_eq(an_dlink_metrics(&m, 6, 0, &a, &b, &x), -1);
    b.t_ps[7] = a.t_ps[7];
    ck_assert_int_eq(an_dlink_metrics(&m, 7, 0, &a, &b, &x), -1);
    frames_free(&a, &b);

    /* Z: backplane inside a cage of 8 slots (8 x 1.875 = 15 GB/s), a cable
     * where the cage ends (z=7 -> 8: 9.375 GB/s) */
    m = test_machine("gemini:2x2x16");
    frames(&m, &a, &b, 0, MINUTE_PS);
    int32_t c[3] = {0, 0, 0};
    ck_assert_int_eq(an_dlink_metrics(&m, temu_router_index(&m, c), 5, &a, &b, &x), 0);
    ck_assert(x.bandwidth == 15.0);
    c[2] = 7;
    ck_assert_int_eq(an_dlink_metrics(&m, temu_router_index(&m, c), 5, &a, &b, &x), 0);
    ck_assert(x.bandwidth == 9.375);
    frames_free(&a, &b);
}
END_TEST

START_TEST(test_dlink_check)
{
    /* router 0's X+ over one minute: 8 tiles of 9.375 GB/s in all carry
     * 562.5e9 bytes, plus a phit (3 bytes) per tile under way = 562500000024;
     * the tiles stall at most 8 x (60 s + one 1250 ps cycle) */
    temu_machine m = test_machine("gemini:4x2x2");
    an_frame a, b;
    an_metrics x;
    unsigned reset, over;
    frames(&m, &a, &b, MINUTE_PS, 2 * MINUTE_PS);
    an_link *l0 = &a.links[0 * AN_DIRS + 1], *l1 = &b.links[0 * AN_DIRS + 1];
    *l0 = (an_link){.bytes = 100, .packets = 5, .inq = 7, .credit = 9};
    *l1 = (an_link){.bytes = 100 + 562500000024ull,
                    .packets = 5,
                    .inq = 7 + 480000000010000ull,
                    .credit = 9 + 480000000010000ull};
    ck_assert_int_eq(an_dlink_check(&m, 0, 1, &a, &b, &x, &reset, &over), 0);
    ck_assert_uint_eq(reset, 0);
    ck_assert_uint_eq(over, 0); /* at the bounds: kept */
    ck_assert_uint_eq(x.bytes, 562500000024ull);
    l1->bytes++;
    l1->credit++;
    ck_assert_int_eq(an_dlink_check(&m, 0, 1, &a, &b, &x, &reset, &over), 0);
    ck_assert_uint_eq(reset, 0);
    ck_assert_uint_eq(over, AN_BIT(AN_TRAFFIC) | AN_BIT(AN_CREDIT));
    l1->inq++;
    ck_assert_int_eq(an_dlink_check(&m, 0, 1, &a, &b, &x, &reset, &over), 0);
    ck_assert_uint_eq(over, AN_BIT(AN_TRAFFIC) | AN_BIT(AN_INQ) | AN_BIT(AN_CREDIT));
    /* a counter that went down restarted (a reboot): a reset, never a
     * difference modulo 2^64 nor a leap */
    l1->packets = 4;
    l1->bytes = 99;
    ck_assert_int_eq(an_dlink_check(&m, 0, 1, &a, &b, &x, &reset, &over), 0);
    ck_assert_uint_eq(reset, AN_BIT(AN_PACKETS) | AN_BIT(AN_TRAFFIC));
    ck_assert_uint_eq(over, AN_BIT(AN_INQ) | AN_BIT(AN_CREDIT));
    /* what is dropped gives no figure: NAN, its count 0 */
    l1->reset = reset;
    l1->over = over;
    ck_assert_int_eq(an_dlink_metrics(&m, 0, 1, &a, &b, &x), 0);
    ck_assert(isnan(x.pbu) && isnan(x.ppm) && isnan(x.pts_inq) && isnan(x.pts_credit));
    ck_assert_uint_eq(x.bytes, 0);
    ck_assert_uint_eq(x.packets, 0);
    ck_assert_uint_eq(x.reset, reset);
    ck_assert_uint_eq(x.over, over);
    /* only the credit stall dropped: the rest stand */
    *l1 = (an_link){.bytes = 100 + 5625000000ull, .packets = 6, .inq = 7, .credit = 0};
    l1->reset = AN_BIT(AN_CREDIT);
    ck_assert_int_eq(an_dlink_metrics(&m, 0, 1, &a, &b, &x), 0);
    ck_assert(x.pbu == 1.0 && x.ppm == 1.0 && x.pts_inq == 0.0 && isnan(x.pts_credit));
    /* into the statistics: the figures that stand, and the counts */
    an_stats st;
    memset(&st, 0, sizeof st);
    ck_assert_int_eq(an_stats_add(&st, 1, &x), 0);
    ck_assert_uint_eq(st.samples[0], 1);
    ck_assert_uint_eq(st.resets[0], 1);
    ck_assert_uint_eq(st.over[0], 0);
    ck_assert_uint_eq(an_values_total(&st.values[0][AN_PBU]), 1);
    ck_assert_uint_eq(an_values_total(&st.values[0][AN_PTS_CREDIT]), 0);
    ck_assert(st.inq[0].n == 1 && st.credit[0].n == 0); /* a correlation point needs both */
    x.over = AN_BIT(AN_TRAFFIC) | AN_BIT(AN_INQ);
    x.reset = 0;
    x.pbu = x.pts_inq = NAN;
    ck_assert_int_eq(an_stats_add(&st, 0, &x), 0);
    ck_assert_uint_eq(st.over[0], 2);
    ck_assert_uint_eq(an_values_total(&st.values[0][AN_PBU]), 1);
    ck_assert_uint_eq(an_values_total(&st.values[0][AN_PPM]), 2);
    an_stats_free(&st);
    /* no interval: -1 */
    b.t_ps[0] = a.t_ps[0];
    ck_assert_int_eq(an_dlink_check(&m, 0, 1, &a, &b, &x, &reset, &over), -1);
    frames_free(&a, &b);
}
END_TEST

START_TEST(test_nodes)
{
    /* seed 004 Fig. 3: all nodes' traffic per interval; only nodes sampled
     * at both ends count; half a minute doubles the per-minute rates */
    temu_machine m = test_machine("gemini:2x2x2");
    an_frame a, b;
    an_nodes x;
    an_stats st;
    memset(&st, 0, sizeof st);
    frames(&m, &a, &b, MINUTE_PS, MINUTE_PS + MINUTE_PS / 2);
    a.node_seen[3] = b.node_seen[3] = 1;
    a.nic[3] = (an_nic){100, 1, 0};
    b.nic[3] = (an_nic){1100, 11, 0};
    a.node_seen[4] = 1; /* no second sample: left out */
    a.nic[4] = (an_nic){0, 0, 0};
    b.nic[4] = (an_nic){5000, 5000, 0};
    b.node_seen[5] = 1; /* no first sample */
    b.nic[5] = (an_nic){7000, 7000, 0};
    a.node_seen[6] = b.node_seen[6] = 1; /* its ingestion counter restarted */
    a.nic[6] = (an_nic){100, UINT64_MAX, 0};
    b.nic[6] = (an_nic){200, 9, AN_NIC_IN};
    ck_assert_int_eq(an_nodes_interval(&m, &a, &b, &x), 0);
    ck_assert_int_eq(x.nodes, 2);
    ck_assert_uint_eq(x.out, 1100);
    ck_assert_uint_eq(x.in, 10);
    ck_assert(x.out_bpm == 2200.0 && x.in_bpm == 20.0);
    ck_assert_int_eq(an_stats_add_nodes(&st, &x), 0);
    ck_assert(an_values_max(&st.nodes[AN_INJECTION]) == 2200.0);
    ck_assert(an_values_max(&st.nodes[AN_INGESTION]) == 20.0);
    an_stats_free(&st);
    b.time_ps = a.time_ps;
    ck_assert_int_eq(an_nodes_interval(&m, &a, &b, &x), -1);
    frames_free(&a, &b);
}
END_TEST

START_TEST(test_correlation)
{
    an_corr c = {0};
    ck_assert(isnan(an_corr_value(&c)));
    an_corr_add(&c, 1, 1);
    ck_assert(isnan(an_corr_value(&c))); /* one point */
    an_corr_add(&c, 2, 3);
    an_corr_add(&c, 3, 2);
    /* x = 1 2 3, y = 1 3 2: cov 1/2 / (var 2/3 ... ) = 0.5 exactly */
    ck_assert(fabs(an_corr_value(&c) - 0.5) < 1e-12);
    an_corr p = {0}, q = {0}, k = {0};
    for (int i = 0; i < 5; i++) {
        an_corr_add(&p, i, 3.0 * i + 1);
        an_corr_add(&q, i, -2.0 * i);
        an_corr_add(&k, i, 7); /* constant: undefined */
    }
    ck_assert(fabs(an_corr_value(&p) - 1.0) < 1e-12);
    ck_assert(fabs(an_corr_value(&q) + 1.0) < 1e-12);
    ck_assert(isnan(an_corr_value(&k)));
}
END_TEST

typedef struct pts {
    double v[16];
    size_t count[16], total;
    int n;
} pts;

static void collect(void *ctx, double value, size_t count, size_t total)
{
    pts *p = ctx;
    ck_assert_int_lt(p->n, 16);
    p->v[p->n] = value;
    p->count[p->n++] = count;
    p->total = total;
}

START_TEST(test_ccdf)
{
    an_values v = {0};
    const double in[] = {3, 1, 2, 2, 0};
    for (int i = 0; i < 5; i++) {
        ck_assert_int_eq(an_values_add(&v, in[i]), 0);
    }
    pts p = {0};
    an_ccdf(&v, collect, &p);
    /* P(V >= x): 0 -> 5/5, 1 -> 4/5, 2 -> 3/5, 3 -> 1/5 */
    ck_assert_int_eq(p.n, 4);
    const double want_v[] = {0, 1, 2, 3};
    const size_t want_c[] = {5, 4, 3, 1};
    for (int i = 0; i < 4; i++) {
        ck_assert(p.v[i] == want_v[i]);
        ck_assert_uint_eq(p.count[i], want_c[i]);
    }
    ck_assert_uint_eq(p.total, 5);
    /* zeros are counted, not stored */
    ck_assert_uint_eq(v.zeros, 1);
    ck_assert_uint_eq(v.n, 4);
    ck_assert_uint_eq(an_values_total(&v), 5);
    ck_assert(an_values_mean(&v) == 8.0 / 5);
    ck_assert(an_values_max(&v) == 3);
    ck_assert(an_values_over(&v, 1) == 3.0 / 5); /* 2, 2, 3 */
    an_values_free(&v);
    /* a value below zero is below the zeros: -1 -> 4/4, 0 -> 3/4, 2 -> 1/4 */
    const double in2[] = {0, 2, -1, 0};
    for (int i = 0; i < 4; i++) {
        ck_assert_int_eq(an_values_add(&v, in2[i]), 0);
    }
    memset(&p, 0, sizeof p);
    an_ccdf(&v, collect, &p);
    ck_assert_int_eq(p.n, 3);
    ck_assert(p.v[0] == -1 && p.v[1] == 0 && p.v[2] == 2);
    ck_assert_uint_eq(p.count[0], 4);
    ck_assert_uint_eq(p.count[1], 3);
    ck_assert_uint_eq(p.count[2], 1);
    ck_assert(an_values_over(&v, -5) == 1.0);
    an_values_free(&v);
    /* only zeros: one point; nothing: no point, no mean or maximum */
    ck_assert_int_eq(an_values_add(&v, 0), 0);
    memset(&p, 0, sizeof p);
    an_ccdf(&v, collect, &p);
    ck_assert_int_eq(p.n, 1);
    ck_assert(p.v[0] == 0 && p.count[0] == 1 && p.total == 1);
    ck_assert(an_values_max(&v) == 0);
    an_values_free(&v);
    ck_assert(isnan(an_values_mean(&v)) && isnan(an_values_max(&v)) &&
              isnan(an_values_over(&v, 0)));
    memset(&p, 0, sizeof p);
    an_ccdf(&v, collect, &p); /* no array at all (UBSan: no qsort of NULL) */
    ck_assert_int_eq(p.n, 0);
    /* stats: one sample per dimension goes to every metric's values */
    an_stats s;
    memset(&s, 0, sizeof s);
    an_metrics x = {.ppm = 1, .pbu = 2, .pts_inq = 3, .pts_credit = 4};
    ck_assert_int_eq(an_stats_add(&s, 5, &x), 0); /* Z+ */
    ck_assert_uint_eq(s.samples[2], 1);
    ck_assert_uint_eq(an_values_total(&s.values[2][AN_PBU]), 1);
    ck_assert(s.values[2][AN_PTS_CREDIT].v[0] == 4);
    ck_assert_uint_eq(s.samples[0] + s.samples[1], 0);
    an_stats_free(&s);
}
END_TEST

/* value[] for line y of an X-line machine: hot x positions get v. */
static void hot(const temu_machine *m, double *value, int y, const int *xs, int n, double v)
{
    for (int i = 0; i < n; i++) {
        int32_t c[TEMU_MAX_DIMS] = {xs[i], y, 0, 0, 0};
        value[temu_router_index(m, c)] = v;
    }
}

static void clear(const temu_machine *m, double *value)
{
    for (int64_t r = 0; r < m->nrouters; r++) {
        value[r] = r % 3 == 0 ? NAN : 1.0; /* no sample, or far below */
    }
}

static int64_t router_x(const temu_machine *m, int x, int y)
{
    int32_t c[TEMU_MAX_DIMS] = {x, y, 0, 0, 0};
    return temu_router_index(m, c);
}

/* The feature graph as DOT text (free it); its length in *len. */
static char *dot_text(const an_features *fs, const char *title, size_t *len)
{
    char *text = NULL;
    FILE *f = open_memstream(&text, len);
    ck_assert_ptr_nonnull(f);
    an_features_dot(fs, f, title, "pbu");
    fclose(f);
    return text;
}

START_TEST(test_features_torus)
{
    temu_machine m = test_machine("gemini:8x2x1");
    an_features fs;
    double value[16];
    ck_assert_int_eq(an_features_init(&fs, &m, 1, 40.0), 0); /* X+ */
    /* interval 0, line y=0: x = 7, 0, 1 hot (one run round the ring) and
     * x = 4 alone; line y=1: x = 2 at exactly the threshold */
    clear(&m, value);
    hot(&m, value, 0, (int[]){7, 0, 1}, 3, 50);
    value[router_x(&m, 0, 0)] = 90;
    hot(&m, value, 0, (int[]){4}, 1, 45);
    hot(&m, value, 1, (int[]){2}, 1, 40);
    ck_assert_int_eq(an_features_step(&fs, 0, 100, value), 0);
    ck_assert_uint_eq(fs.n, 3);
    /* lines are visited from their router at x = 0, runs in x order from
     * just after a cool router: y=0 gives {4} then {7,0,1} */
    ck_assert_int_eq(fs.f[0].first, router_x(&m, 4, 0));
    ck_assert_int_eq(fs.f[0].extent, 1);
    ck_assert(fs.f[0].max == 45);
    ck_assert_int_eq(fs.f[1].first, router_x(&m, 7, 0));
    ck_assert_int_eq(fs.f[1].extent, 3);
    ck_assert(fs.f[1].max == 90);
    ck_assert_int_eq(fs.f[1].max_router, router_x(&m, 0, 0));
    ck_assert_int_eq(fs.f[1].ring, 0);
    ck_assert_int_eq(fs.f[2].first, router_x(&m, 2, 1));
    ck_assert_int_eq(fs.f[2].t_ps, 100);
    ck_assert_uint_eq(fs.ne, 0);
    /* interval 1: {3,4,5} (scanned first, from after cool x=1) continues
     * f0 through x=4; {0} continues f1; y=1 is cool: f2 ends */
    clear(&m, value);
    hot(&m, value, 0, (int[]){0}, 1, 60);
    hot(&m, value, 0, (int[]){3, 4, 5}, 3, 70);
    ck_assert_int_eq(an_features_step(&fs, 1, 200, value), 0);
    ck_assert_uint_eq(fs.n, 5);
    ck_assert_int_eq(fs.f[3].first, router_x(&m, 3, 0));
    ck_assert_int_eq(fs.f[3].extent, 3);
    ck_assert_int_eq(fs.f[4].first, router_x(&m, 0, 0));
    ck_assert_uint_eq(fs.ne, 2);
    ck_assert_int_eq(fs.e[0].from, 0);
    ck_assert_int_eq(fs.e[0].to, 3);
    ck_assert_int_eq(fs.e[1].from, 1);
    ck_assert_int_eq(fs.e[1].to, 4);
    /* interval 2: the whole ring is hot - both merge into one feature */
    clear(&m, value);
    hot(&m, value, 0, (int[]){0, 1, 2, 3, 4, 5, 6, 7}, 8, 55);
    ck_assert_int_eq(an_features_step(&fs, 2, 300, value), 0);
    ck_assert_uint_eq(fs.n, 6);
    ck_assert_int_eq(fs.f[5].extent, 8);
    ck_assert_int_eq(fs.f[5].ring, 1);
    ck_assert_uint_eq(fs.ne, 4);
    ck_assert_int_eq(fs.e[2].from, 4);
    ck_assert_int_eq(fs.e[3].from, 3);
    ck_assert_int_eq(fs.e[3].to, 5);
    /* interval 4 (3 skipped): no evolution across the gap */
    ck_assert_int_eq(an_features_step(&fs, 4, 500, value), 0);
    ck_assert_uint_eq(fs.n, 7);
    ck_assert_uint_eq(fs.ne, 4);
    /* interval 5, the same ring: one edge, even though it shares 8 routers */
    ck_assert_int_eq(an_features_step(&fs, 5, 600, value), 0);
    ck_assert_uint_eq(fs.ne, 5);
    ck_assert_int_eq(fs.e[4].from, 6);
    ck_assert_int_eq(fs.e[4].to, 7);

    /* the DOT text: a vertex per feature, the edges, a row per interval */
    size_t len;
    char *text = dot_text(&fs, "title \"quoted\"", &len);
    ck_assert_ptr_nonnull(strstr(text, "digraph congestion {"));
    ck_assert_ptr_nonnull(strstr(text, "label=\"title \\\"quoted\\\"\\na vertex per feature"));
    ck_assert_ptr_nonnull(strstr(text, "size=\"20,75\""));
    ck_assert_ptr_nonnull(strstr(text, "f0 -> f3;"));
    ck_assert_ptr_nonnull(strstr(text, "f3 -> f5;"));
    ck_assert_ptr_nonnull(strstr(text, "{ rank=same; r2; f5; }"));
    /* rows: intervals 0, 1, 2, the skipped 3 as a row without features,
     * 4, 5; times 100 ... 600 ps, steps of 100 ps */
    ck_assert_ptr_nonnull(strstr(text, "r3 [shape=plaintext, style=\"\", fixedsize=false, "
                                       "fontsize=11, fontcolor=gray45, label=\"3: no feature\"];"));
    ck_assert_ptr_nonnull(strstr(text, "label=\"0: 100 ps\"];"));
    ck_assert_ptr_nonnull(strstr(text, "label=\"5: 600 ps\"];"));
    ck_assert_ptr_nonnull(strstr(text, "{ rank=same; r5; f7; }"));
    ck_assert_ptr_null(strstr(text, "r6"));
    /* severity colours: yellow (hue 1/6) at the threshold, red at 100;
     * width 0.5 inch plus 0.3 for the whole ring */
    ck_assert_ptr_nonnull(strstr(text, "f2 [label=\"2\\n1\\n40\", width=0.54, fillcolor=\"0.167"));
    ck_assert_ptr_nonnull(strstr(text, "f5 [label=\"5\\n8\\n55\", width=0.80, fillcolor=\"0.125"));
    ck_assert_int_eq(text[len - 2], '}');
    free(text);
    an_features_free(&fs);
}
END_TEST

START_TEST(test_features_mesh_and_empty)
{
    /* a mesh dimension: hot ends are two features, never joined round */
    temu_machine m = test_machine("bgp:8x2x1,torus=011");
    an_features fs;
    double value[16];
    ck_assert_int_eq(an_features_init(&fs, &m, 0, 10.0), 0);
    clear(&m, value);
    hot(&m, value, 1, (int[]){7, 0}, 2, 20);
    ck_assert_int_eq(an_features_step(&fs, 0, 0, value), 0);
    ck_assert_uint_eq(fs.n, 2);
    ck_assert_int_eq(fs.f[0].first, router_x(&m, 0, 1));
    ck_assert_int_eq(fs.f[0].extent, 1);
    ck_assert_int_eq(fs.f[1].first, router_x(&m, 7, 1));
    an_features_free(&fs);
    /* nothing hot: a graph that says why - the highest value seen (router
     * 5 at 7.5, interval 1 at 2 us) against the threshold */
    ck_assert_int_eq(an_features_init(&fs, &m, 0, 10.0), 0);
    clear(&m, value);
    ck_assert_int_eq(an_features_step(&fs, 0, 0, value), 0);
    value[5] = 7.5;
    ck_assert_int_eq(an_features_step(&fs, 1, 2000000, value), 0);
    ck_assert_uint_eq(fs.n, 0);
    size_t len;
    char *text = dot_text(&fs, "t", &len);
    char name[64], want[400];
    temu_router_name(&m, 5, name, sizeof name);
    snprintf(want, sizeof want,
             "label=\"No congestion feature: in 2 intervals no X- d-link reached pbu >= 10.\\n"
             "The highest was 7.5 (%s, interval 1 at 2.00 us).\\n",
             name);
    ck_assert_ptr_nonnull(strstr(text, want));
    ck_assert_int_eq(text[len - 2], '}');
    free(text);
    an_features_free(&fs);
    /* no figure at all (every router unsampled) */
    ck_assert_int_eq(an_features_init(&fs, &m, 0, 10.0), 0);
    for (int r = 0; r < 16; r++) {
        value[r] = NAN;
    }
    ck_assert_int_eq(an_features_step(&fs, 0, 0, value), 0);
    text = dot_text(&fs, "t", &len);
    ck_assert_ptr_nonnull(strstr(text, "in 1 interval no X- d-link had a pbu figure"));
    free(text);
    an_features_free(&fs);
}
END_TEST

START_TEST(test_features_aggregated)
{
    /* gemini:4x8x8 watched in X: 64 lines; every line's router x = 1 hot
     * in intervals 0 and 1 - 64 features a row, more than AN_GRAPH_COLS
     * side by side: cells of ceil(64 / 18) = 4 lines, 16 columns, each
     * holding 4 features; the evolution is an edge from each cell of row 0
     * to the one below */
    temu_machine m = test_machine("gemini:4x8x8");
    an_features fs;
    double value[256];
    ck_assert_int_eq(an_features_init(&fs, &m, 1, 40.0), 0);
    ck_assert_int_eq(fs.nlines, 64);
    for (int k = 0; k < 2; k++) {
        for (int r = 0; r < 256; r++) {
            int32_t c[TEMU_MAX_DIMS];
            temu_router_coords(&m, r, c);
            value[r] = c[0] == 1 ? 60.0 + r % 4 : 0.0;
        }
        ck_assert_int_eq(an_features_step(&fs, k, 1000000LL * (k + 1), value), 0);
    }
    ck_assert_uint_eq(fs.n, 128);
    ck_assert_int_eq(fs.f[5].line, 5);
    size_t len;
    char *text = dot_text(&fs, "t", &len);
    ck_assert_ptr_nonnull(strstr(text, "128 features, too many to draw one by one: a cell per 4 "
                                       "lines and 1 interval"));
    ck_assert_ptr_null(strstr(text, " f0 ")); /* no vertex per feature */
    /* the first cell: lines 0-3 (y,z = 0,0 ... 0,3), 4 features, max 63;
     * 4 routers of 4 x 4 router-intervals: width 0.5 + 0.3 / 4 */
    ck_assert_ptr_nonnull(strstr(text, "h0 [shape=plaintext, style=\"\", fixedsize=false, "
                                       "fontsize=9, label=\"0,0\\n0,3\"];"));
    ck_assert_ptr_nonnull(strstr(text, "c0_0 [label=\"4\\n63\", width=0.57,"));
    ck_assert_ptr_nonnull(strstr(text, "h15 [")); /* 16 columns */
    ck_assert_ptr_null(strstr(text, "h16 ["));
    ck_assert_ptr_nonnull(strstr(text, "c0_15 -> c1_15 [weight=100];"));
    ck_assert_ptr_nonnull(strstr(text, "label=\"0: 1.00 us\"];"));
    ck_assert_ptr_nonnull(strstr(text, "label=\"1: 2.00 us\"];"));
    free(text);
    an_features_free(&fs);
}
END_TEST

START_TEST(test_features_binned)
{
    /* 150 intervals of 1 ms, router x = 0 of line 0 hot in each: more rows
     * than AN_GRAPH_ROWS (60), so intervals go in bins of ceil(150 / 60)
     * = 3, 50 rows; interval 70 is cool, yet its bin (69-71) has
     * features; 90-95 are cool: bins 90-92 and 93-95 make one row */
    temu_machine m = test_machine("gemini:8x2x1");
    an_features fs;
    double value[16];
    ck_assert_int_eq(an_features_init(&fs, &m, 1, 40.0), 0);
    for (int k = 0; k < 150; k++) {
        clear(&m, value);
        if (k != 70 && (k < 90 || k > 95)) {
            hot(&m, value, 0, (int[]){0}, 1, 50);
        }
        ck_assert_int_eq(an_features_step(&fs, k, 1000000000LL * k, value), 0);
    }
    size_t len;
    char *text = dot_text(&fs, "t", &len);
    ck_assert_ptr_nonnull(strstr(text, "a cell per 1 line and 3 intervals"));
    ck_assert_ptr_nonnull(strstr(text, "label=\"0-2: 0 ms - 2 ms\"];"));
    ck_assert_ptr_nonnull(strstr(text, "label=\"69-71: 69 ms - 71 ms\"];"));
    ck_assert_ptr_nonnull(strstr(text, "label=\"90-95: no feature\"];"));
    ck_assert_ptr_nonnull(strstr(text, "label=\"147-149: 147 ms - 149 ms\"];"));
    ck_assert_ptr_nonnull(strstr(text, "r48 [")); /* 50 bins, 2 merged */
    ck_assert_ptr_null(strstr(text, "r49 ["));
    /* line 0's cell of bin 0 holds 3 features, continued in the next bin;
     * the cell before the cool bins ends there */
    ck_assert_ptr_nonnull(strstr(text, "c0_0 [label=\"3\\n50\""));
    ck_assert_ptr_nonnull(strstr(text, "c0_0 -> c1_0 [weight=100];"));
    ck_assert_ptr_nonnull(strstr(text, "c29_0 -> c30_0 [weight=100, style=invis];"));
    free(text);
    an_features_free(&fs);
}
END_TEST

START_TEST(test_figure_scale)
{
    /* tick labels stay at most 5 digits; above, a power of 1000 */
    ck_assert_int_eq(fig_scale_of(99999).exp, 0);
    ck_assert_int_eq(fig_scale_of(100).exp, 0);
    ck_assert_int_eq(fig_scale_of(1e5).exp, 3);
    ck_assert_int_eq(fig_scale_of(999999).exp, 3);
    ck_assert_int_eq(fig_scale_of(1e6).exp, 6);
    ck_assert_int_eq(fig_scale_of(1e10).exp, 9); /* 10 (x10^9) */
    ck_assert_int_eq(fig_scale_of(2.05e10).exp, 9);
    ck_assert_int_eq(fig_scale_of(1e12).exp, 12);
    ck_assert_int_eq(fig_scale_of(18446744073709551615.0).exp, 18);
    ck_assert_int_eq(fig_scale_of(NAN).exp, 0);
    ck_assert(fig_scale_of(1e10).divisor == 1e9);
    char buf[64];
    fig_scale s = fig_scale_of(1e10);
    fig_scale_suffix(&s, buf, sizeof buf);
    ck_assert_str_eq(buf, " (x10^{9})");
    s = fig_scale_of(5);
    fig_scale_suffix(&s, buf, sizeof buf);
    ck_assert_str_eq(buf, "");
    fig_enhanced("P_bu {x} it's", buf, sizeof buf);
    ck_assert_str_eq(buf, "P\\_bu \\{x\\} it''s");
    fig_enhanced("a_b_c", buf, 5); /* cut, never an escape without its character */
    ck_assert_str_eq(buf, "a\\_");
}
END_TEST

START_TEST(test_figure_time)
{
    char buf[64];
    /* a timed replay: 5 us snapshots, the last at 27.5 us */
    fig_time u = fig_time_of(27527249, 5000000);
    ck_assert_str_eq(u.unit, "us");
    fig_time_text(&u, 27527249, buf, sizeof buf);
    ck_assert_str_eq(buf, "27.5 us");
    fig_time_text(&u, 5000000, buf, sizeof buf);
    ck_assert_str_eq(buf, "5.0 us");
    /* LDMS minutes: 1 s and 61 s after the start */
    u = fig_time_of(61000000000000LL, 60000000000000LL);
    ck_assert_str_eq(u.unit, "min");
    fig_time_text(&u, 61000000000000LL, buf, sizeof buf);
    ck_assert_str_eq(buf, "1.02 min");
    /* a day of minutes: no decimals */
    u = fig_time_of(1439 * 60000000000000LL, 60000000000000LL);
    fig_time_text(&u, 1439 * 60000000000000LL, buf, sizeof buf);
    ck_assert_str_eq(buf, "1439 min");
    /* a step finer than 3 digits show: 1.5 ms apart near 2 s */
    u = fig_time_of(2000000000000LL, 1500000000LL);
    ck_assert_str_eq(u.unit, "s");
    ck_assert_int_eq(u.decimals, 3);
    fig_time_text(&u, 1997000000000LL, buf, sizeof buf);
    ck_assert_str_eq(buf, "1.997 s");
    u = fig_time_of(999, 0);
    ck_assert_str_eq(u.unit, "ps");
    u = fig_time_of(1000, 0);
    ck_assert_str_eq(u.unit, "ns");
    u = fig_time_of(0, 0);
    fig_time_text(&u, 0, buf, sizeof buf);
    ck_assert_str_eq(buf, "0 ps");
}
END_TEST

int main(void)
{
    Suite *s = suite_create("analyze");
    TCase *tc = tcase_create("analyze");
    tcase_add_test(tc, test_dlink_metrics);
    tcase_add_test(tc, test_dlink_check);
    tcase_add_test(tc, test_nodes);
    tcase_add_test(tc, test_correlation);
    tcase_add_test(tc, test_ccdf);
    tcase_add_test(tc, test_features_torus);
    tcase_add_test(tc, test_features_mesh_and_empty);
    tcase_add_test(tc, test_features_aggregated);
    tcase_add_test(tc, test_features_binned);
    tcase_add_test(tc, test_figure_scale);
    tcase_add_test(tc, test_figure_time);
    suite_add_tcase(s, tc);
    return test_run(s);
}
