/*
 * fm_model.c - the flow level as a whole (torusemu_flow.h): creation, sends,
 * the run, the counting of crossings, what its users ask of it.
 *
 * The run (temu_fm_run) takes the flows' events in order of time (ties:
 * the flow sent first): a creation puts a flow on its channels (or behind
 * its node's earlier flows, in the node's source queue), a drain
 * end takes it off them (its last packet has left its slowest channel),
 * a delivery tells the driver.  All events of one time are taken before
 * the rates are solved again, once, for the flows and channels they touch
 * (fm_solve.c).
 *
 * Crossings: a packet crosses every channel of its route when it starts
 * draining (fm.h: when the flow's progress reaches its index), so a
 * stretch of constant rate is a run of evenly spaced packets.  They are
 * counted (lane packets and bytes) when the rate changes and when the
 * flow ends; with a hop function, also whenever the clock moves past
 * them, in the order of their start, so that each is told before the
 * model's time passes its start (crossing.c's windows then attribute
 * every packet to the interval it crossed in).  Without a hop function
 * the cost is per rate change; with one, per clock step of a flow that
 * has a packet starting in it (at most its packets).
 */
#define TEMU_BUILDING_LIBRARY 1
#include "fm.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* rounding guard of progress: a packet whose start is within 1e-6 of a
 * packet's time counts as started (the rates are not exact binary
 * fractions) */
#define FM_EPS 1e-6

/* ------------------------------------------------------------ progress */

void fm_flow_advance(temu_fm *f, int32_t id, int64_t t)
{
    fm_flow *fl = &f->fl[id];
    if (t > fl->tp) {
        fl->p += fl->x * (double)(t - fl->tp);
        fl->p = fl->p > (double)fl->count ? (double)fl->count : fl->p;
        fl->tp = t;
    }
}

/* Packets of fl that have started by time t >= tp. */
static uint64_t started_by(const fm_flow *fl, int64_t t)
{
    double q = fl->p + fl->x * (double)(t > fl->tp ? t - fl->tp : 0);
    double k = floor(q + FM_EPS) + 1.0;
    return k >= (double)fl->count ? fl->count : (uint64_t)k;
}

/* When packet k of fl starts at its current rate (not before tp). */
static int64_t packet_time(const fm_flow *fl, uint64_t k)
{
    double ahead = (double)k - fl->p - FM_EPS;
    if (ahead <= 0) {
        return fl->tp; /* started already (a new flow's first packet at its creation) */
    }
    if (!(fl->x > 0)) {
        return INT64_MAX;
    }
    double t = (double)fl->tp + ahead / fl->x;
    if (t >= 9.0e18) {
        return INT64_MAX;
    }
    int64_t s = (int64_t)ceil(t);
    return s > fl->tp ? s : fl->tp;
}

/* ------------------------------------------------------------ crossings */

/* Tell the hop function of n packets of fl, first starting at s, spaced sp,
 * on its element e. */
static void hop_tell(const temu_fm *f, const fm_flow *fl, int32_t e, uint32_t n, int64_t s,
                     int64_t sp)
{
    temu_tm_hop h;
    int64_t c = fl->el[e].chan;
    memset(&h, 0, sizeof h);
    h.start_ps = s;
    h.spacing_ps = n > 1 ? sp : 0;
    h.ser_ps = (int64_t)fl->el[e].coef;
    h.tag = fl->tag;
    h.bytes = (uint64_t)n * fl->bytes;
    h.packets = n;
    h.cls = h.vc_class = fl->cls;
    h.lane_key = fl->lane_key;
    if (e == 0) {
        h.kind = TEMU_TM_HOP_INJECT;
        h.node = fl->src;
    } else if (e + 1 == fl->nel) {
        h.kind = TEMU_TM_HOP_EJECT;
        h.node = fl->dst;
    } else {
        h.kind = TEMU_TM_HOP_LINK;
        h.lane = (int32_t)(c % f->maxlanes);
        h.link = (int32_t)(c / f->maxlanes % f->tlinks);
        h.router = c / f->maxlanes / f->tlinks;
        h.to_router = f->nbr[h.router * f->tlinks + h.link];
    }
    f->hop(f->hop_ctx, &h);
}

/* Tell the hop function of packets k0 .. k1-1 of fl (one stretch of
 * constant rate), in records of at most 2^31 packets. */
