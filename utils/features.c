/*
 * features.c - congestion regions and the feature graph (features.h;
 * Jha et al., HPCMASPA 2018, section VI).  Pure but for the DOT writer,
 * which writes to the FILE it is given.
 */
#include "features.h"
#include "analyze.h"
#include "figure.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int an_features_init(an_features *fs, const temu_machine *m, int dir, double threshold)
{
    memset(fs, 0, sizeof *fs);
    fs->m = m;
    fs->dir = dir;
    fs->threshold = threshold;
    fs->last_interval = -2;
    fs->nlines = m->nrouters / m->size[dir / 2];
    fs->prev_id = malloc((size_t)m->nrouters * sizeof *fs->prev_id);
    fs->cur_id = malloc((size_t)m->nrouters * sizeof *fs->cur_id);
    fs->line_router = malloc((size_t)fs->nlines * sizeof *fs->line_router);
    if (fs->prev_id == NULL || fs->cur_id == NULL || fs->line_router == NULL) {
        an_features_free(fs);
        return -1;
    }
    int64_t line = 0;
    for (int64_t r = 0; r < m->nrouters; r++) {
        int32_t c[TEMU_MAX_DIMS];
        fs->prev_id[r] = fs->cur_id[r] = -1;
        temu_router_coords(m, r, c);
        if (c[dir / 2] == 0) {
            fs->line_router[line++] = r; /* lines in the order an_features_step visits them */
        }
    }
    return 0;
}

void an_features_free(an_features *fs)
{
    free(fs->f);
    free(fs->e);
    free(fs->steps);
    free(fs->line_router);
    free(fs->prev_id);
    free(fs->cur_id);
    memset(fs, 0, sizeof *fs);
}

static int add_edge(an_features *fs, int64_t from, int64_t to)
{
    /* a feature's predecessors are added together: look back over them */
    for (size_t k = fs->ne; k > 0 && fs->e[k - 1].to == to; k--) {
        if (fs->e[k - 1].from == from) {
            return 0;
        }
    }
    if (an_reserve((void **)&fs->e, &fs->ecap, fs->ne, sizeof *fs->e, 64) != 0) {
        return -1;
    }
    fs->e[fs->ne].from = from;
    fs->e[fs->ne].to = to;
    fs->ne++;
    return 0;
}

/* Record the run of `len` routers of line[] starting at position `start`
 * (indices mod n) as a new feature. */
static int add_feature(an_features *fs, int32_t interval, int64_t t_ps, int64_t line_no,
                       const int64_t *line, int32_t n, int32_t start, int32_t len,
                       const double *value)
{
    if (an_reserve((void **)&fs->f, &fs->cap, fs->n, sizeof *fs->f, 64) != 0) {
        return -1;
    }
    an_feature *f = &fs->f[fs->n];
    f->id = (int64_t)fs->n;
    f->interval = interval;
    f->t_ps = t_ps;
    f->line = line_no;
    f->first = line[start];
    f->extent = len;
    f->ring = len == n;
    f->max = -INFINITY;
    f->max_router = -1;
    fs->n++;
    for (int32_t k = 0; k < len; k++) {
        int64_t r = line[(start + k) % n];
        if (value[r] > f->max) {
            f->max = value[r];
            f->max_router = r;
        }
        fs->cur_id[r] = f->id;
        if (fs->prev_id[r] >= 0 && add_edge(fs, fs->prev_id[r], f->id) != 0) {
            return -1;
        }
    }
    return 0;
}

/* The features of one line of routers (n of them, in coordinate order). */
static int line_features(an_features *fs, int32_t interval, int64_t t_ps, int64_t line_no,
                         const int64_t *line, int32_t n, int wraps, const double *value)
{
    int32_t start = 0, below = -1; /* a mesh line is scanned from 0, never round */
    for (int32_t i = 0; i < n; i++) {
        if (!(value[line[i]] >= fs->threshold)) { /* NAN is never congested */
            below = i;
            break;
        }
    }
    if (below < 0) {
        return add_feature(fs, interval, t_ps, line_no, line, n, 0, n, value); /* whole line */
    }
    /* on a torus a run may wrap around: scan from just after a router
     * below the threshold, once round the ring */
    if (wraps) {
        start = below + 1;
    }
    int32_t run = -1;
    for (int32_t k = 0; k <= n; k++) {
        int32_t i = (start + k) % n;
        int hot = k < n && value[line[i]] >= fs->threshold;
        if (hot && run < 0) {
            run = k;
        } else if (!hot && run >= 0) {
            if (add_feature(fs, interval, t_ps, line_no, line, n, (start + run) % n, k - run,
                            value) != 0) {
                return -1;
            }
            run = -1;
        }
    }
    return 0;
}

