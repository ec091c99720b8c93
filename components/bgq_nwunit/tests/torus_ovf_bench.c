/*
 * torus_ovf_bench - overflow costs (make bench-overflow; figures in
 * doc/performance.md):
 *
 *   latency  threshold crossing (as the injecting process stamps it,
 *            temu_watch_crossed_ns) -> entry of the handler, medians of
 *            ROUNDS crossings:
 *              raw watch signal, same process / another process, the
 *              armed thread spinning or asleep in nanosleep(2);
 *              PAPI_overflow handler of bgq_nwunit (through the
 *              component's dispatch and PAPI's), same / another process
 *   inject   ns per injection of a 1 KiB message over 5 hops on a BG/Q
 *            midplane: nothing armed, a watch armed on a counter the
 *            traffic misses, a watch on the route (never crossing)
 *
 * `torus_ovf_bench inject-only N` injects N messages with nothing armed
 * and nothing else: the callgrind run of ctests/bench-overflow.sh counts
 * the instructions the watch checks add to it.
 *
 * Needs TORUSEMU_SESSION = a BG/Q midplane store and TORUSEMU_NODE=128
 * (traffic from node 0 to node 256 passes node 128).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "papi.h"
#include "torusemu.h"

#define ROUNDS 2001
#define BENCH_SIGNAL (SIGRTMIN + 5)

static temu_session *S;
static const temu_machine *M;
static int64_t N0, N2;

/* Shared with the injecting child: a round number each side advances. */
typedef struct shared {
    volatile uint64_t request; /* parent: inject round r          */
    volatile uint64_t done;    /* child: round r injected          */
    volatile int quit;
} shared;

static shared *SH;
static volatile uint64_t entry_ns;
static volatile long entries;

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

static double median_us(uint64_t *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_u64);
    return (double)v[n / 2] / 1000.0;
}

static int64_t node_at(int a)
{
    int32_t c[5] = {a, 0, 0, 0, 0};
    return temu_router_index(M, c);
}

static void inject_one(temu_session *s, uint64_t bytes)
{
    temu_message msg = {N0, N2, bytes, NULL, TEMU_KIND_P2P};
    temu_error err;
    if (temu_inject(s, &msg, &err) != TEMU_OK) {
        fprintf(stderr, "torus_ovf_bench: %s\n", err.message);
        exit(1);
    }
}

/* The child: inject one message per request until told to quit. */
static pid_t start_injector(void)
{
    pid_t pid = fork();
    if (pid == 0) {
        temu_session *c;
        temu_error err;
        uint64_t seen = 0;
        if (temu_session_attach_env(&c, &err) != TEMU_OK) {
            _exit(2);
        }
        while (!SH->quit) {
            if (SH->request != seen) {
                seen = SH->request;
                inject_one(c, 4096);
                SH->done = seen;
            }
        }
        _exit(0);
    }
    return pid;
}

static void stop_injector(pid_t pid)
{
    SH->quit = 1;
    waitpid(pid, NULL, 0);
    SH->quit = 0;
    SH->request = SH->done = 0;
}

static void raw_handler(int sig, siginfo_t *si, void *uc)
{
    (void)sig;
    (void)si;
    (void)uc;
    entry_ns = now_ns();
    entries++;
}

static int32_t crossing_watch(void)
{
    int32_t best = -1;
    uint64_t t = 0;
    for (int32_t id = 0; id < TEMU_WATCH_MAX; id++) {
        if (temu_watch_crossed_ns(S, id) > t) {
            t = temu_watch_crossed_ns(S, id);
            best = id;
        }
    }
    return best;
}

/*
 * One latency series.  remote: the child injects; blocked: the armed
 * thread sleeps in nanosleep(2) (the signal ends the sleep), else it
 * spins.  The watch (id) crosses once per 4096-byte message.
 */
