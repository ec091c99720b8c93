/*
 * bgq_nwunit.c - PAPI component for the Blue Gene/Q network unit of the
 * calling process's node: 11 links x 6 counters (BG/Q driver,
 * doc/references.md; McCraw 2013 section 3.4), read from the emulated machine.
 *
 * Rules of the hardware, as BGPM applied them, emulated here:
 *   - counters 0-3 of a link count chunks sent, each through its own VC
 *     mask: an event set may use at most 4 different send masks (events
 *     with the same mask read the same counter);
 *   - counters 4 (packets received) and 5 (receive-FIFO occupancy) share
 *     one mask: all receive events of a set must use the same mask (BGPM
 *     let the mask written last apply to both; we refuse instead);
 *   - links are attached when counting starts (PAPI_start): the union of
 *     the :link sets of the set's events, all 11 by default.  The first
 *     event set on the node to attach a link controls it and programs its
 *     masks; another set - of any process on the node - may attach it too
 *     if every mask it needs is already programmed there, else its
 *     PAPI_start fails with PAPI_ECNFLCT (BGPM_ELINK_CTRS_INCOMPAT).  The
 *     attachment lasts until the set is cleaned up or its events change.
 *   - a multiplexed set may need more masks than a link has counters (or two
 *     receive masks): its groups are counted in turn, so the link counters
 *     would be reprogrammed at every time slice; such a set controls its
 *     links alone (claim value NW_SWITCHING): no reader may join it, and
 *     it attaches only links no other set holds.
 * Node-wide state: torus_node.h, resources TORUS_RES_BGQ_NW + link.
 *
 * Counts: an event is the sum over its links of its counters, per VC of
 * its mask (the emulator keeps one counter per link, kind and VC).
 * PEVT_NW_CYCLES counts the 500 MHz network clock (2 ns a cycle) of
 *   - the rank's virtual clock in an MPI program under `torusemu run
 *     --virtual-time` (the backend's rank_clock_ps);
 *   - else, in a store whose clock is virtual (made by `torusemu replay
 *     --timing`), the node's cycle counter the timed replay advances;
 *   - else host time (CLOCK_MONOTONIC).
 *
 * Overflow: BGPM refused it on the NW unit (BGPM_EINV_OP; its counters
 * were read over the DCR bus and raised no interrupt).  The emulated unit
 * offers it on every event: counters through the emulator's watches,
 * detected as the traffic passes (no detection delay is modelled: there
 * was no hardware path to model), PEVT_NW_CYCLES on the set timer.
 */
#include "bgq_nwunit_table.h"
#include "torus_comp.h"
#include "torus_node.h"
#include "torusemu.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

#define NW_ALL_VCS 0x7f           /* mask bit 0x40 >> VC (upc_nw.h)             */
#define NW_SEND_COUNTERS 4        /* counters 0-3 of every link                 */
#define NW_SOURCE_CYCLES 0        /* host source: network cycles from the clock  */
#define NW_SOURCE_VCLOCK 1        /* host source: cycles of the rank's virtual clock */
#define NW_SWITCHING (1ull << 40) /* claim value: masks time-sliced by one set   */

/* The machine: UPC_NW link numbering (BG/Q driver) is the family's link
 * numbering, its names the family's; the network clock is its router_hz. */
static const temu_family_info *nw_family(void)
{
    return temu_family_info_get(TEMU_SYSTEM_BGQ);
}

/* Link masks: bit = link 0 (A-) .. 10 (I/O); the torus links 0..9. */
static unsigned nw_all_links(void)
{
    return (1u << nw_family()->base.nlinks) - 1;
}

static unsigned nw_torus_links(void)
{
    return (1u << 2 * nw_family()->base.ndims) - 1;
}

/* Link selections of the :link qualifier after the 11 single links. */
enum nw_link_choice { NW_SEL_A = 11, NW_SEL_TORUS = 16, NW_SEL_ALL = 17 };

/*
 * Counter configuration of an event set, which is also the value of its
 * link claims: send masks in bits 0..31 (one per byte, descending, 0 =
 * unused) and the receive mask (counters 4 and 5) in bits 32..39.
 */
typedef struct nw_needs {
    uint8_t send[NW_SEND_COUNTERS + 1]; /* one spare: a 5th mask is an error */
    int nsend;
    uint8_t recv;
    const char *recv_by; /* event that set recv                      */
    int recv_clash;      /* a second, different receive mask         */
    uint8_t recv_other;
    const char *other_by;
    unsigned links;
} nw_needs;

