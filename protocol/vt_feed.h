/*
 * vt_feed.h - the launcher-rank protocol's online timing model feed
 * (doc/virtual-time.md, "Online model"): a shared-memory file the launcher
 * creates (named in TMPI_VT_FEED_ENV, run_env.h) holding, per rank,
 *   - a queue of the messages it put on the network with their virtual
 *     send times (rank -> model); a message's sequence number is its index
 *     in its sender's queue;
 *   - the rank's state: what it may still send (rank -> model, below);
 *   - a ring of delivery times of its messages, indexed by sequence number
 *     (model -> ranks): a receiver looks its message up there.
 * The ranks (mpi/rank_vtime.c) produce; the launcher's model thread
 * (utils/run_model.c) consumes, feeding the timing model every message in
 * (time, rank, order) order and never past what a rank may still send, so
 * what the model computes does not depend on how the host scheduled the
 * ranks (conservative synchronisation).
 *
 * Used by libtorusemu_mpi and the torusemu launcher; not installed.
 */
#ifndef TMPI_VT_FEED_H
#define TMPI_VT_FEED_H

#include <stddef.h>
#include <stdint.h>

#pragma GCC visibility push(hidden)

#define TMPI_VT_FEED_MAGIC 0x76746665656435ull /* "vtfeed5" */
#define TMPI_VT_FEED_CAP 4096u                 /* records per rank queue */
/* delivery times kept per sender: a receiver that takes a message more
 * than this many of its sender's messages later finds it overwritten and
 * falls back to the uncongested arrival (counted, doc/virtual-time.md) */
#define TMPI_VT_DELIV_CAP 16384u

/* record flags */
#define TMPI_VT_F_STAMPED 1u /* a point-to-point message: a receive takes it   */
#define TMPI_VT_F_NOMODEL 2u /* not for the network model (counting paused,    */
                             /* within a node): delivered at `arrival`         */
#define TMPI_VT_F_COLL 4u    /* one of a blocking collective's messages        */
#define TMPI_VT_F_RMA 8u     /* a one-sided transaction: its time is when the  */
                             /* last packet of both directions has arrived     */

typedef struct tmpi_vt_rec {
    int64_t when;     /* virtual send time, ps */
    int64_t src, dst; /* nodes */
    uint64_t bytes;
    int32_t kind;     /* temu_kind */
    int32_t dst_rank; /* world rank of the destination */
    uint32_t flags;   /* TMPI_VT_* */
    uint32_t pad;
    int64_t arrival; /* uncongested arrival (when + latency), ps */
    int64_t prefix;  /* collective: latencies of this and the earlier ones */
} tmpi_vt_rec;

/*
 * What a rank may still send, by mode (doc/virtual-time.md, "Synchronisation"):
 *   RUNNING  nothing before `clock` (its clock: it only grows);
 *   WAIT     nothing before max(clock, delivery of message (src, seq)),
 *            which it has taken and waits for;
 *   RECV     in a blocking receive: nothing before max(clock, deliveries
 *            of the messages it will take: sent to it and not yet taken,
 *            or not yet sent), want[] saying how many from whom;
 *   COLL     in blocking collective number coll_seq on communicator
 *            coll_comm of coll_size members: nothing before the latest
 *            member's exit (coll_first.. its coll_count messages,
 *            coll_chain their uncongested latencies one after another);
 *   DONE     nothing more (MPI_Finalize).
 * Written by the rank under a sequence lock (ver odd while writing).
 */
enum { TMPI_VT_RUNNING = 0, TMPI_VT_WAIT, TMPI_VT_RECV, TMPI_VT_COLL, TMPI_VT_DONE };

/* RECV: the call takes n messages from world rank src (-1: from anyone);
 * the receive ends no earlier than the n-th earliest delivery among such
 * messages not yet taken, for each entry */
#define TMPI_VT_WANTS 6
typedef struct tmpi_vt_want {
    int32_t src;
    uint32_t n;
} tmpi_vt_want;

typedef struct tmpi_vt_state {
    uint32_t mode, coll_size;
    uint32_t in_mpi; /* RUNNING inside an MPI call (it may block on the host) */
    /* RUNNING after a poll that found nothing (MPI_Test, MPI_Iprobe ...
     * returning false): the rank's clock was raised to where the model
     * waits (tmpi_vt_feed_poll_target) and the model may run the events
     * of the clock's own picosecond, so a program that polls for a message
     * the model has yet to deliver lets the model get there (bound
     * clock + 1 ps; a send at the clock is still not late) */
    uint32_t poll;
    int64_t clock;
    int64_t src;
    uint64_t seq;
    uint64_t coll_comm, coll_seq;
    uint64_t coll_first, coll_count;
    int64_t coll_chain;
    tmpi_vt_want want[TMPI_VT_WANTS]; /* RECV */
} tmpi_vt_state;

