/*
 * vt_congest.c - traffic that competes, for the online timing model
 * (tests/mpi/vtime.sh, doc/virtual-time.md):
 *
 *   vt_congest BYTES MODE [SECONDS]
 *
 * incast: every rank but 0 sends BYTES to rank 0 at once (their packets
 * meet on the links into rank 0's node); alone: only rank 1 does.  Then
 * all ranks pass a barrier and rank 0 watches the store while the job
 * still runs: it prints "stalls during the run" as soon as the counters
 * the timing model fills are above 0 (Gemini: inq + credit stalls of all
 * tiles; BG/Q: receive-FIFO occupancy of all links and VCs), or "no
 * stalls during the run" after SECONDS (default 20) of host time without
 * any.  On BG/Q it waits for the message unit's pending requests too
 * (PEVT_MU_PORT0_PEND_RD + _WRT of all nodes) and prints "message-unit
 * requests pending during the run", or "none pending during the run".
 */
#include "torusemu.h"

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static uint64_t stalls(const temu_session *s)
{
    const temu_machine *m = temu_session_machine(s);
    uint64_t sum = 0;
    if (m->system == TEMU_SYSTEM_BGQ) {
        for (int64_t n = 0; n < m->nnodes; n++) {
            for (int l = 0; l < 2 * m->ndims; l++) {
                for (int vc = 0; vc < TEMU_BGQ_VCS; vc++) {
                    sum +=
                        temu_counter_read(s, temu_idx_bgq_nw(m, n, l, TEMU_BGQ_NW_RECV_FIFO, vc));
                }
            }
        }
        return sum;
    }
    for (int64_t r = 0; m->system == TEMU_SYSTEM_GEMINI && r < m->nrouters; r++) {
        for (int t = 0; t < TEMU_GEMINI_TILES; t++) {
            sum += temu_counter_read(s, temu_idx_gemini_tile(m, r, t, TEMU_TILE_INQ_STALL));
            sum += temu_counter_read(s, temu_idx_gemini_tile(m, r, t, TEMU_TILE_CREDIT_STALL));
        }
    }
    return sum;
}

/* BG/Q: the message unit's pending reads and writes, all nodes; 1 elsewhere
 * (nothing to wait for). */
static uint64_t mu_pending(const temu_session *s)
{
    const temu_machine *m = temu_session_machine(s);
    uint64_t sum = 0;
    if (m->system != TEMU_SYSTEM_BGQ) {
        return 1;
    }
    for (int64_t n = 0; n < m->nnodes; n++) {
        sum += temu_counter_read(s, temu_idx_bgq_mu(m, n, TEMU_MU_PORT0_PEND_RD));
        sum += temu_counter_read(s, temu_idx_bgq_mu(m, n, TEMU_MU_PORT0_PEND_WRT));
    }
    return sum;
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int n = argc > 1 ? atoi(argv[1]) : 65536;
    int incast = argc > 2 && strcmp(argv[2], "incast") == 0;
    int watch = argc > 3 ? atoi(argv[3]) : 20;
    char *buf = calloc((size_t)n * (size_t)size + 1, 1);
    memset(buf, 0x5a, (size_t)n * (size_t)size); /* not compressible */
    if (rank == 0) {
        MPI_Request *r = calloc((size_t)size, sizeof *r);
        int k = 0;
        for (int src = 1; src < size; src++) {
            if (incast || src == 1) {
                MPI_Irecv(buf + (size_t)src * (size_t)n, n, MPI_BYTE, src, 1, MPI_COMM_WORLD,
                          &r[k++]);
            }
        }
        MPI_Waitall(k, r, MPI_STATUSES_IGNORE);
        free(r);
    } else if (incast || rank == 1) {
        MPI_Send(buf, n, MPI_BYTE, 0, 1, MPI_COMM_WORLD);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        temu_session *s;
        temu_error err;
        if (temu_session_attach_env(&s, &err) != TEMU_OK) {
            fprintf(stderr, "vt_congest: %s\n", err.message);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        struct timespec t0, t;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        uint64_t seen = 0, pend = 0;
        do {
            struct timespec nap = {0, 10000000};
            nanosleep(&nap, NULL);
            seen = stalls(s);
            pend = mu_pending(s);
            clock_gettime(CLOCK_MONOTONIC, &t);
        } while ((seen == 0 || pend == 0) && t.tv_sec - t0.tv_sec < watch);
        printf("%s\n", seen > 0 ? "stalls during the run" : "no stalls during the run");
        if (temu_session_machine(s)->system == TEMU_SYSTEM_BGQ) {
            printf("%s\n", pend > 0 ? "message-unit requests pending during the run"
                                    : "none pending during the run");
        }
        fflush(stdout);
        temu_session_close(s);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    free(buf);
    MPI_Finalize();
    return 0;
}
