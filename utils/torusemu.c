/*
 * torusemu - command-line front end of the emulated machine.
 *
 *   torusemu machine SPEC | --presets      describe a machine
 *   torusemu route SPEC SRC DST            hops, links, tiles, media, counts
 *   torusemu interconnect SPEC [-o FILE]   Gemini `rtr --interconnect` file
 *   torusemu create STORE --machine SPEC   make a session store
 *   torusemu inject STORE ...              add traffic to a store
 *   torusemu dump STORE [filters]          counters per node and link
 *   torusemu reset STORE                   zero a store
 *   torusemu demo                          the built-in walkthrough
 *   torusemu run --machine SPEC -np P -- PROG   run an MPI program (run.c)
 *
 * Every command answers --help.  Output formats are in doc/cli.md.
 */
#include "torusemu.h"
#include "cmd_replay.h"
#include "run.h"

#include <errno.h>
#include <stdarg.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_DEMO_BYTES (64 * 1024)

static const char *progname = "torusemu";

static int fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int fail(const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "%s: ", progname);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    return 2;
}

static int fail_err(const temu_error *err)
{
    return fail("%s", err->message);
}

static int wants_help(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            return 1;
        }
    }
    return 0;
}

static int parse_u64(const char *s, uint64_t *out)
{
    char *end;
    errno = 0;
    if (s == NULL || *s == '\0' || *s == '-') {
        return -1;
    }
    unsigned long long v = strtoull(s, &end, 10);
    if (errno != 0 || *end != '\0') {
        /* accept K, M, G suffixes (binary) */
        if (errno == 0 && end[1] == '\0' && (*end == 'K' || *end == 'M' || *end == 'G')) {
            int shift = *end == 'K' ? 10 : *end == 'M' ? 20 : 30;
            if (v > (UINT64_MAX >> shift)) {
                return -1;
            }
            *out = (uint64_t)v << shift;
            return 0;
        }
        return -1;
    }
    *out = v;
    return 0;
}

/* A node given as an id ("17") or as coordinates ("1,0,2" or, on Gemini,
 * "1,0,2,1" for the second node of that Gemini). */
static int parse_node(const temu_machine *m, const char *s, int64_t *node)
{
    int32_t c[TEMU_MAX_DIMS + 1];
    int n = 0;
    const char *p = s;
    if (strchr(s, ',') == NULL) {
        uint64_t v;
        if (parse_u64(s, &v) != 0 || v >= (uint64_t)m->nnodes) {
            return fail("node '%s': expected a node id 0..%lld or coordinates", s,
                        (long long)m->nnodes - 1);
        }
        *node = (int64_t)v;
        return 0;
    }
    while (*p != '\0' && n <= TEMU_MAX_DIMS) {
        char *end;
        long v = strtol(p, &end, 10);
        if (end == p || (*end != ',' && *end != '\0')) {
            return fail("node '%s': coordinates must be integers separated by commas", s);
        }
        c[n++] = (int32_t)v;
        p = *end == ',' ? end + 1 : end;
    }
    int extra = m->system == TEMU_SYSTEM_GEMINI ? 1 : 0;
    if (n != m->ndims && n != m->ndims + extra) {
        return fail("node '%s': %s needs %d coordinates%s", s, temu_system_name(m->system),
                    m->ndims, extra ? " (plus an optional node 0/1 of the Gemini)" : "");
    }
    for (int d = 0; d < m->ndims; d++) {
        if (c[d] < 0 || c[d] >= m->size[d]) {
            return fail("node '%s': coordinate %d is outside 0..%d", s, c[d], m->size[d] - 1);
        }
    }
    int k = n > m->ndims ? c[m->ndims] : 0;
    if (k < 0 || k >= m->nodes_per_router) {
        return fail("node '%s': node-in-Gemini must be 0 or 1", s);
    }
    *node = temu_router_index(m, c) * m->nodes_per_router + k;
    return 0;
}

static void print_coords(const temu_machine *m, int64_t router, FILE *f)
{
    int32_t c[TEMU_MAX_DIMS];
    temu_router_coords(m, router, c);
    fputc('(', f);
    for (int d = 0; d < m->ndims; d++) {
        fprintf(f, d ? ",%d" : "%d", c[d]);
    }
    fputc(')', f);
}

/* ------------------------------------------------------------ machine */

static void print_tile_table(const temu_machine *m)
{
    printf("\nGemini tile map (seed 000 Fig. 3), tile = row*8 + column, per-tile GB/s on "
           "router 0:\n");
    for (int row = 0; row < TEMU_GEMINI_TILE_ROWS; row++) {
        printf("  row %d:", row);
        for (int col = 0; col < TEMU_GEMINI_TILE_COLS; col++) {
            int t = row * 8 + col;
            int link = temu_gemini_tile_link(t);
            temu_medium md = temu_gemini_link_medium(m, 0, link);
            printf("  %2d %-2s %-9s %.2f", t, temu_link_name(m, link), temu_medium_name(md),
                   temu_medium_tile_bandwidth(md));
        }
        printf("\n");
    }
    printf("\nlogical links of router 0:\n");
    for (int l = 0; l < m->nlinks; l++) {
        int tiles[TEMU_GEMINI_TILES];
        int n = temu_gemini_link_tiles(l, tiles);
        printf("  %-2s %d tiles %-9s %6.2f GB/s  tiles", temu_link_name(m, l), n,
               temu_medium_name(temu_gemini_link_medium(m, 0, l)),
               temu_gemini_link_bandwidth(m, 0, l));
        for (int i = 0; i < n; i++) {
            printf(" %d", tiles[i]);
        }
        printf("\n");
    }
}

