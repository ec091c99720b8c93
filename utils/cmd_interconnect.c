/*
 * cmd_interconnect.c - `torusemu interconnect`: the tile-to-link map of a
 * Gemini machine in the format of Cray's `rtr --interconnect`.
 */
#include "cli.h"

#include <errno.h>
#include <string.h>

static void usage(FILE *f)
{
    fprintf(f, "Usage: torusemu interconnect [-o FILE] SPEC\n"
               "Write the tile-to-link map of a Gemini machine in the format of Cray's\n"
               "`rtr --interconnect` (Pedretti et al., CUG 2013, Fig. 2): 40 lines per\n"
               "Gemini, one per network tile, for example\n"
               "  c0-0c0s0g0l00[(0,0,0)] Z+ -> c0-0c0s1g0l06[(0,0,1)] LinkType: backplane\n"
               "\n"
               "Options:\n"
               "  -o, --output=FILE   write to FILE instead of standard output\n"
               "  -h, --help          print this help and exit\n"
               "      --version       print the version and exit\n"
               "\n"
               "Example:\n"
               "  torusemu interconnect gemini-tiny -o tiny.interconnect\n");
}

int cmd_interconnect(int argc, char **argv)
{
    static const struct option opts[] = {
        CLI_COMMON_OPTIONS, {"output", required_argument, NULL, 'o'}, {NULL, 0, NULL, 0}};
    temu_machine m;
    temu_error err;
    const char *out = NULL;
    int c, done, rc;
    cli_begin();
    while ((c = cli_next(argc, argv, ":ho:", opts, usage, &done, &rc)) != -1) {
        if (done) {
            return rc;
        }
        out = optarg;
    }
    if (optind >= argc) {
        return cli_fail("interconnect: missing SPEC");
    }
    if (optind + 1 < argc) {
        return cli_fail("interconnect: unexpected argument '%s'", argv[optind + 1]);
    }
    if (temu_machine_parse(argv[optind], &m, &err) != TEMU_OK) {
        return cli_fail_err(&err);
    }
    FILE *f = out != NULL ? fopen(out, "w") : stdout;
    if (f == NULL) {
        return cli_fail("cannot write '%s': %s", out, strerror(errno));
    }
    temu_status st = temu_gemini_write_interconnect(&m, f, &err);
    if (out != NULL && fclose(f) != 0 && st == TEMU_OK) {
        return cli_fail("cannot write '%s': %s", out, strerror(errno));
    }
    return st == TEMU_OK ? 0 : cli_fail_err(&err);
}
