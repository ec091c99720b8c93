/*
 * tempdir.c - the private directories of temporary stores (cli.h:
 * cli_temp_dir, cli_temp_dir_remove, cli_store_path).
 *
 * A run or a replay keeps its store in a fresh directory
 * $TMPDIR/torusemu-WHAT.XXXXXX (mkdtemp, mode 0700) and removes it at the
 * end, also when a signal ends it.  A process killed outright (SIGKILL, the
 * OOM killer, a crash before the handlers run) cannot: its directory is
 * found and removed by the next run or replay in the same base directory.
 *
 * Who owns a directory is told by a lock, not by a pid (pids are reused
 * and differ between pid namespaces sharing /dev/shm): the owner holds an
 * exclusive flock(2) on the directory for as long as it lives (the kernel
 * drops it when the process dies, however it dies) and, once it holds it,
 * marks the directory with the sticky bit (mode 01700: for a directory
 * only its owner may delete from anyway, the bit changes nothing else, and
 * the directory stays empty, so a plain rmdir removes it).  A marked
 * directory whose lock is free is stale; an unmarked one is left alone (a
 * directory being made right now, or one of an older torusemu that did
 * not lock).
 */
#define _GNU_SOURCE 1
#include "cli.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#define PREFIX "torusemu-"
/* the mode of a directory its owner has locked */
#define MARKED_MODE 01700
/* at most this many directories held at once (run: the store's and the
 * timing model's feed) */
#define MAX_HELD 8

/* The directories this process holds, and their lock descriptors. */
static struct held {
    char path[PATH_MAX];
    int fd; /* -1: free entry */
} held[MAX_HELD] = {[0 ... MAX_HELD - 1] = {"", -1}};

/* The base of the temporary directories: $TMPDIR, else /dev/shm (memory)
 * when writable, else /tmp. */
static const char *temp_base(void)
{
    const char *base = getenv("TMPDIR");
    if (base == NULL || *base == '\0') {
        base = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
    }
    return base;
}

/* Remove the stale directory `name` of base (descriptor bfd) whose lock
 * fd already holds: every file in it, then the directory.  A directory
 * left inside (none of ours makes one) keeps it. */
static void stale_remove(int bfd, const char *name, int fd)
{
    int dfd = dup(fd);
    DIR *d = dfd >= 0 ? fdopendir(dfd) : NULL;
    if (d == NULL) {
        if (dfd >= 0) {
            close(dfd);
        }
        return;
    }
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0) {
            unlinkat(fd, e->d_name, 0);
        }
    }
    closedir(d);
    unlinkat(bfd, name, AT_REMOVEDIR);
}

/* Entry `name` of base: when it is a stale directory of ours (lock free,
 * then this user's and marked), remove it. */
static void stale_check(int bfd, const char *name)
{
    struct stat st;
    int fd = openat(bfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) {
        return;
    }
    /* the mode only once the lock is ours: an owner marks after locking */
    if (flock(fd, LOCK_EX | LOCK_NB) == 0 && fstat(fd, &st) == 0 && st.st_uid == geteuid() &&
        (st.st_mode & 07777) == MARKED_MODE) {
        stale_remove(bfd, name, fd);
    }
    close(fd); /* drops the lock */
}

/* Remove the stale directories of killed runs and replays in base. */
static void stale_sweep(const char *base)
{
    int bfd = open(base, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    DIR *d = bfd >= 0 ? fdopendir(dup(bfd)) : NULL;
    if (d != NULL) {
        struct dirent *e;
        while ((e = readdir(d)) != NULL) {
            if (strncmp(e->d_name, PREFIX, strlen(PREFIX)) == 0 &&
                (e->d_type == DT_DIR || e->d_type == DT_UNKNOWN)) {
                stale_check(bfd, e->d_name);
            }
        }
        closedir(d);
    }
    if (bfd >= 0) {
        close(bfd);
    }
}

/* Hold the fresh directory dir: its lock, then the mark.  0, or -1 with
 * errno set. */
static int hold(const char *dir)
{
    int slot = 0;
    while (slot < MAX_HELD && held[slot].fd >= 0) {
        slot++;
    }
    if (slot == MAX_HELD) {
        errno = EMFILE;
        return -1;
    }
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    /* blocking: a sweeper that took the lock first sees no mark and lets
     * go at once */
    if (fd < 0 || flock(fd, LOCK_EX) != 0 || fchmod(fd, MARKED_MODE) != 0) {
        int e = errno;
        if (fd >= 0) {
            close(fd);
        }
        errno = e;
        return -1;
    }
    snprintf(held[slot].path, sizeof held[slot].path, "%s", dir);
    held[slot].fd = fd;
    return 0;
}

int cli_temp_dir(char *dir, size_t len, const char *what)
{
    const char *base = temp_base();
    int w = snprintf(dir, len, "%s/" PREFIX "%s.XXXXXX", base, what);
    if (w < 0 || (size_t)w >= len) {
        errno = ENAMETOOLONG;
        return -1;
    }
    stale_sweep(base);
    if (mkdtemp(dir) == NULL) {
        return -1;
    }
    if (hold(dir) != 0) {
        int e = errno;
        rmdir(dir);
        errno = e;
        return -1;
    }
    return 0;
}

int cli_temp_dir_remove(const char *dir)
{
    int rc = 0;
    if (rmdir(dir) != 0) {
        rc = -1; /* left to the next run's sweep */
    }
    for (int i = 0; i < MAX_HELD; i++) {
        if (held[i].fd >= 0 && strcmp(held[i].path, dir) == 0) {
            close(held[i].fd);
            held[i].fd = -1;
        }
    }
    return rc;
}

int cli_store_path(const char *what, const char *keep, char *store, char *tmpdir, size_t len)
{
    tmpdir[0] = '\0';
    if (keep != NULL) {
        if (cli_absolute_path(keep, store, len) != 0) {
            return cli_fail("%s: cannot resolve '%s': %s", what, keep, strerror(errno));
        }
    } else if (cli_temp_dir(tmpdir, len, what) != 0) {
        return cli_fail("%s: cannot make a private directory for the store: %s", what,
                        strerror(errno));
    } else if ((size_t)snprintf(store, len, "%s/session.store", tmpdir) >= len) {
        cli_temp_dir_remove(tmpdir);
        return cli_fail("%s: the store's path in '%s' is too long", what, tmpdir);
    }
    return 0;
}
