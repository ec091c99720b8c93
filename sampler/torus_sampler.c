/*
 * torus_sampler - a sampling client that uses PAPI as HPCToolkit's hpcrun
 * does (HPCToolkit hpcrun sample sources), on the papi-torus components, in an
 * MPI program running on the emulated machine (doc/overflow-multiplex.md,
 * "The sampling client").
 *
 *   torusemu run --machine nodeboard --ranks-per-node 2 -np 8 -- \
 *       torus_sampler -e PEVT_NW_USER_PP_SENT@2000 -e PEVT_NW_USER_PP_RECV@0
 *
 * Like hpcrun, each EVENT@PERIOD with a period is sampled (PAPI_overflow
 * with that threshold, flags 0), and each EVENT@0 is a counted "proxy"
 * event of the same event set: at every sample the handler reads the set
 * and credits the sample with the proxy events' increase since the last
 * one.  The handler records the program counter of every sample and the
 * phase the program was in.
 *
 * The program alternates two phases per iteration: computing (no MPI),
 * and communicating (a ring exchange of --bytes with both neighbours and
 * an all-to-all of --bytes/8 per peer, between two barriers kept out of
 * the counts with MPI_Pcontrol(0)).  Every message is injected by its
 * sender before the closing barrier, so every sample must land in the
 * communicating phase, and a rank's samples of an event with period P are
 * floor(count / P), the count PAPI_stop returns.  Rank 0 prints each
 * rank's line, where the program counters fell (by object), and with
 * --check "N passed, M failed" for: samples = floor(count / period)
 * within --tolerance samples (default 0), every sample in the
 * communicating phase, at least one sample per rank, proxy credits adding
 * up to the proxy counts.
 */
#define _GNU_SOURCE /* dladdr */
#include <dlfcn.h>
#include <mpi.h>
#include <papi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_EVENTS 16
#define MAX_SAMPLES 100000
#define MAX_OBJECTS 12

typedef struct sample {
    void *pc;
    int comm; /* the communicating phase */
} sample;

static int nevents;
static char names[MAX_EVENTS][PAPI_MAX_STR_LEN];
static long long period[MAX_EVENTS];
static int event_set = PAPI_NULL;

static volatile sig_atomic_t in_comm;
static sample samples[MAX_SAMPLES];
static long nsamples, lost;
static long hits[MAX_EVENTS];          /* samples per sampled event          */
static long long credited[MAX_EVENTS]; /* proxy increase credited to samples */
static long long last[MAX_EVENTS];     /* proxy value at the last sample     */

static void die(const char *what, int rc)
{
    fprintf(stderr, "torus_sampler: %s: %s\n", what, rc < 0 ? PAPI_strerror(rc) : "failed");
    MPI_Abort(MPI_COMM_WORLD, 2);
}

/* The overflow handler: record the sample, credit the proxies. */
static void on_sample(int es, void *pc, long long vector, void *ctx)
{
    long long v[MAX_EVENTS];
    int idx[MAX_EVENTS], n = MAX_EVENTS;
    (void)ctx;
    if (nsamples < MAX_SAMPLES) {
        samples[nsamples].pc = pc;
        samples[nsamples].comm = in_comm;
        nsamples++;
    } else {
        lost++;
    }
    if (PAPI_get_overflow_event_index(es, vector, idx, &n) == PAPI_OK) {
        for (int i = 0; i < n; i++) {
            hits[idx[i]]++;
        }
    }
    if (PAPI_read(es, v) == PAPI_OK) {
        for (int e = 0; e < nevents; e++) {
            if (period[e] == 0) {
                credited[e] += v[e] - last[e];
                last[e] = v[e];
            }
        }
    }
}

/* Busy work that calls nothing (a compute phase of about `us` us). */
static double compute(long us)
{
    double x = 1.0;
    double t0 = MPI_Wtime();
    while ((MPI_Wtime() - t0) * 1e6 < (double)us) {
        for (int i = 0; i < 1000; i++) {
            x = x * 1.0000001 + 1e-9;
        }
    }
    return x;
}

