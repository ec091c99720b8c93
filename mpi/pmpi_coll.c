/*
 * pmpi_coll.c - entry points of the MPI-3 collectives, blocking and
 * non-blocking (counted when started), as MPI_X and PMPI_X (tmpi.h).  Each
 * describes its call as a tmpi_call for acct_coll.c after the next
 * definition succeeded.
 */
#include "tmpi.h"

#define COUNT_COLL(...)                                                                            \
    do {                                                                                           \
        if (rc == MPI_SUCCESS && (tmpi_counting() || tmpi_vt_active())) {                          \
            tmpi_call call_ = {__VA_ARGS__};                                                       \
            tmpi_acct_coll(&call_);                                                                \
        }                                                                                          \
        tmpi_sync_point();                                                                         \
    } while (0)

/* A blocking collective: under the online model its messages go into the
 * model's feed before the host's call (acct_coll.c, two passes). */
#define RUN_COLL(NEXT, ...)                                                                        \
    tmpi_call call_ = {__VA_ARGS__};                                                               \
    int vt_declared_ = 0; /* this call declared it (not one it is nested in) */                    \
    if (call_.blocking && tmpi_vt_online && tmpi_vt_active()) {                                    \
        call_.vt_pass = TMPI_VT_PASS_BEFORE;                                                       \
        tmpi_acct_coll(&call_);                                                                    \
        call_.vt_pass = TMPI_VT_PASS_AFTER;                                                        \
        vt_declared_ = tmpi_vt_coll_declared();                                                    \
    }                                                                                              \
    int rc = NEXT;                                                                                 \
    if (rc == MPI_SUCCESS && (tmpi_counting() || tmpi_vt_active())) {                              \
        tmpi_acct_coll(&call_);                                                                    \
    }                                                                                              \
    if (vt_declared_) {                                                                            \
        tmpi_vt_coll_end(call_.comm);                                                              \
    }                                                                                              \
    tmpi_sync_point()

/* -------------------------------------------------------------- barrier */

TMPI_ENTRY(Barrier, (MPI_Comm comm), (comm))
{
    RUN_COLL(tmpi_next_(comm), .op = TEMU_COLL_BARRIER, .comm = comm, .blocking = 1);
    return rc;
}

TMPI_ENTRY(Ibarrier, (MPI_Comm comm, MPI_Request *request), (comm, request))
{
    int rc = tmpi_next_(comm, request);
    COUNT_COLL(.request = request, .op = TEMU_COLL_BARRIER, .comm = comm);
    return rc;
}

/* ---------------------------------------------------------------- bcast */

#define BCAST_CALL(B)                                                                              \
    .op = TEMU_COLL_BCAST, .comm = comm, .blocking = B, .sendbuf = buffer, .recvbuf = buffer,           \
    .sendcount = count, .recvcount = count, .sendtype = datatype, .recvtype = datatype,            \
    .root = root

TMPI_ENTRY(Bcast, (void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm),
           (buffer, count, datatype, root, comm))
{
    RUN_COLL(tmpi_next_(buffer, count, datatype, root, comm), BCAST_CALL(1));
    return rc;
}

TMPI_ENTRY(Ibcast,
           (void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm,
            MPI_Request *request),
           (buffer, count, datatype, root, comm, request))
{
    int rc = tmpi_next_(buffer, count, datatype, root, comm, request);
    COUNT_COLL(.request = request, BCAST_CALL(0));
    return rc;
}

/* ------------------------------------------- gather / scatter / allgather */

#define PLAIN_CALL(OP, B)                                                                          \
    .op = OP, .comm = comm, .blocking = B, .sendbuf = sendbuf, .recvbuf = recvbuf,                 \
    .sendcount = sendcount, .recvcount = recvcount, .sendtype = sendtype, .recvtype = recvtype

TMPI_ENTRY(Gather,
           (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
            MPI_Datatype recvtype, int root, MPI_Comm comm),
           (sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm))
{
    RUN_COLL(tmpi_next_(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm),
             PLAIN_CALL(TEMU_COLL_GATHER, 1), .root = root);
    return rc;
}

