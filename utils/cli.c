/*
 * cli.c - helpers shared by the torusemu subcommands (see cli.h).
 */
#include "cli.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int cli_fail(const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "torusemu: ");
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    return CLI_EXIT_USAGE;
}

int cli_fail_err(const temu_error *err)
{
    return cli_fail("%s", err->message);
}

void cli_err_prefix(temu_error *err, const char *what)
{
    char msg[2 * sizeof err->message]; /* cut to the message's size below */
    snprintf(msg, sizeof msg, "%s: %s", what, err->message);
    memcpy(err->message, msg, sizeof err->message - 1);
    err->message[sizeof err->message - 1] = '\0';
}

int cli_version(void)
{
    printf("torusemu (papi-torus) %s\n"
           "An emulated Cray Gemini, Blue Gene/P and Blue Gene/Q torus network with\n"
           "PAPI components that read its counters.\n",
           TEMU_VERSION);
    return 0;
}

static int long_only;

void cli_begin(void)
{
    optind = 0; /* GNU getopt: 0 re-initialises its internal state */
    opterr = 0; /* errors are reported by cli_next */
    long_only = 0;
}

void cli_begin_long_only(void)
{
    cli_begin();
    long_only = 1;
}

int cli_next(int argc, char **argv, const char *shortopts, const struct option *longopts,
             void (*usage)(FILE *), int *done, int *rc)
{
    int c = long_only ? getopt_long_only(argc, argv, shortopts, longopts, NULL)
                      : getopt_long(argc, argv, shortopts, longopts, NULL);
    /* the top level (argv[0] "torusemu") needs no command in its messages */
    const char *cmd = strcmp(argv[0], "torusemu") == 0 ? "" : argv[0];
    const char *sep = *cmd ? ": " : "";
    const char *arg = optind > 0 && optind <= argc ? argv[optind - 1] : "?";
    *done = 0;
    switch (c) {
    case CLI_OPT_HELP:
        usage(stdout);
        *done = 1;
        *rc = 0;
        break;
    case CLI_OPT_VERSION:
        *done = 1;
        *rc = cli_version();
        break;
    case ':':
        *done = 1;
        if (optopt != 0 && strncmp(arg, "--", 2) != 0) {
            *rc = cli_fail("%s%soption '-%c' needs a value (see --help)", cmd, sep, optopt);
        } else {
            *rc = cli_fail("%s%soption '%s' needs a value (see --help)", cmd, sep, arg);
        }
        break;
    case '?':
        *done = 1;
        if (optopt != 0 && strncmp(arg, "--", 2) != 0) {
            *rc = cli_fail("%s%sunknown option '-%c' (see --help)", cmd, sep, optopt);
        } else {
            *rc = cli_fail("%s%sunknown option '%s' (see --help)", cmd, sep, arg);
        }
        break;
    default:
        break;
    }
    return c;
}

/* The leading decimal digits of s into *v, *end after them; -1 when s does
 * not start with a digit or the number overflows. */
static int leading_uint(const char *s, unsigned long long *v, char **end)
{
    if (s == NULL || *s < '0' || *s > '9') {
        return -1;
    }
    errno = 0;
    *v = strtoull(s, end, 10);
    return errno != 0 ? -1 : 0;
}

int cli_parse_uint(const char *s, uint64_t *out)
{
    char *end;
    unsigned long long v;
    if (leading_uint(s, &v, &end) != 0 || *end != '\0') {
        return -1;
    }
    *out = v;
    return 0;
}

typedef struct size_suffix {
    const char *text;
    uint64_t factor;
} size_suffix;

/* Binary unless the suffix ends in a bare "B" after a decimal prefix;
 * the choice and its reason are in doc/cli.md ("Sizes"). */
static const size_suffix suffixes[] = {
    {"k", 1024ull},         {"K", 1024ull},       {"KiB", 1024ull},       {"M", 1024ull << 10},
    {"MiB", 1024ull << 10}, {"G", 1024ull << 20}, {"GiB", 1024ull << 20}, {"kB", 1000ull},
    {"KB", 1000ull},        {"MB", 1000000ull},   {"GB", 1000000000ull},
};

/* cli_parse_size, telling a malformed size (-1) from one above 2^64 - 1
 * (-2). */
static int parse_size(const char *s, uint64_t *out)
{
    char *end;
    unsigned long long v;
    if (leading_uint(s, &v, &end) != 0) {
        return s != NULL && *s >= '0' && *s <= '9' && errno == ERANGE ? -2 : -1;
    }
    if (*end == '\0') {
        *out = v;
        return 0;
    }
    for (size_t i = 0; i < sizeof suffixes / sizeof suffixes[0]; i++) {
        if (strcmp(end, suffixes[i].text) == 0) {
            if (v > UINT64_MAX / suffixes[i].factor) {
                return -2;
            }
            *out = (uint64_t)v * suffixes[i].factor;
            return 0;
        }
    }
    return -1;
}

