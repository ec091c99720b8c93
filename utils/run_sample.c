/*
 * run_sample.c - sampling a live run's store into a series file
 * (run_sample.h).  The launcher polls its mpirun child every 10 ms at most
 * (waitpid WNOHANG) and writes a snapshot whenever a multiple of the
 * interval has passed; a snapshot reads every counter once (relaxed
 * atomic loads, each exact, the set not taken at one instant: ranks keep
 * injecting meanwhile).
 */
#include "run_sample.h"
#include "cli.h"

#include <errno.h>
#include <inttypes.h>
#include <string.h>
#include <sys/wait.h>

#define POLL_NS 10000000LL /* longest sleep between looks at the child */
#define DAY_NS 86400000000000LL

int run_parse_interval(const char *s, int64_t *ns)
{
    int64_t ps;
    if (cli_parse_time_ps(s, &ps) != 0 || ps < 1000 || ps > DAY_NS * 1000) {
        return -1;
    }
    *ns = ps / 1000;
    return 0;
}

static int64_t since(const struct timespec *start)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (int64_t)(now.tv_sec - start->tv_sec) * 1000000000 + (now.tv_nsec - start->tv_nsec);
}

static void snapshot(run_sampler *rs, int64_t t_ns)
{
    temu_error err;
    if (rs->failed || t_ns <= rs->last_ns) {
        return;
    }
    if (rs->refresh != NULL) {
        rs->refresh(rs->ctx);
    }
    if (temu_series_snapshot(rs->w, t_ns * 1000, &err) != TEMU_OK) {
        fprintf(stderr, "torusemu: run: no more snapshots: %s\n", err.message);
        rs->failed = 1;
        return;
    }
    rs->last_ns = t_ns;
}

int run_sampler_start(run_sampler *rs, const char *path, temu_session *s, int64_t interval_ns,
                      void (*refresh)(void *ctx), void *ctx)
{
    temu_error err;
    memset(rs, 0, sizeof *rs);
    rs->refresh = refresh;
    rs->ctx = ctx;
    rs->interval_ns = interval_ns;
    rs->last_ns = -1;
    if (temu_series_create_ex(path, s, interval_ns * 1000, TEMU_SERIES_HOST, &rs->w, &err) !=
        TEMU_OK) {
        return cli_fail("run: %s", err.message);
    }
    clock_gettime(CLOCK_MONOTONIC, &rs->start);
    snapshot(rs, 0);
    rs->next_ns = interval_ns;
    return rs->failed ? cli_fail("run: cannot write the series '%s'", path) : 0;
}

pid_t run_sampler_wait(run_sampler *rs, pid_t pid, int *status)
{
    for (;;) {
        pid_t r = waitpid(pid, status, WNOHANG);
        if (r != 0 && !(r < 0 && errno == EINTR)) {
            return r;
        }
        int64_t now = since(&rs->start);
        if (now >= rs->next_ns) {
            snapshot(rs, now);
            while (rs->next_ns <= now) {
                rs->next_ns += rs->interval_ns; /* missed ones are skipped */
            }
        }
        int64_t nap = rs->next_ns - now < POLL_NS ? rs->next_ns - now : POLL_NS;
        struct timespec ts = {(time_t)(nap / 1000000000), (long)(nap % 1000000000)};
        nanosleep(&ts, NULL); /* a signal cuts it short: look again */
    }
}

int run_sampler_finish(run_sampler *rs)
{
    temu_error err;
    snapshot(rs, since(&rs->start));
    int failed = rs->failed;
    rs->written = temu_series_snapshots(rs->w);
    if (temu_series_close(rs->w, &err) != TEMU_OK || failed) {
        return failed ? CLI_EXIT_USAGE : cli_fail("run: %s", err.message);
    }
    return 0;
}
