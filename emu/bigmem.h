/*
 * bigmem.h - large arrays on 2 MB pages (bigmem.c).  Private to
 * libtorusemu; no dependency, so that the event queue's own test can
 * build event_queue.c with bigmem.c alone.
 */
#ifndef TEMU_BIGMEM_H
#define TEMU_BIGMEM_H

#include <stddef.h>

#pragma GCC visibility push(hidden)

/* Ask the kernel for 2 MB pages on the whole 2 MB pages inside the array
 * [p, p + bytes): for the large arrays read at random, where 4 KB pages
 * make most accesses miss the TLB.  Only speed depends on it.  Call again
 * after the array grows (realloc keeps the request where it extends the
 * mapping in place or moves it, but a new part may need it). */
void temu_mem_huge(void *p, size_t bytes);

#pragma GCC visibility pop

#endif
