/*
 * timing_bridge.c - between the volume model and the timing model.
 *
 * temu_tm_send_message turns a message into the packets the volume model
 * counts (temu_plan_message), so the timing model moves exactly the bytes
 * and packets the volume counters show, on the same tiles.
 * temu_tm_add_stall_counters writes the model's stall times into the
 * counter store in the unit the hardware counted.
 */
#define TEMU_BUILDING_LIBRARY 1
#include "emu_internal.h"
#include "model.h"
#include "torusemu_timing.h"

#include <stdlib.h>
#include <string.h>

/* The family's figures: its unit of packet size (Gemini phits of 3 bytes,
 * Blue Gene chunks of 32: info.unit_bytes) and the clocks its stall
 * counters count (info.router_hz: Gemini router 800 MHz, BG/P 850 MHz,
 * BG/Q network 500 MHz; info.mu_hz: BG/Q message unit 800 MHz), each as
 * whole cycles (temu_clock_cycles, the floor). */
static const temu_family_info *family_info(const temu_machine *m)
{
    return &temu_machine_family(m)->info;
}

typedef struct bucket {
    uint64_t pkts, units; /* packets left and their size units (phits or chunks) */
} bucket;

/* What a direction of a message put into the model: packets and wire
 * bytes, and the tag they carry. */
typedef struct sent {
    uint64_t tag, packets, bytes;
} sent;

/* BG/Q: the message unit's memory requests of a direction's packets (the
 * volume model's counts, plan.c mu_packet_io): payload reads at the
 * injecting node, stores at the receiving one, spread evenly over all the
 * direction's packets (the model's packets are an even split of each
 * bucket, so which packet is which is not known). */
typedef struct mu_requests {
    uint64_t reads, writes, packets;
} mu_requests;

static mu_requests mu_requests_of(const temu_machine *m, const temu_plan *plan, int dir)
{
    mu_requests r = {0, 0, 0};
    if (family_info(m)->mu_hz != 0) { /* a message unit (BG/Q) */
        const uint64_t *in = plan->mu[dir], *out = plan->mu[1 - dir];
        r.reads = in[TEMU_MU_PORT0_32B_RD] + in[TEMU_MU_PORT0_64B_RD] + in[TEMU_MU_PORT0_128B_RD];
        r.writes = out[TEMU_MU_PORT0_16B_WRT];
        for (int vc = 0; vc < TEMU_BGQ_VCS; vc++) {
            r.packets += plan->packets[dir][vc];
        }
    }
    return r;
}

/* Send the next min(train, left) packets of a bucket: its units split
 * evenly over its packets (the plan keeps totals, not each packet's size),
 * the larger ones first.  rr: the buckets are taken in turn (Gemini's
 * slots). */
static temu_status send_some(const temu_model_sender *to, int64_t when, int64_t src, int64_t dst,
                             bucket *b, uint32_t train, uint32_t unit, uint32_t cls,
                             uint32_t lane_key, int rr, const mu_requests *mu, sent *out,
                             temu_error *err)
{
    uint64_t m = b->pkts < train ? b->pkts : train;
    uint64_t units = temu_even_share(b->units, b->pkts, 0, m); /* the larger packets first */
    uint64_t reads = 0, writes = 0;
    /* a level that cuts whole buckets into trains itself takes the
     * message's later buckets in turn with the earlier ones */
    uint32_t turns = rr && out->packets > 0 ? 1 : 0;
    if (mu->packets > 0) {
        reads = temu_even_share(mu->reads, mu->packets, out->packets, m);
        writes = temu_even_share(mu->writes, mu->packets, out->packets, m);
    }
    b->units -= units;
    b->pkts -= m;
    out->packets += m;
    out->bytes += units * unit;
    temu_model_units u = {when,     src,   dst,  m,      units, unit, cls,
                          lane_key, out->tag, reads, writes, turns};
    return to->send(to->model, &u, err);
}

