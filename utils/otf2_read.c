/*
 * otf2_read.c - replay an OTF2 archive: the ones `torusemu run --trace`
 * writes (exact: the live layer's description of every call is in
 * torusemu:* attributes) and ones other tools write (Score-P; sizes of
 * collectives inferred from sizeSent/sizeReceived as Score-P records them).
 * doc/replay.md lists what is read, what is ignored and what is refused.
 */
#include "otf2_trace.h"

#include <otf2/otf2.h>

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

typedef struct group {
    int defined;
    OTF2_GroupType type;
    uint32_t n;
    uint64_t *members;
} group;

typedef struct rcomm {
    int defined;
    uint32_t group;
    int32_t id; /* replay communicator, -1 until set up    */
    int32_t n;
    int32_t *rank; /* world rank -> communicator rank, -1 outside */
} rcomm;

/* A table indexed by a definition id, grown on demand. */
#define GROW(arr, cap, idx)                                                                        \
    do {                                                                                           \
        if ((idx) >= (cap)) {                                                                      \
            size_t ncap_ = (idx) + 16;                                                             \
            void *g_ = realloc((arr), ncap_ * sizeof *(arr));                                      \
            if (g_ == NULL) {                                                                      \
                return OTF2_CALLBACK_INTERRUPT;                                                    \
            }                                                                                      \
            (arr) = g_;                                                                            \
            memset((arr) + (cap), 0, (ncap_ - (cap)) * sizeof *(arr));                             \
            (cap) = ncap_;                                                                         \
        }                                                                                          \
    } while (0)

typedef struct ctx {
    temu_replay *r;
    char **strings;
    size_t nstrings;
    int *attr_slot; /* OTF2 attribute id -> A_*, -1 */
    size_t nattrs;
    group *groups;
    size_t ngroups;
    rcomm *comms;
    size_t ncomms;
    uint32_t *win_comm;
    size_t nwins;
    uint64_t *loc_ids; /* location ids in definition order */
    size_t nlocs, locs_cap;
    struct loc_entry {
        uint64_t id;
        int32_t rank;
    } * loc_sorted; /* by id, for rank_of */
    int32_t nranks;
    uint64_t done, total;
    temu_progress_fn progress;
    void *pctx;
    temu_status st;
    temu_error *err;
    uint64_t *blocks, *offs; /* scratch for collectives */
    int32_t *nb;
    uint64_t resolution, offset; /* clock: ticks per second, the first tick */
    int64_t *coll_begin;         /* world rank -> its collective's begin (ns), -1 */
} ctx;

