/*
 * bgq_l2unit_api.c - the bgq_l2unit component through the PAPI API:
 * enumeration and names, the combined / sliced rule (in one set, between
 * sets, in the node's shared words), exact per-slice counts after traffic
 * injected through the emulator API, sums over slices, reset.
 *
 * Run by ctests/bgq_l2unit_api.sh with TORUSEMU_SESSION = a fresh BG/Q
 * midplane store and TORUSEMU_NODE=256, node (2,0,0,0,0).
 *
 * Expected counts (doc/model.md "L2"; tests/test_plan.c): the message unit
 * touches every 128-byte line of a message at both ends, one L2 hit per
 * line on slice (address / 128) mod 16.  The receiver's lines start at
 * slice 0: 4096 bytes from node 0 are 32 lines, 2 hits on every slice of
 * node 2; 1000 bytes are 8 lines, slices 0..7.  The sender's lines follow
 * its buffer: 1000 bytes starting 64 bytes into line 5 of a 2 KiB-aligned
 * buffer cover 9 lines, slices 5..13.  No other L2 counter is modelled.
 */
#include <stdlib.h>

#include "torus_node.h"
#include "torus_ptest.h"
#include "torusemu.h"

static temu_session *S;
static const temu_machine *M;
static int64_t N0, N2;

static int64_t node_at(int a)
{
    int32_t c[5] = {a, 0, 0, 0, 0};
    return temu_router_index(M, c);
}

static void send_bytes(int64_t src, int64_t dst, uint64_t bytes, const void *payload)
{
    temu_message msg = {src, dst, bytes, payload, TEMU_KIND_P2P};
    temu_error err;
    TP_CHECK(temu_inject(S, &msg, &err) == TEMU_OK, "inject: %s", err.message);
}

/* The L2 mode of a node in its shared words (torus_node.h): 1 combined,
 * 2 sliced, 0 when no set holds it. */
static uint64_t mode_of(int64_t node)
{
    return torus_node_value(temu_node_words(S, node), TORUS_RES_BGQ_L2);
}

static uint64_t mode_holders(int64_t node)
{
    return torus_node_holders(temu_node_words(S, node), TORUS_RES_BGQ_L2);
}

static void test_enumeration(int cidx)
{
    const PAPI_component_info_t *ci = PAPI_get_component_info(cidx);
    char names[64][128];
    int nquals = 0, n;
    TP_CHECK(ci->disabled == 0, "bgq_l2unit disabled: %s", ci->disabled_reason);
    TP_EQ(ci->num_native_events, 34, "num_native_events (32 BGPM events + 2 derived)");
    TP_EQ(ci->num_cntrs, 16, "num_cntrs (16 counters per slice)");
    n = tp_enumerate(cidx, "bgq_l2unit", names, 64, &nquals);
    TP_EQ(n, 34, "events enumerated");
    TP_CHECK(strcmp(names[0], "PEVT_L2_HITS") == 0, "id 278: %s", names[0]);
    TP_CHECK(strcmp(names[15], "PEVT_L2_SPEC_RETRY") == 0, "id 293: %s", names[15]);
    TP_CHECK(strcmp(names[16], "PEVT_L2_HITS_SLICE") == 0, "id 294: %s", names[16]);
    TP_CHECK(strcmp(names[31], "PEVT_L2_SPEC_RETRY_SLICE") == 0, "id 309: %s", names[31]);
    TP_EQ(nquals, 17 * 16, ":slice=0..15 of the 16 sliced events and L2_REQUESTS_SLICE");
}

static void test_names(void)
{
    static const char *const bad[] = {"PEVT_L2_HITS:slice=3",        "PEVT_L2_HITS_SLICE:slice=16",
                                      "PEVT_L2_HITS_SLICE:slice=-1", "PEVT_L2_HITS_SLICE:3",
                                      "PEVT_L2_HITS_SLICE:slice=x",  "PEVT_L2_HIT",
                                      "L2_REQUESTS:slice=0",         "PEVT_L2_HITS_SLICE:link=A+"};
    int code;
    tp_bad_names("bgq_l2unit", bad, (int)(sizeof bad / sizeof bad[0]));
    TP_RC(PAPI_event_name_to_code("PEVT_L2_HITS_SLICE:slice=0x0f", &code), PAPI_OK);
}

