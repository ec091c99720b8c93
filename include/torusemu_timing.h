/*
 * torusemu_timing.h - network timing model in virtual time.
 *
 * A discrete-event simulator of packets over the routes of an emulated
 * machine (temu_route's, or adaptive ones on the Blue Gene dynamic VCs).
 * It knows *when* traffic crosses each link:
 *
 *   - every directed link is one channel per lane (Gemini: per tile, at the
 *     tile's bandwidth for its medium; Blue Gene: one lane per link);
 *   - a packet occupies a channel for its serialization time
 *     ceil(bytes / bandwidth) and reaches the next router wire_ps later;
 *   - a router forwards a packet router_ps after its header arrived, and
 *     not before the packet ahead of it in its input queue has been read
 *     out (at the rate of the channel it came in on); virtual cut-through:
 *     the whole packet must fit in the downstream buffer before it starts;
 *   - every input queue (channel x VC) holds buffer_bytes; the upstream side
 *     keeps credits (Gemini) or tokens (Blue Gene) for that space and gets
 *     them back credit_ps after a packet was read out of the queue, so a full
 *     queue stalls its upstream channel and back-pressure spreads upstream;
 *   - deadlock freedom: TEMU_TM_CREDIT uses two VCs per class split at the
 *     wrap link of each ring (dateline, as BookSim's dim_order_torus);
 *     TEMU_TM_TOKEN uses one VC per class and the bubble rule (a packet
 *     entering a ring needs room for one extra maximal packet), as the
 *     Blue Gene deterministic "bubble" VC did.
 *   - routing: deterministic (temu_route) for every class, or adaptive for
 *     the classes in dynamic_vcs (Blue Gene's dynamic VCs): at every router
 *     a packet takes, among the minimal (productive) directions, the one
 *     whose dynamic VC has the most tokens free downstream, and falls back
 *     to the escape (bubble) VC on the deterministic direction when no
 *     dynamic VC has room (deadlock freedom, Duato's escape-channel rule).
 *
 * Packet trains (train_packets > 1, doc/model.md "Packet trains"): up to
 * that many consecutive packets of one send move as one unit, exact where
 * nothing competes, approximate under contention (dateline VCs on every
 * machine, credit taken for the whole train).  The default is 1.
 *
 * Time is in picoseconds.  Results are deterministic: equal inputs give
 * equal outputs on every host (no host time, no unseeded randomness).
 * doc/model.md, "Timing model", gives the sources and the choices.
 */
#ifndef TORUSEMU_TIMING_H
#define TORUSEMU_TIMING_H

#include "torusemu.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum temu_tm_flow {
    TEMU_TM_CREDIT = 0, /* credits, two dateline VCs per class (Gemini)    */
    TEMU_TM_TOKEN = 1   /* tokens, one VC per class, bubble rule (BG/P, Q) */
} temu_tm_flow;

typedef enum temu_tm_routing {
    TEMU_TM_DETERMINISTIC = 0, /* every packet on its temu_route path                    */
    TEMU_TM_ADAPTIVE = 1       /* dynamic_vcs classes: minimal adaptive, escape fall-back */
} temu_tm_routing;

#define TEMU_TM_MAX_CLASSES 8

/* The MPI library's software costs per message in virtual time (LogGP's
 * o_s, o_r and g; doc/virtual-time.md, "MPI software costs"), one set per
 * machine family (emu/family_*.c, each value's source beside it).  All 0:
 * none (a message costs only its network time). */
typedef struct temu_tm_mpi_costs {
    int64_t send_ps; /* o_s: the sender's CPU time per message before its packets leave  */
    int64_t recv_ps; /* o_r: from the last packet's arrival to the receive's completion  */
    int64_t gap_ps;  /* g: least time between the starts of two sends of one rank        */
    int64_t shm_ps;  /* both ranks on one node: one-way latency of the shared-memory copy */
    double shm_gbs;  /* ... and its bandwidth, GB/s (0: latency only)                     */
} temu_tm_mpi_costs;

/* The copy time of an on-node message of `bytes` at c's shared-memory
 * bandwidth, ps (bytes / GB/s = ns, rounded to the nearest ps; 0 without
 * a bandwidth), the latency shm_ps not included: the time the copying
 * CPU is busy with it (doc/virtual-time.md, "MPI software costs"). */
