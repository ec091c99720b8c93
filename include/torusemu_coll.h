/*
 * torusemu_coll.h - the MPI collective operations the emulator knows, one
 * list for every part that names them: the replay API
 * (include/torusemu_replay.h), the collective decomposition and BG/Q class
 * routes (coll/), the MPI layer (mpi/) and the OTF2 reader and writer
 * (utils/).  The values are written into raw traces (the launcher-rank
 * protocol, protocol/trace_format.h): append, never renumber.
 */
#ifndef TORUSEMU_COLL_H
#define TORUSEMU_COLL_H

#ifdef __cplusplus
extern "C" {
#endif

typedef enum temu_coll_op {
    TEMU_COLL_BARRIER = 0,
    TEMU_COLL_BCAST,
    TEMU_COLL_GATHER,
    TEMU_COLL_GATHERV,
    TEMU_COLL_SCATTER,
    TEMU_COLL_SCATTERV,
    TEMU_COLL_ALLGATHER,
    TEMU_COLL_ALLGATHERV,
    TEMU_COLL_ALLTOALL,
    TEMU_COLL_ALLTOALLV, /* also MPI_Alltoallw: per-destination sizes */
    TEMU_COLL_REDUCE,
    TEMU_COLL_ALLREDUCE,
    TEMU_COLL_REDUCE_SCATTER, /* also MPI_Reduce_scatter_block */
    TEMU_COLL_SCAN,
    TEMU_COLL_EXSCAN,
    TEMU_COLL_NEIGHBOR_ALLGATHER, /* also ..._allgatherv: one block to each neighbour */
    TEMU_COLL_NEIGHBOR_ALLTOALL,  /* also ..._alltoallv/w: block i to neighbour i */
    TEMU_COLL_OPS
} temu_coll_op;

/* "alltoall", ...; NULL for an unknown value. */
const char *temu_coll_op_name(int op);

#ifdef __cplusplus
}
#endif

#endif /* TORUSEMU_COLL_H */
