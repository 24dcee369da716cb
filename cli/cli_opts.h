/*
 * One option table per command: the same table parses argv and writes the
 * command's --help (as fio's option table does), so the two cannot drift.
 *
 * A table is an array of gs_cli_opt ended by an all-zero entry.  An entry is
 *   - an option: name ("--out"), an optional alias ("-o"), arg (the value's
 *     name in the help, "DIR"; NULL for a flag), help (lines split at '\n')
 *     and set, called with the field at offset off in the command's context
 *     struct;
 *   - a heading (name NULL, help set): a line of the help that starts a
 *     group of options ("limits:");
 *   - a group (sub set): the options of another table whose fields sit at
 *     offset off (a struct embedded in the context, GS_CLI_GROUP; 0 for a
 *     table over the same struct, GS_CLI_INCLUDE), listed in the help as if
 *     they were the command's own.
 *
 * gs_cli_parse walks argv[1..] in order: "--help" or "-h" prints the help on
 * stdout and ends the command with 0; an option of the table is applied
 * (its value is the next argument); anything else is a positional
 * argument (see gs_cli_spec).  An option without its value, an unknown one,
 * a setter's -1 and a refused positional end the command with exit 2 after
 * the spec's message and the help on stderr, unless no_usage says not to
 * (bits for arguments that look like options, "-x", and for the others).
 */
#ifndef GS_CLI_OPTS_H
#define GS_CLI_OPTS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct gs_cli_opt;

/* Applies an option's value (NULL for a flag) to field.  Returns 1 when
 * applied, 0 when the value is bad and the setter printed why (the command
 * ends with exit 2), -1 when the option is refused like an unknown one. */
typedef int (*gs_cli_setter)(void *field, const char *val, const struct gs_cli_opt *opt,
                             const char *cmd);

typedef struct gs_cli_opt {
    const char *name, *alias, *arg, *help;
    gs_cli_setter set;
    size_t off;                     /* of the field in the context struct */
    uint64_t max;                   /* gs_cli_set_uint: the largest value */
    const void *data;               /* for the setter's own use */
    const struct gs_cli_opt *sub;   /* a group */
} gs_cli_opt;

/* Setters for the common field types. */
int gs_cli_set_flag(void *field, const char *val, const gs_cli_opt *opt, const char *cmd); /* int = 1 */
int gs_cli_set_str(void *field, const char *val, const gs_cli_opt *opt, const char *cmd);  /* const char * */
int gs_cli_set_uint(void *field, const char *val, const gs_cli_opt *opt, const char *cmd); /* uint64_t <= max */
int gs_cli_set_list(void *field, const char *val, const gs_cli_opt *opt, const char *cmd); /* gs_cli_list */

/* A repeatable option's values, in order (-1 from the setter past the cap). */
#define GS_CLI_LIST_MAX 64
typedef struct gs_cli_list {
    const char *v[GS_CLI_LIST_MAX];
    int n;
} gs_cli_list;

/* Table entries: T is the context struct type, F its field. */
#define GS_CLI_FLAG(name, alias, help, T, F) {name, alias, NULL, help, gs_cli_set_flag, offsetof(T, F), 0, NULL, NULL}
#define GS_CLI_STR(name, alias, arg, help, T, F) {name, alias, arg, help, gs_cli_set_str, offsetof(T, F), 0, NULL, NULL}
#define GS_CLI_UINT(name, arg, max, help, T, F) {name, NULL, arg, help, gs_cli_set_uint, offsetof(T, F), max, NULL, NULL}
#define GS_CLI_LIST(name, arg, help, T, F) {name, NULL, arg, help, gs_cli_set_list, offsetof(T, F), 0, NULL, NULL}
#define GS_CLI_FN(name, alias, arg, help, fn, T, F) {name, alias, arg, help, fn, offsetof(T, F), 0, NULL, NULL}
#define GS_CLI_GROUP(table, T, F) {NULL, NULL, NULL, NULL, NULL, offsetof(T, F), 0, NULL, table}
#define GS_CLI_INCLUDE(table) {NULL, NULL, NULL, NULL, NULL, 0, 0, NULL, table}
#define GS_CLI_HEADING(text) {NULL, NULL, NULL, text, NULL, 0, 0, NULL, NULL}
#define GS_CLI_END {0}

/* In a spec: MIN to MAX positional arguments go to field F (a gs_cli_list) of T. */
#define GS_CLI_ARGS(T, F, MIN, MAX) .args = offsetof(T, F), .min_args = (MIN), .max_args = (MAX)

enum { GS_CLI_USAGE_OPT = 1, GS_CLI_USAGE_ARG = 2 }; /* no_usage bits */

typedef struct gs_cli_spec {
    const char *cmd;          /* "report": messages start "gapscope report: " */
    const char *usage;        /* the help's opening: synopsis and what the command does */
    const char *notes;        /* the help's closing paragraphs (NULL: none) */
    void (*more_help)(FILE *f);  /* printed after the notes (NULL: none) */
    const gs_cli_opt *opts;
    /* The arguments that are not options: up to max_args of them (not "-")
     * go to the gs_cli_list at offset args in the context, and fewer than
     * min_args is a usage error (the help on stderr, exit 2); or, when
     * positional is set, they go to it (1 taken, 0 refused; "-" included). */
    size_t args;
    int min_args, max_args;
    int (*positional)(void *ctx, const char *arg);
    const char *bad;          /* message for a refused argument, "%s" it (NULL: none) */
    int bad_opts_only;        /* ... only when it looks like an option */
    unsigned no_usage;        /* GS_CLI_USAGE_*: no help on stderr after the message */
    int dashdash;             /* "--" ends the options (gs_cli_parse's *next) */
} gs_cli_spec;

/* Keeps parsing: gs_cli_parse's return when the command goes on. */
#define GS_CLI_GO (-1)

/* Parses argv[1..argc-1] into ctx.  Returns GS_CLI_GO, or the exit code
 * the command ends with (0 after --help, 2 on a bad argument).  With
 * dashdash, *next (when not NULL) receives the index after "--" (argc
 * when there is none). */
int gs_cli_parse(const gs_cli_spec *spec, void *ctx, int argc, char **argv, int *next);
/* The help: usage, "options:" and the table, notes, more_help. */
void gs_cli_help(const gs_cli_spec *spec, FILE *f);
/* The help on stderr, exit code 2: for the command's own usage errors. */
int gs_cli_usage_error(const gs_cli_spec *spec);

#endif
