/*
 * test_crossing.c - in virtual time a message's volume counters change as
 * its packets cross (emu/crossing.c; doc/series.md, "When traffic is
 * counted"), checked at every snapshot against crossing times worked out
 * by hand from doc/model.md's parameters; and whatever the snapshots, the
 * store at the end is the volume model's, counter for counter.
 *
 * The rule: a packet counts as a packet when it starts onto a channel; its
 * u phits (Gemini) or chunks (Blue Gene) one by one as the channel sends
 * them, unit j at start + (j + 1) ser / u; a snapshot at T holds what
 * happened at or before T.
 */
#include "testutil.h"
#include "torusemu_crossing.h"
#include "torusemu_timing.h"
#include "torusemu_vtime.h"

#include <stdint.h>

/* ---------------------------------------------------------- recording */

#define MAX_TICKS 4096
#define MAX_WATCH 16

/* The values of some counters at every tick. */
typedef struct watch {
    temu_session *s;
    int n;                  /* counters watched          */
    int64_t idx[MAX_WATCH]; /* their indices             */
    int ticks;
    int64_t t[MAX_TICKS];
    uint64_t v[MAX_TICKS][MAX_WATCH];
} watch;

static temu_status on_tick(void *ctx, temu_vt *vt, int64_t t, temu_error *err)
{
    watch *w = ctx;
    (void)vt;
    (void)err;
    ck_assert_int_lt(w->ticks, MAX_TICKS);
    w->t[w->ticks] = t;
    for (int i = 0; i < w->n; i++) {
        w->v[w->ticks][i] = temu_counter_read(w->s, w->idx[i]);
    }
    w->ticks++;
    return TEMU_OK;
}

static int watch_add(watch *w, int64_t idx)
{
    ck_assert_int_ge(idx, 0);
    ck_assert_int_lt(w->n, MAX_WATCH);
    w->idx[w->n] = idx;
    return w->n++;
}

/* The rank placed on node `node` of s. */
static int32_t rank_on(temu_session *s, int64_t node)
{
    for (int32_t r = 0; r < temu_session_nranks(s); r++) {
        temu_slot slot;
        ck_assert(temu_session_rank_slot(s, r, &slot, NULL) == TEMU_OK);
        if (slot.node == node) {
            return r;
        }
    }
    ck_abort_msg("no rank on node %lld", (long long)node);
    return -1;
}

/* Every counter of b equals a's. */
static void same_store(temu_session *a, temu_session *b, const char *what)
{
    ck_assert_uint_eq(temu_counter_count(a), temu_counter_count(b));
    for (uint64_t k = 0; k < temu_counter_count(a); k++) {
        uint64_t x = temu_counter_read(a, (int64_t)k), y = temu_counter_read(b, (int64_t)k);
        ck_assert_msg(x == y, "%s: counter %llu: %llu at the end, volume model %llu", what,
                      (unsigned long long)k, (unsigned long long)y, (unsigned long long)x);
    }
}

/* ----------------------------------------------------- expectations */

/* A packet that starts at `start` counts 1 from then on. */
static uint64_t packet_by(int64_t t, int64_t start)
{
    return t >= start ? 1 : 0;
}

/* Of u units sent in ser ps from `start`, those done by t: unit j at
 * start + (j + 1) ser / u. */
static uint64_t units_by(int64_t t, int64_t start, uint64_t u, int64_t ser)
{
    if (t <= start) {
        return 0;
    }
    uint64_t k = (uint64_t)(t - start) * u / (uint64_t)ser;
    return k < u ? k : u;
}

/* ------------------------------------------------------------ Gemini */

/* doc/model.md, Gemini defaults: router 100 ns + wire 5 ns per hop, node
 * injection and ejection at 5.2 GB/s, an X tile (a cable) at 3.125 Gb/s x
 * 3 lanes / 8 = 1.171875 GB/s; serialization ceil(bytes x 1000 / GB/s). */
#define GEM_R 100000
#define GEM_W 5000
static int64_t node_ser(int64_t bytes) /* 5.2 GB/s */
{
    return (bytes * 10000 + 51) / 52;
}
static int64_t xtile_ser(int64_t bytes) /* 1.171875 GB/s = 75/64 bytes per ns */
{
    return (bytes * 64000 + 74) / 75;
}

