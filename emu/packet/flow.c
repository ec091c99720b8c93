/*
 * flow.c - flow control of the packet model (flow.h): queues' initial
 * space, and trains' credit coming back packet by packet.
 */
#define TEMU_BUILDING_LIBRARY 1
#include "flow.h"

void tm_flow_init(temu_tm *t)
{
    const temu_tm_config *cf = &t->c;
    /* tokens with trains: the dateline VCs share the queue's bytes */
    int64_t buffer =
        cf->flow == TEMU_TM_TOKEN && t->per == 2 ? cf->buffer_bytes / 2 : cf->buffer_bytes;
    t->qbytes = buffer;
    for (int64_t c = 0; c < t->nchan; c++) {
        /* ejection channels end at the node, which always accepts */
        int64_t credit = c >= t->ntorus + t->m.nnodes ? INT64_MAX / 2 : buffer;
        for (int v = 0; v < t->nvc; v++) {
            t->q[c * t->nvc + v].credit = credit;
        }
    }
}

void tm_flow_settle_stream(temu_tm *t, int64_t qi)
{
    tm_return *r = &t->ret[qi];
    if (r->n == 0 || t->now < r->t0) {
        return;
    }
    uint64_t k = r->sp > 0 ? (uint64_t)((t->now - r->t0) / r->sp) + 1 : r->n;
    k = k < r->n ? k : r->n;
    uint64_t kb = k < r->nbig ? k : r->nbig;
    t->q[qi].credit += (int64_t)(kb * r->big + (k - kb) * r->small);
    r->nbig -= (uint32_t)kb;
    r->n -= (uint32_t)k;
    r->t0 += (int64_t)k * r->sp;
}

/* When queue qi's credit (settled) reaches need by its return stream, or
 * INT64_MAX if the stream does not bring enough. */
static int64_t return_time(const temu_tm *t, int64_t qi, int64_t need)
{
    const tm_return *r = t->ret != NULL ? &t->ret[qi] : NULL;
    int64_t lack = need - t->q[qi].credit;
    if (r == NULL || r->n == 0 || lack <= 0) {
        return INT64_MAX;
    }
    uint64_t k, bigs = (uint64_t)r->nbig * r->big;
    if ((uint64_t)lack <= bigs) {
        k = ((uint64_t)lack + r->big - 1) / r->big;
    } else if (r->small > 0) {
        k = r->nbig + ((uint64_t)lack - bigs + r->small - 1) / r->small;
    } else {
        return INT64_MAX;
    }
    return k <= r->n ? r->t0 + (int64_t)(k - 1) * r->sp : INT64_MAX;
}

/* What an earlier train of the queue has still to give back comes back
 * all at once, at the mean of its packets' times (the queue keeps one
 * stream). */
void tm_flow_give_back(temu_tm *t, int64_t q, const tm_train *tr, uint32_t n, int64_t sp,
                       int64_t t0)
{
    tm_return *r = &t->ret[q];
    tm_flow_settle(t, q);
    if (r->n > 0) {
        int64_t rest = (int64_t)r->nbig * r->big + (int64_t)(r->n - r->nbig) * r->small;
        tm_event_credit(t, r->t0 + (int64_t)(r->n - 1) * r->sp / 2, (int32_t)(q / t->nvc),
                        (int32_t)(q % t->nvc), (int32_t)rest);
    }
    r->t0 = t0;
    r->sp = sp;
    r->woken_at = -1;
    r->n = n;
    r->nbig = tr->nbig < n ? tr->nbig : n;
    r->big = tr->bytes;
    r->small = tr->small;
    if (t->ch[q / t->nvc].nwait > 0) {
        /* a sender may be short of this credit already: look again when
         * the first packet's is back */
        r->woken_at = t0;
        tm_event_credit(t, t0, (int32_t)(q / t->nvc), (int32_t)(q % t->nvc), 0);
    }
}

void tm_flow_wake(temu_tm *t, const tm_chan *ch, int64_t c)
{
    int64_t wake = INT64_MAX;
    int wake_vc = 0;
    /* the earliest, of equal times the lower VC: not the waiters' order,
     * which follows their arrivals and departures */
    for (int i = 0; i < ch->nwait; i++) {
        int64_t at = return_time(t, c * t->nvc + ch->wait[i].vc, ch->wait[i].need);
        if (at < wake || (at == wake && ch->wait[i].vc < wake_vc)) {
            wake = at;
            wake_vc = ch->wait[i].vc;
        }
    }
    tm_return *r = wake < INT64_MAX ? &t->ret[c * t->nvc + wake_vc] : NULL;
    if (r != NULL && r->woken_at != wake) {
        r->woken_at = wake;
        tm_event_credit(t, wake, (int32_t)c, wake_vc, 0);
    }
}

/* Out of line: most channels that stall or free with waiters keep no
 * return (their waiters drained it), and the inline guard asks first. */
void tm_flow_back_events(temu_tm *t, int64_t c, int64_t at)
{
    tm_queue *cq = &t->q[c * t->nvc];
    for (uint32_t m = t->back_vcs[c]; m != 0; m &= m - 1) {
        int v = __builtin_ctz(m);
        tm_queue *q = &cq[v];
        int i = 0, kept = 0;
        for (; i < TM_BACK_SLOTS && q->back_bytes[i] != 0; i++) {
            if (at < 0 || q->back_at[i] == at) {
                tm_event_credit(t, q->back_at[i], (int32_t)c, v, (int32_t)q->back_bytes[i]);
            } else {
                if (kept < i) {
                    q->back_at[kept] = q->back_at[i];
                    q->back_bytes[kept] = q->back_bytes[i];
                }
                kept++;
            }
        }
        /* the slots from i on were empty: only those made free are cleared
         * (a channel freeing keeps its other returns: mostly none is made) */
        for (int j = kept; j < i; j++) {
            q->back_bytes[j] = 0;
        }
        if (kept == 0) {
            t->back_vcs[c] &= ~(1u << v);
        }
    }
}
