/*
 * test_timing_ties.c - the packet model's results do not depend on the
 * order in which the sends of one instant are made (doc/model.md, "Equal
 * times").
 *
 * The same traffic (at each instant, each node at most one train sent
 * now and one created later, with fixed tags) is given to the model with
 * each instant's sends made in node order, in reverse and shuffled with
 * fixed seeds (a node's own two in their order): every delivery (in order, with its times), every
 * hop told to the hop function (in order), the totals, the final time and every lane's statistics
 * must be byte-identical.  On Gemini (credits, tiles, messages over tile slots), BG/Q (tokens,
 * adaptive routing) and BG/P with trains, all loaded to contention so that ties abound.
 * The same on the parallel engine: 1, 2, 3 and 8 regions give the same
 * records, and its records do not depend on the order of sends either;
 * and its regions are slabs across the longest dimension.  A hop_now
 * function (temu_tm_set_hop_now) that takes the link hops on the regions'
 * threads gets exactly those, and the hop function the rest in order.
 */
#include "testutil.h"
#include "torusemu_timing.h"

#include <stdint.h>

/* Everything a run gave, in order. */
typedef struct record {
    int64_t *v; /* deliveries (tag, created, delivered), hops, then the rest */
    size_t n, cap;
    int64_t stall_ps; /* credit and input-queue stalls of all lanes */
    int links_apart;  /* link hops summed into links and link_sum, not into v */
    uint64_t links, link_sum; /* (atomic adds: from the regions' threads too) */
    uint64_t hops_now;        /* the engine's count of hops hop_now took */
} record;

/* Link hop h into r's order-free sums. */
static void link_add(record *r, const temu_tm_hop *h)
{
    uint64_t x = (uint64_t)h->start_ps * 31u + h->tag * 7u + (uint64_t)h->router * 5u +
                 (uint64_t)h->link * 3u + h->packets + h->bytes + (uint64_t)h->spacing_ps;
    __atomic_fetch_add(&r->links, 1, __ATOMIC_RELAXED);
    __atomic_fetch_add(&r->link_sum, x, __ATOMIC_RELAXED);
}

/* On a region's thread: the link hops only. */
static int on_hop_now(void *ctx, const temu_tm_hop *h)
{
    if (h->kind != TEMU_TM_HOP_LINK) {
        return 0;
    }
    link_add(ctx, h);
    return 1;
}

static void put(record *r, int64_t x)
{
    if (r->n == r->cap) {
        r->cap = r->cap ? 2 * r->cap : 4096;
        r->v = realloc(r->v, r->cap * sizeof *r->v);
        ck_assert_ptr_nonnull(r->v);
    }
    r->v[r->n++] = x;
}

static void on_delivery(void *ctx, uint64_t tag, int64_t created, int64_t delivered)
{
    record *r = ctx;
    put(r, (int64_t)tag);
    put(r, created);
    put(r, delivered);
}

static void on_hop(void *ctx, const temu_tm_hop *h)
{
    record *r = ctx;
    if (r->links_apart && h->kind == TEMU_TM_HOP_LINK) {
        link_add(r, h);
        return;
    }
    put(r, h->start_ps);
    put(r, h->spacing_ps);
    put(r, (int64_t)h->tag);
    put(r, (int64_t)h->packets);
    put(r, h->router);
    put(r, h->link);
    put(r, h->lane);
    put(r, h->vc_class);
}

static uint64_t rng(uint64_t *s)
{
    *s = *s * 6364136223846793005ull + 1442695040888963407ull;
    return *s >> 17;
}

/* One send of an instant. */
typedef struct send {
    int64_t when, src, dst;
    uint32_t bytes, cls, packets;
    uint64_t tag;
} send;

/* A traffic case: machine, configuration, load. */
typedef struct traffic {
    const char *spec;
    int routing;    /* 'd', 'a' or 'x' (the machine's default) */
    uint32_t train; /* train_packets */
    uint32_t packets;
    int messages; /* messages (temu_tm_send_message_dir, the request direction) */
    int64_t step_ps, span_ps;
} traffic;

