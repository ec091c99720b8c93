/*
 * dump.h - what `torusemu dump` (utils/cmd_dump.c) shares with its CSV and
 * JSON form (utils/dump_records.c): the row filter and the counter names.
 */
#ifndef TEMU_DUMP_H
#define TEMU_DUMP_H

#include "records.h"
#include "torusemu.h"

typedef struct dump_filter {
    int64_t node; /* -1: all */
    int link;     /* -1: all */
    int all;      /* print zero rows too */
    int tiles;    /* Gemini: per tile instead of per logical link */
} dump_filter;

#define DUMP_GEMINI_NIC 14 /* NIC counters per Gemini node */
#define DUMP_BGQ_MU 9      /* MU counters dump shows per BG/Q node */
#define DUMP_BGP 8         /* torus counters dump shows per BG/P link */
extern const char *const dump_gemini_nic_names[DUMP_GEMINI_NIC];
extern const char *const dump_bgq_mu_names[DUMP_BGQ_MU];

int dump_any_nonzero(const uint64_t *v, int n);

/* Which rows a store's counters make: per router (Gemini tiles and NICs),
 * else per node, with the BG/Q network-unit counters or the BG/P torus
 * counters. */
static inline int dump_per_router(const temu_machine *m)
{
    return temu_family_info_get(m->system)->tiles > 0;
}
static inline int dump_has_bgq_nw(const temu_machine *m)
{
    return temu_idx_bgq_nw(m, 0, 0, TEMU_BGQ_NW_SENT_CHUNKS, 0) >= 0;
}
/* BG/P: read the TEMU_BGP_COUNTERS counters of link l of node into v;
 * 1 when the filter keeps that row. */
int dump_bgp_row(const temu_session *s, const dump_filter *f, int64_t node, int l, uint64_t *v);

/* The rows `dump` prints, as CSV or JSON records (doc/cli.md). */
void dump_records(const temu_session *s, const dump_filter *f, cli_format format,
                  const char *store);

#endif
