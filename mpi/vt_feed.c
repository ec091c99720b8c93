/*
 * vt_feed.c - the online model's shared-memory feed (vt_feed.h).
 * Single producer per queue (the rank; its threads serialise in vtime.c),
 * single consumer (the launcher's model thread): head and tail are
 * published with release stores and read with acquire loads; a rank's
 * state under a sequence lock; a delivery slot names its message
 * (seq1), written last.
 */
#include "vt_feed.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
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
    return tail;
}

void tmpi_vt_feed_state(tmpi_vt_feed *f, int32_t r, const tmpi_vt_state *st)
{
    tmpi_vt_queue *q = &f->q[r];
    uint64_t v = q->ver;
    __atomic_store_n(&q->ver, v + 1, __ATOMIC_RELAXED);
    __atomic_thread_fence(__ATOMIC_RELEASE);
    /* word by word, relaxed: a reader that overlaps retries */
    const uint64_t *from = (const uint64_t *)st;
    uint64_t *to = (uint64_t *)&q->st;
    for (size_t i = 0; i < sizeof *st / sizeof *from; i++) {
        __atomic_store_n(&to[i], from[i], __ATOMIC_RELAXED);
    }
    __atomic_store_n(&q->ver, v + 2, __ATOMIC_RELEASE);
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

void tmpi_vt_feed_take(tmpi_vt_feed *f, int32_t r, uint64_t seq, int32_t me)
{
    tmpi_vt_deliv *d = &f->q[r].deliv[seq % TMPI_VT_DELIV_CAP];
    __atomic_store_n(&d->taken_ver, __atomic_load_n(&f->q[me].ver, __ATOMIC_RELAXED),
                     __ATOMIC_RELAXED);
    __atomic_store_n(&d->taken, seq + 1, __ATOMIC_RELEASE);
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
