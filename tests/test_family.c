/*
 * test_family.c - the machine families' descriptors (emu/family.h,
 * temu_family_info): every family has one, its figures agree with what the
 * model does with them (packets, timing defaults, clocks, links), and the
 * accessors built on it read the right counters.
 */
#define TEMU_BUILDING_LIBRARY 1 /* the private descriptor: its timing figures */
#include "../emu/family.h"
#include "testutil.h"
#include "torusemu_timing.h"

#include <errno.h>

static const char *const sample[] = {"gemini:4x2x3", "bgp:4x2x2", "bgq:2x2x4x2x2"};
static const int32_t systems[] = {TEMU_SYSTEM_GEMINI, TEMU_SYSTEM_BGP, TEMU_SYSTEM_BGQ};

START_TEST(test_lookup)
{
    const temu_family_info *f = temu_family_info_get(systems[_i]);
    temu_machine m = test_machine(sample[_i]);
    ck_assert_ptr_nonnull(f);
    ck_assert_int_eq(f->system, systems[_i]);
    ck_assert_str_eq(f->name, temu_system_name(systems[_i]));
    ck_assert_int_eq(strncmp(sample[_i], f->name, strlen(f->name)), 0);
    /* a parsed machine starts from the family's base */
    ck_assert_int_eq(m.system, f->base.system);
    ck_assert_int_eq(m.ndims, f->base.ndims);
    ck_assert_int_eq(m.nodes_per_router, f->base.nodes_per_router);
    ck_assert_int_eq(m.cores_per_node, f->base.cores_per_node);
    ck_assert_int_eq(m.threads_per_core, f->base.threads_per_core);
    ck_assert_int_eq(m.nlinks, f->base.nlinks);
    ck_assert_int_eq(memcmp(&m.protocol, &f->base.protocol, sizeof m.protocol), 0);
    ck_assert_int_eq((int)strlen(f->dims), m.ndims);
    for (int l = 0; l < m.nlinks; l++) {
        ck_assert_str_eq(temu_link_name(&m, l), f->link_names[l]);
        ck_assert_int_eq(temu_link_parse(&m, f->link_names[l]), l);
    }
    if (f->link_alias != NULL) {
        ck_assert_int_eq(temu_link_parse(&m, f->link_alias), 2 * m.ndims);
    }
    ck_assert_ptr_null(temu_family_info_get(0));
    ck_assert_ptr_null(temu_family_info_get(4));
}
END_TEST

/* The timing model's defaults, written out by hand as the model had them
 * before the descriptors (27d312c's temu_tm_config_default), so the
 * descriptor and the default copied from it cannot drift together:
 * router and wire ps, largest packet and buffer bytes, VC classes, flow
 * control, node injection GB/s, adaptive routing's dynamic VCs and escape
 * VC, and BG/Q's message-unit request time. */
