/*
 * cmd_replay.c - `torusemu replay`: replay an OTF2 trace or a built-in
 * communication pattern onto an emulated machine, without processes, into
 * a store like the one `torusemu run` leaves (doc/replay.md, doc/cli.md).
 *
 *   torusemu replay --machine=SPEC [--ranks-per-node=N] [--map=HOW]
 *                   [--keep=FILE] [-np P] (--pattern=NAME [...] | --trace=DIR |
 *                   --mix=FILE) [--timing [--compute-scale=F] [--compute=T]
 *                   [--routing=HOW] [--format=F] [--series=FILE] [--interval=T]
 *                   [--figures=DIR]]
 * --mix replays several jobs at once on disjoint nodes (mix.c), --figures
 * ends with `torusemu analyze -o DIR` of the series.
 * With --timing the ranks run in virtual time (replay_timing.c).
 */
#define _GNU_SOURCE 1
#include "cli.h"
#include "mix.h"
#include "otf2_trace.h"
#include "pattern_params.h"
#include "replay_timing.h"
#include "replay_watch.h"
#include "torusemu_timing.h"

#include "torusemu_replay.h"
#include "workload.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

typedef struct replay_opts {
    const char *spec, *map, *keep;
    uint64_t np, rpn;
    int quiet;
    int replace; /* --replace: --keep may replace an existing FILE */
    int threads; /* --threads: pattern replays */
    const char *pattern_name;
    const char *trace;   /* --trace DIR */
    const char *mixfile; /* --mix FILE */
    mix mix;             /* its jobs, once read */
    const char *figures; /* --figures DIR */
    int np_given;        /* -np, --map or --ranks-per-node given */
    temu_pattern pattern;
    replay_timing timing;
    int timing_only;         /* an option that needs --timing was given */
    const char *model;       /* --model LEVEL, or NULL (checked into timing.level) */
    const char *flow_window; /* --flow-window T, or NULL (checked into timing.flow_window_ps) */
    int pattern_params;      /* a pattern parameter was given */
} replay_opts;

/* "torusemu: replay: <reason>"; fmt must be a string literal */
#define fail(...) cli_fail("replay: " __VA_ARGS__)

