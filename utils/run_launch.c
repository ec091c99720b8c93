/*
 * run_launch.c - mpirun as the child of `torusemu run` (run_launch.h).
 *
 * mpirun runs in a process group of its own.  A terminal's Ctrl-C goes to
 * the foreground process group: were mpirun in ours, it would get SIGINT
 * twice (from the terminal and forwarded by us), and Open MPI's mpirun
 * given a second SIGINT aborts at once, leaving its session directory in
 * $TMPDIR and the ranks' vader_segment files in /dev/shm.  In its own group
 * it gets each signal once, from us.
 *
 * A process group that is not the terminal's foreground one cannot read
 * the terminal (mpirun would stop, or not read stdin at all), so when our
 * standard input is the terminal and we are in its foreground, a thread
 * copies it into a pipe that is mpirun's standard input (mpirun hands it
 * to rank 0 as it would the terminal).
 *
 * mpirun is bound to our life with PR_SET_PDEATHSIG: if we are killed
 * outright (SIGKILL), it gets SIGTERM and takes its ranks down.
 */
#define _GNU_SOURCE 1
#include "run_launch.h"
#include "cli.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

/* "torusemu: run: <reason>"; fmt must be a string literal */
#define fail(...) cli_fail("run: " __VA_ARGS__)

/* Signals that end the job: forwarded to mpirun (which takes its ranks
 * down), then the launcher cleans up and reports them.  SIGINT and SIGTERM
 * come from users and batch systems, SIGHUP from a closed terminal or ssh,
 * SIGQUIT from Ctrl-\. */
static const int forwarded[] = {SIGHUP, SIGINT, SIGQUIT, SIGTERM};
#define NFORWARDED ((int)(sizeof forwarded / sizeof forwarded[0]))

static volatile sig_atomic_t child_pid;
static volatile sig_atomic_t got_signal; /* first signal forwarded, 0 if none */

static void forward_signal(int sig)
{
    if (got_signal == 0) {
        got_signal = sig;
    }
    /* mpirun takes its ranks down on SIGHUP, SIGINT and SIGTERM, but dies
     * at once on SIGQUIT and leaves them running: ask it to terminate */
    if (child_pid > 0) {
        kill((pid_t)child_pid, sig == SIGQUIT ? SIGTERM : sig);
    }
}

/* ------------------------------------------------------------ stdin */

/* The copy of a terminal's input into mpirun's standard input. */
typedef struct relay {
    int on;      /* a thread copies                          */
    int in, out; /* the pipe: mpirun reads in, the thread writes out */
    pthread_t thread;
} relay;

/* Whether the job's input must be relayed: our stdin is a terminal whose
 * foreground process group is ours. */
static int relay_needed(void)
{
    return isatty(STDIN_FILENO) && tcgetpgrp(STDIN_FILENO) == getpgrp();
}

static void *relay_main(void *arg)
{
    relay *r = arg;
    char buf[4096];
    for (;;) {
        ssize_t n = read(STDIN_FILENO, buf, sizeof buf);
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n <= 0) {
            break;
        }
        for (ssize_t done = 0; done < n;) {
            /* SIGPIPE is blocked in this thread: a gone mpirun is EPIPE */
            ssize_t w = write(r->out, buf + done, (size_t)(n - done));
            if (w < 0 && errno != EINTR) {
                return NULL;
            }
            done += w > 0 ? w : 0;
        }
    }
    close(r->out); /* end of input: mpirun passes it on to rank 0 */
    r->out = -1;
    return NULL;
}

/* The pipe and the thread, created with every signal but SIGPIPE as the
 * caller blocks them (the forwarded ones go to the main thread). */
static int relay_start(relay *r)
{
    int fds[2];
    sigset_t pipe_set, before;
    r->on = 0;
    r->in = r->out = -1;
    if (!relay_needed()) {
        return 0;
    }
    if (pipe2(fds, O_CLOEXEC) != 0) {
        return fail("cannot create a pipe for the job's input: %s", strerror(errno));
    }
    r->in = fds[0];
    r->out = fds[1];
    sigemptyset(&pipe_set);
    sigaddset(&pipe_set, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &pipe_set, &before);
    int e = pthread_create(&r->thread, NULL, relay_main, r);
    pthread_sigmask(SIG_SETMASK, &before, NULL);
    if (e != 0) {
        close(r->in);
        close(r->out);
        return fail("cannot start copying the job's input: %s", strerror(e));
    }
    r->on = 1;
    return 0;
}

/* mpirun has ended: stop copying (the thread waits in read or write). */
static void relay_stop(relay *r)
{
    if (r->on) {
        pthread_cancel(r->thread);
        pthread_join(r->thread, NULL);
        r->on = 0;
    }
    if (r->in >= 0) {
        close(r->in);
    }
    if (r->out >= 0) {
        close(r->out);
    }
}

