/*
 * packet.h - the packet-level timing model's state, shared by its parts.
 * Private to libtorusemu (the model's interface is torusemu_timing.h;
 * virtual time reaches it through its ops table, emu/model.h).
 *
 * The model is cut as BookSim2 cuts a router (router, allocator and
 * arbiter, routing function apart), one job per file:
 *   event.h              typed events, kept in emu/event_queue.c's queue
 *   channel.h            channels: serialization, ejection sharing
 *   flow.h, flow.c       flow control: credits and tokens, the bubble
 *                        rule, trains' credit coming back
 *   routing.h, routing.c routing functions: deterministic (dimension
 *                        order, dateline VCs), adaptive (Blue Gene
 *                        dynamic VCs, escape VC)
 *   arbiter.h, arbiter.c heads waiting for a channel, and which one goes
 *   train.h, train.c     trains: sends cut into trains, spacing, splits
 *   stats.h, stats.c     counters and statistics: stall intervals, token
 *                        shortage, occupancy, what a lane saw
 *   router.c             the router: what each event does, stage by stage
 *   params.c             parameters: each machine's defaults and link
 *                        rates, checks of a configuration
 *   model.c              creation, accessors, the ops table (emu/model.h)
 * Functions on the per-event path that another part calls are static
 * inline in that part's header: the split adds no call on that path
 * (doc/performance.md, "The timing model in parts").
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
 *            with channels and trains in flight only; a send waits in its
 *            source queue as one record until its trains are cut from it
 *            (TM_MSG_BUCKET below).
 */
#ifndef TEMU_PACKET_H
#define TEMU_PACKET_H

#include "../emu_internal.h"
#include "../event_queue.h"
#include "torusemu_timing.h"

#include <stddef.h>
#include <stdint.h>

#pragma GCC visibility push(hidden)

/* A queue whose head train waits for a channel, with what arbitration
 * needs of it (so choosing touches no train). */
typedef struct tm_waiter {
    int64_t ready; /* the head's ready time                      */
    int64_t need;  /* credit it needs: a packet (+ the bubble)   */
    int32_t q;
    int32_t p;      /* the head train (so choosing reads no queue) */
    int32_t bubble; /* of need: room kept for one more packet in the ring */
    uint8_t vc;     /* its VC on the channel                      */
    uint8_t open;   /* adaptive, still choosing: VC and need come from tm_route_choose_vc */
} tm_waiter;

/* Waiters a channel has room for without an allocation of its own: its
 * part of temu_tm.wait0, 4 x 32 = 128 bytes (a fifth waiter moves them
 * all to the heap, arbiter.c).  Four: a torus channel is wanted by the
 * heads of its router's other inputs, rarely more than four at once
 * (bench_load_sweep at twice saturation); allocating each channel's array
 * at its first contention was about 1 % of the model's instructions there
 * and 9 % at a tenth of saturation (doc/performance.md, "Inline waiters
 * and pop"). */
#define TM_WAIT_INLINE 4

/* A channel.  Layout (for speed only): what arbitration reads fills the
 * first 64 bytes, what a transmission adds up the second; the array is
 * 64-byte aligned (temu_tm_create).  Since when short_mask has held is
 * kept in its row of the token counters (tm_notok_row).  Its state: busy
 * until busy_until; try_pending: a TRY event is scheduled (at most one);
 * stalled: a credit stall interval is open (stats.h); inq_waiting: heads
 * of its queues ready and not yet gone. */
