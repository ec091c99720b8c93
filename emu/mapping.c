/*
 * mapping.c - rank-to-node placement: default orders, permutations of the
 * coordinate letters, seeded random placement and map files.
 *
 * BG/Q: default ABCDET, the rightmost letter varies fastest (McCraw 2013
 * section 4.3; BG/Q driver, doc/references.md).  BG/P: default XYZT with the
 * leftmost letter fastest, as BG/P's mapping strings worked.  Gemini: node
 * id order (nodes 2g and 2g+1 share Gemini g; Geminis with the last
 * coordinate Z varying fastest), ranks_per_node consecutive ranks per node.
 * Map files: one line per rank, coordinates then T (doc/mapping.md).
 */
#define TEMU_BUILDING_LIBRARY 1
#include "emu_internal.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

void temu_mapping_free(temu_mapping *map)
{
    if (map != NULL) {
        free(map->slot);
        map->slot = NULL;
        map->nranks = 0;
    }
}

static const char *letters_of(const temu_machine *m)
{
    return temu_machine_family(m)->info.dims;
}

static temu_status check_sizes(const temu_machine *m, int32_t nranks, int32_t rpn,
                               temu_error *err)
{
    int32_t hw = m->cores_per_node * m->threads_per_core;
    if (nranks < 1) {
        return temu_fail(err, TEMU_EINVAL, "the number of ranks must be at least 1 (got %d)",
                         nranks);
    }
    if (rpn < 1 || rpn > hw) {
        return temu_fail(err, TEMU_EINVAL,
                         "%d ranks per node: a %s node has %d hardware threads (1..%d allowed)",
                         rpn, temu_system_name(m->system), hw, hw);
    }
    if (temu_machine_family(m)->info.rpn_power_of_two && (rpn & (rpn - 1)) != 0) {
        return temu_fail(err, TEMU_EINVAL,
                         "%d ranks per node: BG/Q runs 1, 2, 4, 8, 16, 32 or 64 per node", rpn);
    }
    if ((int64_t)nranks > m->nnodes * rpn) {
        return temu_fail(err, TEMU_ERANGE,
                         "%d ranks do not fit: %s has %lld nodes x %d ranks per node = %lld "
                         "slots",
                         nranks, m->name, (long long)m->nnodes, rpn,
                         (long long)(m->nnodes * rpn));
    }
    return TEMU_OK;
}

static temu_status alloc_map(temu_mapping *out, int32_t nranks, int32_t rpn, temu_error *err)
{
    out->slot = calloc((size_t)nranks, sizeof *out->slot);
    if (out->slot == NULL) {
        return temu_fail(err, TEMU_ENOMEM, "out of memory for a mapping of %d ranks", nranks);
    }
    out->nranks = nranks;
    out->ranks_per_node = rpn;
    return TEMU_OK;
}

/* Place ranks by a permutation of the dimension letters and T. */
static void place_by_order(const temu_machine *m, const char *order, int rightmost_fastest,
                           int32_t rpn, temu_mapping *out)
{
    int len = m->ndims + 1;
    const char *letters = letters_of(m);
    for (int32_t r = 0; r < out->nranks; r++) {
        int32_t coord[TEMU_MAX_DIMS] = {0};
        int32_t t = 0;
        int64_t rest = r;
        for (int i = 0; i < len; i++) {
            char c = order[rightmost_fastest ? len - 1 - i : i];
            if (c == 'T') {
                t = (int32_t)(rest % rpn);
                rest /= rpn;
            } else {
                int d = (int)(strchr(letters, c) - letters);
                coord[d] = (int32_t)(rest % m->size[d]);
                rest /= m->size[d];
            }
        }
        out->slot[r].node = (int32_t)temu_router_index(m, coord);
        out->slot[r].t = t;
    }
}

