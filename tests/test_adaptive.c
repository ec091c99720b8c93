/*
 * test_adaptive.c - adaptive (dynamic) routing in the timing model, the
 * Blue Gene way: minimal directions chosen by the tokens free downstream,
 * the escape VC on the deterministic direction as fall-back, and the
 * counters that come from where the packets went.
 *
 * Expected figures are computed by hand in the comments (round
 * configuration: 1 GB/s everywhere, so a packet of b bytes serializes in
 * 1000*b ps) or come from the volume model (temu_inject), which knows
 * nothing of the timing model's routing.
 */
#include "timingutil.h"

#include <stdint.h>

static temu_tm_config machine_config(const temu_machine *m, uint32_t routing)
{
    temu_tm_config c;
    temu_error err;
    ck_assert(temu_tm_config_default(m, &c, &err) == TEMU_OK);
    c.routing = routing;
    return c;
}

static temu_tm_vc_stats vcs(const temu_tm *t, int64_t router, int link, uint32_t vc)
{
    temu_tm_vc_stats s;
    temu_error err;
    ck_assert_msg(temu_tm_lane_vc_stats(t, router, link, 0, vc, &s, &err) == TEMU_OK, "%s",
                  err.message);
    return s;
}

/* Every stall and no-token figure of every lane is exactly 0. */
static void assert_no_stall(const temu_tm *t, const temu_machine *m, uint32_t nvc)
{
    for (int64_t r = 0; r < m->nrouters; r++) {
        for (int l = 0; l < 2 * m->ndims; l++) {
            if (temu_tm_lanes(t, r, l) == 0) {
                continue;
            }
            temu_tm_lane_stats s = lane(t, r, l);
            ck_assert_int_eq(s.credit_stall_ps, 0);
            ck_assert_int_eq(s.inq_stall_ps, 0);
            ck_assert_int_eq(s.no_dynamic_ps, 0);
            for (uint32_t v = 0; v < nvc; v++) {
                ck_assert_int_eq(vcs(t, r, l, v).no_token_ps, 0);
            }
        }
    }
}

/* The round machine (timingutil.h) BG/P-like: tokens, VCD0 and VCD1
 * dynamic, VC 2 the bubble escape. */
static temu_tm_config bgp_round(uint32_t routing)
{
    temu_tm_config c = round_config();
    c.classes = 3;
    c.flow = TEMU_TM_TOKEN;
    c.routing = routing;
    c.dynamic_vcs = 0x3;
    c.escape_vc = 2;
    return c;
}

/*
 * Nothing competes: single packets far apart in time, each over several
 * dimensions, with the machine's own configuration.  Every router finds all
 * productive directions idle with all their tokens, so the adaptive packet
 * takes the deterministic one: the same deliveries to the picosecond, the
 * same packets on every lane, and every stall and no-token figure 0.
 */
START_TEST(test_alone_equals_deterministic)
{
    const char *specs[] = {"bgp:8x8x8", "bgq:4x4x4x4x2"};
    for (int sp = 0; sp < 2; sp++) {
        temu_machine m = test_machine(specs[sp]);
        temu_tm *t[2];
        got g[2];
        for (int a = 0; a < 2; a++) {
            temu_tm_config c = machine_config(&m, a ? TEMU_TM_ADAPTIVE : TEMU_TM_DETERMINISTIC);
            t[a] = make(&m, &c, &g[a]);
            for (int i = 0; i < 12; i++) {
                int64_t src = (i * 37) % m.nnodes, dst = (i * 101 + 7) % m.nnodes;
                tm_send(t[a], (int64_t)i * 20000000, src, dst, 256, 0, (uint64_t)i);
            }
            temu_tm_run(t[a], INT64_MAX);
            ck_assert_int_eq(g[a].n, 12);
        }
        for (int i = 0; i < 12; i++) {
            ck_assert_int_eq(g[1].delivered[i], g[0].delivered[i]);
        }
        for (int64_t r = 0; r < m.nrouters; r++) {
            for (int l = 0; l < 2 * m.ndims; l++) {
                if (temu_tm_lanes(t[0], r, l) > 0) {
                    ck_assert_uint_eq(lane(t[1], r, l).packets, lane(t[0], r, l).packets);
                }
            }
        }
        assert_no_stall(t[1], &m, m.system == TEMU_SYSTEM_BGP ? 4 : TEMU_BGQ_VCS);
        temu_tm_destroy(t[0]);
        temu_tm_destroy(t[1]);
    }
}
END_TEST

