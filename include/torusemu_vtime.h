/*
 * torusemu_vtime.h - ranks in virtual time (doc/replay.md, "Virtual time").
 *
 * Messages recorded by a replay are added to the session's store as their
 * packets cross in virtual time (not when the replay reads them): a link's
 * counters when the model moves the packets over that link, a node's
 * counters as its packets leave or enter it (doc/series.md, "When traffic
 * is counted"), so a time series of the store shows traffic as it happens;
 * the counts at the end are those of a replay without virtual time.
 * Collectives' messages are always added so; BG/Q class-route collectives
 * when the replay reads them.
 *
 * A program per rank -- compute gaps, point-to-point operations, one-sided
 * operations, collectives decomposed into rounds of messages -- recorded
 * first (by the replay engine: temu_replay_set_vtime), then executed over
 * the packet-level timing model (torusemu_timing.h):
 *
 *   - every rank has a clock (picoseconds); the rank or network event with
 *     the smallest time goes first (network first at equal times, then the
 *     lower rank), so the run is conservative and deterministic;
 *   - a message's packets enter the model at its sender's clock; the
 *     replies (Gemini responses, Blue Gene remote gets and acknowledgements)
 *     when the message's last packet has arrived;
 *   - a receive completes at max(the rank's clock at the receive or wait,
 *     arrival of the message's last packet);
 *   - a send below the machine's eager limit completes when its packets
 *     have left the node (the node's injection channel serializes them, in
 *     order of the sends); at or above it (rendezvous) when the message
 *     and its replies have been delivered;
 *   - one-sided operations are non-blocking and complete at the origin's
 *     next collective, wait-all or end;
 *   - a collective's round-k sends wait for the rank's receives of rounds
 *     below k; the call completes when the rank's receives have arrived and
 *     its sends completed.  Collectives off the torus (BG/Q class routes,
 *     BG/P's collective network) complete when the last member has entered.
 */
#ifndef TORUSEMU_VTIME_H
#define TORUSEMU_VTIME_H

#include "torusemu.h"
#include "torusemu_replay.h"
#include "torusemu_timing.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct temu_vt temu_vt;

/* A timing run over session s's machine and rank mapping; tc NULL: the
 * machine's own parameters (temu_tm_config_default).  tc->level picks the
 * model level the messages cross (temu_tm_level: the packet model, or the
 * flow model of torusemu_flow.h). */
temu_status temu_vt_create(temu_session *s, const temu_tm_config *tc, temu_vt **out,
                           temu_error *err);
void temu_vt_free(temu_vt *v);

/* Record blocking sends and receives as non-blocking ones completed at the
 * rank's next wait-all, collective or end (the built-in patterns: each
 * rank posts its step's messages at once, as MiniGhost's and GPCNeT's
 * kernels do). */
void temu_vt_set_post_all(temu_vt *v, int on);
/* A source of operations recorded as the ranks reach them instead of all
 * before the run (memory bounded by the work outstanding, not the whole
 * workload; doc/performance.md, "Memory"): when one of ranks first ..
 * first + n - 1 has executed every operation recorded for it, fn records
 * the next round (every rank's operations of one step, through the
 * temu_vt_* calls or a replay) and sets *more to 1, or records nothing
 * and sets *more to 0 when none are left.  A round must leave no
 * operation waiting when its ranks are past it (end with a wait-all, as
 * the built-in patterns' steps do): a message is released once its
 * packets and replies have arrived and its sender and receiver are past
 * the rounds that recorded it (a collective's: every rank of the source),
 * whatever the messages before it; a receive slot with its message,
 * collectives once every rank is past their round.  Only on a virtual
 * time with nothing recorded yet. */
typedef temu_status (*temu_vt_source_fn)(void *ctx, int *more, temu_error *err);
temu_status temu_vt_set_source(temu_vt *v, int32_t first, int32_t n, temu_vt_source_fn fn,
                               void *ctx, temu_error *err);
/* Several sources at once, on disjoint ranks (the jobs of a mix): each
 * records into its own window of message, receive slot and collective
 * ids, source k's all before source k + 1's, so the ids keep the order
 * they have when the sources are recorded whole one after the other (the
 * model orders equal times by them: the same results).  Each window holds
 * 2^30 / (n rounded up to a power of two) ids; a source that records more
 * fails with TEMU_ERANGE.  Rounds are released per source.  A collective
 * whose communicator has more members than the source recording it has
 * ranks spans sources: its other members enter it in other sources'
 * rounds (a round may end with it open), and no source releases a round
 * until every member has completed it; every source's first round is
 * recorded before any rank runs, so such a collective can open a run. */
typedef struct temu_vt_source {
    int32_t first, n; /* its ranks: first .. first + n - 1 */
    temu_vt_source_fn fn;
    void *ctx;
    /* NULL, or its n ranks in any order (first unused): a source on ranks
     * that are no range (GPCNeT's canaries and congestors, gpcnet.h) */
    const int32_t *ranks;
} temu_vt_source;
temu_status temu_vt_set_sources(temu_vt *v, int32_t n, const temu_vt_source *src, temu_error *err);
/* Collective calls recorded whose instance some member has not called
 * yet: a source ends its round only when this is 0 (every member's call
 * in the same round; a trace read in chunks reads on until then). */
