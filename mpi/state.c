/*
 * state.c - the layer's process state: the session named by
 * $TORUSEMU_SESSION, this rank's identity on the emulated machine, and the
 * rank translations cached on communicators and windows (MPI attributes, so
 * they go away with the communicator).
 */
#include "tmpi.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

TMPI_HIDDEN tmpi_state tmpi_g;
TMPI_HIDDEN int tmpi_paused;
TMPI_HIDDEN __thread int tmpi_depth __attribute__((tls_model("initial-exec")));

static tmpi_comm world_info;
static MPI_Group world_group = MPI_GROUP_NULL;
static pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER;

void *tmpi_resolve(void **slot, const char *name)
{
    /* RTLD_NEXT: the first definition after this library in the lookup
     * order -- another tool's wrapper, or Open MPI's own */
    void *f = dlsym(RTLD_NEXT, name);
    if (f == NULL) {
        fprintf(stderr, "torusemu-mpi: %s not found after libtorusemu_mpi (is libmpi loaded?)\n",
                name);
        abort();
    }
    __atomic_store_n(slot, f, __ATOMIC_RELAXED);
    return f;
}

void tmpi_warn_once(int *flag, const char *what)
{
    if (__atomic_exchange_n(flag, 1, __ATOMIC_RELAXED) == 0 && tmpi_g.world_rank == 0) {
        fprintf(stderr, "torusemu-mpi: %s\n", what);
    }
}

/* ------------------------------------------------------ communicators */

static void comm_free(tmpi_comm *c)
{
    if (c == NULL || c == &world_info) {
        return;
    }
    free(c->world);
    free(c->rworld);
    free(c->nodes);
    tmpi_trees_free(&c->trees);
    free(c);
}

static int comm_delete(MPI_Comm comm, int keyval, void *val, void *extra)
{
    (void)comm;
    (void)keyval;
    (void)extra;
    comm_free(val);
    return MPI_SUCCESS;
}

/* World ranks of every member of group g (n members); NULL on failure. */
static int32_t *group_to_world(MPI_Group g, int n)
{
    if (n <= 0) {
        return NULL;
    }
    int *in = malloc((size_t)n * sizeof *in);
    int *out = malloc((size_t)n * sizeof *out);
    int32_t *res = NULL;
    if (in != NULL && out != NULL) {
        for (int i = 0; i < n; i++) {
            in[i] = i;
        }
        if (PMPI_Group_translate_ranks(g, n, in, world_group, out) == MPI_SUCCESS) {
            res = malloc((size_t)n * sizeof *res);
            for (int i = 0; res != NULL && i < n; i++) {
                res[i] = out[i] == MPI_UNDEFINED ? -1 : out[i];
            }
        }
    }
    free(in);
    free(out);
    return res;
}

static void comm_init_common(tmpi_comm *c)
{
    tmpi_trees_init(&c->trees);
}

static tmpi_comm *comm_build(MPI_Comm comm)
{
    tmpi_comm *c = calloc(1, sizeof *c);
    MPI_Group g;
    int v;
    if (c == NULL) {
        return NULL;
    }
    comm_init_common(c);
    PMPI_Comm_test_inter(comm, &v);
    c->inter = v;
    PMPI_Comm_size(comm, &v);
    c->size = v;
    PMPI_Comm_rank(comm, &v);
    c->rank = v;
    if (PMPI_Comm_group(comm, &g) == MPI_SUCCESS) {
        c->world = group_to_world(g, c->size);
        PMPI_Group_free(&g);
    }
    if (c->inter) {
        PMPI_Comm_remote_size(comm, &v);
        c->rsize = v;
        if (PMPI_Comm_remote_group(comm, &g) == MPI_SUCCESS) {
            c->rworld = group_to_world(g, c->rsize);
            PMPI_Group_free(&g);
        }
    }
    if (c->world == NULL || (c->inter && c->rworld == NULL)) {
        comm_free(c);
        return NULL;
    }
    c->spans_world = !c->inter && c->size == tmpi_g.world_size;
    return c;
}