static int cmd_machine(int argc, char **argv)
{
    temu_machine m;
    temu_error err;
    int tiles = 0;
    const char *spec = NULL;
    if (wants_help(argc, argv)) {
        printf("usage: torusemu machine SPEC [--tiles]\n"
               "       torusemu machine --presets\n"
               "Describe a machine.  SPEC is gemini:XxYxZ, bgp:XxYxZ, bgq:AxBxCxDxE or a preset,\n"
               "with options ,torus=10111 ,cores=N ,eager=B ,bte=B ,header=B.\n"
               "--tiles prints the Gemini 48-tile table with media and bandwidths.\n");
        return 0;
    }
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--presets") == 0) {
            temu_machine_list_presets(stdout);
            return 0;
        } else if (strcmp(argv[i], "--tiles") == 0) {
            tiles = 1;
        } else if (spec == NULL) {
            spec = argv[i];
        } else {
            return fail("machine: unexpected argument '%s'", argv[i]);
        }
    }
    if (spec == NULL) {
        return fail("machine: missing SPEC (try --presets)");
    }
    if (temu_machine_parse(spec, &m, &err) != TEMU_OK) {
        return fail_err(&err);
    }
    temu_machine_describe(&m, stdout);
    if (tiles) {
        if (m.system != TEMU_SYSTEM_GEMINI) {
            return fail("--tiles applies to Gemini machines only");
        }
        print_tile_table(&m);
    }
    return 0;
}

/* ------------------------------------------------------------ route */

static void print_tiles(const char *label, int link)
{
    int tiles[TEMU_GEMINI_TILES];
    int n = temu_gemini_link_tiles(link, tiles);
    printf("  %s", label);
    for (int i = 0; i < n; i++) {
        printf(" %d", tiles[i]);
    }
}

static void print_route(const temu_machine *m, const char *title, int64_t src, int64_t dst)
{
    temu_hop hops[TEMU_MAX_HOPS];
    int n = temu_route(m, src, dst, hops, TEMU_MAX_HOPS);
    printf("%s: %d hop%s\n", title, n, n == 1 ? "" : "s");
    for (int h = 0; h < n; h++) {
        char a[64], b[64];
        temu_router_name(m, hops[h].from, a, sizeof a);
        temu_router_name(m, hops[h].to, b, sizeof b);
        printf("  hop %d  ", h + 1);
        print_coords(m, hops[h].from, stdout);
        printf(" -> ");
        print_coords(m, hops[h].to, stdout);
        printf("  %-2s", temu_link_name(m, hops[h].link));
        if (m->system == TEMU_SYSTEM_GEMINI) {
            temu_medium md = temu_gemini_link_medium(m, hops[h].from, hops[h].link);
            printf("  %-9s %6.2f GB/s", temu_medium_name(md),
                   temu_gemini_link_bandwidth(m, hops[h].from, hops[h].link));
            print_tiles(" out tiles", hops[h].link);
            print_tiles(" -> in tiles", hops[h].in_link);
        } else {
            printf("  %s -> %s", a, b);
        }
        printf("\n");
    }
}

