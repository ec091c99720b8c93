/*
 * fm_solve.c - rates after a change (fm.h): the flows and channels
 * connected to it, their max-min rates with saturated channels derated,
 * and the stall rates the new rates imply.
 *
 * Incremental: the set solved starts with the flows that joined, the
 * channels where flows joined or left and the channels those channels'
 * flows go on to (their derating depends on the queue feeding them); all
 * other flows keep their rates and what they use of the set's channels is
 * taken off its capacity.  The max-min rates are the only ones where
 * every flow has a bottleneck: a full constraint on which no flow has a
 * higher rate (or its bound).  The set's flows have one given the others'
 * use; an outside flow joins the set when the new rates take its
 * bottleneck away (its load or capacity changed, or a set flow now has a
 * higher rate there), when a constraint it crosses fills at a set level
 * below its rate, or when the outside flows alone overfill one (grow_set).
 * Repeated until none joins: then every flow has a bottleneck, and the
 * rates are the max-min rates of all flows under way (tests/
 * test_flow_solve.c checks them after every event against a solve from
 * scratch).  Cost: the flows whose rates change (and the users of the
 * set's channels, scanned), never bytes.
 *
 * Constraints: each channel (its time), each input buffer at a channel's
 * end while its flows' backlog exceeds it (the credit loop, buffer_open)
 * and, with a VC turnaround (turn_ps > 0), each input VC (its packets'
 * read-out + turn_ps, fm_route.c, add_turnaround).
 *
 * Saturation, two passes on the set: the first with every channel's whole
 * time; where a channel is fed by an input queue that also holds packets
 * for another output (head-of-line blocking) and its load reaches eta
 * (fm_params.c), its capacity becomes eta, and the second pass gives the
 * rates.  A bottleneck that only the second pass reveals keeps its whole
 * time, and a channel outside the set keeps its capacity: the derating
 * follows the order of the changes (deterministic; doc/model.md).
 *
 * Stall rates of a lane l, its flows f each going on to channel n_f:
 *   inq     (its input queue's head waits for n_f): per next channel n,
 *           min(load of l's flows on n x W, other load on n), W the M/D/1
 *           wait caused by n's other traffic (fm_params.c); summed, at most 1;
 *   credit  (l idle, a packet ready, no room downstream): the larger of
 *           its idle time (1 - u) times the share of its traffic held
 *           back where the buffer at l's end is full (back-pressure: the
 *           flows held back by a bottleneck further on have more bytes
 *           left, with those queued behind them at their sources, than
 *           the buffers between l's end and that bottleneck hold,
 *           backlog_spill; or their own credit loop limits them,
 *           counted on the first lane of the paced run ending at the
 *           limiting buffer, loop_holds) and its
 *           load u times the probability
 *           that the buffer it feeds has no room: every one of its
 *           K = buffer / packet bytes slots held by a packet's credit loop
 *           (Erlang B, per VC shared by several flows, none on a lane
 *           whose stream the one lane feeding it already paced,
 *           lane_paced; a flow alone in a
 *           buffer waits for credit only where its loop limits it, which
 *           counts as held back) or the queue full of packets waiting for
 *           the next channels (M/M/1/K on their other load); a derated
 *           bottleneck at least (1 - eta), the time head-of-line blocking
 *           leaves it idle; at most its idle time;
 *   no_dynamic: credit x the share of its load in adaptively routed
 *           classes.
 * A flow alone on its route stalls nowhere but upstream of a slower
 * channel (as the packet model's buffers fill before it).
 */
#define TEMU_BUILDING_LIBRARY 1
#include "fm.h"

#include <stdlib.h>

/* A change of a channel's load (fraction of its time) below this is
 * rounding, not a change: it does not reach the channel's other flows. */
#define FM_LOAD_EPS 1e-9

void fm_chan_settle(fm_chan *c, int64_t t)
{
    if (t > c->since) {
        double dt = (double)(t - c->since);
        c->busy += c->u * dt;
        c->inq += c->r_inq * dt;
        c->credit += c->r_credit * dt;
        c->nodyn += c->r_nodyn * dt;
        for (int32_t k = 0; k < c->ncls; k++) {
            double *q = &c->cls[k * FM_CLS_N];
            q[FM_CLS_INQ] += q[FM_CLS_RINQ] * dt;
            q[FM_CLS_CREDIT] += q[FM_CLS_RCREDIT] * dt;
        }
    }
    c->since = t;
}

/* ------------------------------------------------------------ scratch */

/* Reallocate int32 and double scratch arrays (fm_resize). */
static int grow32(int32_t **a, int32_t n)
{
    return fm_resize((void **)a, n, sizeof **a);
}

static int growd(double **a, int32_t n)
{
    return fm_resize((void **)a, n, sizeof **a);
}

/* Room for nf flows (+1: the compressed rows' end), nc channels and ne
 * elements in the scratch arrays. */
