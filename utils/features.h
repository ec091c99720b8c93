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
    int64_t first;      /* router at its first coordinate along the run */
    int32_t extent;     /* routers in it                               */
    int32_t ring;       /* 1 when it is a whole torus ring             */
    double max;         /* highest value                               */
    int64_t max_router; /* router holding it                           */
} an_feature;

typedef struct an_edge {
    int64_t from, to; /* feature ids, from interval k to k+1 */
} an_edge;

typedef struct an_features {
    const temu_machine *m;
    int dir;          /* watched direction (temu link number 0..5)   */
    double threshold; /* values >= it are congested                  */
    an_feature *f;
    size_t n, cap;
    an_edge *e;
    size_t ne, ecap;
    int64_t *prev_id, *cur_id; /* feature of each router, -1 = none */
    int32_t last_interval;
} an_features;

/* 0, or -1 out of memory. */
int an_features_init(an_features *fs, const temu_machine *m, int dir, double threshold);
/* The features of one interval from value[router] (NAN: no sample);
 * intervals must increase.  0, or -1 out of memory. */
int an_features_step(an_features *fs, int32_t interval, int64_t t_ps, const double *value);
/* The feature graph in Graphviz DOT: a vertex per feature, sized by its
 * extent and coloured by its severity (yellow at the threshold, red at
 * 100), time increasing downwards with a row per interval; edges for
 * evolution.  `title` labels the graph. */
void an_features_dot(const an_features *fs, FILE *f, const char *title);
void an_features_free(an_features *fs);

#endif
