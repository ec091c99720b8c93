/*
 * fm_solve.c - rates after a change (fm.h): the flows and channels
 * connected to it, their max-min rates with saturated channels derated,
 * and the stall rates the new rates imply.
 *
 * Incremental: a flow's start or end changes the rates of the flows
 * connected to its channels through shared channels, and of no other, so
 * only that component is solved (cost: its flows x their channels, never
 * bytes).  Two passes: the first with every channel's whole time; where a
 * bottleneck is fed by input queues that also hold packets for other
 * outputs (head-of-line blocking), its capacity becomes eta
 * (fm_params.c), and the second pass gives the rates.  Bottlenecks that only
 * the second pass reveals keep their whole time (stated in doc/model.md).
 *
 * Stall rates of a lane l, its flows f each going on to channel n_f:
 *   inq     (its input queue's head waits for n_f): per next channel n,
 *           min(load of l's flows on n x W, other load on n), W the M/D/1
 *           wait caused by n's other traffic (fm_params.c); summed, at most 1;
 *   credit  (l idle, a packet ready, no room downstream): its idle time
 *           (1 - u) times the larger of the share of its traffic whose
 *           bottleneck lies further on (back-pressure: the buffers before
 *           that bottleneck fill) and the M/M/1/K probability that the
 *           queue it feeds is full (K = buffer / packet bytes); a derated
 *           bottleneck at least (1 - eta), the time head-of-line blocking
 *           leaves it idle;
 *   no_dynamic: credit x the share of its load in adaptively routed
 *           classes.
 * A flow alone on its route stalls nowhere but upstream of a slower
 * channel (as the packet model's buffers fill before it).
 */
#define TEMU_BUILDING_LIBRARY 1
#include "fm.h"

#include <stdlib.h>

void fm_chan_settle(fm_chan *c, int64_t t)
{
    if (t > c->since) {
        double dt = (double)(t - c->since);
        c->busy += c->u * dt;
        c->inq += c->r_inq * dt;
        c->credit += c->r_credit * dt;
        c->nodyn += c->r_nodyn * dt;
    }
    c->since = t;
}

/* ------------------------------------------------------------ scratch */

static int grow32(int32_t **a, int32_t n)
{
    int32_t *p = realloc(*a, (size_t)n * sizeof *p);
    if (!p) {
        return -1;
    }
    *a = p;
    return 0;
}

static int growd(double **a, int32_t n)
{
    double *p = realloc(*a, (size_t)n * sizeof *p);
    if (!p) {
        return -1;
    }
    *a = p;
    return 0;
}

/* A capacity of at least n, doubling (so a component gathered flow by
 * flow costs no more than its size in copies). */
static int32_t roomy(int32_t n, int32_t cap)
{
    return n > 2 * cap ? n : 2 * cap;
}

/* Room for nf flows (+1: the compressed rows' end), nc channels and ne
 * elements in the scratch arrays. */
static int scratch_reserve(temu_fm *f, int32_t nf, int32_t nc, int32_t ne)
{
    int bad = 0;
    if (nf + 1 > f->capcf) {
        int32_t n = roomy(nf + 1, f->capcf);
        bad |= grow32(&f->cflows, n) | grow32(&f->pstart, n) | growd(&f->pw, n) |
               growd(&f->pbound, n) | growd(&f->rrate, n) | grow32(&f->rlimit, n);
        f->capcf = bad ? f->capcf : n;
    }
    if (nc > f->capcc) {
        int32_t n = roomy(nc, f->capcc);
        uint8_t *full = realloc(f->rfull, (size_t)n);
        f->rfull = full ? full : f->rfull;
        bad |= grow32(&f->cchans, n) | growd(&f->pcap, n) | (full ? 0 : 1);
        f->capcc = bad ? f->capcc : n;
    }
    if (ne > f->capce) {
        int32_t n = roomy(ne, f->capce);
        bad |= grow32(&f->pchan, n) | growd(&f->pcoef, n);
        f->capce = bad ? f->capce : n;
    }
    return bad ? -1 : 0;
}

/* ---------------------------------------------------------- component */

/* The flows and channels connected to the seed channels, into cflows and
 * cchans (their counts into *nf, *nc, elements into *ne). */
