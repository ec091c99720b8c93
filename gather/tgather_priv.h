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
