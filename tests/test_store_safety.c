/*
 * test_store_safety.c - the store as a system file (issue 9): exclusive
 * creation, replacing a store in use, attach trusting nothing in the file,
 * pages allocated at creation, read-only attach, map-file limits and
 * message sizes near 2^64.  Crafted stores are made by patching single
 * header fields of a valid one, so this test reads the private header
 * layout (emu_internal.h) for the field offsets.
 */
#define _GNU_SOURCE 1
#define TEMU_BUILDING_LIBRARY 1
#include "../emu/emu_internal.h"
#include "testutil.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stddef.h>
#include <sys/stat.h>
#include <sys/wait.h>

/* A private directory for one test (dir, DIR_LEN bytes) and the path of
 * `name` inside it (path, PATH_LEN bytes). */
enum { DIR_LEN = 256, PATH_LEN = 300 };
static void test_dir(char *dir, char *path, const char *name)
{
    const char *t = getenv("TMPDIR");
    snprintf(dir, DIR_LEN, "%s/temu-safety.XXXXXX", t && *t ? t : "/tmp");
    ck_assert_ptr_nonnull(mkdtemp(dir));
    snprintf(path, PATH_LEN, "%s/%s", dir, name);
}

static void remove_dir(const char *dir)
{
    char cmd[512];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    ck_assert_int_eq(system(cmd), 0);
}

static temu_session *create_at(const char *path, const char *spec, int nranks, unsigned flags)
{
    temu_machine m = test_machine(spec);
    temu_mapping map;
    temu_session *s;
    temu_error err;
    if (nranks > 0) {
        ck_assert_int_eq(temu_mapping_build(&m, nranks, 1, NULL, &map, &err), TEMU_OK);
    }
    temu_status st = temu_session_create_ex(path, &m, nranks > 0 ? &map : NULL, flags, &s, &err);
    ck_assert_msg(st == TEMU_OK, "create %s: %s", path, err.message);
    if (nranks > 0) {
        temu_mapping_free(&map);
    }
    return s;
}

static void patch(const char *path, off_t off, const void *bytes, size_t n)
{
    int fd = open(path, O_RDWR);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(pwrite(fd, bytes, n, off), (ssize_t)n);
    close(fd);
}

static void read_file(const char *path, char *buf, size_t len)
{
    int fd = open(path, O_RDONLY);
    ck_assert_int_ge(fd, 0);
    ssize_t got = read(fd, buf, len - 1);
    ck_assert_int_ge(got, 0);
    buf[got] = '\0';
    close(fd);
}

/* 1. An existing path - file, symlink, dangling symlink - is never opened
 * or changed; the store is refused with a reason. */
START_TEST(test_create_refuses_existing)
{
    char dir[DIR_LEN], path[PATH_LEN], victim[300], text[64];
    temu_session *s;
    temu_error err;
    temu_machine m = test_machine("gemini-tiny");
    test_dir(dir, path, "s.store");
    snprintf(victim, sizeof victim, "%s/victim", dir);

    FILE *f = fopen(victim, "w");
    fputs("keep me", f);
    fclose(f);
    ck_assert_int_eq(symlink(victim, path), 0);
    ck_assert_int_eq(temu_session_create(path, &m, NULL, &s, &err), TEMU_EIO);
    ck_assert_ptr_null(s);
    ck_assert_ptr_nonnull(strstr(err.message, "already exists"));
    read_file(victim, text, sizeof text);
    ck_assert_str_eq(text, "keep me");
    struct stat st;
    ck_assert_int_eq(lstat(path, &st), 0);
    ck_assert(S_ISLNK(st.st_mode));

    /* a dangling link would make O_CREAT create its target */
    unlink(path);
    unlink(victim);
    ck_assert_int_eq(symlink(victim, path), 0);
    ck_assert_int_eq(temu_session_create(path, &m, NULL, &s, &err), TEMU_EIO);
    ck_assert_int_eq(access(victim, F_OK), -1);

    /* a pre-created plain file is not reused */
    unlink(path);
    f = fopen(path, "w");
    fputs("theirs", f);
    fclose(f);
    ck_assert_int_eq(temu_session_create(path, &m, NULL, &s, &err), TEMU_EIO);
    read_file(path, text, sizeof text);
    ck_assert_str_eq(text, "theirs");

    /* nothing left behind by the refused attempts: victim, path only */
    char cmd[400];
    snprintf(cmd, sizeof cmd, "test $(ls -A '%s' | wc -l) -eq 1", dir);
    ck_assert_int_eq(system(cmd), 0);

    /* replacing was asked for: the link itself is replaced, not its target */
    unlink(path);
    f = fopen(victim, "w");
    fputs("keep me", f);
    fclose(f);
    ck_assert_int_eq(symlink(victim, path), 0);
    s = create_at(path, "gemini-tiny", 0, TEMU_CREATE_REPLACE);
    temu_session_close(s);
    read_file(victim, text, sizeof text);
    ck_assert_str_eq(text, "keep me");
    ck_assert_int_eq(lstat(path, &st), 0);
    ck_assert(S_ISREG(st.st_mode));
    remove_dir(dir);
}
END_TEST

