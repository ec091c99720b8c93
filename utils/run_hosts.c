/*
 * run_hosts.c - `torusemu run --split-hosts N` (run_hosts.h).
 *
 * Each host's store is a full store of the run's machine and mapping in a
 * private temporary directory (removed with it, or by the next run's sweep
 * if the launcher is killed outright); the ranks find theirs through
 * TORUSEMU_HOSTS and TORUSEMU_HOST_STORES (temu_session_attach_env).  The
 * run's own store (--keep FILE or the temporary one) receives the gathered
 * counters at the end, so dump, plot and analyze read it as any store.
 */
#include "run_hosts.h"
#include "cli.h"
#include "run_env.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define fail(...) cli_fail("run: " __VA_ARGS__)

/* Host h's store, or with copies the launcher's copy of it, into out;
 * -1 when it does not fit. */
static int store_path(const run_hosts *rh, int32_t h, char *out, size_t len)
{
    if (rh->copies) {
        return snprintf(out, len, TMPI_HOST_COPY_FORMAT, rh->dir, (int)h) < (int)len ? 0 : -1;
    }
    return temu_hosts_store_path(rh->dir, h, out, len);
}

static int stores_create(run_hosts *rh, const temu_machine *m, const temu_mapping *map)
{
    temu_error err;
    char path[PATH_MAX + 32];
    for (int32_t h = 0; h < rh->n; h++) {
        if (store_path(rh, h, path, sizeof path) != 0) {
            return fail("--split-hosts: the path of host %d's store is too long", (int)h);
        }
        if (temu_session_create_ex(path, m, map, 0, &rh->stores[h], &err) != TEMU_OK) {
            return fail("--split-hosts: host %d's store: %s", (int)h, err.message);
        }
    }
    return 0;
}

int run_hosts_prepare(run_hosts *rh, int32_t n, int remote, const temu_session *base,
                      const temu_machine *m, const temu_mapping *map)
{
    temu_error err;
    memset(rh, 0, sizeof *rh);
    rh->remote = remote;
    snprintf(rh->count, sizeof rh->count, "%d", (int)n);
    if (temu_hosts_assign(base, n, &rh->hosts, &err) != TEMU_OK) {
        return fail("--split-hosts %d: %s", (int)n, err.message);
    }
    rh->n = n;
    rh->stores = calloc((size_t)n, sizeof *rh->stores);
    if (rh->stores == NULL) {
        run_hosts_remove(rh);
        return fail("out of memory");
    }
    if (cli_temp_dir(rh->dir, sizeof rh->dir, "hosts") != 0) {
        rh->dir[0] = '\0';
        run_hosts_remove(rh);
        return fail("--split-hosts: cannot make a private directory for the hosts' stores");
    }
    if (!remote && stores_create(rh, m, map) != 0) {
        run_hosts_remove(rh);
        return -1;
    }
    return 0;
}

int run_hosts_copies_open(run_hosts *rh, const temu_machine *m, const temu_mapping *map)
{
    rh->copies = 1;
    return stores_create(rh, m, map);
}

/* The copies' counters into base, each from the host that owns it, as
 * rank 0 gathers the hosts' stores over MPI (mpi/hosts.c); the totals
 * added. */
static int copies_gather(run_hosts *rh, temu_session *base)
{
    temu_error err;
    uint64_t msgs = temu_session_messages(base), bytes = temu_session_bytes(base);
    uint64_t n = temu_counter_count(base);
    uint64_t *c = malloc((size_t)(n > 0 ? n : 1) * sizeof *c);
    if (c == NULL) {
        return fail("out of memory");
    }
    for (int32_t h = 0; h < rh->n; h++) {
        for (uint64_t i = 0; i < n; i++) {
            c[i] = temu_counter_read(rh->stores[h], (int64_t)i);
        }
        if (temu_session_gather_host(base, rh->hosts, h, c, n, &err) != TEMU_OK) {
            free(c);
            return fail("--split-hosts: the copy of host %d's store cannot be gathered: %s", (int)h,
                        err.message);
        }
        msgs += temu_session_messages(rh->stores[h]);
        bytes += temu_session_bytes(rh->stores[h]);
    }
    free(c);
    temu_session_set_totals(base, msgs, bytes);
    return 0;
}

