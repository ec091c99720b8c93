/*
 * family_bgp.c - the IBM Blue Gene/P family (family.h): a 3-D torus (or
 * mesh) of nodes, each its own router, 12 UPC torus counters per node and
 * direction.  Sources in doc/model.md.
 */
#define TEMU_BUILDING_LIBRARY 1
#include "emu_internal.h"
#include "plan_bluegene.h"

/* Packets of up to 256 bytes in 32-byte chunks; our model gives each a
 * 16-byte header (8-byte hardware + 8-byte DMA header), leaving 240 bytes
 * of payload (doc/model.md). */
#define CHUNK_BYTES 32u
#define HEADER 16u
#define MAX_PACKET 256u
/* The torus logic runs at the 850 MHz processor clock, 425 MB/s per link
 * and direction (IBM Blue Gene team, "Overview of the IBM Blue Gene/P
 * project", IBM J. Res. Dev. 52, 2008); the UPC counts those cycles. */
#define CLOCK_HZ 850000000ull
#define LANE_GBS 0.425

/* VCs in the plan: 0 VCD0, 1 VCD1 (dynamic), 2 VCBN (bubble, the
 * deterministic one), 3 VCBP (priority) (Lakner 2008, Table 6-3). */
enum { VCD0 = 0, VCBN = 2 };

static const char *const link_names[] = {"X-", "X+", "Y-", "Y+", "Z-", "Z+"};
static const int32_t midplane[] = {8, 8, 8};

static void describe(const temu_machine *m, FILE *f)
{
    fprintf(f,
            "packets    32-byte chunks, up to 256 bytes (16-byte header)\n"
            "protocol   eager < %u B, rendezvous by remote get above\n",
            m->protocol.eager_limit);
}

/* The torus counters [node][link][12]. */
static void layout(const temu_machine *m, temu_layout *out)
{
    out->bgp_torus = 0;
    out->total = m->nnodes * TEMU_BGP_LINKS * TEMU_BGP_COUNTERS;
}

static int describe_counter(const temu_machine *m, const temu_layout *l, int64_t idx, char *buf,
                            size_t len)
{
    static const char *bgp_ctr[] = {"PACKETS",           "32BCHUNKS",      "VCD0_32BCHUNKS",
                                    "VCD1_32BCHUNKS",    "VCBN_32BCHUNKS", "VCBP_32BCHUNKS",
                                    "TOKEN_ACK_PACKETS", "ACKS",           "NO_TOKENS",
                                    "NO_VCD0_TOKENS",    "NO_VCBN_TOKENS", "NO_VCBP_TOKENS"};
    char where[96];
    int64_t node = idx / (TEMU_BGP_LINKS * TEMU_BGP_COUNTERS);
    int link = (int)(idx / TEMU_BGP_COUNTERS % TEMU_BGP_LINKS);
    (void)l;
    temu_node_name(m, node, where, sizeof where);
    return snprintf(buf, len, "%s %s %s", where, temu_link_name(m, link),
                    bgp_ctr[idx % TEMU_BGP_COUNTERS]);
}

/* Chunks sent on the direction, or its NO_TOKENS cycles. */
static uint64_t read_link(const temu_session *s, int64_t router, int link, temu_link_measure what)
{
    int c = what == TEMU_LINK_STALL ? TEMU_BGP_NO_TOKENS : TEMU_BGP_CHUNKS;
    return temu_counter_read(s, temu_idx_bgp(temu_session_machine(s), router, link, c));
}

/* The four no-token counters of every node and direction. */
static int64_t stall_counters(const temu_machine *m, int64_t *idx)
{
    int64_t n = 0;
    for (int64_t node = 0; node < m->nnodes; node++) {
        for (int l = 0; l < TEMU_BGP_LINKS; l++) {
            for (int c = TEMU_BGP_NO_TOKENS; c <= TEMU_BGP_NO_VCBP_TOKENS; c++, n++) {
                if (idx != NULL) {
                    idx[n] = temu_idx_bgp(m, node, l, c);
                }
            }
        }
    }
    return n;
}

/* Bulk data always on the dynamic VCD0, the rest on the bubble VC; no
 * separate collective VCs in the model. */
static const temu_bg_format format = {
    .header = HEADER,
    .max_packet = MAX_PACKET,
    .chunk = CHUNK_BYTES,
    .rget = 32,
    .vc_det = VCBN,
    .vc_dynamic = VCD0,
    .vc_coll_world = VCBN,
    .vc_coll_sub = VCBN,
    .dynamic_from = 0,
    .dynamic_dims = 0,
};

