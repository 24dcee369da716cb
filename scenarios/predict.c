/*
 * `gapscope predict CAPTURE`: run a capture's own scenario, changed by
 * --set overrides, on the model fitted from that capture (the real engine
 * on the virtual clock with modelled work: run.c, model*.c), into an
 * ordinary run directory.
 *
 * A capture is a run directory (spans.csv, scenario.ini, arrivals.jsonl,
 * as `gapscope run` leaves them) or a spans.csv.  For X.spans.csv the
 * directory X/ beside it is searched for scenario.ini and arrivals.jsonl
 * (traces/h200-backlog.spans.csv + traces/h200-backlog/).  Without a
 * scenario.ini the scenario is rebuilt from the timeline's scenario.*
 * metadata; without arrivals.jsonl the arrivals are rebuilt from the
 * driver's submit marks (times relative to run.start_ns, replayed timed),
 * written to a temporary file that is removed afterwards.  Either is said
 * on stderr.
 *
 * The scenario keeps everything the capture ran with except: backend =
 * model, model_timeline = the capture's spans.csv, model_size_shift = 0,
 * the job mix = the capture's arrivals.  Then the overrides apply and the
 * scenario is validated; the model's check (model_work.h) refuses a
 * configuration it cannot answer before any file is written.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../diag/analysis.h"
#include "../common/outfile.h"
#include "../timeline/timeline.h"
#include "../model/model.h"
#include "predict.h"
#include "scn_internal.h"
#include "trace.h"

static int is_dir(const char *p)
{
    struct stat sb;
    return stat(p, &sb) == 0 && S_ISDIR(sb.st_mode);
}

static int is_file(const char *p)
{
    struct stat sb;
    return stat(p, &sb) == 0 && S_ISREG(sb.st_mode);
}

gs_status gs_capture_resolve(gs_capture *c, const char *path, gs_err *err)
{
    memset(c, 0, sizeof *c);
    char dir[GS_SCN_PATH_MAX] = "";
    if (is_dir(path)) {
        size_t n = strlen(path);   /* without trailing slashes */
        while (n > 1 && path[n - 1] == '/')
            n--;
        snprintf(c->spans, sizeof c->spans, "%s/spans.csv", path);
        snprintf(dir, sizeof dir, "%.*s", (int)n, path);
        if (!is_file(c->spans)) {
            /* X/ whose spans are X.spans.csv beside it (traces/README.md):
             * the same capture as naming X.spans.csv. */
            snprintf(c->spans, sizeof c->spans, "%.*s.spans.csv", (int)n, path);
            if (n + 11 >= sizeof c->spans || !is_file(c->spans))
                return gs_err_set(err, GS_ERR_IO, "predict", path,
                                  "not a capture: no spans.csv in this directory (nor a %s beside it)",
                                  c->spans);
        }
    } else if (is_file(path)) {
        snprintf(c->spans, sizeof c->spans, "%s", path);
        size_t n = strlen(path);
        const char *suf = ".spans.csv";
        size_t sl = strlen(suf);
        if (n > sl && !strcmp(path + n - sl, suf)) {
            snprintf(dir, sizeof dir, "%.*s", (int)(n - sl), path);
        } else {
            const char *slash = strrchr(path, '/');
            if (slash && !strcmp(slash + 1, "spans.csv"))
                snprintf(dir, sizeof dir, "%.*s", (int)(slash - path), path);
            else if (!slash && !strcmp(path, "spans.csv"))
                snprintf(dir, sizeof dir, ".");
        }
    } else {
        return gs_err_set(err, GS_ERR_IO, "predict", path, "no such capture (a run directory or a spans.csv)");
    }
    if (dir[0] && is_dir(dir)) {
        char p[GS_SCN_PATH_MAX + 32];
        snprintf(p, sizeof p, "%s/scenario.ini", dir);
        if (is_file(p))
            snprintf(c->scenario, sizeof c->scenario, "%s", p);
        snprintf(p, sizeof p, "%s/arrivals.jsonl", dir);
        if (is_file(p))
            snprintf(c->arrivals, sizeof c->arrivals, "%s", p);
    }
    return GS_OK;
}

