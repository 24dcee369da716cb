/*
 * The run-directory checker behind the soak (issue 16, part 3): proves from
 * the files a run leaves, independently of the engine's own bookkeeping,
 * that every submitted job ended exactly once and no partition was proved
 * twice.
 *
 * Sources: spans.csv (the driver's `submit` marks, the engine's `job_done`
 * marks with their status, the GPU workers' `prove_start` steps and the
 * finalizers' `process_result` steps, each carrying job and partition) and
 * jobs.csv (one row per submitted job).  Checks, each failure naming the
 * job (and partition):
 *   - every job id is submitted once; every submitted job has exactly one
 *     jobs.csv row and exactly one job_done mark, and no other job has any;
 *   - the run drained within its timeout (meta run.drained is not 0: a
 *     timed-out drain cancels what is left, which would look like ends)
 *     and no job is left "pending";
 *   - jobs.csv's status equals the status its job_done mark carries;
 *   - per (job, partition): at most one prove_start and at most one
 *     process_result, the partition index below the job's partition count;
 *   - a completed ("ok") job proved and stored every partition exactly once.
 * Counts (completed, failed, cancelled, proved partitions, cancellation
 * requests) come back in gs_run_check for the soak's figures.
 *
 * Memory: two arrays indexed by job (sorted ids, binary search) and one
 * counter pair per partition; linear in the run's size.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include "../diag/jobs.h"
#include "../timeline/timeline.h"
#include "run.h"

typedef struct job_ix {
    int64_t id;
    size_t row;              /* jobs.csv row, or SIZE_MAX */
    uint32_t submits, done, partitions;
    char done_status[32];
    uint32_t *proved, *stored; /* per partition */
} job_ix;

static int cmp_id(const void *a, const void *b)
{
    int64_t x = ((const job_ix *)a)->id, y = ((const job_ix *)b)->id;
    return (x > y) - (x < y);
}

static job_ix *find(job_ix *v, size_t n, int64_t id)
{
    job_ix key = {.id = id};
    return bsearch(&key, v, n, sizeof *v, cmp_id);
}

/* The value of `key=` in a span's args ("status=ok;verified=1"). */
static void arg(char *out, size_t cap, const char *args, const char *key)
{
    out[0] = '\0';
    size_t kl = strlen(key);
    for (const char *p = args; p && *p;) {
        if (!strncmp(p, key, kl) && p[kl] == '=') {
            const char *v = p + kl + 1;
            size_t l = strcspn(v, ";");
            snprintf(out, cap, "%.*s", (int)(l < cap ? l : cap - 1), v);
            return;
        }
        p = strchr(p, ';');
        if (p)
            p++;
    }
}

