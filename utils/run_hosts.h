/*
 * run_hosts.h - `torusemu run --split-hosts N`: the run behaves as N hosts,
 * each with a store of its own, and the stores are gathered into the run's
 * store when the job ends (run_hosts.c; doc/mpi.md, "Across hosts").
 */
#ifndef TEMU_RUN_HOSTS_H
#define TEMU_RUN_HOSTS_H

#include "torusemu.h"

#include <limits.h>

typedef struct run_hosts {
    int32_t n;             /* hosts; 0: not split */
    int remote;            /* real hosts: the ranks make and gather the stores */
    int copies;            /* remote with --sample: stores are copies the agents fill */
    char dir[PATH_MAX];    /* private directory of the hosts' stores */
    char count[16];        /* N, for the ranks' environment */
    temu_hosts *hosts;     /* who owns what */
    temu_session **stores; /* host h's store (copies: the launcher's copy of it) */
    temu_session *view;    /* --sample: the run as one store (run_hosts_view_open) */
    const temu_session *base;
} run_hosts;

/* The hosts of a run whose store is base (made with machine m and map):
 * their assignment and a private directory for their stores, with a fresh
 * store each unless remote (real hosts, which this machine cannot write
 * to: each host's first rank makes its own, and rank 0 gathers them over
 * MPI at the end, mpi/hosts.c).  0, or -1 after saying why (nothing left
 * behind). */
int run_hosts_prepare(run_hosts *rh, int32_t n, int remote, const temu_session *base,
                      const temu_machine *m, const temu_mapping *map);
/* --sample on real hosts: a copy of each host's store on this machine,
 * which the hosts' agents keep in step (mpi/host_copy.c; host 0's ranks
 * run here); the sampler's view and the gathering read the copies as the
 * hosts' stores.  0, or -1 after saying why. */
int run_hosts_copies_open(run_hosts *rh, const temu_machine *m, const temu_mapping *map);
/* The job has ended: every host's counters into base (remote without
 * copies: nothing to do, the ranks did it).  0, or -1 after saying why. */
int run_hosts_gather(run_hosts *rh, temu_session *base);
/* --sample on one machine: a store in the hosts' directory that holds, at
 * each run_hosts_view_refresh (the sampler's, before each snapshot), what
 * the run's store will hold once gathered: base's counters (the online
 * model's) plus each counter's owning host's, the totals summed.  The
 * sampler snapshots it.  0, or -1 after saying why. */
int run_hosts_view_open(run_hosts *rh, const temu_session *base, const temu_machine *m,
                        const temu_mapping *map);
void run_hosts_view_refresh(void *rh);
/* The hosts' stores and their directory removed (safe to call twice). */
void run_hosts_remove(run_hosts *rh);

#endif