/* The packets of direction dir of a planned message (0: source to
 * destination, 1: destination to source), train_packets of each bucket in
 * turn. */
static temu_status send_dir(const temu_model_sender *to, int64_t when_ps, const temu_machine *m,
                            const temu_message *msg, const temu_plan *plan, int dir, sent *out,
                            temu_error *err)
{
    temu_status st = TEMU_OK;
    const temu_family_info *fi = family_info(m);
    int64_t src = dir == 0 ? msg->src : msg->dst, dst = dir == 0 ? msg->dst : msg->src;
    mu_requests mu = mu_requests_of(m, plan, dir);
    uint32_t train = to->train > 1 ? to->train : 1;
    if (fi->tiles != 0) {
        /* tiles (Gemini): transaction j is in slot j mod 8; slot k uses tile position
         * (base + k) mod T of every link (doc/model.md) */
        bucket b[2][TEMU_SLOTS];
        int left = 1;
        for (int vc = 0; vc < 2; vc++) {
            for (int k = 0; k < TEMU_SLOTS; k++) {
                b[vc][k].pkts = plan->pkts[dir][vc][k];
                b[vc][k].units = plan->phits[dir][vc][k];
            }
        }
        while (left && st == TEMU_OK) {
            left = 0;
            for (int k = 0; k < TEMU_SLOTS && st == TEMU_OK; k++) {
                for (int vc = 0; vc < 2 && st == TEMU_OK; vc++) {
                    if (b[vc][k].pkts > 0) {
                        st = send_some(to, when_ps, src, dst, &b[vc][k], train, fi->unit_bytes,
                                       (uint32_t)vc, plan->gemini_slot_base + (uint32_t)k, 1, &mu,
                                       out, err);
                        left = 1;
                    }
                }
            }
        }
    } else {
        for (int vc = 0; vc < TEMU_BGQ_VCS && st == TEMU_OK; vc++) {
            bucket b = {plan->packets[dir][vc], plan->chunks[dir][vc]};
            while (b.pkts > 0 && st == TEMU_OK) {
                st = send_some(to, when_ps, src, dst, &b, train, fi->unit_bytes, (uint32_t)vc, 0,
                               0, &mu, out, err);
            }
        }
    }
    return st;
}

/* The packet model as a sender: whole buckets, its even split. */
static temu_status packet_send(void *model, const temu_model_units *u, temu_error *err)
{
    return temu_tm_send_even_mu(model, u->when_ps, u->src, u->dst, (uint32_t)u->count, u->units,
                                u->unit_bytes, u->cls, u->lane_key, u->tag, u->reads, u->writes,
                                (int)u->turns, err);
}

static temu_model_sender packet_sender(temu_tm *t)
{
    /* whole buckets: the model cuts them into trains as their injection
     * channel takes them (emu/packet/train.h) */
    return (temu_model_sender){t, UINT32_MAX, packet_send};
}

/* Both directions of a planned message, untagged. */
static temu_status send_plan(temu_tm *t, int64_t when_ps, const temu_machine *m,
                             const temu_message *msg, const temu_plan *plan, temu_error *err)
{
    temu_status st = TEMU_OK;
    temu_model_sender to = packet_sender(t);
    for (int dir = 0; dir < 2 && st == TEMU_OK; dir++) {
        sent out = {0, 0, 0};
        st = send_dir(&to, when_ps, m, msg, plan, dir, &out, err);
    }
    return st;
}

temu_status temu_tm_send_message(temu_tm *t, int64_t when_ps, const temu_machine *m,
                                 const temu_message *msg, temu_error *err)
{
    temu_plan plan;
    temu_status st = temu_plan_message(m, msg, &plan, err);
    if (st != TEMU_OK || plan.local) {
        return st;
    }
    return send_plan(t, when_ps, m, msg, &plan, err);
}

