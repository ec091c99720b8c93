/*
 * series.c - time-series files of a counter store (torusemu_series.h,
 * doc/series.md): a writer that appends snapshots as changes since the
 * previous snapshot, and a streaming reader that trusts nothing it reads.
 *
 * Integers in records are LEB128 varints (7 bits per byte, low group
 * first, at most 10 bytes); counter changes are taken mod 2^64 and
 * zigzag-mapped (0, -1, 1, -2, ... -> 0, 1, 2, 3, ...) so a store that was
 * zeroed between two snapshots still round-trips exactly.  Only counters
 * that changed are written, each as the gap from the previous changed
 * index, so an idle interval costs a few bytes whatever the machine size.
 */
#define TEMU_BUILDING_LIBRARY 1
#include "emu_internal.h"
#include "torusemu_series.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define HEADER_FIXED 40u /* header bytes before the spec                   */
#define HEADER_MAX 4096u /* largest header a reader accepts                */
#define VARINT_MAX 10    /* bytes of a 64-bit varint                        */
#define TAG_SNAPSHOT 'S'
#define TAG_END 'E'

/* ------------------------------------------------------------ encoding */

static void put_le(uint8_t *p, uint64_t v, int bytes)
{
    for (int i = 0; i < bytes; i++) {
        p[i] = (uint8_t)(v >> (8 * i));
    }
}

static uint64_t get_le(const uint8_t *p, int bytes)
{
    uint64_t v = 0;
    for (int i = 0; i < bytes; i++) {
        v |= (uint64_t)p[i] << (8 * i);
    }
    return v;
}

