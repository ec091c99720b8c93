/*
 * flow_stub.c - placeholder of the flow model (torusemu_flow.h) until
 * emu/flow/ is merged: creating one fails with a reason.
 */
#define TEMU_BUILDING_LIBRARY 1
#include "emu_internal.h"
#include "torusemu_flow.h"

temu_status temu_fm_create(const temu_machine *m, const temu_tm_config *c, temu_fm **out,
                           temu_error *err)
{
    (void)m;
    (void)c;
    *out = NULL;
    return temu_fail(err, TEMU_EINVAL, "flow model: not in this build yet");
}

void temu_fm_destroy(temu_fm *f)
{
    (void)f;
}
void temu_fm_set_delivery(temu_fm *f, temu_tm_delivery_fn fn, void *ctx)
{
    (void)f;
    (void)fn;
    (void)ctx;
}
void temu_fm_set_hop(temu_fm *f, temu_tm_hop_fn fn, void *ctx)
{
    (void)f;
    (void)fn;
    (void)ctx;
}
temu_status temu_fm_send(temu_fm *f, int64_t when_ps, int64_t src, int64_t dst, uint32_t bytes,
                         uint64_t count, uint32_t cls, uint32_t lane_key, double max_gbs,
                         uint64_t tag, temu_error *err)
{
    (void)f;
    (void)when_ps;
    (void)src;
    (void)dst;
    (void)bytes;
    (void)count;
    (void)cls;
    (void)lane_key;
    (void)max_gbs;
    (void)tag;
    return temu_fail(err, TEMU_EINVAL, "flow model: not in this build yet");
}
int64_t temu_fm_run(temu_fm *f, int64_t until_ps)
{
    (void)f;
    return until_ps;
}
int64_t temu_fm_now(const temu_fm *f)
{
    (void)f;
    return 0;
}
int64_t temu_fm_next_event(const temu_fm *f)
{
    (void)f;
    return INT64_MAX;
}
temu_status temu_fm_lane_stats_get(const temu_fm *f, int64_t router, int link, int lane,
                                   temu_tm_lane_stats *out, temu_error *err)
{
    (void)f;
    (void)router;
    (void)link;
    (void)lane;
    (void)out;
    return temu_fail(err, TEMU_EINVAL, "flow model: not in this build yet");
}
void temu_fm_totals_get(const temu_fm *f, temu_fm_totals *out)
{
    (void)f;
    out->flows = out->solves = out->updates = 0;
}
