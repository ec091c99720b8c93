/*
 * event_queue.c - monotone event queue of the timing model
 * (event_queue.h): a timing wheel of 1 ps slots for the next 1.05 us, a
 * radix heap beyond.
 *
 * Why: the model pops millions of events from queues of thousands.  A
 * d-ary heap moves each 24-byte event through log_d(n) levels, comparing
 * (time, sequence number) pairs at each: half the model's instructions
 * (doc/performance.md).  Almost every event the model schedules is less
 * than 1 us ahead (router, wire, serialization and credit times), so it
 * goes straight to its slot's list; finding the next event scans a bitmap
 * of the slots (one bit per ps, a second level of one bit per 64-bit
 * word).  A slot holds one time only, so its list in push order is the
 * order of equal times: no sequence number, no comparison.
 */
#include "event_queue.h"

#include <stdlib.h>
#include <string.h>

#define WHEEL_MASK ((int64_t)TEMU_EVQ_WHEEL - 1)
#define NWORDS (TEMU_EVQ_WHEEL / 64)

void temu_evq_init(temu_evq *q)
{
    memset(q, 0, sizeof *q);
}

void temu_evq_free(temu_evq *q)
{
    for (int k = 0; k < TEMU_EVQ_BUCKETS; k++) {
        free(q->far.ev[k]);
    }
    free(q->first);
    free(q->tail);
    free(q->bits);
    free(q->words);
    free(q->node);
    temu_evq_init(q);
}

/* ------------------------------------------------------------ far part */

/* Bucket of time t: 0 when t is `last`, else 1 + the highest bit in which
 * they differ. */
static int far_bucket(const temu_evq_far *f, uint64_t t)
{
    uint64_t x = t ^ f->last;
    return x == 0 ? 0 : 64 - __builtin_clzll(x);
}

static int far_append(temu_evq_far *f, int k, const temu_event *e)
{
    if (f->n[k] == f->cap[k]) {
        int64_t cap = f->cap[k] ? 2 * f->cap[k] : 64;
        temu_event *ev = realloc(f->ev[k], (size_t)cap * sizeof *ev);
        if (!ev) {
            return -1;
        }
        f->ev[k] = ev;
        f->cap[k] = cap;
    }
    if (k > 0) {
        if (f->n[k] == 0 || e->t < f->min[k]) {
            f->min[k] = e->t;
        }
        f->used |= 1ull << (k - 1);
    }
    f->ev[k][f->n[k]++] = *e;
    return 0;
}

static int far_push(temu_evq_far *f, const temu_event *e)
{
    if (far_append(f, far_bucket(f, (uint64_t)e->t), e) != 0) {
        return -1;
    }
    f->size++;
    return 0;
}

static int64_t far_next_time(const temu_evq_far *f)
{
    if (f->head < f->n[0]) {
        return (int64_t)f->last;
    }
    return f->used ? f->min[__builtin_ctzll(f->used) + 1] : INT64_MAX;
}

/* Take the earliest event out (the far part is not empty): 0, or -1 if
 * events were lost for want of memory. */
static int far_take(temu_evq_far *f, temu_event *out)
{
    int lost = 0;
    if (f->head == f->n[0]) {
        /* bucket 0 is empty: the least time of the lowest bucket in use
         * becomes `last`, and that bucket's events go to lower, empty
         * buckets in their order */
        f->head = f->n[0] = 0;
        int k = __builtin_ctzll(f->used) + 1;
        int64_t n = f->n[k];
        f->last = (uint64_t)f->min[k];
        f->n[k] = 0;
        f->used &= ~(1ull << (k - 1));
        for (int64_t i = 0; i < n; i++) {
            if (far_append(f, far_bucket(f, (uint64_t)f->ev[k][i].t), &f->ev[k][i]) != 0) {
                f->size--;
                lost = 1;
            }
        }
        if (f->head == f->n[0]) {
            return -1;
        }
    }
    *out = f->ev[0][f->head++];
    f->size--;
    return lost ? -1 : 0;
}

/* ------------------------------------------------------------ wheel */

