/*
 * vt_lockcpu.c - the layer's own work is not the program's computation
 * (tests/mpi/vtime.sh, run with tests/mpi/fake_cpu.c preloaded after the
 * layer at --cpu-scale 1, where each pthread_mutex_lock is 1 ms of CPU):
 *
 *   vt_lockcpu N L
 *
 * One rank makes N MPI calls, locking a mutex of its own L times before
 * each (its "computation"), and prints the virtual time they took, in
 * picoseconds:
 *   virtual V
 * No network: V must be N x L x 1 ms, the program's own locks only.  It was
 * N x (L + 1) ms when the layer read the thread's CPU time at a call's return
 * before it told the online model its state (mpi/rank_vtime.c,
 * tmpi_vt_leave), so its locking counted as compute.
 */
#include <math.h>
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static pthread_mutex_t own = PTHREAD_MUTEX_INITIALIZER;

int main(int argc, char **argv)
{
    char name[MPI_MAX_PROCESSOR_NAME];
    int len;
    MPI_Init(&argc, &argv);
    int n = argc > 1 ? atoi(argv[1]) : 10, locks = argc > 2 ? atoi(argv[2]) : 0;
    double t0 = MPI_Wtime();
    for (int i = 0; i < n; i++) {
        for (int k = 0; k < locks; k++) {
            pthread_mutex_lock(&own);
            pthread_mutex_unlock(&own);
        }
        MPI_Get_processor_name(name, &len);
    }
    double t1 = MPI_Wtime();
    printf("virtual %lld\n", llround((t1 - t0) * 1e12));
    MPI_Finalize();
    return 0;
}
