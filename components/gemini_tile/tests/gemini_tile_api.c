/*
 * gemini_tile_api.c - the gemini_tile component through the PAPI API:
 * enumeration, names, event info, bad input, and exact counts after traffic
 * injected through the emulator API, with several event sets, stop, reset,
 * accum, threads and an identity change (what the MPI layer does at
 * MPI_Init).
 *
 * Run by ctests/gemini_tile_api.sh with TORUSEMU_SESSION = a fresh
 * gemini:8x2x2 store and TORUSEMU_NODE=24, the first node of Gemini (3,0,0).
 *
 * Expected counts (doc/model.md, tests/test_inject.c): a 1 MiB PUT of random
 * bytes from node 0 to node 24 is 16384 transactions of 32 request phits
 * (VC0) and 3 response phits (VC1); the slot base (0 + 24) mod 8 = 0 spreads
 * them evenly, 2048 per tile, over the 8 tiles of every link: requests
 * arrive on the X- tiles of Geminis 1..3, responses on the X+ tiles of
 * Geminis 2..0, and the host tiles count what each end injects.
 */
#include <pthread.h>
#include <stdlib.h>

#include "torus_ptest.h"
#include "torusemu.h"

#define MIB (1u << 20)

static temu_session *S;
static const temu_machine *M;
static unsigned char *payload;

static void put(int64_t src, int64_t dst, uint64_t bytes)
{
    temu_message msg = {src, dst, bytes, payload, TEMU_KIND_PUT};
    temu_error err;
    TP_CHECK(temu_inject(S, &msg, &err) == TEMU_OK, "inject: %s", err.message);
}

/* Event set of the named events; -1 after a failed check. */
static int make_set(const char *const *names, int n)
{
    int es = PAPI_NULL;
    if (PAPI_create_eventset(&es) != PAPI_OK) {
        TP_CHECK(0, "PAPI_create_eventset");
        return -1;
    }
    for (int i = 0; i < n; i++) {
        int rc = PAPI_add_named_event(es, names[i]);
        TP_CHECK(rc == PAPI_OK, "add %s: %s", names[i], PAPI_strerror(rc));
    }
    return es;
}

static void expect(const char *label, const char *const *names, const long long *got,
                   const long long *want, int n)
{
    for (int i = 0; i < n; i++) {
        char what[256];
        snprintf(what, sizeof what, "%s: %s", label, names[i]);
        TP_EQ(got[i], want[i], what);
    }
}

static void free_set(int es)
{
    PAPI_cleanup_eventset(es);
    PAPI_destroy_eventset(&es);
}

/* ------------------------------------------------------------------ */

static void test_info(int cidx)
{
    const PAPI_component_info_t *ci = PAPI_get_component_info(cidx);
    TP_CHECK(ci->disabled == 0, "gemini_tile disabled: %s", ci->disabled_reason);
    TP_CHECK(strcmp(ci->name, ci->short_name) == 0, "name %s != short_name %s", ci->name,
             ci->short_name);
    TP_EQ(ci->num_native_events, 29, "num_native_events (20 base + 9 link events)");
    TP_CHECK(ci->num_cntrs >= 6 && ci->num_cntrs <= ci->num_mpx_cntrs, "num_cntrs %d mpx %d",
             ci->num_cntrs, ci->num_mpx_cntrs);
    TP_EQ(ci->kernel_multiplex, 1, "kernel_multiplex: the component multiplexes");
    TP_EQ(ci->hardware_intr, 1, "hardware_intr: overflow from the emulator's watches");
}

/* name -> code -> name gives the name back */
static void round_trip(int code)
{
    char name[PAPI_HUGE_STR_LEN], again[PAPI_HUGE_STR_LEN];
    int code2 = 0;
    TP_RC(PAPI_event_code_to_name(code, name), PAPI_OK);
    TP_RC(PAPI_event_name_to_code(name, &code2), PAPI_OK);
    TP_RC(PAPI_event_code_to_name(code2, again), PAPI_OK);
    TP_CHECK(strcmp(name, again) == 0, "round trip %s -> %s", name, again);
}

