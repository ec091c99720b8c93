/*
 * test_machine.c - machine specs, presets, coordinates, links and names.
 */
#include "testutil.h"

static void expect_bad(const char *spec, const char *fragment)
{
    temu_machine m;
    temu_error err;
    temu_status st = temu_machine_parse(spec, &m, &err);
    ck_assert_msg(st == TEMU_EINVAL, "spec '%s' should be rejected", spec);
    ck_assert_msg(strstr(err.message, fragment) != NULL, "spec '%s': message '%s' lacks '%s'",
                  spec, err.message, fragment);
}

START_TEST(test_presets_shapes)
{
    struct {
        const char *spec;
        int system, ndims, s0, s1, s2, s3, s4;
        long long nodes;
    } cases[] = {
        {"cielo", TEMU_SYSTEM_GEMINI, 3, 16, 12, 24, 0, 0, 9216},
        {"bluewaters", TEMU_SYSTEM_GEMINI, 3, 24, 24, 24, 0, 0, 27648},
        {"titan", TEMU_SYSTEM_GEMINI, 3, 25, 16, 24, 0, 0, 19200},
        {"hopper", TEMU_SYSTEM_GEMINI, 3, 17, 8, 24, 0, 0, 6528},
        {"midplane", TEMU_SYSTEM_BGQ, 5, 4, 4, 4, 4, 2, 512},
        {"mira", TEMU_SYSTEM_BGQ, 5, 8, 12, 16, 16, 2, 49152},
        {"nodeboard", TEMU_SYSTEM_BGQ, 5, 2, 2, 2, 2, 2, 32},
        {"bgq-128", TEMU_SYSTEM_BGQ, 5, 2, 2, 4, 4, 2, 128},
        {"bgp:midplane", TEMU_SYSTEM_BGP, 3, 8, 8, 8, 0, 0, 512},
        {"bgp-16", TEMU_SYSTEM_BGP, 3, 4, 2, 2, 0, 0, 16},
        {"gemini:2x3x4", TEMU_SYSTEM_GEMINI, 3, 2, 3, 4, 0, 0, 48},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        temu_machine m = test_machine(cases[i].spec);
        int sizes[] = {cases[i].s0, cases[i].s1, cases[i].s2, cases[i].s3, cases[i].s4};
        ck_assert_int_eq(m.system, cases[i].system);
        ck_assert_int_eq(m.ndims, cases[i].ndims);
        for (int d = 0; d < m.ndims; d++) {
            ck_assert_int_eq(m.size[d], sizes[d]);
        }
        ck_assert_int_eq(m.nnodes, cases[i].nodes);
    }
}
END_TEST

START_TEST(test_system_facts)
{
    temu_machine g = test_machine("gemini:2x2x2");
    temu_machine p = test_machine("bgp:2x2x2");
    temu_machine q = test_machine("bgq:2x2x2x2x2");
    ck_assert_int_eq(g.nodes_per_router, 2); /* 2 nodes per Gemini */
    ck_assert_int_eq(g.nlinks, 7);           /* six directions + host */
    ck_assert_int_eq(p.cores_per_node, 4);   /* BG/P: 4 cores per node */
    ck_assert_int_eq(p.nlinks, 6);
    ck_assert_int_eq(q.cores_per_node, 16); /* BG/Q: 16 cores x 4 threads */
    ck_assert_int_eq(q.threads_per_core, 4);
    ck_assert_int_eq(q.nlinks, 11);           /* A-..E+ and the I/O link */
    ck_assert_int_eq(q.protocol.eager_limit, 4097);
    ck_assert_int_eq(g.protocol.eager_limit, 8192);
    ck_assert_int_eq(g.protocol.bte_threshold, 512 * 1024);
    ck_assert_int_eq(g.protocol.mpi_header, 48);
}
END_TEST

START_TEST(test_torus_flags_and_names)
{
    temu_machine m = test_machine("bgq:4x2x4x4x2,torus=10111");
    ck_assert_int_eq(m.torus[0], 1);
    ck_assert_int_eq(m.torus[1], 0);
    ck_assert_str_eq(m.name, "bgq:4x2x4x4x2,torus=10111");
    temu_machine n = test_machine("nodeboard");
    ck_assert_str_eq(n.name, "bgq:2x2x2x2x2,torus=00001");
    ck_assert_str_eq(n.preset, "nodeboard");
    temu_machine c = test_machine("cielo");
    ck_assert_str_eq(c.name, "gemini:16x12x24");
    ck_assert_int_eq(c.cores_per_node, 16);
    temu_machine b = test_machine("bluewaters,cores=16");
    ck_assert_int_eq(b.cores_per_node, 16);
    temu_machine e = test_machine("gemini:2x2x2,eager=4096,bte=65536,header=32");
    ck_assert_int_eq(e.protocol.eager_limit, 4096);
    ck_assert_int_eq(e.protocol.bte_threshold, 65536);
    ck_assert_int_eq(e.protocol.mpi_header, 32);
}
END_TEST

