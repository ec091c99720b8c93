/*
 * test_timing.c - the packet timing model against hand-computed figures.
 *
 * The machines are BG/P tori (one node per router) with a round
 * configuration: every link and node channel 1 GB/s (1000 ps per byte),
 * so a packet of b bytes serializes in exactly 1000*b ps.
 */
#include "timingutil.h"

#include <stdint.h>

static void send(temu_tm *t, int64_t when, int64_t src, int64_t dst, uint32_t bytes, uint64_t tag)
{
    tm_send(t, when, src, dst, bytes, 0, tag);
}

/* One packet on an idle path: injection serialization, then each of the
 * h+1 routers adds router_ps and each of the h links wire_ps; ejection
 * serializes again but overlaps the arriving tail (cut-through), so
 *   latency = S + (h+1)*R + h*W,   S = 100 bytes * 1000 ps = 100000. */
START_TEST(test_idle_latency_exact)
{
    temu_machine m = test_machine("bgp:8x4x4");
    temu_tm_config c = round_config();
    got g;
    temu_tm *t = make(&m, &c, &g);
    send(t, 5000, node(&m, 0, 0, 0), node(&m, 3, 1, 0), 100, 0); /* 4 hops */
    send(t, 7000, node(&m, 2, 2, 2), node(&m, 2, 2, 2), 100, 1); /* same router */
    temu_tm_run(t, INT64_MAX);
    ck_assert_int_eq(g.n, 2);
    ck_assert_int_eq(g.delivered[0] - g.created[0], 100000 + 5 * 20000 + 4 * 3000);
    ck_assert_int_eq(g.delivered[1] - g.created[1], 100000 + 1 * 20000);
    ck_assert_uint_eq(temu_tm_pending(t), 0);
    temu_tm_destroy(t);
}
END_TEST

/* VC turnaround (turn_ps = T): a router input queue routes its next head
 * and allocates it a VC only once the train ahead has left.  A lone flow
 * of 8 packets, all created at 0, from (0,0,0) to (3,0,0): its packets
 * leave the source queue every S = 100000 ps and arrive at router x=1 S
 * apart, where packet k may leave T after packet k-1 has left, so from
 * there on they are S + T apart (the routers after it see them arrive
 * at exactly that spacing and add nothing).  The first packet meets no
 * predecessor: its latency is the idle one, S + 4R + 3W.  T = 0: S apart,
 * as without the turnaround. */
START_TEST(test_vc_turnaround_exact)
{
    temu_machine m = test_machine("bgp:8x4x4");
    for (int64_t turn = 0; turn <= 50000; turn += 50000) {
        temu_tm_config c = round_config();
        got g;
        c.turn_ps = turn;
        temu_tm *t = make(&m, &c, &g);
        for (int i = 0; i < 8; i++) {
            send(t, 0, node(&m, 0, 0, 0), node(&m, 3, 0, 0), 100, (uint64_t)i);
        }
        temu_tm_run(t, INT64_MAX);
        ck_assert_int_eq(g.n, 8);
        ck_assert_int_eq(g.delivered[0], 100000 + 4 * 20000 + 3 * 3000);
        for (int i = 1; i < 8; i++) {
            ck_assert_int_eq(g.delivered[i] - g.delivered[i - 1], 100000 + turn);
        }
        temu_tm_destroy(t);
    }
}
END_TEST

/* The injection port's VCs (inject_vcs): packet 0 from (0,0,0) to
 * (1,0,0), packet 1 from there to (7,0,0) (one hop X-), both created at
 * 0.  Packet 0 leaves the injection input queue at R = 20000 and is read
 * out of it by 120000; packet 1's header reaches the router at S = 100000
 * and is ready at 120000.  On the class's one VC it stands behind packet
 * 0 and waits T more (VC turnaround); with inject_vcs it is on the other
 * VC and leaves at 120000, as with no turnaround: delivered at 120000 +
 * R + W + S = 243000.  Packet 0: S + 2R + W = 143000 either way. */
START_TEST(test_inject_vcs_hide_turnaround)
{
    temu_machine m = test_machine("bgp:8x4x4");
    const int64_t turn = 50000;
    for (uint32_t spread = 0; spread <= 1; spread++) {
        temu_tm_config c = round_config();
        got g;
        c.turn_ps = turn;
        c.inject_vcs = spread;
        temu_tm *t = make(&m, &c, &g);
        send(t, 0, node(&m, 0, 0, 0), node(&m, 1, 0, 0), 100, 0);
        send(t, 0, node(&m, 0, 0, 0), node(&m, 7, 0, 0), 100, 1);
        temu_tm_run(t, INT64_MAX);
        ck_assert_int_eq(g.n, 2);
        ck_assert_int_eq(g.delivered[0], 143000);
        ck_assert_int_eq(g.delivered[1], 243000 + (spread ? 0 : turn));
        temu_tm_destroy(t);
    }
    /* anything else than 0 or 1 is refused, by name */
    temu_tm_config c = round_config();
    temu_tm *t = NULL;
    temu_error err;
    c.inject_vcs = 2;
    ck_assert_int_eq(temu_tm_create(&m, &c, &t, &err), TEMU_EINVAL);
    ck_assert_ptr_nonnull(strstr(err.message, "inject_vcs 2"));
}
END_TEST

/* Two flows share the X+ link from x=1: (0,0,0)->(2,0,0) and
 * (1,0,0)->(3,0,0), 32 packets of 100 bytes each, all created at time 0.
 * Alone, a flow would deliver one packet every S = 100000 ps (its injection
 * channel's rate).  Together they alternate on the shared link, so in the
 * steady state each flow gets a packet through every 2S: half the link. */