/* Record interval's step: its time, features, and highest value. */
static int add_step(an_features *fs, int32_t interval, int64_t t_ps, size_t first_feature,
                    const double *value)
{
    if (an_reserve((void **)&fs->steps, &fs->stepcap, fs->nsteps, sizeof *fs->steps, 64) != 0) {
        return -1;
    }
    an_step *s = &fs->steps[fs->nsteps++];
    *s = (an_step){interval, t_ps, (int64_t)(fs->n - first_feature), 0, -INFINITY, -1};
    for (int64_t r = 0; r < fs->m->nrouters; r++) {
        if (isnan(value[r])) {
            continue;
        }
        s->figures++;
        if (value[r] > s->peak) {
            s->peak = value[r];
            s->peak_router = r;
        }
    }
    return 0;
}

int an_features_step(an_features *fs, int32_t interval, int64_t t_ps, const double *value)
{
    const temu_machine *m = fs->m;
    int dim = fs->dir / 2;
    int32_t n = m->size[dim], c[TEMU_MAX_DIMS];
    size_t first = fs->n;
    int64_t *line = malloc((size_t)n * sizeof *line);
    if (line == NULL) {
        return -1;
    }
    if (interval != fs->last_interval + 1) {
        for (int64_t r = 0; r < m->nrouters; r++) {
            fs->cur_id[r] = -1; /* no evolution across a gap */
        }
    }
    int64_t *swap = fs->prev_id;
    fs->prev_id = fs->cur_id;
    fs->cur_id = swap;
    for (int64_t r = 0; r < m->nrouters; r++) {
        fs->cur_id[r] = -1;
    }
    int rc = 0;
    for (int64_t k = 0; k < fs->nlines && rc == 0; k++) {
        temu_router_coords(m, fs->line_router[k], c);
        for (int32_t i = 0; i < n; i++) {
            c[dim] = i;
            line[i] = temu_router_index(m, c);
        }
        rc = line_features(fs, interval, t_ps, k, line, n, m->torus[dim], value);
    }
    fs->last_interval = interval;
    free(line);
    return rc == 0 ? add_step(fs, interval, t_ps, first, value) : rc;
}

/* ------------------------------------------------------------ drawing */

/* Hue from yellow (1/6) at the threshold to red (0) at 100 percent. */
static double hue(const an_features *fs, double v)
{
    double span = 100.0 - fs->threshold, x = span > 0 ? (v - fs->threshold) / span : 1.0;
    x = x < 0 ? 0 : x > 1 ? 1 : x;
    return (1.0 - x) / 6.0;
}

/* text as the inside of a double-quoted DOT string */
static void dot_string(FILE *f, const char *text)
{
    for (const char *p = text; *p != '\0'; p++) {
        if (*p == '\n') {
            fputs("\\n", f);
        } else {
            fprintf(f, *p == '"' || *p == '\\' ? "\\%c" : "%c", *p);
        }
    }
}

/* One row of the drawing: intervals k0..k1 (bins of several intervals
 * when aggregated; a run without features is one row), steps s0..s1-1. */
typedef struct dot_row {
    int32_t k0, k1;
    size_t s0, s1;
    int empty;
} dot_row;

/* How the features are drawn: rows of bins of `bin` intervals; columns of
 * `per_col` lines each when aggregated (cols > 0), else a vertex each. */
typedef struct dot_plan {
    dot_row *row;
    size_t nrows;
    int32_t bin;
    int64_t cols, per_col;
    fig_time unit;
} dot_plan;

/* Append row r to the plan, merging runs without features into one row
 * and filling intervals never stepped (skipped bins) with such a row.
 * 0, or -1 out of memory. */
