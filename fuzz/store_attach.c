/*
 * store_attach.c - fuzz attaching to a store file (temu_session_attach)
 * and using what was attached the way `torusemu dump`/`inject` and the
 * PAPI components do.
 *
 * Input: the first bytes of a store file.  The file handed to attach is the
 * input extended with zeros to the size its header announces (file_bytes,
 * at offset 16) when that is larger and at most 32 MiB, so a corpus entry
 * needs only the header page and the sections it changes.  The file lives
 * in a memfd (no disk), attached through /proc/self/fd/N.
 *
 * Overflow watches armed in an input would make injections here signal
 * whatever pid/tid the input names; the harness points every watch at
 * itself with signal 0 before injecting (crossings are still recorded).
 */
#define _GNU_SOURCE 1
#define TEMU_BUILDING_LIBRARY 1
#include "fuzz.h"
#include "emu_internal.h"

#include <sys/mman.h>
#include <unistd.h>

#define FILE_BYTES_AT 16 /* offsetof(temu_store_header, file_bytes) */
#define MAX_FILE (32u << 20)

static void defuse_watches(temu_session *s)
{
    for (int i = 0; i < TEMU_WATCH_MAX; i++) {
        s->watches[i].signo = 0;
        s->watches[i].pid = (int32_t)getpid();
        s->watches[i].tid = (int32_t)getpid();
    }
}

static void use(temu_session *s, int writable)
{
    static FILE *sink;
    const temu_machine *m = temu_session_machine(s);
    char name[256];
    temu_error err;
    if (sink == NULL) {
        sink = fopen("/dev/null", "w");
    }
    if (sink != NULL) {
        temu_machine_describe(m, sink);
    }
    int64_t last = m->nnodes - 1;
    FUZZ_CHECK(temu_node_name(m, last, name, sizeof name) > 0);
    uint64_t n = temu_counter_count(s);
    FUZZ_CHECK(n == temu_machine_counter_count(m));
    (void)temu_counter_read(s, 0);
    (void)temu_counter_read(s, (int64_t)n - 1);
    temu_counter_describe(m, (int64_t)n - 1, name, sizeof name);
    for (int32_t r = 0; r < temu_session_nranks(s) && r < 8; r++) {
        temu_slot slot;
        FUZZ_CHECK(temu_session_rank_slot(s, r, &slot, &err) == TEMU_OK);
        FUZZ_CHECK(slot.node >= 0 && slot.node < m->nnodes);
    }
    (void)temu_identity_get(s);
    FUZZ_CHECK(temu_node_words(s, last) != NULL);
    if (!writable) {
        return;
    }
    defuse_watches(s);
    for (int k = TEMU_KIND_P2P; k <= TEMU_KIND_ALLTOALL; k++) {
        temu_message msg = {0, last, 100000, NULL, (temu_kind)k};
        FUZZ_CHECK(temu_inject(s, &msg, &err) == TEMU_OK);
    }
    if (temu_session_nranks(s) > 1) {
        FUZZ_CHECK(temu_inject_ranks(s, 0, temu_session_nranks(s) - 1, 5000, NULL, TEMU_KIND_P2P,
                                     &err) == TEMU_OK);
    }
    temu_counter_add(s, (int64_t)n - 1, 1);
    (void)temu_watch_deliver_own(s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static int fd = -1;
    char path[64];
    temu_session *s;
    temu_error err;
    if (fd < 0) {
        fd = memfd_create("temu-fuzz-store", MFD_CLOEXEC);
        FUZZ_CHECK(fd >= 0);
    }
    uint64_t want = size;
    if (size >= FILE_BYTES_AT + 8) {
        uint64_t announced;
        memcpy(&announced, data + FILE_BYTES_AT, sizeof announced);
        if (announced > size && announced <= MAX_FILE) {
            want = announced;
        }
    }
    if (size > MAX_FILE || ftruncate(fd, 0) != 0 || ftruncate(fd, (off_t)want) != 0 ||
        pwrite(fd, data, size, 0) != (ssize_t)size) {
        return 0;
    }
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    if (temu_session_attach_ex(path, TEMU_ATTACH_READONLY, &s, &err) == TEMU_OK) {
        use(s, 0);
        temu_session_close(s);
    } else {
        FUZZ_CHECK(err.message[0] != '\0');
    }
    if (temu_session_attach(path, &s, &err) == TEMU_OK) {
        use(s, 1);
        temu_session_close(s);
    }
    return 0;
}
