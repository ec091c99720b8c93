/*
 * spawn.c - running the drawing programs (gnuplot, Graphviz dot) that
 * `plot` and `analyze` drive (cli.h, cli_run_tool).
 */
#include "cli.h"

#include <errno.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>

extern char **environ;

int cli_run_tool(const char *what, const char *env, const char *program, const char *package,
                 char *const *args, const char *out)
{
    const char *chosen = getenv(env);
    char *argv[16];
    int n = 0;
    argv[n++] = (char *)(chosen != NULL && chosen[0] != '\0' ? chosen : program);
    for (; args[n - 1] != NULL; n++) {
        if (n == 15) { /* a caller's bug, not the user's: say so rather than drop arguments */
            return cli_fail("%s: too many arguments for %s (at most 14)", what, argv[0]);
        }
        argv[n] = args[n - 1];
    }
    argv[n] = NULL;
    pid_t pid;
    int status = 0, e = posix_spawnp(&pid, argv[0], NULL, NULL, argv, environ);
    if (e != 0) {
        return cli_fail("%s: cannot run %s: %s (Debian: apt-get install %s)", what, argv[0],
                        strerror(e), package);
    }
    pid_t w;
    while ((w = waitpid(pid, &status, 0)) < 0 && errno == EINTR) {
    }
    if (w < 0) {
        return cli_fail("%s: waiting for %s: %s", what, argv[0], strerror(errno));
    }
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        return cli_fail("%s: %s failed (status %d)", what, argv[0],
                        WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
    }
    struct stat st;
    return stat(out, &st) == 0 && st.st_size > 0
               ? 0
               : cli_fail("%s: %s wrote nothing to '%s'", what, argv[0], out);
}
