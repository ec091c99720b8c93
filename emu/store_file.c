/*
 * store_file.c - the counter store as a file: creating it safely and
 * attaching to it without trusting its contents.
 *
 * The store is a system file (doc/store.md): root may create it in a
 * world-writable directory such as /dev/shm, every rank maps it, users keep
 * it for analysis.  Hence:
 *   - creation writes the whole store under a fresh name in the target's
 *     directory (O_CREAT|O_EXCL|O_NOFOLLOW, mode 0600 or 0660), allocates
 *     every page (posix_fallocate), and only then publishes it under the
 *     requested name: renameat2(RENAME_NOREPLACE) (or link(2) where the file
 *     system lacks it), or rename(2) when replacing was asked for.  A planted
 *     symlink or file is never opened, a half-written store is never
 *     visible, and processes attached to a replaced store keep its old inode
 *     (no truncation under them, no SIGBUS);
 *   - attach copies the header once, checks every field against the machine
 *     re-parsed from the stored name and the layout recomputed with overflow
 *     checks, checks the shared sections other processes index with
 *     (mapping, watches), and from then on uses only the checked copy.
 */
#define _GNU_SOURCE 1
#define TEMU_BUILDING_LIBRARY 1
#include "emu_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define PAGE 4096u

/* Section offsets of a store and its size, all in bytes from the start. */
typedef struct store_offsets {
    uint64_t mapping, ranks, watches, watch_bits, node_words, counters, bytes;
} store_offsets;

/* *off + count * elem, rounded up to a page; 0 on success, -1 on overflow. */
static int grow_section(uint64_t *off, uint64_t count, uint64_t elem)
{
    uint64_t bytes, end;
    if (__builtin_mul_overflow(count, elem, &bytes) || __builtin_add_overflow(*off, bytes, &end) ||
        end > UINT64_MAX - PAGE) {
        return -1;
    }
    *off = (end + PAGE - 1) / PAGE * PAGE;
    return 0;
}

/* Layout of a store of machine m with nranks ranks; -1 when its size does
 * not fit a file offset or this process's address space. */
static int store_layout(const temu_machine *m, int32_t nranks, store_offsets *o)
{
    uint64_t n = temu_machine_counter_count(m);
    uint64_t off = TEMU_STORE_HEADER_BYTES;
    if (nranks < 0 || m->nnodes < 0) {
        return -1;
    }
    o->mapping = off;
    int bad = grow_section(&off, (uint64_t)nranks, sizeof(temu_slot));
    o->ranks = off;
    bad |= grow_section(&off, (uint64_t)nranks, sizeof(temu_rank_entry));
    o->watches = off;
    bad |= grow_section(&off, TEMU_WATCH_MAX, sizeof(temu_watch_slot));
    o->watch_bits = off;
    bad |= grow_section(&off, (n + 7) / 8, 1); /* one bit per counter */
    o->node_words = off;
    bad |= grow_section(&off, (uint64_t)m->nnodes, TEMU_NODE_WORDS * sizeof(uint64_t));
    o->counters = off;
    bad |= grow_section(&off, n, sizeof(uint64_t));
    o->bytes = off;
    return bad || off > (uint64_t)INT64_MAX || off > (uint64_t)SIZE_MAX ? -1 : 0;
}

/* A machine no family describes (not made by temu_machine_parse) has no
 * store. */
static temu_status unknown_system(const temu_machine *m, temu_error *err)
{
    return temu_fail(err, TEMU_EINVAL, "machine '%.*s': system %d is not gemini, bgp or bgq",
                     (int)strnlen(m->name, sizeof m->name), m->name, (int)m->system);
}

/* Point the session at the sections of a mapped store, using the checked
 * header copy h (never the live header in the file). */
static void session_bind(temu_session *s, void *base, size_t bytes, const temu_store_header *h)
{
    char *b = base;
    temu_layout l;
    s->hdr = base;
    s->armed_word = &s->hdr->armed;
    s->split = NULL;
    s->serial = temu_memo_serial();
    s->map_bytes = bytes;
    s->machine = h->machine;
    s->family = temu_machine_family(&s->machine); /* a checked machine has one */
    temu_layout_compute(&s->machine, &l);
    s->gemini_nic_base = l.gemini_nic;
    s->bgq_mu_base = l.bgq_mu;
    s->bgq_l2_base = l.bgq_l2;
    s->ncounters = h->ncounters;
    s->nranks = h->nranks;
    s->ranks_per_node = h->ranks_per_node;
    s->virtual_time = h->clock == TEMU_CLOCK_VIRTUAL;
    s->mapping = (temu_slot *)(b + h->mapping_offset);
    s->ranks = (temu_rank_entry *)(b + h->ranks_offset);
    s->watches = (temu_watch_slot *)(b + h->watches_offset);
    s->watch_bits = (uint8_t *)(b + h->watch_bits_offset);
    s->node_words = (uint64_t *)(b + h->node_words_offset);
    s->counters = (uint64_t *)(b + h->counters_offset);
}

