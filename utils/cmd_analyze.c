/*
 * cmd_analyze.c - `torusemu analyze`: the link-level analysis of Jha et
 * al., "Characterizing Supercomputer Traffic Networks Through Link-Level
 * Analysis" (HPCMASPA 2018; seed 004) over a series file or over gpcdr
 * samples in LDMS's CSV layout (doc/analyze.md).
 *
 * Per Gemini d-link and interval: packets per minute, P_bu, inq and credit
 * P_Ts (analyze.c); by dimension: their CCDFs (Figs. 4-5), a summary, and
 * the P_bu/P_Ts correlation (Table I); all nodes' injection and ingestion
 * per interval and their CCDFs (Fig. 3); congestion regions and the
 * feature graph (section VI, Fig. 9; features.c); one interval's watched
 * value on every Gemini of the 3-D torus (--slice, the "literal topology
 * representation" of Fig. 10).  One table on stdout (--report, --format),
 * or everything into a directory (--output-dir): CSV files, the feature
 * graph as DOT, and PNG pictures drawn by gnuplot and Graphviz.
 */
#include "analyze.h"
#include "analyze_source.h"
#include "cli.h"
#include "features.h"
#include "figure.h"
#include "records.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void usage(FILE *f)
{
    fprintf(f, "Usage: torusemu analyze [OPTION]... FILE\n"
               "Link-level analysis of a Gemini time series (Jha et al., HPCMASPA 2018): per\n"
               "d-link and interval the packets per minute, percent bandwidth used (P_bu) and\n"
               "percent time stalled (P_Ts, inq and credit); their CCDFs by dimension, the\n"
               "utilisation/stall correlation, the nodes' injection and ingestion, congestion\n"
               "regions and the feature graph.\n"
               "FILE is a series file (torusemu series) or gpcdr samples in LDMS's CSV layout.\n"
               "\n"
               "Options:\n"
               "  -m, --machine=SPEC      the Gemini machine an LDMS CSV file was sampled on\n"
               "  -r, --report=NAME       the table to print: summary (default), links, ccdf,\n"
               "                          correlation, regions, nodes, slice (with --slice),\n"
               "                          seed004 (seed 004's published figures beside these)\n"
               "  -o, --output-dir=DIR    write every table as CSV, the feature graph (DOT)\n"
               "                          and PNG pictures into DIR (created if missing)\n"
               "      --no-png            with --output-dir: no pictures\n"
               "      --feature=METRIC    what makes a d-link congested: credit (default),\n"
               "                          inq (P_Ts) or pbu\n"
               "      --feature-link=DIR  the direction watched for regions (default X+)\n"
               "      --threshold=P       congested at P percent or more (default 40)\n"
               "      --slice=K           one interval (0, 1, ... or peak: the one holding the\n"
               "                          highest value) of the --feature-link direction's\n"
               "                          --feature value on every Gemini (seed 004 Fig. 10):\n"
               "                          --report=slice, or slice.csv and slice.png in -o DIR\n"
               "      --format=F          table (default), csv or json\n"
               "  -h, --help              print this help and exit\n"
               "      --version           print the version and exit\n"
               "\n"
               "Examples:\n"
               "  torusemu analyze job.tser --report=correlation\n"
               "\n"
               "  torusemu analyze samples.csv --machine=gemini:24x24x24 -o figures\n"
               "\n"
               "  torusemu analyze job.tser --slice=peak -o figures\n");
}

enum { OPT_NO_PNG = CLI_OPT_FIRST_LONG, OPT_FEATURE, OPT_FEATURE_LINK, OPT_THRESHOLD, OPT_SLICE };
enum {
    REP_SUMMARY = 0,
    REP_LINKS,
    REP_CCDF,
    REP_CORR,
    REP_REGIONS,
    REP_NODES,
    REP_SLICE,
    REP_SEED004,
    REPORTS
};
static const char *const report_names[REPORTS] = {"summary", "links", "ccdf",  "correlation",
                                                  "regions", "nodes", "slice", "seed004"};
#define SLICE_NONE (-1) /* --slice not given */
#define SLICE_PEAK (-2) /* --slice=peak */
static const char dim_names[AN_DIMS] = {'X', 'Y', 'Z'};
static const char *const dim_label[AN_DIMS] = {"X", "Y", "Z"};

/* ------------------------------------------------------------ tables */

/* A table in any --format: cli_rec for CSV and JSON; for the table form
 * either fixed-width columns printed as they come (width given: the long
 * links and ccdf tables, whose cells are never cut but may shift a
 * column), or, for the short reports (width NULL), every cell kept and the
 * table printed at the end with each column as wide as its widest cell. */
typedef struct table {
    cli_rec rec;
    FILE *f;
    cli_format format;
    const char *const *cols;
    const int *width;
    int ncols, cell;
    char *text; /* kept cells, each ending in '\0', ncols per row */
    size_t len, cap;
    int wide[CLI_REC_MAX_COLS]; /* widest cell of each column */
    int failed;                 /* out of memory keeping a cell */
} table;

static int table_keeps(const table *t)
{
    return t->format == CLI_FORMAT_TABLE && t->width == NULL;
}

static void table_begin(table *t, FILE *f, cli_format format, const char *const *cols,
                        const int *width, int ncols)
{
    memset(t, 0, sizeof *t);
    t->f = f;
    t->format = format;
    t->cols = cols;
    t->width = width;
    t->ncols = ncols;
    if (format != CLI_FORMAT_TABLE) {
        cli_rec_begin(&t->rec, f, format, cols, ncols);
        return;
    }
    for (int i = 0; i < ncols; i++) {
        t->wide[i] = (int)strlen(cols[i]);
        if (width != NULL) {
            fprintf(f, "%s%*s", i ? " " : "", width[i], cols[i]);
        }
    }
    if (width != NULL) {
        fputc('\n', f);
    }
}

/* Keep one cell of a table printed at its end. */
static void table_keep(table *t, const char *text)
{
    size_t n = strlen(text) + 1;
    while (t->len + n > t->cap && !t->failed) {
        t->failed = an_reserve((void **)&t->text, &t->cap, t->cap, 1, 4096) != 0;
    }
    if (t->failed) {
        return;
    }
    memcpy(t->text + t->len, text, n);
    t->len += n;
    if ((int)n - 1 > t->wide[t->cell]) {
        t->wide[t->cell] = (int)n - 1;
    }
}

