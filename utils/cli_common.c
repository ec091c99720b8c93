/*
 * cli_common.c - the run and replay summaries and store paths.
 */
#include "cli_common.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

void temu_cli_vfail(const char *cmd, const char *fmt, va_list ap)
{
    fprintf(stderr, "torusemu %s: ", cmd);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
}

void temu_cli_human(uint64_t v, char *buf, size_t len)
{
    static const char *units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    double d = (double)v;
    int u = 0;
    while (d >= 1024.0 && u < 4) {
        d /= 1024.0;
        u++;
    }
    snprintf(buf, len, u == 0 ? "%.0f %s" : "%.2f %s", d, units[u]);
}

typedef struct busiest {
    uint64_t bytes;   /* on the wire                        */
    uint64_t units;   /* phits or 32-byte chunks            */
    int64_t from, to; /* routers                          */
    int link;         /* outgoing link of `from`          */
} busiest;

/* The network link (host and I/O links excluded) that carried the most
 * bytes: Gemini tile phits arriving (3 bytes each, seed 000), Blue Gene
 * 32-byte chunks sent. */
static busiest find_busiest(const temu_session *s)
{
    const temu_machine *m = temu_session_machine(s);
    busiest b = {0, 0, -1, -1, -1};
    for (int64_t r = 0; r < m->nrouters; r++) {
        for (int l = 0; l < 2 * m->ndims; l++) {
            uint64_t units = 0, bytes;
            int64_t nb = temu_link_neighbor(m, r, l);
            if (nb < 0) {
                continue;
            }
            if (m->system == TEMU_SYSTEM_GEMINI) {
                int tiles[TEMU_GEMINI_TILES];
                int nt = temu_gemini_link_tiles(l, tiles);
                for (int i = 0; i < nt; i++) {
                    units += temu_counter_read(
                        s, temu_idx_gemini_tile(m, r, tiles[i], TEMU_TILE_VC0_PHITS));
                    units += temu_counter_read(
                        s, temu_idx_gemini_tile(m, r, tiles[i], TEMU_TILE_VC1_PHITS));
                }
                bytes = units * 3;
            } else if (m->system == TEMU_SYSTEM_BGQ) {
                for (int vc = 0; vc < TEMU_BGQ_VCS; vc++) {
                    units +=
                        temu_counter_read(s, temu_idx_bgq_nw(m, r, l, TEMU_BGQ_NW_SENT_CHUNKS, vc));
                }
                bytes = units * 32;
            } else {
                units = temu_counter_read(s, temu_idx_bgp(m, r, l, TEMU_BGP_CHUNKS));
                bytes = units * 32;
            }
            if (bytes > b.bytes) {
                b.bytes = bytes;
                b.units = units;
                /* Gemini counts arrivals: the link runs from the neighbour
                 * across `l` into r, leaving the neighbour through l ^ 1 */
                if (m->system == TEMU_SYSTEM_GEMINI) {
                    b.from = nb;
                    b.to = r;
                    b.link = l ^ 1;
                } else {
                    b.from = r;
                    b.to = nb;
                    b.link = l;
                }
            }
        }
    }
    return b;
}

void temu_cli_traffic_summary(const temu_session *s, const char *kept)
{
    const temu_machine *m = temu_session_machine(s);
    char h[32], a[64], c[64];
    temu_cli_human(temu_session_bytes(s), h, sizeof h);
    fprintf(stderr,
            "torusemu: %" PRIu64 " messages, %" PRIu64 " bytes of MPI payload injected (%s)\n",
            temu_session_messages(s), temu_session_bytes(s), h);
    busiest b = find_busiest(s);
    if (b.from < 0) {
        fprintf(stderr, "torusemu: busiest link: none (no traffic left a node)\n");
    } else {
        temu_router_name(m, b.from, a, sizeof a);
        temu_router_name(m, b.to, c, sizeof c);
        temu_cli_human(b.bytes, h, sizeof h);
        fprintf(stderr,
                "torusemu: busiest link: %s %s -> %s, %" PRIu64 " bytes (%s, %" PRIu64 " %s)\n", a,
                temu_link_name(m, b.link), c, b.bytes, h, b.units,
                m->system == TEMU_SYSTEM_GEMINI ? "phits" : "32-byte chunks");
    }
    if (kept != NULL) {
        fprintf(stderr, "torusemu: counters kept in %s (torusemu dump %s)\n", kept, kept);
    }
}

void temu_cli_temp_store(char *out, size_t len, const char *what)
{
    const char *dir = getenv("TMPDIR");
    if (dir == NULL || *dir == '\0') {
        dir = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
    }
    snprintf(out, len, "%s/torusemu-%s-%ld.store", dir, what, (long)getpid());
}

int temu_cli_absolute_path(const char *p, char *out, size_t len)
{
    char cwd[PATH_MAX];
    int w;
    if (p[0] == '/') {
        w = snprintf(out, len, "%s", p);
    } else if (getcwd(cwd, sizeof cwd) == NULL) {
        return -1;
    } else {
        w = snprintf(out, len, "%s/%s", cwd, p);
    }
    if (w < 0 || (size_t)w >= len) {
        errno = ENAMETOOLONG;
        return -1;
    }
    return 0;
}

