/*
 * test_plan.c - packetization, with counts worked out from first principles
 * (doc/model.md gives the rules; each expected number is derived in a
 * comment next to it).
 */
#include "testutil.h"

static temu_plan plan_of(const char *spec, int64_t src, int64_t dst, uint64_t bytes,
                         const void *payload, temu_kind kind)
{
    temu_machine m = test_machine(spec);
    temu_message msg = {src, dst, bytes, payload, kind};
    temu_plan p;
    temu_error err;
    ck_assert_int_eq(temu_plan_message(&m, &msg, &p, &err), TEMU_OK);
    return p;
}

static uint64_t sum_slots(const uint64_t *v)
{
    uint64_t s = 0;
    for (int k = 0; k < TEMU_SLOTS; k++) {
        s += v[k];
    }
    return s;
}

static unsigned char *random_bytes(size_t n, uint64_t seed)
{
    unsigned char *b = malloc(n);
    uint64_t x = seed | 1;
    for (size_t i = 0; i < n; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        b[i] = (unsigned char)(x >> 32);
    }
    return b;
}

/* 1 MiB = 16384 transactions of 64 bytes, 2048 per slot. */
START_TEST(test_gemini_put_1mib_random_and_zero)
{
    size_t n = 1 << 20;
    unsigned char *rnd = random_bytes(n, 42);
    unsigned char *zero = calloc(n, 1);
    temu_plan r = plan_of("gemini-small", 0, 6, n, rnd, TEMU_KIND_PUT);
    temu_plan z = plan_of("gemini-small", 0, 6, n, zero, TEMU_KIND_PUT);
    for (int k = 0; k < TEMU_SLOTS; k++) {
        ck_assert_uint_eq(r.phits[0][0][k], 2048 * 32); /* 32-phit PUT requests on VC0 */
        ck_assert_uint_eq(r.pkts[0][0][k], 2048);
        ck_assert_uint_eq(r.phits[1][1][k], 2048 * 3); /* 3-phit responses on VC1 back */
        ck_assert_uint_eq(r.pkts[1][1][k], 2048);
        ck_assert_uint_eq(r.phits[0][1][k], 0);
        ck_assert_uint_eq(r.phits[1][0][k], 0);
        ck_assert_uint_eq(z.phits[0][0][k], 2048 * 8); /* compressed: header phits only */
        ck_assert_uint_eq(z.phits[1][1][k], 2048 * 3);
    }
    /* a zeroed buffer shows about a third of the phits (Pedretti 2013 V.A): 11/35 */
    uint64_t tr = sum_slots(r.phits[0][0]) + sum_slots(r.phits[1][1]);
    uint64_t tz = sum_slots(z.phits[0][0]) + sum_slots(z.phits[1][1]);
    ck_assert_uint_eq(tr, 16384 * 35);
    ck_assert_uint_eq(tz, 16384 * 11);
    /* NIC: 1 MiB >= 512 KiB goes through the BTE; 16-byte flits + 1 header */
    ck_assert_uint_eq(r.nic[0][TEMU_NIC_ORB_VC0_PKTS], 16384);
    ck_assert_uint_eq(r.nic[0][TEMU_NIC_ORB_VC0_FLITS], 16384 * 5);
    ck_assert_uint_eq(r.nic[0][TEMU_NIC_TARB_BTE_PKTS], 16384);
    ck_assert_uint_eq(r.nic[0][TEMU_NIC_TARB_FMA_PKTS], 0);
    ck_assert_uint_eq(r.nic[0][TEMU_NIC_ORB_VC1_FLITS], 16384);
    ck_assert_uint_eq(r.nic[1][TEMU_NIC_RAT_HEADER_FLITS_VC0], 16384);
    ck_assert_uint_eq(r.nic[1][TEMU_NIC_RAT_DATA_FLITS_VC0], 65536);
    ck_assert_uint_eq(r.nic[1][TEMU_NIC_NPT_PKTS], 16384);
    ck_assert_uint_eq(r.nic[1][TEMU_NIC_TARB_OUT_FLITS], 16384);
    /* half zero, half random: 8192 compressed + 8192 full requests */
    memset(rnd, 0, n / 2);
    temu_plan h = plan_of("gemini-small", 0, 6, n, rnd, TEMU_KIND_PUT);
    ck_assert_uint_eq(sum_slots(h.phits[0][0]), 8192 * 8 + 8192 * 32);
    free(rnd);
    free(zero);
}
END_TEST

