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

/* Sections of a family's store: its descriptor lays them out (family.h). */
void temu_layout_compute(const temu_machine *m, temu_layout *out)
{
    const temu_family *f = temu_machine_family(m);
    memset(out, 0, sizeof *out);
    out->gemini_tiles = out->gemini_nic = out->bgp_torus = out->bgq_nw = -1;
    out->bgq_mu = out->bgq_l2 = out->bgq_cnk_node = out->bgq_cnk_hwt = out->bgq_nw_cycles = -1;
    if (f != NULL) {
        f->layout(m, out);
    }
}

uint64_t temu_machine_counter_count(const temu_machine *m)
{
    temu_layout l;
    temu_layout_compute(m, &l);
    return (uint64_t)l.total;
}

/* ------------------------------------------------------ counter indices */

#define IN(v, n) ((v) >= 0 && (v) < (n))

/* 1 when m's store has the section (TEMU_SECTION_*) */
static inline int has(const temu_machine *m, uint32_t section)
{
    return temu_family_has(m->system, section);
}

int64_t temu_idx_gemini_tile(const temu_machine *m, int64_t router, int tile, int counter)
{
    if (!IN(router, m->nrouters) || !IN(tile, TEMU_GEMINI_TILES) ||
        !IN(counter, TEMU_GEMINI_TILE_COUNTERS) || !has(m, TEMU_SECTION_GEMINI_TILES)) {
        return -1;
    }
    return (router * TEMU_GEMINI_TILES + tile) * TEMU_GEMINI_TILE_COUNTERS + counter;
}

int64_t temu_idx_gemini_nic(const temu_machine *m, int64_t node, int counter)
{
    if (!IN(node, m->nnodes) || !IN(counter, TEMU_NIC_COUNTERS) ||
        !has(m, TEMU_SECTION_GEMINI_NIC)) {
        return -1;
    }
    return m->nrouters * TEMU_GEMINI_TILES * TEMU_GEMINI_TILE_COUNTERS +
           node * TEMU_NIC_COUNTERS + counter;
}

int64_t temu_idx_bgp(const temu_machine *m, int64_t node, int link, int counter)
{
    if (!IN(node, m->nnodes) || !IN(link, TEMU_BGP_LINKS) || !IN(counter, TEMU_BGP_COUNTERS) ||
        !has(m, TEMU_SECTION_BGP_TORUS)) {
        return -1;
    }
    return (node * TEMU_BGP_LINKS + link) * TEMU_BGP_COUNTERS + counter;
}

int64_t temu_idx_bgq_nw(const temu_machine *m, int64_t node, int link, int kind, int vc)
{
    if (!IN(node, m->nnodes) || !IN(link, TEMU_BGQ_LINKS) || !IN(kind, TEMU_BGQ_NW_KINDS) ||
        !IN(vc, TEMU_BGQ_VCS) || !has(m, TEMU_SECTION_BGQ_NW)) {
        return -1;
    }
    return ((node * TEMU_BGQ_LINKS + link) * TEMU_BGQ_NW_KINDS + kind) * TEMU_BGQ_VCS + vc;
}

int64_t temu_idx_bgq_mu(const temu_machine *m, int64_t node, int sram_index)
{
    temu_layout l;
    if (!IN(node, m->nnodes) || !IN(sram_index, TEMU_BGQ_MU_COUNTERS) ||
        !has(m, TEMU_SECTION_BGQ_MU)) {
        return -1;
    }
    temu_layout_compute(m, &l);
    return l.bgq_mu + node * TEMU_BGQ_MU_COUNTERS + sram_index;
}

int64_t temu_idx_bgq_l2(const temu_machine *m, int64_t node, int slice, int counter)
{
    temu_layout l;
    if (!IN(node, m->nnodes) || !IN(slice, TEMU_BGQ_L2_SLICES) ||
        !IN(counter, TEMU_BGQ_L2_COUNTERS) || !has(m, TEMU_SECTION_BGQ_L2)) {
        return -1;
    }
    temu_layout_compute(m, &l);
    return l.bgq_l2 + (node * TEMU_BGQ_L2_SLICES + slice) * TEMU_BGQ_L2_COUNTERS + counter;
}

int64_t temu_idx_bgq_cnk_node(const temu_machine *m, int64_t node, int counter)
{
    temu_layout l;
    if (!IN(node, m->nnodes) || !IN(counter, TEMU_BGQ_CNK_NODE_COUNTERS) ||
        !has(m, TEMU_SECTION_BGQ_CNK)) {
        return -1;
    }
    temu_layout_compute(m, &l);
    return l.bgq_cnk_node + node * TEMU_BGQ_CNK_NODE_COUNTERS + counter;
}

int64_t temu_idx_bgq_cnk_hwt(const temu_machine *m, int64_t node, int hwthread, int counter)
{
    temu_layout l;
    if (!IN(node, m->nnodes) || !IN(hwthread, TEMU_BGQ_HWTHREADS) ||
        !IN(counter, TEMU_BGQ_CNK_HWT_COUNTERS) || !has(m, TEMU_SECTION_BGQ_CNK)) {
        return -1;
    }
    temu_layout_compute(m, &l);
    return l.bgq_cnk_hwt + (node * TEMU_BGQ_HWTHREADS + hwthread) * TEMU_BGQ_CNK_HWT_COUNTERS +
           counter;
}

