/*
 * torus_ovf.c - PAPI_overflow for the papi-torus components, the set timer
 * and the signal handler (doc/overflow-multiplex.md).
 *
 * Overflow is "hardware" overflow for PAPI (hardware_intr = 1): the
 * emulator does the counting.  PAPI_overflow records a threshold per event
 * (set_overflow); while the set runs, each such event has an overflow watch
 * in the counter store over its distinct counters, weighted by the event's
 * coefficients and with the threshold times its divisor, so that the watch
 * crosses a multiple of its threshold exactly when the event's value
 * crosses a multiple of the event threshold.  Whichever process updates
 * the counters (the sender, a process whose traffic passes through the
 * node, the other end of a get) sends TORUS_SIGNAL to the thread that
 * started the set; torus_dispatch takes the recorded crossings and calls
 * PAPI's handler once per crossing, with bit e of the overflow vector for
 * event e (its native position).  Host-measured events (PEVT_NW_CYCLES,
 * three CNK thread counters) are not in the store: the set timer checks
 * them every TORUS_HOST_POLL_NS.
 *
 * The set timer (a POSIX timer delivering TORUS_SIGNAL to the owner
 * thread) also rotates the groups of a multiplexed set (ticks every
 * quarter slice; a slice ends at a random 0.5 to 1.5 slices).  The handler runs
 * on the owner thread; when it interrupts that thread inside one of the
 * set's own entry points it only marks the set, and torus_leave raises the
 * signal again (torus_comp_priv.h).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* SIGEV_THREAD_ID */
#endif
#include "torus_comp_priv.h"
#include "torusemu.h"

#include "extras.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#define TORUS_MAX_REGISTERED 16

static torus_component *registered[TORUS_MAX_REGISTERED];
static int nregistered;

void torus_register(torus_component *c)
{
    const char *env = getenv("TORUSEMU_SLOW_OVERFLOW_NS");
    for (int i = 0; i < nregistered; i++) {
        if (registered[i] == c) {
            return;
        }
    }
    if (c->overflow_delay_cycles != 0) {
        /* at the family's processor clock (BG/Q 1.6 GHz: 800 cycles = 500 ns) */
        uint64_t hz = temu_family_info_get(c->system)->core_hz;
        c->overflow_delay_ns = (uint32_t)((uint64_t)c->overflow_delay_cycles * 1000000000ull / hz);
    }
    /* a test may stretch the slow units' detection delay to see it */
    if (env != NULL && c->overflow_delay_ns != 0) {
        unsigned long v = strtoul(env, NULL, 10);
        c->overflow_delay_ns = v > TEMU_WATCH_MAX_DELAY_NS ? TEMU_WATCH_MAX_DELAY_NS : (uint32_t)v;
    }
    if (nregistered < TORUS_MAX_REGISTERED) {
        __atomic_store_n(&registered[nregistered], c, __ATOMIC_RELEASE);
        __atomic_store_n(&nregistered, nregistered + 1, __ATOMIC_RELEASE);
    }
}

/* ---------------------------------------------------------- eligibility */

/* What event e's overflow watches: distinct backend counters with merged
 * coefficients (weights), or host sources (*host = 1).  TORUS_EINVAL with
 * the reason when the event cannot overflow. */
static int ovf_terms(const torus_control *ctl, int e, int64_t *handles, uint32_t *weights, int *n,
                     int *host, char *why, size_t len)
{
    const torus_pick *p = &ctl->pick[e];
    int first = ctl->ev_first[e], nt = ctl->ev_nterms[e], nhost = 0;

    *n = 0;
    *host = 0;
    if (nt == 0) {
        snprintf(why, len, "%s: %s has no counter (it always reads 0), so it cannot overflow",
                 ctl->comp->name, p->ev->name);
        return TORUS_EINVAL;
    }
    for (int i = first; i < first + nt; i++) {
        nhost += ctl->term_counter[i] >= ctl->nbackend;
    }
    if (nhost == nt) {
        *host = 1;
        return TORUS_OK;
    }
    if (nhost != 0) {
        snprintf(why, len, "%s: %s mixes store counters and host sources; it cannot overflow",
                 ctl->comp->name, p->ev->name);
        return TORUS_EINVAL;
    }
    for (int i = first; i < first + nt; i++) {
        int k = ctl->term_counter[i], j;
        for (j = 0; j < *n && handles[j] != ctl->handle[k]; j++) {
        }
        if (j == *n) {
            if (*n == TEMU_WATCH_MAX_COUNTERS) {
                snprintf(why, len,
                         "%s: %s sums more than %d counters; an overflow watch sums at most %d",
                         ctl->comp->name, p->ev->name, TEMU_WATCH_MAX_COUNTERS,
                         TEMU_WATCH_MAX_COUNTERS);
                return TORUS_EINVAL;
            }
            handles[j] = ctl->handle[k];
            weights[j] = 0;
            (*n)++;
        }
        if (ctl->term_coef[i] <= 0 ||
            (int64_t)weights[j] + ctl->term_coef[i] > (int64_t)TEMU_WATCH_MAX_WEIGHT) {
            snprintf(why, len,
                     "%s: %s is not a sum of counts with coefficients 1..%u, so it cannot "
                     "overflow",
                     ctl->comp->name, p->ev->name, TEMU_WATCH_MAX_WEIGHT);
            return TORUS_EINVAL;
        }
        weights[j] += (uint32_t)ctl->term_coef[i];
    }
    return TORUS_OK;
}

