/*
 * pmpi_recv.c - receives and request completion, seen only by `torusemu
 * run --trace` and `--virtual-time` (the sender counts, account.c): under
 * a trace each receive is written when it completes, with the source, tag
 * and size of its status, so a replay matches it to its send; under
 * virtual time its stamp is taken (rank_vtime.c).  Otherwise every entry is the
 * next definition behind one predictable branch (tmpi_following()).
 */
#include "tmpi.h"
#include "trace_format.h"

#include <stdlib.h>

TMPI_ENTRY(Recv,
           (void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
            MPI_Status *status),
           (buf, count, datatype, source, tag, comm, status))
{
    MPI_Status own;
    if (!tmpi_following()) {
        return tmpi_next_(buf, count, datatype, source, tag, comm, status);
    }
    if (status == MPI_STATUS_IGNORE) {
        status = &own;
    }
    tmpi_vt_recv_begin1(source, comm); /* takes a message: the model need not wait for it */
    int rc = tmpi_next_(buf, count, datatype, source, tag, comm, status);
    if (rc == MPI_SUCCESS && tmpi_trace_file != NULL) {
        tmpi_trace_recv(comm, status, 0);
    }
    if (rc == MPI_SUCCESS && tmpi_vt_on) {
        tmpi_vt_recv(comm, status);
    }
    return rc;
}

#define IRECV_PARAMS                                                                               \
    (void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,              \
     MPI_Request *request)
#define IRECV_ARGS (buf, count, datatype, source, tag, comm, request)

TMPI_ENTRY(Irecv, IRECV_PARAMS, IRECV_ARGS)
{
    int rc = tmpi_next_ IRECV_ARGS;
    if (rc == MPI_SUCCESS && tmpi_following()) {
        uint64_t id = tmpi_treq_add(*request, TMPI_TREQ_IRECV, comm);
        tmpi_treq_source(*request, source, comm);
        if (id != 0 && tmpi_trace_file != NULL) {
            tmpi_trace_req(TMPI_TRACE_IRECV_POST, id);
        }
    }
    return rc;
}

/* A persistent receive: posted at each MPI_Start (pmpi_p2p.c). */
TMPI_ENTRY(Recv_init, IRECV_PARAMS, IRECV_ARGS)
{
    int rc = tmpi_next_ IRECV_ARGS;
    if (rc == MPI_SUCCESS && (tmpi_trace_file != NULL || tmpi_vt_on) && tmpi_depth == 1) {
        tmpi_treq_add(*request, TMPI_TREQ_PRECV, comm);
        tmpi_treq_source(*request, source, comm);
    }
    return rc;
}

/*
 * Completion.  The handles are saved before the call (MPI sets a completed
 * non-persistent request to MPI_REQUEST_NULL) and statuses are asked for
 * even when the caller ignores them.  done[i] says which completed.
 */
#define COMPLETION_INLINE 8 /* requests handled without malloc */
typedef struct completion {
    int n;
    MPI_Request *saved;
    MPI_Status *st; /* the caller's array, or own */
    MPI_Status *own;
    MPI_Request saved_buf[COMPLETION_INLINE];
    MPI_Status own_buf[COMPLETION_INLINE];
} completion;

static void release(completion *c)
{
    if (c->saved != c->saved_buf) {
        free(c->saved);
    }
    if (c->own != c->own_buf) {
        free(c->own);
    }
}

/* Prepare; 0 when out of memory (then the call is not traced).  Up to
 * COMPLETION_INLINE requests (the usual case, every call while polling)
 * use the buffers in *c. */
static int prepare(completion *c, int n, const MPI_Request *reqs, MPI_Status *statuses)
{
    c->n = n > 0 ? n : 0;
    int small = c->n < COMPLETION_INLINE;
    c->saved = small ? c->saved_buf : malloc(((size_t)c->n + 1) * sizeof *c->saved);
    c->own = statuses != MPI_STATUSES_IGNORE ? NULL
             : small                         ? c->own_buf
                                             : malloc(((size_t)c->n + 1) * sizeof *c->own);
    c->st = statuses == MPI_STATUSES_IGNORE ? c->own : statuses;
    if (c->saved == NULL || c->st == NULL) {
        release(c);
        return 0;
    }
    for (int i = 0; i < c->n; i++) {
        c->saved[i] = reqs[i];
    }
    return 1;
}

/* Request i completed with status st[j]. */
static void complete(const completion *c, int i, int j)
{
    if (i >= 0 && i < c->n) {
        tmpi_treq_done(c->saved[i], &c->st[j]);
    }
}

/* A single request: MPI_Wait and MPI_Test (flag NULL: completed). */
static void single_done(MPI_Request saved, const MPI_Status *st, const int *flag)
{
    if (flag == NULL || *flag) {
        tmpi_treq_done(saved, st);
    }
}