/* 1. Owner-only by default whatever the umask; 0660 on request. */
START_TEST(test_create_modes)
{
    char dir[DIR_LEN], path[PATH_LEN];
    struct stat st;
    test_dir(dir, path, "s.store");
    mode_t old = umask(0);
    temu_session *s = create_at(path, "gemini-tiny", 0, 0);
    temu_session_close(s);
    ck_assert_int_eq(stat(path, &st), 0);
    ck_assert_int_eq(st.st_mode & 07777, 0600);
    umask(077);
    s = create_at(path, "gemini-tiny", 0, TEMU_CREATE_REPLACE | TEMU_CREATE_GROUP);
    temu_session_close(s);
    ck_assert_int_eq(stat(path, &st), 0);
    ck_assert_int_eq(st.st_mode & 07777, 0660);
    umask(old);
    remove_dir(dir);
}
END_TEST

/* 2. Re-creating a store that processes still map: they keep the old one
 * (today's truncation killed them with SIGBUS), new attaches get the new. */
START_TEST(test_replace_in_use)
{
    char dir[DIR_LEN], path[PATH_LEN];
    temu_error err;
    test_dir(dir, path, "s.store");
    temu_session *a = create_at(path, "midplane", 0, 0);
    const temu_machine *m = temu_session_machine(a);
    int64_t last = (int64_t)temu_counter_count(a) - 1;
    temu_counter_add(a, last, 7);
    temu_session *b = create_at(path, "nodeboard", 0, TEMU_CREATE_REPLACE);
    /* the old mapping is whole: its last page reads and takes adds */
    temu_counter_add(a, last, 1);
    ck_assert_uint_eq(temu_counter_read(a, last), 8);
    ck_assert_int_eq(temu_inject(a, &(temu_message){0, m->nnodes - 1, 4096, NULL, TEMU_KIND_P2P},
                                 &err),
                     TEMU_OK);
    temu_session *c;
    ck_assert_int_eq(temu_session_attach(path, &c, &err), TEMU_OK);
    ck_assert_str_eq(temu_session_machine(c)->name, "bgq:2x2x2x2x2,torus=00001");
    ck_assert_uint_eq(temu_session_messages(c), 0);
    temu_session_close(a);
    temu_session_close(b);
    temu_session_close(c);
    remove_dir(dir);
}
END_TEST

/* 4. Pages allocated at creation; reading every counter read-only (dump)
 * allocates nothing more. */