static void test_enumeration(int cidx)
{
    int code = PAPI_NATIVE_MASK, nbase = 0, numasks = 0, tile_umasks = -1, link_umasks = -1;
    PAPI_event_info_t info;

    TP_RC(PAPI_enum_cmp_event(&code, PAPI_ENUM_FIRST, cidx), PAPI_OK);
    do {
        int k = code, n = 0;
        nbase++;
        TP_RC(PAPI_get_event_info(code, &info), PAPI_OK);
        TP_CHECK(strncmp(info.symbol, "gemini_tile:::GM_", 17) == 0, "symbol %s", info.symbol);
        TP_CHECK(strlen(info.long_descr) > 20, "%s: no description", info.symbol);
        TP_CHECK(info.units[0] != '\0', "%s: no units", info.symbol);
        TP_EQ(info.component_index, cidx, info.symbol);
        round_trip(code);
        if (PAPI_enum_cmp_event(&k, PAPI_NTV_ENUM_UMASKS, cidx) == PAPI_OK) {
            do {
                n++;
                round_trip(k);
                TP_RC(PAPI_get_event_info(k, &info), PAPI_OK);
                TP_CHECK(strstr(info.long_descr, "masks:") != NULL, "%s: no masks: text",
                         info.symbol);
            } while (PAPI_enum_cmp_event(&k, PAPI_NTV_ENUM_UMASKS, cidx) == PAPI_OK);
        }
        numasks += n;
        if (strcmp(info.symbol, "gemini_tile:::GM_TILE_PERF_VC0_PHIT_CNT:5:7") == 0) {
            tile_umasks = n;
        }
        if (strcmp(info.symbol, "gemini_tile:::GM_LINK_PHITS:link=HH") == 0) {
            link_umasks = n;
        }
    } while (PAPI_enum_cmp_event(&code, PAPI_ENUM_EVENTS, cidx) == PAPI_OK);
    TP_EQ(nbase, 29, "base events enumerated");
    TP_EQ(tile_umasks, 48, "GM_TILE_PERF_VC0_PHIT_CNT qualifiers :n:m, last :5:7");
    TP_EQ(link_umasks, 7, "GM_LINK_PHITS qualifiers, last :link=HH");
    TP_EQ(numasks, 6 * 48 + 9 * 7, "qualified forms enumerated");
}

static void test_names(void)
{
    static const char *const bad[] = {
        "GM_TILE_PERF_VC0_PHIT_CNT:6:0",
        "GM_TILE_PERF_VC0_PHIT_CNT:0",
        "GM_TILE_PERF_VC0_PHIT_CNT:0:8",
        "GM_TILE_PERF_VC0_PHIT_CNT:0:4:1",
        "GM_TILE_PERF_VC0_PHIT_CNT:link=X+",
        "GM_TILE_PERF_VC0_PHIT_CNT::",
        "GM_TILE_PERF_VC0_PHIT_CNT:a:b",
        "GM_TILE_PERF_VC0_PHIT_CNT:-1:0",
        "GM_LINK_PHITS:link=Q+",
        "GM_LINK_PHITS:X+",
        "GM_LINK_PHITS:link=",
        "GM_LINK_PHITS:link=X+:link=X-",
        "GM_NOPE",
        "GM_9_0_TILE_PERFORMANCE_COUNTERS_0",
        "GM_0_0_TILE_PERFORMANCE_COUNTERS_6",
        "GM_0_0_TILE_PERFORMANCE_COUNTERS_0x",
        "",
        "GM_LINK_BYTES:link=X+:n=1",
    };
    char longname[2048];
    int code, code2;
    char name[PAPI_HUGE_STR_LEN];

    /* Bare names are offered to every component and PAPI returns the last
     * one's answer; with the prefix only gemini_tile answers. */
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char prefixed[256];
        int rc = PAPI_event_name_to_code(bad[i], &code);
        TP_CHECK(rc != PAPI_OK, "%s resolved", bad[i]);
        snprintf(prefixed, sizeof prefixed, "gemini_tile:::%s", bad[i]);
        rc = PAPI_event_name_to_code(prefixed, &code);
        TP_CHECK(rc == PAPI_ENOEVNT || rc == PAPI_EINVAL, "%s: rc %d", prefixed, rc);
    }
    memset(longname, 'A', sizeof longname - 1);
    longname[sizeof longname - 1] = '\0';
    TP_CHECK(PAPI_event_name_to_code(longname, &code) != PAPI_OK, "2 KB name resolved");
    memcpy(longname, "GM_LINK_PHITS:link=", 19);
    TP_CHECK(PAPI_event_name_to_code(longname, &code) != PAPI_OK, "2 KB qualifier resolved");

    /* both spellings, any case of the qualifier value */
    TP_RC(PAPI_event_name_to_code("gemini_tile:::GM_LINK_PHITS:link=x-", &code), PAPI_OK);
    TP_RC(PAPI_event_code_to_name(code, name), PAPI_OK);
    TP_CHECK(strcmp(name, "gemini_tile:::GM_LINK_PHITS:link=X-") == 0, "canonical %s", name);
    TP_RC(PAPI_event_name_to_code("GM_LINK_PHITS:link=X-", &code2), PAPI_OK);
    TP_RC(PAPI_event_name_to_code("GM_0_4_TILE_PERFORMANCE_COUNTERS_0", &code), PAPI_OK);
    TP_RC(PAPI_event_code_to_name(code, name), PAPI_OK);
    TP_CHECK(strstr(name, "GM_") != NULL, "alias name %s", name);
}