static void make_send(temu_tm *t, const temu_machine *m, const traffic *tf, const send *s)
{
    temu_error err;
    temu_status st;
    if (tf->messages) {
        temu_message msg = {s->src, s->dst, (uint64_t)s->packets * s->bytes, NULL, TEMU_KIND_P2P};
        uint64_t pk = 0, by = 0;
        st = temu_tm_send_message_dir(t, s->when, m, &msg, 0, s->tag, &pk, &by, &err);
    } else {
        st = temu_tm_send_train(t, s->when, s->src, s->dst, s->bytes, s->packets, s->cls,
                                (uint32_t)s->src, s->tag, &err);
    }
    ck_assert_msg(st == TEMU_OK, "%s", err.message);
}

/* Shuffle the n sends of an instant as `order` says: 0 as made, 1
 * reversed, k >= 2 shuffled with seed k. */
static void reorder(send *sends, int64_t n, int order)
{
    if (order == 1) {
        for (int64_t i = 0; i < n / 2; i++) {
            send x = sends[i];
            sends[i] = sends[n - 1 - i];
            sends[n - 1 - i] = x;
        }
    } else if (order >= 2) {
        uint64_t r = (uint64_t)order;
        for (int64_t i = n - 1; i > 0; i--) { /* Fisher-Yates */
            int64_t j = (int64_t)(rng(&r) % (uint64_t)(i + 1));
            send x = sends[i];
            sends[i] = sends[j];
            sends[j] = x;
        }
    }
}

/* Run the traffic with each instant's sends in order `order` on the
 * engine of `threads` (0: the serial one); everything the model gave goes
 * into *r.  links: 0 every hop in order; 1 the link hops summed apart by
 * the hop function; 2 by a hop_now function. */
static void run_links(const traffic *tf, int order, uint32_t threads, int links, record *r)
{
    temu_machine m;
    temu_tm_config c;
    temu_tm *t;
    temu_error err;
    uint64_t s = 5, tag = 0;
    ck_assert(temu_machine_parse(tf->spec, &m, &err) == TEMU_OK);
    ck_assert(temu_tm_config_default(&m, &c, &err) == TEMU_OK);
    if (tf->routing == 'd') {
        c.routing = TEMU_TM_DETERMINISTIC;
    } else if (tf->routing == 'a') {
        c.routing = TEMU_TM_ADAPTIVE;
    }
    c.train_packets = tf->train;
    c.threads = threads;
    ck_assert_msg(temu_tm_create(&m, &c, &t, &err) == TEMU_OK, "%s", err.message);
    memset(r, 0, sizeof *r);
    r->links_apart = links > 0;
    temu_tm_set_delivery(t, on_delivery, r);
    temu_tm_set_hop(t, on_hop, r);
    if (links == 2) {
        temu_tm_set_hop_now(t, on_hop_now, r);
    }
    send *sends = malloc((size_t)m.nnodes * sizeof *sends);
    for (int64_t when = 0; when < tf->span_ps; when += tf->step_ps) {
        temu_tm_run(t, when);
        /* the instant's sends: from each node one created now, then one
         * created half a step later (its CREATE event), each with
         * probability 3/4; drawn in node order, made in `order` (a node's
         * own sends keep theirs: its program's order is part of the input) */
        for (int later = 0; later < 2; later++) {
            int64_t n = 0;
            for (int64_t node = 0; node < m.nnodes; node++) {
                int64_t dst = (int64_t)(rng(&s) % (uint64_t)m.nnodes);
                uint32_t cls = (uint32_t)(rng(&s) % c.classes);
                uint32_t bytes = c.max_packet - (uint32_t)(rng(&s) % 7);
                if (rng(&s) % 4 == 0 || dst == node) {
                    continue;
                }
                sends[n++] = (send){
                    when + later * tf->step_ps / 2, node, dst, bytes, cls, tf->packets, ++tag};
            }
            reorder(sends, n, order);
            for (int64_t i = 0; i < n; i++) {
                make_send(t, &m, tf, &sends[i]);
            }
        }
    }
    free(sends);
    temu_tm_run(t, INT64_MAX);
    ck_assert(temu_tm_check(t, &err) == TEMU_OK);
    ck_assert_uint_eq(temu_tm_pending(t), 0);
    temu_tm_totals tot;
    temu_tm_totals_get(t, &tot);
    put(r, (int64_t)tot.packet_hops);
    put(r, (int64_t)tot.train_hops);
    put(r, (int64_t)tot.events);
    put(r, temu_tm_now(t));
    temu_tm_sync_stats y;
    temu_tm_sync_stats_get(t, &y);
    r->hops_now = y.hops_now;
    for (int64_t rt = 0; rt < m.nrouters; rt++) {
        for (int l = 0; l < 2 * m.ndims; l++) {
            for (int k = 0; k < temu_tm_lanes(t, rt, l); k++) {
                temu_tm_lane_stats ls;
                ck_assert(temu_tm_lane_stats_get(t, rt, l, k, &ls, &err) == TEMU_OK);
                put(r, (int64_t)ls.packets);
                put(r, (int64_t)ls.bytes);
                put(r, ls.busy_ps);
                put(r, ls.credit_stall_ps);
                put(r, ls.inq_stall_ps);
                put(r, ls.no_dynamic_ps);
                r->stall_ps += ls.credit_stall_ps + ls.inq_stall_ps;
                for (uint32_t v = 0; v < c.classes; v++) {
                    int64_t occ;
                    temu_tm_vc_stats vs;
                    ck_assert(temu_tm_lane_occupancy(t, rt, l, k, v, &occ, &err) == TEMU_OK);
                    ck_assert(temu_tm_lane_vc_stats(t, rt, l, k, v, &vs, &err) == TEMU_OK);
                    put(r, occ);
                    put(r, (int64_t)vs.adaptive_packets);
                    put(r, vs.no_token_ps);
                }
            }
        }
    }
    temu_tm_destroy(t);
}

