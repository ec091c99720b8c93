/*
 * params.c - the packet model's parameters: each family's defaults (the
 * `timing` figures of its descriptor, emu/family_*.c), the checks a
 * configuration must pass, and the rules of its links.  The link rules
 * (lanes, a lane's GB/s, serialization) are also the live run's
 * (mpi/vt_model.c times one message by them): temu_link_lanes (family.c),
 * temu_tm_link_lane_gbs and temu_tm_ser_ps give them out.
 */
#define TEMU_BUILDING_LIBRARY 1
#include "channel.h"
#include "packet.h"

#include <math.h>
#include <string.h>

double tm_params_lane_gbs(const temu_machine *m, const temu_tm_config *c, int64_t router, int link)
{
    return c->link_gbs > 0 ? c->link_gbs
                           : temu_family_lane_gbs(temu_machine_family(m), m, router, link);
}

/* The configuration's uniform link_gbs, else the family's own rate
 * (temu_link_lane_gbs): both functions are public because the live run
 * times links as a configured model does, the tools and components as
 * the machine is. */
double temu_tm_link_lane_gbs(const temu_machine *m, const temu_tm_config *c, int64_t router,
                             int link)
{
    return tm_params_lane_gbs(m, c, router, link);
}

int64_t temu_tm_shm_copy_ps(const temu_tm_mpi_costs *c, uint64_t bytes)
{
    double copy = c->shm_gbs > 0 ? (double)bytes * 1000.0 / c->shm_gbs : 0.0;
    return (int64_t)(copy + 0.5);
}

int64_t temu_tm_ser_ps(double gbs, uint32_t bytes)
{
    return tm_ser_ps(1000.0 / gbs, bytes);
}

temu_status temu_tm_config_default(const temu_machine *m, temu_tm_config *c, temu_error *err)
{
    const temu_family *f = temu_machine_family(m);
    memset(c, 0, sizeof *c);
    if (f == NULL) {
        return temu_fail(err, TEMU_EINVAL, "timing model: unknown system %d", m->system);
    }
    *c = f->timing; /* the figures and their sources: emu/family_*.c */
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
    /* a family whose defaults name no dynamic VC (Gemini) has no adaptive router */
    if (c->routing == TEMU_TM_ADAPTIVE && temu_machine_family(m)->timing.dynamic_vcs == 0) {
        return temu_fail(err, TEMU_EINVAL,
                         "timing model: adaptive routing is modelled for Blue Gene only");
    }
    if (c->router_ps < 0 || c->wire_ps < 0 || c->node_wire_ps < 0 || c->credit_ps < 0 ||
        c->mu_request_ps < 0 || c->turn_ps < 0) {
        return temu_fail(err, TEMU_EINVAL, "timing model: negative latency");
    }
    if (c->inject_vcs > 1) {
        return temu_fail(err, TEMU_EINVAL, "timing model: inject_vcs %u must be 0 or 1",
                         c->inject_vcs);
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
    if (c->threads > TEMU_TM_MAX_THREADS || (int64_t)c->threads > m->nrouters) {
        return temu_fail(err, TEMU_EINVAL,
                         "timing model: %u threads, at most %d and at most the %lld routers",
                         c->threads, TEMU_TM_MAX_THREADS, (long long)m->nrouters);
    }
    return c->routing == TEMU_TM_ADAPTIVE ? check_adaptive(c, err) : TEMU_OK;
}
