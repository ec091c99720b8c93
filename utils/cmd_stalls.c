/*
 * cmd_stalls.c - `torusemu stalls`: the stall counters of one or two
 * stores by link dimension, as Pedretti et al., "Using the Cray Gemini
 * Performance Counters" (CUG 2013; seed 000) Fig. 7 shows them for two
 * placements of MiniGhost: per Gemini, the input-queue (inq) and credit
 * (output) stall cycles of its X, Y, Z and host links, their mean over
 * the Geminis (the bars) and the largest (the error bars).
 *
 *   torusemu stalls STORE [STORE2] [--format F] [-o FILE.png]
 *
 * A router's figure for a dimension is the counter summed over the links
 * of that dimension (both directions) and, on Gemini, over each link's
 * tiles - the tiles of a link as emu/gemini.c maps them (Pedretti 2013
 * Fig. 3; doc/mapping.md), through temu_gemini_link_tiles.  Gemini:
 * GM_TILE_PERF_INQ_STALL and _CREDIT_STALL, 800 MHz cycles, for X, Y, Z
 * and the host link (HH).  Blue Gene/Q: the receive-FIFO occupancy of the
 * incoming links (packets summed per 500 MHz cycle, all VCs) for A ... E
 * and the I/O link.  Blue Gene/P: NO_TOKENS cycles (850 MHz) of each
 * sending direction, X+ ... Z-: one counter per direction, so a row per
 * direction.  The timing model fills them (torusemu replay --timing
 * --keep); doc/model.md says what each counts.
 *
 * The table (--format table, csv, json) has a row per counter, dimension
 * and store - the stores side by side within a dimension; -o draws Fig.
 * 7 with gnuplot: a panel per counter, a group of bars per dimension, a
 * bar per store.
 */
#include "cli.h"
#include "figure.h"
#include "records.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void usage(FILE *f)
{
    fprintf(f, "Usage: torusemu stalls [OPTION]... STORE [STORE2]\n"
               "Stall counters of a store by link dimension, as Pedretti et al. (CUG 2013)\n"
               "Fig. 7 shows them: per Gemini the input-queue (INQ_STALL) and credit\n"
               "(CREDIT_STALL) stall cycles of its X, Y, Z and host links, their mean over\n"
               "the Geminis and the largest; with STORE2 (another placement of the job on\n"
               "the same machine) both side by side.  Blue Gene/Q: receive-FIFO occupancy\n"
               "by dimension A-E and I/O; Blue Gene/P: NO_TOKENS cycles by direction.  The\n"
               "stores of `torusemu replay --timing --keep` hold these counts.\n"
               "\n"
               "Options:\n"
               "      --format=F    table (default), csv or json: a row per counter,\n"
               "                    dimension and store (metric, dim, store, routers,\n"
               "                    total, mean, max, max_router, max_at)\n"
               "  -o, --output=FILE.png  also draw the figure (gnuplot): a panel per\n"
               "                    counter, a bar per store (the mean) with an error bar\n"
               "                    up to the largest\n"
               "  -h, --help        print this help and exit\n"
               "      --version     print the version and exit\n"
               "\n"
               "Examples:\n"
               "  torusemu stalls job.store\n"
               "\n"
               "  torusemu stalls noremap.store remap.store -o fig7.png\n");
}

#define MAX_GROUPS 6  /* Gemini 4, BG/Q 6, BG/P 6 */
#define MAX_METRICS 2 /* Gemini inq and credit */
#define MAX_STORES 2

/* Counter `metric` of link l of router r, summed over the link's lanes or
 * VCs. */
typedef uint64_t (*stall_read)(const temu_session *s, int64_t r, int l, int metric);

/* What a family's stall counters are, and how its links group. */
typedef struct stall_kind {
    int nmetrics;
    const char *metric[MAX_METRICS]; /* counter names, as dump and series name them */
    const char *what[MAX_METRICS];   /* panel titles */
    const char *unit;                /* of a router's figure */
    const char *router;              /* "Gemini" or "node" */
    int ngroups;
    const char *group[MAX_GROUPS]; /* NULL: the name of the group's one link */
    unsigned links[MAX_GROUPS];    /* bit l: temu link l is in the group */
    stall_read read;
} stall_kind;

