/*
 * gemini_tile.c - PAPI component for the Cray Gemini router: the 48 tiles x
 * 6 fixed counters of the calling process's Gemini, its node's NIC
 * counters, and per-link sums (presets/gemini_tile.presets).
 *
 * The six tile counters are fixed-function and always count (Pedretti 2013
 * section III), so any set of events can be counted together: there is no
 * admit hook.  Names: GM_TILE_PERF_<X>:n:m (row n 0..5, column m 0..7, the
 * Cray manual's form, Pedretti 2013 Table I), with the GPCD register names
 * GM_n_m_TILE_PERFORMANCE_COUNTERS_k accepted as aliases.
 *
 * Overflow: the Gemini raised no interrupt on its performance counters
 * (tools read them through gpcd); the emulated router offers
 * PAPI_overflow on every event, the derived link events included (a
 * GM_LINK_BYTES watch weighs each phit 3), detected as the traffic lands.
 * Multiplexing is needed only under TORUSEMU_UNIT_COUNTERS.
 */
#include "gemini_tile_table.h"
#include "torus_comp.h"
#include "torusemu.h"

#include <stdio.h>
#include <string.h>

/* Base event of tile counter k (0..5), or -1. */
static int tile_event(const torus_table *t, int k)
{
    for (int i = 0; i < t->nevents; i++) {
        if (t->events[i].klass == GEMINI_TILE_CLASS_TILE && t->events[i].arg[0] == k) {
            return i;
        }
    }
    return -1;
}

/* GM_<row>_<col>_TILE_PERFORMANCE_COUNTERS_<k>, as gpcd spells registers
 * (LDMS gpcd headers), means GM_TILE_PERF_<...>:row:col. */
static int gemini_alias(const torus_component *c, const char *name, unsigned *code)
{
    int row, col, k, used = -1;
    torus_qvals q;
    const char *p = strstr(name, ":::");
    if (p != NULL) {
        name = p + 3;
    }
    if (sscanf(name, "GM_%1d_%1d_TILE_PERFORMANCE_COUNTERS_%1d%n", &row, &col, &k, &used) != 3 ||
        used < 0 || name[used] != '\0') {
        return TORUS_ENOEVNT;
    }
    const temu_family_info *fam = temu_family_info_get(c->system);
    if (row >= fam->tile_rows || col >= fam->tile_cols || k >= fam->tile_counters ||
        tile_event(c->table, k) < 0) {
        return TORUS_ENOEVNT;
    }
    memset(&q, 0, sizeof q);
    q.set = (1u << GEMINI_TILE_Q_N) | (1u << GEMINI_TILE_Q_M);
    q.v[GEMINI_TILE_Q_N] = row;
    q.v[GEMINI_TILE_Q_M] = col;
    return torus_table_encode(c->table, tile_event(c->table, k), &q, code);
}

static int gemini_resolve(const torus_component *c, const torus_place *pl,
                          const torus_event_def *ev, const torus_qvals *q, int64_t coef,
                          torus_build *b)
{
    torus_hwref ref = {TORUS_UNIT_GEMINI_TILE, pl->router, 0, (int)ev->arg[0], 0};
    const temu_family_info *fam = temu_family_info_get(c->system);
    int tiles[TEMU_GEMINI_TILES], ntiles = 0, rc = TORUS_OK;

    if (ev->klass == GEMINI_TILE_CLASS_NIC) {
        ref.unit = TORUS_UNIT_GEMINI_NIC;
        ref.where = pl->node;
        ref.a = (int)ev->arg[0];
        ref.b = 0;
        return torus_build_counter(b, &ref, coef);
    }
    if (torus_qset(q, GEMINI_TILE_Q_N)) {
        tiles[ntiles++] = (int)(q->v[GEMINI_TILE_Q_N] * fam->tile_cols + q->v[GEMINI_TILE_Q_M]);
    } else if (torus_qset(q, GEMINI_TILE_Q_LINK)) {
        ntiles = temu_gemini_link_tiles((int)q->v[GEMINI_TILE_Q_LINK], tiles);
    } else {
        for (int t = 0; t < fam->tiles; t++) {
            tiles[ntiles++] = t;
        }
    }
    for (int i = 0; i < ntiles && rc == TORUS_OK; i++) {
        ref.a = tiles[i];
        rc = torus_build_counter(b, &ref, coef);
    }
    return rc;
}

static torus_component gemini_tile = {
    .name = "gemini_tile",
    .description = "Cray Gemini router tiles and NIC (emulated machine)",
    .table = &gemini_tile_table,
    .system = TEMU_SYSTEM_GEMINI,
    .num_cntrs = TORUS_MAX_EVENTS,
    .alias = gemini_alias,
    .resolve = gemini_resolve,
};

TORUS_COMPONENT_VECTOR(gemini_tile, gemini_tile);
