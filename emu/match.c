/*
 * match.c - message matching for the replay engine: hashed queues keyed by
 * (communicator, source, destination, tag).
 *
 * MPI delivers the messages of one (communicator, source, tag) to one
 * receiver in the order they were sent (non-overtaking, MPI-3.1 section
 * 3.5), so a send and a receive of the same key match first-in first-out.
 * The table holds one entry per key with something waiting: the waiting
 * operations of a key are all sends or all receives (a new operation of the
 * other side takes the oldest one), kept in a FIFO of sizes.  Open
 * addressing with linear probing and backward-shift deletion: an entry
 * leaves the table when its queue empties, so the table stays as small as
 * what is outstanding (a linear all-to-all replayed send-then-receive keeps
 * it near empty), and every operation costs O(1) expected.
 */
#define TEMU_BUILDING_LIBRARY 1
#include "match.h"
#include "emu_internal.h"

#include <stdlib.h>
#include <string.h>

#define NIL UINT32_MAX

typedef struct entry {
    temu_match_key key;
    int64_t waiting; /* > 0: sends waiting, < 0: receives, 0: free slot */
    uint32_t head, tail;
} entry;

typedef struct item {
    uint64_t bytes;
    uint32_t next;
} item;

struct temu_match {
    entry *tab;
    size_t cap, used; /* cap a power of two */
    item *items;
    size_t nitems, items_cap;
    uint32_t free_item;
    uint64_t pending[2];
};

static uint64_t key_hash(const temu_match_key *k)
{
    uint64_t h = ((uint64_t)(uint32_t)k->comm << 32 | (uint32_t)k->tag) * 0x9E3779B97F4A7C15ull;
    h ^= ((uint64_t)(uint32_t)k->src << 32 | (uint32_t)k->dst) + (h >> 29);
    h *= 0xBF58476D1CE4E5B9ull;
    return h ^ (h >> 31);
}

static int key_eq(const temu_match_key *a, const temu_match_key *b)
{
    return a->comm == b->comm && a->src == b->src && a->dst == b->dst && a->tag == b->tag;
}

temu_match *temu_match_new(void)
{
    temu_match *mt = calloc(1, sizeof *mt);
    if (mt == NULL) {
        return NULL;
    }
    mt->cap = 1024;
    mt->tab = calloc(mt->cap, sizeof *mt->tab);
    if (mt->tab == NULL) {
        free(mt);
        return NULL;
    }
    mt->free_item = NIL;
    return mt;
}

void temu_match_free(temu_match *mt)
{
    if (mt != NULL) {
        free(mt->tab);
        free(mt->items);
        free(mt);
    }
}

/* Slot of key k: its entry, or the free slot where it would go. */
static size_t find(const temu_match *mt, const temu_match_key *k)
{
    size_t mask = mt->cap - 1;
    size_t i = (size_t)key_hash(k) & mask;
    while (mt->tab[i].waiting != 0 && !key_eq(&mt->tab[i].key, k)) {
        i = (i + 1) & mask;
    }
    return i;
}

static int grow(temu_match *mt)
{
    entry *old = mt->tab;
    size_t ocap = mt->cap;
    entry *tab = calloc(ocap * 2, sizeof *tab);
    if (tab == NULL) {
        return -1;
    }
    mt->tab = tab;
    mt->cap = ocap * 2;
    for (size_t i = 0; i < ocap; i++) {
        if (old[i].waiting != 0) {
            mt->tab[find(mt, &old[i].key)] = old[i];
        }
    }
    free(old);
    return 0;
}

/* Remove the entry at slot i, shifting later entries of its probe run
 * back so every lookup still finds them. */
