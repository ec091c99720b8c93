/*
 * crossing.c - a message's volume counters, counted as its packets cross
 * (crossing.h; doc/series.md, "When traffic is counted").
 *
 * The timing model moves exactly the packets the volume model counts, on
 * the same tiles and VCs (timing_bridge.c splits each plan bucket's phits
 * or chunks evenly over its packets), so a hop's counters follow from the
 * hop alone: its wire bytes are its units (Gemini phits of 3 bytes, Blue
 * Gene chunks of 32).  Where the counts land is inject.c's rule
 * (doc/model.md, "Where counts land"); summed over all hops they are the
 * volume model's, counter for counter (tests/test_vtime.c,
 * tests/series_crossing.sh).
 *
 * When: a channel sends one packet at a time, each in ser ps, so a
 * channel's units counted in any window (a, b] were sent within it but
 * for the one unit under way at a: a counter of units never runs ahead
 * of the channel's bandwidth by more than one unit, and a series shows a
 * link at most at 100 % of its bandwidth plus one phit or chunk per lane.
 *
 * The node counters of a message (Gemini NIC, BG/Q message unit and L2)
 * are per message in the plan.  Each belongs to one end of one direction:
 * what a node issues or sends counts as packets leave it, what it receives
 * as they enter it (doc/model.md, NIC and message-unit tables).  A
 * counter's total is spread evenly over the packets of its end, in the
 * order they cross it; the ledger keeps them while the message is under
 * way.
 */
#define TEMU_BUILDING_LIBRARY 1
#include "crossing.h"
#include "emu_internal.h"

#include <stdlib.h>
#include <string.h>

enum { END_INJECT = 0, END_EJECT = 1 };

/* A family with router tiles (Gemini) plans its transactions in tile
 * slots, counts its host tiles and keeps one ledger slot per class; the
 * others (Blue Gene) plan per VC and keep one ledger slot. */
static int tiled(const temu_family *f)
{
    return (f->sections & TEMU_SECTION_GEMINI_TILES) != 0;
}

/* floor(j x total / n): the part of `total` that the first j of n carry. */
static uint64_t share(uint64_t j, uint64_t total, uint64_t n)
{
    if (j == 0) {
        return 0;
    }
    if (n == 0 || j >= n) {
        return total;
    }
    if ((j | total) >> 32 == 0) {
        return j * total / n;
    }
    return (uint64_t)((unsigned __int128)j * total / n); /* a message of 2^32 packets */
}

/* ------------------------------------------------------------ when */

/* Packets of crossing h that have started by time t. */
static uint64_t started_by(const temu_tm_hop *h, int64_t t)
{
    if (t < h->start_ps) {
        return 0;
    }
    if (h->packets <= 1 || h->spacing_ps <= 0) {
        return h->packets;
    }
    uint64_t k = (uint64_t)((t - h->start_ps) / h->spacing_ps) + 1;
    return k < h->packets ? k : h->packets;
}

/* Units of the first j of n packets holding `units` split evenly, the
 * larger packets first (timing_bridge.c, temu_tm_send_even). */
static uint64_t units_before(uint64_t j, uint64_t units, uint64_t n)
{
    uint64_t big = units % n;
    return j * (units / n) + (j < big ? j : big);
}

/* Units (of `units` in all) of crossing h sent by time t: packet i starts
 * at start + i x spacing and sends its u units in ser ps, unit j done at
 * (j + 1) x ser / u.  Every packet of a train is timed with its larger
 * packets' ser, as the model spaces them (doc/model.md, "Packet trains"). */
static uint64_t units_by(const temu_tm_hop *h, uint64_t units, int64_t t)
{
    uint64_t n = h->packets, k;
    if (t <= h->start_ps) {
        return 0;
    }
    int64_t ser = h->ser_ps, since = t - h->start_ps;
    if (ser <= 0) {
        return units;
    }
    /* k: packets wholly sent */
    if (since < ser) {
        k = 0;
    } else if (n <= 1 || h->spacing_ps <= 0) {
        k = n;
    } else {
        k = (uint64_t)((since - ser) / h->spacing_ps) + 1;
    }
    if (k >= n) {
        return units;
    }
    int64_t into = since - (int64_t)k * h->spacing_ps; /* 0 <= into < ser when positive */
    uint64_t before = units_before(k, units, n);
    if (into <= 0) {
        return before;
    }
    uint64_t u = units_before(k + 1, units, n) - before;
    return before + (uint64_t)into * u / (uint64_t)ser;
}