START_TEST(test_timing_values)
{
    static const struct {
        int64_t router_ps, wire_ps;
        uint32_t max_packet, buffer_bytes, classes, flow;
        double node_gbs;
        uint32_t routing, dynamic_vcs, escape_vc;
        int64_t mu_request_ps;
    } want[] = {
        /* Gemini: 32 phits of 3 bytes, 8 such packets per VC, credits,
         * a NIC's half of the 8 host tiles at 1.30 GB/s */
        {100000, 5000, 96, 8 * 96, 2, TEMU_TM_CREDIT, 4 * 1.30, TEMU_TM_DETERMINISTIC, 0, 0, 0},
        /* BG/P: 8 chunks of 32 bytes, tokens, six links at 0.425 GB/s */
        {95000, 5000, 256, 4 * 256, 4, TEMU_TM_TOKEN, 6 * 0.425, TEMU_TM_ADAPTIVE, 0x3, 2, 0},
        /* BG/Q: 32-byte header + 512 payload bytes, ten links at 2 GB/s */
        {35000, 5000, 544, 4 * 544, TEMU_BGQ_VCS, TEMU_TM_TOKEN, 10 * 2.0, TEMU_TM_ADAPTIVE,
         1u << TEMU_BGQ_VC_USER_DYNAMIC, TEMU_BGQ_VC_USER_ESCAPE, 64 * 1250},
    };
    temu_machine m = test_machine(sample[_i]);
    temu_tm_config c;
    ck_assert_int_eq(temu_tm_config_default(&m, &c, NULL), TEMU_OK);
    ck_assert_int_eq(c.router_ps, want[_i].router_ps);
    ck_assert_int_eq(c.wire_ps, want[_i].wire_ps);
    ck_assert_int_eq(c.credit_ps, want[_i].wire_ps); /* credits travel back over the link */
    ck_assert_int_eq(c.node_wire_ps, 0);
    ck_assert_uint_eq(c.max_packet, want[_i].max_packet);
    ck_assert_uint_eq(c.buffer_bytes, want[_i].buffer_bytes);
    ck_assert_uint_eq(c.classes, want[_i].classes);
    ck_assert_uint_eq(c.flow, want[_i].flow);
    ck_assert(c.node_gbs == want[_i].node_gbs);
    ck_assert(c.link_gbs == 0);
    ck_assert_uint_eq(c.train_packets, 1);
    ck_assert_uint_eq(c.routing, want[_i].routing);
    ck_assert_uint_eq(c.dynamic_vcs, want[_i].dynamic_vcs);
    ck_assert_uint_eq(c.escape_vc, want[_i].escape_vc);
    ck_assert_int_eq(c.mu_request_ps, want[_i].mu_request_ps);
}
END_TEST

/* The descriptor's timing figures are the timing model's defaults
 * (temu_tm_config_default), its lanes and lane rates the links'. */
START_TEST(test_timing_figures)
{
    const temu_family_info *f = temu_family_info_get(systems[_i]);
    temu_machine m = test_machine(sample[_i]);
    temu_tm_config c;
    /* the public info is the descriptor's first member */
    const temu_tm_config *d = &((const temu_family *)f)->timing;
    ck_assert_int_eq(temu_tm_config_default(&m, &c, NULL), TEMU_OK);
    ck_assert_int_eq(c.router_ps, d->router_ps);
    ck_assert_int_eq(c.wire_ps, d->wire_ps);
    ck_assert_int_eq(c.node_wire_ps, d->node_wire_ps);
    ck_assert_int_eq(c.credit_ps, d->credit_ps);
    ck_assert_uint_eq(c.buffer_bytes, d->buffer_bytes);
    ck_assert_uint_eq(c.max_packet, d->max_packet);
    ck_assert_uint_eq(c.classes, d->classes);
    ck_assert_uint_eq(c.flow, d->flow);
    ck_assert(c.link_gbs == d->link_gbs);
    ck_assert(c.node_gbs == d->node_gbs);
    ck_assert_uint_eq(c.train_packets, d->train_packets);
    ck_assert_uint_eq(c.train_whole, d->train_whole);
    ck_assert_uint_eq(c.routing, d->routing);
    ck_assert_uint_eq(c.dynamic_vcs, d->dynamic_vcs);
    ck_assert_uint_eq(c.escape_vc, d->escape_vc);
    ck_assert_int_eq(c.mu_request_ps, d->mu_request_ps);
    ck_assert_uint_eq(c.max_packet, f->max_packet);
    ck_assert_uint_ge(c.classes, f->vcs);
    /* lanes: the widest link, each at its rate */
    int widest = 0;
    for (int l = 0; l < 2 * m.ndims; l++) {
        int n = temu_link_lanes(&m, l);
        widest = n > widest ? n : widest;
        ck_assert_int_ge(n, 1);
        for (int64_t r = 0; r < m.nrouters; r++) {
            double g = temu_link_lane_gbs(&m, r, l);
            ck_assert(g > 0);
            if (f->lane_gbs > 0) {
                ck_assert(g == f->lane_gbs);
            }
        }
    }
    ck_assert_int_eq(widest, f->max_lanes);
    ck_assert_int_eq(temu_link_lanes(&m, -1), 0);
    ck_assert_int_eq(temu_link_lanes(&m, m.nlinks), 0);
}
END_TEST

/* A message of whole largest packets: units x unit bytes = packets x
 * max_packet on the first hop. */
