/*
 * pattern.c - built-in communication patterns for the replay engine.
 * Each generator is a loop over ranks issuing what every rank of the
 * modelled program would call, through the public replay API; doc/replay.md
 * documents the parameters and where each pattern comes from.
 */
#include "gpcnet.h"
#include "torusemu_replay.h"
#include "torusemu_vtime.h"
#include "workload.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

static const char *const names[TEMU_PATTERNS] = {
    "fft", "halo", "gpcnet", "random", "transpose", "tornado", "bisection", "neighbor",
};

const char *temu_pattern_name(int kind)
{
    return kind >= 0 && kind < TEMU_PATTERNS ? names[kind] : NULL;
}

int temu_pattern_parse_name(const char *name)
{
    for (int k = 0; k < TEMU_PATTERNS; k++) {
        if (strcmp(name, names[k]) == 0) {
            return k;
        }
    }
    return -1;
}

/* What a generator needs while it runs. */
typedef struct gen {
    temu_replay *r;
    const temu_pattern *p;
    int32_t base; /* world rank of the pattern's rank 0 (p->first_rank) */
    int32_t n;    /* the pattern's ranks: world ranks base .. base + n - 1 */
    temu_progress_fn progress;
    void *ctx;
    uint64_t done, total;
    temu_error *err;
    int32_t tid, nth; /* this generator's share: thread tid of nth */
    /* temu_pattern_pairs: every message goes to emit instead of a replay
     * (r is NULL then) */
    temu_pair_fn emit;
    void *emit_ctx;
    /* resumable: the pattern is rounds (steps) emitted one at a time by
     * round(g, k) after its kind's prepare; what they share */
    temu_status (*round)(struct gen *g, int32_t k);
    int32_t rounds, next;
    int32_t a, b;     /* fft: the grid; synthetic transpose: k = a */
    uint64_t pair[2]; /* fft: bytes of a pair in phase 1, 2 */
    int32_t *ids, *buf;
    int32_t grid[3], blk[3]; /* halo, neighbor */
    uint64_t bytes;          /* halo, synthetic */
} gen;

/* Progress from thread 0 only, scaled to the whole. */
static void tick(gen *g)
{
    g->done++;
    if (g->progress != NULL && g->tid == 0 && (g->done & 0xffff) == 0) {
        g->progress(g->ctx, g->done * (uint64_t)g->nth, g->total);
    }
}

/* This thread's share [lo, hi) of count items: a contiguous block, so the
 * threads mostly touch different nodes' counters (interleaved items
 * would have them fight over the same cache lines). */
static void share(const gen *g, int64_t count, int64_t *lo, int64_t *hi)
{
    *lo = count * g->tid / g->nth;
    *hi = count * (g->tid + 1) / g->nth;
}

/* A send and its receive (tag 0 unless given). */
static temu_status p2p(gen *g, int32_t comm, int32_t from, int32_t to, int32_t tag, uint64_t bytes)
{
    temu_status st = temu_replay_send(g->r, comm, from, to, tag, bytes, g->err);
    return st == TEMU_OK ? temu_replay_recv(g->r, comm, to, from, tag, bytes, g->err) : st;
}

/* The same between the pattern's ranks from and to (world ranks base +). */
static temu_status job_p2p(gen *g, int32_t from, int32_t to, int32_t tag, uint64_t bytes)
{
    if (g->emit != NULL) {
        return g->emit(g->emit_ctx, from, to, bytes, g->err);
    }
    return p2p(g, TEMU_REPLAY_WORLD, g->base + from, g->base + to, tag, bytes);
}

/* Virtual time (a replay with temu_replay_set_vtime): before a step every
 * rank computes the pattern's compute_ps, after it every rank waits for
 * the step's messages (they are posted at once: temu_vt_set_post_all). */
static temu_status vt_step(gen *g, int before)
{
    temu_vt *vt = g->r != NULL ? temu_replay_vtime(g->r) : NULL;
    temu_status st = TEMU_OK;
    for (int32_t r = 0; vt != NULL && st == TEMU_OK && r < g->n; r++) {
        st = before ? temu_vt_compute(vt, g->base + r, g->p->compute_ps, g->err)
                    : temu_vt_wait(vt, g->base + r, 0, g->err);
    }
    return st;
}

