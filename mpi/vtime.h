/*
 * vtime.h - how `torusemu run --virtual-time` tells the MPI layer
 * (mpi/vtime.c) to keep virtual clocks: environment variables the launcher
 * (utils/cmd_run.c) exports to every rank.
 */
#ifndef TMPI_VTIME_H
#define TMPI_VTIME_H

/* "1": per-rank virtual clocks, MPI_Wtime returns them */
#define TMPI_VT_ENV "TORUSEMU_VIRTUAL_TIME"
/* factor >= 0 applied to the CPU time between MPI calls (default 1) */
#define TMPI_VT_SCALE_ENV "TORUSEMU_CPU_SCALE"
/* "1" (`run --host-clocks`): the program's clock_gettime, gettimeofday,
 * time and timespec_get keep host time (mpi/vt_clocks.c) */
#define TMPI_VT_HOST_CLOCKS_ENV "TORUSEMU_HOST_CLOCKS"

#endif
