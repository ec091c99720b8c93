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

#define OWNER_MASK 0x3full /* bits 0..5 of a resource's value word (as torus_node.h) */
#define VALUE_SHIFT 8      /* bits 8..63                                          */
#define LOCK_TRIES 20000   /* x 100 us: give up after about 2 s    */
#define LOCAL_MAX 128      /* (words, resource) pairs one process holds */

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

static uint64_t *hold_word(uint64_t *w, int res)
{
    return &w[TORUS_NODE_RES_WORDS + 2 * res];
}

static uint64_t *val_word(uint64_t *w, int res)
{
    return &w[TORUS_NODE_RES_WORDS + 2 * res + 1];
}

static uint64_t holders_of(const uint64_t *w, int res)
{
    return load(&w[TORUS_NODE_RES_WORDS + 2 * res]);
}

static uint64_t valword_of(const uint64_t *w, int res)
{
    return load(&w[TORUS_NODE_RES_WORDS + 2 * res + 1]);
}

static int owner_slot(uint64_t v)
{
    return (int)(v & OWNER_MASK);
}

static uint64_t value_of(uint64_t v)
{
    return v >> VALUE_SHIFT;
}

static uint64_t make_val(uint64_t value, int owner)
{
    return (value << VALUE_SHIFT) | (uint64_t)owner;
}

/* A process counts as dead only when the kernel says there is none. */
static int alive(int32_t pid)
{
    return pid > 0 && (kill(pid, 0) == 0 || errno != ESRCH);
}

static void slot_set(uint64_t *w, int s, int32_t pid)
{
    uint64_t *p = &w[TORUS_NODE_SLOTS + s / 2];
    int shift = 32 * (s % 2);
    uint64_t v = load(p) & ~(0xffffffffull << shift);
    store(p, v | ((uint64_t)(uint32_t)pid << shift));
}

/* Resource res without slot s (the lowest holder left owns it). */
static void res_drop(uint64_t *w, int res, int s)
{
    uint64_t h = load(hold_word(w, res));
    uint64_t v = load(val_word(w, res));
    if (!(h & (1ull << s))) {
        return;
    }
    h &= ~(1ull << s);
    if (h == 0) {
        store(val_word(w, res), 0);
    } else if (owner_slot(v) == s) {
        store(val_word(w, res), make_val(value_of(v), __builtin_ctzll(h)));
    }
    store(hold_word(w, res), h);
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
        int32_t pid = torus_node_slot_pid(w, s);
        if (pid == 0 || pid == me || alive(pid)) {
            continue;
        }
        for (int r = 0; r < TORUS_NODE_NRES; r++) {
            res_drop(w, r, s);
        }
        slot_set(w, s, 0);
    }
}

