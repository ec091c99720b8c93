/*
 * torus_comp.c - the PAPI vector shared by every papi-torus component:
 * enumeration, names, event info, control state, and the read path.
 */
#include "torus_comp.h"
#include "torusemu.h"

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

static int papi_status(int torus_rc)
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

/* Current values of every counter of the plan into ctl->now. */
static void sample(torus_control *ctl)
{
    const torus_component *c = ctl->comp;
    c->ops->read(c->be, ctl->handle, ctl->nbackend, ctl->now);
    for (int i = ctl->nbackend; i < ctl->ncounters; i++) {
        ctl->now[i] = c->host_read != NULL ? c->host_read(c, (int)ctl->handle[i]) : 0;
    }
}

/* values[e] = (sum of coef x (now - start)) / div */
static void compute(torus_control *ctl)
{
    for (int e = 0; e < ctl->nevents; e++) {
        int64_t sum = 0;
        for (int i = ctl->ev_first[e]; i < ctl->ev_first[e] + ctl->ev_nterms[e]; i++) {
            int k = ctl->term_counter[i];
            sum += ctl->term_coef[i] * (int64_t)(ctl->now[k] - ctl->start[k]);
        }
        ctl->values[e] = (long long)(sum / ctl->ev_div[e]);
    }
}

/* ------------------------------------------------------------- vector */

int torus_init_component(torus_component *c, papi_vector_t *v, int cidx)
{
    char why[PAPI_HUGE_STR_LEN];
    int rc;

    c->cidx = cidx;
    v->cmp_info.CmpIdx = cidx;
    v->cmp_info.num_cntrs = c->num_cntrs;
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
    return papi_status(torus_table_enum(c->table, code, m));
}

int torus_ntv_name_to_code(torus_component *c, const char *name, unsigned *code)
{
    int rc = torus_table_lookup(c->table, name, code);
    if (rc == TORUS_ENOEVNT && c->alias != NULL) {
        rc = c->alias(c, name, code);
    }
    return papi_status(rc);
}

int torus_ntv_code_to_name(torus_component *c, unsigned code, char *name, int len)
{
    if (len <= 0) {
        return PAPI_EINVAL;
    }
    return papi_status(torus_table_name(c->table, code, name, (size_t)len));
}

int torus_ntv_code_to_descr(torus_component *c, unsigned code, char *descr, int len)
{
    if (len <= 0) {
        return PAPI_EINVAL;
    }
    return papi_status(torus_table_describe(c->table, code, descr, (size_t)len));
}

int torus_ntv_code_to_info(torus_component *c, unsigned code, PAPI_event_info_t *info)
{
    torus_pick p;
    if (torus_table_decode(c->table, code, &p) != TORUS_OK) {
        return PAPI_ENOEVNT;
    }
    torus_table_name(c->table, code, info->symbol, sizeof info->symbol);
    copy_str(info->short_descr, sizeof info->short_descr, p.ev->descr);
    torus_table_describe(c->table, code, info->long_descr, sizeof info->long_descr);
    copy_str(info->units, sizeof info->units, p.ev->units);
    info->component_index = c->cidx;
    info->location = PAPI_LOCATION_UNCORE;
    info->data_type = PAPI_DATATYPE_UINT64;
    info->value_type = PAPI_VALUETYPE_RUNNING_SUM;
    info->timescope = PAPI_TIMESCOPE_SINCE_START;
    info->update_type = PAPI_UPDATETYPE_ARBITRARY;
    return PAPI_OK;
}