temu_status temu_model_send_message_dir(const temu_model_sender *to, int64_t when_ps,
                                        const temu_machine *m, const temu_message *msg, int dir,
                                        uint64_t tag, uint64_t *packets, uint64_t *bytes,
                                        temu_error *err)
{
    temu_plan plan;
    sent out = {tag, 0, 0};
    temu_status st = temu_plan_message(m, msg, &plan, err);
    if (st == TEMU_OK && (dir < 0 || dir > 1)) {
        st = temu_fail(err, TEMU_EINVAL, "timing model: message direction %d (0 or 1)", dir);
    }
    if (st == TEMU_OK && !plan.local) {
        st = send_dir(to, when_ps, m, msg, &plan, dir, &out, err);
    }
    *packets = out.packets;
    *bytes = out.bytes;
    return st;
}

temu_status temu_tm_send_message_dir(temu_tm *t, int64_t when_ps, const temu_machine *m,
                                     const temu_message *msg, int dir, uint64_t tag,
                                     uint64_t *packets, uint64_t *bytes, temu_error *err)
{
    temu_model_sender to = packet_sender(t);
    return temu_model_send_message_dir(&to, when_ps, m, msg, dir, tag, packets, bytes, err);
}

void temu_tm_plan_without_adaptive(const temu_tm *t, const temu_machine *m, temu_plan *plan)
{
    uint32_t adaptive = temu_tm_adaptive_classes(t);
    /* per-VC buckets (Blue Gene); Gemini's tiled slots are never adaptive */
    for (int dir = 0; dir < 2 && family_info(m)->tiles == 0; dir++) {
        for (int vc = 0; vc < TEMU_BGQ_VCS; vc++) {
            if (adaptive >> vc & 1u) {
                plan->packets[dir][vc] = 0;
                plan->chunks[dir][vc] = 0;
            }
        }
    }
}

temu_status temu_tm_inject_message(temu_tm *t, temu_session *s, int64_t when_ps,
                                   const temu_message *msg, temu_error *err)
{
    const temu_machine *m = temu_session_machine(s);
    temu_plan plan, links;
    temu_status st = temu_plan_message(m, msg, &plan, err);
    if (st != TEMU_OK) {
        return st;
    }
    /* the store gets everything but the adaptive classes' link traffic,
     * whose links the route counters add once they are known */
    links = plan;
    temu_tm_plan_without_adaptive(t, m, &links);
    temu_apply_plan(s, msg, &links);
    return plan.local ? TEMU_OK : send_plan(t, when_ps, m, msg, &plan, err);
}

/* Values already added to the store, per link and counter: the floor of
 * the link's cumulative total in the counter's unit, so the store gets
 * differences of floors and any series of flushes sums to one final
 * flush.  LINK_SLOTS counters per link: Gemini two per tile lane (credit,
 * inq); BG/Q receive FIFO per VC (0..7), adaptive chunks sent per VC
 * (8..15), packets received per VC (16..23); BG/P the no-token counters
 * (0..3), adaptive chunks per VC (8..11), packets, chunks, token-ack
 * packets and acks (12..15). */
#define LINK_SLOTS 24
_Static_assert(TEMU_BGQ_VCS <= 8, "eight flushed slots per BG/Q VC counter");

/* Gemini's host tiles (the host link's 8), one flushed slot each per node */
#define HOST_SLOTS 8

enum { SLOT_BGQ_SENT = 8, SLOT_BGQ_RECV = 16, SLOT_BGP_VC_CHUNKS = 8, SLOT_BGP_LINK = 12 };

struct temu_tm_flushed {
    int64_t nrouters, nnodes;
    int tlinks;
    uint64_t *done;      /* [router][link][slot] */
    uint64_t *done_mu;   /* BG/Q: [node][0 reads, 1 writes] pending-request cycles */
    uint64_t *done_host; /* Gemini: [node][host tile slot] inq stall cycles */
};

