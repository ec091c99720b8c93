/*
 * bgp_torus_api.c - the bgp_torus component through the PAPI API:
 * enumeration, names (bare and prefixed, the PAPI_BGP_TS_* names), UPC
 * mode conflicts, and exact counts after traffic injected through the
 * emulator API.
 *
 * Run by ctests/bgp_torus_api.sh with TORUSEMU_SESSION = a fresh bgp-16
 * store (bgp:4x2x2, mesh) and TORUSEMU_NODE=0.
 *
 * Expected counts (doc/model.md, BG/P): a packet carries up to 240 payload
 * bytes plus a 16-byte header in 32-byte chunks.  960 bytes (eager, below
 * 1200) are 4 full packets of 8 chunks on the bubble VC; 100000 bytes go by
 * rendezvous: 418 packets and 3336 chunks on the X+ link, 3334 of them data
 * on dynamic VC 0 and 2 the request-to-send on the bubble VC.  Every packet
 * received over a link is acknowledged by one token/ack packet back over it.
 */
#include <stdlib.h>

#include "torus_ptest.h"
#include "torusemu.h"

static temu_session *S;
static const temu_machine *M;

static int64_t node_at(int x, int y, int z)
{
    int32_t c[3] = {x, y, z};
    return temu_router_index(M, c);
}

static void send_bytes(int64_t src, int64_t dst, uint64_t bytes)
{
    temu_message msg = {src, dst, bytes, NULL, TEMU_KIND_P2P};
    temu_error err;
    TP_CHECK(temu_inject(S, &msg, &err) == TEMU_OK, "inject: %s", err.message);
}

static int make_set(const char *const *names, int n)
{
    int es = PAPI_NULL;
    TP_RC(PAPI_create_eventset(&es), PAPI_OK);
    for (int i = 0; i < n; i++) {
        int rc = PAPI_add_named_event(es, names[i]);
        TP_CHECK(rc == PAPI_OK, "add %s: %s", names[i], PAPI_strerror(rc));
    }
    return es;
}

static void free_set(int es)
{
    PAPI_cleanup_eventset(es);
    PAPI_destroy_eventset(&es);
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

static void test_enumeration(int cidx)
{
    const PAPI_component_info_t *ci = PAPI_get_component_info(cidx);
    PAPI_event_info_t info;
    int code = PAPI_NATIVE_MASK, n = 0, mode0 = 0, mode2 = 0;

    TP_CHECK(ci->disabled == 0, "bgp_torus disabled: %s", ci->disabled_reason);
    TP_CHECK(strcmp(ci->name, ci->short_name) == 0, "name != short_name");
    TP_EQ(ci->num_native_events, 72, "num_native_events (70 torus events + 2 presets)");
    TP_RC(PAPI_enum_cmp_event(&code, PAPI_ENUM_FIRST, cidx), PAPI_OK);
    do {
        char name[PAPI_HUGE_STR_LEN];
        int code2 = 0, k = code;
        n++;
        TP_RC(PAPI_get_event_info(code, &info), PAPI_OK);
        /* PAPI prints components whose name contains "bgp" without prefix */
        TP_CHECK(strstr(info.symbol, ":::") == NULL, "prefixed symbol %s", info.symbol);
        TP_CHECK(strlen(info.long_descr) > 20 && info.units[0] != '\0', "%s: descr/units",
                 info.symbol);
        TP_RC(PAPI_event_name_to_code(info.symbol, &code2), PAPI_OK);
        TP_RC(PAPI_event_code_to_name(code2, name), PAPI_OK);
        TP_CHECK(strcmp(name, info.symbol) == 0, "round trip %s -> %s", info.symbol, name);
        snprintf(name, sizeof name, "bgp_torus:::%.900s", info.symbol);
        TP_RC(PAPI_event_name_to_code(name, &code2), PAPI_OK);
        TP_CHECK(PAPI_enum_cmp_event(&k, PAPI_NTV_ENUM_UMASKS, cidx) != PAPI_OK,
                 "%s has qualifiers", info.symbol);
        mode0 += strstr(info.long_descr, "UPC mode 0") != NULL;
        mode2 += strstr(info.long_descr, "UPC mode 2") != NULL;
    } while (PAPI_enum_cmp_event(&code, PAPI_ENUM_EVENTS, cidx) == PAPI_OK);
    TP_EQ(n, 72, "events enumerated");
    TP_EQ(mode0, 12 + 2, "mode 0 events (12 + the two presets)");
    TP_EQ(mode2, 58, "mode 2 events");
}

static void test_names(void)
{
    static const char *const bad[] = {"bgp_torus:::BGP_TORUS_RESERVED_1",
                                      "bgp_torus:::BGP_TORUS_ZM_NO_VCBN_TOKENS",
                                      "bgp_torus:::BGP_TORUS_XP_PACKETS:1",
                                      "bgp_torus:::BGP_TORUS_XP", "bgp_torus:::PAPI_BGP_TS_X"};
    int code;
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        int rc = PAPI_event_name_to_code(bad[i], &code);
        TP_CHECK(rc == PAPI_ENOEVNT || rc == PAPI_EINVAL, "%s resolved (rc %d)", bad[i], rc);
    }
    /* bare names: every component is asked, PAPI returns the last answer */
    TP_CHECK(PAPI_event_name_to_code("BGP_TORUS_RESERVED_2", &code) != PAPI_OK, "reserved");
    TP_CHECK(PAPI_event_name_to_code("BGP_TORUS_XP_PACKETS:0", &code) != PAPI_OK, "qualifier");
    /* a native event named PAPI_...: no preset has the name, so PAPI's
     * native lookup finds it, bare and prefixed */
    TP_RC(PAPI_event_name_to_code("PAPI_BGP_TS_DPKT", &code), PAPI_OK);
    TP_CHECK((code & PAPI_NATIVE_MASK) != 0, "PAPI_BGP_TS_DPKT is a native code");
    TP_RC(PAPI_event_name_to_code("bgp_torus:::PAPI_BGP_TS_32B", &code), PAPI_OK);
}

