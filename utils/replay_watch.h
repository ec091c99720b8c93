/*
 * replay_watch.h - `torusemu replay` watched: its progress line on a
 * terminal, and its end by a signal (replay_watch.c; doc/replay.md,
 * "Progress and interruption").
 *
 * One replay at a time per process: the state is the module's (a signal
 * handler has nothing else to read).
 */
#ifndef TEMU_REPLAY_WATCH_H
#define TEMU_REPLAY_WATCH_H

#include "torusemu_vtime.h"

#include <signal.h>
#include <stdint.h>

/* The environment variable that forces progress lines: N > 0 prints one
 * line every N steps of a timed replay's engine (and at every count of an
 * untimed one: every 65,536 rank operations), whatever the host time,
 * whether stderr is a terminal or not (tests, batch logs).  On a terminal
 * each line is written over the one before ("\r"), else ends in "\n". */
#define REPLAY_WATCH_ENV "TORUSEMU_PROGRESS_EVERY"

/*
 * From now until replay_watch_end: a signal that would end the process
 * (SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE, SIGSEGV, ... whose action is
 * the default one) first says where the replay was, removes the store
 * (may be NULL) and the temporary directory tmpdir (NULL or "": none),
 * then ends the process by that signal.  Progress lines go to stderr when
 * it is a terminal or REPLAY_WATCH_ENV is set, never with quiet.
 */
void replay_watch_begin(const char *store, const char *tmpdir, int quiet);

/* Hold the signals replay_watch_begin guards (*old receives the mask
 * before), from before the temporary directory is made until the
 * handlers are in place, then release them: a signal that came in
 * between runs the handler, which removes what was made, instead of
 * killing the process with the directory left behind. */
void replay_watch_hold(sigset_t *old);
void replay_watch_release(const sigset_t *old);
/* The store a signal removes from now on (NULL: none). */
void replay_watch_store(const char *store);
/* Restore the signals' actions; end an open progress line. */
void replay_watch_end(void);

/* A temu_progress_fn (ctx unused): `done` of `total` rank operations
 * replayed (untimed) or recorded (timed, before its run). */
void replay_watch_ops(void *ctx, uint64_t done, uint64_t total);
/* The watch of a timed run (temu_vt_set_watch, temu_gpcnet_impact); NULL
 * when nothing is to be shown. */
const temu_vt_watch *replay_watch_vt(void);
/* End an open progress line (before other output on stderr). */
void replay_watch_break(void);

#endif
