/*
 * timing.c - packet-level discrete-event timing model (torusemu_timing.h).
 *
 * Entities:
 *   channel  one lane of a directed link (Gemini: one tile), or a node's
 *            injection / ejection channel.  Busy while it serializes packets.
 *   queue    an input queue at the receiving end of a channel, one per VC;
 *            plus one unbounded source queue per node.  FIFO.
 *   credits  per channel and VC: bytes free in the downstream queue, as the
 *            sending side knows them (credits on Gemini, tokens on Blue Gene).
 *   train    k consecutive equal packets of one send moving as one unit
 *            (k = 1: a packet).  Its packets leave a queue evenly spaced, so a
 *            train carries the first packet's times and the spacing; the
 *            route is computed hop by hop (no stored path), so memory grows
 *            with channels and trains in flight only.
 * Events (event_queue.c, ordered by time, then by creation order, so equal
 * inputs always give equal results):
 *   CREATE   a train enters its source queue
 *   READY    the head of a queue may leave: it requests its next channel
 *   TRY      a channel became free: pick a waiting head that has credit
 *   CREDIT   space freed downstream is known upstream again
 *   DELIVER  a train's last tail reached its destination node
 * Arbitration: among the waiting heads with enough credit, the one ready
 * first (then the lower queue id): first come, first served.  A train
 * starting onto a channel is told to the hop function, if one is set
 * (temu_tm_set_hop: a driver counts traffic as it crosses).
 *
 * Trains (doc/model.md, "Packet trains"): a train starts when its first
 * packet could (credit for one packet); it then takes credit for all its
 * packets.  That credit returns upstream packet by packet as they are read
 * out (tm_return: no event each) if the train fits its queue, else all at
 * once at the mean of the packets' read-out times.  On Gemini trains share
 * the ejection channel (SHARE_ONE).  If the downstream queue is not empty and the whole train does
 * not fit in the credit, the train is split: what fits goes, the rest waits as a new train.  Trains
 * travel on two dateline VCs per class, also with tokens (the bubble rule keeps a ring
 * deadlock-free only while no queue holds more than its size; the VCs then share the queue's
 * bytes).  With trains of one packet every rule is the per-packet one.
 *
 * Adaptive routing (Blue Gene dynamic VCs, single packets only: trains'
 * dateline VCs would replace the bubble rule the escape VC relies on): a
 * packet's channels after the injection are chosen router by router.  When it becomes ready it
 * waits for every productive channel at once, tried in the order of the dynamic tokens they have
 * free (most first, then the deterministic order); the first that can take it on a dynamic VC, or
 * the deterministic one on the escape VC with the bubble rule, does.
 */
#define TEMU_BUILDING_LIBRARY 1
#include "emu_internal.h"
#include "event_queue.h"
#include "torusemu_timing.h"

#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

enum { EV_CREATE, EV_READY, EV_TRY, EV_CREDIT, EV_DELIVER };

/* A queue whose head train waits for a channel, with what arbitration
 * needs of it (so choosing touches no train). */
typedef struct tm_waiter {
    int64_t ready; /* the head's ready time                      */
    int64_t need;  /* credit it needs: a packet (+ the bubble)   */
    int32_t q;
    int32_t p;      /* the head train (so choosing reads no queue) */
    int32_t bubble; /* of need: room kept for one more packet in the ring */
    uint8_t vc;     /* its VC on the channel                      */
    uint8_t open;   /* adaptive, still choosing: VC and need come from choose_vc */
} tm_waiter;

/* A channel.  Layout (for speed only): what arbitration reads fills the
 * first 64 bytes, what a transmission adds up the second; the array is
 * 64-byte aligned (temu_tm_create).  Since when short_mask has held is
 * kept beside the token counters (temu_tm.short_since). */
typedef struct tm_chan {
    /* hot: 64 bytes */
    int64_t busy_until;
    struct tm_waiter *wait; /* queues whose head waits for this channel */
    double ps_per_byte;
    int64_t ser_val; /* ser_ps cache: the time of ser_bytes */
    int64_t wire_ps;
    int32_t nwait, capwait;
    int32_t inq_waiting; /* ready heads waiting in this channel's queues */
    uint32_t ser_bytes;  /* ser_ps cache: last size asked */
    uint32_t short_mask; /* idle: VCs (bit v; NO_DYNAMIC) waiting heads lack tokens on */
    uint8_t try_pending;
    uint8_t stalled; /* credit stall interval open */
    uint16_t share;  /* ejection: of SHARE_ONE, the time committed until busy_until */
    /* cold: 64 bytes */
    temu_tm_lane_stats st;
    int64_t stall_since, inq_since;
} tm_chan;

/* An ejection channel's whole time, in tm_chan.share.  A train whose
 * packets arrive slower than the node takes them (from one link, or one
 * Gemini tile) uses the channel ser/sp of the time (ser: a packet's
 * serialization, sp: their spacing), and trains from several links share
 * it while their parts add up to at most the whole (rounded up), as the
 * single packets they stand for would interleave.  A single packet, or a
 * train at the channel's own rate, takes all of it. */
#define SHARE_ONE 32768u

/* the layout above: change it only with its comment */
_Static_assert(sizeof(tm_chan) == 128 && offsetof(tm_chan, st) == 64,
               "tm_chan is two cache lines, the hot one first");

/* A train of n packets of `bytes` each.  Times are the first packet's; the
 * others follow `sp` ps apart (sp: their spacing where they arrived).
 * Layout (for speed only): what every hop reads and writes fills the first
 * 64 bytes, the rest the second, and the array is 64-byte aligned
 * (alloc_train), so a hop touches one cache line of the train, two where
 * the route turns or the train is delivered.  Its ready time is not kept:
 * the READY event happens at it (become_head). */
typedef struct tm_train {
    /* hot: 64 bytes */
    int64_t hdr;    /* first header reached this queue (ejected: first delivery) */
    int64_t tail;   /* first tail reached this queue                             */
    int64_t sp;     /* ps between consecutive packets (0 in the source queue)     */
    uint32_t n;     /* packets                                                  */
    uint32_t bytes; /* size of the first nbig packets (1 <= nbig <= n)           */
    uint32_t nbig;
    uint32_t small; /* size of the others (an even split of a message's bytes)  */
    int32_t next;   /* next in queue, or in the free list */
    int32_t cur;    /* router the channel `chan` leaves (after injection) */
    int32_t chan;   /* channel to take next                              */
    uint16_t left;  /* hops left in the current dimension after `chan`  */
    uint8_t vc;     /* VC on `chan`                                       */
    uint8_t enter;  /* `chan` is the first hop of a dimension            */
    uint8_t di;     /* next position in the machine's dimension order    */
    uint8_t cls;
    uint8_t link;
    uint8_t adaptive; /* routed adaptively: the next channel is chosen at each router */
    uint8_t open;     /* adaptive, waiting: `chan` is only the deterministic candidate */
    uint8_t ncand;    /* adaptive: productive channels at `cur` (0: eject next)        */
    int8_t esc_dim;   /* adaptive: dimension of the hop just taken on the escape VC, -1 */
    /* cold: 64 bytes */
    int64_t created;
    uint64_t tag;
    uint32_t lane_key;
    int32_t src_node, dst_node;
    int32_t dst_router;
    int32_t cand[TEMU_MAX_DIMS];
    /* BG/Q message unit: memory requests of these packets, reads at the
     * source (issued at injection), writes at the destination (at delivery);
     * at most one per byte (temu_tm_send_even_mu), so below 2^31 per train */
    uint32_t mu_rd, mu_wr;
} tm_train;

/* the layout above: change it only with its comment */
_Static_assert(sizeof(tm_train) == 128 && offsetof(tm_train, created) == 64,
               "tm_train is two cache lines, the hot one first");

/* short_mask bit: no dynamic VC had tokens for an adaptive train */
#define NO_DYNAMIC (1u << 31)

/* An input queue (channel x VC) with what the sending side knows of it,
 * kept together: one cache line serves the queue and its credit. */
typedef struct tm_queue {
    int32_t head, tail;
    int64_t credit; /* bytes free, as the upstream side knows them          */
    int64_t occ;    /* packets x ps spent in the queue (header to read-out) */
} tm_queue;

/* A train's credit coming back upstream packet by packet, as single
 * packets' would: the first packet's at t0, then one every sp ps, without
 * an event each (settle_return folds what is back by now into the
 * queue's credit; a sender short of credit is woken when enough is
 * back).  Kept for queues of trains only (train_packets > 1). */
typedef struct tm_return {
    int64_t t0;       /* the next packet's credit is back upstream  */
    int64_t sp;       /* then one packet's every sp ps              */
    int64_t woken_at; /* a wake-up already scheduled for this time  */
    uint32_t n, nbig; /* packets still to come back; nbig of `big` bytes first */
    uint32_t big, small;
} tm_return;

