/*
 * tgather.c - job-wide gathering (Pedretti et al., "Using the Cray Gemini
 * Performance Counters", CUG 2013, section IV): one leader process per
 * Gemini reads its router's logical-link counters through PAPI, and rank 0
 * gathers them.  The paper's library sampled twice and printed the delta;
 * here PAPI_start zeroes the event set, so the value at PAPI_stop is that
 * delta.  The library's own messages run under MPI_Pcontrol(0) (see the
 * end of this file), so they never show in the counts.
 */
#include "tgather.h"
#include "tgather_priv.h"

#include <papi.h>
#include <stdlib.h>
#include <string.h>

static struct {
    int started, stopped;
    MPI_Comm comm;    /* the caller's communicator                      */
    MPI_Comm leaders; /* one process per router, MPI_COMM_NULL elsewhere */
    temu_session *session;
    int64_t router;
    int eventset;
    long long values[TEMU_MAX_LINKS * TG_COUNTERS];
} st = {0, 0, MPI_COMM_NULL, MPI_COMM_NULL, NULL, -1, PAPI_NULL, {0}};

static int fail(const char *what)
{
    fprintf(stderr, "tgather: %s\n", what);
    return -1;
}

/* Whether every process of comm succeeded (ok = 1 here): all fail together. */
static int all_ok(int ok)
{
    int all = 0;
    PMPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, st.comm);
    return all;
}

/* Leader only: an event set with the counters of every link. */
static int leader_events(const temu_machine *m)
{
    char name[128];
    const char *const *tcols, *const *ccols;
    int ncol = tg_columns(m, &tcols, &ccols);
    int rc = PAPI_library_init(PAPI_VER_CURRENT);
    if (rc != PAPI_VER_CURRENT && rc != PAPI_OK) {
        if (!PAPI_is_initialized()) {
            return fail("PAPI_library_init failed");
        }
    }
    int cid = PAPI_get_component_index(tg_family_of(m)->component);
    const PAPI_component_info_t *info = cid >= 0 ? PAPI_get_component_info(cid) : NULL;
    if (info == NULL || info->disabled) {
        fprintf(stderr, "tgather: PAPI component %s is not enabled%s%s\n", tg_family_of(m)->component,
                info != NULL ? ": " : "", info != NULL ? info->disabled_reason : "");
        return -1;
    }
    st.eventset = PAPI_NULL;
    if (PAPI_create_eventset(&st.eventset) != PAPI_OK) {
        return fail("PAPI_create_eventset failed");
    }
    for (int l = 0; l < m->nlinks; l++) {
        for (int k = 0; k < ncol; k++) {
            tg_family_of(m)->event_name(temu_link_name(m, l), k, name, sizeof name);
            rc = PAPI_add_named_event(st.eventset, name);
            if (rc != PAPI_OK) {
                fprintf(stderr, "tgather: cannot add %s: %s\n", name, PAPI_strerror(rc));
                return -1;
            }
        }
    }
    return 0;
}

static int start(MPI_Comm comm)
{
    temu_error err;
    const char *path = getenv("TORUSEMU_SESSION");
    if (st.started) {
        return fail("tgather_start called twice");
    }
    st.comm = comm;
    int rank, ok = 1;
    PMPI_Comm_rank(comm, &rank);
    if (path == NULL || path[0] == '\0') {
        ok = fail("TORUSEMU_SESSION is not set (run the program under torusemu run)");
    } else if (temu_session_attach_ex(path, TEMU_ATTACH_READONLY, &st.session, &err) != TEMU_OK) {
        fprintf(stderr, "tgather: %s\n", err.message);
        ok = 0;
    }
    if (!all_ok(ok)) {
        return -1;
    }
    const temu_machine *m = temu_session_machine(st.session);
    st.router = temu_node_router(m, temu_identity_get(st.session).node);

    /* the leader of a router is its lowest rank in comm (rank 0 leads its own) */
    MPI_Comm same;
    int pos;
    PMPI_Comm_split(comm, (int)st.router, rank, &same);
    PMPI_Comm_rank(same, &pos);
    PMPI_Comm_free(&same);
    PMPI_Comm_split(comm, pos == 0 ? 0 : MPI_UNDEFINED, rank, &st.leaders);
    ok = st.leaders == MPI_COMM_NULL || leader_events(m) == 0;
    if (!all_ok(ok)) {
        return -1;
    }
    /* every leader counts before anyone goes on to send */
    if (st.leaders != MPI_COMM_NULL && PAPI_start(st.eventset) != PAPI_OK) {
        ok = fail("PAPI_start failed");
    }
    if (!all_ok(ok)) {
        return -1;
    }
    st.started = 1;
    return 0;
}

