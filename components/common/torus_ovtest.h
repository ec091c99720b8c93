/*
 * torus_ovtest.h - helpers of the overflow and multiplexing tests of the
 * papi-torus components (after torus_ptest.h): an overflow handler that
 * logs per event set, traffic injected by this process or by a child
 * process (so that the crossing is detected in another process), a
 * read+reset client, and exact multiplexed estimates on the traffic clock
 * (TORUSEMU_MPX_CLOCK: nothing depends on the host's timing).
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

/* Traffic of a multiplexed test: send(k) makes one message of kind k
 * (0 .. nkinds - 1) from this thread; it may do more (system calls, a
 * counter raised by hand) as long as it injects exactly one message, the
 * tick of the traffic clock. */
typedef void (*tp_send_fn)(int kind);

/* Count of each event per message kind, per[e * nkinds + k], each event
 * alone in a plain set (no conflict, no scaling), checked against the
 * counts the test derives from the machine's rules, want[]. */
static inline void tp_per_kind(const char *const *ev, int n, tp_send_fn send, int nkinds,
                               long long *per, const long long *want)
{
    for (int e = 0; e < n; e++) {
        for (int k = 0; k < nkinds; k++) {
            char what[160];
            int es = tp_make_set(&ev[e], 1);
            per[e * nkinds + k] = 0;
            TP_RC(PAPI_start(es), PAPI_OK);
            send(k);
            TP_RC(PAPI_stop(es, &per[e * nkinds + k]), PAPI_OK);
            tp_free_set(es);
            snprintf(what, sizeof what, "%s per message of kind %d, counted alone", ev[e], k);
            TP_EQ(per[e * nkinds + k], want[e * nkinds + k], what);
        }
    }
}

/* A multiplexed run on the traffic clock (tp_check_mpx). */
typedef struct tp_mpx {
    const char *label;
    const char *const *ev; /* the events, in the order they were added  */
    int n;
    const int *group; /* group of each event: the unit's rules, first fit */
    tp_send_fn send;
    int nkinds;
    const long long *per; /* per[e * nkinds + k] (tp_per_kind)          */
    int slice;            /* messages per slice                         */
    int nmsg;             /* message i is of kind i % nkinds            */
    int reset;            /* read and reset after every message (TAU)   */
} tp_mpx;

/*
 * Exact multiplexed estimates.  The stopped multiplexed set es is started
 * with TORUSEMU_MPX_CLOCK=messages:slice, so its slices are counted in
 * messages and end at the set's first read after them; reading after
 * every message, group g counts exactly the messages i with
 * (i / slice) % ngroups == g.  After message i the estimate of event e of
 * group g is, by the rule of doc/overflow-multiplex.md, the counts g saw
 * while active times the elapsed time over g's active time:
 *     floor(seen_e x (i + 1) / active_g)   (0 while g has not counted),
 * where seen_e counts from the last reset and the times from PAPI_start.
 * Every reading is checked, and the final one at PAPI_stop.
 */
static inline void tp_check_mpx(const tp_mpx *x, int es)
{
    long long v[64], seen[64] = {0}, want[64] = {0}, sum[64] = {0}, wsum[64] = {0};
    long active[64] = {0};
    int ngroups = 0, wrong = 0;
    char clock[48], what[200];

    for (int e = 0; e < x->n && e < 64; e++) {
        ngroups = x->group[e] + 1 > ngroups ? x->group[e] + 1 : ngroups;
    }
    snprintf(clock, sizeof clock, "messages:%d", x->slice);
    setenv("TORUSEMU_MPX_CLOCK", clock, 1);
    TP_RC(PAPI_start(es), PAPI_OK); /* reads the clock setting */
    unsetenv("TORUSEMU_MPX_CLOCK");
    for (int i = 0; i < x->nmsg; i++) {
        int k = i % x->nkinds, g = (i / x->slice) % ngroups;
        x->send(k);
        active[g]++;
        TP_RC(PAPI_read(es, v), PAPI_OK);
        for (int e = 0; e < x->n; e++) {
            long a = active[x->group[e]];
            if (x->group[e] == g) {
                seen[e] += x->per[e * x->nkinds + k];
            }
            want[e] = a > 0 ? seen[e] * (i + 1) / a : 0;
            if (v[e] != want[e] && wrong++ < 8) {
                snprintf(what, sizeof what, "%s %s after message %d (group %d of %d)", x->label,
                         x->ev[e], i, x->group[e], ngroups);
                TP_EQ(v[e], want[e], what);
            }
            sum[e] += v[e];
            wsum[e] += want[e];
        }
        if (x->reset) {
            TP_RC(PAPI_reset(es), PAPI_OK);
            memset(seen, 0, sizeof seen);
        }
    }
    TP_EQ(wrong, 0, "readings that differ from the exact estimate");
    TP_RC(PAPI_stop(es, v), PAPI_OK);
    for (int e = 0; e < x->n; e++) {
        snprintf(what, sizeof what, "%s %s at PAPI_stop", x->label, x->ev[e]);
        TP_EQ(v[e], x->reset ? 0 : want[e], what);
        if (x->reset) {
            snprintf(what, sizeof what, "%s %s: sum of the readings", x->label, x->ev[e]);
            TP_EQ(sum[e], wsum[e], what);
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
