/*
 * persist.c - persistent send requests: what MPI_Send_init & co. describe is
 * kept here, keyed by the request handle, and counted at every MPI_Start.
 * Only the destination, size and data address are kept (the application may
 * free the datatype once the request exists); the bytes are read at each
 * start, so a buffer refilled between starts is inspected afresh.
 */
#include "tmpi.h"

#include <pthread.h>
#include <stdlib.h>

typedef struct entry {
    uintptr_t key;    /* the request handle; 0 = free slot */
    temu_message msg; /* nodes, size, data address        */
    int32_t dst;      /* world rank, for the trace        */
    MPI_Comm comm;    /* communicator, destination and tag, for the trace */
    int dest, tag;
} entry;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static entry *table;
static size_t cap, used; /* cap is a power of two; used counts live keys */

static size_t slot_of(uintptr_t key, size_t mask)
{
    uint64_t h = (uint64_t)key * 0x9E3779B97F4A7C15ull; /* Fibonacci hashing */
    return (size_t)(h >> 32) & mask;
}

/* Insert or replace; the table stays at most half full. */
static void put_locked(const entry *e)
{
    if (2 * (used + 1) > cap) {
        size_t ncap = cap ? cap * 2 : 64;
        entry *nt = calloc(ncap, sizeof *nt);
        if (nt == NULL) {
            return;
        }
        for (size_t i = 0; i < cap; i++) {
            if (table[i].key != 0) {
                size_t j = slot_of(table[i].key, ncap - 1);
                while (nt[j].key != 0) {
                    j = (j + 1) & (ncap - 1);
                }
                nt[j] = table[i];
            }
        }
        free(table);
        table = nt;
        cap = ncap;
    }
    size_t j = slot_of(e->key, cap - 1);
    while (table[j].key != 0 && table[j].key != e->key) {
        j = (j + 1) & (cap - 1);
    }
    used += table[j].key == 0;
    table[j] = *e;
}

static entry *find_locked(uintptr_t key)
{
    if (cap == 0) {
        return NULL;
    }
    for (size_t j = slot_of(key, cap - 1);; j = (j + 1) & (cap - 1)) {
        if (table[j].key == key) {
            return &table[j];
        }
        if (table[j].key == 0) {
            return NULL;
        }
    }
}

void tmpi_persist_add(MPI_Request req, const void *buf, int count, MPI_Datatype type, int dest,
                      int tag, MPI_Comm comm)
{
    entry e;
    if (req == MPI_REQUEST_NULL || !tmpi_send_message(buf, count, type, dest, comm, &e.msg)) {
        return;
    }
    e.key = (uintptr_t)req;
    e.dst = tmpi_send_dest(dest, comm);
    e.comm = comm;
    e.dest = dest;
    e.tag = tag;
    pthread_mutex_lock(&lock);
    put_locked(&e);
    pthread_mutex_unlock(&lock);
}

void tmpi_persist_start(MPI_Request req)
{
    entry e, *p;
    pthread_mutex_lock(&lock);
    p = find_locked((uintptr_t)req);
    if (p != NULL) {
        e = *p;
    }
    pthread_mutex_unlock(&lock);
    if (p != NULL) {
        if (tmpi_vt_on) {
            int64_t lat = tmpi_vt_message_latency(&e.msg);
            tmpi_vt_feed_p2p(&e.msg, !tmpi_paused, e.dst, lat);
            tmpi_vt_stamp(e.dest, e.tag, e.comm, lat);
        }
        if (!tmpi_paused) {
            temu_inject(tmpi_g.session, &e.msg, NULL);
        }
        if (tmpi_trace_file != NULL) {
            /* each start is one message: a blocking send in the trace */
            tmpi_trace_send(e.comm, e.dest, e.dst, e.tag, e.msg.bytes, e.msg.payload, 0);
        }
    }
}

/* Backward-shift deletion keeps linear probing chains intact. */
void tmpi_persist_remove(MPI_Request req)
{
    pthread_mutex_lock(&lock);
    entry *p = find_locked((uintptr_t)req);
    if (p != NULL) {
        size_t i = (size_t)(p - table), mask = cap - 1;
        size_t j = i;
        for (;;) {
            j = (j + 1) & mask;
            if (table[j].key == 0) {
                break;
            }
            size_t home = slot_of(table[j].key, mask);
            /* move j back to i unless its home lies cyclically in (i, j] */
            int stays = i <= j ? (home > i && home <= j) : (home > i || home <= j);
            if (!stays) {
                table[i] = table[j];
                i = j;
            }
        }
        table[i].key = 0;
        used--;
    }
    pthread_mutex_unlock(&lock);
}