/* Define a communicator of n members, member i = the pattern's rank
 * first + i * stride. */
static temu_status strided_comm(gen *g, int32_t first, int32_t n, int32_t stride, int32_t *id,
                                int32_t *buf)
{
    for (int32_t i = 0; i < n; i++) {
        buf[i] = g->base + first + i * stride;
    }
    *id = temu_replay_unused_comm(g->r);
    return temu_replay_comm(g->r, *id, n, buf, g->err);
}

/* ------------------------------------------------------------------ fft */

/*
 * The transposes of a 3-D FFT on a 2-D processor grid (McCraw et al.,
 * "Beyond the CPU: Hardware Performance Counter Monitoring on Blue Gene/Q",
 * section 4.2; seed 003).  grid = A x B: B rows ("subgroups") of A ranks,
 * row i holding ranks i, i + B, i + 2B, ... (the seed's 16 x 512 grid:
 * rows of 16 ranks 512 apart, Table 5).  An N^3 array of double-complex
 * (16-byte) points is spread evenly, so each rank holds 16 N^3 / P bytes
 * and sends 1/A of it to every member of its row in the first all-to-all
 * (MPI_Alltoall on the row communicator) and 1/B to every member of its
 * column (ranks jB .. jB + B - 1) in the second.
 */
/* The pairs of one all-to-all step of fft_phase (temu_pattern_pairs):
 * every member of every group sends `pair` bytes to every other member. */
static temu_status fft_phase_pairs(gen *g, int phase, int32_t a, int32_t b, uint64_t pair)
{
    int32_t groups = phase == 1 ? b : a, members = phase == 1 ? a : b;
    temu_status st = TEMU_OK;
    for (int32_t i = 0; st == TEMU_OK && i < groups; i++) {
        for (int32_t x = 0; st == TEMU_OK && x < members; x++) {
            for (int32_t y = 0; st == TEMU_OK && y < members; y++) {
                int32_t from = phase == 1 ? i + x * b : i * b + x;
                int32_t to = phase == 1 ? i + y * b : i * b + y;
                st = x != y ? job_p2p(g, from, to, 0, pair) : TEMU_OK;
            }
        }
    }
    return st;
}

/* The communicators of phase's all-to-alls (a row or column each). */
static temu_status fft_comms(gen *g, int phase)
{
    int32_t groups = phase == 1 ? g->b : g->a;
    temu_status st = TEMU_OK;
    for (int32_t i = 0; st == TEMU_OK && i < groups; i++) {
        st = phase == 1 ? strided_comm(g, i, g->a, g->b, &g->ids[i], g->buf)
                        : strided_comm(g, i * g->b, g->b, 1, &g->ids[i], g->buf);
    }
    return st;
}

/* Round k: step k mod steps of the first phase run, then of the second. */
static temu_status fft_round(gen *g, int32_t k)
{
    int phase = (g->p->phase == 2 ? 2 : 1) + k / g->p->steps;
    int32_t step = k % g->p->steps;
    int32_t groups = phase == 1 ? g->b : g->a, members = phase == 1 ? g->a : g->b;
    uint64_t pair = g->pair[phase - 1];
    if (g->emit != NULL) {
        return step == 0 ? fft_phase_pairs(g, phase, g->a, g->b, pair) : TEMU_OK;
    }
    temu_status st = step == 0 ? fft_comms(g, phase) : TEMU_OK;
    temu_replay_coll c = {.op = TEMU_COLL_ALLTOALL, .blocking = 1, .commutative = 1, .bytes = pair};
    int64_t lo, hi;
    share(g, groups, &lo, &hi);
    st = st == TEMU_OK ? vt_step(g, 1) : st;
    for (int32_t i = (int32_t)lo; st == TEMU_OK && i < hi; i++) {
        for (int32_t me = 0; st == TEMU_OK && me < members; me++) {
            st = temu_replay_collective(g->r, g->ids[i], me, &c, g->err);
            tick(g);
        }
    }
    return st == TEMU_OK ? vt_step(g, 0) : st;
}

