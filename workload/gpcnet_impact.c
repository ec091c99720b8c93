/*
 * gpcnet_impact.c - GPCNeT's Congestion Impact in virtual time
 * (Chunduri et al., "GPCNeT: Designing a Benchmark Suite for Inducing and
 * Measuring Contention in HPC Networks", SC19; seed 002 sections 3 and
 * 5.2; doc/replay.md), following network_load_test.c of GPCNeT 1.3.
 *
 * The canary tests run twice over the timing model, alone and while the
 * congestors run, on the layout of gpcnet.h (communicators per process
 * slot).  Iteration k of the two ring tests uses random ring k mod 30:
 *   P2P Lat      (p2p_latency()) after a barrier of all canaries, each
 *                canary sends 8 B to both ring neighbours and receives
 *                theirs, wait-all; a sample is the iteration's time / 2, us;
 *                a barrier of the slot closes it;
 *   P2P BW+Sync  (p2p_neighbors()) the same with 8 x 128 KiB each way and a
 *                barrier of the slot inside the timed part; a sample is
 *                16 x 128 KiB / the time, MiB/s per rank;
 *   Allreduce    (allreduce_test()) an allreduce of all canaries (GPCNeT's
 *                timeout check), one untimed 8-byte allreduce of the slot
 *                (warm-up), then one timed per iteration, us.
 * GPCNeT times 200 (latency) or 8 (bandwidth) iterations per ring and
 * 200 allreduces per test, repeated for up to 10 s; here each canary gives
 * one sample per iteration (--steps).  Statistics as summarize_performance()
 * (utils.c): the mean over every canary's samples, the 99th percentile from
 * a histogram of 100,000 buckets.  Congestion Impact (eq. 1): congested /
 * isolated for the latencies, isolated / congested for the bandwidth.
 *
 * The congested runs follow network_load_test.c (GPCNeT 1.3): each canary
 * test has its own congested phase, as main() gives the canaries
 * run_network_tests() and the congestors run_congestor_tests(), both
 * looping over the three tests.  Per test:
 *   - the congestors make one whole congestor() call (congestors.c; the
 *     warm-up: iteration 0 of run_congestor_tests()' while loop), then
 *     enter an MPI_Ibarrier of every rank and wait for it (MPI_Wait at
 *     iteration 1) before their next call;
 *   - the canaries enter that barrier as the test starts
 *     (run_network_tests(): MPI_Ibarrier and MPI_Wait), so they are
 *     released when the last congestor ends its warm-up call, and start
 *     the test as every congestor starts its call 1;
 *   - congestor() starts each measurement with an MPI_Iallreduce over the
 *     group's communicator and waits for it at the next one or the call's
 *     end: no member ends a call before every member has started it
 *     (here a barrier of the group's busy members starts each round);
 *   - after the test (random_ring() or allreduce_test()) the canaries
 *     enter a second MPI_Ibarrier of every rank, the one that tells the
 *     congestors the test is over; each congestor enters it after call 1 without
 *     waiting, then after every call k >= 1 tests it (MPI_Test) and
 *     combines the flags of its congestor kind with MPI_Iallreduce
 *     (MPI_MIN), waited for after call k + 1: it leaves the loop after the
 *     call that follows the first call at whose end every one of them saw
 *     the barrier complete -- one more whole call after that (at least
 *     calls 0 to 3: the barrier needs every congestor's call 1);
 *   - between tests the congestors summarize their measurement and meet
 *     in NUM_CONGESTOR_TESTS barriers of all congestors, then start the
 *     next test with a fresh warm-up call; the canaries wait in the next
 *     test's release barrier meanwhile.
 * Here a congestor() call is one round (one call of the congestor
 * function, as the canaries' 200 iterations per ring are --steps
 * iterations), and each test's congested phase is its own timing run
 * from virtual time 0: at the release barrier every rank waits and every
 * earlier operation has completed (blocking calls, MPI_Waitall,
 * MPI_Win_flush), so nothing of the earlier tests is in the network
 * then.  Left out: the barriers' skew on leaving the congestors' barriers
 * between tests (each run starts the congestors at once), the done
 * barrier's messages (it completes when its last rank enters), MPI_Test's
 * progress (a member sees it complete if that was before the member's
 * round ended), and the Iallreduce spanning all slots of a congestor kind
 * (here each group of a kind and slot decides alone; the same with one
 * rank per node).  The isolated run makes the three tests back to back,
 * as run_network_tests() takes the baselines.
 *
 * Each run's operations are recorded as the ranks reach them
 * (doc/performance.md "Memory": a source releases a message once it has
 * arrived and its sender and receiver are past it, in any order; what is
 * held still grows with the iterations, as what is outstanding does: the
 * incast's eager sends in flight to its root): the canaries are one source of the virtual time
 * (temu_vt_set_sources; a round: one iteration of a test), each
 * congestor group another (a round: one call of its congestor function,
 * group_source).  The release barrier spans them (every source's first
 * round is recorded before any rank runs).
 *
 * With TORUSEMU_RECORD_WHOLE=1 (whole: for comparing memory) each run is
 * recorded whole before it runs: each group's rounds must be fixed first,
 * so a test's run is repeated until each group makes the rounds GPCNeT's
 * loop would make in that very run (congested()); its samples are then
 * those of the lazy run (checked on Gemini, BG/Q and BG/P, both model
 * levels: tests/test_vtime.c test_gpcnet_lazy).
 */
