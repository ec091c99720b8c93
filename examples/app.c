/*
 * app - an ordinary MPI program, the one the README and doc/mpi.md compile
 * and run under `torusemu run`.  It knows nothing of the emulator: every
 * rank sends BYTES bytes to the next rank of a ring, ITERS times, then all
 * ranks agree on a checksum with MPI_Allreduce.
 *
 *   app [BYTES [ITERS]]        defaults: 4096 bytes, 1 iteration
 *
 * Rank 0 prints "app: P ranks, BYTES bytes to the next rank, ITERS
 * iterations, checksum ok" (or "checksum WRONG" and exit status 1).
 */
#include <mpi.h>

#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int rank, size;
    long bytes = argc > 1 ? atol(argv[1]) : 4096;
    long iters = argc > 2 ? atol(argv[2]) : 1;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (bytes < 1 || iters < 1) {
        if (rank == 0) {
            fprintf(stderr, "usage: app [BYTES [ITERS]] (both positive)\n");
        }
        MPI_Finalize();
        return 2;
    }
    unsigned char *out = malloc((size_t)bytes), *in = malloc((size_t)bytes);
    if (out == NULL || in == NULL) {
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    for (long i = 0; i < bytes; i++) {
        out[i] = (unsigned char)(rank + i);
    }
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    long sum = 0;
    for (long it = 0; it < iters; it++) {
        MPI_Sendrecv(out, (int)bytes, MPI_BYTE, next, 0, in, (int)bytes, MPI_BYTE, prev, 0,
                     MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        for (long i = 0; i < bytes; i++) {
            sum += in[i];
        }
    }
    /* what every rank should have received, summed over the ring */
    long total = 0, want = 0;
    MPI_Allreduce(&sum, &total, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    for (int r = 0; r < size; r++) {
        for (long i = 0; i < bytes; i++) {
            want += (unsigned char)(r + i);
        }
    }
    want *= iters;
    if (rank == 0) {
        printf("app: %d ranks, %ld bytes to the next rank, %ld iterations, checksum %s\n", size,
               bytes, iters, total == want ? "ok" : "WRONG");
    }
    free(out);
    free(in);
    MPI_Finalize();
    return total == want ? 0 : 1;
}
