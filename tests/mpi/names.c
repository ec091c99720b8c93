/*
 * names - node identity as programs discover it (GPCNeT does, Chunduri et al.
 *  2019): MPI_Get_processor_name must give the emulated node's
 * name and MPI_Comm_split_type(MPI_COMM_TYPE_SHARED) must group the ranks of
 * one emulated node.  Each rank checks itself against the session's mapping
 * and prints "rank R NAME ranks-on-node K ok"; a mismatch is reported and
 * the rank exits with status 1.  The identity PAPI components read
 * (temu_identity_get) is checked too.
 */
#include <mpi.h>

#include "torusemu.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int bad;

static void expect(int cond, int rank, const char *what)
{
    if (!cond) {
        fprintf(stderr, "names: rank %d: %s\n", rank, what);
        bad = 1;
    }
}

int main(int argc, char **argv)
{
    int rank, size, len = -1;
    char name[MPI_MAX_PROCESSOR_NAME], want[MPI_MAX_PROCESSOR_NAME];
    temu_session *s;
    temu_error err;
    temu_slot me, other;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (temu_session_attach_env(&s, &err) != TEMU_OK ||
        temu_session_rank_slot(s, rank, &me, &err) != TEMU_OK) {
        fprintf(stderr, "names: %s\n", err.message);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    const temu_machine *m = temu_session_machine(s);

    MPI_Get_processor_name(name, &len);
    temu_node_name(m, me.node, want, sizeof want);
    expect(strcmp(name, want) == 0, rank, "processor name is not the emulated node's");
    expect(len == (int)strlen(want), rank, "processor name length");

    int on_node = 0;
    for (int r = 0; r < size; r++) {
        temu_session_rank_slot(s, r, &other, &err);
        on_node += other.node == me.node;
    }
    MPI_Comm shared, host;
    int n1, n2;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &shared);
    MPI_Comm_split_type(MPI_COMM_WORLD, OMPI_COMM_TYPE_HOST, 0, MPI_INFO_NULL, &host);
    MPI_Comm_size(shared, &n1);
    MPI_Comm_size(host, &n2);
    expect(n1 == on_node && n2 == on_node, rank, "shared-memory communicator is not the node");
    /* every member of the node communicator reports the same name */
    char *all = malloc((size_t)n1 * MPI_MAX_PROCESSOR_NAME);
    MPI_Allgather(name, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, all, MPI_MAX_PROCESSOR_NAME, MPI_CHAR,
                  shared);
    for (int i = 0; i < n1; i++) {
        expect(strcmp(all + (size_t)i * MPI_MAX_PROCESSOR_NAME, name) == 0, rank,
               "a node communicator member is on another node");
    }
    /* the identity the PAPI components read */
    temu_identity id = temu_identity_get(s);
    int32_t core, hwt;
    temu_slot_placement(m, me.t, &core, &hwt);
    expect(id.explicit_set && id.rank == rank && id.node == me.node && id.t == me.t &&
               id.core == core && id.hwthread == hwt,
           rank, "identity not set at MPI_Init");
    if (!bad) {
        printf("rank %d %s ranks-on-node %d ok\n", rank, name, n1);
    }
    free(all);
    MPI_Comm_free(&shared);
    MPI_Comm_free(&host);
    temu_session_close(s);
    MPI_Finalize();
    return bad;
}
