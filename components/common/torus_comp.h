/*
 * torus_comp.h - the shared PAPI component layer of papi-torus.
 *
 * A component is a torus_component (its table, system and hooks) plus one
 * line, TORUS_COMPONENT_VECTOR(name, comp), that writes its papi_vector_t.
 * Everything PAPI asks for - enumeration, name <-> code with qualifiers,
 * event info, derived events, the control state, start / stop / read /
 * reset - is done here; a component only says how one event instance maps
 * to counters (resolve) and, where the hardware has rules, which events may
 * be counted together (admit / release).
 *
 * Read path: update_control_state and start turn every event into a list of
 * (counter, coefficient) terms over deduplicated counters; PAPI_read is one
 * backend read of those counters and a sum of coefficient x (now - start)
 * per event.  Derived events (presets/<c>.presets) are the same: their
 * terms are the base events' terms times the formula's coefficients.
 *
 * Overflow (PAPI_overflow, hardware_intr = 1): an event with a threshold
 * gets an overflow watch of the emulator over its counters (weighted by the
 * event's coefficients) while the set runs; the emulator signals the thread
 * that started the set (TORUS_SIGNAL) whichever process injects the
 * traffic, and torus_dispatch hands every crossing to PAPI's handler.
 * Host-measured events are checked on a 1 ms timer instead.
 *
 * Multiplexing (kernel_multiplex = 1): a set marked by PAPI_set_multiplex
 * may hold events the hardware cannot count together; they are split into
 * groups that can (the component's conflict hook), a timer rotates the
 * active group every time slice, and each event is scaled by the time its
 * group was active.  Semantics and limits: doc/overflow-multiplex.md.
 */
#ifndef TORUS_COMP_H
#define TORUS_COMP_H

#include "torus_backend.h"
#include "torus_node.h"
#include "torus_table.h"

#include <pthread.h>
#include <signal.h>
#include <time.h>

#include "papi.h"
#include "papi_internal.h"
#include "papi_memory.h"
#include "papi_vector.h"

/* Debug output that compiles out unless built with -DTORUS_DEBUG. */
#ifdef TORUS_DEBUG
#define TORUS_DPRINT(...) fprintf(stderr, "papi-torus: " __VA_ARGS__)
#else
#define TORUS_DPRINT(...) ((void)0)
#endif

#define TORUS_MAX_EVENTS 64           /* events per event set (num_mpx_cntrs)         */
#define TORUS_MAX_COUNTERS 1024       /* distinct counters one event set reads       */
#define TORUS_MAX_TERMS 2048          /* (counter, coefficient) pairs of one set      */
#define TORUS_PRIV_BYTES 64           /* per event set, owned by the component        */
#define TORUS_SLICE_NS 10000000ull    /* multiplex time slice when PAPI gives none   */
#define TORUS_SLICE_MIN_NS 100000ull  /* shortest slice accepted (100 us)          */
#define TORUS_HOST_POLL_NS 1000000ull /* host-measured overflow check period (1 ms) */
/* Signal of overflows and of the set timers: SIGRTMAX-3, the signal BGPM
 * used for its overflow handler (BG/Q driver, doc/references.md). */
#define TORUS_SIGNAL (SIGRTMAX - 3)

typedef struct torus_component torus_component;
typedef struct torus_control torus_control;
typedef struct torus_build torus_build;

/* Add one counter term to the event being resolved: coef x counter.  A host
 * source (source >= 0, read by torus_component.host_read) instead of a
 * counter: torus_build_host. */
int torus_build_counter(torus_build *b, const torus_hwref *ref, int64_t coef);
int torus_build_host(torus_build *b, int source, int64_t coef);

struct torus_component {
    const char *name;        /* = PAPI short_name = cmp_info.name           */
    const char *description; /* one line for papi_component_avail           */
    const torus_table *table;
    int system;    /* TEMU_SYSTEM_* whose counts it reads         */
    int num_cntrs; /* hardware counters (papi_component_avail); without
                    * an admit hook also the events one set holds */

