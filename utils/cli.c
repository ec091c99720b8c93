/*
 * cli.c - helpers shared by the torusemu subcommands (see cli.h).
 */
#include "cli.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

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

int cli_parse_size(const char *s, uint64_t *out)
{
    char *end;
    unsigned long long v;
    if (leading_uint(s, &v, &end) != 0) {
        return -1;
    }
    if (*end == '\0') {
        *out = v;
        return 0;
    }
    for (size_t i = 0; i < sizeof suffixes / sizeof suffixes[0]; i++) {
        if (strcmp(end, suffixes[i].text) == 0) {
            if (v > UINT64_MAX / suffixes[i].factor) {
                return -1;
            }
            *out = (uint64_t)v * suffixes[i].factor;
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
    int extra = m->system == TEMU_SYSTEM_GEMINI ? 1 : 0;
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
