/*
 * test_vt_model.c - the modelled arrival of one message in an empty network
 * (mpi/vt_model.c): hand-derived times on Blue Gene/Q from the timing
 * model's published parameters, and equality with the timing model itself
 * (emu/packet/ fed the same message alone) on every system, over sizes
 * that cross the eager and rendezvous limits and routes that wrap.
 */
#include "vt_model.h"

#include <check.h>
#include <stdint.h>
#include <stdlib.h>

static temu_machine machine(const char *spec)
{
    temu_machine m;
    temu_error err;
    ck_assert_msg(temu_machine_parse(spec, &m, &err) == TEMU_OK, "%s", err.message);
    return m;
}

static int64_t latency(const temu_machine *m, int64_t src, int64_t dst, uint64_t bytes)
{
    temu_tm_config c;
    temu_error err;
    int64_t ps = -1;
    temu_message msg = {src, dst, bytes, NULL, TEMU_KIND_P2P};
    ck_assert_int_eq(temu_tm_config_default(m, &c, &err), TEMU_OK);
    ck_assert_msg(tmpi_vt_latency(m, &c, &msg, &ps, &err) == TEMU_OK, "%s", err.message);
    return ps;
}

/*
 * BG/Q by hand (doc/model.md, "Timing model": router 35 ns, wire 5 ns,
 * links 2 GB/s = 500 ps per byte, node injection and ejection 20 GB/s = 50
 * ps per byte, no flight time at the node).  An eager message of b bytes
 * is ceil(b/512) packets of a 32-byte header and the payload in 32-byte
 * chunks.  bgq:4x1x1x1x2: node = 2a + e.
 *
 * One packet of P bytes over k hops: the header is at the first router at
 * once (the node's flight time is 0) and leaves it 35 ns later; each hop
 * adds 5 ns of wire and 35 ns of router; the ejection starts when the
 * router is done with the header or, if later, when the tail (the link's
 * serialization behind it) no longer runs ahead of it; it ends one
 * ejection serialization later.
 */
START_TEST(bgq_by_hand)
{
    temu_machine m = machine("bgq:4x1x1x1x2");
    const int64_t router = 35000, wire = 5000;
    /* 8 bytes: one 64-byte packet; link 32000 ps, ejection 3200 ps */
    for (int k = 1; k <= 2; k++) {
        int64_t last_hop = router + (k - 1) * (router + wire); /* leaves the last link's router */
        int64_t hdr = last_hop + wire, tail = last_hop + 32000 + wire;
        int64_t ej = hdr + router > tail - 3200 ? hdr + router : tail - 3200;
        ck_assert_int_eq(latency(&m, 0, 2 * k, 8), ej + 3200); /* node 2: a=1, node 4: a=2 */
    }
    ck_assert_int_eq(latency(&m, 0, 2, 8), 78200);
    /* 4096 bytes: 8 packets of 544 bytes; the link (272000 ps each) is the
     * bottleneck, so packet j leaves the first router at 35000 + j x 272000;
     * the last one's tail reaches the neighbour 272000 + 5000 later and the
     * ejection (27200 ps) ends with it */
    ck_assert_int_eq(latency(&m, 0, 2, 4096), 35000 + 7 * 272000 + 272000 + 5000);
    /* one more hop: 40 ns more for the whole train */
    ck_assert_int_eq(latency(&m, 0, 4, 4096), 35000 + 7 * 272000 + 40000 + 272000 + 5000);
    /* the same node: nothing on the network */
    ck_assert_int_eq(latency(&m, 3, 3, 4096), 0);
}
END_TEST

/* ------------------------------------------------ the timing model itself */

static void on_delivery(void *ctx, uint64_t tag, int64_t created, int64_t delivered)
{
    int64_t *last = ctx;
    (void)tag;
    (void)created;
    if (delivered > *last) {
        *last = delivered;
    }
}

static int64_t simulated(const temu_machine *m, int64_t src, int64_t dst, uint64_t bytes)
{
    temu_tm_config c;
    temu_tm *t;
    temu_error err;
    int64_t last = 0;
    temu_message msg = {src, dst, bytes, NULL, TEMU_KIND_P2P};
    ck_assert_int_eq(temu_tm_config_default(m, &c, &err), TEMU_OK);
    /* the latency follows the deterministic route, as the live online model
     * does (utils/run_model.c); adaptively a lone multi-dimension message
     * spreads over the productive directions */
    c.routing = TEMU_TM_DETERMINISTIC;
    ck_assert_int_eq(temu_tm_create(m, &c, &t, &err), TEMU_OK);
    temu_tm_set_delivery(t, on_delivery, &last);
    ck_assert_msg(temu_tm_send_message(t, 0, m, &msg, &err) == TEMU_OK, "%s", err.message);
    temu_tm_run(t, INT64_MAX);
    ck_assert_int_eq(temu_tm_pending(t), 0);
    temu_tm_destroy(t);
    return last;
}