struct temu_tm {
    temu_machine m;
    temu_tm_config c;
    int nvc;        /* VCs per channel */
    int per;        /* VCs per class: 2 (dateline) with credits or trains, else 1 */
    int bubble;     /* tokens with single packets: the bubble rule, one VC per class */
    int maxlanes;   /* 8 on Gemini, 1 on Blue Gene */
    int tlinks;     /* torus links per router: 2 * ndims */
    uint32_t train; /* longest train */
    int64_t ntorus; /* torus channels (existing or not) */
    int64_t nchan;  /* + injection + ejection channels */
    tm_chan *ch;
    tm_queue *q;          /* [nchan * nvc] input queues, then [nnodes] source queues */
    tm_return *ret;       /* [nchan * nvc] trains' credit coming back (trains only) */
    int64_t qbytes;       /* an input queue's size (per VC) */
    int32_t *nbr;         /* [nrouters * tlinks] neighbour router (-1: none) */
    int32_t *coord;       /* [nrouters * ndims] router coordinates */
    int32_t *node_router; /* [nnodes] */
    /* token flow only, torus channels: adaptive packets and bytes per VC
     * [ntorus * nvc], token-shortage time per VC and NO_DYNAMIC
     * [ntorus * (nvc + 1)] */
    uint64_t *vc_pk, *vc_bytes;
    int64_t *notok;
    int64_t *short_since; /* [ntorus] since when the channel's short_mask has held */
    /* BG/Q message unit, mu_request_ps > 0 only: requests x ps pending per
     * node, [2 * node] reads, [2 * node + 1] writes */
    int64_t *mu_pend;
    int lanes[2 * TEMU_MAX_DIMS]; /* lanes of each link direction */
    tm_train *tr;                 /* 64-byte aligned in tr_block (alloc_train) */
    void *tr_block;
    int32_t ntr, captr, freetr;
    temu_evq events; /* a: train, queue or channel; b: VC (CREDIT), head train (READY);
                      * c: bytes (CREDIT), its next channel (READY) */
    int64_t now;
    uint64_t pending;
    temu_tm_totals tot;
    int oom; /* an allocation failed during the run: results are incomplete */
    temu_tm_delivery_fn deliver;
    void *ctx;
    temu_tm_hop_fn hop; /* told of every train starting onto a channel (NULL: none) */
    void *hop_ctx;
};

/* Do trains share channel c by their parts of its time (SHARE_ONE)?  Only
 * Gemini's ejection channels, which the eight tiles feed at an eighth of a
 * link's rate each (doc/model.md, "Packet trains"). */
static int shares_ejection(const temu_tm *t, int64_t c)
{
    return t->train > 1 && t->maxlanes > 1 && c >= t->ntorus + t->m.nnodes;
}

/* ---------------------------------------------------------------- events */

static int push(temu_tm *t, int64_t when, int type, int32_t a, int32_t b, int32_t c)
{
    temu_event e = {when, type, a, b, c};
    if (temu_evq_push(&t->events, &e) != 0) {
        t->oom = 1;
        return -1;
    }
    return 0;
}

/* ---------------------------------------------------------------- layout */

static int64_t chan_id(const temu_tm *t, int64_t router, int link, int lane)
{
    return (router * t->tlinks + link) * t->maxlanes + lane;
}

static int64_t inject_chan(const temu_tm *t, int64_t node)
{
    return t->ntorus + node;
}

static int64_t eject_chan(const temu_tm *t, int64_t node)
{
    return t->ntorus + t->m.nnodes + node;
}

static int64_t source_queue(const temu_tm *t, int64_t node)
{
    return t->nchan * t->nvc + node;
}

static int lanes_of(const temu_machine *m, int link)
{
    int tiles[8];
    return m->system == TEMU_SYSTEM_GEMINI ? temu_gemini_link_tiles(link, tiles) : 1;
}

/* Link bandwidth per lane in GB/s, the machine's own figure. */
static double machine_lane_gbs(const temu_machine *m, int64_t router, int link)
{
    switch (m->system) {
    case TEMU_SYSTEM_GEMINI:
        /* per tile by medium: LDMS gemini.h, seed 000 Table II */
        return temu_medium_tile_bandwidth(temu_gemini_link_medium(m, router, link));
    case TEMU_SYSTEM_BGP:
        /* 425 MB/s per link and direction (IBM Blue Gene team, "Overview of
         * the IBM Blue Gene/P project", IBM J. Res. Dev. 52, 2008) */
        return 0.425;
    default:
        /* 2 GB/s per link and direction at the 500 MHz network clock
         * (reference/bgq REPORT, testint_inlines.h) */
        return 2.0;
    }
}

static int64_t ser_ps(const tm_chan *ch, uint32_t bytes)
{
    return (int64_t)ceil((double)bytes * ch->ps_per_byte - 1e-6);
}

/* ---------------------------------------------------------------- config */

temu_status temu_tm_config_default(const temu_machine *m, temu_tm_config *c, temu_error *err)
{
    memset(c, 0, sizeof *c);
    switch (m->system) {
    case TEMU_SYSTEM_GEMINI:
        /* ~105 ns per hop (lanl/PPT hopper_config.py, citing Alverson et
         * al., "The Gemini System Interconnect", HOTI 2010); the split into
         * router and wire time is our choice. */
        c->router_ps = 100000;
        c->wire_ps = 5000;
        c->max_packet = 96;       /* 32 phits of 3 bytes (seed 000 V.A) */
        c->buffer_bytes = 8 * 96; /* our assumption: 8 maximal packets per VC */
        c->classes = 2;           /* request VC0, response VC1 */
        c->flow = TEMU_TM_CREDIT;
        c->node_gbs = 4 * 1.30; /* a NIC's half of the 8 host tiles */
        break;
    case TEMU_SYSTEM_BGP:
        /* our assumption: 100 ns per hop */
        c->router_ps = 95000;
        c->wire_ps = 5000;
        c->max_packet = 256;       /* 8 chunks of 32 bytes */
        c->buffer_bytes = 4 * 256; /* our assumption */
        c->classes = 4;            /* VCD0, VCD1, bubble, priority: a FIFO each */
        c->flow = TEMU_TM_TOKEN;
        c->node_gbs = 6 * 0.425; /* our assumption: all six links at once */
        /* dynamic routing on VCD0 and VCD1, the bubble VC as escape
         * (Lakner 2008, Table 6-3 VC names; doc/model.md) */
        c->routing = TEMU_TM_ADAPTIVE;
        c->dynamic_vcs = 0x3;
        c->escape_vc = 2;
        break;
    case TEMU_SYSTEM_BGQ:
        /* ~40 ns per hop (lanl/PPT mira_config.py, citing Chen et al.) */
        c->router_ps = 35000;
        c->wire_ps = 5000;
        c->max_packet = 544;       /* 32-byte header + 512 payload bytes */
        c->buffer_bytes = 4 * 544; /* our assumption */
        c->classes = TEMU_BGQ_VCS; /* a receive FIFO per VC */
        c->flow = TEMU_TM_TOKEN;
        c->node_gbs = 10 * 2.0; /* our assumption: the ten torus links */
        /* user dynamic VC 0 routed adaptively, the escape VC 1 as fall-back
         * (reference/bgq: MU_Pt2PtNetworkHeader.h, fw_nd.c zone masks) */
        c->routing = TEMU_TM_ADAPTIVE;
        c->dynamic_vcs = 1u << TEMU_BGQ_VC_USER_DYNAMIC;
        c->escape_vc = TEMU_BGQ_VC_USER_ESCAPE;
        /* our assumption: a message-unit memory request is pending 64 MU
         * cycles (800 MHz, reference/bgq) = 80 ns, a round trip through the
         * switch to an L2 slice (doc/model.md) */
        c->mu_request_ps = 64 * 1250;
        break;
    default:
        return temu_fail(err, TEMU_EINVAL, "timing model: unknown system %d", m->system);
    }
    c->node_wire_ps = 0;
    c->credit_ps = c->wire_ps; /* credits travel back over the link */
    c->link_gbs = 0;
    /* single packets (measured, doc/model.md "Packet trains"): on Gemini a
     * message's packets take its tile slots in turn and trains of one slot
     * would leave the router's injection queue one after the other; on
     * Blue Gene trains need dateline VCs instead of the bubble rule, which
     * moves the stall counters by up to 1.8 x */
    c->train_packets = 1;
    return TEMU_OK;
}

