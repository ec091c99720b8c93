/*
 * hosts_read - what each rank reads through PAPI of its own BG/Q node, for
 * tests/mpi/hosts.sh to compare between a single-host run and runs split
 * over hosts (`torusemu run --split-hosts N`).  Every rank prints lines
 * "PHASE rank R EVENT VALUE" (the test sorts them); synchronisation runs
 * under MPI_Pcontrol(0), so it is not counted.
 *
 * Phase "all": a ring of 4096-byte messages (rank r to r + 1) and an
 * MPI_Alltoall of 64 bytes per peer, then a barrier; each rank reads.
 *
 * Phase "chain": the rule of doc/mpi.md ("Across hosts"): once a send call
 * has returned, its message is in every host's store.  Rank 0 sends 4096
 * bytes to rank SIZE - 3 (on an 8-node ring, one rank per node: three hops
 * the short way, through the nodes of ranks 7 and 6, which may be on other
 * hosts than both ends); when MPI_Send has returned it passes a token
 * (not counted) to rank SIZE - 1, which reads and passes it on down to rank
 * 1: every read happens after the send returned and before anything else
 * is sent, whatever host the reader and the message's route are on.
 *
 * --overflow T: PEVT_NW_USER_PP_SENT is armed with threshold T before the
 * traffic; each rank prints how many times its handler ran ("ovf rank R
 * calls N") after a final barrier (the layer delivers crossings caused by
 * other processes before a collective returns, doc/mpi.md).
 */
#include <mpi.h>
#include <papi.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NEVENTS 2
static const char *events[NEVENTS] = {"PEVT_NW_USER_PP_SENT", "PEVT_NW_USER_PP_RECV"};
static volatile int handler_calls;

static void on_overflow(int es, void *addr, long long vec, void *ctx)
{
    (void)es;
    (void)addr;
    (void)vec;
    (void)ctx;
    handler_calls++;
}

static int start_papi(int *es, long long threshold)
{
    int rc = PAPI_library_init(PAPI_VER_CURRENT), code = 0;
    if (rc != PAPI_VER_CURRENT) {
        return rc < 0 ? rc : PAPI_EINVAL;
    }
    if ((rc = PAPI_create_eventset(es)) != PAPI_OK) {
        return rc;
    }
    for (int i = 0; i < NEVENTS; i++) {
        if ((rc = PAPI_add_named_event(*es, events[i])) != PAPI_OK) {
            return rc;
        }
    }
    if (threshold > 0 &&
        ((rc = PAPI_event_name_to_code(events[0], &code)) != PAPI_OK ||
         (rc = PAPI_overflow(*es, code, (int)threshold, 0, on_overflow)) != PAPI_OK)) {
        return rc;
    }
    return PAPI_start(*es);
}

static void print_read(int es, const char *phase, int rank)
{
    long long v[NEVENTS];
    PAPI_read(es, v);
    for (int i = 0; i < NEVENTS; i++) {
        printf("%s rank %d %s %lld\n", phase, rank, events[i], v[i]);
    }
    fflush(stdout);
}

static void phase_all(int es, int rank, int size)
{
    static char out[4096], in[4096], a2a_out[64 * 64], a2a_in[64 * 64];
    memset(out, rank + 1, sizeof out);
    MPI_Pcontrol(1);
    MPI_Sendrecv(out, sizeof out, MPI_BYTE, (rank + 1) % size, 1, in, sizeof in, MPI_BYTE,
                 (rank + size - 1) % size, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Alltoall(a2a_out, 64, MPI_BYTE, a2a_in, 64, MPI_BYTE, MPI_COMM_WORLD);
    MPI_Pcontrol(0);
    MPI_Barrier(MPI_COMM_WORLD);
    print_read(es, "all", rank);
    MPI_Barrier(MPI_COMM_WORLD);
}

/* The token goes from rank 0 to SIZE - 1, SIZE - 2 ... 1: the first reader
 * is the last rank, whose node the message passed, straight after the send
 * returned. */
static void phase_chain(int es, int rank, int size)
{
    static char data[4096];
    int token = 0;
    int next = rank == 0 ? size - 1 : rank - 1, prev = rank == size - 1 ? 0 : rank + 1;
    if (rank == 0) {
        MPI_Pcontrol(1);
        MPI_Send(data, sizeof data, MPI_BYTE, size - 3, 2, MPI_COMM_WORLD);
        MPI_Pcontrol(0);
        print_read(es, "chain", rank);
        MPI_Send(&token, 1, MPI_INT, next, 3, MPI_COMM_WORLD);
        return;
    }
    if (rank == size - 3) {
        MPI_Recv(data, sizeof data, MPI_BYTE, 0, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    MPI_Recv(&token, 1, MPI_INT, prev, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    print_read(es, "chain", rank);
    if (next > 0) {
        MPI_Send(&token, 1, MPI_INT, next, 3, MPI_COMM_WORLD);
    }
}

int main(int argc, char **argv)
{
    int rank, size, es = PAPI_NULL, rc;
    long long threshold = argc > 2 && strcmp(argv[1], "--overflow") == 0 ? atoll(argv[2]) : 0;

    MPI_Init(&argc, &argv);
    MPI_Pcontrol(0);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if ((rc = start_papi(&es, threshold)) != PAPI_OK) {
        fprintf(stderr, "hosts_read: rank %d: PAPI setup failed (%d)\n", rank, rc);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    MPI_Barrier(MPI_COMM_WORLD); /* every event set counts before traffic */
    phase_all(es, rank, size);
    phase_chain(es, rank, size);
    MPI_Barrier(MPI_COMM_WORLD);
    if (threshold > 0) {
        printf("ovf rank %d calls %d\n", rank, handler_calls);
    }
    PAPI_shutdown();
    MPI_Finalize();
    return 0;
}
