/*
 * clock_owner.h - whose clock read is it?  Under `torusemu run
 * --virtual-time` the program's reads of the wall clocks tell virtual time
 * and the MPI runtime's keep host time (mpi/vt_clocks.c,
 * doc/virtual-time.md "The program's own clocks").  Pure functions, no
 * state: the rule that sorts shared objects, and the clocks' arithmetic.
 */
#ifndef TMPI_CLOCK_OWNER_H
#define TMPI_CLOCK_OWNER_H

#include <stdint.h>
#include <time.h>

/* 1 when the shared object at path (a file name as the dynamic loader
 * reports it) belongs to the MPI runtime, its helpers, PAPI, papi-torus,
 * the C library or the dynamic loader: its clock reads keep host time.
 * 0 for everything else (user libraries, libgfortran, libstdc++, libgomp):
 * the program's.  The main executable is the program's; it is recognised
 * by the caller (its loader name is empty). */
int tmpi_clock_runtime_object(const char *path);

/* The wall clocks that tell virtual time to the program, as an index
 * 0..TMPI_WALL_CLOCKS-1; -1 for every other clock (CPU-time clocks,
 * alarms, per-thread and per-process clocks). */
#define TMPI_WALL_CLOCKS 7
int tmpi_wall_clock_index(clockid_t id);
/* The clock of index 0..TMPI_WALL_CLOCKS-1 (0: CLOCK_REALTIME). */
clockid_t tmpi_wall_clock_id(int index);

/* A clock's value at virtual time vt_ps after MPI_Init: base_ns (the host
 * clock at the end of MPI_Init, whole microseconds) + the virtual clock
 * rounded down to nanoseconds. */
static inline int64_t tmpi_program_ns(int64_t base_ns, int64_t vt_ps)
{
    return base_ns + vt_ps / 1000;
}

/* The base: the host clock rounded down to a whole microsecond, so that
 * gettimeofday (microseconds) and time (seconds) taken from the virtual
 * CLOCK_REALTIME differ by whole virtual microseconds and seconds, the same
 * in every run. */
static inline int64_t tmpi_clock_base_ns(int64_t host_ns)
{
    return host_ns - host_ns % 1000;
}

#endif
