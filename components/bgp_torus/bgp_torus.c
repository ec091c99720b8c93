/*
 * bgp_torus.c - PAPI component for the Blue Gene/P torus counters of UPC
 * modes 0 and 2 (seed 001, Table 6-3) on the calling process's node.
 *
 * The UPC unit of a BG/P node counts in one mode at a time (seed 001 L898,
 * L976): an event set may not mix modes, and while any event set of the
 * process holds events of one mode, a set needing the other mode is refused
 * with PAPI_ECNFLCT.  The mode is free again once every set that claimed it
 * is emptied or cleaned up.  (The real unit was shared by the whole node;
 * the emulation enforces the rule within one process.)
 */
#include "bgp_torus_table.h"
#include "torus_comp.h"
#include "torusemu.h"

#include <stdio.h>
#include <string.h>

#define BGP_MODE_NONE (-1)

/* Node-wide UPC state of this process, under torus_component.lock. */
static int upc_mode = BGP_MODE_NONE;
static int upc_sets; /* event sets holding a claim on upc_mode */

/* What an event set claimed, kept in torus_control.priv. */
typedef struct bgp_claim {
    int claimed;
    int mode;
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
    if (cl->claimed) {
        cl->claimed = 0;
        if (--upc_sets == 0) {
            upc_mode = BGP_MODE_NONE;
        }
    }
}

static int bgp_admit(torus_component *c, torus_control *ctl, const torus_pick *picks, int n,
                     char *why, size_t len)
{
    struct mode_scan s = {BGP_MODE_NONE, 0};
    bgp_claim *cl = (bgp_claim *)ctl->priv;
    int rc = TORUS_OK;

    for (int i = 0; i < n; i++) {
        torus_pick_bases(c, &picks[i], scan_mode, &s);
    }
    if (s.mixed) {
        snprintf(why, len,
                 "bgp_torus: events of UPC modes 0 and 2 cannot be in one event set "
                 "(the UPC unit counts in one mode)");
        return TORUS_ECNFLCT;
    }
    if (cl->claimed && cl->mode == s.mode) {
        return TORUS_OK;
    }
    bgp_release(c, ctl);
    if (s.mode == BGP_MODE_NONE) {
        return TORUS_OK;
    }
    if (upc_sets > 0 && upc_mode != s.mode) {
        snprintf(why, len,
                 "bgp_torus: the node's UPC unit is in mode %d for %d other event set(s); "
                 "mode %d events conflict",
                 upc_mode, upc_sets, s.mode);
        rc = TORUS_ECNFLCT;
    } else {
        upc_mode = s.mode;
        upc_sets++;
        cl->claimed = 1;
        cl->mode = s.mode;
    }
    return rc;
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
    .release = bgp_release,
};

TORUS_COMPONENT_VECTOR(bgp_torus, bgp_torus);