static double latency(int32_t id, int remote, int blocked, uint64_t *t)
{
    pid_t child = -1;
    if (remote) {
        child = start_injector();
    }
    for (int r = 0; r < ROUNDS; r++) {
        long before = entries;
        if (remote) {
            SH->request = (uint64_t)r + 1;
        } else {
            inject_one(S, 4096);
        }
        if (blocked) {
            /* nanosleep returns on a signal whatever SA_RESTART says */
            struct timespec ts = {0, 1000000};
            while (entries == before) {
                nanosleep(&ts, NULL);
            }
        } else {
            while (entries == before) {
            }
        }
        if (remote) {
            while (SH->done != (uint64_t)r + 1) {
            }
        }
        t[r] = entry_ns - temu_watch_crossed_ns(S, id);
    }
    if (remote) {
        stop_injector(child);
    }
    return median_us(t, ROUNDS);
}

static void bench_raw(uint64_t *t)
{
    int64_t idx = temu_idx_bgq_nw(M, node_at(1), TEMU_LINK_PLUS(0), TEMU_BGQ_NW_SENT_CHUNKS, 1);
    temu_watch_spec spec = {&idx, 1, BENCH_SIGNAL, 136, 0, 0};
    struct sigaction sa;
    temu_error err;
    int32_t id;

    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = raw_handler;
    sa.sa_flags = SA_SIGINFO;
    sigaction(BENCH_SIGNAL, &sa, NULL);
    if (temu_watch_arm(S, &spec, &id, &err) != TEMU_OK) {
        fprintf(stderr, "torus_ovf_bench: %s\n", err.message);
        exit(1);
    }
    printf("latency  raw watch signal, same process, thread running:        %7.2f us\n",
           latency(id, 0, 0, t));
    printf("latency  raw watch signal, same process, thread asleep:     %7.2f us\n",
           latency(id, 0, 1, t));
    printf("latency  raw watch signal, another process, thread running:     %7.2f us\n",
           latency(id, 1, 0, t));
    printf("latency  raw watch signal, another process, thread asleep:  %7.2f us\n",
           latency(id, 1, 1, t));
    temu_watch_disarm(S, id);
}

static void papi_handler(int es, void *pc, long long vector, void *ctx)
{
    (void)es;
    (void)pc;
    (void)vector;
    (void)ctx;
    entry_ns = now_ns();
    entries++;
}

static void bench_papi(uint64_t *t)
{
    int es = PAPI_NULL, code;
    int32_t id;
    if (PAPI_library_init(PAPI_VER_CURRENT) != PAPI_VER_CURRENT ||
        PAPI_create_eventset(&es) != PAPI_OK ||
        PAPI_add_named_event(es, "PEVT_NW_USER_PP_SENT:link=A+") != PAPI_OK ||
        PAPI_event_name_to_code("PEVT_NW_USER_PP_SENT:link=A+", &code) != PAPI_OK ||
        PAPI_overflow(es, code, 136, 0, papi_handler) != PAPI_OK || PAPI_start(es) != PAPI_OK) {
        fprintf(stderr, "torus_ovf_bench: PAPI set-up failed\n");
        exit(1);
    }
    inject_one(S, 4096);
    id = crossing_watch();
    printf("latency  PAPI handler (bgq_nwunit), same process, running:     %7.2f us\n",
           latency(id, 0, 0, t));
    printf("latency  PAPI handler (bgq_nwunit), same process, asleep:  %7.2f us\n",
           latency(id, 0, 1, t));
    printf("latency  PAPI handler (bgq_nwunit), another process, running:  %7.2f us\n",
           latency(id, 1, 0, t));
    printf("latency  PAPI handler (bgq_nwunit), another process, asleep:  %7.2f us\n",
           latency(id, 1, 1, t));
    PAPI_stop(es, NULL);
    PAPI_cleanup_eventset(es);
    PAPI_destroy_eventset(&es);
    PAPI_shutdown();
}

