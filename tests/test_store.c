/*
 * test_store.c - the counter store: create, attach, versioning, corrupt
 * files, mapping, registration, many processes at once.
 */
#include "testutil.h"

#include <fcntl.h>
#include <sys/wait.h>

static temu_session *make_store(const char *spec, const char *tag, char *path, size_t len,
                                int nranks, int rpn)
{
    temu_machine m = test_machine(spec);
    temu_mapping map;
    temu_session *s;
    temu_error err;
    test_store_path(path, len, tag);
    if (nranks > 0) {
        ck_assert_int_eq(temu_mapping_build(&m, nranks, rpn, NULL, &map, &err), TEMU_OK);
    }
    ck_assert_int_eq(temu_session_create(path, &m, nranks > 0 ? &map : NULL, &s, &err), TEMU_OK);
    if (nranks > 0) {
        temu_mapping_free(&map);
    }
    return s;
}

START_TEST(test_create_attach_share)
{
    char path[256];
    temu_session *a = make_store("midplane", "share", path, sizeof path, 64, 16);
    temu_session *b;
    temu_error err;
    ck_assert_int_eq(temu_session_attach(path, &b, &err), TEMU_OK);
    ck_assert_str_eq(temu_session_machine(b)->name, "bgq:4x4x4x4x2");
    ck_assert_str_eq(temu_session_path(b), path);
    ck_assert_int_eq(temu_session_nranks(b), 64);
    ck_assert_int_eq(temu_session_ranks_per_node(b), 16);
    int64_t idx = temu_idx_bgq_mu(temu_session_machine(a), 3, TEMU_MU_PKT_INJ);
    temu_counter_add(a, idx, 41);
    temu_counter_add(b, idx, 1);
    ck_assert_uint_eq(temu_counter_read(a, idx), 42);
    ck_assert_uint_eq(temu_counter_read(b, idx), 42);
    temu_slot slot;
    ck_assert_int_eq(temu_session_rank_slot(b, 17, &slot, &err), TEMU_OK);
    ck_assert_int_eq(slot.node, 1);
    ck_assert_int_eq(slot.t, 1);
    ck_assert_int_eq(temu_session_rank_slot(b, 64, &slot, &err), TEMU_ERANGE);
    ck_assert_int_eq(temu_session_register_rank(b, 3, &err), TEMU_OK);
    ck_assert_int_eq(temu_session_register_rank(b, -1, &err), TEMU_ERANGE);
    /* node-wide words are shared between attachments, zero at creation */
    uint64_t *wa = temu_node_words(a, 511), *wb = temu_node_words(b, 511);
    ck_assert_ptr_nonnull(wa);
    ck_assert_uint_eq(wa[TEMU_NODE_WORDS - 1], 0);
    __atomic_store_n(&wa[3], 77, __ATOMIC_RELAXED);
    ck_assert_uint_eq(__atomic_load_n(&wb[3], __ATOMIC_RELAXED), 77);
    ck_assert_ptr_null(temu_node_words(a, 512));
    ck_assert_ptr_ne(temu_node_words(a, 0), wa);
    temu_session_zero(a);
    ck_assert_uint_eq(temu_counter_read(b, idx), 0);
    /* out-of-range indices read 0 and ignore adds */
    temu_counter_add(a, -1, 5);
    ck_assert_uint_eq(temu_counter_read(a, (int64_t)temu_counter_count(a)), 0);
    temu_session_close(a);
    temu_session_close(b);
    unlink(path);
}
END_TEST

static void patch_file(const char *path, off_t off, const void *bytes, size_t n)
{
    int fd = open(path, O_RDWR);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(pwrite(fd, bytes, n, off), (ssize_t)n);
    close(fd);
}

/* The network clock: a store made with TEMU_CREATE_VIRTUAL_TIME says so
 * after attach, and its BG/Q cycle counters advance by the cycle edges
 * passed (floor(to / 2000) - floor(from / 2000)) on every node; a host-clock
 * store's do not move. */