static int add_row(dot_plan *p, size_t *cap, dot_row r)
{
    dot_row *prev = p->nrows ? &p->row[p->nrows - 1] : NULL;
    if (prev != NULL && r.k0 > prev->k1 + 1) {
        if (prev->empty) {
            prev->k1 = r.k0 - 1;
        } else if (r.empty) {
            r.k0 = prev->k1 + 1;
        } else {
            dot_row gap = {prev->k1 + 1, r.k0 - 1, r.s0, r.s0, 1};
            if (add_row(p, cap, gap) != 0) {
                return -1;
            }
            prev = &p->row[p->nrows - 1];
        }
    }
    if (r.empty && prev != NULL && prev->empty) {
        prev->k1 = r.k1;
        prev->s1 = r.s1;
        return 0;
    }
    if (an_reserve((void **)&p->row, cap, p->nrows, sizeof *p->row, 16) != 0) {
        return -1;
    }
    p->row[p->nrows++] = r;
    return 0;
}

/* The rows from the first interval with features to the last, intervals
 * in bins of p->bin.  0, or -1 out of memory. */
static int plan_rows(const an_features *fs, dot_plan *p)
{
    size_t cap = 0, lo = 0, hi = fs->nsteps;
    while (lo < hi && fs->steps[lo].features == 0) {
        lo++;
    }
    while (hi > lo && fs->steps[hi - 1].features == 0) {
        hi--;
    }
    int32_t base = fs->steps[lo].interval;
    free(p->row);
    p->row = NULL;
    p->nrows = 0;
    for (size_t s = lo; s < hi;) {
        int32_t b = (fs->steps[s].interval - base) / p->bin;
        dot_row r = {base + b * p->bin, base + b * p->bin + p->bin - 1, s, s, 1};
        for (; s < hi && (fs->steps[s].interval - base) / p->bin == b; s++) {
            r.empty &= fs->steps[s].features == 0;
        }
        r.s1 = s;
        if (add_row(p, &cap, r) != 0) {
            return -1;
        }
    }
    p->row[p->nrows - 1].k1 = fs->steps[hi - 1].interval; /* the last bin ends there */
    return 0;
}

/* Choose plain or aggregated drawing and plan its rows. */
static int plan_drawing(const an_features *fs, dot_plan *p)
{
    int64_t widest = 0, tmax = 0, step = 0;
    for (size_t s = 0; s < fs->nsteps; s++) {
        widest = fs->steps[s].features > widest ? fs->steps[s].features : widest;
        tmax = fs->steps[s].t_ps > tmax ? fs->steps[s].t_ps : tmax;
        int64_t d = s ? fs->steps[s].t_ps - fs->steps[s - 1].t_ps : 0;
        step = d > 0 && (step == 0 || d < step) ? d : step;
    }
    memset(p, 0, sizeof *p);
    p->bin = 1;
    if (plan_rows(fs, p) != 0) {
        return -1;
    }
    if (widest > AN_GRAPH_COLS || p->nrows > AN_GRAPH_ROWS) {
        int32_t span = fs->f[fs->n - 1].interval - fs->f[0].interval + 1;
        p->cols = fs->nlines < AN_GRAPH_COLS ? fs->nlines : AN_GRAPH_COLS;
        p->per_col = (fs->nlines + p->cols - 1) / p->cols;
        p->cols = (fs->nlines + p->per_col - 1) / p->per_col;
        if (p->nrows > AN_GRAPH_ROWS) {
            p->bin = (span + AN_GRAPH_ROWS - 1) / AN_GRAPH_ROWS;
            step *= p->bin;
            if (plan_rows(fs, p) != 0) {
                return -1;
            }
        }
    }
    p->unit = fig_time_of(tmax, step);
    return 0;
}

