/*
 * family_bgq.c - the IBM Blue Gene/Q family (family.h): a 5-D torus (or
 * mesh) of nodes, each its own router, with the network unit's counters
 * per link, kind and VC, the message unit, the L2 slices, the CNK software
 * counters and the virtual network cycles.  Sources in doc/model.md and
 * doc/references.md (BG/Q driver).
 */
#define TEMU_BUILDING_LIBRARY 1
#include "emu_internal.h"
#include "plan_bluegene.h"

/* A packet is a 32-byte header chunk plus up to 512 bytes of payload in
 * 32-byte chunks (BG/Q driver, doc/references.md). */
#define CHUNK_BYTES 32u
#define HEADER 32u
#define MAX_PACKET (HEADER + 512u)
/* Clocks (reference/bgq REPORT): network 500 MHz (upci_impl.h), message
 * unit 800 MHz (BGPM event tips), A2 cores 1.6 GHz (McCraw 2013). */
#define NETWORK_HZ 500000000ull
#define MU_HZ 800000000ull
#define CORE_HZ 1600000000ull
/* 2 GB/s per link and direction at the network clock (reference/bgq
 * REPORT, testint_inlines.h) */
#define LANE_GBS 2.0

static const char *const link_names[] = {"A-", "A+", "B-", "B+", "C-", "C+",
                                         "D-", "D+", "E-", "E+", "IO"};
static const int32_t midplane[] = {4, 4, 4, 4, 2};

/*
 * Deterministic routing order: longest dimension first, where a torus
 * dimension of n nodes counts n/2 and a mesh dimension n; ties go to the
 * mesh, then to the lower dimension (BG/Q driver, doc/references.md,
 * fw_nd.c).  Lengths are compared doubled so n/2 stays exact.
 */
static void order_dims(temu_machine *m)
{
    for (int i = 1; i < m->ndims; i++) {
        for (int j = i; j > 0; j--) {
            int a = m->dim_order[j - 1], b = m->dim_order[j];
            int la = m->torus[a] ? m->size[a] : 2 * m->size[a];
            int lb = m->torus[b] ? m->size[b] : 2 * m->size[b];
            int b_first = lb > la || (lb == la && !m->torus[b] && m->torus[a]) ||
                          (lb == la && m->torus[b] == m->torus[a] && b < a);
            if (!b_first) {
                break;
            }
            m->dim_order[j - 1] = b;
            m->dim_order[j] = a;
        }
    }
}

static void describe(const temu_machine *m, FILE *f)
{
    fprintf(f,
            "bandwidth  2 GB/s per link and direction, 500 MHz network clock\n"
            "packets    32-byte header + 0..512 bytes payload in 32-byte chunks\n"
            "protocol   eager < %u B, rendezvous by remote get above\n"
            "all-to-all memory-FIFO packets on VC %d, routed %s (m2m-routing=)\n",
            m->protocol.eager_limit,
            m->protocol.m2m_deterministic ? TEMU_BGQ_VC_USER_ESCAPE : TEMU_BGQ_VC_USER_DYNAMIC,
            m->protocol.m2m_deterministic ? "deterministically" : "dynamically");
}

/* [node][11][3][7] network unit, [node][64] message unit, [node][16][16]
 * L2, [node][2] CNK node, [node][64][27] CNK hardware threads, [node]
 * virtual network cycles. */
static void layout(const temu_machine *m, temu_layout *out)
{
    int64_t next = 0;
    out->bgq_nw = next;
    next += m->nnodes * TEMU_BGQ_LINKS * TEMU_BGQ_NW_KINDS * TEMU_BGQ_VCS;
    out->bgq_mu = next;
    next += m->nnodes * TEMU_BGQ_MU_COUNTERS;
    out->bgq_l2 = next;
    next += m->nnodes * TEMU_BGQ_L2_SLICES * TEMU_BGQ_L2_COUNTERS;
    out->bgq_cnk_node = next;
    next += m->nnodes * TEMU_BGQ_CNK_NODE_COUNTERS;
    out->bgq_cnk_hwt = next;
    next += m->nnodes * TEMU_BGQ_HWTHREADS * TEMU_BGQ_CNK_HWT_COUNTERS;
    out->bgq_nw_cycles = next;
    next += m->nnodes;
    out->total = next;
}

