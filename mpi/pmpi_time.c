/*
 * pmpi_time.c - MPI_Wtime and MPI_Wtick (and their PMPI_ names): under
 * --virtual-time the rank's virtual clock (rank_vtime.c), which counts
 * picoseconds; otherwise the next definition's.  Open MPI's Fortran
 * MPI_WTIME and MPI_WTICK (mpif.h, `use mpi`, `use mpi_f08`) call
 * PMPI_Wtime and PMPI_Wtick through the dynamic linker (`nm -D
 * libmpi_mpifh.so.40` lists them undefined), so Fortran gets the clock too.
 * Not through TMPI_ENTRY: they return a double and start no call of ours.
 */
#include "tmpi.h"

typedef double (*time_fn)(void);

#define CLOCK_ENTRY(NAME, VIRTUAL)                                                                 \
    double NAME(void)                                                                              \
    {                                                                                              \
        static void *next;                                                                         \
        if (tmpi_vt_on) {                                                                          \
            return VIRTUAL;                                                                        \
        }                                                                                          \
        return ((time_fn)tmpi_next_fn(&next, #NAME))();                                            \
    }

/* the clock's unit: one picosecond */
#define VT_TICK 1e-12

CLOCK_ENTRY(MPI_Wtime, tmpi_vt_seconds())
CLOCK_ENTRY(PMPI_Wtime, tmpi_vt_seconds())
CLOCK_ENTRY(MPI_Wtick, VT_TICK)
CLOCK_ENTRY(PMPI_Wtick, VT_TICK)
