/*
 * test_pattern.c - built-in replay patterns (emu/pattern.c) against counts
 * worked out by hand: messages, bytes and 32-byte chunks on Blue Gene/Q
 * torus links.  An eager BG/Q message of b <= 512 bytes is one packet of
 * 1 + b/32 chunks (doc/model.md) on every hop; hop counts below come from
 * node coordinates (nodes numbered with E fastest).
 */
#include "gpcnet.h"
#include "testutil.h"
#include "torusemu_replay.h"
#include "workload.h"

/* Replay p on a fresh store; returns the store, checks the stream matched. */
static temu_session *run(const char *spec, int32_t nranks, int32_t rpn, const char *how,
                         const temu_pattern *p)
{
    temu_session *s = test_mapped_store(spec, nranks, rpn, how);
    temu_replay *r;
    temu_error err;
    ck_assert_int_eq(temu_replay_create(s, &r, &err), TEMU_OK);
    temu_status st = temu_pattern_replay(r, p, NULL, NULL, &err);
    ck_assert_msg(st == TEMU_OK, "%s", err.message);
    ck_assert_msg(temu_replay_finish(r, &err) == TEMU_OK, "%s", err.message);
    temu_replay_free(r);
    return s;
}

/* A pattern that must be refused with a message containing `what`. */
static void refused(const char *spec, int32_t nranks, const temu_pattern *p, const char *what)
{
    temu_session *s = test_mapped_store(spec, nranks, 1, NULL);
    temu_replay *r;
    temu_error err;
    ck_assert_int_eq(temu_replay_create(s, &r, &err), TEMU_OK);
    ck_assert_int_eq(temu_pattern_replay(r, p, NULL, NULL, &err), TEMU_EINVAL);
    ck_assert_msg(strstr(err.message, what) != NULL, "'%s' lacks '%s'", err.message, what);
    temu_replay_free(r);
    temu_session_close(s);
}

/* 32-byte chunks sent on every torus link of every node, all VCs. */
static uint64_t torus_chunks(const temu_session *s)
{
    const temu_machine *m = temu_session_machine(s);
    uint64_t sum = 0;
    for (int64_t node = 0; node < m->nnodes; node++) {
        for (int l = 0; l < 2 * m->ndims; l++) {
            for (int vc = 0; vc < TEMU_BGQ_VCS; vc++) {
                sum +=
                    temu_counter_read(s, temu_idx_bgq_nw(m, node, l, TEMU_BGQ_NW_SENT_CHUNKS, vc));
            }
        }
    }
    return sum;
}

static void totals(temu_session *s, uint64_t messages, uint64_t bytes, uint64_t chunks)
{
    ck_assert_uint_eq(temu_session_messages(s), messages);
    ck_assert_uint_eq(temu_session_bytes(s), bytes);
    if (chunks != UINT64_MAX) {
        ck_assert_uint_eq(torus_chunks(s), chunks);
    }
    temu_session_close(s);
}

/*
 * FFT, grid 4x8 (8 rows of 4 ranks 8 apart), 16^3 points: 16 * 4096 / 32 =
 * 2048 bytes per rank, 512 to each of 3 row partners.  4 ranks per node
 * on bgq:2x2x2x1x1: default order puts rank r on node r/4, so row i sits on
 * nodes {0,2,4,6} or {1,3,5,7}, whose ordered pairs are 16 hops apart in
 * all; 8 rows x 16 hops x 17 chunks = 2176.  TABCDE puts rank r on node
 * r mod 8 (seed 003 Table 5(b)): every row on one node, nothing on links.
 * Second all-to-all: columns of 8 ranks, 256 bytes per pair, 32 x 7 messages.
 */