TMPI_ENTRY(Igather,
           (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
            MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request),
           (sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, request))
{
    int rc =
        tmpi_next_(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, request);
    COUNT_COLL(.request = request, PLAIN_CALL(TEMU_COLL_GATHER, 0), .root = root);
    return rc;
}

TMPI_ENTRY(Scatter,
           (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
            MPI_Datatype recvtype, int root, MPI_Comm comm),
           (sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm))
{
    RUN_COLL(tmpi_next_(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm),
             PLAIN_CALL(TEMU_COLL_SCATTER, 1), .root = root);
    return rc;
}

TMPI_ENTRY(Iscatter,
           (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
            MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request),
           (sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, request))
{
    int rc =
        tmpi_next_(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, request);
    COUNT_COLL(.request = request, PLAIN_CALL(TEMU_COLL_SCATTER, 0), .root = root);
    return rc;
}

TMPI_ENTRY(Allgather,
           (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
            MPI_Datatype recvtype, MPI_Comm comm),
           (sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm))
{
    RUN_COLL(tmpi_next_(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm),
             PLAIN_CALL(TEMU_COLL_ALLGATHER, 1));
    return rc;
}

TMPI_ENTRY(Iallgather,
           (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
            MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request),
           (sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, request))
{
    int rc = tmpi_next_(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, request);
    COUNT_COLL(.request = request, PLAIN_CALL(TEMU_COLL_ALLGATHER, 0));
    return rc;
}

TMPI_ENTRY(Alltoall,
           (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
            MPI_Datatype recvtype, MPI_Comm comm),
           (sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm))
{
    RUN_COLL(tmpi_next_(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm),
             PLAIN_CALL(TEMU_COLL_ALLTOALL, 1));
    return rc;
}

TMPI_ENTRY(Ialltoall,
           (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
            MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request),
           (sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, request))
{
    int rc = tmpi_next_(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, request);
    COUNT_COLL(.request = request, PLAIN_CALL(TEMU_COLL_ALLTOALL, 0));
    return rc;
}

TMPI_ENTRY(Neighbor_allgather,
           (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
            MPI_Datatype recvtype, MPI_Comm comm),
           (sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm))
{
    RUN_COLL(tmpi_next_(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm),
             PLAIN_CALL(TEMU_COLL_NEIGHBOR_ALLGATHER, 1));
    return rc;
}

TMPI_ENTRY(Ineighbor_allgather,
           (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
            MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request),
           (sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, request))
{
    int rc = tmpi_next_(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, request);
    COUNT_COLL(.request = request, PLAIN_CALL(TEMU_COLL_NEIGHBOR_ALLGATHER, 0));
    return rc;
}

TMPI_ENTRY(Neighbor_alltoall,
           (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
            MPI_Datatype recvtype, MPI_Comm comm),
           (sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm))
{
    RUN_COLL(tmpi_next_(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm),
             PLAIN_CALL(TEMU_COLL_NEIGHBOR_ALLTOALL, 1));
    return rc;
}

TMPI_ENTRY(Ineighbor_alltoall,
           (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
            MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request),
           (sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, request))
{
    int rc = tmpi_next_(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, request);
    COUNT_COLL(.request = request, PLAIN_CALL(TEMU_COLL_NEIGHBOR_ALLTOALL, 0));
    return rc;
}

/* ------------------------------------------------------------ v variants */

#define GATHERV_CALL(B)                                                                            \
    .op = TEMU_COLL_GATHERV, .comm = comm, .blocking = B, .sendbuf = sendbuf, .recvbuf = recvbuf,       \
    .sendcount = sendcount, .sendtype = sendtype, .recvcounts = recvcounts, .rdispls = displs,     \
    .recvtype = recvtype, .root = root

TMPI_ENTRY(Gatherv,
           (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
            const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
            MPI_Comm comm),
           (sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, comm))
{
    RUN_COLL(
        tmpi_next_(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, comm),
        GATHERV_CALL(1));
    return rc;
}

TMPI_ENTRY(Igatherv,
           (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
            const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
            MPI_Comm comm, MPI_Request *request),
           (sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, comm,
            request))
{
    int rc = tmpi_next_(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root,
                        comm, request);
    COUNT_COLL(.request = request, GATHERV_CALL(0));
    return rc;
}

