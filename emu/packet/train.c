/*
 * train.c - packet trains (train.h): sends cut into trains in their
 * source queue, train slots, and splits.
 */
#define TEMU_BUILDING_LIBRARY 1
#include "train.h"
#include "event.h"
#include "routing.h"

#include <stdlib.h>
#include <string.h>

int32_t tm_train_alloc(temu_tm *t)
{
    int32_t i;
    if (t->freetr >= 0) {
        i = t->freetr;
        t->freetr = t->tr[i].next;
        return i;
    }
    if (t->ntr == t->captr) {
        /* 64-byte aligned (the train's layout) inside a block grown by
         * realloc, which moves large blocks without copying */
        int32_t cap = t->captr ? 2 * t->captr : 1024;
        size_t was = t->tr ? (size_t)((char *)t->tr - (char *)t->tr_block) : 0;
        char *block =
            cap > t->captr ? realloc(t->tr_block, (size_t)cap * sizeof *t->tr + 64) : NULL;
        if (!block) {
            return -1;
        }
        size_t at = (64 - (uintptr_t)block % 64) % 64;
        if (at != was) {
            memmove(block + at, block + was, (size_t)t->ntr * sizeof *t->tr);
        }
        t->tr_block = block;
        t->tr = (tm_train *)(block + at);
        t->captr = cap;
    }
    return t->ntr++;
}

int tm_train_split(temu_tm *t, int64_t q, uint32_t m)
{
    int32_t r = tm_train_alloc(t);
    if (r < 0) {
        t->oom = 1;
        return -1;
    }
    int32_t p = t->q[q].head;
    tm_train *tr = &t->tr[p], *rest = &t->tr[r];
    *rest = *tr;
    rest->n = tr->n - m;
    rest->hdr += (int64_t)m * tr->sp;
    rest->tail += (int64_t)m * tr->sp;
    if (tr->nbig > m) {
        rest->nbig = tr->nbig - m;
        tr->nbig = m;
    } else {
        rest->bytes = tr->small; /* the rest are all small */
        rest->nbig = rest->n;
    }
    /* the message unit's requests stay with their packets */
    tr->mu_rd = (uint32_t)temu_even_share(tr->mu_rd, tr->n, 0, m);
    tr->mu_wr = (uint32_t)temu_even_share(tr->mu_wr, tr->n, 0, m);
    rest->mu_rd -= tr->mu_rd;
    rest->mu_wr -= tr->mu_wr;
    rest->serial = tr->serial + m;
    tr->n = m;
    tr->next = r;
    if (t->q[q].tail == p) {
        t->q[q].tail = r;
    }
    return 0;
}

/* ---------------------------------------------------------------- sends */

static temu_status check_send(const temu_tm *t, int64_t when_ps, int64_t src, int64_t dst,
                              uint32_t bytes, uint32_t count, uint32_t cls, temu_error *err)
{
    if (t->oom) {
        return temu_fail(err, TEMU_ENOMEM,
                         "timing model: out of memory during the run; results incomplete");
    }
    if (src < 0 || src >= t->m.nnodes || dst < 0 || dst >= t->m.nnodes) {
        return temu_fail(err, TEMU_ERANGE, "timing model: node %lld or %lld outside 0..%lld",
                         (long long)src, (long long)dst, (long long)t->m.nnodes - 1);
    }
    if (bytes == 0 || bytes > t->c.max_packet) {
        return temu_fail(err, TEMU_EINVAL, "timing model: packet of %u bytes outside 1..%u", bytes,
                         t->c.max_packet);
    }
    if (count == 0) {
        return temu_fail(err, TEMU_EINVAL, "timing model: a send of 0 packets");
    }
    if (cls >= t->c.classes) {
        return temu_fail(err, TEMU_EINVAL, "timing model: class %u, the model has %u", cls,
                         t->c.classes);
    }
    if (when_ps < t->now) {
        return temu_fail(err, TEMU_EINVAL,
                         "timing model: packet created at %lld ps, before now (%lld ps)",
                         (long long)when_ps, (long long)t->now);
    }
    return TEMU_OK;
}

/* count packets, the first nbig of `bytes` and the others of `small`, in
 * trains of at most t->train packets; mu[0], mu[1]: the message unit's read
 * and write requests of the count packets, split evenly over them
 * (temu_even_share). */
