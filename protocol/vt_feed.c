/*
 * vt_feed.c - the online model's shared-memory feed (vt_feed.h).
 * Single producer per queue (the rank; its threads serialise in
 * mpi/rank_vtime.c), single consumer (the launcher's model thread): head and tail are
 * published with release stores and read with acquire loads; a rank's
 * state under a sequence lock; a delivery slot names its message
 * (seq1), written last.
 *
 * Waiting: a rank that waits for a delivery and the model thread with
 * nothing to do sleep on futex words in the feed (shared between
 * processes, so not FUTEX_PRIVATE) instead of spinning: on a host with
 * fewer cores than ranks, spinning waiters take the core from the one who
 * would answer them (doc/performance.md, "Live runs in virtual time").
 * Each sleeper announces itself (asleep), then looks once more for what
 * it waits for, then sleeps unless its futex word moved; each waker
 * publishes first, then looks for an announced sleeper: with a full
 * fence between the two steps on both sides (Dekker), the sleeper sees
 * the publication or the waker sees the sleeper, so no wake-up is lost.
 * The sleeps have a timeout, a safety net only: what a rank or the model
 * computes never depends on when it woke.
 */
#include "vt_feed.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/futex.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

tmpi_vt_feed *tmpi_vt_feed_map(const char *path, int create, int32_t nranks, char *why, size_t len)
{
    int fd = create ? open(path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600)
                    : open(path, O_RDWR | O_NOFOLLOW | O_CLOEXEC);
    tmpi_vt_feed *f = NULL;
    if (fd < 0) {
        snprintf(why, len, "%s: %s", path, strerror(errno));
        return NULL;
    }
    size_t size = 0;
    if (create) {
        size = tmpi_vt_feed_size(nranks);
        if (ftruncate(fd, (off_t)size) != 0) {
            snprintf(why, len, "%s: %s", path, strerror(errno));
            close(fd);
            return NULL;
        }
    } else {
        off_t end = lseek(fd, 0, SEEK_END);
        size = end > 0 ? (size_t)end : 0;
    }
    if (size < sizeof(tmpi_vt_feed)) {
        snprintf(why, len, "%s: not a feed file", path);
        close(fd);
        return NULL;
    }
    void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    if (p == MAP_FAILED) {
        snprintf(why, len, "%s: %s", path, strerror(errno));
        return NULL;
    }
    f = p;
    if (create) {
        f->nranks = nranks;
        f->poll_next = INT64_MAX; /* the model has run nothing yet */
        __atomic_store_n(&f->magic, TMPI_VT_FEED_MAGIC, __ATOMIC_RELEASE);
    } else if (__atomic_load_n(&f->magic, __ATOMIC_ACQUIRE) != TMPI_VT_FEED_MAGIC ||
               f->nranks < 0 || tmpi_vt_feed_size(f->nranks) != size) {
        snprintf(why, len, "%s: not a feed file", path);
        munmap(p, size);
        return NULL;
    }
    return f;
}

void tmpi_vt_feed_unmap(tmpi_vt_feed *f)
{
    if (f != NULL) {
        munmap(f, tmpi_vt_feed_size(f->nranks));
    }
}

static void futex_wait(uint32_t *word, uint32_t seen, int64_t timeout_ns)
{
    struct timespec ts = {(time_t)(timeout_ns / 1000000000), (long)(timeout_ns % 1000000000)};
    syscall(SYS_futex, word, FUTEX_WAIT, seen, &ts, NULL, 0);
}

