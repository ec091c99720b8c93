/*
 * test_flow_keep - the credit returns an input queue keeps without a
 * CREDIT event (emu/packet/flow.h, tm_flow_keep and tm_flow_fold): up to
 * TM_BACK_SLOTS of them, in time order whatever order they were kept in,
 * each added to the queue's credit once its time has come, and none lost
 * or taken twice.
 */
#define TEMU_BUILDING_LIBRARY 1
#include "../emu/packet/flow.h"
#include "testutil.h"

#include <string.h>

/* A queue with `credit` bytes and nothing kept. */
static tm_queue queue_with(int64_t credit)
{
    tm_queue q;
    memset(&q, 0, sizeof q);
    q.credit = credit;
    return q;
}

START_TEST(test_two_kept_in_time_order)
{
    tm_queue q = queue_with(100);
    ck_assert_int_eq(TM_BACK_SLOTS, 2);
    /* kept later one first: the earlier one goes ahead of it */
    ck_assert_int_eq(tm_flow_keep(&q, 500, 7), 0);
    ck_assert_int_eq(tm_flow_keep(&q, 300, 5), 0);
    ck_assert_int_eq(q.back_at[0], 300);
    ck_assert_int_eq(q.back_bytes[0], 5);
    ck_assert_int_eq(q.back_at[1], 500);
    ck_assert_int_eq(q.back_bytes[1], 7);
    /* no room for a third: the caller makes it an event */
    ck_assert_int_eq(tm_flow_keep(&q, 400, 9), -1);
    ck_assert_int_eq(q.back_bytes[0] + q.back_bytes[1], 12);
}
END_TEST

START_TEST(test_fold_takes_what_is_back)
{
    tm_queue q = queue_with(100);
    ck_assert_int_eq(tm_flow_keep(&q, 300, 5), 0);
    ck_assert_int_eq(tm_flow_keep(&q, 500, 7), 0);
    /* before either: nothing back */
    ck_assert_int_eq(tm_flow_fold(&q, 299), 1);
    ck_assert_int_eq(q.credit, 100);
    /* at the first's time: it alone, and the second moves up */
    ck_assert_int_eq(tm_flow_fold(&q, 300), 1);
    ck_assert_int_eq(q.credit, 105);
    ck_assert_int_eq(q.back_at[0], 500);
    ck_assert_int_eq(q.back_bytes[0], 7);
    ck_assert_int_eq(q.back_bytes[1], 0);
    /* room again, and a new one after the kept one */
    ck_assert_int_eq(tm_flow_keep(&q, 600, 11), 0);
    ck_assert_int_eq(q.back_at[1], 600);
    /* both back: all of it once, nothing kept after */
    ck_assert_int_eq(tm_flow_fold(&q, 1000), 0);
    ck_assert_int_eq(q.credit, 123);
    ck_assert_int_eq(tm_flow_fold(&q, 2000), 0);
    ck_assert_int_eq(q.credit, 123);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("flow-keep");
    TCase *tc = tcase_create("kept returns");
    tcase_add_test(tc, test_two_kept_in_time_order);
    tcase_add_test(tc, test_fold_takes_what_is_back);
    suite_add_tcase(s, tc);
    return test_run(s);
}
