/*
 * test_route.c - deterministic dimension-ordered routing.
 */
#include "testutil.h"

static int64_t at(const temu_machine *m, int32_t a, int32_t b, int32_t c, int32_t d, int32_t e)
{
    int32_t v[5] = {a, b, c, d, e};
    return temu_router_index(m, v);
}

START_TEST(test_gemini_x_then_y_then_z)
{
    temu_machine m = test_machine("gemini:8x8x8");
    temu_hop h[TEMU_MAX_HOPS];
    int n = temu_route(&m, at(&m, 0, 0, 0, 0, 0), at(&m, 2, 1, 3, 0, 0), h, TEMU_MAX_HOPS);
    int want_links[] = {1, 1, 3, 5, 5, 5}; /* X+ X+ Y+ Z+ Z+ Z+ */
    ck_assert_int_eq(n, 6);
    for (int i = 0; i < n; i++) {
        ck_assert_int_eq(h[i].link, want_links[i]);
        ck_assert_int_eq(h[i].in_link, want_links[i] ^ 1);
    }
    ck_assert_int_eq(h[0].from, at(&m, 0, 0, 0, 0, 0));
    ck_assert_int_eq(h[2].from, at(&m, 2, 0, 0, 0, 0));
    ck_assert_int_eq(h[2].to, at(&m, 2, 1, 0, 0, 0));
    ck_assert_int_eq(h[5].to, at(&m, 2, 1, 3, 0, 0));
}
END_TEST

START_TEST(test_shortest_direction_and_ties)
{
    temu_machine m = test_machine("gemini:8x8x8");
    temu_hop h[TEMU_MAX_HOPS];
    /* 0 -> 6 on a ring of 8: two hops minus through the wrap link */
    int n = temu_route(&m, at(&m, 0, 0, 0, 0, 0), at(&m, 6, 0, 0, 0, 0), h, TEMU_MAX_HOPS);
    ck_assert_int_eq(n, 2);
    ck_assert_int_eq(h[0].link, TEMU_LINK_MINUS(0));
    ck_assert_int_eq(h[0].to, at(&m, 7, 0, 0, 0, 0));
    /* exact tie (distance 4 on a ring of 8) goes plus, both ways */
    n = temu_route(&m, at(&m, 0, 0, 0, 0, 0), at(&m, 4, 0, 0, 0, 0), h, TEMU_MAX_HOPS);
    ck_assert_int_eq(n, 4);
    ck_assert_int_eq(h[0].link, TEMU_LINK_PLUS(0));
    n = temu_route(&m, at(&m, 4, 0, 0, 0, 0), at(&m, 0, 0, 0, 0, 0), h, TEMU_MAX_HOPS);
    ck_assert_int_eq(h[0].link, TEMU_LINK_PLUS(0));
    ck_assert_int_eq(h[3].to, at(&m, 0, 0, 0, 0, 0));
}
END_TEST

START_TEST(test_return_route_differs)
{
    /* Pedretti 2013 V.C: the response takes the static route back, which in
     * general uses other links: (0,0,0)->(1,1,0) goes X+ at (0,0,0) then Y+ at
     * (1,0,0); the way back goes X- at (1,1,0) then Y- at (0,1,0). */
    temu_machine m = test_machine("gemini:4x4x4");
    temu_hop req[8], rsp[8];
    int a = temu_route(&m, at(&m, 0, 0, 0, 0, 0), at(&m, 1, 1, 0, 0, 0), req, 8);
    int b = temu_route(&m, at(&m, 1, 1, 0, 0, 0), at(&m, 0, 0, 0, 0, 0), rsp, 8);
    ck_assert_int_eq(a, 2);
    ck_assert_int_eq(b, 2);
    ck_assert_int_eq(req[1].from, at(&m, 1, 0, 0, 0, 0));
    ck_assert_int_eq(rsp[1].from, at(&m, 0, 1, 0, 0, 0));
    ck_assert_int_ne(req[1].from, rsp[0].to); /* different intermediate Gemini */
}
END_TEST

