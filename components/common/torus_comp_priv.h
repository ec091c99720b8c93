/*
 * torus_comp_priv.h - what torus_comp.c (vector, read path, multiplexing)
 * and torus_ovf.c (overflow, set timer, signal dispatch) share.  Private to
 * the shared layer: components include torus_comp.h only.
 */
#ifndef TORUS_COMP_PRIV_H
#define TORUS_COMP_PRIV_H

#include "torus_comp.h"

/* PAPI status of a torus status. */
int torus_papi_status(int torus_rc);

/* CLOCK_MONOTONIC in ns (async-signal-safe). */
uint64_t torus_now_ns(void);

/* Current values of every counter of the plan into ctl->now, time into
 * ctl->t_now (async-signal-safe). */
void torus_sample(torus_control *ctl);
/* Raw sum (coefficients applied, divisor not) of event e over the
 * counters' now - start. */
int64_t torus_raw(const torus_control *ctl, int e);
/* Multiplexed set: close the active group's slice at ctl->t_now (after a
 * sample) and open the next group's. */
void torus_rotate(torus_control *ctl);

/*
 * Owner-thread critical sections.  The set timer and the overflow signal
 * run on the thread that started the set; while that thread is inside one
 * of the set's entry points (busy), the handler only notes the signal
 * (deferred) and torus_leave raises it again once the state is consistent.
 */
void torus_enter(torus_control *ctl);
void torus_leave(torus_control *ctl);

/* Overflow and timer side of start / stop / reset / cleanup (torus_ovf.c).
 * ovf_start arms the watches, installs the signal handler and starts the
 * set timer as the set needs; a failure leaves nothing armed. */
int torus_ovf_start(torus_control *ctl);
void torus_ovf_stop(torus_control *ctl);
/* PAPI_reset, called before the counts restart: the progress towards
 * the next overflow is kept (PERF_EVENT_IOC_RESET leaves the sampling
 * period running), so host-measured events carry their current value. */
void torus_ovf_reset(torus_control *ctl);
/* Forget event e's overflow (threshold and node-wide claim). */
void torus_ovf_clear(torus_control *ctl, int e);
/* The process moved (MPI_Init): node-wide threshold claims follow it. */
int torus_ovf_attach(torus_control *ctl, const torus_place *pl);

/* Components of this libpapi (for the signal handler). */
void torus_register(torus_component *c);

#endif /* TORUS_COMP_PRIV_H */
