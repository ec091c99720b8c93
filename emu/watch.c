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
 * temu_watch_hit().  Arm and disarm are rare and serialized by a spinlock in
 * the header; crossings are lock-free.
 */
#define TEMU_BUILDING_LIBRARY 1
#include "emu_internal.h"

#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

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

static int slot_has(const temu_watch_slot *w, int64_t idx)
{
    for (int32_t i = 0; i < w->ncounters; i++) {
        if (w->counters[i] == idx) {
            return 1;
        }
    }
    return 0;
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
    temu_store_header *h = s->hdr;
    *id = -1;
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
        if (spec->counters[i] < 0 || (uint64_t)spec->counters[i] >= h->ncounters) {
            return temu_fail(err, TEMU_ERANGE, "counter index %lld is outside the store",
                             (long long)spec->counters[i]);
        }
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
    for (int32_t i = 0; i < spec->ncounters; i++) {
        w->counters[i] = spec->counters[i];
    }
    __atomic_store_n(&w->state, TEMU_WATCH_ACTIVE, __ATOMIC_RELEASE);
    for (int32_t i = 0; i < spec->ncounters; i++) {
        set_bit(s, spec->counters[i]);
    }
    __atomic_fetch_add(&h->armed, 1, __ATOMIC_RELEASE);
    watch_unlock(h);
    *id = slot;
    return TEMU_OK;
}

void temu_watch_disarm(temu_session *s, int32_t id)
{
    temu_store_header *h = s->hdr;
    if (id < 0 || id >= TEMU_WATCH_MAX) {
        return;
    }
    watch_lock(h);
    temu_watch_slot *w = &s->watches[id];
    if (w->state == TEMU_WATCH_ACTIVE) {
        __atomic_store_n(&w->state, TEMU_WATCH_FREE, __ATOMIC_RELEASE);
        /* a counter stays marked while another watch still sums it */
        for (int32_t i = 0; i < w->ncounters; i++) {
            int64_t idx = w->counters[i];
            int shared = 0;
            for (int32_t j = 0; j < TEMU_WATCH_MAX && !shared; j++) {
                shared = j != id && slot_active(&s->watches[j]) && slot_has(&s->watches[j], idx);
            }
            if (!shared) {
                clear_bit(s, idx);
            }
        }
        __atomic_fetch_sub(&h->armed, 1, __ATOMIC_RELEASE);
    }
    watch_unlock(h);
}

void temu_watch_restart(temu_session *s, int32_t id)
{
    if (id >= 0 && id < TEMU_WATCH_MAX) {
        __atomic_store_n(&s->watches[id].accum, 0, __ATOMIC_RELAXED);
        __atomic_store_n(&s->watches[id].pending, 0, __ATOMIC_RELAXED);
    }
}

uint64_t temu_watch_take(temu_session *s, int32_t id)
{
    if (id < 0 || id >= TEMU_WATCH_MAX) {
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

void temu_watch_hit(temu_session *s, int64_t idx, uint64_t delta)
{
    for (int32_t i = 0; i < TEMU_WATCH_MAX; i++) {
        temu_watch_slot *w = &s->watches[i];
        if (!slot_active(w) || !slot_has(w, idx)) {
            continue;
        }
        uint64_t old = __atomic_fetch_add(&w->accum, delta, __ATOMIC_RELAXED);
        uint64_t crossed = (old + delta) / w->threshold - old / w->threshold;
        if (crossed == 0) {
            continue;
        }
        __atomic_fetch_add(&w->pending, crossed, __ATOMIC_RELEASE);
        if (w->signo > 0) {
            /* one signal per update that crossed; the handler takes the
             * pending count.  ESRCH (thread gone) is ignored. */
            syscall(SYS_tgkill, w->pid, w->tid, w->signo);
        }
    }
}
