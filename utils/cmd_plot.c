/*
 * cmd_plot.c - `torusemu plot`: a PNG picture of a store's per-link traffic,
 * drawn by gnuplot (Debian package gnuplot-nox).
 *
 *   torusemu plot STORE -o FILE.png [--dims X,Y] [--at COORDS]
 *   torusemu plot STORE -o FILE.png --tiles ROUTER
 *
 * Plane mode: the routers of one 2-D plane of the torus (dimensions --dims,
 * default the first two; the others fixed by --at, default 0) and an arrow
 * per link and direction in the plane, coloured by the traffic over it:
 * Gemini phits that arrived (VC0 + VC1, the tile counters count arrivals,
 * Pedretti et al., CUG 2013, section V.B), Blue Gene/Q 32-byte chunks sent
 * (all VCs), Blue Gene/P 32-byte chunks sent.  The arrows of the two
 * directions of a link are drawn side by side.
 *
 * Tile mode (Gemini): the 6 x 8 tile grid of one router (Pedretti 2013
 * Fig. 3) coloured by the phits that arrived at each tile, every tile
 * labelled with its link.
 *
 * The data and the gnuplot script go to a private temporary directory
 * (mkdtemp, mode 0700), removed afterwards; gnuplot is $TORUSEMU_GNUPLOT or
 * `gnuplot` on the PATH.
 */
#include "cli.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void usage(FILE *f)
{
    fprintf(f, "Usage: torusemu plot [OPTION]... STORE -o FILE.png\n"
               "Draw a store's per-link traffic as a PNG picture (gnuplot): one plane of\n"
               "the torus with an arrow per link and direction, or the 48 tiles of a Gemini.\n"
               "\n"
               "Options:\n"
               "  -o, --output=FILE   the PNG file to write (required)\n"
               "  -d, --dims=A,B      the plane's two dimensions (default the first two)\n"
               "  -a, --at=COORDS     a router of the plane: fixes the other dimensions\n"
               "                      (default all 0)\n"
               "  -t, --tiles=ROUTER  Gemini: the tile map of ROUTER (an id or coordinates)\n"
               "  -h, --help          print this help and exit\n"
               "      --version       print the version and exit\n"
               "\n"
               "Examples:\n"
               "  torusemu plot job.store -o plane.png --dims X,Z\n"
               "\n"
               "  torusemu plot job.store -o tiles.png --tiles 0,0,1\n");
}

/* The traffic measure of each system, for the title. */
static const char *measure(const temu_machine *m)
{
    return m->system == TEMU_SYSTEM_GEMINI ? "phits arrived (VC0+VC1)"
           : m->system == TEMU_SYSTEM_BGQ  ? "32-byte chunks sent (all VCs)"
                                           : "32-byte chunks sent";
}

/* Traffic over link l of router r, and which way it went: *toward = 1 when
 * it arrived at r (Gemini), 0 when r sent it (Blue Gene). */
static uint64_t link_traffic(const temu_session *s, int64_t r, int l, int *toward)
{
    const temu_machine *m = temu_session_machine(s);
    uint64_t v = 0;
    *toward = m->system == TEMU_SYSTEM_GEMINI;
    if (m->system == TEMU_SYSTEM_GEMINI) {
        int tiles[TEMU_GEMINI_TILES], n = temu_gemini_link_tiles(l, tiles);
        for (int i = 0; i < n; i++) {
            v += temu_counter_read(s, temu_idx_gemini_tile(m, r, tiles[i], 0)) +
                 temu_counter_read(s, temu_idx_gemini_tile(m, r, tiles[i], 1));
        }
    } else if (m->system == TEMU_SYSTEM_BGQ) {
        for (int vc = 0; vc < TEMU_BGQ_VCS; vc++) {
            v += temu_counter_read(s, temu_idx_bgq_nw(m, r, l, TEMU_BGQ_NW_SENT_CHUNKS, vc));
        }
    } else {
        v = temu_counter_read(s, temu_idx_bgp(m, r, l, TEMU_BGP_CHUNKS));
    }
    return v;
}

/* The dimension named by letter or number ("X", "c", "2"), or -1. */
static int parse_dim(const temu_machine *m, const char *s, size_t len)
{
    static const char gem[] = "XYZ", bgq[] = "ABCDE";
    const char *names = m->system == TEMU_SYSTEM_BGQ ? bgq : gem;
    if (len != 1) {
        return -1;
    }
    for (int d = 0; d < m->ndims; d++) {
        if (s[0] == names[d] || s[0] == names[d] + ('a' - 'A') || s[0] == '0' + d) {
            return d;
        }
    }
    return -1;
}