static temu_status fft(gen *g)
{
    const temu_pattern *p = g->p;
    int32_t a = p->grid[0], b = p->grid[1];
    uint64_t n = p->size;
    if (a <= 0 || b <= 0 || p->grid[2] > 1 || (int64_t)a * b != g->n) {
        return temu_fail(g->err, TEMU_EINVAL,
                         "fft: --grid AxB must hold the %d ranks (A ranks per row, B rows)", g->n);
    }
    if (n == 0 || n > 1000000) {
        return temu_fail(g->err, TEMU_EINVAL, "fft: --size N (points per dimension) is required");
    }
    uint64_t total = 16 * n * n * n; /* bytes of the whole array */
    uint64_t per_rank = total / (uint64_t)g->n;
    if (total % (uint64_t)g->n != 0 || (p->phase != 2 && per_rank % (uint64_t)a != 0) ||
        (p->phase != 1 && per_rank % (uint64_t)b != 0)) {
        return temu_fail(g->err, TEMU_EINVAL,
                         "fft: %llu^3 points do not split evenly over a %dx%d grid",
                         (unsigned long long)n, a, b);
    }
    g->buf = malloc((size_t)(a > b ? a : b) * sizeof *g->buf);
    g->ids = malloc((size_t)(a > b ? a : b) * sizeof *g->ids);
    if (g->buf == NULL || g->ids == NULL) {
        return temu_fail(g->err, TEMU_ENOMEM, "fft: out of memory");
    }
    g->a = a;
    g->b = b;
    g->pair[0] = per_rank / (uint64_t)a;
    g->pair[1] = per_rank / (uint64_t)b;
    g->rounds = p->steps * (p->phase == 0 ? 2 : 1);
    g->total = (uint64_t)g->n * (uint64_t)g->rounds;
    g->round = fft_round;
    return TEMU_OK;
}

/* ----------------------------------------------------------------- halo */

/* Rank of grid point (x, y, z): x fastest, or in bricks of blk (brick
 * index x fastest, then the position inside the brick x fastest). */
static int32_t halo_rank(const int32_t *grid, const int32_t *blk, int32_t x, int32_t y, int32_t z)
{
    int32_t nb[3] = {grid[0] / blk[0], grid[1] / blk[1], grid[2] / blk[2]};
    int32_t brick = x / blk[0] + nb[0] * (y / blk[1] + nb[1] * (z / blk[2]));
    int32_t in = x % blk[0] + blk[0] * (y % blk[1] + blk[1] * (z % blk[2]));
    return brick * blk[0] * blk[1] * blk[2] + in;
}

/*
 * MiniGhost's boundary exchange (Barrett, Vaughan and Heroux, SAND
 * 2011-5294832; the Cielo study of Pedretti et al., "Using the Cray Gemini
 * Performance Counters", CUG 2013, section VI): a 3-D grid of X x Y x Z
 * ranks, n^3 cells each, no wrap-around.  With BSPMA (message aggregation)
 * every rank sends one message per existing face neighbour per time step
 * holding all `vars` variables of the face including its ghost rows:
 * (n + 2)^2 * vars * 8 bytes (a 2x2x2 run with 50^3 cells and 5 variables
 * sent 52 * 52 * 5 * 8 = 108,160 bytes per message, reference/anchors
 * REPORT section 3.1).  MiniGhost numbers ranks x fastest; `block` renumbers
 * them so each run of bx*by*bz consecutive ranks is one brick (the "Remap"
 * 2x2x4 placement of the seed against the default 1x1x16).
 */
/* One time step: every rank to each of its face neighbours. */
static temu_status halo_round(gen *g, int32_t k)
{
    (void)k;
    const int32_t *grid = g->grid, *blk = g->blk;
    int64_t lo, hi;
    share(g, (int64_t)grid[1] * grid[2], &lo, &hi);
    temu_status st = vt_step(g, 1);
    for (int64_t yz = lo; st == TEMU_OK && yz < hi; yz++) {
        int32_t y = (int32_t)(yz % grid[1]), z = (int32_t)(yz / grid[1]);
        for (int32_t x = 0; st == TEMU_OK && x < grid[0]; x++) {
            int32_t c[3] = {x, y, z};
            int32_t me = halo_rank(grid, blk, x, y, z);
            for (int d = 0; st == TEMU_OK && d < 3; d++) {
                for (int s = -1; st == TEMU_OK && s <= 1; s += 2) {
                    int32_t q[3] = {c[0], c[1], c[2]};
                    q[d] += s;
                    if (q[d] < 0 || q[d] >= grid[d]) {
                        continue;
                    }
                    st = job_p2p(g, me, halo_rank(grid, blk, q[0], q[1], q[2]), 2 * d + (s > 0),
                                 g->bytes);
                }
            }
            tick(g);
        }
    }
    return st == TEMU_OK ? vt_step(g, 0) : st;
}

