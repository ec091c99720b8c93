/*
 * tmpi.h - private declarations of the papi-torus MPI interposition layer
 * (libtorusemu_mpi).  Not installed.
 *
 * Modules:
 *   state.c      session, identity, the pause flag, communicator/window caches
 *   account.c    point-to-point and one-sided traffic -> the counter store
 *   acct_coll.c  collectives -> messages (coll.c) or class routes (classroute.c)
 *   persist.c    persistent send requests
 *   pmpi_*.c     the entry points (MPI_Send and PMPI_Send ...), each over the
 *                next definition; pmpi_env.c also MPI_Init, processor name,
 *                split by node, MPI_Pcontrol.  Fortran reaches them through
 *                Open MPI's bindings, which call PMPI_*.
 *   trace.c      `torusemu run --trace`: what is counted, as raw records
 */
#ifndef TMPI_H
#define TMPI_H

#include "torusemu.h"
#include "vt_feed.h"

#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include "classroute.h"
#include "coll.h"

#define TMPI_HIDDEN __attribute__((visibility("hidden")))
#define TMPI_EXPORT __attribute__((visibility("default")))

/* Process-wide state, set once by tmpi_start() at MPI_Init. */
typedef struct tmpi_state {
    temu_session *session; /* NULL: nothing is counted              */
    const temu_machine *m;
    const temu_family_info *fam; /* what the machine's family is (torusemu.h) */
    int32_t world_rank, world_size;
    int64_t node;         /* this rank's emulated node             */
    int64_t *rank_node;   /* node of every world rank (from the session's
                           * mapping at MPI_Init: no lookup per message) */
    int32_t want_payload; /* the model reads payload bytes/addresses */
    int comm_keyval, win_keyval;
} tmpi_state;

extern TMPI_HIDDEN tmpi_state tmpi_g;
/* MPI_Pcontrol(0) pauses counting in this process, MPI_Pcontrol(1) resumes. */
extern TMPI_HIDDEN int tmpi_paused;

/*
 * Stacking with other PMPI tools (doc/mpi.md, "Other tools").  Every call
 * the layer handles is exported twice: as MPI_X, for when this library comes
 * before another tool (or alone), and as PMPI_X, for when a tool that comes
 * first calls PMPI_X from its own MPI_X.  Each entry forwards to the next
 * definition of the same name after this library (dlsym(RTLD_NEXT)): the
 * other tool's MPI_X, or Open MPI's own.  Open MPI's Fortran bindings call
 * PMPI_X (nm -D libmpi_mpifh.so.40), so Fortran calls arrive here too.
 *
 * A call can pass through several of our entries: our MPI_Send, then the
 * other tool's MPI_Send, then our PMPI_Send; Open MPI's
 * PMPI_Sendrecv_replace calls PMPI_Sendrecv through its PLT.  Only the
 * outermost entry on the thread counts: tmpi_depth is how many of our
 * entries are active on this thread.  Initial-exec TLS: one load from %fs,
 * no __tls_get_addr (the library is preloaded or linked, never dlopen()ed
 * late).
 */
extern TMPI_HIDDEN __thread int tmpi_depth __attribute__((tls_model("initial-exec")));
/* Under --trace: CLOCK_MONOTONIC nanoseconds when the thread entered its
 * outermost entry (trace.c), the begin of the call a record describes. */
extern TMPI_HIDDEN __thread uint64_t tmpi_trace_t0 __attribute__((tls_model("initial-exec")));
extern TMPI_HIDDEN FILE *tmpi_trace_file;
TMPI_HIDDEN void tmpi_trace_enter(void);

/* --virtual-time (rank_vtime.c): per-rank virtual clocks.  tmpi_vt_on is set
 * once at MPI_Init.  The outermost entry of a call adds the thread's CPU
 * time since the last call returned (tmpi_vt_enter) and marks its end
 * (tmpi_vt_leave). */
extern TMPI_HIDDEN int tmpi_vt_on;
TMPI_HIDDEN void tmpi_vt_enter(void);
TMPI_HIDDEN void tmpi_vt_leave(void);
/* The rank's clock for PAPI components in the process (TEMU_VT_CLOCK_SYMBOL
 * in torusemu.h): ps, -1 without virtual time. */
