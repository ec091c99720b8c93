/*
 * test_idle_backoff.c - the waiting policy of mpi/vt_idle.c
 * (mpi/idle_backoff.h): a streak of calls yields 32 times, then sleeps 2 us
 * longer at each call up to 200 us; a pause between calls starts a new
 * streak; a sleep inside the streak does not end it.
 */
#include "idle_backoff.h"

#include <check.h>
#include <stdlib.h>

START_TEST(streak_yields_then_sleeps)
{
    tmpi_idle s = {0, 0};
    int64_t t = 10000000000ll; /* host ns, any start */
    for (int i = 0; i < 32; i++) {
        ck_assert_int_eq(tmpi_idle_sleep_ns(&s, t), 0);
        t += 1000;
    }
    ck_assert_int_eq(tmpi_idle_sleep_ns(&s, t), 2000);
    tmpi_idle_woke(&s, t + 2000 + 500);
    t += 2000 + 1000;
    ck_assert_int_eq(tmpi_idle_sleep_ns(&s, t), 4000);
    /* call 32 + 100 sleeps 200 us, and every later one as long */
    for (int i = 35; i <= 132; i++) {
        t += 1000;
        tmpi_idle_sleep_ns(&s, t);
    }
    ck_assert_int_eq(s.streak, 132);
    t += 1000;
    ck_assert_int_eq(tmpi_idle_sleep_ns(&s, t), 200000);
    t += 1000;
    ck_assert_int_eq(tmpi_idle_sleep_ns(&s, t), 200000);
}
END_TEST

START_TEST(pause_starts_a_new_streak)
{
    tmpi_idle s = {0, 0};
    int64_t t = 5000000000ll;
    for (int i = 0; i < 40; i++) {
        tmpi_idle_sleep_ns(&s, t);
        t += 1000;
    }
    ck_assert_int_gt(tmpi_idle_sleep_ns(&s, t), 0);
    /* 2 ms is still the streak, more is a new wait: yields again */
    t += 2000000;
    ck_assert_int_gt(tmpi_idle_sleep_ns(&s, t), 0);
    t += 2000001;
    ck_assert_int_eq(tmpi_idle_sleep_ns(&s, t), 0);
    ck_assert_int_eq(s.streak, 1);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("idle-backoff");
    TCase *tc = tcase_create("policy");
    tcase_add_test(tc, streak_yields_then_sleeps);
    tcase_add_test(tc, pause_starts_a_new_streak);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
