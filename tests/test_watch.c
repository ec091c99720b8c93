/*
 * test_watch.c - overflow watches: threshold crossings, signals to the
 * arming thread (also from another process), restart, disarm, errors.
 */
#include "testutil.h"

#include <signal.h>
#include <sys/wait.h>
#include <time.h>

static volatile sig_atomic_t signals_seen;

static void on_signal(int sig)
{
    (void)sig;
    signals_seen++;
}

static void install(int sig)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    ck_assert_int_eq(sigaction(sig, &sa, NULL), 0);
    signals_seen = 0;
}

static temu_session *bgq_store(char *path, size_t len, const char *tag)
{
    temu_machine m = test_machine("midplane");
    temu_session *s;
    temu_error err;
    test_store_path(path, len, tag);
    ck_assert_int_eq(temu_session_create(path, &m, NULL, &s, &err), TEMU_OK);
    return s;
}

/* chunks sent on A+ of node <a,0,0,0,0> on the deterministic VC */
static int64_t ap_chunks(const temu_session *s, int32_t a)
{
    const temu_machine *m = temu_session_machine(s);
    int32_t c[5] = {a, 0, 0, 0, 0};
    return temu_idx_bgq_nw(m, temu_router_index(m, c), TEMU_LINK_PLUS(0), TEMU_BGQ_NW_SENT_CHUNKS,
                           TEMU_BGQ_VC_USER_ESCAPE);
}

static void send(temu_session *s, int64_t src, int64_t dst, uint64_t bytes)
{
    temu_message msg = {src, dst, bytes, NULL, TEMU_KIND_P2P};
    temu_error err;
    ck_assert_int_eq(temu_inject(s, &msg, &err), TEMU_OK);
}

/* Another process attaches the store at path and sends `bytes` from node
 * <0,0,0,0,0> to <a,0,0,0,0>; returns once it has exited cleanly. */
static pid_t inject_from_child(const char *path, int32_t a, uint64_t bytes)
{
    temu_error err;
    int status;
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        temu_session *c;
        if (temu_session_attach(path, &c, &err) != TEMU_OK) {
            _exit(3);
        }
        int32_t dst[5] = {a, 0, 0, 0, 0};
        temu_message msg = {0, temu_router_index(temu_session_machine(c), dst), bytes, NULL,
                            TEMU_KIND_P2P};
        _exit(temu_inject(c, &msg, &err) == TEMU_OK ? 0 : 4);
    }
    ck_assert_int_eq(waitpid(pid, &status, 0), pid);
    ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    return pid;
}

/* The owner collects one crossing with temu_watch_deliver_own: its handler
 * has run (signals_seen reaches `seen`) before the call returned. */
static void expect_delivered(temu_session *s, int32_t id, int seen)
{
    ck_assert_int_eq(temu_watch_deliver_own(s), 1);
    ck_assert_int_eq(signals_seen, seen);
    ck_assert_uint_eq(temu_watch_take(s, id), 1);
}

/* Drop the watch and the store file. */
static void finish_store(temu_session *s, int32_t id, const char *path)
{
    temu_watch_disarm(s, id);
    temu_session_close(s);
    unlink(path);
}

