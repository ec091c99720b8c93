/*
 * fail - an MPI program whose last rank exits with the status given as its
 * argument (the launcher must pass it through).
 */
#include <mpi.h>

#include <stdlib.h>

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (rank == size - 1 && argc > 1 && atoi(argv[1]) != 0) {
        exit(atoi(argv[1]));
    }
    MPI_Finalize();
    return 0;
}
