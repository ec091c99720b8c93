/*
 * rma_ops - one-sided operations issued by rank 0 on the window of a target
 * rank, for the RMA tests:
 *
 *   rma_ops [--bytes B] [--target T] [--create] [--pause MS] OP...
 *   OP: put get acc getacc getnoop fop cas rput rget racc rgetacc
 * (getnoop: MPI_Get_accumulate with MPI_NO_OP and null origin arguments)
 *
 * The window is MPI_Win_allocate'd (--create: MPI_Win_create'd over a
 * buffer of the program's) on every rank and holds B bytes of ints
 * (B a multiple of 4); rank 0 locks the target (passive target), issues the
 * operations in order with a flush after each, and unlocks.  put and get are
 * checked: the target's window (put) or the origin buffer (get) must hold
 * the other side's data.  Exit status 1 when a check fails.  Only the
 * operations are counted: MPI_Pcontrol(0) keeps the barriers around them
 * out of the store.  --pause MS: every rank sleeps MS milliseconds after
 * the operations, before the window goes (a sampled run's snapshots then
 * show the final counts before the job ends: tests/mpi/hosts.sh).
 */
#include <mpi.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int val(int who, int i)
{
    return who * 100003 + i * 7919 + 1;
}

int main(int argc, char **argv)
{
    int rank, size, target = 1, bytes = 1024, bad = 0, first = 0, create = 0, pause_ms = 0;
    MPI_Init(&argc, &argv);
    MPI_Pcontrol(0);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--bytes") == 0 && i + 1 < argc) {
            bytes = atoi(argv[++i]);
        } else if (strcmp(argv[i], "--target") == 0 && i + 1 < argc) {
            target = atoi(argv[++i]);
        } else if (strcmp(argv[i], "--pause") == 0 && i + 1 < argc) {
            pause_ms = atoi(argv[++i]);
        } else if (strcmp(argv[i], "--create") == 0) {
            create = 1;
        } else if (first == 0) {
            first = i;
        }
    }
    if (bytes < 4 || bytes % 4 != 0 || target <= 0 || target >= size || first == 0) {
        if (rank == 0) {
            fprintf(stderr,
                    "usage: rma_ops [--bytes B] [--target T] OP... (B a multiple of 4, "
                    "0 < T < %d)\n",
                    size);
        }
        MPI_Finalize();
        return 2;
    }
    int n = bytes / 4;
    int *win_mem, *origin = calloc((size_t)n, sizeof(int)), *result = calloc((size_t)n, 4);
    int one = 5, cmp = 0, old = 0;
    MPI_Win win;
    if (create) {
        win_mem = calloc((size_t)n, sizeof(int));
        MPI_Win_create(win_mem, (MPI_Aint)bytes, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    } else {
        MPI_Win_allocate((MPI_Aint)bytes, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win_mem,
                         &win);
    }
    for (int i = 0; i < n; i++) {
        win_mem[i] = val(rank, i);
        origin[i] = val(1000 + rank, i);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        MPI_Request req;
        MPI_Win_lock(MPI_LOCK_SHARED, target, 0, win);
        MPI_Pcontrol(1);
        for (int a = first; a < argc; a++) {
            const char *op = argv[a];
            if (strcmp(op, "--bytes") == 0 || strcmp(op, "--target") == 0 ||
                strcmp(op, "--pause") == 0) {
                a++;
                continue;
            }
            if (strcmp(op, "--create") == 0) {
                continue;
            }
            if (strcmp(op, "put") == 0) {
                MPI_Put(origin, n, MPI_INT, target, 0, n, MPI_INT, win);
            } else if (strcmp(op, "get") == 0) {
                MPI_Get(result, n, MPI_INT, target, 0, n, MPI_INT, win);
            } else if (strcmp(op, "acc") == 0) {
                MPI_Accumulate(origin, n, MPI_INT, target, 0, n, MPI_INT, MPI_SUM, win);
            } else if (strcmp(op, "getacc") == 0) {
                MPI_Get_accumulate(origin, n, MPI_INT, result, n, MPI_INT, target, 0, n, MPI_INT,
                                   MPI_SUM, win);
            } else if (strcmp(op, "getnoop") == 0) {
                MPI_Get_accumulate(NULL, 0, MPI_DATATYPE_NULL, result, n, MPI_INT, target, 0, n,
                                   MPI_INT, MPI_NO_OP, win);
            } else if (strcmp(op, "fop") == 0) {
                MPI_Fetch_and_op(&one, &old, MPI_INT, target, 0, MPI_SUM, win);
            } else if (strcmp(op, "cas") == 0) {
                MPI_Compare_and_swap(&one, &cmp, &old, MPI_INT, target, 0, win);
            } else if (strcmp(op, "rput") == 0) {
                MPI_Rput(origin, n, MPI_INT, target, 0, n, MPI_INT, win, &req);
                MPI_Wait(&req, MPI_STATUS_IGNORE);
            } else if (strcmp(op, "rget") == 0) {
                MPI_Rget(result, n, MPI_INT, target, 0, n, MPI_INT, win, &req);
                MPI_Wait(&req, MPI_STATUS_IGNORE);
            } else if (strcmp(op, "racc") == 0) {
                MPI_Raccumulate(origin, n, MPI_INT, target, 0, n, MPI_INT, MPI_SUM, win, &req);
                MPI_Wait(&req, MPI_STATUS_IGNORE);
            } else if (strcmp(op, "rgetacc") == 0) {
                MPI_Rget_accumulate(origin, n, MPI_INT, result, n, MPI_INT, target, 0, n, MPI_INT,
                                    MPI_SUM, win, &req);
                MPI_Wait(&req, MPI_STATUS_IGNORE);
            } else {
                fprintf(stderr, "rma_ops: unknown operation '%s'\n", op);
                MPI_Abort(MPI_COMM_WORLD, 2);
            }
            MPI_Win_flush(target, win);
            if (a == argc - 1 && a == first && strcmp(op, "get") == 0) {
                for (int i = 0; i < n; i++) {
                    bad |= result[i] != val(target, i);
                }
            }
        }
        MPI_Pcontrol(0);
        MPI_Win_unlock(target, win);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == target && first == argc - 1 && strcmp(argv[first], "put") == 0) {
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, target, 0, win);
        for (int i = 0; i < n; i++) {
            bad |= win_mem[i] != val(1000, i);
        }
        MPI_Win_unlock(target, win);
    }
    if (bad) {
        fprintf(stderr, "rma_ops: rank %d: wrong data after %s\n", rank, argv[first]);
    }
    if (pause_ms > 0) {
        struct timespec ts = {pause_ms / 1000, (long)(pause_ms % 1000) * 1000000};
        nanosleep(&ts, NULL);
    }
    MPI_Win_free(&win);
    if (create) {
        free(win_mem);
    }
    free(origin);
    free(result);
    MPI_Finalize();
    return bad;
}
