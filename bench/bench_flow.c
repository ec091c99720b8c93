/*
 * bench_flow - speed of the flow level (torusemu_flow.h).
 *
 * Uniform random messages on a machine: every node keeps `depth` messages
 * under way, each to a destination drawn uniformly among the other nodes,
 * and sends the next when one has arrived (the done function), until it
 * has sent `per_node`.  Every message is a flow of maximal packets.  The
 * same draws are run with two message sizes (default 4 KiB and 128 KiB):
 * the flow level's work is per flow start and end and the flows connected
 * to it, so its cost should not grow with bytes.  Reports CPU seconds (of
 * one core, model creation included), flows per second, rate solutions
 * and (flow, channel) rate updates, and the virtual time reached.
 *
 * usage: bench_flow [SPEC [PER_NODE [DEPTH [BYTES]...]]]
 */
#include "torusemu_flow.h"
#include "bench_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct load {
    temu_fm *f;
    const temu_machine *m;
    uint64_t *rng;  /* [nnodes] each node's own draws: the same whatever the timing */
    uint64_t *left; /* [nnodes] messages still to send */
    uint32_t bytes, count;
    int failed;
} load;

static void send_next(load *l, int64_t src, int64_t when)
{
    temu_error err;
    if (l->left[src] == 0) {
        return;
    }
    l->left[src]--;
    int64_t dst = (int64_t)(bench_rng_next(&l->rng[src]) % (uint64_t)(l->m->nnodes - 1));
    dst += dst >= src;
    if (temu_fm_send(l->f, when, src, dst, l->bytes, l->count, 0, (uint32_t)l->left[src], 0,
                     (uint64_t)src, &err) != TEMU_OK) {
        fprintf(stderr, "bench_flow: %s\n", err.message);
        l->failed = 1;
    }
}

static void on_done(void *ctx, uint64_t tag, uint64_t packets, int64_t created, int64_t done)
{
    (void)packets;
    (void)created;
    send_next(ctx, (int64_t)tag, done);
}

/* One run; 0 or -1. */
static int run(const temu_machine *m, uint64_t per_node, int depth, uint64_t msg_bytes)
{
    temu_tm_config c;
    temu_error err;
    temu_fm_totals tot;
    load l = {0};
    if (temu_tm_config_default(m, &c, &err) != TEMU_OK ||
        temu_fm_create(m, &c, &l.f, &err) != TEMU_OK) {
        fprintf(stderr, "bench_flow: %s\n", err.message);
        return -1;
    }
    double t0 = bench_cpu_seconds();
    l.m = m;
    l.bytes = c.max_packet;
    l.count = (uint32_t)((msg_bytes + c.max_packet - 1) / c.max_packet);
    l.rng = malloc((size_t)m->nnodes * sizeof *l.rng);
    l.left = malloc((size_t)m->nnodes * sizeof *l.left);
    if (!l.rng || !l.left) {
        return -1;
    }
    temu_fm_set_done(l.f, on_done, &l);
    for (int64_t n = 0; n < m->nnodes; n++) {
        l.rng[n] = 1000003u * (uint64_t)n + 7;
        l.left[n] = per_node;
    }
    for (int d = 0; d < depth; d++) {
        for (int64_t n = 0; n < m->nnodes; n++) {
            send_next(&l, n, 0);
        }
    }
    int64_t end = temu_fm_run(l.f, INT64_MAX);
    double cpu = bench_cpu_seconds() - t0;
    temu_fm_totals_get(l.f, &tot);
    printf("%-16s %9llu B %7u pk  %8llu flows  %8.2f s  %9.0f flows/s  %8llu solves  %11llu "
           "updates  %10.3f us virtual\n",
           m->name, (unsigned long long)msg_bytes, l.count, (unsigned long long)tot.flows, cpu,
           (double)tot.flows / cpu, (unsigned long long)tot.solves, (unsigned long long)tot.updates,
           (double)end / 1e6);
    temu_fm_destroy(l.f);
    free(l.rng);
    free(l.left);
    return l.failed || temu_fm_pending(l.f) != 0 ? -1 : 0;
}

int main(int argc, char **argv)
{
    const char *spec = argc > 1 ? argv[1] : "gemini:8x8x8";
    uint64_t per_node = argc > 2 ? strtoull(argv[2], NULL, 10) : 8;
    int depth = argc > 3 ? atoi(argv[3]) : 1;
    uint64_t sizes[16] = {4096, 131072};
    int nsizes = 2;
    temu_machine m;
    temu_error err;
    if (argc > 4) {
        nsizes = 0;
        for (int i = 4; i < argc && nsizes < 16; i++) {
            sizes[nsizes++] = strtoull(argv[i], NULL, 10);
        }
    }
    if (temu_machine_parse(spec, &m, &err) != TEMU_OK || per_node == 0 || depth < 1) {
        fprintf(stderr, "usage: bench_flow [SPEC [PER_NODE [DEPTH [BYTES]...]]]\n");
        return 2;
    }
    for (int i = 0; i < nsizes; i++) {
        if (run(&m, per_node, depth, sizes[i]) != 0) {
            return 1;
        }
    }
    return 0;
}
