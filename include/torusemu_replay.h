/*
 * torusemu_replay.h - replaying communication onto an emulated machine
 * without processes (doc/replay.md).
 *
 * A replay takes a stream of MPI-level operations -- point-to-point sends
 * and receives, one-sided puts and gets, collectives as each rank called
 * them -- and adds to a session store exactly what a live run (`torusemu
 * run`, the MPI interposition layer) of the same operations would have
 * added: sends are injected by their sender, collectives are decomposed by
 * the code the live layer uses too (coll/coll.c, BG/Q class routes in
 * coll/classroute.c).  Receives are matched to sends by (communicator,
 * source, tag) in hashed queues, so a replay also checks that the stream is
 * complete; matching costs O(1) per message.
 *
 * Ranks are world ranks of the session's stored mapping (temu_session_create
 * with a mapping); communicator ranks are translated through the member
 * lists given to temu_replay_comm.
 */
#ifndef TORUSEMU_REPLAY_H
#define TORUSEMU_REPLAY_H

#include "torusemu.h"
#include "torusemu_coll.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct temu_replay temu_replay;

/* Communicator 0 is MPI_COMM_WORLD: every rank of the session's mapping. */
#define TEMU_REPLAY_WORLD 0
/* A receive of a message whose size the stream does not give. */
#define TEMU_REPLAY_ANY_SIZE UINT64_MAX

/* Start a replay into session s (which must hold a mapping). */
temu_status temu_replay_create(temu_session *s, temu_replay **out, temu_error *err);
void temu_replay_free(temu_replay *r);

/* Define communicator `id` (> 0, not defined before) of n members: its
 * rank i is world rank members[i].  An intracommunicator. */
temu_status temu_replay_comm(temu_replay *r, int32_t id, int32_t n, const int32_t *members,
                             temu_error *err);
/* The session the replay adds to. */
temu_session *temu_replay_session(const temu_replay *r);
/* Ranks of the session (MPI_COMM_WORLD's size). */
int32_t temu_replay_nranks(const temu_replay *r);
/* The lowest communicator id not defined yet. */
int32_t temu_replay_unused_comm(const temu_replay *r);
/* Members of communicator id (n and the world ranks); TEMU_ERANGE if unknown. */
temu_status temu_replay_comm_members(const temu_replay *r, int32_t id, int32_t *n,
                                     const int32_t **members, temu_error *err);

/* Point-to-point.  `src` sends `bytes` to `dst` (communicator ranks) with
 * `tag`: the message is injected now, as the live layer does at the send.
 * The matching receive at `dst` names the actual source (what traces
 * record); `bytes` may be TEMU_REPLAY_ANY_SIZE.  Either may come first.
 * A receive whose size differs from its send's is an error (TEMU_EINVAL). */
temu_status temu_replay_send(temu_replay *r, int32_t comm, int32_t src, int32_t dst, int32_t tag,
                             uint64_t bytes, temu_error *err);
/* The same with the address the sender's data had in a live run (0 =
 * unknown).  The model uses it only where nothing but the address matters:
 * the BG/Q L2 slice the message unit reads first (doc/model.md); elsewhere
 * it is ignored (a replay has no payload bytes). */
temu_status temu_replay_send_at(temu_replay *r, int32_t comm, int32_t src, int32_t dst, int32_t tag,
                                uint64_t bytes, uint64_t addr, temu_error *err);
temu_status temu_replay_recv(temu_replay *r, int32_t comm, int32_t dst, int32_t src, int32_t tag,
                             uint64_t bytes, temu_error *err);
/* A send the live run made but did not count (MPI_Pcontrol(0) paused the
 * sender): it matches its receive and puts nothing on the machine. */
temu_status temu_replay_send_uncounted(temu_replay *r, int32_t comm, int32_t src, int32_t dst,
                                       int32_t tag, uint64_t bytes, temu_error *err);

/* Non-blocking point-to-point (MPI_Isend, MPI_Irecv): the same counts as
 * temu_replay_send_at and temu_replay_recv; with virtual time (below) the
 * operation completes at the wait for request req (> 0) of its rank. */
temu_status temu_replay_isend(temu_replay *r, int32_t comm, int32_t src, int32_t dst, int32_t tag,
                              uint64_t bytes, uint64_t addr, uint64_t req, temu_error *err);
temu_status temu_replay_irecv(temu_replay *r, int32_t comm, int32_t dst, int32_t src, int32_t tag,
                              uint64_t bytes, uint64_t req, temu_error *err);

/* ---- virtual time (doc/replay.md, include/torusemu_vtime.h) ----
 * With vt attached every call also adds to the ranks' programs in vt,
 * which temu_vt_run executes over the timing model; the counts in the
 * store are the same with or without it.  The calls below matter only
 * then (ranks are world ranks). */
struct temu_vt;
void temu_replay_set_vtime(temu_replay *r, struct temu_vt *vt);
struct temu_vt *temu_replay_vtime(const temu_replay *r);
/* A non-blocking receive posted; its match comes with temu_replay_irecv
 * (same req) when it completes. */
temu_status temu_replay_irecv_post(temu_replay *r, int32_t rank, uint64_t req, temu_error *err);
/* Rank waits for request req (0: for all its outstanding operations). */
temu_status temu_replay_wait(temu_replay *r, int32_t rank, uint64_t req, temu_error *err);
/* Trace timestamps (ns, -1 unknown) of rank's next operation: the time
 * since its previous one ended is compute time (temu_vt_trace_time). */
