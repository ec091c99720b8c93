/*
 * bench_vtime_live - host time per message of a live virtual-time run
 * (bench/bench_vtime_live.sh, doc/performance.md): every rank sends
 * 8 bytes to its right neighbour and receives 8 from its left one, in a
 * ring, ITERATIONS times (MPI_Irecv, MPI_Isend, MPI_Waitall: the shape of
 * GPCNeT's ring latency test).  Rank 0 prints, for the timed loop:
 *   messages N            ITERATIONS x ranks
 *   host_us_per_msg X     host wall time / N, microseconds
 *   rank_cpu_us_per_msg Y the ranks' CPU time (getrusage, all ranks) / N
 *   virtual_ps_per_iter Z rank 0's virtual clock (MPI_Wtime) / ITERATIONS
 * The host figures are what the benchmark is about; the virtual one shows
 * the run did what it should (the same in every run at --cpu-scale 0).
 */
#include <mpi.h>

#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>

/* Host time: not MPI_Wtime, which is the virtual clock here. */
static double host_seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static double cpu_seconds(void)
{
    struct rusage u;
    getrusage(RUSAGE_SELF, &u);
    return (double)(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
           (double)(u.ru_utime.tv_usec + u.ru_stime.tv_usec) * 1e-6;
}

static void ring(int rank, int size, int iters)
{
    char out[8] = {1, 2, 3, 4, 5, 6, 7, 8}, in[8];
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    for (int i = 0; i < iters; i++) {
        MPI_Request r[2];
        MPI_Irecv(in, 8, MPI_BYTE, left, 0, MPI_COMM_WORLD, &r[0]);
        MPI_Isend(out, 8, MPI_BYTE, right, 0, MPI_COMM_WORLD, &r[1]);
        MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
    }
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int iters = argc > 1 ? atoi(argv[1]) : 0;
    if (size < 2 || iters < 1) {
        if (rank == 0) {
            fprintf(stderr, "usage: bench_vtime_live ITERATIONS (2 ranks or more)\n");
        }
        MPI_Finalize();
        return 2;
    }
    ring(rank, size, iters / 10 + 1); /* warm up */
    MPI_Barrier(MPI_COMM_WORLD);
    double v0 = MPI_Wtime(), c0 = cpu_seconds(), t0 = host_seconds();
    ring(rank, size, iters);
    MPI_Barrier(MPI_COMM_WORLD);
    double t = host_seconds() - t0, cpu = cpu_seconds() - c0, v = MPI_Wtime() - v0, all = 0;
    MPI_Reduce(&cpu, &all, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        double n = (double)iters * size;
        printf("messages %.0f\n", n);
        printf("host_us_per_msg %.3f\n", t / n * 1e6);
        printf("rank_cpu_us_per_msg %.3f\n", all / n * 1e6);
        printf("virtual_ps_per_iter %.0f\n", v * 1e12 / iters);
    }
    MPI_Finalize();
    return 0;
}
