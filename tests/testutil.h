/*
 * testutil.h - shared helpers for the Check unit tests.
 */
#ifndef TEMU_TESTUTIL_H
#define TEMU_TESTUTIL_H

#include "torusemu.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Parse a spec that must be valid. */
static inline temu_machine test_machine(const char *spec)
{
    temu_machine m;
    temu_error err;
    temu_status st = temu_machine_parse(spec, &m, &err);
    ck_assert_msg(st == TEMU_OK, "spec %s: %s", spec, err.message);
    return m;
}

/* A fresh path for a store file in the test's temporary directory. */
static inline void test_store_path(char *buf, size_t len, const char *tag)
{
    const char *dir = getenv("TMPDIR");
    snprintf(buf, len, "%s/temu-test-%s-%d.store", dir && *dir ? dir : "/tmp", tag, (int)getpid());
}

/* A store of `spec` holding a mapping of nranks ranks, rpn per node, placed
 * `how` (temu_mapping_build; NULL = the default order).  A file store (a
 * private one holds no mapping), unlinked at once. */
static inline temu_session *test_mapped_store(const char *spec, int32_t nranks, int32_t rpn,
                                              const char *how)
{
    temu_machine m = test_machine(spec);
    temu_mapping map;
    temu_session *s;
    temu_error err;
    char path[256];
    ck_assert_msg(temu_mapping_build(&m, nranks, rpn, how, &map, &err) == TEMU_OK, "%s",
                  err.message);
    test_store_path(path, sizeof path, "mapped");
    ck_assert_msg(temu_session_create(path, &m, &map, &s, &err) == TEMU_OK, "%s", err.message);
    unlink(path);
    temu_mapping_free(&map);
    return s;
}

/* Node id from coordinates (and node-in-router k). */
static inline int64_t test_node(const temu_machine *m, const int32_t *c, int k)
{
    return temu_router_index(m, c) * m->nodes_per_router + k;
}

/* Run every test case of a suite; exit status for automake. */
/* The next number of a splitmix64 stream whose state is *s (Steele, Lea
 * and Flood, "Fast splittable pseudorandom number generators", OOPSLA
 * 2014): traffic that is the same on every host. */
static inline uint64_t test_rng_next(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static inline int test_run(Suite *s)
{
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

#endif