static void table_cell(table *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void table_cell(table *t, const char *fmt, ...)
{
    char buf[CLI_REC_CELL];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (t->format != CLI_FORMAT_TABLE) {
        cli_rec_cell(&t->rec, "%s", buf);
    } else if (t->cell < t->ncols && table_keeps(t)) {
        table_keep(t, buf);
    } else if (t->cell < t->ncols) {
        fprintf(t->f, "%s%*s", t->cell ? " " : "", t->width[t->cell], buf);
    }
    t->cell++;
}

/* A number without exponent (JSON-safe), at most 6 decimals, trailing
 * zeros dropped; NAN as an empty cell (null in JSON). */
static void table_num(table *t, double v)
{
    char buf[64];
    if (isnan(v)) {
        table_cell(t, "%s", t->format == CLI_FORMAT_TABLE ? "-" : "");
        return;
    }
    snprintf(buf, sizeof buf, "%.6f", v);
    char *end = buf + strlen(buf);
    while (end > buf && end[-1] == '0') {
        *--end = '\0';
    }
    if (end > buf && end[-1] == '.') {
        *--end = '\0';
    }
    table_cell(t, "%s", strcmp(buf, "-0") == 0 ? "0" : buf);
}

/* A count, or an empty cell (null in JSON) when `none`. */
static void table_count(table *t, uint64_t v, int none)
{
    if (none) {
        table_num(t, NAN);
    } else {
        table_cell(t, "%" PRIu64, v);
    }
}

static void table_row(table *t)
{
    if (t->format != CLI_FORMAT_TABLE) {
        cli_rec_row(&t->rec);
    } else if (table_keeps(t)) {
        for (; t->cell < t->ncols; t->cell++) {
            table_keep(t, ""); /* a short row: empty cells */
        }
    } else {
        fputc('\n', t->f);
    }
    t->cell = 0;
}

/* End the table: print a kept one.  0, or -1 when a cell could not be
 * kept (out of memory; nothing printed). */
static int table_end(table *t)
{
    if (t->format != CLI_FORMAT_TABLE) {
        cli_rec_end(&t->rec);
    } else if (table_keeps(t) && !t->failed) {
        for (int i = 0; i < t->ncols; i++) {
            fprintf(t->f, "%s%*s", i ? " " : "", t->wide[i], t->cols[i]);
        }
        fputc('\n', t->f);
        for (size_t at = 0, i = 0; at < t->len; at += strlen(t->text + at) + 1, i++) {
            int c = (int)(i % (size_t)t->ncols);
            fprintf(t->f, "%s%*s%s", c ? " " : "", t->wide[c], t->text + at,
                    c == t->ncols - 1 ? "\n" : "");
        }
    }
    free(t->text);
    t->text = NULL;
    return t->failed ? -1 : 0;
}

/* ------------------------------------------------------------ the run */

typedef struct analysis {
    const temu_machine *m;
    an_stats stats;
    an_features features;
    int feature_metric; /* AN_PBU, AN_PTS_INQ or AN_PTS_CREDIT */
    int32_t intervals;
    table links; /* streamed while reading, when wanted */
    int links_on;
    /* all nodes' traffic per interval (seed 004 Fig. 3), when the input has it */
    struct node_row {
        int64_t start_ps, end_ps;
        an_nodes x;
    } * nodes;
    size_t nnodes, nodes_cap;
    /* one interval of the watched value on every router (--slice) */
    int32_t slice_want;     /* its number, SLICE_PEAK or SLICE_NONE */
    int32_t slice_interval; /* the one kept, -1 before */
    int64_t slice_start, slice_end;
    double slice_peak;   /* its highest value */
    double *slice_value; /* value[router], NAN: no figure */
} analysis;

static const char *const link_cols[] = {
    "interval",       "start_ps", "end_ps",  "router", "gemini", "coord",   "dir",       "tiles",
    "bandwidth_gbps", "bytes",    "packets", "ppm",    "pbu",    "pts_inq", "pts_credit"};
static const int link_width[] = {8, 16, 16, 6, 12, 8, 3, 5, 14, 12, 10, 18, 9, 9, 10};

static void coord_text(const temu_machine *m, int64_t r, char *buf, size_t len)
{
    int32_t c[TEMU_MAX_DIMS];
    size_t at = 0;
    temu_router_coords(m, r, c);
    buf[0] = '\0';
    for (int d = 0; d < m->ndims && at < len; d++) {
        at += (size_t)snprintf(buf + at, len - at, "%s%d", d ? " " : "", c[d]);
    }
}

static void link_row(analysis *a, int32_t k, const an_frame *fa, const an_frame *fb, int64_t r,
                     int dir, const an_metrics *x)
{
    table *t = &a->links;
    char name[64], coord[64];
    temu_router_name(a->m, r, name, sizeof name);
    coord_text(a->m, r, coord, sizeof coord);
    table_cell(t, "%d", k);
    table_cell(t, "%" PRId64, fa->t_ps[r]);
    table_cell(t, "%" PRId64, fb->t_ps[r]);
    table_cell(t, "%" PRId64, r);
    table_cell(t, "%s", name);
    table_cell(t, "%s", coord);
    table_cell(t, "%s", temu_link_name(a->m, dir));
    table_cell(t, "%d", x->tiles);
    table_num(t, x->bandwidth);
    table_count(t, x->bytes, isnan(x->pbu)); /* empty when left out */
    table_count(t, x->packets, isnan(x->ppm));
    table_num(t, x->ppm);
    table_num(t, x->pbu);
    table_num(t, x->pts_inq);
    table_num(t, x->pts_credit);
    table_row(t);
}

/* --slice: keep this interval's value[] when it is the one asked for, or
 * with SLICE_PEAK when it holds a value higher than any before (the first
 * such interval wins a tie; Fig. 10 shows the time of the day's maximum). */
static void keep_slice(analysis *a, const double *value, int64_t start, int64_t end)
{
    double peak = -1;
    if (a->slice_want == SLICE_NONE) {
        return;
    }
    for (int64_t r = 0; r < a->m->nrouters; r++) {
        peak = value[r] > peak ? value[r] : peak; /* NAN compares false */
    }
    if (a->slice_want == SLICE_PEAK ? peak > a->slice_peak : a->slice_want == a->intervals) {
        memcpy(a->slice_value, value, (size_t)a->m->nrouters * sizeof *value);
        a->slice_interval = a->intervals;
        a->slice_start = start;
        a->slice_end = end;
        a->slice_peak = peak;
    }
}

/* Read every sample of src: the figures of each interval into a. */
static int run(an_source *src, analysis *a)
{
    const temu_machine *m = a->m;
    an_frame fa = {0}, fb = {0};
    char why[600];
    double *value = malloc((size_t)m->nrouters * sizeof *value);
    int rc = 0;
    if (an_frame_alloc(m, &fa) != 0 || an_frame_alloc(m, &fb) != 0 || value == NULL) {
        free(value);
        an_frame_free(&fa);
        an_frame_free(&fb);
        return cli_fail("analyze: out of memory for %s", m->name);
    }
    int got = an_source_next(src, &fa, why, sizeof why);
    while (got == 1 && (got = an_source_next(src, &fb, why, sizeof why)) == 1) {
        for (int64_t r = 0; r < m->nrouters; r++) {
            value[r] = NAN;
            for (int d = 0; d < AN_DIRS; d++) {
                an_metrics x;
                if (temu_link_neighbor(m, r, d) < 0 || an_dlink_metrics(m, r, d, &fa, &fb, &x)) {
                    continue; /* no such link (mesh edge), or the router lacks a sample */
                }
                if (an_stats_add(&a->stats, d, &x) != 0) {
                    got = -2;
                }
                if (a->links_on) {
                    link_row(a, a->intervals, &fa, &fb, r, d, &x);
                }
                if (d == a->features.dir) {
                    value[r] = an_metric(&x, a->feature_metric);
                }
            }
        }
        struct node_row nr = {fa.time_ps, fb.time_ps, {0}};
        if (an_source_has_nic(src) && an_nodes_interval(m, &fa, &fb, &nr.x) == 0) {
            if (an_reserve((void **)&a->nodes, &a->nodes_cap, a->nnodes, sizeof *a->nodes, 64) ||
                an_stats_add_nodes(&a->stats, &nr.x) != 0) {
                got = -2;
            } else {
                a->nodes[a->nnodes++] = nr;
            }
        }
        if (got == -2 || an_features_step(&a->features, a->intervals, fa.time_ps, value) != 0) {
            got = -2;
            break;
        }
        keep_slice(a, value, fa.time_ps, fb.time_ps);
        a->intervals++;
        an_frame swap = fa;
        fa = fb;
        fb = swap;
    }
    if (got == -1) {
        rc = cli_fail("analyze: %s", why);
    } else if (got == -2) {
        rc = cli_fail("analyze: out of memory");
    }
    if (rc == 0 && got >= 0 && a->intervals == 0) {
        rc = cli_fail("analyze: %s holds fewer than two samples: no interval to analyse",
                      an_source_kind(src));
    }
    free(value);
    an_frame_free(&fa);
    an_frame_free(&fb);
    return rc;
}

/* ------------------------------------------------------------ reports */

static int report_summary(analysis *a, FILE *f, cli_format format)
{
    static const char *const cols[] = {"dim",
                                       "samples",
                                       "ppm_mean",
                                       "ppm_max",
                                       "pbu_mean",
                                       "pbu_max",
                                       "pbu_over5",
                                       "pts_inq_mean",
                                       "pts_inq_max",
                                       "pts_inq_over10",
                                       "pts_credit_mean",
                                       "pts_credit_max",
                                       "pts_credit_over10",
                                       "resets",
                                       "over100"};
    table t;
    table_begin(&t, f, format, cols, NULL, 15);
    for (int d = 0; d < AN_DIMS; d++) {
        const an_values *v = a->stats.values[d];
        table_cell(&t, "%c", dim_names[d]);
        table_cell(&t, "%" PRIu64, a->stats.samples[d]);
        table_num(&t, an_values_mean(&v[AN_PPM]));
        table_num(&t, an_values_max(&v[AN_PPM]));
        table_num(&t, an_values_mean(&v[AN_PBU]));
        table_num(&t, an_values_max(&v[AN_PBU]));
        table_num(&t, an_values_over(&v[AN_PBU], 5)); /* seed 004 IV.B: > 5 %, IV.C: > 10 % */
        table_num(&t, an_values_mean(&v[AN_PTS_INQ]));
        table_num(&t, an_values_max(&v[AN_PTS_INQ]));
        table_num(&t, an_values_over(&v[AN_PTS_INQ], 10));
        table_num(&t, an_values_mean(&v[AN_PTS_CREDIT]));
        table_num(&t, an_values_max(&v[AN_PTS_CREDIT]));
        table_num(&t, an_values_over(&v[AN_PTS_CREDIT], 10));
        table_cell(&t, "%" PRIu64, a->stats.resets[d]); /* counters left out (an_dlink_check) */
        table_cell(&t, "%" PRIu64, a->stats.over[d]);
        table_row(&t);
    }
    return table_end(&t);
}

static int report_correlation(analysis *a, FILE *f, cli_format format)
{
    static const char *const cols[] = {"dim", "samples", "credit", "inq"};
    table t;
    table_begin(&t, f, format, cols, NULL, 4);
    for (int d = 0; d < AN_DIMS; d++) {
        table_cell(&t, "%c", dim_names[d]);
        table_cell(&t, "%" PRIu64, a->stats.samples[d]);
        table_num(&t, an_corr_value(&a->stats.credit[d]));
        table_num(&t, an_corr_value(&a->stats.inq[d]));
        table_row(&t);
    }
    return table_end(&t);
}

typedef struct ccdf_ctx {
    table *t;
    FILE *data; /* gnuplot data, or NULL */
    const char *dim, *metric;
} ccdf_ctx;

static void ccdf_point(void *p, double value, size_t count, size_t total)
{
    ccdf_ctx *c = p;
    if (c->t != NULL) {
        table_cell(c->t, "%s", c->dim);
        table_cell(c->t, "%s", c->metric);
        table_num(c->t, value);
        table_cell(c->t, "%zu", count);
        table_cell(c->t, "%zu", total);
        table_num(c->t, (double)count / (double)total);
        table_row(c->t);
    }
    if (c->data != NULL) {
        fprintf(c->data, "%.9g %.9g\n", value, (double)count / (double)total);
    }
}

static int report_ccdf(analysis *a, FILE *f, cli_format format)
{
    static const char *const cols[] = {"dim", "metric", "value", "count", "total", "ccdf"};
    static const int width[] = {3, 13, 20, 9, 9, 9}; /* printed as they come: ppm can be long */
    table t;
    table_begin(&t, f, format, cols, width, 6);
    for (int k = 0; k < AN_METRICS; k++) {
        for (int d = 0; d < AN_DIMS; d++) {
            ccdf_ctx c = {&t, NULL, dim_label[d], an_metric_names[k]};
            an_ccdf(&a->stats.values[d][k], ccdf_point, &c);
        }
    }
    for (int k = 0; k < AN_NODE_METRICS; k++) { /* all nodes together, per interval */
        ccdf_ctx c = {&t, NULL, "all", an_node_metric_names[k]};
        an_ccdf(&a->stats.nodes[k], ccdf_point, &c);
    }
    return table_end(&t);
}

static int report_regions(analysis *a, FILE *f, cli_format format)
{
    static const char *const cols[] = {"feature", "interval", "start_ps",   "dir",
                                       "router",  "gemini",   "coord",      "extent",
                                       "ring",    "max",      "max_router", "from"};
    const an_features *fs = &a->features;
    table t;
    size_t e = 0;
    table_begin(&t, f, format, cols, NULL, 12);
    for (size_t i = 0; i < fs->n; i++) {
        const an_feature *x = &fs->f[i];
        char name[64], coord[64], from[CLI_REC_CELL];
        size_t at = 0;
        temu_router_name(a->m, x->first, name, sizeof name);
        coord_text(a->m, x->first, coord, sizeof coord);
        from[0] = '\0';
        for (; e < fs->ne && fs->e[e].to == x->id; e++) { /* its predecessors */
            at += (size_t)snprintf(from + at, at < sizeof from ? sizeof from - at : 0, "%s%lld",
                                   at ? " " : "", (long long)fs->e[e].from);
        }
        table_cell(&t, "%lld", (long long)x->id);
        table_cell(&t, "%d", x->interval);
        table_cell(&t, "%" PRId64, x->t_ps);
        table_cell(&t, "%s", temu_link_name(a->m, fs->dir));
        table_cell(&t, "%" PRId64, x->first);
        table_cell(&t, "%s", name);
        table_cell(&t, "%s", coord);
        table_cell(&t, "%d", x->extent);
        table_cell(&t, "%d", x->ring);
        table_num(&t, x->max);
        table_cell(&t, "%" PRId64, x->max_router);
        table_cell(&t, "%s", format == CLI_FORMAT_TABLE && from[0] == '\0' ? "-" : from);
        table_row(&t);
    }
    return table_end(&t);
}

static int report_nodes(analysis *a, FILE *f, cli_format format)
{
    static const char *const cols[] = {"interval",      "start_ps",        "end_ps",
                                       "nodes",         "injection_bytes", "ingestion_bytes",
                                       "injection_bpm", "ingestion_bpm"};
    table t;
    table_begin(&t, f, format, cols, NULL, 8);
    for (size_t i = 0; i < a->nnodes; i++) {
        const struct node_row *n = &a->nodes[i];
        table_cell(&t, "%zu", i);
        table_cell(&t, "%" PRId64, n->start_ps);
        table_cell(&t, "%" PRId64, n->end_ps);
        table_cell(&t, "%" PRId64, n->x.nodes);
        table_cell(&t, "%" PRIu64, n->x.out);
        table_cell(&t, "%" PRIu64, n->x.in);
        table_num(&t, n->x.out_bpm);
        table_num(&t, n->x.in_bpm);
        table_row(&t);
    }
    return table_end(&t);
}

static const char *const slice_cols[] = {"interval", "start_ps", "end_ps", "router", "gemini", "x",
                                         "y",        "z",        "dir",    "metric", "value"};

/* The kept slice: a row per router, its value empty (JSON null, "-") when
 * it has no figure (a mesh edge, or no sample at either end). */
static int report_slice(analysis *a, FILE *f, cli_format format)
{
    table t;
    table_begin(&t, f, format, slice_cols, NULL, 11);
    for (int64_t r = 0; r < a->m->nrouters; r++) {
        char name[64];
        int32_t c[TEMU_MAX_DIMS];
        temu_router_name(a->m, r, name, sizeof name);
        temu_router_coords(a->m, r, c);
        table_cell(&t, "%d", a->slice_interval);
        table_cell(&t, "%" PRId64, a->slice_start);
        table_cell(&t, "%" PRId64, a->slice_end);
        table_cell(&t, "%" PRId64, r);
        table_cell(&t, "%s", name);
        for (int d = 0; d < AN_DIMS; d++) {
            table_cell(&t, "%d", c[d]);
        }
        table_cell(&t, "%s", temu_link_name(a->m, a->features.dir));
        table_cell(&t, "%s", an_metric_names[a->feature_metric]);
        table_num(&t, a->slice_value[r]);
        table_row(&t);
    }
    return table_end(&t);
}

/* ------------------------------------------------------ seed 004's figures */

/* The dimension with the highest (most > 0) or lowest (most < 0) mean of
 * metric, as a letter; "-" when no dimension has a mean. */
static const char *seed004_dim_by(const analysis *a, int metric, int most)
{
    int best = -1;
    double bv = 0;
    for (int d = 0; d < AN_DIMS; d++) {
        double v = an_values_mean(&a->stats.values[d][metric]);
        if (!isnan(v) && (best < 0 || (most > 0 ? v > bv : v < bv))) {
            best = d;
            bv = v;
        }
    }
    return best < 0 ? "-" : dim_label[best];
}

/* The dimensions whose mean inq P_Ts exceeds their mean credit P_Ts. */
static void seed004_inq_over_credit(const analysis *a, char *out, size_t len)
{
    size_t at = 0;
    out[0] = '\0';
    for (int d = 0; d < AN_DIMS; d++) {
        const an_values *v = a->stats.values[d];
        if (an_values_mean(&v[AN_PTS_INQ]) > an_values_mean(&v[AN_PTS_CREDIT])) {
            at += (size_t)snprintf(out + at, at < len ? len - at : 0, "%s%s", at ? " " : "",
                                   dim_label[d]);
        }
    }
    if (at == 0) {
        snprintf(out, len, "none");
    }
}

/* The longest evolution of congestion regions, in intervals: a feature
 * continues the longest chain among the features it came from (edges are
 * kept in order of their later feature, features in order of id). */
static int32_t seed004_longest_region(const an_features *fs)
{
    int32_t best = 0, *chain = calloc(fs->n + 1, sizeof *chain);
    size_t e = 0;
    for (size_t i = 0; chain != NULL && i < fs->n; i++) {
        chain[i] = 1;
        for (; e < fs->ne && fs->e[e].to == fs->f[i].id; e++) {
            int32_t c = chain[fs->e[e].from] + 1;
            chain[i] = c > chain[i] ? c : chain[i];
        }
        best = chain[i] > best ? chain[i] : best;
    }
    free(chain);
    return best;
}

/* One row of seed 004's table: the product's figure beside the paper's. */
static void seed004_row(table *t, const char *figure, const char *dim, const char *ours,
                        const char *paper, const char *where)
{
    table_cell(t, "%s", figure);
    table_cell(t, "%s", dim);
    table_cell(t, "%s", ours);
    table_cell(t, "%s", paper);
    table_cell(t, "%s", where);
    table_row(t);
}

/* A figure of dimension d: percentages to 3 significant digits (the
 * shares above a threshold can be tiny), correlations to 2 decimals. */
static void seed004_row_num(table *t, const char *figure, int d, double ours, int corr,
                            const char *paper, const char *where)
{
    char buf[64];
    if (isnan(ours)) {
        snprintf(buf, sizeof buf, "-");
    } else {
        snprintf(buf, sizeof buf, corr ? "%.2f" : "%.3g", ours == 0 ? 0.0 : ours);
    }
    seed004_row(t, figure, dim_label[d], strcmp(buf, "-0.00") == 0 ? "0.00" : buf, paper, where);
}

/* Seed 004's published figures (Jha et al., HPCMASPA 2018: five months of
 * Blue Waters' minute samples) beside this input's: the shares of
 * d-link-minutes above its thresholds (section IV.B-C, in percent), Table
 * I's correlations, which dimension carries and stalls most (Figs. 4a,
 * 5), and the congestion regions of Fig. 9 (its defaults: X+ credit P_Ts
 * >= 40; the paper's day held regions lasting up to 2.25 hours, ~85 at
 * most).  "-": the paper gives no figure. */
static int report_seed004(analysis *a, FILE *f, cli_format format)
{
    static const char *const cols[] = {"figure", "dim", "product", "paper", "source"};
    static const int width[] = {24, 3, 9, 5, 0}; /* fixed: the rows print as they come */
    static const char *const pbu[AN_DIMS] = {"7.5", "2.7", "11"};
    static const char *const inq10[AN_DIMS] = {"4.1", "-", "-"};
    static const char *const credit10[AN_DIMS] = {"3.1", "-", "-"};
    static const char *const corr_credit[AN_DIMS] = {"0.60", "0.50", "0.66"};
    static const char *const corr_inq[AN_DIMS] = {"0.52", "0.41", "0.65"};
    char buf[64];
    table t;
    table_begin(&t, f, format, cols, width, 5);
    for (int d = 0; d < AN_DIMS; d++) {
        const an_values *v = a->stats.values[d];
        seed004_row_num(&t, "pbu_over5_pct", d, 100 * an_values_over(&v[AN_PBU], 5), 0, pbu[d],
                        "IV.B");
    }
    for (int d = 0; d < AN_DIMS; d++) {
        const an_values *v = a->stats.values[d];
        seed004_row_num(&t, "pts_inq_over10_pct", d, 100 * an_values_over(&v[AN_PTS_INQ], 10), 0,
                        inq10[d], "IV.C");
    }
    for (int d = 0; d < AN_DIMS; d++) {
        const an_values *v = a->stats.values[d];
        seed004_row_num(&t, "pts_credit_over10_pct", d, 100 * an_values_over(&v[AN_PTS_CREDIT], 10),
                        0, credit10[d], "IV.C");
    }
    for (int d = 0; d < AN_DIMS; d++) {
        seed004_row_num(&t, "corr_pbu_credit", d, an_corr_value(&a->stats.credit[d]), 1,
                        corr_credit[d], "Table I");
    }
    for (int d = 0; d < AN_DIMS; d++) {
        seed004_row_num(&t, "corr_pbu_inq", d, an_corr_value(&a->stats.inq[d]), 1, corr_inq[d],
                        "Table I");
    }
    seed004_row(&t, "most_packets", "-", seed004_dim_by(a, AN_PPM, 1), "Z", "IV.B, Fig. 4a");
    seed004_row(&t, "fewest_packets", "-", seed004_dim_by(a, AN_PPM, -1), "Y", "IV.B, Fig. 4a");
    seed004_row(&t, "most_inq_stalled", "-", seed004_dim_by(a, AN_PTS_INQ, 1), "X",
                "IV.C, Fig. 5a");
    seed004_row(&t, "most_credit_stalled", "-", seed004_dim_by(a, AN_PTS_CREDIT, 1), "X",
                "IV.C, Fig. 5b");
    seed004_inq_over_credit(a, buf, sizeof buf);
    seed004_row(&t, "inq_over_credit", "-", buf, "X", "IV.C");
    const char *dir = temu_link_name(a->m, a->features.dir);
    snprintf(buf, sizeof buf, "%zu", a->features.n);
    seed004_row(&t, "regions", dir, buf, "-", "VI, Fig. 9");
    snprintf(buf, sizeof buf, "%" PRId32, seed004_longest_region(&a->features));
    seed004_row(&t, "longest_region_intervals", dir, buf, "135", "VI, Fig. 9a (2.25 h of minutes)");
    double peak = NAN;
    for (size_t i = 0; i < a->features.n; i++) {
        peak = isnan(peak) || a->features.f[i].max > peak ? a->features.f[i].max : peak;
    }
    if (isnan(peak)) {
        snprintf(buf, sizeof buf, "-");
    } else {
        snprintf(buf, sizeof buf, "%.3g", peak);
    }
    seed004_row(&t, "region_peak_pts", dir, buf, "85", "VI, Fig. 9c");
    return table_end(&t);
}

/* Print report `which`; 0, or -1 out of memory. */
static int report(analysis *a, int which, FILE *f, cli_format format)
{
    switch (which) {
    case REP_NODES:
        return report_nodes(a, f, format);
    case REP_SUMMARY:
        return report_summary(a, f, format);
    case REP_CCDF:
        return report_ccdf(a, f, format);
    case REP_CORR:
        return report_correlation(a, f, format);
    case REP_REGIONS:
        return report_regions(a, f, format);
    case REP_SLICE:
        return report_slice(a, f, format);
    case REP_SEED004:
        return report_seed004(a, f, format);
    default:
        return 0; /* links are written while reading */
    }
}

/* ------------------------------------------------------------ pictures */

static const char *const metric_titles[AN_METRICS] = {
    "packets per minute", "percent bandwidth used (P_bu)", "percent time stalled, inq (P_Ts)",
    "percent time stalled, credit (P_Ts)"};

/* One line of a CCDF picture. */
typedef struct curve {
    an_values *v;
    const char *label;
} curve;

/* End a picture: close its gnuplot data and script files, run the script
 * when rc is 0 and there is something to draw, print the PNG's path, and
 * remove both files.  Returns rc, or gnuplot's failure. */
static int gnuplot_finish(int rc, int draw, FILE *fd, FILE *fs, const char *data,
                          const char *script, const char *png)
{
    if (fd != NULL) {
        fclose(fd);
    }
    if (fs != NULL) {
        fclose(fs);
    }
    if (rc == 0 && draw) {
        char *args[] = {(char *)script, NULL};
        rc = cli_run_tool("analyze", "TORUSEMU_GNUPLOT", "gnuplot", "gnuplot-nox", args, png);
        if (rc == 0) {
            printf("%s\n", png);
        }
    }
    unlink(data);
    unlink(script);
    return rc;
}

/* The plot element of curve i (gnuplot colour i + 1, whatever is left
 * out): a step line; a point at (0, 1) and "all 0" in the key when every
 * value is 0 (a step line of one point draws nothing); only a key entry
 * when it has no samples. */
static void ccdf_element(FILE *fs, FILE *fd, const char *data, const fig_scale *sc, const curve *c,
                         int i, int *block)
{
    char using[64];
    size_t total = an_values_total(c->v);
    if (total == 0) {
        fprintf(fs, "keyentry with lines lc %d dt 3 title '%s: no samples'", i + 1, c->label);
        return;
    }
    ccdf_ctx x = {NULL, fd, NULL, NULL};
    an_ccdf(c->v, ccdf_point, &x);
    fprintf(fd, "\n\n");
    snprintf(using, sizeof using, sc->exp ? "($1/1e%d):2" : "1:2", sc->exp);
    if (an_values_max(c->v) == 0) {
        fprintf(fs,
                "'%s' index %d using %s with points lc %d pt 7 ps 1.5 title '%s: all zero (%zu "
                "samples)'",
                data, *block, using, i + 1, c->label, total);
    } else {
        fprintf(fs, "'%s' index %d using %s with fsteps lc %d lw 2 title '%s'", data, *block, using,
                i + 1, c->label);
    }
    (*block)++;
}

/* DIR/ccdf-STEM.png through gnuplot: a curve per dimension (or node
 * metric).  The y axis is logarithmic with ticks 10^k; the x axis shows
 * values divided by a power of 1000 named in its label, so that its tick
 * labels stay short (figure.h). */
static int plot_ccdf(const char *dir, const char *stem, const char *what, const char *per,
                     const char *title, curve *cv, int n)
{
    char data[4200], script[4200], png[4200], xlabel[300], suffix[32];
    snprintf(data, sizeof data, "%s/ccdf-%s.dat", dir, stem);
    snprintf(script, sizeof script, "%s/ccdf-%s.gp", dir, stem);
    snprintf(png, sizeof png, "%s/ccdf-%s.png", dir, stem);
    FILE *fd = fopen(data, "w"), *fs = fopen(script, "w");
    int rc = 0, block = 0;
    double max = 0;
    for (int i = 0; i < n; i++) {
        double m = an_values_max(cv[i].v); /* NAN without samples */
        max = m > max ? m : max;
    }
    fig_scale sc = fig_scale_of(max);
    fig_scale_suffix(&sc, suffix, sizeof suffix);
    fig_enhanced(what, xlabel, sizeof xlabel);
    if (fd == NULL || fs == NULL) {
        rc = cli_fail("analyze: cannot write in %s: %s", dir, strerror(errno));
    } else {
        fprintf(fs,
                "set terminal pngcairo size 900,640\nset output '%s'\n"
                "set title \"%s\\nCCDF of %s per %s\" noenhanced\n"
                "set xlabel '%s%s'\nset ylabel 'P(value >= x)'\n"
                "set logscale y\nset format y '10^{%%L}'\nset format x '%%g'\n"
                "set yrange [*:1.2]\nset key top right\nset grid\n%s"
                "plot ",
                png, title, what, per, xlabel, suffix, max > 0 ? "" : "set xrange [0:1]\n");
        for (int i = 0; i < n; i++) {
            fprintf(fs, "%s", i ? ", " : "");
            ccdf_element(fs, fd, data, &sc, &cv[i], i, &block);
        }
        fprintf(fs, "\n");
    }
    return gnuplot_finish(rc, block > 0, fd, fs, data, script, png);
}

/* Whole-number axis tics, at most about 8 along a dimension of n. */
static int tic_step(int n)
{
    return (n + 7) / 8;
}

/* DIR/slice.png through gnuplot (seed 004 Fig. 10): every Gemini with a
 * figure as a point of the 3-D torus at its coordinates, coloured by its
 * value on a fixed 0-100 percent scale (so that slices compare), drawn
 * larger when not 0.  No minimum value, as in Fig. 10. */
static int plot_slice(const analysis *a, const char *dir, const char *title)
{
    const temu_machine *m = a->m;
    char data[4200], script[4200], png[4200];
    snprintf(data, sizeof data, "%s/slice.dat", dir);
    snprintf(script, sizeof script, "%s/slice.gp", dir);
    snprintf(png, sizeof png, "%s/slice.png", dir);
    FILE *fd = fopen(data, "w"), *fs = fopen(script, "w");
    int rc = 0;
    int64_t points = 0;
    char from[48], to[48]; /* the interval in a unit chosen by its end and length */
    fig_time unit = fig_time_of(a->slice_end, a->slice_end - a->slice_start);
    fig_time_text(&unit, a->slice_start, from, sizeof from);
    fig_time_text(&unit, a->slice_end, to, sizeof to);
    if (fd == NULL || fs == NULL) {
        rc = cli_fail("analyze: cannot write in %s: %s", dir, strerror(errno));
    } else {
        for (int64_t r = 0; r < m->nrouters; r++) {
            int32_t c[TEMU_MAX_DIMS];
            if (isnan(a->slice_value[r])) {
                continue;
            }
            temu_router_coords(m, r, c);
            fprintf(fd, "%d %d %d %.9g\n", c[0], c[1], c[2], a->slice_value[r]);
            points++;
        }
        fprintf(fs,
                "set terminal pngcairo size 1000,800\nset output '%s'\n"
                "set title \"%s\\n%s d-links, %s: interval %d (%s to %s)\" noenhanced\n"
                "set xlabel 'X'\nset ylabel 'Y'\nset zlabel 'Z'\n"
                "set xrange [-0.5:%g]\nset yrange [-0.5:%g]\nset zrange [-0.5:%g]\n"
                "set xtics 0,%d\nset ytics 0,%d\nset ztics 0,%d\n"
                "set ticslevel 0\nset view 60,30\nset grid\n"
                "set cbrange [0:100]\nset cblabel 'percent'\n"
                "set palette defined (0 '#d0d0d0', 1 '#2060c0', 2 '#f0c000', 3 '#d02000')\n"
                "splot '%s' using 1:2:3:($4 > 0 ? 2 : 0.6):4 with points pt 7 ps variable "
                "lc palette notitle\n",
                png, title, temu_link_name(m, a->features.dir), metric_titles[a->feature_metric],
                a->slice_interval, from, to, m->size[0] - 0.5, m->size[1] - 0.5, m->size[2] - 0.5,
                tic_step(m->size[0]), tic_step(m->size[1]), tic_step(m->size[2]), data);
    }
    if (rc == 0 && points == 0) {
        rc = cli_fail("analyze: interval %d has no %s figure of any Gemini to draw",
                      a->slice_interval, temu_link_name(m, a->features.dir));
    }
    return gnuplot_finish(rc, 1, fd, fs, data, script, png);
}

/* Write one report as CSV into dir/name; the feature graph as DOT. */
static int write_file(analysis *a, const char *dir, const char *name, int which, const char *title)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    if (f == NULL) {
        return cli_fail("analyze: cannot write '%s': %s", path, strerror(errno));
    }
    if (which >= 0 && report(a, which, f, CLI_FORMAT_CSV) != 0) {
        fclose(f);
        return cli_fail("analyze: out of memory writing '%s'", path);
    } else if (which < 0) {
        char full[400]; /* what the features are */
        snprintf(full, sizeof full, "%s: congestion features, %s %s >= %g", title,
                 temu_link_name(a->m, a->features.dir), an_metric_names[a->feature_metric],
                 a->features.threshold);
        an_features_dot(&a->features, f, full, an_metric_names[a->feature_metric]);
    }
    if (fclose(f) != 0) {
        return cli_fail("analyze: cannot write '%s': %s", path, strerror(errno));
    }
    printf("%s\n", path);
    return 0;
}