/* Tiles, [Pedretti 2013, Fig. 3] (doc/model.md): the X- tiles in
 * ascending order are 4 5 12 13 30 31 38 39, the host tiles 19 20 27 28
 * 35 36 43 44; slot position 4 is tile 30 and tile 35. */
#define XM_POS4 30
#define HOST_POS4 35

static int64_t tile_idx(const temu_machine *m, int64_t router, int tile, int counter)
{
    return temu_idx_gemini_tile(m, router, tile, counter);
}

/*
 * One 16-byte MPI message on gemini:4x1x1 (a ring of four Geminis, two
 * nodes each) from node 0 (Gemini 0) to node 4 (Gemini 2), snapshots
 * every 10 ns.  Eager: the 48-byte envelope and the data are one 64-byte
 * PUT: a request of 8 + 3 x 64 / 8 = 32 phits (96 B) on VC0, its response
 * 3 phits (9 B) on VC1.  Tile slot base (0 + 4) mod 8 = 4 on every link.
 * The ring's tie at distance 2 goes +: the request crosses X+ 0 -> 1 -> 2,
 * the response X+ 2 -> 3 -> 0, each arriving on the next Gemini's X- tile
 * of position 4.  Nothing competes, so (cut-through never binding: the
 * tile is slower than the node channel, and ejection faster):
 *   request:  injection at 0, hop 1 at R, hop 2 at R + (W + R), ejection
 *             at R + 2 (W + R); delivered node_ser(96) later;
 *   response: created then, injection at once, hops and ejection as above.
 */
