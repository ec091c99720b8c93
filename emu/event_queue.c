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
 * word).  A slot holds one time only; a slot of one event (most of them
 * at a low load) is popped as it is, without a comparison.
 *
 * Equal times go in the order of their content (temu_evq_before), not of
 * their pushes, so that the pops of one instant depend only on the set
 * of its events, which no partition of the machine or order of sends can
 * change.  A slot of several events is sorted once, when reached: each
 * event's kind and first argument make the high half of a 64-bit number
 * whose low half is the event's index, the numbers are sorted (insertion
 * sort of blocks of 32, then merged), and the rare runs equal in the high
 * half are put in order by the whole content.  Why numbers: at a low
 * load, traffic moves in lock-step and most events tie with tens to
 * hundreds of others, pushed in no useful order (bench_timing: 80 % of
 * them in instants of 32 or more); comparing two 64-bit numbers is one
 * instruction, comparing two events a dozen.
 */
#include "event_queue.h"
#include "bigmem.h"

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
    free(q->bits);
    free(q->words);
    free(q->node);
    free(q->now_key);
    free(q->now_tmp);
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
        temu_mem_huge(ev, (size_t)cap * sizeof *ev);
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

static __attribute__((noinline)) int far_push(temu_evq_far *f, const temu_event *e)
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

/* A node never used yet (the pool may move), or -1 when out of memory.
 * Out of line: once the pool has grown, nodes come from the free list. */
static __attribute__((noinline)) int32_t node_new(temu_evq *q)
{
    if (q->nnode == q->capnode) {
        int32_t cap = q->capnode ? 2 * q->capnode : 1024;
        temu_evq_node *nd = cap > q->capnode ? realloc(q->node, (size_t)cap * sizeof *nd) : NULL;
        if (!nd) {
            return -1;
        }
        q->node = nd;
        q->capnode = cap;
        temu_mem_huge(nd, (size_t)cap * sizeof *nd);
    }
    return q->nnode++;
}

/* A free node (the pool may move), or -1 when out of memory. */
static inline int32_t node_alloc(temu_evq *q)
{
    int32_t n = q->freenode;
    if (n < 0) {
        return node_new(q);
    }
    q->freenode = q->node[n].next;
    return n;
}

static void node_free(temu_evq *q, int32_t n)
{
    q->node[n].next = q->freenode;
    q->freenode = n;
}

/* The wheel's arrays, at the first push: 0, or -1 when out of memory.
 * Out of line: kept off wheel_add, which every push runs. */
static __attribute__((noinline, cold)) int wheel_init(temu_evq *q)
{
    q->first = malloc(TEMU_EVQ_WHEEL * sizeof *q->first);
    temu_mem_huge(q->first, TEMU_EVQ_WHEEL * sizeof *q->first);
    q->bits = calloc(NWORDS, sizeof *q->bits);
    q->words = calloc(NWORDS / 64, sizeof *q->words);
    q->freenode = -1;
    if (!q->first || !q->bits || !q->words) {
        free(q->first);
        free(q->bits);
        free(q->words);
        q->first = NULL;
        q->bits = q->words = NULL;
        return -1;
    }
    return 0;
}

static inline int wheel_add(temu_evq *q, const temu_event *e)
{
    int32_t n;
    if (q->bits == NULL && wheel_init(q) != 0) {
        return -1;
    }
    n = node_alloc(q);
    if (n < 0) {
        return -1;
    }
    int64_t s = e->t & WHEEL_MASK;
    q->node[n].e = *e;
    if (q->bits[s >> 6] >> (s & 63) & 1u) {
        q->node[n].next = q->first[s]; /* at the head, as temu_evq_push */
    } else {
        q->node[n].next = -1;
        q->bits[s >> 6] |= 1ull << (s & 63);
        q->words[s >> 12] |= 1ull << (s >> 6 & 63);
    }
    q->first[s] = n;
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

/* base moved: the far events now within reach go to the wheel (their
 * slots are empty: no push could reach them before). */
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
    q->size = q->near + q->far.size + (q->nnow - q->hnow);
    return lost ? -1 : 0;
}

/* ------------------------------------------------------------ now */

/* Kinds and first arguments below these (all of the packet model's) make
 * the 32-bit high half of an event's sort number; an instant with others
 * is ordered by the slow path (now_ties over the whole instant). */
#define KEY_TYPES 8u
#define KEY_ARG (1u << 29)

/* Room for n sort numbers in `now`: 0, or -1 when out of memory (nothing
 * changes but the room of one of its arrays). */