/* Counts a message left on each link of a route, read back from a store. */
static void print_route_counts(const temu_session *s, const char *title, int64_t src,
                               int64_t dst)
{
    const temu_machine *m = temu_session_machine(s);
    temu_hop hops[TEMU_MAX_HOPS];
    int64_t rs = temu_node_router(m, src), rd = temu_node_router(m, dst);
    int n = temu_route(m, rs, rd, hops, TEMU_MAX_HOPS);
    printf("%s\n", title);
    if (m->system == TEMU_SYSTEM_GEMINI) {
        printf("  %-28s %12s %12s %10s %10s\n", "arriving at (link tiles)", "VC0_PHITS",
               "VC1_PHITS", "VC0_PKTS", "VC1_PKTS");
        for (int h = -1; h < n; h++) {
            int64_t r = h < 0 ? rs : hops[h].to;
            int link = h < 0 ? 2 * m->ndims : hops[h].in_link;
            int tiles[TEMU_GEMINI_TILES];
            int nt = temu_gemini_link_tiles(link, tiles);
            uint64_t sum[4] = {0};
            for (int i = 0; i < nt; i++) {
                for (int c = 0; c < 4; c++) {
                    sum[c] += temu_counter_read(s, temu_idx_gemini_tile(m, r, tiles[i], c));
                }
            }
            char name[64];
            temu_router_name(m, r, name, sizeof name);
            printf("  %-22s %-5s %12" PRIu64 " %12" PRIu64 " %10" PRIu64 " %10" PRIu64 "\n", name,
                   temu_link_name(m, link), sum[0], sum[1], sum[2], sum[3]);
        }
        return;
    }
    if (m->system == TEMU_SYSTEM_BGQ) {
        printf("  %-18s %-4s %s\n", "sent by", "link", "32B chunks sent per VC 0..6 | packets "
                                                   "received at the far end per VC 0..6");
    } else {
        printf("  %-18s %-4s %s\n", "sent by", "link", "packets  32B chunks  (VCD0 VCD1 VCBN VCBP "
                                                   "chunks)  acks returned");
    }
    for (int h = 0; h < n; h++) {
        char name[64];
        temu_node_name(m, hops[h].from, name, sizeof name);
        printf("  %-18s %-4s", name, temu_link_name(m, hops[h].link));
        if (m->system == TEMU_SYSTEM_BGQ) {
            for (int vc = 0; vc < TEMU_BGQ_VCS; vc++) {
                printf(" %" PRIu64, temu_counter_read(s, temu_idx_bgq_nw(m, hops[h].from,
                                                                         hops[h].link,
                                                                         TEMU_BGQ_NW_SENT_CHUNKS,
                                                                         vc)));
            }
            printf(" |");
            for (int vc = 0; vc < TEMU_BGQ_VCS; vc++) {
                printf(" %" PRIu64,
                       temu_counter_read(s, temu_idx_bgq_nw(m, hops[h].to, hops[h].in_link,
                                                            TEMU_BGQ_NW_RECV_PACKETS, vc)));
            }
        } else {
            int64_t out = temu_idx_bgp(m, hops[h].from, hops[h].link, 0);
            printf(" %7" PRIu64 " %11" PRIu64 "  (", temu_counter_read(s, out + TEMU_BGP_PACKETS),
                   temu_counter_read(s, out + TEMU_BGP_CHUNKS));
            for (int vc = 0; vc < 4; vc++) {
                printf(vc ? " %" PRIu64 : "%" PRIu64,
                       temu_counter_read(s, out + TEMU_BGP_VCD0_CHUNKS + vc));
            }
            printf(")  %" PRIu64,
                   temu_counter_read(s, temu_idx_bgp(m, hops[h].to, hops[h].in_link,
                                                     TEMU_BGP_ACKS)));
        }
        printf("\n");
    }
}

/* Fill buf with a payload pattern: "random[:SEED]", "zero", "ones". */
static int fill_payload(const char *pattern, unsigned char *buf, uint64_t n)
{
    if (strcmp(pattern, "zero") == 0) {
        memset(buf, 0, n);
        return 0;
    }
    if (strcmp(pattern, "ones") == 0) {
        memset(buf, 0xff, n);
        return 0;
    }
    if (strncmp(pattern, "random", 6) == 0) {
        uint64_t x = 88172645463325252ull;
        if (pattern[6] == ':' && parse_u64(pattern + 7, &x) != 0) {
            return fail("payload '%s': random:SEED needs a decimal seed", pattern);
        } else if (pattern[6] != ':' && pattern[6] != '\0') {
            return fail("payload '%s': use zero, ones, random or random:SEED", pattern);
        }
        x = x ? x : 1;
        for (uint64_t i = 0; i < n; i++) { /* xorshift64 */
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            buf[i] = (unsigned char)(x >> 24);
        }
        return 0;
    }
    return fail("payload '%s': use zero, ones, random or random:SEED", pattern);
}

typedef struct traffic_opts {
    uint64_t bytes;
    int kind;
    const char *payload; /* NULL: no payload (no compression) */
    uint64_t count;
} traffic_opts;

/* Parse --bytes/--kind/--payload/--count at argv[*i]; 1 if consumed. */
static int parse_traffic_opt(int argc, char **argv, int *i, traffic_opts *o, int *rc)
{
    const char *a = argv[*i];
    const char *v = *i + 1 < argc ? argv[*i + 1] : NULL;
    if (strcmp(a, "--bytes") != 0 && strcmp(a, "--kind") != 0 && strcmp(a, "--payload") != 0 &&
        strcmp(a, "--count") != 0) {
        return 0;
    }
    (*i)++;
    if (v == NULL) {
        *rc = fail("%s needs a value", a);
    } else if (strcmp(a, "--bytes") == 0 && parse_u64(v, &o->bytes) != 0) {
        *rc = fail("--bytes '%s': expected a byte count (suffix K, M, G allowed)", v);
    } else if (strcmp(a, "--count") == 0 && (parse_u64(v, &o->count) != 0 || o->count == 0)) {
        *rc = fail("--count '%s': expected a positive integer", v);
    } else if (strcmp(a, "--kind") == 0 && (o->kind = temu_kind_parse(v)) < 0) {
        *rc = fail("--kind '%s': use p2p, coll-world, coll-sub, put or get", v);
    } else if (strcmp(a, "--payload") == 0) {
        o->payload = v;
    }
    return 1;
}

