/*
 * test_mapping.c - rank-to-node placement and map files.
 */
#include "testutil.h"

static void coords_of(const temu_machine *m, const temu_mapping *map, int rank, int32_t *c)
{
    temu_router_coords(m, map->slot[rank].node / m->nodes_per_router, c);
}

static void expect_coords(const temu_machine *m, const temu_mapping *map, int rank,
                          const int32_t *want, int t)
{
    int32_t c[5];
    coords_of(m, map, rank, c);
    for (int d = 0; d < m->ndims; d++) {
        ck_assert_msg(c[d] == want[d], "rank %d dim %d: got %d want %d", rank, d, c[d], want[d]);
    }
    ck_assert_int_eq(map->slot[rank].t, t);
}

START_TEST(test_bgq_default_abcdet)
{
    /* McCraw 2013 Table 5(a): midplane, 16 ranks per node, 16x512 grid; rank
     * 512 sits on <0,1,0,0,0,0>, 2048 on <1,0,0,0,0,0> */
    temu_machine m = test_machine("midplane");
    temu_mapping map;
    temu_error err;
    ck_assert_int_eq(temu_mapping_build(&m, 8192, 16, NULL, &map, &err), TEMU_OK);
    int32_t r0[5] = {0, 0, 0, 0, 0}, r16[5] = {0, 0, 0, 0, 1}, r32[5] = {0, 0, 0, 1, 0};
    int32_t r512[5] = {0, 1, 0, 0, 0}, r2048[5] = {1, 0, 0, 0, 0}, r7680[5] = {3, 3, 0, 0, 0};
    expect_coords(&m, &map, 0, r0, 0);
    expect_coords(&m, &map, 1, r0, 1);
    expect_coords(&m, &map, 16, r16, 0);
    expect_coords(&m, &map, 32, r32, 0);
    expect_coords(&m, &map, 512, r512, 0);
    expect_coords(&m, &map, 2048, r2048, 0);
    expect_coords(&m, &map, 7680, r7680, 0);
    temu_mapping_free(&map);
    /* one rank per node: rank 1 -> <0,0,0,0,1>, rank 2 -> <0,0,0,1,0> (McCraw 2013) */
    ck_assert_int_eq(temu_mapping_build(&m, 4, 1, "ABCDET", &map, &err), TEMU_OK);
    int32_t e1[5] = {0, 0, 0, 0, 1}, d1[5] = {0, 0, 0, 1, 0};
    expect_coords(&m, &map, 1, e1, 0);
    expect_coords(&m, &map, 2, d1, 0);
    temu_mapping_free(&map);
}
END_TEST

START_TEST(test_bgq_permutations)
{
    temu_machine m = test_machine("midplane");
    temu_mapping map;
    temu_error err;
    ck_assert_int_eq(temu_mapping_build(&m, 64, 4, "TEDCBA", &map, &err), TEMU_OK);
    int32_t a1[5] = {1, 0, 0, 0, 0}, b1[5] = {0, 1, 0, 0, 0};
    expect_coords(&m, &map, 1, a1, 0); /* A varies fastest */
    expect_coords(&m, &map, 4, b1, 0);
    temu_mapping_free(&map);
    ck_assert_int_eq(temu_mapping_build(&m, 64, 4, "ABCTDE", &map, &err), TEMU_OK);
    int32_t e1[5] = {0, 0, 0, 0, 1}, t1[5] = {0, 0, 0, 0, 0};
    expect_coords(&m, &map, 1, e1, 0);
    expect_coords(&m, &map, 8, t1, 1); /* T after D and E (4*2 = 8) */
    temu_mapping_free(&map);
}
END_TEST

START_TEST(test_bgp_and_gemini_defaults)
{
    temu_machine p = test_machine("bgp-midplane");
    temu_mapping map;
    temu_error err;
    ck_assert_int_eq(temu_mapping_build(&p, 16, 2, NULL, &map, &err), TEMU_OK);
    int32_t x1[3] = {1, 0, 0}, y1[3] = {0, 1, 0};
    expect_coords(&p, &map, 1, x1, 0); /* XYZT: X fastest */
    expect_coords(&p, &map, 8, y1, 0);
    temu_mapping_free(&map);
    ck_assert_int_eq(temu_mapping_build(&p, 16, 2, "TXYZ", &map, &err), TEMU_OK);
    int32_t o[3] = {0, 0, 0};
    expect_coords(&p, &map, 1, o, 1); /* T first: both ranks on one node */
    expect_coords(&p, &map, 2, x1, 0);
    temu_mapping_free(&map);

    temu_machine g = test_machine("gemini-small");
    ck_assert_int_eq(temu_mapping_build(&g, 40, 16, NULL, &map, &err), TEMU_OK);
    ck_assert_int_eq(map.slot[0].node, 0);
    ck_assert_int_eq(map.slot[17].node, 1); /* second node of Gemini 0 */
    ck_assert_int_eq(map.slot[17].t, 1);
    ck_assert_int_eq(map.slot[32].node, 2); /* first node of Gemini (0,0,1) */
    temu_mapping_free(&map);
}
END_TEST