START_TEST(test_gemini_message_hops)
{
    temu_session *s = test_mapped_store("gemini:4x1x1", 8, 1, NULL);
    temu_session *vol = test_mapped_store("gemini:4x1x1", 8, 1, NULL);
    const temu_machine *m = temu_session_machine(s);
    int32_t src = rank_on(s, 0), dst = rank_on(s, 4);
    temu_vt *vt;
    temu_error err;
    watch *w = calloc(1, sizeof *w);
    ck_assert_ptr_nonnull(w);
    w->s = s;
    /* request hops (VC0), the response's (VC1), host tiles, NIC counters */
    int h1p = watch_add(w, tile_idx(m, 1, XM_POS4, TEMU_TILE_VC0_PHITS));
    int h1k = watch_add(w, tile_idx(m, 1, XM_POS4, TEMU_TILE_VC0_PKTS));
    int h2p = watch_add(w, tile_idx(m, 2, XM_POS4, TEMU_TILE_VC0_PHITS));
    int h2k = watch_add(w, tile_idx(m, 2, XM_POS4, TEMU_TILE_VC0_PKTS));
    int hap = watch_add(w, tile_idx(m, 3, XM_POS4, TEMU_TILE_VC1_PHITS));
    int hbp = watch_add(w, tile_idx(m, 0, XM_POS4, TEMU_TILE_VC1_PHITS));
    int hbk = watch_add(w, tile_idx(m, 0, XM_POS4, TEMU_TILE_VC1_PKTS));
    int host0 = watch_add(w, tile_idx(m, 0, HOST_POS4, TEMU_TILE_VC0_PHITS));
    int host2 = watch_add(w, tile_idx(m, 2, HOST_POS4, TEMU_TILE_VC1_PHITS));
    int orb0 = watch_add(w, temu_idx_gemini_nic(m, 0, TEMU_NIC_ORB_VC0_FLITS));
    int rat = watch_add(w, temu_idx_gemini_nic(m, 4, TEMU_NIC_RAT_DATA_FLITS_VC0));
    int npt = watch_add(w, temu_idx_gemini_nic(m, 4, TEMU_NIC_NPT_PKTS));
    int orb1 = watch_add(w, temu_idx_gemini_nic(m, 0, TEMU_NIC_ORB_VC1_PKTS));

    /* the network's times alone, by hand below: MPI costs off */
    temu_tm_config tc;
    ck_assert(temu_tm_config_default(m, &tc, &err) == TEMU_OK);
    memset(&tc.mpi, 0, sizeof tc.mpi);
    ck_assert(temu_vt_create(s, &tc, &vt, &err) == TEMU_OK);
    temu_vt_p2p p = {0, src, dst, 0, src, dst, 16, 0, 0, 1};
    ck_assert(temu_vt_send(vt, &p, &err) == TEMU_OK);
    ck_assert(temu_vt_recv(vt, &p, &err) == TEMU_OK);
    ck_assert(temu_vt_set_tick(vt, 10000, on_tick, w, &err) == TEMU_OK);
    ck_assert_msg(temu_vt_run(vt, &err) == TEMU_OK, "%s", err.message);

    /* the times, by hand */
    int64_t hop1 = GEM_R, hop2 = hop1 + GEM_W + GEM_R, ej = hop2 + GEM_W + GEM_R;
    int64_t reply = ej + node_ser(96); /* the request delivered: the response is sent */
    int64_t hopa = reply + GEM_R, hopb = hopa + GEM_W + GEM_R, ejb = hopb + GEM_W + GEM_R;
    /* the run ends when the last hop's queue space is known upstream
     * again: its packet read out (at the link's rate), then credit_ps =
     * wire_ps later -- after the response's delivery at ejb + node_ser(9) */
    int64_t end = ejb + xtile_ser(9) + GEM_W;
    ck_assert_int_eq(hop1, 100000);
    ck_assert_int_eq(reply, 328462);
    ck_assert_int_eq(end, 651142);
    /* a snapshot every 10 ns, the last at the end */
    ck_assert_int_eq(w->ticks, 66);
    ck_assert_int_eq(w->t[w->ticks - 1], end);
    for (int i = 0; i < w->ticks; i++) {
        int64_t t = w->t[i];
        const uint64_t *v = w->v[i];
        if (i + 1 < w->ticks) {
            ck_assert_int_eq(t, 10000 * (int64_t)(i + 1));
        }
        ck_assert_msg(v[h1p] == units_by(t, hop1, 32, xtile_ser(96)), "hop 1 phits at %lld: %llu",
                      (long long)t, (unsigned long long)v[h1p]);
        ck_assert_uint_eq(v[h1k], packet_by(t, hop1));
        ck_assert_msg(v[h2p] == units_by(t, hop2, 32, xtile_ser(96)), "hop 2 phits at %lld: %llu",
                      (long long)t, (unsigned long long)v[h2p]);
        ck_assert_uint_eq(v[h2k], packet_by(t, hop2));
        ck_assert_uint_eq(v[hap], units_by(t, hopa, 3, xtile_ser(9)));
        ck_assert_uint_eq(v[hbp], units_by(t, hopb, 3, xtile_ser(9)));
        ck_assert_uint_eq(v[hbk], packet_by(t, hopb));
        /* host tiles: phits as the node channel sends them */
        ck_assert_msg(v[host0] == units_by(t, 0, 32, node_ser(96)), "host phits at %lld: %llu",
                      (long long)t, (unsigned long long)v[host0]);
        ck_assert_uint_eq(v[host2], units_by(t, reply, 3, node_ser(9)));
        /* NIC: 1 + 64/16 request flits as the request leaves node 0, its
         * 4 data flits as it enters node 4; the response at node 4's
         * injection and node 0's ejection */
        ck_assert_uint_eq(v[orb0], 5 * packet_by(t, 0));
        ck_assert_uint_eq(v[rat], 4 * packet_by(t, ej));
        ck_assert_uint_eq(v[npt], packet_by(t, reply));
        ck_assert_uint_eq(v[orb1], packet_by(t, ejb));
    }
    /* the snapshot at 100 ns holds hop 1's packet (it started then) and
     * none of its phits; the one at 310 ns the ejection's RAT flits */
    ck_assert_uint_eq(w->v[9][h1k], 1);
    ck_assert_uint_eq(w->v[9][h1p], 0);
    ck_assert_uint_eq(w->v[30][rat], 4);
    ck_assert_uint_eq(w->v[29][rat], 0);

    /* the end: the volume model's counts, counter for counter */
    temu_message msg = {0, 4, 16, NULL, TEMU_KIND_P2P};
    ck_assert(temu_inject(vol, &msg, &err) == TEMU_OK);
    same_store(vol, s, "gemini message");
    free(w);
    temu_vt_free(vt);
    temu_session_close(s);
    temu_session_close(vol);
}
END_TEST

/* ------------------------------------------------------ BG/P, a train */

