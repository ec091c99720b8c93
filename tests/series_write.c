/*
 * series_write.c - write a time-series file with chosen counter values,
 * for the shell tests of `torusemu series` and `torusemu analyze`.
 *
 *   series_write OUT SPEC INTERVAL_PS [incomplete|kill] < SCRIPT
 *
 * SCRIPT lines (blank lines and # comments ignored):
 *   at T                        start the snapshot at T ps (the previous
 *                               one, if any, is written first)
 *   set IDX VALUE               counter IDX (flat store index) = VALUE
 *   tile ROUTER TILE CTR VALUE  a Gemini tile counter (CTR 0..5)
 *   link ROUTER LINK CTR VALUE  every tile of a Gemini link (a name: X+)
 *                               gets VALUE of counter CTR
 * Values stay from one snapshot to the next until set again.  With
 * "incomplete" the file is left without its end record; with "kill" the
 * program kills itself with SIGKILL after the last snapshot, flushing
 * nothing: the file holds what the writer itself put in it.
 */
#include "torusemu_series.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>

static int fail(const char *what, const char *detail)
{
    fprintf(stderr, "series_write: %s%s%s\n", what, detail ? ": " : "", detail ? detail : "");
    return 1;
}

int main(int argc, char **argv)
{
    temu_machine m;
    temu_error err;
    temu_series *w;
    char line[512];
    if (argc < 4) {
        return fail("usage: series_write OUT SPEC INTERVAL_PS [incomplete|kill] < SCRIPT", NULL);
    }
    if (temu_machine_parse(argv[2], &m, &err) != TEMU_OK) {
        return fail("machine", err.message);
    }
    if (temu_series_create_machine(argv[1], &m, strtoll(argv[3], NULL, 10), TEMU_SERIES_VIRTUAL, &w,
                                   &err) != TEMU_OK) {
        return fail("create", err.message);
    }
    uint64_t n = temu_machine_counter_count(&m);
    uint64_t *v = calloc(n, sizeof *v);
    long long t = -1;
    while (v != NULL && fgets(line, sizeof line, stdin) != NULL) {
        char word[32], name[16];
        long long a, b, c;
        unsigned long long val;
        if (sscanf(line, "%31s", word) != 1 || word[0] == '#') {
            continue;
        }
        if (strcmp(word, "at") == 0 && sscanf(line, "at %lld", &a) == 1) {
            if (t >= 0 && temu_series_write_values(w, t, v, &err) != TEMU_OK) {
                return fail("snapshot", err.message);
            }
            t = a;
        } else if (sscanf(line, "set %lld %llu", &a, &val) == 2 && a >= 0 && (uint64_t)a < n) {
            v[a] = val;
        } else if (sscanf(line, "tile %lld %lld %lld %llu", &a, &b, &c, &val) == 4 &&
                   temu_idx_gemini_tile(&m, a, (int)b, (int)c) >= 0) {
            v[temu_idx_gemini_tile(&m, a, (int)b, (int)c)] = val;
        } else if (sscanf(line, "link %lld %15s %lld %llu", &a, name, &c, &val) == 4 &&
                   temu_link_parse(&m, name) >= 0) {
            int tiles[TEMU_GEMINI_TILES];
            int k = temu_gemini_link_tiles(temu_link_parse(&m, name), tiles);
            for (int i = 0; i < k; i++) {
                int64_t idx = temu_idx_gemini_tile(&m, a, tiles[i], (int)c);
                if (idx < 0) {
                    return fail("bad line", line);
                }
                v[idx] = val;
            }
        } else {
            return fail("bad line", line);
        }
    }
    if (t >= 0 && temu_series_write_values(w, t, v, &err) != TEMU_OK) {
        return fail("snapshot", err.message);
    }
    free(v);
    if (argc > 4 && strcmp(argv[4], "kill") == 0) {
        raise(SIGKILL); /* as a run killed outright: no exit handlers, no stdio flush */
    }
    if (argc > 4 && strcmp(argv[4], "incomplete") == 0) {
        /* leave without the end record, like a writer that was killed */
        fflush(NULL);
        _Exit(0);
    }
    if (temu_series_close(w, &err) != TEMU_OK) {
        return fail("close", err.message);
    }
    return 0;
}
