/*
 * watch.c - overflow watches: the emulator's side of PAPI_overflow.
 *
 * A watch lives in the shared store, so whichever process updates a watched
 * counter (the sender of a message, or a process whose traffic merely passes
 * through the watched node) notices the threshold crossing and signals the
 * thread that armed the watch with tgkill(2).
 *
 * Fast path (inject.c, store.c): one relaxed load of hdr->armed per
 * injection; while it is 0 nothing else happens.  While armed, each update
 * tests one bit of the per-counter bitmap; only watched counters reach
 * temu_watch_hit(), and the end of the update calls temu_watch_flush().
 * Arm and disarm are rare and serialized by a spinlock in the header;
 * crossings are lock-free.
 *
 * Options (temu_watch_arm_ex): a weight per counter, kept in the top 16
 * bits of the slot's counter entry, and a detection delay for "slow"
 * watches.  A slow watch records the crossing (pending, time) at once but
 * its signal is queued in the injecting thread and sent by
 * temu_watch_flush once the whole update has landed and the delay has
 * passed since the crossing: the counters keep running meanwhile, as the
 * Blue Gene/Q L2 and I/O counters did while the UPC_C ring carried an
 * overflow to the interrupt logic (McCraw 2013 section 3.1: up to 800 cycles).
 */
#define TEMU_BUILDING_LIBRARY 1
#include "emu_internal.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* A slow watch's signal waiting for the end of the update (per thread). */
typedef struct deferred_signal {
    const temu_session *s;
    int32_t id;
    int32_t pid, tid, signo;
    uint64_t due_ns; /* crossing + delay */
} deferred_signal;

#define DEFERRED_MAX 64 /* beyond this many at once, a slow watch signals at once */
static __thread deferred_signal deferred[DEFERRED_MAX];
static __thread int ndeferred;

static uint64_t mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void watch_lock(temu_store_header *h)
{
    while (__atomic_exchange_n(&h->watch_lock, 1u, __ATOMIC_ACQUIRE) != 0) {
        sched_yield();
    }
}

static void watch_unlock(temu_store_header *h)
{
    __atomic_store_n(&h->watch_lock, 0u, __ATOMIC_RELEASE);
}

static int slot_active(const temu_watch_slot *w)
{
    return __atomic_load_n(&w->state, __ATOMIC_ACQUIRE) == TEMU_WATCH_ACTIVE;
}

/* Weight of counter idx in the watch, 0 if the watch does not sum it. */
static uint64_t slot_weight(const temu_watch_slot *w, int64_t idx)
{
    /* the slot lives in the shared file: never read past its array */
    int32_t n = w->ncounters < TEMU_WATCH_MAX_COUNTERS ? w->ncounters : TEMU_WATCH_MAX_COUNTERS;
    for (int32_t i = 0; i < n; i++) {
        uint64_t e = (uint64_t)w->counters[i];
        if ((int64_t)(e & TEMU_WATCH_IDX_MASK) == idx) {
            return (e >> TEMU_WATCH_IDX_BITS) + 1;
        }
    }
    return 0;
}

static int slot_has(const temu_watch_slot *w, int64_t idx)
{
    return slot_weight(w, idx) != 0;
}

static void set_bit(temu_session *s, int64_t idx)
{
    __atomic_fetch_or(&s->watch_bits[idx >> 3], (uint8_t)(1u << (idx & 7)), __ATOMIC_RELAXED);
}

static void clear_bit(temu_session *s, int64_t idx)
{
    __atomic_fetch_and(&s->watch_bits[idx >> 3], (uint8_t) ~(1u << (idx & 7)), __ATOMIC_RELAXED);
}

temu_status temu_watch_arm(temu_session *s, const temu_watch_spec *spec, int32_t *id,
                           temu_error *err)
{
    return temu_watch_arm_ex(s, spec, NULL, id, err);
}