int cli_parse_size(const char *s, uint64_t *out)
{
    return parse_size(s, out) == 0 ? 0 : -1;
}

/* v as the binary multiple it is ("4 GiB", "256 TiB"), else "" */
static void size_words(uint64_t v, char *buf, size_t len)
{
    static const char *const units[] = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    buf[0] = '\0';
    for (int u = 5; u >= 0; u--) {
        uint64_t f = 1024ull << (10 * u);
        if (v >= f && v % f == 0) {
            snprintf(buf, len, "%" PRIu64 " %s", v / f, units[u]);
            return;
        }
    }
}

/* "4294967295 bytes (4 GiB - 1)", "281474976710656 bytes (256 TiB)" */
static void size_limit(uint64_t max, char *buf, size_t len)
{
    char w[32];
    size_words(max, w, sizeof w);
    if (w[0] != '\0') {
        snprintf(buf, len, "%" PRIu64 " bytes (%s)", max, w);
        return;
    }
    if (max < UINT64_MAX) {
        size_words(max + 1, w, sizeof w);
    }
    snprintf(buf, len, w[0] ? "%" PRIu64 " bytes (%s - 1)" : "%" PRIu64 " bytes", max, w);
}

int cli_parse_size_range(const char *s, uint64_t min, uint64_t max, uint64_t *out, char *why,
                         size_t len)
{
    char lim[64];
    int rc = parse_size(s, out);
    size_limit(max, lim, sizeof lim);
    if (rc == -1) {
        snprintf(why, len,
                 "expected a size such as 4096, 64K or 1MiB (K, M, G: binary multiples; kB, "
                 "MB, GB: decimal), from %" PRIu64 " to %s",
                 min, lim);
    } else if (rc == -2 || *out > max) {
        char v[32] = "more than 2^64 - 1";
        if (rc == 0) {
            snprintf(v, sizeof v, "%" PRIu64, *out);
        }
        snprintf(why, len, "%s bytes, above the largest size, %s", v, lim);
        rc = -1;
    } else if (*out < min) {
        snprintf(why, len, "%" PRIu64 " bytes, below the smallest size, %" PRIu64 " byte%s", *out,
                 min, min == 1 ? "" : "s");
        rc = -1;
    }
    return rc;
}

int cli_parse_time_ps(const char *s, int64_t *ps)
{
    static const struct {
        const char *unit;
        double ps;
    } units[] = {{"min", 6e13}, {"s", 1e12}, {"ms", 1e9}, {"us", 1e6}, {"ns", 1e3}, {"ps", 1}};
    char *end;
    double v = strtod(s, &end);
    if (end == s || !(v > 0)) {
        return -1;
    }
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++) {
        if (strcmp(end, units[i].unit) == 0) {
            double t = v * units[i].ps;
            if (!(t >= 1) || t > 9e18) {
                return -1;
            }
            *ps = (int64_t)llround(t);
            return 0;
        }
    }
    return -1;
}

int cli_parse_node(const temu_machine *m, const char *s, int64_t *node)
{
    int32_t c[TEMU_MAX_DIMS + 1];
    int n = 0;
    const char *p = s;
    if (strchr(s, ',') == NULL) {
        uint64_t v;
        if (cli_parse_uint(s, &v) != 0 || v >= (uint64_t)m->nnodes) {
            return cli_fail("node '%s': expected a node id 0..%lld or coordinates", s,
                            (long long)m->nnodes - 1);
        }
        *node = (int64_t)v;
        return 0;
    }
    while (*p != '\0' && n <= TEMU_MAX_DIMS) {
        char *end;
        long v = strtol(p, &end, 10);
        if (end == p || (*end != ',' && *end != '\0')) {
            return cli_fail("node '%s': coordinates must be integers separated by commas", s);
        }
        c[n++] = (int32_t)v;
        p = *end == ',' ? end + 1 : end;
    }
    int extra = m->nodes_per_router > 1 ? 1 : 0; /* the node on its router */
    if (*p != '\0' || (n != m->ndims && n != m->ndims + extra)) {
        return cli_fail("node '%s': %s needs %d coordinates%s", s, temu_system_name(m->system),
                        m->ndims, extra ? " (plus an optional node 0/1 of the Gemini)" : "");
    }
    for (int d = 0; d < m->ndims; d++) {
        if (c[d] < 0 || c[d] >= m->size[d]) {
            return cli_fail("node '%s': coordinate %d is outside 0..%d", s, c[d], m->size[d] - 1);
        }
    }
    int k = n > m->ndims ? c[m->ndims] : 0;
    if (k < 0 || k >= m->nodes_per_router) {
        return cli_fail("node '%s': node-in-Gemini must be 0 or 1", s);
    }
    *node = temu_router_index(m, c) * m->nodes_per_router + k;
    return 0;
}

