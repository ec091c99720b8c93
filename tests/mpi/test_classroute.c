/*
 * test_classroute.c - BG/Q class-route trees (mpi/classroute.c): edges
 * derived by hand from deterministic routing, the box rule, and the exact
 * counts one operation leaves in a store.
 */
#include "classroute.h"

#include <check.h>
#include <stdlib.h>

/* bgq:4x1x1x1x2: node id = 2a + e; routing A first, ties go +. */
static temu_machine ring_machine(void)
{
    temu_machine m;
    temu_error err;
    ck_assert_int_eq(temu_machine_parse("bgq:4x1x1x1x2", &m, &err), TEMU_OK);
    return m;
}

static void expect_edge(const temu_hop *e, int64_t from, int link, int64_t to)
{
    ck_assert_int_eq(e->from, from);
    ck_assert_int_eq(e->link, link);
    ck_assert_int_eq(e->to, to);
    ck_assert_int_eq(e->in_link, link ^ 1);
}

START_TEST(ring_up_and_down)
{
    temu_machine m = ring_machine();
    int64_t nodes[4] = {0, 2, 4, 6}; /* a = 0..3, e = 0 */
    temu_hop *e;
    /* up to a=0: a=1 goes A- (distance 1 backwards); a=2 ties and goes +
     * through a=3; a=3 goes A+ over the wrap link */
    int n = tmpi_classroute_edges(&m, nodes, 4, 0, 1, &e);
    ck_assert_int_eq(n, 3);
    expect_edge(&e[0], 2, TEMU_LINK_MINUS(0), 0);
    expect_edge(&e[1], 4, TEMU_LINK_PLUS(0), 6);
    expect_edge(&e[2], 6, TEMU_LINK_PLUS(0), 0);
    free(e);
    /* down from a=0: to a=1 and a=2 through A+, to a=3 through A- */
    n = tmpi_classroute_edges(&m, nodes, 4, 0, 0, &e);
    ck_assert_int_eq(n, 3);
    expect_edge(&e[0], 0, TEMU_LINK_MINUS(0), 6);
    expect_edge(&e[1], 0, TEMU_LINK_PLUS(0), 2);
    expect_edge(&e[2], 2, TEMU_LINK_PLUS(0), 4);
    free(e);
}
END_TEST

START_TEST(spanning_tree)
{
    temu_machine m;
    temu_error err;
    ck_assert_int_eq(temu_machine_parse("nodeboard", &m, &err), TEMU_OK);
    int64_t nodes[32];
    for (int i = 0; i < 32; i++) {
        nodes[i] = i;
    }
    for (int64_t root = 0; root < 32; root += 7) {
        temu_hop *e;
        int n = tmpi_classroute_edges(&m, nodes, 32, root, 1, &e);
        ck_assert_int_eq(n, 31); /* a tree: one edge out of every other node */
        for (int i = 0; i < n; i++) {
            ck_assert_int_ne(e[i].from, root);
            if (i > 0) {
                ck_assert_int_ne(e[i].from, e[i - 1].from);
            }
        }
        free(e);
        n = tmpi_classroute_edges(&m, nodes, 32, root, 0, &e);
        ck_assert_int_eq(n, 31);
        int into[32] = {0};
        for (int i = 0; i < n; i++) {
            into[e[i].to]++;
        }
        for (int i = 0; i < 32; i++) {
            ck_assert_int_eq(into[i], i == root ? 0 : 1);
        }
        free(e);
    }
    /* every member on one node: no edge */
    int64_t one[3] = {5, 5, 5};
    temu_hop *e = NULL;
    ck_assert_int_eq(tmpi_classroute_edges(&m, one, 3, 5, 1, &e), 0);
    ck_assert_ptr_null(e);
}
END_TEST

