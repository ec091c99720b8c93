/*
 * tmpi_check - compare the counter store an MPI run left against what its
 * traffic implies.  Used by the MPI shell tests; exit 0 when everything
 * matches, 1 (with the differing counters named) when not, 2 on bad use.
 *
 *   tmpi_check ping STORE SRC DST BYTES [random|zero]
 *       one point-to-point message between ranks SRC and DST: the counts on
 *       every link of the request and return routes, from first principles
 *       (the protocol rules of doc/model.md restated here), and nothing
 *       anywhere else
 *   tmpi_check rma STORE ORIGIN TARGET BYTES put|get
 *       one one-sided transfer: Gemini PUT/GET transactions, requests on VC0
 *       from the origin, responses on VC1 back (Pedretti 2013 V.A); Blue Gene put
 *       packets, or a remote get and the data coming back
 *   tmpi_check expect STORE FILE
 *       the store equals the injection of the messages listed in FILE
 *       ("SRC DST BYTES [KIND]" per line, ranks of the store's mapping;
 *       BG/Q L2 slices, which follow buffer addresses, are not compared)
 *   tmpi_check hops STORE FILE
 *       BG/Q: the chunks sent over all links equal the sum over FILE's
 *       messages of hops x chunks per hop (McCraw 2013 section 4.4)
 *   tmpi_check quiet STORE     no chunk, phit or packet on any network link
 *   tmpi_check load STORE      print the sum of the network-link counters
 *   tmpi_check identical STORE1 STORE2   the same with every counter,
 *       BG/Q L2 slices included (a replay of a live run's trace)
 *   tmpi_check same STORE1 STORE2    equal counters (L2 slices aside), some
 *       traffic, equal totals
 */
#include "torusemu.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int nfail;

static void mismatch(const temu_machine *m, int64_t idx, uint64_t got, uint64_t want)
{
    char d[160];
    if (nfail++ < 20) {
        temu_counter_describe(m, idx, d, sizeof d);
        fprintf(stderr, "tmpi_check: %s: %" PRIu64 ", expected %" PRIu64 "\n", d, got, want);
    }
}

static temu_session *open_store(const char *path)
{
    temu_session *s;
    temu_error err;
    if (temu_session_attach(path, &s, &err) != TEMU_OK) {
        fprintf(stderr, "tmpi_check: %s\n", err.message);
        exit(2);
    }
    return s;
}

static int64_t rank_node(const temu_session *s, int32_t rank)
{
    temu_slot slot;
    temu_error err;
    if (temu_session_rank_slot(s, rank, &slot, &err) != TEMU_OK) {
        fprintf(stderr, "tmpi_check: %s\n", err.message);
        exit(2);
    }
    return slot.node;
}

/* [begin, end) of the BG/Q L2 section (empty elsewhere). */
static void l2_range(const temu_machine *m, int64_t *begin, int64_t *end)
{
    *begin = *end = 0;
    if (m->system == TEMU_SYSTEM_BGQ) {
        *begin = temu_idx_bgq_l2(m, 0, 0, 0);
        *end =
            temu_idx_bgq_l2(m, m->nnodes - 1, TEMU_BGQ_L2_SLICES - 1, TEMU_BGQ_L2_COUNTERS - 1) + 1;
    }
}

/* Compare every counter of a with b (L2 aside unless with_l2). */
static void compare_all(const temu_session *a, const temu_session *b, int with_l2)
{
    const temu_machine *m = temu_session_machine(a);
    int64_t l2b, l2e;
    l2_range(m, &l2b, &l2e);
    if (with_l2) {
        l2b = l2e = 0;
    }
    for (int64_t i = 0; i < (int64_t)temu_counter_count(a); i++) {
        if (i >= l2b && i < l2e) {
            continue;
        }
        uint64_t x = temu_counter_read(a, i), y = temu_counter_read(b, i);
        if (x != y) {
            mismatch(m, i, x, y);
        }
    }
}

/* ----------------------------------------------------------- routes */