static temu_status fail_err(temu_error *err, temu_status st, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static temu_status fail_err(temu_error *err, temu_status st, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    if (err != NULL) {
        vsnprintf(err->message, sizeof err->message, fmt, ap);
        err->status = st;
    }
    va_end(ap);
    return st;
}

static OTF2_CallbackCode stop(ctx *c, temu_status st, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static OTF2_CallbackCode stop(ctx *c, temu_status st, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    if (c->err != NULL) {
        vsnprintf(c->err->message, sizeof c->err->message, fmt, ap);
        c->err->status = st;
    }
    va_end(ap);
    c->st = st;
    return OTF2_CALLBACK_INTERRUPT;
}

/* --------------------------------------------------------- definitions */

static OTF2_CallbackCode def_string(void *u, OTF2_StringRef self, const char *s)
{
    ctx *c = u;
    GROW(c->strings, c->nstrings, (size_t)self);
    free(c->strings[self]);
    c->strings[self] = strdup(s);
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode def_attribute(void *u, OTF2_AttributeRef self, OTF2_StringRef name,
                                       OTF2_StringRef desc, OTF2_Type type)
{
    ctx *c = u;
    (void)desc;
    (void)type;
    size_t old = c->nattrs;
    GROW(c->attr_slot, c->nattrs, (size_t)self);
    for (size_t i = old; i < c->nattrs; i++) {
        c->attr_slot[i] = -1;
    }
    c->attr_slot[self] = -1;
    for (int i = 0; i < TEMU_OTF2_ATTRS && name < c->nstrings && c->strings[name] != NULL; i++) {
        if (strcmp(c->strings[name], temu_otf2_attr_names[i]) == 0) {
            c->attr_slot[self] = i;
        }
    }
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode def_clock(void *u, uint64_t resolution, uint64_t offset, uint64_t length,
                                   uint64_t realtime)
{
    ctx *c = u;
    (void)length;
    (void)realtime;
    c->resolution = resolution;
    c->offset = offset;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode def_location(void *u, OTF2_LocationRef self, OTF2_StringRef name,
                                      OTF2_LocationType type, uint64_t nevents,
                                      OTF2_LocationGroupRef lg)
{
    ctx *c = u;
    (void)name;
    (void)type;
    (void)lg;
    GROW(c->loc_ids, c->locs_cap, c->nlocs);
    c->loc_ids[c->nlocs++] = self;
    c->total += nevents;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode def_group(void *u, OTF2_GroupRef self, OTF2_StringRef name,
                                   OTF2_GroupType type, OTF2_Paradigm paradigm,
                                   OTF2_GroupFlag flags, uint32_t n, const uint64_t *members)
{
    ctx *c = u;
    (void)name;
    (void)flags;
    if (paradigm != OTF2_PARADIGM_MPI) {
        return OTF2_CALLBACK_SUCCESS;
    }
    GROW(c->groups, c->ngroups, (size_t)self);
    group *g = &c->groups[self];
    g->members = malloc(((size_t)n + 1) * sizeof *g->members);
    if (g->members == NULL) {
        return OTF2_CALLBACK_INTERRUPT;
    }
    memcpy(g->members, members, (size_t)n * sizeof *members);
    g->n = n;
    g->type = type;
    g->defined = 1;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode def_comm(void *u, OTF2_CommRef self, OTF2_StringRef name,
                                  OTF2_GroupRef grp, OTF2_CommRef parent, OTF2_CommFlag flags)
{
    ctx *c = u;
    (void)name;
    (void)parent;
    (void)flags;
    GROW(c->comms, c->ncomms, (size_t)self);
    c->comms[self].defined = 1;
    c->comms[self].group = grp;
    c->comms[self].id = -1;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode def_win(void *u, OTF2_RmaWinRef self, OTF2_StringRef name,
                                 OTF2_CommRef comm, OTF2_RmaWinFlag flags)
{
    ctx *c = u;
    (void)name;
    (void)flags;
    size_t old = c->nwins;
    GROW(c->win_comm, c->nwins, (size_t)self);
    for (size_t i = old; i < c->nwins; i++) {
        c->win_comm[i] = UINT32_MAX;
    }
    c->win_comm[self] = comm;
    return OTF2_CALLBACK_SUCCESS;
}

static int cmp_loc(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* Index of location id in the sorted table, or nlocs. */
static size_t find_loc(const ctx *c, uint64_t id)
{
    size_t lo = 0, hi = c->nlocs;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (c->loc_sorted[mid].id < id) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    return lo < c->nlocs && c->loc_sorted[lo].id == id ? lo : c->nlocs;
}

/* World rank of each location: its place in the COMM_LOCATIONS group
 * (OTF2's list of the MPI processes), else definition order. */
static temu_status rank_locations(ctx *c)
{
    const group *locs = NULL;
    for (size_t i = 0; i < c->ngroups; i++) {
        if (c->groups[i].defined && c->groups[i].type == OTF2_GROUP_TYPE_COMM_LOCATIONS) {
            locs = &c->groups[i];
        }
    }
    c->nranks = locs != NULL ? (int32_t)locs->n : (int32_t)c->nlocs;
    c->loc_sorted = malloc((c->nlocs + 1) * sizeof *c->loc_sorted);
    if (c->loc_sorted == NULL) {
        return fail_err(c->err, TEMU_ENOMEM, "out of memory");
    }
    for (size_t i = 0; i < c->nlocs; i++) {
        c->loc_sorted[i].id = c->loc_ids[i];
        c->loc_sorted[i].rank = locs != NULL ? -1 : (int32_t)i;
    }
    qsort(c->loc_sorted, c->nlocs, sizeof *c->loc_sorted, cmp_loc);
    for (uint32_t j = 0; locs != NULL && j < locs->n; j++) {
        size_t i = find_loc(c, locs->members[j]);
        if (i < c->nlocs) {
            c->loc_sorted[i].rank = (int32_t)j;
        }
    }
    return TEMU_OK;
}

/* -------------------------------------------------------------- events */

/* World rank of a location (O(log n) per event: a trace of a linear
 * all-to-all has n^2 of them). */
static int32_t rank_of(const ctx *c, OTF2_LocationRef loc)
{
    size_t i = find_loc(c, loc);
    return i < c->nlocs ? c->loc_sorted[i].rank : -1;
}

/* The replay communicator of OTF2 communicator k, set up on first use. */
static rcomm *comm_get(ctx *c, OTF2_CommRef k)
{
    if (k >= c->ncomms || !c->comms[k].defined) {
        stop(c, TEMU_EINVAL, "OTF2 trace: event on communicator %u, which is not defined", k);
        return NULL;
    }
    rcomm *rc = &c->comms[k];
    if (rc->id >= 0) {
        return rc;
    }
    const group *g = rc->group < c->ngroups ? &c->groups[rc->group] : NULL;
    if (g == NULL || !g->defined || g->type != OTF2_GROUP_TYPE_COMM_GROUP) {
        stop(c, TEMU_EINVAL,
             "OTF2 trace: communicator %u has no MPI group of type COMM_GROUP (unsupported)", k);
        return NULL;
    }
    int32_t *members = malloc(((size_t)g->n + 1) * sizeof *members);
    rc->rank = malloc(((size_t)c->nranks + 1) * sizeof *rc->rank);
    if (members == NULL || rc->rank == NULL) {
        free(members);
        stop(c, TEMU_ENOMEM, "out of memory");
        return NULL;
    }
    int world = (int32_t)g->n == c->nranks;
    for (int32_t i = 0; i < c->nranks; i++) {
        rc->rank[i] = -1;
    }
    for (uint32_t i = 0; i < g->n; i++) {
        if (g->members[i] >= (uint64_t)c->nranks) {
            free(members);
            stop(c, TEMU_EINVAL, "OTF2 trace: communicator %u names rank %" PRIu64 " of %d", k,
                 g->members[i], c->nranks);
            return NULL;
        }
        members[i] = (int32_t)g->members[i];
        rc->rank[members[i]] = (int32_t)i;
        world = world && members[i] == (int32_t)i;
    }
    rc->n = (int32_t)g->n;
    if (world) {
        rc->id = TEMU_REPLAY_WORLD;
    } else {
        rc->id = temu_replay_unused_comm(c->r);
        c->st = temu_replay_comm(c->r, rc->id, rc->n, members, c->err);
    }
    free(members);
    return c->st == TEMU_OK ? rc : NULL;
}

/* Communicator and the caller's rank in it, or NULL (c->st set). */
static rcomm *caller(ctx *c, OTF2_LocationRef loc, OTF2_CommRef k, int32_t *me)
{
    int32_t w = rank_of(c, loc);
    if (w < 0) {
        stop(c, TEMU_EINVAL, "OTF2 trace: event of location %" PRIu64 ", not an MPI rank", loc);
        return NULL;
    }
    rcomm *rc = comm_get(c, k);
    if (rc != NULL && (*me = rc->rank[w]) < 0) {
        stop(c, TEMU_EINVAL, "OTF2 trace: rank %d uses communicator %u without being in it", w, k);
        return NULL;
    }
    return rc;
}

static void tick(ctx *c)
{
    c->done++;
    if (c->progress != NULL && (c->done & 0xffff) == 0) {
        c->progress(c->pctx, c->done, c->total);
    }
}

/* Trace time t in nanoseconds since the archive's first tick. */
static int64_t ns_of(const ctx *c, OTF2_TimeStamp t)
{
    uint64_t d = t > c->offset ? t - c->offset : 0;
    if (c->resolution == 0 || c->resolution == 1000000000u) {
        return (int64_t)d;
    }
    return (int64_t)((long double)d * 1e9L / (long double)c->resolution);
}

/* The stamps of loc's next operation (ns; -1 unknown) for virtual time:
 * what a record's time is, the begin or the end of its call, follows the
 * table in doc/replay.md. */
static int stamp(ctx *c, OTF2_LocationRef loc, int64_t begin, int64_t end)
{
    int32_t w = rank_of(c, loc);
    if (w < 0 || temu_replay_vtime(c->r) == NULL) {
        return 0;
    }
    c->st = temu_replay_trace_time(c->r, w, begin, end, c->err);
    return c->st == TEMU_OK ? 0 : -1;
}

/* Value of known attribute `slot` in list, if present. */
static int attr_u64(const ctx *c, OTF2_AttributeList *al, int slot, uint64_t *out)
{
    uint32_t n = al != NULL ? OTF2_AttributeList_GetNumberOfElements(al) : 0;
    for (uint32_t i = 0; i < n; i++) {
        OTF2_AttributeRef id;
        OTF2_Type type;
        OTF2_AttributeValue v;
        if (OTF2_AttributeList_GetAttributeByIndex(al, i, &id, &type, &v) != OTF2_SUCCESS ||
            id >= c->nattrs || c->attr_slot[id] != slot) {
            continue;
        }
        switch (type) {
        case OTF2_TYPE_UINT64:
            *out = v.uint64;
            return 1;
        case OTF2_TYPE_UINT32:
            *out = v.uint32;
            return 1;
        case OTF2_TYPE_STRING:
            *out = v.stringRef;
            return 1;
        default:
            return 0;
        }
    }
    return 0;
}

/* A send (req 0: blocking), stamped when its call began. */
static OTF2_CallbackCode send_req(OTF2_LocationRef loc, OTF2_TimeStamp t, void *u,
                                  OTF2_AttributeList *al, uint32_t receiver, OTF2_CommRef comm,
                                  uint32_t tag, uint64_t len, uint64_t req)
{
    ctx *c = u;
    int32_t me;
    uint64_t addr = 0, uncounted = 0;
    rcomm *rc = caller(c, loc, comm, &me);
    if (rc == NULL || stamp(c, loc, ns_of(c, t), -1) != 0) {
        return OTF2_CALLBACK_INTERRUPT;
    }
    attr_u64(c, al, TEMU_OTF2_A_ADDRESS, &addr);
    if (attr_u64(c, al, TEMU_OTF2_A_UNCOUNTED, &uncounted) && uncounted != 0) {
        c->st = temu_replay_send_uncounted(c->r, rc->id, me, (int32_t)receiver, (int32_t)tag, len,
                                           c->err);
    } else {
        c->st = temu_replay_isend(c->r, rc->id, me, (int32_t)receiver, (int32_t)tag, len, addr, req,
                                  c->err);
    }
    tick(c);
    return c->st == TEMU_OK ? OTF2_CALLBACK_SUCCESS : OTF2_CALLBACK_INTERRUPT;
}

static OTF2_CallbackCode ev_send(OTF2_LocationRef loc, OTF2_TimeStamp t, void *u,
                                 OTF2_AttributeList *al, uint32_t receiver, OTF2_CommRef comm,
                                 uint32_t tag, uint64_t len)
{
    return send_req(loc, t, u, al, receiver, comm, tag, len, 0);
}

static OTF2_CallbackCode ev_isend(OTF2_LocationRef loc, OTF2_TimeStamp t, void *u,
                                  OTF2_AttributeList *al, uint32_t receiver, OTF2_CommRef comm,
                                  uint32_t tag, uint64_t len, uint64_t req)
{
    return send_req(loc, t, u, al, receiver, comm, tag, len, req);
}

/* A receive completed (req 0: a blocking one), stamped when its call
 * returned. */
static OTF2_CallbackCode recv_req(OTF2_LocationRef loc, OTF2_TimeStamp t, void *u, uint32_t sender,
                                  OTF2_CommRef comm, uint32_t tag, uint64_t len, uint64_t req)
{
    ctx *c = u;
    int32_t me;
    rcomm *rc = caller(c, loc, comm, &me);
    if (rc == NULL || stamp(c, loc, -1, ns_of(c, t)) != 0) {
        return OTF2_CALLBACK_INTERRUPT;
    }
    c->st = temu_replay_irecv(c->r, rc->id, me, (int32_t)sender, (int32_t)tag, len, req, c->err);
    tick(c);
    return c->st == TEMU_OK ? OTF2_CALLBACK_SUCCESS : OTF2_CALLBACK_INTERRUPT;
}

static OTF2_CallbackCode ev_recv(OTF2_LocationRef loc, OTF2_TimeStamp t, void *u,
                                 OTF2_AttributeList *al, uint32_t sender, OTF2_CommRef comm,
                                 uint32_t tag, uint64_t len)
{
    (void)al;
    return recv_req(loc, t, u, sender, comm, tag, len, 0);
}

static OTF2_CallbackCode ev_irecv(OTF2_LocationRef loc, OTF2_TimeStamp t, void *u,
                                  OTF2_AttributeList *al, uint32_t sender, OTF2_CommRef comm,
                                  uint32_t tag, uint64_t len, uint64_t req)
{
    (void)al;
    return recv_req(loc, t, u, sender, comm, tag, len, req);
}

/* Request bookkeeping: only virtual time uses it (a post, a completion). */
static OTF2_CallbackCode request(OTF2_LocationRef loc, OTF2_TimeStamp t, void *u, uint64_t req,
                                 int post)
{
    ctx *c = u;
    int32_t w = rank_of(c, loc);
    if (w < 0 || temu_replay_vtime(c->r) == NULL) {
        return OTF2_CALLBACK_SUCCESS;
    }
    if (post) {
        if (stamp(c, loc, ns_of(c, t), -1) == 0) {
            c->st = temu_replay_irecv_post(c->r, w, req, c->err);
        }
    } else if (stamp(c, loc, -1, ns_of(c, t)) == 0) {
        c->st = temu_replay_wait(c->r, w, req, c->err);
    }
    return c->st == TEMU_OK ? OTF2_CALLBACK_SUCCESS : OTF2_CALLBACK_INTERRUPT;
}

static OTF2_CallbackCode ev_irecv_post(OTF2_LocationRef loc, OTF2_TimeStamp t, void *u,
                                       OTF2_AttributeList *al, uint64_t req)
{
    (void)al;
    return request(loc, t, u, req, 1);
}

static OTF2_CallbackCode ev_isend_done(OTF2_LocationRef loc, OTF2_TimeStamp t, void *u,
                                       OTF2_AttributeList *al, uint64_t req)
{
    (void)al;
    return request(loc, t, u, req, 0);
}

static OTF2_CallbackCode rma(ctx *c, OTF2_LocationRef loc, OTF2_TimeStamp t, OTF2_AttributeList *al,
                             OTF2_RmaWinRef win, uint32_t remote, uint64_t bytes, temu_kind kind)
{
    int32_t me;
    uint64_t addr = 0;
    if (win >= c->nwins || c->win_comm[win] == UINT32_MAX) {
        return stop(c, TEMU_EINVAL, "OTF2 trace: one-sided operation on window %u, not defined",
                    win);
    }
    rcomm *rc = caller(c, loc, c->win_comm[win], &me);
    if (rc == NULL || stamp(c, loc, ns_of(c, t), -1) != 0) {
        return OTF2_CALLBACK_INTERRUPT;
    }
    attr_u64(c, al, TEMU_OTF2_A_ADDRESS, &addr);
    c->st = temu_replay_rma_at(c->r, rc->id, me, (int32_t)remote, bytes, kind, addr, c->err);
    tick(c);
    return c->st == TEMU_OK ? OTF2_CALLBACK_SUCCESS : OTF2_CALLBACK_INTERRUPT;
}

static OTF2_CallbackCode ev_put(OTF2_LocationRef loc, OTF2_TimeStamp t, void *u,
                                OTF2_AttributeList *al, OTF2_RmaWinRef win, uint32_t remote,
                                uint64_t bytes, uint64_t match)
{
    (void)match;
    return rma(u, loc, t, al, win, remote, bytes, TEMU_KIND_PUT);
}

static OTF2_CallbackCode ev_get(OTF2_LocationRef loc, OTF2_TimeStamp t, void *u,
                                OTF2_AttributeList *al, OTF2_RmaWinRef win, uint32_t remote,
                                uint64_t bytes, uint64_t match)
{
    (void)match;
    return rma(u, loc, t, al, win, remote, bytes, TEMU_KIND_GET);
}

/* An atomic as the live layer models MPI's accumulates (mpi/account.c):
 * the operands out as a PUT, the result back as a GET. */
static OTF2_CallbackCode ev_atomic(OTF2_LocationRef loc, OTF2_TimeStamp t, void *u,
                                   OTF2_AttributeList *al, OTF2_RmaWinRef win, uint32_t remote,
                                   OTF2_RmaAtomicType type, uint64_t sent, uint64_t rcvd,
                                   uint64_t match)
{
    OTF2_CallbackCode rc = OTF2_CALLBACK_SUCCESS;
    (void)type;
    (void)match;
    if (sent > 0) {
        rc = rma(u, loc, t, al, win, remote, sent, TEMU_KIND_PUT);
    }
    if (rc == OTF2_CALLBACK_SUCCESS && rcvd > 0) {
        rc = rma(u, loc, t, al, win, remote, rcvd, TEMU_KIND_GET);
    }
    return rc;
}

/* A list attribute ("1 2 3") into out (n entries expected). */
static int parse_list(const ctx *c, uint64_t ref, int32_t n, int64_t *out)
{
    const char *s = ref < c->nstrings ? c->strings[ref] : NULL;
    for (int32_t i = 0; s != NULL && i < n; i++) {
        char *end;
        out[i] = strtoll(s, &end, 10);
        if (end == s) {
            return 0;
        }
        s = end;
    }
    return s != NULL;
}

/* A list of n byte counts into *buf (grown); 0 if malformed. */
static int u64_list(const ctx *c, uint64_t ref, int32_t n, uint64_t **buf)
{
    uint64_t *b = realloc(*buf, ((size_t)n + 1) * sizeof *b);
    if (b == NULL) {
        return 0;
    }
    *buf = b;
    return parse_list(c, ref, n, (int64_t *)b);
}

/* The live layer's description from torusemu:* attributes; 0 if absent. */
static int exact_coll(ctx *c, OTF2_AttributeList *al, const rcomm *rc, temu_replay_coll *k,
                      OTF2_CallbackCode *code)
{
    uint64_t op, v, ref;
    if (!attr_u64(c, al, TEMU_OTF2_A_OP, &op)) {
        return 0;
    }
    k->op = (int32_t)op;
    attr_u64(c, al, TEMU_OTF2_A_BYTES, &k->bytes);
    attr_u64(c, al, TEMU_OTF2_A_COUNT, &k->count);
    attr_u64(c, al, TEMU_OTF2_A_ELEM, &k->elem);
    attr_u64(c, al, TEMU_OTF2_A_SEND_BASE, &k->send_base);
    attr_u64(c, al, TEMU_OTF2_A_RECV_BASE, &k->recv_base);
    if (attr_u64(c, al, TEMU_OTF2_A_FLAGS, &v)) {
        k->commutative = (v & 1) != 0;
        k->blocking = (v & 2) != 0;
        k->hw_op = (v & 4) != 0;
        k->recv_ready = (v & 8) != 0;
    }
    int32_t nnb = 0;
    if (attr_u64(c, al, TEMU_OTF2_A_NEIGHBORS, &ref)) {
        const char *s = ref < c->nstrings ? c->strings[ref] : NULL;
        for (const char *p = s; p != NULL && *p; p++) {
            nnb += *p == ' ';
        }
        nnb += s != NULL && *s != '\0';
        int64_t *tmp = malloc(((size_t)nnb + 1) * sizeof *tmp);
        int32_t *nb = realloc(c->nb, ((size_t)nnb + 1) * sizeof *nb);
        if (tmp == NULL || nb == NULL || !parse_list(c, ref, nnb, tmp)) {
            free(tmp);
            if (nb != NULL) {
                c->nb = nb;
            }
            *code = stop(c, TEMU_EINVAL, "OTF2 trace: malformed %s", TEMU_OTF2_ATTR_NEIGHBORS);
            return 1;
        }
        c->nb = nb;
        for (int32_t i = 0; i < nnb; i++) {
            nb[i] = (int32_t)tmp[i];
        }
        free(tmp);
        k->nnb = nnb;
        k->nb = nb;
    }
    int32_t nblocks = k->nb != NULL || nnb > 0 ? nnb : rc->n;
    if (attr_u64(c, al, TEMU_OTF2_A_BLOCKS, &ref)) {
        if (!u64_list(c, ref, nblocks, &c->blocks)) {
            *code = stop(c, TEMU_EINVAL, "OTF2 trace: malformed %s", TEMU_OTF2_ATTR_BLOCKS);
            return 1;
        }
        k->blocks = c->blocks;
        if (attr_u64(c, al, TEMU_OTF2_A_OFFS, &ref)) {
            if (!u64_list(c, ref, nblocks, &c->offs)) {
                *code = stop(c, TEMU_EINVAL, "OTF2 trace: malformed %s", TEMU_OTF2_ATTR_OFFS);
                return 1;
            }
            k->offs = c->offs;
        }
    }
    return 1;
}

static const char *otf2_op_name(OTF2_CollectiveOp op)
{
    static const char *const names[] = {
        "BARRIER",
        "BCAST",
        "GATHER",
        "GATHERV",
        "SCATTER",
        "SCATTERV",
        "ALLGATHER",
        "ALLGATHERV",
        "ALLTOALL",
        "ALLTOALLV",
        "ALLTOALLW",
        "ALLREDUCE",
        "REDUCE",
        "REDUCE_SCATTER",
        "SCAN",
        "EXSCAN",
        "REDUCE_SCATTER_BLOCK",
        "CREATE_HANDLE",
        "DESTROY_HANDLE",
        "ALLOCATE",
        "DEALLOCATE",
        "CREATE_HANDLE_AND_ALLOCATE",
        "DESTROY_HANDLE_AND_DEALLOCATE",
    };
    return op < sizeof names / sizeof names[0] ? names[op] : "unknown";
}

/*
 * A collective without torusemu attributes (another tool's trace), with
 * sizeSent and sizeReceived as Score-P records them: totals over the n
 * members.  The per-rank block follows for the operations whose blocks
 * are all equal; the others carry per-peer sizes that are not in the trace.
 */
static int foreign_coll(ctx *c, OTF2_CollectiveOp op, int32_t n, uint64_t sent, uint64_t rcvd,
                        temu_replay_coll *k)
{
    k->blocking = 1;
    k->commutative = 1;
    k->hw_op = 1;
    switch (op) {
    case OTF2_COLLECTIVE_OP_BARRIER:
        k->op = TEMU_COLL_BARRIER;
        return 1;
    case OTF2_COLLECTIVE_OP_BCAST:
        k->op = TEMU_COLL_BCAST;
        k->bytes = rcvd;
        return 1;
    case OTF2_COLLECTIVE_OP_GATHER:
        k->op = TEMU_COLL_GATHER;
        k->bytes = sent;
        return 1;
    case OTF2_COLLECTIVE_OP_SCATTER:
        k->op = TEMU_COLL_SCATTER;
        k->bytes = rcvd;
        return 1;
    case OTF2_COLLECTIVE_OP_ALLGATHER:
        k->op = TEMU_COLL_ALLGATHER;
        k->bytes = rcvd / (uint64_t)n;
        return 1;
    case OTF2_COLLECTIVE_OP_ALLTOALL:
        k->op = TEMU_COLL_ALLTOALL;
        k->bytes = sent / (uint64_t)n;
        return 1;
    case OTF2_COLLECTIVE_OP_REDUCE:
        k->op = TEMU_COLL_REDUCE;
        k->bytes = sent;
        return 1;
    case OTF2_COLLECTIVE_OP_ALLREDUCE:
        k->op = TEMU_COLL_ALLREDUCE;
        k->bytes = sent / (uint64_t)n;
        return 1;
    case OTF2_COLLECTIVE_OP_CREATE_HANDLE:
    case OTF2_COLLECTIVE_OP_DESTROY_HANDLE:
    case OTF2_COLLECTIVE_OP_ALLOCATE:
    case OTF2_COLLECTIVE_OP_DEALLOCATE:
    case OTF2_COLLECTIVE_OP_CREATE_HANDLE_AND_ALLOCATE:
    case OTF2_COLLECTIVE_OP_DESTROY_HANDLE_AND_DEALLOCATE:
        return 2; /* window or communicator set-up: no modelled traffic */
    default:
        (void)c;
        return 0;
    }
}

static OTF2_CallbackCode ev_coll(OTF2_LocationRef loc, OTF2_TimeStamp t, void *u,
                                 OTF2_AttributeList *al, OTF2_CollectiveOp op, OTF2_CommRef comm,
                                 uint32_t root, uint64_t sent, uint64_t rcvd)
{
    ctx *c = u;
    int32_t me;
    temu_replay_coll k;
    OTF2_CallbackCode code = OTF2_CALLBACK_SUCCESS;
    memset(&k, 0, sizeof k);
    rcomm *rc = caller(c, loc, comm, &me);
    int32_t w = rank_of(c, loc);
    if (rc == NULL ||
        stamp(c, loc, c->coll_begin != NULL ? c->coll_begin[w] : -1, ns_of(c, t)) != 0) {
        return OTF2_CALLBACK_INTERRUPT;
    }
    if (c->coll_begin != NULL) {
        c->coll_begin[w] = -1;
    }
    k.root = root == OTF2_UNDEFINED_UINT32 ? 0 : (int32_t)root;
    if (exact_coll(c, al, rc, &k, &code)) {
        if (code != OTF2_CALLBACK_SUCCESS) {
            return code;
        }
    } else {
        int how = foreign_coll(c, op, rc->n, sent, rcvd, &k);
        if (how == 0) {
            return stop(c, TEMU_EINVAL,
                        "OTF2 trace: unsupported record MpiCollectiveEnd(%s) without torusemu "
                        "attributes: its per-peer sizes are not in the trace",
                        otf2_op_name(op));
        }
        if (how == 2) {
            tick(c);
            return OTF2_CALLBACK_SUCCESS;
        }
    }
    c->st = temu_replay_collective(c->r, rc->id, me, &k, c->err);
    tick(c);
    return c->st == TEMU_OK ? OTF2_CALLBACK_SUCCESS : OTF2_CALLBACK_INTERRUPT;
}

/* A collective's begin: its time, for virtual time. */
static OTF2_CallbackCode ev_coll_begin(OTF2_LocationRef loc, OTF2_TimeStamp t, void *u,
                                       OTF2_AttributeList *al)
{
    ctx *c = u;
    int32_t w = rank_of(c, loc);
    (void)al;
    if (w >= 0 && c->coll_begin != NULL) {
        c->coll_begin[w] = ns_of(c, t);
    }
    return OTF2_CALLBACK_SUCCESS;
}

/* Records that carry communication this replay cannot model. */
static OTF2_CallbackCode ev_unknown(OTF2_LocationRef loc, OTF2_TimeStamp t, void *u,
                                    OTF2_AttributeList *al)
{
    (void)loc;
    (void)t;
    (void)al;
    return stop(u, TEMU_EINVAL,
                "OTF2 trace: unsupported record of a type this OTF2 library "
                "does not know");
}

static OTF2_CallbackCode ev_nbc_request(OTF2_LocationRef loc, OTF2_TimeStamp t, void *u,
                                        OTF2_AttributeList *al, uint64_t req)
{
    (void)loc;
    (void)t;
    (void)al;
    (void)req;
    return stop(u, TEMU_EINVAL, "OTF2 trace: unsupported record NonBlockingCollectiveRequest");
}

static OTF2_CallbackCode ev_nbc_complete(OTF2_LocationRef loc, OTF2_TimeStamp t, void *u,
                                         OTF2_AttributeList *al, OTF2_CollectiveOp op,
                                         OTF2_CommRef comm, uint32_t root, uint64_t sent,
                                         uint64_t rcvd, uint64_t req)
{
    (void)loc;
    (void)t;
    (void)al;
    (void)comm;
    (void)root;
    (void)sent;
    (void)rcvd;
    (void)req;
    return stop(u, TEMU_EINVAL, "OTF2 trace: unsupported record NonBlockingCollectiveComplete(%s)",
                otf2_op_name(op));
}

static OTF2_CallbackCode ev_io(OTF2_LocationRef loc, OTF2_TimeStamp t, void *u,
                               OTF2_AttributeList *al, OTF2_IoHandleRef h, OTF2_IoOperationMode m,
                               OTF2_IoOperationFlag f, uint64_t bytes, uint64_t match)
{
    (void)loc;
    (void)t;
    (void)al;
    (void)h;
    (void)m;
    (void)f;
    (void)bytes;
    (void)match;
    return stop(u, TEMU_EINVAL, "OTF2 trace: unsupported record IoOperationBegin (file I/O)");
}

/* ------------------------------------------------------------ the reader */

static void ctx_free(ctx *c)
{
    for (size_t i = 0; i < c->nstrings; i++) {
        free(c->strings[i]);
    }
    for (size_t i = 0; i < c->ngroups; i++) {
        free(c->groups[i].members);
    }
    for (size_t i = 0; i < c->ncomms; i++) {
        free(c->comms[i].rank);
    }
    free(c->strings);
    free(c->coll_begin);
    free(c->attr_slot);
    free(c->groups);
    free(c->comms);
    free(c->win_comm);
    free(c->loc_ids);
    free(c->loc_sorted);
    free(c->blocks);
    free(c->offs);
    free(c->nb);
}

/* DIR or DIR/traces.otf2 -> the anchor file's path. */
static void anchor_path(const char *in, char *out, size_t len)
{
    struct stat st;
    if (stat(in, &st) == 0 && S_ISDIR(st.st_mode)) {
        snprintf(out, len, "%s/traces.otf2", in);
    } else {
        snprintf(out, len, "%s", in);
    }
}

/* OTF2's own error reports stay quiet: a missing optional file (local
 * definitions of a serial writer) is no error here, and real failures are
 * reported by the calls' return codes with the archive's name. */
static OTF2_ErrorCode quiet(void *u, const char *file, uint64_t line, const char *function,
                            OTF2_ErrorCode code, const char *fmt, va_list va)
{
    (void)u;
    (void)file;
    (void)line;
    (void)function;
    (void)fmt;
    (void)va;
    return code;
}

/* Open the archive and read its global definitions into c. */
static OTF2_Reader *open_defs(const char *anchor, ctx *c)
{
    char path[4096];
    uint64_t n = 0;
    anchor_path(anchor, path, sizeof path);
    struct stat st;
    if (stat(path, &st) != 0) {
        fail_err(c->err, TEMU_EIO, "no OTF2 archive at %s (no %s)", anchor, path);
        return NULL;
    }
    OTF2_Error_RegisterCallback(quiet, NULL);
    OTF2_Reader *rd = OTF2_Reader_Open(path);
    if (rd == NULL) {
        fail_err(c->err, TEMU_EIO, "%s: not an OTF2 archive", path);
        return NULL;
    }
    OTF2_Reader_SetSerialCollectiveCallbacks(rd);
    OTF2_GlobalDefReader *gdr = OTF2_Reader_GetGlobalDefReader(rd);
    OTF2_GlobalDefReaderCallbacks *cb = OTF2_GlobalDefReaderCallbacks_New();
    if (gdr == NULL || cb == NULL) {
        fail_err(c->err, TEMU_EIO, "%s: no global definitions", path);
        OTF2_GlobalDefReaderCallbacks_Delete(cb);
        OTF2_Reader_Close(rd);
        return NULL;
    }
    OTF2_GlobalDefReaderCallbacks_SetStringCallback(cb, def_string);
    OTF2_GlobalDefReaderCallbacks_SetAttributeCallback(cb, def_attribute);
    OTF2_GlobalDefReaderCallbacks_SetLocationCallback(cb, def_location);
    OTF2_GlobalDefReaderCallbacks_SetGroupCallback(cb, def_group);
    OTF2_GlobalDefReaderCallbacks_SetCommCallback(cb, def_comm);
    OTF2_GlobalDefReaderCallbacks_SetRmaWinCallback(cb, def_win);
    OTF2_GlobalDefReaderCallbacks_SetClockPropertiesCallback(cb, def_clock);
    OTF2_Reader_RegisterGlobalDefCallbacks(rd, gdr, cb, c);
    OTF2_ErrorCode e = OTF2_Reader_ReadAllGlobalDefinitions(rd, gdr, &n);
    OTF2_GlobalDefReaderCallbacks_Delete(cb);
    OTF2_Reader_CloseGlobalDefReader(rd, gdr);
    if (e != OTF2_SUCCESS || rank_locations(c) != TEMU_OK) {
        if (e != OTF2_SUCCESS) {
            fail_err(c->err, TEMU_EIO, "%s: reading the definitions failed: %s", path,
                     OTF2_Error_GetDescription(e));
        }
        OTF2_Reader_Close(rd);
        return NULL;
    }
    return rd;
}

int32_t temu_otf2_ranks(const char *anchor, temu_error *err)
{
    ctx c;
    memset(&c, 0, sizeof c);
    c.err = err;
    OTF2_Reader *rd = open_defs(anchor, &c);
    int32_t n = rd != NULL ? c.nranks : -1;
    if (rd != NULL) {
        OTF2_Reader_Close(rd);
    }
    ctx_free(&c);
    return n;
}

temu_status temu_otf2_replay(const char *anchor, temu_replay *r, temu_progress_fn progress,
                             void *pctx, temu_error *err)
{
    ctx c;
    memset(&c, 0, sizeof c);
    c.r = r;
    c.err = err;
    c.progress = progress;
    c.pctx = pctx;
    OTF2_Reader *rd = open_defs(anchor, &c);
    if (rd == NULL) {
        ctx_free(&c);
        return err != NULL ? err->status : TEMU_EIO;
    }
    temu_status st = TEMU_OK;
    if (c.nranks != temu_replay_nranks(r)) {
        st = fail_err(err, TEMU_EINVAL,
                      "the trace has %d ranks but the replay places %d (use -np %d)", c.nranks,
                      temu_replay_nranks(r), c.nranks);
    }
    /* our own traces of older versions hold no receives */
    char *receives = NULL;
    if (OTF2_Reader_GetProperty(rd, TEMU_OTF2_PROP_RECEIVES, &receives) == OTF2_SUCCESS &&
        receives != NULL && strcmp(receives, "no") == 0) {
        temu_replay_sends_only(r);
    }
    free(receives);
    if (st == TEMU_OK && temu_replay_vtime(r) != NULL) {
        c.coll_begin = malloc((size_t)c.nranks * sizeof *c.coll_begin);
        if (c.coll_begin == NULL) {
            st = fail_err(err, TEMU_ENOMEM, "out of memory");
        }
        for (int32_t i = 0; c.coll_begin != NULL && i < c.nranks; i++) {
            c.coll_begin[i] = -1;
        }
    }
    for (size_t i = 0; st == TEMU_OK && i < c.nlocs; i++) {
        OTF2_Reader_SelectLocation(rd, c.loc_ids[i]);
    }
    if (st == TEMU_OK) {
        /* local definitions carry the id mappings of per-process writers */
        int defs = OTF2_Reader_OpenDefFiles(rd) == OTF2_SUCCESS;
        OTF2_Reader_OpenEvtFiles(rd);
        for (size_t i = 0; i < c.nlocs; i++) {
            if (defs) {
                OTF2_DefReader *d = OTF2_Reader_GetDefReader(rd, c.loc_ids[i]);
                if (d != NULL) {
                    uint64_t n = 0;
                    OTF2_Reader_ReadAllLocalDefinitions(rd, d, &n);
                    OTF2_Reader_CloseDefReader(rd, d);
                }
            }
            OTF2_Reader_GetEvtReader(rd, c.loc_ids[i]);
        }
        if (defs) {
            OTF2_Reader_CloseDefFiles(rd);
        }
        OTF2_GlobalEvtReader *ger = OTF2_Reader_GetGlobalEvtReader(rd);
        OTF2_GlobalEvtReaderCallbacks *cb = OTF2_GlobalEvtReaderCallbacks_New();
        OTF2_GlobalEvtReaderCallbacks_SetMpiSendCallback(cb, ev_send);
        OTF2_GlobalEvtReaderCallbacks_SetMpiIsendCallback(cb, ev_isend);
        OTF2_GlobalEvtReaderCallbacks_SetMpiRecvCallback(cb, ev_recv);
        OTF2_GlobalEvtReaderCallbacks_SetMpiIrecvCallback(cb, ev_irecv);
        OTF2_GlobalEvtReaderCallbacks_SetMpiCollectiveEndCallback(cb, ev_coll);
        OTF2_GlobalEvtReaderCallbacks_SetMpiCollectiveBeginCallback(cb, ev_coll_begin);
        OTF2_GlobalEvtReaderCallbacks_SetMpiIrecvRequestCallback(cb, ev_irecv_post);
        OTF2_GlobalEvtReaderCallbacks_SetMpiIsendCompleteCallback(cb, ev_isend_done);
        OTF2_GlobalEvtReaderCallbacks_SetRmaPutCallback(cb, ev_put);
        OTF2_GlobalEvtReaderCallbacks_SetRmaGetCallback(cb, ev_get);
        OTF2_GlobalEvtReaderCallbacks_SetRmaAtomicCallback(cb, ev_atomic);
        OTF2_GlobalEvtReaderCallbacks_SetUnknownCallback(cb, ev_unknown);
        OTF2_GlobalEvtReaderCallbacks_SetNonBlockingCollectiveRequestCallback(cb, ev_nbc_request);
        OTF2_GlobalEvtReaderCallbacks_SetNonBlockingCollectiveCompleteCallback(cb, ev_nbc_complete);
        OTF2_GlobalEvtReaderCallbacks_SetIoOperationBeginCallback(cb, ev_io);
        OTF2_Reader_RegisterGlobalEvtCallbacks(rd, ger, cb, &c);
        OTF2_GlobalEvtReaderCallbacks_Delete(cb);
        uint64_t n = 0;
        OTF2_ErrorCode e = OTF2_Reader_ReadAllGlobalEvents(rd, ger, &n);
        st = c.st;
        if (st == TEMU_OK && progress != NULL) {
            progress(pctx, c.total, c.total);
        }
        if (st == TEMU_OK && e != OTF2_SUCCESS) {
            st = fail_err(err, TEMU_EIO, "reading the OTF2 events failed: %s",
                          OTF2_Error_GetDescription(e));
        }
        OTF2_Reader_CloseGlobalEvtReader(rd, ger);
        OTF2_Reader_CloseEvtFiles(rd);
    }
    OTF2_Reader_Close(rd);
    ctx_free(&c);
    return st;
}
