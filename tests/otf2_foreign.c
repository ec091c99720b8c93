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
 *   otf2_foreign DIR --gaps far | back
 *     the same, but rank 0's second send is at tick 10^13 + 7 (115 days:
 *     beyond virtual time's 64-bit picoseconds) and rank 1's second
 *     receive 5 ticks later, or (back) rank 0's second send is at tick 12,
 *     before its first: OTF2 refuses to write that, so the tick of the
 *     record is patched in the event file afterwards
 *   otf2_foreign DIR --coll CASE [--huge-ids]
 *     instead, a crafted archive with torusemu attributes (the form `torusemu
 *     run --trace` writes): 8 ranks each record one collective on
 *     MPI_COMM_WORLD (MpiCollectiveBegin at tick 1000, End at tick 1001)
 *     whose lists are valid at every rank but rank 3, which gets CASE's
 *     lists (coll_cases below).  --huge-ids numbers every definition
 *     (strings, attributes, groups, the communicator) from 0xfffff000 up,
 *     as a crafted file may: a reader that sizes tables by the largest id
 *     asks for gigabytes.
 *
 *   otf2_foreign DIR --ring N STEPS [--skip R]
 *     instead, STEPS steps of a ring of N ranks (N even) on a 1 GHz clock,
 *     step s from tick 1000 + 100 s: an even rank r sends 256 bytes to
 *     r + 1 (MpiSend at +2) and receives from r - 1 (MpiRecv at +4), an
 *     odd rank receives from r - 1 (+1) and sends to r + 1 (+3): in time
 *     order the odd ranks' receives come before their sends, the even
 *     ranks' after.  Every tenth step ends with an MPI_Barrier (rank r's
 *     Begin at +6, End at +7 + r mod 64).  --skip R: rank R never enters the last
 *     barrier.
 *
 * Prints the messages a replay must inject, "SRC DST BYTES [put]" per line
 * (tests/mpi/tmpi_check expect), for a machine without collective networks
 * (Gemini): the ring; every pair of the alltoall (1 KiB blocks: pairwise
 * exchange); the binomial broadcast of 512 bytes over ranks 0 2 4 6 from
 * rank 0 (0 -> 4, 0 -> 2, 4 -> 6); the puts.
 */
#include "../utils/otf2_trace.h" /* the torusemu attribute names */

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

/* An archive of n ranks on MPI_COMM_WORLD (write_world). */
typedef struct archive {
    int n;
    void (*events)(struct archive *w, OTF2_EvtWriter *ev, int r);
    uint64_t resolution, offset; /* clock: ticks per second, the first tick */
    uint32_t base;               /* first id of every kind of definition */
    const struct coll_case *coll;
    char *strings[NR * 4]; /* list strings, defined after the attribute names */
    uint32_t nstrings;
} archive;

/* Rank r's events of the linear all-to-all of n ranks. */
static void linear_events(archive *w, OTF2_EvtWriter *ev, int r)
{
    OTF2_TimeStamp t = 1000;
    int n = w->n;
    for (int k = 1; k < n; k++) {
        OTF2_EvtWriter_MpiIrecvRequest(ev, NULL, t++, (uint64_t)k);
    }
    for (int k = 1; k < n; k++) {
        OTF2_EvtWriter_MpiIsend(ev, NULL, t++, (uint32_t)((r + k) % n), w->base, 0, 64,
                                (uint64_t)(n + k));
    }
    for (int k = 1; k < n; k++) {
        OTF2_EvtWriter_MpiIrecv(ev, NULL, t++, (uint32_t)((r + n - k) % n), w->base, 0, 64,
                                (uint64_t)k);
    }
}

/* --ring */
static int ring_steps, ring_skip = -1;

