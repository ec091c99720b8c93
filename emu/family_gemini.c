/*
 * family_gemini.c - the Cray XE/XK Gemini family (family.h): a 3-D torus
 * of Gemini routers, two nodes each, 48 tiles of 6 counters per router and
 * 16 NIC counters per node.  The chip itself (tile map, link media,
 * transaction sizes) is gemini.c; sources in doc/model.md.
 */
#define TEMU_BUILDING_LIBRARY 1
#include "emu_internal.h"

#include <string.h>

/* A phit is 3 bytes; the largest packet, a 64-byte PUT request, is 32
 * phits (Pedretti 2013 section V.A). */
#define PHIT_BYTES 3u
#define MAX_PACKET (32u * PHIT_BYTES)
/* Router clock: the stall counters count 800 MHz cycles (Pedretti 2013
 * Table I; reference/gemini REPORT section 3). */
#define ROUTER_HZ 800000000ull

static const char *const link_names[] = {"X-", "X+", "Y-", "Y+", "Z-", "Z+", "HH"};

/*
 * Cray cname from Gemini coordinates, following the geometry implied by
 * Cielo's interconnect file (lanl/PPT machine configurations, "Physical
 * naming"): cabinet column = x, cabinet row = y/2, the two Geminis of a
 * blade are Y neighbours (g = y%2), cage = z/8, slot = z%8, nodes n0,n1 on
 * g0 and n2,n3 on g1.  Real systems fold the X order; we do not.
 */
static int cname(const temu_machine *m, int64_t router, int node_in_router, char *buf, size_t len)
{
    int32_t c[TEMU_MAX_DIMS];
    temu_router_coords(m, router, c);
    int g = c[1] % 2;
    if (node_in_router < 0) {
        return snprintf(buf, len, "c%d-%dc%ds%dg%d", c[0], c[1] / 2, c[2] / 8, c[2] % 8, g);
    }
    return snprintf(buf, len, "c%d-%dc%ds%dn%d", c[0], c[1] / 2, c[2] / 8, c[2] % 8,
                    2 * g + node_in_router);
}

static int name_node(const temu_machine *m, int64_t node, char *buf, size_t len)
{
    return cname(m, node / m->nodes_per_router, (int)(node % m->nodes_per_router), buf, len);
}

static int name_router(const temu_machine *m, int64_t router, char *buf, size_t len)
{
    return cname(m, router, -1, buf, len);
}

static void describe(const temu_machine *m, FILE *f)
{
    fprintf(f,
            "tiles      48 per Gemini (40 network + 8 host); X and Z links 8 tiles, Y 4\n"
            "bandwidth  X 9.38 GB/s (cable); Y 9.38 (mezzanine) / 4.69 (cable); Z 15.00 "
            "(backplane) / 9.38 (cable every 8th); host 10.40\n"
            "protocol   MPI header %u B; PUT eager < %u B; GET rendezvous < %u B; BTE PUT "
            "above\n",
            m->protocol.mpi_header, m->protocol.eager_limit, m->protocol.bte_threshold);
}

/* Tiles [router][48][6], then the NICs [node][16]. */
static void layout(const temu_machine *m, temu_layout *out)
{
    out->gemini_tiles = 0;
    out->gemini_nic = m->nrouters * TEMU_GEMINI_TILES * TEMU_GEMINI_TILE_COUNTERS;
    out->total = out->gemini_nic + m->nnodes * TEMU_NIC_COUNTERS;
}