TMPI_EXPORT int64_t torusemu_vt_clock_ps(void);
/* A poll (MPI_Test*, MPI_Iprobe, MPI_Improbe) found nothing; the call's
 * return lets the online model run on (rank_vtime.c, tmpi_vt_leave). */
TMPI_HIDDEN void tmpi_vt_poll_failed(void);
static inline void tmpi_vt_polled(int found)
{
    if (__builtin_expect(tmpi_vt_on, 0) && !found) {
        tmpi_vt_poll_failed();
    }
}
/* At MPI_Init, after the session is attached: 0, or -1 with a message */
TMPI_HIDDEN int tmpi_vt_start(void);
/* The clock in seconds (MPI_Wtime). */
TMPI_HIDDEN double tmpi_vt_seconds(void);
/* The clock in picoseconds, read by the program (MPI_Wtime, its own
 * clocks): outside MPI calls it first adds the thread's CPU time since the
 * last call or read, as the next call's entry would. */
TMPI_HIDDEN int64_t tmpi_vt_now_ps(void);
/* The program's own wall clocks (vt_clocks.c): virtual from the end of
 * MPI_Init (tmpi_clocks_start, after tmpi_vt_start) to MPI_Finalize
 * (tmpi_clocks_stop), unless $TORUSEMU_HOST_CLOCKS is 1. */
TMPI_HIDDEN void tmpi_clocks_start(void);
TMPI_HIDDEN void tmpi_clocks_stop(void);
/* The calling thread's next wait is a new one (vt_idle.c, idle_backoff.h):
 * an MPI call of it completed something. */
TMPI_HIDDEN void tmpi_vt_idle_restart(void);
/* The host's clock_gettime (the next definition, never ours). */
TMPI_HIDDEN int tmpi_host_clock_gettime(clockid_t id, struct timespec *ts);
/* A send's stamp (tmpi_acct_send).  In two steps when the buffer changes
 * during the call (MPI_Sendrecv_replace): the message's modelled latency,
 * then the stamp. */
TMPI_HIDDEN int64_t tmpi_vt_send_latency(const void *buf, int count, MPI_Datatype type, int dest,
                                         MPI_Comm comm);
TMPI_HIDDEN void tmpi_vt_stamp(int dest, int tag, MPI_Comm comm, int64_t latency_ps);
/* A receive on comm completed with *st: its stamp, the clock raised to the
 * message's arrival. */
TMPI_HIDDEN void tmpi_vt_recv(MPI_Comm comm, const MPI_Status *st);
/* A blocking collective on comm whose messages from this rank take
 * chain_ps one after another. */
TMPI_HIDDEN void tmpi_vt_coll(MPI_Comm comm, int64_t chain_ps);
/* The same for a non-blocking one started with request req: the clocks are
 * exchanged in the background and taken when req completes. */
TMPI_HIDDEN void tmpi_vt_icoll_start(MPI_Comm comm, int64_t chain_ps, MPI_Request req);
TMPI_HIDDEN void tmpi_vt_icoll_done(void *state);
TMPI_HIDDEN int64_t tmpi_vt_message_latency(const temu_message *msg);
/* A collective's message's share of its member's chain: its modelled
 * latency with the MPI software costs (o_s + latency + o_r off the node,
 * the shared-memory path's time, not under o_s, within it). */
TMPI_HIDDEN int64_t tmpi_vt_coll_latency(const temu_message *msg, int64_t latency_ps);
/* A message put on the network now (injected into the store): to the
 * online timing model when there is one ($TORUSEMU_VT_FEED). */
TMPI_HIDDEN void tmpi_vt_feed_message(const temu_message *msg);
/* The online model is on (tmpi_vt_on and a feed). */
extern TMPI_HIDDEN int tmpi_vt_online;
/* A point-to-point message sent now to world rank dst_rank, latency_ps
 * uncongested: into the feed (model: the network carries it; else it
 * arrives after latency_ps), named by the next tmpi_vt_stamp. */
TMPI_HIDDEN void tmpi_vt_feed_p2p(const temu_message *msg, int model, int32_t dst_rank,
                                  int64_t latency_ps);