START_TEST(test_two_flows_share_a_link)
{
    temu_machine m = test_machine("bgp:8x4x4");
    temu_tm_config c = round_config();
    got g;
    temu_tm *t = make(&m, &c, &g);
    for (int i = 0; i < 16; i++) {
        send(t, 0, node(&m, 0, 0, 0), node(&m, 2, 0, 0), 100, (uint64_t)i);
        send(t, 0, node(&m, 1, 0, 0), node(&m, 3, 0, 0), 100, (uint64_t)(16 + i));
    }
    temu_tm_run(t, INT64_MAX);
    ck_assert_int_eq(g.n, 32);
    for (int i = 4; i < 15; i++) {
        ck_assert_int_eq(g.delivered[i + 1] - g.delivered[i], 200000);
        ck_assert_int_eq(g.delivered[16 + i + 1] - g.delivered[16 + i], 200000);
    }
    /* the shared link was busy exactly 32 x S */
    temu_tm_lane_stats s = lane(t, node(&m, 1, 0, 0), TEMU_LINK_PLUS(0));
    ck_assert_uint_eq(s.packets, 32);
    ck_assert_int_eq(s.busy_ps, 32 * 100000);
    /* the first link of flow A is not shared: 16 packets */
    ck_assert_uint_eq(lane(t, node(&m, 0, 0, 0), TEMU_LINK_PLUS(0)).packets, 16);
    temu_tm_destroy(t);
}
END_TEST

/* A lone flow at full rate, backlogged at its source: nothing competes,
 * so no lane on its path ever stalls, and packets arrive every S. */
START_TEST(test_no_competition_no_stall)
{
    temu_machine m = test_machine("bgp:8x4x4");
    temu_tm_config c = round_config();
    got g;
    temu_tm *t = make(&m, &c, &g);
    for (int i = 0; i < 40 && i < NPK; i++) {
        send(t, 0, node(&m, 0, 0, 0), node(&m, 3, 2, 1), 256, (uint64_t)i);
    }
    temu_tm_run(t, INT64_MAX);
    ck_assert_int_eq(g.n, 40);
    for (int i = 0; i < 39; i++) {
        ck_assert_int_eq(g.delivered[i + 1] - g.delivered[i], 256000);
    }
    for (int64_t r = 0; r < m.nrouters; r++) {
        for (int l = 0; l < 6; l++) {
            temu_tm_lane_stats s = lane(t, r, l);
            ck_assert_int_eq(s.credit_stall_ps, 0);
            ck_assert_int_eq(s.inq_stall_ps, 0);
        }
    }
    ck_assert_uint_eq(lane(t, node(&m, 2, 0, 0), TEMU_LINK_PLUS(0)).packets, 40);
    temu_tm_destroy(t);
}
END_TEST

/* Back-pressure: two flows from x=0 and x=1 converge on node (2,0,0),
 * whose ejection channel drains one packet per S.  The shared X+ link from
 * x=1 into (2,0,0) then runs at the ejection rate; its downstream queue
 * fills (buffer of 2 packets), it waits for credit, and flow A's queue at
 * x=1 waits for the busy link: both stall counters rise upstream of the
 * bottleneck, while a lane the flows never use stays at zero. */
START_TEST(test_back_pressure_stalls_upstream)
{
    temu_machine m = test_machine("bgp:8x4x4");
    temu_tm_config c = round_config();
    got g;
    c.buffer_bytes = 512;
    c.node_gbs = 2.0; /* sources inject at twice the link rate */
    c.max_packet = 256;
    temu_tm *t = make(&m, &c, &g);
    for (int i = 0; i < 24; i++) {
        send(t, 0, node(&m, 0, 0, 0), node(&m, 2, 0, 0), 256, (uint64_t)i);
        send(t, 0, node(&m, 1, 0, 0), node(&m, 2, 0, 0), 256, (uint64_t)(24 + i));
    }
    temu_tm_run(t, INT64_MAX);
    ck_assert_int_eq(g.n, 48);
    /* the ejection channel (2 GB/s) is not the bottleneck: the single link
     * into (2,0,0) is, so the last packet leaves after >= 48 x 256000 ps */
    int64_t last = 0;
    for (int i = 0; i < 48; i++) {
        last = g.delivered[i] > last ? g.delivered[i] : last;
    }
    ck_assert_int_ge(last, 48 * 256000);
    temu_tm_lane_stats a = lane(t, node(&m, 0, 0, 0), TEMU_LINK_PLUS(0));
    ck_assert_int_gt(a.credit_stall_ps, 0); /* x=0 -> x=1 waits for room at x=1 */
    ck_assert_int_gt(a.inq_stall_ps, 0);    /* and flow A's head at x=1 waits  */
    temu_tm_lane_stats idle = lane(t, node(&m, 5, 0, 0), TEMU_LINK_PLUS(0));
    ck_assert_int_eq(idle.packets, 0);
    ck_assert_int_eq(idle.credit_stall_ps, 0);
    ck_assert_int_eq(idle.inq_stall_ps, 0);
    temu_tm_destroy(t);
}
END_TEST

/* A packet waiting to turn from X into Y is an inq stall of the X lane it
 * arrived on (the input queue holding it: seed 000 section V.B, "cycles a
 * packet must wait in a Gemini tile's input queue before it can move to
 * the destination tile's output queue"), not of Y.  A goes (0,0,0) ->
 * (1,1,0): X+ then Y+ at (1,0,0); B goes (1,0,0) -> (1,1,0), Y+ only; one
 * packet each at time 0.  Both leave their first router at the same time
 * t1 (same injection), so B takes (1,0,0)'s Y+ link at t1 and holds it for
 * S = 100000 ps (100 bytes at 1 GB/s, round_config); A is ready there at
 * t1 + W + R (wire 3000 ps, router 20000 ps) and waits until t1 + S:
 * S - W - R = 77000 ps of inq stall on the X+ lane from (0,0,0), nothing
 * on the Y+ lane (its packets eject at once) and no credit stall. */