TMPI_ENTRY(Wait, (MPI_Request * request, MPI_Status *status), (request, status))
{
    MPI_Status own;
    MPI_Request saved = *request;
    if (!tmpi_following()) {
        return tmpi_next_(request, status);
    }
    status = status == MPI_STATUS_IGNORE ? &own : status;
    tmpi_vt_wait_begin(request, 1, 0);
    int rc = tmpi_next_(request, status);
    if (rc == MPI_SUCCESS) {
        single_done(saved, status, NULL);
    }
    return rc;
}

TMPI_ENTRY(Test, (MPI_Request * request, int *flag, MPI_Status *status), (request, flag, status))
{
    MPI_Status own;
    MPI_Request saved = *request;
    if (!tmpi_following()) {
        return tmpi_next_(request, flag, status);
    }
    status = status == MPI_STATUS_IGNORE ? &own : status;
    int rc = tmpi_next_(request, flag, status);
    tmpi_vt_polled(rc != MPI_SUCCESS || *flag);
    if (rc == MPI_SUCCESS) {
        single_done(saved, status, flag);
    }
    return rc;
}

TMPI_ENTRY(Waitall, (int count, MPI_Request reqs[], MPI_Status statuses[]), (count, reqs, statuses))
{
    completion c;
    if (!tmpi_following() || !prepare(&c, count, reqs, statuses)) {
        return tmpi_next_(count, reqs, statuses);
    }
    tmpi_vt_wait_begin(reqs, count, 1);
    int rc = tmpi_next_(count, reqs, c.st);
    for (int i = 0; rc == MPI_SUCCESS && i < c.n; i++) {
        complete(&c, i, i);
    }
    release(&c);
    return rc;
}

TMPI_ENTRY(Testall, (int count, MPI_Request reqs[], int *flag, MPI_Status statuses[]),
           (count, reqs, flag, statuses))
{
    completion c;
    if (!tmpi_following() || !prepare(&c, count, reqs, statuses)) {
        return tmpi_next_(count, reqs, flag, statuses);
    }
    int rc = tmpi_next_(count, reqs, flag, c.st);
    tmpi_vt_polled(rc != MPI_SUCCESS || *flag);
    for (int i = 0; rc == MPI_SUCCESS && *flag && i < c.n; i++) {
        complete(&c, i, i);
    }
    release(&c);
    return rc;
}

TMPI_ENTRY(Waitany, (int count, MPI_Request reqs[], int *index, MPI_Status *status),
           (count, reqs, index, status))
{
    completion c;
    MPI_Status own;
    if (!tmpi_following() || !prepare(&c, count, reqs, &own)) {
        return tmpi_next_(count, reqs, index, status);
    }
    c.st = status == MPI_STATUS_IGNORE ? &own : status;
    tmpi_vt_wait_begin(reqs, count, 0);
    int rc = tmpi_next_(count, reqs, index, c.st);
    if (rc == MPI_SUCCESS && *index != MPI_UNDEFINED) {
        complete(&c, *index, 0);
    }
    release(&c);
    return rc;
}

TMPI_ENTRY(Testany, (int count, MPI_Request reqs[], int *index, int *flag, MPI_Status *status),
           (count, reqs, index, flag, status))
{
    completion c;
    MPI_Status own;
    if (!tmpi_following() || !prepare(&c, count, reqs, &own)) {
        return tmpi_next_(count, reqs, index, flag, status);
    }
    c.st = status == MPI_STATUS_IGNORE ? &own : status;
    int rc = tmpi_next_(count, reqs, index, flag, c.st);
    tmpi_vt_polled(rc != MPI_SUCCESS || *flag);
    if (rc == MPI_SUCCESS && *flag && *index != MPI_UNDEFINED) {
        complete(&c, *index, 0);
    }
    release(&c);
    return rc;
}

#define SOME_PARAMS                                                                                \
    (int incount, MPI_Request reqs[], int *outcount, int indices[], MPI_Status statuses[])
#define SOME_ARGS (incount, reqs, outcount, indices, statuses)

/* MPI_Waitsome and MPI_Testsome: status j belongs to request indices[j]. */
#define SOME_WRAPPER(NAME, BLOCKS)                                                                 \
    TMPI_ENTRY(NAME, SOME_PARAMS, SOME_ARGS)                                                       \
    {                                                                                              \
        completion c;                                                                              \
        if (!tmpi_following() || !prepare(&c, incount, reqs, statuses)) {                          \
            return tmpi_next_ SOME_ARGS;                                                           \
        }                                                                                          \
        if (BLOCKS) {                                                                              \
            tmpi_vt_wait_begin(reqs, incount, 0);                                                  \
        }                                                                                          \
        int rc = tmpi_next_(incount, reqs, outcount, indices, c.st);                               \
        if (!(BLOCKS)) {                                                                           \
            tmpi_vt_polled(rc != MPI_SUCCESS || *outcount != 0);                                   \
        }                                                                                          \
        for (int j = 0; rc == MPI_SUCCESS && *outcount != MPI_UNDEFINED && j < *outcount; j++) {   \
            complete(&c, indices[j], j);                                                           \
        }                                                                                          \
        release(&c);                                                                               \
        return rc;                                                                                 \
    }

SOME_WRAPPER(Waitsome, 1)
SOME_WRAPPER(Testsome, 0)
