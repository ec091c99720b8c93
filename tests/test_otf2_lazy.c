/*
 * test_otf2_lazy.c - a timed replay of an OTF2 trace read chunk by chunk
 * as the ranks reach it (temu_otf2_lazy_open) against the same trace read
 * whole first (temu_otf2_replay): the same results, counter for counter,
 * with far fewer messages and operations held at once; and the cases a
 * chunk boundary makes hard (doc/replay.md, "Virtual time").
 *
 * The traces are tests/otf2_foreign's --ring: in time order an odd rank's
 * receive comes before the send it matches and an even rank's after, so
 * read a record at a time every receive is recorded in another round than
 * its send, both ways round; every tenth step's barrier has its 16
 * members' records spread over more than one chunk.
 */
#include "../utils/otf2_trace.h"
#include "testutil.h"
#include "torusemu_vtime.h"

#include <sys/stat.h>

#define NR 16

typedef struct trace_run {
    temu_status st;
    char message[sizeof(((temu_error *)0)->message)];
    int64_t runtime, end_ps[NR];
    uint64_t net_msgs, *counters, ncounters;
    temu_vt_held held;
} trace_run;

/* tests/otf2_foreign DIR ARGS: a trace in a fresh directory named after tag. */
static void write_trace(const char *tag, const char *args, char *dir, size_t len)
{
    const char *top = getenv("top_builddir");
    char cmd[1024];
    snprintf(dir, len, "%s/temu-otf2lazy-%s-%ld", P_tmpdir, tag, (long)getpid());
    snprintf(cmd, sizeof cmd, "rm -rf '%s' && '%s/tests/otf2_foreign' '%s' %s >/dev/null", dir,
             top != NULL ? top : ".", dir, args);
    ck_assert_msg(system(cmd) == 0, "%s failed", cmd);
}

static void remove_trace(const char *dir)
{
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    ck_assert_int_eq(system(cmd), 0);
}

/* The trace at dir replayed in virtual time on spec: read chunk records
 * at a time as the ranks reach them, or (chunk 0) whole first. */
static void trace_timed(const char *spec, const char *dir, uint64_t chunk, trace_run *out)
{
    temu_session *s = test_mapped_store(spec, NR, 1, NULL);
    temu_error err;
    temu_replay *r;
    temu_vt *vt;
    temu_otf2_lazy *lazy = NULL;
    memset(out, 0, sizeof *out);
    ck_assert(temu_vt_create(s, NULL, &vt, &err) == TEMU_OK);
    ck_assert(temu_replay_create(s, &r, &err) == TEMU_OK);
    temu_replay_set_vtime(r, vt);
    out->st = chunk > 0 ? temu_otf2_lazy_open(dir, r, chunk, &lazy, &err)
                        : temu_otf2_replay(dir, r, NULL, NULL, &err);
    if (out->st == TEMU_OK) {
        out->st = temu_vt_run(vt, &err);
    }
    if (out->st == TEMU_OK) {
        out->st = temu_replay_finish(r, &err);
    }
    if (out->st != TEMU_OK) {
        snprintf(out->message, sizeof out->message, "%s", err.message);
    }
    out->runtime = temu_vt_runtime(vt);
    for (int32_t i = 0; i < NR; i++) {
        temu_vt_rank_stats rs;
        temu_vt_rank_get(vt, i, &rs);
        out->end_ps[i] = rs.end_ps;
    }
    out->net_msgs = temu_vt_messages(vt);
    temu_vt_held_get(vt, &out->held);
    out->ncounters = temu_counter_count(s);
    out->counters = malloc(out->ncounters * sizeof *out->counters);
    ck_assert_ptr_nonnull(out->counters);
    for (uint64_t i = 0; i < out->ncounters; i++) {
        out->counters[i] = temu_counter_read(s, (int64_t)i);
    }
    temu_otf2_lazy_free(lazy);
    temu_replay_free(r);
    temu_vt_free(vt);
    temu_session_close(s);
}

static void assert_same(const char *spec, uint64_t chunk, const trace_run *a, const trace_run *b)
{
    ck_assert_msg(a->st == TEMU_OK && b->st == TEMU_OK, "%s, chunk %llu: %s%s", spec,
                  (unsigned long long)chunk, a->message, b->message);
    ck_assert_int_eq(b->runtime, a->runtime);
    for (int32_t k = 0; k < NR; k++) {
        ck_assert_int_eq(b->end_ps[k], a->end_ps[k]);
    }
    ck_assert_uint_eq(b->net_msgs, a->net_msgs);
    ck_assert_uint_eq(b->held.messages, a->held.messages);
    ck_assert_uint_eq(b->ncounters, a->ncounters);
    for (uint64_t k = 0; k < a->ncounters; k++) {
        ck_assert_msg(b->counters[k] == a->counters[k],
                      "%s, chunk %llu: counter %llu: %llu vs %llu", spec, (unsigned long long)chunk,
                      (unsigned long long)k, (unsigned long long)b->counters[k],
                      (unsigned long long)a->counters[k]);
    }
}