START_TEST(test_turn_waits_in_the_x_input)
{
    temu_machine m = test_machine("bgp:8x4x4");
    temu_tm_config c = round_config();
    got g;
    temu_tm *t = make(&m, &c, &g);
    send(t, 0, node(&m, 0, 0, 0), node(&m, 1, 1, 0), 100, 0);
    send(t, 0, node(&m, 1, 0, 0), node(&m, 1, 1, 0), 100, 1);
    temu_tm_run(t, INT64_MAX);
    ck_assert_int_eq(g.n, 2);
    temu_tm_lane_stats x = lane(t, node(&m, 0, 0, 0), TEMU_LINK_PLUS(0));
    temu_tm_lane_stats y = lane(t, node(&m, 1, 0, 0), TEMU_LINK_PLUS(1));
    ck_assert_uint_eq(x.packets, 1);
    ck_assert_uint_eq(y.packets, 2);
    ck_assert_int_eq(x.inq_stall_ps, 100000 - 3000 - 20000);
    ck_assert_int_eq(y.inq_stall_ps, 0);
    ck_assert_int_eq(x.credit_stall_ps + y.credit_stall_ps, 0);
    /* A leaves (1,0,0) S after B, over the same last hop: delivered S later */
    ck_assert_int_eq(g.delivered[0] - g.delivered[1], 100000);
    temu_tm_destroy(t);
}
END_TEST

/* Gemini lanes are tiles at their medium's rate: an X cable tile
 * 3.125 Gb/s x 3 lanes / 8 = 1.171875 GB/s,
 * 8 tiles; a 96-byte packet on lane_key 3 uses tile 3 of each link. */
START_TEST(test_gemini_tiles)
{
    temu_machine m = test_machine("gemini:4x4x4");
    temu_tm_config c;
    temu_error err;
    temu_tm *t;
    ck_assert(temu_tm_config_default(&m, &c, &err) == TEMU_OK);
    ck_assert(temu_tm_create(&m, &c, &t, &err) == TEMU_OK);
    ck_assert_int_eq(temu_tm_lanes(t, 0, TEMU_LINK_PLUS(0)), 8);
    ck_assert_int_eq(temu_tm_lanes(t, 0, TEMU_LINK_PLUS(1)), 4);
    ck_assert(temu_tm_lane_gbs(t, 0, TEMU_LINK_PLUS(0), 0) ==
              temu_medium_tile_bandwidth(TEMU_MEDIUM_CABLE));
    ck_assert(temu_tm_send(t, 0, 0, 2 * 16, 96, 1, 3, 0, &err) ==
              TEMU_OK); /* router 0 -> (1,0,0) */
    temu_tm_run(t, INT64_MAX);
    temu_tm_lane_stats s;
    ck_assert(temu_tm_lane_stats_get(t, 0, TEMU_LINK_PLUS(0), 3, &s, &err) == TEMU_OK);
    ck_assert_uint_eq(s.packets, 1);
    ck_assert_uint_eq(s.bytes, 96);
    /* 96 bytes at 1.171875 GB/s: 96 * 1000 / 1.171875 = 81920 ps */
    ck_assert_int_eq(s.busy_ps, 81920);
    ck_assert(temu_tm_lane_stats_get(t, 0, TEMU_LINK_PLUS(0), 2, &s, &err) == TEMU_OK);
    ck_assert_uint_eq(s.packets, 0);
    temu_tm_destroy(t);
}
END_TEST

/* The link rules a model is built with are the ones given out without a
 * model (temu_link_lanes, temu_tm_link_lane_gbs, temu_tm_ser_ps: the
 * live run's one-message model, mpi/vt_model.c, reads them): lane for
 * lane on every machine and on a uniform link_gbs; serialization rounds
 * up, but not an exact product. */
START_TEST(test_link_rules_shared)
{
    const char *specs[] = {"gemini:4x4x4", "bgp:4x4x4", "bgq:2x2x2x2x2"};
    for (int i = 0; i < 3; i++) {
        temu_machine m = test_machine(specs[i]);
        temu_tm_config c;
        temu_error err;
        temu_tm *t;
        ck_assert(temu_tm_config_default(&m, &c, &err) == TEMU_OK);
        for (int uniform = 0; uniform < 2; uniform++) {
            c.link_gbs = uniform ? 1.5 : 0;
            ck_assert(temu_tm_create(&m, &c, &t, &err) == TEMU_OK);
            for (int64_t r = 0; r < m.nrouters; r++) {
                for (int l = 0; l < 2 * m.ndims; l++) {
                    int lanes = temu_tm_lanes(t, r, l);
                    ck_assert_int_eq(
                        lanes, temu_link_neighbor(&m, r, l) >= 0 ? temu_link_lanes(&m, l) : 0);
                    for (int k = 0; k < lanes; k++) {
                        ck_assert(temu_tm_lane_gbs(t, r, l, k) ==
                                  1000.0 / (1000.0 / temu_tm_link_lane_gbs(&m, &c, r, l)));
                    }
                }
            }
            temu_tm_destroy(t);
        }
    }
    /* 544 bytes at 2 GB/s: exactly 272,000 ps; 96 bytes at 1.171875 GB/s:
     * 81,920 ps (test_gemini_tiles); 1 byte at 3 GB/s: 333.3 -> 334 ps */
    ck_assert_int_eq(temu_tm_ser_ps(2.0, 544), 272000);
    ck_assert_int_eq(temu_tm_ser_ps(temu_medium_tile_bandwidth(TEMU_MEDIUM_CABLE), 96), 81920);
    ck_assert_int_eq(temu_tm_ser_ps(3.0, 1), 334);
}
END_TEST

