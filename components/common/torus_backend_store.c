/*
 * torus_backend_store.c - the counter-store backend: counts of the emulated
 * machine, through libtorusemu's temu_idx_* and temu_counter_read only.
 *
 * Which store (doc/components.md, "Where counts come from"):
 *   TORUSEMU_SESSION set    attach that store; a missing or incompatible
 *                           store, or one of another system, is refused
 *                           with the library's reason (the component is
 *                           then disabled and says why).
 *   unset                   a private, zeroed store of a default machine of
 *                           the component's system: an idle machine whose
 *                           counters read 0.
 * The rank's virtual clock (rank_clock_ps) is the MPI layer's, found by
 * name in the process (TEMU_VT_CLOCK_SYMBOL, include/torusemu.h).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1 /* RTLD_DEFAULT */
#endif
#include "torus_backend.h"
#include "torus_table.h"
#include "torusemu.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct torus_backend {
    temu_session *s;
    int system;
    int idle; /* no session: every node reads 0, so any node will do */
    char source[160];
};

/* Idle machines when no session is configured: a real machine of each
 * family, its idle_preset (the store is sparse, so its size costs
 * nothing). */
static const char *idle_machine(int system)
{
    const temu_family_info *f = temu_family_info_get(system);
    return f != NULL ? f->idle_preset : "midplane";
}

static int store_open(int system, torus_backend **out, char *why, size_t len)
{
    temu_error err;
    temu_session *s = NULL;
    temu_machine m;
    torus_backend *b;
    const char *path = getenv(TEMU_SESSION_ENV);
    int rc = TORUS_OK;

    *out = NULL;
    b = calloc(1, sizeof *b);
    if (b == NULL) {
        snprintf(why, len, "out of memory");
        return TORUS_ENOMEM;
    }
    if (path != NULL && path[0] != '\0') {
        if (temu_session_attach_env(&s, &err) != TEMU_OK) {
            snprintf(why, len, "%s", err.message);
            rc = TORUS_ESYS;
        } else if (temu_session_machine(s)->system != system) { /* counts of another unit */
            snprintf(why, len, "%s=%s is a %s machine (%s); this component counts %s hardware",
                     TEMU_SESSION_ENV, path, temu_system_name(temu_session_machine(s)->system),
                     temu_session_machine(s)->name, temu_system_name(system));
            rc = TORUS_ESYS;
        } else {
            snprintf(b->source, sizeof b->source, "session %s", path);
        }
    } else if (temu_machine_parse(idle_machine(system), &m, &err) != TEMU_OK ||
               temu_session_create_private(&m, &s, &err) != TEMU_OK) {
        snprintf(why, len, "cannot create an idle %s machine: %s", idle_machine(system),
                 err.message);
        rc = TORUS_ESYS;
    } else {
        snprintf(b->source, sizeof b->source, "idle %s (%s unset)", idle_machine(system),
                 TEMU_SESSION_ENV);
        b->idle = 1;
    }
    if (rc != TORUS_OK) {
        temu_session_close(s);
        free(b);
        return rc;
    }
    b->s = s;
    b->system = system;
    *out = b;
    return TORUS_OK;
}

static void store_close(torus_backend *b)
{
    if (b != NULL) {
        temu_session_close(b->s);
        free(b);
    }
}

/* Why the calling process has no node on the session's machine. */
static void explain_unknown(const temu_session *s, const temu_identity *id, char *buf, size_t len)
{
    if (id->rank >= 0) {
        snprintf(buf, len,
                 "rank %d (from the environment) is not placed by the session, which maps %d "
                 "ranks; set %s to this process's node",
                 (int)id->rank, (int)temu_session_nranks(s), TEMU_NODE_ENV);
    } else {
        snprintf(buf, len,
                 "this process's node is not known: none of %s, %s, OMPI_COMM_WORLD_RANK, "
                 "PMIX_RANK, PMI_RANK is set (start it under mpirun or `torusemu run`, or set "
                 "%s)",
                 TEMU_NODE_ENV, TEMU_RANK_ENV, TEMU_NODE_ENV);
    }
}

static void store_place(torus_backend *b, torus_place *out)
{
    const temu_machine *m = temu_session_machine(b->s);
    temu_identity id = temu_identity_get(b->s);
    memset(out, 0, sizeof *out);
    out->system = m->system;
    snprintf(out->machine, sizeof out->machine, "%s", m->name);
    snprintf(out->source, sizeof out->source, "%s", b->source);
    out->nnodes = m->nnodes;
    out->node = id.node;
    out->router = temu_node_router(m, id.node);
    out->rank = id.rank;
    out->hwthread = id.hwthread;
    out->virtual_clock = temu_session_virtual_time(b->s);
    if (!id.known && !b->idle) {
        explain_unknown(b->s, &id, out->unknown, sizeof out->unknown);
    }
    /* identity fields are all that can change; fold them into a tag */
    out->generation = ((uint64_t)id.node << 24) ^ ((uint64_t)(uint32_t)id.rank << 8) ^
                      (uint64_t)(id.hwthread & 0xff) ^ ((uint64_t)id.explicit_set << 63);
}

