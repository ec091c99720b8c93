/*
 * replay.c - run a fuzz harness over its regression corpus without
 * libFuzzer: every file of $top_srcdir/fuzz/corpus/FUZZ_NAME (or of the
 * directories and files given as arguments) is read and handed to
 * LLVMFuzzerTestOneInput once.  A crash or an invariant failure ends the
 * run abnormally, which fails the test.  Built by `make check`.
 */
#include "fuzz.h"

#include <dirent.h>
#include <stdio.h>
#include <sys/stat.h>

#ifndef FUZZ_NAME
#error "FUZZ_NAME (the harness's corpus directory) must be defined"
#endif

static int replay_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        fprintf(stderr, "replay: cannot open %s\n", path);
        return -1;
    }
    size_t cap = 1 << 16, len = 0, got;
    uint8_t *buf = malloc(cap);
    while (buf != NULL && (got = fread(buf + len, 1, cap - len, f)) > 0) {
        len += got;
        if (len == cap) {
            uint8_t *bigger = realloc(buf, cap * 2);
            if (bigger == NULL) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = bigger;
            cap *= 2;
        }
    }
    fclose(f);
    if (buf == NULL) {
        fprintf(stderr, "replay: out of memory reading %s\n", path);
        return -1;
    }
    LLVMFuzzerTestOneInput(buf, len);
    free(buf);
    return 0;
}

/* Replay a file, or every regular file of a directory (sorted order). */
static int replay_path(const char *path, int *count)
{
    struct stat st;
    if (stat(path, &st) != 0) {
        fprintf(stderr, "replay: no such corpus %s\n", path);
        return -1;
    }
    if (!S_ISDIR(st.st_mode)) {
        (*count)++;
        return replay_file(path);
    }
    struct dirent **names;
    int n = scandir(path, &names, NULL, alphasort);
    int rc = n < 0 ? -1 : 0;
    for (int i = 0; i < n; i++) {
        char file[4096];
        if (names[i]->d_name[0] != '.') {
            snprintf(file, sizeof file, "%s/%s", path, names[i]->d_name);
            if (stat(file, &st) == 0 && S_ISREG(st.st_mode)) {
                (*count)++;
                rc |= replay_file(file);
            }
        }
        free(names[i]);
    }
    free(names);
    return rc;
}

int main(int argc, char **argv)
{
    int count = 0, rc = 0;
    if (argc > 1) {
        for (int i = 1; i < argc; i++) {
            rc |= replay_path(argv[i], &count);
        }
    } else {
        const char *top = getenv("top_srcdir");
        char dir[4096];
        snprintf(dir, sizeof dir, "%s/fuzz/corpus/%s", top != NULL ? top : ".", FUZZ_NAME);
        rc = replay_path(dir, &count);
    }
    printf("%s: %d inputs replayed\n", FUZZ_NAME, count);
    return rc != 0 || count == 0 ? 1 : 0;
}
