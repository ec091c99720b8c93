/*
 * routing.h - routing functions of the packet model: which channel and VC a
 * train takes next, router by router (no stored path).  Static inline:
 * every hop asks (the VC choice of an adaptive train is routing.c's).
 * Private to the packet model.
 *
 * Deterministic: the machine's dimension order (temu_route's path,
 * emu/route.c), the lane lane_key mod the link's lanes; with two VCs
 * per class (credits, or trains) a dimension whose hops use the wrap link
 * travels on the class's second VC for all its hops, the others on the
 * first (BookSim's dim_order_torus rule, deadlock-free on every ring).
 *
 * Adaptive (Blue Gene dynamic VCs, single packets only: trains' dateline
 * VCs would replace the bubble rule the escape VC relies on): a packet's
 * channels after the injection are chosen router by router.  When it
 * becomes ready it waits for every productive channel at once, tried in
 * the order of the dynamic tokens they have free (most first, then the
 * deterministic order); the first that can take it on a dynamic VC, or
 * the deterministic one on the escape VC with the bubble rule, does
 * (tm_route_choose_vc).
 */
#ifndef TEMU_PACKET_ROUTING_H
#define TEMU_PACKET_ROUTING_H

#include "packet.h"

#pragma GCC visibility push(hidden)

/* The VC adaptive train tr (still choosing) would take on channel c now,
 * or -1; then *lack gains the VCs whose tokens were too few for one packet
 * and NO_DYNAMIC.  *bubble: the extra room the bubble rule asks for
 * (routing.c). */
int tm_route_choose_vc(const temu_tm *t, const tm_train *tr, int64_t c, uint32_t *lack,
                       int64_t *bubble);

/* The deterministic route from coordinate `from` to `to` along dimension
 * d, as one code: its hops (temu_route_dim_steps: shortest, ties +) in the
 * low bits, TM_STEP_MINUS if they go the minus way, TM_STEP_WRAPS if they
 * cross the wrap link (the dateline: the class's second VC). */
#define TM_STEP_HOPS 0x3fffu
#define TM_STEP_MINUS 0x4000u
#define TM_STEP_WRAPS 0x8000u
#define TM_STEP_TABLE_MAX 64 /* longest dimension tabulated (64^2 codes) */

static inline uint32_t tm_route_step_code(const temu_machine *m, int d, int32_t from, int32_t to)
{
    int dir;
    uint32_t hops = (uint32_t)temu_route_dim_steps(m, d, from, to, &dir);
    int wraps = dir > 0 ? to < from : to > from;
    return hops | (dir < 0 ? TM_STEP_MINUS : 0u) | (wraps ? TM_STEP_WRAPS : 0u);
}

/* tm_route_step_code from the model's table (model.c fills it), computed
 * only for machines with a dimension too long to tabulate.  Why: every
 * dimension a train enters asked temu_route_dim_steps (two divisions and
 * a call into route.c), about 4 % of BG/Q's instructions per packet-hop. */
static inline uint32_t tm_route_step(const temu_tm *t, int d, int32_t from, int32_t to)
{
    if (t->dim_step != NULL) {
        return t->dim_step[t->step_off[d] + (int64_t)from * t->m.size[d] + to];
    }
    return tm_route_step_code(&t->m, d, from, to);
}

/* A new train of class cls from node src, whose first packet is the
 * node's serial-th: its first channel is the injection channel, on the
 * class's first VC, or with inject_vcs on its two VCs in turn (BookSim's
 * source takes the VC after the one it used last: trafficmanager.cpp,
 * _Step, _last_vc; so a VC's turnaround overlaps the other's packet); the
 * class is routed adaptively if the machine's routing makes it a dynamic
 * VC. */
static inline void tm_route_start(const temu_tm *t, tm_train *tr, int64_t src, uint32_t cls,
                                  uint32_t serial)
{
    tr->cur = t->node_router[src];
    tr->cls = (uint8_t)cls;
    tr->chan = (int32_t)tm_inject_chan(t, src);
    tr->adaptive = t->c.routing == TEMU_TM_ADAPTIVE && (t->c.dynamic_vcs >> cls & 1u);
    tr->vc = (uint8_t)(cls * (uint32_t)t->per +
                       (t->c.inject_vcs && t->per == 2 && !tr->adaptive ? serial & 1u : 0));
    tr->esc_dim = -1;
}

static inline int32_t tm_route_lane_chan(const temu_tm *t, const tm_train *tr)
{
    return (int32_t)tm_chan_id(t, tr->cur, tr->link,
                               (int)(tr->lane_key % (uint32_t)t->lanes[tr->link]));
}

/* The train is at router tr->cur with no hop left in its dimension: its
 * next channel is the first hop of the next dimension of the deterministic
 * route (temu_route_dim_steps), or the ejection channel. */