static void hop_stretch(const temu_fm *f, const fm_flow *fl, uint64_t k0, uint64_t k1)
{
    while (k0 < k1) {
        uint64_t n = k1 - k0 > (1u << 31) ? (1u << 31) : k1 - k0;
        int64_t s = packet_time(fl, k0), last = packet_time(fl, k0 + n - 1);
        s = s > f->now ? s : f->now;
        last = last > s ? last : s;
        int64_t sp = n > 1 ? (last - s) / (int64_t)(n - 1) : 0;
        for (int32_t e = 0; e < fl->nel; e++) {
            hop_tell(f, fl, e, (uint32_t)n, s, sp);
        }
        k0 += n;
    }
}

void fm_flow_report(temu_fm *f, int32_t id, int64_t t, int final)
{
    fm_flow *fl = &f->fl[id];
    uint64_t k1 = final ? fl->count : started_by(fl, t);
    if (k1 <= fl->rep) {
        return;
    }
    uint64_t n = k1 - fl->rep;
    for (int32_t e = 0; e < fl->nel; e++) {
        fm_chan *c = &f->ch[fl->el[e].chan];
        c->packets += n;
        c->bytes += n * fl->bytes;
    }
    if (f->hop != NULL) {
        hop_stretch(f, fl, fl->rep, k1);
    }
    fl->rep = k1;
}

/* Report every active flow's packets starting by t (hop function only). */
static void report_due(temu_fm *f, int64_t t)
{
    int64_t key;
    int32_t id;
    if (f->hop == NULL) {
        return;
    }
    while ((id = fm_heap_top(&f->due, &key)) >= 0 && key <= t) {
        fm_flow *fl = &f->fl[id];
        fm_flow_report(f, id, t, 0);
        if (fl->rep < fl->count) {
            int64_t next = packet_time(fl, fl->rep);
            fm_heap_set(&f->due, f->fl, id, next > t ? next : t + 1);
        } else {
            fm_heap_remove(&f->due, f->fl, id);
        }
    }
}

int fm_flow_rescheduled(temu_fm *f, int32_t id)
{
    fm_flow *fl = &f->fl[id];
    double left = (double)fl->count - fl->p;
    fl->end = INT64_MAX;
    if (fl->x > 0) {
        double d = left > 0 ? left / fl->x : 0;
        fl->end = d < 9.0e18 - (double)fl->tp ? fl->tp + (int64_t)llround(d) : INT64_MAX;
    }
    fm_heap_set(&f->ev, f->fl, id, fl->end);
    if (fl->rep < fl->count) {
        fm_heap_set(&f->due, f->fl, id, packet_time(fl, fl->rep));
    } else {
        fm_heap_remove(&f->due, f->fl, id);
    }
    return 0;
}

/* ------------------------------------------------------------ channels */

static int seed(temu_fm *f, int32_t chan)
{
    if (f->nseeds == f->capseeds) {
        int32_t cap = fm_room(f->nseeds + 1, f->capseeds);
        if (fm_resize((void **)&f->seeds, cap, sizeof *f->seeds) != 0) {
            return -1;
        }
        f->capseeds = cap;
    }
    f->seeds[f->nseeds++] = chan;
    return 0;
}

/* Flow id joins its channels (and they are seeds of the next solve). */
static int flow_join(temu_fm *f, int32_t id)
{
    fm_flow *fl = &f->fl[id];
    for (int32_t e = 0; e < fl->nel; e++) {
        fm_chan *c = &f->ch[fl->el[e].chan];
        if (c->nusers == c->capusers) {
            int32_t cap = fm_room(c->nusers + 1, c->capusers);
            if (fm_resize((void **)&c->users, cap, sizeof *c->users) != 0) {
                return -1;
            }
            c->capusers = cap;
        }
        fl->el[e].pos = c->nusers;
        c->uver++;
        c->users[c->nusers++] = (fm_user){
            .flow = id,
            .elem = e,
            .mark = fl->mark,
            .prev = e > 0 ? fl->el[e - 1].chan : -1,
            .next = e + 1 < fl->nel ? fl->el[e + 1].chan : -1,
            .bytes = fl->bytes,
            .here = fl->limit == e && !fl->limit_buf,
            .ahead = fl->limit > e || (fl->limit_buf && fl->limit == e),
            .vc = fl->el[e].vc,
            .key = fl->el[e].key,
            .cls = (uint8_t)fl->cls,
            .adaptive = fl->adaptive,
            .x = fl->x,
            .coef = fl->el[e].coef,
            .ncoef = e + 1 < fl->nel ? fl->el[e + 1].coef : 0,
            .hold = fl->el[e].hold,
        };
        if (seed(f, fl->el[e].chan) != 0) {
            return -1;
        }
    }
    return 0;
}