/* --------------------------------------------------------- set_overflow */

/* PAPI_overflow records the request in ESI->overflow (entry, flags,
 * handler) before asking us and does not undo it when we refuse (papi.c):
 * a refused request left behind would turn the set's other overflows into
 * software overflow and make every later add to the set fail when PAPI
 * re-applies it.  Put ESI->overflow back as it was: without the entry, or
 * with its previous threshold; flags and handler of the overflows that
 * stay. */
static void undo_request(torus_control *ctl, EventSetInfo_t *ESI, int index, uint64_t previous)
{
    unsigned code = ESI->EventInfoArray[index].event_code;
    int n = ESI->overflow.event_counter, i;
    if (ESI->state & PAPI_OVERFLOWING) {
        ESI->overflow.flags = PAPI_OVERFLOW_HARDWARE; /* what our accepted requests set */
        ESI->overflow.handler = ctl->handler;
    }
    for (i = 0; i < n && (unsigned)ESI->overflow.EventCode[i] != code; i++) {
    }
    if (i == n) {
        return;
    }
    if (previous != 0) {
        ESI->overflow.threshold[i] = (int)previous;
        ESI->overflow.deadline[i] = (long long)previous;
        return;
    }
    for (; i < n - 1; i++) {
        ESI->overflow.deadline[i] = ESI->overflow.deadline[i + 1];
        ESI->overflow.threshold[i] = ESI->overflow.threshold[i + 1];
        ESI->overflow.EventIndex[i] = ESI->overflow.EventIndex[i + 1];
        ESI->overflow.EventCode[i] = ESI->overflow.EventCode[i + 1];
    }
    ESI->overflow.deadline[n - 1] = 0;
    ESI->overflow.threshold[n - 1] = 0;
    ESI->overflow.EventIndex[n - 1] = 0;
    ESI->overflow.EventCode[n - 1] = 0;
    ESI->overflow.event_counter = n - 1;
}

/* BG/Q L2 and I/O: one threshold per counter for the whole node. */
static int claim_threshold(torus_control *ctl, int e, uint64_t threshold, int64_t node)
{
    torus_component *c = ctl->comp;
    torus_node_seen seen = {0, 0, 0};
    char detail[160];
    int64_t key = c->overflow_key != NULL ? c->overflow_key(c, &ctl->pick[e]) : -1;
    int rc;

    if (key < 0) {
        return TORUS_OK;
    }
    rc = torus_claim_take_keyed(c->ops, c->be, &ctl->ovf_claim[e], node,
                                ((uint64_t)key << TORUS_KEY_SHIFT) | threshold, NULL, &seen, detail,
                                sizeof detail);
    if (rc == TORUS_ECNFLCT && seen.holders > 0) {
        snprintf(ctl->why, sizeof ctl->why,
                 "%s: %s of node %lld overflows every %llu for event sets of %d process(es) "
                 "(first: pid %d); the unit keeps one threshold per counter for the whole node "
                 "(BGPM_ETHRES_MISMATCH), so %llu is refused",
                 c->name, ctl->pick[e].ev->name, (long long)node,
                 (unsigned long long)(seen.value & TORUS_KEY_VALUE_MASK), seen.holders,
                 (int)seen.owner_pid, (unsigned long long)threshold);
    } else if (rc != TORUS_OK) {
        snprintf(ctl->why, sizeof ctl->why, "%s: %s", c->name, detail);
    }
    return rc;
}

