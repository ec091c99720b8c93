/*
 * coll.c - collective operations as lists of point-to-point messages.
 *
 * Pure functions of (operation, communicator size, root, sizes, rank).  The
 * algorithms are those of MPICH2, from which Cray MPT (Gemini) and the Blue
 * Gene/P and /Q MPI libraries were derived; their rules and size thresholds
 * follow R. Thakur, R. Rabenseifner, W. Gropp, "Optimization of Collective
 * Communication Operations in MPICH", IJHPCA 19(1):49-66, 2005.  Blue Gene
 * machines ran a few blocking collectives on a collective network instead
 * (TMPI_ALGO_CLASSROUTE / _COLLNET), and all-to-all as direct messages
 * between every pair of ranks.  doc/mpi.md has the full table.
 *
 * Ranks: n ranks 0..n-1; rooted algorithms work on relative ranks
 * vr = (r - root) mod n.  Sizes are bytes unless said otherwise.
 */
#include "coll.h"

#include <stddef.h>

/* temu_collnet values (include/torusemu.h), repeated to keep this file free
 * of the emulator header. */
enum { COLLNET_WORLD = 1, COLLNET_CLASS_ROUTES = 2 };

static int is_pof2(int32_t n)
{
    return n > 0 && (n & (n - 1)) == 0;
}

/* Largest power of two <= n (n >= 1). */
static int32_t pof2_floor(int32_t n)
{
    int32_t p = 1;
    while (p <= n / 2) {
        p <<= 1;
    }
    return p;
}

/* Smallest power of two >= n. */
static int32_t pof2_ceil(int32_t n)
{
    int32_t p = 1;
    while (p < n) {
        p <<= 1;
    }
    return p;
}

static int32_t lowbit(int32_t v)
{
    return v & -v;
}

/* log2 of a power of two (v >= 1): the round of a step m = 1, 2, 4 ... */
static int32_t ilog2(int32_t v)
{
    int32_t k = 0;
    while (v > 1) {
        v >>= 1;
        k++;
    }
    return k;
}

/* Tree rounds: the step that sends over distance k (a power of two) in a
 * binomial tree of n ranks; larger distances go first. */
static int32_t tree_round(int32_t n, int32_t k)
{
    return ilog2(pof2_ceil(n)) - 1 - ilog2(k);
}

const char *tmpi_coll_op_name(temu_coll_op op)
{
    static const char *names[TEMU_COLL_OPS] = {
        "barrier",          "bcast",     "gather",    "gatherv",
        "scatter",          "scatterv",  "allgather", "allgatherv",
        "alltoall",         "alltoallv", "reduce",    "allreduce",
        "reduce_scatter",   "scan",      "exscan",    "neighbor_allgather",
        "neighbor_alltoall"};
    return (unsigned)op < TEMU_COLL_OPS ? names[op] : "?";
}

const char *tmpi_algo_name(tmpi_algo algo)
{
    static const char *names[TMPI_ALGOS] = {"none",
                                            "dissemination",
                                            "binomial",
                                            "binomial-noncommutative",
                                            "scatter+recursive-doubling",
                                            "scatter+ring",
                                            "linear",
                                            "recursive-doubling",
                                            "bruck",
                                            "ring",
                                            "pairwise",
                                            "rabenseifner",
                                            "neighbor",
                                            "classroute",
                                            "collective-network"};
    return (unsigned)algo < TMPI_ALGOS ? names[algo] : "?";
}

/* ------------------------------------------------------------ choice */

static uint64_t sum_blocks(const tmpi_coll *c)
{
    uint64_t s = 0;
    if (c->blocks == NULL) {
        return (uint64_t)c->n * c->bytes;
    }
    for (int32_t j = 0; j < c->n; j++) {
        s += c->blocks[j];
    }
    return s;
}

/* Blue Gene collective networks carried barrier, broadcast and reductions
 * with predefined operations (McCraw 2013; doc/mpi.md). */
