/*
 * pmpi_env.c - start-up and node identity.
 *
 * MPI_Init / MPI_Init_thread attach the session and set the identity
 * (state.c).  MPI_Get_processor_name answers with the emulated node's name
 * (a Cray cname, a Blue Gene location) and MPI_Comm_split_type groups ranks
 * by emulated node, so programs that discover "nodes" themselves (GPCNeT
 * does, Chunduri et al. 2019) see the emulated machine.
 * MPI_Pcontrol(0) pauses counting in the calling process, MPI_Pcontrol(1)
 * resumes it (the standard's profiling-control hook).
 */
#include "tmpi.h"

#include <string.h>

int MPI_Init(int *argc, char ***argv)
{
    int rc = PMPI_Init(argc, argv);
    if (rc == MPI_SUCCESS) {
        tmpi_start();
    }
    return rc;
}

int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
    int rc = PMPI_Init_thread(argc, argv, required, provided);
    if (rc == MPI_SUCCESS) {
        tmpi_start();
    }
    return rc;
}

int tmpi_node_name(char *buf, int len)
{
    if (!tmpi_identity_known() || len <= 0) {
        return -1;
    }
    int n = temu_node_name(tmpi_g.m, tmpi_g.node, buf, (size_t)len);
    return n < len ? n : len - 1;
}

int MPI_Get_processor_name(char *name, int *resultlen)
{
    int n = tmpi_node_name(name, MPI_MAX_PROCESSOR_NAME);
    if (n < 0) {
        return PMPI_Get_processor_name(name, resultlen);
    }
    *resultlen = n;
    return MPI_SUCCESS;
}

int tmpi_split_by_node(MPI_Comm comm, int split_type, int key, MPI_Comm *newcomm, int *rc)
{
    /* MPI_COMM_TYPE_SHARED (= OMPI_COMM_TYPE_NODE) and OMPI_COMM_TYPE_HOST
     * name the node; finer Open MPI types (socket, core ...) pass through */
    if (!tmpi_identity_known() ||
        (split_type != MPI_COMM_TYPE_SHARED && split_type != OMPI_COMM_TYPE_HOST)) {
        return 0;
    }
    *rc = PMPI_Comm_split(comm, (int)tmpi_g.node, key, newcomm);
    return 1;
}

int MPI_Comm_split_type(MPI_Comm comm, int split_type, int key, MPI_Info info, MPI_Comm *newcomm)
{
    int rc;
    if (tmpi_split_by_node(comm, split_type, key, newcomm, &rc)) {
        return rc;
    }
    return PMPI_Comm_split_type(comm, split_type, key, info, newcomm);
}

int MPI_Pcontrol(const int level, ...)
{
    tmpi_paused = level == 0;
    return PMPI_Pcontrol(level);
}