static const char *const set1[] = {
    "GM_TILE_PERF_VC0_PHIT_CNT:0:4",
    "GM_TILE_PERF_VC0_PKT_CNT:0:4",
    "GM_0_4_TILE_PERFORMANCE_COUNTERS_0",
    "gemini_tile:::GM_LINK_PHITS:link=X-",
    "GM_LINK_BYTES:link=X-",
    "GM_LINK_PACKETS:link=X-",
    "GM_LINK_PHITS:link=HH",
    "GM_LINK_PHITS:link=X+",
    "GM_TILE_PERF_VC0_PHIT_CNT",
    "GM_TILE_PERF_INQ_STALL:0:4",
    "GM_LINK_CREDIT_STALL:link=X-",
    "GM_TILE_PERF_VC1_PHIT_CNT:0:4",
};
/* at Gemini (3,0,0) after one random 1 MiB PUT from node 0 */
static const long long want1[] = {65536, 2048, 65536,  524288, 1572864, 16384,
                                  49152, 0,    524288, 0,      0,       0};
#define N1 ((int)(sizeof set1 / sizeof set1[0]))

static const char *const set2[] = {
    "GM_RAT_PERF_DATA_FLITS_VC0",
    "GM_RAT_PERF_HEADER_FLITS_VC0",
    "GM_NPT_PERF_NPT_PKT_CNTR",
    "GM_ORB_PERF_VC0_PKTS",
};
/* the NIC of node 24: 16384 PUTs of 64 bytes = 4 data flits each */
static const long long want2[] = {65536, 16384, 16384, 0};
#define N2 ((int)(sizeof set2 / sizeof set2[0]))

/* Several event sets of one component may exist in a thread, but PAPI runs
 * only one of them at a time (PAPI_EISRUN); concurrent sets run in
 * different threads (test_threads). */
static void test_counts(void)
{
    long long v1[N1], v2[N2], zero[N1] = {0}, acc[N2] = {0};
    int es1 = make_set(set1, N1), es2 = make_set(set2, N2);

    TP_RC(PAPI_start(es1), PAPI_OK);
    TP_RC(PAPI_start(es2), PAPI_EISRUN);
    TP_RC(PAPI_read(es1, v1), PAPI_OK);
    expect("before traffic", set1, v1, zero, N1);
    put(0, 24, MIB);
    TP_RC(PAPI_read(es1, v1), PAPI_OK);
    expect("1 MiB PUT", set1, v1, want1, N1);

    /* stop freezes the values: traffic after stop is not counted */
    TP_RC(PAPI_stop(es1, v1), PAPI_OK);
    expect("stop", set1, v1, want1, N1);
    put(0, 24, MIB);
    TP_RC(PAPI_read(es1, v1), PAPI_OK);
    expect("read after stop", set1, v1, want1, N1);

    /* the second set counts from its own start */
    TP_RC(PAPI_start(es2), PAPI_OK);
    put(0, 24, MIB);
    TP_RC(PAPI_read(es2, v2), PAPI_OK);
    expect("1 MiB PUT, NIC", set2, v2, want2, N2);
    put(0, 24, MIB);
    TP_RC(PAPI_read(es2, v2), PAPI_OK);
    TP_EQ(v2[0], 2 * 65536, "two PUTs");

    /* reset zeroes; accum adds and zeroes */
    TP_RC(PAPI_reset(es2), PAPI_OK);
    TP_RC(PAPI_read(es2, v2), PAPI_OK);
    TP_EQ(v2[0] + v2[1] + v2[2] + v2[3], 0, "after reset");
    put(0, 24, 64); /* one transaction: 4 data flits + 1 header */
    TP_RC(PAPI_accum(es2, acc), PAPI_OK);
    TP_EQ(acc[0], 4, "accum data flits of a 64-byte PUT");
    TP_EQ(acc[1], 1, "accum header flits");
    TP_EQ(acc[2], 1, "accum response packets");
    TP_RC(PAPI_read(es2, v2), PAPI_OK);
    TP_EQ(v2[0], 0, "read after accum");
    put(0, 24, 64);
    TP_RC(PAPI_accum(es2, acc), PAPI_OK);
    TP_EQ(acc[0], 8, "accum adds to the array");
    TP_RC(PAPI_stop(es2, v2), PAPI_OK);

    /* a restarted set counts from zero again */
    TP_RC(PAPI_start(es1), PAPI_OK);
    put(0, 24, MIB);
    TP_RC(PAPI_stop(es1, v1), PAPI_OK);
    expect("restart", set1, v1, want1, N1);
    free_set(es1);
    free_set(es2);
}