/*
 * A whole 64 KiB put along one dimension (one productive direction, no
 * other traffic) through the bridge on BG/P: the store's link counters from
 * the model equal the volume model's -- packets, chunks, token/acks per
 * direction; the chunks split over VCD0 and VCD1 by their tokens, summing to
 * the volume model's VCD0 -- and every no-token counter is 0.
 */
START_TEST(test_alone_counters_bgp)
{
    temu_machine m = test_machine("bgp:8x4x4");
    temu_session *sa, *sv;
    temu_error err;
    temu_tm_config c = machine_config(&m, TEMU_TM_ADAPTIVE);
    temu_tm *t = make(&m, &c, NULL);
    temu_message msg = {node(&m, 1, 2, 3), node(&m, 4, 2, 3), 65536, NULL, TEMU_KIND_PUT};
    uint64_t vcd1 = 0;
    ck_assert(temu_session_create_private(&m, &sa, &err) == TEMU_OK);
    ck_assert(temu_session_create_private(&m, &sv, &err) == TEMU_OK);
    ck_assert(temu_tm_inject_message(t, sa, 0, &msg, &err) == TEMU_OK);
    ck_assert(temu_inject(sv, &msg, &err) == TEMU_OK);
    temu_tm_run(t, INT64_MAX);
    ck_assert_uint_eq(temu_tm_pending(t), 0);
    ck_assert(temu_tm_add_route_counters(t, sa, &err) == TEMU_OK);
    ck_assert(temu_tm_add_stall_counters(t, sa, &err) == TEMU_OK);
    for (int64_t n = 0; n < m.nnodes; n++) {
        for (int l = 0; l < 6; l++) {
#define RD(s, k) temu_counter_read(s, temu_idx_bgp(&m, n, l, k))
            ck_assert_uint_eq(RD(sa, TEMU_BGP_PACKETS), RD(sv, TEMU_BGP_PACKETS));
            ck_assert_uint_eq(RD(sa, TEMU_BGP_CHUNKS), RD(sv, TEMU_BGP_CHUNKS));
            ck_assert_uint_eq(RD(sa, TEMU_BGP_TOKEN_ACK_PACKETS),
                              RD(sv, TEMU_BGP_TOKEN_ACK_PACKETS));
            ck_assert_uint_eq(RD(sa, TEMU_BGP_ACKS), RD(sv, TEMU_BGP_ACKS));
            ck_assert_uint_eq(RD(sa, TEMU_BGP_VCD0_CHUNKS) + RD(sa, TEMU_BGP_VCD1_CHUNKS),
                              RD(sv, TEMU_BGP_VCD0_CHUNKS));
            vcd1 += RD(sa, TEMU_BGP_VCD1_CHUNKS);
            for (int k = TEMU_BGP_NO_TOKENS; k <= TEMU_BGP_NO_VCBP_TOKENS; k++) {
                ck_assert_uint_eq(RD(sa, k), 0);
            }
#undef RD
        }
    }
    /* 3 hops of X+: 274 packets of ceil((16 + 240)/32) = 8 chunks, the last
     * ceil((16 + 16)/32) = 1 (65536 = 273 x 240 + 16) */
    ck_assert_uint_eq(temu_counter_read(sv, temu_idx_bgp(&m, node(&m, 2, 2, 3), TEMU_LINK_PLUS(0),
                                                         TEMU_BGP_CHUNKS)),
                      273 * 8 + 1);
    ck_assert_uint_gt(vcd1, 0); /* both dynamic VCs carried data */
    temu_session_close(sa);
    temu_session_close(sv);
    temu_tm_destroy(t);
}
END_TEST

