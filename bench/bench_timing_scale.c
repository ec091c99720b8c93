/*
 * bench_timing_scale - the timing model driven directly with the messages
 * of a pattern (issue 11's scale targets), through temu_tm_send_message:
 *   fft   seed 003's first all-to-all (doc/replay.md: MPI_Alltoall in rows
 *         of A ranks, row i = ranks i, i+B, ...; pairwise exchange, as the
 *         live layer decomposes it on Blue Gene), 16 N^3 / (P A) bytes a pair;
 *   halo  one MiniGhost halo step (pattern halo: a face of (n+2)^2 x vars x
 *         8 bytes to each existing neighbour on an X x Y x Z rank grid).
 *   fft-rounds  the same all-to-all with each rank in virtual time: in
 *         round s = 1..A-1 rank i sends to i+s and receives from i-s (in
 *         its row), and starts round s+1 when its round-s message has been
 *         delivered (every packet, replies included) and the round-s
 *         message to it has arrived, as a blocking sendrecv would; a
 *         message within a node takes no time.  At most one message per
 *         rank is in flight, as in a real replay.
 * Otherwise all messages are created at time 0.  The model runs until the
 * network is empty or a CPU-time budget is spent (then the rate is of the
 * part done).  Prints CPU time, packet-hops (each packet once per torus channel,
 * trains counting their packets), train-hops, events, max RSS and the
 * most train records held at once (temu_tm_records).
 *
 * TRAIN is the longest train (train_packets); with a trailing w, trains
 * never split (train_whole).
 *
 * usage: bench_timing_scale fft|fft-rounds SPEC RPN A B N TRAIN BUDGET_S
 *        bench_timing_scale halo SPEC RPN X Y Z CELLS VARS TRAIN BUDGET_S
 */
#include "torusemu_timing.h"
#include "bench_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

static void die(const char *what, const temu_error *err)
{
    fprintf(stderr, "bench_timing_scale: %s: %s\n", what, err ? err->message : "bad arguments");
    exit(1);
}

static void send(temu_tm *t, const temu_machine *m, const temu_mapping *map, int32_t a, int32_t b,
                 uint64_t bytes, uint64_t *msgs)
{
    temu_error err;
    temu_message msg = {map->slot[a].node, map->slot[b].node, bytes, NULL, TEMU_KIND_P2P};
    if (msg.src == msg.dst) {
        return;
    }
    if (temu_tm_send_message(t, 0, m, &msg, &err) != TEMU_OK) {
        die("send", &err);
    }
    (*msgs)++;
}

/* fft-rounds: the ranks' progress through the pairwise exchange */
typedef struct rounds {
    temu_tm *t;
    const temu_machine *m;
    const temu_mapping *map;
    int32_t a, b;       /* rows of a ranks, b rows */
    uint64_t pair;      /* bytes a message */
    int32_t *round;     /* [rank] current round, 1..a-1; a: done */
    uint32_t *received; /* [rank] bit s: the round-s message to it arrived */
    uint64_t *inflight; /* [rank] packets of its round's message not yet delivered */
    uint64_t msgs;
} rounds;

static int32_t partner(const rounds *r, int32_t rank, int32_t s)
{
    int32_t row = rank % r->b, i = rank / r->b;
    return row + ((i + s) % r->a) * r->b;
}

static void rank_done_round(rounds *r, int32_t rank, int64_t now);

/* rank's round-s message arrived at its partner. */
static void message_arrived(rounds *r, int32_t rank, int64_t now)
{
    int32_t s = r->round[rank], to = partner(r, rank, s);
    r->received[to] |= 1u << s;
    rank_done_round(r, to, now);
    rank_done_round(r, rank, now);
}

/* Start rank's current round: its message into the model. */
static void start_round(rounds *r, int32_t rank, int64_t now)
{
    temu_error err;
    int32_t to = partner(r, rank, r->round[rank]);
    temu_message msg = {r->map->slot[rank].node, r->map->slot[to].node, r->pair, NULL,
                        TEMU_KIND_P2P};
    uint64_t packets[2] = {0, 0}, bytes;
    for (int dir = 0; dir < 2; dir++) {
        if (temu_tm_send_message_dir(r->t, now, r->m, &msg, dir, (uint64_t)rank, &packets[dir],
                                     &bytes, &err) != TEMU_OK) {
            die("send", &err);
        }
    }
    r->msgs += msg.src != msg.dst;
    r->inflight[rank] = packets[0] + packets[1];
    if (r->inflight[rank] == 0) {
        message_arrived(r, rank, now); /* within the node */
    }
}

/* Move rank on while its round is complete: sent and received. */
static void rank_done_round(rounds *r, int32_t rank, int64_t now)
{
    int32_t s = r->round[rank];
    if (s < r->a && r->inflight[rank] == 0 && (r->received[rank] >> s & 1u)) {
        r->round[rank] = s + 1;
        if (s + 1 < r->a) {
            start_round(r, rank, now);
        }
    }
}

static void on_delivery(void *ctx, uint64_t tag, int64_t created, int64_t delivered)
{
    rounds *r = ctx;
    int32_t rank = (int32_t)tag;
    (void)created;
    (void)delivered;
    if (--r->inflight[rank] == 0) {
        message_arrived(r, rank, temu_tm_now(r->t));
    }
}

