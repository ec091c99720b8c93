/*
 * pmpi_win.c - window constructors, MPI_Win_fence and MPI_Win_free (MPI_X
 * and PMPI_X, tmpi.h) under the online timing model.  All of them are
 * collective over the window's group and block in the host's MPI until
 * every member is in; declared to the model (tmpi_vt_sync_begin) a member
 * that waits there does not hold the model back, and the members leave at
 * the latest one's clock.  Each window made under the online model keeps a
 * private duplicate of its communicator (with the twin the declarations
 * need), freed with the window.  Without the online model these calls
 * pass through unchanged.  Passive-target synchronisation (lock, unlock,
 * flush) involves no other member and is not declared.
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