/*
 * Two flows compete (bgp:8x4x4, round configuration).  Flow B: 20 packets
 * of 100 bytes on the escape class (deterministic), (7,0,0) -> (1,0,0) over
 * X+ X+, created at 0.  Its packet k holds X+ of (0,0,0) during
 * [43000 + k S, 143000 + k S), S = 100000 ps (injection at k S, router
 * 20000, wire 3000, router 20000): busy without a gap until 2043000.
 * Flow A: class 0 (dynamic), (0,0,0) -> (1,1,0), productive X+ and Y+,
 * deterministic order X first.  Packets 0..2, created at 500000 + i S, are
 * ready at (0,0,0) at 520000 + i S, when X+ is busy: each takes Y+ at once,
 * then X+ of (0,1,0), and arrives after S + 3R + 2W = 166000 ps.
 * On Y+ the dynamic VC is the one with more tokens: packet 0 VCD0 (both
 * full, ties to the lower), packet 1 VCD1 (VCD0 lacks packet 0's 100 bytes
 * until 646000: read out at 643000, tokens back 3000 later), packet 2 VCD0
 * again.  Packets 3..5, created at 3000000 + i S when the network is idle,
 * find both directions with all their tokens and take the deterministic
 * one: X+ then Y+ of (1,0,0).
 * Deterministically, packet 0 waits for X+ until B's packet 4 has left at
 * 543000 (it was ready first: first come, first served) and arrives at
 * 689000, 23000 ps later.
 */
START_TEST(test_adaptive_takes_the_free_direction)
{
    temu_machine m = test_machine("bgp:8x4x4");
    const int64_t S = 100000;
    for (int a = 0; a < 2; a++) {
        temu_tm_config c = bgp_round(a ? TEMU_TM_ADAPTIVE : TEMU_TM_DETERMINISTIC);
        got g;
        temu_tm *t = make(&m, &c, &g);
        for (int k = 0; k < 20; k++) {
            tm_send(t, 0, node(&m, 7, 0, 0), node(&m, 1, 0, 0), 100, 2, (uint64_t)(10 + k));
        }
        for (int i = 0; i < 3; i++) {
            tm_send(t, 500000 + i * S, node(&m, 0, 0, 0), node(&m, 1, 1, 0), 100, 0, (uint64_t)i);
            tm_send(t, 3000000 + i * S, node(&m, 0, 0, 0), node(&m, 1, 1, 0), 100, 0,
                    (uint64_t)(3 + i));
        }
        temu_tm_run(t, INT64_MAX);
        ck_assert_int_eq(g.n, 26);
        if (!a) {
            ck_assert_int_eq(g.delivered[0], 689000);
            ck_assert_uint_eq(lane(t, node(&m, 0, 0, 0), TEMU_LINK_PLUS(1)).packets, 0);
            ck_assert_uint_eq(lane(t, node(&m, 1, 0, 0), TEMU_LINK_PLUS(1)).packets, 6);
            temu_tm_destroy(t);
            continue;
        }
        for (int i = 0; i < 3; i++) {
            ck_assert_int_eq(g.delivered[i], 500000 + i * S + 166000);
            ck_assert_int_eq(g.delivered[3 + i], 3000000 + i * S + 166000);
        }
        ck_assert_uint_eq(lane(t, node(&m, 0, 0, 0), TEMU_LINK_PLUS(1)).packets, 3);
        ck_assert_uint_eq(lane(t, node(&m, 0, 1, 0), TEMU_LINK_PLUS(0)).packets, 3);
        ck_assert_uint_eq(lane(t, node(&m, 0, 0, 0), TEMU_LINK_PLUS(0)).packets, 20 + 3);
        ck_assert_uint_eq(lane(t, node(&m, 1, 0, 0), TEMU_LINK_PLUS(1)).packets, 3);
        ck_assert_uint_eq(vcs(t, node(&m, 0, 0, 0), TEMU_LINK_PLUS(1), 0).adaptive_packets, 2);
        ck_assert_uint_eq(vcs(t, node(&m, 0, 0, 0), TEMU_LINK_PLUS(1), 1).adaptive_packets, 1);
        ck_assert_uint_eq(vcs(t, node(&m, 0, 0, 0), TEMU_LINK_PLUS(1), 2).adaptive_packets, 0);
        /* B is deterministic: never counted as adaptive */
        ck_assert_uint_eq(vcs(t, node(&m, 7, 0, 0), TEMU_LINK_PLUS(0), 2).adaptive_packets, 0);
        ck_assert_uint_eq(vcs(t, node(&m, 0, 0, 0), TEMU_LINK_PLUS(0), 0).adaptive_packets +
                              vcs(t, node(&m, 0, 0, 0), TEMU_LINK_PLUS(0), 1).adaptive_packets,
                          3);
        temu_tm_destroy(t);
    }
}
END_TEST

