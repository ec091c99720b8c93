/*
 * gemini.c - the Gemini router chip: tile-to-link map, link media and
 * bandwidths, transaction sizes, and the `rtr --interconnect` writer.
 *
 * Facts (Pedretti 2013 = Pedretti et al., CUG 2013; LDMS, doc/references.md):
 *  - 48 tiles, 6 rows x 8 columns, tile id = row*8 + column; 40 network
 *    tiles and 8 host tiles; X and Z links have 8 tiles, Y links 4.
 *  - default map: Pedretti 2013 Fig. 3 (Cielo's first node).
 *  - per-tile bandwidth = lane rate x 3 lanes / 8 (LDMS gemini.h):
 *    mezzanine 6.25 Gb/s, backplane 5.0, cable 3.125, host 3.467.
 *  - Y links alternate mezzanine (inside a blade) and cable; Z links are
 *    backplane except every 8th, which is a cable (Pedretti 2013 §III).
 */
#define TEMU_BUILDING_LIBRARY 1
#include "emu_internal.h"

#include <string.h>

/* Link of each tile, Pedretti 2013 Fig. 3; 6 = host (HH).  temu link numbers:
 * 0 X-, 1 X+, 2 Y-, 3 Y+, 4 Z-, 5 Z+, 6 host. */
enum { XM = 0, XP = 1, YM = 2, YP = 3, ZM = 4, ZP = 5, HH = 6 };
static const signed char tile_link[TEMU_GEMINI_TILES] = {
    ZP, ZP, XP, XP, XM, XM, ZM, ZM, /* row 0 */
    ZP, ZP, XP, XP, XM, XM, ZM, ZM, /* row 1 */
    ZM, ZM, ZM, HH, HH, ZP, ZP, ZP, /* row 2 */
    XP, XP, ZM, HH, HH, ZP, XM, XM, /* row 3 */
    XP, XP, YM, HH, HH, YP, XM, XM, /* row 4 */
    YM, YM, YM, HH, HH, YP, YP, YP, /* row 5 */
};

int temu_gemini_tile_link(int tile)
{
    if (tile < 0 || tile >= TEMU_GEMINI_TILES) {
        return -1;
    }
    return tile_link[tile];
}

int temu_gemini_link_tiles(int link, int *tiles)
{
    int n = 0;
    for (int t = 0; t < TEMU_GEMINI_TILES; t++) {
        if (tile_link[t] == link) {
            tiles[n++] = t;
        }
    }
    return n;
}

const temu_link_tiles *temu_gemini_tile_lists(void)
{
    static temu_link_tiles lt[7];
    static int ready;
    if (!__atomic_load_n(&ready, __ATOMIC_ACQUIRE)) {
        temu_link_tiles tmp[7];
        for (int l = 0; l < 7; l++) {
            tmp[l].n = temu_gemini_link_tiles(l, tmp[l].tile);
        }
        memcpy(lt, tmp, sizeof lt);
        __atomic_store_n(&ready, 1, __ATOMIC_RELEASE);
    }
    return lt;
}

int temu_gemini_tile_position(int tile)
{
    int link = temu_gemini_tile_link(tile);
    int pos = 0;
    if (link < 0) {
        return -1;
    }
    for (int t = 0; t < tile; t++) {
        pos += tile_link[t] == link;
    }
    return pos;
}

/* The k-th tile of a direction connects to the k-th tile of the opposite
 * direction on the neighbour (our fixed pairing, doc/model.md).  Host tiles
 * face the local NICs and have no network peer. */
int temu_gemini_peer_tile(int tile)
{
    int link = temu_gemini_tile_link(tile);
    int tiles[TEMU_GEMINI_TILES];
    if (link < 0 || link == HH) {
        return -1;
    }
    int n = temu_gemini_link_tiles(link ^ 1, tiles);
    int pos = temu_gemini_tile_position(tile);
    return pos < n ? tiles[pos] : -1;
}

double temu_medium_tile_bandwidth(temu_medium medium)
{
    switch (medium) {
    case TEMU_MEDIUM_MEZZANINE:
        return 6.25 * 3.0 / 8.0; /* 2.34 GB/s */
    case TEMU_MEDIUM_BACKPLANE:
        return 5.0 * 3.0 / 8.0; /* 1.875 */
    case TEMU_MEDIUM_CABLE:
        return 3.125 * 3.0 / 8.0; /* 1.17 */
    case TEMU_MEDIUM_HOST:
        return 3.467 * 3.0 / 8.0; /* 1.30 */
    }
    return 0.0;
}

const char *temu_medium_name(temu_medium medium)
{
    switch (medium) {
    case TEMU_MEDIUM_MEZZANINE:
        return "mezzanine";
    case TEMU_MEDIUM_BACKPLANE:
        return "backplane";
    case TEMU_MEDIUM_CABLE:
        return "cable";
    case TEMU_MEDIUM_HOST:
        return "host";
    }
    return "?";
}

