/*
 * analyze.h - link-level analysis of a Gemini time series, after Jha et
 * al., "Characterizing Supercomputer Traffic Networks Through Link-Level
 * Analysis" (HPCMASPA 2018; seed 004), for `torusemu analyze`
 * (doc/analyze.md).
 *
 * A d-link is one direction (X+ ... Z-) of one Gemini: the tiles of that
 * direction, summed as gpcdr sums them.  Inputs give, at each sample time,
 * every d-link's cumulative counters (an_link); consecutive samples give
 * the d-link's figures over that interval (an_metrics): packets per
 * minute, percent bandwidth used (P_bu, eq. 3) and percent time stalled
 * (P_Ts, eqs. 1-2) for inq and credit stalls.  Everything here is pure:
 * no files, no output (analyze_source.c reads inputs, features.c finds
 * congestion regions, cmd_analyze.c prints).
 */
#ifndef TEMU_ANALYZE_H
#define TEMU_ANALYZE_H

#include "torusemu.h"

#include <stdint.h>
#include <stdio.h>

#define AN_DIRS 6 /* X-, X+, Y-, Y+, Z-, Z+ (temu link numbers 0..5) */
#define AN_DIMS 3 /* X, Y, Z */

/* The counters of a d-link, in gpcdr's names (<DIR>_traffic ...), and
 * the bit of each in an_link.dropped. */
enum { AN_TRAFFIC = 0, AN_PACKETS, AN_INQ, AN_CREDIT, AN_COUNTERS };
extern const char *const an_counter_names[AN_COUNTERS]; /* "traffic", ... */
#define AN_BIT(counter) (1u << (counter))

/* Cumulative counters of one d-link, as gpcdr reports them. */
typedef struct an_link {
    uint64_t bytes;     /* traffic: 3 bytes per phit, VC0 + VC1          */
    uint64_t packets;   /* packets, VC0 + VC1                             */
    uint64_t inq;       /* inq stall summed over the tiles, in the frame's
                           stall units (as the input counts: no overflow) */
    uint64_t credit;    /* credit stall, the same                         */
    /* AN_BIT()s of the counters with no figure for the interval ending at
     * this sample, and why (an_dlink_check): restarted, or above what the
     * d-link can do */
    unsigned reset, over;
} an_link;

/* Cumulative NIC traffic of one node, as gpcdr's nic metric set gives it
 * (reference/gemini REPORT.md section 2.2): bytes the node put on the
 * network and bytes it took from it, 16 per flit less a header flit per
 * packet. */
typedef struct an_nic {
    uint64_t out;   /* totaloutput_optA */
    uint64_t in;    /* totalinput       */
    unsigned reset; /* AN_NIC_OUT, AN_NIC_IN: restarted since the last sample */
} an_nic;
#define AN_NIC_OUT 1u
#define AN_NIC_IN 2u

/* One sample of every d-link: links[router * AN_DIRS + dir]; t_ps[router]
 * the time the router was sampled (-1: no sample of it at this time);
 * nic[node] sampled when node_seen[node]. */
typedef struct an_frame {
    int64_t time_ps;       /* the sample's nominal time */
    int64_t stall_unit_ps; /* a stall unit of an_link: 1000 (LDMS ns), 1250 (cycles) */
    int64_t *t_ps;
    an_link *links;
    an_nic *nic;
    unsigned char *node_seen;
} an_frame;

/* Traffic of all nodes over one interval (seed 004 Fig. 3): the nodes
 * sampled at both ends, what they injected and took in, and the same as
 * bytes per minute of the interval's nominal length. */
typedef struct an_nodes {
    int64_t nodes;
    uint64_t out, in;
    double out_bpm, in_bpm;
} an_nodes;
/* A node whose counter restarted (AN_NIC_OUT or AN_NIC_IN in b's reset)
 * is left out of that sum.  0, or -1 when b is not later than a. */
int an_nodes_interval(const temu_machine *m, const an_frame *a, const an_frame *b, an_nodes *out);

/* Figures of one d-link over one interval. */
typedef struct an_metrics {
    uint64_t bytes, packets; /* in the interval */
    int64_t dt_ps;           /* the interval's length */
    double bandwidth;        /* the d-link's bandwidth, GB/s (1e9 B/s) */
    int tiles;               /* its tiles */
    double ppm;              /* packets per minute */
    double pbu;              /* percent bandwidth used, eq. 3 */
    double pts_inq;          /* percent time stalled, inq, eqs. 1-2 */
    double pts_credit;       /* percent time stalled, credit */
    unsigned reset, over;    /* AN_BIT()s of the counters dropped, and why */
} an_metrics;