START_TEST(test_network_clock)
{
    char path[256], plain[256];
    temu_machine m = test_machine("nodeboard"); /* 32 nodes */
    temu_session *v, *h, *a;
    temu_error err;
    test_store_path(path, sizeof path, "vclock");
    test_store_path(plain, sizeof plain, "hclock");
    ck_assert_int_eq(temu_session_create_ex(path, &m, NULL, TEMU_CREATE_VIRTUAL_TIME, &v, &err),
                     TEMU_OK);
    ck_assert_int_eq(temu_session_create(plain, &m, NULL, &h, &err), TEMU_OK);
    ck_assert_int_eq(temu_session_virtual_time(v), 1);
    ck_assert_int_eq(temu_session_virtual_time(h), 0);
    temu_bgq_nw_cycles_advance(v, 1999, 6001); /* edges at 2000, 4000, 6000 */
    temu_bgq_nw_cycles_advance(v, 6001, 7999); /* none */
    temu_bgq_nw_cycles_advance(v, 7999, 8000); /* 8000 */
    temu_bgq_nw_cycles_advance(h, 0, 1000000);
    for (int64_t n = 0; n < m.nnodes; n++) {
        ck_assert_uint_eq(temu_counter_read(v, temu_idx_bgq_nw_cycles(&m, n)), 4);
        ck_assert_uint_eq(temu_counter_read(h, temu_idx_bgq_nw_cycles(&m, n)), 0);
    }
    /* one counter per node, the last section of the store */
    ck_assert_int_eq(temu_idx_bgq_nw_cycles(&m, m.nnodes - 1), (int64_t)temu_counter_count(v) - 1);
    ck_assert_int_eq(temu_idx_bgq_nw_cycles(&m, m.nnodes), -1);
    ck_assert_int_eq(temu_session_attach(path, &a, &err), TEMU_OK);
    ck_assert_int_eq(temu_session_virtual_time(a), 1);
    temu_session_close(a);
    temu_session_close(v);
    temu_session_close(h);
    unlink(path);
    unlink(plain);
}
END_TEST

START_TEST(test_bad_stores)
{
    char path[256];
    temu_session *s = make_store("gemini-tiny", "bad", path, sizeof path, 0, 1);
    temu_session *t;
    temu_error err;
    temu_session_close(s);

    /* another ABI version */
    uint32_t v = TEMU_STORE_ABI_VERSION + 1;
    patch_file(path, 8, &v, sizeof v);
    ck_assert_int_eq(temu_session_attach(path, &t, &err), TEMU_EVERSION);
    ck_assert_ptr_nonnull(strstr(err.message, "ABI version"));
    ck_assert_ptr_null(t);
    v = TEMU_STORE_ABI_VERSION;
    patch_file(path, 8, &v, sizeof v);
    ck_assert_int_eq(temu_session_attach(path, &t, &err), TEMU_OK);
    temu_session_close(t);

    /* truncated */
    ck_assert_int_eq(truncate(path, 8192), 0);
    ck_assert_int_eq(temu_session_attach(path, &t, &err), TEMU_ECORRUPT);
    ck_assert_ptr_nonnull(strstr(err.message, "truncated"));
    ck_assert_int_eq(truncate(path, 100), 0);
    ck_assert_int_eq(temu_session_attach(path, &t, &err), TEMU_ECORRUPT);
    ck_assert_ptr_nonnull(strstr(err.message, "too short"));

    /* not a store */
    FILE *f = fopen(path, "w");
    for (int i = 0; i < 5000; i++) {
        fputc('x', f);
    }
    fclose(f);
    ck_assert_int_eq(temu_session_attach(path, &t, &err), TEMU_ECORRUPT);
    ck_assert_ptr_nonnull(strstr(err.message, "bad magic"));
    unlink(path);
    ck_assert_int_eq(temu_session_attach(path, &t, &err), TEMU_EIO);
    ck_assert_ptr_nonnull(strstr(err.message, "cannot open"));

    unsetenv(TEMU_SESSION_ENV);
    ck_assert_int_eq(temu_session_attach_env(&t, &err), TEMU_ENOSESSION);
    ck_assert_int_eq(temu_session_attach("", &t, &err), TEMU_EINVAL);

    temu_machine m = test_machine("gemini-tiny");
    ck_assert_int_eq(temu_session_create("/nonexistent-dir/x.store", &m, NULL, &t, &err), TEMU_EIO);
    ck_assert_ptr_nonnull(strstr(err.message, "cannot create"));
}
END_TEST

