/*
 * cmd_series.c - `torusemu series`: print a time-series file
 * (doc/series.md): its header, then per snapshot the counters that changed
 * since the previous one (or, with --all, every counter that is not zero),
 * as a table, CSV or JSON (columns snapshot, time_ps, index, name, value,
 * change).
 */
#include "cli.h"
#include "records.h"
#include "torusemu_series.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

static void usage(FILE *f)
{
    fprintf(f, "Usage: torusemu series [OPTION]... FILE\n"
               "Print a time-series file of counter snapshots (written by `torusemu replay\n"
               "--series` or `torusemu run --series`): per snapshot, the counters that changed\n"
               "since the previous snapshot, with their value and change.\n"
               "\n"
               "Options:\n"
               "  -a, --all       every counter that is not zero, changed or not\n"
               "  -s, --summary   only the header and the number of snapshots (csv, json:\n"
               "                  machine, counters, interval_ps, clock, snapshots, complete)\n"
               "      --format=F  table (default), csv or json; columns snapshot, time_ps,\n"
               "                  index, name, value, change\n"
               "  -h, --help      print this help and exit\n"
               "      --version   print the version and exit\n"
               "\n"
               "Example:\n"
               "  torusemu series job.tser --format=csv\n");
}

static const char *const columns[] = {"snapshot", "time_ps", "index", "name", "value", "change"};

typedef struct series_out {
    cli_format format;
    cli_rec rec;
    const temu_machine *m;
    uint64_t *prev; /* values of the previous snapshot */
} series_out;

static void print_counter(series_out *o, uint64_t snap, int64_t t, uint64_t i, uint64_t v)
{
    char name[160];
    int64_t change = (int64_t)(v - o->prev[i]); /* a zeroed store goes down */
    temu_counter_describe(o->m, (int64_t)i, name, sizeof name);
    if (o->format == CLI_FORMAT_TABLE) {
        printf("  %10" PRIu64 " %20" PRIu64 " %+21" PRId64 "  %s\n", i, v, change, name);
        return;
    }
    cli_rec_cell(&o->rec, "%" PRIu64, snap);
    cli_rec_cell(&o->rec, "%" PRId64, t);
    cli_rec_cell(&o->rec, "%" PRIu64, i);
    cli_rec_cell(&o->rec, "%s", name);
    cli_rec_cell(&o->rec, "%" PRIu64, v);
    cli_rec_cell(&o->rec, "%" PRId64, change);
    cli_rec_row(&o->rec);
}

int cmd_series(int argc, char **argv)
{
    static const struct option opts[] = {CLI_COMMON_OPTIONS,
                                         {"all", no_argument, NULL, 'a'},
                                         {"summary", no_argument, NULL, 's'},
                                         CLI_FORMAT_OPTION,
                                         {NULL, 0, NULL, 0}};
    series_out o = {.format = CLI_FORMAT_TABLE};
    int c, done, rc, all = 0, summary = 0;
    cli_begin();
    while ((c = cli_next(argc, argv, ":has", opts, usage, &done, &rc)) != -1) {
        if (done) {
            return rc;
        }
        if (c == CLI_OPT_FORMAT && cli_parse_format(optarg, &o.format) != 0) {
            return CLI_EXIT_USAGE;
        }
        all |= c == 'a';
        summary |= c == 's';
    }
    if (optind >= argc) {
        return cli_fail("series: missing FILE");
    }
    if (optind + 1 < argc) {
        return cli_fail("series: unexpected argument '%s'", argv[optind + 1]);
    }
    const char *path = argv[optind];
    temu_series_reader *r;
    temu_error err;
    if (temu_series_open(path, &r, &err) != TEMU_OK) {
        return cli_fail_err(&err);
    }
    o.m = temu_series_machine(r);
    uint64_t n = temu_series_counter_count(r);
    o.prev = calloc(n, sizeof *o.prev);
    if (o.prev == NULL) {
        temu_series_reader_close(r);
        return cli_fail("series: out of memory for %" PRIu64 " counters", n);
    }
    const char *clock = temu_series_clock_of(r) == TEMU_SERIES_HOST ? "host" : "virtual";
    if (o.format == CLI_FORMAT_TABLE) {
        printf("series %s: machine %s, %" PRIu64 " counters, every %" PRId64 " ps of %s time\n",
               path, o.m->name, n, temu_series_interval(r), clock);
        if (!summary) {
            printf("  %10s %20s %21s  %s\n", "index", "value", "change", "name");
        }
    } else if (!summary) {
        cli_rec_begin(&o.rec, stdout, o.format, columns, 6);
    }
    int64_t t;
    const uint64_t *v, *changed;
    uint64_t nchanged, snap = 0;
    while ((rc = temu_series_next_changes(r, &t, &v, &changed, &nchanged, &err)) == 1) {
        if (!summary && o.format == CLI_FORMAT_TABLE) {
            printf("snapshot %" PRIu64 " at %" PRId64 " ps: %" PRIu64 " counters changed\n", snap,
                   t, nchanged);
        }
        if (summary) {
            /* nothing per snapshot */
        } else if (all) {
            for (uint64_t i = 0; i < n; i++) {
                if (v[i] != 0) {
                    print_counter(&o, snap, t, i, v[i]);
                }
            }
        } else {
            for (uint64_t k = 0; k < nchanged; k++) {
                print_counter(&o, snap, t, changed[k], v[changed[k]]);
            }
        }
        for (uint64_t k = 0; k < nchanged; k++) {
            o.prev[changed[k]] = v[changed[k]];
        }
        snap++;
    }
    if (o.format != CLI_FORMAT_TABLE && !summary) {
        cli_rec_end(&o.rec);
    }
    if (rc < 0) {
        rc = cli_fail_err(&err);
    } else {
        if (o.format == CLI_FORMAT_TABLE) {
            printf("%" PRIu64 " snapshots%s\n", snap,
                   temu_series_complete(r) ? "" : " (no end record: the writer did not finish)");
        } else if (summary) {
            static const char *const cols[] = {"machine", "counters",  "interval_ps",
                                               "clock",   "snapshots", "complete"};
            cli_rec_begin(&o.rec, stdout, o.format, cols, 6);
            cli_rec_cell(&o.rec, "%s", o.m->name);
            cli_rec_cell(&o.rec, "%" PRIu64, n);
            cli_rec_cell(&o.rec, "%" PRId64, temu_series_interval(r));
            cli_rec_cell(&o.rec, "%s", clock);
            cli_rec_cell(&o.rec, "%" PRIu64, snap);
            cli_rec_cell(&o.rec, "%d", temu_series_complete(r));
            cli_rec_row(&o.rec);
            cli_rec_end(&o.rec);
        }
        if (!temu_series_complete(r)) {
            fprintf(stderr,
                    "torusemu: series %s is incomplete (no end record: its writer did not "
                    "finish): read %" PRIu64 " snapshots, up to the last whole one\n",
                    path, snap);
        }
        rc = 0;
    }
    free(o.prev);
    temu_series_reader_close(r);
    return rc;
}
