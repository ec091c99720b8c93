/*
 * test_timing_mu.c - BG/Q message-unit pending read and write requests
 * (PEVT_MU_PORT0_PEND_RD / _PEND_WRT) from the timing model, against
 * figures computed by hand from doc/model.md, "Message-unit pending
 * requests":
 *
 *   - a packet with p payload bytes is read in floor(p / 128) requests of
 *     128 bytes plus one for a tail of 1..127 bytes; a memory-FIFO packet
 *     is stored in ceil((32 + p) / 16) 16-byte writes, a direct put in
 *     ceil(p / 16), a remote-get descriptor (64 bytes) in 4;
 *   - every request is pending 64 message-unit cycles (80 ns at 800 MHz);
 *   - reads count at the injecting node, writes at the receiving node,
 *     nothing at the nodes a packet passes through.
 *
 * The machine is a BG/Q midplane (4x4x4x4x2); a message from (0,0,0,0,0)
 * to (2,1,0,0,0) crosses A+ A+ B+, so (1,0,...) and (2,0,...) only pass
 * it on.
 */
#include "timingutil.h"

#include <stdint.h>

#define REQUEST_CYCLES 64 /* 80 ns at 800 MHz */

typedef struct pend {
    uint64_t rd, wrt;
} pend;

/* PORT0 pending reads and writes of a node in the store. */
static pend pending_of(temu_session *s, const temu_machine *m, int64_t node)
{
    pend p = {temu_counter_read(s, temu_idx_bgq_mu(m, node, 35)),
              temu_counter_read(s, temu_idx_bgq_mu(m, node, 34))};
    return p;
}

/* Sum of every pending counter (ports 0..2, SRAM 34..39) over all nodes
 * but `a` and `b`. */
static uint64_t pending_elsewhere(temu_session *s, const temu_machine *m, int64_t a, int64_t b)
{
    uint64_t sum = 0;
    for (int64_t n = 0; n < m->nnodes; n++) {
        for (int i = 34; i <= 39; i++) {
            if ((n != a && n != b) || i > 35) {
                sum += temu_counter_read(s, temu_idx_bgq_mu(m, n, i));
            }
        }
    }
    return sum;
}

typedef struct fixture {
    temu_machine m;
    temu_session *s;
    temu_tm *t;
    int64_t src, dst;
} fixture;

static void setup(fixture *f, const temu_tm_config *cfg)
{
    temu_error err;
    temu_tm_config c;
    int32_t c0[5] = {0, 0, 0, 0, 0}, c3[5] = {2, 1, 0, 0, 0};
    f->m = test_machine("bgq:4x4x4x4x2");
    ck_assert(temu_session_create_private(&f->m, &f->s, &err) == TEMU_OK);
    ck_assert(temu_tm_config_default(&f->m, &c, &err) == TEMU_OK);
    if (cfg != NULL) {
        c = *cfg;
    }
    f->t = make(&f->m, &c, NULL);
    f->src = temu_router_index(&f->m, c0);
    f->dst = temu_router_index(&f->m, c3);
}

static void teardown(fixture *f)
{
    temu_tm_destroy(f->t);
    temu_session_close(f->s);
}

static void send_msg(fixture *f, int64_t when, uint64_t bytes, temu_kind kind)
{
    temu_error err;
    temu_message msg = {f->src, f->dst, bytes, NULL, kind};
    ck_assert_msg(temu_tm_send_message(f->t, when, &f->m, &msg, &err) == TEMU_OK, "%s",
                  err.message);
}

static void finish(fixture *f)
{
    temu_error err;
    temu_tm_run(f->t, INT64_MAX);
    ck_assert_msg(temu_tm_add_stall_counters(f->t, f->s, &err) == TEMU_OK, "%s", err.message);
}

/* n messages of `bytes` from src to dst at once, on the default
 * configuration or *cfg: the pending requests (in requests, each 64
 * cycles) of the source (reads, writes) and destination (reads, writes),
 * and none anywhere else (the routers in between, ports 1 and 2). */
