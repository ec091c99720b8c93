/*
 * pmpi_win.c - window constructors, MPI_Win_fence and MPI_Win_free (MPI_X
 * and PMPI_X, tmpi.h) under the online timing model.  All of them are
 * collective over the window's group and block in the host's MPI until
 * every member is in; declared to the model (tmpi_vt_sync_begin) a member
 * that waits there does not hold the model back, and the members leave at
 * the latest one's clock.  Each window made under the online model keeps a
 * private duplicate of its communicator (with the twin the declarations
 * need), freed with the window.  Without the online model these calls
 * pass through unchanged.  The other synchronisation calls (lock, unlock,
 * flush, sync, the post-start-complete-wait group) are not declared; those
 * that complete the origin's transactions move its clock to the model's
 * completion of them, and a target's part in them (Open MPI's pt2pt
 * component needs the target to progress) comes from the target's MPI
 * calls, also while it waits for the model (rank_vtime.c, host_progress).
 */
#include "tmpi.h"

/* After a window was made over comm by every member of comm: its private
 * duplicate (every member dups, to keep the collective matched). */
static void remember_group(MPI_Comm comm, MPI_Win win)
{
    MPI_Comm c = MPI_COMM_NULL;
    tmpi_win *w = tmpi_win_get(win);
    if (PMPI_Comm_dup(comm, &c) != MPI_SUCCESS) {
        return;
    }
    tmpi_vt_comm_new(c);
    if (w == NULL) {
        PMPI_Comm_free(&c);
        return;
    }
    w->group = c;
    w->has_group = 1;
}

/* The window's state when it keeps a duplicate (made under the online
 * model) and this call keeps virtual time, else NULL. */
static tmpi_win *with_group(MPI_Win win)
{
    tmpi_win *w = tmpi_vt_active() ? tmpi_win_get(win) : NULL;
    return w != NULL && w->has_group ? w : NULL;
}

/* A synchronisation call on win that completes this rank's one-sided
 * transactions to window rank `rank` (-1: all): with the online model the
 * clock moves to the latest completion the model gives them (rank_vtime.c,
 * tmpi_vt_rma_complete). */
static void complete_rma(MPI_Win win, int rank)
{
    tmpi_win *w;
    if (!tmpi_vt_online || !tmpi_vt_active() || (w = tmpi_win_get(win)) == NULL ||
        rank >= w->size) {
        return;
    }
    tmpi_vt_rma_complete(w, rank >= 0 ? w->world[rank] : -1);
}

/* The body of a window constructor over COMM: declared, and the window's
 * duplicate kept when it succeeded. */
#define MAKE_WINDOW(COMM, WIN, CALL)                                                               \
    int declared = tmpi_vt_sync_begin(COMM);                                                       \
    int rc = CALL;                                                                                 \
    if (declared && rc == MPI_SUCCESS && *(WIN) != MPI_WIN_NULL) {                                 \
        remember_group(COMM, *(WIN));                                                              \
    }                                                                                              \
    tmpi_vt_sync_end(COMM, declared);                                                              \
    return rc

TMPI_ENTRY(Win_create,
           (void *base, MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, MPI_Win *win),
           (base, size, disp_unit, info, comm, win))
{
    MAKE_WINDOW(comm, win, tmpi_next_(base, size, disp_unit, info, comm, win));
}

TMPI_ENTRY(Win_allocate,
           (MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, void *baseptr,
            MPI_Win *win),
           (size, disp_unit, info, comm, baseptr, win))
{
    MAKE_WINDOW(comm, win, tmpi_next_(size, disp_unit, info, comm, baseptr, win));
}

TMPI_ENTRY(Win_allocate_shared,
           (MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, void *baseptr,
            MPI_Win *win),
           (size, disp_unit, info, comm, baseptr, win))
{
    MAKE_WINDOW(comm, win, tmpi_next_(size, disp_unit, info, comm, baseptr, win));
}

TMPI_ENTRY(Win_create_dynamic, (MPI_Info info, MPI_Comm comm, MPI_Win *win), (info, comm, win))
{
    MAKE_WINDOW(comm, win, tmpi_next_(info, comm, win));
}

TMPI_ENTRY(Win_fence, (int assert, MPI_Win win), (assert, win))
{
    /* this rank's transactions first: the members then leave at the
     * latest clock, so every target after every transaction to it */
    complete_rma(win, -1);
    tmpi_win *w = with_group(win);
    int declared = w != NULL && tmpi_vt_sync_begin(w->group);
    int rc = tmpi_next_(assert, win);
    if (declared) {
        tmpi_vt_sync_end(w->group, declared);
    }
    return rc;
}

TMPI_ENTRY(Win_free, (MPI_Win * win), (win))
{
    tmpi_win *w = with_group(*win);
    MPI_Comm g = w != NULL ? w->group : MPI_COMM_NULL;
    int declared = w != NULL && tmpi_vt_sync_begin(g);
    int rc = tmpi_next_(win); /* w goes with the window when it succeeds */
    if (w != NULL) {
        tmpi_vt_sync_end(g, declared);
        if (rc == MPI_SUCCESS) {
            PMPI_Comm_free(&g);
        }
    }
    return rc;
}

/* The other synchronisation calls: wrapped so that a rank inside one
 * counts as in MPI, not computing, for the online model (whose 2 s valve
 * lets only ranks in MPI go, utils/run_model.c).  Those that complete the
 * origin's transactions to window rank RANK (-1: all of them) move the
 * clock to their completion once the host's call has returned;
 * MPI_Win_flush_local is taken as the whole completion too (a put's local
 * completion comes earlier). */
#define COMPLETING(NAME, PARAMS, ARGS, RANK)                                                       \
    TMPI_ENTRY(NAME, PARAMS, ARGS)                                                                 \
    {                                                                                              \
        int rc = tmpi_next_ ARGS;                                                                  \
        if (rc == MPI_SUCCESS) {                                                                   \
            complete_rma(win, RANK);                                                               \
        }                                                                                          \
        return rc;                                                                                 \
    }

COMPLETING(Win_unlock, (int rank, MPI_Win win), (rank, win), rank)
COMPLETING(Win_unlock_all, (MPI_Win win), (win), -1)
COMPLETING(Win_flush, (int rank, MPI_Win win), (rank, win), rank)
COMPLETING(Win_flush_all, (MPI_Win win), (win), -1)
COMPLETING(Win_flush_local, (int rank, MPI_Win win), (rank, win), rank)
COMPLETING(Win_flush_local_all, (MPI_Win win), (win), -1)
COMPLETING(Win_complete, (MPI_Win win), (win), -1)

/* The others pass through. */
#define PASSING(NAME, PARAMS, ARGS)                                                                \
    TMPI_ENTRY(NAME, PARAMS, ARGS)                                                                 \
    {                                                                                              \
        return tmpi_next_ ARGS;                                                                    \
    }

PASSING(Win_lock, (int lock_type, int rank, int assert, MPI_Win win),
        (lock_type, rank, assert, win))
PASSING(Win_lock_all, (int assert, MPI_Win win), (assert, win))
PASSING(Win_sync, (MPI_Win win), (win))
PASSING(Win_start, (MPI_Group group, int assert, MPI_Win win), (group, assert, win))
PASSING(Win_post, (MPI_Group group, int assert, MPI_Win win), (group, assert, win))
PASSING(Win_wait, (MPI_Win win), (win))
PASSING(Win_test, (MPI_Win win, int *flag), (win, flag))