static temu_status check_config(const temu_tm_config *c, temu_error *err)
{
    uint32_t need;
    if (c->router_ps < 0 || c->wire_ps < 0 || c->node_wire_ps < 0 || c->credit_ps < 0 ||
        c->mu_request_ps < 0) {
        return temu_fail(err, TEMU_EINVAL, "timing model: negative latency");
    }
    if (c->mu_request_ps > 1000000) {
        return temu_fail(err, TEMU_EINVAL, "timing model: mu_request_ps %lld above 1000000 (1 us)",
                         (long long)c->mu_request_ps);
    }
    if (c->classes < 1 || c->classes > TEMU_TM_MAX_CLASSES) {
        return temu_fail(err, TEMU_EINVAL, "timing model: classes must be 1..%d, not %u",
                         TEMU_TM_MAX_CLASSES, c->classes);
    }
    if (c->flow != TEMU_TM_CREDIT && c->flow != TEMU_TM_TOKEN) {
        return temu_fail(err, TEMU_EINVAL, "timing model: unknown flow control %u", c->flow);
    }
    if (c->max_packet == 0 || c->max_packet > 65536) {
        return temu_fail(err, TEMU_EINVAL, "timing model: max_packet %u outside 1..65536",
                         c->max_packet);
    }
    need = c->flow == TEMU_TM_TOKEN ? 2 * c->max_packet : c->max_packet;
    if (c->buffer_bytes < need) {
        return temu_fail(err, TEMU_EINVAL, "timing model: buffer_bytes %u below %u (%s)",
                         c->buffer_bytes, need,
                         c->flow == TEMU_TM_TOKEN ? "two maximal packets for the bubble rule"
                                                  : "one maximal packet");
    }
    if ((uint64_t)c->train_packets * c->max_packet > INT32_MAX) {
        return temu_fail(err, TEMU_EINVAL,
                         "timing model: train_packets %u x max_packet %u exceeds 2^31 bytes",
                         c->train_packets, c->max_packet);
    }
    if (!(c->node_gbs > 0) || c->link_gbs < 0 || !isfinite(c->link_gbs) || !isfinite(c->node_gbs)) {
        return temu_fail(err, TEMU_EINVAL, "timing model: bandwidths must be positive GB/s");
    }
    if (c->routing != TEMU_TM_DETERMINISTIC && c->routing != TEMU_TM_ADAPTIVE) {
        return temu_fail(err, TEMU_EINVAL, "timing model: unknown routing %u", c->routing);
    }
    if (c->routing == TEMU_TM_ADAPTIVE) {
        uint32_t all = c->classes >= 32 ? ~0u : (1u << c->classes) - 1;
        if (c->flow != TEMU_TM_TOKEN) {
            return temu_fail(err, TEMU_EINVAL,
                             "timing model: adaptive routing needs token flow control (an "
                             "escape VC with the bubble rule)");
        }
        if (c->train_packets > 1) {
            return temu_fail(err, TEMU_EINVAL,
                             "timing model: adaptive routing needs single packets (train_packets "
                             "%u > 1 travels on dateline VCs, not the escape VC's bubble rule)",
                             c->train_packets);
        }
        if (c->dynamic_vcs == 0 || (c->dynamic_vcs & ~all) != 0) {
            return temu_fail(err, TEMU_EINVAL,
                             "timing model: dynamic_vcs %#x must name classes 0..%u",
                             c->dynamic_vcs, c->classes - 1);
        }
        if (c->escape_vc >= c->classes || (c->dynamic_vcs >> c->escape_vc & 1u)) {
            return temu_fail(err, TEMU_EINVAL,
                             "timing model: escape_vc %u must be a class outside dynamic_vcs",
                             c->escape_vc);
        }
    }
    return TEMU_OK;
}

/* ---------------------------------------------------------------- create */

temu_status temu_tm_create(const temu_machine *m, const temu_tm_config *c, temu_tm **out,
                           temu_error *err)
{
    temu_status st;
    temu_tm *t;
    *out = NULL;
    if (c->routing == TEMU_TM_ADAPTIVE && m->system == TEMU_SYSTEM_GEMINI) {
        return temu_fail(err, TEMU_EINVAL,
                         "timing model: adaptive routing is modelled for Blue Gene only");
    }
    st = check_config(c, err);
    if (st != TEMU_OK) {
        return st;
    }
    t = calloc(1, sizeof *t);
    if (!t) {
        return temu_fail(err, TEMU_ENOMEM, "timing model: out of memory");
    }
    t->m = *m;
    t->c = *c;
    t->train = c->train_packets > 1 ? c->train_packets : 1;
    t->per = c->flow == TEMU_TM_CREDIT || t->train > 1 ? 2 : 1;
    t->bubble = c->flow == TEMU_TM_TOKEN && t->per == 1;
    t->nvc = (int)c->classes * t->per;
    t->maxlanes = m->system == TEMU_SYSTEM_GEMINI ? 8 : 1;
    t->tlinks = 2 * m->ndims;
    for (int l = 0; l < t->tlinks; l++) {
        t->lanes[l] = lanes_of(m, l);
    }
    t->ntorus = m->nrouters * t->tlinks * t->maxlanes;
    t->nchan = t->ntorus + 2 * m->nnodes;
    t->ch = aligned_alloc(64, (size_t)t->nchan * sizeof *t->ch); /* tm_chan's layout */
    if (t->ch) {
        memset(t->ch, 0, (size_t)t->nchan * sizeof *t->ch);
    }
    t->q = calloc((size_t)(t->nchan * t->nvc + m->nnodes), sizeof *t->q);
    t->nbr = malloc((size_t)(m->nrouters * t->tlinks) * sizeof *t->nbr);
    t->coord = malloc((size_t)(m->nrouters * m->ndims) * sizeof *t->coord);
    t->node_router = malloc((size_t)m->nnodes * sizeof *t->node_router);
    t->freetr = -1;
    if (c->flow == TEMU_TM_TOKEN) {
        t->vc_pk = calloc((size_t)(t->ntorus * t->nvc), sizeof *t->vc_pk);
        t->vc_bytes = calloc((size_t)(t->ntorus * t->nvc), sizeof *t->vc_bytes);
        t->notok = calloc((size_t)(t->ntorus * (t->nvc + 1)), sizeof *t->notok);
        t->short_since = calloc((size_t)t->ntorus, sizeof *t->short_since);
    }
    if (c->mu_request_ps > 0) {
        t->mu_pend = calloc((size_t)(2 * m->nnodes), sizeof *t->mu_pend);
    }
    if (t->train > 1) {
        t->ret = calloc((size_t)(t->nchan * t->nvc), sizeof *t->ret);
    }
    if (!t->ch || !t->q || !t->nbr || !t->coord || !t->node_router || (t->train > 1 && !t->ret) ||
        (c->flow == TEMU_TM_TOKEN && (!t->vc_pk || !t->vc_bytes || !t->notok || !t->short_since)) ||
        (c->mu_request_ps > 0 && !t->mu_pend)) {
        temu_tm_destroy(t);
        return temu_fail(err, TEMU_ENOMEM, "timing model: out of memory for %lld channels",
                         (long long)t->nchan);
    }
    for (int64_t i = 0; i < t->nchan * t->nvc + m->nnodes; i++) {
        t->q[i].head = t->q[i].tail = -1;
    }
    for (int64_t r = 0; r < m->nrouters; r++) {
        temu_router_coords(m, r, &t->coord[r * m->ndims]);
        for (int l = 0; l < t->tlinks; l++) {
            t->nbr[r * t->tlinks + l] = (int32_t)temu_link_neighbor(m, r, l);
        }
    }
    for (int64_t n = 0; n < m->nnodes; n++) {
        t->node_router[n] = (int32_t)temu_node_router(m, n);
    }
    for (int64_t r = 0; r < m->nrouters; r++) {
        for (int l = 0; l < t->tlinks; l++) {
            int lanes = temu_link_neighbor(m, r, l) >= 0 ? lanes_of(m, l) : 0;
            double gbs = c->link_gbs > 0 ? c->link_gbs : machine_lane_gbs(m, r, l);
            for (int k = 0; k < lanes; k++) {
                tm_chan *ch = &t->ch[chan_id(t, r, l, k)];
                ch->ps_per_byte = 1000.0 / gbs;
                ch->wire_ps = c->wire_ps;
            }
        }
    }
    for (int64_t n = 0; n < m->nnodes; n++) {
        tm_chan *in = &t->ch[inject_chan(t, n)], *ej = &t->ch[eject_chan(t, n)];
        in->ps_per_byte = ej->ps_per_byte = 1000.0 / c->node_gbs;
        in->wire_ps = ej->wire_ps = c->node_wire_ps;
    }
    /* tokens with trains: the dateline VCs share the queue's bytes */
    int64_t buffer =
        c->flow == TEMU_TM_TOKEN && t->per == 2 ? c->buffer_bytes / 2 : c->buffer_bytes;
    t->qbytes = buffer;
    for (int64_t i = 0; i < t->nchan * t->nvc; i++) {
        /* ejection channels end at the node, which always accepts */
        t->q[i].credit = i / t->nvc >= t->ntorus + m->nnodes ? INT64_MAX / 2 : buffer;
    }
    *out = t;
    return TEMU_OK;
}

void temu_tm_destroy(temu_tm *t)
{
    if (!t) {
        return;
    }
    if (t->ch) {
        for (int64_t i = 0; i < t->nchan; i++) {
            free(t->ch[i].wait);
        }
    }
    free(t->ch);
    free(t->vc_pk);
    free(t->vc_bytes);
    free(t->notok);
    free(t->short_since);
    free(t->mu_pend);
    free(t->q);
    free(t->ret);
    free(t->nbr);
    free(t->coord);
    free(t->node_router);
    free(t->tr_block);
    temu_evq_free(&t->events);
    free(t);
}

