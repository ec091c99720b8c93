/*
 * test_inject.c - where injected traffic lands in the store, asserted
 * exactly on every tile / link of the request and return routes.
 */
#include "testutil.h"

static temu_session *private_store(const char *spec)
{
    temu_machine m = test_machine(spec);
    temu_session *s;
    temu_error err;
    ck_assert_int_eq(temu_session_create_private(&m, &s, &err), TEMU_OK);
    return s;
}

static void inject(temu_session *s, int64_t src, int64_t dst, uint64_t bytes, const void *p,
                   temu_kind kind)
{
    temu_message msg = {src, dst, bytes, p, kind};
    temu_error err;
    ck_assert_int_eq(temu_inject(s, &msg, &err), TEMU_OK);
}

static int64_t gnode(const temu_machine *m, int x, int y, int z, int k)
{
    int32_t c[3] = {x, y, z};
    return temu_router_index(m, c) * 2 + k;
}

static uint64_t tile(const temu_session *s, int x, int y, int z, int t, int counter)
{
    const temu_machine *m = temu_session_machine(s);
    int32_t c[3] = {x, y, z};
    return temu_counter_read(s, temu_idx_gemini_tile(m, temu_router_index(m, c), t, counter));
}

static uint64_t sum_all_tiles(const temu_session *s, int counter)
{
    const temu_machine *m = temu_session_machine(s);
    uint64_t sum = 0;
    for (int64_t r = 0; r < m->nrouters; r++) {
        for (int t = 0; t < 48; t++) {
            sum += temu_counter_read(s, temu_idx_gemini_tile(m, r, t, counter));
        }
    }
    return sum;
}

/* Issue example: a 1 MiB PUT between Geminis three X hops apart.  16384
 * transactions, slot base (0 + 24) mod 8 = 0, so each of the 8 tiles of a
 * link carries 2048 of them.  Requests (32 phits, VC0) arrive on the X-
 * tiles of Geminis 1, 2, 3; responses (3 phits, VC1) come back on the X+
 * tiles of Geminis 2, 1, 0; host tiles count the injections. */
static void check_put_1mib(const unsigned char *payload, uint64_t req_phits_per_tx)
{
    temu_session *s = private_store("gemini:8x2x2");
    const temu_machine *m = temu_session_machine(s);
    int64_t dst = gnode(m, 3, 0, 0, 0);
    ck_assert_int_eq(dst, 24);
    inject(s, 0, dst, 1 << 20, payload, TEMU_KIND_PUT);
    int xm[8], xp[8], hh[8];
    temu_gemini_link_tiles(TEMU_LINK_MINUS(0), xm);
    temu_gemini_link_tiles(TEMU_LINK_PLUS(0), xp);
    temu_gemini_link_tiles(6, hh);
    for (int i = 0; i < 8; i++) {
        for (int x = 1; x <= 3; x++) {
            ck_assert_uint_eq(tile(s, x, 0, 0, xm[i], TEMU_TILE_VC0_PHITS),
                              2048 * req_phits_per_tx);
            ck_assert_uint_eq(tile(s, x, 0, 0, xm[i], TEMU_TILE_VC0_PKTS), 2048);
            ck_assert_uint_eq(tile(s, x, 0, 0, xm[i], TEMU_TILE_VC1_PKTS), 0);
        }
        for (int x = 0; x <= 2; x++) {
            ck_assert_uint_eq(tile(s, x, 0, 0, xp[i], TEMU_TILE_VC1_PHITS), 2048 * 3);
            ck_assert_uint_eq(tile(s, x, 0, 0, xp[i], TEMU_TILE_VC1_PKTS), 2048);
            ck_assert_uint_eq(tile(s, x, 0, 0, xp[i], TEMU_TILE_VC0_PKTS), 0);
        }
        ck_assert_uint_eq(tile(s, 0, 0, 0, hh[i], TEMU_TILE_VC0_PHITS), 2048 * req_phits_per_tx);
        ck_assert_uint_eq(tile(s, 3, 0, 0, hh[i], TEMU_TILE_VC1_PHITS), 2048 * 3);
    }
    /* nothing anywhere else: totals equal 4 links x 8 tiles of the above */
    ck_assert_uint_eq(sum_all_tiles(s, TEMU_TILE_VC0_PHITS), 4 * 16384 * req_phits_per_tx);
    ck_assert_uint_eq(sum_all_tiles(s, TEMU_TILE_VC1_PHITS), 4 * 16384 * 3);
    ck_assert_uint_eq(sum_all_tiles(s, TEMU_TILE_VC0_PKTS), 4 * 16384);
    ck_assert_uint_eq(sum_all_tiles(s, TEMU_TILE_VC1_PKTS), 4 * 16384);
    ck_assert_uint_eq(sum_all_tiles(s, TEMU_TILE_INQ_STALL), 0);
    ck_assert_uint_eq(sum_all_tiles(s, TEMU_TILE_CREDIT_STALL), 0);
    /* NIC counters of the two nodes */
    ck_assert_uint_eq(temu_counter_read(s, temu_idx_gemini_nic(m, 0, TEMU_NIC_ORB_VC0_PKTS)),
                      16384);
    ck_assert_uint_eq(
        temu_counter_read(s, temu_idx_gemini_nic(m, dst, TEMU_NIC_RAT_DATA_FLITS_VC0)), 65536);
    temu_session_close(s);
}

