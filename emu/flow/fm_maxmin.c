/*
 * fm_maxmin.c - weighted max-min fair rates by progressive filling
 * (fm_maxmin.h).
 *
 * Written for this project from the textbook definition (Bertsekas and
 * Gallager, "Data Networks", section 6.5.2): every rising flow f has rate
 * weight_f x level; channel c fills at level rem_c / sum_c, rem_c its
 * capacity less what stopped flows use, sum_c the weighted coefficients
 * of the flows still rising on it.  A heap of the channels' fill levels
 * and the flows' bound levels (bound / weight) gives the next event.  A
 * flow stopping at level L <= a channel's level (rem / sum) leaves that
 * channel's level no lower, so a channel's entry in the heap stays a lower
 * bound of its level: it is renewed lazily, when it comes to the top with
 * a level that has since risen (one entry per channel, not one per flow
 * stopping on it: the heap holds channels + bounds, not elements).  A
 * channel's level is never taken below the level at which a flow last
 * stopped on it (rounding).  Cost: O(elements + pops x log channels).
 * Ties (equal levels) go to the lower channel id, channels before bounds:
 * the result depends on the problem only.
 */
#define TEMU_BUILDING_LIBRARY 1
#include "fm_maxmin.h"

#include <stdlib.h>

/* A heap entry: a channel's fill level (id >= 0) or a flow's bound level
 * (id = -1 - flow). */
typedef struct fm_mm_entry {
    double level;
    int32_t id;
} fm_mm_entry;

static int entry_before(const fm_mm_entry *a, const fm_mm_entry *b)
{
    if (a->level != b->level) {
        return a->level < b->level;
    }
    /* channels (id >= 0) before bounds, then by id */
    if ((a->id >= 0) != (b->id >= 0)) {
        return a->id >= 0;
    }
    return a->id >= 0 ? a->id < b->id : a->id > b->id;
}

/* Put entry e at slot i of the heap's first n slots, moving it down below
 * the entries that come before it (the slots under i are heaps). */
static void sift_entry(fm_mm_work *w, int32_t i, int32_t n, fm_mm_entry e)
{
    for (;;) {
        int32_t c = 2 * i + 1;
        if (c >= n) {
            break;
        }
        if (c + 1 < n && entry_before(&w->heap[c + 1], &w->heap[c])) {
            c++;
        }
        if (!entry_before(&w->heap[c], &e)) {
            break;
        }
        w->heap[i] = w->heap[c];
        i = c;
    }
    w->heap[i] = e;
}

/* Take the top entry off.  The last entry, which refills the top, is
 * nearly always among the latest levels, so it would sink to the bottom
 * at two comparisons a level: instead the hole left at the top goes down
 * to a leaf along the earlier child (one comparison a level) and the last
 * entry climbs from there, usually not far (I. Wegener, "Bottom-up
 * heapsort, a new variant of heapsort beating, on an average, quicksort",
 * Theoretical Computer Science 118, 1993).  The entries being distinct and
 * totally ordered, they come off in the same order as with a plain pop. */
static fm_mm_entry heap_pop(fm_mm_work *w)
{
    fm_mm_entry top = w->heap[0], last = w->heap[--w->nheap];
    int32_t n = w->nheap, i = 0;
    if (n == 0) {
        return top;
    }
    for (;;) {
        int32_t c = 2 * i + 1;
        if (c >= n) {
            break;
        }
        if (c + 1 < n && entry_before(&w->heap[c + 1], &w->heap[c])) {
            c++;
        }
        w->heap[i] = w->heap[c];
        i = c;
    }
    while (i > 0) {
        int32_t up = (i - 1) / 2;
        if (!entry_before(&last, &w->heap[up])) {
            break;
        }
        w->heap[i] = w->heap[up];
        i = up;
    }
    w->heap[i] = last;
    return top;
}

int32_t fm_room(int32_t need, int32_t cap)
{
    int32_t twice = cap > 0 ? 2 * cap : 4;
    return need > twice ? need : twice;
}

int fm_resize(void **a, int32_t n, size_t size)
{
    void *p = realloc(*a, (size_t)n * size);
    if (!p) {
        return -1;
    }
    *a = p;
    return 0;
}

/* Room for a problem's channels (with first[]'s one more), flows and
 * elements. */
static int work_reserve(fm_mm_work *w, const fm_mm_problem *p)
{
    int32_t ne = p->start[p->nflows], nc = p->nchans + 1;
    int bad = 0;
    if (nc > w->capchans) {
        int32_t n = fm_room(nc, w->capchans);
        bad |= fm_resize((void **)&w->rem, n, sizeof *w->rem);
        bad |= fm_resize((void **)&w->sum, n, sizeof *w->sum);
        bad |= fm_resize((void **)&w->rising, n, sizeof *w->rising);
        bad |= fm_resize((void **)&w->floor, n, sizeof *w->floor);
        bad |= fm_resize((void **)&w->first, n, sizeof *w->first);
        w->capchans = bad ? w->capchans : n; /* a failed one kept its old size */
    }
    if (p->nflows > w->capflows) {
        int32_t n = fm_room(p->nflows, w->capflows);
        bad |= fm_resize((void **)&w->fixed, n, sizeof *w->fixed);
        w->capflows = bad ? w->capflows : n;
    }
    if (ne > w->capelems) {
        int32_t n = fm_room(ne, w->capelems);
        bad |= fm_resize((void **)&w->link, n, sizeof *w->link);
        w->capelems = bad ? w->capelems : n;
    }
    return bad ? -1 : 0;
}

/* The channels' flows, compressed (first/link), and every channel's
 * starting rem, sum and rising count. */
