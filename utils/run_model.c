/*
 * run_model.c - the online timing model of `torusemu run --virtual-time`
 * (run_model.h).
 *
 * A thread of the launcher repeats: read every rank's floor (the virtual
 * time before which it will send nothing more), then take every message
 * queued in the feed; feed the timing model the messages sent before the
 * smallest floor F, ordered by (send time, rank, order sent), and run it up
 * to F - 1 ps.  Messages are fed in time order whatever the host did, and
 * nothing is fed at a time the model has passed, so the result depends
 * only on the messages and their send times.  Every 50 ms of host time the
 * counters the model produced since the last time are added to the store
 * (temu_tm_add_stall_counters into a private store, the growth since the
 * last look added to the session), so PAPI readers see them grow during the
 * run (only the counters the model fills are looked at).
 */
#define _GNU_SOURCE 1
#include "run_model.h"

#include "../mpi/vt_feed.h"
#include "torusemu_timing.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define PUBLISH_NS 50000000ll /* host time between two additions to the store */

typedef struct pending {
    tmpi_vt_rec rec;
    int32_t rank;
    uint64_t seq;
} pending;

struct run_model {
    temu_session *s, *scratch;
    const temu_machine *m;
    temu_tm *t;
    tmpi_vt_feed *feed;
    char path[4096];
    pthread_t thread;
    int stop;
    pending *pend;
    size_t npend, cap;
    /* the counters the model fills (Gemini tile stalls, BG/Q receive-FIFO
     * occupancy, message-unit pending requests), the private store's value
     * at the last look and the total already added to the session */
    int64_t *idx;
    uint64_t *seen, *last;
    uint64_t ncounters, messages;
    int64_t published_at; /* model time at the last look */
    uint64_t published_msgs;
    int failed;
};

static int64_t host_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000ll + ts.tv_nsec;
}

static int before(const pending *a, const pending *b)
{
    if (a->rec.when != b->rec.when) {
        return a->rec.when < b->rec.when;
    }
    return a->rank != b->rank ? a->rank < b->rank : a->seq < b->seq;
}

static int cmp_pending(const void *x, const void *y)
{
    const pending *a = x, *b = y;
    return before(a, b) ? -1 : before(b, a);
}

/* Take every queued record; 1 if there were some. */
static int drain(run_model *rm)
{
    int got = 0;
    for (int32_t r = 0; r < rm->feed->nranks; r++) {
        tmpi_vt_queue *q = &rm->feed->q[r];
        uint64_t head = q->head, tail = __atomic_load_n(&q->tail, __ATOMIC_ACQUIRE);
        for (; head < tail; head++) {
            if (rm->npend == rm->cap) {
                size_t cap = rm->cap ? 2 * rm->cap : 1024;
                pending *p = realloc(rm->pend, cap * sizeof *p);
                if (p == NULL) {
                    break; /* the rest waits in the queue */
                }
                rm->pend = p;
                rm->cap = cap;
            }
            rm->pend[rm->npend++] = (pending){q->rec[head % TMPI_VT_FEED_CAP], r, head};
            got = 1;
        }
        __atomic_store_n(&q->head, head, __ATOMIC_RELEASE);
    }
    return got;
}

/* Feed the messages sent before `limit` and run the model to limit - 1. */
static int advance(run_model *rm, int64_t limit)
{
    size_t n = 0, k = 0;
    int progress = 0;
    temu_error err;
    qsort(rm->pend, rm->npend, sizeof *rm->pend, cmp_pending);
    while (n < rm->npend && rm->pend[n].rec.when < limit) {
        const tmpi_vt_rec *r = &rm->pend[n].rec;
        temu_message msg = {r->src, r->dst, r->bytes, NULL, (temu_kind)r->kind};
        int64_t when = r->when > temu_tm_now(rm->t) ? r->when : temu_tm_now(rm->t);
        if (temu_tm_send_message(rm->t, when, rm->m, &msg, &err) != TEMU_OK && !rm->failed) {
            fprintf(stderr, "torusemu: run: timing model: %s\n", err.message);
            rm->failed = 1;
        }
        rm->messages++;
        n++;
    }
    for (size_t i = n; i < rm->npend; i++) {
        rm->pend[k++] = rm->pend[i];
    }
    rm->npend = k;
    progress = n > 0;
    int64_t until = limit == INT64_MAX ? INT64_MAX : limit - 1;
    if (until > temu_tm_now(rm->t) || (until == INT64_MAX && temu_tm_pending(rm->t) > 0)) {
        temu_tm_run(rm->t, until);
        progress = 1;
    }
    return progress;
}

/* Add what the model counted since the last call to the store.  The
 * private store is not cleared (that is a pass over every counter of the
 * machine): each look adds the model's totals to it again, so a total is
 * the growth of the private counter since the last look. */
static void publish(run_model *rm)
{
    temu_error err;
    if (temu_tm_now(rm->t) == rm->published_at && rm->messages == rm->published_msgs) {
        return; /* nothing happened in the model */
    }
    rm->published_at = temu_tm_now(rm->t);
    rm->published_msgs = rm->messages;
    if (temu_tm_add_stall_counters(rm->t, rm->scratch, &err) != TEMU_OK) {
        if (!rm->failed) {
            fprintf(stderr, "torusemu: run: timing model: %s\n", err.message);
            rm->failed = 1;
        }
        return;
    }
    for (uint64_t i = 0; i < rm->ncounters; i++) {
        uint64_t v = temu_counter_read(rm->scratch, rm->idx[i]);
        uint64_t total = v - rm->seen[i];
        rm->seen[i] = v;
        if (total > rm->last[i]) {
            temu_counter_add(rm->s, rm->idx[i], total - rm->last[i]);
            rm->last[i] = total;
        }
    }
}

