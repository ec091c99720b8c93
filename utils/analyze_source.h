/*
 * analyze_source.h - the inputs of `torusemu analyze` as a sequence of
 * d-link samples (an_frame): a series file of the emulator
 * (doc/series.md), or gpcdr link metrics in the CSV layout of LDMS's
 * store_csv (doc/analyze.md "Real Cray data").
 */
#ifndef TEMU_ANALYZE_SOURCE_H
#define TEMU_ANALYZE_SOURCE_H

#include "analyze.h"

typedef struct an_source an_source;

/* Open path: a series file (recognised by its magic) or an LDMS CSV file,
 * which needs the machine it was sampled on (spec; NULL for a series).
 * Gemini machines only.  0, or -1 with the reason in why. */
int an_source_open(const char *path, const char *spec, an_source **out, char *why, size_t len);
const temu_machine *an_source_machine(const an_source *s);
/* "series" or "ldms-csv" */
const char *an_source_kind(const an_source *s);
/* The next sample into f (an_frame_alloc'd for the machine): 1, 0 after
 * the last, -1 with the reason in why.  Each sample is checked against
 * the previous one (an_dlink_check): a counter that went down (restarted)
 * or rose by more than its d-link can do has its reset or over bit set in
 * f, so that it gives no figure for the interval, and a warning on stderr
 * names the file, line (or snapshot), node, Gemini and counter (the first
 * 20; the rest are counted).  After the last sample, stderr gets the
 * number of counters left out and, for a series cut short, how many
 * snapshots were read. */
int an_source_next(an_source *s, an_frame *f, char *why, size_t len);
/* 1 when the input has the nodes' NIC traffic (a series always; an LDMS
 * file with the totaloutput_optA and totalinput columns). */
int an_source_has_nic(const an_source *s);
void an_source_close(an_source *s);

/* A frame for every router of m (0, or -1 out of memory) and its release. */
int an_frame_alloc(const temu_machine *m, an_frame *f);
void an_frame_free(an_frame *f);

#endif