static tmpi_algo collective_network(const tmpi_coll_env *env, const tmpi_coll *c)
{
    int rooted_data = c->op == TEMU_COLL_BARRIER || c->op == TEMU_COLL_BCAST;
    int reduction = c->op == TEMU_COLL_REDUCE || c->op == TEMU_COLL_ALLREDUCE;
    if (!env->blocking || !(rooted_data || (reduction && env->hw_op))) {
        return TMPI_ALGO_NONE;
    }
    if (env->collnet == COLLNET_CLASS_ROUTES && (env->spans_world || env->box)) {
        return TMPI_ALGO_CLASSROUTE;
    }
    if (env->collnet == COLLNET_WORLD && env->spans_world) {
        return TMPI_ALGO_COLLNET;
    }
    return TMPI_ALGO_NONE;
}

tmpi_algo tmpi_coll_choose(const tmpi_coll_env *env, const tmpi_coll *c)
{
    int32_t n = c->n;
    if (n <= 1) {
        return TMPI_ALGO_NONE;
    }
    tmpi_algo net = collective_network(env, c);
    if (net != TMPI_ALGO_NONE) {
        return net;
    }
    switch (c->op) {
    case TEMU_COLL_BARRIER:
        return TMPI_ALGO_DISSEMINATION;
    case TEMU_COLL_BCAST:
        if (c->bytes < TMPI_BCAST_SHORT || n < TMPI_BCAST_MIN_PROCS) {
            return TMPI_ALGO_BINOMIAL;
        }
        return c->bytes < TMPI_BCAST_LONG && is_pof2(n) ? TMPI_ALGO_SCATTER_RD
                                                        : TMPI_ALGO_SCATTER_RING;
    case TEMU_COLL_REDUCE:
        return c->commutative ? TMPI_ALGO_BINOMIAL : TMPI_ALGO_BINOMIAL_NONCOMM;
    case TEMU_COLL_ALLREDUCE:
        if (c->bytes <= TMPI_ALLREDUCE_SHORT || !c->commutative ||
            c->count < (uint64_t)pof2_floor(n)) {
            return TMPI_ALGO_RECURSIVE_DOUBLING;
        }
        return TMPI_ALGO_RABENSEIFNER;
    case TEMU_COLL_GATHER:
    case TEMU_COLL_SCATTER:
        return TMPI_ALGO_BINOMIAL;
    case TEMU_COLL_GATHERV:
    case TEMU_COLL_SCATTERV:
        return TMPI_ALGO_LINEAR;
    case TEMU_COLL_ALLGATHER:
    case TEMU_COLL_ALLGATHERV: {
        uint64_t total = sum_blocks(c);
        if (is_pof2(n) && total < TMPI_ALLGATHER_LONG) {
            return TMPI_ALGO_RECURSIVE_DOUBLING;
        }
        return total < TMPI_ALLGATHER_SHORT ? TMPI_ALGO_BRUCK : TMPI_ALGO_RING;
    }
    case TEMU_COLL_ALLTOALL:
        if (env->bruck_alltoall && c->bytes <= TMPI_ALLTOALL_SHORT &&
            n >= TMPI_ALLTOALL_MIN_PROCS) {
            return TMPI_ALGO_BRUCK;
        }
        return TMPI_ALGO_PAIRWISE;
    case TEMU_COLL_ALLTOALLV:
    case TEMU_COLL_REDUCE_SCATTER:
        return TMPI_ALGO_PAIRWISE;
    case TEMU_COLL_SCAN:
    case TEMU_COLL_EXSCAN:
        return TMPI_ALGO_RECURSIVE_DOUBLING;
    case TEMU_COLL_NEIGHBOR_ALLGATHER:
    case TEMU_COLL_NEIGHBOR_ALLTOALL:
        return TMPI_ALGO_NEIGHBOR;
    case TEMU_COLL_OPS:
        break;
    }
    return TMPI_ALGO_NONE;
}

temu_kind tmpi_coll_msg_kind(temu_coll_op op)
{
    return op == TEMU_COLL_ALLTOALL || op == TEMU_COLL_ALLTOALLV ? TEMU_KIND_ALLTOALL
                                                                 : TEMU_KIND_P2P;
}

/* ------------------------------------------------------------ emission */

typedef struct out {
    const tmpi_coll *c;
    tmpi_emit_fn emit;
    void *ctx;
} out;

/* Emit one message to communicator rank dst; empty ones only for the
 * barrier, whose messages carry no data by definition. */
