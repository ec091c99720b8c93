/*
 * routing.c - the adaptive routing function's VC choice (routing.h).
 */
#define TEMU_BUILDING_LIBRARY 1
#include "routing.h"

/* The dynamic VC with the most tokens (ties: the lower), else on the
 * deterministic channel the escape VC, entering an escape ring (and
 * needing the bubble) unless the hop before was on the escape VC of the
 * same dimension (Puente et al., "Adaptive bubble router", 1999). */
int tm_route_choose_vc(const temu_tm *t, const tm_train *tr, int64_t c, uint32_t *lack,
                       int64_t *bubble)
{
    const tm_queue *cq = &t->q[c * t->nvc];
    int best = -1;
    *bubble = 0;
    for (int v = 0; v < t->nvc; v++) {
        if ((t->c.dynamic_vcs >> v & 1u) && cq[v].credit >= tr->bytes &&
            (best < 0 || cq[v].credit > cq[best].credit)) {
            best = v;
        }
    }
    if (best >= 0) {
        return best;
    }
    *lack |= t->c.dynamic_vcs | NO_DYNAMIC;
    if (c == tr->cand[0]) {
        int e = (int)t->c.escape_vc;
        *bubble = tr->esc_dim != tm_chan_dim(t, c) ? t->c.max_packet : 0;
        if (cq[e].credit >= tr->bytes + *bubble) {
            return e;
        }
        *lack |= 1u << e;
    }
    return -1;
}
