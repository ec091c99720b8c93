/*
 * vt_rma.c - one-sided transactions under `torusemu run --virtual-time`
 * with the online model (tests/mpi/vtime.sh).
 *
 *   vt_rma put|get|fence BYTES ROUNDS
 *
 * put, get: rank 0 locks every window (MPI_Win_lock_all) and in each round
 * puts (gets) BYTES to (from) rank 1 and flushes (MPI_Win_flush); it prints
 * its clock in picoseconds after each flush.  fence: every round rank 0
 * puts BYTES to rank 1 inside fences; both ranks print their clocks after
 * each closing fence.  The window comes from MPI_Win_allocate.
 */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static long long ps(double seconds)
{
    return llround(seconds * 1e12);
}

int main(int argc, char **argv)
{
    int rank;
    char *base;
    MPI_Win win;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (argc != 4 || (strcmp(argv[1], "put") != 0 && strcmp(argv[1], "get") != 0 &&
                      strcmp(argv[1], "fence") != 0)) {
        if (rank == 0) {
            fprintf(stderr, "usage: vt_rma put|get|fence BYTES ROUNDS\n");
        }
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    int bytes = atoi(argv[2]), rounds = atoi(argv[3]);
    char *buf = calloc((size_t)bytes + 1, 1);
    MPI_Win_allocate(bytes, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    if (strcmp(argv[1], "fence") == 0) {
        MPI_Win_fence(0, win);
        for (int i = 0; i < rounds; i++) {
            if (rank == 0) {
                MPI_Put(buf, bytes, MPI_BYTE, 1, 0, bytes, MPI_BYTE, win);
            }
            MPI_Win_fence(0, win);
            printf("rank %d round %d %lld ps\n", rank, i, ps(MPI_Wtime()));
        }
    } else {
        MPI_Win_lock_all(0, win);
        for (int i = 0; rank == 0 && i < rounds; i++) {
            if (argv[1][0] == 'p') {
                MPI_Put(buf, bytes, MPI_BYTE, 1, 0, bytes, MPI_BYTE, win);
            } else {
                MPI_Get(buf, bytes, MPI_BYTE, 1, 0, bytes, MPI_BYTE, win);
            }
            MPI_Win_flush(1, win);
            printf("round %d %lld ps\n", i, ps(MPI_Wtime()));
        }
        MPI_Win_unlock_all(win);
    }
    MPI_Win_free(&win);
    free(buf);
    MPI_Finalize();
    return 0;
}
