/*
 * test_coll.c - collective decompositions (mpi/coll.c) against message lists
 * derived by hand from the algorithms' definitions (doc/mpi.md), plus
 * conservation properties over many communicator sizes, and the algorithm
 * choice per system and size.
 */
#include "coll.h"
#include "torusemu.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAXMSG 4096

typedef struct list {
    int n;
    tmpi_msg m[MAXMSG];
} list;

static void collect(void *ctx, const tmpi_msg *m)
{
    list *l = ctx;
    ck_assert_int_lt(l->n, MAXMSG);
    l->m[l->n++] = *m;
}

static list *sends_of(const tmpi_coll *c, int me)
{
    static list l;
    l.n = 0;
    tmpi_coll_sends(c, me, collect, &l);
    return &l;
}

/* expect rank me of c to send exactly dst[i] / bytes[i], in order */
static void expect(const tmpi_coll *c, int me, int n, const int *dst, const uint64_t *bytes)
{
    list *l = sends_of(c, me);
    ck_assert_msg(l->n == n, "%s/%s n=%d rank %d: %d messages, want %d", tmpi_coll_op_name(c->op),
                  tmpi_algo_name(c->algo), c->n, me, l->n, n);
    for (int i = 0; i < n; i++) {
        ck_assert_msg(l->m[i].dst == dst[i] && l->m[i].bytes == bytes[i],
                      "%s/%s rank %d message %d: -> %d %llu bytes, want -> %d %llu",
                      tmpi_coll_op_name(c->op), tmpi_algo_name(c->algo), me, i, l->m[i].dst,
                      (unsigned long long)l->m[i].bytes, dst[i], (unsigned long long)bytes[i]);
    }
}

static tmpi_coll make(temu_coll_op op, tmpi_algo algo, int n, int root, uint64_t bytes)
{
    tmpi_coll c;
    memset(&c, 0, sizeof c);
    c.op = op;
    c.algo = algo;
    c.n = n;
    c.root = root;
    c.bytes = bytes;
    c.commutative = 1;
    return c;
}

#define EXPECT(c, me, ...)                                                                         \
    do {                                                                                           \
        int d_[] = {__VA_ARGS__};                                                                  \
        uint64_t b_[sizeof d_ / sizeof d_[0]];                                                     \
        for (size_t i_ = 0; i_ < sizeof d_ / sizeof d_[0]; i_++) {                                 \
            b_[i_] = (c).bytes;                                                                    \
        }                                                                                          \
        expect(&(c), me, (int)(sizeof d_ / sizeof d_[0]), d_, b_);                                 \
    } while (0)
#define EXPECT_NONE(c, me) expect(&(c), me, 0, NULL, NULL)
/* messages with their own sizes: pairs dst, bytes */
#define EXPECT_SIZED(c, me, ...)                                                                   \
    do {                                                                                           \
        uint64_t p_[] = {__VA_ARGS__};                                                             \
        int n_ = (int)(sizeof p_ / sizeof p_[0]) / 2;                                              \
        int d_[64];                                                                                \
        uint64_t b_[64];                                                                           \
        for (int i_ = 0; i_ < n_; i_++) {                                                          \
            d_[i_] = (int)p_[2 * i_];                                                              \
            b_[i_] = p_[2 * i_ + 1];                                                               \
        }                                                                                          \
        expect(&(c), me, n_, d_, b_);                                                              \
    } while (0)

/* ------------------------------------------------------ hand-derived lists */

START_TEST(barrier_dissemination_5)
{
    tmpi_coll c = make(TEMU_COLL_BARRIER, TMPI_ALGO_DISSEMINATION, 5, 0, 0);
    EXPECT(c, 3, 4, 0, 2); /* 3+1, 3+2, 3+4 mod 5 */
    EXPECT(c, 0, 1, 2, 4);
}
END_TEST