int64_t temu_tm_shm_copy_ps(const temu_tm_mpi_costs *c, uint64_t bytes);

/* Most threads (regions) of the parallel engine (temu_tm_config.threads). */
#define TEMU_TM_MAX_THREADS 64

typedef struct temu_tm_config {
    int64_t router_ps;      /* header arrival -> may leave on the next channel (routing, switch)  */
    int64_t wire_ps;        /* flight time of a router-to-router link                            */
    int64_t node_wire_ps;   /* flight time of the injection and ejection channels               */
    int64_t credit_ps;      /* a packet's tail leaves a queue -> its space is usable upstream    */
    uint32_t buffer_bytes;  /* input queue size per channel and VC                               */
    uint32_t max_packet;    /* largest packet in bytes (bubble rule; buffer_bytes must hold it)  */
    uint32_t classes;       /* traffic classes with their own queues, 1..TEMU_TM_MAX_CLASSES    */
                            /* (Gemini: request VC0, response VC1; Blue Gene: one per VC)       */
    uint32_t flow;          /* temu_tm_flow                                                      */
    double link_gbs;        /* >0: every lane of every link runs at this many GB/s (= bytes/ns); */
                            /* 0: the machine's own rates (Gemini per tile by medium, BG/P, BG/Q) */
    double node_gbs;        /* injection and ejection bandwidth per node, GB/s                   */
    uint32_t train_packets; /* longest packet train: up to this many consecutive packets of a  */
                            /* send move as one unit (doc/model.md, "Packet trains"); 0 or 1:  */
                            /* every packet on its own (the exact per-packet model)            */
    uint32_t train_whole;   /* 1: a train never splits (faster; coarser where trains compete)  */
    uint32_t routing;       /* temu_tm_routing (TEMU_TM_ADAPTIVE needs TEMU_TM_TOKEN flow)       */
    uint32_t dynamic_vcs;   /* adaptive: bit v = class v is a dynamic VC; a packet sent in one  */
                            /* may take any of them on each hop (BG/P VCD0+VCD1 0x3, BG/Q 0x1)  */
    uint32_t escape_vc;     /* adaptive: the bubble class dynamic packets fall back to           */
                            /* (BG/P VCBN 2, BG/Q user escape 1); not in dynamic_vcs            */
    int64_t mu_request_ps;  /* BG/Q message unit: how long each memory request of a packet it   */
                            /* injects (payload reads) or receives (writes) stays pending at   */
                            /* its master port (doc/model.md, "Message-unit pending requests"); */
                            /* 0: not modelled                                                  */
    uint32_t level;         /* temu_tm_level: the model level a driver of either level (temu_net, */
                            /* virtual time) creates; temu_tm_create is the packet level's own   */
    temu_tm_mpi_costs mpi;  /* virtual time's per-message MPI costs (temu_vt_*); all 0: none     */
    uint32_t threads;       /* packet level: 0 the serial engine; N >= 1 the machine cut into N */
                            /* regions run by N threads in windows of the lookahead, the same   */
                            /* results for every N (doc/model.md, "Parallel engine")           */
    int64_t turn_ps;        /* a queue's next head is routed and given a VC only after the train */
                            /* ahead of it has left the queue: it may leave this long after      */
                            /* (route computation + VC allocation; doc/model.md, "VC turnaround") */
    uint32_t inject_vcs;    /* 1: a node's packets take its class's VCs of the injection channel */
                            /* in turn, as BookSim's source does; 0: the class's first VC only   */
                            /* (doc/model.md, "VC turnaround")                                   */
    int64_t flow_window_ps; /* flow level: its rates re-solved at most once per this many ps; a */
                            /* change less than this after the last solve waits for the window's */
                            /* end (doc/model.md, "Flow level: solve window"); 0: every instant  */
                            /* that changes them is solved (exact)                               */
} temu_tm_config;

/* The model levels (doc/model.md, "Model levels"): the packet model of
 * this header, the reference, and the flow model (torusemu_flow.h), which
 * reaches minutes to hours of a whole machine with estimated stalls.
 * temu_tm_config_default gives TEMU_TM_PACKET. */