/* Flow id leaves its channels. */
static int flow_leave(temu_fm *f, int32_t id)
{
    fm_flow *fl = &f->fl[id];
    for (int32_t e = 0; e < fl->nel; e++) {
        fm_chan *c = &f->ch[fl->el[e].chan];
        int32_t pos = fl->el[e].pos;
        fm_user last = c->users[--c->nusers];
        c->users[pos] = last;
        c->uver++;
        f->fl[last.flow].el[last.elem].pos = pos;
        fl->el[e].pos = -1;
        if (seed(f, fl->el[e].chan) != 0) {
            return -1;
        }
    }
    return 0;
}

/* ------------------------------------------------------------ events */

/* Flow id goes onto its channels now (its rate is solved next). */
static int flow_start(temu_fm *f, int32_t id)
{
    fm_flow *fl = &f->fl[id];
    fl->state = FM_ACTIVE;
    f->nbuffered += fl->buffered;
    fl->tp = f->now;
    fl->p = 0;
    fl->x = 0;
    return flow_join(f, id);
}

/* The node's source queue, as the packet model's (emu/packet/packet.h,
 * tm_source_queue: one FIFO per node, whose head leaves for the injection
 * channel once the input buffer at its end has room for it): a node's
 * uncapped flows are kept in the order sent (qhead .. qtail, the flows on
 * their channels first, FM_ACTIVE, then those waiting, FM_QUEUED).  A
 * waiting flow goes onto its channels when none is ahead, or when the
 * flows ahead are held back further on (the injection channel has time to
 * spare: their packets have left the queue and wait in the buffers
 * downstream, as a Gemini message's packets spread over the tiles).  A
 * capped flow (a steady stream of a job's phase, max_gbs) stands for
 * messages interleaved with the node's others: it bypasses the queue. */

/* Node src's queue is looked at again after the next solve (its flows
 * ahead get their shares then). */
static int source_revisit(temu_fm *f, int64_t src)
{
    if (f->revisiting[src]) {
        return 0;
    }
    if (f->nrevisit == f->caprevisit) {
        int32_t cap = fm_room(f->nrevisit + 1, f->caprevisit);
        if (fm_resize((void **)&f->revisit, cap, sizeof *f->revisit) != 0) {
            return -1;
        }
        f->caprevisit = cap;
    }
    f->revisiting[src] = 1;
    f->revisit[f->nrevisit++] = (int32_t)src;
    return 0;
}

/* Start node src's waiting flows that may go now: the first always; the
 * next while the injection channel has time to spare (the flows ahead are
 * held back further on: their packets have left the queue for the
 * buffers downstream).  The spare time is the last solve's: a flow ahead
 * slowed later keeps the next waiting until the node's next change. */
static int source_admit(temu_fm *f, int64_t src)
{
    const fm_chan *inj = &f->ch[fm_inject_chan(f, src)];
    int spare = inj->u < inj->cap - 1e-9, unsolved = 0;
    int32_t q = f->qhead[src];
    while (q >= 0 && f->fl[q].state == FM_ACTIVE) {
        unsolved |= !(f->fl[q].x > 0); /* its share not known yet */
        q = f->fl[q].qnext;
    }
    spare = spare && !unsolved;
    for (; q >= 0 && (q == f->qhead[src] || spare); q = f->fl[q].qnext) {
        spare = 0; /* the flow started takes the spare time: solved next */
        unsolved = 1;
        if (flow_start(f, q) != 0) {
            return -1;
        }
    }
    return q >= 0 && unsolved ? source_revisit(f, src) : 0;
}

/* Flow id (uncapped) joins the end of its node's queue; those that may go
 * start. */
static int source_join(temu_fm *f, int32_t id)
{
    fm_flow *fl = &f->fl[id];
    int64_t src = fl->src;
    fl->qnext = -1;
    fl->state = FM_QUEUED;
    if (f->qhead[src] < 0) {
        f->qhead[src] = id;
    } else {
        f->fl[f->qtail[src]].qnext = id;
    }
    f->qtail[src] = id;
    return source_admit(f, fl->src);
}

/* Flow id (uncapped) has left its channels: out of its node's queue, and
 * those that may go now start. */
static int source_leave(temu_fm *f, int32_t id)
{
    fm_flow *fl = &f->fl[id];
    int64_t src = fl->src;
    int32_t prev = -1, q = f->qhead[src];
    while (q >= 0 && q != id) {
        prev = q;
        q = f->fl[q].qnext;
    }
    if (q < 0) {
        return 0;
    }
    if (prev < 0) {
        f->qhead[src] = fl->qnext;
    } else {
        f->fl[prev].qnext = fl->qnext;
    }
    if (f->qtail[src] == id) {
        f->qtail[src] = prev;
    }
    return source_admit(f, src);
}

