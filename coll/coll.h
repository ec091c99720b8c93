/*
 * coll.h - collective operations decomposed into the point-to-point
 * messages the emulated machine's MPI sent (pure: no MPI, no store).
 *
 * Every rank of a collective calls tmpi_coll_sends() with its own rank and
 * gets the messages *it* sends; the union over ranks is the whole
 * collective.  The MPI layer injects each rank's messages from that rank's
 * process, so nothing is counted twice.  The algorithms, their size
 * thresholds and sources are listed in doc/mpi.md.
 *
 * The collective library (coll/, libtoruscoll): used by the MPI layer
 * (mpi/acct_coll.c) and the replay engine (emu/replay.c) alike, so a replay
 * and a live run cannot disagree on an algorithm.  Not installed.
 */
#ifndef TMPI_COLL_H
#define TMPI_COLL_H

#include "torusemu.h" /* temu_kind */
#include "torusemu_coll.h"

#include <stdint.h>

/* Not exported from a shared library that links this library in (each of
 * libtorusemu and libtorusemu_mpi carries its own copy). */
#pragma GCC visibility push(hidden)

typedef enum tmpi_algo {
    TMPI_ALGO_NONE = 0,           /* nothing on the network (1 rank)                   */
    TMPI_ALGO_DISSEMINATION,      /* barrier: ceil(log2 n) rounds to r + 2^k           */
    TMPI_ALGO_BINOMIAL,           /* bcast/reduce/gather/scatter binomial tree          */
    TMPI_ALGO_BINOMIAL_NONCOMM,   /* reduce, non-commutative op: tree to 0, then root */
    TMPI_ALGO_SCATTER_RD,         /* bcast: binomial scatter + recursive-doubling allgather */
    TMPI_ALGO_SCATTER_RING,       /* bcast: binomial scatter + ring allgather           */
    TMPI_ALGO_LINEAR,             /* gatherv/scatterv: every block straight to/from root */
    TMPI_ALGO_RECURSIVE_DOUBLING, /* allgather(v), allreduce, scan, exscan         */
    TMPI_ALGO_BRUCK,              /* allgather(v), alltoall                             */
    TMPI_ALGO_RING,               /* allgather(v)                                       */
    TMPI_ALGO_PAIRWISE,           /* alltoall(v,w), reduce_scatter: one message per pair */
    TMPI_ALGO_RABENSEIFNER,       /* allreduce: recursive halving + doubling            */
    TMPI_ALGO_NEIGHBOR,           /* neighbourhood collectives: one message per neighbour */
    TMPI_ALGO_CLASSROUTE,         /* BG/Q collective class route (coll/classroute.c)    */
    TMPI_ALGO_COLLNET,            /* BG/P collective / global-interrupt network: no torus traffic */
    TMPI_ALGOS
} tmpi_algo;

/* Where the bytes of a message lie at the sender, for payload inspection
 * (Gemini compression, BG/Q L2 slices). */
enum tmpi_buf {
    TMPI_BUF_NONE = 0, /* assembled or partially reduced data: not known      */
    TMPI_BUF_SEND = 1, /* a slice of the sender's send buffer (valid at entry) */
    TMPI_BUF_RECV = 2  /* a slice of its receive buffer (final data, valid at the
                        * end of a blocking call, or at the root of a bcast)   */
};

typedef struct tmpi_msg {
    int32_t dst; /* communicator rank of the receiver          */
    int32_t buf; /* enum tmpi_buf                              */
    uint64_t bytes;
    uint64_t off;  /* byte offset of the slice in that buffer    */
    int32_t round; /* step of the algorithm, from 0: the sender sends its
                    * round-k messages once it has received every message
                    * of rounds below k (virtual-time replay, doc/replay.md);
                    * the live layer does not use it                       */
    int32_t pad;
} tmpi_msg;

typedef void (*tmpi_emit_fn)(void *ctx, const tmpi_msg *msg);

