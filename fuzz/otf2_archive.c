/*
 * otf2_archive.c - fuzz the OTF2 reader of `torusemu replay --trace`
 * (utils/otf2_read.c; doc/replay.md "OTF2 traces") and the replay engine
 * behind it.  An OTF2 archive is a directory, so one input packs one:
 *
 *   input := flags entry*
 *   flags := 1 byte; bit 0: replay with virtual time (the ranks' programs
 *            are recorded, not run)
 *   entry := namelen (1 byte), name (namelen bytes), size (4 bytes, little
 *            endian), data (size bytes; the last entry may be cut short)
 *
 * Names are the archive's files: traces.otf2 (the anchor), traces.def,
 * traces/L.evt and traces/L.def (L: a location id in 1-20 decimal digits);
 * other names are skipped, so nothing lands outside the harness's private
 * directory (made once under $TMPDIR, removed at exit).  The seeds are
 * archives the project records (tests/otf2_foreign, `torusemu run
 * --trace`), packed by fuzz/otf2_pack.
 *
 * Invariants: the archive is refused with a message, or its ranks are
 * counted; an archive of 1..64 ranks is replayed onto gemini:2x2x2 (4
 * ranks per node), which ends in success or a message, and a replay that
 * succeeds leaves no send or receive unmatched.
 */
#define _GNU_SOURCE 1
#include "fuzz.h"

#include "../utils/otf2_trace.h"
#include "torusemu_vtime.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_FILES 64
#define MAX_RANKS 64
#define NAME_MAX_LEN 31 /* "traces/" + 20 digits + ".evt" */

static char dir[256];                             /* the archive directory */
static char written[MAX_FILES][NAME_MAX_LEN + 1]; /* its files now          */
static int nwritten;
static temu_session *sessions[MAX_RANKS + 1]; /* one store per rank count */

static void dir_clean(void)
{
    char path[4096];
    for (int i = 0; i < nwritten; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, written[i]);
        unlink(path);
    }
    nwritten = 0;
}

static void dir_remove(void)
{
    char path[4096];
    dir_clean();
    snprintf(path, sizeof path, "%s/traces", dir);
    rmdir(path);
    rmdir(dir);
    for (int n = 0; n <= MAX_RANKS; n++) {
        temu_session_close(sessions[n]);
        sessions[n] = NULL;
    }
}

static void dir_make(void)
{
    const char *tmp = getenv("TMPDIR");
    char path[4096];
    snprintf(dir, sizeof dir, "%s/temu-fuzz-otf2.XXXXXX", tmp != NULL ? tmp : "/tmp");
    FUZZ_CHECK(mkdtemp(dir) != NULL);
    snprintf(path, sizeof path, "%s/traces", dir);
    FUZZ_CHECK(mkdir(path, 0700) == 0);
    atexit(dir_remove);
}

/* One of the archive's file names (len bytes, not NUL-terminated). */
static int name_ok(const char *name, size_t len)
{
    if ((len == 11 && memcmp(name, "traces.otf2", 11) == 0) ||
        (len == 10 && memcmp(name, "traces.def", 10) == 0)) {
        return 1;
    }
    if (len < 12 || len > NAME_MAX_LEN || memcmp(name, "traces/", 7) != 0 ||
        (memcmp(name + len - 4, ".evt", 4) != 0 && memcmp(name + len - 4, ".def", 4) != 0)) {
        return 0;
    }
    for (size_t i = 7; i < len - 4; i++) {
        if (name[i] < '0' || name[i] > '9') {
            return 0;
        }
    }
    return 1;
}

static void file_put(const char *name, const uint8_t *p, size_t n)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    FUZZ_CHECK(fd >= 0);
    FUZZ_CHECK(write(fd, p, n) == (ssize_t)n);
    close(fd);
    for (int i = 0; i < nwritten; i++) {
        if (strcmp(written[i], name) == 0) {
            return; /* written again: the last one counts */
        }
    }
    snprintf(written[nwritten++], sizeof written[0], "%s", name);
}

/* The input's entries into the archive's files. */
static void unpack(const uint8_t *data, size_t size)
{
    size_t at = 1;
    while (at < size && nwritten < MAX_FILES) {
        size_t nlen = data[at++];
        if (nlen > size - at) {
            break;
        }
        const char *name = (const char *)data + at;
        at += nlen;
        if (size - at < 4) {
            break;
        }
        size_t len = (size_t)data[at] | (size_t)data[at + 1] << 8 | (size_t)data[at + 2] << 16 |
                     (size_t)data[at + 3] << 24;
        at += 4;
        len = len < size - at ? len : size - at;
        if (name_ok(name, nlen)) {
            char n[NAME_MAX_LEN + 1];
            memcpy(n, name, nlen);
            n[nlen] = '\0';
            file_put(n, data + at, len);
        }
        at += len;
    }
}