/* Plane mode: data lines "x y dx dy value" (one arrow per link end) */
static void plane_data(FILE *f, const temu_session *s, int da, int db, const int32_t *at)
{
    const temu_machine *m = temu_session_machine(s);
    int32_t c[TEMU_MAX_DIMS];
    memcpy(c, at, sizeof c);
    for (c[da] = 0; c[da] < m->size[da]; c[da]++) {
        for (c[db] = 0; c[db] < m->size[db]; c[db]++) {
            int64_t r = temu_router_index(m, c);
            const int dims[2] = {da, db};
            for (int k = 0; k < 2; k++) {
                for (int plus = 0; plus < 2; plus++) {
                    int l = plus ? TEMU_LINK_PLUS(dims[k]) : TEMU_LINK_MINUS(dims[k]), toward;
                    if (temu_link_neighbor(m, r, l) < 0) {
                        continue; /* mesh edge */
                    }
                    uint64_t v = link_traffic(s, r, l, &toward);
                    /* unit step toward the neighbour over l, in plot axes */
                    double ux = k == 0 ? (plus ? 1 : -1) : 0, uy = k == 1 ? (plus ? 1 : -1) : 0;
                    /* arrival: from halfway to the neighbour into r; sending:
                     * from r halfway out.  Shifted sideways by direction. */
                    double side = 0.08 * (plus ? 1 : -1);
                    double x0 = c[da] + (toward ? 0.45 * ux : 0.1 * ux) + side * uy;
                    double y0 = c[db] + (toward ? 0.45 * uy : 0.1 * uy) + side * ux;
                    double len = toward ? -0.35 : 0.35;
                    fprintf(f, "%g %g %g %g %" PRIu64 "\n", x0, y0, len * ux, len * uy, v);
                }
            }
        }
    }
}

static void plane_script(FILE *f, const temu_machine *m, int da, int db, const char *data,
                         const char *png, const char *title)
{
    fprintf(f,
            "set terminal pngcairo size 900,760\n"
            "set output '%s'\n"
            "set title \"%s\" noenhanced\n"
            "set xlabel 'dimension %.1s'\nset ylabel 'dimension %.1s'\n"
            "set xrange [-0.7:%g]\nset yrange [-0.7:%g]\n"
            "set xtics 1\nset ytics 1\nset size ratio -1\n"
            "set palette defined (0 '#d0d0d0', 1 '#2060c0', 2 '#f0c000', 3 '#d02000')\n"
            "set cblabel '%s'\n"
            "plot '%s' using 1:2:3:4:5 with vectors head filled size 0.08,20 lw 3 "
            "lc palette notitle\n",
            png, title, temu_link_name(m, TEMU_LINK_PLUS(da)),
            temu_link_name(m, TEMU_LINK_PLUS(db)), m->size[da] - 0.3, m->size[db] - 0.3, measure(m),
            data);
}

/* Tile mode: "column row value" per tile, and a label per tile */
static void tile_data(FILE *f, const temu_session *s, int64_t r)
{
    const temu_machine *m = temu_session_machine(s);
    for (int t = 0; t < TEMU_GEMINI_TILES; t++) {
        uint64_t v = temu_counter_read(s, temu_idx_gemini_tile(m, r, t, 0)) +
                     temu_counter_read(s, temu_idx_gemini_tile(m, r, t, 1));
        fprintf(f, "%d %d %" PRIu64 " %s\n", t % TEMU_GEMINI_TILE_COLS, t / TEMU_GEMINI_TILE_COLS,
                v, temu_link_name(m, temu_gemini_tile_link(t)));
    }
}

static void tile_script(FILE *f, const char *data, const char *png, const char *title)
{
    fprintf(f,
            "set terminal pngcairo size 900,640\n"
            "set output '%s'\n"
            "set title \"%s\" noenhanced\n"
            "set xlabel 'tile column'\nset ylabel 'tile row'\n"
            "set xrange [-0.5:7.5]\nset yrange [5.5:-0.5]\nset xtics 1\nset ytics 1\n"
            "set palette defined (0 '#f0f0f0', 1 '#2060c0', 2 '#f0c000', 3 '#d02000')\n"
            "set cblabel 'phits arrived (VC0+VC1)'\n"
            "plot '%s' using 1:2:3 with image notitle, "
            "'' using 1:2:(sprintf('%%s\\n%%d', stringcolumn(4), int($3))) with labels notitle\n",
            png, title, data);
}

/* Run gnuplot on script; 0 when it succeeded and wrote a non-empty png. */
static int run_gnuplot(const char *script, const char *png)
{
    char *args[] = {(char *)script, NULL};
    return cli_run_tool("plot", "TORUSEMU_GNUPLOT", "gnuplot", "gnuplot-nox", args, png);
}

/* --dims A,B and --at COORDS into da, db and at[] */
static int plane_args(const temu_machine *m, const char *dims, const char *at_s, int *da, int *db,
                      int32_t *at)
{
    memset(at, 0, TEMU_MAX_DIMS * sizeof *at);
    *da = 0;
    *db = 1;
    if (dims != NULL) {
        const char *comma = strchr(dims, ',');
        if (comma == NULL || (*da = parse_dim(m, dims, (size_t)(comma - dims))) < 0 ||
            (*db = parse_dim(m, comma + 1, strlen(comma + 1))) < 0 || *da == *db) {
            return cli_fail("plot: --dims '%s' is not two different dimensions of %s (e.g. X,Z)",
                            dims, m->name);
        }
    }
    if (at_s != NULL) {
        int64_t node;
        if (cli_parse_node(m, at_s, &node) != 0) {
            return CLI_EXIT_USAGE;
        }
        temu_router_coords(m, temu_node_router(m, node), at);
    }
    return 0;
}