int64_t temu_vt_colls_open(const temu_vt *v);
/* From a source's fn: rank gets no more operations from its source; it
 * ends once it has executed those it has (a rank the source would give
 * nothing more, whose running out must not ask for another round). */
void temu_vt_rank_retire(temu_vt *v, int32_t rank);
/* Has rank executed its last operation (during a run: by the virtual time
 * the run has reached; a rank of a source: the source has no more for it)? */
int temu_vt_rank_ended(const temu_vt *v, int32_t rank);
/* Multiply the compute gaps recorded from now on (temu_vt_compute,
 * temu_vt_trace_time) by scale (>= 0; 0: communication only). */
temu_status temu_vt_set_compute_scale(temu_vt *v, double scale, temu_error *err);

/* ---- recording: world ranks, each rank's operations in program order ---- */

/* Compute for ps picoseconds (times the compute scale). */
temu_status temu_vt_compute(temu_vt *v, int32_t rank, int64_t ps, temu_error *err);
/* Trace timestamps of the next operation of rank (nanoseconds, -1 when
 * the trace does not give it): the gap between the end of the rank's
 * previous operation and this one's begin becomes compute time.  An
 * operation whose begin is unknown (a trace stamps blocking receives and
 * waits when they return) gets no gap: the time before it counts as time
 * in MPI. */
temu_status temu_vt_trace_time(temu_vt *v, int32_t rank, int64_t begin_ns, int64_t end_ns,
                               temu_error *err);

/* Point-to-point, matched by (comm, source, destination, tag) in order
 * (MPI's non-overtaking rule); comm ranks name the match, world ranks the
 * nodes.  req 0: blocking; else a request completed by temu_vt_wait. */
typedef struct temu_vt_p2p {
    int32_t comm, src, dst, tag; /* the match: communicator and its ranks */
    int32_t wsrc, wdst;          /* world ranks                           */
    uint64_t bytes;
    uint64_t req;
    uint64_t payload; /* sends: the payload pointer (0: none), read when the  */
                      /* message is sent in virtual time: Gemini compression */
                      /* of its packets and counts, BG/Q L2 lines            */
    int32_t inject;   /* sends: 1 to add the message to the session's store  */
                      /* as it crosses (temu_inject_ranks' counts), 0 not to */
} temu_vt_p2p;
temu_status temu_vt_send(temu_vt *v, const temu_vt_p2p *p, temu_error *err);
temu_status temu_vt_recv(temu_vt *v, const temu_vt_p2p *p, temu_error *err);
/* A non-blocking receive posted by world rank `rank` whose match the trace
 * gives only at its completion (temu_vt_recv with the same req). */
temu_status temu_vt_recv_post(temu_vt *v, int32_t rank, uint64_t req, temu_error *err);
/* Wait for request req of rank (0: every outstanding operation). */
temu_status temu_vt_wait(temu_vt *v, int32_t rank, uint64_t req, temu_error *err);
/* A one-sided operation (TEMU_KIND_PUT or TEMU_KIND_GET) of world rank
 * origin on target (payload, inject: as for a send). */
temu_status temu_vt_rma(temu_vt *v, int32_t origin, int32_t target, uint64_t bytes, temu_kind kind,
                        uint64_t payload, int inject, temu_error *err);
/* Member `me` (world rank `rank`) of communicator comm (n members) enters
 * its next collective on comm; sync_only: the collective does not use the
 * torus.  Then temu_vt_coll_msg for each message it sends. */
temu_status temu_vt_coll_enter(temu_vt *v, int32_t comm, int32_t n, int32_t me, int32_t rank,
                               int sync_only, temu_error *err);
temu_status temu_vt_coll_msg(temu_vt *v, int32_t comm, int32_t me, int32_t to, int32_t wto,
                             uint64_t bytes, int32_t round, uint64_t payload, temu_error *err);
/* The same for a message of another kind than TEMU_KIND_P2P (an all-to-all
 * block: TEMU_KIND_ALLTOALL, which BG/Q sends by its many-to-many
 * protocol). */
temu_status temu_vt_coll_msg_kind(temu_vt *v, int32_t comm, int32_t me, int32_t to, int32_t wto,
                                  uint64_t bytes, temu_kind kind, int32_t round, uint64_t payload,
                                  temu_error *err);
/* fn(ctx, s) (s: the run's session) once every member of the collective
 * member `me` of comm last entered has entered it, in virtual time (the
 * replay counts a collective on BG/Q's class routes then, so a series
 * snapshot sees it when it happens); nonzero: out of memory, which stops
 * the run.  release(ctx), if not NULL, when the collective is forgotten
 * (at once on failure). */
typedef int (*temu_vt_coll_fn)(void *ctx, temu_session *s);
temu_status temu_vt_coll_at_end(temu_vt *v, int32_t comm, int32_t me, temu_vt_coll_fn fn,
                                void (*release)(void *ctx), void *ctx, temu_error *err);