static int inject_traffic(temu_session *s, int64_t src, int64_t dst, const traffic_opts *o)
{
    temu_error err;
    temu_message msg = {src, dst, o->bytes, NULL, (temu_kind)o->kind};
    unsigned char *buf = NULL;
    if (o->payload != NULL && o->bytes > 0) {
        if (o->bytes > (1ull << 32)) {
            return fail("--payload needs the bytes in memory; %" PRIu64 " is too large",
                        o->bytes);
        }
        buf = malloc(o->bytes);
        if (buf == NULL) {
            return fail("out of memory for a %" PRIu64 "-byte payload", o->bytes);
        }
        if (fill_payload(o->payload, buf, o->bytes) != 0) {
            free(buf);
            return 2;
        }
        msg.payload = buf;
    }
    for (uint64_t i = 0; i < o->count; i++) {
        if (temu_inject(s, &msg, &err) != TEMU_OK) {
            free(buf);
            return fail_err(&err);
        }
    }
    free(buf);
    return 0;
}

static int cmd_route(int argc, char **argv)
{
    temu_machine m;
    temu_error err;
    const char *pos[3] = {NULL, NULL, NULL};
    int npos = 0, rc = 0;
    traffic_opts o = {0, TEMU_KIND_P2P, NULL, 1};
    int have_bytes = 0;
    int64_t src, dst;

    if (wants_help(argc, argv)) {
        printf("usage: torusemu route SPEC SRC DST [--bytes B [--kind K] [--payload P]]\n"
               "Print the deterministic route between two nodes (node ids or coordinates\n"
               "such as 1,0,2; on Gemini 1,0,2,1 is node 1 of that Gemini): each hop with its\n"
               "link, and on Gemini the medium, bandwidth and tiles, plus the return route.\n"
               "With --bytes, inject one message into a private store and print the counts\n"
               "it leaves on every link of both routes.  K: p2p (default), coll-world,\n"
               "coll-sub, put, get.  P: zero, ones, random[:SEED] (Gemini compression).\n");
        return 0;
    }
    for (int i = 1; i < argc && rc == 0; i++) {
        if (parse_traffic_opt(argc, argv, &i, &o, &rc)) {
            have_bytes |= strcmp(argv[i - 1], "--bytes") == 0;
            continue;
        }
        if (npos >= 3) {
            return fail("route: unexpected argument '%s'", argv[i]);
        }
        pos[npos++] = argv[i];
    }
    if (rc != 0) {
        return rc;
    }
    if (npos != 3) {
        return fail("route: expected SPEC SRC DST (see --help)");
    }
    if (temu_machine_parse(pos[0], &m, &err) != TEMU_OK) {
        return fail_err(&err);
    }
    if (parse_node(&m, pos[1], &src) != 0 || parse_node(&m, pos[2], &dst) != 0) {
        return 2;
    }
    char a[64], b[64];
    temu_node_name(&m, src, a, sizeof a);
    temu_node_name(&m, dst, b, sizeof b);
    printf("route on %s: node %lld %s ", m.name, (long long)src, a);
    print_coords(&m, temu_node_router(&m, src), stdout);
    printf(" -> node %lld %s ", (long long)dst, b);
    print_coords(&m, temu_node_router(&m, dst), stdout);
    printf("\n");
    print_route(&m, "request route", temu_node_router(&m, src), temu_node_router(&m, dst));
    print_route(&m, "return route", temu_node_router(&m, dst), temu_node_router(&m, src));
    if (!have_bytes) {
        return 0;
    }
    temu_session *s;
    if (temu_session_create_private(&m, &s, &err) != TEMU_OK) {
        return fail_err(&err);
    }
    rc = inject_traffic(s, src, dst, &o);
    if (rc == 0) {
        printf("\none %s message of %" PRIu64 " bytes%s%s:\n", temu_kind_name((temu_kind)o.kind),
               o.bytes, o.payload ? ", payload " : "", o.payload ? o.payload : "");
        print_route_counts(s, "counts along the request route", src, dst);
        print_route_counts(s, "counts along the return route", dst, src);
    }
    temu_session_close(s);
    return rc;
}

/* ------------------------------------------------------------ interconnect */

static int cmd_interconnect(int argc, char **argv)
{
    temu_machine m;
    temu_error err;
    const char *spec = NULL, *out = NULL;
    if (wants_help(argc, argv)) {
        printf("usage: torusemu interconnect SPEC [-o FILE]\n"
               "Write the tile-to-link map of a Gemini machine in the format of Cray's\n"
               "`rtr --interconnect` (seed 000 Fig. 2): 40 lines per Gemini, one per network\n"
               "tile, e.g.\n"
               "  c0-0c0s0g0l00[(0,0,0)] Z+ -> c0-0c0s1g0l06[(0,0,1)] LinkType: backplane\n");
        return 0;
    }
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "-o") == 0 && i + 1 < argc) {
            out = argv[++i];
        } else if (spec == NULL) {
            spec = argv[i];
        } else {
            return fail("interconnect: unexpected argument '%s'", argv[i]);
        }
    }
    if (spec == NULL) {
        return fail("interconnect: missing SPEC");
    }
    if (temu_machine_parse(spec, &m, &err) != TEMU_OK) {
        return fail_err(&err);
    }
    FILE *f = out != NULL ? fopen(out, "w") : stdout;
    if (f == NULL) {
        return fail("cannot write '%s': %s", out, strerror(errno));
    }
    temu_status st = temu_gemini_write_interconnect(&m, f, &err);
    if (out != NULL && fclose(f) != 0 && st == TEMU_OK) {
        return fail("cannot write '%s': %s", out, strerror(errno));
    }
    return st == TEMU_OK ? 0 : fail_err(&err);
}