void temu_tm_config_get(const temu_tm *t, temu_tm_config *out)
{
    *out = t->c;
}

void temu_tm_set_delivery(temu_tm *t, temu_tm_delivery_fn fn, void *ctx)
{
    t->deliver = fn;
    t->ctx = ctx;
}

void temu_tm_set_hop(temu_tm *t, temu_tm_hop_fn fn, void *ctx)
{
    t->hop = fn;
    t->hop_ctx = ctx;
}

int64_t temu_tm_now(const temu_tm *t)
{
    return t->now;
}

int64_t temu_tm_next_event(const temu_tm *t)
{
    return temu_evq_next_time(&t->events);
}

uint64_t temu_tm_pending(const temu_tm *t)
{
    return t->pending;
}

temu_status temu_tm_check(const temu_tm *t, temu_error *err)
{
    if (t->oom) {
        return temu_fail(err, TEMU_ENOMEM,
                         "timing model: out of memory during the run; results incomplete");
    }
    return TEMU_OK;
}

/* ---------------------------------------------------------------- send */

static int32_t alloc_train(temu_tm *t)
{
    int32_t i;
    if (t->freetr >= 0) {
        i = t->freetr;
        t->freetr = t->tr[i].next;
        return i;
    }
    if (t->ntr == t->captr) {
        /* 64-byte aligned (the train's layout) inside a block grown by
         * realloc, which moves large blocks without copying */
        int32_t cap = t->captr ? 2 * t->captr : 1024;
        size_t was = t->tr ? (size_t)((char *)t->tr - (char *)t->tr_block) : 0;
        char *block =
            cap > t->captr ? realloc(t->tr_block, (size_t)cap * sizeof *t->tr + 64) : NULL;
        if (!block) {
            return -1;
        }
        size_t at = (64 - (uintptr_t)block % 64) % 64;
        if (at != was) {
            memmove(block + at, block + was, (size_t)t->ntr * sizeof *t->tr);
        }
        t->tr_block = block;
        t->tr = (tm_train *)(block + at);
        t->captr = cap;
    }
    return t->ntr++;
}

static int32_t lane_chan(const temu_tm *t, const tm_train *tr)
{
    return (int32_t)chan_id(t, tr->cur, tr->link,
                            (int)(tr->lane_key % (uint32_t)t->lanes[tr->link]));
}

/* The train is at router tr->cur with no hop left in its dimension: its next
 * channel is the first hop of the next dimension of the deterministic route
 * (route.c), or the ejection channel.  Dateline (credit flow): a dimension
 * whose hops use the wrap link travels on the class's second VC for all its
 * hops, the others on the first (BookSim's dim_order_torus rule,
 * deadlock-free on every ring). */
static void next_dimension(temu_tm *t, tm_train *tr)
{
    const temu_machine *m = &t->m;
    const int32_t *cs = &t->coord[(int64_t)tr->cur * m->ndims];
    const int32_t *cd = &t->coord[(int64_t)tr->dst_router * m->ndims];
    while (tr->di < m->ndims) {
        int d = m->dim_order[tr->di++], dir;
        int steps = temu_route_dim_steps(m, d, cs[d], cd[d], &dir);
        if (steps == 0) {
            continue;
        }
        int wraps = dir > 0 ? cd[d] < cs[d] : cd[d] > cs[d];
        tr->link = (uint8_t)(dir > 0 ? TEMU_LINK_PLUS(d) : TEMU_LINK_MINUS(d));
        tr->left = (uint16_t)(steps - 1);
        tr->vc = (uint8_t)(tr->cls * (uint32_t)t->per + (uint32_t)(t->per == 2 && wraps));
        tr->enter = 1;
        tr->chan = lane_chan(t, tr);
        return;
    }
    tr->chan = (int32_t)eject_chan(t, tr->dst_node);
    tr->vc = 0;
    tr->enter = 0;
}

/* Adaptive train at router tr->cur: its productive channels, one per
 * dimension it still has to travel, in the direction the deterministic
 * route takes there (temu_route_dim_steps: shortest, ties +), so every
 * choice keeps the path minimal; in the machine's dimension order, so
 * cand[0] is the deterministic route's next channel, the escape direction.
 * None left: the ejection channel is next. */
static void adaptive_candidates(temu_tm *t, tm_train *tr)
{
    const temu_machine *m = &t->m;
    const int32_t *cs = &t->coord[(int64_t)tr->cur * m->ndims];
    const int32_t *cd = &t->coord[(int64_t)tr->dst_router * m->ndims];
    tr->ncand = 0;
    for (int i = 0; i < m->ndims; i++) {
        int d = m->dim_order[i], dir;
        if (temu_route_dim_steps(m, d, cs[d], cd[d], &dir) > 0) {
            int link = dir > 0 ? TEMU_LINK_PLUS(d) : TEMU_LINK_MINUS(d);
            tr->cand[tr->ncand++] = (int32_t)chan_id(t, tr->cur, link, 0);
        }
    }
    tr->open = tr->ncand > 0;
    tr->chan = tr->open ? tr->cand[0] : (int32_t)eject_chan(t, tr->dst_node);
    tr->vc = tr->open ? tr->vc : 0;
    tr->enter = 0;
}

/* The train crossed channel tr->chan (injection or torus): on to the next. */
static void advance(temu_tm *t, tm_train *tr)
{
    if (tr->adaptive) {
        tr->esc_dim = -1;
        if (tr->chan < t->ntorus) {
            tr->esc_dim = tr->vc == t->c.escape_vc ? (int8_t)(tr->link / 2) : -1;
            tr->cur = t->nbr[(int64_t)tr->cur * t->tlinks + tr->link];
        }
        adaptive_candidates(t, tr);
        return;
    }
    if (tr->chan < t->ntorus) {
        tr->cur = t->nbr[(int64_t)tr->cur * t->tlinks + tr->link];
        if (tr->left > 0) {
            tr->left--;
            tr->enter = 0;
            tr->chan = lane_chan(t, tr);
            return;
        }
    }
    next_dimension(t, tr);
}

static void append(temu_tm *t, int64_t q, int32_t p);

static temu_status check_send(const temu_tm *t, int64_t when_ps, int64_t src, int64_t dst,
                              uint32_t bytes, uint32_t count, uint32_t cls, temu_error *err)
{
    if (t->oom) {
        return temu_fail(err, TEMU_ENOMEM,
                         "timing model: out of memory during the run; results incomplete");
    }
    if (src < 0 || src >= t->m.nnodes || dst < 0 || dst >= t->m.nnodes) {
        return temu_fail(err, TEMU_ERANGE, "timing model: node %lld or %lld outside 0..%lld",
                         (long long)src, (long long)dst, (long long)t->m.nnodes - 1);
    }
    if (bytes == 0 || bytes > t->c.max_packet) {
        return temu_fail(err, TEMU_EINVAL, "timing model: packet of %u bytes outside 1..%u", bytes,
                         t->c.max_packet);
    }
    if (count == 0) {
        return temu_fail(err, TEMU_EINVAL, "timing model: a send of 0 packets");
    }
    if (cls >= t->c.classes) {
        return temu_fail(err, TEMU_EINVAL, "timing model: class %u, the model has %u", cls,
                         t->c.classes);
    }
    if (when_ps < t->now) {
        return temu_fail(err, TEMU_EINVAL,
                         "timing model: packet created at %lld ps, before now (%lld ps)",
                         (long long)when_ps, (long long)t->now);
    }
    return TEMU_OK;
}

/* count packets, the first nbig of `bytes` and the others of `small`, in
 * trains of at most t->train packets; mu[0], mu[1]: the message unit's read
 * and write requests of the count packets, split evenly over them
 * (temu_even_share). */
static temu_status send_packets(temu_tm *t, int64_t when_ps, int64_t src, int64_t dst,
                                uint32_t bytes, uint32_t nbig, uint32_t small, uint32_t count,
                                uint32_t cls, uint32_t lane_key, uint64_t tag, const uint64_t mu[2],
                                temu_error *err)
{
    uint64_t all = count, sent = 0;
    temu_status st = check_send(t, when_ps, src, dst, nbig ? bytes : small, count, cls, err);
    if (st == TEMU_OK && nbig < count) {
        st = check_send(t, when_ps, src, dst, small, count, cls, err);
    }
    while (st == TEMU_OK && count > 0) {
        uint32_t n = count < t->train ? count : t->train;
        int32_t p = alloc_train(t);
        if (p < 0 || (when_ps > t->now && push(t, when_ps, EV_CREATE, p, 0, 0) != 0)) {
            return temu_fail(err, TEMU_ENOMEM, "timing model: out of memory for packets");
        }
        tm_train *tr = &t->tr[p];
        memset(tr, 0, sizeof *tr);
        tr->created = tr->hdr = tr->tail = when_ps;
        tr->tag = tag;
        tr->n = n;
        tr->nbig = nbig < n ? nbig : n;
        tr->bytes = tr->nbig > 0 ? bytes : small;
        tr->small = small;
        if (tr->nbig == 0) {
            tr->nbig = n;
        }
        nbig -= nbig < n ? nbig : n;
        tr->lane_key = lane_key;
        tr->next = -1;
        tr->src_node = (int32_t)src;
        tr->dst_node = (int32_t)dst;
        tr->dst_router = t->node_router[dst];
        tr->cur = t->node_router[src];
        tr->cls = (uint8_t)cls;
        tr->chan = (int32_t)inject_chan(t, src);
        tr->vc = (uint8_t)(cls * (uint32_t)t->per);
        tr->adaptive = t->c.routing == TEMU_TM_ADAPTIVE && (t->c.dynamic_vcs >> cls & 1u);
        tr->esc_dim = -1;
        tr->mu_rd = (uint32_t)temu_even_share(mu[0], all, sent, n);
        tr->mu_wr = (uint32_t)temu_even_share(mu[1], all, sent, n);
        sent += n;
        t->pending += n;
        count -= n;
        if (when_ps == t->now) {
            append(t, source_queue(t, src), p); /* created now: no event needed */
        }
    }
    return st;
}

