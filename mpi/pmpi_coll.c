/*
 * pmpi_coll.c - C entry points of the MPI-3 collectives, blocking and
 * non-blocking (counted when started).  Each describes its call as a
 * tmpi_call for acct_coll.c after the PMPI_ version succeeded.
 */
#include "tmpi.h"

#define COUNT_COLL(...)                                                                            \
    do {                                                                                           \
        if (rc == MPI_SUCCESS && tmpi_counting()) {                                                \
            tmpi_call call_ = {__VA_ARGS__};                                                       \
            tmpi_acct_coll(&call_);                                                                \
        }                                                                                          \
        tmpi_sync_point();                                                                         \
    } while (0)

/* -------------------------------------------------------------- barrier */

int MPI_Barrier(MPI_Comm comm)
{
    int rc = PMPI_Barrier(comm);
    COUNT_COLL(.op = TMPI_BARRIER, .comm = comm, .blocking = 1);
    return rc;
}

int MPI_Ibarrier(MPI_Comm comm, MPI_Request *request)
{
    int rc = PMPI_Ibarrier(comm, request);
    COUNT_COLL(.op = TMPI_BARRIER, .comm = comm);
    return rc;
}

/* ---------------------------------------------------------------- bcast */

#define BCAST_CALL(B)                                                                              \
    .op = TMPI_BCAST, .comm = comm, .blocking = B, .sendbuf = buffer, .recvbuf = buffer,           \
    .sendcount = count, .recvcount = count, .sendtype = datatype, .recvtype = datatype,            \
    .root = root

int MPI_Bcast(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm)
{
    int rc = PMPI_Bcast(buffer, count, datatype, root, comm);
    COUNT_COLL(BCAST_CALL(1));
    return rc;
}

int MPI_Ibcast(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm,
               MPI_Request *request)
{
    int rc = PMPI_Ibcast(buffer, count, datatype, root, comm, request);
    COUNT_COLL(BCAST_CALL(0));
    return rc;
}

/* ------------------------------------------- gather / scatter / allgather */

#define PLAIN_CALL(OP, B)                                                                          \
    .op = OP, .comm = comm, .blocking = B, .sendbuf = sendbuf, .recvbuf = recvbuf,                 \
    .sendcount = sendcount, .recvcount = recvcount, .sendtype = sendtype, .recvtype = recvtype

int MPI_Gather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
               int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    int rc = PMPI_Gather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
    COUNT_COLL(PLAIN_CALL(TMPI_GATHER, 1), .root = root);
    return rc;
}

int MPI_Igather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request)
{
    int rc = PMPI_Igather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm,
                          request);
    COUNT_COLL(PLAIN_CALL(TMPI_GATHER, 0), .root = root);
    return rc;
}

int MPI_Scatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    int rc = PMPI_Scatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
    COUNT_COLL(PLAIN_CALL(TMPI_SCATTER, 1), .root = root);
    return rc;
}

int MPI_Iscatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                 int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                 MPI_Request *request)
{
    int rc = PMPI_Iscatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm,
                           request);
    COUNT_COLL(PLAIN_CALL(TMPI_SCATTER, 0), .root = root);
    return rc;
}

int MPI_Allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                  int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    int rc = PMPI_Allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
    COUNT_COLL(PLAIN_CALL(TMPI_ALLGATHER, 1));
    return rc;
}

int MPI_Iallgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                   int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    int rc =
        PMPI_Iallgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, request);
    COUNT_COLL(PLAIN_CALL(TMPI_ALLGATHER, 0));
    return rc;
}

int MPI_Alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                 int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    int rc = PMPI_Alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
    COUNT_COLL(PLAIN_CALL(TMPI_ALLTOALL, 1));
    return rc;
}

int MPI_Ialltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                  int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    int rc =
        PMPI_Ialltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, request);
    COUNT_COLL(PLAIN_CALL(TMPI_ALLTOALL, 0));
    return rc;
}

int MPI_Neighbor_allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                           int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    int rc =
        PMPI_Neighbor_allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
    COUNT_COLL(PLAIN_CALL(TMPI_NEIGHBOR_ALLGATHER, 1));
    return rc;
}

