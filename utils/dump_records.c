/*
 * dump_records.c - `torusemu dump --format=csv|json`: the rows dump prints,
 * one record per counter ("long" form, so that every machine fits one set
 * of columns): unit, name, coord, link, tile, counter, value.  The filter
 * (--node, --link, --all, --tiles) keeps the same rows as the table.
 */
#include "cli.h"
#include "dump.h"

#include <inttypes.h>

const char *const dump_gemini_nic_names[DUMP_GEMINI_NIC] = {
    "ORB_VC0_PKTS",   "ORB_VC0_FLITS", "ORB_VC1_PKTS", "ORB_VC1_FLITS", "RAT_HDR_FLITS",
    "RAT_DATA_FLITS", "NPT_PKTS",      "NPT_FLITS",    "FMA_PKTS",      "FMA_FLITS",
    "BTE_PKTS",       "BTE_FLITS",     "OUT_PKTS",     "OUT_FLITS"};
const char *const dump_bgq_mu_names[DUMP_BGQ_MU] = {
    "PKT_INJ",       "MSG_INJ",      "FIFO_PKT_RCV", "RGET_PKT_RCV", "PUT_PKT_RCV",
    "PORT0_16B_WRT", "PORT0_32B_RD", "PORT0_64B_RD", "PORT0_128B_RD"};
static const char *const tile_names[TEMU_GEMINI_TILE_COUNTERS] = {
    "VC0_PHITS", "VC1_PHITS", "VC0_PKTS", "VC1_PKTS", "INQ_STALL", "CREDIT_STALL"};
static const char *const bgp_names[DUMP_BGP] = {"PACKETS", "32B_CHUNKS", "VCD0",      "VCD1",
                                                "VCBN",    "VCBP",       "TOKEN_ACK", "ACKS"};
static const char *const columns[] = {"unit", "name", "coord", "link", "tile", "counter", "value"};

int dump_any_nonzero(const uint64_t *v, int n)
{
    for (int i = 0; i < n; i++) {
        if (v[i] != 0) {
            return 1;
        }
    }
    return 0;
}

/* Where the records of one row come from. */
typedef struct row_key {
    int64_t unit;     /* router (Gemini) or node (Blue Gene) */
    const char *name; /* its name, or the node's for a NIC row */
    const char *link; /* link name, or NIC / MU / L2 */
    int tile;         /* Gemini tile, L2 slice, or -1 */
} row_key;

/* The records of one row: counter names[i] = v[i]; nothing when the row is
 * all zero and --all is not given. */
static void emit_row(cli_rec *r, const temu_machine *m, const dump_filter *f, const row_key *k,
                     const char *const *names, const uint64_t *v, int n)
{
    int32_t c[TEMU_MAX_DIMS];
    char coord[64];
    size_t at = 0;
    if (!f->all && !dump_any_nonzero(v, n)) {
        return;
    }
    temu_router_coords(m, k->unit, c); /* a router, or a node that is its own router */
    for (int d = 0; d < m->ndims && at < sizeof coord; d++) {
        at += (size_t)snprintf(coord + at, sizeof coord - at, "%s%d", d ? " " : "", c[d]);
    }
    for (int i = 0; i < n; i++) {
        cli_rec_cell(r, "%" PRId64, k->unit);
        cli_rec_cell(r, "%s", k->name);
        cli_rec_cell(r, "%s", coord);
        cli_rec_cell(r, "%s", k->link);
        if (k->tile >= 0) {
            cli_rec_cell(r, "%d", k->tile);
        } else {
            cli_rec_cell(r, "%s", "");
        }
        cli_rec_cell(r, "%s", names[i]);
        cli_rec_cell(r, "%" PRIu64, v[i]);
        cli_rec_row(r);
    }
}

static void gemini_records(cli_rec *r, const temu_session *s, const dump_filter *f)
{
    const temu_machine *m = temu_session_machine(s);
    char name[64], nn[64];
    for (int64_t rt = 0; rt < m->nrouters; rt++) {
        if (f->node >= 0 && temu_node_router(m, f->node) != rt) {
            continue;
        }
        temu_router_name(m, rt, name, sizeof name);
        for (int l = 0; l < m->nlinks; l++) {
            int tiles[TEMU_GEMINI_TILES], nt = temu_gemini_link_tiles(l, tiles);
            uint64_t sum[TEMU_GEMINI_TILE_COUNTERS] = {0};
            if (f->link >= 0 && f->link != l) {
                continue;
            }
            for (int i = 0; i < nt; i++) {
                uint64_t v[TEMU_GEMINI_TILE_COUNTERS];
                for (int c = 0; c < TEMU_GEMINI_TILE_COUNTERS; c++) {
                    v[c] = temu_counter_read(s, temu_idx_gemini_tile(m, rt, tiles[i], c));
                    sum[c] += v[c];
                }
                row_key k = {rt, name, temu_link_name(m, l), tiles[i]};
                if (f->tiles) {
                    emit_row(r, m, f, &k, tile_names, v, TEMU_GEMINI_TILE_COUNTERS);
                }
            }
            row_key k = {rt, name, temu_link_name(m, l), -1};
            if (!f->tiles) {
                emit_row(r, m, f, &k, tile_names, sum, TEMU_GEMINI_TILE_COUNTERS);
            }
        }
        for (int j = 0; j < m->nodes_per_router && f->link < 0; j++) {
            int64_t node = rt * m->nodes_per_router + j;
            uint64_t v[DUMP_GEMINI_NIC];
            if (f->node >= 0 && f->node != node) {
                continue;
            }
            for (int c = 0; c < DUMP_GEMINI_NIC; c++) {
                v[c] = temu_counter_read(s, temu_idx_gemini_nic(m, node, c));
            }
            temu_node_name(m, node, nn, sizeof nn);
            row_key k = {rt, nn, "NIC", -1};
            emit_row(r, m, f, &k, dump_gemini_nic_names, v, DUMP_GEMINI_NIC);
        }
    }
}

