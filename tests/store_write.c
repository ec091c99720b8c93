/*
 * store_write.c - add chosen values to counters of an existing session
 * store, for the shell tests of commands that read stores (`torusemu
 * stalls`): counters the timing model fills can so be set by hand.
 *
 *   store_write STORE < SCRIPT
 *
 * SCRIPT lines (blank lines and # comments ignored):
 *   tile ROUTER TILE CTR VALUE     Gemini tile counter CTR (0..5) of TILE
 *   bgq NODE LINK KIND VC VALUE    BG/Q network counter (LINK a name: A+,
 *                                  IO; KIND 0..2, 2 = receive-FIFO)
 *   bgp NODE LINK CTR VALUE        BG/P counter CTR (8 = NO_TOKENS)
 * Each adds VALUE to the counter.
 */
#include "torusemu.h"

#include <stdio.h>
#include <string.h>

static int fail(const char *what, const char *detail)
{
    fprintf(stderr, "store_write: %s%s%s\n", what, detail ? ": " : "", detail ? detail : "");
    return 1;
}

/* The store index a script line names, or -1. */
static int64_t line_index(const temu_machine *m, const char *line, unsigned long long *val)
{
    long long a, b, c;
    char name[16];
    if (sscanf(line, "tile %lld %lld %lld %llu", &a, &b, &c, val) == 4 && a >= 0 &&
        a < m->nrouters) {
        return temu_idx_gemini_tile(m, a, (int)b, (int)c);
    }
    if (sscanf(line, "bgq %lld %15s %lld %lld %llu", &a, name, &b, &c, val) == 5 && a >= 0 &&
        a < m->nnodes && temu_link_parse(m, name) >= 0) {
        return temu_idx_bgq_nw(m, a, temu_link_parse(m, name), (int)b, (int)c);
    }
    if (sscanf(line, "bgp %lld %15s %lld %llu", &a, name, &b, val) == 4 && a >= 0 &&
        a < m->nnodes && temu_link_parse(m, name) >= 0) {
        return temu_idx_bgp(m, a, temu_link_parse(m, name), (int)b);
    }
    return -1;
}

int main(int argc, char **argv)
{
    temu_error err;
    temu_session *s;
    char line[512];
    if (argc != 2) {
        return fail("usage: store_write STORE < SCRIPT", NULL);
    }
    if (temu_session_attach(argv[1], &s, &err) != TEMU_OK) {
        return fail("attach", err.message);
    }
    const temu_machine *m = temu_session_machine(s);
    while (fgets(line, sizeof line, stdin) != NULL) {
        char word[32];
        unsigned long long val;
        if (sscanf(line, "%31s", word) != 1 || word[0] == '#') {
            continue;
        }
        int64_t idx = line_index(m, line, &val);
        if (idx < 0) {
            temu_session_close(s);
            return fail("bad line", line);
        }
        temu_counter_add(s, idx, val);
    }
    temu_session_close(s);
    return 0;
}
