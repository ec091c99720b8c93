/*
 * plan_bluegene.h - Blue Gene packetization (doc/model.md), private to
 * libtorusemu.  Each Blue Gene family instantiates it with its own packet
 * format (family_bgp.c, family_bgq.c: temu_plan_bluegene with the family's
 * static const temu_bg_format), so that the format's sizes are
 * compile-time constants: the packet arithmetic divides by constants (BG/Q:
 * shifts), as when each machine had its own code.  Everything here is
 * static: each family's file holds its own copy.
 */
#ifndef TEMU_PLAN_BLUEGENE_H
#define TEMU_PLAN_BLUEGENE_H

#include "emu_internal.h"

/* The message unit's payload per packet in its counts (BG/Q: 512 bytes,
 * BG/Q driver, doc/references.md).  A BG/P plan carries these counts too;
 * nothing reads them there. */
#define MU_MAX_PAYLOAD 512u

/*
 * Message-unit memory traffic of one packet carrying p payload bytes
 * (our model, doc/model.md; all through master port 0):
 *  - injection reads the payload in 128-byte requests, the tail r = p mod
 *    128 in one request of 32, 64 or 128 bytes (the smallest that holds it);
 *  - reception writes 16-byte quantities: the whole packet (32-byte header +
 *    payload) into a memory FIFO; only the payload for a direct put, and
 *    only the descriptor of a remote get (into the remote injection FIFO).
 */
static void mu_packet_io(temu_plan *plan, int side, uint64_t p, uint64_t count, int rcv)
{
    uint64_t tail = p % 128;
    uint64_t *in = plan->mu[side], *out = plan->mu[1 - side];
    in[TEMU_MU_PORT0_128B_RD] += count * (p / 128 + (tail > 64));
    in[TEMU_MU_PORT0_64B_RD] += count * (tail > 32 && tail <= 64);
    in[TEMU_MU_PORT0_32B_RD] += count * (tail > 0 && tail <= 32);
    out[TEMU_MU_PORT0_16B_WRT] +=
        count * temu_ceil_div((rcv == TEMU_MU_FIFO_PKT_RCV ? 32 : 0) + p, 16);
}

/* Message-unit bookkeeping for one BG/Q message of `bytes` in npk packets
 * (512-byte payloads, the last shorter) injected by `side` (0 = source
 * node) and received by the other side as `rcv`. */
static void mu_message(temu_plan *plan, int side, uint64_t bytes, uint64_t npk, int rcv)
{
    uint64_t last = bytes - (npk - 1) * MU_MAX_PAYLOAD;
    plan->mu[side][TEMU_MU_MSG_INJ] += 1;
    plan->mu[side][TEMU_MU_PKT_INJ] += npk - 1; /* first packet not counted */
    plan->mu[1 - side][rcv] += npk;
    mu_packet_io(plan, side, MU_MAX_PAYLOAD, npk - 1, rcv);
    mu_packet_io(plan, side, last, 1, rcv);
}

/*
 * L2 lines the message unit reads (sender) and writes (receiver) for the
 * data of a message.  The line at address a belongs to slice (a / 128) mod
 * 16, so consecutive lines go to consecutive slices (McCraw 2013 section 3.2:
 * "consecutive memory lines are mapped to separate slices").  The sender's
 * lines start at its payload address when known, else at slice 0; the
 * receiver's buffer address is not known at injection and starts at slice 0.
 * Page-granular address randomization does not change (a / 128) mod 16.
 */
static void l2_lines(temu_plan *plan, int side, const void *addr, uint64_t bytes)
{
    uint64_t first = addr != NULL ? (uint64_t)(uintptr_t)addr / 128 : 0;
    uint64_t last = addr != NULL ? ((uint64_t)(uintptr_t)addr + bytes - 1) / 128
                                 : temu_ceil_div(bytes, 128) - 1;
    uint64_t lines = bytes == 0 ? 0 : last - first + 1;
    for (uint64_t k = 0; k < TEMU_BGQ_L2_SLICES && k < lines; k++) {
        plan->l2_hits[side][(first + k) % TEMU_BGQ_L2_SLICES] +=
            (lines - k + TEMU_BGQ_L2_SLICES - 1) / TEMU_BGQ_L2_SLICES;
    }
}

static void l2_transfer(temu_plan *plan, int from, const void *addr, uint64_t bytes)
{
    l2_lines(plan, from, addr, bytes);
    l2_lines(plan, 1 - from, NULL, bytes);
}

/* Number of dimensions in which two nodes differ. */
static int dims_differ(const temu_machine *m, int64_t a, int64_t b)
{
    int32_t ca[TEMU_MAX_DIMS], cb[TEMU_MAX_DIMS];
    int n = 0;
    temu_router_coords(m, a, ca);
    temu_router_coords(m, b, cb);
    for (int d = 0; d < m->ndims; d++) {
        n += ca[d] != cb[d];
    }
    return n;
}

/* Packets and chunks of `bytes` in the family's packet format (family.h,
 * temu_bg_format): max(1, ceil(b / payload)) packets, each a header and its
 * payload in chunks (BG/Q: a 32-byte header chunk + up to 512 bytes; BG/P:
 * a 16-byte header + up to 240 bytes in packets of 8 chunks).  Returns the
 * packets. */
static TEMU_ALWAYS_INLINE uint64_t temu_plan_bg_packets(const temu_bg_format *fmt, temu_plan *plan,
                                                        int dir, int vc, uint64_t bytes)
{
    uint64_t per = fmt->max_packet - fmt->header;
    uint64_t npk = bytes == 0 ? 1 : temu_ceil_div(bytes, per);
    uint64_t last = bytes - (npk - 1) * per;
    uint64_t chunks =
        (npk - 1) * (fmt->max_packet / fmt->chunk) + temu_ceil_div(fmt->header + last, fmt->chunk);
    plan->packets[dir][vc] += npk;
    plan->chunks[dir][vc] += chunks;
    return npk;
}