/* One of a blocking collective's messages (prefix_ps: the latencies of it
 * and this rank's earlier ones); returns its sequence number. */
TMPI_HIDDEN uint64_t tmpi_vt_feed_coll(const temu_message *msg, int model, int64_t latency_ps,
                                       int64_t prefix_ps);
/* Before the host's blocking collective: this rank's messages first..+count
 * are fed; the model learns it is in the collective (vt_feed.h, COLL). */
TMPI_HIDDEN void tmpi_vt_coll_declare(MPI_Comm comm, int64_t chain_ps, uint64_t first,
                                      uint64_t count);
/* A collective was declared by this thread and not yet ended. */
TMPI_HIDDEN int tmpi_vt_coll_declared(void);
/* After it: every member leaves at the latest member's exit. */
TMPI_HIDDEN void tmpi_vt_coll_end(MPI_Comm comm);
/* Before the host's call of a blocking receive: what it takes before it
 * returns (vt_feed.h, RECV); MPI_Recv's, MPI_Sendrecv's: one message from
 * source of comm. */
TMPI_HIDDEN void tmpi_vt_recv_begin(const tmpi_vt_want *want, int nwant);
TMPI_HIDDEN void tmpi_vt_recv_begin1(int source, MPI_Comm comm);
/* A blocking send with the online model on: fed before the host's call
 * (tmpi_vt_send_begin true), completed after it (tmpi_vt_send_done: at
 * the model's delivery from the eager limit up). */
TMPI_HIDDEN int tmpi_vt_send_begin(void);
TMPI_HIDDEN void tmpi_vt_send_posted(void); /* fed, before the host's call */
TMPI_HIDDEN void tmpi_vt_send_done(void);
/* MPI_Finalize: this rank sends nothing more. */
TMPI_HIDDEN void tmpi_vt_finalize(void);
/* A communicator was made (outermost constructor call): its hidden twin. */
TMPI_HIDDEN void tmpi_vt_comm_new(MPI_Comm comm);
/* Around a call that is collective over comm and moves no modelled traffic
 * (communicator and window constructors, MPI_Win_fence, MPI_Win_free): with
 * the online model on, the model learns the rank is in it (a blocking
 * collective of no messages), so a member waiting in the host's MPI for the
 * others does not hold the model back; every member leaves at the latest
 * member's clock.  tmpi_vt_sync_begin returns whether it declared one,
 * which tmpi_vt_sync_end takes. */
TMPI_HIDDEN int tmpi_vt_sync_begin(MPI_Comm comm);
TMPI_HIDDEN void tmpi_vt_sync_end(MPI_Comm comm, int declared);

/* Virtual time is kept for this call (outermost of our entries). */
static inline int tmpi_vt_active(void)
{
    return tmpi_vt_on && tmpi_depth == 1;
}

/* This call is counted: a session, not paused, outermost of our entries. */
static inline int tmpi_counting(void)
{
    return tmpi_g.session != NULL && !tmpi_paused && tmpi_depth == 1;
}

/* The next definition of name after this library; aborts with a message
 * when there is none (the layer is loaded without libmpi). */
TMPI_HIDDEN void *tmpi_resolve(void **slot, const char *name);
static inline void *tmpi_next_fn(void **slot, const char *name)
{
    void *f = __atomic_load_n(slot, __ATOMIC_RELAXED);
    return f != NULL ? f : tmpi_resolve(slot, name);
}

#define TMPI_UNPAREN(...) __VA_ARGS__

/* A run across hosts acknowledges other hosts' updates lazily (hosts.c,
 * doc/mpi.md "What a reader sees"): tmpi_hosts_lazy is set while it does;
 * every outermost call first waits for the acknowledgements of what
 * earlier calls completed (enter), and on its way out makes what it sent
 * due unless it only started a non-blocking operation (leave; such calls
 * set tmpi_hosts_started). */
extern TMPI_HIDDEN int tmpi_hosts_lazy;
extern TMPI_HIDDEN __thread int tmpi_hosts_started __attribute__((tls_model("initial-exec")));
TMPI_HIDDEN void tmpi_hosts_enter(void);
TMPI_HIDDEN void tmpi_hosts_leave(void);