/* ------------------------------------------------------------ threads */

static pthread_barrier_t barrier;

static void *reader(void *arg)
{
    static const char *const ev[] = {"GM_LINK_PHITS:link=X-"};
    long long v = -1;
    int es = make_set(ev, 1);
    (void)arg;
    TP_RC(PAPI_start(es), PAPI_OK);
    pthread_barrier_wait(&barrier); /* started */
    pthread_barrier_wait(&barrier); /* traffic injected */
    TP_RC(PAPI_stop(es, &v), PAPI_OK);
    TP_EQ(v, 524288, "thread's event set");
    free_set(es);
    PAPI_unregister_thread();
    return NULL;
}

static unsigned long self_id(void)
{
    return (unsigned long)pthread_self();
}

static void test_threads(void)
{
    pthread_t t[2];
    TP_RC(PAPI_thread_init(self_id), PAPI_OK);
    pthread_barrier_init(&barrier, NULL, 3);
    for (int i = 0; i < 2; i++) {
        pthread_create(&t[i], NULL, reader, NULL);
    }
    pthread_barrier_wait(&barrier);
    put(0, 24, MIB);
    pthread_barrier_wait(&barrier);
    for (int i = 0; i < 2; i++) {
        pthread_join(t[i], NULL);
    }
    pthread_barrier_destroy(&barrier);
}

/* 64 events fit in one set, the 65th is refused with an error */
static void test_limits(void)
{
    char name[128];
    int es = PAPI_NULL, ok = 0, rc = PAPI_OK;
    TP_RC(PAPI_create_eventset(&es), PAPI_OK);
    for (int i = 0; i < 64; i++) {
        snprintf(name, sizeof name, "GM_TILE_PERF_VC%d_PHIT_CNT:%d:%d", i / 48, i % 48 / 8, i % 8);
        ok += PAPI_add_named_event(es, name) == PAPI_OK;
    }
    TP_EQ(ok, 64, "64 tile events in one set");
    rc = PAPI_add_named_event(es, "GM_ORB_PERF_VC0_PKTS");
    TP_CHECK(rc != PAPI_OK, "65th event accepted");
    TP_RC(PAPI_start(es), PAPI_OK);
    TP_RC(PAPI_stop(es, NULL), PAPI_OK);
    free_set(es);
}

/* The MPI layer calls temu_identity_set at MPI_Init: sets started after it
 * count the new node's Gemini (here node 0, Gemini (0,0,0)).  1 MiB is
 * at or above the BTE threshold (512 KiB),  so the requests go by the BTE. */
static void test_identity(void)
{
    static const char *const ev[] = {"GM_LINK_PHITS:link=HH", "GM_LINK_PHITS:link=X+",
                                     "GM_ORB_PERF_VC0_PKTS", "GM_TARB_PERF_OUT_PKTS",
                                     "GM_TARB_PERF_BTE_PKTS"};
    static const long long want[] = {524288, 49152, 16384, 16384, 16384};
    long long v[5];
    int es = make_set(ev, 5);
    temu_identity_set(M, 0, 0, 0);
    TP_RC(PAPI_start(es), PAPI_OK);
    put(0, 24, MIB);
    TP_RC(PAPI_stop(es, v), PAPI_OK);
    expect("node 0 after MPI_Init-style identity", ev, v, want, 5);
    free_set(es);
}

int main(int argc, char **argv)
{
    int cidx;
    uint64_t x = 7;

    S = tp_begin(&argc, argv, "gemini:8x2x2", 24);
    if (S == NULL) {
        return tp_finish();
    }
    M = temu_session_machine(S);
    payload = malloc(MIB);
    for (unsigned i = 0; i < MIB; i++) {
        x = x * 6364136223846793005ull + 1;
        payload[i] = (unsigned char)(x >> 56);
    }
    TP_RC(PAPI_library_init(PAPI_VER_CURRENT), PAPI_VER_CURRENT);
    cidx = tp_component("gemini_tile");
    if (cidx >= 0) {
        test_info(cidx);
        test_enumeration(cidx);
        test_names();
        test_counts();
        test_threads();
        test_limits();
        test_identity();
    }
    PAPI_shutdown();
    free(payload);
    temu_session_close(S);
    return tp_finish();
}