/*
 * One collective call as seen by one rank.  Meaning of the size fields:
 *   barrier                      none
 *   bcast, reduce, allreduce,
 *   scan, exscan                 bytes = the whole buffer (count * elem)
 *   gather, scatter, allgather,
 *   alltoall, neighbor_*         bytes = one rank's block
 *   gatherv                      bytes = this rank's block (non-root)
 *   scatterv                     blocks[j], offs[j] = block for rank j (root)
 *   allgatherv                   blocks[j], offs[j] = rank j's block in recvbuf
 *   alltoallv/w                  blocks[j], offs[j] = this rank's block for j
 *   reduce_scatter               blocks[j] = rank j's result block (bytes);
 *                                _block: bytes = the common block size
 *   neighbor_*v/w                blocks[i], offs[i] = block for neighbour i
 * count/elem give the reduction's element count and size (Rabenseifner
 * splits by whole elements).
 */
typedef struct tmpi_coll {
    temu_coll_op op;
    tmpi_algo algo;
    int32_t n;           /* communicator size                       */
    int32_t root;        /* rooted operations                       */
    int32_t commutative; /* reductions: the op commutes             */
    uint64_t bytes;
    uint64_t count, elem;
    const uint64_t *blocks; /* NULL unless listed above             */
    const uint64_t *offs;   /* byte offsets of `blocks`; NULL: unknown (no
                             * payload).  Fixed-size blocks (blocks NULL) lie
                             * back to back: block j at j * bytes */
    int32_t nnb;            /* neighbour collectives: out-degree     */
    const int32_t *nb;      /* out-neighbours; entries < 0 are MPI_PROC_NULL */
} tmpi_coll;

/* What the algorithm choice depends on besides the call itself. */
typedef struct tmpi_coll_env {
    int32_t collnet;        /* the machine's temu_collnet (temu_family_info)     */
    int32_t blocking;       /* 0 for MPI_I* (never on a collective network)      */
    int32_t spans_world;    /* the communicator holds every rank of the job      */
    int32_t box;            /* BG/Q: its nodes form a rectangular block          */
    int32_t hw_op;          /* reduction: predefined op on a predefined type     */
    int32_t bruck_alltoall; /* the machine's MPI: Bruck's all-to-all when short */
} tmpi_coll_env;

/* Algorithm the emulated machine's MPI used (doc/mpi.md has the table). */
tmpi_algo tmpi_coll_choose(const tmpi_coll_env *env, const tmpi_coll *c);

/* Emit every message rank `me` sends in collective c (c->algo set).  No
 * message is empty except the barrier's. */
void tmpi_coll_sends(const tmpi_coll *c, int32_t me, tmpi_emit_fn emit, void *ctx);

/* The message kind of the blocks of collective op: TEMU_KIND_ALLTOALL for
 * MPI_Alltoall and MPI_Alltoallv (and MPI_Alltoallw, which temu_coll_op
 * folds into alltoallv), which MPICH/PAMID on BG/Q ran by PAMI's
 * many-to-many protocol (doc/model.md, "All-to-all on BG/Q"; each family
 * decides what the kind puts on its network), else TEMU_KIND_P2P. */
temu_kind tmpi_coll_msg_kind(temu_coll_op op);

const char *tmpi_coll_op_name(temu_coll_op op);
const char *tmpi_algo_name(tmpi_algo algo);

/* Size thresholds in bytes (MPICH2 defaults, Thakur, Rabenseifner and
 * Gropp, IJHPCA 19(1), 2005; doc/mpi.md). */
#define TMPI_BCAST_SHORT 12288u     /* below: binomial bcast                  */
#define TMPI_BCAST_LONG 524288u     /* below (and n a power of 2): scatter + RD */
#define TMPI_BCAST_MIN_PROCS 8      /* fewer ranks: binomial bcast            */
#define TMPI_ALLGATHER_SHORT 81920u /* total below, n not a power of 2: Bruck  */
#define TMPI_ALLGATHER_LONG 524288u /* total below, n a power of 2: RD         */
#define TMPI_ALLTOALL_SHORT 256u    /* block at most this and n >= 8: Bruck    */
#define TMPI_ALLTOALL_MIN_PROCS 8
/* pairwise all-to-all: blocks up to this are posted at once, larger ones
 * step by step (only the messages' rounds differ) */
#define TMPI_ALLTOALL_MEDIUM 32768u
#define TMPI_ALLREDUCE_SHORT 2048u /* at most: recursive doubling             */

#pragma GCC visibility pop

#endif