/* Tokens and the bubble rule (Blue Gene): a packet entering a ring needs
 * room for itself and one more maximal packet, so with a buffer of exactly
 * two packets a lone flow must wait, at its first hop, until the queue
 * ahead is empty again: the previous packet's header takes W to arrive, R
 * to be routed, S to leave, and its tokens C to come back.  Deliveries are
 * S + W + R + C apart.  With credits (no bubble) the same buffer keeps the
 * flow at line rate, one packet every S. */
START_TEST(test_bubble_rule_exact)
{
    temu_machine m = test_machine("bgp:8x4x4");
    temu_tm_config c = round_config();
    got g;
    c.buffer_bytes = 512;
    c.max_packet = 256;
    for (int flow = 0; flow < 2; flow++) {
        c.flow = flow == 0 ? TEMU_TM_TOKEN : TEMU_TM_CREDIT;
        temu_tm *t = make(&m, &c, &g);
        for (int i = 0; i < 12; i++) {
            send(t, 0, node(&m, 0, 0, 0), node(&m, 2, 0, 0), 256, (uint64_t)i);
        }
        temu_tm_run(t, INT64_MAX);
        ck_assert_int_eq(g.n, 12);
        for (int i = 2; i < 11; i++) {
            ck_assert_int_eq(g.delivered[i + 1] - g.delivered[i],
                             flow == 0 ? 256000 + 3000 + 20000 + 3000 : 256000);
        }
        temu_tm_destroy(t);
    }
}
END_TEST

/* Deadlock freedom: every node sends 16 packets at once to the node 3 hops
 * further along X, Y and Z (tornado on rings of 6 and 8, where every ring is
 * full), with each machine's own flow control and buffers.  A deadlocked
 * network stops with packets pending; all must arrive. */
START_TEST(test_heavy_load_drains)
{
    const char *specs[] = {"bgp:8x8x6", "bgq:6x4x4x4x2", "gemini:8x6x6"};
    for (int s = 0; s < 3; s++) {
        temu_machine m = test_machine(specs[s]);
        temu_tm_config c;
        temu_error err;
        temu_tm *t;
        ck_assert(temu_tm_config_default(&m, &c, &err) == TEMU_OK);
        ck_assert(temu_tm_create(&m, &c, &t, &err) == TEMU_OK);
        for (int64_t n = 0; n < m.nnodes; n++) {
            int32_t co[TEMU_MAX_DIMS];
            temu_router_coords(&m, temu_node_router(&m, n), co);
            for (int d = 0; d < 3; d++) {
                co[d] = (co[d] + 3) % m.size[d];
            }
            int64_t dst = temu_router_index(&m, co) * m.nodes_per_router + n % m.nodes_per_router;
            for (int i = 0; i < 16; i++) {
                ck_assert(temu_tm_send(t, 0, n, dst, c.max_packet, (uint32_t)i % c.classes,
                                       (uint32_t)i, 0, &err) == TEMU_OK);
            }
        }
        temu_tm_run(t, INT64_MAX);
        ck_assert(temu_tm_check(t, &err) == TEMU_OK);
        ck_assert_msg(temu_tm_pending(t) == 0, "%s: %llu packets stuck", specs[s],
                      (unsigned long long)temu_tm_pending(t));
        temu_tm_destroy(t);
    }
}
END_TEST

static uint64_t tile_counter(temu_session *s, const temu_machine *m, int64_t router, int tile,
                             int counter)
{
    return temu_counter_read(s, temu_idx_gemini_tile(m, router, tile, counter));
}

/* A message fed to the timing model moves exactly the packets and bytes the
 * volume model counts, on the same tiles: every lane's packets equal the
 * receiving tile's VC0+VC1 packet counter and its bytes 3 x the phits
 * (both directions: requests and the replies on the return route). */
START_TEST(test_message_matches_volume_counters)
{
    temu_machine m = test_machine("gemini:4x4x4");
    const temu_kind kinds[] = {TEMU_KIND_P2P, TEMU_KIND_GET};
    const uint64_t sizes[] = {4096, 100000};
    for (int i = 0; i < 2; i++) {
        temu_session *s;
        temu_tm_config c;
        temu_error err;
        temu_tm *t;
        int32_t dc[3] = {2, 1, 3};
        temu_message msg = {1, temu_router_index(&m, dc) * 2, sizes[i], NULL, kinds[i]};
        uint64_t total = 0;
        ck_assert(temu_session_create_private(&m, &s, &err) == TEMU_OK);
        ck_assert(temu_inject(s, &msg, &err) == TEMU_OK);
        ck_assert(temu_tm_config_default(&m, &c, &err) == TEMU_OK);
        ck_assert(temu_tm_create(&m, &c, &t, &err) == TEMU_OK);
        ck_assert_msg(temu_tm_send_message(t, 0, &m, &msg, &err) == TEMU_OK, "%s", err.message);
        temu_tm_run(t, INT64_MAX);
        ck_assert_uint_eq(temu_tm_pending(t), 0);
        for (int64_t r = 0; r < m.nrouters; r++) {
            for (int l = 0; l < 6; l++) {
                int tiles[8];
                int n = temu_gemini_link_tiles(l, tiles);
                int64_t peer = temu_link_neighbor(&m, r, l);
                ck_assert_int_eq(temu_tm_lanes(t, r, l), n);
                for (int k = 0; k < n; k++) {
                    temu_tm_lane_stats ls;
                    int rt = temu_gemini_peer_tile(tiles[k]);
                    ck_assert(temu_tm_lane_stats_get(t, r, l, k, &ls, &err) == TEMU_OK);
                    ck_assert_uint_eq(ls.packets,
                                      tile_counter(s, &m, peer, rt, TEMU_TILE_VC0_PKTS) +
                                          tile_counter(s, &m, peer, rt, TEMU_TILE_VC1_PKTS));
                    ck_assert_uint_eq(ls.bytes,
                                      3 * (tile_counter(s, &m, peer, rt, TEMU_TILE_VC0_PHITS) +
                                           tile_counter(s, &m, peer, rt, TEMU_TILE_VC1_PHITS)));
                    total += ls.packets;
                }
            }
        }
        ck_assert_uint_gt(total, 100);
        temu_tm_destroy(t);
        temu_session_close(s);
    }
}
END_TEST

