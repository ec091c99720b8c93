/*
 * otf2_foreign - writes an OTF2 archive with the OTF2 library directly, the
 * way a tracer like Score-P does (no torusemu attributes), standing in for
 * a trace recorded on a real machine: 8 ranks whose location ids are not
 * their ranks, region enter/leave records around every MPI call, a ring of
 * MpiIsend/MpiIrecv, an MPI_Alltoall on MPI_COMM_WORLD, an MPI_Bcast on a
 * communicator of the even ranks, and MPI_Put to rank 0.  Sizes of
 * collectives follow Score-P's convention (totals over the members).
 *
 *   otf2_foreign DIR [--unsupported | --unmatched]
 *     --unsupported  rank 3 also records a NonBlockingCollectiveRequest
 *     --unmatched    rank 5's ring receive is left out
 *   otf2_foreign DIR --linear N
 *     instead, a linear all-to-all of N ranks as MPI libraries run it for
 *     large blocks: every rank posts N-1 MpiIrecv, then N-1 MpiIsend of
 *     64 bytes, rank r to r+1, r+2, ... (N (N-1) of each)
 *   otf2_foreign DIR --gaps
 *     instead, 2 ranks on a clock of 1 MHz (a tick is 1 us): rank 0 sends
 *     8 bytes to rank 1 at ticks 10 and 60 (MpiSend, stamped when the call
 *     began: 50 us of computation between them), rank 1 receives both
 *     (MpiRecv, stamped when they returned, at ticks 15 and 65)
 *
 * Prints the messages a replay must inject, "SRC DST BYTES [put]" per line
 * (tests/mpi/tmpi_check expect), for a machine without collective networks
 * (Gemini): the ring; every pair of the alltoall (1 KiB blocks: pairwise
 * exchange); the binomial broadcast of 512 bytes over ranks 0 2 4 6 from
 * rank 0 (0 -> 4, 0 -> 2, 4 -> 6); the puts.
 */
#include <otf2/otf2.h>

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NR 8
#define RING_BYTES 4096u
#define A2A_BLOCK 1024u
#define BCAST_BYTES 512u
#define PUT_BYTES 2048u

/* Score-P-like location ids: the process in the high word */
static uint64_t loc(int r)
{
    return (uint64_t)r << 32;
}

static OTF2_FlushType pre_flush(void *u, OTF2_FileType ft, OTF2_LocationRef l, void *cb, bool f)
{
    (void)u;
    (void)ft;
    (void)l;
    (void)cb;
    (void)f;
    return OTF2_FLUSH;
}

static OTF2_TimeStamp post_flush(void *u, OTF2_FileType ft, OTF2_LocationRef l)
{
    (void)u;
    (void)ft;
    (void)l;
    return 0;
}

enum { S_EMPTY, S_SEND, S_RECV, S_A2A, S_BCAST, S_PUT, S_WORLD, S_EVEN, S_NODE, S_WIN, S_RANK };
enum { R_ISEND, R_IRECV, R_A2A, R_BCAST, R_PUT };

/* Rank r's events of the linear all-to-all of n ranks. */
static void linear_events(OTF2_EvtWriter *w, int r, int n)
{
    OTF2_TimeStamp t = 1000;
    for (int k = 1; k < n; k++) {
        OTF2_EvtWriter_MpiIrecvRequest(w, NULL, t++, (uint64_t)k);
    }
    for (int k = 1; k < n; k++) {
        OTF2_EvtWriter_MpiIsend(w, NULL, t++, (uint32_t)((r + k) % n), 0, 0, 64, (uint64_t)(n + k));
    }
    for (int k = 1; k < n; k++) {
        OTF2_EvtWriter_MpiIrecv(w, NULL, t++, (uint32_t)((r + n - k) % n), 0, 0, 64, (uint64_t)k);
    }
}

/* Rank r's events of --gaps (ticks of 1 us from an offset of 7). */
static void gaps_events(OTF2_EvtWriter *w, int r, int n)
{
    (void)n;
    for (int k = 0; k < 2; k++) {
        if (r == 0) {
            OTF2_EvtWriter_MpiSend(w, NULL, 7 + 10 + 50 * (uint64_t)k, 1, 0, 0, 8);
        } else {
            OTF2_EvtWriter_MpiRecv(w, NULL, 7 + 15 + 50 * (uint64_t)k, 0, 0, 0, 8);
        }
    }
}

