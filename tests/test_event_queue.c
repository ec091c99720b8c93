/*
 * test_event_queue.c - the timing model's event queue (emu/event_queue.c).
 *
 * The model's results depend on the order of its events: by time, and
 * events of equal time in the order they were scheduled.  Asserted here
 * against an order computed independently (qsort by time, then by push
 * number) for schedules that stay on the wheel (< 1.05 us ahead), that go
 * far beyond it, that mix both, with many ties, with pops bounded by a
 * time limit and with pushes at a time later than the last pop (the
 * model's clock moves on to a run's limit without an event).
 */
#include "testutil.h"

#include "../emu/event_queue.h"

#include <stdint.h>

typedef struct ref_event {
    int64_t t;
    int32_t id; /* push number */
} ref_event;

static int ref_cmp(const void *x, const void *y)
{
    const ref_event *a = x, *b = y;
    if (a->t != b->t) {
        return a->t < b->t ? -1 : 1;
    }
    return a->id < b->id ? -1 : a->id > b->id;
}

static uint64_t rng(uint64_t *s)
{
    *s = *s * 6364136223846793005ull + 1442695040888963407ull;
    return *s >> 17;
}

/* Random schedule: pushes `ahead(rng)` ps after a clock, pops in between;
 * every pop must return the least (t, id) of the events pushed and not
 * yet popped, which the reference array (kept sorted) gives. */
static void check_schedule(uint64_t seed, int64_t span, int tie_percent, int64_t lag)
{
    temu_evq q;
    enum { N = 20000 };
    ref_event *ref = malloc(N * sizeof *ref);
    int32_t nref = 0, pushed = 0, popped = 0;
    int64_t now = 0;
    uint64_t s = seed;
    temu_evq_init(&q);
    while (pushed < N || nref > 0) {
        if (pushed < N && (nref == 0 || rng(&s) % 3 != 0)) {
            int64_t ahead = (int64_t)(rng(&s) % 100) < tie_percent ? 0 : (int64_t)(rng(&s) % span);
            temu_event e = {now + ahead, 7, pushed, 0, 0};
            ck_assert_int_eq(temu_evq_push(&q, &e), 0);
            /* insert into the sorted reference (after equal times) */
            int32_t i = nref++;
            while (i > 0 && ref_cmp(&ref[i - 1], &(ref_event){e.t, pushed}) > 0) {
                ref[i] = ref[i - 1];
                i--;
            }
            ref[i] = (ref_event){e.t, pushed};
            pushed++;
            continue;
        }
        /* a bounded pop first: nothing at or before the earliest time - 1 */
        temu_event e;
        ck_assert_int_eq(temu_evq_next_time(&q), ref[0].t);
        if (ref[0].t > now) {
            ck_assert_int_eq(temu_evq_pop(&q, ref[0].t - 1, &e), 0);
        }
        ck_assert_int_eq(temu_evq_pop(&q, ref[0].t, &e), 1);
        ck_assert_int_eq(e.t, ref[0].t);
        ck_assert_int_eq(e.a, ref[0].id);
        ck_assert_int_eq(e.type, 7);
        memmove(ref, ref + 1, (size_t)--nref * sizeof *ref);
        popped++;
        /* the clock: the event's time, or later (a run's limit) */
        now = e.t + (lag > 0 ? (int64_t)(rng(&s) % (uint64_t)lag) : 0);
        ck_assert_int_eq(q.size, nref);
    }
    ck_assert_int_eq(popped, N);
    ck_assert_int_eq(temu_evq_next_time(&q), INT64_MAX);
    temu_event e;
    ck_assert_int_eq(temu_evq_pop(&q, INT64_MAX, &e), 0);
    temu_evq_free(&q);
    free(ref);
}

START_TEST(test_near_schedule)
{
    check_schedule(1, 50000, 10, 0); /* within the wheel: router, wire, credit times */
}
END_TEST

START_TEST(test_far_schedule)
{
    check_schedule(2, 40000000000, 5, 0); /* up to 40 ms ahead: the far part */
}
END_TEST

START_TEST(test_mixed_schedule_and_ties)
{
    check_schedule(3, 3000000, 30, 0);       /* about a third beyond the wheel */
    check_schedule(4, 3, 50, 0);             /* nearly all ties */
    check_schedule(5, 2500000, 10, 2000000); /* pushes after the clock moved on */
}
END_TEST

START_TEST(test_empty_queue)
{
    temu_evq q;
    temu_event e;
    temu_evq_init(&q);
    ck_assert_int_eq(temu_evq_next_time(&q), INT64_MAX);
    ck_assert_int_eq(temu_evq_pop(&q, INT64_MAX, &e), 0);
    /* a single far event, then an earlier near one pushed after it */
    temu_event far = {5000000, 1, 0, 0, 0}, near = {10, 2, 1, 0, 0};
    ck_assert_int_eq(temu_evq_push(&q, &far), 0);
    ck_assert_int_eq(temu_evq_push(&q, &near), 0);
    ck_assert_int_eq(temu_evq_next_time(&q), 10);
    ck_assert_int_eq(temu_evq_pop(&q, 9, &e), 0);
    ck_assert_int_eq(temu_evq_pop(&q, INT64_MAX, &e), 1);
    ck_assert_int_eq(e.type, 2);
    ck_assert_int_eq(temu_evq_pop(&q, 4999999, &e), 0);
    ck_assert_int_eq(temu_evq_pop(&q, INT64_MAX, &e), 1);
    ck_assert_int_eq(e.type, 1);
    ck_assert_int_eq(e.t, 5000000);
    temu_evq_free(&q);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("event-queue");
    TCase *tc = tcase_create("order");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_near_schedule);
    tcase_add_test(tc, test_far_schedule);
    tcase_add_test(tc, test_mixed_schedule_and_ties);
    tcase_add_test(tc, test_empty_queue);
    suite_add_tcase(s, tc);
    return test_run(s);
}