double fm_flow_queued_bytes(const temu_fm *f, int32_t id, double enough)
{
    const fm_flow *fl = &f->fl[id];
    double sum = 0;
    for (int32_t q = fl->bound > 0 ? -1 : fl->qnext; q >= 0 && sum <= enough; q = f->fl[q].qnext) {
        const fm_flow *b = &f->fl[q];
        if (b->dst != fl->dst || b->cls != fl->cls || b->lane_key != fl->lane_key) {
            break; /* another route: a gap in the stream through fl's buffers */
        }
        /* those on their channels already count themselves */
        sum += b->state == FM_QUEUED ? (double)b->count * b->bytes : 0;
    }
    return sum;
}

static int on_create(temu_fm *f, int32_t id)
{
    fm_flow *fl = &f->fl[id];
    fm_heap_remove(&f->ev, f->fl, id); /* back when its rate is known */
    fl->qnext = -1;
    return fl->bound > 0 ? flow_start(f, id) : source_join(f, id);
}

static int on_drained(temu_fm *f, int32_t id)
{
    fm_flow *fl = &f->fl[id];
    fm_flow_advance(f, id, f->now);
    fl->p = (double)fl->count;
    fm_flow_report(f, id, f->now, 1);
    fm_heap_remove(&f->due, f->fl, id);
    fl->state = FM_DRAINED;
    f->nbuffered -= fl->buffered;
    fm_heap_set(&f->ev, f->fl, id, f->now + fl->lat);
    if (flow_leave(f, id) != 0) {
        return -1;
    }
    return fl->bound > 0 ? 0 : source_leave(f, id);
}

static void flow_free(temu_fm *f, int32_t id)
{
    fm_flow *fl = &f->fl[id];
    free(fl->el);
    fl->el = NULL;
    fl->state = FM_FREE;
    fl->next_free = f->freefl;
    f->freefl = id;
}

/* The last packet of flow id arrived: the driver is told (a copy of what
 * it needs first: a callback may send, and a send may move the flows). */
static void on_delivered(temu_fm *f, int32_t id)
{
    const fm_flow fl = f->fl[id];
    fm_heap_remove(&f->ev, f->fl, id);
    flow_free(f, id);
    f->pending--;
    if (f->deliver != NULL) {
        int64_t prev = fl.first;
        for (uint64_t i = 0; i < fl.count; i++) {
            /* evenly spaced at the final rate, ending now (fm.h) */
            double back = fl.x > 0 ? (double)(fl.count - 1 - i) / fl.x : 0;
            int64_t t = f->now - (int64_t)llround(back);
            t = t > prev ? t : prev;
            t = t < f->now ? t : f->now;
            prev = t;
            f->deliver(f->deliver_ctx, fl.tag, fl.created, t);
        }
    }
    if (f->done != NULL) {
        f->done(f->done_ctx, fl.tag, fl.count, fl.created, f->now);
    }
}

/* After a solve: the queues that waited for it admit what may go now;
 * 1 if a flow started (another solve is due). */
static int sources_revisit(temu_fm *f)
{
    int32_t n = f->nrevisit;
    f->nrevisit = 0;
    for (int32_t i = 0; i < n; i++) {
        f->revisiting[f->revisit[i]] = 0;
    }
    for (int32_t i = 0; i < n; i++) {
        if (source_admit(f, f->revisit[i]) != 0) {
            return -1;
        }
    }
    return f->nseeds > 0;
}

/* Every event at time t, then one solve of what they changed, and one
 * more where source queues admit flows after it (at most one flow per
 * queue and time: a queue admits one by one, as its flows get shares);
 * the stall rates and events once, from the last solve's rates.
 *
 * With a solve window W (c.flow_window_ps > 0), an instant that changes
 * the flows less than W after the last solve leaves its solve to the
 * window's end (solve_at), where it is made for every change since, as
 * if they had all happened then: meanwhile the flows under way keep their
 * rates (those whose flows left keep them too: the rates stay feasible,
 * as a flow leaving frees bandwidth), a flow that went onto its channels
 * waits at rate 0 (its source queue holds the next flows, as it does for
 * any unsolved flow), and the channels keep their stall rates.  Every
 * event still happens at its own time (a flow ends when its progress at
 * the rates in force says), and the first change after a quiet window is
 * solved at once, so that events further apart than W are solved
 * exactly.  The volume counts do not change: they count packets, not
 * rates.  The idea of trading the solve's exactness for fewer solves is
 * SimGrid's (Casanova, Giersch, Legrand, Quinson, Suter, "Versatile,
 * scalable, and accurate simulation of distributed applications and
 * platforms", JPDC 2014: its surf/precision and maxmin/precision
 * settings); the window here is this model's own rule. */
