/*
 * cmd_run.c - `torusemu run`: run an MPI program on an emulated machine.
 *
 *   torusemu run --machine=SPEC [--ranks-per-node=N] [--map=HOW] [--keep=FILE]
 *                [--trace=DIR] [--virtual-time [--cpu-scale=F] [--host-clocks]
 *                [--model=LEVEL] [--threads=N] [--mpi-costs=on|off]]
 *                [--quiet] [--mpirun-arg=ARG]... [--mpirun-args="ARGS"]...
 *                -np P [--] PROGRAM [ARGS]
 *
 * Creates a session store with the rank mapping, starts Open MPI's mpirun
 * with the interposition library preloaded into every rank (and the flags
 * this host needs: --allow-run-as-root for root, --oversubscribe for more
 * ranks than cores), waits, prints a short summary on stderr and removes
 * the store unless --keep named it.  The program's exit status is passed
 * through.  doc/mpi.md and doc/cli.md describe it for users.
 */
#define _GNU_SOURCE 1
#include "cli.h"
#include "otf2_trace.h"
#include "run_hosts.h"
#include "run_launch.h"
#include "run_model.h"
#include "run_sample.h"
#include "torusemu_timing.h"

#include "run_env.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef TEMU_RUN_MPIRUN
#define TEMU_RUN_MPIRUN "mpirun"
#endif
#ifndef TEMU_RUN_LIBDIR
#define TEMU_RUN_LIBDIR "/usr/local/lib"
#endif

#define PRELOAD_NAME "libtorusemu_mpi.so"
#define MAX_EXTRA 64

typedef struct run_opts {
    const char *spec;
    const char *map;
    const char *keep;
    int replace;           /* --replace: --keep may replace an existing FILE */
    const char *trace;     /* --trace DIR */
    const char *series;    /* --series FILE */
    int64_t sample_ns;     /* --sample INTERVAL, host ns (0: none) */
    int vtime;             /* --virtual-time */
    const char *cpu_scale; /* --cpu-scale F (checked: a factor >= 0) */
    int host_clocks;       /* --host-clocks: the program's own clocks stay host time */
    const char *model;     /* --model LEVEL (checked: temu_tm_level_parse), or NULL */
    uint32_t level;        /* its temu_tm_level (default TEMU_TM_PACKET) */
    uint64_t threads;      /* --threads N: the packet model's regions (0: not given, 1) */
    const char *mpi_costs; /* --mpi-costs on|off (checked), or NULL: on */
    uint64_t np;
    uint64_t rpn;
    uint64_t split_hosts; /* --split-hosts N (0: not given) */
    const char *hostfile; /* --hostfile FILE, for mpirun */
    const char *hostlist; /* --host LIST, for mpirun */
    int quiet;
    char *extra[MAX_EXTRA]; /* --mpirun-arg(s) words, in order */
    int nextra;
    char **prog; /* PROGRAM ARGS..., NULL-terminated */
} run_opts;

/* "torusemu: run: <reason>"; fmt must be a string literal */
#define fail(...) cli_fail("run: " __VA_ARGS__)