START_TEST(fft_rows)
{
    temu_pattern p = {.kind = TEMU_PATTERN_FFT, .grid = {4, 8}, .size = 16, .phase = 1};
    totals(run("bgq:2x2x2x1x1", 32, 4, NULL, &p), 96, 96 * 512, 2176);
    totals(run("bgq:2x2x2x1x1", 32, 4, "TABCDE", &p), 96, 96 * 512, 0);
    p.steps = 3;
    totals(run("bgq:2x2x2x1x1", 32, 4, NULL, &p), 3 * 96, 3 * 96 * 512, 3 * 2176);
    p.steps = 1;
    p.phase = 2;
    totals(run("bgq:2x2x2x1x1", 32, 4, NULL, &p), 224, 224 * 256, UINT64_MAX);
    p.phase = 0;
    totals(run("bgq:2x2x2x1x1", 32, 4, NULL, &p), 96 + 224, 96 * 512 + 224 * 256, UINT64_MAX);
}
END_TEST

START_TEST(fft_bad_parameters)
{
    temu_pattern p = {.kind = TEMU_PATTERN_FFT, .grid = {4, 4}, .size = 16};
    refused("bgq:2x2x2x2x2", 32, &p, "must hold the 32 ranks");
    p.grid[1] = 8;
    p.size = 3;
    refused("bgq:2x2x2x2x2", 32, &p, "do not split evenly over a 4x8 grid");
    p.size = 0;
    refused("bgq:2x2x2x2x2", 32, &p, "--size N");
}
END_TEST

/*
 * Halo, 2x2x2 ranks of 2^3 cells, 1 variable: (2+2)^2 * 8 = 128 bytes per
 * face message (5 chunks), 3 neighbours each: 24 messages, one hop each on
 * bgq:2x2x2x1x1 with rank x + 2y + 4z on node (z, y, x).
 */
START_TEST(halo_faces)
{
    temu_pattern p = {.kind = TEMU_PATTERN_HALO, .grid = {2, 2, 2}, .size = 2, .vars = 1};
    totals(run("bgq:2x2x2x1x1", 8, 1, NULL, &p), 24, 24 * 128, 24 * 5);
    /* MiniGhost's default 100^3 cells and the 20 variables */
    temu_pattern d = {.kind = TEMU_PATTERN_HALO, .grid = {2, 1, 1}};
    totals(run("bgq:2x1x1x1x1", 2, 1, NULL, &d), 2, 2 * 102 * 102 * 20 * 8, UINT64_MAX);
}
END_TEST

/*
 * 4x2x1 ranks, 4 per node on two nodes.  Default numbering: the two rows
 * (y = 0, 1) are the two nodes, the 4 y-neighbour pairs cross: 8 messages.
 * Bricks of 2x2x1: x = 0..1 on node 0, x = 2..3 on node 1, the 2 pairs
 * (1,y)-(2,y) cross: 4 messages.  20 messages in all either way.
 */
START_TEST(halo_remap)
{
    temu_pattern p = {.kind = TEMU_PATTERN_HALO, .grid = {4, 2, 1}, .size = 2, .vars = 1};
    totals(run("bgq:2x1x1x1x1", 8, 4, NULL, &p), 20, 20 * 128, 8 * 5);
    p.block[0] = 2;
    p.block[1] = 2;
    p.block[2] = 1;
    totals(run("bgq:2x1x1x1x1", 8, 4, NULL, &p), 20, 20 * 128, 4 * 5);
    p.block[0] = 3;
    refused("bgq:2x2x2x1x1", 8, &p, "--block 3x2x1 does not tile the 4x2x1 grid");
}
END_TEST