static int set_overflow_locked(torus_control *ctl, int e, int threshold)
{
    torus_component *c = ctl->comp;
    int64_t handles[TEMU_WATCH_MAX_COUNTERS];
    uint32_t weights[TEMU_WATCH_MAX_COUNTERS];
    torus_place pl;
    int n, host, rc;

    if (e < 0 || e >= ctl->nevents) {
        snprintf(ctl->why, sizeof ctl->why, "%s: overflow event %d is not in the set", c->name, e);
        return TORUS_EINVAL;
    }
    if (threshold <= 0) {
        torus_ovf_clear(ctl, e);
        return TORUS_OK;
    }
    rc = ovf_terms(ctl, e, handles, weights, &n, &host, ctl->why, sizeof ctl->why);
    if (rc == TORUS_OK && ctl->ngroups > 1) {
        snprintf(ctl->why, sizeof ctl->why,
                 "%s: this multiplexed set time-slices its events into %d groups; an event "
                 "that overflows must count all the time",
                 c->name, ctl->ngroups);
        rc = TORUS_ECNFLCT;
    }
    if (rc == TORUS_OK) {
        c->ops->place(c->be, &pl);
        rc = claim_threshold(ctl, e, (uint64_t)threshold, pl.node);
    }
    if (rc == TORUS_OK) {
        ctl->ovf_threshold[e] = (uint64_t)threshold;
    }
    return rc;
}

int torus_set_overflow(EventSetInfo_t *ESI, int EventIndex, int threshold)
{
    torus_control *ctl = ESI->ctl_state;
    int e = ESI->EventInfoArray[EventIndex].pos[0], rc;
    uint64_t previous = e >= 0 && e < TORUS_MAX_EVENTS ? ctl->ovf_threshold[e] : 0;

    torus_enter(ctl);
    rc = set_overflow_locked(ctl, e, threshold);
    if (rc != TORUS_OK) {
        TORUS_DPRINT("%s\n", ctl->why);
        undo_request(ctl, ESI, EventIndex, previous);
    } else if (threshold > 0) {
        ctl->handler = ESI->overflow.handler;
    } else if (ESI->overflow.handler == NULL) {
        /* PAPI takes the handler of a removal too: one removed with NULL
         * while others stay must not leave them without one */
        ESI->overflow.handler = ctl->handler;
    }
    torus_leave(ctl);
    return torus_papi_status(rc);
}

void torus_ovf_clear(torus_control *ctl, int e)
{
    ctl->ovf_threshold[e] = 0;
    torus_claim_drop(&ctl->ovf_claim[e]);
}

int torus_ovf_attach(torus_control *ctl, const torus_place *pl)
{
    int rc = TORUS_OK;
    for (int e = 0; e < ctl->nevents && rc == TORUS_OK; e++) {
        if (ctl->ovf_claim[e].words != NULL && ctl->ovf_claim[e].node != pl->node) {
            rc = claim_threshold(ctl, e, ctl->ovf_threshold[e], pl->node);
        }
    }
    return rc;
}

/* ------------------------------------------------------------ set timer */

static int timer_begin(torus_control *ctl, uint64_t ns)
{
    struct sigevent sev;
    struct itimerspec its;

    memset(&sev, 0, sizeof sev);
    sev.sigev_notify = SIGEV_THREAD_ID;
    sev.sigev_signo = TORUS_SIGNAL;
    sev._sigev_un._tid = (pid_t)syscall(SYS_gettid); /* sigev_notify_thread_id */
    if (timer_create(CLOCK_MONOTONIC, &sev, &ctl->timer) != 0) {
        snprintf(ctl->why, sizeof ctl->why, "%s: cannot create the set timer: %s", ctl->comp->name,
                 strerror(errno));
        return TORUS_ESYS;
    }
    its.it_interval.tv_sec = (time_t)(ns / 1000000000ull);
    its.it_interval.tv_nsec = (long)(ns % 1000000000ull);
    its.it_value = its.it_interval;
    if (timer_settime(ctl->timer, 0, &its, NULL) != 0) {
        snprintf(ctl->why, sizeof ctl->why, "%s: cannot start the set timer: %s", ctl->comp->name,
                 strerror(errno));
        timer_delete(ctl->timer);
        return TORUS_ESYS;
    }
    ctl->timer_on = 1;
    ctl->timer_ns = ns;
    return TORUS_OK;
}

/* ------------------------------------------------------- start and stop */

