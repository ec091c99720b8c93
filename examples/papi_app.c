/*
 * papi_app - reading an emulated network counter through PAPI from inside
 * an MPI program, as README.md shows.
 *
 *   papi_app EVENT [BYTES]     default 65536 bytes
 *
 * Every rank adds EVENT (a papi-torus native event such as
 * GM_LINK_BYTES:link=X+ or PEVT_NW_USER_PP_SENT) to an event set and starts
 * it; rank 0 then sends BYTES bytes to rank 1; each rank stops the set and
 * rank 0 prints one line per rank:
 *
 *   rank R node NAME EVENT VALUE
 *
 * The value is what the rank's node (on Gemini: its router) counted while
 * the set ran, i.e. from PAPI_start, so traffic before it does not show.
 */
#include <mpi.h>
#include <papi.h>

#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int rank, size, es = PAPI_NULL, rc, len;
    long long value = 0;
    char node[MPI_MAX_PROCESSOR_NAME];
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Get_processor_name(node, &len);
    long bytes = argc > 2 ? atol(argv[2]) : 65536;
    if (argc < 2 || size < 2 || bytes < 1) {
        if (rank == 0) {
            fprintf(stderr, "usage: mpirun -np 2 papi_app EVENT [BYTES]\n");
        }
        MPI_Finalize();
        return 2;
    }
    if (PAPI_library_init(PAPI_VER_CURRENT) != PAPI_VER_CURRENT ||
        PAPI_create_eventset(&es) != PAPI_OK) {
        fprintf(stderr, "papi_app: PAPI initialisation failed\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    if ((rc = PAPI_add_named_event(es, argv[1])) != PAPI_OK) {
        fprintf(stderr, "papi_app: cannot add %s: %s\n", argv[1], PAPI_strerror(rc));
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    unsigned char *buf = malloc((size_t)bytes);
    if (buf == NULL) {
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    /* xorshift bytes: nothing for the Gemini model to compress */
    unsigned long long x = 88172645463325252ull;
    for (long i = 0; i < bytes; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        buf[i] = (unsigned char)(x >> 32);
    }
    /* Every set runs before the message leaves and stops after it is
     * counted: barriers on both sides, kept out of the counts with
     * MPI_Pcontrol(0) (they are not the traffic measured). */
    MPI_Pcontrol(0);
    PAPI_start(es);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Pcontrol(1);
    if (rank == 0) {
        MPI_Send(buf, (int)bytes, MPI_BYTE, 1, 0, MPI_COMM_WORLD);
    } else if (rank == 1) {
        MPI_Recv(buf, (int)bytes, MPI_BYTE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    MPI_Pcontrol(0);
    MPI_Barrier(MPI_COMM_WORLD);
    PAPI_stop(es, &value);
    long long *all = rank == 0 ? malloc(sizeof *all * (size_t)size) : NULL;
    char *names = rank == 0 ? malloc((size_t)size * MPI_MAX_PROCESSOR_NAME) : NULL;
    MPI_Gather(&value, 1, MPI_LONG_LONG, all, 1, MPI_LONG_LONG, 0, MPI_COMM_WORLD);
    MPI_Gather(node, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, names, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, 0,
               MPI_COMM_WORLD);
    if (rank == 0) {
        for (int r = 0; r < size; r++) {
            printf("rank %d node %s %s %lld\n", r, names + (size_t)r * MPI_MAX_PROCESSOR_NAME,
                   argv[1], all[r]);
        }
    }
    free(all);
    free(names);
    free(buf);
    PAPI_shutdown();
    MPI_Finalize();
    return 0;
}
