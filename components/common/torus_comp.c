/*
 * torus_comp.c - the PAPI vector shared by every papi-torus component:
 * enumeration, names, event info, control state, the read path and
 * multiplexing (groups, rotation, scaling).  Overflow and the set timer:
 * torus_ovf.c.
 */
#include "torus_comp_priv.h"
#include "torusemu.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Terms of the event being resolved, before counters are deduplicated. */
struct torus_build {
    int n;
    int full;
    torus_hwref ref[TORUS_MAX_TERMS];
    int host[TORUS_MAX_TERMS]; /* host source, or -1 for ref */
    int64_t coef[TORUS_MAX_TERMS];
};

int torus_papi_status(int torus_rc)
{
    switch (torus_rc) {
    case TORUS_OK:
        return PAPI_OK;
    case TORUS_ENOEVNT:
        return PAPI_ENOEVNT;
    case TORUS_EINVAL:
        return PAPI_EINVAL;
    case TORUS_ECNFLCT:
        return PAPI_ECNFLCT;
    case TORUS_ENOMEM:
        return PAPI_ECOUNT;
    default:
        return PAPI_ESYS;
    }
}

static void copy_str(char *dst, size_t len, const char *src)
{
    snprintf(dst, len, "%s", src != NULL ? src : "");
}

int torus_build_counter(torus_build *b, const torus_hwref *ref, int64_t coef)
{
    if (b->n >= TORUS_MAX_TERMS) {
        b->full = 1;
        return TORUS_ENOMEM;
    }
    b->ref[b->n] = *ref;
    b->host[b->n] = -1;
    b->coef[b->n] = coef;
    b->n++;
    return TORUS_OK;
}

int torus_build_host(torus_build *b, int source, int64_t coef)
{
    if (b->n >= TORUS_MAX_TERMS) {
        b->full = 1;
        return TORUS_ENOMEM;
    }
    memset(&b->ref[b->n], 0, sizeof b->ref[b->n]);
    b->host[b->n] = source;
    b->coef[b->n] = coef;
    b->n++;
    return TORUS_OK;
}

int torus_pick_code(const torus_component *c, unsigned code, torus_pick *out)
{
    return torus_table_decode(c->table, code, out);
}

void torus_pick_bases(const torus_component *c, const torus_pick *p, torus_base_visit fn, void *arg)
{
    const torus_table *t = c->table;
    if (p->ev->klass != TORUS_CLASS_DERIVED) {
        fn(p->ev, 1, arg);
        return;
    }
    for (int k = 0; k < p->ev->nterms; k++) {
        const torus_term *term = &t->terms[p->ev->first_term + k];
        fn(&t->events[term->event], term->mul, arg);
    }
}

/* ---------------------------------------------------------------- plan */

/* Resolve one event (base or derived) into b. */
static int resolve_pick(const torus_component *c, const torus_place *pl, const torus_pick *p,
                        torus_build *b)
{
    const torus_table *t = c->table;
    int rc = TORUS_OK;
    if (p->ev->klass != TORUS_CLASS_DERIVED) {
        rc = c->resolve(c, pl, p->ev, &p->q, 1, b);
    } else {
        for (int k = 0; k < p->ev->nterms && rc == TORUS_OK; k++) {
            const torus_term *term = &t->terms[p->ev->first_term + k];
            rc = c->resolve(c, pl, &t->events[term->event], &p->q, term->mul, b);
        }
    }
    return b->full ? TORUS_ENOMEM : rc;
}

static int find_counter(const torus_control *ctl, int from, int to, int64_t key)
{
    for (int i = from; i < to; i++) {
        if (ctl->handle[i] == key) {
            return i;
        }
    }
    return -1;
}

