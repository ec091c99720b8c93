/*
 * train.c - packet trains (train.h): sends cut into trains in their
 * source queue, train slots, and splits.
 */
#define TEMU_BUILDING_LIBRARY 1
#include "train.h"
#include "event.h"
#include "routing.h"
#include "../bigmem.h"

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
        temu_mem_huge(block, (size_t)cap * sizeof *t->tr + 64);
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

/* Rest r of the head p of source queue q, cut from a bucket that takes
 * turns, goes behind the message's last bucket; the buckets it passes
 * take the serial numbers from p's last packet on (next). */
static void take_turns(temu_tm *t, int64_t q, int32_t p, int32_t r, uint32_t next)
{
    tm_train *tr = t->tr;
    int32_t last = p;
    if (r >= 0) {
        tr[p].next = tr[r].next; /* out from behind p */
        if (t->q[q].tail == r) {
            t->q[q].tail = p;
        }
    }
    while (tr[last].msg & TM_MSG_MORE) {
        last = tr[last].next;
        tr[last].serial = next;
    }
    if (r >= 0) {
        tr[r].serial = next;
        tr[r].msg = TM_MSG_BUCKET | TM_MSG_TURNS;
        tr[r].next = tr[last].next;
        tr[last].next = r;
        tr[last].msg |= TM_MSG_MORE;
        if (t->q[q].tail == last) {
            t->q[q].tail = r;
        }
    }
}

