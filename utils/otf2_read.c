/*
 * otf2_read.c - replay an OTF2 archive: the ones `torusemu run --trace`
 * writes (exact: the live layer's description of every call is in
 * torusemu:* attributes) and ones other tools write (Score-P; sizes of
 * collectives inferred from sizeSent/sizeReceived as Score-P records them).
 * doc/replay.md lists what is read, what is ignored and what is refused.
 */
#include "otf2_trace.h"

#include "torusemu_vtime.h"

#include <otf2/otf2.h>

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

typedef struct group {
    OTF2_GroupType type;
    uint32_t n;
    uint64_t *members;
} group;

typedef struct rcomm {
    uint32_t group;
    int32_t id; /* replay communicator, -1 until set up    */
    int32_t n;
    int32_t *rank; /* world rank -> communicator rank, -1 outside */
} rcomm;

/*
 * Definitions keyed by their OTF2 reference: the entries in definition
 * order and an open-addressing hash (linear probing) from reference to
 * entry.  Memory follows the definitions present, never the largest
 * reference: a crafted 32-bit id must not ask for gigabytes.
 */
typedef struct idtab {
    size_t esize;   /* bytes per entry                           */
    size_t n, cap;  /* entries held and allocated                */
    uint64_t *ids;  /* reference of each entry                   */
    char *e;        /* the entries, esize bytes each, zeroed when added */
    uint32_t *slot; /* entry index + 1, 0 free; nslot a power of 2 */
    size_t nslot;
} idtab;

