/*
 * bench_hosts - the two ways a message's counter updates could reach the
 * host that owns them, measured between 2 ranks over Open MPI's TCP
 * transport (bench/bench_hosts.sh; doc/mpi.md, "Across hosts"):
 *
 *   rma    rank 1 exposes a window of counters; rank 0 makes each update an
 *          MPI_Accumulate (MPI_SUM, passive target, lock_all) and completes
 *          the message with MPI_Win_flush;
 *   agent  rank 1 runs a thread that probes for messages of updates,
 *          applies them and acknowledges; rank 0 sends one message of all
 *          the updates and waits for the acknowledgement (what mpi/hosts.c
 *          does).
 *
 * Meanwhile rank 1's main thread either waits in MPI_Barrier ("in MPI":
 * Open MPI progresses) or computes without calling MPI ("computing"), as an
 * application rank does between its calls.  Prints "MODE TARGET us" per
 * message of UPDATES updates.
 *
 *   bench_hosts rma|agent mpi|compute [MESSAGES [UPDATES]]
 */
#include <mpi.h>

#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define NCOUNTERS 4096
#define MAX_UPDATES 256

static uint64_t counters[NCOUNTERS];
static MPI_Comm agent_comm;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* As mpi/hosts.c's agent: probe, then yields, then 100 us sleeps while
 * idle.  A message of no updates (from its own rank) stops it. */
static void *agent_main(void *arg)
{
    uint64_t buf[2 * MAX_UPDATES];
    unsigned idle = 0;
    (void)arg;
    for (;;) {
        int flag = 0, count = 0;
        MPI_Status st;
        MPI_Iprobe(MPI_ANY_SOURCE, 1, agent_comm, &flag, &st);
        if (!flag) {
            if (++idle < 1024) {
                sched_yield();
            } else {
                struct timespec ts = {0, 100000};
                nanosleep(&ts, NULL);
            }
            continue;
        }
        idle = 0;
        MPI_Get_count(&st, MPI_UINT64_T, &count);
        MPI_Recv(buf, count, MPI_UINT64_T, st.MPI_SOURCE, 1, agent_comm, MPI_STATUS_IGNORE);
        if (count == 0) {
            break;
        }
        for (int i = 0; i + 1 < count; i += 2) {
            __atomic_fetch_add(&counters[buf[i] % NCOUNTERS], buf[i + 1], __ATOMIC_RELAXED);
        }
        MPI_Send(NULL, 0, MPI_BYTE, st.MPI_SOURCE, 2, agent_comm);
    }
    return NULL;
}

/* Rank 1 while rank 0 measures: in MPI, or computing until told to stop
 * (a flag in its own memory that rank 0's final message sets). */
static void target_wait(int compute)
{
    if (!compute) {
        MPI_Barrier(MPI_COMM_WORLD);
        return;
    }
    int done = 0;
    MPI_Request r;
    MPI_Irecv(&done, 1, MPI_INT, 0, 9, MPI_COMM_WORLD, &r);
    volatile double x = 1;
    for (;;) {
        for (int i = 0; i < 20000000; i++) { /* ~20 ms of arithmetic, no MPI */
            x = x * 1.0000001 + 1e-9;
        }
        int flag = 0;
        MPI_Test(&r, &flag, MPI_STATUS_IGNORE);
        if (flag) {
            break;
        }
    }
    MPI_Barrier(MPI_COMM_WORLD);
}

static void origin_done(int compute)
{
    if (compute) {
        int one = 1;
        MPI_Send(&one, 1, MPI_INT, 1, 9, MPI_COMM_WORLD);
    }
    MPI_Barrier(MPI_COMM_WORLD);
}

static double run_rma(int rank, int compute, int messages, int updates)
{
    MPI_Win win;
    double t = 0;
    MPI_Win_create(counters, sizeof counters, sizeof counters[0], MPI_INFO_NULL, MPI_COMM_WORLD,
                   &win);
    if (rank == 0) {
        uint64_t one = 1;
        MPI_Win_lock_all(0, win);
        double t0 = now();
        for (int m = 0; m < messages; m++) {
            for (int u = 0; u < updates; u++) {
                MPI_Accumulate(&one, 1, MPI_UINT64_T, 1, (m * 7 + u * 13) % NCOUNTERS, 1,
                               MPI_UINT64_T, MPI_SUM, win);
            }
            MPI_Win_flush(1, win);
        }
        t = (now() - t0) / messages;
        MPI_Win_unlock_all(win);
        origin_done(compute);
    } else {
        target_wait(compute);
    }
    MPI_Win_free(&win);
    return t;
}

static double run_agent(int rank, int compute, int messages, int updates)
{
    pthread_t th;
    double t = 0;
    MPI_Comm_dup(MPI_COMM_WORLD, &agent_comm);
    if (rank == 1) {
        pthread_create(&th, NULL, agent_main, NULL);
        target_wait(compute);
        MPI_Send(NULL, 0, MPI_UINT64_T, 1, 1, agent_comm);
        pthread_join(th, NULL);
    } else {
        uint64_t buf[2 * MAX_UPDATES];
        double t0 = now();
        for (int m = 0; m < messages; m++) {
            for (int u = 0; u < updates; u++) {
                buf[2 * u] = (uint64_t)((m * 7 + u * 13) % NCOUNTERS);
                buf[2 * u + 1] = 1;
            }
            MPI_Send(buf, 2 * updates, MPI_UINT64_T, 1, 1, agent_comm);
            MPI_Recv(NULL, 0, MPI_BYTE, 1, 2, agent_comm, MPI_STATUS_IGNORE);
        }
        t = (now() - t0) / messages;
        origin_done(compute);
    }
    MPI_Comm_free(&agent_comm);
    return t;
}

int main(int argc, char **argv)
{
    int rank, size, provided;
    if (argc < 3) {
        fprintf(stderr, "usage: bench_hosts rma|agent mpi|compute [MESSAGES [UPDATES]]\n");
        return 2;
    }
    int agent = strcmp(argv[1], "agent") == 0, compute = strcmp(argv[2], "compute") == 0;
    int messages = argc > 3 ? atoi(argv[3]) : 2000;
    int updates = argc > 4 ? atoi(argv[4]) : 16;
    if (updates < 1 || updates > MAX_UPDATES || messages < 1) {
        fprintf(stderr, "bench_hosts: 1..%d updates, at least 1 message\n", MAX_UPDATES);
        return 2;
    }
    /* Open MPI 4.1's one-sided transport over TCP (osc pt2pt) refuses
     * windows under MPI_THREAD_MULTIPLE, which the agent needs */
    int want = agent ? MPI_THREAD_MULTIPLE : MPI_THREAD_SINGLE;
    MPI_Init_thread(&argc, &argv, want, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 2 || provided < want) {
        fprintf(stderr, "bench_hosts: needs 2 ranks (and MPI_THREAD_MULTIPLE for agent)\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    double t = agent ? run_agent(rank, compute, messages, updates)
                     : run_rma(rank, compute, messages, updates);
    if (rank == 0) {
        printf("%s %s %.2f\n", argv[1], argv[2], t * 1e6);
    }
    MPI_Finalize();
    return 0;
}
