/*
 * workload.h - the workload generators (libtorusworkload): built-in
 * communication patterns that drive the replay engine as the modelled
 * programs would (pattern.c), and GPCNeT's Congestion Impact in virtual
 * time (gpcnet_impact.c).  They are clients of libtorusemu's public API
 * (include/torusemu_replay.h, include/torusemu_vtime.h) like any program;
 * `torusemu replay` (utils/), the tests and the benchmarks use them.
 * Not installed.
 */
#ifndef TEMU_WORKLOAD_H
#define TEMU_WORKLOAD_H

#include "torusemu.h"
#include "torusemu_replay.h"
#include "torusemu_timing.h"
#include "torusemu_vtime.h"

/* ------------------------------------------------------------------------ */
/* Built-in patterns (pattern.c; doc/replay.md gives each one's source)      */
/* ------------------------------------------------------------------------ */

typedef enum temu_pattern_kind {
    TEMU_PATTERN_FFT = 0,   /* 2-D-grid 3-D FFT transposes (seed 003 section 4)   */
    TEMU_PATTERN_HALO,      /* MiniGhost 3-D halo exchange (seed 000 section VI)  */
    TEMU_PATTERN_GPCNET,    /* GPCNeT congestors and canaries (seed 002 section 3) */
    TEMU_PATTERN_RANDOM,    /* uniform random destinations                       */
    TEMU_PATTERN_TRANSPOSE, /* (i, j) -> (j, i) on a square rank grid            */
    TEMU_PATTERN_TORNADO,   /* r -> r + ceil(P/2) - 1                            */
    TEMU_PATTERN_BISECTION, /* r <-> r + P/2                                     */
    TEMU_PATTERN_NEIGHBOR,  /* +-1 in every dimension of a periodic rank grid     */
    TEMU_PATTERNS
} temu_pattern_kind;

/* Parameters; zero means the pattern's default (doc/replay.md). */
typedef struct temu_pattern {
    int32_t kind;
    int32_t grid[3];    /* fft: A x B (row size, rows); halo, neighbor: X x Y x Z */
    int32_t block[3];   /* halo: ranks numbered in bricks of this shape (MiniGhost's remap) */
    int32_t phase;      /* fft: 1 = first all-to-all, 2 = second, 0 = both */
    int32_t vars;       /* halo: variables per cell (default 20)           */
    int32_t steps;      /* repetitions (default 1)                         */
    uint64_t size;      /* fft: points per dimension; halo: cells per rank per dimension */
    uint64_t bytes;     /* synthetic: bytes per message (4096); gpcnet: BW canary's (128K) */
    double fraction;    /* gpcnet: share of the nodes that run canaries (default 0.2) */
    uint64_t seed;      /* random; gpcnet's node draw (default 8675309, GPCNeT's RSEED) */
    int64_t compute_ps; /* virtual time: each rank computes this long before each step (0) */
    /* The ranks it runs on (a job of a concurrent mix, doc/replay.md "Job
     * mixes"): world ranks first_rank .. first_rank + nranks - 1 play the
     * pattern's ranks 0 .. nranks - 1.  nranks 0: every rank of the session. */
    int32_t first_rank, nranks;
} temu_pattern;

/* "fft", ...; NULL for an unknown kind.  Parse a name: -1 if unknown. */
const char *temu_pattern_name(int kind);
int temu_pattern_parse_name(const char *name);

/* Replay pattern p over every rank of the replay's session (or its
 * first_rank, nranks share: other ranks are not touched).  Every send is
 * followed by its receive, so the stream is complete.  Bad parameters
 * (a grid that does not hold the session's ranks, a size that does not
 * divide, ...) give TEMU_EINVAL naming them. */
temu_status temu_pattern_replay(temu_replay *r, const temu_pattern *p, temu_progress_fn progress,
                                void *ctx, temu_error *err);

/* Patterns p[0 .. np - 1] (on disjoint ranks: the jobs of a mix; np 1:
 * one pattern) generated step by step as the ranks of the timed replay r
 * (temu_replay_set_vtime) reach them, instead of recorded whole first:
 * its virtual time (nothing recorded in it yet) asks a pattern for its
 * next step when one of its ranks has run out of operations and forgets
 * the steps every rank of it is past (temu_vt_set_sources), so memory
 * follows the steps under way, not their number.  Each pattern records
 * the same operations in the same order, with the same order of ids, as
 * temu_pattern_replay of p[0], p[1], ... one after the other: the same
 * results.  *bad (if not NULL): the pattern refused, or -1.  *out lives
 * until the run is over (temu_pattern_gen_free after temu_vt_run). */
