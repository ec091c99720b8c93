/*
 * torus_ovtest.h - helpers of the overflow and multiplexing tests of the
 * papi-torus components (after torus_ptest.h): an overflow handler that
 * logs per event set, traffic injected by this process or by a child
 * process (so that the crossing is detected in another process), steady
 * traffic for multiplexed estimates, and relative-error checks.
 */
#ifndef TORUS_OVTEST_H
#define TORUS_OVTEST_H

#include <dlfcn.h>
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "torus_ptest.h"
#include "torusemu.h"

#define TP_MAX_LOGS 8

/* What the handler saw for one event set. */
typedef struct tp_log {
    int used;
    int es;                  /* event set                                  */
    long calls;              /* handler calls                              */
    long hits[64];           /* per event index (PAPI_get_overflow_event_index) */
    long bad_vectors;        /* vectors that did not decode                */
    void *addr;              /* last address                               */
    uint64_t entry_ns;       /* CLOCK_MONOTONIC at the last entry          */
    long long in_handler[4]; /* PAPI_read in the handler (read_events) */
    int read_events;         /* > 0: read that many values in the handler  */
} tp_log;

static tp_log tp_logs[TP_MAX_LOGS];

static inline uint64_t tp_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* The log of event set es (made on first use). */
static inline tp_log *tp_log_of(int es)
{
    for (int i = 0; i < TP_MAX_LOGS; i++) {
        if (tp_logs[i].used && tp_logs[i].es == es) {
            return &tp_logs[i];
        }
    }
    for (int i = 0; i < TP_MAX_LOGS; i++) {
        if (!tp_logs[i].used) {
            memset(&tp_logs[i], 0, sizeof tp_logs[i]);
            tp_logs[i].used = 1;
            tp_logs[i].es = es;
            return &tp_logs[i];
        }
    }
    return &tp_logs[TP_MAX_LOGS - 1];
}

/* A fresh log for event set es (PAPI reuses the numbers of destroyed
 * sets).  Make it before the set can overflow: the handler only looks. */
static inline tp_log *tp_log_new(int es)
{
    tp_log *l = tp_log_of(es);
    memset(l, 0, sizeof *l);
    l->used = 1;
    l->es = es;
    return l;
}

static void tp_handler(int es, void *addr, long long vector, void *ctx)
{
    tp_log *l = tp_log_of(es);
    int idx[64], n = 64;
    (void)ctx;
    l->entry_ns = tp_now_ns();
    l->calls++;
    l->addr = addr;
    if (PAPI_get_overflow_event_index(es, vector, idx, &n) != PAPI_OK || n < 1) {
        l->bad_vectors++;
    }
    for (int i = 0; i < n; i++) {
        if (idx[i] >= 0 && idx[i] < 64) {
            l->hits[idx[i]]++;
        }
    }
    if (l->read_events > 0) {
        PAPI_read(es, l->in_handler);
    }
}

/* PAPI_overflow of a named event of es. */
static inline int tp_overflow(int es, const char *name, int threshold, int flags)
{
    int code = 0;
    if (PAPI_event_name_to_code(name, &code) != PAPI_OK) {
        TP_CHECK(0, "no event %s", name);
        return PAPI_ENOEVNT;
    }
    return PAPI_overflow(es, code, threshold, flags, tp_handler);
}

static inline void tp_inject(temu_session *s, int64_t src, int64_t dst, uint64_t bytes,
                             temu_kind kind, int times)
{
    temu_message msg = {src, dst, bytes, NULL, kind};
    temu_error err;
    for (int i = 0; i < times; i++) {
        if (temu_inject(s, &msg, &err) != TEMU_OK) {
            TP_CHECK(0, "inject: %s", err.message);
            return;
        }
    }
}

/* The same traffic injected by a child process attached to the session
 * ($TORUSEMU_SESSION): the crossing is detected there, and the signal
 * comes from it.  Returns when the child has exited (every signal it sent
 * is delivered by then).  *t0 (may be NULL): CLOCK_MONOTONIC just before
 * the child's first injection. */
static inline void tp_inject_child(int64_t src, int64_t dst, uint64_t bytes, temu_kind kind,
                                   int times, uint64_t *t0)
{
    int fd[2];
    pid_t pid;
    int status = 0;
    uint64_t start = 0;
    if (pipe(fd) != 0) {
        TP_CHECK(0, "pipe");
        return;
    }
    pid = fork();
    if (pid == 0) {
        temu_session *c;
        temu_error err;
        uint64_t t;
        close(fd[0]);
        if (temu_session_attach_env(&c, &err) != TEMU_OK) {
            _exit(2);
        }
        t = tp_now_ns();
        if (write(fd[1], &t, sizeof t) != (ssize_t)sizeof t) {
            _exit(3);
        }
        for (int i = 0; i < times; i++) {
            temu_message msg = {src, dst, bytes, NULL, kind};
            if (temu_inject(c, &msg, &err) != TEMU_OK) {
                _exit(4);
            }
        }
        _exit(0);
    }
    close(fd[1]);
    while (read(fd[0], &start, sizeof start) < 0 && errno == EINTR) {
    }
    close(fd[0]);
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    TP_CHECK(pid > 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0,
             "injecting child failed (status %d)", status);
    if (t0 != NULL) {
        *t0 = start;
    }
}

