/*
 * series_file.c - fuzz the time-series reader (temu_series_open_mem,
 * temu_series_next_changes; doc/series.md).  The input is a whole series
 * file.  Invariants: a file is either refused with a message or read
 * snapshot by snapshot with strictly increasing times and changed-counter
 * indices inside the store, in increasing order, until its end or a clear
 * error.  Machines above 2^20 counters are only opened (their value array
 * would take most of the fuzzer's memory limit).
 */
#include "fuzz.h"
#include "torusemu_series.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    temu_series_reader *r;
    temu_error err;
    err.message[0] = '\0';
    if (temu_series_open_mem(data, size, "fuzz", &r, &err) != TEMU_OK) {
        FUZZ_CHECK(err.message[0] != '\0');
        return 0;
    }
    uint64_t n = temu_series_counter_count(r);
    FUZZ_CHECK(n == temu_machine_counter_count(temu_series_machine(r)));
    FUZZ_CHECK(temu_series_interval(r) > 0);
    if (n <= (1u << 20)) {
        int64_t t, last = -1;
        const uint64_t *v, *changed;
        uint64_t nchanged;
        int rc;
        while ((rc = temu_series_next_changes(r, &t, &v, &changed, &nchanged, &err)) == 1) {
            FUZZ_CHECK(t > last && t >= 0);
            last = t;
            FUZZ_CHECK(nchanged <= n);
            for (uint64_t k = 0; k < nchanged; k++) {
                FUZZ_CHECK(changed[k] < n && (k == 0 || changed[k] > changed[k - 1]));
                (void)v[changed[k]];
            }
        }
        FUZZ_CHECK(rc == 0 || err.message[0] != '\0');
        /* reading stops for good, an end said complete only at rc 0 */
        FUZZ_CHECK(temu_series_next(r, &t, &v, &err) == 0);
        FUZZ_CHECK(rc == 0 || temu_series_complete(r) == 0);
    }
    temu_series_reader_close(r);
    return 0;
}