START_TEST(test_gemini_eager_sizes)
{
    /* envelope 48 B + data in 64-byte PUTs: request phits 8 + ceil(3p/8) */
    struct {
        uint64_t bytes, vc0_phits, vc0_pkts;
    } c[] = {
        {0, 26, 1},    /* 48 B: 8 + 18 */
        {8, 29, 1},    /* 56 B: 8 + 21 */
        {16, 32, 1},   /* 64 B: one full PUT (Pedretti 2013: 1-16 B single PUT) */
        {32, 46, 2},   /* 80 B: 32 + (8 + 6) (32 B: multiple transactions) */
        {4096, 2074, 65}, /* 4144 B: 64 x 32 + (8 + 18) */
        {8191, 4122, 129}, /* 8239 B: 128 x 32 + (8 + 18) */
    };
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
        temu_plan p = plan_of("gemini-tiny", 0, 3, c[i].bytes, NULL, TEMU_KIND_P2P);
        ck_assert_uint_eq(sum_slots(p.phits[0][0]), c[i].vc0_phits);
        ck_assert_uint_eq(sum_slots(p.pkts[0][0]), c[i].vc0_pkts);
        ck_assert_uint_eq(sum_slots(p.phits[1][1]), 3 * c[i].vc0_pkts);
        ck_assert_uint_eq(sum_slots(p.phits[1][0]), 0);
    }
    /* slots: 65 transactions of 4096 B; slot 0 holds j = 0, 8, ..., 64 */
    temu_plan p = plan_of("gemini-tiny", 0, 3, 4096, NULL, TEMU_KIND_P2P);
    ck_assert_uint_eq(p.phits[0][0][0], 8 * 32 + 26);
    for (int k = 1; k < 8; k++) {
        ck_assert_uint_eq(p.phits[0][0][k], 8 * 32);
    }
    ck_assert_uint_eq(p.gemini_slot_base, 3); /* (0 + 3) mod 8 */
    /* zeroed 4096 B: transaction 0 holds the envelope (never compressed),
     * 63 full data PUTs and the 48-byte tail compress to 8 phits */
    unsigned char *zero = calloc(4096, 1);
    p = plan_of("gemini-tiny", 0, 3, 4096, zero, TEMU_KIND_P2P);
    ck_assert_uint_eq(sum_slots(p.phits[0][0]), 32 + 63 * 8 + 8);
    free(zero);
}
END_TEST

START_TEST(test_gemini_rendezvous_get)
{
    /* 8192 B >= eager limit: RTS PUT (48 B, 26 phits) src->dst; 128 GETs:
     * 8-phit requests dst->src on VC0, 27-phit replies src->dst on VC1;
     * FIN PUT dst->src; each control PUT has a 3-phit ack */
    temu_plan p = plan_of("gemini-tiny", 0, 3, 8192, NULL, TEMU_KIND_P2P);
    ck_assert_uint_eq(sum_slots(p.phits[0][0]), 26);
    ck_assert_uint_eq(sum_slots(p.phits[0][1]), 128 * 27 + 3);
    ck_assert_uint_eq(sum_slots(p.phits[1][0]), 128 * 8 + 26);
    ck_assert_uint_eq(sum_slots(p.phits[1][1]), 3);
    ck_assert_uint_eq(sum_slots(p.pkts[0][1]), 129);
    ck_assert_uint_eq(sum_slots(p.pkts[1][0]), 129);
    /* the destination's NIC issued the GETs */
    ck_assert_uint_eq(p.nic[1][TEMU_NIC_ORB_VC0_PKTS], 128 + 1);
    ck_assert_uint_eq(p.nic[1][TEMU_NIC_ORB_VC1_FLITS], 128 * 5 + 1);
    ck_assert_uint_eq(p.nic[0][TEMU_NIC_NPT_PKTS], 128 + 1);
}
END_TEST