typedef enum temu_tm_level {
    TEMU_TM_PACKET = 0, /* packets and trains through routers, queues, credits */
    TEMU_TM_FLOW = 1    /* flows sharing channel bandwidth (torusemu_flow.h)   */
} temu_tm_level;

/* A level's name ("packet", "flow"; NULL for an unknown level), and the
 * level of a name (TEMU_EINVAL naming the accepted names if none). */
const char *temu_tm_level_name(uint32_t level);
temu_status temu_tm_level_parse(const char *name, uint32_t *level, temu_error *err);
/* The level whose stall and occupancy counters were last added to the
 * store of s (recorded in the store: `torusemu dump` shows it); -1 when
 * no timing model added any. */
int temu_tm_session_level(const temu_session *s);

/* The machine's own parameters (doc/model.md, "Timing model").  Blue Gene:
 * adaptive routing of the dynamic VCs, as the hardware routed them;
 * Gemini: deterministic. */
temu_status temu_tm_config_default(const temu_machine *m, temu_tm_config *c, temu_error *err);

/* The link rules of the model, for anyone who times traffic by them
 * without a model (the live run's one-message model, mpi/vt_model.c); a
 * link's lanes are the machine's (temu_link_lanes, torusemu.h): a lane's
 * GB/s under configuration c (c->link_gbs, else the machine's own,
 * temu_link_lane_gbs: Gemini per tile by medium, BG/P 0.425, BG/Q 2.0;
 * kept beside it because a configuration may override the rate), and the
 * serialization of `bytes` at gbs GB/s in ps, rounded up as the model's
 * channels round it. */
double temu_tm_link_lane_gbs(const temu_machine *m, const temu_tm_config *c, int64_t router,
                             int link);
int64_t temu_tm_ser_ps(double gbs, uint32_t bytes);

typedef struct temu_tm temu_tm;

/* Called once per delivered packet (its tail reached the destination node). */
typedef void (*temu_tm_delivery_fn)(void *ctx, uint64_t tag, int64_t created_ps,
                                    int64_t delivered_ps);

temu_status temu_tm_create(const temu_machine *m, const temu_tm_config *c, temu_tm **out,
                           temu_error *err);
void temu_tm_destroy(temu_tm *t);
/* The configuration the model was created with. */
void temu_tm_config_get(const temu_tm *t, temu_tm_config *out);
void temu_tm_set_delivery(temu_tm *t, temu_tm_delivery_fn fn, void *ctx);

/* A packet of `bytes` (wire bytes, headers included) created at node src at
 * virtual time when_ps (>= temu_tm_now) for node dst, in class cls.  It
 * waits in src's unbounded source queue until the injection channel takes it.
 * lane_key picks the lane on every link (lane = lane_key mod lanes of the
 * link; Gemini's tile slot, doc/model.md).  tag is returned on delivery. */
temu_status temu_tm_send(temu_tm *t, int64_t when_ps, int64_t src, int64_t dst, uint32_t bytes,
                         uint32_t cls, uint32_t lane_key, uint64_t tag, temu_error *err);

/* `count` packets of `bytes` each, otherwise as temu_tm_send (all with the
 * same tag; the delivery function is called once per packet, with that
 * packet's delivery time).  They enter the source queue in trains of at most
 * train_packets packets. */
temu_status temu_tm_send_train(temu_tm *t, int64_t when_ps, int64_t src, int64_t dst,
                               uint32_t bytes, uint32_t count, uint32_t cls, uint32_t lane_key,
                               uint64_t tag, temu_error *err);

/* `count` packets carrying `units` units of unit_bytes each in total, split
 * evenly: the first (units mod count) packets one unit larger than the
 * others (how temu_tm_send_message sizes a bucket's packets).  A train may
 * hold both sizes; it is timed as if all its packets were spaced like the
 * larger ones (exact with one size). */
temu_status temu_tm_send_even(temu_tm *t, int64_t when_ps, int64_t src, int64_t dst, uint32_t count,
                              uint64_t units, uint32_t unit_bytes, uint32_t cls, uint32_t lane_key,
                              uint64_t tag, temu_error *err);

/* What the model did since its creation: packet-hops count every packet once
 * per router-to-router channel it crossed (a train of k packets: k), train-hops
 * the crossings of trains (= packet-hops with train_packets 1), events the
 * events processed. */
