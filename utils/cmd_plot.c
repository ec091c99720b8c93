/*
 * cmd_plot.c - `torusemu plot`: a PNG picture of a store's per-link traffic,
 * drawn by gnuplot (Debian package gnuplot-nox).
 *
 *   torusemu plot STORE -o FILE.png [--dims X,Y] [--at COORDS]
 *   torusemu plot STORE -o FILE.png --tiles ROUTER
 *   torusemu plot STORE -o FILE.png --whole-machine
 *   ... [--metric traffic|stall] [--compare STORE2] [--data FILE.csv]
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
 * Whole-machine mode (--whole-machine): every torus link of the machine
 * once.  Each router is a small block of cells, one per link: a row per
 * dimension, the minus direction left, the plus direction right.  Routers
 * sit in panels of the first two dimensions (A-B on Blue Gene/Q, X-Y on
 * Gemini and BG/P); BG/Q's panels are laid out by C across and D down,
 * E's two panels side by side within each C (a midplane, 4x4x4x4x2, is
 * 8 x 4 panels of 4 x 4 nodes), the 3-D machines' panels by Z in rows of
 * ceil(sqrt(Z)).
 *
 * --metric stall colours by the timing model's stall counters instead
 * (torusemu replay --timing): Gemini INQ_STALL + CREDIT_STALL of the link's
 * tiles (800 MHz cycles), Blue Gene/Q receive-FIFO occupancy of the incoming
 * link (all VCs, packets summed per 500 MHz cycle), Blue Gene/P NO_TOKENS
 * (850 MHz cycles in which no dynamic VC of the sending link had tokens).
 * --compare draws a second store of the same machine in a second panel
 * with the same colour scale; --data writes the plotted values as CSV.
 *
 * The data and the gnuplot script go to a private temporary directory
 * (mkdtemp, mode 0700), removed afterwards; gnuplot is $TORUSEMU_GNUPLOT or
 * `gnuplot` on the PATH.
 */
#include "cli.h"
#include "figure.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void usage(FILE *f)
{
    fprintf(f, "Usage: torusemu plot [OPTION]... STORE -o FILE.png\n"
               "Draw a store's per-link traffic or stall as a PNG picture (gnuplot): one\n"
               "plane of the torus with an arrow per link and direction, every link of the\n"
               "machine in panels of planes, or the 48 tiles of a Gemini; with --compare\n"
               "two stores side by side.\n"
               "\n"
               "Options:\n"
               "  -o, --output=FILE   the PNG file to write (required)\n"
               "  -d, --dims=A,B      the plane's two dimensions (default the first two)\n"
               "  -a, --at=COORDS     a router of the plane: fixes the other dimensions\n"
               "                      (default all 0)\n"
               "  -t, --tiles=ROUTER  Gemini: the tile map of ROUTER (an id or coordinates)\n"
               "  -w, --whole-machine every torus link once: a block of cells per router\n"
               "                      (a row per dimension, - left, + right) in panels of\n"
               "                      the A-B (X-Y) planes; BG/Q panels by C across (E's two\n"
               "                      side by side) and D down, 3-D machines' by Z\n"
               "  -m, --metric=M      traffic (default) or stall: Gemini INQ_STALL +\n"
               "                      CREDIT_STALL summed over the link's tiles (800 MHz\n"
               "                      cycles), BG/Q receive-FIFO occupancy of the incoming\n"
               "                      link summed over its VCs, BG/P NO_TOKENS cycles of the\n"
               "                      sending link (850 MHz) (from\n"
               "                      the store of `torusemu replay --timing --keep`)\n"
               "  -c, --compare=STORE2  a second store of the same machine (another mapping\n"
               "                      of the job) in a second panel, same colour scale\n"
               "      --data=FILE     also write the plotted values as CSV: panel,router,\n"
               "                      coord,link,tile,value (tile empty but with --tiles)\n"
               "  -h, --help          print this help and exit\n"
               "      --version       print the version and exit\n"
               "\n"
               "Examples:\n"
               "  torusemu plot job.store -o plane.png --dims X,Z\n"
               "\n"
               "  torusemu plot job.store -o tiles.png --tiles 0,0,1\n"
               "\n"
               "  torusemu plot midplane.store -o machine.png --whole-machine\n"
               "\n"
               "  torusemu plot a.store --compare b.store --metric stall -o stall.png\n");
}