static const uint64_t sizes[] = {0,    1,    8,    64,    100,   512,   513,    4095,
                                 4096, 4097, 8192, 16384, 65536, 65537, 100000, 300001};
#define NSIZES (sizeof sizes / sizeof sizes[0])

/* Equal to the timing model, or (exact == 0 for that size) within 0.5 %:
 * when a message's packets use two VCs (a rendezvous request beside its
 * data, Gemini requests and responses) the model's routers may let one
 * class pass the other, while here they keep their creation order. */
static void against_model(const char *spec, const int64_t (*pairs)[2], int npairs,
                          int (*exact)(const temu_machine *m, int64_t src, int64_t dst,
                                       uint64_t bytes))
{
    temu_machine m = machine(spec);
    for (int p = 0; p < npairs; p++) {
        for (size_t i = 0; i < NSIZES; i++) {
            int64_t want = simulated(&m, pairs[p][0], pairs[p][1], sizes[i]);
            int64_t got = latency(&m, pairs[p][0], pairs[p][1], sizes[i]);
            int64_t diff = got > want ? got - want : want - got;
            ck_assert_msg(exact(&m, pairs[p][0], pairs[p][1], sizes[i]) ? diff == 0
                                                                        : diff * 200 <= want,
                          "%s %lld -> %lld, %llu bytes: %lld ps, the model %lld ps", spec,
                          (long long)pairs[p][0], (long long)pairs[p][1],
                          (unsigned long long)sizes[i], (long long)got, (long long)want);
        }
    }
}

/* Blue Gene: one VC per direction except BG/Q rendezvous data above 64 KiB
 * between nodes that differ in more than one dimension (dynamic VC beside
 * the escape VC of the request to send, emu/plan.c). */
static int bg_exact(const temu_machine *m, int64_t src, int64_t dst, uint64_t bytes)
{
    int32_t a[TEMU_MAX_DIMS], b[TEMU_MAX_DIMS];
    int differ = 0;
    temu_router_coords(m, temu_node_router(m, src), a);
    temu_router_coords(m, temu_node_router(m, dst), b);
    for (int d = 0; d < m->ndims; d++) {
        differ += a[d] != b[d];
    }
    return m->system == TEMU_SYSTEM_BGP || bytes <= 65536 || differ <= 1;
}

/* Gemini: exact up to 4 KiB; above, requests and responses interleave */
static int gemini_exact(const temu_machine *m, int64_t src, int64_t dst, uint64_t bytes)
{
    (void)m;
    (void)src;
    (void)dst;
    return bytes <= 4096;
}

START_TEST(bgq_as_model)
{
    /* neighbours, a wrapping dimension, several dimensions (dynamic VC
     * above 64 KiB) */
    static const int64_t pairs[][2] = {{0, 2}, {0, 6}, {0, 4}, {0, 1}, {0, 511}, {37, 300}};
    against_model("bgq:4x4x4x4x2", pairs, 6, bg_exact);
}
END_TEST

START_TEST(bgp_as_model)
{
    static const int64_t pairs[][2] = {{0, 1}, {0, 3}, {0, 63}, {5, 42}};
    against_model("bgp:4x4x4", pairs, 4, bg_exact);
}
END_TEST

START_TEST(gemini_as_model)
{
    /* two nodes per Gemini: 0 -> 1 share a router; X, Y (4 tiles), Z links */
    static const int64_t pairs[][2] = {{0, 1}, {0, 2}, {0, 8}, {0, 32}, {0, 127}, {9, 70}};
    against_model("gemini:4x4x4", pairs, 6, gemini_exact);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("vt_model");
    TCase *t = tcase_create("latency");
    tcase_set_timeout(t, 120);
    tcase_add_test(t, bgq_by_hand);
    tcase_add_test(t, bgq_as_model);
    tcase_add_test(t, bgp_as_model);
    tcase_add_test(t, gemini_as_model);
    suite_add_tcase(s, t);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