/* One generated entry point (MPI_X or PMPI_X): forward to the body with the
 * next definition of the same symbol, one level deeper. */
#define TMPI_ENTRY_POINT(PREFIX, NAME, PARAMS, ARGS)                                               \
    int PREFIX##NAME PARAMS                                                                        \
    {                                                                                              \
        static void *next_;                                                                        \
        tmpi_fn_##NAME fn_ = (tmpi_fn_##NAME)tmpi_next_fn(&next_, #PREFIX #NAME);                  \
        if (__builtin_expect(tmpi_trace_file != NULL, 0)) {                                        \
            tmpi_trace_enter();                                                                    \
        }                                                                                          \
        if (__builtin_expect(tmpi_vt_on, 0) && tmpi_depth == 0) {                                  \
            tmpi_vt_enter();                                                                       \
        }                                                                                          \
        if (__builtin_expect(tmpi_hosts_lazy, 0) && tmpi_depth == 0) {                             \
            tmpi_hosts_enter();                                                                    \
        }                                                                                          \
        tmpi_depth++;                                                                              \
        int rc_ = tmpi_body_##NAME(fn_, TMPI_UNPAREN ARGS);                                        \
        tmpi_depth--;                                                                              \
        if (__builtin_expect(tmpi_hosts_lazy, 0) && tmpi_depth == 0) {                             \
            tmpi_hosts_leave();                                                                    \
        }                                                                                          \
        if (__builtin_expect(tmpi_vt_on, 0) && tmpi_depth == 0) {                                  \
            tmpi_vt_leave();                                                                       \
        }                                                                                          \
        return rc_;                                                                                \
    }

/*
 * TMPI_ENTRY(Send, (params), (args)) { body } defines MPI_Send and
 * PMPI_Send; the body runs the real call as tmpi_next_(args) and counts
 * when tmpi_counting().
 */
#define TMPI_ENTRY(NAME, PARAMS, ARGS)                                                             \
    typedef int(*tmpi_fn_##NAME) PARAMS;                                                           \
    static inline __attribute__((always_inline)) int tmpi_body_##NAME(tmpi_fn_##NAME tmpi_next_,   \
                                                                      TMPI_UNPAREN PARAMS);        \
    TMPI_ENTRY_POINT(MPI_, NAME, PARAMS, ARGS)                                                     \
    TMPI_ENTRY_POINT(PMPI_, NAME, PARAMS, ARGS)                                                    \
    static inline __attribute__((always_inline)) int tmpi_body_##NAME(tmpi_fn_##NAME tmpi_next_,   \
                                                                      TMPI_UNPAREN PARAMS)

/* Where a collective (or MPI_Sendrecv) returns: the overflow crossings
 * other processes caused for this thread's watches reach its handler now
 * at the latest, even if their signal is still on its way (the crossing
 * was recorded before those processes sent what completed the call). */
static inline void tmpi_sync_point(void)
{
    if (tmpi_g.session != NULL) {
        temu_watch_deliver_own(tmpi_g.session);
    }
}

/* The emulated node is known (processor name, split by node). */
static inline int tmpi_identity_known(void)
{
    return tmpi_g.session != NULL;
}

/* A run across hosts (hosts.c): asked for by the launcher's environment;
 * started at MPI_Init once s (this host's store) is attached (0, or -1
 * after saying why); ended in MPI_Finalize before Open MPI's. */
TMPI_HIDDEN int tmpi_hosts_wanted(void);
TMPI_HIDDEN int tmpi_hosts_start(temu_session *s, int32_t rank, int32_t size);
TMPI_HIDDEN void tmpi_hosts_finish(void);
/* For host_feed.c: the hosts' private communicator (MPI_COMM_NULL: not a
 * split run), its number of hosts, each host's agent (world rank), a
 * rank's host, this thread's tag for answers; Open MPI's own calls, past
 * this library's wrappers (the layer's traffic is none of the program's). */
