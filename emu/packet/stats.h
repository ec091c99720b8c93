/*
 * stats.h - counters and statistics of the packet model (stats.c): what
 * each lane carried and how long it was busy, its credit-stall and
 * input-queue stall intervals, token shortage per VC (BG/P), the queues'
 * occupancy, the message unit's pending requests (BG/Q), the run's
 * totals, and the hop function's reports.  The counters are bumped inline
 * on the per-event path; what reads them is stats.c.  Private to the
 * packet model.
 */
#ifndef TEMU_PACKET_STATS_H
#define TEMU_PACKET_STATS_H

#include "packet.h"

#include <string.h>

#pragma GCC visibility push(hidden)

/* Channel c's token shortage changes to a different mask (stats.c). */
void tm_stats_short_change(temu_tm *t, int64_t c, uint32_t mask);

/* Channel c's token shortage is mask from now: the time the old mask held
 * goes to each of its VCs (BG/P no-token counters).  Inline: every grant
 * asks, and almost always nothing changes (no counters, an ejection
 * channel, or the same mask). */
static inline void tm_stats_short(temu_tm *t, int64_t c, uint32_t mask)
{
    if (t->notok != NULL && c < t->ntorus && mask != t->ch[c].short_mask) {
        tm_stats_short_change(t, c, mask);
    }
}

/* A credit stall of idle channel ch (heads wait, none has credit) opens
 * now, unless one is open. */
static inline void tm_stats_stall_open(tm_chan *ch, int64_t now)
{
    if (ch->nwait > 0 && !ch->stalled) {
        ch->stalled = 1;
        ch->stall_since = now;
    }
}

/* The credit stall of channel ch, if open, ends now. */
static inline void tm_stats_stall_close(tm_chan *ch, int64_t now)
{
    if (ch->stalled) {
        ch->st.credit_stall_ps += now - ch->stall_since;
        ch->stalled = 0;
    }
}

/* Gemini: the head train tr of the input queue of channel c starts
 * (d = 1) or stops (d = -1) waiting; on a node's injection channel that
 * is an input stall of the host tile of its slot (lane_key mod 8, the
 * tile the volume model counts it on), open while any head of that slot
 * waits (seed 000 section VI: host links stall on input when congestion
 * makes it hard to inject). */
static inline void tm_stats_host_wait(temu_tm *t, int64_t c, const tm_train *tr, int d)
{
    if (t->host == NULL || c < t->ntorus) {
        return;
    }
    tm_host *h = &t->host[(c - t->ntorus) * t->maxlanes + tr->lane_key % (uint32_t)t->maxlanes];
    if (d > 0 && h->waiting++ == 0) {
        h->since = t->now;
    } else if (d < 0 && --h->waiting == 0) {
        h->stall_ps += t->now - h->since;
    }
}

/* The head of input queue q is ready now: an input-queue stall of its
 * channel opens if none of its queues' heads was waiting. */
static inline void tm_stats_inq_wait(temu_tm *t, int64_t q)
{
    tm_chan *up = &t->ch[q / t->nvc];
    if (up->inq_waiting++ == 0) {
        up->inq_since = t->now;
    }
    tm_stats_host_wait(t, q / t->nvc, &t->tr[t->q[q].head], 1);
}

/* Input queue q's head train tr leaves now, n packets sp apart, each read
 * out in readout ps: its wait ends, and each packet was present from its
 * header's arrival to its read-out. */
static inline void tm_stats_inq_leave(temu_tm *t, int64_t q, const tm_train *tr, int64_t n,
                                      int64_t readout, int64_t sp)
{
    tm_chan *up = &t->ch[q / t->nvc];
    if (--up->inq_waiting == 0) {
        up->st.inq_stall_ps += t->now - up->inq_since;
    }
    tm_stats_host_wait(t, q / t->nvc, tr, -1);
    int64_t occ = t->now + readout - tr->hdr;
    if (n > 1) {
        /* the later packets' delays grow by sp - tr->sp each */
        occ = n * occ + (sp - tr->sp) * (n * (n - 1) / 2);
    }
    t->q[q].occ += occ;
}

/* Channel ch carries n packets, `total` bytes: nbig of them in ser ps
 * each, the others in ser_small. */
static inline void tm_stats_carried(tm_chan *ch, int64_t n, int64_t nbig, int64_t total,
                                    int64_t ser, int64_t ser_small)
{
    ch->st.packets += (uint64_t)n;
    ch->st.bytes += (uint64_t)total;
    ch->st.busy_ps += nbig * ser + (n - nbig) * ser_small;
}

/* Train tr crosses torus channel c on VC vc: n packet-hops, one train-hop,
 * and the VC's adaptive traffic (token flow). */
static inline void tm_stats_torus_hop(temu_tm *t, const tm_train *tr, int64_t c, int vc, int64_t n,
                                      int64_t total)
{
    t->tot.packet_hops += (uint64_t)n;
    t->tot.train_hops++;
    if (tr->adaptive && t->vc_pk != NULL) {
        t->vc_pk[c * t->nvc + vc] += (uint64_t)n;
        t->vc_bytes[c * t->nvc + vc] += (uint64_t)total;
    }
}

/* The message unit reads the payloads of train tr as it injects them. */
static inline void tm_stats_mu_reads(temu_tm *t, const tm_train *tr)
{
    if (t->mu_pend != NULL) {
        t->mu_pend[2 * (int64_t)tr->src_node] += (int64_t)tr->mu_rd * t->c.mu_request_ps;
    }
}

/* The message unit stores the packets of train tr it received. */
static inline void tm_stats_mu_writes(temu_tm *t, const tm_train *tr)
{
    if (t->mu_pend != NULL) {
        t->mu_pend[2 * (int64_t)tr->dst_node + 1] += (int64_t)tr->mu_wr * t->c.mu_request_ps;
    }
}

/* Tell the hop function that train tr starts onto channel c now, on VC
 * vc (torus channels), carrying `total` bytes with packets sp apart, each
 * serialized in ser ps. */
static inline void tm_stats_report_hop(const temu_tm *t, const tm_train *tr, int64_t c, int vc,
                                       int64_t total, int64_t sp, int64_t ser)
{
    temu_tm_hop h;
    memset(&h, 0, sizeof h);
    h.start_ps = t->now;
    h.spacing_ps = tr->n > 1 ? sp : 0;
    h.ser_ps = ser;
    h.tag = tr->tag;
    h.bytes = (uint64_t)total;
    h.packets = tr->n;
    h.cls = tr->cls;
    h.lane_key = tr->lane_key;
    h.adaptive = tr->adaptive;
    if (c < t->ntorus) {
        h.kind = TEMU_TM_HOP_LINK;
        h.lane = (int32_t)(c % t->maxlanes);
        h.link = (int32_t)(c / t->maxlanes % t->tlinks);
        h.router = c / t->maxlanes / t->tlinks;
        h.to_router = t->nbr[h.router * t->tlinks + h.link];
        h.vc_class = (uint32_t)vc / (uint32_t)t->per;
    } else if (c < t->ntorus + t->m.nnodes) {
        h.kind = TEMU_TM_HOP_INJECT;
        h.node = c - t->ntorus;
    } else {
        h.kind = TEMU_TM_HOP_EJECT;
        h.node = c - t->ntorus - t->m.nnodes;
    }
    t->hop(t->hop_ctx, &h);
}

#pragma GCC visibility pop

#endif