temu_status temu_tm_send_train(temu_tm *t, int64_t when_ps, int64_t src, int64_t dst,
                               uint32_t bytes, uint32_t count, uint32_t cls, uint32_t lane_key,
                               uint64_t tag, temu_error *err)
{
    static const uint64_t no_mu[2] = {0, 0};
    return send_packets(t, when_ps, src, dst, bytes, count, bytes, count, cls, lane_key, tag, no_mu,
                        err);
}

temu_status temu_tm_send_even_mu(temu_tm *t, int64_t when_ps, int64_t src, int64_t dst,
                                 uint32_t count, uint64_t units, uint32_t unit_bytes, uint32_t cls,
                                 uint32_t lane_key, uint64_t tag, uint64_t mu_reads,
                                 uint64_t mu_writes, temu_error *err)
{
    const uint64_t mu[2] = {mu_reads, mu_writes};
    if (count == 0 || units < count || units / count + 1 > UINT32_MAX / unit_bytes) {
        return temu_fail(err, TEMU_EINVAL,
                         "timing model: %llu units of %u bytes cannot fill %u packets",
                         (unsigned long long)units, unit_bytes, count);
    }
    if (mu_reads > units * unit_bytes || mu_writes > units * unit_bytes) {
        return temu_fail(err, TEMU_EINVAL,
                         "timing model: %llu reads, %llu writes for %llu bytes (at most one "
                         "request per byte)",
                         (unsigned long long)mu_reads, (unsigned long long)mu_writes,
                         (unsigned long long)(units * unit_bytes));
    }
    uint32_t q = (uint32_t)(units / count), big = (uint32_t)(units % count);
    return send_packets(t, when_ps, src, dst, (q + 1) * unit_bytes, big, q * unit_bytes, count, cls,
                        lane_key, tag, mu, err);
}

temu_status temu_tm_send_even(temu_tm *t, int64_t when_ps, int64_t src, int64_t dst, uint32_t count,
                              uint64_t units, uint32_t unit_bytes, uint32_t cls, uint32_t lane_key,
                              uint64_t tag, temu_error *err)
{
    return temu_tm_send_even_mu(t, when_ps, src, dst, count, units, unit_bytes, cls, lane_key, tag,
                                0, 0, err);
}

temu_status temu_tm_send(temu_tm *t, int64_t when_ps, int64_t src, int64_t dst, uint32_t bytes,
                         uint32_t cls, uint32_t lane_key, uint64_t tag, temu_error *err)
{
    return temu_tm_send_train(t, when_ps, src, dst, bytes, 1, cls, lane_key, tag, err);
}

/* ---------------------------------------------------------------- engine */

static int is_source(const temu_tm *t, int64_t q)
{
    return q >= t->nchan * t->nvc;
}

/* ------------------------------------------------- trains' credit return */

/* Queue qi's credit with what its train's return stream has brought back
 * by now. */
static void settle_return(temu_tm *t, int64_t qi)
{
    tm_return *r = t->ret != NULL ? &t->ret[qi] : NULL;
    if (r == NULL || r->n == 0 || t->now < r->t0) {
        return;
    }
    uint64_t k = r->sp > 0 ? (uint64_t)((t->now - r->t0) / r->sp) + 1 : r->n;
    k = k < r->n ? k : r->n;
    uint64_t kb = k < r->nbig ? k : r->nbig;
    t->q[qi].credit += (int64_t)(kb * r->big + (k - kb) * r->small);
    r->nbig -= (uint32_t)kb;
    r->n -= (uint32_t)k;
    r->t0 += (int64_t)k * r->sp;
}

/* When queue qi's credit (settled) reaches need by its return stream, or
 * INT64_MAX if the stream does not bring enough. */
static int64_t return_time(const temu_tm *t, int64_t qi, int64_t need)
{
    const tm_return *r = t->ret != NULL ? &t->ret[qi] : NULL;
    int64_t lack = need - t->q[qi].credit;
    if (r == NULL || r->n == 0 || lack <= 0) {
        return INT64_MAX;
    }
    uint64_t k, bigs = (uint64_t)r->nbig * r->big;
    if ((uint64_t)lack <= bigs) {
        k = ((uint64_t)lack + r->big - 1) / r->big;
    } else if (r->small > 0) {
        k = r->nbig + ((uint64_t)lack - bigs + r->small - 1) / r->small;
    } else {
        return INT64_MAX;
    }
    return k <= r->n ? r->t0 + (int64_t)(k - 1) * r->sp : INT64_MAX;
}

/* ------------------------------------------------------ adaptive routing */

static int chan_dim(const temu_tm *t, int64_t c)
{
    return c >= t->ntorus ? -1 : (int)(c / t->maxlanes % t->tlinks) / 2;
}

/* The VC adaptive train tr (still choosing) would take on channel c now,
 * or -1; then *lack gains the VCs whose tokens were too few for one packet
 * and NO_DYNAMIC.  *bubble: the extra room the bubble rule asks for.  The
 * dynamic VC with the most tokens (ties: the lower), else on the
 * deterministic channel the escape VC, entering an escape ring (and
 * needing the bubble) unless the hop before was on the escape VC of the
 * same dimension (Puente et al., "Adaptive bubble router", 1999). */
static int choose_vc(const temu_tm *t, const tm_train *tr, int64_t c, uint32_t *lack,
                     int64_t *bubble)
{
    const tm_queue *cq = &t->q[c * t->nvc];
    int best = -1;
    *bubble = 0;
    for (int v = 0; v < t->nvc; v++) {
        if ((t->c.dynamic_vcs >> v & 1u) && cq[v].credit >= tr->bytes &&
            (best < 0 || cq[v].credit > cq[best].credit)) {
            best = v;
        }
    }
    if (best >= 0) {
        return best;
    }
    *lack |= t->c.dynamic_vcs | NO_DYNAMIC;
    if (c == tr->cand[0]) {
        int e = (int)t->c.escape_vc;
        *bubble = tr->esc_dim != chan_dim(t, c) ? t->c.max_packet : 0;
        if (cq[e].credit >= tr->bytes + *bubble) {
            return e;
        }
        *lack |= 1u << e;
    }
    return -1;
}

/* The VC waiter w's head would take on channel c now, or -1 (then *lack
 * gains the VCs it lacks tokens on); *bubble: the room kept beyond its
 * packet.  Routed heads: their VC when the credit covers their need. */
static int waiter_vc(temu_tm *t, const tm_waiter *w, int64_t c, uint32_t *lack, int64_t *bubble)
{
    if (w->open) {
        return choose_vc(t, &t->tr[w->p], c, lack, bubble);
    }
    *bubble = w->bubble;
    settle_return(t, c * t->nvc + w->vc);
    if (t->q[c * t->nvc + w->vc].credit >= w->need) {
        return (int)w->vc;
    }
    *lack |= 1u << w->vc;
    return -1;
}

/* Channel c's token shortage changes to mask: the time the old mask held
 * goes to each of its VCs (BG/P no-token counters). */
static void set_short(temu_tm *t, int64_t c, uint32_t mask)
{
    tm_chan *ch = &t->ch[c];
    if (t->notok == NULL || c >= t->ntorus || mask == ch->short_mask) {
        return;
    }
    int64_t dt = t->now - t->short_since[c], *acc = &t->notok[c * (t->nvc + 1)];
    for (int v = 0; v < t->nvc; v++) {
        acc[v] += (ch->short_mask >> v & 1u) ? dt : 0;
    }
    acc[t->nvc] += (ch->short_mask & NO_DYNAMIC) ? dt : 0;
    ch->short_mask = mask;
    t->short_since[c] = t->now;
}

static void remove_waiter(tm_chan *ch, int64_t q)
{
    for (int i = 0; i < ch->nwait; i++) {
        if (ch->wait[i].q == q) {
            ch->wait[i] = ch->wait[--ch->nwait];
            return;
        }
    }
}

static void close_stall(tm_chan *ch, int64_t now);

/* A waiting head left idle channel c for another: its stall state is
 * what the remaining waiters make it. */
