/*
 * bgp_torus_ovf.c - PAPI_overflow and multiplexing on bgp_torus
 * (doc/overflow-multiplex.md).  The real BG/P offered no PAPI_overflow on
 * its torus counters; the emulated machine does.
 *
 * Run by ctests/bgp_torus_ovf.sh with TORUSEMU_SESSION = a fresh bgp-16
 * store (bgp:4x2x2, mesh) and TORUSEMU_NODE=0.  Node 0 sends to node 1 over
 * its Z+ link (packets and 32-byte chunks, UPC mode 0); what node 1 sends
 * to node 0 arrives through node 0's Z+ link, which sends one token/ack
 * packet back per packet received (mode 2).  An event with threshold T
 * overflows floor(value / T) times.
 */
#define _GNU_SOURCE /* dladdr */
#include "torus_node.h"
#include "torus_ovtest.h"

static temu_session *S;
static int cidx;

/* Mode 0: a direction's packets, and the preset summing all six. */
static void test_mode0(void)
{
    static const char *const ev[] = {"BGP_TORUS_ZP_PACKETS", "PAPI_BGP_TS_32B",
                                     "BGP_TORUS_ZP_32BCHUNKS"};
    long long v[3];
    int es = tp_make_set(ev, 3);
    tp_log *l = tp_log_new(es);

    TP_RC(tp_overflow(es, ev[0], 10, 0), PAPI_OK);
    TP_RC(tp_overflow(es, ev[1], 100, 0), PAPI_OK);
    TP_RC(PAPI_start(es), PAPI_OK);
    tp_inject(S, 0, 1, 960, TEMU_KIND_P2P, 20);
    tp_inject_child(0, 1, 960, TEMU_KIND_P2P, 20, NULL);
    TP_RC(PAPI_stop(es, v), PAPI_OK);
    TP_EQ(v[1], 40 * 32, "40 messages of 32 chunks, all six directions");
    TP_EQ(v[2], v[1], "all of them on Z+");
    TP_EQ(l->hits[0], v[0] / 10, "packets: floor(value / 10)");
    TP_EQ(l->hits[1], 12, "PAPI_BGP_TS_32B: 1280 chunks, threshold 100");
    TP_EQ(l->hits[2], 0, "the counted event");
    tp_free_set(es);
}

/* Mode 2: acknowledgements of what node 1 sends. */
static void test_mode2(void)
{
    static const char *const ev[] = {"BGP_TORUS_ZP_ACKS", "BGP_TORUS_ZP_VCBN_32BCHUNKS"};
    long long v[2];
    int es = tp_make_set(ev, 2);
    tp_log *l = tp_log_new(es);

    TP_RC(tp_overflow(es, ev[0], 7, 0), PAPI_OK);
    TP_RC(PAPI_start(es), PAPI_OK);
    tp_inject_child(1, 0, 960, TEMU_KIND_P2P, 25, NULL);
    TP_RC(PAPI_stop(es, v), PAPI_OK);
    /* 25 eager messages of 960 B = 4 full packets each, node 1 -> 0 over one
     * Z hop: node 0 acknowledges each packet back over its Z+ link */
    TP_EQ(v[0], 100, "acks: 25 messages x 4 packets");
    TP_EQ(l->calls, v[0] / 7, "acks: floor(value / 7) from the other end's traffic");
    tp_free_set(es);
}

/* A client that reads and resets after every 960-byte message (TAU): 32
 * chunks on Z+, and the preset summing the six directions. */
static void one_message(void)
{
    tp_inject(S, 0, 1, 960, TEMU_KIND_P2P, 1);
}

static void test_read_reset(void)
{
    static const char *const ev[] = {"BGP_TORUS_ZP_32BCHUNKS", "PAPI_BGP_TS_32B"};
    static const long long thr[] = {100, 70}, per[] = {32, 32};
    tp_check_read_reset(ev, 2, thr, per, one_message, 25);
}

/* Node 0 sends 960 bytes to node 1 (eager: 4 packets, 32 chunks, over its
 * Z+ link), then node 1 sends 480 bytes back (2 packets, arriving through
 * node 0's Z+ link, which returns a token/ack packet and an ack for each). */