static void erase(temu_match *mt, size_t i)
{
    size_t mask = mt->cap - 1;
    size_t j = i;
    for (;;) {
        j = (j + 1) & mask;
        if (mt->tab[j].waiting == 0) {
            break;
        }
        size_t home = (size_t)key_hash(&mt->tab[j].key) & mask;
        /* entry j may move to i when its home is not in (i, j] cyclically */
        int stays = i <= j ? (home > i && home <= j) : (home > i || home <= j);
        if (!stays) {
            mt->tab[i] = mt->tab[j];
            i = j;
        }
    }
    mt->tab[i].waiting = 0;
    mt->used--;
}

static uint32_t item_new(temu_match *mt, uint64_t bytes)
{
    uint32_t id;
    if (mt->free_item != NIL) {
        id = mt->free_item;
        mt->free_item = mt->items[id].next;
    } else {
        if (mt->nitems == mt->items_cap) {
            size_t ncap = mt->items_cap ? mt->items_cap * 2 : 256;
            item *grown = ncap < NIL ? realloc(mt->items, ncap * sizeof *grown) : NULL;
            if (grown == NULL) {
                return NIL;
            }
            mt->items = grown;
            mt->items_cap = ncap;
        }
        id = (uint32_t)mt->nitems++;
    }
    mt->items[id].bytes = bytes;
    mt->items[id].next = NIL;
    return id;
}

int temu_match_post(temu_match *mt, const temu_match_key *k, int side, uint64_t bytes,
                    uint64_t *partner_bytes)
{
    size_t i = find(mt, k);
    entry *e = &mt->tab[i];
    int64_t sign = side == TEMU_MATCH_SEND ? 1 : -1;
    if (e->waiting != 0 && (e->waiting > 0) != (sign > 0)) { /* the other side waits */
        uint32_t id = e->head;
        *partner_bytes = mt->items[id].bytes;
        e->head = mt->items[id].next;
        mt->items[id].next = mt->free_item;
        mt->free_item = id;
        mt->pending[side ^ 1]--;
        e->waiting += sign;
        if (e->waiting == 0) {
            erase(mt, i);
        }
        return 1;
    }
    uint32_t id = item_new(mt, bytes);
    if (id == NIL) {
        return -1;
    }
    if (e->waiting == 0) {
        if (2 * (mt->used + 1) > mt->cap) {
            if (grow(mt) != 0) {
                mt->items[id].next = mt->free_item;
                mt->free_item = id;
                return -1;
            }
            i = find(mt, k);
            e = &mt->tab[i];
        }
        e->key = *k;
        e->head = e->tail = id;
        mt->used++;
    } else {
        mt->items[e->tail].next = id;
        e->tail = id;
    }
    e->waiting += sign;
    mt->pending[side]++;
    return 0;
}

uint64_t temu_match_pending(const temu_match *mt, int side)
{
    return mt->pending[side];
}

int temu_match_first_waiting(const temu_match *mt, temu_match_key *k, int *side, uint64_t *count)
{
    for (size_t i = 0; i < mt->cap; i++) {
        if (mt->tab[i].waiting != 0) {
            *k = mt->tab[i].key;
            *side = mt->tab[i].waiting > 0 ? TEMU_MATCH_SEND : TEMU_MATCH_RECV;
            *count = (uint64_t)(mt->tab[i].waiting > 0 ? mt->tab[i].waiting : -mt->tab[i].waiting);
            return 1;
        }
    }
    return 0;
}

uint64_t temu_match_min_waiting(const temu_match *mt, int side, uint64_t lo)
{
    uint64_t min = UINT64_MAX;
    int64_t sign = side == TEMU_MATCH_SEND ? 1 : -1;
    for (size_t i = 0; mt->pending[side] > 0 && i < mt->cap; i++) {
        const entry *e = &mt->tab[i];
        if (e->waiting * sign <= 0) {
            continue;
        }
        /* a key's queue is in posting order, not always in value order
         * (ids of several windows): look at each */
        for (uint32_t j = e->head; j != NIL; j = mt->items[j].next) {
            uint64_t b = mt->items[j].bytes;
            min = b >= lo && b < min ? b : min;
        }
    }
    return min;
}

size_t temu_match_keys(const temu_match *mt)
{
    return mt->used;
}
