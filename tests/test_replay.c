/*
 * test_replay.c - the replay engine (emu/replay.c, emu/match.c): rank
 * translation through communicators, matching by (communicator, source,
 * tag), and collectives counted as the live layer's algorithms send them,
 * checked against the same messages injected one by one.
 */
#include "testutil.h"
#include "torusemu_replay.h"

static temu_session *store(const char *spec, int32_t nranks, int32_t rpn)
{
    return test_mapped_store(spec, nranks, rpn, NULL);
}

static temu_replay *replay(temu_session *s)
{
    temu_replay *r;
    temu_error err;
    ck_assert_msg(temu_replay_create(s, &r, &err) == TEMU_OK, "%s", err.message);
    return r;
}

static void same_counters(const temu_session *a, const temu_session *b)
{
    uint64_t n = temu_counter_count(a);
    ck_assert_uint_eq(n, temu_counter_count(b));
    for (uint64_t i = 0; i < n; i++) {
        uint64_t x = temu_counter_read(a, (int64_t)i), y = temu_counter_read(b, (int64_t)i);
        if (x != y) {
            char name[160];
            temu_counter_describe(temu_session_machine(a), (int64_t)i, name, sizeof name);
            ck_abort_msg("counter %s: replay %llu, expected %llu", name, (unsigned long long)x,
                         (unsigned long long)y);
        }
    }
    ck_assert_uint_eq(temu_session_messages(a), temu_session_messages(b));
    ck_assert_uint_eq(temu_session_bytes(a), temu_session_bytes(b));
}

static void direct(temu_session *s, int32_t from, int32_t to, uint64_t bytes, temu_kind kind)
{
    temu_error err;
    ck_assert_int_eq(temu_inject_ranks(s, from, to, bytes, NULL, kind, &err), TEMU_OK);
}

START_TEST(comm_ranks_translate)
{
    temu_session *s = store("bgq:4x2x1x1x1", 8, 1), *ref = store("bgq:4x2x1x1x1", 8, 1);
    temu_replay *r = replay(s);
    temu_error err;
    int32_t members[3] = {3, 1, 6};
    ck_assert_int_eq(temu_replay_comm(r, 5, 3, members, &err), TEMU_OK);
    ck_assert_int_eq(temu_replay_unused_comm(r), 1);
    ck_assert_int_eq(temu_replay_comm(r, 1, 3, members, &err), TEMU_OK);
    ck_assert_int_eq(temu_replay_unused_comm(r), 2);
    ck_assert_int_eq(temu_replay_send(r, 5, 0, 2, 7, 5000, &err), TEMU_OK); /* world 3 -> 6 */
    ck_assert_int_eq(temu_replay_recv(r, 5, 2, 0, 7, 5000, &err), TEMU_OK);
    ck_assert_int_eq(temu_replay_rma(r, 5, 1, 0, 300, TEMU_KIND_GET, &err), TEMU_OK); /* 1 <- 3 */
    ck_assert_int_eq(temu_replay_finish(r, &err), TEMU_OK);
    direct(ref, 3, 6, 5000, TEMU_KIND_P2P);
    direct(ref, 1, 3, 300, TEMU_KIND_GET);
    same_counters(s, ref);
    /* errors name the problem */
    ck_assert_int_eq(temu_replay_send(r, 9, 0, 1, 0, 10, &err), TEMU_ERANGE);
    ck_assert_ptr_nonnull(strstr(err.message, "communicator 9"));
    ck_assert_int_eq(temu_replay_send(r, 5, 0, 3, 0, 10, &err), TEMU_ERANGE);
    ck_assert_ptr_nonnull(strstr(err.message, "size 3"));
    ck_assert_int_eq(temu_replay_comm(r, 5, 3, members, &err), TEMU_EINVAL);
    ck_assert_ptr_nonnull(strstr(err.message, "defined twice"));
    members[2] = 8;
    ck_assert_int_eq(temu_replay_comm(r, 6, 3, members, &err), TEMU_ERANGE);
    ck_assert_ptr_nonnull(strstr(err.message, "world rank 8"));
    temu_replay_free(r);
    temu_session_close(s);
    temu_session_close(ref);
}
END_TEST

