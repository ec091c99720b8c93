/*
 * host_copy.c - `torusemu run --sample` across real hosts (doc/mpi.md,
 * "Across hosts"): the launcher samples the run as one store, but sees
 * only its own machine, host 0's.  So it makes there a copy of each
 * host's store (TMPI_HOST_COPY_FORMAT), and the hosts' agents keep the
 * copies in step: every TORUSEMU_HOSTS_COPY_NS of host time each agent
 * sends host 0's agent the counters of its store that grew since it last
 * sent (index, growth) and its totals, over the layer's sockets
 * (host_wire.c); host 0's agent adds them to the copies.
 *
 * At MPI_Finalize, once every update has landed (hosts.c), each agent
 * sends what is left with an end mark, and host 0's agent stops only when
 * it has every host's: the copies are then the hosts' stores, which the
 * launcher gathers into the run's store as on one machine.
 */
#include "run_env.h"
#include "tmpi.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define TAG_COPY 0x57
/* a message: the end mark (0 or 1), messages, bytes, then pairs */
#define COPY_HEAD 3

static struct {
    int on;
    int owner; /* host 0's agent: it keeps the copies */
    int32_t host, nhosts;
    temu_session *own;     /* this host's store */
    temu_session **copies; /* owner: each host's copy */
    int64_t every_ns, due_ns;
    uint64_t n, *last; /* own counters as last sent */
    uint64_t *msg;     /* COPY_HEAD + 2 n words */
    int end_sent;
    int32_t ends; /* owner: end marks taken (its own included) */
} cp;

static int64_t copy_now_ns(void)
{
    struct timespec ts = {0, 0};
    tmpi_host_clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000ll + ts.tv_nsec;
}

/* A message from host h: its counters' growth and totals into its copy. */
static void copy_apply(int32_t h, const uint64_t *w, size_t n)
{
    if (h < 0 || h >= cp.nhosts || n < COPY_HEAD || (n - COPY_HEAD) % 2 != 0) {
        return;
    }
    uint64_t count = temu_counter_count(cp.copies[h]);
    for (size_t i = COPY_HEAD; i < n; i += 2) {
        if (w[i] < count) {
            temu_counter_add(cp.copies[h], (int64_t)w[i], w[i + 1]);
        }
    }
    temu_session_set_totals(cp.copies[h], w[1], w[2]);
    cp.ends += w[0] != 0;
}

/* This host's counters that grew since the last message, sent (end: the
 * last message, sent even if nothing grew). */
static void copy_send(int end)
{
    size_t k = COPY_HEAD;
    for (uint64_t i = 0; i < cp.n; i++) {
        uint64_t v = temu_counter_read(cp.own, (int64_t)i);
        if (v != cp.last[i]) {
            cp.msg[k++] = i;
            cp.msg[k++] = v - cp.last[i];
            cp.last[i] = v;
        }
    }
    cp.msg[0] = (uint64_t)end;
    cp.msg[1] = temu_session_messages(cp.own);
    cp.msg[2] = temu_session_bytes(cp.own);
    if (k == COPY_HEAD && !end) {
        return;
    }
    if (cp.owner) {
        copy_apply(0, cp.msg, k);
    } else if (tmpi_wire_send(tmpi_hosts_leader(0), TAG_COPY, cp.msg, k) != 0) {
        fprintf(stderr, "torusemu-mpi: host %d's counters no longer reach the sampled copy\n",
                (int)cp.host);
    }
}

int tmpi_host_copy_serve(int stopping)
{
    int busy = 0;
    if (!cp.on) {
        return 0;
    }
    int64_t now = copy_now_ns();
    if (!cp.end_sent && (stopping || now >= cp.due_ns)) {
        copy_send(stopping);
        cp.end_sent = stopping;
        cp.due_ns = now + cp.every_ns;
        busy = 1;
    }
    size_t n = 0;
    int32_t source = 0;
    uint64_t *w;
    while (cp.owner && (w = tmpi_wire_take(-1, TAG_COPY, &n, &source)) != NULL) {
        copy_apply(tmpi_hosts_rank_host(source), w, n);
        free(w);
        busy = 1;
    }
    return busy;
}

int tmpi_host_copy_ended(void)
{
    return !cp.on || (cp.end_sent && (!cp.owner || cp.ends == cp.nhosts));
}

/* Host 0's agent: every host's copy, which the launcher made. */
static int copies_attach(const char *dir, char *why, size_t len)
{
    char path[PATH_MAX + 32];
    temu_error err = {0};
    cp.copies = calloc((size_t)cp.nhosts, sizeof *cp.copies);
    if (cp.copies == NULL) {
        snprintf(why, len, "out of memory");
        return -1;
    }
    for (int32_t h = 0; h < cp.nhosts; h++) {
        snprintf(path, sizeof path, TMPI_HOST_COPY_FORMAT, dir, (int)h);
        if (temu_session_attach(path, &cp.copies[h], &err) != TEMU_OK) {
            snprintf(why, len,
                     "the launcher's copy of host %d's store: %s (with --sample, host 0's "
                     "ranks must run on the launcher's machine)",
                     (int)h, err.message);
            return -1;
        }
    }
    return 0;
}

int tmpi_host_copy_start(temu_session *own, int32_t host, int32_t nhosts, char *why, size_t len)
{
    const char *every = getenv(TMPI_HOST_COPY_ENV), *dir = getenv(TEMU_HOST_STORES_ENV);
    if (every == NULL || every[0] == '\0') {
        return 0; /* not sampled */
    }
    cp.own = own;
    cp.host = host;
    cp.nhosts = nhosts;
    cp.owner = host == 0;
    cp.every_ns = strtoll(every, NULL, 10);
    cp.n = temu_counter_count(own);
    cp.last = calloc(cp.n > 0 ? cp.n : 1, sizeof *cp.last);
    cp.msg = malloc((COPY_HEAD + 2 * cp.n) * sizeof *cp.msg);
    if (cp.last == NULL || cp.msg == NULL) {
        snprintf(why, len, "out of memory for the sampled copy of this host's store");
        return -1;
    }
    if (cp.owner && copies_attach(dir != NULL ? dir : "", why, len) != 0) {
        return -1;
    }
    cp.due_ns = copy_now_ns();
    cp.on = 1;
    return 0;
}

void tmpi_host_copy_close(void)
{
    for (int32_t h = 0; cp.copies != NULL && h < cp.nhosts; h++) {
        temu_session_close(cp.copies[h]);
    }
    free(cp.copies);
    free(cp.last);
    free(cp.msg);
    memset(&cp, 0, sizeof cp);
}
