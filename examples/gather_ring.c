/*
 * gather_ring - the job-wide gathering library (gather/tgather.h) around a
 * ring exchange: every rank sends BYTES to the next rank and receives from
 * the previous one, ITERS times; rank 0 then writes the job's per-link table
 * (Pedretti et al., CUG 2013, Fig. 4) and its CSV.
 *
 *   gather_ring [--bytes B] [--iters N] [--table FILE] [--csv FILE]
 *
 * Defaults: 65536 bytes, 1 iteration, the table on stdout, no CSV.  The
 * program makes no other MPI calls that move data, so the table holds the
 * ring's traffic and nothing else.  Fortran twin: tests/mpi/gather_ring_f.f90.
 */
#include "tgather.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    long bytes = 65536;
    int iters = 1, rank, size;
    const char *table = "-", *csv = "";
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (int i = 1; i < argc; i++) {
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (v != NULL && strcmp(argv[i], "--bytes") == 0) {
            bytes = atol(v);
        } else if (v != NULL && strcmp(argv[i], "--iters") == 0) {
            iters = atoi(v);
        } else if (v != NULL && strcmp(argv[i], "--table") == 0) {
            table = v;
        } else if (v != NULL && strcmp(argv[i], "--csv") == 0) {
            csv = v;
        } else {
            bytes = -1;
            break;
        }
        i++;
    }
    if (bytes <= 0 || bytes > (1L << 30) || iters <= 0) {
        if (rank == 0) {
            fprintf(stderr, "usage: gather_ring [--bytes B] [--iters N] [--table FILE] "
                            "[--csv FILE]\n");
        }
        MPI_Finalize();
        return 2;
    }
    char *out = calloc((size_t)bytes, 1), *in = malloc((size_t)bytes);
    if (out == NULL || in == NULL) {
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    if (tgather_start(MPI_COMM_WORLD) != 0) {
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    for (int it = 0; it < iters; it++) {
        MPI_Request rq[2];
        MPI_Irecv(in, (int)bytes, MPI_BYTE, (rank + size - 1) % size, 0, MPI_COMM_WORLD, &rq[0]);
        MPI_Isend(out, (int)bytes, MPI_BYTE, (rank + 1) % size, 0, MPI_COMM_WORLD, &rq[1]);
        MPI_Waitall(2, rq, MPI_STATUSES_IGNORE);
    }
    if (tgather_stop() != 0 || tgather_report(table, csv) != 0) {
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    free(out);
    free(in);
    MPI_Finalize();
    return 0;
}