/* Stall counters in the store, 800 MHz cycles.  One 64 KiB PUT alone: all
 * 64-byte transactions, nothing competes, every stall counter stays 0.  Add
 * a second PUT from the next Gemini along X to the same destination Gemini:
 * both share X+ out of Gemini (1,0,0), so the first message's packets wait
 * in Gemini 1's X- input tiles - INQ_STALL there, rounded down from the
 * model's picoseconds - while a Gemini off both paths stays at 0. */
START_TEST(test_stall_counters_in_store)
{
    temu_machine m = test_machine("gemini:4x4x4");
    int32_t c0[3] = {0, 0, 0}, c1[3] = {1, 0, 0}, c2[3] = {2, 0, 0}, off[3] = {0, 2, 0};
    for (int both = 0; both < 2; both++) {
        temu_session *s;
        temu_tm_config c;
        temu_error err;
        temu_tm *t;
        temu_message a = {temu_router_index(&m, c0) * 2, temu_router_index(&m, c2) * 2, 65536, NULL,
                          TEMU_KIND_PUT};
        temu_message b = {temu_router_index(&m, c1) * 2, temu_router_index(&m, c2) * 2 + 1, 65536,
                          NULL, TEMU_KIND_PUT};
        uint64_t inq = 0, stall_elsewhere = 0, any = 0;
        int64_t want = 0;
        ck_assert(temu_session_create_private(&m, &s, &err) == TEMU_OK);
        ck_assert(temu_tm_config_default(&m, &c, &err) == TEMU_OK);
        ck_assert(temu_tm_create(&m, &c, &t, &err) == TEMU_OK);
        ck_assert(temu_tm_send_message(t, 0, &m, &a, &err) == TEMU_OK);
        if (both) {
            ck_assert(temu_tm_send_message(t, 0, &m, &b, &err) == TEMU_OK);
        }
        temu_tm_run(t, INT64_MAX);
        ck_assert(temu_tm_add_stall_counters(t, s, &err) == TEMU_OK);
        int tiles[8];
        int n = temu_gemini_link_tiles(TEMU_LINK_PLUS(0), tiles);
        for (int k = 0; k < n; k++) {
            temu_tm_lane_stats ls;
            ck_assert(temu_tm_lane_stats_get(t, temu_router_index(&m, c0), TEMU_LINK_PLUS(0), k,
                                             &ls, &err) == TEMU_OK);
            want += ls.inq_stall_ps / 1250;
            inq += tile_counter(s, &m, temu_router_index(&m, c1), temu_gemini_peer_tile(tiles[k]),
                                TEMU_TILE_INQ_STALL);
        }
        for (int tile = 0; tile < 48; tile++) {
            stall_elsewhere +=
                tile_counter(s, &m, temu_router_index(&m, off), tile, TEMU_TILE_INQ_STALL) +
                tile_counter(s, &m, temu_router_index(&m, off), tile, TEMU_TILE_CREDIT_STALL);
            for (int64_t r = 0; r < m.nrouters; r++) {
                any += tile_counter(s, &m, r, tile, TEMU_TILE_INQ_STALL) +
                       tile_counter(s, &m, r, tile, TEMU_TILE_CREDIT_STALL);
            }
        }
        ck_assert_uint_eq(inq, (uint64_t)want);
        ck_assert_uint_eq(stall_elsewhere, 0);
        if (both) {
            ck_assert_uint_gt(inq, 0);
        } else {
            ck_assert_uint_eq(any, 0);
        }
        temu_tm_destroy(t);
        temu_session_close(s);
    }
}
END_TEST

/* Host tile inq stall of node n, slot k (ps). */
static int64_t host_inq(const temu_tm *t, int64_t n, int k)
{
    int64_t ps;
    temu_error err;
    ck_assert_msg(temu_tm_host_inq_stall(t, n, k, &ps, &err) == TEMU_OK, "%s", err.message);
    return ps;
}

/* Every host tile input stall of the machine, in the store (cycles). */
static uint64_t host_inq_cycles(temu_session *s, const temu_machine *m)
{
    int tiles[8];
    uint64_t sum = 0;
    int n = temu_gemini_link_tiles(6, tiles); /* 6: the host link */
    for (int64_t r = 0; r < m->nrouters; r++) {
        for (int k = 0; k < n; k++) {
            sum += tile_counter(s, m, r, tiles[k], TEMU_TILE_INQ_STALL);
        }
    }
    return sum;
}

/* Host links stall on input when injecting is hard (seed 000 section VI,
 * Fig. 7a): a packet at the head of a node's injection queue (the host
 * tiles' input queues) waits for its output tile.  Gemini defaults: the
 * NIC injects a 96-byte packet in ceil(96000 / 5.2) = 18462 ps, an X
 * cable tile carries it in 96000 / 1.171875 = 81920 ps.
 *  - Two nodes of one Gemini, a packet each on slot 3 to the next Gemini
 *    in X+, at time 0: both are ready at once; node 0's goes (lower
 *    queue), node 1's waits the tile's 81920 ps: 65 cycles of 1250 ps on
 *    host tile 28 (slot 3 of tiles 19, 20, 27, 28, ...).
 *  - Four packets of node 0 on slot 3: each after the first is ready
 *    18462 ps after the one before it left and waits out the tile's
 *    81920: 3 x 63458 = 190374 ps (152 cycles).
 *  - Lone messages stall nowhere: one packet, and a 64 KiB PUT whose
 *    packets take the 8 slots in turn (a tile is free again after 81920 ps,
 *    its next packet comes 8 x 18462 = 147696 ps later). */
