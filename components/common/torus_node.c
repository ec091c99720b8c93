/*
 * torus_node.c - node-wide claims in the shared words of an emulated node
 * (layout and rules: torus_node.h).  Every update of the words happens
 * under the node's lock word; within the process a mutex serialises the
 * threads, which share one pid and so one lock identity.
 */
#include "torus_node.h"
#include "torus_table.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#define HOLDERS_MASK 0xffffull /* bits 0..15  */
#define OWNER_SHIFT 16         /* bits 16..19 */
#define OWNER_MASK 0xfull
#define VALUE_SHIFT 21   /* bits 21..63 */
#define LOCK_TRIES 20000 /* x 100 us: give up after about 2 s */
#define LOCAL_MAX 128    /* (words, resource) pairs one process holds */

/* Claims of this process, counted per (node words, resource). */
typedef struct local_claim {
    uint64_t *w;
    int res;
    int count;
} local_claim;

static pthread_mutex_t local_lock = PTHREAD_MUTEX_INITIALIZER;
static local_claim local[LOCAL_MAX];
static int nlocal;
static int32_t local_pid; /* the process the table belongs to (fork) */

static uint64_t load(const uint64_t *p)
{
    return __atomic_load_n(p, __ATOMIC_ACQUIRE);
}

static void store(uint64_t *p, uint64_t v)
{
    __atomic_store_n(p, v, __ATOMIC_RELEASE);
}

static unsigned holders(uint64_t r)
{
    return (unsigned)(r & HOLDERS_MASK);
}

static int owner_slot(uint64_t r)
{
    return (int)((r >> OWNER_SHIFT) & OWNER_MASK);
}

static uint64_t value_of(uint64_t r)
{
    return r >> VALUE_SHIFT;
}

static uint64_t make_res(uint64_t value, int owner, unsigned hold)
{
    return (value << VALUE_SHIFT) | ((uint64_t)owner << OWNER_SHIFT) | hold;
}

/* A process counts as dead only when the kernel says there is none. */
static int alive(int32_t pid)
{
    return pid > 0 && (kill(pid, 0) == 0 || errno != ESRCH);
}

static int32_t slot_pid(const uint64_t *w, int s)
{
    return (int32_t)(uint32_t)(load(&w[TORUS_NODE_SLOTS + s / 2]) >> (32 * (s % 2)));
}

static void slot_set(uint64_t *w, int s, int32_t pid)
{
    uint64_t *p = &w[TORUS_NODE_SLOTS + s / 2];
    int shift = 32 * (s % 2);
    uint64_t v = load(p) & ~(0xffffffffull << shift);
    store(p, v | ((uint64_t)(uint32_t)pid << shift));
}

/* Resource word r without slot s (the lowest holder left owns it). */
static uint64_t res_drop(uint64_t r, int s)
{
    unsigned h = holders(r) & ~(1u << s);
    if (h == 0) {
        return 0;
    }
    if (owner_slot(r) == s) {
        return make_res(value_of(r), __builtin_ctz(h), h);
    }
    return make_res(value_of(r), owner_slot(r), h);
}

static void lock_pause(int tries)
{
    struct timespec ts = {0, 100000};
    if (tries < 64) {
        sched_yield();
    } else {
        nanosleep(&ts, NULL);
    }
}

