/*
 * cmd_dump.c - `torusemu dump`: a session store's counters per node (per
 * Gemini on Cray machines) and link; formats in doc/cli.md.
 */
#include "cli.h"
#include "dump.h"
#include "torusemu_timing.h"

#include <inttypes.h>
#include <string.h>

static void usage(FILE *f)
{
    fprintf(f, "Usage: torusemu dump [OPTION]... STORE\n"
               "Print the counters of a session store per node (Gemini: per router) and link.\n"
               "Rows that are all zero are left out unless --all.\n"
               "\n"
               "Options:\n"
               "  -n, --node=N    only node N (an id or coordinates)\n"
               "  -l, --link=L    only link L (a link name: X+, A-, IO, HH)\n"
               "  -a, --all       print rows that are all zero too\n"
               "  -t, --tiles     Gemini: one row per tile instead of per logical link\n"
               "      --format=F  table (default), csv or json: one record per counter\n"
               "                  (unit, name, coord, link, tile, counter, value)\n"
               "  -h, --help      print this help and exit\n"
               "      --version   print the version and exit\n"
               "\n"
               "Example:\n"
               "  torusemu dump job.store --node=1,0,0,0,0 --link=A-\n");
}

/* Which model level filled the stall and occupancy counters, when one did
 * (doc/model.md, "Model levels"). */
static void dump_level_line(const temu_session *s)
{
    static const char *const how[] = {
        [TEMU_TM_PACKET] = "measured in the packet model's queues",
        [TEMU_TM_FLOW] = "estimated by the flow model from link utilisation and back-pressure",
    };
    int level = temu_tm_session_level(s);
    if (level >= 0) {
        printf("# stall and occupancy counters: %s model (%s)\n",
               temu_tm_level_name((uint32_t)level), how[level]);
    }
}

