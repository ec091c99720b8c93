/*
 * sonar - send one known "ping" per message size between two ranks, the
 * experiment of Pedretti 2013 section V: look at the counters afterwards to see
 * what went over the wire (the "pong").
 *
 *   sonar [--src R] [--dst R] [--size B | --min B --max B] [--payload random|zero]
 *         [--repeat N] [--report]
 *
 * Rank src sends, rank dst receives, one message per size (powers of two
 * from --min to --max, default 8 B .. 4 MiB), each --repeat times; other
 * ranks only start and stop.  Sizes take K and M suffixes (binary).  The
 * payload is random bytes or zeros (Gemini compresses runs of equal bits,
 * Pedretti 2013 V.A).  With --report (and a torusemu session), rank src prints
 * after each size what its node put on the network, like Pedretti 2013 Fig. 5:
 * Gemini host-tile phits of the source Gemini (VC0 requests, VC1 responses,
 * 3 bytes each), Blue Gene 32-byte chunks sent out of the source node.
 * The program is an ordinary MPI program: it counts nothing itself.
 */
#include <mpi.h>

#include "torusemu.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct opts {
    int src, dst;
    uint64_t min, max;
    int zero;
    int repeat;
    int report;
} opts;

static int parse_size(const char *s, uint64_t *out)
{
    char *end;
    unsigned long long v = strtoull(s, &end, 10);
    int shift = 0;
    if (end == s) {
        return -1;
    }
    if (*end == 'K') {
        shift = 10;
        end++;
    } else if (*end == 'M') {
        shift = 20;
        end++;
    }
    if (*end != '\0' || v > (1ull << 40) >> shift) {
        return -1;
    }
    *out = (uint64_t)v << shift;
    return 0;
}

static int parse(int argc, char **argv, opts *o)
{
    o->src = 0;
    o->dst = 1;
    o->min = 8;
    o->max = 4u << 20;
    o->zero = 0;
    o->repeat = 1;
    o->report = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "--report") == 0) {
            o->report = 1;
            continue;
        }
        if (v == NULL) {
            fprintf(stderr, "sonar: %s needs a value\n", a);
            return -1;
        }
        i++;
        if (strcmp(a, "--src") == 0) {
            o->src = atoi(v);
        } else if (strcmp(a, "--dst") == 0) {
            o->dst = atoi(v);
        } else if (strcmp(a, "--size") == 0) {
            if (parse_size(v, &o->min) != 0) {
                fprintf(stderr, "sonar: --size '%s': expected bytes (K, M suffix)\n", v);
                return -1;
            }
            o->max = o->min;
        } else if (strcmp(a, "--min") == 0 || strcmp(a, "--max") == 0) {
            uint64_t *p = a[3] == 'i' ? &o->min : &o->max;
            if (parse_size(v, p) != 0) {
                fprintf(stderr, "sonar: %s '%s': expected bytes (K, M suffix)\n", a, v);
                return -1;
            }
        } else if (strcmp(a, "--payload") == 0) {
            if (strcmp(v, "zero") != 0 && strcmp(v, "random") != 0) {
                fprintf(stderr, "sonar: --payload '%s': use random or zero\n", v);
                return -1;
            }
            o->zero = strcmp(v, "zero") == 0;
        } else if (strcmp(a, "--repeat") == 0) {
            o->repeat = atoi(v);
        } else {
            fprintf(stderr, "sonar: unknown option '%s'\n", a);
            return -1;
        }
    }
    if (o->min > o->max || o->repeat < 1 || o->max > (1u << 30)) {
        fprintf(stderr, "sonar: need --min <= --max <= 1G and --repeat >= 1\n");
        return -1;
    }
    return 0;
}

/* What the source node has put on the network so far (bytes), split as
 * Gemini VC0/VC1 host-tile phits or Blue Gene chunks (vc1 = 0). */
