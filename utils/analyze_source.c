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
#include "text_reader.h"
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

#define BASES AN_COUNTERS /* a d-link's columns: an_counter_names, in these units */
static const char *const base_units[BASES] = {"B", "1", "ns", "ns"};
#define WARN_MAX 20 /* warnings shown; the rest are counted */
static const char *const dir_names[AN_DIRS] = {"X-", "X+", "Y-", "Y+", "Z-", "Z+"};

struct an_source {
    temu_machine machine;
    temu_series_reader *series; /* series input, or NULL */
    /* LDMS CSV */
    FILE *f;
    char name[512];
    text_reader in; /* its lines */
    int nfields;
    int col_time, col_comp;
    int col[AN_DIRS][BASES];
    int col_out, col_in;     /* the nic metric set's columns, -1 when absent */
    int have_row;            /* a row read ahead, of the next sample */
    int64_t row_sec, row_ps; /* its rounded second, its time (ps, from base) */
    int64_t row_router, row_node;
    uint64_t row_val[AN_DIRS][BASES];
    uint64_t row_out, row_in;
    long row_line;
    int64_t base_sec; /* times count from here */
    int started;
    /* what each sample is checked against (check_sample) */
    an_frame last;        /* the previous sample */
    long *router_line;    /* per router: the line of the row that gave it */
    int64_t *router_node; /* per router: that row's node */
    int64_t *prev_node;   /* per router: the node that gave the previous sample, or -1 */
    long *node_line;      /* per node: the line of its row */
    uint64_t samples;     /* samples read */
    uint64_t resets, over, warned;
    int ended; /* the last sample was read */
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
    f->stall_unit_ps = 1;
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

/* -------------------------------------------------------------- checks */

/* A warning about the input on stderr; after WARN_MAX of them only
 * counted (check_end says how many). */
static void warn(an_source *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void warn(an_source *s, const char *fmt, ...)
{
    va_list ap;
    if (s->warned++ >= WARN_MAX) {
        return;
    }
    fprintf(stderr, "torusemu: analyze: ");
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

/* Where the sample of router r came from, for messages: "FILE:LINE: node
 * N (Gemini G)" for LDMS, "FILE, snapshot K: Gemini G" for a series.
 * node >= 0 names a node's own sample (its NIC counters) instead. */
static void where(const an_source *s, int64_t r, int64_t node, char *buf, size_t len)
{
    char gemini[64];
    int64_t router = node >= 0 ? temu_node_router(&s->machine, node) : r;
    temu_router_name(&s->machine, router, gemini, sizeof gemini);
    if (s->series != NULL && node >= 0) {
        snprintf(buf, len, "%s, snapshot %llu: node %lld (Gemini %s)", s->name,
                 (unsigned long long)s->samples - 1, (long long)node, gemini);
    } else if (s->series != NULL) {
        snprintf(buf, len, "%s, snapshot %llu: Gemini %s", s->name,
                 (unsigned long long)s->samples - 1, gemini);
    } else {
        snprintf(buf, len, "%s:%ld: node %lld (Gemini %s)", s->name,
                 node >= 0 ? s->node_line[node] : s->router_line[r],
                 (long long)(node >= 0 ? node : s->router_node[r]), gemini);
    }
}

/* A counter's value in the unit of the input: "1234 B", "1234 ns" (LDMS),
 * "1234 cycles" (a series counts router cycles). */
static void counter_text(const an_source *s, int counter, uint64_t v, char *buf, size_t len)
{
    const char *unit = counter == AN_TRAFFIC ? " B" : "";
    if (counter == AN_INQ || counter == AN_CREDIT) {
        unit = s->series != NULL ? " cycles" : " ns";
    }
    snprintf(buf, len, "%llu%s", (unsigned long long)v, unit);
}

/* Why a counter of the input goes down. */
static const char *restart_why(const an_source *s)
{
    return s->series != NULL ? "the store was zeroed, as torusemu reset does"
                             : "a reboot resets gpcdr's counters";
}

static uint64_t link_counter(const an_link *l, int counter)
{
    const uint64_t v[AN_COUNTERS] = {l->bytes, l->packets, l->inq, l->credit};
    return v[counter];
}

/* Say why counter c of d-link (r, d) has no figure for the interval
 * ending at sample b. */
static void warn_dropped(an_source *s, int64_t r, int d, int c, int reset, const an_metrics *x,
                         const an_frame *b)
{
    char loc[700], was[40], now[40];
    where(s, r, -1, loc, sizeof loc);
    uint64_t before = link_counter(&s->last.links[r * AN_DIRS + d], c);
    uint64_t after = link_counter(&b->links[r * AN_DIRS + d], c);
    counter_text(s, c, before, was, sizeof was);
    counter_text(s, c, after, now, sizeof now);
    if (reset) {
        warn(s,
             "%s: %s_%s went down from %s to %s: the counter restarted (%s); that interval "
             "is left out for it",
             loc, dir_names[d], an_counter_names[c], was, now, restart_why(s));
        return;
    }
    counter_text(s, c, after - before, now, sizeof now);
    warn(s,
         "%s: %s_%s rose by %s in %.6g s: %s %.6g %%, more than the d-link can %s; that "
         "interval is left out for it",
         loc, dir_names[d], an_counter_names[c], now, (double)x->dt_ps * 1e-12,
         c == AN_TRAFFIC ? "P_bu" : "P_Ts",
         c == AN_TRAFFIC ? x->pbu
         : c == AN_INQ   ? x->pts_inq
                         : x->pts_credit,
         c == AN_TRAFFIC ? "carry" : "stall");
}

/* The d-links of router r in sample f against the previous sample: the
 * counters that restarted or rose impossibly are dropped and said. */
static void check_router(an_source *s, an_frame *f, int64_t r)
{
    for (int d = 0; d < AN_DIRS; d++) {
        an_link *l = &f->links[r * AN_DIRS + d];
        an_metrics x;
        l->reset = l->over = 0;
        if (temu_link_neighbor(&s->machine, r, d) < 0 ||
            an_dlink_check(&s->machine, r, d, &s->last, f, &x, &l->reset, &l->over) != 0) {
            continue; /* no such link, or no interval */
        }
        for (int c = 0; c < AN_COUNTERS; c++) {
            if ((l->reset | l->over) & AN_BIT(c)) {
                warn_dropped(s, r, d, c, (l->reset & AN_BIT(c)) != 0, &x, f);
            }
            s->resets += (l->reset & AN_BIT(c)) != 0;
            s->over += (l->over & AN_BIT(c)) != 0;
        }
    }
}

/* Node n's NIC counters in sample f against the previous sample. */
static void check_node(an_source *s, an_frame *f, int64_t n)
{
    static const char *const names[2] = {"totaloutput_optA", "totalinput"};
    const uint64_t was[2] = {s->last.nic[n].out, s->last.nic[n].in};
    const uint64_t now[2] = {f->nic[n].out, f->nic[n].in};
    const unsigned bit[2] = {AN_NIC_OUT, AN_NIC_IN};
    f->nic[n].reset = 0;
    if (!f->node_seen[n] || !s->last.node_seen[n] || f->time_ps <= s->last.time_ps) {
        return;
    }
    for (int k = 0; k < 2; k++) {
        if (now[k] < was[k]) {
            char loc[700];
            where(s, -1, n, loc, sizeof loc);
            warn(s,
                 "%s: %s went down from %llu B to %llu B: the counter restarted (%s); that "
                 "interval is left out for it",
                 loc, names[k], (unsigned long long)was[k], (unsigned long long)now[k],
                 restart_why(s));
            f->nic[n].reset |= bit[k];
            s->resets++;
        }
    }
}

/* A sample read whole into f: checked against the previous one, then
 * kept as the previous one. */
static void check_sample(an_source *s, an_frame *f)
{
    const temu_machine *m = &s->machine;
    s->samples++;
    for (int64_t r = 0; r < m->nrouters; r++) {
        check_router(s, f, r);
        if (f->t_ps[r] >= 0) {
            s->prev_node[r] = s->router_node[r];
        }
    }
    for (int64_t n = 0; n < m->nnodes; n++) {
        check_node(s, f, n);
    }
    s->last.time_ps = f->time_ps;
    s->last.stall_unit_ps = f->stall_unit_ps;
    memcpy(s->last.t_ps, f->t_ps, (size_t)m->nrouters * sizeof *f->t_ps);
    memcpy(s->last.links, f->links, (size_t)m->nrouters * AN_DIRS * sizeof *f->links);
    memcpy(s->last.nic, f->nic, (size_t)m->nnodes * sizeof *f->nic);
    memcpy(s->last.node_seen, f->node_seen, (size_t)m->nnodes);
}

/* After the last sample: what was left out, in all, and a series that
 * was cut short. */
static void check_end(an_source *s)
{
    if (s->resets + s->over > 0) {
        fprintf(stderr,
                "torusemu: analyze: %s: in all %llu counter resets and %llu values above "
                "100 %% left out of the figures",
                s->name, (unsigned long long)s->resets, (unsigned long long)s->over);
        if (s->warned > WARN_MAX) {
            fprintf(stderr, " (%llu warnings not shown)",
                    (unsigned long long)(s->warned - WARN_MAX));
        }
        fputc('\n', stderr);
    }
    if (s->series != NULL && !temu_series_complete(s->series)) {
        fprintf(stderr,
                "torusemu: analyze: %s is incomplete (no end record: its writer did not "
                "finish): read %llu snapshots, up to the last whole one\n",
                s->name, (unsigned long long)s->samples);
    }
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
    f->stall_unit_ps = PS_PER_CYCLE; /* stalls in router cycles */
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
                l->inq += c[TEMU_TILE_INQ_STALL]; /* router cycles */
                l->credit += c[TEMU_TILE_CREDIT_STALL];
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

/* Read the next line that is not blank into s->in.line: 1, 0 at the end
 * of the file, -1 with the reason in why (a NUL byte, a read error). */
static int next_line(an_source *s, char *why, size_t len)
{
    int rc;
    while ((rc = text_reader_next(&s->in, why, len)) == 1) {
        if (strspn(s->in.line, " \t\r\n") != s->in.len) {
            return 1; /* blank lines are skipped */
        }
    }
    return rc;
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
        size_t n = strlen(an_counter_names[k]);
        if (strncmp(b, an_counter_names[k], n) == 0 && (b[n] == '\0' || b[n] == ' ')) {
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
    int got = next_line(s, why, len);
    if (got < 0) {
        return -1;
    }
    if (got == 0 || s->in.line[0] != '#') {
        return fail(why, len,
                    "%s: not an LDMS CSV file: the first line is not a '#Time,...' header "
                    "(and the file is no torusemu series)",
                    s->name);
    }
    int n = split(s->in.line + 1, field, MAX_FIELDS);
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
                            dir_names[d], an_counter_names[b], base_units[b]);
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
                s->name, s->in.lineno);
}

/* Read the next data row into s->row_*; 1, 0 at the end, -1 on error. */
static int csv_row(an_source *s, char *why, size_t len)
{
    char *field[MAX_FIELDS];
    int got = next_line(s, why, len);
    if (got <= 0) {
        return got;
    }
    if (s->in.line[0] == '#') {
        return fail(why, len, "%s:%ld: a second header line", s->name, s->in.lineno);
    }
    int n = split(s->in.line, field, MAX_FIELDS);
    if (n != s->nfields) {
        return fail(why, len, "%s:%ld: %d fields, the header has %d", s->name, s->in.lineno,
                    n < 0 ? MAX_FIELDS + 1 : n, s->nfields);
    }
    int64_t sec, usec;
    uint64_t nid;
    if (parse_time(field[s->col_time], &sec, &usec) != 0) {
        return fail(why, len, "%s:%ld: Time '%s' is not seconds[.fraction]", s->name, s->in.lineno,
                    field[s->col_time]);
    }
    if (parse_u64(field[s->col_comp], &nid) != 0 || nid >= (uint64_t)s->machine.nnodes) {
        return fail(why, len, "%s:%ld: component_id '%s' is not a node of %s (0..%lld)", s->name,
                    s->in.lineno, field[s->col_comp], s->machine.name,
                    (long long)s->machine.nnodes - 1);
    }
    for (int d = 0; d < AN_DIRS; d++) {
        for (int b = 0; b < BASES; b++) {
            if (parse_u64(field[s->col[d][b]], &s->row_val[d][b]) != 0) {
                return fail(why, len, "%s:%ld: %s_%s '%s' is not a whole number", s->name,
                            s->in.lineno, dir_names[d], an_counter_names[b], field[s->col[d][b]]);
            }
        }
    }
    s->row_out = s->row_in = 0;
    if (s->col_out >= 0 && (parse_u64(field[s->col_out], &s->row_out) != 0 ||
                            parse_u64(field[s->col_in], &s->row_in) != 0)) {
        return fail(why, len,
                    "%s:%ld: totaloutput_optA '%s' or totalinput '%s' is not a whole "
                    "number",
                    s->name, s->in.lineno, field[s->col_out], field[s->col_in]);
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
                    s->name, s->in.lineno, field[s->col_time]);
    }
    s->row_ps = (sec - s->base_sec) * PS_PER_S + usec * 1000000;
    s->row_node = (int64_t)nid;
    s->row_router = temu_node_router(&s->machine, (int64_t)nid);
    s->row_line = s->in.lineno;
    s->have_row = 1;
    return 1;
}

/* The row read ahead into f.  Both nodes of a Gemini report its link
 * counters; after one of them rebooted their gpcdr counters differ, so a
 * Gemini's samples keep coming from the node that gave its previous one
 * while that node reports (else the last row of the sample serves). */
static void apply_row(an_source *s, an_frame *f)
{
    int64_t r = s->row_router;
    an_link *l = &f->links[r * AN_DIRS];
    s->have_row = 0;
    if (s->col_out >= 0) {
        f->nic[s->row_node].out = s->row_out;
        f->nic[s->row_node].in = s->row_in;
        f->node_seen[s->row_node] = 1;
        s->node_line[s->row_node] = s->row_line;
    }
    if (f->t_ps[r] >= 0 && s->router_node[r] == s->prev_node[r]) {
        return; /* this sample of the Gemini already came from that node */
    }
    f->t_ps[r] = s->row_ps;
    s->router_line[r] = s->row_line;
    s->router_node[r] = s->row_node;
    for (int d = 0; d < AN_DIRS; d++) {
        l[d].bytes = s->row_val[d][AN_TRAFFIC];
        l[d].packets = s->row_val[d][AN_PACKETS];
        l[d].inq = s->row_val[d][AN_INQ]; /* ns */
        l[d].credit = s->row_val[d][AN_CREDIT];
    }
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
    f->stall_unit_ps = 1000; /* stalls in ns */
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

/* What the checks keep for the machine: the previous sample and where
 * each router's and node's sample came from.  0, or -1 out of memory. */
static int source_alloc(an_source *s)
{
    const temu_machine *m = &s->machine;
    s->router_line = calloc((size_t)m->nrouters, sizeof *s->router_line);
    s->router_node = calloc((size_t)m->nrouters, sizeof *s->router_node);
    s->prev_node = malloc((size_t)m->nrouters * sizeof *s->prev_node);
    s->node_line = calloc((size_t)m->nnodes, sizeof *s->node_line);
    if (s->router_line == NULL || s->router_node == NULL || s->prev_node == NULL ||
        s->node_line == NULL) {
        return -1;
    }
    for (int64_t r = 0; r < m->nrouters; r++) {
        s->prev_node[r] = -1;
    }
    return an_frame_alloc(m, &s->last);
}

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
        text_reader_init(&s->in, f, s->name);
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
    if (rc == 0 && source_alloc(s) != 0) {
        rc = fail(why, len, "out of memory for %s", s->machine.name);
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
    int rc = s->series != NULL ? series_next(s, f, why, len) : csv_next(s, f, why, len);
    if (rc == 1) {
        check_sample(s, f);
    } else if (rc == 0 && !s->ended) {
        s->ended = 1;
        check_end(s);
    }
    return rc;
}

int an_source_has_nic(const an_source *s)
{
    return s->series != NULL || s->col_out >= 0;
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
    an_frame_free(&s->last);
    free(s->router_line);
    free(s->router_node);
    free(s->prev_node);
    free(s->node_line);
    text_reader_free(&s->in);
    free(s);
}
