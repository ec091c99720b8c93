/*
 * pmpi_rma.c - entry points of one-sided communication (MPI_X and PMPI_X,
 * tmpi.h).  Counted when the
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

TMPI_ENTRY(Put,
           (const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
            int target_rank, MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype,
            MPI_Win win),
           (origin_addr, origin_count, origin_datatype, target_rank, target_disp, target_count,
            target_datatype, win))
{
    int rc = tmpi_next_(origin_addr, origin_count, origin_datatype, target_rank, target_disp,
                        target_count, target_datatype, win);
    RMA_COUNT(TMPI_RMA_PUT, origin_addr, origin_count, origin_datatype, 0, MPI_BYTE, MPI_OP_NULL,
              target_rank, win);
    return rc;
}

TMPI_ENTRY(Rput,
           (const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
            int target_rank, MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype,
            MPI_Win win, MPI_Request *request),
           (origin_addr, origin_count, origin_datatype, target_rank, target_disp, target_count,
            target_datatype, win, request))
{
    int rc = tmpi_next_(origin_addr, origin_count, origin_datatype, target_rank, target_disp,
                        target_count, target_datatype, win, request);
    RMA_COUNT(TMPI_RMA_PUT, origin_addr, origin_count, origin_datatype, 0, MPI_BYTE, MPI_OP_NULL,
              target_rank, win);
    return rc;
}

TMPI_ENTRY(Get,
           (void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
            MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win),
           (origin_addr, origin_count, origin_datatype, target_rank, target_disp, target_count,
            target_datatype, win))
{
    int rc = tmpi_next_(origin_addr, origin_count, origin_datatype, target_rank, target_disp,
                        target_count, target_datatype, win);
    RMA_COUNT(TMPI_RMA_GET, origin_addr, origin_count, origin_datatype, 0, MPI_BYTE, MPI_OP_NULL,
              target_rank, win);
    return rc;
}

TMPI_ENTRY(Rget,
           (void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
            MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win,
            MPI_Request *request),
           (origin_addr, origin_count, origin_datatype, target_rank, target_disp, target_count,
            target_datatype, win, request))
{
    int rc = tmpi_next_(origin_addr, origin_count, origin_datatype, target_rank, target_disp,
                        target_count, target_datatype, win, request);
    RMA_COUNT(TMPI_RMA_GET, origin_addr, origin_count, origin_datatype, 0, MPI_BYTE, MPI_OP_NULL,
              target_rank, win);
    return rc;
}

TMPI_ENTRY(Accumulate,
           (const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
            int target_rank, MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype,
            MPI_Op op, MPI_Win win),
           (origin_addr, origin_count, origin_datatype, target_rank, target_disp, target_count,
            target_datatype, op, win))
{
    int rc = tmpi_next_(origin_addr, origin_count, origin_datatype, target_rank, target_disp,
                        target_count, target_datatype, op, win);
    RMA_COUNT(TMPI_RMA_ACC, origin_addr, origin_count, origin_datatype, 0, MPI_BYTE, op,
              target_rank, win);
    return rc;
}

TMPI_ENTRY(Raccumulate,
           (const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
            int target_rank, MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype,
            MPI_Op op, MPI_Win win, MPI_Request *request),
           (origin_addr, origin_count, origin_datatype, target_rank, target_disp, target_count,
            target_datatype, op, win, request))
{
    int rc = tmpi_next_(origin_addr, origin_count, origin_datatype, target_rank, target_disp,
                        target_count, target_datatype, op, win, request);
    RMA_COUNT(TMPI_RMA_ACC, origin_addr, origin_count, origin_datatype, 0, MPI_BYTE, op,
              target_rank, win);
    return rc;
}

TMPI_ENTRY(Get_accumulate,
           (const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
            void *result_addr, int result_count, MPI_Datatype result_datatype, int target_rank,
            MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Op op,
            MPI_Win win),
           (origin_addr, origin_count, origin_datatype, result_addr, result_count, result_datatype,
            target_rank, target_disp, target_count, target_datatype, op, win))
{
    int rc = tmpi_next_(origin_addr, origin_count, origin_datatype, result_addr, result_count,
                        result_datatype, target_rank, target_disp, target_count, target_datatype,
                        op, win);
    RMA_COUNT(TMPI_RMA_GET_ACC, origin_addr, origin_count, origin_datatype, result_count,
              result_datatype, op, target_rank, win);
    return rc;
}

TMPI_ENTRY(Rget_accumulate,
           (const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
            void *result_addr, int result_count, MPI_Datatype result_datatype, int target_rank,
            MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Op op,
            MPI_Win win, MPI_Request *request),
           (origin_addr, origin_count, origin_datatype, result_addr, result_count, result_datatype,
            target_rank, target_disp, target_count, target_datatype, op, win, request))
{
    int rc = tmpi_next_(origin_addr, origin_count, origin_datatype, result_addr, result_count,
                        result_datatype, target_rank, target_disp, target_count, target_datatype,
                        op, win, request);
    RMA_COUNT(TMPI_RMA_GET_ACC, origin_addr, origin_count, origin_datatype, result_count,
              result_datatype, op, target_rank, win);
    return rc;
}

TMPI_ENTRY(Fetch_and_op,
           (const void *origin_addr, void *result_addr, MPI_Datatype datatype, int target_rank,
            MPI_Aint target_disp, MPI_Op op, MPI_Win win),
           (origin_addr, result_addr, datatype, target_rank, target_disp, op, win))
{
    int rc = tmpi_next_(origin_addr, result_addr, datatype, target_rank, target_disp, op, win);
    RMA_COUNT(TMPI_RMA_GET_ACC, origin_addr, 1, datatype, 1, datatype, op, target_rank, win);
    return rc;
}

TMPI_ENTRY(Compare_and_swap,
           (const void *origin_addr, const void *compare_addr, void *result_addr,
            MPI_Datatype datatype, int target_rank, MPI_Aint target_disp, MPI_Win win),
           (origin_addr, compare_addr, result_addr, datatype, target_rank, target_disp, win))
{
    int rc =
        tmpi_next_(origin_addr, compare_addr, result_addr, datatype, target_rank, target_disp, win);
    RMA_COUNT(TMPI_RMA_CAS, origin_addr, 1, datatype, 1, datatype, MPI_OP_NULL, target_rank, win);
    return rc;
}