int64_t temu_idx_bgq_nw_cycles(const temu_machine *m, int64_t node)
{
    temu_layout l;
    if (!IN(node, m->nnodes) || !has(m, TEMU_SECTION_BGQ_NW_CYCLES)) {
        return -1;
    }
    temu_layout_compute(m, &l);
    return l.bgq_nw_cycles + node;
}

/* Cycles of the network clock (the family's router_hz: 500 MHz) are
 * counted as its edges pass: a counter started at t0 and read at t1 holds
 * floor(t1 / 2 ns) - floor(t0 / 2 ns), and any sequence of advances adds up
 * to one advance over the whole span. */
void temu_bgq_nw_cycles_advance(temu_session *s, int64_t from_ps, int64_t to_ps)
{
    const temu_machine *m = &s->machine;
    int64_t base = temu_idx_bgq_nw_cycles(m, 0);
    uint64_t hz = s->family->info.router_hz, cycles;
    if (!s->virtual_time || s->readonly || base < 0 || from_ps < 0 || to_ps <= from_ps) {
        return;
    }
    cycles = temu_clock_cycles(hz, to_ps) - temu_clock_cycles(hz, from_ps);
    for (int64_t node = 0; node < m->nnodes && cycles > 0; node++) {
        temu_counter_add(s, base + node, cycles);
    }
}

/* ------------------------------------------------------------- sessions */
/* Creating and attaching store files: store_file.c. */

void temu_session_close(temu_session *s)
{
    if (s == NULL) {
        return;
    }
    temu_split_free(s);
    munmap(s->hdr, s->map_bytes);
    free(s);
}

const temu_machine *temu_session_machine(const temu_session *s)
{
    return &s->machine;
}

const char *temu_session_path(const temu_session *s)
{
    return s->path;
}

int32_t temu_session_nranks(const temu_session *s)
{
    return s->nranks;
}

int32_t temu_session_ranks_per_node(const temu_session *s)
{
    return s->ranks_per_node;
}

int temu_session_virtual_time(const temu_session *s)
{
    return s->virtual_time;
}

temu_status temu_session_rank_slot(const temu_session *s, int32_t rank, temu_slot *slot,
                                   temu_error *err)
{
    if (rank < 0 || rank >= s->nranks) {
        return temu_fail(err, TEMU_ERANGE, "rank %d is outside the session's %d ranks", rank,
                         s->nranks);
    }
    *slot = s->mapping[rank];
    return TEMU_OK;
}

temu_status temu_session_register_rank(temu_session *s, int32_t rank, temu_error *err)
{
    if (rank < 0 || rank >= s->nranks) {
        return temu_fail(err, TEMU_ERANGE, "rank %d is outside the session's %d ranks", rank,
                         s->nranks);
    }
    if (s->readonly) {
        return temu_fail(err, TEMU_EINVAL, "cannot register a rank in a read-only session");
    }
    __atomic_store_n(&s->ranks[rank].tid, (int32_t)syscall(SYS_gettid), __ATOMIC_RELAXED);
    __atomic_store_n(&s->ranks[rank].pid, (int32_t)getpid(), __ATOMIC_RELEASE);
    return TEMU_OK;
}

uint64_t *temu_node_words(temu_session *s, int64_t node)
{
    if (node < 0 || node >= s->machine.nnodes) {
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
    return s->ncounters;
}

uint64_t temu_counter_read(const temu_session *s, int64_t idx)
{
    if (idx < 0 || (uint64_t)idx >= s->ncounters) {
        return 0;
    }
    return __atomic_load_n(&s->counters[idx], __ATOMIC_RELAXED);
}

void temu_counter_read_many(const temu_session *s, const int64_t *idx, int n, uint64_t *out)
{
    const uint64_t limit = s->ncounters;
    for (int i = 0; i < n; i++) {
        out[i] = (uint64_t)idx[i] < limit ? __atomic_load_n(&s->counters[idx[i]], __ATOMIC_RELAXED)
                                           : 0;
    }
}

void temu_counter_add(temu_session *s, int64_t idx, uint64_t delta)
{
    if (idx < 0 || (uint64_t)idx >= s->ncounters || s->readonly) {
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
    if (s->readonly) {
        return;
    }
    if (s->is_private) {
        /* MADV_DONTNEED refills a private anonymous mapping with zeros */
        size_t bytes = round_page(s->ncounters * sizeof(uint64_t));
        if (madvise(s->counters, bytes, MADV_DONTNEED) != 0) {
            memset(s->counters, 0, s->ncounters * sizeof(uint64_t));
        }
    } else {
        /* Write the zeros: punching holes (MADV_REMOVE) would give back the
         * pages allocated at creation, and a later injection on a full file
         * system would die of SIGBUS (store_file.c). */
        memset(s->counters, 0, s->ncounters * sizeof(uint64_t));
    }
    __atomic_store_n(&s->hdr->messages, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&s->hdr->bytes, 0, __ATOMIC_RELAXED);
}

int temu_session_readonly(const temu_session *s)
{
    return s->readonly;
}

/* ------------------------------------------------------------ describing */

int temu_counter_describe(const temu_machine *m, int64_t idx, char *buf, size_t len)
{
    temu_layout l;
    temu_layout_compute(m, &l);
    if (idx < 0 || idx >= l.total) {
        return snprintf(buf, len, "counter %lld (out of range)", (long long)idx);
    }
    return temu_machine_family(m)->describe_counter(m, &l, idx, buf, len);
}