static void index_channels(const fm_mm_problem *p, fm_mm_work *w)
{
    int32_t nc = p->nchans, ne = p->start[p->nflows];
    for (int32_t c = 0; c <= nc; c++) {
        w->first[c] = 0;
    }
    for (int32_t c = 0; c < nc; c++) {
        w->rem[c] = p->cap[c];
        w->sum[c] = 0;
        w->rising[c] = 0;
        w->floor[c] = 0;
    }
    for (int32_t e = 0; e < ne; e++) {
        w->first[p->chan[e] + 1]++;
    }
    for (int32_t c = 0; c < nc; c++) {
        w->first[c + 1] += w->first[c];
    }
    for (int32_t f = 0; f < p->nflows; f++) {
        w->fixed[f] = 0;
        for (int32_t e = p->start[f]; e < p->start[f + 1]; e++) {
            int32_t c = p->chan[e];
            w->link[w->first[c] + w->rising[c]++] = f;
            w->sum[c] += p->coef[e] * p->weight[f];
        }
    }
}

/* Channel c's fill level now: rem / sum, not below where a flow last
 * stopped on it (rounding may put it lower: it is full then). */
static double chan_level(const fm_mm_work *w, int32_t c)
{
    double level = w->rem[c] > 0 ? w->rem[c] / w->sum[c] : 0;
    return level > w->floor[c] ? level : w->floor[c];
}

/* Flow f stops rising at `level` (rate weight x level, or its bound):
 * its channels no longer count it. */
static void fix_flow(const fm_mm_problem *p, fm_mm_work *w, fm_mm_result *r, int32_t f, double rate,
                     int32_t limit, double level)
{
    w->fixed[f] = 1;
    r->rate[f] = rate;
    r->limit[f] = limit;
    for (int32_t e = p->start[f]; e < p->start[f + 1]; e++) {
        int32_t c = p->chan[e];
        w->rem[c] -= p->coef[e] * rate;
        w->sum[c] -= p->coef[e] * p->weight[f];
        w->rising[c]--;
        w->floor[c] = level; /* its heap entry, now a lower bound, renewed when on top */
    }
}

/* The heap of the channels' levels and the flows' bounds, all at once:
 * listed, then each parent from the last one up moved down into place
 * (R. W. Floyd, "Algorithm 245: Treesort 3", CACM 7(12), 1964; the heap
 * is J. W. J. Williams's, "Algorithm 232: Heapsort", CACM 7(6), 1964):
 * O(entries) instead of a push each.  The entries are distinct (one per
 * channel or bound, by id) and entry_before orders them totally, so they
 * come off in the same order whatever the heap's layout. */
static int seed_heap(const fm_mm_problem *p, fm_mm_work *w)
{
    int32_t n = 0, need = p->nchans + p->nflows;
    if (need > w->capheap) {
        int32_t cap = fm_room(need, w->capheap);
        if (fm_resize((void **)&w->heap, cap, sizeof *w->heap) != 0) {
            return -1;
        }
        w->capheap = cap;
    }
    for (int32_t c = 0; c < p->nchans; c++) {
        if (w->rising[c] > 0) {
            w->heap[n++] = (fm_mm_entry){chan_level(w, c), c};
        }
    }
    for (int32_t f = 0; f < p->nflows; f++) {
        if (p->bound[f] > 0) {
            w->heap[n++] = (fm_mm_entry){p->bound[f] / p->weight[f], -1 - f};
        }
    }
    w->nheap = n;
    for (int32_t i = n / 2 - 1; i >= 0; i--) {
        sift_entry(w, i, n, w->heap[i]);
    }
    return 0;
}

/* Channel c is full at `level`: every flow still rising on it stops. */
static void fill_channel(const fm_mm_problem *p, fm_mm_work *w, fm_mm_result *r, int32_t c,
                         double level)
{
    r->full[c] = 1;
    for (int32_t i = w->first[c]; i < w->first[c + 1]; i++) {
        int32_t f = w->link[i];
        if (!w->fixed[f]) {
            fix_flow(p, w, r, f, p->weight[f] * level, c, level);
        }
    }
}

int fm_mm_solve(const fm_mm_problem *p, fm_mm_work *w, fm_mm_result *r)
{
    if (work_reserve(w, p) != 0) {
        return -1;
    }
    index_channels(p, w);
    for (int32_t c = 0; c < p->nchans; c++) {
        r->full[c] = 0;
    }
    if (seed_heap(p, w) != 0) {
        return -1;
    }
    while (w->nheap > 0) {
        fm_mm_entry e = w->heap[0];
        if (e.id >= 0 && w->rising[e.id] > 0) {
            double now = chan_level(w, e.id);
            if (now > e.level) {
                /* its level has risen: the entry renewed in place, one
                 * pass down the heap instead of a pop and a push */
                sift_entry(w, 0, w->nheap, (fm_mm_entry){now, e.id});
                continue;
            }
        }
        heap_pop(w);
        if (e.id < 0) {
            if (!w->fixed[-1 - e.id]) {
                fix_flow(p, w, r, -1 - e.id, p->bound[-1 - e.id], -1, e.level);
            }
            continue;
        }
        if (w->rising[e.id] == 0) {
            continue;
        }
        fill_channel(p, w, r, e.id, e.level);
    }
    return 0;
}

void fm_mm_work_free(fm_mm_work *w)
{
    free(w->rem);
    free(w->sum);
    free(w->first);
    free(w->link);
    free(w->rising);
    free(w->floor);
    free(w->fixed);
    free(w->heap);
    *w = (fm_mm_work){0};
}