/* INI text from the timeline's scenario.<section>.<key> metadata. */
static char *scenario_from_meta(const gs_model *m, gs_err *err)
{
    static const char *const sections[] = {"global", "engine", "jobs"};
    size_t cap = 8192, len = 0;
    char *t = malloc(cap);
    if (!t) {
        GS_ERR(err, GS_ERR_NOMEM, "predict", "out of memory");
        return NULL;
    }
    t[0] = '\0';
    gs_scenario *probe = NULL;
    if (gs_scenario_new(&probe, err) != GS_OK) {
        free(t);
        return NULL;
    }
    for (size_t s = 0; s < sizeof sections / sizeof sections[0]; s++) {
        len += (size_t)snprintf(t + len, cap - len, "[%s]\n", sections[s]);
        for (int i = 0; i < gs_scenario_setting_count(probe); i++) {
            const char *k, *v;
            gs_scenario_setting_at(probe, i, &k, &v);
            size_t sl = strlen(sections[s]);
            if (strncmp(k, sections[s], sl) || k[sl] != '.')
                continue;
            char key[128];
            snprintf(key, sizeof key, "scenario.%s", k);
            const char *mv = gs_model_meta(m, key);
            if (!mv || !*mv)
                continue;
            if (len + strlen(k) + strlen(mv) + 8 >= cap) {
                cap = 2 * cap + strlen(mv);
                char *nt = realloc(t, cap);
                if (!nt) {
                    free(t);
                    gs_scenario_destroy(probe);
                    GS_ERR(err, GS_ERR_NOMEM, "predict", "out of memory");
                    return NULL;
                }
                t = nt;
            }
            len += (size_t)snprintf(t + len, cap - len, "%s = %s\n", k + sl + 1, mv);
        }
    }
    gs_scenario_destroy(probe);
    return t;
}

/* The integer after key in a submit mark's args ("partitions=10"); def
 * when absent; -1 when not a number or beyond long. */
static long mark_arg(const char *args, const char *key, long def)
{
    const char *p = args ? strstr(args, key) : NULL;
    if (!p)
        return def;
    p += strlen(key);
    char *e;
    errno = 0;
    long v = strtol(p, &e, 10);
    return e == p || (*e && *e != ';') || errno ? -1 : v;
}

/* The arrivals of the capture from its submit marks, into a temporary trace. */
static gs_status arrivals_from_marks(const char *spans, char *tmp, size_t cap, gs_err *err)
{
    gs_timeline *tl = NULL;
    gs_status st = gs_timeline_read_csv(&tl, spans, err);
    if (st != GS_OK)
        return st;
    const char *rs = gs_timeline_meta_get(tl, "run.start_ns");
    int64_t t0 = rs ? strtoll(rs, NULL, 10) : 0;
    size_t n;
    const gs_span *sp = gs_timeline_spans(tl, &n);
    gs_trace tr = {0};
    snprintf(tr.description, sizeof tr.description, "arrivals rebuilt from the submit marks of %.200s", spans);
    snprintf(tr.generator, sizeof tr.generator, "gapscope predict");
    for (size_t i = 0; i < n && st == GS_OK; i++) {
        if (sp[i].kind != GS_SPAN_MARK || !gs_vocab_is(sp[i].name, GS_V_SUBMIT) || sp[i].job < 0)
            continue;
        const gs_lane_info *li = gs_timeline_lane(tl, sp[i].lane);
        if (!li || strcmp(li->name, "driver"))
            continue;
        gs_arrival a = {.id = (uint64_t)sp[i].job};
        /* The trace reader's ranges (trace.c): what is written here must
         * read back (issue 35); t0 is the meta's, so the difference is
         * checked. */
        if (t0 && sp[i].start_ns > t0 &&
            (!gs_tl_sub(&a.t_ns, sp[i].start_ns, t0) || a.t_ns > GS_TL_TIME_LIMIT_NS)) {
            st = gs_err_set(err, GS_ERR_FORMAT, "predict", spans,
                            "submit mark of job %d lies beyond 2^62 - 1 ns after run.start_ns",
                            sp[i].job);
            break;
        }
        char kb[32] = "";
        const char *p = sp[i].args ? strstr(sp[i].args, "kind=") : NULL;
        if (p)
            snprintf(kb, sizeof kb, "%.*s", (int)strcspn(p + 5, ";"), p + 5);
        if (!gs_job_kind_from_name(&a.kind, kb)) {
            st = gs_err_set(err, GS_ERR_FORMAT, "predict", spans, "submit mark of job %d has no kind", sp[i].job);
            break;
        }
        long parts = mark_arg(sp[i].args, "partitions=", gs_job_kind_partitions(a.kind));
        long prio = mark_arg(sp[i].args, "priority=", gs_job_kind_priority(a.kind));
        long size = mark_arg(sp[i].args, "log_constraints=", 0);
        if (parts < 1 || parts > 1024 || prio < 0 || prio > 100 || size < 0 || size > 40) {
            st = gs_err_set(err, GS_ERR_FORMAT, "predict", spans,
                            "submit mark of job %d: partitions %ld (1..1024), priority %ld "
                            "(0..100) or log_constraints %ld (0..40) out of range",
                            sp[i].job, parts, prio, size);
            break;
        }
        a.partitions = (uint32_t)parts;
        a.priority = (int)prio;
        a.size_class = (uint32_t)size;
        if (tr.n && a.t_ns < tr.a[tr.n - 1].t_ns)
            a.t_ns = tr.a[tr.n - 1].t_ns;
        if (gs_trace_push(&tr, &a) != GS_OK)
            st = GS_ERR(err, GS_ERR_NOMEM, "predict", "out of memory");
    }
    if (st == GS_OK && tr.n == 0)
        st = gs_err_set(err, GS_ERR_FORMAT, "predict", spans,
                        "no arrivals.jsonl beside the capture and no submit marks in it: nothing to replay");
    if (st == GS_OK) {
        const char *td = getenv("TMPDIR");
        /* One file per call: a prediction's interval rebuilds the arrivals
         * for its other runs while the first's are still in use. */
        static _Atomic int serial;
        snprintf(tmp, cap, "%s/gapscope-arrivals-%d-%d.jsonl", td && *td ? td : "/tmp", (int)getpid(), serial++);
        st = gs_trace_write(&tr, tmp, "us", err);
    }
    gs_trace_free(&tr);
    gs_timeline_destroy(tl);
    return st;
}

