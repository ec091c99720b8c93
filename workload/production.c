/*
 * production.c - the jobs of a production period and the batch queue that
 * runs them (production.h; doc/production.md gives the sources).
 *
 * Jobs (each drawn from its own generator seeded by the period's seed and
 * its id, so a job is the same whatever the allocator or the queue did):
 *   - size: log2(nodes) uniform on [0, log2 64] for 99 % of the jobs and
 *     on [log2 64, log2 max_job_nodes] for the others, a power of two
 *     (log2 rounded) for 80 % of them - the two-stage log-uniform shape of
 *     Lublin and Feitelson's model of rigid parallel jobs ("The workload
 *     on parallel supercomputers: modeling the characteristics of rigid
 *     jobs", JPDC 63(11), 2003: sizes uniform in log scale in two stages,
 *     most of them powers of two) with our parameters, not fitted to
 *     Blue Waters' logs (which we do not have) but set so that the job
 *     rate is of the order of Blue Waters' (White et al., "Challenges of
 *     workload analysis on large HPC systems; a case study on NCSA
 *     Bluewaters", PEARC 2017: over 4.5 million jobs from April 2013 to
 *     September 2016, about 147 an hour; these parameters give about 96 an
 *     hour at the default load on 27,648 nodes, doc/production.md) and
 *     most of the node time is in jobs above 64 nodes (73 %); the largest
 *     job is Blue Waters' queue limit, 26,864 nodes (NCSA, "Queue,
 *     Scheduling and Charging Policies");
 *   - runtime: log-uniform between 1 minute and 48 hours, Blue Waters'
 *     longest wall time since January 2016 (same page);
 *   - pattern: TEMU_PROD_PATTERNS kinds at fixed shares (production.h);
 *   - phases: exponential lengths of mean mean_phase_ps, each with its own
 *     node injection rate, exponential of mean mean_node_gbs (seed 004,
 *     Fig. 3: the CCDF of the machine's injection per minute is a line on a
 *     log scale, an exponential tail), capped at max_node_gbs.
 * Arrivals: a backlog of twice the machine's nodes at time 0, then a
 * Poisson stream at the offered load.  The machine is caught in the middle
 * of production, not emptied before: at time 0 the backlog is placed
 * first-fit in submission order, more of it drawn while under 95 % of the
 * nodes are held, and a job started then runs a uniform share of its
 * runtime.
 */
#include "production.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define PS_PER_MIN 60000000000000ll
#define PS_PER_S 1000000000000ll

/* The queue's and the phases' times are whole seconds, as a batch
 * system's clock is: events of one second fall together, and the flow
 * model steps once for all of them (its cost grows with the steps). */
static int64_t whole_seconds(double ps)
{
    double s = ceil(ps / (double)PS_PER_S);
    return (int64_t)(s < 1 ? 1 : s) * PS_PER_S;
}

const int32_t temu_prod_pattern_kinds[TEMU_PROD_PATTERNS] = {TEMU_PATTERN_HALO, TEMU_PATTERN_FFT,
                                                             TEMU_PATTERN_RANDOM};
const double temu_prod_pattern_shares[TEMU_PROD_PATTERNS] = {0.5, 0.3, 0.2};

void temu_prod_params_default(temu_prod_params *p, int64_t nodes)
{
    memset(p, 0, sizeof *p);
    p->machine_nodes = nodes;
    p->max_job_nodes = nodes < 26864 ? nodes : 26864;
    p->min_run_ps = PS_PER_MIN;
    p->max_run_ps = 48 * 60 * PS_PER_MIN;
    p->small_nodes = 64;
    p->small_share = 0.99;
    p->pow2_share = 0.8;
    p->load = 1.2;
    p->mean_phase_ps = 5 * PS_PER_MIN;
    p->mean_node_gbs = 0.1;
    p->max_node_gbs = 1.0;
    p->seed = 1;
}

/* ------------------------------------------------------------ draws */

