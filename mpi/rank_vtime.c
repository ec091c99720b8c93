/*
 * rank_vtime.c - `torusemu run --virtual-time`: a virtual clock per rank
 * (doc/virtual-time.md).
 *
 * The clock (picoseconds, from 0 at the end of MPI_Init) advances by
 *   - the CPU time the calling thread spent between MPI calls
 *     (CLOCK_THREAD_CPUTIME_ID, scaled by $TORUSEMU_CPU_SCALE), never host
 *     wall time, so an oversubscribed host does not look like a slow
 *     network; time inside MPI calls is not counted (on this host it is
 *     mostly polling for messages);
 *   - received messages: a receive completes at the later of the clock and
 *     the message's delivery by the online timing model (the launcher's
 *     thread, utils/run_model.c, through the feed, vt_feed.h), or without
 *     one its uncongested arrival, which its sender computes (vt_model.c:
 *     the send's virtual time + the message's latency in an empty network);
 *     the stamp carries both the arrival and the message's id in the feed;
 *   - blocking collectives: every member leaves at the latest over the
 *     members of (its clock + the chain of its own messages of the
 *     collective's decomposition, each taking its modelled latency; with
 *     the online model later by the most one of them was delivered after
 *     the chain would have it there);
 *   - with the online model, blocking sends from the eager limit up
 *     complete at their message's delivery;
 *   - the MPI library's software costs (LogGP's o_s, o_r and g, the
 *     node's shared-memory path: temu_tm_config.mpi), charged as a replay
 *     charges them (emu/vtime.c, "MPI software costs"); `run --mpi-costs
 *     off` leaves the network's time alone.
 * With the online model the rank also tells the model, through the feed,
 * what it may still send (declare, tmpi_vt_recv_begin, the collectives'
 * COLL state), so the model never passes a time at which it may send.
 *
 * Stamps travel on a hidden duplicate of the message's communicator, with
 * the message's destination and tag: MPI keeps messages between one pair
 * with one tag and communicator in order (non-overtaking), so the k-th
 * message a receiver gets from (source, tag) on a communicator is the k-th
 * stamp from (source, tag) on its duplicate, whichever receive (blocking,
 * non-blocking, wildcard) took it.  The duplicates are made when the
 * communicator is (MPI_Init for MPI_COMM_WORLD and MPI_COMM_SELF,
 * pmpi_comm.c for the others), collectively, as MPI requires.
 */
#include "run_env.h"
#include "tmpi.h"
#include "vt_feed.h"
#include "vt_model.h"

#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

TMPI_HIDDEN int tmpi_vt_on;

static int64_t clock_ps;      /* the rank's virtual clock */
static double ps_per_cpu_ns;  /* 1000 x --cpu-scale       */
static uint64_t read_cost_ns; /* CPU time one clock read adds to an interval */
static __thread uint64_t cpu_mark __attribute__((tls_model("initial-exec")));
static temu_tm_config cfg;
/* A communicator's hidden twin, and what names its blocking collectives
 * to the online model: an id the job's communicators share (0: none) and
 * the number of blocking collectives so far. */
typedef struct twin {
    MPI_Comm h;
    uint64_t id, ncoll;
    int size;
} twin;
static twin twin_world = {MPI_COMM_NULL, 1, 0, 0}, twin_self = {MPI_COMM_NULL, 0, 0, 1};
static int keyval = MPI_KEYVAL_INVALID;
/* the online model's feed ($TORUSEMU_VT_FEED), NULL without one */
static tmpi_vt_feed *feed;
TMPI_HIDDEN int tmpi_vt_online;
/* serialises the rank's threads on the feed (queue and state) */
static pthread_mutex_t feed_lock = PTHREAD_MUTEX_INITIALIZER;
/* the last point-to-point message this thread fed: its id for the next
 * stamp (then -1), and for a blocking send's completion (own_id, bytes) */
static __thread int64_t last_id = -1, own_id = -1;
static __thread uint64_t own_bytes;
/* deliveries the receiver could not find any more (TMPI_VT_DELIV_CAP) */
static uint64_t lost_deliveries;
/* the MPI software costs charged (all 0 with `run --mpi-costs off`), the
 * gap g after this rank's last send's start (the next may start then),
 * and the last point-to-point message this thread sent: when it arrives
 * in an empty network (its stamp's time, o_r included off the node) */
static temu_tm_mpi_costs costs;
static int64_t send_free_ps;
static pthread_mutex_t cost_lock = PTHREAD_MUTEX_INITIALIZER;
static __thread int64_t sent_arrival = -1;

