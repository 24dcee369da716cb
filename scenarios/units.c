/*
 * Values with units and delay distributions, as scenario files write them.
 *
 *   duration  <number><unit>, unit ns | us | ms | s | min   ("50ms", "1.5s")
 *   size      <number>[unit], unit B | KiB | MiB | GiB | TiB (binary; no unit = bytes)
 *   dist      fixed:D | uniform:D1,D2 | lognormal:median=D,sigma=X | empirical:FILE
 *
 * A duration needs its unit: "50" alone is an error, not a guess.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../timeline/limits.h"
#include "scenario.h"

/* Parses a finite number followed by a suffix; *rest points at the suffix. */
static int parse_number(double *out, const char *text, const char **rest)
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

int gs_parse_duration_ns(int64_t *out, const char *text)
{
    static const struct { const char *unit; double ns; } units[] = {
        {"ns", 1.0}, {"us", 1e3}, {"ms", 1e6}, {"s", 1e9}, {"min", 60e9},
    };
    double v;
    const char *rest;
    if (!parse_number(&v, text, &rest) || v < 0)
        return 0;
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
        if (suffix_is(rest, units[i].unit)) {
            double ns = v * units[i].ns;
            if (ns > (double)GS_TL_TIME_LIMIT_NS)   /* a time the timeline holds */
                return 0;
            *out = (int64_t)llround(ns);
            return 1;
        }
    return 0;
}

int gs_parse_size_bytes(uint64_t *out, const char *text)
{
    static const struct { const char *unit; double mult; } units[] = {
        {"", 1.0}, {"B", 1.0}, {"KiB", 1024.0}, {"MiB", 1048576.0},
        {"GiB", 1073741824.0}, {"TiB", 1099511627776.0},
    };
    double v;
    const char *rest;
    if (!parse_number(&v, text, &rest) || v < 0)
        return 0;
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
        if (suffix_is(rest, units[i].unit)) {
            double b = v * units[i].mult;
            if (b > 1.8e19 || b != floor(b))
                return 0;
            *out = (uint64_t)b;
            return 1;
        }
    return 0;
}

static int duration_s(double *out, const char *text)
{
    int64_t ns;
    if (!gs_parse_duration_ns(&ns, text))
        return 0;
    *out = (double)ns * 1e-9;
    return 1;
}

/* Reads an empirical sample file: one duration per line, '#' comments. */
static gs_status load_empirical(gs_dist *out, const char *path, gs_err *err)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return gs_err_set(err, GS_ERR_IO, "empirical distribution", path, "cannot open: %s",
                          strerror(errno));
    char line[256], where[GS_SCN_PATH_MAX + 32];
    size_t cap = 0, lineno = 0;
    gs_status st = GS_OK;
    while (fgets(line, sizeof line, f)) {
        lineno++;
        char *p = line;
        while (isspace((unsigned char)*p))
            p++;
        char *hash = strchr(p, '#');
        if (hash)
            *hash = '\0';
        size_t n = strlen(p);
        while (n && isspace((unsigned char)p[n - 1]))
            p[--n] = '\0';
        if (!*p)
            continue;
        double v;
        if (!duration_s(&v, p)) {
            snprintf(where, sizeof where, "%s:%zu", path, lineno);
            st = gs_err_set(err, GS_ERR_FORMAT, "empirical distribution", where,
                            "expected a duration with a unit (e.g. 12ms), got '%s'", p);
            goto fail;
        }
        if (out->n_samples == cap) {
            cap = cap ? cap * 2 : 64;
            double *ns = realloc(out->samples, cap * sizeof *ns);
            if (!ns) {
                st = gs_err_set(err, GS_ERR_NOMEM, "empirical distribution", path, "out of memory");
                goto fail;
            }
            out->samples = ns;
        }
        out->samples[out->n_samples++] = v;
    }
    if (out->n_samples == 0) {
        st = gs_err_set(err, GS_ERR_FORMAT, "empirical distribution", path, "no samples in file");
        goto fail;
    }
    fclose(f);
    return GS_OK;
fail:
    fclose(f);
    free(out->samples);
    out->samples = NULL;
    out->n_samples = 0;
    return st;
}