static int gather(temu_fm *f, int32_t *nf, int32_t *nc, int32_t *ne)
{
    int32_t stamp = ++f->stamp;
    *nf = *nc = *ne = 0;
    for (int32_t i = 0; i < f->nseeds; i++) {
        fm_chan *c = &f->ch[f->seeds[i]];
        if (c->mark != stamp) {
            if (scratch_reserve(f, 1, *nc + 1, 1) != 0) {
                return -1;
            }
            c->mark = stamp;
            f->cchans[(*nc)++] = f->seeds[i];
        }
    }
    for (int32_t i = 0; i < *nc; i++) {
        fm_chan *c = &f->ch[f->cchans[i]];
        for (int32_t u = 0; u < c->nusers; u++) {
            fm_flow *fl = &f->fl[c->users[u].flow];
            if (fl->mark == stamp) {
                continue;
            }
            if (scratch_reserve(f, *nf + 1, *nc + fl->nel, *ne + fl->nel) != 0) {
                return -1;
            }
            fl->mark = stamp;
            f->cflows[(*nf)++] = c->users[u].flow;
            *ne += fl->nel;
            for (int32_t e = 0; e < fl->nel; e++) {
                fm_chan *d = &f->ch[fl->el[e].chan];
                if (d->mark != stamp) {
                    d->mark = stamp;
                    f->cchans[(*nc)++] = fl->el[e].chan;
                }
            }
        }
    }
    return 0;
}

/* The component as a max-min problem (caps: every channel's whole time). */
static void build_problem(temu_fm *f, int32_t nf, int32_t nc, fm_mm_problem *p)
{
    int32_t k = 0;
    for (int32_t i = 0; i < nc; i++) {
        f->ch[f->cchans[i]].local = i;
        f->pcap[i] = 1.0;
    }
    for (int32_t j = 0; j < nf; j++) {
        fm_flow *fl = &f->fl[f->cflows[j]];
        fl->local = j;
        f->pstart[j] = k;
        f->pw[j] = 1.0;
        f->pbound[j] = fl->bound;
        for (int32_t e = 0; e < fl->nel; e++) {
            f->pchan[k] = f->ch[fl->el[e].chan].local;
            f->pcoef[k++] = fl->el[e].coef;
        }
    }
    f->pstart[nf] = k;
    *p = (fm_mm_problem){nf, nc, f->pcap, f->pw, f->pbound, f->pstart, f->pchan, f->pcoef};
}

/* ------------------------------------------------------------ derating */

/* Does channel c's input queue hold packets for more than one output? */
static uint8_t queue_mixed(const temu_fm *f, const fm_chan *c)
{
    int64_t first = -2;
    for (int32_t u = 0; u < c->nusers; u++) {
        const fm_flow *fl = &f->fl[c->users[u].flow];
        int32_t e = c->users[u].elem;
        int64_t next = e + 1 < fl->nel ? fl->el[e + 1].chan : -1;
        if (first == -2) {
            first = next;
        } else if (next != first) {
            return 1;
        }
    }
    return 0;
}

/* The fraction of its time bottleneck channel c keeps (fm_params.c). */
static double chan_eta(temu_fm *f, fm_chan *c)
{
    int32_t stamp = ++f->stamp;
    int inputs = 0, mixed = 0;
    unsigned vcs = 0;
    for (int32_t u = 0; u < c->nusers; u++) {
        const fm_flow *fl = &f->fl[c->users[u].flow];
        int32_t e = c->users[u].elem;
        vcs |= 1u << fl->el[e].vc;
        if (e == 0) {
            continue; /* an injection channel: fed by its node's source queue */
        }
        fm_chan *in = &f->ch[fl->el[e - 1].chan];
        if (in->seen != stamp) {
            in->seen = stamp;
            inputs++;
            mixed |= in->mixed;
        }
    }
    return fm_params_eta(f->par, inputs, mixed, vcs == 3u ? 2 : 1);
}

/* Derate the bottlenecks of the first pass; 1 if any was. */
static int derate(temu_fm *f, int32_t nc)
{
    int any = 0;
    for (int32_t i = 0; i < nc; i++) {
        fm_chan *c = &f->ch[f->cchans[i]];
        c->mixed = queue_mixed(f, c);
    }
    for (int32_t i = 0; i < nc; i++) {
        if (f->rfull[i]) {
            double eta = chan_eta(f, &f->ch[f->cchans[i]]);
            if (eta < 1.0) {
                f->pcap[i] = eta;
                any = 1;
            }
        }
    }
    return any;
}

static int solve_once(temu_fm *f, const fm_mm_problem *p)
{
    fm_mm_result r = {f->rrate, f->rlimit, f->rfull};
    f->tot.solves++;
    f->tot.updates += (uint64_t)p->start[p->nflows];
    return fm_mm_solve(p, &f->mm, &r);
}