START_TEST(test_gemini_bte_put)
{
    /* 512 KiB: RTS, CTS (dst->src), 8192 BTE PUTs, FIN */
    temu_plan p = plan_of("gemini-tiny", 0, 3, 512 * 1024, NULL, TEMU_KIND_P2P);
    ck_assert_uint_eq(sum_slots(p.phits[0][0]), 26 + 8192 * 32 + 26);
    ck_assert_uint_eq(sum_slots(p.phits[1][1]), 3 + 8192 * 3 + 3);
    ck_assert_uint_eq(sum_slots(p.phits[1][0]), 26);
    ck_assert_uint_eq(sum_slots(p.phits[0][1]), 3);
    ck_assert_uint_eq(p.nic[0][TEMU_NIC_TARB_BTE_PKTS], 8192);
    ck_assert_uint_eq(p.nic[0][TEMU_NIC_TARB_FMA_PKTS], 2); /* RTS and FIN */
}
END_TEST

START_TEST(test_gemini_get_kind)
{
    /* 1000 B GET: 16 transactions, 15 full + 40 B; requests src->dst, data
     * comes back dst->src: 15 x 27 + (3 + 15) phits */
    temu_plan p = plan_of("gemini-tiny", 0, 3, 1000, NULL, TEMU_KIND_GET);
    ck_assert_uint_eq(sum_slots(p.phits[0][0]), 16 * 8);
    ck_assert_uint_eq(sum_slots(p.phits[1][1]), 15 * 27 + 18);
    ck_assert_uint_eq(p.nic[0][TEMU_NIC_ORB_VC1_FLITS], 16 + 15 * 4 + 3); /* headers + data flits */
}
END_TEST

static int64_t bgq_node(const temu_machine *m, int a, int b, int c, int d, int e)
{
    int32_t v[5] = {a, b, c, d, e};
    return temu_router_index(m, v);
}

START_TEST(test_bgq_eager_and_rendezvous)
{
    temu_machine m = test_machine("midplane");
    int64_t s = bgq_node(&m, 0, 0, 0, 0, 0), d = bgq_node(&m, 2, 0, 0, 0, 0);
    const int esc = TEMU_BGQ_VC_USER_ESCAPE;
    /* 4096 B < 4097: eager, 8 packets of 512 B; chunks = 8 headers + 128 */
    temu_plan p = plan_of("midplane", s, d, 4096, NULL, TEMU_KIND_P2P);
    ck_assert_uint_eq(p.chunks[0][esc], 136);
    ck_assert_uint_eq(p.packets[0][esc], 8);
    ck_assert_uint_eq(p.packets[1][esc], 0);
    ck_assert_uint_eq(p.mu[0][TEMU_MU_MSG_INJ], 1);
    ck_assert_uint_eq(p.mu[0][TEMU_MU_PKT_INJ], 7); /* first packet not counted */
    ck_assert_uint_eq(p.mu[1][TEMU_MU_FIFO_PKT_RCV], 8);
    /* 16 KiB: RTS (1 packet, 32 B: 2 chunks) + 32 put packets (32 + 512 chunks)
     * src->dst; a remote get (64-byte descriptor: 3 chunks) dst->src */
    p = plan_of("midplane", s, d, 16384, NULL, TEMU_KIND_P2P);
    ck_assert_uint_eq(p.chunks[0][esc], 2 + 544);
    ck_assert_uint_eq(p.packets[0][esc], 33);
    ck_assert_uint_eq(p.chunks[1][esc], 3);
    ck_assert_uint_eq(p.packets[1][esc], 1);
    ck_assert_uint_eq(p.mu[0][TEMU_MU_MSG_INJ], 2);
    ck_assert_uint_eq(p.mu[0][TEMU_MU_PKT_INJ], 31);
    ck_assert_uint_eq(p.mu[0][TEMU_MU_RGET_PKT_RCV], 1);
    ck_assert_uint_eq(p.mu[1][TEMU_MU_FIFO_PKT_RCV], 1);
    ck_assert_uint_eq(p.mu[1][TEMU_MU_MSG_INJ], 1);
    ck_assert_uint_eq(p.mu[1][TEMU_MU_PUT_PKT_RCV], 32);
    /* 1 MiB across two dimensions: the data is labelled dynamic (VC0) */
    int64_t d2 = bgq_node(&m, 1, 1, 0, 0, 0);
    p = plan_of("midplane", s, d2, 1 << 20, NULL, TEMU_KIND_P2P);
    ck_assert_uint_eq(p.packets[0][TEMU_BGQ_VC_USER_DYNAMIC], 2048);
    ck_assert_uint_eq(p.chunks[0][TEMU_BGQ_VC_USER_DYNAMIC], 2048 + 32768);
    ck_assert_uint_eq(p.packets[0][esc], 1); /* the RTS */
    /* the boundary: exactly 64 KiB across two dimensions is not "larger
     * than 64 KiB" and stays deterministic: RTS + 128 packets of 512 B
     * (128 headers + 2048 payload chunks) on the escape VC */
    p = plan_of("midplane", s, d2, 65536, NULL, TEMU_KIND_P2P);
    ck_assert_uint_eq(p.packets[0][TEMU_BGQ_VC_USER_DYNAMIC], 0);
    ck_assert_uint_eq(p.packets[0][esc], 1 + 128);
    ck_assert_uint_eq(p.chunks[0][esc], 2 + 128 + 2048);
    p = plan_of("midplane", s, d2, 65536, NULL, TEMU_KIND_PUT);
    ck_assert_uint_eq(p.packets[0][TEMU_BGQ_VC_USER_DYNAMIC], 0);
    ck_assert_uint_eq(p.packets[0][esc], 128);
    /* one byte more is dynamic: 128 full packets and one of 1 byte */
    p = plan_of("midplane", s, d2, 65537, NULL, TEMU_KIND_P2P);
    ck_assert_uint_eq(p.packets[0][TEMU_BGQ_VC_USER_DYNAMIC], 129);
    ck_assert_uint_eq(p.chunks[0][TEMU_BGQ_VC_USER_DYNAMIC], 129 + 2048 + 1);
    ck_assert_uint_eq(p.packets[0][esc], 1); /* the RTS */
    /* the same along one dimension stays deterministic */
    p = plan_of("midplane", s, d, 1 << 20, NULL, TEMU_KIND_P2P);
    ck_assert_uint_eq(p.packets[0][TEMU_BGQ_VC_USER_DYNAMIC], 0);
    ck_assert_uint_eq(p.packets[0][esc], 2049);
    /* an empty message is one header-only packet */
    p = plan_of("midplane", s, d, 0, NULL, TEMU_KIND_P2P);
    ck_assert_uint_eq(p.packets[0][esc], 1);
    ck_assert_uint_eq(p.chunks[0][esc], 1);
}
END_TEST