static void run(const traffic *tf, int order, uint32_t threads, record *r)
{
    run_links(tf, order, threads, 0, r);
}

/* Record b is record a, value for value. */
static void check_same(const traffic *tf, const record *a, const record *b, const char *what)
{
    ck_assert_uint_eq(b->n, a->n);
    size_t i = 0;
    while (i < a->n && a->v[i] == b->v[i]) {
        i++;
    }
    ck_assert_msg(i == a->n, "%s: %s differs at value %zu of %zu", tf->spec, what, i, a->n);
}

/* The traffic in orders 0 (as drawn), 1 (reversed), 2 and 3 (shuffled):
 * byte-identical records, of a run with contention (stalls), on the
 * serial engine and on the parallel engine of 2 regions. */
static void check_orders(const traffic *tf, uint32_t threads)
{
    record first, other;
    char what[64];
    run(tf, 0, threads, &first);
    ck_assert_uint_gt(first.n, 1000);
    ck_assert_int_gt(first.stall_ps, 0);
    for (int order = 1; order <= 3; order++) {
        run(tf, order, threads, &other);
        snprintf(what, sizeof what, "order %d, threads %u", order, threads);
        check_same(tf, &first, &other, what);
        free(other.v);
    }
    free(first.v);
}

/* The same traffic on the parallel engine of 1, 2, 3 and 8 regions
 * (doc/model.md, "Parallel engine"): byte-identical records. */
static void check_threads(const traffic *tf)
{
    record first, other;
    char what[64];
    run(tf, 0, 1, &first);
    ck_assert_int_gt(first.stall_ps, 0);
    for (uint32_t n = 2; n <= 8; n = n == 3 ? 8 : n + 1) {
        run(tf, 0, n, &other);
        snprintf(what, sizeof what, "%u threads against 1", n);
        check_same(tf, &first, &other, what);
        free(other.v);
    }
    free(first.v);
}

/* Gemini: credits and tiles, single packets, then messages over tile
 * slots in trains of 4; BG/Q: tokens and adaptive routing; BG/P: trains. */
static const traffic cases[] = {
    {"gemini:4x4x4", 'x', 1, 2, 0, 400000, 3000000},
    {"gemini:4x4x4", 'x', 4, 4, 1, 800000, 3000000},
    {"bgq:2x2x4x4x2", 'a', 1, 1, 0, 150000, 2000000},
    {"bgp:4x4x4", 'd', 4, 8, 0, 3000000, 20000000},
};

START_TEST(test_send_order_does_not_matter)
{
    check_orders(&cases[_i], 0);
}
END_TEST

/* every case, trains too (their credit streams and splits go by what
 * the upstream region owns: doc/model.md, "Parallel engine") */