/*
 * The expected routes, computed here apart from the emulator's route.c so
 * that a routing bug fails the MPI tests (doc/model.md states the rules):
 * routers are numbered with the last dimension fastest; a route takes all
 * the hops of one dimension before the next, in the machine's order - X,
 * Y, Z on Gemini (seed 000 section V.C) and BG/P, the longest dimension
 * first on BG/Q (a torus dimension of n nodes is n/2 long, a mesh one n;
 * a tie goes to the mesh dimension, then to the lower one); on a torus
 * ring the shorter way round, the plus way when both are n/2; link 2d is
 * dimension d's minus link, 2d + 1 its plus link.
 */
static void coords_of(const temu_machine *m, int64_t r, int32_t *c)
{
    for (int d = m->ndims - 1; d >= 0; d--) {
        c[d] = (int32_t)(r % m->size[d]);
        r /= m->size[d];
    }
}

static int64_t router_at(const temu_machine *m, const int32_t *c)
{
    int64_t r = 0;
    for (int d = 0; d < m->ndims; d++) {
        r = r * m->size[d] + c[d];
    }
    return r;
}

/* Dimension order: order[i] is the i-th dimension a route travels. */
static void route_order(const temu_machine *m, int *order)
{
    int used[TEMU_MAX_DIMS] = {0};
    for (int i = 0; i < m->ndims; i++) {
        int best = -1;
        for (int d = 0; d < m->ndims; d++) {
            /* twice the length, so that n/2 stays whole */
            int len = m->torus[d] ? m->size[d] : 2 * m->size[d];
            int blen = best < 0 ? -1 : (m->torus[best] ? m->size[best] : 2 * m->size[best]);
            if (used[d]) {
                continue;
            }
            if (m->system != TEMU_SYSTEM_BGQ) {
                if (best < 0) {
                    best = d; /* X, Y, Z */
                }
                continue;
            }
            if (best < 0 || len > blen || (len == blen && !m->torus[d] && m->torus[best])) {
                best = d; /* scanning upwards keeps the lower dimension on a full tie */
            }
        }
        used[best] = 1;
        order[i] = best;
    }
}

/* The route from router a to router b into hops[]; the hop count. */
static int expected_route(const temu_machine *m, int64_t a, int64_t b, temu_hop *hops)
{
    int32_t at[TEMU_MAX_DIMS], to[TEMU_MAX_DIMS];
    int order[TEMU_MAX_DIMS], n = 0;
    coords_of(m, a, at);
    coords_of(m, b, to);
    route_order(m, order);
    for (int i = 0; i < m->ndims; i++) {
        int d = order[i], size = m->size[d], step, count;
        int ahead = ((to[d] - at[d]) % size + size) % size; /* hops the plus way round */
        if (!m->torus[d]) {
            step = to[d] > at[d] ? 1 : -1;
            count = to[d] > at[d] ? to[d] - at[d] : at[d] - to[d];
        } else if (2 * ahead <= size) {
            step = 1;
            count = ahead;
        } else {
            step = -1;
            count = size - ahead;
        }
        for (int k = 0; k < count; k++) {
            hops[n].from = router_at(m, at);
            at[d] = (at[d] + step + size) % size;
            hops[n].to = router_at(m, at);
            hops[n].link = step > 0 ? 2 * d + 1 : 2 * d;
            hops[n].in_link = step > 0 ? 2 * d : 2 * d + 1;
            n++;
        }
    }
    return n;
}

/* ------------------------------------------------------------- ping */

static uint64_t cdiv(uint64_t a, uint64_t b)
{
    return (a + b - 1) / b;
}

/* Expected counts of one message, per travel direction (0: src -> dst,
 * 1: dst -> src) and, on Gemini, per VC.  Restated from doc/model.md. */
typedef struct flow {
    uint64_t phits[2][2], pkts[2][2];     /* Gemini [dir][vc]                 */
    uint64_t chunks[2][7], packets[2][7]; /* BG/Q [dir][vc]; BG/P uses vc 0..3 */
} flow;

