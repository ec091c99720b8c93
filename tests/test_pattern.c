/*
 * test_pattern.c - built-in replay patterns (emu/pattern.c) against counts
 * worked out by hand: messages, bytes and 32-byte chunks on Blue Gene/Q
 * torus links.  An eager BG/Q message of b <= 512 bytes is one packet of
 * 1 + b/32 chunks (doc/model.md) on every hop; hop counts below come from
 * node coordinates (nodes numbered with E fastest).
 */
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

/*
 * GPCNeT, 20 ranks on 10 nodes, 20 % canaries: 2 canary nodes (4 ranks)
 * and 4 congestor groups of 2 nodes (4 ranks).  Per round: all-to-all 12 x 4 KiB, incast 3, put
 * incast 3, get bcast 3 (21 x 4096 bytes); canaries 4 x 2 x 8 B (latency), 4 x 2 x 8 x 128 KiB
 * (bandwidth) and an 8-byte allreduce by recursive doubling on Gemini, 2
 * messages per canary: 101 messages, 8,474,752 bytes.
 */
START_TEST(gpcnet_round)
{
    temu_pattern p = {.kind = TEMU_PATTERN_GPCNET, .steps = 2};
    totals(run("gemini:2x2x2", 20, 2, NULL, &p), 2 * 101, 2 * 8474752ull, UINT64_MAX);
    temu_pattern q = {.kind = TEMU_PATTERN_GPCNET};
    refused("gemini:2x2x2", 5, &q, "at least 2 and 4 needed");
    /* roles are per node: 24 ranks on 6 nodes, 30 %: 2 canary nodes = 8
     * canary ranks (not 7 = 30 % of the ranks), 4 congestor nodes of 4
     * ranks: 21 congestor messages, 8 x 2 x 9 canary messages and 8 x 3
     * of the allreduce: 189 messages, 21 x 4096 + 16 x (8 + 8 x 131072) +
     * 24 x 8 bytes */
    temu_pattern r = {.kind = TEMU_PATTERN_GPCNET, .fraction = 0.3};
    totals(run("gemini:2x2x2", 24, 4, NULL, &r), 189, 16863552ull, UINT64_MAX);
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
