/*
 * production_run.c - a production period over the flow-level model
 * (production.h; doc/production.md).
 *
 * The queue (production.c) starts and ends jobs; each running job's
 * traffic is one steady stream per pair of nodes its pattern connects
 * (temu_pattern_pairs), at rates that change only when a phase ends
 * (temu_prod_phase_draw).  A stream of a phase is a Gemini PUT stream of
 * 64-byte transactions: `count` request packets (32 phits) from the
 * source on VC0 and as many responses (3 phits) back on VC1, the packets
 * the volume model plans for a PUT of count x 64 bytes, sent to the flow
 * model as two flows capped at the phase's rate (temu_fm_send's max_gbs)
 * so that the work is per stream and phase, not per message.
 *
 * Counters: the flow model tells every crossing (temu_fm_set_hop) and
 * emu/crossing.c adds what it accounts for to the store, as a timed
 * replay's series counts its messages (link tiles as packets start onto
 * them, the NIC counters of each stream's PUT as its packets leave and
 * enter the nodes); the flow level's estimated stalls go to the tiles'
 * stall counters in router cycles at every snapshot through the bridge
 * every level's counters take (temu_fm_stall_counters_flush), and a snapshot of
 * the store is written to the series every interval of virtual time.
 */
#include "production.h"
#include "torusemu_crossing.h"
#include "torusemu_flow.h"
#include "torusemu_series.h"

#include <stdlib.h>
#include <string.h>

/* A hop record not yet wholly counted, and the time counted up to. */
typedef struct pending {
    temu_tm_hop h;
    int64_t after_ps;
} pending;

/* A running job as the run keeps it (the queue's record is valid during
 * its callback only; held stays the queue's until the job ends). */
typedef struct live {
    temu_prod_job job; /* held points at the queue's copy */
    temu_prod_phase ph;
} live;

/* One pair of a pattern step. */
typedef struct pair {
    int32_t from, to;
    uint64_t bytes;
} pair;

typedef struct run {
    temu_session *s;
    const temu_machine *m;
    const temu_prod_run_opts *o;
    temu_fm *fm;
    temu_series *w;
    temu_prod_report *rep;
    temu_error *err;
    temu_status st;       /* the first failure inside a callback */
    int64_t until_ps;     /* the time the model is being run to */
    temu_ledger **ledger; /* per stream: its PUT's node counters still to count */
    int64_t nstream, capstream;
    pending *pend;
    int64_t npend, cappend;
    live *jobs;
    int64_t njobs, capjobs;
    pair *pairs;
    int64_t npairs, cappairs;
    temu_tm_flushed *flushed; /* the stall counters added so far */
    uint32_t req_phits, resp_phits;
} run;

static temu_status grow(void **p, int64_t *cap, int64_t need, size_t size, temu_error *err)
{
    if (need <= *cap) {
        return TEMU_OK;
    }
    int64_t c = *cap > 0 ? *cap : 64;
    while (c < need) {
        c *= 2;
    }
    void *q = realloc(*p, (size_t)c * size);
    if (q == NULL) {
        return temu_fail(err, TEMU_ENOMEM, "production: out of memory");
    }
    *p = q;
    *cap = c;
    return TEMU_OK;
}

/* ------------------------------------------------------------ counting */

/* The model tells a crossing: count it up to the time being run to (all
 * of it that time covers; the model has told it by then), keep the rest. */
static void on_hop(void *ctx, const temu_tm_hop *h)
{
    run *r = ctx;
    temu_ledger **lg = &r->ledger[h->tag >> 1];
    r->rep->hop_records++;
    temu_crossing_count(r->s, lg, (int)(h->tag & 1), h, h->start_ps - 1, r->until_ps);
    if (temu_crossing_done_by(h, r->until_ps)) {
        return;
    }
    if (grow((void **)&r->pend, &r->cappend, r->npend + 1, sizeof *r->pend, r->err) != TEMU_OK) {
        r->st = TEMU_ENOMEM;
        return;
    }
    r->pend[r->npend++] = (pending){*h, r->until_ps};
}

/* The records still under way, counted up to t. */
static void count_pending(run *r, int64_t t)
{
    r->rep->pending_peak =
        (uint64_t)r->npend > r->rep->pending_peak ? (uint64_t)r->npend : r->rep->pending_peak;
    for (int64_t i = 0; i < r->npend;) {
        pending *p = &r->pend[i];
        temu_crossing_count(r->s, &r->ledger[p->h.tag >> 1], (int)(p->h.tag & 1), &p->h,
                            p->after_ps, t);
        if (temu_crossing_done_by(&p->h, t)) {
            *p = r->pend[--r->npend];
        } else {
            p->after_ps = t;
            i++;
        }
    }
}

/* Run the model to t and count what crossed by then. */
static void advance(run *r, int64_t t)
{
    r->until_ps = t;
    count_pending(r, t); /* what was under way at the previous step */
    temu_fm_run(r->fm, t);
}

