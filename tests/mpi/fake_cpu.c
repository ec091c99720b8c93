/*
 * fake_cpu.c - a thread CPU clock that only locking advances, preloaded
 * after the layer (tests/mpi/vtime.sh, "the layer's locking is not
 * compute").
 *
 * CLOCK_THREAD_CPUTIME_ID reads a per-thread count that every
 * pthread_mutex_lock of that thread raises by 1 ms; every other clock is
 * the host's.  The layer reads the host's clocks through the next
 * definition after itself (mpi/vt_clocks.c, tmpi_host_clock_gettime), so
 * with LD_PRELOAD="layer:this" the rank's virtual clock sees this count:
 * a program that computes nothing between its MPI calls must then see
 * its virtual clock move only by what locks it takes outside MPI calls
 * (none), whatever the layer locks inside them.
 */
#include <pthread.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* glibc's own entry point of the mutex lock (GLIBC_2.2.5) */
extern int __pthread_mutex_lock(pthread_mutex_t *m);

/* this thread's fake CPU time, ns */
static __thread uint64_t fake_cpu_ns;

int pthread_mutex_lock(pthread_mutex_t *m)
{
    fake_cpu_ns += 1000000u; /* 1 ms of "CPU" per lock */
    return __pthread_mutex_lock(m);
}

int clock_gettime(clockid_t id, struct timespec *ts)
{
    int rc = 0;
    if (id == CLOCK_THREAD_CPUTIME_ID) {
        ts->tv_sec = (time_t)(fake_cpu_ns / 1000000000u);
        ts->tv_nsec = (long)(fake_cpu_ns % 1000000000u);
    } else {
        rc = (int)syscall(SYS_clock_gettime, id, ts);
    }
    return rc;
}
