/*
 * host_feed.c - the online timing model's feed across hosts (doc/mpi.md,
 * "Across hosts", "Virtual time").
 *
 * The model is a thread of the launcher and reads its feed in the shared
 * memory of the launcher's machine, host 0's (protocol/vt_feed.h).  The
 * ranks of every other host use a copy of the feed in their own host's
 * shared memory (its `relay` word set), exactly as host 0's ranks use the
 * launcher's, and the hosts' agents (hosts.c) keep the two in step over
 * the layer's own sockets (host_wire.c):
 *   up   (host h's agent -> host 0's): what h's ranks wrote, per rank in
 *        the order that keeps the model's reading sound: the takes logged
 *        by its receivers, the collectives it left, its new records, then
 *        its state with its version (read first: whatever the rank wrote
 *        before that state is then in the copy, and goes ahead of it);
 *   down (host 0's agent -> every other host's): each delivery the model
 *        published (time and collective prefix) and where the model waits
 *        (the polling ranks' target).
 * Host 0's agent writes what comes up into the launcher's feed with the
 * versions the ranks gave it (a take names the receiver's version), so the
 * model reads the same words it would read from ranks on its own machine,
 * later; being conservative, what it computes does not depend on when
 * they arrive.  A communicator's model id comes from host 0's agent, which
 * takes it from the launcher's feed as host 0's ranks do.
 *
 * At MPI_Finalize every rank has declared itself done before the agents
 * stop (hosts.c): each other host's agent sends its last words and an end
 * mark, host 0's answers once it has every host's; a send returns once
 * written, so nothing is left in flight.
 */
#include "run_env.h"
#include "tmpi.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* Tags of the layer's messages (hosts.c uses 0x51, 0x52, 0x56 and 0x100..) */
#define TAG_FEED_UP 0x53
#define TAG_FEED_DOWN 0x54
#define TAG_COMM_ID 0x55

/* An item: one word (kind << 32 | rank), then its words. */
enum { IT_TAKE = 1, IT_LEFT, IT_REC, IT_STATE, IT_END, IT_DELIV, IT_POLL, IT_END_ACK, IT_ALIVE };
/* another host's agent with nothing to relay says it is alive this often
 * (ns): host 0 then knows that host has no news in flight (relay_heard_ns
 * and tmpi_vt_feed_relay_busy in vt_feed.h) */
#define ALIVE_NS 20000000ll
#define REC_WORDS (sizeof(tmpi_vt_rec) / sizeof(uint64_t))
#define STATE_WORDS (sizeof(tmpi_vt_state) / sizeof(uint64_t))
#define LEFT_WORDS (sizeof(tmpi_vt_left) / sizeof(uint64_t))
_Static_assert(sizeof(tmpi_vt_rec) % sizeof(uint64_t) == 0, "records are whole words");
_Static_assert(sizeof(tmpi_vt_state) % sizeof(uint64_t) == 0, "states are whole words");
_Static_assert(sizeof(tmpi_vt_left) % sizeof(uint64_t) == 0, "lefts are whole words");

/* A message being put together (grows as needed). */
typedef struct words {
    uint64_t *w;
    size_t n, cap;
    int bad; /* out of memory: the relay is broken, said once */
} words;

static struct {
    int on;          /* published last (release): the agent relays */
    int owner;       /* host 0's agent: the launcher's feed */
    tmpi_vt_feed *f; /* the launcher's feed (owner) or this host's copy */
    int32_t host, nhosts, nranks;
    MPI_Comm comm; /* for the collectives at the start */
    /* each other host: what of its ranks' queues was passed on */
    uint64_t *sent_tail, *sent_left, *sent_ver;
    /* host 0: deliveries passed on, per sender: all below lo[r], and the
     * bits of those from lo[r] on (one per delivery slot) */
    uint64_t *lo, *bits;
    uint64_t poll_ver;
    int32_t ends; /* host 0: end marks received */
    int end_sent; /* another host: its end mark sent */
    int ended;    /* no more words to send or take */
    words out;
    /* what was relayed (TORUSEMU_HOSTS_FEED_STATS) */
    uint64_t n_rec, n_state, n_take, n_left, n_deliv;
    /* another host: how long its first record is held up (ms, test hook
     * TMPI_HOST_FEED_HOLD_ENV; 0 once done) */
    long hold_ms;
    /* host 0: when each host was last heard from; another: when it last
     * sent (host time, ns) */
    int64_t *heard, sent_ns;
    char mirror[4096]; /* this host's copy (removed at the end) */
} rel;