START_TEST(test_malformed_specs)
{
    expect_bad("", "neither");
    expect_bad("gemini", "neither");
    expect_bad("nosuchpreset", "neither");
    expect_bad("cray:2x2x2", "unknown system 'cray'");
    expect_bad("gemini:4x4", "needs 3 dimensions");
    expect_bad("bgq:4x4x4x4", "needs 5 dimensions");
    expect_bad("bgp:4x4x4x4", "needs 3 dimensions");
    expect_bad("gemini:0x2x2", "dimension 1");
    expect_bad("gemini:2xax2", "dimension 2 ('a')");
    expect_bad("gemini:2x2x", "dimension 3");
    expect_bad("gemini:2x2x2000", "from 1 to 1024");
    expect_bad("gemini:2x2x2,torus=111", "full tori");
    expect_bad("bgq:2x2x2x2x2,torus=111", "one 0/1 digit per dimension");
    expect_bad("bgq:2x2x2x2x2,torus=11121", "is not 0 or 1");
    expect_bad("cielo,speed=3", "unknown option 'speed'");
    expect_bad("cielo,eager", "not key=value");
    expect_bad("cielo,eager=-1", "non-negative integer");
    expect_bad("cielo,", "empty option");
    expect_bad("bgq:midplane2", "no bgq preset");
    expect_bad("bgp:mira", "no bgp preset");
    expect_bad("gemini:2x2x2,header=65", "header must be");
    expect_bad("bgq:2x2x2x2x2,bte=5", "unknown option 'bte'");
    expect_bad("gemini:1024x1024x1024", "exceed");
}
END_TEST

START_TEST(test_bgq_dim_order)
{
    /* midplane: all equal effective length -> A B C D first, E (n/2=1) last */
    temu_machine mid = test_machine("midplane");
    int want_mid[] = {0, 1, 2, 3, 4};
    /* Mira 8x12x16x16x2 torus: effective 4,6,8,8,1 -> C D B A E */
    temu_machine mira = test_machine("mira");
    int want_mira[] = {2, 3, 1, 0, 4};
    /* 4x2x4x4x2 torus=10111: effective A 2, B(mesh) 2, C 2, D 2, E 1;
     * ties go to the mesh first (B), then lower dimension */
    temu_machine sub = test_machine("bgq-256");
    int want_sub[] = {1, 0, 2, 3, 4};
    temu_machine gem = test_machine("cielo");
    for (int d = 0; d < 5; d++) {
        ck_assert_int_eq(mid.dim_order[d], want_mid[d]);
        ck_assert_int_eq(mira.dim_order[d], want_mira[d]);
        ck_assert_int_eq(sub.dim_order[d], want_sub[d]);
    }
    for (int d = 0; d < 3; d++) {
        ck_assert_int_eq(gem.dim_order[d], d); /* X then Y then Z */
    }
}
END_TEST

START_TEST(test_coords_roundtrip)
{
    const char *specs[] = {"cielo", "mira", "bgp-rack", "gemini:3x5x7"};
    for (size_t i = 0; i < 4; i++) {
        temu_machine m = test_machine(specs[i]);
        for (int64_t r = 0; r < m.nrouters; r += 7) {
            int32_t c[TEMU_MAX_DIMS];
            temu_router_coords(&m, r, c);
            ck_assert_int_eq(temu_router_index(&m, c), r);
        }
    }
    temu_machine m = test_machine("gemini:2x3x4");
    int32_t c[3] = {1, 2, 3};
    ck_assert_int_eq(temu_router_index(&m, c), (1 * 3 + 2) * 4 + 3); /* Z fastest */
}
END_TEST

