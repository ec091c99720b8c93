/*
 * fm_route.c - a flow's channels and its pipeline latency (fm.h).
 *
 * The route is the packet model's deterministic one (emu/packet/routing.h,
 * temu_route): the machine's dimension order, all hops of a dimension
 * before the next, the shorter way round each ring with ties (distance
 * exactly k/2) in the plus direction (temu_route_dim_steps), lane
 * lane_key mod the link's lanes; a dimension whose hops cross the wrap
 * link is on the class's second (dateline) VC.  Classes the packet model
 * routes adaptively (Blue Gene dynamic VCs) take this route too
 * (doc/model.md, "Flow level").
 *
 * Latency: a lone packet's delivery in the packet model (emu/packet/
 * router.c): it starts onto the injection channel when created; at every
 * router its header waits router_ps, and it may not start onto the next
 * channel so early that its tail, still arriving, would be overtaken
 * (start_i >= arrival of its tail - ser_i); delivered when its tail has
 * crossed the ejection channel.  A flow's packets drain at the pace of
 * its slowest channel S, so `lat` = that delivery - S (a turnaround's
 * constraint lets n packets drain in n L + (n - 1) turn_ps, which keeps
 * it exact: fm_solve.c, buffer_open).
 */
#define TEMU_BUILDING_LIBRARY 1
#include "fm.h"

#include <stdlib.h>

/* Serialization of `bytes` on a channel, as the packet model rounds it
 * (temu_tm_ser_ps: ceil less a rounding guard). */
static int64_t chan_ser(const fm_chan *c, uint32_t bytes)
{
    return temu_tm_ser_ps(1000.0 / c->ps_per_byte, bytes);
}

/* Hops of the deterministic route from router rs to rd. */
static int route_length(const temu_fm *f, const int32_t *cs, const int32_t *cd)
{
    int n = 0;
    for (int d = 0; d < f->m.ndims; d++) {
        int dir;
        n += temu_route_dim_steps(&f->m, d, cs[d], cd[d], &dir);
    }
    return n;
}

/* Channel chan (wire: its flight time) joins fl's route on dateline VC
 * vc; buffer: it ends in a router's input queue (not an ejection). */
static void add_elem(temu_fm *f, fm_flow *fl, int64_t chan, uint8_t vc, int64_t wire, int buffer)
{
    fm_elem *e = &fl->el[fl->nel++];
    e->chan = (int32_t)chan;
    e->pos = -1;
    e->coef = (double)chan_ser(&f->ch[chan], fl->bytes);
    e->vc = vc;
    e->key = (uint8_t)(fl->cls * (uint32_t)f->vcs_per_class + (f->vcs_per_class == 2 ? vc : 0));
    /* a packet holds its bytes of the queue from the moment the sender
     * takes their credit until the credit is back: flight, router, its
     * read-out at the rate it came in, credit return (emu/packet/router.c) */
    e->bcoef = buffer ? (double)fl->bytes *
                            (double)(wire + f->c.router_ps + (int64_t)e->coef + f->c.credit_ps) /
                            (double)f->c.buffer_bytes
                      : 0;
    /* a buffer that holds its packets for less than their time on the
     * channel never limits them more than the channel does: left out */
    e->hold = e->bcoef;
    e->bcoef = e->bcoef > e->coef ? e->bcoef : 0;
    e->tcoef = 0;
    fl->buffered |= e->bcoef > 0;
}

