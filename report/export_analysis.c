/*
 * The SQLite export's analysis tables (export_internal.h): devices, every
 * gap and gap piece, the causes, and the jobs (from jobs.csv, or from the
 * timeline's submit / job_done marks).  Called by export_sqlite.c inside
 * its transaction, after the timeline's tables.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "export_internal.h"

#if GS_HAVE_SQLITE

static gs_cause top_cause(const gs_device_analysis *d)
{
    int best = GS_CAUSE_OTHER;
    for (int c = 0; c < GS_CAUSE_COUNT; c++)
        if (d->cause_s[c] > d->cause_s[best])
            best = c;
    return (gs_cause)best;
}

static int put_devices(gs_xdb *x, const gs_analysis *a)
{
    sqlite3_stmt *st = gs_xdb_prepare(
        x, "INSERT INTO devices VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
    int ok = st != NULL;
    for (size_t i = 0; ok && i < a->n_dev; i++) {
        const gs_device_analysis *d = &a->dev[i];
        double v[] = {d->span_s, d->busy_s, d->kernel_s, d->copy_s, d->util, d->util_kernels_only,
                      d->idle_s};
        sqlite3_bind_int(st, 1, d->device);
        sqlite3_bind_int(st, 2, d->process);
        if (d->name[0])
            sqlite3_bind_text(st, 3, d->name, -1, SQLITE_STATIC);
        sqlite3_bind_int64(st, 4, (int64_t)d->n_ops);
        sqlite3_bind_int64(st, 5, d->span_start_ns);
        sqlite3_bind_int64(st, 6, d->span_end_ns);
        for (int k = 0; k < 7; k++)
            sqlite3_bind_double(st, 7 + k, v[k]);
        sqlite3_bind_int64(st, 14, (int64_t)d->n_gaps);
        sqlite3_bind_double(st, 15, d->idle_during_trim_s);
        sqlite3_bind_text(st, 16, d->rule == GS_RULE_LAUNCHER ? "launcher" : "engine", -1,
                          SQLITE_STATIC);
        if (d->idle_s > 0)
            sqlite3_bind_text(st, 17, gs_cause_name(top_cause(d)), -1, SQLITE_STATIC);
        ok = gs_xdb_row(x, st);
    }
    sqlite3_finalize(st);
    return ok;
}

/* Every gap of every device (ids 1, 2, ... in device and time order) and
 * every piece, pointing at its gap. */
