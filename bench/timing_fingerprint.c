/*
 * timing_fingerprint - one hash of everything the timing model computes,
 * for checking that a speed change leaves its results bit-identical.
 *
 * Each case drives the model (torusemu_timing.h) with random traffic and
 * hashes (FNV-1a, 64 bits) every delivery (tag, creation and arrival
 * time), every hop reported to the hop function, the totals and the final
 * virtual time, and then every lane's packets, bytes, busy, credit-stall,
 * inq-stall and no-dynamic times, its occupancy and per-VC figures per
 * class, and every node's message-unit pending times.  A change meant not
 * to alter the model must print the same lines (bench/timing_fingerprint
 * .expected, `make bench-timing-same`); a change of the model's behaviour
 * changes them on purpose, and the expected file with it.
 *
 * The 14 default cases cover the three machines, deterministic and
 * adaptive routing, single packets, trains split and whole, and messages
 * (temu_tm_send_message: Gemini requests and responses over tile slots).
 * The run stops at 1.5 times the span and then goes on to the end, so an
 * interrupted run is covered too.
 *
 * Each line also prints the credit-stall and inq-stall ps of all lanes
 * summed (`stall`, `inq`), for reading how far a change moved them.
 *
 * usage: timing_fingerprint [-r] [-t THREADS] [SPEC LOAD MICROSECONDS PACKETS TRAIN WHOLE ROUTING
 *                           MODE]...
 *   -t N: the parallel engine with N regions (temu_tm_config.threads):
 *   the lines must be the same for every N >= 1 (tests/timing_threads.sh).
 *   -r: each instant's sends are made from the last node to the first
 *   (the same sends, tags and all): the lines of trains (MODE t) must not
 *   change, as events of equal time are ordered by content (doc/model.md,
 *   "equal times"; tests/timing_same.sh).  Those of messages (m) do:
 *   temu_tm_send_message makes the destination's replies at once, so the
 *   order of a destination's own sends changes with the senders' order;
 *   a node's own sends of one instant keep the order they were made in;
 *   ROUTING: d deterministic, a adaptive, x the machine's default;
 *   MODE: t trains of PACKETS maximal-ish packets, m messages of PACKETS
 *   maximal packets less 0-99 bytes.
 */
#include "torusemu_timing.h"
#include "bench_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct fingerprint {
    uint64_t h;
    uint64_t deliveries;
    int64_t credit_stall_ps, inq_stall_ps; /* summed over every lane (printed) */
} fingerprint;

static void mix(fingerprint *f, uint64_t v)
{
    for (int i = 0; i < 8; i++) {
        f->h ^= (v >> (8 * i)) & 255u;
        f->h *= 1099511628211ull; /* FNV-1a prime */
    }
}

static void on_delivery(void *ctx, uint64_t tag, int64_t created, int64_t delivered)
{
    fingerprint *f = ctx;
    mix(f, tag);
    mix(f, (uint64_t)created);
    mix(f, (uint64_t)delivered);
    f->deliveries++;
}

static void on_hop(void *ctx, const temu_tm_hop *h)
{
    fingerprint *f = ctx;
    const uint64_t v[] = {(uint64_t)h->start_ps,
                          (uint64_t)h->spacing_ps,
                          (uint64_t)h->ser_ps,
                          h->tag,
                          h->bytes,
                          h->packets,
                          h->kind,
                          (uint64_t)h->node,
                          (uint64_t)h->router,
                          (uint64_t)h->to_router,
                          (uint64_t)h->link,
                          (uint64_t)h->lane,
                          h->cls,
                          h->vc_class,
                          h->lane_key,
                          h->adaptive};
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
        mix(f, v[i]);
    }
}

static void fail(const char *what, const temu_error *err)
{
    fprintf(stderr, "timing_fingerprint: %s: %s\n", what, err ? err->message : "bad arguments");
    exit(1);
}

