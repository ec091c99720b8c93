/*
 * fm_heap.c - indexed binary min-heaps of flows (fm.h): the flows' next
 * events, and the active flows' next packet starts.  A flow's key can
 * move either way (its rate changed), so a flow has its place in the heap
 * (pos).  Ties of time go to the flow sent first (its seq): the order
 * follows the inputs, never addresses or push order.
 */
#define TEMU_BUILDING_LIBRARY 1
#include "fm.h"

#include <stdlib.h>

int fm_heap_resize(fm_heap *h, int32_t cap, int32_t oldcap)
{
    if (fm_resize((void **)&h->ids, cap, sizeof *h->ids) != 0 ||
        fm_resize((void **)&h->key, cap, sizeof *h->key) != 0 ||
        fm_resize((void **)&h->pos, cap, sizeof *h->pos) != 0) {
        return -1;
    }
    for (int32_t i = oldcap; i < cap; i++) {
        h->pos[i] = -1;
    }
    return 0;
}

void fm_heap_free(fm_heap *h)
{
    free(h->ids);
    free(h->key);
    free(h->pos);
    *h = (fm_heap){0};
}

static int before(const fm_heap *h, const fm_flow *fl, int32_t a, int32_t b)
{
    if (h->key[a] != h->key[b]) {
        return h->key[a] < h->key[b];
    }
    return fl[a].seq < fl[b].seq;
}

static void place(fm_heap *h, int32_t i, int32_t id)
{
    h->ids[i] = id;
    h->pos[id] = i;
}

static void sift_up(fm_heap *h, const fm_flow *fl, int32_t i)
{
    int32_t id = h->ids[i];
    while (i > 0 && before(h, fl, id, h->ids[(i - 1) / 2])) {
        place(h, i, h->ids[(i - 1) / 2]);
        i = (i - 1) / 2;
    }
    place(h, i, id);
}

static void sift_down(fm_heap *h, const fm_flow *fl, int32_t i)
{
    int32_t id = h->ids[i];
    for (;;) {
        int32_t c = 2 * i + 1;
        if (c >= h->n) {
            break;
        }
        if (c + 1 < h->n && before(h, fl, h->ids[c + 1], h->ids[c])) {
            c++;
        }
        if (!before(h, fl, h->ids[c], id)) {
            break;
        }
        place(h, i, h->ids[c]);
        i = c;
    }
    place(h, i, id);
}

int fm_heap_set(fm_heap *h, const fm_flow *fl, int32_t id, int64_t key)
{
    int32_t i = h->pos[id];
    h->key[id] = key;
    if (i < 0) {
        i = h->n++;
        place(h, i, id);
    }
    sift_up(h, fl, i);
    sift_down(h, fl, h->pos[id]);
    return 0;
}

void fm_heap_remove(fm_heap *h, const fm_flow *fl, int32_t id)
{
    int32_t i = h->pos[id];
    if (i < 0) {
        return;
    }
    h->pos[id] = -1;
    int32_t last = h->ids[--h->n];
    if (i == h->n) {
        return;
    }
    place(h, i, last);
    sift_up(h, fl, i);
    sift_down(h, fl, h->pos[last]);
}

int32_t fm_heap_top(const fm_heap *h, int64_t *key)
{
    if (h->n == 0) {
        *key = INT64_MAX;
        return -1;
    }
    *key = h->key[h->ids[0]];
    return h->ids[0];
}
