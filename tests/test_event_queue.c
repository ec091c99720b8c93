/*
 * test_event_queue.c - the timing model's event queue (emu/event_queue.c).
 *
 * The model's results depend on the order of its events: by time, and
 * events of equal time by their content (type, then a, b, c as unsigned
 * numbers), never by the order they were pushed.  Asserted here against
 * an order computed independently (the least (time, content) of the events
 * pushed and not yet popped) for schedules that stay on the wheel (< 1.05
 * us ahead), that go far beyond it, that mix both, with many ties, with
 * pops bounded by a time limit and with pushes at a time later than the
 * last pop (the model's clock moves on to a run's limit without an event);
 * and directly: one set of events pushed in several orders pops the same.
 */
#include "testutil.h"

#include "../emu/event_queue.h"

#include <stdint.h>

/* (t, type, a, b, c), the arguments compared as unsigned numbers */
static int ref_cmp(const void *x, const void *y)
{
    const temu_event *a = x, *b = y;
    if (a->t != b->t) {
        return a->t < b->t ? -1 : 1;
    }
    const uint32_t ka[4] = {(uint32_t)a->type, (uint32_t)a->a, (uint32_t)a->b, (uint32_t)a->c};
    const uint32_t kb[4] = {(uint32_t)b->type, (uint32_t)b->a, (uint32_t)b->b, (uint32_t)b->c};
    for (int i = 0; i < 4; i++) {
        if (ka[i] != kb[i]) {
            return ka[i] < kb[i] ? -1 : 1;
        }
    }
    return 0;
}

static uint64_t rng(uint64_t *s)
{
    *s = *s * 6364136223846793005ull + 1442695040888963407ull;
    return *s >> 17;
}

/* An event at t whose content does not follow its push number id: a
 * small type, a and b drawn, c the push number.  neg: a may be negative
 * (a huge unsigned number: the queue's slow path, event_queue.c's
 * KEY_ARG); else a is small (its fast path, sort numbers). */
static temu_event content(uint64_t *s, int64_t t, int32_t id, int neg)
{
    int32_t type = (int32_t)(rng(s) % 4), a = (int32_t)(rng(s) % 7) - (neg ? 3 : 0);
    temu_event e = {t, type, a, (int32_t)(rng(s) % 5), id};
    return e;
}

static void assert_same_event(const temu_event *x, const temu_event *y)
{
    ck_assert_int_eq(x->t, y->t);
    ck_assert_int_eq(x->type, y->type);
    ck_assert_int_eq(x->a, y->a);
    ck_assert_int_eq(x->b, y->b);
    ck_assert_int_eq(x->c, y->c);
}

/* Random schedule: pushes `ahead(rng)` ps after a clock, pops in between;
 * every pop must return the least (t, content) of the events pushed and
 * not yet popped, which the reference array (kept sorted) gives. */