START_TEST(test_gemini_put_three_x_hops)
{
    unsigned char *rnd = malloc(1 << 20);
    uint64_t x = 7;
    for (int i = 0; i < (1 << 20); i++) {
        x = x * 6364136223846793005ull + 1;
        rnd[i] = (unsigned char)(x >> 56);
    }
    check_put_1mib(rnd, 32);
    check_put_1mib(NULL, 32); /* no payload given: no compression */
    memset(rnd, 0, 1 << 20);
    check_put_1mib(rnd, 8); /* zeroed: header phits only */
    free(rnd);
}
END_TEST

START_TEST(test_gemini_y_link_four_tiles)
{
    /* 16 PUTs over one Y hop; base (0 + 4) mod 8 = 4; a Y link has 4
     * tiles, so position (4 + k) mod 4 = k mod 4 takes slots k and k+4:
     * 4 transactions x 32 phits per Y- tile of (0,1,0); the 8 host tiles
     * of (0,0,0) take 2 transactions each. */
    temu_session *s = private_store("gemini:2x4x2");
    const temu_machine *m = temu_session_machine(s);
    int64_t dst = gnode(m, 0, 1, 0, 0);
    ck_assert_int_eq(dst, 4);
    inject(s, 0, dst, 16 * 64, NULL, TEMU_KIND_PUT);
    int ym[4] = {34, 40, 41, 42};
    for (int i = 0; i < 4; i++) {
        ck_assert_uint_eq(tile(s, 0, 1, 0, ym[i], TEMU_TILE_VC0_PHITS), 128);
        ck_assert_uint_eq(tile(s, 0, 1, 0, ym[i], TEMU_TILE_VC0_PKTS), 4);
    }
    int hh[8];
    temu_gemini_link_tiles(6, hh);
    for (int i = 0; i < 8; i++) {
        ck_assert_uint_eq(tile(s, 0, 0, 0, hh[i], TEMU_TILE_VC0_PHITS), 64);
    }
    temu_session_close(s);
}
END_TEST