/* The measure of each system and metric (stall = 1), for the titles. */
static const char *measure(const temu_machine *m, int stall)
{
    const temu_family_info *fam = temu_family_info_get(m->system);
    return stall ? fam->stall_measure : fam->volume_measure;
}

/* The value of Gemini tile t of router r: phits arrived (VC0 + VC1) or the
 * timing model's input-queue plus credit stall cycles. */
static uint64_t tile_value(const temu_session *s, int64_t r, int t, int stall)
{
    const temu_machine *m = temu_session_machine(s);
    int a = stall ? TEMU_TILE_INQ_STALL : 0, b = stall ? TEMU_TILE_CREDIT_STALL : 1;
    return temu_counter_read(s, temu_idx_gemini_tile(m, r, t, a)) +
           temu_counter_read(s, temu_idx_gemini_tile(m, r, t, b));
}

/* The value of link l of router r, and which way it is drawn: *toward = 1
 * when it belongs to what arrived at r (Gemini tiles count arrivals, a BG/Q
 * receive FIFO holds what came in), 0 when r sent it (Blue Gene chunks, BG/P
 * tokens for sending). */
static uint64_t link_value(const temu_session *s, int64_t r, int l, int stall, int *toward)
{
    const temu_family_info *fam = temu_family_info_get(temu_session_machine(s)->system);
    *toward = stall ? fam->stall_toward : fam->counts_arrivals;
    return temu_link_read(s, r, l, stall ? TEMU_LINK_STALL : TEMU_LINK_TRAFFIC);
}

/* The dimension named by letter or number ("X", "c", "2"), or -1. */
static int parse_dim(const temu_machine *m, const char *s, size_t len)
{
    const char *names = temu_family_info_get(m->system)->dims;
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

/* Where one panel's values go: gnuplot's data file and the optional CSV
 * (--data); the largest value, for the common colour scale. */
typedef struct {
    FILE *gp, *csv;
    int panel, stall;
    uint64_t max;
} plot_out;

/* One value: a gnuplot line (the caller's) and a CSV record */
static void put_csv(plot_out *o, const temu_machine *m, int64_t r, int l, int tile, uint64_t v)
{
    if (v > o->max) {
        o->max = v;
    }
    if (o->csv == NULL) {
        return;
    }
    int32_t c[TEMU_MAX_DIMS];
    temu_router_coords(m, r, c);
    fprintf(o->csv, "%d,%lld,", o->panel, (long long)r);
    for (int d = 0; d < m->ndims; d++) {
        fprintf(o->csv, d ? " %d" : "%d", (int)c[d]);
    }
    fprintf(o->csv, ",%s,", temu_link_name(m, l));
    if (tile >= 0) {
        fprintf(o->csv, "%d", tile);
    }
    fprintf(o->csv, ",%" PRIu64 "\n", v);
}

/* Plane mode: data lines "x y dx dy value" (one arrow per link end) */
static void plane_data(plot_out *o, const temu_session *s, int da, int db, const int32_t *at)
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
                    uint64_t v = link_value(s, r, l, o->stall, &toward);
                    /* unit step toward the neighbour over l, in plot axes */
                    double ux = k == 0 ? (plus ? 1 : -1) : 0, uy = k == 1 ? (plus ? 1 : -1) : 0;
                    /* arrival: from halfway to the neighbour into r; sending:
                     * from r halfway out.  Shifted sideways by direction. */
                    double side = 0.08 * (plus ? 1 : -1);
                    double x0 = c[da] + (toward ? 0.45 * ux : 0.1 * ux) + side * uy;
                    double y0 = c[db] + (toward ? 0.45 * uy : 0.1 * uy) + side * ux;
                    double len = toward ? -0.35 : 0.35;
                    fprintf(o->gp, "%g %g %g %g %" PRIu64 "\n", x0, y0, len * ux, len * uy, v);
                    put_csv(o, m, r, l, -1, v);
                }
            }
        }
    }
}