/* Rank r's events of the ring (--ring). */
static void ring_events(archive *w, OTF2_EvtWriter *ev, int r)
{
    int n = w->n;
    uint32_t next = (uint32_t)((r + 1) % n), prev = (uint32_t)((r + n - 1) % n);
    for (int s = 0; s < ring_steps; s++) {
        OTF2_TimeStamp t = 1000 + 100 * (uint64_t)s;
        if (r % 2 == 0) {
            OTF2_EvtWriter_MpiSend(ev, NULL, t + 2, next, w->base, 0, 256);
            OTF2_EvtWriter_MpiRecv(ev, NULL, t + 4, prev, w->base, 0, 256);
        } else {
            OTF2_EvtWriter_MpiRecv(ev, NULL, t + 1, prev, w->base, 0, 256);
            OTF2_EvtWriter_MpiSend(ev, NULL, t + 3, next, w->base, 0, 256);
        }
        if (s % 10 == 9 && !(r == ring_skip && s + 10 >= ring_steps)) {
            OTF2_EvtWriter_MpiCollectiveBegin(ev, NULL, t + 6);
            OTF2_EvtWriter_MpiCollectiveEnd(ev, NULL, t + 7 + (uint64_t)(r % 64),
                                            OTF2_COLLECTIVE_OP_BARRIER, w->base, 0, 0, 0);
        }
    }
}

/* --gaps: the second send's tick (default 60 after an offset of 7). */
static uint64_t gaps_second = 7 + 60;

/* --gaps back: the timestamp `from` of rank 0's events (a timestamp
 * marker byte 5, then 8 bytes little endian, OTF2_Buffer.h) set to `to`. */
static int gaps_patch(const char *dir, uint64_t from, uint64_t to)
{
    char path[4096];
    unsigned char buf[4096], want[9] = {5};
    snprintf(path, sizeof path, "%s/traces/0.evt", dir);
    FILE *f = fopen(path, "r+b");
    size_t n = f != NULL ? fread(buf, 1, sizeof buf, f) : 0;
    for (int i = 0; i < 8; i++) {
        want[1 + i] = (unsigned char)(from >> 8 * i);
    }
    for (size_t at = 0; at + 9 <= n; at++) {
        if (memcmp(buf + at, want, 9) == 0) {
            for (int i = 0; i < 8; i++) {
                buf[at + 1 + i] = (unsigned char)(to >> 8 * i);
            }
            rewind(f);
            fwrite(buf, 1, n, f);
            return fclose(f) == 0 ? 0 : 1;
        }
    }
    fprintf(stderr, "otf2_foreign: no timestamp %" PRIu64 " in %s\n", from, path);
    if (f != NULL) {
        fclose(f);
    }
    return 1;
}

/* Rank r's events of --gaps (ticks of 1 us from an offset of 7). */
static void gaps_events(archive *w, OTF2_EvtWriter *ev, int r)
{
    for (uint64_t k = 0; k < 2; k++) {
        uint64_t send = k == 0 ? 7 + 10 : gaps_second;
        if (r == 0) {
            OTF2_EvtWriter_MpiSend(ev, NULL, send, 1, w->base, 0, 8);
        } else {
            OTF2_EvtWriter_MpiRecv(ev, NULL, (send > 7 + 15 ? send : 7 + 15) + 5, 0, w->base, 0, 8);
        }
    }
}

/* ------------------------------------------------------------- --coll */

/* The torusemu attributes a --coll record carries (names: otf2_trace.h). */
enum { A_OP, A_BYTES, A_FLAGS, A_NEIGHBORS, A_BLOCKS, A_OFFS, NATTR };
static const char *const attr_names[NATTR] = {TEMU_OTF2_ATTR_OP,     TEMU_OTF2_ATTR_BYTES,
                                              TEMU_OTF2_ATTR_FLAGS,  TEMU_OTF2_ATTR_NEIGHBORS,
                                              TEMU_OTF2_ATTR_BLOCKS, TEMU_OTF2_ATTR_OFFS};
static const OTF2_Type attr_types[NATTR] = {OTF2_TYPE_UINT32, OTF2_TYPE_UINT64, OTF2_TYPE_UINT32,
                                            OTF2_TYPE_STRING, OTF2_TYPE_STRING, OTF2_TYPE_STRING};

/* The rank whose lists a case sets; every other rank's are valid. */
#define BAD_RANK 3

/* A --coll case: the operation and rank BAD_RANK's lists ("r+K" stands
 * for rank (r + K) mod 8, NULL for no attribute). */
