/*
 * The scenario INI reader.  Grammar, one construct per line:
 *
 *   ; comment            # comment           (also after a value, preceded by a blank)
 *   [section]
 *   key = value
 *   include = path       (anywhere; path relative to the including file)
 *
 * Values expand ${NAME} and ${NAME:-fallback} from the environment before
 * they are parsed; an unset variable without a fallback is an error.
 * Includes nest at most GS_INI_MAX_DEPTH deep (which also stops cycles).
 * Every error names "file:line".
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <libgen.h>
#include <stdlib.h>
#include <string.h>

#include "../common/paths.h"
#include "scn_internal.h"

#define GS_INI_MAX_DEPTH 8
#define GS_INI_LINE_MAX 1024

static char *trim(char *p)
{
    while (isspace((unsigned char)*p))
        p++;
    size_t n = strlen(p);
    while (n && isspace((unsigned char)p[n - 1]))
        p[--n] = '\0';
    return p;
}

/* Removes a trailing comment: ';' or '#' at the start or after a blank. */
static void strip_comment(char *p)
{
    for (char *q = p; *q; q++)
        if ((*q == ';' || *q == '#') && (q == p || isspace((unsigned char)q[-1]))) {
            *q = '\0';
            return;
        }
}

/* Expands ${NAME} / ${NAME:-fallback} from src into dst. */
static gs_status expand_env(char *dst, size_t cap, const char *src, const char *where, gs_err *err)
{
    size_t n = 0;
    for (const char *p = src; *p;) {
        if (p[0] == '$' && p[1] == '{') {
            const char *close = strchr(p + 2, '}');
            if (!close)
                return gs_err_set(err, GS_ERR_FORMAT, "scenario", where, "unterminated ${ in '%s'", src);
            char name[128];
            size_t len = (size_t)(close - (p + 2));
            if (len == 0 || len >= sizeof name)
                return gs_err_set(err, GS_ERR_FORMAT, "scenario", where, "bad ${...} in '%s'", src);
            memcpy(name, p + 2, len);
            name[len] = '\0';
            const char *fallback = NULL;
            char *dash = strstr(name, ":-");
            if (dash) {
                *dash = '\0';
                fallback = dash + 2;
                if (strstr(fallback, "${"))
                    return gs_err_set(err, GS_ERR_FORMAT, "scenario", where,
                                      "nested ${...} in a fallback is not supported in '%s'", src);
            }
            for (const char *c = name; *c || c == name; c++)
                if (!(isalnum((unsigned char)*c) || *c == '_'))
                    return gs_err_set(err, GS_ERR_FORMAT, "scenario", where,
                                      "bad environment variable name '%s'", name);
            const char *val = getenv(name);
            if (!val || (!*val && fallback))
                val = fallback;
            if (!val)
                return gs_err_set(err, GS_ERR_ARG, "scenario", where,
                                  "environment variable %s is not set (write ${%s:-default} for a fallback)",
                                  name, name);
            size_t vl = strlen(val);
            if (n + vl >= cap)
                return gs_err_set(err, GS_ERR_RANGE, "scenario", where, "value too long after expansion");
            memcpy(dst + n, val, vl);
            n += vl;
            p = close + 1;
            continue;
        }
        if (n + 1 >= cap)
            return gs_err_set(err, GS_ERR_RANGE, "scenario", where, "value too long");
        dst[n++] = *p++;
    }
    dst[n] = '\0';
    return GS_OK;
}

typedef struct {
    gs_scenario *s;
    char section[96];
    int depth;
} ini_ctx;

static gs_status parse_stream(ini_ctx *c, FILE *f, const char *name, const char *base_dir, gs_err *err);

static gs_status parse_file(ini_ctx *c, const char *path, const char *where, gs_err *err)
{
    if (c->depth >= GS_INI_MAX_DEPTH)
        return gs_err_set(err, GS_ERR_RANGE, "scenario", where,
                          "include nested more than %d deep (a cycle?) at '%s'", GS_INI_MAX_DEPTH, path);
    FILE *f = fopen(path, "r");
    if (!f)
        return gs_err_set(err, GS_ERR_IO, "scenario", where, "cannot open '%s': %s", path, strerror(errno));
    char dircopy[GS_SCN_PATH_MAX];
    snprintf(dircopy, sizeof dircopy, "%s", path);
    char *dir = dirname(dircopy);
    c->depth++;
    char saved[96];
    snprintf(saved, sizeof saved, "%s", c->section);
    c->section[0] = '\0'; /* an included file starts outside any section */
    gs_status st = parse_stream(c, f, path, dir, err);
    snprintf(c->section, sizeof c->section, "%s", saved);
    c->depth--;
    fclose(f);
    return st;
}

