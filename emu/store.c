/*
 * store.c - the counter store: one file-backed shared-memory segment per
 * emulated session.
 *
 * File layout (all offsets page aligned):
 *   [0, 4096)          temu_store_header (magic, ABI version, machine)
 *   mapping_offset     temu_slot[nranks]        rank -> node, T
 *   ranks_offset       temu_rank_entry[nranks]  who registered as each rank
 *   watches_offset     temu_watch_slot[256]     armed overflow watches
 *   watch_bits_offset  one bit per counter      is it watched?
 *   node_words_offset  uint64_t[nnodes][32]     node-wide unit state
 *   counters_offset    uint64_t[ncounters]      the counters
 * Counters are updated with relaxed atomic adds, so any number of processes
 * may inject at once; a reader sees each counter exactly (never torn).
 * Sections of a machine's counters are listed in temu_layout.
 */
#define TEMU_BUILDING_LIBRARY 1
#include "emu_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define PAGE 4096u

static uint64_t round_page(uint64_t v)
{
    return (v + PAGE - 1) / PAGE * PAGE;
}

void temu_layout_compute(const temu_machine *m, temu_layout *out)
{
    int64_t next = 0;
    memset(out, 0, sizeof *out);
    out->gemini_tiles = out->gemini_nic = out->bgp_torus = out->bgq_nw = -1;
    out->bgq_mu = out->bgq_l2 = out->bgq_cnk_node = out->bgq_cnk_hwt = -1;
    switch (m->system) {
    case TEMU_SYSTEM_GEMINI:
        out->gemini_tiles = next;
        next += m->nrouters * TEMU_GEMINI_TILES * TEMU_GEMINI_TILE_COUNTERS;
        out->gemini_nic = next;
        next += m->nnodes * TEMU_NIC_COUNTERS;
        break;
    case TEMU_SYSTEM_BGP:
        out->bgp_torus = next;
        next += m->nnodes * 6 * TEMU_BGP_COUNTERS;
        break;
    case TEMU_SYSTEM_BGQ:
        out->bgq_nw = next;
        next += m->nnodes * TEMU_BGQ_LINKS * TEMU_BGQ_NW_KINDS * TEMU_BGQ_VCS;
        out->bgq_mu = next;
        next += m->nnodes * TEMU_BGQ_MU_COUNTERS;
        out->bgq_l2 = next;
        next += m->nnodes * TEMU_BGQ_L2_SLICES * TEMU_BGQ_L2_COUNTERS;
        out->bgq_cnk_node = next;
        next += m->nnodes * TEMU_BGQ_CNK_NODE_COUNTERS;
        out->bgq_cnk_hwt = next;
        next += m->nnodes * TEMU_BGQ_HWTHREADS * TEMU_BGQ_CNK_HWT_COUNTERS;
        break;
    default:
        break;
    }
    out->total = next;
}

uint64_t temu_machine_counter_count(const temu_machine *m)
{
    temu_layout l;
    temu_layout_compute(m, &l);
    return (uint64_t)l.total;
}

/* ------------------------------------------------------ counter indices */

#define IN(v, n) ((v) >= 0 && (v) < (n))

int64_t temu_idx_gemini_tile(const temu_machine *m, int64_t router, int tile, int counter)
{
    if (m->system != TEMU_SYSTEM_GEMINI || !IN(router, m->nrouters) ||
        !IN(tile, TEMU_GEMINI_TILES) || !IN(counter, TEMU_GEMINI_TILE_COUNTERS)) {
        return -1;
    }
    return (router * TEMU_GEMINI_TILES + tile) * TEMU_GEMINI_TILE_COUNTERS + counter;
}

int64_t temu_idx_gemini_nic(const temu_machine *m, int64_t node, int counter)
{
    if (m->system != TEMU_SYSTEM_GEMINI || !IN(node, m->nnodes) ||
        !IN(counter, TEMU_NIC_COUNTERS)) {
        return -1;
    }
    return m->nrouters * TEMU_GEMINI_TILES * TEMU_GEMINI_TILE_COUNTERS +
           node * TEMU_NIC_COUNTERS + counter;
}

int64_t temu_idx_bgp(const temu_machine *m, int64_t node, int link, int counter)
{
    if (m->system != TEMU_SYSTEM_BGP || !IN(node, m->nnodes) || !IN(link, 6) ||
        !IN(counter, TEMU_BGP_COUNTERS)) {
        return -1;
    }
    return (node * 6 + link) * TEMU_BGP_COUNTERS + counter;
}

