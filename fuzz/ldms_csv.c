/*
 * ldms_csv.c - fuzz the LDMS CSV reader of `torusemu analyze`
 * (utils/analyze_source.c; doc/analyze.md "Real Cray data") and the
 * figures computed from what it reads.  The input is a whole CSV file for
 * the machine gemini:4x2x2, handed over through a memfd.  Invariants: the
 * file is refused with a message or read sample by sample; every sampled
 * Gemini's time is >= 0; a d-link figure is NAN exactly when its counter
 * was dropped (restarted or above what the d-link can do), else finite,
 * never negative, and P_bu and P_Ts within 100 % plus the unit per tile
 * a sample may catch under way (an_dlink_check).
 */
#define _GNU_SOURCE 1
#include "fuzz.h"

#include "../utils/analyze.h"
#include "../utils/analyze_source.h"

#include <math.h>
#include <sys/mman.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[64], why[600];
    an_source *src;
    an_frame a, b;
    int fd = memfd_create("ldms_csv", 0);
    FUZZ_CHECK(fd >= 0);
    FUZZ_CHECK(write(fd, data, size) == (ssize_t)size);
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    why[0] = '\0';
    if (an_source_open(path, "gemini:4x2x2", &src, why, sizeof why) != 0) {
        FUZZ_CHECK(why[0] != '\0');
        close(fd);
        return 0;
    }
    const temu_machine *m = an_source_machine(src);
    FUZZ_CHECK(an_frame_alloc(m, &a) == 0 && an_frame_alloc(m, &b) == 0);
    int rc = an_source_next(src, &a, why, sizeof why);
    while (rc == 1 && (rc = an_source_next(src, &b, why, sizeof why)) == 1) {
        for (int64_t r = 0; r < m->nrouters; r++) {
            FUZZ_CHECK(b.t_ps[r] >= -1);
            for (int d = 0; d < AN_DIRS; d++) {
                an_metrics x;
                if (an_dlink_metrics(m, r, d, &a, &b, &x) != 0) {
                    continue;
                }
                unsigned gone = x.reset | x.over;
                double dt = (double)x.dt_ps;
                FUZZ_CHECK(x.dt_ps > 0 && (x.reset & x.over) == 0);
                FUZZ_CHECK(isnan(x.ppm) == !!(gone & AN_BIT(AN_PACKETS)));
                FUZZ_CHECK(isnan(x.pbu) == !!(gone & AN_BIT(AN_TRAFFIC)));
                FUZZ_CHECK(isnan(x.pts_inq) == !!(gone & AN_BIT(AN_INQ)));
                FUZZ_CHECK(isnan(x.pts_credit) == !!(gone & AN_BIT(AN_CREDIT)));
                FUZZ_CHECK(isnan(x.ppm) || (isfinite(x.ppm) && x.ppm >= 0));
                /* 1e-9: the rounding of the division */
                FUZZ_CHECK(isnan(x.pbu) ||
                           (x.pbu >= 0 &&
                            x.pbu <= 100 * (1 + 3 * x.tiles / (x.bandwidth * 1e-3 * dt)) + 1e-9));
                FUZZ_CHECK(isnan(x.pts_inq) ||
                           (x.pts_inq >= 0 && x.pts_inq <= 100 * (1 + 1250 / dt) + 1e-9));
                FUZZ_CHECK(isnan(x.pts_credit) ||
                           (x.pts_credit >= 0 && x.pts_credit <= 100 * (1 + 1250 / dt) + 1e-9));
            }
        }
        an_frame t = a;
        a = b;
        b = t;
    }
    FUZZ_CHECK(rc >= 0 || why[0] != '\0');
    an_frame_free(&a);
    an_frame_free(&b);
    an_source_close(src);
    close(fd);
    return 0;
}
