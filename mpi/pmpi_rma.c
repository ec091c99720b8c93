/*
 * pmpi_rma.c - C entry points of one-sided communication.  Counted when the
 * operation is issued (its completion at a flush, unlock or fence moves no
 * further modelled traffic); see account.c for the PUT/GET model.
 */
#include "tmpi.h"

#define RMA_COUNT(OP, ORIGIN, OCOUNT, OTYPE, RCOUNT, RTYPE, ROP, TARGET, WIN)                      \
    do {                                                                                           \
        if (rc == MPI_SUCCESS && tmpi_counting()) {                                                \
            tmpi_acct_rma(OP, ORIGIN, OCOUNT, OTYPE, RCOUNT, RTYPE, ROP, TARGET, WIN);             \
        }                                                                                          \
    } while (0)

int MPI_Put(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
            int target_rank, MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype,
            MPI_Win win)
{
    int rc = PMPI_Put(origin_addr, origin_count, origin_datatype, target_rank, target_disp,
                      target_count, target_datatype, win);
    RMA_COUNT(TMPI_RMA_PUT, origin_addr, origin_count, origin_datatype, 0, MPI_BYTE, MPI_OP_NULL,
              target_rank, win);
    return rc;
}

int MPI_Rput(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
             int target_rank, MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype,
             MPI_Win win, MPI_Request *request)
{
    int rc = PMPI_Rput(origin_addr, origin_count, origin_datatype, target_rank, target_disp,
                       target_count, target_datatype, win, request);
    RMA_COUNT(TMPI_RMA_PUT, origin_addr, origin_count, origin_datatype, 0, MPI_BYTE, MPI_OP_NULL,
              target_rank, win);
    return rc;
}

int MPI_Get(void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
            MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win)
{
    int rc = PMPI_Get(origin_addr, origin_count, origin_datatype, target_rank, target_disp,
                      target_count, target_datatype, win);
    RMA_COUNT(TMPI_RMA_GET, origin_addr, origin_count, origin_datatype, 0, MPI_BYTE, MPI_OP_NULL,
              target_rank, win);
    return rc;
}

int MPI_Rget(void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
             MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win,
             MPI_Request *request)
{
    int rc = PMPI_Rget(origin_addr, origin_count, origin_datatype, target_rank, target_disp,
                       target_count, target_datatype, win, request);
    RMA_COUNT(TMPI_RMA_GET, origin_addr, origin_count, origin_datatype, 0, MPI_BYTE, MPI_OP_NULL,
              target_rank, win);
    return rc;
}

int MPI_Accumulate(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
                   int target_rank, MPI_Aint target_disp, int target_count,
                   MPI_Datatype target_datatype, MPI_Op op, MPI_Win win)
{
    int rc = PMPI_Accumulate(origin_addr, origin_count, origin_datatype, target_rank, target_disp,
                             target_count, target_datatype, op, win);
    RMA_COUNT(TMPI_RMA_ACC, origin_addr, origin_count, origin_datatype, 0, MPI_BYTE, op,
              target_rank, win);
    return rc;
}

int MPI_Raccumulate(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
                    int target_rank, MPI_Aint target_disp, int target_count,
                    MPI_Datatype target_datatype, MPI_Op op, MPI_Win win, MPI_Request *request)
{
    int rc = PMPI_Raccumulate(origin_addr, origin_count, origin_datatype, target_rank, target_disp,
                              target_count, target_datatype, op, win, request);
    RMA_COUNT(TMPI_RMA_ACC, origin_addr, origin_count, origin_datatype, 0, MPI_BYTE, op,
              target_rank, win);
    return rc;
}

int MPI_Get_accumulate(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
                       void *result_addr, int result_count, MPI_Datatype result_datatype,
                       int target_rank, MPI_Aint target_disp, int target_count,
                       MPI_Datatype target_datatype, MPI_Op op, MPI_Win win)
{
    int rc = PMPI_Get_accumulate(origin_addr, origin_count, origin_datatype, result_addr,
                                 result_count, result_datatype, target_rank, target_disp,
                                 target_count, target_datatype, op, win);
    RMA_COUNT(TMPI_RMA_GET_ACC, origin_addr, origin_count, origin_datatype, result_count,
              result_datatype, op, target_rank, win);
    return rc;
}

int MPI_Rget_accumulate(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
                        void *result_addr, int result_count, MPI_Datatype result_datatype,
                        int target_rank, MPI_Aint target_disp, int target_count,
                        MPI_Datatype target_datatype, MPI_Op op, MPI_Win win, MPI_Request *request)
{
    int rc = PMPI_Rget_accumulate(origin_addr, origin_count, origin_datatype, result_addr,
                                  result_count, result_datatype, target_rank, target_disp,
                                  target_count, target_datatype, op, win, request);
    RMA_COUNT(TMPI_RMA_GET_ACC, origin_addr, origin_count, origin_datatype, result_count,
              result_datatype, op, target_rank, win);
    return rc;
}

int MPI_Fetch_and_op(const void *origin_addr, void *result_addr, MPI_Datatype datatype,
                     int target_rank, MPI_Aint target_disp, MPI_Op op, MPI_Win win)
{
    int rc =
        PMPI_Fetch_and_op(origin_addr, result_addr, datatype, target_rank, target_disp, op, win);
    RMA_COUNT(TMPI_RMA_GET_ACC, origin_addr, 1, datatype, 1, datatype, op, target_rank, win);
    return rc;
}

int MPI_Compare_and_swap(const void *origin_addr, const void *compare_addr, void *result_addr,
                         MPI_Datatype datatype, int target_rank, MPI_Aint target_disp, MPI_Win win)
{
    int rc = PMPI_Compare_and_swap(origin_addr, compare_addr, result_addr, datatype, target_rank,
                                   target_disp, win);
    RMA_COUNT(TMPI_RMA_CAS, origin_addr, 1, datatype, 1, datatype, MPI_OP_NULL, target_rank, win);
    return rc;
}
