/*
 * plan.c - packetization: what one message puts on the network, as a pure
 * function of the machine, the two nodes, the size, the kind and (Gemini)
 * the payload bytes.  The model and its sources are in doc/model.md.
 */
#define TEMU_BUILDING_LIBRARY 1
#include "emu_internal.h"

#include <string.h>

const char *temu_kind_name(temu_kind kind)
{
    switch (kind) {
    case TEMU_KIND_P2P:
        return "p2p";
    case TEMU_KIND_COLL_WORLD:
        return "coll-world";
    case TEMU_KIND_COLL_SUB:
        return "coll-sub";
    case TEMU_KIND_PUT:
        return "put";
    case TEMU_KIND_GET:
        return "get";
    case TEMU_KIND_ALLTOALL:
        return "alltoall";
    }
    return "?";
}

int temu_kind_parse(const char *name)
{
    for (int k = TEMU_KIND_P2P; k <= TEMU_KIND_ALLTOALL; k++) {
        if (strcmp(name, temu_kind_name((temu_kind)k)) == 0) {
            return k;
        }
    }
    return -1;
}

/* ------------------------------------------------------------ payload scan */

/* A 64-byte block (one full Gemini transaction): OR and AND of its eight
 * words decide "all zero bits" and "all one bits" without branches. */
static inline int block64_is_uniform(const unsigned char *b)
{
    uint64_t w[8];
    memcpy(w, b, sizeof w[0]);
    if (w[0] != 0 && w[0] != ~(uint64_t)0) {
        return 0; /* most real payloads: decided by the first word */
    }
    memcpy(w, b, sizeof w);
    uint64_t any = (w[0] | w[1]) | (w[2] | w[3]) | (w[4] | w[5]) | (w[6] | w[7]);
    uint64_t all = (w[0] & w[1]) & (w[2] & w[3]) & (w[4] & w[5]) & (w[6] & w[7]);
    return any == 0 || all == ~(uint64_t)0;
}

int temu_payload_is_uniform(const void *p, size_t len)
{
    const unsigned char *b = p;
    uint64_t any = 0, all = ~(uint64_t)0;
    size_t i = 0;
    if (len == 64) {
        return block64_is_uniform(b);
    }
    for (; i + 8 <= len; i += 8) {
        uint64_t w;
        memcpy(&w, b + i, sizeof w);
        any |= w;
        all &= w;
    }
    for (; i < len; i++) {
        any |= b[i];
        all &= (uint64_t)b[i] | ~(uint64_t)0xff;
    }
    return any == 0 || all == ~(uint64_t)0;
}

/* ------------------------------------------------------------------ Gemini */

typedef struct gemini_stream {
    int req_dir;      /* route direction of the requests (0 src->dst)   */
    int is_get;       /* GET transactions, else PUT                     */
    int bte;          /* issued by the block-transfer engine, else FMA   */
    uint64_t header;  /* leading bytes that are never compressed        */
    uint64_t bytes;   /* data bytes after the header                    */
    const unsigned char *data; /* the data, or NULL (no compression)    */
} gemini_stream;

/* Add the phits and packets of one transaction to its slot. */
static void gemini_transaction(temu_plan *plan, const gemini_stream *s, int slot, uint64_t count,
                               uint32_t payload, int compressed)
{
    int rq = s->req_dir, rs = 1 - s->req_dir;
    uint32_t req, rsp;
    if (s->is_get) {
        req = TEMU_GEMINI_GET_REQUEST_PHITS;
        rsp = temu_gemini_get_response_phits(payload, compressed);
    } else {
        req = temu_gemini_put_request_phits(payload, compressed);
        rsp = TEMU_GEMINI_PUT_RESPONSE_PHITS;
    }
    plan->phits[rq][0][slot] += count * req;
    plan->pkts[rq][0][slot] += count;
    plan->phits[rs][1][slot] += count * rsp;
    plan->pkts[rs][1][slot] += count;
}

/* NIC counters of n transactions whose payloads add up to `flit_bytes`
 * in 16-byte flits (`data_flits` = sum of ceil(payload/16)). */