static uint64_t thread_cpu_ns(void)
{
    struct timespec t;
    tmpi_host_clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

/* clock = max(clock, t), from any thread */
static void clock_raise(int64_t t)
{
    int64_t cur = __atomic_load_n(&clock_ps, __ATOMIC_RELAXED);
    while (cur < t && !__atomic_compare_exchange_n(&clock_ps, &cur, t, 0, __ATOMIC_RELAXED,
                                                   __ATOMIC_RELAXED)) {
    }
}

static int64_t clock_now(void)
{
    return __atomic_load_n(&clock_ps, __ATOMIC_RELAXED);
}

/* This rank's state for the online model (vt_feed.h). */
/* set by a poll that found nothing (tmpi_vt_poll_failed), taken by the
 * outermost call's return (tmpi_vt_leave) */
static __thread int poll_failed __attribute__((tls_model("initial-exec")));
/* The clock (ps) at which the rank last told the model a poll found
 * nothing (bound clock + 1), -1 before any; under feed_lock.  The model may
 * have run that picosecond already, so the bound stays while the clock
 * does: the next call's entry declaring RUNNING at the same clock without
 * it took the permission back, and a program polling in a loop (MPI_Improbe,
 * MPI_Iprobe, MPI_Test* finding nothing) spends nearly all its host time
 * inside the calls: the model, woken by the poll's return, mostly read the
 * state of the next call's entry, could not run, and waited until the 2 s
 * stall rule let the ranks go (run_model.c, relax). */
static int64_t poll_clock = -1;

static void declare_state(uint32_t mode, int in_mpi, int64_t src, uint64_t seq, uint32_t poll)
{
    tmpi_vt_state st = {.mode = mode,
                        .in_mpi = (uint32_t)in_mpi,
                        .poll = poll,
                        .clock = clock_now(),
                        .src = src,
                        .seq = seq};
    pthread_mutex_lock(&feed_lock);
    if (mode == TMPI_VT_RUNNING && st.clock == poll_clock) {
        st.poll = 1; /* a bound never goes back below what the model was told */
    }
    if (st.poll) {
        poll_clock = st.clock;
    }
    tmpi_vt_feed_state(feed, tmpi_g.world_rank, &st);
    pthread_mutex_unlock(&feed_lock);
}

static void declare(uint32_t mode, int in_mpi, int64_t src, uint64_t seq)
{
    declare_state(mode, in_mpi, src, seq, 0);
}

void tmpi_vt_poll_failed(void)
{
    poll_failed = 1;
}

/* The calling thread's CPU time since its mark, x F, into the clock (less
 * the reads' own cost); the mark moves to now. */
static void add_cpu_time(void)
{
    uint64_t now = thread_cpu_ns();
    if (now > cpu_mark + read_cost_ns) {
        __atomic_fetch_add(
            &clock_ps, (int64_t)llround((double)(now - cpu_mark - read_cost_ns) * ps_per_cpu_ns),
            __ATOMIC_RELAXED);
    }
    cpu_mark = now;
}

/* Reading the thread's CPU time is a system call (about 1 us on a loaded
 * host): with --cpu-scale 0 it is not read at all. */
void tmpi_vt_enter(void)
{
    if (ps_per_cpu_ns > 0) {
        add_cpu_time();
    }
    if (feed != NULL) {
        declare(TMPI_VT_RUNNING, 1, -1, 0);
    }
}

/* The clock only grows, and every message of the call that ends was fed
 * at a time not after it: the floor may rise to it.  The program's
 * computation starts when the layer is done: the CPU mark is taken last,
 * so the layer's own work here (the feed's lock, its futex wake) is not
 * counted as compute at --cpu-scale > 0. */
void tmpi_vt_leave(void)
{
    if (feed != NULL) {
        if (poll_failed) {
            /* The program polls (MPI_Test, MPI_Iprobe ... found nothing): in
             * virtual time it found nothing until the model's next event
             * or another rank's bound, so its clock moves there and the
             * model may run that picosecond.  Without this a rank polling
             * for a reply that waits on the model would hold the model
             * (its clock, not moving at --cpu-scale 0) forever. */
            poll_failed = 0;
            int64_t target = tmpi_vt_feed_poll_target(feed, tmpi_g.world_rank);
            if (target != INT64_MAX) {
                clock_raise(target);
            }
            declare_state(TMPI_VT_RUNNING, 0, -1, 0, 1);
        } else {
            tmpi_vt_idle_restart();
            declare(TMPI_VT_RUNNING, 0, -1, 0);
        }
    }
    if (ps_per_cpu_ns > 0) {
        cpu_mark = thread_cpu_ns();
    }
}

/* Message msg into the feed, its packets leaving at `when`, in an empty
 * network there at `arrival`. */
static uint64_t push_at(const temu_message *msg, int32_t dst_rank, uint32_t flags, int64_t when,
                        int64_t arrival, int64_t prefix)
{
    tmpi_vt_rec r = {when,     msg->src, msg->dst, msg->bytes, (int32_t)msg->kind,
                     dst_rank, flags,    0,        arrival,    prefix};
    if (msg->src == msg->dst) {
        r.flags |= TMPI_VT_F_NOMODEL; /* within a node: no network (latency 0) */
    }
    pthread_mutex_lock(&feed_lock);
    uint64_t seq = tmpi_vt_feed_push(feed, tmpi_g.world_rank, &r);
    pthread_mutex_unlock(&feed_lock);
    return seq;
}

/* The same, sent at the rank's clock. */
static uint64_t push(const temu_message *msg, int32_t dst_rank, uint32_t flags, int64_t latency,
                     int64_t prefix)
{
    int64_t now = clock_now();
    return push_at(msg, dst_rank, flags, now, now + latency, prefix);
}

/* ------------------------------------------------ MPI software costs */

/* The shared-memory path of `bytes` between two ranks of one node, ps:
 * its latency and copy (temu_tm_shm_copy_ps, as emu/vtime.c's costs_send
 * counts them). */
static int64_t costs_copy_ps(uint64_t bytes)
{
    return costs.shm_ps + temu_tm_shm_copy_ps(&costs, bytes);
}

/* A send of msg asked for at the rank's clock starts once the rank is free
 * again (the gap g after its previous send's start, or the end of that
 * send's on-node copy: a rank's CPU copies one message at a time, as
 * emu/vtime.c's costs_send says); its packets leave o_s later and the call
 * returns then (the clock moves there: the returned time).  Within a node
 * *shm is when the shared-memory path has delivered it (from the send's
 * start), else -1. */
static int64_t costs_send(const temu_message *msg, int64_t *shm)
{
    int64_t copy = msg->src == msg->dst ? temu_tm_shm_copy_ps(&costs, msg->bytes) : -1;
    pthread_mutex_lock(&cost_lock);
    int64_t now = clock_now(), begin = now > send_free_ps ? now : send_free_ps;
    send_free_ps = begin + (copy > costs.gap_ps ? copy : costs.gap_ps);
    pthread_mutex_unlock(&cost_lock);
    *shm = copy >= 0 ? begin + costs.shm_ps + copy : -1;
    clock_raise(begin + costs.send_ps);
    return begin + costs.send_ps;
}

/* o_r of a message from world rank src: none within the node, where the
 * shared-memory delivery holds the whole call (emu/vtime.c,
 * costs_received). */
static int64_t costs_recv_ps(int32_t src)
{
    return tmpi_g.rank_node[src] == tmpi_g.node ? 0 : costs.recv_ps;
}

int64_t tmpi_vt_coll_latency(const temu_message *msg, int64_t latency_ps)
{
    if (msg->src == msg->dst) {
        int64_t shm = costs_copy_ps(msg->bytes);
        return shm > costs.send_ps ? shm : costs.send_ps;
    }
    return costs.send_ps + latency_ps + costs.recv_ps;
}

void tmpi_vt_feed_message(const temu_message *msg)
{
    if (feed != NULL && msg->src != msg->dst) {
        push(msg, -1, 0, 0, 0);
    }
}

/* ------------------------------------------- one-sided under the model */

/* the windows' lists of transactions in flight (a program's threads may
 * issue and synchronise concurrently) */
static pthread_mutex_t rma_lock = PTHREAD_MUTEX_INITIALIZER;

void tmpi_vt_rma_issue(tmpi_win *w, int32_t target, const temu_message *msg)
{
    if (feed == NULL || msg->src == msg->dst) {
        return; /* within a node: no network, complete at once */
    }
    uint64_t seq = push(msg, -1, TMPI_VT_F_RMA, 0, 0);
    pthread_mutex_lock(&rma_lock);
    if (w->nrma == w->caprma) {
        size_t cap = w->caprma ? 2 * w->caprma : 16;
        uint64_t *s = realloc(w->rma_seq, cap * sizeof *s);
        if (s != NULL) {
            w->rma_seq = s;
        }
        int32_t *t = realloc(w->rma_target, cap * sizeof *t);
        if (t != NULL) {
            w->rma_target = t;
        }
        if (s == NULL || t == NULL) {
            /* out of memory: this one is not waited for (it still loads
             * the network) */
            pthread_mutex_unlock(&rma_lock);
            return;
        }
        w->caprma = cap;
    }
    w->rma_seq[w->nrma] = seq;
    w->rma_target[w->nrma++] = target;
    pthread_mutex_unlock(&rma_lock);
}

static int64_t delivery(int32_t src, uint64_t seq, int64_t fallback);

void tmpi_vt_rma_complete(tmpi_win *w, int32_t target)
{
    if (feed == NULL) {
        return;
    }
    for (;;) {
        uint64_t seq = 0;
        int found = 0;
        pthread_mutex_lock(&rma_lock);
        for (size_t i = 0; i < w->nrma; i++) {
            if (target < 0 || w->rma_target[i] == target) {
                seq = w->rma_seq[i];
                w->rma_seq[i] = w->rma_seq[w->nrma - 1];
                w->rma_target[i] = w->rma_target[--w->nrma];
                found = 1;
                break;
            }
        }
        pthread_mutex_unlock(&rma_lock);
        if (!found) {
            return;
        }
        /* the clock moves to the completion (delivery raises it); one
         * overwritten by newer transactions falls back to the clock */
        delivery(tmpi_g.world_rank, seq, clock_now());
    }
}

/* Stamp ids: the sender's world rank and the message's sequence number. */
#define ID_SEQ_BITS 44
static int64_t id_of(int32_t rank, uint64_t seq)
{
    return (int64_t)(((uint64_t)rank << ID_SEQ_BITS) | seq);
}

void tmpi_vt_feed_p2p(const temu_message *msg, int model, int32_t dst_rank, int64_t latency)
{
    int64_t shm, leave = costs_send(msg, &shm);
    /* in an empty network: its packets' arrival, or the shared-memory
     * path's delivery (not before the sender's o_s is over) */
    int64_t arrival = shm < 0 ? leave + latency : shm > leave ? shm : leave;
    last_id = own_id = -1;
    own_bytes = msg->bytes;
    sent_arrival = arrival + (shm < 0 ? costs.recv_ps : 0);
    if (feed != NULL && dst_rank >= 0) {
        uint64_t seq = push_at(msg, dst_rank, TMPI_VT_F_STAMPED | (model ? 0u : TMPI_VT_F_NOMODEL),
                               leave, arrival, 0);
        last_id = own_id = id_of(tmpi_g.world_rank, seq);
    }
}

uint64_t tmpi_vt_feed_coll(const temu_message *msg, int model, int64_t latency, int64_t prefix)
{
    return push(msg, -1, TMPI_VT_F_COLL | (model ? 0u : TMPI_VT_F_NOMODEL), latency, prefix);
}

/* Run the host's MPI once while waiting for the model (between looks at
 * the feed, tmpi_vt_feed_wait_delivery): a rank waiting here is inside an
 * MPI call, and other ranks may need it to progress — another rank's
 * one-sided operation on its window (Open MPI's pt2pt one-sided
 * component, which `torusemu run` selects for windows not made by
 * MPI_Win_allocate, serves a get or a lock at the target), the rest of a
 * large message it sent.  Without it the other rank waits in the host's
 * MPI, holding the model at its clock, and this one for a delivery the
 * model cannot reach.  An MPI_Iprobe on the twin of MPI_COMM_SELF matches
 * nothing and runs the progress engine; it is libmpi's own, past this
 * library's wrappers. */
static void host_progress(void)
{
    static void *iprobe;
    typedef int (*iprobe_fn)(int, int, MPI_Comm, int *, MPI_Status *);
    int flag = 0;
    if (twin_self.h != MPI_COMM_NULL) {
        ((iprobe_fn)tmpi_next_fn(&iprobe, "PMPI_Iprobe"))(MPI_ANY_SOURCE, MPI_ANY_TAG, twin_self.h,
                                                          &flag, MPI_STATUS_IGNORE);
    }
}

/* The model's delivery of message seq of sender src; until it comes the
 * rank declares it waits for it (vt_feed.h, WAIT), so the model may run
 * to it.  fallback (the uncongested arrival) when its time was
 * overwritten. */
static int64_t delivery(int32_t src, uint64_t seq, int64_t fallback)
{
    int64_t when = 0;
    int got = tmpi_vt_feed_delivery(feed, src, seq, &when), declared = 0;
    if (got == 0) {
        declare(TMPI_VT_WAIT, 1, src, seq);
        declared = 1;
        got = tmpi_vt_feed_wait_delivery(feed, tmpi_g.world_rank, src, seq, &when, host_progress);
    }
    if (got < 0) {
        __atomic_fetch_add(&lost_deliveries, 1, __ATOMIC_RELAXED);
        when = fallback;
    }
    clock_raise(when);
    if (declared) {
        declare(TMPI_VT_RUNNING, 1, -1, 0);
    }
    return when;
}

void tmpi_vt_recv_begin(const tmpi_vt_want *want, int nwant)
{
    if (feed != NULL && tmpi_vt_active() && nwant > 0) {
        tmpi_vt_state st = {.mode = TMPI_VT_RECV, .in_mpi = 1, .clock = clock_now(), .src = -1};
        memcpy(st.want, want,
               (size_t)(nwant < TMPI_VT_WANTS ? nwant : TMPI_VT_WANTS) * sizeof *want);
        pthread_mutex_lock(&feed_lock);
        tmpi_vt_feed_state(feed, tmpi_g.world_rank, &st);
        pthread_mutex_unlock(&feed_lock);
    }
}

void tmpi_vt_recv_begin1(int source, MPI_Comm comm)
{
    if (feed != NULL && tmpi_vt_active() && source != MPI_PROC_NULL) {
        tmpi_vt_want w = {source == MPI_ANY_SOURCE ? -1 : tmpi_send_dest(source, comm), 1};
        tmpi_vt_recv_begin(&w, 1);
    }
}

int tmpi_vt_send_begin(void)
{
    own_id = -1;
    return feed != NULL && tmpi_vt_active();
}

/* From the eager limit up the host's MPI holds the send until the receiver
 * takes the message, and the call returns at its delivery: until then the
 * rank sends nothing, which the model learns before the host's call (WAIT
 * for its own message).  Declared RUNNING at its clock instead, the rank
 * held the model below the message's own send time: a receiver waiting for
 * an earlier sender's delivery (an incast) then waited with it until the
 * 2 s stall rule let the senders go. */
void tmpi_vt_send_posted(void)
{
    if (own_id >= 0 && own_bytes >= tmpi_g.m->protocol.eager_limit) {
        declare(TMPI_VT_WAIT, 1, tmpi_g.world_rank, (uint64_t)own_id & ((1ull << ID_SEQ_BITS) - 1));
    }
}

void tmpi_vt_send_done(void)
{
    if (own_id >= 0 && own_bytes >= tmpi_g.m->protocol.eager_limit) {
        /* rendezvous: complete when the message has been delivered */
        uint64_t seq = (uint64_t)own_id & ((1ull << ID_SEQ_BITS) - 1);
        delivery(tmpi_g.world_rank, seq, clock_now());
    }
    own_id = -1;
}

void tmpi_vt_finalize(void)
{
    if (feed != NULL) {
        declare(TMPI_VT_DONE, 0, -1, 0);
        uint64_t lost = __atomic_load_n(&lost_deliveries, __ATOMIC_RELAXED);
        if (lost > 0) {
            fprintf(stderr,
                    "torusemu-mpi: rank %d: %" PRIu64 " message(s) taken after their delivery "
                    "time was overwritten: their uncongested arrival was used "
                    "(doc/virtual-time.md)\n",
                    tmpi_g.world_rank, lost);
        }
    }
}

/* The thread's CPU time since the last MPI call returned or the clock was
 * last read goes into the clock now, as the next call's entry would add it
 * (tmpi_vt_enter): a program that reads the clock between two MPI calls
 * sees its computation.  The model is not told: the rank's bound only
 * rose, and its next call declares it (another thread of the rank may be
 * in a blocking receive whose state must not be overwritten). */
int64_t tmpi_vt_now_ps(void)
{
    if (ps_per_cpu_ns > 0 && tmpi_depth == 0) {
        add_cpu_time();
    }
    return clock_now();
}

double tmpi_vt_seconds(void)
{
    return (double)tmpi_vt_now_ps() * 1e-12;
}

/* The rank's clock for other code in the process: the bgq_nwunit
 * component finds this function by name (TEMU_VT_CLOCK_SYMBOL) and counts
 * PEVT_NW_CYCLES on it.  Picoseconds, read as MPI_Wtime reads it (the
 * computation up to the call included); 0 before MPI_Init, where the clock
 * starts; -1 when the run has no virtual time. */
TMPI_EXPORT int64_t torusemu_vt_clock_ps(void)
{
    const char *on = getenv(TMPI_VT_ENV);
    if (!tmpi_vt_on) {
        return on != NULL && strcmp(on, "1") == 0 ? 0 : -1;
    }
    if (tmpi_depth == 0) {
        tmpi_vt_enter();
    }
    return clock_now();
}

/* ------------------------------------------------ hidden communicators */

static int hidden_delete(MPI_Comm comm, int kv, void *val, void *extra)
{
    twin *t = val;
    (void)comm;
    (void)kv;
    (void)extra;
    if (t != NULL) {
        PMPI_Comm_free(&t->h);
        free(t);
    }
    return MPI_SUCCESS;
}

static twin *twin_of(MPI_Comm comm)
{
    void *val = NULL;
    int flag = 0;
    if (comm == MPI_COMM_WORLD) {
        return &twin_world;
    }
    if (comm == MPI_COMM_SELF) {
        return &twin_self;
    }
    if (comm == MPI_COMM_NULL || PMPI_Comm_get_attr(comm, keyval, &val, &flag) != MPI_SUCCESS ||
        !flag) {
        return NULL;
    }
    return val;
}

static MPI_Comm hidden_of(MPI_Comm comm)
{
    twin *t = twin_of(comm);
    return t != NULL ? t->h : MPI_COMM_NULL;
}

void tmpi_vt_comm_new(MPI_Comm comm)
{
    twin *t;
    int inter = 0;
    if (!tmpi_vt_on || comm == MPI_COMM_NULL || (t = calloc(1, sizeof *t)) == NULL) {
        return;
    }
    if (PMPI_Comm_dup(comm, &t->h) != MPI_SUCCESS) {
        free(t);
        return;
    }
    PMPI_Comm_size(comm, &t->size);
    PMPI_Comm_test_inter(comm, &inter);
    if (feed != NULL && !inter) {
        /* an id for the model, the same on every member: its rank 0 takes
         * the next one of the job */
        int me = 0;
        PMPI_Comm_rank(comm, &me);
        if (me == 0) {
            /* a host's copy of the feed: host 0's agent hands it out */
            t->id = feed->relay ? tmpi_host_feed_comm_id()
                                : __atomic_add_fetch(&feed->next_comm, 1, __ATOMIC_RELAXED) + 1;
        }
        PMPI_Bcast(&t->id, 1, MPI_UINT64_T, 0, t->h);
    }
    if (PMPI_Comm_set_attr(comm, keyval, t) != MPI_SUCCESS) {
        PMPI_Comm_free(&t->h);
        free(t);
    }
}

/* ------------------------------------------------------------- stamps */

/* A stamp in flight: its buffer must live until the send completes.
 * Slots are allocated in blocks that never move. */
typedef struct stamp {
    int64_t v[2]; /* the message in the model's feed (id_of, -1: none), uncongested arrival (ps) */
    MPI_Request r;
} stamp;

static pthread_mutex_t pool_lock = PTHREAD_MUTEX_INITIALIZER;
static stamp **ring;
static size_t nring, cursor;

/* A free slot (its previous send completed), growing the pool when the
 * next one in turn is still in flight; NULL when out of memory. */
static stamp *slot_get(void)
{
    int done = 1;
    if (nring > 0) {
        stamp *s = ring[cursor];
        if (s->r != MPI_REQUEST_NULL) {
            PMPI_Test(&s->r, &done, MPI_STATUS_IGNORE);
        }
        if (done) {
            cursor = (cursor + 1) % nring;
            return s;
        }
    }
    size_t add = nring ? nring : 64;
    stamp *blk = calloc(add, sizeof *blk);
    stamp **grown = realloc(ring, (nring + add) * sizeof *grown);
    if (blk == NULL || grown == NULL) {
        free(blk);
        ring = grown != NULL ? grown : ring;
        return NULL;
    }
    ring = grown;
    /* the new slots go in at the cursor: they are used next */
    memmove(&ring[cursor + add], &ring[cursor], (nring - cursor) * sizeof *ring);
    for (size_t i = 0; i < add; i++) {
        blk[i].r = MPI_REQUEST_NULL;
        ring[cursor + i] = &blk[i];
    }
    nring += add;
    stamp *s = ring[cursor];
    cursor = (cursor + 1) % nring;
    return s;
}

/* The latencies of recent messages, per thread: a message's latency
 * depends on its nodes, size and kind, and on Gemini also on its bytes
 * (a 64-byte transaction of zero or one bits is compressed): a Gemini
 * message of one transaction is cached with that property, longer ones
 * whose bytes are looked at are computed each time.  Direct-mapped on
 * (destination, size). */
#define LAT_CACHE 64
typedef struct lat_entry {
    int64_t dst;
    uint64_t bytes;
    int32_t kind, valid; /* valid: 1, or 2 + uniform for one Gemini transaction */
    int64_t ps;
} lat_entry;
static __thread lat_entry lat_cache[LAT_CACHE];

int64_t tmpi_vt_message_latency(const temu_message *msg)
{
    int64_t lat = 0;
    int32_t tag = 1;
    if (tmpi_g.fam->payload == TEMU_PAYLOAD_BYTES && msg->payload != NULL) {
        tag = msg->bytes <= TEMU_GEMINI_MAX_TRANSACTION
                  ? 2 + temu_payload_is_uniform(msg->payload, (size_t)msg->bytes)
                  : 0;
    }
    int cacheable = msg->src == tmpi_g.node && tag != 0;
    lat_entry *e = &lat_cache[((uint64_t)msg->dst * 31u + msg->bytes) % LAT_CACHE];
    if (cacheable && e->valid == tag && e->dst == msg->dst && e->bytes == msg->bytes &&
        e->kind == (int32_t)msg->kind) {
        return e->ps;
    }
    if (tmpi_vt_latency(tmpi_g.m, &cfg, msg, &lat, NULL) != TEMU_OK) {
        lat = 0;
    }
    if (cacheable) {
        *e = (lat_entry){msg->dst, msg->bytes, (int32_t)msg->kind, tag, lat};
    }
    return lat;
}

static void stamp_send(int dest, int tag, MPI_Comm hidden, int64_t id, int64_t arrival)
{
    pthread_mutex_lock(&pool_lock);
    stamp *s = slot_get();
    if (s != NULL) {
        s->v[0] = id;
        s->v[1] = arrival;
        PMPI_Isend(s->v, 2, MPI_INT64_T, dest, tag, hidden, &s->r);
    }
    pthread_mutex_unlock(&pool_lock);
}

int64_t tmpi_vt_send_latency(const void *buf, int count, MPI_Datatype type, int dest, MPI_Comm comm)
{
    temu_message msg;
    return tmpi_send_message(buf, count, type, dest, comm, &msg) ? tmpi_vt_message_latency(&msg)
                                                                 : 0;
}

void tmpi_vt_stamp(int dest, int tag, MPI_Comm comm, int64_t latency_ps)
{
    MPI_Comm h = hidden_of(comm);
    if (dest != MPI_PROC_NULL && h != MPI_COMM_NULL) {
        stamp_send(dest, tag, h, last_id,
                   sent_arrival >= 0 ? sent_arrival : clock_now() + latency_ps);
    }
    last_id = -1;
    sent_arrival = -1;
}

void tmpi_vt_recv(MPI_Comm comm, const MPI_Status *st)
{
    int64_t v[2];
    int cancelled = 0;
    MPI_Comm h = hidden_of(comm);
    if (h == MPI_COMM_NULL || st->MPI_SOURCE == MPI_PROC_NULL || st->MPI_SOURCE < 0 ||
        (PMPI_Test_cancelled(st, &cancelled) == MPI_SUCCESS && cancelled)) {
        return;
    }
    if (PMPI_Recv(v, 2, MPI_INT64_T, st->MPI_SOURCE, st->MPI_TAG, h, MPI_STATUS_IGNORE) !=
        MPI_SUCCESS) {
        return;
    }
    if (feed == NULL || v[0] < 0) {
        clock_raise(v[1]); /* no online model: the uncongested arrival */
        return;
    }
    /* the model's delivery: the receive completes at max(clock, it) */
    int32_t src = (int32_t)((uint64_t)v[0] >> ID_SEQ_BITS);
    uint64_t seq = (uint64_t)v[0] & ((1ull << ID_SEQ_BITS) - 1);
    if (src < 0 || src >= tmpi_g.world_size) {
        clock_raise(v[1]);
        return;
    }
    /* the model delivers the last packet; the receive ends o_r later
     * (v[1], the stamp's arrival, has it already) */
    int64_t o_r = costs_recv_ps(src);
    clock_raise(delivery(src, seq, v[1] - o_r) + o_r);
    tmpi_vt_feed_take(feed, src, seq, tmpi_g.world_rank);
}

/* ------------------------------------------- collectives under the model */

/* The collective this thread is in (declared before the host's call). */
static __thread struct {
    int on;
    int64_t clock, chain;
    uint64_t first, count, comm, seq;
} cur;

void tmpi_vt_coll_declare(MPI_Comm comm, int64_t chain_ps, uint64_t first, uint64_t count)
{
    twin *t = twin_of(comm);
    cur.on = 0;
    if (feed == NULL || t == NULL || (t->id == 0 && t->size > 1)) {
        return;
    }
    tmpi_vt_state st = {.mode = TMPI_VT_COLL,
                        .coll_size = (uint32_t)t->size,
                        .in_mpi = 1,
                        .clock = clock_now(),
                        .src = -1,
                        .coll_comm = t->id,
                        .coll_seq = t->ncoll++,
                        .coll_first = first,
                        .coll_count = count,
                        .coll_chain = chain_ps};
    cur.on = 1;
    cur.clock = st.clock;
    cur.chain = chain_ps;
    cur.first = first;
    cur.count = count;
    cur.comm = st.coll_comm;
    cur.seq = st.coll_seq;
    pthread_mutex_lock(&feed_lock);
    tmpi_vt_feed_state(feed, tmpi_g.world_rank, &st);
    pthread_mutex_unlock(&feed_lock);
}

/* This member's exit: its clock + its chain, later by the most any of its
 * messages reached its destination after the chain would have it there
 * (utils/run_model.c, member_exit: the same rule). */
static int64_t coll_exit(void)
{
    int64_t late = 0;
    for (uint64_t i = 0; i < cur.count; i++) {
        uint64_t seq = cur.first + i;
        int64_t when = 0;
        tmpi_vt_feed_wait_delivery(feed, tmpi_g.world_rank, tmpi_g.world_rank, seq, &when,
                                   host_progress);
        int64_t prefix = feed->q[tmpi_g.world_rank].deliv[seq % TMPI_VT_DELIV_CAP].prefix;
        late = when - cur.clock - prefix > late ? when - cur.clock - prefix : late;
    }
    return cur.clock + cur.chain + late;
}

int tmpi_vt_coll_declared(void)
{
    return cur.on;
}

void tmpi_vt_coll_end(MPI_Comm comm)
{
    int64_t mine, all;
    MPI_Comm h = hidden_of(comm);
    if (!cur.on) {
        return;
    }
    cur.on = 0;
    mine = all = coll_exit();
    if (h != MPI_COMM_NULL &&
        PMPI_Allreduce(&mine, &all, 1, MPI_INT64_T, MPI_MAX, h) == MPI_SUCCESS) {
        clock_raise(all);
    }
    /* the model learns the exit from the first member to leave: the others
     * may still be in it when this one has moved on */
    tmpi_vt_left l = {cur.comm, cur.seq, all, 0};
    pthread_mutex_lock(&feed_lock);
    tmpi_vt_feed_left(feed, tmpi_g.world_rank, &l);
    pthread_mutex_unlock(&feed_lock);
    declare(TMPI_VT_RUNNING, 1, -1, 0);
}

int tmpi_vt_sync_begin(MPI_Comm comm)
{
    if (!tmpi_vt_online || !tmpi_vt_active() || cur.on) {
        return 0;
    }
    tmpi_vt_coll_declare(comm, 0, 0, 0);
    return cur.on;
}

void tmpi_vt_sync_end(MPI_Comm comm, int declared)
{
    if (declared) {
        tmpi_vt_coll_end(comm);
    }
}

void tmpi_vt_coll(MPI_Comm comm, int64_t chain_ps)
{
    int64_t mine = clock_now() + chain_ps, all = mine;
    MPI_Comm h = hidden_of(comm);
    if (h != MPI_COMM_NULL &&
        PMPI_Allreduce(&mine, &all, 1, MPI_INT64_T, MPI_MAX, h) == MPI_SUCCESS) {
        clock_raise(all);
    }
}

/* A non-blocking collective: the members' (clock + chain) are reduced by
 * an MPI_Iallreduce on the twin, started with the collective (collectives
 * start in the same order on every member, so the twin's match) and
 * finished when the collective's request completes. */
typedef struct icoll {
    int64_t in, out;
    MPI_Request r;
} icoll;

void tmpi_vt_icoll_start(MPI_Comm comm, int64_t chain_ps, MPI_Request req)
{
    MPI_Comm h = hidden_of(comm);
    icoll *c;
    if (h == MPI_COMM_NULL || (c = malloc(sizeof *c)) == NULL) {
        return;
    }
    c->in = c->out = clock_now() + chain_ps;
    if (PMPI_Iallreduce(&c->in, &c->out, 1, MPI_INT64_T, MPI_MAX, h, &c->r) != MPI_SUCCESS) {
        free(c);
        return;
    }
    tmpi_treq_add_icoll(req, c);
}

void tmpi_vt_icoll_done(void *state)
{
    icoll *c = state;
    if (c != NULL && PMPI_Wait(&c->r, MPI_STATUS_IGNORE) == MPI_SUCCESS) {
        clock_raise(c->out);
    }
    free(c);
}

/* ------------------------------------------------------------ start-up */

int tmpi_vt_start(void)
{
    const char *on = getenv(TMPI_VT_ENV), *scale = getenv(TMPI_VT_SCALE_ENV);
    double f = 1.0;
    char *end = NULL;
    temu_error err;
    if (on == NULL || strcmp(on, "1") != 0) {
        return 0;
    }
    if (scale != NULL && *scale != '\0') {
        f = strtod(scale, &end);
        if (end == scale || *end != '\0' || !isfinite(f) || f < 0) {
            fprintf(stderr, "torusemu-mpi: %s='%s' is not a factor >= 0\n", TMPI_VT_SCALE_ENV,
                    scale);
            return -1;
        }
    }
    if (temu_tm_config_default(tmpi_g.m, &cfg, &err) != TEMU_OK ||
        PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, hidden_delete, &keyval, NULL) !=
            MPI_SUCCESS ||
        PMPI_Comm_dup(MPI_COMM_WORLD, &twin_world.h) != MPI_SUCCESS ||
        PMPI_Comm_dup(MPI_COMM_SELF, &twin_self.h) != MPI_SUCCESS ||
        PMPI_Comm_size(MPI_COMM_WORLD, &twin_world.size) != MPI_SUCCESS) {
        fprintf(stderr, "torusemu-mpi: virtual time cannot start\n");
        return -1;
    }
    const char *mpi_costs = getenv(TMPI_VT_MPI_COSTS_ENV);
    costs = cfg.mpi;
    if (mpi_costs != NULL && strcmp(mpi_costs, "off") == 0) {
        memset(&costs, 0, sizeof costs); /* `run --mpi-costs off` */
    }
    send_free_ps = 0;
    const char *path = getenv(TMPI_VT_FEED_ENV);
    if (path != NULL && *path != '\0') {
        char why[512];
        why[0] = '\0';
        feed = tmpi_hosts_split() ? tmpi_host_feed_open(path, tmpi_g.world_rank, tmpi_g.world_size,
                                                        why, sizeof why)
                                  : tmpi_vt_feed_map(path, 0, 0, why, sizeof why);
        if (feed == NULL || feed->nranks < tmpi_g.world_size) {
            fprintf(stderr, "torusemu-mpi: rank %d: no online timing model (%s)\n",
                    tmpi_g.world_rank, feed == NULL ? why : "feed too small");
            tmpi_vt_feed_unmap(feed);
            feed = NULL;
        }
        tmpi_vt_online = feed != NULL;
    }
    ps_per_cpu_ns = 1000.0 * f;
    /* the two reads that bound an interval add their own CPU time to it
     * (a system call each): the least of 32 back-to-back pairs is taken
     * off every interval, so a program that computes nothing between two
     * calls advances by (nearly) nothing */
    read_cost_ns = UINT64_MAX;
    for (int i = 0; f > 0 && i < 32; i++) {
        uint64_t a = thread_cpu_ns(), b = thread_cpu_ns();
        read_cost_ns = b - a < read_cost_ns ? b - a : read_cost_ns;
    }
    read_cost_ns = read_cost_ns == UINT64_MAX ? 0 : read_cost_ns;
    clock_ps = 0;
    tmpi_vt_on = 1;
    return 0;
}
