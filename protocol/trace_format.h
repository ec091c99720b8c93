/*
 * trace_format.h - the launcher-rank protocol's trace files: the raw
 * per-rank records the MPI layer writes under `torusemu run --trace DIR`
 * (mpi/trace.c; the directory comes in TMPI_TRACE_ENV, run_env.h), which
 * the launcher turns into one OTF2 archive (utils/otf2_write.c).  Host
 * byte order: written and read on the same machine.  Each file
 * DIR/rank.<world rank>.raw is a sequence of records: a tmpi_trace_head,
 * then `len` bytes of the body below.
 */
#ifndef TMPI_TRACE_FORMAT_H
#define TMPI_TRACE_FORMAT_H

#include <stdint.h>

enum tmpi_trace_type {
    TMPI_TRACE_SEND = 1,      /* tmpi_trace_send                          */
    TMPI_TRACE_RMA = 2,       /* tmpi_trace_rma                           */
    TMPI_TRACE_COMM = 3,      /* tmpi_trace_comm + int32_t members[n]     */
    TMPI_TRACE_COLL = 4,      /* tmpi_trace_coll + uint64_t blocks[nblocks],
                               * uint64_t offs[has_offs ? nblocks : 0],
                               * int32_t nb[nnb]                          */
    TMPI_TRACE_RECV = 5,      /* tmpi_trace_recv: a completed receive     */
    TMPI_TRACE_ISEND_DONE = 6, /* tmpi_trace_req: a non-blocking send completed */
    TMPI_TRACE_IRECV_POST = 7  /* tmpi_trace_req: a non-blocking receive posted */
};

typedef struct tmpi_trace_head {
    uint32_t type;
    uint32_t len;        /* bytes of the body                          */
    uint64_t t_begin_ns; /* CLOCK_MONOTONIC when the call was entered    */
    uint64_t t_ns;       /* CLOCK_MONOTONIC when the record was written  */
} tmpi_trace_head;

/* A point-to-point message as the layer counted it.  comm is a
 * tmpi_trace_comm id and peer the destination's rank in it; an
 * intercommunicator's message is written on the world (comm = -1, peer =
 * dst). */
typedef struct tmpi_trace_send_rec {
    int32_t dst; /* world rank                                  */
    int32_t tag;
    uint64_t bytes;
    uint64_t addr; /* address of the sender's data, 0 = none       */
    int32_t comm, peer;
    uint64_t req;    /* non-blocking: request id (> 0), 0 = blocking */
    int32_t counted; /* 0: made while MPI_Pcontrol(0) paused counting */
    int32_t pad;
} tmpi_trace_send_rec;

/* A receive as it completed: the matched source (rank in comm, as for a
 * send), tag and size from its status. */
typedef struct tmpi_trace_recv_rec {
    int32_t comm, peer;
    int32_t tag, pad;
    uint64_t bytes;
    uint64_t req; /* non-blocking: request id (> 0), 0 = blocking */
} tmpi_trace_recv_rec;

/* The request id of a non-blocking send's completion or receive's post. */
typedef struct tmpi_trace_req_rec {
    uint64_t req;
} tmpi_trace_req_rec;

/* A one-sided transaction (temu_kind PUT or GET) to a world rank. */
typedef struct tmpi_trace_rma_rec {
    int32_t target;
    int32_t kind;
    uint64_t bytes;
    uint64_t addr;
} tmpi_trace_rma_rec;

/* A communicator, before its first collective: id local to the file. */
typedef struct tmpi_trace_comm_rec {
    int32_t id;
    int32_t n;
} tmpi_trace_comm_rec;

/* One rank's collective call exactly as the layer described it to
 * coll/coll.c (tmpi_coll and tmpi_coll_env), with where its data lay. */
typedef struct tmpi_trace_coll_rec {
    int32_t comm; /* tmpi_trace_comm id               */
    int32_t me;   /* the caller's communicator rank   */
    int32_t op;   /* temu_coll_op (torusemu_coll.h)   */
    int32_t root;
    int32_t commutative, blocking, hw_op, recv_ready;
    int32_t nblocks, has_offs, nnb, pad;
    uint64_t bytes, count, elem;
    uint64_t send_base, recv_base; /* 0 = not inspected */
} tmpi_trace_coll_rec;

#endif
