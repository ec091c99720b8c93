/*
 * vt_sync.c - calls that are collective in the host's MPI but move no
 * modelled traffic, under `torusemu run --virtual-time` with the online
 * model (tests/mpi/vtime.sh).
 *
 *   vt_sync MODE
 *
 * Three rounds: rank 0 sends 8 bytes to rank 1 (MPI_Isend), then both
 * call the collective of the round while rank 1 first takes the message
 * with a blocking MPI_Recv.  Rank 0 reaches the collective at once and
 * waits in the host's MPI for rank 1, which waits for the model to deliver
 * the message: unless the model knows rank 0 is inside the collective it
 * must not pass rank 0's clock, and both wait until the launcher's 2 s
 * valve lets rank 0 go.  Declared, the collective joins the clocks: rank 0
 * leaves it at rank 1's clock, the message's delivery.
 *
 * MODE: comm (rounds: MPI_Comm_dup, MPI_Comm_split, MPI_Comm_create) or
 * topo (MPI_Cart_create, MPI_Cart_sub, MPI_Comm_split_type) or win
 * (MPI_Win_allocate, MPI_Win_fence, MPI_Win_free) or wincreate
 * (MPI_Win_create, MPI_Win_fence, MPI_Win_free) or lock: a window made
 * with MPI_Win_create, and in every round rank 0, after its send, locks
 * and unlocks rank 1's window (Open MPI's pt2pt component, which serves a
 * lock at the target: rank 0's unlock waits until rank 1 makes progress,
 * while rank 1 waits for the model's delivery), then both call
 * MPI_Barrier.  Or eager: no collective; in every round rank 0, after its
 * 8-byte send, sends 6,000 bytes with a blocking MPI_Send, which rank 1
 * receives after the 8 bytes.  The emulated Gemini sends that message
 * eagerly (its eager limit is 8,192 bytes), so the model lets rank 0 go on
 * at its clock; Open MPI's shared-memory transport by default sends it by
 * rendezvous (eager limit 4,096 bytes), which holds rank 0 in the host's
 * MPI_Send until rank 1 posts that receive, while rank 1 waits for the
 * model to deliver the 8 bytes, which it cannot while rank 0 sits at its
 * clock: only the 2 s valve ended that (the launcher now raises the host
 * transport's eager limit to the machine's).  Rank 0 prints its clock in
 * picoseconds after each round.
 */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static long long ps(double seconds)
{
    return llround(seconds * 1e12);
}

static MPI_Comm made[3];
static MPI_Win win = MPI_WIN_NULL;
static double winbuf[4];

static void collective(const char *mode, int round)
{
    MPI_Group g;
    int dims[1] = {0}, periods[1] = {0}, keep[1] = {0};
    if (strcmp(mode, "comm") == 0) {
        if (round == 0) {
            MPI_Comm_dup(MPI_COMM_WORLD, &made[0]);
        } else if (round == 1) {
            MPI_Comm_split(MPI_COMM_WORLD, 1, 0, &made[1]);
        } else {
            MPI_Comm_group(MPI_COMM_WORLD, &g);
            MPI_Comm_create(MPI_COMM_WORLD, g, &made[2]);
            MPI_Group_free(&g);
        }
    } else if (strcmp(mode, "topo") == 0) {
        if (round == 0) {
            MPI_Comm_size(MPI_COMM_WORLD, &dims[0]);
            MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &made[0]);
        } else if (round == 1) {
            MPI_Cart_sub(made[0], keep, &made[1]);
        } else {
            MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &made[2]);
        }
    } else if (strcmp(mode, "win") == 0 || strcmp(mode, "wincreate") == 0) {
        if (round == 0 && mode[3] == '\0') {
            double *base;
            MPI_Win_allocate(4 * sizeof(double), sizeof(double), MPI_INFO_NULL, MPI_COMM_WORLD,
                             &base, &win);
        } else if (round == 0) {
            MPI_Win_create(winbuf, sizeof winbuf, sizeof(double), MPI_INFO_NULL, MPI_COMM_WORLD,
                           &win);
        } else if (round == 1) {
            MPI_Win_fence(0, win);
        } else {
            MPI_Win_free(&win);
        }
    } else if (strcmp(mode, "lock") == 0) {
        MPI_Barrier(MPI_COMM_WORLD);
    } else if (strcmp(mode, "eager") == 0) {
        /* the eager sends are the round; no collective */
    } else {
        fprintf(stderr, "vt_sync: unknown mode %s\n", mode);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
}

int main(int argc, char **argv)
{
    int rank;
    char byte[8] = {0};
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    for (int i = 0; i < 3; i++) {
        made[i] = MPI_COMM_NULL;
    }
    if (argc != 2) {
        if (rank == 0) {
            fprintf(stderr, "usage: vt_sync comm|topo|win|wincreate|lock|eager\n");
        }
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    int lock = strcmp(argv[1], "lock") == 0, eager = strcmp(argv[1], "eager") == 0;
    static char big[6000];
    if (lock) {
        MPI_Win_create(winbuf, sizeof winbuf, sizeof(double), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    }
    for (int round = 0; round < 3; round++) {
        MPI_Request r = MPI_REQUEST_NULL;
        if (rank == 0) {
            MPI_Isend(byte, 8, MPI_BYTE, 1, 5, MPI_COMM_WORLD, &r);
            if (lock) {
                MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 1, 0, win);
                MPI_Win_unlock(1, win);
            }
            if (eager) {
                MPI_Send(big, (int)sizeof big, MPI_BYTE, 1, 7, MPI_COMM_WORLD);
            }
        } else if (rank == 1) {
            MPI_Recv(byte, 8, MPI_BYTE, 0, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            if (eager) {
                MPI_Recv(big, (int)sizeof big, MPI_BYTE, 0, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            }
        }
        collective(argv[1], round);
        MPI_Wait(&r, MPI_STATUS_IGNORE);
        if (rank == 0) {
            printf("round %d %lld ps\n", round, ps(MPI_Wtime()));
        }
    }
    if (lock) {
        MPI_Win_free(&win);
    }
    for (int i = 0; i < 3; i++) {
        if (made[i] != MPI_COMM_NULL) {
            MPI_Comm_free(&made[i]);
        }
    }
    MPI_Finalize();
    return 0;
}
