/*
 * hosts.c - a run across hosts (`torusemu run --split-hosts N`, or N real
 * hosts): every host keeps its own store, and the counter updates of a
 * message that fall on another host's units travel to that host over MPI
 * (doc/mpi.md, "Across hosts").
 *
 * How: at the end of each injection (one message) the library hands this
 * layer the updates it set aside, per host (temu_session_split).  They
 * gather in one batch per host, which goes, when an MPI call that
 * completes something returns, in one message on the layer's own sockets
 * (host_wire.c) to the host's agent, a thread of the host's lowest rank
 * that applies it to its store and answers with an empty
 * acknowledgement.  The agents make no MPI call, so the program keeps the
 * thread level it asked for (and its one-sided windows).  The process's
 * next MPI call waits for those acknowledgements before it goes on.  A PAPI read on another host
 * can follow a call's return only through a later MPI call of this process (a message, a
 * collective, a window synchronisation: each starts by that wait) - so it sees every counter the
 * completed messages touched, as on one host, at one round trip per call that completed something
 * rather than one per message (doc/mpi.md, "What a reader sees").
 *
 * At MPI_Finalize, once every update has landed, the agents send rank 0
 * their hosts' counters over MPI (no agent runs any more), which it gathers into the run's store
 * (TORUSEMU_SESSION), and remove their hosts' stores: a run whose hosts
 * the launcher cannot see still ends with one store.
 *
 * Why not one-sided accumulates on a window per host (measured, doc/mpi.md):
 * Open MPI's accumulates over TCP (osc pt2pt) are applied only when the
 * target process itself enters MPI, are not atomic with the plain atomic
 * adds the host's other ranks make to the same counters, and bypass the
 * overflow watches of the store; the agent applies updates through the
 * library, so watches cross exactly as on one host.
 */
#include "tmpi.h"

#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* Tags of the layer's messages: updates to an agent, the
 * acknowledgements of updates (any thread of the process takes them), and
 * each thread's answers (one tag per thread, so a thread never takes
 * another's: host_feed.c's communicator ids). */
#define TAG_UPDATES 0x51
#define TAG_ACKS 0x56
#define TAG_ACK_FIRST 0x100
#define ACK_TAGS 4096
/* The largest message of updates: the library hands on at most 1024
 * pairs at once (split.c), plus the acknowledgement tag. */
#define WIRE_MAX (1 + 2 * 1024)

static MPI_Comm hosts_comm = MPI_COMM_NULL;
static temu_hosts *hosts;
static int32_t *leader;   /* world rank of each host's agent */
static temu_session *own; /* this host's store (the session the layer counts into) */
static pthread_t agent;
static int agent_on;
static int agent_stop;
static int finished;
static int next_ack_tag;
static __thread int ack_tag;
static __thread uint64_t *wire; /* WIRE_MAX words, at a thread's first batch */

/* Lazy acknowledgements (doc/mpi.md, "What a reader sees"): the updates
 * for each host gathered into one batch (bufs, under bufs_lock) until a
 * call that completes something returns; batches sent, acknowledged, and
 * the number that must be acknowledged before the process's next MPI call
 * goes on (each only grows); one thread at a time takes acknowledgements.
 * TORUSEMU_HOSTS_ACK=each: every message's updates sent at once, waiting
 * for their acknowledgement (the rule before, kept to measure it). */
TMPI_HIDDEN int tmpi_hosts_lazy;
TMPI_HIDDEN __thread int tmpi_hosts_started;
static uint64_t acks_sent, acks_taken, acks_due;
static pthread_mutex_t acks_lock = PTHREAD_MUTEX_INITIALIZER;
static int ack_each;
typedef struct batch {
    uint64_t *w; /* WIRE_MAX words: the acknowledgement tag, then pairs */
    int n;       /* words held, the tag's included (0: empty) */
} batch;
static batch *bufs; /* one per host */
static pthread_mutex_t bufs_lock = PTHREAD_MUTEX_INITIALIZER;
static int bufs_held; /* some batch holds updates */

int tmpi_hosts_wanted(void)
{
    const char *n = getenv(TEMU_HOSTS_ENV);
    return n != NULL && n[0] != '\0' && strcmp(n, "1") != 0;
}

/* Open MPI's own calls, past this library's wrappers: the layer's traffic
 * is none of the program's (not counted, and no state of the program's
 * call around it, such as a blocking send's virtual-time completion, is
 * touched). */