#include "gpcnet.h"
#include "torusemu_vtime.h"
#include "workload.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Most congestor rounds tried before giving up. */
#define MAX_ROUNDS (1 << 20)
/* summarize_performance(): buckets of the samples' histogram. */
#define HIST_BUCKETS 100000

typedef struct run_ctx {
    temu_session *s;
    const temu_pattern *p;
    const temu_tm_config *tc;
    int32_t n;
    temu_gpcnet_layout l;
    int32_t *ids;  /* canary communicators (slots + 1)             */
    int32_t *buf;  /* a ring                                        */
    uint8_t *idle; /* [layout place] a congestor with nothing to do */
    int32_t iters;
    uint64_t bw_bytes;          /* the bandwidth canary's messages                */
    const temu_vt_watch *watch; /* each run's, or NULL                    */
    int32_t runs;               /* runs made                              */
    temu_replay_stats replayed; /* what the latest run replayed           */
    temu_tm_totals work;        /* the timing model's, summed over the runs */
    int whole;                  /* record each run whole (the fixed point) */
    int32_t ng;                 /* congestor groups: (GPC_ROLES - 1) x slots */
    /* the run: its replay and virtual time, its test (-1: the isolated
     * run of all three), the canaries' next iteration and the last + 1 */
    temu_replay *r;
    temu_vt *vt;
    int test;
    int32_t canary_next, canary_end;
    /* the done barrier: ranks [0 .. dcur) of the layout (canaries, then
     * busy congestors) have entered it, the last at dtime (ps) */
    int32_t dcur;
    int64_t dtime;
    struct group_src {
        struct run_ctx *x;
        int32_t g, next; /* the group (gpcnet.h), its next round        */
        int32_t last;    /* lazy: the round found to be its last, or -1 */
        int32_t rounds;  /* whole: the rounds recorded                  */
        int32_t comm;    /* its busy members' communicator, or -1       */
    } * group;           /* [congestor group] its source */
} run_ctx;

/* Marks of a canary per test: 2 per iteration and the test's end. */
static int32_t test_marks(const run_ctx *x)
{
    return 2 * x->iters + 1;
}

/* Every canary notes its clock (mark) or waits for its messages. */
static temu_status canaries_each(temu_vt *vt, const run_ctx *x, int mark, temu_error *err)
{
    temu_status st = TEMU_OK;
    for (int32_t i = 0; i < x->l.canaries && st == TEMU_OK; i++) {
        st = mark ? temu_vt_mark(vt, x->l.rank[i], err) : temu_vt_wait(vt, x->l.rank[i], 0, err);
    }
    return st;
}

/* Every canary calls c on the communicator of all canaries. */
static temu_status canaries_all(temu_replay *r, const run_ctx *x, const temu_replay_coll *c,
                                temu_error *err)
{
    temu_status st = TEMU_OK;
    for (int32_t i = 0; i < x->l.canaries && st == TEMU_OK; i++) {
        st = temu_replay_collective(r, x->ids[x->l.slots], i, c, err);
    }
    return st;
}

/* Ranks place .. place + m - 1 of the layout call MPI_Barrier on the world. */
static temu_status world_barrier(temu_replay *r, const run_ctx *x, int32_t place, int32_t m,
                                 temu_error *err)
{
    temu_status st = TEMU_OK;
    for (int32_t i = place; i < place + m && st == TEMU_OK; i++) {
        st = temu_replay_collective(r, TEMU_REPLAY_WORLD, x->l.rank[i], &temu_gpcnet_barrier, err);
    }
    return st;
}