int MPI_Ineighbor_allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                            void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                            MPI_Request *request)
{
    int rc = PMPI_Ineighbor_allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                                      comm, request);
    COUNT_COLL(PLAIN_CALL(TMPI_NEIGHBOR_ALLGATHER, 0));
    return rc;
}

int MPI_Neighbor_alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                          int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    int rc =
        PMPI_Neighbor_alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
    COUNT_COLL(PLAIN_CALL(TMPI_NEIGHBOR_ALLTOALL, 1));
    return rc;
}

int MPI_Ineighbor_alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                           int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                           MPI_Request *request)
{
    int rc = PMPI_Ineighbor_alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                                     comm, request);
    COUNT_COLL(PLAIN_CALL(TMPI_NEIGHBOR_ALLTOALL, 0));
    return rc;
}

/* ------------------------------------------------------------ v variants */

#define GATHERV_CALL(B)                                                                            \
    .op = TMPI_GATHERV, .comm = comm, .blocking = B, .sendbuf = sendbuf, .recvbuf = recvbuf,       \
    .sendcount = sendcount, .sendtype = sendtype, .recvcounts = recvcounts, .rdispls = displs,     \
    .recvtype = recvtype, .root = root

int MPI_Gatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                MPI_Comm comm)
{
    int rc = PMPI_Gatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root,
                          comm);
    COUNT_COLL(GATHERV_CALL(1));
    return rc;
}

int MPI_Igatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                 const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                 MPI_Comm comm, MPI_Request *request)
{
    int rc = PMPI_Igatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype,
                           root, comm, request);
    COUNT_COLL(GATHERV_CALL(0));
    return rc;
}

#define SCATTERV_CALL(B)                                                                           \
    .op = TMPI_SCATTERV, .comm = comm, .blocking = B, .sendbuf = sendbuf, .recvbuf = recvbuf,      \
    .sendcounts = sendcounts, .sdispls = displs, .sendtype = sendtype, .recvcount = recvcount,     \
    .recvtype = recvtype, .root = root

int MPI_Scatterv(const void *sendbuf, const int sendcounts[], const int displs[],
                 MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype,
                 int root, MPI_Comm comm)
{
    int rc = PMPI_Scatterv(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype,
                           root, comm);
    COUNT_COLL(SCATTERV_CALL(1));
    return rc;
}

int MPI_Iscatterv(const void *sendbuf, const int sendcounts[], const int displs[],
                  MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype,
                  int root, MPI_Comm comm, MPI_Request *request)
{
    int rc = PMPI_Iscatterv(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype,
                            root, comm, request);
    COUNT_COLL(SCATTERV_CALL(0));
    return rc;
}

#define ALLGATHERV_CALL(OP, B)                                                                     \
    .op = OP, .comm = comm, .blocking = B, .sendbuf = sendbuf, .recvbuf = recvbuf,                 \
    .sendcount = sendcount, .sendtype = sendtype, .recvcounts = recvcounts, .rdispls = displs,     \
    .recvtype = recvtype

int MPI_Allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                   const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm)
{
    int rc =
        PMPI_Allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm);
    COUNT_COLL(ALLGATHERV_CALL(TMPI_ALLGATHERV, 1));
    return rc;
}

int MPI_Iallgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                    const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                    MPI_Comm comm, MPI_Request *request)
{
    int rc = PMPI_Iallgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype,
                              comm, request);
    COUNT_COLL(ALLGATHERV_CALL(TMPI_ALLGATHERV, 0));
    return rc;
}

/* neighbor_allgatherv sends the same block to every neighbour */
int MPI_Neighbor_allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                            void *recvbuf, const int recvcounts[], const int displs[],
                            MPI_Datatype recvtype, MPI_Comm comm)
{
    int rc = PMPI_Neighbor_allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs,
                                      recvtype, comm);
    COUNT_COLL(.op = TMPI_NEIGHBOR_ALLGATHER, .comm = comm, .blocking = 1, .sendbuf = sendbuf,
               .sendcount = sendcount, .sendtype = sendtype, .recvtype = recvtype);
    return rc;
}

