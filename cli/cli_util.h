/* Small helpers shared by the CLI commands. */
#ifndef GS_CLI_UTIL_H
#define GS_CLI_UTIL_H

#include <stdint.h>

#include "../common/status.h"

/* Exit codes (cli.h). */
enum { GS_EXIT_OK = 0, GS_EXIT_NO = 1, GS_EXIT_USAGE = 2, GS_EXIT_INTERNAL = 3 };

/* Prints "gapscope <cmd>: <status name>: <message>" and returns the exit code
 * for that status (2 for input problems, 3 for internal ones). */
int gs_cli_fail(const char *cmd, const gs_err *err);
/* Progress on stderr unless quiet: "[  1.23 s] msg". */
void gs_cli_progress(int quiet, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Parses a non-negative integer option value; prints an error and returns 0 on failure. */
int gs_cli_parse_uint(const char *cmd, const char *opt, const char *text, uint64_t max,
                      uint64_t *out);

#endif
