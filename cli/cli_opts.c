/* Option tables: parsing and --help from one table (cli_opts.h). */
#include "cli_opts.h"

#include <string.h>

#include "cli_util.h"

int gs_cli_set_flag(void *field, const char *val, const gs_cli_opt *opt, const char *cmd)
{
    (void)val, (void)opt, (void)cmd;
    *(int *)field = 1;
    return 1;
}

int gs_cli_set_str(void *field, const char *val, const gs_cli_opt *opt, const char *cmd)
{
    (void)opt, (void)cmd;
    *(const char **)field = val;
    return 1;
}

int gs_cli_set_uint(void *field, const char *val, const gs_cli_opt *opt, const char *cmd)
{
    return gs_cli_parse_uint(cmd, opt->name, val, opt->max, field);
}

int gs_cli_set_list(void *field, const char *val, const gs_cli_opt *opt, const char *cmd)
{
    (void)opt, (void)cmd;
    gs_cli_list *l = field;
    if (l->n == GS_CLI_LIST_MAX)
        return -1;
    l->v[l->n++] = val;
    return 1;
}

/* The option named a in t (groups searched too); *off receives the offset
 * of its field in the context. */
static const gs_cli_opt *find(const gs_cli_opt *t, const char *a, size_t base, size_t *off)
{
    for (; t->name || t->help || t->sub; t++) {
        if (t->sub) {
            const gs_cli_opt *o = find(t->sub, a, base + t->off, off);
            if (o)
                return o;
        } else if (t->name && (!strcmp(a, t->name) || (t->alias && !strcmp(a, t->alias)))) {
            *off = base + t->off;
            return t;
        }
    }
    return NULL;
}

static int refuse(const gs_cli_spec *s, const char *a)
{
    int opt = a[0] == '-' && a[1];
    if (s->bad && (opt || !s->bad_opts_only)) {
        fprintf(stderr, "gapscope %s: ", s->cmd);
        fprintf(stderr, s->bad, a);
        fputc('\n', stderr);
    }
    if (!(s->no_usage & (opt ? GS_CLI_USAGE_OPT : GS_CLI_USAGE_ARG)))
        gs_cli_help(s, stderr);
    return GS_EXIT_USAGE;
}

/* A positional argument: 1 taken, 0 refused. */
static int take(const gs_cli_spec *s, void *ctx, const char *a)
{
    if (s->positional)
        return s->positional(ctx, a);
    if (!s->max_args || a[0] == '-')
        return 0;
    gs_cli_list *l = (gs_cli_list *)((char *)ctx + s->args);
    if (l->n >= s->max_args || l->n == GS_CLI_LIST_MAX)
        return 0;
    l->v[l->n++] = a;
    return 1;
}

int gs_cli_parse(const gs_cli_spec *s, void *ctx, int argc, char **argv, int *next)
{
    if (next)
        *next = argc;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        size_t off = 0;
        const gs_cli_opt *o = find(s->opts, a, 0, &off);
        if (o) {
            if (o->arg && i + 1 >= argc)
                return refuse(s, a);
            int k = o->set((char *)ctx + off, o->arg ? argv[i + 1] : NULL, o, s->cmd);
            if (k < 0)
                return refuse(s, a);
            if (k == 0)
                return GS_EXIT_USAGE;
            i += o->arg != NULL;
        } else if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            gs_cli_help(s, stdout);
            return GS_EXIT_OK;
        } else if (s->dashdash && !strcmp(a, "--")) {
            if (next)
                *next = i + 1;
            return GS_CLI_GO;
        } else if ((a[0] == '-' && a[1]) || !take(s, ctx, a)) {
            return refuse(s, a);
        }
    }
    if (s->min_args > 0 && ((gs_cli_list *)((char *)ctx + s->args))->n < s->min_args)
        return gs_cli_usage_error(s);
    return GS_CLI_GO;
}

/* Width of an option's left column: "--name, -a ARG". */
static size_t left_width(const gs_cli_opt *o)
{
    return strlen(o->name) + (o->alias ? 2 + strlen(o->alias) : 0) + (o->arg ? 1 + strlen(o->arg) : 0);
}

static size_t widest(const gs_cli_opt *t)
{
    size_t w = 0;
    for (; t->name || t->help || t->sub; t++) {
        size_t k = t->sub ? widest(t->sub) : t->name ? left_width(t) : 0;
        w = k > w ? k : w;
    }
    return w;
}

/* Prints text's lines, the first after `at` columns already written, the
 * rest indented to col. */
static void lines(FILE *f, const char *text, size_t at, size_t col)
{
    fprintf(f, "%*s", (int)(col - at), "");
    for (const char *p = text; *p; p++) {
        fputc(*p, f);
        if (*p == '\n' && p[1])
            fprintf(f, "%*s", (int)col, "");
    }
    fputc('\n', f);
}

static void table(FILE *f, const gs_cli_opt *t, size_t col)
{
    for (; t->name || t->help || t->sub; t++) {
        if (t->sub) {
            table(f, t->sub, col);
        } else if (!t->name) {
            fprintf(f, "%s\n", t->help);
        } else {
            size_t w = 2 + left_width(t);
            fprintf(f, "  %s%s%s%s%s", t->name, t->alias ? ", " : "", t->alias ? t->alias : "",
                    t->arg ? " " : "", t->arg ? t->arg : "");
            if (w + 2 > col) {
                fputc('\n', f);
                w = 0;
            }
            lines(f, t->help, w, col);
        }
    }
}

void gs_cli_help(const gs_cli_spec *s, FILE *f)
{
    fputs(s->usage, f);
    if (s->opts[0].name || s->opts[0].help || s->opts[0].sub) {
        size_t w = widest(s->opts);
        if (!s->opts[0].help || s->opts[0].name || s->opts[0].sub)
            fputs("options:\n", f);
        table(f, s->opts, 4 + (w > 24 ? 24 : w));
    }
    if (s->notes)
        fputs(s->notes, f);
    if (s->more_help)
        s->more_help(f);
}

int gs_cli_usage_error(const gs_cli_spec *s)
{
    gs_cli_help(s, stderr);
    return GS_EXIT_USAGE;
}
