/*
 * coll_check - every MPI-3 collective, blocking and non-blocking, on
 * MPI_COMM_WORLD, on sub-communicators and on a Cartesian communicator
 * (neighbourhood collectives), under the interposition layer.
 *
 * For each case the program checks
 *   1. the result of the call (the layer must not change MPI semantics);
 *   2. the counter store against the documented decomposition (doc/mpi.md):
 *      rank 0 rebuilds, in a private store, the messages every rank sends
 *      in the algorithm the emulated machine's MPI chose (mpi/coll.c, or the
 *      BG/Q class-route tree), and every counter must match (BG/Q L2
 *      slices, which follow buffer addresses, aside); and for MPI_COMM_WORLD
 *      of 8 ranks, totals derived by hand (messages and bytes).
 * Cases are isolated with MPI_Pcontrol(0) (the layer stops counting), a
 * barrier and a reset of the store.  Prints "N passed, M failed".
 */
#include <mpi.h>

#include "classroute.h"
#include "coll.h"
#include "torusemu.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static temu_session *S;
static const temu_machine *M;
static int wrank, wsize;
static int npass, nfail;

/* ------------------------------------------------------------ data */

/* values whose bytes never make a uniform 64-byte block */
static int val(int rank, int i)
{
    return rank * 100003 + i * 7919 + 1;
}