int temu_crossing_done_by(const temu_tm_hop *h, int64_t t)
{
    int64_t last = h->start_ps + (int64_t)(h->packets > 0 ? h->packets - 1 : 0) * h->spacing_ps;
    return last + h->ser_ps <= t;
}

/* ------------------------------------------------------------ links */

/* Counter updates of one crossing: to the store, watches tested only
 * when armed (as temu_counter_add, with the armed flag loaded once). */
typedef struct sink {
    temu_session *s;
    int armed;
} sink;

static void add(sink *k, int64_t idx, uint64_t v)
{
    if (v != 0) {
        temu_store_add(k->s, idx, v, k->armed);
    }
}

/* The first counter of each end of the link hop h crosses: *out on the
 * sending end, *back on the receiving one (a hop over link l of router r
 * arrives on the neighbour's link l ^ 1).  Gemini counts only where the
 * hop arrives, at the k-th tile of the opposite direction: *out its VC's
 * phits, *back its VC's packets.  BG/Q: the sending link's chunks of the
 * VC and the receiving link's packets of it.  BG/P: the first counter of
 * the sending and of the receiving direction.  Shared by link_counters
 * and temu_crossing_prefetch so the two cannot disagree. */
static inline void link_ends(const temu_machine *m, const temu_tm_hop *h, int64_t *out,
                             int64_t *back)
{
    int64_t r = h->router, peer = h->to_router;
    int in_link = h->link ^ 1, v = (int)h->vc_class;
    /* per hop: branches, not a call through the descriptor */
    if (m->system == TEMU_SYSTEM_GEMINI) {
        int tile = temu_gemini_tile_lists()[in_link].tile[h->lane];
        int64_t base = (peer * TEMU_GEMINI_TILES + tile) * TEMU_GEMINI_TILE_COUNTERS;
        *out = base + TEMU_TILE_VC0_PHITS + v;
        *back = base + TEMU_TILE_VC0_PKTS + v;
    } else if (m->system == TEMU_SYSTEM_BGQ) {
        *out = temu_idx_bgq_nw(m, r, h->link, TEMU_BGQ_NW_SENT_CHUNKS, v);
        *back = temu_idx_bgq_nw(m, peer, in_link, TEMU_BGQ_NW_RECV_PACKETS, v);
    } else {
        *out = temu_idx_bgp(m, r, h->link, 0);
        *back = temu_idx_bgp(m, peer, in_link, 0);
    }
}

/* One hop over link l of router r, `packets` packets started and `units`
 * units sent in the window: inject.c's apply_gemini / apply_bgq /
 * apply_bgp. */
static void link_counters(sink *s, const temu_tm_hop *h, uint64_t packets, uint64_t units)
{
    const temu_machine *m = temu_session_machine(s->s);
    int64_t out, back;
    link_ends(m, h, &out, &back);
    if (m->system == TEMU_SYSTEM_GEMINI || m->system == TEMU_SYSTEM_BGQ) {
        add(s, out, units);
        add(s, back, packets);
    } else {
        /* BG/P: the sending direction, and one token/ack packet back per
         * packet received (our model, doc/model.md) */
        add(s, out + TEMU_BGP_PACKETS, packets);
        add(s, out + TEMU_BGP_CHUNKS, units);
        add(s, out + TEMU_BGP_VCD0_CHUNKS + (int)h->vc_class, units);
        add(s, back + TEMU_BGP_TOKEN_ACK_PACKETS, packets);
        add(s, back + TEMU_BGP_ACKS, packets);
    }
}

void temu_crossing_prefetch(const temu_session *s, const temu_tm_hop *h)
{
    if (h->kind != TEMU_TM_HOP_LINK || s->readonly) {
        return;
    }
    /* the first counter link_counters adds at each end of the link; the
     * others of that end share its cache line or the next */
    int64_t at, back;
    link_ends(&s->machine, h, &at, &back);
    if (at >= 0 && back >= 0) {
        __builtin_prefetch(&s->counters[at], 1);
        __builtin_prefetch(&s->counters[back], 1);
    }
}

