/*
 * stencil27 - halo exchange of a 27-point stencil on a 3-D process grid,
 * the communication of MiniGhost (Pedretti 2013 section VI): every rank owns
 * NX x NY x NZ cells of V variables (doubles) and, once per step, sends each
 * of its up to 26 neighbours (faces, edges, corners; the grid does not wrap)
 * the cells that neighbour needs.
 *
 *   stencil27 --grid PXxPYxPZ [--cells NXxNYxNZ] [--vars V] [--steps T]
 *   stencil27 --grid ... --list            print every message: SRC DST BYTES
 *   stencil27 --grid ... --map-out FILE --machine SPEC --block BXxBYxBZ
 *
 * Rank r sits at x = r mod PX, y = (r / PX) mod PY, z = r / (PX PY).
 * Placement: the launcher's default puts consecutive ranks on a node (an
 * x-line of ranks, like MiniGhost's 1x1x16 "No-Remap"); --map-out writes a
 * map giving each node a BX x BY x BZ block of the grid ("Remap", 2x2x4 in
 * the seed), node k holding block k, blocks numbered x fastest; random
 * placement is the launcher's --map random:SEED.  Messages: Irecv from every
 * neighbour, Isend to every neighbour, Waitall; received halos are checked.
 */
#include <mpi.h>

#include "mapfile.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct grid {
    int p[3]; /* processes per dimension */
    int n[3]; /* cells per process       */
    int vars;
} grid;

static int parse3(const char *s, int *v)
{
    char tail;
    if (sscanf(s, "%dx%dx%d%c", &v[0], &v[1], &v[2], &tail) != 3) {
        return -1;
    }
    return v[0] > 0 && v[1] > 0 && v[2] > 0 ? 0 : -1;
}

static void coords(const grid *g, int r, int *c)
{
    c[0] = r % g->p[0];
    c[1] = r / g->p[0] % g->p[1];
    c[2] = r / (g->p[0] * g->p[1]);
}

/* Rank of the neighbour in direction d (each -1, 0, 1), -1 off the grid. */
static int neighbor(const grid *g, int r, const int *d)
{
    int c[3];
    coords(g, r, c);
    for (int k = 0; k < 3; k++) {
        c[k] += d[k];
        if (c[k] < 0 || c[k] >= g->p[k]) {
            return -1;
        }
    }
    return c[0] + g->p[0] * (c[1] + g->p[1] * c[2]);
}

/* Doubles of the halo sent in direction d: a face, an edge or a corner. */
static size_t halo_len(const grid *g, const int *d)
{
    size_t len = (size_t)g->vars;
    for (int k = 0; k < 3; k++) {
        len *= d[k] != 0 ? 1 : (size_t)g->n[k];
    }
    return len;
}

/* Direction number 0..26 <-> d; 13 is (0,0,0). */
static void direction(int i, int *d)
{
    d[0] = i % 3 - 1;
    d[1] = i / 3 % 3 - 1;
    d[2] = i / 9 - 1;
}

static double value(int from, int dir, int step, size_t i)
{
    return from * 1.0e6 + dir * 1.0e4 + step * 100.0 + (double)i * 0.37;
}

static int list_messages(const grid *g, int steps)
{
    int n = g->p[0] * g->p[1] * g->p[2];
    for (int s = 0; s < steps; s++) {
        for (int r = 0; r < n; r++) {
            for (int i = 0; i < 27; i++) {
                int d[3], nb;
                direction(i, d);
                if (i != 13 && (nb = neighbor(g, r, d)) >= 0) {
                    printf("%d %d %zu\n", r, nb, halo_len(g, d) * sizeof(double));
                }
            }
        }
    }
    return 0;
}

static int write_map(const grid *g, const int *blk, const char *path, const char *spec)
{
    int n = g->p[0] * g->p[1] * g->p[2];
    int nb[3];
    for (int k = 0; k < 3; k++) {
        if (g->p[k] % blk[k] != 0) {
            fprintf(stderr, "stencil27: block %dx%dx%d does not tile the %dx%dx%d grid\n", blk[0],
                    blk[1], blk[2], g->p[0], g->p[1], g->p[2]);
            return -1;
        }
        nb[k] = g->p[k] / blk[k];
    }
    int64_t *node = malloc((size_t)n * sizeof *node);
    int32_t *t = malloc((size_t)n * sizeof *t);
    int rc = -1;
    if (node != NULL && t != NULL) {
        for (int r = 0; r < n; r++) {
            int c[3];
            coords(g, r, c);
            node[r] = c[0] / blk[0] + nb[0] * (c[1] / blk[1] + nb[1] * (c[2] / blk[2]));
            t[r] = c[0] % blk[0] + blk[0] * (c[1] % blk[1] + blk[1] * (c[2] % blk[2]));
        }
        rc = ex_write_map(path, spec, n, node, t);
    }
    free(node);
    free(t);
    return rc;
}