/* An archive of n ranks on MPI_COMM_WORLD whose events `events` writes,
 * stamped in ticks of a clock of `resolution` per second from `offset`. */
static int write_world(const char *dir, int n, void (*events)(OTF2_EvtWriter *, int, int),
                       uint64_t resolution, uint64_t offset)
{
    OTF2_Archive *a = OTF2_Archive_Open(dir, "traces", OTF2_FILEMODE_WRITE, 1 << 20, 1 << 22,
                                        OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
    if (a == NULL || n < 2) {
        fprintf(stderr, "otf2_foreign: cannot create %s\n", dir);
        return 1;
    }
    OTF2_FlushCallbacks flush = {pre_flush, post_flush};
    OTF2_Archive_SetFlushCallbacks(a, &flush, NULL);
    OTF2_Archive_SetSerialCollectiveCallbacks(a);
    OTF2_Archive_OpenEvtFiles(a);
    uint64_t *nev = calloc((size_t)n, sizeof *nev), *members = calloc((size_t)n, sizeof *members);
    for (int r = 0; r < n; r++) {
        OTF2_EvtWriter *w = OTF2_Archive_GetEvtWriter(a, loc(r));
        events(w, r, n);
        OTF2_EvtWriter_GetNumberOfEvents(w, &nev[r]);
        OTF2_Archive_CloseEvtWriter(a, w);
        members[r] = loc(r);
    }
    OTF2_Archive_CloseEvtFiles(a);
    OTF2_GlobalDefWriter *g = OTF2_Archive_GetGlobalDefWriter(a);
    OTF2_GlobalDefWriter_WriteClockProperties(g, resolution, offset, 1u << 30,
                                              OTF2_UNDEFINED_TIMESTAMP);
    OTF2_GlobalDefWriter_WriteString(g, 0, "");
    OTF2_GlobalDefWriter_WriteSystemTreeNode(g, 0, 0, 0, OTF2_UNDEFINED_SYSTEM_TREE_NODE);
    for (int r = 0; r < n; r++) {
        OTF2_GlobalDefWriter_WriteLocationGroup(g, (uint32_t)r, 0, OTF2_LOCATION_GROUP_TYPE_PROCESS,
                                                0, OTF2_UNDEFINED_LOCATION_GROUP);
        OTF2_GlobalDefWriter_WriteLocation(g, loc(r), 0, OTF2_LOCATION_TYPE_CPU_THREAD, nev[r],
                                           (uint32_t)r);
    }
    OTF2_GlobalDefWriter_WriteGroup(g, 0, 0, OTF2_GROUP_TYPE_COMM_LOCATIONS, OTF2_PARADIGM_MPI,
                                    OTF2_GROUP_FLAG_NONE, (uint32_t)n, members);
    for (int r = 0; r < n; r++) {
        members[r] = (uint64_t)r;
    }
    OTF2_GlobalDefWriter_WriteGroup(g, 1, 0, OTF2_GROUP_TYPE_COMM_GROUP, OTF2_PARADIGM_MPI,
                                    OTF2_GROUP_FLAG_NONE, (uint32_t)n, members);
    OTF2_GlobalDefWriter_WriteComm(g, 0, 0, 1, OTF2_UNDEFINED_COMM, OTF2_COMM_FLAG_NONE);
    OTF2_Archive_Close(a);
    free(nev);
    free(members);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 4 && strcmp(argv[2], "--linear") == 0) {
        return write_world(argv[1], atoi(argv[3]), linear_events, 1000000000u, 0);
    }
    if (argc == 3 && strcmp(argv[2], "--gaps") == 0) {
        return write_world(argv[1], 2, gaps_events, 1000000u, 7);
    }
    if (argc < 2) {
        fprintf(stderr, "usage: otf2_foreign DIR [--unsupported | --unmatched]\n");
        return 2;
    }
    int unsupported = argc > 2 && strcmp(argv[2], "--unsupported") == 0;
    int unmatched = argc > 2 && strcmp(argv[2], "--unmatched") == 0;
    OTF2_Archive *a = OTF2_Archive_Open(argv[1], "traces", OTF2_FILEMODE_WRITE, 1 << 20, 1 << 22,
                                        OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
    if (a == NULL) {
        fprintf(stderr, "otf2_foreign: cannot create %s\n", argv[1]);
        return 1;
    }
    OTF2_FlushCallbacks flush = {pre_flush, post_flush};
    OTF2_Archive_SetFlushCallbacks(a, &flush, NULL);
    OTF2_Archive_SetSerialCollectiveCallbacks(a);
    OTF2_Archive_SetCreator(a, "otf2_foreign (papi-torus test)");
    OTF2_Archive_OpenEvtFiles(a);
    uint64_t nev[NR];
    for (int r = 0; r < NR; r++) {
        OTF2_EvtWriter *w = OTF2_Archive_GetEvtWriter(a, loc(r));
        OTF2_TimeStamp t = 1000;
        /* ring: isend to r+1, irecv from r-1 */
        OTF2_EvtWriter_Enter(w, NULL, t++, R_ISEND);
        OTF2_EvtWriter_MpiIsend(w, NULL, t++, (uint32_t)((r + 1) % NR), 0, 5, RING_BYTES, 1);
        OTF2_EvtWriter_Leave(w, NULL, t++, R_ISEND);
        OTF2_EvtWriter_Enter(w, NULL, t++, R_IRECV);
        OTF2_EvtWriter_MpiIrecvRequest(w, NULL, t++, 2);
        OTF2_EvtWriter_MpiIsendComplete(w, NULL, t++, 1);
        if (!(unmatched && r == 5)) {
            OTF2_EvtWriter_MpiIrecv(w, NULL, t++, (uint32_t)((r + NR - 1) % NR), 0, 5, RING_BYTES,
                                    2);
        }
        OTF2_EvtWriter_Leave(w, NULL, t++, R_IRECV);
        /* alltoall on the world: NR blocks sent and received */
        OTF2_EvtWriter_Enter(w, NULL, t++, R_A2A);
        OTF2_EvtWriter_MpiCollectiveBegin(w, NULL, t++);
        OTF2_EvtWriter_MpiCollectiveEnd(w, NULL, t++, OTF2_COLLECTIVE_OP_ALLTOALL, 0, 0,
                                        NR * A2A_BLOCK, NR * A2A_BLOCK);
        OTF2_EvtWriter_Leave(w, NULL, t++, R_A2A);
        if (r % 2 == 0) { /* bcast on the even ranks from their rank 0 */
            OTF2_EvtWriter_Enter(w, NULL, t++, R_BCAST);
            OTF2_EvtWriter_MpiCollectiveBegin(w, NULL, t++);
            OTF2_EvtWriter_MpiCollectiveEnd(w, NULL, t++, OTF2_COLLECTIVE_OP_BCAST, 1, 0,
                                            r == 0 ? 4 * BCAST_BYTES : 0, BCAST_BYTES);
            OTF2_EvtWriter_Leave(w, NULL, t++, R_BCAST);
        }
        if (unsupported && r == 3) {
            OTF2_EvtWriter_NonBlockingCollectiveRequest(w, NULL, t++, 9);
        }
        if (r != 0) {
            OTF2_EvtWriter_Enter(w, NULL, t++, R_PUT);
            OTF2_EvtWriter_RmaPut(w, NULL, t++, 0, 0, PUT_BYTES, 0);
            OTF2_EvtWriter_Leave(w, NULL, t++, R_PUT);
        }
        OTF2_EvtWriter_GetNumberOfEvents(w, &nev[r]);
        OTF2_Archive_CloseEvtWriter(a, w);
    }
    OTF2_Archive_CloseEvtFiles(a);

    OTF2_GlobalDefWriter *g = OTF2_Archive_GetGlobalDefWriter(a);
    OTF2_GlobalDefWriter_WriteClockProperties(g, 1000000000u, 0, 100000, OTF2_UNDEFINED_TIMESTAMP);
    const char *str[] = {"",        "MPI_Isend",      "MPI_Irecv",  "MPI_Alltoall", "MPI_Bcast",
                         "MPI_Put", "MPI_COMM_WORLD", "even ranks", "machine",      "window"};
    for (uint32_t i = 0; i < S_RANK; i++) {
        OTF2_GlobalDefWriter_WriteString(g, i, str[i]);
    }
    for (int r = 0; r < NR; r++) {
        char name[32];
        snprintf(name, sizeof name, "MPI Rank %d", r);
        OTF2_GlobalDefWriter_WriteString(g, S_RANK + (uint32_t)r, name);
    }
    for (uint32_t i = 0; i < 5; i++) {
        OTF2_GlobalDefWriter_WriteRegion(g, i, S_SEND + i, S_SEND + i, S_EMPTY,
                                         OTF2_REGION_ROLE_FUNCTION, OTF2_PARADIGM_MPI,
                                         OTF2_REGION_FLAG_NONE, S_EMPTY, 0, 0);
    }
    OTF2_GlobalDefWriter_WriteSystemTreeNode(g, 0, S_NODE, S_NODE, OTF2_UNDEFINED_SYSTEM_TREE_NODE);
    /* locations defined in reverse order: the reader must rank them by the
     * COMM_LOCATIONS group, not by definition order */
    for (int r = NR - 1; r >= 0; r--) {
        OTF2_GlobalDefWriter_WriteLocationGroup(g, (uint32_t)r, S_RANK + (uint32_t)r,
                                                OTF2_LOCATION_GROUP_TYPE_PROCESS, 0,
                                                OTF2_UNDEFINED_LOCATION_GROUP);
        OTF2_GlobalDefWriter_WriteLocation(g, loc(r), S_RANK + (uint32_t)r,
                                           OTF2_LOCATION_TYPE_CPU_THREAD, nev[r], (uint32_t)r);
    }
    uint64_t locs[NR], world[NR], even[NR / 2];
    for (int r = 0; r < NR; r++) {
        locs[r] = loc(r);
        world[r] = (uint64_t)r;
    }
    for (int r = 0; r < NR / 2; r++) {
        even[r] = (uint64_t)(2 * r);
    }
    OTF2_GlobalDefWriter_WriteGroup(g, 0, S_EMPTY, OTF2_GROUP_TYPE_COMM_LOCATIONS,
                                    OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE, NR, locs);
    OTF2_GlobalDefWriter_WriteGroup(g, 1, S_EMPTY, OTF2_GROUP_TYPE_COMM_GROUP, OTF2_PARADIGM_MPI,
                                    OTF2_GROUP_FLAG_NONE, NR, world);
    OTF2_GlobalDefWriter_WriteGroup(g, 2, S_EMPTY, OTF2_GROUP_TYPE_COMM_GROUP, OTF2_PARADIGM_MPI,
                                    OTF2_GROUP_FLAG_NONE, NR / 2, even);
    OTF2_GlobalDefWriter_WriteComm(g, 0, S_WORLD, 1, OTF2_UNDEFINED_COMM, OTF2_COMM_FLAG_NONE);
    OTF2_GlobalDefWriter_WriteComm(g, 1, S_EVEN, 2, 0, OTF2_COMM_FLAG_NONE);
    OTF2_GlobalDefWriter_WriteRmaWin(g, 0, S_WIN, 0, OTF2_RMA_WIN_FLAG_NONE);
    OTF2_Archive_Close(a);

    /* what a replay on Gemini must inject */
    for (int r = 0; r < NR; r++) {
        printf("%d %d %u\n", r, (r + 1) % NR, RING_BYTES);
        for (int d = 0; d < NR; d++) {
            if (d != r) {
                printf("%d %d %u\n", r, d, A2A_BLOCK);
            }
        }
        if (r != 0) {
            printf("%d 0 %u put\n", r, PUT_BYTES);
        }
    }
    printf("0 4 %u\n0 2 %u\n4 6 %u\n", BCAST_BYTES, BCAST_BYTES, BCAST_BYTES);
    return 0;
}
