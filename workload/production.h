/*
 * production.h - a production period of a whole machine: a stream of jobs
 * of sourced sizes and runtimes, a batch queue that starts them as nodes
 * free up, an allocator that places them, and each job's traffic as
 * steady rates per phase (doc/production.md gives the sources and the
 * choices).  `torusemu production` (utils/cmd_production.c) runs it over
 * the flow-level model.  Everything here is a pure function of its
 * parameters and seed: equal inputs give equal jobs, placements and rates.
 */
#ifndef TEMU_PRODUCTION_H
#define TEMU_PRODUCTION_H

#include "torusemu_flow.h"
#include "workload.h"

/* ------------------------------------------------------------ jobs */

/* The patterns a production job runs and their shares (ours: seed 004
 * names two codes of Blue Waters' production, PSDNS - 3-D FFT transposes -
 * and AMR - near-neighbour exchange; the rest is the replay's random
 * pattern, standing for irregular codes).  Index: temu_pattern_kind. */
#define TEMU_PROD_PATTERNS 3
extern const int32_t temu_prod_pattern_kinds[TEMU_PROD_PATTERNS];
extern const double temu_prod_pattern_shares[TEMU_PROD_PATTERNS];

typedef struct temu_prod_params {
    int64_t machine_nodes; /* nodes of the machine                                     */
    int64_t max_job_nodes; /* largest job (Blue Waters' queues: 26,864 nodes)           */
    int64_t min_run_ps;    /* runtimes log-uniform between these (1 min .. 48 h)         */
    int64_t max_run_ps;
    int64_t small_nodes;   /* log2(size) uniform on [0, log2 small_nodes] for            */
    double small_share;    /* small_share of the jobs, else on the rest up to the        */
                           /* largest (64 nodes, 0.99)                                   */
    double pow2_share;     /* share of job sizes that are powers of two (0.8)           */
    double load;           /* offered load: arrivals x size x runtime / machine (1.2)   */
    int64_t mean_phase_ps; /* a job's traffic changes rate after phases of this mean     */
                           /* length (exponential, 5 min)                               */
    double mean_node_gbs;  /* mean injection of a node in a phase, GB/s of payload      */
                           /* (exponential: seed 004 Fig. 3's log-linear CCDF)          */
    double max_node_gbs;   /* a phase's node rate is capped here (the NIC's)            */
    uint64_t seed;
} temu_prod_params;

/* The defaults above for a machine of `nodes` nodes (max_job_nodes the
 * smaller of the machine and 26,864). */
void temu_prod_params_default(temu_prod_params *p, int64_t nodes);

typedef struct temu_prod_job {
    int64_t id;        /* 0, 1, ... in submission order                        */
    int64_t nodes;     /* nodes asked for; one rank a node                     */
    int32_t pattern;   /* temu_pattern_kind                                    */
    int64_t submit_ps; /* when it joins the queue                             */
    int64_t run_ps;    /* how long it runs once started                        */
    int64_t start_ps;  /* -1 while queued                                      */
    int64_t *held;     /* the nodes it holds while running; its ranks run on   */
    int64_t nheld;     /* the first `nodes` of them (the rest: a box's spare)  */
} temu_prod_job;

/* A small seeded generator (splitmix64), the same on every host. */
uint64_t temu_prod_rng(uint64_t *state);
/* Uniform in [0, 1). */
double temu_prod_uniform(uint64_t *state);

/* One draw of each job property (pure). */
int64_t temu_prod_draw_nodes(const temu_prod_params *p, uint64_t *rng);
int64_t temu_prod_draw_run(const temu_prod_params *p, uint64_t *rng);
int32_t temu_prod_draw_pattern(uint64_t *rng);
/* Their means as the distributions state them (the tests hold samples to
 * these). */
double temu_prod_mean_nodes(const temu_prod_params *p);
double temu_prod_mean_run_ps(const temu_prod_params *p);

/* Job `id` (its properties depend on the seed and id only); submit_ps as
 * given, held NULL. */
void temu_prod_job_draw(const temu_prod_params *p, int64_t id, int64_t submit_ps,
                        temu_prod_job *out);

/* ---------------------------------------------------------- phases */

/* A stretch of a job's run at one steady rate. */
typedef struct temu_prod_phase {
    int32_t index;    /* 0, 1, ... within the job                   */
    int64_t start_ps; /* absolute virtual time                      */
    int64_t end_ps;   /* at most the job's end                      */
    double node_gbs;  /* mean payload injection per node, GB/s      */
    uint64_t seed;    /* the pattern's seed in this phase (random)  */
} temu_prod_phase;

/* Phase `index` of job j started at start_ps (pure: seed, job id, index). */
void temu_prod_phase_draw(const temu_prod_params *p, const temu_prod_job *j, int32_t index,
                          int64_t start_ps, temu_prod_phase *out);

/* The pattern a job runs, its parameters chosen for its size: halo on the
 * most cubic X x Y x Z grid of its ranks, fft on rows of the largest
 * divisor of its ranks up to 16 (first all-to-all only: a row of a 2-D
 * pencil decomposition), random with the phase's seed. */