static int node_lock(uint64_t *w, int32_t me, char *why, size_t len)
{
    uint64_t held = 0;
    for (int tries = 0; tries < LOCK_TRIES; tries++) {
        held = 0;
        if (__atomic_compare_exchange_n(&w[TORUS_NODE_LOCK], &held, (uint64_t)(uint32_t)me, 0,
                                        __ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) {
            return TORUS_OK;
        }
        /* a holder that died (or our own pid left by a crashed run) */
        if ((held == (uint64_t)(uint32_t)me || !alive((int32_t)held)) &&
            __atomic_compare_exchange_n(&w[TORUS_NODE_LOCK], &held, (uint64_t)(uint32_t)me, 0,
                                        __ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) {
            return TORUS_OK;
        }
        lock_pause(tries);
    }
    snprintf(why, len, "the node-wide counter state of this node stayed locked by process %lld",
             (long long)held);
    return TORUS_ESYS;
}

static void node_unlock(uint64_t *w)
{
    store(&w[TORUS_NODE_LOCK], 0);
}

/* Remove the claims of processes that died. */
static void reap(uint64_t *w, int32_t me)
{
    for (int s = 0; s < TORUS_NODE_PROCS; s++) {
        int32_t pid = slot_pid(w, s);
        if (pid == 0 || pid == me || alive(pid)) {
            continue;
        }
        for (int r = TORUS_NODE_RES; r < TORUS_NODE_RES_END; r++) {
            store(&w[r], res_drop(load(&w[r]), s));
        }
        slot_set(w, s, 0);
    }
}

/* This process's slot; with take, a free one is registered (-1: none). */
static int my_slot(uint64_t *w, int32_t me, int take)
{
    int free_slot = -1;
    for (int s = 0; s < TORUS_NODE_PROCS; s++) {
        int32_t pid = slot_pid(w, s);
        if (pid == me) {
            return s;
        }
        if (pid == 0 && free_slot < 0) {
            free_slot = s;
        }
    }
    if (take && free_slot >= 0) {
        slot_set(w, free_slot, me);
        return free_slot;
    }
    return -1;
}

/* Give slot s back when it holds nothing any more. */
static void maybe_free_slot(uint64_t *w, int s)
{
    for (int r = TORUS_NODE_RES; r < TORUS_NODE_RES_END; r++) {
        if (holders(load(&w[r])) & (1u << s)) {
            return;
        }
    }
    slot_set(w, s, 0);
}

/* The table after fork() describes the parent's claims: start afresh. */
static void local_check_pid(int32_t me)
{
    if (local_pid != me) {
        local_pid = me;
        nlocal = 0;
    }
}

static local_claim *local_find(uint64_t *w, int res)
{
    for (int i = 0; i < nlocal; i++) {
        if (local[i].w == w && local[i].res == res) {
            return &local[i];
        }
    }
    return NULL;
}

static void fill_seen(const uint64_t *w, uint64_t r, torus_node_seen *seen)
{
    if (seen != NULL) {
        seen->holders = __builtin_popcount(holders(r));
        seen->owner_pid = seen->holders > 0 ? slot_pid(w, owner_slot(r)) : 0;
        seen->value = value_of(r);
    }
}

/* The part of torus_node_acquire_all done under the node's lock: every
 * resource is checked before any is taken. */
static int take_locked(uint64_t *w, const int *res, int n, uint64_t want, torus_node_fits fits,
                       int32_t me, int *failed, torus_node_seen *seen, char *why, size_t len)
{
    int s, fresh = 0, rc = TORUS_OK;

    reap(w, me);
    s = my_slot(w, me, 1);
    for (int i = 0; i < n && rc == TORUS_OK; i++) {
        uint64_t r = load(&w[res[i]]);
        if (s < 0) {
            snprintf(why, len,
                     "%d other processes of this node already hold node-wide counter state",
                     TORUS_NODE_PROCS);
            rc = TORUS_ECNFLCT;
        } else if (holders(r) != 0 &&
                   !(fits != NULL ? fits(value_of(r), want) : value_of(r) == want)) {
            snprintf(why, len, "held with another setting by %d process(es), controlled by pid %d",
                     __builtin_popcount(holders(r)), (int)slot_pid(w, owner_slot(r)));
            rc = TORUS_ECNFLCT;
        }
        if (rc != TORUS_OK) {
            fill_seen(w, r, seen);
            *failed = i;
        }
        fresh += local_find(w, res[i]) == NULL;
    }
    if (rc == TORUS_OK && nlocal + fresh > LOCAL_MAX) {
        snprintf(why, len, "this process would hold more than %d node-wide claims", LOCAL_MAX);
        rc = TORUS_ECNFLCT;
    }
    for (int i = 0; i < n && rc == TORUS_OK; i++) {
        uint64_t r = load(&w[res[i]]);
        local_claim *lc = local_find(w, res[i]);
        store(&w[res[i]], holders(r) == 0 ? make_res(want, s, 1u << s) : r | (1u << s));
        if (lc == NULL) {
            lc = &local[nlocal++];
            lc->w = w;
            lc->res = res[i];
            lc->count = 0;
        }
        lc->count++;
    }
    if (rc != TORUS_OK && s >= 0) {
        maybe_free_slot(w, s);
    }
    return rc;
}

int torus_node_acquire_all(uint64_t *w, const int *res, int n, uint64_t want, torus_node_fits fits,
                           int *failed, torus_node_seen *seen, char *why, size_t len)
{
    int32_t me = (int32_t)getpid();
    int rc = TORUS_OK;

    *failed = -1;
    for (int i = 0; i < n && rc == TORUS_OK; i++) {
        if (res[i] < TORUS_NODE_RES || res[i] >= TORUS_NODE_RES_END) {
            *failed = i;
            rc = TORUS_EINVAL;
        }
    }
    if (w == NULL || (want >> TORUS_NODE_VALUE_BITS) != 0 || rc != TORUS_OK) {
        snprintf(why, len, "internal error: bad node-wide resource or value 0x%llx",
                 (unsigned long long)want);
        rc = TORUS_EINVAL;
    }
    if (rc == TORUS_OK && n > 0) {
        pthread_mutex_lock(&local_lock);
        local_check_pid(me);
        rc = node_lock(w, me, why, len);
        if (rc == TORUS_OK) {
            rc = take_locked(w, res, n, want, fits, me, failed, seen, why, len);
            node_unlock(w);
        }
        pthread_mutex_unlock(&local_lock);
    }
    return rc;
}

int torus_node_acquire(uint64_t *w, int res, uint64_t want, torus_node_fits fits,
                       torus_node_seen *seen, char *why, size_t len)
{
    int failed;
    return torus_node_acquire_all(w, &res, 1, want, fits, &failed, seen, why, len);
}

void torus_node_release(uint64_t *w, int res)
{
    int32_t me = (int32_t)getpid();
    local_claim *lc;
    char why[160];

    pthread_mutex_lock(&local_lock);
    local_check_pid(me);
    lc = local_find(w, res);
    if (lc != NULL && --lc->count == 0) {
        *lc = local[--nlocal];
        /* if the lock cannot be had, the claim stays until this process
         * exits and the next acquire on the node removes it */
        if (node_lock(w, me, why, sizeof why) == TORUS_OK) {
            int s = my_slot(w, me, 0);
            if (s >= 0) {
                store(&w[res], res_drop(load(&w[res]), s));
                maybe_free_slot(w, s);
            }
            node_unlock(w);
        }
    }
    pthread_mutex_unlock(&local_lock);
}

int torus_claim_take(const torus_backend_ops *ops, torus_backend *be, torus_claim *cl, int64_t node,
                     int res, uint64_t value, torus_node_fits fits, torus_node_seen *seen,
                     char *why, size_t len)
{
    uint64_t *w = ops->node_words != NULL ? ops->node_words(be, node) : NULL;
    int rc = TORUS_OK;

    if (w == NULL) {
        snprintf(why, len, "node %lld has no node-wide state in this backend", (long long)node);
        rc = TORUS_ESYS;
    } else if (cl->words == w && cl->res == res && cl->value == value) {
        rc = TORUS_OK; /* held already */
    } else if (cl->words == w && cl->res == res) {
        /* a new value for the same resource: our own old claim must not
         * stand in the way; if the new one is refused, take the old back */
        uint64_t old = cl->value;
        char ignored[160];
        torus_claim_drop(cl);
        rc = torus_node_acquire(w, res, value, fits, seen, why, len);
        if (rc != TORUS_OK &&
            torus_node_acquire(w, res, old, NULL, NULL, ignored, sizeof ignored) == TORUS_OK) {
            cl->words = w;
            cl->value = old;
        }
    } else {
        rc = torus_node_acquire(w, res, value, fits, seen, why, len);
        if (rc == TORUS_OK) {
            torus_claim_drop(cl);
        }
    }
    if (rc == TORUS_OK) {
        cl->words = w;
        cl->node = node;
        cl->res = res;
        cl->value = value;
    }
    return rc;
}

void torus_claim_drop(torus_claim *cl)
{
    if (cl->words != NULL) {
        torus_node_release(cl->words, cl->res);
        cl->words = NULL;
    }
}