static int now_reserve(temu_evq *q, int64_t n)
{
    if (n <= q->capnow) {
        return 0;
    }
    if (n > INT32_MAX / 4) {
        return -1;
    }
    int32_t cap = q->capnow ? q->capnow : 64;
    while (cap < n) {
        cap *= 2;
    }
    uint64_t *k = realloc(q->now_key, (size_t)cap * sizeof *k);
    q->now_key = k ? k : q->now_key;
    uint64_t *tmp = realloc(q->now_tmp, (size_t)cap * sizeof *tmp);
    q->now_tmp = tmp ? tmp : q->now_tmp;
    if (!k || !tmp) {
        return -1;
    }
    q->capnow = cap;
    return 0;
}

/* The high half of e's sort number: its kind and first argument; 0 and
 * *slow set if they do not fit. */
static uint64_t key_high(const temu_event *e, int *slow)
{
    uint32_t type = (uint32_t)e->type, a = (uint32_t)e->a;
    if (type >= KEY_TYPES || a >= KEY_ARG) {
        *slow = 1;
        return 0;
    }
    return (uint64_t)(type << 29 | a) << 32;
}

/* Merge the sorted runs src[lo, mid) and src[mid, hi) into dst[lo, hi). */
static void keys_merge(const uint64_t *src, uint64_t *dst, int32_t lo, int32_t mid, int32_t hi)
{
    const uint64_t *x = src + lo, *xe = src + mid, *y = src + mid, *ye = src + hi;
    uint64_t *o = dst + lo;
    if (mid == hi || src[mid - 1] <= src[mid]) {
        /* in order already (an instant's events often come pushed in
         * order of their channel or queue): one copy */
        memcpy(o, x, (size_t)(hi - lo) * sizeof *x);
        return;
    }
    while (x < xe && y < ye) {
        int from_y = *y < *x;
        *o++ = from_y ? *y : *x;
        y += from_y;
        x += !from_y;
    }
    memcpy(o, x, (size_t)(xe - x) * sizeof *x);
    memcpy(o + (xe - x), y, (size_t)(ye - y) * sizeof *y);
}

/* Sort k[0, n) as numbers (tmp: as large): insertion sort of blocks of
 * 32 (bench_load_sweep: fewer instructions than 16 at 0.1 and 2 times
 * saturation), then the blocks merged pairwise.  (A radix sort on the bytes in
 * which they differ was no faster for an instant's tens to hundreds.) */
static void keys_sort(uint64_t *k, uint64_t *tmp, int32_t n)
{
    enum { BLOCK = 32 };
    for (int32_t lo = 0; lo < n; lo += BLOCK) {
        int32_t hi = n - lo > BLOCK ? lo + BLOCK : n;
        for (uint64_t *p = k + lo + 1; p < k + hi; p++) {
            uint64_t x = *p, *at = p;
            if (x < k[lo]) {
                /* first of the block so far: the rest move up one */
                memmove(k + lo + 1, k + lo, (size_t)(p - (k + lo)) * sizeof *p);
                k[lo] = x;
                continue;
            }
            /* k[lo] <= x stops the scan: no bound to test */
            for (; at[-1] > x; at--) {
                *at = at[-1];
            }
            *at = x;
        }
    }
    uint64_t *src = k, *dst = tmp;
    for (int32_t w = BLOCK; w < n; w *= 2) {
        for (int32_t lo = 0; lo < n; lo += 2 * w) {
            int32_t mid = n - lo > w ? lo + w : n, hi = n - mid > w ? mid + w : n;
            keys_merge(src, dst, lo, mid, hi);
        }
        uint64_t *x = src;
        src = dst;
        dst = x;
    }
    if (src != k) {
        memcpy(k, src, (size_t)n * sizeof *k);
    }
}

/* The event of sort number k (its low half: the event's node). */
static const temu_event *now_event(const temu_evq *q, uint64_t k)
{
    return &q->node[(uint32_t)k].e;
}

/* Where event e goes among the sorted now_key[lo, hi): after those not
 * after it (a binary search by whole content). */
static int32_t now_place(const temu_evq *q, const temu_event *e, int32_t lo, int32_t hi)
{
    while (lo < hi) {
        int32_t mid = lo + (hi - lo) / 2;
        if (temu_evq_before(e, now_event(q, q->now_key[mid]))) {
            hi = mid;
        } else {
            lo = mid + 1;
        }
    }
    return lo;
}

/* Sort numbers of now_key[0, n) equal in their high half are put in the
 * order of their events' whole content (binary insertion: such runs are
 * short but for the slow path). */