temu_status temu_tm_flushed_create(const temu_machine *m, temu_tm_flushed **out, temu_error *err)
{
    temu_tm_flushed *f = calloc(1, sizeof *f);
    *out = NULL;
    if (f != NULL) {
        f->nrouters = m->nrouters;
        f->tlinks = 2 * m->ndims;
        f->nnodes = m->nnodes;
        f->done = calloc((size_t)(m->nrouters * f->tlinks) * LINK_SLOTS, sizeof *f->done);
        f->done_mu = calloc((size_t)(2 * m->nnodes), sizeof *f->done_mu);
        if (m->system == TEMU_SYSTEM_GEMINI) {
            f->done_host = calloc((size_t)(HOST_SLOTS * m->nnodes), sizeof *f->done_host);
        }
    }
    if (f == NULL || f->done == NULL || f->done_mu == NULL ||
        (m->system == TEMU_SYSTEM_GEMINI && f->done_host == NULL)) {
        temu_tm_flushed_free(f);
        return temu_fail(err, TEMU_ENOMEM, "timing model: out of memory for counter flushes");
    }
    *out = f;
    return TEMU_OK;
}

void temu_tm_flushed_free(temu_tm_flushed *f)
{
    if (f != NULL) {
        free(f->done);
        free(f->done_mu);
        free(f->done_host);
        free(f);
    }
}

/* Add total (so far) minus what link (r, l)'s slot already added to
 * counter idx. */
static void add_since(temu_session *s, temu_tm_flushed *f, int64_t r, int l, int slot, size_t idx,
                      uint64_t total)
{
    uint64_t *d = &f->done[((size_t)r * (size_t)f->tlinks + (size_t)l) * LINK_SLOTS + (size_t)slot];
    if (total > *d) {
        temu_counter_add(s, idx, total - *d);
        *d = total;
    }
}

/* A level's figures where it has them; zero where it has none (NULL):
 * its counters then stay 0. */
static temu_status stats_vc(const temu_model_stats *src, int64_t r, int l, int lane, uint32_t vc,
                            temu_tm_vc_stats *out, temu_error *err)
{
    memset(out, 0, sizeof *out);
    return src->vc != NULL ? src->vc(src->model, r, l, lane, vc, out, err) : TEMU_OK;
}

static temu_status stats_occupancy(const temu_model_stats *src, int64_t r, int l, int lane,
                                   uint32_t cls, int64_t *packet_ps, temu_error *err)
{
    *packet_ps = 0;
    return src->occupancy != NULL ? src->occupancy(src->model, r, l, lane, cls, packet_ps, err)
                                  : TEMU_OK;
}

static temu_status stats_mu_pending(const temu_model_stats *src, int64_t node, int64_t *read_ps,
                                    int64_t *write_ps, temu_error *err)
{
    *read_ps = *write_ps = 0;
    return src->mu_pending != NULL ? src->mu_pending(src->model, node, read_ps, write_ps, err)
                                   : TEMU_OK;
}

/* Gemini: credit stall on the sending tile, inq stall on the receiving one
 * (seed 000 L190, L216). */
static temu_status gemini_counters(const temu_model_stats *src, temu_session *s, temu_tm_flushed *f,
                                   const temu_machine *m, int64_t r, int l, temu_error *err)
{
    int tiles[8];
    int n = src->lanes(src->model, r, l);
    int64_t peer = temu_link_neighbor(m, r, l);
    temu_gemini_link_tiles(l, tiles);
    for (int k = 0; k < n; k++) {
        temu_tm_lane_stats ls;
        temu_status st = src->lane(src->model, r, l, k, &ls, err);
        if (st != TEMU_OK) {
            return st;
        }
        add_since(s, f, r, l, 2 * k, temu_idx_gemini_tile(m, r, tiles[k], TEMU_TILE_CREDIT_STALL),
                  temu_clock_cycles(family_info(m)->router_hz, ls.credit_stall_ps));
        add_since(
            s, f, r, l, 2 * k + 1,
            temu_idx_gemini_tile(m, peer, temu_gemini_peer_tile(tiles[k]), TEMU_TILE_INQ_STALL),
            temu_clock_cycles(family_info(m)->router_hz, ls.inq_stall_ps));
    }
    return TEMU_OK;
}

