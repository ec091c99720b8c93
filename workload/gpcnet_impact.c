/*
 * gpcnet_impact.c - GPCNeT's Congestion Impact in virtual time
 * (Chunduri et al., "GPCNeT: Designing a Benchmark Suite for Inducing and
 * Measuring Contention in HPC Networks", SC19; seed 002 sections 3 and
 * 5.2; doc/replay.md), following network_load_test.c of GPCNeT 1.3.
 *
 * The canary tests run twice over the timing model, alone and while the
 * congestors run, on the layout of gpcnet.h (communicators per process
 * slot).  Iteration k of the two ring tests uses random ring k mod 30:
 *   P2P Lat      (p2p_latency()) after a barrier of all canaries, each
 *                canary sends 8 B to both ring neighbours and receives
 *                theirs, wait-all; a sample is the iteration's time / 2, us;
 *                a barrier of the slot closes it;
 *   P2P BW+Sync  (p2p_neighbors()) the same with 8 x 128 KiB each way and a
 *                barrier of the slot inside the timed part; a sample is
 *                16 x 128 KiB / the time, MiB/s per rank;
 *   Allreduce    (allreduce_test()) an allreduce of all canaries (GPCNeT's
 *                timeout check), one untimed 8-byte allreduce of the slot
 *                (warm-up), then one timed per iteration, us.
 * GPCNeT times 200 (latency) or 8 (bandwidth) iterations per ring and
 * 200 allreduces per test, repeated for up to 10 s; here each canary gives
 * one sample per iteration (--steps).  Statistics as summarize_performance()
 * (utils.c): the mean over every canary's samples, the 99th percentile from
 * a histogram of 100,000 buckets.  Congestion Impact (eq. 1): congested /
 * isolated for the latencies, isolated / congested for the bandwidth.
 *
 * The congested run follows run_congestor_tests(): the congestors make one
 * round, then meet the canaries at a barrier of every rank (GPCNeT's
 * MPI_Ibarrier releasing the network tests once the congestors load the
 * network), and go on until the canaries are done.
 *
 * Both runs record their operations as the ranks reach them
 * (doc/performance.md "Memory": a source releases a message once it has
 * arrived and its sender and receiver are past it, in any order; what is
 * held still grows with the iterations, as what is outstanding does: the
 * incast's eager sends in flight to its root, and the rounds a PUT
 * origin the network serves first runs ahead of the other): the
 * canaries are one source of the virtual time (temu_vt_set_sources; a
 * round: one iteration of a test), each congestor group another (a round:
 * one call of its congestor function).  A group's source makes another
 * round whenever one of its ranks has run out of operations while some
 * canary has not ended by that virtual time (the engine is conservative:
 * a canary that ended before it has executed its end), GPCNeT's "until
 * the canaries are done"; the congestors that send nothing (idle) make
 * their first round and the barrier only.  Every source's first round is
 * recorded before any rank runs (the barrier of every rank spans them).
 * The samples equal those of the whole path's run below (checked on
 * Gemini, BG/Q and BG/P, both model levels: tests/test_vtime.c): the
 * model orders equal times by ids, and the canaries' ids still come
 * before the congestors'; between groups the ids now follow the groups,
 * not the rounds, and no sample measured moved.
 *
 * With TORUSEMU_RECORD_WHOLE=1 (whole: for comparing memory) each run is
 * recorded whole before it runs: the rounds must be fixed first, so the
 * run is repeated with twice as many rounds until the busy congestor that
 * finished first did so after the last canary (deterministic).
 */
#include "gpcnet.h"
#include "torusemu_vtime.h"
#include "workload.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Most congestor rounds tried before giving up. */
#define MAX_ROUNDS (1 << 20)
/* summarize_performance(): buckets of the samples' histogram. */
#define HIST_BUCKETS 100000

typedef struct run_ctx {
    temu_session *s;
    const temu_pattern *p;
    const temu_tm_config *tc;
    int32_t n;
    temu_gpcnet_layout l;
    int32_t *ids;  /* canary communicators (slots + 1)             */
    int32_t *buf;  /* a ring                                        */
    uint8_t *idle; /* [layout place] a congestor with nothing to do */
    int32_t iters;
    uint64_t bw_bytes;          /* the bandwidth canary's messages                */
    int64_t canary_end;         /* last canary's end in the latest run (ps)       */
    int64_t round_ps;           /* a congestor round's time when run alone (ps)   */
    const temu_vt_watch *watch; /* each run's, or NULL                    */
    int32_t runs;               /* runs made                              */
    temu_replay_stats replayed; /* what the latest run replayed           */
    int whole;                  /* record each run whole (the doubling)    */
    /* the lazy run: its replay and virtual time, whether the congestors
     * run, and the next round of each source */
    temu_replay *r;
    temu_vt *vt;
    int congested;
    int32_t canary_next, congestor_next;
    struct group_src {
        struct run_ctx *x;
        int32_t g, next; /* the group (gpcnet.h), its next round */
    } * group;           /* [congestor group] its source */
} run_ctx;

