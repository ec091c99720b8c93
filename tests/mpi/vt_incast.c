/*
 * vt_incast.c - competing messages in virtual time (tests/mpi/vtime.sh,
 * doc/virtual-time.md):
 *
 *   vt_incast BYTES
 *
 * Every rank but 0 sends BYTES to rank 0 at once (MPI_Send, virtual time
 * 0); rank 0 receives them in rank order and prints its clock after each
 * ("from R at T ps"), each sender its clock when its send returned
 * ("sent R at T ps").
 */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static long long ps(void)
{
    return llround(MPI_Wtime() * 1e12);
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int n = argc > 1 ? atoi(argv[1]) : 65536;
    char *buf = malloc((size_t)n + 1);
    memset(buf, 0x5a, (size_t)n + 1); /* not compressible */
    if (rank == 0) {
        for (int src = 1; src < size; src++) {
            MPI_Recv(buf, n, MPI_BYTE, src, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            printf("from %d at %lld ps\n", src, ps());
        }
    } else {
        MPI_Send(buf, n, MPI_BYTE, 0, 1, MPI_COMM_WORLD);
        printf("sent %d at %lld ps\n", rank, ps());
    }
    free(buf);
    MPI_Finalize();
    return 0;
}
