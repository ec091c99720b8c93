/*
 * ldms_csv.c - fuzz the LDMS CSV reader of `torusemu analyze`
 * (utils/analyze_source.c; doc/analyze.md "Real Cray data") and the
 * figures computed from what it reads.  The input is a whole CSV file for
 * the machine gemini:4x2x2, handed over through a memfd.  Invariants: the
 * file is refused with a message or read sample by sample; every sampled
 * Gemini's time is >= 0, and every d-link's figures are finite, P_Ts and
 * P_bu never negative.
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
                if (an_dlink_metrics(m, r, d, &a, &b, &x) == 0) {
                    FUZZ_CHECK(x.dt_ps > 0 && isfinite(x.pbu) && x.pbu >= 0);
                    FUZZ_CHECK(isfinite(x.pts_inq) && x.pts_inq >= 0 && x.ppm >= 0);
                }
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
