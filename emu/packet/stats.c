/*
 * stats.c - counters and statistics of the packet model (stats.h): token
 * shortage, hop reports, and what the model's users read of a lane, a VC,
 * a node and the run.
 */
#define TEMU_BUILDING_LIBRARY 1
#include "stats.h"

#include <string.h>

void tm_stats_short_change(temu_tm *t, int64_t c, uint32_t mask)
{
    tm_chan *ch = &t->ch[c];
    int64_t *acc = tm_notok_row(t, c), dt = t->now - acc[t->nvc + TM_NOTOK_SINCE];
    for (int v = 0; v < t->nvc; v++) {
        acc[v] += (ch->short_mask >> v & 1u) ? dt : 0;
    }
    acc[t->nvc] += (ch->short_mask & NO_DYNAMIC) ? dt : 0;
    ch->short_mask = mask;
    acc[t->nvc + TM_NOTOK_SINCE] = t->now;
}

/* ------------------------------------------------------------ readers */

void temu_tm_totals_get(const temu_tm *t, temu_tm_totals *out)
{
    if (t->eng != NULL) {
        tm_engine_totals(t, out);
        return;
    }
    *out = t->tot;
}

uint64_t temu_tm_records(const temu_tm *t)
{
    return (uint64_t)t->ntr; /* slots are reused, never given back */
}

temu_status temu_tm_lane_occupancy(const temu_tm *t, int64_t router, int link, int lane,
                                   uint32_t cls, int64_t *packet_ps, temu_error *err)
{
    int per = t->per;
    int64_t base;
    if (lane < 0 || lane >= temu_tm_lanes(t, router, link) || cls >= t->c.classes) {
        return temu_fail(err, TEMU_ERANGE,
                         "timing model: no lane %d, class %u on link %d of router %lld", lane, cls,
                         link, (long long)router);
    }
    base = tm_chan_id(t, router, link, lane) * t->nvc + (int64_t)cls * per;
    *packet_ps = 0;
    for (int v = 0; v < per; v++) {
        *packet_ps += t->q[base + v].occ;
    }
    return TEMU_OK;
}

temu_status temu_tm_lane_stats_get(const temu_tm *t, int64_t router, int link, int lane,
                                   temu_tm_lane_stats *out, temu_error *err)
{
    const tm_chan *ch;
    if (lane < 0 || lane >= temu_tm_lanes(t, router, link)) {
        return temu_fail(err, TEMU_ERANGE, "timing model: no lane %d on link %d of router %lld",
                         lane, link, (long long)router);
    }
    ch = &t->ch[tm_chan_id(t, router, link, lane)];
    *out = ch->st;
    /* intervals still open count up to now */
    if (ch->stalled) {
        out->credit_stall_ps += t->now - ch->stall_since;
    }
    if (ch->inq_waiting > 0) {
        out->inq_stall_ps += t->now - ch->inq_since;
    }
    out->no_dynamic_ps = 0;
    if (t->notok != NULL) {
        const int64_t *row = tm_notok_row(t, tm_chan_id(t, router, link, lane));
        out->no_dynamic_ps = row[t->nvc] + ((ch->short_mask & NO_DYNAMIC)
                                                ? t->now - row[t->nvc + TM_NOTOK_SINCE]
                                                : 0);
    }
    return TEMU_OK;
}

temu_status temu_tm_host_inq_stall(const temu_tm *t, int64_t node, int slot, int64_t *ps,
                                   temu_error *err)
{
    *ps = 0;
    if (node < 0 || node >= t->m.nnodes || slot < 0 || slot >= t->maxlanes) {
        return temu_fail(err, TEMU_ERANGE, "timing model: no host tile slot %d of node %lld", slot,
                         (long long)node);
    }
    if (t->host != NULL) {
        const tm_host *h = &t->host[node * t->maxlanes + slot];
        /* a wait still open counts up to now */
        *ps = h->stall_ps + (h->waiting > 0 ? t->now - h->since : 0);
    }
    return TEMU_OK;
}

temu_status temu_tm_lane_vc_stats(const temu_tm *t, int64_t router, int link, int lane, uint32_t vc,
                                  temu_tm_vc_stats *out, temu_error *err)
{
    int64_t c;
    memset(out, 0, sizeof *out);
    if (lane < 0 || lane >= temu_tm_lanes(t, router, link) || vc >= t->c.classes) {
        return temu_fail(err, TEMU_ERANGE,
                         "timing model: no lane %d, VC %u on link %d of router %lld", lane, vc,
                         link, (long long)router);
    }
    if (t->notok == NULL) {
        return TEMU_OK;
    }
    c = tm_chan_id(t, router, link, lane);
    const int64_t *row = tm_notok_row(t, c);
    for (uint32_t v = vc * (uint32_t)t->per; v < (vc + 1) * (uint32_t)t->per; v++) {
        out->adaptive_packets += t->vc_pk[c * t->nvc + v];
        out->adaptive_bytes += t->vc_bytes[c * t->nvc + v];
        out->no_token_ps += row[v] + ((t->ch[c].short_mask >> v & 1u)
                                          ? t->now - row[t->nvc + TM_NOTOK_SINCE]
                                          : 0);
    }
    return TEMU_OK;
}

temu_status temu_tm_node_mu_pending(const temu_tm *t, int64_t node, int64_t *read_ps,
                                    int64_t *write_ps, temu_error *err)
{
    *read_ps = *write_ps = 0;
    if (node < 0 || node >= t->m.nnodes) {
        return temu_fail(err, TEMU_ERANGE, "timing model: node %lld outside 0..%lld",
                         (long long)node, (long long)t->m.nnodes - 1);
    }
    if (t->mu_pend != NULL) {
        *read_ps = t->mu_pend[2 * node];
        *write_ps = t->mu_pend[2 * node + 1];
    }
    return TEMU_OK;
}
