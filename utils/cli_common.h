/*
 * cli_common.h - pieces the torusemu subcommands share (utils/cli_common.c).
 */
#ifndef TEMU_CLI_COMMON_H
#define TEMU_CLI_COMMON_H

#include "torusemu.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

/* "torusemu CMD: message" on stderr. */
void temu_cli_vfail(const char *cmd, const char *fmt, va_list ap);
/* "1.50 MiB" */
void temu_cli_human(uint64_t v, char *buf, size_t len);
/* The summary lines after a run or a replay, on stderr: messages and bytes
 * injected, the busiest network link, and where the store was kept (kept
 * may be NULL). */
void temu_cli_traffic_summary(const temu_session *s, const char *kept);
/* Path of a temporary store for command `what`: $TMPDIR when set, else
 * /dev/shm (memory) when writable, else /tmp. */
void temu_cli_temp_store(char *out, size_t len, const char *what);
/* p made absolute against the working directory; -1 (errno set) on failure. */
int temu_cli_absolute_path(const char *p, char *out, size_t len);

#endif
