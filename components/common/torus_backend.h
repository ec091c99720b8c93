/*
 * torus_backend.h - the one seam between the PAPI components and where
 * counts come from.  Components name counters in hardware terms (a unit,
 * a router or node, and unit-local numbers); only a backend knows a store
 * layout or a file path.  Today there is one backend, the emulator's
 * counter store (torus_backend_store.c); a reader of real Cray gpcdr sysfs
 * files or of recorded snapshots would be a second torus_backend_ops.
 *
 * Life cycle: open -> place (who is the calling process) -> program
 * (hardware references -> handles, once per event-set change) -> start /
 * read / reset / stop (hot path: read takes handles only) -> close.
 * Counters are free-running 64-bit counts; the component layer keeps the
 * start values and subtracts, so read() must be cheap: for the store it is
 * one relaxed atomic load per handle.
 */
#ifndef TORUS_BACKEND_H
#define TORUS_BACKEND_H

#include <stddef.h>
#include <stdint.h>

/* Counter units.  `where` is a router (Gemini tiles) or a node. */
typedef enum torus_unit {
    TORUS_UNIT_GEMINI_TILE = 1, /* a = tile 0..47, b = counter 0..5 (GM_n_m_..._k)   */
    TORUS_UNIT_GEMINI_NIC,      /* a = NIC counter (temu_gemini_nic_counter)         */
    TORUS_UNIT_BGP_TORUS,       /* a = direction 0..5 (X-,X+,Y-,...), b = counter    */
    TORUS_UNIT_BGQ_NW,          /* a = link 0..10, b = kind (temu_bgq_nw_kind), c = VC */
    TORUS_UNIT_BGQ_MU,          /* a = UPC_C I/O SRAM index 0..63                     */
    TORUS_UNIT_BGQ_L2,          /* a = slice 0..15, b = counter 0..15                 */
    TORUS_UNIT_BGQ_CNK_NODE,    /* a = node CNK counter                               */
    TORUS_UNIT_BGQ_CNK_HWT,     /* a = hardware thread 0..63, b = CNK counter         */
    TORUS_UNIT_BGQ_NW_CYCLES    /* network cycles of virtual time (no a, b, c)       */
} torus_unit;

typedef struct torus_hwref {
    int unit;      /* torus_unit */
    int64_t where; /* router or node */
    int a, b, c;
} torus_hwref;

/* Where the calling process sits on the machine the backend shows. */
typedef struct torus_place {
    int system;       /* TEMU_SYSTEM_* of the machine                     */
    char machine[64]; /* canonical machine spec ("gemini:16x12x24")       */
    char source[160]; /* "session /path", "idle cielo (no session)"       */
    int64_t nnodes;
    int64_t node;        /* the process's node                               */
    int64_t router;      /* its router (Gemini: node / 2; Blue Gene: node)   */
    int32_t rank;        /* -1 when unknown                                  */
    int32_t hwthread;    /* hardware thread of the process on its node       */
    uint64_t generation; /* changes when the identity changes (MPI_Init)     */
    /* 1: the backend's network clock is virtual time (a store of a timed
     * replay), counted as TORUS_UNIT_BGQ_NW_CYCLES; 0: host time */
    int virtual_clock;
    /* empty when the node is known; else why not (a session is attached but
     * no rank or node variable places this process): counting is refused */
    char unknown[256];
} torus_place;

typedef struct torus_backend torus_backend;

typedef struct torus_backend_ops {
    const char *name;
    /* Attach the counts of a machine of `system`.  On failure returns a
     * torus_status and a reason for disabled_reason. */
    int (*open)(int system, torus_backend **out, char *why, size_t len);
    void (*close)(torus_backend *b);
    /* The calling process's place (cheap; call again after MPI_Init). */
    void (*place)(torus_backend *b, torus_place *out);
    /* Hardware references -> read handles.  TORUS_EINVAL with a reason
     * when a reference lies outside the machine. */
    int (*program)(torus_backend *b, const torus_hwref *refs, int n, int64_t *handles, char *why,
                   size_t len);
    /* Counting control for backends that must program hardware; the store
     * counts all the time, so these succeed without doing anything. */
    int (*start)(torus_backend *b, const int64_t *handles, int n);
    int (*stop)(torus_backend *b, const int64_t *handles, int n);
    /* Current free-running values of n counters. */
    void (*read)(const torus_backend *b, const int64_t *handles, int n, uint64_t *out);
    /* Overflow: a watch over the weighted sum of n counters (weights NULL =
     * all 1) that signals the arming thread with signo every `threshold`
     * counts, delay_ns after the crossing for a "slow" unit (0: at once),
     * whichever process updates the counters. */
    int (*arm_overflow)(torus_backend *b, const int64_t *handles, const uint32_t *weights, int n,
                        uint64_t threshold, int signo, uint32_t delay_ns, int32_t *id, char *why,
                        size_t len);
    void (*disarm_overflow)(torus_backend *b, int32_t id);
    uint64_t (*take_overflow)(torus_backend *b, int32_t id);
    /* Messages the machine has carried since the session was made (any
     * process): the traffic clock of TORUSEMU_MPX_CLOCK=messages:N. */
    uint64_t (*messages)(const torus_backend *b);
    /* The node-wide state words of `node` (TEMU_NODE_WORDS 64-bit words
     * shared by every process that reads the same machine), or NULL when
     * the node is not on the machine.  Used only through torus_node.h. */
    uint64_t *(*node_words)(torus_backend *b, int64_t node);
    /* The calling process's own network clock in picoseconds when it keeps
     * one -- a rank of a `torusemu run --virtual-time` job: its virtual
     * clock -- else -1.  Components reach clocks other than host time only
     * here. */
    int64_t (*rank_clock_ps)(const torus_backend *b);
} torus_backend_ops;

/* The emulator's counter store: $TORUSEMU_SESSION, or a private idle
 * store of a default machine of the system when the variable is unset. */
extern const torus_backend_ops torus_backend_store;

/* The backend components use (one today; chosen here so that adding a
 * second one changes no component). */
const torus_backend_ops *torus_backend_default(void);

#endif /* TORUS_BACKEND_H */