/* Gemini: the input stall of each node's injection on the host tile of
 * each slot (the tile the volume model counts the slot's packets on,
 * emu/crossing.c), summed over the Gemini's two nodes (seed 000 section
 * VI, Fig. 7a: host links stall on input under congestion). */
static temu_status gemini_host_counters(const temu_model_stats *src, temu_session *s,
                                        temu_tm_flushed *f, temu_error *err)
{
    const temu_machine *m = temu_session_machine(s);
    const temu_link_tiles *host = &temu_gemini_tile_lists()[2 * m->ndims];
    if (src->host_inq == NULL) {
        return TEMU_OK;
    }
    for (int64_t n = 0; n < f->nnodes; n++) {
        for (int k = 0; k < HOST_SLOTS; k++) {
            int64_t ps;
            temu_status st = src->host_inq(src->model, n, k, &ps, err);
            if (st != TEMU_OK) {
                return st;
            }
            uint64_t total = temu_clock_cycles(family_info(m)->router_hz, ps);
            uint64_t *d = &f->done_host[n * HOST_SLOTS + k];
            if (total > *d) {
                temu_counter_add(s,
                                 temu_idx_gemini_tile(m, temu_node_router(m, n), host->tile[k],
                                                      TEMU_TILE_INQ_STALL),
                                 total - *d);
                *d = total;
            }
        }
    }
    return TEMU_OK;
}

/* BG/Q: receive-FIFO occupancy of the receiving node's incoming link
 * (the link on that node it arrives through), per VC. */
static temu_status bgq_counters(const temu_model_stats *src, temu_session *s, temu_tm_flushed *f,
                                const temu_machine *m, int64_t r, int l, temu_error *err)
{
    int64_t peer = temu_link_neighbor(m, r, l);
    for (int vc = 0; vc < TEMU_BGQ_VCS; vc++) {
        int64_t occ;
        temu_status st = stats_occupancy(src, r, l, 0, (uint32_t)vc, &occ, err);
        if (st != TEMU_OK) {
            return st;
        }
        add_since(s, f, r, l, vc, temu_idx_bgq_nw(m, peer, l ^ 1, TEMU_BGQ_NW_RECV_FIFO, vc),
                  temu_clock_cycles(family_info(m)->router_hz, occ));
    }
    return TEMU_OK;
}

/* BG/Q message unit of every node: pending read and write requests summed
 * per 800 MHz cycle, all on master port 0 (as the volume model puts the
 * requests themselves; doc/model.md, "Message-unit pending requests"). */
static temu_status bgq_mu_counters(const temu_model_stats *src, temu_session *s, temu_tm_flushed *f,
                                   temu_error *err)
{
    uint64_t hz = family_info(temu_session_machine(s))->mu_hz;
    static const int index[2] = {TEMU_MU_PORT0_PEND_RD, TEMU_MU_PORT0_PEND_WRT};
    for (int64_t n = 0; n < f->nnodes; n++) {
        int64_t ps[2];
        temu_status st = stats_mu_pending(src, n, &ps[0], &ps[1], err);
        if (st != TEMU_OK) {
            return st;
        }
        for (int k = 0; k < 2; k++) {
            uint64_t total = temu_clock_cycles(hz, ps[k]), *d = &f->done_mu[2 * n + k];
            if (total > *d) {
                temu_counter_add(s, s->bgq_mu_base + n * TEMU_BGQ_MU_COUNTERS + index[k],
                                 total - *d);
                *d = total;
            }
        }
    }
    return TEMU_OK;
}

/* BG/P: no-token cycles of the sending direction.  NO_TOKENS: the link was
 * free and an adaptively routed packet waited for it with no dynamic VC
 * (VCD0 or VCD1) holding tokens for it; NO_VCD0/VCBN/VCBP_TOKENS: a packet
 * waiting for the free link needed tokens of that VC and there were too
 * few (Lakner 2008, Table 6-3, mode 2 counters 134-137). */
