/*
 * bgq_iounit_ovf.c - PAPI_overflow and multiplexing on bgq_iounit
 * (doc/overflow-multiplex.md), and event sets of several BG/Q components
 * overflowing at once in one thread.
 *
 * Run by ctests/bgq_iounit_ovf.sh with TORUSEMU_SESSION = a fresh BG/Q
 * midplane store and TORUSEMU_NODE=256, node (2,0,0,0,0); once as is and
 * once with TORUSEMU_UNIT_COUNTERS=3 and the argument "mpx".  4096 bytes
 * eager from node 0 are 8 memory-FIFO packets at node 2 and 272 16-byte
 * writes on master port 0 (bgq_iounit_api.c).  I/O overflow is "slow"
 * (McCraw 2013 section 3.3) with one threshold per SRAM counter for the node.
 */
#define _GNU_SOURCE /* dladdr */
#include "torus_ovtest.h"

static temu_session *S;
static const temu_machine *M;
static int64_t N0, N1, N2;
static int cidx;

static int64_t node_at(int a)
{
    int32_t c[5] = {a, 0, 0, 0, 0};
    return temu_router_index(M, c);
}

static void test_exact(void)
{
    static const char *const ev[] = {"PEVT_MU_FIFO_PKT_RCV", "MU_PKT_RCV_TOTAL",
                                     "MU_PORT0_WRT_BYTES", "PEVT_MU_PORT0_16B_WRT"};
    long long v[4];
    int es = tp_make_set(ev, 4);
    tp_log *l = tp_log_new(es);

    l->read_events = 4;
    TP_RC(tp_overflow(es, ev[0], 3, 0), PAPI_OK);
    TP_RC(tp_overflow(es, ev[1], 5, 0), PAPI_OK);
    TP_RC(tp_overflow(es, ev[2], 1000, 0), PAPI_OK); /* 16 x writes */
    TP_RC(PAPI_start(es), PAPI_OK);
    tp_inject(S, N0, N2, 4096, TEMU_KIND_P2P, 1);
    TP_EQ(l->hits[0], 2, "8 packets, threshold 3");
    TP_EQ(l->in_handler[3], 272, "slow overflow: the handler sees the whole message");
    tp_inject(S, N0, N2, 4096, TEMU_KIND_P2P, 4);
    tp_inject_child(N0, N2, 4096, TEMU_KIND_P2P, 5, NULL);
    TP_RC(PAPI_stop(es, v), PAPI_OK);
    TP_EQ(v[0], 80, "10 messages: 80 FIFO packets");
    TP_EQ(v[2], 16 * 2720, "bytes written");
    TP_EQ(l->hits[0], 26, "floor(80 / 3)");
    TP_EQ(l->hits[1], 16, "derived MU_PKT_RCV_TOTAL: floor(80 / 5)");
    TP_EQ(l->hits[2], 43, "derived bytes (weight 16): floor(43520 / 1000)");
    TP_EQ(l->hits[3], 0, "the counted event");
    tp_free_set(es);
}

/* A client that reads and resets after every 4096-byte message (TAU): 8
 * FIFO packets, and 4352 bytes written (derived, weight 16); slow
 * overflow. */
static void one_message(void)
{
    tp_inject(S, N0, N2, 4096, TEMU_KIND_P2P, 1);
}

static void test_read_reset(void)
{
    static const char *const ev[] = {"PEVT_MU_FIFO_PKT_RCV", "MU_PORT0_WRT_BYTES"};
    static const long long thr[] = {20, 10000}, per[] = {8, 4352};
    tp_check_read_reset(ev, 2, thr, per, one_message, 25);
}

