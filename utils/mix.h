/*
 * mix.h - a mix of concurrent jobs for `torusemu replay --mix FILE`
 * (mix.c; the file's format: doc/replay.md, "Job mixes").
 *
 * Each line of the file is one job: a built-in pattern, its ranks, ranks
 * per node, placement and parameters.  The jobs get disjoint node sets of
 * one machine and consecutive world ranks: job j's ranks are world ranks
 * job[j].p.first_rank .. + job[j].p.nranks - 1, which is how the pattern
 * engine runs a job (temu_pattern's first_rank, nranks).
 */
#ifndef TORUSEMU_MIX_H
#define TORUSEMU_MIX_H

#include "torusemu_replay.h"
#include "workload.h"

#include <stddef.h>

typedef struct mix_job {
    temu_pattern p; /* kind, parameters, first_rank and nranks            */
    int32_t rpn;    /* ranks per node                                     */
    int line;       /* its line in the file                               */
} mix_job;

typedef struct mix {
    mix_job *job;
    int njobs;
    temu_mapping map; /* every job's ranks; ranks_per_node: the largest */
} mix;

/* Read mix file `path` for machine m into out (a relative map file is
 * read from the mix file's directory).  0, or -1 with the reason
 * ("FILE:LINE: ...") in why (len bytes) and nothing to free. */
int mix_read(const char *path, const temu_machine *m, mix *out, char *why, size_t len);

/* "FILE:LINE" of job j, for messages about it. */
void mix_label(const char *path, const mix_job *j, char *out, size_t len);

void mix_free(mix *x);

#endif
