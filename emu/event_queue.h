/*
 * event_queue.h - the timing model's future event list (event_queue.c).
 * Private to libtorusemu.
 *
 * A monotone priority queue of events keyed by time in ps: every event
 * pushed is at or after the last one popped (a discrete-event simulation
 * never schedules into its past).  Events of equal time come out in the
 * order of their content: type, then a, b and c as unsigned numbers
 * (temu_evq_before), never in the order they were pushed, so the same set
 * of events gives the same run whoever pushed them first (any partition
 * of the machine, any thread count, any order of one instant's sends).
 * The user puts what identifies an event first in its arguments.
 */
#ifndef TEMU_EVENT_QUEUE_H
#define TEMU_EVENT_QUEUE_H

#include <stddef.h>
#include <stdint.h>

typedef struct temu_event {
    int64_t t;       /* ps, >= 0 and >= the time of the last event popped */
    int32_t type;    /* the user's: what happens; first in the order of equal times */
    int32_t a, b, c; /* the user's arguments, moved whole and read only to
                      * order equal times (the packet model types them:
                      * emu/packet/event.h) */
} temu_event;

/* Does x come before y at the same time?  Type, then a, b, c, as unsigned
 * numbers: the order of equal times. */
static inline int temu_evq_before(const temu_event *x, const temu_event *y)
{
    uint64_t kx = (uint64_t)(uint32_t)x->type << 32 | (uint32_t)x->a;
    uint64_t ky = (uint64_t)(uint32_t)y->type << 32 | (uint32_t)y->a;
    if (kx != ky) {
        return kx < ky;
    }
    kx = (uint64_t)(uint32_t)x->b << 32 | (uint32_t)x->c;
    ky = (uint64_t)(uint32_t)y->b << 32 | (uint32_t)y->c;
    return kx < ky;
}

/* The far part: a radix heap (Ahuja, Mehlhorn, Orlin and Tarjan, "Faster
 * algorithms for the shortest path problem", J. ACM 37(2), 1990).  Bucket
 * 0 holds the events at time `last` (the least time taken out), bucket
 * k >= 1 those whose time first differs from `last` in bit k-1.  A bucket
 * is an array in no particular order (equal times are ordered when their
 * time comes: temu_evq's `now`). */
#define TEMU_EVQ_BUCKETS 65

typedef struct temu_evq_far {
    temu_event *ev[TEMU_EVQ_BUCKETS];
    int64_t n[TEMU_EVQ_BUCKETS];   /* events in the bucket (bucket 0: up to `head`) */
    int64_t cap[TEMU_EVQ_BUCKETS]; /* allocated */
    int64_t min[TEMU_EVQ_BUCKETS]; /* earliest time in the bucket (k >= 1) */
    int64_t head;                  /* bucket 0: next to take out */
    uint64_t used;                 /* bit k-1: bucket k >= 1 holds events */
    uint64_t last;
    int64_t size;
} temu_evq_far;

/* The near part: a timing wheel of TEMU_EVQ_WHEEL slots of one ps each,
 * holding the events in [base, base + TEMU_EVQ_WHEEL), each slot a list
 * of one time, the last pushed first (a push writes its own node and the
 * slot's head, not the node of the slot's last event: on a large model
 * that node is rarely in cache).  Later events wait in the far part and
 * move to the wheel when base comes within reach (before any later push
 * can reach their slot).  A slot of several events, when reached, moves
 * to `now`, its events' nodes in order, which also takes the events
 * pushed at that time until it is empty. */
#define TEMU_EVQ_WHEEL_BITS 20
#define TEMU_EVQ_WHEEL (1 << TEMU_EVQ_WHEEL_BITS) /* 1.05 us */

typedef struct temu_evq_node {
    temu_event e;
    int32_t next;
} temu_evq_node;

