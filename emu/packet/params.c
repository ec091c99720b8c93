/*
 * params.c - the packet model's parameters: each machine's defaults, the
 * checks a configuration must pass, and the rules of its links.  The link
 * rules (lanes, a lane's GB/s, serialization) are also the live run's
 * (mpi/vt_model.c times one message by them): temu_tm_link_lanes,
 * temu_tm_link_lane_gbs and temu_tm_ser_ps give them out.
 */
#define TEMU_BUILDING_LIBRARY 1
#include "channel.h"
#include "packet.h"

#include <math.h>
#include <string.h>

/* Link bandwidth per lane in GB/s, the machine's own figure. */
static double machine_lane_gbs(const temu_machine *m, int64_t router, int link)
{
    switch (m->system) {
    case TEMU_SYSTEM_GEMINI:
        /* per tile by medium: LDMS gemini.h, seed 000 Table II */
        return temu_medium_tile_bandwidth(temu_gemini_link_medium(m, router, link));
    case TEMU_SYSTEM_BGP:
        /* 425 MB/s per link and direction (IBM Blue Gene team, "Overview of
         * the IBM Blue Gene/P project", IBM J. Res. Dev. 52, 2008) */
        return 0.425;
    default:
        /* 2 GB/s per link and direction at the 500 MHz network clock
         * (reference/bgq REPORT, testint_inlines.h) */
        return 2.0;
    }
}

double tm_params_lane_gbs(const temu_machine *m, const temu_tm_config *c, int64_t router, int link)
{
    return c->link_gbs > 0 ? c->link_gbs : machine_lane_gbs(m, router, link);
}

int temu_tm_link_lanes(const temu_machine *m, int link)
{
    return tm_params_lanes(m, link);
}

double temu_tm_link_lane_gbs(const temu_machine *m, const temu_tm_config *c, int64_t router,
                             int link)
{
    return tm_params_lane_gbs(m, c, router, link);
}

int64_t temu_tm_ser_ps(double gbs, uint32_t bytes)
{
    return tm_ser_ps(1000.0 / gbs, bytes);
}

temu_status temu_tm_config_default(const temu_machine *m, temu_tm_config *c, temu_error *err)
{
    memset(c, 0, sizeof *c);
    switch (m->system) {
    case TEMU_SYSTEM_GEMINI:
        /* ~105 ns per hop (lanl/PPT hopper_config.py, citing Alverson et
         * al., "The Gemini System Interconnect", HOTI 2010); the split into
         * router and wire time is our choice. */
        c->router_ps = 100000;
        c->wire_ps = 5000;
        c->max_packet = 96;       /* 32 phits of 3 bytes (seed 000 V.A) */
        c->buffer_bytes = 8 * 96; /* our assumption: 8 maximal packets per VC */
        c->classes = 2;           /* request VC0, response VC1 */
        c->flow = TEMU_TM_CREDIT;
        c->node_gbs = 4 * 1.30; /* a NIC's half of the 8 host tiles */
        break;
    case TEMU_SYSTEM_BGP:
        /* our assumption: 100 ns per hop */
        c->router_ps = 95000;
        c->wire_ps = 5000;
        c->max_packet = 256;       /* 8 chunks of 32 bytes */
        c->buffer_bytes = 4 * 256; /* our assumption */
        c->classes = 4;            /* VCD0, VCD1, bubble, priority: a FIFO each */
        c->flow = TEMU_TM_TOKEN;
        c->node_gbs = 6 * 0.425; /* our assumption: all six links at once */
        /* dynamic routing on VCD0 and VCD1, the bubble VC as escape
         * (Lakner 2008, Table 6-3 VC names; doc/model.md) */
        c->routing = TEMU_TM_ADAPTIVE;
        c->dynamic_vcs = 0x3;
        c->escape_vc = 2;
        break;
    case TEMU_SYSTEM_BGQ:
        /* ~40 ns per hop (lanl/PPT mira_config.py, citing Chen et al.) */
        c->router_ps = 35000;
        c->wire_ps = 5000;
        c->max_packet = 544;       /* 32-byte header + 512 payload bytes */
        c->buffer_bytes = 4 * 544; /* our assumption */
        c->classes = TEMU_BGQ_VCS; /* a receive FIFO per VC */
        c->flow = TEMU_TM_TOKEN;
        c->node_gbs = 10 * 2.0; /* our assumption: the ten torus links */
        /* user dynamic VC 0 routed adaptively, the escape VC 1 as fall-back
         * (reference/bgq: MU_Pt2PtNetworkHeader.h, fw_nd.c zone masks) */
        c->routing = TEMU_TM_ADAPTIVE;
        c->dynamic_vcs = 1u << TEMU_BGQ_VC_USER_DYNAMIC;
        c->escape_vc = TEMU_BGQ_VC_USER_ESCAPE;
        /* our assumption: a message-unit memory request is pending 64 MU
         * cycles (800 MHz, reference/bgq) = 80 ns, a round trip through the
         * switch to an L2 slice (doc/model.md) */
        c->mu_request_ps = 64 * 1250;
        break;
    default:
        return temu_fail(err, TEMU_EINVAL, "timing model: unknown system %d", m->system);
    }
    c->node_wire_ps = 0;
    c->credit_ps = c->wire_ps; /* credits travel back over the link */
    c->link_gbs = 0;
    /* single packets (measured, doc/model.md "Packet trains"): on Gemini a
     * message's packets take its tile slots in turn and trains of one slot
     * would leave the router's injection queue one after the other; on
     * Blue Gene trains need dateline VCs instead of the bubble rule, which
     * moves the stall counters by up to 1.8 x */
    c->train_packets = 1;
    return TEMU_OK;
}

