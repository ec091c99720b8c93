/*
 * figure.c - axis multipliers and time units for pictures (figure.h).
 */
#include "figure.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

fig_scale fig_scale_of(double max)
{
    fig_scale s = {0, 1.0};
    if (!isfinite(max) || max < 1e5) {
        return s;
    }
    while (max / s.divisor >= 1000.0 && s.exp < 300) {
        s.exp += 3;
        s.divisor *= 1000.0;
    }
    return s;
}

void fig_scale_suffix(const fig_scale *s, char *buf, size_t len)
{
    if (s->exp == 0) {
        snprintf(buf, len, "%s", "");
    } else {
        snprintf(buf, len, " (x10^{%d})", s->exp);
    }
}

void fig_enhanced(const char *text, char *buf, size_t len)
{
    size_t at = 0;
    for (const char *p = text; *p != '\0' && at + 3 < len; p++) {
        if (*p == '\'') {
            buf[at++] = '\''; /* doubled inside a single-quoted string */
        } else if (strchr("_^{}@&~\\", *p) != NULL) {
            buf[at++] = '\\';
        }
        buf[at++] = *p;
    }
    if (len > 0) {
        buf[at < len ? at : len - 1] = '\0';
    }
}

/* Decimals that show x with 3 significant digits and a step of `step`
 * (both in the unit), 0 to 6. */
static int time_decimals(double x, double step)
{
    int d = x > 0 ? 2 - (int)floor(log10(x)) : 0;
    if (step > 0) {
        int ds = (int)ceil(-log10(step) - 1e-9);
        d = ds > d ? ds : d;
    }
    return d < 0 ? 0 : d > 6 ? 6 : d;
}

fig_time fig_time_of(int64_t max_ps, int64_t step_ps)
{
    static const fig_time units[] = {{"ps", 1, 0},   {"ns", 1e3, 0}, {"us", 1e6, 0},
                                     {"ms", 1e9, 0}, {"s", 1e12, 0}, {"min", 6e13, 0}};
    size_t k = 0;
    while (k + 1 < sizeof units / sizeof units[0] && (double)max_ps >= units[k + 1].ps) {
        k++;
    }
    fig_time u = units[k];
    u.decimals = time_decimals((double)max_ps / u.ps, (double)step_ps / u.ps);
    return u;
}

void fig_time_text(const fig_time *u, int64_t t_ps, char *buf, size_t len)
{
    snprintf(buf, len, "%.*f %s", u->decimals, (double)t_ps / u->ps, u->unit);
}