    /* Extra names that are not in the table (e.g. Cray GPCD register
     * names); TORUS_ENOEVNT when `name` is not one.  May be NULL. */
    int (*alias)(const torus_component *c, const char *name, unsigned *code);
    /* Append the counters of base event `ev` with qualifier values `q` for
     * a process at `pl`, each times `coef`.  For a derived event q are the
     * derived event's qualifiers.  Required. */
    int (*resolve)(const torus_component *c, const torus_place *pl, const torus_event_def *ev,
                   const torus_qvals *q, int64_t coef, torus_build *b);
    /* Can the unit count the events picks[0..n) at the same time (its
     * per-set rules: counter modes, masks per counter)?  Pure: no claims.
     * TORUS_ECNFLCT with a reason when not.  An event set that is not
     * multiplexed must pass; a multiplexed one is split into groups that
     * pass.  May be NULL (any events go together). */
    int (*conflict)(const torus_component *c, const torus_pick *picks, int n, char *why,
                    size_t len);
    /* Node-wide claims of the set's events picks[0..n) (beside the
     * process's other event sets and other processes): TORUS_ECNFLCT with a
     * reason when the node is held otherwise.  ctl->switching is 1 when the
     * set is multiplexed over groups the unit cannot count at once (the
     * node's state would change at every slice: the claim must be
     * exclusive).  Called on every add / remove with the full new list; n =
     * 0 means the set is emptied.  May be NULL. */
    int (*admit)(torus_component *c, torus_control *ctl, const torus_pick *picks, int n, char *why,
                 size_t len);
    /* Called at every PAPI_start (under lock), after the read plan is made
     * for place pl and before counting begins: claim what counting needs
     * (BG/Q network links are attached when counting starts).  A refusal
     * (TORUS_ECNFLCT and a reason) fails PAPI_start.  May be NULL. */
    int (*attach)(torus_component *c, torus_control *ctl, const torus_place *pl, char *why,
                  size_t len);
    /* Give back what admit and attach claimed for ctl (set cleaned up).
     * May be NULL. */
    void (*release)(torus_component *c, torus_control *ctl);
    /* Current value of a host-measured source (monotonic count).  Must be
     * async-signal-safe (the set timer reads it).  May be NULL. */
    uint64_t (*host_read)(const torus_component *c, int source);
    /* Node-wide overflow threshold key of an event (BG/Q L2 and I/O: one
     * threshold per hardware counter for the whole node), or -1 when the
     * event's threshold is its own.  May be NULL. */
    int64_t (*overflow_key)(const torus_component *c, const torus_pick *p);
    /* "Slow" overflow detection delay of the unit in cycles of its
     * machine's processor clock (BG/Q L2, I/O); 0 = the signal leaves as
     * the crossing happens. */
    uint32_t overflow_delay_cycles;
    /* runtime: that delay in ns (torus_register) */
    uint32_t overflow_delay_ns;

    /* runtime, owned by torus_comp.c */
    int cidx;
    int unit_counters; /* TORUSEMU_UNIT_COUNTERS: events counted at once, 0 = no limit */
    const torus_backend_ops *ops;
    torus_backend *be;
    pthread_mutex_t lock; /* for node-wide state kept by the component */
};

struct torus_control {
    torus_component *comp;
    int nevents;
    torus_pick pick[TORUS_MAX_EVENTS];
    int multiplexed; /* PAPI_set_multiplex was called            */
    int switching;   /* multiplexed over groups of different node state */
    int ngroups;     /* groups of events counted together (1 = no slicing) */
    uint8_t group[TORUS_MAX_EVENTS];
    int running;
    int planned; /* the read plan below matches pick[] and place */
    uint64_t place_generation;
    /* read plan: counters [0, nbackend) from the backend, then host sources */
    int ncounters, nbackend;
    int64_t handle[TORUS_MAX_COUNTERS]; /* backend handle, or host source id  */
    uint64_t start[TORUS_MAX_COUNTERS];
    uint64_t now[TORUS_MAX_COUNTERS];
    int nterms;
    uint16_t term_counter[TORUS_MAX_TERMS];
    int64_t term_coef[TORUS_MAX_TERMS];
    int ev_first[TORUS_MAX_EVENTS], ev_nterms[TORUS_MAX_EVENTS];
    int64_t ev_div[TORUS_MAX_EVENTS];
    long long values[TORUS_MAX_EVENTS];
    uint64_t t_now; /* slice clock at the last sample: CLOCK_MONOTONIC ns, or
                       messages with the traffic clock (clock_msgs)     */
    /* TORUSEMU_MPX_CLOCK=messages:N (tests): the slice clock counts the
     * messages the machine carries and a slice lasts N of them, ending at
     * the set's first read after them; 0 = wall-clock slices */
    uint64_t clock_msgs;