/* combined events: the node's L2 runs combined while this set exists */
static void test_combined(void)
{
    static const char *const ev[] = {"PEVT_L2_HITS", "PEVT_L2_MISSES", "L2_REQUESTS",
                                     "bgq_l2unit:::PEVT_L2_FETCH_LINE"};
    static const long long want[] = {32, 0, 32, 0};
    long long v[4];
    int es = tp_make_set(ev, 4), other = PAPI_NULL;

    TP_RC(PAPI_add_named_event(es, "PEVT_L2_HITS_SLICE"), PAPI_ECNFLCT);
    TP_EQ(mode_of(N2), 1, "node 2 in combined mode");
    TP_RC(PAPI_create_eventset(&other), PAPI_OK);
    TP_RC(PAPI_add_named_event(other, "PEVT_L2_MISSES_SLICE:slice=2"), PAPI_ECNFLCT);
    TP_RC(PAPI_add_named_event(other, "PEVT_L2_STORE_LINE"), PAPI_OK); /* same mode: fine */
    tp_free_set(other);

    TP_RC(PAPI_start(es), PAPI_OK);
    send_bytes(N0, N2, 4096, NULL);
    TP_RC(PAPI_read(es, v), PAPI_OK);
    tp_expect("4096 bytes received, combined", ev, v, want, 4);
    TP_RC(PAPI_reset(es), PAPI_OK);
    send_bytes(N0, N2, 1000, NULL);
    TP_RC(PAPI_stop(es, v), PAPI_OK);
    TP_EQ(v[0], 8, "1000 bytes after reset: 8 lines");
    tp_free_set(es);
    TP_EQ(mode_holders(N2), 0, "mode free once the set is cleaned up");
}

/* sliced events: one slice, or the sum without :slice */
static void test_sliced(void)
{
    static const char *const ev[] = {"PEVT_L2_HITS_SLICE:slice=0", "PEVT_L2_HITS_SLICE:slice=7",
                                     "PEVT_L2_HITS_SLICE:slice=8", "PEVT_L2_HITS_SLICE:slice=15",
                                     "PEVT_L2_HITS_SLICE",         "L2_REQUESTS_SLICE:slice=3",
                                     "PEVT_L2_MISSES_SLICE"};
    static const long long want1[] = {1, 1, 0, 0, 8, 1, 0};
    static const long long want2[] = {3, 3, 2, 2, 40, 3, 0};
    long long v[7];
    int es = tp_make_set(ev, 7), other = PAPI_NULL;

    TP_EQ(mode_of(N2), 2, "node 2 in sliced mode");
    TP_RC(PAPI_create_eventset(&other), PAPI_OK);
    TP_RC(PAPI_add_named_event(other, "PEVT_L2_HITS"), PAPI_ECNFLCT);
    TP_RC(PAPI_add_named_event(other, "L2_REQUESTS"), PAPI_ECNFLCT); /* derived: combined */
    tp_free_set(other);

    TP_RC(PAPI_start(es), PAPI_OK);
    send_bytes(N0, N2, 1000, NULL);
    TP_RC(PAPI_read(es, v), PAPI_OK);
    tp_expect("1000 bytes: slices 0..7", ev, v, want1, 7);
    send_bytes(N0, N2, 4096, NULL);
    TP_RC(PAPI_stop(es, v), PAPI_OK);
    tp_expect("and 4096 bytes: 2 more on every slice", ev, v, want2, 7);
    tp_free_set(es);
    TP_EQ(mode_holders(N2), 0, "mode free again");
}

/* The sender's side after an MPI_Init-style identity change: the lines of
 * its buffer; and a set of another node does not touch node 2's mode. */
static void test_sender(void)
{
    static unsigned char buf[4096] __attribute__((aligned(2048)));
    static const char *const ev[] = {"PEVT_L2_HITS_SLICE:slice=4", "PEVT_L2_HITS_SLICE:slice=5",
                                     "PEVT_L2_HITS_SLICE:slice=13", "PEVT_L2_HITS_SLICE:slice=14",
                                     "PEVT_L2_HITS_SLICE"};
    static const long long want[] = {0, 1, 1, 0, 9};
    long long v[5];
    int es, other = PAPI_NULL;

    temu_identity_set(M, 0, N0, 0);
    es = tp_make_set(ev, 5);
    TP_EQ(mode_of(N0), 2, "node 0 sliced");
    TP_EQ(mode_holders(N2), 0, "node 2 untouched");
    TP_RC(PAPI_start(es), PAPI_OK);
    send_bytes(N0, N2, 1000, buf + 5 * 128 + 64);
    TP_RC(PAPI_stop(es, v), PAPI_OK);
    tp_expect("sender's buffer lines", ev, v, want, 5);
    TP_RC(PAPI_create_eventset(&other), PAPI_OK);
    TP_RC(PAPI_add_named_event(other, "PEVT_L2_HITS"), PAPI_ECNFLCT);
    tp_free_set(other);
    tp_free_set(es);
    TP_EQ(mode_holders(N0), 0, "node 0 free");
}

int main(int argc, char **argv)
{
    int cidx;
    S = tp_begin(&argc, argv, "bgq:4x4x4x4x2", 256);
    if (S == NULL) {
        return tp_finish();
    }
    M = temu_session_machine(S);
    N0 = node_at(0);
    N2 = node_at(2);
    TP_RC(PAPI_library_init(PAPI_VER_CURRENT), PAPI_VER_CURRENT);
    cidx = tp_component("bgq_l2unit");
    if (cidx >= 0) {
        test_enumeration(cidx);
        test_names();
        test_combined();
        test_sliced();
        test_sender();
    }
    PAPI_shutdown();
    temu_session_close(S);
    return tp_finish();
}
