/*
 * fortran.c - the Fortran entry points.
 *
 * Open MPI's Fortran bindings call PMPI_* directly (Open MPI 4.1.4 as Debian
 * 12 ships it: `nm -D libmpi_mpifh.so.40`), so a C-only PMPI layer sees
 * nothing of a Fortran program.  In Open MPI 4.1 every mpif.h / `use mpi`
 * name of a routine (mpi_send, mpi_send_, mpi_send__, MPI_SEND) is an alias
 * of one C function, ompi_send_f, and the `use mpi_f08` bindings
 * (libmpi_usempif08: mpi_send_f08_ ...) call that same ompi_send_f.  This
 * file defines all five names for each routine it covers: the wrapper calls
 * the real ompi_*_f found with dlsym(RTLD_NEXT), then counts the call with
 * C handles (PMPI_*_f2c) exactly as the C wrapper would.  While the real
 * routine runs, tmpi_in_fortran keeps any C wrapper it reaches from
 * counting again.
 *
 * Fortran arguments are all passed by reference; INTEGER is MPI_Fint,
 * INTEGER(KIND=MPI_ADDRESS_KIND) is MPI_Aint; MPI_IN_PLACE and MPI_BOTTOM
 * are the addresses of Open MPI's Fortran common blocks.  Coverage is
 * listed in doc/mpi.md.
 */
#include "tmpi.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------ plumbing */

static const void *in_place[4], *bottom[4];
static int sentinels_ready;

static void load_sentinels(void)
{
    static const char *ip[4] = {"mpi_fortran_in_place", "mpi_fortran_in_place_",
                                "mpi_fortran_in_place__", "MPI_FORTRAN_IN_PLACE"};
    static const char *bt[4] = {"mpi_fortran_bottom", "mpi_fortran_bottom_", "mpi_fortran_bottom__",
                                "MPI_FORTRAN_BOTTOM"};
    for (int i = 0; i < 4; i++) {
        in_place[i] = dlsym(RTLD_DEFAULT, ip[i]);
        bottom[i] = dlsym(RTLD_DEFAULT, bt[i]);
    }
    __atomic_store_n(&sentinels_ready, 1, __ATOMIC_RELEASE);
}

/* A Fortran buffer argument as the C binding sees it. */
static const void *f_buf(const void *p)
{
    if (!__atomic_load_n(&sentinels_ready, __ATOMIC_ACQUIRE)) {
        load_sentinels();
    }
    for (int i = 0; i < 4; i++) {
        if (p != NULL && p == in_place[i]) {
            return MPI_IN_PLACE;
        }
        if (p != NULL && p == bottom[i]) {
            return MPI_BOTTOM;
        }
    }
    return p;
}

static void *resolve(const char *name)
{
    void *f = dlsym(RTLD_NEXT, name);
    if (f == NULL) {
        fprintf(stderr,
                "torusemu-mpi: %s not found: a Fortran MPI call needs Open MPI's Fortran "
                "library (libmpi_mpifh) loaded after libtorusemu_mpi\n",
                name);
        abort();
    }
    return f;
}

#define F_OK(ierr) ((ierr) == NULL || *(ierr) == MPI_SUCCESS)