static int step(temu_fm *f, int64_t t)
{
    int64_t key;
    int32_t id;
    int32_t before = f->nseeds + f->nrevisit; /* changes waiting from earlier instants */
    if (t == f->solve_at) {
        f->solve_at = INT64_MAX; /* made below (the changes are still seeds) */
    }
    while ((id = fm_heap_top(&f->ev, &key)) >= 0 && key == t) {
        int rc = 0;
        switch (f->fl[id].state) {
        case FM_WAITING:
            rc = on_create(f, id);
            break;
        case FM_ACTIVE:
            rc = on_drained(f, id);
            break;
        default:
            on_delivered(f, id);
            break;
        }
        if (rc != 0) {
            return -1;
        }
    }
    if (f->c.flow_window_ps > 0 && (f->nseeds > 0 || f->nrevisit > 0)) {
        if (t < f->solve_ok) {
            f->tot.deferred += f->nseeds + f->nrevisit > before; /* this instant's own */
            f->solve_at = f->solve_ok;
            return 0;
        }
        /* (short of INT64_MAX, which says no solve waits) */
        f->solve_ok =
            t < INT64_MAX - 1 - f->c.flow_window_ps ? t + f->c.flow_window_ps : INT64_MAX - 1;
    }
    int rc = f->nseeds > 0 ? fm_solve_changed(f) : 0;
    if (rc == 0 && (rc = sources_revisit(f)) == 1) {
        rc = fm_solve_changed(f);
    }
    return rc == 0 ? fm_solve_finish(f) : rc;
}

int64_t temu_fm_run(temu_fm *f, int64_t until_ps)
{
    int64_t t;
    while (!f->oom && (fm_heap_top(&f->ev, &t) >= 0 || f->solve_at < INT64_MAX) &&
           (t = temu_fm_next_event(f)) <= until_ps) {
        report_due(f, t);
        f->now = t;
        if (step(f, t) != 0) {
            f->oom = 1;
        }
    }
    if (until_ps != INT64_MAX && until_ps > f->now) {
        report_due(f, until_ps);
        f->now = until_ps;
    }
    return f->now;
}

/* ------------------------------------------------------------ sends */

static temu_status check_send(const temu_fm *f, int64_t when_ps, int64_t src, int64_t dst,
                              uint32_t bytes, uint64_t count, uint32_t cls, double max_gbs,
                              temu_error *err)
{
    if (f->oom) {
        return temu_fail(err, TEMU_ENOMEM,
                         "flow model: out of memory during the run; results incomplete");
    }
    if (src < 0 || src >= f->m.nnodes || dst < 0 || dst >= f->m.nnodes) {
        return temu_fail(err, TEMU_ERANGE, "flow model: node %lld or %lld outside 0..%lld",
                         (long long)src, (long long)dst, (long long)f->m.nnodes - 1);
    }
    if (bytes == 0 || bytes > f->c.max_packet) {
        return temu_fail(err, TEMU_EINVAL, "flow model: packet of %u bytes outside 1..%u", bytes,
                         f->c.max_packet);
    }
    if (count == 0 || count > (1ull << 52)) {
        return temu_fail(err, TEMU_EINVAL, "flow model: a flow of %llu packets (1..2^52)",
                         (unsigned long long)count);
    }
    if (cls >= f->c.classes) {
        return temu_fail(err, TEMU_EINVAL, "flow model: class %u, the model has %u", cls,
                         f->c.classes);
    }
    if (!(max_gbs >= 0) || !isfinite(max_gbs)) {
        return temu_fail(err, TEMU_EINVAL, "flow model: rate cap %g GB/s (0: none, else > 0)",
                         max_gbs);
    }
    if (when_ps < f->now) {
        return temu_fail(err, TEMU_EINVAL,
                         "flow model: flow created at %lld ps, before now (%lld ps)",
                         (long long)when_ps, (long long)f->now);
    }
    return TEMU_OK;
}

