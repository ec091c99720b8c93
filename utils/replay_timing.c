/*
 * replay_timing.c - `torusemu replay --timing` (replay_timing.h).
 *
 * The replay records every rank's program while it counts the volume as
 * without --timing (the counts are the same: tests/vtime.sh), then the
 * programs run in virtual time (include/torusemu_vtime.h) and the
 * timing model's stall and occupancy counters are added to the store.
 */
#include "replay_timing.h"
#include "cli.h"
#include "otf2_trace.h"
#include "replay_watch.h"

#include "torusemu_series.h"
#include "torusemu_vtime.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Picoseconds as microseconds with every digit (1 ps = 1e-6 us). */
static void us(char *buf, size_t len, int64_t ps)
{
    snprintf(buf, len, "%" PRId64 ".%06" PRId64, ps / 1000000, ps % 1000000);
}

/* The summary line and the per-rank table of a timing run. */
static void report(temu_session *s, temu_vt *vt, cli_format format)
{
    int32_t n = temu_vt_nranks(vt);
    int64_t runtime = temu_vt_runtime(vt), comm_max = 0, comm_sum = 0;
    int32_t last = -1; /* the lowest rank that ends last */
    char a[32], b[32], c[32];
    for (int32_t i = 0; i < n; i++) {
        temu_vt_rank_stats rs;
        temu_vt_rank_get(vt, i, &rs);
        comm_sum += rs.comm_ps;
        comm_max = rs.comm_ps > comm_max ? rs.comm_ps : comm_max;
        last = rs.end_ps == runtime && last < 0 ? i : last;
    }
    us(a, sizeof a, runtime);
    us(b, sizeof b, n > 0 ? comm_sum / n : 0);
    us(c, sizeof c, comm_max);
    FILE *f = format == CLI_FORMAT_TABLE ? stdout : stderr;
    fprintf(f,
            "predicted runtime %s us (rank %d ends last); time in MPI per rank: mean %s us, "
            "max %s us; %" PRIu64 " messages on the network\n",
            a, last, b, c, temu_vt_messages(vt));
    static const char *const cols[] = {"rank", "node", "end_ps", "compute_ps", "mpi_ps"};
    cli_rec r;
    if (format == CLI_FORMAT_TABLE) {
        printf("%8s %8s %18s %18s %18s\n", "rank", "node", "end_us", "compute_us", "mpi_us");
    } else {
        cli_rec_begin(&r, stdout, format, cols, 5);
    }
    for (int32_t i = 0; i < n; i++) {
        temu_vt_rank_stats rs;
        temu_slot slot;
        temu_vt_rank_get(vt, i, &rs);
        temu_session_rank_slot(s, i, &slot, NULL);
        if (format == CLI_FORMAT_TABLE) {
            us(a, sizeof a, rs.end_ps);
            us(b, sizeof b, rs.compute_ps);
            us(c, sizeof c, rs.comm_ps);
            printf("%8d %8d %18s %18s %18s\n", i, slot.node, a, b, c);
        } else {
            cli_rec_cell(&r, "%d", i);
            cli_rec_cell(&r, "%d", slot.node);
            cli_rec_cell(&r, "%" PRId64, rs.end_ps);
            cli_rec_cell(&r, "%" PRId64, rs.compute_ps);
            cli_rec_cell(&r, "%" PRId64, rs.comm_ps);
            cli_rec_row(&r);
        }
    }
    if (format != CLI_FORMAT_TABLE) {
        cli_rec_end(&r);
    }
}

/* Seed 002's published figures for the same three tests, printed under the
 * table for comparison: Chunduri et al., "GPCNeT: Designing a Benchmark
 * Suite for Inducing and Measuring Contention in HPC Networks", SC19,
 * Table 2, row Crystal (Cray XC40, Aries), 64 nodes, 1 process per network
 * port: [test][0 isolated, 1 loaded][0 mean, 1 99 %], microseconds for the
 * latencies, MiB/s per rank for P2P BW+Sync, as the paper rounds them (0.1).
 * The smallest Aries run of the table and the nearest to the small tori
 * this command replays; the isolated P2P Lat of all its systems spans 1.1
 * us (Osprey, EDR InfiniBand, 128 nodes) to 11.2 us (Theta, 4,096 nodes). */