static void usage(FILE *f)
{
    fprintf(f,
            "Usage: torusemu replay [OPTION]... --machine=SPEC (--pattern=NAME | --trace=DIR |\n"
            "                                                   --mix=FILE)\n"
            "Replay a communication pattern of P ranks (default: every slot, nodes x N), or an\n"
            "OTF2 trace (default P: the trace's ranks), onto the emulated machine SPEC without\n"
            "processes; the counts land in a session store as after `torusemu run`.\n"
            "\n"
            "Options:\n"
            "  -m, --machine=SPEC       the machine (see `torusemu machine --presets`)\n"
            "  -np, --np=P              number of ranks (also -n P)\n"
            "      --ranks-per-node=N   ranks sharing a node (default 1)\n"
            "      --map=HOW            rank placement: a dimension order (ABCDET, TABCDE,\n"
            "                           XYZT), a map file, or random:SEED (doc/mapping.md)\n"
            "      --keep=FILE          keep the store in FILE (default: a temporary store)\n"
            "      --replace            with --keep: replace FILE if it exists\n"
            "      --trace=DIR          an OTF2 archive (DIR/traces.otf2 or the anchor file):\n"
            "                           one `torusemu run --trace` wrote, or another tool's\n"
            "      --pattern=NAME       a built-in pattern (below)\n"
            "      --mix=FILE           several jobs at once on disjoint nodes, one a line:\n"
            "                           PATTERN ranks=P [ranks-per-node=N] [at=NODE |\n"
            "                           nodes=LIST | map=FILE] [PARAMETER=VALUE]...\n"
            "                           (doc/replay.md, \"Job mixes\")\n"
            "      --threads=T          threads of a pattern replay (default: the CPUs online);\n"
            "                           --timing: the packet model cut into T regions run by T\n"
            "                           threads, the same results for every T (default: the\n"
            "                           serial engine; doc/model.md, \"Parallel engine\")\n"
            "      --timing             ranks in virtual time over the timing model: print the\n"
            "                           predicted runtime and each rank's time in MPI, add the\n"
            "                           model's stall counters to the store; gpcnet: GPCNeT's\n"
            "                           Congestion Impact (doc/replay.md, \"Virtual time\")\n"
            "      --compute-scale=F    --timing: scale a trace's compute gaps by F (default 1;\n"
            "                           0: communication only)\n"
            "      --mpi-costs=on|off   --timing: each message's MPI software costs (LogGP o_s,\n"
            "                           o_r, g; on-node copies) from the machine's MPI, or only\n"
            "                           its network time (default on; doc/virtual-time.md)\n"
            "      --compute=T          --timing, patterns: each rank computes T before every\n"
            "                           step (e.g. 10us, 2ms; default 0)\n"
            "      --routing=HOW        --timing: the timing model routes Blue Gene's dynamic\n"
            "                           VCs adaptive (default) or deterministic; the link\n"
            "                           counters follow its routes (Gemini: deterministic)\n"
            "      --train=N            --timing: up to N consecutive packets of a message move\n"
            "                           as one unit (a packet train; default 1: every packet on\n"
            "                           its own). Faster, coarser where trains compete\n"
            "                           (doc/model.md, \"Packet trains\"); routes\n"
            "                           deterministically\n"
            "      --whole-trains       --timing, --train: a train never splits (fastest)\n"
            "      --model=LEVEL        --timing: the timing model's level, packet (default:\n"
            "                           packets through queues and credits) or flow (flows\n"
            "                           sharing link bandwidth: minutes to hours of a whole\n"
            "                           machine, stalls estimated; doc/model.md)\n"
            "      --flow-window=T      --model flow: re-solve the flows' rates at most once\n"
            "                           per T of virtual time (e.g. 10ns, 0.1us; default 0:\n"
            "                           after every change, exact); a change waits up to T\n"
            "                           for its solve (doc/model.md, \"Flow level: solve\n"
            "                           window\")\n"
            "      --format=F           --timing: the per-rank table as table (default), csv or\n"
            "                           json\n"
            "      --series=FILE        --timing: snapshots of every counter into FILE at every\n"
            "                           --interval=T of virtual time (e.g. 1ms, 500us) and at\n"
            "                           the end (doc/series.md; `torusemu series FILE`)\n"
            "      --figures=DIR        --timing, --interval, Gemini: then `torusemu analyze\n"
            "                           -o DIR` of the series (seed 004's figures as CSV and\n"
            "                           PNG; the series is DIR/replay.tser without --series)\n"
            "  -q, --quiet              nothing but errors and results (no summary, no\n"
            "                           progress line)\n"
            "  -h, --help               print this help and exit\n"
            "      --version            print the version and exit\n"
            "\n"
            "Patterns (doc/replay.md):\n"
            "  fft        3-D FFT transposes on a 2-D grid: --grid=AxB (B rows of A ranks),\n"
            "             --size=N (N^3 double-complex points), --phase=1|2 (default both)\n"
            "  halo       MiniGhost halo exchange: --grid=XxYxZ, --size=n (cells per rank and\n"
            "             dimension, 100), --vars=V (20), --block=BXxBYxBZ (rank bricks)\n"
            "  gpcnet     GPCNeT's load test (10 nodes or more): --fraction=F (canary nodes,\n"
            "             0.2), --seed=S (node draw), --bytes=B the bandwidth canary's\n"
            "             messages (128K); --timing: --steps=K iterations per canary test\n"
            "  random, transpose, tornado, bisection, neighbor\n"
            "             synthetic traffic: --bytes=B (4096; K, M, G allowed), --seed=S\n"
            "             (random), --grid=XxYxZ (neighbor: periodic rank grid; default a ring)\n"
            "  --steps=K  repeat K times (default 1)\n"
            "\n"
            "Example:\n"
            "  torusemu replay --machine=midplane --ranks-per-node=16 --pattern=fft \\\n"
            "      --grid=16x512 --size=512 --phase=1\n");
}

/* A positive integer up to max. */
static int parse_u64(const char *s, uint64_t max, uint64_t *out)
{
    return cli_parse_uint(s, out) != 0 || *out == 0 || *out > max ? -1 : 0;
}