/* Plane mode: the settings and the plot command of one panel */
static void plane_panel(FILE *f, const temu_machine *m, int da, int db, const char *data,
                        const char *title)
{
    fprintf(f,
            "set title \"%s\" noenhanced\n"
            "set xlabel 'dimension %.1s'\nset ylabel 'dimension %.1s'\n"
            "set xrange [-0.7:%g]\nset yrange [-0.7:%g]\n"
            "set xtics 1\nset ytics 1\nset size ratio -1\n"
            "set palette defined (0 '#d0d0d0', 1 '#2060c0', 2 '#f0c000', 3 '#d02000')\n"
            "plot '%s' using 1:2:3:4:($5/cbscale) with vectors head filled size 0.08,20 lw 3 "
            "lc palette notitle\n",
            title, temu_link_name(m, TEMU_LINK_PLUS(da)), temu_link_name(m, TEMU_LINK_PLUS(db)),
            m->size[da] - 0.3, m->size[db] - 0.3, data);
}

/* Tile mode: "column row value" per tile, and a label per tile */
static void tile_data(plot_out *o, const temu_session *s, int64_t r)
{
    const temu_machine *m = temu_session_machine(s);
    for (int t = 0; t < TEMU_GEMINI_TILES; t++) {
        uint64_t v = tile_value(s, r, t, o->stall);
        int l = temu_gemini_tile_link(t);
        fprintf(o->gp, "%d %d %" PRIu64 " %s\n", t % TEMU_GEMINI_TILE_COLS,
                t / TEMU_GEMINI_TILE_COLS, v, temu_link_name(m, l));
        put_csv(o, m, r, l, t, v);
    }
}

static void tile_panel(FILE *f, const char *data, const char *title)
{
    fprintf(f,
            "set title \"%s\" noenhanced\n"
            "set xlabel 'tile column'\nset ylabel 'tile row'\n"
            "set xrange [-0.5:7.5]\nset yrange [5.5:-0.5]\nset xtics 1\nset ytics 1\n"
            "set palette defined (0 '#f0f0f0', 1 '#2060c0', 2 '#f0c000', 3 '#d02000')\n"
            "plot '%s' using 1:2:($3/cbscale) with image notitle, "
            "'' using 1:2:(sprintf('%%s\\n%%d', stringcolumn(4), int($3))) with labels notitle\n",
            title, data);
}

/* Whole-machine mode geometry, in plot units (a link's cell is 1 x 1):
 * a router's block is 2 cells wide (-, +) and a cell per dimension tall,
 * with a gap around it; panels have wider gaps, and BG/Q's C groups (E's
 * panels side by side) wider still.  The y axis points down: the first
 * row of panels, the first B (Y) and dimension A (X) are at the top. */
#define WHOLE_ROUTER_GAP 0.5
#define WHOLE_PANEL_GAP 1.5
#define WHOLE_LABEL_ROOM 2.5 /* above each row of panels, for the labels */
#define WHOLE_GROUP_GAP 1.5  /* BG/Q: between two C groups */

typedef struct whole_layout {
    double router_w, router_h; /* pitch of the router blocks */
    double panel_w, panel_h;   /* pitch of the panels */
    int cols;                  /* 3-D: panels per row (Z wraps) */
    double width, height;      /* extent of the picture */
} whole_layout;

static whole_layout whole_layout_of(const temu_machine *m)
{
    whole_layout w;
    w.router_w = 2 + WHOLE_ROUTER_GAP;
    w.router_h = m->ndims + WHOLE_ROUTER_GAP;
    w.panel_w = m->size[0] * w.router_w + WHOLE_PANEL_GAP;
    w.panel_h = m->size[1] * w.router_h + WHOLE_LABEL_ROOM;
    if (m->ndims == 5) { /* C groups of E panels across, D down */
        w.cols = m->size[2] * m->size[4];
        w.width = m->size[2] * (m->size[4] * w.panel_w + WHOLE_GROUP_GAP) - WHOLE_GROUP_GAP;
        w.height = m->size[3] * w.panel_h;
    } else { /* Z in rows of ceil(sqrt(Z)) panels */
        w.cols = 1;
        while (w.cols * w.cols < m->size[2]) {
            w.cols++;
        }
        w.width = w.cols * w.panel_w;
        w.height = ((m->size[2] + w.cols - 1) / w.cols) * w.panel_h;
    }
    w.width -= WHOLE_PANEL_GAP;
    return w;
}

