/*
 * figure.h - numbers as pictures show them: an axis multiplier that keeps
 * tick labels short (values shown as 0 ... 20 with "x10^9" in the axis
 * label, not as "2x10^10", which gnuplot cut at the picture's edge), and
 * a time unit (ns, us, ms, s, min) chosen by the range shown instead of
 * raw picoseconds.  Pure: the gnuplot and Graphviz writers (cmd_analyze.c,
 * cmd_plot.c, cmd_stalls.c, features.c) print what these return.
 */
#ifndef TEMU_FIGURE_H
#define TEMU_FIGURE_H

#include <stddef.h>
#include <stdint.h>

/* An axis whose values are shown divided by 10^exp. */
typedef struct fig_scale {
    int exp;        /* 0, 6, 9, ...: a multiple of 3 */
    double divisor; /* 10^exp */
} fig_scale;

/* The scale for values up to max: none (exp 0) below 1e5, so that tick
 * labels stay at most 5 digits; else the multiple of 3 that brings max
 * into [1, 1000).  max <= 0 or not finite: none. */
fig_scale fig_scale_of(double max);
/* " (x10^{9})" for gnuplot's enhanced text, "" when exp is 0. */
void fig_scale_suffix(const fig_scale *s, char *buf, size_t len);

/* Copy text into buf for a gnuplot single-quoted string in enhanced mode:
 * the characters enhanced text reads as markup (_ ^ { } @ & ~ \) are
 * escaped with a backslash, a quote (') becomes ''. */
void fig_enhanced(const char *text, char *buf, size_t len);

/* A time unit for labels of times up to max_ps: the largest of ns, us, ms,
 * s, min in which max_ps is at least 1 (ps below 1 ns), with the decimals
 * that show 3 significant digits of max_ps and tell apart two times
 * step_ps apart (0 to 6). */
typedef struct fig_time {
    const char *unit;
    double ps; /* picoseconds per unit */
    int decimals;
} fig_time;
fig_time fig_time_of(int64_t max_ps, int64_t step_ps);
/* "15.5 us" */
void fig_time_text(const fig_time *u, int64_t t_ps, char *buf, size_t len);

#endif