int main(int argc, char **argv)
{
    int in_rounds = argc == 9 && strcmp(argv[1], "fft-rounds") == 0;
    int fft = argc == 9 && (strcmp(argv[1], "fft") == 0 || in_rounds);
    rounds r = {0};
    int halo = argc == 11 && strcmp(argv[1], "halo") == 0;
    temu_machine m;
    temu_mapping map;
    temu_tm_config c;
    temu_tm *t;
    temu_error err;
    uint64_t msgs = 0;
    if (!fft && !halo) {
        fprintf(stderr,
                "usage: bench_timing_scale fft|fft-rounds SPEC RPN A B N TRAIN BUDGET_S\n"
                "       bench_timing_scale halo SPEC RPN X Y Z CELLS VARS TRAIN BUDGET_S\n");
        return 2;
    }
    int32_t rpn = atoi(argv[3]);
    if (temu_machine_parse(argv[2], &m, &err) != TEMU_OK ||
        temu_mapping_build(&m, (int32_t)(m.nnodes * rpn), rpn, NULL, &map, &err) != TEMU_OK ||
        temu_tm_config_default(&m, &c, &err) != TEMU_OK) {
        die(argv[2], &err);
    }
    /* TRAIN: longest train; a trailing w: trains never split (train_whole) */
    c.train_packets = (uint32_t)atoi(argv[argc - 2]);
    c.train_whole = strchr(argv[argc - 2], 'w') != NULL;
    c.routing =
        TEMU_TM_DETERMINISTIC; /* as doc/performance.md measured; adaptive: single packets */
    double budget = atof(argv[argc - 1]);
    double t0 = bench_cpu_seconds();
    if (temu_tm_create(&m, &c, &t, &err) != TEMU_OK) {
        die("create", &err);
    }
    if (fft) {
        int32_t a = atoi(argv[4]), b = atoi(argv[5]);
        uint64_t n = strtoull(argv[6], NULL, 10);
        uint64_t pair = 16 * n * n * n / ((uint64_t)map.nranks * (uint64_t)a);
        if (in_rounds) {
            r = (rounds){t, &m, &map, a, b, pair, NULL, NULL, NULL, 0};
            r.round = calloc((size_t)map.nranks, sizeof *r.round);
            r.received = calloc((size_t)map.nranks, sizeof *r.received);
            r.inflight = calloc((size_t)map.nranks, sizeof *r.inflight);
            if (!r.round || !r.received || !r.inflight || a > 32 || (int64_t)a * b != map.nranks) {
                die("rounds: out of memory, or A > 32, or A x B is not the ranks", NULL);
            }
            temu_tm_set_delivery(t, on_delivery, &r);
            for (int32_t k = 0; k < map.nranks; k++) {
                r.round[k] = 1;
            }
            for (int32_t k = 0; k < map.nranks; k++) {
                start_round(&r, k, 0);
            }
        }
        for (int32_t row = 0; row < b && !in_rounds; row++) {
            for (int32_t i = 0; i < a; i++) {
                for (int32_t s = 1; s < a; s++) {
                    send(t, &m, &map, row + i * b, row + ((i + s) % a) * b, pair, &msgs);
                }
            }
        }
    } else {
        int32_t g[3] = {atoi(argv[4]), atoi(argv[5]), atoi(argv[6])};
        uint64_t n = strtoull(argv[7], NULL, 10), vars = strtoull(argv[8], NULL, 10);
        uint64_t bytes = (n + 2) * (n + 2) * vars * 8;
        for (int32_t z = 0; z < g[2]; z++) {
            for (int32_t y = 0; y < g[1]; y++) {
                for (int32_t x = 0; x < g[0]; x++) {
                    int32_t cc[3] = {x, y, z}, me = x + g[0] * (y + g[1] * z);
                    for (int d = 0; d < 3; d++) {
                        for (int s = -1; s <= 1; s += 2) {
                            int32_t q[3] = {cc[0], cc[1], cc[2]};
                            q[d] += s;
                            if (q[d] >= 0 && q[d] < g[d]) {
                                send(t, &m, &map, me, q[0] + g[0] * (q[1] + g[1] * q[2]), bytes,
                                     &msgs);
                            }
                        }
                    }
                }
            }
        }
    }
    double t1 = bench_cpu_seconds();
    /* run in slices of virtual time so the budget can stop it */
    int64_t until = 0;
    while (temu_tm_pending(t) > 0 && bench_cpu_seconds() - t0 < budget) {
        until += 1000000; /* 1 us */
        temu_tm_run(t, until);
    }
    double t2 = bench_cpu_seconds();
    int64_t behind = 0; /* fft-rounds: ranks not through every round */
    if (in_rounds) {
        msgs = r.msgs;
        for (int32_t k = 0; k < map.nranks; k++) {
            behind += r.round[k] < r.a;
        }
    }
    temu_tm_totals tot;
    struct rusage ru;
    temu_tm_totals_get(t, &tot);
    getrusage(RUSAGE_SELF, &ru);
    printf("%s %s train %u%s: %llu messages sent in %.2f s; run %.2f s CPU to %.1f us virtual%s; "
           "%llu packet-hops (%.3g /s), %llu train-hops, %llu events; max RSS %ld MB; "
           "%llu records\n",
           argv[1], argv[2], c.train_packets, c.train_whole ? " whole" : "",
           (unsigned long long)msgs, t1 - t0, t2 - t1, (double)temu_tm_now(t) / 1e6,
           temu_tm_pending(t) > 0 || behind > 0 ? " (budget spent, network not empty)"
                                                : " (all delivered)",
           (unsigned long long)tot.packet_hops, (double)tot.packet_hops / (t2 - t0),
           (unsigned long long)tot.train_hops, (unsigned long long)tot.events, ru.ru_maxrss / 1024,
           (unsigned long long)temu_tm_records(t));
    temu_tm_destroy(t);
    temu_mapping_free(&map);
    free(r.round);
    free(r.received);
    free(r.inflight);
    return 0;
}