/* A stream of Gemini PUT (is_get 0) or GET transactions carrying `header`
 * envelope bytes then `bytes` of data in 64-byte pieces; requests travel in
 * direction `dir`.  Data-only transactions whose bytes are all zero carry
 * no data phits (zero payload). */
static void gemini_stream(flow *f, int dir, int is_get, uint64_t header, uint64_t bytes, int zero)
{
    uint64_t total = header + bytes;
    uint64_t n = cdiv(total, 64);
    for (uint64_t j = 0; j < n; j++) {
        uint64_t p = j + 1 < n ? 64 : total - 64 * (n - 1);
        int compressed = zero && j * 64 >= header;
        uint64_t data_phits = compressed ? 0 : cdiv(3 * p, 8);
        if (is_get) {
            f->phits[dir][0] += 8;
            f->phits[1 - dir][1] += 3 + data_phits;
        } else {
            f->phits[dir][0] += 8 + data_phits;
            f->phits[1 - dir][1] += 3;
        }
        f->pkts[dir][0]++;
        f->pkts[1 - dir][1]++;
    }
}

static void gemini_flow(const temu_machine *m, uint64_t b, int zero, flow *f)
{
    const uint64_t env = m->protocol.mpi_header;
    if (b < m->protocol.eager_limit) {
        gemini_stream(f, 0, 0, env, b, zero);
    } else if (b < m->protocol.bte_threshold) {
        gemini_stream(f, 0, 0, env, 0, 0);  /* RTS */
        gemini_stream(f, 1, 1, 0, b, zero); /* the receiver GETs the data */
        gemini_stream(f, 1, 0, env, 0, 0);  /* FIN */
    } else {
        gemini_stream(f, 0, 0, env, 0, 0);  /* RTS */
        gemini_stream(f, 1, 0, env, 0, 0);  /* CTS */
        gemini_stream(f, 0, 0, 0, b, zero); /* BTE PUTs */
        gemini_stream(f, 0, 0, env, 0, 0);  /* FIN */
    }
}

/* BG/Q: b bytes in 512-byte packets, plus a 32-byte header chunk each. */
static void bgq_packets(flow *f, int dir, int vc, uint64_t b)
{
    uint64_t p = b == 0 ? 1 : cdiv(b, 512);
    f->packets[dir][vc] += p;
    f->chunks[dir][vc] += p + cdiv(b, 32);
}

/* BG/P: 240 payload bytes per packet (16-byte header), 32-byte chunks. */
static void bgp_packets(flow *f, int dir, int vc, uint64_t b)
{
    uint64_t p = b == 0 ? 1 : cdiv(b, 240);
    f->packets[dir][vc] += p;
    f->chunks[dir][vc] += (p - 1) * 8 + cdiv(16 + b - (p - 1) * 240, 32);
}

static int dims_differ(const temu_machine *m, int64_t a, int64_t b)
{
    int32_t ca[TEMU_MAX_DIMS], cb[TEMU_MAX_DIMS];
    int n = 0;
    coords_of(m, a, ca);
    coords_of(m, b, cb);
    for (int d = 0; d < m->ndims; d++) {
        n += ca[d] != cb[d];
    }
    return n;
}