/* Gemini: the injecting Gemini's host tiles count what its nodes inject,
 * slot k on position lane_key mod 8 of the 8 host tiles (inject.c). */
static void host_tiles(sink *s, const temu_tm_hop *h, uint64_t packets, uint64_t units)
{
    const temu_machine *m = temu_session_machine(s->s);
    int tile = temu_gemini_tile_lists()[2 * m->ndims].tile[h->lane_key % 8];
    int64_t base =
        (temu_node_router(m, h->node) * TEMU_GEMINI_TILES + tile) * TEMU_GEMINI_TILE_COUNTERS;
    add(s, base + TEMU_TILE_VC0_PHITS + (int)h->cls, units);
    add(s, base + TEMU_TILE_VC0_PKTS + (int)h->cls, packets);
}

/* ------------------------------------------------------- node counters */

/* The packets a node counter rides on: direction, end, and the class
 * slots (bit c: slot c; Gemini VC0, VC1, Blue Gene all in slot 0). */
typedef struct end_group {
    uint8_t dir, end, mask;
} end_group;

/* Gemini NIC counter c of side `side` (0: the message's source node).  A
 * node's requests go out in its own direction, their responses come back
 * in the other (plan.c gemini_nic). */
static end_group nic_group(int side, int c)
{
    uint8_t own = (uint8_t)side, other = (uint8_t)(1 - side);
    switch (c) {
    case TEMU_NIC_ORB_VC0_PKTS: /* requests issued, through FMA or the BTE */
    case TEMU_NIC_ORB_VC0_FLITS:
    case TEMU_NIC_TARB_FMA_PKTS:
    case TEMU_NIC_TARB_FMA_FLITS:
    case TEMU_NIC_TARB_BTE_PKTS:
    case TEMU_NIC_TARB_BTE_FLITS:
        return (end_group){own, END_INJECT, 1u};
    case TEMU_NIC_NPT_PKTS: /* responses sent as target */
    case TEMU_NIC_NPT_FLITS:
        return (end_group){own, END_INJECT, 2u};
    case TEMU_NIC_TARB_OUT_PKTS: /* everything it put on the network */
    case TEMU_NIC_TARB_OUT_FLITS:
        return (end_group){own, END_INJECT, 3u};
    case TEMU_NIC_ORB_VC1_PKTS: /* responses returned to it */
    case TEMU_NIC_ORB_VC1_FLITS:
        return (end_group){other, END_EJECT, 2u};
    default: /* RAT: requests arriving at it as target */
        return (end_group){other, END_EJECT, 1u};
    }
}

/* BG/Q message-unit counter c of side `side`: injection (messages,
 * packets, payload reads) as the side's packets leave, reception (packets
 * by type, memory writes) as the other side's arrive (plan.c
 * mu_message). */
static end_group mu_group(int side, int c)
{
    int inject = c == TEMU_MU_PKT_INJ || c == TEMU_MU_MSG_INJ || c == TEMU_MU_PORT0_32B_RD ||
                 c == TEMU_MU_PORT0_64B_RD || c == TEMU_MU_PORT0_128B_RD;
    return inject ? (end_group){(uint8_t)side, END_INJECT, 1u}
                  : (end_group){(uint8_t)(1 - side), END_EJECT, 1u};
}

/* BG/Q L2 hits of side `side`: the sender's reads as the data leaves, the
 * receiver's writes as it arrives.  The data travels from the source but
 * for a GET (plan.c l2_transfer). */
static end_group l2_group(const temu_message *msg, int side)
{
    uint8_t data = msg->kind == TEMU_KIND_GET ? 1 : 0;
    return (end_group){data, side == data ? END_INJECT : END_EJECT, 1u};
}

typedef struct ledger_entry {
    int64_t idx;
    uint64_t total;
    end_group g;
} ledger_entry;

/* Most node counters a message has: BG/Q's message unit and L2 slices of
 * both sides (Gemini's 16 NIC counters per side are fewer). */
#define LEDGER_MAX (2 * (TEMU_MU_MODELLED + TEMU_BGQ_L2_SLICES))
_Static_assert(TEMU_MU_MODELLED + TEMU_BGQ_L2_SLICES >= TEMU_NIC_COUNTERS,
               "a ledger holds a Gemini message's NIC counters");