static temu_status bgp_counters(const temu_model_stats *src, temu_session *s, temu_tm_flushed *f,
                                const temu_machine *m, int64_t r, int l, temu_error *err)
{
    static const struct {
        int vc, counter;
    } per_vc[] = {
        {0, TEMU_BGP_NO_VCD0_TOKENS}, {2, TEMU_BGP_NO_VCBN_TOKENS}, {3, TEMU_BGP_NO_VCBP_TOKENS}};
    temu_tm_lane_stats ls;
    temu_status st = src->lane(src->model, r, l, 0, &ls, err);
    if (st != TEMU_OK) {
        return st;
    }
    add_since(s, f, r, l, 0, temu_idx_bgp(m, r, l, TEMU_BGP_NO_TOKENS),
              temu_clock_cycles(family_info(m)->router_hz, ls.no_dynamic_ps));
    for (int i = 0; i < (int)(sizeof per_vc / sizeof per_vc[0]); i++) {
        temu_tm_vc_stats vs;
        st = stats_vc(src, r, l, 0, (uint32_t)per_vc[i].vc, &vs, err);
        if (st != TEMU_OK) {
            return st;
        }
        add_since(s, f, r, l, 1 + i, temu_idx_bgp(m, r, l, per_vc[i].counter),
                  temu_clock_cycles(family_info(m)->router_hz, vs.no_token_ps));
    }
    return TEMU_OK;
}

/* The link counters of one lane's adaptively routed traffic, per VC, where
 * the volume model would have put them (inject.c): BG/P on the sending
 * direction, acknowledged on the receiver's direction back; BG/Q chunks on
 * the sending link, packets on the receiving one.  vc_counters places one
 * VC's chunks and packets, link_counters (NULL: none) the link's totals. */
typedef struct route_place {
    void (*vc_counters)(temu_session *s, temu_tm_flushed *f, const temu_machine *m, int64_t r,
                        int l, int64_t peer, int vc, uint64_t chunks, uint64_t packets);
    void (*link_counters)(temu_session *s, temu_tm_flushed *f, const temu_machine *m, int64_t r,
                          int l, int64_t peer, uint64_t chunks, uint64_t packets);
} route_place;

static void bgp_route_vc(temu_session *s, temu_tm_flushed *f, const temu_machine *m, int64_t r,
                         int l, int64_t peer, int vc, uint64_t chunks, uint64_t packets)
{
    (void)peer;
    (void)packets;
    add_since(s, f, r, l, SLOT_BGP_VC_CHUNKS + vc, temu_idx_bgp(m, r, l, TEMU_BGP_VCD0_CHUNKS + vc),
              chunks);
}

static void bgp_route_link(temu_session *s, temu_tm_flushed *f, const temu_machine *m, int64_t r,
                           int l, int64_t peer, uint64_t chunks, uint64_t packets)
{
    add_since(s, f, r, l, SLOT_BGP_LINK, temu_idx_bgp(m, r, l, TEMU_BGP_PACKETS), packets);
    add_since(s, f, r, l, SLOT_BGP_LINK + 1, temu_idx_bgp(m, r, l, TEMU_BGP_CHUNKS), chunks);
    add_since(s, f, r, l, SLOT_BGP_LINK + 2,
              temu_idx_bgp(m, peer, l ^ 1, TEMU_BGP_TOKEN_ACK_PACKETS), packets);
    add_since(s, f, r, l, SLOT_BGP_LINK + 3, temu_idx_bgp(m, peer, l ^ 1, TEMU_BGP_ACKS), packets);
}