static void put(const out *o, int32_t dst, uint64_t bytes, int buf, uint64_t off, int32_t round)
{
    tmpi_msg m;
    if (bytes == 0 && o->c->op != TEMU_COLL_BARRIER) {
        return;
    }
    m.dst = dst;
    m.bytes = bytes;
    m.buf = buf;
    m.off = off;
    m.round = round;
    m.pad = 0;
    o->emit(o->ctx, &m);
}

static int32_t absolute(const tmpi_coll *c, int32_t vr)
{
    return (int32_t)((vr + c->root) % c->n);
}

/* Block size of rank j (absolute) for operations with per-rank blocks. */
static uint64_t block_of(const tmpi_coll *c, int32_t j)
{
    return c->blocks != NULL ? c->blocks[j] : c->bytes;
}

static uint64_t offset_of(const tmpi_coll *c, int32_t j)
{
    if (c->offs != NULL) {
        return c->offs[j];
    }
    return c->blocks == NULL ? (uint64_t)j * c->bytes : 0;
}

/* Sum of the blocks of absolute ranks start, start+1, ... (cnt of them,
 * modulo n). */
static uint64_t block_run(const tmpi_coll *c, int32_t start, int32_t cnt)
{
    uint64_t s = 0;
    for (int32_t i = 0; i < cnt; i++) {
        s += block_of(c, (start + i) % c->n);
    }
    return s;
}

/* A run of blocks is one slice of its buffer when it does not wrap and
 * the blocks sit back to back there (always with fixed-size blocks). */
static int run_slice(const tmpi_coll *c, int32_t start, int32_t cnt, uint64_t *off)
{
    if (start + cnt > c->n) {
        return 0;
    }
    if (c->blocks != NULL) {
        if (c->offs == NULL) {
            return 0;
        }
        for (int32_t i = 1; i < cnt; i++) {
            if (c->offs[start + i] != c->offs[start + i - 1] + c->blocks[start + i - 1]) {
                return 0;
            }
        }
    }
    *off = offset_of(c, start);
    return 1;
}

/* ----------------------------------------------------- barrier, trees */

/* Dissemination (MPICH): in round k every rank signals r + 2^k. */
static void barrier_dissemination(const out *o, int32_t me)
{
    int32_t n = o->c->n;
    for (int32_t m = 1; m < n; m <<= 1) {
        put(o, (me + m) % n, 0, TMPI_BUF_NONE, 0, ilog2(m));
    }
}

/* Binomial broadcast: relative rank vr receives from vr - lowbit(vr) and
 * sends to vr + k for every power of two k below lowbit(vr) (the root's
 * "lowbit" is the first power of two >= n), largest k first. */
static void bcast_binomial(const out *o, int32_t me)
{
    const tmpi_coll *c = o->c;
    int32_t n = c->n, vr = (me - c->root + n) % n;
    int32_t top = vr == 0 ? pof2_ceil(n) : lowbit(vr);
    for (int32_t k = top >> 1; k >= 1; k >>= 1) {
        if (vr + k < n) {
            put(o, absolute(c, vr + k), c->bytes, TMPI_BUF_RECV, 0, tree_round(n, k));
        }
    }
}

/* Binomial reduction/gather towards relative rank 0: every other rank sends
 * once, to vr - lowbit(vr), after receiving from its subtree
 * [vr, vr + lowbit(vr)).  Gather carries the subtree's blocks. */
static void tree_up(const out *o, int32_t me, int gather)
{
    const tmpi_coll *c = o->c;
    int32_t n = c->n, vr = (me - c->root + n) % n;
    if (vr == 0) {
        return;
    }
    int32_t low = lowbit(vr);
    int32_t parent = absolute(c, vr - low);
    /* a leaf (subtree of one) sends its own data, others what they gathered
     * or reduced */
    int32_t cnt = n - vr < low ? n - vr : low;
    int buf = cnt == 1 ? TMPI_BUF_SEND : TMPI_BUF_NONE;
    /* after the subtree's sends over the smaller distances */
    put(o, parent, gather ? (uint64_t)cnt * c->bytes : c->bytes, buf, 0, ilog2(low));
}

/* Non-commutative reduce (MPICH): the binomial tree on absolute ranks ends
 * at rank 0, which then sends the result to the root. */
static void reduce_noncomm(const out *o, int32_t me)
{
    tmpi_coll flat = *o->c;
    out o2 = *o;
    flat.root = 0;
    o2.c = &flat;
    tree_up(&o2, me, 0);
    if (me == 0 && o->c->root != 0) {
        put(o, o->c->root, o->c->bytes, TMPI_BUF_NONE, 0, ilog2(pof2_ceil(o->c->n)));
    }
}