#define BITS_WORDS (TMPI_VT_DELIV_CAP / 64)

/* ------------------------------------------------------------ messages */

static uint64_t *words_add(words *o, int kind, int32_t rank, size_t n)
{
    if (o->n + 1 + n > o->cap) {
        size_t cap = o->cap ? o->cap * 2 : 1024;
        while (cap < o->n + 1 + n) {
            cap *= 2;
        }
        uint64_t *w = realloc(o->w, cap * sizeof *w);
        if (w == NULL) {
            if (!o->bad) {
                fprintf(stderr,
                        "torusemu-mpi: out of memory: the online model's feed no longer "
                        "reaches host %d\n",
                        (int)rel.host);
            }
            o->bad = 1;
            return NULL;
        }
        o->w = w;
        o->cap = cap;
    }
    o->w[o->n] = (uint64_t)kind << 32 | (uint32_t)rank;
    o->n += 1 + n;
    return o->w + o->n - n;
}

/* The message put together so far to world rank `to`. */
static void words_send(const words *o, int to, int tag)
{
    if (o->n > 0 && tmpi_wire_send(to, tag, o->w, o->n) != 0) {
        fprintf(stderr, "torusemu-mpi: host %d: the online model's feed could not reach rank %d\n",
                (int)rel.host, to);
    }
}

/* One waiting message with tag from `from` (-1: any) into in (its words
 * replaced); its word count, or -1 if none waits. */
static int message_take(int from, int tag, words *in, int *source)
{
    size_t n = 0;
    int32_t src = 0;
    uint64_t *w = tmpi_wire_take(from, tag, &n, &src);
    if (w == NULL) {
        return -1;
    }
    free(in->w);
    in->w = w;
    in->n = in->cap = n;
    *source = src;
    return n > INT32_MAX ? 0 : (int)n;
}

/* ------------------------------------------------- host 0: the model's side */

/* One item that came up, into the launcher's feed. */
static size_t owner_apply(const uint64_t *w, size_t left)
{
    int kind = (int)(w[0] >> 32);
    int32_t r = (int32_t)(uint32_t)w[0];
    size_t need = kind == IT_TAKE    ? 2
                  : kind == IT_LEFT  ? LEFT_WORDS
                  : kind == IT_REC   ? REC_WORDS
                  : kind == IT_STATE ? 1 + STATE_WORDS
                                     : 0;
    if (left < 1 + need || r < 0 || r >= rel.nranks) {
        return left; /* not ours: the rest of the message is dropped */
    }
    if (kind == IT_TAKE) {
        tmpi_vt_feed_take_at(rel.f, r, w[1], w[2]);
        rel.n_take++;
    } else if (kind == IT_LEFT) {
        tmpi_vt_left l;
        memcpy(&l, w + 1, sizeof l);
        tmpi_vt_feed_left(rel.f, r, &l);
        rel.n_left++;
    } else if (kind == IT_REC) {
        tmpi_vt_rec rec;
        memcpy(&rec, w + 1, sizeof rec);
        tmpi_vt_feed_push(rel.f, r, &rec);
        rel.n_rec++;
    } else if (kind == IT_STATE) {
        tmpi_vt_state st;
        memcpy(&st, w + 2, sizeof st);
        tmpi_vt_feed_state_at(rel.f, r, &st, w[1]);
        rel.n_state++;
    } else if (kind == IT_END) {
        rel.ends++;
    }
    return 1 + need; /* IT_ALIVE: the message itself was the news */
}

/* A communicator's id asked for by a rank of another host: the next of
 * the launcher's feed, answered on the tag the rank named. */