static int describe_counter(const temu_machine *m, const temu_layout *l, int64_t idx, char *buf,
                            size_t len)
{
    static const char *nw_kind[] = {"SENT_CHUNKS", "RECV_PACKETS", "RECV_FIFO"};
    char where[96];
    if (idx < l->bgq_mu) {
        int64_t per_node = TEMU_BGQ_LINKS * TEMU_BGQ_NW_KINDS * TEMU_BGQ_VCS;
        int64_t node = idx / per_node;
        int link = (int)(idx % per_node / (TEMU_BGQ_NW_KINDS * TEMU_BGQ_VCS));
        int kind = (int)(idx % (TEMU_BGQ_NW_KINDS * TEMU_BGQ_VCS) / TEMU_BGQ_VCS);
        temu_node_name(m, node, where, sizeof where);
        return snprintf(buf, len, "%s %s %s VC%d", where, temu_link_name(m, link), nw_kind[kind],
                        (int)(idx % TEMU_BGQ_VCS));
    }
    if (idx < l->bgq_l2) {
        int64_t rel = idx - l->bgq_mu;
        temu_node_name(m, rel / TEMU_BGQ_MU_COUNTERS, where, sizeof where);
        return snprintf(buf, len, "%s MU sram %d", where, (int)(rel % TEMU_BGQ_MU_COUNTERS));
    }
    if (idx < l->bgq_cnk_node) {
        int64_t rel = idx - l->bgq_l2;
        int64_t per = TEMU_BGQ_L2_SLICES * TEMU_BGQ_L2_COUNTERS;
        temu_node_name(m, rel / per, where, sizeof where);
        return snprintf(buf, len, "%s L2 slice %d counter %d", where,
                        (int)(rel % per / TEMU_BGQ_L2_COUNTERS), (int)(rel % TEMU_BGQ_L2_COUNTERS));
    }
    if (idx < l->bgq_cnk_hwt) {
        int64_t rel = idx - l->bgq_cnk_node;
        temu_node_name(m, rel / TEMU_BGQ_CNK_NODE_COUNTERS, where, sizeof where);
        return snprintf(buf, len, "%s CNK node counter %d", where,
                        (int)(rel % TEMU_BGQ_CNK_NODE_COUNTERS));
    }
    if (idx >= l->bgq_nw_cycles) {
        temu_node_name(m, idx - l->bgq_nw_cycles, where, sizeof where);
        return snprintf(buf, len, "%s NW cycles", where);
    }
    int64_t rel = idx - l->bgq_cnk_hwt;
    int64_t per = TEMU_BGQ_HWTHREADS * TEMU_BGQ_CNK_HWT_COUNTERS;
    temu_node_name(m, rel / per, where, sizeof where);
    return snprintf(buf, len, "%s CNK hwthread %d counter %d", where,
                    (int)(rel % per / TEMU_BGQ_CNK_HWT_COUNTERS),
                    (int)(rel % TEMU_BGQ_CNK_HWT_COUNTERS));
}

/* Chunks sent on the link, or the receive-FIFO occupancy of the link at
 * this node (what came in through it), all VCs. */
static uint64_t read_link(const temu_session *s, int64_t router, int link, temu_link_measure what)
{
    const temu_machine *m = temu_session_machine(s);
    int kind = what == TEMU_LINK_STALL ? TEMU_BGQ_NW_RECV_FIFO : TEMU_BGQ_NW_SENT_CHUNKS;
    uint64_t v = 0;
    for (int vc = 0; vc < TEMU_BGQ_VCS; vc++) {
        v += temu_counter_read(s, temu_idx_bgq_nw(m, router, link, kind, vc));
    }
    return v;
}

/* Every node's receive FIFOs of the torus links per VC, then its message
 * unit's pending reads and writes. */
static int64_t stall_counters(const temu_machine *m, int64_t *idx)
{
    int64_t n = 0;
    for (int64_t nd = 0; nd < m->nnodes; nd++) {
        for (int l = 0; l < 2 * m->ndims; l++) {
            for (int vc = 0; vc < TEMU_BGQ_VCS; vc++, n++) {
                if (idx != NULL) {
                    idx[n] = temu_idx_bgq_nw(m, nd, l, TEMU_BGQ_NW_RECV_FIFO, vc);
                }
            }
        }
        if (idx != NULL) {
            idx[n] = temu_idx_bgq_mu(m, nd, TEMU_MU_PORT0_PEND_RD);
            idx[n + 1] = temu_idx_bgq_mu(m, nd, TEMU_MU_PORT0_PEND_WRT);
        }
        n += 2;
    }
    return n;
}

/* Bulk data is labelled dynamic when larger than 64 KiB and the nodes
 * differ in more than one dimension (PAMI's rule, BG/Q driver,
 * doc/references.md); collectives have VCs of their own. */
static const temu_bg_format format = {
    .header = HEADER,
    .max_packet = MAX_PACKET,
    .chunk = CHUNK_BYTES,
    .rget = 64,
    .vc_det = TEMU_BGQ_VC_USER_ESCAPE,
    .vc_dynamic = TEMU_BGQ_VC_USER_DYNAMIC,
    .vc_coll_world = TEMU_BGQ_VC_COLL_WORLD,
    .vc_coll_sub = TEMU_BGQ_VC_COLL_SUBCOMM,
    .dynamic_from = 65536 + 1,
    .dynamic_dims = 2,
    .m2m = 1,
};

/* The Blue Gene packetizer with this family's format as constants. */
static void plan(const temu_family *f, const temu_machine *m, const temu_message *msg, temu_plan *p)
{
    (void)f;
    temu_plan_bluegene(&format, m, msg, p);
}

