/*
 * emu_internal.h - private declarations of the emulator library.
 * Not installed; only files of libtorusemu may include it.
 */
#ifndef TEMU_INTERNAL_H
#define TEMU_INTERNAL_H

#ifndef TEMU_BUILDING_LIBRARY
#error "emu_internal.h is private to libtorusemu"
#endif

#include "family.h"
#include "torusemu.h"

#include <stdarg.h>

/* Debug output that compiles out unless configured with --enable-debug. */
#ifdef TEMU_DEBUG
#define TEMU_DPRINT(...) fprintf(stderr, "torusemu: " __VA_ARGS__)
#else
#define TEMU_DPRINT(...) ((void)0)
#endif

/* Forced inlining: the injection path is compiled twice, once for a store
 * with no watch armed (no per-update test) and once for one with watches. */
#define TEMU_ALWAYS_INLINE inline __attribute__((always_inline))

#define TEMU_LIKELY(x) __builtin_expect(!!(x), 1)
#define TEMU_UNLIKELY(x) __builtin_expect(!!(x), 0)

/* a / b rounded up, without the a + b - 1 that wraps near 2^64 */
static inline uint64_t temu_ceil_div(uint64_t a, uint64_t b)
{
    return a / b + (a % b != 0);
}

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
    uint64_t watches_offset;  /* temu_watch_slot[TEMU_WATCH_MAX]   */
    uint64_t watch_bits_offset; /* one bit per counter: watched?   */
    uint32_t watch_lock;      /* spinlock for arm / disarm         */
    uint32_t clock;           /* network clock: TEMU_CLOCK_HOST / _VIRTUAL */
    uint64_t node_words_offset; /* uint64_t[nnodes][TEMU_NODE_WORDS] */
    /* CLOCK_MONOTONIC ns of each watch's latest crossing, as the injecting
     * process saw it (temu_watch_crossed_ns).  Appended inside the fixed
     * header page: a store made before it existed reads 0 here. */
    uint64_t watch_crossed_ns[TEMU_WATCH_MAX];
    /* 1 + the highest watch slot armed (the crossing path scans no
     * further); 0 in a store of an older library: scan every slot */
    uint32_t watch_top;
    /* 1 + the temu_tm_level of the model level whose stall and occupancy
     * counters were last added (timing_bridge.c); 0: none (no timing
     * model, or a store of an older library) */
    uint32_t model_level;
} temu_store_header;

_Static_assert(sizeof(temu_store_header) <= TEMU_STORE_HEADER_BYTES,
               "the store header must fit its page");

/* One overflow watch in the store (shared by all processes).  counters[i]
 * holds the counter index in bits 0..47 and its weight minus one in bits
 * 48..63 (temu_watch_options.weights; 0 = weight 1, what every watch of a
 * store made before weights existed holds). */
typedef struct temu_watch_slot {
    uint32_t state; /* TEMU_WATCH_FREE / _ACTIVE                       */
    int32_t signo;
    int32_t pid;
    int32_t tid;
    uint64_t threshold;
    uint64_t accum;   /* weighted counts since arm / restart (atomic)  */
    uint64_t pending; /* crossings not yet taken (atomic)              */
    int32_t ncounters;
    uint32_t delay_ns; /* slow detection: signal no sooner (0: at once) */
    int64_t counters[TEMU_WATCH_MAX_COUNTERS];
} temu_watch_slot;

/* temu_store_header.clock: what PEVT_NW_CYCLES counts in the store */
enum { TEMU_CLOCK_HOST = 0, TEMU_CLOCK_VIRTUAL = 1 };

#define TEMU_WATCH_IDX_BITS 48
#define TEMU_WATCH_IDX_MASK ((1ull << TEMU_WATCH_IDX_BITS) - 1)

enum { TEMU_WATCH_FREE = 0, TEMU_WATCH_ACTIVE = 2 };

typedef struct temu_rank_entry {
    int32_t pid; /* process that registered as this rank, 0 if none */
    int32_t tid;
} temu_rank_entry;

struct temu_session {
    temu_store_header *hdr; /* live header in the mapping: totals, watch state */
    /* checked at attach and fixed for the session's life: never re-read
     * from the file, which any writer may change (store_file.c) */
    temu_machine machine;
    const temu_family *family; /* the machine's descriptor (family.h) */
    uint64_t ncounters;
    int32_t nranks;
    int32_t ranks_per_node;
    int readonly; /* mapped PROT_READ: no write may be attempted */
    int virtual_time; /* header clock is TEMU_CLOCK_VIRTUAL (checked copy) */
    uint64_t *counters;
    temu_watch_slot *watches;
    uint8_t *watch_bits;
    uint64_t *node_words;
    int64_t gemini_nic_base; /* counter index of node 0's Gemini NIC section */
    int64_t bgq_mu_base; /* counter index of node 0's MU section (layout) */
    int64_t bgq_l2_base; /* counter index of node 0's L2 section          */
    temu_slot *mapping;
    temu_rank_entry *ranks;
    size_t map_bytes;
    int is_private;
    uint64_t serial; /* unique per session object in this process (memo keys) */
    /* What temu_store_armed reads: the header's count of armed watches, or,
     * in a session split across hosts (split.c), a word that stays 1, so
     * every update takes the watched path, where counters another host
     * owns are set aside for it.  One load either way. */
    const uint64_t *armed_word;
    struct temu_split *split; /* NULL: every counter is this store's own */
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
    int64_t bgq_nw_cycles; /* [node]: virtual network cycles */
    int64_t total;
} temu_layout;