/* Every node sends 24 maximal packets, two thirds in the dynamic class,
 * to the node 3 further in each of the first three dimensions (tornado:
 * every ring full) and to a pseudo-random node, with the smallest buffers
 * the bubble rule allows. */
static temu_tm *saturate(const temu_machine *m, uint32_t dyn_cls, uint32_t esc_cls)
{
    temu_tm_config c = machine_config(m, TEMU_TM_ADAPTIVE);
    temu_tm *t;
    uint64_t lcg = 12345;
    c.buffer_bytes = 2 * c.max_packet;
    t = make(m, &c, NULL);
    for (int64_t n = 0; n < m->nnodes; n++) {
        int32_t co[TEMU_MAX_DIMS];
        temu_router_coords(m, n, co);
        for (int d = 0; d < 3; d++) {
            co[d] = (co[d] + 3) % m->size[d];
        }
        int64_t tornado = temu_router_index(m, co);
        for (int i = 0; i < 24; i++) {
            lcg = lcg * 6364136223846793005ull + 1442695040888963407ull;
            int64_t dst = i % 2 ? tornado : (int64_t)((lcg >> 33) % (uint64_t)m->nnodes);
            tm_send(t, 0, n, dst, c.max_packet, i % 3 ? dyn_cls : esc_cls, 0);
        }
    }
    temu_tm_run(t, INT64_MAX);
    return t;
}

/* Deadlock freedom: the saturated tori drain completely.  The dynamic VCs
 * fill, so adaptive packets fall back to the escape VC on some hops (the
 * escape channel is what keeps the network deadlock-free), and the links
 * saw time with no dynamic tokens. */
START_TEST(test_saturated_drains)
{
    const char *specs[] = {"bgp:8x8x6", "bgq:6x4x4x4x2"};
    const uint32_t esc[] = {2, TEMU_BGQ_VC_USER_ESCAPE};
    for (int sp = 0; sp < 2; sp++) {
        temu_machine m = test_machine(specs[sp]);
        temu_error err;
        temu_tm *t = saturate(&m, 0, esc[sp]);
        uint64_t on_escape = 0, on_dynamic = 0;
        int64_t no_dyn = 0;
        ck_assert(temu_tm_check(t, &err) == TEMU_OK);
        ck_assert_msg(temu_tm_pending(t) == 0, "%s: %llu packets stuck", specs[sp],
                      (unsigned long long)temu_tm_pending(t));
        for (int64_t r = 0; r < m.nrouters; r++) {
            for (int l = 0; l < 2 * m.ndims; l++) {
                if (temu_tm_lanes(t, r, l) > 0) {
                    on_escape += vcs(t, r, l, esc[sp]).adaptive_packets;
                    on_dynamic += vcs(t, r, l, 0).adaptive_packets;
                    no_dyn += lane(t, r, l).no_dynamic_ps;
                }
            }
        }
        ck_assert_uint_gt(on_escape, 0);
        ck_assert_uint_gt(on_dynamic, on_escape);
        ck_assert_int_gt(no_dyn, 0);
        temu_tm_destroy(t);
    }
}
END_TEST

/* BG/P no-token counters in the store: each sending direction's figures in
 * 850 MHz cycles, floor(ps x 850 / 10^6): NO_TOKENS from the time without
 * dynamic tokens, NO_VCD0/VCBN/VCBP_TOKENS from VC 0, 2 and 3.  The
 * saturated torus sees both kinds; nothing is sent on the priority VC. */
