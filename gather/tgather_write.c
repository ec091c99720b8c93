/*
 * tgather_write.c - the gathering library's report: the per-link table of
 * Pedretti et al., "Using the Cray Gemini Performance Counters" (CUG 2013),
 * Fig. 4, and the same rows as CSV.  Pure formatting, no MPI and no PAPI.
 * Blue Gene machines get the same layout with their own two counters per
 * link (chunks sent and packets received on BG/Q, packets and chunks sent on
 * BG/P) and one block per node.
 */
#include "tgather_priv.h"

#include <stdlib.h>
#include <string.h>

int tg_link_order(const temu_machine *m, int *order)
{
    int n = 0;
    for (int d = 0; d < m->ndims; d++) {
        order[n++] = TEMU_LINK_PLUS(d);
        order[n++] = TEMU_LINK_MINUS(d);
    }
    for (int l = 2 * m->ndims; l < m->nlinks; l++) {
        order[n++] = l;
    }
    return n;
}

/* "(x, y, z)" of a router, or "-" for none (a mesh edge) */
static void coord_text(const temu_machine *m, int64_t r, const char *sep, char *buf, size_t len)
{
    int32_t c[TEMU_MAX_DIMS];
    size_t at = 0;
    if (r < 0) {
        snprintf(buf, len, "-");
        return;
    }
    temu_router_coords(m, r, c);
    at += (size_t)snprintf(buf, len, "%s", sep[0] == ',' ? "(" : "");
    for (int d = 0; d < m->ndims && at < len; d++) {
        at += (size_t)snprintf(buf + at, len - at, "%s%d", d ? sep : "", c[d]);
    }
    if (sep[0] == ',' && at < len) {
        snprintf(buf + at, len - at, ")");
    }
}

/* PAPI names of a link's counters. Gemini: the six counters of a logical
 * link (presets/gemini_tile.presets: each sums one tile counter over the
 * link's tiles), in Fig. 4's column order. BG/Q: all seven virtual
 * channels, what `torusemu dump` sums per link. BG/P: UPC mode 0 names a
 * direction XP, XM, ... (seed 001 event list). */
static void gemini_event(const char *ln, int k, char *buf, size_t len)
{
    static const char *const ev[TG_COUNTERS] = {"GM_LINK_VC0_PHITS",   "GM_LINK_VC1_PHITS",
                                                "GM_LINK_VC0_PACKETS", "GM_LINK_VC1_PACKETS",
                                                "GM_LINK_INQ_STALL",   "GM_LINK_CREDIT_STALL"};
    snprintf(buf, len, "gemini_tile:::%s:link=%s", ev[k], ln);
}

static void bgq_event(const char *ln, int k, char *buf, size_t len)
{
    snprintf(buf, len, "bgq_nwunit:::%s:link=%s:vc=0x7f", k ? "PEVT_NW_RECV" : "PEVT_NW_SENT", ln);
}

static void bgp_event(const char *ln, int k, char *buf, size_t len)
{
    snprintf(buf, len, "bgp_torus:::BGP_TORUS_%c%c_%s", ln[0], ln[1] == '+' ? 'P' : 'M',
             k ? "32BCHUNKS" : "PACKETS");
}

static const char *const gem_t[] = {"VC0_PHITS", "VC1_PHITS",  "VC0_PKTS",
                                    "VC1_PKTS",  "INQ_STALLS", "OUTQ_STALLS"};
static const char *const gem_c[] = {"vc0_phits", "vc1_phits", "vc0_pkts",
                                    "vc1_pkts",  "inq_stall", "credit_stall"};
static const char *const bgq_t[] = {"CHUNKS_SENT", "PACKETS_RECV"};
static const char *const bgq_c[] = {"chunks_sent", "packets_recv"};
static const char *const bgp_t[] = {"PACKETS_SENT", "CHUNKS_SENT"};
static const char *const bgp_c[] = {"packets_sent", "chunks_sent"};

/* link bandwidth per direction as doc/model.md states it: Gemini from the
 * tiles' media, BG/Q 2 GB/s; BG/P none (printed as "-") */
static const tg_family families[] = {
    [TEMU_SYSTEM_GEMINI] = {"gemini_tile", 6, gem_t, gem_c, gemini_event, 1, NULL},
    [TEMU_SYSTEM_BGP] = {"bgp_torus", 2, bgp_t, bgp_c, bgp_event, 0, "-"},
    [TEMU_SYSTEM_BGQ] = {"bgq_nwunit", 2, bgq_t, bgq_c, bgq_event, 0, "2.00"},
};

