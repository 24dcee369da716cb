/* A minimal JSON syntax checker for diag's tests (header-only, test code). */
#ifndef GS_TEST_JSONCHECK_H
#define GS_TEST_JSONCHECK_H

#include <string.h>

/* ---- a minimal JSON syntax checker (RFC 8259 grammar) ------------------- */

typedef struct {
    const char *p;
    int depth;
} jcur;

static void jws(jcur *c)
{
    while (*c->p == ' ' || *c->p == '\n' || *c->p == '\r' || *c->p == '\t')
        c->p++;
}

static int jvalue(jcur *c);

static int jstring(jcur *c)
{
    if (*c->p != '"')
        return 0;
    for (c->p++; *c->p != '"'; c->p++) {
        if ((unsigned char)*c->p < 0x20)
            return 0;
        if (*c->p == '\\') {
            c->p++;
            if (*c->p == 'u') {
                for (int i = 1; i <= 4; i++)
                    if (!strchr("0123456789abcdefABCDEF", c->p[i]) || !c->p[i])
                        return 0;
                c->p += 4;
            } else if (!*c->p || !strchr("\"\\/bfnrt", *c->p)) {
                return 0;
            }
        }
    }
    c->p++;
    return 1;
}

static int jnumber(jcur *c)
{
    const char *s = c->p;
    if (*c->p == '-')
        c->p++;
    if (*c->p == '0')
        c->p++;
    else if (*c->p >= '1' && *c->p <= '9')
        while (*c->p >= '0' && *c->p <= '9')
            c->p++;
    else
        return 0;
    if (*c->p == '.') {
        c->p++;
        if (!(*c->p >= '0' && *c->p <= '9'))
            return 0;
        while (*c->p >= '0' && *c->p <= '9')
            c->p++;
    }
    if (*c->p == 'e' || *c->p == 'E') {
        c->p++;
        if (*c->p == '+' || *c->p == '-')
            c->p++;
        if (!(*c->p >= '0' && *c->p <= '9'))
            return 0;
        while (*c->p >= '0' && *c->p <= '9')
            c->p++;
    }
    return c->p > s;
}

static int jvalue(jcur *c)
{
    jws(c);
    if (++c->depth > 64)
        return 0;
    int ok = 1;
    if (*c->p == '{' || *c->p == '[') {
        char close = *c->p == '{' ? '}' : ']';
        int obj = *c->p == '{';
        c->p++;
        jws(c);
        if (*c->p == close) {
            c->p++;
        } else {
            for (;;) {
                if (obj) {
                    jws(c);
                    if (!jstring(c))
                        return 0;
                    jws(c);
                    if (*c->p++ != ':')
                        return 0;
                }
                if (!jvalue(c))
                    return 0;
                jws(c);
                if (*c->p == ',') {
                    c->p++;
                    continue;
                }
                if (*c->p++ != close)
                    return 0;
                break;
            }
        }
    } else if (*c->p == '"') {
        ok = jstring(c);
    } else if (!strncmp(c->p, "true", 4) || !strncmp(c->p, "null", 4)) {
        c->p += 4;
    } else if (!strncmp(c->p, "false", 5)) {
        c->p += 5;
    } else {
        ok = jnumber(c);
    }
    c->depth--;
    return ok;
}

static int json_valid(const char *s)
{
    jcur c = {s, 0};
    if (!jvalue(&c))
        return 0;
    jws(&c);
    return *c.p == '\0';
}

#endif