/* Turn ctl->pick[] into the read plan for the process's current place. */
static int plan(torus_control *ctl)
{
    torus_component *c = ctl->comp;
    torus_place pl;
    torus_build *b = malloc(sizeof *b);
    int64_t *handles = malloc(sizeof(int64_t) * TORUS_MAX_TERMS);
    torus_hwref *refs = malloc(sizeof(torus_hwref) * TORUS_MAX_TERMS);
    int nref = 0, rc = TORUS_OK;

    ctl->planned = 0;
    if (b == NULL || handles == NULL || refs == NULL) {
        snprintf(ctl->why, sizeof ctl->why, "out of memory");
        rc = TORUS_ENOMEM;
        goto out;
    }
    b->n = 0;
    b->full = 0;
    c->ops->place(c->be, &pl);
    for (int e = 0; e < ctl->nevents && rc == TORUS_OK; e++) {
        ctl->ev_first[e] = b->n;
        rc = resolve_pick(c, &pl, &ctl->pick[e], b);
        ctl->ev_nterms[e] = b->n - ctl->ev_first[e];
        ctl->ev_div[e] = ctl->pick[e].ev->klass == TORUS_CLASS_DERIVED ? ctl->pick[e].ev->div : 1;
        if (rc != TORUS_OK) {
            snprintf(ctl->why, sizeof ctl->why, "%s: cannot resolve %s on %s", c->name,
                     ctl->pick[e].ev->name, pl.machine);
        }
    }
    if (rc == TORUS_OK) {
        for (int i = 0; i < b->n; i++) {
            if (b->host[i] < 0) {
                refs[nref++] = b->ref[i];
            }
        }
        rc = c->ops->program(c->be, refs, nref, handles, ctl->why, sizeof ctl->why);
    }
    if (rc == TORUS_OK) {
        /* distinct counters: backend ones first, then host sources */
        int r = 0;
        ctl->ncounters = 0;
        for (int i = 0; i < b->n && rc == TORUS_OK; i++) {
            int k;
            if (b->host[i] >= 0) {
                continue;
            }
            k = find_counter(ctl, 0, ctl->ncounters, handles[r]);
            if (k < 0) {
                if (ctl->ncounters >= TORUS_MAX_COUNTERS) {
                    rc = TORUS_ENOMEM;
                    break;
                }
                k = ctl->ncounters++;
                ctl->handle[k] = handles[r];
            }
            ctl->term_counter[i] = (uint16_t)k;
            r++;
        }
        ctl->nbackend = ctl->ncounters;
        for (int i = 0; i < b->n && rc == TORUS_OK; i++) {
            int k;
            if (b->host[i] < 0) {
                continue;
            }
            k = find_counter(ctl, ctl->nbackend, ctl->ncounters, b->host[i]);
            if (k < 0) {
                if (ctl->ncounters >= TORUS_MAX_COUNTERS) {
                    rc = TORUS_ENOMEM;
                    break;
                }
                k = ctl->ncounters++;
                ctl->handle[k] = b->host[i];
            }
            ctl->term_counter[i] = (uint16_t)k;
        }
        for (int i = 0; i < b->n; i++) {
            ctl->term_coef[i] = b->coef[i];
        }
        ctl->nterms = b->n;
        if (rc == TORUS_ENOMEM) {
            snprintf(ctl->why, sizeof ctl->why, "%s: the events need more than %d counters",
                     c->name, TORUS_MAX_COUNTERS);
        }
    } else if (rc == TORUS_ENOMEM) {
        snprintf(ctl->why, sizeof ctl->why, "%s: the events need more than %d counter terms",
                 c->name, TORUS_MAX_TERMS);
    }
    if (rc == TORUS_OK) {
        ctl->planned = 1;
        ctl->place_generation = pl.generation;
    }
out:
    free(b);
    free(handles);
    free(refs);
    return rc;
}

uint64_t torus_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int time_sliced(const torus_control *ctl)
{
    return ctl->ngroups > 1;
}

void torus_sample(torus_control *ctl)
{
    const torus_component *c = ctl->comp;
    c->ops->read(c->be, ctl->handle, ctl->nbackend, ctl->now);
    for (int i = ctl->nbackend; i < ctl->ncounters; i++) {
        ctl->now[i] = c->host_read != NULL ? c->host_read(c, (int)ctl->handle[i]) : 0;
    }
    if (time_sliced(ctl)) { /* only time slicing needs the clock */
        ctl->t_now = ctl->clock_msgs != 0 ? c->ops->messages(c->be) : torus_now_ns();
    }
}

