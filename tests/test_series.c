/*
 * test_series.c - time-series files (torusemu_series.h, doc/series.md):
 * exact round trips of a session's counters, the documented byte layout,
 * and clear errors for bad writes and damaged or crafted files.
 */
#include "testutil.h"
#include "torusemu_series.h"

#include <sys/stat.h>

/* A fresh path for a series file. */
static void series_path(char *buf, size_t len, const char *tag)
{
    const char *dir = getenv("TMPDIR");
    snprintf(buf, len, "%s/temu-test-series-%s-%d.tser", dir && *dir ? dir : "/tmp", tag,
             (int)getpid());
}

static long file_size(const char *path)
{
    struct stat st;
    ck_assert_int_eq(stat(path, &st), 0);
    return (long)st.st_size;
}

/* The whole file in memory. */
static uint8_t *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    ck_assert_ptr_nonnull(f);
    long n = file_size(path);
    uint8_t *b = malloc((size_t)n + 1);
    ck_assert_ptr_nonnull(b);
    ck_assert_uint_eq(fread(b, 1, (size_t)n, f), (size_t)n);
    fclose(f);
    *len = (size_t)n;
    return b;
}

/* An idle private store of spec (its machine in *m). */
static temu_session *private_session(const char *spec, temu_machine *m)
{
    temu_session *s;
    temu_error err;
    *m = test_machine(spec);
    ck_assert_int_eq(temu_session_create_private(m, &s, &err), TEMU_OK);
    return s;
}

/* v as a LEB128 varint at b[k]; returns the index after it. */
static int varint_at(uint8_t *b, int k, uint64_t v)
{
    for (; v >= 0x80; v >>= 7) {
        b[k++] = (uint8_t)((v & 0x7f) | 0x80);
    }
    b[k++] = (uint8_t)v;
    return k;
}

START_TEST(test_round_trip_session)
{
    /* messages injected between snapshots; the file must give back, for
     * every snapshot, exactly the counters the store held at that moment */
    enum { SNAPS = 8 };
    temu_machine m;
    temu_session *s = private_session("gemini:2x2x3", &m);
    temu_series *w;
    temu_error err;
    char path[256];
    uint64_t n = temu_counter_count(s);
    uint64_t *expect = malloc(SNAPS * n * sizeof *expect);
    long ends[SNAPS]; /* the file's size after each snapshot */
    ck_assert_ptr_nonnull(expect);
    series_path(path, sizeof path, "trip");
    ck_assert_int_eq(temu_series_create(path, s, 1000000, &w, &err), TEMU_OK);
    /* the header is in the file at once: a run killed now leaves a file
     * that opens (with no snapshot) */
    long header = 40 + (long)strlen(m.name);
    ck_assert_int_eq(file_size(path), header);
    for (int k = 0; k < SNAPS; k++) {
        for (int j = 0; j <= k; j++) { /* k+1 messages of different sizes */
            temu_message msg = {.src = j % m.nnodes,
                                .dst = (5 * j + 7) % m.nnodes,
                                .bytes = 100u + 4096u * (uint64_t)k,
                                .kind = TEMU_KIND_P2P};
            ck_assert_int_eq(temu_inject(s, &msg, &err), TEMU_OK);
        }
        if (k == 3) {
            temu_session_zero(s); /* counters go down: changes are taken mod 2^64 */
            temu_counter_add(s, 7, 5);
        }
        for (uint64_t i = 0; i < n; i++) {
            expect[k * n + i] = temu_counter_read(s, (int64_t)i);
        }
        ck_assert_int_eq(temu_series_snapshot(w, 2000000 + 1000000 * (int64_t)k, &err), TEMU_OK);
        /* each snapshot reaches the file whole when it is written, so a
         * writer killed between two snapshots loses none */
        ends[k] = file_size(path);
        ck_assert_int_gt(ends[k], k == 0 ? header : ends[k - 1]);
    }
    ck_assert_uint_eq(temu_series_snapshots(w), SNAPS);
    ck_assert_int_eq(temu_series_close(w, &err), TEMU_OK);
    ck_assert_int_gt(ends[SNAPS - 1], 4096); /* more than one stdio block */

    temu_series_reader *r;
    ck_assert_int_eq(temu_series_open(path, &r, &err), TEMU_OK);
    ck_assert_str_eq(temu_series_machine(r)->name, "gemini:2x2x3");
    ck_assert_uint_eq(temu_series_counter_count(r), n);
    ck_assert_int_eq(temu_series_interval(r), 1000000);
    ck_assert_int_eq(temu_series_clock_of(r), TEMU_SERIES_VIRTUAL);
    int64_t t;
    const uint64_t *v;
    for (int k = 0; k < SNAPS; k++) {
        ck_assert_int_eq(temu_series_next(r, &t, &v, &err), 1);
        ck_assert_int_eq(t, 2000000 + 1000000 * (int64_t)k);
        for (uint64_t i = 0; i < n; i++) {
            ck_assert_msg(v[i] == expect[k * n + i], "snapshot %d counter %llu: %llu != %llu", k,
                          (unsigned long long)i, (unsigned long long)v[i],
                          (unsigned long long)expect[k * n + i]);
        }
    }
    ck_assert_int_eq(temu_series_next(r, &t, &v, &err), 0);
    ck_assert_int_eq(temu_series_complete(r), 1);
    ck_assert_int_eq(temu_series_next(r, &t, &v, &err), 0);
    temu_series_reader_close(r);

    /* cut after the header anywhere (a writer killed while writing): read
     * without error up to the last whole snapshot, exactly, and said to
     * be incomplete */
    size_t len;
    uint8_t *b = slurp(path, &len);
    for (size_t cut = (size_t)header; cut < len; cut++) {
        int whole = 0, got = 0, rc;
        while (whole < SNAPS && ends[whole] <= (long)cut) {
            whole++;
        }
        ck_assert_int_eq(temu_series_open_mem(b, cut, "cut", &r, &err), TEMU_OK);
        while ((rc = temu_series_next(r, &t, &v, &err)) == 1) {
            ck_assert_int_lt(got, whole);
            ck_assert_int_eq(memcmp(v, expect + got * n, n * sizeof *v), 0);
            got++;
        }
        ck_assert_msg(rc == 0, "cut at byte %zu: %s", cut, err.message);
        ck_assert_msg(got == whole, "cut at byte %zu: %d snapshots read, %d whole", cut, got,
                      whole);
        ck_assert_int_eq(temu_series_complete(r), 0);
        ck_assert_int_eq(temu_series_next(r, &t, &v, &err), 0);
        temu_series_reader_close(r);
    }
    free(b);
    free(expect);
    temu_session_close(s);
    unlink(path);
}
END_TEST

