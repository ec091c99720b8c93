/*
 * tool_app.c - the traffic of tools.sh, on exactly 4 ranks: sends,
 * collectives and one-sided calls whose messages on the emulated machine
 * are listed by hand in tools.sh.  Prints "tool_app: data ok" on rank 0
 * when every transfer delivered what was sent.
 *
 *   MPI_Send      r -> r+1, 1000 bytes (ring)
 *   MPI_Isend     r -> r+2, 64 bytes
 *   MPI_Alltoall  256 bytes per block
 *   MPI_Ibcast    1000 bytes from rank 0
 *   MPI_Ibarrier
 *   MPI_Put       128 bytes to r+1;  MPI_Get 256 bytes from r+3
 */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#define N 4

static unsigned char pattern(int rank, int i)
{
    return (unsigned char)(rank * 37 + i * 11 + 5);
}

int main(int argc, char **argv)
{
    static unsigned char ring[1000], ringin[1000], isb[64], isr[64];
    static unsigned char a2a[N * 256], a2ar[N * 256], bc[1000], win_mem[4096], got[256];
    int rank, size, bad = 0;
    MPI_Request rq[2];
    MPI_Win win;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != N) {
        if (rank == 0) {
            fprintf(stderr, "tool_app: needs exactly %d ranks, not %d\n", N, size);
        }
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    int next = (rank + 1) % N, prev = (rank + N - 1) % N, opp = (rank + 2) % N;

    /* ring of blocking sends: even ranks send first */
    for (int i = 0; i < 1000; i++) {
        ring[i] = pattern(rank, i);
    }
    if (rank % 2 == 0) {
        MPI_Send(ring, 1000, MPI_BYTE, next, 1, MPI_COMM_WORLD);
        MPI_Recv(ringin, 1000, MPI_BYTE, prev, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
        MPI_Recv(ringin, 1000, MPI_BYTE, prev, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Send(ring, 1000, MPI_BYTE, next, 1, MPI_COMM_WORLD);
    }
    bad |= ringin[999] != pattern(prev, 999);

    /* non-blocking exchange with the opposite rank */
    memset(isb, rank + 1, sizeof isb);
    MPI_Irecv(isr, 64, MPI_BYTE, opp, 2, MPI_COMM_WORLD, &rq[0]);
    MPI_Isend(isb, 64, MPI_BYTE, opp, 2, MPI_COMM_WORLD, &rq[1]);
    MPI_Waitall(2, rq, MPI_STATUSES_IGNORE);
    bad |= isr[63] != opp + 1;

    /* collectives */
    for (int j = 0; j < N; j++) {
        memset(a2a + j * 256, rank * N + j, 256);
    }
    MPI_Alltoall(a2a, 256, MPI_BYTE, a2ar, 256, MPI_BYTE, MPI_COMM_WORLD);
    for (int j = 0; j < N; j++) {
        bad |= a2ar[j * 256 + 255] != j * N + rank;
    }
    if (rank == 0) {
        memset(bc, 0x5a, sizeof bc);
    }
    MPI_Ibcast(bc, 1000, MPI_BYTE, 0, MPI_COMM_WORLD, &rq[0]);
    MPI_Wait(&rq[0], MPI_STATUS_IGNORE);
    bad |= bc[500] != 0x5a;
    MPI_Ibarrier(MPI_COMM_WORLD, &rq[0]);
    MPI_Wait(&rq[0], MPI_STATUS_IGNORE);

    /* one-sided: the put lands in the first 128 bytes of r+1's window, the
     * get reads bytes 1024.. of r+3's */
    for (int i = 0; i < 4096; i++) {
        win_mem[i] = pattern(rank, i);
    }
    MPI_Win_create(win_mem, sizeof win_mem, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    MPI_Win_fence(0, win);
    MPI_Put(ring, 128, MPI_BYTE, next, 0, 128, MPI_BYTE, win);
    MPI_Get(got, 256, MPI_BYTE, prev, 1024, 256, MPI_BYTE, win);
    MPI_Win_fence(0, win);
    MPI_Win_free(&win);
    bad |= got[255] != pattern(prev, 1024 + 255);

    /* the check itself is not part of the listed traffic */
    MPI_Pcontrol(0);
    MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_LOR, MPI_COMM_WORLD);
    if (rank == 0) {
        printf("tool_app: %s\n", bad ? "DATA WRONG" : "data ok");
    }
    MPI_Finalize();
    return bad;
}
