/*
 * inject.c - apply a message's plan to the counter store along its routes.
 *
 * Where counts land (doc/model.md):
 *  Gemini: phit and packet counters count traffic arriving at a tile
 *    (Pedretti 2013 V.B).  A hop from router A to B through A's link L credits
 *    B's tiles of the opposite link.  The injecting Gemini's host tiles count
 *    what its nodes inject: dir 0 traffic at the source, dir 1 at the
 *    destination.  Transaction slot k uses position (base + k) mod T of the
 *    link's T tiles, base = (source node + destination node) mod 8.
 *  BG/Q: chunks are counted on the sending node's outgoing link (pass-
 *    through included), packets on the receiving node's incoming link; the
 *    message-unit counters and L2 line accesses at the two end nodes.
 *  BG/P: packets and chunks on the sending node's direction; every packet
 *    received is acknowledged by one token/ack packet sent back over the
 *    same link (our model, doc/model.md).
 */
#define TEMU_BUILDING_LIBRARY 1
#include "emu_internal.h"

#include <string.h>

static inline void add(temu_session *s, int64_t idx, uint64_t v, int armed)
{
    if (v != 0) {
        temu_store_add(s, idx, v, armed);
    }
}

/* Where the updates of one injection go: the store (rec == NULL; armed as
 * loaded for this injection), or a memo entry being recorded.  Both are
 * compile-time constants in every inlined copy of the apply functions. */
typedef struct sink {
    temu_session *s;
    int armed;
    temu_memo_entry *rec;
} sink;

static TEMU_ALWAYS_INLINE void put(sink *k, int64_t idx, uint64_t v)
{
    if (v == 0) {
        return;
    }
    if (k->rec == NULL) {
        temu_store_add(k->s, idx, v, k->armed);
    } else if (k->rec->n >= 0 && k->rec->n < TEMU_MEMO_MAX) {
        k->rec->u[k->rec->n].idx = idx;
        k->rec->u[k->rec->n].delta = v;
        k->rec->n++;
    } else {
        k->rec->n = -1; /* too many: not kept */
    }
}

/* Nonzero tile updates of one direction, precomputed for links of 8 and of
 * 4 tiles so every hop is a short loop of atomic adds. */
typedef struct tile_update {
    int32_t position; /* index into the link's tile list */
    int32_t vc;
    uint64_t phits;
    uint64_t pkts;
} tile_update;

typedef struct tile_updates {
    int n;
    tile_update u[2 * TEMU_SLOTS];
} tile_updates;

/* Links have 8 or 4 tiles (both powers of two): slot k of a plan lands on
 * position (base + k) mod T.  Build both update lists in one pass. */
static void fold_updates(const temu_plan *p, int dir, tile_updates *u8, tile_updates *u4)
{
    uint32_t base = p->gemini_slot_base;
    u8->n = 0;
    u4->n = 0;
    for (int vc = 0; vc < 2; vc++) {
        const uint64_t *ph = p->phits[dir][vc], *pk = p->pkts[dir][vc];
        for (int k = 0; k < TEMU_SLOTS; k++) {
            if (pk[k] != 0) {
                tile_update *t = &u8->u[u8->n++];
                t->position = (int32_t)((base + (uint32_t)k) & 7u);
                t->vc = vc;
                t->phits = ph[k];
                t->pkts = pk[k];
            }
        }
        for (int k = 0; k < 4; k++) {
            if (pk[k] + pk[k + 4] != 0) {
                tile_update *t = &u4->u[u4->n++];
                t->position = (int32_t)((base + (uint32_t)k) & 3u);
                t->vc = vc;
                t->phits = ph[k] + ph[k + 4];
                t->pkts = pk[k] + pk[k + 4];
            }
        }
    }
}

typedef temu_link_tiles link_tiles;

static TEMU_ALWAYS_INLINE void credit_tiles(sink *k, int64_t router, const link_tiles *lt,
                                            const tile_updates *u)
{
    int64_t base = router * TEMU_GEMINI_TILES * TEMU_GEMINI_TILE_COUNTERS;
    for (int i = 0; i < u->n; i++) {
        const tile_update *t = &u->u[i];
        int64_t c = base + lt->tile[t->position] * TEMU_GEMINI_TILE_COUNTERS;
        put(k, c + TEMU_TILE_VC0_PHITS + t->vc, t->phits);
        put(k, c + TEMU_TILE_VC0_PKTS + t->vc, t->pkts);
    }
}

static int plan_dir_empty(const temu_plan *p, int dir)
{
    for (int vc = 0; vc < TEMU_BGQ_VCS; vc++) {
        if (p->packets[dir][vc] != 0) {
            return 0;
        }
    }
    for (int vc = 0; vc < 2; vc++) {
        for (int k = 0; k < TEMU_SLOTS; k++) {
            if (p->pkts[dir][vc][k] != 0) {
                return 0;
            }
        }
    }
    return 1;
}