typedef struct tm_chan {
    /* hot: 64 bytes */
    int64_t busy_until;
    struct tm_waiter *wait; /* queues whose head waits for this channel */
    double ps_per_byte;
    int64_t ser_val; /* ser_ps cache: the time of ser_bytes */
    int64_t wire_ps;
    /* capwait TM_WAIT_INLINE: `wait` is the channel's part of temu_tm.wait0 */
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

/* the layout above: change it only with its comment */
_Static_assert(sizeof(tm_chan) == 128 && offsetof(tm_chan, st) == 64,
               "tm_chan is two cache lines, the hot one first");

/* A train of n packets of `bytes` each.  Times are the first packet's; the
 * others follow `sp` ps apart (sp: their spacing where they arrived).
 * Layout (for speed only): what every hop reads and writes fills the first
 * 64 bytes, the rest the second, and the array is 64-byte aligned
 * (tm_train_alloc), so a hop touches one cache line of the train, two where
 * the route turns or the train is delivered.  Its ready time is not kept:
 * the READY event happens at it (tm_router_become_head). */
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
    uint8_t msg;      /* in its source queue: TM_MSG_* (a send not yet cut into trains) */
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
    /* its first packet's number among those its source node sent (from
     * 0, in the order of that node's sends; modulo 2^32): with src_node,
     * what orders its events among equal times (event.h) */
    uint32_t serial;
} tm_train;

/* tm_train.msg: a send waits in its source queue as one record, a bucket
 * of all its packets, and becomes trains only as its injection channel
 * takes them (tm_train_cut): memory grows with the sends outstanding, not
 * with their packets. */
#define TM_MSG_BUCKET 1u /* not cut yet: its first train is cut when it is READY   */
#define TM_MSG_TURNS 2u  /* it and the buckets after it take turns, train by train */
#define TM_MSG_MORE 4u   /* the next record in the queue is a bucket of its turn   */

/* the layout above: change it only with its comment */
_Static_assert(sizeof(tm_train) == 128 && offsetof(tm_train, created) == 64,
               "tm_train is two cache lines, the hot one first");

/* An input queue (channel x VC) with what the sending side knows of it,
 * kept together: one cache line serves the queue and its credit. */
/* Credit returns a queue keeps without an event: two, so that a queue
 * whose packets follow each other closely keeps the next return while the
 * last is still on its way (with one, bench_load_sweep's BG/Q tornado at
 * twice saturation made 36,207 CREDIT events for want of room, half of
 * them finding nobody waiting); a tm_queue is then one 64-byte line. */
#define TM_BACK_SLOTS 2

typedef struct tm_queue {
    int32_t head, tail;
    int64_t credit; /* bytes free, as the upstream side knows them          */
    int64_t occ;    /* packets x ps spent in the queue (header to read-out) */
    /* space coming back upstream at back_at[i] while nobody waits for the
     * channel, kept here instead of a CREDIT event (flow.h,
     * tm_flow_return): the earliest first; back_bytes[i] 0: none from i on */
    int64_t back_at[TM_BACK_SLOTS];
    int64_t back_bytes[TM_BACK_SLOTS];
    int64_t left_at; /* the last train read out of the queue has left it (ps) */
} tm_queue;

/* A train's credit coming back upstream packet by packet, as single
 * packets' would: the first packet's at t0, then one every sp ps, without
 * an event each (tm_flow_settle folds what is back by now into the
 * queue's credit; a sender short of credit is woken when enough is
 * back).  Kept for queues of trains only (train_packets > 1). */
typedef struct tm_return {
    int64_t t0;       /* the next packet's credit is back upstream  */
    int64_t sp;       /* then one packet's every sp ps              */
    int64_t woken_at; /* a wake-up already scheduled for this time  */
    uint32_t n, nbig; /* packets still to come back; nbig of `big` bytes first */
    uint32_t big, small;
} tm_return;

/* Gemini: one host tile's input stall from a node's injection queue (the
 * queue at the router that the node's NIC feeds stands for the host
 * tiles' input queues; a head of tile slot k waits on host tile k). */