    /* multiplexing: group `active` counts since t_slice, until t_next; the
     * counts of earlier slices are in acc (raw sums: coefficients applied,
     * divisor not yet), the groups' active time in group_ns.  Slices last
     * 0.5 to 1.5 x slice_ns at random (rng), so that no periodic traffic
     * or scheduling pattern keeps falling into the same group. */
    uint64_t slice_ns;
    int active;
    uint64_t t_start, t_slice, t_next;
    uint64_t rng;
    uint64_t group_ns[TORUS_MAX_EVENTS];
    int64_t acc[TORUS_MAX_EVENTS];

    /* overflow: threshold per event (0 = none), in the event's units */
    uint64_t ovf_threshold[TORUS_MAX_EVENTS];
    int32_t ovf_watch[TORUS_MAX_EVENTS]; /* armed watch while running, or -1 */
    int ovf_host;                        /* sampled host-measured events      */
    /* host-measured overflow progress, in raw units since PAPI_start: the
     * raw values of the segments before the last PAPI_reset (carry) plus
     * the current raw value; last = that progress at the last check */
    int64_t ovf_host_carry[TORUS_MAX_EVENTS];
    int64_t ovf_host_last[TORUS_MAX_EVENTS];
    uint64_t ovf_host_pend[TORUS_MAX_EVENTS];
    torus_claim ovf_claim[TORUS_MAX_EVENTS]; /* node-wide thresholds (overflow_key) */
    int signal_held;                         /* _papi_hwi_start_signal done for this run */
    PAPI_overflow_handler_t handler;         /* of the last accepted PAPI_overflow */

    /* set timer (multiplex slices, host overflow checks) */
    int timer_on;
    timer_t timer;
    uint64_t timer_ns;
    /* a signal arriving while the owner thread is inside this set's code
     * is deferred (busy) and raised again when it leaves */
    volatile sig_atomic_t busy, deferred;

    char why[256]; /* reason of the last refusal (tests, debugging) */
    unsigned char priv[TORUS_PRIV_BYTES];
};

typedef struct torus_context {
    int unused;
} torus_context;

/* Decode a code of c's table (component-level view, for hooks). */
int torus_pick_code(const torus_component *c, unsigned code, torus_pick *out);
/* Visit the base events (with coefficient) that an event is made of:
 * itself, or the terms of a derived event. */
typedef void (*torus_base_visit)(const torus_event_def *base, int64_t mul, void *arg);
void torus_pick_bases(const torus_component *c, const torus_pick *p, torus_base_visit fn,
                      void *arg);

/* Vector entry points (one implementation for all components). */
int torus_init_component(torus_component *c, papi_vector_t *v, int cidx);
int torus_shutdown_component(torus_component *c);
int torus_init_control_state(torus_component *c, hwd_control_state_t *ctl);
int torus_ntv_enum_events(torus_component *c, unsigned *code, int modifier);
int torus_ntv_name_to_code(torus_component *c, const char *name, unsigned *code);
int torus_ntv_code_to_name(torus_component *c, unsigned code, char *name, int len);
int torus_ntv_code_to_descr(torus_component *c, unsigned code, char *descr, int len);
int torus_ntv_code_to_info(torus_component *c, unsigned code, PAPI_event_info_t *info);
int torus_update_control_state(hwd_control_state_t *ctl, NativeInfo_t *native, int count,
                               hwd_context_t *ctx);
int torus_start(hwd_context_t *ctx, hwd_control_state_t *ctl);
int torus_stop(hwd_context_t *ctx, hwd_control_state_t *ctl);
int torus_read(hwd_context_t *ctx, hwd_control_state_t *ctl, long long **values, int flags);
int torus_reset(hwd_context_t *ctx, hwd_control_state_t *ctl);
int torus_cleanup_eventset(hwd_control_state_t *ctl);
int torus_init_thread(hwd_context_t *ctx);
int torus_shutdown_thread(hwd_context_t *ctx);
int torus_ctl(hwd_context_t *ctx, int code, _papi_int_option_t *option);
int torus_set_domain(hwd_control_state_t *ctl, int domain);
int torus_set_overflow(EventSetInfo_t *ESI, int EventIndex, int threshold);
void torus_dispatch(int signo, hwd_siginfo_t *info, void *uc);