/* Binomial scatter: the parent sends child vr + k the blocks of the
 * child's subtree [vr + k, vr + k + min(k, n - vr - k)). */
static void scatter_binomial(const out *o, int32_t me)
{
    const tmpi_coll *c = o->c;
    int32_t n = c->n, vr = (me - c->root + n) % n;
    int32_t top = vr == 0 ? pof2_ceil(n) : lowbit(vr);
    for (int32_t k = top >> 1; k >= 1; k >>= 1) {
        int32_t child = vr + k;
        if (child >= n) {
            continue;
        }
        int32_t cnt = n - child < k ? n - child : k;
        uint64_t off = 0;
        int32_t start = absolute(c, child);
        int buf = vr == 0 && run_slice(c, start, cnt, &off) ? TMPI_BUF_SEND : TMPI_BUF_NONE;
        put(o, absolute(c, child), (uint64_t)cnt * c->bytes, buf, off, tree_round(n, k));
    }
}

/* ------------------------------------------------ long broadcasts */

/* Bcast of long messages (van de Geijn, as MPICH): the buffer is cut in n
 * chunks of ss = ceil(bytes/n), chunk j going to relative rank j; a
 * binomial scatter hands them out and an allgather (recursive doubling for
 * a power-of-two n, else a ring) completes every rank. */
static uint64_t chunk_bytes(const tmpi_coll *c, uint64_t ss, int32_t j)
{
    uint64_t start = (uint64_t)j * ss;
    if (start >= c->bytes) {
        return 0;
    }
    return c->bytes - start < ss ? c->bytes - start : ss;
}

static uint64_t chunk_run(const tmpi_coll *c, uint64_t ss, int32_t j, int32_t cnt)
{
    uint64_t s = 0;
    for (int32_t i = 0; i < cnt; i++) {
        s += chunk_bytes(c, ss, j + i);
    }
    return s;
}

static void bcast_long(const out *o, int32_t me, int ring)
{
    const tmpi_coll *c = o->c;
    int32_t n = c->n, vr = (me - c->root + n) % n;
    uint64_t ss = (c->bytes + (uint64_t)n - 1) / (uint64_t)n;
    int32_t top = vr == 0 ? pof2_ceil(n) : lowbit(vr);

    int32_t after = ilog2(pof2_ceil(n));          /* the allgather's first round */
    for (int32_t k = top >> 1; k >= 1; k >>= 1) { /* scatter */
        int32_t child = vr + k;
        if (child < n) {
            int32_t cnt = n - child < k ? n - child : k;
            put(o, absolute(c, child), chunk_run(c, ss, child, cnt), TMPI_BUF_RECV,
                (uint64_t)child * ss, tree_round(n, k));
        }
    }
    if (ring) {
        for (int32_t i = 0; i < n - 1; i++) {
            int32_t j = (vr - i + n) % n;
            put(o, absolute(c, (vr + 1) % n), chunk_bytes(c, ss, j), TMPI_BUF_RECV,
                (uint64_t)j * ss, after + i);
        }
        return;
    }
    for (int32_t m = 1; m < n; m <<= 1) {
        int32_t group = vr & ~(m - 1);
        put(o, absolute(c, vr ^ m), chunk_run(c, ss, group, m), TMPI_BUF_RECV, (uint64_t)group * ss,
            after + ilog2(m));
    }
}

/* ------------------------------------------------------ allgather */

/* Recursive doubling (n a power of two): in step m = 1, 2, 4 ... rank r
 * sends the m blocks of its aligned group to r ^ m. */
static void allgather_rd(const out *o, int32_t me)
{
    const tmpi_coll *c = o->c;
    for (int32_t m = 1; m < c->n; m <<= 1) {
        int32_t group = me & ~(m - 1);
        uint64_t off = 0;
        int buf = run_slice(c, group, m, &off) ? TMPI_BUF_RECV : TMPI_BUF_NONE;
        put(o, me ^ m, block_run(c, group, m), buf, off, ilog2(m));
    }
}

/* Bruck: rank r holds blocks r, r+1, ... (mod n); for pof2 = 1, 2, 4 ...
 * <= n/2 it sends the pof2 blocks it holds to r - pof2, then the first
 * n - pof2 blocks in a last step. */