typedef int (*send_fn)(const void *, int, MPI_Datatype, int, int, MPI_Comm);
typedef int (*recv_fn)(void *, int, MPI_Datatype, int, int, MPI_Comm, MPI_Status *);

int tmpi_ompi_send(const void *buf, int n, MPI_Datatype t, int to, int tag, MPI_Comm c)
{
    static void *f;
    return ((send_fn)tmpi_next_fn(&f, "PMPI_Send"))(buf, n, t, to, tag, c);
}

int tmpi_ompi_recv(void *buf, int n, MPI_Datatype t, int from, int tag, MPI_Comm c, MPI_Status *st)
{
    static void *f;
    return ((recv_fn)tmpi_next_fn(&f, "PMPI_Recv"))(buf, n, t, from, tag, c, st);
}

/* ------------------------------------------------------------ sending */

int tmpi_hosts_ack_tag(void)
{
    if (ack_tag == 0) {
        ack_tag = TAG_ACK_FIRST + __atomic_fetch_add(&next_ack_tag, 1, __ATOMIC_RELAXED) % ACK_TAGS;
    }
    return ack_tag;
}

/* Take acknowledgements until `upto` batches have been acknowledged. */
static void acks_settle(uint64_t upto)
{
    while (__atomic_load_n(&acks_taken, __ATOMIC_ACQUIRE) < upto) {
        if (pthread_mutex_trylock(&acks_lock) != 0) {
            sched_yield(); /* another thread takes them */
            continue;
        }
        while (__atomic_load_n(&acks_taken, __ATOMIC_ACQUIRE) < upto) {
            size_t n = 0;
            uint64_t *ack = tmpi_wire_wait(-1, TAG_ACKS, &n, NULL);
            if (ack == NULL) {
                break;
            }
            free(ack);
            __atomic_add_fetch(&acks_taken, 1, __ATOMIC_RELEASE);
        }
        pthread_mutex_unlock(&acks_lock);
        break;
    }
}

void tmpi_hosts_enter(void)
{
    uint64_t due = __atomic_load_n(&acks_due, __ATOMIC_ACQUIRE);
    if (__atomic_load_n(&acks_taken, __ATOMIC_ACQUIRE) < due) {
        int depth = tmpi_depth;
        tmpi_depth = 2; /* ours: outside the program's virtual time */
        acks_settle(due);
        tmpi_depth = depth;
    }
}

/* Host h's batch sent (under bufs_lock); 0 or -1. */
static int batch_send(int32_t h)
{
    batch *b = &bufs[h];
    int rc = 0;
    if (b->n > 1) {
        b->w[0] = TAG_ACKS;
        rc = tmpi_wire_send(leader[h], TAG_UPDATES, b->w, (size_t)b->n);
        if (rc == 0) {
            __atomic_add_fetch(&acks_sent, 1, __ATOMIC_RELEASE);
        }
    }
    b->n = 0;
    return rc;
}

/* Every held batch sent. */
static void batches_send(void)
{
    if (!__atomic_load_n(&bufs_held, __ATOMIC_ACQUIRE)) {
        return;
    }
    pthread_mutex_lock(&bufs_lock);
    for (int32_t h = 0; h < temu_hosts_count(hosts); h++) {
        if (batch_send(h) != 0) {
            fprintf(stderr,
                    "torusemu-mpi: counter updates could not reach host %d; its counts "
                    "are short\n",
                    (int)h);
        }
    }
    __atomic_store_n(&bufs_held, 0, __ATOMIC_RELEASE);
    pthread_mutex_unlock(&bufs_lock);
}

void tmpi_hosts_leave(void)
{
    if (tmpi_hosts_started) {
        tmpi_hosts_started = 0; /* due when the call that completes it returns */
        return;
    }
    batches_send();
    uint64_t sent = __atomic_load_n(&acks_sent, __ATOMIC_ACQUIRE);
    uint64_t due = __atomic_load_n(&acks_due, __ATOMIC_RELAXED);
    while (due < sent && !__atomic_compare_exchange_n(&acks_due, &due, sent, 1, __ATOMIC_ACQ_REL,
                                                      __ATOMIC_RELAXED)) {
    }
}

/* n pairs added to host's batch (the batch sent first if they would not
 * fit); 0 or -1. */