static void bgq_records(cli_rec *r, const temu_session *s, const dump_filter *f, int64_t node,
                        const char *name)
{
    const temu_machine *m = temu_session_machine(s);
    static const char *const nw_names[2 * TEMU_BGQ_VCS] = {
        "SENT_CHUNKS_VC0",  "SENT_CHUNKS_VC1",  "SENT_CHUNKS_VC2",  "SENT_CHUNKS_VC3",
        "SENT_CHUNKS_VC4",  "SENT_CHUNKS_VC5",  "SENT_CHUNKS_VC6",  "RECV_PACKETS_VC0",
        "RECV_PACKETS_VC1", "RECV_PACKETS_VC2", "RECV_PACKETS_VC3", "RECV_PACKETS_VC4",
        "RECV_PACKETS_VC5", "RECV_PACKETS_VC6"};
    static const char *const l2_name[1] = {"L2_HITS"};
    for (int l = 0; l < TEMU_BGQ_LINKS; l++) {
        uint64_t v[2 * TEMU_BGQ_VCS];
        if (f->link >= 0 && f->link != l) {
            continue;
        }
        for (int i = 0; i < 2 * TEMU_BGQ_VCS; i++) {
            v[i] = temu_counter_read(
                s, temu_idx_bgq_nw(m, node, l, i / TEMU_BGQ_VCS, i % TEMU_BGQ_VCS));
        }
        row_key k = {node, name, temu_link_name(m, l), -1};
        emit_row(r, m, f, &k, nw_names, v, 2 * TEMU_BGQ_VCS);
    }
    uint64_t mu[DUMP_BGQ_MU];
    for (int c = 0; c < DUMP_BGQ_MU; c++) {
        mu[c] = temu_counter_read(s, temu_idx_bgq_mu(m, node, c));
    }
    if (f->link < 0 && (f->all || dump_any_nonzero(mu, DUMP_BGQ_MU))) {
        dump_filter every = *f;
        every.all = 1; /* the table prints the L2 line with the MU line */
        row_key k = {node, name, "MU", -1};
        emit_row(r, m, &every, &k, dump_bgq_mu_names, mu, DUMP_BGQ_MU);
        for (int sl = 0; sl < TEMU_BGQ_L2_SLICES; sl++) {
            uint64_t v = temu_counter_read(s, temu_idx_bgq_l2(m, node, sl, 0));
            row_key kl = {node, name, "L2", sl};
            emit_row(r, m, &every, &kl, l2_name, &v, 1);
        }
    }
}

int dump_bgp_row(const temu_session *s, const dump_filter *f, int64_t node, int l, uint64_t *v)
{
    const temu_machine *m = temu_session_machine(s);
    if (f->link >= 0 && f->link != l) {
        return 0;
    }
    for (int c = 0; c < TEMU_BGP_COUNTERS; c++) {
        v[c] = temu_counter_read(s, temu_idx_bgp(m, node, l, c));
    }
    return f->all || dump_any_nonzero(v, TEMU_BGP_COUNTERS);
}

static void bgp_records(cli_rec *r, const temu_session *s, const dump_filter *f, int64_t node,
                        const char *name)
{
    const temu_machine *m = temu_session_machine(s);
    dump_filter every = *f;
    every.all = 1; /* the row is kept on all its counters, as in the table */
    for (int l = 0; l < 6; l++) {
        uint64_t v[TEMU_BGP_COUNTERS];
        if (dump_bgp_row(s, f, node, l, v)) {
            row_key k = {node, name, temu_link_name(m, l), -1};
            emit_row(r, m, &every, &k, bgp_names, v, DUMP_BGP);
        }
    }
}

void dump_records(const temu_session *s, const dump_filter *f, cli_format format, const char *store)
{
    const temu_machine *m = temu_session_machine(s);
    cli_rec r;
    if (format == CLI_FORMAT_JSON) {
        /* the table's session line as the members of one object */
        printf("{\"session\": ");
        cli_json_string(stdout, store);
        printf(", \"machine\": ");
        cli_json_string(stdout, m->name);
        printf(", \"ranks\": %d, \"messages\": %" PRIu64 ", \"bytes\": %" PRIu64 ", \"records\": ",
               temu_session_nranks(s), temu_session_messages(s), temu_session_bytes(s));
    }
    cli_rec_begin(&r, stdout, format, columns, 7);
    if (dump_per_router(m)) {
        gemini_records(&r, s, f);
    } else {
        for (int64_t node = 0; node < m->nnodes; node++) {
            char name[64];
            if (f->node >= 0 && f->node != node) {
                continue;
            }
            temu_node_name(m, node, name, sizeof name);
            if (dump_has_bgq_nw(m)) {
                bgq_records(&r, s, f, node, name);
            } else {
                bgp_records(&r, s, f, node, name);
            }
        }
    }
    cli_rec_end(&r);
    if (format == CLI_FORMAT_JSON) {
        printf("}\n");
    }
}
