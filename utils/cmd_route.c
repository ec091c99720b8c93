/*
 * cmd_route.c - `torusemu route`: the deterministic route between two
 * nodes and, with --bytes, the counts one message leaves along it.
 */
#include "records.h"
#include "traffic.h"

#include <inttypes.h>
#include <string.h>

static void usage(FILE *f)
{
    fprintf(f, "Usage: torusemu route [OPTION]... SPEC SRC DST\n"
               "Print the deterministic route between two nodes of machine SPEC, each hop\n"
               "with its link (on Gemini also the medium, bandwidth and tiles), and the\n"
               "return route.  SRC and DST are node ids or coordinates such as 1,0,2; on\n"
               "Gemini 1,0,2,1 is the second node of that Gemini.\n"
               "\n"
               "With --bytes, one message is injected into a private store and the counts\n"
               "it leaves on every link of both routes are printed.\n"
               "\n"
               "Options:\n"
               "  -b, --bytes=SIZE      message size: bytes, or with a suffix k/K/KiB (1024),\n"
               "                        M/MiB, G/GiB, or kB/MB/GB (powers of 1000)\n"
               "  -k, --kind=KIND       p2p (default), coll-world, coll-sub, put or get\n"
               "  -p, --payload=DATA    zero, ones, random or random:SEED; drives Gemini\n"
               "                        compression (default: no payload, no compression)\n"
               "  -c, --count=N         messages to inject (default 1)\n"
               "      --format=F        table (default), csv or json: one record per hop\n"
               "                        (without --bytes; columns in doc/cli.md)\n"
               "  -h, --help            print this help and exit\n"
               "      --version         print the version and exit\n"
               "\n"
               "Examples:\n"
               "  torusemu route gemini:8x2x2 0 3,0,0\n"
               "\n"
               "  torusemu route midplane 0 2,0,0,0,0 --bytes=16K\n");
}

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
        cli_print_coords(m, hops[h].from, stdout);
        printf(" -> ");
        cli_print_coords(m, hops[h].to, stdout);
        printf("  %-2s", temu_link_name(m, hops[h].link));
        if (temu_family_info_get(m->system)->tiles > 0) { /* links of tiles and media */
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
static void print_route_counts(const temu_session *s, const char *title, int64_t src, int64_t dst)
{
    const temu_machine *m = temu_session_machine(s);
    temu_hop hops[TEMU_MAX_HOPS];
    int64_t rs = temu_node_router(m, src), rd = temu_node_router(m, dst);
    int n = temu_route(m, rs, rd, hops, TEMU_MAX_HOPS);
    /* the counters the store has: Gemini tiles, BG/Q network-unit counters
     * per VC, or BG/P torus counters */
    int per_tile = temu_family_info_get(m->system)->tiles > 0;
    int nw = temu_idx_bgq_nw(m, 0, 0, TEMU_BGQ_NW_SENT_CHUNKS, 0) >= 0;
    printf("%s\n", title);
    if (per_tile) {
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
    if (nw) {
        printf("  %-18s %-4s %s\n", "sent by", "link",
               "32B chunks sent per VC 0..6 | packets "
               "received at the far end per VC 0..6");
    } else {
        printf("  %-18s %-4s %s\n", "sent by", "link",
               "packets  32B chunks  (VCD0 VCD1 VCBN VCBP "
               "chunks)  acks returned");
    }
    for (int h = 0; h < n; h++) {
        char name[64];
        temu_node_name(m, hops[h].from, name, sizeof name);
        printf("  %-18s %-4s", name, temu_link_name(m, hops[h].link));
        if (nw) {
            for (int vc = 0; vc < TEMU_BGQ_VCS; vc++) {
                printf(" %" PRIu64,
                       temu_counter_read(s, temu_idx_bgq_nw(m, hops[h].from, hops[h].link,
                                                            TEMU_BGQ_NW_SENT_CHUNKS, vc)));
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
            printf(")  %" PRIu64, temu_counter_read(s, temu_idx_bgp(m, hops[h].to, hops[h].in_link,
                                                                    TEMU_BGP_ACKS)));
        }
        printf("\n");
    }
}

/* --format=csv|json: one record per hop of both routes (doc/cli.md) */
static void route_records(const temu_machine *m, int64_t src, int64_t dst, cli_format format)
{
    static const char *const cols[] = {"route",     "hop",     "from",      "to",
                                       "from_name", "to_name", "link",      "in_link",
                                       "medium",    "gb_s",    "out_tiles", "in_tiles"};
    cli_rec r;
    cli_rec_begin(&r, stdout, format, cols, 12);
    for (int back = 0; back < 2; back++) {
        temu_hop hops[TEMU_MAX_HOPS];
        int64_t a = temu_node_router(m, back ? dst : src),
                b = temu_node_router(m, back ? src : dst);
        int n = temu_route(m, a, b, hops, TEMU_MAX_HOPS);
        for (int h = 0; h < n; h++) {
            char text[4][128];
            int32_t c[TEMU_MAX_DIMS];
            for (int e = 0; e < 2; e++) {
                size_t at = 0;
                temu_router_coords(m, e ? hops[h].to : hops[h].from, c);
                for (int d = 0; d < m->ndims; d++) {
                    at += (size_t)snprintf(text[e] + at, sizeof text[e] - at, "%s%d", d ? " " : "",
                                           c[d]);
                }
                temu_router_name(m, e ? hops[h].to : hops[h].from, text[2 + e], sizeof text[0]);
            }
            cli_rec_cell(&r, "%s", back ? "return" : "request");
            cli_rec_cell(&r, "%d", h + 1);
            for (int i = 0; i < 4; i++) {
                cli_rec_cell(&r, "%s", text[i]);
            }
            cli_rec_cell(&r, "%s", temu_link_name(m, hops[h].link));
            cli_rec_cell(&r, "%s", temu_link_name(m, hops[h].in_link));
            if (temu_family_info_get(m->system)->tiles > 0) { /* medium and tiles */
                int t[TEMU_GEMINI_TILES];
                cli_rec_cell(
                    &r, "%s",
                    temu_medium_name(temu_gemini_link_medium(m, hops[h].from, hops[h].link)));
                cli_rec_cell(&r, "%.2f", temu_gemini_link_bandwidth(m, hops[h].from, hops[h].link));
                for (int k = 0; k < 2; k++) {
                    int nt = temu_gemini_link_tiles(k ? hops[h].in_link : hops[h].link, t);
                    size_t at = 0;
                    for (int i = 0; i < nt; i++) {
                        at += (size_t)snprintf(text[0] + at, sizeof text[0] - at, "%s%d",
                                               i ? " " : "", t[i]);
                    }
                    cli_rec_cell(&r, "%s", text[0]);
                }
            }
            cli_rec_row(&r);
        }
    }
    cli_rec_end(&r);
}

int cmd_route(int argc, char **argv)
{
    static const struct option opts[] = {
        CLI_COMMON_OPTIONS, TRAFFIC_OPTIONS, CLI_FORMAT_OPTION, {NULL, 0, NULL, 0}};
    cli_format format = CLI_FORMAT_TABLE;
    temu_machine m;
    temu_error err;
    traffic_opts o = TRAFFIC_OPTS_INIT;
    int64_t src, dst;
    int c, done, rc;

    cli_begin();
    while ((c = cli_next(argc, argv, ":hb:k:p:c:", opts, usage, &done, &rc)) != -1) {
        if (done) {
            return rc;
        }
        if (c == CLI_OPT_FORMAT) {
            if (cli_parse_format(optarg, &format) != 0) {
                return CLI_EXIT_USAGE;
            }
        } else if ((rc = traffic_option(c, optarg, &o)) != 1) {
            return CLI_EXIT_USAGE;
        }
    }
    if (argc - optind != 3) {
        return argc - optind > 3 ? cli_fail("route: unexpected argument '%s'", argv[optind + 3])
                                 : cli_fail("route: expected SPEC SRC DST (see --help)");
    }
    if (temu_machine_parse(argv[optind], &m, &err) != TEMU_OK) {
        return cli_fail_err(&err);
    }
    if (cli_parse_node(&m, argv[optind + 1], &src) != 0 ||
        cli_parse_node(&m, argv[optind + 2], &dst) != 0) {
        return CLI_EXIT_USAGE;
    }
    if (format != CLI_FORMAT_TABLE) {
        if (o.have_bytes) {
            return cli_fail("route: --format=%s lists the hops only, not with --bytes (inject into "
                            "a store and use dump --format for counts)",
                            format == CLI_FORMAT_CSV ? "csv" : "json");
        }
        route_records(&m, src, dst, format);
        return 0;
    }
    char a[64], b[64];
    temu_node_name(&m, src, a, sizeof a);
    temu_node_name(&m, dst, b, sizeof b);
    printf("route on %s: node %lld %s ", m.name, (long long)src, a);
    cli_print_coords(&m, temu_node_router(&m, src), stdout);
    printf(" -> node %lld %s ", (long long)dst, b);
    cli_print_coords(&m, temu_node_router(&m, dst), stdout);
    printf("\n");
    print_route(&m, "request route", temu_node_router(&m, src), temu_node_router(&m, dst));
    print_route(&m, "return route", temu_node_router(&m, dst), temu_node_router(&m, src));
    if (!o.have_bytes) {
        return 0;
    }
    temu_session *s;
    if (temu_session_create_private(&m, &s, &err) != TEMU_OK) {
        return cli_fail_err(&err);
    }
    rc = traffic_inject(s, src, dst, &o);
    if (rc == 0) {
        printf("\n%" PRIu64 " %s message%s of %" PRIu64 " bytes%s%s:\n", o.count,
               temu_kind_name((temu_kind)o.kind), o.count == 1 ? "" : "s", o.bytes,
               o.payload ? ", payload " : "", o.payload ? o.payload : "");
        print_route_counts(s, "counts along the request route", src, dst);
        print_route_counts(s, "counts along the return route", dst, src);
    }
    temu_session_close(s);
    return rc;
}