/* A free flow slot (the flows and heaps grown when full); -1: no memory. */
static int32_t flow_slot(temu_fm *f)
{
    if (f->freefl >= 0) {
        int32_t id = f->freefl;
        f->freefl = f->fl[id].next_free;
        return id;
    }
    if (f->nfl == f->capfl) {
        int32_t cap = fm_room(f->nfl + 1, f->capfl);
        if (fm_resize((void **)&f->fl, cap, sizeof *f->fl) != 0 ||
            fm_heap_resize(&f->ev, cap, f->capfl) != 0 ||
            fm_heap_resize(&f->due, cap, f->capfl) != 0) {
            return -1;
        }
        f->capfl = cap;
    }
    return f->nfl++;
}

temu_status temu_fm_send(temu_fm *f, int64_t when_ps, int64_t src, int64_t dst, uint32_t bytes,
                         uint64_t count, uint32_t cls, uint32_t lane_key, double max_gbs,
                         uint64_t tag, temu_error *err)
{
    temu_status st = check_send(f, when_ps, src, dst, bytes, count, cls, max_gbs, err);
    if (st != TEMU_OK) {
        return st;
    }
    int32_t id = flow_slot(f);
    if (id < 0) {
        return temu_fail(err, TEMU_ENOMEM, "flow model: out of memory for flows");
    }
    fm_flow *fl = &f->fl[id];
    memset(fl, 0, sizeof *fl);
    fl->created = fl->tp = when_ps;
    fl->count = count;
    fl->seq = f->seq++;
    fl->tag = tag;
    fl->src = src;
    fl->dst = dst;
    fl->bytes = bytes;
    fl->cls = cls;
    fl->lane_key = lane_key;
    fl->limit = -1;
    fl->bound = max_gbs > 0 ? max_gbs / 1000.0 / bytes : 0; /* bytes/ps -> packets/ps */
    fl->adaptive = f->c.routing == TEMU_TM_ADAPTIVE && (f->c.dynamic_vcs >> cls & 1u);
    /* with inject_vcs a node's sends take its class's two VCs of the
     * injection port by their first packet's serial (emu/packet/routing.h,
     * tm_route_start): a flow is one send, all its packets on one VC */
    fl->inject_vc =
        (uint8_t)(f->c.inject_vcs && f->vcs_per_class == 2 && !fl->adaptive ? f->sent[src] & 1u
                                                                            : 0);
    f->sent[src] += count;
    fl->state = FM_WAITING;
    if (fm_route_build(f, fl) != 0) {
        flow_free(f, id);
        return temu_fail(err, TEMU_ENOMEM, "flow model: out of memory for a route");
    }
    fm_heap_set(&f->ev, f->fl, id, when_ps);
    f->pending++;
    f->tot.flows++;
    return TEMU_OK;
}

/* ------------------------------------------------------------ creation */

static temu_status check_config(const temu_machine *m, const temu_tm_config *c, temu_error *err)
{
    if (temu_machine_family(m) == NULL) {
        return temu_fail(err, TEMU_EINVAL, "flow model: unknown system %d", m->system);
    }
    if (c->router_ps < 0 || c->wire_ps < 0 || c->node_wire_ps < 0 || c->credit_ps < 0) {
        return temu_fail(err, TEMU_EINVAL, "flow model: negative latency");
    }
    if (c->classes < 1 || c->classes > TEMU_TM_MAX_CLASSES) {
        return temu_fail(err, TEMU_EINVAL, "flow model: classes must be 1..%d, not %u",
                         TEMU_TM_MAX_CLASSES, c->classes);
    }
    if (c->max_packet == 0 || c->max_packet > 65536 || c->buffer_bytes < c->max_packet) {
        return temu_fail(err, TEMU_EINVAL,
                         "flow model: max_packet %u outside 1..65536 or above buffer_bytes %u",
                         c->max_packet, c->buffer_bytes);
    }
    if (!(c->node_gbs > 0) || c->link_gbs < 0 || !isfinite(c->link_gbs) || !isfinite(c->node_gbs)) {
        return temu_fail(err, TEMU_EINVAL, "flow model: bandwidths must be positive GB/s");
    }
    if (c->flow_window_ps < 0) {
        return temu_fail(err, TEMU_EINVAL, "flow model: negative solve window (%lld ps)",
                         (long long)c->flow_window_ps);
    }
    return TEMU_OK;
}

