/*
 * test_split.c - runs across hosts in the library (emu/split.c): the rule
 * that gives ranks and units to hosts, which host owns each counter, the
 * updates of another host's counters set aside and handed on per host, the
 * hosts' stores gathered into the single-host store, overflow on the owner.
 */
#include "testutil.h"

/* 8 ranks, one per node, default order, 3 hosts: the 8 nodes holding ranks
 * cut as floor(i * 3 / 8) = 0 0 0 1 1 1 2 2; nodes 8..31 (no ranks) go to
 * node mod 3 */
START_TEST(test_assign_blocks_bgq)
{
    temu_session *s = test_mapped_store("nodeboard", 8, 1, NULL);
    const temu_machine *m = temu_session_machine(s);
    temu_hosts *h;
    temu_error err;
    const int32_t want[8] = {0, 0, 0, 1, 1, 1, 2, 2};
    ck_assert_int_eq(temu_hosts_assign(s, 3, &h, &err), TEMU_OK);
    ck_assert_int_eq(temu_hosts_count(h), 3);
    for (int32_t r = 0; r < 8; r++) {
        temu_slot slot;
        ck_assert_int_eq(temu_session_rank_slot(s, r, &slot, &err), TEMU_OK);
        ck_assert_int_eq(temu_hosts_rank_host(h, r), want[r]);
        /* a rank's own node's counters are on its host */
        ck_assert_int_eq(temu_hosts_counter_host(h, temu_idx_bgq_nw(m, slot.node, 3, 0, 1)),
                         want[r]);
        ck_assert_int_eq(temu_hosts_counter_host(h, temu_idx_bgq_mu(m, slot.node, 5)), want[r]);
        ck_assert_int_eq(temu_hosts_counter_host(h, temu_idx_bgq_cnk_hwt(m, slot.node, 63, 26)),
                         want[r]);
    }
    ck_assert_int_eq(temu_hosts_rank_host(h, 8), -1);
    ck_assert_int_eq(temu_hosts_counter_host(h, temu_idx_bgq_nw(m, 9, 0, 0, 0)), 0);
    ck_assert_int_eq(temu_hosts_counter_host(h, temu_idx_bgq_l2(m, 10, 15, 15)), 1);
    ck_assert_int_eq(temu_hosts_counter_host(h, temu_idx_bgq_nw_cycles(m, 31)), 1);
    ck_assert_int_eq(temu_hosts_counter_host(h, (int64_t)temu_counter_count(s)), -1);
    temu_hosts_free(h);
    temu_session_close(s);
}
END_TEST

/* Gemini: units are routers (2 nodes each); 8 ranks fill routers 0..3,
 * 3 hosts: floor(i * 3 / 4) = 0 0 1 2 */
START_TEST(test_assign_gemini_routers)
{
    temu_session *s = test_mapped_store("gemini-small", 8, 1, NULL);
    const temu_machine *m = temu_session_machine(s);
    temu_hosts *h;
    temu_error err;
    const int32_t want[8] = {0, 0, 0, 0, 1, 1, 2, 2};
    ck_assert_int_eq(temu_hosts_assign(s, 3, &h, &err), TEMU_OK);
    for (int32_t r = 0; r < 8; r++) {
        ck_assert_int_eq(temu_hosts_rank_host(h, r), want[r]);
    }
    ck_assert_int_eq(temu_hosts_counter_host(h, temu_idx_gemini_tile(m, 2, 47, 5)), 1);
    ck_assert_int_eq(temu_hosts_counter_host(h, temu_idx_gemini_nic(m, 5, 0)), 1);
    ck_assert_int_eq(temu_hosts_counter_host(h, temu_idx_gemini_nic(m, 6, 15)), 2);
    /* router 7 holds no rank: 7 mod 3 */
    ck_assert_int_eq(temu_hosts_counter_host(h, temu_idx_gemini_tile(m, 7, 0, 0)), 1);
    temu_hosts_free(h);
    /* 5 hosts for 4 routers with ranks */
    ck_assert_int_eq(temu_hosts_assign(s, 5, &h, &err), TEMU_ERANGE);
    ck_assert_str_eq(err.message,
                     "5 hosts need at least 5 Gemini routers holding ranks; the mapping uses 4");
    ck_assert_ptr_null(h);
    ck_assert_int_eq(temu_hosts_assign(s, 0, &h, &err), TEMU_EINVAL);
    temu_session_close(s);
}
END_TEST

/* Two host stores joined by a send function that applies the batch to the
 * other store at once, as an agent does. */
static temu_session *peer;
static int batches;

static int apply_to_peer(void *ctx, int32_t host, const uint64_t *pairs, int32_t n)
{
    (void)ctx;
    ck_assert_int_eq(host, 1);
    batches++;
    return temu_session_apply_updates(peer, pairs, n) == 0 ? 0 : -1;
}

static int never(void *ctx, int32_t host, const uint64_t *pairs, int32_t n)
{
    (void)ctx;
    (void)host;
    (void)pairs;
    (void)n;
    ck_abort_msg("host 1 sends nothing in this test");
    return -1;
}

/* Rank 0 (host 0) sends rank 7 (host 1) messages of several sizes, twice:
 * split, then gathered, every counter equals the single-host store's; one
 * batch per message; a watch on host 1 crosses floor(count / threshold). */