/* Everything the model reports after the run. */
static void mix_results(fingerprint *f, const temu_tm *t, const temu_machine *m, uint32_t classes)
{
    temu_error err;
    for (int64_t r = 0; r < m->nrouters; r++) {
        for (int l = 0; l < 2 * m->ndims; l++) {
            for (int k = 0; k < temu_tm_lanes(t, r, l); k++) {
                temu_tm_lane_stats s;
                if (temu_tm_lane_stats_get(t, r, l, k, &s, &err) != TEMU_OK) {
                    fail("lane", &err);
                }
                mix(f, s.packets);
                mix(f, s.bytes);
                mix(f, (uint64_t)s.busy_ps);
                mix(f, (uint64_t)s.credit_stall_ps);
                mix(f, (uint64_t)s.inq_stall_ps);
                f->credit_stall_ps += s.credit_stall_ps;
                f->inq_stall_ps += s.inq_stall_ps;
                mix(f, (uint64_t)s.no_dynamic_ps);
                for (uint32_t v = 0; v < classes; v++) {
                    int64_t occ;
                    temu_tm_vc_stats vs;
                    if (temu_tm_lane_occupancy(t, r, l, k, v, &occ, &err) != TEMU_OK ||
                        temu_tm_lane_vc_stats(t, r, l, k, v, &vs, &err) != TEMU_OK) {
                        fail("lane class", &err);
                    }
                    mix(f, (uint64_t)occ);
                    mix(f, vs.adaptive_packets);
                    mix(f, vs.adaptive_bytes);
                    mix(f, (uint64_t)vs.no_token_ps);
                }
            }
        }
    }
    for (int64_t n = 0; n < m->nnodes; n++) {
        int64_t rd, wr;
        if (temu_tm_node_mu_pending(t, n, &rd, &wr, &err) != TEMU_OK) {
            fail("node", &err);
        }
        mix(f, (uint64_t)rd);
        mix(f, (uint64_t)wr);
    }
}

/* One send of an instant. */
typedef struct send {
    int64_t src, dst;
    uint64_t bytes; /* a train's packets' size, or a message's */
    uint64_t tag;   /* trains only */
    uint32_t cls;
} send;

/* Make send e at `when`: a message (mode 'm') or a train of pkts packets. */
static void make_send(temu_tm *t, const temu_machine *m, uint32_t pkts, char mode, int64_t when,
                      const send *e)
{
    temu_error err;
    temu_status st = TEMU_OK;
    if (mode == 'm') {
        temu_message msg = {e->src, e->dst, e->bytes, NULL, TEMU_KIND_P2P};
        if (e->src != e->dst) {
            st = temu_tm_send_message(t, when, m, &msg, &err);
        }
    } else {
        st = temu_tm_send_train(t, when, e->src, e->dst, (uint32_t)e->bytes, pkts, e->cls,
                                (uint32_t)e->src, e->tag, &err);
    }
    if (st != TEMU_OK) {
        fail("send", &err);
    }
}

/* reverse: each instant's sends are made from the last node to the first;
 * threads: the parallel engine's (0: the serial engine) */
static void run_case(char **a, int reverse, uint32_t threads)
{
    const char *spec = a[0], *routing = a[6], *mode = a[7];
    double load = atof(a[1]), us = atof(a[2]);
    uint32_t pkts = (uint32_t)atoi(a[3]), train = (uint32_t)atoi(a[4]);
    temu_machine m;
    temu_tm_config c;
    temu_tm *t;
    temu_error err;
    temu_tm_totals tot;
    fingerprint f = {1469598103934665603ull, 0, 0, 0}; /* FNV-1a offset basis */
    uint64_t rng = 7, tag = 0;
    if (temu_machine_parse(spec, &m, &err) != TEMU_OK ||
        temu_tm_config_default(&m, &c, &err) != TEMU_OK) {
        fail(spec, &err);
    }
    if (load <= 0 || us <= 0 || pkts == 0 || strchr("dax", routing[0]) == NULL ||
        strchr("tm", mode[0]) == NULL) {
        fail(spec, NULL);
    }
    if (routing[0] == 'd') {
        c.routing = TEMU_TM_DETERMINISTIC;
    } else if (routing[0] == 'a') {
        c.routing = TEMU_TM_ADAPTIVE;
    }
    c.train_packets = train;
    c.train_whole = (uint32_t)atoi(a[5]);
    c.threads = threads;
    if (temu_tm_create(&m, &c, &t, &err) != TEMU_OK) {
        fail("create", &err);
    }
    temu_tm_set_delivery(t, on_delivery, &f);
    temu_tm_set_hop(t, on_hop, &f);
    /* one send per node every `gap` ps on average */
    double gap = (double)c.max_packet * pkts * 1000.0 / c.node_gbs / load;
    int64_t step = (int64_t)gap;
    double p = (double)step / gap;
    send *sends = malloc((size_t)m.nnodes * sizeof *sends);
    if (sends == NULL) {
        fail("sends", NULL);
    }
    for (int64_t when = 0; when < (int64_t)(us * 1e6); when += step) {
        int64_t ns = 0;
        temu_tm_run(t, when);
        for (int64_t n = 0; n < m.nnodes; n++) {
            if ((double)(bench_rng_next(&rng) >> 11) * 0x1.0p-53 >= p) {
                continue;
            }
            send *e = &sends[ns++];
            e->src = n;
            e->dst = (int64_t)(bench_rng_next(&rng) % (uint64_t)m.nnodes);
            e->cls = (uint32_t)(bench_rng_next(&rng) % c.classes);
            if (mode[0] == 'm') {
                e->bytes = (uint64_t)pkts * c.max_packet - bench_rng_next(&rng) % 100;
            } else {
                e->bytes = c.max_packet - (uint32_t)(bench_rng_next(&rng) % 7);
                e->tag = ++tag;
            }
        }
        for (int64_t i = 0; i < ns; i++) {
            make_send(t, &m, pkts, mode[0], when, &sends[reverse ? ns - 1 - i : i]);
        }
    }
    free(sends);
    temu_tm_run(t, (int64_t)(us * 1e6 * 1.5));
    temu_tm_run(t, INT64_MAX);
    if (temu_tm_check(t, &err) != TEMU_OK) {
        fail("run", &err);
    }
    temu_tm_totals_get(t, &tot);
    mix(&f, tot.packet_hops);
    mix(&f, tot.train_hops);
    mix(&f, (uint64_t)temu_tm_now(t));
    mix_results(&f, t, &m, c.classes);
    printf("%s load %.2f %gus pk%u tr%u w%u %c %c: now %lld hops %llu trains %llu events %llu "
           "deliveries %llu stall %lld inq %lld fp %016llx\n",
           spec, load, us, pkts, train, c.train_whole, routing[0], mode[0],
           (long long)temu_tm_now(t), (unsigned long long)tot.packet_hops,
           (unsigned long long)tot.train_hops, (unsigned long long)tot.events,
           (unsigned long long)f.deliveries, (long long)f.credit_stall_ps,
           (long long)f.inq_stall_ps, (unsigned long long)f.h);
    temu_tm_destroy(t);
}

