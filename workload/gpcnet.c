/*
 * gpcnet.c - GPCNeT's network load test as the replay runs it (gpcnet.h):
 * the node draw, the communicators per role and process slot, the random
 * rings, the canaries' exchanges and the four congestors.  Each rule names
 * the file and function of GPCNeT 1.3 (netbench/GPCNET at c56fd95) it
 * follows; the code is written from those rules.
 *
 * GPCNeT draws from C's rand(); the replay draws from xorshift64* seeded
 * through splitmix64, the same on every host: a seed gives other roles and
 * rings than GPCNeT's rand() would, drawn by the same rules.
 */
#include "gpcnet.h"
#include "torusemu_vtime.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

const temu_replay_coll temu_gpcnet_allreduce = {.op = TEMU_COLL_ALLREDUCE,
                                                .blocking = 1,
                                                .hw_op = 1,
                                                .commutative = 1,
                                                .bytes = GPC_ALLREDUCE_BYTES,
                                                .elem = 8};
const temu_replay_coll temu_gpcnet_barrier = {.op = TEMU_COLL_BARRIER, .blocking = 1};

/* Tags: random_ring.c p2p_latency() sends to the left neighbour with 82,
 * to the right with 81; congestors.c uses 987 on its own communicators,
 * here one tag per congestor on the world. */
#define TAG_TO_LEFT 82
#define TAG_TO_RIGHT 81
#define TAG_CONGESTOR 987

/* ------------------------------------------------------------ drawing */

static uint64_t gpc_rng_seed(uint64_t seed)
{
    uint64_t z = seed + 0x9E3779B97F4A7C15ull; /* splitmix64's finaliser */
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    return z != 0 ? z : 0x9E3779B97F4A7C15ull;
}

static uint64_t gpc_rng_next(uint64_t *s)
{
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return *s * 0x2545F4914F6CDD1Dull;
}

/* list[0 .. size) = 0 .. size - 1, then shuffled as utils.c shuffle()
 * does: for i from size - 1 down to 1, swap list[i] with list[draw % i].
 * (j < i always: the result is a single cycle, Sattolo's algorithm.) */
static void gpc_shuffle_identity(int32_t *list, int32_t size, uint64_t *rng)
{
    for (int32_t i = 0; i < size; i++) {
        list[i] = i;
    }
    for (int32_t i = size - 1; i > 0; i--) {
        int32_t j = (int32_t)(gpc_rng_next(rng) % (uint64_t)i);
        int32_t t = list[j];
        list[j] = list[i];
        list[i] = t;
    }
}

/* ------------------------------------------------------------- layout */

static int cmp_i32(const void *a, const void *b)
{
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return x < y ? -1 : x > y;
}

