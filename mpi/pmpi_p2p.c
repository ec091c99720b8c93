/*
 * pmpi_p2p.c - C entry points of point-to-point sends.  Each calls the
 * PMPI_ version unchanged and, when it succeeded, counts the message
 * (account.c).  All send modes (standard, buffered, synchronous, ready) move
 * the same bytes, so they are counted alike; persistent sends count at
 * MPI_Start.  Receives are not wrapped: the sender counts.
 */
#include "tmpi.h"

#define SEND_WRAPPER(NAME)                                                                         \
    int MPI_##NAME(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,           \
                   MPI_Comm comm)                                                                  \
    {                                                                                              \
        int rc = PMPI_##NAME(buf, count, datatype, dest, tag, comm);                               \
        if (rc == MPI_SUCCESS && tmpi_counting()) {                                                \
            tmpi_acct_send(buf, count, datatype, dest, comm);                                      \
        }                                                                                          \
        return rc;                                                                                 \
    }

#define ISEND_WRAPPER(NAME)                                                                        \
    int MPI_##NAME(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,           \
                   MPI_Comm comm, MPI_Request *request)                                            \
    {                                                                                              \
        int rc = PMPI_##NAME(buf, count, datatype, dest, tag, comm, request);                      \
        if (rc == MPI_SUCCESS && tmpi_counting()) {                                                \
            tmpi_acct_send(buf, count, datatype, dest, comm);                                      \
        }                                                                                          \
        return rc;                                                                                 \
    }

/* Persistent requests are remembered even while MPI_Pcontrol has paused
 * counting: whether a start counts is decided at the start. */
#define INIT_WRAPPER(NAME)                                                                         \
    int MPI_##NAME(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,           \
                   MPI_Comm comm, MPI_Request *request)                                            \
    {                                                                                              \
        int rc = PMPI_##NAME(buf, count, datatype, dest, tag, comm, request);                      \
        if (rc == MPI_SUCCESS && tmpi_g.session != NULL && !tmpi_in_fortran) {                     \
            tmpi_persist_add(*request, buf, count, datatype, dest, comm);                          \
        }                                                                                          \
        return rc;                                                                                 \
    }

SEND_WRAPPER(Send)
SEND_WRAPPER(Bsend)
SEND_WRAPPER(Ssend)
SEND_WRAPPER(Rsend)
ISEND_WRAPPER(Isend)
ISEND_WRAPPER(Ibsend)
ISEND_WRAPPER(Issend)
ISEND_WRAPPER(Irsend)
INIT_WRAPPER(Send_init)
INIT_WRAPPER(Bsend_init)
INIT_WRAPPER(Ssend_init)
INIT_WRAPPER(Rsend_init)

int MPI_Start(MPI_Request *request)
{
    MPI_Request req = *request;
    int rc = PMPI_Start(request);
    if (rc == MPI_SUCCESS && tmpi_counting()) {
        tmpi_persist_start(req);
    }
    return rc;
}

int MPI_Startall(int count, MPI_Request array_of_requests[])
{
    int rc = PMPI_Startall(count, array_of_requests);
    if (rc == MPI_SUCCESS && tmpi_counting()) {
        for (int i = 0; i < count; i++) {
            tmpi_persist_start(array_of_requests[i]);
        }
    }
    return rc;
}

int MPI_Request_free(MPI_Request *request)
{
    MPI_Request req = *request;
    int rc = PMPI_Request_free(request);
    if (rc == MPI_SUCCESS && tmpi_g.session != NULL) {
        tmpi_persist_remove(req);
    }
    return rc;
}

int MPI_Sendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag,
                 void *recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag,
                 MPI_Comm comm, MPI_Status *status)
{
    int rc = PMPI_Sendrecv(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount,
                           recvtype, source, recvtag, comm, status);
    if (rc == MPI_SUCCESS && tmpi_counting()) {
        tmpi_acct_send(sendbuf, sendcount, sendtype, dest, comm);
    }
    tmpi_sync_point();
    return rc;
}

/* The received message overwrites the buffer: plan the outgoing one from
 * the bytes before the call, apply it after. */
int MPI_Sendrecv_replace(void *buf, int count, MPI_Datatype datatype, int dest, int sendtag,
                         int source, int recvtag, MPI_Comm comm, MPI_Status *status)
{
    tmpi_pending p;
    int counting = tmpi_counting();
    if (counting) {
        tmpi_plan_send(buf, count, datatype, dest, comm, &p);
    }
    int rc =
        PMPI_Sendrecv_replace(buf, count, datatype, dest, sendtag, source, recvtag, comm, status);
    if (rc == MPI_SUCCESS && counting) {
        tmpi_apply_pending(&p);
    }
    tmpi_sync_point();
    return rc;
}
