/*
 * replay_watch.c - the progress line of `torusemu replay` and its end by a
 * signal (replay_watch.h).
 *
 * Progress.  A timed run's engine calls us every `every` steps (a counter
 * on its hot path, no clock); we read the host clock only then, and print
 * at most twice a second, from the first second on, when stderr is a
 * terminal: virtual time reached, the timing model's events and their rate
 * over the last interval, the share of the packets delivered, and what is
 * left estimated as (packets to come) x (host time of this run so far) /
 * (packets delivered).  The packets to come are the engine's extrapolation
 * (temu_vt_progress): the cost of a run is its packets' hops, which
 * operations do not measure (one wait-all of a pattern's step is one
 * operation and most of its time).  Congestion that builds up later makes
 * the estimate optimistic.  An untimed replay shows the share of its rank
 * operations replayed.
 *
 * Interruption.  The handlers of the signals that would end the process
 * say where the replay was (as of the last progress count), remove the
 * store and its temporary directory, and end the process by the same
 * signal, so that a shell or `timeout` sees what ended it.  Everything
 * they call is async-signal-safe: write, unlink, rmdir, close, memcpy,
 * strlen, sigprocmask, raise; the numbers come from lock-free atomics.
 */
#define _GNU_SOURCE 1
#include "replay_watch.h"
#include "cli.h"

#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* Engine steps between progress calls on a terminal (and for the
 * interruption message): ~1-10 ms of host time. */
#define STEPS_PER_CALL 1024
/* Host seconds before the first line, and between lines. */
#define FIRST_LINE_S 1.0
#define LINE_GAP_S 0.5

/* The signals whose default action ends the process (SIGKILL and SIGSTOP
 * cannot be caught; SIGTRAP is left to debuggers). */
static const int guarded[] = {SIGHUP,  SIGINT,    SIGQUIT, SIGILL,  SIGABRT, SIGBUS,  SIGFPE,
                              SIGUSR1, SIGSEGV,   SIGUSR2, SIGPIPE, SIGALRM, SIGTERM, SIGXCPU,
                              SIGXFSZ, SIGVTALRM, SIGPROF, SIGPWR,  SIGSYS};
#define NGUARDED ((int)(sizeof guarded / sizeof guarded[0]))

static struct {
    int show;                  /* lines are printed                        */
    int terminal;              /* on a terminal: each over the one before  */
    int every_call;            /* REPLAY_WATCH_ENV: at every call, no clock */
    int line_open;             /* a terminal line without its newline */
    struct timespec start;     /* of the replay */
    struct timespec run_start; /* of the current timed run */
    double last_line;          /* host seconds of the last line */
    uint64_t last_events;      /* model events at the last line */
    double last_events_t;      /* and when */
    char phase[96];            /* gpcnet: what the current run is */
    int runs;                  /* timed runs begun */
    temu_vt_watch vt;
    /* for the handlers */
    char store[PATH_MAX], tmpdir[PATH_MAX];
    volatile sig_atomic_t store_on; /* store names the file to remove */
    int installed[NGUARDED];
    sigset_t guarded_set;
    struct sigaction old[NGUARDED];
    char names[NGUARDED][48];
    stack_t alt;
} w;

/* where the replay is, as of the last count */
enum { AT_NOWHERE, AT_OPS, AT_RUN };
static atomic_int at_kind;
static atomic_int_least64_t at_ps;
static atomic_uint_least64_t at_events, at_done, at_total;

static double seconds_since(const struct timespec *t0)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)(t.tv_sec - t0->tv_sec) + 1e-9 * (double)(t.tv_nsec - t0->tv_nsec);
}

/* ------------------------------------------------ async-signal-safe text */

typedef struct text {
    char b[512];
    size_t n;
} text;

static void put(text *t, const char *s)
{
    size_t k = strlen(s);
    if (k > sizeof t->b - t->n) {
        k = sizeof t->b - t->n;
    }
    memcpy(t->b + t->n, s, k);
    t->n += k;
}