/* What an event set has attached, kept in torus_control.priv. */
typedef struct nw_set {
    uint64_t *words; /* node words of the attachment; NULL: not attached */
    int64_t node;
    uint64_t config;
    unsigned links; /* attached links                          */
    uint64_t want;  /* configuration of the current events     */
    unsigned want_links;
} nw_set;

_Static_assert(sizeof(nw_set) <= TORUS_PRIV_BYTES, "nw_set must fit torus_control.priv");

static unsigned link_mask(const torus_qvals *q)
{
    int64_t v;
    if (!torus_qset(q, BGQ_NWUNIT_Q_LINK)) {
        return nw_all_links();
    }
    v = q->v[BGQ_NWUNIT_Q_LINK];
    if (v < nw_family()->base.nlinks) {
        return 1u << v;
    }
    if (v < NW_SEL_TORUS) {
        return 3u << (2 * (v - NW_SEL_A)); /* both directions of a dimension */
    }
    return v == NW_SEL_TORUS ? nw_torus_links() : nw_all_links();
}

/* VC mask of a base event: its own, or the :vc qualifier of an attribute
 * event (default all channels). */
static unsigned vc_mask(const torus_event_def *ev, const torus_qvals *q)
{
    if (ev->arg[0] != 0) {
        return (unsigned)ev->arg[0];
    }
    return torus_qset(q, BGQ_NWUNIT_Q_VC) ? (unsigned)q->v[BGQ_NWUNIT_Q_VC] : NW_ALL_VCS;
}

static uint64_t config_value(const nw_needs *n)
{
    uint64_t v = (uint64_t)n->recv << 32;
    for (int i = 0; i < n->nsend && i < NW_SEND_COUNTERS; i++) {
        v |= (uint64_t)n->send[i] << (8 * (NW_SEND_COUNTERS - 1 - i));
    }
    return v;
}

static int config_has_send(uint64_t config, unsigned mask)
{
    for (int i = 0; i < NW_SEND_COUNTERS; i++) {
        if (((config >> (8 * i)) & 0xff) == mask) {
            return 1;
        }
    }
    return 0;
}

/* May a set needing `want` attach a link programmed with `held`?  Every
 * send mask it needs must be on one of the link's counters 0-3, and its
 * receive mask, if any, must be the one counters 4 and 5 use. */
static int nw_fits(uint64_t held, uint64_t want)
{
    unsigned want_recv = (unsigned)(want >> 32) & 0xff;
    if ((held | want) & NW_SWITCHING) {
        return 0; /* reprogrammed every slice: nobody can share it */
    }
    for (int i = 0; i < NW_SEND_COUNTERS; i++) {
        unsigned m = (unsigned)(want >> (8 * i)) & 0xff;
        if (m != 0 && !config_has_send(held, m)) {
            return 0;
        }
    }
    return want_recv == 0 || want_recv == ((unsigned)(held >> 32) & 0xff);
}

/* "send masks 0x70 0x08, receive mask 0x70" (for refusal reasons) */
static void format_config(uint64_t config, char *buf, size_t len)
{
    unsigned recv = (unsigned)(config >> 32) & 0xff;
    size_t used;
    if (config & NW_SWITCHING) {
        snprintf(buf, len, "masks reprogrammed every time slice by a multiplexed set");
        return;
    }
    used = (size_t)snprintf(buf, len, "send masks");
    for (int i = NW_SEND_COUNTERS - 1; i >= 0 && used < len; i--) {
        unsigned m = (unsigned)(config >> (8 * i)) & 0xff;
        if (m != 0) {
            used += (size_t)snprintf(buf + used, len - used, " 0x%02x", m);
        }
    }
    if (used < len && (config & 0xffffffffu) == 0) {
        used += (size_t)snprintf(buf + used, len - used, " none");
    }
    if (used < len && recv != 0) {
        snprintf(buf + used, len - used, ", receive mask 0x%02x", recv);
    } else if (used < len) {
        snprintf(buf + used, len - used, ", no receive mask");
    }
}

struct needs_scan {
    nw_needs *n;
    const torus_qvals *q;
};

