/*
 * fuzz.h - what every fuzz harness shares.  Each harness defines the
 * libFuzzer entry point; `make fuzz` links it with libFuzzer (clang), and
 * `make check` links it with replay.c, which feeds it every file of its
 * regression corpus under the normal build (no clang needed).  A harness
 * calls abort() when an invariant of the parser it drives fails, so a
 * wrong answer is reported like a crash.
 */
#ifndef TEMU_FUZZ_H
#define TEMU_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The input as a NUL-terminated string of at most max bytes (the parsers
 * take C strings; an embedded NUL just ends the string early). */
static inline char *fuzz_string(const uint8_t *data, size_t size, size_t max)
{
    size_t n = size < max ? size : max;
    char *s = malloc(n + 1);
    if (s == NULL) {
        abort();
    }
    memcpy(s, data, n);
    s[n] = '\0';
    return s;
}

/* Abort with the failed condition (an invariant, not an input error). */
#define FUZZ_CHECK(cond)                                                                          \
    do {                                                                                          \
        if (!(cond)) {                                                                            \
            fprintf(stderr, "%s:%d: invariant failed: %s\n", __FILE__, __LINE__, #cond);          \
            abort();                                                                              \
        }                                                                                         \
    } while (0)

#endif