START_TEST(bcast_binomial_8_root0)
{
    tmpi_coll c = make(TEMU_COLL_BCAST, TMPI_ALGO_BINOMIAL, 8, 0, 100);
    EXPECT(c, 0, 4, 2, 1);
    EXPECT(c, 4, 6, 5);
    EXPECT(c, 2, 3);
    EXPECT(c, 6, 7);
    for (int r = 1; r < 8; r += 2) {
        EXPECT_NONE(c, r);
    }
}
END_TEST

START_TEST(bcast_binomial_6_root3)
{
    /* relative ranks: vr = r - 3 mod 6; the root (vr 0) sends to vr 4, 2,
     * 1 = ranks 1, 5, 4; vr 4 (rank 1) to vr 5 (rank 2); vr 2 (rank 5) to
     * vr 3 (rank 0) */
    tmpi_coll c = make(TEMU_COLL_BCAST, TMPI_ALGO_BINOMIAL, 6, 3, 7);
    EXPECT(c, 3, 1, 5, 4);
    EXPECT(c, 1, 2);
    EXPECT(c, 5, 0);
    EXPECT_NONE(c, 0);
    EXPECT_NONE(c, 2);
    EXPECT_NONE(c, 4);
}
END_TEST

START_TEST(reduce_binomial_6)
{
    tmpi_coll c = make(TEMU_COLL_REDUCE, TMPI_ALGO_BINOMIAL, 6, 0, 40);
    EXPECT(c, 1, 0);
    EXPECT(c, 2, 0);
    EXPECT(c, 3, 2);
    EXPECT(c, 4, 0);
    EXPECT(c, 5, 4);
    EXPECT_NONE(c, 0);
    c.root = 2; /* vr = r - 2 mod 6 */
    EXPECT(c, 3, 2);
    EXPECT(c, 4, 2);
    EXPECT(c, 5, 4);
    EXPECT(c, 0, 2);
    EXPECT(c, 1, 0);
    EXPECT_NONE(c, 2);
}
END_TEST

START_TEST(reduce_noncommutative_6_root2)
{
    /* tree on absolute ranks to 0, then 0 -> 2 */
    tmpi_coll c = make(TEMU_COLL_REDUCE, TMPI_ALGO_BINOMIAL_NONCOMM, 6, 2, 40);
    c.commutative = 0;
    EXPECT(c, 0, 2);
    EXPECT(c, 1, 0);
    EXPECT(c, 2, 0);
    EXPECT(c, 3, 2);
    EXPECT(c, 5, 4);
}
END_TEST

START_TEST(gather_binomial_6)
{
    tmpi_coll c = make(TEMU_COLL_GATHER, TMPI_ALGO_BINOMIAL, 6, 0, 10);
    EXPECT_SIZED(c, 1, 0, 10);
    EXPECT_SIZED(c, 2, 0, 20); /* subtree {2, 3} */
    EXPECT_SIZED(c, 3, 2, 10);
    EXPECT_SIZED(c, 4, 0, 20); /* subtree {4, 5} */
    EXPECT_SIZED(c, 5, 4, 10);
    EXPECT_NONE(c, 0);
}
END_TEST

START_TEST(scatter_binomial_6)
{
    tmpi_coll c = make(TEMU_COLL_SCATTER, TMPI_ALGO_BINOMIAL, 6, 0, 10);
    EXPECT_SIZED(c, 0, 4, 20, 2, 20, 1, 10);
    EXPECT_SIZED(c, 4, 5, 10);
    EXPECT_SIZED(c, 2, 3, 10);
    EXPECT_NONE(c, 1);
    EXPECT_NONE(c, 5);
}
END_TEST

START_TEST(allgather_rd_4)
{
    tmpi_coll c = make(TEMU_COLL_ALLGATHER, TMPI_ALGO_RECURSIVE_DOUBLING, 4, 0, 8);
    EXPECT_SIZED(c, 1, 0, 8, 3, 16);
    EXPECT_SIZED(c, 2, 3, 8, 0, 16);
}
END_TEST

START_TEST(allgather_bruck_5)
{
    tmpi_coll c = make(TEMU_COLL_ALLGATHER, TMPI_ALGO_BRUCK, 5, 0, 8);
    EXPECT_SIZED(c, 2, 1, 8, 0, 16, 3, 8);
    EXPECT_SIZED(c, 0, 4, 8, 3, 16, 1, 8);
}
END_TEST