static void place_default(const temu_machine *m, int32_t rpn, temu_mapping *out)
{
    const temu_family_info *fam = &temu_machine_family(m)->info;
    if (fam->default_order != NULL) {
        place_by_order(m, fam->default_order, fam->rightmost_fastest, rpn, out);
    } else {
        for (int32_t r = 0; r < out->nranks; r++) {
            out->slot[r].node = r / rpn;
            out->slot[r].t = r % rpn;
        }
    }
}

static int is_permutation(const temu_machine *m, const char *how)
{
    const char *letters = letters_of(m);
    size_t len = strlen(how);
    if (len != (size_t)m->ndims + 1) {
        return 0;
    }
    for (size_t i = 0; i < len; i++) {
        if (how[i] != 'T' && strchr(letters, how[i]) == NULL) {
            return 0;
        }
        if (strchr(how + i + 1, how[i]) != NULL) {
            return 0;
        }
    }
    return 1;
}

/* Looks like an attempt at a permutation (only uppercase letters). */
static int looks_like_order(const char *how)
{
    for (const char *p = how; *p; p++) {
        if (!isupper((unsigned char)*p)) {
            return 0;
        }
    }
    return *how != '\0';
}

/* splitmix64: a small, well-mixed generator; the same seed gives the same
 * placement on every machine. */