TMPI_HIDDEN int tmpi_hosts_split(void);
TMPI_HIDDEN MPI_Comm tmpi_hosts_comm(void);
TMPI_HIDDEN int32_t tmpi_hosts_count(void);
TMPI_HIDDEN int32_t tmpi_hosts_leader(int32_t host);
TMPI_HIDDEN int32_t tmpi_hosts_rank_host(int32_t rank);
TMPI_HIDDEN int tmpi_hosts_ack_tag(void);
TMPI_HIDDEN int tmpi_ompi_send(const void *buf, int n, MPI_Datatype t, int to, int tag, MPI_Comm c);
TMPI_HIDDEN int tmpi_ompi_recv(void *buf, int n, MPI_Datatype t, int from, int tag, MPI_Comm c,
                               MPI_Status *st);
/* The layer's own messages across hosts (host_wire.c), on TCP sockets of
 * its own so that the agents make no MPI call: open (collective over comm,
 * at MPI_Init; 0, or -1 with why) exchanges every rank's address; send
 * blocks until the n words are written (0 or -1); take returns the first
 * waiting message from world rank `from` (-1: any) with tag, or NULL if
 * none waits; wait waits for one (NULL once the wire is closed); both give
 * its words (a block the caller frees), their number and its source. */
TMPI_HIDDEN int tmpi_wire_open(MPI_Comm comm, int32_t rank, int32_t size, char *why, size_t len);
TMPI_HIDDEN int tmpi_wire_send(int32_t to, int32_t tag, const uint64_t *w, size_t n);
TMPI_HIDDEN uint64_t *tmpi_wire_take(int32_t from, int32_t tag, size_t *n, int32_t *source);
TMPI_HIDDEN uint64_t *tmpi_wire_wait(int32_t from, int32_t tag, size_t *n, int32_t *source);
TMPI_HIDDEN void tmpi_wire_close(void);
/* `run --sample` across real hosts (host_copy.c): each host's agent keeps
 * the launcher's copy of its store in step (TORUSEMU_HOSTS_COPY_NS; start
 * does nothing without it): start (the agent's rank, at MPI_Init; 0, or
 * -1 with why), the agent's round (1 if it did anything; stopping: the
 * last), ended (the last sent, and host 0's: every host's taken), close. */
TMPI_HIDDEN int tmpi_host_copy_start(temu_session *own, int32_t host, int32_t nhosts, char *why,
                                     size_t len);
TMPI_HIDDEN int tmpi_host_copy_serve(int stopping);
TMPI_HIDDEN int tmpi_host_copy_ended(void);
TMPI_HIDDEN void tmpi_host_copy_close(void);

/* The online model's feed across hosts (host_feed.c): every rank of a
 * split run, at MPI_Init: host 0's ranks map the launcher's feed at path,
 * the others their host's copy, which its agent relays (NULL with why in
 * every rank if any cannot); the agent's round (1 if it did anything) and
 * whether the relay has ended once stopping; a communicator's model id
 * from host 0; at the end, the copy removed. */
TMPI_HIDDEN tmpi_vt_feed *tmpi_host_feed_open(const char *path, int32_t rank, int32_t size,
                                              char *why, size_t len);
TMPI_HIDDEN int tmpi_host_feed_serve(int stopping);
TMPI_HIDDEN int tmpi_host_feed_ended(void);
TMPI_HIDDEN uint64_t tmpi_host_feed_comm_id(void);
TMPI_HIDDEN void tmpi_host_feed_close(void);

/* After PMPI_Init/_Init_thread succeeded: attach the session named by
 * $TORUSEMU_SESSION, register the rank, set the identity.  Idempotent. */
TMPI_HIDDEN void tmpi_start(void);

/* Cached facts about a communicator (attribute on it, world is static). */
typedef struct tmpi_comm {
    int32_t size, rank;
    int32_t inter;       /* intercommunicator                       */
    int32_t spans_world; /* intracommunicator holding every rank     */
    int32_t *world;      /* local group: comm rank -> world rank, NULL = identity */
    int32_t rsize;
    int32_t *rworld; /* intercomm remote group -> world rank     */
    /* BG/Q class routes: distinct nodes, box shape, cached trees */
    int32_t nnodes;
    int64_t *nodes;
    int32_t box;
    tmpi_trees trees;
} tmpi_comm;