START_TEST(test_gemini_single_transaction_position)
{
    /* one 64 B PUT from node 1 to node 9: base = 10 mod 8 = 2, so the
     * request lands on the third X- tile of Gemini (1,0,0) (tile 12) and
     * the 3-phit response on the third X+ tile of Gemini (0,0,0) (tile 10) */
    temu_session *s = private_store("gemini:4x2x2");
    inject(s, 1, 9, 64, NULL, TEMU_KIND_PUT);
    ck_assert_uint_eq(tile(s, 1, 0, 0, 12, TEMU_TILE_VC0_PHITS), 32);
    ck_assert_uint_eq(tile(s, 1, 0, 0, 12, TEMU_TILE_VC0_PKTS), 1);
    ck_assert_uint_eq(tile(s, 0, 0, 0, 10, TEMU_TILE_VC1_PHITS), 3);
    ck_assert_uint_eq(tile(s, 0, 0, 0, 27, TEMU_TILE_VC0_PHITS), 32); /* host tile, position 2 */
    ck_assert_uint_eq(sum_all_tiles(s, TEMU_TILE_VC0_PHITS), 64);
    ck_assert_uint_eq(sum_all_tiles(s, TEMU_TILE_VC1_PHITS), 6);
    temu_session_close(s);
}
END_TEST

START_TEST(test_local_and_same_gemini)
{
    temu_session *s = private_store("gemini-tiny");
    const temu_machine *m = temu_session_machine(s);
    inject(s, 5, 5, 4096, NULL, TEMU_KIND_P2P); /* same node: nothing */
    ck_assert_uint_eq(sum_all_tiles(s, TEMU_TILE_VC0_PKTS), 0);
    ck_assert_uint_eq(temu_session_messages(s), 1);
    ck_assert_uint_eq(temu_session_bytes(s), 4096);
    /* two nodes of one Gemini: only its host tiles see the traffic */
    inject(s, 0, 1, 64, NULL, TEMU_KIND_PUT);
    uint64_t host0 = 0, host1 = 0;
    int hh[8];
    temu_gemini_link_tiles(6, hh);
    for (int i = 0; i < 8; i++) {
        host0 += tile(s, 0, 0, 0, hh[i], TEMU_TILE_VC0_PHITS);
        host1 += tile(s, 0, 0, 0, hh[i], TEMU_TILE_VC1_PHITS);
    }
    ck_assert_uint_eq(host0, 32);
    ck_assert_uint_eq(host1, 3);
    ck_assert_uint_eq(sum_all_tiles(s, TEMU_TILE_VC0_PHITS), 32);
    ck_assert_uint_eq(temu_counter_read(s, temu_idx_gemini_nic(m, 1, TEMU_NIC_NPT_PKTS)), 1);
    temu_session_close(s);
}
END_TEST

static int64_t qnode(const temu_machine *m, int a, int b, int c, int d, int e)
{
    int32_t v[5] = {a, b, c, d, e};
    return temu_router_index(m, v);
}

static uint64_t nw(const temu_session *s, int64_t node, int link, int kind, int vc)
{
    return temu_counter_read(s, temu_idx_bgq_nw(temu_session_machine(s), node, link, kind, vc));
}

static uint64_t nw_total(const temu_session *s, int kind)
{
    const temu_machine *m = temu_session_machine(s);
    uint64_t sum = 0;
    for (int64_t n = 0; n < m->nnodes; n++)
        for (int l = 0; l < 11; l++)
            for (int vc = 0; vc < 7; vc++) {
                sum += nw(s, n, l, kind, vc);
            }
    return sum;
}

