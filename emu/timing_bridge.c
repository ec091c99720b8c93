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

#include <stdlib.h>
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

typedef struct bucket {
    uint64_t pkts, units; /* packets left and their size units (phits or chunks) */
} bucket;

/* What a direction of a message put into the model: packets and wire
 * bytes, and the tag they carry. */
typedef struct sent {
    uint64_t tag, packets, bytes;
} sent;

/* Send the next min(train, left) packets of a bucket: its units split
 * evenly over its packets (the plan keeps totals, not each packet's size),
 * the larger ones first. */
static temu_status send_some(temu_tm *t, int64_t when, int64_t src, int64_t dst, bucket *b,
                             uint32_t train, uint32_t unit, uint32_t cls, uint32_t lane_key,
                             sent *out, temu_error *err)
{
    uint64_t m = b->pkts < train ? b->pkts : train;
    uint64_t q = b->units / b->pkts, big = b->units % b->pkts; /* big: packets of q + 1 */
    uint64_t nbig = big < m ? big : m, units = m * q + nbig;
    b->units -= units;
    b->pkts -= m;
    out->packets += m;
    out->bytes += units * unit;
    return temu_tm_send_even(t, when, src, dst, (uint32_t)m, units, unit, cls, lane_key, out->tag,
                             err);
}

/* The packets of direction dir of a planned message (0: source to
 * destination, 1: destination to source), train_packets of each bucket in
 * turn. */
static temu_status send_dir(temu_tm *t, int64_t when_ps, const temu_machine *m,
                            const temu_message *msg, const temu_plan *plan, int dir, sent *out,
                            temu_error *err)
{
    temu_status st = TEMU_OK;
    temu_tm_config c;
    int64_t src = dir == 0 ? msg->src : msg->dst, dst = dir == 0 ? msg->dst : msg->src;
    temu_tm_config_get(t, &c);
    uint32_t train = c.train_packets > 1 ? c.train_packets : 1;
    if (m->system == TEMU_SYSTEM_GEMINI) {
        /* transaction j is in slot j mod 8; slot k uses tile position
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
                        st = send_some(t, when_ps, src, dst, &b[vc][k], train, GEMINI_PHIT_BYTES,
                                       (uint32_t)vc, plan->gemini_slot_base + (uint32_t)k, out,
                                       err);
                        left = 1;
                    }
                }
            }
        }
    } else {
        for (int vc = 0; vc < TEMU_BGQ_VCS && st == TEMU_OK; vc++) {
            bucket b = {plan->packets[dir][vc], plan->chunks[dir][vc]};
            while (b.pkts > 0 && st == TEMU_OK) {
                st = send_some(t, when_ps, src, dst, &b, train, BG_CHUNK_BYTES, (uint32_t)vc, 0,
                               out, err);
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
    for (int dir = 0; dir < 2 && st == TEMU_OK; dir++) {
        sent out = {0, 0, 0};
        st = send_dir(t, when_ps, m, msg, &plan, dir, &out, err);
    }
    return st;
}

temu_status temu_tm_send_message_dir(temu_tm *t, int64_t when_ps, const temu_machine *m,
                                     const temu_message *msg, int dir, uint64_t tag,
                                     uint64_t *packets, uint64_t *bytes, temu_error *err)
{
    temu_plan plan;
    sent out = {tag, 0, 0};
    temu_status st = temu_plan_message(m, msg, &plan, err);
    if (st == TEMU_OK && (dir < 0 || dir > 1)) {
        st = temu_fail(err, TEMU_EINVAL, "timing model: message direction %d (0 or 1)", dir);
    }
    if (st == TEMU_OK && !plan.local) {
        st = send_dir(t, when_ps, m, msg, &plan, dir, &out, err);
    }
    *packets = out.packets;
    *bytes = out.bytes;
    return st;
}

/* Values already added to the store, per lane and counter: the floor of
 * the lane's cumulative total in cycles, so the store gets differences of
 * floors and any series of flushes sums to one final flush. */
#define FLUSH_SLOTS 8 /* per lane: Gemini credit + inq; BG/Q one per VC */
_Static_assert(TEMU_BGQ_VCS <= FLUSH_SLOTS, "a flushed slot per BG/Q VC");

struct temu_tm_flushed {
    int64_t nrouters;
    int tlinks;
    uint64_t *done; /* [router][link][lane 0..7][slot] */
};

temu_status temu_tm_flushed_create(const temu_machine *m, temu_tm_flushed **out, temu_error *err)
{
    temu_tm_flushed *f = calloc(1, sizeof *f);
    *out = NULL;
    if (f != NULL) {
        f->nrouters = m->nrouters;
        f->tlinks = 2 * m->ndims;
        f->done = calloc((size_t)(m->nrouters * f->tlinks) * 8 * FLUSH_SLOTS, sizeof *f->done);
    }
    if (f == NULL || f->done == NULL) {
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
        free(f);
    }
}

/* Add total (cycles so far) minus what slot already added to counter idx. */
static void add_since(temu_session *s, temu_tm_flushed *f, int64_t r, int l, int lane, int slot,
                      size_t idx, uint64_t total)
{
    uint64_t *d =
        &f->done[(((size_t)r * (size_t)f->tlinks + (size_t)l) * 8 + (size_t)lane) * FLUSH_SLOTS +
                 (size_t)slot];
    if (total > *d) {
        temu_counter_add(s, idx, total - *d);
        *d = total;
    }
}

/* Gemini: credit stall on the sending tile, inq stall on the receiving one
 * (seed 000 L190, L216). */
static temu_status gemini_counters(const temu_tm *t, temu_session *s, temu_tm_flushed *f,
                                   const temu_machine *m, int64_t r, int l, temu_error *err)
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
        add_since(s, f, r, l, k, 0, temu_idx_gemini_tile(m, r, tiles[k], TEMU_TILE_CREDIT_STALL),
                  (uint64_t)(ls.credit_stall_ps / GEMINI_CYCLE_PS));
        add_since(
            s, f, r, l, k, 1,
            temu_idx_gemini_tile(m, peer, temu_gemini_peer_tile(tiles[k]), TEMU_TILE_INQ_STALL),
            (uint64_t)(ls.inq_stall_ps / GEMINI_CYCLE_PS));
    }
    return TEMU_OK;
}

