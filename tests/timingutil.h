/*
 * timingutil.h - helpers shared by the timing-model unit tests.
 */
#ifndef TEMU_TIMINGUTIL_H
#define TEMU_TIMINGUTIL_H

#include "testutil.h"
#include "torusemu_timing.h"

/* A packet that must be accepted (lane key 0). */
static inline void tm_send(temu_tm *t, int64_t when, int64_t src, int64_t dst, uint32_t bytes,
                           uint32_t cls, uint64_t tag)
{
    temu_error err;
    ck_assert_msg(temu_tm_send(t, when, src, dst, bytes, cls, 0, tag, &err) == TEMU_OK, "%s",
                  err.message);
}

/* Router (= node on Blue Gene) at x, y, z of a 3-D machine. */
static inline int64_t node(const temu_machine *m, int x, int y, int z)
{
    int32_t c[3] = {x, y, z};
    return temu_router_index(m, c);
}

/* Lane 0 of a link. */
static inline temu_tm_lane_stats lane(const temu_tm *t, int64_t router, int link)
{
    temu_tm_lane_stats s;
    temu_error err;
    ck_assert_msg(temu_tm_lane_stats_get(t, router, link, 0, &s, &err) == TEMU_OK, "%s",
                  err.message);
    return s;
}

#endif