static temu_status snapshot(run *r, int64_t t)
{
    /* the flow level's estimated stalls since the last snapshot, where
     * every level's land (the bridge's one translation, timing_bridge.c) */
    temu_status st = temu_fm_stall_counters_flush(r->fm, r->flushed, r->s, r->err);
    if (st == TEMU_OK) {
        st = temu_series_snapshot(r->w, t, r->err);
    }
    r->rep->snapshots += st == TEMU_OK;
    if (st == TEMU_OK && r->o->snapshot != NULL) {
        r->o->snapshot(r->o->ctx, t, r->rep);
    }
    return st;
}

/* ------------------------------------------------------------ streams */

static temu_status collect_pair(void *ctx, int32_t from, int32_t to, uint64_t bytes,
                                temu_error *err)
{
    run *r = ctx;
    temu_status st = grow((void **)&r->pairs, &r->cappairs, r->npairs + 1, sizeof *r->pairs, err);
    if (st == TEMU_OK) {
        r->pairs[r->npairs++] = (pair){from, to, bytes};
    }
    return st;
}

/* One stream of a phase: `tx` PUT transactions from src to dst, spread
 * evenly over the `ns` nanoseconds from t (the rate cap is the whole
 * transactions over the phase, so that every stream of a phase drains at
 * its end when the network keeps up: one event of the model, not one per
 * stream). */
static temu_status stream_send(run *r, int64_t t, int64_t src, int64_t dst, uint64_t tx, double ns)
{
    temu_status st =
        grow((void **)&r->ledger, &r->capstream, r->nstream + 1, sizeof *r->ledger, r->err);
    int64_t id = r->nstream;
    temu_message msg = {src, dst, tx * TEMU_GEMINI_MAX_TRANSACTION, NULL, TEMU_KIND_PUT};
    if (st == TEMU_OK) {
        r->ledger[id] = NULL;
        st = temu_crossing_begin(r->s, &msg, &r->ledger[id], r->err);
    }
    if (st != TEMU_OK) {
        return st;
    }
    r->nstream++;
    uint32_t key = (uint32_t)((src + dst) % 8); /* the stream's first tile slot */
    uint32_t req = r->req_phits * 3, resp = r->resp_phits * 3;
    double per_ns = (double)tx / ns; /* transactions per ns */
    st = temu_fm_send(r->fm, t, src, dst, req, tx, 0, key, per_ns * req, (uint64_t)id << 1,
                      r->err);
    if (st == TEMU_OK) {
        st = temu_fm_send(r->fm, t, dst, src, resp, tx, 1, key, per_ns * resp,
                          (uint64_t)id << 1 | 1u, r->err);
    }
    r->rep->streams++;
    r->rep->packets += 2 * tx;
    return st;
}

/* Phase `index` of job j from t: its pattern's pairs as streams. */
static temu_status phase_start(run *r, live *j, int32_t index, int64_t t)
{
    temu_pattern p;
    temu_prod_phase_draw(&r->o->params, &j->job, index, t, &j->ph);
    r->rep->phases++;
    if (j->ph.node_gbs <= 0 || j->job.nodes < 2) {
        return TEMU_OK;
    }
    temu_prod_pattern_of(&j->job, &j->ph, &p);
    r->npairs = 0;
    temu_status st = temu_pattern_pairs(&p, (int32_t)j->job.nodes, collect_pair, r, r->err);
    uint64_t total = 0;
    for (int64_t i = 0; st == TEMU_OK && i < r->npairs; i++) {
        total += r->pairs[i].bytes;
    }
    double ns = (double)(j->ph.end_ps - t) / 1000.0;
    for (int64_t i = 0; st == TEMU_OK && total > 0 && i < r->npairs; i++) {
        /* the job's nodes x their mean rate, shared as the pattern's bytes */
        double gbs =
            j->ph.node_gbs * (double)j->job.nodes * (double)r->pairs[i].bytes / (double)total;
        uint64_t tx = (uint64_t)(gbs * ns / TEMU_GEMINI_MAX_TRANSACTION);
        if (tx > 0) {
            st = stream_send(r, t, j->job.held[r->pairs[i].from], j->job.held[r->pairs[i].to], tx,
                             ns);
        }
    }
    return st;
}

static void on_job(void *ctx, const temu_prod_job *j, int started)
{
    run *r = ctx;
    if (r->st != TEMU_OK) {
        return;
    }
    if (!started) {
        for (int64_t i = 0; i < r->njobs; i++) {
            if (r->jobs[i].job.id == j->id) {
                r->jobs[i] = r->jobs[--r->njobs];
                break;
            }
        }
        return;
    }
    r->st = grow((void **)&r->jobs, &r->capjobs, r->njobs + 1, sizeof *r->jobs, r->err);
    if (r->st == TEMU_OK) {
        live *l = &r->jobs[r->njobs++];
        l->job = *j;
        r->st = phase_start(r, l, 0, j->start_ps);
    }
}

