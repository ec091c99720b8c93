/*
 * traffic.c - the message options of `route` and `inject` (traffic.h).
 */
#include "traffic.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

int traffic_option(int c, const char *arg, traffic_opts *o)
{
    switch (c) {
    case TRAFFIC_OPT_BYTES:
        char why[256];
        if (cli_parse_size_range(arg, 0, TEMU_MAX_MESSAGE_BYTES, &o->bytes, why, sizeof why) != 0) {
            return cli_fail("--bytes '%s': %s", arg, why);
        }
        o->have_bytes = 1;
        return 1;
    case TRAFFIC_OPT_COUNT:
        if (cli_parse_uint(arg, &o->count) != 0 || o->count == 0) {
            return cli_fail("--count '%s': expected a positive integer", arg);
        }
        return 1;
    case TRAFFIC_OPT_KIND:
        if ((o->kind = temu_kind_parse(arg)) < 0) {
            return cli_fail("--kind '%s': use p2p, coll-world, coll-sub, put or get", arg);
        }
        return 1;
    case TRAFFIC_OPT_PAYLOAD:
        if (strcmp(arg, "zero") != 0 && strcmp(arg, "ones") != 0 && strcmp(arg, "random") != 0) {
            uint64_t seed;
            if (strncmp(arg, "random:", 7) != 0 || cli_parse_uint(arg + 7, &seed) != 0) {
                return cli_fail("--payload '%s': use zero, ones, random or random:SEED", arg);
            }
        }
        o->payload = arg;
        return 1;
    default:
        return 0;
    }
}

/* Fill buf with the pattern of a checked --payload value. */
static void fill_payload(const char *pattern, unsigned char *buf, uint64_t n)
{
    if (strcmp(pattern, "zero") == 0 || strcmp(pattern, "ones") == 0) {
        memset(buf, pattern[0] == 'z' ? 0 : 0xff, n);
        return;
    }
    uint64_t x = 88172645463325252ull;
    if (pattern[6] == ':') {
        x = strtoull(pattern + 7, NULL, 10);
    }
    x = x ? x : 1;
    for (uint64_t i = 0; i < n; i++) { /* xorshift64 (Marsaglia 2003) */
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        buf[i] = (unsigned char)(x >> 24);
    }
}

int traffic_inject(temu_session *s, int64_t src, int64_t dst, const traffic_opts *o)
{
    temu_error err;
    temu_message msg = {src, dst, o->bytes, NULL, (temu_kind)o->kind};
    unsigned char *buf = NULL;
    if (o->payload != NULL && o->bytes > 0) {
        if (o->bytes > (1ull << 32)) {
            return cli_fail("--payload needs the bytes in memory; %" PRIu64 " is too large",
                            o->bytes);
        }
        buf = malloc(o->bytes);
        if (buf == NULL) {
            return cli_fail("out of memory for a %" PRIu64 "-byte payload", o->bytes);
        }
        fill_payload(o->payload, buf, o->bytes);
        msg.payload = buf;
    }
    for (uint64_t i = 0; i < o->count; i++) {
        if (temu_inject(s, &msg, &err) != TEMU_OK) {
            free(buf);
            return cli_fail_err(&err);
        }
    }
    free(buf);
    return 0;
}
