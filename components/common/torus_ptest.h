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

/* Event set of the named events (each add checked); -1 if none can be made. */
static inline int tp_make_set(const char *const *names, int n)
{
    int es = PAPI_NULL;
    if (PAPI_create_eventset(&es) != PAPI_OK) {
        TP_CHECK(0, "PAPI_create_eventset");
        return -1;
    }
    for (int i = 0; i < n; i++) {
        int rc = PAPI_add_named_event(es, names[i]);
        TP_CHECK(rc == PAPI_OK, "add %s: %s", names[i], PAPI_strerror(rc));
    }
    return es;
}

static inline void tp_free_set(int es)
{
    PAPI_cleanup_eventset(es);
    PAPI_destroy_eventset(&es);
}

/* got[i] == want[i] for every event, reported with its name */
static inline void tp_expect(const char *label, const char *const *names, const long long *got,
                             const long long *want, int n)
{
    for (int i = 0; i < n; i++) {
        char what[256];
        snprintf(what, sizeof what, "%s: %s", label, names[i]);
        TP_EQ(got[i], want[i], what);
    }
}

/* code -> name -> code -> name gives the same name */
static inline void tp_round_trip(int code)
{
    char name[PAPI_HUGE_STR_LEN], again[PAPI_HUGE_STR_LEN];
    int code2 = 0;
    TP_RC(PAPI_event_code_to_name(code, name), PAPI_OK);
    TP_RC(PAPI_event_name_to_code(name, &code2), PAPI_OK);
    TP_RC(PAPI_event_code_to_name(code2, again), PAPI_OK);
    TP_CHECK(strcmp(name, again) == 0, "round trip %s -> %s", name, again);
}

/* Enumeration of a component: every base event and qualified form has a
 * description, units and a name that round-trips, bare and with the
 * component prefix.  Names of the base events in order go to names[] (up
 * to max); returns the number of base events, *nquals the qualified forms. */
static inline int tp_enumerate(int cidx, const char *comp, char (*names)[128], int max, int *nquals)
{
    PAPI_event_info_t info;
    int code = PAPI_NATIVE_MASK, n = 0;
    *nquals = 0;
    if (PAPI_enum_cmp_event(&code, PAPI_ENUM_FIRST, cidx) != PAPI_OK) {
        TP_CHECK(0, "%s: no first event", comp);
        return 0;
    }
    do {
        char prefixed[PAPI_HUGE_STR_LEN + 64];
        int k = code, code2 = 0;
        TP_RC(PAPI_get_event_info(code, &info), PAPI_OK);
        if (n < max) {
            snprintf(names[n], 128, "%.127s", info.symbol);
        }
        n++;
        TP_CHECK(strlen(info.long_descr) > 40, "%s: description too short", info.symbol);
        TP_CHECK(info.units[0] != '\0', "%s: no units", info.symbol);
        TP_EQ(info.component_index, cidx, info.symbol);
        tp_round_trip(code);
        snprintf(prefixed, sizeof prefixed, "%s:::%s", comp, info.symbol);
        TP_RC(PAPI_event_name_to_code(prefixed, &code2), PAPI_OK);
        if (PAPI_enum_cmp_event(&k, PAPI_NTV_ENUM_UMASKS, cidx) == PAPI_OK) {
            do {
                PAPI_event_info_t qi;
                (*nquals)++;
                tp_round_trip(k);
                TP_RC(PAPI_get_event_info(k, &qi), PAPI_OK);
                TP_CHECK(strstr(qi.long_descr, "masks:") != NULL, "%s: no masks: text", qi.symbol);
            } while (PAPI_enum_cmp_event(&k, PAPI_NTV_ENUM_UMASKS, cidx) == PAPI_OK);
        }
    } while (PAPI_enum_cmp_event(&code, PAPI_ENUM_EVENTS, cidx) == PAPI_OK);
    return n;
}

/* Each name is refused (PAPI_ENOEVNT or PAPI_EINVAL) with the prefix, and
 * not resolved bare. */
static inline void tp_bad_names(const char *comp, const char *const *bad, int n)
{
    for (int i = 0; i < n; i++) {
        char prefixed[512];
        int code, rc = PAPI_event_name_to_code(bad[i], &code);
        TP_CHECK(rc != PAPI_OK, "%s resolved", bad[i]);
        snprintf(prefixed, sizeof prefixed, "%s:::%s", comp, bad[i]);
        rc = PAPI_event_name_to_code(prefixed, &code);
        TP_CHECK(rc == PAPI_ENOEVNT || rc == PAPI_EINVAL, "%s: rc %d", prefixed, rc);
    }
}

#endif /* TORUS_PTEST_H */
