/*
 * rowa2a - the first all-to-all of a 3-D FFT with a 2-D processor grid
 * (McCraw 2013 section 4.2): P = R x C ranks, R rows ("subgroups") of C ranks
 * each, an MPI_Alltoall inside every row.  Row i holds ranks i, i+R, i+2R ...
 * (members R apart, as McCraw et al.'s 16 x 512 grid: ranks 0, 512, 1024 ...).
 *
 *   rowa2a --rows R --cols C [--bytes B] [--iters N]
 *   rowa2a --rows R --cols C --map-out FILE --machine SPEC   (no MPI)
 *
 * B bytes go to every other member of the row (default 1024), N times.
 * Received data is checked; a rank that finds a wrong byte says so and
 * exits with status 1 (no collective is added to report success).
 *
 * Placement: under the default mapping (ranks in order, C per node with
 * --ranks-per-node C) the members of a row sit on C different nodes; the
 * --map-out file puts row i on node i, T = its column (McCraw 2013 Table 5(b)),
 * so the all-to-all never leaves a node.
 */
#include <mpi.h>

#include "mapfile.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static unsigned char pattern(int from, int to, int iter, size_t i)
{
    return (unsigned char)(from * 131 + to * 31 + iter * 7 + (int)(i % 251) * 3 + (int)(i / 251));
}

static int write_map(int rows, int cols, const char *path, const char *spec)
{
    int n = rows * cols;
    int64_t *node = malloc((size_t)n * sizeof *node);
    int32_t *t = malloc((size_t)n * sizeof *t);
    int rc = -1;
    if (node != NULL && t != NULL) {
        for (int r = 0; r < n; r++) {
            node[r] = r % rows; /* row i on node i */
            t[r] = r / rows;    /* its column      */
        }
        rc = ex_write_map(path, spec, n, node, t);
    }
    free(node);
    free(t);
    return rc;
}

int main(int argc, char **argv)
{
    int rows = 0, cols = 0, iters = 1;
    long bytes = 1024;
    const char *map_out = NULL, *spec = NULL;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (strcmp(argv[i], "--rows") == 0) {
            rows = atoi(argv[i + 1]);
        } else if (strcmp(argv[i], "--cols") == 0) {
            cols = atoi(argv[i + 1]);
        } else if (strcmp(argv[i], "--bytes") == 0) {
            bytes = atol(argv[i + 1]);
        } else if (strcmp(argv[i], "--iters") == 0) {
            iters = atoi(argv[i + 1]);
        } else if (strcmp(argv[i], "--map-out") == 0) {
            map_out = argv[i + 1];
        } else if (strcmp(argv[i], "--machine") == 0) {
            spec = argv[i + 1];
        } else {
            fprintf(stderr, "rowa2a: unknown option '%s'\n", argv[i]);
            return 2;
        }
    }
    if (rows < 1 || cols < 1 || bytes < 0 || bytes > (1 << 26) || iters < 1) {
        fprintf(stderr, "usage: rowa2a --rows R --cols C [--bytes B] [--iters N]\n"
                        "       rowa2a --rows R --cols C --map-out FILE --machine SPEC\n");
        return 2;
    }
    if (map_out != NULL) {
        if (spec == NULL) {
            fprintf(stderr, "rowa2a: --map-out needs --machine SPEC\n");
            return 2;
        }
        return write_map(rows, cols, map_out, spec) == 0 ? 0 : 1;
    }

    int rank, size, bad = 0;
    MPI_Comm row;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != rows * cols) {
        if (rank == 0) {
            fprintf(stderr, "rowa2a: %d x %d grid needs %d ranks, not %d\n", rows, cols,
                    rows * cols, size);
        }
        MPI_Finalize();
        return 2;
    }
    MPI_Comm_split(MPI_COMM_WORLD, rank % rows, rank / rows, &row);
    size_t b = (size_t)bytes;
    unsigned char *out = malloc(b * (size_t)cols + 1), *in = malloc(b * (size_t)cols + 1);
    if (out == NULL || in == NULL) {
        fprintf(stderr, "rowa2a: out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    int me = rank / rows;
    for (int it = 0; it < iters; it++) {
        for (int j = 0; j < cols; j++) {
            for (size_t i = 0; i < b; i++) {
                out[(size_t)j * b + i] = pattern(me, j, it, i);
            }
        }
        MPI_Alltoall(out, (int)b, MPI_BYTE, in, (int)b, MPI_BYTE, row);
        for (int j = 0; j < cols && !bad; j++) {
            for (size_t i = 0; i < b; i++) {
                if (in[(size_t)j * b + i] != pattern(j, me, it, i)) {
                    fprintf(stderr, "rowa2a: rank %d: wrong byte %zu from column %d\n", rank, i, j);
                    bad = 1;
                    break;
                }
            }
        }
    }
    if (rank == 0 && !bad) {
        printf("rowa2a: %d rows x %d columns, %ld bytes per peer, %d iterations: data ok\n", rows,
               cols, bytes, iters);
    }
    free(out);
    free(in);
    MPI_Comm_free(&row);
    MPI_Finalize();
    return bad;
}