static int owner_comm_ids(void)
{
    words in = {0};
    int source = 0, served = 0;
    while (message_take(-1, TAG_COMM_ID, &in, &source) >= 1) {
        uint64_t id = __atomic_add_fetch(&rel.f->next_comm, 1, __ATOMIC_RELAXED) + 1;
        tmpi_wire_send(source, (int32_t)in.w[0], &id, 1);
        served = 1;
    }
    free(in.w);
    return served;
}

/* The deliveries the model published since the last look, for every
 * sender, and where it waits if that moved. */
static void owner_collect(words *o)
{
    for (int32_t r = 0; r < rel.nranks; r++) {
        uint64_t tail = __atomic_load_n(&rel.f->q[r].tail, __ATOMIC_ACQUIRE);
        uint64_t *bits = rel.bits + (size_t)r * BITS_WORDS, lo = rel.lo[r];
        if (tail - lo > TMPI_VT_DELIV_CAP) {
            lo = tail - TMPI_VT_DELIV_CAP; /* slots reused: the ranks count them lost */
            memset(bits, 0, BITS_WORDS * sizeof *bits);
        }
        for (uint64_t seq = lo; seq < tail; seq++) {
            uint64_t slot = seq % TMPI_VT_DELIV_CAP, bit = 1ull << (slot % 64);
            int64_t when = 0;
            uint64_t *w;
            if ((bits[slot / 64] & bit) || tmpi_vt_feed_delivery(rel.f, r, seq, &when) != 1 ||
                (w = words_add(o, IT_DELIV, r, 3)) == NULL) {
                continue;
            }
            w[0] = seq;
            w[1] = (uint64_t)when;
            w[2] = (uint64_t)rel.f->q[r].deliv[slot].prefix;
            bits[slot / 64] |= bit;
            rel.n_deliv++;
        }
        while (lo < tail && (bits[(lo % TMPI_VT_DELIV_CAP) / 64] >> (lo % 64) & 1)) {
            bits[(lo % TMPI_VT_DELIV_CAP) / 64] &= ~(1ull << (lo % 64));
            lo++;
        }
        rel.lo[r] = lo;
    }
    int64_t next, min, min2;
    int32_t min_rank;
    uint64_t v = tmpi_vt_feed_poll_read(rel.f, &next, &min, &min_rank, &min2);
    uint64_t *w;
    if (v != rel.poll_ver && (w = words_add(o, IT_POLL, min_rank, 3)) != NULL) {
        w[0] = (uint64_t)next;
        w[1] = (uint64_t)min;
        w[2] = (uint64_t)min2;
        rel.poll_ver = v;
    }
}

static int64_t relay_now_ns(void)
{
    struct timespec ts = {0, 0};
    tmpi_host_clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000ll + ts.tv_nsec;
}

/* A message came from world rank `source` (-1: none, only publish): its
 * host heard from now; the oldest of the hosts' times into the feed. */
static void owner_heard(int source)
{
    int64_t now = relay_now_ns(), oldest = now;
    for (int32_t h = 1; h < rel.nhosts; h++) {
        if (source >= 0 && tmpi_hosts_leader(h) == source) {
            rel.heard[h] = now;
        }
        oldest = rel.heard[h] < oldest ? rel.heard[h] : oldest;
    }
    __atomic_store_n(&rel.f->relay_heard_ns, oldest, __ATOMIC_RELEASE);
}

static int owner_serve(int stopping)
{
    words in = {0};
    int source = 0, busy = 0, count;
    if (rel.ended) {
        return 0; /* the other hosts take nothing more */
    }
    while ((count = message_take(-1, TAG_FEED_UP, &in, &source)) >= 0) {
        for (size_t i = 0; i < (size_t)count;) {
            i += owner_apply(in.w + i, (size_t)count - i);
        }
        owner_heard(source);
        busy = 1;
    }
    free(in.w);
    owner_heard(-1);
    busy |= owner_comm_ids();
    rel.out.n = 0;
    owner_collect(&rel.out);
    /* every other host has sent its last words: they end the relay */
    int last = stopping && !rel.ended && rel.ends == rel.nhosts - 1;
    if (last) {
        words_add(&rel.out, IT_END_ACK, 0, 0);
        rel.ended = 1;
    }
    for (int32_t h = 1; h < rel.nhosts && rel.out.n > 0; h++) {
        words_send(&rel.out, tmpi_hosts_leader(h), TAG_FEED_DOWN);
    }
    busy |= rel.out.n > 0;
    return busy;
}