int MPI_Ineighbor_allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                             void *recvbuf, const int recvcounts[], const int displs[],
                             MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    int rc = PMPI_Ineighbor_allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs,
                                       recvtype, comm, request);
    COUNT_COLL(.op = TMPI_NEIGHBOR_ALLGATHER, .comm = comm, .sendbuf = sendbuf,
               .sendcount = sendcount, .sendtype = sendtype, .recvtype = recvtype);
    return rc;
}

#define ALLTOALLV_CALL(OP, B)                                                                      \
    .op = OP, .comm = comm, .blocking = B, .sendbuf = sendbuf, .recvbuf = recvbuf,                 \
    .sendcounts = sendcounts, .sdispls = sdispls, .sendtype = sendtype, .recvcounts = recvcounts,  \
    .rdispls = rdispls, .recvtype = recvtype

int MPI_Alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                  MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int rdispls[],
                  MPI_Datatype recvtype, MPI_Comm comm)
{
    int rc = PMPI_Alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
                            recvtype, comm);
    COUNT_COLL(ALLTOALLV_CALL(TMPI_ALLTOALLV, 1));
    return rc;
}

int MPI_Ialltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                   MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                   const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    int rc = PMPI_Ialltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
                             recvtype, comm, request);
    COUNT_COLL(ALLTOALLV_CALL(TMPI_ALLTOALLV, 0));
    return rc;
}

int MPI_Neighbor_alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                           MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                           const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm)
{
    int rc = PMPI_Neighbor_alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts,
                                     rdispls, recvtype, comm);
    COUNT_COLL(ALLTOALLV_CALL(TMPI_NEIGHBOR_ALLTOALL, 1));
    return rc;
}

int MPI_Ineighbor_alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                            MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                            const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                            MPI_Request *request)
{
    int rc = PMPI_Ineighbor_alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts,
                                      rdispls, recvtype, comm, request);
    COUNT_COLL(ALLTOALLV_CALL(TMPI_NEIGHBOR_ALLTOALL, 0));
    return rc;
}

#define ALLTOALLW_CALL(B)                                                                          \
    .op = TMPI_ALLTOALLV, .comm = comm, .blocking = B, .sendbuf = sendbuf, .recvbuf = recvbuf,     \
    .sendcounts = sendcounts, .sdispls = sdispls, .sendtypes = sendtypes,                          \
    .recvcounts = recvcounts, .rdispls = rdispls, .recvtypes = recvtypes, .displs_bytes = 1,       \
    .sendtype = MPI_BYTE, .recvtype = MPI_BYTE

int MPI_Alltoallw(const void *sendbuf, const int sendcounts[], const int sdispls[],
                  const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                  const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm)
{
    int rc = PMPI_Alltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls,
                            recvtypes, comm);
    COUNT_COLL(ALLTOALLW_CALL(1));
    return rc;
}

int MPI_Ialltoallw(const void *sendbuf, const int sendcounts[], const int sdispls[],
                   const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                   const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                   MPI_Request *request)
{
    int rc = PMPI_Ialltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls,
                             recvtypes, comm, request);
    COUNT_COLL(ALLTOALLW_CALL(0));
    return rc;
}

#define NBW_CALL(B)                                                                                \
    .op = TMPI_NEIGHBOR_ALLTOALL, .comm = comm, .blocking = B, .sendbuf = sendbuf,                 \
    .recvbuf = recvbuf, .sendcounts = sendcounts, .sdispls_aint = sdispls, .sendtypes = sendtypes, \
    .recvcounts = recvcounts, .recvtypes = recvtypes, .displs_bytes = 1, .sendtype = MPI_BYTE,     \
    .recvtype = MPI_BYTE

int MPI_Neighbor_alltoallw(const void *sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
                           const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                           const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm)
{
    int rc = PMPI_Neighbor_alltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts,
                                     rdispls, recvtypes, comm);
    COUNT_COLL(NBW_CALL(1));
    return rc;
}

int MPI_Ineighbor_alltoallw(const void *sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
                            const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                            const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                            MPI_Request *request)
{
    int rc = PMPI_Ineighbor_alltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts,
                                      rdispls, recvtypes, comm, request);
    COUNT_COLL(NBW_CALL(0));
    return rc;
}