START_TEST(test_links_and_neighbors)
{
    temu_machine m = test_machine("gemini:4x4x4");
    int32_t c[3] = {0, 0, 0};
    int64_t r0 = temu_router_index(&m, c);
    ck_assert_str_eq(temu_link_name(&m, TEMU_LINK_PLUS(0)), "X+");
    ck_assert_str_eq(temu_link_name(&m, TEMU_LINK_MINUS(2)), "Z-");
    ck_assert_str_eq(temu_link_name(&m, 6), "HH");
    ck_assert_int_eq(temu_link_parse(&m, "Y+"), 3);
    ck_assert_int_eq(temu_link_parse(&m, "host"), 6);
    ck_assert_int_eq(temu_link_parse(&m, "Q+"), -1);
    c[0] = 3;
    ck_assert_int_eq(temu_link_neighbor(&m, r0, TEMU_LINK_MINUS(0)), temu_router_index(&m, c));
    ck_assert_int_eq(temu_link_neighbor(&m, r0, 6), -1); /* host port */

    temu_machine q = test_machine("bgq:4x4x4x4x2,torus=01111");
    ck_assert_str_eq(temu_link_name(&q, 0), "A-");
    ck_assert_str_eq(temu_link_name(&q, 9), "E+");
    ck_assert_str_eq(temu_link_name(&q, 10), "IO");
    ck_assert_int_eq(temu_link_neighbor(&q, 0, TEMU_LINK_MINUS(0)), -1); /* mesh edge */
    ck_assert_int_ge(temu_link_neighbor(&q, 0, TEMU_LINK_MINUS(1)), 0);  /* torus wraps */
    ck_assert_int_eq(temu_link_neighbor(&q, 0, 10), -1);

    temu_machine one = test_machine("gemini:1x2x2");
    ck_assert_int_eq(temu_link_neighbor(&one, 0, TEMU_LINK_PLUS(0)), -1); /* ring of one */
}
END_TEST

START_TEST(test_node_names)
{
    char buf[64];
    temu_machine c = test_machine("cielo");
    temu_node_name(&c, 0, buf, sizeof buf);
    ck_assert_str_eq(buf, "c0-0c0s0n0");
    temu_node_name(&c, 1, buf, sizeof buf);
    ck_assert_str_eq(buf, "c0-0c0s0n1");
    int32_t g[3] = {0, 1, 0}; /* second Gemini of the blade: g1, nodes n2 n3 */
    temu_node_name(&c, test_node(&c, g, 1), buf, sizeof buf);
    ck_assert_str_eq(buf, "c0-0c0s0n3");
    temu_router_name(&c, temu_router_index(&c, g), buf, sizeof buf);
    ck_assert_str_eq(buf, "c0-0c0s0g1");
    int32_t z[3] = {5, 4, 17}; /* column 5, row 2, cage 2, slot 1 */
    temu_router_name(&c, temu_router_index(&c, z), buf, sizeof buf);
    ck_assert_str_eq(buf, "c5-2c2s1g0");

    temu_machine q = test_machine("mira");
    temu_node_name(&q, 0, buf, sizeof buf);
    ck_assert_str_eq(buf, "R00-M0-N00-J00");
    int32_t a[5] = {0, 0, 0, 0, 1};
    temu_node_name(&q, temu_router_index(&q, a), buf, sizeof buf);
    ck_assert_str_eq(buf, "R00-M0-N00-J01");
    int32_t b[5] = {0, 0, 0, 4, 0}; /* next midplane along D */
    temu_node_name(&q, temu_router_index(&q, b), buf, sizeof buf);
    ck_assert_str_eq(buf, "R00-M1-N00-J00");
    ck_assert_int_eq(temu_node_name(&q, q.nnodes, buf, sizeof buf), 1); /* "?" */
}
END_TEST

START_TEST(test_describe_and_presets)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    temu_machine m = test_machine("mira");
    temu_machine_describe(&m, f);
    temu_machine_list_presets(f);
    fclose(f);
    ck_assert_ptr_nonnull(strstr(text, "dimension order C D B A E"));
    ck_assert_ptr_nonnull(strstr(text, "49152"));
    ck_assert_ptr_nonnull(strstr(text, "cielo"));
    ck_assert_ptr_nonnull(strstr(text, "gemini:16x12x24"));
    free(text);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("machine");
    TCase *tc = tcase_create("machine");
    tcase_add_test(tc, test_presets_shapes);
    tcase_add_test(tc, test_system_facts);
    tcase_add_test(tc, test_torus_flags_and_names);
    tcase_add_test(tc, test_malformed_specs);
    tcase_add_test(tc, test_bgq_dim_order);
    tcase_add_test(tc, test_coords_roundtrip);
    tcase_add_test(tc, test_links_and_neighbors);
    tcase_add_test(tc, test_node_names);
    tcase_add_test(tc, test_describe_and_presets);
    suite_add_tcase(s, tc);
    return test_run(s);
}