typedef struct coll_case {
    const char *name;
    int op;     /* temu_coll_op at every rank  */
    int bad_op; /* torusemu:op at BAD_RANK, -1: op */
    OTF2_CollectiveOp otf2_op;
    uint64_t bytes;
    const char *nb, *blocks, *offs;
} coll_case;

/* The valid neighbourhood all-to-all: r sends 100 bytes to r + 1, none
 * to the missing neighbour (MPI_PROC_NULL, -1), 300 bytes to r - 1. */
#define NB_LIST "r+1 -1 r+7"
#define NB_BLOCKS "100 200 300"
#define NB_OFFS "0 100 300"
#define A2AV_BLOCKS "8 8 8 8 8 8 8 8"

static const coll_case coll_cases[] = {
    {"neighbor", TEMU_COLL_NEIGHBOR_ALLTOALL, -1, OTF2_COLLECTIVE_OP_ALLTOALL, 0, NB_LIST,
     NB_BLOCKS, NB_OFFS},
    /* issue 22 row 1: one block for 8 ranks read 7 past the list */
    {"alltoallv-neighbors", TEMU_COLL_ALLTOALLV, -1, OTF2_COLLECTIVE_OP_ALLTOALLV, 0, "1", "5",
     NULL},
    {"alltoallv-short", TEMU_COLL_ALLTOALLV, -1, OTF2_COLLECTIVE_OP_ALLTOALLV, 0, NULL, "5 5",
     NULL},
    {"alltoallv-long", TEMU_COLL_ALLTOALLV, -1, OTF2_COLLECTIVE_OP_ALLTOALLV, 0, NULL,
     A2AV_BLOCKS " 8", NULL},
    {"alltoallv-negative", TEMU_COLL_ALLTOALLV, -1, OTF2_COLLECTIVE_OP_ALLTOALLV, 0, NULL,
     "8 8 8 -8 8 8 8 8", NULL},
    {"alltoallv-garbage", TEMU_COLL_ALLTOALLV, -1, OTF2_COLLECTIVE_OP_ALLTOALLV, 0, NULL,
     "8 8 8 x8 8 8 8 8", NULL},
    {"alltoallv-offs-alone", TEMU_COLL_ALLTOALLV, -1, OTF2_COLLECTIVE_OP_ALLTOALLV, 0, NULL, NULL,
     "0 8 16 24 32 40 48 56"},
    {"neighbor-range", TEMU_COLL_NEIGHBOR_ALLTOALL, -1, OTF2_COLLECTIVE_OP_ALLTOALL, 0, "r+1 9 r+7",
     NB_BLOCKS, NULL},
    /* 2^32 + 1: rank 1 once cut to 32 bits */
    {"neighbor-wrap", TEMU_COLL_NEIGHBOR_ALLTOALL, -1, OTF2_COLLECTIVE_OP_ALLTOALL, 0,
     "r+1 4294967297 r+7", NB_BLOCKS, NULL},
    {"neighbor-offs-short", TEMU_COLL_NEIGHBOR_ALLTOALL, -1, OTF2_COLLECTIVE_OP_ALLTOALL, 0,
     NB_LIST, NB_BLOCKS, "0 100"},
    {"bcast-blocks", TEMU_COLL_BCAST, -1, OTF2_COLLECTIVE_OP_BCAST, 64, NULL, A2AV_BLOCKS, NULL},
    {"op-unknown", TEMU_COLL_BCAST, 99, OTF2_COLLECTIVE_OP_BCAST, 64, NULL, NULL, NULL},
};

/* A string definition holding list `text` of rank r ("r+K" expanded). */
static uint32_t list_string(archive *w, const char *text, int r)
{
    char *s = malloc(strlen(text) * 4 + 16), *o = s;
    if (s == NULL || w->nstrings == sizeof w->strings / sizeof w->strings[0]) {
        fprintf(stderr, "otf2_foreign: out of memory\n");
        exit(1);
    }
    while (*text != '\0') {
        int k;
        if (sscanf(text, "r+%d", &k) == 1) {
            o += sprintf(o, "%d", (r + k) % w->n);
            text += 2;
            while (*text >= '0' && *text <= '9') {
                text++;
            }
        } else {
            *o++ = *text++;
        }
    }
    *o = '\0';
    w->strings[w->nstrings] = s;
    return w->base + 1 + NATTR + w->nstrings++;
}