/* Channels' rates, neighbours and coordinates; 0 or -1 (no memory). */
static int fill_machine(temu_fm *f)
{
    const temu_machine *m = &f->m;
    f->ch = calloc((size_t)f->nchan, sizeof *f->ch);
    f->nbr = malloc((size_t)(m->nrouters * f->tlinks) * sizeof *f->nbr);
    f->coord = malloc((size_t)(m->nrouters * m->ndims) * sizeof *f->coord);
    f->chcls = calloc((size_t)f->nchan * f->c.classes * FM_CLS_N, sizeof *f->chcls);
    if (!f->ch || !f->nbr || !f->coord || !f->chcls) {
        return -1;
    }
    for (int64_t r = 0; r < m->nrouters; r++) {
        temu_router_coords(m, r, &f->coord[r * m->ndims]);
        for (int l = 0; l < f->tlinks; l++) {
            f->nbr[r * f->tlinks + l] = (int32_t)temu_link_neighbor(m, r, l);
            double gbs = temu_tm_link_lane_gbs(m, &f->c, r, l);
            for (int k = 0; k < f->lanes[l] && f->nbr[r * f->tlinks + l] >= 0; k++) {
                f->ch[fm_chan_id(f, r, l, k)].ps_per_byte = 1000.0 / gbs;
            }
        }
    }
    for (int64_t n = 0; n < m->nnodes; n++) {
        f->ch[fm_inject_chan(f, n)].ps_per_byte = 1000.0 / f->c.node_gbs;
        f->ch[fm_eject_chan(f, n)].ps_per_byte = 1000.0 / f->c.node_gbs;
    }
    for (int64_t i = 0; i < f->nchan; i++) {
        f->ch[i].cap = 1.0;
        f->ch[i].ncls = (int32_t)f->c.classes;
        f->ch[i].cls = &f->chcls[(size_t)i * f->c.classes * FM_CLS_N];
    }
    return 0;
}

temu_status temu_fm_create(const temu_machine *m, const temu_tm_config *c, temu_fm **out,
                           temu_error *err)
{
    temu_status st = check_config(m, c, err);
    temu_fm *f;
    *out = NULL;
    if (st != TEMU_OK) {
        return st;
    }
    f = calloc(1, sizeof *f);
    if (!f) {
        return temu_fail(err, TEMU_ENOMEM, "flow model: out of memory");
    }
    f->m = *m;
    f->c = *c;
    f->par = &fm_params_default;
    f->tlinks = 2 * m->ndims;
    /* the packet model's VCs: two per class (dateline) with credits or
     * trains, else one (tokens and the bubble rule) */
    f->vcs_per_class = c->flow == TEMU_TM_CREDIT || c->train_packets > 1 ? 2 : 1;
    f->nkeys = (int)c->classes * f->vcs_per_class;
    f->maxlanes = temu_machine_family(m)->info.max_lanes;
    for (int l = 0; l < f->tlinks; l++) {
        f->lanes[l] = temu_link_lanes(m, l);
    }
    f->ntorus = m->nrouters * f->tlinks * f->maxlanes;
    f->nchan = f->ntorus + 2 * m->nnodes;
    f->freefl = -1;
    f->solve_at = INT64_MAX;
    f->qhead = malloc((size_t)m->nnodes * sizeof *f->qhead);
    f->qtail = malloc((size_t)m->nnodes * sizeof *f->qtail);
    f->sent = calloc((size_t)m->nnodes, sizeof *f->sent);
    f->revisiting = calloc((size_t)m->nnodes, sizeof *f->revisiting);
    for (int64_t n = 0; f->qhead && f->qtail && n < m->nnodes; n++) {
        f->qhead[n] = f->qtail[n] = -1;
    }
    if (!f->qhead || !f->qtail || !f->sent || !f->revisiting || fill_machine(f) != 0) {
        temu_fm_destroy(f);
        return temu_fail(err, TEMU_ENOMEM, "flow model: out of memory for %lld channels",
                         (long long)(m->nrouters * 2 * m->ndims));
    }
    *out = f;
    return TEMU_OK;
}

void temu_fm_destroy(temu_fm *f)
{
    if (!f) {
        return;
    }
    for (int32_t i = 0; i < f->nfl; i++) {
        free(f->fl[i].el);
    }
    for (int64_t i = 0; f->ch && i < f->nchan; i++) {
        free(f->ch[i].users);
    }
    free(f->fl);
    free(f->ch);
    free(f->chcls);
    free(f->nbr);
    free(f->coord);
    free(f->qhead);
    free(f->qtail);
    free(f->sent);
    free(f->revisit);
    free(f->revisiting);
    fm_heap_free(&f->ev);
    fm_heap_free(&f->due);
    free(f->cflows);
    free(f->cchans);
    free(f->pstart);
    free(f->pchan);
    free(f->pcap);
    free(f->pw);
    free(f->pbound);
    free(f->pcoef);
    free(f->rrate);
    free(f->rlimit);
    free(f->rfull);
    free(f->pfix);
    free(f->punew);
    free(f->pccap);
    free(f->pold);
    free(f->plevel);
    free(f->pmax);
    free(f->pturn);
    free(f->aff);
    free(f->resched);
    free(f->nexts);
    free(f->seeds);
    fm_mm_work_free(&f->mm);
    free(f);
}