/* ------------------------------------------------------------ create */

static int cmd_create(int argc, char **argv)
{
    temu_machine m;
    temu_mapping map;
    temu_error err;
    temu_session *s;
    const char *store = NULL, *spec = NULL, *how = NULL;
    uint64_t ranks = 0, rpn = 1;
    if (wants_help(argc, argv)) {
        printf("usage: torusemu create STORE --machine SPEC [--ranks P] [--ranks-per-node N]\n"
               "                        [--map ORDER|FILE|random:SEED]\n"
               "Create a session store file for SPEC.  With --ranks, the rank-to-node\n"
               "mapping is recorded (default order: BG/Q ABCDET, BG/P XYZT, Gemini node\n"
               "order).  Without it, the store holds 0 ranks and takes node-level traffic.\n");
        return 0;
    }
    for (int i = 1; i < argc; i++) {
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(argv[i], "--machine") == 0 && v) {
            spec = v;
            i++;
        } else if (strcmp(argv[i], "--ranks") == 0 && v) {
            if (parse_u64(v, &ranks) != 0 || ranks == 0 || ranks > INT32_MAX) {
                return fail("--ranks '%s': expected a positive integer", v);
            }
            i++;
        } else if (strcmp(argv[i], "--ranks-per-node") == 0 && v) {
            if (parse_u64(v, &rpn) != 0 || rpn == 0 || rpn > 1024) {
                return fail("--ranks-per-node '%s': expected 1..1024", v);
            }
            i++;
        } else if (strcmp(argv[i], "--map") == 0 && v) {
            how = v;
            i++;
        } else if (store == NULL && argv[i][0] != '-') {
            store = argv[i];
        } else {
            return fail("create: unexpected or incomplete argument '%s'", argv[i]);
        }
    }
    if (store == NULL || spec == NULL) {
        return fail("create: need STORE and --machine SPEC");
    }
    if (temu_machine_parse(spec, &m, &err) != TEMU_OK) {
        return fail_err(&err);
    }
    memset(&map, 0, sizeof map);
    if (ranks > 0 &&
        temu_mapping_build(&m, (int32_t)ranks, (int32_t)rpn, how, &map, &err) != TEMU_OK) {
        return fail_err(&err);
    }
    if (ranks == 0 && how != NULL) {
        return fail("create: --map needs --ranks");
    }
    temu_status st = temu_session_create(store, &m, ranks ? &map : NULL, &s, &err);
    temu_mapping_free(&map);
    if (st != TEMU_OK) {
        return fail_err(&err);
    }
    printf("created %s: %s, %d ranks, %llu counters\n", store, m.name, temu_session_nranks(s),
           (unsigned long long)temu_counter_count(s));
    temu_session_close(s);
    return 0;
}

/* ------------------------------------------------------------ inject */

static int cmd_inject(int argc, char **argv)
{
    temu_error err;
    temu_session *s;
    const char *store = NULL, *src_s = NULL, *dst_s = NULL;
    int by_rank = 0, rc = 0;
    traffic_opts o = {0, TEMU_KIND_P2P, NULL, 1};
    if (wants_help(argc, argv)) {
        printf("usage: torusemu inject STORE --src S --dst D --bytes B [--kind K]\n"
               "                        [--payload P] [--count C] [--ranks]\n"
               "Add C messages (default 1) of B bytes from S to D.  S and D are nodes (ids or\n"
               "coordinates) or, with --ranks, ranks of the stored mapping.  K: p2p, coll-world,\n"
               "coll-sub, put, get.  P: zero, ones, random[:SEED].\n");
        return 0;
    }
    for (int i = 1; i < argc && rc == 0; i++) {
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (parse_traffic_opt(argc, argv, &i, &o, &rc)) {
            continue;
        } else if (strcmp(argv[i], "--src") == 0 && v) {
            src_s = v;
            i++;
        } else if (strcmp(argv[i], "--dst") == 0 && v) {
            dst_s = v;
            i++;
        } else if (strcmp(argv[i], "--ranks") == 0) {
            by_rank = 1;
        } else if (store == NULL && argv[i][0] != '-') {
            store = argv[i];
        } else {
            return fail("inject: unexpected or incomplete argument '%s'", argv[i]);
        }
    }
    if (rc != 0) {
        return rc;
    }
    if (store == NULL || src_s == NULL || dst_s == NULL) {
        return fail("inject: need STORE, --src and --dst");
    }
    if (temu_session_attach(store, &s, &err) != TEMU_OK) {
        return fail_err(&err);
    }
    const temu_machine *m = temu_session_machine(s);
    int64_t src, dst;
    if (by_rank) {
        uint64_t a, b;
        temu_slot sa, sb;
        if (parse_u64(src_s, &a) != 0 || parse_u64(dst_s, &b) != 0 || a > INT32_MAX ||
            b > INT32_MAX) {
            temu_session_close(s);
            return fail("inject --ranks: --src and --dst must be rank numbers");
        }
        if (temu_session_rank_slot(s, (int32_t)a, &sa, &err) != TEMU_OK ||
            temu_session_rank_slot(s, (int32_t)b, &sb, &err) != TEMU_OK) {
            temu_session_close(s);
            return fail_err(&err);
        }
        src = sa.node;
        dst = sb.node;
    } else if (parse_node(m, src_s, &src) != 0 || parse_node(m, dst_s, &dst) != 0) {
        temu_session_close(s);
        return 2;
    }
    rc = inject_traffic(s, src, dst, &o);
    temu_session_close(s);
    return rc;
}