gs_status gs_predict_scenario(gs_scenario **out, const gs_capture *c, const gs_model *m,
                              const char *const *sets, int nsets, char *tmp_trace, size_t cap,
                              int quiet, gs_err *err)
{
    *out = NULL;
    if (tmp_trace && cap)
        tmp_trace[0] = '\0';
    char *text = NULL;
    size_t len = 0;
    gs_status st;
    const char *name = c->scenario[0] ? c->scenario : c->spans;
    if (c->scenario[0]) {
        if ((st = gs_read_file(&text, &len, c->scenario, err)) != GS_OK)
            return st;
    } else {
        if (!quiet)
            fprintf(stderr, "gapscope predict: no scenario.ini beside %s: the scenario comes from its "
                            "scenario.* metadata\n", c->spans);
        if (!(text = scenario_from_meta(m, err)))
            return err->status;
    }
    gs_scenario *s = NULL;
    if ((st = gs_scenario_new(&s, err)) != GS_OK) {
        free(text);
        return st;
    }
    st = gs_scenario_parse_text(s, text, name, err);
    free(text);
    char buf[GS_SCN_PATH_MAX + 64];
    const char *trace = c->arrivals;
    if (st == GS_OK && !c->arrivals[0]) {
        if (!quiet)
            fprintf(stderr, "gapscope predict: no arrivals.jsonl beside %s: the arrivals come from its "
                            "submit marks (replayed timed)\n", c->spans);
        st = arrivals_from_marks(c->spans, tmp_trace, cap, err);
        trace = tmp_trace;
        if (st == GS_OK)
            st = gs_scenario_set(s, "jobs.replay=timed", "predict", err);
        if (st == GS_OK)
            st = gs_scenario_set(s, "jobs.time_scale=1", "predict", err);
    }
    static const char *const fixed[] = {"engine.backend=model", "engine.model_size_shift=0",
                                        "jobs.limit=0"};
    for (size_t i = 0; st == GS_OK && i < sizeof fixed / sizeof fixed[0]; i++)
        st = gs_scenario_set(s, fixed[i], "predict", err);
    if (st == GS_OK) {
        snprintf(buf, sizeof buf, "engine.model_timeline=%s", c->spans);
        st = gs_scenario_set(s, buf, "predict", err);
    }
    if (st == GS_OK) {
        snprintf(buf, sizeof buf, "jobs.trace=%s", trace);
        st = gs_scenario_set(s, buf, "predict", err);
    }
    if (st == GS_OK)
        st = gs_scenario_apply_cli(s, NULL, sets, nsets, err);
    if (st != GS_OK) {
        gs_scenario_destroy(s);
        return st;
    }
    *out = s;
    return GS_OK;
}

gs_status gs_util_summary_of(gs_util_summary *out, const char *spans_csv, gs_err *err)
{
    memset(out, 0, sizeof *out);
    gs_timeline *tl = NULL;
    gs_analysis *a = NULL;
    gs_analysis_config cfg;
    gs_analysis_config_defaults(&cfg);
    gs_status st = gs_timeline_read_csv(&tl, spans_csv, err);
    if (st == GS_OK)
        st = gs_analyze(&a, tl, &cfg, err);
    if (st == GS_OK) {
        out->util = a->span_s > 0 ? a->busy_s / a->span_s : 0;
        out->idle_s = a->idle_s;
        out->span_s = a->span_s;
        out->share = a->verdict_share;
        snprintf(out->cause, sizeof out->cause, "%s", gs_cause_name(a->verdict));
    }
    gs_analysis_destroy(a);
    gs_timeline_destroy(tl);
    return st;
}