int cmd_plot(int argc, char **argv)
{
    static const struct option opts[] = {CLI_COMMON_OPTIONS,
                                         {"output", required_argument, NULL, 'o'},
                                         {"dims", required_argument, NULL, 'd'},
                                         {"at", required_argument, NULL, 'a'},
                                         {"tiles", required_argument, NULL, 't'},
                                         {NULL, 0, NULL, 0}};
    const char *png = NULL, *dims = NULL, *at_s = NULL, *tiles = NULL;
    int c, done, rc;
    cli_begin();
    while ((c = cli_next(argc, argv, ":ho:d:a:t:", opts, usage, &done, &rc)) != -1) {
        if (done) {
            return rc;
        }
        *(c == 'o' ? &png : c == 'd' ? &dims : c == 'a' ? &at_s : &tiles) = optarg;
    }
    if (optind >= argc) {
        return cli_fail("plot: missing STORE");
    }
    if (optind + 1 < argc) {
        return cli_fail("plot: unexpected argument '%s'", argv[optind + 1]);
    }
    if (png == NULL || png[0] == '\0') {
        return cli_fail("plot: missing -o FILE.png");
    }
    if (strpbrk(png, "'\"\n") != NULL) {
        return cli_fail("plot: the output name '%s' holds a quote or a line break", png);
    }
    temu_error err;
    temu_session *s;
    if (temu_session_attach_ex(argv[optind], TEMU_ATTACH_READONLY, &s, &err) != TEMU_OK) {
        return cli_fail_err(&err);
    }
    const temu_machine *m = temu_session_machine(s);
    int da = 0, db = 1;
    int32_t at[TEMU_MAX_DIMS];
    int64_t node = 0;
    if (tiles != NULL && m->system != TEMU_SYSTEM_GEMINI) {
        rc = cli_fail("plot: --tiles applies to Gemini machines only, not %s", m->name);
    } else if (tiles != NULL && strchr(tiles, ',') == NULL) {
        uint64_t id; /* a plain number names a router here */
        rc = cli_parse_uint(tiles, &id) == 0 && id < (uint64_t)m->nrouters
                 ? 0
                 : cli_fail("plot: no router %s on %s (0..%lld or coordinates)", tiles, m->name,
                            (long long)m->nrouters - 1);
        node = rc == 0 ? (int64_t)id * m->nodes_per_router : 0;
    } else if (tiles != NULL) {
        rc = cli_parse_node(m, tiles, &node);
    } else {
        rc = plane_args(m, dims, at_s, &da, &db, at);
    }
    char title[256], dir[4096];
    const char *tmp = getenv("TMPDIR");
    int n =
        snprintf(dir, sizeof dir, "%s/torusemu-plot.XXXXXX", tmp != NULL && tmp[0] ? tmp : "/tmp");
    char *d = rc == 0 && n > 0 && (size_t)n < sizeof dir ? mkdtemp(dir) : NULL;
    if (rc == 0 && d == NULL) {
        rc = cli_fail("plot: cannot make a temporary directory in %s: %s",
                      tmp != NULL && tmp[0] ? tmp : "/tmp", strerror(errno));
    }
    if (rc == 0) {
        char path[4200], spath[4200];
        snprintf(path, sizeof path, "%s/data", d);
        snprintf(spath, sizeof spath, "%s/plot.gp", d);
        FILE *fd = fopen(path, "w"), *fs = fopen(spath, "w");
        int64_t r = temu_node_router(m, node);
        if (tiles != NULL) {
            char name[64];
            temu_router_name(m, r, name, sizeof name);
            snprintf(title, sizeof title, "%s: tiles of Gemini %s", argv[optind], name);
        } else {
            snprintf(title, sizeof title, "%s (%s): plane %s-%s, %s", argv[optind], m->name,
                     temu_link_name(m, TEMU_LINK_PLUS(da)), temu_link_name(m, TEMU_LINK_PLUS(db)),
                     measure(m));
        }
        for (char *q = strchr(title, '"'); q != NULL; q = strchr(q, '"')) {
            *q = '\''; /* the title is a double-quoted gnuplot string */
        }
        if (fd == NULL || fs == NULL) {
            rc = cli_fail("plot: cannot write in %s: %s", d, strerror(errno));
        } else if (tiles != NULL) {
            tile_data(fd, s, r);
            tile_script(fs, path, png, title);
        } else {
            plane_data(fd, s, da, db, at);
            plane_script(fs, m, da, db, path, png, title);
        }
        if (fd != NULL) {
            fclose(fd);
        }
        if (fs != NULL) {
            fclose(fs);
        }
        if (rc == 0) {
            rc = run_gnuplot(spath, png);
        }
        unlink(path);
        unlink(spath);
        rmdir(d);
    }
    temu_session_close(s);
    return rc;
}