/*
 * A packet train (train_packets 8) on BG/P neighbours, in the round
 * configuration of tests/test_vtime.c: every channel at 10 GB/s (100 ps
 * per byte), router R = 20000 ps, no wire time on the node channels.  A
 * 1000-byte eager message is ceil(1000 / 240) = 5 packets of 4 x 8 +
 * ceil((16 + 40) / 32) = 34 chunks on the bubble VC; the model splits them
 * 7, 7, 7, 7, 6 (larger first) and moves them as one train: injected from
 * 0 one after the other, S = 224 x 100 = 22400 ps apart, onto the link
 * from R on, S apart.  Packet i counts when it starts, at R + i S; its
 * chunks as the link sends them, timed as if every packet were 7 chunks
 * in S (doc/model.md, "Packet trains").  Snapshots every 7 ns fall inside
 * packets.
 */
START_TEST(test_bgp_train)
{
    temu_session *s = test_mapped_store("bgp:4x2x2", 2, 1, "XYZT");
    temu_session *vol = test_mapped_store("bgp:4x2x2", 2, 1, "XYZT");
    const temu_machine *m = temu_session_machine(s);
    temu_tm_config c;
    temu_vt *vt;
    temu_error err;
    watch *w = calloc(1, sizeof *w);
    const int64_t R = 20000, S = 22400;
    const uint64_t units[5] = {7, 7, 7, 7, 6};
    memset(&c, 0, sizeof c);
    c.router_ps = R;
    c.wire_ps = 3000;
    c.credit_ps = 3000;
    c.buffer_bytes = 65536;
    c.max_packet = 256;
    c.classes = 4;
    c.flow = TEMU_TM_CREDIT;
    c.link_gbs = 10.0;
    c.node_gbs = 10.0;
    c.train_packets = 8;
    ck_assert_ptr_nonnull(w);
    w->s = s;
    /* XYZT: rank 0 at (0, 0, 0), rank 1 at its X+ neighbour (1, 0, 0) */
    int32_t c1[3] = {1, 0, 0};
    int64_t n1 = temu_router_index(m, c1);
    ck_assert_int_eq(rank_on(s, 0), 0);
    ck_assert_int_eq(rank_on(s, n1), 1);
    int pk = watch_add(w, temu_idx_bgp(m, 0, 1, TEMU_BGP_PACKETS)); /* node 0, X+ */
    int ch = watch_add(w, temu_idx_bgp(m, 0, 1, TEMU_BGP_CHUNKS));
    int bn = watch_add(w, temu_idx_bgp(m, 0, 1, TEMU_BGP_VCBN_CHUNKS));
    int ack = watch_add(w, temu_idx_bgp(m, n1, 0, TEMU_BGP_ACKS)); /* its X- back */

    ck_assert(temu_vt_create(s, &c, &vt, &err) == TEMU_OK);
    temu_vt_p2p p = {0, 0, 1, 0, 0, 1, 1000, 0, 0, 1};
    ck_assert(temu_vt_send(vt, &p, &err) == TEMU_OK);
    ck_assert(temu_vt_recv(vt, &p, &err) == TEMU_OK);
    ck_assert(temu_vt_set_tick(vt, 7000, on_tick, w, &err) == TEMU_OK);
    ck_assert_msg(temu_vt_run(vt, &err) == TEMU_OK, "%s", err.message);
    ck_assert_int_ge(w->ticks, 20);
    int partial = 0;
    for (int i = 0; i < w->ticks; i++) {
        int64_t t = w->t[i];
        uint64_t want_pk = 0, want_ch = 0;
        for (int k = 0; k < 5; k++) {
            want_pk += packet_by(t, R + k * S);
            want_ch += units_by(t, R + k * S, units[k], S);
        }
        ck_assert_msg(w->v[i][pk] == want_pk, "packets at %lld: %llu, want %llu", (long long)t,
                      (unsigned long long)w->v[i][pk], (unsigned long long)want_pk);
        ck_assert_msg(w->v[i][ch] == want_ch, "chunks at %lld: %llu, want %llu", (long long)t,
                      (unsigned long long)w->v[i][ch], (unsigned long long)want_ch);
        ck_assert_uint_eq(w->v[i][bn], want_ch);
        ck_assert_uint_eq(w->v[i][ack], want_pk);
        partial += want_pk > 0 && want_pk < 5;
    }
    ck_assert_int_ge(partial, 10); /* snapshots inside the train */
    temu_message msg = {0, n1, 1000, NULL, TEMU_KIND_P2P};
    ck_assert(temu_inject(vol, &msg, &err) == TEMU_OK);
    same_store(vol, s, "bgp train");
    free(w);
    temu_vt_free(vt);
    temu_session_close(s);
    temu_session_close(vol);
}
END_TEST