static void allgather_bruck(const out *o, int32_t me)
{
    const tmpi_coll *c = o->c;
    int32_t n = c->n, p = 1;
    for (; p <= n / 2; p <<= 1) {
        uint64_t off = 0;
        int buf = run_slice(c, me, p, &off) ? TMPI_BUF_RECV : TMPI_BUF_NONE;
        put(o, (me - p + n) % n, block_run(c, me, p), buf, off, ilog2(p));
    }
    if (n - p > 0) {
        uint64_t off = 0;
        int buf = run_slice(c, me, n - p, &off) ? TMPI_BUF_RECV : TMPI_BUF_NONE;
        put(o, (me - p + n) % n, block_run(c, me, n - p), buf, off, ilog2(p));
    }
}

/* Ring: in step i rank r passes block r - i to r + 1. */
static void allgather_ring(const out *o, int32_t me)
{
    const tmpi_coll *c = o->c;
    int32_t n = c->n;
    for (int32_t i = 0; i < n - 1; i++) {
        int32_t j = (me - i + n) % n;
        put(o, (me + 1) % n, block_of(c, j), TMPI_BUF_RECV, offset_of(c, j), i);
    }
}

/* ------------------------------------------------------- all-to-all */

/* Number of j in [0, n) with bit value `bit` set. */
static int32_t count_bit(int32_t n, int32_t bit)
{
    int32_t period = bit << 1;
    int32_t rest = n % period - bit;
    return n / period * bit + (rest > 0 ? rest : 0);
}

/* Bruck all-to-all: for pof2 = 1, 2, 4 ... < n, rank r sends to r + pof2
 * the blocks whose (rotated) index has bit pof2 set, packed together. */
static void alltoall_bruck(const out *o, int32_t me)
{
    int32_t n = o->c->n;
    for (int32_t p = 1; p < n; p <<= 1) {
        put(o, (me + p) % n, (uint64_t)count_bit(n, p) * o->c->bytes, TMPI_BUF_NONE, 0, ilog2(p));
    }
}

/* One message to every other rank, r + 1, r + 2, ... (mod n): the
 * scattered isend/irecv and pairwise-exchange algorithms both send exactly
 * these; the order is not counted. */
static void pairwise(const out *o, int32_t me)
{
    const tmpi_coll *c = o->c;
    int32_t n = c->n;
    /* reduce_scatter: the segment for rank j starts after blocks 0..j-1 of
     * the send buffer; keep the prefix sum while walking j = me+1, ... */
    uint64_t run = 0;
    for (int32_t k = 0; k <= me; k++) {
        run += block_of(c, k);
    }
    for (int32_t i = 1; i < n; i++) {
        int32_t j = (me + i) % n;
        int buf = TMPI_BUF_SEND;
        uint64_t off;
        if (j == 0) {
            run = 0;
        }
        if (c->op == TEMU_COLL_REDUCE_SCATTER) {
            off = run;
        } else if (c->blocks != NULL && c->offs == NULL) {
            buf = TMPI_BUF_NONE;
            off = 0;
        } else {
            off = offset_of(c, j);
        }
        /* MPICH posts blocks up to 32 KiB all at once (scattered
         * isend/irecv), larger ones in steps of a pairwise exchange */
        put(o, j, block_of(c, j), buf, off, block_of(c, j) <= TMPI_ALLTOALL_MEDIUM ? 0 : i - 1);
        run += block_of(c, j);
    }
}

/* ------------------------------------------------------- allreduce */

/*
 * Ranks beyond the largest power of two pof2 <= n are folded in first
 * (MPICH): of the first 2*rem ranks (rem = n - pof2) each even rank sends
 * its whole buffer to the odd rank above it and sits out; the others take
 * "new ranks" 0..pof2-1.  At the end each odd rank returns the result.
 */
static int32_t new_rank(int32_t r, int32_t rem)
{
    if (r < 2 * rem) {
        return r % 2 == 0 ? -1 : r / 2;
    }
    return r - rem;
}

static int32_t old_rank(int32_t nr, int32_t rem)
{
    return nr < rem ? nr * 2 + 1 : nr + rem;
}

