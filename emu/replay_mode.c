/*
 * replay_mode.c - the counting and timed modes of a replay
 * (replay_mode.h): each does its half, and nothing for the other's.
 */
#define TEMU_BUILDING_LIBRARY 1
#include "replay_mode.h"
#include "emu_internal.h"

/* ------------------------------------------------------- counting mode */

/* The ranks' programs are not run: their operations are done with. */

static temu_status no_p2p(temu_vt *vt, const temu_vt_p2p *p, temu_error *err)
{
    (void)vt, (void)p, (void)err;
    return TEMU_OK;
}

static temu_status no_request(temu_vt *vt, int32_t rank, uint64_t req, temu_error *err)
{
    (void)vt, (void)rank, (void)req, (void)err;
    return TEMU_OK;
}

static temu_status no_trace_time(temu_vt *vt, int32_t rank, int64_t begin_ns, int64_t end_ns,
                                 temu_error *err)
{
    (void)vt, (void)rank, (void)begin_ns, (void)end_ns, (void)err;
    return TEMU_OK;
}

static temu_status no_rma(temu_vt *vt, int32_t origin, int32_t target, uint64_t bytes,
                          temu_kind kind, uint64_t payload, int inject, temu_error *err)
{
    (void)vt, (void)origin, (void)target, (void)bytes, (void)kind, (void)payload, (void)inject;
    (void)err;
    return TEMU_OK;
}

static temu_status no_coll_enter(temu_vt *vt, int32_t comm, int32_t n, int32_t me, int32_t rank,
                                 int sync_only, temu_error *err)
{
    (void)vt, (void)comm, (void)n, (void)me, (void)rank, (void)sync_only, (void)err;
    return TEMU_OK;
}

static temu_status no_coll_msg(temu_vt *vt, int32_t comm, int32_t me, int32_t to, int32_t wto,
                               uint64_t bytes, temu_kind kind, int32_t round, uint64_t payload,
                               temu_error *err)
{
    (void)vt, (void)comm, (void)me, (void)to, (void)wto, (void)bytes, (void)kind, (void)round;
    (void)payload;
    (void)err;
    return TEMU_OK;
}

const temu_replay_mode temu_replay_counting = {
    .name = "counting",
    .message = temu_inject_ranks, /* counted when read, as the live layer counts at the send */
    .send = no_p2p,
    .recv = no_p2p,
    .recv_post = no_request,
    .wait = no_request,
    .trace_time = no_trace_time,
    .rma = no_rma,
    .coll_enter = no_coll_enter,
    .coll_msg = no_coll_msg,
};

/* ---------------------------------------------------------- timed mode */

/* Counted when its rank sends it in virtual time, as its packets cross. */
static temu_status not_yet(temu_session *s, int32_t from, int32_t to, uint64_t bytes,
                           const void *payload, temu_kind kind, temu_error *err)
{
    (void)s, (void)from, (void)to, (void)bytes, (void)payload, (void)kind, (void)err;
    return TEMU_OK;
}

const temu_replay_mode temu_replay_timed = {
    .name = "timed",
    .message = not_yet,
    .send = temu_vt_send,
    .recv = temu_vt_recv,
    .recv_post = temu_vt_recv_post,
    .wait = temu_vt_wait,
    .trace_time = temu_vt_trace_time,
    .rma = temu_vt_rma,
    .coll_enter = temu_vt_coll_enter,
    .coll_msg = temu_vt_coll_msg_kind,
};