static const double seed002_crystal64[3][2][2] = {
    {{1.8, 6.3}, {1.9, 5.4}},
    {{4764.5, 3813.8}, {4496.6, 3705.0}},
    {{9.4, 10.1}, {9.8, 11.6}},
};

/* The paper's row under the table (table format only: the csv and json
 * records keep one row per test of this run).  Its impacts follow eq. 1
 * from the rounded values: loaded / isolated for the latencies, isolated /
 * loaded for the bandwidth. */
static void report_gpcnet_paper(void)
{
    static const char *const names[3] = {"paper p2p_lat_us", "paper p2p_bw_sync",
                                         "paper allreduce_us"};
    printf("seed 002 (Chunduri et al., SC19, Table 2), Crystal: Cray XC40 (Aries), 64 nodes, "
           "1 PPort\n");
    for (int t = 0; t < 3; t++) {
        const double(*v)[2] = seed002_crystal64[t];
        double ci[2];
        for (int q = 0; q < 2; q++) {
            ci[q] = t == 1 ? v[0][q] / v[1][q] : v[1][q] / v[0][q];
        }
        printf("%-26s %14.1f %14.1f %9.3f %14.1f %14.1f %9.3f\n", names[t], v[0][0], v[1][0],
               ci[0], v[0][1], v[1][1], ci[1]);
    }
    printf("seed 002's isolated P2P Lat, mean, over its 7 systems: 1.1 us (Osprey) to 11.2 us "
           "(Theta)\n");
}

/* GPCNeT's table: per canary test the isolated and congested mean and 99th
 * percentile and their Congestion Impact (eq. 1), then (table format) seed
 * 002's published row beside it. */
static void report_gpcnet(const temu_gpcnet_result *g, cli_format format)
{
    static const char *const names[3] = {"p2p_lat_us", "p2p_bw_sync_mibs_per_rank", "allreduce_us"};
    const double(*v[3])[2] = {g->lat_us, g->bw_mibs, g->allreduce_us};
    const double *ci[3] = {g->impact_lat, g->impact_bw, g->impact_allreduce};
    FILE *f = format == CLI_FORMAT_TABLE ? stdout : stderr;
    fprintf(f,
            "GPCNeT: %d canary ranks, %d congestor ranks, %d iterations per test, %d congestor "
            "rounds; %d timing runs (the store holds the last)\n",
            g->canaries, g->congestors, g->iters, g->rounds, g->runs);
    static const char *const cols[] = {"test",        "isolated_mean", "congested_mean",
                                       "impact_mean", "isolated_p99",  "congested_p99",
                                       "impact_p99"};
    cli_rec r;
    if (format == CLI_FORMAT_TABLE) {
        printf("%-26s %14s %14s %9s %14s %14s %9s\n", "test", "isolated", "congested", "impact",
               "isolated 99%", "congested 99%", "impact");
    } else {
        cli_rec_begin(&r, stdout, format, cols, 7);
    }
    for (int t = 0; t < 3; t++) {
        if (format == CLI_FORMAT_TABLE) {
            printf("%-26s %14.4f %14.4f %9.3f %14.4f %14.4f %9.3f\n", names[t], v[t][0][0],
                   v[t][1][0], ci[t][0], v[t][0][1], v[t][1][1], ci[t][1]);
            continue;
        }
        cli_rec_cell(&r, "%s", names[t]);
        cli_rec_cell(&r, "%.6g", v[t][0][0]);
        cli_rec_cell(&r, "%.6g", v[t][1][0]);
        cli_rec_cell(&r, "%.6g", ci[t][0]);
        cli_rec_cell(&r, "%.6g", v[t][0][1]);
        cli_rec_cell(&r, "%.6g", v[t][1][1]);
        cli_rec_cell(&r, "%.6g", ci[t][1]);
        cli_rec_row(&r);
    }
    if (format != CLI_FORMAT_TABLE) {
        cli_rec_end(&r);
    } else {
        report_gpcnet_paper();
    }
}