static int write_dir(analysis *a, const char *dir, int png, const char *title)
{
    static const char *const files[] = {"summary.csv", "ccdf.csv",  "correlation.csv",
                                        "regions.csv", "nodes.csv", "seed004.csv"};
    static const int which[] = {REP_SUMMARY, REP_CCDF,  REP_CORR,
                                REP_REGIONS, REP_NODES, REP_SEED004};
    int rc = 0;
    for (size_t i = 0; i < sizeof files / sizeof files[0] && rc == 0; i++) {
        rc = write_file(a, dir, files[i], which[i], title);
    }
    if (rc == 0) {
        rc = write_file(a, dir, "features.dot", -1, title);
    }
    for (int k = 0; k < AN_METRICS && rc == 0 && png; k++) {
        curve cv[AN_DIMS];
        for (int d = 0; d < AN_DIMS; d++) {
            cv[d] = (curve){&a->stats.values[d][k], dim_label[d]};
        }
        rc = plot_ccdf(dir, an_metric_names[k], metric_titles[k], "d-link and interval", title, cv,
                       AN_DIMS);
    }
    if (rc == 0 && png) { /* seed 004 Fig. 3 */
        curve cv[] = {{&a->stats.nodes[AN_INJECTION], "injection"},
                      {&a->stats.nodes[AN_INGESTION], "ingestion"}};
        rc = plot_ccdf(dir, "nodes", "bytes per minute, all nodes", "interval", title, cv, 2);
    }
    if (rc == 0 && a->slice_want != SLICE_NONE) {
        rc = write_file(a, dir, "slice.csv", REP_SLICE, title);
        if (rc == 0 && png) {
            rc = plot_slice(a, dir, title);
        }
    }
    if (rc == 0 && png) {
        char dot[4200], out[4200];
        snprintf(dot, sizeof dot, "%s/features.dot", dir);
        snprintf(out, sizeof out, "%s/features.png", dir);
        char *args[] = {"-Tpng", dot, "-o", out, NULL};
        rc = cli_run_tool("analyze", "TORUSEMU_DOT", "dot", "graphviz", args, out);
        if (rc == 0) {
            printf("%s\n", out);
        }
    }
    return rc;
}

