/*
 * otf2_write.c - the raw per-rank trace files of a live run (written by the
 * MPI layer, protocol/trace_format.h) into one OTF2 archive, by one process
 * after the run (OTF2's serial collectives: every location is written
 * here).  Point-to-point sends are MpiSend or MpiIsend (and
 * MpiIsendComplete), receives MpiRecv or MpiIrecvRequest and MpiIrecv, on
 * the program's communicator with its tags and sizes; one-sided
 * operations RmaPut/RmaGet on a window over MPI_COMM_WORLD, collectives
 * MpiCollectiveBegin/End on their communicator with the live layer's
 * description in torusemu:* attributes (otf2_trace.h).  Timestamps are
 * CLOCK_MONOTONIC nanoseconds: a send, post, one-sided operation or
 * collective begin when its call was entered, a receive, completion or
 * collective end when the call returned.
 */
#include "otf2_trace.h"

#include "torusemu_coll.h"
#include "trace_format.h"

#include <otf2/otf2.h>

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const char *const temu_otf2_attr_names[TEMU_OTF2_ATTRS] = {
    TEMU_OTF2_ATTR_OP,        TEMU_OTF2_ATTR_BYTES,   TEMU_OTF2_ATTR_COUNT,
    TEMU_OTF2_ATTR_ELEM,      TEMU_OTF2_ATTR_FLAGS,   TEMU_OTF2_ATTR_SEND_BASE,
    TEMU_OTF2_ATTR_RECV_BASE, TEMU_OTF2_ATTR_BLOCKS,  TEMU_OTF2_ATTR_OFFS,
    TEMU_OTF2_ATTR_NEIGHBORS, TEMU_OTF2_ATTR_ADDRESS, TEMU_OTF2_ATTR_UNCOUNTED,
};

const char *const temu_otf2_attr_descs[TEMU_OTF2_ATTRS] = {
    "collective as the torusemu MPI layer names it (coll/coll.h)",
    "bytes: buffer or block, as the layer took them",
    "reduction element count",
    "reduction element size in bytes",
    "1 commutative, 2 blocking, 4 hardware op, 8 receive buffer final",
    "address of the send buffer's data",
    "address of the receive buffer's data",
    "per-rank block sizes in bytes",
    "per-rank block offsets in bytes",
    "out-neighbours (communicator ranks, -1 none)",
    "address of the sender's data",
    "1: a send made while MPI_Pcontrol(0) paused counting (matched, not counted)",
};

/* OTF2 type of attribute i: the lists are strings, op and flags 32-bit. */
static OTF2_Type attr_type(int i)
{
    if (i == TEMU_OTF2_A_BLOCKS || i == TEMU_OTF2_A_OFFS || i == TEMU_OTF2_A_NEIGHBORS) {
        return OTF2_TYPE_STRING;
    }
    return i == TEMU_OTF2_A_OP || i == TEMU_OTF2_A_FLAGS ? OTF2_TYPE_UINT32 : OTF2_TYPE_UINT64;
}

/* OTF2's name for each collective (neighbourhood ones have none: the
 * closest, with the exact operation in torusemu:op). */
