/*
 * papi_mpi - the PAPI components and the MPI layer in one process: the
 * layer sets the rank's node at MPI_Init, so each rank's BG/Q NW events
 * count its own node's links.  Two ranks on neighbouring nodes (E+): rank 0
 * sends rank 1 1 KiB (eager: 2 packets + 32 payload chunks = 34 chunks on
 * the user escape VC, out of node 0 only), then both join an 8-int
 * MPI_Allreduce on MPI_COMM_WORLD (class route: 32 bytes = 1 packet of 2
 * chunks up the tree from node 1 to node 0, then down from node 0 to node 1,
 * on the world collective VC).  Synchronisation runs under MPI_Pcontrol(0).
 * Prints "N passed, M failed" from rank 0 (rank 1's results gathered).
 *
 * --papi-first: the event set is created and started before MPI_Init, as
 * TAU does; the components then know the node from the launcher's
 * environment (OMPI_COMM_WORLD_RANK ...), not from the layer.
 */
#include <mpi.h>
#include <papi.h>

#include <stdio.h>
#include <string.h>

static const char *events[2] = {"PEVT_NW_USER_PP_SENT", "PEVT_NW_USER_WORLD_COL_SENT"};

/* Library, event set with both events, started. */
static int start_papi(int *es)
{
    int rc = PAPI_library_init(PAPI_VER_CURRENT);
    if (rc != PAPI_VER_CURRENT) {
        return rc < 0 ? rc : PAPI_EINVAL;
    }
    if ((rc = PAPI_create_eventset(es)) != PAPI_OK ||
        (rc = PAPI_add_named_event(*es, events[0])) != PAPI_OK ||
        (rc = PAPI_add_named_event(*es, events[1])) != PAPI_OK) {
        return rc;
    }
    return PAPI_start(*es);
}

int main(int argc, char **argv)
{
    int rank, size, es = PAPI_NULL, rc;
    long long v[2] = {-1, -1}, all[4];
    char buf[1024];
    int a[8], s[8];

    int papi_first = argc > 1 && strcmp(argv[1], "--papi-first") == 0;

    if (papi_first && start_papi(&es) != PAPI_OK) {
        fprintf(stderr, "papi_mpi: PAPI setup before MPI_Init failed\n");
        return 1;
    }
    MPI_Init(&argc, &argv);
    MPI_Pcontrol(0);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    memset(buf, 0x5a, sizeof buf);
    for (int i = 0; i < 8; i++) {
        a[i] = rank + i;
    }
    if (!papi_first && (rc = start_papi(&es)) != PAPI_OK) {
        fprintf(stderr, "papi_mpi: rank %d: PAPI setup failed (%d)\n", rank, rc);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    MPI_Barrier(MPI_COMM_WORLD); /* every event set counts before traffic */
    MPI_Pcontrol(1);
    if (rank == 0) {
        MPI_Send(buf, sizeof buf, MPI_BYTE, 1, 0, MPI_COMM_WORLD);
    } else if (rank == 1) {
        MPI_Recv(buf, sizeof buf, MPI_BYTE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    MPI_Allreduce(a, s, 8, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Pcontrol(0);
    MPI_Barrier(MPI_COMM_WORLD); /* all traffic injected */
    PAPI_stop(es, v);
    MPI_Gather(v, 2, MPI_LONG_LONG, all, 2, MPI_LONG_LONG, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        const long long want[4] = {34, 2, 0, 2};
        int pass = 0, fail = 0;
        for (int i = 0; i < 4; i++) {
            if (all[i] == want[i]) {
                pass++;
            } else {
                fail++;
                fprintf(stderr, "FAIL: rank %d %s = %lld, expected %lld\n", i / 2, events[i % 2],
                        all[i], want[i]);
            }
        }
        printf("%d passed, %d failed\n", pass, fail);
    }
    PAPI_shutdown();
    MPI_Finalize();
    return 0;
}