static void usage(FILE *f)
{
    fprintf(f, "Usage: torusemu run [OPTION]... --machine=SPEC -np P [--] PROGRAM [ARG]...\n"
               "Run an MPI program (C or Fortran, unmodified) with P ranks placed on the\n"
               "emulated machine SPEC: every message it sends is routed and counted in a\n"
               "session store.  A summary (messages, bytes, busiest link) goes to standard\n"
               "error and the program's exit status is returned.\n"
               "\n"
               "Options:\n"
               "  -m, --machine=SPEC       the machine (see `torusemu machine --presets`)\n"
               "  -np, --np=P              number of MPI ranks (also -n P)\n"
               "      --ranks-per-node=N   ranks sharing a node (default 1)\n"
               "      --map=HOW            rank placement: a dimension order (ABCDET, XYZT), a\n"
               "                           map file, or random:SEED (doc/mapping.md); default:\n"
               "                           the system's\n"
               "      --keep=FILE          keep the store in FILE (inspect it with `torusemu\n"
               "                           dump FILE`); by default a temporary store is made\n"
               "                           in a private directory and removed\n"
               "      --replace            with --keep: replace FILE if it exists (without\n"
               "                           it an existing FILE is refused)\n"
               "      --trace=DIR          record the MPI communication as an OTF2 archive in\n"
               "                           DIR (DIR/traces.otf2; `torusemu replay --trace`)\n"
               "      --virtual-time       every rank keeps a virtual clock (its CPU time\n"
               "                           between MPI calls plus modelled communication);\n"
               "                           MPI_Wtime and the program's own clock_gettime,\n"
               "                           gettimeofday, time and timespec_get return it\n"
               "                           (doc/virtual-time.md)\n"
               "      --cpu-scale=F        with --virtual-time: CPU time counts F times\n"
               "                           (default 1; 0: communication only)\n"
               "      --host-clocks        with --virtual-time: only MPI_Wtime is virtual; the\n"
               "                           program's own clock reads keep host time\n"
               "      --model=LEVEL        with --virtual-time: the timing model's level,\n"
               "                           packet (default) or flow (doc/model.md)\n"
               "      --threads=N          with --virtual-time: the packet level's online model\n"
               "                           in N regions on N threads (1..64, default 1; the\n"
               "                           same results for every N, doc/model.md)\n"
               "      --mpi-costs=on|off   with --virtual-time: each message's MPI software\n"
               "                           costs (LogGP o_s, o_r, g; on-node copies), as a\n"
               "                           replay charges them (default on;\n"
               "                           doc/virtual-time.md)\n"
               "      --sample=INTERVAL    with --series: snapshot every counter every INTERVAL\n"
               "                           of host time (500ms, 2s, 1min); a live run has no\n"
               "                           virtual time\n"
               "      --series=FILE        the series file of the snapshots (`torusemu series`,\n"
               "                           `torusemu analyze`)\n"
               "      --split-hosts=N      behave as N hosts on this machine: a store per\n"
               "                           host, counter updates for another host's nodes\n"
               "                           sent to it over TCP, the stores gathered into\n"
               "                           one at the end (doc/mpi.md)\n"
               "      --hostfile=FILE      mpirun's hosts (passed on); with --split-hosts N the\n"
               "                           N hosts are real ones (doc/mpi.md)\n"
               "      --host=LIST          mpirun's hosts, host:slots,... (passed on)\n"
               "  -q, --quiet              no summary\n"
               "      --mpirun-arg=ARG     pass ARG to mpirun as one argument (repeatable)\n"
               "      --mpirun-args=ARGS   pass ARGS to mpirun, split into words at blanks;\n"
               "                           quotes group words (repeatable)\n"
               "  -h, --help               print this help and exit\n"
               "      --version            print the version and exit\n"
               "\n"
               "Environment:\n"
               "  TORUSEMU_MPIRUN   the mpirun to use (default: mpirun in PATH)\n"
               "  TORUSEMU_MPI_LIB  the interposition library (default: found next to torusemu)\n"
               "\n"
               "Example:\n"
               "  torusemu run --machine=midplane -np 8 --mpirun-args=\"-x OMP_NUM_THREADS=1\" \\\n"
               "      -- ./app\n");
}

static int parse_count(const char *s, uint64_t *out)
{
    if (cli_parse_uint(s, out) != 0 || *out == 0 || *out > INT32_MAX) {
        return -1;
    }
    return 0;
}

static int add_extra(run_opts *o, char *arg)
{
    if (o->nextra >= MAX_EXTRA) {
        return fail("too many mpirun arguments (at most %d)", MAX_EXTRA);
    }
    o->extra[o->nextra++] = arg;
    return 0;
}

/* --mpirun-args: split s into words at blanks, in place; '...' and "..."
 * group blanks into a word, a backslash takes the next character as is. */
static int add_extra_words(run_opts *o, char *s)
{
    char *out = s;
    while (*s != '\0') {
        while (*s == ' ' || *s == '\t' || *s == '\n') {
            s++;
        }
        if (*s == '\0') {
            break;
        }
        char *word = out;
        char quote = 0;
        while (*s != '\0' && (quote || (*s != ' ' && *s != '\t' && *s != '\n'))) {
            if (quote ? *s == quote : (*s == '\'' || *s == '"')) {
                quote = quote ? 0 : *s;
                s++;
            } else if (*s == '\\' && quote != '\'' && s[1] != '\0') {
                *out++ = s[1];
                s += 2;
            } else {
                *out++ = *s++;
            }
        }
        if (quote) {
            return fail("--mpirun-args: unbalanced %c quote", quote);
        }
        if (*s != '\0') {
            s++;
        }
        *out++ = '\0';
        if (add_extra(o, word) != 0) {
            return -1;
        }
    }
    return 0;
}

enum {
    OPT_RPN = CLI_OPT_FIRST_LONG,
    OPT_MAP,
    OPT_KEEP,
    OPT_REPLACE,
    OPT_TRACE,
    OPT_VTIME,
    OPT_CPU_SCALE,
    OPT_HOST_CLOCKS,
    OPT_MODEL,
    OPT_THREADS,
    OPT_MPI_COSTS,
    OPT_ARG,
    OPT_ARGS,
    OPT_SAMPLE,
    OPT_SERIES,
    OPT_SPLIT_HOSTS,
    OPT_HOSTFILE,
    OPT_HOST
};

