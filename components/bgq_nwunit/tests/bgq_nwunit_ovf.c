/*
 * bgq_nwunit_ovf.c - PAPI_overflow and multiplexing on bgq_nwunit
 * (doc/overflow-multiplex.md).
 *
 * Run by ctests/bgq_nwunit_ovf.sh with TORUSEMU_SESSION = a fresh BG/Q
 * midplane store (bgq:4x4x4x4x2) and TORUSEMU_NODE=128, node (1,0,0,0,0).
 * Traffic goes from node (0,0,0,0,0) to (2,0,0,0,0) and passes node 1: a
 * 4096-byte message is 8 packets, 136 chunks on VC 1, sent on node 1's A+
 * and received on its A- (bgq_nwunit_api.c).  The process on node 1 sends
 * nothing itself: every crossing is pass-through traffic, injected by this
 * process or by a child process.
 *
 * Overflow counts are exact: an event with threshold T overflows
 * floor(value / T) times, the value counted from PAPI_start: PAPI_reset
 * zeroes the count, not the progress towards the next overflow.
 * Multiplexed estimates are exact on the traffic clock
 * (TORUSEMU_MPX_CLOCK, tp_check_mpx).
 */
#define _GNU_SOURCE /* dladdr */
#include <pthread.h>
#include <sys/syscall.h>

#include "torus_node.h"
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

/* 4096-byte point-to-point messages through node 1. */
static void p2p(int times)
{
    tp_inject(S, N0, N2, 4096, TEMU_KIND_P2P, times);
}

/* ------------------------------------------------------------ overflow */

/* One event overflowing on pass-through traffic, injected here and by
 * another process; the counter events of the same set ride along. */
static void test_exact(void)
{
    static const char *const ev[] = {"PEVT_NW_USER_PP_SENT", "PEVT_NW_USER_PP_RECV"};
    long long v[2];
    int es = tp_make_set(ev, 2);
    tp_log *l = tp_log_new(es);

    TP_RC(tp_overflow(es, ev[0], 100, 0), PAPI_OK);
    TP_RC(PAPI_start(es), PAPI_OK);
    p2p(10); /* 1360 chunks: 13 crossings of 100 */
    TP_EQ(l->calls, 13, "handler calls after 1360 chunks, threshold 100 (this process)");
    TP_EQ(l->hits[0], 13, "vector bits of the overflowing event");
    TP_EQ(l->hits[1], 0, "vector bits of the counted event");
    TP_EQ(l->bad_vectors, 0, "every vector decodes");
    TP_CHECK(l->addr != NULL, "handler address");
    tp_inject_child(N0, N2, 4096, TEMU_KIND_P2P, 10, NULL);
    TP_EQ(l->calls, 27, "handler calls after 2720 chunks (10 messages from another process)");
    TP_RC(PAPI_stop(es, v), PAPI_OK);
    TP_EQ(v[0], 2720, "chunks sent by node 1");
    TP_EQ(v[1], 160, "packets received by node 1");
    TP_EQ(l->calls, v[0] / 100, "calls = floor(value / threshold)");
    /* stopped: traffic raises nothing */
    p2p(3);
    TP_EQ(l->calls, 27, "no overflow while stopped");
    /* started again: counts from 0 */
    TP_RC(PAPI_start(es), PAPI_OK);
    p2p(1);
    TP_EQ(l->calls, 28, "136 chunks after a restart: one crossing");
    TP_RC(PAPI_stop(es, v), PAPI_OK);
    tp_free_set(es);
}