/* ------------------------------------------------------------ dump */

typedef struct dump_filter {
    int64_t node; /* -1: all */
    int link;     /* -1: all */
    int all;      /* print zero rows too */
    int tiles;    /* Gemini: per tile instead of per link */
} dump_filter;

static int any_nonzero(const uint64_t *v, int n)
{
    for (int i = 0; i < n; i++) {
        if (v[i] != 0) {
            return 1;
        }
    }
    return 0;
}

static void dump_gemini(const temu_session *s, const dump_filter *f)
{
    const temu_machine *m = temu_session_machine(s);
    static const char *nic_names[] = {
        "ORB_VC0_PKTS",  "ORB_VC0_FLITS",  "ORB_VC1_PKTS",  "ORB_VC1_FLITS",
        "RAT_HDR_FLITS", "RAT_DATA_FLITS", "NPT_PKTS",      "NPT_FLITS",
        "FMA_PKTS",      "FMA_FLITS",      "BTE_PKTS",      "BTE_FLITS",
        "OUT_PKTS",      "OUT_FLITS"};
    for (int64_t r = 0; r < m->nrouters; r++) {
        if (f->node >= 0 && temu_node_router(m, f->node) != r) {
            continue;
        }
        int header = 0;
        char name[64];
        temu_router_name(m, r, name, sizeof name);
        for (int l = 0; l < m->nlinks; l++) {
            int tiles[TEMU_GEMINI_TILES];
            int nt = temu_gemini_link_tiles(l, tiles);
            if (f->link >= 0 && f->link != l) {
                continue;
            }
            uint64_t sum[TEMU_GEMINI_TILE_COUNTERS] = {0};
            for (int i = 0; i < nt; i++) {
                uint64_t v[TEMU_GEMINI_TILE_COUNTERS];
                for (int c = 0; c < TEMU_GEMINI_TILE_COUNTERS; c++) {
                    v[c] = temu_counter_read(s, temu_idx_gemini_tile(m, r, tiles[i], c));
                    sum[c] += v[c];
                }
                if (f->tiles && (f->all || any_nonzero(v, TEMU_GEMINI_TILE_COUNTERS))) {
                    if (!header++) {
                        printf("gemini %s ", name);
                        print_coords(m, r, stdout);
                        printf("\n  %-12s %12s %12s %10s %10s %10s %12s\n", "tile", "VC0_PHITS",
                               "VC1_PHITS", "VC0_PKTS", "VC1_PKTS", "INQ_STALL", "CREDIT_STALL");
                    }
                    printf("  %-2s l%d%d (%2d) %12" PRIu64 " %12" PRIu64 " %10" PRIu64
                           " %10" PRIu64 " %10" PRIu64 " %12" PRIu64 "\n",
                           temu_link_name(m, l), tiles[i] / 8, tiles[i] % 8, tiles[i], v[0], v[1],
                           v[2], v[3], v[4], v[5]);
                }
            }
            if (!f->tiles && (f->all || any_nonzero(sum, TEMU_GEMINI_TILE_COUNTERS))) {
                if (!header++) {
                    printf("gemini %s ", name);
                    print_coords(m, r, stdout);
                    printf("\n  %-12s %12s %12s %10s %10s %10s %12s\n", "link", "VC0_PHITS",
                           "VC1_PHITS", "VC0_PKTS", "VC1_PKTS", "INQ_STALL", "CREDIT_STALL");
                }
                printf("  %-12s %12" PRIu64 " %12" PRIu64 " %10" PRIu64 " %10" PRIu64
                       " %10" PRIu64 " %12" PRIu64 "\n",
                       temu_link_name(m, l), sum[0], sum[1], sum[2], sum[3], sum[4], sum[5]);
            }
        }
        for (int k = 0; k < m->nodes_per_router && f->link < 0; k++) {
            int64_t node = r * m->nodes_per_router + k;
            uint64_t v[14];
            if (f->node >= 0 && f->node != node) {
                continue;
            }
            for (int c = 0; c < 14; c++) {
                v[c] = temu_counter_read(s, temu_idx_gemini_nic(m, node, c));
            }
            if (f->all || any_nonzero(v, 14)) {
                char nn[64];
                temu_node_name(m, node, nn, sizeof nn);
                if (!header++) {
                    printf("gemini %s ", name);
                    print_coords(m, r, stdout);
                    printf("\n");
                }
                printf("  NIC of node %lld (%s):", (long long)node, nn);
                for (int c = 0; c < 14; c++) {
                    printf(" %s=%" PRIu64, nic_names[c], v[c]);
                }
                printf("\n");
            }
        }
    }
}