START_TEST(test_split_equals_one_host)
{
    temu_session *one = test_mapped_store("nodeboard", 8, 1, NULL);
    temu_session *a = test_mapped_store("nodeboard", 8, 1, NULL);
    temu_session *b = test_mapped_store("nodeboard", 8, 1, NULL);
    temu_session *run = test_mapped_store("nodeboard", 8, 1, NULL);
    const temu_machine *m = temu_session_machine(one);
    temu_hosts *h;
    temu_error err;
    int32_t id;
    ck_assert_int_eq(temu_hosts_assign(one, 2, &h, &err), TEMU_OK);
    ck_assert_int_eq(temu_session_split(a, h, 0, apply_to_peer, NULL, &err), TEMU_OK);
    ck_assert_int_eq(temu_session_split(b, h, 1, never, NULL, &err), TEMU_OK);
    ck_assert_int_eq(temu_session_split(b, h, 1, never, NULL, &err), TEMU_EINVAL);
    peer = b;
    batches = 0;
    temu_slot dst;
    ck_assert_int_eq(temu_session_rank_slot(one, 7, &dst, &err), TEMU_OK);
    /* a message-unit counter the destination (host 1) counts: the first
     * that one message of 8 bytes moves */
    temu_session *probe = test_mapped_store("nodeboard", 8, 1, NULL);
    ck_assert_int_eq(temu_inject_ranks(probe, 0, 7, 8, NULL, TEMU_KIND_P2P, &err), TEMU_OK);
    int64_t watched = temu_idx_bgq_mu(m, dst.node, 0);
    while (temu_counter_read(probe, watched) == 0 && watched < temu_idx_bgq_mu(m, dst.node, 63)) {
        watched++;
    }
    temu_session_close(probe);
    ck_assert_int_eq(temu_hosts_counter_host(h, watched), 1);
    temu_watch_spec spec = {&watched, 1, 0, 3, 0, 0};
    ck_assert_int_eq(temu_watch_arm(b, &spec, &id, &err), TEMU_OK);
    const uint64_t sizes[] = {8, 1000, 4096, 100000};
    for (int rep = 0; rep < 2; rep++) {
        for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
            ck_assert_int_eq(temu_inject_ranks(one, 0, 7, sizes[i], NULL, TEMU_KIND_P2P, &err),
                             TEMU_OK);
            ck_assert_int_eq(temu_inject_ranks(a, 0, 7, sizes[i], NULL, TEMU_KIND_P2P, &err),
                             TEMU_OK);
        }
    }
    ck_assert_int_eq(batches, 8);
    ck_assert_uint_ge(temu_counter_read(b, watched), 6); /* at least 2 crossings */
    ck_assert_uint_eq(temu_watch_take(b, id), temu_counter_read(b, watched) / 3);
    temu_session *hs[2] = {a, b};
    ck_assert_int_eq(temu_session_gather(run, hs, h, &err), TEMU_OK);
    for (uint64_t i = 0; i < temu_counter_count(one); i++) {
        ck_assert_msg(temu_counter_read(run, (int64_t)i) == temu_counter_read(one, (int64_t)i),
                      "counter %llu", (unsigned long long)i);
    }
    ck_assert_uint_eq(temu_session_messages(run), 8);
    ck_assert_uint_eq(temu_session_bytes(run), temu_session_bytes(one));
    temu_hosts_free(h);
    temu_session_close(one);
    temu_session_close(a);
    temu_session_close(b);
    temu_session_close(run);
}
END_TEST

/* A host store counting a counter another host owns is refused, naming
 * both hosts and the counter; updates of counters a host does not own are
 * not applied. */
START_TEST(test_gather_refuses_foreign_counts)
{
    temu_session *a = test_mapped_store("nodeboard", 8, 1, NULL);
    temu_session *b = test_mapped_store("nodeboard", 8, 1, NULL);
    temu_session *run = test_mapped_store("nodeboard", 8, 1, NULL);
    const temu_machine *m = temu_session_machine(a);
    temu_hosts *h;
    temu_error err;
    ck_assert_int_eq(temu_hosts_assign(a, 2, &h, &err), TEMU_OK);
    int64_t idx = temu_idx_bgq_mu(m, 7, 0); /* node 7: host 1 */
    temu_counter_add(a, idx, 5);            /* a is not split: counted here */
    temu_session *hs[2] = {a, b};
    ck_assert_int_eq(temu_session_gather(run, hs, h, &err), TEMU_ECORRUPT);
    ck_assert_msg(strstr(err.message, "host 0's store counts 5 on") != NULL &&
                      strstr(err.message, "which host 1 owns") != NULL,
                  "%s", err.message);
    ck_assert_int_eq(temu_session_split(b, h, 0, never, NULL, &err), TEMU_OK);
    const uint64_t pairs[2] = {(uint64_t)idx, 9};
    ck_assert_int_eq(temu_session_apply_updates(b, pairs, 1), 1);
    ck_assert_uint_eq(temu_counter_read(b, idx), 0);
    temu_hosts_free(h);
    temu_session_close(a);
    temu_session_close(b);
    temu_session_close(run);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("split");
    TCase *tc = tcase_create("split");
    tcase_add_test(tc, test_assign_blocks_bgq);
    tcase_add_test(tc, test_assign_gemini_routers);
    tcase_add_test(tc, test_split_equals_one_host);
    tcase_add_test(tc, test_gather_refuses_foreign_counts);
    suite_add_tcase(s, tc);
    return test_run(s);
}