/* Note the rank's clock when it gets here (temu_vt_marks). */
temu_status temu_vt_mark(temu_vt *v, int32_t rank, temu_error *err);

/* ---- running ---- */

/* Execute every rank's program; TEMU_EINVAL naming a rank that waits for
 * ever (a receive without its send, a collective some member never
 * enters). */
temu_status temu_vt_run(temu_vt *v, temu_error *err);

/* Called during temu_vt_run whenever the virtual time passes a multiple of
 * interval_ps (and once at the end with the final time), before anything
 * later happens: the model's counters are then those of that instant, and
 * the store holds every packet that started onto a channel by then and
 * every phit (Gemini) or chunk (Blue Gene) sent by then. */
typedef temu_status (*temu_vt_tick_fn)(void *ctx, temu_vt *v, int64_t t_ps, temu_error *err);
temu_status temu_vt_set_tick(temu_vt *v, int64_t interval_ps, temu_vt_tick_fn fn, void *ctx,
                             temu_error *err);

/* Where a run is, for a progress display: the engine's loop calls the
 * watch's progress function every `every` steps (a step: one rank's
 * operations up to its next wait, or the network's events at one
 * instant), so a display costs one counter per step; results do not
 * depend on it. */
typedef struct temu_vt_progress {
    int64_t now_ps;             /* virtual time reached                              */
    uint64_t steps;             /* steps of the engine's loop so far                 */
    uint64_t events;            /* events the timing model has processed             */
    uint64_t ops_done;          /* rank operations executed (temu_vt_rank_stats.ops) */
    uint64_t ops_total;         /* rank operations recorded                          */
    uint64_t packets_delivered; /* packets (trains: each packet) delivered   */
    /* packets the whole run will deliver, extrapolated: those sent so far,
     * plus for the payload bytes not yet sent as many packets per byte as
     * so far, and for the messages not yet arrived as many replies per
     * byte as those that have.  Exact once every message has arrived. */
    uint64_t packets_expected;
} temu_vt_progress;
typedef void (*temu_vt_progress_fn)(void *ctx, const temu_vt_progress *p);
typedef struct temu_vt_watch {
    uint64_t every;               /* steps between calls (0: no calls)        */
    temu_vt_progress_fn progress; /* may be NULL                              */
    /* temu_gpcnet_impact: called before each of its runs with what it is
     * ("isolated canaries", ...); may be NULL */
    void (*phase)(void *ctx, const char *what);
    void *ctx;
} temu_vt_watch;
/* Watch v's run (w copied; NULL: no more watching). */
void temu_vt_set_watch(temu_vt *v, const temu_vt_watch *w);

typedef struct temu_vt_rank_stats {
    int64_t end_ps;     /* the rank's clock after its last operation       */
    int64_t compute_ps; /* of which computing                              */
    int64_t comm_ps;    /* of which in MPI: end_ps - compute_ps            */
    uint64_t ops;       /* operations executed                             */
} temu_vt_rank_stats;

int32_t temu_vt_nranks(const temu_vt *v);
void temu_vt_rank_get(const temu_vt *v, int32_t rank, temu_vt_rank_stats *out);
/* Predicted runtime: the largest end_ps. */
int64_t temu_vt_runtime(const temu_vt *v);
/* Clocks of rank's marks in order: *n of them. */
const int64_t *temu_vt_marks(const temu_vt *v, int32_t rank, int32_t *n);
/* Messages that crossed the network, and their packets. */
uint64_t temu_vt_messages(const temu_vt *v);
/* What the run held: messages recorded in all and, at most at once, the
 * messages, receive slots, collective calls and rank operations held
 * (with sources: the messages and receive slots outstanding -- in
 * flight, not yet sent, or waiting for their sender or receiver to get
 * past them -- the operations not yet executed and about a round of the
 * rest; without, all of them); rounds: the sources' rounds recorded. */
typedef struct temu_vt_held {
    uint64_t messages, rounds;
    uint64_t messages_peak, slots_peak, colls_peak, ops_peak;
} temu_vt_held;
void temu_vt_held_get(const temu_vt *v, temu_vt_held *out);
/* The timing model's work so far, whatever its level: the packet level
 * gives packet-hops, train-hops and events (temu_tm_totals_get); the flow
 * level moves no packet hop by hop (packet_hops 0) and gives the flows it
 * started plus the rate solutions it made as events, and the per-flow rate
 * updates of those solutions as train_hops. */
void temu_vt_model_totals(const temu_vt *v, temu_tm_totals *out);
/* The packet timing model (its stall counters: temu_tm_stall_counters_flush;
 * the run counts every link crossing itself, adaptively routed ones
 * included); NULL if the run's model level is another. */
temu_tm *temu_vt_model(temu_vt *v);
/* Add the counters the model keeps itself (stalls, occupancy: not the
 * links, which the run counts as packets cross) to store s, those since
 * the previous flush through f (temu_tm_stall_counters_flush for the
 * packet model). */
temu_status temu_vt_counters_flush(const temu_vt *v, temu_tm_flushed *f, temu_session *s,
                                   temu_error *err);

#ifdef __cplusplus
}
#endif

#endif