typedef struct temu_tm_totals {
    uint64_t packet_hops, train_hops, events;
} temu_tm_totals;
void temu_tm_totals_get(const temu_tm *t, temu_tm_totals *out);

/* The most train records the model has held at once: trains in the
 * network, and sends waiting in their source queues, one record each
 * however many packets they have (they are cut into trains as they are
 * injected), so it grows with channels and sends outstanding, not with
 * packets sent. */
uint64_t temu_tm_records(const temu_tm *t);

/* A train (one packet, or train_packets of one send) starting onto a
 * channel: the node's injection channel, a router-to-router link, or the
 * destination's ejection channel.  Its packets start at start_ps,
 * start_ps + spacing_ps, ... (spacing 0 with one packet); start_ps is the
 * model's current time when the hop function is called. */
typedef enum temu_tm_hop_kind {
    TEMU_TM_HOP_INJECT = 0, /* leaves node `node` (its NIC / message unit) */
    TEMU_TM_HOP_LINK = 1,   /* leaves router `router` on link/lane         */
    TEMU_TM_HOP_EJECT = 2   /* enters node `node` from its router          */
} temu_tm_hop_kind;

typedef struct temu_tm_hop {
    int64_t start_ps;   /* the first packet starts onto the channel      */
    int64_t spacing_ps; /* between the starts of consecutive packets     */
    int64_t ser_ps;     /* a packet's serialization on the channel (the  */
                        /* largest of the train's two sizes)             */
    uint64_t tag;       /* as sent                                       */
    uint64_t bytes;     /* wire bytes of all its packets                 */
    uint32_t packets;
    uint32_t kind;     /* temu_tm_hop_kind                               */
    int64_t node;      /* INJECT, EJECT: the node                        */
    int64_t router;    /* LINK: the router the link leaves               */
    int64_t to_router; /* LINK: the router it leads to                   */
    int32_t link;      /* LINK: link of that router (2d minus, 2d+1 plus) */
    int32_t lane;      /* LINK: lane (Gemini: position in the link's tiles) */
    uint32_t cls;      /* class the packets were sent in                  */
    uint32_t vc_class; /* LINK: class of the VC taken on this link (an    */
                       /* adaptive packet's dynamic or escape VC)        */
    uint32_t lane_key; /* as sent                                         */
    uint32_t adaptive; /* 1: routed adaptively (temu_tm_adaptive_classes) */
} temu_tm_hop;

/* Called once per train and channel it starts on, in the order of virtual
 * time (a driver counts traffic as it crosses; doc/series.md).  The hop
 * record is valid during the call only; the function must not call back
 * into the model. */
typedef void (*temu_tm_hop_fn)(void *ctx, const temu_tm_hop *hop);
void temu_tm_set_hop(temu_tm *t, temu_tm_hop_fn fn, void *ctx);
/* Optional, beside the hop function: on the parallel engine (threads >= 1)
 * each region's thread offers every hop of its region to fn as it
 * happens, at the same time as the other regions' threads and in no
 * particular order.  fn returns 1 if it has counted the hop (then what it
 * did must not depend on order or thread: atomic adds), 0 to have it told
 * to the hop function in order as without fn.  The serial engine (threads
 * 0) tells every hop to the hop function.  The record is valid during the
 * call only; fn must not call back into the model. */
typedef int (*temu_tm_hop_now_fn)(void *ctx, const temu_tm_hop *hop);
void temu_tm_set_hop_now(temu_tm *t, temu_tm_hop_now_fn fn, void *ctx);

/* Process every event up to and including virtual time until_ps (INT64_MAX:
 * until the network is empty).  Returns the new current time. */
int64_t temu_tm_run(temu_tm *t, int64_t until_ps);
/* The same, but returning after the first instant that delivered a
 * packet and whose deliveries made *answer non-zero (answer NULL: any
 * delivery), its time; else until_ps's as temu_tm_run.  A driver whose
 * ranks answer a completed message at once points answer at its count of
 * completions and so strides from one to the next.  With
 * threads, the deliveries of one instant are told in the order of
 * (tag, creation, arrival), and the hops of a window in the order of
 * their start, channel and tag, after the window's deliveries (the
 * serial engine: the order of events). */
