/*
 * split.c - a live run spread over hosts: which host owns which counter,
 * updates of another host's counters set aside and handed on, the hosts'
 * stores gathered into one (torusemu.h, "runs across hosts"; doc/mpi.md).
 *
 * A split session is always "armed" (its armed word stays 1), so every
 * update takes the watched path of inject.c, where temu_store_add asks
 * temu_split_defer whether the counter is this host's.  The unarmed path,
 * the one a single-host run takes, is unchanged.
 */
#define TEMU_BUILDING_LIBRARY 1
#include "emu_internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* One section of the store's layout: counters [base, end), `per` of them
 * per router (Gemini tiles) or per node (everything else). */
typedef struct split_section {
    int64_t base, end, per;
    int by_router;
} split_section;

#define SECTIONS 9

struct temu_hosts {
    int32_t nhosts;
    int64_t nunits;           /* routers on Gemini, nodes on Blue Gene */
    int32_t nodes_per_router; /* node -> unit */
    int32_t *unit_host;
    int32_t nranks;
    int32_t *rank_host;
    int nsec;
    split_section sec[SECTIONS];
};

/* A session's split state (process-local). */
typedef struct temu_split {
    temu_hosts *hosts; /* a private copy */
    int32_t host;
    temu_split_send_fn send;
    void *ctx;
    uint64_t one; /* the armed word: stays 1 */
} temu_split;

/* ------------------------------------------------------------- ownership */

static int section_cmp(const void *a, const void *b)
{
    const split_section *x = a, *y = b;
    return x->base < y->base ? -1 : x->base > y->base;
}

/* The sections of m's store, in the order of their bases. */
static void sections_build(const temu_machine *m, temu_hosts *h)
{
    temu_layout l;
    temu_layout_compute(m, &l);
    const struct {
        int64_t base, per;
        int by_router;
    } all[SECTIONS] = {
        {l.gemini_tiles, TEMU_GEMINI_TILES * TEMU_GEMINI_TILE_COUNTERS, 1},
        {l.gemini_nic, TEMU_NIC_COUNTERS, 0},
        {l.bgp_torus, TEMU_BGP_LINKS * TEMU_BGP_COUNTERS, 0},
        {l.bgq_nw, TEMU_BGQ_LINKS * TEMU_BGQ_NW_KINDS * TEMU_BGQ_VCS, 0},
        {l.bgq_mu, TEMU_BGQ_MU_COUNTERS, 0},
        {l.bgq_l2, TEMU_BGQ_L2_SLICES * TEMU_BGQ_L2_COUNTERS, 0},
        {l.bgq_cnk_node, TEMU_BGQ_CNK_NODE_COUNTERS, 0},
        {l.bgq_cnk_hwt, TEMU_BGQ_HWTHREADS * TEMU_BGQ_CNK_HWT_COUNTERS, 0},
        {l.bgq_nw_cycles, 1, 0},
    };
    h->nsec = 0;
    for (int i = 0; i < SECTIONS; i++) {
        if (all[i].base >= 0) {
            split_section *s = &h->sec[h->nsec++];
            s->base = all[i].base;
            s->per = all[i].per;
            s->by_router = all[i].by_router;
        }
    }
    qsort(h->sec, (size_t)h->nsec, sizeof h->sec[0], section_cmp);
    for (int i = 0; i < h->nsec; i++) {
        h->sec[i].end = i + 1 < h->nsec ? h->sec[i + 1].base : l.total;
    }
}

int32_t temu_hosts_counter_host(const temu_hosts *h, int64_t idx)
{
    for (int i = 0; i < h->nsec; i++) {
        const split_section *s = &h->sec[i];
        if (idx >= s->base && idx < s->end) {
            int64_t unit = (idx - s->base) / s->per;
            if (!s->by_router) {
                unit /= h->nodes_per_router;
            }
            return unit < h->nunits ? h->unit_host[unit] : -1;
        }
    }
    return -1;
}

int32_t temu_hosts_count(const temu_hosts *h)
{
    return h->nhosts;
}

