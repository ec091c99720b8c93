/*
 * test_route_step - the packet model's table of deterministic routes along
 * one dimension (emu/packet/routing.h, tm_route_step, filled by model.c)
 * holds for every dimension, origin and destination what
 * temu_route_dim_steps (emu/route.c) gives: the hops, their direction, and
 * whether they cross the wrap link; on a torus (BG/Q 4x4x4x4x2, with the
 * tie of a ring of 4 and the ring of 2), with a dimension made a mesh, and
 * with a dimension too long to tabulate (computed hop by hop then).
 */
#define TEMU_BUILDING_LIBRARY 1
#include "../emu/packet/routing.h"
#include "testutil.h"

/* The model of machine spec, dimension `mesh` made a mesh (-1: none). */
static temu_tm *model_of(const char *spec, int mesh, temu_machine *m)
{
    temu_error err;
    temu_tm_config c;
    temu_tm *t = NULL;
    ck_assert_msg(temu_machine_parse(spec, m, &err) == TEMU_OK, "%s", err.message);
    if (mesh >= 0) {
        m->torus[mesh] = 0;
    }
    ck_assert_msg(temu_tm_config_default(m, &c, &err) == TEMU_OK, "%s", err.message);
    ck_assert_msg(temu_tm_create(m, &c, &t, &err) == TEMU_OK, "%s", err.message);
    return t;
}

/* Every code of t's dimensions against temu_route_dim_steps; the number
 * of pairs whose route crosses the wrap link. */
static int64_t check_codes(const temu_tm *t, const temu_machine *m)
{
    int64_t wrapping = 0;
    for (int d = 0; d < m->ndims; d++) {
        for (int32_t from = 0; from < m->size[d]; from++) {
            for (int32_t to = 0; to < m->size[d]; to++) {
                int dir;
                uint32_t hops = (uint32_t)temu_route_dim_steps(m, d, from, to, &dir);
                uint32_t code = tm_route_step(t, d, from, to);
                int wraps = (dir > 0 && to < from) || (dir < 0 && to > from);
                ck_assert_uint_eq(code & TM_STEP_HOPS, hops);
                ck_assert_int_eq((code & TM_STEP_MINUS) != 0, dir < 0);
                ck_assert_int_eq((code & TM_STEP_WRAPS) != 0, wraps);
                wrapping += wraps;
            }
        }
    }
    return wrapping;
}

START_TEST(test_torus_table)
{
    temu_machine m;
    temu_tm *t = model_of("bgq:4x4x4x4x2", -1, &m);
    ck_assert_ptr_nonnull(t->dim_step);
    /* pairs through the wrap link: on a ring of 4, 0->3 (minus), 3->0,
     * 3->1 and 2->0 (plus; 3->1 and 2->0 the ties); on the ring of 2,
     * 1->0 (the tie: plus) */
    ck_assert_int_eq(check_codes(t, &m), 4 * 4 + 1);
    temu_tm_destroy(t);
}
END_TEST

START_TEST(test_mesh_dimension)
{
    temu_machine m;
    temu_tm *t = model_of("bgp:8x8x8", 1, &m);
    ck_assert_ptr_nonnull(t->dim_step);
    check_codes(t, &m);
    temu_tm_destroy(t);
}
END_TEST

START_TEST(test_dimension_too_long)
{
    temu_machine m;
    temu_tm *t = model_of("bgp:72x2x2", -1, &m);
    ck_assert_ptr_null(t->dim_step);
    check_codes(t, &m);
    temu_tm_destroy(t);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("route-step");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, test_torus_table);
    tcase_add_test(tc, test_mesh_dimension);
    tcase_add_test(tc, test_dimension_too_long);
    suite_add_tcase(s, tc);
    return test_run(s);
}