/* Rank r's collective: BAD_RANK's lists from the case, the others valid. */
static void coll_events(archive *w, OTF2_EvtWriter *ev, int r)
{
    const coll_case *k = w->coll;
    int bad = r == BAD_RANK;
    const char *lists[3] = {NULL, NULL, NULL}; /* A_NEIGHBORS .. A_OFFS */
    if (bad) {
        lists[0] = k->nb, lists[1] = k->blocks, lists[2] = k->offs;
    } else if (k->op == TEMU_COLL_NEIGHBOR_ALLTOALL) {
        lists[0] = NB_LIST, lists[1] = NB_BLOCKS, lists[2] = NB_OFFS;
    } else if (k->op == TEMU_COLL_ALLTOALLV) {
        lists[1] = A2AV_BLOCKS;
    }
    OTF2_AttributeList *al = OTF2_AttributeList_New();
    OTF2_AttributeList_AddUint32(al, w->base + A_OP,
                                 (uint32_t)(bad && k->bad_op >= 0 ? k->bad_op : k->op));
    OTF2_AttributeList_AddUint64(al, w->base + A_BYTES, k->bytes);
    OTF2_AttributeList_AddUint32(al, w->base + A_FLAGS, 3); /* commutative, blocking */
    for (int i = 0; i < 3; i++) {
        if (lists[i] != NULL) {
            OTF2_AttributeList_AddStringRef(al, w->base + A_NEIGHBORS + (uint32_t)i,
                                            list_string(w, lists[i], r));
        }
    }
    OTF2_EvtWriter_MpiCollectiveBegin(ev, NULL, 1000);
    OTF2_EvtWriter_MpiCollectiveEnd(ev, al, 1001, k->otf2_op, w->base, 0, 0, 0);
    OTF2_AttributeList_Delete(al);
}

/* The attribute and list definitions of --coll. */
static void coll_defs(archive *w, OTF2_GlobalDefWriter *g)
{
    for (uint32_t i = 0; i < NATTR; i++) {
        OTF2_GlobalDefWriter_WriteString(g, w->base + 1 + i, attr_names[i]);
        OTF2_GlobalDefWriter_WriteAttribute(g, w->base + i, w->base + 1 + i, w->base,
                                            attr_types[i]);
    }
    for (uint32_t i = 0; i < w->nstrings; i++) {
        OTF2_GlobalDefWriter_WriteString(g, w->base + 1 + NATTR + i, w->strings[i]);
        free(w->strings[i]);
    }
}

/* What a replay of the valid case injects on Gemini ("SRC DST BYTES"). */
static void coll_expect(const archive *w)
{
    for (int r = 0; strcmp(w->coll->name, "neighbor") == 0 && r < w->n; r++) {
        printf("%d %d 100\n%d %d 300\n", r, (r + 1) % w->n, r, (r + w->n - 1) % w->n);
    }
}

/* An archive of w->n ranks on MPI_COMM_WORLD whose events w->events
 * writes, every definition numbered from w->base. */