/* -------------------------------------------- every protocol, exact */

typedef struct op {
    int32_t src, dst;
    uint64_t bytes;
    temu_kind kind;
} op;

/*
 * Every protocol's messages, with snapshots at intervals shorter than a
 * packet's time on a link (most crossings are counted in pieces): the store at the end is the
 * volume model's, counter for counter -- Gemini eager, rendezvous GET, BTE PUT, raw PUT and GET;
 * BG/Q eager, rendezvous, and PUT and GET with their message-unit and L2 counters (deterministic
 * routing, so every link counter is comparable); BG/P eager and rendezvous.  And the node counters
 * follow the data: on BG/Q the target of a GET counts its L2 reads as its data leaves, the origin
 * its writes as the data arrives.
 */
START_TEST(test_every_protocol_exact)
{
    static const struct {
        const char *spec;
        int64_t tick_ps;
        op ops[6];
        int n;
    } cases[] = {
        {"gemini:4x2x2",
         47000,
         {{0, 9, 16, TEMU_KIND_P2P},
          {1, 14, 20000, TEMU_KIND_P2P},
          {2, 31, 530000, TEMU_KIND_P2P},
          {5, 22, 3000, TEMU_KIND_PUT},
          {6, 17, 3000, TEMU_KIND_GET}},
         5},
        {"bgq:2x2x2x2x2",
         101000,
         {{0, 31, 100, TEMU_KIND_P2P},
          {1, 30, 200000, TEMU_KIND_P2P},
          {2, 29, 5000, TEMU_KIND_PUT},
          {3, 28, 70000, TEMU_KIND_GET}},
         4},
        {"bgp:4x4x2", 41000, {{0, 15, 100, TEMU_KIND_P2P}, {1, 14, 5000, TEMU_KIND_P2P}}, 2},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        temu_session *s = test_mapped_store(cases[i].spec, 32, 1, NULL);
        temu_session *vol = test_mapped_store(cases[i].spec, 32, 1, NULL);
        const temu_machine *m = temu_session_machine(s);
        temu_tm_config c;
        temu_vt *vt;
        temu_error err;
        watch *w = calloc(1, sizeof *w);
        ck_assert_ptr_nonnull(w);
        w->s = s;
        ck_assert(temu_tm_config_default(m, &c, &err) == TEMU_OK);
        c.routing = TEMU_TM_DETERMINISTIC;
        ck_assert(temu_vt_create(s, &c, &vt, &err) == TEMU_OK);
        temu_vt_set_post_all(vt, 1);
        int rd = -1, wr = -1;
        for (int k = 0; k < cases[i].n; k++) {
            const op *o = &cases[i].ops[k];
            temu_slot a, b;
            ck_assert(temu_session_rank_slot(s, o->src, &a, NULL) == TEMU_OK);
            ck_assert(temu_session_rank_slot(s, o->dst, &b, NULL) == TEMU_OK);
            if (m->system == TEMU_SYSTEM_BGQ && o->kind == TEMU_KIND_GET) {
                /* L2 slice 0: the target's reads, the origin's writes (no
                 * other message touches these two nodes) */
                rd = watch_add(w, temu_idx_bgq_l2(m, b.node, 0, 0));
                wr = watch_add(w, temu_idx_bgq_l2(m, a.node, 0, 0));
            }
            if (o->kind == TEMU_KIND_P2P) {
                temu_vt_p2p p = {0, o->src, o->dst, k, o->src, o->dst, o->bytes, 0, 0, 1};
                ck_assert(temu_vt_send(vt, &p, &err) == TEMU_OK);
                ck_assert(temu_vt_recv(vt, &p, &err) == TEMU_OK);
            } else {
                ck_assert(temu_vt_rma(vt, o->src, o->dst, o->bytes, o->kind, 0, 1, &err) ==
                          TEMU_OK);
            }
            temu_message msg = {a.node, b.node, o->bytes, NULL, o->kind};
            ck_assert(temu_inject(vol, &msg, &err) == TEMU_OK);
        }
        ck_assert(temu_vt_set_tick(vt, cases[i].tick_ps, on_tick, w, &err) == TEMU_OK);
        ck_assert_msg(temu_vt_run(vt, &err) == TEMU_OK, "%s", err.message);
        ck_assert_int_ge(w->ticks, 20);
        same_store(vol, s, cases[i].spec);
        if (rd >= 0) {
            /* reads from the first snapshot the data has left by, writes
             * only later, as it arrives */
            int first_rd = -1, first_wr = -1;
            for (int k = w->ticks - 1; k >= 0; k--) {
                first_rd = w->v[k][rd] > 0 ? k : first_rd;
                first_wr = w->v[k][wr] > 0 ? k : first_wr;
            }
            ck_assert_int_ge(first_rd, 0);
            ck_assert_int_gt(first_wr, first_rd);
        }
        free(w);
        temu_vt_free(vt);
        temu_session_close(s);
        temu_session_close(vol);
    }
}
END_TEST

