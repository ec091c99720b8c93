/*
 * torus_ptest.h - tiny harness for the papi-torus component tests: counts
 * checks, prints each failure with its line, and ends with the line
 * "N passed, M failed" that build-aux/test-summary.sh adds up, then
 * PAPI's verdict line.
 *
 * The tests follow PAPI's own test protocol too (testlib test_utils.c,
 * run by share/papi/run_tests.sh, reference/papi/REPORT.md section 6): a
 * first argument TESTS_QUIET (or -q) leaves only the verdict line (and
 * the failures); the verdict is "PASSED" (exit 0), "FAILED!!!" (exit 1),
 * or "SKIPPED" (exit 0) when the test has nothing to run against - no
 * emulator session, or a session of another machine (tp_begin).
 */
#ifndef TORUS_PTEST_H
#define TORUS_PTEST_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "papi.h"
#include "torusemu.h"

static int tp_passed, tp_failed;
static int tp_quiet; /* TESTS_QUIET: the verdict line only */

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
    if (!tp_quiet || tp_failed != 0) {
        printf("%d passed, %d failed\n", tp_passed, tp_failed);
    }
    printf("%s\n", tp_failed == 0 ? "PASSED" : "FAILED!!!");
    return tp_failed == 0 ? 0 : 1;
}

/* PAPI's test_skip: the verdict "SKIPPED" and exit 0; the reason follows
 * unless quiet. */
static inline void tp_skip(const char *fmt, ...)
{
    va_list ap;
    printf("SKIPPED\n");
    if (!tp_quiet) {
        va_start(ap, fmt);
        vprintf(fmt, ap);
        va_end(ap);
        putchar('\n');
    }
    exit(0);
}

/*
 * Start of every component test: PAPI's TESTS_QUIET (or -q) taken out of
 * the arguments, then the emulator session the test's expectations are
 * written for - machine `spec` (canonical name, as `torusemu dump`
 * prints it), this process on `node`.  TORUSEMU_NODE is set to `node`
 * when the environment places the process nowhere, so that one session
 * serves every test of its machine (run_tests.sh runs them all with one
 * environment).  SKIPPED when TORUSEMU_SESSION is unset, names another
 * machine, or places the process on another node; NULL (after a failed
 * check) when the store cannot be attached.
 */
static inline temu_session *tp_begin(int *argc, char **argv, const char *spec, int64_t node)
{
    const char *path = getenv(TEMU_SESSION_ENV);
    temu_session *s = NULL;
    temu_error err;
    int64_t here;
    char buf[32];

    if (*argc > 1 && (strcmp(argv[1], "TESTS_QUIET") == 0 || strcmp(argv[1], "-q") == 0)) {
        tp_quiet = 1;
        memmove(&argv[1], &argv[2], sizeof argv[0] * (size_t)(*argc - 1)); /* argv[argc] too */
        (*argc)--;
    }
    if (path == NULL || *path == '\0') {
        tp_skip("no emulator session: %s is not set (this test needs a %s session)",
                TEMU_SESSION_ENV, spec);
    }
    if (getenv(TEMU_NODE_ENV) == NULL && getenv(TEMU_RANK_ENV) == NULL) {
        snprintf(buf, sizeof buf, "%lld", (long long)node);
        setenv(TEMU_NODE_ENV, buf, 1);
    }
    if (temu_session_attach_env(&s, &err) != TEMU_OK) {
        TP_CHECK(0, "cannot attach the session %s: %s", path, err.message);
        return NULL;
    }
    if (strcmp(temu_session_machine(s)->name, spec) != 0) {
        char name[TEMU_NAME_MAX];
        snprintf(name, sizeof name, "%s", temu_session_machine(s)->name);
        temu_session_close(s);
        tp_skip("the session %s is machine %s; this test is written for %s", path, name, spec);
    }
    here = temu_identity_get(s).node;
    if (here != node) {
        temu_session_close(s);
        tp_skip("this process is node %lld of the session; the test is written for node %lld "
                "(unset %s and %s, or set %s=%lld)",
                (long long)here, (long long)node, TEMU_NODE_ENV, TEMU_RANK_ENV, TEMU_NODE_ENV,
                (long long)node);
    }
    return s;
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