START_TEST(test_bgq_two_hops)
{
    const int esc = TEMU_BGQ_VC_USER_ESCAPE, ap = TEMU_LINK_PLUS(0), am = TEMU_LINK_MINUS(0);
    temu_session *s = private_store("midplane");
    const temu_machine *m = temu_session_machine(s);
    int64_t n0 = qnode(m, 0, 0, 0, 0, 0), n1 = qnode(m, 1, 0, 0, 0, 0);
    int64_t n2 = qnode(m, 2, 0, 0, 0, 0), n3 = qnode(m, 3, 0, 0, 0, 0);
    /* 4096 B eager: 8 packets, 136 chunks on A+ of nodes 0 and 1 (pass-
     * through included); 8 packets received on A- of nodes 1 and 2 */
    inject(s, n0, n2, 4096, NULL, TEMU_KIND_P2P);
    ck_assert_uint_eq(nw(s, n0, ap, TEMU_BGQ_NW_SENT_CHUNKS, esc), 136);
    ck_assert_uint_eq(nw(s, n1, ap, TEMU_BGQ_NW_SENT_CHUNKS, esc), 136);
    ck_assert_uint_eq(nw(s, n1, am, TEMU_BGQ_NW_RECV_PACKETS, esc), 8);
    ck_assert_uint_eq(nw(s, n2, am, TEMU_BGQ_NW_RECV_PACKETS, esc), 8);
    ck_assert_uint_eq(nw_total(s, TEMU_BGQ_NW_SENT_CHUNKS), 2 * 136);
    ck_assert_uint_eq(nw_total(s, TEMU_BGQ_NW_RECV_PACKETS), 2 * 8);
    ck_assert_uint_eq(temu_counter_read(s, temu_idx_bgq_mu(m, n2, TEMU_MU_FIFO_PKT_RCV)), 8);
    ck_assert_uint_eq(temu_counter_read(s, temu_idx_bgq_mu(m, n2, TEMU_MU_PORT0_16B_WRT)), 272);
    ck_assert_uint_eq(temu_counter_read(s, temu_idx_bgq_mu(m, n0, TEMU_MU_PORT0_128B_RD)), 32);
    for (int k = 0; k < 16; k++) { /* 32 lines: 2 L2 hits per slice at each end */
        ck_assert_uint_eq(temu_counter_read(s, temu_idx_bgq_l2(m, n0, k, 0)), 2);
        ck_assert_uint_eq(temu_counter_read(s, temu_idx_bgq_l2(m, n2, k, 0)), 2);
        ck_assert_uint_eq(temu_counter_read(s, temu_idx_bgq_l2(m, n1, k, 0)), 0);
    }
    temu_session_zero(s);
    /* 16 KiB rendezvous: RTS + 32 data packets = 546 chunks, 33 packets;
     * the remote get goes back 2 -> 3 -> 0 (distance 2 ties to +): 3 chunks
     * on A+ of nodes 2 and 3, received on A- of 3 and 0 */
    inject(s, n0, n2, 16384, NULL, TEMU_KIND_P2P);
    ck_assert_uint_eq(nw(s, n0, ap, TEMU_BGQ_NW_SENT_CHUNKS, esc), 546);
    ck_assert_uint_eq(nw(s, n1, ap, TEMU_BGQ_NW_SENT_CHUNKS, esc), 546);
    ck_assert_uint_eq(nw(s, n1, am, TEMU_BGQ_NW_RECV_PACKETS, esc), 33);
    ck_assert_uint_eq(nw(s, n2, am, TEMU_BGQ_NW_RECV_PACKETS, esc), 33);
    ck_assert_uint_eq(nw(s, n2, ap, TEMU_BGQ_NW_SENT_CHUNKS, esc), 3);
    ck_assert_uint_eq(nw(s, n3, ap, TEMU_BGQ_NW_SENT_CHUNKS, esc), 3);
    ck_assert_uint_eq(nw(s, n3, am, TEMU_BGQ_NW_RECV_PACKETS, esc), 1);
    ck_assert_uint_eq(nw(s, n0, am, TEMU_BGQ_NW_RECV_PACKETS, esc), 1);
    ck_assert_uint_eq(nw_total(s, TEMU_BGQ_NW_SENT_CHUNKS), 2 * 546 + 2 * 3);
    ck_assert_uint_eq(nw_total(s, TEMU_BGQ_NW_RECV_PACKETS), 2 * 33 + 2);
    ck_assert_uint_eq(nw_total(s, TEMU_BGQ_NW_RECV_FIFO), 0);
    ck_assert_uint_eq(temu_counter_read(s, temu_idx_bgq_mu(m, n2, TEMU_MU_PUT_PKT_RCV)), 32);
    ck_assert_uint_eq(temu_counter_read(s, temu_idx_bgq_mu(m, n0, TEMU_MU_RGET_PKT_RCV)), 1);
    ck_assert_uint_eq(nw(s, n0, 10, TEMU_BGQ_NW_SENT_CHUNKS, esc), 0); /* I/O link idle */
    temu_session_close(s);
}
END_TEST