static temu_status halo(gen *g)
{
    const temu_pattern *p = g->p;
    int32_t grid[3], blk[3];
    for (int d = 0; d < 3; d++) {
        grid[d] = p->grid[d] > 0 ? p->grid[d] : 1;
        blk[d] = p->block[d] > 0 ? p->block[d] : 1;
    }
    if (grid[0] % blk[0] != 0 || grid[1] % blk[1] != 0 || grid[2] % blk[2] != 0) {
        return temu_fail(g->err, TEMU_EINVAL,
                         "halo: --block %dx%dx%d does not tile the %dx%dx%d grid", blk[0], blk[1],
                         blk[2], grid[0], grid[1], grid[2]);
    }
    if ((int64_t)grid[0] * grid[1] * grid[2] != g->n) {
        return temu_fail(g->err, TEMU_EINVAL, "halo: --grid XxYxZ must hold the %d ranks", g->n);
    }
    uint64_t n = p->size > 0 ? p->size : 100;
    uint64_t vars = p->vars > 0 ? (uint64_t)p->vars : 20;
    if (n > 100000) {
        return temu_fail(g->err, TEMU_EINVAL, "halo: --size %llu cells per dimension is too large",
                         (unsigned long long)n);
    }
    g->bytes = (n + 2) * (n + 2) * vars * 8;
    memcpy(g->grid, grid, sizeof grid);
    memcpy(g->blk, blk, sizeof blk);
    g->rounds = p->steps;
    g->total = (uint64_t)g->n * (uint64_t)p->steps;
    g->round = halo_round;
    return TEMU_OK;
}

/* --------------------------------------------------------------- gpcnet */

/*
 * GPCNeT's network load test (Chunduri et al., "GPCNeT: Designing a
 * Benchmark Suite for Inducing and Measuring Contention in HPC Networks",
 * SC19; seed 002; gpcnet.c gives GPCNeT's functions), one iteration per
 * step.  The nodes are shuffled (--seed); the first 80 % (1 - --fraction)
 * run congestors, the rest canaries, and every communicator holds the
 * ranks of one process slot (the same node rank) on nodes of one role.
 * Per step, step k using random ring k mod 30 of each canary slot:
 *   P2P Lat       8 B to both ring neighbours
 *   P2P BW+Sync   8 x 128 KiB (--bytes) to both, MPI_Barrier of the slot
 *   Allreduce     an 8-byte MPI_Allreduce of the slot
 * and one round of each congestor group (one slot of the nodes of one
 * congestor): all-to-all (4 KiB pairwise), incast (4 KiB sends to the
 * group's first rank), PUT incast, GET broadcast (4 KiB each).
 */
static temu_status gpcnet_step(gen *g, const temu_gpcnet_layout *l, const int32_t *ids,
                               int32_t step, int32_t *buf)
{
    uint64_t bw = g->p->bytes > 0 ? g->p->bytes : GPC_BW_BYTES;
    int32_t ring = step % GPC_RINGS;
    temu_status st = temu_gpcnet_ring_exchange(g->r, l, ring, GPC_LAT_BYTES, 1, buf, g->err);
    st =
        st == TEMU_OK ? temu_gpcnet_ring_exchange(g->r, l, ring, bw, GPC_BW_MSGS, buf, g->err) : st;
    st = st == TEMU_OK ? temu_gpcnet_slot_coll(g->r, l, ids, &temu_gpcnet_barrier, g->err) : st;
    st = st == TEMU_OK ? temu_gpcnet_slot_coll(g->r, l, ids, &temu_gpcnet_allreduce, g->err) : st;
    g->done += (uint64_t)l->canaries;
    st = st == TEMU_OK ? temu_gpcnet_congestor_round(g->r, l, g->err) : st;
    g->done += (uint64_t)(g->n - l->canaries);
    return st;
}