int32_t temu_hosts_rank_host(const temu_hosts *h, int32_t rank)
{
    return rank >= 0 && rank < h->nranks ? h->rank_host[rank] : -1;
}

int temu_hosts_store_path(const char *dir, int32_t host, char *out, size_t len)
{
    int n = snprintf(out, len, "%s/host%d.store", dir, (int)host);
    return n > 0 && (size_t)n < len ? 0 : -1;
}

void temu_hosts_free(temu_hosts *h)
{
    if (h != NULL) {
        free(h->unit_host);
        free(h->rank_host);
        free(h);
    }
}

/* The units holding ranks, each with its lowest rank, in that order: the
 * rule of torusemu.h cuts this list into the hosts' blocks. */
static int32_t units_in_rank_order(const temu_session *s, const temu_hosts *h, int64_t *order)
{
    int32_t k = 0;
    for (int32_t r = 0; r < s->nranks; r++) {
        int64_t u = s->mapping[r].node / h->nodes_per_router;
        if (h->unit_host[u] < 0) {
            h->unit_host[u] = 0; /* seen: the first rank on it is r */
            order[k++] = u;
        }
    }
    return k;
}

static temu_status hosts_fill(const temu_session *s, temu_hosts *h, temu_error *err)
{
    int64_t *order = malloc((size_t)h->nunits * sizeof *order);
    if (order == NULL) {
        return temu_fail(err, TEMU_ENOMEM, "out of memory for the hosts of %lld units",
                         (long long)h->nunits);
    }
    for (int64_t u = 0; u < h->nunits; u++) {
        h->unit_host[u] = -1;
    }
    int32_t k = units_in_rank_order(s, h, order);
    temu_status rc = TEMU_OK;
    if (k < h->nhosts) {
        rc = temu_fail(err, TEMU_ERANGE,
                       "%d hosts need at least %d %s holding ranks; the mapping uses %d",
                       (int)h->nhosts, (int)h->nhosts,
                       h->nodes_per_router > 1 ? "Gemini routers" : "nodes", (int)k);
    } else {
        for (int64_t u = 0; u < h->nunits; u++) {
            h->unit_host[u] = (int32_t)(u % h->nhosts); /* units without ranks */
        }
        for (int32_t i = 0; i < k; i++) {
            h->unit_host[order[i]] = (int32_t)((int64_t)i * h->nhosts / k);
        }
        for (int32_t r = 0; r < h->nranks; r++) {
            h->rank_host[r] = h->unit_host[s->mapping[r].node / h->nodes_per_router];
        }
    }
    free(order);
    return rc;
}

temu_status temu_hosts_assign(const temu_session *s, int32_t nhosts, temu_hosts **out,
                              temu_error *err)
{
    const temu_machine *m = &s->machine;
    temu_hosts *h = calloc(1, sizeof *h);
    temu_status rc;
    *out = NULL;
    if (nhosts < 1 || nhosts > TEMU_HOSTS_MAX) {
        free(h);
        return temu_fail(err, TEMU_EINVAL, "%d hosts: expected 1 to %d", (int)nhosts,
                         TEMU_HOSTS_MAX);
    }
    if (h == NULL) {
        return temu_fail(err, TEMU_ENOMEM, "out of memory");
    }
    h->nhosts = nhosts;
    h->nodes_per_router = m->nodes_per_router > 0 ? m->nodes_per_router : 1;
    h->nunits = m->nnodes / h->nodes_per_router;
    h->nranks = s->nranks;
    h->unit_host = malloc((size_t)h->nunits * sizeof *h->unit_host);
    h->rank_host = malloc((size_t)(s->nranks > 0 ? s->nranks : 1) * sizeof *h->rank_host);
    sections_build(m, h);
    rc = h->unit_host == NULL || h->rank_host == NULL
             ? temu_fail(err, TEMU_ENOMEM, "out of memory")
             : hosts_fill(s, h, err);
    if (rc != TEMU_OK) {
        temu_hosts_free(h);
        return rc;
    }
    *out = h;
    return TEMU_OK;
}