/* NULL when comm is invalid or the layer is off. */
TMPI_HIDDEN tmpi_comm *tmpi_comm_get(MPI_Comm comm);
/* World rank of communicator rank r as a destination (remote group for an
 * intercommunicator); -1 if outside. */
TMPI_HIDDEN int32_t tmpi_comm_peer(const tmpi_comm *c, int32_t r);
/* World rank of a local-group rank; -1 if outside. */
TMPI_HIDDEN int32_t tmpi_comm_local(const tmpi_comm *c, int32_t r);
/* Distinct nodes of the communicator (computed on first use). */
TMPI_HIDDEN int tmpi_comm_nodes(tmpi_comm *c);

/* Window: world rank of each rank of the window's group. */
typedef struct tmpi_win {
    int32_t size;
    int32_t *world;
    /* one-sided transactions issued under the online model and not yet
     * completed by a synchronisation call: feed sequence numbers and their
     * targets' world ranks (rank_vtime.c, tmpi_vt_rma_*) */
    uint64_t *rma_seq;
    int32_t *rma_target;
    size_t nrma, caprma;
    /* made under the online model: a private duplicate of its
     * communicator, on which its fences and its free are declared
     * (pmpi_win.c) */
    MPI_Comm group;
    int has_group;
} tmpi_win;
TMPI_HIDDEN tmpi_win *tmpi_win_get(MPI_Win win);

/* A one-sided transaction of window w to world rank target put on the
 * network now: into the online model's feed, remembered on w until a
 * synchronisation call completes it (no-op without the online model). */
TMPI_HIDDEN void tmpi_vt_rma_issue(tmpi_win *w, int32_t target, const temu_message *msg);
/* A synchronisation call on window w completes the transactions to world
 * rank target (-1: all of them): the clock moves to the latest completion the
 * model gives them (both directions arrived). */
TMPI_HIDDEN void tmpi_vt_rma_complete(tmpi_win *w, int32_t target);

/* ----------------------------------------------------------- accounting */

/* A datatype that may be queried: arguments that are insignificant at the
 * calling rank (a non-root's receive type ...) are often MPI_DATATYPE_NULL,
 * and querying that would raise an MPI error the program never caused. */
static inline int tmpi_type_valid(MPI_Datatype t)
{
    return t != NULL && t != MPI_DATATYPE_NULL;
}

/* Look up the sizes of the common predefined datatypes (MPI_Init). */
TMPI_HIDDEN void tmpi_types_init(void);
/* Bytes of count elements of type; 0 on error. */
TMPI_HIDDEN uint64_t tmpi_type_bytes(int count, MPI_Datatype type);
/* Address of the bytes of (buf, count, type) when they are one contiguous
 * run in memory, else NULL (derived types with holes: no payload). */
TMPI_HIDDEN const void *tmpi_contiguous(const void *buf, int count, MPI_Datatype type);

/* The message a send of (buf, count, type) to dest of comm puts on the
 * emulated machine (nodes, bytes, payload when inspected); 0 when nothing
 * is sent (MPI_PROC_NULL, unknown peer or datatype). */
TMPI_HIDDEN int tmpi_send_message(const void *buf, int count, MPI_Datatype type, int dest,
                                  MPI_Comm comm, temu_message *msg);
/* One point-to-point message from this rank to dest of comm, counted or
 * traced (tmpi_sending()).  dest may be MPI_PROC_NULL (ignored).  tag and
 * req (the request of a non-blocking send, NULL for a blocking one) are for
 * the trace. */
TMPI_HIDDEN void tmpi_acct_send(const void *buf, int count, MPI_Datatype type, int dest, int tag,
                                MPI_Comm comm, const MPI_Request *req);
/* The same under virtual time (tmpi_vt_active()): counted or traced when
 * `sending`, and always stamped; the message is built once for both.  A
 * separate entry so that the counting-only path above tests nothing of
 * virtual time (the send path is hot). */
TMPI_HIDDEN void tmpi_acct_send_vt(const void *buf, int count, MPI_Datatype type, int dest, int tag,
                                   MPI_Comm comm, const MPI_Request *req, int sending);
/* Same, as a plan computed now and applied later (MPI_Sendrecv_replace
 * overwrites the buffer before the message can be counted). */