static void communicate(int rank, int size, char *sbuf, char *rbuf, long bytes, char *a2a_s,
                        char *a2a_r, long per_peer)
{
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    in_comm = 1;
    MPI_Pcontrol(0);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Pcontrol(1);
    MPI_Sendrecv(sbuf, (int)bytes, MPI_BYTE, right, 1, rbuf, (int)bytes, MPI_BYTE, left, 1,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Sendrecv(sbuf, (int)bytes, MPI_BYTE, left, 2, rbuf, (int)bytes, MPI_BYTE, right, 2,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Alltoall(a2a_s, (int)per_peer, MPI_BYTE, a2a_r, (int)per_peer, MPI_BYTE, MPI_COMM_WORLD);
    /* every message of the phase is injected before anyone leaves */
    MPI_Pcontrol(0);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Pcontrol(1);
    in_comm = 0;
}

/* Short name of the object holding pc ("libmpi.so.40", "torus_sampler"). */
static const char *object_of(const void *pc)
{
    Dl_info info;
    const char *slash;
    if (pc == NULL || dladdr(pc, &info) == 0 || info.dli_fname == NULL) {
        return "?";
    }
    slash = strrchr(info.dli_fname, '/');
    return slash != NULL ? slash + 1 : info.dli_fname;
}

static void usage(void)
{
    fprintf(stderr, "usage: torus_sampler -e EVENT@PERIOD [-e EVENT@0 ...] [--iters N]\n"
                    "       [--bytes B] [--compute-us U] [--check] [--tolerance K]\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
}

static void add_event(const char *spec)
{
    const char *at = strrchr(spec, '@');
    size_t len = at != NULL ? (size_t)(at - spec) : strlen(spec);
    if (nevents == MAX_EVENTS || len == 0 || len >= PAPI_MAX_STR_LEN) {
        usage();
    }
    memcpy(names[nevents], spec, len);
    names[nevents][len] = '\0';
    period[nevents] = at != NULL ? atoll(at + 1) : 0;
    if (period[nevents] < 0) {
        usage();
    }
    nevents++;
}

int main(int argc, char **argv)
{
    long iters = 20, bytes = 65536, compute_us = 2000, tolerance = 0;
    int check = 0, rank, size, rc, cidx = -1;
    long long counts[MAX_EVENTS];
    char *sbuf, *rbuf, *a2a_s, *a2a_r;
    long per_peer;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "-e") == 0 && i + 1 < argc) {
            add_event(argv[++i]);
        } else if (strcmp(argv[i], "--iters") == 0 && i + 1 < argc) {
            iters = atol(argv[++i]);
        } else if (strcmp(argv[i], "--bytes") == 0 && i + 1 < argc) {
            bytes = atol(argv[++i]);
        } else if (strcmp(argv[i], "--compute-us") == 0 && i + 1 < argc) {
            compute_us = atol(argv[++i]);
        } else if (strcmp(argv[i], "--tolerance") == 0 && i + 1 < argc) {
            tolerance = atol(argv[++i]);
        } else if (strcmp(argv[i], "--check") == 0) {
            check = 1;
        } else {
            usage();
        }
    }
    if (nevents == 0 || iters < 1 || bytes < 8) {
        usage();
    }

    /* hpcrun's order: one event set per component, every event added, then
     * PAPI_overflow on each sampled one (a failure is fatal) */
    rc = PAPI_library_init(PAPI_VER_CURRENT);
    if (rc != PAPI_VER_CURRENT) {
        die("PAPI_library_init", rc);
    }
    if ((rc = PAPI_create_eventset(&event_set)) != PAPI_OK) {
        die("PAPI_create_eventset", rc);
    }
    for (int e = 0; e < nevents; e++) {
        int code, c;
        if ((rc = PAPI_event_name_to_code(names[e], &code)) != PAPI_OK) {
            die(names[e], rc);
        }
        c = PAPI_get_event_component(code);
        if (cidx >= 0 && c != cidx) {
            fprintf(stderr,
                    "torus_sampler: %s is of another component (one event set, one "
                    "component: sample and count events of one component)\n",
                    names[e]);
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
        cidx = c;
        if ((rc = PAPI_add_event(event_set, code)) != PAPI_OK) {
            die(names[e], rc);
        }
    }
    for (int e = 0; e < nevents; e++) {
        int code;
        PAPI_event_name_to_code(names[e], &code);
        if (period[e] > 0 &&
            (rc = PAPI_overflow(event_set, code, (int)period[e], 0, on_sample)) != PAPI_OK) {
            die("PAPI_overflow", rc);
        }
    }

    sbuf = malloc((size_t)bytes);
    rbuf = malloc((size_t)bytes);
    per_peer = bytes / 8 > 0 ? bytes / 8 : 1;
    a2a_s = malloc((size_t)(per_peer * size));
    a2a_r = malloc((size_t)(per_peer * size));
    memset(sbuf, rank + 1, (size_t)bytes);
    memset(a2a_s, rank + 7, (size_t)(per_peer * size));

    MPI_Pcontrol(0);
    MPI_Barrier(MPI_COMM_WORLD); /* every rank's set starts before traffic */
    MPI_Pcontrol(1);
    if ((rc = PAPI_start(event_set)) != PAPI_OK) {
        die("PAPI_start", rc);
    }
    MPI_Pcontrol(0);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Pcontrol(1);
    for (long it = 0; it < iters; it++) {
        compute(compute_us);
        communicate(rank, size, sbuf, rbuf, bytes, a2a_s, a2a_r, per_peer);
    }
    /* the report's own collectives below are not the program's traffic: a
     * rank that reaches them first must not add counts (and crossings) to
     * a rank that has not stopped yet */
    MPI_Pcontrol(0);
    if ((rc = PAPI_stop(event_set, counts)) != PAPI_OK) {
        die("PAPI_stop", rc);
    }

    /* report: per rank, then where the samples fell */
    {
        char line[2048], *all_lines = NULL;
        size_t used = 0;
        long in_phase = 0;
        int pass = 0, fail = 0;
        const char *objects[MAX_OBJECTS];
        long per_object[MAX_OBJECTS];
        int nobj = 0;

        for (long s = 0; s < nsamples; s++) {
            const char *o = object_of(samples[s].pc);
            int k;
            in_phase += samples[s].comm;
            for (k = 0; k < nobj && strcmp(objects[k], o) != 0; k++) {
            }
            if (k == nobj && nobj < MAX_OBJECTS) {
                objects[nobj] = o;
                per_object[nobj++] = 0;
            }
            if (k < nobj) {
                per_object[k]++;
            }
        }
        used += (size_t)snprintf(line + used, sizeof line - used, "rank %d:", rank);
        for (int e = 0; e < nevents && used < sizeof line; e++) {
            if (period[e] > 0) {
                used += (size_t)snprintf(line + used, sizeof line - used,
                                         " %s count %lld period %lld samples %ld (expected %lld);",
                                         names[e], counts[e], period[e], hits[e],
                                         counts[e] / period[e]);
            } else {
                used += (size_t)snprintf(line + used, sizeof line - used,
                                         " %s count %lld credited %lld;", names[e], counts[e],
                                         credited[e]);
            }
        }
        if (used < sizeof line) {
            used += (size_t)snprintf(line + used, sizeof line - used,
                                     " %ld samples, %ld while communicating; pc in", nsamples,
                                     in_phase);
        }
        for (int k = 0; k < nobj && used < sizeof line; k++) {
            used += (size_t)snprintf(line + used, sizeof line - used, " %s %ld", objects[k],
                                     per_object[k]);
        }
        if (check) {
            long total_hits = 0;
            for (int e = 0; e < nevents; e++) {
                if (period[e] > 0) {
                    long long want = counts[e] / period[e];
                    long diff = hits[e] - (long)want;
                    total_hits += hits[e];
                    if (diff <= tolerance && diff >= -tolerance) {
                        pass++;
                    } else {
                        fail++;
                        fprintf(stderr,
                                "FAIL rank %d: %s: %ld samples, floor(%lld / %lld) = %lld\n", rank,
                                names[e], hits[e], counts[e], period[e], want);
                    }
                } else if (credited[e] <= counts[e] && credited[e] >= 0) {
                    pass++;
                } else {
                    fail++;
                    fprintf(stderr, "FAIL rank %d: %s: credited %lld of %lld\n", rank, names[e],
                            credited[e], counts[e]);
                }
            }
            if (total_hits > 0) {
                pass++;
            } else {
                fail++;
                fprintf(stderr, "FAIL rank %d: no sample at all\n", rank);
            }
            if (in_phase == nsamples && lost == 0) {
                pass++;
            } else {
                fail++;
                fprintf(stderr,
                        "FAIL rank %d: %ld of %ld samples outside the communicating phase"
                        " (%ld lost)\n",
                        rank, nsamples - in_phase, nsamples, lost);
            }
        }
        {
            int tally[2] = {pass, fail}, sum[2];
            if (rank == 0 && (all_lines = malloc(sizeof line * (size_t)size)) == NULL) {
                die("malloc", 0);
            }
            MPI_Reduce(tally, sum, 2, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
            MPI_Gather(line, sizeof line, MPI_CHAR, all_lines, sizeof line, MPI_CHAR, 0,
                       MPI_COMM_WORLD);
            if (rank == 0) {
                for (int r = 0; r < size; r++) {
                    printf("%s\n", all_lines + (size_t)r * sizeof line);
                }
                free(all_lines);
                if (check) {
                    printf("%d passed, %d failed\n", sum[0], sum[1]);
                }
            }
        }
    }
    PAPI_shutdown();
    free(sbuf);
    free(rbuf);
    free(a2a_s);
    free(a2a_r);
    MPI_Finalize();
    return 0;
}