/* v in decimal, at least `digits` digits (zeros in front) */
static void put_u64(text *t, uint64_t v, int digits)
{
    char d[24];
    int i = (int)sizeof d - 1;
    d[i] = '\0';
    do {
        d[--i] = (char)('0' + v % 10);
        v /= 10;
        digits--;
    } while (v != 0 || digits > 0);
    put(t, d + i);
}

/* picoseconds as microseconds with every digit */
static void put_us(text *t, int64_t ps)
{
    put_u64(t, (uint64_t)(ps / 1000000), 1);
    put(t, ".");
    put_u64(t, (uint64_t)(ps % 1000000), 6);
}

/* ------------------------------------------------ interruption */

/* "torusemu replay: stopped by signal N (NAME) at ..., after ...; the
 * store was removed" */
static void say_where(int sig, const char *name)
{
    text t = {.n = 0};
    if (w.line_open) {
        put(&t, "\n");
    }
    put(&t, "torusemu replay: stopped by signal ");
    put_u64(&t, (uint64_t)sig, 1);
    put(&t, " (");
    put(&t, name);
    put(&t, ")");
    int kind = atomic_load_explicit(&at_kind, memory_order_relaxed);
    if (kind == AT_RUN) {
        put(&t, " at ");
        put_us(&t, atomic_load_explicit(&at_ps, memory_order_relaxed));
        put(&t, " us of virtual time, after ");
        put_u64(&t, atomic_load_explicit(&at_events, memory_order_relaxed), 1);
        put(&t, " events of the timing model and ");
    } else if (kind == AT_OPS) {
        put(&t, " after ");
    }
    if (kind == AT_NOWHERE) {
        put(&t, " before its first progress count");
    } else {
        put_u64(&t, atomic_load_explicit(&at_done, memory_order_relaxed), 1);
        put(&t, " of ");
        put_u64(&t, atomic_load_explicit(&at_total, memory_order_relaxed), 1);
        put(&t, " rank operations (as of the last progress count)");
    }
    put(&t, w.store_on ? "; its store was removed\n" : "\n");
    ssize_t rc = write(STDERR_FILENO, t.b, t.n);
    (void)rc; /* nothing to do when stderr is gone */
}

static void on_signal(int sig)
{
    const char *name = "?";
    for (int i = 0; i < NGUARDED; i++) {
        if (guarded[i] == sig) {
            name = w.names[i];
        }
    }
    say_where(sig, name);
    if (w.store_on) {
        unlink(w.store);
    }
    if (w.tmpdir[0]) {
        cli_temp_dir_remove(w.tmpdir);
    }
    /* SA_RESETHAND made the action the default one: end by the signal */
    sigset_t s;
    sigemptyset(&s);
    sigaddset(&s, sig);
    sigprocmask(SIG_UNBLOCK, &s, NULL);
    raise(sig);
}

/* Handlers on the signals whose action is the default one (an ignored
 * SIGHUP under nohup stays ignored, a profiler's SIGPROF its own). */
static void guard(void)
{
    struct sigaction sa;
    static char altstack[65536]; /* SIGSEGV of an overflowed stack */
    w.alt.ss_sp = altstack;
    w.alt.ss_size = sizeof altstack;
    w.alt.ss_flags = 0;
    sigaltstack(&w.alt, NULL);
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sa.sa_flags = SA_RESETHAND | SA_ONSTACK;
    sigemptyset(&sa.sa_mask);
    for (int i = 0; i < NGUARDED; i++) {
        sigaddset(&sa.sa_mask, guarded[i]); /* one handler at a time */
    }
    w.guarded_set = sa.sa_mask;
    for (int i = 0; i < NGUARDED; i++) {
        w.installed[i] = 0;
        snprintf(w.names[i], sizeof w.names[i], "%s", strsignal(guarded[i]));
        if (sigaction(guarded[i], NULL, &w.old[i]) == 0 && w.old[i].sa_handler == SIG_DFL &&
            !(w.old[i].sa_flags & SA_SIGINFO)) {
            w.installed[i] = sigaction(guarded[i], &sa, NULL) == 0;
        }
    }
}