static int batch_add(int32_t host, const uint64_t *pairs, int32_t n)
{
    batch *b = &bufs[host];
    int rc = 0;
    pthread_mutex_lock(&bufs_lock);
    if (b->w == NULL && (b->w = malloc(WIRE_MAX * sizeof *b->w)) == NULL) {
        rc = -1;
    } else {
        if (b->n + 2 * n > WIRE_MAX) {
            rc = batch_send(host);
        }
        b->n = b->n == 0 ? 1 : b->n;
        memcpy(b->w + b->n, pairs, (size_t)n * 2 * sizeof *pairs);
        b->n += 2 * n;
        __atomic_store_n(&bufs_held, 1, __ATOMIC_RELEASE);
    }
    pthread_mutex_unlock(&bufs_lock);
    return rc;
}

/* temu_split_send_fn: n pairs for host's agent, added to its batch; with
 * TORUSEMU_HOSTS_ACK=each sent at once, returning once applied. */
static int hosts_send(void *ctx, int32_t host, const uint64_t *pairs, int32_t n)
{
    (void)ctx;
    if (__atomic_load_n(&finished, __ATOMIC_ACQUIRE) || n < 0 || 1 + 2 * n > WIRE_MAX) {
        return -1;
    }
    if (!ack_each) {
        return batch_add(host, pairs, n);
    }
    if (wire == NULL && (wire = malloc(WIRE_MAX * sizeof *wire)) == NULL) {
        return -1;
    }
    int tag = tmpi_hosts_ack_tag();
    wire[0] = (uint64_t)tag;
    memcpy(wire + 1, pairs, (size_t)n * 2 * sizeof *pairs);
    size_t got = 0;
    uint64_t *ack = NULL;
    int rc = tmpi_wire_send(leader[host], TAG_UPDATES, wire, (size_t)(1 + 2 * n)) == 0 &&
                     (ack = tmpi_wire_wait(leader[host], tag, &got, NULL)) != NULL
                 ? 0
                 : -1;
    free(ack);
    return rc;
}

/* -------------------------------------------------------------- agent */

/* Wait a little while nothing arrives: 1024 yields first, then sleeps of
 * 100 us, so an idle agent costs a few thousand wake-ups a second and a
 * burst is served at once. */
static void agent_idle(unsigned *idle)
{
    if (++*idle < 1024) {
        sched_yield();
    } else {
        struct timespec ts = {0, 100000};
        nanosleep(&ts, NULL);
    }
}

/* One message of updates from `source`: applied, then acknowledged. */
static void agent_serve(const uint64_t *buf, size_t count, int32_t source)
{
    if (count >= 1 && (count - 1) % 2 == 0) {
        int32_t refused = temu_session_apply_updates(own, buf + 1, (int32_t)(count - 1) / 2);
        if (refused != 0) {
            fprintf(stderr,
                    "torusemu-mpi: rank %d sent %d updates of counters this host does "
                    "not own; ignored\n",
                    source, (int)refused);
        }
    }
    int tag = count >= 1 && buf[0] >= TAG_ACK_FIRST && buf[0] < TAG_ACK_FIRST + ACK_TAGS
                  ? (int)buf[0]
                  : TAG_ACKS;
    tmpi_wire_send(source, tag, NULL, 0);
}

/* Updates waiting from any rank: applied and acknowledged; 1 if any was. */
static int agent_updates(void)
{
    size_t count = 0;
    int32_t source = 0;
    uint64_t *buf = tmpi_wire_take(-1, TAG_UPDATES, &count, &source);
    if (buf == NULL) {
        return 0;
    }
    agent_serve(buf, count > WIRE_MAX ? 0 : count, source); /* too long: not ours */
    free(buf);
    return 1;
}

/* The agent serves counter updates, relays the online model's feed
 * (host_feed.c) and keeps the launcher's copy of the stores (host_copy.c)
 * until told to stop and the relay and the copies have ended. */
static void *agent_main(void *arg)
{
    (void)arg;
    unsigned idle = 0;
    /* nothing the agent does is the program's: not counted (depth above
     * 0) and outside its virtual time (depth above 1, tmpi_vt_active) */
    tmpi_depth = 2;
    for (;;) {
        int stopping = __atomic_load_n(&agent_stop, __ATOMIC_ACQUIRE);
        int busy = agent_updates();
        busy |= tmpi_host_feed_serve(stopping);
        busy |= tmpi_host_copy_serve(stopping);
        if (stopping && !busy && tmpi_host_feed_ended() && tmpi_host_copy_ended()) {
            break;
        }
        if (busy) {
            idle = 0;
        } else {
            agent_idle(&idle);
        }
    }
    return NULL;
}