/* Write v as a varint at p; returns the bytes used (1..10). */
static int put_varint(uint8_t *p, uint64_t v)
{
    int n = 0;
    while (v >= 0x80) {
        p[n++] = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    p[n++] = (uint8_t)v;
    return n;
}

static uint64_t zigzag(uint64_t change)
{
    return (change << 1) ^ (uint64_t)((int64_t)change >> 63);
}

static uint64_t unzigzag(uint64_t z)
{
    return (z >> 1) ^ (0 - (z & 1));
}

/* -------------------------------------------------------------- writer */

struct temu_series {
    FILE *f;
    char path[1024];
    temu_session *session; /* NULL for temu_series_create_machine */
    uint64_t ncounters;
    uint64_t *prev; /* values of the previous snapshot (0 before the first) */
    uint8_t *buf;   /* the record being built */
    size_t cap;
    uint64_t snapshots;
    int64_t last_ps;
    int failed; /* a write failed: the file is no longer consistent */
};

static temu_status write_fail(temu_series *w, temu_error *err, const char *what)
{
    w->failed = 1;
    return temu_fail(err, TEMU_EIO, "series '%s': cannot %s: %s", w->path, what,
                     strerror(errno ? errno : EIO));
}

temu_status temu_series_create_machine(const char *path, const temu_machine *m, int64_t interval_ps,
                                       temu_series_clock clock, temu_series **out, temu_error *err)
{
    size_t speclen = strnlen(m->name, TEMU_NAME_MAX);
    *out = NULL;
    if (interval_ps <= 0) {
        return temu_fail(err, TEMU_EINVAL, "series interval must be positive (got %lld ps)",
                         (long long)interval_ps);
    }
    if (clock != TEMU_SERIES_VIRTUAL && clock != TEMU_SERIES_HOST) {
        return temu_fail(err, TEMU_EINVAL, "series clock %d is not virtual (0) or host (1)",
                         (int)clock);
    }
    if (speclen == 0 || speclen >= TEMU_NAME_MAX) {
        return temu_fail(err, TEMU_EINVAL, "series: the machine has no canonical name");
    }
    temu_series *w = calloc(1, sizeof *w);
    if (w == NULL) {
        return temu_fail(err, TEMU_ENOMEM, "series: out of memory");
    }
    snprintf(w->path, sizeof w->path, "%s", path);
    w->ncounters = temu_machine_counter_count(m);
    w->prev = calloc(w->ncounters ? w->ncounters : 1, sizeof *w->prev);
    w->cap = 64 + HEADER_FIXED + speclen;
    w->buf = malloc(w->cap);
    w->last_ps = -1;
    if (w->prev == NULL || w->buf == NULL) {
        temu_series_close(w, NULL);
        return temu_fail(err, TEMU_ENOMEM, "series: out of memory for %llu counters",
                         (unsigned long long)w->ncounters);
    }
    w->f = fopen(path, "wb");
    if (w->f == NULL) {
        temu_status st =
            temu_fail(err, TEMU_EIO, "series '%s': cannot create: %s", path, strerror(errno));
        temu_series_close(w, NULL);
        return st;
    }
    uint8_t *h = w->buf;
    memcpy(h, TEMU_SERIES_MAGIC, 8);
    put_le(h + 8, TEMU_SERIES_VERSION, 4);
    put_le(h + 12, HEADER_FIXED + speclen, 4);
    put_le(h + 16, w->ncounters, 8);
    put_le(h + 24, (uint64_t)interval_ps, 8);
    put_le(h + 32, (uint64_t)clock, 4);
    put_le(h + 36, speclen, 4);
    memcpy(h + HEADER_FIXED, m->name, speclen);
    errno = 0;
    if (fwrite(h, 1, HEADER_FIXED + speclen, w->f) != HEADER_FIXED + speclen || fflush(w->f) != 0) {
        temu_status st = write_fail(w, err, "write the header");
        temu_series_close(w, NULL);
        return st;
    }
    *out = w;
    return TEMU_OK;
}

temu_status temu_series_create_ex(const char *path, temu_session *s, int64_t interval_ps,
                                  temu_series_clock clock, temu_series **out, temu_error *err)
{
    temu_status st =
        temu_series_create_machine(path, temu_session_machine(s), interval_ps, clock, out, err);
    if (st != TEMU_OK) {
        return st;
    }
    (*out)->session = s;
    return TEMU_OK;
}

temu_status temu_series_create(const char *path, temu_session *s, int64_t interval_ps,
                               temu_series **out, temu_error *err)
{
    return temu_series_create_ex(path, s, interval_ps, TEMU_SERIES_VIRTUAL, out, err);
}

/* Make room for `more` bytes after `used` in the record buffer. */
static int reserve(temu_series *w, size_t used, size_t more)
{
    if (used + more <= w->cap) {
        return 0;
    }
    size_t cap = w->cap * 2 > used + more ? w->cap * 2 : used + more;
    uint8_t *b = realloc(w->buf, cap);
    if (b == NULL) {
        return -1;
    }
    w->buf = b;
    w->cap = cap;
    return 0;
}

/* Write one record: tag, varint length, payload (w->buf[0..len)), and
 * hand it to the kernel at once: a writer killed later (SIGKILL, a crash)
 * leaves every record written so far in the file, and one killed while
 * writing loses only that record (doc/series.md).  One write(2) per
 * snapshot costs nothing next to reading the store. */
static temu_status put_record(temu_series *w, int tag, size_t len, temu_error *err)
{
    uint8_t head[1 + VARINT_MAX];
    head[0] = (uint8_t)tag;
    int n = 1 + put_varint(head + 1, len);
    errno = 0;
    if (fwrite(head, 1, (size_t)n, w->f) != (size_t)n || fwrite(w->buf, 1, len, w->f) != len ||
        fflush(w->f) != 0) {
        return write_fail(w, err, "write a record");
    }
    return TEMU_OK;
}

/* Write the snapshot at t_ps of values[] or, when values is NULL, of the
 * session's counters, read in the same pass (no copy of a store that may
 * hold hundreds of millions of counters). */
static temu_status encode(temu_series *w, int64_t t_ps, const uint64_t *values, temu_error *err)
{
    if (w->failed) {
        return temu_fail(err, TEMU_EIO, "series '%s': an earlier write failed", w->path);
    }
    if (t_ps < 0 || t_ps <= w->last_ps) {
        return temu_fail(err, TEMU_EINVAL,
                         "series '%s': snapshot time %lld ps is not after the previous one "
                         "(%lld ps)",
                         w->path, (long long)t_ps, (long long)w->last_ps);
    }
    const uint64_t *live = values == NULL ? w->session->counters : NULL;
    /* payload: time step, changed count (moved into place below), pairs */
    uint64_t step = w->snapshots == 0 ? (uint64_t)t_ps : (uint64_t)(t_ps - w->last_ps);
    uint64_t nchanged = 0, last = 0;
    size_t used = (size_t)put_varint(w->buf, step);
    size_t count_at = used;
    used += VARINT_MAX; /* room for the count */
    for (uint64_t i = 0; i < w->ncounters; i++) {
        uint64_t v = live != NULL ? __atomic_load_n(&live[i], __ATOMIC_RELAXED) : values[i];
        uint64_t change = v - w->prev[i];
        if (change == 0) {
            continue;
        }
        if (reserve(w, used, 2 * VARINT_MAX) != 0) {
            return temu_fail(err, TEMU_ENOMEM, "series: out of memory for a snapshot");
        }
        used += (size_t)put_varint(w->buf + used, nchanged == 0 ? i : i - last - 1);
        used += (size_t)put_varint(w->buf + used, zigzag(change));
        w->prev[i] = v;
        last = i;
        nchanged++;
    }
    uint8_t count[VARINT_MAX];
    int cn = put_varint(count, nchanged);
    memmove(w->buf + count_at + cn, w->buf + count_at + VARINT_MAX, used - count_at - VARINT_MAX);
    memcpy(w->buf + count_at, count, (size_t)cn);
    used -= (size_t)(VARINT_MAX - cn);
    temu_status st = put_record(w, TAG_SNAPSHOT, used, err);
    if (st == TEMU_OK) {
        w->snapshots++;
        w->last_ps = t_ps;
    }
    return st;
}

temu_status temu_series_write_values(temu_series *w, int64_t t_ps, const uint64_t *values,
                                     temu_error *err)
{
    return encode(w, t_ps, values, err);
}

temu_status temu_series_snapshot(temu_series *w, int64_t t_ps, temu_error *err)
{
    if (w->session == NULL) {
        return temu_fail(err, TEMU_EINVAL,
                         "series '%s' has no session: use temu_series_write_values", w->path);
    }
    return encode(w, t_ps, NULL, err);
}

uint64_t temu_series_snapshots(const temu_series *w)
{
    return w->snapshots;
}

temu_status temu_series_close(temu_series *w, temu_error *err)
{
    temu_status st = TEMU_OK;
    if (w == NULL) {
        return TEMU_OK;
    }
    if (w->f != NULL) {
        if (w->failed) {
            st = temu_fail(err, TEMU_EIO, "series '%s': an earlier write failed", w->path);
        } else {
            size_t len = (size_t)put_varint(w->buf, w->snapshots);
            st = put_record(w, TAG_END, len, err);
        }
        errno = 0;
        if (fclose(w->f) != 0 && st == TEMU_OK) {
            st = temu_fail(err, TEMU_EIO, "series '%s': cannot finish writing: %s", w->path,
                           strerror(errno ? errno : EIO));
        }
    }
    free(w->prev);
    free(w->buf);
    free(w);
    return st;
}

/* -------------------------------------------------------------- reader */

struct temu_series_reader {
    FILE *f;
    char name[1024];
    temu_machine machine;
    uint64_t ncounters;
    int64_t interval_ps;
    temu_series_clock clock;
    uint64_t offset; /* bytes read from the file so far (for messages) */
    uint64_t *values;
    uint64_t *changed; /* indices changed by the last snapshot */
    uint64_t *delta;   /* their changes, applied once the record is whole */
    uint64_t changed_cap;
    uint64_t snapshots;
    int64_t last_ps;
    int done;     /* 1 after the end record or the end of the file */
    int complete; /* 1 when the end record was read */
};

/* What reading a varint or a record found besides a value. */
enum {
    READ_OK = 0,
    READ_CUT = -1,   /* the file ends here: a writer that did not finish */
    READ_SHORT = -2, /* the record ends here */
    READ_LONG = -3,  /* more than 10 bytes or above 2^64 */
    READ_IO = -4     /* the read itself failed */
};

static temu_status read_fail(temu_series_reader *r, temu_error *err, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static temu_status read_fail(temu_series_reader *r, temu_error *err, const char *fmt, ...)
{
    char why[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    r->done = 1;
    return temu_fail(err, TEMU_ECORRUPT, "series '%s', byte %llu: %s", r->name,
                     (unsigned long long)r->offset, why);
}

/* One byte of the current record; *left counts the record's bytes. */
static int record_byte(temu_series_reader *r, uint64_t *left)
{
    if (*left == 0) {
        return READ_SHORT;
    }
    int c = getc(r->f);
    if (c == EOF) {
        return ferror(r->f) ? READ_IO : READ_CUT;
    }
    r->offset++;
    (*left)--;
    return c;
}

/* A varint of the current record (left = UINT64_MAX outside records):
 * READ_OK or what stopped it. */
static int read_varint(temu_series_reader *r, uint64_t *left, uint64_t *v)
{
    *v = 0;
    for (int i = 0; i < VARINT_MAX; i++) {
        int c = record_byte(r, left);
        if (c < 0) {
            return c;
        }
        if (i == VARINT_MAX - 1 && c > 1) {
            return READ_LONG;
        }
        *v |= (uint64_t)(c & 0x7f) << (7 * i);
        if (!(c & 0x80)) {
            return READ_OK;
        }
    }
    return READ_LONG;
}

/* A varint that could not be read: 0 when the file was cut short there
 * (its last record is incomplete: what came before stands, and reading
 * ends), else the error. */
static int varint_fail(temu_series_reader *r, temu_error *err, int rc, const char *what)
{
    if (rc == READ_CUT) {
        r->done = 1;
        return 0;
    }
    if (rc == READ_IO) {
        r->done = 1;
        return temu_fail(err, TEMU_EIO, "series '%s', byte %llu: cannot read: %s", r->name,
                         (unsigned long long)r->offset, strerror(errno ? errno : EIO));
    }
    return read_fail(r, err, "%s: %s", what,
                     rc == READ_SHORT ? "the record ends too early"
                                      : "malformed number (more than 64 bits)");
}

static temu_status read_header(temu_series_reader *r, temu_error *err)
{
    uint8_t h[HEADER_MAX];
    size_t got = fread(h, 1, HEADER_FIXED, r->f);
    r->offset = got;
    if (got < 8 || memcmp(h, TEMU_SERIES_MAGIC, 8) != 0) {
        return temu_fail(err, TEMU_EINVAL, "'%s' is not a torusemu series file (no %s magic)",
                         r->name, TEMU_SERIES_MAGIC);
    }
    if (got < HEADER_FIXED) {
        return temu_fail(err, TEMU_ECORRUPT, "series '%s': the header is truncated (%zu bytes)",
                         r->name, got);
    }
    uint32_t version = (uint32_t)get_le(h + 8, 4), hbytes = (uint32_t)get_le(h + 12, 4);
    uint32_t clock = (uint32_t)get_le(h + 32, 4), speclen = (uint32_t)get_le(h + 36, 4);
    if (version != TEMU_SERIES_VERSION) {
        return temu_fail(err, TEMU_EVERSION,
                         "series '%s' is of version %u; this library reads version %u", r->name,
                         version, TEMU_SERIES_VERSION);
    }
    if (speclen == 0 || speclen >= TEMU_NAME_MAX || hbytes != HEADER_FIXED + speclen) {
        return temu_fail(err, TEMU_ECORRUPT,
                         "series '%s': header length %u does not fit its machine spec (%u bytes)",
                         r->name, hbytes, speclen);
    }
    got = fread(h + HEADER_FIXED, 1, speclen, r->f);
    r->offset += got;
    if (got != speclen) {
        return temu_fail(err, TEMU_ECORRUPT, "series '%s': the header is truncated", r->name);
    }
    char spec[TEMU_NAME_MAX];
    memcpy(spec, h + HEADER_FIXED, speclen);
    spec[speclen] = '\0';
    if (strlen(spec) != speclen) {
        return temu_fail(err, TEMU_ECORRUPT, "series '%s': the machine spec holds a NUL byte",
                         r->name);
    }
    temu_error perr;
    if (temu_machine_parse(spec, &r->machine, &perr) != TEMU_OK) {
        return temu_fail(err, TEMU_ECORRUPT, "series '%s': machine spec '%s': %s", r->name, spec,
                         perr.message);
    }
    r->ncounters = get_le(h + 16, 8);
    if (r->ncounters != temu_machine_counter_count(&r->machine)) {
        return temu_fail(err, TEMU_ECORRUPT, "series '%s': %llu counters, but machine %s has %llu",
                         r->name, (unsigned long long)r->ncounters, spec,
                         (unsigned long long)temu_machine_counter_count(&r->machine));
    }
    r->interval_ps = (int64_t)get_le(h + 24, 8);
    if (r->interval_ps <= 0) {
        return temu_fail(err, TEMU_ECORRUPT, "series '%s': interval %lld ps is not positive",
                         r->name, (long long)r->interval_ps);
    }
    if (clock > TEMU_SERIES_HOST) {
        return temu_fail(err, TEMU_ECORRUPT, "series '%s': unknown clock %u", r->name, clock);
    }
    r->clock = (temu_series_clock)clock;
    return TEMU_OK;
}

static temu_status open_stream(FILE *f, const char *name, temu_series_reader **out, temu_error *err)
{
    temu_series_reader *r = calloc(1, sizeof *r);
    *out = NULL;
    if (r == NULL) {
        fclose(f);
        return temu_fail(err, TEMU_ENOMEM, "series: out of memory");
    }
    r->f = f;
    r->last_ps = -1;
    snprintf(r->name, sizeof r->name, "%s", name);
    temu_status st = read_header(r, err);
    if (st != TEMU_OK) {
        temu_series_reader_close(r);
        return st;
    }
    *out = r;
    return TEMU_OK;
}

temu_status temu_series_open(const char *path, temu_series_reader **out, temu_error *err)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        *out = NULL;
        return temu_fail(err, TEMU_EIO, "cannot open series '%s': %s", path, strerror(errno));
    }
    return open_stream(f, path, out, err);
}

temu_status temu_series_open_mem(const void *data, size_t len, const char *name,
                                 temu_series_reader **out, temu_error *err)
{
    *out = NULL;
    if (len == 0) {
        return temu_fail(err, TEMU_EINVAL, "'%s' is empty, not a torusemu series file", name);
    }
    FILE *f = fmemopen((void *)data, len, "rb");
    if (f == NULL) {
        return temu_fail(err, TEMU_ENOMEM, "series '%s': cannot read from memory: %s", name,
                         strerror(errno));
    }
    return open_stream(f, name, out, err);
}

const temu_machine *temu_series_machine(const temu_series_reader *r)
{
    return &r->machine;
}

uint64_t temu_series_counter_count(const temu_series_reader *r)
{
    return r->ncounters;
}

int64_t temu_series_interval(const temu_series_reader *r)
{
    return r->interval_ps;
}

temu_series_clock temu_series_clock_of(const temu_series_reader *r)
{
    return r->clock;
}

int temu_series_complete(const temu_series_reader *r)
{
    return r->complete;
}

/* Room for the n changes of one snapshot; 0, or -1 out of memory. */
static int reserve_changes(temu_series_reader *r, uint64_t n)
{
    if (n <= r->changed_cap) {
        return 0;
    }
    uint64_t *c = realloc(r->changed, (size_t)n * sizeof *c);
    if (c != NULL) {
        r->changed = c;
    }
    uint64_t *d = realloc(r->delta, (size_t)n * sizeof *d);
    if (d != NULL) {
        r->delta = d;
    }
    if (c == NULL || d == NULL) {
        return -1;
    }
    r->changed_cap = n;
    return 0;
}

/* The body of a snapshot record of `left` bytes: 1 when read whole (the
 * values then hold it), 0 when the file ends inside it (the values keep
 * the previous snapshot), or a negative temu_status. */
static int read_snapshot(temu_series_reader *r, uint64_t left, int64_t *t_ps, uint64_t *nchanged,
                         temu_error *err)
{
    uint64_t step, n, index = 0;
    int rc;
    if ((rc = read_varint(r, &left, &step)) != READ_OK) {
        return varint_fail(r, err, rc, "snapshot time");
    }
    if (r->snapshots > 0 && step == 0) {
        return read_fail(r, err, "snapshot %llu has the time of the previous one",
                         (unsigned long long)r->snapshots);
    }
    uint64_t base = r->snapshots > 0 ? (uint64_t)r->last_ps : 0;
    if (step > (uint64_t)INT64_MAX - base) {
        return read_fail(r, err, "snapshot time beyond 2^63 ps");
    }
    if ((rc = read_varint(r, &left, &n)) != READ_OK) {
        return varint_fail(r, err, rc, "count of changed counters");
    }
    if (n > r->ncounters) {
        return read_fail(r, err, "%llu changed counters in a store of %llu", (unsigned long long)n,
                         (unsigned long long)r->ncounters);
    }
    if (n > left / 2) { /* a change takes 2 bytes at least: memory stays within the file's size */
        return read_fail(r, err, "%llu changed counters in a record of %llu bytes",
                         (unsigned long long)n, (unsigned long long)left);
    }
    if (reserve_changes(r, n) != 0) {
        r->done = 1;
        return temu_fail(err, TEMU_ENOMEM, "series '%s': out of memory for %llu changes", r->name,
                         (unsigned long long)n);
    }
    for (uint64_t k = 0; k < n; k++) {
        uint64_t gap, z;
        if ((rc = read_varint(r, &left, &gap)) != READ_OK) {
            return varint_fail(r, err, rc, "counter index");
        }
        if ((rc = read_varint(r, &left, &z)) != READ_OK) {
            return varint_fail(r, err, rc, "counter change");
        }
        /* the first index is absolute, the next ones follow it */
        if (k > 0 && (index == r->ncounters - 1 || gap > r->ncounters - index - 2)) {
            return read_fail(r, err, "counter index beyond the %llu counters",
                             (unsigned long long)r->ncounters);
        }
        index = k == 0 ? gap : index + 1 + gap;
        if (index >= r->ncounters) {
            return read_fail(r, err, "counter index %llu beyond the %llu counters",
                             (unsigned long long)index, (unsigned long long)r->ncounters);
        }
        r->changed[k] = index;
        r->delta[k] = unzigzag(z);
    }
    if (left != 0) {
        return read_fail(r, err, "%llu bytes left over at the end of a snapshot record",
                         (unsigned long long)left);
    }
    for (uint64_t k = 0; k < n; k++) {
        r->values[r->changed[k]] += r->delta[k];
    }
    r->last_ps = (int64_t)(base + step);
    r->snapshots++;
    *t_ps = r->last_ps;
    *nchanged = n;
    return 1;
}

/* The body of the end record of `len` bytes: 0 (the file is complete, or
 * was cut inside the record), or a negative temu_status. */
static int read_end(temu_series_reader *r, uint64_t len, temu_error *err)
{
    uint64_t count;
    int rc = read_varint(r, &len, &count);
    if (rc != READ_OK) {
        return varint_fail(r, err, rc, "end record");
    }
    if (len != 0 || count != r->snapshots) {
        return read_fail(r, err, "the end record counts %llu snapshots, the file holds %llu",
                         (unsigned long long)count, (unsigned long long)r->snapshots);
    }
    if (getc(r->f) != EOF) {
        return read_fail(r, err, "data after the end record");
    }
    r->done = r->complete = 1;
    return 0;
}

/* The value array, allocated at the first read: 0, or a negative
 * temu_status. */
static int alloc_values(temu_series_reader *r, temu_error *err)
{
    if (r->values != NULL) {
        return 0;
    }
    size_t k = r->ncounters ? (size_t)r->ncounters : 1;
    r->values = calloc(k, sizeof *r->values);
    if (r->values == NULL) {
        r->done = 1;
        return temu_fail(err, TEMU_ENOMEM, "series '%s': out of memory for %llu counters", r->name,
                         (unsigned long long)r->ncounters);
    }
    return 0;
}

int temu_series_next_changes(temu_series_reader *r, int64_t *t_ps, const uint64_t **values,
                             const uint64_t **changed, uint64_t *nchanged, temu_error *err)
{
    uint64_t len, all = UINT64_MAX, n = 0;
    if (r->done) {
        return 0;
    }
    int rc = alloc_values(r, err);
    if (rc != 0) {
        return rc;
    }
    int tag = getc(r->f);
    if (tag == EOF) {
        /* cut short after a whole record: what was written is good */
        return varint_fail(r, err, ferror(r->f) ? READ_IO : READ_CUT, "record");
    }
    if (tag != TAG_SNAPSHOT && tag != TAG_END) {
        return read_fail(r, err, "unknown record type 0x%02x", (unsigned)tag);
    }
    r->offset++;
    if ((rc = read_varint(r, &all, &len)) != READ_OK) {
        return varint_fail(r, err, rc, "record length");
    }
    if (tag == TAG_END) {
        return read_end(r, len, err);
    }
    rc = read_snapshot(r, len, t_ps, &n, err);
    if (rc != 1) {
        return rc;
    }
    *values = r->values;
    if (changed != NULL) {
        *changed = r->changed;
        *nchanged = n;
    }
    return 1;
}

int temu_series_next(temu_series_reader *r, int64_t *t_ps, const uint64_t **values, temu_error *err)
{
    return temu_series_next_changes(r, t_ps, values, NULL, NULL, err);
}

void temu_series_reader_close(temu_series_reader *r)
{
    if (r == NULL) {
        return;
    }
    if (r->f != NULL) {
        fclose(r->f);
    }
    free(r->values);
    free(r->changed);
    free(r->delta);
    free(r);
}