START_TEST(test_allocated_at_creation)
{
    char dir[DIR_LEN], path[PATH_LEN];
    struct stat st0, st1;
    temu_session *s, *r;
    temu_error err;
    test_dir(dir, path, "s.store");
    s = create_at(path, "nodeboard", 0, 0);
    temu_session_close(s);
    ck_assert_int_eq(stat(path, &st0), 0);
    ck_assert_int_ge((long long)st0.st_blocks * 512, (long long)st0.st_size);
    ck_assert_int_eq(temu_session_attach_ex(path, TEMU_ATTACH_READONLY, &r, &err), TEMU_OK);
    uint64_t sum = 0;
    for (uint64_t i = 0; i < temu_counter_count(r); i++) {
        sum += temu_counter_read(r, (int64_t)i);
    }
    ck_assert_uint_eq(sum, 0);
    temu_session_close(r);
    ck_assert_int_eq(stat(path, &st1), 0);
    ck_assert_int_eq(st1.st_blocks, st0.st_blocks);
    remove_dir(dir);
}
END_TEST

/* 5. Read-only attach: reads work, every write is refused or ignored. */
START_TEST(test_readonly_attach)
{
    char dir[DIR_LEN], path[PATH_LEN];
    temu_session *s, *r;
    temu_error err;
    test_dir(dir, path, "s.store");
    s = create_at(path, "nodeboard", 4, 0);
    ck_assert_int_eq(temu_inject_ranks(s, 0, 3, 512, NULL, TEMU_KIND_P2P, &err), TEMU_OK);
    ck_assert_int_eq(chmod(path, 0444), 0);
    ck_assert_int_eq(temu_session_attach_ex(path, TEMU_ATTACH_READONLY, &r, &err), TEMU_OK);
    ck_assert_int_eq(temu_session_readonly(r), 1);
    ck_assert_int_eq(temu_session_readonly(s), 0);
    ck_assert_uint_eq(temu_session_messages(r), 1);
    ck_assert_uint_eq(temu_session_bytes(r), 512);
    ck_assert_int_eq(temu_inject_ranks(r, 0, 3, 512, NULL, TEMU_KIND_P2P, &err), TEMU_EINVAL);
    ck_assert_ptr_nonnull(strstr(err.message, "read-only"));
    ck_assert_int_eq(temu_session_register_rank(r, 0, &err), TEMU_EINVAL);
    int64_t id = 0;
    temu_counter_add(r, id, 5);
    temu_session_zero(r);
    ck_assert_uint_eq(temu_session_messages(r), 1);
    int32_t wid;
    temu_watch_spec w = {&id, 1, 0, 10, 0, 0};
    ck_assert_int_eq(temu_watch_arm(r, &w, &wid, &err), TEMU_EINVAL);
    temu_session_close(r);
    /* an unknown flag: refused, no session (its own variable: reusing r
     * lost the read-only session above, a leak under LeakSanitizer) */
    temu_session *bad = NULL;
    ck_assert_int_eq(temu_session_attach_ex(path, 0x80, &bad, &err), TEMU_EINVAL);
    ck_assert_ptr_null(bad);
    temu_session_close(s);
    remove_dir(dir);
}
END_TEST

/* 3. Crafted stores: each field the readers index or divide with is
 * patched in a valid store; attach refuses every one. */
typedef struct crafted {
    const char *what;
    size_t off;   /* in the file */
    int64_t val;  /* written with the field's width */
    size_t width; /* 4 or 8 bytes */
} crafted;

#define HDR(f) offsetof(temu_store_header, f)
#define MACH(f) (offsetof(temu_store_header, machine) + offsetof(temu_machine, f))