/* One threshold per SRAM counter for the whole node. */
static void test_node_thresholds(void)
{
    static const char *const ev[] = {"PEVT_MU_PORT0_16B_WRT"};
    int a = tp_make_set(ev, 1), b = tp_make_set(ev, 1);
    TP_RC(tp_overflow(a, ev[0], 100, 0), PAPI_OK);
    TP_RC(tp_overflow(b, ev[0], 50, 0), PAPI_ECNFLCT);
    TP_RC(tp_overflow(b, ev[0], 100, 0), PAPI_OK);
    tp_free_set(a);
    tp_free_set(b);
    a = tp_make_set(ev, 1);
    TP_RC(tp_overflow(a, ev[0], 50, 0), PAPI_OK); /* free again */
    tp_free_set(a);
}

/* Event sets of three components run in one thread, each overflowing:
 * one signal reaches the thread, every set gets its own crossings. */
static void test_three_components(void)
{
    static const char *const io[] = {"PEVT_MU_FIFO_PKT_RCV"};
    static const char *const l2[] = {"PEVT_L2_HITS"};
    static const char *const nw[] = {"PEVT_NW_USER_PP_RECV"};
    long long v[1];
    int a = tp_make_set(io, 1), b = tp_make_set(l2, 1), c = tp_make_set(nw, 1);
    tp_log *la = tp_log_new(a), *lb = tp_log_new(b), *lc = tp_log_new(c);

    TP_RC(tp_overflow(a, io[0], 4, 0), PAPI_OK);
    TP_RC(tp_overflow(b, l2[0], 100, 0), PAPI_OK);
    TP_RC(tp_overflow(c, nw[0], 3, 0), PAPI_OK);
    TP_RC(PAPI_start(a), PAPI_OK);
    TP_RC(PAPI_start(b), PAPI_OK);
    TP_RC(PAPI_start(c), PAPI_OK);
    tp_inject(S, N0, N2, 4096, TEMU_KIND_P2P, 3);
    tp_inject_child(N0, N2, 4096, TEMU_KIND_P2P, 3, NULL);
    TP_RC(PAPI_stop(c, v), PAPI_OK);
    TP_EQ(v[0], 48, "NW packets received by node 2 (A-)");
    TP_EQ(lc->calls, 16, "NW: floor(48 / 3)");
    TP_RC(PAPI_stop(b, v), PAPI_OK);
    TP_EQ(lb->calls, v[0] / 100, "L2: floor(192 / 100)");
    TP_RC(PAPI_stop(a, v), PAPI_OK);
    TP_EQ(la->calls, 12, "IO: floor(48 / 4)");
    tp_free_set(a);
    tp_free_set(b);
    tp_free_set(c);
}

/* The emulator's watch options directly (temu_watch_arm_ex): weights,
 * their checks, the crossing time. */
static void test_watch_options(void)
{
    int64_t idx[2] = {temu_idx_bgq_mu(M, N2, TEMU_MU_FIFO_PKT_RCV),
                      temu_idx_bgq_mu(M, N2, TEMU_MU_PORT0_16B_WRT)};
    uint32_t weights[2] = {100, 1}, bad[2] = {0, 1};
    int64_t twice[2] = {idx[0], idx[0]};
    temu_watch_spec spec = {idx, 2, 0, 1000, 0, 0};
    temu_watch_options opt = {weights, 0};
    temu_error err;
    int32_t id;
    uint64_t t0 = tp_now_ns();

    TP_EQ(temu_watch_arm_ex(S, &spec, &opt, &id, &err), TEMU_OK, "arm with weights");
    tp_inject(S, N0, N2, 4096, TEMU_KIND_P2P, 1);
    TP_EQ(temu_watch_value(S, id), 100 * 8 + 272, "weighted sum: 100 x 8 packets + 272 writes");
    TP_EQ(temu_watch_take(S, id), 1, "one crossing of 1000");
    TP_CHECK(temu_watch_crossed_ns(S, id) >= t0 && temu_watch_crossed_ns(S, id) <= tp_now_ns(),
             "crossing time stamped during the injection");
    temu_watch_disarm(S, id);
    opt.weights = bad;
    TP_EQ(temu_watch_arm_ex(S, &spec, &opt, &id, &err), TEMU_EINVAL, "weight 0 refused");
    TP_CHECK(strstr(err.message, "weight") != NULL, "reason: %s", err.message);
    opt.weights = weights;
    spec.counters = twice;
    TP_EQ(temu_watch_arm_ex(S, &spec, &opt, &id, &err), TEMU_EINVAL,
          "a counter twice with weights refused");
    spec.counters = idx;
    opt.delay_ns = TEMU_WATCH_MAX_DELAY_NS + 1;
    TP_EQ(temu_watch_arm_ex(S, &spec, &opt, &id, &err), TEMU_EINVAL, "delay above 1 s refused");
    TP_EQ(temu_watch_armed(S), 0, "nothing left armed");
}

