/*
 * papi_units - every component read through PAPI inside MPI ranks.
 *
 *   papi_units gemini | bgp | bgq
 *
 * Two ranks on neighbouring nodes (the launcher's map file puts them
 * there); rank 0 sends rank 1 one message of the case's size while both
 * count the case's events.  Synchronisation runs under MPI_Pcontrol(0) so
 * only that message is counted.  Rank 0 prints "N passed, M failed" with
 * every value compared to its first-principles answer (derivations next to
 * each table; the rules are in doc/model.md).
 */
#include <mpi.h>
#include <papi.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_EVENTS 8
#define MAX_SETS 3

typedef struct expect {
    const char *event;
    long long want[2]; /* rank 0, rank 1 */
    int at_least;      /* host-measured: a lower bound */
} expect;

typedef struct unit_case {
    const char *name;
    int bytes;
    /* one event set per component; events of a set belong to one component */
    expect sets[MAX_SETS][MAX_EVENTS];
} unit_case;

/*
 * gemini: gemini:2x2x2, rank 0 on node 0 of Gemini (0,0,0), rank 1 on node
 * 0 of Gemini (1,0,0) (node 8): one X hop, both ways taken as X+ (distance 1
 * on a ring of 2 ties to +).  1 KiB eager: 48-byte envelope + 1024 B =
 * 1072 B = 16 full PUTs (32 phits) + one of 48 B (8 + 18 = 26 phits): 538
 * request phits, 17 packets; 17 acknowledgements of 3 phits = 51.
 * Requests arrive on the X- tiles of (1,0,0) and leave the host tiles of
 * (0,0,0); responses arrive on the X- tiles of (0,0,0) and leave the host
 * tiles of (1,0,0).  Slot base (0 + 8) mod 8 = 0: tile 4 (l04, first X-
 * tile) takes transactions 0, 8, 16 = 32 + 32 + 26 phits.  NIC: 17 requests
 * of 1 + 4 flits (16 full) or 1 + 3; RAT data flits 16 x 4 + 3 = 67.
 */
static const unit_case gemini_case = {
    "gemini",
    1024,
    {{
        {"gemini_tile:::GM_LINK_PHITS:link=X-", {51, 538}, 0},
        {"gemini_tile:::GM_LINK_PHITS:link=HH", {538, 51}, 0},
        {"gemini_tile:::GM_TILE_PERF_VC0_PKT_CNT", {17, 17}, 0},
        {"gemini_tile:::GM_TILE_PERF_VC0_PHIT_CNT:0:4", {0, 90}, 0},
        {"gemini_tile:::GM_ORB_PERF_VC0_PKTS", {17, 0}, 0},
        {"gemini_tile:::GM_RAT_PERF_HEADER_FLITS_VC0", {0, 17}, 0},
        {"gemini_tile:::GM_RAT_PERF_DATA_FLITS_VC0", {0, 67}, 0},
        {NULL, {0, 0}, 0},
    }},
};

/*
 * bgp: bgp-16 (4x2x2 mesh), rank 0 on (0,0,0), rank 1 on (1,0,0).  1000 B is
 * eager (< 1200): packets of 240 payload bytes with a 16-byte header: 4 full
 * (8 chunks) + 40 B (2 chunks) = 5 packets, 34 chunks on X+ of node 0, all
 * on the deterministic (bubble) VC.  Rank 0 counts UPC mode 0, rank 1 mode 2
 * (one mode per node, different nodes): node 1 acknowledges each of the 5
 * packets back over its X- link.
 */
static const unit_case bgp_case = {
    "bgp",
    1000,
    {{
        {"BGP_TORUS_XP_PACKETS", {5, 0}, 0},
        {"BGP_TORUS_XP_32BCHUNKS", {34, 0}, 0},
        {"PAPI_BGP_TS_DPKT", {5, 0}, 0},
        {"bgp_torus:::PAPI_BGP_TS_32B", {34, 0}, 0},
        {NULL, {0, 0}, 0},
    }},
};
static const expect bgp_rank1_mode2[] = {
    {"BGP_TORUS_XM_TOKEN_ACK_PACKETS", {0, 5}, 0},
    {"BGP_TORUS_XM_ACKS", {0, 5}, 0},
    {"BGP_TORUS_XP_VCBN_32BCHUNKS", {0, 0}, 0},
    {NULL, {0, 0}, 0},
};

/*
 * bgq: midplane, rank 0 on node 0, rank 1 on <0,0,0,0,1> (E+).  1 KiB eager:
 * 2 packets of 512 B.  Message unit: the sender injects 1 message whose
 * first packet is not counted (PKT_INJ 1) and reads 2 x 4 lines of 128 B;
 * the receiver gets 2 memory-FIFO packets and writes (32 + 512) / 16 = 34
 * quantities per packet.  L2: the 128-byte-aligned send buffer is 8 lines,
 * the receive side 8 lines: 8 hits each (combined counts).  PCIe reads 0 on
 * compute nodes.  CNK: no MU interrupts in the model; the 200 write(2)
 * calls each rank makes are at least 200 system calls.
 */