static int wheel_add(temu_evq *q, const temu_event *e)
{
    int32_t n;
    if (q->bits == NULL) {
        q->first = malloc(TEMU_EVQ_WHEEL * sizeof *q->first);
        q->tail = malloc(TEMU_EVQ_WHEEL * sizeof *q->tail);
        q->bits = calloc(NWORDS, sizeof *q->bits);
        q->words = calloc(NWORDS / 64, sizeof *q->words);
        q->freenode = -1;
        if (!q->first || !q->tail || !q->bits || !q->words) {
            free(q->first);
            free(q->tail);
            free(q->bits);
            free(q->words);
            q->first = q->tail = NULL;
            q->bits = q->words = NULL;
            return -1;
        }
    }
    if (q->freenode >= 0) {
        n = q->freenode;
        q->freenode = q->node[n].next;
    } else {
        if (q->nnode == q->capnode) {
            int32_t cap = q->capnode ? 2 * q->capnode : 1024;
            temu_evq_node *nd =
                cap > q->capnode ? realloc(q->node, (size_t)cap * sizeof *nd) : NULL;
            if (!nd) {
                return -1;
            }
            q->node = nd;
            q->capnode = cap;
        }
        n = q->nnode++;
    }
    int64_t s = e->t & WHEEL_MASK;
    q->node[n].e = *e;
    q->node[n].next = -1;
    if (q->bits[s >> 6] >> (s & 63) & 1u) {
        q->node[q->tail[s]].next = n;
    } else {
        q->first[s] = n;
        q->bits[s >> 6] |= 1ull << (s & 63);
        q->words[s >> 12] |= 1ull << (s >> 6 & 63);
    }
    q->tail[s] = n;
    q->near++;
    return 0;
}

/* First slot at or after s (below TEMU_EVQ_WHEEL) holding events, or -1. */
static int64_t slot_from(const temu_evq *q, int64_t s)
{
    int64_t w = s >> 6;
    uint64_t m = q->bits[w] & (~0ull << (s & 63));
    if (m) {
        return (w << 6) + __builtin_ctzll(m);
    }
    for (int64_t ww = w + 1; ww < NWORDS;) {
        uint64_t sm = q->words[ww >> 6] & (~0ull << (ww & 63));
        if (sm) {
            int64_t w2 = ((ww >> 6) << 6) + __builtin_ctzll(sm);
            return (w2 << 6) + __builtin_ctzll(q->bits[w2]);
        }
        ww = ((ww >> 6) + 1) << 6;
    }
    return -1;
}

/* Time of the earliest event on the wheel (it holds some): the first
 * slot from base's on, round the wheel. */
static int64_t wheel_next_time(const temu_evq *q)
{
    int64_t s0 = q->base & WHEEL_MASK, s = slot_from(q, s0);
    if (s < 0) {
        s = slot_from(q, 0);
    }
    return q->base + ((s - s0) & WHEEL_MASK);
}

/* base moved: the far events now within reach go to the wheel, earliest
 * first (their slots are empty: no push could reach them before). */
static int migrate(temu_evq *q)
{
    int lost = 0;
    while (q->far.size > 0 && far_next_time(&q->far) - q->base < TEMU_EVQ_WHEEL) {
        temu_event e;
        int64_t before = q->far.size;
        lost |= far_take(&q->far, &e) != 0;
        if (q->far.size < before && wheel_add(q, &e) != 0) {
            lost = 1;
        }
    }
    q->size = q->near + q->far.size;
    return lost ? -1 : 0;
}

/* ------------------------------------------------------------ queue */

int temu_evq_push(temu_evq *q, const temu_event *e)
{
    int st = e->t - q->base < TEMU_EVQ_WHEEL ? wheel_add(q, e) : far_push(&q->far, e);
    if (st == 0) {
        q->size++;
    }
    return st;
}

int temu_evq_pop(temu_evq *q, int64_t until, temu_event *out)
{
    int64_t t;
    if (q->near == 0) {
        if (q->far.size == 0 || far_next_time(&q->far) > until) {
            return 0;
        }
        q->base = far_next_time(&q->far);
        if (migrate(q) != 0) {
            return -1;
        }
    }
    t = wheel_next_time(q);
    if (t > until) {
        return 0;
    }
    int64_t s = t & WHEEL_MASK;
    int32_t n = q->first[s];
    *out = q->node[n].e;
    if (q->node[n].next >= 0) {
        q->first[s] = q->node[n].next;
    } else {
        q->bits[s >> 6] &= ~(1ull << (s & 63));
        if (q->bits[s >> 6] == 0) {
            q->words[s >> 12] &= ~(1ull << (s >> 6 & 63));
        }
    }
    q->node[n].next = q->freenode;
    q->freenode = n;
    q->near--;
    q->size--;
    if (t > q->base) {
        q->base = t;
        if (migrate(q) != 0) {
            return -1;
        }
    }
    return 1;
}

int64_t temu_evq_next_time(const temu_evq *q)
{
    return q->near > 0 ? wheel_next_time(q) : far_next_time(&q->far);
}