/* Jobs whose phase ends at t before the job does start their next one. */
static temu_status phases_due(run *r, int64_t t)
{
    temu_status st = TEMU_OK;
    for (int64_t i = 0; st == TEMU_OK && i < r->njobs; i++) {
        live *l = &r->jobs[i];
        if (l->ph.end_ps == t && t < l->job.start_ps + l->job.run_ps) {
            st = phase_start(r, l, l->ph.index + 1, t);
        }
    }
    return st;
}

/* The next time something happens: a snapshot, the queue, a phase. */
static int64_t next_time(const run *r, const temu_prod_queue *q, int64_t snap)
{
    int64_t t = temu_prod_queue_next(q);
    t = snap < t ? snap : t;
    for (int64_t i = 0; i < r->njobs; i++) {
        const live *l = &r->jobs[i];
        if (l->ph.end_ps < l->job.start_ps + l->job.run_ps && l->ph.end_ps < t) {
            t = l->ph.end_ps;
        }
    }
    return t;
}

/* ------------------------------------------------------------ the run */

static temu_status run_check(const temu_machine *m, const temu_prod_run_opts *o, temu_error *err)
{
    if (temu_family_info_get(m->system)->tiles == 0) {
        return temu_fail(err, TEMU_EINVAL,
                         "a production period runs on a Gemini machine (seed 004's Blue Waters); "
                         "%s is not one",
                         m->name);
    }
    if (o->duration_ps <= 0 || o->interval_ps <= 0) {
        return temu_fail(err, TEMU_EINVAL, "production: the period and the interval must be > 0");
    }
    return TEMU_OK;
}

static temu_status run_loop(run *r, temu_prod_queue *q, const temu_prod_run_opts *o)
{
    temu_status st = snapshot(r, 0);
    int64_t t = 0, snap = o->interval_ps < o->duration_ps ? o->interval_ps : o->duration_ps;
    double area = 0;
    st = st == TEMU_OK ? temu_prod_queue_advance(q, 0, on_job, r, r->err) : st;
    while (st == TEMU_OK && r->st == TEMU_OK && t < o->duration_ps) {
        int64_t next = next_time(r, q, snap);
        temu_prod_queue_stats qs;
        temu_prod_queue_stats_get(q, &qs);
        area += (double)qs.used_nodes * (double)(next - t);
        advance(r, next);
        t = next;
        if (t == snap) {
            st = snapshot(r, t);
            snap = snap + o->interval_ps < o->duration_ps ? snap + o->interval_ps : o->duration_ps;
            snap = snap > t ? snap : INT64_MAX;
        }
        st = st == TEMU_OK ? temu_prod_queue_advance(q, t, on_job, r, r->err) : st;
        st = st == TEMU_OK ? phases_due(r, t) : st;
    }
    temu_prod_queue_stats_get(q, &r->rep->queue);
    r->rep->mean_used = area / ((double)r->m->nnodes * (double)o->duration_ps);
    return st != TEMU_OK ? st : r->st;
}

static void run_free(run *r)
{
    for (int64_t i = 0; i < r->nstream; i++) {
        temu_ledger_free(r->ledger[i]);
    }
    free(r->ledger);
    free(r->pend);
    free(r->jobs);
    free(r->pairs);
    temu_tm_flushed_free(r->flushed);
    temu_fm_destroy(r->fm);
}

temu_status temu_prod_run(temu_session *s, const temu_prod_run_opts *o, temu_prod_report *out,
                          temu_error *err)
{
    const temu_machine *m = temu_session_machine(s);
    run r = {.s = s, .m = m, .o = o, .rep = out, .err = err};
    temu_alloc *a = NULL;
    temu_prod_queue *q = NULL;
    temu_tm_config tc;
    memset(out, 0, sizeof *out);
    temu_status st = run_check(m, o, err);
    st = st == TEMU_OK ? temu_tm_config_default(m, &tc, err) : st;
    st = st == TEMU_OK ? temu_fm_create(m, &tc, &r.fm, err) : st;
    st = st == TEMU_OK ? temu_alloc_create(m, o->allocator, &a, err) : st;
    st = st == TEMU_OK ? temu_prod_queue_create(&o->params, a, &q, err) : st;
    st = st == TEMU_OK ? temu_tm_flushed_create(m, &r.flushed, err) : st;
    r.req_phits = temu_gemini_put_request_phits(TEMU_GEMINI_MAX_TRANSACTION, 0);
    r.resp_phits = TEMU_GEMINI_PUT_RESPONSE_PHITS;
    st = st == TEMU_OK ? temu_series_create(o->series, s, o->interval_ps, &r.w, err) : st;
    if (st == TEMU_OK) {
        temu_fm_set_hop(r.fm, on_hop, &r);
        st = run_loop(&r, q, o);
    }
    if (st == TEMU_OK && r.fm != NULL) {
        temu_fm_totals_get(r.fm, &out->flow);
    }
    temu_error cerr;
    temu_status cst = temu_series_close(r.w, &cerr); /* NULL: nothing to close */
    if (st == TEMU_OK && cst != TEMU_OK) {
        st = cst;
        *err = cerr;
    }
    temu_prod_queue_free(q);
    temu_alloc_free(a);
    run_free(&r);
    return st;
}