static OTF2_CollectiveOp otf2_op(int op)
{
    static const OTF2_CollectiveOp map[TEMU_COLL_OPS] = {
        [TEMU_COLL_BARRIER] = OTF2_COLLECTIVE_OP_BARRIER,
        [TEMU_COLL_BCAST] = OTF2_COLLECTIVE_OP_BCAST,
        [TEMU_COLL_GATHER] = OTF2_COLLECTIVE_OP_GATHER,
        [TEMU_COLL_GATHERV] = OTF2_COLLECTIVE_OP_GATHERV,
        [TEMU_COLL_SCATTER] = OTF2_COLLECTIVE_OP_SCATTER,
        [TEMU_COLL_SCATTERV] = OTF2_COLLECTIVE_OP_SCATTERV,
        [TEMU_COLL_ALLGATHER] = OTF2_COLLECTIVE_OP_ALLGATHER,
        [TEMU_COLL_ALLGATHERV] = OTF2_COLLECTIVE_OP_ALLGATHERV,
        [TEMU_COLL_ALLTOALL] = OTF2_COLLECTIVE_OP_ALLTOALL,
        [TEMU_COLL_ALLTOALLV] = OTF2_COLLECTIVE_OP_ALLTOALLV,
        [TEMU_COLL_REDUCE] = OTF2_COLLECTIVE_OP_REDUCE,
        [TEMU_COLL_ALLREDUCE] = OTF2_COLLECTIVE_OP_ALLREDUCE,
        [TEMU_COLL_REDUCE_SCATTER] = OTF2_COLLECTIVE_OP_REDUCE_SCATTER,
        [TEMU_COLL_SCAN] = OTF2_COLLECTIVE_OP_SCAN,
        [TEMU_COLL_EXSCAN] = OTF2_COLLECTIVE_OP_EXSCAN,
        [TEMU_COLL_NEIGHBOR_ALLGATHER] = OTF2_COLLECTIVE_OP_ALLGATHER,
        [TEMU_COLL_NEIGHBOR_ALLTOALL] = OTF2_COLLECTIVE_OP_ALLTOALL,
    };
    return op >= 0 && op < TEMU_COLL_OPS ? map[op] : OTF2_COLLECTIVE_OP_BARRIER;
}

/* Communicators of the whole run, one per distinct member list. */
typedef struct gcomm {
    int32_t n;
    int32_t *members;
} gcomm;

typedef struct writer {
    OTF2_Archive *a;
    gcomm *comms;
    uint32_t ncomms;
    char **strings; /* string definitions after the fixed names */
    uint32_t nstrings;
    uint64_t t_min, t_max;
    char *msg;
    size_t len;
} writer;

static int fail(writer *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(writer *w, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(w->msg, w->len, fmt, ap);
    va_end(ap);
    return -1;
}

static uint32_t comm_of(writer *w, int32_t n, const int32_t *members)
{
    for (uint32_t i = 0; i < w->ncomms; i++) {
        if (w->comms[i].n == n && memcmp(w->comms[i].members, members, (size_t)n * 4) == 0) {
            return i;
        }
    }
    gcomm *grown = realloc(w->comms, (w->ncomms + 1) * sizeof *grown);
    int32_t *copy = malloc((size_t)n * 4 + 1);
    if (grown == NULL || copy == NULL) {
        free(copy);
        if (grown != NULL) {
            w->comms = grown;
        }
        return UINT32_MAX;
    }
    memcpy(copy, members, (size_t)n * 4);
    w->comms = grown;
    w->comms[w->ncomms] = (gcomm){n, copy};
    return w->ncomms++;
}

/* A string definition (numbered after the fixed ones) holding a list. */
static uint32_t list_string(writer *w, const void *v, int32_t n, int is64)
{
    size_t cap = (size_t)n * 21 + 1, used = 0;
    char *s = malloc(cap);
    char **grown = realloc(w->strings, (w->nstrings + 1) * sizeof *grown);
    if (s == NULL || grown == NULL) {
        free(s);
        if (grown != NULL) {
            w->strings = grown;
        }
        return UINT32_MAX;
    }
    w->strings = grown;
    s[0] = '\0';
    for (int32_t i = 0; i < n; i++) {
        used += (size_t)snprintf(s + used, cap - used, i ? " %" PRId64 : "%" PRId64,
                                 is64 ? (int64_t)((const uint64_t *)v)[i]
                                      : (int64_t)((const int32_t *)v)[i]);
    }
    w->strings[w->nstrings] = s;
    return w->nstrings++;
}

/* Fixed string ids */
enum {
    S_EMPTY,
    S_MACHINE,
    S_WORLD,
    S_WINDOW,
    S_COMM,
    S_ATTRS,
    S_RANK = S_ATTRS + 2 * TEMU_OTF2_ATTRS
};

static OTF2_FlushType pre_flush(void *u, OTF2_FileType ft, OTF2_LocationRef loc, void *cb,
                                bool final)
{
    (void)u;
    (void)ft;
    (void)loc;
    (void)cb;
    (void) final;
    return OTF2_FLUSH;
}

static OTF2_TimeStamp post_flush(void *u, OTF2_FileType ft, OTF2_LocationRef loc)
{
    (void)u;
    (void)ft;
    (void)loc;
    return 0;
}

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    char *buf = NULL;
    if (f == NULL) {
        return NULL;
    }
    if (fseek(f, 0, SEEK_END) == 0) {
        long n = ftell(f);
        rewind(f);
        buf = n >= 0 ? malloc((size_t)n + 1) : NULL;
        if (buf != NULL && fread(buf, 1, (size_t)n, f) != (size_t)n) {
            free(buf);
            buf = NULL;
        }
        *len = (size_t)n;
    }
    fclose(f);
    return buf;
}