void cli_print_coords(const temu_machine *m, int64_t router, FILE *f)
{
    int32_t c[TEMU_MAX_DIMS];
    temu_router_coords(m, router, c);
    fputc('(', f);
    for (int d = 0; d < m->ndims; d++) {
        fprintf(f, d ? ",%d" : "%d", c[d]);
    }
    fputc(')', f);
}

/* ------------------------------------------------ run and replay */

void cli_human(uint64_t v, char *buf, size_t len)
{
    static const char *units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    double d = (double)v;
    int u = 0;
    while (d >= 1024.0 && u < 4) {
        d /= 1024.0;
        u++;
    }
    snprintf(buf, len, u == 0 ? "%.0f %s" : "%.2f %s", d, units[u]);
}

typedef struct busiest {
    uint64_t bytes;   /* on the wire                        */
    uint64_t units;   /* phits or 32-byte chunks            */
    int64_t from, to; /* routers                          */
    int link;         /* outgoing link of `from`          */
} busiest;

/* The network link (host and I/O links excluded) that carried the most
 * bytes: the units its counters show (Gemini tile phits arriving, 3 bytes
 * each, Pedretti 2013; Blue Gene 32-byte chunks sent). */
static busiest find_busiest(const temu_session *s)
{
    const temu_machine *m = temu_session_machine(s);
    const temu_family_info *fam = temu_family_info_get(m->system);
    busiest b = {0, 0, -1, -1, -1};
    for (int64_t r = 0; r < m->nrouters; r++) {
        for (int l = 0; l < 2 * m->ndims; l++) {
            int64_t nb = temu_link_neighbor(m, r, l);
            if (nb < 0) {
                continue;
            }
            uint64_t units = temu_link_read(s, r, l, TEMU_LINK_TRAFFIC);
            uint64_t bytes = units * fam->unit_bytes;
            if (bytes > b.bytes) {
                b.bytes = bytes;
                b.units = units;
                /* counted where it arrives (Gemini): the link runs from the
                 * neighbour across `l` into r, leaving it through l ^ 1 */
                if (fam->counts_arrivals) {
                    b.from = nb;
                    b.to = r;
                    b.link = l ^ 1;
                } else {
                    b.from = r;
                    b.to = nb;
                    b.link = l;
                }
            }
        }
    }
    return b;
}

void cli_traffic_summary(const temu_session *s, const char *kept)
{
    const temu_machine *m = temu_session_machine(s);
    char h[32], a[64], c[64];
    cli_human(temu_session_bytes(s), h, sizeof h);
    fprintf(stderr,
            "torusemu: %" PRIu64 " messages, %" PRIu64 " bytes of MPI payload injected (%s)\n",
            temu_session_messages(s), temu_session_bytes(s), h);
    busiest b = find_busiest(s);
    if (b.from < 0) {
        fprintf(stderr, "torusemu: busiest link: none (no traffic left a node)\n");
    } else {
        temu_router_name(m, b.from, a, sizeof a);
        temu_router_name(m, b.to, c, sizeof c);
        cli_human(b.bytes, h, sizeof h);
        fprintf(stderr,
                "torusemu: busiest link: %s %s -> %s, %" PRIu64 " bytes (%s, %" PRIu64 " %s)\n", a,
                temu_link_name(m, b.link), c, b.bytes, h, b.units,
                temu_family_info_get(m->system)->unit_name);
    }
    if (kept != NULL) {
        fprintf(stderr, "torusemu: counters kept in %s (torusemu dump %s)\n", kept, kept);
    }
}

int cli_absolute_path(const char *p, char *out, size_t len)
{
    char cwd[PATH_MAX];
    int w;
    if (p[0] == '/') {
        w = snprintf(out, len, "%s", p);
    } else if (getcwd(cwd, sizeof cwd) == NULL) {
        return -1;
    } else {
        w = snprintf(out, len, "%s/%s", cwd, p);
    }
    if (w < 0 || (size_t)w >= len) {
        errno = ENAMETOOLONG;
        return -1;
    }
    return 0;
}
