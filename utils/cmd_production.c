/*
 * cmd_production.c - `torusemu production`: a production period of a whole
 * Gemini machine over the flow-level model (workload/production.h,
 * doc/production.md): jobs arrive, queue and run their patterns as steady
 * streams, and the counters are sampled into a series every interval, as
 * LDMS sampled Blue Waters' once a minute (seed 004), for `torusemu
 * analyze`.
 */
#include "cli.h"
#include "production.h"
#include "torusemu_series.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static void usage(FILE *f)
{
    fprintf(f,
            "Usage: torusemu production --series FILE [OPTION]...\n"
            "Run a production period of a whole Gemini machine in virtual time over the\n"
            "flow-level model: jobs of sourced sizes and runtimes arrive, wait in a batch\n"
            "queue (first come, first served, EASY backfill), run on the nodes an allocator\n"
            "gives them, each one of the replay's patterns as steady streams per phase; the\n"
            "counters are written to a series every interval, for `torusemu analyze`.\n"
            "\n"
            "Options:\n"
            "      --series=FILE      the series file to write (required)\n"
            "      --machine=SPEC     a Gemini machine (default gemini:24x24x24, Blue Waters)\n"
            "      --hours=H          virtual hours of production (a decimal; default 1)\n"
            "      --duration=T       the same as a time: 30min, 90s, ...\n"
            "      --interval=T       between snapshots (default 60s, LDMS's minute)\n"
            "      --allocator=A      topo (default: a box of Geminis per job, as Blue\n"
            "                         Waters' topology-aware scheduling) or nid (node-id order)\n"
            "      --seed=N           the jobs, their phases and arrivals (default 1)\n"
            "      --load=X           offered load, > 0 (default 1.2: a queue waits)\n"
            "      --node-gbs=G       mean injection of a node in a phase, GB/s (default 0.1)\n"
            "  -q, --quiet            no progress lines on stderr\n"
            "  -h, --help             print this help and exit\n"
            "      --version          print the version and exit\n"
            "\n"
            "Example:\n"
            "  torusemu production --machine gemini:8x8x8 --hours 0.5 --series prod.tser\n"
            "  torusemu analyze prod.tser --report summary\n");
}

enum {
    OPT_SERIES = CLI_OPT_FIRST_LONG,
    OPT_MACHINE,
    OPT_HOURS,
    OPT_DURATION,
    OPT_INTERVAL,
    OPT_ALLOCATOR,
    OPT_SEED,
    OPT_LOAD,
    OPT_NODE_GBS
};

typedef struct prod_opts {
    const char *spec, *series, *allocator;
    int64_t duration_ps, interval_ps;
    int have_hours, have_duration, quiet;
    uint64_t seed;
    double load, node_gbs;
} prod_opts;

/* A decimal number > 0 (and finite) of option `name`. */
static int parse_positive(const char *name, const char *s, double *out)
{
    char *end;
    double v = strtod(s, &end);
    if (end == s || *end != '\0' || !isfinite(v) || v <= 0) {
        return cli_fail("--%s '%s': expected a number above 0", name, s);
    }
    *out = v;
    return 0;
}

static int parse_one(int c, const char *arg, prod_opts *o)
{
    double v;
    switch (c) {
    case OPT_SERIES:
        o->series = arg;
        return 0;
    case OPT_MACHINE:
        o->spec = arg;
        return 0;
    case OPT_HOURS:
        if (parse_positive("hours", arg, &v) != 0) {
            return CLI_EXIT_USAGE;
        }
        if (v > 24.0 * 365) {
            return cli_fail("--hours '%s': at most a year (8760)", arg);
        }
        o->duration_ps = (int64_t)(v * 3.6e15);
        o->have_hours = 1;
        return 0;
    case OPT_DURATION:
    case OPT_INTERVAL:
        if (cli_parse_time_ps(arg, c == OPT_DURATION ? &o->duration_ps : &o->interval_ps) != 0) {
            return cli_fail("--%s '%s': expected " CLI_TIME_EXPECTED,
                            c == OPT_DURATION ? "duration" : "interval", arg);
        }
        o->have_duration |= c == OPT_DURATION;
        return 0;
    case OPT_ALLOCATOR:
        if (strcmp(arg, "topo") != 0 && strcmp(arg, "nid") != 0) {
            return cli_fail("--allocator '%s': expected topo or nid", arg);
        }
        o->allocator = arg;
        return 0;
    case OPT_SEED:
        if (cli_parse_uint(arg, &o->seed) != 0) {
            return cli_fail("--seed '%s': expected a whole number", arg);
        }
        return 0;
    case OPT_LOAD:
        return parse_positive("load", arg, &o->load) != 0 ? CLI_EXIT_USAGE : 0;
    case OPT_NODE_GBS:
        return parse_positive("node-gbs", arg, &o->node_gbs) != 0 ? CLI_EXIT_USAGE : 0;
    case 'q':
        o->quiet = 1;
        return 0;
    default:
        return CLI_EXIT_USAGE;
    }
}