/* A store with n ranks mapped (kept for the next input of n ranks). */
static temu_session *session_for(int32_t n)
{
    if (sessions[n] == NULL) {
        temu_machine m;
        temu_mapping map;
        temu_error err;
        char path[4096];
        FUZZ_CHECK(temu_machine_parse("gemini:2x2x2", &m, &err) == TEMU_OK);
        FUZZ_CHECK(temu_mapping_build(&m, n, 4, NULL, &map, &err) == TEMU_OK);
        snprintf(path, sizeof path, "%s/store.%d", dir, n);
        FUZZ_CHECK(temu_session_create(path, &m, &map, &sessions[n], &err) == TEMU_OK);
        unlink(path);
        temu_mapping_free(&map);
    }
    return sessions[n];
}

static void progress(void *ctx, uint64_t done, uint64_t total)
{
    (void)ctx;
    (void)done;
    (void)total;
}

/* The archive replayed in virtual time, read as the ranks reach it 3
 * records at a time (temu_otf2_lazy_open): the reading, and so its
 * errors, happen during the run. */
static void replay_lazy(int32_t n)
{
    temu_session *s = session_for(n);
    temu_replay *r;
    temu_vt *vt;
    temu_otf2_lazy *lazy = NULL;
    temu_error err;
    FUZZ_CHECK(temu_replay_create(s, &r, &err) == TEMU_OK);
    FUZZ_CHECK(temu_vt_create(s, NULL, &vt, &err) == TEMU_OK);
    temu_replay_set_vtime(r, vt);
    err.message[0] = '\0';
    temu_status rc = temu_otf2_lazy_open(dir, r, 3, &lazy, &err);
    if (rc == TEMU_OK) {
        rc = temu_vt_run(vt, &err);
    }
    if (rc == TEMU_OK) {
        rc = temu_replay_finish(r, &err);
    }
    FUZZ_CHECK(rc == TEMU_OK || err.message[0] != '\0');
    temu_otf2_lazy_free(lazy);
    temu_replay_free(r);
    temu_vt_free(vt);
}

static void replay(int32_t n, int timed)
{
    temu_session *s = session_for(n);
    temu_replay *r;
    temu_vt *vt = NULL;
    temu_error err;
    temu_replay_stats st;
    FUZZ_CHECK(temu_replay_create(s, &r, &err) == TEMU_OK);
    if (timed) {
        FUZZ_CHECK(temu_vt_create(s, NULL, &vt, &err) == TEMU_OK);
        temu_replay_set_vtime(r, vt);
    }
    err.message[0] = '\0';
    temu_status rc = temu_otf2_replay(dir, r, progress, NULL, &err);
    if (rc == TEMU_OK) {
        rc = temu_replay_finish(r, &err);
    }
    if (rc == TEMU_OK) {
        temu_replay_get_stats(r, &st);
        FUZZ_CHECK(st.unmatched_sends == 0 && st.unmatched_recvs == 0);
    } else {
        FUZZ_CHECK(err.message[0] != '\0');
    }
    temu_replay_free(r);
    temu_vt_free(vt);
}

/* The sanitizers of `make fuzz` and the OTF2 library (3.0.2, built
 * without them).  OTF2 sizes some of its own tables from the anchor file's
 * counts: a crafted count asks for tens of GiB, which glibc refuses with
 * NULL and OTF2 reports as an error -- so should AddressSanitizer, instead
 * of aborting.  OTF2 leaks on several of its error paths (the anchor's
 * buffers when OTF2_Reader_Open fails, records of malformed definitions),
 * and a leak's stack reaches into it from our callbacks as well, so no
 * suppression can tell its leaks from ours: leaks are not checked here
 * (valgrind finds none of ours in the seeds and the refused archives of
 * tests/otf2_foreign.sh). */
const char *__asan_default_options(void);
const char *__asan_default_options(void)
{
    return "allocator_may_return_null=1:detect_leaks=0";
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    temu_error err;
    if (dir[0] == '\0') {
        dir_make();
    }
    dir_clean();
    if (size == 0) {
        return 0;
    }
    unpack(data, size);
    err.message[0] = '\0';
    int32_t n = temu_otf2_ranks(dir, &err);
    if (n < 0) {
        FUZZ_CHECK(err.message[0] != '\0');
    } else if (n >= 1 && n <= MAX_RANKS) {
        replay(n, data[0] & 1);
        if (data[0] & 1) {
            replay_lazy(n);
        }
    }
    return 0;
}
