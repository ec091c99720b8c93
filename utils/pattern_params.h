/*
 * pattern_params.h - the parameters of a built-in replay pattern by name,
 * shared by `torusemu replay`'s options (--grid=AxB, ...) and the job
 * lines of a mix file (grid=AxB, ...; mix.h).
 */
#ifndef TORUSEMU_PATTERN_PARAMS_H
#define TORUSEMU_PATTERN_PARAMS_H

#include "torusemu_replay.h"
#include "workload.h"

#include <stddef.h>

/* Set parameter `name` (grid, block, size, vars, phase, bytes, steps,
 * fraction, seed, compute) of p from text v.  0: set; 1: `name` is not a
 * pattern parameter; -1: v is not a valid value, and why (len bytes)
 * says so as "NAME 'V': expected ...". */
int pattern_param(const char *name, const char *v, temu_pattern *p, char *why, size_t len);

#endif