static inline void tm_route_next_dimension(temu_tm *t, tm_train *tr)
{
    const temu_machine *m = &t->m;
    const int32_t *cs = &t->coord[(int64_t)tr->cur * m->ndims];
    const int32_t *cd = &t->coord[(int64_t)tr->dst_router * m->ndims];
    while (tr->di < m->ndims) {
        int d = m->dim_order[tr->di++];
        uint32_t code = tm_route_step(t, d, cs[d], cd[d]);
        if ((code & TM_STEP_HOPS) == 0) {
            continue;
        }
        int wraps = (code & TM_STEP_WRAPS) != 0;
        tr->link = (uint8_t)(code & TM_STEP_MINUS ? TEMU_LINK_MINUS(d) : TEMU_LINK_PLUS(d));
        tr->left = (uint16_t)((code & TM_STEP_HOPS) - 1);
        tr->vc = (uint8_t)(tr->cls * (uint32_t)t->per + (uint32_t)(t->per == 2 && wraps));
        tr->enter = 1;
        tr->chan = tm_route_lane_chan(t, tr);
        return;
    }
    tr->chan = (int32_t)tm_eject_chan(t, tr->dst_node);
    tr->vc = 0;
    tr->enter = 0;
}

/* Adaptive train at router tr->cur: its productive channels, one per
 * dimension it still has to travel, in the direction the deterministic
 * route takes there (temu_route_dim_steps: shortest, ties +), so every
 * choice keeps the path minimal; in the machine's dimension order, so
 * cand[0] is the deterministic route's next channel, the escape direction.
 * None left: the ejection channel is next. */
static inline void tm_route_candidates(temu_tm *t, tm_train *tr)
{
    const temu_machine *m = &t->m;
    const int32_t *cs = &t->coord[(int64_t)tr->cur * m->ndims];
    const int32_t *cd = &t->coord[(int64_t)tr->dst_router * m->ndims];
    tr->ncand = 0;
    for (int i = 0; i < m->ndims; i++) {
        int d = m->dim_order[i];
        uint32_t code = tm_route_step(t, d, cs[d], cd[d]);
        if ((code & TM_STEP_HOPS) != 0) {
            int link = code & TM_STEP_MINUS ? TEMU_LINK_MINUS(d) : TEMU_LINK_PLUS(d);
            tr->cand[tr->ncand++] = (int32_t)tm_chan_id(t, tr->cur, link, 0);
        }
    }
    tr->open = tr->ncand > 0;
    tr->chan = tr->open ? tr->cand[0] : (int32_t)tm_eject_chan(t, tr->dst_node);
    tr->vc = tr->open ? tr->vc : 0;
    tr->enter = 0;
}

/* The train crossed channel tr->chan (injection or torus): on to the next. */
static inline void tm_route_advance(temu_tm *t, tm_train *tr)
{
    if (tr->adaptive) {
        tr->esc_dim = -1;
        if (tr->chan < t->ntorus) {
            tr->esc_dim = tr->vc == t->c.escape_vc ? (int8_t)(tr->link / 2) : -1;
            tr->cur = t->nbr[(int64_t)tr->cur * t->tlinks + tr->link];
        }
        tm_route_candidates(t, tr);
        return;
    }
    if (tr->chan < t->ntorus) {
        tr->cur = t->nbr[(int64_t)tr->cur * t->tlinks + tr->link];
        if (tr->left > 0) {
            tr->left--;
            tr->enter = 0;
            tr->chan = tm_route_lane_chan(t, tr);
            return;
        }
    }
    tm_route_next_dimension(t, tr);
}

/* Most dynamic tokens free on channel c's dynamic VCs. */
static inline int64_t tm_route_dynamic_room(const temu_tm *t, int64_t c)
{
    int64_t room = 0;
    for (int v = 0; v < t->nvc; v++) {
        if ((t->c.dynamic_vcs >> v & 1u) && t->q[c * t->nvc + v].credit > room) {
            room = t->q[c * t->nvc + v].credit;
        }
    }
    return room;
}

/* Route computation of a head train tr about to wait: the channels it may
 * take into cand, in the order they are tried; returns how many.  Routed
 * trains: `chan`, their next channel.  Adaptive trains still choosing:
 * every productive channel, in the order of the dynamic tokens they have
 * free (most first; ties keep the deterministic order) -- the buffer state
 * the router saw. */
static inline int tm_route_order(const temu_tm *t, const tm_train *tr, int32_t chan,
                                 int64_t cand[TEMU_MAX_DIMS])
{
    int n = 1;
    cand[0] = chan;
    if (tr->open) {
        n = tr->ncand;
        for (int i = 0; i < n; i++) {
            int64_t c = tr->cand[i], room = tm_route_dynamic_room(t, c);
            int j = i;
            for (; j > 0 && tm_route_dynamic_room(t, cand[j - 1]) < room; j--) {
                cand[j] = cand[j - 1];
            }
            cand[j] = c;
        }
    }
    return n;
}

/* Adaptive train tr leaves on channel c with VC vc: its route for this hop
 * is fixed (bubble > 0: it enters an escape ring). */
static inline void tm_route_fix(const temu_tm *t, tm_train *tr, int64_t c, int vc, int64_t bubble)
{
    tr->chan = (int32_t)c;
    tr->vc = (uint8_t)vc;
    tr->link = (uint8_t)(c / t->maxlanes % t->tlinks);
    tr->enter = bubble > 0;
    tr->open = 0;
}

#pragma GCC visibility pop

#endif