/* 400 steps of the ring on 16 ranks (6,400 messages, 12,800 records of
 * them, and 40 barriers of 32 records each: 64 messages each on Gemini,
 * none on the Blue Genes' collective networks) read 64 records at a time
 * give the results of reading it whole and hold at most two chunks of
 * point-to-point messages (a chunk records at most 32) and a barrier's
 * (measured: 112 on Gemini, 64 on the Blue Genes), not all 6,400 or
 * 8,960, and a twentieth of the operations; read a record at a time (a
 * receive and its send always in different rounds, every barrier read on
 * to its last member) the same results again.  Gemini, BG/Q and BG/P. */
START_TEST(test_ring_bounded)
{
    const char *spec[3] = {"gemini:2x2x2", "bgq:2x2x2x2x2", "bgp:4x2x2"};
    char dir[512];
    write_trace("ring", "--ring 16 400", dir, sizeof dir);
    for (int i = 0; i < 3; i++) {
        trace_run whole, lazy, one;
        trace_timed(spec[i], dir, 0, &whole);
        trace_timed(spec[i], dir, 64, &lazy);
        assert_same(spec[i], 64, &whole, &lazy);
        ck_assert_uint_ge(whole.held.messages, 400 * NR);
        ck_assert_uint_eq(whole.held.messages_peak, whole.held.messages);
        ck_assert_msg(lazy.held.messages_peak <= 2 * 32 + 64, "%s: %llu messages held at once",
                      spec[i], (unsigned long long)lazy.held.messages_peak);
        ck_assert_uint_le(lazy.held.slots_peak, 2 * 32);
        ck_assert_uint_le(lazy.held.ops_peak * 20, whole.held.ops_peak);
        ck_assert_uint_ge(lazy.held.rounds, (400 * 2 * NR + 40 * 2 * NR) / 64);
        trace_timed(spec[i], dir, 1, &one);
        assert_same(spec[i], 1, &whole, &one);
        ck_assert_uint_le(one.held.messages_peak, 2 * 32 + 64);
        free(whole.counters);
        free(lazy.counters);
        free(one.counters);
    }
    remove_trace(dir);
}
END_TEST

/* A barrier rank 3 never enters (its last one) is refused naming the
 * member, read whole or in chunks (reading on to the end for the missing
 * call); a trace whose event file of rank 1 is cut in half says the
 * events cannot be read, read whole or in chunks, and no rank runs on
 * garbage. */
START_TEST(test_bad_traces)
{
    char dir[512], evt[600];
    write_trace("skip", "--ring 16 40 --skip 3", dir, sizeof dir);
    for (uint64_t chunk = 0; chunk <= 64; chunk = chunk * 8 + 1) {
        trace_run run;
        trace_timed("gemini:2x2x2", dir, chunk, &run);
        ck_assert_int_eq(run.st, TEMU_EINVAL);
        ck_assert_msg(strstr(run.message, "member 3 of communicator 0 never calls its "
                                          "collective number 4") != NULL,
                      "chunk %llu: %s", (unsigned long long)chunk, run.message);
        free(run.counters);
    }
    remove_trace(dir);
    write_trace("cut", "--ring 16 400", dir, sizeof dir);
    snprintf(evt, sizeof evt, "%s/traces/%llu.evt", dir, 1ull << 32); /* rank 1's location */
    struct stat sb;
    ck_assert_int_eq(stat(evt, &sb), 0);
    ck_assert_int_eq(truncate(evt, sb.st_size / 2), 0);
    for (uint64_t chunk = 0; chunk <= 64; chunk = chunk * 8 + 1) {
        trace_run run;
        trace_timed("gemini:2x2x2", dir, chunk, &run);
        ck_assert_int_eq(run.st, TEMU_EIO);
        ck_assert_msg(strstr(run.message, "reading the OTF2 events failed") != NULL,
                      "chunk %llu: %s", (unsigned long long)chunk, run.message);
        free(run.counters);
    }
    remove_trace(dir);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("otf2_lazy");
    TCase *tc = tcase_create("otf2_lazy");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_ring_bounded);
    tcase_add_test(tc, test_bad_traces);
    suite_add_tcase(s, tc);
    return test_run(s);
}