/* Index of v in the sorted array a of n (present). */
static int32_t find_i32(const int32_t *a, int32_t n, int32_t v)
{
    int32_t lo = 0, hi = n - 1;
    while (lo < hi) {
        int32_t mid = lo + (hi - lo) / 2;
        if (a[mid] < v) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    return lo;
}

/* Working arrays of layout_make. */
typedef struct nodes_of {
    int32_t nn;     /* distinct nodes                                 */
    int32_t *uniq;  /* [n] sorted distinct node ids (nn used)         */
    int32_t *node;  /* [n] each rank's node index into uniq           */
    int32_t *ppn;   /* [n] ranks on each node                         */
    int32_t *start; /* [n + 1] node u's ranks: byn[start[u] ..)       */
    int32_t *byn;   /* [n] ranks node by node, world-rank order       */
    int32_t *order; /* [n] the shuffled node list (nn used)           */
    int32_t *group; /* [n] each rank's group                          */
    int32_t *tmp;   /* [n] colours                                    */
} nodes_of;

/* Nodes in ascending id order (GPCNeT: init_mpi() sorts the host names)
 * and on each node its ranks in world-rank order (a rank's node_rank). */
static temu_status layout_nodes(const temu_session *s, int32_t base, int32_t n, nodes_of *w,
                                temu_error *err)
{
    for (int32_t r = 0; r < n; r++) {
        temu_slot slot;
        temu_status st = temu_session_rank_slot(s, base + r, &slot, err);
        if (st != TEMU_OK) {
            return st;
        }
        w->node[r] = w->uniq[r] = slot.node;
    }
    qsort(w->uniq, (size_t)n, sizeof *w->uniq, cmp_i32);
    w->nn = 0;
    for (int32_t r = 0; r < n; r++) {
        if (w->nn == 0 || w->uniq[r] != w->uniq[w->nn - 1]) {
            w->uniq[w->nn++] = w->uniq[r];
        }
    }
    memset(w->ppn, 0, (size_t)w->nn * sizeof *w->ppn);
    for (int32_t r = 0; r < n; r++) {
        w->node[r] = find_i32(w->uniq, w->nn, w->node[r]);
        w->ppn[w->node[r]]++;
    }
    w->start[0] = 0;
    for (int32_t u = 0; u < w->nn; u++) {
        w->start[u + 1] = w->start[u] + w->ppn[u];
        w->ppn[u] = 0; /* refilled below as the fill count */
    }
    for (int32_t r = 0; r < n; r++) {
        int32_t u = w->node[r];
        w->byn[w->start[u] + w->ppn[u]++] = r;
    }
    return TEMU_OK;
}

/* How many nodes run congestors: build_subcomms() takes
 * floor(CONGESTOR_NODE_FRAC x nodes); a canary share f makes it 1 - f
 * (the 1e-9 keeps 1 - 0.2 from flooring 12.8 - 1 ulp badly). */
static int32_t layout_congestor_nodes(int32_t nn, double f)
{
    double cf = f > 0 ? 1.0 - f : GPC_CONGESTOR_FRAC;
    return (int32_t)floor(cf * (double)nn + 1e-9);
}

/* Congestor kinds of slot s: split_subcomms() numbers the slot's
 * congestor communicator (the slot's rank on each congestor node with
 * that many ranks, in node-list order) 0 .. m - 1, shuffles those numbers
 * with the draw continued from the node shuffle (shuffle(..., call 1)
 * does not reseed) and gives member j the congestor colors[j] % 4. */
static void layout_slot_kinds(nodes_of *w, int32_t ncong, int32_t slots, int32_t s,
                              uint64_t after_nodes)
{
    int32_t m = 0;
    for (int32_t j = 0; j < ncong; j++) {
        m += w->ppn[w->order[j]] > s;
    }
    uint64_t rng = after_nodes;
    gpc_shuffle_identity(w->tmp, m, &rng);
    int32_t t = 0;
    for (int32_t j = 0; j < ncong; j++) {
        int32_t u = w->order[j];
        if (w->ppn[u] > s) {
            int32_t role = GPC_A2A + w->tmp[t++] % (GPC_ROLES - 1);
            w->group[w->byn[w->start[u] + s]] = role * slots + s;
        }
    }
}

/* Members group by group, each group in node-list order (MPI_Comm_split
 * with key 0 keeps the order of the communicator it splits). */
static temu_status layout_fill(const nodes_of *w, int32_t base, int32_t n, temu_gpcnet_layout *l,
                               temu_error *err)
{
    int32_t ng = GPC_ROLES * l->slots;
    l->rank = malloc((size_t)n * sizeof *l->rank);
    l->first = calloc((size_t)ng + 1, sizeof *l->first);
    int32_t *next = malloc((size_t)ng * sizeof *next); /* each group's next free place */
    if (l->rank == NULL || l->first == NULL || next == NULL) {
        free(next);
        return temu_fail(err, TEMU_ENOMEM, "gpcnet: out of memory");
    }
    for (int32_t r = 0; r < n; r++) {
        l->first[w->group[r] + 1]++;
    }
    for (int32_t g = 0; g < ng; g++) {
        l->first[g + 1] += l->first[g];
    }
    memcpy(next, l->first, (size_t)ng * sizeof *next);
    for (int32_t j = 0; j < w->nn; j++) {
        int32_t u = w->order[j];
        for (int32_t s = 0; s < w->ppn[u]; s++) {
            int32_t r = w->byn[w->start[u] + s];
            l->rank[next[w->group[r]]++] = base + r;
        }
    }
    free(next);
    l->canaries = l->first[l->slots];
    return TEMU_OK;
}

/* The node draw and every rank's group (build_subcomms()). */
static temu_status layout_groups(nodes_of *w, double f, uint64_t seed, temu_gpcnet_layout *l,
                                 temu_error *err)
{
    int32_t nn = w->nn, ncong = layout_congestor_nodes(nn, f);
    l->nodes = nn;
    l->congestor_nodes = ncong;
    l->canary_nodes = nn - ncong;
    if (l->canary_nodes < GPC_MIN_CANARY_NODES || ncong < GPC_MIN_CONGESTOR_NODES) {
        return temu_fail(err, TEMU_EINVAL,
                         "gpcnet: %d nodes with canary fraction %g leave %d canary and %d "
                         "congestor nodes (GPCNeT needs at least %d and %d)",
                         nn, f > 0 ? f : 1.0 - GPC_CONGESTOR_FRAC, l->canary_nodes, ncong,
                         GPC_MIN_CANARY_NODES, GPC_MIN_CONGESTOR_NODES);
    }
    l->slots = 0;
    for (int32_t u = 0; u < nn; u++) {
        l->slots = w->ppn[u] > l->slots ? w->ppn[u] : l->slots;
    }
    /* allnodes shuffled; its first ncong nodes run congestors, the rest
     * the network tests */
    uint64_t rng = gpc_rng_seed(seed != 0 ? seed : GPC_RSEED);
    gpc_shuffle_identity(w->order, nn, &rng);
    for (int32_t j = ncong; j < nn; j++) {
        int32_t u = w->order[j];
        for (int32_t s = 0; s < w->ppn[u]; s++) {
            w->group[w->byn[w->start[u] + s]] = GPC_CANARY * l->slots + s;
        }
    }
    for (int32_t s = 0; s < l->slots; s++) {
        layout_slot_kinds(w, ncong, l->slots, s, rng);
    }
    return TEMU_OK;
}

temu_status temu_gpcnet_layout_make(const temu_session *s, int32_t base, int32_t n, double f,
                                    uint64_t seed, temu_gpcnet_layout *out, temu_error *err)
{
    nodes_of w;
    size_t sz = (size_t)(n > 0 ? n : 1) * sizeof(int32_t);
    memset(out, 0, sizeof *out);
    memset(&w, 0, sizeof w);
    int32_t **arr[] = {&w.uniq, &w.node, &w.ppn, &w.byn, &w.order, &w.group, &w.tmp};
    temu_status st = TEMU_OK;
    for (size_t i = 0; i < sizeof arr / sizeof arr[0]; i++) {
        *arr[i] = malloc(sz);
        st = *arr[i] == NULL ? TEMU_ENOMEM : st;
    }
    w.start = malloc(sz + sizeof(int32_t));
    if (st != TEMU_OK || w.start == NULL) {
        st = temu_fail(err, TEMU_ENOMEM, "gpcnet: out of memory for %d ranks", n);
    }
    if (st == TEMU_OK) {
        st = layout_nodes(s, base, n, &w, err);
    }
    if (st == TEMU_OK) {
        st = layout_groups(&w, f, seed, out, err);
    }
    if (st == TEMU_OK) {
        st = layout_fill(&w, base, n, out, err);
    }
    for (size_t i = 0; i < sizeof arr / sizeof arr[0]; i++) {
        free(*arr[i]);
    }
    free(w.start);
    if (st != TEMU_OK) {
        temu_gpcnet_layout_free(out);
    }
    return st;
}

void temu_gpcnet_layout_free(temu_gpcnet_layout *l)
{
    free(l->rank);
    free(l->first);
    l->rank = NULL;
    l->first = NULL;
}

/* -------------------------------------------------------------- rings */

/* random_ring() (random_ring.c) shuffles the list 0 .. m - 1 of its
 * communicator's ranks once per ring with shuffle(..., RSEED + node rank,
 * r): seeded at ring 0, continued for the next rings, and started over at
 * every measurement, so the same GPC_RINGS rings come back. */
void temu_gpcnet_ring(const temu_gpcnet_layout *l, int32_t slot, int32_t ring, int32_t *order)
{
    int32_t m = temu_gpcnet_size(l, GPC_CANARY * l->slots + slot);
    uint64_t rng = gpc_rng_seed((uint64_t)GPC_RSEED + (uint64_t)slot);
    for (int32_t k = 0; k <= ring; k++) {
        gpc_shuffle_identity(order, m, &rng);
    }
}

/* A send and its receive on the world. */
static temu_status gpc_p2p(temu_replay *r, int32_t from, int32_t to, int32_t tag, uint64_t bytes,
                           temu_error *err)
{
    temu_status st = temu_replay_send(r, TEMU_REPLAY_WORLD, from, to, tag, bytes, err);
    return st == TEMU_OK ? temu_replay_recv(r, TEMU_REPLAY_WORLD, to, from, tag, bytes, err) : st;
}

/* p2p_latency() and p2p_neighbors() (random_ring.c): receives from both
 * neighbours posted, then msgs sends to the left neighbour and msgs to the
 * right, all completed by one MPI_Waitall.  The slot's communicator has
 * one rank per node: every neighbour is off the node. */
temu_status temu_gpcnet_ring_exchange(temu_replay *r, const temu_gpcnet_layout *l, int32_t ring,
                                      uint64_t bytes, int msgs, int32_t *buf, temu_error *err)
{
    temu_status st = TEMU_OK;
    for (int32_t s = 0; s < l->slots && st == TEMU_OK; s++) {
        const int32_t *mem = l->rank + l->first[GPC_CANARY * l->slots + s];
        int32_t m = temu_gpcnet_size(l, GPC_CANARY * l->slots + s);
        if (m < 2) {
            continue; /* a ring of one: GPCNeT's canary would talk to itself */
        }
        temu_gpcnet_ring(l, s, ring, buf);
        for (int32_t pos = 0; pos < m && st == TEMU_OK; pos++) {
            int32_t me = mem[buf[pos]];
            int32_t left = mem[buf[(pos + m - 1) % m]], right = mem[buf[(pos + 1) % m]];
            for (int k = 0; k < msgs && st == TEMU_OK; k++) {
                st = gpc_p2p(r, me, left, TAG_TO_LEFT, bytes, err);
                st = st == TEMU_OK ? gpc_p2p(r, me, right, TAG_TO_RIGHT, bytes, err) : st;
            }
        }
    }
    return st;
}

/* ---------------------------------------------------------- congestors */

/* In virtual time: each of the m members waits for what it started. */
static temu_status gpc_wait(temu_replay *r, const int32_t *mem, int32_t m, temu_error *err)
{
    temu_vt *vt = temu_replay_vtime(r);
    temu_status st = TEMU_OK;
    for (int32_t i = 0; vt != NULL && i < m && st == TEMU_OK; i++) {
        st = temu_vt_wait(vt, mem[i], 0, err);
    }
    return st;
}

/* a2a_congestor() (congestors.c): m - 1 pairwise steps of one
 * MPI_Sendrecv of 4 KiB each (the step with itself, i = 0, stays on the
 * node and is left out); exclusive-or partners when m is a power of two,
 * else to me + i from me - i. */
static temu_status gpc_a2a(temu_replay *r, const int32_t *mem, int32_t m, int32_t tag,
                           temu_error *err)
{
    int pof2 = (m & (m - 1)) == 0;
    temu_status st = TEMU_OK;
    for (int32_t i = 1; i < m && st == TEMU_OK; i++) {
        for (int32_t me = 0; me < m && st == TEMU_OK; me++) {
            int32_t dst = pof2 ? me ^ i : (me + i) % m;
            st = gpc_p2p(r, mem[me], mem[dst], tag, GPC_CONGESTOR_BYTES, err);
        }
        st = st == TEMU_OK ? gpc_wait(r, mem, m, err) : st;
    }
    return st;
}

/* p2p_incast_congestor(), rma_incast_congestor(), rma_bcast_congestor()
 * (congestors.c): every member but rank 0 sends (MPI_Send), puts
 * (MPI_Put + MPI_Win_flush) or gets (MPI_Get + MPI_Win_flush) 4 KiB
 * to or from rank 0; rank 0 receives the sends with MPI_Irecv and one
 * MPI_Waitall. */
static temu_status gpc_rooted(temu_replay *r, int role, const int32_t *mem, int32_t m, int32_t tag,
                              temu_error *err)
{
    temu_status st = TEMU_OK;
    for (int32_t me = 1; me < m && st == TEMU_OK; me++) {
        if (role == GPC_INCAST) {
            st = gpc_p2p(r, mem[me], mem[0], tag, GPC_CONGESTOR_BYTES, err);
        } else {
            st = temu_replay_rma(r, TEMU_REPLAY_WORLD, mem[me], mem[0], GPC_CONGESTOR_BYTES,
                                 role == GPC_PUT_INCAST ? TEMU_KIND_PUT : TEMU_KIND_GET, err);
        }
    }
    return st == TEMU_OK ? gpc_wait(r, mem, m, err) : st;
}

/* One call of congestor group g's function (GPC_A2A * slots <= g <
 * GPC_ROLES * slots): the body of congestor()'s inner loop (congestors.c)
 * for its members. */
temu_status temu_gpcnet_group_round(temu_replay *r, const temu_gpcnet_layout *l, int32_t g,
                                    temu_error *err)
{
    int role = g / l->slots;
    const int32_t *mem = l->rank + l->first[g];
    int32_t m = temu_gpcnet_size(l, g), tag = TAG_CONGESTOR + role;
    if (m < 2) {
        return TEMU_OK; /* alone: nothing leaves the node */
    }
    return role == GPC_A2A ? gpc_a2a(r, mem, m, tag, err) : gpc_rooted(r, role, mem, m, tag, err);
}

/* One call of each congestor function by every congestor group. */
temu_status temu_gpcnet_congestor_round(temu_replay *r, const temu_gpcnet_layout *l,
                                        temu_error *err)
{
    temu_status st = TEMU_OK;
    for (int32_t g = GPC_A2A * l->slots; g < GPC_ROLES * l->slots && st == TEMU_OK; g++) {
        st = temu_gpcnet_group_round(r, l, g, err);
    }
    return st;
}

/* ------------------------------------------------- canary communicators */

temu_status temu_gpcnet_canary_comms(temu_replay *r, const temu_gpcnet_layout *l, int32_t *ids,
                                     temu_error *err)
{
    temu_status st = TEMU_OK;
    for (int32_t s = 0; s <= l->slots && st == TEMU_OK; s++) {
        /* s == slots: every canary (run_network_tests()' local_comm) */
        int32_t lo = s < l->slots ? l->first[s] : 0,
                hi = s < l->slots ? l->first[s + 1] : l->canaries;
        ids[s] = -1;
        if (hi > lo) {
            ids[s] = temu_replay_unused_comm(r);
            st = temu_replay_comm(r, ids[s], hi - lo, l->rank + lo, err);
        }
    }
    return st;
}

temu_status temu_gpcnet_slot_coll(temu_replay *r, const temu_gpcnet_layout *l, const int32_t *ids,
                                  const temu_replay_coll *c, temu_error *err)
{
    temu_status st = TEMU_OK;
    for (int32_t s = 0; s < l->slots && st == TEMU_OK; s++) {
        int32_t m = temu_gpcnet_size(l, GPC_CANARY * l->slots + s);
        for (int32_t me = 0; ids[s] >= 0 && me < m && st == TEMU_OK; me++) {
            st = temu_replay_collective(r, ids[s], me, c, err);
        }
    }
    return st;
}