/* The VC turnaround (temu_tm_config.turn_ps; the packet model's
 * become_head, emu/packet/router.c): when a packet's tail has left a
 * router's input VC, the next packet there is routed and given a VC before
 * it may leave, turn_ps later at the earliest.  Packets queued back to back
 * in one input VC therefore leave one per (read-out + turn_ps): a packet
 * of L ps passes at most L / (L + turn_ps) of the next channel, whatever
 * that channel's other load.  So every input VC at a router (the end of
 * each element but the ejection) is a constraint: its flows' packets x
 * (their read-out onto their next channel + turn_ps) per ps at most 1.
 * At the injection port with inject_vcs a node's sends take the class's
 * two VCs in turn (fl->inject_vc; emu/packet/routing.h, tm_route_start),
 * each its own constraint, so one VC's turnaround overlaps the other's
 * packets: a node's one-packet flows (BookSim's traffic) alternate and
 * never pay it there, a flow of several packets does, as in the packet
 * model.  With turn_ps = 0 (every machine) there is none. */
static void add_turnaround(const temu_fm *f, fm_flow *fl)
{
    if (f->c.turn_ps <= 0) {
        return;
    }
    for (int32_t e = 0; e + 1 < fl->nel; e++) {
        fl->el[e].tcoef = fl->el[e + 1].coef + (double)f->c.turn_ps;
    }
}

/* The torus hops, dimension by dimension (emu/packet/routing.h,
 * tm_route_next_dimension). */
static void add_links(temu_fm *f, fm_flow *fl, int64_t cur, const int32_t *cd)
{
    const temu_machine *m = &f->m;
    for (int i = 0; i < m->ndims; i++) {
        const int32_t *cs = &f->coord[cur * m->ndims];
        int d = m->dim_order[i], dir;
        int steps = temu_route_dim_steps(m, d, cs[d], cd[d], &dir);
        if (steps == 0) {
            continue;
        }
        uint8_t wraps = dir > 0 ? cd[d] < cs[d] : cd[d] > cs[d];
        int link = dir > 0 ? TEMU_LINK_PLUS(d) : TEMU_LINK_MINUS(d);
        int lane = (int)(fl->lane_key % (uint32_t)f->lanes[link]);
        for (int s = 0; s < steps; s++) {
            add_elem(f, fl, fm_chan_id(f, cur, link, lane), wraps, f->c.wire_ps, 1);
            cur = f->nbr[cur * f->tlinks + link];
        }
    }
}

/* The zero-load delivery of one packet, relative to its creation, and the
 * slowest serialization on the route. */
static int64_t zero_load(const temu_fm *f, const fm_flow *fl, int64_t *slowest)
{
    int64_t start = 0, ser = (int64_t)fl->el[0].coef, wire = f->c.node_wire_ps;
    *slowest = ser;
    for (int32_t i = 1; i < fl->nel; i++) {
        int64_t s = (int64_t)fl->el[i].coef;
        int64_t hdr = start + wire, tail = start + ser + wire;
        start = hdr + f->c.router_ps > tail - s ? hdr + f->c.router_ps : tail - s;
        ser = s;
        wire = i + 1 < fl->nel ? f->c.wire_ps : f->c.node_wire_ps;
        *slowest = s > *slowest ? s : *slowest;
    }
    return start + ser + wire;
}

int fm_route_build(temu_fm *f, fm_flow *fl)
{
    const temu_machine *m = &f->m;
    int64_t rs = temu_node_router(m, fl->src), rd = temu_node_router(m, fl->dst);
    const int32_t *cd = &f->coord[rd * m->ndims];
    int hops = route_length(f, &f->coord[rs * m->ndims], cd);
    int64_t slowest;
    fl->el = malloc((size_t)(hops + 2) * sizeof *fl->el);
    if (!fl->el) {
        return -1;
    }
    fl->nel = 0;
    add_elem(f, fl, fm_inject_chan(f, fl->src), fl->inject_vc, f->c.node_wire_ps, 1);
    add_links(f, fl, rs, cd);
    add_elem(f, fl, fm_eject_chan(f, fl->dst), 0, f->c.node_wire_ps, 0);
    add_turnaround(f, fl);
    int64_t d0 = zero_load(f, fl, &slowest);
    fl->first = fl->created + d0;
    fl->lat = d0 - slowest;
    return 0;
}