START_TEST(test_attach_env)
{
    char path[256];
    temu_session *s = make_store("bgp-16", "env", path, sizeof path, 4, 1);
    temu_session *t;
    temu_error err;
    setenv(TEMU_SESSION_ENV, path, 1);
    ck_assert_int_eq(temu_session_attach_env(&t, &err), TEMU_OK);
    ck_assert_int_eq(temu_session_machine(t)->system, TEMU_SYSTEM_BGP);
    temu_session_close(t);
    temu_session_close(s);
    unsetenv(TEMU_SESSION_ENV);
    unlink(path);
}
END_TEST

START_TEST(test_private_and_indices)
{
    temu_machine m = test_machine("nodeboard");
    temu_session *s;
    temu_error err;
    ck_assert_int_eq(temu_session_create_private(&m, &s, &err), TEMU_OK);
    ck_assert_str_eq(temu_session_path(s), "");
    /* 32 nodes x (11*3*7 NW + 64 MU + 256 L2 + 2 CNK + 64*27 CNK + 1 NW cycles) */
    ck_assert_uint_eq(temu_counter_count(s), 32ull * (231 + 64 + 256 + 2 + 1728 + 1));
    /* every index of every section is distinct and in range */
    unsigned char *seen = calloc(temu_counter_count(s), 1);
    for (int64_t n = 0; n < m.nnodes; n++) {
        for (int l = 0; l < 11; l++)
            for (int k = 0; k < 3; k++)
                for (int vc = 0; vc < 7; vc++) {
                    int64_t i = temu_idx_bgq_nw(&m, n, l, k, vc);
                    ck_assert_int_eq(seen[i]++, 0);
                }
        for (int c = 0; c < 64; c++) {
            ck_assert_int_eq(seen[temu_idx_bgq_mu(&m, n, c)]++, 0);
        }
        for (int sl = 0; sl < 16; sl++)
            for (int c = 0; c < 16; c++) {
                ck_assert_int_eq(seen[temu_idx_bgq_l2(&m, n, sl, c)]++, 0);
            }
        for (int c = 0; c < 2; c++) {
            ck_assert_int_eq(seen[temu_idx_bgq_cnk_node(&m, n, c)]++, 0);
        }
        for (int h = 0; h < 64; h++)
            for (int c = 0; c < 27; c++) {
                ck_assert_int_eq(seen[temu_idx_bgq_cnk_hwt(&m, n, h, c)]++, 0);
            }
        ck_assert_int_eq(seen[temu_idx_bgq_nw_cycles(&m, n)]++, 0);
    }
    for (uint64_t i = 0; i < temu_counter_count(s); i++) {
        ck_assert_int_eq(seen[i], 1);
    }
    free(seen);
    ck_assert_int_eq(temu_idx_bgq_nw(&m, 32, 0, 0, 0), -1);
    ck_assert_int_eq(temu_idx_bgq_nw(&m, 0, 11, 0, 0), -1);
    ck_assert_int_eq(temu_idx_gemini_tile(&m, 0, 0, 0), -1); /* wrong system */
    ck_assert_int_eq(temu_idx_bgq_l2(&m, 0, 16, 0), -1);
    char buf[128];
    temu_counter_describe(&m, temu_idx_bgq_nw(&m, 1, 9, 0, 4), buf, sizeof buf);
    ck_assert_str_eq(buf, "R00-M0-N00-J01 E+ SENT_CHUNKS VC4");
    temu_counter_describe(&m, temu_idx_bgq_mu(&m, 0, 3), buf, sizeof buf);
    ck_assert_str_eq(buf, "R00-M0-N00-J00 MU sram 3");
    temu_session_close(s);

    temu_machine g = test_machine("gemini-tiny");
    ck_assert_int_eq(temu_idx_gemini_tile(&g, 1, 26, 0), (1 * 48 + 26) * 6);
    temu_counter_describe(&g, temu_idx_gemini_tile(&g, 0, 26, TEMU_TILE_VC0_PHITS), buf,
                          sizeof buf);
    ck_assert_str_eq(buf, "c0-0c0s0g0 tile 26 (l32, Z-) VC0_PHITS");
    temu_counter_describe(&g, temu_idx_gemini_nic(&g, 3, TEMU_NIC_NPT_PKTS), buf, sizeof buf);
    ck_assert_str_eq(buf, "c0-0c0s1n1 NIC NPT_PKTS");
    temu_machine p = test_machine("bgp-16");
    temu_counter_describe(&p, temu_idx_bgp(&p, 0, 1, TEMU_BGP_CHUNKS), buf, sizeof buf);
    ck_assert_str_eq(buf, "R00-M0-N00-J00 X+ 32BCHUNKS");
}
END_TEST