static void expect_requests(const temu_tm_config *cfg, int n, uint64_t bytes, uint64_t src_rd,
                            uint64_t src_wrt, uint64_t dst_rd, uint64_t dst_wrt)
{
    fixture f;
    setup(&f, cfg);
    for (int i = 0; i < n; i++) {
        send_msg(&f, 0, bytes, TEMU_KIND_P2P);
    }
    finish(&f);
    pend s = pending_of(f.s, &f.m, f.src), d = pending_of(f.s, &f.m, f.dst);
    ck_assert_uint_eq(s.rd, src_rd * REQUEST_CYCLES);
    ck_assert_uint_eq(s.wrt, src_wrt * REQUEST_CYCLES);
    ck_assert_uint_eq(d.rd, dst_rd * REQUEST_CYCLES);
    ck_assert_uint_eq(d.wrt, dst_wrt * REQUEST_CYCLES);
    ck_assert_uint_eq(pending_elsewhere(f.s, &f.m, f.src, f.dst), 0);
    teardown(&f);
}

/* Eager 1000 bytes: two memory-FIFO packets, payloads 512 and 488.
 * Reads: 4 x 128 + (3 x 128 + one for the 104-byte tail) = 8 requests;
 * writes: (32 + 512) / 16 = 34 and ceil((32 + 488) / 16) = 33, 67. */
START_TEST(test_eager_message_exact)
{
    expect_requests(NULL, 1, 1000, 8, 0, 0, 67);
}
END_TEST

/* Rendezvous of 10000 bytes (above the 4097 eager limit, at most 64 KiB:
 * deterministic VC 1).  Source: request-to-send (32 bytes: one read) and
 * 20 put packets (19 x 512: 4 reads each; 272 = 2 x 128 + 16: 3), 80
 * reads; it stores the remote-get descriptor, 4 writes.  Destination:
 * reads the descriptor it sends back (one 64-byte read) and stores the
 * request-to-send ((32 + 32) / 16 = 4) and the puts (19 x 32 + 17 = 625),
 * 629 writes. */
START_TEST(test_rendezvous_exact)
{
    expect_requests(NULL, 1, 10000, 80, 4, 1, 629);
}
END_TEST

/* The same message with packet trains (deterministic routes, trains of
 * 4 that split when they meet): the same totals, the requests travel
 * with their packets. */
START_TEST(test_trains_same_totals)
{
    temu_tm_config c;
    temu_error err;
    temu_machine m = test_machine("bgq:4x4x4x4x2");
    ck_assert(temu_tm_config_default(&m, &c, &err) == TEMU_OK);
    c.routing = TEMU_TM_DETERMINISTIC;
    c.train_packets = 4;
    /* three at once: trains meet and split */
    expect_requests(&c, 3, 10000, 3 * 80, 3 * 4, 3 * 1, 3 * 629);
}
END_TEST

/* Totals scale with packets: k full packets (k x 512 bytes, eager up to
 * 4096 < 4097) read 4k and write 34k requests; n equal messages n times
 * one. */
START_TEST(test_scale_with_packets)
{
    for (int k = 1; k <= 8; k++) {
        fixture f;
        setup(&f, NULL);
        send_msg(&f, 0, (uint64_t)k * 512, TEMU_KIND_P2P);
        finish(&f);
        pend s = pending_of(f.s, &f.m, f.src), d = pending_of(f.s, &f.m, f.dst);
        ck_assert_uint_eq(s.rd, 4u * k * REQUEST_CYCLES);
        ck_assert_uint_eq(d.wrt, 34u * k * REQUEST_CYCLES);
        teardown(&f);
    }
    for (int n = 1; n <= 5; n += 2) {
        fixture f;
        setup(&f, NULL);
        for (int i = 0; i < n; i++) {
            send_msg(&f, 1000 * i, 1000, TEMU_KIND_P2P);
        }
        finish(&f);
        ck_assert_uint_eq(pending_of(f.s, &f.m, f.src).rd, (uint64_t)n * 8 * REQUEST_CYCLES);
        ck_assert_uint_eq(pending_of(f.s, &f.m, f.dst).wrt, (uint64_t)n * 67 * REQUEST_CYCLES);
        teardown(&f);
    }
}
END_TEST