/* This process's slot; with take, a free one is registered (-1: none). */
static int my_slot(uint64_t *w, int32_t me, int take)
{
    int free_slot = -1;
    for (int s = 0; s < TORUS_NODE_PROCS; s++) {
        int32_t pid = torus_node_slot_pid(w, s);
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
    for (int r = 0; r < TORUS_NODE_NRES; r++) {
        if (holders_of(w, r) & (1ull << s)) {
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

static void fill_seen(const uint64_t *w, int res, torus_node_seen *seen)
{
    if (seen != NULL) {
        uint64_t h = holders_of(w, res);
        seen->holders = __builtin_popcountll(h);
        seen->owner_pid = h != 0 ? torus_node_slot_pid(w, owner_slot(valword_of(w, res))) : 0;
        seen->value = h != 0 ? value_of(valword_of(w, res)) : 0;
    }
}

static int res_fits(const uint64_t *w, int res, uint64_t want, torus_node_fits fits)
{
    uint64_t held = value_of(valword_of(w, res));
    return holders_of(w, res) == 0 || (fits != NULL ? fits(held, want) : held == want);
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
        if (s < 0) {
            snprintf(why, len,
                     "%d other processes of this node already hold node-wide counter state",
                     TORUS_NODE_PROCS);
            rc = TORUS_ECNFLCT;
        } else if (!res_fits(w, res[i], want, fits)) {
            snprintf(why, len, "held with another setting by %d process(es), controlled by pid %d",
                     __builtin_popcountll(holders_of(w, res[i])),
                     (int)torus_node_owner_pid(w, res[i]));
            rc = TORUS_ECNFLCT;
        }
        if (rc != TORUS_OK) {
            fill_seen(w, res[i], seen);
            *failed = i;
        }
        fresh += local_find(w, res[i]) == NULL;
    }
    if (rc == TORUS_OK && nlocal + fresh > LOCAL_MAX) {
        snprintf(why, len, "this process would hold more than %d node-wide claims", LOCAL_MAX);
        rc = TORUS_ECNFLCT;
    }
    for (int i = 0; i < n && rc == TORUS_OK; i++) {
        uint64_t h = load(hold_word(w, res[i]));
        local_claim *lc = local_find(w, res[i]);
        if (h == 0) {
            store(val_word(w, res[i]), make_val(want, s));
        }
        store(hold_word(w, res[i]), h | (1ull << s));
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

static int check_value(uint64_t *w, uint64_t want, char *why, size_t len)
{
    if (w == NULL || (want >> TORUS_NODE_VALUE_BITS) != 0) {
        snprintf(why, len, "internal error: bad node-wide resource or value 0x%llx",
                 (unsigned long long)want);
        return TORUS_EINVAL;
    }
    return TORUS_OK;
}

int torus_node_acquire_all(uint64_t *w, const int *res, int n, uint64_t want, torus_node_fits fits,
                           int *failed, torus_node_seen *seen, char *why, size_t len)
{
    int32_t me = (int32_t)getpid();
    int rc = check_value(w, want, why, len);

    *failed = -1;
    for (int i = 0; i < n && rc == TORUS_OK; i++) {
        if (res[i] < 0 || res[i] >= TORUS_NODE_NRES) {
            *failed = i;
            snprintf(why, len, "internal error: node-wide resource %d does not exist", res[i]);
            rc = TORUS_EINVAL;
        }
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

/* The keyed resource held with want's key, else a free one, else -1. */
static int keyed_find(const uint64_t *w, uint64_t want)
{
    int free_res = -1;
    for (int r = TORUS_RES_KEYED; r < TORUS_RES_KEYED + TORUS_RES_KEYED_N; r++) {
        if (holders_of(w, r) == 0) {
            if (free_res < 0) {
                free_res = r;
            }
        } else if ((value_of(valword_of(w, r)) >> TORUS_KEY_SHIFT) == (want >> TORUS_KEY_SHIFT)) {
            return r;
        }
    }
    return free_res;
}

int torus_node_acquire_keyed(uint64_t *w, uint64_t want, torus_node_fits fits, int *res,
                             torus_node_seen *seen, char *why, size_t len)
{
    int32_t me = (int32_t)getpid();
    int failed, rc = check_value(w, want, why, len);

    *res = -1;
    if (rc == TORUS_OK) {
        pthread_mutex_lock(&local_lock);
        local_check_pid(me);
        rc = node_lock(w, me, why, len);
        if (rc == TORUS_OK) {
            reap(w, me);
            *res = keyed_find(w, want);
            if (*res < 0) {
                snprintf(why, len, "all %d node-wide keyed resources of this node are in use",
                         TORUS_RES_KEYED_N);
                if (seen != NULL) {
                    seen->holders = 0;
                    seen->owner_pid = 0;
                    seen->value = 0;
                }
                rc = TORUS_ECNFLCT;
            } else {
                rc = take_locked(w, res, 1, want, fits, me, &failed, seen, why, len);
            }
            node_unlock(w);
        }
        pthread_mutex_unlock(&local_lock);
    }
    if (rc != TORUS_OK) {
        *res = -1;
    }
    return rc;
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
                res_drop(w, res, s);
                maybe_free_slot(w, s);
            }
            node_unlock(w);
        }
    }
    pthread_mutex_unlock(&local_lock);
}

/* Shared by the two claim forms: keyed (res < 0) or a fixed resource. */
static int claim_take(const torus_backend_ops *ops, torus_backend *be, torus_claim *cl,
                      int64_t node, int res, uint64_t value, torus_node_fits fits,
                      torus_node_seen *seen, char *why, size_t len)
{
    uint64_t *w = ops->node_words != NULL ? ops->node_words(be, node) : NULL;
    int keyed = res < 0, got = res, rc = TORUS_OK;

    if (w == NULL) {
        snprintf(why, len, "node %lld has no node-wide state in this backend", (long long)node);
        return TORUS_ESYS;
    }
    if (cl->words == w && cl->value == value && (keyed || cl->res == res)) {
        return TORUS_OK; /* held already */
    }
    if (cl->words == w &&
        (keyed ? (cl->value >> TORUS_KEY_SHIFT) == (value >> TORUS_KEY_SHIFT) : cl->res == res)) {
        /* a new value for the same resource: our own old claim must not
         * stand in the way; if the new one is refused, take the old back */
        torus_claim old = *cl;
        char ignored[160];
        torus_claim_drop(cl);
        rc = keyed ? torus_node_acquire_keyed(w, value, fits, &got, seen, why, len)
                   : torus_node_acquire(w, res, value, fits, seen, why, len);
        if (rc != TORUS_OK) {
            int back = old.res;
            int rb = keyed ? torus_node_acquire_keyed(w, old.value, NULL, &back, NULL, ignored,
                                                      sizeof ignored)
                           : torus_node_acquire(w, old.res, old.value, NULL, NULL, ignored,
                                                sizeof ignored);
            if (rb == TORUS_OK) {
                *cl = old;
                cl->res = back;
            }
            return rc;
        }
    } else {
        rc = keyed ? torus_node_acquire_keyed(w, value, fits, &got, seen, why, len)
                   : torus_node_acquire(w, res, value, fits, seen, why, len);
        if (rc != TORUS_OK) {
            return rc;
        }
        torus_claim_drop(cl);
    }
    cl->words = w;
    cl->node = node;
    cl->res = got;
    cl->value = value;
    return TORUS_OK;
}

int torus_claim_take(const torus_backend_ops *ops, torus_backend *be, torus_claim *cl, int64_t node,
                     int res, uint64_t value, torus_node_fits fits, torus_node_seen *seen,
                     char *why, size_t len)
{
    if (res < 0 || res >= TORUS_RES_KEYED) {
        snprintf(why, len, "internal error: %d is not a fixed node-wide resource", res);
        return TORUS_EINVAL;
    }
    return claim_take(ops, be, cl, node, res, value, fits, seen, why, len);
}

int torus_claim_take_keyed(const torus_backend_ops *ops, torus_backend *be, torus_claim *cl,
                           int64_t node, uint64_t value, torus_node_fits fits,
                           torus_node_seen *seen, char *why, size_t len)
{
    return claim_take(ops, be, cl, node, -1, value, fits, seen, why, len);
}

void torus_claim_drop(torus_claim *cl)
{
    if (cl->words != NULL) {
        torus_node_release(cl->words, cl->res);
        cl->words = NULL;
    }
}
