/*
 * torus_count - count PAPI events around a command:
 *     torus_count EVENT... [-- COMMAND [ARG...]]
 * adds the events to one event set, starts it, runs COMMAND (if any),
 * stops, and prints one line "EVENT VALUE" per event.  The ctests use it to
 * count traffic that `torusemu inject` puts into a session.  An event that
 * cannot be added is reported with PAPI's reason and exit status 2.
 */
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "papi.h"

#define MAX_EVENTS 64

int main(int argc, char **argv)
{
    long long values[MAX_EVENTS];
    int es = PAPI_NULL, nev = 0, cmd = argc, rc, status = 0;

    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--") == 0) {
            cmd = i + 1;
            break;
        }
        nev++;
    }
    if (nev < 1 || nev > MAX_EVENTS) {
        fprintf(stderr, "usage: torus_count EVENT... [-- COMMAND [ARG...]] (1..%d events)\n",
                MAX_EVENTS);
        return 2;
    }
    if (PAPI_library_init(PAPI_VER_CURRENT) != PAPI_VER_CURRENT ||
        PAPI_create_eventset(&es) != PAPI_OK) {
        fprintf(stderr, "torus_count: PAPI initialisation failed\n");
        return 2;
    }
    for (int i = 0; i < nev; i++) {
        rc = PAPI_add_named_event(es, argv[1 + i]);
        if (rc != PAPI_OK) {
            fprintf(stderr, "torus_count: cannot add %s: %s\n", argv[1 + i], PAPI_strerror(rc));
            return 2;
        }
    }
    if ((rc = PAPI_start(es)) != PAPI_OK) {
        fprintf(stderr, "torus_count: PAPI_start: %s\n", PAPI_strerror(rc));
        return 2;
    }
    if (cmd < argc) {
        pid_t pid = fork();
        if (pid == 0) {
            execvp(argv[cmd], argv + cmd);
            perror(argv[cmd]);
            _exit(127);
        }
        if (pid < 0 || waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) ||
            WEXITSTATUS(status) != 0) {
            fprintf(stderr, "torus_count: command %s failed\n", argv[cmd]);
            status = 1;
        }
    }
    if ((rc = PAPI_stop(es, values)) != PAPI_OK) {
        fprintf(stderr, "torus_count: PAPI_stop: %s\n", PAPI_strerror(rc));
        return 2;
    }
    for (int i = 0; i < nev; i++) {
        printf("%s %lld\n", argv[1 + i], values[i]);
    }
    PAPI_shutdown();
    return status == 0 ? 0 : 1;
}
