/*
 * gpcnet.h - GPCNeT's network load test as the replay runs it (gpcnet.c):
 * which ranks are canaries and which run which congestor, the canaries'
 * random rings, one iteration of each canary exchange and one round of
 * every congestor.  Shared by the gpcnet pattern (pattern.c) and its
 * Congestion Impact (gpcnet_impact.c).  Private to the workload library
 * (workload/).
 *
 * The rules are GPCNeT 1.3's (netbench/GPCNET at c56fd95, the code of
 * Chunduri et al., SC19, seed 002); each definition below names the
 * GPCNeT file and function it follows.
 */
#ifndef TEMU_GPCNET_H
#define TEMU_GPCNET_H

#include "torusemu_replay.h"

/* Message sizes and counts, network_load_test.c's defines (x 8 bytes:
 * GPCNeT counts doubles). */
#define GPC_CONGESTOR_BYTES 4096u /* A2A_, INCAST_, BCAST_MSG_COUNT 512  */
#define GPC_LAT_BYTES 8u          /* p2p_latency(): one double            */
#define GPC_BW_BYTES 131072u      /* BW_MSG_COUNT 16384                   */
#define GPC_BW_MSGS 8             /* BW_OUTSTANDING, to each neighbour    */
#define GPC_ALLREDUCE_BYTES 8u    /* allreduce_test(): one double         */
/* CONGESTOR_NODE_FRAC: the share of the nodes that run congestors. */
#define GPC_CONGESTOR_FRAC 0.8
/* build_subcomms(): at least 2 canary nodes and 2 per congestor. */
#define GPC_MIN_CANARY_NODES 2
#define GPC_MIN_CONGESTOR_NODES 8
/* NUM_LAT_RANDS, NUM_BW_RANDS: random rings per measurement. */
#define GPC_RINGS 30
/* RSEED (network_test.h): the rings' seed (plus the node rank). */
#define GPC_RSEED 8675309u

/* Roles: the canaries, then main()'s congestor_tests_list in order. */
enum {
    GPC_CANARY = 0,
    GPC_A2A,        /* A2A_CONGESTOR:        a2a_congestor()        */
    GPC_INCAST,     /* P2P_INCAST_CONGESTOR: p2p_incast_congestor() */
    GPC_PUT_INCAST, /* RMA_INCAST_CONGESTOR: rma_incast_congestor() */
    GPC_GET_BCAST,  /* RMA_BCAST_CONGESTOR:  rma_bcast_congestor()  */
    GPC_ROLES
};

/*
 * The communicators GPCNeT builds: one group per (role, slot), where slot
 * s of a node is its (s+1)-th rank in world-rank order.  Group
 * g = role * slots + slot holds world ranks rank[first[g] .. first[g+1]),
 * in the order of the shuffled node list (their communicator rank order);
 * its rank 0 is the root of an incast or broadcast.  Groups of role
 * GPC_CANARY come first: rank[0 .. canaries) are the canaries.
 */
typedef struct temu_gpcnet_layout {
    int32_t nodes;           /* distinct nodes of the ranks               */
    int32_t canary_nodes;    /* nodes running the network tests           */
    int32_t congestor_nodes; /* floor(0.8 x nodes) by default             */
    int32_t slots;           /* most ranks on one node                    */
    int32_t canaries;        /* canary ranks                              */
    int32_t *rank;           /* every rank once, group after group        */
    int32_t *first;          /* GPC_ROLES x slots + 1 offsets into rank   */
} temu_gpcnet_layout;

/* Group g's size (members). */
static inline int32_t temu_gpcnet_size(const temu_gpcnet_layout *l, int32_t g)
{
    return l->first[g + 1] - l->first[g];
}

/* The layout of the n ranks of s from world rank base on; f: the share of
 * the nodes that are canaries (0: GPCNeT's 0.2), seed: the node draw's
 * (0: GPCNeT's RSEED; GPCNeT itself seeds with the time of day).  Too few
 * nodes give TEMU_EINVAL naming the counts.  Free with
 * temu_gpcnet_layout_free. */
temu_status temu_gpcnet_layout_make(const temu_session *s, int32_t base, int32_t n, double f,
                                    uint64_t seed, temu_gpcnet_layout *out, temu_error *err);
void temu_gpcnet_layout_free(temu_gpcnet_layout *l);

/* Random ring `ring` (0 .. GPC_RINGS - 1) of canary slot `slot`:
 * order[pos] = the canary group member at position pos (a canary talks to
 * the members before and after it, cyclically). */
void temu_gpcnet_ring(const temu_gpcnet_layout *l, int32_t slot, int32_t ring, int32_t *order);

/* One iteration of every canary on ring `ring`: `msgs` messages of
 * `bytes` to each ring neighbour, and their receives.  buf: room for the
 * largest canary group. */
temu_status temu_gpcnet_ring_exchange(temu_replay *r, const temu_gpcnet_layout *l, int32_t ring,
                                      uint64_t bytes, int msgs, int32_t *buf, temu_error *err);

/* One call of congestor group g's function by its members (g: GPC_A2A *
 * slots .. GPC_ROLES * slots - 1; a group of one: nothing). */
temu_status temu_gpcnet_group_round(temu_replay *r, const temu_gpcnet_layout *l, int32_t g,
                                    temu_error *err);
/* One round of every congestor group; in virtual time (the replay's
 * temu_replay_vtime) each member waits where GPCNeT's call blocks. */
temu_status temu_gpcnet_congestor_round(temu_replay *r, const temu_gpcnet_layout *l,
                                        temu_error *err);

/* Define the canaries' communicators: ids[s] the canary group of slot s
 * (-1 if empty), ids[slots] all canaries.  ids: slots + 1 entries. */
temu_status temu_gpcnet_canary_comms(temu_replay *r, const temu_gpcnet_layout *l, int32_t *ids,
                                     temu_error *err);

/* Every member of each canary slot communicator calls collective c. */
temu_status temu_gpcnet_slot_coll(temu_replay *r, const temu_gpcnet_layout *l, const int32_t *ids,
                                  const temu_replay_coll *c, temu_error *err);

/* The allreduce canary: one blocking 8-byte allreduce of doubles. */
extern const temu_replay_coll temu_gpcnet_allreduce;
/* MPI_Barrier. */
extern const temu_replay_coll temu_gpcnet_barrier;

#endif