static void bluegene_flow(const temu_machine *m, int64_t s, int64_t d, uint64_t b, int kind,
                          flow *f)
{
    if (m->system == TEMU_SYSTEM_BGQ && kind == TEMU_KIND_ALLTOALL) {
        /* an all-to-all block: PAMI's many-to-many protocol, memory-FIFO
         * packets on the dynamic VC 0 (VC 1 with m2m-routing=deterministic),
         * no rendezvous at any size */
        bgq_packets(f, 0, m->protocol.m2m_deterministic ? 1 : 0, b);
        return;
    }
    if (m->system == TEMU_SYSTEM_BGQ) {
        const int esc = 1, dyn = b > 65536 && dims_differ(m, s, d) > 1 ? 0 : 1;
        if (b < m->protocol.eager_limit) {
            bgq_packets(f, 0, esc, b);
        } else {
            bgq_packets(f, 0, esc, 32); /* request to send           */
            bgq_packets(f, 1, esc, 64); /* remote-get descriptor      */
            bgq_packets(f, 0, dyn, b);  /* the data, put by the MU    */
        }
        return;
    }
    const int vcd0 = 0, vcbn = 2;
    if (b < m->protocol.eager_limit) {
        bgp_packets(f, 0, vcbn, b);
    } else {
        bgp_packets(f, 0, vcbn, 32);
        bgp_packets(f, 1, vcbn, 32);
        bgp_packets(f, 0, vcd0, b);
    }
}

/* Gemini: the counts of one direction arrive at the host tiles of the
 * injecting Gemini and at every router of its route through the link it
 * enters by (Pedretti 2013 V.B). */
static void check_gemini(const temu_session *st, int64_t rs, int64_t rd, const flow *f)
{
    const temu_machine *m = temu_session_machine(st);
    uint64_t want_total[4] = {0, 0, 0, 0}, got_total[4] = {0, 0, 0, 0};
    for (int dir = 0; dir < 2; dir++) {
        temu_hop hops[TEMU_MAX_HOPS];
        int64_t from = dir == 0 ? rs : rd, to = dir == 0 ? rd : rs;
        int n = expected_route(m, from, to, hops);
        for (int h = -1; h < n; h++) {
            int64_t r = h < 0 ? from : hops[h].to;
            int link = h < 0 ? 2 * m->ndims : hops[h].in_link;
            int tiles[TEMU_GEMINI_TILES];
            int nt = temu_gemini_link_tiles(link, tiles);
            for (int c = 0; c < 4; c++) { /* VC0/VC1 phits, VC0/VC1 packets */
                uint64_t got = 0;
                uint64_t want = c < 2 ? f->phits[dir][c] : f->pkts[dir][c - 2];
                /* the other direction may cross the same link (same router pair) */
                for (int i = 0; i < nt; i++) {
                    got += temu_counter_read(st, temu_idx_gemini_tile(m, r, tiles[i], c));
                }
                if (rs != rd && got != want) {
                    mismatch(m, temu_idx_gemini_tile(m, r, tiles[0], c), got, want);
                }
                want_total[c] += want;
            }
        }
    }
    for (int64_t r = 0; r < m->nrouters; r++) {
        for (int t = 0; t < TEMU_GEMINI_TILES; t++) {
            for (int c = 0; c < 4; c++) {
                got_total[c] += temu_counter_read(st, temu_idx_gemini_tile(m, r, t, c));
            }
        }
    }
    for (int c = 0; c < 4; c++) {
        if (got_total[c] != want_total[c]) {
            fprintf(
                stderr, "tmpi_check: %s total over all tiles: %" PRIu64 ", expected %" PRIu64 "\n",
                c < 2 ? (c ? "VC1 phits" : "VC0 phits") : (c == 2 ? "VC0 packets" : "VC1 packets"),
                got_total[c], want_total[c]);
            nfail++;
        }
    }
}

/* Blue Gene: per hop, the sender's outgoing link counts chunks (BG/Q per
 * VC, BG/P per VC and in total) and BG/Q's receiver counts packets; BG/P's
 * receiver returns one ack per packet over the same link. */
