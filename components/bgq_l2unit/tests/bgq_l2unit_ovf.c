/*
 * bgq_l2unit_ovf.c - PAPI_overflow and multiplexing on bgq_l2unit
 * (doc/overflow-multiplex.md): "slow" overflow, node-wide thresholds,
 * combined and sliced events time-sliced.
 *
 * Run by ctests/bgq_l2unit_ovf.sh with TORUSEMU_SESSION = a fresh BG/Q
 * midplane store and TORUSEMU_NODE=256, node (2,0,0,0,0): 4096 bytes from
 * node 0 are 32 L2 hits there, 2 on every slice (bgq_l2unit_api.c).  Run
 * twice: as is (the modelled detection delay, 500 ns), and with the
 * argument "slow" and TORUSEMU_SLOW_OVERFLOW_NS=30000000, a delay long
 * enough to measure.
 *
 * Slow overflow (McCraw 2013 section 3.1): the counters keep running after
 * the crossing and the interrupt comes up to 800 cycles later.  Here the
 * signal leaves once the whole message has landed and the delay has
 * passed since the crossing: a handler reading the counter sees the
 * complete message, and never runs before the delay.
 */
#define _GNU_SOURCE /* dladdr */
#include "torus_node.h"
#include "torus_ovtest.h"

#define SLOW_NS 30000000ull /* TORUSEMU_SLOW_OVERFLOW_NS of the "slow" run */

static temu_session *S;
static const temu_machine *M;
static int64_t N0, N2;
static int cidx;

static int64_t node_at(int a)
{
    int32_t c[5] = {a, 0, 0, 0, 0};
    return temu_router_index(M, c);
}

/* The node-wide threshold of combined counter `counter` on node 2, 0 if
 * none (torus_node.h keyed resources; bgq_l2unit.c keys 0x100 + counter). */
static uint64_t node_threshold(int counter)
{
    const uint64_t *w = temu_node_words(S, N2);
    for (int r = TORUS_RES_KEYED; r < TORUS_RES_KEYED + TORUS_RES_KEYED_N; r++) {
        uint64_t v = torus_node_value(w, r);
        if (torus_node_holders(w, r) != 0 && (v >> TORUS_KEY_SHIFT) == 0x100u + (unsigned)counter) {
            return v & TORUS_KEY_VALUE_MASK;
        }
    }
    return 0;
}

/* Exact crossings on combined, derived and sliced events; the handler sees
 * the whole message (the counters ran on until the signal left). */
static void test_exact(void)
{
    static const char *const ev[] = {"PEVT_L2_HITS", "L2_REQUESTS", "PEVT_L2_MISSES"};
    long long v[3];
    int es = tp_make_set(ev, 3);
    tp_log *l = tp_log_new(es);

    l->read_events = 3;
    TP_RC(tp_overflow(es, ev[0], 10, 0), PAPI_OK);
    TP_RC(tp_overflow(es, ev[1], 25, 0), PAPI_OK);
    TP_RC(tp_overflow(es, ev[2], 5, 0), PAPI_OK); /* not modelled: never overflows */
    TP_RC(PAPI_start(es), PAPI_OK);
    tp_inject(S, N0, N2, 4096, TEMU_KIND_P2P, 1);
    TP_EQ(l->hits[0], 3, "32 hits, threshold 10: 3 crossings in one message");
    TP_EQ(l->in_handler[0], 32, "in the handler the counter already shows the whole message");
    tp_inject(S, N0, N2, 4096, TEMU_KIND_P2P, 9);
    tp_inject_child(N0, N2, 4096, TEMU_KIND_P2P, 10, NULL);
    TP_RC(PAPI_stop(es, v), PAPI_OK);
    TP_EQ(v[0], 640, "20 messages: 640 hits");
    TP_EQ(l->hits[0], 64, "hits: floor(640 / 10)");
    TP_EQ(l->hits[1], 25, "L2_REQUESTS (derived): floor(640 / 25)");
    TP_EQ(l->hits[2], 0, "misses are not modelled");
    TP_EQ(l->bad_vectors, 0, "every vector decodes");
    tp_free_set(es);

    /* sliced events (BGPM allowed overflow on combined events only; the
     * emulator lets them overflow too, with thresholds of their own) */
    {
        static const char *const sl[] = {"PEVT_L2_HITS_SLICE:slice=3", "PEVT_L2_HITS_SLICE"};
        es = tp_make_set(sl, 2);
        l = tp_log_new(es);
        TP_RC(tp_overflow(es, sl[0], 4, 0), PAPI_OK);
        TP_RC(tp_overflow(es, sl[1], 100, 0), PAPI_OK);
        TP_RC(PAPI_start(es), PAPI_OK);
        tp_inject_child(N0, N2, 4096, TEMU_KIND_P2P, 10, NULL);
        TP_RC(PAPI_stop(es, v), PAPI_OK);
        TP_EQ(v[0], 20, "slice 3: 2 hits a message");
        TP_EQ(l->hits[0], 5, "slice 3: floor(20 / 4)");
        TP_EQ(l->hits[1], 3, "all slices: floor(320 / 100)");
        tp_free_set(es);
    }
}

