/*
 * run.h - the `torusemu run` command (utils/run.c).
 */
#ifndef TEMU_CLI_RUN_H
#define TEMU_CLI_RUN_H

/* torusemu run --machine SPEC [...] -np P -- PROGRAM [ARGS]; returns the
 * exit status for main(). */
int temu_cli_run(int argc, char **argv);

#endif
