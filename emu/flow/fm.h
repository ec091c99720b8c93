/*
 * fm.h - the flow level's state, shared by its parts.  Private to
 * libtorusemu (the level's interface is torusemu_flow.h).
 *
 * One job per file:
 *   fm_maxmin.h, .c  weighted max-min rates by progressive filling (pure)
 *   fm_params.h, .c  the constants (saturation derating, queue formulas)
 *   fm_heap.c        the indexed heaps of flows (events, hop reports)
 *   fm_route.c       a flow's channels and its zero-load pipeline latency
 *   fm_solve.c       the change's connected flows and channels, their
 *                    rates (derated where saturated), stall rates
 *   fm_model.c       creation, sends, the run, reports, statistics
 *
 * Units: a flow's rate x is in packets per ps; its coefficient on a
 * channel is that channel's serialization of one of its packets in ps
 * (rounded as the packet model rounds it, temu_tm_ser_ps), so a channel's
 * capacity is the fraction of its time it sends: 1, or eta where
 * saturation derates it.  A lone flow then drains exactly at the packet
 * model's pace: one packet per serialization of its slowest channel.
 *
 * A flow's progress p counts packets drained (fluid): packet k starts
 * onto every channel of the route when p reaches k and has drained when p
 * reaches k + 1; it is delivered `lat` ps later (the packet model's
 * zero-load pipeline less the slowest serialization, fm_route.c).
 */
#ifndef TEMU_FLOW_FLOW_H
#define TEMU_FLOW_FLOW_H

#include "../emu_internal.h"
#include "fm_maxmin.h"
#include "fm_params.h"
#include "torusemu_flow.h"

#include <stdint.h>

#pragma GCC visibility push(hidden)

/* A class's entries in fm_chan.cls (4 per class). */
enum { FM_CLS_RINQ = 0, FM_CLS_RCREDIT = 1, FM_CLS_INQ = 2, FM_CLS_CREDIT = 3, FM_CLS_N = 4 };

/* One channel of a flow's route. */
typedef struct fm_elem {
    int32_t chan;
    int32_t pos;  /* its entry in the channel's users          */
    double coef;  /* ps of the channel per packet              */
    double hold;  /* the same, always (stall estimates)                                 */
    double bcoef; /* of the input buffer at its end, per packet: bytes x the time they  */
                  /* hold it (wire, router, read-out, credit return) / its size; 0: none */
    double tcoef; /* of the input VC at its end, per packet, with a VC turnaround        */
                  /* (turn_ps): its read-out onto the next channel + turn_ps; 0: none     */
                  /* (fm_route.c, add_turnaround)                                         */
    uint8_t vc;   /* dateline class: 1 where the ring wraps    */
    uint8_t key;  /* its VC's buffer at the channel's end: class x VCs per class + vc */
} fm_elem;

/* A channel's user: flow and the element of its route, and copies of
 * what fm_solve.c's scans of a channel's users read of the flow, kept
 * equal to it (the flow's mark: add_flow; its rate and bottleneck: apply,
 * fm_model.c flow_join), so that a scan reads the channel's users in
 * order instead of one flow record (160 bytes, anywhere) per user: on
 * 1,024 nodes those reads missed the cache (doc/performance.md, "Channels'
 * users carry their flows' fields").  The scans of the input buffers' and
 * turnarounds' constraints (temu_fm.nk > 0) read the flow record: no copy
 * of bcoef or tcoef here, which keeps a user at 64 bytes, one cache line. */
typedef struct fm_user {
    int32_t flow, elem;
    int32_t mark;          /* the flow's mark (fm_solve.c: in the set) */
    int32_t prev, next;    /* the channels before and after this one, -1: none */
    uint32_t bytes;        /* the flow's bytes per packet */
    uint8_t here;          /* this channel (not the buffer at its end) limits it */
    uint8_t ahead;         /* its bottleneck lies further on its route, or is the */
                           /* input buffer or input VC's turnaround at this */
                           /* channel's end (chan_rates) */
    uint8_t vc, key;       /* the element's */
    uint8_t cls, adaptive; /* the flow's */
    double x;              /* the flow's rate, packets per ps */
    double coef, ncoef;    /* the element's and the next one's coef (0: none), ps per packet */
    double hold;           /* the element's */
} fm_user;

/* A channel: a lane of a directed link, or a node's injection or ejection
 * channel.  Rates are fractions of its time; integrals in ps. */
