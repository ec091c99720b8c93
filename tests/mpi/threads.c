/*
 * threads - MPI_THREAD_MULTIPLE: 4 threads per rank send 500 messages each
 * to the other rank at the same time, on MPI_COMM_WORLD and on a duplicate
 * (whose rank translation is built on first use, possibly by several
 * threads at once).  Needs 2 ranks; p2p.sh checks that every message was
 * counted once.
 */
#include <mpi.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define THREADS 4
#define MSGS 500

static int rank;
static MPI_Comm dup;

static void *worker(void *arg)
{
    int t = (int)(long)arg;
    char buf[64] = {0};
    MPI_Comm c = t % 2 ? dup : MPI_COMM_WORLD;
    for (int i = 0; i < MSGS; i++) {
        buf[i % 64] = (char)i;
        MPI_Sendrecv(buf, 64, MPI_BYTE, 1 - rank, t, buf, 64, MPI_BYTE, 1 - rank, t, c,
                     MPI_STATUS_IGNORE);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    int provided, size;
    pthread_t th[THREADS];
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (provided != MPI_THREAD_MULTIPLE || size != 2) {
        fprintf(stderr, "threads: needs MPI_THREAD_MULTIPLE (got %d) and 2 ranks\n", provided);
        MPI_Finalize();
        return 77;
    }
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    for (long t = 0; t < THREADS; t++) {
        pthread_create(&th[t], NULL, worker, (void *)t);
    }
    for (int t = 0; t < THREADS; t++) {
        pthread_join(th[t], NULL);
    }
    MPI_Comm_free(&dup);
    MPI_Finalize();
    return 0;
}
