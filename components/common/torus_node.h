/*
 * torus_node.h - node-wide hardware rules across processes.
 *
 * Some rules of the real machines hold for a whole node, whichever process
 * asks: one BG/P UPC counter mode per node, one BG/Q L2 mode (combined or
 * sliced) per node, one controller per BG/Q network link, one overflow
 * threshold per BG/Q L2 / I/O counter.  The emulated node keeps that state
 * in its TEMU_NODE_WORDS (128) shared 64-bit words (store ABI 4,
 * torus_backend_ops.node_words), so every process attached to the same
 * session sees the same claims.  Word assignment (the same on every system;
 * listed in doc/components.md):
 *
 *   word 0         lock: 0 free, else the pid of the process updating words
 *   words 1..32    64 process slots: slot 2k in bits 0..31 of word 1+k, slot
 *                  2k+1 in bits 32..63; a pid, or 0 for a free slot
 *   words 33..56   12 fixed resources, two words each (resource r at word
 *                  33 + 2r): the holders (bit s = process slot s), then
 *                  owner slot (bits 0..5) and value (bits 8..63)
 *   words 57..120  32 keyed resources, laid out the same: taken by key (the
 *                  top bits of the value), e.g. one per L2 / I/O counter
 *                  that carries a node-wide overflow threshold
 *   words 121..127 free
 *
 * A resource is free when no slot holds it.  The first process to take it
 * sets its value and owns it; others may join while their value `fits`
 * the held one.  When the owner lets go, the lowest remaining holder owns
 * it.  A process that died without letting go (kill(pid, 0) fails with
 * ESRCH) is removed, with everything it held, by the next acquire on that
 * node.  Within a process the claims are counted: the node words change
 * only when a process's first claim on a resource is taken or its last one
 * is given back.  At most TORUS_NODE_PROCS (64, BG/Q's ranks per node)
 * processes of one node can hold resources at the same time.
 */
#ifndef TORUS_NODE_H
#define TORUS_NODE_H

#include "torus_backend.h"

#include <stddef.h>
#include <stdint.h>

#define TORUS_NODE_PROCS 64      /* process slots per node             */
#define TORUS_NODE_VALUE_BITS 56 /* value bits of a resource           */

/* Node words (doc/components.md, "Node-wide state"). */
enum torus_node_word {
    TORUS_NODE_LOCK = 0,
    TORUS_NODE_SLOTS = 1,       /* words 1..32: 64 process slots         */
    TORUS_NODE_RES_WORDS = 33,  /* resource r: words 33 + 2r, 34 + 2r    */
    TORUS_NODE_WORDS_USED = 121 /* words 121..127 are free               */
};

/* Resources (each two words). */
enum torus_node_res {
    TORUS_RES_BGP_UPC = 0,  /* BG/P: the UPC counter mode (bgp_torus)      */
    TORUS_RES_BGQ_L2 = 0,   /* BG/Q: L2 combined or sliced (bgq_l2unit)    */
    TORUS_RES_BGQ_NW = 1,   /* BG/Q: resources 1..11 = network links 0..10 */
    TORUS_RES_KEYED = 12,   /* first keyed resource                        */
    TORUS_RES_KEYED_N = 32, /* keyed resources (overflow thresholds)       */
    TORUS_NODE_NRES = 44
};

/* Keyed values: key in bits 40..55 of the value, the rest below. */
#define TORUS_KEY_SHIFT 40
#define TORUS_KEY_VALUE_MASK ((1ull << TORUS_KEY_SHIFT) - 1)

/* May a process that wants `want` join a resource held with `held`? */
typedef int (*torus_node_fits)(uint64_t held, uint64_t want);

/* Who holds a resource (filled on a refusal). */
typedef struct torus_node_seen {
    int32_t owner_pid; /* controlling process, 0 if none */
    int holders;       /* processes holding it           */
    uint64_t value;
} torus_node_seen;

