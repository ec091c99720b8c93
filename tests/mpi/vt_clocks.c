/*
 * vt_clocks.c - a ping-pong between ranks 0 and 1 timed with the program's
 * own clocks as well as MPI_Wtime, for `torusemu run --virtual-time`
 * (tests/mpi/vtime.sh, doc/virtual-time.md "The program's own clocks").
 *
 *   vt_clocks BYTES ITERATIONS SLEEP_MS
 *
 * Rank 0 prints what each clock measured over ITERATIONS round trips of
 * BYTES (MPI_Wtime in picoseconds, clock_gettime and timespec_get in
 * nanoseconds, gettimeofday in microseconds), then over a nanosleep of
 * SLEEP_MS milliseconds: the program's CLOCK_MONOTONIC, and libevent's
 * monotonic timer (Open MPI's helper; "libevent absent" when the symbols
 * are not in the process).  Sleeping is not computation: in virtual time
 * it takes none, in host time at least SLEEP_MS.  Last it says whether
 * CLOCK_MONOTONIC went back across MPI_Init or MPI_Finalize.
 */
#define _GNU_SOURCE 1
#include <dlfcn.h>
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/time.h>
#include <time.h>

static const struct {
    clockid_t id;
    const char *name;
} clocks[] = {{CLOCK_MONOTONIC, "CLOCK_MONOTONIC"},
              {CLOCK_MONOTONIC_RAW, "CLOCK_MONOTONIC_RAW"},
              {CLOCK_MONOTONIC_COARSE, "CLOCK_MONOTONIC_COARSE"},
              {CLOCK_BOOTTIME, "CLOCK_BOOTTIME"},
              {CLOCK_REALTIME, "CLOCK_REALTIME"},
              {CLOCK_REALTIME_COARSE, "CLOCK_REALTIME_COARSE"}};
#define NCLOCKS (sizeof clocks / sizeof clocks[0])

typedef struct reading {
    double wtime;
    long long ns[NCLOCKS], tod_us, tsget_ns;
} reading;

static long long ns_of(const struct timespec *t)
{
    return (long long)t->tv_sec * 1000000000 + t->tv_nsec;
}

static long long clock_ns(clockid_t id)
{
    struct timespec t;
    clock_gettime(id, &t);
    return ns_of(&t);
}

static void read_all(reading *r)
{
    struct timeval tv;
    struct timespec ts;
    r->wtime = MPI_Wtime();
    for (size_t i = 0; i < NCLOCKS; i++) {
        r->ns[i] = clock_ns(clocks[i].id);
    }
    gettimeofday(&tv, NULL);
    r->tod_us = (long long)tv.tv_sec * 1000000 + tv.tv_usec;
    timespec_get(&ts, TIME_UTC);
    r->tsget_ns = ns_of(&ts);
}

/* libevent's monotonic timer, precise (CLOCK_MONOTONIC), as Open MPI's
 * event loop reads it; -1 when libevent is not in the process */
typedef struct evtimer evtimer;
static long long libevent_us(void)
{
    static evtimer *(*make)(void);
    static int (*configure)(evtimer *, int);
    static int (*get)(evtimer *, struct timeval *);
    static evtimer *timer;
    struct timeval tv;
    if (timer == NULL) {
        *(void **)&make = dlsym(RTLD_DEFAULT, "evutil_monotonic_timer_new");
        *(void **)&configure = dlsym(RTLD_DEFAULT, "evutil_configure_monotonic_time");
        *(void **)&get = dlsym(RTLD_DEFAULT, "evutil_gettime_monotonic");
        if (make == NULL || configure == NULL || get == NULL || (timer = make()) == NULL ||
            configure(timer, 1 /* EV_MONOT_PRECISE */) != 0) {
            return -1;
        }
    }
    if (get(timer, &tv) != 0) {
        return -1;
    }
    return (long long)tv.tv_sec * 1000000 + tv.tv_usec;
}

int main(int argc, char **argv)
{
    long long before_init = clock_ns(CLOCK_MONOTONIC);
    MPI_Init(&argc, &argv);
    long long after_init = clock_ns(CLOCK_MONOTONIC);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc != 4 || size < 2) {
        if (rank == 0) {
            fprintf(stderr, "usage: vt_clocks BYTES ITERATIONS SLEEP_MS (2 ranks or more)\n");
        }
        MPI_Finalize();
        return 2;
    }
    int n = atoi(argv[1]), iters = atoi(argv[2]), sleep_ms = atoi(argv[3]);
    char *buf = calloc((size_t)n + 1, 1);
    reading a, b;
    read_all(&a);
    for (int i = 0; rank < 2 && i < iters; i++) {
        if (rank == 0) {
            MPI_Send(buf, n, MPI_BYTE, 1, 5, MPI_COMM_WORLD);
            MPI_Recv(buf, n, MPI_BYTE, 1, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(buf, n, MPI_BYTE, 0, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(buf, n, MPI_BYTE, 0, 5, MPI_COMM_WORLD);
        }
    }
    read_all(&b);
    if (rank == 0) {
        printf("MPI_Wtime %lld ps\n", llround((b.wtime - a.wtime) * 1e12));
        for (size_t i = 0; i < NCLOCKS; i++) {
            printf("%s %lld ns\n", clocks[i].name, b.ns[i] - a.ns[i]);
        }
        printf("gettimeofday %lld us\n", b.tod_us - a.tod_us);
        printf("timespec_get %lld ns\n", b.tsget_ns - a.tsget_ns);
        long long m0 = clock_ns(CLOCK_MONOTONIC), e0 = libevent_us();
        struct timespec nap = {sleep_ms / 1000, (long)(sleep_ms % 1000) * 1000000};
        while (nanosleep(&nap, &nap) != 0) {
        }
        long long m1 = clock_ns(CLOCK_MONOTONIC), e1 = libevent_us();
        printf("sleep CLOCK_MONOTONIC %lld ns\n", m1 - m0);
        if (e0 < 0 || e1 < 0) {
            printf("libevent absent\n");
        } else {
            printf("sleep libevent %lld us\n", e1 - e0);
        }
    }
    free(buf);
    long long before_fin = clock_ns(CLOCK_MONOTONIC);
    MPI_Finalize();
    long long after_fin = clock_ns(CLOCK_MONOTONIC);
    if (rank == 0) {
        printf("CLOCK_MONOTONIC across MPI_Init %s\n",
               after_init >= before_init ? "forward" : "BACK");
        printf("CLOCK_MONOTONIC across MPI_Finalize %s\n",
               after_fin >= before_fin ? "forward" : "BACK");
    }
    return 0;
}