/* Every canary notes its clock (mark) or waits for its messages. */
static temu_status canaries_each(temu_vt *vt, const run_ctx *x, int mark, temu_error *err)
{
    temu_status st = TEMU_OK;
    for (int32_t i = 0; i < x->l.canaries && st == TEMU_OK; i++) {
        st = mark ? temu_vt_mark(vt, x->l.rank[i], err) : temu_vt_wait(vt, x->l.rank[i], 0, err);
    }
    return st;
}

/* Every canary calls c on the communicator of all canaries. */
static temu_status canaries_all(temu_replay *r, const run_ctx *x, const temu_replay_coll *c,
                                temu_error *err)
{
    temu_status st = TEMU_OK;
    for (int32_t i = 0; i < x->l.canaries && st == TEMU_OK; i++) {
        st = temu_replay_collective(r, x->ids[x->l.slots], i, c, err);
    }
    return st;
}

/* Iteration `it` of ring test `test` (0 latency, 1 bandwidth). */
static temu_status ring_iteration(temu_replay *r, temu_vt *vt, const run_ctx *x, int test,
                                  int32_t it, temu_error *err)
{
    temu_status st = canaries_all(r, x, &temu_gpcnet_barrier, err);
    st = st == TEMU_OK ? canaries_each(vt, x, 1, err) : st;
    if (st == TEMU_OK) {
        st = temu_gpcnet_ring_exchange(r, &x->l, it % GPC_RINGS, test ? x->bw_bytes : GPC_LAT_BYTES,
                                       test ? GPC_BW_MSGS : 1, x->buf, err);
    }
    st = st == TEMU_OK ? canaries_each(vt, x, 0, err) : st;
    if (st == TEMU_OK && test == 1) { /* the "Sync" of BW+Sync, timed */
        st = temu_gpcnet_slot_coll(r, &x->l, x->ids, &temu_gpcnet_barrier, err);
    }
    st = st == TEMU_OK ? canaries_each(vt, x, 1, err) : st;
    return st == TEMU_OK ? temu_gpcnet_slot_coll(r, &x->l, x->ids, &temu_gpcnet_barrier, err) : st;
}

/* Round k (0 .. 3 iters - 1) of the canaries' three tests, each `iters`
 * iterations between marks: the ring tests' iterations, then the
 * allreduce's (its first after the untimed ones); congested: round 0
 * first waits at the barrier of every rank.  Each round ends with a
 * collective: nothing of it is left pending (temu_vt_set_source). */
static temu_status canary_round(temu_replay *r, temu_vt *vt, const run_ctx *x, int congested,
                                int32_t k, temu_error *err)
{
    temu_status st = TEMU_OK;
    for (int32_t i = 0; congested && k == 0 && i < x->l.canaries && st == TEMU_OK; i++) {
        st = temu_replay_collective(r, TEMU_REPLAY_WORLD, x->l.rank[i], &temu_gpcnet_barrier, err);
    }
    if (k < 2 * x->iters) {
        return st == TEMU_OK ? ring_iteration(r, vt, x, k / x->iters, k % x->iters, err) : st;
    }
    if (k == 2 * x->iters) {
        st = st == TEMU_OK ? canaries_all(r, x, &temu_gpcnet_allreduce, err) : st;
        st = st == TEMU_OK ? temu_gpcnet_slot_coll(r, &x->l, x->ids, &temu_gpcnet_allreduce, err)
                           : st;
    }
    st = st == TEMU_OK ? canaries_each(vt, x, 1, err) : st;
    st = st == TEMU_OK ? temu_gpcnet_slot_coll(r, &x->l, x->ids, &temu_gpcnet_allreduce, err) : st;
    return st == TEMU_OK ? canaries_each(vt, x, 1, err) : st;
}

