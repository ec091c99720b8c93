/*
 * bench_load_sweep - the packet model's work per packet-hop as offered load
 * goes from well below to twice its saturation (issue 25, item 4: no event
 * storms under saturation).
 *
 * Single packets of the machine's largest size, Bernoulli injection at a
 * fraction of each node's injection bandwidth (node_gbs), deterministic
 * routes, for SPAN microseconds of virtual time (the run stops there: a
 * saturated network does not drain).  Patterns: uniform (each packet to a
 * node drawn at random) and tornado (every coordinate moved ceil(k/2) - 1
 * along its ring, the node's place on its router kept; BookSim's tornado).
 *
 * Saturation is the model's own figure: the throughput it accepts, as a
 * fraction of the injection bandwidth, when every node offers its whole
 * injection bandwidth (packets delivered in the second half of the span,
 * when the network has filled).  The sweep then offers 0.1 to 2 times
 * that and prints, per load, the throughput accepted, packet-hops, events
 * and events per packet-hop (temu_tm_totals) and CPU ns per packet-hop.
 *
 * usage: bench_load_sweep [SPAN_US [SPEC PATTERN]...]
 *        bench_load_sweep -1 SPAN_US SPEC PATTERN OFFERED   one run offering
 *            OFFERED of the injection bandwidth, for callgrind
 *            (bench_load_sweep.sh)
 */
#include "torusemu_timing.h"
#include "bench_util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Packets delivered from `from` ps on. */
typedef struct counted {
    int64_t from;
    uint64_t late;
} counted;

static void on_delivery(void *ctx, uint64_t tag, int64_t created, int64_t delivered)
{
    counted *c = ctx;
    (void)tag;
    (void)created;
    c->late += delivered >= c->from;
}

/* Tornado's destination of node n: each coordinate ceil(k/2) - 1 on. */
static int64_t tornado(const temu_machine *m, int64_t n)
{
    int32_t co[TEMU_MAX_DIMS];
    temu_router_coords(m, temu_node_router(m, n), co);
    for (int d = 0; d < m->ndims; d++) {
        co[d] = (co[d] + (m->size[d] + 1) / 2 - 1) % m->size[d];
    }
    return temu_router_index(m, co) * m->nodes_per_router + n % m->nodes_per_router;
}

typedef struct result {
    double accepted; /* of the injection bandwidth, second half of the span */
    double cpu;      /* s */
    temu_tm_totals tot;
} result;

/* One run at `load` of the injection bandwidth. */
static result run(const temu_machine *m, int uniform, double load, int64_t span_ps)
{
    temu_tm_config c;
    temu_tm *t;
    temu_error err;
    counted cnt = {span_ps / 2, 0};
    result r;
    uint64_t rng = 42;
    if (temu_tm_config_default(m, &c, &err) != TEMU_OK ||
        (c.routing = TEMU_TM_DETERMINISTIC, c.train_packets = 1,
         temu_tm_create(m, &c, &t, &err)) != TEMU_OK) {
        fprintf(stderr, "bench_load_sweep: %s\n", err.message);
        exit(1);
    }
    temu_tm_set_delivery(t, on_delivery, &cnt);
    /* a packet every `gap` ps per node on average: steps of one packet's
     * injection time, each with probability p */
    double ser = (double)c.max_packet * 1000.0 / c.node_gbs;
    int64_t step = (int64_t)ceil(ser);
    double p = load * (double)step / ser;
    double t0 = bench_cpu_seconds();
    for (int64_t when = 0; when < span_ps; when += step) {
        temu_tm_run(t, when);
        for (int64_t n = 0; n < m->nnodes; n++) {
            /* above 1 (offered beyond the injection bandwidth): whole
             * packets, and the fraction left at random */
            double want = p;
            for (; want > 0; want -= 1) {
                if (want < 1 && (double)(bench_rng_next(&rng) >> 11) * 0x1.0p-53 >= want) {
                    break;
                }
                int64_t d = uniform ? (int64_t)(bench_rng_next(&rng) % (uint64_t)m->nnodes)
                                    : tornado(m, n);
                if (temu_tm_send(t, when, n, d, c.max_packet, 0, (uint32_t)n, 0, &err) !=
                    TEMU_OK) {
                    fprintf(stderr, "bench_load_sweep: %s\n", err.message);
                    exit(1);
                }
            }
        }
    }
    temu_tm_run(t, span_ps);
    r.cpu = bench_cpu_seconds() - t0;
    temu_tm_totals_get(t, &r.tot);
    r.accepted = (double)cnt.late * ser / ((double)m->nnodes * (double)(span_ps - cnt.from));
    temu_tm_destroy(t);
    return r;
}