static int *ints(size_t n)
{
    int *p = calloc(n + 1, sizeof *p);
    if (p == NULL) {
        fprintf(stderr, "coll_check: out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    return p;
}

static void fill(int *p, int rank, int n)
{
    for (int i = 0; i < n; i++) {
        p[i] = val(rank, i);
    }
}

static void wait_if(int blocking, MPI_Request *req)
{
    if (!blocking) {
        MPI_Wait(req, MPI_STATUS_IGNORE);
    }
}

/* --------------------------------------------------------- the case */

/* What one case called, for the expectation (sizes in bytes, doc of
 * tmpi_coll in coll/coll.h). */
typedef struct expect {
    temu_coll_op op;
    int blocking;
    uint64_t bytes, count, elem;
    int root;
    int commutative, hw_op;
    uint64_t (*block)(int caller, int j); /* v variants, per caller */
    int cart;                             /* neighbourhood: the Cartesian communicator */
} expect;

typedef int (*case_fn)(MPI_Comm comm, int blocking, expect *e);

static int rank_of(MPI_Comm c)
{
    int r;
    MPI_Comm_rank(c, &r);
    return r;
}

static int size_of(MPI_Comm c)
{
    int n;
    MPI_Comm_size(c, &n);
    return n;
}

static int c_barrier(MPI_Comm comm, int blocking, expect *e)
{
    MPI_Request req;
    e->op = TEMU_COLL_BARRIER;
    if (blocking) {
        MPI_Barrier(comm);
    } else {
        MPI_Ibarrier(comm, &req);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
    }
    return 1;
}

static int bcast_n(MPI_Comm comm, int blocking, expect *e, int count, int root)
{
    MPI_Request req;
    int r = rank_of(comm), ok = 1;
    int *b = ints((size_t)count);
    if (r == root) {
        fill(b, 42, count);
    }
    *e = (expect){.op = TEMU_COLL_BCAST, .bytes = 4u * (uint64_t)count, .root = root};
    if (blocking) {
        MPI_Bcast(b, count, MPI_INT, root, comm);
    } else {
        MPI_Ibcast(b, count, MPI_INT, root, comm, &req);
    }
    wait_if(blocking, &req);
    for (int i = 0; i < count; i++) {
        ok &= b[i] == val(42, i);
    }
    free(b);
    return ok;
}

static int c_bcast_small(MPI_Comm comm, int blocking, expect *e)
{
    return bcast_n(comm, blocking, e, 25, size_of(comm) - 1);
}

static int c_bcast_large(MPI_Comm comm, int blocking, expect *e)
{
    return bcast_n(comm, blocking, e, 5000, 1);
}

static int c_gather(MPI_Comm comm, int blocking, expect *e)
{
    MPI_Request req;
    int n = size_of(comm), r = rank_of(comm), root = 2 % n, ok = 1, k = 25;
    int *s = ints(k), *g = ints((size_t)k * n);
    fill(s, r, k);
    *e = (expect){.op = TEMU_COLL_GATHER, .bytes = 4u * k, .root = root};
    /* receive arguments are insignificant off the root: pass null ones */
    int rk = r == root ? k : 0;
    MPI_Datatype rt = r == root ? MPI_INT : MPI_DATATYPE_NULL;
    void *rb = r == root ? g : NULL;
    if (blocking) {
        MPI_Gather(s, k, MPI_INT, rb, rk, rt, root, comm);
    } else {
        MPI_Igather(s, k, MPI_INT, rb, rk, rt, root, comm, &req);
    }
    wait_if(blocking, &req);
    for (int q = 0; r == root && q < n; q++) {
        for (int i = 0; i < k; i++) {
            ok &= g[q * k + i] == val(q, i);
        }
    }
    free(s);
    free(g);
    return ok;
}

/* rank q's block in the v variants, in ints */
static int vcount(int q, int j)
{
    return (q + 2 * j) % 4 + (j % 2);
}

static uint64_t vblock_own(int caller, int j)
{
    (void)caller;
    return 4u * (uint64_t)(3 * (j + 1));
}

static int c_gatherv(MPI_Comm comm, int blocking, expect *e)
{
    MPI_Request req;
    int n = size_of(comm), r = rank_of(comm), root = 1 % n, ok = 1;
    int *cnt = ints(n), *dsp = ints(n), tot = 0;
    for (int q = 0; q < n; q++) {
        cnt[q] = 3 * (q + 1);
        dsp[q] = tot;
        tot += cnt[q];
    }
    int *s = ints(cnt[r]), *g = ints(tot);
    fill(s, r, cnt[r]);
    *e = (expect){.op = TEMU_COLL_GATHERV, .root = root, .block = vblock_own};
    int me_root = r == root;
    if (blocking) {
        MPI_Gatherv(s, cnt[r], MPI_INT, me_root ? g : NULL, me_root ? cnt : NULL,
                    me_root ? dsp : NULL, me_root ? MPI_INT : MPI_DATATYPE_NULL, root, comm);
    } else {
        MPI_Igatherv(s, cnt[r], MPI_INT, me_root ? g : NULL, me_root ? cnt : NULL,
                     me_root ? dsp : NULL, me_root ? MPI_INT : MPI_DATATYPE_NULL, root, comm, &req);
    }
    wait_if(blocking, &req);
    for (int q = 0; r == root && q < n; q++) {
        for (int i = 0; i < cnt[q]; i++) {
            ok &= g[dsp[q] + i] == val(q, i);
        }
    }
    free(cnt);
    free(dsp);
    free(s);
    free(g);
    return ok;
}

static int c_scatter(MPI_Comm comm, int blocking, expect *e)
{
    MPI_Request req;
    int n = size_of(comm), r = rank_of(comm), ok = 1, k = 25;
    int *s = ints((size_t)k * n), *d = ints(k);
    fill(s, 7, k * n);
    *e = (expect){.op = TEMU_COLL_SCATTER, .bytes = 4u * k, .root = 0};
    /* send arguments are insignificant off the root */
    MPI_Datatype st = r == 0 ? MPI_INT : MPI_DATATYPE_NULL;
    if (blocking) {
        MPI_Scatter(r == 0 ? s : NULL, r == 0 ? k : 0, st, d, k, MPI_INT, 0, comm);
    } else {
        MPI_Iscatter(r == 0 ? s : NULL, r == 0 ? k : 0, st, d, k, MPI_INT, 0, comm, &req);
    }
    wait_if(blocking, &req);
    for (int i = 0; i < k; i++) {
        ok &= d[i] == val(7, r * k + i);
    }
    free(s);
    free(d);
    return ok;
}

static uint64_t vblock_scatterv(int caller, int j)
{
    (void)caller;
    return 4u * (uint64_t)(2 * (j + 2));
}

static int c_scatterv(MPI_Comm comm, int blocking, expect *e)
{
    MPI_Request req;
    int n = size_of(comm), r = rank_of(comm), root = n - 1, ok = 1, tot = 0;
    int *cnt = ints(n), *dsp = ints(n);
    for (int q = 0; q < n; q++) {
        cnt[q] = 2 * (q + 2);
        dsp[q] = tot;
        tot += cnt[q];
    }
    int *s = ints(tot), *d = ints(cnt[r]);
    fill(s, 9, tot);
    *e = (expect){.op = TEMU_COLL_SCATTERV, .root = root, .block = vblock_scatterv};
    int me_root = r == root;
    if (blocking) {
        MPI_Scatterv(me_root ? s : NULL, me_root ? cnt : NULL, me_root ? dsp : NULL,
                     me_root ? MPI_INT : MPI_DATATYPE_NULL, d, cnt[r], MPI_INT, root, comm);
    } else {
        MPI_Iscatterv(me_root ? s : NULL, me_root ? cnt : NULL, me_root ? dsp : NULL,
                      me_root ? MPI_INT : MPI_DATATYPE_NULL, d, cnt[r], MPI_INT, root, comm, &req);
    }
    wait_if(blocking, &req);
    for (int i = 0; i < cnt[r]; i++) {
        ok &= d[i] == val(9, dsp[r] + i);
    }
    free(cnt);
    free(dsp);
    free(s);
    free(d);
    return ok;
}

static int c_allgather(MPI_Comm comm, int blocking, expect *e)
{
    MPI_Request req;
    int n = size_of(comm), r = rank_of(comm), ok = 1, k = 25;
    int *s = ints(k), *g = ints((size_t)k * n);
    fill(s, r, k);
    *e = (expect){.op = TEMU_COLL_ALLGATHER, .bytes = 4u * k};
    if (blocking) {
        MPI_Allgather(s, k, MPI_INT, g, k, MPI_INT, comm);
    } else {
        MPI_Iallgather(s, k, MPI_INT, g, k, MPI_INT, comm, &req);
    }
    wait_if(blocking, &req);
    for (int q = 0; q < n; q++) {
        for (int i = 0; i < k; i++) {
            ok &= g[q * k + i] == val(q, i);
        }
    }
    free(s);
    free(g);
    return ok;
}

static uint64_t vblock_allgatherv(int caller, int j)
{
    (void)caller;
    return 4u * (uint64_t)(j + 1);
}

static int c_allgatherv(MPI_Comm comm, int blocking, expect *e)
{
    MPI_Request req;
    int n = size_of(comm), r = rank_of(comm), ok = 1, tot = 0;
    int *cnt = ints(n), *dsp = ints(n);
    for (int q = 0; q < n; q++) {
        cnt[q] = q + 1;
        dsp[q] = tot;
        tot += cnt[q];
    }
    int *s = ints(cnt[r]), *g = ints(tot);
    fill(s, r, cnt[r]);
    *e = (expect){.op = TEMU_COLL_ALLGATHERV, .block = vblock_allgatherv};
    if (blocking) {
        MPI_Allgatherv(s, cnt[r], MPI_INT, g, cnt, dsp, MPI_INT, comm);
    } else {
        MPI_Iallgatherv(s, cnt[r], MPI_INT, g, cnt, dsp, MPI_INT, comm, &req);
    }
    wait_if(blocking, &req);
    for (int q = 0; q < n; q++) {
        for (int i = 0; i < cnt[q]; i++) {
            ok &= g[dsp[q] + i] == val(q, i);
        }
    }
    free(cnt);
    free(dsp);
    free(s);
    free(g);
    return ok;
}

static int alltoall_k(MPI_Comm comm, int blocking, expect *e, int k, int in_place)
{
    MPI_Request req;
    int n = size_of(comm), r = rank_of(comm), ok = 1;
    int *s = ints((size_t)k * n), *d = ints((size_t)k * n);
    for (int j = 0; j < n; j++) {
        for (int i = 0; i < k; i++) {
            (in_place ? d : s)[j * k + i] = val(r * 64 + j, i);
        }
    }
    *e = (expect){.op = TEMU_COLL_ALLTOALL, .bytes = 4u * (uint64_t)k};
    const void *sb = in_place ? MPI_IN_PLACE : s;
    if (blocking) {
        MPI_Alltoall(sb, k, MPI_INT, d, k, MPI_INT, comm);
    } else {
        MPI_Ialltoall(sb, k, MPI_INT, d, k, MPI_INT, comm, &req);
    }
    wait_if(blocking, &req);
    for (int q = 0; q < n; q++) {
        for (int i = 0; i < k; i++) {
            ok &= d[q * k + i] == val(q * 64 + r, i);
        }
    }
    free(s);
    free(d);
    return ok;
}

static int c_alltoall_small(MPI_Comm comm, int blocking, expect *e)
{
    return alltoall_k(comm, blocking, e, 4, 0);
}

static int c_alltoall(MPI_Comm comm, int blocking, expect *e)
{
    return alltoall_k(comm, blocking, e, 100, 0);
}

static int c_alltoall_inplace(MPI_Comm comm, int blocking, expect *e)
{
    if (!blocking) {
        return alltoall_k(comm, blocking, e, 100, 0); /* MPI-3: no in-place Ialltoall */
    }
    return alltoall_k(comm, blocking, e, 100, 1);
}

static uint64_t vblock_a2av(int caller, int j)
{
    return 4u * (uint64_t)vcount(caller, j);
}

/* alltoallv, or alltoallw with every type MPI_INT (w = 1) */
static int alltoallv_w(MPI_Comm comm, int blocking, expect *e, int w)
{
    MPI_Request req;
    int n = size_of(comm), r = rank_of(comm), ok = 1, st = 0, rt = 0;
    int *sc = ints(n), *sd = ints(n), *rc = ints(n), *rd = ints(n);
    MPI_Datatype *ty = malloc((size_t)n * sizeof *ty);
    for (int j = 0; j < n; j++) {
        sc[j] = vcount(r, j);
        rc[j] = vcount(j, r);
        sd[j] = st * (w ? 4 : 1);
        rd[j] = rt * (w ? 4 : 1);
        st += sc[j];
        rt += rc[j];
        ty[j] = MPI_INT;
    }
    int *s = ints(st), *d = ints(rt);
    for (int j = 0, o = 0; j < n; o += sc[j], j++) {
        for (int i = 0; i < sc[j]; i++) {
            s[o + i] = val(r * 64 + j, i);
        }
    }
    *e = (expect){.op = TEMU_COLL_ALLTOALLV, .block = vblock_a2av};
    if (w && blocking) {
        MPI_Alltoallw(s, sc, sd, ty, d, rc, rd, ty, comm);
    } else if (w) {
        MPI_Ialltoallw(s, sc, sd, ty, d, rc, rd, ty, comm, &req);
    } else if (blocking) {
        MPI_Alltoallv(s, sc, sd, MPI_INT, d, rc, rd, MPI_INT, comm);
    } else {
        MPI_Ialltoallv(s, sc, sd, MPI_INT, d, rc, rd, MPI_INT, comm, &req);
    }
    wait_if(blocking, &req);
    for (int q = 0, o = 0; q < n; o += rc[q], q++) {
        for (int i = 0; i < rc[q]; i++) {
            ok &= d[o + i] == val(q * 64 + r, i);
        }
    }
    free(sc);
    free(sd);
    free(rc);
    free(rd);
    free(ty);
    free(s);
    free(d);
    return ok;
}

static int c_alltoallv(MPI_Comm comm, int blocking, expect *e)
{
    return alltoallv_w(comm, blocking, e, 0);
}

static int c_alltoallw(MPI_Comm comm, int blocking, expect *e)
{
    return alltoallv_w(comm, blocking, e, 1);
}

/* ------------------------------------------------------------ reductions */

/* associative, not commutative: keeps the left operand */
static void left_fn(void *in, void *inout, int *len, MPI_Datatype *t)
{
    (void)t;
    memcpy(inout, in, (size_t)*len * sizeof(int));
}

/* a sum the MPI library does not know is one (no collective network) */
static void sum_fn(void *in, void *inout, int *len, MPI_Datatype *t)
{
    (void)t;
    for (int i = 0; i < *len; i++) {
        ((int *)inout)[i] += ((int *)in)[i];
    }
}

static int sum_of(int n, int i)
{
    int s = 0;
    for (int q = 0; q < n; q++) {
        s += val(q, i);
    }
    return s;
}

static int reduce_k(MPI_Comm comm, int blocking, expect *e, int k, int all, MPI_Op op,
                    int commutative, int hw, int in_place)
{
    MPI_Request req;
    int n = size_of(comm), r = rank_of(comm), root = 3 % n, ok = 1;
    int *s = ints(k), *d = ints(k);
    fill(in_place ? d : s, r, k);
    *e = (expect){.op = all ? TEMU_COLL_ALLREDUCE : TEMU_COLL_REDUCE,
                  .bytes = 4u * (uint64_t)k,
                  .count = (uint64_t)k,
                  .elem = 4,
                  .root = all ? 0 : root,
                  .commutative = commutative,
                  .hw_op = hw};
    const void *sb = in_place ? MPI_IN_PLACE : s;
    if (all && blocking) {
        MPI_Allreduce(sb, d, k, MPI_INT, op, comm);
    } else if (all) {
        MPI_Iallreduce(sb, d, k, MPI_INT, op, comm, &req);
    } else if (blocking) { /* the receive buffer is insignificant off the root */
        MPI_Reduce(s, r == root ? d : NULL, k, MPI_INT, op, root, comm);
    } else {
        MPI_Ireduce(s, r == root ? d : NULL, k, MPI_INT, op, root, comm, &req);
    }
    wait_if(blocking, &req);
    if (all || r == root) {
        for (int i = 0; i < k; i++) {
            int want = commutative ? (op == MPI_MAX ? val(n - 1, i) : sum_of(n, i)) : val(0, i);
            ok &= d[i] == want;
        }
    }
    free(s);
    free(d);
    return ok;
}

static int c_reduce(MPI_Comm comm, int blocking, expect *e)
{
    return reduce_k(comm, blocking, e, 64, 0, MPI_SUM, 1, 1, 0);
}

static int c_reduce_noncomm(MPI_Comm comm, int blocking, expect *e)
{
    MPI_Op op;
    MPI_Op_create(left_fn, 0, &op);
    int ok = reduce_k(comm, blocking, e, 64, 0, op, 0, 0, 0);
    MPI_Op_free(&op);
    return ok;
}

static int c_allreduce_small(MPI_Comm comm, int blocking, expect *e)
{
    return reduce_k(comm, blocking, e, 8, 1, MPI_SUM, 1, 1, 0);
}

static int c_allreduce_large(MPI_Comm comm, int blocking, expect *e)
{
    return reduce_k(comm, blocking, e, 1024, 1, MPI_SUM, 1, 1, 0);
}

static int c_allreduce_inplace(MPI_Comm comm, int blocking, expect *e)
{
    return reduce_k(comm, blocking, e, 8, 1, MPI_MAX, 1, 1, 1);
}

static int c_allreduce_userop(MPI_Comm comm, int blocking, expect *e)
{
    MPI_Op op;
    MPI_Op_create(sum_fn, 1, &op);
    int ok = reduce_k(comm, blocking, e, 8, 1, op, 1, 0, 0);
    MPI_Op_free(&op);
    return ok;
}

static uint64_t vblock_rs(int caller, int j)
{
    (void)caller;
    return 4u * (uint64_t)(j + 1);
}

static int rs_k(MPI_Comm comm, int blocking, expect *e, int block)
{
    MPI_Request req;
    int n = size_of(comm), r = rank_of(comm), ok = 1, tot = 0, off = 0;
    int *cnt = ints(n);
    for (int q = 0; q < n; q++) {
        cnt[q] = block ? 5 : q + 1;
        off += q < r ? cnt[q] : 0;
        tot += cnt[q];
    }
    int *s = ints(tot), *d = ints(cnt[r]);
    fill(s, r, tot);
    *e = (expect){.op = TEMU_COLL_REDUCE_SCATTER,
                  .bytes = block ? 20 : 0,
                  .elem = 4,
                  .commutative = 1,
                  .hw_op = 1,
                  .block = block ? NULL : vblock_rs};
    if (block && blocking) {
        MPI_Reduce_scatter_block(s, d, 5, MPI_INT, MPI_SUM, comm);
    } else if (block) {
        MPI_Ireduce_scatter_block(s, d, 5, MPI_INT, MPI_SUM, comm, &req);
    } else if (blocking) {
        MPI_Reduce_scatter(s, d, cnt, MPI_INT, MPI_SUM, comm);
    } else {
        MPI_Ireduce_scatter(s, d, cnt, MPI_INT, MPI_SUM, comm, &req);
    }
    wait_if(blocking, &req);
    for (int i = 0; i < cnt[r]; i++) {
        ok &= d[i] == sum_of(n, off + i);
    }
    free(cnt);
    free(s);
    free(d);
    return ok;
}

static int c_reduce_scatter(MPI_Comm comm, int blocking, expect *e)
{
    return rs_k(comm, blocking, e, 0);
}

static int c_reduce_scatter_block(MPI_Comm comm, int blocking, expect *e)
{
    return rs_k(comm, blocking, e, 1);
}

static int scan_k(MPI_Comm comm, int blocking, expect *e, int ex)
{
    MPI_Request req;
    int r = rank_of(comm), ok = 1, k = 10;
    int *s = ints(k), *d = ints(k);
    fill(s, r, k);
    *e = (expect){.op = ex ? TEMU_COLL_EXSCAN : TEMU_COLL_SCAN,
                  .bytes = 40,
                  .count = 10,
                  .elem = 4,
                  .commutative = 1,
                  .hw_op = 1};
    if (ex && blocking) {
        MPI_Exscan(s, d, k, MPI_INT, MPI_SUM, comm);
    } else if (ex) {
        MPI_Iexscan(s, d, k, MPI_INT, MPI_SUM, comm, &req);
    } else if (blocking) {
        MPI_Scan(s, d, k, MPI_INT, MPI_SUM, comm);
    } else {
        MPI_Iscan(s, d, k, MPI_INT, MPI_SUM, comm, &req);
    }
    wait_if(blocking, &req);
    for (int i = 0; i < k && (r > 0 || !ex); i++) {
        ok &= d[i] == sum_of(ex ? r : r + 1, i);
    }
    free(s);
    free(d);
    return ok;
}

static int c_scan(MPI_Comm comm, int blocking, expect *e)
{
    return scan_k(comm, blocking, e, 0);
}

static int c_exscan(MPI_Comm comm, int blocking, expect *e)
{
    return scan_k(comm, blocking, e, 1);
}

/* ---------------------------------------------------- neighbourhood */

/* out-neighbours of rank q of a Cartesian communicator: per dimension the
 * - then the + neighbour (MPI-3.1 section 7.6), -1 for none */
static int cart_neighbors(MPI_Comm cart, int q, int *nb)
{
    int nd, dims[4], periods[4], coords[4], c[4];
    MPI_Cartdim_get(cart, &nd);
    MPI_Cart_get(cart, nd, dims, periods, coords);
    MPI_Cart_coords(cart, q, nd, coords);
    for (int d = 0; d < nd; d++) {
        for (int s = 0; s < 2; s++) {
            memcpy(c, coords, sizeof c);
            c[d] += s ? 1 : -1;
            if (!periods[d] && (c[d] < 0 || c[d] >= dims[d])) {
                nb[2 * d + s] = -1;
                continue;
            }
            c[d] = (c[d] + dims[d]) % dims[d];
            MPI_Cart_rank(cart, c, &nb[2 * d + s]);
        }
    }
    return 2 * nd;
}

static uint64_t vblock_nb(int caller, int i)
{
    return 4u * (uint64_t)((caller + i) % 3 + 1);
}

/* kind 0 allgather, 1 allgatherv, 2 alltoall, 3 alltoallv, 4 alltoallw */
static int neighbor_k(MPI_Comm cart, int blocking, expect *e, int kind)
{
    MPI_Request req;
    int r = rank_of(cart), nb[8], ok = 1, k = 10;
    int deg = cart_neighbors(cart, r, nb);
    int sc[8], sd[8], rc[8], rd[8], st = 0, rt = 0;
    MPI_Aint sda[8], rda[8];
    MPI_Datatype ty[8];
    int in_nb[8]; /* the rank each receive block comes from: in = out here */
    memcpy(in_nb, nb, sizeof in_nb);
    for (int i = 0; i < deg; i++) {
        sc[i] = kind >= 3 ? (r + i) % 3 + 1 : k;
        /* block i arrives from neighbour i, which sent it as its block i^1 */
        int from = in_nb[i] < 0 ? 0 : in_nb[i];
        rc[i] = kind >= 3 ? (from + (i ^ 1)) % 3 + 1 : k;
        sd[i] = st;
        rd[i] = rt;
        sda[i] = 4 * (MPI_Aint)st;
        rda[i] = 4 * (MPI_Aint)rt;
        st += sc[i];
        rt += rc[i];
        ty[i] = MPI_INT;
    }
    int *s = ints(st), *d = ints(rt);
    for (int i = 0, o = 0; i < deg; o += sc[i], i++) {
        for (int j = 0; j < sc[i]; j++) {
            s[o + j] = kind <= 1 ? val(r, j) : val(r * 64 + i, j);
        }
    }
    *e = (expect){.op = kind <= 1 ? TEMU_COLL_NEIGHBOR_ALLGATHER : TEMU_COLL_NEIGHBOR_ALLTOALL,
                  .bytes = 4u * (uint64_t)k,
                  .cart = 1,
                  .block = kind >= 3 ? vblock_nb : NULL};
    switch (kind) {
    case 0:
        blocking ? MPI_Neighbor_allgather(s, k, MPI_INT, d, k, MPI_INT, cart)
                 : MPI_Ineighbor_allgather(s, k, MPI_INT, d, k, MPI_INT, cart, &req);
        break;
    case 1:
        blocking ? MPI_Neighbor_allgatherv(s, k, MPI_INT, d, rc, rd, MPI_INT, cart)
                 : MPI_Ineighbor_allgatherv(s, k, MPI_INT, d, rc, rd, MPI_INT, cart, &req);
        break;
    case 2:
        blocking ? MPI_Neighbor_alltoall(s, k, MPI_INT, d, k, MPI_INT, cart)
                 : MPI_Ineighbor_alltoall(s, k, MPI_INT, d, k, MPI_INT, cart, &req);
        break;
    case 3:
        blocking ? MPI_Neighbor_alltoallv(s, sc, sd, MPI_INT, d, rc, rd, MPI_INT, cart)
                 : MPI_Ineighbor_alltoallv(s, sc, sd, MPI_INT, d, rc, rd, MPI_INT, cart, &req);
        break;
    default:
        blocking ? MPI_Neighbor_alltoallw(s, sc, sda, ty, d, rc, rda, ty, cart)
                 : MPI_Ineighbor_alltoallw(s, sc, sda, ty, d, rc, rda, ty, cart, &req);
        break;
    }
    wait_if(blocking, &req);
    for (int i = 0, o = 0; i < deg; o += rc[i], i++) {
        for (int j = 0; in_nb[i] >= 0 && j < rc[i]; j++) {
            int want = kind <= 1 ? val(in_nb[i], j) : val(in_nb[i] * 64 + (i ^ 1), j);
            ok &= d[o + j] == want;
        }
    }
    free(s);
    free(d);
    return ok;
}

static int c_nb_allgather(MPI_Comm c, int b, expect *e)
{
    return neighbor_k(c, b, e, 0);
}
static int c_nb_allgatherv(MPI_Comm c, int b, expect *e)
{
    return neighbor_k(c, b, e, 1);
}
static int c_nb_alltoall(MPI_Comm c, int b, expect *e)
{
    return neighbor_k(c, b, e, 2);
}
static int c_nb_alltoallv(MPI_Comm c, int b, expect *e)
{
    return neighbor_k(c, b, e, 3);
}
static int c_nb_alltoallw(MPI_Comm c, int b, expect *e)
{
    return neighbor_k(c, b, e, 4);
}

/* ------------------------------------------------------- expectation */

static int32_t *members(MPI_Comm comm, int n)
{
    MPI_Group g, wg;
    int *in = (int *)ints(n), *out = (int *)ints(n);
    MPI_Comm_group(comm, &g);
    MPI_Comm_group(MPI_COMM_WORLD, &wg);
    for (int i = 0; i < n; i++) {
        in[i] = i;
    }
    MPI_Group_translate_ranks(g, n, in, wg, out);
    MPI_Group_free(&g);
    MPI_Group_free(&wg);
    free(in);
    return (int32_t *)out;
}

static int64_t node_of(int32_t w)
{
    temu_slot s;
    temu_session_rank_slot(S, w, &s, NULL);
    return s.node;
}

typedef struct inj {
    temu_session *p;
    const int32_t *world;
    int32_t src;
    temu_kind kind;
} inj;

/* the private store has no rank mapping: inject between the ranks' nodes */
static void inject(void *ctx, const tmpi_msg *m)
{
    inj *x = ctx;
    temu_message mm = {node_of(x->world[x->src]), node_of(x->world[m->dst]), m->bytes, NULL,
                       x->kind};
    temu_inject(x->p, &mm, NULL);
}

/* the documented class-route model (doc/mpi.md, mpi/acct_coll.c) */
static void classroute_expect(temu_session *p, const expect *e, const int32_t *world, int n,
                              int64_t *nodes, int nn)
{
    int64_t root = node_of(world[e->op == TEMU_COLL_BCAST || e->op == TEMU_COLL_REDUCE ? e->root : 0]);
    temu_kind kind = n == wsize ? TEMU_KIND_COLL_WORLD : TEMU_KIND_COLL_SUB;
    uint64_t bytes = e->op == TEMU_COLL_BARRIER ? 0 : e->bytes;
    temu_hop *edges;
    int ne;
    if (e->op != TEMU_COLL_BCAST) { /* up: every node injects */
        ne = tmpi_classroute_edges(M, nodes, nn, root, 1, &edges);
        tmpi_classroute_inject(p, edges, ne, nodes, nn, &root, e->op == TEMU_COLL_REDUCE, bytes, kind);
        free(edges);
    }
    if (e->op != TEMU_COLL_REDUCE) { /* down: every node (bcast: but the root's) receives */
        int64_t others[64];
        int no = 0;
        for (int i = 0; i < nn; i++) {
            if (e->op != TEMU_COLL_BCAST || nodes[i] != root) {
                others[no++] = nodes[i];
            }
        }
        ne = tmpi_classroute_edges(M, nodes, nn, root, 0, &edges);
        tmpi_classroute_inject(p, edges, ne, &root, e->op == TEMU_COLL_BCAST, others, no, bytes, kind);
        free(edges);
    }
}

static void build_expected(temu_session *p, MPI_Comm comm, const expect *e)
{
    int n = size_of(comm);
    int32_t *world = members(comm, n);
    int64_t nodes[64];
    int nn = 0;
    for (int i = 0; i < n; i++) { /* distinct nodes, ascending */
        int64_t v = node_of(world[i]);
        int k = 0;
        while (k < nn && nodes[k] < v) {
            k++;
        }
        if (k == nn || nodes[k] != v) {
            memmove(nodes + k + 1, nodes + k, (size_t)(nn - k) * sizeof *nodes);
            nodes[k] = v;
            nn++;
        }
    }
    const temu_family_info *fam = temu_family_info_get(M->system);
    tmpi_coll_env env = {(int32_t)fam->collnet, e->blocking,  n == wsize,
                         tmpi_nodes_form_box(M, nodes, nn), e->hw_op, fam->bruck_alltoall};
    for (int q = 0; q < n; q++) {
        tmpi_coll c;
        uint64_t blocks[64];
        int32_t nb[8];
        memset(&c, 0, sizeof c);
        c.op = e->op;
        c.n = n;
        c.root = e->root;
        c.commutative = e->op == TEMU_COLL_REDUCE || e->op == TEMU_COLL_ALLREDUCE ? e->commutative : 1;
        c.bytes = e->bytes;
        c.count = e->count;
        c.elem = e->elem;
        if (e->cart) {
            c.nnb = cart_neighbors(comm, q, nb);
            c.nb = nb;
        }
        if (e->block != NULL) {
            int nblk = e->cart ? c.nnb : n;
            for (int j = 0; j < nblk; j++) {
                blocks[j] = e->block(q, j);
            }
            c.blocks = blocks;
            if (e->op == TEMU_COLL_GATHERV) { /* the caller's own block */
                c.blocks = NULL;
                c.bytes = q == e->root ? 0 : e->block(q, q);
            }
            if (e->op == TEMU_COLL_SCATTERV && q != e->root) {
                c.blocks = NULL;
            }
        }
        c.algo = tmpi_coll_choose(&env, &c);
        if (c.algo == TMPI_ALGO_CLASSROUTE) {
            if (q == 0) {
                classroute_expect(p, e, world, n, nodes, nn);
            }
            continue;
        }
        /* MPI_Alltoall(v) blocks are all-to-all messages (BG/Q: PAMI's
         * many-to-many protocol, doc/model.md), everything else p2p */
        temu_kind kind = e->op == TEMU_COLL_ALLTOALL || e->op == TEMU_COLL_ALLTOALLV
                             ? TEMU_KIND_ALLTOALL
                             : TEMU_KIND_P2P;
        inj x = {p, world, q, kind};
        tmpi_coll_sends(&c, q, inject, &x);
    }
    free(world);
}

/* Every counter of the session store equals the private one (L2 aside). */
static int compare(temu_session *p, char *why, size_t len)
{
    int64_t l2b = 0, l2e = 0;
    if (M->system == TEMU_SYSTEM_BGQ) {
        l2b = temu_idx_bgq_l2(M, 0, 0, 0);
        l2e = temu_idx_bgq_l2(M, M->nnodes - 1, 15, 15) + 1;
    }
    for (int64_t i = 0; i < (int64_t)temu_counter_count(S); i++) {
        uint64_t a = temu_counter_read(S, i), b = temu_counter_read(p, i);
        if ((i < l2b || i >= l2e) && a != b) {
            char d[160];
            temu_counter_describe(M, i, d, sizeof d);
            snprintf(why, len, "%s = %llu, expected %llu", d, (unsigned long long)a,
                     (unsigned long long)b);
            return 0;
        }
    }
    if (temu_session_messages(S) != temu_session_messages(p) ||
        temu_session_bytes(S) != temu_session_bytes(p)) {
        snprintf(why, len, "totals %llu messages %llu bytes, expected %llu and %llu",
                 (unsigned long long)temu_session_messages(S),
                 (unsigned long long)temu_session_bytes(S),
                 (unsigned long long)temu_session_messages(p),
                 (unsigned long long)temu_session_bytes(p));
        return 0;
    }
    return 1;
}

/* ----------------------------------------------------- hand-derived */

/* Totals on MPI_COMM_WORLD of 8 ranks, one per node, derived by hand from
 * the algorithms (doc/mpi.md): {name, system, blocking, messages, bytes}. */
typedef struct hand {
    const char *name;
    int system, blocking;
    long msgs, bytes;
} hand;

static const hand hands[] = {
    /* dissemination: 8 ranks x 3 rounds of empty messages */
    {"barrier", TEMU_SYSTEM_GEMINI, 1, 24, 0},
    /* binomial: 7 messages of 100 bytes */
    {"bcast-small", TEMU_SYSTEM_GEMINI, 1, 7, 700},
    /* 20000 bytes, n = 8: scatter of 2500-byte chunks (7 messages holding
     * 4+2+1+2+1+1+1 = 12 chunks) then recursive doubling (8 x 3 messages of
     * 1, 2, 4 chunks) */
    {"bcast-large", TEMU_SYSTEM_GEMINI, 1, 7 + 24, 12 * 2500 + 8 * 7 * 2500},
    /* recursive doubling: 8 x 3 messages of 32 bytes */
    {"allreduce-small", TEMU_SYSTEM_GEMINI, 1, 24, 768},
    /* Rabenseifner, 4096 bytes in 8 chunks of 512: halving sends 2048, 1024,
     * 512, doubling 512, 1024, 2048 per rank */
    {"allreduce-large", TEMU_SYSTEM_GEMINI, 1, 48, 8 * 7168},
    /* Bruck, 16-byte blocks: 3 steps of 4 blocks per rank */
    {"alltoall-small", TEMU_SYSTEM_GEMINI, 1, 24, 24 * 64},
    /* pairwise: 56 messages of 400 bytes */
    {"alltoall", TEMU_SYSTEM_GEMINI, 1, 56, 56 * 400},
    /* recursive doubling: each rank sends 1, 2, 4 blocks of 100 bytes */
    {"allgather", TEMU_SYSTEM_GEMINI, 1, 24, 8 * 700},
    /* binomial gather to rank 2: subtrees of 1,2,1,4,1,2,1 blocks */
    {"gather", TEMU_SYSTEM_GEMINI, 1, 7, 12 * 100},
    /* BG/Q class routes: every node injects once (bcast: the root) */
    {"barrier", TEMU_SYSTEM_BGQ, 1, 8, 0},
    {"allreduce-small", TEMU_SYSTEM_BGQ, 1, 8, 256},
    {"bcast-small", TEMU_SYSTEM_BGQ, 1, 1, 100},
    {"reduce", TEMU_SYSTEM_BGQ, 1, 8, 8 * 256},
    /* a user-defined op: no collective network, recursive doubling */
    {"allreduce-userop", TEMU_SYSTEM_BGQ, 1, 24, 768},
    /* BG/P: MPI_COMM_WORLD collectives on the tree network, none on the torus */
    {"allreduce-small", TEMU_SYSTEM_BGP, 1, 0, 0},
    {"bcast-large", TEMU_SYSTEM_BGP, 1, 0, 0},
    {"barrier", TEMU_SYSTEM_BGP, 1, 0, 0},
};

static void result(int ok, const char *what, const char *comm_name, int blocking, const char *why)
{
    if (ok) {
        npass++;
    } else {
        nfail++;
        fprintf(stderr, "FAIL: %s on %s (%s): %s\n", what, comm_name,
                blocking ? "blocking" : "non-blocking", why);
    }
}

static void run_case(const char *name, case_fn fn, MPI_Comm comm, const char *comm_name,
                     int blocking)
{
    expect e;
    int mine, all;
    char why[256] = "";
    int member = comm != MPI_COMM_NULL;

    MPI_Barrier(MPI_COMM_WORLD); /* paused: not counted */
    if (wrank == 0) {
        temu_session_zero(S);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    memset(&e, 0, sizeof e);
    mine = 1;
    if (member) {
        MPI_Pcontrol(1);
        mine = fn(comm, blocking, &e);
        MPI_Pcontrol(0);
    }
    e.blocking = blocking;
    MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    if (wrank != 0) {
        return;
    }
    result(all, name, comm_name, blocking, "wrong result");
    temu_session *p;
    temu_error err;
    if (temu_session_create_private(M, &p, &err) != TEMU_OK) {
        result(0, name, comm_name, blocking, err.message);
        return;
    }
    build_expected(p, comm, &e);
    int ok = compare(p, why, sizeof why);
    result(ok, name, comm_name, blocking, why);
    temu_session_close(p);
    if (comm == MPI_COMM_WORLD && wsize == 8) {
        for (size_t i = 0; i < sizeof hands / sizeof hands[0]; i++) {
            const hand *h = &hands[i];
            if (strcmp(h->name, name) == 0 && h->system == M->system && h->blocking == blocking) {
                snprintf(why, sizeof why, "%llu messages %llu bytes, derived by hand %ld and %ld",
                         (unsigned long long)temu_session_messages(S),
                         (unsigned long long)temu_session_bytes(S), h->msgs, h->bytes);
                result(temu_session_messages(S) == (uint64_t)h->msgs &&
                           temu_session_bytes(S) == (uint64_t)h->bytes,
                       name, "MPI_COMM_WORLD by hand", blocking, why);
            }
        }
    }
}

static const struct {
    const char *name;
    case_fn fn;
} cases[] = {
    {"barrier", c_barrier},
    {"bcast-small", c_bcast_small},
    {"bcast-large", c_bcast_large},
    {"gather", c_gather},
    {"gatherv", c_gatherv},
    {"scatter", c_scatter},
    {"scatterv", c_scatterv},
    {"allgather", c_allgather},
    {"allgatherv", c_allgatherv},
    {"alltoall-small", c_alltoall_small},
    {"alltoall", c_alltoall},
    {"alltoall-inplace", c_alltoall_inplace},
    {"alltoallv", c_alltoallv},
    {"alltoallw", c_alltoallw},
    {"reduce", c_reduce},
    {"reduce-noncommutative", c_reduce_noncomm},
    {"allreduce-small", c_allreduce_small},
    {"allreduce-large", c_allreduce_large},
    {"allreduce-inplace", c_allreduce_inplace},
    {"allreduce-userop", c_allreduce_userop},
    {"reduce_scatter", c_reduce_scatter},
    {"reduce_scatter_block", c_reduce_scatter_block},
    {"scan", c_scan},
    {"exscan", c_exscan},
};

static const struct {
    const char *name;
    case_fn fn;
} nbcases[] = {
    {"neighbor_allgather", c_nb_allgather}, {"neighbor_allgatherv", c_nb_allgatherv},
    {"neighbor_alltoall", c_nb_alltoall},   {"neighbor_alltoallv", c_nb_alltoallv},
    {"neighbor_alltoallw", c_nb_alltoallw},
};

int main(int argc, char **argv)
{
    temu_error err;
    MPI_Init(&argc, &argv);
    MPI_Pcontrol(0);
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);
    if (temu_session_attach_env(&S, &err) != TEMU_OK) {
        fprintf(stderr, "coll_check: %s\n", err.message);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    M = temu_session_machine(S);
    if (wsize < 4 || wsize > 64 || wsize % 2 != 0) {
        if (wrank == 0) {
            fprintf(stderr, "coll_check: run with an even number of ranks, 4 to 64\n");
        }
        MPI_Finalize();
        return 2;
    }
    /* sub-communicators holding rank 0: the even ranks, and ranks 0..2 */
    MPI_Comm even, three, cart;
    MPI_Comm_split(MPI_COMM_WORLD, wrank % 2 == 0 ? 0 : MPI_UNDEFINED, wrank, &even);
    MPI_Comm_split(MPI_COMM_WORLD, wrank < 3 ? 0 : MPI_UNDEFINED, wrank, &three);
    /* the periodic dimension is longer than 2, so - and + neighbours differ
     * (with 2, which message lands in which block is not well defined) */
    int dims[2] = {2, wsize / 2}, periods[2] = {0, wsize / 2 > 2};
    MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &cart);

    for (int blocking = 1; blocking >= 0; blocking--) {
        for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
            run_case(cases[i].name, cases[i].fn, MPI_COMM_WORLD, "MPI_COMM_WORLD", blocking);
            run_case(cases[i].name, cases[i].fn, even, "even ranks", blocking);
            run_case(cases[i].name, cases[i].fn, three, "ranks 0-2", blocking);
        }
        for (size_t i = 0; i < sizeof nbcases / sizeof nbcases[0]; i++) {
            run_case(nbcases[i].name, nbcases[i].fn, cart, "2-D Cartesian", blocking);
        }
    }
    if (wrank == 0) {
        printf("coll_check on %s, %d ranks\n", M->name, wsize);
        printf("%d passed, %d failed\n", npass, nfail);
    }
    if (even != MPI_COMM_NULL) {
        MPI_Comm_free(&even);
    }
    if (three != MPI_COMM_NULL) {
        MPI_Comm_free(&three);
    }
    MPI_Comm_free(&cart);
    temu_session_close(S);
    MPI_Finalize();
    return nfail ? 1 : 0;
}