/* Every step in one round (its rounds of roles are not resumable). */
static temu_status gpcnet_all(gen *g, int32_t k)
{
    (void)k;
    temu_gpcnet_layout l;
    if (g->tid != 0) {
        return TEMU_OK; /* one shuffled order: thread 0 replays it all */
    }
    temu_status st = temu_gpcnet_layout_make(temu_replay_session(g->r), g->base, g->n,
                                             g->p->fraction, g->p->seed, &l, g->err);
    if (st != TEMU_OK) {
        return st;
    }
    int32_t *ids = malloc(((size_t)l.slots + 1) * sizeof *ids);
    int32_t *buf = malloc((size_t)l.canaries * sizeof *buf);
    if (ids == NULL || buf == NULL) {
        st = temu_fail(g->err, TEMU_ENOMEM, "gpcnet: out of memory");
    }
    st = st == TEMU_OK ? temu_gpcnet_canary_comms(g->r, &l, ids, g->err) : st;
    g->total = (uint64_t)g->n * (uint64_t)g->p->steps;
    for (int32_t step = 0; st == TEMU_OK && step < g->p->steps; step++) {
        st = gpcnet_step(g, &l, ids, step, buf);
        if (st == TEMU_OK && g->progress != NULL) {
            g->progress(g->ctx, g->done, g->total);
        }
    }
    free(ids);
    free(buf);
    temu_gpcnet_layout_free(&l);
    return st;
}

/* xorshift64*: a small seeded generator, the same on every host. */
static uint64_t rng_next(uint64_t *s)
{
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return *s * 0x2545F4914F6CDD1Dull;
}

static uint64_t rng_seed(uint64_t seed)
{
    return seed ? seed : 0x9E3779B97F4A7C15ull;
}

/* ------------------------------------------------------------ synthetic */

/*
 * Classic synthetic traffic (Dally and Towles, "Principles and Practices
 * of Interconnection Networks", section 3.2), over ranks 0..P-1, `bytes`
 * per message:
 *   random      each rank to a uniformly chosen other rank (seeded)
 *   transpose   P = k^2, rank i*k + j to j*k + i
 *   tornado     rank r to r + ceil(P/2) - 1 (mod P)
 *   bisection   rank r to r + P/2 and back: every message crosses the middle
 *   neighbor    ranks in a periodic X x Y x Z grid (x fastest), to the - and
 *               + neighbour in every dimension longer than 1
 */
/* Rank r's messages of step `step`. */
static temu_status synthetic_rank(gen *g, int32_t step, int32_t r)
{
    const temu_pattern *p = g->p;
    int32_t n = g->n, k = g->a;
    const int32_t *grid = g->grid;
    uint64_t bytes = g->bytes;
    temu_status st = TEMU_OK;
    switch (p->kind) {
    case TEMU_PATTERN_RANDOM: {
        /* a generator per (step, rank): the same draw on any number of
         * threads */
        uint64_t s =
            rng_seed(p->seed ^ (((uint64_t)step << 32 | (uint32_t)r) * 0x9E3779B97F4A7C15ull));
        int32_t d = (int32_t)(rng_next(&s) % (uint64_t)(n - 1));
        st = job_p2p(g, r, d >= r ? d + 1 : d, 0, bytes);
        break;
    }
    case TEMU_PATTERN_TRANSPOSE:
        if (r / k != r % k) {
            st = job_p2p(g, r, (r % k) * k + r / k, 0, bytes);
        }
        break;
    case TEMU_PATTERN_TORNADO: {
        int32_t d = (int32_t)((r + (n + 1) / 2 - 1) % n);
        if (d != r) {
            st = job_p2p(g, r, d, 0, bytes);
        }
        break;
    }
    case TEMU_PATTERN_BISECTION:
        st = job_p2p(g, r, (r + n / 2) % n, 0, bytes);
        break;
    default: { /* neighbor */
        int32_t c[3] = {r % grid[0], r / grid[0] % grid[1], r / grid[0] / grid[1]};
        for (int d = 0; st == TEMU_OK && d < 3; d++) {
            for (int sgn = -1; st == TEMU_OK && grid[d] > 1 && sgn <= 1; sgn += 2) {
                int32_t q[3] = {c[0], c[1], c[2]};
                q[d] = (q[d] + sgn + grid[d]) % grid[d];
                st = job_p2p(g, r, q[0] + grid[0] * (q[1] + grid[1] * q[2]), 2 * d + (sgn > 0),
                             bytes);
            }
        }
        break;
    }
    }
    return st;
}

