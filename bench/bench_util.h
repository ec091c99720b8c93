/* bench_util.h - what every benchmark program needs: the process's CPU
 * time (the figure that stays meaningful on a shared host) and a
 * deterministic generator, so that runs on any host draw the same traffic.
 */
#ifndef BENCH_UTIL_H
#define BENCH_UTIL_H

#include <stdint.h>
#include <time.h>

/* CPU seconds used by this process so far (all its threads). */
static inline double bench_cpu_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The next number of a splitmix64 stream whose state is *s (Steele, Lea
 * and Flood, "Fast splittable pseudorandom number generators", OOPSLA
 * 2014): no host dependence. */
static inline uint64_t bench_rng_next(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

#endif
