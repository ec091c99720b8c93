/*
 * vtime_rules.h - the arithmetic of ranks in virtual time (vtime_rules.c):
 * compute gaps, the eager rule and a node's injection serialization.
 * Pure functions of their arguments; the engine that applies them over
 * the timing model is vtime.c.  Private to libtorusemu.
 */
#ifndef TEMU_VTIME_RULES_H
#define TEMU_VTIME_RULES_H

#include "torusemu.h"

/* Compute time between an operation's end (last_end_ns) and the next
 * one's begin (begin_ns), both trace nanoseconds (-1: unknown), scaled:
 * picoseconds, 0 when either is unknown or the stamps go backwards. */
int64_t temu_vt_gap_ps(int64_t last_end_ns, int64_t begin_ns, double scale);

/* Picoseconds of ps scaled by scale (>= 0), rounded to nearest. */
int64_t temu_vt_scale_ps(int64_t ps, double scale);

/* A point-to-point message of `bytes` is sent eagerly on machine m: it
 * completes at its sender once its packets have left the node.  Else
 * (rendezvous) it completes when it and its replies have been delivered.
 * The threshold is the volume model's (m->protocol.eager_limit, "bytes <
 * eager_limit"), so both models agree on a message's protocol. */
int temu_vt_eager(const temu_machine *m, temu_kind kind, uint64_t bytes);

/* A node's injection channel: `wire_bytes` submitted at t_ps leave it
 * after the ones before (*free_ps: when it is free) at node_gbs GB/s.
 * Returns when the last byte has left and moves *free_ps there. */
int64_t temu_vt_inject_done(int64_t *free_ps, int64_t t_ps, uint64_t wire_bytes, double node_gbs);

#endif