/* N processes x M injections -> exact totals (lock-free adds from many
 * processes at once). */
START_TEST(test_many_processes)
{
    enum { NPROC = 8, M = 2000 };
    char path[256];
    temu_session *s = make_store("gemini-tiny", "procs", path, sizeof path, 16, 1);
    temu_session_close(s);
    for (int p = 0; p < NPROC; p++) {
        pid_t pid = fork();
        ck_assert_int_ge(pid, 0);
        if (pid == 0) {
            temu_session *c;
            temu_error err;
            if (temu_session_attach(path, &c, &err) != TEMU_OK) {
                _exit(3);
            }
            for (int i = 0; i < M; i++) {
                /* rank p -> rank 15 - p, 64 B PUT = one transaction */
                if (temu_inject_ranks(c, p, 15 - p, 64, NULL, TEMU_KIND_PUT, &err) != TEMU_OK) {
                    _exit(4);
                }
            }
            temu_session_close(c);
            _exit(0);
        }
    }
    for (int p = 0; p < NPROC; p++) {
        int status;
        ck_assert_int_gt(wait(&status), 0);
        ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    }
    temu_error err;
    ck_assert_int_eq(temu_session_attach(path, &s, &err), TEMU_OK);
    const temu_machine *m = temu_session_machine(s);
    ck_assert_uint_eq(temu_session_messages(s), NPROC * M);
    ck_assert_uint_eq(temu_session_bytes(s), NPROC * M * 64ull);
    /* every PUT's request crossed the injecting Gemini's host tiles once */
    uint64_t host_pkts = 0, nic_pkts = 0;
    int tiles[48];
    int nt = temu_gemini_link_tiles(6, tiles);
    for (int64_t r = 0; r < m->nrouters; r++) {
        for (int i = 0; i < nt; i++) {
            host_pkts +=
                temu_counter_read(s, temu_idx_gemini_tile(m, r, tiles[i], TEMU_TILE_VC0_PKTS));
        }
    }
    for (int64_t n = 0; n < m->nnodes; n++) {
        nic_pkts += temu_counter_read(s, temu_idx_gemini_nic(m, n, TEMU_NIC_ORB_VC0_PKTS));
    }
    ck_assert_uint_eq(host_pkts, NPROC * M);
    ck_assert_uint_eq(nic_pkts, NPROC * M);
    temu_session_close(s);
    unlink(path);
}
END_TEST

static const char *const launcher_vars[] = {"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK"};

static void unset_rank_vars(void)
{
    unsetenv(TEMU_RANK_ENV);
    unsetenv(TEMU_NODE_ENV);
    for (int i = 0; i < 3; i++) {
        unsetenv(launcher_vars[i]);
    }
}