typedef struct tm_host {
    int64_t since;    /* its heads started waiting (waiting > 0)    */
    int64_t stall_ps; /* closed waits so far                        */
    int32_t waiting;  /* heads of this slot waiting (one per class) */
} tm_host;

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
    int64_t nqin;   /* nchan * nvc input queues: the first source queue */
    tm_chan *ch;
    /* [nchan * TM_WAIT_INLINE] each channel's first waiters (tm_chan.wait
     * points here until a channel has more); pages untouched until one of
     * their channels has a waiter */
    tm_waiter *wait0;
    tm_queue *q;    /* [nchan * nvc] input queues, then [nnodes] source queues */
    tm_return *ret; /* [nchan * nvc] trains' credit coming back (trains only) */
    int64_t qbytes; /* an input queue's size (per VC) */
    int32_t *nbr;   /* [nrouters * tlinks] neighbour router (-1: none) */
    int32_t *coord; /* [nrouters * ndims] router coordinates */
    /* the deterministic route along one dimension, precomputed
     * (routing.h, tm_route_step): [step_off[d] + from * size[d] + to],
     * NULL when some dimension is longer than TM_STEP_TABLE_MAX */
    uint16_t *dim_step;
    int64_t step_off[TEMU_MAX_DIMS];
    int32_t *node_router; /* [nnodes] */
    uint32_t *sent;       /* [nnodes] packets each node has sent: the next serial */
    /* token flow only, torus channels: adaptive packets and bytes per VC
     * [ntorus * nvc]; a row of notok_row per channel (tm_notok_row):
     * token-shortage time per VC, then NO_DYNAMIC's, then since when the
     * channel's short_mask has held (TM_NOTOK_SINCE) */
    uint64_t *vc_pk, *vc_bytes;
    int64_t *notok;
    int64_t notok_row;
    /* BG/Q message unit, mu_request_ps > 0 only: requests x ps pending per
     * node, [2 * node] reads, [2 * node + 1] writes */
    int64_t *mu_pend;
    /* Gemini (maxlanes > 1): input stall of each node's injection queue
     * by host tile slot, [node * maxlanes + lane_key mod maxlanes] */
    tm_host *host;
    int lanes[2 * TEMU_MAX_DIMS]; /* lanes of each link direction */
    tm_train *tr;                 /* 64-byte aligned in tr_block (tm_train_alloc) */
    void *tr_block;
    int32_t ntr, captr, freetr;
    int32_t last_bucket; /* the last send's record, which a next bucket may join (-1) */
    uint8_t last_direct; /* it went into its source queue at once (no CREATE event) */
    uint64_t last_events; /* events processed when it was sent */
    temu_evq events; /* tm_event's (event.h) */
    int64_t now;
    int64_t back_last; /* the latest credit return kept in a queue (tm_flow_return) */
    uint32_t *back_vcs; /* [nchan] bit v: queue (c, v) keeps a credit return */
    uint64_t pending;
    temu_tm_totals tot;
    int oom; /* an allocation failed during the run: results are incomplete */
    temu_tm_delivery_fn deliver;
    void *ctx;
    temu_tm_hop_fn hop; /* told of every train starting onto a channel (NULL: none) */
    void *hop_ctx;
    temu_tm_hop_now_fn hop_now; /* the parallel engine: offered each hop first (NULL: none) */
    void *hop_now_ctx;
    /* the parallel engine (region.c), threads > 0 only: the model's own
     * handle has eng and rid -1; each region's view of the model (a copy
     * sharing the arrays above, with its own trains, events, time and
     * totals) has eng and its region's number */
    struct tm_engine *eng;
    int rid;
    temu_event cur; /* a view's event being processed (its content orders a
                     * departure and an arrival of one instant, region.c) */
};

/* Channel c's row of t->notok: [v] token-shortage ps of VC v (v < nvc),
 * [nvc] of NO_DYNAMIC, [nvc + TM_NOTOK_SINCE] since when short_mask has
 * held.  One row is one 64-byte line (nvc + 2 <= 8; the array is 64-byte
 * aligned), so a change of the mask touches one line beside the channel:
 * it was two arrays, two misses on Mira's 0.5 M channels (4 % of seed
 * 003's all-to-all there, doc/performance.md). */
#define TM_NOTOK_SINCE 1
static inline int64_t *tm_notok_row(const temu_tm *t, int64_t c)
{
    return &t->notok[c * t->notok_row];
}

/* short_mask bit: no dynamic VC had tokens for an adaptive train */
#define NO_DYNAMIC (1u << 31)

/* ---------------------------------------------------------------- layout */

/* Channels: [ntorus] torus lanes (router, link, lane), then [nnodes]
 * injection channels, then [nnodes] ejection channels. */
static inline int64_t tm_chan_id(const temu_tm *t, int64_t router, int link, int lane)
{
    return (router * t->tlinks + link) * t->maxlanes + lane;
}