/* The canaries' three tests whole. */
static temu_status canaries(temu_replay *r, temu_vt *vt, const run_ctx *x, int congested,
                            temu_error *err)
{
    temu_status st = TEMU_OK;
    for (int32_t k = 0; k < 3 * x->iters && st == TEMU_OK; k++) {
        st = canary_round(r, vt, x, congested, k, err);
    }
    return st;
}

/* Samples of one run: [test][canary * iters + it]. */
static void samples(temu_vt *vt, const run_ctx *x, double **out)
{
    for (int32_t i = 0; i < x->l.canaries; i++) {
        int32_t nm;
        const int64_t *mk = temu_vt_marks(vt, x->l.rank[i], &nm);
        for (int test = 0; test < 3; test++) {
            for (int32_t it = 0; it < x->iters; it++) {
                int32_t j = 2 * (test * x->iters + it);
                double ps = j + 1 < nm ? (double)(mk[j + 1] - mk[j]) : 0;
                double v = test == 1
                               ? (double)(2 * GPC_BW_MSGS * x->bw_bytes) / 1048576.0 / (ps * 1e-12)
                           : test == 0 ? ps / 2 * 1e-6
                                       : ps * 1e-6;
                out[test][(size_t)i * (size_t)x->iters + (size_t)it] = v;
            }
        }
    }
}

/* Tell the watch what the next run is. */
static void run_phase(const run_ctx *x, int32_t rounds, int canaries)
{
    char what[96];
    if (x->watch == NULL || x->watch->phase == NULL) {
        return;
    }
    if (rounds == 0) {
        snprintf(what, sizeof what, "isolated canaries");
    } else if (!x->whole) {
        snprintf(what, sizeof what, "canaries with congestor rounds until they end");
    } else {
        snprintf(what, sizeof what, "%s%d congestor rounds", canaries ? "canaries with " : "",
                 rounds);
    }
    x->watch->phase(x->watch->ctx, what);
}

/* Congestor round k; with the canaries (congested) every congestor joins
 * the barrier of every rank after its first round. */
static temu_status congestor_round(temu_replay *r, const run_ctx *x, int32_t k, int congested,
                                   temu_error *err)
{
    temu_status st = temu_gpcnet_congestor_round(r, &x->l, err);
    for (int32_t i = x->l.canaries; k == 0 && congested && i < x->n && st == TEMU_OK; i++) {
        st = temu_replay_collective(r, TEMU_REPLAY_WORLD, x->l.rank[i], &temu_gpcnet_barrier, err);
    }
    return st;
}

/* The congestors' rounds whole. */
static temu_status run_congestors(temu_replay *r, const run_ctx *x, int32_t rounds, int congested,
                                  temu_error *err)
{
    temu_status st = TEMU_OK;
    for (int32_t k = 0; k < rounds && st == TEMU_OK; k++) {
        st = congestor_round(r, x, k, congested, err);
    }
    return st;
}

/* The canaries' source: their next round, if any. */
static temu_status canary_source(void *ctx, int *more, temu_error *err)
{
    run_ctx *x = ctx;
    *more = x->canary_next < 3 * x->iters;
    return *more ? canary_round(x->r, x->vt, x, x->congested, x->canary_next++, err) : TEMU_OK;
}

/* A congestor group's source: its first round, then another while some
 * canary has not ended (run_congestor_tests()' loop until the canaries
 * are done).  One source per group: the groups go at their own pace (an
 * incast's round takes longer than an all-to-all's), and a source's
 * rounds are released once its slowest rank is past them, so a source of
 * every congestor would hold the rounds between its slowest and fastest
 * groups.  The idle congestors (a PUT or GET root, a group of one) get
 * the first round (their part of it: waits) and the barrier only: a rank
 * given nothing would ask again at the same virtual time for ever. */
static temu_status group_source(void *ctx, int *more, temu_error *err)
{
    struct group_src *q = ctx;
    run_ctx *x = q->x;
    int32_t k = q->next, lo = x->l.first[q->g], hi = x->l.first[q->g + 1];
    *more = k == 0;
    for (int32_t i = 0; i < x->l.canaries && !*more; i++) {
        *more = !temu_vt_rank_ended(x->vt, x->l.rank[i]);
    }
    if (!*more) {
        return TEMU_OK;
    }
    if (k >= MAX_ROUNDS) {
        return temu_fail(err, TEMU_EINVAL,
                         "gpcnet: %d congestor rounds still end before the canaries", k);
    }
    q->next++;
    x->congestor_next = k + 1 > x->congestor_next ? k + 1 : x->congestor_next;
    temu_status st = temu_gpcnet_group_round(x->r, &x->l, q->g, err);
    for (int32_t i = lo; k == 0 && i < hi && st == TEMU_OK; i++) {
        st = temu_replay_collective(x->r, TEMU_REPLAY_WORLD, x->l.rank[i], &temu_gpcnet_barrier,
                                    err);
        if (x->idle[i]) {
            temu_vt_rank_retire(x->vt, x->l.rank[i]);
        }
    }
    return st;
}

