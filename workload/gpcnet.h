/*
 * gpcnet.h - GPCNeT's roles and congestors, shared by the gpcnet pattern
 * (pattern.c) and its congestion impact (gpcnet_impact.c).  Private to
 * the workload library (workload/).
 */
#ifndef TEMU_GPCNET_H
#define TEMU_GPCNET_H

#include "torusemu_replay.h"

/* Message sizes of GPCNeT 1.3's network_load_test (reference/anchors
 * REPORT section 2.4-2.5). */
#define GPC_CONGESTOR_BYTES 4096u /* every congestor's message            */
#define GPC_LAT_BYTES 8u          /* random-ring latency canary           */
#define GPC_BW_BYTES 131072u      /* random-ring bandwidth canary ...     */
#define GPC_BW_MSGS 8             /* ... messages in flight per neighbour */
#define GPC_ALLREDUCE_BYTES 8u    /* allreduce canary                     */

/* The allreduce canary: one blocking 8-byte hardware allreduce of doubles. */
extern const temu_replay_coll temu_gpcnet_allreduce;

/*
 * GPCNeT's roles are per node: the nodes of the n ranks of s from world
 * rank base on (base + 0 .. base + n - 1) are shuffled
 * (seed; 0: GPCNeT's RSEED), the first share f of them run canaries, the
 * rest are split evenly, in order, over the four congestors.  perm (n
 * entries) receives the (world) ranks node by node in that order; *nc the number
 * of canary ranks, first[k] where congestor k's ranks start (first[4] = n).
 */
temu_status temu_gpcnet_roles(const temu_session *s, int32_t base, int32_t n, double f,
                              uint64_t seed, int32_t *perm, int32_t *nc, int32_t *first,
                              temu_error *err);

/* One round of the four congestors over perm[first[0]..first[4]):
 * all-to-all, incast, PUT incast, GET broadcast (4 KiB each). */
temu_status temu_gpcnet_congestors(temu_replay *r, const int32_t *perm, const int32_t *first,
                                   temu_error *err);

#endif