/* A single small packet with `payload` bytes (RTS, remote-get descriptor). */
static TEMU_ALWAYS_INLINE void temu_plan_bg_control(const temu_bg_format *fmt, temu_plan *plan,
                                                    int dir, int vc, uint64_t payload)
{
    temu_plan_bg_packets(fmt, plan, dir, vc, payload);
}

/*
 * Blue Gene protocols (doc/model.md):
 *   eager (bytes < eager_limit) and collectives: memory-FIFO packets
 *     source -> destination, deterministically routed.
 *   rendezvous: a request-to-send packet (32-byte payload) to the
 *     receiver, a remote-get packet (64-byte descriptor on BG/Q, 32 on
 *     BG/P) back to the sender, then the data as put packets.
 *   put: put packets; get: a remote-get packet, then put packets back.
 *   all-to-all block (BG/Q, fmt->m2m): memory-FIFO packets source ->
 *     destination on the dynamic VC (PAMI's many-to-many protocol), or
 *     the deterministic one with m2m-routing=deterministic; elsewhere as
 *     point to point.
 * Bulk data (rendezvous and RMA) is labelled dynamic by the family's rule
 * (temu_bg_format: BG/Q when larger than 64 KiB and the nodes differ in
 * more than one dimension, PAMI's rule, BG/Q driver, doc/references.md;
 * BG/P always).  The volume model still counts it on the deterministic
 * path (the timing model routes it adaptively).
 */
static TEMU_ALWAYS_INLINE void temu_plan_bluegene(const temu_bg_format *fmt, const temu_machine *m,
                                                  const temu_message *msg, temu_plan *plan)
{
    int det = fmt->vc_det;
    int dyn = det;
    uint64_t npk = 0;
    uint32_t rget = fmt->rget;

    if (msg->bytes >= fmt->dynamic_from &&
        (fmt->dynamic_dims == 0 || dims_differ(m, msg->src, msg->dst) >= fmt->dynamic_dims)) {
        dyn = fmt->vc_dynamic;
    }
    switch (msg->kind) {
    case TEMU_KIND_COLL_WORLD:
    case TEMU_KIND_COLL_SUB: {
        int vc = msg->kind == TEMU_KIND_COLL_WORLD ? fmt->vc_coll_world : fmt->vc_coll_sub;
        npk = temu_plan_bg_packets(fmt, plan, 0, vc, msg->bytes);
        mu_message(plan, 0, msg->bytes, npk, TEMU_MU_FIFO_PKT_RCV);
        l2_transfer(plan, 0, msg->payload, msg->bytes);
        return;
    }
    case TEMU_KIND_PUT:
        npk = temu_plan_bg_packets(fmt, plan, 0, dyn, msg->bytes);
        mu_message(plan, 0, msg->bytes, npk, TEMU_MU_PUT_PKT_RCV);
        l2_transfer(plan, 0, msg->payload, msg->bytes);
        return;
    case TEMU_KIND_GET:
        temu_plan_bg_control(fmt, plan, 0, det, rget);
        mu_message(plan, 0, rget, 1, TEMU_MU_RGET_PKT_RCV);
        npk = temu_plan_bg_packets(fmt, plan, 1, dyn, msg->bytes);
        mu_message(plan, 1, msg->bytes, npk, TEMU_MU_PUT_PKT_RCV);
        l2_transfer(plan, 1, msg->payload, msg->bytes);
        return;
    case TEMU_KIND_ALLTOALL:
        if (fmt->m2m) {
            /* PAMI's many-to-many protocol (BG/Q): the block as memory-FIFO
             * packets src -> dst, no request to send or remote get, all on
             * the dynamic VC whatever the size unless m2m-routing=
             * deterministic (doc/model.md, "All-to-all on BG/Q") */
            int vc = m->protocol.m2m_deterministic ? det : fmt->vc_dynamic;
            npk = temu_plan_bg_packets(fmt, plan, 0, vc, msg->bytes);
            mu_message(plan, 0, msg->bytes, npk, TEMU_MU_FIFO_PKT_RCV);
            l2_transfer(plan, 0, msg->payload, msg->bytes);
            return;
        }
        break; /* BG/P: as point to point */
    case TEMU_KIND_P2P:
        break;
    }
    if (msg->bytes < m->protocol.eager_limit) {
        npk = temu_plan_bg_packets(fmt, plan, 0, det, msg->bytes);
        mu_message(plan, 0, msg->bytes, npk, TEMU_MU_FIFO_PKT_RCV);
        l2_transfer(plan, 0, msg->payload, msg->bytes);
        return;
    }
    temu_plan_bg_control(fmt, plan, 0, det, 32); /* request to send */
    mu_message(plan, 0, 32, 1, TEMU_MU_FIFO_PKT_RCV);
    temu_plan_bg_control(fmt, plan, 1, det, rget); /* remote get back to the sender */
    mu_message(plan, 1, rget, 1, TEMU_MU_RGET_PKT_RCV);
    npk =
        temu_plan_bg_packets(fmt, plan, 0, dyn, msg->bytes); /* data, injected by the sender's MU */
    mu_message(plan, 0, msg->bytes, npk, TEMU_MU_PUT_PKT_RCV);
    l2_transfer(plan, 0, msg->payload, msg->bytes);
}

#endif /* TEMU_PLAN_BLUEGENE_H */
