/*
 * bgq_l2unit.c - PAPI component for the Blue Gene/Q L2 unit of the calling
 * process's node: 16 slices x 16 counters (BG/Q driver, doc/references.md;
 * McCraw 2013 section 3.2), read from the emulated machine.
 *
 * The node counts its L2 either combined (the slices added up by the
 * hardware; BGPM's default) or sliced, never both.  BGPM fixed the mode
 * when the node's first L2 event set was made and kept it while any L2 set
 * existed (ES_Factory.cc); here an event set claims the mode of its events
 * when they are added, for the whole node (every process reading the same
 * session: torus_node.h, resource TORUS_RES_BGQ_L2), and gives it back
 * when it is emptied or cleaned up, or its process dies.  A set mixing the
 * groups, or asking for the other group while the node is claimed, gets
 * PAPI_ECNFLCT (BGPM_ECONF_L2_COMBINE).  BGPM's factory tested a stale
 * boundary (combined = ids up to 283, BG/Q driver); we apply the intended
 * one, ids 278-293 combined.
 *
 * The emulator keeps every slice's counters, so a combined event is the sum
 * of the 16 slices; a sliced event reads one slice (:slice) or their sum.
 *
 * A multiplexed set may hold both groups, counted in turn: the node's L2
 * would switch modes at every time slice, so such a set claims the mode
 * for itself (L2_SWITCHING) and no other L2 set on the node may count
 * meanwhile.
 *
 * Overflow is "slow" (McCraw 2013 sections 3.1, 3.2): detected up to 800
 * cycles of the 1.6 GHz A2 clock (500 ns) after the crossing, counters
 * running on; and the threshold of a counter is node-wide (BGPM refused a
 * second, different threshold on the same counter with
 * BGPM_ETHRES_MISMATCH): one threshold per combined counter for the whole
 * node.  BGPM allowed overflow on combined events only; the emulator also
 * lets a sliced event (one slice, or the sum) overflow, with a threshold of
 * its own.
 */
#include "bgq_l2unit_table.h"
#include "torus_comp.h"
#include "torus_node.h"
#include "torusemu.h"

#include <stdio.h>
#include <string.h>

/* Values of the L2 mode claim. */
enum l2_mode { L2_NONE = 0, L2_COMBINED = 1, L2_SLICED = 2, L2_SWITCHING = 3 };

static const char *const mode_names[] = {"no", "combined", "sliced",
                                         "combined and sliced (time-sliced by a multiplexed set)"};

#define L2_SLOW_OVERFLOW_CYCLES 800 /* of the A2 clock (McCraw 2013 section 3.1) */
#define L2_KEY 0x100                /* node-wide threshold keys: 0x100 + combined counter */

/* What an event set claimed, kept in torus_control.priv. */
typedef struct l2_set {
    torus_claim mode;
} l2_set;

_Static_assert(sizeof(l2_set) <= TORUS_PRIV_BYTES, "l2_set must fit torus_control.priv");

static void scan_mode(const torus_event_def *base, int64_t mul, void *arg)
{
    unsigned *groups = arg;
    (void)mul;
    *groups |= base->klass == BGQ_L2UNIT_CLASS_SLICED ? 1u << L2_SLICED : 1u << L2_COMBINED;
}

static void l2_release(torus_component *c, torus_control *ctl)
{
    (void)c;
    torus_claim_drop(&((l2_set *)ctl->priv)->mode);
}

/* Equal modes share the L2; a time-slicing set shares it with nobody. */
static int l2_fits(uint64_t held, uint64_t want)
{
    return held == want && held != L2_SWITCHING;
}

static int claim_mode(torus_component *c, l2_set *st, int64_t node, int mode, char *why, size_t len)
{
    torus_node_seen seen = {0, 0, 0};
    char detail[160];
    int rc = torus_claim_take(c->ops, c->be, &st->mode, node, TORUS_RES_BGQ_L2, (uint64_t)mode,
                              l2_fits, &seen, detail, sizeof detail);
    if (rc == TORUS_ECNFLCT && seen.holders > 0 && seen.value <= L2_SWITCHING) {
        snprintf(why, len,
                 "bgq_l2unit: the L2 counters of node %lld are in %s mode for event sets of %d "
                 "process(es) (first: pid %d); %s events conflict until those sets are gone",
                 (long long)node, mode_names[seen.value], seen.holders, (int)seen.owner_pid,
                 mode == L2_SWITCHING ? "time-sliced combined and sliced" : mode_names[mode]);
    } else if (rc != TORUS_OK) {
        snprintf(why, len, "bgq_l2unit: %s", detail);
    }
    return rc;
}

