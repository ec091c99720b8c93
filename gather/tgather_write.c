/*
 * tgather_write.c - the gathering library's report: the per-link table of
 * Pedretti et al., "Using the Cray Gemini Performance Counters" (CUG 2013),
 * Fig. 4, and the same rows as CSV.  Pure formatting, no MPI and no PAPI.
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

/* The router at the far end of link l: the neighbour, or the router itself
 * for the host link (its traffic comes from the router's own nodes). */
static int64_t far_end(const temu_machine *m, int64_t r, int l)
{
    return l >= 2 * m->ndims ? r : temu_link_neighbor(m, r, l);
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
    fputs(csv ? "router,name,coord,link,src_coord,gb_s,vc0_phits,vc1_phits,vc0_pkts,vc1_pkts,"
                "inq_stall,credit_stall\n"
              : "#\tDEST_COORD\n#\tSRC_COORD\tGB/s\tVC0_PHITS\tVC1_PHITS\tVC0_PKTS"
                "\tVC1_PKTS\tINQ_STALLS\tOUTQ_STALLS\n",
          f);
    for (int i = 0; i < nrecords; i++) {
        const long long *v = rec + (size_t)i * TG_RECORD;
        temu_router_name(m, v[0], name, sizeof name);
        coord_text(m, v[0], sep, here, sizeof here);
        if (!csv) {
            fprintf(f, "\t%s\n", here); /* the block's Gemini */
        }
        for (int k = 0; k < nl; k++) {
            int l = order[k];
            const long long *c = v + 1 + l * TG_COUNTERS;
            coord_text(m, far_end(m, v[0], l), sep, there, sizeof there);
            if (csv) {
                fprintf(f, "%lld,%s,%s,", v[0], name, here);
            }
            fprintf(f, "%s%s%s%s%.2f", temu_link_name(m, l), cell, there, cell,
                    temu_gemini_link_bandwidth(m, v[0], l));
            for (int j = 0; j < TG_COUNTERS; j++) {
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