static void check_bluegene(const temu_session *st, int64_t s, int64_t d, const flow *f)
{
    const temu_machine *m = temu_session_machine(st);
    int bgq = m->system == TEMU_SYSTEM_BGQ;
    uint64_t want_sum = 0, got_sum = 0;
    for (int dir = 0; dir < 2; dir++) {
        temu_hop hops[TEMU_MAX_HOPS];
        int n = expected_route(m, dir == 0 ? s : d, dir == 0 ? d : s, hops);
        for (int h = 0; h < n; h++) {
            if (bgq) {
                for (int vc = 0; vc < TEMU_BGQ_VCS; vc++) {
                    int64_t ci =
                        temu_idx_bgq_nw(m, hops[h].from, hops[h].link, TEMU_BGQ_NW_SENT_CHUNKS, vc);
                    int64_t pi = temu_idx_bgq_nw(m, hops[h].to, hops[h].in_link,
                                                 TEMU_BGQ_NW_RECV_PACKETS, vc);
                    uint64_t c = temu_counter_read(st, ci), p = temu_counter_read(st, pi);
                    if (c != f->chunks[dir][vc]) {
                        mismatch(m, ci, c, f->chunks[dir][vc]);
                    }
                    if (p != f->packets[dir][vc]) {
                        mismatch(m, pi, p, f->packets[dir][vc]);
                    }
                    want_sum += f->chunks[dir][vc] + f->packets[dir][vc];
                }
                continue;
            }
            uint64_t pk = 0, ch = 0;
            int64_t out = temu_idx_bgp(m, hops[h].from, hops[h].link, 0);
            int64_t back = temu_idx_bgp(m, hops[h].to, hops[h].in_link, 0);
            for (int vc = 0; vc < 4; vc++) {
                pk += f->packets[dir][vc];
                ch += f->chunks[dir][vc];
                uint64_t v = temu_counter_read(st, out + TEMU_BGP_VCD0_CHUNKS + vc);
                if (v != f->chunks[dir][vc]) {
                    mismatch(m, out + TEMU_BGP_VCD0_CHUNKS + vc, v, f->chunks[dir][vc]);
                }
            }
            uint64_t want[4] = {pk, ch, pk, pk};
            int64_t idx[4] = {out + TEMU_BGP_PACKETS, out + TEMU_BGP_CHUNKS,
                              back + TEMU_BGP_TOKEN_ACK_PACKETS, back + TEMU_BGP_ACKS};
            for (int k = 0; k < 4; k++) {
                uint64_t v = temu_counter_read(st, idx[k]);
                if (v != want[k]) {
                    mismatch(m, idx[k], v, want[k]);
                }
            }
            want_sum += 3 * pk + 2 * ch; /* packets, acks, token acks; chunks twice */
        }
    }
    /* nothing elsewhere: the same sums over every link of every node */
    for (int64_t node = 0; node < m->nnodes; node++) {
        for (int l = 0; l < 2 * m->ndims; l++) {
            if (bgq) {
                for (int vc = 0; vc < TEMU_BGQ_VCS; vc++) {
                    got_sum += temu_counter_read(
                        st, temu_idx_bgq_nw(m, node, l, TEMU_BGQ_NW_SENT_CHUNKS, vc));
                    got_sum += temu_counter_read(
                        st, temu_idx_bgq_nw(m, node, l, TEMU_BGQ_NW_RECV_PACKETS, vc));
                }
            } else {
                for (int c = 0; c < 8; c++) {
                    got_sum += temu_counter_read(st, temu_idx_bgp(m, node, l, c));
                }
            }
        }
    }
    if (got_sum != want_sum) {
        fprintf(stderr,
                "tmpi_check: link counters add up to %" PRIu64 ", expected %" PRIu64
                " (traffic off the routes)\n",
                got_sum, want_sum);
        nfail++;
    }
}

static int cmd_ping(int argc, char **argv)
{
    if (argc < 6) {
        fprintf(stderr, "usage: tmpi_check ping STORE SRC DST BYTES [random|zero]\n");
        return 2;
    }
    temu_session *st = open_store(argv[2]);
    const temu_machine *m = temu_session_machine(st);
    int64_t s = rank_node(st, atoi(argv[3])), d = rank_node(st, atoi(argv[4]));
    uint64_t b = strtoull(argv[5], NULL, 10);
    int zero = argc > 6 && strcmp(argv[6], "zero") == 0;
    flow f;
    memset(&f, 0, sizeof f);
    if (m->system == TEMU_SYSTEM_GEMINI) {
        gemini_flow(m, b, zero, &f);
        check_gemini(st, temu_node_router(m, s), temu_node_router(m, d), &f);
    } else {
        bluegene_flow(m, s, d, b, TEMU_KIND_P2P, &f);
        check_bluegene(st, s, d, &f);
    }
    if (temu_session_messages(st) != 1 || temu_session_bytes(st) != b) {
        fprintf(stderr,
                "tmpi_check: totals %" PRIu64 " messages %" PRIu64 " bytes, expected 1 and %" PRIu64
                "\n",
                temu_session_messages(st), temu_session_bytes(st), b);
        nfail++;
    }
    temu_session_close(st);
    return nfail ? 1 : 0;
}

