/*
 * rowa2a_papi - the row all-to-all of a 3-D FFT (McCraw 2013 section 4.2)
 * measured the way McCraw et al. did: with PAPI network events read
 * inside the application.
 *
 *   rowa2a_papi --rows R --cols C [--bytes B] [--iters N]
 *
 * P = R x C ranks; row i holds ranks i, i+R, i+2R, ... and does an
 * MPI_Alltoall of B bytes per pair, N times.  Every rank counts the network
 * events of its node (Blue Gene/Q: bgq_nwunit) or of its Gemini router
 * (Cray: gemini_tile) around the exchange; one rank per node (per Gemini)
 * reports, and rank 0 prints one line per node:
 *
 *   node NAME EVENT=VALUE EVENT=VALUE ...
 *
 * followed by "total EVENT=VALUE ...".  The component is chosen by which one
 * the session enables (the other is disabled: its machine is not the
 * session's).  Synchronisation runs under MPI_Pcontrol(0), so only the
 * all-to-all is counted.  Received data is checked; a wrong byte is reported
 * and the program exits with status 1.
 */
#include <mpi.h>
#include <papi.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_EVENTS 8

typedef struct event_group {
    const char *component;
    const char *label[MAX_EVENTS]; /* column names printed          */
    const char *events[MAX_EVENTS][7]; /* each column: sum of events */
} event_group;

/*
 * Blue Gene/Q: 32-byte chunks sent on the user point-to-point channels over
 * all 11 links of the node (pass-through included, McCraw 2013 Fig. 2) and
 * packets received.  Gemini: phits arriving at the router over its six
 * torus links (the arrival view of Pedretti 2013 V.B), and phits its two nodes
 * injected through the host tiles.
 */
static const event_group groups[] = {
    {"bgq_nwunit",
     {"chunks_sent", "packets_recv"},
     {{"PEVT_NW_USER_PP_SENT"}, {"PEVT_NW_USER_PP_RECV"}}},
    {"gemini_tile",
     {"net_phits_in", "host_phits_out"},
     {{"gemini_tile:::GM_LINK_PHITS:link=X+", "gemini_tile:::GM_LINK_PHITS:link=X-",
       "gemini_tile:::GM_LINK_PHITS:link=Y+", "gemini_tile:::GM_LINK_PHITS:link=Y-",
       "gemini_tile:::GM_LINK_PHITS:link=Z+", "gemini_tile:::GM_LINK_PHITS:link=Z-"},
      {"gemini_tile:::GM_LINK_PHITS:link=HH"}}},
};

static unsigned char pattern(int from, int to, int iter, size_t i)
{
    return (unsigned char)(from * 131 + to * 31 + iter * 7 + (int)(i % 251) * 3 + (int)(i / 251));
}

/* The enabled component among the groups, or NULL. */
static const event_group *pick_group(void)
{
    for (size_t g = 0; g < sizeof groups / sizeof groups[0]; g++) {
        int cid = PAPI_get_component_index(groups[g].component);
        const PAPI_component_info_t *info = cid >= 0 ? PAPI_get_component_info(cid) : NULL;
        if (info != NULL && !info->disabled) {
            return &groups[g];
        }
    }
    return NULL;
}

/* The router a node name belongs to: a Cray cname "c0-0c0s3n2" names node 2
 * of a blade whose Gemini g1 serves nodes 2 and 3; Blue Gene nodes are their
 * own routers. */
static void router_of(const char *node, char *router, size_t len)
{
    const char *n = strrchr(node, 'n');
    if (n != NULL && n[1] >= '0' && n[1] <= '3' && n[2] == '\0' && node[0] == 'c') {
        snprintf(router, len, "%.*sg%d", (int)(n - node), node, (n[1] - '0') / 2);
    } else {
        snprintf(router, len, "%s", node);
    }
}

static int parse_args(int argc, char **argv, int *rows, int *cols, long *bytes, int *iters)
{
    for (int i = 1; i + 1 < argc; i += 2) {
        if (strcmp(argv[i], "--rows") == 0) {
            *rows = atoi(argv[i + 1]);
        } else if (strcmp(argv[i], "--cols") == 0) {
            *cols = atoi(argv[i + 1]);
        } else if (strcmp(argv[i], "--bytes") == 0) {
            *bytes = atol(argv[i + 1]);
        } else if (strcmp(argv[i], "--iters") == 0) {
            *iters = atoi(argv[i + 1]);
        } else {
            return -1;
        }
    }
    return *rows > 0 && *cols > 0 && *bytes > 0 && *iters > 0 && (argc % 2) == 1 ? 0 : -1;
}