/* An all-to-all block on BG/Q goes by PAMI's many-to-many protocol
 * (doc/model.md, "All-to-all on BG/Q"): memory-FIFO packets, no request to
 * send and no remote get, on the dynamic VC 0 whatever the size and the
 * direction; m2m-routing=deterministic moves them to the escape VC 1.  The
 * other families send the block as a point-to-point message. */
START_TEST(test_bgq_alltoall_m2m)
{
    temu_machine m = test_machine("midplane");
    int64_t s = bgq_node(&m, 0, 0, 0, 0, 0), d = bgq_node(&m, 2, 0, 0, 0, 0);
    const int dyn = TEMU_BGQ_VC_USER_DYNAMIC, esc = TEMU_BGQ_VC_USER_ESCAPE;
    /* 16 KiB = 32 packets of 512 B: 32 x (1 header + 16 payload chunks) =
     * 544 chunks, against 549 by rendezvous (2 RTS + 544 + 3 remote get) */
    temu_plan p = plan_of("midplane", s, d, 16384, NULL, TEMU_KIND_ALLTOALL);
    ck_assert_uint_eq(p.chunks[0][dyn], 544);
    ck_assert_uint_eq(p.packets[0][dyn], 32);
    for (int vc = 0; vc < TEMU_BGQ_VCS; vc++) {
        ck_assert_uint_eq(p.packets[1][vc], 0); /* nothing comes back */
        ck_assert_uint_eq(p.chunks[1][vc], 0);
        if (vc != dyn) {
            ck_assert_uint_eq(p.packets[0][vc], 0);
        }
    }
    ck_assert_uint_eq(p.mu[0][TEMU_MU_MSG_INJ], 1); /* one message, no RTS */
    ck_assert_uint_eq(p.mu[0][TEMU_MU_PKT_INJ], 31);
    ck_assert_uint_eq(p.mu[1][TEMU_MU_FIFO_PKT_RCV], 32);
    ck_assert_uint_eq(p.mu[1][TEMU_MU_PUT_PKT_RCV], 0);
    ck_assert_uint_eq(p.mu[0][TEMU_MU_RGET_PKT_RCV], 0);
    ck_assert_uint_eq(p.mu[1][TEMU_MU_MSG_INJ], 0);
    /* the receiver writes each whole packet into its memory FIFO: 32 x
     * (32 + 512) / 16 = 1088 16-byte writes; the sender reads 128 x 128 B */
    ck_assert_uint_eq(p.mu[1][TEMU_MU_PORT0_16B_WRT], 1088);
    ck_assert_uint_eq(p.mu[0][TEMU_MU_PORT0_128B_RD], 128);
    ck_assert_uint_eq(p.mu[0][TEMU_MU_PORT0_16B_WRT], 0);
    /* small (100 B: 1 header + 4 chunks) and across two dimensions alike */
    p = plan_of("midplane", s, bgq_node(&m, 1, 1, 0, 0, 0), 100, NULL, TEMU_KIND_ALLTOALL);
    ck_assert_uint_eq(p.packets[0][dyn], 1);
    ck_assert_uint_eq(p.chunks[0][dyn], 5);
    ck_assert_uint_eq(p.packets[0][esc], 0);
    /* PAMI_M2M_ROUTING=DETERMINISTIC: the same packets on the escape VC */
    p = plan_of("midplane,m2m-routing=deterministic", s, d, 16384, NULL, TEMU_KIND_ALLTOALL);
    ck_assert_uint_eq(p.chunks[0][esc], 544);
    ck_assert_uint_eq(p.packets[0][esc], 32);
    ck_assert_uint_eq(p.packets[0][dyn], 0);
    ck_assert_uint_eq(p.chunks[1][esc], 0);
    /* BG/P and Gemini: exactly the point-to-point plan */
    static const char *other[] = {"bgp-midplane", "gemini-tiny"};
    for (int i = 0; i < 2; i++) {
        for (uint64_t b = 100; b <= 100000; b *= 10) {
            temu_plan a = plan_of(other[i], 0, 3, b, NULL, TEMU_KIND_ALLTOALL);
            temu_plan q = plan_of(other[i], 0, 3, b, NULL, TEMU_KIND_P2P);
            ck_assert_int_eq(memcmp(&a, &q, sizeof a), 0);
        }
    }
    ck_assert_int_eq(temu_kind_parse("alltoall"), TEMU_KIND_ALLTOALL);
    ck_assert_str_eq(temu_kind_name(TEMU_KIND_ALLTOALL), "alltoall");
    /* the option is BG/Q's and takes only its two values */
    temu_machine x;
    temu_error err;
    ck_assert_int_eq(temu_machine_parse("midplane,m2m-routing=dynamic", &x, &err), TEMU_OK);
    ck_assert_uint_eq(x.protocol.m2m_deterministic, 0);
    ck_assert_int_eq(temu_machine_parse("midplane,m2m-routing=adaptive", &x, &err), TEMU_EINVAL);
    ck_assert_ptr_nonnull(strstr(err.message, "dynamic or deterministic"));
    ck_assert_int_eq(temu_machine_parse("bgp-midplane,m2m-routing=dynamic", &x, &err), TEMU_EINVAL);
    ck_assert_ptr_nonnull(strstr(err.message, "unknown option 'm2m-routing'"));
}
END_TEST

