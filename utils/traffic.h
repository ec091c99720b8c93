/*
 * traffic.h - the message options `route` and `inject` share (--bytes,
 * --kind, --payload, --count) and injecting them into a store.
 */
#ifndef TEMU_CLI_TRAFFIC_H
#define TEMU_CLI_TRAFFIC_H

#include "cli.h"

typedef struct traffic_opts {
    uint64_t bytes;      /* per message                                  */
    int kind;            /* temu_kind                                    */
    const char *payload; /* NULL: no payload bytes (nothing compresses)  */
    uint64_t count;      /* messages                                     */
    int have_bytes;      /* --bytes was given                            */
} traffic_opts;

#define TRAFFIC_OPTS_INIT                                                                          \
    {                                                                                              \
        0, TEMU_KIND_P2P, NULL, 1, 0                                                               \
    }

/* getopt_long codes of the traffic options and their table entries. */
enum {
    TRAFFIC_OPT_BYTES = 'b',
    TRAFFIC_OPT_KIND = 'k',
    TRAFFIC_OPT_PAYLOAD = 'p',
    TRAFFIC_OPT_COUNT = 'c'
};
#define TRAFFIC_OPTIONS                                                                            \
    {"bytes", required_argument, NULL, TRAFFIC_OPT_BYTES},                                         \
        {"kind", required_argument, NULL, TRAFFIC_OPT_KIND},                                       \
        {"payload", required_argument, NULL, TRAFFIC_OPT_PAYLOAD},                                 \
    {                                                                                              \
        "count", required_argument, NULL, TRAFFIC_OPT_COUNT                                        \
    }

/* Apply option `c` with value `arg`.  1: taken; 0: not a traffic option;
 * CLI_EXIT_USAGE (with the reason printed) when the value is bad. */
int traffic_option(int c, const char *arg, traffic_opts *o);

/* Inject o->count messages from node src to node dst. */
int traffic_inject(temu_session *s, int64_t src, int64_t dst, const traffic_opts *o);

#endif