/* Iteration `it` of ring test `test` (0 latency, 1 bandwidth). */
static temu_status ring_iteration(temu_replay *r, temu_vt *vt, const run_ctx *x, int test,
                                  int32_t it, temu_error *err)
{
    temu_status st = canaries_all(r, x, &temu_gpcnet_barrier, err);
    st = st == TEMU_OK ? canaries_each(vt, x, 1, err) : st;
    if (st == TEMU_OK) {
        st = temu_gpcnet_ring_exchange(r, &x->l, it % GPC_RINGS, test ? x->bw_bytes : GPC_LAT_BYTES,
                                       test ? GPC_BW_MSGS : 1, x->buf, err);
    }
    st = st == TEMU_OK ? canaries_each(vt, x, 0, err) : st;
    if (st == TEMU_OK && test == 1) { /* the "Sync" of BW+Sync, timed */
        st = temu_gpcnet_slot_coll(r, &x->l, x->ids, &temu_gpcnet_barrier, err);
    }
    st = st == TEMU_OK ? canaries_each(vt, x, 1, err) : st;
    return st == TEMU_OK ? temu_gpcnet_slot_coll(r, &x->l, x->ids, &temu_gpcnet_barrier, err) : st;
}

/* Round k (0 .. 3 iters - 1) of the canaries' three tests, each `iters`
 * iterations between marks: the ring tests' iterations, then the
 * allreduce's (its first after the untimed ones).  With the congestors
 * (x->test >= 0) a test's first round starts with the barrier of every
 * rank that releases it (run_network_tests(): MPI_Ibarrier and MPI_Wait
 * on the world before each test).  A test's last round ends with a mark
 * of its end: there the canary enters the world's MPI_Ibarrier that tells
 * the congestors the test is done.  Each round ends with a collective or
 * a mark after one: nothing of it is left pending (temu_vt_set_source). */
static temu_status canary_round(temu_replay *r, temu_vt *vt, const run_ctx *x, int32_t k,
                                temu_error *err)
{
    temu_status st = TEMU_OK;
    int32_t it = k % x->iters;
    if (x->test >= 0 && it == 0) {
        st = world_barrier(r, x, 0, x->l.canaries, err);
    }
    if (k < 2 * x->iters) {
        st = st == TEMU_OK ? ring_iteration(r, vt, x, k / x->iters, it, err) : st;
    } else {
        if (k == 2 * x->iters) {
            st = st == TEMU_OK ? canaries_all(r, x, &temu_gpcnet_allreduce, err) : st;
            st = st == TEMU_OK
                     ? temu_gpcnet_slot_coll(r, &x->l, x->ids, &temu_gpcnet_allreduce, err)
                     : st;
        }
        st = st == TEMU_OK ? canaries_each(vt, x, 1, err) : st;
        st = st == TEMU_OK ? temu_gpcnet_slot_coll(r, &x->l, x->ids, &temu_gpcnet_allreduce, err)
                           : st;
        st = st == TEMU_OK ? canaries_each(vt, x, 1, err) : st;
    }
    if (st == TEMU_OK && it == x->iters - 1) {
        st = canaries_each(vt, x, 1, err);
    }
    return st;
}

/* Samples of test `test` from a run: out[canary * iters + it]; the marks
 * of the run's test `first` come first. */
static void samples(temu_vt *vt, const run_ctx *x, int test, int first, double *out)
{
    for (int32_t i = 0; i < x->l.canaries; i++) {
        int32_t nm;
        const int64_t *mk = temu_vt_marks(vt, x->l.rank[i], &nm);
        for (int32_t it = 0; it < x->iters; it++) {
            int32_t j = (test - first) * test_marks(x) + 2 * it;
            double ps = j + 1 < nm ? (double)(mk[j + 1] - mk[j]) : 0;
            double v = test == 1
                           ? (double)(2 * GPC_BW_MSGS * x->bw_bytes) / 1048576.0 / (ps * 1e-12)
                       : test == 0 ? ps / 2 * 1e-6
                                   : ps * 1e-6;
            out[(size_t)i * (size_t)x->iters + (size_t)it] = v;
        }
    }
}

static const char *const test_names[3] = {"P2P Lat", "P2P BW+Sync", "Allreduce"};

/* Tell the watch what the next run is. */
static void run_phase(const run_ctx *x)
{
    char what[96];
    if (x->watch == NULL || x->watch->phase == NULL) {
        return;
    }
    int32_t most = 0;
    for (int32_t k = 0; x->whole && x->test >= 0 && k < x->ng; k++) {
        most = x->group[k].rounds > most ? x->group[k].rounds : most;
    }
    if (x->test < 0) {
        snprintf(what, sizeof what, "isolated canaries");
    } else if (!x->whole) {
        snprintf(what, sizeof what, "%s with congestor rounds until GPCNeT's congestors stop",
                 test_names[x->test]);
    } else {
        snprintf(what, sizeof what, "%s with up to %d congestor rounds", test_names[x->test], most);
    }
    x->watch->phase(x->watch->ctx, what);
}

