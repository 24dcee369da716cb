/*
 * gapscope merge's work (merge.h): read each run directory, put its clock
 * on the first one's (given offset, same boot, anchors, or --same-clock),
 * merge the timelines (timeline/timeline_merge.c) and the jobs, write the
 * merged run directory.  Called by cli/cmd_merge.c.
 */
#define _POSIX_C_SOURCE 200809L
#include "merge.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../common/paths.h"
#include "run.h"

/* A capture's spans.csv and (optional) jobs.csv paths from dir_or_csv. */
static void paths_of(const char *arg, char *spans, char *jobs, size_t cap)
{
    struct stat sb;
    if (stat(arg, &sb) == 0 && S_ISDIR(sb.st_mode)) {
        gs_path_join(spans, cap, arg, "spans.csv");
        gs_path_join(jobs, cap, arg, "jobs.csv");
        return;
    }
    snprintf(spans, cap, "%s", arg);
    const char *slash = strrchr(arg, '/');
    char dir[2048];
    snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - arg) : 1, slash ? arg : ".");
    gs_path_join(jobs, cap, dir, "jobs.csv");
}

/* The label: given, else the directory's last component, made unique. */
static void make_label(gs_merge_result *res, const gs_merge_opts *o, size_t k)
{
    char *l = res->label[k];
    if (o->labels[k]) {
        snprintf(l, sizeof res->label[k], "%s", o->labels[k]);
    } else {
        char d[2048];
        snprintf(d, sizeof d, "%s", o->dirs[k]);
        size_t n = strlen(d);
        while (n > 1 && d[n - 1] == '/')
            d[--n] = '\0';
        if (n > 10 && !strcmp(d + n - 10, "/spans.csv"))
            d[n - 10] = '\0';
        const char *b = strrchr(d, '/');
        snprintf(l, sizeof res->label[k], "%s", b && b[1] ? b + 1 : d);
    }
    for (size_t j = 0; j < k; j++)
        if (!strcmp(res->label[j], l)) {
            size_t n = strlen(l);
            snprintf(l + (n < 56 ? n : 56), 8, "#%zu", k);
            break;
        }
}

/* Capture k's offset onto capture 0's clock. */
static gs_status align(gs_merge_result *res, gs_tl_merge_in *in, const gs_merge_opts *o,
                       size_t k, gs_err *err)
{
    gs_tl_align *A = &res->align[k];
    if (o->has_offset[k]) {
        A->offset_ns = o->offsets[k];
        A->error_ns = -1;
        snprintf(A->how, sizeof A->how, "offset given on the command line (error bound unknown)");
    } else if (!gs_timeline_align(A, in[0].tl, in[k].tl)) {
        if (!o->same_clock)
            return gs_err_set(err, GS_ERR_ARG, "merge", o->dirs[k],
                              "cannot put it on %s's clock: %s; say how with --same-clock "
                              "(one host's CLOCK_MONOTONIC, or one profiler clock) or --offset",
                              o->dirs[0], A->how);
        A->offset_ns = 0;
        A->error_ns = -1;
        snprintf(A->how, sizeof A->how, "--same-clock: offset 0 (error bound unknown)");
    }
    in[k].offset_ns = A->offset_ns;
    if (A->error_ns < 0 || res->error_ns < 0)
        res->error_ns = -1;
    else if (A->error_ns > res->error_ns)
        res->error_ns = A->error_ns;
    return GS_OK;
}

/* jobs.csv of the merge: every capture's records, times shifted, when
 * every capture has a jobs.csv (else none: the marks are counted). */
static gs_status merge_jobs(gs_timeline *m, const char *out_dir, char jobs[][2100],
                            const gs_tl_merge_in *in, size_t n, gs_err *err)
{
    struct stat sb;
    for (size_t k = 0; k < n; k++)
        if (stat(jobs[k], &sb) != 0)
            return GS_OK;
    gs_job_record *all = NULL;
    size_t total = 0;
    gs_status st = GS_OK;
    for (size_t k = 0; k < n && st == GS_OK; k++) {
        gs_job_record *v;
        size_t nv;
        if ((st = gs_jobs_read_csv(&v, &nv, jobs[k], err)) != GS_OK)
            break;
        gs_job_record *na = realloc(all, (total + nv + 1) * sizeof *na);
        if (!na) {
            free(v);
            st = gs_err_set(err, GS_ERR_NOMEM, "merge", jobs[k], "out of memory");
            break;
        }
        all = na;
        for (size_t i = 0; i < nv; i++) {
            int64_t *t[3] = {&v[i].intended_ns, &v[i].submitted_ns, &v[i].done_ns};
            for (int j = 0; j < 3; j++)
                if (*t[j] >= 0)
                    *t[j] += in[k].offset_ns;
            all[total++] = v[i];
        }
        free(v);
        char key[64], val[32];
        snprintf(key, sizeof key, "process.%zu.jobs", k);
        snprintf(val, sizeof val, "%zu", nv);
        gs_timeline_meta_set(m, key, val);
    }
    char path[2200];
    if (st == GS_OK && gs_path_join(path, sizeof path, out_dir, "jobs.csv"))
        st = gs_jobs_write_csv(path, all, total, err);
    free(all);
    return st;
}

gs_status gs_run_merge(gs_merge_result *res, const char *out_dir, const gs_merge_opts *o,
                       gs_err *err)
{
    memset(res, 0, sizeof *res);
    if (o->n < 2 || o->n > GS_MERGE_MAX)
        return gs_err_set(err, GS_ERR_ARG, "merge", out_dir, "merge takes 2 to %d run directories",
                          GS_MERGE_MAX);
    gs_tl_merge_in in[GS_MERGE_MAX];
    char spans[GS_MERGE_MAX][2100], jobs[GS_MERGE_MAX][2100];
    gs_timeline *m = NULL;
    gs_status st = GS_OK;
    memset(in, 0, sizeof in);
    for (size_t k = 0; k < o->n && st == GS_OK; k++) {
        paths_of(o->dirs[k], spans[k], jobs[k], sizeof spans[k]);
        make_label(res, o, k);
        in[k].label = res->label[k];
        st = gs_timeline_read_csv(&in[k].tl, spans[k], err);
    }
    for (size_t k = 1; k < o->n && st == GS_OK; k++)
        st = align(res, in, o, k, err);
    if (st == GS_OK)
        st = gs_timeline_merge(&m, in, o->n, err);
    if (st == GS_OK) {
        char key[64], b[32];
        for (size_t k = 0; k < o->n; k++) {
            snprintf(key, sizeof key, "process.%zu.clock", k);
            gs_timeline_meta_set(m, key, k ? res->align[k].how : "the reference clock");
        }
        snprintf(b, sizeof b, "%lld", (long long)res->error_ns);
        gs_timeline_meta_set(m, "merge.clock_error_bound_ns", b);
        res->lanes = gs_timeline_lane_count(m);
        gs_timeline_spans(m, &res->spans);
        char path[2200];
        if ((st = gs_mkdir_p(out_dir, err)) == GS_OK &&
            (st = merge_jobs(m, out_dir, jobs, in, o->n, err)) == GS_OK) {
            if (!gs_path_join(path, sizeof path, out_dir, "spans.csv"))
                st = gs_err_set(err, GS_ERR_ARG, "merge", out_dir, "path too long");
            else
                st = gs_timeline_write_csv(m, path, err);
        }
    }
    for (size_t k = 0; k < o->n; k++)
        gs_timeline_destroy(in[k].tl);
    gs_timeline_destroy(m);
    return st;
}