START_TEST(test_bgq_collective_and_rma)
{
    temu_machine m = test_machine("midplane");
    int64_t s = 0, d = bgq_node(&m, 0, 0, 0, 1, 0);
    temu_plan p = plan_of("midplane", s, d, 100, NULL, TEMU_KIND_COLL_WORLD);
    ck_assert_uint_eq(p.packets[0][TEMU_BGQ_VC_COLL_WORLD], 1);
    ck_assert_uint_eq(p.chunks[0][TEMU_BGQ_VC_COLL_WORLD], 1 + 4);
    p = plan_of("midplane", s, d, 8192, NULL, TEMU_KIND_COLL_SUB);
    ck_assert_uint_eq(p.packets[0][TEMU_BGQ_VC_COLL_SUBCOMM], 16); /* no rendezvous */
    p = plan_of("midplane", s, d, 513, NULL, TEMU_KIND_PUT);
    ck_assert_uint_eq(p.packets[0][TEMU_BGQ_VC_USER_ESCAPE], 2);
    ck_assert_uint_eq(p.chunks[0][TEMU_BGQ_VC_USER_ESCAPE], 2 + 17);
    ck_assert_uint_eq(p.mu[1][TEMU_MU_PUT_PKT_RCV], 2);
    p = plan_of("midplane", s, d, 1000, NULL, TEMU_KIND_GET);
    ck_assert_uint_eq(p.chunks[0][TEMU_BGQ_VC_USER_ESCAPE], 3); /* remote get */
    ck_assert_uint_eq(p.chunks[1][TEMU_BGQ_VC_USER_ESCAPE], 2 + 32);
    ck_assert_uint_eq(p.mu[1][TEMU_MU_RGET_PKT_RCV], 1);
    ck_assert_uint_eq(p.mu[1][TEMU_MU_PKT_INJ], 1);
    ck_assert_uint_eq(p.mu[0][TEMU_MU_PUT_PKT_RCV], 2);
}
END_TEST