tmpi_comm *tmpi_comm_get(MPI_Comm comm)
{
    void *val = NULL;
    int flag = 0;
    if (comm == MPI_COMM_WORLD) {
        return &world_info;
    }
    if (comm == MPI_COMM_NULL || tmpi_g.session == NULL) {
        return NULL;
    }
    if (PMPI_Comm_get_attr(comm, tmpi_g.comm_keyval, &val, &flag) == MPI_SUCCESS && flag) {
        return val;
    }
    /* build once: a second thread on the same communicator waits here and
     * then finds the attribute */
    pthread_mutex_lock(&cache_lock);
    if (PMPI_Comm_get_attr(comm, tmpi_g.comm_keyval, &val, &flag) != MPI_SUCCESS || !flag) {
        val = comm_build(comm);
        if (val != NULL && PMPI_Comm_set_attr(comm, tmpi_g.comm_keyval, val) != MPI_SUCCESS) {
            comm_free(val);
            val = NULL;
        }
    }
    pthread_mutex_unlock(&cache_lock);
    return val;
}

int32_t tmpi_comm_local(const tmpi_comm *c, int32_t r)
{
    if (r < 0 || r >= c->size) {
        return -1;
    }
    return c->world != NULL ? c->world[r] : r;
}

int32_t tmpi_comm_peer(const tmpi_comm *c, int32_t r)
{
    if (!c->inter) {
        return tmpi_comm_local(c, r);
    }
    return r >= 0 && r < c->rsize ? c->rworld[r] : -1;
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

int tmpi_comm_nodes(tmpi_comm *c)
{
    int ok = 1;
    pthread_mutex_lock(&cache_lock);
    if (c->nodes == NULL) {
        int64_t *nodes = malloc((size_t)c->size * sizeof *nodes);
        int32_t k = 0;
        for (int32_t i = 0; nodes != NULL && i < c->size; i++) {
            temu_slot slot;
            int32_t w = tmpi_comm_local(c, i);
            if (w >= 0 && temu_session_rank_slot(tmpi_g.session, w, &slot, NULL) == TEMU_OK) {
                nodes[k++] = slot.node;
            }
        }
        if (nodes != NULL && k > 0) {
            qsort(nodes, (size_t)k, sizeof *nodes, cmp_i64);
            int32_t u = 1;
            for (int32_t i = 1; i < k; i++) {
                if (nodes[i] != nodes[u - 1]) {
                    nodes[u++] = nodes[i];
                }
            }
            c->nnodes = u;
            c->box = tmpi_nodes_form_box(tmpi_g.m, nodes, u);
            c->nodes = nodes;
        } else {
            free(nodes);
            ok = 0;
        }
    }
    pthread_mutex_unlock(&cache_lock);
    return ok;
}

/* ------------------------------------------------------------ windows */

static int win_delete(MPI_Win win, int keyval, void *val, void *extra)
{
    tmpi_win *w = val;
    (void)win;
    (void)keyval;
    (void)extra;
    if (w != NULL) {
        free(w->world);
        free(w->rma_seq);
        free(w->rma_target);
        free(w);
    }
    return MPI_SUCCESS;
}

tmpi_win *tmpi_win_get(MPI_Win win)
{
    void *val = NULL;
    int flag = 0;
    if (win == MPI_WIN_NULL || tmpi_g.session == NULL) {
        return NULL;
    }
    if (PMPI_Win_get_attr(win, tmpi_g.win_keyval, &val, &flag) == MPI_SUCCESS && flag) {
        return val;
    }
    pthread_mutex_lock(&cache_lock);
    if (PMPI_Win_get_attr(win, tmpi_g.win_keyval, &val, &flag) != MPI_SUCCESS || !flag) {
        tmpi_win *w = calloc(1, sizeof *w);
        MPI_Group g;
        int n = 0;
        val = NULL;
        if (w != NULL && PMPI_Win_get_group(win, &g) == MPI_SUCCESS) {
            PMPI_Group_size(g, &n);
            w->size = n;
            w->world = group_to_world(g, n);
            PMPI_Group_free(&g);
        }
        if (w != NULL && w->world != NULL &&
            PMPI_Win_set_attr(win, tmpi_g.win_keyval, w) == MPI_SUCCESS) {
            val = w;
        } else if (w != NULL) {
            free(w->world);
            free(w);
        }
    }
    pthread_mutex_unlock(&cache_lock);
    return val;
}

/* ------------------------------------------------------------ start-up */

void tmpi_start(void)
{
    static int started;
    temu_session *s;
    temu_error err;
    temu_slot slot;
    int rank, size;

    if (__atomic_exchange_n(&started, 1, __ATOMIC_ACQ_REL)) {
        return;
    }
    snprintf(err.message, sizeof err.message, "MPI attribute keys unavailable");
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    PMPI_Comm_size(MPI_COMM_WORLD, &size);
    tmpi_g.world_rank = rank;
    tmpi_g.world_size = size;
    temu_status st = temu_session_attach_env(&s, &err);
    if (st != TEMU_OK && tmpi_hosts_wanted()) {
        /* the other hosts' ranks would wait for this one's agent */
        fprintf(stderr, "torusemu-mpi: rank %d: the run across hosts cannot start: %s\n", rank,
                err.message);
        PMPI_Abort(MPI_COMM_WORLD, 2);
    }
    if (st != TEMU_OK) {
        if (rank == 0 && (st != TEMU_ENOSESSION || getenv("TORUSEMU_MPI_QUIET") == NULL)) {
            fprintf(stderr,
                    "torusemu-mpi: %s; MPI traffic is not counted (run the program "
                    "with `torusemu run`)\n",
                    err.message);
        }
        return;
    }
    if (temu_session_nranks(s) < size) {
        if (rank == 0) {
            fprintf(stderr,
                    "torusemu-mpi: session store '%s' places %d ranks but the job has %d; MPI "
                    "traffic is not counted\n",
                    temu_session_path(s), temu_session_nranks(s), size);
        }
        temu_session_close(s);
        return;
    }
    if (temu_session_rank_slot(s, rank, &slot, &err) != TEMU_OK ||
        temu_session_register_rank(s, rank, &err) != TEMU_OK ||
        PMPI_Comm_group(MPI_COMM_WORLD, &world_group) != MPI_SUCCESS ||
        PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, comm_delete, &tmpi_g.comm_keyval, NULL) !=
            MPI_SUCCESS ||
        PMPI_Win_create_keyval(MPI_WIN_NULL_COPY_FN, win_delete, &tmpi_g.win_keyval, NULL) !=
            MPI_SUCCESS) {
        fprintf(stderr, "torusemu-mpi: rank %d: cannot set up (%s); MPI traffic is not counted\n",
                rank, err.message);
        temu_session_close(s);
        return;
    }
    tmpi_g.rank_node = malloc((size_t)size * sizeof *tmpi_g.rank_node);
    for (int r = 0; tmpi_g.rank_node != NULL && r < size; r++) {
        temu_slot other;
        if (temu_session_rank_slot(s, r, &other, &err) != TEMU_OK) {
            free(tmpi_g.rank_node);
            tmpi_g.rank_node = NULL;
        } else {
            tmpi_g.rank_node[r] = other.node;
        }
    }
    if (tmpi_g.rank_node == NULL) {
        fprintf(stderr,
                "torusemu-mpi: rank %d: cannot map the job's ranks; MPI traffic is not "
                "counted\n",
                rank);
        temu_session_close(s);
        return;
    }
    if (tmpi_hosts_wanted() && tmpi_hosts_start(s, rank, size) != 0) {
        /* counting part of the traffic would be worse than not running */
        PMPI_Abort(MPI_COMM_WORLD, 2);
    }
    tmpi_types_init();
    tmpi_g.m = temu_session_machine(s);
    tmpi_g.fam = temu_family_info_get(tmpi_g.m->system);
    tmpi_g.node = slot.node;
    /* compression (Gemini) and L2 slices (BG/Q) read the payload; BG/P
     * counts do not depend on it */
    tmpi_g.want_payload = tmpi_g.fam->payload != TEMU_PAYLOAD_UNUSED;
    temu_identity_set(tmpi_g.m, rank, slot.node, slot.t);

    comm_init_common(&world_info);
    world_info.size = size;
    world_info.rank = rank;
    world_info.spans_world = 1;
    tmpi_vt_start();
    if (tmpi_vt_on) {
        tmpi_clocks_start(); /* the program's clocks tell virtual time from here */
    }
    tmpi_trace_start(rank);
    __atomic_store_n(&tmpi_g.session, s, __ATOMIC_RELEASE);
}