static void gemini_nic(temu_plan *plan, const gemini_stream *s, uint64_t n, uint64_t data_flits)
{
    uint64_t *ini = plan->nic[s->req_dir];
    uint64_t *tgt = plan->nic[1 - s->req_dir];
    uint64_t req_flits = n + (s->is_get ? 0 : data_flits);
    uint64_t rsp_flits = n + (s->is_get ? data_flits : 0);

    ini[TEMU_NIC_ORB_VC0_PKTS] += n;
    ini[TEMU_NIC_ORB_VC0_FLITS] += req_flits;
    ini[s->bte ? TEMU_NIC_TARB_BTE_PKTS : TEMU_NIC_TARB_FMA_PKTS] += n;
    ini[s->bte ? TEMU_NIC_TARB_BTE_FLITS : TEMU_NIC_TARB_FMA_FLITS] += req_flits;
    ini[TEMU_NIC_TARB_OUT_PKTS] += n;
    ini[TEMU_NIC_TARB_OUT_FLITS] += req_flits;
    ini[TEMU_NIC_ORB_VC1_PKTS] += n;
    ini[TEMU_NIC_ORB_VC1_FLITS] += rsp_flits;

    tgt[TEMU_NIC_RAT_HEADER_FLITS_VC0] += n;
    tgt[TEMU_NIC_RAT_DATA_FLITS_VC0] += s->is_get ? 0 : data_flits;
    tgt[TEMU_NIC_NPT_PKTS] += n;
    tgt[TEMU_NIC_NPT_FLITS] += rsp_flits;
    tgt[TEMU_NIC_TARB_OUT_PKTS] += n;
    tgt[TEMU_NIC_TARB_OUT_FLITS] += rsp_flits;
}

/*
 * A stream of transactions carrying header+bytes in 64-byte pieces.
 * Transaction j goes to slot j % 8.  Every transaction but the last is full
 * (64 bytes), so without a payload the per-slot sums are arithmetic; with a
 * payload, full transactions are scanned for compression one by one.
 */
static void gemini_stream_add(temu_plan *plan, const gemini_stream *s)
{
    const uint64_t tx = TEMU_GEMINI_MAX_TRANSACTION;
    uint64_t total = s->header + s->bytes;
    if (total == 0) {
        return;
    }
    uint64_t n = temu_ceil_div(total, tx);
    uint64_t last = n - 1;
    uint32_t last_payload = (uint32_t)(total - last * tx);
    uint64_t compressed[TEMU_SLOTS] = {0};

    /* scan full transactions (j < last) that hold only data */
    if (s->data != NULL) {
        uint64_t j0 = s->header > 0 ? 1 : 0;
        for (uint64_t j = j0; j < last; j++) {
            compressed[j % TEMU_SLOTS] +=
                (uint64_t)block64_is_uniform(s->data + (j * tx - s->header));
        }
    }
    for (int k = 0; k < TEMU_SLOTS; k++) {
        /* full transactions j < last with j % 8 == k */
        uint64_t full = last / TEMU_SLOTS + ((uint64_t)k < last % TEMU_SLOTS ? 1 : 0);
        if (full > compressed[k]) {
            gemini_transaction(plan, s, k, full - compressed[k], (uint32_t)tx, 0);
        }
        if (compressed[k] > 0) {
            gemini_transaction(plan, s, k, compressed[k], (uint32_t)tx, 1);
        }
    }
    int last_compressed = 0;
    if (s->data != NULL && !(last == 0 && s->header > 0)) {
        last_compressed = temu_payload_is_uniform(s->data + (last * tx - s->header), last_payload);
    }
    gemini_transaction(plan, s, (int)(last % TEMU_SLOTS), 1, last_payload, last_compressed);
    gemini_nic(plan, s, n, last * (tx / 16) + temu_ceil_div(last_payload, 16));
}

static void gemini_control(temu_plan *plan, const temu_machine *m, int dir)
{
    gemini_stream s = {dir, 0, 0, m->protocol.mpi_header, 0, NULL};
    if (s.header == 0) {
        s.header = 1; /* a control message is never empty */
    }
    gemini_stream_add(plan, &s);
}

/*
 * MPI point-to-point protocols by size (Pedretti 2013 section V.D; thresholds in
 * temu_protocol):
 *   bytes < eager_limit: PUTs of envelope + data, source -> destination.
 *   bytes < bte_threshold: rendezvous by GET: RTS (src->dst), the
 *     destination GETs the data (requests dst->src, replies src->dst),
 *     then FIN (dst->src).
 *   otherwise: RTS, CTS (dst->src), data PUTs by the BTE, FIN (src->dst).
 */