START_TEST(test_crafted_headers)
{
    char dir[DIR_LEN], path[PATH_LEN];
    temu_session *s, *t;
    temu_error err;
    test_dir(dir, path, "s.store");
    s = create_at(path, "nodeboard", 8, 0); /* bgq:2x2x2x2x2 */
    uint64_t watches = s->hdr->watches_offset, mapping = s->hdr->mapping_offset;
    temu_session_close(s);
    const crafted cases[] = {
        {"ndims 7", MACH(ndims), 7, 4},
        {"ndims 3", MACH(ndims), 3, 4},
        {"size[0] 0", MACH(size), 0, 4},
        {"size[4] 3", MACH(size) + 16, 3, 4},
        {"torus[1] 1", MACH(torus) + 4, 1, 4},
        {"dim_order[0] 9", MACH(dim_order), 9, 4},
        {"dim_order[2] -1", MACH(dim_order) + 8, -1, 4},
        {"nodes_per_router 0", MACH(nodes_per_router), 0, 4},
        {"nodes_per_router 2", MACH(nodes_per_router), 2, 4},
        {"nlinks 99", MACH(nlinks), 99, 4},
        {"nrouters 1e9", MACH(nrouters), 1000000000, 8},
        {"nnodes 64", MACH(nnodes), 64, 8},
        {"cores 0", MACH(cores_per_node), 0, 4},
        {"threads 0", MACH(threads_per_core), 0, 4},
        {"system gemini", MACH(system), TEMU_SYSTEM_GEMINI, 4},
        {"ncounters +1", HDR(ncounters), 32 * 2282 + 1, 8},
        {"clock 2", HDR(clock), 2, 4},
        {"clock -1", HDR(clock), -1, 4},
        {"nranks 9999", HDR(nranks), 9999, 4},
        {"nranks -1", HDR(nranks), -1, 4},
        {"ranks_per_node 0", HDR(ranks_per_node), 0, 4},
        {"header_bytes", HDR(header_bytes), 8192, 4},
        {"counters_offset", HDR(counters_offset), 4096, 8},
        {"watch_top", HDR(watch_top), 100000, 4},
        {"mapping node 32", mapping + 8 * 3, 32, 4},
        {"mapping t 1", mapping + 8 * 3 + 4, 1, 4},
        {"watch state", watches + 0, 7, 4},
    };
    char orig[4096]; /* the header page, to restore after each case */
    int fd = open(path, O_RDONLY);
    ck_assert_int_eq(pread(fd, orig, sizeof orig, 0), (ssize_t)sizeof orig);
    char orig_map[64];
    ck_assert_int_eq(pread(fd, orig_map, sizeof orig_map, (off_t)mapping), (ssize_t)sizeof orig_map);
    close(fd);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const crafted *c = &cases[i];
        int32_t v32 = (int32_t)c->val;
        patch(path, (off_t)c->off, c->width == 4 ? (void *)&v32 : (void *)&c->val, c->width);
        temu_status st = temu_session_attach(path, &t, &err);
        ck_assert_msg(st == TEMU_ECORRUPT, "%s: attach gave %d", c->what, st);
        ck_assert_ptr_null(t);
        patch(path, 0, orig, sizeof orig);
        patch(path, (off_t)mapping, orig_map, sizeof orig_map);
    }
    /* an active watch summing more counters than a slot holds */
    int32_t active = TEMU_WATCH_ACTIVE, many = 100000;
    uint64_t one = 1;
    patch(path, (off_t)(watches + offsetof(temu_watch_slot, state)), &active, 4);
    patch(path, (off_t)(watches + offsetof(temu_watch_slot, threshold)), &one, 8);
    patch(path, (off_t)(watches + offsetof(temu_watch_slot, ncounters)), &many, 4);
    ck_assert_int_eq(temu_session_attach(path, &t, &err), TEMU_ECORRUPT);
    ck_assert_ptr_nonnull(strstr(err.message, "watch"));
    int32_t four = 4;
    int64_t far = 1ll << 40;
    patch(path, (off_t)(watches + offsetof(temu_watch_slot, ncounters)), &four, 4);
    patch(path, (off_t)(watches + offsetof(temu_watch_slot, counters) + 8), &far, 8);
    ck_assert_int_eq(temu_session_attach(path, &t, &err), TEMU_ECORRUPT);
    int64_t zero = 0, none = 0;
    patch(path, (off_t)(watches + offsetof(temu_watch_slot, counters) + 8), &zero, 8);
    patch(path, (off_t)(watches + offsetof(temu_watch_slot, threshold)), &none, 8);
    ck_assert_int_eq(temu_session_attach(path, &t, &err), TEMU_ECORRUPT); /* threshold 0 */
    patch(path, (off_t)(watches + offsetof(temu_watch_slot, threshold)), &one, 8);
    ck_assert_int_eq(temu_session_attach(path, &t, &err), TEMU_OK); /* well formed again */
    temu_session_close(t);

    /* the stored name must end inside its field */
    char name[TEMU_NAME_MAX];
    memset(name, 'x', sizeof name);
    patch(path, (off_t)MACH(name), name, sizeof name);
    ck_assert_int_eq(temu_session_attach(path, &t, &err), TEMU_ECORRUPT);
    patch(path, 0, orig, sizeof orig);
    /* a preset that is not the stored shape */
    patch(path, (off_t)MACH(preset), "mira", 5);
    ck_assert_int_eq(temu_session_attach(path, &t, &err), TEMU_ECORRUPT);
    patch(path, 0, orig, sizeof orig);
    ck_assert_int_eq(temu_session_attach(path, &t, &err), TEMU_OK);
    temu_session_close(t);
    remove_dir(dir);
}
END_TEST

