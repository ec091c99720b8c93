/*
 * flow_saturation - the flow level's saturation loads on the BookSim2
 * cases of tests/fixtures/booksim/torus.tsv, beside BookSim's.
 *
 * The configuration is tests/test_timing_booksim.c's (a k-ary 3-cube, one
 * 16-byte flit per 1000-ps cycle on every channel, 4-flit packets, 8-flit
 * buffers).  Offered load L (flits per node per cycle) is a steady stream
 * from every node to each of its pattern's destinations at L times the
 * pattern's share (uniform: every node including itself, 1/N each;
 * alltoall: every other node, 1/(N-1); tornado, transpose, bitrev: one
 * node), each stream capped at that rate.  The network is saturated at L
 * when some stream cannot run at its cap; the saturation load is found by
 * bisection (to 1/1024).  BookSim's figure is the load at which its
 * network stopped being stable (the fixture's "sat" lines).
 *
 * usage: flow_saturation [FIXTURE]   (default tests/fixtures/booksim/torus.tsv)
 */
#include "torusemu_flow.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CYCLE 1000 /* ps */
#define FLIT 16    /* bytes */
#define PKT_FLITS 4
#define COUNT 1000 /* packets of every stream */

/* Bits of a node id (nodes a power of two). */
static int id_bits(int nodes)
{
    int bits = 0;
    while ((1 << bits) < nodes) {
        bits++;
    }
    return bits;
}

/* The one destination of node b under a permutation pattern (BookSim's
 * numbering: digit 0 fastest), as test_timing_booksim.c computes it. */
static int permutation(const char *pattern, int k, int b)
{
    int nodes = k * k * k, bits = id_bits(nodes);
    if (strcmp(pattern, "tornado") == 0) {
        int r = 0, off = 1;
        for (int d = 0; d < 3; d++) {
            r += off * (((b / off) % k + (k + 1) / 2 - 1) % k);
            off *= k;
        }
        return r;
    }
    if (strcmp(pattern, "bitrev") == 0) {
        int r = 0;
        for (int i = 0; i < bits; i++) {
            r = (r << 1) | ((b >> i) & 1);
        }
        return r;
    }
    int shift = bits / 2, lo = (1 << shift) - 1; /* transpose */
    return ((b >> shift) & lo) | ((b << shift) & (lo << shift));
}

static int64_t our_node(const temu_machine *m, int k, int b)
{
    int32_t c[3] = {b % k, (b / k) % k, b / (k * k)};
    return temu_router_index(m, c);
}

typedef struct check {
    double packets_per_ps[1 << 10]; /* per source: each of its streams' rate */
    int late;
} check;

/* A stream ended later than its cap allows (with 1 ns of slack per
 * stream for the pipeline): it was limited by the network. */
static void on_done(void *ctx, uint64_t tag, uint64_t packets, int64_t created, int64_t done)
{
    check *c = ctx;
    double expect = (double)packets / c->packets_per_ps[tag];
    if ((double)(done - created) > expect * (1 + 1e-9) + 200000) {
        c->late = 1;
    }
}

/* Is the network saturated at `load`? */
static int saturated(int k, const char *pattern, double load)
{
    char spec[64];
    temu_machine m;
    temu_tm_config c;
    temu_fm *f;
    temu_error err;
    check ck = {{0}, 0};
    int nodes = k * k * k;
    int uniform = strcmp(pattern, "uniform") == 0, all = strcmp(pattern, "alltoall") == 0;
    double share = uniform ? 1.0 / nodes : all ? 1.0 / (nodes - 1) : 1.0;
    snprintf(spec, sizeof spec, "bgp:%dx%dx%d,torus=111", k, k, k);
    if (temu_machine_parse(spec, &m, &err) != TEMU_OK) {
        fprintf(stderr, "flow_saturation: %s\n", err.message);
        exit(1);
    }
    memset(&c, 0, sizeof c);
    c.router_ps = 4 * CYCLE;
    c.wire_ps = 2 * CYCLE;
    c.node_wire_ps = 1 * CYCLE;
    c.credit_ps = 2 * CYCLE;
    c.buffer_bytes = 8 * FLIT;
    c.max_packet = PKT_FLITS * FLIT;
    c.classes = 1;
    c.flow = TEMU_TM_CREDIT;
    c.link_gbs = FLIT * 1000.0 / CYCLE;
    c.node_gbs = c.link_gbs;
    if (temu_fm_create(&m, &c, &f, &err) != TEMU_OK) {
        fprintf(stderr, "flow_saturation: %s\n", err.message);
        exit(1);
    }
    temu_fm_set_done(f, on_done, &ck);
    double gbs = load * share * FLIT * 1000.0 / CYCLE; /* flits/cycle -> bytes/ns = GB/s */
    for (int b = 0; b < nodes; b++) {
        ck.packets_per_ps[b] = gbs / 1000.0 / (PKT_FLITS * FLIT);
        for (int d = 0; d < nodes; d++) {
            int to = uniform || all ? d : permutation(pattern, k, b);
            if ((all && d == b) || (!uniform && !all && d > 0)) {
                continue;
            }
            if (temu_fm_send(f, 0, our_node(&m, k, b), our_node(&m, k, to), PKT_FLITS * FLIT, COUNT,
                             0, 0, gbs, (uint64_t)b, &err) != TEMU_OK) {
                fprintf(stderr, "flow_saturation: %s\n", err.message);
                exit(1);
            }
        }
    }
    temu_fm_run(f, INT64_MAX);
    temu_fm_destroy(f);
    return ck.late;
}

int main(int argc, char **argv)
{
    const char *path = argc > 1 ? argv[1] : "tests/fixtures/booksim/torus.tsv";
    FILE *in = fopen(path, "r");
    char line[512];
    if (!in) {
        fprintf(stderr, "flow_saturation: cannot open %s\n", path);
        return 1;
    }
    printf("%-3s %-10s %9s %9s %7s\n", "k", "pattern", "BookSim", "flow", "ratio");
    while (fgets(line, sizeof line, in)) {
        int k;
        char pattern[32];
        double sat;
        if (sscanf(line, "sat %d %31s %lf", &k, pattern, &sat) != 3) {
            continue;
        }
        double lo = 0, hi = 1.0;
        for (int i = 0; i < 10; i++) {
            double mid = (lo + hi) / 2;
            if (saturated(k, pattern, mid)) {
                hi = mid;
            } else {
                lo = mid;
            }
        }
        printf("%-3d %-10s %9.4f %9.4f %7.2f\n", k, pattern, sat, lo, lo / sat);
        fflush(stdout);
    }
    fclose(in);
    return 0;
}