START_TEST(test_host_tiles_stall_on_input)
{
    temu_machine m = test_machine("gemini:4x4x4");
    int64_t r0 = node(&m, 0, 0, 0), r1 = node(&m, 1, 0, 0), r2 = node(&m, 2, 0, 0);
    for (int sc = 0; sc < 4; sc++) {
        temu_session *s;
        temu_tm_config c;
        temu_error err;
        temu_tm *t;
        temu_message put = {2 * r0, 2 * r2, 65536, NULL, TEMU_KIND_PUT};
        ck_assert(temu_session_create_private(&m, &s, &err) == TEMU_OK);
        ck_assert(temu_tm_config_default(&m, &c, &err) == TEMU_OK);
        ck_assert(temu_tm_create(&m, &c, &t, &err) == TEMU_OK);
        if (sc == 0) {
            ck_assert(temu_tm_send(t, 0, 2 * r0, 2 * r1, 96, 0, 3, 0, &err) == TEMU_OK);
            ck_assert(temu_tm_send(t, 0, 2 * r0 + 1, 2 * r1, 96, 0, 3, 1, &err) == TEMU_OK);
        } else if (sc == 1) {
            ck_assert(temu_tm_send_train(t, 0, 2 * r0, 2 * r1, 96, 4, 0, 3, 0, &err) == TEMU_OK);
        } else if (sc == 2) {
            ck_assert(temu_tm_send(t, 0, 2 * r0, 2 * r1, 96, 0, 3, 0, &err) == TEMU_OK);
        } else {
            ck_assert(temu_tm_send_message(t, 0, &m, &put, &err) == TEMU_OK);
        }
        temu_tm_run(t, INT64_MAX);
        ck_assert(temu_tm_add_stall_counters(t, s, &err) == TEMU_OK);
        if (sc == 0) {
            ck_assert_int_eq(host_inq(t, 2 * r0, 3), 0);
            ck_assert_int_eq(host_inq(t, 2 * r0 + 1, 3), 81920);
            ck_assert_uint_eq(tile_counter(s, &m, r0, 28, TEMU_TILE_INQ_STALL), 65);
            ck_assert_uint_eq(host_inq_cycles(s, &m), 65);
        } else if (sc == 1) {
            ck_assert_int_eq(host_inq(t, 2 * r0, 3), 3 * (81920 - 18462));
            ck_assert_uint_eq(tile_counter(s, &m, r0, 28, TEMU_TILE_INQ_STALL), 152);
            ck_assert_uint_eq(host_inq_cycles(s, &m), 152);
        } else {
            ck_assert_uint_eq(host_inq_cycles(s, &m), 0);
        }
        /* the NIC always takes what arrives: no output stall on host tiles */
        for (int64_t r = 0; r < m.nrouters; r++) {
            ck_assert_uint_eq(tile_counter(s, &m, r, 28, TEMU_TILE_CREDIT_STALL), 0);
        }
        temu_tm_destroy(t);
        temu_session_close(s);
    }
}
END_TEST

/* Queue occupancy of one packet on an idle path: in each input queue from
 * its header's arrival until it has been read out, R + S = 120000 ps. */
START_TEST(test_occupancy_exact)
{
    temu_machine m = test_machine("bgp:8x4x4");
    temu_tm_config c = round_config();
    temu_error err;
    got g;
    temu_tm *t = make(&m, &c, &g);
    send(t, 0, node(&m, 0, 0, 0), node(&m, 3, 1, 0), 100, 0);
    temu_tm_run(t, INT64_MAX);
    int64_t on_path = 0, total = 0;
    for (int64_t r = 0; r < m.nrouters; r++) {
        for (int l = 0; l < 6; l++) {
            int64_t occ;
            ck_assert(temu_tm_lane_occupancy(t, r, l, 0, 0, &occ, &err) == TEMU_OK);
            total += occ;
        }
    }
    for (int x = 0; x < 3; x++) {
        int64_t occ;
        ck_assert(temu_tm_lane_occupancy(t, node(&m, x, 0, 0), TEMU_LINK_PLUS(0), 0, 0, &occ,
                                         &err) == TEMU_OK);
        ck_assert_int_eq(occ, 120000);
        on_path += occ;
    }
    int64_t occ;
    ck_assert(temu_tm_lane_occupancy(t, node(&m, 3, 0, 0), TEMU_LINK_PLUS(1), 0, 0, &occ, &err) ==
              TEMU_OK);
    ck_assert_int_eq(occ, 120000);
    ck_assert_int_eq(total, on_path + occ);
    temu_tm_destroy(t);
}
END_TEST

/* BG/Q receive-FIFO occupancy in the store, packets summed per 500 MHz
 * cycle.  One 100-byte message: one packet of 5 chunks (160 bytes, 80 ns
 * at 2 GB/s) on VC 1, over A+ A+ B+.  On the first two receiving links it
 * waits R = 35 ns and is read out in 80 ns: 115 ns = 57 cycles (rounded
 * down).  On the last it goes to the 20 GB/s ejection channel, which may
 * start only 8 ns before the tail has arrived: 72 + 80 ns = 76 cycles.
 * Every other FIFO counter stays 0. */
