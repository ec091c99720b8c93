/*
 * cmd_machine.c - `torusemu machine`: describe a machine spec or list the
 * presets; --tiles adds the Gemini tile table.
 */
#include "cli.h"
#include "records.h"

#include <stdlib.h>

#include <string.h>

static void usage(FILE *f)
{
    fprintf(f, "Usage: torusemu machine [--tiles] SPEC\n"
               "  or:  torusemu machine --presets\n"
               "Describe a machine: shape, router and node counts, links, dimension order,\n"
               "bandwidth and protocol thresholds.\n"
               "\n"
               "SPEC is gemini:XxYxZ, bgp:XxYxZ, bgq:AxBxCxDxE or a preset name, with options\n"
               "appended as ,torus=10111 ,cores=N ,eager=B ,bte=B ,header=B.\n"
               "\n"
               "Options:\n"
               "  -p, --presets   list the preset machines (name, spec, description)\n"
               "  -t, --tiles     also print the Gemini 48-tile table: link, medium and GB/s\n"
               "                  of every tile, and the tiles of each logical link\n"
               "      --format=F  table (default), csv or json (doc/cli.md: columns)\n"
               "  -h, --help      print this help and exit\n"
               "      --version   print the version and exit\n"
               "\n"
               "Examples:\n"
               "  torusemu machine mira\n"
               "\n"
               "  torusemu machine cielo --tiles\n");
}

static void print_tile_table(const temu_machine *m)
{
    printf("\nGemini tile map (Pedretti et al. 2013, Fig. 3), tile = row*8 + column, "
           "per-tile GB/s on router 0:\n");
    for (int row = 0; row < TEMU_GEMINI_TILE_ROWS; row++) {
        printf("  row %d:", row);
        for (int col = 0; col < TEMU_GEMINI_TILE_COLS; col++) {
            int t = row * 8 + col;
            int link = temu_gemini_tile_link(t);
            temu_medium md = temu_gemini_link_medium(m, 0, link);
            printf("  %2d %-2s %-9s %.2f", t, temu_link_name(m, link), temu_medium_name(md),
                   temu_medium_tile_bandwidth(md));
        }
        printf("\n");
    }
    printf("\nlogical links of router 0:\n");
    for (int l = 0; l < m->nlinks; l++) {
        int tiles[TEMU_GEMINI_TILES];
        int n = temu_gemini_link_tiles(l, tiles);
        printf("  %-2s %d tiles %-9s %6.2f GB/s  tiles", temu_link_name(m, l), n,
               temu_medium_name(temu_gemini_link_medium(m, 0, l)),
               temu_gemini_link_bandwidth(m, 0, l));
        for (int i = 0; i < n; i++) {
            printf(" %d", tiles[i]);
        }
        printf("\n");
    }
}

/* --format=csv|json: the tiles as records, each with its link's totals */
static void tile_records(const temu_machine *m, cli_format format)
{
    static const char *const cols[] = {"tile",   "row",  "column",     "link",
                                       "medium", "gb_s", "link_tiles", "link_gb_s"};
    int tiles[TEMU_GEMINI_TILES];
    cli_rec r;
    cli_rec_begin(&r, stdout, format, cols, 8);
    for (int t = 0; t < TEMU_GEMINI_TILES; t++) {
        int link = temu_gemini_tile_link(t);
        temu_medium md = temu_gemini_link_medium(m, 0, link);
        cli_rec_cell(&r, "%d", t);
        cli_rec_cell(&r, "%d", t / TEMU_GEMINI_TILE_COLS);
        cli_rec_cell(&r, "%d", t % TEMU_GEMINI_TILE_COLS);
        cli_rec_cell(&r, "%s", temu_link_name(m, link));
        cli_rec_cell(&r, "%s", temu_medium_name(md));
        cli_rec_cell(&r, "%.2f", temu_medium_tile_bandwidth(md));
        cli_rec_cell(&r, "%d", temu_gemini_link_tiles(link, tiles));
        cli_rec_cell(&r, "%.2f", temu_gemini_link_bandwidth(m, 0, link));
        cli_rec_row(&r);
    }
    cli_rec_end(&r);
}

/* --format=csv|json of the text `machine` prints (the description or the
 * preset list), captured and cut into cells. */
static int text_records(const temu_machine *m, cli_format format)
{
    static const char *const desc_cols[] = {"field", "value"};
    static const char *const preset_cols[] = {"name", "spec", "description"};
    char *text = NULL;
    size_t len = 0;
    cli_rec r;
    FILE *f = open_memstream(&text, &len);
    if (f == NULL) {
        return cli_fail("machine: out of memory");
    }
    if (m != NULL) {
        temu_machine_describe(m, f);
    } else {
        temu_machine_list_presets(f);
    }
    fclose(f);
    cli_rec_begin(&r, stdout, format, m != NULL ? desc_cols : preset_cols, m != NULL ? 2 : 3);
    cli_rec_lines(&r, text, m == NULL);
    cli_rec_end(&r);
    free(text);
    return 0;
}

int cmd_machine(int argc, char **argv)
{
    static const struct option opts[] = {CLI_COMMON_OPTIONS,
                                         {"presets", no_argument, NULL, 'p'},
                                         {"tiles", no_argument, NULL, 't'},
                                         CLI_FORMAT_OPTION,
                                         {NULL, 0, NULL, 0}};
    temu_machine m;
    temu_error err;
    cli_format format = CLI_FORMAT_TABLE;
    int tiles = 0, presets = 0, c, done, rc;
    cli_begin();
    while ((c = cli_next(argc, argv, ":hpt", opts, usage, &done, &rc)) != -1) {
        if (done) {
            return rc;
        }
        if (c == CLI_OPT_FORMAT && cli_parse_format(optarg, &format) != 0) {
            return CLI_EXIT_USAGE;
        }
        presets |= c == 'p';
        tiles |= c == 't';
    }
    if (presets) {
        if (format != CLI_FORMAT_TABLE) {
            return text_records(NULL, format);
        }
        temu_machine_list_presets(stdout);
        return 0;
    }
    if (optind >= argc) {
        return cli_fail("machine: missing SPEC (try --presets)");
    }
    if (optind + 1 < argc) {
        return cli_fail("machine: unexpected argument '%s'", argv[optind + 1]);
    }
    if (temu_machine_parse(argv[optind], &m, &err) != TEMU_OK) {
        return cli_fail_err(&err);
    }
    if (tiles && temu_family_info_get(m.system)->tiles == 0) {
        return cli_fail("--tiles applies to Gemini machines only");
    }
    if (format != CLI_FORMAT_TABLE) {
        if (tiles) {
            tile_records(&m, format);
            return 0;
        }
        return text_records(&m, format);
    }
    temu_machine_describe(&m, stdout);
    if (tiles) {
        print_tile_table(&m);
    }
    return 0;
}
