/*
 * tgather_priv.h - what the gathering library's modules share: the per-router
 * record a leader sends to rank 0 and the writers of the report.
 */
#ifndef TGATHER_PRIV_H
#define TGATHER_PRIV_H

#include "torusemu.h"

#include <stdio.h>

/* Counter slots per link: Gemini uses all six (the fixed tile counters of
 * Pedretti 2013 Table I, summed over the link's tiles), Blue Gene the first
 * two (tg_columns). */
#define TG_COUNTERS TEMU_GEMINI_TILE_COUNTERS

/* What the gathering library reads on each machine family (tgather_write.c,
 * one row per temu_system): the PAPI component of the link counters and the
 * counters it reads per link, and how the report describes a link. */
typedef struct tg_family {
    const char *component;   /* PAPI component reading the links */
    int ncols;               /* counters per link */
    const char *const *table; /* their names in the table's header */
    const char *const *csv;   /* and in the CSV's */
    /* the PAPI name of counter k of the link named ln */
    void (*event_name)(const char *ln, int k, char *buf, size_t len);
    int extra_port_self;   /* the extra port's far end is the router itself */
                           /* (Gemini's host link), else there is none (BG/Q I/O) */
    const char *fixed_gbs; /* a link's GB/s as printed; NULL: from the Gemini */
                           /* tiles' media (temu_gemini_link_bandwidth) */
} tg_family;

/* The row of m's family (never NULL for a machine a session accepted). */
const tg_family *tg_family_of(const temu_machine *m);

/* The counters of each link on this machine: how many, their names in the
 * table's header and in the CSV's. */
int tg_columns(const temu_machine *m, const char *const **table, const char *const **csv);

/* One router's counters as a flat array of long long (what MPI_Gather moves):
 * [0] the router index, then TEMU_MAX_LINKS x TG_COUNTERS deltas, link-major
 * in the machine's link numbering. */
#define TG_RECORD (1 + TEMU_MAX_LINKS * TG_COUNTERS)

/* Links in the order of Fig. 4: X+ X- Y+ Y- Z+ Z- then the host link HH.
 * Fills order[] and returns how many. */
int tg_link_order(const temu_machine *m, int *order);

/* The per-link table in the layout of Pedretti 2013 Fig. 4, tab separated:
 * two comment lines, then per router a line with its coordinate and one line
 * per link (direction, coordinate at the far end, GB/s, six counters). */
void tg_write_table(FILE *f, const temu_machine *m, const long long *records, int nrecords);

/* The same rows as CSV with a header line (doc/gather.md). */
void tg_write_csv(FILE *f, const temu_machine *m, const long long *records, int nrecords);

#endif