int64_t temu_tm_run_step(temu_tm *t, int64_t until_ps, const int32_t *answer);
/* What the parallel engine's synchronisation cost (threads > 0; else all
 * 0): advances (temu_tm_run and _step calls: each wakes the threads and
 * parks them again), windows run, events processed, trains and credits handed to
 * another region, each window's busiest region's events summed (events /
 * critical: the most the partition lets the threads gain, barriers
 * aside), the lookahead (the longest window) in ps; then where the wall
 * time went: ns the threads waited at barriers (summed over threads),
 * the futex sleeps among those waits, ns thread 0 spent alone telling
 * the deliveries and deciding the stop (and the last window's hops of
 * each advance), trains handed over at a torus crossing (inside a region
 * too: crossings counts only those between regions), ns thread 0
 * spent telling a window's hops while the other threads ran the next,
 * and the hops the regions' threads counted themselves
 * (temu_tm_set_hop_now) instead of leaving them to thread 0. */
typedef struct temu_tm_sync_stats {
    uint64_t advances, windows, events, crossings, critical;
    int64_t lookahead_ps;
    uint32_t regions;
    uint64_t wait_ns, sleeps, serial_ns, handovers, hops_ns;
    uint64_t hops_now;
} temu_tm_sync_stats;
void temu_tm_sync_stats_get(const temu_tm *t, temu_tm_sync_stats *out);
int64_t temu_tm_now(const temu_tm *t);
/* Time of the next event the model will process (INT64_MAX: none); a
 * driver that adds packets as the run goes steps to it. */
int64_t temu_tm_next_event(const temu_tm *t);
/* Packets sent and not yet delivered. */
uint64_t temu_tm_pending(const temu_tm *t);
/* TEMU_ENOMEM if memory ran out during a run (the run stopped there and
 * every result is incomplete), else TEMU_OK. */
temu_status temu_tm_check(const temu_tm *t, temu_error *err);

/* What one lane of one link saw.  Stall times are picoseconds of virtual
 * time; a machine's counters convert them to its own cycles. */
typedef struct temu_tm_lane_stats {
    uint64_t packets;
    uint64_t bytes;
    int64_t busy_ps;         /* time the lane was transmitting                                   */
    int64_t credit_stall_ps; /* sending end: lane idle, a packet ready for it, no credit/token   */
    int64_t inq_stall_ps;    /* receiving end: a packet at the head of this lane's input queue   */
                             /* was ready to leave and could not (output busy or out of credit) */
    int64_t no_dynamic_ps;   /* adaptive: lane idle, an adaptively routed packet waiting for it, */
                             /* and no dynamic VC with tokens for it (BG/P NO_TOKENS)            */
} temu_tm_lane_stats;

/* What one VC of one lane saw: the packets and bytes it carried that were
 * sent in an adaptively routed class (wherever they went: dynamic or
 * escape VC), and the time the lane was idle while a packet waiting for
 * it needed tokens of this VC and had too few (BG/P NO_VCD0/VCBN/VCBP
 * tokens).  `vc` is a class: with trains (two dateline VCs per class) both
 * VCs are summed.  Only for TEMU_TM_TOKEN flow; zero otherwise. */
typedef struct temu_tm_vc_stats {
    uint64_t adaptive_packets;
    uint64_t adaptive_bytes;
    int64_t no_token_ps;
} temu_tm_vc_stats;

temu_status temu_tm_lane_vc_stats(const temu_tm *t, int64_t router, int link, int lane, uint32_t vc,
                                  temu_tm_vc_stats *out, temu_error *err);

/* Packets x picoseconds that packets of class cls spent in the input
 * queue at the receiving end of a lane, each from its header's arrival to
 * the end of its read-out (divided by the elapsed time: the mean number of
 * packets waiting).  Packets still queued are not included. */
temu_status temu_tm_lane_occupancy(const temu_tm *t, int64_t router, int link, int lane,
                                   uint32_t cls, int64_t *packet_ps, temu_error *err);

/* BG/Q message unit of `node`: pending read requests (payload reads of the
 * packets it injected) and pending write requests (stores of the packets it
 * received), each summed as requests x picoseconds pending.  A packet's
 * requests count once the message unit issues them: reads when the packet
 * starts onto the node's injection channel, writes when it has been
 * delivered; each stays pending mu_request_ps.  0 where the node injected
 * or received nothing, and without mu_request_ps. */
