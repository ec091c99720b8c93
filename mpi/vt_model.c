/*
 * vt_model.c - modelled arrival of one message in an empty network
 * (vt_model.h): the timing model's rules (doc/model.md, "Timing model")
 * applied packet by packet to one message's packets, which is all the
 * network holds, so no event queue is needed: each channel takes the
 * message's packets in the order they were created.  A link's lanes and
 * rate and a packet's serialization are the model's own functions
 * (temu_link_lanes, temu_tm_link_lane_gbs, temu_tm_ser_ps), not a
 * copy of them.
 */
#include "vt_model.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_LANES 8 /* Gemini's tiles per link direction; Blue Gene 1 */

static temu_status fail(temu_error *err, temu_status st, const char *what)
{
    if (err != NULL) {
        err->status = st;
        snprintf(err->message, sizeof err->message, "virtual time: %s", what);
    }
    return st;
}

/* One direction's route: per stage (0 injection, 1..h hops, h+1 ejection)
 * its rate, flight time and lanes, and the virtual channel class offset
 * (dateline) a packet takes on it. */
typedef struct path {
    int h;
    double *gbs;
    int64_t *wire;
    int *lanes;
    int *vcoff;     /* credit flow: 1 on every hop of a dimension that wraps */
    int64_t router; /* header arrival -> may leave (router_ps)             */
    /* state: channel busy until [stage][lane]; queue at the receiving end
     * of a stage's channel free for its next head [stage][lane][vc], and
     * when its last packet left it */
    int64_t *busy, *headfree, *left;
    int64_t srcfree; /* the source queue's next head */
} path;

static int path_build(path *p, const temu_machine *m, const temu_tm_config *c, int64_t src,
                      int64_t dst, temu_error *err)
{
    temu_hop hops[TEMU_MAX_HOPS];
    int h = temu_route(m, temu_node_router(m, src), temu_node_router(m, dst), hops, TEMU_MAX_HOPS);
    size_t n;
    memset(p, 0, sizeof *p);
    if (h < 0) {
        return fail(err, TEMU_EINVAL, "route too long");
    }
    p->h = h;
    p->router = c->router_ps;
    n = (size_t)h + 2;
    p->gbs = calloc(n, sizeof *p->gbs);
    p->wire = calloc(n, sizeof *p->wire);
    p->lanes = calloc(n, sizeof *p->lanes);
    p->vcoff = calloc(n, sizeof *p->vcoff);
    p->busy = calloc(n * MAX_LANES, sizeof *p->busy);
    p->headfree = calloc(n * MAX_LANES * 2 * TEMU_TM_MAX_CLASSES, sizeof *p->headfree);
    p->left = calloc(n * MAX_LANES * 2 * TEMU_TM_MAX_CLASSES, sizeof *p->left);
    if (!p->gbs || !p->wire || !p->lanes || !p->vcoff || !p->busy || !p->headfree || !p->left) {
        return fail(err, TEMU_ENOMEM, "out of memory");
    }
    p->gbs[0] = p->gbs[h + 1] = c->node_gbs;
    p->wire[0] = p->wire[h + 1] = c->node_wire_ps;
    p->lanes[0] = p->lanes[h + 1] = 1;
    for (int i = 0; i < h;) {
        /* a dimension that crosses its wrap link travels on the class's
         * second VC for all its hops (the timing model's dateline rule) */
        int dim = hops[i].link / 2, j = i, wraps = 0;
        while (j < h && hops[j].link / 2 == dim) {
            int32_t cf[TEMU_MAX_DIMS], ct[TEMU_MAX_DIMS];
            temu_router_coords(m, hops[j].from, cf);
            temu_router_coords(m, hops[j].to, ct);
            wraps |= (hops[j].link & 1) ? ct[dim] < cf[dim] : ct[dim] > cf[dim];
            j++;
        }
        for (int k = i; k < j; k++) {
            p->gbs[k + 1] = temu_tm_link_lane_gbs(m, c, hops[k].from, hops[k].link);
            p->wire[k + 1] = c->wire_ps;
            p->lanes[k + 1] = temu_link_lanes(m, hops[k].link);
            p->vcoff[k + 1] = c->flow == TEMU_TM_CREDIT && wraps;
        }
        i = j;
    }
    return TEMU_OK;
}

static void path_free(path *p)
{
    free(p->gbs);
    free(p->wire);
    free(p->lanes);
    free(p->vcoff);
    free(p->busy);
    free(p->headfree);
    free(p->left);
}

/* One packet of `bytes` in class cls on lane key `key`, created at 0:
 * returns when its tail reaches the destination node. */
