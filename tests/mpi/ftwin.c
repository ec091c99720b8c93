/*
 * ftwin - the C twin of the Fortran test programs (fortran_mpi.F90,
 * fortran_f08.f90): the same MPI calls with the same data, so the counter
 * stores of the C and the Fortran runs must be identical.  Each rank prints
 * its processor name and the size of its node communicator.
 */
#include <mpi.h>

#include <stdio.h>
#include <stdlib.h>

#define V(r, i) ((r)*1000 + (i))

int main(int argc, char **argv)
{
    int r, n, a[300], b[300], s[64], t[512], len, nsize;
    int sc[64], sd[64], rc[64], rd[64];
    char name[MPI_MAX_PROCESSOR_NAME];
    MPI_Request req[4];
    MPI_Comm node;
    MPI_Win win;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    int right = (r + 1) % n, left = (r + n - 1) % n;

    for (int i = 0; i < 300; i++) {
        a[i] = V(r, i);
    }
    /* 1. blocking ring, 100 ints */
    if (r % 2 == 0) {
        MPI_Send(a, 100, MPI_INT, right, 1, MPI_COMM_WORLD);
        MPI_Recv(b, 100, MPI_INT, left, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
        MPI_Recv(b, 100, MPI_INT, left, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Send(a, 100, MPI_INT, right, 1, MPI_COMM_WORLD);
    }
    /* 2. non-blocking to both neighbours, 50 ints */
    MPI_Irecv(b, 50, MPI_INT, left, 2, MPI_COMM_WORLD, &req[0]);
    MPI_Irecv(b + 50, 50, MPI_INT, right, 2, MPI_COMM_WORLD, &req[1]);
    MPI_Isend(a, 50, MPI_INT, right, 2, MPI_COMM_WORLD, &req[2]);
    MPI_Isend(a + 50, 50, MPI_INT, left, 2, MPI_COMM_WORLD, &req[3]);
    MPI_Waitall(4, req, MPI_STATUSES_IGNORE);
    /* 3. sendrecv, 30 ints */
    MPI_Sendrecv(a, 30, MPI_INT, right, 3, b, 30, MPI_INT, left, 3, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    /* 3b. sendrecv_replace, 25 ints */
    for (int i = 0; i < 25; i++) {
        b[i] = a[i];
    }
    MPI_Sendrecv_replace(b, 25, MPI_INT, right, 4, left, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    /* 4. bcast 200 ints from rank 1 */
    MPI_Bcast(a, 200, MPI_INT, 1, MPI_COMM_WORLD);
    /* 5. allreduce 300 ints */
    MPI_Allreduce(a, b, 300, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    /* 6. alltoall, 10 ints per peer */
    for (int i = 0; i < 10 * n; i++) {
        t[i] = V(r, i);
    }
    MPI_Alltoall(t, 10, MPI_INT, b, 10, MPI_INT, MPI_COMM_WORLD);
    /* 7. alltoallv: j+1 ints to rank j */
    for (int j = 0, so = 0, ro = 0; j < n; so += sc[j], ro += rc[j], j++) {
        sc[j] = j + 1;
        rc[j] = r + 1;
        sd[j] = so;
        rd[j] = ro;
    }
    MPI_Alltoallv(t, sc, sd, MPI_INT, b, rc, rd, MPI_INT, MPI_COMM_WORLD);
    /* 8. reduce 64 ints to rank 0 */
    MPI_Reduce(a, b, 64, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    /* 9. gather 5 ints to rank 2 mod n, allgather 7 ints */
    MPI_Gather(a, 5, MPI_INT, t, 5, MPI_INT, 2 % n, MPI_COMM_WORLD);
    MPI_Allgather(a, 7, MPI_INT, t, 7, MPI_INT, MPI_COMM_WORLD);
    /* 10. persistent sends of 20 ints, started twice */
    MPI_Send_init(a, 20, MPI_INT, right, 10, MPI_COMM_WORLD, &req[0]);
    MPI_Recv_init(b, 20, MPI_INT, left, 10, MPI_COMM_WORLD, &req[1]);
    for (int k = 0; k < 2; k++) {
        MPI_Startall(2, req);
        MPI_Waitall(2, req, MPI_STATUSES_IGNORE);
    }
    MPI_Request_free(&req[0]);
    MPI_Request_free(&req[1]);
    /* 11. barrier */
    MPI_Barrier(MPI_COMM_WORLD);
    /* 12. one-sided: put 10 ints into the right neighbour, get 10 back */
    MPI_Win_create(a, 300 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    MPI_Win_fence(0, win);
    MPI_Put(t, 10, MPI_INT, right, 0, 10, MPI_INT, win);
    MPI_Win_fence(0, win);
    MPI_Get(s, 10, MPI_INT, right, 10, 10, MPI_INT, win);
    MPI_Win_fence(0, win);
    MPI_Win_free(&win);
    /* 13. in-place allreduce, 16 ints */
    MPI_Allreduce(MPI_IN_PLACE, a, 16, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    /* 14. identity */
    MPI_Get_processor_name(name, &len);
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, r, MPI_INFO_NULL, &node);
    MPI_Comm_size(node, &nsize);
    printf("rank %d name %s node-size %d\n", r, name, nsize);
    MPI_Comm_free(&node);
    MPI_Finalize();
    return 0;
}
