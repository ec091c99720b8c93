/*
 * gemini_tile_ovf.c - PAPI_overflow and multiplexing on gemini_tile
 * (doc/overflow-multiplex.md).
 *
 * Run by ctests/gemini_tile_ovf.sh with TORUSEMU_SESSION = a fresh
 * gemini:8x2x2 store and TORUSEMU_NODE=24, Gemini (3,0,0); once as is and
 * once with TORUSEMU_UNIT_COUNTERS=2 and the argument "mpx" (the emulator
 * setting that gives each unit only 2 counters, so that multiplexing is
 * needed where the hardware had no limit).
 *
 * Expected counts (gemini_tile_api.c): a random 1 MiB PUT from node 0
 * brings Gemini (3,0,0) 16384 request packets of 32 phits on its 8 X-
 * tiles (2048 per tile: 65536 phits on tile 0:4), 1572864 bytes in all,
 * and 49152 response phits on its host tiles.  An event with threshold T
 * overflows floor(value / T) times.
 */
#define _GNU_SOURCE /* dladdr */
#include "torus_ovtest.h"

#define MIB (1u << 20)

static temu_session *S;
static unsigned char *payload;
static int cidx;

static void put(int64_t src, int64_t dst, uint64_t bytes, int times)
{
    temu_message msg = {src, dst, bytes, payload, TEMU_KIND_PUT};
    temu_error err;
    for (int i = 0; i < times; i++) {
        TP_CHECK(temu_inject(S, &msg, &err) == TEMU_OK, "inject: %s", err.message);
    }
}

/* A tile event, a derived link event (3 bytes per phit: weight 3) and a
 * base event over all 48 tiles, with traffic from this process and from
 * another one. */
static void test_exact(void)
{
    static const char *const ev[] = {"GM_TILE_PERF_VC0_PHIT_CNT:0:4", "GM_LINK_BYTES:link=X-",
                                     "GM_TILE_PERF_VC0_PHIT_CNT", "GM_LINK_PACKETS:link=X-"};
    long long v[4];
    int es = tp_make_set(ev, 4);
    tp_log *l = tp_log_new(es);

    TP_RC(tp_overflow(es, ev[0], 1000, 0), PAPI_OK);
    TP_RC(tp_overflow(es, ev[1], 100000, 0), PAPI_OK);
    TP_RC(tp_overflow(es, ev[2], 100000, 0), PAPI_OK);
    TP_RC(PAPI_start(es), PAPI_OK);
    put(0, 24, MIB, 1);
    TP_EQ(l->hits[0], 65, "tile 0:4: 65536 phits, threshold 1000");
    TP_EQ(l->hits[1], 15, "X- link: 1572864 bytes, threshold 100000");
    TP_EQ(l->hits[2], 5, "all tiles: 524288 phits, threshold 100000");
    TP_EQ(l->hits[3], 0, "the counted event");
    TP_CHECK(strcmp(tp_object_of(l->addr), "?") != 0, "address %p lies in a loaded object",
             l->addr);
    tp_inject_child(0, 24, MIB, TEMU_KIND_PUT, 1, NULL);
    TP_RC(PAPI_stop(es, v), PAPI_OK);
    TP_EQ(v[0], 131072, "tile 0:4 after two PUTs");
    TP_EQ(v[1], 3145728, "X- bytes after two PUTs");
    TP_EQ(l->hits[0], v[0] / 1000, "tile: floor(value / threshold)");
    TP_EQ(l->hits[1], v[1] / 100000, "link bytes: floor(value / threshold)");
    TP_EQ(l->hits[2], v[2] / 100000, "all tiles: floor(value / threshold)");
    TP_EQ(l->bad_vectors, 0, "every vector decodes");
    tp_free_set(es);
}

/* The GPCD alias names the same counter; GM_LINK_PHITS without :link sums
 * both phit counters of all 48 tiles (96 counters in one watch). */
static void test_alias(void)
{
    static const char *const ev[] = {"GM_0_4_TILE_PERFORMANCE_COUNTERS_0", "GM_LINK_PHITS"};
    long long v[2];
    int es = tp_make_set(ev, 2);
    tp_log *l = tp_log_new(es);
    TP_RC(tp_overflow(es, ev[0], 4096, 0), PAPI_OK);
    TP_RC(tp_overflow(es, ev[1], 10000, 0), PAPI_OK);
    TP_RC(PAPI_start(es), PAPI_OK);
    put(0, 24, MIB, 1);
    TP_RC(PAPI_stop(es, v), PAPI_OK);
    TP_EQ(l->hits[0], 16, "alias: 65536 phits, threshold 4096");
    TP_EQ(v[1], 524288 + 49152, "all tiles, both channels");
    TP_EQ(l->hits[1], v[1] / 10000, "GM_LINK_PHITS: floor(value / 10000)");
    tp_free_set(es);
}