/* Adaptive routing's own rules. */
static temu_status check_adaptive(const temu_tm_config *c, temu_error *err)
{
    uint32_t all = c->classes >= 32 ? ~0u : (1u << c->classes) - 1;
    if (c->flow != TEMU_TM_TOKEN) {
        return temu_fail(err, TEMU_EINVAL,
                         "timing model: adaptive routing needs token flow control (an "
                         "escape VC with the bubble rule)");
    }
    if (c->train_packets > 1) {
        return temu_fail(err, TEMU_EINVAL,
                         "timing model: adaptive routing needs single packets (train_packets "
                         "%u > 1 travels on dateline VCs, not the escape VC's bubble rule)",
                         c->train_packets);
    }
    if (c->dynamic_vcs == 0 || (c->dynamic_vcs & ~all) != 0) {
        return temu_fail(err, TEMU_EINVAL, "timing model: dynamic_vcs %#x must name classes 0..%u",
                         c->dynamic_vcs, c->classes - 1);
    }
    if (c->escape_vc >= c->classes || (c->dynamic_vcs >> c->escape_vc & 1u)) {
        return temu_fail(err, TEMU_EINVAL,
                         "timing model: escape_vc %u must be a class outside dynamic_vcs",
                         c->escape_vc);
    }
    return TEMU_OK;
}

temu_status tm_params_check(const temu_machine *m, const temu_tm_config *c, temu_error *err)
{
    uint32_t need;
    if (c->routing == TEMU_TM_ADAPTIVE && m->system == TEMU_SYSTEM_GEMINI) {
        return temu_fail(err, TEMU_EINVAL,
                         "timing model: adaptive routing is modelled for Blue Gene only");
    }
    if (c->router_ps < 0 || c->wire_ps < 0 || c->node_wire_ps < 0 || c->credit_ps < 0 ||
        c->mu_request_ps < 0) {
        return temu_fail(err, TEMU_EINVAL, "timing model: negative latency");
    }
    if (c->mu_request_ps > 1000000) {
        return temu_fail(err, TEMU_EINVAL, "timing model: mu_request_ps %lld above 1000000 (1 us)",
                         (long long)c->mu_request_ps);
    }
    if (c->classes < 1 || c->classes > TEMU_TM_MAX_CLASSES) {
        return temu_fail(err, TEMU_EINVAL, "timing model: classes must be 1..%d, not %u",
                         TEMU_TM_MAX_CLASSES, c->classes);
    }
    if (c->flow != TEMU_TM_CREDIT && c->flow != TEMU_TM_TOKEN) {
        return temu_fail(err, TEMU_EINVAL, "timing model: unknown flow control %u", c->flow);
    }
    if (c->max_packet == 0 || c->max_packet > 65536) {
        return temu_fail(err, TEMU_EINVAL, "timing model: max_packet %u outside 1..65536",
                         c->max_packet);
    }
    need = c->flow == TEMU_TM_TOKEN ? 2 * c->max_packet : c->max_packet;
    if (c->buffer_bytes < need) {
        return temu_fail(err, TEMU_EINVAL, "timing model: buffer_bytes %u below %u (%s)",
                         c->buffer_bytes, need,
                         c->flow == TEMU_TM_TOKEN ? "two maximal packets for the bubble rule"
                                                  : "one maximal packet");
    }
    if ((uint64_t)c->train_packets * c->max_packet > INT32_MAX) {
        return temu_fail(err, TEMU_EINVAL,
                         "timing model: train_packets %u x max_packet %u exceeds 2^31 bytes",
                         c->train_packets, c->max_packet);
    }
    if (!(c->node_gbs > 0) || c->link_gbs < 0 || !isfinite(c->link_gbs) || !isfinite(c->node_gbs)) {
        return temu_fail(err, TEMU_EINVAL, "timing model: bandwidths must be positive GB/s");
    }
    if (c->routing != TEMU_TM_DETERMINISTIC && c->routing != TEMU_TM_ADAPTIVE) {
        return temu_fail(err, TEMU_EINVAL, "timing model: unknown routing %u", c->routing);
    }
    return c->routing == TEMU_TM_ADAPTIVE ? check_adaptive(c, err) : TEMU_OK;
}
