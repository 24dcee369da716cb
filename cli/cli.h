/*
 * Subcommands of the gapscope binary.  Each lives in cli/cmd_<name>.c and
 * registers itself with GS_CLI_COMMAND, so adding a command touches no
 * shared table.  A command's main returns the process exit code:
 * 0 success, 1 a negative answer (proof invalid, gate failed),
 * 2 bad usage or bad input, 3 internal failure.  A command's options are a
 * table (cli_opts.h) that both parses its argv and writes its --help; the
 * summary given here is its line in `gapscope --help`.
 */
#ifndef GS_CLI_H
#define GS_CLI_H

typedef int (*gs_cli_main)(int argc, char **argv);

void gs_cli_register(const char *name, const char *summary, gs_cli_main fn);

#define GS_CLI_COMMAND(ident, name, summary, fn)                         \
    __attribute__((constructor)) static void gs_cli_reg_##ident(void)   \
    {                                                                   \
        gs_cli_register((name), (summary), (fn));                       \
    }

#endif
