/*
 * cmd_interconnect.c - `torusemu interconnect`: the tile-to-link map of a
 * Gemini machine in the format of Cray's `rtr --interconnect`.
 */
#include "cli.h"
#include "records.h"

#include <errno.h>
#include <stdlib.h>
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
               "      --format=F      rtr (default, also: table), csv or json: one record\n"
               "                      per tile (src, src_coord, link, dst, dst_coord, link_type)\n"
               "  -h, --help          print this help and exit\n"
               "      --version       print the version and exit\n"
               "\n"
               "Example:\n"
               "  torusemu interconnect gemini-tiny -o tiny.interconnect\n");
}

/* "c0-0c0s0g0l00[(0,0,0)]" -> cells "c0-0c0s0g0l00" and "0 0 0" */
static void tile_cells(cli_rec *r, const char *word)
{
    int32_t c[3];
    int n = (int)strcspn(word, "[");
    if (sscanf(word + n, "[(%d,%d,%d)]", &c[0], &c[1], &c[2]) != 3) {
        c[0] = c[1] = c[2] = -1;
    }
    cli_rec_cell(r, "%.*s", n, word);
    cli_rec_cell(r, "%d %d %d", c[0], c[1], c[2]);
}

/* --format=csv|json: the rtr lines (written to memory) as records */
static temu_status interconnect_records(const temu_machine *m, FILE *out, cli_format format,
                                        temu_error *err)
{
    static const char *const cols[] = {"src", "src_coord", "link", "dst", "dst_coord", "link_type"};
    char *text = NULL, src[96], link[8], dst[96], type[32];
    size_t len = 0;
    cli_rec r;
    FILE *mem = open_memstream(&text, &len);
    if (mem == NULL) {
        err->status = TEMU_ENOMEM;
        snprintf(err->message, sizeof err->message, "out of memory");
        return TEMU_ENOMEM;
    }
    temu_status st = temu_gemini_write_interconnect(m, mem, err);
    fclose(mem);
    if (st == TEMU_OK) {
        cli_rec_begin(&r, out, format, cols, 6);
        for (char *line = strtok(text, "\n"); line != NULL; line = strtok(NULL, "\n")) {
            if (sscanf(line, "%95s %7s -> %95s LinkType: %31s", src, link, dst, type) == 4) {
                tile_cells(&r, src);
                cli_rec_cell(&r, "%s", link);
                tile_cells(&r, dst);
                cli_rec_cell(&r, "%s", type);
                cli_rec_row(&r);
            }
        }
        cli_rec_end(&r);
    }
    free(text);
    return st;
}

int cmd_interconnect(int argc, char **argv)
{
    static const struct option opts[] = {CLI_COMMON_OPTIONS,
                                         {"output", required_argument, NULL, 'o'},
                                         CLI_FORMAT_OPTION,
                                         {NULL, 0, NULL, 0}};
    cli_format format = CLI_FORMAT_TABLE;
    temu_machine m;
    temu_error err;
    const char *out = NULL;
    int c, done, rc;
    cli_begin();
    while ((c = cli_next(argc, argv, ":ho:", opts, usage, &done, &rc)) != -1) {
        if (done) {
            return rc;
        }
        if (c == CLI_OPT_FORMAT) {
            if (strcmp(optarg, "rtr") != 0 && cli_parse_format(optarg, &format) != 0) {
                return CLI_EXIT_USAGE;
            }
        } else {
            out = optarg;
        }
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
    temu_status st = format == CLI_FORMAT_TABLE ? temu_gemini_write_interconnect(&m, f, &err)
                                                : interconnect_records(&m, f, format, &err);
    if (out != NULL && fclose(f) != 0 && st == TEMU_OK) {
        return cli_fail("cannot write '%s': %s", out, strerror(errno));
    }
    return st == TEMU_OK ? 0 : cli_fail_err(&err);
}