/* Round k of congestor group g in the congested run of one test, the
 * scaled congestor() call (congestors.c) of run_congestor_tests()' loop:
 * round 0 is the warm-up call, after which every member enters the
 * barrier of every rank that releases the canaries (MPI_Ibarrier, waited
 * for before the next call).  A round starts with a barrier of the
 * group's busy members: congestor() starts each measurement with an
 * MPI_Iallreduce of the elapsed time over the group (its timeout check)
 * and waits for it at the next measurement or the call's end, so no
 * member ends a call before every member has started it (an incast's
 * senders, whose 4 KiB sends complete as they leave the node, stay
 * within a call of their root); here the wait is at the round's start,
 * a blocking barrier (the warm-up call's MPI_Barrier before each
 * measurement is one).  The idle members (a PUT or GET root) do nothing
 * in congestor() but that allreduce; they are left out of it.  Each busy
 * member marks the round's end:
 * its mark 1 is where it enters the done barrier (MPI_Ibarrier after
 * call 1), its mark k where it tests that barrier after call k. */
static temu_status group_round(temu_replay *r, temu_vt *vt, const run_ctx *x, int32_t g, int32_t k,
                               temu_error *err)
{
    int32_t lo = x->l.first[g], hi = x->l.first[g + 1];
    int32_t comm = x->group[g - GPC_A2A * x->l.slots].comm, busy = lo + x->idle[lo];
    temu_status st = TEMU_OK;
    for (int32_t i = busy; comm >= 0 && i < hi && st == TEMU_OK; i++) {
        st = temu_replay_collective(r, comm, i - busy, &temu_gpcnet_barrier, err);
    }
    st = st == TEMU_OK ? temu_gpcnet_group_round(r, &x->l, g, err) : st;
    if (st == TEMU_OK && k == 0) {
        st = world_barrier(r, x, lo, hi - lo, err);
    }
    for (int32_t i = lo; i < hi && st == TEMU_OK; i++) {
        st = x->idle[i] ? TEMU_OK : temu_vt_mark(vt, x->l.rank[i], err);
    }
    return st;
}

/* Layout place i's mark of entering the done barrier: a canary's end of
 * the test, a busy congestor's round 1 (idle ones enter it at once). */
static int done_mark(temu_vt *vt, const run_ctx *x, int32_t i, int64_t *t)
{
    int32_t nm, want = i < x->l.canaries ? test_marks(x) - 1 : 1;
    const int64_t *mk = temu_vt_marks(vt, x->l.rank[i], &nm);
    if (nm <= want) {
        return 0;
    }
    *t = mk[want];
    return 1;
}

/* Advance the done barrier over the places that have entered it; 1 once
 * every one has (x->dtime: when the last did). */
static int done_barrier(temu_vt *vt, run_ctx *x)
{
    for (int64_t t; x->dcur < x->n; x->dcur++) {
        if (x->dcur >= x->l.canaries && x->idle[x->dcur]) {
            continue;
        }
        if (!done_mark(vt, x, x->dcur, &t)) {
            return 0;
        }
        x->dtime = t > x->dtime ? t : x->dtime;
    }
    return 1;
}

/* When the congestors of group g leave GPCNeT's loop: after round k + 1,
 * for the first k >= 1 at whose end every busy member's MPI_Test saw the
 * done barrier complete (run_congestor_tests(): each member tests it
 * after call k and the MPI_Iallreduce of the flags with MPI_MIN, waited
 * for after call k + 1, ends the loop).  The barrier completes when the
 * last rank enters it (its messages are not modelled); a member saw it
 * when that was before the member's end of round k, so the test of the
 * earliest member to end round k (t_k) decides: complete iff the last
 * entry < t_k.  From the marks of `rounds` rounds: *count = k + 2, the
 * rounds GPCNeT's loop makes, and *when = t_k; or 0 if no k < rounds
 * decides. */
static int group_last(temu_vt *vt, const run_ctx *x, int32_t g, int32_t rounds, int32_t *count,
                      int64_t *when)
{
    int32_t lo = x->l.first[g], hi = x->l.first[g + 1];
    for (int32_t k = 1; k < rounds; k++) {
        int64_t tk = INT64_MAX;
        for (int32_t i = lo; i < hi; i++) {
            int32_t nm;
            const int64_t *mk = temu_vt_marks(vt, x->l.rank[i], &nm);
            if (!x->idle[i]) {
                tk = nm > k && mk[k] < tk ? mk[k] : tk;
            }
        }
        if (tk != INT64_MAX && x->dtime < tk) {
            *count = k + 2;
            *when = tk;
            return 1;
        }
    }
    return 0;
}

