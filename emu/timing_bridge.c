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
#include "torusemu_timing.h"

#include <string.h>

/* Bytes per unit of the plan's packet sizes: Gemini phits are 3 bytes
 * (seed 000 V.A), Blue Gene chunks 32. */
#define GEMINI_PHIT_BYTES 3u
#define BG_CHUNK_BYTES 32u

/* Gemini router clock: stall counters count 800 MHz cycles of 1250 ps
 * (seed 000 Table I; reference/gemini REPORT section 3). */
#define GEMINI_CYCLE_PS 1250
/* BG/Q network clock: 500 MHz, 2000 ps (reference/bgq REPORT, upci_impl.h) */
#define BGQ_CYCLE_PS 2000
/* BG/P: the UPC counts 850 MHz processor cycles, the clock the torus logic
 * runs at (IBM Blue Gene team, "Overview of the IBM Blue Gene/P project",
 * IBM J. Res. Dev. 52, 2008: 850 MHz, 425 MB/s per link and direction).
 * cycles = ps * 850e6 / 1e12 = ps * 17 / 20000. */
static uint64_t bgp_cycles(int64_t ps)
{
    return (uint64_t)ps * 17u / 20000u;
}

typedef struct bucket {
    uint64_t pkts, units; /* packets left and their size units (phits or chunks) */
} bucket;

/* Send the next min(train, left) packets of a bucket: its units split
 * evenly over its packets (the plan keeps totals, not each packet's size),
 * the larger ones first, so at most two trains of equal packets. */
static temu_status send_some(temu_tm *t, int64_t when, int64_t src, int64_t dst, bucket *b,
                             uint32_t train, uint32_t unit, uint32_t cls, uint32_t lane_key,
                             temu_error *err)
{
    uint64_t m = b->pkts < train ? b->pkts : train;
    uint64_t q = b->units / b->pkts, big = b->units % b->pkts; /* big: packets of q + 1 */
    uint64_t nbig = big < m ? big : m;
    temu_status st = TEMU_OK;
    if (nbig > 0) {
        st = temu_tm_send_train(t, when, src, dst, (uint32_t)((q + 1) * unit), (uint32_t)nbig, cls,
                                lane_key, 0, err);
    }
    if (st == TEMU_OK && m > nbig) {
        st = temu_tm_send_train(t, when, src, dst, (uint32_t)(q * unit), (uint32_t)(m - nbig), cls,
                                lane_key, 0, err);
    }
    b->units -= nbig * (q + 1) + (m - nbig) * q;
    b->pkts -= m;
    return st;
}

