/*
 * analyze_source.c - d-link samples from a series file or from an LDMS
 * CSV file of gpcdr link metrics (analyze_source.h).
 *
 * Series: at each snapshot, each Gemini d-link's counters are the sums over
 * its tiles (temu_gemini_link_tiles, Pedretti et al. CUG 2013 Fig. 3), as
 * gpcdr sums them: traffic = 3 bytes per phit of VC0 and VC1, packets of
 * both VCs, and the stall cycles of the 800 MHz router clock, 1250 ps each.
 *
 * LDMS CSV (store_csv of the cray_gemini_r sampler; reference/gemini
 * REPORT.md section 2.3): a header line "#Time,Time_usec,ProducerName,
 * component_id,job_id,..." naming, among other columns, "<DIR>_traffic (B)",
 * "<DIR>_packets (1)", "<DIR>_inq_stall (ns)" and "<DIR>_credit_stall (ns)"
 * for DIR in X+ X- Y+ Y- Z+ Z-, and optionally the nic metric set's
 * "totaloutput_optA (B)" and "totalinput (B)", then one row per node and
 * sample with cumulative values.  Rows whose Time rounds to the same second are one
 * sample (LDMS samples every node at once, seed 004 section II.D); rows
 * must come in time order, as store_csv writes them.
 */
#include "analyze_source.h"
#include "torusemu_series.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#define PS_PER_CYCLE 1250 /* Gemini router clock, 800 MHz */
#define NIC_BYTES 16      /* bytes per NIC flit (gpcdr's nic metric set) */
#define PS_PER_S 1000000000000LL
#define MAX_FIELDS 512
#define MAX_SPAN_S (100LL * 86400) /* a CSV may span 100 days */

enum { B_TRAFFIC = 0, B_PACKETS, B_INQ, B_CREDIT, BASES };
static const char *const base_names[BASES] = {"traffic", "packets", "inq_stall", "credit_stall"};
static const char *const base_units[BASES] = {"B", "1", "ns", "ns"};
static const char *const dir_names[AN_DIRS] = {"X-", "X+", "Y-", "Y+", "Z-", "Z+"};

struct an_source {
    temu_machine machine;
    temu_series_reader *series; /* series input, or NULL */
    /* LDMS CSV */
    FILE *f;
    char name[512];
    char *line;
    size_t cap;
    long lineno;
    int nfields;
    int col_time, col_comp;
    int col[AN_DIRS][BASES];
    int col_out, col_in;     /* the nic metric set's columns, -1 when absent */
    int have_row;            /* a row read ahead, of the next sample */
    int64_t row_sec, row_ps; /* its rounded second, its time (ps, from base) */
    int64_t row_router, row_node;
    uint64_t row_val[AN_DIRS][BASES];
    uint64_t row_out, row_in;
    int64_t base_sec; /* times count from here */
    int started;
};

static int fail(char *why, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static int fail(char *why, size_t len, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, len, fmt, ap);
    va_end(ap);
    return -1;
}

int an_frame_alloc(const temu_machine *m, an_frame *f)
{
    f->time_ps = 0;
    f->t_ps = malloc((size_t)m->nrouters * sizeof *f->t_ps);
    f->links = calloc((size_t)m->nrouters * AN_DIRS, sizeof *f->links);
    f->nic = calloc((size_t)m->nnodes, sizeof *f->nic);
    f->node_seen = calloc((size_t)m->nnodes, 1);
    if (f->t_ps == NULL || f->links == NULL || f->nic == NULL || f->node_seen == NULL) {
        an_frame_free(f);
        return -1;
    }
    for (int64_t r = 0; r < m->nrouters; r++) {
        f->t_ps[r] = -1;
    }
    return 0;
}

void an_frame_free(an_frame *f)
{
    free(f->t_ps);
    free(f->links);
    free(f->nic);
    free(f->node_seen);
    memset(f, 0, sizeof *f);
}

const temu_machine *an_source_machine(const an_source *s)
{
    return &s->machine;
}

const char *an_source_kind(const an_source *s)
{
    return s->series != NULL ? "series" : "ldms-csv";
}

