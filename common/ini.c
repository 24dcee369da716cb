/*
 * The INI lexer (grammar and contract in ini.h).  A line at a time from a
 * stdio stream (a file, or text through fmemopen): comments off, blanks
 * trimmed, then a header goes to on_section, `include` opens the next file
 * (recursion bounded by GS_INI_MAX_DEPTH), anything else is key = value,
 * expanded when asked and handed to on_pair with the current section.
 * Below the lexer: the typed values the readers' tables ask for.
 */
#define _GNU_SOURCE
#include "ini.h"

#include <ctype.h>
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "paths.h"

typedef struct lexer {
    const gs_ini_reader *r;
    char section[GS_INI_SECTION_MAX];
    int depth;
} lexer;

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
static gs_status expand_env(const lexer *x, char *dst, size_t cap, const char *src,
                            const char *where, gs_err *err)
{
    const char *what = x->r->what;
    size_t n = 0;
    for (const char *p = src; *p;) {
        if (p[0] == '$' && p[1] == '{') {
            const char *close = strchr(p + 2, '}');
            if (!close)
                return gs_err_set(err, GS_ERR_FORMAT, what, where, "unterminated ${ in '%s'", src);
            char name[128];
            size_t len = (size_t)(close - (p + 2));
            if (len == 0 || len >= sizeof name)
                return gs_err_set(err, GS_ERR_FORMAT, what, where, "bad ${...} in '%s'", src);
            memcpy(name, p + 2, len);
            name[len] = '\0';
            const char *fallback = NULL;
            char *dash = strstr(name, ":-");
            if (dash) {
                *dash = '\0';
                fallback = dash + 2;
                if (strstr(fallback, "${"))
                    return gs_err_set(err, GS_ERR_FORMAT, what, where,
                                      "nested ${...} in a fallback is not supported in '%s'", src);
            }
            for (const char *c = name; *c || c == name; c++)
                if (!(isalnum((unsigned char)*c) || *c == '_'))
                    return gs_err_set(err, GS_ERR_FORMAT, what, where,
                                      "bad environment variable name '%s'", name);
            const char *val = getenv(name);
            if (!val || (!*val && fallback))
                val = fallback;
            if (!val)
                return gs_err_set(err, GS_ERR_ARG, what, where,
                                  "environment variable %s is not set (write ${%s:-default} for a fallback)",
                                  name, name);
            size_t vl = strlen(val);
            if (n + vl >= cap)
                return gs_err_set(err, GS_ERR_RANGE, what, where, "value too long after expansion");
            memcpy(dst + n, val, vl);
            n += vl;
            p = close + 1;
            continue;
        }
        if (n + 1 >= cap)
            return gs_err_set(err, GS_ERR_RANGE, what, where, "value too long");
        dst[n++] = *p++;
    }
    dst[n] = '\0';
    return GS_OK;
}

static gs_status read_stream(lexer *x, FILE *f, const char *name, const char *base_dir, gs_err *err);

/* Reads the file at path; where names the line that asked for it. */
static gs_status read_file(lexer *x, const char *path, const char *where, gs_err *err)
{
    if (x->depth >= GS_INI_MAX_DEPTH)
        return gs_err_set(err, GS_ERR_RANGE, x->r->what, where,
                          "include nested more than %d deep (a cycle?) at '%s'", GS_INI_MAX_DEPTH, path);
    FILE *f = fopen(path, "r");
    if (!f)
        return gs_err_set(err, GS_ERR_IO, x->r->what, where, "cannot open '%s': %s", path, strerror(errno));
    char dircopy[PATH_MAX];
    snprintf(dircopy, sizeof dircopy, "%s", path);
    char *dir = dirname(dircopy);
    x->depth++;
    char saved[GS_INI_SECTION_MAX];
    memcpy(saved, x->section, sizeof saved);
    x->section[0] = '\0'; /* an included file starts outside any section */
    gs_status st = read_stream(x, f, path, dir, err);
    memcpy(x->section, saved, sizeof saved);
    x->depth--;
    fclose(f);
    return st;
}