static TEMU_ALWAYS_INLINE void apply_gemini(sink *k, const temu_machine *m, const temu_message *msg,
                                            const temu_plan *p)
{
    const link_tiles *lt = temu_gemini_tile_lists();
    int64_t ends[2] = {temu_node_router(m, msg->src), temu_node_router(m, msg->dst)};
    temu_hop hops[TEMU_MAX_HOPS];

    for (int dir = 0; dir < 2; dir++) {
        tile_updates u8, u4;
        if (plan_dir_empty(p, dir)) {
            continue;
        }
        fold_updates(p, dir, &u8, &u4);
        credit_tiles(k, ends[dir], &lt[6], &u8); /* host tiles of the injecting Gemini */
        int n = temu_route(m, ends[dir], ends[1 - dir], hops, TEMU_MAX_HOPS);
        for (int h = 0; h < n; h++) {
            const link_tiles *in = &lt[hops[h].in_link];
            credit_tiles(k, hops[h].to, in, in->n == 4 ? &u4 : &u8);
        }
    }
    for (int side = 0; side < 2; side++) {
        int64_t node = side == 0 ? msg->src : msg->dst;
        int64_t idx = k->s->gemini_nic_base + node * TEMU_NIC_COUNTERS;
        for (int c = 0; c < TEMU_NIC_COUNTERS; c++) {
            put(k, idx + c, p->nic[side][c]);
        }
    }
}

static TEMU_ALWAYS_INLINE void apply_bgq(sink *k, const temu_machine *m, const temu_message *msg,
                                         const temu_plan *p)
{
    int64_t ends[2] = {msg->src, msg->dst};
    temu_hop hops[TEMU_MAX_HOPS];
    const int64_t per_link = TEMU_BGQ_NW_KINDS * TEMU_BGQ_VCS;

    for (int dir = 0; dir < 2; dir++) {
        if (plan_dir_empty(p, dir)) {
            continue;
        }
        int n = temu_route(m, ends[dir], ends[1 - dir], hops, TEMU_MAX_HOPS);
        for (int h = 0; h < n; h++) {
            int64_t out = (hops[h].from * TEMU_BGQ_LINKS + hops[h].link) * per_link +
                          TEMU_BGQ_NW_SENT_CHUNKS * TEMU_BGQ_VCS;
            int64_t in = (hops[h].to * TEMU_BGQ_LINKS + hops[h].in_link) * per_link +
                         TEMU_BGQ_NW_RECV_PACKETS * TEMU_BGQ_VCS;
            for (int vc = 0; vc < TEMU_BGQ_VCS; vc++) {
                put(k, out + vc, p->chunks[dir][vc]);
                put(k, in + vc, p->packets[dir][vc]);
            }
        }
    }
    for (int side = 0; side < 2; side++) {
        int64_t idx = k->s->bgq_mu_base + ends[side] * TEMU_BGQ_MU_COUNTERS;
        for (int c = 0; c < TEMU_MU_MODELLED; c++) {
            put(k, idx + c, p->mu[side][c]);
        }
        /* MU line accesses counted as L2 hits (counter 0) of their slice */
        int64_t l2 = k->s->bgq_l2_base + ends[side] * TEMU_BGQ_L2_SLICES * TEMU_BGQ_L2_COUNTERS;
        for (int sl = 0; sl < TEMU_BGQ_L2_SLICES; sl++) {
            put(k, l2 + (int64_t)sl * TEMU_BGQ_L2_COUNTERS, p->l2_hits[side][sl]);
        }
    }
}

static TEMU_ALWAYS_INLINE void apply_bgp(sink *k, const temu_machine *m, const temu_message *msg,
                                         const temu_plan *p)
{
    int64_t ends[2] = {msg->src, msg->dst};
    temu_hop hops[TEMU_MAX_HOPS];

    for (int dir = 0; dir < 2; dir++) {
        uint64_t packets = 0, chunks = 0;
        for (int vc = 0; vc < 4; vc++) {
            packets += p->packets[dir][vc];
            chunks += p->chunks[dir][vc];
        }
        if (packets == 0) {
            continue;
        }
        int n = temu_route(m, ends[dir], ends[1 - dir], hops, TEMU_MAX_HOPS);
        for (int h = 0; h < n; h++) {
            /* temu_idx_bgp of counter 0, the section at the start of the store */
            int64_t out = (hops[h].from * TEMU_BGP_LINKS + hops[h].link) * TEMU_BGP_COUNTERS;
            int64_t back = (hops[h].to * TEMU_BGP_LINKS + hops[h].in_link) * TEMU_BGP_COUNTERS;
            put(k, out + TEMU_BGP_PACKETS, packets);
            put(k, out + TEMU_BGP_CHUNKS, chunks);
            for (int vc = 0; vc < 4; vc++) {
                put(k, out + TEMU_BGP_VCD0_CHUNKS + vc, p->chunks[dir][vc]);
            }
            put(k, back + TEMU_BGP_TOKEN_ACK_PACKETS, packets);
            put(k, back + TEMU_BGP_ACKS, packets);
        }
    }
}