typedef struct ctx {
    temu_replay *r;
    idtab strings;     /* char *                                   */
    idtab attrs;       /* int: TEMU_OTF2_A_*, -1 for another's      */
    idtab groups;      /* group (MPI paradigm only)                */
    idtab comms;       /* rcomm                                    */
    idtab wins;        /* uint32_t: the window's communicator      */
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
    int64_t *list; /* scratch for a list attribute */
    size_t list_cap;
    uint64_t *blocks, *offs; /* a collective's lists */
    size_t blocks_cap, offs_cap;
    int32_t *nb;
    size_t nb_cap;
    uint64_t resolution, offset; /* clock: ticks per second, the first tick */
    /* virtual time only: world rank -> */
    int64_t *coll_begin;       /* its collective's begin (ns), -1 */
    OTF2_TimeStamp *last_tick; /* the time of its last record */
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

/* An allocation of `bytes` for `what` failed: say so and stop reading. */
static OTF2_CallbackCode oom(ctx *c, size_t bytes, const char *what)
{
    return stop(c, TEMU_ENOMEM, "out of memory: %zu bytes for %s", bytes, what);
}

/* Room for n + 1 entries of esize bytes in *arr, *cap entries now (the
 * capacity doubles); 0, or -1 after oom(). */
static int grow(ctx *c, void *arr, size_t *cap, size_t n, size_t esize, const char *what)
{
    void **a = arr;
    if (n < *cap) {
        return 0;
    }
    size_t ncap = *cap > 8 ? 2 * *cap : 16;
    while (ncap <= n) {
        ncap *= 2;
    }
    void *g = ncap <= SIZE_MAX / esize ? realloc(*a, ncap * esize) : NULL;
    if (g == NULL) {
        oom(c, ncap <= SIZE_MAX / esize ? ncap * esize : SIZE_MAX, what);
        return -1;
    }
    *a = g;
    *cap = ncap;
    return 0;
}

/* Fibonacci hashing: the high bits of id times 2^64 / phi. */
static size_t idtab_hash(uint64_t id, size_t nslot)
{
    return (size_t)((id * UINT64_C(0x9e3779b97f4a7c15)) >> 32) & (nslot - 1);
}

/* The entry of reference id, or NULL. */
static void *idtab_find(const idtab *t, uint64_t id)
{
    if (t->nslot == 0) {
        return NULL;
    }
    for (size_t h = idtab_hash(id, t->nslot);; h = (h + 1) & (t->nslot - 1)) {
        uint32_t i = t->slot[h];
        if (i == 0) {
            return NULL;
        }
        if (t->ids[i - 1] == id) {
            return t->e + (size_t)(i - 1) * t->esize;
        }
    }
}

/* Twice the hash slots (kept at most half full); 0, or -1 after oom(). */
static int idtab_rehash(ctx *c, idtab *t, const char *what)
{
    size_t nslot = t->nslot ? 2 * t->nslot : 32;
    uint32_t *slot = calloc(nslot, sizeof *slot);
    if (slot == NULL) {
        oom(c, nslot * sizeof *slot, what);
        return -1;
    }
    for (size_t i = 0; i < t->n; i++) {
        size_t h = idtab_hash(t->ids[i], nslot);
        while (slot[h] != 0) {
            h = (h + 1) & (nslot - 1);
        }
        slot[h] = (uint32_t)(i + 1);
    }
    free(t->slot);
    t->slot = slot;
    t->nslot = nslot;
    return 0;
}

/* The entry of reference id: the one defined before (a redefinition
 * replaces it; the caller frees what it held) or a new zeroed one.  NULL
 * after oom(). */
static void *idtab_add(ctx *c, idtab *t, uint64_t id, const char *what)
{
    char *e = idtab_find(t, id);
    if (e != NULL) {
        return e;
    }
    size_t ecap = t->cap; /* ids and entries grow alike */
    if (t->n >= UINT32_MAX - 1) {
        oom(c, SIZE_MAX, what);
        return NULL;
    }
    if (grow(c, &t->ids, &ecap, t->n, sizeof *t->ids, what) != 0 ||
        grow(c, &t->e, &t->cap, t->n, t->esize, what) != 0 ||
        (2 * (t->n + 1) > t->nslot && idtab_rehash(c, t, what) != 0)) {
        return NULL;
    }
    size_t h = idtab_hash(id, t->nslot);
    while (t->slot[h] != 0) {
        h = (h + 1) & (t->nslot - 1);
    }
    t->slot[h] = (uint32_t)(t->n + 1);
    t->ids[t->n] = id;
    e = t->e + t->n * t->esize;
    memset(e, 0, t->esize);
    t->n++;
    return e;
}

/* Entry i in definition order. */
static void *idtab_at(const idtab *t, size_t i)
{
    return t->e + i * t->esize;
}

static void idtab_free(idtab *t)
{
    free(t->ids);
    free(t->e);
    free(t->slot);
}

/* The string of reference id, or NULL. */
static const char *string_of(const ctx *c, uint64_t id)
{
    char *const *s = idtab_find(&c->strings, id);
    return s != NULL ? *s : NULL;
}

/* --------------------------------------------------------- definitions */

static OTF2_CallbackCode def_string(void *u, OTF2_StringRef self, const char *s)
{
    ctx *c = u;
    char **e = idtab_add(c, &c->strings, self, "string definitions");
    if (e == NULL) {
        return OTF2_CALLBACK_INTERRUPT;
    }
    free(*e);
    if ((*e = strdup(s)) == NULL) {
        return oom(c, strlen(s) + 1, "a string definition");
    }
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode def_attribute(void *u, OTF2_AttributeRef self, OTF2_StringRef name,
                                       OTF2_StringRef desc, OTF2_Type type)
{
    ctx *c = u;
    (void)desc;
    (void)type;
    int *slot = idtab_add(c, &c->attrs, self, "attribute definitions");
    if (slot == NULL) {
        return OTF2_CALLBACK_INTERRUPT;
    }
    *slot = -1;
    const char *s = string_of(c, name);
    for (int i = 0; i < TEMU_OTF2_ATTRS && s != NULL; i++) {
        if (strcmp(s, temu_otf2_attr_names[i]) == 0) {
            *slot = i;
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
    if (grow(c, &c->loc_ids, &c->locs_cap, c->nlocs, sizeof *c->loc_ids, "location definitions") !=
        0) {
        return OTF2_CALLBACK_INTERRUPT;
    }
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
    group *g = idtab_add(c, &c->groups, self, "group definitions");
    if (g == NULL) {
        return OTF2_CALLBACK_INTERRUPT;
    }
    free(g->members);
    size_t bytes = ((size_t)n + 1) * sizeof *g->members;
    g->n = 0;
    if ((g->members = malloc(bytes)) == NULL) {
        return oom(c, bytes, "the members of a group");
    }
    memcpy(g->members, members, (size_t)n * sizeof *members);
    g->n = n;
    g->type = type;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode def_comm(void *u, OTF2_CommRef self, OTF2_StringRef name,
                                  OTF2_GroupRef grp, OTF2_CommRef parent, OTF2_CommFlag flags)
{
    ctx *c = u;
    (void)name;
    (void)parent;
    (void)flags;
    rcomm *rc = idtab_add(c, &c->comms, self, "communicator definitions");
    if (rc == NULL) {
        return OTF2_CALLBACK_INTERRUPT;
    }
    rc->group = grp;
    rc->id = -1;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode def_win(void *u, OTF2_RmaWinRef self, OTF2_StringRef name,
                                 OTF2_CommRef comm, OTF2_RmaWinFlag flags)
{
    ctx *c = u;
    (void)name;
    (void)flags;
    uint32_t *w = idtab_add(c, &c->wins, self, "window definitions");
    if (w == NULL) {
        return OTF2_CALLBACK_INTERRUPT;
    }
    *w = comm;
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
    for (size_t i = 0; i < c->groups.n; i++) {
        const group *g = idtab_at(&c->groups, i);
        if (g->type == OTF2_GROUP_TYPE_COMM_LOCATIONS) {
            locs = g;
        }
    }
    size_t n = locs != NULL ? locs->n : c->nlocs;
    if (n > INT32_MAX) {
        return fail_err(c->err, TEMU_EINVAL, "OTF2 trace: %zu MPI ranks (at most %d)", n,
                        INT32_MAX);
    }
    c->nranks = (int32_t)n;
    size_t bytes = (c->nlocs + 1) * sizeof *c->loc_sorted;
    if ((c->loc_sorted = malloc(bytes)) == NULL) {
        return fail_err(c->err, TEMU_ENOMEM, "out of memory: %zu bytes for the locations", bytes);
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

/* rc's members (group g) as world ranks into members and rc->rank; 0,
 * or -1 after stop() for a rank outside the trace or listed twice. */
static int comm_members(ctx *c, OTF2_CommRef k, rcomm *rc, const group *g, int32_t *members)
{
    for (int32_t i = 0; i < c->nranks; i++) {
        rc->rank[i] = -1;
    }
    for (uint32_t i = 0; i < g->n; i++) {
        if (g->members[i] >= (uint64_t)c->nranks) {
            stop(c, TEMU_EINVAL, "OTF2 trace: communicator %u names rank %" PRIu64 " of %d", k,
                 g->members[i], c->nranks);
            return -1;
        }
        members[i] = (int32_t)g->members[i];
        if (rc->rank[members[i]] >= 0) {
            stop(c, TEMU_EINVAL, "OTF2 trace: communicator %u lists rank %d twice", k, members[i]);
            return -1;
        }
        rc->rank[members[i]] = (int32_t)i;
    }
    return 0;
}

/* The replay communicator of OTF2 communicator k, set up on first use. */
static rcomm *comm_get(ctx *c, OTF2_CommRef k)
{
    rcomm *rc = idtab_find(&c->comms, k);
    if (rc == NULL) {
        stop(c, TEMU_EINVAL, "OTF2 trace: event on communicator %u, which is not defined", k);
        return NULL;
    }
    if (rc->id >= 0) {
        return rc;
    }
    const group *g = idtab_find(&c->groups, rc->group);
    if (g == NULL || g->type != OTF2_GROUP_TYPE_COMM_GROUP) {
        stop(c, TEMU_EINVAL,
             "OTF2 trace: communicator %u has no MPI group of type COMM_GROUP (unsupported)", k);
        return NULL;
    }
    size_t mbytes = ((size_t)g->n + 1) * sizeof(int32_t);
    size_t rbytes = ((size_t)c->nranks + 1) * sizeof *rc->rank;
    int32_t *members = malloc(mbytes);
    free(rc->rank);
    rc->rank = malloc(rbytes);
    if (members == NULL || rc->rank == NULL) {
        free(members);
        oom(c, mbytes + rbytes, "a communicator's members");
        return NULL;
    }
    if (comm_members(c, k, rc, g, members) != 0) {
        free(members);
        return NULL;
    }
    int world = (int32_t)g->n == c->nranks;
    for (uint32_t i = 0; world && i < g->n; i++) {
        world = members[i] == (int32_t)i;
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

/* Virtual time counts picoseconds in 64 bits: a trace spans at most this
 * many nanoseconds (106 days). */
#define TRACE_NS_MAX (INT64_MAX / 1000)

/* World rank w's record at trace time t in nanoseconds since the archive's
 * first tick into *ns; 0, or -1 after stop() when t is earlier than w's
 * record before (OTF2 keeps a location's records in time order) or later
 * than virtual time reaches.  Used with virtual time only. */
static int ns_of(ctx *c, int32_t w, OTF2_TimeStamp t, int64_t *ns)
{
    uint64_t d = t > c->offset ? t - c->offset : 0;
    long double x = (long double)d;
    if (c->resolution != 0 && c->resolution != 1000000000u) {
        x = x * 1e9L / (long double)c->resolution;
    }
    if (t < c->last_tick[w]) {
        stop(c, TEMU_EINVAL,
             "OTF2 trace: rank %d has a record at tick %" PRIu64 " after one at tick %" PRIu64
             " (a location's records go forward in time)",
             w, t, c->last_tick[w]);
        return -1;
    }
    if (x > (long double)TRACE_NS_MAX) {
        stop(c, TEMU_EINVAL,
             "OTF2 trace: rank %d has a record at tick %" PRIu64 ", %.3Lg s after the first "
             "tick: virtual time reaches %.0f days",
             w, t, x * 1e-9L, (double)TRACE_NS_MAX * 1e-9 / 86400);
        return -1;
    }
    c->last_tick[w] = t;
    *ns = (int64_t)x;
    return 0;
}

/* The stamps of world rank w's next operation (ns; -1 unknown) for
 * virtual time: what a record's time is, the begin or the end of its
 * call, follows the table in doc/replay.md. */
static int stamp_ns(ctx *c, int32_t w, int64_t begin, int64_t end)
{
    c->st = temu_replay_trace_time(c->r, w, begin, end, c->err);
    return c->st == TEMU_OK ? 0 : -1;
}

/* Loc's record at tick t, the begin of its call (begin 1) or its end. */
static int stamp(ctx *c, OTF2_LocationRef loc, OTF2_TimeStamp t, int begin)
{
    int32_t w = rank_of(c, loc);
    int64_t ns;
    if (w < 0 || temu_replay_vtime(c->r) == NULL) {
        return 0;
    }
    if (ns_of(c, w, t, &ns) != 0) {
        return -1;
    }
    return stamp_ns(c, w, begin ? ns : -1, begin ? -1 : ns);
}

/* The value of known attribute `slot` in list al and its type; 0 if absent. */
static int attr_find(const ctx *c, OTF2_AttributeList *al, int slot, OTF2_Type *type,
                     OTF2_AttributeValue *v)
{
    uint32_t n = al != NULL ? OTF2_AttributeList_GetNumberOfElements(al) : 0;
    for (uint32_t i = 0; i < n; i++) {
        OTF2_AttributeRef id;
        const int *known;
        if (OTF2_AttributeList_GetAttributeByIndex(al, i, &id, type, v) == OTF2_SUCCESS &&
            (known = idtab_find(&c->attrs, id)) != NULL && *known == slot) {
            return 1;
        }
    }
    return 0;
}

/* Integer value of known attribute `slot`, if present as one. */
static int attr_u64(const ctx *c, OTF2_AttributeList *al, int slot, uint64_t *out)
{
    OTF2_Type type;
    OTF2_AttributeValue v;
    if (!attr_find(c, al, slot, &type, &v)) {
        return 0;
    }
    if (type == OTF2_TYPE_UINT64) {
        *out = v.uint64;
        return 1;
    }
    if (type == OTF2_TYPE_UINT32) {
        *out = v.uint32;
        return 1;
    }
    return 0;
}

/* String of known attribute `slot`: 0 if absent, else 1 with *out the
 * string, or NULL when the value is not a defined string. */
static int attr_string(const ctx *c, OTF2_AttributeList *al, int slot, const char **out)
{
    OTF2_Type type;
    OTF2_AttributeValue v;
    if (!attr_find(c, al, slot, &type, &v)) {
        return 0;
    }
    *out = type == OTF2_TYPE_STRING ? string_of(c, v.stringRef) : NULL;
    return 1;
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
    if (rc == NULL || stamp(c, loc, t, 1) != 0) {
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
    if (rc == NULL || stamp(c, loc, t, 0) != 0) {
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
        if (stamp(c, loc, t, 1) == 0) {
            c->st = temu_replay_irecv_post(c->r, w, req, c->err);
        }
    } else if (stamp(c, loc, t, 0) == 0) {
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
    const uint32_t *wcomm = idtab_find(&c->wins, win);
    if (wcomm == NULL) {
        return stop(c, TEMU_EINVAL, "OTF2 trace: one-sided operation on window %u, not defined",
                    win);
    }
    rcomm *rc = caller(c, loc, *wcomm, &me);
    if (rc == NULL || stamp(c, loc, t, 1) != 0) {
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

/* The collective record being read, for messages. */
typedef struct coll_rec {
    OTF2_CollectiveOp otf2_op;
    int32_t rank;     /* world rank */
    OTF2_TimeStamp t; /* trace ticks */
    int32_t n;        /* communicator size */
} coll_rec;

static const char *otf2_op_name(OTF2_CollectiveOp op);

/* Refuse collective record rec, saying why ("OTF2 trace:
 * MpiCollectiveEnd(ALLTOALLV) of rank 3 at tick 1001: ..."). */
static OTF2_CallbackCode coll_refuse(ctx *c, const coll_rec *rec, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static OTF2_CallbackCode coll_refuse(ctx *c, const coll_rec *rec, const char *fmt, ...)
{
    char why[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    return stop(c, TEMU_EINVAL,
                "OTF2 trace: MpiCollectiveEnd(%s) of rank %d at tick %" PRIu64 ": %s",
                otf2_op_name(rec->otf2_op), rec->rank, rec->t, why);
}

/* One entry of a list at *p: a decimal integer followed by the end or by
 * one space and the next entry; 0 if *p holds none. */
static int list_next(const char **p, int64_t *v)
{
    const char *s = *p;
    char *end;
    int digit = s[0] >= '0' && s[0] <= '9';
    if (!digit && !(s[0] == '-' && s[1] >= '0' && s[1] <= '9')) {
        return 0;
    }
    errno = 0;
    long long x = strtoll(s, &end, 10);
    if (errno == ERANGE || (*end != ' ' && *end != '\0') || (*end == ' ' && end[1] == '\0')) {
        return 0;
    }
    *v = x;
    *p = *end == ' ' ? end + 1 : end;
    return 1;
}

/* The entries of list attribute `attr` (string s) into c->list: their
 * count, or -1 after coll_refuse() (or oom()). */
static int64_t list_read(ctx *c, const coll_rec *rec, int attr, const char *s)
{
    const char *name = temu_otf2_attr_names[attr];
    if (s == NULL) {
        coll_refuse(c, rec, "%s is not a defined string", name);
        return -1;
    }
    size_t n = *s != '\0';
    for (const char *p = s; *p != '\0'; p++) {
        n += *p == ' ';
    }
    if (grow(c, &c->list, &c->list_cap, n, sizeof *c->list, "a list attribute") != 0) {
        return -1;
    }
    const char *p = s;
    for (size_t i = 0; i < n; i++) {
        if (!list_next(&p, &c->list[i])) {
            coll_refuse(c, rec, "%s is not a list of integers one space apart: \"%.40s\"", name, s);
            return -1;
        }
    }
    if (n > INT32_MAX) {
        coll_refuse(c, rec, "%s has %zu entries (at most %d)", name, n, INT32_MAX);
        return -1;
    }
    return (int64_t)n;
}

/* torusemu:neighbors (string s) into c->nb: the out-degree, or -1 after
 * coll_refuse(). */
static int64_t coll_neighbors(ctx *c, const coll_rec *rec, int32_t op, const char *s)
{
    const char *name = temu_coll_op_name(op);
    if (temu_coll_op_lists(op) != TEMU_COLL_LISTS_NEIGHBORS) {
        coll_refuse(c, rec, "%s on %s, which has no neighbours", TEMU_OTF2_ATTR_NEIGHBORS, name);
        return -1;
    }
    int64_t n = list_read(c, rec, TEMU_OTF2_A_NEIGHBORS, s);
    if (n < 0 || grow(c, &c->nb, &c->nb_cap, (size_t)n, sizeof *c->nb, "a neighbour list") != 0) {
        return -1;
    }
    for (int64_t i = 0; i < n; i++) {
        if (c->list[i] < -1 || c->list[i] >= rec->n) {
            coll_refuse(c, rec,
                        "%s entry %" PRId64 " is %" PRId64 ", outside -1..%d (a communicator of %d "
                        "ranks; -1: none)",
                        TEMU_OTF2_ATTR_NEIGHBORS, i, c->list[i], rec->n - 1, rec->n);
            return -1;
        }
        c->nb[i] = (int32_t)c->list[i];
    }
    return n;
}

/* List attribute `attr` (string s) of byte counts, `want` entries (what
 * `where` says), into *buf; 0, or -1 after coll_refuse(). */
static int coll_sizes(ctx *c, const coll_rec *rec, int attr, const char *s, int64_t want,
                      const char *where, uint64_t **buf, size_t *cap)
{
    const char *name = temu_otf2_attr_names[attr];
    int64_t n = list_read(c, rec, attr, s);
    if (n < 0) {
        return -1;
    }
    if (n != want) {
        coll_refuse(c, rec, "%s has %" PRId64 " entries where %s takes %" PRId64, name, n, where,
                    want);
        return -1;
    }
    if (grow(c, buf, cap, (size_t)n, sizeof **buf, "a list of sizes") != 0) {
        return -1;
    }
    for (int64_t i = 0; i < n; i++) {
        if (c->list[i] < 0) {
            coll_refuse(c, rec, "%s entry %" PRId64 " is %" PRId64 ", not a byte count", name, i,
                        c->list[i]);
            return -1;
        }
        (*buf)[i] = (uint64_t)c->list[i];
    }
    return 0;
}

/* torusemu:blocks and torusemu:offs of k against its operation: one entry
 * per rank or per out-neighbour (temu_coll_op_lists), or none. */
static void coll_blocks(ctx *c, OTF2_AttributeList *al, const coll_rec *rec, temu_replay_coll *k)
{
    const char *name = temu_coll_op_name(k->op), *blocks = NULL, *offs = NULL;
    int lists = temu_coll_op_lists(k->op);
    int has_blocks = attr_string(c, al, TEMU_OTF2_A_BLOCKS, &blocks);
    int has_offs = attr_string(c, al, TEMU_OTF2_A_OFFS, &offs);
    char where[160];
    if (has_offs && !has_blocks) {
        coll_refuse(c, rec, "%s without %s", TEMU_OTF2_ATTR_OFFS, TEMU_OTF2_ATTR_BLOCKS);
        return;
    }
    if (!has_blocks) {
        return;
    }
    if (lists == TEMU_COLL_LISTS_NONE) {
        coll_refuse(c, rec, "%s on %s, which takes one size (%s)", TEMU_OTF2_ATTR_BLOCKS, name,
                    TEMU_OTF2_ATTR_BYTES);
        return;
    }
    int64_t want = lists == TEMU_COLL_LISTS_NEIGHBORS ? k->nnb : rec->n;
    if (lists == TEMU_COLL_LISTS_NEIGHBORS) {
        snprintf(where, sizeof where, "%s with %d out-neighbours (%s)", name, k->nnb,
                 TEMU_OTF2_ATTR_NEIGHBORS);
    } else {
        snprintf(where, sizeof where, "%s on a communicator of %d ranks", name, rec->n);
    }
    if (coll_sizes(c, rec, TEMU_OTF2_A_BLOCKS, blocks, want, where, &c->blocks, &c->blocks_cap) !=
        0) {
        return;
    }
    k->blocks = c->blocks;
    if (has_offs &&
        coll_sizes(c, rec, TEMU_OTF2_A_OFFS, offs, want, where, &c->offs, &c->offs_cap) == 0) {
        k->offs = c->offs;
    }
}

/* The live layer's description from torusemu:* attributes, its lists
 * checked against the operation and the communicator; 0 if absent, 1 if
 * present (c->st says whether it was refused). */
static int exact_coll(ctx *c, OTF2_AttributeList *al, const coll_rec *rec, temu_replay_coll *k)
{
    uint64_t op, v;
    const char *nb = NULL;
    if (!attr_u64(c, al, TEMU_OTF2_A_OP, &op)) {
        return 0;
    }
    if (op >= TEMU_COLL_OPS) {
        coll_refuse(c, rec, "%s is %" PRIu64 ", not a collective torusemu knows (0..%d)",
                    TEMU_OTF2_ATTR_OP, op, TEMU_COLL_OPS - 1);
        return 1;
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
    if (attr_string(c, al, TEMU_OTF2_A_NEIGHBORS, &nb)) {
        int64_t nnb = coll_neighbors(c, rec, k->op, nb);
        if (nnb < 0) {
            return 1;
        }
        k->nnb = (int32_t)nnb;
        k->nb = c->nb;
    }
    coll_blocks(c, al, rec, k);
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
    memset(&k, 0, sizeof k);
    rcomm *rc = caller(c, loc, comm, &me);
    int32_t w = rank_of(c, loc);
    int64_t end;
    if (rc == NULL) {
        return OTF2_CALLBACK_INTERRUPT;
    }
    if (c->coll_begin != NULL) { /* virtual time */
        if (ns_of(c, w, t, &end) != 0 || stamp_ns(c, w, c->coll_begin[w], end) != 0) {
            return OTF2_CALLBACK_INTERRUPT;
        }
        c->coll_begin[w] = -1;
    }
    coll_rec rec = {op, w, t, rc->n};
    k.root = root == OTF2_UNDEFINED_UINT32 ? 0 : (int32_t)root;
    if (exact_coll(c, al, &rec, &k)) {
        if (c->st != TEMU_OK) {
            return OTF2_CALLBACK_INTERRUPT;
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
    if (c->st != TEMU_OK && c->err != NULL) { /* name the record */
        char why[sizeof c->err->message];
        temu_status st = c->st;
        snprintf(why, sizeof why, "%s", c->err->message);
        coll_refuse(c, &rec, "%s", why);
        c->st = c->err->status = st;
    }
    return c->st == TEMU_OK ? OTF2_CALLBACK_SUCCESS : OTF2_CALLBACK_INTERRUPT;
}

/* A collective's begin: its time, for virtual time. */
static OTF2_CallbackCode ev_coll_begin(OTF2_LocationRef loc, OTF2_TimeStamp t, void *u,
                                       OTF2_AttributeList *al)
{
    ctx *c = u;
    int32_t w = rank_of(c, loc);
    (void)al;
    if (w >= 0 && c->coll_begin != NULL && ns_of(c, w, t, &c->coll_begin[w]) != 0) {
        return OTF2_CALLBACK_INTERRUPT;
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

/* An empty context reporting to err. */
static void ctx_init(ctx *c, temu_error *err)
{
    memset(c, 0, sizeof *c);
    c->err = err;
    c->strings.esize = sizeof(char *);
    c->attrs.esize = sizeof(int);
    c->groups.esize = sizeof(group);
    c->comms.esize = sizeof(rcomm);
    c->wins.esize = sizeof(uint32_t);
}

static void ctx_free(ctx *c)
{
    for (size_t i = 0; i < c->strings.n; i++) {
        free(*(char **)idtab_at(&c->strings, i));
    }
    for (size_t i = 0; i < c->groups.n; i++) {
        free(((group *)idtab_at(&c->groups, i))->members);
    }
    for (size_t i = 0; i < c->comms.n; i++) {
        free(((rcomm *)idtab_at(&c->comms, i))->rank);
    }
    idtab_free(&c->strings);
    idtab_free(&c->attrs);
    idtab_free(&c->groups);
    idtab_free(&c->comms);
    idtab_free(&c->wins);
    free(c->coll_begin);
    free(c->last_tick);
    free(c->loc_ids);
    free(c->loc_sorted);
    free(c->list);
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

/* Whether the archive at path (DIR/traces.otf2) is a directory a failed
 * `torusemu run --trace` left (DIR/traces.incomplete): then err says so
 * with the reason the run wrote there. */
static int incomplete_trace(const char *path, temu_error *err)
{
    char dir[4096], marker[4200], why[300] = "";
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (slash != NULL) {
        *slash = '\0';
    } else {
        snprintf(dir, sizeof dir, ".");
    }
    snprintf(marker, sizeof marker, "%s/" TEMU_OTF2_INCOMPLETE, dir);
    FILE *f = fopen(marker, "r");
    if (f == NULL) {
        return 0;
    }
    if (fgets(why, sizeof why, f) == NULL) {
        why[0] = '\0';
    }
    fclose(f);
    why[strcspn(why, "\n")] = '\0';
    for (char *p = why; *p != '\0'; p++) { /* printable text */
        *p = (unsigned char)*p < ' ' ? '?' : *p;
    }
    fail_err(err, TEMU_EINVAL,
             "%s: an incomplete trace of a failed run (torusemu run --trace), no archive: %s", dir,
             why[0] != '\0' ? why : "no reason given");
    return 1;
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

/* Offset of the byte after the NUL-terminated string at `at` in b (n
 * bytes), or n when it does not end. */
static size_t anchor_skip_string(const unsigned char *b, size_t n, size_t at)
{
    const unsigned char *nul = at < n ? memchr(b + at, '\0', n - at) : NULL;
    return nul != NULL ? (size_t)(nul - b) + 1 : n;
}

/*
 * The property count of the anchor file (b, n bytes) against its size.
 * OTF2 (3.0.2) trusts that count: a corrupt anchor announcing 2^32
 * properties made it reserve 64 GiB and spend half a minute before it
 * said "not an OTF2 archive".  The layout of anchor formats 2 and 3
 * (OTF2_AnchorFile.c, OTF2_Buffer.h): a chunk-header byte, the byte
 * order (0x42 little endian, 0x23 big endian),
 * "OTF2\0", the anchor format, 38 bytes of fixed fields, three strings
 * (machine, creator, description), a 32-bit property count, then two
 * strings per property.  Anything else is left to OTF2.  0 if plausible,
 * else -1 with err set.
 */
static int anchor_check(const char *path, const unsigned char *b, size_t n, temu_error *err)
{
    size_t at = 8 + 38;
    int little = n >= at && b[1] == 0x42;
    if (n < at || (!little && b[1] != 0x23) || memcmp(b + 2, "OTF2", 5) != 0 || b[7] < 2) {
        return 0;
    }
    for (int i = 0; i < 3; i++) {
        at = anchor_skip_string(b, n, at);
    }
    if (n - at < 4) {
        return 0;
    }
    const unsigned char *p = b + at;
    uint32_t props = little
                         ? (uint32_t)p[3] << 24 | (uint32_t)p[2] << 16 | (uint32_t)p[1] << 8 | p[0]
                         : (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
    if (props > (n - at - 4) / 2) {
        fail_err(err, TEMU_EINVAL,
                 "%s: not an OTF2 archive (its anchor announces %" PRIu32
                 " properties in %zu bytes)",
                 path, props, n);
        return -1;
    }
    return 0;
}

/* The anchor file at path checked before OTF2 reads it (anchor_check);
 * one above 64 KiB (ours take 200 bytes) is left to OTF2. */
static int anchor_ok(const char *path, temu_error *err)
{
    unsigned char b[1 << 16];
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        return 1; /* OTF2 says why */
    }
    size_t n = fread(b, 1, sizeof b, f);
    int whole = feof(f) != 0;
    fclose(f);
    return !whole || anchor_check(path, b, n, err) == 0;
}

/* Open the archive and read its global definitions into c. */
static OTF2_Reader *open_defs(const char *anchor, ctx *c)
{
    char path[4096];
    uint64_t n = 0;
    anchor_path(anchor, path, sizeof path);
    struct stat st;
    if (incomplete_trace(path, c->err)) {
        return NULL;
    }
    if (stat(path, &st) != 0) {
        fail_err(c->err, TEMU_EIO, "no OTF2 archive at %s (no %s)", anchor, path);
        return NULL;
    }
    if (!anchor_ok(path, c->err)) {
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
    if (c->st != TEMU_OK || e != OTF2_SUCCESS || rank_locations(c) != TEMU_OK) {
        if (c->st == TEMU_OK && e != OTF2_SUCCESS) { /* else a callback said why */
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
    ctx_init(&c, err);
    OTF2_Reader *rd = open_defs(anchor, &c);
    int32_t n = rd != NULL ? c.nranks : -1;
    if (rd != NULL) {
        OTF2_Reader_Close(rd);
    }
    ctx_free(&c);
    return n;
}

/* An archive open for its events: the context (definitions, the ranks'
 * clocks) and OTF2's global event reader, which merges the locations'
 * records by time, as many at a time as asked for. */
typedef struct events {
    ctx c;
    OTF2_Reader *rd;
    OTF2_GlobalEvtReader *ger;
} events;

/* Open the archive at anchor for replaying its events into r (e->c set up
 * even on failure: events_close frees it). */
static temu_status events_open(events *e, const char *anchor, temu_replay *r,
                               temu_progress_fn progress, void *pctx, temu_error *err)
{
    ctx *c = &e->c;
    ctx_init(c, err);
    e->ger = NULL;
    c->r = r;
    c->progress = progress;
    c->pctx = pctx;
    OTF2_Reader *rd = e->rd = open_defs(anchor, c);
    if (rd == NULL) {
        return err != NULL ? err->status : TEMU_EIO;
    }
    if (c->nranks != temu_replay_nranks(r)) {
        return fail_err(err, TEMU_EINVAL,
                        "the trace has %d ranks but the replay places %d (use -np %d)", c->nranks,
                        temu_replay_nranks(r), c->nranks);
    }
    /* our own traces of older versions hold no receives */
    char *receives = NULL;
    if (OTF2_Reader_GetProperty(rd, TEMU_OTF2_PROP_RECEIVES, &receives) == OTF2_SUCCESS &&
        receives != NULL && strcmp(receives, "no") == 0) {
        temu_replay_sends_only(r);
    }
    free(receives);
    if (temu_replay_vtime(r) != NULL) {
        size_t bytes = ((size_t)c->nranks + 1) * (sizeof *c->coll_begin + sizeof *c->last_tick);
        c->coll_begin = malloc(((size_t)c->nranks + 1) * sizeof *c->coll_begin);
        c->last_tick = calloc((size_t)c->nranks + 1, sizeof *c->last_tick);
        if (c->coll_begin == NULL || c->last_tick == NULL) {
            return fail_err(err, TEMU_ENOMEM, "out of memory: %zu bytes for the ranks' clocks",
                            bytes);
        }
        for (int32_t i = 0; i < c->nranks; i++) {
            c->coll_begin[i] = -1;
        }
    }
    for (size_t i = 0; i < c->nlocs; i++) {
        OTF2_Reader_SelectLocation(rd, c->loc_ids[i]);
    }
    /* local definitions carry the id mappings of per-process writers */
    int defs = OTF2_Reader_OpenDefFiles(rd) == OTF2_SUCCESS;
    OTF2_Reader_OpenEvtFiles(rd);
    for (size_t i = 0; i < c->nlocs; i++) {
        if (defs) {
            OTF2_DefReader *d = OTF2_Reader_GetDefReader(rd, c->loc_ids[i]);
            if (d != NULL) {
                uint64_t n = 0;
                OTF2_Reader_ReadAllLocalDefinitions(rd, d, &n);
                OTF2_Reader_CloseDefReader(rd, d);
            }
        }
        OTF2_Reader_GetEvtReader(rd, c->loc_ids[i]);
    }
    if (defs) {
        OTF2_Reader_CloseDefFiles(rd);
    }
    OTF2_GlobalEvtReader *ger = e->ger = OTF2_Reader_GetGlobalEvtReader(rd);
    OTF2_GlobalEvtReaderCallbacks *cb = OTF2_GlobalEvtReaderCallbacks_New();
    if (ger == NULL || cb == NULL) {
        OTF2_GlobalEvtReaderCallbacks_Delete(cb);
        return fail_err(err, TEMU_EIO, "%s: no events can be read", anchor);
    }
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
    OTF2_Reader_RegisterGlobalEvtCallbacks(rd, ger, cb, c);
    OTF2_GlobalEvtReaderCallbacks_Delete(cb);
    return TEMU_OK;
}

/* The next `count` records of the archive, in time order (OTF2_UNDEFINED_UINT64:
 * all); *got: how many there were (fewer: the end). */
static temu_status events_read(events *e, uint64_t count, uint64_t *got, temu_error *err)
{
    ctx *c = &e->c;
    c->err = err;
    *got = 0;
    OTF2_ErrorCode x = count == OTF2_UNDEFINED_UINT64
                           ? OTF2_Reader_ReadAllGlobalEvents(e->rd, e->ger, got)
                           : OTF2_Reader_ReadGlobalEvents(e->rd, e->ger, count, got);
    if (c->st == TEMU_OK && x != OTF2_SUCCESS) {
        c->st = fail_err(err, TEMU_EIO, "reading the OTF2 events failed: %s",
                         OTF2_Error_GetDescription(x));
    }
    return c->st;
}

static void events_close(events *e)
{
    if (e->ger != NULL) {
        OTF2_Reader_CloseGlobalEvtReader(e->rd, e->ger);
        OTF2_Reader_CloseEvtFiles(e->rd);
    }
    if (e->rd != NULL) {
        OTF2_Reader_Close(e->rd);
    }
    ctx_free(&e->c);
}

temu_status temu_otf2_replay(const char *anchor, temu_replay *r, temu_progress_fn progress,
                             void *pctx, temu_error *err)
{
    events e;
    uint64_t n = 0;
    temu_status st = events_open(&e, anchor, r, progress, pctx, err);
    if (st == TEMU_OK) {
        st = events_read(&e, OTF2_UNDEFINED_UINT64, &n, err);
    }
    if (st == TEMU_OK && progress != NULL) {
        progress(pctx, e.c.total, e.c.total);
    }
    events_close(&e);
    return st;
}

struct temu_otf2_lazy {
    events e;
    temu_vt *vt;
    uint64_t chunk;
    int end; /* the archive has no records left */
};

/* The source's next round (temu_vt_source_fn): the next chunk of records,
 * and as many more as it takes to complete every collective one of them
 * enters (the engine wants each collective's calls in one round).
 * Reading them in OTF2's time order, as the whole replay does, gives the
 * messages, slots and collectives the same ids. */
static temu_status lazy_round(void *u, int *more, temu_error *err)
{
    temu_otf2_lazy *l = u;
    temu_status st = TEMU_OK;
    uint64_t want = l->chunk, total = 0;
    while (st == TEMU_OK && !l->end) {
        uint64_t got = 0;
        st = events_read(&l->e, want, &got, err);
        total += got;
        l->end = got < want;
        if (temu_vt_colls_open(l->vt) == 0) {
            break;
        }
        want = l->chunk < 256 ? l->chunk : 256; /* a few records at a time to its last member */
    }
    *more = st == TEMU_OK && total > 0;
    return st;
}

temu_status temu_otf2_lazy_open(const char *anchor, temu_replay *r, uint64_t chunk,
                                temu_otf2_lazy **out, temu_error *err)
{
    *out = NULL;
    temu_vt *vt = temu_replay_vtime(r);
    if (vt == NULL || chunk == 0) {
        return fail_err(err, TEMU_EINVAL,
                        "an OTF2 trace is read as the ranks reach it only by a timed replay, "
                        "in chunks of 1 record or more");
    }
    temu_otf2_lazy *l = calloc(1, sizeof *l);
    if (l == NULL) {
        return fail_err(err, TEMU_ENOMEM, "out of memory: %zu bytes for the trace's reader",
                        sizeof *l);
    }
    l->vt = vt;
    l->chunk = chunk;
    temu_status st = events_open(&l->e, anchor, r, NULL, NULL, err);
    if (st == TEMU_OK) {
        st = temu_vt_set_source(vt, 0, l->e.c.nranks, lazy_round, l, err);
    }
    if (st != TEMU_OK) {
        temu_otf2_lazy_free(l);
        return st;
    }
    *out = l;
    return TEMU_OK;
}

void temu_otf2_lazy_free(temu_otf2_lazy *l)
{
    if (l != NULL) {
        events_close(&l->e);
        free(l);
    }
}