static int stop(void)
{
    int ok = 1;
    if (!st.started || st.stopped) {
        return fail("tgather_stop without a running tgather_start");
    }
    /* all traffic of the region is injected (the sender counts) before the
     * leaders read */
    PMPI_Barrier(st.comm);
    if (st.leaders != MPI_COMM_NULL) {
        /* the set holds ncol events per link; the record TG_COUNTERS slots */
        const temu_machine *m = temu_session_machine(st.session);
        const char *const *tcols, *const *ccols;
        int ncol = tg_columns(m, &tcols, &ccols);
        long long raw[TEMU_MAX_LINKS * TG_COUNTERS];
        if (PAPI_stop(st.eventset, raw) != PAPI_OK) {
            ok = fail("PAPI_stop failed");
        }
        memset(st.values, 0, sizeof st.values);
        for (int l = 0; ok && l < m->nlinks; l++) {
            memcpy(st.values + l * TG_COUNTERS, raw + l * ncol, (size_t)ncol * sizeof *raw);
        }
    }
    if (!all_ok(ok)) {
        return -1;
    }
    st.stopped = 1;
    return 0;
}

static FILE *open_out(const char *path)
{
    if (strcmp(path, "-") == 0) {
        return stdout;
    }
    FILE *f = fopen(path, "w");
    if (f == NULL) {
        fprintf(stderr, "tgather: cannot write %s\n", path);
    }
    return f;
}

static int write_one(const char *path, const temu_machine *m, const long long *all, int n,
                     void (*writer)(FILE *, const temu_machine *, const long long *, int))
{
    if (path == NULL || path[0] == '\0') {
        return 1;
    }
    FILE *f = open_out(path);
    if (f == NULL) {
        return 0;
    }
    writer(f, m, all, n);
    int ok = !ferror(f);
    if (f != stdout ? fclose(f) != 0 : fflush(f) != 0) {
        ok = 0;
    }
    if (!ok) {
        fprintf(stderr, "tgather: write error on %s\n", path);
    }
    return ok;
}

static int report(const char *table, const char *csv)
{
    int ok = 1;
    if (!st.stopped) {
        return fail("tgather_report before tgather_stop");
    }
    const temu_machine *m = temu_session_machine(st.session);
    if (st.leaders != MPI_COMM_NULL) {
        long long mine[TG_RECORD];
        int nlead, lrank;
        PMPI_Comm_size(st.leaders, &nlead);
        PMPI_Comm_rank(st.leaders, &lrank);
        mine[0] = st.router;
        memcpy(mine + 1, st.values, sizeof st.values);
        long long *all = lrank == 0 ? malloc((size_t)nlead * sizeof mine) : NULL;
        if (lrank == 0 && all == NULL) {
            ok = fail("out of memory gathering the counters");
        }
        PMPI_Gather(mine, TG_RECORD, MPI_LONG_LONG, all, TG_RECORD, MPI_LONG_LONG, 0, st.leaders);
        if (all != NULL) {
            ok = write_one(table, m, all, nlead, tg_write_table) &&
                 write_one(csv, m, all, nlead, tg_write_csv);
            free(all);
        }
        PAPI_cleanup_eventset(st.eventset);
        PAPI_destroy_eventset(&st.eventset);
        PMPI_Comm_free(&st.leaders);
    }
    temu_session_close(st.session);
    st.session = NULL;
    st.started = st.stopped = 0;
    return all_ok(ok) ? 0 : -1;
}

/* The library's own messages (splits, barrier, reductions, the gather) must
 * not reach the emulated network: the interposition layer counts PMPI calls
 * too (doc/mpi.md, "PMPI tools"), so each call runs with counting paused by
 * the standard profiling hook and resumes it on return. */
int tgather_start(MPI_Comm comm)
{
    MPI_Pcontrol(0);
    int rc = start(comm);
    MPI_Pcontrol(1);
    return rc;
}

int tgather_stop(void)
{
    MPI_Pcontrol(0);
    int rc = stop();
    MPI_Pcontrol(1);
    return rc;
}

int tgather_report(const char *table, const char *csv)
{
    MPI_Pcontrol(0);
    int rc = report(table, csv);
    MPI_Pcontrol(1);
    return rc;
}