START_TEST(allgatherv_ring_3)
{
    uint64_t blocks[3] = {1, 2, 3};
    tmpi_coll c = make(TEMU_COLL_ALLGATHERV, TMPI_ALGO_RING, 3, 0, 0);
    c.blocks = blocks;
    EXPECT_SIZED(c, 0, 1, 1, 1, 3);
    EXPECT_SIZED(c, 1, 2, 2, 2, 1);
    EXPECT_SIZED(c, 2, 0, 3, 0, 2);
}
END_TEST

START_TEST(alltoall_bruck)
{
    tmpi_coll c = make(TEMU_COLL_ALLTOALL, TMPI_ALGO_BRUCK, 8, 0, 4);
    EXPECT_SIZED(c, 0, 1, 16, 2, 16, 4, 16);
    c.n = 5; /* indices with bit 1: {1,3}; bit 2: {2,3}; bit 4: {4} */
    EXPECT_SIZED(c, 3, 4, 8, 0, 8, 2, 4);
}
END_TEST

START_TEST(alltoall_pairwise)
{
    tmpi_coll c = make(TEMU_COLL_ALLTOALL, TMPI_ALGO_PAIRWISE, 4, 0, 5);
    EXPECT_SIZED(c, 1, 2, 5, 3, 5, 0, 5);
    list *l = sends_of(&c, 1);
    ck_assert_uint_eq(l->m[0].off, 10);
    ck_assert_uint_eq(l->m[2].off, 0);
    ck_assert_int_eq(l->m[0].buf, TMPI_BUF_SEND);
    uint64_t v[4] = {0, 7, 0, 9};
    c.op = TEMU_COLL_ALLTOALLV;
    c.blocks = v; /* no offsets: no payload */
    EXPECT_SIZED(c, 1, 3, 9);
    l = sends_of(&c, 1);
    ck_assert_int_eq(l->m[0].buf, TMPI_BUF_NONE);
}
END_TEST

START_TEST(allreduce_rd_6)
{
    /* pof2 4, rem 2: 0 -> 1 and 2 -> 3 fold in; new ranks 1, 3, 4, 5;
     * exchanges 1-3, 4-5 then 1-4, 3-5; 1 -> 0 and 3 -> 2 fold out */
    tmpi_coll c = make(TEMU_COLL_ALLREDUCE, TMPI_ALGO_RECURSIVE_DOUBLING, 6, 0, 16);
    EXPECT(c, 0, 1);
    EXPECT(c, 1, 3, 4, 0);
    EXPECT(c, 2, 3);
    EXPECT(c, 3, 1, 5, 2);
    EXPECT(c, 4, 5, 1);
    EXPECT(c, 5, 4, 3);
}
END_TEST

START_TEST(allreduce_rabenseifner_4)
{
    /* 10 four-byte elements in 4 chunks of 2, 2, 2, 4 elements:
     * 8, 8, 8, 16 bytes */
    tmpi_coll c = make(TEMU_COLL_ALLREDUCE, TMPI_ALGO_RABENSEIFNER, 4, 0, 40);
    c.count = 10;
    c.elem = 4;
    EXPECT_SIZED(c, 0, 1, 24, 2, 8, 2, 8, 1, 16);
    EXPECT_SIZED(c, 1, 0, 16, 3, 16, 3, 8, 0, 24);
    EXPECT_SIZED(c, 2, 3, 24, 0, 8, 0, 8, 3, 16);
    EXPECT_SIZED(c, 3, 2, 16, 1, 8, 1, 16, 2, 24);
}
END_TEST

START_TEST(scan_rd_5)
{
    tmpi_coll c = make(TEMU_COLL_SCAN, TMPI_ALGO_RECURSIVE_DOUBLING, 5, 0, 8);
    EXPECT(c, 2, 3, 0);
    EXPECT(c, 4, 0);
    EXPECT(c, 0, 1, 2, 4);
}
END_TEST