/* A client that reads and resets after every 4096-byte message (TAU):
 * 32 hits, combined and on the derived L2_REQUESTS; slow overflow. */
static void one_message(void)
{
    tp_inject(S, N0, N2, 4096, TEMU_KIND_P2P, 1);
}

static void test_read_reset(void)
{
    static const char *const ev[] = {"PEVT_L2_HITS", "L2_REQUESTS"};
    static const long long thr[] = {50, 45}, per[] = {32, 32};
    tp_check_read_reset(ev, 2, thr, per, one_message, 25);
}

/* One threshold per combined counter for the whole node. */
static void test_node_thresholds(void)
{
    static const char *const ev[] = {"PEVT_L2_HITS", "PEVT_L2_STORE_LINE"};
    int a = tp_make_set(ev, 2), b = tp_make_set(ev, 1), c = tp_make_set(ev, 1), code;

    PAPI_event_name_to_code(ev[0], &code);
    TP_RC(tp_overflow(a, ev[0], 100, 0), PAPI_OK);
    TP_EQ(node_threshold(0), 100, "node 2's PEVT_L2_HITS threshold");
    TP_RC(tp_overflow(b, ev[0], 200, 0), PAPI_ECNFLCT); /* BGPM_ETHRES_MISMATCH */
    TP_RC(tp_overflow(b, ev[0], 100, 0), PAPI_OK);      /* the same: shared */
    TP_RC(tp_overflow(a, ev[1], 7, 0), PAPI_OK);        /* another counter */
    TP_RC(tp_overflow(a, ev[0], 150, 0), PAPI_ECNFLCT); /* b holds 100 too */
    TP_RC(PAPI_overflow(a, code, 0, 0, tp_handler), PAPI_OK);
    TP_RC(tp_overflow(c, ev[0], 200, 0), PAPI_ECNFLCT); /* b still holds it */
    tp_free_set(b);
    TP_EQ(node_threshold(0), 0, "free once no set overflows on it");
    TP_RC(tp_overflow(c, ev[0], 200, 0), PAPI_OK);
    TP_EQ(node_threshold(0), 200, "the new threshold");
    /* a refused request left the set as it was: it counts and overflows */
    {
        tp_log *l = tp_log_new(c);
        long long v[1];
        TP_RC(PAPI_add_named_event(c, "PEVT_L2_MISSES"), PAPI_OK);
        TP_RC(PAPI_start(c), PAPI_OK);
        tp_inject(S, N0, N2, 4096, TEMU_KIND_P2P, 13);
        TP_RC(PAPI_stop(c, v), PAPI_OK);
        TP_EQ(v[0], 416, "13 messages");
        TP_EQ(l->calls, 2, "floor(416 / 200)");
    }
    tp_free_set(a);
    tp_free_set(c);
    TP_EQ(node_threshold(0), 0, "every threshold given back");
}

/* TORUSEMU_SLOW_OVERFLOW_NS=30 ms: the signal leaves 30 ms after the
 * crossing, whichever process injects. */
