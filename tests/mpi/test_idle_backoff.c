/*
 * test_idle_backoff.c - the waiting policy of mpi/vt_idle.c
 * (mpi/idle_backoff.h): a streak of calls yields 32 times, then sleeps 2 us
 * longer at each call up to 200 us; a pause between calls starts a new
 * streak, and so does a completed MPI call (tmpi_idle_restart); a sleep
 * inside the streak does not end it; a streak of 50 ms sleeps up to 2 ms.
 */
#include "idle_backoff.h"

#include <check.h>
#include <stdlib.h>

/* n calls 1 us apart from host time *t on; *t ends after the last */
static void calls(tmpi_idle *s, int64_t *t, int n)
{
    for (int i = 0; i < n; i++) {
        tmpi_idle_sleep_ns(s, *t);
        *t += 1000;
    }
}

START_TEST(streak_yields_then_sleeps)
{
    tmpi_idle s = {0, 0, 0};
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
    tmpi_idle s = {0, 0, 0};
    int64_t t = 5000000000ll;
    calls(&s, &t, 40);
    ck_assert_int_gt(tmpi_idle_sleep_ns(&s, t), 0);
    /* 2 ms is still the streak, more is a new wait: yields again */
    t += 2000000;
    ck_assert_int_gt(tmpi_idle_sleep_ns(&s, t), 0);
    t += 2000001;
    ck_assert_int_eq(tmpi_idle_sleep_ns(&s, t), 0);
    ck_assert_int_eq(s.streak, 1);
}
END_TEST

/* A rank that waits in every step of a loop (GPCNeT's ring: MPI_Waitall)
 * calls less than 2 ms apart: each completed call starts a new wait, which
 * yields before it sleeps instead of sleeping 200 us at once. */
START_TEST(completed_call_starts_a_new_streak)
{
    tmpi_idle s = {0, 0, 0};
    int64_t t = 7000000000ll;
    calls(&s, &t, 200);
    ck_assert_int_eq(tmpi_idle_sleep_ns(&s, t), 200000);
    tmpi_idle_restart(&s);
    t += 1000;
    ck_assert_int_eq(tmpi_idle_sleep_ns(&s, t), 0);
    ck_assert_int_eq(s.streak, 1);
}
END_TEST

/* A rank idle through another group's test: after 50 ms of its streak the
 * sleeps grow on, 2 us a call, up to 2 ms. */
START_TEST(long_wait_sleeps_longer)
{
    tmpi_idle s = {0, 0, 0};
    int64_t t = 3000000000ll, start = t;
    while (t - start < 50000000ll - 300000ll) {
        ck_assert_int_le(tmpi_idle_sleep_ns(&s, t), 200000);
        t += 300000; /* each call about a 200 us sleep after the last */
    }
    t = start + 50000000ll;
    uint32_t k = s.streak + 1; /* this call's place in the streak */
    ck_assert_int_eq(tmpi_idle_sleep_ns(&s, t), (int64_t)(k - 32) * 2000);
    ck_assert_int_gt((int64_t)(k - 32) * 2000, 200000);
    t += 1000;
    calls(&s, &t, 2000);
    ck_assert_int_eq(tmpi_idle_sleep_ns(&s, t), 2000000);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("idle-backoff");
    TCase *tc = tcase_create("policy");
    tcase_add_test(tc, streak_yields_then_sleeps);
    tcase_add_test(tc, pause_starts_a_new_streak);
    tcase_add_test(tc, completed_call_starts_a_new_streak);
    tcase_add_test(tc, long_wait_sleeps_longer);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