START_TEST(bcast_scatter_allgather_4)
{
    /* 10 bytes, ss = 3: chunks 3, 3, 3, 1 */
    tmpi_coll c = make(TEMU_COLL_BCAST, TMPI_ALGO_SCATTER_RING, 4, 0, 10);
    EXPECT_SIZED(c, 0, 2, 4, 1, 3, 1, 3, 1, 1, 1, 3);
    EXPECT_SIZED(c, 2, 3, 1, 3, 3, 3, 3, 3, 3);
    c.algo = TMPI_ALGO_SCATTER_RD;
    EXPECT_SIZED(c, 0, 2, 4, 1, 3, 1, 3, 2, 6);
    EXPECT_SIZED(c, 3, 2, 1, 1, 4);
}
END_TEST

START_TEST(linear_v)
{
    tmpi_coll c = make(TEMU_COLL_GATHERV, TMPI_ALGO_LINEAR, 3, 1, 12);
    EXPECT_SIZED(c, 0, 1, 12);
    EXPECT_NONE(c, 1);
    uint64_t blocks[3] = {5, 0, 7}, offs[3] = {0, 5, 5};
    c = make(TEMU_COLL_SCATTERV, TMPI_ALGO_LINEAR, 3, 0, 0);
    c.blocks = blocks;
    c.offs = offs;
    EXPECT_SIZED(c, 0, 2, 7);
    EXPECT_NONE(c, 1);
}
END_TEST

START_TEST(reduce_scatter_pairwise_3)
{
    uint64_t blocks[3] = {4, 8, 12};
    tmpi_coll c = make(TEMU_COLL_REDUCE_SCATTER, TMPI_ALGO_PAIRWISE, 3, 0, 0);
    c.blocks = blocks;
    EXPECT_SIZED(c, 0, 1, 8, 2, 12);
    list *l = sends_of(&c, 0);
    ck_assert_uint_eq(l->m[0].off, 4);
    ck_assert_uint_eq(l->m[1].off, 12);
    EXPECT_SIZED(c, 2, 0, 4, 1, 8);
    l = sends_of(&c, 2);
    ck_assert_uint_eq(l->m[0].off, 0);
    ck_assert_uint_eq(l->m[1].off, 4);
}
END_TEST

START_TEST(neighbors)
{
    int32_t nb[3] = {3, -1, 5};
    tmpi_coll c = make(TEMU_COLL_NEIGHBOR_ALLTOALL, TMPI_ALGO_NEIGHBOR, 8, 0, 6);
    c.nnb = 3;
    c.nb = nb;
    EXPECT(c, 0, 3, 5);
    list *l = sends_of(&c, 0);
    ck_assert_uint_eq(l->m[1].off, 12);
}
END_TEST

/* ---------------------------------------------------- conservation laws */

typedef struct tally {
    int n;
    uint64_t msgs, bytes;
    uint64_t in[64]; /* bytes received per rank */
} tally;

static void count(void *ctx, const tmpi_msg *m)
{
    tally *t = ctx;
    ck_assert_int_ge(m->dst, 0);
    ck_assert_int_lt(m->dst, t->n);
    t->msgs++;
    t->bytes += m->bytes;
    t->in[m->dst] += m->bytes;
}

static tally run_all(const tmpi_coll *c)
{
    tally t;
    memset(&t, 0, sizeof t);
    t.n = c->n;
    for (int r = 0; r < c->n; r++) {
        tmpi_coll_sends(c, r, count, &t);
    }
    return t;
}