static int parse_args(int argc, char **argv, run_opts *o, int *done)
{
    static const struct option opts[] = {CLI_COMMON_OPTIONS,
                                         {"machine", required_argument, NULL, 'm'},
                                         {"np", required_argument, NULL, 'n'},
                                         {"ranks-per-node", required_argument, NULL, OPT_RPN},
                                         {"map", required_argument, NULL, OPT_MAP},
                                         {"keep", required_argument, NULL, OPT_KEEP},
                                         {"replace", no_argument, NULL, OPT_REPLACE},
                                         {"trace", required_argument, NULL, OPT_TRACE},
                                         {"virtual-time", no_argument, NULL, OPT_VTIME},
                                         {"cpu-scale", required_argument, NULL, OPT_CPU_SCALE},
                                         {"host-clocks", no_argument, NULL, OPT_HOST_CLOCKS},
                                         {"model", required_argument, NULL, OPT_MODEL},
                                         {"threads", required_argument, NULL, OPT_THREADS},
                                         {"mpi-costs", required_argument, NULL, OPT_MPI_COSTS},
                                         {"sample", required_argument, NULL, OPT_SAMPLE},
                                         {"series", required_argument, NULL, OPT_SERIES},
                                         {"split-hosts", required_argument, NULL, OPT_SPLIT_HOSTS},
                                         {"hostfile", required_argument, NULL, OPT_HOSTFILE},
                                         {"host", required_argument, NULL, OPT_HOST},
                                         {"quiet", no_argument, NULL, 'q'},
                                         {"mpirun-arg", required_argument, NULL, OPT_ARG},
                                         {"mpirun-args", required_argument, NULL, OPT_ARGS},
                                         {NULL, 0, NULL, 0}};
    int c, rc;
    memset(o, 0, sizeof *o);
    o->rpn = 1;
    /* long_only: MPI's "-np P" is a long option with one dash; "+": the
     * options end at PROGRAM (or "--"), whose own options are left alone */
    cli_begin_long_only();
    while ((c = cli_next(argc, argv, "+:hm:n:q", opts, usage, done, &rc)) != -1) {
        if (*done) {
            return rc;
        }
        switch (c) {
        case 'm':
            o->spec = optarg;
            break;
        case 'n':
            if (parse_count(optarg, &o->np) != 0) {
                return fail("-np '%s': expected a number of ranks from 1 to %d", optarg, INT32_MAX);
            }
            break;
        case OPT_RPN:
            if (parse_count(optarg, &o->rpn) != 0) {
                return fail("--ranks-per-node '%s': expected an integer from 1 to %d", optarg,
                            INT32_MAX);
            }
            break;
        case OPT_MAP:
            o->map = optarg;
            break;
        case OPT_KEEP:
            o->keep = optarg;
            break;
        case OPT_REPLACE:
            o->replace = 1;
            break;
        case OPT_TRACE:
            o->trace = optarg;
            break;
        case OPT_VTIME:
            o->vtime = 1;
            break;
        case OPT_CPU_SCALE: {
            char *end = NULL;
            o->cpu_scale = optarg;
            double f = strtod(optarg, &end);
            if (end == optarg || *end != '\0' || !(f >= 0) || f > 1e6) {
                return fail("--cpu-scale '%s': expected a factor from 0 to 1e6", optarg);
            }
            break;
        }
        case OPT_HOST_CLOCKS:
            o->host_clocks = 1;
            break;
        case OPT_MODEL:
            o->model = optarg;
            if (temu_tm_level_parse(optarg, &o->level, NULL) != TEMU_OK) {
                return fail("--model '%s': expected packet or flow (the timing model's level)",
                            optarg);
            }
            break;
        case OPT_THREADS:
            if (parse_count(optarg, &o->threads) != 0 || o->threads > TEMU_TM_MAX_THREADS) {
                return fail("--threads '%s': expected 1..%d (the packet model's regions)", optarg,
                            TEMU_TM_MAX_THREADS);
            }
            break;
        case OPT_MPI_COSTS:
            o->mpi_costs = optarg;
            if (strcmp(optarg, "on") != 0 && strcmp(optarg, "off") != 0) {
                return fail("--mpi-costs '%s': expected on or off", optarg);
            }
            break;
        case OPT_SAMPLE:
            if (run_parse_interval(optarg, &o->sample_ns) != 0) {
                return fail("--sample '%s': expected a time with a unit (min, s, ms, us, ns), "
                            "such as 500ms, from 1ns to a day",
                            optarg);
            }
            break;
        case OPT_SERIES:
            o->series = optarg;
            break;
        case OPT_HOSTFILE:
            o->hostfile = optarg;
            break;
        case OPT_HOST:
            o->hostlist = optarg;
            break;
        case OPT_SPLIT_HOSTS:
            if (parse_count(optarg, &o->split_hosts) != 0 || o->split_hosts > TEMU_HOSTS_MAX) {
                return fail("--split-hosts '%s': expected a number of hosts from 1 to %d", optarg,
                            TEMU_HOSTS_MAX);
            }
            break;
        case 'q':
            o->quiet = 1;
            break;
        case OPT_ARG:
            if (add_extra(o, optarg) != 0) {
                return CLI_EXIT_USAGE;
            }
            break;
        default: /* OPT_ARGS */
            if (add_extra_words(o, optarg) != 0) {
                return CLI_EXIT_USAGE;
            }
            break;
        }
    }
    if (optind >= argc) {
        if (optind > 1 && strcmp(argv[optind - 1], "--") == 0) {
            return fail("no program after '--'");
        }
    } else {
        o->prog = argv + optind;
    }
    if (o->spec == NULL) {
        return fail("missing --machine SPEC (see `torusemu machine --presets`)");
    }
    if (o->np == 0) {
        return fail("missing -np P (the number of MPI ranks)");
    }
    if (o->prog == NULL) {
        return fail("missing the program: torusemu run ... -np P -- PROGRAM [ARGS]");
    }
    if (o->replace && o->keep == NULL) {
        return fail("--replace goes with --keep FILE");
    }
    if (o->cpu_scale != NULL && !o->vtime) {
        return fail("--cpu-scale goes with --virtual-time");
    }
    if (o->host_clocks && !o->vtime) {
        return fail("--host-clocks goes with --virtual-time");
    }
    if (o->model != NULL && !o->vtime) {
        return fail("--model goes with --virtual-time (without it no timing model runs)");
    }
    if (o->threads != 0 && !o->vtime) {
        return fail("--threads goes with --virtual-time (the online timing model's threads)");
    }
    if (o->threads > 1 && o->level != TEMU_TM_PACKET) {
        return fail("--threads %" PRIu64 " goes with the packet level (--model flow runs on "
                    "one thread)",
                    o->threads);
    }
    if (o->mpi_costs != NULL && !o->vtime) {
        return fail("--mpi-costs goes with --virtual-time");
    }
    if ((o->series == NULL) != (o->sample_ns == 0)) {
        return fail("--sample INTERVAL and --series FILE go together");
    }
    return 0;
}