/* ----------------------------------------------------------- reductions */

#define REDUCE_CALL(OP, B)                                                                         \
    .op = OP, .comm = comm, .blocking = B, .sendbuf = sendbuf, .recvbuf = recvbuf,                 \
    .sendcount = count, .recvcount = count, .sendtype = datatype, .recvtype = datatype, .rop = op

int MPI_Reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
               int root, MPI_Comm comm)
{
    int rc = PMPI_Reduce(sendbuf, recvbuf, count, datatype, op, root, comm);
    COUNT_COLL(REDUCE_CALL(TMPI_REDUCE, 1), .root = root);
    return rc;
}

int MPI_Ireduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                int root, MPI_Comm comm, MPI_Request *request)
{
    int rc = PMPI_Ireduce(sendbuf, recvbuf, count, datatype, op, root, comm, request);
    COUNT_COLL(REDUCE_CALL(TMPI_REDUCE, 0), .root = root);
    return rc;
}

int MPI_Allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                  MPI_Comm comm)
{
    int rc = PMPI_Allreduce(sendbuf, recvbuf, count, datatype, op, comm);
    COUNT_COLL(REDUCE_CALL(TMPI_ALLREDUCE, 1));
    return rc;
}

int MPI_Iallreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                   MPI_Comm comm, MPI_Request *request)
{
    int rc = PMPI_Iallreduce(sendbuf, recvbuf, count, datatype, op, comm, request);
    COUNT_COLL(REDUCE_CALL(TMPI_ALLREDUCE, 0));
    return rc;
}

int MPI_Scan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
             MPI_Comm comm)
{
    int rc = PMPI_Scan(sendbuf, recvbuf, count, datatype, op, comm);
    COUNT_COLL(REDUCE_CALL(TMPI_SCAN, 1));
    return rc;
}

int MPI_Iscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
              MPI_Comm comm, MPI_Request *request)
{
    int rc = PMPI_Iscan(sendbuf, recvbuf, count, datatype, op, comm, request);
    COUNT_COLL(REDUCE_CALL(TMPI_SCAN, 0));
    return rc;
}

int MPI_Exscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
               MPI_Comm comm)
{
    int rc = PMPI_Exscan(sendbuf, recvbuf, count, datatype, op, comm);
    COUNT_COLL(REDUCE_CALL(TMPI_EXSCAN, 1));
    return rc;
}

int MPI_Iexscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                MPI_Comm comm, MPI_Request *request)
{
    int rc = PMPI_Iexscan(sendbuf, recvbuf, count, datatype, op, comm, request);
    COUNT_COLL(REDUCE_CALL(TMPI_EXSCAN, 0));
    return rc;
}

#define RS_CALL(B)                                                                                 \
    .op = TMPI_REDUCE_SCATTER, .comm = comm, .blocking = B, .sendbuf = sendbuf,                    \
    .recvbuf = recvbuf, .sendtype = datatype, .recvtype = datatype, .rop = op

int MPI_Reduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[],
                       MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
    int rc = PMPI_Reduce_scatter(sendbuf, recvbuf, recvcounts, datatype, op, comm);
    COUNT_COLL(RS_CALL(1), .recvcounts = recvcounts);
    return rc;
}

int MPI_Ireduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[],
                        MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request)
{
    int rc = PMPI_Ireduce_scatter(sendbuf, recvbuf, recvcounts, datatype, op, comm, request);
    COUNT_COLL(RS_CALL(0), .recvcounts = recvcounts);
    return rc;
}

int MPI_Reduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount,
                             MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
    int rc = PMPI_Reduce_scatter_block(sendbuf, recvbuf, recvcount, datatype, op, comm);
    COUNT_COLL(RS_CALL(1), .recvcount = recvcount);
    return rc;
}

int MPI_Ireduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount,
                              MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request)
{
    int rc = PMPI_Ireduce_scatter_block(sendbuf, recvbuf, recvcount, datatype, op, comm, request);
    COUNT_COLL(RS_CALL(0), .recvcount = recvcount);
    return rc;
}