static int cmd_rma(int argc, char **argv)
{
    if (argc != 7 || (strcmp(argv[6], "put") != 0 && strcmp(argv[6], "get") != 0)) {
        fprintf(stderr, "usage: tmpi_check rma STORE ORIGIN TARGET BYTES put|get\n");
        return 2;
    }
    temu_session *st = open_store(argv[2]);
    const temu_machine *m = temu_session_machine(st);
    int64_t s = rank_node(st, atoi(argv[3])), d = rank_node(st, atoi(argv[4]));
    uint64_t b = strtoull(argv[5], NULL, 10);
    int get = strcmp(argv[6], "get") == 0;
    flow f;
    memset(&f, 0, sizeof f);
    if (m->system == TEMU_SYSTEM_GEMINI) {
        gemini_stream(&f, 0, get, 0, b, 0); /* FMA below the BTE threshold, same packets */
        check_gemini(st, temu_node_router(m, s), temu_node_router(m, d), &f);
    } else {
        int bgq = m->system == TEMU_SYSTEM_BGQ;
        int det = bgq ? 1 : 2;
        int dyn = bgq ? (b > 65536 && dims_differ(m, s, d) > 1 ? 0 : 1) : 0;
        if (get) { /* remote-get descriptor there, the data back */
            if (bgq) {
                bgq_packets(&f, 0, det, 64);
                bgq_packets(&f, 1, dyn, b);
            } else {
                bgp_packets(&f, 0, det, 32);
                bgp_packets(&f, 1, dyn, b);
            }
        } else if (bgq) {
            bgq_packets(&f, 0, dyn, b);
        } else {
            bgp_packets(&f, 0, dyn, b);
        }
        check_bluegene(st, s, d, &f);
    }
    if (temu_session_messages(st) != 1 || temu_session_bytes(st) != b) {
        fprintf(stderr,
                "tmpi_check: totals %" PRIu64 " messages %" PRIu64 " bytes, expected 1 and %" PRIu64
                "\n",
                temu_session_messages(st), temu_session_bytes(st), b);
        nfail++;
    }
    temu_session_close(st);
    return nfail ? 1 : 0;
}

/* ------------------------------------------------------- message lists */

typedef struct msg {
    int32_t src, dst;
    uint64_t bytes;
    int kind;
} msg;

static msg *read_list(const char *path, size_t *n)
{
    FILE *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "r");
    char line[256];
    size_t cap = 0;
    msg *v = NULL;
    *n = 0;
    if (f == NULL) {
        fprintf(stderr, "tmpi_check: cannot read %s: %s\n", path, strerror(errno));
        exit(2);
    }
    for (int lineno = 1; fgets(line, sizeof line, f) != NULL; lineno++) {
        msg mm;
        char kind[32] = "p2p";
        unsigned long long b;
        int k = sscanf(line, "%d %d %llu %31s", &mm.src, &mm.dst, &b, kind);
        if (line[0] == '#' || k <= 0) {
            continue;
        }
        if (k < 3 || (mm.kind = temu_kind_parse(kind)) < 0) {
            fprintf(stderr, "tmpi_check: %s:%d: expected SRC DST BYTES [KIND]\n", path, lineno);
            exit(2);
        }
        mm.bytes = b;
        if (*n == cap) {
            cap = cap ? 2 * cap : 256;
            v = realloc(v, cap * sizeof *v);
            if (v == NULL) {
                fprintf(stderr, "tmpi_check: out of memory\n");
                exit(2);
            }
        }
        v[(*n)++] = mm;
    }
    if (f != stdin) {
        fclose(f);
    }
    return v;
}