/* ---------------------------------------------------------------- series */

static int series_next(an_source *s, an_frame *f, char *why, size_t len)
{
    const temu_machine *m = &s->machine;
    int64_t t;
    const uint64_t *v;
    temu_error err;
    int rc = temu_series_next(s->series, &t, &v, &err);
    if (rc <= 0) {
        return rc == 0 ? 0 : fail(why, len, "%s", err.message);
    }
    f->time_ps = t;
    for (int64_t n = 0; n < m->nnodes; n++) {
        /* gpcdr's totaloutput_optA and totalinput from the NIC counters the
         * model fills (doc/model.md): requests and target responses out,
         * request data and responses in */
        const uint64_t *c = v + temu_idx_gemini_nic(m, n, 0);
        f->nic[n].out = NIC_BYTES * (c[TEMU_NIC_ORB_VC0_FLITS] + c[TEMU_NIC_NPT_FLITS] -
                                     c[TEMU_NIC_ORB_VC0_PKTS] - c[TEMU_NIC_NPT_PKTS]);
        f->nic[n].in = NIC_BYTES * (c[TEMU_NIC_RAT_DATA_FLITS_VC0] + c[TEMU_NIC_ORB_VC1_FLITS] -
                                    c[TEMU_NIC_ORB_VC1_PKTS]);
        f->node_seen[n] = 1;
    }
    for (int64_t r = 0; r < m->nrouters; r++) {
        f->t_ps[r] = t;
        for (int d = 0; d < AN_DIRS; d++) {
            int tiles[TEMU_GEMINI_TILES], n = temu_gemini_link_tiles(d, tiles);
            an_link *l = &f->links[r * AN_DIRS + d];
            memset(l, 0, sizeof *l);
            for (int i = 0; i < n; i++) {
                const uint64_t *c = v + temu_idx_gemini_tile(m, r, tiles[i], 0);
                l->bytes += 3 * (c[TEMU_TILE_VC0_PHITS] + c[TEMU_TILE_VC1_PHITS]);
                l->packets += c[TEMU_TILE_VC0_PKTS] + c[TEMU_TILE_VC1_PKTS];
                l->inq_ps += PS_PER_CYCLE * c[TEMU_TILE_INQ_STALL];
                l->credit_ps += PS_PER_CYCLE * c[TEMU_TILE_CREDIT_STALL];
            }
        }
    }
    return 1;
}

/* -------------------------------------------------------------- LDMS CSV */

/* Split s at commas in place, blanks around each field trimmed. */
static int split(char *s, char **field, int max)
{
    int n = 0;
    for (char *p = s;; p++) {
        char *end = strchr(p, ',');
        if (end != NULL) {
            *end = '\0';
        }
        while (*p == ' ' || *p == '\t') {
            p++;
        }
        size_t k = strlen(p);
        while (k > 0 &&
               (p[k - 1] == ' ' || p[k - 1] == '\t' || p[k - 1] == '\r' || p[k - 1] == '\n')) {
            p[--k] = '\0';
        }
        if (n == max) {
            return -1;
        }
        field[n++] = p;
        if (end == NULL) {
            return n;
        }
        p = end;
    }
}

/* Read the next line into s->line; 1, or 0 at the end of the file. */
static int next_line(an_source *s)
{
    for (;;) {
        errno = 0;
        ssize_t n = getline(&s->line, &s->cap, s->f);
        if (n < 0) {
            return 0;
        }
        s->lineno++;
        if (strspn(s->line, " \t\r\n") != (size_t)n) {
            return 1; /* blank lines are skipped */
        }
    }
}

/* "<DIR>_<base>" with an optional " (unit)": sets *dir and *base, or -1
 * when the column is not one of ours (ignored); -2 on a wrong unit. */