/* Each family's counter placement (family.h, temu_apply_ops), compiled
 * three times with constant sinks: the copy for an unwatched store carries
 * no per-update watch test at all, the recording copy touches no counter. */
#define APPLY_OPS(family)                                                                          \
    static void family##_store(temu_session *s, const temu_message *msg, const temu_plan *p)       \
    {                                                                                              \
        sink k = {s, 0, NULL};                                                                     \
        apply_##family(&k, &s->machine, msg, p);                                                   \
    }                                                                                              \
    static void family##_watched(temu_session *s, const temu_message *msg, const temu_plan *p)     \
    {                                                                                              \
        sink k = {s, 1, NULL};                                                                     \
        apply_##family(&k, &s->machine, msg, p);                                                   \
    }                                                                                              \
    static void family##_record(temu_session *s, temu_memo_entry *e, const temu_message *msg,      \
                                const temu_plan *p)                                                \
    {                                                                                              \
        sink k = {s, 0, e};                                                                        \
        if (e != NULL) { /* known to the compiler: no store update in this copy */                 \
            apply_##family(&k, &s->machine, msg, p);                                               \
        }                                                                                          \
    }                                                                                              \
    const temu_apply_ops temu_apply_##family = {family##_store, family##_watched, family##_record}

APPLY_OPS(gemini);
APPLY_OPS(bgq);
APPLY_OPS(bgp);

void temu_count_message(temu_session *s, const temu_message *msg)
{
    __atomic_fetch_add(&s->hdr->messages, 1, __ATOMIC_RELAXED);
    __atomic_fetch_add(&s->hdr->bytes, msg->bytes, __ATOMIC_RELAXED);
}

void temu_apply_plan(temu_session *s, const temu_message *msg, const temu_plan *p)
{
    if (TEMU_UNLIKELY(s->readonly)) {
        return;
    }
    int armed = temu_store_armed(s);
    temu_count_message(s, msg);
    if (p->local) {
        return;
    }
    if (TEMU_LIKELY(!armed)) {
        s->family->apply->store(s, msg, p);
    } else {
        s->family->apply->watched(s, msg, p);
        temu_watch_flush(s); /* slow watches signal after the whole message landed */
    }
}

/* Replay a recorded injection: the same updates in the same order, with
 * the same watch tests and flush as temu_apply_plan. */
static void apply_memo(temu_session *s, const temu_message *msg, const temu_memo_entry *e)
{
    int armed = temu_store_armed(s);
    temu_count_message(s, msg);
    if (TEMU_LIKELY(!armed)) {
        for (int i = 0; i < e->n; i++) {
            temu_store_add(s, e->u[i].idx, e->u[i].delta, 0);
        }
    } else {
        for (int i = 0; i < e->n; i++) {
            temu_store_add(s, e->u[i].idx, e->u[i].delta, 1);
        }
        temu_watch_flush(s);
    }
}

/* The memo entry for msg, recorded now if this thread has not seen the
 * message yet; NULL when the message cannot be kept (memo.c). */
static const temu_memo_entry *memo_lookup(temu_session *s, const temu_message *msg)
{
    uint64_t key;
    temu_plan plan;
    const temu_machine *m = &s->machine;
    if (!temu_plan_payload_key(s->family, m, msg, &key)) {
        return NULL;
    }
    temu_memo_entry *e = temu_memo_slot(s->serial, msg, key);
    if (e == NULL) {
        return NULL;
    }
    if (e->serial == s->serial && e->dst == msg->dst && e->src == msg->src &&
        e->bytes == msg->bytes && e->key == key && e->kind == (int32_t)msg->kind) {
        return e->n >= 0 ? e : NULL;
    }
    if (temu_plan_message(m, msg, &plan, NULL) != TEMU_OK) {
        return NULL;
    }
    e->serial = s->serial;
    e->src = msg->src;
    e->dst = msg->dst;
    e->bytes = msg->bytes;
    e->key = key;
    e->kind = (int32_t)msg->kind;
    e->n = 0;
    if (!plan.local) {
        s->family->apply->record(s, e, msg, &plan);
    }
    return e->n >= 0 ? e : NULL;
}