/* The run's sources: the canaries, and congested each congestor group. */
static temu_status set_sources(run_ctx *x, temu_vt *vt, temu_replay *r, int congested,
                               temu_error *err)
{
    int32_t ng = (GPC_ROLES - GPC_A2A) * x->l.slots, ns = 0;
    temu_vt_source *src = calloc((size_t)ng + 1, sizeof *src);
    free(x->group);
    x->group = calloc((size_t)ng + 1, sizeof *x->group);
    if (src == NULL || x->group == NULL) {
        free(src);
        return temu_fail(err, TEMU_ENOMEM, "gpcnet: out of memory");
    }
    x->r = r;
    x->vt = vt;
    x->congested = congested;
    x->canary_next = x->congestor_next = 0;
    if (x->l.canaries > 0) {
        src[ns++] = (temu_vt_source){0, x->l.canaries, canary_source, x, x->l.rank};
    }
    for (int32_t k = 0; congested && k < ng; k++) {
        int32_t g = GPC_A2A * x->l.slots + k, lo = x->l.first[g], hi = x->l.first[g + 1];
        x->group[k] = (struct group_src){x, g, 0};
        if (hi > lo) {
            src[ns++] = (temu_vt_source){0, hi - lo, group_source, &x->group[k], x->l.rank + lo};
        }
    }
    temu_status st = ns > 0 ? temu_vt_set_sources(vt, ns, src, err) : TEMU_OK;
    free(src);
    return st;
}

/* When the run's ranks ended: the last canary, the first busy congestor
 * (*covered: not before the last canary) and the busiest congestor (its
 * time per round, alone, guesses the rounds needed). */
static void run_ends(temu_vt *vt, run_ctx *x, int32_t rounds, int *covered)
{
    int64_t canary_end = 0, congestor_end = INT64_MAX, busiest = 0;
    temu_vt_rank_stats rs;
    for (int32_t i = 0; i < x->n; i++) {
        temu_vt_rank_get(vt, x->l.rank[i], &rs);
        if (i < x->l.canaries) {
            canary_end = rs.end_ps > canary_end ? rs.end_ps : canary_end;
        } else if (!x->idle[i] && rs.end_ps < congestor_end) {
            congestor_end = rs.end_ps;
        }
        busiest = i >= x->l.canaries && rs.end_ps > busiest ? rs.end_ps : busiest;
    }
    x->canary_end = canary_end;
    x->round_ps = rounds > 0 ? busiest / rounds : 0;
    *covered = rounds > 0 && congestor_end >= canary_end;
}

/* The congestors that send nothing: the target of a PUT incast or GET
 * broadcast (rank 0 of its group) and a group of one. */
static temu_status mark_idle(run_ctx *x, temu_error *err)
{
    x->idle = calloc((size_t)(x->n > 0 ? x->n : 1), 1);
    if (x->idle == NULL) {
        return temu_fail(err, TEMU_ENOMEM, "gpcnet: out of memory");
    }
    for (int32_t g = GPC_A2A * x->l.slots; g < GPC_ROLES * x->l.slots; g++) {
        int32_t lo = x->l.first[g], hi = x->l.first[g + 1];
        if (hi - lo == 1 || (hi > lo && g >= GPC_PUT_INCAST * x->l.slots)) {
            x->idle[lo] = 1;
        }
    }
    return TEMU_OK;
}

/* One run, with `rounds` congestor rounds (0: isolated) and the canaries
 * (out NULL: without them); *covered: the congestors outlasted the
 * canaries. */