typedef struct tmpi_vt_deliv {
    uint64_t seq1;      /* sequence number + 1 of the message whose time this is */
    int64_t when;       /* its delivery (last packet's tail at the destination) */
    uint64_t taken;     /* sequence number + 1, written by the receiver */
    uint64_t left;      /* packets still in the network (the model's own) */
    int64_t prefix;     /* the record's prefix (the model's own) */
    uint64_t taken_ver; /* the receiver's state version when it took it */
    uint64_t both;      /* the model's own: its replies count too (F_RMA) */
    uint64_t pad;
} tmpi_vt_deliv;

/* A blocking collective a rank has left, and when every member left it. */
typedef struct tmpi_vt_left {
    uint64_t comm, seq;
    int64_t exit;
    uint64_t pad;
} tmpi_vt_left;
#define TMPI_VT_LEFT_CAP 16u /* the last ones kept per rank */

/* A relayed feed (a host's copy, mpi/host_feed.c): a receiver's take of
 * message seq of sender src, made while its state had version ver, logged
 * in the receiver's queue so the host's agent can pass it on to the model.
 * slot1 (the entry's index + 1) is written last. */
typedef struct tmpi_vt_take {
    uint64_t slot1;
    int32_t src;
    uint32_t pad;
    uint64_t seq, ver;
} tmpi_vt_take;
#define TMPI_VT_TAKE_CAP 1024u

/* A rank asleep until the model delivers message seq of sender src
 * (tmpi_vt_feed_wait_delivery): the model wakes it through its futex word
 * `wake` when it publishes that delivery (tmpi_vt_feed_wake_ranks). */
typedef struct tmpi_vt_sleep {
    uint32_t wake;   /* futex word: bumped by the model to wake the rank  */
    uint32_t asleep; /* the rank's threads asleep on it                   */
    int32_t src;     /* what the first of them sleeps for                 */
    uint32_t any;    /* several are: wake them at any delivery            */
    uint64_t seq;
} tmpi_vt_sleep;

typedef struct tmpi_vt_queue {
    uint64_t ver; /* state's sequence lock                           */
    tmpi_vt_state st;
    uint64_t nleft; /* collectives left (rank), the last ones in left[] */
    tmpi_vt_left left[TMPI_VT_LEFT_CAP];
    uint64_t head; /* records consumed (model)                          */
    uint64_t tail; /* records produced (rank)                           */
    tmpi_vt_sleep sleep;
    uint64_t ntake;     /* takes logged (a relayed feed's receivers) */
    uint64_t take_head; /* takes passed on (the host's agent)        */
    tmpi_vt_take take[TMPI_VT_TAKE_CAP];
    tmpi_vt_rec rec[TMPI_VT_FEED_CAP];
    tmpi_vt_deliv deliv[TMPI_VT_DELIV_CAP];
} tmpi_vt_queue;

typedef struct tmpi_vt_feed {
    uint64_t magic;
    int32_t nranks;
    /* 1: a host's copy of the launcher's feed, relayed to it by the host's
     * agent (mpi/host_feed.c): receivers log their takes (tmpi_vt_take) */
    int32_t relay;
    uint64_t next_comm; /* communicator ids handed out (rank_vtime.c) */
    /* where the model waits, for polling ranks (model -> ranks, under
     * the sequence lock poll_ver): the next time it would run and the two
     * smallest rank bounds, the smallest's rank */
    uint64_t poll_ver;
    int64_t poll_next, poll_min, poll_min2;
    int32_t poll_min_rank, pad3;
    /* the model thread asleep (model_asleep 1) on its futex word
     * model_wake until a rank changes its state or queues a message
     * (tmpi_vt_feed_model_sleep, tmpi_vt_feed_wake_model) */
    uint32_t model_wake, model_asleep;
    /* a run across hosts (mpi/host_feed.c): host 0's agent's host time
     * (CLOCK_MONOTONIC, ns) when it last heard from the other host it
     * heard from longest ago; 0 on one host (tmpi_vt_feed_relay_busy) */
    int64_t relay_heard_ns;
    tmpi_vt_queue q[];
} tmpi_vt_feed;

/* A run across hosts: another host's agent says it is alive at least
 * every 20 ms (mpi/host_feed.c); heard from none for this long (host
 * time, ns), that host may have news the relay has not passed on yet. */
#define TMPI_VT_RELAY_QUIET_NS 200000000ll

/* 1 while the relay across hosts may still bring news at host time `now`
 * (CLOCK_MONOTONIC, ns): some host has been quiet too long, which is a
 * host too loaded to run its agent, not ranks that stand still.  The
 * model counts that as progress (utils/run_model.c).  0 on one host. */
static inline int tmpi_vt_feed_relay_busy(const tmpi_vt_feed *f, int64_t now)
{
    int64_t heard = __atomic_load_n(&f->relay_heard_ns, __ATOMIC_ACQUIRE);
    return heard != 0 && now - heard > TMPI_VT_RELAY_QUIET_NS;
}

