/*
 * bgp_torus.c - PAPI component for the Blue Gene/P torus counters of UPC
 * modes 0 and 2 (seed 001, Table 6-3) on the calling process's node.
 *
 * The UPC unit of a BG/P node counts in one mode at a time (seed 001 L898,
 * L976): an event set may not mix modes, and while any event set on the
 * node - of this process or of any other process reading the same session
 * - holds events of one mode, a set needing the other mode is refused with
 * PAPI_ECNFLCT.  The mode is free again once every set that claimed it is
 * emptied or cleaned up, or its process has died.  The mode lives in the
 * node's shared words (torus_node.h, resource TORUS_RES_BGP_UPC).
 */
#include "bgp_torus_table.h"
#include "torus_comp.h"
#include "torus_node.h"
#include "torusemu.h"

#include <stdio.h>
#include <string.h>

#define BGP_MODE_NONE (-1)

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

/* Claim UPC mode `mode` of `node` for the set. */
static int claim_mode(torus_component *c, bgp_claim *cl, int64_t node, int mode, char *why,
                      size_t len)
{
    torus_node_seen seen = {0, 0, 0};
    char detail[160];
    int rc = torus_claim_take(c->ops, c->be, &cl->upc, node, TORUS_RES_BGP_UPC, (uint64_t)mode,
                              NULL, &seen, detail, sizeof detail);
    if (rc == TORUS_ECNFLCT && seen.holders > 0) {
        snprintf(why, len,
                 "bgp_torus: the UPC unit of node %lld is in mode %llu for event sets of %d "
                 "process(es) (first: pid %d); mode %d events conflict",
                 (long long)node, (unsigned long long)seen.value, seen.holders, (int)seen.owner_pid,
                 mode);
    } else if (rc != TORUS_OK) {
        snprintf(why, len, "bgp_torus: %s", detail);
    }
    return rc;
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
    if (s.mixed) {
        snprintf(why, len,
                 "bgp_torus: events of UPC modes 0 and 2 cannot be in one event set "
                 "(the UPC unit counts in one mode)");
        return TORUS_ECNFLCT;
    }
    if (s.mode == BGP_MODE_NONE) {
        torus_claim_drop(&cl->upc);
        return TORUS_OK;
    }
    c->ops->place(c->be, &pl);
    return claim_mode(c, cl, pl.node, s.mode, why, len);
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
    return claim_mode(c, cl, pl->node, (int)cl->upc.value, why, len);
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
    .admit = bgp_admit,
    .attach = bgp_attach,
    .release = bgp_release,
};

TORUS_COMPONENT_VECTOR(bgp_torus, bgp_torus);