START_TEST(test_bgp_no_token_counters)
{
    temu_machine m = test_machine("bgp:8x8x6");
    temu_session *s;
    temu_error err;
    temu_tm *t = saturate(&m, 0, 2);
    uint64_t nodyn = 0, bubble = 0;
    ck_assert(temu_session_create_private(&m, &s, &err) == TEMU_OK);
    ck_assert(temu_tm_add_stall_counters(t, s, &err) == TEMU_OK);
    for (int64_t r = 0; r < m.nrouters; r++) {
        for (int l = 0; l < 6; l++) {
#define CYC(ps) ((uint64_t)(ps)*850u / 1000000u)
#define RD(k) temu_counter_read(s, temu_idx_bgp(&m, r, l, k))
            ck_assert_uint_eq(RD(TEMU_BGP_NO_TOKENS), CYC(lane(t, r, l).no_dynamic_ps));
            ck_assert_uint_eq(RD(TEMU_BGP_NO_VCD0_TOKENS), CYC(vcs(t, r, l, 0).no_token_ps));
            ck_assert_uint_eq(RD(TEMU_BGP_NO_VCBN_TOKENS), CYC(vcs(t, r, l, 2).no_token_ps));
            ck_assert_uint_eq(RD(TEMU_BGP_NO_VCBP_TOKENS), 0);
            nodyn += RD(TEMU_BGP_NO_TOKENS);
            bubble += RD(TEMU_BGP_NO_VCBN_TOKENS);
#undef RD
#undef CYC
        }
    }
    ck_assert_uint_gt(nodyn, 0);
    ck_assert_uint_gt(bubble, 0);
    temu_session_close(s);
    temu_tm_destroy(t);
}
END_TEST

/* The same input twice gives the same result, lane by lane. */
START_TEST(test_repeatable)
{
    temu_machine m = test_machine("bgp:8x8x6");
    temu_tm *a = saturate(&m, 0, 2), *b = saturate(&m, 0, 2);
    ck_assert_int_eq(temu_tm_now(a), temu_tm_now(b));
    for (int64_t r = 0; r < m.nrouters; r++) {
        for (int l = 0; l < 6; l++) {
            temu_tm_lane_stats x = lane(a, r, l), y = lane(b, r, l);
            ck_assert(memcmp(&x, &y, sizeof x) == 0);
            for (uint32_t v = 0; v < 4; v++) {
                temu_tm_vc_stats p = vcs(a, r, l, v), q = vcs(b, r, l, v);
                ck_assert(memcmp(&p, &q, sizeof p) == 0);
            }
        }
    }
    temu_tm_destroy(a);
    temu_tm_destroy(b);
}
END_TEST

/* Packets that arrived at node n over its torus links, all VCs (the
 * PEVT_NW_*_RECV counters: its own packets and those passing through). */
static uint64_t node_packets(temu_session *s, const temu_machine *m, int64_t n, int vc)
{
    uint64_t sum = 0;
    for (int l = 0; l < 2 * m->ndims; l++) {
        for (int v = 0; v < TEMU_BGQ_VCS; v++) {
            if (vc < 0 || v == vc) {
                sum += temu_counter_read(s, temu_idx_bgq_nw(m, n, l, TEMU_BGQ_NW_RECV_PACKETS, v));
            }
        }
    }
    return sum;
}

static uint64_t total_chunks(temu_session *s, const temu_machine *m, int vc)
{
    uint64_t sum = 0;
    for (int64_t n = 0; n < m->nnodes; n++) {
        for (int l = 0; l < 2 * m->ndims; l++) {
            sum += temu_counter_read(s, temu_idx_bgq_nw(m, n, l, TEMU_BGQ_NW_SENT_CHUNKS, vc));
        }
    }
    return sum;
}

/*
 * Seed 003's first FFT all-to-all (emu/pattern.c, pattern fft: grid A x B,
 * row i = ranks i, i + B, ..., each rank sending 16 N^3 / P / A bytes to
 * every other member of its row) on a 128-node BG/Q block, one rank per
 * node: A = 16, B = 8, N = 256, so 131072-byte messages, which PAMI sends
 * on the dynamic VC between nodes that differ in more than one dimension.
 * The messages go in as point-to-point sends, all at time 0.
 * Volume model: every node receives the same number of packets (one value
 * everywhere: the rows are translates of each other).  Timing model with
 * adaptive routing: the per-node counts vary around the mean, and the
 * mean, and the totals per VC class, are the volume model's (every
 * adaptive path is minimal).  With deterministic routing the model's
 * counters equal the volume model's node by node.
 */