/* The top-left corner of the panel holding coordinates c (the router
 * blocks start WHOLE_LABEL_ROOM below it). */
static void whole_panel_corner(const temu_machine *m, const whole_layout *w, const int32_t *c,
                               double *x, double *y)
{
    if (m->ndims == 5) {
        *x = c[2] * (m->size[4] * w->panel_w + WHOLE_GROUP_GAP) + c[4] * w->panel_w;
        *y = c[3] * w->panel_h;
    } else {
        *x = (c[2] % w->cols) * w->panel_w;
        *y = (c[2] / w->cols) * w->panel_h;
    }
}

/* Whole-machine mode: "x y value" per cell, a cell per router and torus
 * link (mesh edges and one-router rings have none) */
static void whole_data(plot_out *o, const temu_session *s)
{
    const temu_machine *m = temu_session_machine(s);
    whole_layout w = whole_layout_of(m);
    for (int64_t r = 0; r < m->nrouters; r++) {
        int32_t c[TEMU_MAX_DIMS];
        double px, py;
        temu_router_coords(m, r, c);
        whole_panel_corner(m, &w, c, &px, &py);
        for (int l = 0; l < 2 * m->ndims; l++) {
            int toward;
            if (temu_link_neighbor(m, r, l) < 0) {
                continue;
            }
            uint64_t v = link_value(s, r, l, o->stall, &toward);
            /* cell centre: column by sign (- left), row by dimension */
            double x = px + c[0] * w.router_w + (l & 1) + 0.5;
            double y = py + WHOLE_LABEL_ROOM + c[1] * w.router_h + l / 2 + 0.5;
            fprintf(o->gp, "%g %g %" PRIu64 "\n", x, y, v);
            put_csv(o, m, r, l, -1, v);
        }
    }
}

/* Whole-machine mode: the panels' labels, the key and the plot command */
static void whole_panel(FILE *f, const temu_machine *m, const char *data, const char *title)
{
    whole_layout w = whole_layout_of(m);
    const char *dn = temu_family_info_get(m->system)->dims;
    int32_t c[TEMU_MAX_DIMS] = {0};
    int tag = 1;
    fprintf(f, "unset label\n");
    for (c[2] = 0; c[2] < m->size[2]; c[2]++) { /* above every panel of the first row */
        for (c[4] = 0; c[4] < (m->ndims == 5 ? m->size[4] : 1); c[4]++) {
            double x, y;
            whole_panel_corner(m, &w, c, &x, &y);
            x += (m->size[0] * w.router_w - WHOLE_ROUTER_GAP) / 2;
            if (m->ndims == 5) {
                fprintf(f, "set label %d 'C=%d E=%d' at %g,%g center\n", tag++, c[2], c[4], x,
                        y + 1.2);
            } else { /* 3-D: every panel has its Z above it */
                fprintf(f, "set label %d 'Z=%d' at %g,%g center\n", tag++, c[2], x, y + 1.2);
            }
        }
    }
    for (c[3] = 0; m->ndims == 5 && c[3] < m->size[3]; c[3]++) {
        double x, y;
        c[2] = c[4] = 0;
        whole_panel_corner(m, &w, c, &x, &y);
        fprintf(f, "set label %d 'D=%d' at %g,%g right\n", tag++, c[3], x - 0.8,
                y + WHOLE_LABEL_ROOM + (m->size[1] * w.router_h) / 2);
    }
    fprintf(f,
            "set title \"%s\" noenhanced\n"
            "set xlabel \"panels: %c across, %c down\\na router: a row per dimension (%.*s from "
            "the top), - left, + right\" noenhanced\n"
            "unset ylabel\nunset xtics\nunset ytics\nunset border\n"
            "set xrange [%g:%g]\nset yrange [%g:-0.5]\nset size ratio -1\n"
            "set palette defined (0 '#d0d0d0', 1 '#2060c0', 2 '#f0c000', 3 '#d02000')\n"
            "plot '%s' using 1:2:(0.45):(0.45):($3/cbscale) with boxxyerror fs solid 1.0 noborder "
            "lc palette notitle\n",
            title, dn[0], dn[1], m->ndims, dn, m->ndims == 5 ? -5.0 : -0.5, w.width + 0.5, w.height,
            data);
}