static void scan_base(const torus_event_def *ev, int64_t mul, void *arg)
{
    struct needs_scan *s = arg;
    nw_needs *n = s->n;
    unsigned m = vc_mask(ev, s->q);
    int i;
    (void)mul;
    n->links |= link_mask(s->q);
    switch (ev->klass) {
    case BGQ_NWUNIT_CLASS_SEND:
        for (i = 0; i < n->nsend && n->send[i] != m; i++) {
        }
        if (i == n->nsend && n->nsend <= NW_SEND_COUNTERS) {
            /* keep the masks sorted, largest first */
            int k = n->nsend++;
            while (k > 0 && n->send[k - 1] < m) {
                n->send[k] = n->send[k - 1];
                k--;
            }
            n->send[k] = (uint8_t)m;
        }
        break;
    case BGQ_NWUNIT_CLASS_RECV:
    case BGQ_NWUNIT_CLASS_FIFO:
        if (n->recv == 0) {
            n->recv = (uint8_t)m;
            n->recv_by = ev->name;
        } else if (n->recv != m && !n->recv_clash) {
            n->recv_clash = 1;
            n->recv_other = (uint8_t)m;
            n->other_by = ev->name;
        }
        break;
    default: /* cycles: no counter */
        break;
    }
}

static void detach(nw_set *st)
{
    for (int l = 0; l < TEMU_BGQ_LINKS && st->words != NULL; l++) {
        if (st->links & (1u << l)) {
            torus_node_release(st->words, TORUS_RES_BGQ_NW + l);
        }
    }
    st->words = NULL;
    st->links = 0;
}

static void nw_release(torus_component *c, torus_control *ctl)
{
    (void)c;
    detach((nw_set *)ctl->priv);
}

static void scan_needs(const torus_component *c, const torus_pick *picks, int n, nw_needs *need)
{
    memset(need, 0, sizeof *need);
    for (int i = 0; i < n; i++) {
        struct needs_scan s = {need, &picks[i].q};
        torus_pick_bases(c, &picks[i], scan_base, &s);
    }
}

/* The counters of one event set (or multiplex group): at most 4 send
 * masks, one receive mask. */
static int nw_conflict(const torus_component *c, const torus_pick *picks, int n, char *why,
                       size_t len)
{
    nw_needs need;
    int rc = TORUS_OK;

    scan_needs(c, picks, n, &need);
    if (need.nsend > NW_SEND_COUNTERS) {
        snprintf(why, len,
                 "bgq_nwunit: the events need 5 different send VC masks (0x%02x 0x%02x 0x%02x "
                 "0x%02x 0x%02x ...); a link has 4 send counters (0-3), one mask each",
                 need.send[0], need.send[1], need.send[2], need.send[3], need.send[4]);
        rc = TORUS_ECNFLCT;
    } else if (need.recv_clash) {
        snprintf(why, len,
                 "bgq_nwunit: %s needs receive VC mask 0x%02x but %s uses 0x%02x: counters 4 "
                 "and 5 share one mask (BGPM would silently use the mask written last)",
                 need.other_by, need.recv_other, need.recv_by, need.recv);
        rc = TORUS_ECNFLCT;
    }
    return rc;
}

/* What the set will attach at its next start: its links and their
 * configuration (or NW_SWITCHING when its groups use different masks). */
static int nw_admit(torus_component *c, torus_control *ctl, const torus_pick *picks, int n,
                    char *why, size_t len)
{
    nw_set *st = (nw_set *)ctl->priv;
    nw_needs need;
    uint64_t config;

    (void)why;
    (void)len;
    scan_needs(c, picks, n, &need);
    config = ctl->switching ? NW_SWITCHING : config_value(&need);
    /* a changed set is attached again, as configured now, at its next start */
    if (n == 0 || (st->words != NULL && (st->config != config || st->links != need.links))) {
        detach(st);
    }
    st->want = config;
    st->want_links = n > 0 ? need.links : 0;
    return TORUS_OK;
}

/* PAPI_start: attach the set's links on the process's node, all or none. */
static int nw_attach(torus_component *c, torus_control *ctl, const torus_place *pl, char *why,
                     size_t len)
{
    nw_set *st = (nw_set *)ctl->priv;
    torus_node_seen seen = {0, 0, 0};
    char detail[160], held[80], mine[80];
    int res[TEMU_BGQ_LINKS], link[TEMU_BGQ_LINKS], n = 0, failed = -1, rc = TORUS_OK;

    if (st->words != NULL && st->node == pl->node && st->config == st->want &&
        st->links == st->want_links) {
        return TORUS_OK; /* attached as it is configured: nothing to do */
    }
    detach(st);
    for (int l = 0; l < TEMU_BGQ_LINKS; l++) {
        if (st->want_links & (1u << l)) {
            link[n] = l;
            res[n++] = TORUS_RES_BGQ_NW + l;
        }
    }
    st->words = c->ops->node_words(c->be, pl->node);
    st->node = pl->node;
    st->config = st->want;
    if (st->words == NULL) {
        snprintf(why, len, "bgq_nwunit: node %lld has no node-wide state", (long long)pl->node);
        rc = TORUS_ESYS;
    } else {
        rc = torus_node_acquire_all(st->words, res, n, st->config, nw_fits, &failed, &seen, detail,
                                    sizeof detail);
    }
    if (rc == TORUS_OK) {
        st->links = st->want_links;
    } else if (rc == TORUS_ECNFLCT && seen.holders > 0 && failed >= 0) {
        format_config(seen.value, held, sizeof held);
        format_config(st->config, mine, sizeof mine);
        snprintf(why, len,
                 "bgq_nwunit: link %s of node %lld is controlled by an event set of pid %d (%s); "
                 "this set needs %s",
                 nw_family()->link_names[link[failed]], (long long)st->node, (int)seen.owner_pid,
                 held, mine);
    } else if (st->words != NULL) {
        snprintf(why, len, "bgq_nwunit: %s", detail);
    }
    if (rc != TORUS_OK) {
        st->words = NULL;
    }
    return rc;
}