START_TEST(test_packet_format)
{
    const temu_family_info *f = temu_family_info_get(systems[_i]);
    temu_machine m = test_machine(sample[_i]);
    uint64_t payload = f->packet_header > 0 ? 8 * (f->max_packet - f->packet_header) : 64;
    temu_message msg = {0, m.nnodes - 1, payload, NULL, TEMU_KIND_PUT};
    temu_plan p;
    uint64_t units = 0, packets = 0;
    ck_assert_int_eq(temu_plan_message(&m, &msg, &p, NULL), TEMU_OK);
    if (f->tiles > 0) {
        for (int k = 0; k < TEMU_SLOTS; k++) { /* requests only: one PUT of 64 bytes */
            units += p.phits[0][0][k];
            packets += p.pkts[0][0][k];
        }
    } else {
        for (int vc = 0; vc < TEMU_BGQ_VCS; vc++) {
            units += p.chunks[0][vc];
            packets += p.packets[0][vc];
        }
    }
    ck_assert_uint_gt(packets, 0);
    ck_assert_uint_eq(units * f->unit_bytes, packets * f->max_packet);
}
END_TEST

START_TEST(test_clocks)
{
    const temu_family_info *gem = temu_family_info_get(TEMU_SYSTEM_GEMINI);
    const temu_family_info *bgp = temu_family_info_get(TEMU_SYSTEM_BGP);
    const temu_family_info *bgq = temu_family_info_get(TEMU_SYSTEM_BGQ);
    const int64_t ps[] = {0, 1, 1249, 1250, 1999, 2000, 20000, 123456789, 4000000000000ll};
    for (size_t i = 0; i < sizeof ps / sizeof ps[0]; i++) {
        ck_assert_uint_eq(temu_clock_cycles(gem->router_hz, ps[i]), (uint64_t)ps[i] / 1250);
        ck_assert_uint_eq(temu_clock_cycles(bgq->router_hz, ps[i]),
                          (uint64_t)ps[i] / TEMU_BGQ_NW_CYCLE_PS);
        ck_assert_uint_eq(temu_clock_cycles(bgq->mu_hz, ps[i]), (uint64_t)ps[i] / 1250);
        ck_assert_uint_eq(temu_clock_cycles(bgp->router_hz, ps[i]), (uint64_t)ps[i] * 17 / 20000);
    }
    ck_assert_uint_eq(temu_clock_cycles(bgq->core_hz, 500000), 800); /* 800 cycles = 500 ns */
    ck_assert_uint_eq(temu_clock_cycles(bgq->router_hz, -5), 0);
    ck_assert_uint_eq(temu_clock_cycles(0, 5), 0);
}
END_TEST

/* temu_link_read against the counters it sums, for one message. */
START_TEST(test_link_read)
{
    const temu_family_info *f = temu_family_info_get(systems[_i]);
    temu_machine m = test_machine(sample[_i]);
    temu_session *s;
    temu_hop hops[TEMU_MAX_HOPS];
    temu_message msg = {0, m.nnodes - 1, 100000, NULL, TEMU_KIND_P2P};
    ck_assert_int_eq(temu_session_create_private(&m, &s, NULL), TEMU_OK);
    ck_assert_int_eq(temu_inject(s, &msg, NULL), TEMU_OK);
    int n = temu_route(&m, temu_node_router(&m, msg.src), temu_node_router(&m, msg.dst), hops,
                       TEMU_MAX_HOPS);
    ck_assert_int_gt(n, 0);
    for (int h = 0; h < n; h++) {
        /* the hop's traffic shows where the family counts it */
        int64_t r = f->counts_arrivals ? hops[h].to : hops[h].from;
        int l = f->counts_arrivals ? hops[h].in_link : hops[h].link;
        uint64_t want = 0;
        if (f->tiles > 0) {
            int tiles[TEMU_GEMINI_TILES], nt = temu_gemini_link_tiles(l, tiles);
            for (int i = 0; i < nt; i++) {
                want += temu_counter_read(s, temu_idx_gemini_tile(&m, r, tiles[i], 0)) +
                        temu_counter_read(s, temu_idx_gemini_tile(&m, r, tiles[i], 1));
            }
        } else if (temu_idx_bgq_nw(&m, 0, 0, 0, 0) >= 0) {
            for (int vc = 0; vc < TEMU_BGQ_VCS; vc++) {
                want +=
                    temu_counter_read(s, temu_idx_bgq_nw(&m, r, l, TEMU_BGQ_NW_SENT_CHUNKS, vc));
            }
        } else {
            want = temu_counter_read(s, temu_idx_bgp(&m, r, l, TEMU_BGP_CHUNKS));
        }
        ck_assert_uint_gt(want, 0);
        ck_assert_uint_eq(temu_link_read(s, r, l, TEMU_LINK_TRAFFIC), want);
        ck_assert_uint_eq(temu_link_read(s, r, l, TEMU_LINK_STALL), 0); /* no timing model */
    }
    ck_assert_uint_eq(temu_link_read(s, -1, 0, TEMU_LINK_TRAFFIC), 0);
    ck_assert_uint_eq(temu_link_read(s, 0, m.nlinks, TEMU_LINK_TRAFFIC), 0);
    temu_session_close(s);
}
END_TEST

