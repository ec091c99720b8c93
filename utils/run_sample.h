/*
 * run_sample.h - `torusemu run --sample INTERVAL --series FILE`: while the
 * job runs, snapshots of the store every INTERVAL of host time into a
 * series file (doc/series.md).  A live run has no virtual time, so the
 * times are host time since the store was made (series clock "host").
 */
#ifndef TEMU_RUN_SAMPLE_H
#define TEMU_RUN_SAMPLE_H

#include "torusemu_series.h"

#include <sys/types.h>
#include <time.h>

typedef struct run_sampler {
    temu_series *w;
    int64_t interval_ns;
    struct timespec start;
    int64_t next_ns;  /* host time of the next snapshot, from start */
    int64_t last_ns;  /* of the last one written */
    int failed;       /* a snapshot could not be written: no more */
    uint64_t written; /* snapshots in the file, after run_sampler_finish */
    /* called before each snapshot, if set (--split-hosts: the hosts'
     * stores into the sampled view, run_hosts_view_refresh) */
    void (*refresh)(void *ctx);
    void *ctx;
} run_sampler;

/* cli_parse_time_ps ("500ms", "2s", "1min", "250us") in whole host
 * nanoseconds; 0, or -1 when malformed, under 1 ns or above a day. */
int run_parse_interval(const char *s, int64_t *ns);

/* Create the series at path for s and write the snapshot at time 0.
 * 0, or prints why and returns CLI_EXIT_USAGE. */
int run_sampler_start(run_sampler *rs, const char *path, temu_session *s, int64_t interval_ns,
                      void (*refresh)(void *ctx), void *ctx);
/* waitpid(pid, status, 0), writing the snapshots that fall due meanwhile. */
pid_t run_sampler_wait(run_sampler *rs, pid_t pid, int *status);
/* The last snapshot (the job's end) and the end record.  0, or prints why
 * and returns CLI_EXIT_USAGE. */
int run_sampler_finish(run_sampler *rs);

#endif