/* ------------------------------------------------ progress */

static void line_end(void)
{
    if (w.line_open) {
        fputc('\n', stderr);
        w.line_open = 0;
    }
}

/* Print one progress line: text after "torusemu replay: ". */
static void line_print(const char *s)
{
    if (w.terminal) {
        /* over the previous line; ESC [ K clears what it leaves */
        fprintf(stderr, "\rtorusemu replay: %s\033[K", s);
        w.line_open = 1;
    } else {
        fprintf(stderr, "torusemu replay: %s\n", s);
    }
    fflush(stderr);
}

/* done of total in whole percent, rounded down (100 % only when all is
 * done) */
static uint64_t percent(uint64_t done, uint64_t total)
{
    return total == 0 ? 0 : (uint64_t)((long double)done * 100 / (long double)total);
}

/* A line from the first second on, at most every half second; with
 * REPLAY_WATCH_ENV at every call.  t: host seconds since the start. */
static int line_due(double t)
{
    return w.show && (w.every_call || (t >= FIRST_LINE_S && t - w.last_line >= LINE_GAP_S));
}

/* Where the replay is, for the handlers. */
typedef struct where {
    int kind; /* AT_OPS, AT_RUN */
    int64_t ps;
    uint64_t events, done, total;
} where;

static void publish(const where *x)
{
    atomic_store_explicit(&at_ps, x->ps, memory_order_relaxed);
    atomic_store_explicit(&at_events, x->events, memory_order_relaxed);
    atomic_store_explicit(&at_done, x->done, memory_order_relaxed);
    atomic_store_explicit(&at_total, x->total, memory_order_relaxed);
    atomic_store_explicit(&at_kind, x->kind, memory_order_relaxed);
}

/* Publish x and print line s with the guarded signals blocked: a handler
 * then says the figures of the last line printed, never of one it cut
 * short or that never came. */
static void publish_print(const where *x, const char *s)
{
    sigset_t before;
    pthread_sigmask(SIG_BLOCK, &w.guarded_set, &before);
    publish(x);
    line_print(s);
    pthread_sigmask(SIG_SETMASK, &before, NULL);
}

void replay_watch_ops(void *ctx, uint64_t done, uint64_t total)
{
    where x = {AT_OPS, 0, 0, done, total};
    char s[160];
    (void)ctx;
    double t = w.show ? seconds_since(&w.start) : 0;
    if (total == 0 || !line_due(t)) {
        publish(&x);
        return;
    }
    w.last_line = t;
    snprintf(s, sizeof s, "%3" PRIu64 "%% (%" PRIu64 " of %" PRIu64 " rank operations)",
             percent(done, total), done, total);
    publish_print(&x, s);
}

/* "about 12 s left": the packets still to deliver at the rate so far in
 * this run */
static void left_estimate(char *buf, size_t len, const temu_vt_progress *p, double run_s)
{
    if (p->packets_delivered == 0 || p->packets_expected <= p->packets_delivered) {
        snprintf(buf, len, "no estimate yet");
        return;
    }
    double left =
        run_s * (double)(p->packets_expected - p->packets_delivered) / (double)p->packets_delivered;
    if (left < 120) {
        snprintf(buf, len, "about %.0f s left%s", left, w.phase[0] ? " in this run" : "");
    } else if (left < 7200) {
        snprintf(buf, len, "about %.0f min left%s", left / 60, w.phase[0] ? " in this run" : "");
    } else {
        snprintf(buf, len, "about %.1f h left%s", left / 3600, w.phase[0] ? " in this run" : "");
    }
}