/* ------------------------------------------------------- for host_feed.c */

MPI_Comm tmpi_hosts_comm(void)
{
    return hosts_comm;
}

int32_t tmpi_hosts_count(void)
{
    return temu_hosts_count(hosts);
}

int32_t tmpi_hosts_leader(int32_t host)
{
    return host >= 0 && host < temu_hosts_count(hosts) ? leader[host] : -1;
}

int32_t tmpi_hosts_rank_host(int32_t rank)
{
    return temu_hosts_rank_host(hosts, rank);
}

int tmpi_hosts_split(void)
{
    return hosts_comm != MPI_COMM_NULL;
}

/* ------------------------------------------------------------ start, end */

static int hosts_fail(int rank, const char *why, const char *detail)
{
    fprintf(stderr, "torusemu-mpi: rank %d: the run across hosts cannot start: %s%s%s\n", rank, why,
            detail[0] ? ": " : "", detail);
    return -1;
}

/* Agents: the lowest world rank of each host. */
static int leaders_find(int32_t size)
{
    int32_t n = temu_hosts_count(hosts);
    leader = malloc((size_t)n * sizeof *leader);
    if (leader == NULL) {
        return -1;
    }
    for (int32_t h = 0; h < n; h++) {
        leader[h] = -1;
    }
    for (int32_t r = size - 1; r >= 0; r--) {
        leader[temu_hosts_rank_host(hosts, r)] = r;
    }
    for (int32_t h = 0; h < n; h++) {
        if (leader[h] < 0) {
            return -1;
        }
    }
    return 0;
}

int tmpi_hosts_start(temu_session *s, int32_t rank, int32_t size)
{
    temu_error err = {0};
    char why[256];
    long n = strtol(getenv(TEMU_HOSTS_ENV), NULL, 10);
    own = s;
    if (temu_hosts_assign(s, (int32_t)n, &hosts, &err) != TEMU_OK) {
        return hosts_fail(rank, err.message, "");
    }
    if (temu_session_nranks(s) != size || leaders_find(size) != 0) {
        return hosts_fail(rank, "the job's ranks do not match the session's hosts", "");
    }
    int32_t host = temu_hosts_rank_host(hosts, rank);
    tmpi_depth++; /* our communicator, not the program's */
    int dup = PMPI_Comm_dup(MPI_COMM_WORLD, &hosts_comm);
    tmpi_depth--;
    if (dup != MPI_SUCCESS) {
        return hosts_fail(rank, "cannot duplicate MPI_COMM_WORLD", "");
    }
    if (tmpi_wire_open(hosts_comm, rank, size, why, sizeof why) != 0) {
        return hosts_fail(rank, why, "");
    }
    if (temu_session_split(s, hosts, host, hosts_send, NULL, &err) != TEMU_OK) {
        return hosts_fail(rank, err.message, "");
    }
    const char *each = getenv("TORUSEMU_HOSTS_ACK");
    ack_each = each != NULL && strcmp(each, "each") == 0;
    if ((bufs = calloc((size_t)temu_hosts_count(hosts), sizeof *bufs)) == NULL) {
        return hosts_fail(rank, "out of memory", "");
    }
    __atomic_store_n(&tmpi_hosts_lazy, !ack_each, __ATOMIC_RELEASE);
    if (leader[host] == rank &&
        tmpi_host_copy_start(s, host, temu_hosts_count(hosts), why, sizeof why) != 0) {
        return hosts_fail(rank, why, "");
    }
    if (leader[host] == rank) {
        int e = pthread_create(&agent, NULL, agent_main, NULL);
        if (e != 0) {
            return hosts_fail(rank, "cannot start the host's agent thread", strerror(e));
        }
        agent_on = 1;
    }
    return 0;
}

/* ------------------------------------------------------------ gathering */

#define TAG_GATHER 0x52

/* This host's counters and totals, copied out of its store. */
static uint64_t *own_counters(uint64_t *n, uint64_t totals[2])
{
    *n = temu_counter_count(own);
    uint64_t *c = malloc((size_t)(*n > 0 ? *n : 1) * sizeof *c);
    for (uint64_t i = 0; c != NULL && i < *n; i++) {
        c[i] = temu_counter_read(own, (int64_t)i);
    }
    totals[0] = temu_session_messages(own);
    totals[1] = temu_session_bytes(own);
    return c;
}

/* Rank 0: every host's counters into the run's store (TORUSEMU_SESSION),
 * each from the host that owns it, the totals summed. */
