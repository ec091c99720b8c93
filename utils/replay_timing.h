/*
 * replay_timing.h - `torusemu replay --timing`: a replay with ranks in
 * virtual time over the timing model, its report and the model's counters
 * in the store (replay_timing.c; doc/replay.md, "Virtual time").
 */
#ifndef TEMU_REPLAY_TIMING_H
#define TEMU_REPLAY_TIMING_H

#include "records.h"
#include "torusemu_replay.h"
#include "workload.h"

/* The longest --train: 65,536 packets (BG/Q: 34 MiB, far beyond any
 * message a pattern sends in one piece). */
#define REPLAY_TRAIN_MAX 65536

typedef struct replay_timing {
    int on;                    /* --timing                                   */
    double compute_scale;      /* --compute-scale (1)                        */
    int no_mpi_costs;          /* --mpi-costs=off: messages cost their network time only */
    cli_format format;         /* --format of the per-rank table             */
    const char *series;        /* --series FILE: snapshots of the store, or NULL */
    int64_t interval_ps;       /* --interval between them                    */
    uint32_t routing;          /* --routing: 0 the machine's default, else temu_tm_routing + 1 */
    uint32_t train;            /* --train: longest packet train (0 or 1: single packets) */
    int whole_trains;          /* --whole-trains: a train never splits */
    uint32_t level;            /* --model: temu_tm_level (0: packet, the default) */
    uint32_t threads;          /* --threads: the packet model's regions (0: the serial engine) */
    int64_t flow_window_ps;    /* --flow-window: the flow level's solve window (0: exact) */
    const char *const *labels; /* per pattern: what its errors are about ("FILE:LINE"), or NULL */
    int quiet;                 /* --quiet: no summary lines on stderr        */
} replay_timing;

/* Replay the trace (or when trace is NULL the np patterns p[], all at
 * once: the jobs of a mix, each on its first_rank, nranks share) into s in
 * virtual time, print the report on stdout, add the model's counters to s.
 * 0, or 1 after printing why; *stats: what the replay did. */
int replay_timing_run(temu_session *s, const char *trace, const temu_pattern *p, int np,
                      const replay_timing *o, temu_replay_stats *stats);

#endif