#define SCATTERV_CALL(B)                                                                           \
    .op = TEMU_COLL_SCATTERV, .comm = comm, .blocking = B, .sendbuf = sendbuf, .recvbuf = recvbuf,      \
    .sendcounts = sendcounts, .sdispls = displs, .sendtype = sendtype, .recvcount = recvcount,     \
    .recvtype = recvtype, .root = root

TMPI_ENTRY(Scatterv,
           (const void *sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype,
            void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm),
           (sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root, comm))
{
    RUN_COLL(
        tmpi_next_(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root, comm),
        SCATTERV_CALL(1));
    return rc;
}

TMPI_ENTRY(Iscatterv,
           (const void *sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype,
            void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
            MPI_Request *request),
           (sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root, comm,
            request))
{
    int rc = tmpi_next_(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root,
                        comm, request);
    COUNT_COLL(.request = request, SCATTERV_CALL(0));
    return rc;
}

#define ALLGATHERV_CALL(OP, B)                                                                     \
    .op = OP, .comm = comm, .blocking = B, .sendbuf = sendbuf, .recvbuf = recvbuf,                 \
    .sendcount = sendcount, .sendtype = sendtype, .recvcounts = recvcounts, .rdispls = displs,     \
    .recvtype = recvtype

TMPI_ENTRY(Allgatherv,
           (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
            const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm),
           (sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm))
{
    RUN_COLL(tmpi_next_(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm),
             ALLGATHERV_CALL(TEMU_COLL_ALLGATHERV, 1));
    return rc;
}

TMPI_ENTRY(Iallgatherv,
           (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
            const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm,
            MPI_Request *request),
           (sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm, request))
{
    int rc = tmpi_next_(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm,
                        request);
    COUNT_COLL(.request = request, ALLGATHERV_CALL(TEMU_COLL_ALLGATHERV, 0));
    return rc;
}

/* neighbor_allgatherv sends the same block to every neighbour */
TMPI_ENTRY(Neighbor_allgatherv,
           (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
            const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm),
           (sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm))
{
    RUN_COLL(tmpi_next_(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm),
             .op = TEMU_COLL_NEIGHBOR_ALLGATHER, .comm = comm, .blocking = 1, .sendbuf = sendbuf,
             .sendcount = sendcount, .sendtype = sendtype, .recvtype = recvtype);
    return rc;
}

TMPI_ENTRY(Ineighbor_allgatherv,
           (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
            const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm,
            MPI_Request *request),
           (sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm, request))
{
    RUN_COLL(tmpi_next_(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm,
                        request),
             .op = TEMU_COLL_NEIGHBOR_ALLGATHER, .comm = comm, .sendbuf = sendbuf,
             .sendcount = sendcount, .sendtype = sendtype, .recvtype = recvtype);
    return rc;
}

/* A blocking collective NAME and its non-blocking form INAME: the same
 * parameters (a macro expanding to the list) plus a request, described by
 * CALL(blocking). */
#define COLL_PAIR(NAME, INAME, PARAMS, ARGS, CALL)                                                 \
    TMPI_ENTRY(NAME, (PARAMS), (ARGS))                                                             \
    {                                                                                              \
        RUN_COLL(tmpi_next_(ARGS), CALL(1));                                                       \
        return rc;                                                                                 \
    }                                                                                              \
    TMPI_ENTRY(INAME, (PARAMS, MPI_Request * request), (ARGS, request))                            \
    {                                                                                              \
        int rc = tmpi_next_(ARGS, request);                                                        \
        COUNT_COLL(.request = request, CALL(0));                                                   \
        return rc;                                                                                 \
    }

#define ALLTOALLV_CALL(OP, B)                                                                      \
    .op = OP, .comm = comm, .blocking = B, .sendbuf = sendbuf, .recvbuf = recvbuf,                 \
    .sendcounts = sendcounts, .sdispls = sdispls, .sendtype = sendtype, .recvcounts = recvcounts,  \
    .rdispls = rdispls, .recvtype = recvtype