START_TEST(test_chosen_values_and_layout)
{
    /* counters set by hand; the bytes of the file computed from
     * doc/series.md, independently of the writer */
    temu_machine m;
    temu_session *s = private_session("gemini:2x2x2", &m);
    temu_series *w;
    temu_error err;
    char path[256];
    uint64_t n = temu_counter_count(s);
    int64_t stall = temu_idx_gemini_tile(&m, 5, 17, TEMU_TILE_INQ_STALL);
    series_path(path, sizeof path, "layout");
    ck_assert_int_eq(temu_series_create(path, s, 60000000, &w, &err), TEMU_OK);
    long header = 40 + (long)strlen(m.name);
    ck_assert_int_eq(temu_series_snapshot(w, 0, &err), TEMU_OK); /* all zero */
    temu_counter_add(s, 3, 300);
    temu_counter_add(s, stall, UINT64_MAX - 1); /* near the top of 64 bits */
    ck_assert_int_eq(temu_series_snapshot(w, 60000000, &err), TEMU_OK);
    ck_assert_int_eq(temu_series_snapshot(w, 120000000, &err), TEMU_OK); /* no change */
    temu_counter_add(s, (int64_t)n - 1, 1);
    ck_assert_int_eq(temu_series_snapshot(w, 120000001, &err), TEMU_OK);
    /* out-of-order and negative times are refused, the file stays good */
    ck_assert_int_eq(temu_series_snapshot(w, 120000001, &err), TEMU_EINVAL);
    ck_assert_ptr_nonnull(strstr(err.message, "not after"));
    ck_assert_int_eq(temu_series_close(w, &err), TEMU_OK);

    size_t len;
    uint8_t *b = slurp(path, &len);
    ck_assert_int_eq(memcmp(b, "TEMUSERS", 8), 0);
    ck_assert_int_eq(b[8], 1); /* version */
    ck_assert_int_eq(b[12], header);
    ck_assert_uint_eq(b[16] | (uint64_t)b[17] << 8 | (uint64_t)b[18] << 16, n);
    /* snapshot 0: 'S', length 2, time 0, no change */
    const uint8_t s0[] = {'S', 2, 0, 0};
    ck_assert_int_eq(memcmp(b + header, s0, sizeof s0), 0);
    /* snapshot 1: time step 60e6 ps = 4 varint bytes; two changes:
     * index 3 (+300, zigzag 600 = 0xd8 0x04) and index stall (gap
     * stall-4, change -2 mod 2^64: zigzag 3) */
    const uint8_t *p = b + header + sizeof s0;
    ck_assert_int_eq(p[0], 'S');
    uint64_t gap = (uint64_t)stall - 4;
    uint8_t want[32];
    int k = 0;
    want[k++] = 0x80 | (60000000 & 0x7f); /* LEB128, low 7 bits first */
    want[k++] = 0x80 | ((60000000 >> 7) & 0x7f);
    want[k++] = 0x80 | ((60000000 >> 14) & 0x7f);
    want[k++] = (60000000 >> 21) & 0x7f;
    want[k++] = 2;
    want[k++] = 3;
    want[k++] = 0xd8;
    want[k++] = 0x04;
    k = varint_at(want, k, gap);
    want[k++] = 3;
    ck_assert_int_eq(p[1], k);
    ck_assert_int_eq(memcmp(p + 2, want, (size_t)k), 0);
    p += 2 + k;
    /* snapshot 2: an idle interval costs 7 bytes on any machine */
    const uint8_t s2[] = {'S', 5, want[0], want[1], want[2], want[3], 0};
    ck_assert_int_eq(memcmp(p, s2, sizeof s2), 0);
    p += sizeof s2;
    /* snapshot 3: step 1, one change at the last counter: +1 */
    ck_assert_int_eq(p[0], 'S');
    p += 2 + p[1];
    const uint8_t end[] = {'E', 1, 4};
    ck_assert_int_eq(memcmp(p, end, sizeof end), 0);
    ck_assert_int_eq((long)(p + sizeof end - b), (long)len);

    /* read back: exact values and the changed lists */
    temu_series_reader *r;
    int64_t t;
    const uint64_t *v, *changed;
    uint64_t nchanged;
    ck_assert_int_eq(temu_series_open_mem(b, len, "mem", &r, &err), TEMU_OK);
    ck_assert_int_eq(temu_series_next_changes(r, &t, &v, &changed, &nchanged, &err), 1);
    ck_assert_int_eq(t, 0);
    ck_assert_uint_eq(nchanged, 0);
    ck_assert_int_eq(temu_series_next_changes(r, &t, &v, &changed, &nchanged, &err), 1);
    ck_assert_int_eq(t, 60000000);
    ck_assert_uint_eq(nchanged, 2);
    ck_assert_uint_eq(changed[0], 3);
    ck_assert_uint_eq(changed[1], (uint64_t)stall);
    ck_assert_uint_eq(v[3], 300);
    ck_assert_uint_eq(v[stall], UINT64_MAX - 1);
    ck_assert_int_eq(temu_series_next_changes(r, &t, &v, &changed, &nchanged, &err), 1);
    ck_assert_int_eq(t, 120000000);
    ck_assert_uint_eq(nchanged, 0);
    ck_assert_int_eq(temu_series_next_changes(r, &t, &v, &changed, &nchanged, &err), 1);
    ck_assert_int_eq(t, 120000001);
    ck_assert_uint_eq(nchanged, 1);
    ck_assert_uint_eq(v[n - 1], 1);
    ck_assert_uint_eq(v[stall], UINT64_MAX - 1);
    ck_assert_int_eq(temu_series_next(r, &t, &v, &err), 0);
    ck_assert_int_eq(temu_series_complete(r), 1);
    temu_series_reader_close(r);

    /* every proper prefix: cut inside the header, a clear error; after
     * it, every snapshot whose record is whole and "incomplete" */
    size_t ends[4];
    ends[0] = (size_t)header + sizeof s0;
    ends[1] = ends[0] + 2 + b[ends[0] + 1];
    ends[2] = ends[1] + sizeof s2;
    ends[3] = len - sizeof end;
    for (size_t cut = 0; cut < len; cut++) {
        temu_status st = temu_series_open_mem(b, cut, "prefix", &r, &err);
        if (cut < (size_t)header) {
            ck_assert_int_ne(st, TEMU_OK);
            ck_assert_int_ne(err.message[0], '\0');
            continue;
        }
        ck_assert_int_eq(st, TEMU_OK);
        static const int64_t times[] = {0, 60000000, 120000000, 120000001};
        int rc, got = 0, whole = 0;
        while (whole < 4 && ends[whole] <= cut) {
            whole++;
        }
        while ((rc = temu_series_next(r, &t, &v, &err)) == 1) {
            ck_assert_int_lt(got, 4);
            ck_assert_int_eq(t, times[got]); /* the snapshots read back, in order */
            got++;
        }
        ck_assert_msg(rc == 0, "cut at byte %zu: %s", cut, err.message);
        ck_assert_int_eq(got, whole);
        ck_assert_int_eq(temu_series_complete(r), 0);
        temu_series_reader_close(r);
    }
    free(b);
    temu_session_close(s);
    unlink(path);
}
END_TEST