struct temu_ledger {
    uint64_t packets[2][2];    /* the plan's, [direction][class slot]    */
    uint64_t crossed[2][2][2]; /* counted so far, [direction][end][slot] */
    int first[5];              /* entries of (dir, end) = [2 dir + end] .. [+1] */
    ledger_entry e[];          /* the non-zero node counters, by (dir, end) */
};

static uint64_t group_sum(const uint64_t v[2], end_group g)
{
    return ((g.mask & 1u) ? v[0] : 0) + ((g.mask & 2u) ? v[1] : 0);
}

/* A ledger being built, at its largest size. */
typedef struct ledger_build {
    uint64_t packets[2][2];
    int n;
    int at_once; /* no ledger wanted: every counter into the store now */
    ledger_entry e[LEDGER_MAX];
} ledger_build;

/* Counter idx of group g, total over the message, into the ledger, or
 * into the store at once when no packet carries it. */
static void enter(sink *s, ledger_build *lg, int64_t idx, uint64_t total, end_group g)
{
    if (total == 0) {
        return;
    }
    if (lg->at_once || group_sum(lg->packets[g.dir], g) == 0) {
        add(s, idx, total);
        return;
    }
    lg->e[lg->n++] = (ledger_entry){idx, total, g};
}

/* The plan's packets per direction and class slot. */
static void plan_packets(const temu_family *f, const temu_plan *p, uint64_t out[2][2])
{
    int slots = tiled(f);
    memset(out, 0, 4 * sizeof out[0][0]);
    for (int dir = 0; dir < 2; dir++) {
        for (int vc = 0; vc < TEMU_BGQ_VCS; vc++) {
            if (slots && vc < 2) {
                for (int k = 0; k < TEMU_SLOTS; k++) {
                    out[dir][vc] += p->pkts[dir][vc][k];
                }
            } else if (!slots) {
                out[dir][0] += p->packets[dir][vc];
            }
        }
    }
}

temu_status temu_crossing_begin(temu_session *s, const temu_message *msg, temu_ledger **out,
                                temu_error *err)
{
    const temu_machine *m = temu_session_machine(s);
    temu_plan p;
    temu_status st;
    if (out != NULL) {
        *out = NULL;
    }
    sink to = {s, temu_store_armed(s)};
    temu_count_message(s, msg);
    if (!(s->family->sections & (TEMU_SECTION_GEMINI_NIC | TEMU_SECTION_BGQ_MU))) {
        return TEMU_OK; /* no node counters (BG/P) */
    }
    st = temu_plan_message(m, msg, &p, err);
    if (st != TEMU_OK || p.local) {
        return st;
    }
    /* built at full size, kept at the size it needs (every message under
     * way holds one) */
    ledger_build b, *lg = &b;
    b.n = 0;
    b.at_once = out == NULL;
    plan_packets(s->family, &p, b.packets);
    int64_t ends[2] = {msg->src, msg->dst};
    for (int side = 0; side < 2; side++) {
        if (s->family->sections & TEMU_SECTION_GEMINI_NIC) {
            int64_t base = temu_idx_gemini_nic(m, ends[side], 0);
            for (int c = 0; c < TEMU_NIC_COUNTERS; c++) {
                enter(&to, lg, base + c, p.nic[side][c], nic_group(side, c));
            }
            continue;
        }
        for (int c = 0; c < TEMU_MU_MODELLED; c++) {
            enter(&to, lg, s->bgq_mu_base + ends[side] * TEMU_BGQ_MU_COUNTERS + c, p.mu[side][c],
                  mu_group(side, c));
        }
        int64_t l2 = s->bgq_l2_base + ends[side] * TEMU_BGQ_L2_SLICES * TEMU_BGQ_L2_COUNTERS;
        for (int c = 0; c < TEMU_BGQ_L2_SLICES; c++) {
            enter(&to, lg, l2 + (int64_t)c * TEMU_BGQ_L2_COUNTERS, p.l2_hits[side][c],
                  l2_group(msg, side));
        }
    }
    if (TEMU_UNLIKELY(to.armed)) {
        temu_watch_flush(s);
    }
    if (b.n == 0 || out == NULL) {
        return TEMU_OK;
    }
    temu_ledger *l = calloc(1, sizeof *l + (size_t)b.n * sizeof b.e[0]);
    if (l == NULL) {
        return temu_fail(err, TEMU_ENOMEM, "out of memory for a message's node counters");
    }
    memcpy(l->packets, b.packets, sizeof l->packets);
    /* grouped by (dir, end): a crossing visits the counters of its end only */
    for (int de = 0, i = 0; de < 4; de++) {
        l->first[de] = i;
        for (int j = 0; j < b.n; j++) {
            if (2 * b.e[j].g.dir + b.e[j].g.end == de) {
                l->e[i++] = b.e[j];
            }
        }
    }
    l->first[4] = b.n;
    *out = l;
    return TEMU_OK;
}