START_TEST(test_bgq_hops_times_chunks)
{
    /* total chunks over all links = sum over messages of hops x chunks */
    temu_session *s = private_store("midplane");
    const temu_machine *m = temu_session_machine(s);
    uint64_t want_chunks = 0, want_pkts = 0, x = 99;
    for (int i = 0; i < 300; i++) {
        x = x * 6364136223846793005ull + 1442695040888963407ull;
        int64_t a = (int64_t)((x >> 16) % 512), b = (int64_t)((x >> 40) % 512);
        uint64_t bytes = (x >> 8) % 3000;
        temu_plan p;
        temu_message msg = {a, b, bytes, NULL, TEMU_KIND_P2P};
        temu_error err;
        ck_assert_int_eq(temu_plan_message(m, &msg, &p, &err), TEMU_OK);
        int hops = temu_route_distance(m, a, b);
        want_chunks += (uint64_t)hops * p.chunks[0][TEMU_BGQ_VC_USER_ESCAPE];
        want_pkts += (uint64_t)hops * p.packets[0][TEMU_BGQ_VC_USER_ESCAPE];
        temu_apply_plan(s, &msg, &p);
    }
    ck_assert_uint_eq(nw_total(s, TEMU_BGQ_NW_SENT_CHUNKS), want_chunks);
    ck_assert_uint_eq(nw_total(s, TEMU_BGQ_NW_RECV_PACKETS), want_pkts);
    ck_assert_uint_gt(want_chunks, 0);
    temu_session_close(s);
}
END_TEST

START_TEST(test_bgq_tree)
{
    /* a world collective of 4096 B down a two-edge class-route chain
     * n0 -> n1 -> n2: 8 packets of 512 B, 17 chunks each = 136 chunks on
     * VC4 of A+ at n0 and n1, 8 packets received on A- at n1 and n2; n0
     * injects once (32 lines read: 2 L2 hits per slice), n1 and n2 receive
     * (8 packets into the reception FIFO, 2 hits per slice) */
    const int ap = TEMU_LINK_PLUS(0), am = TEMU_LINK_MINUS(0), w = TEMU_BGQ_VC_COLL_WORLD;
    temu_session *s = private_store("midplane");
    const temu_machine *m = temu_session_machine(s);
    int64_t n0 = qnode(m, 0, 0, 0, 0, 0), n1 = qnode(m, 1, 0, 0, 0, 0);
    int64_t n2 = qnode(m, 2, 0, 0, 0, 0);
    temu_hop edges[2] = {{n0, n1, ap, am}, {n1, n2, ap, am}};
    int64_t inj[1] = {n0}, rcv[2] = {n1, n2};
    temu_error err;
    ck_assert_int_eq(
        temu_inject_tree(s, 4096, TEMU_KIND_COLL_WORLD, edges, 2, inj, 1, rcv, 2, &err), TEMU_OK);
    ck_assert_uint_eq(nw(s, n0, ap, TEMU_BGQ_NW_SENT_CHUNKS, w), 136);
    ck_assert_uint_eq(nw(s, n1, ap, TEMU_BGQ_NW_SENT_CHUNKS, w), 136);
    ck_assert_uint_eq(nw(s, n1, am, TEMU_BGQ_NW_RECV_PACKETS, w), 8);
    ck_assert_uint_eq(nw(s, n2, am, TEMU_BGQ_NW_RECV_PACKETS, w), 8);
    ck_assert_uint_eq(nw_total(s, TEMU_BGQ_NW_SENT_CHUNKS), 2 * 136);
    ck_assert_uint_eq(nw_total(s, TEMU_BGQ_NW_RECV_PACKETS), 2 * 8);
    ck_assert_uint_eq(temu_counter_read(s, temu_idx_bgq_mu(m, n0, TEMU_MU_PORT0_128B_RD)), 32);
    ck_assert_uint_eq(temu_counter_read(s, temu_idx_bgq_mu(m, n1, TEMU_MU_FIFO_PKT_RCV)), 8);
    ck_assert_uint_eq(temu_counter_read(s, temu_idx_bgq_mu(m, n2, TEMU_MU_FIFO_PKT_RCV)), 8);
    ck_assert_uint_eq(temu_counter_read(s, temu_idx_bgq_mu(m, n0, TEMU_MU_FIFO_PKT_RCV)), 0);
    for (int k = 0; k < 16; k++) {
        ck_assert_uint_eq(temu_counter_read(s, temu_idx_bgq_l2(m, n0, k, 0)), 2);
        ck_assert_uint_eq(temu_counter_read(s, temu_idx_bgq_l2(m, n2, k, 0)), 2);
    }
    ck_assert_uint_eq(temu_session_messages(s), 1);
    ck_assert_uint_eq(temu_session_bytes(s), 4096);
    /* every member on one node: nothing at all */
    ck_assert_int_eq(temu_inject_tree(s, 4096, TEMU_KIND_COLL_SUB, edges, 0, inj, 1, rcv, 2, &err),
                     TEMU_OK);
    ck_assert_uint_eq(temu_session_messages(s), 1);
    temu_session_close(s);
    /* other systems have no class routes */
    s = private_store("gemini:2x2x2");
    ck_assert_int_eq(temu_inject_tree(s, 64, TEMU_KIND_COLL_WORLD, edges, 1, inj, 1, rcv, 1, &err),
                     TEMU_EINVAL);
    ck_assert_ptr_nonnull(strstr(err.message, "Blue Gene/Q"));
    temu_session_close(s);
}
END_TEST