/* Two events with their own thresholds; the handler reads the set. */
static void test_thresholds(void)
{
    static const char *const ev[] = {"PEVT_NW_USER_PP_SENT", "PEVT_NW_USER_PP_RECV"};
    long long v[2];
    int es = tp_make_set(ev, 2);
    tp_log *l = tp_log_new(es);

    l->read_events = 2;
    TP_RC(tp_overflow(es, ev[0], 100, 0), PAPI_OK);
    TP_RC(tp_overflow(es, ev[1], 3, 0), PAPI_OK);
    TP_RC(tp_overflow(es, ev[1], 3, 0), PAPI_OK); /* the same again: fine */
    TP_RC(PAPI_start(es), PAPI_OK);
    p2p(10);
    /* this thread's own crossings are handled as they happen; the last one
     * of these 10 messages lies in the 10th (chunk 1300, packet 78), so the
     * handler's read saw the 9 messages before it and at most all 10 */
    TP_CHECK(l->in_handler[0] >= 9 * 136 && l->in_handler[0] <= 10 * 136,
             "PAPI_read in the handler during the 10th message: %lld chunks", l->in_handler[0]);
    tp_inject_child(N0, N2, 4096, TEMU_KIND_P2P, 5, NULL);
    TP_RC(PAPI_stop(es, v), PAPI_OK);
    TP_EQ(v[0], 2040, "15 messages: chunks");
    TP_EQ(v[1], 120, "15 messages: packets");
    TP_EQ(l->hits[0], 20, "chunks overflowed floor(2040 / 100) times");
    TP_EQ(l->hits[1], 40, "packets overflowed floor(120 / 3) times");
    TP_CHECK(l->calls >= 40 && l->calls <= 60,
             "calls %ld: one per crossing, both events "
             "sharing calls",
             l->calls);
    TP_CHECK(l->in_handler[0] >= 10 * 136 && l->in_handler[0] <= v[0],
             "PAPI_read in the last handler call: %lld", l->in_handler[0]);
    tp_free_set(es);
}

/* Derived events overflow on their value: 32 x chunks (bytes), and the sum
 * of four send counters. */
static void test_derived(void)
{
    static const char *const ev[] = {"NW_USER_PP_SENT_BYTES", "NW_ALL_VC_SENT",
                                     "NW_SENT_BYTES:vc=0x70:link=A+"};
    long long v[3];
    int es = tp_make_set(ev, 3);
    tp_log *l = tp_log_new(es);

    TP_RC(tp_overflow(es, ev[0], 1000, 0), PAPI_OK);
    TP_RC(tp_overflow(es, ev[1], 50, 0), PAPI_OK);
    TP_RC(tp_overflow(es, ev[2], 4352, 0), PAPI_OK);
    TP_RC(PAPI_start(es), PAPI_OK);
    p2p(10);
    tp_inject(S, N0, N2, 8192, TEMU_KIND_COLL_SUB, 2);
    TP_RC(PAPI_stop(es, v), PAPI_OK);
    TP_EQ(v[0], 43520, "bytes of 1360 chunks");
    TP_EQ(l->hits[0], 43, "bytes overflowed floor(43520 / 1000) times (weight 32)");
    TP_EQ(l->hits[1], v[1] / 50, "NW_ALL_VC_SENT overflowed floor(value / 50) times");
    TP_CHECK(v[1] > v[0] / 32, "NW_ALL_VC_SENT counts the collectives too: %lld", v[1]);
    TP_EQ(v[2], 43520, "A+ bytes on the user channels");
    TP_EQ(l->hits[2], 10, "one crossing per message (4352 bytes each)");
    tp_free_set(es);
}

/* Overflow stays armed across PAPI_reset, and a reset zeroes the count
 * but not the progress towards the next overflow (PERF_EVENT_IOC_RESET
 * leaves the sampling period running): the threshold counts from
 * PAPI_start whatever the resets. */
static void test_reset(void)
{
    static const char *const ev[] = {"PEVT_NW_USER_PP_SENT"};
    long long v[1];
    int es = tp_make_set(ev, 1);
    tp_log *l = tp_log_new(es);

    TP_RC(tp_overflow(es, ev[0], 1000, 0), PAPI_OK);
    TP_RC(PAPI_start(es), PAPI_OK);
    p2p(5); /* 680 */
    TP_EQ(l->calls, 0, "680 chunks: below the threshold");
    TP_RC(PAPI_reset(es), PAPI_OK);
    p2p(5); /* 680 since the reset, 1360 since the start */
    TP_EQ(l->calls, 1, "1360 chunks since the start: the reset kept the progress");
    p2p(3); /* 1088 since the reset, 1768 since the start */
    TP_EQ(l->calls, 1, "1768 chunks since the start: still one crossing");
    TP_RC(PAPI_read(es, v), PAPI_OK);
    TP_EQ(v[0], 1088, "the value counts from the reset");
    TP_RC(PAPI_accum(es, v), PAPI_OK); /* PAPI_accum resets as well */
    p2p(1);
    TP_EQ(l->calls, 1, "1904 chunks since the start");
    p2p(1);
    TP_EQ(l->calls, 2, "2040 chunks since the start: the second crossing");
    TP_RC(PAPI_read(es, v), PAPI_OK);
    TP_EQ(v[0], 272, "the value counts from PAPI_accum");
    TP_RC(PAPI_stop(es, v), PAPI_OK);
    tp_free_set(es);
}

