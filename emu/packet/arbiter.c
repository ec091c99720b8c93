/*
 * arbiter.c - who gets a channel (arbiter.h): room for waiters.
 */
#define TEMU_BUILDING_LIBRARY 1
#include "arbiter.h"

#include <stdlib.h>

int tm_arb_grow(tm_chan *ch)
{
    int32_t cap = ch->capwait ? 2 * ch->capwait : 4;
    tm_waiter *w = realloc(ch->wait, (size_t)cap * sizeof *w);
    if (!w) {
        return -1;
    }
    ch->wait = w;
    ch->capwait = cap;
    return 0;
}
