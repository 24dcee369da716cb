/* Recursive-descent JSON parser; see json.h. */
#include "grow.h"
#include "json.h"

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define MAX_DEPTH 64

typedef struct {
    const char *s, *end, *name;
    int line;
    const char *line_start;
    gs_err *err;
    gs_arena *a;             /* NULL: malloc'd tree (gs_json_free) */
    int hit_end;             /* a string ran to the end of the text */
} parser;

/* ---- allocation: the heap, or the parser's arena -------------------------- */

/* n bytes of the arena (chunks of 64 KiB), rounded up to keep every node
 * aligned to max_align_t. */
static void *arena_alloc(gs_arena *a, size_t n)
{
    n = (n + sizeof(max_align_t) - 1) / sizeof(max_align_t) * sizeof(max_align_t);
    return gs_arena_alloc(a, n, 65536);
}

static void *jalloc(parser *p, size_t n)
{
    return p->a ? arena_alloc(p->a, n) : malloc(n);
}

static void *jrealloc(parser *p, void *old, size_t old_n, size_t n)
{
    if (!p->a)
        return realloc(old, n);
    void *r = arena_alloc(p->a, n);
    if (r && old)
        memcpy(r, old, old_n);
    return r;
}

static void jfree(parser *p, void *x)
{
    if (!p->a)
        free(x);
}

static gs_status fail(parser *p, const char *fmt, const char *detail)
{
    char where[600];
    snprintf(where, sizeof where, "%s:%d:%d", p->name, p->line,
             (int)(p->s - p->line_start) + 1);
    return gs_err_set(p->err, GS_ERR_FORMAT, "json", where, fmt, detail);
}

static void skip_ws(parser *p)
{
    while (p->s < p->end) {
        char c = *p->s;
        if (c == '\n') {
            p->line++;
            p->line_start = p->s + 1;
        } else if (c != ' ' && c != '\t' && c != '\r') {
            break;
        }
        p->s++;
    }
}