/* ns per 1 KiB injection over 5 hops, median of 7 runs of `n`. */
static double inject_ns(temu_session *s, const temu_message *msg, int n)
{
    uint64_t t[7];
    temu_error err;
    for (int r = 0; r < 7; r++) {
        uint64_t t0 = now_ns();
        for (int i = 0; i < n; i++) {
            temu_inject(s, msg, &err);
        }
        t[r] = now_ns() - t0;
    }
    qsort(t, 7, sizeof t[0], cmp_u64);
    return (double)t[3] / n;
}

static void bench_inject(void)
{
    temu_machine m;
    temu_session *s;
    temu_error err;
    int32_t far5[5] = {2, 1, 1, 1, 0}, id;
    int64_t elsewhere, on_route;
    temu_watch_spec spec = {NULL, 1, 0, UINT64_MAX / 2, 0, 0};
    temu_message msg;
    double none, far, route;

    if (temu_machine_parse("midplane", &m, &err) != TEMU_OK ||
        temu_session_create_private(&m, &s, &err) != TEMU_OK) {
        fprintf(stderr, "torus_ovf_bench: %s\n", err.message);
        exit(1);
    }
    msg = (temu_message){0, temu_router_index(&m, far5), 1024, NULL, TEMU_KIND_P2P};
    none = inject_ns(s, &msg, 200000);
    elsewhere = (int64_t)temu_counter_count(s) - 1;
    spec.counters = &elsewhere;
    temu_watch_arm(s, &spec, &id, &err);
    far = inject_ns(s, &msg, 200000);
    temu_watch_disarm(s, id);
    on_route = temu_idx_bgq_nw(&m, 0, TEMU_LINK_PLUS(0), TEMU_BGQ_NW_SENT_CHUNKS, 1);
    spec.counters = &on_route;
    temu_watch_arm(s, &spec, &id, &err);
    route = inject_ns(s, &msg, 200000);
    temu_watch_disarm(s, id);
    printf("inject   1 KiB, 5 hops, nothing armed:                 %7.1f ns\n", none);
    printf("inject   1 KiB, 5 hops, a watch armed elsewhere:       %7.1f ns (%+.1f)\n", far,
           far - none);
    printf("inject   1 KiB, 5 hops, a watch on the route:          %7.1f ns (%+.1f)\n", route,
           route - none);
    temu_session_close(s);
}

/* Nothing armed, nothing else: for callgrind. */
static void inject_only(long n)
{
    temu_machine m;
    temu_session *s;
    temu_error err;
    int32_t far5[5] = {2, 1, 1, 1, 0};
    temu_message msg;
    if (temu_machine_parse("midplane", &m, &err) != TEMU_OK ||
        temu_session_create_private(&m, &s, &err) != TEMU_OK) {
        exit(1);
    }
    msg = (temu_message){0, temu_router_index(&m, far5), 1024, NULL, TEMU_KIND_P2P};
    for (long i = 0; i < n; i++) {
        temu_inject(s, &msg, &err);
    }
    temu_session_close(s);
}

int main(int argc, char **argv)
{
    temu_error err;
    uint64_t *t = malloc(sizeof(uint64_t) * ROUNDS);
    if (argc == 3 && strcmp(argv[1], "inject-only") == 0) {
        inject_only(atol(argv[2]));
        return 0;
    }
    if (temu_session_attach_env(&S, &err) != TEMU_OK) {
        fprintf(stderr, "torus_ovf_bench: needs a BG/Q midplane session: %s\n", err.message);
        return 1;
    }
    M = temu_session_machine(S);
    N0 = node_at(0);
    N2 = node_at(2);
    SH = mmap(NULL, sizeof *SH, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (SH == MAP_FAILED || t == NULL) {
        return 1;
    }
    printf("torus_ovf_bench: medians of %d crossings; %ld online CPUs\n", ROUNDS,
           sysconf(_SC_NPROCESSORS_ONLN));
    bench_raw(t);
    bench_papi(t);
    bench_inject();
    free(t);
    temu_session_close(S);
    return 0;
}