int main(int argc, char **argv)
{
    /* SPEC LOAD US PACKETS TRAIN WHOLE ROUTING MODE */
    static char *def[][8] = {
        {"bgp:8x8x8", "0.5", "20", "1", "1", "0", "a", "t"},
        {"bgp:8x8x8", "0.9", "20", "1", "1", "0", "d", "t"},
        {"bgp:4x4x4", "0.8", "40", "4", "1", "0", "a", "t"},
        {"bgq:4x4x4x4x2", "0.6", "4", "1", "1", "0", "a", "t"},
        {"bgq:4x4x4x4x2", "0.6", "4", "1", "1", "0", "d", "t"},
        {"bgq:4x4x4x4x2", "0.6", "4", "8", "8", "0", "d", "t"},
        {"bgq:4x4x4x4x2", "0.6", "4", "8", "8", "1", "d", "t"},
        {"gemini:8x8x8", "0.5", "4", "1", "1", "0", "x", "t"},
        {"gemini:8x8x8", "0.7", "4", "8", "1", "0", "x", "m"},
        {"gemini:8x8x8", "0.7", "4", "8", "4", "0", "x", "m"},
        {"gemini:8x8x8", "0.7", "4", "32", "64", "1", "x", "t"},
        {"gemini:8x8x8", "0.9", "4", "32", "64", "0", "x", "t"},
        {"bgq:4x4x4x4x2", "0.5", "4", "6", "1", "0", "x", "m"},
        {"bgp:8x8x8", "0.5", "20", "6", "1", "0", "x", "m"},
    };
    int reverse = argc > 1 && strcmp(argv[1], "-r") == 0;
    uint32_t threads = 0;
    argc -= reverse;
    argv += reverse;
    if (argc > 2 && strcmp(argv[1], "-t") == 0) {
        threads = (uint32_t)atoi(argv[2]);
        argc -= 2;
        argv += 2;
    }
    if (argc > 1 && (argc - 1) % 8 != 0) {
        fprintf(stderr, "usage: timing_fingerprint [-r] [-t THREADS] [SPEC LOAD MICROSECONDS PACKETS TRAIN "
                        "WHOLE ROUTING(d|a|x) MODE(t|m)]...\n");
        return 2;
    }
    if (argc > 1) {
        for (int i = 1; i < argc; i += 8) {
            run_case(argv + i, reverse, threads);
        }
    } else {
        for (size_t i = 0; i < sizeof def / sizeof def[0]; i++) {
            run_case(def[i], reverse, threads);
        }
    }
    return 0;
}
