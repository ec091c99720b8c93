/*
 * cmd_inject.c - `torusemu inject`: add messages to a session store.
 */
#include "traffic.h"

#include <string.h>

static void usage(FILE *f)
{
    fprintf(f, "Usage: torusemu inject [OPTION]... --src=S --dst=D --bytes=SIZE STORE\n"
               "Add messages of SIZE bytes from S to D to a session store.  S and D are nodes\n"
               "(ids or coordinates such as 1,0,2) or, with --ranks, ranks of the stored\n"
               "mapping.\n"
               "\n"
               "Options:\n"
               "  -s, --src=S           the sending node (or rank)\n"
               "  -d, --dst=D           the receiving node (or rank)\n"
               "  -b, --bytes=SIZE      message size: bytes, or with a suffix k/K/KiB (1024),\n"
               "                        M/MiB, G/GiB, or kB/MB/GB (powers of 1000)\n"
               "  -k, --kind=KIND       p2p (default), coll-world, coll-sub, put or get\n"
               "  -p, --payload=DATA    zero, ones, random or random:SEED (Gemini compression)\n"
               "  -c, --count=N         messages to add (default 1)\n"
               "  -r, --ranks           S and D are ranks, not nodes\n"
               "  -h, --help            print this help and exit\n"
               "      --version         print the version and exit\n"
               "\n"
               "Example:\n"
               "  torusemu inject job.store --src=0 --dst=2,0,0,0,0 --bytes=4K --count=3\n");
}

int cmd_inject(int argc, char **argv)
{
    static const struct option opts[] = {CLI_COMMON_OPTIONS,
                                         TRAFFIC_OPTIONS,
                                         {"src", required_argument, NULL, 's'},
                                         {"dst", required_argument, NULL, 'd'},
                                         {"ranks", no_argument, NULL, 'r'},
                                         {NULL, 0, NULL, 0}};
    temu_error err;
    temu_session *s;
    const char *src_s = NULL, *dst_s = NULL;
    int by_rank = 0, c, done, rc;
    traffic_opts o = TRAFFIC_OPTS_INIT;
    cli_begin();
    while ((c = cli_next(argc, argv, ":hb:k:p:c:s:d:r", opts, usage, &done, &rc)) != -1) {
        if (done) {
            return rc;
        }
        if (c == 's') {
            src_s = optarg;
        } else if (c == 'd') {
            dst_s = optarg;
        } else if (c == 'r') {
            by_rank = 1;
        } else if (traffic_option(c, optarg, &o) != 1) {
            return CLI_EXIT_USAGE;
        }
    }
    if (optind + 1 < argc) {
        return cli_fail("inject: unexpected argument '%s'", argv[optind + 1]);
    }
    if (optind >= argc || src_s == NULL || dst_s == NULL) {
        return cli_fail("inject: need STORE, --src and --dst");
    }
    if (temu_session_attach(argv[optind], &s, &err) != TEMU_OK) {
        return cli_fail_err(&err);
    }
    const temu_machine *m = temu_session_machine(s);
    int64_t src, dst;
    if (by_rank) {
        uint64_t a, b;
        temu_slot sa, sb;
        if (cli_parse_uint(src_s, &a) != 0 || cli_parse_uint(dst_s, &b) != 0 || a > INT32_MAX ||
            b > INT32_MAX) {
            temu_session_close(s);
            return cli_fail("inject --ranks: --src and --dst must be rank numbers");
        }
        if (temu_session_rank_slot(s, (int32_t)a, &sa, &err) != TEMU_OK ||
            temu_session_rank_slot(s, (int32_t)b, &sb, &err) != TEMU_OK) {
            temu_session_close(s);
            return cli_fail_err(&err);
        }
        src = sa.node;
        dst = sb.node;
    } else if (cli_parse_node(m, src_s, &src) != 0 || cli_parse_node(m, dst_s, &dst) != 0) {
        temu_session_close(s);
        return CLI_EXIT_USAGE;
    }
    rc = traffic_inject(s, src, dst, &o);
    temu_session_close(s);
    return rc;
}
