/*
 * cmd_replay.c - `torusemu replay`: replay a built-in communication
 * pattern onto an emulated machine, without processes, into a store like
 * the one `torusemu run` leaves (doc/replay.md, doc/cli.md).
 *
 *   torusemu replay --machine SPEC [--ranks-per-node N] [--map HOW]
 *                   [--keep FILE] [-np P] --pattern NAME [pattern options]
 */
#define _GNU_SOURCE 1
#include "cmd_replay.h"
#include "cli_common.h"
#include "otf2_trace.h"

#include "torusemu.h"
#include "torusemu_replay.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

typedef struct replay_opts {
    const char *spec, *map, *keep;
    uint64_t np, rpn;
    int quiet;
    int threads; /* --threads: pattern replays */
    const char *pattern_name;
    const char *trace; /* --trace DIR */
    temu_pattern pattern;
} replay_opts;

static int fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int fail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    temu_cli_vfail("replay", fmt, ap);
    va_end(ap);
    return 2;
}

static void usage(FILE *f)
{
    fprintf(f,
            "usage: torusemu replay --machine SPEC [--ranks-per-node N] [--map HOW] [--keep FILE]\n"
            "                       [-np P] [--quiet] (--pattern NAME [pattern options] | --trace DIR)\n"
            "Replay a communication pattern of P ranks (default: every slot, nodes x N), or an\n"
            "OTF2 trace (default P: the trace's ranks), onto the emulated machine SPEC without\n"
            "processes; counts land in a store as after `torusemu run`.\n"
            "  --trace DIR         an OTF2 archive (DIR/traces.otf2, or the anchor file): one\n"
            "                      `torusemu run --trace` wrote, or another tool (Score-P)\n"
            "  --ranks-per-node N  ranks sharing a node (default 1)\n"
            "  --map HOW           rank placement: a dimension order (ABCDET, TABCDE, XYZT),\n"
            "                      a map file, or random:SEED (doc/mapping.md)\n"
            "  --keep FILE         keep the store in FILE (default: a temporary store)\n"
            "  --quiet             no summary\n"
            "Patterns (doc/replay.md):\n"
            "  fft        3-D FFT transposes on a 2-D grid: --grid AxB (B rows of A ranks),\n"
            "             --size N (N^3 double-complex points), --phase 1|2 (default both)\n"
            "  halo       MiniGhost halo exchange: --grid XxYxZ, --size n (cells per rank and\n"
            "             dimension, 100), --vars V (20), --block BXxBYxBZ (rank bricks)\n"
            "  gpcnet     GPCNeT congestors and canaries: --fraction F (canaries, 0.2), --seed S\n"
            "  random, transpose, tornado, bisection, neighbor\n"
            "             synthetic traffic: --bytes B (4096), --seed S (random),\n"
            "             --grid XxYxZ (neighbor: periodic rank grid, default a ring)\n"
            "  --steps K          repeat K times (default 1)\n"
            "  --threads T        replay a pattern on T threads (default: the CPUs online)\n");
}

static int parse_u64(const char *s, uint64_t max, uint64_t *out)
{
    char *end;
    if (s == NULL || *s < '0' || *s > '9') {
        return -1;
    }
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno != 0 || v == 0 || v > max) {
        return -1;
    }
    /* binary suffixes for sizes */
    if (*end == 'K' || *end == 'M' || *end == 'G') {
        unsigned shift = *end == 'K' ? 10 : *end == 'M' ? 20 : 30;
        if (v > (max >> shift)) {
            return -1;
        }
        v <<= shift;
        end++;
    }
    if (*end != '\0') {
        return -1;
    }
    *out = v;
    return 0;
}

/* "AxB" or "AxBxC" into up to 3 positive dimensions; -1 if malformed. */
static int parse_shape(const char *s, int32_t *dims)
{
    int n = 0;
    const char *p = s;
    dims[0] = dims[1] = dims[2] = 0;
    while (n < 3) {
        char *end;
        errno = 0;
        long v = strtol(p, &end, 10);
        if (end == p || errno != 0 || v <= 0 || v > INT32_MAX) {
            return -1;
        }
        dims[n++] = (int32_t)v;
        if (*end == '\0') {
            return 0;
        }
        if (*end != 'x' || n == 3) {
            return -1;
        }
        p = end + 1;
    }
    return -1;
}

enum {
    OPT_MACHINE = 256,
    OPT_RPN,
    OPT_MAP,
    OPT_KEEP,
    OPT_QUIET,
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
    OPT_NP,
    OPT_TRACE,
    OPT_THREADS,
    OPT_HELP
};