/* ------------------------------------------------------------ finding */

static int executable(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

/* Search $PATH for name; 1 and out filled when found. */
static int search_path(const char *name, char *out, size_t len)
{
    const char *path = getenv("PATH");
    if (path == NULL) {
        return 0;
    }
    while (*path != '\0') {
        const char *colon = strchr(path, ':');
        size_t n = colon ? (size_t)(colon - path) : strlen(path);
        snprintf(out, len, "%.*s/%s", (int)n, n ? path : ".", name);
        if (executable(out)) {
            return 1;
        }
        path += n + (colon ? 1 : 0);
    }
    return 0;
}

static int find_mpirun(char *out, size_t len)
{
    const char *env = getenv("TORUSEMU_MPIRUN");
    if (env != NULL && *env != '\0') {
        if (!executable(env)) {
            return fail("TORUSEMU_MPIRUN='%s' is not an executable file", env);
        }
        snprintf(out, len, "%s", env);
        return 0;
    }
    if (search_path("mpirun", out, len)) {
        return 0;
    }
    if (TEMU_RUN_MPIRUN[0] == '/' && executable(TEMU_RUN_MPIRUN)) {
        snprintf(out, len, "%s", TEMU_RUN_MPIRUN);
        return 0;
    }
    return fail("mpirun not found in PATH: install Open MPI (Debian: openmpi-bin) or set "
                "TORUSEMU_MPIRUN");
}

static int check_program(const char *prog)
{
    char buf[PATH_MAX];
    if (strchr(prog, '/') != NULL) {
        if (!executable(prog)) {
            return fail("cannot run '%s': %s", prog,
                        access(prog, F_OK) != 0 ? "no such file" : "not an executable file");
        }
        return 0;
    }
    if (!search_path(prog, buf, sizeof buf)) {
        return fail("cannot run '%s': not found in PATH (write ./%s for a program in this "
                    "directory)",
                    prog, prog);
    }
    return 0;
}

/* The interposition library: $TORUSEMU_MPI_LIB, next to this executable
 * (build tree: both live in .libs), ../lib, or the configured libdir. */
static int find_library(char *out)
{
    const char *env = getenv("TORUSEMU_MPI_LIB");
    char self[PATH_MAX], dir[PATH_MAX + 64];
    if (env != NULL && *env != '\0') {
        if (realpath(env, out) == NULL) {
            return fail("TORUSEMU_MPI_LIB='%s': %s", env, strerror(errno));
        }
        return 0;
    }
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n > 0) {
        self[n] = '\0';
        char *slash = strrchr(self, '/');
        if (slash != NULL) {
            *slash = '\0';
            static const char *rel[] = {"", "/.libs", "/../lib"};
            for (size_t i = 0; i < sizeof rel / sizeof rel[0]; i++) {
                int w = snprintf(dir, sizeof dir, "%s%s/%s", self, rel[i], PRELOAD_NAME);
                if (w > 0 && (size_t)w < sizeof dir && access(dir, R_OK) == 0 &&
                    realpath(dir, out) != NULL) {
                    return 0;
                }
            }
        }
    }
    snprintf(dir, sizeof dir, "%s/%s", TEMU_RUN_LIBDIR, PRELOAD_NAME);
    if (access(dir, R_OK) == 0 && realpath(dir, out) != NULL) {
        return 0;
    }
    return fail("cannot find the interposition library %s (was papi-torus built with MPI? "
                "set TORUSEMU_MPI_LIB)",
                PRELOAD_NAME);
}