static void waiter_left(temu_tm *t, int64_t c)
{
    tm_chan *ch = &t->ch[c];
    uint32_t lack = 0;
    int64_t bubble;
    if (ch->busy_until > t->now) {
        return;
    }
    for (int i = 0; i < ch->nwait; i++) {
        waiter_vc(t, &ch->wait[i], c, &lack, &bubble);
    }
    if (ch->nwait == 0) {
        close_stall(ch, t->now);
    }
    set_short(t, c, lack);
}

/* Adaptive train tr, head of queue q, leaves on channel c with VC vc: fix
 * its route for this hop and stop waiting for the other productive
 * channels. */
static void take_route(temu_tm *t, int64_t q, tm_train *tr, int64_t c, int vc, int64_t bubble)
{
    for (int i = 0; i < tr->ncand; i++) {
        if (tr->cand[i] != c) {
            remove_waiter(&t->ch[tr->cand[i]], q);
            waiter_left(t, tr->cand[i]);
        }
    }
    tr->chan = (int32_t)c;
    tr->vc = (uint8_t)vc;
    tr->link = (uint8_t)(c / t->maxlanes % t->tlinks);
    tr->enter = bubble > 0;
    tr->open = 0;
}

/* Most dynamic tokens free on channel c's dynamic VCs. */
static int64_t dynamic_room(const temu_tm *t, int64_t c)
{
    int64_t room = 0;
    for (int v = 0; v < t->nvc; v++) {
        if ((t->c.dynamic_vcs >> v & 1u) && t->q[c * t->nvc + v].credit > room) {
            room = t->q[c * t->nvc + v].credit;
        }
    }
    return room;
}

/* Serialization of `bytes` on a channel (remembered: trains repeat sizes). */
static int64_t ser_of(tm_chan *ch, uint32_t bytes)
{
    if (ch->ser_bytes != bytes) {
        ch->ser_bytes = bytes;
        ch->ser_val = ser_ps(ch, bytes);
    }
    return ch->ser_val;
}

/* The train now first in queue q becomes its head at head_time (when the
 * last tail of the train before it has been read out): when may it leave? */
static void become_head(temu_tm *t, int64_t q, int64_t head_time)
{
    int32_t p = t->q[q].head;
    if (p < 0) {
        return;
    }
    tm_train *tr = &t->tr[p];
    int64_t ready = tr->hdr + (is_source(t, q) ? 0 : t->c.router_ps);
    int64_t s_out = ser_of(&t->ch[tr->chan], tr->bytes);
    if (head_time > ready) {
        ready = head_time;
    }
    /* cut-through onto a faster channel cannot overtake the arriving tail */
    if (tr->tail - s_out > ready) {
        ready = tr->tail - s_out;
    }
    push(t, ready, EV_READY, (int32_t)q, p, tr->chan);
}

static void append(temu_tm *t, int64_t q, int32_t p)
{
    t->tr[p].next = -1;
    if (t->q[q].tail >= 0) {
        t->tr[t->q[q].tail].next = p;
        t->q[q].tail = p;
        return;
    }
    t->q[q].head = t->q[q].tail = p;
    become_head(t, q, t->now);
}

static void close_stall(tm_chan *ch, int64_t now)
{
    if (ch->stalled) {
        ch->st.credit_stall_ps += now - ch->stall_since;
        ch->stalled = 0;
    }
}

/* Leave the first m packets of queue q's head train at its head and put the
 * rest behind it as a train of its own; -1 if out of memory. */
static int split(temu_tm *t, int64_t q, uint32_t m)
{
    int32_t r = alloc_train(t);
    if (r < 0) {
        t->oom = 1;
        return -1;
    }
    int32_t p = t->q[q].head;
    tm_train *tr = &t->tr[p], *rest = &t->tr[r];
    *rest = *tr;
    rest->n = tr->n - m;
    rest->hdr += (int64_t)m * tr->sp;
    rest->tail += (int64_t)m * tr->sp;
    if (tr->nbig > m) {
        rest->nbig = tr->nbig - m;
        tr->nbig = m;
    } else {
        rest->bytes = tr->small; /* the rest are all small */
        rest->nbig = rest->n;
    }
    /* the message unit's requests stay with their packets */
    tr->mu_rd = (uint32_t)temu_even_share(tr->mu_rd, tr->n, 0, m);
    tr->mu_wr = (uint32_t)temu_even_share(tr->mu_wr, tr->n, 0, m);
    rest->mu_rd -= tr->mu_rd;
    rest->mu_wr -= tr->mu_wr;
    tr->n = m;
    tr->next = r;
    if (t->q[q].tail == p) {
        t->q[q].tail = r;
    }
    return 0;
}

/* Spacing of the train's packets on the channel it starts on now: the
 * first starts now and the last when the per-packet model would start it
 * (after its own arrival, and after the packets ahead of it were read in at
 * the input rate and sent at the output rate). */
static int64_t out_spacing(const temu_tm *t, const tm_train *tr, uint32_t n, int src, int64_t s_in,
                           int64_t s_out)
{
    int64_t k = (int64_t)n - 1;
    if (k == 0) {
        return s_out;
    }
    int64_t lo = s_in > s_out ? s_in : s_out;
    int64_t last = t->now + k * lo;
    int64_t arrive = tr->hdr + k * tr->sp + (src ? 0 : t->c.router_ps);
    int64_t cut = tr->tail + k * tr->sp - s_out;
    last = arrive > last ? arrive : last;
    last = cut > last ? cut : last;
    return (last - t->now + k - 1) / k;
}

/* Tell the hop function that train tr starts onto channel c now, on VC
 * vc (torus channels), carrying `total` bytes with packets sp apart, each
 * serialized in ser ps. */
static void report_hop(const temu_tm *t, const tm_train *tr, int64_t c, int vc, int64_t total,
                       int64_t sp, int64_t ser)
{
    temu_tm_hop h;
    memset(&h, 0, sizeof h);
    h.start_ps = t->now;
    h.spacing_ps = tr->n > 1 ? sp : 0;
    h.ser_ps = ser;
    h.tag = tr->tag;
    h.bytes = (uint64_t)total;
    h.packets = tr->n;
    h.cls = tr->cls;
    h.lane_key = tr->lane_key;
    h.adaptive = tr->adaptive;
    if (c < t->ntorus) {
        h.kind = TEMU_TM_HOP_LINK;
        h.lane = (int32_t)(c % t->maxlanes);
        h.link = (int32_t)(c / t->maxlanes % t->tlinks);
        h.router = c / t->maxlanes / t->tlinks;
        h.to_router = t->nbr[h.router * t->tlinks + h.link];
        h.vc_class = (uint32_t)vc / (uint32_t)t->per;
    } else if (c < t->ntorus + t->m.nnodes) {
        h.kind = TEMU_TM_HOP_INJECT;
        h.node = c - t->ntorus;
    } else {
        h.kind = TEMU_TM_HOP_EJECT;
        h.node = c - t->ntorus - t->m.nnodes;
    }
    t->hop(t->hop_ctx, &h);
}

/* The part of a channel's time (of SHARE_ONE) a train takes whose packets
 * are each sent in ser ps, sp ps apart (sp >= ser): rounded up. */
static uint32_t train_part(int64_t ser, int64_t sp)
{
    if (sp <= ser) {
        return SHARE_ONE;
    }
    return (uint32_t)(((uint64_t)ser * SHARE_ONE + (uint64_t)sp - 1) / (uint64_t)sp);
}

/* Train tr's n packets leave queue q from now, sp apart: their credit
 * comes back upstream one packet at a time from t0 (tm_return).  What an
 * earlier train of the queue has still to give back comes back all at
 * once, at the mean of its packets' times (the queue keeps one stream). */
static void give_back(temu_tm *t, int64_t q, const tm_train *tr, uint32_t n, int64_t sp, int64_t t0)
{
    tm_return *r = &t->ret[q];
    settle_return(t, q);
    if (r->n > 0) {
        int64_t rest = (int64_t)r->nbig * r->big + (int64_t)(r->n - r->nbig) * r->small;
        push(t, r->t0 + (int64_t)(r->n - 1) * r->sp / 2, EV_CREDIT, (int32_t)(q / t->nvc),
             (int32_t)(q % t->nvc), (int32_t)rest);
    }
    r->t0 = t0;
    r->sp = sp;
    r->woken_at = -1;
    r->n = n;
    r->nbig = tr->nbig < n ? tr->nbig : n;
    r->big = tr->bytes;
    r->small = tr->small;
    if (t->ch[q / t->nvc].nwait > 0) {
        /* a sender may be short of this credit already: look again when
         * the first packet's is back */
        r->woken_at = t0;
        push(t, t0, EV_CREDIT, (int32_t)(q / t->nvc), (int32_t)(q % t->nvc), 0);
    }
}

