/*
 * tgather.h - job-wide gathering of the emulated network's counters, after
 * the Gemini monitor library of Pedretti et al., "Using the Cray Gemini
 * Performance Counters" (CUG 2013), section IV.
 *
 * Collective over the communicator given to tgather_start:
 *
 *   tgather_start(MPI_COMM_WORLD);       elect one leader per router; start
 *   ... the region of interest ...
 *   tgather_stop();                      leaders read their router's counters
 *   tgather_report("job.links", "job.csv");   rank 0 writes the table
 *
 * One leader per Gemini (the lowest rank on it; per node on Blue Gene) reads
 * its router's link counters through PAPI (gemini_tile: the 6 tile counters
 * of each of the 7 logical links; bgq_nwunit, bgp_torus: chunks and packets
 * per link) and rank 0 writes them in the layout of Pedretti 2013 Fig. 4,
 * plus a CSV file.  The
 * library's own messages are sent with counting paused (MPI_Pcontrol(0)), so
 * the emulated network does not count them; every call returns with
 * counting on (MPI_Pcontrol(1)).  Every call returns 0, or -1 after printing
 * the reason on stderr ("tgather: ...").
 *
 * Fortran: CALL TGATHER_START(COMM, IERR), CALL TGATHER_STOP(IERR),
 * CALL TGATHER_REPORT(TABLE, CSV, IERR) with character arguments (a blank
 * name means "none"; "-" means standard output).
 */
#ifndef TGATHER_H
#define TGATHER_H

#include <mpi.h>

int tgather_start(MPI_Comm comm);
int tgather_stop(void);
/* table, csv: file paths; NULL or "" writes none, "-" writes to stdout */
int tgather_report(const char *table, const char *csv);

#endif
