/*
 * vt_clocks.c - the program's own clocks under `torusemu run
 * --virtual-time` (doc/virtual-time.md, "The program's own clocks").
 *
 * Benchmarks that time themselves with clock_gettime, gettimeofday, time
 * or timespec_get (GPCNeT's Avg and 99% columns, Fortran SYSTEM_CLOCK
 * through libgfortran, C++ std::chrono through libstdc++) would measure
 * this host.  Between the end of MPI_Init and MPI_Finalize, this library
 * (preloaded, so its definitions come first) answers those reads of the
 * wall clocks (clock_owner.h) made by the program with the host clock at
 * MPI_Init + the rank's virtual clock: differences measure virtual time,
 * every clock stays monotonic, CLOCK_REALTIME stays near the date.  Reads
 * made by the MPI runtime and its helpers keep host time: Open MPI's
 * progress engine and libevent's timers depend on it.  CPU-time clocks are
 * never changed (rank_vtime.c measures computation with them).
 *
 * Whose read it is: the caller's return address, looked up in a table of
 * shared objects' address ranges, each classified once by its file name
 * (tmpi_clock_runtime_object) when it first reads a clock; the main
 * executable is the program's.  The host clock is the next definition
 * (dlsym(RTLD_NEXT): libc's, which uses the vDSO), never this one.
 *
 * After MPI_Finalize the program's reads are host time again, moved on by
 * however far its virtual clock had run ahead of the host's, so no clock
 * goes back.  --host-clocks ($TORUSEMU_HOST_CLOCKS=1) keeps host time
 * throughout.
 */
#define _GNU_SOURCE 1
#include "clock_owner.h"
#include "run_env.h"
#include "tmpi.h"

#include <dlfcn.h>
#include <link.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

/* -------------------------------------------------- the host's clocks */

typedef int (*clock_gettime_fn)(clockid_t, struct timespec *);
typedef int (*gettimeofday_fn)(struct timeval *, void *);
typedef time_t (*time_fn)(time_t *);
typedef int (*timespec_get_fn)(struct timespec *, int);

static int syscall_clock_gettime(clockid_t id, struct timespec *ts)
{
    return (int)syscall(SYS_clock_gettime, id, ts);
}

/* The next definition of name after this library (libc's), or fallback. */
static void *next_def(void **slot, const char *name, void *fallback)
{
    void *f = __atomic_load_n(slot, __ATOMIC_RELAXED);
    if (f == NULL) {
        f = dlsym(RTLD_NEXT, name);
        f = f != NULL ? f : fallback;
        __atomic_store_n(slot, f, __ATOMIC_RELAXED);
    }
    return f;
}

static void *host_cgt, *host_gtod, *host_time, *host_tsget;

int tmpi_host_clock_gettime(clockid_t id, struct timespec *ts)
{
    clock_gettime_fn f =
        (clock_gettime_fn)next_def(&host_cgt, "clock_gettime", (void *)syscall_clock_gettime);
    return f(id, ts);
}