/* Queue q's head train p starts m of its packets onto channel c now. */
static void transmit(temu_tm *t, int64_t q, int32_t p, int64_t c, uint32_t m)
{
    if (m < t->tr[p].n && split(t, q, m) != 0) {
        return;
    }
    tm_chan *ch = &t->ch[c];
    tm_train *tr = &t->tr[p];
    int src = is_source(t, q);
    int64_t n = tr->n, nbig = tr->nbig;
    int64_t total = nbig * tr->bytes + (n - nbig) * tr->small;
    int64_t ser = ser_of(ch, tr->bytes); /* the first packet is a largest one */
    int64_t ser_small = nbig < n ? ser_ps(ch, tr->small) : ser;
    /* the input port reads the packet out at the rate it came in (our
     * assumption: the router's internal path is as fast as its input, and
     * a slower output holds at most the packet it is sending, as Gemini's
     * column buffers do); a source queue empties at its injection rate */
    int64_t readout = src ? ser : ser_of(&t->ch[q / t->nvc], tr->bytes);
    int64_t sp = out_spacing(t, tr, tr->n, src, readout, ser);
    int64_t last = t->now + (n - 1) * sp; /* the last packet starts */
    int vc = tr->vc;

    t->q[q].head = tr->next;
    if (tr->next < 0) {
        t->q[q].tail = -1;
    }
    remove_waiter(ch, q);
    if (src && t->mu_pend != NULL) {
        /* the message unit reads the payloads as it injects the packets */
        t->mu_pend[2 * (int64_t)tr->src_node] += (int64_t)tr->mu_rd * t->c.mu_request_ps;
    }
    if (!src) {
        /* the queue's space comes back upstream once the tails are read
         * out: a train's all at once, at the mean of its packets' times */
        tm_chan *up = &t->ch[q / t->nvc];
        if (--up->inq_waiting == 0) {
            up->st.inq_stall_ps += t->now - up->inq_since;
        }
        /* each packet present from its header's arrival to its read-out */
        t->q[q].occ += n * (t->now + readout - tr->hdr) + (sp - tr->sp) * (n * (n - 1) / 2);
        if (n == 1 || t->ret == NULL || total > t->qbytes) {
            /* a train larger than the queue went in on credit it did not
             * have: given back packet by packet, the queue would stay below
             * zero, and every other sender out, until nearly the whole train
             * had left; at the mean of its packets' times the others get in
             * halfway, nearer what interleaved single packets would do
             * (measured, doc/model.md "Packet trains") */
            push(t, t->now + readout + (n - 1) * sp / 2 + t->c.credit_ps, EV_CREDIT,
                 (int32_t)(q / t->nvc), (int32_t)(q % t->nvc), (int32_t)total);
        } else {
            give_back(t, q, tr, n, sp, t->now + readout + t->c.credit_ps);
        }
    }
    if (t->hop != NULL) {
        report_hop(t, tr, c, vc, total, sp, ser);
    }
    /* the part of the channel's time this train takes (ejection channels
     * with shared trains only), added to that of trains still arriving */
    uint32_t part = n == 1 || !shares_ejection(t, c) ? SHARE_ONE : train_part(ser, sp);
    if (ch->busy_until <= t->now) {
        ch->share = (uint16_t)part;
        ch->busy_until = last + ser_small;
    } else {
        ch->share = (uint16_t)(ch->share + part);
        ch->busy_until = last + ser_small > ch->busy_until ? last + ser_small : ch->busy_until;
    }
    ch->st.packets += (uint64_t)n;
    ch->st.bytes += (uint64_t)total;
    ch->st.busy_ps += nbig * ser + (n - nbig) * ser_small;
    if (c >= t->ntorus + t->m.nnodes) {
        tr->hdr = t->now + ser + ch->wire_ps; /* the first packet's delivery */
        tr->sp = sp;
        push(t, last + ser_small + ch->wire_ps, EV_DELIVER, p, 0, 0);
    } else {
        if (c < t->ntorus) {
            t->tot.packet_hops += (uint64_t)n;
            t->tot.train_hops++;
            if (tr->adaptive && t->vc_pk != NULL) {
                t->vc_pk[c * t->nvc + vc] += (uint64_t)n;
                t->vc_bytes[c * t->nvc + vc] += (uint64_t)total;
            }
        }
        t->q[c * t->nvc + vc].credit -= total;
        tr->hdr = t->now + ch->wire_ps;
        tr->tail = t->now + ser + ch->wire_ps;
        tr->sp = sp;
        advance(t, tr);
        append(t, c * t->nvc + vc, p);
    }
    become_head(t, q, last + readout);
    if (ch->nwait > 0 && !ch->try_pending) {
        ch->try_pending = 1;
        push(t, ch->busy_until, EV_TRY, (int32_t)c, 0, 0);
    }
}

/* Packets of queue q's head train to send on channel c now.  The train
 * started because its first packet had credit.  If the queue it enters is
 * empty it goes whole and takes credit for all its packets, which may
 * exceed the queue's size: the rest streams in as the queue drains, and a
 * full queue stops the next train upstream.  If that queue holds others
 * and the credit does not cover the train, only what the credit covers
 * goes and the rest waits as a train of its own (train_whole: it goes
 * whole anyway).  The debt cannot deadlock: trains travel on dateline VCs,
 * whose dependencies have no cycle (the bubble rule of tokens would not
 * survive it). */
static uint32_t train_share(const temu_tm *t, int32_t p, int64_t c, int64_t credit, int64_t bubble)
{
    const tm_train *tr = &t->tr[p];
    if (tr->n == 1 || c >= t->ntorus + t->m.nnodes ||
        credit - bubble >=
            (int64_t)tr->nbig * tr->bytes + (int64_t)(tr->n - tr->nbig) * tr->small ||
        t->q[c * t->nvc + tr->vc].head < 0 || t->c.train_whole) {
        return tr->n;
    }
    return (uint32_t)((credit - bubble) / tr->bytes);
}

/* Try channel c again when the trains on it have all been sent. */
static void retry_when_free(temu_tm *t, tm_chan *ch, int64_t c)
{
    if (!ch->try_pending) {
        ch->try_pending = 1;
        push(t, ch->busy_until, EV_TRY, (int32_t)c, 0, 0);
    }
}

/* The part of ejection channel c's time (train_part) the first m packets
 * of queue q's head train p would take if they started now. */
static uint32_t part_now(temu_tm *t, int64_t q, int32_t p, int64_t c, uint32_t m)
{
    const tm_train *tr = &t->tr[p];
    if (m == 1) {
        return SHARE_ONE;
    }
    int64_t ser = ser_of(&t->ch[c], tr->bytes);
    int64_t readout = ser_of(&t->ch[q / t->nvc], tr->bytes);
    return train_part(ser, out_spacing(t, tr, m, 0, readout, ser));
}

static void try_chan(temu_tm *t, int64_t c)
{
    tm_chan *ch = &t->ch[c];
    int64_t best = -1, best_ready = 0, best_credit = 0, best_bubble = 0;
    int32_t best_p = -1;
    int best_vc = -1;
    uint32_t lack = 0;
    /* trains still arriving into an ejection channel's node (not idle):
     * another may join them while their parts leave room */
    int sending = ch->busy_until > t->now;
    if (sending && (ch->share >= SHARE_ONE || !shares_ejection(t, c))) {
        retry_when_free(t, ch, c);
        return;
    }
    const tm_queue *cq = &t->q[c * t->nvc];
    for (int i = 0; i < ch->nwait; i++) {
        const tm_waiter *w = &ch->wait[i];
        int64_t bubble;
        int vc = waiter_vc(t, w, c, &lack, &bubble);
        if (vc < 0) {
            continue;
        }
        if (best < 0 || w->ready < best_ready || (w->ready == best_ready && w->q < best)) {
            best = w->q;
            best_p = w->p;
            best_ready = w->ready;
            best_credit = cq[vc].credit;
            best_bubble = bubble;
            best_vc = vc;
        }
    }
    if (best < 0 && sending) {
        retry_when_free(t, ch, c); /* not idle: no credit stall */
        return;
    }
    if (best < 0 && t->ret != NULL) {
        /* short of credit that trains' return streams will bring: try
         * again when the first waiter's need is back */
        int64_t wake = INT64_MAX;
        int wake_vc = 0;
        for (int i = 0; i < ch->nwait; i++) {
            int64_t at = return_time(t, c * t->nvc + ch->wait[i].vc, ch->wait[i].need);
            if (at < wake) {
                wake = at;
                wake_vc = ch->wait[i].vc;
            }
        }
        tm_return *r = wake < INT64_MAX ? &t->ret[c * t->nvc + wake_vc] : NULL;
        if (r != NULL && r->woken_at != wake) {
            r->woken_at = wake;
            push(t, wake, EV_CREDIT, (int32_t)c, wake_vc, 0);
        }
    }
    if (best < 0) {
        if (ch->nwait > 0 && !ch->stalled) {
            ch->stalled = 1;
            ch->stall_since = t->now;
        }
        set_short(t, c, lack);
        return;
    }
    uint32_t m = train_share(t, best_p, c, best_credit, best_bubble);
    if (sending && ch->share + part_now(t, best, best_p, c, m) > SHARE_ONE) {
        retry_when_free(t, ch, c); /* the first in line does not fit beside them */
        return;
    }
    close_stall(ch, t->now);
    set_short(t, c, 0);
    tm_train *head = &t->tr[best_p];
    if (head->open) {
        take_route(t, best, head, c, best_vc, best_bubble);
    }
    transmit(t, best, best_p, c, m);
}

