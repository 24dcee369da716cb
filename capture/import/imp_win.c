/*
 * A window onto a JSON input (imp_internal.h): the whole input when it is
 * in memory, else a buffer refilled from the file as the reader moves on,
 * so an import holds one window (IMP_WIN_CHUNK, grown only for a single
 * value larger than that, up to IMP_WIN_MAX) and never the file.
 *
 * Values are cut out with a string-aware bracket scan (not validated
 * inside: the caller parses each one); a value that runs past the end of
 * the window is scanned again from its start after a refill that keeps
 * the bytes from that start.  Lines are counted as values are consumed.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>

#include "imp_internal.h"

static int fill_at(imp_win *w, size_t keep_off);

void imp_win_mem(imp_win *w, const char *data, size_t len)
{
    memset(w, 0, sizeof *w);
    w->s = w->buf_c = data;
    w->end = data + len;
    w->eof = 1;
    w->line = 1;
}

int imp_win_file(imp_win *w, FILE *f)
{
    memset(w, 0, sizeof *w);
    w->f = f;
    w->line = 1;
    /* GS_IMPORT_WINDOW (bytes, >= 16): a smaller window, for tests that
     * make every value cross a refill. */
    const char *env = getenv("GS_IMPORT_WINDOW");
    long wsz = env ? strtol(env, NULL, 10) : 0;
    w->cap = wsz >= 16 ? (size_t)wsz : IMP_WIN_CHUNK;
    w->buf = malloc(w->cap);
    if (!w->buf) {
        w->oom = 1;
        return 0;
    }
    w->s = w->end = w->buf_c = w->buf;
    return fill_at(w, 0);
}

void imp_win_free(imp_win *w)
{
    free(w->buf);
    w->buf = NULL;
}

uint64_t imp_win_off(const imp_win *w)
{
    return w->base + (uint64_t)(w->s - w->buf_c);
}

/* imp_win_fill with keep given as an offset into the window. */
static int fill_at(imp_win *w, size_t keep_off)
{
    if (!w->f || w->eof)
        return 0;
    const char *keep = w->buf_c + keep_off;
    size_t kept = (size_t)(w->end - keep);
    if (kept == w->cap) {   /* one value fills the window: grow it */
        if (w->cap >= IMP_WIN_MAX) {
            w->too_big = 1;
            return 0;
        }
        char *nb = realloc(w->buf, w->cap * 2);
        if (!nb) {
            w->oom = 1;
            return 0;
        }
        keep = nb + (keep - w->buf);
        w->s = nb + (w->s - w->buf);
        w->buf = nb;
        w->cap *= 2;
    }
    size_t at = (size_t)(w->s - keep);
    w->base += (uint64_t)(keep - w->buf);
    memmove(w->buf, keep, kept);
    size_t got = fread(w->buf + kept, 1, w->cap - kept, w->f);
    if (got < w->cap - kept) {
        if (ferror(w->f))
            w->io = 1;
        w->eof = 1;
    }
    w->buf_c = w->buf;
    w->s = w->buf + at;
    w->end = w->buf + kept + got;
    return got > 0;
}

int imp_win_fill(imp_win *w, const char *keep)
{
    return fill_at(w, (size_t)(keep - w->buf_c));
}

int imp_win_seek(imp_win *w, uint64_t off, long line)
{
    w->line = line;
    if (!w->f) {
        w->s = w->buf_c + off;
        return 1;
    }
    if (fseeko(w->f, (off_t)off, SEEK_SET) != 0) {
        w->io = 1;
        return 0;
    }
    w->eof = 0;
    w->base = off;
    w->s = w->end = w->buf_c = w->buf;
    return fill_at(w, 0) || w->end > w->s;
}

int imp_win_ws(imp_win *w)
{
    for (;;) {
        while (w->s < w->end) {
            char c = *w->s;
            if (c == '\n')
                w->line++;
            else if (c != ' ' && c != '\t' && c != '\r')
                return (unsigned char)c;
            w->s++;
        }
        if (!imp_win_fill(w, w->s))
            return -1;
    }
}

/* End of the value starting at p (within [p, end)), or NULL when it runs
 * past end; *lines gets the newlines it holds. */
static const char *value_end(const char *p, const char *end, long *lines)
{
    long nl = 0;
    char c = *p;
    if (c == '"' || c == '{' || c == '[') {
        int depth = 0;
        while (p < end) {
            c = *p;
            if (c == '"') {
                for (p++;; p++) {
                    const char *q = memchr(p, '"', (size_t)(end - p));
                    if (!q)
                        return NULL;
                    const char *b = q;   /* an odd run of backslashes escapes the quote */
                    while (b > p && b[-1] == '\\')
                        b--;
                    for (const char *r = p; (r = memchr(r, '\n', (size_t)(q - r))); r++)
                        nl++;
                    p = q;
                    if (((q - b) & 1) == 0)
                        break;
                }
                p++;
                if (depth == 0) {
                    *lines = nl;
                    return p;
                }
                continue;
            }
            if (c == '{' || c == '[') {
                depth++;
            } else if (c == '}' || c == ']') {
                if (--depth == 0) {
                    *lines = nl;
                    return p + 1;
                }
            } else if (c == '\n') {
                nl++;
            }
            p++;
        }
        return NULL;
    }
    const char *st = p;
    while (p < end && !strchr(",]} \t\r\n", *p))
        p++;
    if (p == end || p == st)
        return NULL;
    *lines = 0;
    return p;
}

int imp_win_value(imp_win *w, const char **v, size_t *n, long *line)
{
    if (imp_win_ws(w) < 0)
        return 0;
    for (;;) {
        long nl;
        const char *e = value_end(w->s, w->end, &nl);
        if (!e && w->eof && w->end > w->s && !strchr("\"{[", *w->s)) {
            e = w->end;   /* a number or literal ending the input */
            nl = 0;
        }
        if (e) {
            *v = w->s;
            *n = (size_t)(e - w->s);
            *line = w->line;
            w->line += nl;
            w->s = e;
            return 1;
        }
        if (!imp_win_fill(w, w->s))
            return 0;
    }
}

int imp_win_line(imp_win *w, size_t max, const char **s, size_t *n)
{
    size_t dropped = 0;   /* bytes of a line longer than max, let go */
    for (;;) {
        const char *q = memchr(w->s, '\n', (size_t)(w->end - w->s));
        if (q || (w->eof && (w->end > w->s || dropped))) {
            const char *e = q ? q : w->end;
            size_t len = dropped + (size_t)(e - w->s);
            *s = len > max ? NULL : w->s;
            *n = len;
            w->s = q ? q + 1 : e;
            w->line++;
            return 1;
        }
        if (w->eof || w->oom || w->io)
            return 0;
        if ((size_t)(w->end - w->s) > max) {   /* too long to keep: counted, not held */
            dropped += (size_t)(w->end - w->s);
            w->s = w->end;
        }
        if (!imp_win_fill(w, w->s) && !w->eof)
            return 0;
    }
}