static int scratch_reserve(temu_fm *f, int32_t nf, int32_t nc, int32_t ne)
{
    int bad = 0;
    if (nf + 1 > f->capcf) {
        int32_t n = fm_room(nf + 1, f->capcf);
        bad |= grow32(&f->cflows, n) | grow32(&f->pstart, n) | growd(&f->pw, n) |
               growd(&f->pbound, n) | growd(&f->rrate, n) | grow32(&f->rlimit, n);
        f->capcf = bad ? f->capcf : n;
    }
    if (nc > f->capcc) {
        int32_t n = fm_room(nc, f->capcc);
        bad |= grow32(&f->cchans, n) | growd(&f->pcap, n) | growd(&f->pfix, n) |
               growd(&f->punew, n) | growd(&f->pccap, n) | growd(&f->pold, n) |
               growd(&f->plevel, n) | growd(&f->pmax, n) | growd(&f->pturn, n) |
               fm_resize((void **)&f->rfull, n, sizeof *f->rfull);
        f->capcc = bad ? f->capcc : n;
    }
    if (ne > f->capce) {
        int32_t n = fm_room(ne, f->capce);
        bad |= grow32(&f->pchan, n) | growd(&f->pcoef, n);
        f->capce = bad ? f->capce : n;
    }
    return bad ? -1 : 0;
}

/* ---------------------------------------------------------- the set */

/* Channel c joins the problem's channels (its integrals settled first). */
static int add_chan(temu_fm *f, int32_t c, int32_t stamp, int32_t *nc)
{
    fm_chan *ch = &f->ch[c];
    if (ch->mark == stamp) {
        return 0;
    }
    if (scratch_reserve(f, 0, *nc + 1, 0) != 0) {
        return -1;
    }
    fm_chan_settle(ch, f->now);
    ch->mark = stamp;
    ch->local = *nc;
    f->cchans[(*nc)++] = c;
    return 0;
}

/* Flow id joins the flows to solve (its progress and crossings brought to
 * now at its old rate first), with its channels. */
static int add_flow(temu_fm *f, int32_t id, int32_t stamp, int32_t *nf, int32_t *nc, int32_t *ne)
{
    fm_flow *fl = &f->fl[id];
    if (fl->mark == stamp) {
        return 0;
    }
    if (scratch_reserve(f, *nf + 1, 0, *ne + fl->nel) != 0) {
        return -1;
    }
    fl->mark = stamp;
    f->cflows[(*nf)++] = id;
    *ne += fl->nel;
    fm_flow_advance(f, id, f->now);
    fm_flow_report(f, id, f->now, 0);
    for (int32_t e = 0; e < fl->nel; e++) {
        fm_chan *c = &f->ch[fl->el[e].chan];
        c->users[fl->el[e].pos].mark = stamp; /* the copy the scans read (fm.h) */
        c->fix_call = 0;                      /* its outside use changed */
        /* most of its channels are in the set already: asked here, not in
         * a call */
        if (c->mark != stamp && add_chan(f, fl->el[e].chan, stamp, nc) != 0) {
            return -1;
        }
    }
    return 0;
}

/* The start: the seed channels (where flows joined or left) and the flows
 * that joined (no rate yet). */
static int add_seeds(temu_fm *f, int32_t stamp, int32_t *nf, int32_t *nc, int32_t *ne)
{
    for (int32_t i = 0; i < f->nseeds; i++) {
        fm_chan *c = &f->ch[f->seeds[i]];
        if (add_chan(f, f->seeds[i], stamp, nc) != 0) {
            return -1;
        }
        for (int32_t u = 0; u < c->nusers; u++) {
            const fm_user *us = &c->users[u];
            if (us->x == 0 && add_flow(f, us->flow, stamp, nf, nc, ne) != 0) {
                return -1;
            }
            /* the channel it feeds: its input queue's outputs changed, and
             * with them its derating (chan_eta), re-decided in the set */
            if (us->next >= 0 && add_chan(f, us->next, stamp, nc) != 0) {
                return -1;
            }
        }
    }
    f->nseeds = 0;
    return 0;
}

/* Index of buffer constraint `key` of the set's channel i (after the nc
 * channels themselves); key nkeys + k: the turnaround of its input VC k
 * (turn_rows). */
static int32_t buf_index(const temu_fm *f, int32_t nc, int32_t i, int key)
{
    return nc + i * f->nk + key;
}

/* Has the solve the input VCs' turnaround constraints (turn_ps > 0;
 * fm_route.c, add_turnaround)? */
static int turn_rows(const temu_fm *f)
{
    return f->nk > f->nkeys;
}

/* The turnaround constraint of element el's input VC on the set's channel
 * i, -1: none. */
static int32_t turn_index(const temu_fm *f, int32_t nc, int32_t i, const fm_elem *el)
{
    return turn_rows(f) && el->tcoef > 0 ? buf_index(f, nc, i, f->nkeys + el->key) : -1;
}

/* Calibration (doc/model.md, "Flow level: validation"): the credit loop
 * paces a buffer's flows only while they have more bytes to send than it
 * holds: packets that fit go at the channel's rate (a lone packet of
 * BookSim's configuration is not slowed from 4 to 6 ns).  The flows
 * queued behind one at its source on the same route continue its stream
 * and count (fm_flow_queued_bytes).  On entry pccap
 * of each buffer constraint holds its flows' bytes still to send; on exit
 * its capacity: 1 (the loop binds) or FM_BUFFER_OPEN (it cannot). */