START_TEST(test_random_placement)
{
    temu_machine m = test_machine("midplane");
    temu_mapping a, b, c, d;
    temu_error err;
    ck_assert_int_eq(temu_mapping_build(&m, 256, 2, "random:7", &a, &err), TEMU_OK);
    ck_assert_int_eq(temu_mapping_build(&m, 256, 2, "random:7", &b, &err), TEMU_OK);
    ck_assert_int_eq(temu_mapping_build(&m, 256, 2, "random:8", &c, &err), TEMU_OK);
    ck_assert_int_eq(temu_mapping_build(&m, 256, 2, NULL, &d, &err), TEMU_OK);
    ck_assert_mem_eq(a.slot, b.slot, 256 * sizeof(temu_slot));
    ck_assert_int_ne(memcmp(a.slot, c.slot, 256 * sizeof(temu_slot)), 0);
    /* a permutation of the default slots */
    int seen[256] = {0};
    for (int r = 0; r < 256; r++) {
        int found = 0;
        for (int k = 0; k < 256; k++) {
            if (d.slot[k].node == a.slot[r].node && d.slot[k].t == a.slot[r].t) {
                ck_assert_int_eq(seen[k], 0);
                seen[k] = found = 1;
            }
        }
        ck_assert_int_eq(found, 1);
    }
    temu_mapping_free(&a);
    temu_mapping_free(&b);
    temu_mapping_free(&c);
    temu_mapping_free(&d);
    ck_assert_int_eq(temu_mapping_build(&m, 4, 1, "random:x", &a, &err), TEMU_EINVAL);
    ck_assert_ptr_nonnull(strstr(err.message, "decimal seed"));
    ck_assert_int_eq(temu_mapping_build(&m, 4, 1, "random:", &a, &err), TEMU_EINVAL);
}
END_TEST

static void expect_map_error(const temu_machine *m, int nranks, int rpn, const char *text,
                             temu_status st, const char *fragment)
{
    temu_mapping map;
    temu_error err;
    temu_status got = temu_mapping_parse_text(m, nranks, rpn, text, "t.map", &map, &err);
    ck_assert_msg(got == st, "map '%s': status %d, want %d (%s)", text, got, st, err.message);
    ck_assert_msg(strstr(err.message, fragment) != NULL, "map error '%s' lacks '%s'",
                  err.message, fragment);
    ck_assert_ptr_null(map.slot);
}

START_TEST(test_map_files)
{
    temu_machine m = test_machine("midplane");
    temu_mapping map;
    temu_error err;
    /* McCraw 2013 Table 5(b) style: a whole row on one node */
    const char *ok = "# A B C D E T\n0 0 0 0 0 0\n0 0 0 0 0 1\n\n0 0 0 0 1 0\n1 2 3 0 1 15\n";
    ck_assert_int_eq(temu_mapping_parse_text(&m, 4, 16, ok, "t.map", &map, &err), TEMU_OK);
    ck_assert_int_eq(map.slot[1].node, 0);
    ck_assert_int_eq(map.slot[1].t, 1);
    int32_t last[5] = {1, 2, 3, 0, 1};
    expect_coords(&m, &map, 3, last, 15);
    temu_mapping_free(&map);

    expect_map_error(&m, 2, 1, "0 0 0 0 0 0\n0 0 0 0 x 0\n", TEMU_EINVAL, "line 2: 'x'");
    expect_map_error(&m, 2, 1, "0 0 0 0 0 0\n0 0 0 0 0\n", TEMU_EINVAL,
                     "line 2: expected 6 numbers");
    expect_map_error(&m, 1, 1, "0 0 0 0 0 0 0\n", TEMU_EINVAL, "found more than 6");
    expect_map_error(&m, 1, 1, "4 0 0 0 0 0\n", TEMU_ERANGE, "line 1: A=4 is outside 0..3");
    expect_map_error(&m, 1, 1, "0 0 0 0 2 0\n", TEMU_ERANGE, "E=2");
    expect_map_error(&m, 1, 2, "0 0 0 0 0 2\n", TEMU_ERANGE, "line 1: T=2 is outside 0..1");
    expect_map_error(&m, 3, 2, "0 0 0 0 0 0\n# c\n0 0 0 0 0 1\n0 0 0 0 0 0\n", TEMU_EINVAL,
                     "line 4: slot already used");
    expect_map_error(&m, 3, 1, "0 0 0 0 0 0\n0 0 0 0 1 0\n", TEMU_EINVAL,
                     "places 2 ranks but the job has 3");
    expect_map_error(&m, 1, 1, "0 0 0 0 0 0\n0 0 0 0 1 0\n", TEMU_EINVAL,
                     "line 2: more lines than");
    expect_map_error(&m, 1, 1, "-1 0 0 0 0 0\n", TEMU_ERANGE, "A=-1");

    temu_machine g = test_machine("gemini-tiny");
    ck_assert_int_eq(
        temu_mapping_parse_text(&g, 2, 1, "1 1 1 1 0\n0 0 0 0 0\n", "g.map", &map, &err),
        TEMU_OK);
    ck_assert_int_eq(map.slot[0].node, 15); /* Gemini 7, second node */
    temu_mapping_free(&map);
    expect_map_error(&g, 1, 1, "0 0 0 2 0\n", TEMU_ERANGE, "node-in-Gemini N=2");
}
END_TEST

