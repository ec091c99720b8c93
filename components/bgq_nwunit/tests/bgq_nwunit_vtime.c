/*
 * bgq_nwunit_vtime.c - PEVT_NW_CYCLES in a store whose network clock is
 * virtual time: the store `torusemu replay --timing --keep` leaves.
 *
 * Run by ctests/bgq_nwunit_vtime.sh with TORUSEMU_SESSION = the kept store
 * of a timed replay on bgq:4x1x1x1x2 (ranks 0 and 1 at a=0 and a=2, nodes 0
 * and 4; `bisection` of 8 bytes) and TORUSEMU_NODE=4.  SKIPPED on any other
 * store (PAPI's run_tests.sh runs it with stores of `torusemu create`).
 *
 * Expected times, by hand from the BG/Q timing model (doc/model.md; the same
 * derivation as tests/mpi/vtime.sh): router 35 ns, wire 5 ns, links 2 GB/s
 * (500 ps a byte), node injection and ejection 20 GB/s (50 ps a byte), two
 * hops from a=0 to a=2.
 *   8 bytes: one 64-byte packet; its header leaves the first router 35 ns
 *     after the send, the second hop takes 5 + 35 ns, the last router 5 + 35
 *     ns later ejects it in 3.2 ns: 118,200 ps = 59.1 cycles of 2 ns;
 *   4096 bytes: 8 packets of 544 bytes (272 ns each on a link); the last
 *     leaves the first router 35 + 7 x 272 ns after the send, crosses the
 *     second hop in 40 ns and its tail arrives 272 + 5 ns later: 2,256,000
 *     ps = 1128 cycles.
 * The network clock counts the cycles that ended: floor(ps / 2000).
 */
#include <string.h>
#include <time.h>

#include "torus_ptest.h"
#include "torusemu.h"
#include "torusemu_replay.h"
#include "torusemu_timing.h"
#include "torusemu_vtime.h"

#define NODE 4                /* rank 1's node, where this process counts  */
#define ONE_8_PS 118200       /* 8 bytes over two hops, above              */
#define ONE_4096_PS 2256000   /* 4096 bytes over two hops, above           */
#define KEPT_CYCLES 59        /* the kept store's replay: 118,200 ps       */

static temu_session *S;
static const temu_machine *M;

/* A timed replay of one message from rank 0 to rank 1 into the session, as
 * `torusemu replay --timing` runs one; returns its predicted runtime. */
static int64_t timed_message(uint64_t bytes)
{
    temu_tm_config tc;
    temu_vt *vt = NULL;
    temu_replay *r = NULL;
    temu_error err;
    int64_t runtime = -1;
    int ok = temu_tm_config_default(M, &tc, &err) == TEMU_OK;
    memset(&tc.mpi, 0, sizeof tc.mpi); /* the network's time alone: --mpi-costs=off */
    ok = ok && temu_vt_create(S, &tc, &vt, &err) == TEMU_OK &&
             temu_replay_create(S, &r, &err) == TEMU_OK;
    if (ok) {
        temu_replay_set_vtime(r, vt);
        ok = temu_replay_send(r, 0, 0, 1, 7, bytes, &err) == TEMU_OK &&
             temu_replay_recv(r, 0, 1, 0, 7, bytes, &err) == TEMU_OK &&
             temu_replay_finish(r, &err) == TEMU_OK && temu_vt_run(vt, &err) == TEMU_OK;
    }
    TP_CHECK(ok, "timed replay of %llu bytes: %s", (unsigned long long)bytes, err.message);
    if (ok) {
        runtime = temu_vt_runtime(vt);
    }
    temu_replay_free(r);
    temu_vt_free(vt);
    return runtime;
}

int main(int argc, char **argv)
{
    static const char *const events[] = {"PEVT_NW_CYCLES", "PEVT_NW_USER_PP_RECV"};
    long long v[2];
    struct timespec pause = {0, 20000000}; /* 20 ms of host time */
    int es = PAPI_NULL;

    S = tp_begin(&argc, argv, "bgq:4x1x1x1x2", NODE);
    if (S == NULL) {
        return tp_finish();
    }
    M = temu_session_machine(S);
    if (!temu_session_virtual_time(S)) {
        temu_session_close(S);
        tp_skip("the session's network clock is host time; this test reads the store of a "
                "timed replay (torusemu replay --timing --keep)");
    }
    /* the kept replay left its runtime on every node's clock */
    for (int64_t n = 0; n < M->nnodes; n++) {
        TP_EQ(temu_counter_read(S, temu_idx_bgq_nw_cycles(M, n)), KEPT_CYCLES,
              "kept store: network cycles of a node");
    }
    TP_RC(PAPI_library_init(PAPI_VER_CURRENT), PAPI_VER_CURRENT);
    es = tp_make_set(events, 2);
    TP_RC(PAPI_start(es), PAPI_OK);
    /* no replay running: the virtual clock stands still, whatever the host does */
    nanosleep(&pause, NULL);
    TP_RC(PAPI_read(es, v), PAPI_OK);
    TP_EQ(v[0], 0, "cycles while no replay runs");

    /* a replay while the set counts: its runtime in cycles */
    TP_EQ(timed_message(8), ONE_8_PS, "8 bytes: predicted runtime");
    TP_RC(PAPI_read(es, v), PAPI_OK);
    TP_EQ(v[0], ONE_8_PS / 2000, "8 bytes: cycles = runtime / 2 ns, rounded down");
    TP_EQ(v[1], 1, "8 bytes: packets received at node 4");

    /* reset, then another replay: its own runtime (each starts at 0) */
    TP_RC(PAPI_reset(es), PAPI_OK);
    TP_EQ(timed_message(4096), ONE_4096_PS, "4096 bytes: predicted runtime");
    nanosleep(&pause, NULL);
    TP_RC(PAPI_stop(es, v), PAPI_OK);
    TP_EQ(v[0], ONE_4096_PS / 2000, "4096 bytes: cycles since the reset");
    TP_EQ(v[1], 8, "4096 bytes: packets received at node 4");
    tp_free_set(es);
    PAPI_shutdown();
    temu_session_close(S);
    return tp_finish();
}
