/*
 * torus_bench - cost of PAPI_read for the papi-torus components against
 * PAPI_read of a perf_event software event through the same libpapi
 * (make bench-papi).  For every row: median over 201 batches of the mean
 * time of 200 reads, in ns, of a running event set.
 *
 * If this libpapi's perf_event component is disabled (libpfm4 knows no PMU
 * for the CPU model), the baseline falls back to the read(2) of a
 * perf_event software counter that PAPI's perf_event read performs, which
 * is a lower bound of the PAPI_read it would do.
 */
#include <linux/perf_event.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "papi.h"

#define BATCHES 201
#define PER_BATCH 200

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median_read(int es)
{
    static double t[BATCHES];
    long long v[64];
    for (int i = 0; i < 1000; i++) {
        PAPI_read(es, v);
    }
    for (int b = 0; b < BATCHES; b++) {
        double t0 = now_ns();
        for (int i = 0; i < PER_BATCH; i++) {
            PAPI_read(es, v);
        }
        t[b] = (now_ns() - t0) / PER_BATCH;
    }
    qsort(t, BATCHES, sizeof t[0], cmp_double);
    return t[BATCHES / 2];
}

/* median ns of PAPI_read of the n events; -1 if they cannot be added */
static double bench(const char *const *names, int n, char *why, size_t len)
{
    int es = PAPI_NULL, rc;
    double r;
    PAPI_create_eventset(&es);
    for (int i = 0; i < n; i++) {
        if ((rc = PAPI_add_named_event(es, names[i])) != PAPI_OK) {
            snprintf(why, len, "%s: %s", names[i], PAPI_strerror(rc));
            PAPI_cleanup_eventset(es);
            PAPI_destroy_eventset(&es);
            return -1;
        }
    }
    if (PAPI_start(es) != PAPI_OK) {
        snprintf(why, len, "PAPI_start failed");
        return -1;
    }
    r = median_read(es);
    PAPI_stop(es, NULL);
    PAPI_cleanup_eventset(es);
    PAPI_destroy_eventset(&es);
    return r;
}

static double bench_syscall(void)
{
    static double t[BATCHES];
    struct perf_event_attr a;
    uint64_t v;
    int fd;
    memset(&a, 0, sizeof a);
    a.size = sizeof a;
    a.type = PERF_TYPE_SOFTWARE;
    a.config = PERF_COUNT_SW_TASK_CLOCK;
    fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
    if (fd < 0) {
        return -1;
    }
    for (int b = 0; b < BATCHES; b++) {
        double t0 = now_ns();
        for (int i = 0; i < PER_BATCH; i++) {
            if (read(fd, &v, sizeof v) != sizeof v) {
                close(fd);
                return -1;
            }
        }
        t[b] = (now_ns() - t0) / PER_BATCH;
    }
    close(fd);
    qsort(t, BATCHES, sizeof t[0], cmp_double);
    return t[BATCHES / 2];
}

/* BG/Q network unit: an event sums its links (11 by default) x the VCs of
 * its mask, so one event reads up to 77 counters; events with the same mask
 * and other links share counters.  Rows of 1, 4 and 16 events. */
static const char *const nw_rows[3][16] = {
    {"PEVT_NW_USER_PP_SENT"},
    {"PEVT_NW_USER_PP_SENT", "PEVT_NW_SYS_PP_SENT", "PEVT_NW_COMMWORLD_COL_SENT",
     "PEVT_NW_USER_PP_RECV"},
    {"PEVT_NW_USER_PP_SENT", "PEVT_NW_SYS_PP_SENT", "PEVT_NW_COMMWORLD_COL_SENT",
     "PEVT_NW_USER_PP_RECV", "PEVT_NW_USER_PP_RECV_FIFO", "PEVT_NW_USER_SUBC_COL_SENT",
     "PEVT_NW_CYCLES", "PEVT_NW_USER_PP_SENT:link=A-", "PEVT_NW_USER_PP_SENT:link=A+",
     "PEVT_NW_USER_PP_SENT:link=B-", "PEVT_NW_USER_PP_SENT:link=B+", "PEVT_NW_USER_PP_SENT:link=C-",
     "PEVT_NW_USER_PP_SENT:link=C+", "PEVT_NW_USER_PP_SENT:link=D-", "PEVT_NW_USER_PP_SENT:link=D+",
     "PEVT_NW_USER_PP_SENT:link=E-"},
};
/* distinct store counters each row reads (links x VCs of its masks) */
static const int nw_counters[3] = {33, 99, 143};

