/*
 * Delay distributions, as scenario files write them:
 *
 *   dist      fixed:D | uniform:D1,D2 | lognormal:median=D,sigma=X | empirical:FILE
 *
 * D is a duration with its unit (common/units.h); an empirical file holds
 * one duration per line.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../common/grow.h"
#include "../common/paths.h"
#include "../common/units.h"
#include "scenario.h"

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
        if (!gs_grow(&out->samples, &cap, out->n_samples, sizeof *out->samples, 64)) {
            st = gs_err_set(err, GS_ERR_NOMEM, "empirical distribution", path, "out of memory");
            goto fail;
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
                if (!gs_parse_number(&out->b, tok + 6, &rest) || *rest || out->b < 0 || out->b > 10)
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
        gs_path_resolve(path, sizeof path, base_dir, buf);
        gs_err sub;
        gs_err_clear(&sub);
        if (load_empirical(out, path, &sub) != GS_OK)
            return gs_err_set(err, sub.status, "scenario", where, "%s", sub.msg);
        return GS_OK;
    }
    return gs_err_set(err, GS_ERR_FORMAT, "scenario", where, "unknown distribution '%.*s': %s",
                      (int)klen, text, expect);
}