START_TEST(test_threshold_crossings)
{
    char path[256];
    temu_session *s = bgq_store(path, sizeof path, "watch1");
    const temu_machine *m = temu_session_machine(s);
    int32_t c1[5] = {1, 0, 0, 0, 0};
    int64_t n1 = temu_router_index(m, c1);
    int64_t idx = ap_chunks(s, 0);
    temu_watch_spec spec = {&idx, 1, SIGUSR1, 100, 0, 0};
    temu_error err;
    int32_t id;
    install(SIGUSR1);
    ck_assert_int_eq(temu_watch_armed(s), 0);
    ck_assert_int_eq(temu_watch_arm(s, &spec, &id, &err), TEMU_OK);
    ck_assert_int_eq(temu_watch_armed(s), 1);
    /* 1000 B eager = 2 packets, 2 + 32 = 34 chunks on A+ of node 0 */
    send(s, 0, n1, 1000);
    send(s, 0, n1, 1000);
    ck_assert_uint_eq(temu_watch_value(s, id), 68);
    ck_assert_uint_eq(temu_watch_take(s, id), 0);
    ck_assert_int_eq(signals_seen, 0);
    send(s, 0, n1, 1000); /* 102: first crossing */
    ck_assert_uint_eq(temu_watch_take(s, id), 1);
    ck_assert_int_eq(signals_seen, 1);
    ck_assert_uint_eq(temu_watch_take(s, id), 0);
    send(s, 0, n1, 8192); /* rendezvous: 2 + 16 + 256 = 274 more -> 376: crosses 200, 300 */
    ck_assert_uint_eq(temu_watch_value(s, id), 376);
    ck_assert_uint_eq(temu_watch_take(s, id), 2);
    ck_assert_int_eq(signals_seen, 2); /* one signal per crossing update */
    /* traffic elsewhere does not count... */
    int32_t c2[5] = {2, 0, 0, 0, 0};
    send(s, n1, temu_router_index(m, c2), 100000);
    ck_assert_uint_eq(temu_watch_value(s, id), 376);
    /* ...but the remote get of a rendezvous toward node 0's A+ neighbour does:
     * 1 -> 0 of 100000 B sends its 3-chunk remote get 0 -> 1 */
    send(s, n1, 0, 100000);
    ck_assert_uint_eq(temu_watch_value(s, id), 379);
    /* restart: the threshold counts from here */
    temu_watch_restart(s, id);
    send(s, 0, n1, 1000);
    send(s, 0, n1, 1000);
    ck_assert_uint_eq(temu_watch_take(s, id), 0);
    send(s, 0, n1, 1000);
    ck_assert_uint_eq(temu_watch_take(s, id), 1);
    /* disarm: no more signals, bit cleared, fast path back */
    temu_watch_disarm(s, id);
    ck_assert_int_eq(temu_watch_armed(s), 0);
    int before = signals_seen;
    for (int i = 0; i < 10; i++) {
        send(s, 0, n1, 1000);
    }
    ck_assert_int_eq(signals_seen, before);
    temu_session_close(s);
    unlink(path);
}
END_TEST

START_TEST(test_sum_of_counters_and_sharing)
{
    char path[256];
    temu_session *s = bgq_store(path, sizeof path, "watch2");
    const temu_machine *m = temu_session_machine(s);
    int32_t c2[5] = {2, 0, 0, 0, 0};
    int64_t n2 = temu_router_index(m, c2);
    /* sum of A+ chunks on <0,..> and <1,..>: a 2-hop message counts twice */
    int64_t both[2] = {ap_chunks(s, 0), ap_chunks(s, 1)};
    temu_watch_spec a = {both, 2, 0, 50, 0, 0};
    temu_watch_spec b = {both, 1, 0, 1000, 0, 0};
    temu_error err;
    int32_t ia, ib;
    ck_assert_int_eq(temu_watch_arm(s, &a, &ia, &err), TEMU_OK);
    ck_assert_int_eq(temu_watch_arm(s, &b, &ib, &err), TEMU_OK);
    ck_assert_int_ne(ia, ib);
    send(s, 0, n2, 1000); /* 34 chunks on each of the two links */
    ck_assert_uint_eq(temu_watch_value(s, ia), 68);
    ck_assert_uint_eq(temu_watch_take(s, ia), 1);
    ck_assert_uint_eq(temu_watch_value(s, ib), 34);
    /* disarming a keeps node 0's counter watched for b */
    temu_watch_disarm(s, ia);
    send(s, 0, n2, 1000);
    ck_assert_uint_eq(temu_watch_value(s, ib), 68);
    temu_watch_disarm(s, ib);
    temu_watch_disarm(s, ib); /* twice is harmless */
    ck_assert_int_eq(temu_watch_armed(s), 0);
    temu_session_close(s);
    unlink(path);
}
END_TEST

START_TEST(test_signal_from_another_process)
{
    char path[256];
    temu_session *s = bgq_store(path, sizeof path, "watch3");
    /* watch chunks that pass *through* <1,0,0,0,0> (its A+ link) */
    int64_t idx = ap_chunks(s, 1);
    temu_watch_spec spec = {&idx, 1, SIGUSR2, 30, 0, 0};
    temu_error err;
    int32_t id;
    sigset_t set, old;
    install(SIGUSR2);
    sigemptyset(&set);
    sigaddset(&set, SIGUSR2);
    ck_assert_int_eq(temu_watch_arm(s, &spec, &id, &err), TEMU_OK);
    sigprocmask(SIG_BLOCK, &set, &old);
    pid_t pid = inject_from_child(path, 2, 1000);
    int sig = 0;
    struct timespec ts = {5, 0};
    siginfo_t info;
    sig = sigtimedwait(&set, &info, &ts);
    sigprocmask(SIG_SETMASK, &old, NULL);
    ck_assert_int_eq(sig, SIGUSR2);
    ck_assert_int_eq(info.si_pid, pid); /* sent by the injecting process */
    ck_assert_uint_eq(temu_watch_take(s, id), 1);
    temu_watch_disarm(s, id);
    temu_session_close(s);
    unlink(path);
}
END_TEST

