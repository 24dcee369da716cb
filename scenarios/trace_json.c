/*
 * One flat JSON object per line (the trace format's lines): string, number,
 * true/false/null values; nesting is refused.  Strict RFC 8259 escapes;
 * non-ASCII \u escapes become '?' (names and notes are ASCII); raw UTF-8 is
 * kept when well-formed, a byte that begins no sequence becomes '?', so
 * what is read writes back as it was read (gs_json_str keeps valid UTF-8).
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../common/json.h"
#include "trace_json.h"

const char *gs_json_skip_ws(const char *p, const char *end)
{
    while (p < end && (*p == ' ' || *p == '\t' || *p == '\r'))
        p++;
    return p;
}

/* Parses a JSON string at p (at the opening quote) into dst. */
static const char *parse_string(char *dst, size_t cap, const char *p, const char *end, const char **why)
{
    size_t n = 0;
    p++;
    while (p < end && *p != '"') {
        char c = *p++;
        if ((unsigned char)c < 0x20) {
            *why = "control character in string";
            return NULL;
        }
        if ((unsigned char)c >= 0x80) {   /* raw UTF-8 kept when well-formed, else '?' */
            char seq[5] = {0};
            size_t avail = (size_t)(end - (p - 1));
            memcpy(seq, p - 1, avail < 4 ? avail : 4);
            size_t len = gs_utf8_valid_len(seq);
            if (len > 1) {
                if (n + len >= cap) {
                    *why = "string too long";
                    return NULL;
                }
                memcpy(dst + n, p - 1, len);
                n += len;
                p += len - 1;
                continue;
            }
            c = '?';
        }
        if (c == '\\') {
            if (p >= end) {
                *why = "unterminated escape";
                return NULL;
            }
            char e = *p++;
            switch (e) {
            case '"': case '\\': case '/': c = e; break;
            case 'n': c = '\n'; break;
            case 't': c = '\t'; break;
            case 'r': c = '\r'; break;
            case 'b': c = '\b'; break;
            case 'f': c = '\f'; break;
            case 'u': {
                if (end - p < 4) {
                    *why = "short \\u escape";
                    return NULL;
                }
                unsigned v = 0;
                for (int i = 0; i < 4; i++) {
                    char h = *p++;
                    v = v * 16 + (unsigned)(isdigit((unsigned char)h) ? h - '0' : (tolower((unsigned char)h) - 'a' + 10));
                    if (!isxdigit((unsigned char)h)) {
                        *why = "bad \\u escape";
                        return NULL;
                    }
                }
                c = v < 0x80 ? (char)v : '?'; /* names and notes are ASCII */
                break;
            }
            default:
                *why = "unknown escape";
                return NULL;
            }
        }
        if (n + 1 >= cap) {
            *why = "string too long";
            return NULL;
        }
        dst[n++] = c;
    }
    if (p >= end) {
        *why = "unterminated string";
        return NULL;
    }
    dst[n] = '\0';
    return p + 1;
}

int gs_json_flat_object(gs_json_field *f, const char *p, const char *end, const char **why)
{
    int n = 0;
    p = gs_json_skip_ws(p, end);
    if (p >= end || *p != '{') {
        *why = "expected a JSON object starting with '{'";
        return -1;
    }
    p = gs_json_skip_ws(p + 1, end);
    if (p < end && *p == '}')
        return gs_json_skip_ws(p + 1, end) == end ? 0 : (*why = "text after the object", -1);
    for (;;) {
        if (n == GS_JSON_MAX_FIELDS) {
            *why = "too many fields";
            return -1;
        }
        if (p >= end || *p != '"') {
            *why = "expected a quoted key";
            return -1;
        }
        if (!(p = parse_string(f[n].key, sizeof f[n].key, p, end, why)))
            return -1;
        for (int i = 0; i < n; i++)
            if (!strcmp(f[i].key, f[n].key)) {
                *why = "duplicate key";
                return -1;
            }
        p = gs_json_skip_ws(p, end);
        if (p >= end || *p != ':') {
            *why = "expected ':' after a key";
            return -1;
        }
        p = gs_json_skip_ws(p + 1, end);
        if (p < end && *p == '"') {
            f[n].is_str = 1;
            if (!(p = parse_string(f[n].str, sizeof f[n].str, p, end, why)))
                return -1;
        } else if (p < end && (*p == '{' || *p == '[')) {
            *why = "nested objects and arrays are not part of the format";
            return -1;
        } else if (end - p >= 4 && (!strncmp(p, "true", 4) || !strncmp(p, "null", 4))) {
            f[n].is_str = 0;
            f[n].num = *p == 't' ? 1 : 0;
            p += 4;
        } else if (end - p >= 5 && !strncmp(p, "false", 5)) {
            f[n].is_str = 0;
            f[n].num = 0;
            p += 5;
        } else {
            char num[64];
            size_t k = 0;
            while (p < end && k + 1 < sizeof num && (isdigit((unsigned char)*p) || strchr("+-.eE", *p)))
                num[k++] = *p++;
            num[k] = '\0';
            char *e;
            errno = 0;
            f[n].num = strtod(num, &e);
            if (!k || *e || errno || !isfinite(f[n].num)) {
                *why = "expected a string, number, true, false or null";
                return -1;
            }
            f[n].is_str = 0;
        }
        n++;
        p = gs_json_skip_ws(p, end);
        if (p < end && *p == ',') {
            p = gs_json_skip_ws(p + 1, end);
            continue;
        }
        if (p < end && *p == '}') {
            p = gs_json_skip_ws(p + 1, end);
            if (p != end) {
                *why = "text after the object";
                return -1;
            }
            return n;
        }
        *why = "expected ',' or '}'";
        return -1;
    }
}