/* A client that reads and resets after every message (TAU): a plain
 * event and a derived one (32 bytes per chunk, weight 32). */
static void one_p2p(void)
{
    p2p(1);
}

static void test_read_reset(void)
{
    static const char *const ev[] = {"PEVT_NW_USER_PP_SENT", "NW_USER_PP_SENT_BYTES"};
    static const long long thr[] = {300, 10000}, per[] = {136, 136 * 32};
    tp_check_read_reset(ev, 2, thr, per, one_p2p, 40);
}

/* Removing overflows: threshold 0. */
static void test_remove(void)
{
    static const char *const ev[] = {"PEVT_NW_USER_PP_SENT", "PEVT_NW_USER_PP_RECV"};
    int es = tp_make_set(ev, 2), state = 0, code0, code1;
    tp_log *l = tp_log_new(es);

    PAPI_event_name_to_code(ev[0], &code0);
    PAPI_event_name_to_code(ev[1], &code1);
    TP_RC(tp_overflow(es, ev[0], 100, 0), PAPI_OK);
    TP_RC(tp_overflow(es, ev[1], 2, 0), PAPI_OK);
    TP_RC(PAPI_overflow(es, code0, 0, 0, NULL), PAPI_OK); /* removal: handler not needed */
    PAPI_state(es, &state);
    TP_CHECK(state & PAPI_OVERFLOWING, "still overflowing on the packets");
    TP_RC(PAPI_start(es), PAPI_OK);
    p2p(2);
    TP_RC(PAPI_stop(es, NULL), PAPI_OK);
    TP_EQ(l->hits[0], 0, "no overflow of the removed event");
    TP_EQ(l->hits[1], 8, "16 packets, threshold 2");
    TP_RC(PAPI_overflow(es, code1, 0, 0, NULL), PAPI_OK);
    PAPI_state(es, &state);
    TP_CHECK(!(state & PAPI_OVERFLOWING), "not overflowing once every overflow is removed");
    TP_RC(PAPI_overflow(es, code1, 0, 0, tp_handler), PAPI_EINVAL); /* nothing to remove */
    TP_RC(PAPI_start(es), PAPI_OK);
    p2p(2);
    TP_RC(PAPI_stop(es, NULL), PAPI_OK);
    TP_EQ(l->calls, 8, "no handler call after the removal");
    TP_EQ(temu_watch_armed(S), 0, "no watch left armed");
    tp_free_set(es);
}

/* The error paths PAPI documents, and the set still usable after each. */
static void test_errors(void)
{
    static const char *const ev[] = {"PEVT_NW_USER_PP_SENT"};
    int es = tp_make_set(ev, 1), code, other;
    tp_log *l = tp_log_new(es);

    PAPI_event_name_to_code(ev[0], &code);
    PAPI_event_name_to_code("PEVT_NW_USER_PP_RECV", &other);
    TP_RC(PAPI_overflow(es, code, -1, 0, tp_handler), PAPI_EINVAL);    /* negative threshold */
    TP_RC(PAPI_overflow(es, code, 100, 0, NULL), PAPI_EINVAL);         /* NULL handler */
    TP_RC(PAPI_overflow(es, code, 0, 0, tp_handler), PAPI_EINVAL);     /* nothing to remove */
    TP_RC(PAPI_overflow(es, other, 100, 0, tp_handler), PAPI_ENOEVNT); /* not in the set */
    TP_RC(PAPI_overflow(es + 1000, code, 100, 0, tp_handler), PAPI_ENOEVST);
    TP_RC(PAPI_overflow(es, code, 100, 0, tp_handler), PAPI_OK);
    TP_RC(PAPI_overflow(es, code, 100, PAPI_OVERFLOW_FORCE_SW, tp_handler), PAPI_ECNFLCT);
    TP_RC(PAPI_start(es), PAPI_OK);
    TP_RC(PAPI_overflow(es, code, 50, 0, tp_handler), PAPI_EISRUN);
    p2p(1);
    TP_RC(PAPI_stop(es, NULL), PAPI_OK);
    TP_EQ(l->calls, 1, "the set works after the refusals");
    TP_RC(PAPI_add_named_event(es, "PEVT_NW_USER_PP_RECV"), PAPI_OK);
    tp_free_set(es);
}