static void dump_gemini(const temu_session *s, const dump_filter *f)
{
    const temu_machine *m = temu_session_machine(s);
    const char *const *nic_names = dump_gemini_nic_names;
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
                if (f->tiles && (f->all || dump_any_nonzero(v, TEMU_GEMINI_TILE_COUNTERS))) {
                    if (!header++) {
                        printf("gemini %s ", name);
                        cli_print_coords(m, r, stdout);
                        printf("\n  %-12s %12s %12s %10s %10s %10s %12s\n", "tile", "VC0_PHITS",
                               "VC1_PHITS", "VC0_PKTS", "VC1_PKTS", "INQ_STALL", "CREDIT_STALL");
                    }
                    printf("  %-2s l%d%d (%2d) %12" PRIu64 " %12" PRIu64 " %10" PRIu64 " %10" PRIu64
                           " %10" PRIu64 " %12" PRIu64 "\n",
                           temu_link_name(m, l), tiles[i] / 8, tiles[i] % 8, tiles[i], v[0], v[1],
                           v[2], v[3], v[4], v[5]);
                }
            }
            if (!f->tiles && (f->all || dump_any_nonzero(sum, TEMU_GEMINI_TILE_COUNTERS))) {
                if (!header++) {
                    printf("gemini %s ", name);
                    cli_print_coords(m, r, stdout);
                    printf("\n  %-12s %12s %12s %10s %10s %10s %12s\n", "link", "VC0_PHITS",
                           "VC1_PHITS", "VC0_PKTS", "VC1_PKTS", "INQ_STALL", "CREDIT_STALL");
                }
                printf("  %-12s %12" PRIu64 " %12" PRIu64 " %10" PRIu64 " %10" PRIu64 " %10" PRIu64
                       " %12" PRIu64 "\n",
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
            if (f->all || dump_any_nonzero(v, 14)) {
                char nn[64];
                temu_node_name(m, node, nn, sizeof nn);
                if (!header++) {
                    printf("gemini %s ", name);
                    cli_print_coords(m, r, stdout);
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

/* "node N NAME (coords)" before a Blue Gene node's first row */
static void node_header(const temu_machine *m, int64_t node, const char *name)
{
    printf("node %lld %s ", (long long)node, name);
    cli_print_coords(m, node, stdout);
    printf("\n");
}

/* One Blue Gene node's rows (header printed before the first). */
static void dump_bgq_node(const temu_session *s, const dump_filter *f, int64_t node,
                          const char *name)
{
    const temu_machine *m = temu_session_machine(s);
    int header = 0;
    const char *const *mu_names = dump_bgq_mu_names;
    enum { NMU = DUMP_BGQ_MU };
    for (int l = 0; l < TEMU_BGQ_LINKS; l++) {
        uint64_t v[TEMU_BGQ_NW_KINDS * TEMU_BGQ_VCS];
        if (f->link >= 0 && f->link != l) {
            continue;
        }
        for (int k = 0; k < TEMU_BGQ_NW_KINDS; k++) {
            for (int vc = 0; vc < TEMU_BGQ_VCS; vc++) {
                v[k * TEMU_BGQ_VCS + vc] = temu_counter_read(s, temu_idx_bgq_nw(m, node, l, k, vc));
            }
        }
        if (!f->all && !dump_any_nonzero(v, 2 * TEMU_BGQ_VCS)) {
            continue;
        }
        if (!header++) {
            node_header(m, node, name);
            printf("  link  sent chunks VC0..VC6            | recv packets VC0..VC6\n");
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
    if (f->link < 0 && (f->all || dump_any_nonzero(mu, NMU))) {
        if (!header++) {
            node_header(m, node, name);
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

static void dump_bgp_node(const temu_session *s, const dump_filter *f, int64_t node,
                          const char *name)
{
    const temu_machine *m = temu_session_machine(s);
    int header = 0;
    for (int l = 0; l < 6; l++) {
        uint64_t v[TEMU_BGP_COUNTERS];
        if (!dump_bgp_row(s, f, node, l, v)) {
            continue;
        }
        if (!header++) {
            node_header(m, node, name);
            printf("  dir  packets  32Bchunks  VCD0 VCD1 VCBN VCBP  token_ack acks\n");
        }
        printf("  %-3s %8" PRIu64 " %10" PRIu64 "  %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64
               "  %" PRIu64 " %" PRIu64 "\n",
               temu_link_name(m, l), v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7]);
    }
}

/* Blue Gene: the rows of every node the filter keeps. */
static void dump_nodes(const temu_session *s, const dump_filter *f,
                       void (*dump_node)(const temu_session *, const dump_filter *, int64_t,
                                         const char *))
{
    const temu_machine *m = temu_session_machine(s);
    for (int64_t node = 0; node < m->nnodes; node++) {
        char name[64];
        if (f->node >= 0 && f->node != node) {
            continue;
        }
        temu_node_name(m, node, name, sizeof name);
        dump_node(s, f, node, name);
    }
}

int cmd_dump(int argc, char **argv)
{
    static const struct option opts[] = {CLI_COMMON_OPTIONS,
                                         {"node", required_argument, NULL, 'n'},
                                         {"link", required_argument, NULL, 'l'},
                                         {"all", no_argument, NULL, 'a'},
                                         {"tiles", no_argument, NULL, 't'},
                                         CLI_FORMAT_OPTION,
                                         {NULL, 0, NULL, 0}};
    temu_error err;
    temu_session *s;
    const char *node_s = NULL, *link_s = NULL;
    dump_filter f = {-1, -1, 0, 0};
    cli_format format = CLI_FORMAT_TABLE;
    int c, done, rc;
    cli_begin();
    while ((c = cli_next(argc, argv, ":hn:l:at", opts, usage, &done, &rc)) != -1) {
        if (done) {
            return rc;
        }
        if (c == 'n') {
            node_s = optarg;
        } else if (c == 'l') {
            link_s = optarg;
        } else if (c == 'a') {
            f.all = 1;
        } else if (c == CLI_OPT_FORMAT) {
            if (cli_parse_format(optarg, &format) != 0) {
                return CLI_EXIT_USAGE;
            }
        } else {
            f.tiles = 1;
        }
    }
    if (optind >= argc) {
        return cli_fail("dump: missing STORE");
    }
    if (optind + 1 < argc) {
        return cli_fail("dump: unexpected argument '%s'", argv[optind + 1]);
    }
    const char *store = argv[optind];
    /* read-only: read permission is enough to inspect a store */
    if (temu_session_attach_ex(store, TEMU_ATTACH_READONLY, &s, &err) != TEMU_OK) {
        return cli_fail_err(&err);
    }
    const temu_machine *m = temu_session_machine(s);
    if (node_s != NULL && cli_parse_node(m, node_s, &f.node) != 0) {
        temu_session_close(s);
        return CLI_EXIT_USAGE;
    }
    if (link_s != NULL && (f.link = temu_link_parse(m, link_s)) < 0) {
        rc = cli_fail("dump: '%s' is not a link of %s", link_s, m->name);
        temu_session_close(s);
        return rc;
    }
    if (format != CLI_FORMAT_TABLE) {
        dump_records(s, &f, format, store);
        temu_session_close(s);
        return 0;
    }
    printf("# session %s  machine %s  ranks %d  messages %" PRIu64 "  bytes %" PRIu64 "\n", store,
           m->name, temu_session_nranks(s), temu_session_messages(s), temu_session_bytes(s));
    dump_level_line(s);
    if (dump_per_router(m)) {
        dump_gemini(s, &f);
    } else {
        dump_nodes(s, &f, dump_has_bgq_nw(m) ? dump_bgq_node : dump_bgp_node);
    }
    temu_session_close(s);
    return 0;
}