static const struct option options[] = {
    {"machine", required_argument, NULL, OPT_MACHINE},
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
    {"np", required_argument, NULL, OPT_NP},
    {"trace", required_argument, NULL, OPT_TRACE},
    {"threads", required_argument, NULL, OPT_THREADS},
    {"help", no_argument, NULL, OPT_HELP},
    {NULL, 0, NULL, 0},
};

/* Value of one option into o; 0, or 2 after saying what is wrong. */
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
        return 0;
    case OPT_KEEP:
        o->keep = v;
        return 0;
    case OPT_TRACE:
        o->trace = v;
        return 0;
    case OPT_THREADS:
        if (parse_u64(v, 64, &u) != 0) {
            return fail("--threads '%s': expected 1..64", v);
        }
        o->threads = (int)u;
        return 0;
    case OPT_QUIET:
        o->quiet = 1;
        return 0;
    case OPT_PATTERN:
        o->pattern_name = v;
        p->kind = temu_pattern_parse_name(v);
        return p->kind < 0 ? fail("unknown pattern '%s' (see --help)", v) : 0;
    case OPT_RPN:
        return parse_u64(v, INT32_MAX, &o->rpn) ? fail("--ranks-per-node '%s': expected a positive integer", v) : 0;
    case OPT_NP:
        return parse_u64(v, INT32_MAX, &o->np) ? fail("-np '%s': expected a positive number of ranks", v) : 0;
    case OPT_GRID:
        return parse_shape(v, p->grid) ? fail("--grid '%s': expected AxB or XxYxZ", v) : 0;
    case OPT_BLOCK:
        return parse_shape(v, p->block) ? fail("--block '%s': expected XxYxZ", v) : 0;
    case OPT_SIZE:
        return parse_u64(v, 1000000, &p->size) ? fail("--size '%s': expected a positive integer", v) : 0;
    case OPT_BYTES:
        return parse_u64(v, UINT32_MAX, &p->bytes) ? fail("--bytes '%s': expected a positive size (K, M, G allowed)", v) : 0;
    case OPT_VARS:
        if (parse_u64(v, 100000, &u) != 0) {
            return fail("--vars '%s': expected a positive integer", v);
        }
        p->vars = (int32_t)u;
        return 0;
    case OPT_STEPS:
        if (parse_u64(v, 1000000, &u) != 0) {
            return fail("--steps '%s': expected 1..1000000", v);
        }
        p->steps = (int32_t)u;
        return 0;
    case OPT_PHASE:
        if (strcmp(v, "1") != 0 && strcmp(v, "2") != 0) {
            return fail("--phase '%s': expected 1 or 2", v);
        }
        p->phase = v[0] - '0';
        return 0;
    case OPT_FRACTION:
        errno = 0;
        p->fraction = strtod(v, &end);
        if (end == v || *end != '\0' || errno != 0 || !(p->fraction > 0 && p->fraction < 1)) {
            return fail("--fraction '%s': expected a share between 0 and 1", v);
        }
        return 0;
    case OPT_SEED:
        errno = 0;
        p->seed = strtoull(v, &end, 10);
        return end == v || *end != '\0' || errno != 0 ? fail("--seed '%s': expected an integer", v) : 0;
    default:
        return fail("unknown option (see --help)");
    }
}

static int parse_args(int argc, char **argv, replay_opts *o)
{
    memset(o, 0, sizeof *o);
    o->rpn = 1;
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    o->threads = cpus > 1 ? (cpus < 64 ? (int)cpus : 64) : 1;
    o->pattern.kind = -1;
    /* "-np P" as `run` spells it: one dash, two letters */
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "-np") == 0) {
            argv[i] = "--np";
        }
    }
    opterr = 0;
    optind = 1;
    int opt;
    while ((opt = getopt_long(argc, argv, "n:", options, NULL)) != -1) {
        if (opt == '?') {
            return fail("unknown option or missing value: '%s' (see --help)", argv[optind - 1]);
        }
        if (opt == 'n') {
            opt = OPT_NP;
        }
        if (opt == OPT_HELP) {
            usage(stdout);
            return 1;
        }
        int rc = set_option(opt, optarg, o);
        if (rc != 0) {
            return rc;
        }
    }
    if (optind < argc) {
        return fail("unexpected argument '%s' (see --help)", argv[optind]);
    }
    if (o->spec == NULL) {
        return fail("missing --machine SPEC (see `torusemu machine --presets`)");
    }
    if ((o->pattern_name == NULL) == (o->trace == NULL)) {
        return fail(o->trace == NULL ? "missing --pattern NAME or --trace DIR (see --help)"
                                     : "--pattern and --trace exclude each other");
    }
    return 0;
}

/* ------------------------------------------------------------ progress */

typedef struct progress {
    struct timespec start;
    double last;
    int shown;
} progress;

static double seconds_since(const struct timespec *t0)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)(t.tv_sec - t0->tv_sec) + 1e-9 * (double)(t.tv_nsec - t0->tv_nsec);
}