/* ------------------------------------------------------------ options */

typedef struct options {
    const char *machine, *outdir, *feature_link;
    int report, png, feature, report_given;
    int32_t slice; /* an interval, SLICE_PEAK or SLICE_NONE */
    double threshold;
    cli_format format;
} options;

static int parse_options(int argc, char **argv, options *o, int *done)
{
    static const struct option opts[] = {
        CLI_COMMON_OPTIONS,
        {"machine", required_argument, NULL, 'm'},
        {"report", required_argument, NULL, 'r'},
        {"output-dir", required_argument, NULL, 'o'},
        {"no-png", no_argument, NULL, OPT_NO_PNG},
        {"feature", required_argument, NULL, OPT_FEATURE},
        {"feature-link", required_argument, NULL, OPT_FEATURE_LINK},
        {"threshold", required_argument, NULL, OPT_THRESHOLD},
        {"slice", required_argument, NULL, OPT_SLICE},
        CLI_FORMAT_OPTION,
        {NULL, 0, NULL, 0}};
    int c, rc = 0;
    *o = (options){NULL,          NULL, "X+",       REP_SUMMARY, 1,
                   AN_PTS_CREDIT, 0,    SLICE_NONE, 40.0,        CLI_FORMAT_TABLE};
    cli_begin();
    while ((c = cli_next(argc, argv, ":hm:r:o:", opts, usage, done, &rc)) != -1) {
        if (*done) {
            return rc;
        }
        char *end;
        switch (c) {
        case 'm':
            o->machine = optarg;
            break;
        case 'o':
            o->outdir = optarg;
            break;
        case OPT_NO_PNG:
            o->png = 0;
            break;
        case OPT_FEATURE_LINK:
            o->feature_link = optarg;
            break;
        case 'r':
            for (o->report = 0; o->report < REPORTS; o->report++) {
                if (strcmp(optarg, report_names[o->report]) == 0) {
                    break;
                }
            }
            if (o->report == REPORTS) {
                return cli_fail("analyze: --report '%s' is not one of summary, links, ccdf, "
                                "correlation, regions, nodes, slice, seed004",
                                optarg);
            }
            o->report_given = 1;
            break;
        case OPT_SLICE: {
            uint64_t k;
            if (strcmp(optarg, "peak") == 0) {
                o->slice = SLICE_PEAK;
            } else if (cli_parse_uint(optarg, &k) == 0 && k <= INT32_MAX) {
                o->slice = (int32_t)k;
            } else {
                return cli_fail("analyze: --slice '%s' is neither an interval number (0, 1, ...) "
                                "nor peak",
                                optarg);
            }
            break;
        }
        case OPT_FEATURE:
            o->feature = strcmp(optarg, "credit") == 0 ? AN_PTS_CREDIT
                         : strcmp(optarg, "inq") == 0  ? AN_PTS_INQ
                         : strcmp(optarg, "pbu") == 0  ? AN_PBU
                                                       : -1;
            if (o->feature < 0) {
                return cli_fail("analyze: --feature '%s' is not one of credit, inq, pbu", optarg);
            }
            break;
        case OPT_THRESHOLD:
            errno = 0;
            o->threshold = strtod(optarg, &end);
            if (errno != 0 || end == optarg || *end != '\0' || !(o->threshold >= 0) ||
                o->threshold > 100) {
                return cli_fail("analyze: --threshold '%s' is not a percentage (0..100)", optarg);
            }
            break;
        default: /* CLI_OPT_FORMAT */
            if (cli_parse_format(optarg, &o->format) != 0) {
                return CLI_EXIT_USAGE;
            }
        }
    }
    if (o->report == REP_SLICE && o->slice == SLICE_NONE) {
        return cli_fail("analyze: --report=slice needs --slice=K (an interval number or peak)");
    }
    if (o->slice != SLICE_NONE && !o->report_given) {
        o->report = REP_SLICE; /* what --slice alone prints */
    }
    if (optind >= argc) {
        return cli_fail("analyze: missing FILE (a series file or an LDMS CSV file)");
    }
    if (optind + 1 < argc) {
        return cli_fail("analyze: unexpected argument '%s'", argv[optind + 1]);
    }
    return 0;
}