void torus_ovf_stop(torus_control *ctl)
{
    torus_component *c = ctl->comp;
    if (ctl->timer_on) {
        timer_delete(ctl->timer);
        ctl->timer_on = 0;
    }
    for (int e = 0; e < TORUS_MAX_EVENTS; e++) {
        if (ctl->ovf_watch[e] >= 0) {
            c->ops->disarm_overflow(c->be, ctl->ovf_watch[e]);
            ctl->ovf_watch[e] = -1;
        }
    }
    ctl->ovf_host = 0;
    if (ctl->signal_held) {
        _papi_hwi_stop_signal(TORUS_SIGNAL);
        ctl->signal_held = 0;
    }
}

int torus_ovf_start(torus_control *ctl)
{
    torus_component *c = ctl->comp;
    int64_t handles[TEMU_WATCH_MAX_COUNTERS];
    uint32_t weights[TEMU_WATCH_MAX_COUNTERS];
    /* the traffic clock's slices end only at the set's own calls */
    int rotate = ctl->ngroups > 1 && ctl->clock_msgs == 0;
    int sampled = 0, rc = TORUS_OK;

    ctl->ovf_host = 0;
    for (int e = 0; e < ctl->nevents; e++) {
        sampled += ctl->ovf_threshold[e] != 0;
        ctl->ovf_host_carry[e] = 0;
        ctl->ovf_host_last[e] = 0;
        ctl->ovf_host_pend[e] = 0;
    }
    if (sampled == 0 && !rotate) {
        return TORUS_OK;
    }
    /* the handler must be in place before the first signal can come */
    if (_papi_hwi_start_signal(TORUS_SIGNAL, 1, c->cidx) != PAPI_OK) {
        snprintf(ctl->why, sizeof ctl->why, "%s: cannot install the overflow signal handler",
                 c->name);
        return TORUS_ESYS;
    }
    ctl->signal_held = 1;
    for (int e = 0; e < ctl->nevents && rc == TORUS_OK; e++) {
        int n, host;
        if (ctl->ovf_threshold[e] == 0) {
            continue;
        }
        rc = ovf_terms(ctl, e, handles, weights, &n, &host, ctl->why, sizeof ctl->why);
        if (rc == TORUS_OK && host) {
            ctl->ovf_host++;
        } else if (rc == TORUS_OK) {
            rc = c->ops->arm_overflow(
                c->be, handles, weights, n, ctl->ovf_threshold[e] * (uint64_t)ctl->ev_div[e],
                TORUS_SIGNAL, c->overflow_delay_ns, &ctl->ovf_watch[e], ctl->why, sizeof ctl->why);
        }
    }
    if (rc == TORUS_OK && (rotate || ctl->ovf_host > 0)) {
        /* ticks at a quarter slice: slice ends of random length are met
         * within a quarter slice */
        uint64_t ns = rotate ? ctl->slice_ns / 4 : TORUS_HOST_POLL_NS;
        if (ctl->ovf_host > 0 && ns > TORUS_HOST_POLL_NS) {
            ns = TORUS_HOST_POLL_NS;
        }
        rc = timer_begin(ctl, ns);
    }
    if (rc != TORUS_OK) {
        torus_ovf_stop(ctl);
    }
    return rc;
}

/* ------------------------------------------------------------- dispatch */

/* Host-measured events: crossings since the last check (after a sample).
 * Progress counts from PAPI_start across resets (ovf_host_carry). */
static void poll_host(torus_control *ctl)
{
    for (int e = 0; e < ctl->nevents; e++) {
        uint64_t thr = ctl->ovf_threshold[e] * (uint64_t)ctl->ev_div[e];
        int64_t progress;
        if (thr == 0 || ctl->ovf_watch[e] >= 0) {
            continue;
        }
        progress = ctl->ovf_host_carry[e] + torus_raw(ctl, e);
        if (progress > ctl->ovf_host_last[e]) {
            ctl->ovf_host_pend[e] +=
                (uint64_t)progress / thr - (uint64_t)ctl->ovf_host_last[e] / thr;
            ctl->ovf_host_last[e] = progress;
        }
    }
}

/*
 * PAPI_reset zeroes the counts, not the progress towards the next
 * overflow, as Linux perf_event's PERF_EVENT_IOC_RESET leaves the sampling
 * period running: a client that reads and resets after every message (TAU
 * at every timer) gets floor(total / threshold) calls.  The store's
 * watches count on untouched (crossings already recorded stay pending);
 * host-measured events take the crossings up to now and carry the value
 * reached into the next segment.  Called before the counts restart.
 */
