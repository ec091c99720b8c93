/*
 * vt_pingpong.c - ping-pong between ranks 0 and 1 timed with MPI_Wtime,
 * for `torusemu run --virtual-time` (tests/mpi/vtime.sh).
 *
 *   vt_pingpong BYTES ITERATIONS MODE [bare]
 *
 * MODE is how the messages go: blocking (MPI_Send / MPI_Recv), nonblocking
 * (MPI_Isend / MPI_Irecv / MPI_Wait), wildcard (MPI_Recv from
 * MPI_ANY_SOURCE with MPI_ANY_TAG), sendrecv (MPI_Sendrecv with a null
 * partner on one side), replace (the same with MPI_Sendrecv_replace), split (blocking, on a communicator from
 * MPI_Comm_split), persistent (MPI_Send_init / MPI_Recv_init / MPI_Start),
 * mprobe (MPI_Mprobe / MPI_Mrecv), improbe (MPI_Improbe polled, then
 * MPI_Imrecv / MPI_Wait); burst is not a ping-pong: rank 0 posts
 * ITERATIONS MPI_Isend to rank 1 one after another and waits for them all
 * (MPI_Waitall), rank 1 posts as many MPI_Irecv and waits the same way
 * (so a rank's successive sends, and on one node its successive copies,
 * set the times).
 * Rank 0 prints the round-trip time in picoseconds (exact: the virtual
 * clock counts picoseconds), then every rank its clock after a barrier
 * and after a non-blocking barrier (MPI_Ibarrier, MPI_Wait).  With `bare`
 * (ranks 0 and 1 only) every rank prints its clock after the ping-pong
 * instead and calls no collective: a trace of the run then holds the
 * ping-pong alone, whose timed replay ends at those clocks.
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

static void one_way(char *buf, int n, int peer, int sending, const char *mode, MPI_Comm comm,
                    MPI_Request *pers)
{
    MPI_Request r;
    if (strcmp(mode, "nonblocking") == 0) {
        if (sending) {
            MPI_Isend(buf, n, MPI_BYTE, peer, 7, comm, &r);
        } else {
            MPI_Irecv(buf, n, MPI_BYTE, peer, 7, comm, &r);
        }
        MPI_Wait(&r, MPI_STATUS_IGNORE);
    } else if (strcmp(mode, "persistent") == 0) {
        MPI_Start(&pers[sending]);
        MPI_Wait(&pers[sending], MPI_STATUS_IGNORE);
    } else if (strcmp(mode, "sendrecv") == 0) {
        MPI_Sendrecv(buf, n, MPI_BYTE, sending ? peer : MPI_PROC_NULL, 7, buf, n, MPI_BYTE,
                     sending ? MPI_PROC_NULL : peer, 7, comm, MPI_STATUS_IGNORE);
    } else if (strcmp(mode, "replace") == 0) {
        MPI_Sendrecv_replace(buf, n, MPI_BYTE, sending ? peer : MPI_PROC_NULL, 7,
                             sending ? MPI_PROC_NULL : peer, 7, comm, MPI_STATUS_IGNORE);
    } else if (sending) {
        MPI_Send(buf, n, MPI_BYTE, peer, 7, comm);
    } else if (strcmp(mode, "wildcard") == 0) {
        MPI_Recv(buf, n, MPI_BYTE, MPI_ANY_SOURCE, MPI_ANY_TAG, comm, MPI_STATUS_IGNORE);
    } else if (strcmp(mode, "mprobe") == 0) {
        MPI_Message m;
        MPI_Mprobe(peer, 7, comm, &m, MPI_STATUS_IGNORE);
        MPI_Mrecv(buf, n, MPI_BYTE, &m, MPI_STATUS_IGNORE);
    } else if (strcmp(mode, "improbe") == 0) {
        MPI_Message m;
        int flag = 0;
        while (!flag) {
            MPI_Improbe(MPI_ANY_SOURCE, 7, comm, &flag, &m, MPI_STATUS_IGNORE);
        }
        MPI_Imrecv(buf, n, MPI_BYTE, &m, &r);
        MPI_Wait(&r, MPI_STATUS_IGNORE);
    } else if (strcmp(mode, "iprobe") == 0) {
        int flag = 0;
        while (!flag) {
            MPI_Iprobe(peer, 7, comm, &flag, MPI_STATUS_IGNORE);
        }
        MPI_Recv(buf, n, MPI_BYTE, peer, 7, comm, MPI_STATUS_IGNORE);
    } else if (strcmp(mode, "probe") == 0) {
        MPI_Probe(peer, 7, comm, MPI_STATUS_IGNORE);
        MPI_Recv(buf, n, MPI_BYTE, peer, 7, comm, MPI_STATUS_IGNORE);
    } else if (strcmp(mode, "test") == 0) {
        int flag = 0;
        MPI_Irecv(buf, n, MPI_BYTE, peer, 7, comm, &r);
        while (!flag) {
            MPI_Test(&r, &flag, MPI_STATUS_IGNORE);
        }
    } else {
        MPI_Recv(buf, n, MPI_BYTE, peer, 7, comm, MPI_STATUS_IGNORE);
    }
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Comm comm = MPI_COMM_WORLD;
    MPI_Request pers[2];
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int bare = argc == 5 && strcmp(argv[4], "bare") == 0;
    if ((argc != 4 && !bare) || size < 2) {
        if (rank == 0) {
            fprintf(stderr, "usage: vt_pingpong BYTES ITERATIONS MODE [bare] (2 ranks or more)\n");
        }
        MPI_Finalize();
        return 2;
    }
    int n = atoi(argv[1]), iters = atoi(argv[2]);
    const char *mode = argv[3];
    char *buf = calloc((size_t)n + 1, 1);
    if (strcmp(mode, "split") == 0) {
        MPI_Comm_split(MPI_COMM_WORLD, rank < 2, size - rank, &comm);
    }
    int me, peer;
    MPI_Comm_rank(comm, &me);
    peer = strcmp(mode, "split") == 0 ? (me == 0 ? 1 : 0) : 1 - rank;
    if (strcmp(mode, "persistent") == 0 && rank < 2) {
        MPI_Send_init(buf, n, MPI_BYTE, peer, 7, comm, &pers[1]);
        MPI_Recv_init(buf, n, MPI_BYTE, peer, 7, comm, &pers[0]);
    }
    /* in split mode the new communicator reverses the ranks: world rank 0
     * is rank 1 of comm */
    int first = rank == 0;
    double t0 = MPI_Wtime();
    if (strcmp(mode, "burst") == 0 && rank < 2) {
        MPI_Request *rq = calloc((size_t)iters + 1, sizeof *rq);
        char *all = calloc((size_t)iters * ((size_t)n + 1) + 1, 1);
        for (int i = 0; i < iters; i++) {
            char *b = all + (size_t)i * ((size_t)n + 1);
            if (rank == 0) {
                MPI_Isend(b, n, MPI_BYTE, 1, 7, comm, &rq[i]);
            } else {
                MPI_Irecv(b, n, MPI_BYTE, 0, 7, comm, &rq[i]);
            }
        }
        MPI_Waitall(iters, rq, MPI_STATUSES_IGNORE);
        free(all);
        free(rq);
        iters = 0; /* no ping-pong after it */
    }
    for (int i = 0; rank < 2 && i < iters; i++) {
        one_way(buf, n, peer, first, mode, comm, pers);
        one_way(buf, n, peer, !first, mode, comm, pers);
    }
    double t1 = MPI_Wtime();
    if (bare) {
        printf("rank %d end %lld ps\n", rank, ps(t1));
    } else if (rank == 0) {
        long long rtt = iters > 0 ? ps((t1 - t0) / iters) : 0;
        printf("round trip %lld ps\n", rtt);
        /* bytes per picosecond x 1000 = GB/s, over the one-way time */
        printf("bandwidth %.6f GB/s\n", rtt > 0 ? 1000.0 * n / (rtt / 2.0) : 0.0);
        printf("tick %g\n", MPI_Wtick());
        fflush(stdout);
    }
    if (!bare) {
        MPI_Barrier(MPI_COMM_WORLD);
        double t2 = MPI_Wtime();
        printf("rank %d after barrier %lld ps\n", rank, ps(t2));
        MPI_Request ib;
        MPI_Ibarrier(MPI_COMM_WORLD, &ib);
        MPI_Wait(&ib, MPI_STATUS_IGNORE);
        printf("rank %d after ibarrier %lld ps\n", rank, ps(MPI_Wtime()));
    }
    if (strcmp(mode, "persistent") == 0 && rank < 2) {
        MPI_Request_free(&pers[0]);
        MPI_Request_free(&pers[1]);
    }
    if (comm != MPI_COMM_WORLD) {
        MPI_Comm_free(&comm);
    }
    free(buf);
    MPI_Finalize();
    return 0;
}
