/*
 * coll_trace - a run of many collectives, for tests/mpi/trace.sh: a live
 * run's OTF2 trace must replay to the same counts.  World and split
 * communicators, a Cartesian one (neighbourhood collectives), vector
 * variants, a non-commutative reduction and non-blocking calls, with data
 * sizes spread over the algorithms' thresholds.  Nothing is checked here.
 */
#include <mpi.h>

#include <stdlib.h>
#include <string.h>

static void noncomm_sum(void *in, void *inout, int *len, MPI_Datatype *t)
{
    (void)t;
    for (int i = 0; i < *len; i++) {
        ((int *)inout)[i] = ((int *)inout)[i] * 3 + ((int *)in)[i];
    }
}

static void run(MPI_Comm comm, int big)
{
    int n, r;
    MPI_Comm_size(comm, &n);
    MPI_Comm_rank(comm, &r);
    int cnt = big ? 40000 : 100;
    int *a = calloc((size_t)cnt * n + 8, sizeof *a), *b = calloc((size_t)cnt * n + 8, sizeof *b);
    int *counts = malloc((size_t)n * sizeof *counts), *displs = malloc((size_t)n * sizeof *displs);
    for (int i = 0; i < cnt * n; i++) {
        a[i] = r * 7919 + i * 31 + 1;
    }
    for (int j = 0; j < n; j++) {
        counts[j] = 1 + ((j + r) * 37) % (cnt / 2 + 1); /* symmetric: alltoallv matches */
        displs[j] = j * cnt;
    }
    MPI_Op op;
    MPI_Op_create(noncomm_sum, 0, &op);
    MPI_Request q;
    MPI_Barrier(comm);
    MPI_Bcast(a, cnt, MPI_INT, n - 1, comm);
    MPI_Reduce(a, b, cnt, MPI_INT, MPI_SUM, 1 % n, comm);
    MPI_Reduce(a, b, cnt, MPI_INT, op, 0, comm);
    MPI_Allreduce(a, b, cnt, MPI_INT, MPI_MAX, comm);
    MPI_Allreduce(a, b, cnt, MPI_INT, op, comm);
    MPI_Gather(a, cnt, MPI_INT, b, cnt, MPI_INT, 0, comm);
    MPI_Scatter(a, cnt, MPI_INT, b, cnt, MPI_INT, n - 1, comm);
    MPI_Allgather(a, cnt, MPI_INT, b, cnt, MPI_INT, comm);
    MPI_Alltoall(a, cnt, MPI_INT, b, cnt, MPI_INT, comm);
    MPI_Alltoall(a, 2, MPI_INT, b, 2, MPI_INT, comm);
    int rc = counts[r];
    int *all = malloc((size_t)n * sizeof *all);
    MPI_Allgather(&rc, 1, MPI_INT, all, 1, MPI_INT, comm);
    MPI_Allgatherv(a, rc, MPI_INT, b, all, displs, MPI_INT, comm);
    MPI_Gatherv(a, rc, MPI_INT, b, all, displs, MPI_INT, 0, comm);
    MPI_Scatterv(a, counts, displs, MPI_INT, b, cnt, MPI_INT, 0, comm);
    MPI_Alltoallv(a, counts, displs, MPI_INT, b, counts, displs, MPI_INT, comm);
    MPI_Reduce_scatter_block(a, b, cnt / n + 1, MPI_INT, MPI_SUM, comm);
    MPI_Scan(a, b, cnt, MPI_INT, MPI_SUM, comm);
    MPI_Exscan(a, b, cnt, MPI_INT, MPI_SUM, comm);
    MPI_Ibcast(a, cnt, MPI_INT, 0, comm, &q);
    MPI_Wait(&q, MPI_STATUS_IGNORE);
    MPI_Iallreduce(a, b, cnt, MPI_INT, MPI_SUM, comm, &q);
    MPI_Wait(&q, MPI_STATUS_IGNORE);
    MPI_Op_free(&op);
    free(all);
    free(a);
    free(b);
    free(counts);
    free(displs);
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    run(MPI_COMM_WORLD, 0);
    run(MPI_COMM_WORLD, 1);
    MPI_Comm half;
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, size - rank, &half);
    run(half, 0);
    MPI_Comm_free(&half);
    int dims[2] = {0, 0}, periods[2] = {1, 0};
    MPI_Dims_create(size, 2, dims);
    MPI_Comm cart;
    MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &cart);
    int a[64], b[64];
    for (int i = 0; i < 64; i++) {
        a[i] = rank * 1000 + i + 1;
    }
    MPI_Neighbor_allgather(a, 4, MPI_INT, b, 4, MPI_INT, cart);
    MPI_Neighbor_alltoall(a, 4, MPI_INT, b, 4, MPI_INT, cart);
    MPI_Comm_free(&cart);
    MPI_Finalize();
    return 0;
}
