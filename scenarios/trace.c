/*
 * Trace reader and writer (format: traces/README.md).  Each line is one
 * flat JSON object: string, number, true/false/null values; nesting is a
 * format error.  Errors read "trace @ path:line: detail".
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/grow.h"
#include "../common/json.h"
#include "../timeline/limits.h"
#include "scn_internal.h"
#include "trace.h"
#include "trace_json.h"

static const gs_json_field *get(const gs_json_field *f, int n, const char *key)
{
    for (int i = 0; i < n; i++)
        if (!strcmp(f[i].key, key))
            return &f[i];
    return NULL;
}

gs_status gs_trace_push(gs_trace *t, const gs_arrival *a)
{
    if (!gs_grow(&t->a, &t->cap, t->n, sizeof *t->a, 64))
        return GS_ERR_NOMEM;
    t->a[t->n++] = *a;
    return GS_OK;
}

void gs_trace_free(gs_trace *t)
{
    free(t->a);
    memset(t, 0, sizeof *t);
}

static int unit_ns(double *out, const char *u)
{
    static const struct { const char *n; double ns; } units[] = {{"ns", 1}, {"us", 1e3}, {"ms", 1e6}, {"s", 1e9}};
    for (size_t i = 0; i < 4; i++)
        if (!strcmp(u, units[i].n)) {
            *out = units[i].ns;
            return 1;
        }
    return 0;
}

/* Integer field in [lo, hi]; returns 0 (and why) when present but bad. */
static int int_field(double *out, const gs_json_field *f, double lo, double hi, const char **why)
{
    if (f->is_str || f->num != floor(f->num) || f->num < lo || f->num > hi) {
        *why = "must be an integer in range";
        return 0;
    }
    *out = f->num;
    return 1;
}

gs_status gs_trace_parse(gs_trace *out, const char *text, size_t len, const char *name, gs_err *err)
{
    memset(out, 0, sizeof *out);
    char where[GS_SCN_PATH_MAX + 32];
    gs_json_field f[GS_JSON_MAX_FIELDS];
    const char *why = NULL, *p = text, *end = text + len;
    double unit = 0;
    int lineno = 0, have_header = 0;
    int64_t last_t = 0;
    gs_status st = GS_OK;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *le = nl ? nl : end;
        lineno++;
        snprintf(where, sizeof where, "%s:%d", name, lineno);
        const char *q = gs_json_skip_ws(p, le);
        p = nl ? nl + 1 : end;
        if (q == le)
            continue; /* blank line */
        int nf = gs_json_flat_object(f, q, le, &why);
        if (nf < 0) {
            st = gs_err_set(err, GS_ERR_FORMAT, "trace", where, "%s", why);
            goto fail;
        }
        if (!have_header) {
            const gs_json_field *fmt = get(f, nf, "format"), *ver = get(f, nf, "version"), *tu = get(f, nf, "time_unit");
            if (!fmt || !fmt->is_str || strcmp(fmt->str, "gapscope-trace")) {
                st = gs_err_set(err, GS_ERR_FORMAT, "trace", where,
                                "first line must be the header {\"format\":\"gapscope-trace\",\"version\":1,\"time_unit\":...}");
                goto fail;
            }
            if (!ver || ver->is_str || ver->num != GS_TRACE_VERSION) {
                st = gs_err_set(err, GS_ERR_FORMAT, "trace", where, "unsupported trace version (this build reads version %d)",
                                GS_TRACE_VERSION);
                goto fail;
            }
            if (!tu || !tu->is_str || !unit_ns(&unit, tu->str)) {
                st = gs_err_set(err, GS_ERR_FORMAT, "trace", where, "time_unit must be \"ns\", \"us\", \"ms\" or \"s\"");
                goto fail;
            }
            const gs_json_field *d = get(f, nf, "description"), *g = get(f, nf, "generator");
            if (d && d->is_str)
                snprintf(out->description, sizeof out->description, "%s", d->str);
            if (g && g->is_str)
                snprintf(out->generator, sizeof out->generator, "%s", g->str);
            have_header = 1;
            continue;
        }
        gs_arrival a = {0};
        double v;
        for (int i = 0; i < nf; i++) {
            const gs_json_field *x = &f[i];
            why = NULL;
            if (!strcmp(x->key, "t")) {
                if (x->is_str || !(x->num >= 0) || x->num * unit > (double)GS_TL_TIME_LIMIT_NS)
                    why = "must be a non-negative number of at most 2^62 - 1 ns (timeline/limits.h)";
                else
                    a.t_ns = (int64_t)llround(x->num * unit);
            } else if (!strcmp(x->key, "id")) {
                /* the timeline's job number (timeline/limits.h) */
                if (int_field(&v, x, 0, (double)INT32_MAX, &why))
                    a.id = (uint64_t)v;
            } else if (!strcmp(x->key, "kind")) {
                if (!x->is_str || !gs_job_kind_from_name(&a.kind, x->str))
                    why = "must be one of winning_post, window_post, snap_deals, porep_c2, circuit";
            } else if (!strcmp(x->key, "partitions")) {
                if (int_field(&v, x, 1, 1024, &why))
                    a.partitions = (uint32_t)v;
            } else if (!strcmp(x->key, "priority")) {
                if (int_field(&v, x, 0, 100, &why))
                    a.priority = (int)v;
            } else if (!strcmp(x->key, "size_class")) {
                if (int_field(&v, x, 0, 40, &why))
                    a.size_class = (uint32_t)v;
            } else
                why = "is not a field of a version 1 arrival (t, id, kind, partitions, priority, size_class)";
            if (why) {
                st = gs_err_set(err, GS_ERR_FORMAT, "trace", where, "field \"%s\" %s", x->key, why);
                goto fail;
            }
        }
        static const char *const required[] = {"t", "id", "kind"};
        for (int i = 0; i < 3; i++)
            if (!get(f, nf, required[i])) {
                st = gs_err_set(err, GS_ERR_FORMAT, "trace", where, "arrival lacks the field \"%s\"", required[i]);
                goto fail;
            }
        if (!get(f, nf, "partitions"))
            a.partitions = gs_job_kind_partitions(a.kind);
        if (!get(f, nf, "priority"))
            a.priority = gs_job_kind_priority(a.kind);
        if (out->n && a.t_ns < last_t) {
            st = gs_err_set(err, GS_ERR_FORMAT, "trace", where, "arrival time goes backwards (arrivals must be sorted by t)");
            goto fail;
        }
        last_t = a.t_ns;
        if (gs_trace_push(out, &a) != GS_OK) {
            st = gs_err_set(err, GS_ERR_NOMEM, "trace", where, "out of memory");
            goto fail;
        }
    }
    if (!have_header) {
        snprintf(where, sizeof where, "%s:%d", name, lineno ? lineno : 1);
        st = gs_err_set(err, GS_ERR_FORMAT, "trace", where, "empty file: no header line");
        goto fail;
    }
    return GS_OK;
