/*
 * text_reader.c - numbered lines of a text file, NUL bytes refused
 * (text_reader.h).
 */
#define _GNU_SOURCE 1 /* getline */
#include "text_reader.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

void text_reader_init(text_reader *t, FILE *f, const char *name)
{
    memset(t, 0, sizeof *t);
    t->f = f;
    t->name = name;
}

int text_reader_next(text_reader *t, char *why, size_t len)
{
    errno = 0;
    ssize_t n = getline(&t->line, &t->cap, t->f);
    if (n < 0) {
        if (ferror(t->f)) {
            snprintf(why, len, "%s:%ld: cannot read: %s", t->name, t->lineno + 1,
                     strerror(errno ? errno : EIO));
            return -1;
        }
        return 0;
    }
    t->lineno++;
    t->len = (size_t)n;
    const char *nul = memchr(t->line, '\0', t->len);
    if (nul != NULL) {
        snprintf(why, len, "%s:%ld: a NUL byte (column %zu): not a text file", t->name, t->lineno,
                 (size_t)(nul - t->line) + 1);
        return -1;
    }
    return 1;
}

void text_reader_free(text_reader *t)
{
    free(t->line);
    t->line = NULL;
    t->cap = t->len = 0;
}