enum {
    OPT_MACHINE = 'm',
    OPT_NP = 'n',
    OPT_QUIET = 'q',
    OPT_RPN = CLI_OPT_FIRST_LONG,
    OPT_MAP,
    OPT_KEEP,
    OPT_PATTERN,
    OPT_GRID,
    OPT_SIZE,
    OPT_VARS,
    OPT_BLOCK,
    OPT_PHASE,
    OPT_BYTES,
    OPT_STEPS,
    OPT_FRACTION,
    OPT_SEED,
    OPT_TRACE,
    OPT_THREADS,
    OPT_REPLACE,
    OPT_TIMING,
    OPT_COMPUTE_SCALE,
    OPT_MPI_COSTS,
    OPT_COMPUTE,
    OPT_SERIES,
    OPT_INTERVAL,
    OPT_ROUTING,
    OPT_TRAIN,
    OPT_WHOLE_TRAINS,
    OPT_MIX,
    OPT_FIGURES,
    OPT_MODEL,
    OPT_FLOW_WINDOW
};

static const struct option options[] = {
    CLI_COMMON_OPTIONS,
    {"machine", required_argument, NULL, OPT_MACHINE},
    {"np", required_argument, NULL, OPT_NP},
    {"ranks-per-node", required_argument, NULL, OPT_RPN},
    {"map", required_argument, NULL, OPT_MAP},
    {"keep", required_argument, NULL, OPT_KEEP},
    {"quiet", no_argument, NULL, OPT_QUIET},
    {"pattern", required_argument, NULL, OPT_PATTERN},
    {"grid", required_argument, NULL, OPT_GRID},
    {"size", required_argument, NULL, OPT_SIZE},
    {"vars", required_argument, NULL, OPT_VARS},
    {"block", required_argument, NULL, OPT_BLOCK},
    {"phase", required_argument, NULL, OPT_PHASE},
    {"bytes", required_argument, NULL, OPT_BYTES},
    {"steps", required_argument, NULL, OPT_STEPS},
    {"fraction", required_argument, NULL, OPT_FRACTION},
    {"seed", required_argument, NULL, OPT_SEED},
    {"trace", required_argument, NULL, OPT_TRACE},
    {"threads", required_argument, NULL, OPT_THREADS},
    {"replace", no_argument, NULL, OPT_REPLACE},
    {"timing", no_argument, NULL, OPT_TIMING},
    {"compute-scale", required_argument, NULL, OPT_COMPUTE_SCALE},
    {"mpi-costs", required_argument, NULL, OPT_MPI_COSTS},
    {"compute", required_argument, NULL, OPT_COMPUTE},
    {"series", required_argument, NULL, OPT_SERIES},
    {"interval", required_argument, NULL, OPT_INTERVAL},
    {"routing", required_argument, NULL, OPT_ROUTING},
    {"train", required_argument, NULL, OPT_TRAIN},
    {"whole-trains", no_argument, NULL, OPT_WHOLE_TRAINS},
    {"mix", required_argument, NULL, OPT_MIX},
    {"figures", required_argument, NULL, OPT_FIGURES},
    {"model", required_argument, NULL, OPT_MODEL},
    {"flow-window", required_argument, NULL, OPT_FLOW_WINDOW},
    CLI_FORMAT_OPTION,
    {NULL, 0, NULL, 0},
};

/* A pattern parameter (--grid, ..., --compute) into o->pattern. */
static int pattern_option(int opt, const char *v, replay_opts *o)
{
    char why[256];
    for (const struct option *op = options; op->name != NULL; op++) {
        if (op->val == opt) {
            o->timing_only |= opt == OPT_COMPUTE;
            o->pattern_params = 1;
            int rc = pattern_param(op->name, v, &o->pattern, why, sizeof why);
            return rc == 0 ? 0 : rc < 0 ? fail("--%s", why) : fail("unknown option (see --help)");
        }
    }
    return fail("unknown option (see --help)");
}

/* Value of one option into o; 0, or CLI_EXIT_USAGE after saying what is
 * wrong. */