static void test_mode0(void)
{
    static const char *const ev[] = {
        "BGP_TORUS_XP_PACKETS", "BGP_TORUS_XP_32BCHUNKS", "bgp_torus:::BGP_TORUS_XM_PACKETS",
        "PAPI_BGP_TS_DPKT",     "PAPI_BGP_TS_32B",        "BGP_TORUS_ZP_PACKETS"};
    static const long long want1[] = {4, 32, 0, 4, 32, 0};
    static const long long want2[] = {422, 3368, 0, 422, 3368, 0};
    long long v[6];
    int es = make_set(ev, 6), es2 = PAPI_NULL, rc;

    /* one UPC mode per event set and per node */
    rc = PAPI_add_named_event(es, "BGP_TORUS_XP_VCD0_32BCHUNKS");
    TP_EQ(rc, PAPI_ECNFLCT, "mode 2 event added to a mode 0 set");
    TP_RC(PAPI_create_eventset(&es2), PAPI_OK);
    TP_RC(PAPI_add_named_event(es2, "BGP_TORUS_YM_ACKS"), PAPI_ECNFLCT);
    TP_RC(PAPI_add_named_event(es2, "BGP_TORUS_YM_PACKETS"), PAPI_OK); /* same mode: fine */
    free_set(es2);

    TP_RC(PAPI_start(es), PAPI_OK);
    send_bytes(0, node_at(1, 0, 0), 960);
    TP_RC(PAPI_read(es, v), PAPI_OK);
    expect("960-byte eager message", ev, v, want1, 6);
    send_bytes(0, node_at(2, 0, 0), 100000);
    TP_RC(PAPI_read(es, v), PAPI_OK);
    expect("plus a 100000-byte rendezvous", ev, v, want2, 6);
    TP_RC(PAPI_reset(es), PAPI_OK);
    send_bytes(0, node_at(0, 1, 0), 240);
    TP_RC(PAPI_stop(es, v), PAPI_OK);
    TP_EQ(v[3], 1, "PAPI_BGP_TS_DPKT after reset: one packet");
    TP_EQ(v[4], 8, "PAPI_BGP_TS_32B after reset: 8 chunks");
    TP_EQ(v[0], 0, "nothing on X+ after reset");
    free_set(es);
}

static void test_mode2(void)
{
    static const char *const ev[] = {
        "BGP_TORUS_XP_VCBN_32BCHUNKS",    "BGP_TORUS_XP_VCD0_32BCHUNKS",
        "BGP_TORUS_XP_TOKEN_ACK_PACKETS", "BGP_TORUS_XP_ACKS",
        "BGP_TORUS_XM_TOKEN_ACK_PACKETS", "BGP_TORUS_XP_NO_TOKENS"};
    /* node 0 also receives the remote get of the rendezvous: one more ack */
    static const long long want[] = {32 + 2, 3334, 4 + 1, 4 + 1, 0, 0};
    long long v[6];
    int es, es0 = PAPI_NULL, rc;

    /* the mode 0 sets are gone: the UPC unit may switch to mode 2 */
    es = make_set(ev, 6);
    rc = PAPI_add_named_event(es, "PAPI_BGP_TS_DPKT");
    TP_EQ(rc, PAPI_ECNFLCT, "mode 0 preset added to a mode 2 set");
    TP_RC(PAPI_create_eventset(&es0), PAPI_OK);
    TP_RC(PAPI_add_named_event(es0, "BGP_TORUS_XP_PACKETS"), PAPI_ECNFLCT);
    free_set(es0);

    TP_RC(PAPI_start(es), PAPI_OK);
    send_bytes(0, node_at(1, 0, 0), 960);    /* 32 chunks, bubble VC   */
    send_bytes(node_at(1, 0, 0), 0, 960);    /* 4 packets in: 4 acks   */
    send_bytes(0, node_at(2, 0, 0), 100000); /* data on dynamic VC 0   */
    TP_RC(PAPI_stop(es, v), PAPI_OK);
    expect("mode 2", ev, v, want, 6);
    free_set(es);
}

int main(int argc, char **argv)
{
    int cidx;
    S = tp_begin(&argc, argv, "bgp:4x2x2,torus=000", 0);
    if (S == NULL) {
        return tp_finish();
    }
    M = temu_session_machine(S);
    TP_RC(PAPI_library_init(PAPI_VER_CURRENT), PAPI_VER_CURRENT);
    cidx = tp_component("bgp_torus");
    if (cidx >= 0) {
        test_enumeration(cidx);
        test_names();
        test_mode0();
        test_mode2();
    }
    PAPI_shutdown();
    temu_session_close(S);
    return tp_finish();
}
