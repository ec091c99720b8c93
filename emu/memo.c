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
 * Direct-mapped, TEMU_MEMO_SLOTS entries, a miss overwrites; the lookup
 * itself is inline (emu_internal.h, temu_memo_slot).
 */
#define TEMU_BUILDING_LIBRARY 1
#include "emu_internal.h"

#include <pthread.h>
#include <stdlib.h>

static uint64_t next_serial;
static pthread_key_t table_key;
static pthread_once_t table_once = PTHREAD_ONCE_INIT;
/* Initial-exec: one %fs-relative load per lookup instead of a call to
 * __tls_get_addr (libtorusemu is loaded with the program or its PAPI). */
__thread temu_memo_entry *temu_memo_table __attribute__((tls_model("initial-exec")));
__thread int temu_memo_busy __attribute__((tls_model("initial-exec")));

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

temu_memo_entry *temu_memo_table_new(void)
{
    pthread_once(&table_once, make_key);
    temu_memo_table = calloc(TEMU_MEMO_SLOTS, sizeof *temu_memo_table);
    if (temu_memo_table != NULL) {
        pthread_setspecific(table_key, temu_memo_table); /* freed at thread exit */
    }
    return temu_memo_table;
}