int main(int argc, char **argv)
{
    int rank, size, rows = 0, cols = 0, iters = 1, bad = 0;
    long bytes = 1024;
    char node[MPI_MAX_PROCESSOR_NAME], router[MPI_MAX_PROCESSOR_NAME + 8];
    int nlen, es = PAPI_NULL;
    long long raw[MAX_EVENTS * 7];
    long long mine[MAX_EVENTS] = {0};
    int nraw = 0, ncol = 0, column_of[MAX_EVENTS * 7];

    MPI_Init(&argc, &argv);
    MPI_Pcontrol(0);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (parse_args(argc, argv, &rows, &cols, &bytes, &iters) != 0 || rows * cols != size) {
        if (rank == 0) {
            fprintf(stderr, "usage: rowa2a_papi --rows R --cols C [--bytes B] [--iters N] "
                            "(R x C = number of ranks)\n");
        }
        MPI_Finalize();
        return 2;
    }
    if (PAPI_library_init(PAPI_VER_CURRENT) != PAPI_VER_CURRENT) {
        fprintf(stderr, "rowa2a_papi: PAPI_library_init failed\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    const event_group *g = pick_group();
    if (g == NULL) {
        if (rank == 0) {
            fprintf(stderr, "rowa2a_papi: neither bgq_nwunit nor gemini_tile is enabled "
                            "(run under torusemu run on a bgq or gemini machine)\n");
        }
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    int rc = PAPI_create_eventset(&es);
    for (ncol = 0; rc == PAPI_OK && ncol < MAX_EVENTS && g->label[ncol] != NULL; ncol++) {
        for (int k = 0; rc == PAPI_OK && k < 7 && g->events[ncol][k] != NULL; k++) {
            rc = PAPI_add_named_event(es, g->events[ncol][k]);
            column_of[nraw++] = ncol;
            if (rc != PAPI_OK) {
                fprintf(stderr, "rowa2a_papi: cannot add %s: %s\n", g->events[ncol][k],
                        PAPI_strerror(rc));
            }
        }
    }
    if (rc != PAPI_OK || PAPI_start(es) != PAPI_OK) {
        MPI_Abort(MPI_COMM_WORLD, 1);
    }

    /* the exchange: row i = ranks i, i+R, ...; my column is rank / R */
    MPI_Comm row;
    MPI_Comm_split(MPI_COMM_WORLD, rank % rows, rank / rows, &row);
    unsigned char *out = malloc((size_t)bytes * cols), *in = malloc((size_t)bytes * cols);
    if (out == NULL || in == NULL) {
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    int me = rank / rows;
    MPI_Barrier(MPI_COMM_WORLD); /* every event set counts before traffic */
    for (int it = 0; it < iters; it++) {
        for (int c = 0; c < cols; c++) {
            for (long i = 0; i < bytes; i++) {
                out[(size_t)c * bytes + i] = pattern(me, c, it, (size_t)i);
            }
        }
        MPI_Pcontrol(1);
        MPI_Alltoall(out, (int)bytes, MPI_BYTE, in, (int)bytes, MPI_BYTE, row);
        MPI_Pcontrol(0);
        for (int c = 0; c < cols && !bad; c++) {
            for (long i = 0; i < bytes; i++) {
                if (in[(size_t)c * bytes + i] != pattern(c, me, it, (size_t)i)) {
                    fprintf(stderr, "rowa2a_papi: rank %d: wrong byte from column %d\n", rank, c);
                    bad = 1;
                    break;
                }
            }
        }
    }
    MPI_Barrier(MPI_COMM_WORLD); /* all traffic injected */
    PAPI_stop(es, raw);
    for (int i = 0; i < nraw; i++) {
        mine[column_of[i]] += raw[i];
    }

    /* one reporter per router: the lowest rank on it */
    MPI_Get_processor_name(node, &nlen);
    router_of(node, router, sizeof router);
    char *names = rank == 0 ? malloc((size_t)size * sizeof router) : NULL;
    long long *values = rank == 0 ? malloc((size_t)size * MAX_EVENTS * sizeof *values) : NULL;
    char *nodes = rank == 0 ? malloc((size_t)size * sizeof node) : NULL;
    MPI_Gather(router, sizeof router, MPI_CHAR, names, sizeof router, MPI_CHAR, 0, MPI_COMM_WORLD);
    MPI_Gather(node, sizeof node, MPI_CHAR, nodes, sizeof node, MPI_CHAR, 0, MPI_COMM_WORLD);
    MPI_Gather(mine, MAX_EVENTS, MPI_LONG_LONG, values, MAX_EVENTS, MPI_LONG_LONG, 0,
               MPI_COMM_WORLD);
    int any_bad = 0;
    MPI_Reduce(&bad, &any_bad, 1, MPI_INT, MPI_MAX, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        long long total[MAX_EVENTS] = {0};
        for (int r = 0; r < size; r++) {
            int first = 1;
            for (int q = 0; q < r && first; q++) {
                first = strcmp(names + (size_t)q * sizeof router, names + (size_t)r * sizeof router);
            }
            if (!first) {
                continue; /* another rank already reported this router */
            }
            const char *who = strcmp(g->component, "gemini_tile") == 0
                                  ? names + (size_t)r * sizeof router
                                  : nodes + (size_t)r * sizeof node;
            printf("node %s", who);
            for (int c = 0; c < ncol; c++) {
                printf(" %s=%lld", g->label[c], values[(size_t)r * MAX_EVENTS + c]);
                total[c] += values[(size_t)r * MAX_EVENTS + c];
            }
            printf("\n");
        }
        printf("total");
        for (int c = 0; c < ncol; c++) {
            printf(" %s=%lld", g->label[c], total[c]);
        }
        printf("\n");
        fflush(stdout);
    }
    free(out);
    free(in);
    free(names);
    free(values);
    free(nodes);
    MPI_Comm_free(&row);
    PAPI_shutdown();
    MPI_Finalize();
    return rank == 0 && any_bad ? 1 : 0;
}