/* The figures of d-link (router, dir) between samples a and b (b later).
 * A figure whose counter is dropped in b (an_link.reset or .over) is NAN,
 * and its bytes or packets 0.  Returns 0, or -1 when the router lacks a
 * sample in a or b or b is not later than a. */
int an_dlink_metrics(const temu_machine *m, int64_t router, int dir, const an_frame *a,
                     const an_frame *b, an_metrics *out);

/* The counters of d-link (router, dir) that can give no figure between
 * samples a and b, as AN_BIT()s: in *reset those that went down (a
 * restart: a node reboot zeroes gpcdr's counters; a 64-bit counter
 * cannot wrap in a lifetime), in *over those that rose by more than the
 * d-link can do in the interval - traffic above its bandwidth, a stall
 * above its tiles' time - beyond the one unit per tile a sample can
 * catch under way (a phit of 3 bytes, a router cycle of 1250 ps;
 * doc/series.md).  raw gets the figures as an_dlink_metrics gives them
 * when nothing is dropped (differences modulo 2^64).  Returns as
 * an_dlink_metrics. */
int an_dlink_check(const temu_machine *m, int64_t router, int dir, const an_frame *a,
                   const an_frame *b, an_metrics *raw, unsigned *reset, unsigned *over);

/* Make room for one more item in a growing array: *items holds n items
 * of `size` bytes in room for *cap; doubles the room (from `first`) when
 * full.  0, or -1 out of memory (the array unchanged). */
int an_reserve(void **items, size_t *cap, size_t n, size_t size, size_t first);

/* Pearson's correlation coefficient from running sums. */
typedef struct an_corr {
    double n, sx, sy, sxx, syy, sxy;
} an_corr;
void an_corr_add(an_corr *c, double x, double y);
/* The coefficient, or NAN when fewer than 2 points or a constant side. */
double an_corr_value(const an_corr *c);

/* Values of one metric for one dimension, for its CCDF.  Zeros - most
 * d-link-intervals of a real machine are idle (seed 004 section IV.B) -
 * are only counted, so memory grows with the busy ones. */
typedef struct an_values {
    double *v; /* the values that are not 0 */
    size_t n, cap;
    size_t zeros;
} an_values;
int an_values_add(an_values *a, double v); /* 0, or -1 out of memory */
void an_values_free(an_values *a);
size_t an_values_total(const an_values *a);
/* Mean, maximum, and fraction of the values above limit; NAN when empty. */
double an_values_mean(const an_values *a);
double an_values_max(const an_values *a);
double an_values_over(const an_values *a, double limit);
/* Sort the values and call point() once per distinct value, in
 * increasing order, with the number of values >= it and the total: the
 * CCDF as seed 004 plots it is count / total = P(V >= v), 1 at the
 * smallest value. */
void an_ccdf(an_values *a, void (*point)(void *ctx, double value, size_t count, size_t total),
             void *ctx);

/* Everything `analyze` accumulates over all intervals. */
enum { AN_PPM = 0, AN_PBU, AN_PTS_INQ, AN_PTS_CREDIT, AN_METRICS };
enum { AN_INJECTION = 0, AN_INGESTION, AN_NODE_METRICS }; /* bytes per minute */
extern const char *const an_node_metric_names[AN_NODE_METRICS];
extern const char *const an_metric_names[AN_METRICS]; /* "ppm", "pbu", ... */
typedef struct an_stats {
    an_values values[AN_DIMS][AN_METRICS];
    an_corr credit[AN_DIMS]; /* P_bu against credit P_Ts (Table I) */
    an_corr inq[AN_DIMS];    /* P_bu against inq P_Ts              */
    uint64_t samples[AN_DIMS];
    uint64_t resets[AN_DIMS];         /* d-link counters dropped: restarted       */
    uint64_t over[AN_DIMS];           /* d-link counters dropped: above 100 %     */
    an_values nodes[AN_NODE_METRICS]; /* one value per interval */
} an_stats;
/* The figures of x that are not NAN (a dropped counter's) go into the
 * CCDF values; a correlation point needs both of its figures.  0, or -1
 * out of memory. */
int an_stats_add(an_stats *s, int dir, const an_metrics *x);
int an_stats_add_nodes(an_stats *s, const an_nodes *x);      /* the same */
void an_stats_free(an_stats *s);

/* The metric `which` (AN_PPM ...) of x. */
double an_metric(const an_metrics *x, int which);

#endif