START_TEST(test_bgq_fifo_occupancy_in_store)
{
    temu_machine m = test_machine("bgq:4x4x4x4x2");
    temu_session *s;
    temu_tm_config c;
    temu_error err;
    temu_tm *t;
    int32_t c0[5] = {0, 0, 0, 0, 0}, c1[5] = {1, 0, 0, 0, 0}, c2[5] = {2, 0, 0, 0, 0},
            c3[5] = {2, 1, 0, 0, 0};
    temu_message msg = {temu_router_index(&m, c0), temu_router_index(&m, c3), 100, NULL,
                        TEMU_KIND_P2P};
    ck_assert(temu_session_create_private(&m, &s, &err) == TEMU_OK);
    ck_assert(temu_tm_config_default(&m, &c, &err) == TEMU_OK);
    ck_assert(temu_tm_create(&m, &c, &t, &err) == TEMU_OK);
    ck_assert(temu_tm_send_message(t, 0, &m, &msg, &err) == TEMU_OK);
    temu_tm_run(t, INT64_MAX);
    ck_assert(temu_tm_add_stall_counters(t, s, &err) == TEMU_OK);
    int64_t fifo_a1 = temu_idx_bgq_nw(&m, temu_router_index(&m, c1), TEMU_LINK_MINUS(0),
                                      TEMU_BGQ_NW_RECV_FIFO, 1);
    int64_t fifo_a2 = temu_idx_bgq_nw(&m, temu_router_index(&m, c2), TEMU_LINK_MINUS(0),
                                      TEMU_BGQ_NW_RECV_FIFO, 1);
    int64_t fifo_b = temu_idx_bgq_nw(&m, temu_router_index(&m, c3), TEMU_LINK_MINUS(1),
                                     TEMU_BGQ_NW_RECV_FIFO, 1);
    ck_assert_uint_eq(temu_counter_read(s, fifo_a1), 57);
    ck_assert_uint_eq(temu_counter_read(s, fifo_a2), 57);
    ck_assert_uint_eq(temu_counter_read(s, fifo_b), 76);
    uint64_t others = 0;
    for (int64_t n = 0; n < m.nnodes; n++) {
        for (int l = 0; l < TEMU_BGQ_LINKS; l++) {
            for (int vc = 0; vc < TEMU_BGQ_VCS; vc++) {
                int64_t i = temu_idx_bgq_nw(&m, n, l, TEMU_BGQ_NW_RECV_FIFO, vc);
                if (i != fifo_a1 && i != fifo_a2 && i != fifo_b) {
                    others += temu_counter_read(s, i);
                }
            }
        }
    }
    ck_assert_uint_eq(others, 0);
    temu_tm_destroy(t);
    temu_session_close(s);
}
END_TEST

START_TEST(test_bad_input)
{
    temu_machine m = test_machine("bgq:2x2x2x2x2");
    temu_tm_config c;
    temu_error err;
    temu_tm *t;
    ck_assert(temu_tm_config_default(&m, &c, &err) == TEMU_OK);
    c.buffer_bytes = c.max_packet; /* the bubble rule needs two */
    ck_assert_int_eq(temu_tm_create(&m, &c, &t, &err), TEMU_EINVAL);
    ck_assert_ptr_nonnull(strstr(err.message, "bubble"));
    ck_assert(temu_tm_config_default(&m, &c, &err) == TEMU_OK);
    ck_assert(temu_tm_create(&m, &c, &t, &err) == TEMU_OK);
    ck_assert_int_eq(temu_tm_send(t, 0, 0, 32, 10, 0, 0, 0, &err), TEMU_ERANGE);
    ck_assert_int_eq(temu_tm_send(t, 0, 0, 1, 10000, 0, 0, 0, &err), TEMU_EINVAL);
    ck_assert_int_eq(temu_tm_send(t, 0, 0, 1, 10, TEMU_BGQ_VCS, 0, 0, &err), TEMU_EINVAL);
    temu_tm_run(t, 1000);
    ck_assert_int_eq(temu_tm_send(t, 999, 0, 1, 10, 0, 0, 0, &err), TEMU_EINVAL);
    ck_assert_int_eq(temu_tm_lane_stats_get(t, 0, 10, 0, &(temu_tm_lane_stats){0}, &err),
                     TEMU_ERANGE);
    ck_assert_int_eq(temu_tm_lane_occupancy(t, 0, 0, 0, 7, &(int64_t){0}, &err), TEMU_ERANGE);
    temu_tm_destroy(t);
    /* adaptive routing: token flow, Blue Gene, a sane escape VC */
    m = test_machine("bgp:4x4x4");
    ck_assert(temu_tm_config_default(&m, &c, &err) == TEMU_OK);
    ck_assert_uint_eq(c.routing, TEMU_TM_ADAPTIVE);
    c.flow = TEMU_TM_CREDIT;
    ck_assert_int_eq(temu_tm_create(&m, &c, &t, &err), TEMU_EINVAL);
    ck_assert_ptr_nonnull(strstr(err.message, "token flow"));
    ck_assert(temu_tm_config_default(&m, &c, &err) == TEMU_OK);
    c.escape_vc = 1; /* VCD1 is dynamic */
    ck_assert_int_eq(temu_tm_create(&m, &c, &t, &err), TEMU_EINVAL);
    ck_assert_ptr_nonnull(strstr(err.message, "escape_vc 1"));
    c.escape_vc = 2;
    c.dynamic_vcs = 0x10; /* class 4 of 4 */
    ck_assert_int_eq(temu_tm_create(&m, &c, &t, &err), TEMU_EINVAL);
    ck_assert_ptr_nonnull(strstr(err.message, "dynamic_vcs 0x10"));
    c.dynamic_vcs = 0x3;
    c.routing = 7;
    ck_assert_int_eq(temu_tm_create(&m, &c, &t, &err), TEMU_EINVAL);
    ck_assert_ptr_nonnull(strstr(err.message, "unknown routing 7"));
    m = test_machine("gemini:4x4x4");
    ck_assert(temu_tm_config_default(&m, &c, &err) == TEMU_OK);
    ck_assert_uint_eq(c.routing, TEMU_TM_DETERMINISTIC);
    c.flow = TEMU_TM_TOKEN;
    c.buffer_bytes = 2 * c.max_packet;
    c.routing = TEMU_TM_ADAPTIVE;
    c.dynamic_vcs = 1;
    c.escape_vc = 1;
    ck_assert_int_eq(temu_tm_create(&m, &c, &t, &err), TEMU_EINVAL);
    ck_assert_ptr_nonnull(strstr(err.message, "Blue Gene only"));
}
END_TEST