temu_status temu_watch_arm_ex(temu_session *s, const temu_watch_spec *spec,
                              const temu_watch_options *opt, int32_t *id, temu_error *err)
{
    temu_store_header *h = s->hdr;
    const uint32_t *weights = opt != NULL ? opt->weights : NULL;
    uint32_t delay = opt != NULL ? opt->delay_ns : 0;
    *id = -1;
    if (s->readonly) {
        return temu_fail(err, TEMU_EINVAL, "cannot arm a watch on a session attached read-only");
    }
    if (spec->ncounters < 1 || spec->ncounters > TEMU_WATCH_MAX_COUNTERS) {
        return temu_fail(err, TEMU_EINVAL, "a watch sums 1..%d counters, not %d",
                         TEMU_WATCH_MAX_COUNTERS, spec->ncounters);
    }
    if (spec->threshold < 1) {
        return temu_fail(err, TEMU_EINVAL, "overflow threshold must be at least 1");
    }
    if (spec->signo < 0 || spec->signo > 64) {
        return temu_fail(err, TEMU_EINVAL, "signal number %d is not valid", spec->signo);
    }
    for (int32_t i = 0; i < spec->ncounters; i++) {
        if (spec->counters[i] < 0 || (uint64_t)spec->counters[i] >= s->ncounters) {
            return temu_fail(err, TEMU_ERANGE, "counter index %lld is outside the store",
                             (long long)spec->counters[i]);
        }
        if (weights != NULL && (weights[i] < 1 || weights[i] > TEMU_WATCH_MAX_WEIGHT)) {
            return temu_fail(err, TEMU_EINVAL, "watch weight %u of counter %d is not in 1..%u",
                             weights[i], i, TEMU_WATCH_MAX_WEIGHT);
        }
        for (int32_t j = 0; j < i && weights != NULL; j++) {
            if (spec->counters[j] == spec->counters[i]) {
                return temu_fail(err, TEMU_EINVAL,
                                 "counter %lld appears twice in the watch (give it one weight)",
                                 (long long)spec->counters[i]);
            }
        }
    }
    if (delay > TEMU_WATCH_MAX_DELAY_NS) {
        return temu_fail(err, TEMU_EINVAL, "detection delay %u ns is above the %u ns allowed",
                         delay, TEMU_WATCH_MAX_DELAY_NS);
    }
    watch_lock(h);
    int32_t slot = -1;
    for (int32_t i = 0; i < TEMU_WATCH_MAX; i++) {
        if (s->watches[i].state == TEMU_WATCH_FREE) {
            slot = i;
            break;
        }
    }
    if (slot < 0) {
        watch_unlock(h);
        return temu_fail(err, TEMU_ERANGE, "all %d overflow watches of the session are in use",
                         TEMU_WATCH_MAX);
    }
    temu_watch_slot *w = &s->watches[slot];
    w->signo = spec->signo;
    w->pid = spec->pid != 0 ? spec->pid : (int32_t)getpid();
    w->tid = spec->pid != 0 ? spec->tid : (int32_t)syscall(SYS_gettid);
    w->threshold = spec->threshold;
    __atomic_store_n(&w->accum, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&w->pending, 0, __ATOMIC_RELAXED);
    w->ncounters = spec->ncounters;
    w->delay_ns = delay;
    __atomic_store_n(&h->watch_crossed_ns[slot], 0, __ATOMIC_RELAXED);
    for (int32_t i = 0; i < spec->ncounters; i++) {
        uint64_t wt = weights != NULL ? weights[i] - 1u : 0;
        w->counters[i] = (int64_t)((uint64_t)spec->counters[i] | (wt << TEMU_WATCH_IDX_BITS));
    }
    __atomic_store_n(&w->state, TEMU_WATCH_ACTIVE, __ATOMIC_RELEASE);
    for (int32_t i = 0; i < spec->ncounters; i++) {
        set_bit(s, spec->counters[i]);
    }
    if ((uint32_t)slot + 1 > __atomic_load_n(&h->watch_top, __ATOMIC_RELAXED)) {
        __atomic_store_n(&h->watch_top, (uint32_t)slot + 1, __ATOMIC_RELEASE);
    }
    __atomic_fetch_add(&h->armed, 1, __ATOMIC_RELEASE);
    watch_unlock(h);
    *id = slot;
    return TEMU_OK;
}