static void bgq_route_vc(temu_session *s, temu_tm_flushed *f, const temu_machine *m, int64_t r,
                         int l, int64_t peer, int vc, uint64_t chunks, uint64_t packets)
{
    add_since(s, f, r, l, SLOT_BGQ_SENT + vc, temu_idx_bgq_nw(m, r, l, TEMU_BGQ_NW_SENT_CHUNKS, vc),
              chunks);
    add_since(s, f, r, l, SLOT_BGQ_RECV + vc,
              temu_idx_bgq_nw(m, peer, l ^ 1, TEMU_BGQ_NW_RECV_PACKETS, vc), packets);
}

static temu_status route_counters(const temu_model_stats *src, temu_session *s, temu_tm_flushed *f,
                                  const temu_machine *m, const route_place *place, int64_t r, int l,
                                  temu_error *err)
{
    const temu_family_info *fi = family_info(m);
    int64_t peer = temu_link_neighbor(m, r, l);
    uint64_t packets = 0, chunks = 0;
    for (int vc = 0; vc < (int)fi->vcs; vc++) {
        temu_tm_vc_stats vs;
        temu_status st = stats_vc(src, r, l, 0, (uint32_t)vc, &vs, err);
        if (st != TEMU_OK) {
            return st;
        }
        uint64_t ch = vs.adaptive_bytes / fi->unit_bytes;
        packets += vs.adaptive_packets;
        chunks += ch;
        place->vc_counters(s, f, m, r, l, peer, vc, ch, vs.adaptive_packets);
    }
    if (place->link_counters != NULL) {
        place->link_counters(s, f, m, r, l, peer, chunks, packets);
    }
    return TEMU_OK;
}

/* Where each family's timing-model counts land, by temu_system: its link
 * stall counters, its adaptively routed traffic (Gemini routes no class
 * adaptively: tm_params_check), and its node stall counters (NULL: none). */
typedef struct placement {
    temu_status (*stalls)(const temu_model_stats *src, temu_session *s, temu_tm_flushed *f,
                          const temu_machine *m, int64_t r, int l, temu_error *err);
    route_place routes;
    temu_status (*node_stalls)(const temu_model_stats *src, temu_session *s, temu_tm_flushed *f,
                               temu_error *err);
} placement;

static const placement placements[TEMU_FAMILIES + 1] = {
    [TEMU_SYSTEM_GEMINI] = {gemini_counters, {NULL, NULL}, gemini_host_counters},
    [TEMU_SYSTEM_BGP] = {bgp_counters, {bgp_route_vc, bgp_route_link}, NULL},
    [TEMU_SYSTEM_BGQ] = {bgq_counters, {bgq_route_vc, NULL}, bgq_mu_counters},
};

enum { PART_STALL = 1, PART_ROUTE = 2 };

/* Flush the parts asked for: stall counters, and the route counters of
 * the adaptively routed classes (none when no class is adaptive). */
static temu_status flush_parts(const temu_model_stats *src, temu_tm_flushed *f, temu_session *s,
                               int parts, temu_error *err)
{
    const temu_machine *m = temu_session_machine(s);
    temu_status st = src->check(src->model, err);
    if (st != TEMU_OK) {
        return st;
    }
    const placement *place = &placements[m->system]; /* a session's machine has a family */
    if (f->nrouters != m->nrouters || f->nnodes != m->nnodes || f->tlinks != 2 * m->ndims) {
        return temu_fail(err, TEMU_EINVAL, "timing model: counter flushes of another machine");
    }
    if (src->adaptive == 0) {
        parts &= ~PART_ROUTE;
    }
    if (!s->readonly) { /* which level's figures the counters hold (temu_tm_session_level) */
        __atomic_store_n(&s->hdr->model_level, src->level + 1, __ATOMIC_RELAXED);
    }
    for (int64_t r = 0; r < m->nrouters && st == TEMU_OK; r++) {
        for (int l = 0; l < 2 * m->ndims && st == TEMU_OK; l++) {
            if (src->lanes(src->model, r, l) == 0) {
                continue;
            }
            if (parts & PART_STALL) {
                st = place->stalls(src, s, f, m, r, l, err);
            }
            if (st == TEMU_OK && (parts & PART_ROUTE)) {
                st = route_counters(src, s, f, m, &place->routes, r, l, err);
            }
        }
    }
    if (st == TEMU_OK && (parts & PART_STALL) && place->node_stalls != NULL) {
        st = place->node_stalls(src, s, f, err);
    }
    return st;
}