static inline int64_t tm_inject_chan(const temu_tm *t, int64_t node)
{
    return t->ntorus + node;
}

static inline int64_t tm_eject_chan(const temu_tm *t, int64_t node)
{
    return t->ntorus + t->m.nnodes + node;
}

/* Queues: [nchan * nvc] input queues (channel x VC), then [nnodes] source
 * queues. */
static inline int64_t tm_source_queue(const temu_tm *t, int64_t node)
{
    return t->nqin + node;
}

static inline int tm_is_source(const temu_tm *t, int64_t q)
{
    return q >= t->nqin;
}

/* Dimension of torus channel c, -1 for a node's channels. */
static inline int tm_chan_dim(const temu_tm *t, int64_t c)
{
    return c >= t->ntorus ? -1 : (int)(c / t->maxlanes % t->tlinks) / 2;
}

/* ------------------------------------------- what the parts offer each other */

/* Lanes of torus link `link` on machine m (the family's: Gemini tiles of
 * the direction, else 1; temu_link_lanes). */
static inline int tm_params_lanes(const temu_machine *m, int link)
{
    return temu_link_lanes(m, link);
}

/* params.c: GB/s of every lane of link `link` of `router` under
 * configuration c (temu_tm_link_lane_gbs). */
double tm_params_lane_gbs(const temu_machine *m, const temu_tm_config *c, int64_t router, int link);

/* params.c: whether configuration c can model machine m (err says why
 * not). */
temu_status tm_params_check(const temu_machine *m, const temu_tm_config *c, temu_error *err);

/* router.c: train p enters queue q now (it becomes its head if the queue
 * was empty). */
void tm_router_append(temu_tm *t, int64_t q, int32_t p);

/* router.c: the same, its head time given: an empty queue's new head may
 * leave no earlier than head_time (the parallel engine's handover). */
void tm_router_arrive(temu_tm *t, int64_t q, int32_t p, int64_t head_time);

/* router.c: events up to until_ps, leaving t->now at the last one's time
 * (a region's window, region.c). */
void tm_router_run_events(temu_tm *t, int64_t until_ps);

/* region.c, the parallel engine: run the model's own handle t to until_ps
 * (stop: return after the first instant whose deliveries made *answer
 * non-zero, or any delivery if answer is NULL: temu_tm_run_step); the
 * view of node src's region for a send, noting its smallest packet
 * (`bytes`, of the lookahead); queue q's head train left it empty now, its
 * last packet read out at free_at; train p crossed a torus channel into
 * queue q (its router's region takes it at the window's end); a train's n
 * packets leave queue q sp apart, their credit back upstream from t0 (the
 * upstream router's region takes the stream at t0: tm_engine_stream_in,
 * from the CREDIT event of channel c, VC vc whose bytes are -1 - slot). */
int64_t tm_engine_run(temu_tm *t, int64_t until_ps, int stop, const int32_t *answer);
temu_tm *tm_engine_sender(temu_tm *t, int64_t src, uint32_t bytes);
void tm_engine_popped(temu_tm *t, int64_t q, int64_t free_at);
void tm_engine_handover(temu_tm *t, int64_t q, int32_t p);
void tm_engine_stream(temu_tm *t, int64_t q, const tm_train *tr, uint32_t n, int64_t sp,
                      int64_t t0);
void tm_engine_stream_in(temu_tm *t, int64_t c, int vc, int32_t slot);

/* region.c: the engine of model t (c.threads regions and threads) made,
 * or freed; its views told of the users' functions; the figures of the
 * whole: totals, next event, packets pending, memory lost. */
temu_status tm_engine_create(temu_tm *t, temu_error *err);
void tm_engine_destroy(temu_tm *t);
void tm_engine_callbacks(temu_tm *t);
void tm_engine_totals(const temu_tm *t, temu_tm_totals *out);
int64_t tm_engine_next(const temu_tm *t);
uint64_t tm_engine_pending(const temu_tm *t);
int tm_engine_oom(const temu_tm *t);

#pragma GCC visibility pop

#endif