/* Steady traffic for multiplexed estimates: a child injects the message
 * list over and over for `seconds`, then reports the rounds it made. */
typedef struct tp_steady {
    pid_t pid;
    int fd;
} tp_steady;

static inline tp_steady tp_steady_begin(const temu_message *msgs, int n, double seconds)
{
    tp_steady st = {-1, -1};
    int fd[2];
    if (pipe(fd) != 0) {
        TP_CHECK(0, "pipe");
        return st;
    }
    st.pid = fork();
    if (st.pid == 0) {
        temu_session *c;
        temu_error err;
        long rounds = 0;
        uint64_t end;
        close(fd[0]);
        if (temu_session_attach_env(&c, &err) != TEMU_OK) {
            _exit(2);
        }
        end = tp_now_ns() + (uint64_t)(seconds * 1e9);
        while (tp_now_ns() < end) {
            for (int i = 0; i < n; i++) {
                temu_inject(c, &msgs[i], &err);
            }
            rounds++;
            for (volatile int k = 0; k < 500; k++) {
            }
        }
        if (write(fd[1], &rounds, sizeof rounds) != (ssize_t)sizeof rounds) {
            _exit(3);
        }
        _exit(0);
    }
    close(fd[1]);
    st.fd = fd[0];
    return st;
}

/* Rounds the child made (after it exited); -1 on failure. */
static inline long tp_steady_end(tp_steady st)
{
    long rounds = -1;
    int status = 0;
    ssize_t got;
    if (st.pid <= 0) {
        return -1;
    }
    while ((got = read(st.fd, &rounds, sizeof rounds)) < 0 && errno == EINTR) {
    }
    close(st.fd);
    while (waitpid(st.pid, &status, 0) < 0 && errno == EINTR) {
    }
    TP_CHECK(got == (ssize_t)sizeof rounds && WIFEXITED(status) && WEXITSTATUS(status) == 0,
             "steady traffic child failed");
    return got == (ssize_t)sizeof rounds ? rounds : -1;
}

/* |got - want| <= tol x want; with TP_VERBOSE set, every estimate is
 * printed (doc/overflow-multiplex.md quotes them). */
static inline void tp_near(long long got, long long want, double tol, const char *what,
                           const char *file, int line)
{
    double err = want > 0 ? ((double)got - (double)want) / (double)want : 1.0;
    if (getenv("TP_VERBOSE") != NULL) {
        printf("estimate %s: %lld, true %lld (%+.2f%%)\n", what, got, want, 100.0 * err);
    }
    if (want > 0 && err <= tol && err >= -tol) {
        tp_passed++;
    } else {
        tp_failed++;
        fprintf(stderr, "FAIL %s:%d: %s: estimate %lld, true %lld (%+.1f%%, tolerance %.0f%%)\n",
                file, line, what, got, want, 100.0 * err, 100.0 * tol);
    }
}
#define TP_NEAR(got, want, tol, what) tp_near((got), (want), (tol), (what), __FILE__, __LINE__)

/* True count of each event per round of msgs (each message injected once
 * by this process), every event counted alone in its own set: no
 * conflict, no scaling. */
static inline void tp_per_round(temu_session *s, const char *const *ev, int n,
                                const temu_message *msgs, int nmsg, long long *per)
{
    for (int e = 0; e < n; e++) {
        int es = tp_make_set(&ev[e], 1);
        per[e] = 0;
        TP_RC(PAPI_start(es), PAPI_OK);
        for (int i = 0; i < nmsg; i++) {
            tp_inject(s, msgs[i].src, msgs[i].dst, msgs[i].bytes, msgs[i].kind, 1);
        }
        TP_RC(PAPI_stop(es, &per[e]), PAPI_OK);
        tp_free_set(es);
    }
}

/* Multiplexed estimates v[] after `rounds` rounds of steady traffic: each
 * within tol of per[e] x rounds, and 0 for an event the traffic does not
 * reach; the traffic itself must have run long enough to be steady. */