static int set_option(int opt, const char *v, replay_opts *o)
{
    temu_pattern *p = &o->pattern;
    uint64_t u;
    char *end;
    switch (opt) {
    case OPT_MACHINE:
        o->spec = v;
        return 0;
    case OPT_MAP:
        o->map = v;
        o->np_given = 1;
        return 0;
    case OPT_KEEP:
        o->keep = v;
        return 0;
    case OPT_TRACE:
        o->trace = v;
        return 0;
    case OPT_MIX:
        o->mixfile = v;
        return 0;
    case OPT_FIGURES:
        o->timing_only = 1;
        o->figures = v;
        return 0;
    case OPT_REPLACE:
        o->replace = 1;
        return 0;
    case OPT_TIMING:
        o->timing.on = 1;
        return 0;
    case OPT_COMPUTE_SCALE:
        errno = 0;
        o->timing.compute_scale = strtod(v, &end);
        o->timing_only = 1;
        if (end == v || *end != '\0' || errno != 0 || !(o->timing.compute_scale >= 0) ||
            o->timing.compute_scale > 1e6) {
            return fail("--compute-scale '%s': expected a factor from 0 to 1e6", v);
        }
        return 0;
    case OPT_MPI_COSTS:
        o->timing_only = 1;
        if (strcmp(v, "on") != 0 && strcmp(v, "off") != 0) {
            return fail("--mpi-costs '%s': expected on or off", v);
        }
        o->timing.no_mpi_costs = strcmp(v, "off") == 0;
        return 0;
    case OPT_SERIES:
        o->timing_only = 1;
        o->timing.series = v;
        return 0;
    case OPT_INTERVAL:
        o->timing_only = 1;
        return cli_parse_time_ps(v, &o->timing.interval_ps) != 0
                   ? fail("--interval '%s': expected " CLI_TIME_EXPECTED, v)
                   : 0;
    case OPT_ROUTING:
        o->timing_only = 1;
        if (strcmp(v, "deterministic") == 0 || strcmp(v, "adaptive") == 0) {
            o->timing.routing = v[0] == 'd' ? TEMU_TM_DETERMINISTIC + 1 : TEMU_TM_ADAPTIVE + 1;
            return 0;
        }
        return fail("--routing '%s': expected deterministic or adaptive", v);
    case OPT_TRAIN:
        o->timing_only = 1;
        if (parse_u64(v, REPLAY_TRAIN_MAX, &u) != 0) {
            return fail("--train '%s': expected a number of packets from 1 to %d", v,
                        REPLAY_TRAIN_MAX);
        }
        o->timing.train = (uint32_t)u;
        return 0;
    case OPT_WHOLE_TRAINS:
        o->timing_only = 1;
        o->timing.whole_trains = 1;
        return 0;
    case OPT_MODEL:
        o->model = v;
        return temu_tm_level_parse(v, &o->timing.level, NULL) != TEMU_OK
                   ? fail("--model '%s': expected packet or flow (the timing model's level)", v)
                   : 0;
    case OPT_FLOW_WINDOW:
        o->flow_window = v;
        if (strcmp(v, "0") == 0) {
            o->timing.flow_window_ps = 0;
            return 0;
        }
        return cli_parse_time_ps(v, &o->timing.flow_window_ps) != 0
                   ? fail("--flow-window '%s': expected 0 or " CLI_TIME_EXPECTED, v)
                   : 0;
    case CLI_OPT_FORMAT:
        o->timing_only = 1;
        return cli_parse_format(v, &o->timing.format);
    case OPT_THREADS:
        if (parse_u64(v, 64, &u) != 0) {
            return fail("--threads '%s': expected 1..64", v);
        }
        o->threads = (int)u;
        o->timing.threads = (uint32_t)u; /* --timing: the parallel engine's regions */
        return 0;
    case OPT_QUIET:
        o->quiet = 1;
        o->timing.quiet = 1;
        return 0;
    case OPT_PATTERN:
        o->pattern_name = v;
        p->kind = temu_pattern_parse_name(v);
        return p->kind < 0 ? fail("unknown pattern '%s' (see --help)", v) : 0;
    case OPT_RPN:
        o->np_given = 1;
        return parse_u64(v, INT32_MAX, &o->rpn)
                   ? fail("--ranks-per-node '%s': expected an integer from 1 to %d", v, INT32_MAX)
                   : 0;
    case OPT_NP:
        o->np_given = 1;
        return parse_u64(v, INT32_MAX, &o->np)
                   ? fail("-np '%s': expected a number of ranks from 1 to %d", v, INT32_MAX)
                   : 0;
    default:
        return pattern_option(opt, v, o);
    }
}
static int parse_args(int argc, char **argv, replay_opts *o, int *done)
{
    int c, rc;
    memset(o, 0, sizeof *o);
    o->rpn = 1;
    o->pattern.kind = -1;
    o->timing.compute_scale = 1.0;
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    o->threads = cpus > 1 ? (cpus < 64 ? (int)cpus : 64) : 1;
    /* long_only: "-np P" as MPI's launchers and `run` spell it */
    cli_begin_long_only();
    while ((c = cli_next(argc, argv, ":hm:n:q", options, usage, done, &rc)) != -1) {
        if (*done) {
            return rc;
        }
        rc = set_option(c, optarg, o);
        if (rc != 0) {
            return rc;
        }
    }
    if (optind < argc) {
        return fail("unexpected argument '%s' (see --help)", argv[optind]);
    }
    if (o->replace && o->keep == NULL) {
        return fail("--replace goes with --keep FILE");
    }
    if (o->model != NULL && !o->timing.on) {
        return fail("--model goes with --timing (without it no timing model runs: the replay "
                    "counts the volume only)");
    }
    if (o->flow_window != NULL && (!o->timing.on || o->timing.level != TEMU_TM_FLOW)) {
        return fail("--flow-window goes with --timing --model flow (the flow level's solves)");
    }
    if (o->timing.level == TEMU_TM_FLOW && o->timing.train > 1) {
        return fail("--train: packet trains are the packet model's; not with --model flow");
    }
    if (o->timing_only && !o->timing.on) {
        return fail("--compute-scale, --compute, --mpi-costs, --format, --routing, --train, "
                    "--whole-trains, --series, --interval and --figures go with --timing");
    }
    if (o->timing.whole_trains && o->timing.train < 2) {
        return fail("--whole-trains goes with --train=N, N > 1 (trains of single packets cannot "
                    "split)");
    }
    if (o->figures != NULL && o->timing.interval_ps == 0) {
        return fail("--figures DIR needs --interval T (the series' sampling interval)");
    }
    if ((o->timing.series == NULL) != (o->timing.interval_ps == 0) && o->figures == NULL) {
        return fail("--series FILE and --interval T go together");
    }
    if ((o->timing.series != NULL || o->figures != NULL) &&
        o->pattern.kind == TEMU_PATTERN_GPCNET) {
        return fail("--series, --figures: not with the gpcnet pattern (two runs, isolated and "
                    "congested)");
    }
    if (o->spec == NULL) {
        return fail("missing --machine=SPEC (see `torusemu machine --presets`)");
    }
    int sources = (o->pattern_name != NULL) + (o->trace != NULL) + (o->mixfile != NULL);
    if (sources != 1) {
        return sources == 0 ? fail("missing --pattern=NAME, --trace=DIR or --mix=FILE (see --help)")
                            : fail("--pattern, --trace and --mix exclude each other");
    }
    if (o->mixfile != NULL && (o->np_given || o->pattern_params)) {
        return fail("--mix: ranks, placement and pattern parameters go in the mix file, not in "
                    "-np, --map, --ranks-per-node, --grid, ...");
    }
    return 0;
}