int tm_train_cut(temu_tm *t, int64_t q)
{
    int32_t p = t->q[q].head, r = -1;
    uint32_t n = t->tr[p].n, m = n < t->train ? n : t->train;
    if (!(t->tr[p].msg & TM_MSG_BUCKET)) {
        return 0;
    }
    if (m < n) {
        if (tm_train_split(t, q, m) != 0) {
            return -1;
        }
        r = t->tr[p].next; /* a bucket too (the split copies msg) */
    }
    if (t->tr[p].msg & TM_MSG_TURNS) {
        take_turns(t, q, p, r, t->tr[p].serial + m);
    }
    t->tr[p].msg = 0; /* a train now */
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

/* Can the send just made from node src at when_ps, tag `tag`, join the
 * previous send's record as a bucket of the same message?  Only right
 * after it, no event processed in between: that record is still the last
 * of its source queue (or of its CREATE event's chain). */
static int32_t joinable(const temu_tm *t, int64_t when_ps, int64_t src, uint64_t tag)
{
    int32_t b = t->last_bucket;
    if (b < 0 || b >= t->ntr || t->tot.events != t->last_events) {
        return -1;
    }
    const tm_train *tr = &t->tr[b];
    if (!(tr->msg & TM_MSG_BUCKET) || tr->src_node != src || tr->created != when_ps ||
        tr->tag != tag || (t->last_direct && t->q[tm_source_queue(t, src)].tail != b)) {
        return -1;
    }
    return b;
}

/* Record p (its serial set) goes to its source queue: now, or by a
 * CREATE event at its time; a bucket that takes turns with the previous
 * send's joins it (its serial is set as its trains are cut). */
static int enqueue(temu_tm *t, int32_t p, int turns)
{
    tm_train *tr = &t->tr[p];
    int64_t src = tr->src_node, when_ps = tr->created;
    int32_t prev = turns ? joinable(t, when_ps, src, tr->tag) : -1;
    if (prev >= 0) {
        t->tr[prev].msg |= TM_MSG_TURNS | TM_MSG_MORE;
        tr->msg |= TM_MSG_TURNS;
        tr->serial = t->tr[prev].serial;
        if (t->last_direct) {
            tm_router_append(t, tm_source_queue(t, src), p);
        } else {
            t->tr[prev].next = p; /* the CREATE of its first bucket brings it */
        }
        t->last_bucket = p;
        return 0;
    }
    t->last_bucket = p;
    t->last_events = t->tot.events;
    t->last_direct = when_ps == t->now;
    if (t->last_direct) {
        /* created now: no event needed */
        tm_router_append(t, tm_source_queue(t, src), p);
        return 0;
    }
    return tm_event_create(t, when_ps, p);
}

void tm_train_enter_source(temu_tm *t, int64_t node, int32_t p)
{
    int64_t q = tm_source_queue(t, node);
    while (p >= 0) {
        int32_t next = t->tr[p].msg & TM_MSG_MORE ? t->tr[p].next : -1;
        tm_router_append(t, q, p);
        p = next;
    }
}

/* count packets, the first nbig of `bytes` and the others of `small`, as
 * one bucket of its source queue, cut into trains of at most t->train
 * packets as they are injected (tm_train_cut); mu[0], mu[1]: the message
 * unit's read and write requests of the count packets, split evenly over
 * them (temu_even_share) as the bucket is cut.  turns: the bucket takes
 * turns with the previous send's (train.h). */
static temu_status send_packets(temu_tm *t, int64_t when_ps, int64_t src, int64_t dst,
                                uint32_t bytes, uint32_t nbig, uint32_t small, uint32_t count,
                                uint32_t cls, uint32_t lane_key, uint64_t tag, const uint64_t mu[2],
                                int turns, temu_error *err)
{
    if (t->eng != NULL && src >= 0 && src < t->m.nnodes) {
        /* the parallel engine: the region owning the source node takes it */
        t = tm_engine_sender(t, src, nbig < count && small < bytes ? small : bytes);
    }
    temu_status st = check_send(t, when_ps, src, dst, nbig ? bytes : small, count, cls, err);
    if (st == TEMU_OK && nbig < count) {
        st = check_send(t, when_ps, src, dst, small, count, cls, err);
    }
    if (st != TEMU_OK) {
        return st;
    }
    int32_t p = tm_train_alloc(t);
    if (p < 0) {
        return temu_fail(err, TEMU_ENOMEM, "timing model: out of memory for packets");
    }
    tm_train *tr = &t->tr[p];
    memset(tr, 0, sizeof *tr);
    tr->created = tr->hdr = tr->tail = when_ps;
    tr->tag = tag;
    tr->n = count;
    tr->nbig = nbig;
    tr->bytes = nbig > 0 ? bytes : small;
    tr->small = small;
    if (nbig == 0) {
        tr->nbig = count;
    }
    tr->msg = TM_MSG_BUCKET;
    tr->lane_key = lane_key;
    tr->next = -1;
    tr->src_node = (int32_t)src;
    tr->dst_node = (int32_t)dst;
    tr->dst_router = t->node_router[dst];
    tm_route_start(t, tr, src, cls, t->sent[src]);
    tr->mu_rd = (uint32_t)mu[0];
    tr->mu_wr = (uint32_t)mu[1];
    tr->serial = t->sent[src];
    t->sent[src] += count;
    t->pending += count;
    if (enqueue(t, p, turns) != 0) {
        tm_train_free(t, p);
        t->pending -= count;
        t->last_bucket = -1;
        return temu_fail(err, TEMU_ENOMEM, "timing model: out of memory for packets");
    }
    return TEMU_OK;
}

temu_status temu_tm_send_train(temu_tm *t, int64_t when_ps, int64_t src, int64_t dst,
                               uint32_t bytes, uint32_t count, uint32_t cls, uint32_t lane_key,
                               uint64_t tag, temu_error *err)
{
    static const uint64_t no_mu[2] = {0, 0};
    return send_packets(t, when_ps, src, dst, bytes, count, bytes, count, cls, lane_key, tag, no_mu,
                        0, err);
}

/* Packets of `bytes` in one bucket: whole trains whose bytes stay below
 * 2^31 (the message unit's requests of a bucket, at most one per byte,
 * are kept in 32 bits). */
static uint32_t bucket_packets(const temu_tm *t, uint32_t bytes)
{
    uint64_t fit = ((uint64_t)1 << 31) / bytes / t->train * t->train;
    return fit == 0 ? t->train : fit > UINT32_MAX ? UINT32_MAX / t->train * t->train : (uint32_t)fit;
}

temu_status temu_tm_send_even_mu(temu_tm *t, int64_t when_ps, int64_t src, int64_t dst,
                                 uint32_t count, uint64_t units, uint32_t unit_bytes, uint32_t cls,
                                 uint32_t lane_key, uint64_t tag, uint64_t mu_reads,
                                 uint64_t mu_writes, int turns, temu_error *err)
{
    temu_status st = TEMU_OK;
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
    uint32_t piece = bucket_packets(t, (q + 1) * unit_bytes);
    /* buckets of whole trains: cut up, they give the trains one would */
    for (uint32_t done = 0, n; done < count && st == TEMU_OK; done += n) {
        n = count - done < piece ? count - done : piece;
        uint32_t nbig = big > done ? (big - done < n ? big - done : n) : 0;
        const uint64_t mu[2] = {temu_even_share(mu_reads, count, done, n),
                                temu_even_share(mu_writes, count, done, n)};
        st = send_packets(t, when_ps, src, dst, (q + 1) * unit_bytes, nbig, q * unit_bytes, n, cls,
                          lane_key, tag, mu, turns && done == 0, err);
    }
    return st;
}

temu_status temu_tm_send_even(temu_tm *t, int64_t when_ps, int64_t src, int64_t dst, uint32_t count,
                              uint64_t units, uint32_t unit_bytes, uint32_t cls, uint32_t lane_key,
                              uint64_t tag, temu_error *err)
{
    return temu_tm_send_even_mu(t, when_ps, src, dst, count, units, unit_bytes, cls, lane_key, tag,
                                0, 0, 0, err);
}

temu_status temu_tm_send(temu_tm *t, int64_t when_ps, int64_t src, int64_t dst, uint32_t bytes,
                         uint32_t cls, uint32_t lane_key, uint64_t tag, temu_error *err)
{
    return temu_tm_send_train(t, when_ps, src, dst, bytes, 1, cls, lane_key, tag, err);
}