/* A send or a completed receive (type) of rank: on its communicator (run
 * id local[comm]) or, for comm -1, on the world. */
static int write_p2p(writer *w, OTF2_EvtWriter *ev, OTF2_AttributeList *al, uint64_t t,
                     int32_t rank, uint32_t type, const char *body, const uint32_t *local,
                     int32_t nlocal)
{
    int32_t comm, peer, tag;
    uint64_t bytes, req;
    tmpi_trace_send_rec s;
    tmpi_trace_recv_rec r;
    if (type == TMPI_TRACE_SEND) {
        memcpy(&s, body, sizeof s);
        comm = s.comm, peer = s.peer, tag = s.tag, bytes = s.bytes, req = s.req;
    } else {
        memcpy(&r, body, sizeof r);
        comm = r.comm, peer = r.peer, tag = r.tag, bytes = r.bytes, req = r.req;
    }
    if (comm >= 0 && (comm >= nlocal || local == NULL)) {
        return fail(w, "rank %d: message on an undefined communicator", rank);
    }
    uint32_t c = comm < 0 ? 0 : local[comm];
    if (type == TMPI_TRACE_RECV) {
        if (req != 0) {
            OTF2_EvtWriter_MpiIrecv(ev, NULL, t, (uint32_t)peer, c, (uint32_t)tag, bytes, req);
        } else {
            OTF2_EvtWriter_MpiRecv(ev, NULL, t, (uint32_t)peer, c, (uint32_t)tag, bytes);
        }
        return 0;
    }
    OTF2_AttributeList_AddUint64(al, TEMU_OTF2_A_ADDRESS, s.addr);
    if (!s.counted) {
        OTF2_AttributeList_AddUint64(al, TEMU_OTF2_A_UNCOUNTED, 1);
    }
    if (req != 0) {
        OTF2_EvtWriter_MpiIsend(ev, al, t, (uint32_t)peer, c, (uint32_t)tag, bytes, req);
    } else {
        OTF2_EvtWriter_MpiSend(ev, al, t, (uint32_t)peer, c, (uint32_t)tag, bytes);
    }
    return 0;
}

