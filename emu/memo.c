/*
 * memo.c - per-thread memo of injections.  The counter updates of a small
 * message are a pure function of the session's machine, the two nodes, the
 * kind, the size and what the plan read of the payload (plan.c,
 * temu_plan_payload_key); programs send the same few messages over and
 * over, so inject.c records the update list once and replays it: the same
 * atomic adds in the same order, overflow watches tested on each as before.
 *
 * One table per thread (no locking; entries hold no pointers into a
 * session: a session is named by its serial, never reused in the process).
 * Direct-mapped, TEMU_MEMO_SLOTS entries, a miss overwrites.
 */
#define TEMU_BUILDING_LIBRARY 1
#include "emu_internal.h"

#include <pthread.h>
#include <stdlib.h>

#define TEMU_MEMO_SLOTS 32 /* power of two; ~66 KiB per thread */

static uint64_t next_serial;
static pthread_key_t table_key;
static pthread_once_t table_once = PTHREAD_ONCE_INIT;
static __thread temu_memo_entry *table;

uint64_t temu_memo_serial(void)
{
    return __atomic_add_fetch(&next_serial, 1, __ATOMIC_RELAXED);
}

static void table_free(void *t)
{
    free(t);
}

static void make_key(void)
{
    pthread_key_create(&table_key, table_free);
}

static temu_memo_entry *thread_table(void)
{
    if (TEMU_UNLIKELY(table == NULL)) {
        pthread_once(&table_once, make_key);
        table = calloc(TEMU_MEMO_SLOTS, sizeof *table);
        if (table != NULL) {
            pthread_setspecific(table_key, table); /* freed at thread exit */
        }
    }
    return table;
}

temu_memo_entry *temu_memo_slot(uint64_t serial, const temu_message *msg, uint64_t key)
{
    temu_memo_entry *t = thread_table();
    if (t == NULL) {
        return NULL;
    }
    uint64_t h = (uint64_t)msg->dst * 0x9e3779b97f4a7c15ull ^ msg->bytes * 0xc2b2ae3d27d4eb4full ^
                 (uint64_t)msg->src * 0x165667b19e3779f9ull ^ key ^ (uint64_t)msg->kind ^ serial;
    return &t[(h ^ h >> 29) & (TEMU_MEMO_SLOTS - 1)];
}