/* The label of row i: its interval(s) and start time(s), or "none". */
static void row_label(const an_features *fs, const dot_plan *p, size_t i, char *buf, size_t len)
{
    const dot_row *r = &p->row[i];
    char t0[48] = "", t1[48] = "";
    size_t at = 0;
    at += (size_t)snprintf(buf, len, r->k1 > r->k0 ? "%d-%d: " : "%d: ", r->k0, r->k1);
    if (r->s1 > r->s0) {
        fig_time_text(&p->unit, fs->steps[r->s0].t_ps, t0, sizeof t0);
        fig_time_text(&p->unit, fs->steps[r->s1 - 1].t_ps, t1, sizeof t1);
    }
    if (r->empty) {
        snprintf(buf + at, len - at, "no feature");
    } else if (r->s1 - r->s0 > 1) {
        snprintf(buf + at, len - at, "%s - %s", t0, t1);
    } else {
        snprintf(buf + at, len - at, "%s", t0);
    }
}

/* The time axis: a plain label per row, chained invisibly. */
static void dot_rows(const an_features *fs, const dot_plan *p, FILE *f)
{
    for (size_t i = 0; i < p->nrows; i++) {
        char label[160];
        row_label(fs, p, i, label, sizeof label);
        fprintf(f, "  r%zu [shape=plaintext, style=\"\", fixedsize=false, fontsize=11%s, label=\"",
                i, p->row[i].empty ? ", fontcolor=gray45" : "");
        dot_string(f, label);
        fprintf(f, "\"];\n");
        if (i > 0) {
            fprintf(f, "  r%zu -> r%zu [style=invis];\n", i - 1, i);
        }
    }
}

/* The row holding each feature (features and steps are both in interval
 * order).  NULL out of memory. */
static size_t *feature_rows(const an_features *fs, const dot_plan *p)
{
    size_t *at = malloc(fs->n * sizeof *at), i = 0;
    for (size_t k = 0; at != NULL && k < fs->n; k++) {
        while (i + 1 < p->nrows && fs->f[k].interval > p->row[i].k1) {
            i++;
        }
        at[k] = i;
    }
    return at;
}

/* Plain drawing: a vertex per feature (id, extent, highest value), width
 * 0.5 to 0.8 inch by its extent, a row per interval. */
static void dot_plain(const an_features *fs, const dot_plan *p, const size_t *row, FILE *f)
{
    int32_t n = fs->m->size[fs->dir / 2];
    for (size_t i = 0; i < fs->n; i++) {
        const an_feature *x = &fs->f[i];
        char coord[64];
        temu_router_name(fs->m, x->first, coord, sizeof coord);
        fprintf(f,
                "  f%lld [label=\"%lld\\n%d\\n%.3g\", width=%.2f, fillcolor=\"%.3f 1.000 1.000\", "
                "tooltip=\"feature %lld: %d routers from %s, max %.2f\"];\n",
                (long long)x->id, (long long)x->id, x->extent, x->max, 0.5 + 0.3 * x->extent / n,
                hue(fs, x->max), (long long)x->id, x->extent, coord, x->max);
    }
    for (size_t i = 0, k = 0; i < p->nrows; i++) {
        fprintf(f, "  { rank=same; r%zu;", i);
        for (; k < fs->n && row[k] == i; k++) {
            fprintf(f, " f%lld;", (long long)fs->f[k].id);
        }
        fprintf(f, " }\n");
    }
    for (size_t i = 0; i < fs->ne; i++) {
        fprintf(f, "  f%lld -> f%lld;\n", (long long)fs->e[i].from, (long long)fs->e[i].to);
    }
}

/* A cell of the aggregated drawing: the features of a group of lines in
 * a row. */
typedef struct dot_cell {
    int64_t features, routers; /* routers summed over its features */
    double max;
    int64_t max_router;
    int next; /* 1: a feature of it continues in the cell below */
} dot_cell;

/* "0,3" - the coordinates of line k's routers but along the watched one */
static void line_coords(const an_features *fs, int64_t k, char *buf, size_t len)
{
    int32_t c[TEMU_MAX_DIMS];
    size_t at = 0;
    temu_router_coords(fs->m, fs->line_router[k], c);
    buf[0] = '\0';
    for (int d = 0; d < fs->m->ndims && at < len; d++) {
        if (d != fs->dir / 2) {
            at += (size_t)snprintf(buf + at, len - at, "%s%d", at ? "," : "", c[d]);
        }
    }
}

/* The column headers: the lines each column gathers, by their first and
 * last coordinates. */