#define FM_BUFFER_OPEN 1e30
static void buffer_open(temu_fm *f, int32_t nc)
{
    double turn = (double)f->c.turn_ps;
    for (int32_t i = nc; i < nc * (1 + f->nk); i++) {
        if ((i - nc) % f->nk < f->nkeys) {
            f->pccap[i] = f->pccap[i] > (double)f->c.buffer_bytes ? 1.0 : FM_BUFFER_OPEN;
            continue;
        }
        /* a turnaround constraint: n packets still to pass, of mean
         * read-out L, pass back to back in n L + (n - 1) turn_ps, not
         * n (L + turn_ps) as its coefficients count them: its capacity is
         * the ratio of the two (a lone packet pays no turnaround) */
        double n = f->pccap[i], read = n > 0 ? f->pturn[i] / n : 0;
        f->pccap[i] = n > 1.0 ? (read + turn) / (read + turn * (n - 1.0) / n) : FM_BUFFER_OPEN;
    }
}

/* What the flows outside the set use of each of its channels and of their
 * input buffers and VCs' turnarounds (they keep their rates), and (pold)
 * what all flows used of the buffers and turnarounds at their old rates.
 * Without buffers or turnarounds (nk == 0), a channel's use is summed
 * again in a later pass of the set's growth only where a flow joined
 * (add_flow clears fix_call): the others' sums would be the same terms in
 * the same order.  With them, every row is summed again in each pass: the
 * buffers' and turnarounds' rows follow the nc channels (buf_index), so
 * each moves when the set grows. */
static void fixed_use(temu_fm *f, int32_t nc, int32_t stamp)
{
    for (int32_t i = nc; i < nc * (1 + f->nk); i++) {
        f->pfix[i] = f->pold[i] = f->pccap[i] = f->pturn[i] = 0;
    }
    for (int32_t i = 0; i < nc; i++) {
        fm_chan *c = &f->ch[f->cchans[i]];
        double use = 0;
        if (f->nk == 0 && c->fix_call == f->call) {
            continue;
        }
        c->fix_call = f->call;
        for (int32_t u = 0; u < c->nusers; u++) {
            const fm_user *us = &c->users[u];
            if (f->nk > 0) {
                /* the input buffers and turnarounds: the flow's own record */
                const fm_flow *fl = &f->fl[us->flow];
                const fm_elem *el = &fl->el[us->elem];
                int32_t b = buf_index(f, nc, i, el->key);
                int32_t t = turn_index(f, nc, i, el);
                f->pold[b] += fl->x * el->bcoef;
                f->pccap[b] += ((double)fl->count - (double)(uint64_t)fl->p) * fl->bytes +
                               fm_flow_queued_bytes(f, us->flow, f->c.buffer_bytes);
                if (t >= 0) {
                    /* packets still to pass the input VC: those of the flows on
                     * their channels only.  Counting the flows queued at their
                     * sources too (as the buffers' backlog does) let a node's
                     * next one-packet flow start beside the first (the
                     * injection channel had time to spare) and share the
                     * channels at once: 4x4x4 tornado's latency at 0.8 x
                     * saturation +36.0 % against BookSim's, +16.4 % without */
                    double n = (double)fl->count - (double)(uint64_t)fl->p;
                    f->pold[t] += fl->x * el->tcoef;
                    f->pccap[t] += n;
                    f->pturn[t] += n * (el->tcoef - (double)f->c.turn_ps);
                }
                if (fl->mark != stamp) {
                    f->pfix[b] += fl->x * el->bcoef;
                    if (t >= 0) {
                        f->pfix[t] += fl->x * el->tcoef;
                    }
                }
            }
            if (us->mark != stamp) {
                use += us->x * us->coef; /* the flow's x and coef (fm.h) */
            }
        }
        f->pfix[i] = use;
    }
    buffer_open(f, nc);
}

/* The capacities of the set's constraints: each channel's (1, or its eta
 * where derated: ccap) and each input buffer's (1: all of its bytes, all
 * the time) less what the others use. */
static void problem_caps(temu_fm *f, int32_t nc)
{
    int32_t ntot = nc * (1 + f->nk);
    for (int32_t i = 0; i < ntot; i++) {
        double left = f->pccap[i] - f->pfix[i];
        f->pcap[i] = left > 0 ? left : 0;
    }
}

/* The set as a max-min problem: those capacities (problem_caps); a flow
 * crosses a channel and the buffer at its end (none at an ejection
 * channel: bcoef 0). */
