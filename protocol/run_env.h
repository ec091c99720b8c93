/*
 * run_env.h - the launcher-rank protocol: what `torusemu run`
 * (utils/cmd_run.c) tells every rank of the job, and so the MPI layer
 * (libtorusemu_mpi, mpi/), through environment variables.  The two sides
 * include this header; neither includes the other's.  Besides these the
 * launcher sets TEMU_SESSION_ENV (the store, include/torusemu.h: every
 * library user reads it), LD_PRELOAD (the layer) and LD_LIBRARY_PATH.
 * What flows back is in files: the raw trace records (trace_format.h) and
 * the online model's shared-memory feed (vt_feed.h).  Not installed.
 */
#ifndef TMPI_RUN_ENV_H
#define TMPI_RUN_ENV_H

/* `run --trace DIR`: the directory each rank writes rank.<world rank>.raw
 * into (mpi/trace.c, trace_format.h) */
#define TMPI_TRACE_ENV "TORUSEMU_TRACE"

/* `run --virtual-time` (mpi/rank_vtime.c): "1": per-rank virtual clocks,
 * MPI_Wtime returns them */
#define TMPI_VT_ENV "TORUSEMU_VIRTUAL_TIME"
/* factor >= 0 applied to the CPU time between MPI calls (default 1) */
#define TMPI_VT_SCALE_ENV "TORUSEMU_CPU_SCALE"
/* "1" (`run --host-clocks`): the program's clock_gettime, gettimeofday,
 * time and timespec_get keep host time (mpi/vt_clocks.c) */
#define TMPI_VT_HOST_CLOCKS_ENV "TORUSEMU_HOST_CLOCKS"
/* "off" (`run --mpi-costs off`): messages cost their network time only,
 * not the MPI library's software costs (temu_tm_config.mpi) */
#define TMPI_VT_MPI_COSTS_ENV "TORUSEMU_MPI_COSTS"
/* the online model's feed file (vt_feed.h), created by the launcher */
#define TMPI_VT_FEED_ENV "TORUSEMU_VT_FEED"
/* a run across hosts: host h's copy of the feed (mpi/host_feed.c), in the
 * directory of the hosts' stores (TORUSEMU_HOST_STORES): printf format of
 * the directory and h */
#define TMPI_HOST_FEED_FORMAT "%s/host%d.feed"
/* `run --sample` across real hosts (mpi/host_copy.c): host time (ns)
 * between two updates of the launcher's copies of the hosts' stores, and
 * where the copies are, in the directory of the hosts' stores on the
 * launcher's machine: printf format of the directory and h */
#define TMPI_HOST_COPY_ENV "TORUSEMU_HOSTS_COPY_NS"
#define TMPI_HOST_COPY_FORMAT "%s/copy%d.store"
/* "1": each host's agent says at MPI_Finalize what of the feed it relayed
 * (tests/mpi/hosts.sh) */
#define TMPI_HOST_FEED_STATS_ENV "TORUSEMU_HOSTS_FEED_STATS"
/* test hook (tests/mpi/hosts.sh): milliseconds another host's agent holds
 * the first of its messages up that carries a record, as a host too
 * loaded to run it would */
#define TMPI_HOST_FEED_HOLD_ENV "TORUSEMU_HOSTS_FEED_HOLD_MS"

#endif