static int cmd_expect(int argc, char **argv)
{
    temu_session *st, *p;
    temu_error err;
    size_t n;
    uint64_t bytes = 0;
    if (argc != 4) {
        fprintf(stderr, "usage: tmpi_check expect STORE FILE\n");
        return 2;
    }
    st = open_store(argv[2]);
    msg *v = read_list(argv[3], &n);
    if (temu_session_create_private(temu_session_machine(st), &p, &err) != TEMU_OK) {
        fprintf(stderr, "tmpi_check: %s\n", err.message);
        return 2;
    }
    for (size_t i = 0; i < n; i++) {
        temu_message mm = {rank_node(st, v[i].src), rank_node(st, v[i].dst), v[i].bytes, NULL,
                           (temu_kind)v[i].kind};
        if (temu_inject(p, &mm, &err) != TEMU_OK) {
            fprintf(stderr, "tmpi_check: %s\n", err.message);
            return 2;
        }
        bytes += v[i].bytes;
    }
    compare_all(st, p, 0);
    if (temu_session_messages(st) != n || temu_session_bytes(st) != bytes) {
        fprintf(stderr,
                "tmpi_check: totals %" PRIu64 " messages %" PRIu64
                " bytes, expected %zu and %" PRIu64 "\n",
                temu_session_messages(st), temu_session_bytes(st), n, bytes);
        nfail++;
    }
    free(v);
    temu_session_close(p);
    temu_session_close(st);
    return nfail ? 1 : 0;
}

static int cmd_hops(int argc, char **argv)
{
    size_t n;
    uint64_t want = 0, got = 0;
    if (argc != 4) {
        fprintf(stderr, "usage: tmpi_check hops STORE FILE\n");
        return 2;
    }
    temu_session *st = open_store(argv[2]);
    const temu_machine *m = temu_session_machine(st);
    if (m->system != TEMU_SYSTEM_BGQ) {
        fprintf(stderr, "tmpi_check: hops applies to BG/Q stores\n");
        return 2;
    }
    msg *v = read_list(argv[3], &n);
    for (size_t i = 0; i < n; i++) {
        int64_t s = rank_node(st, v[i].src), d = rank_node(st, v[i].dst);
        flow f;
        memset(&f, 0, sizeof f);
        bluegene_flow(m, s, d, v[i].bytes, v[i].kind, &f);
        uint64_t fwd = 0, back = 0;
        for (int vc = 0; vc < TEMU_BGQ_VCS; vc++) {
            fwd += f.chunks[0][vc];
            back += f.chunks[1][vc];
        }
        temu_hop hops[TEMU_MAX_HOPS];
        want += (uint64_t)expected_route(m, s, d, hops) * fwd +
                (uint64_t)expected_route(m, d, s, hops) * back;
    }
    for (int64_t node = 0; node < m->nnodes; node++) {
        for (int l = 0; l < TEMU_BGQ_LINKS; l++) {
            for (int vc = 0; vc < TEMU_BGQ_VCS; vc++) {
                got +=
                    temu_counter_read(st, temu_idx_bgq_nw(m, node, l, TEMU_BGQ_NW_SENT_CHUNKS, vc));
            }
        }
    }
    printf("chunks sent over all links: %" PRIu64 " (hops x chunks predicts %" PRIu64 ")\n", got,
           want);
    free(v);
    temu_session_close(st);
    return got == want ? 0 : 1;
}

/* Sum of every network-link counter (Gemini network tiles, Blue Gene
 * torus links): chunks, phits, packets, acks. */
