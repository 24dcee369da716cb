/* Numbers with units (units.h). */
#define _GNU_SOURCE
#include "units.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

int gs_parse_number(double *out, const char *text, const char **rest)
{
    while (isspace((unsigned char)*text))
        text++;
    if (!*text || (!isdigit((unsigned char)*text) && *text != '.' && *text != '-' && *text != '+'))
        return 0;
    char *end;
    errno = 0;
    double v = strtod(text, &end);
    if (end == text || errno == ERANGE || !isfinite(v))
        return 0;
    /* Reject hex floats, inf, nan which strtod accepts. */
    for (const char *p = text; p < end; p++)
        if (!(isdigit((unsigned char)*p) || *p == '.' || *p == '-' || *p == '+' || *p == 'e' || *p == 'E'))
            return 0;
    while (isspace((unsigned char)*end))
        end++;
    *out = v;
    *rest = end;
    return 1;
}

static int suffix_is(const char *rest, const char *unit)
{
    size_t n = strlen(unit);
    if (strncmp(rest, unit, n))
        return 0;
    rest += n;
    while (isspace((unsigned char)*rest))
        rest++;
    return *rest == '\0';
}

typedef struct {
    const char *unit;
    double mult;
} unit_mult;

/* The non-negative number at the start of text times the multiplier of
 * the unit that follows it (one of units[0 .. n), the first that matches,
 * blanks after it allowed): 1 and *out, or 0. */
static int scaled(double *out, const char *text, const unit_mult *units, size_t n)
{
    double v;
    const char *rest;
    if (!gs_parse_number(&v, text, &rest) || v < 0)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (suffix_is(rest, units[i].unit)) {
            *out = v * units[i].mult;
            return 1;
        }
    return 0;
}

int gs_parse_duration_ns(int64_t *out, const char *text)
{
    static const unit_mult units[] = {
        {"ns", 1.0}, {"us", 1e3}, {"ms", 1e6}, {"s", 1e9}, {"min", 60e9},
    };
    double ns;
    /* 2^62 = GS_DURATION_MAX_NS + 1 */
    if (!scaled(&ns, text, units, sizeof units / sizeof units[0]) || ns >= 0x1p62)
        return 0;
    *out = (int64_t)llround(ns);
    return 1;
}

int gs_parse_size_bytes(uint64_t *out, const char *text)
{
    static const unit_mult units[] = {
        {"", 1.0}, {"B", 1.0}, {"KiB", 1024.0}, {"MiB", 1048576.0},
        {"GiB", 1073741824.0}, {"TiB", 1099511627776.0},
    };
    double b;
    if (!scaled(&b, text, units, sizeof units / sizeof units[0]) || b > 1.8e19 || b != floor(b))
        return 0;
    *out = (uint64_t)b;
    return 1;
}