/* What the store has of the model's counters, and the series file. */
typedef struct sink {
    temu_session *s;
    temu_tm_flushed *f; /* what the model's counters already added */
    temu_series *w;
} sink;

/* Add what the model counted since the last flush to the store: its stall
 * and occupancy counters (the replay counts the links as packets cross,
 * adaptively routed ones included). */
static temu_status flush(sink *k, temu_vt *vt, temu_error *err)
{
    return temu_vt_counters_flush(vt, k->f, k->s, err);
}

/* At every interval of virtual time and at the end: the store as it is
 * then, into the series. */
static temu_status on_tick(void *ctx, temu_vt *vt, int64_t t_ps, temu_error *err)
{
    sink *k = ctx;
    temu_status st = flush(k, vt, err);
    return st == TEMU_OK ? temu_series_snapshot(k->w, t_ps, err) : st;
}

/* The replay that records into a run's virtual time, and a pattern it
 * generates or a trace it reads as the ranks go (both NULL: all was
 * recorded before the run). */
typedef struct recording {
    temu_replay *r;
    temu_pattern_gen *gen;
    temu_otf2_lazy *trace;
} recording;

/* Records a timed replay reads of a trace at a time (one round of its
 * source): TORUSEMU_OTF2_CHUNK, for tests, else 65,536 (1.5 MiB of
 * records at most 24 bytes each in OTF2's buffers; the engine holds what
 * they record until every rank is past them).  A value that is not a
 * positive count is refused, naming it, rather than quietly replaced. */
static temu_status trace_chunk(uint64_t *chunk, temu_error *err)
{
    const char *s = getenv("TORUSEMU_OTF2_CHUNK");
    char *end = NULL;
    *chunk = 65536;
    if (s == NULL) {
        return TEMU_OK;
    }
    errno = 0;
    unsigned long long n = strtoull(s, &end, 10);
    if (end == s || *end != '\0' || errno != 0 || n == 0 || s[0] == '-') {
        return temu_fail(err, TEMU_EINVAL,
                         "TORUSEMU_OTF2_CHUNK '%s': not a positive count of records", s);
    }
    *chunk = (uint64_t)n;
    return TEMU_OK;
}

/* TORUSEMU_RECORD_WHOLE: 1 records the workload whole before the run, 0
 * or unset generates it as the ranks reach it; anything else is refused. */
static temu_status record_whole(int *whole, temu_error *err)
{
    const char *s = getenv("TORUSEMU_RECORD_WHOLE");
    *whole = s != NULL && strcmp(s, "1") == 0;
    if (s != NULL && strcmp(s, "0") != 0 && strcmp(s, "1") != 0) {
        return temu_fail(err, TEMU_EINVAL, "TORUSEMU_RECORD_WHOLE '%s': not 0 or 1", s);
    }
    return TEMU_OK;
}

/* A trace, or np patterns, recorded into vt through one replay (labels:
 * what each pattern's errors are about, or NULL).  The patterns (one, or
 * the jobs of a mix) are generated step by step during the run
 * (temu_pattern_lazy), and a trace is read chunk by chunk as the ranks
 * reach it (temu_otf2_lazy_open), unless TORUSEMU_RECORD_WHOLE=1 (for
 * comparing memory: the same results). */