static int describe_counter(const temu_machine *m, const temu_layout *l, int64_t idx, char *buf,
                            size_t len)
{
    static const char *tile_ctr[] = {"VC0_PHITS", "VC1_PHITS", "VC0_PKTS",
                                     "VC1_PKTS",  "INQ_STALL", "CREDIT_STALL"};
    static const char *nic_ctr[] = {
        "ORB_VC0_PKTS",         "ORB_VC0_FLITS",      "ORB_VC1_PKTS",  "ORB_VC1_FLITS",
        "RAT_HEADER_FLITS_VC0", "RAT_DATA_FLITS_VC0", "NPT_PKTS",      "NPT_FLITS",
        "TARB_FMA_PKTS",        "TARB_FMA_FLITS",     "TARB_BTE_PKTS", "TARB_BTE_FLITS",
        "TARB_OUT_PKTS",        "TARB_OUT_FLITS",     "reserved14",    "reserved15"};
    char where[96];
    if (idx < l->gemini_nic) {
        int64_t r = idx / (TEMU_GEMINI_TILES * TEMU_GEMINI_TILE_COUNTERS);
        int tile = (int)(idx / TEMU_GEMINI_TILE_COUNTERS % TEMU_GEMINI_TILES);
        temu_router_name(m, r, where, sizeof where);
        return snprintf(buf, len, "%s tile %d (l%d%d, %s) %s", where, tile, tile / 8, tile % 8,
                        temu_link_name(m, temu_gemini_tile_link(tile)),
                        tile_ctr[idx % TEMU_GEMINI_TILE_COUNTERS]);
    }
    int64_t rel = idx - l->gemini_nic;
    temu_node_name(m, rel / TEMU_NIC_COUNTERS, where, sizeof where);
    return snprintf(buf, len, "%s NIC %s", where, nic_ctr[rel % TEMU_NIC_COUNTERS]);
}

/* Tiles count what arrives: the phits (VC0 + VC1) or the input-queue and
 * credit stall cycles of the link's tiles at `router`. */
static uint64_t read_link(const temu_session *s, int64_t router, int link, temu_link_measure what)
{
    const temu_link_tiles *lt = &temu_gemini_tile_lists()[link];
    int a = what == TEMU_LINK_STALL ? TEMU_TILE_INQ_STALL : TEMU_TILE_VC0_PHITS;
    int b = what == TEMU_LINK_STALL ? TEMU_TILE_CREDIT_STALL : TEMU_TILE_VC1_PHITS;
    uint64_t v = 0;
    for (int i = 0; i < lt->n; i++) {
        int64_t base = (router * TEMU_GEMINI_TILES + lt->tile[i]) * TEMU_GEMINI_TILE_COUNTERS;
        v += temu_counter_read(s, base + a) + temu_counter_read(s, base + b);
    }
    return v;
}

/* Every tile's INQ_STALL and CREDIT_STALL, router by router. */
static int64_t stall_counters(const temu_machine *m, int64_t *idx)
{
    int64_t n = 0;
    for (int64_t r = 0; r < m->nrouters; r++) {
        for (int t = 0; t < TEMU_GEMINI_TILES; t++, n += 2) {
            if (idx != NULL) {
                idx[n] = temu_idx_gemini_tile(m, r, t, TEMU_TILE_INQ_STALL);
                idx[n + 1] = temu_idx_gemini_tile(m, r, t, TEMU_TILE_CREDIT_STALL);
            }
        }
    }
    return n;
}

/* A link's lanes are its tiles: 8 for X and Z, 4 for Y. */
static int lanes(int link)
{
    return temu_gemini_tile_lists()[link].n;
}

/* Per tile by medium: LDMS gemini.h, Pedretti 2013 Table II. */
static double link_lane_gbs(const temu_machine *m, int64_t router, int link)
{
    return temu_medium_tile_bandwidth(temu_gemini_link_medium(m, router, link));
}