static double seconds_since(const struct timespec *t0)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)(t.tv_sec - t0->tv_sec) + 1e-9 * (double)(t.tv_nsec - t0->tv_nsec);
}

/* ------------------------------------------------------------ the command */

/* The mix's jobs one after the other (each on its ranks, with threads). */
static temu_status run_mix(temu_session *s, const replay_opts *o, temu_replay_stats *rs,
                           temu_error *err)
{
    temu_status st = TEMU_OK;
    memset(rs, 0, sizeof *rs);
    for (int i = 0; i < o->mix.njobs && st == TEMU_OK; i++) {
        temu_replay_stats one = {0}; /* partial counts are added on failure too */
        st = temu_pattern_run(s, &o->mix.job[i].p, o->threads, replay_watch_ops, NULL, &one, err);
        if (st != TEMU_OK) {
            char at[PATH_MAX + 16];
            mix_label(o->mixfile, &o->mix.job[i], at, sizeof at);
            cli_err_prefix(err, at);
        }
        rs->sends += one.sends;
        rs->recvs += one.recvs;
        rs->rma += one.rma;
        rs->colls += one.colls;
        rs->messages += one.messages;
    }
    return st;
}

/* The patterns of a timed replay: the mix's jobs, or the one pattern. */
static int timed(temu_session *s, const replay_opts *o, temu_replay_stats *rs)
{
    if (o->mixfile == NULL) {
        return replay_timing_run(s, o->trace, &o->pattern, 1, &o->timing, rs);
    }
    int n = o->mix.njobs;
    temu_pattern *p = malloc((size_t)n * sizeof *p);
    char(*label)[PATH_MAX + 16] = malloc((size_t)n * sizeof *label);
    const char **labels = malloc((size_t)n * sizeof *labels);
    int rc = 1;
    if (p == NULL || label == NULL || labels == NULL) {
        rc = fail("out of memory");
    } else {
        for (int i = 0; i < n; i++) {
            p[i] = o->mix.job[i].p;
            mix_label(o->mixfile, &o->mix.job[i], label[i], sizeof label[i]);
            labels[i] = label[i];
        }
        replay_timing t = o->timing;
        t.labels = labels;
        rc = replay_timing_run(s, NULL, p, n, &t, rs);
    }
    free(p);
    free(label);
    free(labels);
    return rc;
}