int main(int argc, char **argv)
{
    grid g = {{0, 0, 0}, {16, 16, 16}, 1};
    int steps = 1, list = 0, blk[3] = {1, 1, 1}, have_grid = 0;
    const char *map_out = NULL, *spec = NULL;
    for (int i = 1; i < argc; i++) {
        const char *v = i + 1 < argc ? argv[i + 1] : "";
        if (strcmp(argv[i], "--list") == 0) {
            list = 1;
            continue;
        }
        i++;
        if (strcmp(argv[i - 1], "--grid") == 0 && parse3(v, g.p) == 0) {
            have_grid = 1;
        } else if (strcmp(argv[i - 1], "--cells") == 0 && parse3(v, g.n) == 0) {
        } else if (strcmp(argv[i - 1], "--block") == 0 && parse3(v, blk) == 0) {
        } else if (strcmp(argv[i - 1], "--vars") == 0 && (g.vars = atoi(v)) > 0) {
        } else if (strcmp(argv[i - 1], "--steps") == 0 && (steps = atoi(v)) > 0) {
        } else if (strcmp(argv[i - 1], "--map-out") == 0) {
            map_out = v;
        } else if (strcmp(argv[i - 1], "--machine") == 0) {
            spec = v;
        } else {
            fprintf(stderr, "stencil27: bad option '%s %s'\n", argv[i - 1], v);
            return 2;
        }
    }
    if (!have_grid) {
        fprintf(stderr, "usage: stencil27 --grid PXxPYxPZ [--cells NXxNYxNZ] [--vars V] "
                        "[--steps T] [--list]\n"
                        "       stencil27 --grid PXxPYxPZ --map-out FILE --machine SPEC "
                        "--block BXxBYxBZ\n");
        return 2;
    }
    if (list) {
        return list_messages(&g, steps);
    }
    if (map_out != NULL) {
        if (spec == NULL) {
            fprintf(stderr, "stencil27: --map-out needs --machine SPEC\n");
            return 2;
        }
        return write_map(&g, blk, map_out, spec) == 0 ? 0 : 1;
    }

    int rank, size, bad = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != g.p[0] * g.p[1] * g.p[2]) {
        if (rank == 0) {
            fprintf(stderr, "stencil27: the %dx%dx%d grid needs %d ranks, not %d\n", g.p[0], g.p[1],
                    g.p[2], g.p[0] * g.p[1] * g.p[2], size);
        }
        MPI_Finalize();
        return 2;
    }
    double *out[27], *in[27];
    MPI_Request req[54];
    for (int i = 0; i < 27; i++) {
        int d[3];
        direction(i, d);
        out[i] = malloc(halo_len(&g, d) * sizeof(double) + 8);
        in[i] = malloc(halo_len(&g, d) * sizeof(double) + 8);
        if (out[i] == NULL || in[i] == NULL) {
            fprintf(stderr, "stencil27: out of memory\n");
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
    }
    for (int s = 0; s < steps && !bad; s++) {
        int nreq = 0;
        for (int i = 0; i < 27; i++) { /* receive from the neighbour at -d, tag i */
            int d[3], nb;
            direction(i, d);
            int back[3] = {-d[0], -d[1], -d[2]};
            if (i != 13 && (nb = neighbor(&g, rank, back)) >= 0) {
                MPI_Irecv(in[i], (int)halo_len(&g, d), MPI_DOUBLE, nb, i, MPI_COMM_WORLD,
                          &req[nreq++]);
            }
        }
        for (int i = 0; i < 27; i++) {
            int d[3], nb;
            direction(i, d);
            if (i != 13 && (nb = neighbor(&g, rank, d)) >= 0) {
                size_t len = halo_len(&g, d);
                for (size_t k = 0; k < len; k++) {
                    out[i][k] = value(rank, i, s, k);
                }
                MPI_Isend(out[i], (int)len, MPI_DOUBLE, nb, i, MPI_COMM_WORLD, &req[nreq++]);
            }
        }
        MPI_Waitall(nreq, req, MPI_STATUSES_IGNORE);
        for (int i = 0; i < 27 && !bad; i++) {
            int d[3], nb;
            direction(i, d);
            int back[3] = {-d[0], -d[1], -d[2]};
            if (i != 13 && (nb = neighbor(&g, rank, back)) >= 0) {
                size_t len = halo_len(&g, d);
                for (size_t k = 0; k < len; k++) {
                    if (in[i][k] != value(nb, i, s, k)) {
                        fprintf(stderr, "stencil27: rank %d: wrong halo value from %d\n", rank, nb);
                        bad = 1;
                        break;
                    }
                }
            }
        }
    }
    if (rank == 0 && !bad) {
        printf("stencil27: %dx%dx%d ranks, %dx%dx%d cells x %d vars, %d steps: halos ok\n", g.p[0],
               g.p[1], g.p[2], g.n[0], g.n[1], g.n[2], g.vars, steps);
    }
    for (int i = 0; i < 27; i++) {
        free(out[i]);
        free(in[i]);
    }
    MPI_Finalize();
    return bad;
}