static uint64_t network_sum(const temu_session *st)
{
    const temu_machine *m = temu_session_machine(st);
    uint64_t sum = 0;
    for (int64_t r = 0; r < m->nrouters; r++) {
        for (int l = 0; l < 2 * m->ndims; l++) {
            if (m->system == TEMU_SYSTEM_GEMINI) {
                int tiles[TEMU_GEMINI_TILES];
                int nt = temu_gemini_link_tiles(l, tiles);
                for (int i = 0; i < nt; i++) {
                    for (int c = 0; c < 4; c++) {
                        sum += temu_counter_read(st, temu_idx_gemini_tile(m, r, tiles[i], c));
                    }
                }
            } else if (m->system == TEMU_SYSTEM_BGQ) {
                for (int k = 0; k < 2; k++) {
                    for (int vc = 0; vc < TEMU_BGQ_VCS; vc++) {
                        sum += temu_counter_read(st, temu_idx_bgq_nw(m, r, l, k, vc));
                    }
                }
            } else {
                for (int c = 0; c < 8; c++) {
                    sum += temu_counter_read(st, temu_idx_bgp(m, r, l, c));
                }
            }
        }
    }
    return sum;
}

static int cmd_quiet(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: tmpi_check quiet STORE\n");
        return 2;
    }
    temu_session *st = open_store(argv[2]);
    uint64_t sum = network_sum(st);
    printf("network-link counters add up to %" PRIu64 " (%" PRIu64 " messages injected)\n", sum,
           temu_session_messages(st));
    temu_session_close(st);
    return sum == 0 ? 0 : 1;
}

static int cmd_load(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: tmpi_check load STORE\n");
        return 2;
    }
    temu_session *st = open_store(argv[2]);
    printf("%" PRIu64 "\n", network_sum(st));
    temu_session_close(st);
    return 0;
}

static int cmd_same(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: tmpi_check %s STORE1 STORE2\n", argv[1]);
        return 2;
    }
    temu_session *a = open_store(argv[2]), *b = open_store(argv[3]);
    if (strcmp(temu_session_machine(a)->name, temu_session_machine(b)->name) != 0) {
        fprintf(stderr, "tmpi_check: the stores are of different machines\n");
        return 1;
    }
    compare_all(a, b, strcmp(argv[1], "identical") == 0);
    if (temu_session_messages(a) != temu_session_messages(b) ||
        temu_session_bytes(a) != temu_session_bytes(b) || temu_session_messages(a) == 0 ||
        network_sum(a) == 0) {
        fprintf(stderr,
                "tmpi_check: totals %" PRIu64 "/%" PRIu64 " messages, %" PRIu64 "/%" PRIu64
                " bytes (must be equal, with traffic on the network)\n",
                temu_session_messages(a), temu_session_messages(b), temu_session_bytes(a),
                temu_session_bytes(b));
        nfail++;
    }
    temu_session_close(a);
    temu_session_close(b);
    return nfail ? 1 : 0;
}

int main(int argc, char **argv)
{
    if (argc >= 2 && strcmp(argv[1], "ping") == 0) {
        return cmd_ping(argc, argv);
    }
    if (argc >= 2 && strcmp(argv[1], "rma") == 0) {
        return cmd_rma(argc, argv);
    }
    if (argc >= 2 && strcmp(argv[1], "expect") == 0) {
        return cmd_expect(argc, argv);
    }
    if (argc >= 2 && strcmp(argv[1], "hops") == 0) {
        return cmd_hops(argc, argv);
    }
    if (argc >= 2 && strcmp(argv[1], "quiet") == 0) {
        return cmd_quiet(argc, argv);
    }
    if (argc >= 2 && strcmp(argv[1], "load") == 0) {
        return cmd_load(argc, argv);
    }
    if (argc >= 2 && (strcmp(argv[1], "same") == 0 || strcmp(argv[1], "identical") == 0)) {
        return cmd_same(argc, argv);
    }
    fprintf(stderr,
            "usage: tmpi_check ping|rma|expect|hops|quiet|load|same ... (see the source)\n");
    return 2;
}
