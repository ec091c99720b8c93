/*
 * torusemu_series.h - time series of a counter store: snapshots of every
 * counter at chosen times, in a compact versioned file (doc/series.md).
 *
 * A replay with the timing model writes one snapshot per interval of
 * virtual time, as gpcdr/LDMS sampled the Gemini counters of Blue Waters
 * once a minute (Jha et al., "Characterizing Supercomputer Traffic
 * Networks Through Link-Level Analysis", section II); a live run can write
 * them at intervals of host time.  `torusemu series` prints a file and
 * `torusemu analyze` turns it into per-link figures.
 *
 * File layout, version 1 (every integer little-endian; doc/series.md):
 *   header   "TEMUSERS", u32 version, u32 header bytes, u64 counters,
 *            i64 interval (ps), u32 clock, u32 spec length, the machine
 *            spec (canonical name, no NUL)
 *   records  one tag byte, a varint payload length, the payload:
 *            'S' snapshot: varint time step (ps; the first snapshot's is its
 *                time), varint count of changed counters, then per changed
 *                counter a varint index gap and a zigzag varint of the
 *                change since the previous snapshot (mod 2^64)
 *            'E' end: varint number of snapshots; nothing may follow
 * The writer hands each record to the kernel as it writes it, so a killed
 * run loses at most the snapshot it was writing.  A file without its end
 * record (a writer that did not finish), cut anywhere after its header,
 * is read up to its last whole snapshot; temu_series_complete() tells
 * which.
 */
#ifndef TORUSEMU_SERIES_H
#define TORUSEMU_SERIES_H

#include "torusemu.h"

#ifdef __cplusplus
extern "C" {
#endif

#define TEMU_SERIES_MAGIC "TEMUSERS"
#define TEMU_SERIES_VERSION 1u

/* What the snapshot times count. */
typedef enum temu_series_clock {
    TEMU_SERIES_VIRTUAL = 0, /* virtual time of a timed replay (ps)          */
    TEMU_SERIES_HOST = 1     /* host time since a live run started (ps)      */
} temu_series_clock;

/* ---------------------------------------------------------------- writer */

typedef struct temu_series temu_series;

/*
 * Create (or truncate) the series file at path for the counters of session
 * s, sampled every interval_ps picoseconds (> 0; recorded in the header, the
 * snapshots carry their own times).  The clock is TEMU_SERIES_VIRTUAL.
 */
temu_status temu_series_create(const char *path, temu_session *s, int64_t interval_ps,
                               temu_series **out, temu_error *err);
/* The same with the clock named (TEMU_SERIES_HOST for live runs). */
temu_status temu_series_create_ex(const char *path, temu_session *s, int64_t interval_ps,
                                  temu_series_clock clock, temu_series **out, temu_error *err);
/* A writer without a session: snapshots come from temu_series_write_values
 * (tests, conversions from other formats). */
temu_status temu_series_create_machine(const char *path, const temu_machine *m, int64_t interval_ps,
                                       temu_series_clock clock, temu_series **out, temu_error *err);

/* Record every counter of the session at time t_ps (>= 0, greater than the
 * previous snapshot's time).  The snapshot is in the file (flushed) when
 * this returns. */
temu_status temu_series_snapshot(temu_series *w, int64_t t_ps, temu_error *err);
/* Record the given values (temu_machine_counter_count entries) at t_ps. */
temu_status temu_series_write_values(temu_series *w, int64_t t_ps, const uint64_t *values,
                                     temu_error *err);
/* Snapshots written so far. */
uint64_t temu_series_snapshots(const temu_series *w);
/* Write the end record, flush and close; frees w even on failure (then the
 * file lacks its end record and says so when read).  w may be NULL. */
temu_status temu_series_close(temu_series *w, temu_error *err);

/* ---------------------------------------------------------------- reader */

typedef struct temu_series_reader temu_series_reader;

/* Open a series file and check its header.  Nothing in the file is
 * trusted: every record is checked as it is read. */
temu_status temu_series_open(const char *path, temu_series_reader **out, temu_error *err);
/* The same over bytes in memory (kept by the caller until closed); name is
 * used in messages. */
temu_status temu_series_open_mem(const void *data, size_t len, const char *name,
                                 temu_series_reader **out, temu_error *err);

const temu_machine *temu_series_machine(const temu_series_reader *r);
uint64_t temu_series_counter_count(const temu_series_reader *r);
int64_t temu_series_interval(const temu_series_reader *r);
temu_series_clock temu_series_clock_of(const temu_series_reader *r);

/*
 * Read the next snapshot: 1 with *t_ps its time and *values the counters
 * (temu_series_counter_count entries, valid until the next call), 0 after
 * the last whole snapshot (also when the file ends inside the next record:
 * a writer that did not finish; see temu_series_complete), or a negative
 * temu_status with err filled when the file is damaged.  The first call
 * allocates the value array (8 bytes per counter).  If changed is not
 * NULL, *changed receives the indices of the counters that changed since
 * the previous snapshot and *nchanged their number (valid until the next
 * call).
 */
int temu_series_next(temu_series_reader *r, int64_t *t_ps, const uint64_t **values,
                     temu_error *err);
int temu_series_next_changes(temu_series_reader *r, int64_t *t_ps, const uint64_t **values,
                             const uint64_t **changed, uint64_t *nchanged, temu_error *err);
/* After temu_series_next returned 0: 1 when the file ended with its end
 * record, 0 when it was cut short, between records or inside one (a
 * writer that did not finish). */
int temu_series_complete(const temu_series_reader *r);
void temu_series_reader_close(temu_series_reader *r);

#ifdef __cplusplus
}
#endif

#endif /* TORUSEMU_SERIES_H */