static gs_status read_line(lexer *x, char *line, const char *where, const char *base_dir, gs_err *err)
{
    const gs_ini_reader *r = x->r;
    strip_comment(line);
    char *p = trim(line);
    if (!*p)
        return GS_OK;
    if (*p == '[') {
        char *close = strchr(p, ']');
        if (!close || trim(close + 1)[0])
            return gs_err_set(err, GS_ERR_FORMAT, r->what, where, "expected [section], got '%s'", p);
        *close = '\0';
        char *name = trim(p + 1);
        gs_status st = r->on_section ? r->on_section(r->ctx, name, where, err) : GS_OK;
        if (st != GS_OK)
            return st;
        if (strlen(name) >= sizeof x->section)
            return gs_err_set(err, GS_ERR_FORMAT, r->what, where, "section name longer than %d bytes",
                              GS_INI_SECTION_MAX - 1);
        memcpy(x->section, name, strlen(name) + 1);
        return GS_OK;
    }
    char *eq = strchr(p, '=');
    if (!eq)
        return gs_err_set(err, GS_ERR_FORMAT, r->what, where, "expected key = value, got '%s'", p);
    *eq = '\0';
    char *key = trim(p), *value = trim(eq + 1);
    if (!*key)
        return gs_err_set(err, GS_ERR_FORMAT, r->what, where, "missing key before '='");
    char buf[GS_INI_LINE_MAX];
    if (r->flags & GS_INI_ENV) {
        gs_status st = expand_env(x, buf, sizeof buf, value, where, err);
        if (st != GS_OK)
            return st;
        /* Blanks an expansion brought to either end go, like the line's own. */
        value = trim(buf);
    }
    if ((r->flags & GS_INI_INCLUDE) && !strcmp(key, "include")) {
        if (!value[0])
            return gs_err_set(err, GS_ERR_FORMAT, r->what, where, "include needs a file name");
        char path[PATH_MAX];
        if (!gs_path_resolve(path, sizeof path, base_dir, value))
            return gs_err_set(err, GS_ERR_RANGE, r->what, where, "include path too long");
        return read_file(x, path, where, err);
    }
    return r->on_pair(r->ctx, x->section, key, value, where, base_dir, err);
}

static gs_status read_stream(lexer *x, FILE *f, const char *name, const char *base_dir, gs_err *err)
{
    char line[GS_INI_LINE_MAX + 2], where[PATH_MAX + 32];
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
            return gs_err_set(err, GS_ERR_FORMAT, x->r->what, where, "NUL byte in line");
        if (len == sizeof line - 1 && line[len - 1] != '\n')
            return gs_err_set(err, GS_ERR_FORMAT, x->r->what, where, "line longer than %d bytes",
                              GS_INI_LINE_MAX);
        gs_status st = read_line(x, line, where, base_dir, err);
        if (st != GS_OK)
            return st;
    }
    if (ferror(f))
        return gs_err_set(err, GS_ERR_IO, x->r->what, name, "read error");
    return GS_OK;
}

static void lexer_init(lexer *x, const gs_ini_reader *r)
{
    x->r = r;
    x->depth = 0;
    snprintf(x->section, sizeof x->section, "%s", r->section ? r->section : "");
}

gs_status gs_ini_read_file(const gs_ini_reader *r, const char *path, gs_err *err)
{
    lexer x;
    lexer_init(&x, r);
    return read_file(&x, path, path, err);
}

gs_status gs_ini_read_text(const gs_ini_reader *r, const char *text, size_t len, const char *name,
                           const char *base_dir, gs_err *err)
{
    if (!len)
        return GS_OK;
    FILE *f = fmemopen((void *)text, len, "r");
    if (!f)
        return GS_ERR(err, GS_ERR_NOMEM, r->what, "fmemopen failed");
    lexer x;
    lexer_init(&x, r);
    gs_status st = read_stream(&x, f, name, base_dir, err);
    fclose(f);
    return st;
}

int gs_ini_int(long long *out, const char *text, double lo, double hi)
{
    char *end;
    errno = 0;
    long long v = strtoll(text, &end, 10);
    if (!*text || *end || errno || v < (long long)lo || v > (long long)hi)
        return 0;
    *out = v;
    return 1;
}

int gs_ini_u64(uint64_t *out, const char *text)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(text, &end, 0);
    if (!*text || *end || errno || text[0] == '-')
        return 0;
    *out = v;
    return 1;
}

int gs_ini_choice(int *out, const char *choices, const char *text)
{
    int i = 0;
    size_t n = strlen(text);
    for (const char *p = choices; *p; i++) {
        const char *bar = strchr(p, '|');
        size_t len = bar ? (size_t)(bar - p) : strlen(p);
        if (len == n && !strncmp(p, text, n)) {
            *out = i;
            return 1;
        }
        if (!bar)
            break;
        p = bar + 1;
    }
    return 0;
}
