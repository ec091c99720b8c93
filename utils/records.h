/*
 * records.h - the machine-readable forms of the CLI's tables
 * (--format=table|csv|json, doc/cli.md "Output formats").
 *
 * A command describes its table by column names and hands over one row at a
 * time as text cells.  CSV: a header line, then one line per row, cells
 * quoted when they hold a comma, a quote or a line break (RFC 4180).  JSON:
 * one array of objects keyed by column; a cell that is a decimal number is
 * written as a JSON number, every other cell as a string.
 */
#ifndef TEMU_RECORDS_H
#define TEMU_RECORDS_H

#include <getopt.h>
#include <stdio.h>

typedef enum cli_format { CLI_FORMAT_TABLE = 0, CLI_FORMAT_CSV, CLI_FORMAT_JSON } cli_format;

/* The --format option of every command that prints a table (getopt_long
 * code above the commands' own long options). */
#define CLI_OPT_FORMAT 0x1ff
#define CLI_FORMAT_OPTION                                                                          \
    {                                                                                              \
        "format", required_argument, NULL, CLI_OPT_FORMAT                                          \
    }

/* "table", "csv" or "json"; prints the reason and returns CLI_EXIT_USAGE
 * for anything else, 0 on success. */
int cli_parse_format(const char *s, cli_format *out);

#define CLI_REC_MAX_COLS 32
#define CLI_REC_CELL 128 /* bytes per cell, terminator included */

typedef struct cli_rec {
    FILE *f;
    cli_format format;
    const char *const *cols;
    int ncols, nrows, ncells;
    char cell[CLI_REC_MAX_COLS][CLI_REC_CELL];
} cli_rec;

/* Start a table of ncols (at most CLI_REC_MAX_COLS) columns on f in CSV or
 * JSON; the column names must stay valid until cli_rec_end. */
void cli_rec_begin(cli_rec *r, FILE *f, cli_format format, const char *const *cols, int ncols);
/* Add the next cell of the current row (printf format). */
void cli_rec_cell(cli_rec *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* End the current row: write it (missing cells are empty). */
void cli_rec_row(cli_rec *r);
/* End the table. */
void cli_rec_end(cli_rec *r);

/* One row per line of text: the first word, then the rest of the line
 * (split_all = 0), or a cell per word with the last column taking the rest
 * (split_all = 1). */
void cli_rec_lines(cli_rec *r, const char *text, int split_all);

/* s as a JSON string, quoted and escaped. */
void cli_json_string(FILE *f, const char *s);

#endif