/* A client that reads and resets after every 64 KiB PUT (TAU): 4096 phits
 * on tile 0:4 and 98304 bytes over the X- link (derived, weight 3). */
static void one_put(void)
{
    put(0, 24, 65536, 1);
}

static void test_read_reset(void)
{
    static const char *const ev[] = {"GM_TILE_PERF_VC0_PHIT_CNT:0:4", "GM_LINK_BYTES:link=X-"};
    static const long long thr[] = {10000, 250000}, per[] = {4096, 98304};
    tp_check_read_reset(ev, 2, thr, per, one_put, 20);
}

/* ------------------------------------------------ TORUSEMU_UNIT_COUNTERS=2 */

/* PUTs from node 0 to this node, 64 KiB then 16 KiB: per KiB 64 request
 * phits on tile 0:4, 1536 bytes and 16 packets over the X- link, 48 response
 * phits on the host tiles; this node issues no request (ORB). */
static void mpx_send(int kind)
{
    put(0, 24, kind == 0 ? 65536 : 16384, 1);
}

static void test_unit_counters(void)
{
    static const char *const ev[] = {"GM_TILE_PERF_VC0_PHIT_CNT:0:4", "GM_LINK_BYTES:link=X-",
                                     "GM_LINK_PACKETS:link=X-", "GM_LINK_PHITS:link=HH",
                                     "GM_ORB_PERF_VC0_PKTS"};
    enum { N = 5, K = 2 };
    static const long long want[N * K] = {4096, 1024, 98304, 24576, 1024, 256, 3072, 768, 0, 0};
    static const int group[N] = {0, 0, 1, 1, 2}; /* two counters per group */
    const PAPI_component_info_t *ci = PAPI_get_component_info(cidx);
    long long per[N * K], v[N];
    int es, code;

    TP_EQ(ci->num_cntrs, 2, "num_cntrs with TORUSEMU_UNIT_COUNTERS=2");
    /* plain set: the third event is refused */
    es = tp_make_set(ev, 2);
    TP_RC(PAPI_add_named_event(es, ev[2]), PAPI_ECNFLCT);
    tp_free_set(es);
    tp_per_kind(ev, N, mpx_send, K, per, want);
    /* multiplexed: 3 groups of at most 2 */
    es = tp_mpx_set(cidx, 2000000);
    for (int e = 0; e < N; e++) {
        TP_RC(PAPI_add_named_event(es, ev[e]), PAPI_OK);
    }
    PAPI_event_name_to_code(ev[0], &code);
    TP_RC(PAPI_overflow(es, code, 1000, 0, tp_handler), PAPI_ECNFLCT);
    {
        tp_mpx x = {"multiplexed (2 counters)", ev, N, group, mpx_send, K, per, 3, 31, 0};
        tp_check_mpx(&x, es);
    }
    tp_free_set(es);
    /* two events fit: one group, exact, may overflow */
    es = tp_mpx_set(cidx, 0);
    TP_RC(PAPI_add_named_event(es, ev[0]), PAPI_OK);
    TP_RC(PAPI_add_named_event(es, ev[1]), PAPI_OK);
    {
        tp_log *l = tp_log_new(es);
        TP_RC(tp_overflow(es, ev[0], 1000, 0), PAPI_OK);
        TP_RC(PAPI_add_named_event(es, ev[2]), PAPI_ECNFLCT); /* would time-slice */
        TP_RC(PAPI_start(es), PAPI_OK);
        put(0, 24, MIB, 1);
        TP_RC(PAPI_stop(es, v), PAPI_OK);
        TP_EQ(v[0], 65536, "one group: exact");
        TP_EQ(l->calls, 65, "one group: overflow");
    }
    tp_free_set(es);
}

int main(int argc, char **argv)
{
    S = tp_begin(&argc, argv, "gemini:8x2x2", 24);
    if (S == NULL) {
        return tp_finish();
    }
    payload = malloc(MIB);
    srand(7);
    for (unsigned i = 0; i < MIB; i++) {
        payload[i] = (unsigned char)(rand() & 0xff);
    }
    TP_RC(PAPI_library_init(PAPI_VER_CURRENT), PAPI_VER_CURRENT);
    TP_RC(PAPI_multiplex_init(), PAPI_OK);
    cidx = tp_component("gemini_tile");
    if (cidx >= 0 && argc > 1 && strcmp(argv[1], "mpx") == 0) {
        test_unit_counters();
    } else if (cidx >= 0) {
        test_exact();
        test_alias();
        test_read_reset();
    }
    TP_EQ(temu_watch_armed(S), 0, "every watch disarmed at the end");
    PAPI_shutdown();
    temu_session_close(S);
    free(payload);
    return tp_finish();
}