START_TEST(test_thread_count_does_not_matter)
{
    check_threads(&cases[_i]);
    check_orders(&cases[_i], 2);
}
END_TEST

/* The link hops taken by hop_now on 1, 2, 3 and 8 regions: the same link
 * hops (count and order-free sum) as one region tells without it, the hop
 * function the other hops in the same order, every other figure the same;
 * the engine counts what hop_now took. */
START_TEST(test_hop_now_takes_the_link_hops)
{
    const traffic *tf = &cases[_i];
    record ref, other;
    char what[64];
    run_links(tf, 0, 1, 1, &ref);
    ck_assert_uint_gt(ref.links, 1000);
    ck_assert_uint_eq(ref.hops_now, 0);
    for (uint32_t n = 1; n <= 8; n = n == 3 ? 8 : n + 1) {
        run_links(tf, 0, n, 2, &other);
        snprintf(what, sizeof what, "hop_now on %u threads", n);
        check_same(tf, &ref, &other, what);
        ck_assert_uint_eq(other.links, ref.links);
        ck_assert_uint_eq(other.link_sum, ref.link_sum);
        ck_assert_uint_eq(other.hops_now, ref.links);
        free(other.v);
    }
    free(ref.v);
}
END_TEST

/* One packet from the node at coordinates `from` to the one at `to` on a
 * BG/Q 2x2x4x4x2 of 2 regions, deterministic routing: the engine's
 * synchronisation figures. */
static void one_packet(const int32_t *from, const int32_t *to, temu_tm_sync_stats *y)
{
    temu_machine m;
    temu_tm_config c;
    temu_tm *t;
    temu_error err;
    ck_assert(temu_machine_parse("bgq:2x2x4x4x2", &m, &err) == TEMU_OK);
    ck_assert(temu_tm_config_default(&m, &c, &err) == TEMU_OK);
    c.routing = TEMU_TM_DETERMINISTIC;
    c.threads = 2;
    ck_assert_msg(temu_tm_create(&m, &c, &t, &err) == TEMU_OK, "%s", err.message);
    ck_assert(temu_tm_send(t, 0, temu_router_index(&m, from), temu_router_index(&m, to), 512, 0, 0,
                           1, &err) == TEMU_OK);
    temu_tm_run(t, INT64_MAX);
    ck_assert_uint_eq(temu_tm_pending(t), 0);
    temu_tm_sync_stats_get(t, y);
    temu_tm_destroy(t);
}

/* The regions are slabs across the machine's longest dimension, the first
 * of equal ones (doc/model.md, "Parallel engine"): of BG/Q 2x2x4x4x2 in 2
 * regions, C (4 long) is cut between C = 1 and 2, and A (2 long) is not.
 * A packet one hop along C crosses the edge (its train there, its credit
 * back); one along A stays in its region.  Each is one torus hop, so one
 * handover. */
START_TEST(test_regions_cut_the_longest_dimension)
{
    const int32_t c1[5] = {0, 0, 1, 0, 0}, c2[5] = {0, 0, 2, 0, 0};
    const int32_t a0[5] = {0, 1, 3, 2, 1}, a1[5] = {1, 1, 3, 2, 1};
    temu_tm_sync_stats y;
    one_packet(c1, c2, &y);
    ck_assert_uint_eq(y.regions, 2);
    ck_assert_uint_eq(y.handovers, 1);
    ck_assert_uint_eq(y.crossings, 2);
    one_packet(a0, a1, &y);
    ck_assert_uint_eq(y.handovers, 1);
    ck_assert_uint_eq(y.crossings, 0);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("timing-ties");
    TCase *tc = tcase_create("send order");
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, test_send_order_does_not_matter, 0,
                        (int)(sizeof cases / sizeof cases[0]));
    tcase_add_loop_test(tc, test_thread_count_does_not_matter, 0,
                        (int)(sizeof cases / sizeof cases[0]));
    tcase_add_loop_test(tc, test_hop_now_takes_the_link_hops, 0,
                        (int)(sizeof cases / sizeof cases[0]));
    tcase_add_test(tc, test_regions_cut_the_longest_dimension);
    suite_add_tcase(s, tc);
    return test_run(s);
}