const temu_family temu_family_gemini = {
    .info =
        {
            .system = TEMU_SYSTEM_GEMINI,
            .name = "gemini",
            .title = "Cray XE/XK Gemini, 3-D torus",
            .base =
                {
                    .system = TEMU_SYSTEM_GEMINI,
                    .ndims = 3,
                    .torus = {1, 1, 1},
                    .nodes_per_router = 2, /* 2 nodes per Gemini (Pedretti 2013, abstract) */
                    .cores_per_node = 16,
                    .threads_per_core = 1,
                    .nlinks = 7, /* X-,X+,Y-,Y+,Z-,Z+, host */
                    /* MPI envelope of 48 bytes: with it a 1..16-byte
                     * message fills one 64-byte PUT and 32 bytes need two
                     * (Pedretti 2013 section V.D).  The PUT->GET switch lies
                     * between 4 KB and 8 KB, GET->BTE PUT between 256 KB and
                     * 512 KB (same section). */
                    .protocol = {.mpi_header = 48,
                                 .eager_limit = 8192,
                                 .bte_threshold = 512 * 1024},
                },
            .dims = "XYZ",
            .shape_form = "XxYxZ",
            .map_columns = "X Y Z N",
            .default_order = NULL, /* sequential node order */
            .link_names = link_names,
            .link_alias = "host",
            .spec_options = TEMU_SPEC_BTE | TEMU_SPEC_HEADER, /* full tori only */
            .idle_preset = "cielo",
            .tiles = TEMU_GEMINI_TILES,
            .tile_rows = TEMU_GEMINI_TILE_ROWS,
            .tile_cols = TEMU_GEMINI_TILE_COLS,
            .tile_counters = TEMU_GEMINI_TILE_COUNTERS,
            .unit_bytes = PHIT_BYTES,
            .unit_name = "phits",
            .max_packet = MAX_PACKET,
            .vcs = 2, /* request VC0, response VC1 */
            .counts_arrivals = 1,
            .stall_toward = 1,
            .payload = TEMU_PAYLOAD_BYTES,
            .collnet = TEMU_COLLNET_NONE,
            .bruck_alltoall = 1, /* Cray MPICH: MPICH2's algorithms (doc/mpi.md) */
            .live_timing = 1,
            .router_hz = ROUTER_HZ,
            .max_lanes = 8,
            .lane_gbs = 0, /* by medium */
            .volume_measure = "phits arrived (VC0+VC1)",
            .stall_measure = "inq + credit stall cycles (800 MHz)",
        },
    .name_node = name_node,
    .name_router = name_router,
    .describe = describe,
    .plan = temu_plan_gemini,
    .sections = TEMU_SECTION_GEMINI_TILES | TEMU_SECTION_GEMINI_NIC,
    .layout = layout,
    .apply = &temu_apply_gemini,
    .describe_counter = describe_counter,
    .read_link = read_link,
    .stall_counters = stall_counters,
    .timing =
        {
            /* ~105 ns per hop (lanl/PPT hopper_config.py, citing Alverson
             * et al., "The Gemini System Interconnect", HOTI 2010); the
             * split into router and wire time is our choice. */
            .router_ps = 100000,
            .wire_ps = 5000,
            .credit_ps = 5000, /* credits travel back over the link */
            .max_packet = MAX_PACKET,
            .buffer_bytes = 8 * MAX_PACKET, /* our assumption: 8 maximal packets per VC */
            .classes = 2,                   /* request VC0, response VC1 */
            .flow = TEMU_TM_CREDIT,
            .node_gbs = 4 * 1.30, /* a NIC's half of the 8 host tiles */
            .train_packets = 1,   /* single packets (doc/model.md, "Packet trains") */
            .routing = TEMU_TM_DETERMINISTIC,
            /* Cray MPICH over uGNI (doc/virtual-time.md, "MPI software
             * costs" and "Where each value comes from").  One-way MPI
             * latency between neighbouring XE6 nodes taken as 1.3 us,
             * attributed to Alverson, Roweth and Kaplan, "The Gemini System
             * Interconnect" (HOTI 2010) but NOT checked against its text
             * (only its abstract, without figures, could be reached).  The
             * nearest published figure found: Gemini latency "0.7--1.4 us
             * depending on the type of transfer" (EuroBen's overview page
             * of the Cray XE6, www.euroben.nl/reports/web13/xe6.php), which
             * 1.3 us lies in.  The network part the model gives (~0.2 us)
             * taken off, the rest split evenly between o_s and o_r
             * (derived).  g = o_s: no published per-message gap, LogP's
             * g >= o (derived).  On-node 0.4 us and 5 GB/s: our assumption,
             * no published figure found (seed 000 gives none). */
            .mpi =
                {
                    .send_ps = 550000,
                    .recv_ps = 550000,
                    .gap_ps = 550000,
                    .shm_ps = 400000,
                    .shm_gbs = 5.0,
                },
        },
    .lanes = lanes,
    .link_lane_gbs = link_lane_gbs,
};

_Static_assert(sizeof link_names / sizeof link_names[0] == 7, "a name per Gemini link");