static void fold_in(const out *o, int32_t me, int32_t rem)
{
    if (me < 2 * rem && me % 2 == 0) {
        put(o, me + 1, o->c->bytes, TMPI_BUF_SEND, 0, 0);
    }
}

static void fold_out(const out *o, int32_t me, int32_t rem, int32_t round)
{
    if (me < 2 * rem && me % 2 == 1) {
        put(o, me - 1, o->c->bytes, TMPI_BUF_RECV, 0, round);
    }
}

/* Short allreduce: recursive doubling over new ranks, the whole buffer in
 * every step. */
static void allreduce_rd(const out *o, int32_t me)
{
    int32_t n = o->c->n, pof2 = pof2_floor(n), rem = n - pof2;
    int32_t nr = new_rank(me, rem);
    fold_in(o, me, rem);
    if (nr >= 0) {
        for (int32_t m = 1; m < pof2; m <<= 1) {
            int first = m == 1 && me >= 2 * rem;
            put(o, old_rank(nr ^ m, rem), o->c->bytes, first ? TMPI_BUF_SEND : TMPI_BUF_NONE, 0,
                1 + ilog2(m));
        }
    }
    fold_out(o, me, rem, 1 + ilog2(pof2));
}

/* Elements of chunk i when count elements are cut in pof2 chunks (the
 * last one takes the remainder, as MPICH). */
static uint64_t chunk_elems(uint64_t count, int32_t pof2, int32_t i)
{
    uint64_t per = count / (uint64_t)pof2;
    return i < pof2 - 1 ? per : count - per * (uint64_t)(pof2 - 1);
}

static uint64_t chunks_bytes(const tmpi_coll *c, int32_t pof2, int32_t lo, int32_t hi)
{
    uint64_t e = 0;
    for (int32_t i = lo; i < hi; i++) {
        e += chunk_elems(c->count, pof2, i);
    }
    return e * c->elem;
}

/*
 * Long allreduce (Rabenseifner, as MPICH): reduce-scatter by recursive
 * halving over pof2 chunks, then allgather by recursive doubling.  In
 * halving step m = 1, 2, 4 ... a rank keeps the lower half of its segment if
 * its new rank is below its partner's (nr ^ m), else the upper half, and
 * sends the other half; the allgather undoes the steps in reverse, each
 * rank sending its whole current segment.
 */
static void allreduce_rabenseifner(const out *o, int32_t me)
{
    const tmpi_coll *c = o->c;
    int32_t n = c->n, pof2 = pof2_floor(n), rem = n - pof2;
    int32_t nr = new_rank(me, rem);
    fold_in(o, me, rem);
    if (nr >= 0) {
        int32_t lo = 0, hi = pof2;
        for (int32_t m = 1; m < pof2; m <<= 1) {
            int32_t mid = lo + (hi - lo) / 2;
            int32_t peer = nr ^ m;
            int first = m == 1 && me >= 2 * rem;
            if (nr < peer) {
                put(o, old_rank(peer, rem), chunks_bytes(c, pof2, mid, hi),
                    first ? TMPI_BUF_SEND : TMPI_BUF_NONE, chunks_bytes(c, pof2, 0, mid),
                    1 + ilog2(m));
                hi = mid;
            } else {
                put(o, old_rank(peer, rem), chunks_bytes(c, pof2, lo, mid),
                    first ? TMPI_BUF_SEND : TMPI_BUF_NONE, chunks_bytes(c, pof2, 0, lo),
                    1 + ilog2(m));
                lo = mid;
            }
        }
        for (int32_t m = pof2 >> 1; m >= 1; m >>= 1) {
            int32_t peer = nr ^ m;
            int32_t size = hi - lo;
            /* rounds after the halving's log2(pof2) */
            put(o, old_rank(peer, rem), chunks_bytes(c, pof2, lo, hi), TMPI_BUF_RECV,
                chunks_bytes(c, pof2, 0, lo), 1 + 2 * ilog2(pof2) - 1 - ilog2(m));
            if (nr < peer) {
                hi += size;
            } else {
                lo -= size;
            }
        }
    }
    fold_out(o, me, rem, 1 + 2 * ilog2(pof2));
}

/* Scan and exscan (MPICH): in step m = 1, 2, 4 ... rank r exchanges its
 * partial result with r ^ m when that rank exists. */