/* BG/Q: receive-FIFO occupancy of the receiving node's incoming link
 * (the link on that node it arrives through), per VC. */
static temu_status bgq_counters(const temu_tm *t, temu_session *s, temu_tm_flushed *f,
                                const temu_machine *m, int64_t r, int l, temu_error *err)
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
        add_since(s, f, r, l, 0, vc, temu_idx_bgq_nw(m, peer, l ^ 1, TEMU_BGQ_NW_RECV_FIFO, vc),
                  (uint64_t)(occ / BGQ_CYCLE_PS));
    }
    return TEMU_OK;
}

temu_status temu_tm_counters_flush(const temu_tm *t, temu_tm_flushed *f, temu_session *s,
                                   temu_error *err)
{
    const temu_machine *m = temu_session_machine(s);
    temu_status st = temu_tm_check(t, err);
    if (st != TEMU_OK) {
        return st;
    }
    if (m->system == TEMU_SYSTEM_BGP) {
        return temu_fail(err, TEMU_EINVAL, "counters from the timing model: not for %s yet",
                         temu_system_name(m->system));
    }
    if (f->nrouters != m->nrouters || f->tlinks != 2 * m->ndims) {
        return temu_fail(err, TEMU_EINVAL, "timing model: counter flushes of another machine");
    }
    for (int64_t r = 0; r < m->nrouters && st == TEMU_OK; r++) {
        for (int l = 0; l < 2 * m->ndims && st == TEMU_OK; l++) {
            st = m->system == TEMU_SYSTEM_GEMINI ? gemini_counters(t, s, f, m, r, l, err)
                                                 : bgq_counters(t, s, f, m, r, l, err);
        }
    }
    return st;
}

temu_status temu_tm_add_stall_counters(const temu_tm *t, temu_session *s, temu_error *err)
{
    temu_tm_flushed *f;
    temu_status st = temu_tm_flushed_create(temu_session_machine(s), &f, err);
    if (st == TEMU_OK) {
        st = temu_tm_counters_flush(t, f, s, err);
    }
    temu_tm_flushed_free(f);
    return st;
}