/* Gemini: inq (metric 0) or credit stalls, summed over the link's tiles. */
static uint64_t gemini_stall(const temu_session *s, int64_t r, int l, int metric)
{
    const temu_machine *m = temu_session_machine(s);
    int tiles[TEMU_GEMINI_TILES], n = temu_gemini_link_tiles(l, tiles);
    int c = metric == 0 ? TEMU_TILE_INQ_STALL : TEMU_TILE_CREDIT_STALL;
    uint64_t v = 0;
    for (int i = 0; i < n; i++) {
        v += temu_counter_read(s, temu_idx_gemini_tile(m, r, tiles[i], c));
    }
    return v;
}

/* BG/P: the link's no-token cycles. */
static uint64_t bgp_stall(const temu_session *s, int64_t r, int l, int metric)
{
    (void)metric;
    return temu_counter_read(s, temu_idx_bgp(temu_session_machine(s), r, l, TEMU_BGP_NO_TOKENS));
}

/* BG/Q: receive-FIFO occupancy summed over the VCs. */
static uint64_t bgq_stall(const temu_session *s, int64_t r, int l, int metric)
{
    const temu_machine *m = temu_session_machine(s);
    uint64_t v = 0;
    (void)metric;
    for (int vc = 0; vc < TEMU_BGQ_VCS; vc++) {
        v += temu_counter_read(s, temu_idx_bgq_nw(m, r, l, TEMU_BGQ_NW_RECV_FIFO, vc));
    }
    return v;
}

/* By temu_system (a stored machine always has one of them). */
static const stall_kind kinds[] = {
    [TEMU_SYSTEM_GEMINI] = {2,
                            {"INQ_STALL", "CREDIT_STALL"},
                            {"(a) input stall: INQ_STALL", "(b) output stall: CREDIT_STALL"},
                            "cycles (800 MHz)",
                            "Gemini",
                            4,
                            {"X", "Y", "Z", "host"},
                            {0x3, 0xc, 0x30, 0x40}, /* X-,X+ Y-,Y+ Z-,Z+ HH (links 0..6) */
                            gemini_stall},
    [TEMU_SYSTEM_BGP] = {1,
                         {"NO_TOKENS"},
                         {"no-token cycles: NO_TOKENS"},
                         "cycles (850 MHz)",
                         "node",
                         6,
                         {NULL, NULL, NULL, NULL, NULL, NULL}, /* a row per direction */
                         {0x1, 0x2, 0x4, 0x8, 0x10, 0x20},
                         bgp_stall},
    [TEMU_SYSTEM_BGQ] = {1,
                         {"RECV_FIFO"},
                         {"receive-FIFO occupancy (all VCs)"},
                         "packets x cycles (500 MHz)",
                         "node",
                         6,
                         {"A", "B", "C", "D", "E", "IO"},
                         {0x3, 0xc, 0x30, 0xc0, 0x300, 0x400}, /* A-,A+ ... E-,E+ IO */
                         bgq_stall},
};

static stall_kind kind_of(const temu_machine *m)
{
    stall_kind k = kinds[m->system];
    for (int g = 0; g < k.ngroups; g++) {
        if (k.group[g] == NULL) {
            k.group[g] = temu_link_name(m, __builtin_ctz(k.links[g]));
        }
    }
    return k;
}

/* One counter and dimension of one store over its routers. */
typedef struct stall_sum {
    uint64_t total, max;
    int64_t max_router; /* the first router holding max */
} stall_sum;

/* The sums of store s for every counter and group into sum[metric][group].
 * 0, or -1 when a sum passes 2^64 (cannot happen with counts of a run). */
static int stall_sums(const temu_session *s, const stall_kind *k,
                      stall_sum sum[MAX_METRICS][MAX_GROUPS])
{
    const temu_machine *m = temu_session_machine(s);
    int overflow = 0;
    memset(sum, 0, sizeof(stall_sum) * MAX_METRICS * MAX_GROUPS);
    for (int64_t r = 0; r < m->nrouters; r++) {
        for (int x = 0; x < k->nmetrics; x++) {
            for (int g = 0; g < k->ngroups; g++) {
                uint64_t v = 0;
                for (int l = 0; l < m->nlinks; l++) {
                    if (k->links[g] & (1u << l)) {
                        overflow |= __builtin_add_overflow(v, k->read(s, r, l, x), &v);
                    }
                }
                stall_sum *t = &sum[x][g];
                overflow |= __builtin_add_overflow(t->total, v, &t->total);
                if (r == 0 || v > t->max) {
                    t->max = v;
                    t->max_router = r;
                }
            }
        }
    }
    return overflow ? -1 : 0;
}