/* The executable mapping of the C library, where the overflow signal
 * interrupts this process (the tgkill of its own injection, or waitpid
 * while a child injects).  0 if not found. */
static int libc_text(uintptr_t *start, size_t *len)
{
    char line[512];
    FILE *f = fopen("/proc/self/maps", "r");
    int found = 0;
    if (f == NULL) {
        return 0;
    }
    while (!found && fgets(line, sizeof line, f) != NULL) {
        unsigned long lo, hi;
        char perms[8];
        if (sscanf(line, "%lx-%lx %7s", &lo, &hi, perms) == 3 && perms[2] == 'x' &&
            strstr(line, "/libc.so") != NULL) {
            *start = (uintptr_t)lo;
            *len = (size_t)(hi - lo);
            found = 1;
        }
    }
    fclose(f);
    return found;
}

/* PAPI_profil (SVR4 profiling on overflow, as gprof-style tools use it):
 * every crossing becomes one histogram tick at the interrupted address,
 * so the buckets over the whole C library text add up to exactly the
 * crossings; 16-bit buckets, one per 2 bytes of text (scale 65536). */
static void test_profil(void)
{
    static const char *const ev[] = {"PEVT_NW_USER_PP_SENT"};
    long long v[1];
    int es = tp_make_set(ev, 1), code;
    uintptr_t start;
    size_t len;
    unsigned short *buckets;
    long ticks = 0;

    if (!libc_text(&start, &len)) {
        TP_CHECK(0, "the C library's text mapping was not found in /proc/self/maps");
        tp_free_set(es);
        return;
    }
    buckets = calloc(len / 2, sizeof *buckets);
    PAPI_event_name_to_code(ev[0], &code);
    TP_RC(PAPI_profil(buckets, (unsigned)(len / 2 * sizeof *buckets), (vptr_t)start, 65536, es,
                      code, 100, PAPI_PROFIL_POSIX | PAPI_PROFIL_BUCKET_16),
          PAPI_OK);
    TP_RC(PAPI_start(es), PAPI_OK);
    p2p(10);                                                /* 1360 chunks: 13 crossings */
    tp_inject_child(N0, N2, 4096, TEMU_KIND_P2P, 10, NULL); /* 14 more, from another process */
    TP_RC(PAPI_stop(es, v), PAPI_OK);
    for (size_t i = 0; i < len / 2; i++) {
        ticks += buckets[i];
    }
    TP_EQ(v[0], 2720, "chunks sent by node 1");
    TP_EQ(ticks, 27, "profile ticks in the C library = floor(2720 / 100)");
    TP_RC(PAPI_profil(buckets, (unsigned)(len / 2 * sizeof *buckets), (vptr_t)start, 65536, es,
                      code, 0, PAPI_PROFIL_POSIX | PAPI_PROFIL_BUCKET_16),
          PAPI_OK);
    TP_EQ(temu_watch_armed(S), 0, "profiling off: no watch");
    free(buckets);
    tp_free_set(es);
}

/* PAPI_OVERFLOW_FORCE_SW: PAPI's own timer (10 ms of CPU time) reads the
 * set and calls the handler when the value passed the next deadline; the
 * emulator arms nothing. */
static void test_force_sw(void)
{
    static const char *const ev[] = {"PEVT_NW_USER_PP_SENT", "PEVT_NW_USER_PP_RECV"};
    long long v[2];
    int es = tp_make_set(ev, 2), armed;
    tp_log *l = tp_log_new(es);
    clock_t end;

    TP_RC(tp_overflow(es, ev[0], 1000, PAPI_OVERFLOW_FORCE_SW), PAPI_OK);
    TP_RC(PAPI_start(es), PAPI_OK);
    armed = (int)temu_watch_armed(S);
    end = clock() + CLOCKS_PER_SEC / 3;
    while (clock() < end) {
        p2p(1);
        for (volatile int k = 0; k < 20000; k++) {
        }
    }
    TP_RC(PAPI_stop(es, v), PAPI_OK);
    TP_EQ(armed, 0, "software overflow arms no watch");
    TP_CHECK(l->calls >= 1 && l->calls <= v[0] / 1000,
             "software overflow: %ld calls for %lld chunks (at most one per 10 ms tick)", l->calls,
             v[0]);
    TP_EQ(l->hits[1], 0, "only the overflowing event's bit");
    TP_EQ(l->bad_vectors, 0, "vectors decode");
    tp_free_set(es);
}