/* ------------------------------------------------------------ accessors */

void temu_fm_set_delivery(temu_fm *f, temu_tm_delivery_fn fn, void *ctx)
{
    f->deliver = fn;
    f->deliver_ctx = ctx;
}

void temu_fm_set_done(temu_fm *f, temu_fm_done_fn fn, void *ctx)
{
    f->done = fn;
    f->done_ctx = ctx;
}

void temu_fm_set_hop(temu_fm *f, temu_tm_hop_fn fn, void *ctx)
{
    f->hop = fn;
    f->hop_ctx = ctx;
}

int64_t temu_fm_now(const temu_fm *f)
{
    return f->now;
}

int64_t temu_fm_next_event(const temu_fm *f)
{
    int64_t t;
    fm_heap_top(&f->ev, &t);
    return t < f->solve_at ? t : f->solve_at; /* a solve waiting for its window is an event */
}

uint64_t temu_fm_pending(const temu_fm *f)
{
    return f->pending;
}

void temu_fm_totals_get(const temu_fm *f, temu_fm_totals *out)
{
    *out = f->tot;
}

/* ps of a rate integrated up to now. */
static int64_t integral(double acc, double rate, int64_t since, int64_t now)
{
    double v = acc + rate * (double)(now > since ? now - since : 0);
    return (int64_t)llround(v);
}

temu_status temu_fm_lane_stats_get(const temu_fm *f, int64_t router, int link, int lane,
                                   temu_tm_lane_stats *out, temu_error *err)
{
    if (router < 0 || router >= f->m.nrouters || link < 0 || link >= f->tlinks ||
        f->nbr[router * f->tlinks + link] < 0 || lane < 0 || lane >= f->lanes[link]) {
        return temu_fail(err, TEMU_ERANGE, "flow model: no lane %d on link %d of router %lld", lane,
                         link, (long long)router);
    }
    const fm_chan *c = &f->ch[fm_chan_id(f, router, link, lane)];
    memset(out, 0, sizeof *out);
    out->packets = c->packets;
    out->bytes = c->bytes;
    /* packets started since their flow was last counted */
    for (int32_t i = 0; i < c->nusers; i++) {
        const fm_flow *fl = &f->fl[c->users[i].flow];
        uint64_t k = started_by(fl, f->now);
        uint64_t n = k > fl->rep ? k - fl->rep : 0;
        out->packets += n;
        out->bytes += n * fl->bytes;
    }
    out->busy_ps = integral(c->busy, c->u, c->since, f->now);
    out->inq_stall_ps = integral(c->inq, c->r_inq, c->since, f->now);
    out->credit_stall_ps = integral(c->credit, c->r_credit, c->since, f->now);
    out->no_dynamic_ps = integral(c->nodyn, c->r_nodyn, c->since, f->now);
    return TEMU_OK;
}

temu_status temu_fm_lane_class_stalls_get(const temu_fm *f, int64_t router, int link, int lane,
                                          uint32_t cls, int64_t *credit_ps, int64_t *inq_ps,
                                          temu_error *err)
{
    *credit_ps = *inq_ps = 0;
    if (router < 0 || router >= f->m.nrouters || link < 0 || link >= f->tlinks ||
        f->nbr[router * f->tlinks + link] < 0 || lane < 0 || lane >= f->lanes[link] ||
        cls >= f->c.classes) {
        return temu_fail(err, TEMU_ERANGE,
                         "flow model: no lane %d on link %d of router %lld, or no class %u "
                         "(the model has %u)",
                         lane, link, (long long)router, cls, f->c.classes);
    }
    const fm_chan *c = &f->ch[fm_chan_id(f, router, link, lane)];
    const double *k = &c->cls[cls * FM_CLS_N];
    *credit_ps = integral(k[FM_CLS_CREDIT], k[FM_CLS_RCREDIT], c->since, f->now);
    *inq_ps = integral(k[FM_CLS_INQ], k[FM_CLS_RINQ], c->since, f->now);
    return TEMU_OK;
}