/* ------------------------------------------------------------ the child */

/* The child: becomes mpirun, or writes errno to errfd and exits 127. */
static void child_exec(char **argv, const sigset_t *saved, int errfd, pid_t parent, int input)
{
    setpgid(0, 0); /* its own process group (see the top of this file) */
    /* a launcher already gone before prctl has a new parent: then nothing
     * starts */
    if (prctl(PR_SET_PDEATHSIG, SIGTERM) != 0 || getppid() != parent) {
        _exit(127);
    }
    if (input >= 0 && dup2(input, STDIN_FILENO) < 0) {
        _exit(127);
    }
    /* default dispositions, not the inherited ones: a launcher started
     * in the background by a script ignores SIGINT and SIGQUIT, and
     * mpirun keeps ignoring what it inherits ignored, so the signals
     * forwarded to it would be lost */
    for (int i = 0; i < NFORWARDED; i++) {
        signal(forwarded[i], SIG_DFL);
    }
    sigprocmask(SIG_SETMASK, saved, NULL);
    execv(argv[0], argv);
    int e = errno;
    if (write(errfd, &e, sizeof e) < 0) {
        _exit(127);
    }
    _exit(127);
}

/* Fork the child, wait until it has run mpirun or failed to, then until
 * it ends (*status).  *exec_errno: why exec failed (0: it did not). */
static pid_t fork_and_wait(char **argv, run_sampler *rs, relay *in, const sigset_t *saved,
                           int *status, int *exec_errno)
{
    int pipefd[2];
    ssize_t got = -1;
    *exec_errno = 0;
    if (pipe2(pipefd, O_CLOEXEC) != 0) {
        fail("cannot create a pipe: %s", strerror(errno));
        return -1;
    }
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid == 0) {
        close(pipefd[0]);
        child_exec(argv, saved, pipefd[1], parent, in->in);
    }
    int e = errno;
    if (pid > 0) {
        setpgid(pid, pid); /* as the child does: whichever runs first */
        child_pid = pid;
    }
    sigprocmask(SIG_SETMASK, saved, NULL);
    close(pipefd[1]);
    if (pid > 0) {
        do {
            got = read(pipefd[0], exec_errno, sizeof *exec_errno);
        } while (got < 0 && errno == EINTR);
        if (got != (ssize_t)sizeof *exec_errno) {
            *exec_errno = 0;
        }
        if (rs != NULL) {
            run_sampler_wait(rs, pid, status);
        } else {
            while (waitpid(pid, status, 0) < 0 && errno == EINTR) {
            }
        }
    } else {
        fail("cannot fork: %s", strerror(e));
    }
    close(pipefd[0]);
    child_pid = 0;
    return pid;
}

int run_launch(char **argv, run_sampler *rs, int *job_signal)
{
    struct sigaction sa, old[NFORWARDED];
    sigset_t block, saved;
    relay in;
    int status = 0, exec_errno = 0;
    *job_signal = 0;
    /* handlers in place before the child exists, so no signal falls
     * between fork and knowing its pid */
    sigemptyset(&block);
    for (int i = 0; i < NFORWARDED; i++) {
        sigaddset(&block, forwarded[i]);
    }
    sigprocmask(SIG_BLOCK, &block, &saved);
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = forward_signal;
    sigemptyset(&sa.sa_mask);
    for (int i = 0; i < NFORWARDED; i++) {
        sigaction(forwarded[i], &sa, &old[i]);
    }
    got_signal = 0;
    pid_t pid = -1;
    if (relay_start(&in) == 0) {
        pid = fork_and_wait(argv, rs, &in, &saved, &status, &exec_errno);
    } else {
        sigprocmask(SIG_SETMASK, &saved, NULL);
    }
    relay_stop(&in);
    for (int i = 0; i < NFORWARDED; i++) {
        sigaction(forwarded[i], &old[i], NULL);
    }
    if (pid < 0) {
        return -1;
    }
    if (exec_errno != 0) {
        fail("cannot execute mpirun '%s': %s", argv[0], strerror(exec_errno));
        return -1;
    }
    /* mpirun exits 1 after a SIGTERM and 0 after a SIGQUIT it forwarded:
     * the signal we received is what ended the job */
    int sig = got_signal != 0 ? got_signal : WIFSIGNALED(status) ? WTERMSIG(status) : 0;
    *job_signal = sig;
    if (sig != 0) {
        fprintf(stderr, "torusemu run: the job was killed by signal %d (%s)\n", sig,
                strsignal(sig));
        return 128 + sig;
    }
    return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}
