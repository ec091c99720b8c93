/*
 * run_model.h - `torusemu run --virtual-time`: the timing model running
 * beside the job, fed by the ranks through the shared-memory feed
 * (protocol/vt_feed.h), adding its stall and occupancy counters to the session
 * store while the job runs (doc/virtual-time.md, "Online model").
 */
#ifndef TEMU_RUN_MODEL_H
#define TEMU_RUN_MODEL_H

#include "torusemu.h"

typedef struct run_model run_model;

/* Create the feed file at feed_path for nranks ranks and start the model
 * thread, a model of `level` (temu_tm_level) writing into s; the packet
 * level runs in `threads` regions (temu_tm_config.threads, >= 1; the same
 * results for every number).  0, or -1 with a reason in why. */
int run_model_start(run_model **out, temu_session *s, uint32_t level, uint32_t threads,
                    const char *feed_path, int32_t nranks, char *why, size_t len);
/* The job has ended: feed what is left, run the model to its end, add the
 * last counters, stop the thread, remove the feed file.  Messages and the
 * virtual time the model reached into *messages, *end_ps; the host CPU
 * time the model thread used while the job ran into *cpu_ns (ns). */
void run_model_finish(run_model *rm, uint64_t *messages, int64_t *end_ps, int64_t *cpu_ns);

#endif