static void futex_wake(uint32_t *word)
{
    syscall(SYS_futex, word, FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
}

void tmpi_vt_feed_wake_model(tmpi_vt_feed *f)
{
    __atomic_thread_fence(__ATOMIC_SEQ_CST); /* what was published, then the look */
    if (__atomic_load_n(&f->model_asleep, __ATOMIC_RELAXED) != 0 &&
        __atomic_exchange_n(&f->model_asleep, 0, __ATOMIC_SEQ_CST) != 0) {
        __atomic_fetch_add(&f->model_wake, 1, __ATOMIC_SEQ_CST);
        futex_wake(&f->model_wake);
    }
}

/* Rank r's news (a state, a message) can let the sleeping model run on:
 * it sleeps only when it cannot run past the smallest rank bound of its
 * last pass (poll_min_rank's), and another rank's news cannot raise that
 * bound.  -1: every bound was the end of time, any news may count.  The
 * model published the rank before it announced its sleep, and looks at
 * every rank's version after that announcement (model_sleep), so news
 * from a pass it has not read yet keeps it awake. */
static void wake_model_for(tmpi_vt_feed *f, int32_t r)
{
    int32_t who = __atomic_load_n(&f->poll_min_rank, __ATOMIC_RELAXED);
    if (who < 0 || who == r) {
        tmpi_vt_feed_wake_model(f);
    }
}

void tmpi_vt_feed_model_sleep(tmpi_vt_feed *f, const uint64_t *ver, int64_t timeout_ns)
{
    uint32_t seen = __atomic_load_n(&f->model_wake, __ATOMIC_ACQUIRE);
    int changed = 0;
    __atomic_store_n(&f->model_asleep, 1, __ATOMIC_SEQ_CST);
    __atomic_thread_fence(__ATOMIC_SEQ_CST); /* the announcement, then the look */
    for (int32_t r = 0; r < f->nranks && !changed; r++) {
        const tmpi_vt_queue *q = &f->q[r];
        changed = __atomic_load_n(&q->ver, __ATOMIC_ACQUIRE) != ver[r] ||
                  __atomic_load_n(&q->tail, __ATOMIC_ACQUIRE) != q->head;
    }
    if (!changed) {
        futex_wait(&f->model_wake, seen, timeout_ns);
    }
    __atomic_store_n(&f->model_asleep, 0, __ATOMIC_RELAXED);
}

/* Looks at the feed, yielding the core in between, before a waiting rank
 * goes to sleep: a wake-up costs two system calls and a context switch,
 * more than the model usually takes to answer when it has a core. */
#define WAIT_LOOKS 16
/* A sleeping rank looks again after this long (ns) whatever happened: it
 * also runs its MPI's progress then, which other ranks blocked in the
 * host's MPI may need (rank_vtime.c, host_progress), so short. */
#define WAIT_SLEEP_NS 1000000

int tmpi_vt_feed_wait_delivery(tmpi_vt_feed *f, int32_t r, int32_t src, uint64_t seq, int64_t *when,
                               void (*between)(void))
{
    tmpi_vt_sleep *z = &f->q[r].sleep;
    int got;
    for (unsigned looks = 0; (got = tmpi_vt_feed_delivery(f, src, seq, when)) == 0; looks++) {
        if (between != NULL) {
            between();
        }
        if (looks < WAIT_LOOKS) {
            sched_yield();
            continue;
        }
        uint32_t seen = __atomic_load_n(&z->wake, __ATOMIC_ACQUIRE);
        __atomic_store_n(&z->src, src, __ATOMIC_RELAXED);
        __atomic_store_n(&z->seq, seq, __ATOMIC_RELAXED);
        if (__atomic_fetch_add(&z->asleep, 1, __ATOMIC_SEQ_CST) > 0) {
            __atomic_store_n(&z->any, 1, __ATOMIC_SEQ_CST); /* another thread sleeps too */
        }
        __atomic_thread_fence(__ATOMIC_SEQ_CST); /* the announcement, then the look */
        got = tmpi_vt_feed_delivery(f, src, seq, when);
        if (got == 0) {
            futex_wait(&z->wake, seen, WAIT_SLEEP_NS);
        }
        if (__atomic_sub_fetch(&z->asleep, 1, __ATOMIC_SEQ_CST) == 0) {
            __atomic_store_n(&z->any, 0, __ATOMIC_RELAXED);
        }
        if (got != 0) {
            break;
        }
    }
    return got;
}

void tmpi_vt_feed_wake_ranks(tmpi_vt_feed *f)
{
    int64_t when;
    __atomic_thread_fence(__ATOMIC_SEQ_CST); /* the deliveries, then the look */
    for (int32_t r = 0; r < f->nranks; r++) {
        tmpi_vt_sleep *z = &f->q[r].sleep;
        if (__atomic_load_n(&z->asleep, __ATOMIC_SEQ_CST) == 0) {
            continue;
        }
        int32_t src = __atomic_load_n(&z->src, __ATOMIC_RELAXED);
        uint64_t seq = __atomic_load_n(&z->seq, __ATOMIC_RELAXED);
        if (__atomic_load_n(&z->any, __ATOMIC_RELAXED) || src < 0 || src >= f->nranks ||
            tmpi_vt_feed_delivery(f, src, seq, &when) != 0) {
            __atomic_fetch_add(&z->wake, 1, __ATOMIC_SEQ_CST);
            futex_wake(&z->wake);
        }
    }
}

uint64_t tmpi_vt_feed_push(tmpi_vt_feed *f, int32_t r, const tmpi_vt_rec *rec)
{
    tmpi_vt_queue *q = &f->q[r];
    uint64_t tail = q->tail;
    /* full: wait for the model thread, which drains queues continuously */
    while (tail - __atomic_load_n(&q->head, __ATOMIC_ACQUIRE) >= TMPI_VT_FEED_CAP) {
        struct timespec ts = {0, 100000};
        nanosleep(&ts, NULL);
    }
    q->rec[tail % TMPI_VT_FEED_CAP] = *rec;
    __atomic_store_n(&q->tail, tail + 1, __ATOMIC_RELEASE);
    wake_model_for(f, r);
    return tail;
}

/* st into rank r's queue under its sequence lock, ending at version ver */
static void state_write(tmpi_vt_queue *q, const tmpi_vt_state *st, uint64_t ver)
{
    __atomic_store_n(&q->ver, ver - 1, __ATOMIC_RELAXED);
    __atomic_thread_fence(__ATOMIC_RELEASE);
    /* word by word, relaxed: a reader that overlaps retries */
    const uint64_t *from = (const uint64_t *)st;
    uint64_t *to = (uint64_t *)&q->st;
    for (size_t i = 0; i < sizeof *st / sizeof *from; i++) {
        __atomic_store_n(&to[i], from[i], __ATOMIC_RELAXED);
    }
    __atomic_store_n(&q->ver, ver, __ATOMIC_RELEASE);
}

void tmpi_vt_feed_state(tmpi_vt_feed *f, int32_t r, const tmpi_vt_state *st)
{
    state_write(&f->q[r], st, f->q[r].ver + 2);
    wake_model_for(f, r);
}

void tmpi_vt_feed_state_at(tmpi_vt_feed *f, int32_t r, const tmpi_vt_state *st, uint64_t ver)
{
    state_write(&f->q[r], st, ver);
    tmpi_vt_feed_wake_model(f);
}

void tmpi_vt_feed_poll_publish(tmpi_vt_feed *f, int64_t next, int64_t min, int32_t min_rank,
                               int64_t min2)
{
    uint64_t v = f->poll_ver;
    __atomic_store_n(&f->poll_ver, v + 1, __ATOMIC_RELAXED);
    __atomic_thread_fence(__ATOMIC_RELEASE);
    __atomic_store_n(&f->poll_next, next, __ATOMIC_RELAXED);
    __atomic_store_n(&f->poll_min, min, __ATOMIC_RELAXED);
    __atomic_store_n(&f->poll_min2, min2, __ATOMIC_RELAXED);
    __atomic_store_n(&f->poll_min_rank, min_rank, __ATOMIC_RELAXED);
    __atomic_store_n(&f->poll_ver, v + 2, __ATOMIC_RELEASE);
}

uint64_t tmpi_vt_feed_poll_read(const tmpi_vt_feed *f, int64_t *next, int64_t *min,
                                int32_t *min_rank, int64_t *min2)
{
    for (;;) {
        uint64_t v = __atomic_load_n(&f->poll_ver, __ATOMIC_ACQUIRE);
        if (v & 1) {
            continue;
        }
        *next = __atomic_load_n(&f->poll_next, __ATOMIC_RELAXED);
        *min = __atomic_load_n(&f->poll_min, __ATOMIC_RELAXED);
        *min2 = __atomic_load_n(&f->poll_min2, __ATOMIC_RELAXED);
        *min_rank = __atomic_load_n(&f->poll_min_rank, __ATOMIC_RELAXED);
        __atomic_thread_fence(__ATOMIC_ACQUIRE);
        if (__atomic_load_n(&f->poll_ver, __ATOMIC_RELAXED) == v) {
            return v;
        }
    }
}

int64_t tmpi_vt_feed_poll_target(const tmpi_vt_feed *f, int32_t r)
{
    int64_t next, min, min2;
    int32_t min_rank;
    tmpi_vt_feed_poll_read(f, &next, &min, &min_rank, &min2);
    if (next == INT64_MAX) {
        return INT64_MAX; /* nothing in the network or on its way */
    }
    int64_t others = min_rank == r ? min2 : min; /* the other ranks' bound */
    return next < others ? next : others;
}

uint64_t tmpi_vt_feed_read_state(const tmpi_vt_feed *f, int32_t r, tmpi_vt_state *st)
{
    const tmpi_vt_queue *q = &f->q[r];
    uint64_t *to = (uint64_t *)st;
    const uint64_t *from = (const uint64_t *)&q->st;
    for (;;) {
        uint64_t v = __atomic_load_n(&q->ver, __ATOMIC_ACQUIRE);
        if (v & 1) {
            continue;
        }
        for (size_t i = 0; i < sizeof *st / sizeof *to; i++) {
            to[i] = __atomic_load_n(&from[i], __ATOMIC_RELAXED);
        }
        __atomic_thread_fence(__ATOMIC_ACQUIRE);
        if (__atomic_load_n(&q->ver, __ATOMIC_RELAXED) == v) {
            return v;
        }
    }
}

int tmpi_vt_feed_delivery(const tmpi_vt_feed *f, int32_t r, uint64_t seq, int64_t *when)
{
    const tmpi_vt_deliv *d = &f->q[r].deliv[seq % TMPI_VT_DELIV_CAP];
    uint64_t s1 = __atomic_load_n(&d->seq1, __ATOMIC_ACQUIRE);
    if (s1 == seq + 1) {
        *when = __atomic_load_n(&d->when, __ATOMIC_RELAXED);
        /* the slot may have been reused meanwhile */
        __atomic_thread_fence(__ATOMIC_ACQUIRE);
        return __atomic_load_n(&d->seq1, __ATOMIC_RELAXED) == s1 ? 1 : -1;
    }
    return s1 > seq + 1 ? -1 : 0;
}

void tmpi_vt_feed_deliver(tmpi_vt_feed *f, int32_t r, uint64_t seq, int64_t when)
{
    tmpi_vt_deliv *d = &f->q[r].deliv[seq % TMPI_VT_DELIV_CAP];
    __atomic_store_n(&d->seq1, 0, __ATOMIC_RELAXED);
    __atomic_thread_fence(__ATOMIC_RELEASE);
    __atomic_store_n(&d->when, when, __ATOMIC_RELAXED);
    __atomic_store_n(&d->seq1, seq + 1, __ATOMIC_RELEASE);
}

void tmpi_vt_feed_take_at(tmpi_vt_feed *f, int32_t r, uint64_t seq, uint64_t ver)
{
    tmpi_vt_deliv *d = &f->q[r].deliv[seq % TMPI_VT_DELIV_CAP];
    __atomic_store_n(&d->taken_ver, ver, __ATOMIC_RELAXED);
    __atomic_store_n(&d->taken, seq + 1, __ATOMIC_RELEASE);
}

/* A relayed feed: the take into receiver me's log, for its host's agent
 * (the rank's threads may take at once: each reserves its entry; a full
 * log waits for the agent, which drains it continuously) */
static void take_log(tmpi_vt_feed *f, int32_t r, uint64_t seq, int32_t me, uint64_t ver)
{
    tmpi_vt_queue *q = &f->q[me];
    uint64_t slot = __atomic_fetch_add(&q->ntake, 1, __ATOMIC_ACQ_REL);
    while (slot - __atomic_load_n(&q->take_head, __ATOMIC_ACQUIRE) >= TMPI_VT_TAKE_CAP) {
        struct timespec ts = {0, 100000};
        nanosleep(&ts, NULL);
    }
    tmpi_vt_take *t = &q->take[slot % TMPI_VT_TAKE_CAP];
    t->src = r;
    t->seq = seq;
    t->ver = ver;
    __atomic_store_n(&t->slot1, slot + 1, __ATOMIC_RELEASE);
}

void tmpi_vt_feed_take(tmpi_vt_feed *f, int32_t r, uint64_t seq, int32_t me)
{
    uint64_t ver = __atomic_load_n(&f->q[me].ver, __ATOMIC_RELAXED);
    tmpi_vt_feed_take_at(f, r, seq, ver);
    if (f->relay) {
        take_log(f, r, seq, me, ver);
    }
}

int tmpi_vt_feed_taken(const tmpi_vt_feed *f, int32_t r, uint64_t seq, uint64_t ver)
{
    const tmpi_vt_deliv *d = &f->q[r].deliv[seq % TMPI_VT_DELIV_CAP];
    uint64_t t = __atomic_load_n(&d->taken, __ATOMIC_ACQUIRE);
    if (t == seq + 1) {
        return __atomic_load_n(&d->taken_ver, __ATOMIC_RELAXED) < ver;
    }
    return t > seq + 1 || __atomic_load_n(&d->seq1, __ATOMIC_ACQUIRE) > seq + 1;
}

void tmpi_vt_feed_left(tmpi_vt_feed *f, int32_t r, const tmpi_vt_left *l)
{
    tmpi_vt_queue *q = &f->q[r];
    uint64_t n = q->nleft;
    q->left[n % TMPI_VT_LEFT_CAP] = *l;
    __atomic_store_n(&q->nleft, n + 1, __ATOMIC_RELEASE);
}