/* PEVT_NW_CYCLES is host time, not in the store: checked every 1 ms. */
static void test_cycles(void)
{
    static const char *const ev[] = {"PEVT_NW_CYCLES", "PEVT_NW_USER_PP_SENT"};
    long long v[2];
    int es = tp_make_set(ev, 2);
    tp_log *l = tp_log_new(es);

    TP_RC(tp_overflow(es, ev[0], 500000, 0), PAPI_OK); /* 1 ms of 500 MHz cycles */
    TP_RC(tp_overflow(es, ev[1], 136, 0), PAPI_OK);
    TP_RC(PAPI_start(es), PAPI_OK);
    p2p(2);
    tp_sleep_ms(60);
    TP_RC(PAPI_stop(es, v), PAPI_OK);
    /* each 1 ms check dispatches the crossings since the last one; the
     * crossings after the last check before the stop are not (a loaded
     * host may delay the timer: 10 ms allowed) */
    TP_CHECK(l->hits[0] >= v[0] / 500000 - 10 && l->hits[0] <= v[0] / 500000,
             "cycles overflowed %ld times for %lld cycles", l->hits[0], v[0]);
    TP_EQ(l->hits[1], 2, "the store event beside it");
    tp_free_set(es);
}

/* Sets of two threads, each overflowing on the same node counters; every
 * thread's handler runs for its own set, in that thread. */
static int thread_es[2];
static long thread_tid[2], wrong_thread;
static pthread_barrier_t barrier;

static unsigned long self_id(void)
{
    return (unsigned long)pthread_self();
}

static void thread_handler(int es, void *addr, long long vector, void *ctx)
{
    for (int i = 0; i < 2; i++) {
        if (es == thread_es[i] && syscall(SYS_gettid) != thread_tid[i]) {
            wrong_thread++;
        }
    }
    tp_handler(es, addr, vector, ctx);
}

static void *sampler_thread(void *arg)
{
    int i = (int)(intptr_t)arg, es = PAPI_NULL, code;
    PAPI_register_thread();
    thread_tid[i] = syscall(SYS_gettid);
    PAPI_create_eventset(&es);
    PAPI_add_named_event(es, "PEVT_NW_USER_PP_SENT");
    PAPI_event_name_to_code("PEVT_NW_USER_PP_SENT", &code);
    PAPI_overflow(es, code, i == 0 ? 100 : 272, 0, thread_handler);
    thread_es[i] = es;
    pthread_barrier_wait(&barrier); /* set made */
    pthread_barrier_wait(&barrier); /* logs made */
    PAPI_start(es);
    pthread_barrier_wait(&barrier); /* started */
    pthread_barrier_wait(&barrier); /* traffic done */
    PAPI_stop(es, NULL);
    PAPI_cleanup_eventset(es);
    PAPI_destroy_eventset(&es);
    PAPI_unregister_thread();
    return NULL;
}

static void test_threads(void)
{
    pthread_t t[2];
    TP_RC(PAPI_thread_init(self_id), PAPI_OK);
    pthread_barrier_init(&barrier, NULL, 3);
    for (int i = 0; i < 2; i++) {
        pthread_create(&t[i], NULL, sampler_thread, (void *)(intptr_t)i);
    }
    pthread_barrier_wait(&barrier);
    tp_log_new(thread_es[0]);
    tp_log_new(thread_es[1]);
    pthread_barrier_wait(&barrier);
    pthread_barrier_wait(&barrier);
    p2p(10);
    tp_inject_child(N0, N2, 4096, TEMU_KIND_P2P, 10, NULL);
    pthread_barrier_wait(&barrier);
    for (int i = 0; i < 2; i++) {
        pthread_join(t[i], NULL);
    }
    pthread_barrier_destroy(&barrier);
    TP_EQ(tp_log_of(thread_es[0])->calls, 27, "thread 1, threshold 100: 2720 chunks");
    TP_EQ(tp_log_of(thread_es[1])->calls, 10, "thread 2, threshold 272: 2720 chunks");
    TP_EQ(wrong_thread, 0, "every handler ran in the thread of its set");
}