void torus_ovf_reset(torus_control *ctl)
{
    if (ctl->ovf_host == 0) {
        return;
    }
    poll_host(ctl);
    for (int e = 0; e < ctl->nevents; e++) {
        if (ctl->ovf_threshold[e] != 0 && ctl->ovf_watch[e] < 0) {
            ctl->ovf_host_carry[e] = ctl->ovf_host_last[e];
        }
    }
}

/* TORUS_SIGNAL for one running set of this thread: rotate a multiplexed
 * set whose slice is over, check host-measured overflows, then hand every
 * recorded crossing to PAPI (one handler call per crossing; the vector has
 * the bits of the events with crossings left). */
static void serve(torus_control *ctl, EventSetInfo_t *ESI, ThreadInfo_t **thread,
                  _papi_hwi_context_t *hw, vptr_t pc)
{
    torus_component *c = ctl->comp;
    uint64_t pend[TORUS_MAX_EVENTS];
    int any = 0;

    if (ctl->busy) {
        ctl->deferred = 1;
        return;
    }
    ctl->busy = 1;
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    if (ctl->ngroups > 1 || ctl->ovf_host > 0) {
        torus_sample(ctl);
        if (ctl->ngroups > 1 && ctl->clock_msgs == 0 && ctl->t_now >= ctl->t_next) {
            torus_rotate(ctl);
        }
        if (ctl->ovf_host > 0) {
            poll_host(ctl);
        }
    }
    for (int e = 0; e < ctl->nevents; e++) {
        pend[e] = 0;
        if (ctl->ovf_watch[e] >= 0) {
            pend[e] = c->ops->take_overflow(c->be, ctl->ovf_watch[e]);
        }
        pend[e] += ctl->ovf_host_pend[e];
        ctl->ovf_host_pend[e] = 0;
        any |= pend[e] != 0;
    }
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    ctl->busy = 0;
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    while (any && ctl->running && (ESI->state & PAPI_OVERFLOWING) &&
           (ESI->overflow.flags & PAPI_OVERFLOW_HARDWARE) && ESI->overflow.handler != NULL) {
        long long vector = 0;
        int hardware = 1;
        any = 0;
        for (int e = 0; e < ctl->nevents; e++) {
            if (pend[e] != 0) {
                vector |= 1ll << e;
                any |= --pend[e] != 0;
            }
        }
        _papi_hwi_dispatch_overflow_signal(hw, pc, &hardware, vector, 0, thread, c->cidx);
    }
}

/*
 * The handler of every papi-torus component (dispatch_timer): TORUS_SIGNAL
 * from a watch or a set timer, or PAPI's software-overflow timer signal
 * (PAPI_OVERFLOW_FORCE_SW).  PAPI installs one component's dispatch_timer
 * per signal, so this one serves all of them: the running sets of the
 * calling thread, one per component.
 */
void torus_dispatch(int signo, hwd_siginfo_t *info, void *uc)
{
    int saved_errno = errno;
    ThreadInfo_t *thread = _papi_hwi_lookup_thread(0);
    _papi_hwi_context_t hw;
    vptr_t pc;
    int n = __atomic_load_n(&nregistered, __ATOMIC_ACQUIRE);

    hw.si = info;
    hw.ucontext = (hwd_ucontext_t *)uc;
    pc = GET_OVERFLOW_ADDRESS(hw);
    for (int i = 0; i < n && thread != NULL; i++) {
        torus_component *c = __atomic_load_n(&registered[i], __ATOMIC_ACQUIRE);
        EventSetInfo_t *ESI = thread->running_eventset[c->cidx];
        torus_control *ctl = ESI != NULL ? ESI->ctl_state : NULL;
        if (ctl == NULL || ctl->comp != c || !ctl->running) {
            continue;
        }
        if (signo == TORUS_SIGNAL) {
            serve(ctl, ESI, &thread, &hw, pc);
        } else if (!ctl->busy && (ESI->state & PAPI_OVERFLOWING) &&
                   !(ESI->overflow.flags & PAPI_OVERFLOW_HARDWARE)) {
            /* PAPI's software overflow: it reads the set and compares */
            _papi_hwi_dispatch_overflow_signal(&hw, pc, NULL, 0, 0, &thread, c->cidx);
        }
    }
    errno = saved_errno;
}
