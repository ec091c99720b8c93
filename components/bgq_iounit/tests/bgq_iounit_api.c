/*
 * bgq_iounit_api.c - the bgq_iounit component through the PAPI API:
 * enumeration, names, all 48 events in one set, exact message-unit counts
 * at the receiving and the sending node after traffic injected through the
 * emulator API, PCIe and DevBus at 0, the derived sums.
 *
 * Run by ctests/bgq_iounit_api.sh with TORUSEMU_SESSION = a fresh BG/Q
 * midplane store and TORUSEMU_NODE=256, node (2,0,0,0,0).
 *
 * Expected counts (doc/model.md "Message unit"; tests/test_plan.c), for
 * messages from node 0 to node 2: 4096 bytes eager are 8 memory-FIFO
 * packets of 512 bytes; the receiver writes header + payload in 16-byte
 * units, 34 per packet (272); the sender reads 4 x 128 bytes per packet
 * (32) and injects 1 message whose first packet PKT_INJ leaves out (7).
 * 16 KiB by rendezvous: the sender injects the request-to-send (1 packet,
 * a 32-byte read) and the data (32 put packets, 128 reads of 128 bytes):
 * 2 messages, PKT_INJ 0 + 31; the receiver gets the RTS as a FIFO packet
 * (4 writes), injects the remote get (1 message of 1 packet, a 64-byte
 * descriptor read) and gets 32 put packets (32 x 32 writes); the sender
 * gets the remote get (RGET_PKT_RCV, 4 writes).
 */
#include <stdlib.h>

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

static void send_bytes(int64_t src, int64_t dst, uint64_t bytes)
{
    temu_message msg = {src, dst, bytes, NULL, TEMU_KIND_P2P};
    temu_error err;
    TP_CHECK(temu_inject(S, &msg, &err) == TEMU_OK, "inject: %s", err.message);
}

static char names[64][128];
static int nnames;

static void test_enumeration(int cidx)
{
    const PAPI_component_info_t *ci = PAPI_get_component_info(cidx);
    int nquals = 0;
    TP_CHECK(ci->disabled == 0, "bgq_iounit disabled: %s", ci->disabled_reason);
    TP_EQ(ci->num_native_events, 48, "num_native_events (44 BGPM events + 4 derived)");
    TP_EQ(ci->num_cntrs, 64, "num_cntrs (UPC_C I/O SRAM)");
    nnames = tp_enumerate(cidx, "bgq_iounit", names, 64, &nquals);
    TP_EQ(nnames, 48, "events enumerated");
    TP_EQ(nquals, 0, "no qualifiers");
    TP_CHECK(strcmp(names[0], "PEVT_MU_PKT_INJ") == 0, "id 310: %s", names[0]);
    TP_CHECK(strcmp(names[25], "PEVT_PCIE_INB_RD_BYTES") == 0, "id 335: %s", names[25]);
    TP_CHECK(strcmp(names[37], "PEVT_DB_PCIE_INB_WRT_BYTES") == 0, "id 347: %s", names[37]);
    TP_CHECK(strcmp(names[43], "PEVT_DB_MSG_SIG_INTS") == 0, "id 353: %s", names[43]);
}

static void test_names(void)
{
    static const char *const bad[] = {"PEVT_MU_PKT_INJ:0", "PEVT_MU_PKT_INJ:slice=1",
                                      "PEVT_MU_PORT3_16B_WRT", "MU_PKT_INJ_TOTAL:x", "PEVT_PCIE"};
    tp_bad_names("bgq_iounit", bad, (int)(sizeof bad / sizeof bad[0]));
}

/* index of an event name in the enumeration */
static int at(const char *name)
{
    for (int i = 0; i < nnames; i++) {
        if (strcmp(names[i], name) == 0) {
            return i;
        }
    }
    TP_CHECK(0, "%s not enumerated", name);
    return 0;
}

struct want {
    const char *name;
    long long value;
};