/* ---------------------------------------------------------- stall rates */

/* The rates of lane c now, from its flows' rates and the load of the
 * channels they go on to (the comment at the top). */
static void chan_rates(temu_fm *f, fm_chan *c)
{
    const fm_params *par = f->par;
    double u = c->u > 1.0 ? 1.0 : c->u, idle = 1.0 - u;
    double inq = 0, back = 0, z = 0, k = 0, adaptive = 0;
    int32_t stamp = ++f->stamp;
    for (int32_t i = 0; i < c->nusers; i++) {
        const fm_flow *fl = &f->fl[c->users[i].flow];
        int32_t e = c->users[i].elem;
        if (e + 1 < fl->nel) {
            f->ch[fl->el[e + 1].chan].scratch += fl->x * fl->el[e + 1].coef;
        }
    }
    for (int32_t i = 0; i < c->nusers && c->u > 0; i++) {
        const fm_flow *fl = &f->fl[c->users[i].flow];
        int32_t e = c->users[i].elem;
        double share = fl->x * fl->el[e].coef / c->u;
        k += share * (double)f->c.buffer_bytes / (double)fl->bytes;
        back += fl->limit > e ? share : 0;
        adaptive += fl->adaptive ? share : 0;
        if (e + 1 >= fl->nel) {
            continue;
        }
        fm_chan *n = &f->ch[fl->el[e + 1].chan];
        double other = (n->u - n->scratch) / n->cap, total = n->u / n->cap;
        other = other > 0 ? other : 0;
        z += share * other;
        if (n->seen != stamp) {
            double own = n->scratch * fm_params_wait(par, other, total);
            n->seen = stamp;
            inq += own < other ? own : other;
        }
    }
    for (int32_t i = 0; i < c->nusers; i++) {
        const fm_flow *fl = &f->fl[c->users[i].flow];
        int32_t e = c->users[i].elem;
        if (e + 1 < fl->nel) {
            f->ch[fl->el[e + 1].chan].scratch = 0;
        }
    }
    double pf = fm_params_full(z, k), credit = idle * (back > pf ? back : pf);
    if (c->full && c->cap < 1.0 && credit < 1.0 - c->cap) {
        credit = 1.0 - c->cap;
    }
    c->r_credit = credit < idle ? credit : idle;
    c->r_inq = inq < 1.0 ? inq : 1.0;
    c->r_nodyn = c->r_credit * adaptive;
}

/* ------------------------------------------------------------ apply */

static void apply(temu_fm *f, int32_t nf, int32_t nc)
{
    for (int32_t i = 0; i < nc; i++) {
        fm_chan *c = &f->ch[f->cchans[i]];
        c->cap = f->pcap[i];
        c->full = f->rfull[i];
        c->u = 0;
    }
    for (int32_t j = 0; j < nf; j++) {
        fm_flow *fl = &f->fl[f->cflows[j]];
        fl->x = f->rrate[j];
        fl->limit = -1;
        for (int32_t e = 0; e < fl->nel; e++) {
            fm_chan *c = &f->ch[fl->el[e].chan];
            c->u += fl->x * fl->el[e].coef;
            if (c->local == f->rlimit[j]) {
                fl->limit = e;
            }
        }
    }
    for (int32_t i = 0; i < nc; i++) {
        chan_rates(f, &f->ch[f->cchans[i]]);
    }
}

int fm_solve_changed(temu_fm *f)
{
    int32_t nf, nc, ne;
    fm_mm_problem p;
    if (gather(f, &nf, &nc, &ne) != 0) {
        return -1;
    }
    f->nseeds = 0;
    for (int32_t i = 0; i < nc; i++) {
        fm_chan_settle(&f->ch[f->cchans[i]], f->now);
    }
    for (int32_t j = 0; j < nf; j++) {
        fm_flow_advance(f, f->cflows[j], f->now);
        fm_flow_report(f, f->cflows[j], f->now, 0);
    }
    if (scratch_reserve(f, nf, nc, ne) != 0) {
        return -1;
    }
    build_problem(f, nf, nc, &p);
    if (solve_once(f, &p) != 0) {
        return -1;
    }
    if (derate(f, nc) && solve_once(f, &p) != 0) {
        return -1;
    }
    apply(f, nf, nc);
    for (int32_t j = 0; j < nf; j++) {
        if (fm_flow_rescheduled(f, f->cflows[j]) != 0) {
            return -1;
        }
    }
    return 0;
}