typedef struct tmpi_pending {
    int valid;
    temu_message msg;
    temu_plan plan;
    int32_t dst;      /* world rank, for the trace        */
    const void *addr; /* the data's address, for the trace */
    MPI_Comm comm;    /* communicator, destination and tag, for the trace */
    int dest, tag;
} tmpi_pending;
TMPI_HIDDEN void tmpi_plan_send(const void *buf, int count, MPI_Datatype type, int dest, int tag,
                                MPI_Comm comm, tmpi_pending *p);
TMPI_HIDDEN void tmpi_apply_pending(const tmpi_pending *p);

/* World rank of destination dest of comm, or -1. */
TMPI_HIDDEN int32_t tmpi_send_dest(int dest, MPI_Comm comm);

/* Persistent sends: remember at *_init, count at MPI_Start. */
TMPI_HIDDEN void tmpi_persist_add(MPI_Request req, const void *buf, int count, MPI_Datatype type,
                                  int dest, int tag, MPI_Comm comm);
TMPI_HIDDEN void tmpi_persist_start(MPI_Request req);
TMPI_HIDDEN void tmpi_persist_remove(MPI_Request req);

/* One-sided operations. */
typedef enum tmpi_rma_op {
    TMPI_RMA_PUT,     /* MPI_Put, MPI_Rput                              */
    TMPI_RMA_GET,     /* MPI_Get, MPI_Rget                              */
    TMPI_RMA_ACC,     /* MPI_Accumulate, MPI_Raccumulate                 */
    TMPI_RMA_GET_ACC, /* MPI_Get_accumulate, MPI_Rget_accumulate,
                       * MPI_Fetch_and_op: operands out, result back    */
    TMPI_RMA_CAS      /* MPI_Compare_and_swap                           */
} tmpi_rma_op;
TMPI_HIDDEN void tmpi_acct_rma(tmpi_rma_op op, const void *origin, int origin_count,
                               MPI_Datatype origin_type, int result_count, MPI_Datatype result_type,
                               MPI_Op rop, int target, MPI_Win win);

/* ----------------------------------------------------------- collectives */

/* Everything the collective accounting needs from one call, with C
 * handles; the C and Fortran wrappers fill it in. */
typedef struct tmpi_call {
    temu_coll_op op;
    MPI_Comm comm;
    int blocking;
    const void *sendbuf; /* MPI_IN_PLACE allowed                     */
    const void *recvbuf;
    int sendcount, recvcount;
    MPI_Datatype sendtype, recvtype;
    const int *sendcounts, *sdispls, *recvcounts, *rdispls;
    const MPI_Aint *sdispls_aint;              /* neighbor_alltoallw: byte displacements */
    const MPI_Datatype *sendtypes, *recvtypes; /* alltoallw, neighbor_alltoallw */
    int displs_bytes;                          /* *w variants: displacements in bytes */
    int root;
    MPI_Op rop;           /* reductions                          */
    MPI_Request *request; /* a non-blocking one's request         */
    int vt_pass;          /* TMPI_VT_PASS_* (online model: blocking ones in two passes) */
} tmpi_call;

/* A blocking collective under the online model is accounted twice: its
 * messages into the model's feed before the host's call (BEFORE), its
 * counters after it (AFTER); else once (ALL). */
enum { TMPI_VT_PASS_ALL = 0, TMPI_VT_PASS_BEFORE, TMPI_VT_PASS_AFTER };

TMPI_HIDDEN void tmpi_acct_coll(const tmpi_call *call);
/* Out-degree of a communicator's process topology, -1 without one. */
TMPI_HIDDEN int tmpi_neighbor_count(MPI_Comm comm);

/* Emulated node name of this rank into buf (len bytes incl. the NUL);
 * returns its length, or -1 when the node is not known. */
TMPI_HIDDEN int tmpi_node_name(char *buf, int len);
/* MPI_Comm_split_type for the split types that mean "same node": the
 * communicator is split by emulated node.  Returns 1 and sets *rc when it
 * handled the call, 0 when the real split applies. */
TMPI_HIDDEN int tmpi_split_by_node(MPI_Comm comm, int split_type, int key, MPI_Comm *newcomm,
                                   int *rc);