static temu_status send_packets(temu_tm *t, int64_t when_ps, int64_t src, int64_t dst,
                                uint32_t bytes, uint32_t nbig, uint32_t small, uint32_t count,
                                uint32_t cls, uint32_t lane_key, uint64_t tag, const uint64_t mu[2],
                                temu_error *err)
{
    uint64_t all = count, sent = 0;
    if (t->eng != NULL && src >= 0 && src < t->m.nnodes) {
        t = tm_engine_sender(t, src, nbig < count && small < bytes ? small : bytes);
    }
    temu_status st = check_send(t, when_ps, src, dst, nbig ? bytes : small, count, cls, err);
    if (st == TEMU_OK && nbig < count) {
        st = check_send(t, when_ps, src, dst, small, count, cls, err);
    }
    while (st == TEMU_OK && count > 0) {
        uint32_t n = count < t->train ? count : t->train;
        int32_t p = tm_train_alloc(t);
        if (p < 0) {
            return temu_fail(err, TEMU_ENOMEM, "timing model: out of memory for packets");
        }
        tm_train *tr = &t->tr[p];
        memset(tr, 0, sizeof *tr);
        tr->created = tr->hdr = tr->tail = when_ps;
        tr->tag = tag;
        tr->n = n;
        tr->nbig = nbig < n ? nbig : n;
        tr->bytes = tr->nbig > 0 ? bytes : small;
        tr->small = small;
        if (tr->nbig == 0) {
            tr->nbig = n;
        }
        nbig -= nbig < n ? nbig : n;
        tr->lane_key = lane_key;
        tr->next = -1;
        tr->src_node = (int32_t)src;
        tr->dst_node = (int32_t)dst;
        tr->dst_router = t->node_router[dst];
        tm_route_start(t, tr, src, cls);
        tr->mu_rd = (uint32_t)temu_even_share(mu[0], all, sent, n);
        tr->mu_wr = (uint32_t)temu_even_share(mu[1], all, sent, n);
        tr->serial = t->sent[src];
        t->sent[src] += n;
        sent += n;
        t->pending += n;
        count -= n;
        if (when_ps == t->now) {
            /* created now: no event needed */
            tm_router_append(t, tm_source_queue(t, src), p);
        } else if (tm_event_create(t, when_ps, p) != 0) {
            tm_train_free(t, p);
            t->pending -= n;
            return temu_fail(err, TEMU_ENOMEM, "timing model: out of memory for packets");
        }
    }
    return st;
}

temu_status temu_tm_send_train(temu_tm *t, int64_t when_ps, int64_t src, int64_t dst,
                               uint32_t bytes, uint32_t count, uint32_t cls, uint32_t lane_key,
                               uint64_t tag, temu_error *err)
{
    static const uint64_t no_mu[2] = {0, 0};
    return send_packets(t, when_ps, src, dst, bytes, count, bytes, count, cls, lane_key, tag, no_mu,
                        err);
}

temu_status temu_tm_send_even_mu(temu_tm *t, int64_t when_ps, int64_t src, int64_t dst,
                                 uint32_t count, uint64_t units, uint32_t unit_bytes, uint32_t cls,
                                 uint32_t lane_key, uint64_t tag, uint64_t mu_reads,
                                 uint64_t mu_writes, temu_error *err)
{
    const uint64_t mu[2] = {mu_reads, mu_writes};
    if (count == 0 || units < count || units / count + 1 > UINT32_MAX / unit_bytes) {
        return temu_fail(err, TEMU_EINVAL,
                         "timing model: %llu units of %u bytes cannot fill %u packets",
                         (unsigned long long)units, unit_bytes, count);
    }
    if (mu_reads > units * unit_bytes || mu_writes > units * unit_bytes) {
        return temu_fail(err, TEMU_EINVAL,
                         "timing model: %llu reads, %llu writes for %llu bytes (at most one "
                         "request per byte)",
                         (unsigned long long)mu_reads, (unsigned long long)mu_writes,
                         (unsigned long long)(units * unit_bytes));
    }
    uint32_t q = (uint32_t)(units / count), big = (uint32_t)(units % count);
    return send_packets(t, when_ps, src, dst, (q + 1) * unit_bytes, big, q * unit_bytes, count, cls,
                        lane_key, tag, mu, err);
}

temu_status temu_tm_send_even(temu_tm *t, int64_t when_ps, int64_t src, int64_t dst, uint32_t count,
                              uint64_t units, uint32_t unit_bytes, uint32_t cls, uint32_t lane_key,
                              uint64_t tag, temu_error *err)
{
    return temu_tm_send_even_mu(t, when_ps, src, dst, count, units, unit_bytes, cls, lane_key, tag,
                                0, 0, err);
}

temu_status temu_tm_send(temu_tm *t, int64_t when_ps, int64_t src, int64_t dst, uint32_t bytes,
                         uint32_t cls, uint32_t lane_key, uint64_t tag, temu_error *err)
{
    return temu_tm_send_train(t, when_ps, src, dst, bytes, 1, cls, lane_key, tag, err);
}
