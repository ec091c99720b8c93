/*
 * torus_ptest.h - tiny harness for the papi-torus component tests: counts
 * checks, prints each failure with its line, and ends with the line
 * "N passed, M failed" that build-aux/test-summary.sh adds up.
 */
#ifndef TORUS_PTEST_H
#define TORUS_PTEST_H

#include <stdio.h>
#include <string.h>

#include "papi.h"

static int tp_passed, tp_failed;

#define TP_CHECK(cond, ...)                                                                        \
    do {                                                                                           \
        if (cond) {                                                                                \
            tp_passed++;                                                                           \
        } else {                                                                                   \
            tp_failed++;                                                                           \
            fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);                                   \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fputc('\n', stderr);                                                                   \
        }                                                                                          \
    } while (0)

/* exact equality of two counts */
#define TP_EQ(got, want, what)                                                                     \
    TP_CHECK((long long)(got) == (long long)(want), "%s: got %lld, want %lld", (what),             \
             (long long)(got), (long long)(want))

/* a PAPI call that must return rc */
#define TP_RC(call, rc)                                                                            \
    do {                                                                                           \
        int tp_rc_ = (call);                                                                       \
        TP_CHECK(tp_rc_ == (rc), "%s returned %d (%s), want %d", #call, tp_rc_,                    \
                 PAPI_strerror(tp_rc_), (rc));                                                     \
    } while (0)

static inline int tp_finish(void)
{
    printf("%d passed, %d failed\n", tp_passed, tp_failed);
    return tp_failed == 0 ? 0 : 1;
}

/* Component index of `name`, or -1 (after a failed check). */
static inline int tp_component(const char *name)
{
    int n = PAPI_num_components();
    for (int i = 0; i < n; i++) {
        const PAPI_component_info_t *ci = PAPI_get_component_info(i);
        if (ci != NULL && strcmp(ci->name, name) == 0) {
            return i;
        }
    }
    TP_CHECK(0, "component %s is not compiled into this libpapi", name);
    return -1;
}

#endif /* TORUS_PTEST_H */