void temu_layout_compute(const temu_machine *m, temu_layout *out);

/* Hops along dimension dim from coordinate `from` to `to` on the
 * deterministic route (route.c: shortest way, ties in the plus direction);
 * *dir is +1, -1, or 0 when no hop is needed. */
int temu_route_dim_steps(const temu_machine *m, int dim, int32_t from, int32_t to, int *dir);

/* Slow path of a counter update while watches are armed (watch.c). */
void temu_watch_hit(temu_session *s, int64_t idx, uint64_t delta);
/* End of an update while watches are armed: send the signals of slow
 * watches (delay_ns > 0) that crossed during it, each once its delay has
 * passed (watch.c).  Cheap when nothing is waiting. */
void temu_watch_flush(temu_session *s);

/* A counter another host owns: the update is kept for it (split.c) and 1
 * returned; 0 when the counter is this store's own. */
int temu_split_defer(temu_session *s, int64_t idx, uint64_t delta);
/* End of an update of a split session: what was set aside goes to the
 * hosts that own it (split.c). */
void temu_split_flush(temu_session *s);
/* Forget s's split state (temu_session_close). */
void temu_split_free(temu_session *s);
/* temu_session_attach_env for a run across nhosts hosts (split.c). */
temu_status temu_split_attach_env(const char *base, int32_t nhosts, temu_session **out,
                                  temu_error *err);

/* Every counter update goes through here.  `armed` is the session's armed
 * flag loaded once per injection; a split session is always armed, so the
 * unarmed copy of the injection path carries no test for it. */
static inline void temu_store_add(temu_session *s, int64_t idx, uint64_t delta, int armed)
{
    if (TEMU_UNLIKELY(armed) && TEMU_UNLIKELY(s->split != NULL) &&
        temu_split_defer(s, idx, delta)) {
        return;
    }
    __atomic_fetch_add(&s->counters[idx], delta, __ATOMIC_RELAXED);
    if (TEMU_UNLIKELY(armed) && (s->watch_bits[idx >> 3] >> (idx & 7) & 1u)) {
        temu_watch_hit(s, idx, delta);
    }
}

static inline int temu_store_armed(const temu_session *s)
{
    return __atomic_load_n(s->armed_word, __ATOMIC_RELAXED) != 0;
}

/* The store's running totals (messages, bytes) gain one message (inject.c). */
void temu_count_message(temu_session *s, const temu_message *msg);

/* ---------------------------------------------------------- injection memo */

/* The counter updates one injection makes, in order (memo.c, inject.c). */
#define TEMU_MEMO_MAX 128
typedef struct temu_update {
    int64_t idx;
    uint64_t delta;
} temu_update;

typedef struct temu_memo_entry {
    uint64_t serial; /* session; 0 = empty                              */
    int64_t src, dst;
    uint64_t bytes;
    uint64_t key; /* what the plan read of the payload (plan.c)        */
    int32_t kind;
    int32_t n; /* updates; -1: more than TEMU_MEMO_MAX, not kept       */
    temu_update u[TEMU_MEMO_MAX];
} temu_memo_entry;

/* Largest message whose updates inject.c keeps (memo.c): small messages
 * are where the per-message cost shows; larger ones also touch more
 * counters than an entry holds. */
#define MEMO_BYTES 4096u

/*
 * What the plan of msg reads of its payload, as a key (memo.c), by the
 * family's use of the payload (temu_family_info.payload):
 *   unused   nothing (BG/P: its counts do not depend on the bytes);
 *   address  only through the L2 lines of the sending side (BG/Q l2_lines:
 *            the first line's slice (a / 128) mod 16 and the number of
 *            lines);
 *   bytes    the uniformity of every 64-byte block gemini_stream_add scans
 *            (Gemini); kept only when it scans at most one block: an eager
 *            message whose header and data fit one transaction (a header > 0
 *            means no scan at all), a PUT or GET of at most 64 bytes.
 * Returns 0 when the message is not worth keeping or the plan would read
 * more; then it is planned as usual.
 */
