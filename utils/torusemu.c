/*
 * torusemu - command-line front end of the emulated machine.  This file
 * only dispatches: each subcommand lives in utils/cmd_<name>.c and the
 * conventions they share in utils/cli.c.  Every command answers --help and
 * --version; doc/cli.md describes them for users.
 */
#include "cli.h"

#include <string.h>

static const cli_command commands[] = {
    {"machine", cmd_machine, "describe a machine spec or list presets"},
    {"route", cmd_route, "route between two nodes, optionally with a message's counts"},
    {"interconnect", cmd_interconnect, "write a Gemini rtr --interconnect file"},
    {"create", cmd_create, "create a session store"},
    {"inject", cmd_inject, "add traffic to a session store"},
    {"dump", cmd_dump, "print a session store's counters"},
    {"reset", cmd_reset, "zero a session store"},
    {"demo", cmd_demo, "built-in walkthrough on default machines"},
    {"run", cmd_run, "run an MPI program on an emulated machine"},
    {"replay", cmd_replay, "replay an OTF2 trace or a communication pattern, without processes"},
    {"plot", cmd_plot, "draw a store's per-link traffic as a PNG picture"},
    {"series", cmd_series, "print a time-series file of counter snapshots"},
    {"analyze", cmd_analyze, "link-level analysis of a time series: P_bu, P_Ts, CCDFs, regions"},
    {"stalls", cmd_stalls, "stall counters by link dimension of one or two stores (table, PNG)"},
    {"production", cmd_production, "a production period of a whole Gemini machine, as a series"},
};

static void usage(FILE *f)
{
    fprintf(f, "Usage: torusemu COMMAND [ARGUMENT]...\n"
               "  or:  torusemu --help | --version\n"
               "Emulate the network counters of a Cray Gemini, IBM Blue Gene/P or Blue Gene/Q\n"
               "torus: describe machines and routes, keep counters in session stores, and run\n"
               "MPI programs whose traffic they count.  `torusemu COMMAND --help` describes\n"
               "a command.\n\nCommands:\n");
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++) {
        fprintf(f, "  %-13s %s\n", commands[i].name, commands[i].what);
    }
    fprintf(f, "\nOptions:\n"
               "  -h, --help      print this help and exit\n"
               "      --version   print the version and exit\n");
}

int main(int argc, char **argv)
{
    static const struct option opts[] = {CLI_COMMON_OPTIONS, {NULL, 0, NULL, 0}};
    int c, done, rc;
    if (argc < 2) {
        usage(stderr);
        return CLI_EXIT_USAGE;
    }
    if (strcmp(argv[1], "help") == 0) {
        usage(stdout);
        return 0;
    }
    argv[0] = "torusemu";
    cli_begin();
    /* "+": options end at the command name, which takes its own */
    while ((c = cli_next(argc, argv, "+:h", opts, usage, &done, &rc)) != -1) {
        if (done) {
            return rc;
        }
    }
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++) {
        if (strcmp(argv[optind], commands[i].name) == 0) {
            return commands[i].run(argc - optind, argv + optind);
        }
    }
    cli_fail("unknown command '%s'", argv[optind]);
    usage(stderr);
    return CLI_EXIT_USAGE;
}