gs_status gs_parse_dist(gs_dist *out, const char *text, const char *base_dir,
                        const char *where, gs_err *err)
{
    static const char *const expect =
        "expected fixed:D | uniform:D1,D2 | lognormal:median=D,sigma=X | empirical:FILE";
    memset(out, 0, sizeof *out);
    const char *colon = strchr(text, ':');
    if (!colon)
        return gs_err_set(err, GS_ERR_FORMAT, "scenario", where, "bad distribution '%s': %s", text, expect);
    size_t klen = (size_t)(colon - text);
    const char *arg = colon + 1;
    char buf[256];
    if (strlen(arg) >= sizeof buf)
        return gs_err_set(err, GS_ERR_FORMAT, "scenario", where, "distribution too long");
    strcpy(buf, arg);
    if (klen == 5 && !strncmp(text, "fixed", 5)) {
        out->kind = GS_DIST_FIXED;
        if (!duration_s(&out->a, buf))
            return gs_err_set(err, GS_ERR_FORMAT, "scenario", where,
                              "fixed: expected a duration with a unit, got '%s'", buf);
        out->b = out->a;
        return GS_OK;
    }
    if (klen == 7 && !strncmp(text, "uniform", 7)) {
        out->kind = GS_DIST_UNIFORM;
        char *comma = strchr(buf, ',');
        if (!comma)
            return gs_err_set(err, GS_ERR_FORMAT, "scenario", where, "uniform: expected D1,D2, got '%s'", buf);
        *comma = '\0';
        if (!duration_s(&out->a, buf) || !duration_s(&out->b, comma + 1) || out->b < out->a)
            return gs_err_set(err, GS_ERR_FORMAT, "scenario", where,
                              "uniform: expected two durations low,high with low <= high, got '%s'", arg);
        return GS_OK;
    }
    if (klen == 9 && !strncmp(text, "lognormal", 9)) {
        out->kind = GS_DIST_LOGNORMAL;
        int have_m = 0, have_s = 0;
        for (char *tok = strtok(buf, ","); tok; tok = strtok(NULL, ",")) {
            while (isspace((unsigned char)*tok))
                tok++;
            if (!strncmp(tok, "median=", 7) && duration_s(&out->a, tok + 7) && out->a > 0)
                have_m = 1;
            else if (!strncmp(tok, "sigma=", 6)) {
                const char *rest;
                if (!parse_number(&out->b, tok + 6, &rest) || *rest || out->b < 0 || out->b > 10)
                    return gs_err_set(err, GS_ERR_FORMAT, "scenario", where,
                                      "lognormal: sigma must be a number in [0, 10], got '%s'", tok + 6);
                have_s = 1;
            } else
                return gs_err_set(err, GS_ERR_FORMAT, "scenario", where,
                                  "lognormal: expected median=D,sigma=X, got '%s'", tok);
        }
        if (!have_m || !have_s)
            return gs_err_set(err, GS_ERR_FORMAT, "scenario", where,
                              "lognormal: needs median=D (> 0) and sigma=X");
        return GS_OK;
    }
    if (klen == 9 && !strncmp(text, "empirical", 9)) {
        out->kind = GS_DIST_EMPIRICAL;
        char path[GS_SCN_PATH_MAX];
        if (!buf[0])
            return gs_err_set(err, GS_ERR_FORMAT, "scenario", where, "empirical: expected a file name");
        if (buf[0] == '/' || !base_dir || !base_dir[0])
            snprintf(path, sizeof path, "%s", buf);
        else
            snprintf(path, sizeof path, "%s/%s", base_dir, buf);
        gs_err sub;
        gs_err_clear(&sub);
        if (load_empirical(out, path, &sub) != GS_OK)
            return gs_err_set(err, sub.status, "scenario", where, "%s", sub.msg);
        return GS_OK;
    }
    return gs_err_set(err, GS_ERR_FORMAT, "scenario", where, "unknown distribution '%.*s': %s",
                      (int)klen, text, expect);
}

double gs_dist_sample(const gs_dist *d, gs_rng *r)
{
    switch (d->kind) {
    case GS_DIST_FIXED:
        return d->a;
    case GS_DIST_UNIFORM:
        return d->a + (d->b - d->a) * gs_rng_unit(r);
    case GS_DIST_LOGNORMAL:
        return d->a * exp(d->b * gs_rng_normal(r));
    case GS_DIST_EMPIRICAL:
        return d->n_samples ? d->samples[gs_rng_below(r, d->n_samples)] : 0.0;
    default:
        return 0.0;
    }
}

double gs_dist_mean(const gs_dist *d)
{
    switch (d->kind) {
    case GS_DIST_FIXED:
        return d->a;
    case GS_DIST_UNIFORM:
        return 0.5 * (d->a + d->b);
    case GS_DIST_LOGNORMAL: /* E[X] = median * exp(sigma^2 / 2) */
        return d->a * exp(0.5 * d->b * d->b);
    case GS_DIST_EMPIRICAL: {
        double s = 0;
        for (size_t i = 0; i < d->n_samples; i++)
            s += d->samples[i];
        return d->n_samples ? s / (double)d->n_samples : 0.0;
    }
    default:
        return 0.0;
    }
}