static int hexval(char c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

static void put_utf8(char **o, uint32_t cp)
{
    unsigned char *u = (unsigned char *)*o;
    if (cp < 0x80) {
        *u++ = (unsigned char)cp;
    } else if (cp < 0x800) {
        *u++ = (unsigned char)(0xc0 | (cp >> 6));
        *u++ = (unsigned char)(0x80 | (cp & 0x3f));
    } else if (cp < 0x10000) {
        *u++ = (unsigned char)(0xe0 | (cp >> 12));
        *u++ = (unsigned char)(0x80 | ((cp >> 6) & 0x3f));
        *u++ = (unsigned char)(0x80 | (cp & 0x3f));
    } else {
        *u++ = (unsigned char)(0xf0 | (cp >> 18));
        *u++ = (unsigned char)(0x80 | ((cp >> 12) & 0x3f));
        *u++ = (unsigned char)(0x80 | ((cp >> 6) & 0x3f));
        *u++ = (unsigned char)(0x80 | (cp & 0x3f));
    }
    *o = (char *)u;
}

static gs_status parse_u4(parser *p, uint32_t *out)
{
    if (p->end - p->s < 4)
        return fail(p, "%s", "truncated \\u escape");
    uint32_t v = 0;
    for (int i = 0; i < 4; i++) {
        int h = hexval(p->s[i]);
        if (h < 0)
            return fail(p, "%s", "bad \\u escape");
        v = v * 16 + (uint32_t)h;
    }
    p->s += 4;
    *out = v;
    return GS_OK;
}

static gs_status parse_string(parser *p, char **out)
{
    const char *q = p->s + 1;
    while (q < p->end && *q != '"') {
        if (*q == '\\')
            q++;
        q++;
    }
    if (q >= p->end) {
        p->hit_end = 1;
        return fail(p, "%s", "unterminated string"); /* at the opening quote */
    }
    p->s++;
    char *buf = jalloc(p, (size_t)(q - p->s) + 1), *o = buf;
    if (!buf)
        return gs_err_set(p->err, GS_ERR_NOMEM, "json", p->name, "string");
    while (*p->s != '"') {
        unsigned char c = (unsigned char)*p->s;
        if (c < 0x20) {
            jfree(p, buf);
            return fail(p, "%s", "control character in string");
        }
        if (c != '\\') {
            *o++ = (char)c;
            p->s++;
            continue;
        }
        p->s++;
        char e = *p->s++;
        switch (e) {
        case '"': *o++ = '"'; break;
        case '\\': *o++ = '\\'; break;
        case '/': *o++ = '/'; break;
        case 'b': *o++ = '\b'; break;
        case 'f': *o++ = '\f'; break;
        case 'n': *o++ = '\n'; break;
        case 'r': *o++ = '\r'; break;
        case 't': *o++ = '\t'; break;
        case 'u': {
            uint32_t cp;
            if (parse_u4(p, &cp) != GS_OK) {
                jfree(p, buf);
                return p->err ? p->err->status : GS_ERR_FORMAT;
            }
            if (cp >= 0xd800 && cp < 0xdc00 && p->end - p->s >= 6 && p->s[0] == '\\' &&
                p->s[1] == 'u') {
                uint32_t lo;
                p->s += 2;
                if (parse_u4(p, &lo) != GS_OK) {
                    jfree(p, buf);
                    return p->err ? p->err->status : GS_ERR_FORMAT;
                }
                if (lo >= 0xdc00 && lo < 0xe000)
                    cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
            }
            put_utf8(&o, cp);
            break;
        }
        default:
            jfree(p, buf);
            p->s -= 2; /* at the backslash */
            return fail(p, "%s", "bad escape in string");
        }
    }
    p->s++; /* closing quote */
    *o = '\0';
    *out = buf;
    return GS_OK;
}

static gs_status parse_value(parser *p, gs_json *v, int depth);

static gs_status grow(parser *p, gs_json *v, size_t *cap, int with_keys)
{
    if (v->n < *cap)
        return GS_OK;
    size_t nc = *cap ? *cap * 2 : 4;
    gs_json *items = jrealloc(p, v->items, *cap * sizeof *items, nc * sizeof *items);
    if (!items)
        return gs_err_set(p->err, GS_ERR_NOMEM, "json", p->name, "array");
    v->items = items;
    if (with_keys) {
        char **keys = jrealloc(p, v->keys, *cap * sizeof *keys, nc * sizeof *keys);
        if (!keys)
            return gs_err_set(p->err, GS_ERR_NOMEM, "json", p->name, "object");
        v->keys = keys;
    }
    *cap = nc;
    return GS_OK;
}

static gs_status parse_container(parser *p, gs_json *v, int depth, int is_obj)
{
    size_t cap = 0;
    char close = is_obj ? '}' : ']';
    v->type = is_obj ? GS_JSON_OBJECT : GS_JSON_ARRAY;
    p->s++;
    skip_ws(p);
    if (p->s < p->end && *p->s == close) {
        p->s++;
        return GS_OK;
    }
    for (;;) {
        gs_status st = grow(p, v, &cap, is_obj);
        if (st != GS_OK)
            return st;
        skip_ws(p);
        if (is_obj) {
            if (p->s >= p->end || *p->s != '"')
                return fail(p, "%s", "expected a string key");
            if ((st = parse_string(p, &v->keys[v->n])) != GS_OK)
                return st;
            skip_ws(p);
            if (p->s >= p->end || *p->s != ':') {
                jfree(p, v->keys[v->n]);
                return fail(p, "%s", "expected ':'");
            }
            p->s++;
        }
        memset(&v->items[v->n], 0, sizeof v->items[0]);
        st = parse_value(p, &v->items[v->n], depth + 1);
        v->n++;
        if (st != GS_OK)
            return st;
        skip_ws(p);
        if (p->s < p->end && *p->s == ',') {
            p->s++;
            continue;
        }
        if (p->s < p->end && *p->s == close) {
            p->s++;
            return GS_OK;
        }
        return fail(p, "expected ',' or '%s'", is_obj ? "}" : "]");
    }
}

/* strtod's value of a number the grammar accepted.  Fast path (Clinger):
 * at most 15 digits and no exponent, so the digits are an exact double m
 * and 10^k (k <= 15) too, and m / 10^k is the correctly rounded value. */
static double fast_number(const char *t)
{
    static const double p10[] = {1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8,
                                 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15};
    const char *q = t;
    int neg = *q == '-';
    q += neg;
    uint64_t m = 0;
    int digits = 0, frac = -1;
    for (; *q; q++) {
        if (*q == '.') {
            frac = 0;
            continue;
        }
        if (*q < '0' || *q > '9' || ++digits > 15)
            return strtod(t, NULL);
        m = m * 10 + (uint64_t)(*q - '0');
        if (frac >= 0)
            frac++;
    }
    double v = (double)m / p10[frac > 0 ? frac : 0];
    return neg ? -v : v;
}

static gs_status parse_number(parser *p, gs_json *v)
{
    const char *q = p->s;
    if (q < p->end && *q == '-')
        q++;
    if (q >= p->end || *q < '0' || *q > '9')
        return fail(p, "%s", "expected a value");
    if (*q == '0')
        q++;
    else
        while (q < p->end && *q >= '0' && *q <= '9')
            q++;
    if (q < p->end && *q == '.') {
        q++;
        if (q >= p->end || *q < '0' || *q > '9')
            return fail(p, "%s", "expected digits after '.'");
        while (q < p->end && *q >= '0' && *q <= '9')
            q++;
    }
    if (q < p->end && (*q == 'e' || *q == 'E')) {
        q++;
        if (q < p->end && (*q == '+' || *q == '-'))
            q++;
        if (q >= p->end || *q < '0' || *q > '9')
            return fail(p, "%s", "expected exponent digits");
        while (q < p->end && *q >= '0' && *q <= '9')
            q++;
    }
    size_t n = (size_t)(q - p->s);
    v->text = jalloc(p, n + 1);
    if (!v->text)
        return gs_err_set(p->err, GS_ERR_NOMEM, "json", p->name, "number");
    memcpy(v->text, p->s, n);
    v->text[n] = '\0';
    v->number = fast_number(v->text);
    v->type = GS_JSON_NUMBER;
    p->s = q;
    return GS_OK;
}

static int match(parser *p, const char *lit)
{
    size_t n = strlen(lit);
    if ((size_t)(p->end - p->s) >= n && !memcmp(p->s, lit, n)) {
        p->s += n;
        return 1;
    }
    return 0;
}

static gs_status parse_value(parser *p, gs_json *v, int depth)
{
    if (depth > MAX_DEPTH)
        return fail(p, "%s", "nesting too deep");
    skip_ws(p);
    v->line = p->line;
    v->col = (int)(p->s - p->line_start) + 1;
    if (p->s >= p->end)
        return fail(p, "%s", "unexpected end of input");
    switch (*p->s) {
    case '{': return parse_container(p, v, depth, 1);
    case '[': return parse_container(p, v, depth, 0);
    case '"':
        v->type = GS_JSON_STRING;
        return parse_string(p, &v->text);
    case 't':
        if (match(p, "true")) { v->type = GS_JSON_BOOL; v->boolean = 1; return GS_OK; }
        break;
    case 'f':
        if (match(p, "false")) { v->type = GS_JSON_BOOL; return GS_OK; }
        break;
    case 'n':
        if (match(p, "null")) { v->type = GS_JSON_NULL; return GS_OK; }
        break;
    default:
        return parse_number(p, v);
    }
    return fail(p, "%s", "expected a value");
}

static void free_value(gs_json *v)
{
    for (size_t i = 0; i < v->n; i++) {
        free_value(&v->items[i]);
        if (v->keys)
            free(v->keys[i]);
    }
    free(v->items);
    free(v->keys);
    free(v->text);
}

void gs_json_free(gs_json *j)
{
    if (!j)
        return;
    free_value(j);
    free(j);
}

/* prefix: stop after the value (*used bytes, *lines newlines), else the
 * text must hold nothing more; *short_input: it failed at the end of text. */
static gs_status parse_root_x(gs_arena *a, gs_json **out, const char *text, size_t len,
                              const char *name, gs_err *err, int prefix, size_t *used,
                              int *lines, int *short_input)
{
    *out = NULL;
    gs_json *root = a ? arena_alloc(a, sizeof *root) : calloc(1, sizeof *root);
    if (!root)
        return gs_err_set(err, GS_ERR_NOMEM, "json", name, "root");
    memset(root, 0, sizeof *root);
    parser p = {text, text + len, name ? name : "<json>", 1, text, err, a, 0};
    gs_status st = parse_value(&p, root, 0);
    if (st == GS_OK && !prefix) {
        skip_ws(&p);
        if (p.s != p.end)
            st = fail(&p, "%s", "trailing characters after the value");
    }
    if (prefix) {
        *used = (size_t)(p.s - text);
        *lines = p.line - 1;
        *short_input = st != GS_OK && (p.s >= p.end || p.hit_end);
    }
    if (st != GS_OK) {
        if (!a)
            gs_json_free(root);
        return st;
    }
    *out = root;
    return GS_OK;
}

static gs_status parse_root(gs_arena *a, gs_json **out, const char *text, size_t len,
                            const char *name, gs_err *err)
{
    size_t used;
    int lines, short_input;
    return parse_root_x(a, out, text, len, name, err, 0, &used, &lines, &short_input);
}

gs_status gs_json_parse_prefix_in(gs_arena *a, gs_json **out, const char *text, size_t len,
                                  const char *name, gs_err *err, size_t *used, int *lines,
                                  int *short_input)
{
    return parse_root_x(a, out, text, len, name, err, 1, used, lines, short_input);
}

gs_status gs_json_parse(gs_json **out, const char *text, size_t len,
                        const char *name, gs_err *err)
{
    return parse_root(NULL, out, text, len, name, err);
}

gs_status gs_json_parse_in(gs_arena *a, gs_json **out, const char *text, size_t len,
                           const char *name, gs_err *err)
{
    return parse_root(a, out, text, len, name, err);
}

gs_status gs_json_parse_file(gs_json **out, const char *path, gs_err *err)
{
    *out = NULL;
    FILE *f = fopen(path, "rb");
    if (!f)
        return gs_err_set(err, GS_ERR_IO, "json", path, "cannot open: %s", strerror(errno));
    char *buf = NULL;
    size_t len = 0, cap = 0;
    for (;;) {
        if (!gs_grow(&buf, &cap, len, 1, 65536)) {
            free(buf);
            fclose(f);
            return gs_err_set(err, GS_ERR_NOMEM, "json", path, "reading");
        }
        size_t got = fread(buf + len, 1, cap - len, f);
        len += got;
        if (got == 0)
            break;
    }
    int bad = ferror(f);
    fclose(f);
    if (bad) {
        free(buf);
        return gs_err_set(err, GS_ERR_IO, "json", path, "read error");
    }
    gs_status st = gs_json_parse(out, buf, len, path, err);
    free(buf);
    return st;
}

const gs_json *gs_json_get(const gs_json *j, const char *key)
{
    if (!j || j->type != GS_JSON_OBJECT)
        return NULL;
    for (size_t i = 0; i < j->n; i++)
        if (!strcmp(j->keys[i], key))
            return &j->items[i];
    return NULL;
}

const gs_json *gs_json_at(const gs_json *j, size_t i)
{
    if (!j || j->type != GS_JSON_ARRAY || i >= j->n)
        return NULL;
    return &j->items[i];
}

const char *gs_json_type_name(gs_json_type t)
{
    static const char *const names[] = {"null", "boolean", "number", "string", "array", "object"};
    return (unsigned)t < 6 ? names[t] : "?";
}