/* every event of the component in one set; those not listed must read 0 */
static void check_all(const char *label, const long long *v, const struct want *w, int nw)
{
    for (int i = 0; i < nnames; i++) {
        long long want = 0;
        char what[256];
        for (int k = 0; k < nw; k++) {
            if (strcmp(w[k].name, names[i]) == 0) {
                want = w[k].value;
            }
        }
        snprintf(what, sizeof what, "%s: %s", label, names[i]);
        TP_EQ(v[i], want, what);
    }
}

static void test_counts(void)
{
    static const struct want recv_eager[] = {{"PEVT_MU_FIFO_PKT_RCV", 8},
                                             {"PEVT_MU_PORT0_16B_WRT", 272},
                                             {"MU_PKT_RCV_TOTAL", 8},
                                             {"MU_PORT0_WRT_BYTES", 16 * 272}};
    static const struct want recv_rzv[] = {{"PEVT_MU_FIFO_PKT_RCV", 1},
                                           {"PEVT_MU_PUT_PKT_RCV", 32},
                                           {"PEVT_MU_MSG_INJ", 1},
                                           {"PEVT_MU_PORT0_64B_RD", 1},
                                           {"PEVT_MU_PORT0_16B_WRT", 4 + 1024},
                                           {"MU_PKT_INJ_TOTAL", 1},
                                           {"MU_PKT_RCV_TOTAL", 33},
                                           {"MU_PORT0_RD_BYTES", 64},
                                           {"MU_PORT0_WRT_BYTES", 16 * 1028}};
    static const struct want send_both[] = {
        {"PEVT_MU_PKT_INJ", 7 + 31},           {"PEVT_MU_MSG_INJ", 1 + 2},
        {"PEVT_MU_PORT0_128B_RD", 32 + 128},   {"PEVT_MU_PORT0_32B_RD", 1},
        {"PEVT_MU_RGET_PKT_RCV", 1},           {"PEVT_MU_PORT0_16B_WRT", 4},
        {"MU_PKT_INJ_TOTAL", 8 + 33},          {"MU_PKT_RCV_TOTAL", 1},
        {"MU_PORT0_RD_BYTES", 128 * 160 + 32}, {"MU_PORT0_WRT_BYTES", 64}};
    const char *list[64];
    long long v[64];
    int es;

    for (int i = 0; i < nnames; i++) {
        list[i] = names[i];
    }
    es = tp_make_set(list, nnames);
    TP_EQ(PAPI_num_events(es), 48, "all 48 events in one set");
    TP_RC(PAPI_start(es), PAPI_OK);
    send_bytes(N0, N2, 4096);
    TP_RC(PAPI_read(es, v), PAPI_OK);
    check_all("node 2 receives 4096 B", v, recv_eager, 4);
    TP_RC(PAPI_reset(es), PAPI_OK);
    send_bytes(N0, N2, 16384);
    TP_RC(PAPI_stop(es, v), PAPI_OK);
    check_all("node 2 receives 16 KiB", v, recv_rzv, 9);
    TP_EQ(v[at("PEVT_PCIE_RX_TLP")], 0, "PCIe on a compute node");
    tp_free_set(es);

    /* the sending node, after an MPI_Init-style identity change */
    temu_identity_set(M, 0, N0, 0);
    es = tp_make_set(list, nnames);
    TP_RC(PAPI_start(es), PAPI_OK);
    send_bytes(N0, N2, 4096);
    send_bytes(N0, N2, 16384);
    TP_RC(PAPI_stop(es, v), PAPI_OK);
    check_all("node 0 sends 4096 B and 16 KiB", v, send_both, 10);
    tp_free_set(es);
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
    cidx = tp_component("bgq_iounit");
    if (cidx >= 0) {
        test_enumeration(cidx);
        test_names();
        test_counts();
    }
    PAPI_shutdown();
    temu_session_close(S);
    return tp_finish();
}
