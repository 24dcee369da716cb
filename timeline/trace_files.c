/*
 * The trace file a run directory gets (timeline.h): Chrome JSON for runs
 * Perfetto's UI loads comfortably as JSON, Perfetto's protobuf above
 * GS_TRACE_CHROME_MAX_SPANS (timeline/README.md, "Which trace file"); and
 * the process both writers put a lane in.
 *
 * gs_timeline_write_run writes spans.csv and the trace file at once, one
 * on a second thread: both only read the sorted view once it is built, and
 * on a 4.6M-span import they are 1.4 s and 0.9 s of one core.
 */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "tl_internal.h"

static const char *const names[] = {GS_TRACE_FORMAT_TABLE(GS_XT_COL2)};
_Static_assert(sizeof names / sizeof names[0] == GS_TRACE_FORMAT_COUNT, "trace format table");

GS_XT_DEFINE_NAMES_OR(gs_trace_format, gs_trace_format, names, GS_TRACE_FORMAT_COUNT, "?")

gs_trace_format gs_trace_format_pick(gs_timeline *tl, gs_trace_format f)
{
    if (f != GS_TRACE_AUTO)
        return f;
    return gs_tl_span_total(tl) > GS_TRACE_CHROME_MAX_SPANS ? GS_TRACE_PERFETTO : GS_TRACE_CHROME;
}

static gs_status write_one(gs_timeline *tl, const char *dir, const char *file,
                           gs_status (*fn)(gs_timeline *, const char *, gs_err *), gs_err *err)
{
    char path[4096];
    int w = snprintf(path, sizeof path, "%s/%s", dir, file);
    if (w < 0 || (size_t)w >= sizeof path)
        return gs_err_set(err, GS_ERR_ARG, "timeline", dir, "path too long");
    return fn(tl, path, err);
}

gs_status gs_timeline_write_traces(gs_timeline *tl, const char *dir, gs_trace_format f,
                                   const char **written, gs_err *err)
{
    f = gs_trace_format_pick(tl, f);
    gs_status st = GS_OK;
    if (written)
        *written = f == GS_TRACE_PERFETTO ? GS_TRACE_PERFETTO_FILE : GS_TRACE_CHROME_FILE;
    if (f == GS_TRACE_CHROME || f == GS_TRACE_BOTH)
        st = write_one(tl, dir, GS_TRACE_CHROME_FILE, gs_timeline_write_chrome, err);
    if (st == GS_OK && (f == GS_TRACE_PERFETTO || f == GS_TRACE_BOTH))
        st = write_one(tl, dir, GS_TRACE_PERFETTO_FILE, gs_timeline_write_perfetto, err);
    return st;
}

int gs_tl_lane_pid(const gs_lane_info *L)
{
    if (L->role == GS_ROLE_DEVICE)
        return GS_TL_PID_GPU0 + (L->device >= 0 ? L->device : 999);
    return GS_TL_PID_HOST;
}

typedef struct {
    gs_timeline *tl;
    const char *dir;
    gs_trace_format f;
    const char *written;
    gs_err err;
    gs_status st;
} traces_job;

static void *traces_thread(void *arg)
{
    traces_job *j = arg;
    j->st = gs_timeline_write_traces(j->tl, j->dir, j->f, &j->written, &j->err);
    return NULL;
}

gs_status gs_timeline_write_run(gs_timeline *tl, const char *dir, gs_trace_format f,
                                const char **written, gs_err *err)
{
    gs_status st;
    size_t n;
    traces_job j = {.tl = tl, .dir = dir, .f = f};
    gs_err_clear(&j.err);
    pthread_t th;
    /* The view first (both writers would build it); without it (empty, or
     * out of memory) the writers run one after the other as before. */
    int two = gs_timeline_spans(tl, &n) && pthread_create(&th, NULL, traces_thread, &j) == 0;
    st = write_one(tl, dir, "spans.csv", gs_timeline_write_csv, err);
    if (two)
        pthread_join(th, NULL);
    else if (st == GS_OK)
        traces_thread(&j);
    else
        return st;
    if (written)
        *written = j.written;
    if (st == GS_OK && j.st != GS_OK) {
        if (err)
            *err = j.err;
        st = j.st;
    }
    return st;
}
