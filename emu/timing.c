/*
 * timing.c - packet-level discrete-event timing model (torusemu_timing.h).
 *
 * Entities:
 *   channel  one lane of a directed link (Gemini: one tile), or a node's
 *            injection / ejection channel.  Busy while it serializes a packet.
 *   queue    an input queue at the receiving end of a channel, one per VC;
 *            plus one unbounded source queue per node.  FIFO.
 *   credits  per channel and VC: bytes free in the downstream queue, as the
 *            sending side knows them (credits on Gemini, tokens on Blue Gene).
 * Events (a binary heap ordered by time, then by creation order, so equal
 * inputs always give equal results):
 *   CREATE   a packet enters its source queue
 *   READY    the head of a queue may leave: it requests its next channel
 *   TRY      a channel became free: pick a waiting head that has credit
 *   CREDIT   space freed downstream is known upstream again
 *   DELIVER  a packet's tail reached its destination node
 * Arbitration: among the waiting heads with enough credit, the one ready
 * first (then the lower queue id): first come, first served.
 * Adaptive routing (Blue Gene dynamic VCs): a packet's channels after the
 * injection are chosen hop by hop.  When it becomes ready it waits for every
 * productive channel at once, tried in the order of the dynamic tokens they
 * have free (most first, then the deterministic order); the first that can
 * take it on a dynamic VC, or the deterministic one on the escape VC with
 * the bubble rule, does.
 */
#define TEMU_BUILDING_LIBRARY 1
#include "emu_internal.h"
#include "torusemu_timing.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { EV_CREATE, EV_READY, EV_TRY, EV_CREDIT, EV_DELIVER };

typedef struct tm_event {
    int64_t t;
    uint64_t seq;
    int32_t type;
    int32_t a; /* packet, queue or channel */
    int32_t b; /* VC (CREDIT) */
    int32_t c; /* bytes (CREDIT) */
} tm_event;

typedef struct tm_chan {
    double ps_per_byte;
    int64_t wire_ps;
    int64_t busy_until;
    int32_t *wait; /* queues whose head waits for this channel */
    int32_t nwait, capwait;
    int32_t try_pending;
    int32_t exists;
    int32_t stalled;     /* credit stall interval open */
    int32_t inq_waiting; /* ready heads waiting in this channel's queues */
    int64_t stall_since, inq_since;
    uint32_t short_mask; /* idle: VCs (bit v; NO_DYNAMIC) waiting heads lack tokens on */
    int64_t short_since; /* since when short_mask has held */
    temu_tm_lane_stats st;
} tm_chan;

typedef struct tm_pkt {
    int64_t created, hdr, tail, ready;
    uint64_t tag;
    uint32_t bytes;
    int32_t next; /* next in queue, or in the free list */
    int32_t hop;  /* index in the path of the channel to take next */
    int32_t src_node;
    int32_t dst_node;
    int32_t adaptive; /* routed adaptively: path entries chosen hop by hop */
    int32_t ncand;    /* adaptive, waiting: its productive channels here */
    int32_t cand[TEMU_MAX_DIMS];
} tm_pkt;

/* A path entry not chosen yet; once the packet waits for its next channel,
 * PATH_DOR(c) marks c as the deterministic (escape) choice. */
#define PATH_OPEN (-1)
#define PATH_DOR(c) (-2 - (c))
/* short_mask bit: no dynamic VC had tokens for an adaptive packet */
#define NO_DYNAMIC (1u << 31)

typedef struct tm_queue {
    int32_t head, tail;
} tm_queue;

struct temu_tm {
    temu_machine m;
    temu_tm_config c;
    int nvc;        /* VCs per channel */
    int maxlanes;   /* 8 on Gemini, 1 on Blue Gene */
    int tlinks;     /* torus links per router: 2 * ndims */
    int maxpath;    /* injection + longest route + ejection */
    int64_t ntorus; /* torus channels (existing or not) */
    int64_t nchan;  /* + injection + ejection channels */
    tm_chan *ch;
    int64_t *credits; /* [nchan * nvc] */
    int64_t *occ;     /* [nchan * nvc] packets x ps spent in each input queue */
    /* token flow only, torus channels: adaptive packets and bytes per VC
     * [ntorus * nvc], token-shortage time per VC and NO_DYNAMIC
     * [ntorus * (nvc + 1)] */
    uint64_t *vc_pk, *vc_bytes;
    int64_t *notok;
    tm_queue *q; /* [nchan * nvc] input queues, then [nnodes] source queues */
    tm_pkt *pk;
    int32_t *path;   /* [npk * maxpath] channel ids */
    uint8_t *pvc;    /* [npk * maxpath] VC taken on that channel */
    uint8_t *penter; /* [npk * maxpath] 1 = first hop of a dimension */
    int32_t npk, cappk, freepk;
    tm_event *heap;
    int64_t nheap, capheap;
    uint64_t seq;
    int64_t now;
    uint64_t pending;
    int oom; /* an allocation failed during the run: results are incomplete */
    temu_tm_delivery_fn deliver;
    void *ctx;
};

