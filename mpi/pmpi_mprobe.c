/*
 * pmpi_mprobe.c - matched probes (MPI_Mprobe, MPI_Improbe) and their
 * receives (MPI_Mrecv, MPI_Imrecv) under --virtual-time: a matched
 * message's receive names no communicator, so the probe's is remembered
 * by message handle until the receive, which then takes the message's
 * stamp like any receive (rank_vtime.c).  Otherwise they pass through.  A
 * probe that finds nothing (MPI_Improbe, MPI_Iprobe) is a poll: it lets the
 * online model run on (tmpi_vt_polled).
 */
#include "tmpi.h"

#include <pthread.h>
#include <stdlib.h>

typedef struct matched {
    MPI_Message m;
    MPI_Comm comm;
} matched;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static matched *tab;
static size_t ntab, cap;

static void remember(MPI_Message m, MPI_Comm comm)
{
    if (m == MPI_MESSAGE_NULL || m == MPI_MESSAGE_NO_PROC) {
        return;
    }
    pthread_mutex_lock(&lock);
    if (ntab == cap) {
        size_t ncap = cap ? 2 * cap : 16;
        matched *grown = realloc(tab, ncap * sizeof *grown);
        if (grown != NULL) {
            tab = grown;
            cap = ncap;
        }
    }
    if (ntab < cap) {
        tab[ntab++] = (matched){m, comm};
    }
    pthread_mutex_unlock(&lock);
}

/* The communicator message m was probed on (and forget it); MPI_COMM_NULL
 * when unknown. */
static MPI_Comm take(MPI_Message m)
{
    MPI_Comm comm = MPI_COMM_NULL;
    pthread_mutex_lock(&lock);
    for (size_t i = 0; i < ntab; i++) {
        if (tab[i].m == m) {
            comm = tab[i].comm;
            tab[i] = tab[--ntab];
            break;
        }
    }
    pthread_mutex_unlock(&lock);
    return comm;
}

TMPI_ENTRY(Mprobe, (int source, int tag, MPI_Comm comm, MPI_Message *message, MPI_Status *status),
           (source, tag, comm, message, status))
{
    if (tmpi_vt_active()) {
        tmpi_vt_recv_begin1(source, comm); /* blocks until a message comes, like a receive */
    }
    int rc = tmpi_next_(source, tag, comm, message, status);
    if (rc == MPI_SUCCESS && tmpi_vt_active()) {
        remember(*message, comm);
    }
    return rc;
}

TMPI_ENTRY(Improbe,
           (int source, int tag, MPI_Comm comm, int *flag, MPI_Message *message,
            MPI_Status *status),
           (source, tag, comm, flag, message, status))
{
    int rc = tmpi_next_(source, tag, comm, flag, message, status);
    if (rc == MPI_SUCCESS && *flag && tmpi_vt_active()) {
        remember(*message, comm);
    }
    if (tmpi_vt_active()) {
        tmpi_vt_polled(rc != MPI_SUCCESS || *flag);
    }
    return rc;
}

/* MPI_Probe blocks until a message comes: to the model it is a receive
 * (the rank sends nothing before the message's delivery), which lets the
 * model run to that delivery instead of holding it at the rank's clock. */
TMPI_ENTRY(Probe, (int source, int tag, MPI_Comm comm, MPI_Status *status),
           (source, tag, comm, status))
{
    if (tmpi_vt_active()) {
        tmpi_vt_recv_begin1(source, comm);
    }
    return tmpi_next_(source, tag, comm, status);
}

/* MPI_Iprobe: only a poll that finds nothing matters (virtual time) */
TMPI_ENTRY(Iprobe, (int source, int tag, MPI_Comm comm, int *flag, MPI_Status *status),
           (source, tag, comm, flag, status))
{
    int rc = tmpi_next_(source, tag, comm, flag, status);
    if (tmpi_vt_active()) {
        tmpi_vt_polled(rc != MPI_SUCCESS || *flag);
    }
    return rc;
}

TMPI_ENTRY(Mrecv,
           (void *buf, int count, MPI_Datatype datatype, MPI_Message *message, MPI_Status *status),
           (buf, count, datatype, message, status))
{
    MPI_Status own;
    if (!tmpi_vt_active()) {
        return tmpi_next_(buf, count, datatype, message, status);
    }
    MPI_Comm comm = take(*message);
    status = status == MPI_STATUS_IGNORE ? &own : status;
    int rc = tmpi_next_(buf, count, datatype, message, status);
    if (rc == MPI_SUCCESS && comm != MPI_COMM_NULL) {
        tmpi_vt_recv(comm, status);
    }
    return rc;
}

TMPI_ENTRY(Imrecv,
           (void *buf, int count, MPI_Datatype datatype, MPI_Message *message,
            MPI_Request *request),
           (buf, count, datatype, message, request))
{
    if (!tmpi_vt_active()) {
        return tmpi_next_(buf, count, datatype, message, request);
    }
    MPI_Comm comm = take(*message);
    int rc = tmpi_next_(buf, count, datatype, message, request);
    if (rc == MPI_SUCCESS && comm != MPI_COMM_NULL) {
        tmpi_treq_add(*request, TMPI_TREQ_IRECV, comm); /* its stamp at completion */
    }
    return rc;
}