int64_t temu_idx_bgq_nw(const temu_machine *m, int64_t node, int link, int kind, int vc)
{
    if (m->system != TEMU_SYSTEM_BGQ || !IN(node, m->nnodes) || !IN(link, TEMU_BGQ_LINKS) ||
        !IN(kind, TEMU_BGQ_NW_KINDS) || !IN(vc, TEMU_BGQ_VCS)) {
        return -1;
    }
    return ((node * TEMU_BGQ_LINKS + link) * TEMU_BGQ_NW_KINDS + kind) * TEMU_BGQ_VCS + vc;
}

int64_t temu_idx_bgq_mu(const temu_machine *m, int64_t node, int sram_index)
{
    temu_layout l;
    if (m->system != TEMU_SYSTEM_BGQ || !IN(node, m->nnodes) ||
        !IN(sram_index, TEMU_BGQ_MU_COUNTERS)) {
        return -1;
    }
    temu_layout_compute(m, &l);
    return l.bgq_mu + node * TEMU_BGQ_MU_COUNTERS + sram_index;
}

int64_t temu_idx_bgq_l2(const temu_machine *m, int64_t node, int slice, int counter)
{
    temu_layout l;
    if (m->system != TEMU_SYSTEM_BGQ || !IN(node, m->nnodes) || !IN(slice, TEMU_BGQ_L2_SLICES) ||
        !IN(counter, TEMU_BGQ_L2_COUNTERS)) {
        return -1;
    }
    temu_layout_compute(m, &l);
    return l.bgq_l2 + (node * TEMU_BGQ_L2_SLICES + slice) * TEMU_BGQ_L2_COUNTERS + counter;
}

int64_t temu_idx_bgq_cnk_node(const temu_machine *m, int64_t node, int counter)
{
    temu_layout l;
    if (m->system != TEMU_SYSTEM_BGQ || !IN(node, m->nnodes) ||
        !IN(counter, TEMU_BGQ_CNK_NODE_COUNTERS)) {
        return -1;
    }
    temu_layout_compute(m, &l);
    return l.bgq_cnk_node + node * TEMU_BGQ_CNK_NODE_COUNTERS + counter;
}

int64_t temu_idx_bgq_cnk_hwt(const temu_machine *m, int64_t node, int hwthread, int counter)
{
    temu_layout l;
    if (m->system != TEMU_SYSTEM_BGQ || !IN(node, m->nnodes) ||
        !IN(hwthread, TEMU_BGQ_HWTHREADS) || !IN(counter, TEMU_BGQ_CNK_HWT_COUNTERS)) {
        return -1;
    }
    temu_layout_compute(m, &l);
    return l.bgq_cnk_hwt + (node * TEMU_BGQ_HWTHREADS + hwthread) * TEMU_BGQ_CNK_HWT_COUNTERS +
           counter;
}

/* ------------------------------------------------------------- sessions */

/* Section offsets of a store; returns the file size. */
typedef struct store_offsets {
    uint64_t mapping, ranks, watches, watch_bits, node_words, counters, bytes;
} store_offsets;

static void store_layout(const temu_machine *m, int32_t nranks, store_offsets *o)
{
    uint64_t n = temu_machine_counter_count(m);
    uint64_t off = TEMU_STORE_HEADER_BYTES;
    o->mapping = off;
    off = round_page(off + (uint64_t)nranks * sizeof(temu_slot));
    o->ranks = off;
    off = round_page(off + (uint64_t)nranks * sizeof(temu_rank_entry));
    o->watches = off;
    off = round_page(off + TEMU_WATCH_MAX * sizeof(temu_watch_slot));
    o->watch_bits = off;
    off = round_page(off + (n + 7) / 8);
    o->node_words = off;
    off = round_page(off + (uint64_t)m->nnodes * TEMU_NODE_WORDS * sizeof(uint64_t));
    o->counters = off;
    o->bytes = round_page(off + n * sizeof(uint64_t));
}

static void session_bind(temu_session *s, void *base, size_t bytes)
{
    char *b = base;
    s->hdr = base;
    s->serial = temu_memo_serial();
    s->map_bytes = bytes;
    s->mapping = (temu_slot *)(b + s->hdr->mapping_offset);
    s->ranks = (temu_rank_entry *)(b + s->hdr->ranks_offset);
    s->watches = (temu_watch_slot *)(b + s->hdr->watches_offset);
    s->watch_bits = (uint8_t *)(b + s->hdr->watch_bits_offset);
    s->node_words = (uint64_t *)(b + s->hdr->node_words_offset);
    temu_layout l;
    temu_layout_compute(&s->hdr->machine, &l);
    s->bgq_mu_base = l.bgq_mu;
    s->bgq_l2_base = l.bgq_l2;
    s->counters = (uint64_t *)(b + s->hdr->counters_offset);
}