typedef struct fm_chan {
    fm_user *users;
    int32_t nusers, capusers;
    double ps_per_byte;
    double cap;                         /* the solver's capacity: 1, or eta derated */
    double u, r_inq, r_credit, r_nodyn; /* now: busy fraction, stall fractions    */
    double busy, inq, credit, nodyn;    /* integrated up to `since`              */
    /* per class k (BG/P and BG/Q VCs, Gemini's request/response classes):
     * cls[FM_CLS_* + 4 k], the part of r_inq and r_credit its packets wait
     * for, and their integrals; they sum to the lane's */
    double *cls;
    int32_t ncls;
    int64_t since;
    uint64_t packets, bytes; /* counted as the flows cross            */
    double scratch;          /* fm_solve.c: a port's load on this channel */
    double other, wait;      /* fm_solve.c (chan_rates): its other load and M/D/1 wait */
    int32_t mark, local;     /* fm_solve.c: in the set (stamp), its index there */
    int32_t seen, grown;     /* fm_solve.c: stamps of one pass over channels */
    int32_t eta_call;        /* fm_solve.c: the solve (temu_fm.call) that set eta */
    uint64_t uver;           /* changes of its users (fm_model.c: join, leave) */
    uint64_t mixed_uver;     /* fm_solve.c: uver + 1 when it set mixed, 0: never */
    uint64_t paced_uver;     /* fm_solve.c: and paced */
    int32_t fix_call;        /* fm_solve.c: the solve whose outside use (pfix) it holds */
    int32_t aff_batch;       /* fm_solve.c: the instant (batch + 1) whose stall rates it awaits */
    double eta;              /* fm_solve.c: its derating if a bottleneck (chan_eta) */
    uint8_t mixed;           /* fm_solve.c: its input queue feeds 2+ outputs */
    uint8_t paced;           /* fm_solve.c: fed by one link lane whose loop paces it */
    uint8_t full;            /* a bottleneck now */
    uint16_t bfull;          /* bit key: that input buffer a bottleneck now */
} fm_chan;

enum fm_state {
    FM_WAITING = 0, /* created in the future                   */
    FM_ACTIVE = 1,  /* on its channels, draining               */
    FM_DRAINED = 2, /* off its channels, the last packet flying */
    FM_FREE = 3,
    FM_QUEUED = 4 /* created, behind an earlier flow in its node's source queue */
};

typedef struct fm_flow {
    int64_t created;
    int64_t lat;         /* drained -> delivered, ps                         */
    int64_t first;       /* zero-load delivery of its first packet (absolute) */
    int64_t tp;          /* progress p at time tp                             */
    double p, x;         /* packets drained, packets per ps                   */
    double bound;        /* packets per ps, 0: none                           */
    int64_t end;         /* drain end (ACTIVE: as the rate now says)          */
    uint64_t count, rep; /* packets; the first not yet counted crossing   */
    uint64_t seq, tag;
    fm_elem *el;
    int32_t nel;
    int32_t limit;     /* element of its bottleneck, -1: its bound or none    */
    uint8_t limit_buf; /* the bottleneck is at that element's end: 1 its input buffer, */
                       /* 2 its input VC's turnaround; 0: the channel                    */
    int32_t next_free;
    int32_t qnext; /* the flow behind it in its node's source queue, -1: none */
    int32_t mark, local;
    int32_t resched_batch; /* fm_solve.c: the instant (batch + 1) whose rescheduling it awaits */
    int64_t src, dst;
    uint32_t bytes, cls, lane_key;
    uint8_t state, adaptive;
    uint8_t buffered;  /* an input buffer on its route may limit it (some bcoef > 0) */
    uint8_t inject_vc; /* its VC of the injection port's class (inject_vcs: its first   */
                       /* packet's serial at its node, mod 2, as the packet model's)    */
} fm_flow;

/* An indexed min-heap of flow ids keyed by (time, seq). */
typedef struct fm_heap {
    int32_t *ids;
    int32_t n;
    int64_t *key; /* [flow capacity] */
    int32_t *pos; /* [flow capacity] -1: not in the heap */
} fm_heap;