static int metric_column(const char *name, int *dir, int *base, const char **unit)
{
    *dir = *base = -1;
    for (int d = 0; d < AN_DIRS; d++) {
        if (strncmp(name, dir_names[d], 2) == 0 && name[2] == '_') {
            *dir = d;
        }
    }
    if (*dir < 0) {
        return -1;
    }
    const char *b = name + 3;
    for (int k = 0; k < BASES; k++) {
        size_t n = strlen(base_names[k]);
        if (strncmp(b, base_names[k], n) == 0 && (b[n] == '\0' || b[n] == ' ')) {
            *base = k;
            const char *u = b + n + strspn(b + n, " ");
            *unit = u;
            if (*u == '\0') {
                return 0;
            }
            size_t ul = strlen(base_units[k]);
            return u[0] == '(' && strncmp(u + 1, base_units[k], ul) == 0 && u[1 + ul] == ')' &&
                           u[2 + ul] == '\0'
                       ? 0
                       : -2;
        }
    }
    return -1;
}

/* The nic metric set's column `base`, bare or with its unit "(B)". */
static int nic_column(const char *name, const char *base)
{
    size_t n = strlen(base);
    return strncmp(name, base, n) == 0 && (name[n] == '\0' || strcmp(name + n, " (B)") == 0);
}

static int csv_header(an_source *s, char *why, size_t len)
{
    char *field[MAX_FIELDS];
    if (!next_line(s) || s->line[0] != '#') {
        return fail(why, len,
                    "%s: not an LDMS CSV file: the first line is not a '#Time,...' header "
                    "(and the file is no torusemu series)",
                    s->name);
    }
    int n = split(s->line + 1, field, MAX_FIELDS);
    if (n < 0) {
        return fail(why, len, "%s: more than %d columns", s->name, MAX_FIELDS);
    }
    s->nfields = n;
    s->col_time = s->col_comp = s->col_out = s->col_in = -1;
    memset(s->col, -1, sizeof s->col);
    for (int i = 0; i < n; i++) {
        int d, b;
        const char *unit;
        if (strcmp(field[i], "Time") == 0) {
            s->col_time = i;
        } else if (strcmp(field[i], "component_id") == 0) {
            s->col_comp = i;
        } else if (nic_column(field[i], "totaloutput_optA")) {
            s->col_out = i;
        } else if (nic_column(field[i], "totalinput")) {
            s->col_in = i;
        } else {
            int rc = metric_column(field[i], &d, &b, &unit);
            if (rc == -2) {
                return fail(why, len, "%s: column '%s': the unit should be (%s)", s->name, field[i],
                            base_units[b]);
            }
            if (rc == 0) {
                s->col[d][b] = i;
            }
        }
    }
    if (s->col_time < 0 || s->col_comp < 0) {
        return fail(why, len, "%s: the header lacks the %s column", s->name,
                    s->col_time < 0 ? "Time" : "component_id");
    }
    if ((s->col_out < 0) != (s->col_in < 0)) {
        return fail(why, len, "%s: the header has only one of totaloutput_optA and totalinput",
                    s->name);
    }
    for (int d = 0; d < AN_DIRS; d++) {
        for (int b = 0; b < BASES; b++) {
            if (s->col[d][b] < 0) {
                return fail(why, len, "%s: the header lacks the column %s_%s (%s)", s->name,
                            dir_names[d], base_names[b], base_units[b]);
            }
        }
    }
    return 0;
}

/* A plain decimal uint64; 0, or -1. */
static int parse_u64(const char *s, uint64_t *out)
{
    uint64_t v = 0;
    if (*s == '\0') {
        return -1;
    }
    for (; *s != '\0'; s++) {
        if (*s < '0' || *s > '9' || v > (UINT64_MAX - (uint64_t)(*s - '0')) / 10) {
            return -1;
        }
        v = v * 10 + (uint64_t)(*s - '0');
    }
    *out = v;
    return 0;
}

/* "SECONDS[.FRACTION]" into seconds and microseconds (fraction cut after 6
 * digits); 0, or -1. */