/* Node 2 receives 4096 bytes from node 0 (eager: 8 packets into a memory
 * FIFO, 8 x (32 + 512) / 16 = 272 16-byte writes), then sends 1000 bytes
 * to node 1 (2 packets, the first not counted by PEVT_MU_PKT_INJ; read in
 * 128-byte requests: 4 for 512 bytes, 4 for 488 whose 104-byte tail needs
 * a whole one). */
static void mpx_send(int kind)
{
    if (kind == 0) {
        tp_inject(S, N0, N2, 4096, TEMU_KIND_P2P, 1);
    } else {
        tp_inject(S, N2, N1, 1000, TEMU_KIND_P2P, 1);
    }
}

/* TORUSEMU_UNIT_COUNTERS=3: seven events in three groups, exact estimates
 * on the traffic clock. */
static void test_unit_counters(void)
{
    static const char *const ev[] = {"PEVT_MU_PKT_INJ",       "PEVT_MU_MSG_INJ",
                                     "PEVT_MU_FIFO_PKT_RCV",  "PEVT_MU_PORT0_16B_WRT",
                                     "PEVT_MU_PORT0_128B_RD", "MU_PKT_INJ_TOTAL",
                                     "MU_PORT0_RD_BYTES"};
    enum { N = 7, K = 2 };
    static const long long want[N * K] = {0, 1, 0, 1, 8, 0, 272, 0, 0, 8, 0, 2, 0, 1024};
    static const int group[N] = {0, 0, 0, 1, 1, 1, 2}; /* three events a group */
    long long per[N * K];
    int es;

    TP_EQ(PAPI_get_component_info(cidx)->num_cntrs, 3, "num_cntrs with TORUSEMU_UNIT_COUNTERS=3");
    tp_per_kind(ev, N, mpx_send, K, per, want);
    es = tp_make_set(ev, 3);
    TP_RC(PAPI_add_named_event(es, ev[3]), PAPI_ECNFLCT);
    tp_free_set(es);
    es = tp_mpx_set(cidx, 2000000);
    for (int e = 0; e < N; e++) {
        TP_RC(PAPI_add_named_event(es, ev[e]), PAPI_OK);
    }
    {
        tp_mpx x = {"multiplexed (3 counters)", ev, N, group, mpx_send, K, per, 2, 33, 0};
        tp_check_mpx(&x, es);
    }
    tp_free_set(es);
}

int main(int argc, char **argv)
{
    S = tp_begin(&argc, argv, "bgq:4x4x4x4x2", 256);
    if (S == NULL) {
        return tp_finish();
    }
    M = temu_session_machine(S);
    N0 = node_at(0);
    N1 = node_at(1);
    N2 = node_at(2);
    TP_RC(PAPI_library_init(PAPI_VER_CURRENT), PAPI_VER_CURRENT);
    TP_RC(PAPI_multiplex_init(), PAPI_OK);
    cidx = tp_component("bgq_iounit");
    if (cidx >= 0 && argc > 1 && strcmp(argv[1], "mpx") == 0) {
        test_unit_counters();
    } else if (cidx >= 0) {
        test_exact();
        test_read_reset();
        test_node_thresholds();
        test_three_components();
        test_watch_options();
    }
    TP_EQ(temu_watch_armed(S), 0, "every watch disarmed at the end");
    PAPI_shutdown();
    temu_session_close(S);
    return tp_finish();
}