/* One group (combined or sliced) per set or multiplex group. */
static int l2_conflict(const torus_component *c, const torus_pick *picks, int n, char *why,
                       size_t len)
{
    unsigned groups = 0;
    for (int i = 0; i < n; i++) {
        torus_pick_bases(c, &picks[i], scan_mode, &groups);
    }
    if (groups == ((1u << L2_COMBINED) | (1u << L2_SLICED))) {
        snprintf(why, len,
                 "bgq_l2unit: combined and sliced L2 events cannot be counted at once (the "
                 "node's L2 counters run in one of the two modes; PAPI_set_multiplex "
                 "time-slices them)");
        return TORUS_ECNFLCT;
    }
    return TORUS_OK;
}

static int l2_admit(torus_component *c, torus_control *ctl, const torus_pick *picks, int n,
                    char *why, size_t len)
{
    l2_set *st = (l2_set *)ctl->priv;
    unsigned groups = 0;
    torus_place pl;
    int mode;

    for (int i = 0; i < n; i++) {
        torus_pick_bases(c, &picks[i], scan_mode, &groups);
    }
    if (groups == 0) {
        torus_claim_drop(&st->mode);
        return TORUS_OK;
    }
    c->ops->place(c->be, &pl);
    mode = ctl->switching ? L2_SWITCHING : (groups == (1u << L2_SLICED) ? L2_SLICED : L2_COMBINED);
    return claim_mode(c, st, pl.node, mode, why, len);
}

/* The node-wide threshold of a combined base event is its counter's. */
static int64_t l2_overflow_key(const torus_component *c, const torus_pick *p)
{
    (void)c;
    if (p->ev->klass != BGQ_L2UNIT_CLASS_COMBINED) {
        return -1;
    }
    return L2_KEY + p->ev->arg[0];
}

/* The claim follows the process to its node (MPI_Init may move it). */
static int l2_attach(torus_component *c, torus_control *ctl, const torus_place *pl, char *why,
                     size_t len)
{
    l2_set *st = (l2_set *)ctl->priv;
    if (st->mode.words == NULL || st->mode.node == pl->node) {
        return TORUS_OK;
    }
    return claim_mode(c, st, pl->node, (int)st->mode.value, why, len);
}

static int l2_resolve(const torus_component *c, const torus_place *pl, const torus_event_def *ev,
                      const torus_qvals *q, int64_t coef, torus_build *b)
{
    torus_hwref ref = {TORUS_UNIT_BGQ_L2, pl->node, 0, (int)ev->arg[0], 0};
    int rc = TORUS_OK;
    (void)c;
    if (ev->klass == BGQ_L2UNIT_CLASS_SLICED && torus_qset(q, BGQ_L2UNIT_Q_SLICE)) {
        ref.a = (int)q->v[BGQ_L2UNIT_Q_SLICE];
        return torus_build_counter(b, &ref, coef);
    }
    for (int s = 0; s < TEMU_BGQ_L2_SLICES && rc == TORUS_OK; s++) {
        ref.a = s;
        rc = torus_build_counter(b, &ref, coef);
    }
    return rc;
}

static torus_component bgq_l2unit = {
    .name = "bgq_l2unit",
    .description = "Blue Gene/Q L2 unit: 16 slices, combined or sliced (emulated machine)",
    .table = &bgq_l2unit_table,
    .system = TEMU_SYSTEM_BGQ,
    .num_cntrs = TEMU_BGQ_L2_COUNTERS,
    .resolve = l2_resolve,
    .conflict = l2_conflict,
    .admit = l2_admit,
    .attach = l2_attach,
    .release = l2_release,
    .overflow_key = l2_overflow_key,
    .overflow_delay_cycles = L2_SLOW_OVERFLOW_CYCLES,
};

TORUS_COMPONENT_VECTOR(bgq_l2unit, bgq_l2unit);