/*
 * Medium of the link between coordinate v and v+1 (mod n) in a dimension.
 * X: always cable.  Y: mezzanine when v is even and v+1 exists (the two
 * Geminis of a blade), otherwise cable.  Z: backplane inside a cage of 8
 * slots, cable when leaving it ((v+1) % 8 == 0) and on the wrap link.
 */
static temu_medium plus_link_medium(const temu_machine *m, int dim, int32_t v)
{
    int32_t n = m->size[dim];
    switch (dim) {
    case 0:
        return TEMU_MEDIUM_CABLE;
    case 1:
        return (v % 2 == 0 && v + 1 < n) ? TEMU_MEDIUM_MEZZANINE : TEMU_MEDIUM_CABLE;
    default:
        return ((v + 1) % 8 == 0 || v + 1 >= n) ? TEMU_MEDIUM_CABLE : TEMU_MEDIUM_BACKPLANE;
    }
}

temu_medium temu_gemini_link_medium(const temu_machine *m, int64_t router, int link)
{
    int32_t c[TEMU_MAX_DIMS];
    if (link == HH) {
        return TEMU_MEDIUM_HOST;
    }
    int dim = link / 2;
    temu_router_coords(m, router, c);
    int32_t v = c[dim];
    if ((link & 1) == 0) { /* minus: the link from v-1 to v */
        v = (v - 1 + m->size[dim]) % m->size[dim];
    }
    return plus_link_medium(m, dim, v);
}

double temu_gemini_link_bandwidth(const temu_machine *m, int64_t router, int link)
{
    int tiles[TEMU_GEMINI_TILES];
    int n = temu_gemini_link_tiles(link, tiles);
    return n * temu_medium_tile_bandwidth(temu_gemini_link_medium(m, router, link));
}

/*
 * Transaction sizes (Pedretti 2013 section V.A): a 64-byte PUT is a 32-phit
 * request + 3-phit response, a 64-byte GET an 8-phit request + 27-phit
 * response.  Model: 8 header phits (PUT request) or 3 (GET response) plus
 * ceil(3 * payload / 8) data phits, i.e. 24 data phits per 64 bytes.
 * A compressed payload (a run of zero or one bits) carries no data phits.
 */
uint32_t temu_gemini_put_request_phits(uint32_t payload, int compressed)
{
    return 8u + (compressed ? 0u : (3u * payload + 7u) / 8u);
}

uint32_t temu_gemini_get_response_phits(uint32_t payload, int compressed)
{
    return 3u + (compressed ? 0u : (3u * payload + 7u) / 8u);
}

static int cable_number(int dim)
{
    /* The real NN of "cableNNx" is not recoverable; we print 00. */
    (void)dim;
    return 0;
}

temu_status temu_gemini_write_interconnect(const temu_machine *m, FILE *f, temu_error *err)
{
    static const char dimc[] = "xyz";
    if (temu_machine_family(m)->info.tiles == 0) { /* a router of tiles: Gemini */
        return temu_fail(err, TEMU_EINVAL,
                         "interconnect files exist only for Gemini machines, not %s",
                         temu_system_name(m->system));
    }
    for (int64_t r = 0; r < m->nrouters; r++) {
        int32_t c[TEMU_MAX_DIMS];
        char name[64];
        temu_router_coords(m, r, c);
        temu_router_name(m, r, name, sizeof name);
        for (int t = 0; t < TEMU_GEMINI_TILES; t++) {
            int link = tile_link[t];
            if (link == HH) {
                continue;
            }
            int64_t peer = temu_link_neighbor(m, r, link);
            int32_t pc[TEMU_MAX_DIMS];
            char pname[64];
            int pt = temu_gemini_peer_tile(t);
            if (peer < 0) {
                /* a dimension of size 1: the tile's cable leads back here */
                peer = r;
            }
            temu_router_coords(m, peer, pc);
            temu_router_name(m, peer, pname, sizeof pname);
            temu_medium md = temu_gemini_link_medium(m, r, link);
            char type[16];
            if (md == TEMU_MEDIUM_CABLE) {
                snprintf(type, sizeof type, "cable%02d%c", cable_number(link / 2),
                         dimc[link / 2]);
            } else {
                snprintf(type, sizeof type, "%s", temu_medium_name(md));
            }
            if (fprintf(f, "%sl%d%d[(%d,%d,%d)] %s -> %sl%d%d[(%d,%d,%d)] LinkType: %s\n", name,
                        t / 8, t % 8, c[0], c[1], c[2], temu_link_name(m, link), pname, pt / 8,
                        pt % 8, pc[0], pc[1], pc[2], type) < 0) {
                return temu_fail(err, TEMU_EIO, "writing the interconnect file failed");
            }
        }
    }
    return TEMU_OK;
}
