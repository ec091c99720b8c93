/*
 * pattern_params.c - the parameters of a built-in replay pattern by name
 * (pattern_params.h); doc/replay.md gives each pattern's meaning of them.
 */
#include "pattern_params.h"
#include "cli.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A positive integer up to max; -1 if not. */
static int positive(const char *s, uint64_t max, uint64_t *out)
{
    return cli_parse_uint(s, out) != 0 || *out == 0 || *out > max ? -1 : 0;
}

/* "AxB" or "AxBxC" into up to 3 positive dimensions; -1 if malformed. */
static int shape(const char *s, int32_t *dims)
{
    int n = 0;
    const char *p = s;
    dims[0] = dims[1] = dims[2] = 0;
    while (n < 3) {
        char *end;
        errno = 0;
        long v = strtol(p, &end, 10);
        if (end == p || errno != 0 || v <= 0 || v > INT32_MAX) {
            return -1;
        }
        dims[n++] = (int32_t)v;
        if (*end == '\0') {
            return 0;
        }
        if (*end != 'x' || n == 3) {
            return -1;
        }
        p = end + 1;
    }
    return -1;
}

/* -1 with "NAME 'V': expected <what>" in why. */
static int bad(char *why, size_t len, const char *name, const char *v, const char *what)
{
    snprintf(why, len, "%s '%s': expected %s", name, v, what);
    return -1;
}

int pattern_param(const char *name, const char *v, temu_pattern *p, char *why, size_t len)
{
    uint64_t u;
    char *end;
    if (strcmp(name, "grid") == 0) {
        return shape(v, p->grid) ? bad(why, len, name, v, "AxB or XxYxZ") : 0;
    }
    if (strcmp(name, "block") == 0) {
        return shape(v, p->block) ? bad(why, len, name, v, "XxYxZ") : 0;
    }
    if (strcmp(name, "size") == 0) {
        return positive(v, 1000000, &p->size)
                   ? bad(why, len, name, v, "an integer from 1 to 1000000")
                   : 0;
    }
    if (strcmp(name, "bytes") == 0) {
        char r[256];
        if (cli_parse_size_range(v, 1, UINT32_MAX, &p->bytes, r, sizeof r) != 0) {
            snprintf(why, len, "%s '%s': %s", name, v, r);
            return -1;
        }
        return 0;
    }
    if (strcmp(name, "vars") == 0 || strcmp(name, "steps") == 0) {
        int vars = name[0] == 'v';
        if (positive(v, vars ? 100000 : 1000000, &u) != 0) {
            return bad(why, len, name, v,
                       vars ? "an integer from 1 to 100000" : "an integer from 1 to 1000000");
        }
        *(vars ? &p->vars : &p->steps) = (int32_t)u;
        return 0;
    }
    if (strcmp(name, "phase") == 0) {
        if (strcmp(v, "1") != 0 && strcmp(v, "2") != 0) {
            return bad(why, len, name, v, "1 or 2");
        }
        p->phase = v[0] - '0';
        return 0;
    }
    if (strcmp(name, "fraction") == 0) {
        errno = 0;
        p->fraction = strtod(v, &end);
        return end == v || *end != '\0' || errno != 0 || !(p->fraction > 0 && p->fraction < 1)
                   ? bad(why, len, name, v, "a share between 0 and 1")
                   : 0;
    }
    if (strcmp(name, "seed") == 0) {
        /* digits only: strtoull would take "-1" as 2^64 - 1 and skip blanks */
        errno = 0;
        p->seed = strtoull(v, &end, 10);
        return !isdigit((unsigned char)v[0]) || *end != '\0' || errno != 0
                   ? bad(why, len, name, v, "an integer from 0 to 2^64 - 1")
                   : 0;
    }
    if (strcmp(name, "compute") == 0) {
        return cli_parse_time_ps(v, &p->compute_ps) != 0 ? bad(why, len, name, v, CLI_TIME_EXPECTED)
                                                         : 0;
    }
    return 1;
}
