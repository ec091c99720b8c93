/*
 * pmpi_p2p.c - entry points of point-to-point sends (MPI_X and PMPI_X,
 * tmpi.h).  Each calls the next definition unchanged and, when it
 * succeeded and is the outermost of our entries, counts the message
 * (account.c).  All send modes (standard, buffered, synchronous, ready) move
 * the same bytes, so they are counted alike; persistent sends count at
 * MPI_Start.  The sender counts; receives are seen only by the trace
 * (pmpi_recv.c).
 */
#include "tmpi.h"

#define SEND_PARAMS                                                                                \
    (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
#define SEND_ARGS (buf, count, datatype, dest, tag, comm)
#define ISEND_PARAMS                                                                               \
    (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,          \
     MPI_Request *request)
#define ISEND_ARGS (buf, count, datatype, dest, tag, comm, request)

/* Blocking (SEND_*, REQ NULL) and non-blocking (ISEND_*, REQ request)
 * sends count alike; the trace follows a request to its completion.  Under
 * the online model a blocking one (BLOCKING 1) is counted before the host's
 * call, so the model need not wait for a rank the host's MPI blocks, and
 * from the eager limit up completes at its delivery (rank_vtime.c). */
#define SEND_WRAPPER(NAME, PARAMS, ARGS, REQ, BLOCKING)                                            \
    TMPI_ENTRY(NAME, PARAMS, ARGS)                                                                 \
    {                                                                                              \
        if (BLOCKING && __builtin_expect(tmpi_vt_online, 0) && tmpi_vt_send_begin()) {             \
            /* online model: into its feed first, so it need not wait for this rank */             \
            tmpi_after_send(buf, count, datatype, dest, tag, comm, NULL);                          \
            tmpi_vt_send_posted();                                                                 \
            int rc = tmpi_next_ ARGS;                                                              \
            tmpi_vt_send_done();                                                                   \
            return rc;                                                                             \
        }                                                                                          \
        int rc = tmpi_next_ ARGS;                                                                  \
        if (rc == MPI_SUCCESS) {                                                                   \
            tmpi_after_send(buf, count, datatype, dest, tag, comm, REQ);                           \
        }                                                                                          \
        if (tmpi_depth == 1) { /* the program's own call: complete at its wait */                  \
            tmpi_hosts_started = !BLOCKING;                                                        \
        }                                                                                          \
        return rc;                                                                                 \
    }

/* Persistent requests are remembered even while MPI_Pcontrol has paused
 * counting: whether a start counts is decided at the start. */
#define INIT_WRAPPER(NAME)                                                                         \
    TMPI_ENTRY(NAME, ISEND_PARAMS, ISEND_ARGS)                                                     \
    {                                                                                              \
        int rc = tmpi_next_ ISEND_ARGS;                                                            \
        if (rc == MPI_SUCCESS && tmpi_g.session != NULL && tmpi_depth == 1) {                      \
            tmpi_persist_add(*request, buf, count, datatype, dest, tag, comm);                     \
        }                                                                                          \
        return rc;                                                                                 \
    }

SEND_WRAPPER(Send, SEND_PARAMS, SEND_ARGS, NULL, 1)
SEND_WRAPPER(Bsend, SEND_PARAMS, SEND_ARGS, NULL, 1)
SEND_WRAPPER(Ssend, SEND_PARAMS, SEND_ARGS, NULL, 1)
SEND_WRAPPER(Rsend, SEND_PARAMS, SEND_ARGS, NULL, 1)
SEND_WRAPPER(Isend, ISEND_PARAMS, ISEND_ARGS, request, 0)
SEND_WRAPPER(Ibsend, ISEND_PARAMS, ISEND_ARGS, request, 0)
SEND_WRAPPER(Issend, ISEND_PARAMS, ISEND_ARGS, request, 0)
SEND_WRAPPER(Irsend, ISEND_PARAMS, ISEND_ARGS, request, 0)
INIT_WRAPPER(Send_init)
INIT_WRAPPER(Bsend_init)
INIT_WRAPPER(Ssend_init)
INIT_WRAPPER(Rsend_init)

TMPI_ENTRY(Start, (MPI_Request * request), (request))
{
    MPI_Request req = *request;
    int rc = tmpi_next_(request);
    if (rc == MPI_SUCCESS && (tmpi_sending() || tmpi_vt_active())) {
        tmpi_persist_start(req);
    }
    if (rc == MPI_SUCCESS && tmpi_following()) {
        tmpi_treq_start(req);
    }
    tmpi_hosts_started = tmpi_depth == 1; /* complete at its wait */
    return rc;
}

TMPI_ENTRY(Startall, (int count, MPI_Request array_of_requests[]), (count, array_of_requests))
{
    int rc = tmpi_next_(count, array_of_requests);
    if (rc == MPI_SUCCESS && (tmpi_sending() || tmpi_vt_active())) {
        for (int i = 0; i < count; i++) {
            tmpi_persist_start(array_of_requests[i]);
        }
    }
    for (int i = 0; rc == MPI_SUCCESS && tmpi_following() && i < count; i++) {
        tmpi_treq_start(array_of_requests[i]);
    }
    tmpi_hosts_started = tmpi_depth == 1; /* complete at their wait */
    return rc;
}

TMPI_ENTRY(Request_free, (MPI_Request * request), (request))
{
    MPI_Request req = *request;
    int rc = tmpi_next_(request);
    if (rc == MPI_SUCCESS && tmpi_g.session != NULL) {
        tmpi_persist_remove(req);
    }
    if (rc == MPI_SUCCESS && (tmpi_trace_file != NULL || tmpi_vt_on)) {
        tmpi_treq_forget(req);
    }
    return rc;
}

TMPI_ENTRY(Sendrecv,
           (const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag,
            void *recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag,
            MPI_Comm comm, MPI_Status *status),
           (sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype, source,
            recvtag, comm, status))
{
    MPI_Status own;
    int tracing = tmpi_tracing(), vt = tmpi_vt_active();
    int early = vt && tmpi_vt_online; /* the send into the model's feed first */
    if ((tracing || vt) && status == MPI_STATUS_IGNORE) {
        status = &own;
    }
    if (early) {
        tmpi_after_send(sendbuf, sendcount, sendtype, dest, sendtag, comm, NULL);
        tmpi_vt_recv_begin1(source, comm);
    }
    int rc = tmpi_next_(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype,
                        source, recvtag, comm, status);
    if (rc == MPI_SUCCESS && !early) {
        tmpi_after_send(sendbuf, sendcount, sendtype, dest, sendtag, comm, NULL);
    }
    if (rc == MPI_SUCCESS && tracing) {
        tmpi_trace_recv(comm, status, 0);
    }
    if (rc == MPI_SUCCESS && vt) {
        tmpi_vt_recv(comm, status);
    }
    tmpi_sync_point();
    return rc;
}

/* The received message overwrites the buffer: plan the outgoing one from
 * the bytes before the call, apply it after. */
TMPI_ENTRY(Sendrecv_replace,
           (void *buf, int count, MPI_Datatype datatype, int dest, int sendtag, int source,
            int recvtag, MPI_Comm comm, MPI_Status *status),
           (buf, count, datatype, dest, sendtag, source, recvtag, comm, status))
{
    tmpi_pending p;
    MPI_Status own;
    int counting = tmpi_sending(), tracing = tmpi_tracing(), vt = tmpi_vt_active();
    int64_t lat = 0;
    if (counting) {
        tmpi_plan_send(buf, count, datatype, dest, sendtag, comm, &p);
    }
    if (vt && counting && p.valid) { /* the planned message, not built again */
        temu_message m = p.msg;
        m.payload = p.addr; /* the plan cleared it; the buffer is not yet replaced */
        lat = tmpi_vt_message_latency(&m);
    } else if (vt) {
        lat = tmpi_vt_send_latency(buf, count, datatype, dest, comm);
    }
    if ((tracing || vt) && status == MPI_STATUS_IGNORE) {
        status = &own;
    }
    if (vt) {
        /* into the online model's feed (the bytes before the call), stamped
         * after the call, or before it with the model on */
        temu_message m;
        if (tmpi_send_message(buf, count, datatype, dest, comm, &m)) {
            tmpi_vt_feed_p2p(&m, counting && !tmpi_paused && p.valid, tmpi_send_dest(dest, comm),
                             lat);
        }
        if (tmpi_vt_online) {
            tmpi_vt_stamp(dest, sendtag, comm, lat);
            tmpi_vt_recv_begin1(source, comm);
        }
    }
    int rc = tmpi_next_(buf, count, datatype, dest, sendtag, source, recvtag, comm, status);
    if (rc == MPI_SUCCESS && counting) {
        tmpi_apply_pending(&p);
    }
    if (rc == MPI_SUCCESS && tracing) {
        tmpi_trace_recv(comm, status, 0);
    }
    if (rc == MPI_SUCCESS && vt) {
        if (!tmpi_vt_online) {
            tmpi_vt_stamp(dest, sendtag, comm, lat);
        }
        tmpi_vt_recv(comm, status);
    }
    tmpi_sync_point();
    return rc;
}