/* One rank's raw file into its OTF2 location; *events counts them. */
static int write_rank(writer *w, const char *dir, int32_t rank, uint64_t *events)
{
    char path[4096];
    size_t len = 0;
    snprintf(path, sizeof path, "%s/rank.%d.raw", dir, rank);
    char *buf = slurp(path, &len);
    if (buf == NULL) {
        return fail(w, "no trace of rank %d in %s (%s)", rank, dir, strerror(errno));
    }
    OTF2_EvtWriter *ev = OTF2_Archive_GetEvtWriter(w->a, (OTF2_LocationRef)rank);
    OTF2_AttributeList *al = OTF2_AttributeList_New();
    uint32_t *local = NULL; /* file comm id -> run comm id */
    int32_t nlocal = 0;
    uint64_t last = 0;
    int rc = 0;
    for (size_t off = 0; rc == 0 && off + sizeof(tmpi_trace_head) <= len;) {
        tmpi_trace_head h;
        memcpy(&h, buf + off, sizeof h);
        const char *body = buf + off + sizeof h;
        off += sizeof h + h.len;
        if (off > len) {
            rc = fail(w, "rank %d: trace truncated", rank);
            break;
        }
        /* OTF2 wants time non-decreasing per location (threads may write
         * their records in another order than they stamped them) */
        uint64_t t = h.t_ns > last ? h.t_ns : last;
        /* tb: when the call began (its send, post or collective begin),
         * between the previous record and this one */
        uint64_t tb = h.t_begin_ns < last ? last : h.t_begin_ns > t ? t : h.t_begin_ns;
        if (h.type != TMPI_TRACE_COMM) { /* a definition, written within a call */
            last = t;
            w->t_min = tb < w->t_min ? tb : w->t_min;
            w->t_max = t > w->t_max ? t : w->t_max;
        }
        if (h.type == TMPI_TRACE_SEND || h.type == TMPI_TRACE_RECV) {
            rc = write_p2p(w, ev, al, h.type == TMPI_TRACE_SEND ? tb : t, rank, h.type, body, local,
                           nlocal);
            (*events)++;
        } else if (h.type == TMPI_TRACE_ISEND_DONE || h.type == TMPI_TRACE_IRECV_POST) {
            tmpi_trace_req_rec q;
            memcpy(&q, body, sizeof q);
            if (h.type == TMPI_TRACE_ISEND_DONE) {
                OTF2_EvtWriter_MpiIsendComplete(ev, NULL, t, q.req);
            } else {
                OTF2_EvtWriter_MpiIrecvRequest(ev, NULL, tb, q.req);
            }
            (*events)++;
        } else if (h.type == TMPI_TRACE_RMA) {
            tmpi_trace_rma_rec s;
            memcpy(&s, body, sizeof s);
            OTF2_AttributeList_AddUint64(al, TEMU_OTF2_A_ADDRESS, s.addr);
            if (s.kind == TEMU_KIND_GET) {
                OTF2_EvtWriter_RmaGet(ev, al, tb, 0, (uint32_t)s.target, s.bytes, 0);
            } else {
                OTF2_EvtWriter_RmaPut(ev, al, tb, 0, (uint32_t)s.target, s.bytes, 0);
            }
            (*events)++;
        } else if (h.type == TMPI_TRACE_COMM) {
            tmpi_trace_comm_rec c;
            memcpy(&c, body, sizeof c);
            if (c.id >= nlocal) {
                uint32_t *grown = realloc(local, (size_t)(c.id + 1) * sizeof *grown);
                if (grown == NULL) {
                    rc = fail(w, "out of memory: %zu bytes for rank %d's communicators",
                              (size_t)(c.id + 1) * sizeof *grown, rank);
                    break;
                }
                local = grown;
                nlocal = c.id + 1;
            }
            local[c.id] = comm_of(w, c.n, (const int32_t *)(body + sizeof c));
        } else if (h.type == TMPI_TRACE_COLL) {
            tmpi_trace_coll_rec c;
            memcpy(&c, body, sizeof c);
            const char *p = body + sizeof c;
            if (c.comm < 0 || c.comm >= nlocal) {
                rc = fail(w, "rank %d: collective on an undefined communicator", rank);
                break;
            }
            uint32_t comm = local[c.comm];
            int32_t n = w->comms[comm].n;
            OTF2_AttributeList_AddUint32(al, TEMU_OTF2_A_OP, (uint32_t)c.op);
            OTF2_AttributeList_AddUint64(al, TEMU_OTF2_A_BYTES, c.bytes);
            OTF2_AttributeList_AddUint64(al, TEMU_OTF2_A_COUNT, c.count);
            OTF2_AttributeList_AddUint64(al, TEMU_OTF2_A_ELEM, c.elem);
            OTF2_AttributeList_AddUint32(al, TEMU_OTF2_A_FLAGS,
                                         (uint32_t)((c.commutative != 0) | (c.blocking != 0) << 1 |
                                                    (c.hw_op != 0) << 2 |
                                                    (c.recv_ready != 0) << 3));
            OTF2_AttributeList_AddUint64(al, TEMU_OTF2_A_SEND_BASE, c.send_base);
            OTF2_AttributeList_AddUint64(al, TEMU_OTF2_A_RECV_BASE, c.recv_base);
            if (c.nblocks > 0) {
                OTF2_AttributeList_AddStringRef(al, TEMU_OTF2_A_BLOCKS,
                                                S_RANK + (uint32_t)list_string(w, p, c.nblocks, 1));
                p += (size_t)c.nblocks * 8;
                if (c.has_offs) {
                    OTF2_AttributeList_AddStringRef(
                        al, TEMU_OTF2_A_OFFS, S_RANK + (uint32_t)list_string(w, p, c.nblocks, 1));
                    p += (size_t)c.nblocks * 8;
                }
            }
            if (c.nnb > 0) {
                OTF2_AttributeList_AddStringRef(al, TEMU_OTF2_A_NEIGHBORS,
                                                S_RANK + (uint32_t)list_string(w, p, c.nnb, 0));
            }
            /* sizes as Score-P records them: totals over the members */
            uint64_t all = (uint64_t)n * c.bytes;
            int a2a = c.op == TEMU_COLL_ALLTOALL || c.op == TEMU_COLL_ALLGATHER;
            uint64_t sent = a2a ? all : c.op == TEMU_COLL_BCAST ? (c.me == c.root ? all : 0) : c.bytes;
            uint64_t rcvd = a2a ? all : c.bytes;
            OTF2_EvtWriter_MpiCollectiveBegin(ev, NULL, tb);
            OTF2_EvtWriter_MpiCollectiveEnd(ev, al, t, otf2_op(c.op), comm, (uint32_t)c.root, sent,
                                            rcvd);
            (*events) += 2;
        }
    }
    OTF2_AttributeList_Delete(al);
    OTF2_Archive_CloseEvtWriter(w->a, ev);
    free(local);
    free(buf);
    if (rc == 0) {
        unlink(path);
    }
    return rc;
}