/* On the ring bgq:8x1x1x1x1, 512-byte messages (17 chunks per hop). */
START_TEST(synthetic_ring)
{
    temu_pattern p = {.kind = TEMU_PATTERN_TORNADO, .bytes = 512};
    /* r -> r + 3: 3 hops each */
    totals(run("bgq:8x1x1x1x1", 8, 1, NULL, &p), 8, 8 * 512, 8 * 3 * 17);
    p.kind = TEMU_PATTERN_BISECTION; /* r -> r + 4: 4 hops */
    totals(run("bgq:8x1x1x1x1", 8, 1, NULL, &p), 8, 8 * 512, 8 * 4 * 17);
    p.kind = TEMU_PATTERN_NEIGHBOR; /* -1 and +1: one hop */
    totals(run("bgq:8x1x1x1x1", 8, 1, NULL, &p), 16, 16 * 512, 16 * 17);
    p.kind = TEMU_PATTERN_RANDOM;
    p.steps = 3;
    totals(run("bgq:8x1x1x1x1", 8, 1, NULL, &p), 24, 24 * 512, UINT64_MAX);
    p.kind = TEMU_PATTERN_BISECTION;
    refused("bgq:8x1x1x1x1", 7, &p, "not an even number");
}
END_TEST

/*
 * Transpose, 16 ranks on bgq:4x4x1x1x1 (rank i*4 + j on node (i, j)): 12
 * messages (i != j), 2 * ring distance of |i - j| hops: 6 ordered pairs at
 * distance 1, 4 at 2, 2 at 3 (= 1 around the ring): 2 * 16 = 32 hops.
 */
START_TEST(transpose_square)
{
    temu_pattern p = {.kind = TEMU_PATTERN_TRANSPOSE, .bytes = 512};
    totals(run("bgq:4x4x1x1x1", 16, 1, NULL, &p), 12, 12 * 512, 32 * 17);
    refused("bgq:4x4x1x1x1", 15, &p, "not a square");
}
END_TEST

/* Neighbours in a 2x4 periodic grid: x has 2 (both neighbours the same
 * rank, still two messages), y has 4: 4 messages per rank. */
START_TEST(neighbor_grid)
{
    temu_pattern p = {.kind = TEMU_PATTERN_NEIGHBOR, .grid = {2, 4, 1}, .bytes = 100};
    totals(run("bgq:2x4x1x1x1", 8, 1, NULL, &p), 32, 32 * 100, UINT64_MAX);
}
END_TEST

/* ---------------------------------------------------------------- gpcnet */

/*
 * GPCNeT's rules restated from its source (netbench/GPCNET at c56fd95),
 * written here apart from workload/gpcnet.c so that the layout is checked
 * against them, not against itself.  The replay's generator is
 * xorshift64* seeded through splitmix64 (GPCNeT's is C's rand()); the
 * shuffle is utils.c shuffle(): for i = n-1 .. 1 swap a[i] and
 * a[draw % i].
 */