uint64_t temu_prod_rng(uint64_t *state)
{
    uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

double temu_prod_uniform(uint64_t *state)
{
    return (double)(temu_prod_rng(state) >> 11) * 0x1.0p-53;
}

/* A generator for (seed, a, b): streams that do not depend on each other. */
static uint64_t stream(uint64_t seed, uint64_t a, uint64_t b)
{
    uint64_t s = seed ^ 0x5851F42D4C957F2Dull;
    s = temu_prod_rng(&s) ^ a;
    s = temu_prod_rng(&s) ^ b;
    return temu_prod_rng(&s);
}

static double log2_max(const temu_prod_params *p)
{
    return log2((double)p->max_job_nodes);
}

/* The two stages of log2(size): [0, b] and [b, log2 max] (b at most the
 * top). */
static void stages(const temu_prod_params *p, double lo[2], double hi[2])
{
    double l = log2_max(p), b = log2((double)p->small_nodes);
    b = b < l ? b : l;
    lo[0] = 0;
    hi[0] = b;
    lo[1] = b;
    hi[1] = l;
}

int64_t temu_prod_draw_nodes(const temu_prod_params *p, uint64_t *rng)
{
    double lo[2], hi[2], l = log2_max(p);
    stages(p, lo, hi);
    int st = temu_prod_uniform(rng) < p->small_share ? 0 : 1;
    double u = lo[st] + temu_prod_uniform(rng) * (hi[st] - lo[st]);
    int64_t n;
    if (temu_prod_uniform(rng) < p->pow2_share) {
        int j = (int)floor(u + 0.5);
        if (j > (int)floor(l)) {
            j = (int)floor(l);
        }
        n = (int64_t)1 << j;
    } else {
        n = (int64_t)floor(exp2(u));
    }
    return n < 1 ? 1 : n > p->max_job_nodes ? p->max_job_nodes : n;
}

int64_t temu_prod_draw_run(const temu_prod_params *p, uint64_t *rng)
{
    double r = (double)p->max_run_ps / (double)p->min_run_ps;
    int64_t t = whole_seconds((double)p->min_run_ps * pow(r, temu_prod_uniform(rng)));
    return t < p->max_run_ps ? t : p->max_run_ps;
}

int32_t temu_prod_draw_pattern(uint64_t *rng)
{
    double u = temu_prod_uniform(rng), acc = 0;
    for (int i = 0; i < TEMU_PROD_PATTERNS - 1; i++) {
        acc += temu_prod_pattern_shares[i];
        if (u < acc) {
            return temu_prod_pattern_kinds[i];
        }
    }
    return temu_prod_pattern_kinds[TEMU_PROD_PATTERNS - 1];
}

/* Mean size of one stage, u uniform on [a, b] (0 <= a <= b <= l): the
 * power-of-two part sums 2^j over the share of [a, b] that rounds to j
 * (the top one taking the rest up to l), the other part floor(2^u) = k
 * over u in [log2 k, log2 (k + 1)). */
static double stage_mean(const temu_prod_params *p, double a, double b)
{
    double l = log2_max(p), pow2 = 0, plain = 0;
    if (b <= a) {
        return exp2(floor(a + 0.5) < floor(l) ? floor(a + 0.5) : floor(l));
    }
    int top = (int)floor(l);
    for (int j = (int)floor(a + 0.5); j <= top; j++) {
        double x = fmax(a, j - 0.5), y = j == top ? b : fmin(b, j + 0.5);
        pow2 += y > x ? exp2(j) * (y - x) / (b - a) : 0;
    }
    for (int64_t k = (int64_t)floor(exp2(a)); k <= p->max_job_nodes; k++) {
        double x = fmax(log2((double)k), a), y = fmin(log2((double)(k + 1)), b);
        plain += y > x ? (double)k * (y - x) / (b - a) : 0;
    }
    return p->pow2_share * pow2 + (1 - p->pow2_share) * plain;
}

double temu_prod_mean_nodes(const temu_prod_params *p)
{
    double lo[2], hi[2];
    stages(p, lo, hi);
    return p->small_share * stage_mean(p, lo[0], hi[0]) +
           (1 - p->small_share) * stage_mean(p, lo[1], hi[1]);
}

double temu_prod_mean_run_ps(const temu_prod_params *p)
{
    double a = (double)p->min_run_ps, b = (double)p->max_run_ps;
    return b > a ? (b - a) / log(b / a) : a;
}

void temu_prod_job_draw(const temu_prod_params *p, int64_t id, int64_t submit_ps,
                        temu_prod_job *out)
{
    uint64_t s = stream(p->seed, 1, (uint64_t)id);
    memset(out, 0, sizeof *out);
    out->id = id;
    out->nodes = temu_prod_draw_nodes(p, &s);
    out->run_ps = temu_prod_draw_run(p, &s);
    out->pattern = temu_prod_draw_pattern(&s);
    out->submit_ps = submit_ps;
    out->start_ps = -1;
}

void temu_prod_phase_draw(const temu_prod_params *p, const temu_prod_job *j, int32_t index,
                          int64_t start_ps, temu_prod_phase *out)
{
    uint64_t s = stream(p->seed, 2 + ((uint64_t)index << 8), (uint64_t)j->id);
    double len = -log1p(-temu_prod_uniform(&s)) * (double)p->mean_phase_ps;
    double gbs = -log1p(-temu_prod_uniform(&s)) * p->mean_node_gbs;
    int64_t end = j->start_ps + j->run_ps;
    out->index = index;
    out->start_ps = start_ps;
    out->end_ps = len >= (double)(end - start_ps) ? end : start_ps + whole_seconds(len);
    out->end_ps = out->end_ps < end ? out->end_ps : end;
    out->node_gbs = gbs < p->max_node_gbs ? gbs : p->max_node_gbs;
    out->seed = temu_prod_rng(&s);
}

/* The most cubic a x b x c = n (a >= b >= c). */
static void cubic_grid(int64_t n, int32_t *g)
{
    int64_t best = -1;
    g[0] = (int32_t)n;
    g[1] = g[2] = 1;
    for (int64_t c = 1; c * c * c <= n; c++) {
        for (int64_t b = c; n % c == 0 && b * b <= n / c; b++) {
            if ((n / c) % b != 0) {
                continue;
            }
            int64_t a = n / c / b, span = a - c; /* longest minus shortest side */
            if (best < 0 || span < best) {
                best = span;
                g[0] = (int32_t)a;
                g[1] = (int32_t)b;
                g[2] = (int32_t)c;
            }
        }
    }
}

void temu_prod_pattern_of(const temu_prod_job *j, const temu_prod_phase *ph, temu_pattern *out)
{
    memset(out, 0, sizeof *out);
    out->kind = j->pattern;
    out->bytes = 1u << 20; /* weights only: the phase's rate sets the volume */
    out->seed = ph != NULL ? ph->seed : 0;
    if (j->pattern == TEMU_PATTERN_HALO) {
        cubic_grid(j->nodes, out->grid);
        out->size = 64;
        out->vars = 1;
    } else if (j->pattern == TEMU_PATTERN_FFT) {
        int32_t a = 1;
        for (int32_t d = 1; d <= 16 && d <= j->nodes; d++) {
            a = j->nodes % d == 0 ? d : a;
        }
        out->grid[0] = a;
        out->grid[1] = (int32_t)(j->nodes / a);
        out->phase = 1;
        /* 16 N^3 bytes split evenly over the ranks and rows: N a multiple
         * of the ranks (only the weights matter) */
        out->size = (uint64_t)j->nodes * (uint64_t)a;
    }
}

/* ------------------------------------------------------------ queue */

struct temu_prod_queue {
    temu_prod_params p;
    temu_alloc *a;
    temu_prod_job *jobs; /* in submission order */
    int64_t njobs, cap;
    int64_t *waiting, nwait; /* indices into jobs, submission order */
    int64_t *running, nrun;
    int64_t next_submit_ps; /* the next arrival's time */
    uint64_t arrivals;      /* generator of the interarrival times */
    double mean_gap_ps;
    int64_t *held_buf; /* a take's nodes before they are copied */
    temu_prod_queue_stats st;
};

static temu_status queue_grow(temu_prod_queue *q, temu_error *err)
{
    int64_t cap = q->cap ? 2 * q->cap : 256;
    temu_prod_job *j = realloc(q->jobs, (size_t)cap * sizeof *j);
    int64_t *w = j ? realloc(q->waiting, (size_t)cap * sizeof *w) : NULL;
    if (j != NULL) {
        q->jobs = j;
    }
    if (w != NULL) {
        q->waiting = w;
    }
    int64_t *r = w ? realloc(q->running, (size_t)cap * sizeof *r) : NULL;
    if (r == NULL) {
        return temu_fail(err, TEMU_ENOMEM, "out of memory for the job queue");
    }
    q->running = r;
    q->cap = cap;
    return TEMU_OK;
}

static temu_status submit(temu_prod_queue *q, int64_t when_ps, temu_error *err)
{
    if (q->njobs == q->cap) {
        temu_status st = queue_grow(q, err);
        if (st != TEMU_OK) {
            return st;
        }
    }
    temu_prod_job_draw(&q->p, q->njobs, when_ps, &q->jobs[q->njobs]);
    q->waiting[q->nwait++] = q->njobs++;
    q->st.submitted++;
    return TEMU_OK;
}

temu_status temu_prod_queue_create(const temu_prod_params *p, temu_alloc *a, temu_prod_queue **out,
                                   temu_error *err)
{
    temu_status st = TEMU_OK;
    *out = NULL;
    if (p->max_job_nodes < 1 || p->max_job_nodes > p->machine_nodes || p->load <= 0 ||
        p->small_nodes < 1 || p->small_share < 0 || p->small_share > 1 || p->min_run_ps <= 0 ||
        p->max_run_ps < p->min_run_ps || p->mean_phase_ps <= 0) {
        return temu_fail(err, TEMU_EINVAL, "production parameters out of range");
    }
    temu_prod_queue *q = calloc(1, sizeof *q);
    if (q == NULL) {
        return temu_fail(err, TEMU_ENOMEM, "out of memory for the job queue");
    }
    q->p = *p;
    q->a = a;
    q->arrivals = stream(p->seed, 3, 0);
    q->mean_gap_ps =
        temu_prod_mean_nodes(p) * temu_prod_mean_run_ps(p) / ((double)p->machine_nodes * p->load);
    q->held_buf = malloc((size_t)p->machine_nodes * sizeof *q->held_buf);
    if (q->held_buf == NULL) {
        st = temu_fail(err, TEMU_ENOMEM, "out of memory for the job queue");
    }
    for (int64_t asked = 0; st == TEMU_OK && asked < 2 * p->machine_nodes;) {
        st = submit(q, 0, err);
        asked += st == TEMU_OK ? q->jobs[q->njobs - 1].nodes : 0;
    }
    q->next_submit_ps = whole_seconds(-log1p(-temu_prod_uniform(&q->arrivals)) * q->mean_gap_ps);
    if (st != TEMU_OK) {
        temu_prod_queue_free(q);
        return st;
    }
    *out = q;
    return TEMU_OK;
}

void temu_prod_queue_free(temu_prod_queue *q)
{
    if (q == NULL) {
        return;
    }
    for (int64_t i = 0; i < q->njobs; i++) {
        free(q->jobs[i].held);
    }
    free(q->jobs);
    free(q->waiting);
    free(q->running);
    free(q->held_buf);
    free(q);
}

static int64_t job_end(const temu_prod_job *j)
{
    return j->start_ps + j->run_ps;
}

/* Try to start waiting job number w at now: 1 started, 0 no room, <0
 * out of memory. */
static int try_start(temu_prod_queue *q, int64_t w, int64_t now_ps, temu_prod_job_fn fn, void *ctx)
{
    temu_prod_job *j = &q->jobs[q->waiting[w]];
    int64_t n = 0;
    if (!temu_alloc_take(q->a, j->nodes, q->held_buf, &n)) {
        return 0;
    }
    j->held = malloc((size_t)n * sizeof *j->held);
    if (j->held == NULL) {
        temu_alloc_release(q->a, q->held_buf, n);
        return -1;
    }
    memcpy(j->held, q->held_buf, (size_t)n * sizeof *j->held);
    j->nheld = n;
    j->start_ps = now_ps;
    if (now_ps == 0 && j->submit_ps == 0) {
        uint64_t s = stream(q->p.seed, 4, (uint64_t)j->id);
        int64_t left = whole_seconds(temu_prod_uniform(&s) * (double)j->run_ps);
        j->run_ps = left < j->run_ps ? left : j->run_ps;
    }
    q->running[q->nrun++] = q->waiting[w];
    memmove(&q->waiting[w], &q->waiting[w + 1], (size_t)(q->nwait - w - 1) * sizeof *q->waiting);
    q->nwait--;
    q->st.started++;
    q->st.busy_nodes += n;
    q->st.used_nodes += j->nodes;
    fn(ctx, j, 1);
    return 1;
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* When the head job can start at the earliest (enough nodes free by
 * count) and how many nodes will be spare then. */
static void shadow_of(const temu_prod_queue *q, int64_t need, int64_t *shadow, int64_t *extra)
{
    int64_t free_now = temu_alloc_free_nodes(q->a);
    *shadow = INT64_MAX;
    *extra = 0;
    int64_t *ends = malloc((size_t)(q->nrun > 0 ? q->nrun : 1) * 2 * sizeof *ends);
    if (ends == NULL) {
        return; /* no promise: nothing is backfilled past the head */
    }
    for (int64_t i = 0; i < q->nrun; i++) {
        const temu_prod_job *j = &q->jobs[q->running[i]];
        ends[2 * i] = job_end(j);
        ends[2 * i + 1] = j->nheld;
    }
    qsort(ends, (size_t)q->nrun, 2 * sizeof *ends, cmp_i64);
    for (int64_t i = 0; i < q->nrun && free_now < need; i++) {
        free_now += ends[2 * i + 1];
        *shadow = ends[2 * i];
    }
    *extra = free_now >= need ? free_now - need : 0;
    free(ends);
}

/* Jobs tried past the head in one pass (EASY's backfill window). */
#define BACKFILL_WINDOW 64

/* Waiting job w tried at time 0 unless a job needing no more than it
 * found no room in this pass (*failed: the least such need). */
static int fill_one(temu_prod_queue *q, int64_t w, int64_t *failed, temu_prod_job_fn fn, void *ctx)
{
    int64_t need = temu_alloc_need(q->a, q->jobs[q->waiting[w]].nodes);
    int r = need < *failed ? try_start(q, w, 0, fn, ctx) : 0;
    if (r == 0) {
        *failed = need < *failed ? need : *failed;
    }
    return r;
}

/* Time 0: the backlog placed first-fit in submission order, and more of
 * it drawn while under 95 % of the nodes are held (a backlog whose first
 * jobs are large would leave the machine part empty), up to twenty times
 * the machine's nodes asked for in all.  A machine caught in production
 * is full, not drained for the head of a queue that has just been made
 * up. */
static temu_status fill(temu_prod_queue *q, temu_prod_job_fn fn, void *ctx, temu_error *err)
{
    int64_t failed = INT64_MAX, asked = 0, m = q->p.machine_nodes;
    int r = 0;
    for (int64_t i = 0; i < q->njobs; i++) {
        asked += q->jobs[i].nodes;
    }
    for (int64_t w = 0; r >= 0 && w < q->nwait;) {
        r = fill_one(q, w, &failed, fn, ctx);
        w += r == 0;
    }
    temu_status st = TEMU_OK;
    while (r >= 0 && st == TEMU_OK && q->st.busy_nodes * 20 < m * 19 && asked < 20 * m) {
        st = submit(q, 0, err);
        asked += st == TEMU_OK ? q->jobs[q->njobs - 1].nodes : 0;
        r = st == TEMU_OK ? fill_one(q, q->nwait - 1, &failed, fn, ctx) : 0;
    }
    if (r < 0) {
        st = temu_fail(err, TEMU_ENOMEM, "out of memory for a job's nodes");
    }
    return st;
}

static temu_status schedule(temu_prod_queue *q, int64_t now_ps, temu_prod_job_fn fn, void *ctx,
                            temu_error *err)
{
    int r;
    if (now_ps == 0) {
        return fill(q, fn, ctx, err);
    }
    while (q->nwait > 0 && (r = try_start(q, 0, now_ps, fn, ctx)) != 0) {
        if (r < 0) {
            return temu_fail(err, TEMU_ENOMEM, "out of memory for a job's nodes");
        }
    }
    if (q->nwait == 0) {
        return TEMU_OK;
    }
    int64_t shadow, extra, failed = INT64_MAX; /* smallest need that found no room */
    shadow_of(q, temu_alloc_need(q->a, q->jobs[q->waiting[0]].nodes), &shadow, &extra);
    for (int64_t w = 1, tried = 0; w < q->nwait && tried < BACKFILL_WINDOW; tried++) {
        const temu_prod_job *j = &q->jobs[q->waiting[w]];
        int64_t need = temu_alloc_need(q->a, j->nodes);
        int ends_first = now_ps + j->run_ps <= shadow;
        if (need >= failed || (!ends_first && need > extra)) {
            w++;
            continue;
        }
        r = try_start(q, w, now_ps, fn, ctx);
        if (r < 0) {
            return temu_fail(err, TEMU_ENOMEM, "out of memory for a job's nodes");
        }
        if (r == 0) {
            failed = need; /* nothing changes in this pass: larger ones fail too */
            w++;
        } else if (!ends_first) {
            extra -= q->jobs[q->running[q->nrun - 1]].nheld;
        }
    }
    return TEMU_OK;
}

static void finish(temu_prod_queue *q, int64_t i, temu_prod_job_fn fn, void *ctx)
{
    temu_prod_job *j = &q->jobs[q->running[i]];
    fn(ctx, j, 0);
    temu_alloc_release(q->a, j->held, j->nheld);
    q->st.busy_nodes -= j->nheld;
    q->st.used_nodes -= j->nodes;
    q->st.ended++;
    free(j->held);
    j->held = NULL;
    q->running[i] = q->running[--q->nrun];
}

temu_status temu_prod_queue_advance(temu_prod_queue *q, int64_t now_ps, temu_prod_job_fn fn,
                                    void *ctx, temu_error *err)
{
    temu_status st = TEMU_OK;
    /* ends first, in order of (end, id): the order does not depend on the
     * running array's order */
    for (;;) {
        int64_t best = -1;
        for (int64_t i = 0; i < q->nrun; i++) {
            const temu_prod_job *j = &q->jobs[q->running[i]], *b;
            if (job_end(j) > now_ps) {
                continue;
            }
            b = best >= 0 ? &q->jobs[q->running[best]] : NULL;
            if (b == NULL || job_end(j) < job_end(b) ||
                (job_end(j) == job_end(b) && j->id < b->id)) {
                best = i;
            }
        }
        if (best < 0) {
            break;
        }
        finish(q, best, fn, ctx);
    }
    while (st == TEMU_OK && q->next_submit_ps <= now_ps) {
        st = submit(q, q->next_submit_ps, err);
        q->next_submit_ps +=
            whole_seconds(-log1p(-temu_prod_uniform(&q->arrivals)) * q->mean_gap_ps);
    }
    return st == TEMU_OK ? schedule(q, now_ps, fn, ctx, err) : st;
}

int64_t temu_prod_queue_next(const temu_prod_queue *q)
{
    int64_t t = q->next_submit_ps;
    for (int64_t i = 0; i < q->nrun; i++) {
        int64_t e = job_end(&q->jobs[q->running[i]]);
        t = e < t ? e : t;
    }
    return t;
}

void temu_prod_queue_stats_get(const temu_prod_queue *q, temu_prod_queue_stats *out)
{
    *out = q->st;
    out->running = q->nrun;
    out->waiting = q->nwait;
}