/* A crossing caused by another process whose signal the owner never got
 * in time (here: drained while blocked) still reaches the owner's handler
 * through temu_watch_deliver_own, synchronously; nothing pending, nothing
 * raised; a watch of another thread is left to that thread. */
START_TEST(test_deliver_own_after_lost_signal)
{
    char path[256];
    temu_session *s = bgq_store(path, sizeof path, "watch6");
    int64_t idx = ap_chunks(s, 1);
    temu_watch_spec spec = {&idx, 1, SIGUSR2, 30, 0, 0};
    temu_error err;
    int32_t id, other;
    sigset_t set, old;
    siginfo_t info;
    struct timespec ts = {5, 0};
    install(SIGUSR2);
    ck_assert_int_eq(temu_watch_deliver_own(s), 0); /* nothing armed */
    sigemptyset(&set);
    sigaddset(&set, SIGUSR2);
    ck_assert_int_eq(temu_watch_arm(s, &spec, &id, &err), TEMU_OK);
    sigprocmask(SIG_BLOCK, &set, &old);
    ck_assert_int_eq(temu_watch_deliver_own(s), 0); /* armed, nothing crossed */
    pid_t pid = inject_from_child(path, 2, 1000);
    ck_assert_int_eq(sigtimedwait(&set, &info, &ts), SIGUSR2); /* the signal is "lost" */
    sigprocmask(SIG_SETMASK, &old, NULL);
    ck_assert_int_eq(signals_seen, 0);
    ck_assert_int_eq(temu_watch_deliver_own(s), 1);
    ck_assert_int_eq(signals_seen, 1); /* handled before the call returned */
    ck_assert_uint_eq(temu_watch_take(s, id), 1);
    ck_assert_int_eq(temu_watch_deliver_own(s), 0);
    ck_assert_int_eq(signals_seen, 1);
    /* a watch armed for another thread (the child's pid stands for it) */
    temu_watch_spec theirs = {&idx, 1, SIGUSR2, 1, (int32_t)getpid(), (int32_t)pid};
    ck_assert_int_eq(temu_watch_arm(s, &theirs, &other, &err), TEMU_OK);
    temu_counter_add(s, idx, 1); /* crosses `other` only: its signal goes nowhere */
    ck_assert_uint_eq(temu_watch_value(s, other), 1);
    ck_assert_int_eq(temu_watch_deliver_own(s), 0);
    ck_assert_int_eq(signals_seen, 1);
    ck_assert_uint_eq(temu_watch_take(s, other), 1);
    temu_watch_disarm(s, other);
    temu_watch_disarm(s, id);
    temu_session_close(s);
    unlink(path);
}
END_TEST

/* TORUSEMU_WATCH_LATE_SIGNALS=1: another process's crossing sends nothing,
 * the owner's own crossing still signals at once, and the owner collects
 * the other one with temu_watch_deliver_own. */
START_TEST(test_late_signals_setting)
{
    char path[256];
    setenv("TORUSEMU_WATCH_LATE_SIGNALS", "1", 1);
    temu_session *s = bgq_store(path, sizeof path, "watch7");
    const temu_machine *m = temu_session_machine(s);
    int64_t idx = ap_chunks(s, 1);
    temu_watch_spec spec = {&idx, 1, SIGUSR2, 30, 0, 0};
    temu_error err;
    int32_t id;
    int32_t c2[5] = {2, 0, 0, 0, 0};
    install(SIGUSR2);
    ck_assert_int_eq(temu_watch_arm(s, &spec, &id, &err), TEMU_OK);
    inject_from_child(path, 2, 1000);
    /* 1000 B over two A+ hops: 34 chunks pass <1,0,0,0,0>: one crossing */
    ck_assert_uint_eq(temu_watch_value(s, id), 34);
    usleep(100000);
    ck_assert_int_eq(signals_seen, 0); /* nothing was sent */
    expect_delivered(s, id, 1);
    /* the owner's own traffic: 34 more chunks cross 60, signalled at once */
    send(s, 0, temu_router_index(m, c2), 1000);
    ck_assert_int_eq(signals_seen, 2);
    ck_assert_uint_eq(temu_watch_take(s, id), 1);
    finish_store(s, id, path);
    unsetenv("TORUSEMU_WATCH_LATE_SIGNALS");
}
END_TEST

/* A slow watch (detection delay) is not delivered by the owner before its
 * delay has passed since the crossing, even when the crossing is known. */
