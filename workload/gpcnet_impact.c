/*
 * gpcnet_impact.c - GPCNeT's Congestion Impact in virtual time
 * (Chunduri et al., "GPCNeT: Designing a Benchmark Suite for Inducing and
 * Measuring Contention in HPC Networks", SC19; seed 002 sections 3 and
 * 5.2; doc/replay.md).
 *
 * The canary tests run twice over the timing model, alone and while the
 * congestors run, with the roles of the gpcnet pattern (gpcnet.h):
 *   P2P Lat      each canary: 8 B to and from both ring neighbours
 *                (isend/irecv, wait-all); a sample is the iteration's
 *                time / 2 (round trip), in microseconds;
 *   P2P BW+Sync  8 x 128 KiB to and from both, wait-all, a barrier of the
 *                canaries; a sample is 16 x 128 KiB / the iteration's
 *                time, MiB/s per rank;
 *   Allreduce    an 8-byte MPI_Allreduce of the canaries, microseconds.
 * Each canary gives one sample per iteration (--steps); the mean and the
 * 99th percentile are over all of them.  Congestion Impact (eq. 1):
 * congested / isolated for the latencies, isolated / congested for the
 * bandwidth, for the mean and for the 99th percentile alike.
 * The congestors start with the canaries and repeat their round until
 * every canary has finished: the congested run is repeated with twice as
 * many rounds until the busy congestor that finished first did so after
 * the last canary (deterministic).
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

typedef struct run_ctx {
    temu_session *s;
    const temu_pattern *p;
    const temu_tm_config *tc;
    int32_t n, nc, first[5];
    int32_t *perm;
    int32_t iters;
    uint64_t bw_bytes;          /* the bandwidth canary's messages                */
    int64_t canary_end;         /* last canary's end in the latest run (ps)       */
    int64_t round_ps;           /* a congestor round's time when run alone (ps)   */
    const temu_vt_watch *watch; /* each run's, or NULL                    */
    int32_t runs;               /* runs made                              */
    temu_replay_stats replayed; /* what the latest run replayed           */
} run_ctx;

/* The canaries' three tests, each `iters` iterations between marks. */
static temu_status canaries(temu_replay *r, temu_vt *vt, const run_ctx *x, int32_t comm,
                            temu_error *err)
{
    temu_status st = TEMU_OK;
    temu_replay_coll bar = {.op = TEMU_COLL_BARRIER, .blocking = 1};
    for (int test = 0; test < 3 && st == TEMU_OK; test++) {
        for (int32_t it = 0; it < x->iters && st == TEMU_OK; it++) {
            for (int32_t i = 0; i < x->nc && st == TEMU_OK; i++) {
                st = temu_vt_mark(vt, x->perm[i], err);
            }
            if (test < 2) { /* ring exchange: every send posted, then every receive */
                uint64_t bytes = test == 0 ? GPC_LAT_BYTES : x->bw_bytes;
                int msgs = test == 0 ? 1 : GPC_BW_MSGS;
                for (int side = 0; side < 2; side++) {
                    for (int32_t i = 0; i < x->nc && st == TEMU_OK; i++) {
                        int32_t nb = x->perm[(side ? i + 1 : i + x->nc - 1) % x->nc];
                        for (int m = 0; m < msgs && st == TEMU_OK; m++) {
                            st = temu_replay_send(r, TEMU_REPLAY_WORLD, x->perm[i], nb, 1 + test,
                                                  bytes, err);
                            if (st == TEMU_OK) {
                                st = temu_replay_recv(r, TEMU_REPLAY_WORLD, nb, x->perm[i],
                                                      1 + test, bytes, err);
                            }
                        }
                    }
                }
                for (int32_t i = 0; i < x->nc && st == TEMU_OK; i++) {
                    st = temu_vt_wait(vt, x->perm[i], 0, err);
                }
            }
            for (int32_t i = 0; test > 0 && i < x->nc && st == TEMU_OK; i++) {
                st = temu_replay_collective(r, comm, i, test == 1 ? &bar : &temu_gpcnet_allreduce,
                                            err);
            }
            for (int32_t i = 0; i < x->nc && st == TEMU_OK; i++) {
                st = temu_vt_mark(vt, x->perm[i], err);
            }
        }
    }
    return st;
}

