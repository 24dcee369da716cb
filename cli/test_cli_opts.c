/* Option tables (cli_opts.h): one table parses and writes --help; and every
 * command `gapscope --help` lists answers its own --help from its table. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../test/test.h"
#include "cli_opts.h"

typedef struct {
    int quiet;
    const char *name;
} inner;

typedef struct {
    int flag, npos;
    const char *out, *pos[2];
    uint64_t n;
    gs_cli_list sets;
    inner in;
} args;

static int take(void *ctx, const char *arg)
{
    args *a = ctx;
    if (a->npos == 2)
        return 0;
    a->pos[a->npos++] = arg;
    return 1;
}

static const gs_cli_opt inner_opts[] = {
    GS_CLI_FLAG("--quiet", "-q", "no progress lines", inner, quiet),
    GS_CLI_STR("--name", NULL, "NAME", "a name,\nover two lines", inner, name),
    GS_CLI_END};

static const gs_cli_opt opts[] = {
    GS_CLI_FLAG("--flag", NULL, "a flag", args, flag),
    GS_CLI_STR("--out", "-o", "DIR", "where it goes", args, out),
    GS_CLI_UINT("--n", "N", 9, "a count", args, n),
    GS_CLI_LIST("--set", "K=V", "repeatable", args, sets),
    GS_CLI_HEADING("more:"),
    GS_CLI_GROUP(inner_opts, args, in),
    GS_CLI_END};

static const gs_cli_spec spec = {
    .cmd = "t",
    .usage = "usage: t [options] A [B]\n",
    .notes = "the end\n",
    .opts = opts,
    .positional = take,
    .bad = "unknown '%s'",
    .bad_opts_only = 1,
    .no_usage = GS_CLI_USAGE_OPT | GS_CLI_USAGE_ARG,
    .dashdash = 1,
};

/* Parses a space-separated command line (argv[0] "t"). */
static int parse(args *a, const char *line, int *next)
{
    static char buf[512];
    static char *argv[32];
    snprintf(buf, sizeof buf, "t %s", line);
    int argc = 0;
    for (char *s = strtok(buf, " "); s && argc < 31; s = strtok(NULL, " "))
        argv[argc++] = s;
    memset(a, 0, sizeof *a);
    fflush(stderr);
    return gs_cli_parse(&spec, a, argc, argv, next);
}

GS_TEST(cli_opts_parse)
{
    args a;
    int next;
    GS_CHECK_EQ_INT(parse(&a, "--flag -o d --n 7 x --set a=1 --set b=2 -q --name m y", &next),
                    GS_CLI_GO);
    GS_CHECK(a.flag && a.out && !strcmp(a.out, "d") && a.n == 7 && a.in.quiet);
    GS_CHECK(a.in.name && !strcmp(a.in.name, "m"));
    GS_CHECK(a.sets.n == 2 && !strcmp(a.sets.v[1], "b=2"));
    GS_CHECK(a.npos == 2 && !strcmp(a.pos[0], "x") && !strcmp(a.pos[1], "y"));
    GS_CHECK_EQ_INT(next, 15);
    /* "--" ends the options: the rest is the caller's. */
    GS_CHECK_EQ_INT(parse(&a, "a -- --flag b", &next), GS_CLI_GO);
    GS_CHECK(!a.flag && a.npos == 1 && next == 3);
    /* Bad: unknown, a value missing, out of range, a third positional. */
    GS_CHECK_EQ_INT(parse(&a, "--nope", NULL), 2);
    GS_CHECK_EQ_INT(parse(&a, "a --out", NULL), 2);
    GS_CHECK_EQ_INT(parse(&a, "--n 10", NULL), 2);
    GS_CHECK_EQ_INT(parse(&a, "a b c", NULL), 2);
    /* A full list refuses the next value (the option then counts as unknown). */
    gs_cli_list l = {.n = 0};
    for (int i = 0; i < GS_CLI_LIST_MAX; i++)
        GS_CHECK_EQ_INT(gs_cli_set_list(&l, "k=v", &opts[3], "t"), 1);
    GS_CHECK_EQ_INT(gs_cli_set_list(&l, "k=v", &opts[3], "t"), -1);
    GS_CHECK_EQ_INT(l.n, GS_CLI_LIST_MAX);
}

GS_TEST(cli_opts_help_from_the_table)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    GS_REQUIRE(f);
    gs_cli_help(&spec, f);
    fclose(f);
    /* Every entry of the table, the group's included, in table order. */
    const char *want[] = {"usage: t", "options:", "--flag", "--out, -o DIR", "--n N", "--set K=V",
                          "more:", "--quiet, -q", "--name NAME", "over two lines", "the end"};
    const char *p = buf;
    for (size_t i = 0; i < sizeof want / sizeof *want; i++) {
        const char *q = strstr(p, want[i]);
        GS_CHECK_MSG(q != NULL, "help lacks '%s' (in order):\n%s", want[i], buf);
        if (q)
            p = q;
    }
    /* A continuation line lines up under the first. */
    const char *first = strstr(buf, "a name,\n"), *second = strstr(buf, "over two lines");
    if (first && second) {
        const char *bol = first;
        while (bol > buf && bol[-1] != '\n')
            bol--;
        GS_CHECK_MSG(second - (first + 8) == first - bol, "%s", buf);
    }
    free(buf);
}

/* Every command of `gapscope --help` answers `CMD --help` with exit 0 and
 * its usage on stdout (cuda-bench only in CUDA builds; version has none). */
GS_TEST(cli_every_command_has_help)
{
    GS_TEST_NEED_BIN();
    const char *bin = gs_test_bin();
    char cmd[1200], out[16384], list[4096];
    snprintf(cmd, sizeof cmd, "%s --help", bin);
    GS_REQUIRE(gs_test_run(cmd, list, sizeof list) == 0);
    int n = 0;
    for (char *line = strtok(strstr(list, "commands:\n"), "\n"); line; line = strtok(NULL, "\n")) {
        char name[64];
        if (sscanf(line, "  %63s", name) != 1 || line[0] != ' ' || !strcmp(name, "version") ||
            !strcmp(name, "cuda-bench"))
            continue;
        snprintf(cmd, sizeof cmd, "%s %s --help 2>&1", bin, name);
        int rc = gs_test_run(cmd, out, sizeof out);
        char want[96];
        snprintf(want, sizeof want, "usage: gapscope %s", name);
        GS_CHECK_MSG(rc == 0 && strstr(out, want), "%s --help: exit %d: %.300s", name, rc, out);
        n++;
    }
    GS_CHECK_MSG(n >= 15, "only %d commands listed:\n%s", n, list);
}
