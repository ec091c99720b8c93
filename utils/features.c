/*
 * features.c - congestion regions and the feature graph (features.h;
 * Jha et al., HPCMASPA 2018, section VI).  Pure but for the DOT writer,
 * which writes to the FILE it is given.
 */
#include "features.h"
#include "analyze.h"

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
    fs->prev_id = malloc((size_t)m->nrouters * sizeof *fs->prev_id);
    fs->cur_id = malloc((size_t)m->nrouters * sizeof *fs->cur_id);
    if (fs->prev_id == NULL || fs->cur_id == NULL) {
        an_features_free(fs);
        return -1;
    }
    for (int64_t r = 0; r < m->nrouters; r++) {
        fs->prev_id[r] = fs->cur_id[r] = -1;
    }
    return 0;
}

void an_features_free(an_features *fs)
{
    free(fs->f);
    free(fs->e);
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
static int add_feature(an_features *fs, int32_t interval, int64_t t_ps, const int64_t *line,
                       int32_t n, int32_t start, int32_t len, const double *value)
{
    if (an_reserve((void **)&fs->f, &fs->cap, fs->n, sizeof *fs->f, 64) != 0) {
        return -1;
    }
    an_feature *f = &fs->f[fs->n];
    f->id = (int64_t)fs->n;
    f->interval = interval;
    f->t_ps = t_ps;
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
static int line_features(an_features *fs, int32_t interval, int64_t t_ps, const int64_t *line,
                         int32_t n, int wraps, const double *value)
{
    int32_t start = 0, below = -1; /* a mesh line is scanned from 0, never round */
    for (int32_t i = 0; i < n; i++) {
        if (!(value[line[i]] >= fs->threshold)) { /* NAN is never congested */
            below = i;
            break;
        }
    }
    if (below < 0) {
        return add_feature(fs, interval, t_ps, line, n, 0, n, value); /* the whole line */
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
            if (add_feature(fs, interval, t_ps, line, n, (start + run) % n, k - run, value) != 0) {
                return -1;
            }
            run = -1;
        }
    }
    return 0;
}

int an_features_step(an_features *fs, int32_t interval, int64_t t_ps, const double *value)
{
    const temu_machine *m = fs->m;
    int dim = fs->dir / 2;
    int32_t n = m->size[dim], c[TEMU_MAX_DIMS];
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
    for (int64_t r = 0; r < m->nrouters && rc == 0; r++) {
        temu_router_coords(m, r, c);
        if (c[dim] != 0) {
            continue; /* each line once, from its router at coordinate 0 */
        }
        for (int32_t i = 0; i < n; i++) {
            c[dim] = i;
            line[i] = temu_router_index(m, c);
        }
        rc = line_features(fs, interval, t_ps, line, n, m->torus[dim], value);
    }
    fs->last_interval = interval;
    free(line);
    return rc;
}

/* Hue from yellow (1/6) at the threshold to red (0) at 100 percent. */
static double hue(const an_features *fs, double v)
{
    double span = 100.0 - fs->threshold, x = span > 0 ? (v - fs->threshold) / span : 1.0;
    x = x < 0 ? 0 : x > 1 ? 1 : x;
    return (1.0 - x) / 6.0;
}

void an_features_dot(const an_features *fs, FILE *f, const char *title)
{
    fprintf(f, "digraph congestion {\n"
               "  graph [rankdir=TB, labelloc=t, fontsize=14, label=\"");
    for (const char *p = title; *p != '\0'; p++) {
        fprintf(f, *p == '"' || *p == '\\' ? "\\%c" : "%c", *p);
    }
    fprintf(f, "\"];\n"
               "  node [shape=circle, style=filled, fontsize=9, fixedsize=true];\n");
    if (fs->n == 0) {
        fprintf(f, "  none [shape=plaintext, style=\"\", fixedsize=false, "
                   "label=\"no d-link at or above the threshold\"];\n}\n");
        return;
    }
    /* the time axis: one plain label per interval, chained invisibly */
    int32_t lo = fs->f[0].interval, hi = fs->f[fs->n - 1].interval;
    size_t at = 0;
    for (int32_t k = lo; k <= hi; k++) {
        int64_t t = -1;
        for (; at < fs->n && fs->f[at].interval == k; at++) {
            t = fs->f[at].t_ps;
        }
        if (t >= 0) {
            fprintf(
                f, "  t%d [shape=plaintext, style=\"\", fixedsize=false, label=\"%d: %lld ps\"];\n",
                k, k, (long long)t);
        } else {
            fprintf(f, "  t%d [shape=point, style=invis];\n", k);
        }
        if (k > lo) {
            fprintf(f, "  t%d -> t%d [style=invis];\n", k - 1, k);
        }
    }
    for (size_t i = 0; i < fs->n; i++) {
        const an_feature *x = &fs->f[i];
        char coord[64];
        temu_router_name(fs->m, x->first, coord, sizeof coord);
        fprintf(f,
                "  f%lld [label=\"%lld\\n%d\\n%.3g\", width=%.2f, fillcolor=\"%.3f 1.000 1.000\", "
                "tooltip=\"feature %lld: %d routers from %s, max %.2f\"];\n",
                (long long)x->id, (long long)x->id, x->extent, x->max, 0.4 + 0.08 * x->extent,
                hue(fs, x->max), (long long)x->id, x->extent, coord, x->max);
    }
    at = 0;
    while (at < fs->n) {
        int32_t k = fs->f[at].interval;
        fprintf(f, "  { rank=same; t%d;", k);
        for (; at < fs->n && fs->f[at].interval == k; at++) {
            fprintf(f, " f%lld;", (long long)fs->f[at].id);
        }
        fprintf(f, " }\n");
    }
    for (size_t i = 0; i < fs->ne; i++) {
        fprintf(f, "  f%lld -> f%lld;\n", (long long)fs->e[i].from, (long long)fs->e[i].to);
    }
    fprintf(f, "}\n");
}