/* Open bytes that must fail at open or while reading, with `status` and a
 * message holding `why`. */
static void expect_bad(const uint8_t *b, size_t len, temu_status status, const char *why)
{
    temu_series_reader *r;
    temu_error err;
    int64_t t;
    const uint64_t *v;
    temu_status st = temu_series_open_mem(b, len, "crafted", &r, &err);
    if (st == TEMU_OK) {
        int rc;
        while ((rc = temu_series_next(r, &t, &v, &err)) == 1) {
        }
        temu_series_reader_close(r);
        st = (temu_status)rc;
    }
    ck_assert_int_eq(st, status);
    ck_assert_msg(strstr(err.message, why) != NULL, "'%s' lacks '%s'", err.message, why);
}

START_TEST(test_crafted_files)
{
    temu_machine m = test_machine("gemini:2x2x2");
    temu_series *w;
    temu_error err;
    char path[256];
    uint64_t n = temu_machine_counter_count(&m);
    uint64_t *vals = calloc(n, sizeof *vals);
    ck_assert_ptr_nonnull(vals);
    series_path(path, sizeof path, "crafted");
    ck_assert_int_eq(temu_series_create_machine(path, &m, 10, TEMU_SERIES_HOST, &w, &err), TEMU_OK);
    vals[0] = 1;
    ck_assert_int_eq(temu_series_write_values(w, 10, vals, &err), TEMU_OK);
    ck_assert_int_eq(temu_series_snapshot(w, 20, &err), TEMU_EINVAL); /* no session */
    ck_assert_int_eq(temu_series_close(w, &err), TEMU_OK);
    size_t len;
    uint8_t *good = slurp(path, &len), *b = malloc(len + 16);
    ck_assert_ptr_nonnull(b);
    size_t h = 40 + strlen(m.name);
    /* the good file: one snapshot, complete, host clock */
    temu_series_reader *r;
    int64_t t;
    const uint64_t *v;
    ck_assert_int_eq(temu_series_open_mem(good, len, "good", &r, &err), TEMU_OK);
    ck_assert_int_eq(temu_series_clock_of(r), TEMU_SERIES_HOST);
    ck_assert_int_eq(temu_series_next(r, &t, &v, &err), 1);
    ck_assert_uint_eq(v[0], 1);
    ck_assert_int_eq(temu_series_next(r, &t, &v, &err), 0);
    ck_assert_int_eq(temu_series_complete(r), 1);
    temu_series_reader_close(r);

#define FRESH() memcpy(b, good, len)
    FRESH();
    b[0] = 'X';
    expect_bad(b, len, TEMU_EINVAL, "not a torusemu series");
    FRESH();
    b[8] = 2;
    expect_bad(b, len, TEMU_EVERSION, "version 2");
    FRESH();
    b[16]++; /* counter count */
    expect_bad(b, len, TEMU_ECORRUPT, "counters, but machine");
    FRESH();
    b[24] = 0; /* interval 0 */
    expect_bad(b, len, TEMU_ECORRUPT, "not positive");
    FRESH();
    b[32] = 7;
    expect_bad(b, len, TEMU_ECORRUPT, "unknown clock");
    FRESH();
    b[36] = 60; /* spec length */
    expect_bad(b, len, TEMU_ECORRUPT, "header length");
    FRESH();
    b[40] = 'q'; /* "qemini:..." */
    expect_bad(b, len, TEMU_ECORRUPT, "machine spec");
    FRESH();
    b[h] = 'Z';
    expect_bad(b, len, TEMU_ECORRUPT, "unknown record type 0x5a");
    /* snapshot payload: 'S', 4, step 10, count 1, gap 0, zigzag 2 */
    FRESH();
    ck_assert_int_eq(b[h + 1], 4);
    b[h + 3] = 2; /* two changes announced in 2 bytes: no room for them */
    expect_bad(b, len, TEMU_ECORRUPT, "2 changed counters in a record of 2 bytes");
    FRESH();
    b[h + 3] = 0xff; /* 127 changes: the same, the count itself eats a byte */
    expect_bad(b, len, TEMU_ECORRUPT, "127 changed counters in a record of 1 bytes");
    FRESH();
    b[h + 4] = 0x80; /* the index varint runs on into the change and past the end */
    b[h + 5] = 0x80;
    expect_bad(b, len, TEMU_ECORRUPT, "record ends too early");
    FRESH();
    b[h + 1] = 5; /* a record longer than its content eats the end tag */
    expect_bad(b, len, TEMU_ECORRUPT, "bytes left over");
    FRESH();
    b[len - 1] = 9; /* end record counts 9 snapshots */
    expect_bad(b, len, TEMU_ECORRUPT, "end record counts 9");
    FRESH();
    b[len] = 0;
    expect_bad(b, len + 1, TEMU_ECORRUPT, "data after the end record");
    /* a change beyond the counters: first index = n */
    memcpy(b, good, h);
    size_t k = h;
    b[k++] = 'S';
    size_t at = k++;
    b[k++] = 10;
    b[k++] = 1;
    k = (size_t)varint_at(b, (int)k, n);
    b[k++] = 2;
    b[at] = (uint8_t)(k - at - 1);
    expect_bad(b, k, TEMU_ECORRUPT, "beyond the");
    /* an 11-byte varint */
    memcpy(b, good, h);
    k = h;
    b[k++] = 'S';
    for (int i = 0; i < 11; i++) {
        b[k++] = 0xff;
    }
    expect_bad(b, k, TEMU_ECORRUPT, "more than 64 bits");
    /* a second snapshot at the same time */
    memcpy(b, good, h);
    k = h;
    const uint8_t two[] = {'S', 2, 10, 0, 'S', 2, 0, 0};
    memcpy(b + k, two, sizeof two);
    expect_bad(b, k + sizeof two, TEMU_ECORRUPT, "time of the previous");
    /* a file cut at a record boundary is read as far as it goes */
    memcpy(b, good, h);
    memcpy(b + h, two, 4);
    ck_assert_int_eq(temu_series_open_mem(b, h + 4, "cut", &r, &err), TEMU_OK);
    ck_assert_int_eq(temu_series_next(r, &t, &v, &err), 1);
    ck_assert_int_eq(temu_series_next(r, &t, &v, &err), 0);
    ck_assert_int_eq(temu_series_complete(r), 0);
    temu_series_reader_close(r);
    expect_bad(b, 0, TEMU_EINVAL, "empty");
    ck_assert_int_eq(temu_series_open("/nonexistent/dir/x.tser", &r, &err), TEMU_EIO);
    ck_assert_ptr_nonnull(strstr(err.message, "/nonexistent/dir/x.tser"));
    ck_assert_int_eq(temu_series_create_machine(path, &m, 0, TEMU_SERIES_HOST, &w, &err),
                     TEMU_EINVAL);
    ck_assert_int_eq(
        temu_series_create_machine("/nonexistent/dir/x.tser", &m, 1, TEMU_SERIES_VIRTUAL, &w, &err),
        TEMU_EIO);
    free(good);
    free(b);
    free(vals);
    unlink(path);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("series");
    TCase *tc = tcase_create("series");
    tcase_add_test(tc, test_round_trip_session);
    tcase_add_test(tc, test_chosen_values_and_layout);
    tcase_add_test(tc, test_crafted_files);
    suite_add_tcase(s, tc);
    return test_run(s);
}
