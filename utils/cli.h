/*
 * cli.h - what the torusemu subcommands share: error reporting, number,
 * size and node parsing, and the getopt_long conventions (--help and
 * --version on every command, --opt=value and --opt value alike).
 *
 * One source file per subcommand (utils/cmd_*.c); utils/torusemu.c only
 * dispatches.  doc/cli.md is the user's description.
 */
#ifndef TEMU_CLI_H
#define TEMU_CLI_H

#include "torusemu.h"

#include <getopt.h>
#include <stdint.h>
#include <stdio.h>

/* Exit status of every usage or input error. */
#define CLI_EXIT_USAGE 2

/* getopt_long codes of the options every command takes; put
 * CLI_COMMON_OPTIONS first in each command's option table. */
enum { CLI_OPT_HELP = 'h', CLI_OPT_VERSION = 0x100, CLI_OPT_FIRST_LONG = 0x101 };
#define CLI_COMMON_OPTIONS                                                                         \
    {"help", no_argument, NULL, CLI_OPT_HELP},                                                     \
    {                                                                                              \
        "version", no_argument, NULL, CLI_OPT_VERSION                                              \
    }

/* A subcommand: its name, entry point, one-line summary and usage text. */
typedef struct cli_command {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *what;
} cli_command;

/* The subcommands (utils/cmd_<name>.c); argv[0] is the command name. */
int cmd_machine(int argc, char **argv);
int cmd_route(int argc, char **argv);
int cmd_interconnect(int argc, char **argv);
int cmd_create(int argc, char **argv);
int cmd_inject(int argc, char **argv);
int cmd_dump(int argc, char **argv);
int cmd_reset(int argc, char **argv);
int cmd_demo(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_replay(int argc, char **argv);
int cmd_plot(int argc, char **argv);
int cmd_series(int argc, char **argv);
int cmd_analyze(int argc, char **argv);
int cmd_stalls(int argc, char **argv);
int cmd_production(int argc, char **argv);

/* "torusemu: <message>" on stderr; returns CLI_EXIT_USAGE. */
int cli_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int cli_fail_err(const temu_error *err);
/* err's message becomes "<what>: <message>" (what the error is about). */
void cli_err_prefix(temu_error *err, const char *what);

/* Print "torusemu (papi-torus) VERSION" to stdout; returns 0. */
int cli_version(void);

/*
 * Start parsing a command's options (resets getopt, which keeps state
 * between calls, so `demo` can run other commands).  Then call cli_next()
 * until it returns -1.  cli_next() answers --help (prints usage, *done = 1,
 * *rc = 0) and --version, and turns getopt's errors into clear messages
 * (*done = 1, *rc = CLI_EXIT_USAGE); the caller returns *rc when *done.
 */
void cli_begin(void);
/* the same, but one dash also introduces a long option ("-np 4", as MPI's
 * launchers spell it) */
void cli_begin_long_only(void);
int cli_next(int argc, char **argv, const char *shortopts, const struct option *longopts,
             void (*usage)(FILE *), int *done, int *rc);

/* A plain decimal integer ("17"); 0 on success, -1 otherwise. */
int cli_parse_uint(const char *s, uint64_t *out);

/*
 * A size in bytes: a decimal integer with an optional suffix.  Binary
 * multiples, as GNU coreutils reads them: k, K, KiB = 1024; M, MiB = 1024^2;
 * G, GiB = 1024^3.  Decimal multiples only when spelled with a B: kB, KB =
 * 1000; MB = 1000^2; GB = 1000^3.  0 on success, -1 when malformed or when
 * the result overflows 64 bits.
 */
int cli_parse_size(const char *s, uint64_t *out);
/* cli_parse_size of s, from min to max bytes: 0, or -1 with the reason in
 * why, the limits stated ("5368709120 bytes, above the largest size,
 * 4294967295 bytes (4 GiB - 1)"); the caller names the option and value. */
int cli_parse_size_range(const char *s, uint64_t min, uint64_t max, uint64_t *out, char *why,
                         size_t len);

/* "1min", "60s", "1.5ms", "500us", "20ns", "7ps" (a decimal number and a
 * unit) into picoseconds; 0 on success, -1 when malformed, not positive
 * or too large.  replay --compute/--interval, run --sample. */
int cli_parse_time_ps(const char *s, int64_t *ps);
/* What cli_parse_time_ps takes, for messages: "expected " CLI_TIME_EXPECTED
 * (9e18 ps, the largest, is 104 days). */
#define CLI_TIME_EXPECTED                                                                          \
    "a positive time with a unit (min, s, ms, us, ns, ps), from 1ps to 9e6s (104 days)"

/* A node given as an id ("17") or coordinates ("1,0,2"; on Gemini
 * "1,0,2,1" is the second node of that Gemini).  Prints the reason and
 * returns CLI_EXIT_USAGE on bad input, 0 on success. */
int cli_parse_node(const temu_machine *m, const char *s, int64_t *node);

/* "1.50 MiB" */
void cli_human(uint64_t v, char *buf, size_t len);
/* The summary lines after a run or a replay, on stderr: messages and bytes
 * injected, the busiest network link, and where the store was kept (kept
 * may be NULL). */
void cli_traffic_summary(const temu_session *s, const char *kept);
/* A private directory for a temporary store of command `what` (mkdtemp:
 * mode 0700, a fresh name no other user can have prepared) in $TMPDIR when
 * set, else /dev/shm (memory) when writable, else /tmp; 0 and dir filled,
 * or -1 (errno set).  The directory is locked while this process lives and
 * marked so (mode 01700); those of killed processes found there are
 * removed first (utils/tempdir.c). */
int cli_temp_dir(char *dir, size_t len, const char *what);
/* Remove a directory of cli_temp_dir once the caller has removed its own
 * files in it, and let its lock go; -1 when it could not be removed (the
 * next cli_temp_dir in its base removes it).  Async-signal-safe.  (A plain
 * rmdir removes it too; the lock then goes when the process ends.) */
int cli_temp_dir_remove(const char *dir);
/* p made absolute against the working directory; -1 (errno set) on failure. */
int cli_absolute_path(const char *p, char *out, size_t len);
/* Where command `what` (run, replay) puts its store: keep made absolute
 * when given, else session.store in a fresh cli_temp_dir (its path in
 * tmpdir, "" when none was made).  0, or the exit status after printing
 * why. */
int cli_store_path(const char *what, const char *keep, char *store, char *tmpdir, size_t len);

/* Run a drawing program - $env when set, else `program` on the PATH -
 * with the NULL-terminated args (at most 14), and check that it exited 0
 * and wrote a non-empty file `out`.  0, or prints "torusemu: WHAT: why"
 * (naming the Debian package when the program is missing) and returns
 * CLI_EXIT_USAGE.  utils/spawn.c. */
int cli_run_tool(const char *what, const char *env, const char *program, const char *package,
                 char *const *args, const char *out);

/* "(x,y,z)" of a router. */
void cli_print_coords(const temu_machine *m, int64_t router, FILE *f);

#endif