static inline int temu_plan_payload_key(const temu_family *f, const temu_machine *m,
                                        const temu_message *msg, uint64_t *key)
{
    const unsigned char *data = msg->payload;
    *key = 0;
    /* nodes and kind are not checked here: a message the plan refuses is
     * never recorded, so it can match no entry */
    if (msg->bytes > MEMO_BYTES) {
        return 0;
    }
    if (data == NULL || f->info.payload == TEMU_PAYLOAD_UNUSED) {
        return 1;
    }
    if (f->info.payload == TEMU_PAYLOAD_ADDRESS) {
        /* l2_lines reads the first line's slice and the number of lines */
        uint64_t a = (uint64_t)(uintptr_t)data;
        uint64_t lines = msg->bytes == 0 ? 0 : (a + msg->bytes - 1) / 128 - a / 128 + 1;
        *key = (a / 128 % TEMU_BGQ_L2_SLICES) | lines << 4 | 1u << 20;
        return 1;
    }
    if (msg->kind == TEMU_KIND_PUT || msg->kind == TEMU_KIND_GET) {
        if (msg->bytes > TEMU_GEMINI_MAX_TRANSACTION) {
            return 0;
        }
        *key = 2u | (uint64_t)temu_payload_is_uniform(data, msg->bytes);
        return 1;
    }
    uint64_t header = m->protocol.mpi_header;
    if (msg->bytes >= m->protocol.eager_limit ||
        header + msg->bytes > TEMU_GEMINI_MAX_TRANSACTION) {
        return 0;
    }
    if (header == 0) {
        *key = 2u | (uint64_t)temu_payload_is_uniform(data, msg->bytes);
    }
    return 1;
}

#define TEMU_MEMO_SLOTS 64 /* power of two; ~130 KiB per thread */
extern __thread temu_memo_entry *temu_memo_table __attribute__((tls_model("initial-exec")));
/* Set while this thread looks up, records or replays an entry: an
 * injection from a signal handler that interrupts it (an overflow handler
 * may inject) goes the ordinary way and leaves the table alone. */
extern __thread int temu_memo_busy __attribute__((tls_model("initial-exec")));
/* Allocate this thread's table (memo.c); NULL when out of memory. */
temu_memo_entry *temu_memo_table_new(void);

/* This thread's entry for msg on session `serial`: a hit (the same serial
 * and message fields) or the slot to record into; NULL when no memory. */
static inline temu_memo_entry *temu_memo_slot(uint64_t serial, const temu_message *msg,
                                              uint64_t key)
{
    temu_memo_entry *t = temu_memo_table;
    if (TEMU_UNLIKELY(t == NULL) && (t = temu_memo_table_new()) == NULL) {
        return NULL;
    }
    uint64_t h = (uint64_t)msg->dst * 0x9e3779b97f4a7c15ull ^ msg->bytes * 0xc2b2ae3d27d4eb4full ^
                 (uint64_t)msg->src * 0x165667b19e3779f9ull ^ key ^ (uint64_t)msg->kind ^ serial;
    return &t[(h ^ h >> 29) & (TEMU_MEMO_SLOTS - 1)];
}
/* A fresh session serial. */
uint64_t temu_memo_serial(void);

/* ---------------------------------------------------------------- gemini */

/* Index of `tile` within its link's tile list (0..7 or 0..3), -1 for none. */
int temu_gemini_tile_position(int tile);

/* The tiles of each link (0..5 the torus directions, 6 the host link) in
 * ascending order, as temu_gemini_link_tiles lists them; built once. */
typedef struct temu_link_tiles {
    int n;
    int tile[TEMU_GEMINI_TILES];
} temu_link_tiles;
const temu_link_tiles *temu_gemini_tile_lists(void);

/* ---------------------------------------------------------------- timing */

/* Of `total` items split evenly over `all` packets (the first total mod
 * all get one more), those of packets first .. first + n - 1. */
static inline uint64_t temu_even_share(uint64_t total, uint64_t all, uint64_t first, uint64_t n)
{
    uint64_t q = total / all, r = total % all;
    uint64_t end = first + n < r ? first + n : r, begin = first < r ? first : r;
    return q * n + (end - begin);
}

/* temu_tm_send_even (emu/packet/train.c) for timing_bridge.c, with the BG/Q message
 * unit's memory requests of these packets: mu_reads payload reads at the
 * source, mu_writes stores at the destination, spread evenly over the
 * packets (doc/model.md, "Message-unit pending requests").  turns: these
 * packets take turns, train by train, with those of the send just made
 * (the same message's, from the same node at the same time: Gemini's
 * slots, which the packetizer takes in turn). */
struct temu_tm;
temu_status temu_tm_send_even_mu(struct temu_tm *t, int64_t when_ps, int64_t src, int64_t dst,
                                 uint32_t count, uint64_t units, uint32_t unit_bytes, uint32_t cls,
                                 uint32_t lane_key, uint64_t tag, uint64_t mu_reads,
                                 uint64_t mu_writes, int turns, temu_error *err);

#endif /* TEMU_INTERNAL_H */