/* ------------------------------------------- the packet model's figures */

static int packet_lanes(const void *model, int64_t router, int link)
{
    return temu_tm_lanes(model, router, link);
}

static temu_status packet_lane(const void *model, int64_t router, int link, int lane,
                               temu_tm_lane_stats *out, temu_error *err)
{
    return temu_tm_lane_stats_get(model, router, link, lane, out, err);
}

static temu_status packet_vc(const void *model, int64_t router, int link, int lane, uint32_t vc,
                             temu_tm_vc_stats *out, temu_error *err)
{
    return temu_tm_lane_vc_stats(model, router, link, lane, vc, out, err);
}

static temu_status packet_occupancy(const void *model, int64_t router, int link, int lane,
                                    uint32_t cls, int64_t *packet_ps, temu_error *err)
{
    return temu_tm_lane_occupancy(model, router, link, lane, cls, packet_ps, err);
}

static temu_status packet_mu_pending(const void *model, int64_t node, int64_t *read_ps,
                                     int64_t *write_ps, temu_error *err)
{
    return temu_tm_node_mu_pending(model, node, read_ps, write_ps, err);
}

static temu_status packet_host_inq(const void *model, int64_t node, int slot, int64_t *ps,
                                   temu_error *err)
{
    return temu_tm_host_inq_stall(model, node, slot, ps, err);
}

static temu_status packet_check(const void *model, temu_error *err)
{
    return temu_tm_check(model, err);
}

/* The packet model's statistics as the counters read them. */
static temu_model_stats packet_stats(const temu_tm *t)
{
    return (temu_model_stats){
        .model = t,
        .level = TEMU_TM_PACKET,
        .adaptive = temu_tm_adaptive_classes(t),
        .lanes = packet_lanes,
        .lane = packet_lane,
        .vc = packet_vc,
        .occupancy = packet_occupancy,
        .mu_pending = packet_mu_pending,
        .host_inq = packet_host_inq,
        .check = packet_check,
    };
}

temu_status temu_model_stall_counters_flush(const temu_model_stats *src, temu_tm_flushed *f,
                                            temu_session *s, temu_error *err)
{
    return flush_parts(src, f, s, PART_STALL, err);
}

temu_status temu_tm_counters_flush(const temu_tm *t, temu_tm_flushed *f, temu_session *s,
                                   temu_error *err)
{
    temu_model_stats src = packet_stats(t);
    return flush_parts(&src, f, s, PART_STALL | PART_ROUTE, err);
}

temu_status temu_tm_stall_counters_flush(const temu_tm *t, temu_tm_flushed *f, temu_session *s,
                                         temu_error *err)
{
    temu_model_stats src = packet_stats(t);
    return flush_parts(&src, f, s, PART_STALL, err);
}

/* One flush of `parts` through a fresh record. */
static temu_status flush_once(const temu_tm *t, temu_session *s, int parts, temu_error *err)
{
    temu_tm_flushed *f;
    temu_model_stats src = packet_stats(t);
    temu_status st = temu_tm_flushed_create(temu_session_machine(s), &f, err);
    if (st == TEMU_OK) {
        st = flush_parts(&src, f, s, parts, err);
    }
    temu_tm_flushed_free(f);
    return st;
}

temu_status temu_tm_add_stall_counters(const temu_tm *t, temu_session *s, temu_error *err)
{
    return flush_once(t, s, PART_STALL, err);
}

temu_status temu_tm_add_route_counters(const temu_tm *t, temu_session *s, temu_error *err)
{
    return flush_once(t, s, PART_ROUTE, err);
}