static temu_hosts *hosts_copy(const temu_hosts *h)
{
    temu_hosts *c = malloc(sizeof *c);
    if (c == NULL) {
        return NULL;
    }
    *c = *h;
    c->unit_host = malloc((size_t)h->nunits * sizeof *c->unit_host);
    c->rank_host = malloc((size_t)(h->nranks > 0 ? h->nranks : 1) * sizeof *c->rank_host);
    if (c->unit_host == NULL || c->rank_host == NULL) {
        temu_hosts_free(c);
        return NULL;
    }
    memcpy(c->unit_host, h->unit_host, (size_t)h->nunits * sizeof *c->unit_host);
    memcpy(c->rank_host, h->rank_host, (size_t)h->nranks * sizeof *c->rank_host);
    return c;
}

/* ------------------------------------------------------ updates set aside */

/* This thread's updates for other hosts since the start of the current
 * injection (one injection touches at most a few hundred counters). */
#define PENDING_MAX 1024
typedef struct pending {
    int64_t idx;
    uint64_t delta;
    int32_t host;
} pending;
/* Allocated by a thread's first update of a split session, so threads of
 * single-host processes carry no buffer (40 KiB) */
typedef struct set_aside_buf {
    int n;
    pending p[PENDING_MAX];
    uint64_t wire[2 * PENDING_MAX];
} set_aside_buf;
static __thread set_aside_buf *aside;

temu_status temu_session_split(temu_session *s, const temu_hosts *h, int32_t host,
                               temu_split_send_fn send, void *ctx, temu_error *err)
{
    if (s->readonly || s->split != NULL) {
        return temu_fail(err, TEMU_EINVAL, "cannot split a %s session",
                         s->readonly ? "read-only" : "split");
    }
    if (host < 0 || host >= h->nhosts || send == NULL) {
        return temu_fail(err, TEMU_ERANGE, "host %d is outside the run's %d hosts", (int)host,
                         (int)h->nhosts);
    }
    if ((uint64_t)h->nranks != (uint64_t)s->nranks ||
        h->nunits * h->nodes_per_router != s->machine.nnodes) {
        return temu_fail(err, TEMU_EINVAL, "the hosts were assigned for another session");
    }
    temu_split *sp = calloc(1, sizeof *sp);
    if (sp == NULL || (sp->hosts = hosts_copy(h)) == NULL) {
        free(sp);
        return temu_fail(err, TEMU_ENOMEM, "out of memory");
    }
    sp->host = host;
    sp->send = send;
    sp->ctx = ctx;
    sp->one = 1;
    s->split = sp;
    s->armed_word = &sp->one;
    return TEMU_OK;
}

void temu_split_free(temu_session *s)
{
    if (s->split != NULL) {
        s->armed_word = &s->hdr->armed;
        temu_hosts_free(s->split->hosts);
        free(s->split);
        s->split = NULL;
    }
}

int temu_split_defer(temu_session *s, int64_t idx, uint64_t delta)
{
    int32_t host = temu_hosts_counter_host(s->split->hosts, idx);
    if (host < 0 || host == s->split->host) {
        return 0;
    }
    if (aside == NULL && (aside = calloc(1, sizeof *aside)) == NULL) {
        static int warned;
        if (!__atomic_exchange_n(&warned, 1, __ATOMIC_RELAXED)) {
            fprintf(stderr, "torusemu: out of memory: updates for other hosts are lost\n");
        }
        return 1;
    }
    if (aside->n == PENDING_MAX) {
        temu_split_flush(s); /* an update larger than the buffer: hand on what is held */
    }
    pending *p = &aside->p[aside->n++];
    p->idx = idx;
    p->delta = delta;
    p->host = host;
    return 1;
}

/* Hand on the set-aside updates of the first host still held, and drop
 * them from the buffer.  A failed send is reported once per process. */