static void header_init(temu_store_header *h, const temu_machine *m, const temu_mapping *map,
                        const store_offsets *o)
{
    memcpy(h->magic, TEMU_STORE_MAGIC, sizeof h->magic);
    h->abi_version = TEMU_STORE_ABI_VERSION;
    h->header_bytes = TEMU_STORE_HEADER_BYTES;
    h->file_bytes = o->bytes;
    h->mapping_offset = o->mapping;
    h->ranks_offset = o->ranks;
    h->watches_offset = o->watches;
    h->watch_bits_offset = o->watch_bits;
    h->node_words_offset = o->node_words;
    h->counters_offset = o->counters;
    h->ncounters = temu_machine_counter_count(m);
    h->nranks = map != NULL ? map->nranks : 0;
    h->ranks_per_node = map != NULL ? map->ranks_per_node : 1;
    h->created_unix = (uint64_t)time(NULL);
    h->machine = *m;
}

temu_status temu_session_create(const char *path, const temu_machine *m, const temu_mapping *map,
                                temu_session **out, temu_error *err)
{
    store_offsets o;
    int32_t nranks = map != NULL ? map->nranks : 0;
    temu_session *s;
    void *base;
    int fd;

    *out = NULL;
    if (strlen(path) >= sizeof s->path) {
        return temu_fail(err, TEMU_EINVAL, "session path too long");
    }
    store_layout(m, nranks, &o);
    uint64_t bytes = o.bytes;
    fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) {
        return temu_fail(err, TEMU_EIO, "cannot create session store '%s': %s", path,
                         strerror(errno));
    }
    /* ftruncate leaves a sparse file: untouched counters cost no memory */
    if (ftruncate(fd, (off_t)bytes) != 0) {
        int e = errno;
        close(fd);
        unlink(path);
        return temu_fail(err, TEMU_EIO, "cannot size session store '%s' to %llu bytes: %s", path,
                         (unsigned long long)bytes, strerror(e));
    }
    base = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    if (base == MAP_FAILED) {
        int e = errno;
        unlink(path);
        return temu_fail(err, TEMU_EIO, "cannot map session store '%s': %s", path, strerror(e));
    }
    s = calloc(1, sizeof *s);
    if (s == NULL) {
        munmap(base, bytes);
        unlink(path);
        return temu_fail(err, TEMU_ENOMEM, "out of memory creating a session");
    }
    header_init(base, m, map, &o);
    session_bind(s, base, bytes);
    if (map != NULL && nranks > 0) {
        memcpy(s->mapping, map->slot, (size_t)nranks * sizeof(temu_slot));
    }
    snprintf(s->path, sizeof s->path, "%s", path);
    *out = s;
    return TEMU_OK;
}

temu_status temu_session_create_private(const temu_machine *m, temu_session **out,
                                        temu_error *err)
{
    store_offsets o;
    temu_session *s = calloc(1, sizeof *s);
    void *base;

    store_layout(m, 0, &o);
    uint64_t bytes = o.bytes;

    *out = NULL;
    if (s == NULL) {
        return temu_fail(err, TEMU_ENOMEM, "out of memory creating a session");
    }
    base = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                -1, 0);
    if (base == MAP_FAILED) {
        free(s);
        return temu_fail(err, TEMU_ENOMEM, "cannot map a private store of %llu bytes: %s",
                         (unsigned long long)bytes, strerror(errno));
    }
    header_init(base, m, NULL, &o);
    session_bind(s, base, bytes);
    s->is_private = 1;
    *out = s;
    return TEMU_OK;
}