START_TEST(test_map_file_on_disk)
{
    temu_machine m = test_machine("bgp-16");
    temu_mapping map;
    temu_error err;
    char path[256];
    test_store_path(path, sizeof path, "map");
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fputs("3 1 1 0\n0 0 0 0\n", f);
    fclose(f);
    ck_assert_int_eq(temu_mapping_build(&m, 2, 1, path, &map, &err), TEMU_OK);
    ck_assert_int_eq(map.slot[0].node, 15);
    temu_mapping_free(&map);
    /* a NUL byte would end the text there: refused with its line and column */
    static const char nul[] = "3 1 1 0\n0 0\0 0 0\n";
    f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    ck_assert_uint_eq(fwrite(nul, 1, sizeof nul - 1, f), sizeof nul - 1);
    fclose(f);
    ck_assert_int_eq(temu_mapping_build(&m, 2, 1, path, &map, &err), TEMU_EINVAL);
    ck_assert_msg(strstr(err.message, "', line 2: a NUL byte (column 4): not a text file") != NULL,
                  "%s", err.message);
    ck_assert_ptr_nonnull(strstr(err.message, path));
    unlink(path);
    ck_assert_int_eq(temu_mapping_build(&m, 2, 1, path, &map, &err), TEMU_EIO);
    ck_assert_ptr_nonnull(strstr(err.message, "cannot open map file"));
}
END_TEST

START_TEST(test_bad_requests)
{
    temu_machine q = test_machine("nodeboard");
    temu_machine g = test_machine("gemini-tiny");
    temu_mapping map;
    temu_error err;
    ck_assert_int_eq(temu_mapping_build(&q, 33, 1, NULL, &map, &err), TEMU_ERANGE);
    ck_assert_ptr_nonnull(strstr(err.message, "33 ranks do not fit"));
    ck_assert_int_eq(temu_mapping_build(&q, 4, 3, NULL, &map, &err), TEMU_EINVAL);
    ck_assert_ptr_nonnull(strstr(err.message, "1, 2, 4, 8, 16, 32 or 64"));
    ck_assert_int_eq(temu_mapping_build(&q, 4, 128, NULL, &map, &err), TEMU_EINVAL);
    ck_assert_int_eq(temu_mapping_build(&q, 0, 1, NULL, &map, &err), TEMU_EINVAL);
    ck_assert_int_eq(temu_mapping_build(&q, 4, 1, "ABCDEE", &map, &err), TEMU_EINVAL);
    ck_assert_ptr_nonnull(strstr(err.message, "not a permutation of ABCDET"));
    ck_assert_int_eq(temu_mapping_build(&q, 4, 1, "XYZT", &map, &err), TEMU_EINVAL);
    ck_assert_int_eq(temu_mapping_build(&g, 4, 1, "XYZT", &map, &err), TEMU_EINVAL);
    ck_assert_ptr_nonnull(strstr(err.message, "Gemini machines"));
}
END_TEST

int main(void)
{
    Suite *s = suite_create("mapping");
    TCase *tc = tcase_create("mapping");
    tcase_add_test(tc, test_bgq_default_abcdet);
    tcase_add_test(tc, test_bgq_permutations);
    tcase_add_test(tc, test_bgp_and_gemini_defaults);
    tcase_add_test(tc, test_random_placement);
    tcase_add_test(tc, test_map_files);
    tcase_add_test(tc, test_map_file_on_disk);
    tcase_add_test(tc, test_bad_requests);
    suite_add_tcase(s, tc);
    return test_run(s);
}