const temu_family temu_family_bgq = {
    .info =
        {
            .system = TEMU_SYSTEM_BGQ,
            .name = "bgq",
            .title = "IBM Blue Gene/Q, 5-D torus",
            .base =
                {
                    .system = TEMU_SYSTEM_BGQ,
                    .ndims = 5,
                    .torus = {1, 1, 1, 1, 1},
                    .nodes_per_router = 1,
                    .cores_per_node = 16,
                    .threads_per_core = 4,
                    .nlinks = TEMU_BGQ_LINKS, /* A-..E+ and the I/O link */
                    /* Eager below 4097 bytes: the __BGQ__ build of
                     * MPICH/PAMID (BG/Q driver, doc/references.md,
                     * mpidi_platform.h). */
                    .protocol = {.eager_limit = 4097},
                },
            .dims = "ABCDE",
            .shape_form = "AxBxCxDxE",
            .map_columns = "A B C D E",
            .default_order = "ABCDET",
            .rightmost_fastest = 1, /* T varies fastest */
            .rpn_power_of_two = 1,  /* 1, 2, 4, ... 64 ranks per node */
            .link_names = link_names,
            .spec_options = TEMU_SPEC_TORUS | TEMU_SPEC_M2M,
            .idle_preset = "midplane",
            .unit_bytes = CHUNK_BYTES,
            .unit_name = "32-byte chunks",
            .packet_header = HEADER,
            .max_packet = MAX_PACKET,
            .vcs = TEMU_BGQ_VCS,
            .counts_arrivals = 0,
            .stall_toward = 1, /* a receive FIFO holds what came in */
            .payload = TEMU_PAYLOAD_ADDRESS,
            .collnet = TEMU_COLLNET_CLASS_ROUTES,
            .bruck_alltoall = 0,
            .live_timing = 1,
            .router_hz = NETWORK_HZ,
            .core_hz = CORE_HZ,
            .mu_hz = MU_HZ,
            .max_lanes = 1,
            .lane_gbs = LANE_GBS,
            .volume_measure = "32-byte chunks sent (all VCs)",
            .stall_measure = "receive-FIFO occupancy (all VCs)",
        },
    .order_dims = order_dims,
    .name_node = temu_bluegene_location,
    .name_router = temu_bluegene_location,
    .describe = describe,
    .midplane = midplane,
    .plan = plan,
    .alltoall_fifo = 1,
    .sections = TEMU_SECTION_BGQ_NW | TEMU_SECTION_BGQ_MU | TEMU_SECTION_BGQ_L2 |
                TEMU_SECTION_BGQ_CNK | TEMU_SECTION_BGQ_NW_CYCLES,
    .layout = layout,
    .apply = &temu_apply_bgq,
    .describe_counter = describe_counter,
    .read_link = read_link,
    .stall_counters = stall_counters,
    .timing =
        {
            /* ~40 ns per hop (lanl/PPT mira_config.py, citing Chen et al.) */
            .router_ps = 35000,
            .wire_ps = 5000,
            .credit_ps = 5000, /* tokens travel back over the link */
            .max_packet = MAX_PACKET,
            .buffer_bytes = 4 * MAX_PACKET, /* our assumption */
            .classes = TEMU_BGQ_VCS,        /* a receive FIFO per VC */
            .flow = TEMU_TM_TOKEN,
            .node_gbs = 10 * LANE_GBS, /* our assumption: the ten torus links */
            .train_packets = 1,        /* single packets (doc/model.md, "Packet trains") */
            /* user dynamic VC 0 routed adaptively, the escape VC 1 as
             * fall-back (reference/bgq: MU_Pt2PtNetworkHeader.h, fw_nd.c
             * zone masks) */
            .routing = TEMU_TM_ADAPTIVE,
            .dynamic_vcs = 1u << TEMU_BGQ_VC_USER_DYNAMIC,
            .escape_vc = TEMU_BGQ_VC_USER_ESCAPE,
            /* our assumption: a message-unit memory request is pending 64
             * MU cycles (800 MHz) = 80 ns, a round trip through the switch
             * to an L2 slice (doc/model.md) */
            .mu_request_ps = 64 * (int64_t)(1000000000000ull / MU_HZ),
            /* MPICH over PAMI (doc/virtual-time.md, "MPI software
             * costs" and "Where each value comes from").  One-way MPI
             * latency between torus neighbours taken as 2.2 us, attributed
             * to Kumar et al., "PAMI: A Parallel Active Message Interface
             * for the Blue Gene/Q Supercomputer" (IPDPS 2012) but NOT
             * checked against its text (only abstracts of it and of Chen
             * et al., SC11 and SC12, without figures, could be reached).
             * The model's network part (~0.2 us) taken off, the rest split
             * evenly (derived).  g = o_s (derived).  On-node (PAMI's
             * shared-memory path) 1.0 us and 4 GB/s: our assumption, no
             * published figure found. */
            .mpi =
                {
                    .send_ps = 1000000,
                    .recv_ps = 1000000,
                    .gap_ps = 1000000,
                    .shm_ps = 1000000,
                    .shm_gbs = 4.0,
                },
        },
};

_Static_assert(sizeof link_names / sizeof link_names[0] == TEMU_BGQ_LINKS, "a name per BG/Q link");