/* The indices of the counters temu_tm_add_stall_counters writes. */
static int list_counters(run_model *rm)
{
    const temu_machine *m = rm->m;
    uint64_t n = m->system == TEMU_SYSTEM_GEMINI
                     ? (uint64_t)m->nrouters * TEMU_GEMINI_TILES * 2
                     : (uint64_t)m->nnodes * (2 * m->ndims * TEMU_BGQ_VCS + 2);
    rm->idx = calloc(n + 1, sizeof *rm->idx);
    rm->seen = calloc(n + 1, sizeof *rm->seen);
    rm->last = calloc(n + 1, sizeof *rm->last);
    if (rm->idx == NULL || rm->seen == NULL || rm->last == NULL) {
        return -1;
    }
    for (int64_t r = 0; m->system == TEMU_SYSTEM_GEMINI && r < m->nrouters; r++) {
        for (int t = 0; t < TEMU_GEMINI_TILES; t++) {
            rm->idx[rm->ncounters++] = temu_idx_gemini_tile(m, r, t, TEMU_TILE_INQ_STALL);
            rm->idx[rm->ncounters++] = temu_idx_gemini_tile(m, r, t, TEMU_TILE_CREDIT_STALL);
        }
    }
    for (int64_t nd = 0; m->system == TEMU_SYSTEM_BGQ && nd < m->nnodes; nd++) {
        for (int l = 0; l < 2 * m->ndims; l++) {
            for (int vc = 0; vc < TEMU_BGQ_VCS; vc++) {
                rm->idx[rm->ncounters++] = temu_idx_bgq_nw(m, nd, l, TEMU_BGQ_NW_RECV_FIFO, vc);
            }
        }
        rm->idx[rm->ncounters++] = temu_idx_bgq_mu(m, nd, TEMU_MU_PORT0_PEND_RD);
        rm->idx[rm->ncounters++] = temu_idx_bgq_mu(m, nd, TEMU_MU_PORT0_PEND_WRT);
    }
    return 0;
}

static int64_t min_floor(const run_model *rm)
{
    int64_t f = INT64_MAX;
    for (int32_t r = 0; r < rm->feed->nranks; r++) {
        int64_t v = __atomic_load_n(&rm->feed->q[r].floor, __ATOMIC_ACQUIRE);
        f = v < f ? v : f;
    }
    return f;
}

static void *model_thread(void *arg)
{
    run_model *rm = arg;
    int64_t published = host_ns();
    while (!__atomic_load_n(&rm->stop, __ATOMIC_ACQUIRE)) {
        int64_t limit = min_floor(rm); /* the floors first, then the queues */
        int progress = drain(rm);
        if (limit > 0) {
            progress |= advance(rm, limit);
        }
        if (host_ns() - published >= PUBLISH_NS) {
            publish(rm);
            published = host_ns();
        }
        if (!progress) {
            struct timespec ts = {0, 1000000};
            nanosleep(&ts, NULL);
        }
    }
    return NULL;
}

/* Everything run_model_start made: the feed file goes too. */
static void release(run_model *rm)
{
    if (rm->feed != NULL) {
        tmpi_vt_feed_unmap(rm->feed);
        unlink(rm->path);
    }
    if (rm->t != NULL) {
        temu_tm_destroy(rm->t);
    }
    if (rm->scratch != NULL) {
        temu_session_close(rm->scratch);
    }
    free(rm->pend);
    free(rm->idx);
    free(rm->seen);
    free(rm->last);
    free(rm);
}

int run_model_start(run_model **out, temu_session *s, const char *feed_path, int32_t nranks,
                    char *why, size_t len)
{
    temu_tm_config c;
    temu_error err;
    run_model *rm = calloc(1, sizeof *rm);
    *out = NULL;
    if (rm == NULL) {
        snprintf(why, len, "out of memory");
        return -1;
    }
    rm->s = s;
    rm->m = temu_session_machine(s);
    snprintf(rm->path, sizeof rm->path, "%s", feed_path);
    if (temu_tm_config_default(rm->m, &c, &err) != TEMU_OK ||
        /* the live volume counters are counted as the ranks send, along the
         * deterministic route, so the model routes that way too
         * (doc/virtual-time.md) */
        (c.routing = TEMU_TM_DETERMINISTIC, temu_tm_create(rm->m, &c, &rm->t, &err)) != TEMU_OK ||
        temu_session_create_private(rm->m, &rm->scratch, &err) != TEMU_OK) {
        snprintf(why, len, "timing model: %s", err.message);
        goto fail;
    }
    if (list_counters(rm) != 0) {
        snprintf(why, len, "out of memory");
        goto fail;
    }
    rm->feed = tmpi_vt_feed_map(feed_path, 1, nranks, why, len);
    if (rm->feed == NULL) {
        goto fail;
    }
    if (pthread_create(&rm->thread, NULL, model_thread, rm) != 0) {
        snprintf(why, len, "cannot start the model thread");
        goto fail;
    }
    *out = rm;
    return 0;
fail:
    release(rm);
    return -1;
}

void run_model_finish(run_model *rm, uint64_t *messages, int64_t *end_ps)
{
    __atomic_store_n(&rm->stop, 1, __ATOMIC_RELEASE);
    pthread_join(rm->thread, NULL);
    /* every rank has ended: whatever they queued is all there is */
    drain(rm);
    advance(rm, INT64_MAX);
    publish(rm);
    *messages = rm->messages;
    *end_ps = temu_tm_now(rm->t);
    release(rm);
}