static void on_progress(void *ctx, const temu_vt_progress *p)
{
    where x = {AT_RUN, p->now_ps, p->events, p->ops_done, p->ops_total};
    (void)ctx;
    if (!w.show) {
        publish(&x);
        return;
    }
    double t = seconds_since(&w.start);
    if (p->steps <= w.vt.every) { /* the first call of a run (gpcnet makes several) */
        clock_gettime(CLOCK_MONOTONIC, &w.run_start);
        w.last_events = 0;
        w.last_events_t = t;
    }
    if (!line_due(t)) {
        publish(&x);
        return;
    }
    double dt = t - w.last_events_t;
    double rate =
        dt > 0 && p->events >= w.last_events ? (double)(p->events - w.last_events) / dt : 0;
    char left[64], us[32], s[320], ph[140] = "";
    left_estimate(left, sizeof left, p, seconds_since(&w.run_start));
    snprintf(us, sizeof us, "%" PRId64 ".%06" PRId64, p->now_ps / 1000000, p->now_ps % 1000000);
    if (w.phase[0]) {
        snprintf(ph, sizeof ph, "gpcnet run %d (%s): ", w.runs, w.phase);
    }
    snprintf(s, sizeof s,
             "%s%s us of virtual time, %" PRIu64 " events (%.2f M/s), %" PRIu64
             "%% of about %" PRIu64 " packets delivered, %s",
             ph, us, p->events, rate * 1e-6, percent(p->packets_delivered, p->packets_expected),
             p->packets_expected, left);
    w.last_line = t;
    w.last_events = p->events;
    w.last_events_t = t;
    publish_print(&x, s);
}

static void on_phase(void *ctx, const char *what)
{
    (void)ctx;
    w.runs++;
    snprintf(w.phase, sizeof w.phase, "%s", what);
}

const temu_vt_watch *replay_watch_vt(void)
{
    return &w.vt;
}

void replay_watch_break(void)
{
    line_end();
}

/* ------------------------------------------------ begin, end */

/* Whether and how lines are shown, and the steps between calls, from
 * quiet, stderr and the environment. */
static void show_mode(int quiet)
{
    const char *env = getenv(REPLAY_WATCH_ENV);
    uint64_t n = 0;
    w.vt.every = STEPS_PER_CALL;
    w.terminal = isatty(STDERR_FILENO);
    w.every_call = env != NULL && cli_parse_uint(env, &n) == 0 && n > 0;
    if (w.every_call) {
        w.vt.every = n;
    }
    w.show = !quiet && (w.terminal || w.every_call);
}

void replay_watch_hold(sigset_t *old)
{
    sigset_t s;
    sigemptyset(&s);
    for (int i = 0; i < NGUARDED; i++) {
        sigaddset(&s, guarded[i]);
    }
    sigprocmask(SIG_BLOCK, &s, old);
}

void replay_watch_release(const sigset_t *old)
{
    sigprocmask(SIG_SETMASK, old, NULL);
}

void replay_watch_begin(const char *store, const char *tmpdir, int quiet)
{
    memset(&w.vt, 0, sizeof w.vt);
    show_mode(quiet);
    w.line_open = 0;
    w.last_line = 0;
    w.phase[0] = '\0';
    w.runs = 0;
    clock_gettime(CLOCK_MONOTONIC, &w.start);
    w.run_start = w.start;
    w.vt.progress = on_progress;
    w.vt.phase = on_phase;
    atomic_store(&at_kind, AT_NOWHERE);
    replay_watch_store(store);
    snprintf(w.tmpdir, sizeof w.tmpdir, "%s", tmpdir != NULL ? tmpdir : "");
    guard();
}

void replay_watch_store(const char *store)
{
    w.store_on = 0; /* a handler never reads a half-written path */
    if (store != NULL) {
        snprintf(w.store, sizeof w.store, "%s", store);
        w.store_on = 1;
    }
}

void replay_watch_end(void)
{
    for (int i = 0; i < NGUARDED; i++) {
        if (w.installed[i]) {
            sigaction(guarded[i], &w.old[i], NULL);
            w.installed[i] = 0;
        }
    }
    stack_t off = {.ss_flags = SS_DISABLE};
    sigaltstack(&off, NULL);
    line_end();
}
