/*
 * text_reader.h - the lines of a text file that a tool reads (LDMS CSV
 * for `torusemu analyze`, `--mix` files for `torusemu replay`), one at a
 * time and numbered.  A NUL byte is refused with the file and the line:
 * every string function would take it for the end of the line and
 * silently drop the rest (and, with the newline gone, merge the next line
 * into nothing).  A read error is an error, never an early end of file.
 */
#ifndef TEMU_TEXT_READER_H
#define TEMU_TEXT_READER_H

#include <stddef.h>
#include <stdio.h>

typedef struct text_reader {
    FILE *f;
    const char *name; /* the file, in messages; kept by the caller */
    char *line;       /* the current line with its newline, NUL-terminated */
    size_t len;       /* its bytes */
    size_t cap;
    long lineno; /* 1 for the first line */
} text_reader;

/* Read f (open, kept by the caller) as the text file `name`. */
void text_reader_init(text_reader *t, FILE *f, const char *name);
/* The next line into t->line: 1, 0 at the end of the file, or -1 with
 * "NAME:LINE: ..." in why (len bytes). */
int text_reader_next(text_reader *t, char *why, size_t len);
void text_reader_free(text_reader *t);

#endif