static void scan_rd(const out *o, int32_t me)
{
    int32_t n = o->c->n;
    for (int32_t m = 1; m < n; m <<= 1) {
        if ((me ^ m) < n) {
            put(o, me ^ m, o->c->bytes, m == 1 ? TMPI_BUF_SEND : TMPI_BUF_NONE, 0, ilog2(m));
        }
    }
}

/* ----------------------------------------------------------- linear */

static void linear(const out *o, int32_t me)
{
    const tmpi_coll *c = o->c;
    if (c->op == TEMU_COLL_GATHERV) {
        if (me != c->root) {
            put(o, c->root, c->bytes, TMPI_BUF_SEND, 0, 0);
        }
        return;
    }
    if (me != c->root || c->blocks == NULL) { /* scatterv: the root sends */
        return;
    }
    for (int32_t j = 0; j < c->n; j++) {
        if (j != me) {
            put(o, j, c->blocks[j], c->offs != NULL ? TMPI_BUF_SEND : TMPI_BUF_NONE,
                c->offs != NULL ? c->offs[j] : 0, 0);
        }
    }
}

static void neighbors(const out *o)
{
    const tmpi_coll *c = o->c;
    int alltoall = c->op == TEMU_COLL_NEIGHBOR_ALLTOALL;
    for (int32_t i = 0; i < c->nnb; i++) {
        if (c->nb[i] < 0) {
            continue;
        }
        uint64_t bytes = c->blocks != NULL ? c->blocks[i] : c->bytes;
        uint64_t off = c->offs != NULL ? c->offs[i] : alltoall ? (uint64_t)i * c->bytes : 0;
        int buf = c->blocks != NULL && c->offs == NULL ? TMPI_BUF_NONE : TMPI_BUF_SEND;
        put(o, c->nb[i], bytes, buf, off, 0);
    }
}

/* ------------------------------------------------------------- entry */

void tmpi_coll_sends(const tmpi_coll *c, int32_t me, tmpi_emit_fn emit, void *ctx)
{
    out o = {c, emit, ctx};
    if (c->n <= 1 || me < 0 || me >= c->n) {
        return;
    }
    switch (c->algo) {
    case TMPI_ALGO_DISSEMINATION:
        barrier_dissemination(&o, me);
        break;
    case TMPI_ALGO_BINOMIAL:
        switch (c->op) {
        case TEMU_COLL_BCAST:
            bcast_binomial(&o, me);
            break;
        case TEMU_COLL_REDUCE:
            tree_up(&o, me, 0);
            break;
        case TEMU_COLL_GATHER:
            tree_up(&o, me, 1);
            break;
        case TEMU_COLL_SCATTER:
            scatter_binomial(&o, me);
            break;
        default:
            break;
        }
        break;
    case TMPI_ALGO_BINOMIAL_NONCOMM:
        reduce_noncomm(&o, me);
        break;
    case TMPI_ALGO_SCATTER_RD:
        bcast_long(&o, me, 0);
        break;
    case TMPI_ALGO_SCATTER_RING:
        bcast_long(&o, me, 1);
        break;
    case TMPI_ALGO_LINEAR:
        linear(&o, me);
        break;
    case TMPI_ALGO_RECURSIVE_DOUBLING:
        if (c->op == TEMU_COLL_ALLREDUCE) {
            allreduce_rd(&o, me);
        } else if (c->op == TEMU_COLL_SCAN || c->op == TEMU_COLL_EXSCAN) {
            scan_rd(&o, me);
        } else {
            allgather_rd(&o, me);
        }
        break;
    case TMPI_ALGO_BRUCK:
        if (c->op == TEMU_COLL_ALLTOALL) {
            alltoall_bruck(&o, me);
        } else {
            allgather_bruck(&o, me);
        }
        break;
    case TMPI_ALGO_RING:
        allgather_ring(&o, me);
        break;
    case TMPI_ALGO_PAIRWISE:
        pairwise(&o, me);
        break;
    case TMPI_ALGO_RABENSEIFNER:
        allreduce_rabenseifner(&o, me);
        break;
    case TMPI_ALGO_NEIGHBOR:
        neighbors(&o);
        break;
    case TMPI_ALGO_NONE:
    case TMPI_ALGO_CLASSROUTE:
    case TMPI_ALGO_COLLNET:
    case TMPI_ALGOS:
        break;
    }
}
