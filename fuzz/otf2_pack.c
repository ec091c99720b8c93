/*
 * otf2_pack - an OTF2 archive directory into one input of the OTF2 fuzz
 * harness (fuzz/otf2_archive.c describes the format), on stdout:
 *
 *   otf2_pack DIR [FLAGS] > fuzz/corpus/otf2_archive/NAME
 *
 * DIR holds traces.otf2, traces.def and traces/ (what `torusemu run
 * --trace DIR` and tests/otf2_foreign write); FLAGS is the harness's flags
 * byte (default 0; 1: replay with virtual time).  The files go in a fixed
 * order (the anchor, the global definitions, then traces/ sorted by name)
 * so a seed is the same whenever it is packed again.
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One entry: the name, the size, the bytes of DIR/NAME; 0, or -1. */
static int pack(const char *dir, const char *name)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "rb");
    if (f == NULL || strlen(name) > 255) {
        fprintf(stderr, "otf2_pack: cannot read %s\n", path);
        if (f != NULL) {
            fclose(f);
        }
        return -1;
    }
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    rewind(f);
    unsigned char *buf = malloc((size_t)n + 1);
    int rc = buf != NULL && fread(buf, 1, (size_t)n, f) == (size_t)n ? 0 : -1;
    fclose(f);
    if (rc == 0) {
        uint32_t len = (uint32_t)n;
        unsigned char head[5] = {(unsigned char)strlen(name)};
        unsigned char size[4] = {len & 0xff, len >> 8 & 0xff, len >> 16 & 0xff, len >> 24};
        fwrite(head, 1, 1, stdout);
        fwrite(name, 1, strlen(name), stdout);
        fwrite(size, 1, 4, stdout);
        fwrite(buf, 1, (size_t)n, stdout);
    }
    free(buf);
    return rc;
}

static int is_location_file(const struct dirent *e)
{
    size_t n = strlen(e->d_name);
    return n > 4 &&
           (strcmp(e->d_name + n - 4, ".evt") == 0 || strcmp(e->d_name + n - 4, ".def") == 0);
}

int main(int argc, char **argv)
{
    if (argc < 2 || argc > 3) {
        fprintf(stderr, "usage: otf2_pack DIR [FLAGS] > INPUT\n");
        return 2;
    }
    unsigned char flags = argc == 3 ? (unsigned char)atoi(argv[2]) : 0;
    char sub[4096];
    struct dirent **names;
    fwrite(&flags, 1, 1, stdout);
    int rc = pack(argv[1], "traces.otf2") | pack(argv[1], "traces.def");
    snprintf(sub, sizeof sub, "%s/traces", argv[1]);
    int n = scandir(sub, &names, is_location_file, alphasort);
    for (int i = 0; i < n; i++) {
        char name[300];
        snprintf(name, sizeof name, "traces/%s", names[i]->d_name);
        rc |= pack(argv[1], name);
        free(names[i]);
    }
    free(names);
    return rc != 0 || n < 0 ? 1 : 0;
}