static void bench_bgq_nw(double perf)
{
    static const int sizes[] = {1, 4, 16};
    char label[96], why[256];
    for (int r = 0; r < 3; r++) {
        double t = bench(nw_rows[r], sizes[r], why, sizeof why);
        snprintf(label, sizeof label, "bgq_nwunit, %d event%s (%d counters)", sizes[r],
                 sizes[r] > 1 ? "s" : "", nw_counters[r]);
        if (t < 0) {
            printf("%-44s  failed: %s\n", label, why);
        } else {
            printf("%-44s %8.1f   %s\n", label, t, t <= perf ? "<= perf" : "> perf");
        }
    }
}

int main(void)
{
    static const int sizes[] = {1, 4, 16};
    char names[16][128], why[256];
    const char *list[16];
    double perf;

    if (PAPI_library_init(PAPI_VER_CURRENT) != PAPI_VER_CURRENT) {
        fprintf(stderr, "torus_bench: PAPI_library_init failed\n");
        return 1;
    }
    printf("PAPI_read cost, median of %d batches of %d reads (ns per call)\n", BATCHES, PER_BATCH);
    list[0] = "perf::TASK-CLOCK";
    perf = bench(list, 1, why, sizeof why);
    if (perf >= 0) {
        printf("%-44s %8.1f\n", "perf_event perf::TASK-CLOCK (PAPI_read)", perf);
    } else {
        perf = bench_syscall();
        printf("perf_event unavailable in this libpapi (%s);\n", why);
        printf("%-44s %8.1f\n", "baseline: read(2) of PERF_COUNT_SW_TASK_CLOCK", perf);
    }
    for (int c = 0; c < 3; c++) {
        for (int s = 0; s < 3; s++) {
            int n = sizes[s];
            char label[96];
            double r;
            for (int i = 0; i < n; i++) {
                if (c == 0) {
                    snprintf(names[i], sizeof names[i], "GM_TILE_PERF_VC%d_PHIT_CNT:%d:%d", i % 2,
                             i / 8, i % 8);
                } else if (c == 1) {
                    static const char *const l[] = {"X-", "X+", "Y-", "Y+", "Z-", "Z+", "HH"};
                    snprintf(names[i], sizeof names[i], "GM_LINK_%s:link=%s",
                             i < 7    ? "PHITS"
                             : i < 14 ? "PACKETS"
                                      : "BYTES",
                             l[i % 7]);
                } else {
                    static const char *const d[] = {"XP", "XM", "YP", "YM", "ZP", "ZM"};
                    snprintf(names[i], sizeof names[i], "BGP_TORUS_%s_%s", d[i % 6],
                             i < 6    ? "PACKETS"
                             : i < 12 ? "32BCHUNKS"
                                      : "PACKETS");
                }
                list[i] = names[i];
            }
            if (c == 2 && n == 16) {
                /* mode 0 has 12 events: add the two presets (6 counters each) */
                list[12] = "PAPI_BGP_TS_DPKT";
                list[13] = "PAPI_BGP_TS_32B";
                n = 14;
            }
            r = bench(list, n, why, sizeof why);
            snprintf(label, sizeof label, "%s, %d event%s%s",
                     c == 0   ? "gemini_tile tile counters"
                     : c == 1 ? "gemini_tile link events"
                              : "bgp_torus",
                     n, n > 1 ? "s" : "", c == 1 ? " (8 or 4 tiles each)" : "");
            if (r < 0) {
                printf("%-44s  failed: %s\n", label, why);
            } else {
                printf("%-44s %8.1f   %s\n", label, r, r <= perf ? "<= perf" : "> perf");
            }
        }
    }
    bench_bgq_nw(perf);
    PAPI_shutdown();
    return 0;
}
