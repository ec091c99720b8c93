/*
 * pmpi_env.c - start-up and node identity.
 *
 * Each entry exists as MPI_X and PMPI_X (tmpi.h, TMPI_ENTRY).
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

/* A run across hosts keeps the program's thread level: the hosts' agent
 * threads make no MPI call (hosts.c, host_wire.c). */
TMPI_ENTRY(Init, (int *argc, char ***argv), (argc, argv))
{
    int rc = tmpi_next_(argc, argv);
    if (rc == MPI_SUCCESS) {
        tmpi_start();
    }
    return rc;
}

TMPI_ENTRY(Init_thread, (int *argc, char ***argv, int required, int *provided),
           (argc, argv, required, provided))
{
    int rc = tmpi_next_(argc, argv, required, provided);
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

/* The name comes from the emulated machine once it is known; the call
 * still goes down the chain, so tools after this one see it. */
TMPI_ENTRY(Get_processor_name, (char *name, int *resultlen), (name, resultlen))
{
    int rc = tmpi_next_(name, resultlen);
    int n = tmpi_node_name(name, MPI_MAX_PROCESSOR_NAME);
    if (rc == MPI_SUCCESS && n >= 0) {
        *resultlen = n;
    }
    return rc;
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

/* A split by node is done here instead of in Open MPI; when another tool
 * comes after this library, its MPI_Comm_split_type runs first and reaches
 * our PMPI_Comm_split_type, which does it. */
TMPI_ENTRY(Comm_split_type,
           (MPI_Comm comm, int split_type, int key, MPI_Info info, MPI_Comm *newcomm),
           (comm, split_type, key, info, newcomm))
{
    static void *ompi_own;
    int declared = tmpi_vt_sync_begin(comm);
    int rc;
    if (!(tmpi_next_ == tmpi_next_fn(&ompi_own, "PMPI_Comm_split_type") &&
          tmpi_split_by_node(comm, split_type, key, newcomm, &rc))) {
        rc = tmpi_next_(comm, split_type, key, info, newcomm);
    }
    if (rc == MPI_SUCCESS && tmpi_vt_active()) {
        tmpi_vt_comm_new(*newcomm); /* its twin for message stamps (rank_vtime.c) */
    }
    tmpi_vt_sync_end(comm, declared);
    return rc;
}

/* Variadic, so not through TMPI_ENTRY; only the level is passed on (the
 * standard gives the other arguments no meaning for MPI itself). */
typedef int (*pcontrol_fn)(const int, ...);

int MPI_Pcontrol(const int level, ...)
{
    static void *next;
    tmpi_paused = level == 0;
    return ((pcontrol_fn)tmpi_next_fn(&next, "MPI_Pcontrol"))(level);
}

int PMPI_Pcontrol(const int level, ...)
{
    static void *next;
    tmpi_paused = level == 0;
    return ((pcontrol_fn)tmpi_next_fn(&next, "PMPI_Pcontrol"))(level);
}

/* MPI_Finalize: under --virtual-time this rank will send nothing more, so
 * the online timing model need not wait for its clock (rank_vtime.c), and the
 * program's own clocks tell host time again (vt_clocks.c).  No
 * argument, so not through TMPI_ENTRY. */
typedef int (*finalize_fn)(void);

int MPI_Finalize(void)
{
    static void *next, *ompi_own;
    if (tmpi_vt_on) {
        tmpi_clocks_stop();
        tmpi_vt_finalize();
    }
    finalize_fn f = (finalize_fn)tmpi_next_fn(&next, "MPI_Finalize");
    /* the hosts' agents stop last: with another tool after this library,
     * its MPI_Finalize may still send (it reaches our PMPI_Finalize) */
    if (f == (finalize_fn)tmpi_next_fn(&ompi_own, "PMPI_Finalize")) {
        tmpi_hosts_finish();
    }
    return f();
}

int PMPI_Finalize(void)
{
    static void *next;
    if (tmpi_vt_on) {
        tmpi_clocks_stop();
        tmpi_vt_finalize();
    }
    tmpi_hosts_finish();
    return ((finalize_fn)tmpi_next_fn(&next, "PMPI_Finalize"))();
}