/* Physical cores (distinct package/core pairs of the online CPUs). */
/* Open MPI's shared-memory transport (vader) sends a message eagerly when
 * it fits its eager limit with the matching header (4,096 bytes by
 * default, at most its largest fragment, 32,768): the limit that sends
 * every message below the machine's eager limit eagerly, in `out`; 0 when
 * the default does already (BG/P: 1,200 bytes). */
static int host_eager_limit(uint64_t machine_limit, char *out, size_t len)
{
    enum { HEADER = 64, DEFAULT = 4096, LARGEST = 32768 };
    uint64_t want = machine_limit + HEADER;
    if (want <= DEFAULT) {
        return 0;
    }
    snprintf(out, len, "%llu", (unsigned long long)(want < LARGEST ? want : LARGEST));
    return 1;
}

static long physical_cores(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    long found = 0;
    long pairs[1024];
    for (long cpu = 0; cpu < n && found < 1024; cpu++) {
        char path[128];
        long pkg = -1, core = -1;
        FILE *f;
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu%ld/topology/physical_package_id",
                 cpu);
        if ((f = fopen(path, "r")) != NULL) {
            if (fscanf(f, "%ld", &pkg) != 1) {
                pkg = -1;
            }
            fclose(f);
        }
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu%ld/topology/core_id", cpu);
        if ((f = fopen(path, "r")) != NULL) {
            if (fscanf(f, "%ld", &core) != 1) {
                core = -1;
            }
            fclose(f);
        }
        if (pkg < 0 || core < 0) {
            return n > 0 ? n : 1;
        }
        long key = pkg * 100000 + core, seen = 0;
        for (long i = 0; i < found && !seen; i++) {
            seen = pairs[i] == key;
        }
        if (!seen) {
            pairs[found++] = key;
        }
    }
    return found > 0 ? found : (n > 0 ? n : 1);
}

/* ------------------------------------------------------------ summary */

static void summary(const temu_session *s, const run_opts *o, int status, const char *kept)
{
    const temu_machine *m = temu_session_machine(s);
    fprintf(stderr,
            "torusemu: %" PRIu64 " ranks on %s%s%s%s, %" PRIu64 " per node; exit status %d\n",
            o->np, m->name, m->preset[0] ? " (" : "", m->preset, m->preset[0] ? ")" : "", o->rpn,
            status);
    cli_traffic_summary(s, kept);
}

/* ------------------------------------------------------------ running */

/* Append "NAME=value[:old]" for -x, the old value from our environment. */
static char *env_with(const char *name, const char *value, int prepend)
{
    const char *old = getenv(name);
    char *out = NULL;
    if (prepend && old != NULL && *old != '\0') {
        if (asprintf(&out, "%s=%s:%s", name, value, old) < 0) {
            out = NULL;
        }
    } else if (asprintf(&out, "%s=%s", name, value) < 0) {
        out = NULL;
    }
    return out;
}

/* --trace DIR: made if missing (its parent must exist), refused when it
 * already holds an archive; its absolute path into out. */
static int prepare_trace_dir(const char *dir, char *out, size_t len)
{
    char anchor[PATH_MAX + 16];
    if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
        return fail("--trace %s: %s", dir, strerror(errno));
    }
    if (cli_absolute_path(dir, out, len) != 0) {
        return fail("--trace %s: %s", dir, strerror(errno));
    }
    snprintf(anchor, sizeof anchor, "%s/traces.otf2", out);
    if (access(anchor, F_OK) == 0) {
        return fail("--trace %s: already holds an OTF2 archive (traces.otf2)", dir);
    }
    return 0;
}