START_TEST(test_bgp_counts_and_acks)
{
    temu_session *s = private_store("bgp-midplane");
    const temu_machine *m = temu_session_machine(s);
    int32_t c[3] = {1, 0, 0};
    int64_t dst = temu_router_index(m, c);
    inject(s, 0, dst, 1000, NULL, TEMU_KIND_P2P); /* 5 packets, 34 chunks on X+ */
    int64_t out = temu_idx_bgp(m, 0, TEMU_LINK_PLUS(0), 0);
    int64_t back = temu_idx_bgp(m, dst, TEMU_LINK_MINUS(0), 0);
    ck_assert_uint_eq(temu_counter_read(s, out + TEMU_BGP_PACKETS), 5);
    ck_assert_uint_eq(temu_counter_read(s, out + TEMU_BGP_CHUNKS), 34);
    ck_assert_uint_eq(temu_counter_read(s, out + TEMU_BGP_VCBN_CHUNKS), 34);
    ck_assert_uint_eq(temu_counter_read(s, out + TEMU_BGP_VCD0_CHUNKS), 0);
    ck_assert_uint_eq(temu_counter_read(s, back + TEMU_BGP_TOKEN_ACK_PACKETS), 5);
    ck_assert_uint_eq(temu_counter_read(s, back + TEMU_BGP_ACKS), 5);
    ck_assert_uint_eq(temu_counter_read(s, back + TEMU_BGP_PACKETS), 0);
    temu_session_close(s);
}
END_TEST

START_TEST(test_inject_ranks)
{
    temu_machine m = test_machine("midplane");
    temu_mapping map;
    temu_session *s;
    temu_error err;
    char path[256];
    test_store_path(path, sizeof path, "ranks");
    ck_assert_int_eq(temu_mapping_build(&m, 32, 16, NULL, &map, &err), TEMU_OK);
    ck_assert_int_eq(temu_session_create(path, &m, &map, &s, &err), TEMU_OK);
    temu_mapping_free(&map);
    /* ranks 0 and 15 share node 0: no traffic; 0 -> 16 crosses E+ once */
    ck_assert_int_eq(temu_inject_ranks(s, 0, 15, 100, NULL, TEMU_KIND_P2P, &err), TEMU_OK);
    ck_assert_uint_eq(nw_total(s, TEMU_BGQ_NW_SENT_CHUNKS), 0);
    ck_assert_int_eq(temu_inject_ranks(s, 0, 16, 100, NULL, TEMU_KIND_P2P, &err), TEMU_OK);
    ck_assert_uint_eq(nw(s, 0, TEMU_LINK_PLUS(4), TEMU_BGQ_NW_SENT_CHUNKS, 1), 1 + 4);
    ck_assert_int_eq(temu_inject_ranks(s, 0, 32, 100, NULL, TEMU_KIND_P2P, &err), TEMU_ERANGE);
    ck_assert_ptr_nonnull(strstr(err.message, "ranks 0..31"));
    temu_session_close(s);
    unlink(path);
}
END_TEST