static inline void tp_check_estimates(const char *label, const char *const *ev, int n,
                                      const long long *v, const long long *per, long rounds,
                                      double tol)
{
    TP_CHECK(rounds > 100, "steady traffic: %ld rounds", rounds);
    for (int e = 0; e < n; e++) {
        char what[160];
        snprintf(what, sizeof what, "%s %s", label, ev[e]);
        if (per[e] > 0) {
            TP_NEAR(v[e], per[e] * rounds, tol, what);
        } else {
            TP_EQ(v[e], 0, what);
        }
    }
}

/*
 * A client that reads and resets after every message, as TAU does at
 * every timer start and stop.  One set holds the n named events; each in
 * turn overflows alone, every thr[i], while send() is called nmsg times,
 * each call bringing event i exactly per[i].  After each message the
 * client reads and resets (PAPI_read + PAPI_reset, or PAPI_accum every
 * other time).  PAPI_reset zeroes the count but not the progress towards
 * the next overflow (Linux PERF_EVENT_IOC_RESET leaves the sampling
 * period running), so the handler runs exactly floor(nmsg x per[i] /
 * thr[i]) times.  A threshold above per[i] makes the check tell the rules
 * apart: restarting the threshold at each reset would give no call.
 */
static inline void tp_check_read_reset(const char *const *names, int n, const long long *thr,
                                       const long long *per, void (*send)(void), int nmsg)
{
    long long v[64], acc[64];
    int es = tp_make_set(names, n);
    tp_log *l = tp_log_new(es);

    for (int e = 0; e < n && e < 64; e++) {
        long long sum = 0, want = (long long)nmsg * per[e] / thr[e];
        long calls0 = l->calls, hits0 = l->hits[e];
        int exact = 0;
        char what[200];
        snprintf(what, sizeof what,
                 "%s: read+reset after each of %d messages of %lld, threshold %lld", names[e], nmsg,
                 per[e], thr[e]);
        TP_CHECK(thr[e] > per[e], "%s: the threshold must exceed one message", what);
        TP_RC(tp_overflow(es, names[e], (int)thr[e], 0), PAPI_OK);
        TP_RC(PAPI_start(es), PAPI_OK);
        for (int i = 0; i < nmsg; i++) {
            send();
            if (i % 2 == 0) {
                TP_RC(PAPI_read(es, v), PAPI_OK);
                TP_RC(PAPI_reset(es), PAPI_OK);
            } else {
                memset(acc, 0, sizeof acc);
                TP_RC(PAPI_accum(es, acc), PAPI_OK); /* reads into acc and resets */
                v[e] = acc[e];
            }
            exact += v[e] == per[e];
            sum += v[e];
        }
        TP_RC(PAPI_stop(es, v), PAPI_OK);
        TP_EQ(v[e], 0, what);
        TP_EQ(exact, nmsg, what);
        TP_EQ(sum, (long long)nmsg * per[e], what);
        TP_EQ(l->hits[e] - hits0, want, what);
        TP_EQ(l->calls - calls0, want, what);
        TP_RC(tp_overflow(es, names[e], 0, 0), PAPI_OK);
    }
    tp_free_set(es);
}

/* Sleep `ms` milliseconds of wall time whatever signals arrive. */
static inline void tp_sleep_ms(long ms)
{
    uint64_t end = tp_now_ns() + (uint64_t)ms * 1000000ull;
    uint64_t now;
    while ((now = tp_now_ns()) < end) {
        struct timespec ts = {(time_t)((end - now) / 1000000000ull),
                              (long)((end - now) % 1000000000ull)};
        nanosleep(&ts, NULL);
    }
}

/* Name of the object (library or program) holding address a. */
static inline const char *tp_object_of(const void *a)
{
    Dl_info info;
    const char *slash;
    if (a == NULL || dladdr(a, &info) == 0 || info.dli_fname == NULL) {
        return "?";
    }
    slash = strrchr(info.dli_fname, '/');
    return slash != NULL ? slash + 1 : info.dli_fname;
}

/* A multiplexed event set bound to component cidx with time slice `ns`
 * (0: PAPI's default). */
static inline int tp_mpx_set(int cidx, long ns)
{
    int es = PAPI_NULL;
    PAPI_option_t opt;
    TP_RC(PAPI_create_eventset(&es), PAPI_OK);
    TP_RC(PAPI_assign_eventset_component(es, cidx), PAPI_OK);
    if (ns == 0) {
        TP_RC(PAPI_set_multiplex(es), PAPI_OK);
    } else {
        memset(&opt, 0, sizeof opt);
        opt.multiplex.eventset = es;
        opt.multiplex.ns = (int)ns;
        opt.multiplex.flags = PAPI_MULTIPLEX_DEFAULT;
        TP_RC(PAPI_set_opt(PAPI_MULTIPLEX, &opt), PAPI_OK);
    }
    TP_EQ(PAPI_get_multiplex(es), 1, "PAPI_get_multiplex");
    return es;
}

#endif /* TORUS_OVTEST_H */
