/*
 * cmd_replay.h - the `torusemu replay` command (utils/cmd_replay.c).
 */
#ifndef TEMU_CLI_REPLAY_H
#define TEMU_CLI_REPLAY_H

/* torusemu replay --machine SPEC --pattern NAME [...]; exit status. */
int temu_cli_replay(int argc, char **argv);

#endif