/* Counted when issued: reads when a packet starts onto the injection
 * channel, writes when it has been delivered.  The 1000-byte message is
 * two packets of 17 chunks (544 bytes, 27.2 ns each at 20 GB/s), 4 reads
 * and 34 / 33 writes each (the message's requests split evenly); sent at
 * 1 us, the first starts at once, the second 27.2 ns later.  Flushes give
 * what was issued by then; their sum is the total. */
static int64_t deliveries[2];
static int ndeliveries;
static void on_deliver_time(void *ctx, uint64_t tag, int64_t created, int64_t delivered)
{
    (void)ctx, (void)tag, (void)created;
    deliveries[ndeliveries++ % 2] = delivered;
}

START_TEST(test_counted_when_issued)
{
    fixture f;
    temu_error err;
    temu_tm_flushed *fl;
    temu_message msg;
    setup(&f, NULL);
    msg = (temu_message){f.src, f.dst, 1000, NULL, TEMU_KIND_P2P};
    /* the deliveries, from a second model of the same message */
    {
        temu_tm_config c;
        temu_tm *t2;
        ck_assert(temu_tm_config_default(&f.m, &c, &err) == TEMU_OK);
        t2 = make(&f.m, &c, NULL);
        ndeliveries = 0;
        temu_tm_set_delivery(t2, on_deliver_time, NULL);
        ck_assert(temu_tm_send_message(t2, 1000000, &f.m, &msg, &err) == TEMU_OK);
        temu_tm_run(t2, INT64_MAX);
        temu_tm_destroy(t2);
    }
    ck_assert_int_eq(ndeliveries, 2);
    ck_assert_int_lt(deliveries[0], deliveries[1]);
    const struct {
        int64_t until;
        uint64_t rd, wrt;
    } steps[] = {
        {999999, 0, 0},
        {1000000, 4, 0},
        {1000000 + 27199, 4, 0},
        {1000000 + 27200, 8, 0},
        {deliveries[0] - 1, 8, 0},
        {deliveries[0], 8, 34},
        {deliveries[1] - 1, 8, 34},
        {INT64_MAX, 8, 67},
    };
    ck_assert(temu_tm_flushed_create(&f.m, &fl, &err) == TEMU_OK);
    send_msg(&f, 1000000, 1000, TEMU_KIND_P2P);
    for (size_t i = 0; i < sizeof steps / sizeof steps[0]; i++) {
        temu_tm_run(f.t, steps[i].until);
        ck_assert(temu_tm_counters_flush(f.t, fl, f.s, &err) == TEMU_OK);
        pend s = pending_of(f.s, &f.m, f.src), d = pending_of(f.s, &f.m, f.dst);
        ck_assert_msg(s.rd == steps[i].rd * REQUEST_CYCLES && d.wrt == steps[i].wrt * REQUEST_CYCLES,
                      "step %zu: reads %llu, writes %llu", i, (unsigned long long)s.rd,
                      (unsigned long long)d.wrt);
    }
    temu_tm_flushed_free(fl);
    teardown(&f);
}
END_TEST

/* The volume model alone (no timing model) leaves them 0; through
 * temu_tm_inject_message every pending figure is 64 x the request
 * counters of the same node (PORT0_16B_WRT, PORT0_32/64/128B_RD). */