static void test_slow(void)
{
    static const char *const ev[] = {"PEVT_L2_HITS"};
    int es = tp_make_set(ev, 1);
    tp_log *l = tp_log_new(es);
    uint64_t t0, t1;

    l->read_events = 1;
    TP_RC(tp_overflow(es, ev[0], 10, 0), PAPI_OK);
    TP_RC(PAPI_start(es), PAPI_OK);
    tp_inject_child(N0, N2, 4096, TEMU_KIND_P2P, 1, &t0);
    TP_EQ(l->hits[0], 3, "3 crossings (another process)");
    TP_CHECK(l->entry_ns >= t0 + SLOW_NS, "handler %.3f ms after the injection began (delay 30 ms)",
             (double)(l->entry_ns - t0) / 1e6);
    TP_EQ(l->in_handler[0], 32, "the counter ran on to the end of the message");
    t0 = tp_now_ns();
    tp_inject(S, N0, N2, 4096, TEMU_KIND_P2P, 1);
    t1 = tp_now_ns();
    TP_EQ(l->hits[0], 6, "3 more (this process)");
    TP_CHECK(l->entry_ns >= t0 + SLOW_NS && t1 >= t0 + SLOW_NS,
             "the injecting thread waited for the delay: %.3f ms", (double)(t1 - t0) / 1e6);
    TP_RC(PAPI_stop(es, NULL), PAPI_OK);
    tp_free_set(es);
}

/* 4096 then 1024 bytes from node 0 to node 2: 32 and 8 L2 hits there,
 * spread evenly over the 16 slices (2 and 0.5 a slice: the 1024-byte
 * message's 8 hits fall on slices 0 to 7). */
static void mpx_send(int kind)
{
    tp_inject(S, N0, N2, kind == 0 ? 4096 : 1024, TEMU_KIND_P2P, 1);
}

/* Combined and sliced events: time-sliced in a multiplexed set (exact
 * estimates on the traffic clock), which holds the node's L2 mode alone. */
static void test_multiplex(void)
{
    static const char *const ev[] = {"PEVT_L2_HITS", "PEVT_L2_HITS_SLICE:slice=5", "L2_REQUESTS",
                                     "PEVT_L2_HITS_SLICE"};
    enum { N = 4, K = 2 };
    static const long long want[N * K] = {32, 8, 2, 1, 32, 8, 32, 8};
    static const int group[N] = {0, 1, 0, 1}; /* combined, sliced */
    long long per[N * K];
    int es, other = PAPI_NULL;

    tp_per_kind(ev, N, mpx_send, K, per, want);
    es = tp_make_set(ev, 1);
    TP_RC(PAPI_add_named_event(es, ev[1]), PAPI_ECNFLCT);
    tp_free_set(es);

    es = tp_mpx_set(cidx, 2000000);
    for (int e = 0; e < N; e++) {
        TP_RC(PAPI_add_named_event(es, ev[e]), PAPI_OK);
    }
    TP_RC(PAPI_create_eventset(&other), PAPI_OK);
    TP_RC(PAPI_add_named_event(other, "PEVT_L2_MISSES"), PAPI_ECNFLCT);
    TP_RC(PAPI_add_named_event(other, "PEVT_L2_MISSES_SLICE"), PAPI_ECNFLCT);
    {
        tp_mpx x = {"multiplexed", ev, N, group, mpx_send, K, per, 3, 31, 0};
        tp_check_mpx(&x, es);
    }
    tp_free_set(es);
    TP_RC(PAPI_add_named_event(other, "PEVT_L2_MISSES_SLICE"), PAPI_OK);
    tp_free_set(other);
}

int main(int argc, char **argv)
{
    S = tp_begin(&argc, argv, "bgq:4x4x4x4x2", 256);
    if (S == NULL) {
        return tp_finish();
    }
    M = temu_session_machine(S);
    N0 = node_at(0);
    N2 = node_at(2);
    TP_RC(PAPI_library_init(PAPI_VER_CURRENT), PAPI_VER_CURRENT);
    TP_RC(PAPI_multiplex_init(), PAPI_OK);
    cidx = tp_component("bgq_l2unit");
    if (cidx >= 0 && argc > 1 && strcmp(argv[1], "slow") == 0) {
        test_slow();
    } else if (cidx >= 0) {
        test_exact();
        test_read_reset();
        test_node_thresholds();
        test_multiplex();
    }
    TP_EQ(temu_watch_armed(S), 0, "every watch disarmed at the end");
    PAPI_shutdown();
    temu_session_close(S);
    return tp_finish();
}