fail:
    gs_trace_free(out);
    return st;
}

gs_status gs_trace_read(gs_trace *out, const char *path, gs_err *err)
{
    memset(out, 0, sizeof *out);
    FILE *f = fopen(path, "rb");
    if (!f)
        return gs_err_set(err, GS_ERR_IO, "trace", path, "cannot open: %s", strerror(errno));
    char *buf = NULL;
    size_t len = 0, cap = 0;
    gs_status st = GS_OK;
    for (;;) {
        if (!gs_grow_to(&buf, &cap, len + 65536, 1, 1 << 17)) {   /* 64 KiB a read */
            st = gs_err_set(err, GS_ERR_NOMEM, "trace", path, "out of memory");
            goto done;
        }
        size_t got = fread(buf + len, 1, cap - len, f);
        len += got;
        if (got == 0)
            break;
    }
    if (ferror(f)) {
        st = gs_err_set(err, GS_ERR_IO, "trace", path, "read error");
        goto done;
    }
    const char *nul = memchr(buf, '\0', len);
    if (nul) {
        size_t line = 1;
        for (const char *c = buf; c < nul; c++)
            line += *c == '\n';
        char where[GS_SCN_PATH_MAX + 32];
        snprintf(where, sizeof where, "%s:%zu", path, line);
        st = gs_err_set(err, GS_ERR_FORMAT, "trace", where, "NUL byte: not a text file");
        goto done;
    }
    st = gs_trace_parse(out, buf, len, path, err);
done:
    free(buf);
    fclose(f);
    return st;
}

gs_status gs_trace_write(const gs_trace *t, const char *path, const char *time_unit, gs_err *err)
{
    double unit;
    if (!unit_ns(&unit, time_unit))
        return GS_ERR(err, GS_ERR_ARG, "trace", "bad time unit '%s'", time_unit);
    char tmp[GS_SCN_PATH_MAX + 16];
    if (snprintf(tmp, sizeof tmp, "%s.tmp", path) >= (int)sizeof tmp)
        return gs_err_set(err, GS_ERR_RANGE, "trace", path, "path too long");
    FILE *f = fopen(tmp, "w");
    if (!f)
        return gs_err_set(err, GS_ERR_IO, "trace", path, "cannot create: %s", strerror(errno));
    fprintf(f, "{\"format\":\"gapscope-trace\",\"version\":%d,\"time_unit\":\"%s\",\"count\":%zu",
            GS_TRACE_VERSION, time_unit, t->n);
    if (t->description[0]) {
        fputs(",\"description\":", f);
        gs_json_str(f, t->description);
    }
    if (t->generator[0]) {
        fputs(",\"generator\":", f);
        gs_json_str(f, t->generator);
    }
    fputs("}\n", f);
    for (size_t i = 0; i < t->n; i++) {
        const gs_arrival *a = &t->a[i];
        fprintf(f, "{\"t\":%.15g,\"id\":%llu,\"kind\":\"%s\",\"partitions\":%u,\"priority\":%d,\"size_class\":%u}\n",
                (double)a->t_ns / unit, (unsigned long long)a->id, gs_scn_kind_name(a->kind), a->partitions,
                a->priority, a->size_class);
    }
    int bad = ferror(f);
    if (fclose(f) != 0 || bad) {
        remove(tmp);
        return gs_err_set(err, GS_ERR_IO, "trace", path, "write failed");
    }
    if (rename(tmp, path) != 0) {
        remove(tmp);
        return gs_err_set(err, GS_ERR_IO, "trace", path, "rename failed: %s", strerror(errno));
    }
    return GS_OK;
}
