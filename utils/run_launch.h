/*
 * run_launch.h - `torusemu run`: starting mpirun and waiting for it, with
 * the signals that end a job forwarded once (run_launch.c; doc/mpi.md,
 * "Signals").
 */
#ifndef TEMU_RUN_LAUNCH_H
#define TEMU_RUN_LAUNCH_H

#include "run_sample.h"

/*
 * Run mpirun (argv[0] its path) in its own process group and wait for it
 * (with rs: writing its snapshots meanwhile; NULL: none).  SIGHUP, SIGINT,
 * SIGQUIT and SIGTERM received meanwhile are forwarded to mpirun once;
 * mpirun gets SIGTERM if this process dies; a terminal's input reaches the
 * job.  Returns the job's exit status, or 128 + N when signal N ended it
 * (*job_signal = N, else 0; reported as "killed by signal N"), or -1 after
 * saying why mpirun could not be started.
 */
int run_launch(char **argv, run_sampler *rs, int *job_signal);

#endif
