/*
 * idle_backoff.h - how long a thread that keeps waiting sleeps
 * (mpi/vt_idle.c; doc/performance.md, "Live runs in virtual time").  Pure:
 * a function of the thread's streak and the host time of each call.
 *
 * A streak is a run of calls less than TMPI_IDLE_STREAK_NS of host time
 * apart that no completed MPI call ends (tmpi_idle_restart: a new wait
 * starts a new streak).  The first TMPI_IDLE_YIELDS calls of a streak only
 * yield the core; the next ones sleep TMPI_IDLE_STEP_NS longer each, up to
 * TMPI_IDLE_MAX_SLEEP_NS: a wait then costs one wake-up per 200 us instead
 * of a core, a short one a few yields.  A streak that has lasted
 * TMPI_IDLE_LONG_NS (a rank idle through another group's test: GPCNeT's
 * congestor ranks during the isolated tests) sleeps up to
 * TMPI_IDLE_LONG_SLEEP_NS: 12 such ranks woke 60,000 times a second.
 */
#ifndef TMPI_IDLE_BACKOFF_H
#define TMPI_IDLE_BACKOFF_H

#include <stdint.h>

#define TMPI_IDLE_YIELDS 32u              /* plain yields before the first sleep */
#define TMPI_IDLE_STEP_NS 2000ll          /* each further call sleeps this much longer */
#define TMPI_IDLE_MAX_SLEEP_NS 200000ll   /* ... up to this */
#define TMPI_IDLE_STREAK_NS 2000000ll     /* calls further apart start a new streak */
#define TMPI_IDLE_LONG_NS 50000000ll      /* a streak this old is a long wait ... */
#define TMPI_IDLE_LONG_SLEEP_NS 2000000ll /* ... and sleeps up to this */

typedef struct tmpi_idle {
    uint32_t streak;  /* calls in the current streak */
    int64_t last_ns;  /* host time the last call ended */
    int64_t start_ns; /* host time of the streak's first call */
} tmpi_idle;

/* A call at host time now_ns: how long it sleeps, ns (0: it only yields). */
static inline int64_t tmpi_idle_sleep_ns(tmpi_idle *s, int64_t now_ns)
{
    if (now_ns - s->last_ns > TMPI_IDLE_STREAK_NS) {
        s->streak = 0; /* a new wait */
    }
    if (s->streak == 0) {
        s->start_ns = now_ns;
    }
    s->last_ns = now_ns;
    if (s->streak < UINT32_MAX) {
        s->streak++;
    }
    if (s->streak <= TMPI_IDLE_YIELDS) {
        return 0;
    }
    int64_t cap = now_ns - s->start_ns >= TMPI_IDLE_LONG_NS ? TMPI_IDLE_LONG_SLEEP_NS
                                                            : TMPI_IDLE_MAX_SLEEP_NS;
    int64_t ns = (int64_t)(s->streak - TMPI_IDLE_YIELDS) * TMPI_IDLE_STEP_NS;
    return ns < cap ? ns : cap;
}

/* An MPI call of the thread completed something (not a poll that found
 * nothing): its next wait is a new one.  Without this a rank that waits
 * in every step of a loop (GPCNeT's ring tests: MPI_Waitall) never paused
 * 2 ms between two calls, so each of its waits slept 200 us at once. */
static inline void tmpi_idle_restart(tmpi_idle *s)
{
    s->streak = 0;
}

/* The call that slept has ended at host time now_ns: the sleep is not a
 * gap between two calls of the streak. */
static inline void tmpi_idle_woke(tmpi_idle *s, int64_t now_ns)
{
    s->last_ns = now_ns;
}

#endif