static inline size_t tmpi_vt_feed_size(int32_t nranks)
{
    return sizeof(tmpi_vt_feed) + (size_t)nranks * sizeof(tmpi_vt_queue);
}

/* Map the feed file at path (created and sized by the launcher when
 * create, with nranks queues, every rank RUNNING at 0); NULL with a reason
 * in why. */
/* Model: publish where it waits (see tmpi_vt_feed.poll_next). */
void tmpi_vt_feed_poll_publish(tmpi_vt_feed *f, int64_t next, int64_t min, int32_t min_rank,
                               int64_t min2);
/* Rank r after a poll that found nothing: the latest virtual time it may
 * raise its clock to without passing another rank or the model's next
 * event (the poll would have found nothing before then either);
 * INT64_MAX when the model has nothing to run. */
int64_t tmpi_vt_feed_poll_target(const tmpi_vt_feed *f, int32_t r);
tmpi_vt_feed *tmpi_vt_feed_map(const char *path, int create, int32_t nranks, char *why, size_t len);
void tmpi_vt_feed_unmap(tmpi_vt_feed *f);

/* Producer: append a record to rank r's queue, waiting while it is full
 * (the model thread empties it whatever the states); returns its sequence
 * number. */
uint64_t tmpi_vt_feed_push(tmpi_vt_feed *f, int32_t r, const tmpi_vt_rec *rec);
/* Producer: rank r's state (the rank's threads serialise). */
void tmpi_vt_feed_state(tmpi_vt_feed *f, int32_t r, const tmpi_vt_state *st);
/* Consumer: a consistent copy of rank r's state; returns its version. */
uint64_t tmpi_vt_feed_read_state(const tmpi_vt_feed *f, int32_t r, tmpi_vt_state *st);
/* Delivery time of message seq of sender r: 1 and *when if the model has
 * delivered it, 0 if not yet, -1 if its slot was reused (too old). */
int tmpi_vt_feed_delivery(const tmpi_vt_feed *f, int32_t r, uint64_t seq, int64_t *when);
/* Model: message seq of sender r was delivered at when. */
void tmpi_vt_feed_deliver(tmpi_vt_feed *f, int32_t r, uint64_t seq, int64_t when);
/* Rank r: wait until the model has delivered message seq of sender src
 * (or its slot was reused): a few looks yielding the core, then asleep
 * until the model wakes it or WAIT_SLEEP_NS pass; between (if not NULL)
 * runs before every look (the rank's MPI progress, rank_vtime.c); returns
 * tmpi_vt_feed_delivery's answer. */
int tmpi_vt_feed_wait_delivery(tmpi_vt_feed *f, int32_t r, int32_t src, uint64_t seq, int64_t *when,
                               void (*between)(void));
/* Model: wake the ranks asleep for a delivery it has published. */
void tmpi_vt_feed_wake_ranks(tmpi_vt_feed *f);
/* Wake the model thread if it sleeps (the ranks call it after every state
 * and record they publish; the launcher to stop it). */
void tmpi_vt_feed_wake_model(tmpi_vt_feed *f);
/* Model, with nothing to do: sleep until a rank changes its state or queues
 * a message after the model last looked (the versions in ver[] and the
 * queues' heads), or timeout_ns of host time have passed. */
void tmpi_vt_feed_model_sleep(tmpi_vt_feed *f, const uint64_t *ver, int64_t timeout_ns);

/* Relaying (mpi/host_feed.c) writes another copy's words as they were:
 * rank r's state st published at version ver (even, later than the last);
 * the take of message seq of sender r by a receiver whose state had
 * version ver; a consistent copy of where the model waits, returning its
 * version. */
void tmpi_vt_feed_state_at(tmpi_vt_feed *f, int32_t r, const tmpi_vt_state *st, uint64_t ver);
void tmpi_vt_feed_take_at(tmpi_vt_feed *f, int32_t r, uint64_t seq, uint64_t ver);
uint64_t tmpi_vt_feed_poll_read(const tmpi_vt_feed *f, int64_t *next, int64_t *min,
                                int32_t *min_rank, int64_t *min2);

/* Rank r has left a blocking collective (written before its next state). */
void tmpi_vt_feed_left(tmpi_vt_feed *f, int32_t r, const tmpi_vt_left *l);
/* Receiver rank me: message seq of sender r is taken (no receive waits for
 * it any more), while me's state has version ver. */
void tmpi_vt_feed_take(tmpi_vt_feed *f, int32_t r, uint64_t seq, int32_t me);
/* Model: 1 if message seq of sender r was taken before its receiver's state
 * of version ver (a state read earlier still waits for what was taken
 * since), or its slot was reused. */
int tmpi_vt_feed_taken(const tmpi_vt_feed *f, int32_t r, uint64_t seq, uint64_t ver);

#pragma GCC visibility pop

#endif
