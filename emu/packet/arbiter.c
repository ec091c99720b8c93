/*
 * arbiter.c - who gets a channel (arbiter.h): room for waiters beyond a
 * channel's inline TM_WAIT_INLINE.
 */
#define TEMU_BUILDING_LIBRARY 1
#include "arbiter.h"

#include <stdlib.h>
#include <string.h>

int tm_arb_grow(tm_chan *ch)
{
    int32_t cap = 2 * ch->capwait;
    tm_waiter *w;
    if (ch->capwait == TM_WAIT_INLINE) {
        /* the channel's inline room (temu_tm.wait0) is full: its waiters
         * move to the heap, the room stays the channel's, unused */
        w = malloc((size_t)cap * sizeof *w);
        if (w) {
            memcpy(w, ch->wait, (size_t)ch->nwait * sizeof *w);
        }
    } else {
        w = realloc(ch->wait, (size_t)cap * sizeof *w);
    }
    if (!w) {
        return -1;
    }
    ch->wait = w;
    ch->capwait = cap;
    return 0;
}