/*
 * temu_inject keeps the counter updates of small messages per thread and
 * replays them (emu/memo.c).  The replay must equal planning each message
 * afresh: the same message fields with different payload addresses (BG/Q L2
 * slices), zeroed or random data (Gemini compression), every kind and
 * sizes around the transaction, eager and memo limits, repeated many
 * times.  Session A through temu_inject, B through temu_plan_message +
 * temu_apply_plan (no memo); every counter must agree.
 */
START_TEST(test_memo_equals_plan)
{
    static const char *specs[] = {"gemini:4x2x2", "gemini:4x2x2,header=0", "bgq:4x2x2x2x2",
                                  "bgp:4x4x4"};
    static const uint64_t sizes[] = {0, 1, 8, 16, 63, 64, 65, 4096};
    static const size_t offsets[] = {0, 1, 127, 128, 1000, 2051, 8192, 8192 + 64, 8300};
    static unsigned char buf[16384];
    uint32_t r = 12345;
    for (size_t i = 8192; i < sizeof buf; i++) { /* zeros, then bytes that never compress */
        r = r * 1103515245u + 12345u;
        buf[i] = (unsigned char)(r >> 16 | 0x10);
    }
    const char *spec = specs[_i];
    temu_session *a = private_store(spec), *b = private_store(spec);
    const temu_machine *m = temu_session_machine(a);
    const int64_t srcs[2] = {0, 1}, dsts[2] = {1, m->nnodes - 1};
    for (int k = 0; k < 4000; k++) {
        r = r * 1103515245u + 12345u;
        uint32_t v = r >> 8;
        size_t off = offsets[v % 9];
        temu_message msg = {srcs[v / 9 % 2], dsts[v / 18 % 2], sizes[v / 36 % 8],
                            v / 288 % 4 == 0 ? NULL : buf + off, (temu_kind)(v / 1152 % 5)};
        temu_plan plan;
        temu_error err;
        ck_assert_int_eq(temu_inject(a, &msg, &err), TEMU_OK);
        ck_assert_int_eq(temu_plan_message(m, &msg, &plan, &err), TEMU_OK);
        temu_apply_plan(b, &msg, &plan);
    }
    ck_assert_uint_eq(temu_session_messages(a), temu_session_messages(b));
    ck_assert_uint_eq(temu_session_bytes(a), temu_session_bytes(b));
    int64_t differ = 0, nonzero = 0;
    for (int64_t i = 0; i < (int64_t)temu_counter_count(a); i++) {
        uint64_t x = temu_counter_read(a, i), y = temu_counter_read(b, i);
        differ += x != y;
        nonzero += x != 0;
    }
    ck_assert_int_eq(differ, 0);
    ck_assert_int_gt(nonzero, 20);
    temu_session_close(a);
    temu_session_close(b);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("inject");
    TCase *tc = tcase_create("inject");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_gemini_put_three_x_hops);
    tcase_add_test(tc, test_gemini_y_link_four_tiles);
    tcase_add_test(tc, test_gemini_single_transaction_position);
    tcase_add_test(tc, test_local_and_same_gemini);
    tcase_add_test(tc, test_bgq_two_hops);
    tcase_add_test(tc, test_bgq_hops_times_chunks);
    tcase_add_test(tc, test_bgq_tree);
    tcase_add_test(tc, test_bgp_counts_and_acks);
    tcase_add_test(tc, test_inject_ranks);
    tcase_add_loop_test(tc, test_memo_equals_plan, 0, 4);
    suite_add_tcase(s, tc);
    return test_run(s);
}