static const unit_case bgq_case = {
    "bgq",
    1024,
    {
        {
            {"PEVT_MU_MSG_INJ", {1, 0}, 0},
            {"PEVT_MU_PKT_INJ", {1, 0}, 0},
            {"PEVT_MU_FIFO_PKT_RCV", {0, 2}, 0},
            {"PEVT_MU_PORT0_128B_RD", {8, 0}, 0},
            {"PEVT_MU_PORT0_16B_WRT", {0, 68}, 0},
            {"PEVT_PCIE_INB_RD_BYTES", {0, 0}, 0},
            {NULL, {0, 0}, 0},
        },
        {
            {"PEVT_L2_HITS", {8, 8}, 0},
            {"bgq_l2unit:::PEVT_L2_MISSES", {0, 0}, 0},
            {NULL, {0, 0}, 0},
        },
        {
            {"PEVT_CNKNODE_MUINT", {0, 0}, 0},
            {"PEVT_CNKNODE_NDINT", {0, 0}, 0},
            {"PEVT_CNKHWT_SYSCALL", {200, 200}, 1},
            {NULL, {0, 0}, 0},
        },
    },
};

static unsigned char buffer[1 << 16] __attribute__((aligned(128)));

static int fail_count, pass_count;

static void verdict(int ok, const char *fmt, const char *event, int rank, long long got,
                    long long want)
{
    if (ok) {
        pass_count++;
    } else {
        fail_count++;
        fprintf(stderr, fmt, rank, event, got, want);
    }
}

int main(int argc, char **argv)
{
    int rank, size;
    const unit_case *c = NULL;
    expect sets[MAX_SETS][MAX_EVENTS];
    int es[MAX_SETS] = {PAPI_NULL, PAPI_NULL, PAPI_NULL}, nsets = 0;
    long long values[MAX_SETS][MAX_EVENTS];
    long long all[2][MAX_SETS][MAX_EVENTS];

    MPI_Init(&argc, &argv);
    MPI_Pcontrol(0);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc == 2 && strcmp(argv[1], "gemini") == 0) {
        c = &gemini_case;
    } else if (argc == 2 && strcmp(argv[1], "bgp") == 0) {
        c = &bgp_case;
    } else if (argc == 2 && strcmp(argv[1], "bgq") == 0) {
        c = &bgq_case;
    }
    if (c == NULL || size != 2) {
        if (rank == 0) {
            fprintf(stderr, "usage: mpirun -np 2 papi_units gemini|bgp|bgq\n");
        }
        MPI_Finalize();
        return 2;
    }
    memcpy(sets, c->sets, sizeof sets);
    if (c == &bgp_case && rank == 1) {
        memset(sets, 0, sizeof sets);
        memcpy(sets[0], bgp_rank1_mode2, sizeof bgp_rank1_mode2);
    }
    for (size_t i = 0; i < sizeof buffer; i++) {
        buffer[i] = (unsigned char)(i * 151 + 7); /* not a run of 0 or 1 bits */
    }
    if (PAPI_library_init(PAPI_VER_CURRENT) != PAPI_VER_CURRENT) {
        fprintf(stderr, "papi_units: PAPI_library_init failed\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    memset(values, 0, sizeof values);
    for (int s = 0; s < MAX_SETS && sets[s][0].event != NULL; s++) {
        int rc = PAPI_create_eventset(&es[s]);
        for (int e = 0; rc == PAPI_OK && sets[s][e].event != NULL; e++) {
            rc = PAPI_add_named_event(es[s], sets[s][e].event);
            if (rc != PAPI_OK) {
                fprintf(stderr, "papi_units: rank %d: cannot add %s: %s\n", rank,
                        sets[s][e].event, PAPI_strerror(rc));
            }
        }
        if (rc != PAPI_OK || PAPI_start(es[s]) != PAPI_OK) {
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        nsets = s + 1;
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Pcontrol(1);
    FILE *null = fopen("/dev/null", "w");
    for (int i = 0; null != NULL && i < 200; i++) { /* system calls for the CNK counter */
        if (write(fileno(null), "x", 1) != 1) {
            break;
        }
    }
    if (null != NULL) {
        fclose(null);
    }
    if (rank == 0) {
        MPI_Send(buffer, c->bytes, MPI_BYTE, 1, 0, MPI_COMM_WORLD);
    } else {
        MPI_Recv(buffer, c->bytes, MPI_BYTE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    MPI_Pcontrol(0);
    MPI_Barrier(MPI_COMM_WORLD); /* both sides injected */
    for (int s = 0; s < nsets; s++) {
        PAPI_stop(es[s], values[s]);
    }
    MPI_Gather(values, MAX_SETS * MAX_EVENTS, MPI_LONG_LONG, all, MAX_SETS * MAX_EVENTS,
               MPI_LONG_LONG, 0, MPI_COMM_WORLD);
    /* rank 0 needs rank 1's event list too (bgp differs per rank) */
    expect theirs[MAX_SETS][MAX_EVENTS];
    memcpy(theirs, c->sets, sizeof theirs);
    if (c == &bgp_case) {
        memset(theirs, 0, sizeof theirs);
        memcpy(theirs[0], bgp_rank1_mode2, sizeof bgp_rank1_mode2);
    }
    if (rank == 0) {
        for (int r = 0; r < 2; r++) {
            expect(*list)[MAX_EVENTS] = r == 0 ? sets : theirs;
            for (int s = 0; s < MAX_SETS; s++) {
                for (int e = 0; e < MAX_EVENTS && list[s][e].event != NULL; e++) {
                    long long got = all[r][s][e], want = list[s][e].want[r];
                    if (list[s][e].at_least) {
                        verdict(got >= want, "FAIL: rank %d %s = %lld, expected at least %lld\n",
                                list[s][e].event, r, got, want);
                    } else {
                        verdict(got == want, "FAIL: rank %d %s = %lld, expected %lld\n",
                                list[s][e].event, r, got, want);
                    }
                }
            }
        }
        printf("%d passed, %d failed\n", pass_count, fail_count);
    }
    PAPI_shutdown();
    MPI_Finalize();
    return 0;
}