void temu_prod_pattern_of(const temu_prod_job *j, const temu_prod_phase *ph, temu_pattern *out);

/* -------------------------------------------------------- allocators */

typedef enum temu_alloc_kind {
    TEMU_ALLOC_NID = 0, /* first free nodes in node-id order                        */
    TEMU_ALLOC_TOPO = 1 /* Blue Waters' topology-aware scheduling: a box of Geminis */
} temu_alloc_kind;

typedef struct temu_alloc temu_alloc;

temu_status temu_alloc_create(const temu_machine *m, int kind, temu_alloc **out, temu_error *err);
void temu_alloc_free(temu_alloc *a);
/* Place a job of `nodes` nodes: 1 and held[0 .. *nheld - 1] (room for the
 * machine's nodes) the nodes it holds, ranks on the first `nodes`; 0 when
 * there is no room now. */
int temu_alloc_take(temu_alloc *a, int64_t nodes, int64_t *held, int64_t *nheld);
void temu_alloc_release(temu_alloc *a, const int64_t *held, int64_t n);
/* Nodes a job of `nodes` nodes holds at least (topo: its smallest box). */
int64_t temu_alloc_need(const temu_alloc *a, int64_t nodes);
int64_t temu_alloc_free_nodes(const temu_alloc *a);

/* ----------------------------------------------------------- queue */

/*
 * The batch queue: jobs arrive (a backlog at time 0, then Poisson
 * arrivals at the offered load), wait in submission order and start
 * first-come first-served with EASY backfilling (Lifka, "The ANL/IBM SP
 * scheduling system", 1995): when the head of the queue cannot start, it
 * is promised the earliest time enough nodes will be free, and later jobs
 * start now if they end by then or fit in the nodes it will not need.
 * Runtimes are known exactly (no overestimated wall times).  At time 0
 * the backlog is placed first-fit in submission order instead, more of it
 * drawn while under 95 % of the nodes are held (a machine caught in
 * production is full).
 */
typedef struct temu_prod_queue temu_prod_queue;

/* A job started (started 1) or ended (0); the job record is the queue's. */
typedef void (*temu_prod_job_fn)(void *ctx, const temu_prod_job *j, int started);

temu_status temu_prod_queue_create(const temu_prod_params *p, temu_alloc *a, temu_prod_queue **out,
                                   temu_error *err);
void temu_prod_queue_free(temu_prod_queue *q);
/* Everything up to now_ps: jobs that end at or before it leave, jobs
 * submitted at or before it join, the queue starts what it can. */
temu_status temu_prod_queue_advance(temu_prod_queue *q, int64_t now_ps, temu_prod_job_fn fn,
                                    void *ctx, temu_error *err);
/* When the queue next has something to do (an arrival or a job's end). */
int64_t temu_prod_queue_next(const temu_prod_queue *q);

typedef struct temu_prod_queue_stats {
    int64_t submitted, started, ended, running, waiting;
    int64_t busy_nodes; /* held by running jobs                 */
    int64_t used_nodes; /* running ranks (busy minus box spare)  */
} temu_prod_queue_stats;
void temu_prod_queue_stats_get(const temu_prod_queue *q, temu_prod_queue_stats *out);

/* ------------------------------------------------------------- a run */

/* What a run did (production_run.c). */
typedef struct temu_prod_report {
    temu_prod_queue_stats queue; /* at the end                                  */
    double mean_used;            /* share of node time that ran ranks            */
    int64_t phases;              /* job phases started                           */
    int64_t streams;             /* node-pair streams sent (two flows each)      */
    int64_t snapshots;           /* written to the series                        */
    uint64_t packets;            /* packets of the streams (requests, responses) */
    uint64_t hop_records;        /* crossings the flow model told                */
    uint64_t pending_peak;       /* most of them under way at a step's end       */
    temu_fm_totals flow;         /* the flow model's work                        */
} temu_prod_report;

typedef struct temu_prod_run_opts {
    temu_prod_params params;
    int allocator;       /* temu_alloc_kind                      */
    int64_t duration_ps; /* virtual time of the period           */
    int64_t interval_ps; /* between the series' snapshots        */
    const char *series;  /* the series file (created, truncated) */
    /* may be NULL: called after each snapshot with the report so far */
    void (*snapshot)(void *ctx, int64_t t_ps, const temu_prod_report *so_far);
    void *ctx;
} temu_prod_run_opts;

/*
 * Run a production period on session s's machine (Gemini) over the flow
 * model with its default parameters: the queue's jobs, each phase's
 * streams, crossings counted into s as they happen, the flow level's
 * stalls added at every snapshot, a snapshot at 0 and every interval up
 * to the period's end (the last one at its end) into o->series.  Flows
 * still under way at the end are left out (their crossings so far are
 * counted).
 */
temu_status temu_prod_run(temu_session *s, const temu_prod_run_opts *o, temu_prod_report *out,
                          temu_error *err);

#endif