static void build_problem(temu_fm *f, int32_t nf, int32_t nc, fm_mm_problem *p)
{
    int32_t k = 0, j = 0, ntot = nc * (1 + f->nk);
    int turns = turn_rows(f); /* asked once: not per element (turn_index) */
    problem_caps(f, nc);
    if (f->nk == 0) {
        /* only channels' rows, numbered by the channels' places in the
         * set, which stay: the rows of the flows of an earlier pass of
         * this solve are in place, and the flows that joined since follow */
        j = f->pbuilt;
        k = f->pstart[j];
    }
    for (; j < nf; j++) {
        fm_flow *fl = &f->fl[f->cflows[j]];
        f->pstart[j] = k;
        f->pw[j] = 1.0;
        f->pbound[j] = fl->bound;
        for (int32_t e = 0; e < fl->nel; e++) {
            int32_t i = f->ch[fl->el[e].chan].local;
            f->pchan[k] = i;
            f->pcoef[k++] = fl->el[e].coef;
            if (fl->el[e].bcoef > 0) {
                f->pchan[k] = buf_index(f, nc, i, fl->el[e].key);
                f->pcoef[k++] = fl->el[e].bcoef;
            }
            if (turns && fl->el[e].tcoef > 0) {
                f->pchan[k] = buf_index(f, nc, i, f->nkeys + fl->el[e].key);
                f->pcoef[k++] = fl->el[e].tcoef;
            }
        }
    }
    f->pstart[nf] = k;
    f->pbuilt = nf;
    *p = (fm_mm_problem){nf, ntot, f->pcap, f->pw, f->pbound, f->pstart, f->pchan, f->pcoef};
}

/* ------------------------------------------------------------ derating */

/* Does channel c's input queue hold packets for more than one output?
 * It depends on its users' next channels only: decided again only when
 * its users changed (fm_chan.uver). */
static uint8_t queue_mixed(fm_chan *c)
{
    int64_t first = -2;
    if (c->mixed_uver == c->uver + 1) {
        return c->mixed;
    }
    c->mixed_uver = c->uver + 1;
    c->mixed = 0;
    for (int32_t u = 0; u < c->nusers; u++) {
        int64_t next = c->users[u].next;
        if (first == -2) {
            first = next;
        } else if (next != first) {
            c->mixed = 1;
            break;
        }
    }
    return c->mixed;
}

/* The fraction of its time bottleneck channel c keeps (fm_params.c); it
 * depends on c's users and its inputs' only: decided once per solve (the
 * set grows in passes, each derating again). */
static double chan_eta(temu_fm *f, fm_chan *c)
{
    if (c->eta_call == f->call) {
        return c->eta;
    }
    int32_t stamp = ++f->stamp;
    int inputs = 0, mixed = 0;
    unsigned vcs = 0;
    for (int32_t u = 0; u < c->nusers; u++) {
        const fm_user *us = &c->users[u];
        vcs |= 1u << us->vc;
        if (us->prev < 0) {
            continue; /* an injection channel: fed by its node's source queue */
        }
        fm_chan *in = &f->ch[us->prev];
        if (in->seen != stamp) {
            in->seen = stamp;
            inputs++;
            mixed |= queue_mixed(in);
        }
    }
    c->eta_call = f->call;
    c->eta = fm_params_eta(f->par, inputs, mixed, vcs == 3u ? 2 : 1);
    return c->eta;
}

/* Derate the channels of the set whose first-pass load reaches what
 * head-of-line blocking leaves of them (eta): they are the bottlenecks the
 * packet model would have there; 1 if any was.  Only loads above the
 * table's least eta are looked at (chan_eta reads the channels feeding). */