temu_status temu_tm_node_mu_pending(const temu_tm *t, int64_t node, int64_t *read_ps,
                                    int64_t *write_ps, temu_error *err);

/* Gemini: the input stall of host tile slot `slot` (0..7, position
 * lane_key mod 8 of the host tiles) from `node`'s injection, in ps: the
 * time a packet of that slot at the head of the node's injection queue at
 * its router was ready to leave and could not (output tile busy or out of
 * credit).  The NIC feeds that queue, which stands for the host tiles'
 * input queues (doc/model.md, "Host tiles").  0 on Blue Gene (slot 0). */
temu_status temu_tm_host_inq_stall(const temu_tm *t, int64_t node, int slot, int64_t *ps,
                                   temu_error *err);

/* Lanes of a link leaving `router` (Gemini: tiles of the direction; else 1);
 * 0 for a link that does not exist (mesh edge, extra port). */
int temu_tm_lanes(const temu_tm *t, int64_t router, int link);
/* Bandwidth of that lane in GB/s. */
double temu_tm_lane_gbs(const temu_tm *t, int64_t router, int link, int lane);
temu_status temu_tm_lane_stats_get(const temu_tm *t, int64_t router, int link, int lane,
                                   temu_tm_lane_stats *out, temu_error *err);

/* --- with the volume model and the counter store (emu/timing_bridge.c) -- */

/* Send a message's packets as the volume model counts them
 * (temu_plan_message): each direction's packets per VC and (Gemini) tile
 * slot, that bucket's phits or chunks split evenly over its packets (the
 * plan keeps totals only), Gemini VC0/VC1 as classes 0/1, Blue Gene VC v
 * as class v (the model needs as many classes), tile slot k on
 * lane_key gemini_slot_base + k.  All are created at when_ps, the
 * destination's replies too (transactions are not chained yet).  They
 * enter the source queue bucket after bucket, train_packets packets of
 * each in turn (one packet of each with trains of one packet). */
temu_status temu_tm_send_message(temu_tm *t, int64_t when_ps, const temu_machine *m,
                                 const temu_message *msg, temu_error *err);

/* One direction of a message (dir 0: its source's packets, 1: the
 * destination's replies), every packet tagged `tag`, created at when_ps;
 * *packets and *bytes receive what was sent (0: nothing crosses the
 * network, as between ranks of one node or for a message without
 * replies).  A driver learns that a direction has arrived when `packets`
 * deliveries with this tag have come (temu_tm_set_delivery), and can
 * create the replies then (emu/vtime.c does). */
temu_status temu_tm_send_message_dir(temu_tm *t, int64_t when_ps, const temu_machine *m,
                                     const temu_message *msg, int dir, uint64_t tag,
                                     uint64_t *packets, uint64_t *bytes, temu_error *err);
/* Classes the model routes adaptively (bit v = class v): dynamic_vcs under
 * TEMU_TM_ADAPTIVE, else 0. */
uint32_t temu_tm_adaptive_classes(const temu_tm *t);

/* A message into both models: its counters into the store (temu_inject's
 * figures) and its packets into the timing model (temu_tm_send_message).
 * The link counters of the classes the model routes adaptively are left
 * out of the store: their path is the model's to choose, and
 * temu_tm_add_route_counters adds them from where the packets went.
 * Node-level counters (BG/Q message unit, L2) are added at once. */
temu_status temu_tm_inject_message(temu_tm *t, temu_session *s, int64_t when_ps,
                                   const temu_message *msg, temu_error *err);

/* Add the link counters of the adaptively routed packets, from the
 * lanes and VCs they actually took: BG/P packets, chunks, per-VC chunks
 * (VCD0, VCD1, VCBN) of the sending direction and the token/ack packets
 * of the receiving node's direction back; BG/Q chunks sent per VC on the
 * sending link and packets received per VC on the receiving link.  With
 * temu_tm_inject_message the store then holds every link counter once.
 * Call once, after the run (or flush them with temu_tm_counters_flush
 * instead); nothing to add when no class is adaptive. */
temu_status temu_tm_add_route_counters(const temu_tm *t, temu_session *s, temu_error *err);

/* Clear a plan's link traffic of the classes t routes adaptively (BG/P,
 * BG/Q packets and chunks per VC): what temu_apply_plan should then add,
 * the route counters adding the rest. */
