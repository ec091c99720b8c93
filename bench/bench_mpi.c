/*
 * bench_mpi - what the interposition layer adds to MPI point-to-point
 * traffic: ping-pong latency between ranks 0 and 1 for 8 B .. 1 MiB, and
 * the rate of small messages (windows of non-blocking sends, each window
 * acknowledged).  Run it with and without the layer (bench/bench_mpi.sh
 * does, alternating, and reports medians); one run prints
 *   latency SIZE USEC      one-way: half a round trip, microseconds
 *   rate 8 MSGS_PER_SEC
 * Each measurement takes the best of several repetitions (the VM is noisy).
 *
 * bench_mpi --rate WINDOWS: only the message-rate loop, once, WINDOWS
 * windows (bench_mpi_instr.sh runs it under callgrind, where what counts
 * is the instructions per MPI_Isend, not the time).
 */
#include <mpi.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Host time in seconds: not MPI_Wtime, which is the virtual clock under
 * `torusemu run --virtual-time` (bench/bench_vtime.sh runs this there). */
static double host_seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

#define WINDOW 64

static double pingpong(int rank, char *buf, int bytes, int iters)
{
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = host_seconds();
    for (int i = 0; i < iters; i++) {
        if (rank == 0) {
            MPI_Send(buf, bytes, MPI_BYTE, 1, 0, MPI_COMM_WORLD);
            MPI_Recv(buf, bytes, MPI_BYTE, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else if (rank == 1) {
            MPI_Recv(buf, bytes, MPI_BYTE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(buf, bytes, MPI_BYTE, 0, 0, MPI_COMM_WORLD);
        }
    }
    return (host_seconds() - t0) / iters / 2.0 * 1e6;
}

static double rate(int rank, char *buf, int windows)
{
    MPI_Request req[WINDOW];
    char ack = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = host_seconds();
    for (int w = 0; w < windows; w++) {
        for (int i = 0; i < WINDOW; i++) {
            if (rank == 0) {
                MPI_Isend(buf + 8 * i, 8, MPI_BYTE, 1, 1, MPI_COMM_WORLD, &req[i]);
            } else if (rank == 1) {
                MPI_Irecv(buf + 8 * i, 8, MPI_BYTE, 0, 1, MPI_COMM_WORLD, &req[i]);
            }
        }
        if (rank <= 1) {
            MPI_Waitall(WINDOW, req, MPI_STATUSES_IGNORE);
        }
        if (rank == 0) {
            MPI_Recv(&ack, 1, MPI_BYTE, 1, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else if (rank == 1) {
            MPI_Send(&ack, 1, MPI_BYTE, 0, 2, MPI_COMM_WORLD);
        }
    }
    return (double)windows * WINDOW / (host_seconds() - t0);
}

int main(int argc, char **argv)
{
    int rank, size;
    const int reps = 5;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size < 2) {
        fprintf(stderr, "bench_mpi: needs 2 ranks\n");
        MPI_Finalize();
        return 2;
    }
    char *buf = malloc(1 << 20);
    if (argc == 3 && strcmp(argv[1], "--rate") == 0) {
        memset(buf, 0x35, 8 * WINDOW);
        double m = rate(rank, buf, atoi(argv[2]));
        if (rank == 0) {
            printf("rate 8 %.0f\n", m);
        }
        free(buf);
        MPI_Finalize();
        return 0;
    }
    for (int i = 0; i < (1 << 20); i++) { /* incompressible */
        buf[i] = (char)(i * 131 + (i >> 8) * 7 + 1);
    }
    for (int bytes = 8; bytes <= (1 << 20); bytes *= 8) {
        int iters = bytes <= 4096 ? 4000 : bytes <= 65536 ? 500 : 60;
        double best = 1e30;
        pingpong(rank, buf, bytes, iters / 10); /* warm up */
        for (int r = 0; r < reps; r++) {
            double t = pingpong(rank, buf, bytes, iters);
            best = t < best ? t : best;
        }
        if (rank == 0) {
            printf("latency %d %.3f\n", bytes, best);
        }
        if (bytes == 262144) {
            bytes = 131072; /* end on 1 MiB exactly */
        }
    }
    double top = 0;
    rate(rank, buf, 100);
    for (int r = 0; r < reps; r++) {
        double m = rate(rank, buf, 1000);
        top = m > top ? m : top;
    }
    if (rank == 0) {
        printf("rate 8 %.0f\n", top);
    }
    free(buf);
    MPI_Finalize();
    return 0;
}