/* Check a header read from a file of file_size bytes. */
static temu_status header_check(const char *path, const temu_store_header *h, uint64_t file_size,
                                temu_error *err)
{
    temu_machine m;
    temu_error perr;
    if (memcmp(h->magic, TEMU_STORE_MAGIC, sizeof h->magic) != 0) {
        return temu_fail(err, TEMU_ECORRUPT, "'%s' is not a torusemu session store (bad magic)",
                         path);
    }
    if (h->abi_version != TEMU_STORE_ABI_VERSION) {
        return temu_fail(err, TEMU_EVERSION,
                         "session store '%s' has ABI version %u; this library reads version %u "
                         "(re-create the session with this torusemu)",
                         path, h->abi_version, TEMU_STORE_ABI_VERSION);
    }
    if (h->file_bytes != file_size) {
        return temu_fail(err, TEMU_ECORRUPT,
                         "session store '%s' is %llu bytes but its header says %llu "
                         "(truncated or overwritten)",
                         path, (unsigned long long)file_size, (unsigned long long)h->file_bytes);
    }
    /* the machine must re-parse to itself and give the recorded layout */
    store_offsets o;
    int bad = temu_machine_parse(h->machine.name, &m, &perr) != TEMU_OK ||
              m.system != h->machine.system || m.nnodes != h->machine.nnodes || h->nranks < 0;
    if (!bad) {
        store_layout(&h->machine, h->nranks, &o);
        bad = h->ncounters != temu_machine_counter_count(&h->machine) ||
              h->mapping_offset != o.mapping || h->ranks_offset != o.ranks ||
              h->watches_offset != o.watches || h->watch_bits_offset != o.watch_bits ||
              h->node_words_offset != o.node_words ||
              h->counters_offset != o.counters || o.bytes != file_size;
    }
    if (bad) {
        return temu_fail(err, TEMU_ECORRUPT, "session store '%s' has an inconsistent header",
                         path);
    }
    return TEMU_OK;
}

temu_status temu_session_attach(const char *path, temu_session **out, temu_error *err)
{
    temu_store_header h;
    struct stat st;
    temu_session *s;
    temu_status rc;
    void *base;
    int fd;

    *out = NULL;
    if (path == NULL || path[0] == '\0') {
        return temu_fail(err, TEMU_EINVAL, "empty session path");
    }
    if (strlen(path) >= sizeof s->path) {
        return temu_fail(err, TEMU_EINVAL, "session path too long");
    }
    fd = open(path, O_RDWR | O_CLOEXEC);
    if (fd < 0) {
        return temu_fail(err, TEMU_EIO, "cannot open session store '%s': %s", path,
                         strerror(errno));
    }
    if (fstat(fd, &st) != 0 || st.st_size < (off_t)sizeof h) {
        close(fd);
        return temu_fail(err, TEMU_ECORRUPT,
                         "session store '%s' is too short to hold a header (%lld bytes)", path,
                         (long long)st.st_size);
    }
    if (pread(fd, &h, sizeof h, 0) != (ssize_t)sizeof h) {
        close(fd);
        return temu_fail(err, TEMU_EIO, "cannot read the header of '%s'", path);
    }
    rc = header_check(path, &h, (uint64_t)st.st_size, err);
    if (rc != TEMU_OK) {
        close(fd);
        return rc;
    }
    base = mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    if (base == MAP_FAILED) {
        return temu_fail(err, TEMU_EIO, "cannot map session store '%s': %s", path,
                         strerror(errno));
    }
    s = calloc(1, sizeof *s);
    if (s == NULL) {
        munmap(base, (size_t)st.st_size);
        return temu_fail(err, TEMU_ENOMEM, "out of memory attaching a session");
    }
    session_bind(s, base, (size_t)st.st_size);
    snprintf(s->path, sizeof s->path, "%s", path);
    *out = s;
    return TEMU_OK;
}

temu_status temu_session_attach_env(temu_session **out, temu_error *err)
{
    const char *path = getenv(TEMU_SESSION_ENV);
    *out = NULL;
    if (path == NULL || path[0] == '\0') {
        return temu_fail(err, TEMU_ENOSESSION, "%s is not set: no emulated session",
                         TEMU_SESSION_ENV);
    }
    return temu_session_attach(path, out, err);
}

void temu_session_close(temu_session *s)
{
    if (s == NULL) {
        return;
    }
    munmap(s->hdr, s->map_bytes);
    free(s);
}

const temu_machine *temu_session_machine(const temu_session *s)
{
    return &s->hdr->machine;
}

const char *temu_session_path(const temu_session *s)
{
    return s->path;
}

int32_t temu_session_nranks(const temu_session *s)
{
    return s->hdr->nranks;
}

int32_t temu_session_ranks_per_node(const temu_session *s)
{
    return s->hdr->ranks_per_node;
}

temu_status temu_session_rank_slot(const temu_session *s, int32_t rank, temu_slot *slot,
                                   temu_error *err)
{
    if (rank < 0 || rank >= s->hdr->nranks) {
        return temu_fail(err, TEMU_ERANGE, "rank %d is outside the session's %d ranks", rank,
                         s->hdr->nranks);
    }
    *slot = s->mapping[rank];
    return TEMU_OK;
}

