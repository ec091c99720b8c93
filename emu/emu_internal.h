/*
 * emu_internal.h - private declarations of the emulator library.
 * Not installed; only files of libtorusemu may include it.
 */
#ifndef TEMU_INTERNAL_H
#define TEMU_INTERNAL_H

#ifndef TEMU_BUILDING_LIBRARY
#error "emu_internal.h is private to libtorusemu"
#endif

#include "torusemu.h"

#include <stdarg.h>

/* Debug output that compiles out unless configured with --enable-debug. */
#ifdef TEMU_DEBUG
#define TEMU_DPRINT(...) fprintf(stderr, "torusemu: " __VA_ARGS__)
#else
#define TEMU_DPRINT(...) ((void)0)
#endif

#define TEMU_LIKELY(x) __builtin_expect(!!(x), 1)
#define TEMU_UNLIKELY(x) __builtin_expect(!!(x), 0)

/* Record a failure: sets err (if any) and returns status. */
temu_status temu_fail(temu_error *err, temu_status status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* ---------------------------------------------------------------- store */

#define TEMU_STORE_MAGIC "TORUSEMU"
#define TEMU_STORE_HEADER_BYTES 4096u

/* First page of every store file.  Fixed layout; ABI version guards it. */
typedef struct temu_store_header {
    char magic[8];
    uint32_t abi_version;
    uint32_t header_bytes;
    uint64_t file_bytes;
    uint64_t counters_offset; /* bytes from the start of the file */
    uint64_t ncounters;
    uint64_t mapping_offset;  /* temu_slot[nranks]                */
    uint64_t ranks_offset;    /* temu_rank_entry[nranks]          */
    int32_t nranks;
    int32_t ranks_per_node;
    uint64_t created_unix;
    temu_machine machine;
    /* live totals, updated atomically by every injection */
    uint64_t messages;
    uint64_t bytes;
    /* number of armed overflow watches (0 keeps the injection path fast) */
    uint64_t armed;
} temu_store_header;

typedef struct temu_rank_entry {
    int32_t pid; /* process that registered as this rank, 0 if none */
    int32_t tid;
} temu_rank_entry;

struct temu_session {
    temu_store_header *hdr;
    uint64_t *counters;
    temu_slot *mapping;
    temu_rank_entry *ranks;
    size_t map_bytes;
    int is_private;
    char path[4096];
};

/* Section bases (counter indices) of a machine's store. */
typedef struct temu_layout {
    int64_t gemini_tiles; /* [router][48][6]              */
    int64_t gemini_nic;   /* [node][16]                   */
    int64_t bgp_torus;    /* [node][6][12]                */
    int64_t bgq_nw;       /* [node][11][3][7]             */
    int64_t bgq_mu;       /* [node][64]                   */
    int64_t bgq_l2;       /* [node][16][16]               */
    int64_t bgq_cnk_node; /* [node][2]                    */
    int64_t bgq_cnk_hwt;  /* [node][64][27]               */
    int64_t total;
} temu_layout;

void temu_layout_compute(const temu_machine *m, temu_layout *out);

/* ---------------------------------------------------------------- gemini */

/* Index of `tile` within its link's tile list (0..7 or 0..3), -1 for none. */
int temu_gemini_tile_position(int tile);

#endif /* TEMU_INTERNAL_H */