/* Step k: every rank's messages. */
static temu_status synthetic_round(gen *g, int32_t k)
{
    int64_t lo, hi;
    share(g, g->n, &lo, &hi);
    temu_status st = vt_step(g, 1);
    for (int32_t r = (int32_t)lo; st == TEMU_OK && r < hi; r++) {
        st = synthetic_rank(g, k, r);
        tick(g);
    }
    return st == TEMU_OK ? vt_step(g, 0) : st;
}

static temu_status synthetic(gen *g)
{
    const temu_pattern *p = g->p;
    int32_t n = g->n;
    uint64_t bytes = p->bytes > 0 ? p->bytes : 4096;
    int32_t k = (int32_t)llround(sqrt((double)n));
    int32_t grid[3] = {n, 1, 1};
    if (p->kind == TEMU_PATTERN_TRANSPOSE && (int64_t)k * k != n) {
        return temu_fail(g->err, TEMU_EINVAL, "transpose: %d ranks are not a square", n);
    }
    if ((p->kind == TEMU_PATTERN_BISECTION || p->kind == TEMU_PATTERN_RANDOM) && n < 2) {
        return temu_fail(g->err, TEMU_EINVAL, "%s: needs at least 2 ranks", names[p->kind]);
    }
    if (p->kind == TEMU_PATTERN_BISECTION && n % 2 != 0) {
        return temu_fail(g->err, TEMU_EINVAL, "bisection: %d ranks are not an even number", n);
    }
    if (p->kind == TEMU_PATTERN_NEIGHBOR && p->grid[0] > 0) {
        for (int d = 0; d < 3; d++) {
            grid[d] = p->grid[d] > 0 ? p->grid[d] : 1;
        }
        if ((int64_t)grid[0] * grid[1] * grid[2] != n) {
            return temu_fail(g->err, TEMU_EINVAL, "neighbor: --grid XxYxZ must hold the %d ranks",
                             n);
        }
    }
    g->a = k;
    g->bytes = bytes;
    memcpy(g->grid, grid, sizeof grid);
    g->rounds = p->steps;
    g->total = (uint64_t)n * (uint64_t)p->steps;
    g->round = synthetic_round;
    return TEMU_OK;
}

/* Defaults filled in and ranges checked (world: the session's ranks). */
static temu_status normalize(const temu_pattern *p, int32_t world, temu_pattern *q, temu_error *err)
{
    *q = *p;
    if (q->nranks == 0 && q->first_rank == 0) {
        q->nranks = world;
    }
    if (q->first_rank < 0 || q->nranks <= 0 || q->nranks > world - q->first_rank) {
        return temu_fail(err, TEMU_EINVAL,
                         "pattern ranks %d .. %lld are not ranks of the session (0 .. %d)",
                         q->first_rank, (long long)q->first_rank + q->nranks - 1, world - 1);
    }
    if (q->steps < 0 || q->steps > 1000000) {
        return temu_fail(err, TEMU_EINVAL, "--steps %d: expected 1..1000000", q->steps);
    }
    if (q->steps == 0) {
        q->steps = 1;
    }
    if (q->fraction < 0 || q->fraction >= 1) {
        return temu_fail(err, TEMU_EINVAL, "--fraction %g: expected a share between 0 and 1",
                         q->fraction);
    }
    if (q->compute_ps < 0) {
        return temu_fail(err, TEMU_EINVAL, "compute time %lld ps: expected 0 or more",
                         (long long)q->compute_ps);
    }
    if (q->kind < 0 || q->kind >= TEMU_PATTERNS) {
        return temu_fail(err, TEMU_EINVAL, "unknown pattern %d", q->kind);
    }
    return TEMU_OK;
}

