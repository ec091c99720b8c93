/*
 * mix.c - read a mix of concurrent jobs (mix.h; doc/replay.md, "Job
 * mixes").  One job a line:
 *
 *   PATTERN ranks=P [ranks-per-node=N] [at=NODE | nodes=LIST | map=FILE]
 *           [PARAMETER=VALUE]...
 *
 * Every problem is refused with the file, the line and what is wrong:
 * an unknown pattern or key, a key given twice, a bad value, a job whose
 * nodes run past the machine or are not as many as its ranks need, nodes
 * another job already has.
 */
#define _GNU_SOURCE 1
#include "mix.h"
#include "pattern_params.h"
#include "text_reader.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_KEYS 32 /* keys on one line */

typedef struct reader {
    const char *path;
    const temu_machine *m;
    int line;
    char *why;
    size_t len;
    int32_t *owner;    /* per node: the line of the job on it, 0: free (-line: listed) */
    int64_t next_node; /* default placement: after the previous job's nodes */
    temu_slot *slot;   /* every job's ranks so far */
    int64_t nslot, capslot;
    mix *x;
} reader;

/* -1 with "FILE:LINE: <fmt>" in rd->why. */
static int failf(reader *rd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int failf(reader *rd, const char *fmt, ...)
{
    int n = snprintf(rd->why, rd->len, "%s:%d: ", rd->path, rd->line);
    va_list ap;
    va_start(ap, fmt);
    if (n >= 0 && (size_t)n < rd->len) {
        vsnprintf(rd->why + n, rd->len - (size_t)n, fmt, ap);
    }
    va_end(ap);
    return -1;
}

/* A whole non-negative decimal number up to max; -1 if not. */
static int number(const char *s, int64_t max, int64_t *out)
{
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (end == s || *end != '\0' || errno != 0 || v < 0 || v > max || s[0] == '+') {
        return -1;
    }
    *out = v;
    return 0;
}

/* What one line asks for. */
typedef struct job_line {
    temu_pattern p;
    int64_t ranks, rpn, at;
    const char *nodes, *map;
} job_line;

/* KEY=VALUE into j; 0 or -1 (said). */
static int set_key(reader *rd, const char *key, const char *v, job_line *j)
{
    char why[256];
    if (strcmp(key, "ranks") == 0 || strcmp(key, "ranks-per-node") == 0) {
        int64_t *dst = strcmp(key, "ranks") == 0 ? &j->ranks : &j->rpn;
        return number(v, INT32_MAX, dst) != 0 || *dst == 0
                   ? failf(rd, "%s '%s': expected an integer from 1 to %d", key, v, INT32_MAX)
                   : 0;
    }
    if (strcmp(key, "at") == 0) {
        return number(v, INT32_MAX, &j->at) != 0
                   ? failf(rd, "at '%s': expected a node number from 0 to %d", v, INT32_MAX)
                   : 0;
    }
    if (strcmp(key, "nodes") == 0 || strcmp(key, "map") == 0) {
        *(strcmp(key, "nodes") == 0 ? &j->nodes : &j->map) = v;
        return 0;
    }
    int rc = pattern_param(key, v, &j->p, why, sizeof why);
    if (rc > 0) {
        return failf(rd,
                     "unknown key '%s' (ranks, ranks-per-node, at, nodes, map, or a pattern "
                     "parameter: grid, block, size, vars, phase, bytes, steps, fraction, seed, "
                     "compute)",
                     key);
    }
    return rc < 0 ? failf(rd, "%s", why) : 0;
}

/* The nodes of LIST ("0-15,32,40-47") into out (need entries): exactly
 * need nodes of the machine, none twice; 0 or -1 (said). */
static int node_list(reader *rd, const char *list, int64_t ranks, int64_t rpn, int64_t need,
                     int64_t *out)
{
    int64_t n = 0, nn = rd->m->nnodes;
    const char *p = list;
    while (*p != '\0') {
        char *end;
        errno = 0;
        long long a = strtoll(p, &end, 10), b;
        if (end == p || errno != 0 || *p == '-' || *p == '+') {
            return failf(rd, "nodes '%s': expected node numbers and ranges A-B, comma-separated",
                         list);
        }
        b = a;
        p = end;
        if (*p == '-') {
            errno = 0;
            b = strtoll(p + 1, &end, 10);
            if (end == p + 1 || errno != 0 || p[1] == '-' || p[1] == '+' || b < a) {
                return failf(rd, "nodes '%s': expected ranges A-B with A <= B", list);
            }
            p = end;
        }
        if (*p != '\0' && *p != ',') {
            return failf(rd, "nodes '%s': expected node numbers and ranges A-B, comma-separated",
                         list);
        }
        p += *p == ',';
        if (a < 0 || b >= nn) {
            return failf(rd, "nodes '%s': node %lld is not a node of %s (0..%lld)", list,
                         (long long)(a < 0 ? a : b), rd->m->name, (long long)nn - 1);
        }
        for (long long v = a; v <= b; v++) {
            int32_t *o = &rd->owner[v];
            if (*o == -rd->line) {
                return failf(rd, "nodes '%s': node %lld listed twice", list, v);
            }
            *o = *o == 0 ? -rd->line : *o; /* another job's stays: place() names it */
            if (n == need) {
                return failf(rd,
                             "nodes '%s': %lld ranks at %lld per node need %lld nodes, the list "
                             "has more",
                             list, (long long)ranks, (long long)rpn, (long long)need);
            }
            out[n++] = v;
        }
    }
    if (n < need) {
        return failf(rd,
                     "nodes '%s': %lld ranks at %lld per node need %lld nodes, the list has %lld",
                     list, (long long)ranks, (long long)rpn, (long long)need, (long long)n);
    }
    return 0;
}

/* Room for n more slots; 0 or -1 (said). */
static int grow(reader *rd, int64_t n)
{
    if (rd->nslot + n > INT32_MAX) {
        return failf(rd, "the jobs have more than %d ranks together", INT32_MAX);
    }
    if (rd->nslot + n > rd->capslot) {
        int64_t cap = rd->capslot ? rd->capslot : 1024;
        while (cap < rd->nslot + n) {
            cap *= 2;
        }
        temu_slot *s = realloc(rd->slot, (size_t)cap * sizeof *s);
        if (s == NULL) {
            return failf(rd, "out of memory");
        }
        rd->slot = s;
        rd->capslot = cap;
    }
    return 0;
}

/* A map file's path: as given if absolute, else next to the mix file.
 * 0, or -1 when it does not fit out (len bytes). */
static int map_path(const reader *rd, const char *map, char *out, size_t len)
{
    const char *slash = strrchr(rd->path, '/');
    int n = map[0] == '/' || slash == NULL
                ? snprintf(out, len, "%s", map)
                : snprintf(out, len, "%.*s/%s", (int)(slash - rd->path), rd->path, map);
    return n < 0 || (size_t)n >= len ? -1 : 0;
}

/* The slots of job j's ranks, appended to rd->slot; 0 or -1 (said). */
static int place(reader *rd, const job_line *j)
{
    temu_error err;
    temu_mapping one = {0};
    int64_t need = (j->ranks + j->rpn - 1) / j->rpn;
    if (temu_mapping_build(rd->m, 1, (int32_t)j->rpn, NULL, &one, &err) != TEMU_OK) {
        return failf(rd, "%s", err.message); /* ranks per node the machine does not have */
    }
    temu_mapping_free(&one);
    if (need > rd->m->nnodes) { /* before grow() asks for room for all of them */
        return failf(rd, "%lld ranks at %lld per node need %lld nodes: %s has %lld",
                     (long long)j->ranks, (long long)j->rpn, (long long)need, rd->m->name,
                     (long long)rd->m->nnodes);
    }
    if (grow(rd, j->ranks) != 0) {
        return -1;
    }
    temu_slot *s = rd->slot + rd->nslot;
    if (j->map != NULL) {
        char path[PATH_MAX + 1];
        temu_mapping jm;
        if (map_path(rd, j->map, path, sizeof path) != 0) { /* not a shorter path's file */
            return failf(rd, "map=%.40s...: the path is longer than %d bytes", j->map, PATH_MAX);
        }
        if (temu_mapping_build(rd->m, (int32_t)j->ranks, (int32_t)j->rpn, path, &jm, &err) !=
            TEMU_OK) {
            return failf(rd, "map=%s: %s", j->map, err.message);
        }
        memcpy(s, jm.slot, (size_t)j->ranks * sizeof *s);
        temu_mapping_free(&jm);
    } else {
        int64_t *nodes = malloc((size_t)need * sizeof *nodes);
        if (nodes == NULL) {
            return failf(rd, "out of memory");
        }
        if (j->nodes != NULL) {
            if (node_list(rd, j->nodes, j->ranks, j->rpn, need, nodes) != 0) {
                free(nodes);
                return -1;
            }
        } else {
            int64_t first = j->at >= 0 ? j->at : rd->next_node;
            if (first + need > rd->m->nnodes) {
                free(nodes);
                return failf(rd,
                             "%lld ranks at %lld per node need %lld nodes from node %lld: past "
                             "the last node of %s (%lld)",
                             (long long)j->ranks, (long long)j->rpn, (long long)need,
                             (long long)first, rd->m->name, (long long)rd->m->nnodes - 1);
            }
            for (int64_t i = 0; i < need; i++) {
                nodes[i] = first + i;
            }
        }
        for (int64_t i = 0; i < j->ranks; i++) {
            s[i].node = (int32_t)nodes[i / j->rpn];
            s[i].t = (int32_t)(i % j->rpn);
        }
        free(nodes);
    }
    for (int64_t i = 0; i < j->ranks; i++) {
        int32_t *o = &rd->owner[s[i].node];
        if (*o > 0 && *o != rd->line) {
            return failf(rd, "node %d is also a node of the job on line %d", s[i].node, *o);
        }
        *o = rd->line;
        rd->next_node = s[i].node + 1 > rd->next_node ? s[i].node + 1 : rd->next_node;
    }
    rd->nslot += j->ranks;
    return 0;
}

/* One job line (tokens separated by blanks) into rd->x; 0 or -1 (said). */
static int job(reader *rd, char *text)
{
    char *save = NULL, *tok = strtok_r(text, " \t\r\n", &save);
    const char *keys[MAX_KEYS];
    int nkeys = 0;
    job_line j;
    memset(&j, 0, sizeof j);
    j.rpn = 1;
    j.at = -1;
    j.p.kind = temu_pattern_parse_name(tok);
    if (j.p.kind < 0) {
        return failf(rd,
                     "unknown pattern '%s' (fft, halo, gpcnet, random, transpose, tornado, "
                     "bisection, neighbor)",
                     tok);
    }
    while ((tok = strtok_r(NULL, " \t\r\n", &save)) != NULL) {
        char *eq = strchr(tok, '=');
        if (eq == NULL || eq == tok || eq[1] == '\0') {
            return failf(rd, "'%s': expected KEY=VALUE", tok);
        }
        *eq = '\0';
        for (int k = 0; k < nkeys; k++) {
            if (strcmp(keys[k], tok) == 0) {
                return failf(rd, "%s given twice", tok);
            }
        }
        if (nkeys == MAX_KEYS) {
            return failf(rd, "more than %d keys", MAX_KEYS);
        }
        keys[nkeys++] = tok;
        if (set_key(rd, tok, eq + 1, &j) != 0) {
            return -1;
        }
    }
    if (j.ranks == 0) {
        return failf(rd, "ranks=P missing (the job's number of ranks)");
    }
    if ((j.at >= 0) + (j.nodes != NULL) + (j.map != NULL) > 1) {
        return failf(rd, "at=, nodes= and map= exclude each other (one placement per job)");
    }
    j.p.first_rank = (int32_t)rd->nslot;
    j.p.nranks = (int32_t)j.ranks;
    if (place(rd, &j) != 0) {
        return -1;
    }
    mix *x = rd->x;
    mix_job *grown = realloc(x->job, (size_t)(x->njobs + 1) * sizeof *grown);
    if (grown == NULL) {
        return failf(rd, "out of memory");
    }
    x->job = grown;
    x->job[x->njobs++] = (mix_job){j.p, (int32_t)j.rpn, rd->line};
    return 0;
}

void mix_label(const char *path, const mix_job *j, char *out, size_t len)
{
    snprintf(out, len, "%s:%d", path, j->line);
}

void mix_free(mix *x)
{
    free(x->job);
    x->job = NULL;
    x->njobs = 0;
    temu_mapping_free(&x->map);
}

int mix_read(const char *path, const temu_machine *m, mix *out, char *why, size_t len)
{
    reader rd = {path, m, 0, why, len, NULL, 0, NULL, 0, 0, out};
    memset(out, 0, sizeof *out);
    FILE *f = fopen(path, "r");
    if (f == NULL) {
        snprintf(why, len, "%s: %s", path, strerror(errno));
        return -1;
    }
    rd.owner = calloc((size_t)m->nnodes, sizeof *rd.owner);
    text_reader in;
    text_reader_init(&in, f, path);
    int rc = rd.owner == NULL ? failf(&rd, "out of memory") : 0, got = 0;
    while (rc == 0 && (got = text_reader_next(&in, why, len)) == 1) {
        char *buf = in.line;
        rd.line = (int)in.lineno;
        buf[strcspn(buf, "#")] = '\0'; /* a comment, whole line or after the job */
        size_t skip = strspn(buf, " \t\r\n");
        if (buf[skip] != '\0') {
            rc = job(&rd, buf + skip);
        }
    }
    if (rc == 0 && got < 0) {
        rc = -1; /* a NUL byte or a read error, said in why */
    } else if (rc == 0 && out->njobs == 0) {
        snprintf(why, len, "%s: no job (one a line: PATTERN ranks=P [KEY=VALUE]...)", path);
        rc = -1;
    }
    text_reader_free(&in);
    fclose(f);
    free(rd.owner);
    if (rc == 0) {
        int32_t rpn = 1;
        for (int i = 0; i < out->njobs; i++) {
            rpn = out->job[i].rpn > rpn ? out->job[i].rpn : rpn;
        }
        out->map = (temu_mapping){(int32_t)rd.nslot, rpn, rd.slot};
        return 0;
    }
    free(rd.slot);
    mix_free(out);
    return -1;
}