/*
 * A crossing counted whole from a region's thread (temu_crossing_count_now,
 * the parallel engine's hop-now path) adds what temu_crossing_count adds
 * for the whole of it: a Gemini X+ link hop of 2 packets, 64 phits (its
 * tile's phits and packets on the next Gemini) and an injection (the host
 * tiles).  With a watch armed it counts nothing and says so (0): the hop
 * is then counted in order.
 */
START_TEST(test_count_now_is_the_whole_crossing)
{
    temu_session *now = test_mapped_store("gemini:4x1x1", 2, 1, NULL);
    temu_session *ordered = test_mapped_store("gemini:4x1x1", 2, 1, NULL);
    temu_error err;
    temu_tm_hop hops[2];
    memset(hops, 0, sizeof hops);
    hops[0] = (temu_tm_hop){.start_ps = 1000,
                            .spacing_ps = 500,
                            .ser_ps = 400,
                            .tag = 2,
                            .bytes = 192,
                            .packets = 2,
                            .kind = TEMU_TM_HOP_LINK,
                            .router = 0,
                            .to_router = 1,
                            .link = 1,
                            .lane = 4};
    hops[1] = (temu_tm_hop){.start_ps = 0,
                            .spacing_ps = 100,
                            .ser_ps = 100,
                            .tag = 2,
                            .bytes = 192,
                            .packets = 2,
                            .kind = TEMU_TM_HOP_INJECT,
                            .node = 0,
                            .lane_key = 4};
    for (int i = 0; i < 2; i++) {
        temu_ledger *lg = NULL;
        ck_assert_int_eq(temu_crossing_count_now(now, &hops[i]), 1);
        temu_crossing_count(ordered, &lg, 0, &hops[i], hops[i].start_ps - 1, INT64_MAX);
    }
    same_store(ordered, now, "counted now");
    const temu_machine *m = temu_session_machine(now);
    int64_t tile = tile_idx(m, 1, XM_POS4, TEMU_TILE_VC0_PHITS);
    ck_assert_uint_eq(temu_counter_read(now, tile), 64);
    ck_assert_uint_eq(temu_counter_read(now, tile_idx(m, 0, HOST_POS4, TEMU_TILE_VC0_PKTS)), 2);
    temu_watch_spec spec = {&tile, 1, 0, 1000000, 0, 0};
    int32_t id;
    ck_assert(temu_watch_arm(now, &spec, &id, &err) == TEMU_OK);
    ck_assert_int_eq(temu_crossing_count_now(now, &hops[0]), 0);
    ck_assert_uint_eq(temu_counter_read(now, tile), 64);
    temu_watch_disarm(now, id);
    temu_session_close(now);
    temu_session_close(ordered);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("crossing");
    TCase *tc = tcase_create("crossing");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_gemini_message_hops);
    tcase_add_test(tc, test_bgp_train);
    tcase_add_test(tc, test_every_protocol_exact);
    tcase_add_test(tc, test_count_now_is_the_whole_crossing);
    suite_add_tcase(s, tc);
    return test_run(s);
}