static temu_status run(run_ctx *x, int32_t rounds, double **out, int *covered, temu_vt **keep,
                       temu_error *err)
{
    temu_vt *vt = NULL;
    temu_replay *r = NULL;
    int congested = out != NULL && rounds > 0;
    temu_session_zero(x->s);
    run_phase(x, rounds, out != NULL);
    x->runs++;
    temu_status st = temu_vt_create(x->s, x->tc, &vt, err);
    if (st == TEMU_OK) {
        temu_vt_set_post_all(vt, 1);
        temu_vt_set_watch(vt, x->watch);
        st = temu_replay_create(x->s, &r, err);
    }
    if (st == TEMU_OK) {
        temu_replay_set_vtime(r, vt);
        st = temu_gpcnet_canary_comms(r, &x->l, x->ids, err);
    }
    if (st == TEMU_OK && !x->whole) {
        /* recorded as the ranks reach it (rounds: any number) */
        st = set_sources(x, vt, r, congested, err);
        st = st == TEMU_OK ? temu_vt_run(vt, err) : st;
        rounds = x->congestor_next;
    } else if (st == TEMU_OK) {
        st = out != NULL ? canaries(r, vt, x, congested, err) : st;
        st = st == TEMU_OK ? run_congestors(r, x, rounds, congested, err) : st;
    }
    if (st == TEMU_OK) {
        st = temu_replay_finish(r, err);
    }
    if (r != NULL) {
        temu_replay_get_stats(r, &x->replayed);
    }
    if (st == TEMU_OK && x->whole) {
        st = temu_vt_run(vt, err);
    }
    if (st == TEMU_OK) {
        if (out != NULL) {
            samples(vt, x, out);
        }
        run_ends(vt, x, rounds, covered);
    }
    temu_replay_free(r);
    if (st == TEMU_OK && keep != NULL) {
        *keep = vt;
    } else {
        temu_vt_free(vt);
    }
    return st;
}

/* Mean of n samples (0 when there are none). */
static double sample_mean(const double *x, size_t n)
{
    double s = 0;
    for (size_t i = 0; i < n; i++) {
        s += x[i];
    }
    return n > 0 ? s / (double)n : 0;
}

/* The 99th percentile as summarize_performance() (utils.c) takes it: the
 * samples go into HIST_BUCKETS equal buckets from the smallest to the
 * largest; from_min (latencies): the upper edge of the first bucket at
 * which the count from the low end reaches 99 % of the samples; else
 * (bandwidth): the lower edge of the first bucket at which the count
 * from the high end does (the value 99 % of the samples reach).  GPCNeT
 * counts to floor(0.99 n), here ceil(0.99 n): the same for GPCNeT's
 * thousands of samples, and not the smallest of a few (floor(1.98) = 1 of
 * 2 samples).  hist: HIST_BUCKETS counters. */
static double gpc_p99(const double *x, size_t n, int from_min, uint64_t *hist)
{
    if (n == 0) {
        return 0;
    }
    double lo = x[0], hi = x[0];
    for (size_t i = 1; i < n; i++) {
        lo = x[i] < lo ? x[i] : lo;
        hi = x[i] > hi ? x[i] : hi;
    }
    if (hi <= lo) {
        return lo; /* one value: GPCNeT would divide by a zero bucket width */
    }
    double res = (hi - lo) / (double)(HIST_BUCKETS - 1);
    uint64_t valid = 0, cnt = 0, want;
    memset(hist, 0, HIST_BUCKETS * sizeof *hist);
    for (size_t i = 0; i < n; i++) {
        double b = (x[i] - lo) / res;
        if (b >= 0 && b < HIST_BUCKETS) {
            hist[(int32_t)b]++;
            valid++;
        }
    }
    want = (uint64_t)ceil(0.99 * (double)valid - 1e-9);
    for (int32_t k = 0; k < HIST_BUCKETS; k++) {
        int32_t j = from_min ? k : HIST_BUCKETS - 1 - k;
        cnt += hist[j];
        if (cnt >= want) {
            return lo + (double)(from_min ? j + 1 : j) * res;
        }
    }
    return hi;
}