/* Before MPI_Init a process knows its rank from its launcher (issue 8). */
START_TEST(test_identity_launchers)
{
    char path[256];
    temu_session *s = make_store("midplane", "launch", path, sizeof path, 64, 32);
    temu_identity id;
    unset_rank_vars();
    for (int i = 0; i < 3; i++) {
        setenv(launcher_vars[i], "49", 1); /* 32 per node: node 1, slot 17 */
        id = temu_identity_get(s);
        ck_assert_int_eq(id.known, 1);
        ck_assert_str_eq(id.from, launcher_vars[i]);
        ck_assert_int_eq(id.rank, 49);
        ck_assert_int_eq(id.node, 1);
        ck_assert_int_eq(id.t, 17);
        unsetenv(launcher_vars[i]);
    }
    /* most specific first: TORUSEMU_RANK, then Open MPI's, PMIx, PMI */
    setenv("PMI_RANK", "1", 1);
    setenv("PMIX_RANK", "40", 1);
    ck_assert_int_eq(temu_identity_get(s).node, 1);
    ck_assert_str_eq(temu_identity_get(s).from, "PMIX_RANK");
    setenv("OMPI_COMM_WORLD_RANK", "2", 1);
    ck_assert_int_eq(temu_identity_get(s).node, 0);
    ck_assert_int_eq(temu_identity_get(s).rank, 2);
    setenv(TEMU_RANK_ENV, "63", 1);
    ck_assert_int_eq(temu_identity_get(s).node, 1);
    ck_assert_int_eq(temu_identity_get(s).rank, 63);
    /* a rank the session does not map: rank known, node not */
    setenv(TEMU_RANK_ENV, "64", 1);
    id = temu_identity_get(s);
    ck_assert_int_eq(id.rank, 64);
    ck_assert_int_eq(id.known, 0);
    /* no session to map the rank: node not known either */
    ck_assert_int_eq(temu_identity_get(NULL).known, 0);
    /* TORUSEMU_NODE names the node outright */
    setenv(TEMU_NODE_ENV, "5", 1);
    id = temu_identity_get(s);
    ck_assert_int_eq(id.known, 1);
    ck_assert_int_eq(id.node, 5);
    ck_assert_str_eq(id.from, TEMU_NODE_ENV);
    unset_rank_vars();
    temu_session_close(s);
    unlink(path);
}
END_TEST

START_TEST(test_identity)
{
    char path[256];
    temu_session *s = make_store("midplane", "ident", path, sizeof path, 64, 32);
    const temu_machine *m = temu_session_machine(s);
    unset_rank_vars();
    temu_identity id = temu_identity_get(s);
    ck_assert_int_eq(id.rank, -1);
    ck_assert_int_eq(id.node, 0);
    ck_assert_int_eq(id.known, 0);
    ck_assert_ptr_null(id.from);
    setenv(TEMU_RANK_ENV, "49", 1); /* 32 per node: node 1, slot 17 */
    id = temu_identity_get(s);
    ck_assert_int_eq(id.known, 1);
    ck_assert_str_eq(id.from, TEMU_RANK_ENV);
    ck_assert_int_eq(id.rank, 49);
    ck_assert_int_eq(id.node, 1);
    ck_assert_int_eq(id.t, 17);
    ck_assert_int_eq(id.core, 1);     /* slots fill the 16 cores first */
    ck_assert_int_eq(id.hwthread, 5); /* then thread 1 of each core: 1*4 + 1 */
    setenv(TEMU_NODE_ENV, "7", 1);
    ck_assert_int_eq(temu_identity_get(s).node, 7);
    setenv(TEMU_NODE_ENV, "9999", 1); /* outside the machine: ignored */
    ck_assert_int_eq(temu_identity_get(s).node, 1);
    temu_identity_set(m, 3, 2, 3);
    id = temu_identity_get(NULL);
    ck_assert_int_eq(id.explicit_set, 1);
    ck_assert_int_eq(id.rank, 3);
    ck_assert_int_eq(id.node, 2);
    ck_assert_int_eq(id.hwthread, 12);
    ck_assert_int_eq(id.known, 1);
    ck_assert_str_eq(id.from, "MPI_Init");
    unset_rank_vars();
    temu_session_close(s);
    unlink(path);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("store");
    TCase *tc = tcase_create("store");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_create_attach_share);
    tcase_add_test(tc, test_bad_stores);
    tcase_add_test(tc, test_network_clock);
    tcase_add_test(tc, test_attach_env);
    tcase_add_test(tc, test_private_and_indices);
    tcase_add_test(tc, test_many_processes);
    tcase_add_test(tc, test_identity_launchers);
    tcase_add_test(tc, test_identity);
    suite_add_tcase(s, tc);
    return test_run(s);
}