static int parse_time(const char *s, int64_t *sec, int64_t *usec)
{
    char whole[24];
    const char *dot = strchr(s, '.');
    size_t n = dot != NULL ? (size_t)(dot - s) : strlen(s);
    uint64_t v;
    if (n == 0 || n >= sizeof whole) {
        return -1;
    }
    memcpy(whole, s, n);
    whole[n] = '\0';
    if (parse_u64(whole, &v) != 0 || v > (uint64_t)INT64_MAX / 2) {
        return -1;
    }
    *sec = (int64_t)v;
    *usec = 0;
    if (dot != NULL) {
        const char *p = dot + 1;
        if (*p == '\0') {
            return -1;
        }
        for (int k = 0; k < 6; k++) {
            *usec = *usec * 10 + (*p >= '0' && *p <= '9' ? *p - '0' : 0);
            if (*p >= '0' && *p <= '9') {
                p++;
            }
        }
        if (p[strspn(p, "0123456789")] != '\0') {
            return -1;
        }
    }
    return 0;
}

static int out_of_order(const an_source *s, char *why, size_t len)
{
    return fail(why, len,
                "%s:%ld: rows are not in time order (sort them by Time: LDMS's store_csv "
                "writes them in order)",
                s->name, s->lineno);
}

/* Read the next data row into s->row_*; 1, 0 at the end, -1 on error. */
static int csv_row(an_source *s, char *why, size_t len)
{
    char *field[MAX_FIELDS];
    if (!next_line(s)) {
        return 0;
    }
    if (s->line[0] == '#') {
        return fail(why, len, "%s:%ld: a second header line", s->name, s->lineno);
    }
    int n = split(s->line, field, MAX_FIELDS);
    if (n != s->nfields) {
        return fail(why, len, "%s:%ld: %d fields, the header has %d", s->name, s->lineno,
                    n < 0 ? MAX_FIELDS + 1 : n, s->nfields);
    }
    int64_t sec, usec;
    uint64_t nid;
    if (parse_time(field[s->col_time], &sec, &usec) != 0) {
        return fail(why, len, "%s:%ld: Time '%s' is not seconds[.fraction]", s->name, s->lineno,
                    field[s->col_time]);
    }
    if (parse_u64(field[s->col_comp], &nid) != 0 || nid >= (uint64_t)s->machine.nnodes) {
        return fail(why, len, "%s:%ld: component_id '%s' is not a node of %s (0..%lld)", s->name,
                    s->lineno, field[s->col_comp], s->machine.name,
                    (long long)s->machine.nnodes - 1);
    }
    for (int d = 0; d < AN_DIRS; d++) {
        for (int b = 0; b < BASES; b++) {
            if (parse_u64(field[s->col[d][b]], &s->row_val[d][b]) != 0) {
                return fail(why, len, "%s:%ld: %s_%s '%s' is not a whole number", s->name,
                            s->lineno, dir_names[d], base_names[b], field[s->col[d][b]]);
            }
        }
    }
    s->row_out = s->row_in = 0;
    if (s->col_out >= 0 && (parse_u64(field[s->col_out], &s->row_out) != 0 ||
                            parse_u64(field[s->col_in], &s->row_in) != 0)) {
        return fail(why, len,
                    "%s:%ld: totaloutput_optA '%s' or totalinput '%s' is not a whole "
                    "number",
                    s->name, s->lineno, field[s->col_out], field[s->col_in]);
    }
    s->row_sec = sec + (usec >= 500000); /* the sample it belongs to */
    if (!s->started) {
        s->base_sec = s->row_sec - 1; /* every time of the file stays >= 0 */
        s->started = 1;
    }
    if (sec < s->base_sec) {
        return out_of_order(s, why, len);
    }
    if (sec - s->base_sec > MAX_SPAN_S) {
        return fail(why, len, "%s:%ld: Time %s is more than 100 days after the first sample",
                    s->name, s->lineno, field[s->col_time]);
    }
    s->row_ps = (sec - s->base_sec) * PS_PER_S + usec * 1000000;
    s->row_node = (int64_t)nid;
    s->row_router = temu_node_router(&s->machine, (int64_t)nid);
    s->have_row = 1;
    return 1;
}

