/*
 * bgq_cnkunit_api.c - the bgq_cnkunit component through the PAPI API:
 * enumeration (29 events and the reserved id 387), names, the host-measured
 * per-thread counts (system calls exactly, page faults, preemptions
 * bracketed by the kernel's own count), the
 * emulated node and hardware-thread counters (read from the store: the
 * model never raises them, the test does), per-set views and reset.
 *
 * Run by ctests/bgq_cnkunit_api.sh with TORUSEMU_SESSION = a fresh BG/Q
 * midplane store and TORUSEMU_NODE=256.
 */
#define _GNU_SOURCE /* sched_setaffinity, RUSAGE_THREAD */
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "torus_ptest.h"
#include "torusemu.h"

#define PAGES 64

static temu_session *S;
static const temu_machine *M;
static int64_t NODE;

static void test_enumeration(int cidx)
{
    const PAPI_component_info_t *ci = PAPI_get_component_info(cidx);
    char names[64][128];
    PAPI_event_info_t info;
    int nquals = 0, n, code;

    TP_CHECK(ci->disabled == 0, "bgq_cnkunit disabled: %s", ci->disabled_reason);
    TP_EQ(ci->num_native_events, 30, "num_native_events (29 + the reserved id 387)");
    n = tp_enumerate(cidx, "bgq_cnkunit", names, 64, &nquals);
    TP_EQ(n, 30, "events enumerated, as PAPI enumerated them");
    TP_EQ(nquals, 0, "no qualifiers");
    TP_CHECK(strcmp(names[0], "PEVT_CNKNODE_MUINT") == 0, "id 385: %s", names[0]);
    TP_CHECK(strcmp(names[2], "PEVT_CNKPROC_RSV") == 0, "id 387: %s", names[2]);
    TP_CHECK(strcmp(names[3], "PEVT_CNKHWT_SYSCALL") == 0, "id 388: %s", names[3]);
    TP_CHECK(strcmp(names[29], "PEVT_CNKHWT_LRATE") == 0, "id 414: %s", names[29]);
    TP_RC(PAPI_event_name_to_code("PEVT_CNKPROC_RSV", &code), PAPI_OK);
    TP_RC(PAPI_get_event_info(code, &info), PAPI_OK);
    TP_CHECK(strncmp(info.long_descr, "Reserved", 8) == 0, "reserved id described: %s",
             info.long_descr);
}

static void test_names(void)
{
    static const char *const bad[] = {"PEVT_CNKHWT_SYSCALL:0", "PEVT_CNKHWT_SYSCALLS",
                                      "PEVT_CNKPROC_RSV:link=A+", "PEVT_CNKHWT_"};
    tp_bad_names("bgq_cnkunit", bad, (int)(sizeof bad / sizeof bad[0]));
}

/* System calls: the read- and write-class calls of the calling thread,
 * exactly (the component's own reads of /proc are left out). */
static void *other_writer(void *arg)
{
    int fd = *(int *)arg;
    for (int i = 0; i < 100; i++) {
        TP_CHECK(write(fd, "x", 1) == 1, "write");
    }
    return NULL;
}

static void test_syscalls(void)
{
    static const char *const ev[] = {"PEVT_CNKHWT_SYSCALL", "PEVT_CNKPROC_RSV"};
    long long v[2];
    char c;
    pthread_t t;
    int es = tp_make_set(ev, 2), out = open("/dev/null", O_WRONLY),
        in = open("/dev/zero", O_RDONLY);

    TP_CHECK(out >= 0 && in >= 0, "open /dev/null, /dev/zero");
    TP_RC(PAPI_start(es), PAPI_OK);
    for (int i = 0; i < 1000; i++) {
        TP_CHECK(write(out, "x", 1) == 1, "write");
    }
    TP_RC(PAPI_read(es, v), PAPI_OK);
    TP_EQ(v[0], 1000, "1000 writes");
    TP_EQ(v[1], 0, "reserved process counter");
    for (int i = 0; i < 500; i++) {
        TP_CHECK(read(in, &c, 1) == 1, "read");
    }
    /* another thread's calls are its own */
    pthread_create(&t, NULL, other_writer, &out);
    pthread_join(t, NULL);
    TP_RC(PAPI_read(es, v), PAPI_OK);
    TP_EQ(v[0], 1500, "and 500 reads; not the other thread's 100 writes");
    TP_RC(PAPI_reset(es), PAPI_OK);
    TP_CHECK(write(out, "x", 1) == 1, "write");
    TP_RC(PAPI_stop(es, v), PAPI_OK);
    TP_EQ(v[0], 1, "after reset");
    close(out);
    close(in);
    tp_free_set(es);
}

