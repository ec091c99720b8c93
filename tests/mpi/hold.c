/*
 * hold DIR - an MPI program that waits to be killed: after MPI_Init every
 * rank writes its pid to DIR/rank.N (the file appears whole: written
 * aside, then renamed), then sleeps for up to 10 minutes
 * (tests/mpi/run_kill.sh).
 */
#include <mpi.h>

#include <stdio.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    int rank;
    char path[4096], tmp[4200];
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (argc < 2) {
        fprintf(stderr, "usage: hold DIR\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    snprintf(path, sizeof path, "%s/rank.%d", argv[1], rank);
    snprintf(tmp, sizeof tmp, "%s.new", path);
    FILE *f = fopen(tmp, "w");
    if (f == NULL || fprintf(f, "%ld\n", (long)getpid()) < 0 || fclose(f) != 0 ||
        rename(tmp, path) != 0) {
        perror(path);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    for (int i = 0; i < 600; i++) {
        sleep(1);
    }
    MPI_Finalize();
    return 0;
}