int cmd_run(int argc, char **argv)
{
    run_opts o;
    temu_machine m;
    temu_mapping map;
    temu_error err;
    temu_session *s = NULL;
    char mpirun[PATH_MAX], lib[PATH_MAX], store[PATH_MAX], libdir[PATH_MAX], tmpdir[PATH_MAX];
    int done = 0;

    if (argc < 2) {
        usage(stderr);
        return CLI_EXIT_USAGE;
    }
    int prc = parse_args(argc, argv, &o, &done);
    if (done || prc != 0) {
        return done ? prc : CLI_EXIT_USAGE;
    }
    if (temu_machine_parse(o.spec, &m, &err) != TEMU_OK) {
        return fail("%s", err.message);
    }
    if (o.model != NULL && !temu_family_info_get(m.system)->live_timing) {
        return fail("--model %s: %s has no online timing model (its stall counters are not "
                    "modelled live yet): its virtual clocks take each message's latency in an "
                    "empty network; run without --model, or replay a trace with --timing "
                    "(doc/virtual-time.md)",
                    o.model, temu_family_info_get(m.system)->name);
    }
    if ((int64_t)o.threads > m.nrouters) {
        return fail("--threads %" PRIu64 ": %s has %lld routers, at most one region each",
                    o.threads, o.spec, (long long)m.nrouters);
    }
    uint64_t slots = (uint64_t)m.nnodes * o.rpn;
    if (o.np > slots) {
        return fail("-np %" PRIu64 " does not fit %s: %lld nodes x %" PRIu64 " per node = %" PRIu64
                    " ranks at most (use a larger machine or "
                    "--ranks-per-node)",
                    o.np, m.preset[0] ? m.preset : m.name, (long long)m.nnodes, o.rpn, slots);
    }
    if (temu_mapping_build(&m, (int32_t)o.np, (int32_t)o.rpn, o.map, &map, &err) != TEMU_OK) {
        return fail("%s", err.message);
    }
    if (find_mpirun(mpirun, sizeof mpirun) != 0 || find_library(lib) != 0 ||
        check_program(o.prog[0]) != 0) {
        temu_mapping_free(&map);
        return 2;
    }
    int src = cli_store_path("run", o.keep, store, tmpdir, sizeof store);
    if (src != 0) {
        temu_mapping_free(&map);
        return src;
    }
    char trace[PATH_MAX] = "";
    if (o.trace != NULL && prepare_trace_dir(o.trace, trace, sizeof trace) != 0) {
        temu_mapping_free(&map);
        if (tmpdir[0] != '\0') {
            cli_temp_dir_remove(tmpdir);
        }
        return CLI_EXIT_USAGE;
    }
    temu_status st =
        temu_session_create_ex(store, &m, &map, o.replace ? TEMU_CREATE_REPLACE : 0, &s, &err);
    if (st != TEMU_OK) {
        temu_mapping_free(&map);
        if (tmpdir[0] != '\0') {
            cli_temp_dir_remove(tmpdir);
        }
        return fail("%s", err.message);
    }
    run_hosts rh;
    memset(&rh, 0, sizeof rh);
    int remote = o.hostfile != NULL || o.hostlist != NULL;
    /* --sample: the sampler snapshots the hosts' stores as one (on real
     * hosts the copies of them the agents keep here) */
    if (o.split_hosts > 1 &&
        (run_hosts_prepare(&rh, (int32_t)o.split_hosts, remote, s, &m, &map) != 0 ||
         (o.series != NULL && remote && run_hosts_copies_open(&rh, &m, &map) != 0) ||
         (o.series != NULL && run_hosts_view_open(&rh, s, &m, &map) != 0))) {
        run_hosts_remove(&rh);
        temu_mapping_free(&map);
        temu_session_close(s);
        unlink(store);
        if (tmpdir[0] != '\0') {
            cli_temp_dir_remove(tmpdir);
        }
        return CLI_EXIT_USAGE;
    }
    temu_mapping_free(&map);

    /* mpirun [flags] -np P -x ... PROGRAM ARGS */
    snprintf(libdir, sizeof libdir, "%s", lib);
    *strrchr(libdir, '/') = '\0';
    char np[32];
    snprintf(np, sizeof np, "%" PRIu64, o.np);
    char *x_session = env_with(TEMU_SESSION_ENV, store, 0);
    char *x_preload = env_with("LD_PRELOAD", lib, 1);
    char *x_libpath = env_with("LD_LIBRARY_PATH", libdir, 1);
    char *x_trace = trace[0] ? env_with(TMPI_TRACE_ENV, trace, 0) : NULL;
    char *x_vtime = o.vtime ? env_with(TMPI_VT_ENV, "1", 0) : NULL;
    char *x_host_clocks = o.host_clocks ? env_with(TMPI_VT_HOST_CLOCKS_ENV, "1", 0) : NULL;
    char *x_hosts = rh.n > 1 ? env_with(TEMU_HOSTS_ENV, rh.count, 0) : NULL;
    char *x_host_stores = rh.n > 1 ? env_with(TEMU_HOST_STORES_ENV, rh.dir, 0) : NULL;
    char *x_gathered =
        rh.n > 1 && (!rh.remote || rh.copies) ? env_with(TEMU_HOSTS_GATHERED_ENV, "1", 0) : NULL;
    char copy_ns[32];
    snprintf(copy_ns, sizeof copy_ns, "%" PRId64, o.sample_ns);
    char *x_copies = rh.copies ? env_with(TMPI_HOST_COPY_ENV, copy_ns, 0) : NULL;
    /* the online timing model (BG/P: its counters are not filled yet) */
    run_model *rm = NULL;
    char feeddir[PATH_MAX] = "", feed[PATH_MAX + 8] = "", why[512];
    char *x_feed = NULL;
    if (o.vtime && temu_family_info_get(m.system)->live_timing) {
        if (cli_temp_dir(feeddir, sizeof feeddir, "run") != 0) {
            feeddir[0] = '\0';
            fprintf(stderr, "torusemu: run: no online timing model: %s\n", strerror(errno));
        } else {
            snprintf(feed, sizeof feed, "%s/feed", feeddir);
            if (run_model_start(&rm, s, o.level, o.threads ? (uint32_t)o.threads : 1, feed,
                                (int32_t)o.np, why, sizeof why) != 0) {
                fprintf(stderr, "torusemu: run: no online timing model: %s\n", why);
                rm = NULL;
            } else {
                x_feed = env_with(TMPI_VT_FEED_ENV, feed, 0);
            }
        }
    }
    char *x_scale = o.cpu_scale ? env_with(TMPI_VT_SCALE_ENV, o.cpu_scale, 0) : NULL;
    char *x_costs = o.mpi_costs ? env_with(TMPI_VT_MPI_COSTS_ENV, o.mpi_costs, 0) : NULL;
    int nprog = 0;
    while (o.prog[nprog] != NULL) {
        nprog++;
    }
    /* mpirun and its own options (at most 12: root, oversubscribe, three
     * --mca triples) + -np P + 8 "-x VAR" pairs = 30, + the extra
     * arguments + the program + NULL */
    /* --split-hosts: two more --mca triples and four -x pairs (the copies
     * of --sample on real hosts); --hostfile and --host: two pairs;
     * --mpi-costs: one -x pair; two spare */
    char **av = calloc((size_t)(31 + 22 + o.nextra + nprog), sizeof *av);
    int rc = 2;
    if (x_session == NULL || x_preload == NULL || x_libpath == NULL || av == NULL) {
        fail("out of memory");
        goto out;
    }
    int k = 0;
    av[k++] = mpirun;
    if (geteuid() == 0) {
        av[k++] = "--allow-run-as-root";
    }
    if ((long)o.np > physical_cores()) {
        av[k++] = "--oversubscribe";
    }
    /* osc/rdma fails on communicators split from one another on a single
     * host (Open MPI issue 7393); sm and pt2pt cover every window */
    if (getenv("OMPI_MCA_osc") == NULL) {
        av[k++] = "--mca";
        av[k++] = "osc";
        av[k++] = "sm,pt2pt";
    }
    /* with the online model a rank that waits in the host's MPI must
     * leave the core to the model thread it waits for: Open MPI spins
     * without yielding when the ranks do not outnumber the cores
     * (doc/performance.md, "Live runs in virtual time") */
    if (rm != NULL && getenv("OMPI_MCA_mpi_yield_when_idle") == NULL) {
        av[k++] = "--mca";
        av[k++] = "mpi_yield_when_idle";
        av[k++] = "1";
    }
    /* with the online model the host's shared-memory transport sends
     * eagerly what the emulated machine sends eagerly: by rendezvous (its
     * default above 4,096 bytes) a blocking send waits in the host's MPI
     * until its receiver posts the receive, while the model, told the send
     * was eager, waits at the sender's clock; a receiver waiting for an
     * earlier delivery then waits too, until the 2 s valve (GPCNeT's
     * 4 KiB incast on Gemini crawled that way; tests/mpi/vt_sync.c eager) */
    char eager[32];
    if (rm != NULL && getenv("OMPI_MCA_btl_vader_eager_limit") == NULL &&
        host_eager_limit(m.protocol.eager_limit, eager, sizeof eager)) {
        av[k++] = "--mca";
        av[k++] = "btl_vader_eager_limit";
        av[k++] = eager;
    }
    /* --split-hosts: the hosts talk over TCP, as separate hosts would, not
     * through this machine's shared memory (on the loopback interface,
     * which Open MPI's TCP transport leaves out by default) */
    if (rh.n > 1 && getenv("OMPI_MCA_btl") == NULL) {
        av[k++] = "--mca";
        av[k++] = "btl";
        av[k++] = "self,tcp";
        if (!rh.remote && getenv("OMPI_MCA_btl_tcp_if_include") == NULL &&
            getenv("OMPI_MCA_btl_tcp_if_exclude") == NULL) {
            av[k++] = "--mca";
            av[k++] = "btl_tcp_if_include";
            av[k++] = "lo";
        }
    }
    if (o.hostfile != NULL) {
        av[k++] = "--hostfile";
        av[k++] = (char *)o.hostfile;
    }
    if (o.hostlist != NULL) {
        av[k++] = "--host";
        av[k++] = (char *)o.hostlist;
    }
    av[k++] = "-np";
    av[k++] = np;
    char *xs[] = {x_session,     x_preload, x_libpath,     x_trace,    x_vtime,  x_scale, x_feed,
                  x_host_clocks, x_hosts,   x_host_stores, x_gathered, x_copies, x_costs};
    for (size_t i = 0; i < sizeof xs / sizeof xs[0]; i++) {
        if (xs[i] != NULL) { /* the optional ones are NULL when off */
            av[k++] = "-x";
            av[k++] = xs[i];
        }
    }
    for (int i = 0; i < o.nextra; i++) {
        av[k++] = o.extra[i];
    }
    for (int i = 0; i < nprog; i++) {
        av[k++] = o.prog[i];
    }
    av[k] = NULL;

    run_sampler rs;
    if (o.series != NULL &&
        run_sampler_start(&rs, o.series, rh.view != NULL ? rh.view : s, o.sample_ns,
                          rh.view != NULL ? run_hosts_view_refresh : NULL, &rh) != 0) {
        rc = CLI_EXIT_USAGE;
        goto out;
    }
    int job_signal = 0;
    rc = run_launch(av, o.series != NULL ? &rs : NULL, &job_signal);
    if (rm != NULL) { /* its last counters before the sampler's last snapshot */
        uint64_t nmsg;
        int64_t end, cpu;
        run_model_finish(rm, &nmsg, &end, &cpu);
        rm = NULL;
        if (!o.quiet) {
            fprintf(stderr,
                    "torusemu: timing model online: %" PRIu64 " messages, the last packet in at "
                    "%.3f us of virtual time; the model thread used %.3f s of host CPU\n",
                    nmsg, (double)end * 1e-6, (double)cpu * 1e-9);
        }
    }
    if (o.series != NULL) {
        int src2 = run_sampler_finish(&rs);
        rc = rc == 0 && src2 != 0 ? src2 : rc;
        if (src2 == 0 && !o.quiet) {
            fprintf(stderr, "torusemu: %" PRIu64 " snapshots of host time in %s\n", rs.written,
                    o.series);
        }
    }
    /* from here on only the summary and the cleanup: a closed stderr (the
     * summary piped into `head`) must not kill us before the store goes */
    signal(SIGPIPE, SIG_IGN);
    if (rc < 0) {
        rc = 2;
        goto out;
    }
    if (rh.n > 1 && run_hosts_gather(&rh, s) != 0) {
        rc = rc != 0 ? rc : 2;
    }
    if (rc != 0 && job_signal == 0) {
        fprintf(stderr, "torusemu run: the application failed (exit status %d)\n", rc);
    }
    if (trace[0]) {
        char msg[512];
        if (temu_otf2_finish(trace, (int32_t)o.np, rc, msg, sizeof msg) != 0) {
            fprintf(stderr, "torusemu: run: no trace written: %s\n", msg);
            rc = rc != 0 ? rc : CLI_EXIT_USAGE;
        } else if (!o.quiet) {
            fprintf(stderr, "torusemu: OTF2 trace in %s/traces.otf2\n", trace);
        }
    }
    if (!o.quiet) {
        summary(s, &o, rc, o.keep != NULL ? store : NULL);
    }
out:
    run_hosts_remove(&rh);
    if (rm != NULL) { /* the job did not start: stop the model */
        uint64_t nmsg;
        int64_t end, cpu;
        run_model_finish(rm, &nmsg, &end, &cpu);
    }
    temu_session_close(s);
    if (o.keep == NULL) {
        unlink(store);
        cli_temp_dir_remove(tmpdir);
    }
    free(x_session);
    free(x_preload);
    free(x_libpath);
    if (feeddir[0] != '\0') {
        cli_temp_dir_remove(feeddir);
    }
    free(x_feed);
    free(x_trace);
    free(x_vtime);
    free(x_host_clocks);
    free(x_scale);
    free(x_costs);
    free(x_hosts);
    free(x_host_stores);
    free(x_gathered);
    free(x_copies);
    free(av);
    return rc;
}