static int replay_into(temu_session *s, const replay_opts *o)
{
    temu_replay *r = NULL;
    temu_error err;
    temu_replay_stats rs = {0};
    struct timespec start;
    temu_status st;
    clock_gettime(CLOCK_MONOTONIC, &start);
    if (o->timing.on) { /* one stream in virtual time */
        int rc = timed(s, o, &rs);
        if (rc != 0) {
            return rc;
        }
        st = TEMU_OK;
    } else if (o->mixfile != NULL) { /* jobs one after the other, counts the same */
        st = run_mix(s, o, &rs, &err);
    } else if (o->trace == NULL) { /* patterns: a share of the ranks per thread */
        st = temu_pattern_run(s, &o->pattern, o->threads, replay_watch_ops, NULL, &rs, &err);
    } else { /* a trace is one ordered stream */
        st = temu_replay_create(s, &r, &err);
        if (st == TEMU_OK) {
            st = temu_otf2_replay(o->trace, r, replay_watch_ops, NULL, &err);
        }
        if (st == TEMU_OK) {
            st = temu_replay_finish(r, &err);
        }
        if (r != NULL) {
            temu_replay_get_stats(r, &rs);
        }
        temu_replay_free(r);
    }
    replay_watch_break();
    if (st != TEMU_OK) {
        fprintf(stderr, "torusemu replay: %s\n", err.message);
        return 1;
    }
    if (!o->quiet) {
        const temu_machine *m = temu_session_machine(s);
        fprintf(stderr, "torusemu: %" PRIu64 " ranks on %s%s%s%s, %" PRIu64 " per node; %s %s\n",
                o->np, m->name, m->preset[0] ? " (" : "", m->preset, m->preset[0] ? ")" : "",
                o->rpn,
                o->trace != NULL     ? "trace"
                : o->mixfile != NULL ? "mix"
                                     : "pattern",
                o->trace != NULL     ? o->trace
                : o->mixfile != NULL ? o->mixfile
                                     : o->pattern_name);
        /* gpcnet: the last of its timing runs, whose counts the store holds */
        int gpcnet = o->timing.on && o->pattern.kind == TEMU_PATTERN_GPCNET && o->mixfile == NULL;
        fprintf(stderr,
                "torusemu: %s %" PRIu64 " sends, %" PRIu64 " one-sided operations, %" PRIu64
                " collective calls (%" PRIu64 " messages) in %.2f s\n",
                gpcnet ? "the last congested run (the Allreduce test's) replayed" : "replayed",
                rs.sends, rs.rma, rs.colls, rs.messages, seconds_since(&start));
    }
    return 0;
}

/* The ranks' placement: the mix file's, or -np P ranks by --map.  0, or
 * the exit code after saying why. */
static int build_mapping(replay_opts *o, const temu_machine *m, temu_mapping *map)
{
    temu_error err;
    if (o->mixfile != NULL) {
        char why[1024];
        if (mix_read(o->mixfile, m, &o->mix, why, sizeof why) != 0) {
            return fail("--mix %s", why);
        }
        *map = o->mix.map; /* the mix keeps it: mix_free */
        o->np = (uint64_t)map->nranks;
        o->rpn = (uint64_t)map->ranks_per_node;
        return 0;
    }
    uint64_t slots = (uint64_t)m->nnodes * o->rpn;
    if (o->np == 0 && o->trace != NULL) {
        int32_t n = temu_otf2_ranks(o->trace, &err);
        if (n < 0) {
            return cli_fail_err(&err);
        }
        o->np = (uint64_t)n;
    }
    if (o->np == 0) {
        o->np = slots;
    }
    if (o->np > slots || o->np > INT32_MAX) {
        return fail("-np %" PRIu64 " does not fit %s: %lld nodes x %" PRIu64 " per node = %" PRIu64
                    " ranks at most",
                    o->np, m->preset[0] ? m->preset : m->name, (long long)m->nnodes, o->rpn, slots);
    }
    if (temu_mapping_build(m, (int32_t)o->np, (int32_t)o->rpn, o->map, map, &err) != TEMU_OK) {
        return cli_fail_err(&err);
    }
    return 0;
}

