/*
 * bench_timing - speed of the packet timing model (torusemu_timing.h).
 *
 * Uniform random traffic of maximal packets, Bernoulli injection at a given
 * fraction of each node's injection bandwidth, for a span of virtual time;
 * reports packet-hops (router-to-router channel crossings) per second of
 * host time.  Reference: CODES' torus model ran 148 k packet-hops/s per core
 * on this machine (reference/anchors REPORT section 1.1); issue 11 asks for
 * 1000 times that.  Each figure is the median of 3 runs, in CPU time of
 * one core (creation of the model included).
 *
 * Each case runs four ways: single packets (train length 1), and
 * messages of 32 packets with train length 1, 64, and 64 never split.
 *
 * usage: bench_timing [SPEC LOAD MICROSECONDS]...
 */
#include "torusemu_timing.h"
#include "bench_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define RUNS 3

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* One run: messages of `pkts` maximal packets, trains of at most `train`;
 * returns host seconds and sets the packet-hop and train-hop counts (a
 * train of k packets crossing a channel: k packet-hops, one train-hop). */
static double run(const temu_machine *m, double load, int64_t span_ps, uint32_t pkts,
                  uint32_t train, uint32_t whole, uint64_t *hops_out, uint64_t *train_hops)
{
    temu_tm_config c;
    temu_tm *t;
    temu_error err;
    temu_tm_totals tot;
    uint64_t rng = 42;
    if (temu_tm_config_default(m, &c, &err) != TEMU_OK ||
        /* deterministic routes, as doc/performance.md measured (adaptive
         * routing takes single packets only) */
        (c.routing = TEMU_TM_DETERMINISTIC, c.train_packets = train, c.train_whole = whole,
         temu_tm_create(m, &c, &t, &err)) != TEMU_OK) {
        fprintf(stderr, "bench_timing: %s\n", err.message);
        exit(1);
    }
    /* one message per node every `gap` ps on average */
    double gap = (double)c.max_packet * pkts * 1000.0 / c.node_gbs / load;
    int64_t step = (int64_t)gap;
    double p = (double)step / gap;
    double t0 = bench_cpu_seconds();
    for (int64_t when = 0; when < span_ps; when += step) {
        temu_tm_run(t, when);
        for (int64_t n = 0; n < m->nnodes; n++) {
            if ((double)(bench_rng_next(&rng) >> 11) * 0x1.0p-53 >= p) {
                continue;
            }
            int64_t d = (int64_t)(bench_rng_next(&rng) % (uint64_t)m->nnodes);
            temu_tm_send_train(t, when, n, d, c.max_packet, pkts, 0, (uint32_t)n, 0, &err);
        }
    }
    temu_tm_run(t, INT64_MAX);
    double dt = bench_cpu_seconds() - t0;
    temu_tm_totals_get(t, &tot);
    temu_tm_destroy(t);
    *hops_out = tot.packet_hops;
    *train_hops = tot.train_hops;
    return dt;
}

int main(int argc, char **argv)
{
    const char *def[] = {"bgp:8x8x8",       "0.05", "200", "bgq:8x8x8x8x2", "0.05", "10",
                         "gemini:16x16x16", "0.05", "10"};
    int n = argc > 1 ? argc - 1 : 9;
    const char **a = argc > 1 ? (const char **)argv + 1 : def;
    if (n % 3 != 0) {
        fprintf(stderr, "usage: bench_timing [SPEC LOAD MICROSECONDS]...\n");
        return 2;
    }
    for (int i = 0; i < n; i += 3) {
        temu_machine m;
        temu_error err;
        double secs[RUNS];
        uint64_t hops = 0;
        if (temu_machine_parse(a[i], &m, &err) != TEMU_OK) {
            fprintf(stderr, "bench_timing: %s\n", err.message);
            return 1;
        }
        /* packets a message, train length, trains never split */
        const uint32_t ways[4][3] = {{1, 1, 0}, {32, 1, 0}, {32, 64, 0}, {32, 64, 1}};
        for (int w = 0; w < 4; w++) {
            uint64_t trains = 0;
            for (int r = 0; r < RUNS; r++) {
                secs[r] = run(&m, atof(a[i + 1]), (int64_t)(atof(a[i + 2]) * 1e6), ways[w][0],
                              ways[w][1], ways[w][2], &hops, &trains);
            }
            qsort(secs, RUNS, sizeof *secs, cmp_double);
            printf("%-18s load %.2f, %s us, %2u-packet messages, train %2u%s: %llu packet-hops "
                   "(%llu train-hops) in %.3f s = %.2f M packet-hops/s (%.0f x CODES' 0.148 M), "
                   "CPU time\n",
                   a[i], atof(a[i + 1]), a[i + 2], ways[w][0], ways[w][1],
                   ways[w][2] ? " whole" : "", (unsigned long long)hops, (unsigned long long)trains,
                   secs[RUNS / 2], (double)hops / secs[RUNS / 2] / 1e6,
                   (double)hops / secs[RUNS / 2] / 148e3);
        }
    }
    return 0;
}