START_TEST(test_fft_per_node_variation)
{
    temu_machine m = test_machine("bgq:2x2x4x4x2");
    const int32_t a = 16, b = 8;
    const uint64_t pair = 16ull * 256 * 256 * 256 / 128 / 16;
    ck_assert_int_eq(m.nnodes, a * b);
    ck_assert_uint_eq(pair, 131072);
    temu_session *sv, *s[2];
    temu_error err;
    ck_assert(temu_session_create_private(&m, &sv, &err) == TEMU_OK);
    for (int ad = 0; ad < 2; ad++) {
        temu_tm_config c = machine_config(&m, ad ? TEMU_TM_ADAPTIVE : TEMU_TM_DETERMINISTIC);
        temu_tm *t = make(&m, &c, NULL);
        ck_assert(temu_session_create_private(&m, &s[ad], &err) == TEMU_OK);
        for (int32_t row = 0; row < b; row++) {
            for (int32_t i = 0; i < a; i++) {
                for (int32_t j = 0; j < a; j++) {
                    temu_message msg = {row + i * b, row + j * b, pair, NULL, TEMU_KIND_P2P};
                    if (i == j) {
                        continue;
                    }
                    ck_assert(temu_tm_inject_message(t, s[ad], 0, &msg, &err) == TEMU_OK);
                    if (ad == 0) {
                        ck_assert(temu_inject(sv, &msg, &err) == TEMU_OK);
                    }
                }
            }
        }
        temu_tm_run(t, INT64_MAX);
        ck_assert_uint_eq(temu_tm_pending(t), 0);
        ck_assert(temu_tm_add_route_counters(t, s[ad], &err) == TEMU_OK);
        temu_tm_destroy(t);
    }
    uint64_t first = node_packets(sv, &m, 0, -1), sum_v = 0, sum_a = 0, lo = UINT64_MAX, hi = 0;
    for (int64_t n = 0; n < m.nnodes; n++) {
        uint64_t v = node_packets(sv, &m, n, -1), x = node_packets(s[1], &m, n, -1);
        ck_assert_uint_eq(v, first);                         /* one value everywhere */
        ck_assert_uint_eq(node_packets(s[0], &m, n, -1), v); /* deterministic model */
        for (int vc = 0; vc < TEMU_BGQ_VCS; vc++) {
            ck_assert_uint_eq(node_packets(s[0], &m, n, vc), node_packets(sv, &m, n, vc));
        }
        sum_v += v;
        sum_a += x;
        lo = x < lo ? x : lo;
        hi = x > hi ? x : hi;
    }
    ck_assert_uint_gt(first, 0);
    ck_assert_uint_eq(sum_a, sum_v); /* the mean is the volume model's */
    ck_assert_uint_lt(lo, first);    /* and the nodes vary around it */
    ck_assert_uint_gt(hi, first);
    /* totals: dynamic and escape together as in the volume model, the
     * other VCs untouched */
    ck_assert_uint_eq(total_chunks(s[1], &m, 0) + total_chunks(s[1], &m, 1),
                      total_chunks(sv, &m, 0) + total_chunks(sv, &m, 1));
    ck_assert_uint_gt(total_chunks(sv, &m, 0), 0);
    for (int vc = 2; vc < TEMU_BGQ_VCS; vc++) {
        ck_assert_uint_eq(total_chunks(s[1], &m, vc), total_chunks(sv, &m, vc));
    }
    temu_session_close(sv);
    temu_session_close(s[0]);
    temu_session_close(s[1]);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("adaptive");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_alone_equals_deterministic);
    tcase_add_test(tc, test_alone_counters_bgp);
    tcase_add_test(tc, test_adaptive_takes_the_free_direction);
    tcase_add_test(tc, test_saturated_drains);
    tcase_add_test(tc, test_bgp_no_token_counters);
    tcase_add_test(tc, test_repeatable);
    tcase_add_test(tc, test_fft_per_node_variation);
    suite_add_tcase(s, tc);
    return test_run(s);
}