/* 2/3. The session keeps the header it checked: a writer changing the
 * file's machine afterwards changes nothing the session uses. */
START_TEST(test_one_header_snapshot)
{
    char dir[DIR_LEN], path[PATH_LEN];
    test_dir(dir, path, "s.store");
    temu_session *t, *s = create_at(path, "nodeboard", 8, 0);
    temu_error err;
    ck_assert_int_eq(temu_session_attach(path, &t, &err), TEMU_OK);
    int32_t bad = 0;
    int64_t huge = 1ll << 40;
    patch(path, (off_t)MACH(size), &bad, 4);
    patch(path, (off_t)MACH(nnodes), &huge, 8);
    patch(path, (off_t)HDR(ncounters), &huge, 8);
    ck_assert_int_eq(temu_session_machine(t)->size[0], 2);
    ck_assert_int_eq(temu_session_machine(t)->nnodes, 32);
    ck_assert_uint_eq(temu_counter_count(t), 32ull * 2282);
    ck_assert_uint_eq(temu_counter_read(t, 1ll << 39), 0);
    ck_assert_int_eq(temu_inject(t, &(temu_message){0, 31, 1000, NULL, TEMU_KIND_P2P}, &err),
                     TEMU_OK);
    temu_session_close(t);
    temu_session_close(s);
    remove_dir(dir);
}
END_TEST

/* 4. A full file system is an error at creation, and no file is left. */
START_TEST(test_no_space)
{
    char dir[DIR_LEN], cmd[600], path[PATH_LEN];
    temu_session *s;
    temu_error err;
    test_dir(dir, path, "s.store");
    /* a 1 MiB tmpfs in a private mount namespace, when this process may
     * make one (root or user namespaces) */
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        if (unshare(CLONE_NEWNS) != 0 ||
            system("mount --make-rprivate / 2>/dev/null") != 0) {
            _exit(77);
        }
        snprintf(cmd, sizeof cmd, "mount -t tmpfs -o size=1m temu-test '%s' 2>/dev/null", dir);
        if (system(cmd) != 0) {
            _exit(77);
        }
        temu_machine m = test_machine("midplane"); /* about 10 MB */
        temu_status st = temu_session_create(path, &m, NULL, &s, &err);
        int ok = st == TEMU_EIO && strstr(err.message, "No space left") != NULL &&
                 strstr(err.message, "cannot allocate") != NULL;
        snprintf(cmd, sizeof cmd, "test -z \"$(ls -A '%s')\"", dir);
        ok = ok && system(cmd) == 0;
        if (!ok) {
            fprintf(stderr, "no-space create: status %d, '%s'\n", st, err.message);
        }
        _exit(ok ? 0 : 1);
    }
    int status;
    ck_assert_int_eq(waitpid(pid, &status, 0), pid);
    ck_assert(WIFEXITED(status));
    if (WEXITSTATUS(status) == 77) {
        fprintf(stderr, "test_no_space: cannot mount a small tmpfs here; not checked\n");
    } else {
        ck_assert_int_eq(WEXITSTATUS(status), 0);
    }
    remove_dir(dir);
}
END_TEST

