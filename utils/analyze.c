/*
 * analyze.c - per d-link figures of seed 004 (Jha et al., HPCMASPA 2018,
 * section II) and what `torusemu analyze` gathers of them: CCDF values by
 * dimension (Figs. 4-5) and the utilisation/stall correlation (Table I).
 * Pure; analyze.h describes the types.
 */
#include "analyze.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

const char *const an_metric_names[AN_METRICS] = {"ppm", "pbu", "pts_inq", "pts_credit"};
const char *const an_node_metric_names[AN_NODE_METRICS] = {"injection_bpm", "ingestion_bpm"};

int an_dlink_metrics(const temu_machine *m, int64_t router, int dir, const an_frame *a,
                     const an_frame *b, an_metrics *out)
{
    int tiles[TEMU_GEMINI_TILES];
    int64_t ta = a->t_ps[router], tb = b->t_ps[router];
    if (ta < 0 || tb <= ta) {
        return -1;
    }
    const an_link *x = &a->links[router * AN_DIRS + dir], *y = &b->links[router * AN_DIRS + dir];
    double dt = (double)(tb - ta);
    out->dt_ps = tb - ta;
    out->bytes = y->bytes - x->bytes; /* modulo 2^64, as LDMS */
    out->packets = y->packets - x->packets;
    out->tiles = temu_gemini_link_tiles(dir, tiles);
    out->bandwidth = temu_gemini_link_bandwidth(m, router, dir);
    /* packets per minute: 60 s = 6e13 ps */
    out->ppm = (double)out->packets * 6e13 / dt;
    /* eq. 3: 100 (bytes / T_i) / (BW_t-link N_t-links); GB/s = 1e9 B/s = 1e-3 B/ps */
    out->pbu = 100.0 * (double)out->bytes / (out->bandwidth * 1e-3 * dt);
    /* eqs. 1-2: stall time summed over the tiles / (tiles x T_i), in percent */
    out->pts_inq = 100.0 * (double)(y->inq_ps - x->inq_ps) / (out->tiles * dt);
    out->pts_credit = 100.0 * (double)(y->credit_ps - x->credit_ps) / (out->tiles * dt);
    return 0;
}

int an_nodes_interval(const temu_machine *m, const an_frame *a, const an_frame *b, an_nodes *out)
{
    memset(out, 0, sizeof *out);
    if (b->time_ps <= a->time_ps) {
        return -1;
    }
    for (int64_t n = 0; n < m->nnodes; n++) {
        if (a->node_seen[n] && b->node_seen[n]) {
            out->nodes++;
            out->out += b->nic[n].out - a->nic[n].out; /* modulo 2^64 */
            out->in += b->nic[n].in - a->nic[n].in;
        }
    }
    double dt = (double)(b->time_ps - a->time_ps);
    out->out_bpm = (double)out->out * 6e13 / dt;
    out->in_bpm = (double)out->in * 6e13 / dt;
    return 0;
}

double an_metric(const an_metrics *x, int which)
{
    switch (which) {
    case AN_PPM:
        return x->ppm;
    case AN_PBU:
        return x->pbu;
    case AN_PTS_INQ:
        return x->pts_inq;
    default:
        return x->pts_credit;
    }
}

void an_corr_add(an_corr *c, double x, double y)
{
    c->n += 1;
    c->sx += x;
    c->sy += y;
    c->sxx += x * x;
    c->syy += y * y;
    c->sxy += x * y;
}

double an_corr_value(const an_corr *c)
{
    if (c->n < 2) {
        return NAN;
    }
    double vx = c->n * c->sxx - c->sx * c->sx;
    double vy = c->n * c->syy - c->sy * c->sy;
    if (vx <= 0 || vy <= 0) {
        return NAN; /* a constant side has no correlation */
    }
    return (c->n * c->sxy - c->sx * c->sy) / sqrt(vx * vy);
}

int an_reserve(void **items, size_t *cap, size_t n, size_t size, size_t first)
{
    if (n < *cap) {
        return 0;
    }
    size_t more = *cap ? 2 * *cap : first;
    void *p = realloc(*items, more * size);
    if (p == NULL) {
        return -1;
    }
    *items = p;
    *cap = more;
    return 0;
}

int an_values_add(an_values *a, double v)
{
    if (v == 0) {
        a->zeros++;
        return 0;
    }
    if (an_reserve((void **)&a->v, &a->cap, a->n, sizeof *a->v, 1024) != 0) {
        return -1;
    }
    a->v[a->n++] = v;
    return 0;
}

void an_values_free(an_values *a)
{
    free(a->v);
    memset(a, 0, sizeof *a);
}

size_t an_values_total(const an_values *a)
{
    return a->n + a->zeros;
}

double an_values_mean(const an_values *a)
{
    double s = 0;
    for (size_t i = 0; i < a->n; i++) {
        s += a->v[i];
    }
    return an_values_total(a) ? s / (double)an_values_total(a) : NAN;
}

double an_values_max(const an_values *a)
{
    double x = a->zeros ? 0.0 : NAN;
    for (size_t i = 0; i < a->n; i++) {
        x = isnan(x) || a->v[i] > x ? a->v[i] : x;
    }
    return x;
}

double an_values_over(const an_values *a, double limit)
{
    size_t k = limit < 0 ? a->zeros : 0;
    for (size_t i = 0; i < a->n; i++) {
        k += a->v[i] > limit;
    }
    return an_values_total(a) ? (double)k / (double)an_values_total(a) : NAN;
}

static int cmp_double(const void *p, const void *q)
{
    double a = *(const double *)p, b = *(const double *)q;
    return (a > b) - (a < b);
}

void an_ccdf(an_values *a, void (*point)(void *ctx, double value, size_t count, size_t total),
             void *ctx)
{
    size_t total = an_values_total(a), i = 0;
    if (a->n > 0) { /* an empty list has no array: qsort must not get NULL */
        qsort(a->v, a->n, sizeof *a->v, cmp_double);
    }
    /* below zero: the zeros are among the values >= each of them */
    for (; i < a->n && a->v[i] < 0; i++) {
        if (i == 0 || a->v[i] != a->v[i - 1]) {
            point(ctx, a->v[i], a->n - i + a->zeros, total);
        }
    }
    if (a->zeros) {
        point(ctx, 0.0, a->n - i + a->zeros, total);
    }
    for (size_t j = i; j < a->n; j++) {
        if (j == i || a->v[j] != a->v[j - 1]) {
            point(ctx, a->v[j], a->n - j, total);
        }
    }
}

int an_stats_add(an_stats *s, int dir, const an_metrics *x)
{
    int dim = dir / 2;
    for (int k = 0; k < AN_METRICS; k++) {
        if (an_values_add(&s->values[dim][k], an_metric(x, k)) != 0) {
            return -1;
        }
    }
    an_corr_add(&s->credit[dim], x->pbu, x->pts_credit);
    an_corr_add(&s->inq[dim], x->pbu, x->pts_inq);
    s->samples[dim]++;
    return 0;
}

int an_stats_add_nodes(an_stats *s, const an_nodes *x)
{
    return an_values_add(&s->nodes[AN_INJECTION], x->out_bpm) != 0 ||
                   an_values_add(&s->nodes[AN_INGESTION], x->in_bpm) != 0
               ? -1
               : 0;
}

void an_stats_free(an_stats *s)
{
    for (int k = 0; k < AN_NODE_METRICS; k++) {
        an_values_free(&s->nodes[k]);
    }
    for (int d = 0; d < AN_DIMS; d++) {
        for (int k = 0; k < AN_METRICS; k++) {
            an_values_free(&s->values[d][k]);
        }
    }
}