/* --figures DIR: the series goes to DIR (made now) unless --series names
 * it; path receives it.  0, or the exit code after saying why. */
static int figures_dir(replay_opts *o, const temu_machine *m, char *path, size_t len)
{
    if (temu_family_info_get(m->system)->tiles == 0) {
        return fail("--figures: seed 004's figures are of Gemini d-links; %s is a %s machine",
                    o->spec, temu_system_name(m->system));
    }
    if (mkdir(o->figures, 0777) != 0 && errno != EEXIST) {
        return fail("--figures: cannot make the directory '%s': %s", o->figures, strerror(errno));
    }
    if (o->timing.series == NULL) {
        if ((size_t)snprintf(path, len, "%s/replay.tser", o->figures) >= len) {
            return fail("--figures: the directory name '%s' is too long", o->figures);
        }
        o->timing.series = path;
    }
    return 0;
}

/* `torusemu analyze -o DIR SERIES`: the figures, their paths on stdout. */
static int analyze_figures(const replay_opts *o)
{
    char *argv[] = {"analyze", "-o", (char *)o->figures, (char *)o->timing.series, NULL};
    fflush(stdout);
    return cmd_analyze(4, argv);
}

int cmd_replay(int argc, char **argv)
{
    replay_opts o;
    temu_machine m;
    temu_mapping map = {0};
    temu_error err;
    temu_session *s = NULL;
    char store[PATH_MAX], tmpdir[PATH_MAX], series[PATH_MAX];

    int done = 0;
    int rc = parse_args(argc, argv, &o, &done);
    if (rc != 0 || done) {
        return rc;
    }
    if (temu_machine_parse(o.spec, &m, &err) != TEMU_OK) {
        return cli_fail_err(&err);
    }
    if ((rc = build_mapping(&o, &m, &map)) != 0) {
        return rc;
    }
    /* after the mix file is read: a refused one leaves no directory behind */
    if (o.figures != NULL && (rc = figures_dir(&o, &m, series, sizeof series)) != 0) {
        temu_mapping_free(&map); /* the mix's too */
        o.mix.map.slot = NULL;
        mix_free(&o.mix);
        return rc;
    }
    sigset_t unheld;
    replay_watch_hold(&unheld);
    int src = cli_store_path("replay", o.keep, store, tmpdir, sizeof store);
    temu_status st = TEMU_OK;
    if (src == 0) {
        /* a signal from now on removes a temporary store and its
         * directory; a --keep FILE only once it is ours (below) */
        replay_watch_begin(o.keep == NULL ? store : NULL, tmpdir, o.quiet);
    }
    replay_watch_release(&unheld);
    if (src == 0) {
        /* a timed replay counts PEVT_NW_CYCLES in virtual time */
        unsigned flags =
            (o.replace ? TEMU_CREATE_REPLACE : 0) | (o.timing.on ? TEMU_CREATE_VIRTUAL_TIME : 0);
        st = temu_session_create_ex(store, &m, &map, flags, &s, &err);
    }
    temu_mapping_free(&map); /* the mix's too: its jobs stay in o.mix until the end */
    o.mix.map.slot = NULL;
    if (src != 0 || st != TEMU_OK) {
        mix_free(&o.mix);
        if (src == 0 && tmpdir[0] != '\0') {
            cli_temp_dir_remove(tmpdir);
        }
        if (src == 0) {
            replay_watch_end();
        }
        return src != 0 ? src : cli_fail_err(&err);
    }
    if (o.keep != NULL) {
        replay_watch_store(store); /* half a replay is no result: removed as on an error */
    }
    rc = replay_into(s, &o);
    if (rc == 0 && o.keep != NULL) {
        replay_watch_store(NULL); /* complete: kept from now on */
    }
    mix_free(&o.mix);
    if (rc == 0 && !o.quiet) {
        cli_traffic_summary(s, o.keep != NULL ? store : NULL);
    }
    temu_session_close(s);
    if (o.keep == NULL || rc != 0) {
        unlink(store);
    }
    if (tmpdir[0] != '\0') {
        cli_temp_dir_remove(tmpdir);
    }
    replay_watch_end();
    if (rc == 0 && o.figures != NULL) {
        rc = analyze_figures(&o);
    }
    return rc;
}