temu_status temu_inject(temu_session *s, const temu_message *msg, temu_error *err)
{
    temu_plan plan;
    if (s->readonly) {
        return temu_fail(err, TEMU_EINVAL, "cannot inject into a session attached read-only");
    }
    if (TEMU_LIKELY(!temu_memo_busy)) {
        temu_memo_busy = 1;
        __atomic_signal_fence(__ATOMIC_SEQ_CST); /* seen by a handler on this thread */
        const temu_memo_entry *e = memo_lookup(s, msg);
        if (e != NULL) {
            apply_memo(s, msg, e);
        }
        __atomic_signal_fence(__ATOMIC_SEQ_CST);
        temu_memo_busy = 0;
        if (e != NULL) {
            return TEMU_OK;
        }
    }
    temu_status rc = temu_plan_message(&s->machine, msg, &plan, err);
    if (rc != TEMU_OK) {
        return rc;
    }
    temu_apply_plan(s, msg, &plan);
    return TEMU_OK;
}

/* One BG/Q endpoint: message-unit and L2 counts of side `side` of a plan. */
static void tree_endpoint(temu_session *s, int64_t node, const temu_plan *p, int side, int armed)
{
    int64_t mu = s->bgq_mu_base + node * TEMU_BGQ_MU_COUNTERS;
    int64_t l2 = s->bgq_l2_base + node * TEMU_BGQ_L2_SLICES * TEMU_BGQ_L2_COUNTERS;
    for (int c = 0; c < TEMU_MU_MODELLED; c++) {
        add(s, mu + c, p->mu[side][c], armed);
    }
    for (int k = 0; k < TEMU_BGQ_L2_SLICES; k++) {
        add(s, l2 + (int64_t)k * TEMU_BGQ_L2_COUNTERS, p->l2_hits[side][k], armed);
    }
}

temu_status temu_inject_tree(temu_session *s, uint64_t bytes, temu_kind kind, const temu_hop *edges,
                             int nedges, const int64_t *inj, int ninj, const int64_t *rcv, int nrcv,
                             temu_error *err)
{
    const temu_machine *m = &s->machine;
    const int64_t per_link = TEMU_BGQ_NW_KINDS * TEMU_BGQ_VCS;
    temu_plan p;
    temu_status rc;
    if (s->family->info.collnet != TEMU_COLLNET_CLASS_ROUTES) {
        return temu_fail(err, TEMU_EINVAL, "tree traffic exists only on Blue Gene/Q machines");
    }
    if (s->readonly) {
        return temu_fail(err, TEMU_EINVAL, "cannot inject into a session attached read-only");
    }
    if (nedges <= 0) {
        return TEMU_OK; /* every member on one node: shared memory */
    }
    /* the traffic of one hop of the data, and the endpoint counts of
     * injecting / receiving it (doc/model.md) */
    temu_message msg = {edges[0].from, edges[0].to, bytes, NULL, kind};
    rc = temu_plan_message(m, &msg, &p, err);
    if (rc != TEMU_OK) {
        return rc;
    }
    int armed = temu_store_armed(s);
    for (int e = 0; e < nedges; e++) {
        int64_t out = (edges[e].from * TEMU_BGQ_LINKS + edges[e].link) * per_link +
                      TEMU_BGQ_NW_SENT_CHUNKS * TEMU_BGQ_VCS;
        int64_t in = (edges[e].to * TEMU_BGQ_LINKS + edges[e].in_link) * per_link +
                     TEMU_BGQ_NW_RECV_PACKETS * TEMU_BGQ_VCS;
        for (int vc = 0; vc < TEMU_BGQ_VCS; vc++) {
            add(s, out + vc, p.chunks[0][vc], armed);
            add(s, in + vc, p.packets[0][vc], armed);
        }
    }
    for (int i = 0; i < ninj; i++) {
        tree_endpoint(s, inj[i], &p, 0, armed);
    }
    for (int i = 0; i < nrcv; i++) {
        tree_endpoint(s, rcv[i], &p, 1, armed);
    }
    __atomic_fetch_add(&s->hdr->messages, (uint64_t)ninj, __ATOMIC_RELAXED);
    __atomic_fetch_add(&s->hdr->bytes, (uint64_t)ninj * bytes, __ATOMIC_RELAXED);
    if (armed) {
        temu_watch_flush(s);
    }
    return TEMU_OK;
}

temu_status temu_inject_ranks(temu_session *s, int32_t src_rank, int32_t dst_rank, uint64_t bytes,
                              const void *payload, temu_kind kind, temu_error *err)
{
    temu_message msg;
    int32_t n = s->nranks;
    if (src_rank < 0 || src_rank >= n || dst_rank < 0 || dst_rank >= n) {
        return temu_fail(err, TEMU_ERANGE, "ranks %d -> %d: the session has ranks 0..%d", src_rank,
                         dst_rank, n - 1);
    }
    msg.src = s->mapping[src_rank].node;
    msg.dst = s->mapping[dst_rank].node;
    msg.bytes = bytes;
    msg.payload = payload;
    msg.kind = kind;
    return temu_inject(s, &msg, err);
}