/* The pattern's parameters checked and its rounds ready (g->round). */
static temu_status prepare(gen *g)
{
    switch (g->p->kind) {
    case TEMU_PATTERN_FFT:
        return fft(g);
    case TEMU_PATTERN_HALO:
        return halo(g);
    case TEMU_PATTERN_GPCNET:
        g->rounds = 1;
        g->round = gpcnet_all;
        return TEMU_OK;
    default:
        return synthetic(g);
    }
}

static void gen_release(gen *g)
{
    free(g->ids);
    free(g->buf);
    g->ids = g->buf = NULL;
}

/* The whole pattern at once. */
static temu_status generate(gen *g)
{
    temu_status st = prepare(g);
    while (st == TEMU_OK && g->next < g->rounds) {
        st = g->round(g, g->next++);
    }
    gen_release(g);
    return st;
}

temu_status temu_pattern_replay(temu_replay *r, const temu_pattern *p, temu_progress_fn progress,
                                void *ctx, temu_error *err)
{
    temu_pattern q;
    temu_status st = normalize(p, temu_replay_nranks(r), &q, err);
    if (st != TEMU_OK) {
        return st;
    }
    gen g = {.r = r,
             .p = &q,
             .base = q.first_rank,
             .n = q.nranks,
             .progress = progress,
             .ctx = ctx,
             .err = err,
             .nth = 1};
    st = generate(&g);
    if (st == TEMU_OK && progress != NULL) {
        progress(ctx, g.total, g.total);
    }
    return st;
}

/* Patterns generated round by round as the ranks of a timed replay
 * reach them (temu_vt_set_sources): one source per pattern. */
struct temu_pattern_gen {
    int n;
    struct lazy_one {
        temu_pattern q;
        gen g;
    } * one;
};

static temu_status lazy_round(void *ctx, int *more, temu_error *err)
{
    gen *g = &((struct lazy_one *)ctx)->g;
    *more = g->next < g->rounds;
    if (!*more) {
        return TEMU_OK;
    }
    g->err = err;
    return g->round(g, g->next++);
}

temu_status temu_pattern_lazy(temu_replay *r, const temu_pattern *p, int np, temu_pattern_gen **out,
                              int *bad, temu_error *err)
{
    temu_vt *vt = temu_replay_vtime(r);
    *out = NULL;
    if (bad != NULL) {
        *bad = -1;
    }
    if (vt == NULL) {
        return temu_fail(err, TEMU_EINVAL, "pattern: generated lazily only in virtual time");
    }
    if (np <= 0 || np > 1024) {
        return temu_fail(err, TEMU_EINVAL, "pattern: %d patterns generated lazily (1 .. 1024)", np);
    }
    temu_pattern_gen *pg = calloc(1, sizeof *pg);
    temu_vt_source *src = calloc((size_t)np, sizeof *src);
    if (pg == NULL || src == NULL || (pg->one = calloc((size_t)np, sizeof *pg->one)) == NULL) {
        free(pg);
        free(src);
        return temu_fail(err, TEMU_ENOMEM, "pattern: out of memory");
    }
    temu_status st = TEMU_OK;
    /* each pattern checked and prepared in order, as temu_pattern_replay
     * one after the other would */
    for (int i = 0; i < np && st == TEMU_OK; i++) {
        struct lazy_one *o = &pg->one[i];
        pg->n = i + 1;
        st = normalize(&p[i], temu_replay_nranks(r), &o->q, err);
        o->g = (gen){
            .r = r, .p = &o->q, .base = o->q.first_rank, .n = o->q.nranks, .err = err, .nth = 1};
        st = st == TEMU_OK ? prepare(&o->g) : st;
        src[i] = (temu_vt_source){o->q.first_rank, o->q.nranks, lazy_round, o, NULL};
        if (st != TEMU_OK && bad != NULL) {
            *bad = i;
        }
    }
    if (st == TEMU_OK) {
        st = temu_vt_set_sources(vt, np, src, err);
    }
    free(src);
    if (st != TEMU_OK) {
        temu_pattern_gen_free(pg);
        return st;
    }
    *out = pg;
    return TEMU_OK;
}

