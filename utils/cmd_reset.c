/*
 * cmd_reset.c - `torusemu reset`: zero every counter of a session store.
 */
#include "cli.h"

static void usage(FILE *f)
{
    fprintf(f, "Usage: torusemu reset STORE\n"
               "Zero every counter of a session store, and its message and byte totals.\n"
               "\n"
               "Options:\n"
               "  -h, --help      print this help and exit\n"
               "      --version   print the version and exit\n");
}

int cmd_reset(int argc, char **argv)
{
    static const struct option opts[] = {CLI_COMMON_OPTIONS, {NULL, 0, NULL, 0}};
    temu_error err;
    temu_session *s;
    int c, done, rc;
    cli_begin();
    while ((c = cli_next(argc, argv, ":h", opts, usage, &done, &rc)) != -1) {
        if (done) {
            return rc;
        }
    }
    if (argc - optind != 1) {
        usage(stderr);
        return CLI_EXIT_USAGE;
    }
    if (temu_session_attach(argv[optind], &s, &err) != TEMU_OK) {
        return cli_fail_err(&err);
    }
    temu_session_zero(s);
    temu_session_close(s);
    return 0;
}