START_TEST(test_bgq_longest_first)
{
    temu_machine m = test_machine("mira"); /* order C D B A E */
    temu_hop h[16];
    int n = temu_route(&m, at(&m, 0, 0, 0, 0, 0), at(&m, 1, 1, 1, 1, 1), h, 16);
    int want[] = {TEMU_LINK_PLUS(2), TEMU_LINK_PLUS(3), TEMU_LINK_PLUS(1), TEMU_LINK_PLUS(0),
                  TEMU_LINK_PLUS(4)};
    ck_assert_int_eq(n, 5);
    for (int i = 0; i < 5; i++) {
        ck_assert_int_eq(h[i].link, want[i]);
    }
    /* E has 2 nodes: distance 1 = n/2 is a tie and goes plus */
    n = temu_route(&m, at(&m, 0, 0, 0, 0, 1), at(&m, 0, 0, 0, 0, 0), h, 16);
    ck_assert_int_eq(n, 1);
    ck_assert_int_eq(h[0].link, TEMU_LINK_PLUS(4));
}
END_TEST

START_TEST(test_mesh_never_wraps)
{
    temu_machine m = test_machine("bgp-128"); /* 4x4x8 mesh */
    temu_hop h[32];
    int n = temu_route(&m, at(&m, 0, 0, 0, 0, 0), at(&m, 3, 0, 7, 0, 0), h, 32);
    ck_assert_int_eq(n, 10); /* 3 + 7: no wrap-around shortcut */
    ck_assert_int_eq(h[0].link, TEMU_LINK_PLUS(0));
    ck_assert_int_eq(temu_route_distance(&m, at(&m, 3, 0, 7, 0, 0), at(&m, 0, 0, 0, 0, 0)), 10);
    temu_machine t = test_machine("bgp:4x4x8");
    ck_assert_int_eq(temu_route_distance(&t, at(&t, 0, 0, 0, 0, 0), at(&t, 3, 0, 7, 0, 0)), 2);
}
END_TEST

START_TEST(test_edge_cases)
{
    temu_machine m = test_machine("gemini:8x8x8");
    temu_hop h[2];
    ck_assert_int_eq(temu_route(&m, 5, 5, h, 2), 0);
    ck_assert_int_eq(temu_route(&m, at(&m, 0, 0, 0, 0, 0), at(&m, 3, 0, 0, 0, 0), h, 2), -1);
}
END_TEST

/* Every route is a chain of single-coordinate steps in dimension order that
 * ends at the destination, with as many hops as the distance. */
static void check_routes(const char *spec)
{
    temu_machine m = test_machine(spec);
    temu_hop h[TEMU_MAX_HOPS];
    uint64_t x = 12345;
    for (int trial = 0; trial < 500; trial++) {
        x = x * 6364136223846793005ull + 1442695040888963407ull;
        int64_t src = (int64_t)((x >> 20) % (uint64_t)m.nrouters);
        int64_t dst = (int64_t)((x >> 40) % (uint64_t)m.nrouters);
        int n = temu_route(&m, src, dst, h, TEMU_MAX_HOPS);
        ck_assert_int_eq(n, temu_route_distance(&m, src, dst));
        int64_t cur = src;
        int last_rank = 0;
        for (int i = 0; i < n; i++) {
            int32_t a[5], b[5];
            int dim = h[i].link / 2, rank = 0, changed = 0;
            ck_assert_int_eq(h[i].from, cur);
            ck_assert_int_eq(temu_link_neighbor(&m, cur, h[i].link), h[i].to);
            temu_router_coords(&m, h[i].from, a);
            temu_router_coords(&m, h[i].to, b);
            for (int d = 0; d < m.ndims; d++) {
                changed += a[d] != b[d];
                if (m.dim_order[d] == dim) {
                    rank = d;
                }
            }
            ck_assert_int_eq(changed, 1);
            ck_assert_int_ge(rank, last_rank);
            last_rank = rank;
            cur = h[i].to;
        }
        ck_assert_int_eq(cur, dst);
    }
}

START_TEST(test_route_properties)
{
    check_routes("cielo");
    check_routes("titan");
    check_routes("mira");
    check_routes("bgq-256");
    check_routes("bgp-128");
    check_routes("bgp-rack");
}
END_TEST

int main(void)
{
    Suite *s = suite_create("route");
    TCase *tc = tcase_create("route");
    tcase_add_test(tc, test_gemini_x_then_y_then_z);
    tcase_add_test(tc, test_shortest_direction_and_ties);
    tcase_add_test(tc, test_return_route_differs);
    tcase_add_test(tc, test_bgq_longest_first);
    tcase_add_test(tc, test_mesh_never_wraps);
    tcase_add_test(tc, test_edge_cases);
    tcase_add_test(tc, test_route_properties);
    suite_add_tcase(s, tc);
    return test_run(s);
}