static void write_defs(writer *w, int32_t nranks, const uint64_t *events)
{
    OTF2_GlobalDefWriter *g = OTF2_Archive_GetGlobalDefWriter(w->a);
    char name[64];
    OTF2_GlobalDefWriter_WriteClockProperties(g, 1000000000u, w->t_min,
                                              w->t_max >= w->t_min ? w->t_max - w->t_min + 1 : 1,
                                              OTF2_UNDEFINED_TIMESTAMP);
    OTF2_GlobalDefWriter_WriteString(g, S_EMPTY, "");
    OTF2_GlobalDefWriter_WriteString(g, S_MACHINE, "emulated machine");
    OTF2_GlobalDefWriter_WriteString(g, S_WORLD, "MPI_COMM_WORLD");
    OTF2_GlobalDefWriter_WriteString(g, S_WINDOW, "one-sided operations");
    OTF2_GlobalDefWriter_WriteString(g, S_COMM, "communicator");
    for (int i = 0; i < TEMU_OTF2_ATTRS; i++) {
        OTF2_GlobalDefWriter_WriteString(g, S_ATTRS + 2 * (uint32_t)i, temu_otf2_attr_names[i]);
        OTF2_GlobalDefWriter_WriteString(g, S_ATTRS + 2 * (uint32_t)i + 1, temu_otf2_attr_descs[i]);
    }
    for (uint32_t i = 0; i < w->nstrings; i++) {
        OTF2_GlobalDefWriter_WriteString(g, S_RANK + i, w->strings[i]);
    }
    uint32_t s_rank = S_RANK + w->nstrings;
    for (int32_t r = 0; r < nranks; r++) {
        snprintf(name, sizeof name, "MPI rank %d", r);
        OTF2_GlobalDefWriter_WriteString(g, s_rank + (uint32_t)r, name);
    }
    OTF2_GlobalDefWriter_WriteSystemTreeNode(g, 0, S_MACHINE, S_MACHINE,
                                             OTF2_UNDEFINED_SYSTEM_TREE_NODE);
    for (int32_t r = 0; r < nranks; r++) {
        OTF2_GlobalDefWriter_WriteLocationGroup(g, (uint32_t)r, s_rank + (uint32_t)r,
                                                OTF2_LOCATION_GROUP_TYPE_PROCESS, 0,
                                                OTF2_UNDEFINED_LOCATION_GROUP);
        OTF2_GlobalDefWriter_WriteLocation(g, (uint64_t)r, s_rank + (uint32_t)r,
                                           OTF2_LOCATION_TYPE_CPU_THREAD, events[r], (uint32_t)r);
    }
    for (int i = 0; i < TEMU_OTF2_ATTRS; i++) {
        OTF2_GlobalDefWriter_WriteAttribute(g, (uint32_t)i, S_ATTRS + 2 * (uint32_t)i,
                                            S_ATTRS + 2 * (uint32_t)i + 1, attr_type(i));
    }
    /* group 0: the MPI locations in world-rank order; group 1 + i: the
     * members of communicator i as world ranks (indices into group 0) */
    uint64_t *members = malloc(((size_t)nranks + 1) * sizeof *members);
    for (int32_t r = 0; members != NULL && r < nranks; r++) {
        members[r] = (uint64_t)r;
    }
    if (members != NULL) {
        OTF2_GlobalDefWriter_WriteGroup(g, 0, S_EMPTY, OTF2_GROUP_TYPE_COMM_LOCATIONS,
                                        OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE, (uint32_t)nranks,
                                        members);
    }
    for (uint32_t i = 0; members != NULL && i < w->ncomms; i++) {
        for (int32_t j = 0; j < w->comms[i].n; j++) {
            members[j] = (uint64_t)w->comms[i].members[j];
        }
        OTF2_GlobalDefWriter_WriteGroup(g, 1 + i, S_EMPTY, OTF2_GROUP_TYPE_COMM_GROUP,
                                        OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE,
                                        (uint32_t)w->comms[i].n, members);
        OTF2_GlobalDefWriter_WriteComm(g, i, i == 0 ? S_WORLD : S_COMM, 1 + i, OTF2_UNDEFINED_COMM,
                                       OTF2_COMM_FLAG_NONE);
    }
    free(members);
    OTF2_GlobalDefWriter_WriteRmaWin(g, 0, S_WINDOW, 0, OTF2_RMA_WIN_FLAG_NONE);
}