static int put_gaps(gs_xdb *x, const gs_analysis *a)
{
    sqlite3_stmt *g = gs_xdb_prepare(x, "INSERT INTO gaps VALUES (?, ?, ?, ?, ?, ?, ?)");
    sqlite3_stmt *p = gs_xdb_prepare(x, "INSERT INTO gap_pieces VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
    int ok = g && p;
    int64_t gid = 0, pid = 0;
    for (size_t i = 0; ok && i < a->n_dev; i++) {
        const gs_device_analysis *d = &a->dev[i];
        for (size_t k = 0; ok && k < d->n_gaps; k++) {
            const gs_gap *gp = &d->gaps[k];
            sqlite3_bind_int64(g, 1, ++gid);
            sqlite3_bind_int(g, 2, d->device);
            sqlite3_bind_int64(g, 3, (int64_t)k);
            sqlite3_bind_int64(g, 4, gp->start_ns);
            sqlite3_bind_int64(g, 5, gp->end_ns);
            sqlite3_bind_int64(g, 6, gp->end_ns - gp->start_ns);
            sqlite3_bind_text(g, 7, gs_cause_name(gp->cause), -1, SQLITE_STATIC);
            ok = gs_xdb_row(x, g);
            for (size_t j = gp->first_piece; ok && j < gp->first_piece + gp->n_pieces; j++) {
                const gs_gap_piece *pc = &d->pieces[j];
                sqlite3_bind_int64(p, 1, ++pid);
                sqlite3_bind_int64(p, 2, gid);
                sqlite3_bind_int(p, 3, d->device);
                sqlite3_bind_int64(p, 4, pc->start_ns);
                sqlite3_bind_int64(p, 5, pc->end_ns);
                sqlite3_bind_int64(p, 6, pc->end_ns - pc->start_ns);
                sqlite3_bind_text(p, 7, gs_cause_name(pc->cause), -1, SQLITE_STATIC);
                gs_xdb_bind_i64(p, 8, pc->worker, -1);
                gs_xdb_bind_i64(p, 9, pc->holder, -1);
                if (pc->detail >= 0 && (size_t)pc->detail < a->n_details)
                    sqlite3_bind_text(p, 10, a->details[pc->detail].detail, -1, SQLITE_STATIC);
                ok = gs_xdb_row(x, p);
            }
        }
    }
    sqlite3_finalize(g);
    sqlite3_finalize(p);
    return ok;
}

static int put_causes(gs_xdb *x, const gs_analysis *a)
{
    sqlite3_stmt *st = gs_xdb_prepare(x, "INSERT INTO causes VALUES (?, ?, ?, ?, ?, ?, ?)");
    int ok = st != NULL;
    for (int c = 0; ok && c < GS_CAUSE_COUNT; c++) {
        sqlite3_bind_text(st, 1, gs_cause_name((gs_cause)c), -1, SQLITE_STATIC);
        sqlite3_bind_int(st, 2, c);
        sqlite3_bind_text(st, 3, gs_cause_family((gs_cause)c), -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 4, gs_cause_description((gs_cause)c), -1, SQLITE_STATIC);
        sqlite3_bind_double(st, 5, a->cause_s[c]);
        sqlite3_bind_double(st, 6, a->idle_s > 0 ? a->cause_s[c] / a->idle_s : 0.0);
        sqlite3_bind_double(st, 7, a->kcause_s[c]);
        ok = gs_xdb_row(x, st);
    }
    sqlite3_finalize(st);
    return ok;
}

/* A job seen in the timeline's marks. */
typedef struct {
    int32_t process;
    int64_t id, submitted, done;
    char status[32];
    int verified;
} mark_job;

static int cmp_mark_job(const void *pa, const void *pb)
{
    const mark_job *a = pa, *b = pb;
    if (a->process != b->process)
        return a->process < b->process ? -1 : 1;
    return (a->id > b->id) - (a->id < b->id);
}

static void arg_word(char *out, size_t cap, const char *args, const char *key)
{
    const char *p = strstr(args, key);
    out[0] = '\0';
    if (p) {
        p += strlen(key);
        size_t n = strcspn(p, ";");
        snprintf(out, cap, "%.*s", (int)(n < cap ? n : cap - 1), p);
    }
}

/* jobs.csv's records (a merged run's come in process order, meta
 * process.<k>.jobs of them each), else one job per submit / job_done mark. */
static int put_jobs(gs_xdb *x, const gs_run *r)
{
    sqlite3_stmt *st = gs_xdb_prepare(
        x, "INSERT OR REPLACE INTO jobs VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
    if (!st)
        return 0;
    int ok = 1;
    int32_t proc = 0;
    size_t proc_end = r->n_jobs;   /* the records of process proc end here */
    char key[64];
    const char *c = gs_timeline_meta_get(r->tl, "process.0.jobs");
    if (c)
        proc_end = (size_t)strtoul(c, NULL, 10);
    for (size_t i = 0; ok && i < r->n_jobs; i++) {
        const gs_job_record *j = &r->job_records[i];
        while (i >= proc_end) {
            snprintf(key, sizeof key, "process.%d.jobs", (int)proc + 1);
            if (!(c = gs_timeline_meta_get(r->tl, key))) {
                proc_end = r->n_jobs;
                break;
            }
            proc++;
            proc_end += (size_t)strtoul(c, NULL, 10);
        }
        int64_t from = j->intended_ns >= 0 ? j->intended_ns : j->submitted_ns;
        sqlite3_bind_int(st, 1, proc);
        sqlite3_bind_int64(st, 2, (int64_t)j->id);
        sqlite3_bind_text(st, 3, j->kind, -1, SQLITE_STATIC);
        sqlite3_bind_int64(st, 4, j->partitions);
        sqlite3_bind_text(st, 5, j->status, -1, SQLITE_STATIC);
        sqlite3_bind_int(st, 6, j->verified);
        gs_xdb_bind_i64(st, 7, j->intended_ns, -1);
        gs_xdb_bind_i64(st, 8, j->submitted_ns, -1);
        gs_xdb_bind_i64(st, 9, j->done_ns, -1);
        if (j->done_ns >= 0 && from >= 0 && !strcmp(j->status, "ok"))
            sqlite3_bind_int64(st, 10, j->done_ns - from);
        sqlite3_bind_text(st, 11, j->error, -1, SQLITE_STATIC);
        ok = gs_xdb_row(x, st);
    }
    size_t n, m = 0;
    const gs_span *sp = gs_timeline_spans(r->tl, &n);
    mark_job *v = r->n_jobs ? NULL : malloc((n + 1) * sizeof *v);
    for (size_t i = 0; v && i < n; i++) {
        const gs_span *s = &sp[i];
        int sub = gs_vocab_is(s->name, GS_V_SUBMIT), done = gs_vocab_is(s->name, GS_V_JOB_DONE);
        if (s->kind != GS_SPAN_MARK || s->job < 0 || !(sub || done))
            continue;
        mark_job *mj = &v[m++];
        *mj = (mark_job){gs_timeline_lane(r->tl, s->lane)->process, s->job,
                         sub ? s->start_ns : -1, done ? s->start_ns : -1, "pending", 0};
        if (done) {
            char w[32];
            arg_word(mj->status, sizeof mj->status, s->args, "status=");
            arg_word(w, sizeof w, s->args, "verified=");
            mj->verified = atoi(w);
        }
    }
    if (v)
        qsort(v, m, sizeof *v, cmp_mark_job);
    for (size_t i = 0; ok && i < m;) {
        mark_job j = v[i++];
        for (; i < m && !cmp_mark_job(&v[i], &j); i++) {
            if (v[i].submitted >= 0)
                j.submitted = v[i].submitted;
            if (v[i].done >= 0) {
                j.done = v[i].done;
                memcpy(j.status, v[i].status, sizeof j.status);
                j.verified = v[i].verified;
            }
        }
        sqlite3_bind_int(st, 1, j.process);
        sqlite3_bind_int64(st, 2, j.id);
        sqlite3_bind_text(st, 5, j.status, -1, SQLITE_TRANSIENT);
        sqlite3_bind_int(st, 6, j.verified);
        gs_xdb_bind_i64(st, 8, j.submitted, -1);
        gs_xdb_bind_i64(st, 9, j.done, -1);
        if (j.submitted >= 0 && j.done >= 0 && !strcmp(j.status, "ok"))
            sqlite3_bind_int64(st, 10, j.done - j.submitted);
        ok = gs_xdb_row(x, st);
    }
    free(v);
    sqlite3_finalize(st);
    return ok;
}

int gs_xdb_analysis(gs_xdb *x, const gs_run *r)
{
    return put_devices(x, r->an) && put_gaps(x, r->an) && put_causes(x, r->an) && put_jobs(x, r);
}

#else
typedef int gs_export_analysis_unused;
#endif
