/*
 * features.h - congestion regions and the congestion feature graph of
 * Jha et al., "Characterizing Supercomputer Traffic Networks Through
 * Link-Level Analysis" (HPCMASPA 2018; seed 004), section VI and Fig. 9.
 *
 * One direction (e.g. X+) and one value per router (e.g. its X+ d-link's
 * credit P_Ts) are watched.  At each interval, the routers of every line
 * along that direction's dimension (the other coordinates fixed) whose
 * value is at least the threshold form features: maximal runs of
 * neighbouring routers, around the ring on a torus.  A feature is
 * characterised by its extent (routers) and severity (its highest value).
 * A feature of interval k+1 that shares a router with one of interval k is
 * its evolution: an edge of the feature graph.  Features may split and
 * merge; features of intervals k and k+2 are never joined directly.
 */
#ifndef TEMU_FEATURES_H
#define TEMU_FEATURES_H

#include "torusemu.h"

#include <stdint.h>
#include <stdio.h>

typedef struct an_feature {
    int64_t id;         /* 0, 1, ... in order of discovery            */
    int32_t interval;   /* the interval it belongs to                  */
    int64_t t_ps;       /* the interval's start                        */
    int64_t line;       /* its line: 0, 1, ... in router order          */
    int64_t first;      /* router at its first coordinate along the run */
    int32_t extent;     /* routers in it                               */
    int32_t ring;       /* 1 when it is a whole torus ring             */
    double max;         /* highest value                               */
    int64_t max_router; /* router holding it                           */
} an_feature;

typedef struct an_edge {
    int64_t from, to; /* feature ids, from interval k to k+1 */
} an_edge;

/* What one interval held: for the time axis of the graph, and to say
 * why a graph without features is empty. */
typedef struct an_step {
    int32_t interval;
    int64_t t_ps;        /* its start                                 */
    int64_t features;    /* features found in it                      */
    int64_t figures;     /* routers with a value (not NAN)            */
    double peak;         /* highest value, -INFINITY without figures  */
    int64_t peak_router; /* router holding it, -1 without figures     */
} an_step;

typedef struct an_features {
    const temu_machine *m;
    int dir;          /* watched direction (temu link number 0..5)   */
    double threshold; /* values >= it are congested                  */
    an_feature *f;
    size_t n, cap;
    an_edge *e;
    size_t ne, ecap;
    an_step *steps; /* one per an_features_step call, in order */
    size_t nsteps, stepcap;
    int64_t nlines;            /* lines along the watched dimension          */
    int64_t *line_router;      /* each line's router at coordinate 0         */
    int64_t *prev_id, *cur_id; /* feature of each router, -1 = none */
    int32_t last_interval;
} an_features;

/* 0, or -1 out of memory. */
int an_features_init(an_features *fs, const temu_machine *m, int dir, double threshold);
/* The features of one interval from value[router] (NAN: no sample);
 * intervals must increase.  0, or -1 out of memory. */
int an_features_step(an_features *fs, int32_t interval, int64_t t_ps, const double *value);
/* Bounds of the drawing, so that it stays readable at any size: at most
 * AN_GRAPH_COLS vertices side by side and AN_GRAPH_ROWS rows (about 1,800
 * x 7,000 pixels at Graphviz's 96 dpi), and a hard limit on the page
 * (AN_GRAPH_SIZE inches) should Graphviz place them wider. */
#define AN_GRAPH_COLS 18
#define AN_GRAPH_ROWS 60
#define AN_GRAPH_SIZE "20,75"

/* The feature graph in Graphviz DOT, time increasing downwards, edges for
 * evolution, vertices coloured by severity (yellow at the threshold, red
 * at 100) and sized by extent.  When no interval holds more than
 * AN_GRAPH_COLS features and the rows fit AN_GRAPH_ROWS: a vertex per
 * feature (id, extent, highest value) and a row per interval, a run of
 * intervals without features drawn as one row.  Otherwise features are
 * aggregated into a grid of cells: at most AN_GRAPH_COLS groups of
 * neighbouring lines across (a feature never leaves its line, so
 * evolution stays within a column) and bins of intervals down; a cell
 * gives its features' count and highest value.  Row labels give the
 * interval(s) and the start time in a unit chosen by the range (us, ms,
 * s, min).  Without features the picture says why: the highest value
 * seen against the threshold, or that no router had a figure.  `title`
 * labels the graph; `metric` names the value watched ("pts_credit"). */
void an_features_dot(const an_features *fs, FILE *f, const char *title, const char *metric);
void an_features_free(an_features *fs);

#endif