static void gather_into_run_store(uint64_t *c, uint64_t n, const uint64_t totals[2])
{
    temu_session *run = NULL;
    temu_error err = {0};
    temu_status rc = temu_session_attach(getenv(TEMU_SESSION_ENV), &run, &err);
    uint64_t sum[2] = {totals[0], totals[1]}, t[2];
    if (rc == TEMU_OK) {
        rc = temu_session_gather_host(run, hosts, 0, c, n, &err);
    }
    for (int32_t h = 1; h < temu_hosts_count(hosts); h++) {
        tmpi_ompi_recv(c, (int)n, MPI_UINT64_T, leader[h], TAG_GATHER, hosts_comm,
                       MPI_STATUS_IGNORE);
        tmpi_ompi_recv(t, 2, MPI_UINT64_T, leader[h], TAG_GATHER, hosts_comm, MPI_STATUS_IGNORE);
        sum[0] += t[0];
        sum[1] += t[1];
        if (rc == TEMU_OK) {
            rc = temu_session_gather_host(run, hosts, h, c, n, &err);
        }
    }
    if (rc == TEMU_OK) {
        temu_session_set_totals(run, sum[0], sum[1]);
    } else {
        fprintf(stderr, "torusemu-mpi: the hosts' counters were not gathered: %s\n", err.message);
    }
    temu_session_close(run);
}

/* The agents send rank 0 their host's counters; rank 0 gathers them. */
static void hosts_send_counters(int32_t rank, int32_t host)
{
    uint64_t n, totals[2];
    uint64_t *c = own_counters(&n, totals);
    if (c == NULL || n > (uint64_t)INT32_MAX) {
        fprintf(stderr, "torusemu-mpi: host %d's counters cannot be gathered\n", (int)host);
        PMPI_Abort(MPI_COMM_WORLD, 2);
    }
    if (rank == 0) {
        gather_into_run_store(c, n, totals);
    } else {
        tmpi_ompi_send(c, (int)n, MPI_UINT64_T, 0, TAG_GATHER, hosts_comm);
        tmpi_ompi_send(totals, 2, MPI_UINT64_T, 0, TAG_GATHER, hosts_comm);
    }
    free(c);
}

/* The hosts' counters gathered into the run's store over MPI, unless the
 * launcher gathers the stores itself (TORUSEMU_HOSTS_GATHERED: on one
 * machine, or from its copies of them, host_copy.c); the stores the agents
 * made go (a store the launcher made is its to remove: unlinking twice is
 * harmless, the launcher keeps its own mapping). */
static void hosts_gather(int32_t rank)
{
    int32_t host = temu_hosts_rank_host(hosts, rank);
    if (leader[host] != rank) {
        return;
    }
    if (getenv(TEMU_HOSTS_GATHERED_ENV) == NULL) {
        hosts_send_counters(rank, host);
    }
    const char *path = temu_session_path(own), *dir = getenv(TEMU_HOST_STORES_ENV);
    if (path[0] != '\0') {
        unlink(path);
    }
    if (dir != NULL) {
        rmdir(dir); /* fails while another host of this machine still has its store there */
    }
}

void tmpi_hosts_finish(void)
{
    if (hosts_comm == MPI_COMM_NULL || __atomic_exchange_n(&finished, 1, __ATOMIC_ACQ_REL)) {
        return;
    }
    /* every rank's last update acknowledged before the barrier, so past it
     * no update is on its way to any agent; the barrier is ours, not the
     * program's (not counted) */
    tmpi_depth++;
    batches_send();
    acks_settle(__atomic_load_n(&acks_sent, __ATOMIC_ACQUIRE));
    __atomic_store_n(&tmpi_hosts_lazy, 0, __ATOMIC_RELEASE);
    PMPI_Barrier(hosts_comm);
    if (agent_on) {
        __atomic_store_n(&agent_stop, 1, __ATOMIC_RELEASE);
        pthread_join(agent, NULL);
        agent_on = 0;
        tmpi_host_feed_close();
        tmpi_host_copy_close();
    }
    /* every agent has taken its last message before any socket closes (a
     * socket closed with words unread resets its peer's) */
    PMPI_Barrier(hosts_comm);
    tmpi_wire_close();
    int rank = 0;
    PMPI_Comm_rank(hosts_comm, &rank);
    hosts_gather(rank);
    PMPI_Comm_free(&hosts_comm);
    tmpi_depth--;
}
