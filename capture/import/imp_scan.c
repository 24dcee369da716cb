/*
 * A field-directed scan of one JSON object (imp_internal.h): the values of
 * a few named members, and of a few members of one member that is an
 * object (a trace event's "args"), taken straight from the bytes; every
 * other value is skipped, checked against the grammar as it goes, with no
 * tree built and nothing copied.
 *
 * The scan takes only what it can read exactly as the tree reader
 * (common/json.c) would: an object in JSON's grammar, no string holding a
 * backslash (an escape is decoded by the tree reader), nesting well under
 * its limit.  Anything else is IMP_SCAN_SLOW, and the caller parses that
 * object with the tree reader, whose answer (values, or the error that
 * makes the event malformed) is then the same as before the scan existed.
 * Of a member named twice the first counts, as gs_json_get finds it.
 */
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "../../common/json.h"
#include "imp_internal.h"

#define DEPTH_MAX 48         /* the tree reader's limit is 64 */

/* Bytes a string runs over: 0, the quote that ends it: 1, and what the
 * scan leaves to the tree reader (a backslash, a control character): 2. */
static const unsigned char str_class[256] = {
    2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2,
    2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2,
    0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2,
};

typedef struct {
    const char *e;           /* end of the input */
    long nl;                 /* newlines passed */
    int r;                   /* IMP_SCAN_SHORT or IMP_SCAN_SLOW once it stopped */
} scan;

static const char *stop(scan *s, int r)
{
    s->r = r;
    return NULL;
}

static const char *ws(scan *s, const char *p)
{
    for (; p < s->e; p++) {
        char c = *p;
        if (c == '\n')
            s->nl++;
        else if (c != ' ' && c != '\t' && c != '\r')
            return p;
    }
    return stop(s, IMP_SCAN_SHORT);
}

/* p after the opening quote: the closing quote.  16 bytes at a time where
 * SSE2 is (every x86-64): names run to hundreds of bytes. */
static const char *str_end(scan *s, const char *p)
{
#ifdef __SSE2__
    const __m128i quote = _mm_set1_epi8('"'), bslash = _mm_set1_epi8('\\'),
                  ctl = _mm_set1_epi8(0x1f);
    while (s->e - p >= 16) {
        __m128i x = _mm_loadu_si128((const __m128i *)(const void *)p);
        __m128i hit = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(x, quote), _mm_cmpeq_epi8(x, bslash)),
                                   _mm_cmpeq_epi8(_mm_max_epu8(x, ctl), ctl));
        unsigned m = (unsigned)_mm_movemask_epi8(hit);
        if (m) {
            p += __builtin_ctz(m);
            return *p == '"' ? p : stop(s, IMP_SCAN_SLOW);
        }
        p += 16;
    }
#endif
    while (p < s->e) {
        unsigned char k = str_class[(unsigned char)*p];
        if (!k) {
            p++;
            continue;
        }
        return k == 1 ? p : stop(s, IMP_SCAN_SLOW);
    }
    return stop(s, IMP_SCAN_SHORT);
}

static const char *digits(const char *p, const char *e)
{
    while (p < e && *p >= '0' && *p <= '9')
        p++;
    return p;
}

/* A number in JSON's grammar (as the tree reader's): the byte after it. */
static const char *number(scan *s, const char *p)
{
    const char *e = s->e;
    if (p < e && *p == '-')
        p++;
    if (p >= e)
        return stop(s, IMP_SCAN_SHORT);
    if (*p < '0' || *p > '9')
        return stop(s, IMP_SCAN_SLOW);
    p = *p == '0' ? p + 1 : digits(p, e);
    if (p < e && *p == '.') {
        if (++p >= e)
            return stop(s, IMP_SCAN_SHORT);
        if (*p < '0' || *p > '9')
            return stop(s, IMP_SCAN_SLOW);
        p = digits(p, e);
    }
    if (p < e && (*p == 'e' || *p == 'E')) {
        if (++p < e && (*p == '+' || *p == '-'))
            p++;
        if (p >= e)
            return stop(s, IMP_SCAN_SHORT);
        if (*p < '0' || *p > '9')
            return stop(s, IMP_SCAN_SLOW);
        p = digits(p, e);
    }
    return p < e ? p : stop(s, IMP_SCAN_SHORT);   /* an object's number is followed by more */
}

static const char *literal(scan *s, const char *p, const char *lit, size_t n)
{
    size_t have = (size_t)(s->e - p);
    if (memcmp(p, lit, have < n ? have : n))
        return stop(s, IMP_SCAN_SLOW);
    return have < n ? stop(s, IMP_SCAN_SHORT) : p + n;
}

static const char *object(scan *s, const char *p, const imp_scan_level *L, imp_sval *vals,
                          int depth);