/* ----------------------------------------------------------- tracing */

/* `torusemu run --trace DIR` (trace.c): the open raw trace of this rank
 * (tmpi_trace_file, declared above), NULL when not tracing.  Each counted
 * operation is also written. */
TMPI_HIDDEN void tmpi_trace_start(int32_t world_rank);
/* Tracing this call: a trace is written and this is the outermost of our
 * entries (one load and a branch when --trace is off).  Paused or not: a
 * send made while MPI_Pcontrol(0) pauses counting is in the trace, marked
 * uncounted, so its receive has a partner in a replay. */
static inline int tmpi_tracing(void)
{
    return tmpi_trace_file != NULL && tmpi_depth == 1;
}
/* Receives and requests are followed: for the trace or the virtual clock. */
static inline int tmpi_following(void)
{
    return tmpi_tracing() || tmpi_vt_active();
}
/* Account (counting) or at least trace (tracing while paused) a send. */
static inline int tmpi_sending(void)
{
    return tmpi_counting() || tmpi_tracing();
}
/* Send wrappers: count, trace and stamp one successful send. */
static inline void tmpi_after_send(const void *buf, int count, MPI_Datatype type, int dest, int tag,
                                   MPI_Comm comm, const MPI_Request *req)
{
    if (__builtin_expect(tmpi_vt_active(), 0)) {
        tmpi_acct_send_vt(buf, count, type, dest, tag, comm, req, tmpi_sending());
    } else if (tmpi_sending()) {
        tmpi_acct_send(buf, count, type, dest, tag, comm, req);
    }
}
/* req: the trace's request id of a non-blocking send, 0 for a blocking one */
TMPI_HIDDEN void tmpi_trace_send(MPI_Comm comm, int dest, int32_t dst_world, int tag,
                                 uint64_t bytes, const void *payload, uint64_t req);
/* A receive on comm completed with *st (req as for a send). */
TMPI_HIDDEN void tmpi_trace_recv(MPI_Comm comm, const MPI_Status *st, uint64_t req);
/* A record holding only a request id (TMPI_TRACE_ISEND_DONE, _IRECV_POST). */
TMPI_HIDDEN void tmpi_trace_req(uint32_t type, uint64_t req);
/* Non-blocking requests followed to their completion (trace_req.c). */
enum { TMPI_TREQ_ISEND = 1, TMPI_TREQ_IRECV, TMPI_TREQ_PRECV, TMPI_TREQ_ICOLL };
/* Follow request h; returns its trace id (0 for a persistent receive,
 * which gets one at each start). */
TMPI_HIDDEN uint64_t tmpi_treq_add(MPI_Request h, int kind, MPI_Comm comm);
/* A non-blocking collective's request: tmpi_vt_icoll_done(state) when it
 * completes (virtual time). */
TMPI_HIDDEN void tmpi_treq_add_icoll(MPI_Request h, void *state);
TMPI_HIDDEN void tmpi_treq_start(MPI_Request h);
TMPI_HIDDEN void tmpi_treq_done(MPI_Request h, const MPI_Status *st);
TMPI_HIDDEN void tmpi_treq_forget(MPI_Request h);
/* A followed receive's source (for tmpi_vt_wait_begin). */
TMPI_HIDDEN void tmpi_treq_source(MPI_Request h, int source, MPI_Comm comm);
/* With the online model, before a wait on n requests (all: MPI_Waitall;
 * else MPI_Wait, _Waitany, _Waitsome): declare the receive it is, if it
 * takes a message: all takes one per active receive request (from its
 * source), any one if every active request is a receive. */
TMPI_HIDDEN void tmpi_vt_wait_begin(const MPI_Request *h, int n, int all);
TMPI_HIDDEN void tmpi_trace_rma(int32_t target_world, uint64_t bytes, const void *payload,
                                int kind);
TMPI_HIDDEN void tmpi_trace_coll(const tmpi_comm *c, const tmpi_coll *k, const tmpi_coll_env *env,
                                 const void *send_base, const void *recv_base, int recv_ready);

/* Warn once on stderr (rank 0 only unless every_rank). */
TMPI_HIDDEN void tmpi_warn_once(int *flag, const char *what);

#endif