START_TEST(test_bgq_message_unit_io_and_l2)
{
    temu_machine m = test_machine("midplane");
    int64_t s = 0, d = bgq_node(&m, 1, 0, 0, 0, 0);
    /* 4096 B eager: 8 packets of 512 B; the sender's MU reads 4 x 128 B per
     * packet, the receiver writes header + payload into a memory FIFO in
     * 16-byte units: (32 + 512) / 16 = 34 per packet */
    temu_plan p = plan_of("midplane", s, d, 4096, NULL, TEMU_KIND_P2P);
    ck_assert_uint_eq(p.mu[0][TEMU_MU_PORT0_128B_RD], 32);
    ck_assert_uint_eq(p.mu[0][TEMU_MU_PORT0_64B_RD], 0);
    ck_assert_uint_eq(p.mu[1][TEMU_MU_PORT0_16B_WRT], 8 * 34);
    for (int k = 0; k < 16; k++) { /* 32 lines over 16 slices, both ends */
        ck_assert_uint_eq(p.l2_hits[0][k], 2);
        ck_assert_uint_eq(p.l2_hits[1][k], 2);
    }
    /* 1000 B: packets of 512 and 488 B; 488 = 3 x 128 + 104, the 104-byte
     * tail needs one more 128 B read; writes 34 + ceil(520 / 16) = 34 + 33;
     * 8 lines on slices 0..7 */
    p = plan_of("midplane", s, d, 1000, NULL, TEMU_KIND_P2P);
    ck_assert_uint_eq(p.mu[0][TEMU_MU_PORT0_128B_RD], 8);
    ck_assert_uint_eq(p.mu[1][TEMU_MU_PORT0_16B_WRT], 67);
    ck_assert_uint_eq(p.l2_hits[0][7], 1);
    ck_assert_uint_eq(p.l2_hits[0][8], 0);
    /* 16 KiB rendezvous: RTS (32 B: one 32 B read, 4 writes), remote get
     * (64 B descriptor: one 64 B read at the receiver, 4 writes at the
     * sender), 32 put packets (128 reads of 128 B, 32 x 32 writes) */
    p = plan_of("midplane", s, d, 16384, NULL, TEMU_KIND_P2P);
    ck_assert_uint_eq(p.mu[0][TEMU_MU_PORT0_128B_RD], 128);
    ck_assert_uint_eq(p.mu[0][TEMU_MU_PORT0_32B_RD], 1);
    ck_assert_uint_eq(p.mu[0][TEMU_MU_PORT0_16B_WRT], 4);
    ck_assert_uint_eq(p.mu[1][TEMU_MU_PORT0_64B_RD], 1);
    ck_assert_uint_eq(p.mu[1][TEMU_MU_PORT0_16B_WRT], 4 + 1024);
    ck_assert_uint_eq(p.l2_hits[0][3], 8); /* 128 lines: 8 per slice */
    /* the sender's lines follow its buffer address: a 1000-byte payload
     * starting 64 bytes into line 5 covers 9 lines, slices 5..13 */
    static unsigned char buf[4096] __attribute__((aligned(2048)));
    p = plan_of("midplane", s, d, 1000, buf + 5 * 128 + 64, TEMU_KIND_P2P);
    for (int k = 0; k < 16; k++) {
        ck_assert_uint_eq(p.l2_hits[0][k], k >= 5 && k <= 13 ? 1 : 0);
    }
    ck_assert_uint_eq(p.l2_hits[1][0], 1); /* receiver: slices 0..7 */
    ck_assert_uint_eq(p.l2_hits[1][8], 0);
    /* a get reads at the target and writes at the origin */
    p = plan_of("midplane", s, d, 256, NULL, TEMU_KIND_GET);
    ck_assert_uint_eq(p.mu[1][TEMU_MU_PORT0_128B_RD], 2);
    ck_assert_uint_eq(p.mu[0][TEMU_MU_PORT0_16B_WRT], 256 / 16);
    ck_assert_uint_eq(p.mu[0][TEMU_MU_PORT0_64B_RD], 1); /* the descriptor */
}
END_TEST