typedef struct temu_evq {
    int64_t base;          /* wheel start: the time of the last event popped */
    int64_t near;          /* events on the wheel */
    int32_t *first;        /* [TEMU_EVQ_WHEEL] node lists per slot (valid where `bits` says) */
    uint64_t *bits;        /* [TEMU_EVQ_WHEEL / 64] slot holds events */
    uint64_t *words;       /* [TEMU_EVQ_WHEEL / 4096] word of `bits` is not zero */
    temu_evq_node *node;   /* node pool */
    int32_t nnode, capnode, freenode;
    temu_evq_far far;
    uint64_t *now_key; /* [hnow, nnow): the events at time base in order, by
                        * sort number (its low half: the event's node;
                        * event_queue.c, now_fill) */
    uint64_t *now_tmp; /* the sort's other buffer */
    int32_t hnow, nnow, capnow;
    int64_t size; /* events held */
} temu_evq;

/* An empty queue (all zero is one too). */
void temu_evq_init(temu_evq *q);
void temu_evq_free(temu_evq *q);
/* temu_evq_push when e is not for a later slot of the wheel or the node
 * pool has no free node (event_queue.c). */
int temu_evq_push_other(temu_evq *q, const temu_event *e);

/* Add e (e->t >= the last time popped, and >= 0); 0, or -1 when out of
 * memory (the queue is then unchanged).  Inline for the common case, an
 * event within the wheel's reach and not of the instant being taken out,
 * with a free node (bench_load_sweep: nearly every push): it goes to the
 * end of its slot's list, the event written straight into its node. */
static inline int temu_evq_push(temu_evq *q, const temu_event *e)
{
    int32_t n = q->freenode;
    int64_t ahead = e->t - q->base;
    if (n < 0 || q->bits == NULL || ahead >= TEMU_EVQ_WHEEL || (ahead == 0 && q->nnow > 0)) {
        return temu_evq_push_other(q, e);
    }
    temu_evq_node *nd = &q->node[n];
    int64_t s = e->t & (TEMU_EVQ_WHEEL - 1);
    uint64_t bit = 1ull << (s & 63), *word = &q->bits[s >> 6];
    q->freenode = nd->next;
    nd->e = *e;
    if (*word & bit) {
        nd->next = q->first[s]; /* the slot's list grows at its head */
    } else {
        nd->next = -1;
        *word |= bit;
        q->words[s >> 12] |= 1ull << (s >> 6 & 63);
    }
    q->first[s] = n;
    q->near++;
    q->size++;
    return 0;
}
/* Take the first event of the current instant (not empty) into *out, its
 * node back to the free list; for temu_evq_pop and event_queue.c only. */
static inline void temu_evq_take_now(temu_evq *q, temu_event *out)
{
    int32_t n = (int32_t)(uint32_t)q->now_key[q->hnow++];
    temu_evq_node *nd = &q->node[n];
    *out = nd->e;
    nd->next = q->freenode;
    q->freenode = n;
    if (q->hnow == q->nnow) {
        q->hnow = q->nnow = 0;
    }
    q->size--;
}
/* temu_evq_pop when the current instant's events are all taken: the next
 * instant is found and its events sorted (event_queue.c). */
int temu_evq_pop_instant(temu_evq *q, int64_t until, temu_event *out);

/* Remove the earliest event into *out if its time is at most `until` (of
 * equal times, the first by temu_evq_before of those held, however they
 * were pushed): 1, or 0 if there is none.  -1: out of
 * memory while moving events (some events are then lost).  Inline for
 * the common case, the next event of the instant being taken out (68 a
 * instant on average in bench_load_sweep's BG/Q tornado at twice
 * saturation): a call, its saved registers and the copy through a
 * pointer it cannot see cost about a fifth of a pop there. */
static inline int temu_evq_pop(temu_evq *q, int64_t until, temu_event *out)
{
    if (q->nnow == 0) {
        return temu_evq_pop_instant(q, until, out);
    }
    if (q->base > until) {
        return 0;
    }
    temu_evq_take_now(q, out);
    return 1;
}
/* Time of the earliest event, INT64_MAX if none. */
int64_t temu_evq_next_time(const temu_evq *q);

/* The next event of the instant being taken out, or NULL when it was the
 * last: what temu_evq_pop gives next unless an event of this instant is
 * pushed before it.  To start loading what it will touch while the
 * current one is handled (its node was read when the instant was
 * sorted, so it is in cache). */
static inline const temu_event *temu_evq_peek_now(const temu_evq *q)
{
    if (q->hnow >= q->nnow) {
        return NULL;
    }
    return &q->node[(uint32_t)q->now_key[q->hnow]].e;
}

#endif
