/*
 * vt_feed.c - the online model's shared-memory feed (vt_feed.h).
 * Single producer per queue (the rank; its threads serialise in vtime.c),
 * single consumer (the launcher's model thread): head and tail are
 * published with release stores and read with acquire loads.
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

void tmpi_vt_feed_push(tmpi_vt_feed *f, int32_t r, const tmpi_vt_rec *rec)
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
}

void tmpi_vt_feed_floor(tmpi_vt_feed *f, int32_t r, int64_t floor)
{
    __atomic_store_n(&f->q[r].floor, floor, __ATOMIC_RELEASE);
}