START_TEST(test_deliver_own_respects_delay)
{
    char path[256];
    setenv("TORUSEMU_WATCH_LATE_SIGNALS", "1", 1); /* the child sends nothing */
    temu_session *s = bgq_store(path, sizeof path, "watch8");
    int64_t idx = ap_chunks(s, 1);
    temu_watch_spec spec = {&idx, 1, SIGUSR2, 30, 0, 0};
    temu_watch_options opt = {NULL, 200000000u}; /* 200 ms */
    temu_error err;
    int32_t id;
    install(SIGUSR2);
    ck_assert_int_eq(temu_watch_arm_ex(s, &spec, &opt, &id, &err), TEMU_OK);
    inject_from_child(path, 2, 1000);
    uint64_t crossed = temu_watch_crossed_ns(s, id);
    ck_assert_uint_ne(crossed, 0);
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    if ((uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec < crossed + 150000000u) {
        ck_assert_int_eq(temu_watch_deliver_own(s), 0); /* too early */
        ck_assert_int_eq(signals_seen, 0);
    }
    usleep(250000);
    expect_delivered(s, id, 1);
    finish_store(s, id, path);
    unsetenv("TORUSEMU_WATCH_LATE_SIGNALS");
}
END_TEST

START_TEST(test_watch_errors)
{
    char path[256];
    temu_session *s = bgq_store(path, sizeof path, "watch4");
    int64_t idx = ap_chunks(s, 0), bad = (int64_t)temu_counter_count(s);
    temu_watch_spec spec = {&idx, 1, 0, 0, 0, 0};
    temu_error err;
    int32_t id;
    ck_assert_int_eq(temu_watch_arm(s, &spec, &id, &err), TEMU_EINVAL);
    ck_assert_ptr_nonnull(strstr(err.message, "threshold"));
    spec.threshold = 10;
    spec.ncounters = 0;
    ck_assert_int_eq(temu_watch_arm(s, &spec, &id, &err), TEMU_EINVAL);
    spec.ncounters = 1;
    spec.counters = &bad;
    ck_assert_int_eq(temu_watch_arm(s, &spec, &id, &err), TEMU_ERANGE);
    spec.counters = &idx;
    spec.signo = 99;
    ck_assert_int_eq(temu_watch_arm(s, &spec, &id, &err), TEMU_EINVAL);
    spec.signo = 0;
    int32_t ids[TEMU_WATCH_MAX];
    for (int i = 0; i < TEMU_WATCH_MAX; i++) {
        ck_assert_int_eq(temu_watch_arm(s, &spec, &ids[i], &err), TEMU_OK);
    }
    ck_assert_int_eq(temu_watch_arm(s, &spec, &id, &err), TEMU_ERANGE);
    ck_assert_ptr_nonnull(strstr(err.message, "in use"));
    for (int i = 0; i < TEMU_WATCH_MAX; i++) {
        temu_watch_disarm(s, ids[i]);
    }
    ck_assert_int_eq(temu_watch_armed(s), 0);
    ck_assert_uint_eq(temu_watch_take(s, -1), 0);
    ck_assert_uint_eq(temu_watch_value(s, TEMU_WATCH_MAX), 0);
    temu_session_close(s);
    unlink(path);
}
END_TEST

START_TEST(test_counter_add_is_watched)
{
    /* updates through temu_counter_add (used by components and tools) are
     * seen as well */
    temu_machine m = test_machine("gemini-tiny");
    temu_session *s;
    temu_error err;
    int32_t id;
    ck_assert_int_eq(temu_session_create_private(&m, &s, &err), TEMU_OK);
    int64_t idx = temu_idx_gemini_tile(&m, 3, 26, TEMU_TILE_VC0_PHITS);
    temu_watch_spec spec = {&idx, 1, 0, 7, 0, 0};
    ck_assert_int_eq(temu_watch_arm(s, &spec, &id, &err), TEMU_OK);
    temu_counter_add(s, idx, 20);
    ck_assert_uint_eq(temu_watch_take(s, id), 2);
    temu_session_close(s);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("watch");
    TCase *tc = tcase_create("watch");
    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, test_threshold_crossings);
    tcase_add_test(tc, test_sum_of_counters_and_sharing);
    tcase_add_test(tc, test_signal_from_another_process);
    tcase_add_test(tc, test_deliver_own_after_lost_signal);
    tcase_add_test(tc, test_late_signals_setting);
    tcase_add_test(tc, test_deliver_own_respects_delay);
    tcase_add_test(tc, test_watch_errors);
    tcase_add_test(tc, test_counter_add_is_watched);
    suite_add_tcase(s, tc);
    return test_run(s);
}
