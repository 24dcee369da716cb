/*
 * The round-trip oracle of the fuzz targets (fz.h, issue 35): what gapscope
 * writes from a timeline one of its readers accepted must be read back by
 * its own readers with the same values.
 *
 *   spans.csv      gs_timeline_write_csv -> gs_timeline_read_csv: every lane,
 *                  meta key, the dropped count and every span field equal
 *   timeline.json  gs_timeline_write_chrome -> the Chrome importer (gapscope's
 *                  own format): every lane (name, role, device, stream) and
 *                  span field equal, strings as any JSON reader gets them
 *                  back (bytes that are not UTF-8 become U+FFFD), meta keys
 *                  other than the writer's and the importer's own equal
 *   summary.json   gs_summary_write -> the JSON reader: every device's and
 *                  the run's figures equal the analysis to the 10 digits
 *                  written, causes, job counts and meta equal
 *
 * A difference aborts with what differed (a finding).
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../capture/import/import.h"
#include "../common/json.h"
#include "../common/outfile.h"
#include "../diag/run.h"
#include "fz.h"

/* s as a JSON reader gets it back after gs_json_str (malloc'd). */
static char *jnorm(const char *s)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        fz_fail("out of memory");
    gs_json_str(f, s);
    fclose(f);
    gs_json *j = NULL;
    gs_err err;
    gs_err_clear(&err);
    if (gs_json_parse(&j, buf, len, "jnorm", &err) != GS_OK || j->type != GS_JSON_STRING)
        fz_fail("gs_json_str wrote a string its reader refuses: %s", err.msg);
    char *out = strdup(j->text);
    gs_json_free(j);
    free(buf);
    if (!out)
        fz_fail("out of memory");
    return out;
}

/* 1 when a (as written to JSON) reads back as b. */
int fz_json_same(const char *a, const char *b)
{
    char *n = jnorm(a);
    int same = !strcmp(n, b);
    free(n);
    return same;
}

static int same_span(const gs_span *x, const gs_span *y, int json)
{
    if (x->start_ns != y->start_ns || x->end_ns != y->end_ns || x->lane != y->lane ||
        x->holder != y->holder || x->job != y->job || x->part != y->part || x->kind != y->kind ||
        x->flags != y->flags || x->cpu_ns != y->cpu_ns)
        return 0;
    if (!(x->value == y->value || (isnan(x->value) && isnan(y->value))))
        return 0;
    if (json)
        return fz_json_same(x->name, y->name) && fz_json_same(x->args, y->args);
    return !strcmp(x->name, y->name) && !strcmp(x->args, y->args);
}

static void same_lanes_and_spans(gs_timeline *a, gs_timeline *b, const char *what, int json)
{
    if (gs_timeline_lane_count(a) != gs_timeline_lane_count(b))
        fz_fail("%s: %zu lanes became %zu", what, gs_timeline_lane_count(a),
                gs_timeline_lane_count(b));
    for (size_t i = 0; i < gs_timeline_lane_count(a); i++) {
        const gs_lane_info *x = gs_timeline_lane(a, (int32_t)i), *y = gs_timeline_lane(b, (int32_t)i);
        int same_name = json ? fz_json_same(x->name, y->name) : !strcmp(x->name, y->name);
        if (x->role != y->role || x->device != y->device || x->stream != y->stream || !same_name)
            fz_fail("%s: lane %zu (%s %d %d '%s') came back as (%s %d %d '%s')", what, i,
                    gs_role_name(x->role), (int)x->device, (int)x->stream, x->name,
                    gs_role_name(y->role), (int)y->device, (int)y->stream, y->name);
    }
    size_t n, m;
    const gs_span *s = gs_timeline_spans(a, &n), *t = gs_timeline_spans(b, &m);
    if (n != m)
        fz_fail("%s: %zu spans became %zu", what, n, m);
    for (size_t i = 0; i < n; i++)
        if (!same_span(&s[i], &t[i], json))
            fz_fail("%s: span %zu ('%s' %s %lld..%lld lane %d job %d part %d flags %u holder %d "
                    "value %.17g cpu %lld args '%s') came back as ('%s' %s %lld..%lld lane %d job "
                    "%d part %d flags %u holder %d value %.17g cpu %lld args '%s')",
                    what, i, s[i].name, gs_span_kind_name((gs_span_kind)s[i].kind),
                    (long long)s[i].start_ns, (long long)s[i].end_ns, (int)s[i].lane,
                    (int)s[i].job, (int)s[i].part, (unsigned)s[i].flags, (int)s[i].holder,
                    s[i].value, (long long)s[i].cpu_ns, s[i].args, t[i].name,
                    gs_span_kind_name((gs_span_kind)t[i].kind), (long long)t[i].start_ns,
                    (long long)t[i].end_ns, (int)t[i].lane, (int)t[i].job, (int)t[i].part,
                    (unsigned)t[i].flags, (int)t[i].holder, t[i].value, (long long)t[i].cpu_ns,
                    t[i].args);
}