/* 5. Map files (and stores): a FIFO nobody writes to is refused at once, not waited
 * on; a file above the size limit is refused by its size. */
START_TEST(test_map_file_limits)
{
    char dir[DIR_LEN], fifo[PATH_LEN], big[PATH_LEN + 16];
    temu_mapping map;
    temu_error err;
    temu_machine m = test_machine("nodeboard");
    test_dir(dir, fifo, "map.fifo");
    snprintf(big, sizeof big, "%s/big.map", dir);
    ck_assert_int_eq(mkfifo(fifo, 0600), 0);
    ck_assert_int_eq(temu_mapping_build(&m, 2, 1, fifo, &map, &err), TEMU_EINVAL);
    ck_assert_ptr_nonnull(strstr(err.message, "not a regular file"));
    /* the same FIFO named as a store: refused, even read-only (an O_RDONLY
     * open of a FIFO blocks until a writer comes) */
    temu_session *t;
    ck_assert_int_eq(temu_session_attach_ex(fifo, TEMU_ATTACH_READONLY, &t, &err), TEMU_ECORRUPT);
    ck_assert_ptr_nonnull(strstr(err.message, "not a regular file"));
    int fd = open(big, O_CREAT | O_WRONLY, 0600);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(ftruncate(fd, (64 << 20) + 1), 0);
    close(fd);
    ck_assert_int_eq(temu_mapping_build(&m, 2, 1, big, &map, &err), TEMU_EINVAL);
    ck_assert_ptr_nonnull(strstr(err.message, "at most 67108864"));
    remove_dir(dir);
}
END_TEST

/* 5. Byte counts near 2^64 are refused, not wrapped to a tiny message;
 * the largest message accepted gives counts that did not wrap: on BG/Q a
 * broadcast-kind message of 2^48 bytes is 2^39 packets of 512 bytes and
 * 2^43 data chunks plus one header chunk per packet. */
START_TEST(test_message_size_limit)
{
    temu_machine m = test_machine("nodeboard");
    temu_plan p;
    temu_error err;
    temu_message msg = {0, 1, UINT64_MAX - 10, NULL, TEMU_KIND_COLL_WORLD};
    ck_assert_int_eq(temu_plan_message(&m, &msg, &p, &err), TEMU_ERANGE);
    ck_assert_ptr_nonnull(strstr(err.message, "at most"));
    msg.bytes = TEMU_MAX_MESSAGE_BYTES + 1;
    ck_assert_int_eq(temu_plan_message(&m, &msg, &p, &err), TEMU_ERANGE);
    msg.bytes = TEMU_MAX_MESSAGE_BYTES;
    ck_assert_int_eq(temu_plan_message(&m, &msg, &p, &err), TEMU_OK);
    uint64_t pk = 0, ch = 0;
    for (int vc = 0; vc < TEMU_BGQ_VCS; vc++) {
        pk += p.packets[0][vc];
        ch += p.chunks[0][vc];
    }
    ck_assert_uint_eq(pk, 1ull << 39);
    ck_assert_uint_eq(ch, (1ull << 39) + (1ull << 43));
}
END_TEST

int main(void)
{
    Suite *s = suite_create("store_safety");
    TCase *tc = tcase_create("store_safety");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_create_refuses_existing);
    tcase_add_test(tc, test_create_modes);
    tcase_add_test(tc, test_replace_in_use);
    tcase_add_test(tc, test_allocated_at_creation);
    tcase_add_test(tc, test_readonly_attach);
    tcase_add_test(tc, test_crafted_headers);
    tcase_add_test(tc, test_one_header_snapshot);
    tcase_add_test(tc, test_no_space);
    tcase_add_test(tc, test_map_file_limits);
    tcase_add_test(tc, test_message_size_limit);
    suite_add_tcase(s, tc);
    return test_run(s);
}
