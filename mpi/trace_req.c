/*
 * trace_req.c - under `torusemu run --trace` or `--virtual-time`, the
 * non-blocking requests whose completion the trace records (and, for
 * receives, whose stamp the virtual clock takes, rank_vtime.c): a non-blocking send (its
 * MpiIsendComplete), a non-blocking receive (its MpiIrecv, with the source,
 * tag and size of the status it completes with) and a persistent receive
 * (one MpiIrecvRequest per MPI_Start).  Keyed by the request handle.  Only
 * used while tracing: a list searched linearly, as long as what the rank
 * has outstanding at once.
 */
#include "tmpi.h"
#include "trace_format.h"

#include <pthread.h>
#include <stdlib.h>

typedef struct treq {
    MPI_Request h;
    int kind;      /* TMPI_TREQ_*                                   */
    MPI_Comm comm; /* of a receive                                  */
    uint64_t id;   /* the trace's request id; 0: persistent, not started */
    void *state;   /* TMPI_TREQ_ICOLL: its virtual-time exchange (rank_vtime.c) */
    int32_t src;   /* a receive's source (world rank), -1: any or unknown */
} treq;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static treq *reqs;
static size_t nreqs, cap;
static uint64_t next_id; /* request ids of this rank, from 1 */

static treq *find_locked(MPI_Request h)
{
    for (size_t i = 0; i < nreqs; i++) {
        if (reqs[i].h == h) {
            return &reqs[i];
        }
    }
    return NULL;
}

/* Follow h (kind, comm, state); returns its trace id. */
static uint64_t add(MPI_Request h, int kind, MPI_Comm comm, void *state)
{
    uint64_t id = 0;
    if (h == MPI_REQUEST_NULL) {
        return 0;
    }
    pthread_mutex_lock(&lock);
    treq *t = find_locked(h); /* a handle MPI gave back and reused */
    if (t == NULL && nreqs == cap) {
        size_t ncap = cap ? 2 * cap : 64;
        treq *grown = realloc(reqs, ncap * sizeof *grown);
        if (grown != NULL) {
            reqs = grown;
            cap = ncap;
        }
    }
    if (t == NULL && nreqs < cap) {
        t = &reqs[nreqs++];
    }
    if (t != NULL) {
        id = kind == TMPI_TREQ_PRECV ? 0 : ++next_id;
        *t = (treq){h, kind, comm, id, state, -1};
    }
    pthread_mutex_unlock(&lock);
    return id;
}

uint64_t tmpi_treq_add(MPI_Request h, int kind, MPI_Comm comm)
{
    return add(h, kind, comm, NULL);
}

void tmpi_treq_add_icoll(MPI_Request h, void *state)
{
    if (add(h, TMPI_TREQ_ICOLL, MPI_COMM_NULL, state) == 0) {
        tmpi_vt_icoll_done(state); /* not followed: take the clocks now */
    }
}

void tmpi_treq_start(MPI_Request h)
{
    uint64_t id = 0;
    pthread_mutex_lock(&lock);
    treq *t = find_locked(h);
    if (t != NULL && t->kind == TMPI_TREQ_PRECV) {
        id = t->id = ++next_id;
    }
    pthread_mutex_unlock(&lock);
    if (id != 0 && tmpi_trace_file != NULL) {
        tmpi_trace_req(TMPI_TRACE_IRECV_POST, id);
    }
}

/* Request h (its handle before the completing call) completed with *st. */
void tmpi_treq_done(MPI_Request h, const MPI_Status *st)
{
    treq t = {MPI_REQUEST_NULL, 0, MPI_COMM_NULL, 0, NULL, -1};
    if (h == MPI_REQUEST_NULL) {
        return;
    }
    pthread_mutex_lock(&lock);
    treq *p = find_locked(h);
    if (p != NULL) {
        t = *p;
        if (p->kind == TMPI_TREQ_PRECV) {
            p->id = 0; /* inactive until the next start */
        } else {
            *p = reqs[--nreqs];
        }
    }
    pthread_mutex_unlock(&lock);
    if (t.id == 0) {
        return;
    }
    if (t.kind == TMPI_TREQ_ICOLL) {
        tmpi_vt_icoll_done(t.state);
    } else if (t.kind == TMPI_TREQ_ISEND) {
        tmpi_trace_req(TMPI_TRACE_ISEND_DONE, t.id);
    } else {
        if (tmpi_trace_file != NULL) {
            tmpi_trace_recv(t.comm, st, t.id);
        }
        if (tmpi_vt_on) {
            tmpi_vt_recv(t.comm, st); /* the message's stamp (rank_vtime.c) */
        }
    }
}

void tmpi_treq_source(MPI_Request h, int source, MPI_Comm comm)
{
    int32_t w =
        source == MPI_ANY_SOURCE || source == MPI_PROC_NULL ? -1 : tmpi_send_dest(source, comm);
    pthread_mutex_lock(&lock);
    treq *t = find_locked(h);
    if (t != NULL) {
        t->src = w;
    }
    pthread_mutex_unlock(&lock);
}

/* Add n messages from src to wants (merged by source; the ones that do not
 * fit go to the last entry, from anyone). */
static int want_add(tmpi_vt_want *w, int nw, int32_t src, uint32_t n)
{
    for (int i = 0; i < nw; i++) {
        if (w[i].src == src) {
            w[i].n += n;
            return nw;
        }
    }
    if (nw < TMPI_VT_WANTS) {
        w[nw] = (tmpi_vt_want){src, n};
        return nw + 1;
    }
    w[nw - 1].src = -1;
    w[nw - 1].n += n;
    return nw;
}

void tmpi_vt_wait_begin(const MPI_Request *h, int n, int all)
{
    tmpi_vt_want w[TMPI_VT_WANTS];
    int nw = 0, others = 0, recvs = 0;
    if (!tmpi_vt_online || !tmpi_vt_active()) {
        return;
    }
    pthread_mutex_lock(&lock);
    for (int i = 0; i < n; i++) {
        if (h[i] == MPI_REQUEST_NULL) {
            continue;
        }
        treq *t = find_locked(h[i]);
        if (t != NULL &&
            (t->kind == TMPI_TREQ_IRECV || (t->kind == TMPI_TREQ_PRECV && t->id != 0))) {
            nw = want_add(w, nw, all ? t->src : -1, all ? 1 : 0);
            recvs++;
        } else {
            others++;
        }
    }
    pthread_mutex_unlock(&lock);
    /* all: every receive takes its message; any: one of them, only if
     * every request is a receive (a send could complete first) */
    if (!all) {
        nw = others == 0 && recvs > 0 ? 1 : 0;
        w[0] = (tmpi_vt_want){-1, 1};
    }
    tmpi_vt_recv_begin(w, nw);
}

void tmpi_treq_forget(MPI_Request h)
{
    pthread_mutex_lock(&lock);
    treq *p = find_locked(h);
    if (p != NULL) {
        *p = reqs[--nreqs];
    }
    pthread_mutex_unlock(&lock);
}