static int derate(temu_fm *f, int32_t nc)
{
    int any = 0;
    double least = fm_params_eta_least(f->par);
    for (int32_t i = 0; i < nc; i++) {
        if (f->punew[i] >= least - 1e-12) {
            double eta = chan_eta(f, &f->ch[f->cchans[i]]);
            if (eta < 1.0 && f->punew[i] >= eta - 1e-12) {
                f->pccap[i] = eta;
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

/* Split a lane's stall rate over its classes by their own terms (raw,
 * one per class; by their shares of its load where no term is positive):
 * into c->cls at entry `slot`. */
static void chan_split(fm_chan *c, int slot, double rate, const double *raw, const double *share)
{
    double sum = 0, shares = 0;
    for (int32_t k = 0; k < c->ncls; k++) {
        sum += raw[k];
        shares += share[k];
    }
    for (int32_t k = 0; k < c->ncls; k++) {
        double part = sum > 0 ? raw[k] / sum : (shares > 0 ? share[k] / shares : 0);
        c->cls[k * FM_CLS_N + slot] = rate * part;
    }
}

/* Back-pressure (doc/model.md, "Flow level: validation"): a flow held back
 * by a bottleneck `hops` channels further on keeps its packets still to
 * send (and those queued behind it at its source on the same route) in
 * the input buffers before that bottleneck, the nearest first; what
 * remains after the hops - 1 buffers between this lane's end and the
 * bottleneck's input, in bytes, waits in the buffer at this lane's end
 * (0: it does not reach it).  Returned added to `have`, the sum of those
 * of the lane's flows before it, which chan_rates only compares with one
 * buffer's bytes: where the flow's own packets already take the sum
 * there, the bytes queued behind it at its source are not looked for;
 * the sum returned is then lower than the whole, and still reaches the
 * buffer's bytes (each term is >= 0, and rounding to nearest keeps a sum
 * of larger terms no lower). */
static double backlog_spill(const temu_fm *f, int32_t id, int32_t hops, double have)
{
    const fm_flow *fl = &f->fl[id];
    double p = fl->p + fl->x * (double)(f->now > fl->tp ? f->now - fl->tp : 0);
    double left = ((double)fl->count - (p < (double)fl->count ? p : (double)fl->count)) * fl->bytes;
    double room = (double)(hops - 1) * f->c.buffer_bytes;
    if (left > room && have + (left - room) >= (double)f->c.buffer_bytes) {
        return have + (left - room);
    }
    left += fm_flow_queued_bytes(f, id, room + f->c.buffer_bytes);
    return have + (left > room ? left - room : 0);
}

/* Is lane c's stream already paced by the lane feeding it (doc/model.md,
 * "Flow level: validation")?  Yes when every flow on c comes from one
 * torus lane (not a node's injection channel) whose credit loop holds a
 * packet at least as long as c's own: that loop spaced the packets it
 * lets into c's input queue, so they reach c no faster than c's own loop
 * lets them go on, and c never waits for its own credit (the packet
 * model: on 4x4x4 tornado only the first dimension's lanes, fed by the
 * nodes' bursts, stall for credit).  It depends on its users' routes
 * only: decided again only when its users changed (fm_chan.uver). */
static uint8_t lane_paced(const temu_fm *f, fm_chan *c)
{
    int64_t from = -1;
    if (c->paced_uver == c->uver + 1) {
        return c->paced;
    }
    c->paced_uver = c->uver + 1;
    c->paced = c->nusers > 0;
    for (int32_t u = 0; u < c->nusers && c->paced; u++) {
        const fm_flow *fl = &f->fl[c->users[u].flow];
        int32_t e = c->users[u].elem;
        if (e < 2 || (from >= 0 && fl->el[e - 1].chan != from) ||
            fl->el[e - 1].hold < fl->el[e].hold) {
            c->paced = 0;
        }
        from = e > 0 ? fl->el[e - 1].chan : -1;
    }
    return c->paced;
}

/* Is a flow held back by its own credit loop (limited by the input buffer
 * at the end of its element `limit`) held back at its element e?  At the
 * first lane of the run of paced lanes that ends at `limit` (lane_paced):
 * the lanes after it receive a stream that lane already spaced. */
static int loop_holds(temu_fm *f, const fm_flow *fl, int32_t e)
{
    if (!fl->limit_buf || fl->limit < e || lane_paced(f, &f->ch[fl->el[e].chan])) {
        return 0;
    }
    for (int32_t i = e + 1; i <= fl->limit; i++) {
        if (!lane_paced(f, &f->ch[fl->el[i].chan])) {
            return 0;
        }
    }
    return 1;
}

/* The rates of lane c now, from its flows' rates and the load of the
 * channels they go on to (the comment at the top); each class's part of
 * them by its own terms. */
static int chan_rates(temu_fm *f, fm_chan *c)
{
    const fm_params *par = f->par;
    double u = c->u > 1.0 ? 1.0 : c->u, idle = 1.0 - u;
    double inq = 0, back = 0, z = 0, k = 0, adaptive = 0, held[16] = {0}, keyed[16] = {0};
    double cback[TEMU_TM_MAX_CLASSES] = {0}, cshare[TEMU_TM_MAX_CLASSES] = {0};
    double cinq[TEMU_TM_MAX_CLASSES] = {0}, ccredit[TEMU_TM_MAX_CLASSES] = {0};
    double spill[16] = {0}, spilled[16] = {0};
    int flows[16] = {0};
    int32_t stamp = ++f->stamp, nnext = 0;
    /* each next channel's load from c (scratch), the channels listed once
     * (f->nexts: at most one per user) to be cleared after */
    if (c->nusers > f->capnexts) {
        int32_t n = fm_room(c->nusers, f->capnexts);
        if (grow32(&f->nexts, n) != 0) {
            return -1;
        }
        f->capnexts = n;
    }
    for (int32_t i = 0; i < c->nusers; i++) {
        const fm_user *us = &c->users[i];
        if (us->next >= 0) {
            fm_chan *n = &f->ch[us->next];
            n->scratch += us->x * us->ncoef; /* fl->x x fl->el[e + 1].coef (fm.h) */
            if (n->grown != stamp) {
                n->grown = stamp;
                f->nexts[nnext++] = us->next;
            }
        }
    }
    for (int32_t i = 0; i < c->nusers && c->u > 0; i++) {
        const fm_user *us = &c->users[i];
        double share = us->x * us->coef / c->u;
        k += share * (double)f->c.buffer_bytes / (double)us->bytes;
        /* held back by this lane's own input buffer (the credit loop: it
         * waits for credit), or by a bottleneck further on whose backlog
         * reaches back into the buffer at this lane's end; neither where
         * its bottleneck is not ahead (us->ahead: no flow record read) */
        if (us->ahead) {
            const fm_flow *fl = &f->fl[us->flow];
            int32_t e = us->elem;
            if (loop_holds(f, fl, e)) {
                back += share;
                cback[us->cls] += share;
            } else if (fl->limit > e) {
                /* spill is only compared with one buffer's bytes (below):
                 * once it reaches them, later terms (>= 0) change nothing */
                double *s = &spill[us->key & 15u];
                *s = *s < (double)f->c.buffer_bytes ? backlog_spill(f, us->flow, fl->limit - e, *s)
                                                    : *s;
                spilled[us->key & 15u] += share;
            }
        }
        cshare[us->cls] += share;
        flows[us->key & 15u]++;
        adaptive += us->adaptive ? share : 0;
        held[us->key & 15u] += us->x * us->hold;
        keyed[us->key & 15u] += share;
        if (us->next < 0) {
            continue;
        }
        fm_chan *n = &f->ch[us->next];
        if (n->seen != stamp) {
            /* n's other load and M/D/1 wait: the same for each of c's
             * flows going on to n, worked out at the first */
            double other = (n->u - n->scratch) / n->cap, total = n->u / n->cap;
            other = other > 0 ? other : 0;
            n->other = other;
            n->wait = fm_params_wait(par, other, total);
            n->seen = stamp;
            double own = n->scratch * n->wait;
            inq += own < other ? own : other;
        }
        z += share * n->other;
        /* the class's own wait for n: its load there x n's M/D/1 wait */
        cinq[us->cls] += us->x * us->ncoef * n->wait;
    }
    for (int32_t i = 0; i < nnext; i++) {
        f->ch[f->nexts[i]].scratch = 0;
    }
    /* the input buffer at the lane's end is out of space: its packets all
     * held (Erlang B, k slots each held for the credit loop), or the queue
     * full of packets waiting (M/M/1/K on the next channels' other load) */
    double pb = 0;
    uint8_t paced = lane_paced(f, c);
    for (int key = 0; key < 16 && key < f->nkeys; key++) { /* the others are empty */
        /* the buffer is full, the lane idle for credit, while the flows
         * held back behind it have more bytes than it holds */
        if (spilled[key] > 0 && spill[key] >= (double)f->c.buffer_bytes) {
            back += spilled[key];
            if (key / f->vcs_per_class < c->ncls) {
                cback[key / f->vcs_per_class] += spilled[key];
            }
        }
        /* a buffer one steady stream uses is out of room only when its
         * loop limits it (back, above): no randomness, no blocking */
        double b = flows[key] > 1 && !paced ? keyed[key] * fm_params_blocked(k * held[key], k) : 0;
        pb += b;
        if (key / f->vcs_per_class < c->ncls) {
            ccredit[key / f->vcs_per_class] += u * b; /* its own buffers out of room */
        }
    }
    double pf = fm_params_full(z, k);
    double credit = u * (pf > pb ? pf : pb);
    credit = idle * back > credit ? idle * back : credit;
    inq *= par->inq_scale; /* the open-queue estimate, calibrated */
    if (c->full && c->cap < 1.0 && credit < 1.0 - c->cap) {
        credit = 1.0 - c->cap;
    }
    c->r_credit = credit < idle ? credit : idle;
    c->r_inq = inq < 1.0 ? inq : 1.0;
    c->r_nodyn = c->r_credit * adaptive;
    for (int32_t cl = 0; cl < c->ncls; cl++) {
        double own = ccredit[cl] > u * pf * cshare[cl] ? ccredit[cl] : u * pf * cshare[cl];
        ccredit[cl] = idle * cback[cl] > own ? idle * cback[cl] : own;
    }
    chan_split(c, FM_CLS_RCREDIT, c->r_credit, ccredit, cshare);
    chan_split(c, FM_CLS_RINQ, c->r_inq, cinq, cshare);
    return 0;
}

/* ------------------------------------------------------------ solving */

/* Solve the set: every channel's whole time first, then the bottlenecks
 * derated; each channel's new load into punew. */
/* Every channel's load with the set's rates just solved, into punew. */
static void set_loads(temu_fm *f, const fm_mm_problem *p)
{
    for (int32_t i = 0; i < p->nchans; i++) {
        f->punew[i] = f->pfix[i];
    }
    for (int32_t j = 0; j < p->nflows; j++) {
        for (int32_t k = p->start[j]; k < p->start[j + 1]; k++) {
            f->punew[p->chan[k]] += f->rrate[j] * p->coef[k];
        }
    }
}

/* Per constraint of the set: the rate of the set's flows it stopped
 * (plevel, -1: none; all equal, the weights are 1) and the highest rate of
 * the set's flows crossing it (pmax). */
static void set_levels(temu_fm *f, const fm_mm_problem *p)
{
    for (int32_t i = 0; i < p->nchans; i++) {
        f->plevel[i] = -1;
        f->pmax[i] = 0;
    }
    for (int32_t j = 0; j < p->nflows; j++) {
        double x = f->rrate[j];
        for (int32_t k = p->start[j]; k < p->start[j + 1]; k++) {
            int32_t i = p->chan[k];
            f->pmax[i] = x > f->pmax[i] ? x : f->pmax[i];
        }
        if (f->rlimit[j] >= 0 && x > f->plevel[f->rlimit[j]]) {
            f->plevel[f->rlimit[j]] = x;
        }
    }
}

static int solve_set(temu_fm *f, int32_t nf, int32_t nc, int32_t stamp)
{
    fm_mm_problem p;
    fixed_use(f, nc, stamp);
    for (int32_t i = 0; i < nc; i++) {
        f->pccap[i] = 1.0;
    }
    build_problem(f, nf, nc, &p);
    if (solve_once(f, &p) != 0) {
        return -1;
    }
    set_loads(f, &p);
    if (derate(f, nc)) {
        problem_caps(f, nc); /* the same flows and crossings, derated capacities */
        if (solve_once(f, &p) != 0) {
            return -1;
        }
        set_loads(f, &p);
    }
    set_levels(f, &p);
    return 0;
}

/* Rates closer than this (relative) are equal: rounding of the solver. */
#define FM_RATE_REL 1e-9

/* The two tests of constraint_needs that read the set's new rates on
 * constraint k: a set flow stopped there at a level below x (it would be
 * entitled to more of k), or, where k is the outside flow's bottleneck
 * (`limited`), a set flow passes x there (k no longer stops it). */
static int set_rates_pass(const temu_fm *f, int32_t k, double x, int limited)
{
    return (f->plevel[k] >= 0 && x > f->plevel[k] * (1.0 + FM_RATE_REL)) ||
           (limited && f->pmax[k] > x * (1.0 + FM_RATE_REL));
}

/* Must a flow outside the set, at rate x on constraint k of the set, be
 * solved with it?  `limited`: k is its bottleneck; dload: k's change of
 * load; oldcap: k's capacity when that flow was solved.  The max-min
 * rates are the unique ones where every flow has a bottleneck: a full
 * constraint where no flow has a higher rate (or its bound).  The set's
 * flows have one given the others' use; an outside flow keeps its rate
 * while its bottleneck stays full with no set flow above it, and while
 * no constraint it crosses is filled by set flows at a lower rate (they
 * would be entitled to more of it) or over-filled by the outside flows. */
static int constraint_needs(const temu_fm *f, int32_t k, double x, int limited, double dload,
                            double oldcap)
{
    if (f->pfix[k] > f->pccap[k] + FM_LOAD_EPS || set_rates_pass(f, k, x, limited)) {
        return 1;
    }
    return limited && (dload > FM_LOAD_EPS || dload < -FM_LOAD_EPS || f->pccap[k] != oldcap);
}

/* Must the outside flow of user us of the set's channel i (of nc) join
 * the set?  Its channel's constraint, then the input buffer's at its end
 * (a buffer that limited a flow had the capacity 1, buffer_open). */
static int user_needs(const temu_fm *f, int32_t nc, int32_t i, const fm_user *us)
{
    const fm_chan *c = &f->ch[f->cchans[i]];
    if (constraint_needs(f, i, us->x, us->here, f->punew[i] - c->u, c->cap)) {
        return 1;
    }
    if (f->nk > 0) {
        /* the input buffers and turnarounds: the flow's own record */
        const fm_flow *g = &f->fl[us->flow];
        const fm_elem *el = &g->el[us->elem];
        int here = g->limit == us->elem;
        int32_t t = turn_index(f, nc, i, el);
        /* a turnaround's capacity follows the packets it has still to pass
         * (buffer_open) and is not kept: a flow it limited always joins */
        if (t >= 0 && ((here && g->limit_buf == 2) ||
                       constraint_needs(f, t, g->x, 0, f->punew[t] - f->pold[t], 1.0))) {
            return 1;
        }
        if (el->bcoef > 0) {
            int32_t b = buf_index(f, nc, i, el->key);
            return constraint_needs(f, b, g->x, here && g->limit_buf == 1, f->punew[b] - f->pold[b],
                                    1.0);
        }
    }
    return 0;
}

/* The outside flows whose rates the set's new rates invalidate
 * (user_needs) join it; *grew: 1 if any did.  What user_needs asks of
 * channel i's own constraint that does not depend on the flow (overfilled,
 * its load or capacity changed) is asked once per channel: where neither
 * holds, a flow that crosses no buffer of the set can only need to join
 * through i's level or highest rate: set_rates_pass, the test
 * constraint_needs makes of them. */
static int grow_set(temu_fm *f, int32_t stamp, int32_t *nf, int32_t *nc, int32_t *ne, int *grew)
{
    int32_t n = *nc;
    *grew = 0;
    for (int32_t i = 0; i < n; i++) {
        fm_chan *c = &f->ch[f->cchans[i]];
        double dload = f->punew[i] - c->u;
        int quiet = !(f->pfix[i] > f->pccap[i] + FM_LOAD_EPS) &&
                    !(dload > FM_LOAD_EPS || dload < -FM_LOAD_EPS || f->pccap[i] != c->cap);
        for (int32_t u = 0; u < c->nusers; u++) {
            const fm_user *us = &c->users[u];
            if (us->mark == stamp ||
                (quiet && f->nk == 0 && !set_rates_pass(f, i, us->x, us->here))) {
                continue;
            }
            if (user_needs(f, n, i, us)) {
                *grew = 1;
                if (add_flow(f, us->flow, stamp, nf, nc, ne) != 0) {
                    return -1;
                }
            }
        }
    }
    return 0;
}

/* ------------------------------------------------------------ apply */

/* Append id to the list (n items, cap allocated), grown as needed. */
static int list_push(int32_t **list, int32_t *n, int32_t *cap, int32_t id)
{
    if (*n == *cap) {
        int32_t room = fm_room(*n + 1, *cap);
        if (grow32(list, room) != 0) {
            return -1;
        }
        *cap = room;
    }
    (*list)[(*n)++] = id;
    return 0;
}

/* Lanes whose stall rates change: the set's channels, and the lanes before
 * them on the routes of their flows (a lane's stalls depend on the load of
 * the channels its flows go on to); settled to now and queued, once per
 * instant, for fm_solve_finish. */
static int affected(temu_fm *f, int32_t nc)
{
    int32_t batch = f->batch + 1;
    for (int32_t i = 0; i < nc; i++) {
        const fm_chan *c = &f->ch[f->cchans[i]];
        for (int32_t u = -1; u < c->nusers; u++) {
            int32_t id = u < 0 ? f->cchans[i] : c->users[u].prev;
            if (id < 0 || f->ch[id].aff_batch == batch) {
                continue;
            }
            if (list_push(&f->aff, &f->naff, &f->capaff, id) != 0) {
                return -1;
            }
            f->ch[id].aff_batch = batch;
            fm_chan_settle(&f->ch[id], f->now);
        }
    }
    return 0;
}

/* The set's flows, queued once per instant for their events
 * (fm_solve_finish). */
static int resched_queue(temu_fm *f, int32_t nf)
{
    int32_t batch = f->batch + 1;
    for (int32_t j = 0; j < nf; j++) {
        fm_flow *fl = &f->fl[f->cflows[j]];
        if (fl->resched_batch != batch) {
            fl->resched_batch = batch;
            if (list_push(&f->resched, &f->nresched, &f->capresched, f->cflows[j]) != 0) {
                return -1;
            }
        }
    }
    return 0;
}

static void apply(temu_fm *f, int32_t nf, int32_t nc)
{
    for (int32_t i = 0; i < nc; i++) {
        fm_chan *c = &f->ch[f->cchans[i]];
        c->cap = f->pccap[i];
        c->full = f->rfull[i];
        c->u = f->punew[i];
        c->bfull = 0;
        for (int key = 0; key < f->nk && key < f->nkeys; key++) {
            c->bfull |= (uint16_t)(f->rfull[buf_index(f, nc, i, key)] ? 1u << key : 0u);
        }
    }
    for (int32_t j = 0; j < nf; j++) {
        fm_flow *fl = &f->fl[f->cflows[j]];
        /* the channel that stopped it (a buffer or turnaround: the channel it
         * ends; limit_buf 1 or 2) */
        int32_t r = f->rlimit[j], lim = r;
        fl->limit_buf = 0;
        if (r >= nc) {
            lim = (r - nc) / f->nk;
            fl->limit_buf = (r - nc) % f->nk < f->nkeys ? 1 : 2;
        }
        fl->x = f->rrate[j];
        fl->limit = -1;
        for (int32_t e = 0; e < fl->nel; e++) {
            if (r >= 0 && fl->el[e].chan == f->cchans[lim]) {
                fl->limit = e;
            }
        }
        for (int32_t e = 0; e < fl->nel; e++) {
            fm_user *us = &f->ch[fl->el[e].chan].users[fl->el[e].pos];
            us->x = fl->x; /* the copies the scans read (fm.h) */
            us->here = fl->limit == e && !fl->limit_buf;
            us->ahead = fl->limit > e || (fl->limit_buf && fl->limit == e);
        }
    }
}

int fm_solve_changed(temu_fm *f)
{
    int32_t nf = 0, nc = 0, ne = 0, stamp = ++f->stamp;
    int grew = 1;
    f->call++;
    f->nk = f->c.turn_ps > 0 ? 2 * f->nkeys : (f->nbuffered > 0 ? f->nkeys : 0);
    f->pbuilt = 0;
    if (scratch_reserve(f, 0, 0, 0) != 0) {
        return -1;
    }
    f->pstart[0] = 0;
    if (add_seeds(f, stamp, &nf, &nc, &ne) != 0) {
        return -1;
    }
    while (grew) {
        if (scratch_reserve(f, nf, nc * (1 + f->nk), (turn_rows(f) ? 3 : 2) * ne) != 0 ||
            solve_set(f, nf, nc, stamp) != 0 || grow_set(f, stamp, &nf, &nc, &ne, &grew) != 0) {
            return -1;
        }
    }
    if (affected(f, nc) != 0 || resched_queue(f, nf) != 0) {
        return -1;
    }
    apply(f, nf, nc);
    return 0;
}

int fm_solve_finish(temu_fm *f)
{
    int rc = 0;
    f->tot.stall_lanes += (uint64_t)f->naff;
    for (int32_t i = 0; i < f->naff && rc == 0; i++) {
        rc = chan_rates(f, &f->ch[f->aff[i]]);
    }
    for (int32_t j = 0; j < f->nresched && rc == 0; j++) {
        rc = fm_flow_rescheduled(f, f->resched[j]);
    }
    f->naff = 0;
    f->nresched = 0;
    f->batch++;
    return rc;
}