void temu_pattern_gen_free(temu_pattern_gen *pg)
{
    if (pg != NULL) {
        for (int i = 0; i < pg->n; i++) {
            gen_release(&pg->one[i].g);
        }
        free(pg->one);
        free(pg);
    }
}

temu_status temu_pattern_pairs(const temu_pattern *p, int32_t nranks, temu_pair_fn fn, void *ctx,
                               temu_error *err)
{
    temu_pattern one = *p, q;
    one.first_rank = 0;
    one.nranks = nranks;
    one.steps = 1;
    temu_status st = normalize(&one, nranks, &q, err);
    if (st == TEMU_OK && q.kind == TEMU_PATTERN_GPCNET) {
        st = temu_fail(err, TEMU_EINVAL, "gpcnet: its rounds are not a list of pairs");
    }
    if (st != TEMU_OK) {
        return st;
    }
    gen g = {.p = &q, .n = nranks, .err = err, .nth = 1, .emit = fn, .emit_ctx = ctx};
    return generate(&g);
}

/* One thread's share of a parallel replay: its own replay (its own
 * matching queues; every send's receive follows in the same share). */
typedef struct worker {
    temu_replay *r;
    gen g;
    temu_status st;
    temu_error err;
    pthread_t th;
} worker;

static void *work(void *arg)
{
    worker *w = arg;
    w->st = generate(&w->g);
    if (w->st == TEMU_OK) {
        w->st = temu_replay_finish(w->r, &w->err);
    }
    return NULL;
}

temu_status temu_pattern_run(temu_session *s, const temu_pattern *p, int nthreads,
                             temu_progress_fn progress, void *ctx, temu_replay_stats *stats,
                             temu_error *err)
{
    temu_pattern q;
    temu_status st = normalize(p, temu_session_nranks(s), &q, err);
    if (st != TEMU_OK) {
        return st;
    }
    if (nthreads < 1 || nthreads > 64) {
        return temu_fail(err, TEMU_EINVAL, "--threads %d: expected 1..64", nthreads);
    }
    worker *w = calloc((size_t)nthreads, sizeof *w);
    if (w == NULL) {
        return temu_fail(err, TEMU_ENOMEM, "out of memory");
    }
    int started = 0;
    for (int t = 0; t < nthreads && st == TEMU_OK; t++) {
        st = temu_replay_create(s, &w[t].r, err);
        w[t].g = (gen){.r = w[t].r,
                       .p = &q,
                       .base = q.first_rank,
                       .n = q.nranks,
                       .progress = progress,
                       .ctx = ctx,
                       .err = &w[t].err,
                       .tid = t,
                       .nth = nthreads};
    }
    for (int t = 1; t < nthreads && st == TEMU_OK; t++) {
        if (pthread_create(&w[t].th, NULL, work, &w[t]) != 0) {
            st = temu_fail(err, TEMU_ENOMEM, "cannot start a replay thread");
            break;
        }
        started = t;
    }
    if (st == TEMU_OK) {
        work(&w[0]);
    }
    for (int t = 1; t <= started; t++) {
        pthread_join(w[t].th, NULL);
    }
    memset(stats, 0, sizeof *stats);
    for (int t = 0; t < nthreads; t++) {
        if (st == TEMU_OK && w[t].st != TEMU_OK) {
            st = w[t].st;
            if (err != NULL) {
                *err = w[t].err;
            }
        }
        if (w[t].r != NULL) {
            temu_replay_stats one;
            temu_replay_get_stats(w[t].r, &one);
            stats->sends += one.sends;
            stats->recvs += one.recvs;
            stats->rma += one.rma;
            stats->colls += one.colls;
            stats->messages += one.messages;
            stats->unmatched_sends += one.unmatched_sends;
            stats->unmatched_recvs += one.unmatched_recvs;
        }
        temu_replay_free(w[t].r);
    }
    if (st == TEMU_OK && progress != NULL) {
        progress(ctx, w[0].g.total, w[0].g.total);
    }
    free(w);
    return st;
}