/* The stall counters are valid and distinct; one set per router (Gemini
 * tiles) or node. */
START_TEST(test_stall_counters)
{
    temu_machine m = test_machine(sample[_i]);
    int64_t n = temu_stall_counters(&m, NULL);
    int64_t *idx = calloc((size_t)n, sizeof *idx);
    uint64_t total = temu_machine_counter_count(&m);
    unsigned char *seen = calloc(total, 1);
    static const int64_t per[] = {TEMU_GEMINI_TILES * 2, 6 * 4, 10 * TEMU_BGQ_VCS + 2};
    ck_assert_ptr_nonnull(idx);
    ck_assert_ptr_nonnull(seen);
    ck_assert_int_eq(temu_stall_counters(&m, idx), n);
    ck_assert_int_eq(n, per[_i] * (_i == 0 ? m.nrouters : m.nnodes));
    for (int64_t i = 0; i < n; i++) {
        ck_assert_int_ge(idx[i], 0);
        ck_assert_int_lt(idx[i], (int64_t)total);
        ck_assert_int_eq(seen[idx[i]], 0);
        seen[idx[i]] = 1;
    }
    free(idx);
    free(seen);
}
END_TEST

/* A machine no family describes gets no store (its counter placement and
 * packetizer are the family's): a clear refusal, no empty store. */
START_TEST(test_unknown_system_refused)
{
    temu_machine m = test_machine("bgq:2x2x2x2x2");
    temu_session *s = NULL;
    temu_error err;
    char path[256];
    m.system = 7;
    ck_assert_int_eq(temu_session_create_private(&m, &s, &err), TEMU_EINVAL);
    ck_assert_ptr_null(s);
    ck_assert_msg(strstr(err.message, "system 7") != NULL, "%s", err.message);
    test_store_path(path, sizeof path, "family");
    unlink(path);
    ck_assert_int_eq(temu_session_create(path, &m, NULL, &s, &err), TEMU_EINVAL);
    ck_assert_ptr_null(s);
    ck_assert_msg(strstr(err.message, "system 7") != NULL, "%s", err.message);
    ck_assert_int_eq(access(path, F_OK), -1); /* nothing left behind */
    ck_assert_int_eq(errno, ENOENT);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("family");
    TCase *tc = tcase_create("core");
    tcase_add_loop_test(tc, test_lookup, 0, 3);
    tcase_add_loop_test(tc, test_timing_values, 0, 3);
    tcase_add_loop_test(tc, test_timing_figures, 0, 3);
    tcase_add_loop_test(tc, test_packet_format, 0, 3);
    tcase_add_test(tc, test_clocks);
    tcase_add_loop_test(tc, test_link_read, 0, 3);
    tcase_add_loop_test(tc, test_stall_counters, 0, 3);
    tcase_add_test(tc, test_unknown_system_refused);
    suite_add_tcase(s, tc);
    return test_run(s);
}