/* ------------------------------------------------ another host: its copy */

static void mirror_apply(const uint64_t *w, size_t count)
{
    for (size_t i = 0; i < count;) {
        int kind = (int)(w[i] >> 32);
        int32_t r = (int32_t)(uint32_t)w[i];
        if (kind == IT_DELIV && i + 4 <= count && r >= 0 && r < rel.nranks) {
            rel.f->q[r].deliv[w[i + 1] % TMPI_VT_DELIV_CAP].prefix = (int64_t)w[i + 3];
            tmpi_vt_feed_deliver(rel.f, r, w[i + 1], (int64_t)w[i + 2]);
            rel.n_deliv++;
            i += 4;
        } else if (kind == IT_POLL && i + 4 <= count) {
            tmpi_vt_feed_poll_publish(rel.f, (int64_t)w[i + 1], (int64_t)w[i + 2], r,
                                      (int64_t)w[i + 3]);
            i += 4;
        } else {
            rel.ended |= kind == IT_END_ACK;
            i = count; /* the end mark is last; anything else is not ours */
        }
    }
}

/* Rank r's takes logged since the last look. */
static void mirror_takes(words *o, int32_t r)
{
    tmpi_vt_queue *q = &rel.f->q[r];
    uint64_t head = q->take_head, n = __atomic_load_n(&q->ntake, __ATOMIC_ACQUIRE);
    for (; head < n; head++) {
        const tmpi_vt_take *t = &q->take[head % TMPI_VT_TAKE_CAP];
        if (__atomic_load_n(&t->slot1, __ATOMIC_ACQUIRE) != head + 1) {
            break; /* reserved, not yet written: the next look */
        }
        uint64_t *w = words_add(o, IT_TAKE, t->src, 2);
        if (w != NULL) {
            w[0] = t->seq;
            w[1] = t->ver;
            rel.n_take++;
        }
    }
    __atomic_store_n(&q->take_head, head, __ATOMIC_RELEASE);
}

/* Entries [from, to) of one of rank r's rings (cap entries of size bytes,
 * whole words) as items of kind; how many went. */
static uint64_t ring_items(words *o, int kind, int32_t r, const void *ring, size_t size,
                           uint64_t cap, uint64_t from, uint64_t to)
{
    uint64_t n = 0, *w;
    for (uint64_t i = from; i < to; i++) {
        if ((w = words_add(o, kind, r, size / sizeof(uint64_t))) != NULL) {
            memcpy(w, (const char *)ring + (i % cap) * size, size);
            n++;
        }
    }
    return n;
}

/* Rank r's news: its state read first, so everything it wrote before it
 * is seen and goes ahead of it. */
static void mirror_rank(words *o, int32_t r)
{
    tmpi_vt_queue *q = &rel.f->q[r];
    tmpi_vt_state st;
    uint64_t ver = tmpi_vt_feed_read_state(rel.f, r, &st), *w;
    mirror_takes(o, r);
    uint64_t nleft = __atomic_load_n(&q->nleft, __ATOMIC_ACQUIRE);
    rel.n_left += ring_items(o, IT_LEFT, r, q->left, sizeof q->left[0], TMPI_VT_LEFT_CAP,
                             rel.sent_left[r], nleft);
    rel.sent_left[r] = nleft;
    uint64_t tail = __atomic_load_n(&q->tail, __ATOMIC_ACQUIRE);
    rel.n_rec += ring_items(o, IT_REC, r, q->rec, sizeof q->rec[0], TMPI_VT_FEED_CAP,
                            rel.sent_tail[r], tail);
    rel.sent_tail[r] = tail;
    __atomic_store_n(&q->head, tail, __ATOMIC_RELEASE); /* the rank may reuse them */
    if (ver != rel.sent_ver[r] && (w = words_add(o, IT_STATE, r, 1 + STATE_WORDS)) != NULL) {
        w[0] = ver;
        memcpy(w + 1, &st, sizeof st);
        rel.sent_ver[r] = ver;
        rel.n_state++;
    }
}

