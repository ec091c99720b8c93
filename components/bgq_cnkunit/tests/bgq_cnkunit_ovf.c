/*
 * bgq_cnkunit_ovf.c - PAPI_overflow and multiplexing on bgq_cnkunit
 * (doc/overflow-multiplex.md).  BGPM had no overflow on the CNK unit; the
 * emulated machine offers it: store counters through the emulator's
 * watches, host-measured thread counters (system calls, page faults,
 * preemptions) checked on a 1 ms timer.
 *
 * Run by ctests/bgq_cnkunit_ovf.sh with TORUSEMU_SESSION = a fresh BG/Q
 * midplane store and TORUSEMU_NODE=256; once as is and once with
 * TORUSEMU_UNIT_COUNTERS=1 and the argument "mpx".
 */
#define _GNU_SOURCE /* dladdr */
#include <fcntl.h>
#include <sys/mman.h>

#include "torus_ovtest.h"

static temu_session *S;
static const temu_machine *M;
static int64_t NODE;
static int cidx;

static void writes(int fd, int n)
{
    int ok = 0;
    for (int i = 0; i < n; i++) {
        ok += write(fd, "x", 1) == 1;
    }
    TP_EQ(ok, n, "writes to /dev/null");
}

/* Host-measured: system calls of the calling thread, checked every 1 ms. */
static void test_host(void)
{
    static const char *const ev[] = {"PEVT_CNKHWT_SYSCALL", "PEVT_CNKHWT_DSI"};
    long long v[2];
    int es = tp_make_set(ev, 2), fd = open("/dev/null", O_WRONLY);
    tp_log *l = tp_log_new(es);
    unsigned char *p;

    TP_RC(tp_overflow(es, ev[0], 50, 0), PAPI_OK);
    TP_RC(tp_overflow(es, ev[1], 20, 0), PAPI_OK);
    TP_RC(PAPI_start(es), PAPI_OK);
    writes(fd, 1000);
    p = mmap(NULL, 256 * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    for (int i = 0; i < 256; i++) {
        p[i * 4096] = 1; /* a fault per fresh page */
    }
    /* the 1 ms checks catch up (a loaded host may delay them: wait up to
     * a second); nothing raises the counts meanwhile */
    for (int i = 0; i < 500; i++) {
        tp_sleep_ms(2);
        PAPI_read(es, v);
        if (l->hits[0] == v[0] / 50 && l->hits[1] == v[1] / 20) {
            break;
        }
    }
    TP_CHECK(v[0] >= 1000 && v[0] < 1010, "system calls: %lld", v[0]);
    TP_EQ(l->hits[0], v[0] / 50, "system calls: floor(value / 50), seen by the 1 ms check");
    TP_CHECK(v[1] >= 256, "page faults: %lld", v[1]);
    TP_EQ(l->hits[1], v[1] / 20, "page faults: floor(value / 20)");
    TP_RC(PAPI_stop(es, v), PAPI_OK);
    munmap(p, 256 * 4096);
    close(fd);
    tp_free_set(es);
}

/* Host-measured events under read+reset (TAU): the 1 ms check carries
 * the progress over each reset.  40 rounds of 30 writes, threshold 50:
 * restarting the threshold at each reset would give no call.  The
 * component leaves its own reads of /proc out, so the readings sum to
 * the writes. */
static void test_host_read_reset(void)
{
    static const char *const ev[] = {"PEVT_CNKHWT_SYSCALL"};
    long long v[1], sum = 0;
    int es = tp_make_set(ev, 1), fd = open("/dev/null", O_WRONLY);
    tp_log *l = tp_log_new(es);

    TP_RC(tp_overflow(es, ev[0], 50, 0), PAPI_OK);
    TP_RC(PAPI_start(es), PAPI_OK);
    for (int i = 0; i < 40; i++) {
        writes(fd, 30);
        TP_RC(PAPI_read(es, v), PAPI_OK);
        TP_RC(PAPI_reset(es), PAPI_OK);
        sum += v[0];
    }
    for (int i = 0; i < 500 && l->hits[0] < sum / 50; i++) {
        tp_sleep_ms(2); /* the 1 ms checks catch up */
    }
    TP_RC(PAPI_stop(es, v), PAPI_OK);
    TP_EQ(sum, 1200, "system calls: the readings sum to the writes");
    TP_EQ(l->hits[0], 24, "system calls under read+reset: floor(1200 / 50)");
    close(fd);
    tp_free_set(es);
}

/* Store counters through watches; the reserved counter has none. */
static void test_store(void)
{
    static const char *const ev[] = {"PEVT_CNKNODE_MUINT", "PEVT_CNKHWT_FIT", "PEVT_CNKPROC_RSV"};
    const temu_identity id = temu_identity_get(S);
    long long v[3];
    int es = tp_make_set(ev, 3);
    tp_log *l = tp_log_new(es);

    TP_RC(tp_overflow(es, ev[0], 4, 0), PAPI_OK);
    TP_RC(tp_overflow(es, ev[1], 3, 0), PAPI_OK);
    TP_RC(tp_overflow(es, ev[2], 10, 0), PAPI_EINVAL); /* no counter: cannot overflow */
    TP_RC(PAPI_start(es), PAPI_OK);
    /* the model never raises them; the test does, as a device would */
    temu_counter_add(S, temu_idx_bgq_cnk_node(M, NODE, 0), 9);
    temu_counter_add(S, temu_idx_bgq_cnk_hwt(M, NODE, id.hwthread, 4), 7);
    temu_counter_add(S, temu_idx_bgq_cnk_hwt(M, NODE, id.hwthread + 1, 4), 100); /* not ours */
    TP_RC(PAPI_stop(es, v), PAPI_OK);
    TP_EQ(v[0], 9, "node counter");
    TP_EQ(l->hits[0], 2, "node counter: floor(9 / 4)");
    TP_EQ(v[1], 7, "this hardware thread's counter");
    TP_EQ(l->hits[1], 2, "hardware thread counter: floor(7 / 3)");
    TP_EQ(l->hits[2], 0, "the reserved counter");
    tp_free_set(es);
}

/* A client that reads and resets after every "message" (TAU): here the
 * test raises the node's MU interrupt counter by 3 each time, as a device
 * would. */
static void one_raise(void)
{
    temu_counter_add(S, temu_idx_bgq_cnk_node(M, NODE, 0), 3);
}

static void test_read_reset(void)
{
    static const char *const ev[] = {"PEVT_CNKNODE_MUINT"};
    static const long long thr[] = {7}, per[] = {3};
    tp_check_read_reset(ev, 1, thr, per, one_raise, 30);
}

/* One tick of the traffic clock (an 8-byte message elsewhere on the
 * machine), then 3 or 1 writes to /dev/null and this hardware thread's FIT
 * counter raised by 1 or 5 by hand. */
static int mpx_fd = -1;

static void mpx_send(int kind)
{
    const temu_identity id = temu_identity_get(S);
    tp_inject(S, 0, 1, 8, TEMU_KIND_P2P, 1);
    writes(mpx_fd, kind == 0 ? 3 : 1);
    temu_counter_add(S, temu_idx_bgq_cnk_hwt(M, NODE, id.hwthread, 4), kind == 0 ? 1 : 5);
}

/* TORUSEMU_UNIT_COUNTERS=1: a host-measured event and a store counter
 * time-sliced, exact estimates on the traffic clock (the component leaves
 * its own reads of /proc out of the system calls). */
static void test_unit_counters(void)
{
    static const char *const ev[] = {"PEVT_CNKHWT_SYSCALL", "PEVT_CNKHWT_FIT"};
    enum { N = 2, K = 2 };
    static const long long want[N * K] = {3, 1, 1, 5};
    static const int group[N] = {0, 1};
    long long per[N * K];
    int es;

    mpx_fd = open("/dev/null", O_WRONLY);
    tp_per_kind(ev, N, mpx_send, K, per, want);
    es = tp_mpx_set(cidx, 2000000);
    for (int e = 0; e < N; e++) {
        TP_RC(PAPI_add_named_event(es, ev[e]), PAPI_OK);
    }
    {
        tp_mpx x = {"multiplexed (1 counter)", ev, N, group, mpx_send, K, per, 2, 27, 0};
        tp_check_mpx(&x, es);
    }
    close(mpx_fd);
    tp_free_set(es);
}

int main(int argc, char **argv)
{
    S = tp_begin(&argc, argv, "bgq:4x4x4x4x2", 256);
    if (S == NULL) {
        return tp_finish();
    }
    M = temu_session_machine(S);
    NODE = temu_identity_get(S).node;
    TP_RC(PAPI_library_init(PAPI_VER_CURRENT), PAPI_VER_CURRENT);
    TP_RC(PAPI_multiplex_init(), PAPI_OK);
    cidx = tp_component("bgq_cnkunit");
    if (cidx >= 0 && argc > 1 && strcmp(argv[1], "mpx") == 0) {
        test_unit_counters();
    } else if (cidx >= 0) {
        test_host();
        test_host_read_reset();
        test_store();
        test_read_reset();
    }
    TP_EQ(temu_watch_armed(S), 0, "every watch disarmed at the end");
    PAPI_shutdown();
    temu_session_close(S);
    return tp_finish();
}