/* ------------------------------------------------------------ the table */

static const char *const cols[] = {"metric", "dim", "store",      "routers", "total",
                                   "mean",   "max", "max_router", "max_at"};
enum { NCOLS = 9 };
/* text columns are left-aligned in the table form, numbers right */
static const int left[NCOLS] = {1, 1, 1, 0, 0, 0, 0, 0, 1};

typedef struct stall_table {
    const stall_kind *k;
    const temu_machine *m;
    int nstores;
    const char *store[MAX_STORES];
    stall_sum sum[MAX_STORES][MAX_METRICS][MAX_GROUPS];
    int table; /* the table form ("-" for nothing), not CSV or JSON (empty) */
} stall_table;

/* total / n without exponent, at most 6 decimals, trailing zeros dropped */
static void mean_text(uint64_t total, int64_t n, char *buf, size_t len)
{
    snprintf(buf, len, "%.6f", (double)total / (double)n);
    char *end = buf + strlen(buf);
    while (end[-1] == '0') {
        *--end = '\0';
    }
    if (end[-1] == '.') {
        end[-1] = '\0';
    }
}

/* The cells of row i (counter, then dimension, then store). */
static void row_cells(const stall_table *t, int i, char cell[NCOLS][CLI_REC_CELL])
{
    int st = i % t->nstores, g = (i / t->nstores) % t->k->ngroups,
        x = i / (t->nstores * t->k->ngroups);
    const stall_sum *v = &t->sum[st][x][g];
    snprintf(cell[0], CLI_REC_CELL, "%s", t->k->metric[x]);
    snprintf(cell[1], CLI_REC_CELL, "%s", t->k->group[g]);
    snprintf(cell[2], CLI_REC_CELL, "%s", t->store[st]);
    snprintf(cell[3], CLI_REC_CELL, "%" PRId64, t->m->nrouters);
    snprintf(cell[4], CLI_REC_CELL, "%" PRIu64, v->total);
    mean_text(v->total, t->m->nrouters, cell[5], CLI_REC_CELL);
    snprintf(cell[6], CLI_REC_CELL, "%" PRIu64, v->max);
    snprintf(cell[7], CLI_REC_CELL, "%" PRId64, v->max_router);
    temu_router_name(t->m, v->max_router, cell[8], CLI_REC_CELL);
    if (v->max == 0) { /* every router holds it: none is named */
        snprintf(cell[7], CLI_REC_CELL, "%s", t->table ? "-" : "");
        snprintf(cell[8], CLI_REC_CELL, "%s", t->table ? "-" : "");
    }
}

static int table_rows(const stall_table *t)
{
    return t->k->nmetrics * t->k->ngroups * t->nstores;
}

/* The table form: each column as wide as its widest cell. */
static void print_table(const stall_table *t, FILE *f)
{
    int wide[NCOLS];
    char cell[NCOLS][CLI_REC_CELL];
    for (int c = 0; c < NCOLS; c++) {
        wide[c] = (int)strlen(cols[c]);
    }
    for (int i = 0; i < table_rows(t); i++) {
        row_cells(t, i, cell);
        for (int c = 0; c < NCOLS; c++) {
            wide[c] = (int)strlen(cell[c]) > wide[c] ? (int)strlen(cell[c]) : wide[c];
        }
    }
    for (int i = -1; i < table_rows(t); i++) {
        if (i >= 0) {
            row_cells(t, i, cell);
        }
        for (int c = 0; c < NCOLS; c++) {
            const char *text = i < 0 ? cols[c] : cell[c];
            if (c == NCOLS - 1) { /* no trailing blanks */
                fprintf(f, " %s\n", text);
            } else {
                fprintf(f, left[c] ? "%s%-*s" : "%s%*s", c ? " " : "", wide[c], text);
            }
        }
    }
}

