/*
 * cmd_create.c - `torusemu create`: make a session store file.
 */
#include "cli.h"

#include <string.h>

static void usage(FILE *f)
{
    fprintf(f, "Usage: torusemu create [OPTION]... --machine=SPEC STORE\n"
               "Create a session store file for machine SPEC.  With --ranks the rank-to-node\n"
               "mapping is recorded, for rank-level injection and for the MPI layer; without\n"
               "it the store holds 0 ranks and takes node-level traffic.\n"
               "\n"
               "Options:\n"
               "  -m, --machine=SPEC        the machine (see `torusemu machine --presets`)\n"
               "  -r, --ranks=P             record a mapping of P ranks\n"
               "  -n, --ranks-per-node=N    ranks sharing a node, 1..1024 (default 1)\n"
               "      --map=HOW             placement: a dimension order (ABCDET, XYZT), a map\n"
               "                            file, or random:SEED (default: BG/Q ABCDET, BG/P\n"
               "                            XYZT, Gemini node order)\n"
               "      --replace             replace STORE if it exists (processes attached to\n"
               "                            the old store keep it); without it an existing\n"
               "                            STORE is refused\n"
               "      --group               mode 0660: the file's group may attach and inject\n"
               "                            (default 0600, owner only; doc/store.md)\n"
               "  -h, --help                print this help and exit\n"
               "      --version             print the version and exit\n"
               "\n"
               "Example:\n"
               "  torusemu create job.store --machine=midplane --ranks=64 --ranks-per-node=16\n");
}

enum { OPT_MAP = CLI_OPT_FIRST_LONG, OPT_REPLACE, OPT_GROUP };

int cmd_create(int argc, char **argv)
{
    static const struct option opts[] = {CLI_COMMON_OPTIONS,
                                         {"machine", required_argument, NULL, 'm'},
                                         {"ranks", required_argument, NULL, 'r'},
                                         {"ranks-per-node", required_argument, NULL, 'n'},
                                         {"map", required_argument, NULL, OPT_MAP},
                                         {"replace", no_argument, NULL, OPT_REPLACE},
                                         {"group", no_argument, NULL, OPT_GROUP},
                                         {NULL, 0, NULL, 0}};
    temu_machine m;
    temu_mapping map;
    temu_error err;
    temu_session *s;
    const char *spec = NULL, *how = NULL;
    uint64_t ranks = 0, rpn = 1;
    unsigned flags = 0;
    int c, done, rc;
    cli_begin();
    while ((c = cli_next(argc, argv, ":hm:r:n:", opts, usage, &done, &rc)) != -1) {
        if (done) {
            return rc;
        }
        if (c == 'm') {
            spec = optarg;
        } else if (c == 'r') {
            if (cli_parse_uint(optarg, &ranks) != 0 || ranks == 0 || ranks > INT32_MAX) {
                return cli_fail("--ranks '%s': expected an integer from 1 to %d", optarg,
                                INT32_MAX);
            }
        } else if (c == 'n') {
            if (cli_parse_uint(optarg, &rpn) != 0 || rpn == 0 || rpn > 1024) {
                return cli_fail("--ranks-per-node '%s': expected an integer from 1 to 1024",
                                optarg);
            }
        } else if (c == OPT_REPLACE) {
            flags |= TEMU_CREATE_REPLACE;
        } else if (c == OPT_GROUP) {
            flags |= TEMU_CREATE_GROUP;
        } else {
            how = optarg;
        }
    }
    if (optind + 1 < argc) {
        return cli_fail("create: unexpected argument '%s'", argv[optind + 1]);
    }
    if (optind >= argc || spec == NULL) {
        return cli_fail("create: need STORE and --machine SPEC");
    }
    const char *store = argv[optind];
    if (temu_machine_parse(spec, &m, &err) != TEMU_OK) {
        return cli_fail_err(&err);
    }
    if (ranks == 0 && how != NULL) {
        return cli_fail("create: --map needs --ranks");
    }
    memset(&map, 0, sizeof map);
    if (ranks > 0 &&
        temu_mapping_build(&m, (int32_t)ranks, (int32_t)rpn, how, &map, &err) != TEMU_OK) {
        return cli_fail_err(&err);
    }
    temu_status st = temu_session_create_ex(store, &m, ranks ? &map : NULL, flags, &s, &err);
    temu_mapping_free(&map);
    if (st != TEMU_OK) {
        return cli_fail_err(&err);
    }
    printf("created %s: %s, %d ranks, %llu counters\n", store, m.name, temu_session_nranks(s),
           (unsigned long long)temu_counter_count(s));
    temu_session_close(s);
    return 0;
}
