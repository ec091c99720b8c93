/*
 * account.c - point-to-point and one-sided traffic into the counter store.
 *
 * The sender counts: every message is injected once, by the process that
 * sends it (the emulator adds the whole protocol, including what travels
 * back, doc/model.md).  Counting happens after the MPI call succeeded, so a
 * failed call leaves no trace and the application's data is untouched.
 */
#include "tmpi.h"

#include <string.h>

/* The predefined types messages mostly use, with their sizes, looked up
 * once at MPI_Init: a predefined type is never freed (its handle cannot be
 * reused by a derived type) and is one dense run of `size` bytes (lower
 * bound 0, extent = size), so a hit needs no MPI call at all. */
#define NPREDEF 16
static MPI_Datatype predef[NPREDEF];
static int predef_size[NPREDEF];

void tmpi_types_init(void)
{
    const MPI_Datatype t[NPREDEF] = {
        MPI_BYTE,  MPI_CHAR,      MPI_INT,           MPI_DOUBLE,   MPI_FLOAT,
        MPI_LONG,  MPI_LONG_LONG, MPI_UNSIGNED_CHAR, MPI_UNSIGNED, MPI_UNSIGNED_LONG,
        MPI_SHORT, MPI_INT64_T,   MPI_UINT64_T,      MPI_INT32_T,  MPI_DOUBLE_COMPLEX,
        MPI_PACKED};
    for (int i = 0; i < NPREDEF; i++) {
        int size = 0;
        if (PMPI_Type_size(t[i], &size) == MPI_SUCCESS && size > 0) {
            predef[i] = t[i];
            predef_size[i] = size;
        } else {
            predef[i] = MPI_DATATYPE_NULL;
        }
    }
}

/* Size of a listed predefined type, 0 when type is not one of them. */
static inline int predef_lookup(MPI_Datatype type)
{
    for (int i = 0; i < NPREDEF; i++) {
        if (predef[i] == type) {
            return predef_size[i];
        }
    }
    return 0;
}

uint64_t tmpi_type_bytes(int count, MPI_Datatype type)
{
    int size = 0;
    if (count <= 0 || !tmpi_type_valid(type)) {
        return 0;
    }
    if ((size = predef_lookup(type)) == 0 &&
        (PMPI_Type_size(type, &size) != MPI_SUCCESS || size <= 0)) {
        return 0;
    }
    return (uint64_t)count * (uint64_t)size;
}

/* Start of the bytes of (buf, count, type) when they form one run in
 * memory: the type is dense (true extent = size: no holes inside an
 * element) and, for several elements, its extent is its size (no gaps
 * between them) -- every predefined type and contiguous derived types.
 * Then the run is count * size bytes from buf + true lower bound. */
static const void *dense_start(const void *buf, int count, MPI_Datatype type, int size)
{
    MPI_Aint lb, extent, tlb, textent;
    if (count <= 0 || size <= 0 || buf == MPI_IN_PLACE ||
        PMPI_Type_get_true_extent(type, &tlb, &textent) != MPI_SUCCESS || textent != size) {
        return NULL;
    }
    if (count > 1 && (PMPI_Type_get_extent(type, &lb, &extent) != MPI_SUCCESS || extent != size)) {
        return NULL;
    }
    if (buf == MPI_BOTTOM && tlb == 0) {
        return NULL;
    }
    return (const char *)buf + tlb;
}

const void *tmpi_contiguous(const void *buf, int count, MPI_Datatype type)
{
    int size = 0;
    if (!tmpi_type_valid(type) || PMPI_Type_size(type, &size) != MPI_SUCCESS) {
        return NULL;
    }
    return dense_start(buf, count, type, size);
}

int32_t tmpi_send_dest(int dest, MPI_Comm comm)
{
    if (comm == MPI_COMM_WORLD) {
        return dest >= 0 && dest < tmpi_g.world_size ? dest : -1;
    }
    tmpi_comm *c = tmpi_comm_get(comm);
    return c != NULL ? tmpi_comm_peer(c, dest) : -1;
}

/* The message a send of (buf, count, type) to dest of comm puts on the
 * emulated machine; 0 when nothing is sent (MPI_PROC_NULL, unknown peer or
 * type).  One type-size query; the payload is looked at only when the
 * machine compresses (Gemini). */
static inline __attribute__((always_inline)) int send_message(const void *buf, int count,
                                                              MPI_Datatype type, int dest,
                                                              MPI_Comm comm, temu_message *msg)
{
    int size = 0;
    if (dest == MPI_PROC_NULL) {
        return 0;
    }
    int32_t w = tmpi_send_dest(dest, comm);
    if (w < 0 || !tmpi_type_valid(type)) {
        return 0;
    }
    int predefined = (size = predef_lookup(type)) != 0;
    if (!predefined && PMPI_Type_size(type, &size) != MPI_SUCCESS) {
        return 0;
    }
    msg->src = tmpi_g.node;         /* this rank's node, known since MPI_Init */
    msg->dst = tmpi_g.rank_node[w]; /* w < world size (tmpi_send_dest) */
    msg->bytes = count > 0 && size > 0 ? (uint64_t)count * (uint64_t)size : 0;
    msg->payload = NULL;
    if (tmpi_g.want_payload && count > 0 && size > 0) {
        /* a predefined type is one run from buf (dense_start's rules with
         * lower bound 0: nothing for MPI_IN_PLACE or MPI_BOTTOM) */
        msg->payload = !predefined ? dense_start(buf, count, type, size)
                       : buf == MPI_IN_PLACE || buf == MPI_BOTTOM ? NULL
                                                                  : buf;
    }
    msg->kind = TEMU_KIND_P2P;
    return 1;
}

