/*
 * records.c - CSV and JSON writers for the CLI's tables (records.h).
 */
#include "records.h"
#include "cli.h"

#include <stdarg.h>
#include <string.h>

int cli_parse_format(const char *s, cli_format *out)
{
    static const char *const names[] = {"table", "csv", "json"};
    for (int i = 0; i < 3; i++) {
        if (strcmp(s, names[i]) == 0) {
            *out = (cli_format)i;
            return 0;
        }
    }
    return cli_fail("--format: '%s' is not one of table, csv, json", s);
}

void cli_rec_begin(cli_rec *r, FILE *f, cli_format format, const char *const *cols, int ncols)
{
    memset(r, 0, sizeof *r);
    r->f = f;
    r->format = format;
    r->cols = cols;
    r->ncols = ncols < CLI_REC_MAX_COLS ? ncols : CLI_REC_MAX_COLS;
    if (format == CLI_FORMAT_CSV) {
        for (int i = 0; i < r->ncols; i++) {
            fprintf(f, "%s%s", i ? "," : "", cols[i]);
        }
        fputc('\n', f);
    } else {
        fputc('[', f);
    }
}

void cli_rec_cell(cli_rec *r, const char *fmt, ...)
{
    va_list ap;
    if (r->ncells >= r->ncols) {
        return;
    }
    va_start(ap, fmt);
    vsnprintf(r->cell[r->ncells++], CLI_REC_CELL, fmt, ap);
    va_end(ap);
}

/* JSON numbers: -?digits with an optional fraction (what the tables print). */
static int is_number(const char *s)
{
    const char *p = s + (*s == '-');
    size_t n = strspn(p, "0123456789");
    if (n == 0 || (n > 1 && p[0] == '0')) {
        return 0;
    }
    p += n;
    if (*p == '.') {
        size_t k = strspn(p + 1, "0123456789");
        if (k == 0) {
            return 0;
        }
        p += 1 + k;
    }
    return *p == '\0';
}

void cli_json_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s != '\0'; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') {
            fprintf(f, "\\%c", c);
        } else if (c < 0x20) {
            fprintf(f, "\\u%04x", c);
        } else {
            fputc(c, f);
        }
    }
    fputc('"', f);
}

static void csv_cell(FILE *f, const char *s)
{
    if (strpbrk(s, ",\"\r\n") == NULL) {
        fputs(s, f);
        return;
    }
    fputc('"', f);
    for (; *s != '\0'; s++) {
        if (*s == '"') {
            fputc('"', f);
        }
        fputc(*s, f);
    }
    fputc('"', f);
}

void cli_rec_row(cli_rec *r)
{
    for (int i = r->ncells; i < r->ncols; i++) {
        r->cell[i][0] = '\0';
    }
    if (r->format == CLI_FORMAT_CSV) {
        for (int i = 0; i < r->ncols; i++) {
            if (i) {
                fputc(',', r->f);
            }
            csv_cell(r->f, r->cell[i]);
        }
        fputc('\n', r->f);
    } else {
        fputs(r->nrows ? ",\n {" : "\n {", r->f);
        for (int i = 0; i < r->ncols; i++) {
            fputs(i ? ", " : "", r->f);
            cli_json_string(r->f, r->cols[i]);
            fputs(": ", r->f);
            if (r->cell[i][0] == '\0') {
                fputs("null", r->f);
            } else if (is_number(r->cell[i])) {
                fputs(r->cell[i], r->f);
            } else {
                cli_json_string(r->f, r->cell[i]);
            }
        }
        fputc('}', r->f);
    }
    r->nrows++;
    r->ncells = 0;
}

void cli_rec_end(cli_rec *r)
{
    if (r->format == CLI_FORMAT_JSON) {
        fputs(r->nrows ? "\n]\n" : "]\n", r->f);
    }
}

/* The lines of a text table split at the first run of blanks: "key value"
 * (the key first, the rest as one cell), or at every run for split_all.
 * Used for the key/value and fixed-column tables of `machine`. */
void cli_rec_lines(cli_rec *r, const char *text, int split_all)
{
    const char *line = text;
    while (line != NULL && *line != '\0') {
        const char *end = strchr(line, '\n');
        size_t len = end != NULL ? (size_t)(end - line) : strlen(line);
        size_t at = 0;
        for (int c = 0; at < len; c++) {
            size_t w = strcspn(line + at, " \n");
            if (w > len - at) {
                w = len - at;
            }
            if (c == r->ncols - 1 || (!split_all && c == 1)) {
                w = len - at; /* the last column takes the rest of the line */
            }
            cli_rec_cell(r, "%.*s", (int)w, line + at);
            at += w;
            at += strspn(line + at, " ");
        }
        cli_rec_row(r);
        line = end != NULL ? end + 1 : NULL;
    }
}