/* Memory grows with the network, not with the sends: a send of 1 GiB
 * (4 Mi packets of 256 bytes) is one record until its injection channel
 * takes its packets one by one.  Alone on a 4-hop path of equal rates a
 * packet k is cut at k S (S = 256000 ps, the injection channel's rate) and
 * delivered at k S + L, L = S + 5 R + 4 W = 368000 ps < 2 S: when packet
 * k is cut, packet k - 1 is still on its way, so at most three records
 * exist at once (the rest of the send, k and k - 1), and by 1000 S the
 * packets k with k S + L <= 1000 S, k = 0..998, have arrived. */
START_TEST(test_send_streams_its_packets)
{
    temu_machine m = test_machine("bgp:8x4x4");
    temu_tm_config c = round_config();
    temu_error err;
    temu_tm *t = make(&m, &c, NULL);
    const uint32_t count = (1u << 30) / 256;
    ck_assert(temu_tm_send_train(t, 0, node(&m, 0, 0, 0), node(&m, 3, 1, 0), 256, count, 0, 0, 0,
                                 &err) == TEMU_OK);
    ck_assert_uint_eq(temu_tm_records(t), 1);
    temu_tm_run(t, 1000 * 256000LL);
    ck_assert_uint_eq(temu_tm_records(t), 3);
    ck_assert_uint_eq(temu_tm_pending(t), count - 999);
    temu_tm_destroy(t);
}
END_TEST

/* A head is woken once, by what it waits for, never by polling.  One
 * packet on an idle 4-hop path: READY in its source queue, in the
 * injection channel's queue and in the 4 torus queues, then DELIVER: 7
 * events.  The space it frees in the 5 queues it leaves comes back while
 * nobody waits for it, and needs no event (it made 5 CREDIT events, 12 in
 * all, before). */
START_TEST(test_idle_credit_needs_no_event)
{
    temu_machine m = test_machine("bgp:8x4x4");
    temu_tm_config c = round_config();
    temu_tm_totals tot;
    temu_tm *t = make(&m, &c, NULL);
    send(t, 0, node(&m, 0, 0, 0), node(&m, 3, 1, 0), 256, 0);
    temu_tm_run(t, INT64_MAX);
    temu_tm_totals_get(t, &tot);
    ck_assert_uint_eq(tot.packet_hops, 4);
    ck_assert_uint_eq(tot.events, 7);
    /* drained, the model's time is when the last space came back
     * upstream, as when each return was an event: the last torus queue's,
     * read out as the packet is delivered (S + 5 R + 4 W, as in
     * test_idle_latency_exact), then credit_ps */
    ck_assert_int_eq(temu_tm_now(t), 256000 + 5 * 20000 + 4 * 3000 + 3000);
    temu_tm_destroy(t);
}
END_TEST

/* Saturated by credit: queues of one packet (256 bytes), 64 packets sent
 * at once on the same 4-hop path, so every hop waits for the space of the
 * packet ahead.  Each packet leaves h + 2 = 6 queues (source, injection,
 * 4 torus: a READY each) and frees the space of h + 1 = 5 of them (at most
 * one CREDIT each: a kept return becomes an event once), starts on h + 2
 * channels (at most one TRY each: a busy channel has at most one pending,
 * and only a start makes it busy again) and is delivered once: at most 18
 * events a packet, 4.5 a packet-hop, however long the heads wait. */
START_TEST(test_saturated_wakes_once)
{
    temu_machine m = test_machine("bgp:8x4x4");
    temu_tm_config c = round_config();
    temu_tm_totals tot;
    c.buffer_bytes = 256;
    temu_tm *t = make(&m, &c, NULL);
    for (uint64_t i = 0; i < 64; i++) {
        send(t, 0, node(&m, 0, 0, 0), node(&m, 3, 1, 0), 256, i);
    }
    temu_tm_run(t, INT64_MAX);
    temu_tm_totals_get(t, &tot);
    ck_assert_uint_eq(temu_tm_pending(t), 0);
    ck_assert_uint_eq(tot.packet_hops, 64 * 4);
    ck_assert_uint_le(tot.events, 64 * 18);
    temu_tm_destroy(t);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("timing");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, test_idle_latency_exact);
    tcase_add_test(tc, test_vc_turnaround_exact);
    tcase_add_test(tc, test_inject_vcs_hide_turnaround);
    tcase_add_test(tc, test_two_flows_share_a_link);
    tcase_add_test(tc, test_no_competition_no_stall);
    tcase_add_test(tc, test_back_pressure_stalls_upstream);
    tcase_add_test(tc, test_turn_waits_in_the_x_input);
    tcase_add_test(tc, test_gemini_tiles);
    tcase_add_test(tc, test_link_rules_shared);
    tcase_add_test(tc, test_bubble_rule_exact);
    tcase_add_test(tc, test_heavy_load_drains);
    tcase_add_test(tc, test_message_matches_volume_counters);
    tcase_add_test(tc, test_stall_counters_in_store);
    tcase_add_test(tc, test_host_tiles_stall_on_input);
    tcase_add_test(tc, test_occupancy_exact);
    tcase_add_test(tc, test_bgq_fifo_occupancy_in_store);
    tcase_add_test(tc, test_bad_input);
    tcase_add_test(tc, test_send_streams_its_packets);
    tcase_add_test(tc, test_idle_credit_needs_no_event);
    tcase_add_test(tc, test_saturated_wakes_once);
    suite_add_tcase(s, tc);
    return test_run(s);
}