static void spans_csv(gs_timeline *tl)
{
    const char *p = fz_path("oracle.spans.csv");
    char path[800];
    snprintf(path, sizeof path, "%s", p);
    gs_err err;
    gs_err_clear(&err);
    gs_timeline *back = NULL;
    if (gs_timeline_write_csv(tl, path, &err) != GS_OK)
        fz_fail("spans.csv of an accepted timeline cannot be written: %s", err.msg);
    if (gs_timeline_read_csv(&back, path, &err) != GS_OK)
        fz_fail("spans.csv written by gapscope does not read back: %s", err.msg);
    same_lanes_and_spans(tl, back, "spans.csv round trip", 0);
    if (gs_timeline_meta_count(tl) != gs_timeline_meta_count(back))
        fz_fail("spans.csv round trip: %zu meta keys became %zu", gs_timeline_meta_count(tl),
                gs_timeline_meta_count(back));
    for (size_t i = 0; i < gs_timeline_meta_count(tl); i++) {
        const char *k, *v;
        gs_timeline_meta_at(tl, i, &k, &v);
        const char *v2 = gs_timeline_meta_get(back, k);
        if (!v2 || strcmp(v, v2))
            fz_fail("spans.csv round trip: meta '%s' changed", k);
    }
    if (gs_timeline_dropped(tl) != gs_timeline_dropped(back))
        fz_fail("spans.csv round trip: dropped count changed");
    gs_timeline_destroy(back);
    unlink(path);
}

/* Meta keys that timeline.json does not carry back as they were: the
 * writer's own (generator, t0_ns, dropped_spans) and the importer's
 * (source, source.file, source.original). */
static int own_meta(const char *k)
{
    static const char *const keys[] = {"generator", "t0_ns", "dropped_spans", "source",
                                       "source.file", "source.original"};
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
        if (!strcmp(k, keys[i]))
            return 1;
    return 0;
}

static void timeline_json(gs_timeline *tl)
{
    char path[800];
    snprintf(path, sizeof path, "%s", fz_path("oracle.timeline.json"));
    gs_err err;
    gs_err_clear(&err);
    if (gs_timeline_write_chrome(tl, path, &err) != GS_OK)
        fz_fail("timeline.json of an accepted timeline cannot be written: %s", err.msg);
    char *buf;
    size_t len;
    if (gs_read_file(&buf, &len, path, &err) != GS_OK)
        fz_fail("%s", err.msg);
    gs_timeline *back = NULL;
    if (gs_timeline_create(&back) != GS_OK)
        fz_fail("out of memory");
    gs_import_report rep;
    gs_import_report_init(&rep);
    if (gs_import_bytes(back, &rep, (const uint8_t *)buf, len, "oracle.json", GS_IMPORT_CHROME,
                        NULL, &err) != GS_OK)
        fz_fail("timeline.json written by gapscope does not import back: %s", err.msg);
    if (gs_import_skipped_total(&rep))
        fz_fail("timeline.json import skipped %llu records (%s, first at %s)",
                (unsigned long long)gs_import_skipped_total(&rep), rep.skipped[0].reason,
                rep.skipped[0].first);
    same_lanes_and_spans(tl, back, "timeline.json round trip", 1);
    for (size_t i = 0; i < gs_timeline_meta_count(tl); i++) {
        const char *k, *v;
        gs_timeline_meta_at(tl, i, &k, &v);
        char *nk = jnorm(k);
        if (!own_meta(nk) && !strcmp(nk, k)) {
            const char *v2 = gs_timeline_meta_get(back, k);
            if (!v2 || !fz_json_same(v, v2))
                fz_fail("timeline.json round trip: meta '%s' = '%s' came back as '%s'", k, v,
                        v2 ? v2 : "(none)");
        }
        free(nk);
    }
    gs_timeline_destroy(back);
    free(buf);
    unlink(path);
}