/* PEVT_NW_CYCLES: the rank's virtual clock (the backend's, when this
 * process is a rank of a `torusemu run --virtual-time` job), the store's
 * virtual network clock, or host time, in that order of preference. */
static int nw_cycles_source(const torus_component *c, const torus_place *pl, int64_t coef,
                            torus_build *b)
{
    torus_hwref ref = {TORUS_UNIT_BGQ_NW_CYCLES, pl->node, 0, 0, 0};
    if (c->ops->rank_clock_ps(c->be) >= 0) {
        return torus_build_host(b, NW_SOURCE_VCLOCK, coef);
    }
    if (pl->virtual_clock) {
        return torus_build_counter(b, &ref, coef);
    }
    return torus_build_host(b, NW_SOURCE_CYCLES, coef);
}

static int nw_resolve(const torus_component *c, const torus_place *pl, const torus_event_def *ev,
                      const torus_qvals *q, int64_t coef, torus_build *b)
{
    unsigned links = link_mask(q), vcs = vc_mask(ev, q);
    torus_hwref ref = {TORUS_UNIT_BGQ_NW, pl->node, 0, 0, 0};
    int rc = TORUS_OK;

    switch (ev->klass) {
    case BGQ_NWUNIT_CLASS_SEND:
        ref.b = TEMU_BGQ_NW_SENT_CHUNKS;
        break;
    case BGQ_NWUNIT_CLASS_RECV:
        ref.b = TEMU_BGQ_NW_RECV_PACKETS;
        break;
    case BGQ_NWUNIT_CLASS_FIFO:
        ref.b = TEMU_BGQ_NW_RECV_FIFO;
        break;
    default:
        return nw_cycles_source(c, pl, coef, b);
    }
    for (int l = 0; l < TEMU_BGQ_LINKS && rc == TORUS_OK; l++) {
        if (!(links & (1u << l))) {
            continue;
        }
        for (int vc = 0; vc < TEMU_BGQ_VCS && rc == TORUS_OK; vc++) {
            if (vcs & (0x40u >> vc)) {
                ref.a = l;
                ref.c = vc;
                rc = torus_build_counter(b, &ref, coef);
            }
        }
    }
    return rc;
}

/* Network cycles at the network clock (500 MHz, 2 ns a cycle): of the
 * rank's virtual clock (whole cycles its clock has passed, as
 * temu_bgq_nw_cycles_advance counts them), or of CLOCK_MONOTONIC
 * nanoseconds. */
static uint64_t nw_host_read(const torus_component *c, int source)
{
    struct timespec ts;
    uint64_t hz = nw_family()->router_hz;
    int64_t ps;
    if (source == NW_SOURCE_VCLOCK) {
        ps = c->ops->rank_clock_ps(c->be);
        return ps > 0 ? temu_clock_cycles(hz, ps) : 0;
    }
    if (source != NW_SOURCE_CYCLES || clock_gettime(CLOCK_MONOTONIC, &ts) != 0) {
        return 0;
    }
    return ((uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec) / (1000000000ull / hz);
}

static torus_component bgq_nwunit = {
    .name = "bgq_nwunit",
    .description = "Blue Gene/Q network unit: 11 links x 6 counters (emulated machine)",
    .table = &bgq_nwunit_table,
    .system = TEMU_SYSTEM_BGQ,
    .num_cntrs = 6, /* per link: 4 send, 1 receive, 1 receive FIFO */
    .resolve = nw_resolve,
    .conflict = nw_conflict,
    .admit = nw_admit,
    .attach = nw_attach,
    .release = nw_release,
    .host_read = nw_host_read,
};

TORUS_COMPONENT_VECTOR(bgq_nwunit, bgq_nwunit);