int torus_update_control_state(hwd_control_state_t *p, NativeInfo_t *native, int count,
                               hwd_context_t *ctx)
{
    torus_control *ctl = p;
    torus_component *c = ctl->comp;
    torus_pick picks[TORUS_MAX_EVENTS];
    int rc = TORUS_OK;

    (void)ctx;
    ctl->why[0] = '\0';
    if (count > TORUS_MAX_EVENTS) {
        snprintf(ctl->why, sizeof ctl->why, "%s: at most %d events per event set", c->name,
                 TORUS_MAX_EVENTS);
        return PAPI_ECOUNT;
    }
    /* with an admit hook the component applies the hardware's own rules
     * (counters shared by events, node-wide claims) */
    if (c->admit == NULL && count > c->num_cntrs && !ctl->multiplexed) {
        snprintf(ctl->why, sizeof ctl->why, "%s counts at most %d events at once", c->name,
                 c->num_cntrs);
        return PAPI_ECNFLCT;
    }
    for (int i = 0; i < count && rc == TORUS_OK; i++) {
        rc = torus_table_decode(c->table, (unsigned)native[i].ni_event, &picks[i]);
    }
    if (rc != TORUS_OK) {
        snprintf(ctl->why, sizeof ctl->why, "%s: unknown event code", c->name);
        return PAPI_ENOEVNT;
    }
    if (c->admit != NULL) {
        pthread_mutex_lock(&c->lock);
        rc = c->admit(c, ctl, picks, count, ctl->why, sizeof ctl->why);
        pthread_mutex_unlock(&c->lock);
        if (rc != TORUS_OK) {
            TORUS_DPRINT("%s\n", ctl->why);
            return papi_status(rc);
        }
    }
    memcpy(ctl->pick, picks, sizeof picks[0] * (size_t)count);
    ctl->nevents = count;
    rc = plan(ctl);
    if (rc != TORUS_OK) {
        TORUS_DPRINT("%s\n", ctl->why);
        return papi_status(rc);
    }
    for (int i = 0; i < count; i++) {
        native[i].ni_position = i;
    }
    memset(ctl->values, 0, sizeof ctl->values);
    return PAPI_OK;
}

int torus_start(hwd_context_t *ctx, hwd_control_state_t *p)
{
    torus_control *ctl = p;
    torus_component *c = ctl->comp;
    torus_place pl;
    int rc;

    (void)ctx;
    /* the process may have learnt its node since the set was built (MPI_Init) */
    c->ops->place(c->be, &pl);
    if (!ctl->planned || pl.generation != ctl->place_generation) {
        rc = plan(ctl);
        if (rc != TORUS_OK) {
            return papi_status(rc);
        }
    }
    if (c->attach != NULL) {
        pthread_mutex_lock(&c->lock);
        rc = c->attach(c, ctl, &pl, ctl->why, sizeof ctl->why);
        pthread_mutex_unlock(&c->lock);
        if (rc != TORUS_OK) {
            TORUS_DPRINT("%s\n", ctl->why);
            return papi_status(rc);
        }
    }
    rc = c->ops->start(c->be, ctl->handle, ctl->nbackend);
    if (rc != TORUS_OK) {
        return papi_status(rc);
    }
    sample(ctl);
    memcpy(ctl->start, ctl->now, sizeof ctl->now[0] * (size_t)ctl->ncounters);
    memset(ctl->values, 0, sizeof ctl->values);
    ctl->running = 1;
    return PAPI_OK;
}

int torus_stop(hwd_context_t *ctx, hwd_control_state_t *p)
{
    torus_control *ctl = p;
    (void)ctx;
    if (ctl->running) {
        sample(ctl);
        compute(ctl);
        ctl->running = 0;
        ctl->comp->ops->stop(ctl->comp->be, ctl->handle, ctl->nbackend);
    }
    return PAPI_OK;
}

int torus_read(hwd_context_t *ctx, hwd_control_state_t *p, long long **values, int flags)
{
    torus_control *ctl = p;
    (void)ctx;
    (void)flags;
    if (ctl->running) {
        sample(ctl);
        compute(ctl);
    }
    *values = ctl->values;
    return PAPI_OK;
}

int torus_reset(hwd_context_t *ctx, hwd_control_state_t *p)
{
    torus_control *ctl = p;
    (void)ctx;
    if (ctl->planned) {
        sample(ctl);
        memcpy(ctl->start, ctl->now, sizeof ctl->now[0] * (size_t)ctl->ncounters);
    }
    memset(ctl->values, 0, sizeof ctl->values);
    return PAPI_OK;
}

int torus_cleanup_eventset(hwd_control_state_t *p)
{
    torus_control *ctl = p;
    torus_component *c = ctl->comp;
    if (c != NULL && c->release != NULL) {
        pthread_mutex_lock(&c->lock);
        c->release(c, ctl);
        pthread_mutex_unlock(&c->lock);
    }
    if (c != NULL) {
        ctl->nevents = 0;
        ctl->planned = 0;
        ctl->running = 0;
    }
    return PAPI_OK;
}

int torus_ctl(hwd_context_t *ctx, int code, _papi_int_option_t *option)
{
    (void)ctx;
    (void)option;
    switch (code) {
    case PAPI_DOMAIN:
    case PAPI_GRANUL:
        return PAPI_OK;
    default:
        /* PAPI_MULTIPLEX arrives here only with kernel_multiplex (issue 5) */
        return PAPI_ENOSUPP;
    }
}

int torus_set_domain(hwd_control_state_t *ctl, int domain)
{
    (void)ctl;
    (void)domain;
    return PAPI_OK;
}
