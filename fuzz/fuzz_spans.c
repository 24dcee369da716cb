/*
 * libFuzzer target: spans.csv (timeline/timeline_csv.c) and everything
 * `gapscope analyze` and the model backend do with a file that reads:
 *
 *   1. gs_timeline_read_csv; a failure must name path:line;
 *   2. the round-trip oracle (fz_oracle.c): spans.csv and timeline.json
 *      written from what was read come back field for field;
 *   3. gs_analyze (no GS_ERR_RANGE: what the reader accepted is in range),
 *      the verdict;
 *   4. the outputs of `analyze` into the scratch run directory:
 *      summary.json (read back: the analysis's figures), timeline.json
 *      (must parse as JSON), timeline.perfetto-trace (decoded by
 *      test/pfdecode.h: balanced slices, each flow with one source and one
 *      end, packets in time order) and the plot data files; no "*.tmp.*"
 *      may be left behind;
 *   5. gs_model_load (model/model.c reads a captured spans.csv as the
 *      model device) and a few stage queries.
 *
 * The jobs statistics fallback (no jobs.csv) runs on the timeline too.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../diag/run.h"
#include "../report/datafiles.h"
#include "../common/json.h"
#include "../model/model.h"
#include "../test/pfdecode.h"
#include "fz.h"

static void json_ok(const char *path)
{
    gs_json *j = NULL;
    gs_err err;
    gs_err_clear(&err);
    if (gs_json_parse_file(&j, path, &err) != GS_OK)
        fz_fail("an output is not valid JSON: %s", err.msg);
    gs_json_free(j);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[768], rt[768], out[768];
    snprintf(path, sizeof path, "%s", fz_write("spans.csv", data, size));
    snprintf(rt, sizeof rt, "%s", fz_path("rt.csv"));
    gs_err err;
    gs_err_clear(&err);
    gs_run r;
    memset(&r, 0, sizeof r);
    snprintf(r.dir, sizeof r.dir, "%s", fz_dir());
    snprintf(r.spans, sizeof r.spans, "%s", path);
    gs_status st = gs_timeline_read_csv(&r.tl, path, &err);
    if (st != GS_OK) {
        fz_check_error(st, &err, path, 1);
        return 0;
    }
    gs_timeline *back = NULL;
    if (gs_timeline_write_csv(r.tl, rt, &err) != GS_OK || gs_timeline_read_csv(&back, rt, &err) != GS_OK)
        fz_fail("round trip of a spans.csv that read: %s", err.msg);
    gs_timeline_destroy(back);
    fz_round_trip(r.tl);   /* spans.csv and timeline.json, field for field */

    gs_analysis_config cfg;
    gs_analysis_config_defaults(&cfg);
    st = gs_analyze(&r.an, r.tl, &cfg, &err);
    if (st != GS_OK) {
        /* a timeline the reader accepted is within timeline/limits.h */
        if (!err.msg[0] || st == GS_ERR_INTERNAL || st == GS_ERR_RANGE)
            fz_fail("gs_analyze: %s (%s)", gs_status_name(st), err.msg);
    } else {
        char v[1024];
        gs_analysis_verdict(v, sizeof v, r.an);
        gs_job_stats_from_timeline(&r.jobs, r.tl);
        snprintf(out, sizeof out, "%s", fz_path("summary.json"));
        if (gs_summary_write(&r, out, &err) != GS_OK)
            fz_fail("summary.json: %s", err.msg);
        fz_summary_check(&r, out);
        if (gs_plot_data_write(&r, &err) != GS_OK)
            fz_fail("plot data: %s", err.msg);
        snprintf(out, sizeof out, "%s", fz_path("timeline.json"));
        if (gs_timeline_write_chrome(r.tl, out, &err) != GS_OK)
            fz_fail("timeline.json: %s", err.msg);
        json_ok(out);
        /* The Perfetto file of the same timeline decodes, its slices
         * balanced on every track and every flow leaving once and ending
         * once (test/pfdecode.h: a reader independent of the writer). */
        snprintf(out, sizeof out, "%s", fz_path("timeline.perfetto-trace"));
        if (gs_timeline_write_perfetto(r.tl, out, &err) != GS_OK)
            fz_fail("timeline.perfetto-trace: %s", err.msg);
        pf_trace d;
        if (!pf_decode_file(&d, out))
            fz_fail("timeline.perfetto-trace: cannot read it back");
        if (d.error[0] || d.unbalanced || d.flows_bad || !d.sorted)
            fz_fail("timeline.perfetto-trace: %s, %zu unbalanced, %zu bad flows, sorted %d",
                    d.error, d.unbalanced, d.flows_bad, d.sorted);
        pf_trace_free(&d);
    }
    gs_run_free(&r);

    gs_model *m = NULL;
    gs_err_clear(&err);
    st = gs_model_load(&m, path, &err);
    if (st == GS_OK) {
        for (int i = 0; i < gs_model_stage_count(m); i++)
            for (uint32_t log_n = 9; log_n <= 30; log_n += 7)
                (void)gs_model_stage_s(m, gs_model_stage_name(m, i), log_n, (int)(log_n & 1));
        gs_model_destroy(m);
    } else if (!err.msg[0]) {
        fz_fail("gs_model_load failed without a message");
    }
    static const char *const left[] = {"spans.csv", "rt.csv", "summary.json", "timeline.json",
                                       "timeline.perfetto-trace", "data", NULL};
    fz_expect_files(left);
    fz_expect_no_tmp(fz_path("data"));
    return 0;
}