START_TEST(conservation)
{
    const uint64_t B = 24;
    for (int n = 2; n <= 40; n++) {
        int pof2 = 1;
        while (pof2 * 2 <= n) {
            pof2 *= 2;
        }
        int lg = 0;
        while ((1 << lg) < pof2) {
            lg++;
        }
        for (int root = 0; root < n; root += 3) {
            tmpi_coll c = make(TEMU_COLL_BCAST, TMPI_ALGO_BINOMIAL, n, root, B);
            tally t = run_all(&c);
            ck_assert_uint_eq(t.msgs, (uint64_t)n - 1);
            for (int r = 0; r < n; r++) {
                ck_assert_uint_eq(t.in[r], r == root ? 0 : B);
            }
            c.op = TEMU_COLL_GATHER;
            t = run_all(&c);
            ck_assert_uint_eq(t.in[root], (uint64_t)(n - 1) * B);
            c.op = TEMU_COLL_SCATTER;
            t = run_all(&c);
            ck_assert_uint_eq(t.msgs, (uint64_t)n - 1);
            for (int r = 0; r < n; r++) {
                ck_assert_uint_ge(t.in[r], r == root ? 0 : B);
            }
            c.op = TEMU_COLL_REDUCE;
            t = run_all(&c);
            ck_assert_uint_eq(t.msgs, (uint64_t)n - 1);
            /* long bcast: every non-root ends with the whole buffer */
            c = make(TEMU_COLL_BCAST, TMPI_ALGO_SCATTER_RING, n, root, 1000);
            t = run_all(&c);
            for (int r = 0; r < n; r++) {
                ck_assert_uint_ge(t.in[r], r == root ? 0 : 1000);
            }
        }
        tmpi_algo ag[3] = {TMPI_ALGO_BRUCK, TMPI_ALGO_RING, TMPI_ALGO_RECURSIVE_DOUBLING};
        for (int a = 0; a < (pof2 == n ? 3 : 2); a++) {
            tmpi_coll c = make(TEMU_COLL_ALLGATHER, ag[a], n, 0, B);
            tally t = run_all(&c);
            for (int r = 0; r < n; r++) {
                ck_assert_uint_eq(t.in[r], (uint64_t)(n - 1) * B);
            }
        }
        tmpi_coll c = make(TEMU_COLL_ALLTOALL, TMPI_ALGO_PAIRWISE, n, 0, B);
        tally t = run_all(&c);
        ck_assert_uint_eq(t.msgs, (uint64_t)n * (n - 1));
        ck_assert_uint_eq(t.bytes, (uint64_t)n * (n - 1) * B);
        c.algo = TMPI_ALGO_BRUCK;
        t = run_all(&c);
        ck_assert_uint_eq(t.msgs, (uint64_t)n * (uint64_t)(lg + (pof2 < n)));
        c = make(TEMU_COLL_ALLREDUCE, TMPI_ALGO_RECURSIVE_DOUBLING, n, 0, B);
        t = run_all(&c);
        ck_assert_uint_eq(t.msgs, (uint64_t)(2 * (n - pof2) + pof2 * lg));
        /* Rabenseifner: each participant sends count - its chunk in each
         * phase; folding adds the whole buffer twice per folded pair */
        c = make(TEMU_COLL_ALLREDUCE, TMPI_ALGO_RABENSEIFNER, n, 0, 4 * 1000);
        c.count = 1000;
        c.elem = 4;
        t = run_all(&c);
        ck_assert_uint_eq(t.bytes, (uint64_t)2 * (n - pof2) * 4000 +
                                       (uint64_t)2 * ((uint64_t)pof2 - 1) * 4000);
        c = make(TEMU_COLL_BARRIER, TMPI_ALGO_DISSEMINATION, n, 0, 0);
        t = run_all(&c);
        ck_assert_uint_eq(t.msgs, (uint64_t)n * (uint64_t)(lg + (pof2 < n)));
    }
}
END_TEST

/* --------------------------------------------------------------- choice */

static tmpi_algo choose(int system, int blocking, int world, int box, int hw, temu_coll_op op,
                        int n, uint64_t bytes, uint64_t count, int commutative)
{
    const temu_family_info *fam = temu_family_info_get(system);
    tmpi_coll_env env = {(int32_t)fam->collnet, blocking, world, box, hw, fam->bruck_alltoall};
    tmpi_coll c = make(op, TMPI_ALGO_NONE, n, 0, bytes);
    c.count = count;
    c.commutative = commutative;
    return tmpi_coll_choose(&env, &c);
}