/* The canaries' source: their next round of the run's tests, if any. */
static temu_status canary_source(void *ctx, int *more, temu_error *err)
{
    run_ctx *x = ctx;
    *more = x->canary_next < x->canary_end;
    return *more ? canary_round(x->r, x->vt, x, x->canary_next++, err) : TEMU_OK;
}

/* A congestor group's source: round 0, then rounds until GPCNeT's loop
 * ends (group_last).  Asked when a member has run out of round k - 1,
 * which the earliest member to end it does first, at t_(k-1): the done
 * barrier's entries before then have been executed (the engine is
 * conservative), those not yet executed are not before it.  One source
 * per group: the groups go at their own pace (an incast's round takes
 * longer than an all-to-all's).  The idle congestors (a PUT or GET root,
 * a group of one) get round 0 (their part of it: waits) and the release
 * barrier only: a rank given nothing would ask again at the same virtual
 * time for ever. */
static temu_status group_source(void *ctx, int *more, temu_error *err)
{
    struct group_src *q = ctx;
    run_ctx *x = q->x;
    int32_t k = q->next, lo = x->l.first[q->g], hi = x->l.first[q->g + 1];
    *more = q->last < 0 || k <= q->last;
    if (!*more) {
        return TEMU_OK;
    }
    if (k >= MAX_ROUNDS) {
        return temu_fail(err, TEMU_EINVAL, "gpcnet: %d congestor rounds and the %s test not done",
                         k, test_names[x->test]);
    }
    int32_t count;
    int64_t when;
    if (k >= 2 && q->last < 0 && done_barrier(x->vt, x) &&
        group_last(x->vt, x, q->g, k, &count, &when)) {
        q->last = count - 1; /* round k - 1 decided: round k is the last */
    }
    q->next++;
    temu_status st = group_round(x->r, x->vt, x, q->g, k, err);
    for (int32_t i = lo; k == 0 && i < hi && st == TEMU_OK; i++) {
        if (x->idle[i]) {
            temu_vt_rank_retire(x->vt, x->l.rank[i]);
        }
    }
    return st;
}

/* The run's sources: the canaries, and congested each congestor group. */
static temu_status set_sources(run_ctx *x, temu_vt *vt, temu_error *err)
{
    int32_t ns = 0;
    temu_vt_source *src = calloc((size_t)x->ng + 1, sizeof *src);
    if (src == NULL) {
        return temu_fail(err, TEMU_ENOMEM, "gpcnet: out of memory");
    }
    if (x->l.canaries > 0) {
        src[ns++] = (temu_vt_source){0, x->l.canaries, canary_source, x, x->l.rank};
    }
    for (int32_t k = 0; x->test >= 0 && k < x->ng; k++) {
        int32_t g = GPC_A2A * x->l.slots + k, lo = x->l.first[g], hi = x->l.first[g + 1];
        x->group[k].next = 0;
        x->group[k].last = -1;
        if (hi > lo) {
            src[ns++] = (temu_vt_source){0, hi - lo, group_source, &x->group[k], x->l.rank + lo};
        }
    }
    temu_status st = ns > 0 ? temu_vt_set_sources(vt, ns, src, err) : TEMU_OK;
    free(src);
    return st;
}

/* The whole path: every operation of the run before it runs, in the
 * order of the sources' id windows (the canaries, then group by group). */
static temu_status record_whole(run_ctx *x, temu_error *err)
{
    temu_status st = TEMU_OK;
    for (int32_t k = x->canary_next; k < x->canary_end && st == TEMU_OK; k++) {
        st = canary_round(x->r, x->vt, x, k, err);
    }
    for (int32_t k = 0; x->test >= 0 && k < x->ng && st == TEMU_OK; k++) {
        int32_t g = GPC_A2A * x->l.slots + k;
        for (int32_t j = 0; j < x->group[k].rounds && st == TEMU_OK; j++) {
            st = group_round(x->r, x->vt, x, g, j, err);
        }
        x->group[k].next = x->group[k].rounds;
    }
    return st;
}

/* Did every busy congestor end after the last canary? */
static int covered(temu_vt *vt, const run_ctx *x)
{
    int64_t canary_end = 0, congestor_end = INT64_MAX;
    temu_vt_rank_stats rs;
    for (int32_t i = 0; i < x->n; i++) {
        temu_vt_rank_get(vt, x->l.rank[i], &rs);
        if (i < x->l.canaries) {
            canary_end = rs.end_ps > canary_end ? rs.end_ps : canary_end;
        } else if (!x->idle[i] && rs.end_ps < congestor_end) {
            congestor_end = rs.end_ps;
        }
    }
    return congestor_end >= canary_end;
}

/* The congestors that send nothing: the target of a PUT incast or GET
 * broadcast (rank 0 of its group) and a group of one. */
