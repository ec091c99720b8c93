/*
 * pmpi_comm.c - communicator constructors (MPI_X and PMPI_X, tmpi.h).
 * Under --virtual-time each new communicator gets its hidden twin for the
 * message stamps (rank_vtime.c) right after the call, from every member, as the
 * collective MPI_Comm_dup requires; otherwise they pass through unchanged.
 * With the online timing model the constructors that are collective over
 * their input communicator are declared to it (tmpi_vt_sync_begin), so a
 * member waiting for the others does not hold the model back.
 * MPI_Comm_split_type is in pmpi_env.c; MPI_Comm_idup is not wrapped (its
 * communicator has no twin: receives on it keep the receiver's clock).
 * MPI_Comm_create_group (collective over the group only) and the
 * intercommunicator constructors are not declared.
 */
#include "tmpi.h"

/* After an outermost constructor that succeeded: the twin of *NEWCOMM. */
#define TWIN(NEWCOMM)                                                                              \
    do {                                                                                           \
        if (rc == MPI_SUCCESS && tmpi_vt_active()) {                                               \
            tmpi_vt_comm_new(NEWCOMM);                                                             \
        }                                                                                          \
    } while (0)

TMPI_ENTRY(Comm_dup, (MPI_Comm comm, MPI_Comm *newcomm), (comm, newcomm))
{
    int declared = tmpi_vt_sync_begin(comm);
    int rc = tmpi_next_(comm, newcomm);
    TWIN(*newcomm);
    tmpi_vt_sync_end(comm, declared);
    return rc;
}

TMPI_ENTRY(Comm_dup_with_info, (MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm),
           (comm, info, newcomm))
{
    int declared = tmpi_vt_sync_begin(comm);
    int rc = tmpi_next_(comm, info, newcomm);
    TWIN(*newcomm);
    tmpi_vt_sync_end(comm, declared);
    return rc;
}

TMPI_ENTRY(Comm_split, (MPI_Comm comm, int color, int key, MPI_Comm *newcomm),
           (comm, color, key, newcomm))
{
    int declared = tmpi_vt_sync_begin(comm);
    int rc = tmpi_next_(comm, color, key, newcomm);
    TWIN(*newcomm);
    tmpi_vt_sync_end(comm, declared);
    return rc;
}

TMPI_ENTRY(Comm_create, (MPI_Comm comm, MPI_Group group, MPI_Comm *newcomm), (comm, group, newcomm))
{
    int declared = tmpi_vt_sync_begin(comm);
    int rc = tmpi_next_(comm, group, newcomm);
    TWIN(*newcomm);
    tmpi_vt_sync_end(comm, declared);
    return rc;
}

TMPI_ENTRY(Comm_create_group, (MPI_Comm comm, MPI_Group group, int tag, MPI_Comm *newcomm),
           (comm, group, tag, newcomm))
{
    int rc = tmpi_next_(comm, group, tag, newcomm);
    TWIN(*newcomm);
    return rc;
}

TMPI_ENTRY(Cart_create,
           (MPI_Comm comm, int ndims, const int dims[], const int periods[], int reorder,
            MPI_Comm *newcomm),
           (comm, ndims, dims, periods, reorder, newcomm))
{
    int declared = tmpi_vt_sync_begin(comm);
    int rc = tmpi_next_(comm, ndims, dims, periods, reorder, newcomm);
    TWIN(*newcomm);
    tmpi_vt_sync_end(comm, declared);
    return rc;
}

TMPI_ENTRY(Cart_sub, (MPI_Comm comm, const int remain_dims[], MPI_Comm *newcomm),
           (comm, remain_dims, newcomm))
{
    int declared = tmpi_vt_sync_begin(comm);
    int rc = tmpi_next_(comm, remain_dims, newcomm);
    TWIN(*newcomm);
    tmpi_vt_sync_end(comm, declared);
    return rc;
}

TMPI_ENTRY(Graph_create,
           (MPI_Comm comm, int nnodes, const int index[], const int edges[], int reorder,
            MPI_Comm *newcomm),
           (comm, nnodes, index, edges, reorder, newcomm))
{
    int declared = tmpi_vt_sync_begin(comm);
    int rc = tmpi_next_(comm, nnodes, index, edges, reorder, newcomm);
    TWIN(*newcomm);
    tmpi_vt_sync_end(comm, declared);
    return rc;
}

TMPI_ENTRY(Dist_graph_create,
           (MPI_Comm comm, int n, const int sources[], const int degrees[],
            const int destinations[], const int weights[], MPI_Info info, int reorder,
            MPI_Comm *newcomm),
           (comm, n, sources, degrees, destinations, weights, info, reorder, newcomm))
{
    int declared = tmpi_vt_sync_begin(comm);
    int rc = tmpi_next_(comm, n, sources, degrees, destinations, weights, info, reorder, newcomm);
    TWIN(*newcomm);
    tmpi_vt_sync_end(comm, declared);
    return rc;
}

TMPI_ENTRY(Dist_graph_create_adjacent,
           (MPI_Comm comm, int indegree, const int sources[], const int sourceweights[],
            int outdegree, const int destinations[], const int destweights[], MPI_Info info,
            int reorder, MPI_Comm *newcomm),
           (comm, indegree, sources, sourceweights, outdegree, destinations, destweights, info,
            reorder, newcomm))
{
    int declared = tmpi_vt_sync_begin(comm);
    int rc = tmpi_next_(comm, indegree, sources, sourceweights, outdegree, destinations,
                        destweights, info, reorder, newcomm);
    TWIN(*newcomm);
    tmpi_vt_sync_end(comm, declared);
    return rc;
}

TMPI_ENTRY(Intercomm_create,
           (MPI_Comm local_comm, int local_leader, MPI_Comm peer_comm, int remote_leader, int tag,
            MPI_Comm *newcomm),
           (local_comm, local_leader, peer_comm, remote_leader, tag, newcomm))
{
    int rc = tmpi_next_(local_comm, local_leader, peer_comm, remote_leader, tag, newcomm);
    TWIN(*newcomm);
    return rc;
}

TMPI_ENTRY(Intercomm_merge, (MPI_Comm intercomm, int high, MPI_Comm *newcomm),
           (intercomm, high, newcomm))
{
    int rc = tmpi_next_(intercomm, high, newcomm);
    TWIN(*newcomm);
    return rc;
}
