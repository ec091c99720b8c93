/*
 * torus_node.h - node-wide hardware rules across processes.
 *
 * Some rules of the real machines hold for a whole node, whichever process
 * asks: one BG/P UPC counter mode per node, one BG/Q L2 mode (combined or
 * sliced) per node, one controller per BG/Q network link.  The emulated
 * node keeps that state in its TEMU_NODE_WORDS shared 64-bit words (store
 * ABI 3, torus_backend_ops.node_words), so every process attached to the
 * same session sees the same claims.  Word assignment (the same on every
 * system; listed in doc/components.md):
 *
 *   word 0       lock: 0 free, else the pid of the process updating words
 *   words 1..8   process slots: slot 2k in bits 0..31 of word 1+k, slot
 *                2k+1 in bits 32..63; a pid, or 0 for a free slot
 *   words 9..31  resources, one word each:
 *                  bits 0..15   holders: bit s = process slot s
 *                  bits 16..19  owner: slot of the controlling process
 *                  bits 21..63  value (a mode, a link's VC masks, ...)
 *
 * A resource is free when no slot holds it.  The first process to take it
 * sets its value and owns it; others may join while their value `fits`
 * the held one.  When the owner lets go, the lowest remaining holder owns
 * it.  A process that died without letting go (kill(pid, 0) fails with
 * ESRCH) is removed, with everything it held, by the next acquire on that
 * node.  Within a process the claims are counted: the node words change
 * only when a process's first claim on a resource is taken or its last one
 * is given back.  At most TORUS_NODE_PROCS processes of one node can hold
 * resources at the same time.
 */
#ifndef TORUS_NODE_H
#define TORUS_NODE_H

#include "torus_backend.h"

#include <stddef.h>
#include <stdint.h>

#define TORUS_NODE_PROCS 16      /* process slots per node             */
#define TORUS_NODE_VALUE_BITS 43 /* value bits of a resource word      */

/* Node words (doc/components.md, "Node-wide state"). */
enum torus_node_word {
    TORUS_NODE_LOCK = 0,
    TORUS_NODE_SLOTS = 1,  /* words 1..8: 16 process slots              */
    TORUS_NODE_RES = 9,    /* first resource word                       */
    TORUS_RES_BGP_UPC = 9, /* BG/P: the UPC counter mode (bgp_torus)    */
    TORUS_RES_BGQ_L2 = 9,  /* BG/Q: L2 combined or sliced (bgq_l2unit)  */
    TORUS_RES_BGQ_NW = 10, /* BG/Q: words 10..20 = network links 0..10  */
    TORUS_NODE_RES_END = 32
};

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
void torus_node_release(uint64_t *w, int res);

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
void torus_claim_drop(torus_claim *cl);

#endif /* TORUS_NODE_H */