temu_status temu_replay_trace_time(temu_replay *r, int32_t rank, int64_t begin_ns, int64_t end_ns,
                                   temu_error *err);

/* The stream records sends only (a live run's trace written before the
 * layer recorded receives): sends wait for no partner. */
void temu_replay_sends_only(temu_replay *r);

/* One-sided operation of `origin` on `target` (communicator ranks of the
 * window's group): TEMU_KIND_PUT or TEMU_KIND_GET, as mpi/account.c
 * models MPI_Put, MPI_Get and the accumulates. */
temu_status temu_replay_rma(temu_replay *r, int32_t comm, int32_t origin, int32_t target,
                            uint64_t bytes, temu_kind kind, temu_error *err);
temu_status temu_replay_rma_at(temu_replay *r, int32_t comm, int32_t origin, int32_t target,
                               uint64_t bytes, temu_kind kind, uint64_t addr, temu_error *err);

/*
 * One rank's view of a collective call (op: a temu_coll_op of
 * torusemu_coll.h), with the sizes in bytes the live layer takes from that
 * rank's arguments (coll/coll.h documents each operation):
 *   bcast, reduce, allreduce, scan, exscan   bytes = the whole buffer
 *   gather, scatter, allgather, alltoall,
 *   neighbour collectives                    bytes = one block
 *   gatherv (non-root)                       bytes = this rank's block
 *   scatterv (root), allgatherv, alltoallv,
 *   reduce_scatter                           blocks[j] = block of rank j
 * Reductions: `elem` is the element size (count = bytes / elem), `hw_op`
 * 1 for a predefined operation on a predefined type (what BG/Q's collective
 * network combined), `commutative` 1 unless the operation is not.
 */
typedef struct temu_replay_coll {
    int32_t op;       /* temu_coll_op                          */
    int32_t root;     /* rooted operations: communicator rank  */
    int32_t blocking; /* 0 for MPI_I* variants                 */
    int32_t hw_op;
    int32_t commutative;
    uint64_t bytes;
    uint64_t elem;
    const uint64_t *blocks; /* n or nnb entries (temu_coll_op_lists), or NULL */
    int32_t nnb;            /* neighbour collectives: out-degree */
    const int32_t *nb;      /* out-neighbours (communicator ranks, -1 = none) */
    /* What a live run's trace adds (all zero otherwise): the element
     * count when it is not bytes / elem, and where the data lay -- byte
     * offsets of `blocks` and the send and receive buffer addresses (the
     * receive buffer's only when it held the final data, recv_ready) --
     * for the BG/Q L2 slices, as in temu_replay_send_at. */
    uint64_t count;
    const uint64_t *offs;
    uint64_t send_base, recv_base;
    int32_t recv_ready;
} temu_replay_coll;

/* The lists a collective takes (temu_coll_op_lists):
 *   NONE        one size: bytes
 *   RANKS       blocks (and offs): one entry per communicator rank, or NULL
 *               (every block is bytes)
 *   NEIGHBORS   nb: nnb out-neighbours; blocks (and offs): nnb entries, or
 *               NULL (every block is bytes) */
#define TEMU_COLL_LISTS_NONE 0
#define TEMU_COLL_LISTS_RANKS 1
#define TEMU_COLL_LISTS_NEIGHBORS 2
/* Which lists collective op takes; -1 for an unknown op. */
int temu_coll_op_lists(int op);

/* Rank `me` (communicator rank) calls collective c on communicator comm:
 * the messages `me` sends in the live layer's algorithm are injected.  Every
 * member must call it, as in MPI; the BG/Q class-route ones are injected
 * whole at rank 0's call.  Refused (TEMU_EINVAL or TEMU_ERANGE, naming the
 * field) are: an unknown op, me or a root outside the communicator, nb or
 * nnb on an operation without neighbours, nnb < 0 or nb NULL with nnb > 0,
 * an out-neighbour outside -1..n-1 (-1: MPI_PROC_NULL), blocks on an
 * operation of one size, offs without blocks.  The lengths of blocks and
 * offs cannot be seen here: they must be those of temu_coll_op_lists. */
temu_status temu_replay_collective(temu_replay *r, int32_t comm, int32_t me,
                                   const temu_replay_coll *c, temu_error *err);

/* What a replay did. */
typedef struct temu_replay_stats {
    uint64_t sends, recvs;    /* point-to-point operations           */
    uint64_t rma;             /* one-sided operations                */
    uint64_t colls;           /* collective calls (one per rank)     */
    uint64_t messages;        /* messages injected into the store    */
    uint64_t unmatched_sends; /* sends still waiting for a receive   */
    uint64_t unmatched_recvs;
} temu_replay_stats;

void temu_replay_get_stats(const temu_replay *r, temu_replay_stats *st);

/* End of the stream: TEMU_EINVAL, naming the first one, when a send or a
 * receive is left without its partner. */
temu_status temu_replay_finish(temu_replay *r, temu_error *err);

/* Called now and then with operations done and the total (for progress
 * output of a long replay: an OTF2 trace, a workload); may be NULL. */
typedef void (*temu_progress_fn)(void *ctx, uint64_t done, uint64_t total);

#ifdef __cplusplus
}
#endif

#endif /* TORUSEMU_REPLAY_H */