#define A2AV_CALL(B) ALLTOALLV_CALL(TEMU_COLL_ALLTOALLV, B)
#define NA2AV_CALL(B) ALLTOALLV_CALL(TEMU_COLL_NEIGHBOR_ALLTOALL, B)
#define V_PARAMS                                                                                   \
    const void *sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,       \
        void *recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype,         \
        MPI_Comm comm
#define V_ARGS sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm
COLL_PAIR(Alltoallv, Ialltoallv, V_PARAMS, V_ARGS, A2AV_CALL)
COLL_PAIR(Neighbor_alltoallv, Ineighbor_alltoallv, V_PARAMS, V_ARGS, NA2AV_CALL)

#define ALLTOALLW_CALL(B)                                                                          \
    .op = TEMU_COLL_ALLTOALLV, .comm = comm, .blocking = B, .sendbuf = sendbuf, .recvbuf = recvbuf,     \
    .sendcounts = sendcounts, .sdispls = sdispls, .sendtypes = sendtypes,                          \
    .recvcounts = recvcounts, .rdispls = rdispls, .recvtypes = recvtypes, .displs_bytes = 1,       \
    .sendtype = MPI_BYTE, .recvtype = MPI_BYTE

/* The *w collectives: per-peer datatypes, displacements in bytes (int for
 * alltoallw, MPI_Aint for the neighbourhood form). */
#define W_PARAMS(DISPL)                                                                            \
    const void *sendbuf, const int sendcounts[], const DISPL sdispls[],                            \
        const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],                     \
        const DISPL rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm
#define W_ARGS                                                                                     \
    sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes, comm
COLL_PAIR(Alltoallw, Ialltoallw, W_PARAMS(int), W_ARGS, ALLTOALLW_CALL)

#define NBW_CALL(B)                                                                                \
    .op = TEMU_COLL_NEIGHBOR_ALLTOALL, .comm = comm, .blocking = B, .sendbuf = sendbuf,                 \
    .recvbuf = recvbuf, .sendcounts = sendcounts, .sdispls_aint = sdispls, .sendtypes = sendtypes, \
    .recvcounts = recvcounts, .recvtypes = recvtypes, .displs_bytes = 1, .sendtype = MPI_BYTE,     \
    .recvtype = MPI_BYTE

COLL_PAIR(Neighbor_alltoallw, Ineighbor_alltoallw, W_PARAMS(MPI_Aint), W_ARGS, NBW_CALL)

/* ----------------------------------------------------------- reductions */

#define REDUCE_CALL(OP, B)                                                                         \
    .op = OP, .comm = comm, .blocking = B, .sendbuf = sendbuf, .recvbuf = recvbuf,                 \
    .sendcount = count, .recvcount = count, .sendtype = datatype, .recvtype = datatype, .rop = op

TMPI_ENTRY(Reduce,
           (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
            int root, MPI_Comm comm),
           (sendbuf, recvbuf, count, datatype, op, root, comm))
{
    RUN_COLL(tmpi_next_(sendbuf, recvbuf, count, datatype, op, root, comm),
             REDUCE_CALL(TEMU_COLL_REDUCE, 1), .root = root);
    return rc;
}

TMPI_ENTRY(Ireduce,
           (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
            int root, MPI_Comm comm, MPI_Request *request),
           (sendbuf, recvbuf, count, datatype, op, root, comm, request))
{
    int rc = tmpi_next_(sendbuf, recvbuf, count, datatype, op, root, comm, request);
    COUNT_COLL(.request = request, REDUCE_CALL(TEMU_COLL_REDUCE, 0), .root = root);
    return rc;
}

TMPI_ENTRY(Allreduce,
           (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
            MPI_Comm comm),
           (sendbuf, recvbuf, count, datatype, op, comm))
{
    RUN_COLL(tmpi_next_(sendbuf, recvbuf, count, datatype, op, comm),
             REDUCE_CALL(TEMU_COLL_ALLREDUCE, 1));
    return rc;
}