int run_hosts_gather(run_hosts *rh, temu_session *base)
{
    temu_error err;
    if (rh->copies) {
        return copies_gather(rh, base);
    }
    if (rh->remote) {
        return 0;
    }
    if (temu_session_gather(base, rh->stores, rh->hosts, &err) != TEMU_OK) {
        return fail("--split-hosts: the hosts' stores cannot be gathered: %s", err.message);
    }
    return 0;
}

#define VIEW_NAME "%s/view.store"

int run_hosts_view_open(run_hosts *rh, const temu_session *base, const temu_machine *m,
                        const temu_mapping *map)
{
    temu_error err;
    char path[PATH_MAX + 32];
    rh->base = base;
    if (snprintf(path, sizeof path, VIEW_NAME, rh->dir) >= (int)sizeof path) {
        return fail("--split-hosts: the path of the sampled view is too long");
    }
    if (temu_session_create_ex(path, m, map, 0, &rh->view, &err) != TEMU_OK) {
        return fail("--split-hosts --sample: %s", err.message);
    }
    return 0;
}

void run_hosts_view_refresh(void *arg)
{
    run_hosts *rh = arg;
    uint64_t n = temu_counter_count(rh->view);
    uint64_t msgs = temu_session_messages(rh->base), bytes = temu_session_bytes(rh->base);
    for (int64_t i = 0; i < (int64_t)n; i++) {
        int32_t owner = temu_hosts_counter_host(rh->hosts, i);
        uint64_t want = temu_counter_read(rh->base, i) +
                        (owner >= 0 ? temu_counter_read(rh->stores[owner], i) : 0);
        uint64_t have = temu_counter_read(rh->view, i);
        /* every source only grows, and so does the view */
        if (want > have) {
            temu_counter_add(rh->view, i, want - have);
        }
    }
    for (int32_t h = 0; h < rh->n; h++) {
        msgs += temu_session_messages(rh->stores[h]);
        bytes += temu_session_bytes(rh->stores[h]);
    }
    temu_session_set_totals(rh->view, msgs, bytes);
}

void run_hosts_remove(run_hosts *rh)
{
    char path[PATH_MAX + 32];
    if (rh->view != NULL) {
        temu_session_close(rh->view);
        rh->view = NULL;
        if (snprintf(path, sizeof path, VIEW_NAME, rh->dir) < (int)sizeof path) {
            unlink(path);
        }
    }
    /* remote: what a rank of this machine made and did not remove */
    for (int32_t h = 0; rh->stores != NULL && h < rh->n; h++) {
        temu_session_close(rh->stores[h]);
        rh->stores[h] = NULL;
        if (rh->dir[0] != '\0' && temu_hosts_store_path(rh->dir, h, path, sizeof path) == 0) {
            unlink(path);
        }
        if (rh->dir[0] != '\0' && rh->copies && store_path(rh, h, path, sizeof path) == 0) {
            unlink(path);
        }
        /* the host's copy of the online model's feed (mpi/host_feed.c),
         * left by a rank that was killed */
        if (rh->dir[0] != '\0' && snprintf(path, sizeof path, TMPI_HOST_FEED_FORMAT, rh->dir,
                                           (int)h) < (int)sizeof path) {
            unlink(path);
        }
    }
    if (rh->dir[0] != '\0') {
        cli_temp_dir_remove(rh->dir);
        rh->dir[0] = '\0';
    }
    free(rh->stores);
    rh->stores = NULL;
    temu_hosts_free(rh->hosts);
    rh->hosts = NULL;
}