static temu_status send_plan(temu_tm *t, int64_t when_ps, const temu_machine *m,
                             const temu_message *msg, const temu_plan *pl, temu_error *err)
{
    temu_plan plan = *pl;
    temu_tm_config c;
    temu_status st = TEMU_OK;
    temu_tm_config_get(t, &c);
    uint32_t train = c.train_packets > 1 ? c.train_packets : 1;
    for (int dir = 0; dir < 2; dir++) {
        int64_t src = dir == 0 ? msg->src : msg->dst, dst = dir == 0 ? msg->dst : msg->src;
        if (m->system == TEMU_SYSTEM_GEMINI) {
            /* transaction j is in slot j mod 8; slot k uses tile position
             * (base + k) mod T of every link (doc/model.md) */
            bucket b[2][TEMU_SLOTS];
            int left = 1;
            for (int vc = 0; vc < 2; vc++) {
                for (int k = 0; k < TEMU_SLOTS; k++) {
                    b[vc][k].pkts = plan.pkts[dir][vc][k];
                    b[vc][k].units = plan.phits[dir][vc][k];
                }
            }
            while (left && st == TEMU_OK) {
                left = 0;
                for (int k = 0; k < TEMU_SLOTS && st == TEMU_OK; k++) {
                    for (int vc = 0; vc < 2 && st == TEMU_OK; vc++) {
                        if (b[vc][k].pkts > 0) {
                            st = send_some(t, when_ps, src, dst, &b[vc][k], train,
                                           GEMINI_PHIT_BYTES, (uint32_t)vc,
                                           plan.gemini_slot_base + (uint32_t)k, err);
                            left = 1;
                        }
                    }
                }
            }
        } else {
            for (int vc = 0; vc < TEMU_BGQ_VCS && st == TEMU_OK; vc++) {
                bucket b = {plan.packets[dir][vc], plan.chunks[dir][vc]};
                while (b.pkts > 0 && st == TEMU_OK) {
                    st = send_some(t, when_ps, src, dst, &b, train, BG_CHUNK_BYTES, (uint32_t)vc, 0,
                                   err);
                }
            }
        }
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

temu_status temu_tm_inject_message(temu_tm *t, temu_session *s, int64_t when_ps,
                                   const temu_message *msg, temu_error *err)
{
    const temu_machine *m = temu_session_machine(s);
    uint32_t adaptive = temu_tm_adaptive_classes(t);
    temu_plan plan, links;
    temu_status st = temu_plan_message(m, msg, &plan, err);
    if (st != TEMU_OK) {
        return st;
    }
    /* the store gets everything but the adaptive classes' link traffic,
     * whose links temu_tm_add_route_counters adds once they are known */
    links = plan;
    for (int dir = 0; dir < 2 && m->system != TEMU_SYSTEM_GEMINI; dir++) {
        for (int vc = 0; vc < TEMU_BGQ_VCS; vc++) {
            if (adaptive >> vc & 1u) {
                links.packets[dir][vc] = 0;
                links.chunks[dir][vc] = 0;
            }
        }
    }
    temu_apply_plan(s, msg, &links);
    return plan.local ? TEMU_OK : send_plan(t, when_ps, m, msg, &plan, err);
}

/* Gemini: credit stall on the sending tile, inq stall on the receiving one
 * (seed 000 L190, L216). */
static temu_status gemini_counters(const temu_tm *t, temu_session *s, const temu_machine *m,
                                   int64_t r, int l, temu_error *err)
{
    int tiles[8];
    int n = temu_tm_lanes(t, r, l);
    int64_t peer = temu_link_neighbor(m, r, l);
    temu_gemini_link_tiles(l, tiles);
    for (int k = 0; k < n; k++) {
        temu_tm_lane_stats ls;
        temu_status st = temu_tm_lane_stats_get(t, r, l, k, &ls, err);
        if (st != TEMU_OK) {
            return st;
        }
        temu_counter_add(s, temu_idx_gemini_tile(m, r, tiles[k], TEMU_TILE_CREDIT_STALL),
                         (uint64_t)(ls.credit_stall_ps / GEMINI_CYCLE_PS));
        temu_counter_add(
            s, temu_idx_gemini_tile(m, peer, temu_gemini_peer_tile(tiles[k]), TEMU_TILE_INQ_STALL),
            (uint64_t)(ls.inq_stall_ps / GEMINI_CYCLE_PS));
    }
    return TEMU_OK;
}

/* BG/Q: receive-FIFO occupancy of the receiving node's incoming link
 * (the link on that node it arrives through), per VC. */
static temu_status bgq_counters(const temu_tm *t, temu_session *s, const temu_machine *m, int64_t r,
                                int l, temu_error *err)
{
    int64_t peer = temu_link_neighbor(m, r, l);
    if (temu_tm_lanes(t, r, l) == 0) {
        return TEMU_OK;
    }
    for (int vc = 0; vc < TEMU_BGQ_VCS; vc++) {
        int64_t occ;
        temu_status st = temu_tm_lane_occupancy(t, r, l, 0, (uint32_t)vc, &occ, err);
        if (st != TEMU_OK) {
            return st;
        }
        temu_counter_add(s, temu_idx_bgq_nw(m, peer, l ^ 1, TEMU_BGQ_NW_RECV_FIFO, vc),
                         (uint64_t)(occ / BGQ_CYCLE_PS));
    }
    return TEMU_OK;
}

/* BG/P: no-token cycles of the sending direction.  NO_TOKENS: the link was
 * free and an adaptively routed packet waited for it with no dynamic VC
 * (VCD0 or VCD1) holding tokens for it; NO_VCD0/VCBN/VCBP_TOKENS: a packet
 * waiting for the free link needed tokens of that VC and there were too
 * few (Lakner 2008, Table 6-3, mode 2 counters 134-137). */
static temu_status bgp_counters(const temu_tm *t, temu_session *s, const temu_machine *m, int64_t r,
                                int l, temu_error *err)
{
    static const struct {
        int vc, counter;
    } per_vc[] = {
        {0, TEMU_BGP_NO_VCD0_TOKENS}, {2, TEMU_BGP_NO_VCBN_TOKENS}, {3, TEMU_BGP_NO_VCBP_TOKENS}};
    temu_tm_lane_stats ls;
    temu_status st;
    if (temu_tm_lanes(t, r, l) == 0) {
        return TEMU_OK;
    }
    st = temu_tm_lane_stats_get(t, r, l, 0, &ls, err);
    if (st != TEMU_OK) {
        return st;
    }
    temu_counter_add(s, temu_idx_bgp(m, r, l, TEMU_BGP_NO_TOKENS), bgp_cycles(ls.no_dynamic_ps));
    for (size_t i = 0; i < sizeof per_vc / sizeof per_vc[0]; i++) {
        temu_tm_vc_stats vs;
        st = temu_tm_lane_vc_stats(t, r, l, 0, (uint32_t)per_vc[i].vc, &vs, err);
        if (st != TEMU_OK) {
            return st;
        }
        temu_counter_add(s, temu_idx_bgp(m, r, l, per_vc[i].counter), bgp_cycles(vs.no_token_ps));
    }
    return TEMU_OK;
}

temu_status temu_tm_add_stall_counters(const temu_tm *t, temu_session *s, temu_error *err)
{
    const temu_machine *m = temu_session_machine(s);
    temu_status st = temu_tm_check(t, err);
    for (int64_t r = 0; r < m->nrouters && st == TEMU_OK; r++) {
        for (int l = 0; l < 2 * m->ndims && st == TEMU_OK; l++) {
            st = m->system == TEMU_SYSTEM_GEMINI ? gemini_counters(t, s, m, r, l, err)
                 : m->system == TEMU_SYSTEM_BGP  ? bgp_counters(t, s, m, r, l, err)
                                                 : bgq_counters(t, s, m, r, l, err);
        }
    }
    return st;
}

/* The link counters of one lane's adaptively routed traffic, per VC, where
 * the volume model would have put them (inject.c): BG/P on the sending
 * direction, acknowledged on the receiver's direction back; BG/Q chunks on
 * the sending link, packets on the receiving one. */
static temu_status route_counters(const temu_tm *t, temu_session *s, const temu_machine *m,
                                  int64_t r, int l, temu_error *err)
{
    int64_t peer = temu_link_neighbor(m, r, l);
    int vcs = m->system == TEMU_SYSTEM_BGP ? 4 : TEMU_BGQ_VCS;
    uint64_t packets = 0, chunks = 0;
    if (temu_tm_lanes(t, r, l) == 0) {
        return TEMU_OK;
    }
    for (int vc = 0; vc < vcs; vc++) {
        temu_tm_vc_stats vs;
        temu_status st = temu_tm_lane_vc_stats(t, r, l, 0, (uint32_t)vc, &vs, err);
        if (st != TEMU_OK) {
            return st;
        }
        uint64_t ch = vs.adaptive_bytes / BG_CHUNK_BYTES;
        packets += vs.adaptive_packets;
        chunks += ch;
        if (m->system == TEMU_SYSTEM_BGP) {
            temu_counter_add(s, temu_idx_bgp(m, r, l, TEMU_BGP_VCD0_CHUNKS + vc), ch);
        } else {
            temu_counter_add(s, temu_idx_bgq_nw(m, r, l, TEMU_BGQ_NW_SENT_CHUNKS, vc), ch);
            temu_counter_add(s, temu_idx_bgq_nw(m, peer, l ^ 1, TEMU_BGQ_NW_RECV_PACKETS, vc),
                             vs.adaptive_packets);
        }
    }
    if (m->system == TEMU_SYSTEM_BGP) {
        temu_counter_add(s, temu_idx_bgp(m, r, l, TEMU_BGP_PACKETS), packets);
        temu_counter_add(s, temu_idx_bgp(m, r, l, TEMU_BGP_CHUNKS), chunks);
        temu_counter_add(s, temu_idx_bgp(m, peer, l ^ 1, TEMU_BGP_TOKEN_ACK_PACKETS), packets);
        temu_counter_add(s, temu_idx_bgp(m, peer, l ^ 1, TEMU_BGP_ACKS), packets);
    }
    return TEMU_OK;
}

temu_status temu_tm_add_route_counters(const temu_tm *t, temu_session *s, temu_error *err)
{
    const temu_machine *m = temu_session_machine(s);
    temu_status st = temu_tm_check(t, err);
    if (temu_tm_adaptive_classes(t) == 0) {
        return st;
    }
    for (int64_t r = 0; r < m->nrouters && st == TEMU_OK; r++) {
        for (int l = 0; l < 2 * m->ndims && st == TEMU_OK; l++) {
            st = route_counters(t, s, m, r, l, err);
        }
    }
    return st;
}