/* A slice that is over ends at a read, a reset or a stop too: with the
 * traffic clock these are the only places it ends. */
static void end_slice_if_due(torus_control *ctl)
{
    if (time_sliced(ctl) && ctl->t_now >= ctl->t_next) {
        torus_rotate(ctl);
    }
}

/*
 * TORUSEMU_MPX_CLOCK (test-only, doc/overflow-multiplex.md): "messages:N"
 * makes the slices of a multiplexed set N messages long on the traffic
 * clock, so that which group counts which message does not depend on the
 * host's timing; unset or empty = wall-clock slices.  Read at each
 * PAPI_start of a time-sliced set.  TORUS_EINVAL with the reason for any
 * other value.
 */
static int read_mpx_clock(torus_control *ctl)
{
    const char *v = getenv("TORUSEMU_MPX_CLOCK");
    char *end = NULL;
    unsigned long long n = 0;

    if (v == NULL || *v == '\0') {
        return TORUS_OK;
    }
    if (strncmp(v, "messages:", 9) == 0) {
        errno = 0;
        n = strtoull(v + 9, &end, 10);
    }
    if (n == 0 || n > 1000000000ull || errno != 0 || end == NULL || *end != '\0' || v[9] < '0' ||
        v[9] > '9') {
        snprintf(ctl->why, sizeof ctl->why,
                 "%s: TORUSEMU_MPX_CLOCK=%.64s is not valid: it must be messages:N with N from "
                 "1 to 1000000000 (slices of N messages), or unset",
                 ctl->comp->name, v);
        return TORUS_EINVAL;
    }
    ctl->clock_msgs = n;
    return TORUS_OK;
}

int64_t torus_raw(const torus_control *ctl, int e)
{
    int64_t sum = 0;
    for (int i = ctl->ev_first[e]; i < ctl->ev_first[e] + ctl->ev_nterms[e]; i++) {
        int k = ctl->term_counter[i];
        sum += ctl->term_coef[i] * (int64_t)(ctl->now[k] - ctl->start[k]);
    }
    return sum;
}

/*
 * values[e] = raw / div.  Time-sliced: raw = the counts of the event's
 * group in its active slices (acc, plus the open slice when it is the
 * active group), scaled by elapsed time / the group's active time; a group
 * that has not been active yet reads 0.
 */
static void compute(torus_control *ctl)
{
    uint64_t total = ctl->t_now - ctl->t_start;
    for (int e = 0; e < ctl->nevents; e++) {
        int g = ctl->group[e];
        __int128 raw;
        if (!time_sliced(ctl)) {
            int64_t v = torus_raw(ctl, e);
            ctl->values[e] = (long long)(ctl->ev_div[e] == 1 ? v : v / ctl->ev_div[e]);
            continue;
        }
        uint64_t active = ctl->group_ns[g];
        raw = ctl->acc[e];
        if (g == ctl->active) {
            raw += torus_raw(ctl, e);
            active += ctl->t_now - ctl->t_slice;
        }
        raw = active > 0 ? raw * (__int128)total / (__int128)active : 0;
        ctl->values[e] = (long long)(raw / ctl->ev_div[e]);
    }
}

void torus_rotate(torus_control *ctl)
{
    for (int e = 0; e < ctl->nevents; e++) {
        if (ctl->group[e] == ctl->active) {
            ctl->acc[e] += torus_raw(ctl, e);
        }
    }
    ctl->group_ns[ctl->active] += ctl->t_now - ctl->t_slice;
    ctl->active = (ctl->active + 1) % ctl->ngroups;
    ctl->t_slice = ctl->t_now;
    /* next slice: 0.5 .. 1.5 x slice_ns (xorshift64) */
    ctl->rng ^= ctl->rng << 13;
    ctl->rng ^= ctl->rng >> 7;
    ctl->rng ^= ctl->rng << 17;
    ctl->t_next = ctl->clock_msgs != 0 ? ctl->t_now + ctl->clock_msgs
                                       : ctl->t_now + ctl->slice_ns / 2 + ctl->rng % ctl->slice_ns;
    memcpy(ctl->start, ctl->now, sizeof ctl->now[0] * (size_t)ctl->ncounters);
}