/* Queue q's head train p waits for channel ch from now (its READY). */
static int add_waiter(const temu_tm *t, tm_chan *ch, int32_t q, int32_t p)
{
    const tm_train *tr = &t->tr[p];
    if (ch->nwait == ch->capwait) {
        int32_t cap = ch->capwait ? 2 * ch->capwait : 4;
        tm_waiter *w = realloc(ch->wait, (size_t)cap * sizeof *w);
        if (!w) {
            return -1;
        }
        ch->wait = w;
        ch->capwait = cap;
    }
    tm_waiter *w = &ch->wait[ch->nwait++];
    w->ready = t->now;
    w->q = q;
    w->p = p;
    w->vc = tr->vc;
    w->need = tr->bytes;
    w->open = tr->open;
    /* bubble: keep room for one more packet in the ring */
    w->bubble = t->bubble && tr->enter ? (int32_t)t->c.max_packet : 0;
    w->need += w->bubble;
    return 0;
}

/* READY of queue q: its head train p (the event says which, and the
 * channel it takes next, so that neither waits for the queue's line) may
 * leave. */
static void on_ready(temu_tm *t, int64_t q, int32_t p, int32_t chan)
{
    const tm_train *tr = &t->tr[p];
    int64_t cand[TEMU_MAX_DIMS];
    int n = 1;
    if (!is_source(t, q)) {
        tm_chan *up = &t->ch[q / t->nvc];
        if (up->inq_waiting++ == 0) {
            up->inq_since = t->now;
        }
    }
    cand[0] = chan;
    if (tr->open) {
        /* adaptive: wait for every productive channel, tried in the order
         * of the dynamic tokens they have free (most first; ties keep the
         * deterministic order) -- the buffer state the router saw */
        n = tr->ncand;
        for (int i = 0; i < n; i++) {
            int64_t c = tr->cand[i], room = dynamic_room(t, c);
            int j = i;
            for (; j > 0 && dynamic_room(t, cand[j - 1]) < room; j--) {
                cand[j] = cand[j - 1];
            }
            cand[j] = c;
        }
    }
    for (int i = 0; i < n; i++) {
        if (add_waiter(t, &t->ch[cand[i]], (int32_t)q, p) != 0) {
            t->oom = 1; /* the packet would be lost: temu_tm_run stops */
            return;
        }
    }
    for (int i = 0; i < n && t->q[q].head == p; i++) {
        try_chan(t, cand[i]);
    }
}

static void on_deliver(temu_tm *t, int32_t p)
{
    /* a copy: the callback may send, and a new train may move t->tr */
    const tm_train tr = t->tr[p];
    if (t->deliver) {
        for (uint32_t i = 0; i < tr.n; i++) {
            t->deliver(t->ctx, tr.tag, tr.created, tr.hdr + (int64_t)i * tr.sp);
        }
    }
    if (t->mu_pend != NULL) {
        /* the message unit stores the packets it received */
        t->mu_pend[2 * (int64_t)tr.dst_node + 1] += (int64_t)tr.mu_wr * t->c.mu_request_ps;
    }
    t->pending -= tr.n;
    t->tr[p].next = t->freetr;
    t->freetr = p;
}

int64_t temu_tm_run(temu_tm *t, int64_t until_ps)
{
    temu_event e;
    int got;
    while (!t->oom && (got = temu_evq_pop(&t->events, until_ps, &e)) != 0) {
        if (got < 0) {
            t->oom = 1; /* events were lost: temu_tm_check reports it */
            break;
        }
        t->now = e.t;
        t->tot.events++;
        switch (e.type) {
        case EV_CREATE:
            append(t, source_queue(t, t->tr[e.a].src_node), e.a);
            break;
        case EV_READY:
            on_ready(t, e.a, e.b, e.c);
            break;
        case EV_TRY:
            t->ch[e.a].try_pending = 0;
            try_chan(t, e.a);
            break;
        case EV_CREDIT:
            t->q[(int64_t)e.a * t->nvc + e.b].credit += e.c;
            try_chan(t, e.a);
            break;
        default:
            on_deliver(t, e.a);
            break;
        }
    }
    if (until_ps != INT64_MAX && until_ps > t->now) {
        t->now = until_ps;
    }
    return t->now;
}

void temu_tm_totals_get(const temu_tm *t, temu_tm_totals *out)
{
    *out = t->tot;
}

/* ---------------------------------------------------------------- stats */

int temu_tm_lanes(const temu_tm *t, int64_t router, int link)
{
    if (router < 0 || router >= t->m.nrouters || link < 0 || link >= t->tlinks ||
        temu_link_neighbor(&t->m, router, link) < 0) {
        return 0;
    }
    return lanes_of(&t->m, link);
}

double temu_tm_lane_gbs(const temu_tm *t, int64_t router, int link, int lane)
{
    if (lane < 0 || lane >= temu_tm_lanes(t, router, link)) {
        return 0;
    }
    return 1000.0 / t->ch[chan_id(t, router, link, lane)].ps_per_byte;
}

temu_status temu_tm_lane_occupancy(const temu_tm *t, int64_t router, int link, int lane,
                                   uint32_t cls, int64_t *packet_ps, temu_error *err)
{
    int per = t->per;
    int64_t base;
    if (lane < 0 || lane >= temu_tm_lanes(t, router, link) || cls >= t->c.classes) {
        return temu_fail(err, TEMU_ERANGE,
                         "timing model: no lane %d, class %u on link %d of router %lld", lane, cls,
                         link, (long long)router);
    }
    base = chan_id(t, router, link, lane) * t->nvc + (int64_t)cls * per;
    *packet_ps = 0;
    for (int v = 0; v < per; v++) {
        *packet_ps += t->q[base + v].occ;
    }
    return TEMU_OK;
}

temu_status temu_tm_lane_stats_get(const temu_tm *t, int64_t router, int link, int lane,
                                   temu_tm_lane_stats *out, temu_error *err)
{
    const tm_chan *ch;
    if (lane < 0 || lane >= temu_tm_lanes(t, router, link)) {
        return temu_fail(err, TEMU_ERANGE, "timing model: no lane %d on link %d of router %lld",
                         lane, link, (long long)router);
    }
    ch = &t->ch[chan_id(t, router, link, lane)];
    *out = ch->st;
    /* intervals still open count up to now */
    if (ch->stalled) {
        out->credit_stall_ps += t->now - ch->stall_since;
    }
    if (ch->inq_waiting > 0) {
        out->inq_stall_ps += t->now - ch->inq_since;
    }
    out->no_dynamic_ps = 0;
    if (t->notok != NULL) {
        int64_t c = chan_id(t, router, link, lane);
        out->no_dynamic_ps = t->notok[c * (t->nvc + 1) + t->nvc] +
                             ((ch->short_mask & NO_DYNAMIC) ? t->now - t->short_since[c] : 0);
    }
    return TEMU_OK;
}

temu_status temu_tm_lane_vc_stats(const temu_tm *t, int64_t router, int link, int lane, uint32_t vc,
                                  temu_tm_vc_stats *out, temu_error *err)
{
    int64_t c;
    memset(out, 0, sizeof *out);
    if (lane < 0 || lane >= temu_tm_lanes(t, router, link) || vc >= t->c.classes) {
        return temu_fail(err, TEMU_ERANGE,
                         "timing model: no lane %d, VC %u on link %d of router %lld", lane, vc,
                         link, (long long)router);
    }
    if (t->notok == NULL) {
        return TEMU_OK;
    }
    c = chan_id(t, router, link, lane);
    for (uint32_t v = vc * (uint32_t)t->per; v < (vc + 1) * (uint32_t)t->per; v++) {
        out->adaptive_packets += t->vc_pk[c * t->nvc + v];
        out->adaptive_bytes += t->vc_bytes[c * t->nvc + v];
        out->no_token_ps += t->notok[c * (t->nvc + 1) + v] +
                            ((t->ch[c].short_mask >> v & 1u) ? t->now - t->short_since[c] : 0);
    }
    return TEMU_OK;
}

temu_status temu_tm_node_mu_pending(const temu_tm *t, int64_t node, int64_t *read_ps,
                                    int64_t *write_ps, temu_error *err)
{
    *read_ps = *write_ps = 0;
    if (node < 0 || node >= t->m.nnodes) {
        return temu_fail(err, TEMU_ERANGE, "timing model: node %lld outside 0..%lld",
                         (long long)node, (long long)t->m.nnodes - 1);
    }
    if (t->mu_pend != NULL) {
        *read_ps = t->mu_pend[2 * node];
        *write_ps = t->mu_pend[2 * node + 1];
    }
    return TEMU_OK;
}

uint32_t temu_tm_adaptive_classes(const temu_tm *t)
{
    return t->c.routing == TEMU_TM_ADAPTIVE ? t->c.dynamic_vcs : 0;
}