/* ---------------------------------------------------------------- heap */

/* A 4-ary min-heap: half the depth of a binary heap, and a node's four
 * children are adjacent in memory (fewer cache misses on large queues). */
#define HEAP_ARITY 4

static int ev_before(const tm_event *x, const tm_event *y)
{
    return x->t < y->t || (x->t == y->t && x->seq < y->seq);
}

static int push(temu_tm *t, int64_t when, int type, int32_t a, int32_t b, int32_t c)
{
    if (t->nheap == t->capheap) {
        int64_t cap = t->capheap ? 2 * t->capheap : 1024;
        tm_event *h = realloc(t->heap, (size_t)cap * sizeof *h);
        if (!h) {
            t->oom = 1;
            return -1;
        }
        t->heap = h;
        t->capheap = cap;
    }
    tm_event e = {when, t->seq++, type, a, b, c};
    int64_t i = t->nheap++;
    while (i > 0 && ev_before(&e, &t->heap[(i - 1) / HEAP_ARITY])) {
        t->heap[i] = t->heap[(i - 1) / HEAP_ARITY];
        i = (i - 1) / HEAP_ARITY;
    }
    t->heap[i] = e;
    return 0;
}

static tm_event pop(temu_tm *t)
{
    tm_event top = t->heap[0];
    tm_event last = t->heap[--t->nheap];
    int64_t i = 0;
    for (;;) {
        int64_t first = HEAP_ARITY * i + 1, s = i;
        const tm_event *best = &last;
        for (int64_t j = first; j < first + HEAP_ARITY && j < t->nheap; j++) {
            if (ev_before(&t->heap[j], best)) {
                s = j;
                best = &t->heap[j];
            }
        }
        if (s == i) {
            break;
        }
        t->heap[i] = t->heap[s];
        i = s;
    }
    if (t->nheap > 0) {
        t->heap[i] = last;
    }
    return top;
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
        break;
    default:
        return temu_fail(err, TEMU_EINVAL, "timing model: unknown system %d", m->system);
    }
    c->node_wire_ps = 0;
    c->credit_ps = c->wire_ps; /* credits travel back over the link */
    c->link_gbs = 0;
    return TEMU_OK;
}