static void dump_bgq(const temu_session *s, const dump_filter *f)
{
    const temu_machine *m = temu_session_machine(s);
    static const char *mu_names[] = {"PKT_INJ",        "MSG_INJ",       "FIFO_PKT_RCV",
                                     "RGET_PKT_RCV",   "PUT_PKT_RCV",   "PORT0_16B_WRT",
                                     "PORT0_32B_RD",   "PORT0_64B_RD",  "PORT0_128B_RD"};
    enum { NMU = sizeof mu_names / sizeof mu_names[0] };
    for (int64_t node = 0; node < m->nnodes; node++) {
        int header = 0;
        char name[64];
        if (f->node >= 0 && f->node != node) {
            continue;
        }
        temu_node_name(m, node, name, sizeof name);
        for (int l = 0; l < TEMU_BGQ_LINKS; l++) {
            uint64_t v[TEMU_BGQ_NW_KINDS * TEMU_BGQ_VCS];
            if (f->link >= 0 && f->link != l) {
                continue;
            }
            for (int k = 0; k < TEMU_BGQ_NW_KINDS; k++) {
                for (int vc = 0; vc < TEMU_BGQ_VCS; vc++) {
                    v[k * TEMU_BGQ_VCS + vc] =
                        temu_counter_read(s, temu_idx_bgq_nw(m, node, l, k, vc));
                }
            }
            if (!f->all && !any_nonzero(v, 2 * TEMU_BGQ_VCS)) {
                continue;
            }
            if (!header++) {
                printf("node %lld %s ", (long long)node, name);
                print_coords(m, node, stdout);
                printf("\n  link  sent chunks VC0..VC6            | recv packets VC0..VC6\n");
            }
            printf("  %-4s", temu_link_name(m, l));
            for (int i = 0; i < 2 * TEMU_BGQ_VCS; i++) {
                printf(i == TEMU_BGQ_VCS ? " | %" PRIu64 : " %" PRIu64, v[i]);
            }
            printf("\n");
        }
        uint64_t mu[NMU], l2[TEMU_BGQ_L2_SLICES];
        for (int c = 0; c < NMU; c++) {
            mu[c] = temu_counter_read(s, temu_idx_bgq_mu(m, node, c));
        }
        for (int k = 0; k < TEMU_BGQ_L2_SLICES; k++) {
            l2[k] = temu_counter_read(s, temu_idx_bgq_l2(m, node, k, 0));
        }
        if (f->link < 0 && (f->all || any_nonzero(mu, NMU))) {
            if (!header++) {
                printf("node %lld %s ", (long long)node, name);
                print_coords(m, node, stdout);
                printf("\n");
            }
            printf("  MU:");
            for (int c = 0; c < NMU; c++) {
                printf(" %s=%" PRIu64, mu_names[c], mu[c]);
            }
            printf("\n  L2 hits by slice:");
            for (int k = 0; k < TEMU_BGQ_L2_SLICES; k++) {
                printf(" %" PRIu64, l2[k]);
            }
            printf("\n");
        }
    }
}

static void dump_bgp(const temu_session *s, const dump_filter *f)
{
    const temu_machine *m = temu_session_machine(s);
    for (int64_t node = 0; node < m->nnodes; node++) {
        int header = 0;
        char name[64];
        if (f->node >= 0 && f->node != node) {
            continue;
        }
        temu_node_name(m, node, name, sizeof name);
        for (int l = 0; l < 6; l++) {
            uint64_t v[TEMU_BGP_COUNTERS];
            if (f->link >= 0 && f->link != l) {
                continue;
            }
            for (int c = 0; c < TEMU_BGP_COUNTERS; c++) {
                v[c] = temu_counter_read(s, temu_idx_bgp(m, node, l, c));
            }
            if (!f->all && !any_nonzero(v, TEMU_BGP_COUNTERS)) {
                continue;
            }
            if (!header++) {
                printf("node %lld %s ", (long long)node, name);
                print_coords(m, node, stdout);
                printf("\n  dir  packets  32Bchunks  VCD0 VCD1 VCBN VCBP  token_ack acks\n");
            }
            printf("  %-3s %8" PRIu64 " %10" PRIu64 "  %" PRIu64 " %" PRIu64 " %" PRIu64
                   " %" PRIu64 "  %" PRIu64 " %" PRIu64 "\n",
                   temu_link_name(m, l), v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7]);
        }
    }
}