static void print_records(const stall_table *t, FILE *f, cli_format format)
{
    cli_rec r;
    char cell[NCOLS][CLI_REC_CELL];
    cli_rec_begin(&r, f, format, cols, NCOLS);
    for (int i = 0; i < table_rows(t); i++) {
        row_cells(t, i, cell);
        for (int c = 0; c < NCOLS; c++) {
            cli_rec_cell(&r, "%s", cell[c]);
        }
        cli_rec_row(&r);
    }
    cli_rec_end(&r);
}

/* ------------------------------------------------------------ the figure */

/* gnuplot data: a block per counter, a line per dimension: its name, then
 * mean and max of each store. */
static void figure_data(const stall_table *t, FILE *f)
{
    for (int x = 0; x < t->k->nmetrics; x++) {
        for (int g = 0; g < t->k->ngroups; g++) {
            fprintf(f, "%s", t->k->group[g]);
            for (int st = 0; st < t->nstores; st++) {
                const stall_sum *v = &t->sum[st][x][g];
                fprintf(f, " %.9g %" PRIu64, (double)v->total / (double)t->m->nrouters, v->max);
            }
            fprintf(f, "\n");
        }
        fprintf(f, "\n\n");
    }
}

/* One panel (counter x): a group of bars per dimension, a bar per store
 * up to the mean, its error bar up to the largest; values over a power of
 * 1000 named in the y label. */
static void figure_panel(const stall_table *t, int x, const char *data, FILE *f)
{
    uint64_t top = 0;
    char what[128], unit[64], suffix[32];
    for (int st = 0; st < t->nstores; st++) {
        for (int g = 0; g < t->k->ngroups; g++) {
            top = t->sum[st][x][g].max > top ? t->sum[st][x][g].max : top;
        }
    }
    fig_scale sc = fig_scale_of((double)top);
    fig_scale_suffix(&sc, suffix, sizeof suffix);
    fig_enhanced(t->k->what[x], what, sizeof what);
    fig_enhanced(t->k->unit, unit, sizeof unit);
    fprintf(f, "set title '%s'\nset ylabel '%s per %s%s'\nset yrange [0:%.6g]\nplot ", what, unit,
            t->k->router, suffix, top > 0 ? 1.1 * (double)top / sc.divisor : 1.0);
    for (int st = 0; st < t->nstores; st++) {
        const char *slash = strrchr(t->store[st], '/');
        char name[300];
        fig_enhanced(slash != NULL ? slash + 1 : t->store[st], name, sizeof name);
        fprintf(f, "%s'%s' index %d using ($%d/%g):($%d/%g):($%d/%g)%s lc %d title '%s'",
                st ? ", " : "", data, x, 2 + 2 * st, sc.divisor, 2 + 2 * st, sc.divisor, 3 + 2 * st,
                sc.divisor, st ? "" : ":xtic(1)", st + 1, name);
    }
    fprintf(f, "\n");
}

/* The figure (seed 000 Fig. 7) through gnuplot, its data and script in a
 * private temporary directory removed afterwards. */
static int draw_figure(const stall_table *t, const char *png)
{
    char dir[4096], data[4200], script[4200];
    if (cli_temp_dir(dir, sizeof dir, "stalls") != 0) {
        return cli_fail("stalls: cannot make a temporary directory: %s", strerror(errno));
    }
    snprintf(data, sizeof data, "%s/stalls.dat", dir);
    snprintf(script, sizeof script, "%s/stalls.gp", dir);
    FILE *fd = fopen(data, "w"), *fs = fopen(script, "w");
    int rc = 0;
    if (fd == NULL || fs == NULL) {
        rc = cli_fail("stalls: cannot write in %s: %s", dir, strerror(errno));
    } else {
        figure_data(t, fd);
        fprintf(fs,
                "set terminal pngcairo size %d,600\nset output '%s'\n"
                "set multiplot layout 1,%d title \"%s: mean per %s (bars) and the largest "
                "(error bars)\" noenhanced\n"
                "set style data histogram\nset style histogram errorbars gap 2 lw 1.5\n"
                "set style fill solid 0.75 border -1\nset boxwidth 0.9\n"
                "set key top right\nset grid ytics\nset xlabel 'links'\nset format y '%%g'\n",
                720 * t->k->nmetrics, png, t->k->nmetrics, t->m->name, t->k->router);
        for (int x = 0; x < t->k->nmetrics; x++) {
            figure_panel(t, x, data, fs);
        }
        fprintf(fs, "unset multiplot\n");
    }
    if (fd != NULL) {
        fclose(fd);
    }
    if (fs != NULL) {
        fclose(fs);
    }
    if (rc == 0) {
        char *args[] = {script, NULL};
        rc = cli_run_tool("stalls", "TORUSEMU_GNUPLOT", "gnuplot", "gnuplot-nox", args, png);
    }
    unlink(data);
    unlink(script);
    cli_temp_dir_remove(dir);
    return rc;
}

