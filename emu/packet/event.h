/*
 * event.h - the packet model's events: a tagged union, one named set of
 * arguments per kind, kept in the model's event queue (emu/event_queue.c).
 * Private to the packet model.
 *
 * The queue orders events by time, and events of equal time by their
 * content: kind, then the arguments in the order written (as unsigned
 * numbers), never by the order they were scheduled.  So each kind's first
 * arguments say what and where, by numbers that do not depend on the
 * order of pushes or on a slot's reuse:
 *   DELIVER, CREATE  the train's source node and the serial number of its
 *                    first packet among that node's (tm_train.serial); the
 *                    train's slot index, last, only finds it
 *   CREDIT           the channel, VC and bytes (equal credits of a
 *                    channel at one time are interchangeable)
 *   TRY              the channel (at most one pending: try_pending)
 *   READY            the queue (at most one pending: only its head is
 *                    READY, once); the head's slot and channel follow
 * and the kinds are numbered so that, at one instant, what gives back a
 * resource comes before what asks for one: deliveries, then credit, then
 * free channels, then new trains, then heads asking (doc/model.md,
 * "Equal times").  Equal inputs give equal results, whatever order one
 * instant's sends were made in.  What each kind makes the router do is
 * router.c's.
 */
#ifndef TEMU_PACKET_EVENT_H
#define TEMU_PACKET_EVENT_H

#include "packet.h"

/* in their order at one instant */
typedef enum tm_event_type {
    TM_EV_DELIVER, /* a train's last tail reached its destination node   */
    TM_EV_CREDIT,  /* space freed downstream is known upstream again     */
    TM_EV_TRY,     /* a channel became free: a waiting head may take it  */
    TM_EV_CREATE,  /* a train enters its source queue                    */
    TM_EV_READY    /* the head of a queue may leave: it asks for a channel */
} tm_event_type;

typedef struct tm_event {
    int64_t t;    /* ps */
    int32_t type; /* tm_event_type: which member of the union holds */
    union {
        struct {
            int32_t node;   /* the train's source node               */
            uint32_t first; /* and its first packet's serial there   */
            int32_t train;  /* its slot                              */
        } create;
        struct {
            int32_t queue; /* whose head it is                              */
            int32_t train; /* the head (so the event needs no queue read)   */
            int32_t chan;  /* the channel it takes next (adaptive: the      */
                           /* deterministic candidate)                      */
        } ready;
        struct {
            int32_t chan;
        } try_chan;
        struct {
            int32_t chan;  /* the channel whose downstream queue freed space */
            int32_t vc;    /* the queue's VC                                 */
            int32_t bytes; /* space freed (0: a wake-up, trains' return     */
                           /* stream brought it, flow.c; -1 - k: the        */
                           /* parallel engine's train credit stream in slot */
                           /* k begins, region.c)                           */
        } credit;
        struct {
            int32_t node; /* as create's */
            uint32_t first;
            int32_t train;
        } deliver;
    };
} tm_event;

/* A tm_event travels in the queue as its untyped temu_event: the two
 * share their storage (a union, so no copy either way). */
typedef union tm_event_slot {
    temu_event raw;
    tm_event ev;
} tm_event_slot;

_Static_assert(sizeof(tm_event) == sizeof(temu_event) &&
                   offsetof(tm_event, t) == offsetof(temu_event, t) &&
                   offsetof(tm_event, type) == offsetof(temu_event, type) &&
                   offsetof(tm_event, ready.queue) == offsetof(temu_event, a),
               "tm_event is a temu_event with typed arguments");

/* region.c: schedule s->ev in the parallel engine (a credit for a
 * channel of another region goes there at the window's end). */
int tm_engine_push(temu_tm *t, const tm_event_slot *s);

/* Schedule s->ev; -1 when out of memory (the run stops, temu_tm_check
 * says).  Always inline, as temu_evq_push is: GCC otherwise keeps a copy
 * that every grant calls (callgrind: 1 % of the instructions). */
static inline __attribute__((always_inline)) int tm_event_push(temu_tm *t, const tm_event_slot *s)
{
    if (t->eng != NULL) {
        return tm_engine_push(t, s);
    }
    if (temu_evq_push(&t->events, &s->raw) != 0) {
        t->oom = 1;
        return -1;
    }
    return 0;
}

/* The earliest event at or before until_ps into s->ev: 1, 0 if none, -1
 * if events were lost (out of memory). */
static inline int tm_event_pop(temu_tm *t, int64_t until_ps, tm_event_slot *s)
{
    return temu_evq_pop(&t->events, until_ps, &s->raw);
}

/* Train p (its source and serial set) enters its source queue at when. */
static inline int tm_event_create(temu_tm *t, int64_t when, int32_t p)
{
    const tm_train *tr = &t->tr[p];
    tm_event_slot s = {
        .ev = {.t = when, .type = TM_EV_CREATE, .create = {tr->src_node, tr->serial, p}}};
    return tm_event_push(t, &s);
}

static inline int tm_event_ready(temu_tm *t, int64_t when, int32_t queue, int32_t train,
                                 int32_t chan)
{
    tm_event_slot s = {.ev = {.t = when, .type = TM_EV_READY, .ready = {queue, train, chan}}};
    return tm_event_push(t, &s);
}

static inline int tm_event_try(temu_tm *t, int64_t when, int32_t chan)
{
    tm_event_slot s = {.ev = {.t = when, .type = TM_EV_TRY, .try_chan = {chan}}};
    return tm_event_push(t, &s);
}

static inline int tm_event_credit(temu_tm *t, int64_t when, int32_t chan, int32_t vc, int32_t bytes)
{
    tm_event_slot s = {.ev = {.t = when, .type = TM_EV_CREDIT, .credit = {chan, vc, bytes}}};
    return tm_event_push(t, &s);
}

static inline int tm_event_deliver(temu_tm *t, int64_t when, int32_t p)
{
    const tm_train *tr = &t->tr[p];
    tm_event_slot s = {
        .ev = {.t = when, .type = TM_EV_DELIVER, .deliver = {tr->src_node, tr->serial, p}}};
    return tm_event_push(t, &s);
}

#endif
