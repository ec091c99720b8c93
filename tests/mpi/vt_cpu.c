/*
 * vt_cpu.c - computation in virtual time (tests/mpi/vtime.sh): rank 1
 * burns MS milliseconds of its thread's CPU time between two MPI_Wtime
 * calls, measuring that CPU time itself, while rank 0 waits in a barrier;
 * then both read their clocks after the barrier.  Prints, in picoseconds:
 *   cpu C     the CPU time rank 1 measured around its loop
 *   virtual V the virtual time that passed between its two MPI_Wtime
 *   rank R after barrier T
 * and in nanoseconds
 *   monotonic M  what clock_gettime(CLOCK_MONOTONIC) measured around the
 *                loop alone (inside the MPI_Wtime pair, no MPI call between:
 *                the program's own clock must add the CPU time itself)
 */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static long long cpu_ps(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return ((long long)t.tv_sec * 1000000000ll + t.tv_nsec) * 1000ll;
}

int main(int argc, char **argv)
{
    int rank;
    volatile double sink = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    long long ms = argc > 1 ? atoll(argv[1]) : 20;
    if (rank == 1) {
        struct timespec m0, m1;
        double t0 = MPI_Wtime();
        clock_gettime(CLOCK_MONOTONIC, &m0);
        long long c0 = cpu_ps(), c1 = c0;
        while (c1 - c0 < ms * 1000000000ll) {
            for (int i = 0; i < 10000; i++) {
                sink += i * 0.5;
            }
            c1 = cpu_ps();
        }
        clock_gettime(CLOCK_MONOTONIC, &m1);
        double t1 = MPI_Wtime();
        printf("cpu %lld\nvirtual %lld\nmonotonic %lld\n", c1 - c0, llround((t1 - t0) * 1e12),
               (long long)(m1.tv_sec - m0.tv_sec) * 1000000000ll + (m1.tv_nsec - m0.tv_nsec));
        fflush(stdout);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    printf("rank %d after barrier %lld\n", rank, llround(MPI_Wtime() * 1e12));
    MPI_Finalize();
    return sink < 0;
}