/*
 * Counts restart from the current sample.  PAPI_start restarts the time
 * bookkeeping of a multiplexed set too; PAPI_reset keeps it (keep_time):
 * the counts since the reset are scaled by the share of time each group
 * had since the start, so that the readings of a tool that reads and
 * resets at every timer (TAU) add up to unbiased totals, as with the
 * kernel's time_enabled / time_running, which a reset does not clear.
 */
static void restart_counts(torus_control *ctl, int keep_time)
{
    memcpy(ctl->start, ctl->now, sizeof ctl->now[0] * (size_t)ctl->ncounters);
    memset(ctl->values, 0, sizeof ctl->values);
    memset(ctl->acc, 0, sizeof ctl->acc);
    if (!keep_time) {
        memset(ctl->group_ns, 0, sizeof ctl->group_ns);
        ctl->t_start = ctl->t_now;
        ctl->t_slice = ctl->t_now;
        ctl->t_next = ctl->t_now + (ctl->clock_msgs != 0 ? ctl->clock_msgs : ctl->slice_ns);
        ctl->rng = ctl->t_now | 1;
    }
}

void torus_enter(torus_control *ctl)
{
    ctl->busy = 1;
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
}

void torus_leave(torus_control *ctl)
{
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    ctl->busy = 0;
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    if (ctl->deferred) {
        ctl->deferred = 0;
        if (ctl->running) {
            /* delivered before this call returns to the caller */
            pthread_kill(pthread_self(), TORUS_SIGNAL);
        }
    }
}

/* ------------------------------------------------------------ groups */

/* Events one group (or a set that is not multiplexed) counts at most. */
static int group_limit(const torus_component *c)
{
    if (c->unit_counters > 0) {
        return c->unit_counters;
    }
    /* a unit without rules of its own has num_cntrs counters */
    return c->conflict == NULL && c->admit == NULL ? c->num_cntrs : TORUS_MAX_EVENTS;
}

/*
 * Split picks[0..n) into ctl->group[] (first fit, in the order the events
 * were added): every group passes the component's conflict hook and the
 * group limit.  A set that is not multiplexed must be one group, else
 * TORUS_ECNFLCT with the reason.  ctl->switching: multiplexed over groups
 * the unit cannot count at once (the node-wide state must alternate).
 */
static int make_groups(torus_control *ctl, const torus_pick *picks, int n, char *why, size_t len)
{
    const torus_component *c = ctl->comp;
    int limit = group_limit(c);
    int size[TORUS_MAX_EVENTS], ng = 0;
    torus_pick tmp[TORUS_MAX_EVENTS];

    ctl->switching = 0;
    if (!ctl->multiplexed) {
        if (n > limit) {
            snprintf(why, len,
                     "%s counts at most %d events at once%s; PAPI_set_multiplex makes more "
                     "usable",
                     c->name, limit, c->unit_counters > 0 ? " (TORUSEMU_UNIT_COUNTERS)" : "");
            return TORUS_ECNFLCT;
        }
        if (c->conflict != NULL && c->conflict(c, picks, n, why, len) != TORUS_OK) {
            return TORUS_ECNFLCT;
        }
        memset(ctl->group, 0, sizeof ctl->group);
        ctl->ngroups = n > 0;
        return TORUS_OK;
    }
    for (int e = 0; e < n; e++) {
        int g;
        for (g = 0; g < ng; g++) {
            int m = 0;
            if (size[g] >= limit) {
                continue;
            }
            for (int f = 0; f < e; f++) {
                if (ctl->group[f] == g) {
                    tmp[m++] = picks[f];
                }
            }
            tmp[m++] = picks[e];
            if (c->conflict == NULL || c->conflict(c, tmp, m, why, len) == TORUS_OK) {
                break;
            }
        }
        if (g == ng) {
            if (c->conflict != NULL && c->conflict(c, &picks[e], 1, why, len) != TORUS_OK) {
                return TORUS_ECNFLCT; /* cannot be counted even alone */
            }
            size[ng++] = 0;
        }
        ctl->group[e] = (uint8_t)g;
        size[g]++;
    }
    ctl->ngroups = ng;
    ctl->switching =
        ng > 1 && c->conflict != NULL && c->conflict(c, picks, n, why, len) != TORUS_OK;
    why[0] = '\0';
    return TORUS_OK;
}

