/*
 * vt_idle.c - waiting ranks leave the cores to the online model
 * (doc/performance.md, "Live runs in virtual time").
 *
 * Under the online model the launcher runs Open MPI with
 * mpi_yield_when_idle 1: its waits (MPI_Recv, MPI_Wait, the collectives'
 * internal requests) then call sched_yield after every progress round that
 * found nothing.  With 16 ranks on 2 cores most ranks wait, and a thread
 * that yields is runnable again at once: the waiting ranks kept taking the
 * cores from the model thread whose deliveries they were waiting for (GPCNeT
 * under --model flow: about 200 us of the ranks' CPU per message against 25 us
 * of the model's).  This library is preloaded before libc, so its
 * sched_yield is the one Open MPI calls: a thread that keeps yielding yields
 * a few times, then sleeps, longer each time up to 200 us (idle_backoff.h),
 * so a wait costs a wake-up per 200 us instead of a core (2 ms once it has
 * lasted 50 ms); each completed MPI call starts a new wait.  Virtual time does
 * not depend on host time, so the clocks are unchanged; a message that
 * arrives while the receiver sleeps is taken at most 200 us later in host
 * time.  Without the online model sched_yield is the system's.
 */
#define _GNU_SOURCE 1
#include "idle_backoff.h"
#include "tmpi.h"

#include <sched.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static __thread tmpi_idle idle;

static int64_t idle_now_ns(void)
{
    struct timespec ts = {0, 0};
    tmpi_host_clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000ll + ts.tv_nsec;
}

TMPI_EXPORT int sched_yield(void)
{
    int64_t ns = __atomic_load_n(&tmpi_vt_online, __ATOMIC_RELAXED)
                     ? tmpi_idle_sleep_ns(&idle, idle_now_ns())
                     : 0;
    if (ns == 0) {
        return (int)syscall(SYS_sched_yield);
    }
    struct timespec ts = {0, (long)ns};
    nanosleep(&ts, NULL);
    tmpi_idle_woke(&idle, idle_now_ns());
    return 0;
}

void tmpi_vt_idle_restart(void)
{
    tmpi_idle_restart(&idle);
}