static temu_status mark_idle(run_ctx *x, temu_error *err)
{
    x->idle = calloc((size_t)(x->n > 0 ? x->n : 1), 1);
    x->ng = (GPC_ROLES - GPC_A2A) * x->l.slots;
    x->group = calloc((size_t)x->ng + 1, sizeof *x->group);
    if (x->idle == NULL || x->group == NULL) {
        return temu_fail(err, TEMU_ENOMEM, "gpcnet: out of memory");
    }
    for (int32_t g = GPC_A2A * x->l.slots; g < GPC_ROLES * x->l.slots; g++) {
        int32_t lo = x->l.first[g], hi = x->l.first[g + 1];
        if (hi - lo == 1 || (hi > lo && g >= GPC_PUT_INCAST * x->l.slots)) {
            x->idle[lo] = 1;
        }
        x->group[g - GPC_A2A * x->l.slots] = (struct group_src){x, g, 0, -1, 0, -1};
    }
    return TEMU_OK;
}

/* One run: test -1, the canaries' three tests alone; else test `test`
 * (0 .. 2) with the congestors.  out: the samples of each test run. */
static temu_status run(run_ctx *x, int test, double **out, temu_vt **keep, temu_error *err)
{
    temu_vt *vt = NULL;
    temu_replay *r = NULL;
    temu_session_zero(x->s);
    x->test = test;
    x->canary_next = test < 0 ? 0 : test * x->iters;
    x->canary_end = test < 0 ? 3 * x->iters : (test + 1) * x->iters;
    x->dcur = 0;
    x->dtime = 0;
    run_phase(x);
    x->runs++;
    temu_status st = temu_vt_create(x->s, x->tc, &vt, err);
    if (st == TEMU_OK) {
        temu_vt_set_post_all(vt, 1);
        temu_vt_set_watch(vt, x->watch);
        st = temu_replay_create(x->s, &r, err);
    }
    if (st == TEMU_OK) {
        temu_replay_set_vtime(r, vt);
        st = temu_gpcnet_canary_comms(r, &x->l, x->ids, err);
    }
    for (int32_t k = 0; k < x->ng && st == TEMU_OK; k++) {
        int32_t g = x->group[k].g, lo = x->l.first[g], hi = x->l.first[g + 1];
        int32_t busy = hi > lo ? lo + x->idle[lo] : hi;
        x->group[k].comm = -1;
        if (test >= 0 && hi - busy >= 2) {
            x->group[k].comm = temu_replay_unused_comm(r);
            st = temu_replay_comm(r, x->group[k].comm, hi - busy, x->l.rank + busy, err);
        }
    }
    x->r = r;
    x->vt = vt;
    if (st == TEMU_OK && !x->whole) {
        /* recorded as the ranks reach it */
        st = set_sources(x, vt, err);
        st = st == TEMU_OK ? temu_vt_run(vt, err) : st;
    } else if (st == TEMU_OK) {
        st = record_whole(x, err);
    }
    if (st == TEMU_OK) {
        st = temu_replay_finish(r, err);
    }
    if (r != NULL) {
        temu_replay_get_stats(r, &x->replayed);
    }
    if (st == TEMU_OK && x->whole) {
        st = temu_vt_run(vt, err);
    }
    if (st == TEMU_OK) {
        for (int t = test < 0 ? 0 : test; t < (test < 0 ? 3 : test + 1); t++) {
            samples(vt, x, t, test < 0 ? 0 : test, out[t]);
        }
        if (test >= 0 && !done_barrier(vt, x)) {
            st = temu_fail(err, TEMU_EINVAL, "gpcnet: a rank never entered the %s test's end",
                           test_names[test]);
        } else if (test >= 0 && !x->whole && !covered(vt, x)) { /* the loop's rule ensures it */
            st = temu_fail(err, TEMU_EINVAL, "gpcnet: a congestor ended before the canaries");
        }
    }
    if (vt != NULL) {
        temu_tm_totals w;
        temu_vt_model_totals(vt, &w);
        x->work.packet_hops += w.packet_hops;
        x->work.train_hops += w.train_hops;
        x->work.events += w.events;
    }
    temu_replay_free(r);
    x->r = NULL;
    if (st == TEMU_OK && keep != NULL) {
        temu_vt_free(*keep);
        *keep = vt;
    } else {
        temu_vt_free(vt);
    }
    return st;
}

/* The congested run of test `test`: lazy, one run; whole, runs with fixed
 * rounds per group until each group's rounds are those GPCNeT's loop
 * makes in that very run (group_last), a fixed point found in the order
 * of the groups' decisions: a group's decision depends only on what
 * happened before it, and the rounds after a decision start after it, so
 * once the groups deciding first have their rounds right the run up to
 * the next decision is the lazy run's.  Too few rounds to decide: twice
 * as many.  *rounds: the most rounds of a group. */