/* ------------------------------------------------------------- vector */

int torus_init_component(torus_component *c, papi_vector_t *v, int cidx)
{
    char why[PAPI_HUGE_STR_LEN];
    const char *limit = getenv("TORUSEMU_UNIT_COUNTERS");
    int rc;

    c->cidx = cidx;
    /* the emulator setting that gives every unit only N counters */
    c->unit_counters = limit != NULL ? atoi(limit) : 0;
    if (c->unit_counters < 0 || c->unit_counters > TORUS_MAX_EVENTS) {
        c->unit_counters = 0;
    }
    v->cmp_info.CmpIdx = cidx;
    v->cmp_info.num_cntrs =
        c->unit_counters > 0 && c->unit_counters < c->num_cntrs ? c->unit_counters : c->num_cntrs;
    v->cmp_info.hardware_intr_sig = TORUS_SIGNAL;
    v->cmp_info.num_native_events = torus_table_count(c->table);
    copy_str(v->cmp_info.description, sizeof v->cmp_info.description, c->description);
    snprintf(v->cmp_info.support_version, sizeof v->cmp_info.support_version,
             "torusemu store ABI %u", TEMU_STORE_ABI_VERSION);
    pthread_mutex_init(&c->lock, NULL);
    rc = torus_table_check(c->table, why, sizeof why);
    if (rc == TORUS_OK) {
        c->ops = torus_backend_default();
        rc = c->ops->open(c->system, &c->be, why, sizeof why);
    }
    if (rc != TORUS_OK) {
        v->cmp_info.disabled = PAPI_ECMP;
        copy_str(v->cmp_info.disabled_reason, sizeof v->cmp_info.disabled_reason, why);
        TORUS_DPRINT("%s disabled: %s\n", c->name, why);
        return PAPI_ECMP;
    }
    v->cmp_info.disabled = 0;
    v->cmp_info.disabled_reason[0] = '\0';
    v->cmp_info.initialized = 1;
    torus_register(c);
    return PAPI_OK;
}

int torus_shutdown_component(torus_component *c)
{
    if (c->ops != NULL && c->be != NULL) {
        c->ops->close(c->be);
    }
    c->be = NULL;
    return PAPI_OK;
}

int torus_init_thread(hwd_context_t *ctx)
{
    (void)ctx;
    return PAPI_OK;
}

int torus_shutdown_thread(hwd_context_t *ctx)
{
    (void)ctx;
    return PAPI_OK;
}

int torus_init_control_state(torus_component *c, hwd_control_state_t *p)
{
    torus_control *ctl = p;
    memset(ctl, 0, sizeof *ctl);
    ctl->comp = c;
    ctl->slice_ns = TORUS_SLICE_NS;
    for (int e = 0; e < TORUS_MAX_EVENTS; e++) {
        ctl->ovf_watch[e] = -1;
    }
    return PAPI_OK;
}

int torus_ntv_enum_events(torus_component *c, unsigned *code, int modifier)
{
    int m;
    switch (modifier) {
    case PAPI_ENUM_FIRST:
        m = TORUS_ENUM_FIRST;
        break;
    case PAPI_ENUM_EVENTS:
        m = TORUS_ENUM_EVENTS;
        break;
    case PAPI_NTV_ENUM_UMASKS:
        m = TORUS_ENUM_UMASKS;
        break;
    default:
        return PAPI_EINVAL;
    }
    return torus_papi_status(torus_table_enum(c->table, code, m));
}

int torus_ntv_name_to_code(torus_component *c, const char *name, unsigned *code)
{
    int rc = torus_table_lookup(c->table, name, code);
    if (rc == TORUS_ENOEVNT && c->alias != NULL) {
        rc = c->alias(c, name, code);
    }
    return torus_papi_status(rc);
}

int torus_ntv_code_to_name(torus_component *c, unsigned code, char *name, int len)
{
    if (len <= 0) {
        return PAPI_EINVAL;
    }
    return torus_papi_status(torus_table_name(c->table, code, name, (size_t)len));
}

