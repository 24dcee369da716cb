/* Gate limits: defaults, single settings, the thresholds INI (gate.h). */
#define _POSIX_C_SOURCE 200809L
#include "gate.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/ini.h"
#include "../common/outfile.h"
#include "../common/units.h"

void gs_gate_limits_init(gs_gate_limits *l)
{
    memset(l, 0, sizeof *l);
    l->min_util = l->min_util_kernels_only = NAN;
    l->max_gap_p99_ms = l->max_gap_max_ms = NAN;
    l->max_failed_jobs = -1;
    l->alpha = 0.05;
    l->min_util_drop = 0.02;
    l->min_gap_p99_increase_ms = 5;
}

/* A plain number (common/units.h's grammar). */
static int parse_num(const char *s, double *out)
{
    const char *rest;
    double v;
    if (!gs_parse_number(&v, s, &rest) || *rest)
        return 0;
    *out = v;
    return 1;
}

/* "50ms", "1.5s", "200us" (common/units.h), or a plain "50" (ms) ->
 * milliseconds. */
static int parse_ms(const char *s, double *out)
{
    int64_t ns;
    if (parse_num(s, out))
        return *out >= 0;
    if (!gs_parse_duration_ns(&ns, s))
        return 0;
    *out = (double)ns / 1e6;
    return 1;
}

static gs_status set_share(gs_gate_limits *l, const char *cause, const char *value,
                           const char *where, gs_err *err)
{
    double v;
    gs_cause c;
    int known = gs_cause_from_name(&c, cause);
    for (int k = 0; !known && k < GS_CAUSE_COUNT; k++)
        known = gs_cause_matches((gs_cause)k, cause);
    if (!known)
        return gs_err_set(err, GS_ERR_ARG, "gate", where, "unknown cause or group '%s'", cause);
    if (!parse_num(value, &v) || v < 0 || v > 1)
        return gs_err_set(err, GS_ERR_ARG, "gate", where, "share for %s must be 0..1, got '%s'",
                          cause, value);
    int k;
    for (k = 0; k < l->n_cause && strcmp(l->cause[k].cause, cause); k++)
        ;
    if (k == l->n_cause) {
        if (l->n_cause == GS_GATE_MAX_CAUSES)
            return gs_err_set(err, GS_ERR_ARG, "gate", where, "too many cause limits");
        l->n_cause++;
    }
    snprintf(l->cause[k].cause, sizeof l->cause[k].cause, "%s", cause);
    l->cause[k].max_share = v;
    return GS_OK;
}

gs_status gs_gate_limits_set(gs_gate_limits *l, const char *section, const char *key,
                             const char *value, const char *where, gs_err *err)
{
    double v;
    if (section && !strcmp(section, "cause_share"))
        return set_share(l, key, value, where, err);
    if (!strcmp(key, "max_cause_share")) {
        const char *eq = strchr(value, '=');
        char cause[64];
        if (!eq || (size_t)(eq - value) >= sizeof cause)
            return gs_err_set(err, GS_ERR_ARG, "gate", where, "want CAUSE=SHARE, got '%s'", value);
        snprintf(cause, sizeof cause, "%.*s", (int)(eq - value), value);
        return set_share(l, cause, eq + 1, where, err);
    }
    struct {
        const char *key;
        double *dst;
        int dur;
        double lo, hi;
    } tab[] = {
        {"min_util", &l->min_util, 0, 0, 1},
        {"min_util_kernels_only", &l->min_util_kernels_only, 0, 0, 1},
        {"max_gap_p99", &l->max_gap_p99_ms, 1, 0, 1e12},
        {"max_gap_max", &l->max_gap_max_ms, 1, 0, 1e12},
        {"alpha", &l->alpha, 0, 1e-9, 0.5},
        {"min_util_drop", &l->min_util_drop, 0, 0, 1},
        {"min_gap_p99_increase", &l->min_gap_p99_increase_ms, 1, 0, 1e12},
    };
    for (size_t i = 0; i < sizeof tab / sizeof tab[0]; i++) {
        if (strcmp(key, tab[i].key))
            continue;
        if (!(tab[i].dur ? parse_ms(value, &v) : parse_num(value, &v)) || v < tab[i].lo ||
            v > tab[i].hi)
            return gs_err_set(err, GS_ERR_ARG, "gate", where, "bad value '%s' for %s%s", value,
                              key, tab[i].dur ? " (a duration: 50ms, 1.5s, 200us)" : "");
        *tab[i].dst = v;
        return GS_OK;
    }
    if (!strcmp(key, "max_failed_jobs")) {
        /* at most the number of jobs a timeline can name (timeline/limits.h);
         * a larger double would not convert to a long */
        if (!parse_num(value, &v) || v < 0 || v != floor(v) || v > (double)INT32_MAX)
            return gs_err_set(err, GS_ERR_ARG, "gate", where,
                              "max_failed_jobs wants a count 0..2147483647");
        l->max_failed_jobs = (long)v;
        return GS_OK;
    }
    return gs_err_set(err, GS_ERR_ARG, "gate", where, "unknown limit '%s'", key);
}

/* The thresholds INI: common/ini.h's grammar; keys before any header are
 * [gate]'s. */
static gs_status on_section(void *ctx, const char *name, const char *where, gs_err *err)
{
    (void)ctx;
    if (strcmp(name, "gate") && strcmp(name, "cause_share") && strcmp(name, "paired"))
        return gs_err_set(err, GS_ERR_FORMAT, "thresholds", where,
                          "unknown section [%s] (gate, cause_share, paired)", name);
    return GS_OK;
}

static gs_status on_pair(void *ctx, const char *section, const char *key, const char *value,
                         const char *where, const char *base_dir, gs_err *err)
{
    (void)base_dir;
    gs_status st = gs_gate_limits_set(ctx, section, key, value, where, err);
    if (st != GS_OK)
        err->status = st = GS_ERR_FORMAT;
    return st;
}

gs_status gs_gate_limits_load(gs_gate_limits *l, const char *path, gs_err *err)
{
    char *buf;
    size_t len;
    gs_status st = gs_read_file(&buf, &len, path, err);
    if (st != GS_OK)
        return st;
    gs_ini_reader r = {.what = "thresholds", .section = "gate", .on_section = on_section,
                       .on_pair = on_pair, .ctx = l};
    st = gs_ini_read_text(&r, buf, len, path, NULL, err);
    free(buf);
    return st;
}