static temu_status congested(run_ctx *x, int test, double **out, temu_vt **keep, int32_t *rounds,
                             temu_error *err)
{
    temu_status st = TEMU_OK;
    *rounds = 0;
    if (!x->whole) {
        st = run(x, test, out, keep, err);
        for (int32_t k = 0; st == TEMU_OK && k < x->ng; k++) {
            *rounds = x->group[k].next > *rounds ? x->group[k].next : *rounds;
        }
        return st;
    }
    for (int32_t k = 0; k < x->ng; k++) {
        int32_t m = temu_gpcnet_size(&x->l, x->group[k].g);
        x->group[k].rounds = m == 0                   ? 0
                             : m == 1                 ? 1
                             : x->group[k].rounds > 4 ? x->group[k].rounds
                                                      : 4;
    }
    temu_vt *vt = NULL;
    for (;;) {
        st = run(x, test, out, &vt, err);
        if (st != TEMU_OK) {
            break;
        }
        int changed = 0;
        int64_t first = INT64_MAX;
        int32_t *want = calloc((size_t)x->ng + 1, sizeof *want);
        int64_t *when = calloc((size_t)x->ng + 1, sizeof *when);
        if (want == NULL || when == NULL) {
            free(want);
            free(when);
            st = temu_fail(err, TEMU_ENOMEM, "gpcnet: out of memory");
            break;
        }
        for (int32_t k = 0; k < x->ng; k++) {
            struct group_src *q = &x->group[k];
            int32_t lo = x->l.first[q->g], hi = x->l.first[q->g + 1], busy = 0;
            for (int32_t i = lo; i < hi; i++) {
                busy |= !x->idle[i];
            }
            want[k] = q->rounds;
            if (!busy) {
                continue;
            }
            if (!group_last(vt, x, q->g, q->rounds, &want[k], &when[k])) {
                want[k] = 2 * q->rounds; /* not decided yet */
                when[k] = -1;
                changed = 1;
            } else if (want[k] != q->rounds && when[k] < first) {
                first = when[k];
            }
        }
        for (int32_t k = 0; k < x->ng; k++) {
            if (when[k] < 0 || (want[k] != x->group[k].rounds && when[k] == first && !changed)) {
                if (want[k] > MAX_ROUNDS) {
                    st = temu_fail(err, TEMU_EINVAL,
                                   "gpcnet: %d congestor rounds and the %s test not done",
                                   x->group[k].rounds, test_names[test]);
                }
                x->group[k].rounds = want[k];
                changed = 1;
            }
        }
        free(want);
        free(when);
        if (st != TEMU_OK || !changed) {
            break;
        }
    }
    for (int32_t k = 0; st == TEMU_OK && k < x->ng; k++) {
        *rounds = x->group[k].rounds > *rounds ? x->group[k].rounds : *rounds;
    }
    if (st == TEMU_OK && keep != NULL) {
        temu_vt_free(*keep);
        *keep = vt;
    } else {
        temu_vt_free(vt);
    }
    return st;
}

/* Mean of n samples (0 when there are none). */
static double sample_mean(const double *x, size_t n)
{
    double s = 0;
    for (size_t i = 0; i < n; i++) {
        s += x[i];
    }
    return n > 0 ? s / (double)n : 0;
}

/* The 99th percentile as summarize_performance() (utils.c) takes it: the
 * samples go into HIST_BUCKETS equal buckets from the smallest to the
 * largest; from_min (latencies): the upper edge of the first bucket at
 * which the count from the low end reaches 99 % of the samples; else
 * (bandwidth): the lower edge of the first bucket at which the count
 * from the high end does (the value 99 % of the samples reach).  GPCNeT
 * counts to floor(0.99 n), here ceil(0.99 n): the same for GPCNeT's
 * thousands of samples, and not the smallest of a few (floor(1.98) = 1 of
 * 2 samples).  hist: HIST_BUCKETS counters. */