static void header_init(temu_store_header *h, const temu_machine *m, const temu_mapping *map,
                        const store_offsets *o, unsigned flags)
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
    h->clock = (flags & TEMU_CREATE_VIRTUAL_TIME) ? TEMU_CLOCK_VIRTUAL : TEMU_CLOCK_HOST;
}

/* ------------------------------------------------------------- creating */

/* Create "<path>.new-<random>" exclusively; its name goes to tmp. */
static int open_aside(const char *path, char *tmp, size_t len, mode_t mode)
{
    for (int tries = 0; tries < 64; tries++) {
        uint64_t r = 0;
        if (getrandom(&r, sizeof r, 0) != (ssize_t)sizeof r) {
            r = (uint64_t)time(NULL) * 2654435761u + (uint64_t)getpid() * 40503u + (uint64_t)tries;
        }
        int w = snprintf(tmp, len, "%s.new-%016llx", path, (unsigned long long)r);
        if (w < 0 || (size_t)w >= len) {
            errno = ENAMETOOLONG;
            return -1;
        }
        int fd = open(tmp, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
        if (fd >= 0 || errno != EEXIST) {
            return fd;
        }
    }
    errno = EEXIST;
    return -1;
}

/* Give the finished store at tmp the name path. */
static int publish(const char *tmp, const char *path, unsigned flags)
{
    if (flags & TEMU_CREATE_REPLACE) {
        return rename(tmp, path);
    }
    if (renameat2(AT_FDCWD, tmp, AT_FDCWD, path, RENAME_NOREPLACE) == 0) {
        return 0;
    }
    if (errno != EINVAL && errno != ENOSYS) {
        return -1;
    }
    /* a file system without RENAME_NOREPLACE: link(2) never replaces either */
    if (link(tmp, path) != 0) {
        return -1;
    }
    unlink(tmp);
    return 0;
}

static temu_status exists_error(const char *path, temu_error *err)
{
    return temu_fail(err, TEMU_EIO,
                     "session store '%s' already exists (remove it, or ask to replace it: "
                     "torusemu create --replace)",
                     path);
}

temu_status temu_session_create_ex(const char *path, const temu_machine *m,
                                   const temu_mapping *map, unsigned flags, temu_session **out,
                                   temu_error *err)
{
    store_offsets o;
    int32_t nranks = map != NULL ? map->nranks : 0;
    mode_t mode = (flags & TEMU_CREATE_GROUP) ? 0660 : 0600;
    temu_session *s = NULL;
    void *base = MAP_FAILED;
    char tmp[sizeof s->path + 32];
    struct stat st;
    temu_status rc = TEMU_OK;
    int fd, e;

    *out = NULL;
    if (path == NULL || path[0] == '\0') {
        return temu_fail(err, TEMU_EINVAL, "empty session path");
    }
    if (strlen(path) >= sizeof s->path) {
        return temu_fail(err, TEMU_EINVAL, "session path too long");
    }
    if (flags & ~(TEMU_CREATE_REPLACE | TEMU_CREATE_GROUP | TEMU_CREATE_VIRTUAL_TIME)) {
        return temu_fail(err, TEMU_EINVAL, "unknown session creation flags 0x%x", flags);
    }
    if (temu_machine_family(m) == NULL) {
        return unknown_system(m, err);
    }
    if (store_layout(m, nranks, &o) != 0) {
        return temu_fail(err, TEMU_EINVAL, "a store of %s with %d ranks is too large to map",
                         m->name, nranks);
    }
    /* early and friendly; publish() is what makes creation exclusive */
    if (!(flags & TEMU_CREATE_REPLACE) && lstat(path, &st) == 0) {
        return exists_error(path, err);
    }
    fd = open_aside(path, tmp, sizeof tmp, mode);
    if (fd < 0) {
        return temu_fail(err, TEMU_EIO, "cannot create session store '%s': %s", path,
                         strerror(errno));
    }
    /* the mode asked for, whatever the umask: 0660 must let the group in */
    if (fchmod(fd, mode) != 0 || ftruncate(fd, (off_t)o.bytes) != 0) {
        e = errno;
        rc = temu_fail(err, TEMU_EIO, "cannot size session store '%s' to %llu bytes: %s", path,
                       (unsigned long long)o.bytes, strerror(e));
        goto fail;
    }
    /* every page now, so a full file system fails here and not as a SIGBUS
     * in a rank or a PAPI reader touching its first counter later */
    e = posix_fallocate(fd, 0, (off_t)o.bytes);
    if (e != 0) {
        rc = temu_fail(err, TEMU_EIO,
                       "cannot allocate the %llu bytes of session store '%s': %s",
                       (unsigned long long)o.bytes, path, strerror(e));
        goto fail;
    }
    base = mmap(NULL, (size_t)o.bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (base == MAP_FAILED) {
        e = errno;
        rc = temu_fail(err, TEMU_EIO, "cannot map session store '%s': %s", path, strerror(e));
        goto fail;
    }
    s = calloc(1, sizeof *s);
    if (s == NULL) {
        rc = temu_fail(err, TEMU_ENOMEM, "out of memory creating a session");
        goto fail;
    }
    header_init(base, m, map, &o, flags);
    session_bind(s, base, (size_t)o.bytes, base);
    if (nranks > 0) {
        memcpy(s->mapping, map->slot, (size_t)nranks * sizeof(temu_slot));
    }
    if (publish(tmp, path, flags) != 0) {
        e = errno;
        rc = e == EEXIST ? exists_error(path, err)
                         : temu_fail(err, TEMU_EIO, "cannot create session store '%s': %s", path,
                                     strerror(e));
        goto fail;
    }
    close(fd);
    snprintf(s->path, sizeof s->path, "%s", path);
    *out = s;
    return TEMU_OK;
fail:
    if (base != MAP_FAILED) {
        munmap(base, (size_t)o.bytes);
    }
    free(s);
    close(fd);
    unlink(tmp);
    return rc;
}

temu_status temu_session_create(const char *path, const temu_machine *m, const temu_mapping *map,
                                temu_session **out, temu_error *err)
{
    return temu_session_create_ex(path, m, map, 0, out, err);
}

temu_status temu_session_create_private(const temu_machine *m, temu_session **out,
                                        temu_error *err)
{
    store_offsets o;
    temu_session *s;
    void *base;

    *out = NULL;
    if (temu_machine_family(m) == NULL) {
        return unknown_system(m, err);
    }
    if (store_layout(m, 0, &o) != 0) {
        return temu_fail(err, TEMU_EINVAL, "a store of %s is too large to map", m->name);
    }
    s = calloc(1, sizeof *s);
    if (s == NULL) {
        return temu_fail(err, TEMU_ENOMEM, "out of memory creating a session");
    }
    base = mmap(NULL, (size_t)o.bytes, PROT_READ | PROT_WRITE,
                MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (base == MAP_FAILED) {
        free(s);
        return temu_fail(err, TEMU_ENOMEM, "cannot map a private store of %llu bytes: %s",
                         (unsigned long long)o.bytes, strerror(errno));
    }
    header_init(base, m, NULL, &o, 0);
    session_bind(s, base, (size_t)o.bytes, base);
    s->is_private = 1;
    *out = s;
    return TEMU_OK;
}

/* ------------------------------------------------------------ attaching */

/* 1 when a fixed-size text field holds a NUL. */
static int terminated(const char *field, size_t len)
{
    return memchr(field, '\0', len) != NULL;
}

/*
 * Check the stored machine against the one its name parses to.  The name
 * fixes the topology (system, sizes, wrap flags, routing order, nodes per
 * router, links, router and node counts); cores and protocol thresholds may
 * differ (spec options the name leaves out) but only within what the parser
 * accepts.  On success *out is the checked machine.
 */
static int machine_check(const temu_machine *h, temu_machine *out)
{
    temu_machine m;
    if (!terminated(h->name, sizeof h->name) || !terminated(h->preset, sizeof h->preset) ||
        temu_machine_parse(h->name, &m, NULL) != TEMU_OK || strcmp(m.name, h->name) != 0) {
        return -1;
    }
    /* the stored system must be the one its machine name parses to */
    int bad = h->system != m.system || h->ndims != m.ndims ||
              h->nodes_per_router != m.nodes_per_router || h->nlinks != m.nlinks ||
              h->nrouters != m.nrouters || h->nnodes != m.nnodes ||
              h->threads_per_core != m.threads_per_core;
    for (int d = 0; d < TEMU_MAX_DIMS; d++) {
        bad |= h->size[d] != m.size[d] || h->torus[d] != m.torus[d] ||
               h->dim_order[d] != m.dim_order[d];
    }
    /* options the spec may set: cores=, eager=, and where the family takes
     * them (Gemini) bte=, header=, (BG/Q) m2m-routing= */
    uint32_t options = temu_machine_family(&m)->info.spec_options;
    bad |= h->cores_per_node < 1 || h->cores_per_node > 1024 ||
           h->protocol.eager_limit > (1u << 31);
    bad |= (options & TEMU_SPEC_BTE) ? h->protocol.bte_threshold > (1u << 31)
                                     : h->protocol.bte_threshold != m.protocol.bte_threshold;
    bad |= (options & TEMU_SPEC_HEADER) ? h->protocol.mpi_header > TEMU_GEMINI_MAX_TRANSACTION
                                        : h->protocol.mpi_header != m.protocol.mpi_header;
    bad |= (options & TEMU_SPEC_M2M) ? h->protocol.m2m_deterministic > 1
                                     : h->protocol.m2m_deterministic != 0;
    if (!bad && h->preset[0] != '\0') {
        temu_machine p;
        bad = temu_machine_parse(h->preset, &p, NULL) != TEMU_OK || strcmp(p.name, m.name) != 0;
    }
    if (bad) {
        return -1;
    }
    m.cores_per_node = h->cores_per_node;
    m.protocol = h->protocol;
    memcpy(m.preset, h->preset, sizeof m.preset);
    *out = m;
    return 0;
}

/* Check a header copy read from a file of file_size bytes; on success its
 * machine is replaced by the checked one. */
static temu_status header_check(const char *path, temu_store_header *h, uint64_t file_size,
                                temu_error *err)
{
    temu_machine m;
    store_offsets o;
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
    if (machine_check(&h->machine, &m) != 0) {
        return temu_fail(err, TEMU_ECORRUPT,
                         "session store '%s' describes a machine its stored name does not give",
                         path);
    }
    int bad = h->header_bytes != TEMU_STORE_HEADER_BYTES || h->nranks < 0 ||
              h->ranks_per_node < 1 || h->ranks_per_node > 1024 ||
              (h->nranks > 0 && h->nranks > m.nnodes * h->ranks_per_node) ||
              store_layout(&m, h->nranks, &o) != 0;
    if (!bad) {
        bad = h->ncounters != temu_machine_counter_count(&m) || h->mapping_offset != o.mapping ||
              h->ranks_offset != o.ranks || h->watches_offset != o.watches ||
              h->watch_bits_offset != o.watch_bits || h->node_words_offset != o.node_words ||
              h->counters_offset != o.counters || o.bytes != file_size ||
              h->watch_top > TEMU_WATCH_MAX || h->armed > TEMU_WATCH_MAX;
    }
    if (bad) {
        return temu_fail(err, TEMU_ECORRUPT, "session store '%s' has an inconsistent header",
                         path);
    }
    if (h->clock != TEMU_CLOCK_HOST && h->clock != TEMU_CLOCK_VIRTUAL) {
        return temu_fail(err, TEMU_ECORRUPT,
                         "session store '%s' names network clock %u (0 host or 1 virtual time)",
                         path, h->clock);
    }
    h->machine = m;
    return TEMU_OK;
}

/* Check the shared sections other code indexes with: every rank's slot on
 * the machine, every watch well formed.  Returns a description of the first
 * fault, or NULL. */
static const char *sections_check(const temu_session *s)
{
    for (int32_t r = 0; r < s->nranks; r++) {
        temu_slot v = s->mapping[r];
        if (v.node < 0 || v.node >= s->machine.nnodes || v.t < 0 || v.t >= s->ranks_per_node) {
            return "a rank placed outside the machine";
        }
    }
    for (int i = 0; i < TEMU_WATCH_MAX; i++) {
        const temu_watch_slot *w = &s->watches[i];
        if (w->state == TEMU_WATCH_FREE) {
            continue;
        }
        if (w->state != TEMU_WATCH_ACTIVE || w->ncounters < 1 ||
            w->ncounters > TEMU_WATCH_MAX_COUNTERS || w->threshold < 1 || w->signo < 0 ||
            w->signo > 64 || w->delay_ns > TEMU_WATCH_MAX_DELAY_NS) {
            return "a malformed overflow watch";
        }
        for (int32_t k = 0; k < w->ncounters; k++) {
            if (((uint64_t)w->counters[k] & TEMU_WATCH_IDX_MASK) >= s->ncounters) {
                return "an overflow watch on a counter outside the store";
            }
        }
    }
    return NULL;
}

temu_status temu_session_attach_ex(const char *path, unsigned flags, temu_session **out,
                                   temu_error *err)
{
    temu_store_header h;
    struct stat st;
    temu_session *s;
    temu_status rc;
    const char *fault;
    int ro = (flags & TEMU_ATTACH_READONLY) != 0;
    void *base;
    int fd;

    *out = NULL;
    if (path == NULL || path[0] == '\0') {
        return temu_fail(err, TEMU_EINVAL, "empty session path");
    }
    if (strlen(path) >= sizeof s->path) {
        return temu_fail(err, TEMU_EINVAL, "session path too long");
    }
    if (flags & ~TEMU_ATTACH_READONLY) {
        return temu_fail(err, TEMU_EINVAL, "unknown session attach flags 0x%x", flags);
    }
    /* O_NONBLOCK: a FIFO without a writer must not hang the open */
    fd = open(path, (ro ? O_RDONLY : O_RDWR) | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) {
        return temu_fail(err, TEMU_EIO, "cannot open session store '%s': %s", path,
                         strerror(errno));
    }
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        return temu_fail(err, TEMU_ECORRUPT, "session store '%s' is not a regular file", path);
    }
    if (st.st_size < (off_t)TEMU_STORE_HEADER_BYTES) {
        close(fd);
        return temu_fail(err, TEMU_ECORRUPT,
                         "session store '%s' is too short to hold a header (%lld bytes)", path,
                         (long long)st.st_size);
    }
    /* one copy of the header, checked and then used; the live one in the
     * mapping may change under us and is never trusted for the layout */
    if (pread(fd, &h, sizeof h, 0) != (ssize_t)sizeof h) {
        close(fd);
        return temu_fail(err, TEMU_EIO, "cannot read the header of '%s'", path);
    }
    rc = header_check(path, &h, (uint64_t)st.st_size, err);
    if (rc != TEMU_OK) {
        close(fd);
        return rc;
    }
    base = mmap(NULL, (size_t)st.st_size, ro ? PROT_READ : PROT_READ | PROT_WRITE, MAP_SHARED, fd,
                0);
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
    session_bind(s, base, (size_t)st.st_size, &h);
    s->readonly = ro;
    fault = sections_check(s);
    if (fault != NULL) {
        temu_session_close(s);
        return temu_fail(err, TEMU_ECORRUPT, "session store '%s' holds %s", path, fault);
    }
    snprintf(s->path, sizeof s->path, "%s", path);
    *out = s;
    return TEMU_OK;
}

temu_status temu_session_attach(const char *path, temu_session **out, temu_error *err)
{
    return temu_session_attach_ex(path, 0, out, err);
}

temu_status temu_session_attach_env(temu_session **out, temu_error *err)
{
    const char *path = getenv(TEMU_SESSION_ENV);
    *out = NULL;
    if (path == NULL || path[0] == '\0') {
        return temu_fail(err, TEMU_ENOSESSION, "%s is not set: no emulated session",
                         TEMU_SESSION_ENV);
    }
    /* a run across hosts: this rank's host has a store of its own */
    const char *hosts = getenv(TEMU_HOSTS_ENV);
    if (hosts != NULL && hosts[0] != '\0' && strcmp(hosts, "1") != 0) {
        char *end = NULL;
        long n = strtol(hosts, &end, 10);
        if (end == hosts || *end != '\0' || n < 1 || n > TEMU_HOSTS_MAX) {
            return temu_fail(err, TEMU_EINVAL, "%s='%s': expected a number of hosts from 1 to %d",
                             TEMU_HOSTS_ENV, hosts, TEMU_HOSTS_MAX);
        }
        return temu_split_attach_env(path, (int32_t)n, out, err);
    }
    return temu_session_attach(path, out, err);
}