/* Samples of one run: [test][canary * iters + it]. */
static void samples(temu_vt *vt, const run_ctx *x, double **out)
{
    for (int32_t i = 0; i < x->nc; i++) {
        int32_t nm;
        const int64_t *mk = temu_vt_marks(vt, x->perm[i], &nm);
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

/* One run, with `rounds` congestor rounds (0: isolated) and the canaries
 * (out NULL: without them); *covered: the congestors outlasted the
 * canaries. */
/* Tell the watch what the next run is. */
static void run_phase(const run_ctx *x, int32_t rounds, int canaries)
{
    char what[96];
    if (x->watch == NULL || x->watch->phase == NULL) {
        return;
    }
    if (rounds == 0) {
        snprintf(what, sizeof what, "isolated canaries");
    } else {
        snprintf(what, sizeof what, "%s%d congestor rounds", canaries ? "canaries with " : "",
                 rounds);
    }
    x->watch->phase(x->watch->ctx, what);
}

static temu_status run(run_ctx *x, int32_t rounds, double **out, int *covered, temu_vt **keep,
                       temu_error *err)
{
    temu_vt *vt = NULL;
    temu_replay *r = NULL;
    temu_session_zero(x->s);
    run_phase(x, rounds, out != NULL);
    x->runs++;
    temu_status st = temu_vt_create(x->s, x->tc, &vt, err);
    if (st == TEMU_OK) {
        temu_vt_set_post_all(vt, 1);
        temu_vt_set_watch(vt, x->watch);
        st = temu_replay_create(x->s, &r, err);
    }
    int32_t comm = 0;
    if (st == TEMU_OK) {
        temu_replay_set_vtime(r, vt);
        comm = temu_replay_unused_comm(r);
        st = temu_replay_comm(r, comm, x->nc, x->perm, err);
    }
    if (st == TEMU_OK && out != NULL) {
        st = canaries(r, vt, x, comm, err);
    }
    for (int32_t k = 0; k < rounds && st == TEMU_OK; k++) {
        st = temu_gpcnet_congestors(r, x->perm, x->first, err);
        for (int32_t i = x->nc; i < x->n && st == TEMU_OK; i++) {
            st = temu_vt_wait(vt, x->perm[i], 0, err);
        }
    }
    if (st == TEMU_OK) {
        st = temu_replay_finish(r, err);
    }
    if (r != NULL) {
        temu_replay_get_stats(r, &x->replayed);
    }
    if (st == TEMU_OK) {
        st = temu_vt_run(vt, err);
    }
    if (st == TEMU_OK) {
        int64_t canary_end = 0, congestor_end = INT64_MAX, busiest = 0;
        temu_vt_rank_stats rs;
        if (out != NULL) {
            samples(vt, x, out);
        }
        for (int32_t i = 0; i < x->n; i++) {
            temu_vt_rank_get(vt, x->perm[i], &rs);
            if (i < x->nc) {
                canary_end = rs.end_ps > canary_end ? rs.end_ps : canary_end;
            } else if (rs.end_ps > 0 && rs.end_ps < congestor_end) {
                /* (a one-sided congestor's target has nothing to do) */
                congestor_end = rs.end_ps;
            }
            busiest = i >= x->nc && rs.end_ps > busiest ? rs.end_ps : busiest;
        }
        x->canary_end = canary_end;
        x->round_ps = rounds > 0 ? busiest / rounds : 0;
        *covered = rounds > 0 && congestor_end >= canary_end;
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

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* The q-quantile (0 < q <= 1) of n samples by nearest rank: the smallest
 * sample with at least q of the samples at or below it; sorts x. */
static double sample_quantile(double *x, size_t n, double q)
{
    if (n == 0) {
        return 0;
    }
    qsort(x, n, sizeof *x, cmp_double);
    size_t k = (size_t)ceil(q * (double)n - 1e-9);
    return x[k > 0 ? k - 1 : 0];
}

static void stats(double *x, size_t n, double *mean, double *p99)
{
    *mean = sample_mean(x, n);
    *p99 = sample_quantile(x, n, 0.99);
}

temu_status temu_gpcnet_impact(temu_session *s, const temu_pattern *p, const temu_tm_config *tc,
                               int congestors, const temu_vt_watch *watch, temu_gpcnet_result *out,
                               temu_vt **keep, temu_error *err)
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
    x.n = temu_session_nranks(s);
    x.iters = p->steps > 0 ? p->steps : 1;
    x.bw_bytes = p->bytes > 0 ? p->bytes : GPC_BW_BYTES;
    if (keep != NULL) {
        *keep = NULL;
    }
    if (p->steps < 0 || p->steps > 100000) {
        return temu_fail(err, TEMU_EINVAL, "gpcnet: %d iterations (1..100000)", p->steps);
    }
    x.perm = malloc((size_t)(x.n > 0 ? x.n : 1) * sizeof *x.perm);
    if (x.perm == NULL) {
        return temu_fail(err, TEMU_ENOMEM, "gpcnet: out of memory");
    }
    st = temu_gpcnet_roles(s, 0, x.n, p->fraction > 0 ? p->fraction : 0.2, p->seed, x.perm, &x.nc,
                           x.first, err);
    size_t ns = (size_t)x.nc * (size_t)x.iters;
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
    if (st == TEMU_OK && congestors) {
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
        out->canaries = x.nc;
        out->congestors = x.n - x.nc;
        out->iters = x.iters;
        out->rounds = rounds;
        out->runs = x.runs;
        out->replayed = x.replayed;
        for (int c = 0; c < 2; c++) {
            stats(buf[c][0], ns, &out->lat_us[c][0], &out->lat_us[c][1]);
            /* bandwidth's tail is the low side: 99 % of the samples at or above */
            out->bw_mibs[c][0] = sample_mean(buf[c][1], ns);
            out->bw_mibs[c][1] = sample_quantile(buf[c][1], ns, 0.01);
            stats(buf[c][2], ns, &out->allreduce_us[c][0], &out->allreduce_us[c][1]);
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
    free(x.perm);
    return st;
}