static temu_status record(temu_session *s, temu_vt *vt, const char *trace, const temu_pattern *p,
                          int np, const char *const *labels, recording *rec, temu_error *err)
{
    int whole = 0;
    uint64_t chunk = 0;
    temu_status st = record_whole(&whole, err);
    st = st == TEMU_OK ? trace_chunk(&chunk, err) : st;
    st = st == TEMU_OK ? temu_replay_create(s, &rec->r, err) : st;
    if (st == TEMU_OK) {
        temu_replay_set_vtime(rec->r, vt);
        if (trace != NULL && whole) {
            st = temu_otf2_replay(trace, rec->r, replay_watch_ops, NULL, err);
        } else if (trace != NULL) {
            st = temu_otf2_lazy_open(trace, rec->r, chunk, &rec->trace, err);
        } else if (!whole) {
            int bad = -1;
            temu_vt_set_post_all(vt, 1);
            st = temu_pattern_lazy(rec->r, p, np, &rec->gen, &bad, err);
            if (st != TEMU_OK && bad >= 0 && labels != NULL) {
                cli_err_prefix(err, labels[bad]);
            }
        } else {
            temu_vt_set_post_all(vt, 1);
            for (int i = 0; i < np && st == TEMU_OK; i++) {
                st = temu_pattern_replay(rec->r, &p[i], replay_watch_ops, NULL, err);
                if (st != TEMU_OK && labels != NULL) {
                    cli_err_prefix(err, labels[i]);
                }
            }
        }
    }
    return st;
}

/* The recording's end (st: how it went so far): every send matched, its
 * counts in *stats. */
static temu_status record_end(recording *rec, temu_status st, temu_replay_stats *stats,
                              temu_error *err)
{
    if (st == TEMU_OK && rec->r != NULL) {
        st = temu_replay_finish(rec->r, err);
    }
    if (rec->r != NULL) {
        temu_replay_get_stats(rec->r, stats);
    }
    temu_replay_free(rec->r);
    temu_pattern_gen_free(rec->gen);
    temu_otf2_lazy_free(rec->trace);
    rec->r = NULL;
    rec->gen = NULL;
    rec->trace = NULL;
    return st;
}

/* What the timing model did over all of gpcnet's runs, on stderr (its
 * CPU grows with this, not with the bytes: doc/performance.md, "Flow
 * level: the re-solve"). */
static void report_gpcnet_work(const temu_gpcnet_result *g, uint32_t level)
{
    const temu_tm_totals *w = &g->work;
    if (level == TEMU_TM_FLOW) {
        fprintf(stderr,
                "torusemu: the flow level's work over the %d timing runs: %llu flows started "
                "and rate solutions, %llu per-flow rate updates\n",
                g->runs, (unsigned long long)w->events, (unsigned long long)w->train_hops);
    } else {
        fprintf(stderr,
                "torusemu: the packet level's work over the %d timing runs: %llu events, %llu "
                "packet-hops, %llu train-hops\n",
                g->runs, (unsigned long long)w->events, (unsigned long long)w->packet_hops,
                (unsigned long long)w->train_hops);
    }
}

/* The parallel engine's synchronisation (--threads), on stderr: the
 * results on stdout are the same for every thread count. */
static void report_sync(temu_vt *vt)
{
    temu_tm *tm = temu_vt_model(vt);
    temu_tm_sync_stats y;
    if (tm == NULL) {
        return;
    }
    temu_tm_sync_stats_get(tm, &y);
    if (y.regions == 0) {
        return;
    }
    fprintf(stderr,
            "parallel engine: %u regions, %llu strides, %llu windows, %.1f events per window, "
            "%llu boundary crossings (%.3f per event), balance bound %.2fx, lookahead %lld ps, "
            "%llu handovers, barrier wait %.3f s (%llu sleeps), serial reports %.3f s, "
            "hops told alongside %.3f s, hops counted in the regions %llu\n",
            y.regions, (unsigned long long)y.advances, (unsigned long long)y.windows,
            y.windows > 0 ? (double)y.events / (double)y.windows : 0.0,
            (unsigned long long)y.crossings,
            y.events > 0 ? (double)y.crossings / (double)y.events : 0.0,
            y.critical > 0 ? (double)y.events / (double)y.critical : 0.0, (long long)y.lookahead_ps,
            (unsigned long long)y.handovers, (double)y.wait_ns * 1e-9, (unsigned long long)y.sleeps,
            (double)y.serial_ns * 1e-9, (double)y.hops_ns * 1e-9, (unsigned long long)y.hops_now);
}