/* The test hook: the first message carrying a record (n_rec moved from
 * recs) waits hold_ms, every rank of the host going on meanwhile. */
static void mirror_hold(uint64_t recs)
{
    if (rel.hold_ms > 0 && rel.n_rec != recs) {
        struct timespec ts = {rel.hold_ms / 1000, (rel.hold_ms % 1000) * 1000000};
        nanosleep(&ts, NULL);
        rel.hold_ms = 0;
    }
}

static int mirror_serve(int stopping)
{
    words in = {0};
    int source = 0, busy = 0, count;
    int32_t owner = tmpi_hosts_leader(0);
    while ((count = message_take(owner, TAG_FEED_DOWN, &in, &source)) >= 0) {
        mirror_apply(in.w, (size_t)count);
        busy = 1;
    }
    free(in.w);
    if (busy) {
        tmpi_vt_feed_wake_ranks(rel.f);
    }
    rel.out.n = 0;
    uint64_t recs = rel.n_rec;
    for (int32_t r = 0; r < rel.nranks && !rel.end_sent; r++) {
        if (tmpi_hosts_rank_host(r) == rel.host) {
            mirror_rank(&rel.out, r);
        }
    }
    mirror_hold(recs);
    /* stopping: every rank has declared itself done, so this was the last */
    if (stopping && !rel.end_sent) {
        words_add(&rel.out, IT_END, 0, 0);
        rel.end_sent = 1;
    }
    int news = rel.out.n > 0;
    int64_t now = relay_now_ns();
    if (rel.out.n == 0 && !rel.end_sent && now - rel.sent_ns >= ALIVE_NS) {
        words_add(&rel.out, IT_ALIVE, 0, 0); /* no news from here */
    }
    if (rel.out.n > 0) {
        rel.sent_ns = now;
    }
    words_send(&rel.out, owner, TAG_FEED_UP);
    return busy || news;
}

/* ------------------------------------------------------------ the agent */

int tmpi_host_feed_serve(int stopping)
{
    if (!__atomic_load_n(&rel.on, __ATOMIC_ACQUIRE)) {
        return 0;
    }
    return rel.owner ? owner_serve(stopping) : mirror_serve(stopping);
}

int tmpi_host_feed_ended(void)
{
    return !__atomic_load_n(&rel.on, __ATOMIC_ACQUIRE) || rel.ended;
}

uint64_t tmpi_host_feed_comm_id(void)
{
    uint64_t tag = (uint64_t)tmpi_hosts_ack_tag(), id = 0, *w = NULL;
    int32_t owner = tmpi_hosts_leader(0);
    size_t n = 0;
    if (tmpi_wire_send(owner, TAG_COMM_ID, &tag, 1) == 0 &&
        (w = tmpi_wire_wait(owner, (int32_t)tag, &n, NULL)) != NULL && n == 1) {
        id = w[0];
    }
    free(w);
    return id;
}

/* ------------------------------------------------------------ start, end */

static int relay_start(tmpi_vt_feed *f, int32_t host)
{
    size_t n = (size_t)f->nranks;
    rel.f = f;
    rel.host = host;
    rel.owner = host == 0;
    rel.nhosts = tmpi_hosts_count();
    rel.nranks = f->nranks;
    rel.sent_tail = calloc(n, sizeof *rel.sent_tail);
    rel.sent_left = calloc(n, sizeof *rel.sent_left);
    rel.sent_ver = calloc(n, sizeof *rel.sent_ver);
    rel.lo = calloc(n, sizeof *rel.lo);
    rel.bits = rel.owner ? calloc(n * BITS_WORDS, sizeof *rel.bits) : NULL;
    rel.heard = rel.owner ? calloc((size_t)rel.nhosts, sizeof *rel.heard) : NULL;
    if (rel.sent_tail == NULL || rel.sent_left == NULL || rel.sent_ver == NULL || rel.lo == NULL ||
        (rel.owner && (rel.bits == NULL || rel.heard == NULL))) {
        return -1;
    }
    for (int32_t h = 0; rel.owner && h < rel.nhosts; h++) {
        rel.heard[h] = relay_now_ns();
    }
    const char *hold = getenv(TMPI_HOST_FEED_HOLD_ENV);
    rel.hold_ms = hold != NULL && !rel.owner ? strtol(hold, NULL, 10) : 0;
    __atomic_store_n(&rel.on, 1, __ATOMIC_RELEASE);
    return 0;
}

