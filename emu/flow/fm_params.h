/*
 * fm_params.h - the flow level's constants in one table, and the queueing
 * formulas its stall estimates use (fm_params.c).  Private to libtorusemu;
 * pure, so the unit tests check them without a machine.  A calibration
 * against the packet model or BookSim changes fm_params_default only.
 */
#ifndef TEMU_FLOW_PARAMS_H
#define TEMU_FLOW_PARAMS_H

#include <stdint.h>

#pragma GCC visibility push(hidden)

#define FM_ETA_INPUTS 9 /* eta_inputs[n] for n = 0..8 input ports; more: [8] */

typedef struct fm_params {
    /* Saturation (doc/model.md, "Flow level"): a channel that is a
     * bottleneck and is fed by input queues that also hold packets for
     * other outputs (head-of-line blocking is possible) keeps this fraction
     * of its time, by the number of distinct input ports feeding it. */
    double eta_inputs[FM_ETA_INPUTS];
    /* the same, times this factor by the number of dateline VC classes
     * the channel's flows use (1: one, 2: both) */
    double eta_vcs[3];
    /* utilisation above which the open-queue formulas are held */
    double rho_max;
    /* Calibration of the inq stall estimate against the packet model
     * (doc/model.md, "Flow level: validation"): the open-queue inq stall
     * rate is multiplied by this (before its bound 1).  A scale changes no
     * rank, only totals. */
    double inq_scale;
} fm_params;

extern const fm_params fm_params_default;

/* The fraction of its time a bottleneck channel keeps (0 < eta <= 1):
 * `inputs` distinct input ports feed it, `mixed` is 1 when one of them
 * also feeds another output, `vcs` dateline classes (1 or 2) use it. */
double fm_params_eta(const fm_params *p, int inputs, int mixed, int vcs);

/* The least eta of the table (no channel is derated below it). */
double fm_params_eta_least(const fm_params *p);

/* Mean wait of a packet for a channel, in units of its service time, the
 * channel's other traffic taking rho_other of its time and all of its
 * traffic rho_total (M/D/1, Pollaczek-Khinchine with deterministic
 * service, counting only the interfering part: a stream alone on a
 * channel never waits).  0 when rho_other is 0; held at rho_max. */
double fm_params_wait(const fm_params *p, double rho_other, double rho_total);

/* Probability that all of k slots are held, offered load a (slots held
 * on average if there were no limit): Erlang's B formula, k rounded down
 * (at least 1). */
double fm_params_blocked(double a, double k);

/* Probability that a buffer of k packets is full, offered load z (M/M/1/K:
 * (1 - z) z^k / (1 - z^(k + 1)); 1 / (k + 1) at z = 1). */
double fm_params_full(double z, double k);

#pragma GCC visibility pop

#endif