enum { GEM = 1, BGP = 2, BGQ = 3 };

START_TEST(choice)
{
    ck_assert_int_eq(choose(GEM, 1, 1, 0, 1, TEMU_COLL_BCAST, 1, 8, 8, 1), TMPI_ALGO_NONE);
    ck_assert_int_eq(choose(GEM, 1, 1, 0, 1, TEMU_COLL_BCAST, 16, 12287, 0, 1), TMPI_ALGO_BINOMIAL);
    ck_assert_int_eq(choose(GEM, 1, 1, 0, 1, TEMU_COLL_BCAST, 16, 12288, 0, 1), TMPI_ALGO_SCATTER_RD);
    ck_assert_int_eq(choose(GEM, 1, 1, 0, 1, TEMU_COLL_BCAST, 12, 12288, 0, 1), TMPI_ALGO_SCATTER_RING);
    ck_assert_int_eq(choose(GEM, 1, 1, 0, 1, TEMU_COLL_BCAST, 7, 1 << 20, 0, 1), TMPI_ALGO_BINOMIAL);
    ck_assert_int_eq(choose(GEM, 1, 1, 0, 1, TEMU_COLL_BCAST, 16, 524288, 0, 1), TMPI_ALGO_SCATTER_RING);
    ck_assert_int_eq(choose(GEM, 1, 1, 0, 1, TEMU_COLL_ALLREDUCE, 8, 2048, 512, 1),
                     TMPI_ALGO_RECURSIVE_DOUBLING);
    ck_assert_int_eq(choose(GEM, 1, 1, 0, 1, TEMU_COLL_ALLREDUCE, 8, 2056, 514, 1),
                     TMPI_ALGO_RABENSEIFNER);
    ck_assert_int_eq(choose(GEM, 1, 1, 0, 1, TEMU_COLL_ALLREDUCE, 8, 4096, 1024, 0),
                     TMPI_ALGO_RECURSIVE_DOUBLING);
    ck_assert_int_eq(choose(GEM, 1, 1, 0, 1, TEMU_COLL_ALLREDUCE, 8, 4096, 4, 1),
                     TMPI_ALGO_RECURSIVE_DOUBLING);
    ck_assert_int_eq(choose(GEM, 1, 1, 0, 1, TEMU_COLL_REDUCE, 8, 4096, 4, 0),
                     TMPI_ALGO_BINOMIAL_NONCOMM);
    ck_assert_int_eq(choose(GEM, 1, 1, 0, 1, TEMU_COLL_ALLGATHER, 8, 1000, 0, 1),
                     TMPI_ALGO_RECURSIVE_DOUBLING);
    ck_assert_int_eq(choose(GEM, 1, 1, 0, 1, TEMU_COLL_ALLGATHER, 6, 1000, 0, 1), TMPI_ALGO_BRUCK);
    ck_assert_int_eq(choose(GEM, 1, 1, 0, 1, TEMU_COLL_ALLGATHER, 6, 20000, 0, 1), TMPI_ALGO_RING);
    ck_assert_int_eq(choose(GEM, 1, 1, 0, 1, TEMU_COLL_ALLGATHER, 8, 65536, 0, 1), TMPI_ALGO_RING);
    ck_assert_int_eq(choose(GEM, 1, 1, 0, 1, TEMU_COLL_ALLTOALL, 8, 256, 0, 1), TMPI_ALGO_BRUCK);
    ck_assert_int_eq(choose(GEM, 1, 1, 0, 1, TEMU_COLL_ALLTOALL, 8, 257, 0, 1), TMPI_ALGO_PAIRWISE);
    ck_assert_int_eq(choose(GEM, 1, 1, 0, 1, TEMU_COLL_ALLTOALL, 7, 8, 0, 1), TMPI_ALGO_PAIRWISE);
    ck_assert_int_eq(choose(GEM, 1, 1, 0, 1, TEMU_COLL_GATHERV, 7, 8, 0, 1), TMPI_ALGO_LINEAR);
    ck_assert_int_eq(choose(GEM, 1, 1, 0, 1, TEMU_COLL_BARRIER, 7, 0, 0, 1), TMPI_ALGO_DISSEMINATION);
    /* Blue Gene: all-to-all is direct; collective networks */
    ck_assert_int_eq(choose(BGQ, 1, 1, 0, 1, TEMU_COLL_ALLTOALL, 8, 8, 0, 1), TMPI_ALGO_PAIRWISE);
    ck_assert_int_eq(choose(BGQ, 1, 1, 0, 1, TEMU_COLL_ALLREDUCE, 8, 8, 1, 1), TMPI_ALGO_CLASSROUTE);
    ck_assert_int_eq(choose(BGQ, 0, 1, 0, 1, TEMU_COLL_ALLREDUCE, 8, 8, 1, 1),
                     TMPI_ALGO_RECURSIVE_DOUBLING);
    ck_assert_int_eq(choose(BGQ, 1, 0, 1, 1, TEMU_COLL_ALLREDUCE, 8, 8, 1, 1), TMPI_ALGO_CLASSROUTE);
    ck_assert_int_eq(choose(BGQ, 1, 0, 0, 1, TEMU_COLL_ALLREDUCE, 8, 8, 1, 1),
                     TMPI_ALGO_RECURSIVE_DOUBLING);
    ck_assert_int_eq(choose(BGQ, 1, 1, 0, 0, TEMU_COLL_ALLREDUCE, 8, 8, 1, 1),
                     TMPI_ALGO_RECURSIVE_DOUBLING);
    ck_assert_int_eq(choose(BGQ, 1, 1, 0, 0, TEMU_COLL_BCAST, 8, 8, 1, 1), TMPI_ALGO_CLASSROUTE);
    ck_assert_int_eq(choose(BGQ, 1, 1, 0, 0, TEMU_COLL_BARRIER, 8, 0, 0, 1), TMPI_ALGO_CLASSROUTE);
    ck_assert_int_eq(choose(BGQ, 1, 1, 0, 1, TEMU_COLL_ALLGATHER, 8, 8, 1, 1),
                     TMPI_ALGO_RECURSIVE_DOUBLING);
    ck_assert_int_eq(choose(BGP, 1, 1, 0, 1, TEMU_COLL_BCAST, 8, 8, 0, 1), TMPI_ALGO_COLLNET);
    ck_assert_int_eq(choose(BGP, 1, 0, 1, 1, TEMU_COLL_BCAST, 8, 8, 0, 1), TMPI_ALGO_BINOMIAL);
    ck_assert_int_eq(choose(GEM, 1, 1, 1, 1, TEMU_COLL_BCAST, 8, 8, 0, 1), TMPI_ALGO_BINOMIAL);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("coll");
    TCase *t = tcase_create("lists");
    tcase_add_test(t, barrier_dissemination_5);
    tcase_add_test(t, bcast_binomial_8_root0);
    tcase_add_test(t, bcast_binomial_6_root3);
    tcase_add_test(t, reduce_binomial_6);
    tcase_add_test(t, reduce_noncommutative_6_root2);
    tcase_add_test(t, gather_binomial_6);
    tcase_add_test(t, scatter_binomial_6);
    tcase_add_test(t, allgather_rd_4);
    tcase_add_test(t, allgather_bruck_5);
    tcase_add_test(t, allgatherv_ring_3);
    tcase_add_test(t, alltoall_bruck);
    tcase_add_test(t, alltoall_pairwise);
    tcase_add_test(t, allreduce_rd_6);
    tcase_add_test(t, allreduce_rabenseifner_4);
    tcase_add_test(t, scan_rd_5);
    tcase_add_test(t, bcast_scatter_allgather_4);
    tcase_add_test(t, linear_v);
    tcase_add_test(t, reduce_scatter_pairwise_3);
    tcase_add_test(t, neighbors);
    suite_add_tcase(s, t);
    TCase *p = tcase_create("properties");
    tcase_add_test(p, conservation);
    tcase_add_test(p, choice);
    suite_add_tcase(s, p);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
