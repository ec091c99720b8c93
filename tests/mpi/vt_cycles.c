/*
 * vt_cycles - PEVT_NW_CYCLES read through PAPI inside MPI ranks
 * (tests/mpi/papi.sh): under `torusemu run --virtual-time` each rank's
 * count is its own virtual clock in 2 ns network cycles, without it host
 * time.
 *
 *     vt_cycles ITERS
 *
 * The event set starts before MPI_Init, as TAU starts it (the virtual clock
 * is 0 until MPI_Init ends).  Ranks 0 and 1 then ping-pong 8 bytes ITERS
 * times; rank 1 reads after its last send, rank 0 after its last receive,
 * then resets, makes one more round trip and reads again.  Each read prints
 *     rank R cycles C at P ps
 * with P the rank's MPI_Wtime in picoseconds at the read.
 */
#include <mpi.h>
#include <papi.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static void report(int rank, int es, const char *what)
{
    long long c = -1;
    double now = MPI_Wtime();
    if (PAPI_read(es, &c) != PAPI_OK) {
        fprintf(stderr, "vt_cycles: rank %d: PAPI_read failed\n", rank);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    printf("rank %d %s %lld at %.0f ps\n", rank, what, c, floor(now * 1e12 + 0.5));
    fflush(stdout);
}

static void round_trip(int rank, char *buf)
{
    if (rank == 0) {
        MPI_Send(buf, 8, MPI_BYTE, 1, 0, MPI_COMM_WORLD);
        MPI_Recv(buf, 8, MPI_BYTE, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else if (rank == 1) {
        MPI_Recv(buf, 8, MPI_BYTE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Send(buf, 8, MPI_BYTE, 0, 0, MPI_COMM_WORLD);
    }
}

int main(int argc, char **argv)
{
    int rank, es = PAPI_NULL, iters = argc > 1 ? atoi(argv[1]) : 10;
    char buf[8] = {0};

    if (PAPI_library_init(PAPI_VER_CURRENT) != PAPI_VER_CURRENT ||
        PAPI_create_eventset(&es) != PAPI_OK ||
        PAPI_add_named_event(es, "PEVT_NW_CYCLES") != PAPI_OK || PAPI_start(es) != PAPI_OK) {
        fprintf(stderr, "vt_cycles: PAPI setup before MPI_Init failed\n");
        return 1;
    }
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    for (int i = 0; i < iters; i++) {
        round_trip(rank, buf);
    }
    if (rank < 2) {
        report(rank, es, "cycles");
    }
    if (rank == 0) {
        PAPI_reset(es);
    }
    round_trip(rank, buf);
    if (rank == 0) {
        report(rank, es, "after reset");
    }
    PAPI_stop(es, NULL);
    PAPI_shutdown();
    MPI_Finalize();
    return 0;
}
