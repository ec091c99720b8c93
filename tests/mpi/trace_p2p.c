/*
 * trace_p2p.c - a small program whose `torusemu run --trace` archive
 * trace_print.sh reads back with otf2-print: point-to-point messages with
 * their own tags on a sub-communicator whose rank order differs from the
 * world's.  Needs 4 ranks.
 *
 * MPI_Comm_split(world, rank % 2, -rank): the evens form {world 2, world 0}
 * and the odds {world 3, world 1} (the key reverses the order).  In each,
 *   rank 0 -> rank 1  MPI_Send   tag 42, 1000 bytes, received with
 *                     MPI_ANY_SOURCE and MPI_ANY_TAG into 4096 bytes;
 *   rank 1 -> rank 0  MPI_Isend  tag 7, 300 bytes, received with MPI_Irecv,
 *                     both completed by one MPI_Waitall ignoring statuses.
 */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
    static char sbuf[4096], rbuf[4096];
    int rank, size, me;
    MPI_Comm sub;
    MPI_Status st;
    MPI_Request rq[2];
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 4) {
        if (rank == 0) {
            fprintf(stderr, "trace_p2p: needs 4 ranks, not %d\n", size);
        }
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    memset(sbuf, rank + 1, sizeof sbuf);
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, -rank, &sub);
    MPI_Comm_rank(sub, &me);
    if (me == 0) {
        MPI_Send(sbuf, 1000, MPI_BYTE, 1, 42, sub);
        MPI_Irecv(rbuf, 300, MPI_BYTE, 1, 7, sub, &rq[0]);
        rq[1] = MPI_REQUEST_NULL;
    } else {
        MPI_Recv(rbuf, (int)sizeof rbuf, MPI_BYTE, MPI_ANY_SOURCE, MPI_ANY_TAG, sub, &st);
        MPI_Isend(sbuf, 300, MPI_BYTE, 0, 7, sub, &rq[1]);
        rq[0] = MPI_REQUEST_NULL;
    }
    MPI_Waitall(2, rq, MPI_STATUSES_IGNORE);
    MPI_Comm_free(&sub);
    MPI_Finalize();
    return 0;
}
