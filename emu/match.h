/*
 * match.h - hashed send/receive queues of the replay engine (match.c).
 * Private to libtorusemu.
 */
#ifndef TEMU_MATCH_H
#define TEMU_MATCH_H

#include <stddef.h>
#include <stdint.h>

typedef struct temu_match temu_match;

typedef struct temu_match_key {
    int32_t comm, src, dst, tag; /* communicator id and ranks */
} temu_match_key;

enum { TEMU_MATCH_SEND = 0, TEMU_MATCH_RECV = 1 };

temu_match *temu_match_new(void);
void temu_match_free(temu_match *mt);
/* Post a send or receive of key k: returns 1 when it took the oldest
 * waiting operation of the other side (whose size goes to *partner_bytes),
 * 0 when it now waits itself, -1 when out of memory. */
int temu_match_post(temu_match *mt, const temu_match_key *k, int side, uint64_t bytes,
                    uint64_t *partner_bytes);
/* Operations of `side` waiting for a partner. */
uint64_t temu_match_pending(const temu_match *mt, int side);
/* Some key with operations waiting (its side and how many); 0 if none. */
int temu_match_first_waiting(const temu_match *mt, temu_match_key *k, int *side, uint64_t *count);
/* The smallest value (the `bytes` posted: the virtual-time engine posts
 * message and receive slot ids) of the operations of `side` still waiting
 * that is at least lo; UINT64_MAX if none.  O(table) when some wait. */
uint64_t temu_match_min_waiting(const temu_match *mt, int side, uint64_t lo);
/* Keys in the table (for tests: the table stays as small as what waits). */
size_t temu_match_keys(const temu_match *mt);

#endif