temu_status temu_session_register_rank(temu_session *s, int32_t rank, temu_error *err)
{
    if (rank < 0 || rank >= s->hdr->nranks) {
        return temu_fail(err, TEMU_ERANGE, "rank %d is outside the session's %d ranks", rank,
                         s->hdr->nranks);
    }
    __atomic_store_n(&s->ranks[rank].tid, (int32_t)syscall(SYS_gettid), __ATOMIC_RELAXED);
    __atomic_store_n(&s->ranks[rank].pid, (int32_t)getpid(), __ATOMIC_RELEASE);
    return TEMU_OK;
}

uint64_t *temu_node_words(temu_session *s, int64_t node)
{
    if (node < 0 || node >= s->hdr->machine.nnodes) {
        return NULL;
    }
    return s->node_words + node * TEMU_NODE_WORDS;
}

uint64_t temu_session_messages(const temu_session *s)
{
    return __atomic_load_n(&s->hdr->messages, __ATOMIC_RELAXED);
}

uint64_t temu_session_bytes(const temu_session *s)
{
    return __atomic_load_n(&s->hdr->bytes, __ATOMIC_RELAXED);
}

uint64_t temu_counter_count(const temu_session *s)
{
    return s->hdr->ncounters;
}

uint64_t temu_counter_read(const temu_session *s, int64_t idx)
{
    if (idx < 0 || (uint64_t)idx >= s->hdr->ncounters) {
        return 0;
    }
    return __atomic_load_n(&s->counters[idx], __ATOMIC_RELAXED);
}

void temu_counter_read_many(const temu_session *s, const int64_t *idx, int n, uint64_t *out)
{
    const uint64_t limit = s->hdr->ncounters;
    for (int i = 0; i < n; i++) {
        out[i] = (uint64_t)idx[i] < limit ? __atomic_load_n(&s->counters[idx[i]], __ATOMIC_RELAXED)
                                           : 0;
    }
}

void temu_counter_add(temu_session *s, int64_t idx, uint64_t delta)
{
    if (idx < 0 || (uint64_t)idx >= s->hdr->ncounters) {
        return;
    }
    int armed = temu_store_armed(s);
    temu_store_add(s, idx, delta, armed);
    if (TEMU_UNLIKELY(armed)) {
        temu_watch_flush(s);
    }
}

void temu_session_zero(temu_session *s)
{
    char *start = (char *)s->counters;
    size_t bytes = round_page(s->hdr->ncounters * sizeof(uint64_t));
    /* Give the pages back instead of writing zeros, so a huge sparse store
     * (Mira's CNK section) stays sparse: MADV_REMOVE punches a hole in a
     * shared file, MADV_DONTNEED refills a private mapping with zeros. */
    int rc = madvise(start, bytes, s->is_private ? MADV_DONTNEED : MADV_REMOVE);
    if (rc != 0) {
        memset(start, 0, s->hdr->ncounters * sizeof(uint64_t));
    }
    __atomic_store_n(&s->hdr->messages, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&s->hdr->bytes, 0, __ATOMIC_RELAXED);
}

/* ------------------------------------------------------------ describing */