static void flush_one_host(temu_split *sp)
{
    static int warned;
    set_aside_buf *a = aside;
    int32_t host = a->p[0].host, n = 0, keep = 0;
    for (int i = 0; i < a->n; i++) {
        if (a->p[i].host == host) {
            a->wire[2 * n] = (uint64_t)a->p[i].idx;
            a->wire[2 * n + 1] = a->p[i].delta;
            n++;
        } else {
            a->p[keep++] = a->p[i];
        }
    }
    a->n = keep;
    if (sp->send(sp->ctx, host, a->wire, n) != 0 &&
        !__atomic_exchange_n(&warned, 1, __ATOMIC_RELAXED)) {
        fprintf(stderr, "torusemu: %d counter updates could not reach host %d; its counts are "
                        "short\n",
                (int)n, (int)host);
    }
}

void temu_split_flush(temu_session *s)
{
    while (aside != NULL && aside->n > 0) {
        flush_one_host(s->split);
    }
}

int32_t temu_session_apply_updates(temu_session *s, const uint64_t *pairs, int32_t n)
{
    int32_t refused = 0;
    if (s->readonly) {
        return n;
    }
    int armed = temu_store_armed(s);
    for (int32_t i = 0; i < n; i++) {
        uint64_t idx = pairs[2 * i];
        int own = idx < s->ncounters &&
                  (s->split == NULL || temu_hosts_counter_host(s->split->hosts, (int64_t)idx) ==
                                           s->split->host);
        if (!own) {
            refused++;
        } else if (pairs[2 * i + 1] != 0) {
            temu_store_add(s, (int64_t)idx, pairs[2 * i + 1], armed);
        }
    }
    if (armed) {
        temu_watch_flush(s);
    }
    return refused;
}

/* --------------------------------------------------------------- gather */

temu_status temu_session_gather_host(temu_session *dst, const temu_hosts *h, int32_t host,
                                     const uint64_t *counters, uint64_t ncounters,
                                     temu_error *err)
{
    if (dst->readonly || host < 0 || host >= h->nhosts || ncounters != dst->ncounters ||
        (uint64_t)h->nranks != (uint64_t)dst->nranks) {
        return temu_fail(err, TEMU_EINVAL, "host %d's counters do not fit the store '%s'",
                         (int)host, dst->path);
    }
    for (uint64_t i = 0; i < ncounters; i++) {
        int32_t owner = temu_hosts_counter_host(h, (int64_t)i);
        if (owner == host) {
            /* added: the launcher's store may hold the online timing
             * model's counters already (--split-hosts --virtual-time) */
            __atomic_fetch_add(&dst->counters[i], counters[i], __ATOMIC_RELAXED);
        } else if (counters[i] != 0) {
            char what[160];
            temu_counter_describe(&dst->machine, (int64_t)i, what, sizeof what);
            return temu_fail(err, TEMU_ECORRUPT,
                             "host %d's store counts %llu on %s, which host %d owns", (int)host,
                             (unsigned long long)counters[i], what, (int)owner);
        }
    }
    return TEMU_OK;
}

void temu_session_set_totals(temu_session *s, uint64_t messages, uint64_t bytes)
{
    if (!s->readonly) {
        __atomic_store_n(&s->hdr->messages, messages, __ATOMIC_RELAXED);
        __atomic_store_n(&s->hdr->bytes, bytes, __ATOMIC_RELAXED);
    }
}

static temu_status gather_check(const temu_session *dst, temu_session *const *hs,
                                const temu_hosts *h, temu_error *err)
{
    for (int32_t k = 0; k < h->nhosts; k++) {
        const temu_session *s = hs[k];
        if (s->ncounters != dst->ncounters || s->nranks != dst->nranks ||
            memcmp(&s->machine, &dst->machine, sizeof s->machine) != 0 ||
            memcmp(s->mapping, dst->mapping, (size_t)s->nranks * sizeof *s->mapping) != 0) {
            return temu_fail(err, TEMU_EINVAL, "the store of host %d (%s) is not of this run",
                             (int)k, s->path);
        }
    }
    return TEMU_OK;
}

