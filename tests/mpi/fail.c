/*
 * fail - an MPI program whose last rank exits with the status given as its
 * argument (the launcher must pass it through).
 *
 *   fail STATUS
 *   fail 0 --lose-trace R
 *     instead, every rank enters a barrier, and rank R removes its raw trace
 *     file (`torusemu run --trace`) after MPI_Finalize: the run succeeds
 *     but the launcher finds a rank's records missing half-way through
 *     writing the archive (tests/mpi/trace.sh)
 */
#include "../../protocol/run_env.h"

#include <mpi.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Rank's raw trace file, as mpi/trace.c names it, removed. */
static void lose_trace(int rank)
{
    const char *dir = getenv(TMPI_TRACE_ENV);
    char path[4096];
    if (dir != NULL) {
        snprintf(path, sizeof path, "%s/rank.%d.raw", dir, rank);
        unlink(path);
    }
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc == 4 && strcmp(argv[2], "--lose-trace") == 0) {
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Finalize();
        if (rank == atoi(argv[3])) {
            lose_trace(rank);
        }
        return 0;
    }
    if (rank == size - 1 && argc > 1 && atoi(argv[1]) != 0) {
        exit(atoi(argv[1]));
    }
    MPI_Finalize();
    return 0;
}
