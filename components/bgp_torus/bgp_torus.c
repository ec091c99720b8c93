/*
 * bgp_torus.c - PAPI component for the Blue Gene/P torus counters of UPC
 * modes 0 and 2 (Lakner 2008, Table 6-3) on the calling process's node.
 *
 * The UPC unit of a BG/P node counts in one mode at a time (Lakner 2008 §2.1.2,
 * L976): an event set may not mix modes, and while any event set on the
 * node - of this process or of any other process reading the same session
 * - holds events of one mode, a set needing the other mode is refused with
 * PAPI_ECNFLCT.  The mode is free again once every set that claimed it is
 * emptied or cleaned up, or its process has died.  The mode lives in the
 * node's shared words (torus_node.h, resource TORUS_RES_BGP_UPC).
 *
 * A multiplexed set may hold both modes: its groups are counted in turn,
 * so the node's UPC unit would switch modes at every time slice, and the
 * set claims the unit for itself (value BGP_SWITCHING): no other set on
 * the node may count in either mode meanwhile, and it may start only when
 * no other set holds a mode.
 *
 * Overflow: PAPI on the real BG/P had no PAPI_overflow for these torus
 * events; the emulated node offers it on every event, the presets
 * PAPI_BGP_TS_DPKT and PAPI_BGP_TS_32B included, detected as the traffic
 * lands (doc/overflow-multiplex.md).
 */
#include "bgp_torus_table.h"
#include "torus_comp.h"
#include "torus_node.h"
#include "torusemu.h"

#include <stdio.h>
#include <string.h>

#define BGP_MODE_NONE (-1)
#define BGP_SWITCHING 0x100 /* claim value: modes 0 and 2 time-sliced by one set */

/* What an event set claimed, kept in torus_control.priv. */
typedef struct bgp_claim {
    torus_claim upc; /* the UPC mode of the set's node */
} bgp_claim;

struct mode_scan {
    int mode;
    int mixed;
};

static void scan_mode(const torus_event_def *base, int64_t mul, void *arg)
{
    struct mode_scan *s = arg;
    int m = (int)base->arg[0];
    (void)mul;
    if (s->mode == BGP_MODE_NONE) {
        s->mode = m;
    } else if (s->mode != m) {
        s->mixed = 1;
    }
}

static void bgp_release(torus_component *c, torus_control *ctl)
{
    bgp_claim *cl = (bgp_claim *)ctl->priv;
    (void)c;
    torus_claim_drop(&cl->upc);
}

/* Equal modes share the unit; a time-slicing set shares it with nobody. */
static int bgp_fits(uint64_t held, uint64_t want)
{
    return held == want && !(held & BGP_SWITCHING);
}

static void describe_mode(uint64_t value, char *buf, size_t len)
{
    if (value & BGP_SWITCHING) {
        snprintf(buf, len, "time-sliced between modes 0 and 2 by a multiplexed event set");
    } else {
        snprintf(buf, len, "in mode %llu", (unsigned long long)value);
    }
}

/* Claim UPC mode `mode` (or BGP_SWITCHING) of `node` for the set. */
static int claim_mode(torus_component *c, bgp_claim *cl, int64_t node, uint64_t mode, char *why,
                      size_t len)
{
    torus_node_seen seen = {0, 0, 0};
    char detail[160], held[96], want[96];
    int rc = torus_claim_take(c->ops, c->be, &cl->upc, node, TORUS_RES_BGP_UPC, mode, bgp_fits,
                              &seen, detail, sizeof detail);
    if (rc == TORUS_ECNFLCT && seen.holders > 0) {
        describe_mode(seen.value, held, sizeof held);
        if (mode & BGP_SWITCHING) {
            snprintf(want, sizeof want,
                     "a multiplexed set of mode 0 and 2 events needs the unit "
                     "to itself");
        } else {
            snprintf(want, sizeof want, "mode %llu events conflict", (unsigned long long)mode);
        }
        snprintf(why, len,
                 "bgp_torus: the UPC unit of node %lld is %s for event sets of %d process(es) "
                 "(first: pid %d); %s",
                 (long long)node, held, seen.holders, (int)seen.owner_pid, want);
    } else if (rc != TORUS_OK) {
        snprintf(why, len, "bgp_torus: %s", detail);
    }
    return rc;
}

/* One UPC mode per set (or per multiplex group). */
static int bgp_conflict(const torus_component *c, const torus_pick *picks, int n, char *why,
                        size_t len)
{
    struct mode_scan s = {BGP_MODE_NONE, 0};
    for (int i = 0; i < n; i++) {
        torus_pick_bases(c, &picks[i], scan_mode, &s);
    }
    if (s.mixed) {
        snprintf(why, len,
                 "bgp_torus: events of UPC modes 0 and 2 cannot be counted at once (the UPC "
                 "unit counts in one mode; PAPI_set_multiplex time-slices them)");
        return TORUS_ECNFLCT;
    }
    return TORUS_OK;
}

static int bgp_admit(torus_component *c, torus_control *ctl, const torus_pick *picks, int n,
                     char *why, size_t len)
{
    struct mode_scan s = {BGP_MODE_NONE, 0};
    bgp_claim *cl = (bgp_claim *)ctl->priv;
    torus_place pl;

    for (int i = 0; i < n; i++) {
        torus_pick_bases(c, &picks[i], scan_mode, &s);
    }
    if (s.mode == BGP_MODE_NONE) {
        torus_claim_drop(&cl->upc);
        return TORUS_OK;
    }
    c->ops->place(c->be, &pl);
    return claim_mode(c, cl, pl.node, ctl->switching ? BGP_SWITCHING | 5u : (uint64_t)s.mode, why,
                      len);
}

/* The process may have moved to another node (MPI_Init) since the events
 * were added: the claim follows it. */
static int bgp_attach(torus_component *c, torus_control *ctl, const torus_place *pl, char *why,
                      size_t len)
{
    bgp_claim *cl = (bgp_claim *)ctl->priv;
    if (cl->upc.words == NULL || cl->upc.node == pl->node) {
        return TORUS_OK;
    }
    return claim_mode(c, cl, pl->node, cl->upc.value, why, len);
}

static int bgp_resolve(const torus_component *c, const torus_place *pl, const torus_event_def *ev,
                       const torus_qvals *q, int64_t coef, torus_build *b)
{
    torus_hwref ref = {TORUS_UNIT_BGP_TORUS, pl->node, (int)ev->arg[2], (int)ev->arg[3], 0};
    (void)c;
    (void)q;
    return torus_build_counter(b, &ref, coef);
}

static torus_component bgp_torus = {
    .name = "bgp_torus",
    .description = "Blue Gene/P torus, UPC modes 0 and 2 (emulated machine)",
    .table = &bgp_torus_table,
    .system = TEMU_SYSTEM_BGP,
    .num_cntrs = TORUS_MAX_EVENTS,
    .resolve = bgp_resolve,
    .conflict = bgp_conflict,
    .admit = bgp_admit,
    .attach = bgp_attach,
    .release = bgp_release,
};

TORUS_COMPONENT_VECTOR(bgp_torus, bgp_torus);