void temu_tm_plan_without_adaptive(const temu_tm *t, const temu_machine *m, temu_plan *plan);

/* Add what the model accumulated since its creation to the store, in the
 * hardware's unit; call once, at the end of a run.  Gemini:
 * GM_TILE_PERF_CREDIT_STALL of each sending tile and GM_TILE_PERF_INQ_STALL
 * of the receiving tile, in 800 MHz cycles (1250 ps).  BG/Q: the receive-FIFO
 * occupancy of each incoming link and VC, packets summed per 500 MHz cycle
 * (2000 ps), and every node's message-unit pending reads and writes
 * (PEVT_MU_PORT0_PEND_RD/_WRT) per 800 MHz cycle (1250 ps).  BG/P: the
 * no-token counters of each sending direction in
 * 850 MHz processor cycles (NO_TOKENS: no dynamic VC had tokens for an
 * adaptively routed packet; NO_VCD0/VCBN/VCBP_TOKENS: a waiting packet
 * needed that VC's tokens).  Rounded down per lane. */
temu_status temu_tm_add_stall_counters(const temu_tm *t, temu_session *s, temu_error *err);

/* What the model's counters already put into a store. */
typedef struct temu_tm_flushed temu_tm_flushed;
temu_status temu_tm_flushed_create(const temu_machine *m, temu_tm_flushed **out, temu_error *err);
void temu_tm_flushed_free(temu_tm_flushed *f);
/* Add to store s what the counters of temu_tm_add_stall_counters
 * accumulated since the previous flush through f, and those of
 * temu_tm_add_route_counters (each counter is the floor of its lane's
 * total in the hardware's unit, so any number of flushes adds up to one
 * flush at the end). */
temu_status temu_tm_counters_flush(const temu_tm *t, temu_tm_flushed *f, temu_session *s,
                                   temu_error *err);
/* The same for the counters of temu_tm_add_stall_counters only: for a
 * driver that counts every link crossing itself as the packets cross,
 * adaptively routed ones included (temu_vt: doc/series.md). */
temu_status temu_tm_stall_counters_flush(const temu_tm *t, temu_tm_flushed *f, temu_session *s,
                                         temu_error *err);

/* --- a model of either level (emu/net.c) ------------------------------ */

/* The model level c->level (temu_tm_level) behind one handle, for a
 * driver that feeds it messages itself (the live run's online model,
 * utils/run_model.c); virtual time (torusemu_vtime.h) picks the level the
 * same way.  Every call means what the packet model's temu_tm_* of the
 * same name does; a message is cut into the same packets on both levels
 * (temu_tm_send_message_dir), so *packets and *bytes are equal. */
typedef struct temu_net temu_net;
temu_status temu_net_create(const temu_machine *m, const temu_tm_config *c, temu_net **out,
                            temu_error *err);
void temu_net_free(temu_net *n);
/* The level's name, "packet" or "flow". */
const char *temu_net_level(const temu_net *n);
/* Called when `units` packets of one tag have arrived together, created at
 * created_ps, the last at done_ps: on the packet level once per packet
 * (units 1, as temu_tm_set_delivery), on the flow level once per flow (a
 * flow of millions of packets costs one call). */
typedef void (*temu_net_arrival_fn)(void *ctx, uint64_t tag, uint64_t units, int64_t created_ps,
                                    int64_t done_ps);
void temu_net_set_arrival(temu_net *n, temu_net_arrival_fn fn, void *ctx);
temu_status temu_net_send_message_dir(temu_net *n, int64_t when_ps, const temu_machine *m,
                                      const temu_message *msg, int dir, uint64_t tag,
                                      uint64_t *packets, uint64_t *bytes, temu_error *err);
int64_t temu_net_run(temu_net *n, int64_t until_ps);
int64_t temu_net_now(const temu_net *n);
int64_t temu_net_next_event(const temu_net *n);
temu_status temu_net_check(const temu_net *n, temu_error *err);
/* temu_tm_stall_counters_flush of the level: the packet model's measured
 * stalls, or the flow model's estimated ones, in the same counters. */
temu_status temu_net_stall_counters_flush(const temu_net *n, temu_tm_flushed *f, temu_session *s,
                                          temu_error *err);

#ifdef __cplusplus
}
#endif

#endif