/* Run Open MPI's own ompi_<lower>_f with the caller's arguments. */
#define CALL_REAL(lower, PARAMS, ARGS)                                                             \
    do {                                                                                           \
        static void(*real_) PARAMS;                                                                \
        void(*fn_) PARAMS = __atomic_load_n(&real_, __ATOMIC_RELAXED);                             \
        if (fn_ == NULL) {                                                                         \
            *(void **)&fn_ = resolve("ompi_" #lower "_f");                                         \
            __atomic_store_n(&real_, fn_, __ATOMIC_RELAXED);                                       \
        }                                                                                          \
        tmpi_in_fortran++;                                                                         \
        fn_ ARGS;                                                                                  \
        tmpi_in_fortran--;                                                                         \
        tmpi_sync_point();                                                                         \
    } while (0)

/* Declare the wrapper tmpi_f_<lower> and export it under Open MPI's five
 * names; the definition follows the macro. */
#define F_ENTRY(lower, UPPER, PARAMS)                                                              \
    TMPI_HIDDEN void tmpi_f_##lower PARAMS;                                                        \
    TMPI_EXPORT void ompi_##lower##_f PARAMS __attribute__((alias("tmpi_f_" #lower)));             \
    TMPI_EXPORT void mpi_##lower PARAMS __attribute__((alias("tmpi_f_" #lower)));                  \
    TMPI_EXPORT void mpi_##lower##_ PARAMS __attribute__((alias("tmpi_f_" #lower)));               \
    TMPI_EXPORT void mpi_##lower##__ PARAMS __attribute__((alias("tmpi_f_" #lower)));              \
    TMPI_EXPORT void UPPER PARAMS __attribute__((alias("tmpi_f_" #lower)));                        \
    void tmpi_f_##lower PARAMS

#define TYPE(f) PMPI_Type_f2c(*(f))
#define COMM(f) PMPI_Comm_f2c(*(f))
#define OP(f) PMPI_Op_f2c(*(f))
#define WIN(f) PMPI_Win_f2c(*(f))

/* ------------------------------------------------------------ start-up */

#define INIT_P (MPI_Fint * ierr)
F_ENTRY(init, MPI_INIT, INIT_P)
{
    CALL_REAL(init, INIT_P, (ierr));
    if (F_OK(ierr)) {
        tmpi_start();
    }
}

#define INIT_THREAD_P (MPI_Fint * required, MPI_Fint * provided, MPI_Fint * ierr)
F_ENTRY(init_thread, MPI_INIT_THREAD, INIT_THREAD_P)
{
    CALL_REAL(init_thread, INIT_THREAD_P, (required, provided, ierr));
    if (F_OK(ierr)) {
        tmpi_start();
    }
}

/* CHARACTER*(*) name: the compiler adds its length as a trailing argument;
 * the result is blank-padded, as Fortran strings are. */
#define PNAME_P (char *name, MPI_Fint *resultlen, MPI_Fint *ierr, int name_len)
F_ENTRY(get_processor_name, MPI_GET_PROCESSOR_NAME, PNAME_P)
{
    char buf[MPI_MAX_PROCESSOR_NAME];
    int n = tmpi_node_name(buf, sizeof buf);
    if (n < 0) {
        CALL_REAL(get_processor_name, PNAME_P, (name, resultlen, ierr, name_len));
        return;
    }
    n = n < name_len ? n : name_len;
    memcpy(name, buf, (size_t)n);
    if (name_len > n) {
        memset(name + n, ' ', (size_t)(name_len - n));
    }
    *resultlen = n;
    if (ierr != NULL) {
        *ierr = MPI_SUCCESS;
    }
}

#define SPLIT_TYPE_P                                                                               \
    (MPI_Fint * comm, MPI_Fint * split_type, MPI_Fint * key, MPI_Fint * info, MPI_Fint * newcomm,  \
     MPI_Fint * ierr)
F_ENTRY(comm_split_type, MPI_COMM_SPLIT_TYPE, SPLIT_TYPE_P)
{
    MPI_Comm c_new;
    int rc;
    if (tmpi_split_by_node(COMM(comm), *split_type, *key, &c_new, &rc)) {
        if (rc == MPI_SUCCESS) {
            *newcomm = PMPI_Comm_c2f(c_new);
        }
        if (ierr != NULL) {
            *ierr = rc;
        }
        return;
    }
    CALL_REAL(comm_split_type, SPLIT_TYPE_P, (comm, split_type, key, info, newcomm, ierr));
}

#define PCONTROL_P (MPI_Fint * level)
F_ENTRY(pcontrol, MPI_PCONTROL, PCONTROL_P)
{
    tmpi_paused = *level == 0;
    CALL_REAL(pcontrol, PCONTROL_P, (level));
}

/* ------------------------------------------------------ point-to-point */

#define SEND_P                                                                                     \
    (char *buf, MPI_Fint *count, MPI_Fint *datatype, MPI_Fint *dest, MPI_Fint *tag,                \
     MPI_Fint *comm, MPI_Fint *ierr)
#define SEND_A (buf, count, datatype, dest, tag, comm, ierr)
#define ISEND_P                                                                                    \
    (char *buf, MPI_Fint *count, MPI_Fint *datatype, MPI_Fint *dest, MPI_Fint *tag,                \
     MPI_Fint *comm, MPI_Fint *request, MPI_Fint *ierr)
#define ISEND_A (buf, count, datatype, dest, tag, comm, request, ierr)
/* blocking (SEND_P) and non-blocking (ISEND_P) sends count alike */
#define P2P_SEND_ENTRY(lower, UPPER, P, A)                                                         \
    F_ENTRY(lower, UPPER, P)                                                                       \
    {                                                                                              \
        CALL_REAL(lower, P, A);                                                                    \
        if (F_OK(ierr) && tmpi_counting()) {                                                       \
            tmpi_acct_send(f_buf(buf), *count, TYPE(datatype), *dest, COMM(comm));                 \
        }                                                                                          \
    }
P2P_SEND_ENTRY(send, MPI_SEND, SEND_P, SEND_A)
P2P_SEND_ENTRY(bsend, MPI_BSEND, SEND_P, SEND_A)
P2P_SEND_ENTRY(ssend, MPI_SSEND, SEND_P, SEND_A)
P2P_SEND_ENTRY(rsend, MPI_RSEND, SEND_P, SEND_A)
P2P_SEND_ENTRY(isend, MPI_ISEND, ISEND_P, ISEND_A)
P2P_SEND_ENTRY(ibsend, MPI_IBSEND, ISEND_P, ISEND_A)
P2P_SEND_ENTRY(issend, MPI_ISSEND, ISEND_P, ISEND_A)
P2P_SEND_ENTRY(irsend, MPI_IRSEND, ISEND_P, ISEND_A)

/* persistent requests are remembered even while counting is paused */
#define INIT_ENTRY(lower, UPPER)                                                                   \
    F_ENTRY(lower, UPPER, ISEND_P)                                                                 \
    {                                                                                              \
        CALL_REAL(lower, ISEND_P, ISEND_A);                                                        \
        if (F_OK(ierr) && tmpi_g.session != NULL) {                                                \
            tmpi_persist_add(PMPI_Request_f2c(*request), f_buf(buf), *count, TYPE(datatype),       \
                             *dest, COMM(comm));                                                   \
        }                                                                                          \
    }
INIT_ENTRY(send_init, MPI_SEND_INIT)
INIT_ENTRY(bsend_init, MPI_BSEND_INIT)
INIT_ENTRY(ssend_init, MPI_SSEND_INIT)
INIT_ENTRY(rsend_init, MPI_RSEND_INIT)

#define START_P (MPI_Fint * request, MPI_Fint * ierr)
F_ENTRY(start, MPI_START, START_P)
{
    MPI_Request req = PMPI_Request_f2c(*request);
    CALL_REAL(start, START_P, (request, ierr));
    if (F_OK(ierr) && tmpi_counting()) {
        tmpi_persist_start(req);
    }
}

#define STARTALL_P (MPI_Fint * count, MPI_Fint * requests, MPI_Fint * ierr)
F_ENTRY(startall, MPI_STARTALL, STARTALL_P)
{
    CALL_REAL(startall, STARTALL_P, (count, requests, ierr));
    if (F_OK(ierr) && tmpi_counting()) {
        for (MPI_Fint i = 0; i < *count; i++) {
            tmpi_persist_start(PMPI_Request_f2c(requests[i]));
        }
    }
}

F_ENTRY(request_free, MPI_REQUEST_FREE, START_P)
{
    MPI_Request req = PMPI_Request_f2c(*request);
    CALL_REAL(request_free, START_P, (request, ierr));
    if (F_OK(ierr) && tmpi_g.session != NULL) {
        tmpi_persist_remove(req);
    }
}

#define SENDRECV_P                                                                                 \
    (char *sendbuf, MPI_Fint *sendcount, MPI_Fint *sendtype, MPI_Fint *dest, MPI_Fint *sendtag,    \
     char *recvbuf, MPI_Fint *recvcount, MPI_Fint *recvtype, MPI_Fint *source, MPI_Fint *recvtag,  \
     MPI_Fint *comm, MPI_Fint *status, MPI_Fint *ierr)
F_ENTRY(sendrecv, MPI_SENDRECV, SENDRECV_P)
{
    CALL_REAL(sendrecv, SENDRECV_P,
              (sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype, source,
               recvtag, comm, status, ierr));
    if (F_OK(ierr) && tmpi_counting()) {
        tmpi_acct_send(f_buf(sendbuf), *sendcount, TYPE(sendtype), *dest, COMM(comm));
    }
}

#define SENDRECV_REPLACE_P                                                                         \
    (char *buf, MPI_Fint *count, MPI_Fint *datatype, MPI_Fint *dest, MPI_Fint *sendtag,            \
     MPI_Fint *source, MPI_Fint *recvtag, MPI_Fint *comm, MPI_Fint *status, MPI_Fint *ierr)
F_ENTRY(sendrecv_replace, MPI_SENDRECV_REPLACE, SENDRECV_REPLACE_P)
{
    tmpi_pending p;
    int counting = tmpi_counting();
    if (counting) {
        tmpi_plan_send(f_buf(buf), *count, TYPE(datatype), *dest, COMM(comm), &p);
    }
    CALL_REAL(sendrecv_replace, SENDRECV_REPLACE_P,
              (buf, count, datatype, dest, sendtag, source, recvtag, comm, status, ierr));
    if (F_OK(ierr) && counting) {
        tmpi_apply_pending(&p);
    }
}

/* ---------------------------------------------------------- collectives */

#define COLL_COUNT(...)                                                                            \
    do {                                                                                           \
        if (F_OK(ierr) && tmpi_counting()) {                                                       \
            tmpi_call call_ = {__VA_ARGS__};                                                       \
            tmpi_acct_coll(&call_);                                                                \
        }                                                                                          \
    } while (0)

#define BARRIER_P (MPI_Fint * comm, MPI_Fint * ierr)
F_ENTRY(barrier, MPI_BARRIER, BARRIER_P)
{
    CALL_REAL(barrier, BARRIER_P, (comm, ierr));
    COLL_COUNT(.op = TMPI_BARRIER, .comm = COMM(comm), .blocking = 1);
}

#define IBARRIER_P (MPI_Fint * comm, MPI_Fint * request, MPI_Fint * ierr)
F_ENTRY(ibarrier, MPI_IBARRIER, IBARRIER_P)
{
    CALL_REAL(ibarrier, IBARRIER_P, (comm, request, ierr));
    COLL_COUNT(.op = TMPI_BARRIER, .comm = COMM(comm));
}

#define BCAST_P                                                                                    \
    (char *buffer, MPI_Fint *count, MPI_Fint *datatype, MPI_Fint *root, MPI_Fint *comm,            \
     MPI_Fint *ierr)
#define IBCAST_P                                                                                   \
    (char *buffer, MPI_Fint *count, MPI_Fint *datatype, MPI_Fint *root, MPI_Fint *comm,            \
     MPI_Fint *request, MPI_Fint *ierr)
#define BCAST_CALL(B)                                                                              \
    .op = TMPI_BCAST, .comm = COMM(comm), .blocking = B, .sendbuf = f_buf(buffer),                 \
    .recvbuf = f_buf(buffer), .sendcount = *count, .recvcount = *count,                            \
    .sendtype = TYPE(datatype), .recvtype = TYPE(datatype), .root = *root
F_ENTRY(bcast, MPI_BCAST, BCAST_P)
{
    CALL_REAL(bcast, BCAST_P, (buffer, count, datatype, root, comm, ierr));
    COLL_COUNT(BCAST_CALL(1));
}
F_ENTRY(ibcast, MPI_IBCAST, IBCAST_P)
{
    CALL_REAL(ibcast, IBCAST_P, (buffer, count, datatype, root, comm, request, ierr));
    COLL_COUNT(BCAST_CALL(0));
}

/* gather, scatter (rooted) and allgather, alltoall, neighbour (not) */
#define ROOTED_P                                                                                   \
    (char *sendbuf, MPI_Fint *sendcount, MPI_Fint *sendtype, char *recvbuf, MPI_Fint *recvcount,   \
     MPI_Fint *recvtype, MPI_Fint *root, MPI_Fint *comm, MPI_Fint *ierr)
#define IROOTED_P                                                                                  \
    (char *sendbuf, MPI_Fint *sendcount, MPI_Fint *sendtype, char *recvbuf, MPI_Fint *recvcount,   \
     MPI_Fint *recvtype, MPI_Fint *root, MPI_Fint *comm, MPI_Fint *request, MPI_Fint *ierr)
#define PLAIN_P                                                                                    \
    (char *sendbuf, MPI_Fint *sendcount, MPI_Fint *sendtype, char *recvbuf, MPI_Fint *recvcount,   \
     MPI_Fint *recvtype, MPI_Fint *comm, MPI_Fint *ierr)
#define IPLAIN_P                                                                                   \
    (char *sendbuf, MPI_Fint *sendcount, MPI_Fint *sendtype, char *recvbuf, MPI_Fint *recvcount,   \
     MPI_Fint *recvtype, MPI_Fint *comm, MPI_Fint *request, MPI_Fint *ierr)
#define PLAIN_CALL(OPC, B)                                                                         \
    .op = OPC, .comm = COMM(comm), .blocking = B, .sendbuf = f_buf(sendbuf),                       \
    .recvbuf = f_buf(recvbuf), .sendcount = *sendcount, .recvcount = *recvcount,                   \
    .sendtype = TYPE(sendtype), .recvtype = TYPE(recvtype)

#define ROOTED(lower, UPPER, OPC)                                                                  \
    F_ENTRY(lower, UPPER, ROOTED_P)                                                                \
    {                                                                                              \
        CALL_REAL(lower, ROOTED_P,                                                                 \
                  (sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, ierr)); \
        COLL_COUNT(PLAIN_CALL(OPC, 1), .root = *root);                                             \
    }
#define IROOTED(lower, UPPER, OPC)                                                                 \
    F_ENTRY(lower, UPPER, IROOTED_P)                                                               \
    {                                                                                              \
        CALL_REAL(lower, IROOTED_P,                                                                \
                  (sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm,         \
                   request, ierr));                                                                \
        COLL_COUNT(PLAIN_CALL(OPC, 0), .root = *root);                                             \
    }
#define PLAIN(lower, UPPER, OPC)                                                                   \
    F_ENTRY(lower, UPPER, PLAIN_P)                                                                 \
    {                                                                                              \
        CALL_REAL(lower, PLAIN_P,                                                                  \
                  (sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, ierr));       \
        COLL_COUNT(PLAIN_CALL(OPC, 1));                                                            \
    }
#define IPLAIN(lower, UPPER, OPC)                                                                  \
    F_ENTRY(lower, UPPER, IPLAIN_P)                                                                \
    {                                                                                              \
        CALL_REAL(                                                                                 \
            lower, IPLAIN_P,                                                                       \
            (sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, request, ierr));    \
        COLL_COUNT(PLAIN_CALL(OPC, 0));                                                            \
    }

ROOTED(gather, MPI_GATHER, TMPI_GATHER)
IROOTED(igather, MPI_IGATHER, TMPI_GATHER)
ROOTED(scatter, MPI_SCATTER, TMPI_SCATTER)
IROOTED(iscatter, MPI_ISCATTER, TMPI_SCATTER)
PLAIN(allgather, MPI_ALLGATHER, TMPI_ALLGATHER)
IPLAIN(iallgather, MPI_IALLGATHER, TMPI_ALLGATHER)
PLAIN(alltoall, MPI_ALLTOALL, TMPI_ALLTOALL)
IPLAIN(ialltoall, MPI_IALLTOALL, TMPI_ALLTOALL)
PLAIN(neighbor_allgather, MPI_NEIGHBOR_ALLGATHER, TMPI_NEIGHBOR_ALLGATHER)
IPLAIN(ineighbor_allgather, MPI_INEIGHBOR_ALLGATHER, TMPI_NEIGHBOR_ALLGATHER)
PLAIN(neighbor_alltoall, MPI_NEIGHBOR_ALLTOALL, TMPI_NEIGHBOR_ALLTOALL)
IPLAIN(ineighbor_alltoall, MPI_INEIGHBOR_ALLTOALL, TMPI_NEIGHBOR_ALLTOALL)

/* gatherv: receive counts at the root */
#define GATHERV_P                                                                                  \
    (char *sendbuf, MPI_Fint *sendcount, MPI_Fint *sendtype, char *recvbuf, MPI_Fint *recvcounts,  \
     MPI_Fint *displs, MPI_Fint *recvtype, MPI_Fint *root, MPI_Fint *comm, MPI_Fint *ierr)
#define IGATHERV_P                                                                                 \
    (char *sendbuf, MPI_Fint *sendcount, MPI_Fint *sendtype, char *recvbuf, MPI_Fint *recvcounts,  \
     MPI_Fint *displs, MPI_Fint *recvtype, MPI_Fint *root, MPI_Fint *comm, MPI_Fint *request,      \
     MPI_Fint *ierr)
#define GATHERV_CALL(B)                                                                            \
    .op = TMPI_GATHERV, .comm = COMM(comm), .blocking = B, .sendbuf = f_buf(sendbuf),              \
    .recvbuf = f_buf(recvbuf), .sendcount = *sendcount, .sendtype = TYPE(sendtype),                \
    .recvcounts = recvcounts, .rdispls = displs, .recvtype = TYPE(recvtype), .root = *root
F_ENTRY(gatherv, MPI_GATHERV, GATHERV_P)
{
    CALL_REAL(
        gatherv, GATHERV_P,
        (sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, comm, ierr));
    COLL_COUNT(GATHERV_CALL(1));
}
F_ENTRY(igatherv, MPI_IGATHERV, IGATHERV_P)
{
    CALL_REAL(igatherv, IGATHERV_P,
              (sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, comm,
               request, ierr));
    COLL_COUNT(GATHERV_CALL(0));
}

#define SCATTERV_P                                                                                 \
    (char *sendbuf, MPI_Fint *sendcounts, MPI_Fint *displs, MPI_Fint *sendtype, char *recvbuf,     \
     MPI_Fint *recvcount, MPI_Fint *recvtype, MPI_Fint *root, MPI_Fint *comm, MPI_Fint *ierr)
#define ISCATTERV_P                                                                                \
    (char *sendbuf, MPI_Fint *sendcounts, MPI_Fint *displs, MPI_Fint *sendtype, char *recvbuf,     \
     MPI_Fint *recvcount, MPI_Fint *recvtype, MPI_Fint *root, MPI_Fint *comm, MPI_Fint *request,   \
     MPI_Fint *ierr)
#define SCATTERV_CALL(B)                                                                           \
    .op = TMPI_SCATTERV, .comm = COMM(comm), .blocking = B, .sendbuf = f_buf(sendbuf),             \
    .recvbuf = f_buf(recvbuf), .sendcounts = sendcounts, .sdispls = displs,                        \
    .sendtype = TYPE(sendtype), .recvcount = *recvcount, .recvtype = TYPE(recvtype), .root = *root
F_ENTRY(scatterv, MPI_SCATTERV, SCATTERV_P)
{
    CALL_REAL(
        scatterv, SCATTERV_P,
        (sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root, comm, ierr));
    COLL_COUNT(SCATTERV_CALL(1));
}
F_ENTRY(iscatterv, MPI_ISCATTERV, ISCATTERV_P)
{
    CALL_REAL(iscatterv, ISCATTERV_P,
              (sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root, comm,
               request, ierr));
    COLL_COUNT(SCATTERV_CALL(0));
}

/* allgatherv; neighbor_allgatherv sends one block to every neighbour */
#define ALLGATHERV_P                                                                               \
    (char *sendbuf, MPI_Fint *sendcount, MPI_Fint *sendtype, char *recvbuf, MPI_Fint *recvcounts,  \
     MPI_Fint *displs, MPI_Fint *recvtype, MPI_Fint *comm, MPI_Fint *ierr)
#define IALLGATHERV_P                                                                              \
    (char *sendbuf, MPI_Fint *sendcount, MPI_Fint *sendtype, char *recvbuf, MPI_Fint *recvcounts,  \
     MPI_Fint *displs, MPI_Fint *recvtype, MPI_Fint *comm, MPI_Fint *request, MPI_Fint *ierr)
#define ALLGATHERV_CALL(B)                                                                         \
    .op = TMPI_ALLGATHERV, .comm = COMM(comm), .blocking = B, .sendbuf = f_buf(sendbuf),           \
    .recvbuf = f_buf(recvbuf), .sendcount = *sendcount, .sendtype = TYPE(sendtype),                \
    .recvcounts = recvcounts, .rdispls = displs, .recvtype = TYPE(recvtype)
#define NB_ALLGATHERV_CALL(B)                                                                      \
    .op = TMPI_NEIGHBOR_ALLGATHER, .comm = COMM(comm), .blocking = B, .sendbuf = f_buf(sendbuf),   \
    .sendcount = *sendcount, .sendtype = TYPE(sendtype), .recvtype = TYPE(recvtype)
F_ENTRY(allgatherv, MPI_ALLGATHERV, ALLGATHERV_P)
{
    CALL_REAL(allgatherv, ALLGATHERV_P,
              (sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm, ierr));
    COLL_COUNT(ALLGATHERV_CALL(1));
}
F_ENTRY(iallgatherv, MPI_IALLGATHERV, IALLGATHERV_P)
{
    CALL_REAL(
        iallgatherv, IALLGATHERV_P,
        (sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm, request, ierr));
    COLL_COUNT(ALLGATHERV_CALL(0));
}
F_ENTRY(neighbor_allgatherv, MPI_NEIGHBOR_ALLGATHERV, ALLGATHERV_P)
{
    CALL_REAL(neighbor_allgatherv, ALLGATHERV_P,
              (sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm, ierr));
    COLL_COUNT(NB_ALLGATHERV_CALL(1));
}
F_ENTRY(ineighbor_allgatherv, MPI_INEIGHBOR_ALLGATHERV, IALLGATHERV_P)
{
    CALL_REAL(
        ineighbor_allgatherv, IALLGATHERV_P,
        (sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm, request, ierr));
    COLL_COUNT(NB_ALLGATHERV_CALL(0));
}

#define ALLTOALLV_P                                                                                \
    (char *sendbuf, MPI_Fint *sendcounts, MPI_Fint *sdispls, MPI_Fint *sendtype, char *recvbuf,    \
     MPI_Fint *recvcounts, MPI_Fint *rdispls, MPI_Fint *recvtype, MPI_Fint *comm, MPI_Fint *ierr)
#define IALLTOALLV_P                                                                               \
    (char *sendbuf, MPI_Fint *sendcounts, MPI_Fint *sdispls, MPI_Fint *sendtype, char *recvbuf,    \
     MPI_Fint *recvcounts, MPI_Fint *rdispls, MPI_Fint *recvtype, MPI_Fint *comm,                  \
     MPI_Fint *request, MPI_Fint *ierr)
#define ALLTOALLV_CALL(OPC, B)                                                                     \
    .op = OPC, .comm = COMM(comm), .blocking = B, .sendbuf = f_buf(sendbuf),                       \
    .recvbuf = f_buf(recvbuf), .sendcounts = sendcounts, .sdispls = sdispls,                       \
    .sendtype = TYPE(sendtype), .recvcounts = recvcounts, .rdispls = rdispls,                      \
    .recvtype = TYPE(recvtype)
#define ALLTOALLV_ENTRY(lower, UPPER, OPC)                                                         \
    F_ENTRY(lower, UPPER, ALLTOALLV_P)                                                             \
    {                                                                                              \
        CALL_REAL(lower, ALLTOALLV_P,                                                              \
                  (sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, \
                   comm, ierr));                                                                   \
        COLL_COUNT(ALLTOALLV_CALL(OPC, 1));                                                        \
    }
#define IALLTOALLV_ENTRY(lower, UPPER, OPC)                                                        \
    F_ENTRY(lower, UPPER, IALLTOALLV_P)                                                            \
    {                                                                                              \
        CALL_REAL(lower, IALLTOALLV_P,                                                             \
                  (sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, \
                   comm, request, ierr));                                                          \
        COLL_COUNT(ALLTOALLV_CALL(OPC, 0));                                                        \
    }
ALLTOALLV_ENTRY(alltoallv, MPI_ALLTOALLV, TMPI_ALLTOALLV)
IALLTOALLV_ENTRY(ialltoallv, MPI_IALLTOALLV, TMPI_ALLTOALLV)
ALLTOALLV_ENTRY(neighbor_alltoallv, MPI_NEIGHBOR_ALLTOALLV, TMPI_NEIGHBOR_ALLTOALL)
IALLTOALLV_ENTRY(ineighbor_alltoallv, MPI_INEIGHBOR_ALLTOALLV, TMPI_NEIGHBOR_ALLTOALL)

/* Fortran datatype handles of a *w call, converted; NULL when n < 0. */
static MPI_Datatype *types_f2c(const MPI_Fint *f, int n)
{
    if (f == NULL || n < 0) {
        return NULL;
    }
    MPI_Datatype *t = malloc(((size_t)n + 1) * sizeof *t);
    for (int i = 0; t != NULL && i < n; i++) {
        t[i] = PMPI_Type_f2c(f[i]);
    }
    return t;
}

static void count_alltoallw(MPI_Comm comm, int blocking, const void *sendbuf, const int *sendcounts,
                            const int *sdispls, const MPI_Fint *sendtypes, const void *recvbuf,
                            const int *recvcounts, const int *rdispls, const MPI_Fint *recvtypes)
{
    int n = 0;
    PMPI_Comm_size(comm, &n);
    MPI_Datatype *st = sendbuf == MPI_IN_PLACE ? NULL : types_f2c(sendtypes, n);
    MPI_Datatype *rt = types_f2c(recvtypes, n);
    tmpi_call call = {.op = TMPI_ALLTOALLV,
                      .comm = comm,
                      .blocking = blocking,
                      .sendbuf = sendbuf,
                      .recvbuf = recvbuf,
                      .sendcounts = sendcounts,
                      .sdispls = sdispls,
                      .sendtypes = st,
                      .recvcounts = recvcounts,
                      .rdispls = rdispls,
                      .recvtypes = rt,
                      .displs_bytes = 1,
                      .sendtype = MPI_BYTE,
                      .recvtype = MPI_BYTE};
    tmpi_acct_coll(&call);
    free(st);
    free(rt);
}

#define ALLTOALLW_P                                                                                \
    (char *sendbuf, MPI_Fint *sendcounts, MPI_Fint *sdispls, MPI_Fint *sendtypes, char *recvbuf,   \
     MPI_Fint *recvcounts, MPI_Fint *rdispls, MPI_Fint *recvtypes, MPI_Fint *comm, MPI_Fint *ierr)
#define IALLTOALLW_P                                                                               \
    (char *sendbuf, MPI_Fint *sendcounts, MPI_Fint *sdispls, MPI_Fint *sendtypes, char *recvbuf,   \
     MPI_Fint *recvcounts, MPI_Fint *rdispls, MPI_Fint *recvtypes, MPI_Fint *comm,                 \
     MPI_Fint *request, MPI_Fint *ierr)
F_ENTRY(alltoallw, MPI_ALLTOALLW, ALLTOALLW_P)
{
    CALL_REAL(alltoallw, ALLTOALLW_P,
              (sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes,
               comm, ierr));
    if (F_OK(ierr) && tmpi_counting()) {
        count_alltoallw(COMM(comm), 1, f_buf(sendbuf), sendcounts, sdispls, sendtypes,
                        f_buf(recvbuf), recvcounts, rdispls, recvtypes);
    }
}
F_ENTRY(ialltoallw, MPI_IALLTOALLW, IALLTOALLW_P)
{
    CALL_REAL(ialltoallw, IALLTOALLW_P,
              (sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes,
               comm, request, ierr));
    if (F_OK(ierr) && tmpi_counting()) {
        count_alltoallw(COMM(comm), 0, f_buf(sendbuf), sendcounts, sdispls, sendtypes,
                        f_buf(recvbuf), recvcounts, rdispls, recvtypes);
    }
}

static void count_neighbor_alltoallw(MPI_Comm comm, int blocking, const void *sendbuf,
                                     const int *sendcounts, const MPI_Aint *sdispls,
                                     const MPI_Fint *sendtypes)
{
    MPI_Datatype *st = types_f2c(sendtypes, tmpi_neighbor_count(comm));
    tmpi_call call = {.op = TMPI_NEIGHBOR_ALLTOALL,
                      .comm = comm,
                      .blocking = blocking,
                      .sendbuf = sendbuf,
                      .sendcounts = sendcounts,
                      .sdispls_aint = sdispls,
                      .sendtypes = st,
                      .displs_bytes = 1,
                      .sendtype = MPI_BYTE,
                      .recvtype = MPI_BYTE};
    if (st != NULL) {
        tmpi_acct_coll(&call);
    }
    free(st);
}

#define NB_ALLTOALLW_P                                                                             \
    (char *sendbuf, MPI_Fint *sendcounts, MPI_Aint *sdispls, MPI_Fint *sendtypes, char *recvbuf,   \
     MPI_Fint *recvcounts, MPI_Aint *rdispls, MPI_Fint *recvtypes, MPI_Fint *comm, MPI_Fint *ierr)
#define INB_ALLTOALLW_P                                                                            \
    (char *sendbuf, MPI_Fint *sendcounts, MPI_Aint *sdispls, MPI_Fint *sendtypes, char *recvbuf,   \
     MPI_Fint *recvcounts, MPI_Aint *rdispls, MPI_Fint *recvtypes, MPI_Fint *comm,                 \
     MPI_Fint *request, MPI_Fint *ierr)
F_ENTRY(neighbor_alltoallw, MPI_NEIGHBOR_ALLTOALLW, NB_ALLTOALLW_P)
{
    CALL_REAL(neighbor_alltoallw, NB_ALLTOALLW_P,
              (sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes,
               comm, ierr));
    if (F_OK(ierr) && tmpi_counting()) {
        count_neighbor_alltoallw(COMM(comm), 1, f_buf(sendbuf), sendcounts, sdispls, sendtypes);
    }
}
F_ENTRY(ineighbor_alltoallw, MPI_INEIGHBOR_ALLTOALLW, INB_ALLTOALLW_P)
{
    CALL_REAL(ineighbor_alltoallw, INB_ALLTOALLW_P,
              (sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes,
               comm, request, ierr));
    if (F_OK(ierr) && tmpi_counting()) {
        count_neighbor_alltoallw(COMM(comm), 0, f_buf(sendbuf), sendcounts, sdispls, sendtypes);
    }
}

/* reductions */
#define REDUCE_P                                                                                   \
    (char *sendbuf, char *recvbuf, MPI_Fint *count, MPI_Fint *datatype, MPI_Fint *op,              \
     MPI_Fint *root, MPI_Fint *comm, MPI_Fint *ierr)
#define IREDUCE_P                                                                                  \
    (char *sendbuf, char *recvbuf, MPI_Fint *count, MPI_Fint *datatype, MPI_Fint *op,              \
     MPI_Fint *root, MPI_Fint *comm, MPI_Fint *request, MPI_Fint *ierr)
#define REDUCE_CALL(OPC, B)                                                                        \
    .op = OPC, .comm = COMM(comm), .blocking = B, .sendbuf = f_buf(sendbuf),                       \
    .recvbuf = f_buf(recvbuf), .sendcount = *count, .recvcount = *count,                           \
    .sendtype = TYPE(datatype), .recvtype = TYPE(datatype), .rop = OP(op)
F_ENTRY(reduce, MPI_REDUCE, REDUCE_P)
{
    CALL_REAL(reduce, REDUCE_P, (sendbuf, recvbuf, count, datatype, op, root, comm, ierr));
    COLL_COUNT(REDUCE_CALL(TMPI_REDUCE, 1), .root = *root);
}
F_ENTRY(ireduce, MPI_IREDUCE, IREDUCE_P)
{
    CALL_REAL(ireduce, IREDUCE_P,
              (sendbuf, recvbuf, count, datatype, op, root, comm, request, ierr));
    COLL_COUNT(REDUCE_CALL(TMPI_REDUCE, 0), .root = *root);
}

#define ALLREDUCE_P                                                                                \
    (char *sendbuf, char *recvbuf, MPI_Fint *count, MPI_Fint *datatype, MPI_Fint *op,              \
     MPI_Fint *comm, MPI_Fint *ierr)
#define IALLREDUCE_P                                                                               \
    (char *sendbuf, char *recvbuf, MPI_Fint *count, MPI_Fint *datatype, MPI_Fint *op,              \
     MPI_Fint *comm, MPI_Fint *request, MPI_Fint *ierr)
#define ALLREDUCE_ENTRY(lower, UPPER, OPC)                                                         \
    F_ENTRY(lower, UPPER, ALLREDUCE_P)                                                             \
    {                                                                                              \
        CALL_REAL(lower, ALLREDUCE_P, (sendbuf, recvbuf, count, datatype, op, comm, ierr));        \
        COLL_COUNT(REDUCE_CALL(OPC, 1));                                                           \
    }
#define IALLREDUCE_ENTRY(lower, UPPER, OPC)                                                        \
    F_ENTRY(lower, UPPER, IALLREDUCE_P)                                                            \
    {                                                                                              \
        CALL_REAL(lower, IALLREDUCE_P,                                                             \
                  (sendbuf, recvbuf, count, datatype, op, comm, request, ierr));                   \
        COLL_COUNT(REDUCE_CALL(OPC, 0));                                                           \
    }
ALLREDUCE_ENTRY(allreduce, MPI_ALLREDUCE, TMPI_ALLREDUCE)
IALLREDUCE_ENTRY(iallreduce, MPI_IALLREDUCE, TMPI_ALLREDUCE)
ALLREDUCE_ENTRY(scan, MPI_SCAN, TMPI_SCAN)
IALLREDUCE_ENTRY(iscan, MPI_ISCAN, TMPI_SCAN)
ALLREDUCE_ENTRY(exscan, MPI_EXSCAN, TMPI_EXSCAN)
IALLREDUCE_ENTRY(iexscan, MPI_IEXSCAN, TMPI_EXSCAN)

/* reduce_scatter (counts array) and reduce_scatter_block (one count) */
#define RS_P                                                                                       \
    (char *sendbuf, char *recvbuf, MPI_Fint *recvcounts, MPI_Fint *datatype, MPI_Fint *op,         \
     MPI_Fint *comm, MPI_Fint *ierr)
#define IRS_P                                                                                      \
    (char *sendbuf, char *recvbuf, MPI_Fint *recvcounts, MPI_Fint *datatype, MPI_Fint *op,         \
     MPI_Fint *comm, MPI_Fint *request, MPI_Fint *ierr)
#define RS_CALL(B)                                                                                 \
    .op = TMPI_REDUCE_SCATTER, .comm = COMM(comm), .blocking = B, .sendbuf = f_buf(sendbuf),       \
    .recvbuf = f_buf(recvbuf), .sendtype = TYPE(datatype), .recvtype = TYPE(datatype),             \
    .rop = OP(op)
F_ENTRY(reduce_scatter, MPI_REDUCE_SCATTER, RS_P)
{
    CALL_REAL(reduce_scatter, RS_P, (sendbuf, recvbuf, recvcounts, datatype, op, comm, ierr));
    COLL_COUNT(RS_CALL(1), .recvcounts = recvcounts);
}
F_ENTRY(ireduce_scatter, MPI_IREDUCE_SCATTER, IRS_P)
{
    CALL_REAL(ireduce_scatter, IRS_P,
              (sendbuf, recvbuf, recvcounts, datatype, op, comm, request, ierr));
    COLL_COUNT(RS_CALL(0), .recvcounts = recvcounts);
}
/* same argument lists, a single count */
F_ENTRY(reduce_scatter_block, MPI_REDUCE_SCATTER_BLOCK, RS_P)
{
    CALL_REAL(reduce_scatter_block, RS_P, (sendbuf, recvbuf, recvcounts, datatype, op, comm, ierr));
    COLL_COUNT(RS_CALL(1), .recvcount = *recvcounts);
}
F_ENTRY(ireduce_scatter_block, MPI_IREDUCE_SCATTER_BLOCK, IRS_P)
{
    CALL_REAL(ireduce_scatter_block, IRS_P,
              (sendbuf, recvbuf, recvcounts, datatype, op, comm, request, ierr));
    COLL_COUNT(RS_CALL(0), .recvcount = *recvcounts);
}

/* ------------------------------------------------------------ one-sided */

#define RMA_COUNT(...)                                                                             \
    do {                                                                                           \
        if (F_OK(ierr) && tmpi_counting()) {                                                       \
            tmpi_acct_rma(__VA_ARGS__);                                                            \
        }                                                                                          \
    } while (0)

#define PUT_P                                                                                      \
    (char *origin_addr, MPI_Fint *origin_count, MPI_Fint *origin_datatype, MPI_Fint *target_rank,  \
     MPI_Aint *target_disp, MPI_Fint *target_count, MPI_Fint *target_datatype, MPI_Fint *win,      \
     MPI_Fint *ierr)
#define RPUT_P                                                                                     \
    (char *origin_addr, MPI_Fint *origin_count, MPI_Fint *origin_datatype, MPI_Fint *target_rank,  \
     MPI_Aint *target_disp, MPI_Fint *target_count, MPI_Fint *target_datatype, MPI_Fint *win,      \
     MPI_Fint *request, MPI_Fint *ierr)
#define PUT_ENTRY(lower, UPPER, OPC)                                                               \
    F_ENTRY(lower, UPPER, PUT_P)                                                                   \
    {                                                                                              \
        CALL_REAL(lower, PUT_P,                                                                    \
                  (origin_addr, origin_count, origin_datatype, target_rank, target_disp,           \
                   target_count, target_datatype, win, ierr));                                     \
        RMA_COUNT(OPC, f_buf(origin_addr), *origin_count, TYPE(origin_datatype), 0, MPI_BYTE,      \
                  MPI_OP_NULL, *target_rank, WIN(win));                                            \
    }
#define RPUT_ENTRY(lower, UPPER, OPC)                                                              \
    F_ENTRY(lower, UPPER, RPUT_P)                                                                  \
    {                                                                                              \
        CALL_REAL(lower, RPUT_P,                                                                   \
                  (origin_addr, origin_count, origin_datatype, target_rank, target_disp,           \
                   target_count, target_datatype, win, request, ierr));                            \
        RMA_COUNT(OPC, f_buf(origin_addr), *origin_count, TYPE(origin_datatype), 0, MPI_BYTE,      \
                  MPI_OP_NULL, *target_rank, WIN(win));                                            \
    }
PUT_ENTRY(put, MPI_PUT, TMPI_RMA_PUT)
RPUT_ENTRY(rput, MPI_RPUT, TMPI_RMA_PUT)
PUT_ENTRY(get, MPI_GET, TMPI_RMA_GET)
RPUT_ENTRY(rget, MPI_RGET, TMPI_RMA_GET)

#define ACC_P                                                                                      \
    (char *origin_addr, MPI_Fint *origin_count, MPI_Fint *origin_datatype, MPI_Fint *target_rank,  \
     MPI_Aint *target_disp, MPI_Fint *target_count, MPI_Fint *target_datatype, MPI_Fint *op,       \
     MPI_Fint *win, MPI_Fint *ierr)
#define RACC_P                                                                                     \
    (char *origin_addr, MPI_Fint *origin_count, MPI_Fint *origin_datatype, MPI_Fint *target_rank,  \
     MPI_Aint *target_disp, MPI_Fint *target_count, MPI_Fint *target_datatype, MPI_Fint *op,       \
     MPI_Fint *win, MPI_Fint *request, MPI_Fint *ierr)
F_ENTRY(accumulate, MPI_ACCUMULATE, ACC_P)
{
    CALL_REAL(accumulate, ACC_P,
              (origin_addr, origin_count, origin_datatype, target_rank, target_disp, target_count,
               target_datatype, op, win, ierr));
    RMA_COUNT(TMPI_RMA_ACC, f_buf(origin_addr), *origin_count, TYPE(origin_datatype), 0, MPI_BYTE,
              OP(op), *target_rank, WIN(win));
}
F_ENTRY(raccumulate, MPI_RACCUMULATE, RACC_P)
{
    CALL_REAL(raccumulate, RACC_P,
              (origin_addr, origin_count, origin_datatype, target_rank, target_disp, target_count,
               target_datatype, op, win, request, ierr));
    RMA_COUNT(TMPI_RMA_ACC, f_buf(origin_addr), *origin_count, TYPE(origin_datatype), 0, MPI_BYTE,
              OP(op), *target_rank, WIN(win));
}

#define GACC_P                                                                                     \
    (char *origin_addr, MPI_Fint *origin_count, MPI_Fint *origin_datatype, char *result_addr,      \
     MPI_Fint *result_count, MPI_Fint *result_datatype, MPI_Fint *target_rank,                     \
     MPI_Aint *target_disp, MPI_Fint *target_count, MPI_Fint *target_datatype, MPI_Fint *op,       \
     MPI_Fint *win, MPI_Fint *ierr)
#define RGACC_P                                                                                    \
    (char *origin_addr, MPI_Fint *origin_count, MPI_Fint *origin_datatype, char *result_addr,      \
     MPI_Fint *result_count, MPI_Fint *result_datatype, MPI_Fint *target_rank,                     \
     MPI_Aint *target_disp, MPI_Fint *target_count, MPI_Fint *target_datatype, MPI_Fint *op,       \
     MPI_Fint *win, MPI_Fint *request, MPI_Fint *ierr)
F_ENTRY(get_accumulate, MPI_GET_ACCUMULATE, GACC_P)
{
    CALL_REAL(get_accumulate, GACC_P,
              (origin_addr, origin_count, origin_datatype, result_addr, result_count,
               result_datatype, target_rank, target_disp, target_count, target_datatype, op, win,
               ierr));
    RMA_COUNT(TMPI_RMA_GET_ACC, f_buf(origin_addr), *origin_count, TYPE(origin_datatype),
              *result_count, TYPE(result_datatype), OP(op), *target_rank, WIN(win));
}
F_ENTRY(rget_accumulate, MPI_RGET_ACCUMULATE, RGACC_P)
{
    CALL_REAL(rget_accumulate, RGACC_P,
              (origin_addr, origin_count, origin_datatype, result_addr, result_count,
               result_datatype, target_rank, target_disp, target_count, target_datatype, op, win,
               request, ierr));
    RMA_COUNT(TMPI_RMA_GET_ACC, f_buf(origin_addr), *origin_count, TYPE(origin_datatype),
              *result_count, TYPE(result_datatype), OP(op), *target_rank, WIN(win));
}

#define FOP_P                                                                                      \
    (char *origin_addr, char *result_addr, MPI_Fint *datatype, MPI_Fint *target_rank,              \
     MPI_Aint *target_disp, MPI_Fint *op, MPI_Fint *win, MPI_Fint *ierr)
F_ENTRY(fetch_and_op, MPI_FETCH_AND_OP, FOP_P)
{
    CALL_REAL(fetch_and_op, FOP_P,
              (origin_addr, result_addr, datatype, target_rank, target_disp, op, win, ierr));
    RMA_COUNT(TMPI_RMA_GET_ACC, f_buf(origin_addr), 1, TYPE(datatype), 1, TYPE(datatype), OP(op),
              *target_rank, WIN(win));
}

#define CAS_P                                                                                      \
    (char *origin_addr, char *compare_addr, char *result_addr, MPI_Fint *datatype,                 \
     MPI_Fint *target_rank, MPI_Aint *target_disp, MPI_Fint *win, MPI_Fint *ierr)
F_ENTRY(compare_and_swap, MPI_COMPARE_AND_SWAP, CAS_P)
{
    CALL_REAL(
        compare_and_swap, CAS_P,
        (origin_addr, compare_addr, result_addr, datatype, target_rank, target_disp, win, ierr));
    RMA_COUNT(TMPI_RMA_CAS, f_buf(origin_addr), 1, TYPE(datatype), 1, TYPE(datatype), MPI_OP_NULL,
              *target_rank, WIN(win));
}