/* The Blue Gene packetizer with this family's format as constants. */
static void plan(const temu_family *f, const temu_machine *m, const temu_message *msg, temu_plan *p)
{
    (void)f;
    temu_plan_bluegene(&format, m, msg, p);
}

const temu_family temu_family_bgp = {
    .info =
        {
            .system = TEMU_SYSTEM_BGP,
            .name = "bgp",
            .title = "IBM Blue Gene/P, 3-D torus",
            .base =
                {
                    .system = TEMU_SYSTEM_BGP,
                    .ndims = 3,
                    .torus = {1, 1, 1},
                    .nodes_per_router = 1,
                    .cores_per_node = 4,
                    .threads_per_core = 1,
                    .nlinks = TEMU_BGP_LINKS,
                    /* Rendezvous from 1200 bytes up: the BG/P MPI (DCMF)
                     * default eager cutoff; our choice, configurable
                     * (doc/model.md). */
                    .protocol = {.eager_limit = 1200},
                },
            .dims = "XYZ",
            .shape_form = "XxYxZ",
            .map_columns = "X Y Z",
            .default_order = "XYZT",
            .rightmost_fastest = 0, /* X varies fastest */
            .link_names = link_names,
            .spec_options = TEMU_SPEC_TORUS,
            .idle_preset = "bgp-midplane",
            .unit_bytes = CHUNK_BYTES,
            .unit_name = "32-byte chunks",
            .packet_header = HEADER,
            .max_packet = MAX_PACKET,
            .vcs = 4,
            .counts_arrivals = 0,
            .stall_toward = 0, /* NO_TOKENS belongs to the sending direction */
            .payload = TEMU_PAYLOAD_UNUSED,
            .collnet = TEMU_COLLNET_WORLD,
            .bruck_alltoall = 0,
            .live_timing = 0, /* the online model does not fill its counters yet */
            .router_hz = CLOCK_HZ,
            .core_hz = CLOCK_HZ,
            .max_lanes = 1,
            .lane_gbs = LANE_GBS,
            .volume_measure = "32-byte chunks sent",
            .stall_measure = "NO_TOKENS cycles (850 MHz)",
        },
    .name_node = temu_bluegene_location,
    .name_router = temu_bluegene_location,
    .describe = describe,
    .midplane = midplane,
    .plan = plan,
    .sections = TEMU_SECTION_BGP_TORUS,
    .layout = layout,
    .apply = &temu_apply_bgp,
    .describe_counter = describe_counter,
    .read_link = read_link,
    .stall_counters = stall_counters,
    .timing =
        {
            .router_ps = 95000, /* our assumption: 100 ns per hop */
            .wire_ps = 5000,
            .credit_ps = 5000, /* tokens travel back over the link */
            .max_packet = MAX_PACKET,
            .buffer_bytes = 4 * MAX_PACKET, /* our assumption */
            .classes = 4,                   /* VCD0, VCD1, bubble, priority: a FIFO each */
            .flow = TEMU_TM_TOKEN,
            .node_gbs = 6 * LANE_GBS, /* our assumption: all six links at once */
            .train_packets = 1,       /* single packets (doc/model.md, "Packet trains") */
            /* dynamic routing on VCD0 and VCD1, the bubble VC as escape
             * (Lakner 2008, Table 6-3 VC names; doc/model.md) */
            .routing = TEMU_TM_ADAPTIVE,
            .dynamic_vcs = 0x3,
            .escape_vc = VCBN,
            /* MPICH2 over DCMF (doc/virtual-time.md, "MPI software
             * costs" and "Where each value comes from").  One-way MPI
             * latency between torus neighbours taken as 2.6 us, attributed
             * to Kumar et al., "The Deep Computing Messaging Framework:
             * Generalized Scalable Message Passing on the Blue Gene/P
             * Supercomputer" (ICS 2008) but NOT checked against its text
             * (only its abstract, without figures, could be reached; no
             * other published BG/P MPI latency was found either).  The
             * model's network part (~0.2 us) taken off, the rest split
             * evenly (derived).  g = o_s (derived, as Gemini).  On-node
             * (DCMF's shared-memory path) 1.0 us and 1.5 GB/s: our
             * assumption, no published figure found. */
            .mpi =
                {
                    .send_ps = 1200000,
                    .recv_ps = 1200000,
                    .gap_ps = 1200000,
                    .shm_ps = 1000000,
                    .shm_gbs = 1.5,
                },
        },
};

_Static_assert(sizeof link_names / sizeof link_names[0] == TEMU_BGP_LINKS, "a name per BG/P link");
