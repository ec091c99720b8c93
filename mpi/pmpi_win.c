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
 * calls, also while it waits for the model (vtime.c, pause_briefly).
 */
#include "tmpi.h"

#include <stdlib.h>

static int win_keyval = MPI_KEYVAL_INVALID;

/* After a window was made over comm by every member of comm. */
static void remember_group(MPI_Comm comm, MPI_Win win)
{
    MPI_Comm *dup;
    if (win == MPI_WIN_NULL) {
        return;
    }
    if (win_keyval == MPI_KEYVAL_INVALID &&
        PMPI_Win_create_keyval(MPI_WIN_NULL_COPY_FN, MPI_WIN_NULL_DELETE_FN, &win_keyval, NULL) !=
            MPI_SUCCESS) {
        return;
    }
    /* every member dups, even one short of memory, to keep the collective
     * matched; a member that cannot keep it frees it again */
    dup = malloc(sizeof *dup);
    MPI_Comm c = MPI_COMM_NULL;
    if (PMPI_Comm_dup(comm, &c) != MPI_SUCCESS) {
        free(dup);
        return;
    }
    tmpi_vt_comm_new(c);
    if (dup == NULL || PMPI_Win_set_attr(win, win_keyval, dup) != MPI_SUCCESS) {
        PMPI_Comm_free(&c);
        free(dup);
        return;
    }
    *dup = c;
}

/* The duplicate kept on win, or NULL. */
static MPI_Comm *group_of(MPI_Win win)
{
    MPI_Comm *dup = NULL;
    int flag = 0;
    if (win_keyval == MPI_KEYVAL_INVALID || win == MPI_WIN_NULL ||
        PMPI_Win_get_attr(win, win_keyval, &dup, &flag) != MPI_SUCCESS || !flag) {
        return NULL;
    }
    return dup;
}

/* A synchronisation call on win that completes this rank's one-sided
 * transactions to window rank `rank` (-1: all): with the online model the
 * clock moves to the latest completion the model gives them (vtime.c,
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
    if (declared && rc == MPI_SUCCESS) {                                                           \
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
    MPI_Comm *g = tmpi_vt_active() ? group_of(win) : NULL;
    int declared = g != NULL && tmpi_vt_sync_begin(*g);
    int rc = tmpi_next_(assert, win);
    if (declared) {
        tmpi_vt_sync_end(*g, declared);
    }
    return rc;
}

TMPI_ENTRY(Win_free, (MPI_Win * win), (win))
{
    MPI_Comm *g = tmpi_vt_active() ? group_of(*win) : NULL;
    int declared = g != NULL && tmpi_vt_sync_begin(*g);
    int rc = tmpi_next_(win);
    if (g != NULL) {
        tmpi_vt_sync_end(*g, declared);
        if (rc == MPI_SUCCESS) {
            PMPI_Comm_free(g);
            free(g);
        }
    }
    return rc;
}

/* The other synchronisation calls: wrapped so that a rank inside one
 * counts as in MPI, not computing, for the online model (whose 2 s valve
 * lets only ranks in MPI go, utils/run_model.c); those that complete
 * transactions at the origin (unlock, flush, complete) then move the
 * clock to their completion.  MPI_Win_flush_local is taken as the whole
 * completion too (a put's local completion comes earlier). */
/* A synchronisation call that completes the origin's transactions to
 * window rank RANK (-1: all of them) once the host's call has returned. */
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