void temu_watch_disarm(temu_session *s, int32_t id)
{
    temu_store_header *h = s->hdr;
    if (id < 0 || id >= TEMU_WATCH_MAX || s->readonly) {
        return;
    }
    watch_lock(h);
    temu_watch_slot *w = &s->watches[id];
    if (w->state == TEMU_WATCH_ACTIVE) {
        __atomic_store_n(&w->state, TEMU_WATCH_FREE, __ATOMIC_RELEASE);
        /* a counter stays marked while another watch still sums it */
        int32_t n = w->ncounters < TEMU_WATCH_MAX_COUNTERS ? w->ncounters
                                                          : TEMU_WATCH_MAX_COUNTERS;
        for (int32_t i = 0; i < n; i++) {
            int64_t idx = (int64_t)((uint64_t)w->counters[i] & TEMU_WATCH_IDX_MASK);
            if ((uint64_t)idx >= s->ncounters) {
                continue;
            }
            int shared = 0;
            for (int32_t j = 0; j < TEMU_WATCH_MAX && !shared; j++) {
                shared = j != id && slot_active(&s->watches[j]) && slot_has(&s->watches[j], idx);
            }
            if (!shared) {
                clear_bit(s, idx);
            }
        }
        __atomic_fetch_sub(&h->armed, 1, __ATOMIC_RELEASE);
        /* a top of 0 would mean "scan all": keep it at 1 at least */
        {
            uint32_t top = 1;
            for (int32_t j = TEMU_WATCH_MAX - 1; j > 0; j--) {
                if (s->watches[j].state == TEMU_WATCH_ACTIVE) {
                    top = (uint32_t)j + 1;
                    break;
                }
            }
            __atomic_store_n(&h->watch_top, top, __ATOMIC_RELEASE);
        }
    }
    watch_unlock(h);
}

void temu_watch_restart(temu_session *s, int32_t id)
{
    if (id >= 0 && id < TEMU_WATCH_MAX && !s->readonly) {
        __atomic_store_n(&s->watches[id].accum, 0, __ATOMIC_RELAXED);
        __atomic_store_n(&s->watches[id].pending, 0, __ATOMIC_RELAXED);
    }
}

uint64_t temu_watch_take(temu_session *s, int32_t id)
{
    if (id < 0 || id >= TEMU_WATCH_MAX || s->readonly) {
        return 0;
    }
    return __atomic_exchange_n(&s->watches[id].pending, 0, __ATOMIC_ACQ_REL);
}

uint64_t temu_watch_value(const temu_session *s, int32_t id)
{
    if (id < 0 || id >= TEMU_WATCH_MAX) {
        return 0;
    }
    return __atomic_load_n(&s->watches[id].accum, __ATOMIC_RELAXED);
}

uint32_t temu_watch_armed(const temu_session *s)
{
    return (uint32_t)__atomic_load_n(&s->hdr->armed, __ATOMIC_RELAXED);
}

uint64_t temu_watch_crossed_ns(const temu_session *s, int32_t id)
{
    if (id < 0 || id >= TEMU_WATCH_MAX) {
        return 0;
    }
    return __atomic_load_n(&s->hdr->watch_crossed_ns[id], __ATOMIC_ACQUIRE);
}

/* Thread and process id of the caller, cached per thread; a fork bumps the
 * generation so the child's thread looks its ids up again. */
static __thread int32_t cached_tid, cached_pid;
static __thread unsigned cached_generation;
static unsigned fork_generation = 1;
static pthread_once_t fork_hook_once = PTHREAD_ONCE_INIT;

static void after_fork_in_child(void)
{
    fork_generation++;
}

static void install_fork_hook(void)
{
    pthread_atfork(NULL, NULL, after_fork_in_child);
}

static int32_t own_tid(void)
{
    if (cached_generation != fork_generation) {
        pthread_once(&fork_hook_once, install_fork_hook);
        cached_tid = (int32_t)syscall(SYS_gettid);
        cached_pid = (int32_t)getpid();
        cached_generation = fork_generation;
    }
    return cached_tid;
}

/* TORUSEMU_WATCH_LATE_SIGNALS=1: crossings never signal another thread
 * (read once per process). */
static int late_signals(void)
{
    static int value = -1;
    int v = __atomic_load_n(&value, __ATOMIC_RELAXED);
    if (v < 0) {
        const char *env = getenv("TORUSEMU_WATCH_LATE_SIGNALS");
        v = env != NULL && env[0] == '1';
        __atomic_store_n(&value, v, __ATOMIC_RELAXED);
    }
    return v;
}