static int write_world(const char *dir, archive *w)
{
    int n = w->n;
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
        OTF2_EvtWriter *ev = OTF2_Archive_GetEvtWriter(a, loc(r));
        w->events(w, ev, r);
        OTF2_EvtWriter_GetNumberOfEvents(ev, &nev[r]);
        OTF2_Archive_CloseEvtWriter(a, ev);
        members[r] = loc(r);
    }
    OTF2_Archive_CloseEvtFiles(a);
    OTF2_GlobalDefWriter *g = OTF2_Archive_GetGlobalDefWriter(a);
    uint32_t b = w->base;
    OTF2_GlobalDefWriter_WriteClockProperties(g, w->resolution, w->offset, 1u << 30,
                                              OTF2_UNDEFINED_TIMESTAMP);
    OTF2_GlobalDefWriter_WriteString(g, b, "");
    if (w->coll != NULL) {
        coll_defs(w, g);
    }
    OTF2_GlobalDefWriter_WriteSystemTreeNode(g, b, b, b, OTF2_UNDEFINED_SYSTEM_TREE_NODE);
    for (int r = 0; r < n; r++) {
        OTF2_GlobalDefWriter_WriteLocationGroup(g, b + (uint32_t)r, b,
                                                OTF2_LOCATION_GROUP_TYPE_PROCESS, b,
                                                OTF2_UNDEFINED_LOCATION_GROUP);
        OTF2_GlobalDefWriter_WriteLocation(g, loc(r), b, OTF2_LOCATION_TYPE_CPU_THREAD, nev[r],
                                           b + (uint32_t)r);
    }
    OTF2_GlobalDefWriter_WriteGroup(g, b, b, OTF2_GROUP_TYPE_COMM_LOCATIONS, OTF2_PARADIGM_MPI,
                                    OTF2_GROUP_FLAG_NONE, (uint32_t)n, members);
    for (int r = 0; r < n; r++) {
        members[r] = (uint64_t)r;
    }
    OTF2_GlobalDefWriter_WriteGroup(g, b + 1, b, OTF2_GROUP_TYPE_COMM_GROUP, OTF2_PARADIGM_MPI,
                                    OTF2_GROUP_FLAG_NONE, (uint32_t)n, members);
    OTF2_GlobalDefWriter_WriteComm(g, b, b, b + 1, OTF2_UNDEFINED_COMM, OTF2_COMM_FLAG_NONE);
    OTF2_Archive_Close(a);
    free(nev);
    free(members);
    return 0;
}

/* --coll CASE [--huge-ids] */
static int write_coll(const char *dir, const char *name, int huge)
{
    archive w = {NR, coll_events, 1000000000u, 0, huge ? 0xfffff000u : 0, NULL, {NULL}, 0};
    for (size_t i = 0; i < sizeof coll_cases / sizeof coll_cases[0]; i++) {
        if (strcmp(coll_cases[i].name, name) == 0) {
            w.coll = &coll_cases[i];
        }
    }
    if (w.coll == NULL) {
        fprintf(stderr, "otf2_foreign: no --coll case %s\n", name);
        return 2;
    }
    int rc = write_world(dir, &w);
    if (rc == 0) {
        coll_expect(&w);
    }
    return rc;
}

int main(int argc, char **argv)
{
    if (argc == 4 && strcmp(argv[2], "--linear") == 0) {
        archive w = {atoi(argv[3]), linear_events, 1000000000u, 0, 0, NULL, {NULL}, 0};
        return write_world(argv[1], &w);
    }
    if ((argc == 5 || (argc == 7 && strcmp(argv[5], "--skip") == 0)) &&
        strcmp(argv[2], "--ring") == 0 && atoi(argv[3]) % 2 == 0) {
        archive w = {atoi(argv[3]), ring_events, 1000000000u, 0, 0, NULL, {NULL}, 0};
        ring_steps = atoi(argv[4]);
        ring_skip = argc == 7 ? atoi(argv[6]) : -1;
        return write_world(argv[1], &w);
    }
    if ((argc == 3 ||
         (argc == 4 && (strcmp(argv[3], "far") == 0 || strcmp(argv[3], "back") == 0))) &&
        strcmp(argv[2], "--gaps") == 0) {
        archive w = {2, gaps_events, 1000000u, 7, 0, NULL, {NULL}, 0};
        int back = argc == 4 && strcmp(argv[3], "back") == 0;
        if (argc == 4 && !back) {
            gaps_second = UINT64_C(10000000000000) + 7;
        }
        int rc = write_world(argv[1], &w);
        return rc == 0 && back ? gaps_patch(argv[1], 7 + 60, 7 + 5) : rc;
    }
    if ((argc == 4 || (argc == 5 && strcmp(argv[4], "--huge-ids") == 0)) &&
        strcmp(argv[2], "--coll") == 0) {
        return write_coll(argv[1], argv[3], argc == 5);
    }
    if (argc < 2) {
        fprintf(stderr,
                "usage: otf2_foreign DIR [--unsupported | --unmatched | --linear N | "
                "--gaps [far | back] | --coll CASE [--huge-ids] | --ring N STEPS [--skip R]]\n");
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