static void mpx_send(int kind)
{
    if (kind == 0) {
        tp_inject(S, 0, 1, 960, TEMU_KIND_P2P, 1);
    } else {
        tp_inject(S, 1, 0, 480, TEMU_KIND_P2P, 1);
    }
}

/* Modes 0 and 2 together: refused in one set, time-sliced in a multiplexed
 * one (exact estimates on the traffic clock, read as it goes and read and
 * reset after every message as TAU does); that set holds the node's UPC
 * unit alone. */
static void test_multiplex(void)
{
    static const char *const ev[] = {"BGP_TORUS_ZP_PACKETS", "BGP_TORUS_ZP_ACKS", "PAPI_BGP_TS_32B",
                                     "BGP_TORUS_ZP_TOKEN_ACK_PACKETS"};
    enum { N = 4, K = 2 };
    static const long long want[N * K] = {4, 0, 0, 2, 32, 0, 0, 2};
    static const int group[N] = {0, 1, 0, 1}; /* UPC mode 0, mode 2 */
    long long per[N * K], v[N];
    int es, other = PAPI_NULL, code;

    tp_per_kind(ev, N, mpx_send, K, per, want);
    es = tp_make_set(ev, 1);
    TP_RC(PAPI_add_named_event(es, ev[1]), PAPI_ECNFLCT);
    tp_free_set(es);

    es = tp_mpx_set(cidx, 2000000);
    for (int e = 0; e < N; e++) {
        TP_RC(PAPI_add_named_event(es, ev[e]), PAPI_OK);
    }
    TP_EQ(torus_node_value(temu_node_words(S, 0), TORUS_RES_BGP_UPC) & 0x100, 0x100,
          "node 0's UPC unit held as time-sliced");
    /* nobody else may count in either mode on the node meanwhile */
    TP_RC(PAPI_create_eventset(&other), PAPI_OK);
    TP_RC(PAPI_add_named_event(other, "BGP_TORUS_XP_PACKETS"), PAPI_ECNFLCT);
    TP_RC(PAPI_add_named_event(other, "BGP_TORUS_XP_ACKS"), PAPI_ECNFLCT);
    PAPI_event_name_to_code(ev[0], &code);
    TP_RC(PAPI_overflow(es, code, 10, 0, tp_handler), PAPI_ECNFLCT);
    {
        /* slices of 3 messages over a cycle of 2 kinds */
        tp_mpx x = {"multiplexed", ev, N, group, mpx_send, K, per, 3, 29, 0};
        tp_check_mpx(&x, es);
        x.label = "multiplexed, read and reset after every message";
        x.reset = 1;
        tp_check_mpx(&x, es);
    }
    tp_free_set(es);
    TP_RC(PAPI_add_named_event(other, "BGP_TORUS_XP_ACKS"), PAPI_OK); /* free again */
    tp_free_set(other);

    /* a multiplexed set of one mode is one group: exact, shares the mode */
    es = tp_mpx_set(cidx, 0);
    TP_RC(PAPI_add_named_event(es, ev[0]), PAPI_OK);
    TP_RC(PAPI_add_named_event(es, ev[2]), PAPI_OK);
    other = tp_make_set(&ev[2], 1);
    TP_RC(PAPI_start(es), PAPI_OK);
    tp_inject(S, 0, 1, 960, TEMU_KIND_P2P, 3);
    TP_RC(PAPI_stop(es, v), PAPI_OK);
    TP_EQ(v[1], 96, "one mode: exact chunks");
    tp_free_set(other);
    tp_free_set(es);
}

int main(int argc, char **argv)
{
    S = tp_begin(&argc, argv, "bgp:4x2x2,torus=000", 0);
    if (S == NULL) {
        return tp_finish();
    }
    TP_RC(PAPI_library_init(PAPI_VER_CURRENT), PAPI_VER_CURRENT);
    TP_RC(PAPI_multiplex_init(), PAPI_OK);
    cidx = tp_component("bgp_torus");
    if (cidx >= 0) {
        test_mode0();
        test_mode2();
        test_read_reset();
        test_multiplex();
    }
    TP_EQ(temu_watch_armed(S), 0, "every watch disarmed at the end");
    PAPI_shutdown();
    temu_session_close(S);
    return tp_finish();
}