static double gpc_p99(const double *x, size_t n, int from_min, uint64_t *hist)
{
    if (n == 0) {
        return 0;
    }
    double lo = x[0], hi = x[0];
    for (size_t i = 1; i < n; i++) {
        lo = x[i] < lo ? x[i] : lo;
        hi = x[i] > hi ? x[i] : hi;
    }
    if (hi <= lo) {
        return lo; /* one value: GPCNeT would divide by a zero bucket width */
    }
    double res = (hi - lo) / (double)(HIST_BUCKETS - 1);
    uint64_t valid = 0, cnt = 0, want;
    memset(hist, 0, HIST_BUCKETS * sizeof *hist);
    for (size_t i = 0; i < n; i++) {
        double b = (x[i] - lo) / res;
        if (b >= 0 && b < HIST_BUCKETS) {
            hist[(int32_t)b]++;
            valid++;
        }
    }
    want = (uint64_t)ceil(0.99 * (double)valid - 1e-9);
    for (int32_t k = 0; k < HIST_BUCKETS; k++) {
        int32_t j = from_min ? k : HIST_BUCKETS - 1 - k;
        cnt += hist[j];
        if (cnt >= want) {
            return lo + (double)(from_min ? j + 1 : j) * res;
        }
    }
    return hi;
}

temu_status temu_gpcnet_impact(temu_session *s, const temu_pattern *p, const temu_tm_config *tc,
                               int congestors, int whole, const temu_vt_watch *watch,
                               temu_gpcnet_result *out, temu_vt **keep, temu_error *err)
{
    run_ctx x;
    double *buf[2][3] = {{NULL}};
    temu_status st = TEMU_OK;
    memset(out, 0, sizeof *out);
    memset(&x, 0, sizeof x);
    x.s = s;
    x.p = p;
    x.tc = tc;
    x.watch = watch;
    x.whole = whole;
    x.n = temu_session_nranks(s);
    x.iters = p->steps > 0 ? p->steps : 1;
    x.bw_bytes = p->bytes > 0 ? p->bytes : GPC_BW_BYTES;
    if (keep != NULL) {
        *keep = NULL;
    }
    if (p->steps < 0 || p->steps > 100000) {
        return temu_fail(err, TEMU_EINVAL, "gpcnet: %d iterations (1..100000)", p->steps);
    }
    st = temu_gpcnet_layout_make(s, 0, x.n, p->fraction, p->seed, &x.l, err);
    if (st != TEMU_OK) {
        return st;
    }
    x.ids = malloc(((size_t)x.l.slots + 1) * sizeof *x.ids);
    x.buf = malloc((size_t)x.l.canaries * sizeof *x.buf);
    uint64_t *hist = malloc(HIST_BUCKETS * sizeof *hist);
    if (x.ids == NULL || x.buf == NULL || hist == NULL) {
        st = temu_fail(err, TEMU_ENOMEM, "gpcnet: out of memory");
    }
    st = st == TEMU_OK ? mark_idle(&x, err) : st;
    size_t ns = (size_t)x.l.canaries * (size_t)x.iters;
    for (int c = 0; c < 2 && st == TEMU_OK; c++) {
        for (int t = 0; t < 3; t++) {
            buf[c][t] = malloc((ns > 0 ? ns : 1) * sizeof *buf[c][t]);
            if (buf[c][t] == NULL) {
                st = temu_fail(err, TEMU_ENOMEM, "gpcnet: out of memory");
            }
        }
    }
    int32_t rounds = 0;
    if (st == TEMU_OK) {
        st = run(&x, -1, buf[0], NULL, err);
    }
    for (int t = 0; t < 3 && st == TEMU_OK && congestors; t++) {
        int32_t r;
        st = congested(&x, t, buf[1], keep, &r, err);
        rounds += r;
    }
    if (st == TEMU_OK && !congestors) {
        /* no congestors: the second run is the canaries alone again */
        st = run(&x, -1, buf[1], keep, err);
    }
    if (st == TEMU_OK) {
        out->canaries = x.l.canaries;
        out->congestors = x.n - x.l.canaries;
        out->iters = x.iters;
        out->rounds = rounds;
        out->runs = x.runs;
        out->replayed = x.replayed;
        out->work = x.work;
        double(*v[3])[2] = {out->lat_us, out->bw_mibs, out->allreduce_us};
        for (int c = 0; c < 2; c++) {
            for (int t = 0; t < 3; t++) {
                /* bandwidth's tail is the low side */
                v[t][c][0] = sample_mean(buf[c][t], ns);
                v[t][c][1] = gpc_p99(buf[c][t], ns, t != 1, hist);
            }
        }
        for (int q = 0; q < 2; q++) {
            out->impact_lat[q] = out->lat_us[1][q] / out->lat_us[0][q];
            out->impact_bw[q] = out->bw_mibs[0][q] / out->bw_mibs[1][q];
            out->impact_allreduce[q] = out->allreduce_us[1][q] / out->allreduce_us[0][q];
        }
    }
    for (int c = 0; c < 2; c++) {
        for (int t = 0; t < 3; t++) {
            free(buf[c][t]);
        }
    }
    free(hist);
    free(x.ids);
    free(x.buf);
    free(x.idle);
    free(x.group);
    temu_gpcnet_layout_free(&x.l);
    return st;
}