/* Whole-machine mode: the picture's size in pixels for one panel, from
 * 2 to 16 pixels per cell so that a midplane or a Blue Waters fits on a
 * screen. */
static void whole_pixels(const temu_machine *m, int *wpx, int *hpx)
{
    whole_layout w = whole_layout_of(m);
    double big = w.width > w.height ? w.width : w.height;
    int u = (int)(1600 / big);
    u = u < 2 ? 2 : u > 16 ? 16 : u;
    *wpx = (int)(w.width * u) + 300;
    *hpx = (int)(w.height * u) + 200;
    *wpx = *wpx < 800 ? 800 : *wpx;
    *hpx = *hpx < 600 ? 600 : *hpx;
}

/* The largest side of a picture gnuplot's pngcairo terminal can draw:
 * cairo refuses image surfaces wider or taller than 32767 pixels. */
#define PNG_MAX_SIDE 32767

/* Whole-machine mode: 0 when npanels pictures of m fit one PNG side by
 * side, else the exit code after saying so (before any file is made). */
static int whole_fits(const temu_machine *m, int npanels)
{
    int wpx, hpx;
    whole_pixels(m, &wpx, &hpx);
    if ((int64_t)wpx * npanels <= PNG_MAX_SIDE && hpx <= PNG_MAX_SIDE) {
        return 0;
    }
    return cli_fail("plot: --whole-machine: %s takes %lld x %d pixels at 2 per link cell, more "
                    "than the %d a side a PNG can have; draw planes of it (--dims, --at)",
                    m->name, (long long)wpx * npanels, hpx, PNG_MAX_SIDE);
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

/* What a picture shows: one plane (dimensions da and db through the
 * router at), the tiles of one Gemini router, or the whole machine. */
typedef enum { VIEW_PLANE, VIEW_TILES, VIEW_WHOLE } view_kind;
typedef struct plot_view {
    view_kind kind;
    int64_t router; /* VIEW_TILES */
    int da, db;     /* VIEW_PLANE */
    int32_t at[TEMU_MAX_DIMS];
} plot_view;

/* Write panel (1 or 2) of store s into dir/dataN, its settings into the
 * script fs. */
static int write_panel(plot_out *o, const temu_session *s, const char *store, const char *dir,
                       FILE *fs, const plot_view *v)
{
    const temu_machine *m = temu_session_machine(s);
    char path[4200], title[512], name[64];
    const char *slash = strrchr(store, '/');
    store = slash != NULL ? slash + 1 : store; /* a title names the file, not where it is */
    snprintf(path, sizeof path, "%s/data%d", dir, o->panel);
    if ((o->gp = fopen(path, "w")) == NULL) {
        return cli_fail("plot: cannot write in %s: %s", dir, strerror(errno));
    }
    if (v->kind == VIEW_TILES) {
        temu_router_name(m, v->router, name, sizeof name);
        snprintf(title, sizeof title, "%s: tiles of Gemini %s, %s", store, name,
                 measure(m, o->stall));
    } else if (v->kind == VIEW_WHOLE) {
        snprintf(title, sizeof title, "%s (%s): every link, %s", store, m->name,
                 measure(m, o->stall));
    } else {
        snprintf(title, sizeof title, "%s (%s): plane %.1s-%.1s, %s", store, m->name,
                 temu_link_name(m, TEMU_LINK_PLUS(v->da)), temu_link_name(m, TEMU_LINK_PLUS(v->db)),
                 measure(m, o->stall));
    }
    for (char *q = strchr(title, '"'); q != NULL; q = strchr(q, '"')) {
        *q = '\''; /* the title is a double-quoted gnuplot string */
    }
    if (v->kind == VIEW_TILES) {
        tile_data(o, s, v->router);
        tile_panel(fs, path, title);
    } else if (v->kind == VIEW_WHOLE) {
        whole_data(o, s);
        whole_panel(fs, m, path, title);
    } else {
        plane_data(o, s, v->da, v->db, v->at);
        plane_panel(fs, m, v->da, v->db, path, title);
    }
    fclose(o->gp);
    return 0;
}

/* The colour scale, written where the script reserved room for it once
 * the largest value of all panels is known: values are drawn divided by
 * cbscale, a power of 1000 named in the label, so that the colour bar's
 * tick labels stay short and clear of its label (figure.h). */
static void colour_scale(FILE *fs, long at, const temu_machine *m, int stall, uint64_t max)
{
    char label[128], suffix[32];
    fig_scale sc = fig_scale_of((double)max);
    fig_scale_suffix(&sc, suffix, sizeof suffix);
    fig_enhanced(measure(m, stall), label, sizeof label);
    fseek(fs, at, SEEK_SET);
    if (sc.exp == 0) {
        fprintf(fs, "cbscale = 1\nset cbrange [0:%" PRIu64 "]", max > 0 ? max : 1);
    } else {
        fprintf(fs, "cbscale = 1e%d\nset cbrange [0:%.6g]", sc.exp, (double)max / sc.divisor);
    }
    fprintf(fs, "\nset cblabel '%s%s'\n", label, suffix); /* spaces follow */
    fseek(fs, 0, SEEK_END);
}

/* The picture: the gnuplot script of one or two panels with one colour
 * scale, run in a private temporary directory removed afterwards. */
static int draw(temu_session *const *ss, const char *const *stores, int npanels, FILE *csv,
                int stall, const char *png, const plot_view *v)
{
    const temu_machine *m = temu_session_machine(ss[0]);
    char dir[4096], spath[4200];
    const char *tmp = getenv("TMPDIR");
    tmp = tmp != NULL && tmp[0] ? tmp : "/tmp";
    int n = snprintf(dir, sizeof dir, "%s/torusemu-plot.XXXXXX", tmp);
    if (n <= 0 || (size_t)n >= sizeof dir || mkdtemp(dir) == NULL) {
        return cli_fail("plot: cannot make a temporary directory in %s: %s", tmp, strerror(errno));
    }
    snprintf(spath, sizeof spath, "%s/plot.gp", dir);
    FILE *fs = fopen(spath, "w");
    int rc = fs == NULL ? cli_fail("plot: cannot write in %s: %s", dir, strerror(errno)) : 0;
    uint64_t max = 0;
    if (rc == 0) {
        int wpx = 900, hpx = v->kind == VIEW_TILES ? 640 : 760;
        if (v->kind == VIEW_WHOLE) {
            whole_pixels(m, &wpx, &hpx);
        }
        fprintf(fs, "set terminal pngcairo size %d,%d\nset output '%s'\n", wpx * npanels, hpx, png);
        if (npanels > 1) {
            fprintf(fs, "set multiplot layout 1,%d\n", npanels);
        }
        long cbpos = ftell(fs);
        fprintf(fs, "%-200s\n", ""); /* the colour scale, filled in below */
        for (int i = 0; i < npanels && rc == 0; i++) {
            plot_out o = {NULL, csv, i + 1, stall, 0};
            rc = write_panel(&o, ss[i], stores[i], dir, fs, v);
            max = o.max > max ? o.max : max;
        }
        colour_scale(fs, cbpos, m, stall, max);
        if (npanels > 1) {
            fprintf(fs, "unset multiplot\n");
        }
        fclose(fs);
    }
    if (rc == 0 && stall && max == 0) {
        rc = cli_fail("plot: no stall counts in %s: plot the store of `torusemu replay "
                      "--timing --keep`",
                      stores[0]);
    }
    if (rc == 0) {
        rc = run_gnuplot(spath, png);
    }
    for (int i = 1; i <= npanels; i++) {
        char path[4200];
        snprintf(path, sizeof path, "%s/data%d", dir, i);
        unlink(path);
    }
    unlink(spath);
    cli_temp_dir_remove(dir);
    return rc;
}

int cmd_plot(int argc, char **argv)
{
    static const struct option opts[] = {CLI_COMMON_OPTIONS,
                                         {"output", required_argument, NULL, 'o'},
                                         {"dims", required_argument, NULL, 'd'},
                                         {"at", required_argument, NULL, 'a'},
                                         {"tiles", required_argument, NULL, 't'},
                                         {"metric", required_argument, NULL, 'm'},
                                         {"compare", required_argument, NULL, 'c'},
                                         {"data", required_argument, NULL, 'D'},
                                         {"whole-machine", no_argument, NULL, 'w'},
                                         {NULL, 0, NULL, 0}};
    const char *png = NULL, *dims = NULL, *at_s = NULL, *tiles = NULL, *metric = "traffic",
               *store2 = NULL, *data = NULL;
    int c, done, rc, whole = 0;
    cli_begin();
    while ((c = cli_next(argc, argv, ":ho:d:a:t:m:c:w", opts, usage, &done, &rc)) != -1) {
        if (done) {
            return rc;
        }
        if (c == 'w') {
            whole = 1;
            continue;
        }
        *(c == 'o'   ? &png
          : c == 'd' ? &dims
          : c == 'a' ? &at_s
          : c == 'm' ? &metric
          : c == 'c' ? &store2
          : c == 'D' ? &data
                     : &tiles) = optarg;
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
    if (strcmp(metric, "traffic") != 0 && strcmp(metric, "stall") != 0) {
        return cli_fail("plot: --metric '%s' is neither traffic nor stall", metric);
    }
    const char *stores[2] = {argv[optind], store2};
    temu_session *ss[2] = {NULL, NULL};
    int npanels = store2 != NULL ? 2 : 1;
    temu_error err;
    rc = 0;
    for (int i = 0; i < npanels && rc == 0; i++) {
        if (temu_session_attach_ex(stores[i], TEMU_ATTACH_READONLY, &ss[i], &err) != TEMU_OK) {
            rc = cli_fail_err(&err);
        }
    }
    const temu_machine *m = rc == 0 ? temu_session_machine(ss[0]) : NULL;
    if (rc == 0 && npanels == 2 && strcmp(m->name, temu_session_machine(ss[1])->name) != 0) {
        rc = cli_fail("plot: --compare needs two stores of one machine: %s is %s, %s is %s",
                      stores[0], m->name, stores[1], temu_session_machine(ss[1])->name);
    }
    plot_view view = {tiles != NULL ? VIEW_TILES : whole ? VIEW_WHOLE : VIEW_PLANE, 0, 0, 1, {0}};
    int64_t node = 0;
    if (rc != 0) {
        /* reported */
    } else if (whole && (tiles != NULL || dims != NULL || at_s != NULL)) {
        rc = cli_fail("plot: --whole-machine draws every link: it takes no --tiles, --dims "
                      "or --at");
    } else if (tiles != NULL && temu_family_info_get(m->system)->tiles == 0) {
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
    } else if (!whole) {
        rc = plane_args(m, dims, at_s, &view.da, &view.db, view.at);
    } else {
        rc = whole_fits(m, npanels);
    }
    view.router = rc == 0 ? temu_node_router(m, node) : 0;
    FILE *csv = NULL;
    if (rc == 0 && data != NULL) {
        csv = fopen(data, "w");
        rc = csv == NULL ? cli_fail("plot: cannot write %s: %s", data, strerror(errno)) : 0;
    }
    if (rc == 0) {
        if (csv != NULL) {
            fprintf(csv, "panel,router,coord,link,tile,value\n");
        }
        rc = draw(ss, stores, npanels, csv, strcmp(metric, "stall") == 0, png, &view);
    }
    if (csv != NULL && fclose(csv) != 0 && rc == 0) {
        rc = cli_fail("plot: cannot write %s: %s", data, strerror(errno));
    }
    for (int i = 0; i < npanels; i++) {
        if (ss[i] != NULL) {
            temu_session_close(ss[i]);
        }
    }
    return rc;
}