int tmpi_send_message(const void *buf, int count, MPI_Datatype type, int dest, MPI_Comm comm,
                      temu_message *msg)
{
    return send_message(buf, count, type, dest, comm, msg);
}

/* One body for both entry points below; always inlined, so the counting-
 * only path (sending = 1, vt = 0 constants) carries no virtual-time test. */
static inline __attribute__((always_inline)) void acct_send(const void *buf, int count,
                                                            MPI_Datatype type, int dest, int tag,
                                                            MPI_Comm comm, const MPI_Request *req,
                                                            int sending, int vt)
{
    temu_message msg;
    int64_t lat = 0;
    int have = send_message(buf, count, type, dest, comm, &msg); /* inlined: the hot path */
    if (vt && have) {
        /* into the online model's feed (the network carries it when it is
         * counted), then its stamp names it */
        lat = tmpi_vt_message_latency(&msg);
        tmpi_vt_feed_p2p(&msg, sending && !tmpi_paused, tmpi_send_dest(dest, comm), lat);
    }
    if (have && sending) {
        if (!tmpi_paused) {
            temu_inject(tmpi_g.session, &msg, NULL);
        }
        if (tmpi_trace_file != NULL) {
            uint64_t id = req != NULL ? tmpi_treq_add(*req, TMPI_TREQ_ISEND, comm) : 0;
            tmpi_trace_send(comm, dest, tmpi_send_dest(dest, comm), tag, msg.bytes, msg.payload,
                            id);
        }
    }
    /* the stamp, from the same message (one lookup per send) */
    if (vt && dest != MPI_PROC_NULL) {
        tmpi_vt_stamp(dest, tag, comm, lat);
    }
}

void tmpi_acct_send(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
                    const MPI_Request *req)
{
    acct_send(buf, count, type, dest, tag, comm, req, 1, 0);
}

void tmpi_acct_send_vt(const void *buf, int count, MPI_Datatype type, int dest, int tag,
                       MPI_Comm comm, const MPI_Request *req, int sending)
{
    acct_send(buf, count, type, dest, tag, comm, req, sending, 1);
}

void tmpi_plan_send(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
                    tmpi_pending *p)
{
    p->comm = comm;
    p->dest = dest;
    p->tag = tag;
    p->valid = tmpi_send_message(buf, count, type, dest, comm, &p->msg) &&
               temu_plan_message(tmpi_g.m, &p->msg, &p->plan, NULL) == TEMU_OK;
    p->dst = p->valid ? tmpi_send_dest(dest, comm) : -1;
    p->addr = p->msg.payload;
    p->msg.payload = NULL; /* the plan holds what the bytes implied */
}

void tmpi_apply_pending(const tmpi_pending *p)
{
    if (p->valid) {
        if (!tmpi_paused) {
            temu_apply_plan(tmpi_g.session, &p->msg, &p->plan);
        }
        if (tmpi_trace_file != NULL) {
            tmpi_trace_send(p->comm, p->dest, p->dst, p->tag, p->msg.bytes, p->addr, 0);
        }
    }
}

/* ------------------------------------------------------------ one-sided */

static void inject_rma(tmpi_win *w, int32_t target, uint64_t bytes, const void *payload,
                       temu_kind kind)
{
    payload = tmpi_g.want_payload ? payload : NULL;
    temu_inject_ranks(tmpi_g.session, tmpi_g.world_rank, target, bytes, payload, kind, NULL);
    if (tmpi_vt_on) {
        temu_message msg = {tmpi_g.node, tmpi_g.rank_node[target], bytes, NULL, kind};
        tmpi_vt_rma_issue(w, target, &msg);
    }
    if (tmpi_trace_file != NULL) {
        tmpi_trace_rma(target, bytes, payload, kind);
    }
}

/*
 * One-sided operations as emulator transactions (doc/mpi.md):
 *   put, accumulate          PUT of the origin data (payload inspected)
 *   get                      GET of the origin buffer's size (the data lives
 *                            at the target: never compressed)
 *   get_accumulate,
 *   fetch_and_op             PUT of the operands (none for MPI_NO_OP), then
 *                            GET of the result
 *   compare_and_swap         PUT of operand and comparand, GET of the old value
 */
void tmpi_acct_rma(tmpi_rma_op op, const void *origin, int origin_count, MPI_Datatype origin_type,
                   int result_count, MPI_Datatype result_type, MPI_Op rop, int target, MPI_Win win)
{
    if (target == MPI_PROC_NULL) {
        return;
    }
    tmpi_win *w = tmpi_win_get(win);
    if (w == NULL || target < 0 || target >= w->size || w->world[target] < 0) {
        return;
    }
    int32_t t = w->world[target];
    /* with MPI_NO_OP the origin arguments are ignored (and may be null) */
    uint64_t ob = rop == MPI_NO_OP ? 0 : tmpi_type_bytes(origin_count, origin_type);
    switch (op) {
    case TMPI_RMA_PUT:
    case TMPI_RMA_ACC:
        inject_rma(w, t, ob, tmpi_contiguous(origin, origin_count, origin_type), TEMU_KIND_PUT);
        break;
    case TMPI_RMA_GET:
        inject_rma(w, t, ob, NULL, TEMU_KIND_GET);
        break;
    case TMPI_RMA_GET_ACC:
        if (rop != MPI_NO_OP) {
            inject_rma(w, t, ob, tmpi_contiguous(origin, origin_count, origin_type), TEMU_KIND_PUT);
        }
        inject_rma(w, t, tmpi_type_bytes(result_count, result_type), NULL, TEMU_KIND_GET);
        break;
    case TMPI_RMA_CAS:
        inject_rma(w, t, 2 * ob, NULL, TEMU_KIND_PUT);
        inject_rma(w, t, ob, NULL, TEMU_KIND_GET);
        break;
    }
}