int torus_ntv_code_to_descr(torus_component *c, unsigned code, char *descr, int len)
{
    if (len <= 0) {
        return PAPI_EINVAL;
    }
    return torus_papi_status(torus_table_describe(c->table, code, descr, (size_t)len));
}

int torus_ntv_code_to_info(torus_component *c, unsigned code, PAPI_event_info_t *info)
{
    torus_pick p;
    if (torus_table_decode(c->table, code, &p) != TORUS_OK) {
        return PAPI_ENOEVNT;
    }
    torus_table_name(c->table, code, info->symbol, sizeof info->symbol);
    copy_str(info->short_descr, sizeof info->short_descr, p.ev->short_descr);
    torus_table_describe(c->table, code, info->long_descr, sizeof info->long_descr);
    /* units once per event: not on the qualifier values the enumeration
     * lists (torus_table.h, TORUS_LISTED) */
    copy_str(info->units, sizeof info->units, (code & TORUS_LISTED) ? "" : p.ev->units);
    info->component_index = c->cidx;
    info->location = PAPI_LOCATION_UNCORE;
    info->data_type = PAPI_DATATYPE_UINT64;
    info->value_type = PAPI_VALUETYPE_RUNNING_SUM;
    info->timescope = PAPI_TIMESCOPE_SINCE_START;
    info->update_type = PAPI_UPDATETYPE_ARBITRARY;
    return PAPI_OK;
}

/* Overflow settings follow their events to their new positions (PAPI
 * re-applies them after every change; a change PAPI rolls back does not
 * re-apply them, so they must survive it). */
static void carry_overflow(torus_control *ctl, const torus_pick *picks, int n)
{
    uint64_t thr[TORUS_MAX_EVENTS];
    torus_claim claim[TORUS_MAX_EVENTS];
    int used[TORUS_MAX_EVENTS] = {0};

    for (int e = 0; e < n; e++) {
        thr[e] = 0;
        memset(&claim[e], 0, sizeof claim[e]);
        for (int o = 0; o < ctl->nevents; o++) {
            if (!used[o] && ctl->pick[o].code == picks[e].code) {
                used[o] = 1;
                thr[e] = ctl->ovf_threshold[o];
                claim[e] = ctl->ovf_claim[o];
                break;
            }
        }
    }
    for (int o = 0; o < ctl->nevents; o++) {
        if (!used[o]) {
            torus_ovf_clear(ctl, o);
        }
    }
    ctl->ovf_host = 0;
    for (int e = 0; e < TORUS_MAX_EVENTS; e++) {
        ctl->ovf_threshold[e] = e < n ? thr[e] : 0;
        if (e < n) {
            ctl->ovf_claim[e] = claim[e];
        } else {
            memset(&ctl->ovf_claim[e], 0, sizeof ctl->ovf_claim[e]);
        }
    }
}

static int overflow_set(const torus_control *ctl)
{
    for (int e = 0; e < ctl->nevents; e++) {
        if (ctl->ovf_threshold[e] != 0) {
            return 1;
        }
    }
    return 0;
}