int cmd_analyze(int argc, char **argv)
{
    options o;
    int done = 0, rc = parse_options(argc, argv, &o, &done);
    if (rc != 0 || done) {
        return rc;
    }
    const char *path = argv[optind];
    an_source *src;
    char why[600];
    if (an_source_open(path, o.machine, &src, why, sizeof why) != 0) {
        return cli_fail("analyze: %s", why);
    }
    analysis a;
    memset(&a, 0, sizeof a);
    a.m = an_source_machine(src);
    a.feature_metric = o.feature;
    a.slice_want = o.slice;
    a.slice_interval = -1;
    a.slice_peak = -1;
    if (o.slice != SLICE_NONE &&
        (a.slice_value = malloc((size_t)a.m->nrouters * sizeof *a.slice_value)) == NULL) {
        rc = cli_fail("analyze: out of memory");
    }
    int fdir = temu_link_parse(a.m, o.feature_link);
    if (rc != 0) {
        /* reported */
    } else if (fdir < 0 || fdir >= AN_DIRS) {
        rc = cli_fail("analyze: --feature-link '%s' is not a torus direction of %s (X+ ... Z-)",
                      o.feature_link, a.m->name);
    } else if (an_features_init(&a.features, a.m, fdir, o.threshold) != 0) {
        rc = cli_fail("analyze: out of memory");
    }
    if (rc == 0 && o.outdir != NULL && strpbrk(o.outdir, "'\"\\\n") != NULL) {
        rc = cli_fail("analyze: the directory name '%s' holds a quote, backslash or line break",
                      o.outdir);
    } else if (rc == 0 && o.outdir != NULL && mkdir(o.outdir, 0777) != 0 && errno != EEXIST) {
        rc = cli_fail("analyze: cannot make the directory '%s': %s", o.outdir, strerror(errno));
    }
    FILE *links = NULL;
    char lpath[4200];
    if (rc == 0 && o.outdir != NULL) {
        snprintf(lpath, sizeof lpath, "%s/links.csv", o.outdir);
        links = fopen(lpath, "w");
        if (links == NULL) {
            rc = cli_fail("analyze: cannot write '%s': %s", lpath, strerror(errno));
        } else {
            table_begin(&a.links, links, CLI_FORMAT_CSV, link_cols, link_width, 15);
            a.links_on = 1;
        }
    } else if (rc == 0 && o.report == REP_LINKS) {
        table_begin(&a.links, stdout, o.format, link_cols, link_width, 15);
        a.links_on = 1;
    }
    if (rc == 0) {
        rc = run(src, &a);
    }
    if (a.links_on) {
        table_end(&a.links);
    }
    if (links != NULL && fclose(links) != 0 && rc == 0) {
        rc = cli_fail("analyze: cannot write '%s': %s", lpath, strerror(errno));
    }
    if (rc == 0 && o.slice >= 0 && a.slice_interval < 0) {
        rc = cli_fail("analyze: --slice %d: the input has %d intervals (0..%d)", o.slice,
                      a.intervals, a.intervals - 1);
    } else if (rc == 0 && o.slice == SLICE_PEAK && a.slice_interval < 0) {
        rc = cli_fail("analyze: --slice=peak: no Gemini has a %s figure in any interval",
                      o.feature_link);
    }
    if (rc == 0) {
        char title[300];
        snprintf(title, sizeof title, "%s (%s, %d intervals)", path, a.m->name, a.intervals);
        for (char *q = strpbrk(title, "\"\\"); q != NULL; q = strpbrk(q, "\"\\")) {
            *q = '\''; /* the title goes into double-quoted gnuplot and DOT strings */
        }
        if (o.outdir != NULL) {
            printf("%s\n", lpath);
            rc = write_dir(&a, o.outdir, o.png, title);
        } else {
            rc = report(&a, o.report, stdout, o.format) != 0 ? cli_fail("analyze: out of memory")
                                                             : 0;
        }
    }
    an_features_free(&a.features);
    an_stats_free(&a.stats);
    free(a.nodes);
    free(a.slice_value);
    an_source_close(src);
    return rc;
}