static uint64_t t_seed(uint64_t x)
{
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

static uint64_t t_draw(uint64_t *x)
{
    *x ^= *x >> 12;
    *x ^= *x << 25;
    *x ^= *x >> 27;
    return *x * 0x2545F4914F6CDD1Dull;
}

static void t_shuffled(int32_t *a, int32_t n, uint64_t *x)
{
    for (int32_t i = 0; i < n; i++) {
        a[i] = i;
    }
    for (int32_t i = n - 1; i > 0; i--) {
        int32_t j = (int32_t)(t_draw(x) % (uint64_t)i), t = a[i];
        a[i] = a[j];
        a[j] = t;
    }
}

#define T_MAX 256 /* ranks and nodes in these tests */

/* What GPCNeT's build_subcomms() makes of session s's ranks (node ids
 * ascending stand for the sorted host names; a node's ranks in world
 * order give the node rank): grp[r] = role * slots + slot (role 0
 * canaries, 1..4 main()'s congestors in order), members in[g][..] in
 * shuffled-node-list order, cnt[g] of them. */
typedef struct t_layout {
    int32_t slots, grp[T_MAX], cnt[5 * T_MAX], in[5 * T_MAX][T_MAX];
} t_layout;

static void t_layout_make(const temu_session *s, uint64_t seed, t_layout *t)
{
    int32_t n = temu_session_nranks(s), nodes[T_MAX], nn = 0, ppn[T_MAX] = {0};
    int32_t at[T_MAX][T_MAX], order[T_MAX], colors[T_MAX];
    memset(t, 0, sizeof *t);
    for (int32_t r = 0; r < n; r++) { /* distinct nodes, ascending */
        temu_slot sl;
        temu_session_rank_slot(s, r, &sl, NULL);
        int32_t u = 0;
        while (u < nn && nodes[u] < sl.node) {
            u++;
        }
        if (u == nn || nodes[u] != sl.node) {
            memmove(&nodes[u + 1], &nodes[u], (size_t)(nn - u) * sizeof nodes[0]);
            nodes[u] = sl.node;
            nn++;
        }
    }
    for (int32_t r = 0; r < n; r++) {
        temu_slot sl;
        temu_session_rank_slot(s, r, &sl, NULL);
        int32_t u = 0;
        while (nodes[u] != sl.node) {
            u++;
        }
        at[u][ppn[u]++] = r;
        t->slots = ppn[u] > t->slots ? ppn[u] : t->slots;
    }
    int32_t ncong = nn * 4 / 5; /* floor(0.8 x nodes) */
    uint64_t x = t_seed(seed);
    t_shuffled(order, nn, &x);
    for (int32_t s0 = 0; s0 < t->slots; s0++) {
        /* the slot's congestor communicator: node-list order */
        int32_t m = 0;
        for (int32_t j = 0; j < ncong; j++) {
            m += ppn[order[j]] > s0;
        }
        uint64_t y = x; /* the node shuffle's draw, continued */
        t_shuffled(colors, m, &y);
        for (int32_t j = 0, k = 0; j < nn; j++) {
            int32_t u = order[j];
            if (ppn[u] > s0) {
                int32_t role = j < ncong ? 1 + colors[k++] % 4 : 0;
                int32_t g = role * t->slots + s0;
                t->grp[at[u][s0]] = g;
                t->in[g][t->cnt[g]++] = at[u][s0];
            }
        }
    }
}

/* The layout of session s (seed) is GPCNeT's: every group's members in
 * order; every ring of every canary slot is the restated shuffle of
 * RSEED + slot, and pairs ranks of different nodes only. */
static void gpcnet_layout_is_gpcnets(const temu_session *s, uint64_t seed)
{
    static t_layout t;
    temu_gpcnet_layout l;
    temu_error err;
    int32_t n = temu_session_nranks(s), want[T_MAX], got[T_MAX];
    t_layout_make(s, seed, &t);
    ck_assert_msg(temu_gpcnet_layout_make(s, 0, n, 0, seed, &l, &err) == TEMU_OK, "%s",
                  err.message);
    ck_assert_int_eq(l.slots, t.slots);
    int32_t canaries = 0;
    for (int32_t s0 = 0; s0 < t.slots; s0++) {
        canaries += t.cnt[s0];
    }
    ck_assert_int_eq(l.canaries, canaries);
    for (int32_t g = 0; g < 5 * t.slots; g++) {
        ck_assert_int_eq(temu_gpcnet_size(&l, g), t.cnt[g]);
        for (int32_t i = 0; i < t.cnt[g]; i++) {
            ck_assert_int_eq(l.rank[l.first[g] + i], t.in[g][i]);
        }
    }
    for (int32_t s0 = 0; s0 < t.slots; s0++) {
        int32_t m = t.cnt[s0];
        uint64_t x = t_seed(8675309u + (uint64_t)s0);
        for (int32_t ring = 0; ring < 30; ring++) {
            t_shuffled(want, m, &x);
            temu_gpcnet_ring(&l, s0, ring, got);
            for (int32_t pos = 0; pos < m; pos++) {
                ck_assert_int_eq(got[pos], want[pos]);
                temu_slot a, b;
                temu_session_rank_slot(s, t.in[s0][want[pos]], &a, NULL);
                temu_session_rank_slot(s, t.in[s0][want[(pos + 1) % m]], &b, NULL);
                ck_assert_int_ne(a.node, b.node);
            }
        }
    }
    temu_gpcnet_layout_free(&l);
}

START_TEST(gpcnet_layout)
{
    static const struct {
        const char *spec, *how;
        int32_t nranks, rpn;
        uint64_t seed;
    } cases[] = {
        {"gemini:2x2x2", NULL, 16, 1, 8675309u}, /* 4 canary nodes, 3 per congestor */
        {"gemini:2x2x2", NULL, 32, 2, 5},        /* 2 slots */
        {"gemini:2x2x2", "random:3", 32, 2, 0},  /* node ids apart from ranks */
        {"gemini:2x2x2", NULL, 21, 2, 11},       /* 11 nodes, the last with 1 rank */
        {"gemini:4x2x2", NULL, 128, 4, 77},      /* 32 nodes, 4 slots */
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        temu_session *s =
            test_mapped_store(cases[c].spec, cases[c].nranks, cases[c].rpn, cases[c].how);
        gpcnet_layout_is_gpcnets(s, cases[c].seed ? cases[c].seed : 8675309u);
        temu_session_close(s);
    }
}
END_TEST

/*
 * What one step replays, from the layout restated above: per canary 2
 * latency sends (8 B) and 16 bandwidth sends (--bytes), a barrier and an
 * allreduce of its slot; per congestor group of m members an all-to-all of
 * m (m - 1) sends, an incast of m - 1 sends, a PUT incast and a GET
 * broadcast of m - 1 one-sided operations each, all of 4 KiB.
 */
static void gpcnet_counts(const char *spec, int32_t nranks, int32_t rpn, const temu_pattern *p)
{
    static t_layout t;
    temu_session *s = test_mapped_store(spec, nranks, rpn, NULL);
    temu_replay_stats st;
    temu_error err;
    t_layout_make(s, p->seed ? p->seed : 8675309u, &t);
    uint64_t canaries = 0, sends = 0, rma = 0;
    for (int32_t g = 0; g < 5 * t.slots; g++) {
        uint64_t m = (uint64_t)t.cnt[g];
        int32_t role = g / t.slots;
        canaries += role == 0 ? m : 0;
        sends += role == 0 ? 18 * m : role == 1 ? m * (m - 1) : role == 2 ? m - 1 : 0;
        rma += role >= 3 && m > 0 ? m - 1 : 0;
    }
    ck_assert_msg(temu_pattern_run(s, p, 1, NULL, NULL, &st, &err) == TEMU_OK, "%s", err.message);
    ck_assert_uint_eq(st.sends, 2 * sends);
    ck_assert_uint_eq(st.rma, 2 * rma);
    ck_assert_uint_eq(st.colls, 2 * 2 * canaries);
    ck_assert_uint_eq(st.unmatched_sends + st.unmatched_recvs, 0);
    temu_session_close(s);
}

/* Bytes of one congestor round and of one ring exchange: 4 KiB for every
 * congestor message, `bytes` for every canary message. */
static void gpcnet_bytes(void)
{
    temu_session *s = test_mapped_store("gemini:2x2x2", 32, 2, NULL);
    temu_gpcnet_layout l;
    temu_replay *r;
    temu_replay_stats st;
    temu_error err;
    int32_t buf[T_MAX];
    ck_assert_int_eq(temu_gpcnet_layout_make(s, 0, 32, 0, 0, &l, &err), TEMU_OK);
    ck_assert_int_eq(temu_replay_create(s, &r, &err), TEMU_OK);
    ck_assert_int_eq(temu_gpcnet_congestor_round(r, &l, &err), TEMU_OK);
    temu_replay_get_stats(r, &st);
    ck_assert_uint_eq(temu_session_bytes(s), 4096 * (st.sends + st.rma));
    ck_assert_uint_eq(st.messages, st.sends + st.rma);
    uint64_t before = temu_session_bytes(s);
    ck_assert_int_eq(temu_gpcnet_ring_exchange(r, &l, 7, 1000, 3, buf, &err), TEMU_OK);
    ck_assert_uint_eq(temu_session_bytes(s) - before, (uint64_t)l.canaries * 2 * 3 * 1000);
    ck_assert_int_eq(temu_replay_finish(r, &err), TEMU_OK);
    temu_replay_free(r);
    temu_gpcnet_layout_free(&l);
    temu_session_close(s);
}

START_TEST(gpcnet_round)
{
    temu_pattern p = {.kind = TEMU_PATTERN_GPCNET, .steps = 2};
    gpcnet_counts("gemini:2x2x2", 20, 2, &p);
    gpcnet_counts("gemini:2x2x2", 16, 1, &p);
    p.seed = 9;
    gpcnet_counts("gemini:4x2x2", 128, 4, &p);
    gpcnet_bytes();
    /* GPCNeT needs 2 canary and 8 congestor nodes: 9 nodes leave 2 and 7 */
    temu_pattern q = {.kind = TEMU_PATTERN_GPCNET};
    refused("gemini:2x2x2", 9, &q,
            "9 nodes with canary fraction 0.2 leave 2 canary and 7 "
            "congestor nodes (GPCNeT needs at least 2 and 8)");
    /* --fraction 0.5 of 16 nodes: 8 canary nodes, 8 congestor nodes */
    temu_session *s = test_mapped_store("gemini:2x2x2", 16, 1, NULL);
    temu_gpcnet_layout l;
    temu_error err;
    ck_assert_int_eq(temu_gpcnet_layout_make(s, 0, 16, 0.5, 0, &l, &err), TEMU_OK);
    ck_assert_int_eq(l.canary_nodes, 8);
    ck_assert_int_eq(l.canaries, 8);
    temu_gpcnet_layout_free(&l);
    temu_session_close(s);
}
END_TEST

START_TEST(names_and_steps)
{
    for (int k = 0; k < TEMU_PATTERNS; k++) {
        ck_assert_int_eq(temu_pattern_parse_name(temu_pattern_name(k)), k);
    }
    ck_assert_int_eq(temu_pattern_parse_name("fft3d"), -1);
    ck_assert_ptr_null(temu_pattern_name(TEMU_PATTERNS));
    temu_pattern p = {.kind = TEMU_PATTERN_TORNADO, .steps = -1};
    refused("bgq:8x1x1x1x1", 8, &p, "--steps -1");
}
END_TEST

/*
 * A pattern on a share of the ranks (a job of a mix): the halo of
 * halo_faces on ranks 8..15 of 16 on bgq:2x2x2x2x1 (rank r on node r, E of
 * size 1: node 8 + i is (1, z, y, x, 0) for the job's rank i = x + 2y +
 * 4z): the same 24 one-hop messages of 5 chunks, sent by nodes 8..15 only.
 * Ranks outside the session are refused.
 */
START_TEST(job_share)
{
    temu_pattern p = {.kind = TEMU_PATTERN_HALO, .grid = {2, 2, 2}, .size = 2, .vars = 1};
    p.first_rank = 8;
    p.nranks = 8;
    temu_session *s = run("bgq:2x2x2x2x1", 16, 1, NULL, &p);
    const temu_machine *m = temu_session_machine(s);
    for (int64_t node = 0; node < 8; node++) {
        for (int l = 0; l < 2 * m->ndims; l++) {
            for (int vc = 0; vc < TEMU_BGQ_VCS; vc++) {
                ck_assert_uint_eq(
                    temu_counter_read(s, temu_idx_bgq_nw(m, node, l, TEMU_BGQ_NW_SENT_CHUNKS, vc)),
                    0);
            }
        }
    }
    totals(s, 24, 24 * 128, 24 * 5);
    p.first_rank = 10;
    refused("bgq:2x2x2x2x1", 16, &p,
            "pattern ranks 10 .. 17 are not ranks of the session (0 .. 15)");
    p.first_rank = 3;
    p.nranks = 0;
    refused("bgq:2x2x2x2x1", 16, &p, "pattern ranks 3 .. 2");
}
END_TEST

/* The counts do not depend on the number of threads sharing a replay. */
static temu_session *threaded(const char *spec, int32_t nranks, int32_t rpn, const temu_pattern *p,
                              int nthreads)
{
    temu_session *s = test_mapped_store(spec, nranks, rpn, NULL);
    temu_replay_stats st;
    temu_error err;
    ck_assert_msg(temu_pattern_run(s, p, nthreads, NULL, NULL, &st, &err) == TEMU_OK, "%s",
                  err.message);
    ck_assert_uint_eq(st.unmatched_sends + st.unmatched_recvs, 0);
    return s;
}

static void same_counters(const temu_session *a, const temu_session *b)
{
    for (uint64_t k = 0; k < temu_counter_count(a); k++) {
        ck_assert_uint_eq(temu_counter_read(a, (int64_t)k), temu_counter_read(b, (int64_t)k));
    }
}

START_TEST(threads_same_counts)
{
    const temu_pattern ps[] = {
        {.kind = TEMU_PATTERN_FFT, .grid = {4, 8}, .size = 16},
        {.kind = TEMU_PATTERN_HALO, .grid = {2, 4, 4}, .size = 3, .vars = 2},
        {.kind = TEMU_PATTERN_GPCNET},
        {.kind = TEMU_PATTERN_RANDOM, .steps = 3, .seed = 5},
        {.kind = TEMU_PATTERN_TORNADO},
        {.kind = TEMU_PATTERN_BISECTION},
        {.kind = TEMU_PATTERN_NEIGHBOR, .grid = {4, 4, 2}},
    };
    for (size_t i = 0; i < sizeof ps / sizeof ps[0]; i++) {
        temu_session *a = threaded("bgq:2x2x2x2x2", 32, 1, &ps[i], 1);
        temu_session *b = threaded("bgq:2x2x2x2x2", 32, 1, &ps[i], 3);
        ck_assert_uint_ne(temu_session_messages(a), 0);
        ck_assert_uint_eq(temu_session_messages(a), temu_session_messages(b));
        ck_assert_uint_eq(temu_session_bytes(a), temu_session_bytes(b));
        same_counters(a, b);
        temu_session_close(a);
        temu_session_close(b);
    }
    temu_pattern tp = {.kind = TEMU_PATTERN_TRANSPOSE};
    temu_session *ta = threaded("bgq:3x3x2x2x1", 36, 1, &tp, 1);
    temu_session *tb = threaded("bgq:3x3x2x2x1", 36, 1, &tp, 2);
    ck_assert_uint_eq(temu_session_messages(ta), 30);
    same_counters(ta, tb);
    temu_session_close(ta);
    temu_session_close(tb);
    temu_pattern bad = {.kind = TEMU_PATTERN_TORNADO};
    temu_session *s = test_mapped_store("bgq:2x2x2x2x2", 32, 1, NULL);
    temu_replay_stats st;
    temu_error err;
    ck_assert_int_eq(temu_pattern_run(s, &bad, 0, NULL, NULL, &st, &err), TEMU_EINVAL);
    ck_assert_ptr_nonnull(strstr(err.message, "--threads 0"));
    temu_session_close(s);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("pattern");
    TCase *tc = tcase_create("hand counts");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, fft_rows);
    tcase_add_test(tc, fft_bad_parameters);
    tcase_add_test(tc, halo_faces);
    tcase_add_test(tc, halo_remap);
    tcase_add_test(tc, synthetic_ring);
    tcase_add_test(tc, transpose_square);
    tcase_add_test(tc, neighbor_grid);
    tcase_add_test(tc, gpcnet_layout);
    tcase_add_test(tc, gpcnet_round);
    tcase_add_test(tc, names_and_steps);
    tcase_add_test(tc, threads_same_counts);
    tcase_add_test(tc, job_share);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return test_run(suite());
}