/* This host's copy of the feed: made by the host's agent rank (an old
 * one of a killed run replaced), mapped by the others after the barrier. */
static tmpi_vt_feed *mirror_make(int32_t host, int32_t nranks, char *why, size_t len)
{
    const char *dir = getenv(TEMU_HOST_STORES_ENV);
    tmpi_vt_feed *f = NULL;
    if (dir == NULL || dir[0] == '\0' ||
        snprintf(rel.mirror, sizeof rel.mirror, TMPI_HOST_FEED_FORMAT, dir, (int)host) >=
            (int)sizeof rel.mirror) {
        snprintf(why, len, "%s is not set or too long", TEMU_HOST_STORES_ENV);
        rel.mirror[0] = '\0';
        return NULL;
    }
    unlink(rel.mirror);
    f = tmpi_vt_feed_map(rel.mirror, 1, nranks, why, len);
    if (f != NULL) {
        f->relay = 1;
    }
    return f;
}

tmpi_vt_feed *tmpi_host_feed_open(const char *path, int32_t rank, int32_t size, char *why,
                                  size_t len)
{
    int32_t host = tmpi_hosts_rank_host(rank);
    int leader = tmpi_hosts_leader(host) == rank, ok, all = 0;
    tmpi_vt_feed *f = NULL;
    rel.comm = tmpi_hosts_comm();
    if (host == 0) {
        f = tmpi_vt_feed_map(path, 0, 0, why, len);
    } else if (leader) {
        f = mirror_make(host, size, why, len);
    }
    tmpi_depth++; /* ours, not the program's */
    PMPI_Barrier(rel.comm);
    if (host != 0 && !leader) {
        char mpath[sizeof rel.mirror];
        const char *dir = getenv(TEMU_HOST_STORES_ENV);
        snprintf(mpath, sizeof mpath, TMPI_HOST_FEED_FORMAT, dir != NULL ? dir : "", (int)host);
        f = tmpi_vt_feed_map(mpath, 0, 0, why, len);
    }
    ok = f != NULL && f->nranks >= size;
    if (!ok) {
        /* host 0's ranks must share the launcher's machine (its feed) */
        fprintf(stderr,
                "torusemu-mpi: rank %d (host %d): the online timing model's feed cannot be "
                "opened: %s%s\n",
                (int)rank, (int)host, f == NULL ? why : "feed too small",
                host == 0 ? "; host 0's ranks must run on the launcher's machine" : "");
    }
    /* every rank has its feed, or the run cannot go on: a host whose ranks
     * wait for deliveries nobody relays would hang */
    PMPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, rel.comm);
    tmpi_depth--;
    if (!all || (leader && relay_start(f, host) != 0)) {
        PMPI_Abort(MPI_COMM_WORLD, 2);
    }
    return f;
}

void tmpi_host_feed_close(void)
{
    if (!__atomic_load_n(&rel.on, __ATOMIC_ACQUIRE)) {
        return;
    }
    const char *stats = getenv(TMPI_HOST_FEED_STATS_ENV);
    if (stats != NULL && strcmp(stats, "1") == 0) {
        fprintf(stderr,
                "torusemu-mpi: host %d feed relay: %llu records, %llu states, %llu takes, "
                "%llu collectives left %s, %llu deliveries %s\n",
                (int)rel.host, (unsigned long long)rel.n_rec, (unsigned long long)rel.n_state,
                (unsigned long long)rel.n_take, (unsigned long long)rel.n_left,
                rel.owner ? "received" : "sent", (unsigned long long)rel.n_deliv,
                rel.owner ? "sent" : "received");
    }
    if (rel.mirror[0] != '\0') {
        unlink(rel.mirror);
    }
}