/* Page faults as data-storage interrupts: touching fresh anonymous pages
 * faults once per page (small pages; huge pages refused for the region). */
static void test_faults(void)
{
    static const char *const ev[] = {"PEVT_CNKHWT_DSI", "PEVT_CNKHWT_ISI"};
    long page = sysconf(_SC_PAGESIZE);
    long long v[2];
    int es = tp_make_set(ev, 2);
    char *p = mmap(NULL, (size_t)(PAGES * page), PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

    TP_CHECK(p != MAP_FAILED, "mmap");
    if (p == MAP_FAILED) {
        return;
    }
    madvise(p, (size_t)(PAGES * page), MADV_NOHUGEPAGE);
    TP_RC(PAPI_start(es), PAPI_OK);
    for (int i = 0; i < PAGES; i++) {
        p[(long)i * page] = 1;
    }
    TP_RC(PAPI_stop(es, v), PAPI_OK);
    /* one fault per page; a stray fault of the test itself is tolerated */
    TP_CHECK(v[0] >= PAGES && v[0] <= PAGES + 4, "DSI %lld for %d fresh pages", v[0], PAGES);
    TP_EQ(v[1], 0, "ISI: counted with DSI");
    munmap(p, (size_t)(PAGES * page));
    tp_free_set(es);
}

/* This thread's involuntary context switches, as the kernel counts them. */
static long preemptions(void)
{
    struct rusage ru;
    return getrusage(RUSAGE_THREAD, &ru) == 0 ? ru.ru_nivcsw : -1;
}

/* Preemptions as decrementer interrupts (PEVT_CNKHWT_DECREMENTER, the
 * calling thread's involuntary context switches): this thread and a child
 * process that spins are pinned to one CPU, and the thread computes until
 * the scheduler has preempted it at least 3 times (seconds at most).  The
 * kernel's count read just inside and just outside PAPI_start and
 * PAPI_stop brackets the event's value. */
static void test_preemptions(void)
{
    static const char *const ev[] = {"PEVT_CNKHWT_DECREMENTER"};
    cpu_set_t saved, one;
    long long v[1];
    long r0, r1, r2, r3;
    int es = tp_make_set(ev, 1), cpu = 0, status;
    pid_t spinner;
    time_t give_up;

    TP_CHECK(sched_getaffinity(0, sizeof saved, &saved) == 0, "sched_getaffinity");
    while (cpu < CPU_SETSIZE - 1 && !CPU_ISSET(cpu, &saved)) {
        cpu++;
    }
    CPU_ZERO(&one);
    CPU_SET(cpu, &one);
    TP_CHECK(sched_setaffinity(0, sizeof one, &one) == 0, "pin this thread to CPU %d", cpu);
    spinner = fork();
    if (spinner == 0) {
        alarm(60); /* never outlive the test */
        for (;;) {
        }
    }
    TP_CHECK(spinner > 0, "fork the spinning child");
    r0 = preemptions();
    TP_RC(PAPI_start(es), PAPI_OK);
    r1 = preemptions();
    give_up = time(NULL) + 20;
    while (preemptions() - r1 < 3 && time(NULL) < give_up) {
        for (volatile int k = 0; k < 100000; k++) {
        }
    }
    r2 = preemptions();
    TP_RC(PAPI_stop(es, v), PAPI_OK);
    r3 = preemptions();
    if (spinner > 0) {
        kill(spinner, SIGKILL);
        waitpid(spinner, &status, 0);
    }
    sched_setaffinity(0, sizeof saved, &saved);
    TP_CHECK(r2 - r1 >= 3, "the spinning child preempted this thread %ld times", r2 - r1);
    TP_CHECK(v[0] >= r2 - r1 && v[0] <= r3 - r0,
             "preemptions %lld: between the kernel's %ld (inside) and %ld (outside)", v[0], r2 - r1,
             r3 - r0);
    tp_free_set(es);
}

/* The emulated counters: node-wide, and per hardware thread of the
 * process's slot (slot 5 of 16 ranks per node: core 5, hardware thread 20). */
static pthread_barrier_t barrier;
static long long thread_view = -1;

static void *second_set(void *arg)
{
    static const char *const ev[] = {"PEVT_CNKNODE_MUINT"};
    int es = tp_make_set(ev, 1);
    (void)arg;
    TP_RC(PAPI_start(es), PAPI_OK);
    pthread_barrier_wait(&barrier); /* started */
    pthread_barrier_wait(&barrier); /* main has counted and reset */
    TP_RC(PAPI_stop(es, &thread_view), PAPI_OK);
    tp_free_set(es);
    PAPI_unregister_thread();
    return NULL;
}

static unsigned long self_id(void)
{
    return (unsigned long)pthread_self();
}

static void test_store_counters(void)
{
    static const char *const ev[] = {"PEVT_CNKNODE_MUINT", "PEVT_CNKNODE_NDINT", "PEVT_CNKHWT_FIT",
                                     "PEVT_CNKHWT_LRATE"};
    long long v[4];
    pthread_t t;
    int es;

    temu_identity_set(M, 5, NODE, 5);
    es = tp_make_set(ev, 4);
    TP_RC(PAPI_thread_init(self_id), PAPI_OK);
    pthread_barrier_init(&barrier, NULL, 2);
    pthread_create(&t, NULL, second_set, NULL);
    TP_RC(PAPI_start(es), PAPI_OK);
    pthread_barrier_wait(&barrier);
    /* traffic raises no CNK counter (polled reception, error-free links) */
    {
        temu_message msg = {0, NODE, 16384, NULL, TEMU_KIND_P2P};
        temu_error err;
        TP_CHECK(temu_inject(S, &msg, &err) == TEMU_OK, "inject");
    }
    TP_RC(PAPI_read(es, v), PAPI_OK);
    TP_EQ(v[0] + v[1] + v[2] + v[3], 0, "no CNK counts from traffic");
    temu_counter_add(S, temu_idx_bgq_cnk_node(M, NODE, 0), 5);
    temu_counter_add(S, temu_idx_bgq_cnk_hwt(M, NODE, 20, 4), 7);
    temu_counter_add(S, temu_idx_bgq_cnk_hwt(M, NODE, 21, 4), 100); /* another thread's */
    TP_RC(PAPI_read(es, v), PAPI_OK);
    TP_EQ(v[0], 5, "node MU interrupts written into the store");
    TP_EQ(v[2], 7, "FIT of hardware thread 20");
    /* reset changes only this set's view */
    TP_RC(PAPI_reset(es), PAPI_OK);
    temu_counter_add(S, temu_idx_bgq_cnk_node(M, NODE, 0), 2);
    TP_RC(PAPI_stop(es, v), PAPI_OK);
    TP_EQ(v[0], 2, "this set after its reset");
    pthread_barrier_wait(&barrier);
    pthread_join(t, NULL);
    TP_EQ(thread_view, 7, "the other thread's set kept its own start");
    pthread_barrier_destroy(&barrier);
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
    NODE = temu_identity_get(S).node;
    TP_RC(PAPI_library_init(PAPI_VER_CURRENT), PAPI_VER_CURRENT);
    cidx = tp_component("bgq_cnkunit");
    if (cidx >= 0) {
        test_enumeration(cidx);
        test_names();
        test_syscalls();
        test_faults();
        test_preemptions();
        test_store_counters();
    }
    PAPI_shutdown();
    temu_session_close(S);
    return tp_finish();
}