static int update_locked(torus_control *ctl, NativeInfo_t *native, int count)
{
    torus_component *c = ctl->comp;
    torus_pick picks[TORUS_MAX_EVENTS];
    uint8_t old_group[TORUS_MAX_EVENTS];
    int old_ngroups = ctl->ngroups, old_switching = ctl->switching;
    int rc = TORUS_OK;

    ctl->why[0] = '\0';
    if (count > TORUS_MAX_EVENTS) {
        snprintf(ctl->why, sizeof ctl->why, "%s: at most %d events per event set", c->name,
                 TORUS_MAX_EVENTS);
        return PAPI_ECOUNT;
    }
    for (int i = 0; i < count && rc == TORUS_OK; i++) {
        rc = torus_table_decode(c->table, (unsigned)native[i].ni_event, &picks[i]);
    }
    if (rc != TORUS_OK) {
        snprintf(ctl->why, sizeof ctl->why, "%s: unknown event code", c->name);
        return PAPI_ENOEVNT;
    }
    memcpy(old_group, ctl->group, sizeof old_group);
    rc = make_groups(ctl, picks, count, ctl->why, sizeof ctl->why);
    if (rc == TORUS_OK && ctl->ngroups > 1 && overflow_set(ctl)) {
        snprintf(ctl->why, sizeof ctl->why,
                 "%s: the events would be time-sliced, and an event of the set overflows "
                 "(remove the overflow first: PAPI_overflow with threshold 0)",
                 c->name);
        rc = TORUS_ECNFLCT;
    }
    if (rc == TORUS_OK && c->admit != NULL) {
        pthread_mutex_lock(&c->lock);
        rc = c->admit(c, ctl, picks, count, ctl->why, sizeof ctl->why);
        pthread_mutex_unlock(&c->lock);
    }
    if (rc != TORUS_OK) {
        memcpy(ctl->group, old_group, sizeof old_group);
        ctl->ngroups = old_ngroups;
        ctl->switching = old_switching;
        TORUS_DPRINT("%s\n", ctl->why);
        return torus_papi_status(rc);
    }
    carry_overflow(ctl, picks, count);
    memcpy(ctl->pick, picks, sizeof picks[0] * (size_t)count);
    ctl->nevents = count;
    rc = plan(ctl);
    if (rc != TORUS_OK) {
        TORUS_DPRINT("%s\n", ctl->why);
        return torus_papi_status(rc);
    }
    for (int i = 0; i < count; i++) {
        native[i].ni_position = i;
    }
    memset(ctl->values, 0, sizeof ctl->values);
    return PAPI_OK;
}

int torus_update_control_state(hwd_control_state_t *p, NativeInfo_t *native, int count,
                               hwd_context_t *ctx)
{
    torus_control *ctl = p;
    int rc;
    (void)ctx;
    torus_enter(ctl);
    rc = update_locked(ctl, native, count);
    torus_leave(ctl);
    return rc;
}

static int start_locked(torus_control *ctl)
{
    torus_component *c = ctl->comp;
    torus_place pl;
    int rc;

    ctl->clock_msgs = 0;
    rc = time_sliced(ctl) ? read_mpx_clock(ctl) : TORUS_OK;
    if (rc != TORUS_OK) {
        TORUS_DPRINT("%s\n", ctl->why);
        return torus_papi_status(rc);
    }
    /* the process may have learnt its node since the set was built (MPI_Init) */
    c->ops->place(c->be, &pl);
    if (pl.unknown[0] != '\0') {
        /* counting some other node's links would look right and be wrong;
         * PAPI passes on only the code, so the reason goes to stderr */
        snprintf(ctl->why, sizeof ctl->why, "%s: PAPI_start refused: %s", c->name, pl.unknown);
        fprintf(stderr, "%s\n", ctl->why);
        return PAPI_ESYS;
    }
    if (!ctl->planned || pl.generation != ctl->place_generation) {
        rc = plan(ctl);
        if (rc != TORUS_OK) {
            return torus_papi_status(rc);
        }
    }
    if (c->attach != NULL) {
        pthread_mutex_lock(&c->lock);
        rc = c->attach(c, ctl, &pl, ctl->why, sizeof ctl->why);
        pthread_mutex_unlock(&c->lock);
        if (rc != TORUS_OK) {
            TORUS_DPRINT("%s\n", ctl->why);
            return torus_papi_status(rc);
        }
    }
    rc = torus_ovf_attach(ctl, &pl);
    if (rc == TORUS_OK) {
        rc = c->ops->start(c->be, ctl->handle, ctl->nbackend);
    }
    if (rc != TORUS_OK) {
        return torus_papi_status(rc);
    }
    torus_sample(ctl);
    restart_counts(ctl, 0);
    ctl->active = 0;
    ctl->running = 1;
    rc = torus_ovf_start(ctl);
    if (rc != TORUS_OK) {
        ctl->running = 0;
        c->ops->stop(c->be, ctl->handle, ctl->nbackend);
        TORUS_DPRINT("%s\n", ctl->why);
        return torus_papi_status(rc);
    }
    return PAPI_OK;
}