static void apply_row(an_source *s, an_frame *f)
{
    an_link *l = &f->links[s->row_router * AN_DIRS];
    f->t_ps[s->row_router] = s->row_ps;
    if (s->col_out >= 0) {
        f->nic[s->row_node].out = s->row_out;
        f->nic[s->row_node].in = s->row_in;
        f->node_seen[s->row_node] = 1;
    }
    for (int d = 0; d < AN_DIRS; d++) {
        l[d].bytes = s->row_val[d][B_TRAFFIC];
        l[d].packets = s->row_val[d][B_PACKETS];
        l[d].inq_ps = s->row_val[d][B_INQ] * 1000; /* ns */
        l[d].credit_ps = s->row_val[d][B_CREDIT] * 1000;
    }
    s->have_row = 0;
}

static int csv_next(an_source *s, an_frame *f, char *why, size_t len)
{
    int rc = s->have_row ? 1 : csv_row(s, why, len);
    if (rc <= 0) {
        return rc;
    }
    int64_t sec = s->row_sec;
    for (int64_t r = 0; r < s->machine.nrouters; r++) {
        f->t_ps[r] = -1;
    }
    memset(f->node_seen, 0, (size_t)s->machine.nnodes);
    f->time_ps = (sec - s->base_sec) * PS_PER_S;
    apply_row(s, f);
    while ((rc = csv_row(s, why, len)) == 1) {
        if (s->row_sec < sec) {
            return out_of_order(s, why, len);
        }
        if (s->row_sec > sec) {
            return 1; /* the first row of the next sample: kept for later */
        }
        apply_row(s, f);
    }
    return rc < 0 ? -1 : 1;
}

/* ------------------------------------------------------------------ API */

int an_source_open(const char *path, const char *spec, an_source **out, char *why, size_t len)
{
    char magic[8] = {0};
    temu_error err;
    *out = NULL;
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        return fail(why, len, "cannot open '%s': %s", path, strerror(errno));
    }
    size_t got = fread(magic, 1, sizeof magic, f);
    an_source *s = calloc(1, sizeof *s);
    if (s == NULL) {
        fclose(f);
        return fail(why, len, "out of memory");
    }
    snprintf(s->name, sizeof s->name, "%s", path);
    int rc = 0;
    if (got == sizeof magic && memcmp(magic, TEMU_SERIES_MAGIC, sizeof magic) == 0) {
        fclose(f);
        if (temu_series_open(path, &s->series, &err) != TEMU_OK) {
            rc = fail(why, len, "%s", err.message);
        } else if (spec != NULL) {
            rc = fail(why, len, "--machine applies to LDMS CSV input; %s names its machine (%s)",
                      path, temu_series_machine(s->series)->name);
        } else {
            s->machine = *temu_series_machine(s->series);
        }
    } else {
        rewind(f);
        s->f = f;
        if (spec == NULL) {
            rc = fail(why, len,
                      "%s is not a torusemu series; as LDMS CSV it needs --machine (the Gemini "
                      "torus it was sampled on, e.g. gemini:24x24x24)",
                      path);
        } else if (temu_machine_parse(spec, &s->machine, &err) != TEMU_OK) {
            rc = fail(why, len, "--machine: %s", err.message);
        }
    }
    if (rc == 0 && temu_family_info_get(s->machine.system)->tiles == 0) {
        rc = fail(why, len,
                  "%s is a %s machine: link-level analysis reads Gemini d-links (tiles, gpcdr)",
                  s->machine.name, temu_system_name(s->machine.system));
    }
    if (rc == 0 && s->f != NULL) {
        rc = csv_header(s, why, len);
    }
    if (rc != 0) {
        an_source_close(s);
        return -1;
    }
    *out = s;
    return 0;
}

int an_source_next(an_source *s, an_frame *f, char *why, size_t len)
{
    return s->series != NULL ? series_next(s, f, why, len) : csv_next(s, f, why, len);
}

int an_source_has_nic(const an_source *s)
{
    return s->series != NULL || s->col_out >= 0;
}

int an_source_complete(const an_source *s)
{
    return s->series == NULL || temu_series_complete(s->series);
}

void an_source_close(an_source *s)
{
    if (s == NULL) {
        return;
    }
    temu_series_reader_close(s->series);
    if (s->f != NULL) {
        fclose(s->f);
    }
    free(s->line);
    free(s);
}
