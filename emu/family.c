/*
 * family.c - the machine families' descriptors by system (family.h), what
 * the families share, and the public accessors that read a descriptor.
 */
#define TEMU_BUILDING_LIBRARY 1
#include "emu_internal.h"

#include <string.h>

const temu_family *const temu_families[TEMU_FAMILIES + 1] = {
    [0] = NULL,
    [TEMU_SYSTEM_GEMINI] = &temu_family_gemini,
    [TEMU_SYSTEM_BGP] = &temu_family_bgp,
    [TEMU_SYSTEM_BGQ] = &temu_family_bgq,
};

const temu_family_info *temu_family_info_get(int32_t system)
{
    const temu_family *f = temu_family_of(system);
    return f != NULL ? &f->info : NULL;
}

const temu_family *temu_family_by_name(const char *name, size_t len)
{
    for (int s = 1; s <= TEMU_FAMILIES; s++) {
        const char *n = temu_families[s]->info.name;
        if (strlen(n) == len && strncmp(n, name, len) == 0) {
            return temu_families[s];
        }
    }
    return NULL;
}

static uint64_t gcd(uint64_t a, uint64_t b)
{
    while (b != 0) {
        uint64_t r = a % b;
        a = b;
        b = r;
    }
    return a;
}

uint64_t temu_clock_cycles(uint64_t hz, int64_t ps)
{
    const uint64_t ps_per_s = 1000000000000ull;
    uint64_t g;
    if (ps <= 0 || hz == 0) {
        return 0;
    }
    if (ps_per_s % hz == 0) {
        return (uint64_t)ps / (ps_per_s / hz); /* a whole number of ps a cycle */
    }
    /* BG/P's 850 MHz: ps x 17 / 20000 */
    g = gcd(hz, ps_per_s);
    return (uint64_t)((unsigned __int128)(uint64_t)ps * (hz / g) / (ps_per_s / g));
}

int temu_link_lanes(const temu_machine *m, int link)
{
    const temu_family *f = temu_machine_family(m);
    if (f == NULL || link < 0 || link >= m->nlinks) {
        return 0;
    }
    return f->lanes != NULL ? f->lanes(link) : 1;
}

double temu_link_lane_gbs(const temu_machine *m, int64_t router, int link)
{
    const temu_family *f = temu_machine_family(m);
    if (f == NULL) {
        return 0.0;
    }
    return temu_family_lane_gbs(f, m, router, link);
}

uint64_t temu_link_read(const temu_session *s, int64_t router, int link, temu_link_measure what)
{
    const temu_machine *m = &s->machine;
    if (router < 0 || router >= m->nrouters || link < 0 || link >= m->nlinks) {
        return 0;
    }
    return s->family->read_link(s, router, link, what);
}

int64_t temu_stall_counters(const temu_machine *m, int64_t *idx)
{
    const temu_family *f = temu_machine_family(m);
    return f != NULL ? f->stall_counters(m, idx) : 0;
}

/*
 * Blue Gene location strings R<row><col>-M<m>-N<board>-J<card>.  Midplanes
 * are numbered over the coordinates divided by the midplane shape (BG/Q
 * 4x4x4x4x2, BG/P 8x8x8), two per rack, 16 racks per row; inside a
 * midplane the node's linear index gives the node board (32 nodes) and
 * compute card.  A deterministic naming, not IBM's cabling.
 */
int temu_bluegene_location(const temu_machine *m, int64_t node, char *buf, size_t len)
{
    const int32_t *mid = temu_machine_family(m)->midplane;
    int32_t c[TEMU_MAX_DIMS];
    int64_t midplane = 0, local = 0;
    temu_router_coords(m, node, c);
    for (int d = 0; d < m->ndims; d++) {
        int32_t per = mid[d] < m->size[d] ? mid[d] : m->size[d];
        int32_t count = (m->size[d] + per - 1) / per;
        midplane = midplane * count + c[d] / per;
        local = local * per + c[d] % per;
    }
    int64_t rack = midplane / 2;
    return snprintf(buf, len, "R%X%X-M%d-N%02d-J%02d", (int)((rack / 16) % 16), (int)(rack % 16),
                    (int)(midplane % 2), (int)(local / 32), (int)(local % 32));
}
