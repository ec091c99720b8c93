/*
 * cmd_demo.c - `torusemu demo`: the emulator-only walkthrough; describes
 * one default machine of each system and routes a message across it with
 * `machine` and `route`.
 */
#include "cli.h"

static void usage(FILE *f)
{
    fprintf(f, "Usage: torusemu demo\n"
               "Describe one default machine of each system (Cielo, a BG/Q midplane, a BG/P\n"
               "midplane) and route a message across it, printing the counts it leaves on\n"
               "every link.\n"
               "\n"
               "Options:\n"
               "  -h, --help      print this help and exit\n"
               "      --version   print the version and exit\n");
}

static int demo_one(const char *spec, const char *src, const char *dst, const char *bytes)
{
    char *argv[] = {"route",       (char *)spec, (char *)src, (char *)dst, "--bytes",
                    (char *)bytes, "--payload",  "random:1",  NULL};
    char *margv[] = {"machine", (char *)spec, NULL};
    printf("==================================================================\n");
    int rc = cmd_machine(2, margv);
    printf("\n");
    return rc != 0 ? rc : cmd_route(8, argv);
}

int cmd_demo(int argc, char **argv)
{
    static const struct option opts[] = {CLI_COMMON_OPTIONS, {NULL, 0, NULL, 0}};
    int c, done, rc;
    cli_begin();
    while ((c = cli_next(argc, argv, ":h", opts, usage, &done, &rc)) != -1) {
        if (done) {
            return rc;
        }
    }
    if (optind < argc) {
        return cli_fail("demo: unexpected argument '%s'", argv[optind]);
    }
    rc = demo_one("cielo", "0,0,0", "3,0,1", "64K");
    if (rc == 0) {
        rc = demo_one("midplane", "0,0,0,0,0", "2,1,0,0,1", "16K");
    }
    if (rc == 0) {
        rc = demo_one("bgp-midplane", "0,0,0", "2,1,0", "16K");
    }
    return rc;
}