void fz_same_timeline(gs_timeline *a, gs_timeline *b, const char *what)
{
    same_lanes_and_spans(a, b, what, 0);
    if (gs_timeline_meta_count(a) != gs_timeline_meta_count(b))
        fz_fail("%s: %zu meta keys against %zu", what, gs_timeline_meta_count(a),
                gs_timeline_meta_count(b));
    for (size_t i = 0; i < gs_timeline_meta_count(a); i++) {
        const char *k, *v, *k2, *v2;
        gs_timeline_meta_at(a, i, &k, &v);
        gs_timeline_meta_at(b, i, &k2, &v2);
        if (strcmp(k, k2) || strcmp(v, v2))
            fz_fail("%s: meta %zu '%s'='%s' against '%s'='%s'", what, i, k, v, k2, v2);
    }
    if (gs_timeline_dropped(a) != gs_timeline_dropped(b))
        fz_fail("%s: dropped counts differ", what);
}

void fz_round_trip(gs_timeline *tl)
{
    spans_csv(tl);
    timeline_json(tl);
}

/* ---- summary.json ----------------------------------------------------------- */

/* x as summary.json wrote it (gs_json_num: 10 digits, null for NaN/inf). */
void fz_json_num(const gs_json *o, const char *key, double x, const char *where)
{
    const gs_json *v = gs_json_get(o, key);
    if (!v)
        fz_fail("%s lacks \"%s\"", where, key);
    if (!isfinite(x)) {
        if (v->type != GS_JSON_NULL)
            fz_fail("%s.%s is %s for a non-finite value", where, key, v->text);
        return;
    }
    if (v->type != GS_JSON_NUMBER)
        fz_fail("%s.%s is not a number", where, key);
    double tol = 1e-9 * fmax(fabs(x), fabs(v->number)) + 1e-300;
    if (fabs(v->number - x) > tol)
        fz_fail("%s.%s = %.17g read back, %.17g written", where, key, v->number, x);
}

static void same_count(const gs_json *o, const char *key, long x, const char *where)
{
    const gs_json *v = gs_json_get(o, key);
    if (!v || (x < 0 ? v->type != GS_JSON_NULL : (v->type != GS_JSON_NUMBER || v->number != (double)x)))
        fz_fail("%s.%s is not %ld (%s %s)", where, key, x, v ? gs_json_type_name(v->type) : "absent", v && v->text ? v->text : "");
}