static int64_t path_packet(path *p, uint32_t bytes, uint32_t cls, uint32_t key)
{
    int n = p->h + 2;
    /* injection: the source queue is read out at the injection rate */
    int64_t s0 = temu_tm_ser_ps(p->gbs[0], bytes);
    int64_t start = p->srcfree > p->busy[0] ? p->srcfree : p->busy[0];
    p->srcfree = p->busy[0] = start + s0;
    int64_t hdr = start + p->wire[0], tail = start + s0 + p->wire[0];
    int prev_lane = 0;
    int64_t upstream = start; /* when the packet began on the previous channel */
    int64_t prev_ser = s0;
    for (int i = 1; i < n; i++) {
        int lane = (int)(key % (uint32_t)p->lanes[i]);
        int vc = (int)cls * 2 + p->vcoff[i - 1];
        int64_t si = temu_tm_ser_ps(p->gbs[i], bytes);
        size_t q = ((size_t)(i - 1) * MAX_LANES + (size_t)prev_lane) * 2 * TEMU_TM_MAX_CLASSES +
                   (size_t)vc;
        int64_t *busy = &p->busy[(size_t)i * MAX_LANES + (size_t)lane];
        /* ready router_ps after the header arrived, and not so early that
         * its tail would be overtaken on a faster channel; and, as the
         * timing model has it, not before the packet ahead was read out of
         * the queue if this one had entered the queue (its upstream
         * transmission began) by the time that one left */
        int64_t ready = hdr + p->router;
        if (upstream <= p->left[q] && ready < p->headfree[q]) {
            ready = p->headfree[q];
        }
        ready = ready > tail - si ? ready : tail - si;
        start = ready > *busy ? ready : *busy;
        p->left[q] = start;
        p->headfree[q] = start + prev_ser; /* read out at the incoming channel's rate */
        upstream = start;
        *busy = start + si;
        hdr = start + p->wire[i];
        tail = start + si + p->wire[i];
        prev_lane = lane;
        prev_ser = si;
    }
    return tail;
}

/* The bridge's packets of one direction, in its order (emu/timing_bridge.c):
 * Gemini round-robin over tile slots, VC0 before VC1 in each slot; Blue
 * Gene every packet of VC 0, then VC 1 ...; each bucket's units split
 * evenly over its packets, the larger ones first. */
static int64_t direction(path *p, const temu_machine *m, const temu_plan *plan, int dir)
{
    int64_t last = 0;
    /* bytes per unit of the plan's sizes: Gemini phits 3, Blue Gene chunks 32 */
    const temu_family_info *f = temu_family_info_get(m->system);
    uint32_t unit = f->unit_bytes;
    if (f->tiles != 0) { /* transactions in tile slots (Gemini) */
        uint64_t pk[2][TEMU_SLOTS], un[2][TEMU_SLOTS];
        int left = 1;
        memcpy(pk, plan->pkts[dir], sizeof pk);
        memcpy(un, plan->phits[dir], sizeof un);
        while (left) {
            left = 0;
            for (int k = 0; k < TEMU_SLOTS; k++) {
                for (int vc = 0; vc < 2; vc++) {
                    if (pk[vc][k] > 0) {
                        uint64_t size = (un[vc][k] + pk[vc][k] - 1) / pk[vc][k];
                        un[vc][k] -= size;
                        pk[vc][k]--;
                        int64_t t = path_packet(p, (uint32_t)(size * unit), (uint32_t)vc,
                                                plan->gemini_slot_base + (uint32_t)k);
                        last = t > last ? t : last;
                        left = 1;
                    }
                }
            }
        }
        return last;
    }
    for (int vc = 0; vc < TEMU_BGQ_VCS; vc++) {
        uint64_t pk = plan->packets[dir][vc], un = plan->chunks[dir][vc];
        while (pk > 0) {
            uint64_t size = (un + pk - 1) / pk;
            un -= size;
            pk--;
            int64_t t = path_packet(p, (uint32_t)(size * unit), (uint32_t)vc, 0);
            last = t > last ? t : last;
        }
    }
    return last;
}

temu_status tmpi_vt_latency(const temu_machine *m, const temu_tm_config *c, const temu_message *msg,
                            int64_t *ps, temu_error *err)
{
    temu_plan plan;
    temu_status st = temu_plan_message(m, msg, &plan, err);
    *ps = 0;
    if (st != TEMU_OK || plan.local) {
        return st;
    }
    for (int dir = 0; dir < 2 && st == TEMU_OK; dir++) {
        path p;
        st = path_build(&p, m, c, dir == 0 ? msg->src : msg->dst, dir == 0 ? msg->dst : msg->src,
                        err);
        if (st == TEMU_OK) {
            int64_t t = direction(&p, m, &plan, dir);
            *ps = t > *ps ? t : *ps;
        }
        path_free(&p);
    }
    return st;
}
