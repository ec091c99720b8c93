/*
 * vt_pollstate.c - what a polling rank tells the online model
 * (tests/mpi/vtime.sh; mpi/rank_vtime.c, poll_clock).
 *
 *   vt_pollstate MODE
 *
 * One rank under `torusemu run --virtual-time --cpu-scale 0`.  A poll that
 * finds nothing (MODE: iprobe, improbe, test, testany, testsome, testall on
 * a generalized request not yet complete) lets the model run the clock's
 * own picosecond (vt_feed.h, tmpi_vt_state.poll).  The next MPI call at the
 * same clock must keep that: the program then waits for a completed
 * generalized request, whose query function runs inside that MPI_Wait and
 * prints the rank's state as the model reads it from the feed
 * ($TORUSEMU_VT_FEED): "in_mpi 1 poll 1 clock-moved 0".  A call's entry
 * that withdrew the permission (poll 0) left a program polling in a loop
 * stalled until the launcher's 2 s stall rule let it go.
 */
#include "run_env.h"
#include "vt_feed.h"

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static tmpi_vt_feed *feed;
static int64_t clock_after_poll;
static int report; /* the query prints (only in the MPI_Wait after the poll) */

/* the generalized request's query: the state this rank published last */
static int query(void *extra, MPI_Status *st)
{
    tmpi_vt_state s;
    (void)extra;
    tmpi_vt_feed_read_state(feed, 0, &s);
    if (report) {
        printf("mode %u in_mpi %u poll %u clock-moved %d\n", s.mode, s.in_mpi, s.poll,
               s.clock != clock_after_poll);
    }
    MPI_Status_set_elements(st, MPI_BYTE, 0);
    MPI_Status_set_cancelled(st, 0);
    st->MPI_SOURCE = MPI_UNDEFINED;
    st->MPI_TAG = MPI_UNDEFINED;
    return MPI_SUCCESS;
}

static int release(void *extra)
{
    (void)extra;
    return MPI_SUCCESS;
}

static int cancel(void *extra, int complete)
{
    (void)extra;
    (void)complete;
    return MPI_SUCCESS;
}

/* One poll of MODE that finds nothing; 0 if MODE is unknown or it found
 * something. */
static int poll_once(const char *mode, MPI_Request *pending)
{
    int flag = 1, index = 0, count = 1;
    MPI_Message m;
    if (strcmp(mode, "iprobe") == 0) {
        MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_SELF, &flag, MPI_STATUS_IGNORE);
    } else if (strcmp(mode, "improbe") == 0) {
        MPI_Improbe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_SELF, &flag, &m, MPI_STATUS_IGNORE);
    } else if (strcmp(mode, "test") == 0) {
        MPI_Test(pending, &flag, MPI_STATUS_IGNORE);
    } else if (strcmp(mode, "testany") == 0) {
        MPI_Testany(1, pending, &index, &flag, MPI_STATUS_IGNORE);
    } else if (strcmp(mode, "testsome") == 0) {
        MPI_Testsome(1, pending, &count, &index, MPI_STATUSES_IGNORE);
        flag = count != 0;
    } else if (strcmp(mode, "testall") == 0) {
        MPI_Testall(1, pending, &flag, MPI_STATUSES_IGNORE);
    }
    return !flag;
}

int main(int argc, char **argv)
{
    char why[512] = "";
    const char *path = getenv(TMPI_VT_FEED_ENV);
    MPI_Request pending, done;
    int rc = 1;
    MPI_Init(&argc, &argv);
    feed = path != NULL ? tmpi_vt_feed_map(path, 0, 0, why, sizeof why) : NULL;
    if (argc != 2 || feed == NULL) {
        fprintf(stderr, "usage: vt_pollstate MODE, under the online model (%s)\n", why);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    MPI_Grequest_start(query, release, cancel, NULL, &pending);
    MPI_Grequest_start(query, release, cancel, NULL, &done);
    MPI_Grequest_complete(done);
    if (poll_once(argv[1], &pending)) {
        tmpi_vt_state s;
        tmpi_vt_feed_read_state(feed, 0, &s);
        clock_after_poll = s.clock;
        printf("after the poll: poll %u\n", s.poll);
        fflush(stdout);
        report = 1;
        MPI_Wait(&done, MPI_STATUS_IGNORE); /* query() prints the entry's state */
        report = 0;
        rc = 0;
    } else {
        fprintf(stderr, "vt_pollstate: %s: no empty poll\n", argv[1]);
    }
    MPI_Grequest_complete(pending);
    MPI_Wait(&pending, MPI_STATUS_IGNORE);
    tmpi_vt_feed_unmap(feed);
    MPI_Finalize();
    return rc;
}