static void dot_columns(const an_features *fs, const dot_plan *p, FILE *f)
{
    char dims[32] = "";
    size_t at = 0;
    for (int d = 0; d < fs->m->ndims && at < sizeof dims; d++) {
        if (d != fs->dir / 2) {
            at += (size_t)snprintf(dims + at, sizeof dims - at, "%s%.1s", at ? "," : "",
                                   temu_link_name(fs->m, TEMU_LINK_PLUS(d)));
        }
    }
    fprintf(f,
            "  rh [shape=plaintext, style=\"\", fixedsize=false, fontsize=11, "
            "label=\"lines (%s)\"];\n  rh -> r0 [style=invis];\n",
            dims);
    for (int64_t g = 0; g < p->cols; g++) {
        char a[48], b[48];
        int64_t last = (g + 1) * p->per_col < fs->nlines ? (g + 1) * p->per_col : fs->nlines;
        line_coords(fs, g * p->per_col, a, sizeof a);
        line_coords(fs, last - 1, b, sizeof b);
        fprintf(f,
                "  h%lld [shape=plaintext, style=\"\", fixedsize=false, fontsize=9, "
                "label=\"%s\\n%s\"];\n",
                (long long)g, a, last - 1 > g * p->per_col ? b : "");
    }
    fprintf(f, "  { rank=same; rh;");
    for (int64_t g = 0; g < p->cols; g++) {
        fprintf(f, " h%lld;", (long long)g);
    }
    fprintf(f, " }\n");
}

/* One cell: a vertex with its features' count and highest value, or an
 * invisible place holder that keeps its column straight. */
static void dot_cell_vertex(const an_features *fs, const dot_plan *p, const dot_cell *c, size_t i,
                            int64_t g, FILE *f)
{
    const dot_row *r = &p->row[i];
    if (c->features == 0) {
        fprintf(f, "  c%zu_%lld [style=invis, width=0.5];\n", i, (long long)g);
        return;
    }
    char name[64];
    int32_t n = fs->m->size[fs->dir / 2];
    double room = (double)p->per_col * n * (double)(r->s1 - r->s0); /* router-intervals */
    temu_router_name(fs->m, c->max_router, name, sizeof name);
    fprintf(f,
            "  c%zu_%lld [label=\"%lld\\n%.3g\", width=%.2f, fillcolor=\"%.3f 1.000 1.000\", "
            "tooltip=\"intervals %d-%d: %lld features, %lld router-intervals, max %.2f at "
            "%s\"];\n",
            i, (long long)g, (long long)c->features, c->max,
            0.5 + 0.3 * (room > 0 ? (double)c->routers / room : 0), hue(fs, c->max), r->k0, r->k1,
            (long long)c->features, (long long)c->routers, c->max, name);
}

/* Aggregated drawing: a grid of cells, p->cols groups of lines across and
 * the rows down; an edge where a feature of a cell continues in the cell
 * below, invisible edges keeping the columns straight. */
static int dot_grid(const an_features *fs, const dot_plan *p, const size_t *row, FILE *f)
{
    dot_cell *cell = calloc(p->nrows * (size_t)p->cols, sizeof *cell);
    if (cell == NULL) {
        return -1;
    }
    for (size_t k = 0; k < fs->n; k++) {
        const an_feature *x = &fs->f[k];
        dot_cell *c = &cell[row[k] * (size_t)p->cols + (size_t)(x->line / p->per_col)];
        if (c->features++ == 0 || x->max > c->max) {
            c->max = x->max;
            c->max_router = x->max_router;
        }
        c->routers += x->extent;
    }
    for (size_t e = 0; e < fs->ne; e++) {
        size_t a = row[fs->e[e].from], b = row[fs->e[e].to];
        if (b == a + 1) { /* within one bin the evolution is inside the cell */
            cell[a * (size_t)p->cols + (size_t)(fs->f[fs->e[e].from].line / p->per_col)].next = 1;
        }
    }
    dot_columns(fs, p, f);
    for (size_t i = 0; i < p->nrows; i++) {
        fprintf(f, "  { rank=same; r%zu;", i);
        for (int64_t g = 0; g < p->cols; g++) {
            fprintf(f, " c%zu_%lld;", i, (long long)g);
        }
        fprintf(f, " }\n");
        for (int64_t g = 0; g < p->cols; g++) {
            const dot_cell *c = &cell[i * (size_t)p->cols + (size_t)g];
            dot_cell_vertex(fs, p, c, i, g, f);
            if (i == 0) {
                fprintf(f, "  h%lld -> c0_%lld [style=invis, weight=100];\n", (long long)g,
                        (long long)g);
            }
            if (i + 1 < p->nrows) {
                fprintf(f, "  c%zu_%lld -> c%zu_%lld [weight=100%s];\n", i, (long long)g, i + 1,
                        (long long)g, c->next ? "" : ", style=invis");
            }
        }
    }
    free(cell);
    return 0;
}

