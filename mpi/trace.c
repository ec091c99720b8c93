/*
 * trace.c - `torusemu run --trace DIR`: every operation the layer counts,
 * written as it is counted to DIR/rank.<world rank>.raw (trace_format.h).
 * The launcher turns the files into an OTF2 archive after the run
 * (utils/otf2_write.c); a replay of that archive counts exactly what the
 * run counted (doc/replay.md).  Off (one load per counted call) unless
 * $TORUSEMU_TRACE names a directory.
 */
#include "run_env.h"
#include "tmpi.h"
#include "trace_format.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

FILE *tmpi_trace_file;
__thread uint64_t tmpi_trace_t0 __attribute__((tls_model("initial-exec")));

static uint64_t now_ns(void)
{
    struct timespec t;
    tmpi_host_clock_gettime(CLOCK_MONOTONIC, &t); /* host time, never the program's */
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

/* Entering one of our entries: the outermost one stamps the call's begin. */
void tmpi_trace_enter(void)
{
    if (tmpi_depth == 0) {
        tmpi_trace_t0 = now_ns();
    }
}

/* Communicators already written: the layer's cache entry and its members
 * (a freed entry's memory may come back as another communicator). */
typedef struct known {
    const tmpi_comm *c;
    int32_t n;
    int32_t *members;
} known;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static known *comms;
static int32_t ncomms;

void tmpi_trace_start(int32_t world_rank)
{
    const char *dir = getenv(TMPI_TRACE_ENV);
    char path[4096];
    if (dir == NULL || *dir == '\0') {
        return;
    }
    snprintf(path, sizeof path, "%s/rank.%d.raw", dir, world_rank);
    tmpi_trace_file = fopen(path, "wb");
    if (tmpi_trace_file == NULL) {
        fprintf(stderr, "torusemu-mpi: rank %d: cannot write the trace %s\n", world_rank, path);
    }
}

/* One record: head and body in one write (stdio locks the stream). */
static void put(uint32_t type, const void *body, size_t len)
{
    char *buf = malloc(sizeof(tmpi_trace_head) + len);
    if (buf == NULL) {
        return;
    }
    tmpi_trace_head h = {type, (uint32_t)len, tmpi_trace_t0, now_ns()};
    memcpy(buf, &h, sizeof h);
    memcpy(buf + sizeof h, body, len);
    fwrite(buf, 1, sizeof h + len, tmpi_trace_file);
    free(buf);
}

void tmpi_trace_rma(int32_t target_world, uint64_t bytes, const void *payload, int kind)
{
    tmpi_trace_rma_rec r = {target_world, kind, bytes, (uint64_t)(uintptr_t)payload};
    put(TMPI_TRACE_RMA, &r, sizeof r);
}

/* Id of communicator c in this file, writing its record the first time. */
static int32_t comm_id(const tmpi_comm *c)
{
    int32_t n = c->size;
    int32_t *members = malloc((size_t)n * sizeof *members);
    int32_t id = -1;
    if (members == NULL) {
        return -1;
    }
    for (int32_t i = 0; i < n; i++) {
        members[i] = tmpi_comm_local(c, i);
    }
    pthread_mutex_lock(&lock);
    for (int32_t i = 0; i < ncomms && id < 0; i++) {
        if (comms[i].c == c && comms[i].n == n &&
            memcmp(comms[i].members, members, (size_t)n * sizeof *members) == 0) {
            id = i;
        }
    }
    if (id < 0) {
        known *grown = realloc(comms, (size_t)(ncomms + 1) * sizeof *grown);
        size_t len = sizeof(tmpi_trace_comm_rec) + (size_t)n * sizeof *members;
        char *body = malloc(len);
        if (grown != NULL && body != NULL) {
            comms = grown;
            id = ncomms++;
            comms[id] = (known){c, n, members};
            tmpi_trace_comm_rec rc = {id, n};
            memcpy(body, &rc, sizeof rc);
            memcpy(body + sizeof rc, members, (size_t)n * sizeof *members);
            put(TMPI_TRACE_COMM, body, len);
            members = NULL;
        }
        free(body);
    }
    pthread_mutex_unlock(&lock);
    free(members);
    return id;
}

/* Where a peer of comm goes in a record: the communicator's id in this file
 * and the peer's rank in it; an intercommunicator (whose members are not
 * one group of world ranks) or an unknown one, the world: -1 and the
 * peer's world rank. */
static void place(MPI_Comm comm, int peer, int32_t *id, int32_t *rank)
{
    tmpi_comm *c = tmpi_comm_get(comm);
    *id = c != NULL && !c->inter ? comm_id(c) : -1;
    *rank = *id >= 0 ? peer : c != NULL ? tmpi_comm_peer(c, peer) : -1;
}

void tmpi_trace_send(MPI_Comm comm, int dest, int32_t dst_world, int tag, uint64_t bytes,
                     const void *payload, uint64_t req)
{
    tmpi_trace_send_rec r = {dst_world, tag,          bytes, (uint64_t)(uintptr_t)payload, -1, -1,
                             req,       !tmpi_paused, 0};
    place(comm, dest, &r.comm, &r.peer);
    if (r.comm < 0) {
        r.peer = dst_world;
    }
    put(TMPI_TRACE_SEND, &r, sizeof r);
}

void tmpi_trace_recv(MPI_Comm comm, const MPI_Status *st, uint64_t req)
{
    int bytes = 0, cancelled = 0;
    if (st->MPI_SOURCE == MPI_PROC_NULL || st->MPI_SOURCE < 0 ||
        (PMPI_Test_cancelled(st, &cancelled) == MPI_SUCCESS && cancelled) ||
        PMPI_Get_count(st, MPI_BYTE, &bytes) != MPI_SUCCESS || bytes < 0) {
        return; /* nothing arrived (MPI_PROC_NULL, cancelled) */
    }
    tmpi_trace_recv_rec r = {-1, -1, st->MPI_TAG, 0, (uint64_t)bytes, req};
    place(comm, st->MPI_SOURCE, &r.comm, &r.peer);
    if (r.peer >= 0) {
        put(TMPI_TRACE_RECV, &r, sizeof r);
    }
}

void tmpi_trace_req(uint32_t type, uint64_t req)
{
    tmpi_trace_req_rec r = {req};
    put(type, &r, sizeof r);
}

void tmpi_trace_coll(const tmpi_comm *c, const tmpi_coll *k, const tmpi_coll_env *env,
                     const void *send_base, const void *recv_base, int recv_ready)
{
    int32_t id = comm_id(c);
    if (id < 0) {
        return;
    }
    int32_t nblocks = k->blocks == NULL ? 0 : (k->nb != NULL || k->nnb > 0 ? k->nnb : k->n);
    int has_offs = k->blocks != NULL && k->offs != NULL;
    size_t len = sizeof(tmpi_trace_coll_rec) + (size_t)nblocks * 8 * (has_offs ? 2 : 1) +
                 (size_t)(k->nnb > 0 ? k->nnb : 0) * 4;
    char *body = malloc(len);
    if (body == NULL) {
        return;
    }
    tmpi_trace_coll_rec r = {id,
                             c->rank,
                             k->op,
                             k->root,
                             k->commutative,
                             env->blocking,
                             env->hw_op,
                             recv_ready,
                             nblocks,
                             has_offs,
                             k->nnb > 0 ? k->nnb : 0,
                             0,
                             k->bytes,
                             k->count,
                             k->elem,
                             (uint64_t)(uintptr_t)send_base,
                             (uint64_t)(uintptr_t)recv_base};
    char *p = body;
    memcpy(p, &r, sizeof r);
    p += sizeof r;
    memcpy(p, k->blocks, (size_t)nblocks * 8);
    p += (size_t)nblocks * 8;
    if (has_offs) {
        memcpy(p, k->offs, (size_t)nblocks * 8);
        p += (size_t)nblocks * 8;
    }
    if (r.nnb > 0) {
        memcpy(p, k->nb, (size_t)r.nnb * 4);
    }
    put(TMPI_TRACE_COLL, body, len);
    free(body);
}