static uint64_t splitmix64(uint64_t *state)
{
    uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static temu_status place_random(const temu_machine *m, const char *seed_text, int32_t rpn,
                                temu_mapping *out, temu_error *err)
{
    char *end;
    errno = 0;
    unsigned long long seed = strtoull(seed_text, &end, 10);
    if (errno != 0 || end == seed_text || *end != '\0' || seed_text[0] == '-') {
        return temu_fail(err, TEMU_EINVAL,
                         "random placement needs a decimal seed (random:SEED), got '%s'",
                         seed_text);
    }
    uint64_t state = seed;
    place_default(m, rpn, out);
    for (int32_t i = out->nranks - 1; i > 0; i--) {
        int32_t j = (int32_t)(splitmix64(&state) % (uint64_t)(i + 1));
        temu_slot tmp = out->slot[i];
        out->slot[i] = out->slot[j];
        out->slot[j] = tmp;
    }
    return TEMU_OK;
}

/* ------------------------------------------------------------ map files */

static int parse_int_token(const char **p, long *out)
{
    const char *s = *p;
    char *end;
    while (*s == ' ' || *s == '\t') {
        s++;
    }
    if (*s == '\0' || *s == '\n' || *s == '\r' || *s == '#') {
        return 0; /* no more tokens */
    }
    errno = 0;
    long v = strtol(s, &end, 10);
    if (end == s || errno != 0 || (*end != '\0' && !isspace((unsigned char)*end) && *end != '#')) {
        *p = s;
        return -1; /* bad token */
    }
    *out = v;
    *p = end;
    return 1;
}

temu_status temu_mapping_parse_text(const temu_machine *m, int32_t nranks, int32_t rpn,
                                    const char *text, const char *name, temu_mapping *out,
                                    temu_error *err)
{
    const char *letters = letters_of(m);
    int ncols = m->ndims + (m->nodes_per_router > 1 ? 1 : 0) + 1; /* N: node in router */
    int64_t nslots = m->nnodes * rpn;
    unsigned char *used = NULL;
    int32_t rank = 0;
    int line = 0;
    temu_status rc;

    memset(out, 0, sizeof *out);
    rc = check_sizes(m, nranks, rpn, err);
    if (rc != TEMU_OK) {
        return rc;
    }
    rc = alloc_map(out, nranks, rpn, err);
    if (rc != TEMU_OK) {
        return rc;
    }
    used = calloc((size_t)(nslots / 8 + 1), 1);
    if (used == NULL) {
        temu_mapping_free(out);
        return temu_fail(err, TEMU_ENOMEM, "out of memory reading map file '%s'", name);
    }
    for (const char *p = text; *p != '\0';) {
        const char *eol = strchr(p, '\n');
        const char *next = eol != NULL ? eol + 1 : p + strlen(p);
        long v[TEMU_MAX_DIMS + 2];
        int nv = 0, got;
        line++;
        while ((got = parse_int_token(&p, &v[nv])) == 1) {
            if (++nv > ncols) {
                break;
            }
        }
        if (got < 0) {
            int tl = (int)strcspn(p, " \t\r\n");
            rc = temu_fail(err, TEMU_EINVAL, "map file '%s', line %d: '%.*s' is not an integer",
                           name, line, tl, p);
            goto fail;
        }
        if (nv == 0) {
            p = next; /* blank or comment line */
            continue;
        }
        if (nv != ncols) {
            rc = temu_fail(err, TEMU_EINVAL,
                           "map file '%s', line %d: expected %d numbers (%s T), found %s%d",
                           name, line, ncols, temu_machine_family(m)->info.map_columns,
                           nv > ncols ? "more than " : "",
                           nv > ncols ? ncols : nv);
            goto fail;
        }
        if (rank >= nranks) {
            rc = temu_fail(err, TEMU_EINVAL,
                           "map file '%s', line %d: more lines than the job's %d ranks", name,
                           line, nranks);
            goto fail;
        }
        int32_t coord[TEMU_MAX_DIMS];
        for (int d = 0; d < m->ndims; d++) {
            if (v[d] < 0 || v[d] >= m->size[d]) {
                rc = temu_fail(err, TEMU_ERANGE,
                               "map file '%s', line %d: %c=%ld is outside 0..%d", name, line,
                               letters[d], v[d], m->size[d] - 1);
                goto fail;
            }
            coord[d] = (int32_t)v[d];
        }
        int64_t node = temu_router_index(m, coord) * m->nodes_per_router;
        if (m->nodes_per_router > 1) {
            long n = v[m->ndims];
            if (n < 0 || n > 1) {
                rc = temu_fail(err, TEMU_ERANGE,
                               "map file '%s', line %d: node-in-Gemini N=%ld must be 0 or 1",
                               name, line, n);
                goto fail;
            }
            node += n;
        }
        long t = v[ncols - 1];
        if (t < 0 || t >= rpn) {
            rc = temu_fail(err, TEMU_ERANGE, "map file '%s', line %d: T=%ld is outside 0..%d",
                           name, line, t, rpn - 1);
            goto fail;
        }
        int64_t slot = node * rpn + t;
        if (used[slot / 8] & (1u << (slot % 8))) {
            rc = temu_fail(err, TEMU_EINVAL,
                           "map file '%s', line %d: slot already used by an earlier rank", name,
                           line);
            goto fail;
        }
        used[slot / 8] |= (unsigned char)(1u << (slot % 8));
        out->slot[rank].node = (int32_t)node;
        out->slot[rank].t = (int32_t)t;
        rank++;
        p = next;
    }
    if (rank != nranks) {
        rc = temu_fail(err, TEMU_EINVAL, "map file '%s' places %d ranks but the job has %d", name,
                       rank, nranks);
        goto fail;
    }
    free(used);
    return TEMU_OK;
fail:
    free(used);
    temu_mapping_free(out);
    return rc;
}

/* Largest map file read, in bytes: a line per rank of at most ~20 bytes
 * ("A B C D E T"), so 64 MiB holds every rank of a full Mira (49,152 nodes x
 * 64 ranks = 3.1 million lines) with room for comments. */
#define MAP_FILE_MAX (64u << 20)

/* A NUL byte at nul in the text of map file path: refused with its line
 * and column (the parser would take it for the end of the file). */
static temu_status nul_fail(const char *path, const char *text, const char *nul, temu_error *err)
{
    long line = 1;
    const char *start = text;
    for (const char *p = text; p < nul; p++) {
        if (*p == '\n') {
            line++;
            start = p + 1;
        }
    }
    return temu_fail(err, TEMU_EINVAL,
                     "map file '%s', line %ld: a NUL byte (column %ld): not a text file", path,
                     line, (long)(nul - start) + 1);
}

static temu_status read_file(const char *path, char **text, temu_error *err)
{
    struct stat st;
    /* O_NONBLOCK: opening a FIFO nobody writes to must not hang; such a
     * file is then refused as not regular */
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) {
        return temu_fail(err, TEMU_EIO, "cannot open map file '%s': %s", path, strerror(errno));
    }
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        return temu_fail(err, TEMU_EINVAL,
                         "map file '%s' is not a regular file (a pipe or device is not read)",
                         path);
    }
    if (st.st_size > (off_t)MAP_FILE_MAX) {
        close(fd);
        return temu_fail(err, TEMU_EINVAL, "map file '%s' is %lld bytes; at most %u are read",
                         path, (long long)st.st_size, MAP_FILE_MAX);
    }
    /* one byte more than the limit: a file that grew meanwhile is seen */
    size_t cap = (size_t)st.st_size + 2, len = 0;
    char *buf = malloc(cap);
    if (buf == NULL) {
        close(fd);
        return temu_fail(err, TEMU_ENOMEM, "out of memory reading map file '%s'", path);
    }
    for (;;) {
        ssize_t got = read(fd, buf + len, cap - 1 - len);
        if (got < 0 && errno == EINTR) {
            continue;
        }
        if (got <= 0) {
            int bad = got < 0;
            close(fd);
            if (bad) {
                free(buf);
                return temu_fail(err, TEMU_EIO, "error reading map file '%s'", path);
            }
            break;
        }
        len += (size_t)got;
        if (len == cap - 1) {
            close(fd);
            free(buf);
            return temu_fail(err, TEMU_EINVAL, "map file '%s' changed while it was read", path);
        }
    }
    buf[len] = '\0';
    const char *nul = memchr(buf, '\0', len);
    if (nul != NULL) {
        temu_status bad = nul_fail(path, buf, nul, err);
        free(buf);
        return bad;
    }
    *text = buf;
    return TEMU_OK;
}