static void injected(const temu_session *s, int64_t node, uint64_t *vc0, uint64_t *vc1)
{
    const temu_machine *m = temu_session_machine(s);
    *vc0 = *vc1 = 0;
    if (m->system == TEMU_SYSTEM_GEMINI) {
        int tiles[TEMU_GEMINI_TILES];
        int nt = temu_gemini_link_tiles(2 * m->ndims, tiles); /* host link */
        int64_t r = temu_node_router(m, node);
        for (int i = 0; i < nt; i++) {
            *vc0 +=
                3 * temu_counter_read(s, temu_idx_gemini_tile(m, r, tiles[i], TEMU_TILE_VC0_PHITS));
            *vc1 +=
                3 * temu_counter_read(s, temu_idx_gemini_tile(m, r, tiles[i], TEMU_TILE_VC1_PHITS));
        }
        return;
    }
    for (int l = 0; l < 2 * m->ndims; l++) {
        if (m->system == TEMU_SYSTEM_BGQ) {
            for (int vc = 0; vc < TEMU_BGQ_VCS; vc++) {
                *vc0 += 32 * temu_counter_read(
                                 s, temu_idx_bgq_nw(m, node, l, TEMU_BGQ_NW_SENT_CHUNKS, vc));
            }
        } else {
            *vc0 += 32 * temu_counter_read(s, temu_idx_bgp(m, node, l, TEMU_BGP_CHUNKS));
        }
    }
}

int main(int argc, char **argv)
{
    opts o;
    int rank, size;
    temu_session *s = NULL;
    temu_error err;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (parse(argc, argv, &o) != 0 || o.src < 0 || o.dst < 0 || o.src >= size || o.dst >= size ||
        o.src == o.dst) {
        if (rank == 0) {
            fprintf(stderr,
                    "usage: sonar [--src R] [--dst R] [--size B | --min B --max B] "
                    "[--payload random|zero] [--repeat N] [--report]\n"
                    "(src and dst: two different ranks below %d)\n",
                    size);
        }
        MPI_Finalize();
        return 2;
    }
    unsigned char *buf = malloc(o.max ? o.max : 1);
    if (buf == NULL) {
        fprintf(stderr, "sonar: out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    uint64_t x = 0x9E3779B97F4A7C15ull;
    for (uint64_t i = 0; i < o.max; i++) { /* xorshift64: no run of equal bytes */
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        buf[i] = o.zero ? 0 : (unsigned char)(x >> 32);
    }
    int64_t src_node = 0;
    if (o.report && rank == o.src) {
        temu_slot slot;
        if (temu_session_attach_env(&s, &err) != TEMU_OK ||
            temu_session_rank_slot(s, rank, &slot, &err) != TEMU_OK) {
            fprintf(stderr, "sonar: --report needs a session (torusemu run): %s\n", err.message);
            s = NULL;
        } else {
            src_node = slot.node;
            int gem = temu_session_machine(s)->system == TEMU_SYSTEM_GEMINI;
            printf("# sonar %d -> %d on %s, %s payload\n", o.src, o.dst,
                   temu_session_machine(s)->name, o.zero ? "zeroed" : "random");
            printf(gem ? "# %10s %14s %14s %8s\n" : "# %10s %14s %8s\n", "bytes",
                   gem ? "VC0 bytes" : "wire bytes", gem ? "VC1 bytes" : "efficiency",
                   "efficiency");
        }
    }
    for (uint64_t b = o.min; b <= o.max; b = b ? b * 2 : 1) {
        for (int k = 0; k < o.repeat; k++) {
            uint64_t a0 = 0, a1 = 0, z0, z1;
            if (s != NULL) {
                injected(s, src_node, &a0, &a1);
            }
            if (rank == o.src) {
                MPI_Send(buf, (int)b, MPI_BYTE, o.dst, 0, MPI_COMM_WORLD);
            } else if (rank == o.dst) {
                MPI_Recv(buf, (int)b, MPI_BYTE, o.src, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            }
            if (s != NULL && k == 0) {
                injected(s, src_node, &z0, &z1);
                double eff = (z0 - a0) + (z1 - a1)
                                 ? 100.0 * (double)b / (double)((z0 - a0) + (z1 - a1))
                                 : 0.0;
                if (temu_session_machine(s)->system == TEMU_SYSTEM_GEMINI) {
                    printf("  %10" PRIu64 " %14" PRIu64 " %14" PRIu64 " %7.1f%%\n", b, z0 - a0,
                           z1 - a1, eff);
                } else {
                    printf("  %10" PRIu64 " %14" PRIu64 " %7.1f%%\n", b, z0 - a0, eff);
                }
            }
        }
        if (b == o.max) {
            break;
        }
    }
    if (s != NULL) {
        temu_session_close(s);
    }
    free(buf);
    MPI_Finalize();
    return 0;
}
