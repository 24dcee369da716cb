/* The INI lexer (ini.h): what a reader sees of each line, includes, ${ENV},
 * and errors that name the file and line. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../test/test.h"
#include "ini.h"

typedef struct seen {
    char log[2048];
    const char *refuse; /* a section on_section rejects */
} seen;

static gs_status on_section(void *ctx, const char *name, const char *where, gs_err *err)
{
    seen *s = ctx;
    if (s->refuse && !strcmp(name, s->refuse))
        return gs_err_set(err, GS_ERR_FORMAT, "t", where, "refused [%s]", name);
    size_t n = strlen(s->log);
    snprintf(s->log + n, sizeof s->log - n, "[%s]", name);
    return GS_OK;
}

static gs_status on_pair(void *ctx, const char *section, const char *key, const char *value,
                         const char *where, const char *base_dir, gs_err *err)
{
    (void)err;
    seen *s = ctx;
    const char *line = strrchr(where, ':');
    size_t n = strlen(s->log);
    snprintf(s->log + n, sizeof s->log - n, "%s.%s=%s@%s%s%s;", section, key, value, line ? line + 1 : "?",
             base_dir ? " in " : "", base_dir ? strrchr(base_dir, '/') ? strrchr(base_dir, '/') + 1 : base_dir : "");
    return GS_OK;
}

static gs_status lex(seen *s, unsigned flags, const char *first, const char *text, gs_err *err)
{
    memset(s->log, 0, sizeof s->log);
    gs_ini_reader r = {.what = "t", .flags = flags, .section = first, .on_section = on_section,
                       .on_pair = on_pair, .ctx = s};
    gs_err_clear(err);
    return gs_ini_read_text(&r, text, strlen(text), "x.ini", NULL, err);
}

GS_TEST(ini_lines)
{
    seen s = {0};
    gs_err err;
    GS_CHECK_OK(lex(&s, 0, "top", "a = 1\n; c\n  # c\n[ sec ]\n k = v w  ; c\nu=x;y#z\n\n[s2]\np = \n", &err));
    GS_CHECK_MSG(!strcmp(s.log, "top.a=1@1;[sec]sec.k=v w@5;sec.u=x;y#z@6;[s2]s2.p=@9;"), "%s", s.log);
    /* Without the flags, include and ${...} are plain text. */
    GS_CHECK_OK(lex(&s, 0, NULL, "include = y.ini\nv = ${HOME}\n", &err));
    GS_CHECK_MSG(!strcmp(s.log, ".include=y.ini@1;.v=${HOME}@2;"), "%s", s.log);
    setenv("GS_TEST_INI_V", " 42 ", 1);
    unsetenv("GS_TEST_INI_UNSET");
    GS_CHECK_OK(lex(&s, GS_INI_ENV, NULL, "v = ${GS_TEST_INI_V}\nw = a${GS_TEST_INI_UNSET:-b}c\n", &err));
    GS_CHECK_MSG(!strcmp(s.log, ".v=42@1;.w=abc@2;"), "%s", s.log);
}

GS_TEST(ini_errors_name_file_line)
{
    struct { const char *text, *where, *word; } cases[] = {
        {"a = 1\n[sec\n", "x.ini:2", "expected [section], got '[sec'"},
        {"[sec] x\n", "x.ini:1", "expected [section]"},
        {"\n\nnothing here\n", "x.ini:3", "expected key = value, got 'nothing here'"},
        {"= 3\n", "x.ini:1", "missing key"},
        {"[ok]\n[no]\n", "x.ini:2", "refused [no]"},
        {"v = ${GS_TEST_INI_UNSET}\n", "x.ini:1", "not set"},
        {"v = ${GS_TEST\n", "x.ini:1", "unterminated"},
        {"include = no-such.ini\n", "x.ini:1", "cannot open"},
    };
    seen s = {.refuse = "no"};
    gs_err err;
    unsetenv("GS_TEST_INI_UNSET");
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        GS_CHECK_MSG(lex(&s, GS_INI_ENV | GS_INI_INCLUDE, NULL, cases[i].text, &err) != GS_OK,
                     "case %zu accepted", i);
        GS_CHECK_MSG(!strncmp(err.msg, "t @ ", 4) && strstr(err.msg, cases[i].where) &&
                         strstr(err.msg, cases[i].word), "case %zu: %s", i, err.msg);
    }
    static const char nul[] = "a = 1\nb = x\0y\n";
    memset(s.log, 0, sizeof s.log);
    gs_ini_reader r = {.what = "t", .on_pair = on_pair, .ctx = &s};
    gs_err_clear(&err);
    GS_CHECK(gs_ini_read_text(&r, nul, sizeof nul - 1, "x.ini", NULL, &err) == GS_ERR_FORMAT);
    GS_CHECK_MSG(strstr(err.msg, "x.ini:2: NUL byte"), "%s", err.msg);
    char *longl = malloc(GS_INI_LINE_MAX + 16);
    GS_REQUIRE(longl);
    memset(longl, 'k', GS_INI_LINE_MAX + 8);
    strcpy(longl + GS_INI_LINE_MAX + 8, "=1\n");
    GS_CHECK(lex(&s, 0, NULL, longl, &err) == GS_ERR_FORMAT && strstr(err.msg, "x.ini:1: line longer"));
    free(longl);
}

GS_TEST(ini_include_relative_and_sections)
{
    char dir[700], sub[720], top[760], inc[760], loop[760];
    snprintf(dir, sizeof dir, "%s/ini", gs_test_tmpdir());
    snprintf(sub, sizeof sub, "%s/sub", dir);
    char cmd[800];
    snprintf(cmd, sizeof cmd, "mkdir -p '%s'", sub);
    GS_REQUIRE(system(cmd) == 0);
    snprintf(top, sizeof top, "%s/top.ini", dir);
    snprintf(inc, sizeof inc, "%s/inc.ini", sub);
    GS_REQUIRE(gs_test_write_text(top, "[a]\nx = 1\ninclude = sub/inc.ini\ny = 2\n"));
    GS_REQUIRE(gs_test_write_text(inc, "z = 3\n[b]\nw = 4\n"));
    seen s = {0};
    gs_ini_reader r = {.what = "t", .flags = GS_INI_INCLUDE, .on_section = on_section,
                       .on_pair = on_pair, .ctx = &s};
    gs_err err;
    gs_err_clear(&err);
    GS_CHECK_OK(gs_ini_read_file(&r, top, &err));
    /* The included file starts outside any section; its base is its own
     * directory; the includer's section resumes after it. */
    GS_CHECK_MSG(!strcmp(s.log, "[a]a.x=1@2 in ini;.z=3@1 in sub;[b]b.w=4@3 in sub;a.y=2@4 in ini;"), "%s", s.log);
    snprintf(loop, sizeof loop, "%s/loop.ini", dir);
    GS_REQUIRE(gs_test_write_text(loop, "include = loop.ini\n"));
    gs_err_clear(&err);
    GS_CHECK(gs_ini_read_file(&r, loop, &err) == GS_ERR_RANGE && strstr(err.msg, "nested more than 8"));
}
