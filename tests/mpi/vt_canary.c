/*
 * vt_canary.c - congestion impact in virtual time, in the manner of a
 * network-congestion benchmark (tests/mpi/vtime.sh, doc/virtual-time.md):
 *
 *   vt_canary MODE ITERS [BYTES [COUNT]]
 *
 * Ranks 0 and 1 are the canaries: ITERS times a ping-pong of 8 bytes and an
 * MPI_Allreduce of one double on a communicator of the two, each timed
 * with MPI_Wtime.  MODE congested: ranks 2 .. size-2 (the congestors) each send
 * COUNT messages of BYTES (default 4 x 64 KiB) at once to rank size-1 and
 * it receives them (an incast, whose links the canaries share when the
 * mapping puts them there); MODE isolated: the congestors send nothing.
 * Rank 0 prints "pingpong T ps" and "allreduce T ps": the mean time of one
 * round trip and of one allreduce, in picoseconds (rounded down).
 */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc < 3 || size < 2) {
        if (rank == 0) {
            fprintf(stderr, "usage: vt_canary isolated|congested ITERS [BYTES [COUNT]]\n");
        }
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    int congested = strcmp(argv[1], "congested") == 0;
    int iters = atoi(argv[2]);
    int bytes = argc > 3 ? atoi(argv[3]) : 65536;
    int count = argc > 4 ? atoi(argv[4]) : 4;
    int target = size - 1;
    MPI_Comm canaries;
    MPI_Comm_split(MPI_COMM_WORLD, rank < 2 ? 0 : MPI_UNDEFINED, rank, &canaries);
    MPI_Barrier(MPI_COMM_WORLD);

    if (rank >= 2 && rank < target && congested) {
        char *buf = malloc((size_t)bytes);
        memset(buf, 0x5a, (size_t)bytes);
        for (int i = 0; i < count; i++) { /* one after another: a sustained load */
            MPI_Send(buf, bytes, MPI_BYTE, target, 7, MPI_COMM_WORLD);
        }
        free(buf);
    } else if (rank == target && rank >= 2 && congested) {
        int n = (target - 2) * count;
        char *buf = malloc((size_t)bytes * (size_t)(n > 0 ? n : 1));
        MPI_Request *r = calloc((size_t)(n > 0 ? n : 1), sizeof *r);
        for (int i = 0; i < n; i++) {
            MPI_Irecv(buf + (size_t)i * (size_t)bytes, bytes, MPI_BYTE, MPI_ANY_SOURCE, 7,
                      MPI_COMM_WORLD, &r[i]);
        }
        MPI_Waitall(n, r, MPI_STATUSES_IGNORE);
        free(r);
        free(buf);
    } else if (rank < 2) {
        char msg[8] = {1, 2, 3, 4, 5, 6, 7, 8};
        double x = rank + 1.0, sum = 0, pp = 0, ar = 0;
        for (int i = 0; i < iters; i++) { /* one of each in turn: both meet the congestion */
            double t0 = MPI_Wtime();
            if (rank == 0) {
                MPI_Send(msg, 8, MPI_BYTE, 1, 1, MPI_COMM_WORLD);
                MPI_Recv(msg, 8, MPI_BYTE, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            } else {
                MPI_Recv(msg, 8, MPI_BYTE, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                MPI_Send(msg, 8, MPI_BYTE, 0, 1, MPI_COMM_WORLD);
            }
            double t1 = MPI_Wtime();
            MPI_Allreduce(&x, &sum, 1, MPI_DOUBLE, MPI_SUM, canaries);
            double t2 = MPI_Wtime();
            pp += t1 - t0;
            ar += t2 - t1;
        }
        if (rank == 0) {
            printf("pingpong %lld ps\n", llround(pp * 1e12) / iters);
            printf("allreduce %lld ps\n", llround(ar * 1e12) / iters);
        }
    }
    if (canaries != MPI_COMM_NULL) {
        MPI_Comm_free(&canaries);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