START_TEST(matching_fifo_and_errors)
{
    temu_session *s = store("bgq:2x1x1x1x1", 4, 2);
    temu_replay *r = replay(s);
    temu_error err;
    temu_replay_stats st;
    /* receives first, then sends: FIFO per (comm, src, dst, tag) */
    ck_assert_int_eq(temu_replay_recv(r, 0, 1, 0, 4, 10, &err), TEMU_OK);
    ck_assert_int_eq(temu_replay_recv(r, 0, 1, 0, 4, 20, &err), TEMU_OK);
    ck_assert_int_eq(temu_replay_recv(r, 0, 1, 0, 5, TEMU_REPLAY_ANY_SIZE, &err), TEMU_OK);
    temu_replay_get_stats(r, &st);
    ck_assert_uint_eq(st.unmatched_recvs, 3);
    ck_assert_int_eq(temu_replay_send(r, 0, 0, 1, 5, 99, &err), TEMU_OK);
    ck_assert_int_eq(temu_replay_send(r, 0, 0, 1, 4, 10, &err), TEMU_OK);
    ck_assert_int_eq(temu_replay_send(r, 0, 0, 1, 4, 20, &err), TEMU_OK);
    ck_assert_int_eq(temu_replay_finish(r, &err), TEMU_OK);
    /* a size that differs from the oldest waiting send is an error */
    ck_assert_int_eq(temu_replay_send(r, 0, 2, 3, 0, 100, &err), TEMU_OK);
    ck_assert_int_eq(temu_replay_send(r, 0, 2, 3, 0, 200, &err), TEMU_OK);
    ck_assert_int_eq(temu_replay_recv(r, 0, 3, 2, 0, 200, &err), TEMU_EINVAL);
    ck_assert_msg(strstr(err.message, "sent 100 bytes to rank 3") != NULL, "%s", err.message);
    /* one send left over: finish names it */
    ck_assert_int_eq(temu_replay_finish(r, &err), TEMU_EINVAL);
    ck_assert_msg(strstr(err.message, "1 sends and 0 receives left unmatched") != NULL &&
                      strstr(err.message, "from rank 2 to rank 3") != NULL,
                  "%s", err.message);
    temu_replay_get_stats(r, &st);
    ck_assert_uint_eq(st.sends, 5);
    ck_assert_uint_eq(st.recvs, 4);
    ck_assert_uint_eq(st.messages, 5);
    temu_replay_free(r);
    temu_session_close(s);
}
END_TEST

/* A linear all-to-all of 1,024 ranks posted the hard way round (every
 * receive before any send: 1,047,552 waiting at the peak).  Quadratic
 * matching would not finish within the test's timeout. */
START_TEST(linear_alltoall_1024)
{
    const int32_t n = 1024;
    temu_session *s = store("bgq:2x2x2x2x2", n, 32);
    temu_replay *r = replay(s);
    temu_error err;
    temu_replay_stats st;
    for (int32_t d = 0; d < n; d++) {
        for (int32_t k = 1; k < n; k++) {
            ck_assert_int_eq(temu_replay_recv(r, 0, d, (d + k) % n, 1, 64, &err), TEMU_OK);
        }
    }
    for (int32_t src = 0; src < n; src++) {
        for (int32_t k = 1; k < n; k++) {
            temu_status rc = temu_replay_send(r, 0, src, (src + k) % n, 1, 64, &err);
            ck_assert_msg(rc == TEMU_OK, "%s", err.message);
        }
    }
    ck_assert_msg(temu_replay_finish(r, &err) == TEMU_OK, "%s", err.message);
    temu_replay_get_stats(r, &st);
    ck_assert_uint_eq(st.sends, (uint64_t)n * (n - 1));
    ck_assert_uint_eq(st.unmatched_recvs, 0);
    ck_assert_uint_eq(temu_session_messages(s), (uint64_t)n * (n - 1));
    ck_assert_uint_eq(temu_session_bytes(s), (uint64_t)n * (n - 1) * 64);
    temu_replay_free(r);
    temu_session_close(s);
}
END_TEST

/* MPI_Alltoall of 1 KiB blocks: every rank sends one block to every other
 * (pairwise exchange, the algorithm for blocks above 256 bytes). */
START_TEST(alltoall_is_every_pair)
{
    const int32_t n = 12;
    temu_session *s = store("gemini:2x2x2", n, 2), *ref = store("gemini:2x2x2", n, 2);
    temu_replay *r = replay(s);
    temu_error err;
    temu_replay_coll c = {.op = TEMU_COLL_ALLTOALL, .blocking = 1, .commutative = 1, .bytes = 1024};
    for (int32_t me = 0; me < n; me++) {
        ck_assert_int_eq(temu_replay_collective(r, 0, me, &c, &err), TEMU_OK);
        for (int32_t d = 0; d < n; d++) {
            if (d != me) {
                direct(ref, me, d, 1024, TEMU_KIND_P2P);
            }
        }
    }
    same_counters(s, ref);
    temu_replay_free(r);
    temu_session_close(s);
    temu_session_close(ref);
}
END_TEST