/* ------------------------------------------------------------ the run */

/* Attach the stores read-only and check they are of one machine. */
static int attach_all(stall_table *t, temu_session **ss)
{
    temu_error err;
    for (int i = 0; i < t->nstores; i++) {
        if (temu_session_attach_ex(t->store[i], TEMU_ATTACH_READONLY, &ss[i], &err) != TEMU_OK) {
            return cli_fail_err(&err);
        }
    }
    t->m = temu_session_machine(ss[0]);
    if (t->nstores == 2 && strcmp(t->m->name, temu_session_machine(ss[1])->name) != 0) {
        return cli_fail("stalls: two stores compare only on one machine: %s is %s, %s is %s",
                        t->store[0], t->m->name, t->store[1], temu_session_machine(ss[1])->name);
    }
    return 0;
}

/* Sum every store; warn about a store without any stall count. */
static int sum_all(stall_table *t, temu_session **ss)
{
    for (int i = 0; i < t->nstores; i++) {
        uint64_t any = 0;
        if (stall_sums(ss[i], t->k, t->sum[i]) != 0) {
            return cli_fail("stalls: %s: a sum of stall counts passes 2^64", t->store[i]);
        }
        for (int x = 0; x < t->k->nmetrics; x++) {
            for (int g = 0; g < t->k->ngroups; g++) {
                any |= t->sum[i][x][g].total;
            }
        }
        if (any == 0) {
            fprintf(stderr,
                    "torusemu: stalls: %s holds no stall count: the timing model fills them "
                    "(torusemu replay --timing --keep STORE)\n",
                    t->store[i]);
        }
    }
    return 0;
}

int cmd_stalls(int argc, char **argv)
{
    static const struct option opts[] = {CLI_COMMON_OPTIONS,
                                         {"output", required_argument, NULL, 'o'},
                                         CLI_FORMAT_OPTION,
                                         {NULL, 0, NULL, 0}};
    const char *png = NULL;
    cli_format format = CLI_FORMAT_TABLE;
    int c, done = 0, rc = 0;
    cli_begin();
    while ((c = cli_next(argc, argv, ":ho:", opts, usage, &done, &rc)) != -1) {
        if (done) {
            return rc;
        }
        if (c == 'o') {
            png = optarg;
        } else if (cli_parse_format(optarg, &format) != 0) { /* CLI_OPT_FORMAT */
            return CLI_EXIT_USAGE;
        }
    }
    stall_table t;
    memset(&t, 0, sizeof t);
    t.nstores = argc - optind;
    if (t.nstores < 1) {
        return cli_fail("stalls: missing STORE");
    }
    if (t.nstores > MAX_STORES) {
        return cli_fail("stalls: at most two stores side by side, got %d", t.nstores);
    }
    if (png != NULL && (png[0] == '\0' || strpbrk(png, "'\"\n") != NULL)) {
        return cli_fail("stalls: the output name '%s' is empty or holds a quote or a line break",
                        png);
    }
    temu_session *ss[MAX_STORES] = {NULL, NULL};
    for (int i = 0; i < t.nstores; i++) {
        t.store[i] = argv[optind + i];
    }
    rc = attach_all(&t, ss);
    stall_kind k;
    if (rc == 0) {
        k = kind_of(t.m);
        t.k = &k;
        rc = sum_all(&t, ss);
    }
    t.table = format == CLI_FORMAT_TABLE;
    if (rc == 0 && t.table) {
        print_table(&t, stdout);
    } else if (rc == 0) {
        print_records(&t, stdout, format);
    }
    if (rc == 0 && png != NULL) {
        rc = draw_figure(&t, png);
    }
    for (int i = 0; i < t.nstores; i++) {
        if (ss[i] != NULL) {
            temu_session_close(ss[i]);
        }
    }
    return rc;
}