struct temu_fm {
    temu_machine m;
    temu_tm_config c;
    const fm_params *par;
    int tlinks, maxlanes;
    int vcs_per_class; /* 2: dateline VCs (credits, or trains), else 1 */
    int nkeys;         /* input buffers per channel: classes x vcs_per_class */
    int nk;            /* constraints per channel at its end in the current solve: the nkeys */
                       /* buffers (0 while no flow is buffered), then with turn_ps > 0 the  */
                       /* nkeys input VCs' turnarounds (fm_solve.c, turn_rows)               */
    int64_t nbuffered; /* flows under way that are buffered */
    int lanes[2 * TEMU_MAX_DIMS];
    int64_t ntorus, nchan;
    fm_chan *ch;
    double *chcls;  /* [nchan * classes * FM_CLS_N]: every channel's cls */
    int32_t *nbr;   /* [nrouters * tlinks] */
    int32_t *coord; /* [nrouters * ndims] */
    fm_flow *fl;
    int32_t nfl, capfl, freefl;
    /* [nnodes] source queues (fm_model.c): first (on its channels) and
     * last flow, -1: empty */
    int32_t *qhead, *qtail;
    uint64_t *sent;      /* [nnodes] packets sent by each node (inject_vcs) */
    int32_t *revisit;    /* nodes whose queue waits for a solve (fm_model.c, source_admit) */
    uint8_t *revisiting; /* [nnodes] in revisit */
    int32_t nrevisit, caprevisit;
    fm_heap ev;  /* each flow's next event: creation, drain end, delivery */
    fm_heap due; /* active flows by their next packet's start (hop reports) */
    uint64_t seq;
    int64_t now;
    /* the solve window (c.flow_window_ps > 0; fm_model.c, step): the
     * earliest time the next solve may be made (the last one's time plus
     * the window), and the time of a solve waiting for it (INT64_MAX:
     * none waits) */
    int64_t solve_ok, solve_at;
    uint64_t pending;
    int32_t stamp;
    int32_t call; /* fm_solve.c: solves made (channels cache per solve what its users decide) */
    int oom;
    temu_fm_totals tot;
    /* fm_solve.c scratch */
    int32_t *cflows, *cchans, *pstart, *pchan;
    double *pcap, *pw, *pbound, *pcoef, *rrate, *pfix, *punew, *pccap, *pold;
    /* per constraint: the set's level stopped there (-1: none), its highest rate */
    double *plevel, *pmax;
    double *pturn; /* per turnaround constraint: its packets still to pass x their read-out, ps */
    /* the lanes whose stall rates and the flows whose events the solves of
     * the current instant changed (fm_solve_finish): each once */
    int32_t *aff, *resched;
    int32_t *nexts, capnexts; /* fm_solve.c (chan_rates): a lane's next channels */
    int32_t naff, capaff, nresched, capresched;
    int32_t batch; /* instants finished (fm_solve_finish) */
    int32_t *rlimit;
    uint8_t *rfull;
    int32_t capcf, capcc, capce;
    int32_t pbuilt; /* fm_solve.c: flows whose rows of the problem are built in this solve */
    int32_t *seeds;
    int32_t nseeds, capseeds;
    fm_mm_work mm;
    temu_tm_delivery_fn deliver;
    void *deliver_ctx;
    temu_fm_done_fn done;
    void *done_ctx;
    temu_tm_hop_fn hop;
    void *hop_ctx;
};

/* ------------------------------------------------------------ layout */

/* Channels as the packet model numbers them: torus lanes, then injection,
 * then ejection channels. */
static inline int64_t fm_chan_id(const temu_fm *f, int64_t router, int link, int lane)
{
    return (router * f->tlinks + link) * f->maxlanes + lane;
}

static inline int64_t fm_inject_chan(const temu_fm *f, int64_t node)
{
    return f->ntorus + node;
}

static inline int64_t fm_eject_chan(const temu_fm *f, int64_t node)
{
    return f->ntorus + f->m.nnodes + node;
}

/* ------------------------------------------------------------ fm_heap.c */

int fm_heap_resize(fm_heap *h, int32_t cap, int32_t oldcap);
void fm_heap_free(fm_heap *h);
/* Insert or move flow id to key (ties: lower seq first). */
int fm_heap_set(fm_heap *h, const fm_flow *fl, int32_t id, int64_t key);
void fm_heap_remove(fm_heap *h, const fm_flow *fl, int32_t id);
/* The least flow id, -1 when empty; its key into *key. */
int32_t fm_heap_top(const fm_heap *h, int64_t *key);

/* ------------------------------------------------------------ fm_route.c */

/* Flow fl's channels (el, nel) and latencies (lat, first) from its src,
 * dst, bytes, lane_key, created; 0, or -1 when out of memory. */
int fm_route_build(temu_fm *f, fm_flow *fl);

/* ------------------------------------------------------------ fm_solve.c */

/* Re-solve the flows connected to the seed channels (f->seeds) at f->now;
 * every flow in the component has its progress settled first.  0 or -1
 * (out of memory).  The stall rates and the flows' events follow once per
 * instant, from its last solve's rates: fm_solve_finish. */
int fm_solve_changed(temu_fm *f);
/* After the instant's last solve: the stall rates of the lanes its solves
 * reached and the events of the flows whose rates they set (rates set
 * and replaced within one instant are never integrated: dt = 0).  0 or -1
 * (out of memory). */
int fm_solve_finish(temu_fm *f);
/* Channel c's integrals up to time t. */
void fm_chan_settle(fm_chan *c, int64_t t);

/* ------------------------------------------------------------ fm_model.c */

/* Count (and report to the hop function) the crossings of flow id's
 * packets that have started by time t (all of them: final). */
void fm_flow_report(temu_fm *f, int32_t id, int64_t t, int final);
/* Bring flow id's progress to time t at its current rate. */
void fm_flow_advance(temu_fm *f, int32_t id, int64_t t);
/* Flow id's rate changed (or was first set): its drain end and its next
 * report. */
int fm_flow_rescheduled(temu_fm *f, int32_t id);
/* Bytes of the flows queued behind flow id at its source that take its
 * route (the same destination, class and lane), counted until they
 * exceed `enough`. */
double fm_flow_queued_bytes(const temu_fm *f, int32_t id, double enough);

#pragma GCC visibility pop

#endif