temu_status temu_gpcnet_impact(temu_session *s, const temu_pattern *p, const temu_tm_config *tc,
                               int congestors, int whole, const temu_vt_watch *watch,
                               temu_gpcnet_result *out, temu_vt **keep, temu_error *err)
{
    run_ctx x;
    double *buf[2][3] = {{NULL}};
    temu_status st = TEMU_OK;
    memset(out, 0, sizeof *out);
    memset(&x, 0, sizeof x);
    x.s = s;
    x.p = p;
    x.tc = tc;
    x.watch = watch;
    x.whole = whole;
    x.n = temu_session_nranks(s);
    x.iters = p->steps > 0 ? p->steps : 1;
    x.bw_bytes = p->bytes > 0 ? p->bytes : GPC_BW_BYTES;
    if (keep != NULL) {
        *keep = NULL;
    }
    if (p->steps < 0 || p->steps > 100000) {
        return temu_fail(err, TEMU_EINVAL, "gpcnet: %d iterations (1..100000)", p->steps);
    }
    st = temu_gpcnet_layout_make(s, 0, x.n, p->fraction, p->seed, &x.l, err);
    if (st != TEMU_OK) {
        return st;
    }
    x.ids = malloc(((size_t)x.l.slots + 1) * sizeof *x.ids);
    x.buf = malloc((size_t)x.l.canaries * sizeof *x.buf);
    uint64_t *hist = malloc(HIST_BUCKETS * sizeof *hist);
    if (x.ids == NULL || x.buf == NULL || hist == NULL) {
        st = temu_fail(err, TEMU_ENOMEM, "gpcnet: out of memory");
    }
    st = st == TEMU_OK ? mark_idle(&x, err) : st;
    size_t ns = (size_t)x.l.canaries * (size_t)x.iters;
    for (int c = 0; c < 2 && st == TEMU_OK; c++) {
        for (int t = 0; t < 3; t++) {
            buf[c][t] = malloc((ns > 0 ? ns : 1) * sizeof *buf[c][t]);
            if (buf[c][t] == NULL) {
                st = temu_fail(err, TEMU_ENOMEM, "gpcnet: out of memory");
            }
        }
    }
    int covered = 0;
    if (st == TEMU_OK) {
        st = run(&x, 0, buf[0], &covered, NULL, err);
    }
    int32_t rounds = 0;
    int64_t iso_end = x.canary_end;
    if (st == TEMU_OK && congestors && !x.whole) {
        /* the congestors' rounds made as the canaries need them */
        st = run(&x, 1, buf[1], &covered, keep, err);
        rounds = x.congestor_next;
        if (st == TEMU_OK && !covered) { /* the source's rule makes them outlast the canaries */
            st = temu_fail(err, TEMU_EINVAL, "gpcnet: a congestor ended before the canaries");
        }
    } else if (st == TEMU_OK && congestors) {
        /* a first guess from the congestors alone: twice the rounds that
         * fill the isolated canaries' time */
        st = run(&x, 2, NULL, &covered, NULL, err);
        rounds = 2;
        while (st == TEMU_OK && rounds < MAX_ROUNDS && (int64_t)rounds * x.round_ps < 2 * iso_end) {
            rounds *= 2;
        }
        for (; st == TEMU_OK; rounds *= 2) {
            if (keep != NULL) {
                temu_vt_free(*keep);
                *keep = NULL;
            }
            st = run(&x, rounds, buf[1], &covered, keep, err);
            if (st != TEMU_OK || covered) {
                break;
            }
            if (rounds >= MAX_ROUNDS) {
                st = temu_fail(err, TEMU_EINVAL,
                               "gpcnet: %d congestor rounds still end before the canaries", rounds);
            }
        }
    } else if (st == TEMU_OK) {
        /* no congestors: the second run is the canaries alone again */
        st = run(&x, 0, buf[1], &covered, keep, err);
    }
    if (st == TEMU_OK) {
        out->canaries = x.l.canaries;
        out->congestors = x.n - x.l.canaries;
        out->iters = x.iters;
        out->rounds = rounds;
        out->runs = x.runs;
        out->replayed = x.replayed;
        double(*v[3])[2] = {out->lat_us, out->bw_mibs, out->allreduce_us};
        for (int c = 0; c < 2; c++) {
            for (int t = 0; t < 3; t++) {
                /* bandwidth's tail is the low side */
                v[t][c][0] = sample_mean(buf[c][t], ns);
                v[t][c][1] = gpc_p99(buf[c][t], ns, t != 1, hist);
            }
        }
        for (int q = 0; q < 2; q++) {
            out->impact_lat[q] = out->lat_us[1][q] / out->lat_us[0][q];
            out->impact_bw[q] = out->bw_mibs[0][q] / out->bw_mibs[1][q];
            out->impact_allreduce[q] = out->allreduce_us[1][q] / out->allreduce_us[0][q];
        }
    }
    for (int c = 0; c < 2; c++) {
        for (int t = 0; t < 3; t++) {
            free(buf[c][t]);
        }
    }
    free(hist);
    free(x.ids);
    free(x.buf);
    free(x.idle);
    free(x.group);
    temu_gpcnet_layout_free(&x.l);
    return st;
}