static int64_t store_index(const temu_machine *m, const torus_hwref *r)
{
    switch (r->unit) {
    case TORUS_UNIT_GEMINI_TILE:
        return temu_idx_gemini_tile(m, r->where, r->a, r->b);
    case TORUS_UNIT_GEMINI_NIC:
        return temu_idx_gemini_nic(m, r->where, r->a);
    case TORUS_UNIT_BGP_TORUS:
        return temu_idx_bgp(m, r->where, r->a, r->b);
    case TORUS_UNIT_BGQ_NW:
        return temu_idx_bgq_nw(m, r->where, r->a, r->b, r->c);
    case TORUS_UNIT_BGQ_MU:
        return temu_idx_bgq_mu(m, r->where, r->a);
    case TORUS_UNIT_BGQ_L2:
        return temu_idx_bgq_l2(m, r->where, r->a, r->b);
    case TORUS_UNIT_BGQ_CNK_NODE:
        return temu_idx_bgq_cnk_node(m, r->where, r->a);
    case TORUS_UNIT_BGQ_CNK_HWT:
        return temu_idx_bgq_cnk_hwt(m, r->where, r->a, r->b);
    case TORUS_UNIT_BGQ_NW_CYCLES:
        return temu_idx_bgq_nw_cycles(m, r->where);
    default:
        return -1;
    }
}

static int store_program(torus_backend *b, const torus_hwref *refs, int n, int64_t *handles,
                         char *why, size_t len)
{
    const temu_machine *m = temu_session_machine(b->s);
    for (int i = 0; i < n; i++) {
        handles[i] = store_index(m, &refs[i]);
        if (handles[i] < 0) {
            snprintf(why, len, "counter (unit %d, %lld, %d, %d, %d) is not on machine %s",
                     refs[i].unit, (long long)refs[i].where, refs[i].a, refs[i].b, refs[i].c,
                     m->name);
            return TORUS_EINVAL;
        }
    }
    return TORUS_OK;
}

static int store_nop(torus_backend *b, const int64_t *handles, int n)
{
    (void)b;
    (void)handles;
    (void)n;
    return TORUS_OK;
}

static void store_read(const torus_backend *b, const int64_t *handles, int n, uint64_t *out)
{
    temu_counter_read_many(b->s, handles, n, out);
}

static int store_arm(torus_backend *b, const int64_t *handles, const uint32_t *weights, int n,
                     uint64_t threshold, int signo, uint32_t delay_ns, int32_t *id, char *why,
                     size_t len)
{
    temu_watch_spec spec = {handles, n, signo, threshold, 0, 0};
    temu_watch_options opt = {weights, delay_ns};
    temu_error err;
    temu_status rc = temu_watch_arm_ex(b->s, &spec, &opt, id, &err);
    if (rc != TEMU_OK) {
        snprintf(why, len, "%s", err.message);
        /* every watch of the session in use is a resource limit */
        return rc == TEMU_ERANGE ? TORUS_ECNFLCT : TORUS_EINVAL;
    }
    return TORUS_OK;
}

static void store_disarm(torus_backend *b, int32_t id)
{
    temu_watch_disarm(b->s, id);
}

static uint64_t store_messages(const torus_backend *b)
{
    return temu_session_messages(b->s);
}

static uint64_t store_take(torus_backend *b, int32_t id)
{
    return temu_watch_take(b->s, id);
}

/* NULL for a node outside the machine (temu_node_words checks). */
static uint64_t *store_node_words(torus_backend *b, int64_t node)
{
    return temu_node_words(b->s, node);
}

typedef int64_t (*store_clock_fn)(void);

/* The MPI layer's clock function, looked up once: the layer is loaded
 * (preloaded by `torusemu run`) before any PAPI call, or not at all. */
static store_clock_fn store_clock_lookup(void)
{
    static int looked;
    static store_clock_fn fn;
    store_clock_fn f;
    if (!__atomic_load_n(&looked, __ATOMIC_ACQUIRE)) {
        void *sym = dlsym(RTLD_DEFAULT, TEMU_VT_CLOCK_SYMBOL);
        memcpy(&f, &sym, sizeof f); /* object to function pointer (POSIX dlsym) */
        __atomic_store_n(&fn, f, __ATOMIC_RELAXED);
        __atomic_store_n(&looked, 1, __ATOMIC_RELEASE);
    }
    return __atomic_load_n(&fn, __ATOMIC_RELAXED);
}

/* The rank's virtual clock (ps) when the process is a rank of a `torusemu
 * run --virtual-time` job; -1 when no layer is loaded or it keeps no
 * virtual time (the layer's function answers -1 then). */
static int64_t store_rank_clock(const torus_backend *b)
{
    store_clock_fn f = store_clock_lookup();
    (void)b;
    return f != NULL ? f() : -1;
}

const torus_backend_ops torus_backend_store = {
    .name = "store",
    .open = store_open,
    .close = store_close,
    .place = store_place,
    .program = store_program,
    .start = store_nop,
    .stop = store_nop,
    .read = store_read,
    .arm_overflow = store_arm,
    .disarm_overflow = store_disarm,
    .take_overflow = store_take,
    .messages = store_messages,
    .node_words = store_node_words,
    .rank_clock_ps = store_rank_clock,
};

const torus_backend_ops *torus_backend_default(void)
{
    return &torus_backend_store;
}