static void check_schedule(uint64_t seed, int64_t span, int tie_percent, int64_t lag)
{
    temu_evq q;
    enum { N = 20000 };
    temu_event *ref = malloc(N * sizeof *ref);
    int32_t nref = 0, pushed = 0, popped = 0;
    int64_t now = 0;
    uint64_t s = seed;
    temu_evq_init(&q);
    while (pushed < N || nref > 0) {
        if (pushed < N && (nref == 0 || rng(&s) % 3 != 0)) {
            int64_t ahead = (int64_t)(rng(&s) % 100) < tie_percent ? 0 : (int64_t)(rng(&s) % span);
            temu_event e = content(&s, now + ahead, pushed, (int)(seed & 1));
            ck_assert_int_eq(temu_evq_push(&q, &e), 0);
            /* insert into the sorted reference */
            int32_t i = nref++;
            while (i > 0 && ref_cmp(&ref[i - 1], &e) > 0) {
                ref[i] = ref[i - 1];
                i--;
            }
            ref[i] = e;
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
        assert_same_event(&e, &ref[0]);
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

/* Push ev[order[0]], ev[order[1]], ... (all before any pop), then pop
 * everything into out. */
static void push_in_order(const temu_event *ev, const int32_t *order, int32_t n, temu_event *out)
{
    temu_evq q;
    temu_evq_init(&q);
    for (int32_t i = 0; i < n; i++) {
        ck_assert_int_eq(temu_evq_push(&q, &ev[order[i]]), 0);
    }
    for (int32_t i = 0; i < n; i++) {
        ck_assert_int_eq(temu_evq_pop(&q, INT64_MAX, &out[i]), 1);
    }
    ck_assert_int_eq(temu_evq_pop(&q, INT64_MAX, &out[0]), 0);
    temu_evq_free(&q);
}

/* One set of events, with ties at a few instants on the wheel and beyond
 * it, pushed in order, reversed and shuffled (fixed seeds): the pops are
 * the same, and they are the set sorted by (time, content).  _i: 0 the
 * fast path, 1 the slow (content's neg). */
START_TEST(test_push_order_does_not_matter)
{
    enum { N = 3000 };
    static const int64_t instants[] = {0, 1, 7, 1000, 999999, 1048576, 5000000, 40000000000};
    temu_event *ev = malloc(N * sizeof *ev), *first = malloc(N * sizeof *first);
    temu_event *out = malloc(N * sizeof *out);
    int32_t *order = malloc(N * sizeof *order);
    uint64_t s = 11;
    for (int32_t i = 0; i < N; i++) {
        ev[i] = content(&s, instants[rng(&s) % 8], i, _i);
        order[i] = i;
    }
    push_in_order(ev, order, N, first);
    memcpy(out, ev, N * sizeof *ev);
    qsort(out, N, sizeof *out, ref_cmp);
    for (int32_t i = 0; i < N; i++) {
        assert_same_event(&first[i], &out[i]);
    }
    for (int32_t i = 0; i < N; i++) {
        order[i] = N - 1 - i;
    }
    push_in_order(ev, order, N, out);
    for (int32_t i = 0; i < N; i++) {
        assert_same_event(&out[i], &first[i]);
    }
    for (uint64_t seed = 1; seed <= 3; seed++) {
        uint64_t r = seed;
        for (int32_t i = N - 1; i > 0; i--) { /* Fisher-Yates */
            int32_t j = (int32_t)(rng(&r) % (uint64_t)(i + 1)), k = order[i];
            order[i] = order[j];
            order[j] = k;
        }
        push_in_order(ev, order, N, out);
        for (int32_t i = 0; i < N; i++) {
            assert_same_event(&out[i], &first[i]);
        }
    }
    free(ev);
    free(first);
    free(out);
    free(order);
}
END_TEST

/* Events pushed at the current time while its ties are being popped join
 * them in content order: here, after popping the first of three ties,
 * one that sorts between the other two. */
START_TEST(test_push_at_the_current_time)
{
    temu_evq q;
    temu_event e;
    temu_evq_init(&q);
    const temu_event x = {50, 1, 9, 0, 0}, y = {50, 1, 3, 0, 0}, z = {50, 0, 5, 0, 0},
                     w = {50, 1, 4, 0, 0}, v = {50, 0, 1, 0, 0};
    ck_assert_int_eq(temu_evq_push(&q, &x), 0);
    ck_assert_int_eq(temu_evq_push(&q, &y), 0);
    ck_assert_int_eq(temu_evq_push(&q, &z), 0);
    ck_assert_int_eq(temu_evq_pop(&q, 50, &e), 1);
    assert_same_event(&e, &z);
    ck_assert_int_eq(temu_evq_push(&q, &w), 0);
    ck_assert_int_eq(temu_evq_next_time(&q), 50);
    ck_assert_int_eq(q.size, 3);
    ck_assert_int_eq(temu_evq_pop(&q, 49, &e), 0);
    ck_assert_int_eq(temu_evq_pop(&q, 50, &e), 1);
    assert_same_event(&e, &y);
    /* a type 0 event now comes before the rest of type 1 */
    ck_assert_int_eq(temu_evq_push(&q, &v), 0);
    ck_assert_int_eq(temu_evq_pop(&q, 50, &e), 1);
    assert_same_event(&e, &v);
    ck_assert_int_eq(temu_evq_pop(&q, 50, &e), 1);
    assert_same_event(&e, &w);
    ck_assert_int_eq(temu_evq_pop(&q, 50, &e), 1);
    assert_same_event(&e, &x);
    ck_assert_int_eq(temu_evq_pop(&q, INT64_MAX, &e), 0);
    ck_assert_int_eq(q.size, 0);
    temu_evq_free(&q);
}
END_TEST

/* One instant of N events, each a distinct content but for a run of
 * equal type and a (differing in b) at the end, pushed as blocks of 32
 * each in content order: blocks in order (every merge finds its two runs
 * in order already), blocks in reverse (none does), and blocks in order
 * but the last two swapped.  The pops are the contents in order, the
 * equal type-and-a run by b. */
START_TEST(test_instant_of_sorted_blocks)
{
    enum { N = 200, BLOCK = 32, TIES = 5 };
    temu_event ev[N], e;
    int32_t order[N];
    for (int32_t i = 0; i < N; i++) {
        int32_t tie = i >= N - TIES;
        ev[i] = (temu_event){77, 2 + i / 100, tie ? 99 : i % 100, tie ? i : 0, 0};
    }
    for (int arrangement = 0; arrangement < 3; arrangement++) {
        int32_t nblocks = (N + BLOCK - 1) / BLOCK;
        for (int32_t b = 0, k = 0; b < nblocks; b++) {
            int32_t from = arrangement == 1 ? nblocks - 1 - b : b;
            if (arrangement == 2 && b >= nblocks - 2) {
                from = 2 * nblocks - 3 - b; /* the last two blocks swapped */
            }
            for (int32_t i = from * BLOCK; i < N && i < (from + 1) * BLOCK; i++) {
                order[k++] = i;
            }
        }
        temu_evq q;
        temu_evq_init(&q);
        for (int32_t i = 0; i < N; i++) {
            ck_assert_int_eq(temu_evq_push(&q, &ev[order[i]]), 0);
        }
        for (int32_t i = 0; i < N; i++) {
            ck_assert_int_eq(temu_evq_pop(&q, INT64_MAX, &e), 1);
            assert_same_event(&e, &ev[i]);
        }
        ck_assert_int_eq(temu_evq_pop(&q, INT64_MAX, &e), 0);
        temu_evq_free(&q);
    }
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
    tcase_add_loop_test(tc, test_push_order_does_not_matter, 0, 2);
    tcase_add_test(tc, test_push_at_the_current_time);
    tcase_add_test(tc, test_instant_of_sorted_blocks);
    tcase_add_test(tc, test_empty_queue);
    suite_add_tcase(s, tc);
    return test_run(s);
}