/* A percentage on stderr for replays longer than a second, twice a second. */
static void show_progress(void *ctx, uint64_t done, uint64_t total)
{
    progress *pr = ctx;
    double t = seconds_since(&pr->start);
    if (t < 1.0 || t - pr->last < 0.5 || total == 0) {
        return;
    }
    pr->last = t;
    pr->shown = 1;
    fprintf(stderr, "\rtorusemu replay: %3.0f%% (%" PRIu64 " of %" PRIu64 " rank operations)",
            100.0 * (double)done / (double)total, done, total);
}

/* ------------------------------------------------------------ the command */

static int replay_into(temu_session *s, const replay_opts *o)
{
    temu_replay *r = NULL;
    temu_error err;
    temu_replay_stats rs = {0};
    progress pr = {{0, 0}, 0, 0};
    temu_status st;
    clock_gettime(CLOCK_MONOTONIC, &pr.start);
    if (o->trace == NULL) { /* patterns: a share of the ranks per thread */
        st = temu_pattern_run(s, &o->pattern, o->threads, show_progress, &pr, &rs, &err);
    } else { /* a trace is one ordered stream */
        st = temu_replay_create(s, &r, &err);
        if (st == TEMU_OK) {
            st = temu_otf2_replay(o->trace, r, show_progress, &pr, &err);
        }
        if (st == TEMU_OK) {
            st = temu_replay_finish(r, &err);
        }
        if (r != NULL) {
            temu_replay_get_stats(r, &rs);
        }
        temu_replay_free(r);
    }
    if (pr.shown) {
        fputc('\n', stderr);
    }
    if (st != TEMU_OK) {
        fprintf(stderr, "torusemu replay: %s\n", err.message);
        return 1;
    }
    if (!o->quiet) {
        const temu_machine *m = temu_session_machine(s);
        fprintf(stderr,
                "torusemu: %" PRIu64 " ranks on %s%s%s%s, %" PRIu64 " per node; %s %s\n", o->np,
                m->name, m->preset[0] ? " (" : "", m->preset, m->preset[0] ? ")" : "", o->rpn,
                o->trace != NULL ? "trace" : "pattern",
                o->trace != NULL ? o->trace : o->pattern_name);
        fprintf(stderr,
                "torusemu: replayed %" PRIu64 " sends, %" PRIu64 " one-sided operations, %" PRIu64
                " collective calls in %.2f s\n",
                rs.sends, rs.rma, rs.colls, seconds_since(&pr.start));
    }
    return 0;
}

int temu_cli_replay(int argc, char **argv)
{
    replay_opts o;
    temu_machine m;
    temu_mapping map;
    temu_error err;
    temu_session *s = NULL;
    char store[PATH_MAX];

    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    int rc = parse_args(argc, argv, &o);
    if (rc != 0) {
        return rc == 1 ? 0 : 2;
    }
    if (temu_machine_parse(o.spec, &m, &err) != TEMU_OK) {
        return fail("%s", err.message);
    }
    uint64_t slots = (uint64_t)m.nnodes * o.rpn;
    if (o.np == 0 && o.trace != NULL) {
        int32_t n = temu_otf2_ranks(o.trace, &err);
        if (n < 0) {
            return fail("%s", err.message);
        }
        o.np = (uint64_t)n;
    }
    if (o.np == 0) {
        o.np = slots;
    }
    if (o.np > slots || o.np > INT32_MAX) {
        return fail("-np %" PRIu64 " does not fit %s: %lld nodes x %" PRIu64 " per node = %" PRIu64
                    " ranks at most",
                    o.np, m.preset[0] ? m.preset : m.name, (long long)m.nnodes, o.rpn, slots);
    }
    if (temu_mapping_build(&m, (int32_t)o.np, (int32_t)o.rpn, o.map, &map, &err) != TEMU_OK) {
        return fail("%s", err.message);
    }
    if (o.keep != NULL) {
        if (temu_cli_absolute_path(o.keep, store, sizeof store) != 0) {
            temu_mapping_free(&map);
            return fail("cannot resolve '%s': %s", o.keep, strerror(errno));
        }
    } else {
        temu_cli_temp_store(store, sizeof store, "replay");
    }
    temu_status st = temu_session_create(store, &m, &map, &s, &err);
    temu_mapping_free(&map);
    if (st != TEMU_OK) {
        return fail("%s", err.message);
    }
    rc = replay_into(s, &o);
    if (rc == 0 && !o.quiet) {
        temu_cli_traffic_summary(s, o.keep != NULL ? store : NULL);
    }
    temu_session_close(s);
    if (o.keep == NULL || rc != 0) {
        unlink(store);
    }
    return rc;
}