/* Gatherv to root 2 on a sub-communicator: each non-root sends its block
 * straight to the root (linear algorithm). */
START_TEST(gatherv_on_subcomm)
{
    temu_session *s = store("bgp:2x2x2", 8, 1), *ref = store("bgp:2x2x2", 8, 1);
    temu_replay *r = replay(s);
    temu_error err;
    int32_t members[4] = {7, 0, 5, 2};
    ck_assert_int_eq(temu_replay_comm(r, 1, 4, members, &err), TEMU_OK);
    for (int32_t me = 0; me < 4; me++) {
        temu_replay_coll c = {
            .op = TEMU_COLL_GATHERV, .root = 2, .blocking = 1, .bytes = 100 * (uint64_t)(me + 1)};
        ck_assert_int_eq(temu_replay_collective(r, 1, me, &c, &err), TEMU_OK);
        if (me != 2) {
            direct(ref, members[me], 5, 100 * (uint64_t)(me + 1), TEMU_KIND_P2P);
        }
    }
    same_counters(s, ref);
    temu_replay_coll bad = {.op = TEMU_COLL_GATHERV, .root = 4, .blocking = 1};
    ck_assert_int_eq(temu_replay_collective(r, 1, 0, &bad, &err), TEMU_ERANGE);
    ck_assert_ptr_nonnull(strstr(err.message, "root 4"));
    temu_replay_free(r);
    temu_session_close(s);
    temu_session_close(ref);
}
END_TEST

/* Every list of a collective is checked against its operation and the
 * communicator before anything is decomposed (issue 22: one block for an
 * alltoallv of 4 ranks was read 3 past its end): refused calls name the
 * field and inject nothing; MPI_PROC_NULL (-1) neighbours send nothing. */
static void refused(temu_replay *r, const temu_replay_coll *c, temu_status want, const char *msg)
{
    temu_error err;
    err.message[0] = '\0';
    ck_assert_int_eq(temu_replay_collective(r, 1, 2, c, &err), want);
    ck_assert_msg(strstr(err.message, msg) != NULL, "'%s' lacks '%s'", err.message, msg);
}

START_TEST(collective_lists_checked)
{
    temu_session *s = store("gemini:2x2x2", 8, 1), *ref = store("gemini:2x2x2", 8, 1);
    temu_replay *r = replay(s);
    temu_error err;
    temu_replay_stats st;
    int32_t members[4] = {6, 4, 2, 0};
    const int32_t one[1] = {1}, nb[3] = {3, -1, 1}, far[1] = {4}, below[1] = {-2};
    const uint64_t blocks[3] = {10, 20, 30};
    ck_assert_int_eq(temu_replay_comm(r, 1, 4, members, &err), TEMU_OK);
    temu_replay_coll c = {
        .op = TEMU_COLL_ALLTOALLV, .blocking = 1, .nnb = 1, .nb = one, .blocks = blocks};
    refused(r, &c, TEMU_EINVAL,
            "alltoallv by rank 2 of communicator 1: nb/nnb given, but "
            "alltoallv has no neighbours");
    c = (temu_replay_coll){.op = TEMU_COLL_NEIGHBOR_ALLTOALL, .nnb = 1, .nb = far};
    refused(r, &c, TEMU_ERANGE, "out-neighbour nb[0] is 4, outside -1..3 (-1: none)");
    c.nb = below;
    refused(r, &c, TEMU_ERANGE, "out-neighbour nb[0] is -2, outside -1..3");
    c = (temu_replay_coll){.op = TEMU_COLL_NEIGHBOR_ALLGATHER, .nnb = -1};
    refused(r, &c, TEMU_EINVAL, "nnb is -1 with no nb");
    c.nnb = 2;
    refused(r, &c, TEMU_EINVAL, "nnb is 2 with no nb");
    c = (temu_replay_coll){.op = TEMU_COLL_BCAST, .bytes = 64, .blocks = blocks};
    refused(r, &c, TEMU_EINVAL, "blocks given, but bcast takes one size (bytes)");
    c = (temu_replay_coll){.op = TEMU_COLL_ALLTOALLV, .bytes = 64, .offs = blocks};
    refused(r, &c, TEMU_EINVAL, "alltoallv by rank 2 of communicator 1: offs without blocks");
    c = (temu_replay_coll){.op = TEMU_COLL_OPS};
    refused(r, &c, TEMU_EINVAL, "unknown collective operation 17");
    temu_replay_get_stats(r, &st);
    ck_assert_uint_eq(st.colls, 0);
    ck_assert_uint_eq(temu_session_messages(s), 0);

    /* communicator rank 2 (world 2) to ranks 3 and 1 (worlds 0 and 4) */
    c = (temu_replay_coll){.op = TEMU_COLL_NEIGHBOR_ALLTOALL, .nnb = 3, .nb = nb, .blocks = blocks};
    ck_assert_msg(temu_replay_collective(r, 1, 2, &c, &err) == TEMU_OK, "%s", err.message);
    direct(ref, 2, 0, 10, TEMU_KIND_P2P);
    direct(ref, 2, 4, 30, TEMU_KIND_P2P);
    same_counters(s, ref);
    temu_replay_get_stats(r, &st);
    ck_assert_uint_eq(st.colls, 1);
    temu_replay_free(r);
    temu_session_close(s);
    temu_session_close(ref);
}
END_TEST