/* Any value at p (after blanks), checked and passed over. */
static const char *skip_value(scan *s, const char *p, int depth)
{
    switch (*p) {
    case '"':
        return (p = str_end(s, p + 1)) ? p + 1 : NULL;
    case '{':
        return object(s, p, NULL, NULL, depth);
    case '[':
        if (depth >= DEPTH_MAX)
            return stop(s, IMP_SCAN_SLOW);
        if (!(p = ws(s, p + 1)))
            return NULL;
        if (*p == ']')
            return p + 1;
        for (;;) {
            if (!(p = skip_value(s, p, depth + 1)) || !(p = ws(s, p)))
                return NULL;
            if (*p == ']')
                return p + 1;
            if (*p != ',')
                return stop(s, IMP_SCAN_SLOW);
            if (!(p = ws(s, p + 1)))
                return NULL;
        }
    case 't': return literal(s, p, "true", 4);
    case 'f': return literal(s, p, "false", 5);
    case 'n': return literal(s, p, "null", 4);
    default: return number(s, p);
    }
}

/* A value the caller wants: its type and, for strings and numbers, its bytes. */
static const char *take_value(scan *s, const char *p, imp_sval *v, int depth)
{
    const char *q;
    switch (*p) {
    case '"':
        if (!(q = str_end(s, p + 1)))
            return NULL;
        *v = (imp_sval){GS_JSON_STRING, p + 1, (size_t)(q - p - 1)};
        return q + 1;
    case '{': v->type = GS_JSON_OBJECT; break;
    case '[': v->type = GS_JSON_ARRAY; break;
    case 't': case 'f': v->type = GS_JSON_BOOL; break;
    case 'n': v->type = GS_JSON_NULL; break;
    default:
        if (!(q = number(s, p)))
            return NULL;
        *v = (imp_sval){GS_JSON_NUMBER, p, (size_t)(q - p)};
        return q;
    }
    return skip_value(s, p, depth);
}

static int key_index(const imp_scan_level *L, const char *k, size_t n)
{
    for (int i = 0; i < L->n; i++) {
        if (L->len[i] != n || L->keys[i][0] != k[0])
            continue;
        size_t j = 1;
        while (j < n && L->keys[i][j] == k[j])
            j++;
        if (j == n)
            return i;
    }
    return -1;
}

/* The object at p; with L, the members it names go into vals. */
static const char *object(scan *s, const char *p, const imp_scan_level *L, imp_sval *vals,
                          int depth)
{
    if (depth >= DEPTH_MAX)
        return stop(s, IMP_SCAN_SLOW);
    if (!(p = ws(s, p + 1)))
        return NULL;
    if (*p == '}')
        return p + 1;
    for (;;) {
        if (*p != '"')
            return stop(s, IMP_SCAN_SLOW);
        const char *k = p + 1, *ke = str_end(s, k);
        if (!ke || !(p = ws(s, ke + 1)))
            return NULL;
        if (*p != ':')
            return stop(s, IMP_SCAN_SLOW);
        if (!(p = ws(s, p + 1)))
            return NULL;
        int i = L ? key_index(L, k, (size_t)(ke - k)) : -1;
        if (i < 0 || vals[i].type >= 0)
            p = skip_value(s, p, depth + 1);
        else if (i == L->sub && *p == '{') {
            vals[i].type = GS_JSON_OBJECT;
            p = object(s, p, L->sub_level, vals + L->n, depth + 1);
        } else
            p = take_value(s, p, &vals[i], depth + 1);
        if (!p || !(p = ws(s, p)))
            return NULL;
        if (*p == '}')
            return p + 1;
        if (*p != ',')
            return stop(s, IMP_SCAN_SLOW);
        if (!(p = ws(s, p + 1)))
            return NULL;
    }
}

void imp_scan_level_init(imp_scan_level *L, const char *const *keys, int n, int sub,
                         const imp_scan_level *sub_level)
{
    L->keys = keys;
    L->n = n < IMP_SCAN_KEYS ? n : IMP_SCAN_KEYS;
    for (int i = 0; i < L->n; i++)
        L->len[i] = strlen(keys[i]);
    L->sub = sub_level ? sub : -1;
    L->sub_level = sub_level;
}

int imp_scan_object(imp_sval *vals, const imp_scan_level *L, const char *text, const char *end,
                    size_t *used, long *lines)
{
    int nv = L->n + (L->sub_level ? L->sub_level->n : 0);
    for (int i = 0; i < nv; i++)
        vals[i] = (imp_sval){-1, NULL, 0};
    if (text >= end)
        return IMP_SCAN_SHORT;
    if (*text != '{')
        return IMP_SCAN_SLOW;
    scan s = {end, 0, IMP_SCAN_OK};
    const char *p = object(&s, text, L, vals, 0);
    if (!p)
        return s.r;
    *used = (size_t)(p - text);
    *lines = s.nl;
    return IMP_SCAN_OK;
}