static int64_t host_ns(clockid_t id)
{
    struct timespec ts = {0, 0};
    tmpi_host_clock_gettime(id, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Stand-ins for when the next definition cannot be found (a static libc) */
static int host_gettimeofday_fallback(struct timeval *tv, void *tz)
{
    int64_t us = host_ns(CLOCK_REALTIME) / 1000;
    (void)tz;
    tv->tv_sec = (time_t)(us / 1000000);
    tv->tv_usec = (suseconds_t)(us % 1000000);
    return 0;
}

static time_t host_time_fallback(time_t *t)
{
    time_t s = (time_t)(host_ns(CLOCK_REALTIME) / 1000000000);
    if (t != NULL) {
        *t = s;
    }
    return s;
}

static int host_timespec_get_fallback(struct timespec *ts, int base)
{
    return base == TIME_UTC && tmpi_host_clock_gettime(CLOCK_REALTIME, ts) == 0 ? base : 0;
}

static int host_gettimeofday(struct timeval *tv, void *tz)
{
    gettimeofday_fn f =
        (gettimeofday_fn)next_def(&host_gtod, "gettimeofday", (void *)host_gettimeofday_fallback);
    return f(tv, tz);
}

/* ----------------------------------------------- the program's clocks */

enum { CLOCKS_HOST, CLOCKS_VIRTUAL, CLOCKS_AFTER };
#define REALTIME_INDEX 0 /* tmpi_wall_clock_index(CLOCK_REALTIME) */
static int clocks_mode;  /* CLOCKS_*: host before MPI_Init */
/* per wall clock: the host's at MPI_Init (whole us), and after
 * MPI_Finalize how far the virtual clock had run ahead of the host's */
static int64_t base_ns[TMPI_WALL_CLOCKS], ahead_ns[TMPI_WALL_CLOCKS];

void tmpi_clocks_start(void)
{
    const char *host = getenv(TMPI_VT_HOST_CLOCKS_ENV);
    if (host != NULL && strcmp(host, "1") == 0) {
        return;
    }
    for (int i = 0; i < TMPI_WALL_CLOCKS; i++) {
        base_ns[i] = tmpi_clock_base_ns(host_ns(tmpi_wall_clock_id(i)));
    }
    __atomic_store_n(&clocks_mode, CLOCKS_VIRTUAL, __ATOMIC_RELEASE);
}

void tmpi_clocks_stop(void)
{
    if (__atomic_load_n(&clocks_mode, __ATOMIC_ACQUIRE) != CLOCKS_VIRTUAL) {
        return;
    }
    int64_t vt = tmpi_vt_now_ps();
    int ahead = 0;
    for (int i = 0; i < TMPI_WALL_CLOCKS; i++) {
        int64_t d = tmpi_program_ns(base_ns[i], vt) - host_ns(tmpi_wall_clock_id(i));
        ahead_ns[i] = d > 0 ? d : 0;
        ahead |= d > 0;
    }
    __atomic_store_n(&clocks_mode, ahead ? CLOCKS_AFTER : CLOCKS_HOST, __ATOMIC_RELEASE);
}

/* Wall clock i as the program sees it now (mode VIRTUAL or AFTER). */
static int64_t program_ns(int mode, int i)
{
    if (mode == CLOCKS_VIRTUAL) {
        return tmpi_program_ns(base_ns[i], tmpi_vt_now_ps());
    }
    return host_ns(tmpi_wall_clock_id(i)) + ahead_ns[i];
}

/* ------------------------------------------------------- whose read */

/* A shared object's address range and whether its reads are the program's. */
typedef struct caller_range {
    uintptr_t lo, hi;
    int program;
} caller_range;

#define MAX_RANGES 64
static caller_range ranges[MAX_RANGES];
static int nranges; /* published (release) after the entry is written */
static pthread_mutex_t ranges_lock = PTHREAD_MUTEX_INITIALIZER;
/* this thread's last hit: most threads read the clock from one object */
static __thread caller_range last_hit __attribute__((tls_model("initial-exec")));

typedef struct find_object {
    uintptr_t addr;
    int index; /* objects visited; the first is the main executable */
    int found;
    caller_range r;
} find_object;

static int find_cb(struct dl_phdr_info *info, size_t size, void *arg)
{
    find_object *q = arg;
    uintptr_t lo = UINTPTR_MAX, hi = 0;
    (void)size;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type == PT_LOAD) {
            uintptr_t a = info->dlpi_addr + ph->p_vaddr;
            lo = a < lo ? a : lo;
            hi = a + ph->p_memsz > hi ? a + ph->p_memsz : hi;
        }
    }
    int main_exe = q->index++ == 0;
    if (q->addr < lo || q->addr >= hi) {
        return 0;
    }
    q->found = 1;
    q->r = (caller_range){lo, hi, main_exe || !tmpi_clock_runtime_object(info->dlpi_name)};
    return 1;
}