static int parse_args(int argc, char **argv, prod_opts *o, int *done)
{
    static const struct option opts[] = {CLI_COMMON_OPTIONS,
                                         {"series", required_argument, NULL, OPT_SERIES},
                                         {"machine", required_argument, NULL, OPT_MACHINE},
                                         {"hours", required_argument, NULL, OPT_HOURS},
                                         {"duration", required_argument, NULL, OPT_DURATION},
                                         {"interval", required_argument, NULL, OPT_INTERVAL},
                                         {"allocator", required_argument, NULL, OPT_ALLOCATOR},
                                         {"seed", required_argument, NULL, OPT_SEED},
                                         {"load", required_argument, NULL, OPT_LOAD},
                                         {"node-gbs", required_argument, NULL, OPT_NODE_GBS},
                                         {"quiet", no_argument, NULL, 'q'},
                                         {NULL, 0, NULL, 0}};
    int c, rc = 0;
    *o = (prod_opts){.spec = "gemini:24x24x24",
                     .allocator = "topo",
                     .duration_ps = 3600000000000000ll,
                     .interval_ps = 60000000000000ll,
                     .seed = 1};
    cli_begin();
    while ((c = cli_next(argc, argv, ":hq", opts, usage, done, &rc)) != -1) {
        if (*done) {
            return rc;
        }
        if ((rc = parse_one(c, optarg, o)) != 0) {
            return rc;
        }
    }
    if (optind < argc) {
        return cli_fail("production: unexpected argument '%s' (see --help)", argv[optind]);
    }
    if (o->have_hours && o->have_duration) {
        return cli_fail("--hours and --duration both give the period: use one");
    }
    if (o->series == NULL) {
        return cli_fail("production: --series FILE is required (the counters' snapshots)");
    }
    return 0;
}

static double cpu_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* A progress line per snapshot. */
static void on_snapshot(void *ctx, int64_t t, const temu_prod_report *r)
{
    const prod_opts *o = ctx;
    if (!o->quiet) {
        fprintf(stderr, "torusemu: production: %.1f of %.1f min, %lld streams, %.1f s CPU\n",
                (double)t / 6e13, (double)o->duration_ps / 6e13, (long long)r->streams,
                cpu_seconds());
    }
}

static void report(const prod_opts *o, const temu_machine *m, const temu_prod_report *r, double cpu)
{
    const temu_prod_queue_stats *q = &r->queue;
    printf("machine        %s (%lld nodes)\n", m->name, (long long)m->nnodes);
    printf("allocator      %s\n", o->allocator);
    printf("period         %.6g min, %lld snapshots every %.6g s\n", (double)o->duration_ps / 6e13,
           (long long)r->snapshots, (double)o->interval_ps / 1e12);
    printf("jobs           %lld submitted, %lld started, %lld ended, %lld running, %lld waiting\n",
           (long long)q->submitted, (long long)q->started, (long long)q->ended,
           (long long)q->running, (long long)q->waiting);
    printf("nodes in use   %.1f %% of the node time (running ranks)\n", 100 * r->mean_used);
    printf("phases         %lld\n", (long long)r->phases);
    printf("streams        %lld (%llu packets)\n", (long long)r->streams,
           (unsigned long long)r->packets);
    printf("flow model     %llu flows, %llu rate solutions, %llu rate updates\n",
           (unsigned long long)r->flow.flows, (unsigned long long)r->flow.solves,
           (unsigned long long)r->flow.updates);
    printf("crossings      %llu hop records, at most %llu under way\n",
           (unsigned long long)r->hop_records, (unsigned long long)r->pending_peak);
    printf("cpu            %.2f s\n", cpu);
    printf("series         %s\n", o->series);
}

int cmd_production(int argc, char **argv)
{
    prod_opts o;
    temu_machine m;
    temu_error err;
    temu_session *s = NULL;
    int done = 0, rc = parse_args(argc, argv, &o, &done);
    if (rc != 0 || done) {
        return rc;
    }
    if (temu_machine_parse(o.spec, &m, &err) != TEMU_OK) {
        return cli_fail_err(&err);
    }
    if (temu_family_info_get(m.system)->tiles == 0) {
        return cli_fail("--machine %s: a production period runs on a Gemini machine (seed 004's "
                        "Blue Waters)",
                        o.spec);
    }
    temu_prod_run_opts ro = {.allocator =
                                 strcmp(o.allocator, "nid") == 0 ? TEMU_ALLOC_NID : TEMU_ALLOC_TOPO,
                             .duration_ps = o.duration_ps,
                             .interval_ps = o.interval_ps,
                             .series = o.series,
                             .snapshot = on_snapshot,
                             .ctx = &o};
    temu_prod_params_default(&ro.params, m.nnodes);
    ro.params.seed = o.seed;
    ro.params.load = o.load > 0 ? o.load : ro.params.load;
    ro.params.mean_node_gbs = o.node_gbs > 0 ? o.node_gbs : ro.params.mean_node_gbs;
    temu_prod_report r;
    double cpu0 = cpu_seconds();
    temu_status st = temu_session_create_private(&m, &s, &err);
    if (st == TEMU_OK) {
        st = temu_prod_run(s, &ro, &r, &err);
    }
    temu_session_close(s);
    if (st != TEMU_OK) {
        cli_err_prefix(&err, "production");
        return cli_fail_err(&err);
    }
    report(&o, &m, &r, cpu_seconds() - cpu0);
    return 0;
}