START_TEST(test_volume_only_zero_and_ratio)
{
    fixture f;
    temu_error err;
    temu_message msg;
    setup(&f, NULL);
    msg = (temu_message){f.src, f.dst, 10000, NULL, TEMU_KIND_P2P};
    ck_assert(temu_inject(f.s, &msg, &err) == TEMU_OK);
    ck_assert_uint_eq(temu_counter_read(f.s, temu_idx_bgq_mu(&f.m, f.dst, 5)), 629);
    ck_assert_uint_eq(pending_elsewhere(f.s, &f.m, -1, -1), 0);
    teardown(&f);

    setup(&f, NULL);
    msg = (temu_message){f.src, f.dst, 100000, NULL, TEMU_KIND_P2P}; /* dynamic VC too */
    ck_assert(temu_tm_inject_message(f.t, f.s, 0, &msg, &err) == TEMU_OK);
    msg = (temu_message){f.dst, f.src, 3000, NULL, TEMU_KIND_GET};
    ck_assert(temu_tm_inject_message(f.t, f.s, 5000, &msg, &err) == TEMU_OK);
    finish(&f);
    for (int i = 0; i < 2; i++) {
        int64_t n = i == 0 ? f.src : f.dst;
        uint64_t reads = 0;
        for (int k = 6; k <= 8; k++) {
            reads += temu_counter_read(f.s, temu_idx_bgq_mu(&f.m, n, k));
        }
        ck_assert_uint_gt(reads, 0);
        ck_assert_uint_eq(pending_of(f.s, &f.m, n).rd, reads * REQUEST_CYCLES);
        ck_assert_uint_eq(pending_of(f.s, &f.m, n).wrt,
                          temu_counter_read(f.s, temu_idx_bgq_mu(&f.m, n, 5)) * REQUEST_CYCLES);
    }
    teardown(&f);
}
END_TEST

START_TEST(test_bad_input_and_other_machines)
{
    temu_machine m = test_machine("bgq:2x2x2x2x2");
    temu_tm_config c;
    temu_error err;
    temu_tm *t;
    int64_t rd, wr;
    ck_assert(temu_tm_config_default(&m, &c, &err) == TEMU_OK);
    ck_assert_int_eq(c.mu_request_ps, 80000);
    c.mu_request_ps = -1;
    ck_assert_int_eq(temu_tm_create(&m, &c, &t, &err), TEMU_EINVAL);
    ck_assert_ptr_nonnull(strstr(err.message, "negative latency"));
    c.mu_request_ps = 1000001;
    ck_assert_int_eq(temu_tm_create(&m, &c, &t, &err), TEMU_EINVAL);
    ck_assert_ptr_nonnull(strstr(err.message, "mu_request_ps 1000001"));
    c.mu_request_ps = 80000;
    t = make(&m, &c, NULL);
    ck_assert_int_eq(temu_tm_node_mu_pending(t, 32, &rd, &wr, &err), TEMU_ERANGE);
    ck_assert_int_eq(temu_tm_node_mu_pending(t, -1, &rd, &wr, &err), TEMU_ERANGE);
    temu_tm_destroy(t);
    /* no message unit on Gemini and BG/P: nothing modelled */
    m = test_machine("gemini:4x4x4");
    ck_assert(temu_tm_config_default(&m, &c, &err) == TEMU_OK);
    ck_assert_int_eq(c.mu_request_ps, 0);
    m = test_machine("bgp:4x4x4");
    ck_assert(temu_tm_config_default(&m, &c, &err) == TEMU_OK);
    ck_assert_int_eq(c.mu_request_ps, 0);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("timing_mu");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, test_eager_message_exact);
    tcase_add_test(tc, test_rendezvous_exact);
    tcase_add_test(tc, test_trains_same_totals);
    tcase_add_test(tc, test_scale_with_packets);
    tcase_add_test(tc, test_counted_when_issued);
    tcase_add_test(tc, test_volume_only_zero_and_ratio);
    tcase_add_test(tc, test_bad_input_and_other_machines);
    suite_add_tcase(s, tc);
    return test_run(s);
}