START_TEST(test_bgp_packets)
{
    /* 240 payload bytes per packet (16-byte header in 256); chunks =
     * ceil((16 + payload) / 32) per packet */
    struct {
        uint64_t bytes, packets, chunks;
    } c[] = {{0, 1, 1}, {16, 1, 1}, {17, 1, 2}, {240, 1, 8}, {241, 2, 9}, {1000, 5, 34}};
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
        temu_plan p = plan_of("bgp-midplane", 0, 1, c[i].bytes, NULL, TEMU_KIND_P2P);
        ck_assert_uint_eq(p.packets[0][2], c[i].packets); /* VCBN: deterministic */
        ck_assert_uint_eq(p.chunks[0][2], c[i].chunks);
    }
    /* 1200 B = eager limit: RTS (2 chunks), remote get (2 chunks) back, data
     * on dynamic VC0: 5 full packets */
    temu_plan p = plan_of("bgp-midplane", 0, 1, 1200, NULL, TEMU_KIND_P2P);
    ck_assert_uint_eq(p.chunks[0][2], 2);
    ck_assert_uint_eq(p.chunks[1][2], 2);
    ck_assert_uint_eq(p.chunks[0][0], 40);
    ck_assert_uint_eq(p.packets[0][0], 5);
}
END_TEST

START_TEST(test_local_and_errors)
{
    temu_plan p = plan_of("midplane", 5, 5, 1 << 20, NULL, TEMU_KIND_P2P);
    ck_assert_int_eq(p.local, 1);
    ck_assert_uint_eq(p.packets[0][1], 0);
    p = plan_of("gemini-tiny", 0, 1, 0, NULL, TEMU_KIND_PUT); /* empty RMA */
    ck_assert_int_eq(p.local, 0);
    ck_assert_uint_eq(sum_slots(p.pkts[0][0]), 0);

    temu_machine m = test_machine("nodeboard");
    temu_message bad = {0, 32, 8, NULL, TEMU_KIND_P2P};
    temu_error err;
    ck_assert_int_eq(temu_plan_message(&m, &bad, &p, &err), TEMU_ERANGE);
    ck_assert_ptr_nonnull(strstr(err.message, "nodes 0..31"));
    temu_message badkind = {0, 1, 8, NULL, (temu_kind)9};
    ck_assert_int_eq(temu_plan_message(&m, &badkind, &p, &err), TEMU_EINVAL);
    ck_assert_int_eq(temu_kind_parse("put"), TEMU_KIND_PUT);
    ck_assert_int_eq(temu_kind_parse("coll-world"), TEMU_KIND_COLL_WORLD);
    ck_assert_int_eq(temu_kind_parse("send"), -1);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("plan");
    TCase *tc = tcase_create("plan");
    tcase_add_test(tc, test_gemini_put_1mib_random_and_zero);
    tcase_add_test(tc, test_gemini_eager_sizes);
    tcase_add_test(tc, test_gemini_rendezvous_get);
    tcase_add_test(tc, test_gemini_bte_put);
    tcase_add_test(tc, test_gemini_get_kind);
    tcase_add_test(tc, test_bgq_eager_and_rendezvous);
    tcase_add_test(tc, test_bgq_alltoall_m2m);
    tcase_add_test(tc, test_bgq_collective_and_rma);
    tcase_add_test(tc, test_bgq_message_unit_io_and_l2);
    tcase_add_test(tc, test_bgp_packets);
    tcase_add_test(tc, test_local_and_errors);
    suite_add_tcase(s, tc);
    return test_run(s);
}