static int cmd_dump(int argc, char **argv)
{
    temu_error err;
    temu_session *s;
    const char *store = NULL, *node_s = NULL, *link_s = NULL;
    dump_filter f = {-1, -1, 0, 0};
    if (wants_help(argc, argv)) {
        printf("usage: torusemu dump STORE [--node N] [--link L] [--all] [--tiles]\n"
               "Print the counters of a session store per node (Gemini: per router) and link.\n"
               "Rows that are all zero are left out unless --all.  --node takes an id or\n"
               "coordinates, --link a link name (X+, A-, IO, HH).  --tiles (Gemini) prints\n"
               "one row per tile instead of per logical link.\n");
        return 0;
    }
    for (int i = 1; i < argc; i++) {
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(argv[i], "--node") == 0 && v) {
            node_s = v;
            i++;
        } else if (strcmp(argv[i], "--link") == 0 && v) {
            link_s = v;
            i++;
        } else if (strcmp(argv[i], "--all") == 0) {
            f.all = 1;
        } else if (strcmp(argv[i], "--tiles") == 0) {
            f.tiles = 1;
        } else if (store == NULL && argv[i][0] != '-') {
            store = argv[i];
        } else {
            return fail("dump: unexpected or incomplete argument '%s'", argv[i]);
        }
    }
    if (store == NULL) {
        return fail("dump: missing STORE");
    }
    if (temu_session_attach(store, &s, &err) != TEMU_OK) {
        return fail_err(&err);
    }
    const temu_machine *m = temu_session_machine(s);
    if (node_s != NULL && parse_node(m, node_s, &f.node) != 0) {
        temu_session_close(s);
        return 2;
    }
    if (link_s != NULL && (f.link = temu_link_parse(m, link_s)) < 0) {
        int rc = fail("dump: '%s' is not a link of %s", link_s, m->name);
        temu_session_close(s);
        return rc;
    }
    printf("# session %s  machine %s  ranks %d  messages %" PRIu64 "  bytes %" PRIu64 "\n", store,
           m->name, temu_session_nranks(s), temu_session_messages(s), temu_session_bytes(s));
    switch (m->system) {
    case TEMU_SYSTEM_GEMINI:
        dump_gemini(s, &f);
        break;
    case TEMU_SYSTEM_BGQ:
        dump_bgq(s, &f);
        break;
    default:
        dump_bgp(s, &f);
        break;
    }
    temu_session_close(s);
    return 0;
}

static int cmd_reset(int argc, char **argv)
{
    temu_error err;
    temu_session *s;
    if (wants_help(argc, argv) || argc != 2) {
        printf("usage: torusemu reset STORE\nZero every counter of a session store.\n");
        return argc == 2 ? 0 : 2;
    }
    if (temu_session_attach(argv[1], &s, &err) != TEMU_OK) {
        return fail_err(&err);
    }
    temu_session_zero(s);
    temu_session_close(s);
    return 0;
}

/* ------------------------------------------------------------ demo */

static int demo_one(const char *spec, const char *src, const char *dst, const char *bytes)
{
    char *argv[] = {"route", (char *)spec, (char *)src, (char *)dst, "--bytes", (char *)bytes,
                    "--payload", "random:1", NULL};
    char *margv[] = {"machine", (char *)spec, NULL};
    printf("==================================================================\n");
    int rc = cmd_machine(2, margv);
    printf("\n");
    return rc != 0 ? rc : cmd_route(8, argv);
}

static int cmd_demo(int argc, char **argv)
{
    if (wants_help(argc, argv)) {
        printf("usage: torusemu demo\nDescribe one default machine of each system and route a "
               "message across it,\nprinting the counts it leaves on every link.\n");
        return 0;
    }
    int rc = demo_one("cielo", "0,0,0", "3,0,1", "64K");
    if (rc == 0) {
        rc = demo_one("midplane", "0,0,0,0,0", "2,1,0,0,1", "16K");
    }
    if (rc == 0) {
        rc = demo_one("bgp-midplane", "0,0,0", "2,1,0", "16K");
    }
    return rc;
}

/* ------------------------------------------------------------ main */

typedef struct command {
    const char *name;
    int (*run)(int, char **);
    const char *what;
} command;

static const command commands[] = {
    {"machine", cmd_machine, "describe a machine spec or list presets"},
    {"route", cmd_route, "route between two nodes, optionally with a message's counts"},
    {"interconnect", cmd_interconnect, "write a Gemini rtr --interconnect file"},
    {"create", cmd_create, "create a session store"},
    {"inject", cmd_inject, "add traffic to a session store"},
    {"dump", cmd_dump, "print a session store's counters"},
    {"reset", cmd_reset, "zero a session store"},
    {"demo", cmd_demo, "built-in walkthrough on default machines"},
    {"run", temu_cli_run, "run an MPI program on an emulated machine"},
    {"replay", temu_cli_replay, "replay a communication pattern, without processes"},
};

static void usage(FILE *f)
{
    fprintf(f, "usage: torusemu COMMAND [ARGS]   (torusemu COMMAND --help)\n\ncommands:\n");
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++) {
        fprintf(f, "  %-13s %s\n", commands[i].name, commands[i].what);
    }
}

int main(int argc, char **argv)
{
    if (argc < 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
        strcmp(argv[1], "help") == 0) {
        usage(argc < 2 ? stderr : stdout);
        return argc < 2 ? 2 : 0;
    }
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++) {
        if (strcmp(argv[1], commands[i].name) == 0) {
            return commands[i].run(argc - 1, argv + 1);
        }
    }
    fail("unknown command '%s'", argv[1]);
    usage(stderr);
    return 2;
}