const tg_family *tg_family_of(const temu_machine *m)
{
    size_t n = sizeof families / sizeof families[0];
    const tg_family *f = m->system >= 0 && (size_t)m->system < n ? &families[m->system] : NULL;
    return f != NULL && f->component != NULL ? f : NULL;
}

int tg_columns(const temu_machine *m, const char *const **table, const char *const **csv)
{
    const tg_family *f = tg_family_of(m);
    *table = f->table;
    *csv = f->csv;
    return f->ncols;
}

/* The router at the far end of link l: the neighbour; for the extra port the
 * router itself (Gemini's host link: its traffic comes from its own nodes)
 * or none (BG/Q I/O link). */
static int64_t far_end(const temu_machine *m, int64_t r, int l)
{
    if (l >= 2 * m->ndims) {
        return tg_family_of(m)->extra_port_self ? r : -1;
    }
    return temu_link_neighbor(m, r, l);
}

static void bandwidth_text(const temu_machine *m, int64_t r, int l, char *buf, size_t len)
{
    const char *fixed = tg_family_of(m)->fixed_gbs;
    if (fixed == NULL) {
        snprintf(buf, len, "%.2f", temu_gemini_link_bandwidth(m, r, l));
    } else {
        snprintf(buf, len, "%s", fixed);
    }
}

/* records sorted by router index, so the report does not depend on rank order */
static int by_router(const void *a, const void *b)
{
    long long x = *(const long long *)a, y = *(const long long *)b;
    return (x > y) - (x < y);
}

/* A copy of the records in router order (NULL, with the reason on stderr, when
 * out of memory). */
static long long *sorted_copy(const long long *records, int n)
{
    long long *rec = malloc((size_t)n * TG_RECORD * sizeof *rec + 1); /* +1: never malloc(0) */
    if (rec == NULL) {
        fprintf(stderr, "tgather: out of memory writing the report\n");
        return NULL;
    }
    memcpy(rec, records, (size_t)n * TG_RECORD * sizeof *rec);
    qsort(rec, (size_t)n, TG_RECORD * sizeof *rec, by_router);
    return rec;
}

/* Both reports: csv = 0 the Fig. 4 table, 1 the CSV rows. */
static void write_report(FILE *f, const temu_machine *m, const long long *records, int nrecords,
                         int csv)
{
    int order[TEMU_MAX_LINKS];
    int nl = tg_link_order(m, order);
    const char *sep = csv ? " " : ", ", *cell = csv ? "," : "\t";
    char name[64], here[64], there[64];
    long long *rec = sorted_copy(records, nrecords);
    if (rec == NULL) {
        return;
    }
    const char *const *tcols, *const *ccols;
    /* Gemini's tiles count what arrives: the far end is where it came from */
    int ncol = tg_columns(m, &tcols, &ccols),
        gemini = temu_family_info_get(m->system)->counts_arrivals;
    char gbs[16];
    if (csv) {
        fprintf(f, "router,name,coord,link,%s,gb_s", gemini ? "src_coord" : "peer_coord");
    } else {
        fprintf(f, "#\t%s\n#\t%s\tGB/s", gemini ? "DEST_COORD" : "NODE_COORD",
                gemini ? "SRC_COORD" : "PEER_COORD");
    }
    for (int j = 0; j < ncol; j++) {
        fprintf(f, "%s%s", cell, csv ? ccols[j] : tcols[j]);
    }
    fputc('\n', f);
    for (int i = 0; i < nrecords; i++) {
        const long long *v = rec + (size_t)i * TG_RECORD;
        temu_router_name(m, v[0], name, sizeof name);
        coord_text(m, v[0], sep, here, sizeof here);
        if (!csv) {
            fprintf(f, "\t%s\n", here); /* the block's router */
        }
        for (int k = 0; k < nl; k++) {
            int l = order[k];
            const long long *c = v + 1 + l * TG_COUNTERS;
            coord_text(m, far_end(m, v[0], l), sep, there, sizeof there);
            if (csv) {
                fprintf(f, "%lld,%s,%s,", v[0], name, here);
            }
            bandwidth_text(m, v[0], l, gbs, sizeof gbs);
            fprintf(f, "%s%s%s%s%s", temu_link_name(m, l), cell, there, cell,
                    csv && gbs[0] == '-' ? "" : gbs);
            for (int j = 0; j < ncol; j++) {
                fprintf(f, "%s%lld", cell, c[j]);
            }
            fprintf(f, "\n");
        }
    }
    free(rec);
}

void tg_write_table(FILE *f, const temu_machine *m, const long long *records, int nrecords)
{
    write_report(f, m, records, nrecords, 0);
}

void tg_write_csv(FILE *f, const temu_machine *m, const long long *records, int nrecords)
{
    write_report(f, m, records, nrecords, 1);
}