/* ------------------------------------------------------- multiplexing */

/* Steady traffic through node 1, from node 0 to node 2: a 4096-byte
 * point-to-point message (8 packets, 136 chunks on the escape VC), an
 * 8192-byte MPI_COMM_WORLD collective (16 packets, 272 chunks, VC 4) and a
 * 2048-byte sub-communicator one (4 packets, 68 chunks, VC 5). */
static void mpx_send(int kind)
{
    static const uint64_t bytes[] = {4096, 8192, 2048};
    static const temu_kind kinds[] = {TEMU_KIND_P2P, TEMU_KIND_COLL_WORLD, TEMU_KIND_COLL_SUB};
    tp_inject(S, N0, N2, bytes[kind], kinds[kind], 1);
}

/* Six send masks and two receive masks: refused in one set, time-sliced in
 * a multiplexed one, exact estimates on the traffic clock; the set
 * controls its links alone while it holds them. */
static void test_multiplex(void)
{
    static const char *const ev[] = {"PEVT_NW_USER_PP_SENT",
                                     "PEVT_NW_USER_ESC_PP_SENT",
                                     "PEVT_NW_USER_WORLD_COL_SENT",
                                     "PEVT_NW_USER_SUBC_COL_SENT",
                                     "PEVT_NW_SENT",
                                     "PEVT_NW_COMMWORLD_COL_SENT",
                                     "PEVT_NW_USER_PP_RECV",
                                     "PEVT_NW_USER_WORLD_COL_RECV"};
    enum { N = 8, K = 3 };
    /* per message kind (p2p, world, sub-communicator), from the packet
     * rules above; PEVT_NW_SENT without :vc counts all seven channels */
    static const long long want[N * K] = {136, 0,   0,  136, 0,   0, 0, 272, 0, 0, 0,  68,
                                          136, 272, 68, 0,   272, 0, 8, 0,   0, 0, 16, 0};
    /* first fit: four send masks and one receive mask per group */
    static const int group[N] = {0, 0, 0, 0, 1, 1, 0, 1};
    long long per[N * K];
    int plain = PAPI_NULL, es, reader, code;

    tp_per_kind(ev, N, mpx_send, K, per, want);
    /* not multiplexed: the 5th send mask is refused */
    TP_RC(PAPI_create_eventset(&plain), PAPI_OK);
    for (int e = 0; e < 4; e++) {
        TP_RC(PAPI_add_named_event(plain, ev[e]), PAPI_OK);
    }
    TP_RC(PAPI_add_named_event(plain, ev[4]), PAPI_ECNFLCT);
    tp_free_set(plain);

    es = tp_mpx_set(cidx, 2000000);
    for (int e = 0; e < N; e++) {
        TP_RC(PAPI_add_named_event(es, ev[e]), PAPI_OK);
    }
    PAPI_event_name_to_code(ev[0], &code);
    TP_RC(PAPI_overflow(es, code, 100, 0, tp_handler), PAPI_ECNFLCT);     /* time-sliced */
    TP_RC(PAPI_add_named_event(es, "PEVT_NW_USER_DYN_PP_RECV"), PAPI_OK); /* still usable */
    TP_RC(PAPI_remove_named_event(es, "PEVT_NW_USER_DYN_PP_RECV"), PAPI_OK);
    /* the traffic clock takes messages:N, N >= 1, and nothing else */
    setenv("TORUSEMU_MPX_CLOCK", "messages:0", 1);
    TP_RC(PAPI_start(es), PAPI_EINVAL);
    setenv("TORUSEMU_MPX_CLOCK", "ticks:5", 1);
    TP_RC(PAPI_start(es), PAPI_EINVAL);
    unsetenv("TORUSEMU_MPX_CLOCK");
    {
        /* slices of 2 messages over a cycle of 3 kinds: the groups see
         * different mixes, so an estimate is exact only if slicing and
         * scaling both are */
        tp_mpx x = {"multiplexed", ev, N, group, mpx_send, K, per, 2, 40, 0};
        tp_check_mpx(&x, es);
    }
    /* its links are reprogrammed every slice: no other set may attach them
     * while it holds them (stopped, it still does) */
    reader = tp_make_set(ev, 1);
    TP_RC(PAPI_start(reader), PAPI_ECNFLCT);
    tp_free_set(es);
    TP_RC(PAPI_start(reader), PAPI_OK); /* the links are free again */
    TP_RC(PAPI_stop(reader, NULL), PAPI_OK);
    tp_free_set(reader);
}

