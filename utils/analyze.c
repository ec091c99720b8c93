/*
 * analyze.c - per d-link figures of seed 004 (Jha et al., HPCMASPA 2018,
 * section II) and what `torusemu analyze` gathers of them: CCDF values by
 * dimension (Figs. 4-5) and the utilisation/stall correlation (Table I).
 * Pure; analyze.h describes the types.
 */
#include "analyze.h"

#include <math.h>
#include <stdlib.h>

const char *const an_metric_names[AN_METRICS] = {"ppm", "pbu", "pts_inq", "pts_credit"};

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
    if (an_reserve((void **)&a->v, &a->cap, a->n, sizeof *a->v, 1024) != 0) {
        return -1;
    }
    a->v[a->n++] = v;
    return 0;
}

void an_values_free(an_values *a)
{
    free(a->v);
    a->v = NULL;
    a->n = a->cap = 0;
}

static int cmp_double(const void *p, const void *q)
{
    double a = *(const double *)p, b = *(const double *)q;
    return (a > b) - (a < b);
}

void an_ccdf(an_values *a, void (*point)(void *ctx, double value, size_t count, size_t total),
             void *ctx)
{
    qsort(a->v, a->n, sizeof *a->v, cmp_double);
    for (size_t i = 0; i < a->n; i++) {
        if (i == 0 || a->v[i] != a->v[i - 1]) {
            /* i values lie below v[i]: n - i are >= it */
            point(ctx, a->v[i], a->n - i, a->n);
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

void an_stats_free(an_stats *s)
{
    for (int d = 0; d < AN_DIMS; d++) {
        for (int k = 0; k < AN_METRICS; k++) {
            an_values_free(&s->values[d][k]);
        }
    }
}