void temu_plan_gemini(const temu_family *f, const temu_machine *m, const temu_message *msg,
                      temu_plan *plan)
{
    const temu_protocol *pr = &m->protocol;
    const unsigned char *data = msg->payload;
    int bte = msg->bytes >= pr->bte_threshold;

    (void)f;
    plan->gemini_slot_base = (uint32_t)((msg->src + msg->dst) % TEMU_SLOTS);
    switch (msg->kind) {
    case TEMU_KIND_PUT:
    case TEMU_KIND_GET: {
        gemini_stream s = {0, msg->kind == TEMU_KIND_GET, bte, 0, msg->bytes, data};
        gemini_stream_add(plan, &s);
        return;
    }
    case TEMU_KIND_P2P:
    case TEMU_KIND_COLL_WORLD:
    case TEMU_KIND_COLL_SUB:
    case TEMU_KIND_ALLTOALL: /* Cray MPICH sends all-to-all blocks as p2p */
        break;
    }
    if (msg->bytes < pr->eager_limit) {
        gemini_stream s = {0, 0, 0, pr->mpi_header, msg->bytes, data};
        if (s.header + s.bytes == 0) {
            s.header = 1;
        }
        gemini_stream_add(plan, &s);
    } else if (!bte) {
        gemini_stream get = {1, 1, 0, 0, msg->bytes, data};
        gemini_control(plan, m, 0); /* RTS */
        gemini_stream_add(plan, &get);
        gemini_control(plan, m, 1); /* FIN */
    } else {
        gemini_stream put = {0, 0, 1, 0, msg->bytes, data};
        gemini_control(plan, m, 0); /* RTS */
        gemini_control(plan, m, 1); /* CTS */
        gemini_stream_add(plan, &put);
        gemini_control(plan, m, 0); /* FIN */
    }
}

/* ------------------------------------------------------------- Blue Gene */

/* plan_bluegene.h, instantiated by each Blue Gene family with its packet
 * format (family_bgp.c, family_bgq.c). */

/* The memo key of a message (what its plan reads of the payload) is
 * temu_plan_payload_key in emu_internal.h, inlined into the injection
 * path; it follows l2_lines (plan_bluegene.h) and gemini_stream_add above. */

temu_status temu_plan_message(const temu_machine *m, const temu_message *msg, temu_plan *plan,
                              temu_error *err)
{
    const temu_family *f = temu_machine_family(m);
    memset(plan, 0, sizeof *plan);
    plan->system = m->system;
    if (f == NULL) {
        return temu_fail(err, TEMU_EINVAL, "machine of unknown system %d", (int)m->system);
    }
    if (msg->src < 0 || msg->src >= m->nnodes || msg->dst < 0 || msg->dst >= m->nnodes) {
        return temu_fail(err, TEMU_ERANGE, "message between nodes %lld and %lld: the machine has "
                                           "nodes 0..%lld",
                         (long long)msg->src, (long long)msg->dst, (long long)m->nnodes - 1);
    }
    if ((int)msg->kind < TEMU_KIND_P2P || (int)msg->kind > TEMU_KIND_ALLTOALL) {
        return temu_fail(err, TEMU_EINVAL, "unknown message kind %d", (int)msg->kind);
    }
    if (msg->bytes > TEMU_MAX_MESSAGE_BYTES) {
        return temu_fail(err, TEMU_ERANGE,
                         "message of %llu bytes: the model takes at most %llu bytes (2^48)",
                         (unsigned long long)msg->bytes, (unsigned long long)TEMU_MAX_MESSAGE_BYTES);
    }
    if (msg->src == msg->dst) {
        plan->local = 1; /* same node: shared memory, nothing on the network */
        return TEMU_OK;
    }
    if ((msg->kind == TEMU_KIND_PUT || msg->kind == TEMU_KIND_GET) && msg->bytes == 0) {
        return TEMU_OK; /* an empty RMA operation moves nothing */
    }
    f->plan(f, m, msg, plan);
    return TEMU_OK;
}