/* No feature: the picture says why - the highest value seen and where,
 * against the threshold, or that no router had a value at all. */
static void dot_empty(const an_features *fs, FILE *f, const char *metric)
{
    const char *dir = temu_link_name(fs->m, fs->dir);
    const an_step *top = NULL;
    int64_t tmax = 0;
    for (size_t s = 0; s < fs->nsteps; s++) {
        if (fs->steps[s].figures > 0 && (top == NULL || fs->steps[s].peak > top->peak)) {
            top = &fs->steps[s];
        }
        tmax = fs->steps[s].t_ps > tmax ? fs->steps[s].t_ps : tmax;
    }
    fprintf(f, "  why [shape=plaintext, style=\"\", fixedsize=false, fontsize=14, label=\"");
    if (top == NULL) {
        fprintf(f,
                "No congestion feature: in %zu interval%s no %s d-link had a %s figure\\n"
                "(no router was sampled at both ends of an interval).",
                fs->nsteps, fs->nsteps == 1 ? "" : "s", dir, metric);
    } else {
        char name[64], when[48];
        fig_time u = fig_time_of(tmax, 0);
        temu_router_name(fs->m, top->peak_router, name, sizeof name);
        fig_time_text(&u, top->t_ps, when, sizeof when);
        fprintf(f,
                "No congestion feature: in %zu interval%s no %s d-link reached %s >= %g.\\n"
                "The highest was %.3g (%s, interval %d at %s).\\n"
                "A lower --threshold, or another --feature or --feature-link, may show some.",
                fs->nsteps, fs->nsteps == 1 ? "" : "s", dir, metric, fs->threshold, top->peak, name,
                top->interval, when);
    }
    fprintf(f, "\"];\n}\n");
}

void an_features_dot(const an_features *fs, FILE *f, const char *title, const char *metric)
{
    dot_plan p;
    size_t *row = NULL;
    fprintf(f, "digraph congestion {\n"
               "  graph [rankdir=TB, labelloc=t, fontsize=14, size=\"" AN_GRAPH_SIZE "\", "
               "nodesep=0.15, ranksep=0.3, label=\"");
    dot_string(f, title);
    if (fs->n == 0) {
        fprintf(f, "\"];\n");
        dot_empty(fs, f, metric);
        return;
    }
    int rc = plan_drawing(fs, &p);
    if (rc == 0 && (row = feature_rows(fs, &p)) == NULL) {
        rc = -1;
    }
    if (rc != 0) {
        fprintf(f, "\"];\n  why [shape=plaintext, label=\"out of memory for the drawing\"];\n}\n");
        free(p.row);
        return;
    }
    if (p.cols > 0) {
        fprintf(f,
                "\\n%zu features, too many to draw one by one: a cell per %lld line%s and %d "
                "interval%s (features, highest value)",
                fs->n, (long long)p.per_col, p.per_col == 1 ? "" : "s", p.bin,
                p.bin == 1 ? "" : "s");
    } else {
        fprintf(f, "\\na vertex per feature (id, routers, highest value)");
    }
    fprintf(f, "\"];\n  node [shape=circle, style=filled, fontsize=9, fixedsize=true];\n");
    dot_rows(fs, &p, f);
    if (p.cols > 0) {
        rc = dot_grid(fs, &p, row, f);
    } else {
        dot_plain(fs, &p, row, f);
    }
    if (rc != 0) {
        fprintf(f, "  oom [shape=plaintext, label=\"out of memory for the drawing\"];\n");
    }
    fprintf(f, "}\n");
    free(row);
    free(p.row);
}
