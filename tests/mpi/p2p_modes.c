/*
 * p2p_modes - every point-to-point send of MPI, each with its own size, from
 * rank 0 (receivers pre-post where the ready mode needs it): standard,
 * buffered, synchronous and ready sends, their non-blocking and persistent
 * forms, sendrecv, sendrecv_replace, plus sends that must not reach the
 * network (MPI_PROC_NULL, to itself, while MPI_Pcontrol(0) pauses
 * counting) and sends on a reordered sub-communicator and an
 * intercommunicator.  p2p.sh lists the messages this implies.  Synchronisation
 * runs paused.  Needs 4 ranks.
 */
#include <mpi.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define B(k) (100 * (k)) /* the k-th message: 100 k bytes */

static char *sbuf, *rbuf;

static void sync_all(void)
{
    MPI_Pcontrol(0);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Pcontrol(1);
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Request rq[4];
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 4) {
        fprintf(stderr, "p2p_modes: run with 4 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    sbuf = malloc(4096);
    rbuf = malloc(4096);
    for (int i = 0; i < 4096; i++) {
        sbuf[i] = (char)(i * 7 + rank + 1);
    }
    int bsize = 8 * 4096 + 8 * MPI_BSEND_OVERHEAD;
    char *attached = malloc((size_t)bsize);
    MPI_Buffer_attach(attached, bsize);
    MPI_Status st;

    /* 1-3: standard, buffered, synchronous */
    if (rank == 0) {
        MPI_Send(sbuf, B(1), MPI_BYTE, 1, 1, MPI_COMM_WORLD);
        MPI_Bsend(sbuf, B(2), MPI_BYTE, 1, 2, MPI_COMM_WORLD);
        MPI_Ssend(sbuf, B(3), MPI_BYTE, 1, 3, MPI_COMM_WORLD);
    } else if (rank == 1) {
        for (int k = 1; k <= 3; k++) {
            MPI_Recv(rbuf, B(k), MPI_BYTE, 0, k, MPI_COMM_WORLD, &st);
        }
    }
    /* 4: ready (receive posted first) */
    if (rank == 1) {
        MPI_Irecv(rbuf, B(4), MPI_BYTE, 0, 4, MPI_COMM_WORLD, &rq[0]);
    }
    sync_all();
    if (rank == 0) {
        MPI_Rsend(sbuf, B(4), MPI_BYTE, 1, 4, MPI_COMM_WORLD);
    } else if (rank == 1) {
        MPI_Wait(&rq[0], &st);
    }
    /* 5-8: non-blocking forms */
    if (rank == 1) {
        MPI_Irecv(rbuf + 2048, B(8), MPI_BYTE, 0, 8, MPI_COMM_WORLD, &rq[3]);
    }
    sync_all();
    if (rank == 0) {
        MPI_Isend(sbuf, B(5), MPI_BYTE, 1, 5, MPI_COMM_WORLD, &rq[0]);
        MPI_Ibsend(sbuf, B(6), MPI_BYTE, 1, 6, MPI_COMM_WORLD, &rq[1]);
        MPI_Issend(sbuf, B(7), MPI_BYTE, 1, 7, MPI_COMM_WORLD, &rq[2]);
        MPI_Irsend(sbuf, B(8), MPI_BYTE, 1, 8, MPI_COMM_WORLD, &rq[3]);
        MPI_Waitall(4, rq, MPI_STATUSES_IGNORE);
    } else if (rank == 1) {
        for (int k = 5; k <= 7; k++) {
            MPI_Recv(rbuf, B(k), MPI_BYTE, 0, k, MPI_COMM_WORLD, &st);
        }
        MPI_Wait(&rq[3], &st);
    }
    /* 9-12: persistent, the standard one started twice */
    if (rank == 1) {
        MPI_Irecv(rbuf + 2048, B(12), MPI_BYTE, 0, 12, MPI_COMM_WORLD, &rq[3]);
    }
    sync_all();
    if (rank == 0) {
        MPI_Send_init(sbuf, B(9), MPI_BYTE, 1, 9, MPI_COMM_WORLD, &rq[0]);
        MPI_Bsend_init(sbuf, B(10), MPI_BYTE, 1, 10, MPI_COMM_WORLD, &rq[1]);
        MPI_Ssend_init(sbuf, B(11), MPI_BYTE, 1, 11, MPI_COMM_WORLD, &rq[2]);
        MPI_Rsend_init(sbuf, B(12), MPI_BYTE, 1, 12, MPI_COMM_WORLD, &rq[3]);
        MPI_Startall(4, rq);
        MPI_Waitall(4, rq, MPI_STATUSES_IGNORE);
        MPI_Start(&rq[0]);
        MPI_Wait(&rq[0], &st);
        for (int i = 0; i < 4; i++) {
            MPI_Request_free(&rq[i]);
        }
    } else if (rank == 1) {
        MPI_Recv(rbuf, B(9), MPI_BYTE, 0, 9, MPI_COMM_WORLD, &st);
        MPI_Recv(rbuf, B(10), MPI_BYTE, 0, 10, MPI_COMM_WORLD, &st);
        MPI_Recv(rbuf, B(11), MPI_BYTE, 0, 11, MPI_COMM_WORLD, &st);
        MPI_Wait(&rq[3], &st);
        MPI_Recv(rbuf, B(9), MPI_BYTE, 0, 9, MPI_COMM_WORLD, &st);
    }
    /* 13, 14: sendrecv and sendrecv_replace between ranks 0 and 1, both ways */
    if (rank <= 1) {
        MPI_Sendrecv(sbuf, B(13), MPI_BYTE, 1 - rank, 13, rbuf, B(13), MPI_BYTE, 1 - rank, 13,
                     MPI_COMM_WORLD, &st);
        memcpy(rbuf, sbuf, 4096);
        MPI_Sendrecv_replace(rbuf, B(14), MPI_BYTE, 1 - rank, 14, 1 - rank, 14, MPI_COMM_WORLD,
                             &st);
    }
    /* 15-17: nothing on the network: MPI_PROC_NULL, itself (counted in the
     * totals only), and a send while counting is paused */
    if (rank == 0) {
        MPI_Send(sbuf, B(15), MPI_BYTE, MPI_PROC_NULL, 15, MPI_COMM_WORLD);
        MPI_Isend(sbuf, B(16), MPI_BYTE, 0, 16, MPI_COMM_WORLD, &rq[0]);
        MPI_Recv(rbuf, B(16), MPI_BYTE, 0, 16, MPI_COMM_WORLD, &st);
        MPI_Wait(&rq[0], &st);
        MPI_Pcontrol(0);
        MPI_Send(sbuf, B(17), MPI_BYTE, 1, 17, MPI_COMM_WORLD);
        MPI_Pcontrol(1);
    } else if (rank == 1) {
        MPI_Recv(rbuf, B(17), MPI_BYTE, 0, 17, MPI_COMM_WORLD, &st);
    }
    /* 18: sub-communicator in reverse order: its rank 0 is world rank 3 */
    MPI_Comm rev, half, inter;
    MPI_Comm_split(MPI_COMM_WORLD, 0, size - rank, &rev);
    if (rank == 0) {
        MPI_Send(sbuf, B(18), MPI_BYTE, 0, 18, rev);
    } else if (rank == 3) {
        MPI_Recv(rbuf, B(18), MPI_BYTE, 3, 18, rev, &st);
    }
    /* 19: intercommunicator even <-> odd ranks; remote rank 1 of the even
     * group is world rank 3 */
    MPI_Pcontrol(0);
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
    MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, rank % 2 == 0 ? 1 : 0, 99, &inter);
    MPI_Pcontrol(1);
    if (rank == 0) {
        MPI_Send(sbuf, B(19), MPI_BYTE, 1, 19, inter);
    } else if (rank == 3) {
        MPI_Recv(rbuf, B(19), MPI_BYTE, 0, 19, inter, &st);
    }
    MPI_Pcontrol(0);
    MPI_Buffer_detach(&attached, &bsize);
    MPI_Comm_free(&rev);
    MPI_Comm_free(&half);
    MPI_Comm_free(&inter);
    free(attached);
    free(sbuf);
    free(rbuf);
    MPI_Finalize();
    return 0;
}