/*
 * TORUS_COMPONENT_VECTOR(name, comp) defines papi_vector_t _<name>_vector
 * for the torus_component `comp`.  Counting is node-wide network hardware:
 * every domain is accepted and counts do not depend on it.  hardware_intr:
 * overflow comes from the emulator's watches (set_overflow); PAPI's
 * software overflow (PAPI_OVERFLOW_FORCE_SW) reaches dispatch_timer too.
 * kernel_multiplex: the component multiplexes (PAPI's software
 * multiplexing cannot serve a non-CPU component).
 */
#define TORUS_COMPONENT_VECTOR(NAME, COMP)                                                         \
    papi_vector_t _##NAME##_vector;                                                                \
    static int NAME##_init_component(int cidx)                                                     \
    {                                                                                              \
        return torus_init_component(&(COMP), &_##NAME##_vector, cidx);                             \
    }                                                                                              \
    static int NAME##_shutdown_component(void)                                                     \
    {                                                                                              \
        return torus_shutdown_component(&(COMP));                                                  \
    }                                                                                              \
    static int NAME##_init_control_state(hwd_control_state_t *ctl)                                 \
    {                                                                                              \
        return torus_init_control_state(&(COMP), ctl);                                             \
    }                                                                                              \
    static int NAME##_ntv_enum_events(unsigned *code, int modifier)                                \
    {                                                                                              \
        return torus_ntv_enum_events(&(COMP), code, modifier);                                     \
    }                                                                                              \
    static int NAME##_ntv_name_to_code(const char *name, unsigned *code)                           \
    {                                                                                              \
        return torus_ntv_name_to_code(&(COMP), name, code);                                        \
    }                                                                                              \
    static int NAME##_ntv_code_to_name(unsigned code, char *name, int len)                         \
    {                                                                                              \
        return torus_ntv_code_to_name(&(COMP), code, name, len);                                   \
    }                                                                                              \
    static int NAME##_ntv_code_to_descr(unsigned code, char *descr, int len)                       \
    {                                                                                              \
        return torus_ntv_code_to_descr(&(COMP), code, descr, len);                                 \
    }                                                                                              \
    static int NAME##_ntv_code_to_info(unsigned code, PAPI_event_info_t *info)                     \
    {                                                                                              \
        return torus_ntv_code_to_info(&(COMP), code, info);                                        \
    }                                                                                              \
    papi_vector_t _##NAME##_vector = {                                                             \
        .cmp_info = {.name = #NAME,                                                                \
                     .short_name = #NAME,                                                          \
                     .version = "1.0",                                                             \
                     .num_mpx_cntrs = TORUS_MAX_EVENTS,                                            \
                     .default_domain = PAPI_DOM_ALL,                                               \
                     .available_domains = PAPI_DOM_ALL,                                            \
                     .default_granularity = PAPI_GRN_THR,                                          \
                     .available_granularities = PAPI_GRN_THR,                                      \
                     .hardware_intr_sig = PAPI_INT_SIGNAL,                                         \
                     .hardware_intr = 1,                                                           \
                     .kernel_multiplex = 1,                                                        \
                     .cntr_umasks = 1},                                                            \
        .size = {.context = sizeof(torus_context),                                                 \
                 .control_state = sizeof(torus_control),                                           \
                 .reg_value = 1,                                                                   \
                 .reg_alloc = 1},                                                                  \
        .init_component = NAME##_init_component,                                                   \
        .shutdown_component = NAME##_shutdown_component,                                           \
        .init_thread = torus_init_thread,                                                          \
        .shutdown_thread = torus_shutdown_thread,                                                  \
        .init_control_state = NAME##_init_control_state,                                           \
        .update_control_state = torus_update_control_state,                                        \
        .start = torus_start,                                                                      \
        .stop = torus_stop,                                                                        \
        .read = torus_read,                                                                        \
        .reset = torus_reset,                                                                      \
        .cleanup_eventset = torus_cleanup_eventset,                                                \
        .ctl = torus_ctl,                                                                          \
        .set_domain = torus_set_domain,                                                            \
        .set_overflow = torus_set_overflow,                                                        \
        .dispatch_timer = torus_dispatch,                                                          \
        .ntv_enum_events = NAME##_ntv_enum_events,                                                 \
        .ntv_name_to_code = NAME##_ntv_name_to_code,                                               \
        .ntv_code_to_name = NAME##_ntv_code_to_name,                                               \
        .ntv_code_to_descr = NAME##_ntv_code_to_descr,                                             \
        .ntv_code_to_info = NAME##_ntv_code_to_info,                                               \
    }

#endif /* TORUS_COMP_H */