static temu_status check_config(const temu_tm_config *c, temu_error *err)
{
    uint32_t need;
    if (c->router_ps < 0 || c->wire_ps < 0 || c->node_wire_ps < 0 || c->credit_ps < 0) {
        return temu_fail(err, TEMU_EINVAL, "timing model: negative latency");
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
    temu_status st = check_config(c, err);
    temu_tm *t;
    *out = NULL;
    if (st != TEMU_OK) {
        return st;
    }
    if (c->routing == TEMU_TM_ADAPTIVE && m->system == TEMU_SYSTEM_GEMINI) {
        return temu_fail(err, TEMU_EINVAL,
                         "timing model: adaptive routing is modelled for Blue Gene only");
    }
    t = calloc(1, sizeof *t);
    if (!t) {
        return temu_fail(err, TEMU_ENOMEM, "timing model: out of memory");
    }
    t->m = *m;
    t->c = *c;
    t->nvc = (int)c->classes * (c->flow == TEMU_TM_CREDIT ? 2 : 1);
    t->maxlanes = m->system == TEMU_SYSTEM_GEMINI ? 8 : 1;
    t->tlinks = 2 * m->ndims;
    t->maxpath = 2;
    for (int d = 0; d < m->ndims; d++) {
        t->maxpath += m->torus[d] ? m->size[d] / 2 : m->size[d] - 1;
    }
    t->ntorus = m->nrouters * t->tlinks * t->maxlanes;
    t->nchan = t->ntorus + 2 * m->nnodes;
    t->ch = calloc((size_t)t->nchan, sizeof *t->ch);
    t->credits = calloc((size_t)(t->nchan * t->nvc), sizeof *t->credits);
    t->occ = calloc((size_t)(t->nchan * t->nvc), sizeof *t->occ);
    t->q = malloc((size_t)(t->nchan * t->nvc + m->nnodes) * sizeof *t->q);
    t->freepk = -1;
    if (c->flow == TEMU_TM_TOKEN) {
        t->vc_pk = calloc((size_t)(t->ntorus * t->nvc), sizeof *t->vc_pk);
        t->vc_bytes = calloc((size_t)(t->ntorus * t->nvc), sizeof *t->vc_bytes);
        t->notok = calloc((size_t)(t->ntorus * (t->nvc + 1)), sizeof *t->notok);
    }
    if (!t->ch || !t->credits || !t->occ || !t->q ||
        (c->flow == TEMU_TM_TOKEN && (!t->vc_pk || !t->vc_bytes || !t->notok))) {
        temu_tm_destroy(t);
        return temu_fail(err, TEMU_ENOMEM, "timing model: out of memory for %lld channels",
                         (long long)t->nchan);
    }
    for (int64_t i = 0; i < t->nchan * t->nvc + m->nnodes; i++) {
        t->q[i].head = t->q[i].tail = -1;
    }
    for (int64_t r = 0; r < m->nrouters; r++) {
        for (int l = 0; l < t->tlinks; l++) {
            int lanes = temu_link_neighbor(m, r, l) >= 0 ? lanes_of(m, l) : 0;
            double gbs = c->link_gbs > 0 ? c->link_gbs : machine_lane_gbs(m, r, l);
            for (int k = 0; k < lanes; k++) {
                tm_chan *ch = &t->ch[chan_id(t, r, l, k)];
                ch->exists = 1;
                ch->ps_per_byte = 1000.0 / gbs;
                ch->wire_ps = c->wire_ps;
            }
        }
    }
    for (int64_t n = 0; n < m->nnodes; n++) {
        tm_chan *in = &t->ch[inject_chan(t, n)], *ej = &t->ch[eject_chan(t, n)];
        in->exists = ej->exists = 1;
        in->ps_per_byte = ej->ps_per_byte = 1000.0 / c->node_gbs;
        in->wire_ps = ej->wire_ps = c->node_wire_ps;
    }
    for (int64_t i = 0; i < t->nchan * t->nvc; i++) {
        /* ejection channels end at the node, which always accepts */
        t->credits[i] = i / t->nvc >= t->ntorus + m->nnodes ? INT64_MAX / 2 : c->buffer_bytes;
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
    free(t->credits);
    free(t->occ);
    free(t->vc_pk);
    free(t->vc_bytes);
    free(t->notok);
    free(t->q);
    free(t->pk);
    free(t->path);
    free(t->pvc);
    free(t->penter);
    free(t->heap);
    free(t);
}

void temu_tm_set_delivery(temu_tm *t, temu_tm_delivery_fn fn, void *ctx)
{
    t->deliver = fn;
    t->ctx = ctx;
}

int64_t temu_tm_now(const temu_tm *t)
{
    return t->now;
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

static int32_t alloc_pkt(temu_tm *t)
{
    int32_t i;
    if (t->freepk >= 0) {
        i = t->freepk;
        t->freepk = t->pk[i].next;
        return i;
    }
    if (t->npk == t->cappk) {
        int32_t cap = t->cappk ? 2 * t->cappk : 1024;
        size_t mp = (size_t)t->maxpath;
        tm_pkt *pk = realloc(t->pk, (size_t)cap * sizeof *pk);
        if (pk) {
            t->pk = pk;
        }
        int32_t *path = realloc(t->path, (size_t)cap * mp * sizeof *path);
        if (path) {
            t->path = path;
        }
        uint8_t *pvc = realloc(t->pvc, (size_t)cap * mp);
        if (pvc) {
            t->pvc = pvc;
        }
        uint8_t *pen = realloc(t->penter, (size_t)cap * mp);
        if (pen) {
            t->penter = pen;
        }
        if (!pk || !path || !pvc || !pen) {
            return -1;
        }
        t->cappk = cap;
    }
    return t->npk++;
}

/* The channels a packet takes, the VC on each and where it enters a ring.
 * Dateline (credit flow): a dimension whose hops use the wrap link travels
 * on the class's second VC for all its hops, the others on the first
 * (BookSim's dim_order_torus rule, deadlock-free on every ring). */
static void build_path(temu_tm *t, int32_t p, int64_t src, int64_t dst, uint32_t cls,
                       uint32_t lane_key)
{
    temu_hop hops[TEMU_MAX_HOPS];
    int32_t *path = &t->path[(size_t)p * (size_t)t->maxpath];
    uint8_t *vc = &t->pvc[(size_t)p * (size_t)t->maxpath];
    uint8_t *enter = &t->penter[(size_t)p * (size_t)t->maxpath];
    int per = t->c.flow == TEMU_TM_CREDIT ? 2 : 1;
    int n, k = 0;

    if (t->pk[p].adaptive) {
        /* injection and ejection are fixed; the hops between are chosen
         * on the way (every choice is minimal, so there are exactly as
         * many as on the deterministic route) */
        n = temu_route_distance(&t->m, temu_node_router(&t->m, src), temu_node_router(&t->m, dst));
        path[0] = (int32_t)inject_chan(t, src);
        vc[0] = (uint8_t)cls;
        enter[0] = 0;
        for (k = 1; k <= n; k++) {
            path[k] = PATH_OPEN;
        }
        path[k] = (int32_t)eject_chan(t, dst);
        vc[k] = 0;
        enter[k] = 0;
        return;
    }
    n = temu_route(&t->m, temu_node_router(&t->m, src), temu_node_router(&t->m, dst), hops,
                   TEMU_MAX_HOPS);

    path[k] = (int32_t)inject_chan(t, src);
    vc[k] = (uint8_t)(cls * (uint32_t)per);
    enter[k++] = 0;
    for (int i = 0; i < n;) {
        int dim = hops[i].link / 2, j = i, wraps = 0;
        while (j < n && hops[j].link / 2 == dim) {
            int32_t cf[TEMU_MAX_DIMS], ct[TEMU_MAX_DIMS];
            temu_router_coords(&t->m, hops[j].from, cf);
            temu_router_coords(&t->m, hops[j].to, ct);
            wraps |= (hops[j].link & 1) ? ct[dim] < cf[dim] : ct[dim] > cf[dim];
            j++;
        }
        for (int h = i; h < j; h++) {
            int lanes = lanes_of(&t->m, hops[h].link);
            path[k] =
                (int32_t)chan_id(t, hops[h].from, hops[h].link, (int)(lane_key % (uint32_t)lanes));
            vc[k] = (uint8_t)(cls * (uint32_t)per + (uint32_t)(per == 2 && wraps));
            enter[k++] = h == i;
        }
        i = j;
    }
    path[k] = (int32_t)eject_chan(t, dst);
    vc[k] = 0;
    enter[k] = 0;
}

static void append(temu_tm *t, int64_t q, int32_t p);

temu_status temu_tm_send(temu_tm *t, int64_t when_ps, int64_t src, int64_t dst, uint32_t bytes,
                         uint32_t cls, uint32_t lane_key, uint64_t tag, temu_error *err)
{
    int32_t p;
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
    if (cls >= t->c.classes) {
        return temu_fail(err, TEMU_EINVAL, "timing model: class %u, the model has %u", cls,
                         t->c.classes);
    }
    if (when_ps < t->now) {
        return temu_fail(err, TEMU_EINVAL,
                         "timing model: packet created at %lld ps, before now (%lld ps)",
                         (long long)when_ps, (long long)t->now);
    }
    p = alloc_pkt(t);
    if (p < 0 || (when_ps > t->now && push(t, when_ps, EV_CREATE, p, 0, 0) != 0)) {
        return temu_fail(err, TEMU_ENOMEM, "timing model: out of memory for packets");
    }
    tm_pkt *pk = &t->pk[p];
    memset(pk, 0, sizeof *pk);
    pk->created = pk->hdr = pk->tail = when_ps;
    pk->tag = tag;
    pk->bytes = bytes;
    pk->next = -1;
    pk->src_node = (int32_t)src;
    pk->dst_node = (int32_t)dst;
    pk->adaptive = t->c.routing == TEMU_TM_ADAPTIVE && (t->c.dynamic_vcs >> cls & 1u);
    build_path(t, p, src, dst, cls, lane_key);
    t->pending++;
    if (when_ps == t->now) {
        append(t, source_queue(t, src), p); /* created now: no event needed */
    }
    return TEMU_OK;
}

/* ---------------------------------------------------------------- engine */

static int32_t path_at(const temu_tm *t, int32_t p, int i)
{
    return t->path[(size_t)p * (size_t)t->maxpath + (size_t)i];
}

static int vc_at(const temu_tm *t, int32_t p, int i)
{
    return t->pvc[(size_t)p * (size_t)t->maxpath + (size_t)i];
}

static int is_source(const temu_tm *t, int64_t q)
{
    return q >= t->nchan * t->nvc;
}

/* ------------------------------------------------------ adaptive routing */

/* Router at the receiving end of channel c (a torus lane or an injection
 * channel). */
static int64_t chan_to_router(const temu_tm *t, int64_t c)
{
    if (c >= t->ntorus) {
        return temu_node_router(&t->m, c - t->ntorus);
    }
    int64_t rl = c / t->maxlanes;
    return temu_link_neighbor(&t->m, rl / t->tlinks, (int)(rl % t->tlinks));
}

static int chan_dim(const temu_tm *t, int64_t c)
{
    return c >= t->ntorus ? -1 : (int)(c / t->maxlanes % t->tlinks) / 2;
}

/* The productive channels of adaptive packet p where it is now, into
 * pk->cand: one per dimension it still has to travel, in the direction the
 * deterministic route takes there (temu_route_dim_steps: shortest, ties
 * +), so every choice keeps the path minimal; in the machine's dimension
 * order, so cand[0] is the deterministic route's next channel, the escape
 * direction. */
static void candidates(temu_tm *t, int32_t p)
{
    tm_pkt *pk = &t->pk[p];
    int32_t ch[TEMU_MAX_DIMS], cd[TEMU_MAX_DIMS];
    int64_t here = chan_to_router(t, path_at(t, p, pk->hop - 1));
    temu_router_coords(&t->m, here, ch);
    temu_router_coords(&t->m, temu_node_router(&t->m, pk->dst_node), cd);
    pk->ncand = 0;
    for (int i = 0; i < t->m.ndims; i++) {
        int d = t->m.dim_order[i], dir;
        if (temu_route_dim_steps(&t->m, d, ch[d], cd[d], &dir) > 0) {
            int link = dir > 0 ? TEMU_LINK_PLUS(d) : TEMU_LINK_MINUS(d);
            pk->cand[pk->ncand++] = (int32_t)chan_id(t, here, link, 0);
        }
    }
}

/* The channel packet p takes next, or for an adaptive packet not routed
 * yet its deterministic candidate (remembered in the path as PATH_DOR;
 * the candidates are found here, when p becomes the head of its queue). */
static int64_t next_chan(temu_tm *t, int32_t p)
{
    size_t at = (size_t)p * (size_t)t->maxpath + (size_t)t->pk[p].hop;
    int32_t raw = t->path[at];
    if (raw == PATH_OPEN) {
        candidates(t, p);
        t->path[at] = (int32_t)PATH_DOR(t->pk[p].cand[0]);
        return t->pk[p].cand[0];
    }
    return raw >= 0 ? raw : -2 - (int64_t)raw;
}

/* An adaptive packet moving onto the escape VC of c enters an escape ring
 * (and needs the bubble) unless it was on the escape VC of the same
 * dimension already (Puente et al., "Adaptive bubble router", 1999: the
 * escape channel's bubble condition). */
static int escape_entry(const temu_tm *t, int32_t p, int64_t c)
{
    int hop = t->pk[p].hop;
    int32_t prev = path_at(t, p, hop - 1);
    return prev >= t->ntorus || vc_at(t, p, hop - 1) != (int)t->c.escape_vc ||
           chan_dim(t, prev) != chan_dim(t, c);
}

/* The VC packet p would take on channel c now, or -1; then *lack gains
 * the VCs whose tokens were too few (and NO_DYNAMIC when an adaptive
 * packet found no dynamic VC with room).  Deterministic packets: their
 * path's VC, with the bubble rule where they enter a ring.  Adaptive
 * packets: the dynamic VC with the most tokens (ties: the lower), else on
 * the deterministic channel the escape VC. */
static int choose_vc(const temu_tm *t, int32_t p, int64_t c, uint32_t *lack)
{
    const tm_pkt *pk = &t->pk[p];
    const int64_t *cr = &t->credits[c * t->nvc];
    size_t at = (size_t)p * (size_t)t->maxpath + (size_t)pk->hop;
    int32_t raw = t->path[at];
    int64_t need = pk->bytes;
    int best = -1;
    if (raw >= 0) {
        int vc = t->pvc[at];
        if (t->c.flow == TEMU_TM_TOKEN && t->penter[at]) {
            need += t->c.max_packet; /* bubble: keep room for one more packet in the ring */
        }
        if (cr[vc] >= need) {
            return vc;
        }
        *lack |= 1u << vc;
        return -1;
    }
    for (int v = 0; v < t->nvc; v++) {
        if ((t->c.dynamic_vcs >> v & 1u) && cr[v] >= need && (best < 0 || cr[v] > cr[best])) {
            best = v;
        }
    }
    if (best >= 0) {
        return best;
    }
    *lack |= t->c.dynamic_vcs | NO_DYNAMIC;
    if (c == -2 - (int64_t)raw) {
        int e = (int)t->c.escape_vc;
        need += escape_entry(t, p, c) ? t->c.max_packet : 0;
        if (cr[e] >= need) {
            return e;
        }
        *lack |= 1u << e;
    }
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
    int64_t dt = t->now - ch->short_since, *acc = &t->notok[c * (t->nvc + 1)];
    for (int v = 0; v < t->nvc; v++) {
        acc[v] += (ch->short_mask >> v & 1u) ? dt : 0;
    }
    acc[t->nvc] += (ch->short_mask & NO_DYNAMIC) ? dt : 0;
    ch->short_mask = mask;
    ch->short_since = t->now;
}

static void remove_waiter(tm_chan *ch, int64_t q)
{
    for (int i = 0; i < ch->nwait; i++) {
        if (ch->wait[i] == q) {
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
    if (ch->busy_until > t->now) {
        return;
    }
    for (int i = 0; i < ch->nwait; i++) {
        choose_vc(t, t->q[ch->wait[i]].head, c, &lack);
    }
    if (ch->nwait == 0) {
        close_stall(ch, t->now);
    }
    set_short(t, c, lack);
}

/* Adaptive packet p, head of queue q, leaves on channel c with VC vc: fix
 * its path entry and stop waiting for the other productive channels. */
static void take_route(temu_tm *t, int64_t q, int32_t p, int64_t c, int vc)
{
    const tm_pkt *pk = &t->pk[p];
    size_t at = (size_t)p * (size_t)t->maxpath + (size_t)pk->hop;
    t->penter[at] = (uint8_t)(vc == (int)t->c.escape_vc && escape_entry(t, p, c));
    t->path[at] = (int32_t)c;
    t->pvc[at] = (uint8_t)vc;
    for (int i = 0; i < pk->ncand; i++) {
        if (pk->cand[i] != c) {
            remove_waiter(&t->ch[pk->cand[i]], q);
            waiter_left(t, pk->cand[i]);
        }
    }
}

/* Most dynamic tokens free on channel c's dynamic VCs. */
static int64_t dynamic_room(const temu_tm *t, int64_t c)
{
    int64_t room = 0;
    for (int v = 0; v < t->nvc; v++) {
        if ((t->c.dynamic_vcs >> v & 1u) && t->credits[c * t->nvc + v] > room) {
            room = t->credits[c * t->nvc + v];
        }
    }
    return room;
}

/* The packet now first in queue q becomes its head at head_time (when the
 * tail of the packet before it has left): when may it leave? */
static void become_head(temu_tm *t, int64_t q, int64_t head_time)
{
    int32_t p = t->q[q].head;
    if (p < 0) {
        return;
    }
    tm_pkt *pk = &t->pk[p];
    int src = is_source(t, q);
    int64_t ready = pk->hdr + (src ? 0 : t->c.router_ps);
    const tm_chan *next = &t->ch[next_chan(t, p)];
    if (head_time > ready) {
        ready = head_time;
    }
    /* cut-through onto a faster channel cannot overtake the arriving tail */
    if (pk->tail - ser_ps(next, pk->bytes) > ready) {
        ready = pk->tail - ser_ps(next, pk->bytes);
    }
    pk->ready = ready;
    push(t, ready, EV_READY, (int32_t)q, 0, 0);
}

static void append(temu_tm *t, int64_t q, int32_t p)
{
    t->pk[p].next = -1;
    if (t->q[q].tail >= 0) {
        t->pk[t->q[q].tail].next = p;
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

static void transmit(temu_tm *t, int64_t q, int64_t c)
{
    tm_chan *ch = &t->ch[c];
    int32_t p = t->q[q].head;
    tm_pkt *pk = &t->pk[p];
    int64_t ser = ser_ps(ch, pk->bytes);
    int vc = vc_at(t, p, pk->hop);

    t->q[q].head = pk->next;
    if (pk->next < 0) {
        t->q[q].tail = -1;
    }
    remove_waiter(ch, q);
    /* the input port reads the packet out at the rate it came in (our
     * assumption: the router's internal path is as fast as its input, and
     * a slower output holds at most the packet it is sending, as Gemini's
     * column buffers do); a source queue empties at its injection rate */
    int64_t readout = is_source(t, q) ? ser : ser_ps(&t->ch[q / t->nvc], pk->bytes);
    if (!is_source(t, q)) {
        /* the queue's space comes back upstream once the tail is read out */
        tm_chan *up = &t->ch[q / t->nvc];
        if (--up->inq_waiting == 0) {
            up->st.inq_stall_ps += t->now - up->inq_since;
        }
        t->occ[q] += t->now + readout - pk->hdr; /* present from header arrival to read-out */
        push(t, t->now + readout + t->c.credit_ps, EV_CREDIT, (int32_t)(q / t->nvc),
             (int32_t)(q % t->nvc), (int32_t)pk->bytes);
    }
    ch->busy_until = t->now + ser;
    ch->st.packets++;
    ch->st.bytes += pk->bytes;
    ch->st.busy_ps += ser;
    if (c >= t->ntorus + t->m.nnodes) {
        push(t, t->now + ser + ch->wire_ps, EV_DELIVER, p, 0, 0);
    } else {
        if (pk->adaptive && t->vc_pk != NULL && c < t->ntorus) {
            t->vc_pk[c * t->nvc + vc]++;
            t->vc_bytes[c * t->nvc + vc] += pk->bytes;
        }
        t->credits[c * t->nvc + vc] -= pk->bytes;
        pk->hdr = t->now + ch->wire_ps;
        pk->tail = t->now + ser + ch->wire_ps;
        pk->hop++;
        append(t, c * t->nvc + vc, p);
    }
    become_head(t, q, t->now + readout);
    if (ch->nwait > 0 && !ch->try_pending) {
        ch->try_pending = 1;
        push(t, ch->busy_until, EV_TRY, (int32_t)c, 0, 0);
    }
}

static void try_chan(temu_tm *t, int64_t c)
{
    tm_chan *ch = &t->ch[c];
    int64_t best = -1, best_ready = 0;
    int best_vc = -1;
    uint32_t lack = 0;
    if (ch->busy_until > t->now) {
        if (!ch->try_pending) {
            ch->try_pending = 1;
            push(t, ch->busy_until, EV_TRY, (int32_t)c, 0, 0);
        }
        return;
    }
    for (int i = 0; i < ch->nwait; i++) {
        int64_t q = ch->wait[i];
        int32_t p = t->q[q].head;
        const tm_pkt *pk = &t->pk[p];
        int vc = choose_vc(t, p, c, &lack);
        if (vc < 0) {
            continue;
        }
        if (best < 0 || pk->ready < best_ready || (pk->ready == best_ready && q < best)) {
            best = q;
            best_ready = pk->ready;
            best_vc = vc;
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
    close_stall(ch, t->now);
    set_short(t, c, 0);
    int32_t p = t->q[best].head;
    if (path_at(t, p, t->pk[p].hop) < 0) {
        take_route(t, best, p, c, best_vc);
    }
    transmit(t, best, c);
}

static int add_waiter(tm_chan *ch, int32_t q)
{
    if (ch->nwait == ch->capwait) {
        int32_t cap = ch->capwait ? 2 * ch->capwait : 4;
        int32_t *w = realloc(ch->wait, (size_t)cap * sizeof *w);
        if (!w) {
            return -1;
        }
        ch->wait = w;
        ch->capwait = cap;
    }
    ch->wait[ch->nwait++] = q;
    return 0;
}

static void on_ready(temu_tm *t, int64_t q)
{
    int32_t p = t->q[q].head;
    int32_t raw = path_at(t, p, t->pk[p].hop);
    int64_t cand[TEMU_MAX_DIMS];
    int n = 1;
    if (!is_source(t, q)) {
        tm_chan *up = &t->ch[q / t->nvc];
        if (up->inq_waiting++ == 0) {
            up->inq_since = t->now;
        }
    }
    if (raw >= 0) {
        cand[0] = raw;
    } else {
        /* adaptive: wait for every productive channel, tried in the order
         * of the dynamic tokens they have free (most first; ties keep the
         * deterministic order) -- the buffer state the router saw */
        n = t->pk[p].ncand;
        for (int i = 0; i < n; i++) {
            cand[i] = t->pk[p].cand[i];
        }
        for (int i = 1; i < n; i++) {
            int64_t c = cand[i], room = dynamic_room(t, c);
            int j = i;
            for (; j > 0 && dynamic_room(t, cand[j - 1]) < room; j--) {
                cand[j] = cand[j - 1];
            }
            cand[j] = c;
        }
    }
    for (int i = 0; i < n; i++) {
        if (add_waiter(&t->ch[cand[i]], (int32_t)q) != 0) {
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
    tm_pkt *pk = &t->pk[p];
    if (t->deliver) {
        t->deliver(t->ctx, pk->tag, pk->created, t->now);
    }
    pk->next = t->freepk;
    t->freepk = p;
    t->pending--;
}

int64_t temu_tm_run(temu_tm *t, int64_t until_ps)
{
    while (!t->oom && t->nheap > 0 && t->heap[0].t <= until_ps) {
        tm_event e = pop(t);
        t->now = e.t;
        switch (e.type) {
        case EV_CREATE:
            append(t, source_queue(t, t->pk[e.a].src_node), e.a);
            break;
        case EV_READY:
            on_ready(t, e.a);
            break;
        case EV_TRY:
            t->ch[e.a].try_pending = 0;
            try_chan(t, e.a);
            break;
        case EV_CREDIT:
            t->credits[(int64_t)e.a * t->nvc + e.b] += e.c;
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
    int per = t->c.flow == TEMU_TM_CREDIT ? 2 : 1;
    int64_t base;
    if (lane < 0 || lane >= temu_tm_lanes(t, router, link) || cls >= t->c.classes) {
        return temu_fail(err, TEMU_ERANGE,
                         "timing model: no lane %d, class %u on link %d of router %lld", lane, cls,
                         link, (long long)router);
    }
    base = chan_id(t, router, link, lane) * t->nvc + (int64_t)cls * per;
    *packet_ps = 0;
    for (int v = 0; v < per; v++) {
        *packet_ps += t->occ[base + v];
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
                             ((ch->short_mask & NO_DYNAMIC) ? t->now - ch->short_since : 0);
    }
    return TEMU_OK;
}

temu_status temu_tm_lane_vc_stats(const temu_tm *t, int64_t router, int link, int lane, uint32_t vc,
                                  temu_tm_vc_stats *out, temu_error *err)
{
    int64_t c;
    memset(out, 0, sizeof *out);
    if (lane < 0 || lane >= temu_tm_lanes(t, router, link) || vc >= (uint32_t)t->nvc) {
        return temu_fail(err, TEMU_ERANGE,
                         "timing model: no lane %d, VC %u on link %d of router %lld", lane, vc,
                         link, (long long)router);
    }
    if (t->notok == NULL) {
        return TEMU_OK;
    }
    c = chan_id(t, router, link, lane);
    out->adaptive_packets = t->vc_pk[c * t->nvc + vc];
    out->adaptive_bytes = t->vc_bytes[c * t->nvc + vc];
    out->no_token_ps = t->notok[c * (t->nvc + 1) + vc] +
                       ((t->ch[c].short_mask >> vc & 1u) ? t->now - t->ch[c].short_since : 0);
    return TEMU_OK;
}

uint32_t temu_tm_adaptive_classes(const temu_tm *t)
{
    return t->c.routing == TEMU_TM_ADAPTIVE ? t->c.dynamic_vcs : 0;
}