TMPI_ENTRY(Iallreduce,
           (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
            MPI_Comm comm, MPI_Request *request),
           (sendbuf, recvbuf, count, datatype, op, comm, request))
{
    int rc = tmpi_next_(sendbuf, recvbuf, count, datatype, op, comm, request);
    COUNT_COLL(.request = request, REDUCE_CALL(TEMU_COLL_ALLREDUCE, 0));
    return rc;
}

TMPI_ENTRY(Scan,
           (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
            MPI_Comm comm),
           (sendbuf, recvbuf, count, datatype, op, comm))
{
    RUN_COLL(tmpi_next_(sendbuf, recvbuf, count, datatype, op, comm), REDUCE_CALL(TEMU_COLL_SCAN, 1));
    return rc;
}

TMPI_ENTRY(Iscan,
           (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
            MPI_Comm comm, MPI_Request *request),
           (sendbuf, recvbuf, count, datatype, op, comm, request))
{
    int rc = tmpi_next_(sendbuf, recvbuf, count, datatype, op, comm, request);
    COUNT_COLL(.request = request, REDUCE_CALL(TEMU_COLL_SCAN, 0));
    return rc;
}

TMPI_ENTRY(Exscan,
           (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
            MPI_Comm comm),
           (sendbuf, recvbuf, count, datatype, op, comm))
{
    RUN_COLL(tmpi_next_(sendbuf, recvbuf, count, datatype, op, comm), REDUCE_CALL(TEMU_COLL_EXSCAN, 1));
    return rc;
}

TMPI_ENTRY(Iexscan,
           (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
            MPI_Comm comm, MPI_Request *request),
           (sendbuf, recvbuf, count, datatype, op, comm, request))
{
    int rc = tmpi_next_(sendbuf, recvbuf, count, datatype, op, comm, request);
    COUNT_COLL(.request = request, REDUCE_CALL(TEMU_COLL_EXSCAN, 0));
    return rc;
}

#define RS_CALL(B)                                                                                 \
    .op = TEMU_COLL_REDUCE_SCATTER, .comm = comm, .blocking = B, .sendbuf = sendbuf,                    \
    .recvbuf = recvbuf, .sendtype = datatype, .recvtype = datatype, .rop = op

TMPI_ENTRY(Reduce_scatter,
           (const void *sendbuf, void *recvbuf, const int recvcounts[], MPI_Datatype datatype,
            MPI_Op op, MPI_Comm comm),
           (sendbuf, recvbuf, recvcounts, datatype, op, comm))
{
    RUN_COLL(tmpi_next_(sendbuf, recvbuf, recvcounts, datatype, op, comm), RS_CALL(1),
             .recvcounts = recvcounts);
    return rc;
}

TMPI_ENTRY(Ireduce_scatter,
           (const void *sendbuf, void *recvbuf, const int recvcounts[], MPI_Datatype datatype,
            MPI_Op op, MPI_Comm comm, MPI_Request *request),
           (sendbuf, recvbuf, recvcounts, datatype, op, comm, request))
{
    int rc = tmpi_next_(sendbuf, recvbuf, recvcounts, datatype, op, comm, request);
    COUNT_COLL(.request = request, RS_CALL(0), .recvcounts = recvcounts);
    return rc;
}

TMPI_ENTRY(Reduce_scatter_block,
           (const void *sendbuf, void *recvbuf, int recvcount, MPI_Datatype datatype, MPI_Op op,
            MPI_Comm comm),
           (sendbuf, recvbuf, recvcount, datatype, op, comm))
{
    RUN_COLL(tmpi_next_(sendbuf, recvbuf, recvcount, datatype, op, comm), RS_CALL(1),
             .recvcount = recvcount);
    return rc;
}

TMPI_ENTRY(Ireduce_scatter_block,
           (const void *sendbuf, void *recvbuf, int recvcount, MPI_Datatype datatype, MPI_Op op,
            MPI_Comm comm, MPI_Request *request),
           (sendbuf, recvbuf, recvcount, datatype, op, comm, request))
{
    int rc = tmpi_next_(sendbuf, recvbuf, recvcount, datatype, op, comm, request);
    COUNT_COLL(.request = request, RS_CALL(0), .recvcount = recvcount);
    return rc;
}
