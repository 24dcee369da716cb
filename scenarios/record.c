/*
 * `gapscope record`: the arrivals a run actually processed, as a trace.
 * Reads RUN_DIR/jobs.csv (diag's format: actual submission times) and, for
 * priority and size class, RUN_DIR/arrivals.jsonl when present; times are
 * the actual submissions, shifted so the first is 0.
 */
#include <stdlib.h>
#include <string.h>

#include "../diag/jobs.h"
#include "run.h"
#include "scn_internal.h"

static int cmp_t(const void *a, const void *b)
{
    const gs_arrival *x = a, *y = b;
    return x->t_ns < y->t_ns ? -1 : x->t_ns > y->t_ns ? 1 : (x->id > y->id) - (x->id < y->id);
}

gs_status gs_scn_record_from_run(const char *run_dir, const char *trace_path, gs_err *err)
{
    char path[GS_SCN_PATH_MAX + 32];
    gs_job_record *jobs = NULL;
    size_t n = 0;
    gs_trace orig = {0}, out = {0};
    snprintf(path, sizeof path, "%s/jobs.csv", run_dir);
    gs_status st = gs_jobs_read_csv(&jobs, &n, path, err);
    if (st != GS_OK)
        return st;
    snprintf(path, sizeof path, "%s/arrivals.jsonl", run_dir);
    gs_err ignore;
    gs_err_clear(&ignore);
    if (gs_trace_read(&orig, path, &ignore) != GS_OK)
        memset(&orig, 0, sizeof orig);
    int64_t t0 = INT64_MAX;
    for (size_t i = 0; i < n; i++)
        if (jobs[i].submitted_ns >= 0 && jobs[i].submitted_ns < t0)
            t0 = jobs[i].submitted_ns;
    for (size_t i = 0; i < n; i++) {
        if (jobs[i].submitted_ns < 0)
            continue;
        gs_arrival a = {.t_ns = jobs[i].submitted_ns - t0, .id = jobs[i].id, .partitions = jobs[i].partitions};
        if (!gs_job_kind_from_name(&a.kind, jobs[i].kind)) {
            st = gs_err_set(err, GS_ERR_FORMAT, "record", run_dir, "job %llu has unknown kind '%s'",
                            (unsigned long long)jobs[i].id, jobs[i].kind);
            goto done;
        }
        a.priority = gs_job_kind_priority(a.kind);
        for (size_t j = 0; j < orig.n; j++)
            if (orig.a[j].id == a.id) {
                a.priority = orig.a[j].priority;
                a.size_class = orig.a[j].size_class;
                break;
            }
        if (gs_trace_push(&out, &a) != GS_OK) {
            st = GS_ERR(err, GS_ERR_NOMEM, "record", "out of memory");
            goto done;
        }
    }
    if (out.n)
        qsort(out.a, out.n, sizeof *out.a, cmp_t);
    snprintf(out.description, sizeof out.description, "arrivals processed by the run in %.200s", run_dir);
    snprintf(out.generator, sizeof out.generator, "gapscope record");
    st = gs_trace_write(&out, trace_path, "ms", err);
done:
    free(jobs);
    gs_trace_free(&orig);
    gs_trace_free(&out);
    return st;
}