/* Events that fit one group: a multiplexed set counts them exactly, may
 * overflow, and shares its links like a plain set. */
static void test_multiplex_one_group(void)
{
    static const char *const ev[] = {"PEVT_NW_USER_PP_SENT", "PEVT_NW_USER_PP_RECV"};
    long long v[2], r[1];
    int es = tp_mpx_set(cidx, 0), reader;
    tp_log *l = tp_log_new(es);

    for (int e = 0; e < 2; e++) {
        TP_RC(PAPI_add_named_event(es, ev[e]), PAPI_OK);
    }
    TP_RC(tp_overflow(es, ev[0], 100, 0), PAPI_OK);
    /* an event that would need a second group is refused while it overflows */
    TP_RC(PAPI_add_named_event(es, "PEVT_NW_USER_WORLD_COL_RECV"), PAPI_ECNFLCT);
    TP_RC(PAPI_start(es), PAPI_OK);
    p2p(10);
    TP_RC(PAPI_stop(es, v), PAPI_OK);
    TP_EQ(v[0], 1360, "one group: exact chunks");
    TP_EQ(v[1], 80, "one group: exact packets");
    TP_EQ(l->calls, 13, "overflow in a multiplexed set of one group");
    /* it holds its links as a plain set does: a reader may join */
    reader = tp_make_set(ev, 1);
    TP_RC(PAPI_start(reader), PAPI_OK);
    p2p(1);
    TP_RC(PAPI_stop(reader, r), PAPI_OK);
    TP_EQ(r[0], 136, "a reader beside it");
    tp_free_set(reader);
    tp_free_set(es);
}

/* With a slice longer than the run, the first group counts all the time
 * (scale 1, exact) and the others have had no time (read 0). */
static void test_multiplex_first_slice(void)
{
    static const char *const ev[] = {"PEVT_NW_USER_PP_RECV", "PEVT_NW_USER_WORLD_COL_RECV"};
    long long v[2];
    int es = tp_mpx_set(cidx, 2000000000); /* 2 s: the first slice ends 2 s after the start */

    for (int e = 0; e < 2; e++) {
        TP_RC(PAPI_add_named_event(es, ev[e]), PAPI_OK);
    }
    TP_RC(PAPI_start(es), PAPI_OK);
    p2p(3);
    TP_RC(PAPI_read(es, v), PAPI_OK);
    TP_EQ(v[0], 24, "first group, active since the start: exact");
    TP_EQ(v[1], 0, "second group, never active yet: 0");
    TP_RC(PAPI_reset(es), PAPI_OK);
    TP_RC(PAPI_read(es, v), PAPI_OK);
    TP_EQ(v[0], 0, "reset zeroes a multiplexed set");
    TP_RC(PAPI_stop(es, v), PAPI_OK);
    tp_free_set(es);
}

int main(int argc, char **argv)
{
    S = tp_begin(&argc, argv, "bgq:4x4x4x4x2", 128);
    if (S == NULL) {
        return tp_finish();
    }
    M = temu_session_machine(S);
    N0 = node_at(0);
    N1 = node_at(1);
    N2 = node_at(2);
    TP_RC(PAPI_library_init(PAPI_VER_CURRENT), PAPI_VER_CURRENT);
    TP_RC(PAPI_multiplex_init(), PAPI_OK);
    cidx = tp_component("bgq_nwunit");
    if (cidx >= 0) {
        test_exact();
        test_thresholds();
        test_derived();
        test_reset();
        test_read_reset();
        test_remove();
        test_errors();
        test_force_sw();
        test_profil();
        test_cycles();
        test_multiplex();
        test_multiplex_one_group();
        test_multiplex_first_slice();
        test_threads();
    }
    TP_EQ(temu_watch_armed(S), 0, "every watch disarmed at the end");
    PAPI_shutdown();
    temu_session_close(S);
    return tp_finish();
}