int temu_watch_deliver_own(temu_session *s)
{
    int raised = 0;
    if (__atomic_load_n(&s->hdr->armed, __ATOMIC_ACQUIRE) == 0) {
        return 0;
    }
    uint32_t top = __atomic_load_n(&s->hdr->watch_top, __ATOMIC_ACQUIRE);
    int32_t n = top != 0 && top <= TEMU_WATCH_MAX ? (int32_t)top : TEMU_WATCH_MAX;
    for (int32_t i = 0; i < n; i++) {
        const temu_watch_slot *w = &s->watches[i];
        /* pending is published (release) before the crossing process goes
         * on to send anything, so a thread that has received that later
         * message sees it here */
        if (!slot_active(w) || w->signo <= 0 ||
            __atomic_load_n(&w->pending, __ATOMIC_ACQUIRE) == 0) {
            continue;
        }
        if (w->tid != own_tid() || w->pid != cached_pid) {
            continue;
        }
        /* a slow watch's handler never runs before its detection delay:
         * until then the injecting process still owes the signal */
        if (w->delay_ns != 0 &&
            mono_ns() <
                __atomic_load_n(&s->hdr->watch_crossed_ns[i], __ATOMIC_ACQUIRE) + w->delay_ns) {
            continue;
        }
        syscall(SYS_tgkill, w->pid, w->tid, w->signo);
        raised++;
    }
    return raised;
}

/* Queue a slow watch's signal for temu_watch_flush (once per update). */
static void defer_signal(const temu_session *s, int32_t id, const temu_watch_slot *w, uint64_t due)
{
    for (int i = 0; i < ndeferred; i++) {
        if (deferred[i].s == s && deferred[i].id == id) {
            return;
        }
    }
    if (ndeferred < DEFERRED_MAX) {
        deferred_signal *d = &deferred[ndeferred++];
        d->s = s;
        d->id = id;
        d->pid = w->pid;
        d->tid = w->tid;
        d->signo = w->signo;
        d->due_ns = due;
    } else {
        syscall(SYS_tgkill, w->pid, w->tid, w->signo);
    }
}

void temu_watch_hit(temu_session *s, int64_t idx, uint64_t delta)
{
    uint32_t top = __atomic_load_n(&s->hdr->watch_top, __ATOMIC_ACQUIRE);
    int32_t n = top != 0 && top <= TEMU_WATCH_MAX ? (int32_t)top : TEMU_WATCH_MAX;
    for (int32_t i = 0; i < n; i++) {
        temu_watch_slot *w = &s->watches[i];
        uint64_t weight;
        if (!slot_active(w) || w->threshold == 0 || (weight = slot_weight(w, idx)) == 0) {
            continue;
        }
        uint64_t add = delta * weight;
        uint64_t old = __atomic_fetch_add(&w->accum, add, __ATOMIC_RELAXED);
        uint64_t crossed = (old + add) / w->threshold - old / w->threshold;
        if (crossed == 0) {
            continue;
        }
        uint64_t now = mono_ns();
        __atomic_store_n(&s->hdr->watch_crossed_ns[i], now, __ATOMIC_RELEASE);
        __atomic_fetch_add(&w->pending, crossed, __ATOMIC_RELEASE);
        if (w->signo <= 0) {
            continue;
        }
        if (late_signals() && w->tid != own_tid()) {
            continue; /* test setting: the owner finds it (temu_watch_deliver_own) */
        }
        if (w->delay_ns != 0) {
            defer_signal(s, i, w, now + w->delay_ns);
        } else {
            /* one signal per update that crossed; the handler takes the
             * pending count.  ESRCH (thread gone) is ignored. */
            syscall(SYS_tgkill, w->pid, w->tid, w->signo);
        }
    }
}

void temu_watch_flush(temu_session *s)
{
    if (TEMU_UNLIKELY(s->split != NULL)) {
        temu_split_flush(s);
    }
    for (int i = 0; i < ndeferred; i++) {
        const deferred_signal *d = &deferred[i];
        uint64_t now = mono_ns();
        /* the delays are sub-microsecond on the modelled machines: spin;
         * a long one (a test's) sleeps most of it */
        if (d->due_ns > now + 200000) {
            uint64_t left = d->due_ns - now - 100000;
            struct timespec ts = {(time_t)(left / 1000000000ull), (long)(left % 1000000000ull)};
            while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
            }
        }
        while (mono_ns() < d->due_ns) {
        }
        syscall(SYS_tgkill, d->pid, d->tid, d->signo);
    }
    ndeferred = 0;
}
