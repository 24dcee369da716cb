/* gapscope: one binary, subcommands registered by cli/cmd_*.c (see cli.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

#define MAX_COMMANDS 64

typedef struct {
    const char *name, *summary;
    gs_cli_main fn;
} command;

static command commands[MAX_COMMANDS];
static int n_commands;

void gs_cli_register(const char *name, const char *summary, gs_cli_main fn)
{
    if (n_commands == MAX_COMMANDS)
        abort();
    commands[n_commands++] = (command){name, summary, fn};
}

static int cmp_command(const void *a, const void *b)
{
    return strcmp(((const command *)a)->name, ((const command *)b)->name);
}

static void usage(FILE *f)
{
    fprintf(f, "usage: gapscope <command> [options]\n\ncommands:\n");
    for (int i = 0; i < n_commands; i++)
        fprintf(f, "  %-12s %s\n", commands[i].name, commands[i].summary);
    fprintf(f, "\n`gapscope <command> --help` describes each command.\n");
}

int main(int argc, char **argv)
{
    qsort(commands, (size_t)n_commands, sizeof commands[0], cmp_command);
    if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") ||
        !strcmp(argv[1], "help")) {
        usage(argc < 2 ? stderr : stdout);
        return argc < 2 ? 2 : 0;
    }
    if (!strcmp(argv[1], "--version"))
        argv[1] = "version";
    for (int i = 0; i < n_commands; i++)
        if (!strcmp(argv[1], commands[i].name))
            return commands[i].fn(argc - 1, argv + 1);
    fprintf(stderr, "gapscope: unknown command '%s'\n", argv[1]);
    usage(stderr);
    return 2;
}
