/*
 * pmpi_tool.c - a stand-in for TAU's MPI wrapper library (libTauMpi and its
 * Fortran wrappers), to test that libtorusemu_mpi stacks with another PMPI
 * tool in either order (tools.sh, doc/mpi.md "Other tools").
 *
 * Like TAU it defines its own MPI_* for start-up and finish, sends,
 * collectives and one-sided calls, each calling the PMPI_* version and
 * counting what it saw; its Fortran entry points (mpi_send_ ...) turn the
 * handles into C ones and call the C MPI_* functions by their public names,
 * as TAU's TauFMpi.c does.  At MPI_Finalize every rank prints one line:
 *
 *   pmpi_tool rank R: init I send S bytes B coll C rma M
 *
 * The tool itself sends nothing (its counts stay in the process).
 */
#include <mpi.h>
#include <stdio.h>

static long n_init, n_send, n_coll, n_rma;
static long long send_bytes;

static void saw_send(int count, MPI_Datatype type)
{
    int size = 0;
    PMPI_Type_size(type, &size);
    n_send++;
    send_bytes += (long long)count * size;
}

/* ------------------------------------------------------ start and finish */

int MPI_Init(int *argc, char ***argv)
{
    n_init++;
    return PMPI_Init(argc, argv);
}

int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
    n_init++;
    return PMPI_Init_thread(argc, argv, required, provided);
}

int MPI_Finalize(void)
{
    int rank = -1;
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    printf("pmpi_tool rank %d: init %ld send %ld bytes %lld coll %ld rma %ld\n", rank, n_init,
           n_send, send_bytes, n_coll, n_rma);
    fflush(stdout);
    return PMPI_Finalize();
}

/* ---------------------------------------------------------------- sends */

int MPI_Send(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm)
{
    saw_send(count, type);
    return PMPI_Send(buf, count, type, dest, tag, comm);
}

int MPI_Ssend(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm)
{
    saw_send(count, type);
    return PMPI_Ssend(buf, count, type, dest, tag, comm);
}

int MPI_Isend(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
              MPI_Request *req)
{
    saw_send(count, type);
    return PMPI_Isend(buf, count, type, dest, tag, comm, req);
}

/* ---------------------------------------------------------- collectives */

int MPI_Barrier(MPI_Comm comm)
{
    n_coll++;
    return PMPI_Barrier(comm);
}

int MPI_Ibarrier(MPI_Comm comm, MPI_Request *req)
{
    n_coll++;
    return PMPI_Ibarrier(comm, req);
}

int MPI_Bcast(void *buf, int count, MPI_Datatype type, int root, MPI_Comm comm)
{
    n_coll++;
    return PMPI_Bcast(buf, count, type, root, comm);
}

int MPI_Ibcast(void *buf, int count, MPI_Datatype type, int root, MPI_Comm comm, MPI_Request *req)
{
    n_coll++;
    return PMPI_Ibcast(buf, count, type, root, comm, req);
}

int MPI_Allreduce(const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op,
                  MPI_Comm comm)
{
    n_coll++;
    return PMPI_Allreduce(sbuf, rbuf, count, type, op, comm);
}

int MPI_Alltoall(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount,
                 MPI_Datatype rtype, MPI_Comm comm)
{
    n_coll++;
    return PMPI_Alltoall(sbuf, scount, stype, rbuf, rcount, rtype, comm);
}

/* ------------------------------------------------------------ one-sided */

int MPI_Put(const void *obuf, int ocount, MPI_Datatype otype, int target, MPI_Aint disp, int tcount,
            MPI_Datatype ttype, MPI_Win win)
{
    n_rma++;
    return PMPI_Put(obuf, ocount, otype, target, disp, tcount, ttype, win);
}

int MPI_Get(void *obuf, int ocount, MPI_Datatype otype, int target, MPI_Aint disp, int tcount,
            MPI_Datatype ttype, MPI_Win win)
{
    n_rma++;
    return PMPI_Get(obuf, ocount, otype, target, disp, tcount, ttype, win);
}

/* ------------------------------------------- Fortran (gfortran: name_) */

void mpi_init_(MPI_Fint *ierr);
void mpi_finalize_(MPI_Fint *ierr);
void mpi_send_(void *buf, MPI_Fint *count, MPI_Fint *type, MPI_Fint *dest, MPI_Fint *tag,
               MPI_Fint *comm, MPI_Fint *ierr);
void mpi_isend_(void *buf, MPI_Fint *count, MPI_Fint *type, MPI_Fint *dest, MPI_Fint *tag,
                MPI_Fint *comm, MPI_Fint *req, MPI_Fint *ierr);

void mpi_init_(MPI_Fint *ierr)
{
    *ierr = MPI_Init(NULL, NULL);
}

void mpi_finalize_(MPI_Fint *ierr)
{
    *ierr = MPI_Finalize();
}

void mpi_send_(void *buf, MPI_Fint *count, MPI_Fint *type, MPI_Fint *dest, MPI_Fint *tag,
               MPI_Fint *comm, MPI_Fint *ierr)
{
    *ierr = MPI_Send(buf, *count, MPI_Type_f2c(*type), *dest, *tag, MPI_Comm_f2c(*comm));
}

void mpi_isend_(void *buf, MPI_Fint *count, MPI_Fint *type, MPI_Fint *dest, MPI_Fint *tag,
                MPI_Fint *comm, MPI_Fint *req, MPI_Fint *ierr)
{
    MPI_Request r;
    *ierr = MPI_Isend(buf, *count, MPI_Type_f2c(*type), *dest, *tag, MPI_Comm_f2c(*comm), &r);
    if (*ierr == MPI_SUCCESS) {
        *req = MPI_Request_c2f(r);
    }
}