/*
 * Take resource `res` of the node whose words are `w` for the calling
 * process with value `want`.  fits NULL means equal values only.
 * TORUS_OK: taken; TORUS_ECNFLCT with *seen and a reason: held with a value
 * that does not fit, or no free process slot; TORUS_ESYS with a reason: the
 * node state stayed locked by a live process.  Every TORUS_OK is matched by
 * one torus_node_release.
 */
int torus_node_acquire(uint64_t *w, int res, uint64_t want, torus_node_fits fits,
                       torus_node_seen *seen, char *why, size_t len);
/* The same for n resources at once, all or none (under one lock, so two
 * processes cannot each take part of them); *failed is the index of the
 * refused one, -1 if none. */
int torus_node_acquire_all(uint64_t *w, const int *res, int n, uint64_t want, torus_node_fits fits,
                           int *failed, torus_node_seen *seen, char *why, size_t len);
/* Take the keyed resource of key `want >> TORUS_KEY_SHIFT`: the one held
 * with that key (joined if fits, else refused), or a free one.  *res is
 * the resource taken (for torus_node_release).  TORUS_ECNFLCT also when
 * every keyed resource is in use. */
int torus_node_acquire_keyed(uint64_t *w, uint64_t want, torus_node_fits fits, int *res,
                             torus_node_seen *seen, char *why, size_t len);
void torus_node_release(uint64_t *w, int res);

/* Read-only views of the words (inline: tests outside libpapi use them). */
static inline int32_t torus_node_slot_pid(const uint64_t *w, int slot)
{
    uint64_t v = __atomic_load_n(&w[TORUS_NODE_SLOTS + slot / 2], __ATOMIC_ACQUIRE);
    return (int32_t)(uint32_t)(v >> (32 * (slot % 2)));
}

/* Holders of a resource: bit s = process slot s. */
static inline uint64_t torus_node_holders(const uint64_t *w, int res)
{
    return __atomic_load_n(&w[TORUS_NODE_RES_WORDS + 2 * res], __ATOMIC_ACQUIRE);
}

/* Value of a held resource, 0 when it is free. */
static inline uint64_t torus_node_value(const uint64_t *w, int res)
{
    uint64_t v = __atomic_load_n(&w[TORUS_NODE_RES_WORDS + 2 * res + 1], __ATOMIC_ACQUIRE);
    return torus_node_holders(w, res) != 0 ? v >> 8 : 0;
}

/* Process that controls a resource, 0 when it is free. */
static inline int32_t torus_node_owner_pid(const uint64_t *w, int res)
{
    uint64_t v = __atomic_load_n(&w[TORUS_NODE_RES_WORDS + 2 * res + 1], __ATOMIC_ACQUIRE);
    return torus_node_holders(w, res) != 0 ? torus_node_slot_pid(w, (int)(v & 0x3f)) : 0;
}

/* One event set's claim on one resource of one node. */
typedef struct torus_claim {
    uint64_t *words; /* NULL: nothing claimed */
    int64_t node;
    int res;
    uint64_t value;
} torus_claim;

/*
 * Make cl a claim of (node, res, value): the new claim is taken before the
 * old one is given back, so after a refusal the set keeps what it had.
 * Same arguments and results as torus_node_acquire.
 */
int torus_claim_take(const torus_backend_ops *ops, torus_backend *be, torus_claim *cl, int64_t node,
                     int res, uint64_t value, torus_node_fits fits, torus_node_seen *seen,
                     char *why, size_t len);
/* The same for a keyed resource (res chosen by the key in value). */
int torus_claim_take_keyed(const torus_backend_ops *ops, torus_backend *be, torus_claim *cl,
                           int64_t node, uint64_t value, torus_node_fits fits,
                           torus_node_seen *seen, char *why, size_t len);
void torus_claim_drop(torus_claim *cl);

#endif /* TORUS_NODE_H */