temu_status temu_mapping_build(const temu_machine *m, int32_t nranks, int32_t rpn,
                               const char *how, temu_mapping *out, temu_error *err)
{
    temu_status rc;
    memset(out, 0, sizeof *out);
    int is_file = how != NULL && how[0] != '\0' && strncmp(how, "random:", 7) != 0 &&
                  !looks_like_order(how);
    if (is_file) {
        char *text = NULL;
        rc = read_file(how, &text, err);
        if (rc != TEMU_OK) {
            return rc;
        }
        rc = temu_mapping_parse_text(m, nranks, rpn, text, how, out, err);
        free(text);
        return rc;
    }
    rc = check_sizes(m, nranks, rpn, err);
    if (rc != TEMU_OK) {
        return rc;
    }
    if (how != NULL && looks_like_order(how) && !is_permutation(m, how)) {
        return temu_fail(err, TEMU_EINVAL,
                         "mapping '%s' is not a permutation of %sT (each letter once)", how,
                         letters_of(m));
    }
    if (how != NULL && is_permutation(m, how) &&
        temu_machine_family(m)->info.default_order == NULL) {
        return temu_fail(err, TEMU_EINVAL,
                         "Gemini machines take the sequential order, random:SEED or a map file, "
                         "not '%s'",
                         how);
    }
    rc = alloc_map(out, nranks, rpn, err);
    if (rc != TEMU_OK) {
        return rc;
    }
    if (how == NULL || how[0] == '\0') {
        place_default(m, rpn, out);
    } else if (strncmp(how, "random:", 7) == 0) {
        rc = place_random(m, how + 7, rpn, out, err);
    } else {
        place_by_order(m, how, temu_machine_family(m)->info.rightmost_fastest, rpn, out);
    }
    if (rc != TEMU_OK) {
        temu_mapping_free(out);
    }
    return rc;
}