/* The raw per-rank files of DIR of a run of nranks ranks into the OTF2
 * archive DIR/traces.otf2, each removed once written; 0, or -1 with a
 * reason in msg. */
static int otf2_write(const char *dir, int32_t nranks, char *msg, size_t len)
{
    writer w;
    memset(&w, 0, sizeof w);
    w.msg = msg;
    w.len = len;
    w.t_min = UINT64_MAX;
    uint64_t *events = calloc((size_t)nranks + 1, sizeof *events);
    int32_t *world = calloc((size_t)nranks + 1, sizeof *world);
    int rc = 0;
    if (events == NULL || world == NULL) {
        free(events);
        free(world);
        return fail(&w, "out of memory: %zu bytes for %d ranks",
                    ((size_t)nranks + 1) * (sizeof *events + sizeof *world), nranks);
    }
    /* communicator 0 is the world, whatever the files define */
    for (int32_t r = 0; r < nranks; r++) {
        world[r] = r;
    }
    comm_of(&w, nranks, world);
    free(world);
    w.a = OTF2_Archive_Open(dir, "traces", OTF2_FILEMODE_WRITE, 1024 * 1024, 4 * 1024 * 1024,
                            OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
    if (w.a == NULL) {
        free(events);
        return fail(&w, "cannot create an OTF2 archive in %s", dir);
    }
    OTF2_FlushCallbacks flush = {pre_flush, post_flush};
    OTF2_Archive_SetFlushCallbacks(w.a, &flush, NULL);
    OTF2_Archive_SetSerialCollectiveCallbacks(w.a);
    OTF2_Archive_SetCreator(w.a, "torusemu run --trace");
    OTF2_Archive_SetDescription(w.a, "MPI communication of a run on an emulated machine");
    OTF2_Archive_SetProperty(w.a, TEMU_OTF2_PROP_RECEIVES, "yes", true);
    OTF2_Archive_OpenEvtFiles(w.a);
    for (int32_t r = 0; rc == 0 && r < nranks; r++) {
        rc = write_rank(&w, dir, r, &events[r]);
    }
    OTF2_Archive_CloseEvtFiles(w.a);
    if (rc == 0) {
        if (w.t_min == UINT64_MAX) {
            w.t_min = w.t_max = 0;
        }
        write_defs(&w, nranks, events);
        /* empty local definition files: readers open one per location */
        OTF2_Archive_OpenDefFiles(w.a);
        for (int32_t r = 0; r < nranks; r++) {
            OTF2_DefWriter *d = OTF2_Archive_GetDefWriter(w.a, (OTF2_LocationRef)r);
            OTF2_Archive_CloseDefWriter(w.a, d);
        }
        OTF2_Archive_CloseDefFiles(w.a);
    }
    if (OTF2_Archive_Close(w.a) != OTF2_SUCCESS && rc == 0) {
        rc = fail(&w, "writing the OTF2 archive in %s failed", dir);
    }
    for (uint32_t i = 0; i < w.ncomms; i++) {
        free(w.comms[i].members);
    }
    for (uint32_t i = 0; i < w.nstrings; i++) {
        free(w.strings[i]);
    }
    free(w.comms);
    free(w.strings);
    free(events);
    return rc;
}

/* Remove from dir the raw files of nranks ranks and what an archive of
 * theirs holds: only files this code writes, never others in dir. */
static void trace_files_remove(const char *dir, int32_t nranks)
{
    static const char *const per_rank[] = {"%s/rank.%d.raw", "%s/traces/%d.evt",
                                           "%s/traces/%d.def"};
    static const char *const archive[] = {"%s/traces.otf2", "%s/traces.def"};
    char path[4096];
    for (int32_t r = 0; r < nranks; r++) {
        for (size_t i = 0; i < sizeof per_rank / sizeof per_rank[0]; i++) {
            snprintf(path, sizeof path, per_rank[i], dir, r);
            unlink(path);
        }
    }
    for (size_t i = 0; i < sizeof archive / sizeof archive[0]; i++) {
        snprintf(path, sizeof path, archive[i], dir);
        unlink(path);
    }
    snprintf(path, sizeof path, "%s/traces", dir);
    rmdir(path);
}

/* DIR/traces.incomplete: why (its first line) and what it means. */
static void incomplete_mark(const char *dir, int32_t nranks, const char *why)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/" TEMU_OTF2_INCOMPLETE, dir);
    FILE *f = fopen(path, "w");
    if (f == NULL) {
        return; /* the message on stderr still says why */
    }
    fprintf(f,
            "%s\n\n"
            "This directory holds no OTF2 trace: `torusemu run --trace` of %d ranks wrote\n"
            "no archive here (the line above says why).  The ranks' raw records and any\n"
            "part of an archive were removed.  A new `torusemu run --trace` into this\n"
            "directory replaces this file.\n",
            why, nranks);
    fclose(f);
}

int temu_otf2_finish(const char *dir, int32_t nranks, int run_status, char *msg, size_t len)
{
    char why[512];
    /* a launcher killed while converting leaves this much */
    incomplete_mark(dir, nranks, "the conversion into OTF2 did not finish");
    if (run_status != 0) {
        snprintf(why, sizeof why,
                 "the run failed (exit status %d): its ranks' records may be cut short",
                 run_status);
    } else if (otf2_write(dir, nranks, why, sizeof why) == 0) {
        char path[4096];
        snprintf(path, sizeof path, "%s/" TEMU_OTF2_INCOMPLETE, dir);
        unlink(path);
        return 0;
    }
    trace_files_remove(dir, nranks);
    incomplete_mark(dir, nranks, why);
    snprintf(msg, len, "%s (%s/" TEMU_OTF2_INCOMPLETE " says so)", why, dir);
    return -1;
}