static void now_ties(temu_evq *q, int32_t n)
{
    int32_t j = 1;
    /* most instants have no such run: a plain scan finds the first */
    while (j < n && (q->now_key[j] ^ q->now_key[j - 1]) >> 32 != 0) {
        j++;
    }
    int32_t from = j - 1; /* start of the run of equal high halves */
    for (; j < n; j++) {
        uint64_t k = q->now_key[j];
        if ((k ^ q->now_key[j - 1]) >> 32 != 0) {
            from = j;
            continue;
        }
        int32_t at = now_place(q, now_event(q, k), from, j);
        memmove(&q->now_key[at + 1], &q->now_key[at], (size_t)(j - at) * sizeof k);
        q->now_key[at] = k;
    }
}

/* Slot s (several events of one time) was reached: its events go to
 * `now`, in order, and the slot is empty.  0, or -1 when out of memory
 * (its events are then lost). */
static int now_fill(temu_evq *q, int64_t s)
{
    int slow = 0, st = 0;
    for (int32_t k = q->first[s]; k >= 0;) {
        int32_t next = q->node[k].next;
        if (st == 0 && q->nnow == q->capnow) {
            st = now_reserve(q, (int64_t)q->nnow + 1);
        }
        if (st == 0) {
            q->now_key[q->nnow++] = key_high(&q->node[k].e, &slow) | (uint32_t)k;
        } else {
            node_free(q, k); /* lost */
            q->size--;
        }
        q->near--;
        k = next;
    }
    q->bits[s >> 6] &= ~(1ull << (s & 63));
    if (q->bits[s >> 6] == 0) {
        q->words[s >> 12] &= ~(1ull << (s >> 6 & 63));
    }
    /* the list held the last pushed first: back to the order of the
     * pushes, which the sort finds often in order already (keys_merge) */
    for (int32_t i = 0, j = q->nnow - 1; i < j; i++, j--) {
        uint64_t x = q->now_key[i];
        q->now_key[i] = q->now_key[j];
        q->now_key[j] = x;
    }
    if (slow) {
        for (int32_t i = 0; i < q->nnow; i++) {
            q->now_key[i] = (uint32_t)q->now_key[i]; /* one run, ordered whole */
        }
    } else {
        keys_sort(q->now_key, q->now_tmp, q->nnow);
    }
    now_ties(q, q->nnow);
    return st;
}

/* e, at time base, joins the events of `now` not yet taken, in its place:
 * 0, or -1 when out of memory.  Out of line: most pushes are for a later
 * time, and this path's registers cost every push their saving. */
static __attribute__((noinline)) int now_insert(temu_evq *q, const temu_event *e)
{
    int32_t n = now_reserve(q, (int64_t)q->nnow + 1) == 0 ? node_alloc(q) : -1;
    if (n < 0) {
        return -1;
    }
    int32_t at = now_place(q, e, q->hnow, q->nnow);
    q->node[n].e = *e;
    memmove(&q->now_key[at + 1], &q->now_key[at], (size_t)(q->nnow - at) * sizeof *q->now_key);
    q->now_key[at] = (uint32_t)n;
    q->nnow++;
    return 0;
}

/* ------------------------------------------------------------ queue */

/* temu_evq_push (event_queue.h) for an event of the current instant, of
 * the far part, or when the node pool must grow or the wheel be made. */
int temu_evq_push_other(temu_evq *q, const temu_event *e)
{
    int st;
    if (q->nnow > 0 && e->t == q->base) {
        st = now_insert(q, e); /* the instant being taken out */
    } else {
        st = e->t - q->base < TEMU_EVQ_WHEEL ? wheel_add(q, e) : far_push(&q->far, e);
    }
    if (st == 0) {
        q->size++;
    }
    return st;
}

/* temu_evq_pop (event_queue.h) when the current instant is over: the
 * next one is found and sorted.  Out of line: an instant holds tens of
 * events, and the pops within one need none of this. */
int temu_evq_pop_instant(temu_evq *q, int64_t until, temu_event *out)
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
    int several = q->node[n].next >= 0, lost = 0;
    if (several) {
        lost = now_fill(q, s) != 0; /* sorted by content */
    } else {
        *out = q->node[n].e;
        q->bits[s >> 6] &= ~(1ull << (s & 63));
        if (q->bits[s >> 6] == 0) {
            q->words[s >> 12] &= ~(1ull << (s >> 6 & 63));
        }
        node_free(q, n);
        q->near--;
        q->size--;
    }
    if (t > q->base) {
        q->base = t;
        lost |= migrate(q) != 0;
    }
    if (several && q->nnow == 0) {
        return -1; /* all lost */
    }
    if (several) {
        temu_evq_take_now(q, out);
    }
    return lost ? -1 : 1;
}

int64_t temu_evq_next_time(const temu_evq *q)
{
    if (q->nnow > 0) {
        return q->base;
    }
    return q->near > 0 ? wheel_next_time(q) : far_next_time(&q->far);
}