typedef struct temu_pattern_gen temu_pattern_gen;
temu_status temu_pattern_lazy(temu_replay *r, const temu_pattern *p, int np, temu_pattern_gen **out,
                              int *bad, temu_error *err);
void temu_pattern_gen_free(temu_pattern_gen *pg);

/* Replay pattern p into session s on nthreads threads (1..64), each with
 * its own replay over a share of the ranks (contiguous blocks of rows, planes, ranks), all
 * adding to the same store; the counts do not depend on nthreads.  Every
 * share is finished (temu_replay_finish); stats are the sums. */
temu_status temu_pattern_run(temu_session *s, const temu_pattern *p, int nthreads,
                             temu_progress_fn progress, void *ctx, temu_replay_stats *stats,
                             temu_error *err);

/* One message of a pattern's step: `bytes` from the pattern's rank `from`
 * to its rank `to`; anything but TEMU_OK stops the listing with it. */
typedef temu_status (*temu_pair_fn)(void *ctx, int32_t from, int32_t to, uint64_t bytes,
                                    temu_error *err);

/* One step of pattern p over nranks ranks as its point-to-point messages,
 * without a replay: fn once per message of the step, in the order the
 * replay sends them (fft: its all-to-alls as every member's message to
 * every other member of the row or column, how the pairwise algorithm
 * sends them; the steady streams of a production period, production.h).
 * p's ranks and steps are ignored; gpcnet (rounds of roles, collectives)
 * is refused. */
temu_status temu_pattern_pairs(const temu_pattern *p, int32_t nranks, temu_pair_fn fn, void *ctx,
                               temu_error *err);

/* ---- GPCNeT's Congestion Impact (gpcnet_impact.c, doc/replay.md) ---- */

typedef struct temu_gpcnet_result {
    int32_t canaries, congestors; /* ranks                                    */
    int32_t iters;                /* iterations of each canary test           */
    int32_t rounds;               /* congestor rounds of the congested runs   */
    /* [0 isolated, 1 congested][0 mean, 1 99th percentile (bandwidth: the
     * value 99 % of the samples reach)] */
    double lat_us[2][2];       /* P2P Lat, microseconds                    */
    double bw_mibs[2][2];      /* P2P BW+Sync, MiB/s per rank              */
    double allreduce_us[2][2]; /* 8-byte allreduce, microseconds           */
    /* eq. 1, [0 mean, 1 99th percentile] */
    double impact_lat[2], impact_bw[2], impact_allreduce[2];
    int32_t runs;               /* timing runs made (isolated, each test's congested) */
    temu_replay_stats replayed; /* what the last run (the store's counts) replayed      */
    temu_tm_totals work; /* the timing model's work summed over the runs (temu_vt_model_totals) */
} temu_gpcnet_result;

/* Run GPCNeT's canary tests on session s's ranks (the layout of gpcnet.h
 * with pattern p's fraction and seed, p->steps iterations each) in virtual
 * time, alone (one run of the three tests) and with the congestors (one
 * run per test, GPCNeT's congested phase of that test; congestors 0:
 * alone twice); tc NULL: the machine's parameters; watch (may be NULL):
 * every timing run is watched with it.  Each run's operations are made
 * as the ranks reach them, the congestors' rounds until GPCNeT's loop
 * ends them; whole: each run recorded whole first, a test's congested
 * run repeated until its rounds are those the loop makes (the same
 * samples; more runs and memory).  rounds: the most of a congestor group
 * per test, summed over the tests.  The store ends with the counts of
 * the last run (the Allreduce test's congested run); *keep (may be NULL)
 * receives that timing run, to free with temu_vt_free. */
temu_status temu_gpcnet_impact(temu_session *s, const temu_pattern *p, const temu_tm_config *tc,
                               int congestors, int whole, const temu_vt_watch *watch,
                               temu_gpcnet_result *out, temu_vt **keep, temu_error *err);

#endif