gs_status gs_scn_check_run(const char *dir, gs_run_check *c, gs_err *err)
{
    char path[GS_SCN_PATH_MAX + 32];
    gs_timeline *tl = NULL;
    gs_job_record *rows = NULL;
    size_t nrows = 0, njobs = 0;
    job_ix *jobs = NULL;
    gs_status st;
    memset(c, 0, sizeof *c);

    snprintf(path, sizeof path, "%s/jobs.csv", dir);
    if ((st = gs_jobs_read_csv(&rows, &nrows, path, err)) != GS_OK)
        return st;
    snprintf(path, sizeof path, "%s/spans.csv", dir);
    if ((st = gs_timeline_read_csv(&tl, path, err)) != GS_OK)
        goto done;
    size_t nsp;
    const gs_span *sp = gs_timeline_spans(tl, &nsp);
    const char *drained = gs_timeline_meta_get(tl, "run.drained");
    if (drained && !strcmp(drained, "0")) {
        st = gs_err_set(err, GS_ERR_VERIFY, "check", dir,
                        "the run did not finish within its drain timeout (run.drained = 0)");
        goto done;
    }

    /* Jobs: every id named by a submit mark or a jobs.csv row. */
    size_t cap = nrows + 1;
    for (size_t i = 0; i < nsp; i++)
        cap += sp[i].kind == GS_SPAN_MARK && gs_vocab_is(sp[i].name, GS_V_SUBMIT);
    jobs = calloc(cap, sizeof *jobs);
    if (!jobs) {
        st = GS_ERR(err, GS_ERR_NOMEM, "check", "out of memory");
        goto done;
    }
    for (size_t i = 0; i < nrows; i++)
        jobs[njobs++] = (job_ix){.id = (int64_t)rows[i].id, .row = i, .partitions = rows[i].partitions};
    for (size_t i = 0; i < nsp; i++)
        if (sp[i].kind == GS_SPAN_MARK && gs_vocab_is(sp[i].name, GS_V_SUBMIT))
            jobs[njobs++] = (job_ix){.id = sp[i].job, .row = SIZE_MAX};
    qsort(jobs, njobs, sizeof *jobs, cmp_id);
    /* Merge duplicates: a jobs.csv row and its submit mark are one job. */
    size_t k = 0;
    for (size_t i = 0; i < njobs; i++) {
        if (k && jobs[k - 1].id == jobs[i].id) {
            job_ix *m = &jobs[k - 1];
            if (jobs[i].row != SIZE_MAX) {
                if (m->row != SIZE_MAX) {
                    st = gs_err_set(err, GS_ERR_VERIFY, "check", dir, "job %lld has two jobs.csv rows",
                                    (long long)m->id);
                    goto done;
                }
                m->row = jobs[i].row;
                m->partitions = jobs[i].partitions;
            } else
                m->submits++;
            continue;
        }
        jobs[k] = jobs[i];
        jobs[k].submits = jobs[i].row == SIZE_MAX;
        k++;
    }
    njobs = k;
    for (size_t i = 0; i < njobs; i++) {
        job_ix *j = &jobs[i];
        if (j->submits != 1 || j->row == SIZE_MAX) {
            st = gs_err_set(err, GS_ERR_VERIFY, "check", dir, "job %lld: %u submit marks, %s jobs.csv row",
                            (long long)j->id, j->submits, j->row == SIZE_MAX ? "no" : "one");
            goto done;
        }
        if (j->partitions == 0 || j->partitions > 4096) {
            st = gs_err_set(err, GS_ERR_VERIFY, "check", dir, "job %lld: %u partitions in jobs.csv",
                            (long long)j->id, j->partitions);
            goto done;
        }
        j->proved = calloc(2 * (size_t)j->partitions, sizeof *j->proved);
        if (!j->proved) {
            st = GS_ERR(err, GS_ERR_NOMEM, "check", "out of memory");
            goto done;
        }
        j->stored = j->proved + j->partitions;
    }
    c->submitted = njobs;

    /* The engine's marks and the partition steps. */
    for (size_t i = 0; i < nsp; i++) {
        const gs_span *s = &sp[i];
        int done_mark = s->kind == GS_SPAN_MARK && gs_vocab_is(s->name, GS_V_JOB_DONE);
        int prove = s->kind == GS_SPAN_STEP && gs_vocab_is(s->name, GS_V_PROVE_START);
        int store = s->kind == GS_SPAN_STEP && gs_vocab_is(s->name, GS_V_PROCESS_RESULT);
        if (s->kind == GS_SPAN_MARK && gs_vocab_is(s->name, GS_V_JOB_CANCEL))
            c->cancel_requests++;
        if (!done_mark && !prove && !store)
            continue;
        job_ix *j = find(jobs, njobs, s->job);
        if (!j) {
            st = gs_err_set(err, GS_ERR_VERIFY, "check", dir, "%s of job %d, which was never submitted",
                            s->name, s->job);
            goto done;
        }
        if (done_mark) {
            if (j->done++ == 0)
                arg(j->done_status, sizeof j->done_status, s->args, "status");
            continue;
        }
        if (s->part < 0 || (uint32_t)s->part >= j->partitions) {
            st = gs_err_set(err, GS_ERR_VERIFY, "check", dir, "%s of job %lld partition %d (of %u)", s->name,
                            (long long)j->id, s->part, j->partitions);
            goto done;
        }
        uint32_t *ctr = prove ? &j->proved[s->part] : &j->stored[s->part];
        if (++*ctr > 1) {
            st = gs_err_set(err, GS_ERR_VERIFY, "check", dir, "job %lld partition %d: %s twice",
                            (long long)j->id, s->part, prove ? "proved" : "stored");
            goto done;
        }
        if (prove)
            c->partitions_proved++;
    }

    for (size_t i = 0; i < njobs; i++) {
        job_ix *j = &jobs[i];
        const gs_job_record *r = &rows[j->row];
        if (!strcmp(r->status, "pending")) {
            c->pending++;
            st = gs_err_set(err, GS_ERR_VERIFY, "check", dir, "job %lld never finished (pending)",
                            (long long)j->id);
            goto done;
        }
        if (j->done != 1) {
            st = gs_err_set(err, GS_ERR_VERIFY, "check", dir, "job %lld ended %u times (job_done marks)",
                            (long long)j->id, j->done);
            goto done;
        }
        if (strcmp(r->status, j->done_status)) {
            st = gs_err_set(err, GS_ERR_VERIFY, "check", dir, "job %lld: jobs.csv says %s, the timeline %s",
                            (long long)j->id, r->status, j->done_status);
            goto done;
        }
        if (!strcmp(r->status, "ok")) {
            c->completed++;
            for (uint32_t p = 0; p < j->partitions; p++)
                if (j->proved[p] != 1 || j->stored[p] != 1) {
                    st = gs_err_set(err, GS_ERR_VERIFY, "check", dir,
                                    "completed job %lld partition %u: proved %u, stored %u times",
                                    (long long)j->id, p, j->proved[p], j->stored[p]);
                    goto done;
                }
        } else if (!strcmp(r->status, "GS_ERR_CANCELLED"))
            c->cancelled++;
        else
            c->failed++;
    }
    st = GS_OK;
done:
    for (size_t i = 0; jobs && i < njobs; i++)
        free(jobs[i].proved);
    free(jobs);
    free(rows);
    gs_timeline_destroy(tl);
    return st;
}
