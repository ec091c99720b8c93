/*
 * replay_mode.h - the two modes of a replay (replay_mode.c; doc/replay.md),
 * one interface: what replay.c does with an operation that depends on
 * whether the replay runs in virtual time.  Private to libtorusemu.
 *
 *   counting  each message is counted into the store when the replay
 *             reads it (temu_inject_ranks), as the live layer counts it
 *             at the send; the ranks' programs are not run.
 *   timed     (temu_replay_set_vtime) each rank's operations go to
 *             virtual time (torusemu_vtime.h), which counts a message as
 *             its packets cross; nothing is counted at reading.
 *
 * replay.c calls `message` where a message is read (before matching, as
 * a live send is counted before it is matched) and the rank operations
 * after its own bookkeeping; each mode leaves the other's half undone.
 */
#ifndef TEMU_REPLAY_MODE_H
#define TEMU_REPLAY_MODE_H

#include "torusemu_vtime.h"

#pragma GCC visibility push(hidden)

typedef struct temu_replay_mode {
    const char *name;
    /* A message of `bytes` from world rank `from` to `to` is read (a send,
     * a one-sided operation, or a part of a collective). */
    temu_status (*message)(temu_session *s, int32_t from, int32_t to, uint64_t bytes,
                           const void *payload, temu_kind kind, temu_error *err);
    /* A rank's operations, in the program of virtual time (arguments as
     * the temu_vt_* functions of the same name). */
    temu_status (*send)(temu_vt *vt, const temu_vt_p2p *p, temu_error *err);
    temu_status (*recv)(temu_vt *vt, const temu_vt_p2p *p, temu_error *err);
    temu_status (*recv_post)(temu_vt *vt, int32_t rank, uint64_t req, temu_error *err);
    temu_status (*wait)(temu_vt *vt, int32_t rank, uint64_t req, temu_error *err);
    temu_status (*trace_time)(temu_vt *vt, int32_t rank, int64_t begin_ns, int64_t end_ns,
                              temu_error *err);
    temu_status (*rma)(temu_vt *vt, int32_t origin, int32_t target, uint64_t bytes, temu_kind kind,
                       uint64_t payload, int inject, temu_error *err);
    temu_status (*coll_enter)(temu_vt *vt, int32_t comm, int32_t n, int32_t me, int32_t rank,
                              int sync_only, temu_error *err);
    temu_status (*coll_msg)(temu_vt *vt, int32_t comm, int32_t me, int32_t to, int32_t wto,
                            uint64_t bytes, temu_kind kind, int32_t round, uint64_t payload,
                            temu_error *err);
} temu_replay_mode;

extern const temu_replay_mode temu_replay_counting;
extern const temu_replay_mode temu_replay_timed;

#pragma GCC visibility pop

#endif