int torus_start(hwd_context_t *ctx, hwd_control_state_t *p)
{
    torus_control *ctl = p;
    int rc;
    (void)ctx;
    torus_enter(ctl);
    rc = start_locked(ctl);
    torus_leave(ctl);
    return rc;
}

int torus_stop(hwd_context_t *ctx, hwd_control_state_t *p)
{
    torus_control *ctl = p;
    (void)ctx;
    torus_enter(ctl);
    if (ctl->running) {
        torus_ovf_stop(ctl);
        torus_sample(ctl);
        end_slice_if_due(ctl);
        compute(ctl);
        ctl->running = 0;
        ctl->comp->ops->stop(ctl->comp->be, ctl->handle, ctl->nbackend);
    }
    ctl->deferred = 0;
    torus_leave(ctl);
    return PAPI_OK;
}

int torus_read(hwd_context_t *ctx, hwd_control_state_t *p, long long **values, int flags)
{
    torus_control *ctl = p;
    (void)ctx;
    (void)flags;
    torus_enter(ctl);
    if (ctl->running) {
        torus_sample(ctl);
        end_slice_if_due(ctl);
        compute(ctl);
    }
    *values = ctl->values;
    torus_leave(ctl);
    return PAPI_OK;
}

int torus_reset(hwd_context_t *ctx, hwd_control_state_t *p)
{
    torus_control *ctl = p;
    (void)ctx;
    torus_enter(ctl);
    if (ctl->planned) {
        torus_sample(ctl);
        if (ctl->running) {
            end_slice_if_due(ctl);
            torus_ovf_reset(ctl);
        }
        restart_counts(ctl, ctl->running);
    }
    memset(ctl->values, 0, sizeof ctl->values);
    torus_leave(ctl);
    return PAPI_OK;
}

int torus_cleanup_eventset(hwd_control_state_t *p)
{
    torus_control *ctl = p;
    torus_component *c = ctl->comp;
    if (c == NULL) {
        return PAPI_OK;
    }
    torus_enter(ctl);
    if (ctl->running) {
        torus_ovf_stop(ctl);
    }
    for (int e = 0; e < TORUS_MAX_EVENTS; e++) {
        torus_ovf_clear(ctl, e);
    }
    if (c->release != NULL) {
        pthread_mutex_lock(&c->lock);
        c->release(c, ctl);
        pthread_mutex_unlock(&c->lock);
    }
    ctl->nevents = 0;
    ctl->ngroups = 0;
    ctl->planned = 0;
    ctl->running = 0;
    ctl->deferred = 0;
    torus_leave(ctl);
    return PAPI_OK;
}

/* PAPI_set_multiplex: the set may now hold events the unit cannot count
 * at once; they are time-sliced every `ns` (PAPI's multiplex interval,
 * PAPI_DEF_MPX_NS; 10 ms by default). */
static int set_multiplex(_papi_int_option_t *option)
{
    EventSetInfo_t *ESI = option->multiplex.ESI;
    torus_control *ctl = ESI != NULL ? ESI->ctl_state : NULL;
    uint64_t ns = option->multiplex.ns;
    if (ctl == NULL || ctl->comp == NULL) {
        return PAPI_EINVAL;
    }
    if (ns == 0) {
        ns = TORUS_SLICE_NS;
    } else if (ns < TORUS_SLICE_MIN_NS) {
        ns = TORUS_SLICE_MIN_NS;
    }
    ctl->multiplexed = 1;
    ctl->slice_ns = ns;
    option->multiplex.ns = (unsigned long)ns; /* what PAPI reports back */
    return PAPI_OK;
}

int torus_ctl(hwd_context_t *ctx, int code, _papi_int_option_t *option)
{
    (void)ctx;
    switch (code) {
    case PAPI_DOMAIN:
    case PAPI_GRANUL:
        return PAPI_OK;
    case PAPI_MULTIPLEX:
        return set_multiplex(option);
    default:
        return PAPI_ENOSUPP;
    }
}

int torus_set_domain(hwd_control_state_t *ctl, int domain)
{
    (void)ctl;
    (void)domain;
    return PAPI_OK;
}
