/*
 * series_timed.c - a series whose stall counters come from the timing
 * model (include/torusemu_timing.h), for tests/analyze.sh: every node of
 * SPEC sends BYTES to node 0 at virtual time 0 (a hot spot); the volume
 * counters are injected as usual, the same messages go through the timing
 * model until the network is empty, and its stall counters are added to
 * the store.  Snapshots: the empty store at 0, the whole store at the end.
 *
 *   series_timed OUT SPEC BYTES     prints the end time in ps
 */
#include "torusemu_series.h"
#include "torusemu_timing.h"

#include <inttypes.h>
#include <stdlib.h>

static int fail(const char *what, const temu_error *err)
{
    fprintf(stderr, "series_timed: %s: %s\n", what, err->message);
    return 1;
}

int main(int argc, char **argv)
{
    temu_machine m;
    temu_tm_config c;
    temu_session *s;
    temu_series *w;
    temu_tm *t;
    temu_error err;
    if (argc != 4) {
        fprintf(stderr, "usage: series_timed OUT SPEC BYTES\n");
        return 2;
    }
    if (temu_machine_parse(argv[2], &m, &err) != TEMU_OK) {
        return fail("machine", &err);
    }
    if (temu_session_create_private(&m, &s, &err) != TEMU_OK ||
        temu_tm_config_default(&m, &c, &err) != TEMU_OK || temu_tm_create(&m, &c, &t, &err)) {
        return fail("setup", &err);
    }
    if (temu_series_create(argv[1], s, 1000000, &w, &err) != TEMU_OK ||
        temu_series_snapshot(w, 0, &err) != TEMU_OK) {
        return fail("series", &err);
    }
    for (int64_t n = 1; n < m.nnodes; n++) {
        temu_message msg = {
            .src = n, .dst = 0, .bytes = strtoull(argv[3], NULL, 10), .kind = TEMU_KIND_PUT};
        if (temu_inject(s, &msg, &err) != TEMU_OK ||
            temu_tm_send_message(t, 0, &m, &msg, &err) != TEMU_OK) {
            return fail("message", &err);
        }
    }
    int64_t end = temu_tm_run(t, INT64_MAX);
    if (temu_tm_check(t, &err) != TEMU_OK || temu_tm_add_stall_counters(t, s, &err) != TEMU_OK) {
        return fail("timing model", &err);
    }
    if (temu_series_snapshot(w, end, &err) != TEMU_OK || temu_series_close(w, &err) != TEMU_OK) {
        return fail("series", &err);
    }
    printf("%" PRId64 "\n", end);
    temu_tm_destroy(t);
    temu_session_close(s);
    return 0;
}