void temu_ledger_free(temu_ledger *lg)
{
    free(lg);
}

/* `count` more packets of class slot `slot` crossed end `end` of direction
 * dir: each node counter of that end and class gets its share. */
static void release(sink *s, temu_ledger *lg, int dir, int end, unsigned slot, uint64_t count)
{
    for (int i = lg->first[2 * dir + end]; i < lg->first[2 * dir + end + 1]; i++) {
        const ledger_entry *x = &lg->e[i];
        if (!(x->g.mask >> slot & 1u)) {
            continue;
        }
        uint64_t n = group_sum(lg->packets[dir], x->g);
        uint64_t k = group_sum(lg->crossed[dir][end], x->g);
        add(s, x->idx, share(k + count, x->total, n) - share(k, x->total, n));
    }
    lg->crossed[dir][end][slot] += count;
}

/* Every packet of the message counted at both ends? */
static int ledger_done(const temu_ledger *lg)
{
    for (int dir = 0; dir < 2; dir++) {
        for (int slot = 0; slot < 2; slot++) {
            for (int end = 0; end < 2; end++) {
                if (lg->crossed[dir][end][slot] < lg->packets[dir][slot]) {
                    return 0;
                }
            }
        }
    }
    return 1;
}

/* The counters of the channel a crossing took (a link's, or a Gemini's
 * host tiles); 1 if that is all it counts (a link hop). */
static int channel_counters(sink *k, const temu_tm_hop *h, uint64_t packets, uint64_t units)
{
    if (h->kind == TEMU_TM_HOP_LINK) {
        /* an adaptively routed packet too, on the link and VC it took */
        link_counters(k, h, packets, units);
        return 1;
    }
    if (h->kind == TEMU_TM_HOP_INJECT && tiled(k->s->family)) {
        host_tiles(k, h, packets, units);
    }
    return 0;
}

int temu_crossing_count_now(temu_session *s, const temu_tm_hop *h)
{
    /* armed loaded once: an add racing with the arming is one made just
     * before it */
    sink k = {s, temu_store_armed(s)};
    if (k.armed) {
        return 0;
    }
    if (!s->readonly && (h->packets > 0 || h->bytes > 0)) {
        (void)channel_counters(&k, h, h->packets, h->bytes / s->family->info.unit_bytes);
    }
    return 1;
}

void temu_crossing_count(temu_session *s, temu_ledger **lg, int dir, const temu_tm_hop *h,
                         int64_t after_ps, int64_t until_ps)
{
    const temu_family *f = s->family;
    uint64_t units = h->bytes / f->info.unit_bytes; /* phits or chunks */
    uint64_t packets = h->packets;
    if (after_ps >= h->start_ps || !temu_crossing_done_by(h, until_ps)) {
        packets = started_by(h, until_ps) - started_by(h, after_ps);
        units = units_by(h, units, until_ps) - units_by(h, units, after_ps);
    }
    if ((packets == 0 && units == 0) || s->readonly) {
        return;
    }
    sink k = {s, temu_store_armed(s)};
    if (channel_counters(&k, h, packets, units)) {
        return;
    }
    if (*lg != NULL && packets > 0) {
        int end = h->kind == TEMU_TM_HOP_INJECT ? END_INJECT : END_EJECT;
        release(&k, *lg, dir, end, tiled(f) ? h->cls : 0, packets);
        if (ledger_done(*lg)) {
            temu_ledger_free(*lg);
            *lg = NULL;
        }
    }
    if (TEMU_UNLIKELY(k.armed)) {
        temu_watch_flush(s); /* slow watches signal after the update */
    }
}
