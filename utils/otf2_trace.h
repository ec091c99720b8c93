/*
 * otf2_trace.h - OTF2 archives of MPI communication for `torusemu run
 * --trace` (otf2_write.c) and `torusemu replay --trace` (otf2_read.c).
 * doc/replay.md describes the records and the torusemu attributes.
 */
#ifndef TEMU_OTF2_TRACE_H
#define TEMU_OTF2_TRACE_H

#include "torusemu.h"
#include "torusemu_replay.h"

#include <stddef.h>

/* Attribute names the writer adds so a replay reproduces a live run
 * exactly (the live layer's own description of each call). */
#define TEMU_OTF2_ATTR_OP "torusemu:op"
#define TEMU_OTF2_ATTR_BYTES "torusemu:bytes"
#define TEMU_OTF2_ATTR_COUNT "torusemu:count"
#define TEMU_OTF2_ATTR_ELEM "torusemu:elem"
#define TEMU_OTF2_ATTR_FLAGS                                                                       \
    "torusemu:flags" /* 1 commutative, 2 blocking, 4 hw_op, 8 recv_ready                           \
                      */
#define TEMU_OTF2_ATTR_SEND_BASE "torusemu:send_base"
#define TEMU_OTF2_ATTR_RECV_BASE "torusemu:recv_base"
#define TEMU_OTF2_ATTR_BLOCKS "torusemu:blocks"       /* "b0 b1 ..." */
#define TEMU_OTF2_ATTR_OFFS "torusemu:offs"           /* "o0 o1 ..." */
#define TEMU_OTF2_ATTR_NEIGHBORS "torusemu:neighbors" /* "r0 r1 ..." */
#define TEMU_OTF2_ATTR_ADDRESS "torusemu:address"     /* sender's data */
#define TEMU_OTF2_ATTR_UNCOUNTED "torusemu:uncounted" /* 1: send made while paused */
/* The attributes, numbered as the writer defines them. */
enum temu_otf2_attr {
    TEMU_OTF2_A_OP,
    TEMU_OTF2_A_BYTES,
    TEMU_OTF2_A_COUNT,
    TEMU_OTF2_A_ELEM,
    TEMU_OTF2_A_FLAGS,
    TEMU_OTF2_A_SEND_BASE,
    TEMU_OTF2_A_RECV_BASE,
    TEMU_OTF2_A_BLOCKS,
    TEMU_OTF2_A_OFFS,
    TEMU_OTF2_A_NEIGHBORS,
    TEMU_OTF2_A_ADDRESS,
    TEMU_OTF2_A_UNCOUNTED,
    TEMU_OTF2_ATTRS
};
/* Name and description of each (otf2_write.c). */
extern const char *const temu_otf2_attr_names[TEMU_OTF2_ATTRS];
extern const char *const temu_otf2_attr_descs[TEMU_OTF2_ATTRS];

/* Archive property: point-to-point receives are in the trace ("yes") or
 * not ("no": the live layer counts at the sender and records only sends). */
#define TEMU_OTF2_PROP_RECEIVES "TORUSEMU::RECEIVES"

/* The file a run whose trace could not be written leaves in DIR instead
 * of an archive (its first line says why; doc/replay.md). */
#define TEMU_OTF2_INCOMPLETE "traces.incomplete"

/* End `torusemu run --trace DIR` of nranks ranks whose launcher exits
 * with run_status: the raw per-rank files of DIR (protocol/trace_format.h)
 * turned into the OTF2 archive DIR/traces.otf2 when the run succeeded and
 * they convert, else no archive -- the raw files and any part of an archive are
 * removed and DIR/traces.incomplete says why.  0, or -1 with the reason in
 * msg. */
int temu_otf2_finish(const char *dir, int32_t nranks, int run_status, char *msg, size_t len);

/* Replay the OTF2 archive `anchor` (DIR/traces.otf2, or DIR) into r; its
 * ranks must be the replay's.  progress may be NULL. */
temu_status temu_otf2_replay(const char *anchor, temu_replay *r, temu_progress_fn progress,
                             void *ctx, temu_error *err);
/*
 * A timed replay's archive read as its ranks reach it (doc/replay.md,
 * "Virtual time"): r's virtual time (temu_replay_set_vtime) gets a source
 * that records the next `chunk` records, in the time order the whole
 * replay reads them (the same results), each time a rank has run out of
 * operations, and reads on to the end of every collective a chunk enters.
 * The reader and its definitions live until temu_otf2_lazy_free, after
 * the run.
 */
typedef struct temu_otf2_lazy temu_otf2_lazy;
temu_status temu_otf2_lazy_open(const char *anchor, temu_replay *r, uint64_t chunk,
                                temu_otf2_lazy **out, temu_error *err);
void temu_otf2_lazy_free(temu_otf2_lazy *l);
/* Number of ranks (MPI locations) of an archive; -1 with err on failure. */
int32_t temu_otf2_ranks(const char *anchor, temu_error *err);

#endif