int replay_timing_run(temu_session *s, const char *trace, const temu_pattern *p, int np,
                      const replay_timing *o, temu_replay_stats *stats)
{
    temu_error err;
    temu_vt *vt = NULL;
    temu_status st = TEMU_OK;
    sink k = {s, NULL, NULL};
    const temu_machine *m = temu_session_machine(s);
    memset(stats, 0, sizeof *stats);
    temu_tm_config tc;
    st = temu_tm_config_default(m, &tc, &err);
    tc.level = o->level;
    tc.threads = o->threads;
    tc.flow_window_ps = o->flow_window_ps;
    if (o->no_mpi_costs) {
        memset(&tc.mpi, 0, sizeof tc.mpi); /* --mpi-costs=off */
    }
    if (st == TEMU_OK && o->routing != 0) {
        tc.routing = o->routing - 1;
    }
    if (st == TEMU_OK && o->train > 1) {
        if (tc.routing == TEMU_TM_ADAPTIVE) {
            /* trains travel on dateline VCs, never the escape VC's bubble
             * rule adaptive packets fall back to (doc/model.md) */
            snprintf(err.message, sizeof err.message,
                     "--train=%u: packet trains route deterministically; %s", o->train,
                     o->routing != 0 ? "not with --routing=adaptive"
                                     : "add --routing=deterministic (this machine's timing model "
                                       "routes adaptively by default)");
            st = err.status = TEMU_EINVAL;
        }
        tc.train_packets = o->train;
        tc.train_whole = o->whole_trains ? 1 : 0;
    }
    if (st == TEMU_OK) {
        st = temu_tm_flushed_create(m, &k.f, &err);
    }
    if (st != TEMU_OK) {
        /* reported below */
    } else if (trace == NULL && np == 1 && p->kind == TEMU_PATTERN_GPCNET && p->nranks == 0) {
        temu_gpcnet_result g;
        int whole = 0;
        st = record_whole(&whole, &err); /* as record() */
        st = st == TEMU_OK ? temu_gpcnet_impact(s, p, &tc, 1, whole, replay_watch_vt(), &g, &vt, &err)
                           : st;
        replay_watch_break();
        if (st == TEMU_OK) {
            *stats = g.replayed; /* the congested run's: the store's counts */
            report_gpcnet(&g, o->format);
            if (!o->quiet) {
                report_gpcnet_work(&g, tc.level);
            }
        }
    } else {
        st = temu_vt_create(s, &tc, &vt, &err);
        if (st == TEMU_OK) {
            st = temu_vt_set_compute_scale(vt, o->compute_scale, &err);
        }
        if (st == TEMU_OK && o->series != NULL) {
            st = temu_series_create(o->series, s, o->interval_ps, &k.w, &err);
            if (st == TEMU_OK) {
                st = temu_vt_set_tick(vt, o->interval_ps, on_tick, &k, &err);
            }
        }
        recording rec = {NULL, NULL, NULL};
        if (st == TEMU_OK) {
            st = record(s, vt, trace, p, np, o->labels, &rec, &err);
        }
        int lazy = rec.gen != NULL || rec.trace != NULL;
        if (!lazy) {
            st = record_end(&rec, st, stats, &err);
        }
        if (st == TEMU_OK) {
            temu_vt_set_watch(vt, replay_watch_vt());
            st = temu_vt_run(vt, &err);
            replay_watch_break();
        }
        if (lazy) {
            st = record_end(&rec, st, stats, &err);
        }
        if (st == TEMU_OK) {
            report(s, vt, o->format);
            report_sync(vt);
        }
    }
    if (st == TEMU_OK) {
        st = flush(&k, vt, &err);
    }
    if (k.w != NULL) {
        temu_status cst = temu_series_close(k.w, st == TEMU_OK ? &err : NULL);
        st = st == TEMU_OK ? cst : st;
    }
    temu_tm_flushed_free(k.f);
    temu_vt_free(vt);
    if (st != TEMU_OK) {
        fprintf(stderr, "torusemu replay: %s\n", err.message);
        return 1;
    }
    return 0;
}