temu_status temu_session_gather(temu_session *dst, temu_session *const *host_stores,
                                const temu_hosts *h, temu_error *err)
{
    temu_status rc = gather_check(dst, host_stores, h, err);
    uint64_t messages = 0, bytes = 0;
    for (int32_t k = 0; k < h->nhosts && rc == TEMU_OK; k++) {
        /* the store's counters are read in place: a host's live mapping */
        rc = temu_session_gather_host(dst, h, k, host_stores[k]->counters, host_stores[k]->ncounters,
                                      err);
        messages += temu_session_messages(host_stores[k]);
        bytes += temu_session_bytes(host_stores[k]);
    }
    if (rc != TEMU_OK) {
        return rc;
    }
    temu_session_set_totals(dst, temu_session_messages(dst) + messages,
                            temu_session_bytes(dst) + bytes);
    for (int32_t r = 0; r < dst->nranks; r++) {
        dst->ranks[r] = host_stores[h->rank_host[r]]->ranks[r];
    }
    for (int64_t node = 0; node < dst->machine.nnodes; node++) {
        int32_t owner = h->unit_host[node / h->nodes_per_router];
        memcpy(temu_node_words(dst, node), temu_node_words(host_stores[owner], node),
               TEMU_NODE_WORDS * sizeof(uint64_t));
    }
    return TEMU_OK;
}

/* ---------------------------------------------------------- attaching */

/* The host's store at path, made from the run's store b when no process
 * of the host has made it yet (a host the launcher's machine cannot
 * reach: doc/mpi.md, "Across hosts"); its directory too (mode 0700). */
static temu_status host_store_open(const temu_session *b, const char *dir, const char *path,
                                   temu_session **out, temu_error *err)
{
    temu_mapping map = {b->nranks, b->ranks_per_node, b->mapping};
    temu_status rc;
    if (access(path, F_OK) == 0) {
        return temu_session_attach(path, out, err);
    }
    if (mkdir(dir, 0700) != 0 && errno != EEXIST) {
        return temu_fail(err, TEMU_EIO, "cannot make the hosts' store directory '%s': %s", dir,
                         strerror(errno));
    }
    /* exclusive: of the host's processes that find it missing, one makes
     * it, the others attach what it published */
    rc = temu_session_create_ex(path, &b->machine, &map, 0, out, err);
    if (rc != TEMU_OK && access(path, F_OK) == 0) {
        rc = temu_session_attach(path, out, err);
    }
    return rc;
}

/* The store of the calling rank's host: TORUSEMU_SESSION names the run's
 * store (its mapping), TORUSEMU_HOST_STORES the directory of the hosts'
 * stores; the rank comes from the launcher's environment (identity.c). */
temu_status temu_split_attach_env(const char *base, int32_t nhosts, temu_session **out,
                                  temu_error *err)
{
    const char *dir = getenv(TEMU_HOST_STORES_ENV);
    temu_session *b = NULL;
    temu_hosts *h = NULL;
    char path[4096];
    temu_status rc;
    if (dir == NULL || dir[0] == '\0') {
        return temu_fail(err, TEMU_ENOSESSION, "%s=%d but %s is not set", TEMU_HOSTS_ENV,
                         (int)nhosts, TEMU_HOST_STORES_ENV);
    }
    rc = temu_session_attach_ex(base, TEMU_ATTACH_READONLY, &b, err);
    if (rc == TEMU_OK) {
        rc = temu_hosts_assign(b, nhosts, &h, err);
    }
    if (rc == TEMU_OK) {
        temu_identity id = temu_identity_get(b);
        int32_t host = temu_hosts_rank_host(h, id.rank);
        if (host < 0) {
            rc = temu_fail(err, TEMU_ENOSESSION,
                           "the run spans %d hosts but this process's rank is not known",
                           (int)nhosts);
        } else if (temu_hosts_store_path(dir, host, path, sizeof path) != 0) {
            rc = temu_fail(err, TEMU_EINVAL, "%s='%s' is too long", TEMU_HOST_STORES_ENV, dir);
        } else {
            rc = host_store_open(b, dir, path, out, err);
        }
    }
    temu_hosts_free(h);
    temu_session_close(b);
    return rc;
}