/* Which lists each operation takes (temu_coll_op_lists). */
START_TEST(collective_op_lists)
{
    int ranks = 0, neighbors = 0, none = 0;
    for (int op = 0; op < TEMU_COLL_OPS; op++) {
        int l = temu_coll_op_lists(op);
        ranks += l == TEMU_COLL_LISTS_RANKS;
        neighbors += l == TEMU_COLL_LISTS_NEIGHBORS;
        none += l == TEMU_COLL_LISTS_NONE;
    }
    ck_assert_int_eq(ranks, 4);
    ck_assert_int_eq(neighbors, 2);
    ck_assert_int_eq(none, 11);
    ck_assert_int_eq(temu_coll_op_lists(TEMU_COLL_ALLTOALLV), TEMU_COLL_LISTS_RANKS);
    ck_assert_int_eq(temu_coll_op_lists(TEMU_COLL_SCATTERV), TEMU_COLL_LISTS_RANKS);
    ck_assert_int_eq(temu_coll_op_lists(TEMU_COLL_GATHERV), TEMU_COLL_LISTS_NONE);
    ck_assert_int_eq(temu_coll_op_lists(TEMU_COLL_NEIGHBOR_ALLGATHER), TEMU_COLL_LISTS_NEIGHBORS);
    ck_assert_int_eq(temu_coll_op_lists(-1), -1);
    ck_assert_int_eq(temu_coll_op_lists(TEMU_COLL_OPS), -1);
}
END_TEST

static uint64_t node_vc_sent(const temu_session *s, int64_t node, int vc)
{
    const temu_machine *m = temu_session_machine(s);
    uint64_t sum = 0;
    for (int l = 0; l < 2 * m->ndims; l++) {
        sum += temu_counter_read(s, temu_idx_bgq_nw(m, node, l, TEMU_BGQ_NW_SENT_CHUNKS, vc));
    }
    return sum;
}

/* A BG/Q barrier on MPI_COMM_WORLD runs on the class route, once for the
 * whole communicator however many ranks call it: two nodes, one link each
 * way, a header-only packet (one 32-byte chunk) up and one down on VC 4. */
START_TEST(bgq_barrier_on_class_route)
{
    temu_session *s = store("bgq:2x1x1x1x1", 4, 2);
    temu_replay *r = replay(s);
    temu_error err;
    temu_replay_coll c = {.op = TEMU_COLL_BARRIER, .blocking = 1};
    for (int32_t me = 0; me < 4; me++) {
        ck_assert_int_eq(temu_replay_collective(r, 0, me, &c, &err), TEMU_OK);
    }
    for (int64_t node = 0; node < 2; node++) {
        ck_assert_uint_eq(node_vc_sent(s, node, TEMU_BGQ_VC_COLL_WORLD), 1);
        ck_assert_uint_eq(node_vc_sent(s, node, TEMU_BGQ_VC_USER_ESCAPE), 0);
        ck_assert_uint_eq(node_vc_sent(s, node, TEMU_BGQ_VC_USER_DYNAMIC), 0);
    }
    temu_replay_free(r);
    temu_session_close(s);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("replay");
    TCase *tc = tcase_create("engine");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, comm_ranks_translate);
    tcase_add_test(tc, matching_fifo_and_errors);
    tcase_add_test(tc, linear_alltoall_1024);
    tcase_add_test(tc, alltoall_is_every_pair);
    tcase_add_test(tc, gatherv_on_subcomm);
    tcase_add_test(tc, bgq_barrier_on_class_route);
    tcase_add_test(tc, collective_lists_checked);
    tcase_add_test(tc, collective_op_lists);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return test_run(suite());
}