START_TEST(box_rule)
{
    temu_machine m = ring_machine();
    int64_t line[4] = {0, 2, 4, 6}, gap[2] = {0, 4}, square[4] = {3, 2, 1, 0};
    int64_t diag[2] = {0, 3}, dup[3] = {0, 0, 2};
    ck_assert_int_eq(tmpi_nodes_form_box(&m, line, 4), 1);
    ck_assert_int_eq(tmpi_nodes_form_box(&m, gap, 2), 0);
    ck_assert_int_eq(tmpi_nodes_form_box(&m, square, 4), 1);
    ck_assert_int_eq(tmpi_nodes_form_box(&m, diag, 2), 0);
    ck_assert_int_eq(tmpi_nodes_form_box(&m, dup, 3), 1);
}
END_TEST

START_TEST(counts)
{
    temu_machine m = ring_machine();
    temu_session *s;
    temu_error err;
    temu_hop *e;
    int64_t nodes[4] = {0, 2, 4, 6}, root = 0;
    ck_assert_int_eq(temu_session_create_private(&m, &s, &err), TEMU_OK);
    int n = tmpi_classroute_edges(&m, nodes, 4, root, 1, &e);
    /* a 1024-byte reduce up the tree on the sub-communicator VC 5: per edge
     * 2 packets and 2 + 1024/32 = 34 chunks (doc/model.md) */
    tmpi_classroute_inject(s, e, n, nodes, 4, &root, 1, 1024, TEMU_KIND_COLL_SUB);
    const int vc = TEMU_BGQ_VC_COLL_SUBCOMM;
    int64_t from[3] = {2, 4, 6}, to[3] = {0, 6, 0};
    int out[3] = {0, 1, 1};
    uint64_t chunks = 0, packets = 0;
    for (int i = 0; i < 3; i++) {
        ck_assert_uint_eq(
            temu_counter_read(s, temu_idx_bgq_nw(&m, from[i], out[i], TEMU_BGQ_NW_SENT_CHUNKS, vc)),
            34);
        ck_assert_uint_eq(temu_counter_read(s, temu_idx_bgq_nw(&m, to[i], out[i] ^ 1,
                                                               TEMU_BGQ_NW_RECV_PACKETS, vc)),
                          2);
    }
    for (int64_t node = 0; node < m.nnodes; node++) {
        for (int l = 0; l < TEMU_BGQ_LINKS; l++) {
            for (int v = 0; v < TEMU_BGQ_VCS; v++) {
                chunks +=
                    temu_counter_read(s, temu_idx_bgq_nw(&m, node, l, TEMU_BGQ_NW_SENT_CHUNKS, v));
                packets +=
                    temu_counter_read(s, temu_idx_bgq_nw(&m, node, l, TEMU_BGQ_NW_RECV_PACKETS, v));
            }
        }
    }
    ck_assert_uint_eq(chunks, 3 * 34);
    ck_assert_uint_eq(packets, 3 * 2);
    /* each member injects one message of 2 packets, the root receives one */
    for (int i = 0; i < 4; i++) {
        ck_assert_uint_eq(temu_counter_read(s, temu_idx_bgq_mu(&m, nodes[i], TEMU_MU_MSG_INJ)), 1);
        ck_assert_uint_eq(temu_counter_read(s, temu_idx_bgq_mu(&m, nodes[i], TEMU_MU_PKT_INJ)), 1);
        ck_assert_uint_eq(temu_counter_read(s, temu_idx_bgq_mu(&m, nodes[i], TEMU_MU_FIFO_PKT_RCV)),
                          nodes[i] == root ? 2 : 0);
    }
    ck_assert_uint_eq(temu_session_messages(s), 4);
    ck_assert_uint_eq(temu_session_bytes(s), 4096);
    free(e);
    temu_session_close(s);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("classroute");
    TCase *t = tcase_create("classroute");
    tcase_add_test(t, ring_up_and_down);
    tcase_add_test(t, spanning_tree);
    tcase_add_test(t, box_rule);
    tcase_add_test(t, counts);
    suite_add_tcase(s, t);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