void gs_util_summary_of_run(gs_util_summary *out, const gs_run_result *r)
{
    memset(out, 0, sizeof *out);
    out->util = r->gpu_util;
    out->idle_s = r->gpu_idle_s;
    out->span_s = r->gpu_span_s;
    int top = GS_CAUSE_OTHER;
    double idle = 0;
    for (int c = 0; c < GS_CAUSE_COUNT && c < GS_SCN_MAX_CAUSES; c++) {
        idle += r->cause_idle_s[c];
        if (r->cause_idle_s[c] > r->cause_idle_s[top])
            top = c;
    }
    out->share = idle > 0 ? r->cause_idle_s[top] / idle : 0;
    snprintf(out->cause, sizeof out->cause, "%s", gs_cause_name((gs_cause)top));
}

void gs_predict_capture_dir(char *out, size_t cap, const gs_capture *c)
{
    snprintf(out, cap, "%s", c->spans);
    char *slash = strrchr(out, '/');
    if (slash)
        *slash = '\0';
    else
        snprintf(out, cap, ".");
}

void gs_predict_profile_path(char *out, size_t cap, const gs_predict_opts *o, const gs_capture *c)
{
    char dir[GS_SCN_PATH_MAX];
    gs_predict_capture_dir(dir, sizeof dir, c);
    /* X.spans.csv with X/ beside it: the profile may sit in X/. */
    size_t n = strlen(c->spans), sl = strlen(".spans.csv");
    if (!o->profile && n > sl && !strcmp(c->spans + n - sl, ".spans.csv")) {
        char alt[GS_SCN_PATH_MAX];
        snprintf(alt, sizeof alt, "%.*s", (int)(n - sl), c->spans);
        gs_profile_find(out, cap, NULL, alt);
        if (out[0])
            return;
    }
    gs_profile_find(out, cap, o->profile, dir);
}

gs_status gs_scn_predict(const gs_predict_opts *o, gs_run_result *res, gs_err *err)
{
    gs_capture c;
    gs_model *m = NULL;
    gs_scenario *s = NULL;
    char tmp[GS_SCN_PATH_MAX] = "", prof[GS_SCN_PATH_MAX] = "";
    memset(res, 0, sizeof *res);
    if (o->n_repeats + 1 > GS_PREDICT_MAX_CAPTURES)
        return GS_ERR(err, GS_ERR_ARG, "predict", "at most %d captures of one setting", GS_PREDICT_MAX_CAPTURES);
    gs_status st = gs_capture_resolve(&c, o->capture, err);
    if (st == GS_OK) {
        gs_predict_profile_path(prof, sizeof prof, o, &c);
        st = gs_model_load_profiled(&m, c.spans, prof[0] ? prof : NULL, err);
    }
    if (st == GS_OK && o->borrow) {
        gs_capture b;
        if ((st = gs_capture_resolve(&b, o->borrow, err)) == GS_OK)
            st = gs_model_borrow(m, b.spans, err);
    }
    if (st == GS_OK)
        st = gs_predict_scenario(&s, &c, m, o->sets, o->n_sets, tmp, sizeof tmp, o->run.quiet, err);
    if (st == GS_OK) {
        gs_run_opts ro = o->run;
        ro.model = m;
        /* With an interval the report is rendered once the interval is
         * known (its metadata is in it). */
        if (o->interval)
            ro.no_charts = 1;
        st = gs_scn_run(s, &ro, res, err);
    }
    if (st == GS_OK && o->interval) {
        gs_util_summary pt;
        gs_util_summary_of_run(&pt, res);
        char spans[GS_SCN_PATH_MAX + 16];
        snprintf(spans, sizeof spans, "%s/spans.csv", res->dir);
        if ((st = gs_predict_interval(o->interval, o, m, s, &pt, err)) == GS_OK &&
            (st = gs_prediction_write_meta(o->interval, spans, err)) == GS_OK)
            st = gs_scn_report(res, o->run.quiet, !o->run.no_report && !o->run.no_charts, err);
    }
    if (tmp[0])
        unlink(tmp);
    gs_scenario_destroy(s);
    gs_model_destroy(m);
    return st;
}