static gs_status parse_line(ini_ctx *c, char *line, const char *where, const char *base_dir, gs_err *err)
{
    strip_comment(line);
    char *p = trim(line);
    if (!*p)
        return GS_OK;
    if (*p == '[') {
        char *close = strchr(p, ']');
        if (!close || trim(close + 1)[0])
            return gs_err_set(err, GS_ERR_FORMAT, "scenario", where, "expected [section], got '%s'", p);
        *close = '\0';
        char *name = trim(p + 1);
        int point;
        gs_status st = gs_scn_section_check(c->s, name, &point, where, err);
        if (st != GS_OK)
            return st;
        snprintf(c->section, sizeof c->section, "%s", name);
        if (point >= 0)
            gs_scn_inject_present(c->s, point, where);
        return GS_OK;
    }
    char *eq = strchr(p, '=');
    if (!eq)
        return gs_err_set(err, GS_ERR_FORMAT, "scenario", where, "expected key = value, got '%s'", p);
    *eq = '\0';
    char *key = trim(p), *raw = trim(eq + 1);
    if (!*key)
        return gs_err_set(err, GS_ERR_FORMAT, "scenario", where, "missing key before '='");
    char buf[GS_INI_LINE_MAX];
    gs_status st = expand_env(buf, sizeof buf, raw, where, err);
    if (st != GS_OK)
        return st;
    /* Blanks an expansion brought to either end go, like the line's own. */
    char *value = trim(buf);
    if (!strcmp(key, "include")) {
        if (!value[0])
            return gs_err_set(err, GS_ERR_FORMAT, "scenario", where, "include needs a file name");
        char path[GS_SCN_PATH_MAX];
        if (!gs_path_resolve(path, sizeof path, base_dir, value))
            return gs_err_set(err, GS_ERR_RANGE, "scenario", where, "include path too long");
        return parse_file(c, path, where, err);
    }
    if (!c->section[0])
        return gs_err_set(err, GS_ERR_FORMAT, "scenario", where,
                          "key '%s' outside any section (start with [global], [engine], [jobs] ...)", key);
    return gs_scn_apply(c->s, c->section, key, value, where, base_dir, err);
}

static gs_status parse_stream(ini_ctx *c, FILE *f, const char *name, const char *base_dir, gs_err *err)
{
    char line[GS_INI_LINE_MAX + 2], where[GS_SCN_PATH_MAX + 32];
    int lineno = 0;
    /* fgets stores the bytes read and one terminating NUL and leaves the
     * rest of the buffer alone: with the buffer pre-filled with a non-NUL
     * byte, the last NUL is the terminator, and a NUL before it was read. */
    for (;;) {
        memset(line, '\n', sizeof line);
        if (!fgets(line, sizeof line, f))
            break;
        lineno++;
        snprintf(where, sizeof where, "%s:%d", name, lineno);
        size_t len = strlen(line);
        if ((const char *)memrchr(line, '\0', sizeof line) != line + len)
            return gs_err_set(err, GS_ERR_FORMAT, "scenario", where, "NUL byte in line");
        if (len == sizeof line - 1 && line[len - 1] != '\n')
            return gs_err_set(err, GS_ERR_FORMAT, "scenario", where, "line longer than %d bytes", GS_INI_LINE_MAX);
        gs_status st = parse_line(c, line, where, base_dir, err);
        if (st != GS_OK)
            return st;
    }
    if (ferror(f))
        return gs_err_set(err, GS_ERR_IO, "scenario", name, "read error");
    return GS_OK;
}

gs_status gs_scn_ini_parse_file(gs_scenario *s, const char *path, gs_err *err)
{
    ini_ctx c = {.s = s};
    return parse_file(&c, path, path, err);
}

gs_status gs_scenario_parse_text(gs_scenario *s, const char *text, const char *name, gs_err *err)
{
    if (!text[0])
        return GS_OK;
    FILE *f = fmemopen((void *)text, strlen(text), "r");
    if (!f)
        return GS_ERR(err, GS_ERR_NOMEM, "scenario", "fmemopen failed");
    ini_ctx c = {.s = s};
    gs_status st = parse_stream(&c, f, name, ".", err);
    fclose(f);
    return st;
}
