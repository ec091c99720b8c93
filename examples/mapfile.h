/*
 * mapfile.h - write a rank-to-node map file (doc/mapping.md) for a machine,
 * shared by the example programs that offer their own placements.
 */
#ifndef EXAMPLES_MAPFILE_H
#define EXAMPLES_MAPFILE_H

#include <stdint.h>

/* Write one line per rank: the coordinates of node[r] (Gemini: plus the
 * node's position on its Gemini), then t[r].  Returns 0, or prints why not
 * and returns -1. */
int ex_write_map(const char *path, const char *spec, int32_t nranks, const int64_t *node,
                 const int32_t *t);

#endif