void fz_summary_check(const gs_run *r, const char *path)
{
    gs_json *j = NULL;
    gs_err err;
    gs_err_clear(&err);
    if (gs_json_parse_file(&j, path, &err) != GS_OK)
        fz_fail("summary.json does not parse: %s", err.msg);
    const gs_analysis *a = r->an;
    const gs_json *devs = gs_json_get(j, "devices");
    if (!devs || devs->type != GS_JSON_ARRAY || devs->n != a->n_dev)
        fz_fail("summary.json: devices is not an array of %zu", a->n_dev);
    for (size_t i = 0; i < a->n_dev; i++) {
        const gs_device_analysis *d = &a->dev[i];
        const gs_json *o = gs_json_at(devs, i);
        char where[64];
        snprintf(where, sizeof where, "summary.json devices[%zu]", i);
        same_count(o, "device", d->device, where);
        same_count(o, "ops", (long)d->n_ops, where);
        fz_json_num(o, "span_s", d->span_s, where);
        fz_json_num(o, "busy_s", d->busy_s, where);
        fz_json_num(o, "kernel_busy_s", d->kernel_s, where);
        fz_json_num(o, "copy_busy_s", d->copy_s, where);
        fz_json_num(o, "util", d->util, where);
        fz_json_num(o, "idle_s", d->idle_s, where);
        const gs_json *nm = gs_json_get(o, "name");
        if (!nm || nm->type != GS_JSON_STRING || !fz_json_same(d->name, nm->text))
            fz_fail("summary.json: %s.name differs", where);
        same_count(gs_json_get(o, "gaps"), "count", (long)d->gap_stats.count, where);
        fz_json_num(gs_json_get(o, "gaps"), "max_ms", d->gap_stats.max_ms, where);
    }
    fz_json_num(j, "span_s", a->span_s, "summary.json");
    fz_json_num(j, "busy_s", a->busy_s, "summary.json");
    fz_json_num(j, "idle_s", a->idle_s, "summary.json");
    same_count(gs_json_get(j, "gaps"), "count", (long)a->gap_stats.count, "summary.json");
    const gs_json *causes = gs_json_get(j, "causes");
    size_t n_causes = 0;
    for (int c = 0; c < GS_CAUSE_COUNT; c++)
        n_causes += a->cause_s[c] > 0;
    if (!causes || causes->type != GS_JSON_ARRAY || causes->n != n_causes)
        fz_fail("summary.json: causes is not an array of %zu", n_causes);
    for (size_t i = 0; i < causes->n; i++) {
        const gs_json *c = gs_json_at(causes, i), *name = gs_json_get(c, "cause");
        gs_cause cause;
        if (!name || name->type != GS_JSON_STRING || !gs_cause_from_name(&cause, name->text))
            fz_fail("summary.json: causes[%zu] names no cause", i);
        fz_json_num(c, "idle_s", a->cause_s[cause], "summary.json cause");
    }
    const gs_json *jobs = gs_json_get(j, "jobs");
    same_count(jobs, "submitted", r->jobs.submitted, "summary.json jobs");
    same_count(jobs, "completed", r->jobs.completed, "summary.json jobs");
    same_count(jobs, "failed", r->jobs.failed, "summary.json jobs");
    const gs_json *dropped = gs_json_get(j, "dropped_spans");
    if (!dropped || dropped->type != GS_JSON_NUMBER ||
        strtoull(dropped->text, NULL, 10) != (unsigned long long)a->dropped_spans)
        fz_fail("summary.json: dropped_spans differs");
    const gs_json *meta = gs_json_get(j, "meta");
    if (!meta || meta->type != GS_JSON_OBJECT || meta->n != gs_timeline_meta_count(r->tl))
        fz_fail("summary.json: meta does not hold the %zu keys", gs_timeline_meta_count(r->tl));
    for (size_t i = 0; i < meta->n; i++) {
        const char *k, *v;
        gs_timeline_meta_at(r->tl, i, &k, &v);
        if (!fz_json_same(k, meta->keys[i]) || meta->items[i].type != GS_JSON_STRING ||
            !fz_json_same(v, meta->items[i].text))
            fz_fail("summary.json: meta '%s' differs", k);
    }
    gs_json_free(j);
}

void fz_analysis_outputs(gs_timeline *tl)
{
    gs_run r;
    memset(&r, 0, sizeof r);
    snprintf(r.dir, sizeof r.dir, "%s", fz_dir());
    snprintf(r.spans, sizeof r.spans, "%s", fz_path("spans.csv"));
    r.tl = tl;
    gs_analysis_config cfg;
    gs_analysis_config_defaults(&cfg);
    gs_err err;
    gs_err_clear(&err);
    gs_status st = gs_analyze(&r.an, tl, &cfg, &err);
    if (st != GS_OK) {
        if (!err.msg[0] || st == GS_ERR_INTERNAL || st == GS_ERR_RANGE)
            fz_fail("gs_analyze of an accepted timeline: %s (%s)", gs_status_name(st), err.msg);
        return;
    }
    gs_job_stats_from_timeline(&r.jobs, tl);
    char path[800];
    snprintf(path, sizeof path, "%s", fz_path("oracle.summary.json"));
    if (gs_summary_write(&r, path, &err) != GS_OK)
        fz_fail("summary.json: %s", err.msg);
    fz_summary_check(&r, path);
    unlink(path);
    r.tl = NULL;   /* the caller's */
    gs_run_free(&r);
}
