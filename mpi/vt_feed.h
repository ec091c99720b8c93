/*
 * vt_feed.h - the online timing model's feed (doc/virtual-time.md,
 * "Online model"): a shared-memory file the launcher creates
 * ($TORUSEMU_VT_FEED) holding, per rank, a queue of the messages it put on
 * the network with their virtual send times, and the rank's floor: a
 * virtual time before which the rank will send nothing more.  The ranks
 * (mpi/vtime.c) produce; the launcher's model thread (utils/run_model.c)
 * consumes, feeding the timing model every message sent before the
 * smallest floor, in (time, rank, order) order, so what the model computes
 * does not depend on how the host scheduled the ranks.
 *
 * Used by libtorusemu_mpi and the torusemu launcher; not installed.
 */
#ifndef TMPI_VT_FEED_H
#define TMPI_VT_FEED_H

#include <stddef.h>
#include <stdint.h>

#pragma GCC visibility push(hidden)

#define TMPI_VT_FEED_ENV "TORUSEMU_VT_FEED"
#define TMPI_VT_FEED_MAGIC 0x76746665656431ull /* "vtfeed1" */
#define TMPI_VT_FEED_CAP 4096u                 /* records per rank queue */
/* floor of a rank that will send nothing more (MPI_Finalize) */
#define TMPI_VT_FLOOR_DONE INT64_MAX

typedef struct tmpi_vt_rec {
    int64_t when;     /* virtual send time, ps */
    int64_t src, dst; /* nodes */
    uint64_t bytes;
    int32_t kind; /* temu_kind */
    int32_t pad;
} tmpi_vt_rec;

typedef struct tmpi_vt_queue {
    int64_t floor;   /* written by the rank, read by the model            */
    uint64_t head;   /* records consumed (model)                          */
    uint64_t tail;   /* records produced (rank)                           */
    uint64_t pad[5]; /* the next queue's counters on another cache line   */
    tmpi_vt_rec rec[TMPI_VT_FEED_CAP];
} tmpi_vt_queue;

typedef struct tmpi_vt_feed {
    uint64_t magic;
    int32_t nranks;
    int32_t pad;
    uint64_t pad2[6];
    tmpi_vt_queue q[];
} tmpi_vt_feed;

static inline size_t tmpi_vt_feed_size(int32_t nranks)
{
    return sizeof(tmpi_vt_feed) + (size_t)nranks * sizeof(tmpi_vt_queue);
}

/* Map the feed file at path (created and sized by the launcher when
 * create, with nranks queues, floors 0); NULL with a reason in why. */
tmpi_vt_feed *tmpi_vt_feed_map(const char *path, int create, int32_t nranks, char *why, size_t len);
void tmpi_vt_feed_unmap(tmpi_vt_feed *f);

/* Producer: append a record to rank r's queue, waiting while it is full
 * (the model thread empties it whatever the floors). */
void tmpi_vt_feed_push(tmpi_vt_feed *f, int32_t r, const tmpi_vt_rec *rec);
/* Producer: the rank's floor (never lowered except by the model). */
void tmpi_vt_feed_floor(tmpi_vt_feed *f, int32_t r, int64_t floor);

#pragma GCC visibility pop

#endif
