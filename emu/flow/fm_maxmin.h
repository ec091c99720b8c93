/*
 * fm_maxmin.h - weighted max-min fair rates by progressive filling
 * (fm_maxmin.c).  Private to libtorusemu; pure: no machine, no model, no
 * globals, so the unit tests solve textbook cases with it directly.
 *
 * A problem is a set of channels, each with a capacity, and a set of
 * flows, each crossing some channels with a coefficient per channel (what
 * one unit of the flow's rate uses of that channel: the flow level uses
 * rates in packets per ps and coefficients in ps of the channel per
 * packet, so a channel's capacity is the fraction of its time it can
 * send, 1).  Every flow has a weight and may have a bound (its largest
 * rate).  The solution is the weighted max-min fair one: the rates of all
 * flows rise together in proportion to their weights; a flow stops rising
 * when a channel it crosses is full (that channel is its bottleneck) or
 * when it reaches its bound; the others go on.
 */
#ifndef TEMU_FLOW_MAXMIN_H
#define TEMU_FLOW_MAXMIN_H

#include <stddef.h>
#include <stdint.h>

#pragma GCC visibility push(hidden)

/* The flows' channels in compressed rows: flow f crosses channels
 * chan[start[f]] .. chan[start[f + 1] - 1] with coefficients coef[...]. */
typedef struct fm_mm_problem {
    int32_t nflows, nchans;
    const double *cap;    /* [nchans] capacity, >= 0                         */
    const double *weight; /* [nflows] > 0                                     */
    const double *bound;  /* [nflows] largest rate; <= 0: none               */
    const int32_t *start; /* [nflows + 1]                                     */
    const int32_t *chan;  /* [start[nflows]] channel ids 0..nchans-1           */
    const double *coef;   /* [start[nflows]] > 0                              */
} fm_mm_problem;

/* What a solution says of each flow and channel. */
typedef struct fm_mm_result {
    double *rate;   /* [nflows] */
    int32_t *limit; /* [nflows] the channel that stopped it, -1: its bound */
    uint8_t *full;  /* [nchans] 1: a bottleneck (some flow stopped there)  */
} fm_mm_result;

/* Scratch space a solver keeps between solves (grown as needed; all zero
 * is an empty one). */
typedef struct fm_mm_work {
    double *rem, *sum;     /* [nchans] capacity left, weighted coefficients of rising flows */
    int32_t *first, *link; /* [nchans + 1], [elements]: the flows of each channel */
    int32_t *rising;       /* [nchans] rising flows on the channel              */
    double *floor;         /* [nchans] level at which a flow last stopped on it  */
    uint8_t *fixed;        /* [nflows] */
    struct fm_mm_entry *heap;
    int32_t nheap, capheap;
    int32_t capchans, capflows, capelems;
} fm_mm_work;

/* Array growth for the flow level's parts: the capacity to allocate for
 * `need` items when `cap` are allocated (at least doubling), and *a
 * reallocated to n items of `size` bytes (0, or -1 with *a unchanged). */
int32_t fm_room(int32_t need, int32_t cap);
int fm_resize(void **a, int32_t n, size_t size);

/* Solve p into r; 0, or -1 when out of memory (r then undefined). */
int fm_mm_solve(const fm_mm_problem *p, fm_mm_work *w, fm_mm_result *r);
void fm_mm_work_free(fm_mm_work *w);

#pragma GCC visibility pop

#endif