int temu_counter_describe(const temu_machine *m, int64_t idx, char *buf, size_t len)
{
    static const char *tile_ctr[] = {"VC0_PHITS", "VC1_PHITS",  "VC0_PKTS",
                                     "VC1_PKTS",  "INQ_STALL", "CREDIT_STALL"};
    static const char *nic_ctr[] = {
        "ORB_VC0_PKTS",  "ORB_VC0_FLITS",  "ORB_VC1_PKTS",  "ORB_VC1_FLITS",
        "RAT_HEADER_FLITS_VC0", "RAT_DATA_FLITS_VC0", "NPT_PKTS", "NPT_FLITS",
        "TARB_FMA_PKTS", "TARB_FMA_FLITS", "TARB_BTE_PKTS", "TARB_BTE_FLITS",
        "TARB_OUT_PKTS", "TARB_OUT_FLITS", "reserved14", "reserved15"};
    static const char *bgp_ctr[] = {"PACKETS",       "32BCHUNKS",      "VCD0_32BCHUNKS",
                                    "VCD1_32BCHUNKS", "VCBN_32BCHUNKS", "VCBP_32BCHUNKS",
                                    "TOKEN_ACK_PACKETS", "ACKS",       "NO_TOKENS",
                                    "NO_VCD0_TOKENS", "NO_VCBN_TOKENS", "NO_VCBP_TOKENS"};
    static const char *nw_kind[] = {"SENT_CHUNKS", "RECV_PACKETS", "RECV_FIFO"};
    temu_layout l;
    char where[96];

    temu_layout_compute(m, &l);
    if (idx < 0 || idx >= l.total) {
        return snprintf(buf, len, "counter %lld (out of range)", (long long)idx);
    }
    if (m->system == TEMU_SYSTEM_GEMINI) {
        if (idx < l.gemini_nic) {
            int64_t r = idx / (TEMU_GEMINI_TILES * TEMU_GEMINI_TILE_COUNTERS);
            int tile = (int)(idx / TEMU_GEMINI_TILE_COUNTERS % TEMU_GEMINI_TILES);
            temu_router_name(m, r, where, sizeof where);
            return snprintf(buf, len, "%s tile %d (l%d%d, %s) %s", where, tile, tile / 8, tile % 8,
                            temu_link_name(m, temu_gemini_tile_link(tile)),
                            tile_ctr[idx % TEMU_GEMINI_TILE_COUNTERS]);
        }
        int64_t rel = idx - l.gemini_nic;
        temu_node_name(m, rel / TEMU_NIC_COUNTERS, where, sizeof where);
        return snprintf(buf, len, "%s NIC %s", where, nic_ctr[rel % TEMU_NIC_COUNTERS]);
    }
    if (m->system == TEMU_SYSTEM_BGP) {
        int64_t node = idx / (6 * TEMU_BGP_COUNTERS);
        int link = (int)(idx / TEMU_BGP_COUNTERS % 6);
        temu_node_name(m, node, where, sizeof where);
        return snprintf(buf, len, "%s %s %s", where, temu_link_name(m, link),
                        bgp_ctr[idx % TEMU_BGP_COUNTERS]);
    }
    if (idx < l.bgq_mu) {
        int64_t per_node = TEMU_BGQ_LINKS * TEMU_BGQ_NW_KINDS * TEMU_BGQ_VCS;
        int64_t node = idx / per_node;
        int link = (int)(idx % per_node / (TEMU_BGQ_NW_KINDS * TEMU_BGQ_VCS));
        int kind = (int)(idx % (TEMU_BGQ_NW_KINDS * TEMU_BGQ_VCS) / TEMU_BGQ_VCS);
        temu_node_name(m, node, where, sizeof where);
        return snprintf(buf, len, "%s %s %s VC%d", where, temu_link_name(m, link), nw_kind[kind],
                        (int)(idx % TEMU_BGQ_VCS));
    }
    if (idx < l.bgq_l2) {
        int64_t rel = idx - l.bgq_mu;
        temu_node_name(m, rel / TEMU_BGQ_MU_COUNTERS, where, sizeof where);
        return snprintf(buf, len, "%s MU sram %d", where, (int)(rel % TEMU_BGQ_MU_COUNTERS));
    }
    if (idx < l.bgq_cnk_node) {
        int64_t rel = idx - l.bgq_l2;
        int64_t per = TEMU_BGQ_L2_SLICES * TEMU_BGQ_L2_COUNTERS;
        temu_node_name(m, rel / per, where, sizeof where);
        return snprintf(buf, len, "%s L2 slice %d counter %d", where,
                        (int)(rel % per / TEMU_BGQ_L2_COUNTERS), (int)(rel % TEMU_BGQ_L2_COUNTERS));
    }
    if (idx < l.bgq_cnk_hwt) {
        int64_t rel = idx - l.bgq_cnk_node;
        temu_node_name(m, rel / TEMU_BGQ_CNK_NODE_COUNTERS, where, sizeof where);
        return snprintf(buf, len, "%s CNK node counter %d", where,
                        (int)(rel % TEMU_BGQ_CNK_NODE_COUNTERS));
    }
    int64_t rel = idx - l.bgq_cnk_hwt;
    int64_t per = TEMU_BGQ_HWTHREADS * TEMU_BGQ_CNK_HWT_COUNTERS;
    temu_node_name(m, rel / per, where, sizeof where);
    return snprintf(buf, len, "%s CNK hwthread %d counter %d", where,
                    (int)(rel % per / TEMU_BGQ_CNK_HWT_COUNTERS),
                    (int)(rel % TEMU_BGQ_CNK_HWT_COUNTERS));
}