/* 1 when the code at addr (a return address) is the program's.  Code
 * outside every object (generated at run time) counts as the program's. */
static int program_caller(uintptr_t addr)
{
    if (addr >= last_hit.lo && addr < last_hit.hi) {
        return last_hit.program;
    }
    int n = __atomic_load_n(&nranges, __ATOMIC_ACQUIRE);
    for (int i = 0; i < n; i++) {
        if (addr >= ranges[i].lo && addr < ranges[i].hi) {
            last_hit = ranges[i];
            return last_hit.program;
        }
    }
    find_object q = {addr, 0, 0, {0, 0, 1}};
    dl_iterate_phdr(find_cb, &q);
    if (!q.found) {
        return 1;
    }
    pthread_mutex_lock(&ranges_lock);
    n = nranges;
    if (n < MAX_RANGES) {
        ranges[n] = q.r;
        __atomic_store_n(&nranges, n + 1, __ATOMIC_RELEASE);
    }
    pthread_mutex_unlock(&ranges_lock);
    last_hit = q.r;
    return q.r.program;
}

/* The mode when this read is the program's, else CLOCKS_HOST. */
static inline int mode_for(void *ret)
{
    int mode = __atomic_load_n(&clocks_mode, __ATOMIC_ACQUIRE);
    if (__builtin_expect(mode == CLOCKS_HOST, 1)) {
        return CLOCKS_HOST;
    }
    return program_caller((uintptr_t)ret) ? mode : CLOCKS_HOST;
}

/* ------------------------------------------------- the definitions */

TMPI_EXPORT int clock_gettime(clockid_t id, struct timespec *ts)
{
    int i = tmpi_wall_clock_index(id), mode;
    if (i >= 0 && (mode = mode_for(__builtin_return_address(0))) != CLOCKS_HOST) {
        int64_t ns = program_ns(mode, i);
        ts->tv_sec = (time_t)(ns / 1000000000);
        ts->tv_nsec = (long)(ns % 1000000000);
        return 0;
    }
    return tmpi_host_clock_gettime(id, ts);
}

TMPI_EXPORT int gettimeofday(struct timeval *restrict tv, void *restrict tz)
{
    int mode = mode_for(__builtin_return_address(0));
    if (mode == CLOCKS_HOST) {
        return host_gettimeofday(tv, tz);
    }
    if (tz != NULL) { /* obsolete, zeros on Linux: the host's answer */
        struct timeval ignored;
        host_gettimeofday(&ignored, tz);
    }
    int64_t us = program_ns(mode, REALTIME_INDEX) / 1000;
    tv->tv_sec = (time_t)(us / 1000000);
    tv->tv_usec = (suseconds_t)(us % 1000000);
    return 0;
}

TMPI_EXPORT time_t time(time_t *t)
{
    int mode = mode_for(__builtin_return_address(0));
    if (mode == CLOCKS_HOST) {
        return ((time_fn)next_def(&host_time, "time", (void *)host_time_fallback))(t);
    }
    time_t s = (time_t)(program_ns(mode, REALTIME_INDEX) / 1000000000);
    if (t != NULL) {
        *t = s;
    }
    return s;
}

TMPI_EXPORT int timespec_get(struct timespec *ts, int base)
{
    int mode;
    if (base == TIME_UTC && (mode = mode_for(__builtin_return_address(0))) != CLOCKS_HOST) {
        int64_t ns = program_ns(mode, REALTIME_INDEX);
        ts->tv_sec = (time_t)(ns / 1000000000);
        ts->tv_nsec = (long)(ns % 1000000000);
        return base;
    }
    return ((timespec_get_fn)next_def(&host_tsget, "timespec_get",
                                      (void *)host_timespec_get_fallback))(ts, base);
}