/* The model's saturation on m: the throughput accepted at full offered
 * load. */
static double saturation(const temu_machine *m, int uniform, int64_t span_ps)
{
    return run(m, uniform, 1.0, span_ps).accepted;
}

static void parse(const char *spec, const char *pattern, temu_machine *m, int *uniform)
{
    temu_error err;
    if (temu_machine_parse(spec, m, &err) != TEMU_OK) {
        fprintf(stderr, "bench_load_sweep: %s\n", err.message);
        exit(1);
    }
    if (strcmp(pattern, "uniform") != 0 && strcmp(pattern, "tornado") != 0) {
        fprintf(stderr, "bench_load_sweep: pattern %s (uniform or tornado)\n", pattern);
        exit(2);
    }
    *uniform = strcmp(pattern, "uniform") == 0;
}

static void sweep(const char *spec, const char *pattern, int64_t span_ps)
{
    static const double loads[] = {0.1, 0.25, 0.5, 0.75, 0.9, 1.0, 1.25, 1.5, 2.0};
    temu_machine m;
    int uniform;
    parse(spec, pattern, &m, &uniform);
    double sat = saturation(&m, uniform, span_ps);
    printf("%s %s: saturation %.3f of the injection bandwidth (accepted at full load)\n", spec,
           pattern, sat);
    printf("  %-6s %-7s %-8s %12s %12s %10s %10s\n", "x sat", "offered", "accepted",
           "packet-hops", "events", "ev/hop", "ns/hop");
    for (size_t i = 0; i < sizeof loads / sizeof *loads; i++) {
        result r = run(&m, uniform, loads[i] * sat, span_ps);
        double hops = r.tot.packet_hops > 0 ? (double)r.tot.packet_hops : 1;
        printf("  %-6.2f %-7.3f %-8.3f %12llu %12llu %10.2f %10.0f\n", loads[i], loads[i] * sat,
               r.accepted, (unsigned long long)r.tot.packet_hops,
               (unsigned long long)r.tot.events, (double)r.tot.events / hops, r.cpu * 1e9 / hops);
    }
    fflush(stdout);
}

int main(int argc, char **argv)
{
    static const char *def[] = {"gemini:8x8x8", "uniform", "gemini:8x8x8", "tornado",
                                "bgq:4x4x4x4x2", "uniform", "bgq:4x4x4x4x2", "tornado",
                                "bgp:8x8x8",     "uniform", "bgp:8x8x8",     "tornado"};
    if (argc == 6 && strcmp(argv[1], "-1") == 0) {
        temu_machine m;
        int uniform;
        int64_t span_ps = (int64_t)(atof(argv[2]) * 1e6);
        parse(argv[3], argv[4], &m, &uniform);
        result r = run(&m, uniform, atof(argv[5]), span_ps);
        printf("%s %s offered %.3f: %llu packet-hops, %llu events\n", argv[3], argv[4],
               atof(argv[5]), (unsigned long long)r.tot.packet_hops,
               (unsigned long long)r.tot.events);
        return 0;
    }
    int64_t span_ps = (int64_t)((argc > 1 ? atof(argv[1]) : 20) * 1e6);
    int n = argc > 2 ? argc - 2 : 12;
    const char **a = argc > 2 ? (const char **)argv + 2 : def;
    if (span_ps <= 0 || n % 2 != 0) {
        fprintf(stderr, "usage: bench_load_sweep [SPAN_US [SPEC PATTERN]...]\n"
                        "       bench_load_sweep -1 SPAN_US SPEC PATTERN OFFERED\n");
        return 2;
    }
    printf("packet model, single packets, load sweep over %.0f us of virtual time\n",
           (double)span_ps / 1e6);
    for (int i = 0; i < n; i += 2) {
        sweep(a[i], a[i + 1], span_ps);
    }
    return 0;
}
