/*
 * One job array of gapscope runs on Slurm: the script, the submission, the
 * wait, the fates of the tasks (slurm.h says what a driver sees).  Used by
 * slurm_sweep.c and slurm_gate.c.
 *
 * The record in OUT/slurm, all plain text:
 *   task.sh          the task's shell lines (a resume must bring the same)
 *   jobs             "JOBID ARRAY" per submission, in order ("1234 0-17%4")
 *   array-K.sbatch   the script of submission K
 *   task-NNN.status  written by task NNN: key=value lines (task, job, node,
 *                    host, gpus, gpu_model, start; then end, signal, exit)
 *   task-NNN.log     its standard output and error (appended to on a resume)
 *
 * A task's fate, decided at each look (every poll_s): Slurm's word from
 * squeue (live and recently ended tasks), else from sacct, else none.
 * COMPLETED with exit=0 in the status file is done; a failed state
 * (CANCELLED, FAILED, TIMEOUT, NODE_FAIL, OUT_OF_MEMORY, PREEMPTED, ...)
 * is failed; without a word from Slurm the status file decides, and a
 * task with neither is LOST after a grace (the scheduler forgets ended
 * jobs; a shared filesystem may show a file late).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../common/outfile.h"
#include "slurm.h"

#define GRACE_S 60.0          /* a finished task's status file may show late on a shared filesystem */
#define QUERY_TIMEOUT_S 120.0 /* one sbatch/squeue/sacct call */

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void status_path(char *buf, size_t cap, const gs_slurm_array *a, int i)
{
    snprintf(buf, cap, "%.490s/task-%03d.status", a->dir, i);
}

/* Reads the jobs record: each line's array into the tasks' job. */
static gs_status read_jobs(gs_slurm_array *a, gs_err *err)
{
    char path[GS_SCN_PATH_MAX + 16], *text = NULL;
    size_t len;
    snprintf(path, sizeof path, "%s/jobs", a->dir);
    if (access(path, F_OK) != 0)
        return GS_OK;
    gs_status st = gs_read_file(&text, &len, path, err);
    char *save = NULL;
    int lineno = 0;
    for (char *line = st == GS_OK ? strtok_r(text, "\n", &save) : NULL; line; line = strtok_r(NULL, "\n", &save)) {
        lineno++;
        char job[32], spec[4000], where[GS_SCN_PATH_MAX + 32], fake[4100];
        gs_slurm_state *ss = NULL;
        size_t n = 0;
        snprintf(where, sizeof where, "%s:%d", path, lineno);
        if (sscanf(line, "%31s %3999s", job, spec) != 2) {
            st = gs_err_set(err, GS_ERR_FORMAT, "slurm", where, "expected 'JOBID ARRAY', got '%.100s'", line);
            break;
        }
        spec[strcspn(spec, "%")] = '\0';
        snprintf(fake, sizeof fake, "%s_[%s]|PENDING|", job, spec); /* read as squeue would print it */
        gs_err perr;
        gs_err_clear(&perr);
        if (gs_slurm_parse_squeue(&ss, &n, fake, &perr) != GS_OK) {
            free(ss);
            st = gs_err_set(err, GS_ERR_FORMAT, "slurm", where, "expected 'JOBID ARRAY', got '%.100s'", line);
            break;
        }
        for (size_t k = 0; k < n; k++)
            if (ss[k].task >= 0 && ss[k].task < a->n) {
                snprintf(a->t[ss[k].task].job, sizeof a->t[0].job, "%s", job);
                a->t[ss[k].task].phase = GS_TASK_PENDING;
            }
        free(ss);
        a->rounds++;
    }
    free(text);
    return st;
}

gs_status gs_slurm_array_open(gs_slurm_array *a, const char *out, const char *name, int n, const char *body,
                              const gs_slurm_opts *o, gs_err *err)
{
    memset(a, 0, sizeof *a);
    snprintf(a->out, sizeof a->out, "%s", out);
    snprintf(a->dir, sizeof a->dir, "%.480s/slurm", out);
    snprintf(a->name, sizeof a->name, "%s", name);
    a->n = n;
    a->t = calloc((size_t)(n > 0 ? n : 1), sizeof *a->t);
    if (!a->t)
        return GS_ERR(err, GS_ERR_NOMEM, "slurm", "out of memory");
    for (int i = 0; i < n; i++)
        a->t[i].exit_code = -1;
    char path[GS_SCN_PATH_MAX + 16], *saved = NULL;
    size_t len;
    snprintf(path, sizeof path, "%s/task.sh", a->dir);
    gs_status st = GS_OK;
    if (o->resume) {
        if (access(path, R_OK) != 0)
            return gs_err_set(err, GS_ERR_ARG, "slurm", path, "--resume: no earlier submission in %s", out);
        if ((st = gs_read_file(&saved, &len, path, err)) != GS_OK)
            return st;
        int same = !strcmp(saved, body);
        free(saved);
        if (!same)
            return gs_err_set(err, GS_ERR_MISMATCH, "slurm", path,
                              "--resume: %s was submitted with other options (this file holds its tasks' "
                              "command): give the same options, or another --out", out);
        return read_jobs(a, err);
    }
    snprintf(path, sizeof path, "%s/jobs", a->dir);
    if (access(path, F_OK) == 0)
        return gs_err_set(err, GS_ERR_ARG, "slurm", path,
                          "%s holds an earlier Slurm submission: --resume continues it, or choose another --out",
                          out);
    if (o->dry_run)
        return GS_OK;
    if ((st = gs_mkdir_p(a->dir, err)) != GS_OK)
        return st;
    snprintf(path, sizeof path, "%s/task.sh", a->dir);
    gs_outfile of;
    if ((st = gs_out_open(&of, path, err)) != GS_OK)
        return st;
    fputs(body, of.f);
    return gs_out_close(&of, 1, err);
}

void gs_slurm_array_close(gs_slurm_array *a)
{
    free(a->t);
    a->t = NULL;
}

void gs_slurm_array_counts(const gs_slurm_array *a, int counts[GS_TASK_PHASE_COUNT])
{
    memset(counts, 0, GS_TASK_PHASE_COUNT * sizeof *counts);
    for (int i = 0; i < a->n; i++)
        counts[a->t[i].phase]++;
}

/* The status file of task i into t (fields it names); 1 when it holds an exit status. */
static int read_status(gs_slurm_array *a, int i)
{
    char path[GS_SCN_PATH_MAX + 32], line[512];
    status_path(path, sizeof path, a, i);
    FILE *f = fopen(path, "r");
    gs_slurm_task *t = &a->t[i];
    int have_exit = 0;
    if (!f)
        return 0;
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = '\0';
        char *eq = strchr(line, '=');
        if (!eq)
            continue;
        *eq = '\0';
        const char *v = eq + 1;
        if (!strcmp(line, "node") && *v)
            snprintf(t->node, sizeof t->node, "%s", v);
        else if (!strcmp(line, "host"))
            snprintf(t->host, sizeof t->host, "%s", v);
        else if (!strcmp(line, "gpus"))
            snprintf(t->gpus, sizeof t->gpus, "%s", v);
        else if (!strcmp(line, "start")) /* "%N" where date has none: whole seconds */
            t->start_s = strtod(v, NULL);
        else if (!strcmp(line, "end"))
            t->end_s = strtod(v, NULL);
        else if (!strcmp(line, "exit") && *v) {
            t->exit_code = atoi(v);
            have_exit = 1;
        }
    }
    fclose(f);
    return have_exit;
}

int gs_slurm_array_beside(const gs_slurm_array *a, const unsigned char *ran, unsigned char *beside)
{
    int k = 0;
    for (int i = 0; i < a->n; i++) {
        const gs_slurm_task *t = &a->t[i];
        const char *h = t->host[0] ? t->host : t->node;
        beside[i] = 0;
        for (int j = 0; j < a->n && !beside[i] && ran[i] && *h && t->start_s > 0 && t->end_s > 0; j++) {
            const gs_slurm_task *u = &a->t[j];
            beside[i] = j != i && ran[j] && u->start_s > 0 && u->end_s > 0 &&
                        !strcmp(h, u->host[0] ? u->host : u->node) && t->start_s < u->end_s && u->start_s < t->end_s;
        }
        k += beside[i];
    }
    return k;
}

void gs_slurm_beside_note(char *out, size_t cap, int k, int n)
{
    snprintf(out, cap,
             "%d of %d runs ran beside another run on the same host at the same time: their timings include each "
             "other's load (CPU, memory bandwidth, PCIe, and the GPU where they share one).  To measure each run "
             "alone, submit with --sbatch --exclusive (a node per task) or --array-max 1",
             k, n);
}

/* Runs a query command; "Invalid job id" (jobs the controller forgot) is an empty answer. */
static gs_status query(char **text, int *ok, const char *const *argv, gs_err *err)
{
    char errbuf[512];
    int rc;
    gs_status st = gs_slurm_exec(text, errbuf, sizeof errbuf, &rc, argv, QUERY_TIMEOUT_S, err);
    *ok = st == GS_OK && rc == 0;
    if (st == GS_OK && rc != 0 && strstr(errbuf, "Invalid job id")) {
        (*text)[0] = '\0';
        *ok = 1;
    }
    if (st == GS_OK && !*ok)
        gs_err_set(err, GS_ERR_IO, argv[0], NULL, "%s exited %d: %s", argv[0], rc, errbuf[0] ? errbuf : "(no message)");
    return st;
}

gs_status gs_slurm_array_look(gs_slurm_array *a, const gs_slurm_opts *o, int first, int *squeue_ok, gs_err *err)
{
    char jobs[4096] = "";
    size_t jl = 0;
    for (int i = 0; i < a->n; i++) { /* the jobs of the tasks not yet ended, once each */
        gs_slurm_task *t = &a->t[i];
        if ((t->phase != GS_TASK_PENDING && t->phase != GS_TASK_RUNNING) || !t->job[0])
            continue;
        char needle[40];
        snprintf(needle, sizeof needle, ",%s,", t->job);
        char probe[4100];
        snprintf(probe, sizeof probe, ",%s,", jobs);
        if (!strstr(probe, needle) && jl + strlen(t->job) + 2 < sizeof jobs)
            jl += (size_t)snprintf(jobs + jl, sizeof jobs - jl, "%s%s", jl ? "," : "", t->job);
    }
    *squeue_ok = 1;
    if (!jobs[0])
        return GS_OK;
    gs_slurm_state *ss = NULL;
    size_t n = 0, n_sq;
    char *text = NULL, jarg[4200];
    int ok;
    gs_err qerr;
    gs_err_clear(&qerr);
    snprintf(jarg, sizeof jarg, "--jobs=%s", jobs);
    const char *sq[] = {"squeue", "--noheader", "--array", "--states=all", jarg, "--format=%i|%T|%N", NULL};
    gs_status st = query(&text, &ok, sq, &qerr);
    if (st != GS_OK || !ok) {
        free(text);
        *squeue_ok = 0;
        if (!o->quiet)
            fprintf(stderr, "gapscope %s: %s (trying again)\n", a->name, qerr.msg);
        return GS_OK;
    }
    st = gs_slurm_parse_squeue(&ss, &n, text, err);
    free(text);
    text = NULL;
    n_sq = n;
    /* Tasks squeue no longer lists: sacct, where accounting runs. */
    int missing = 0;
    for (int i = 0; st == GS_OK && i < a->n; i++) {
        gs_slurm_task *t = &a->t[i];
        if (t->phase != GS_TASK_PENDING && t->phase != GS_TASK_RUNNING)
            continue;
        int seen = 0;
        for (size_t k = 0; k < n_sq && !seen; k++)
            seen = ss[k].task == i && !strcmp(ss[k].job, t->job);
        missing += !seen;
    }
    if (st == GS_OK && missing && !a->no_sacct) {
        const char *sa[] = {"sacct", "--noheader", "--parsable2", "--allocations", jarg,
                            "--format=JobID,State,ExitCode,NodeList", NULL};
        gs_err_clear(&qerr);
        char errbuf[512];
        int rc;
        st = gs_slurm_exec(&text, errbuf, sizeof errbuf, &rc, sa, QUERY_TIMEOUT_S, &qerr);
        if (st == GS_OK && rc == 0)
            st = gs_slurm_parse_sacct(&ss, &n, text, err);
        else if (st == GS_OK && (strstr(errbuf, "accounting storage is disabled") || rc == 127)) {
            a->no_sacct = 1;
            if (!o->quiet)
                fprintf(stderr, "gapscope %s: sacct: %s; ended tasks are judged by squeue and their status files\n",
                        a->name, rc == 127 ? "not found" : "accounting storage is disabled here");
        } else if (st == GS_OK && !o->quiet)
            fprintf(stderr, "gapscope %s: sacct exited %d: %s\n", a->name, rc, errbuf);
        else if (st != GS_OK && !o->quiet)
            fprintf(stderr, "gapscope %s: %s\n", a->name, qerr.msg);
        st = st == GS_ERR_FORMAT || st == GS_ERR_NOMEM ? st : GS_OK;
        free(text);
    }
    double now = now_s();
    for (int i = 0; st == GS_OK && i < a->n; i++) {
        gs_slurm_task *t = &a->t[i];
        if (t->phase != GS_TASK_PENDING && t->phase != GS_TASK_RUNNING)
            continue;
        const gs_slurm_state *s = NULL;
        for (size_t k = 0; k < n && !s; k++) /* squeue's word first, then sacct's */
            if (ss[k].task == i && !strcmp(ss[k].job, t->job))
                s = &ss[k];
        int have_exit = read_status(a, i);
        char log[GS_SCN_PATH_MAX + 32];
        status_path(log, sizeof log, a, i);
        if (s) {
            snprintf(t->state, sizeof t->state, "%s", s->state);
            if (s->nodes[0])
                snprintf(t->node, sizeof t->node, "%s", s->nodes);
        }
        gs_task_phase p = s ? gs_slurm_phase(s->state) : GS_TASK_PHASE_COUNT;
        if (p == GS_TASK_PENDING || p == GS_TASK_RUNNING) {
            t->phase = p;
            t->gone_s = 0;
        } else if (p == GS_TASK_FAILED) {
            t->phase = GS_TASK_FAILED;
            int code = have_exit ? t->exit_code : s->exit_code;
            snprintf(t->why, sizeof t->why, "%s%s%s", s->state, t->node[0] ? " on " : "", t->node);
            if (code >= 0)
                snprintf(t->why + strlen(t->why), sizeof t->why - strlen(t->why), ", exit %d", code);
        } else if (have_exit) { /* COMPLETED, or no word from Slurm: the task's own */
            t->phase = t->exit_code == 0 ? GS_TASK_DONE : GS_TASK_FAILED;
            if (!s)
                snprintf(t->state, sizeof t->state, "%s", t->exit_code == 0 ? "COMPLETED" : "FAILED");
            snprintf(t->why, sizeof t->why, "exit %d%s%s", t->exit_code, t->node[0] ? " on " : "", t->node);
        } else {
            if (t->gone_s == 0)
                t->gone_s = now;
            if (first || now - t->gone_s >= GRACE_S) {
                t->phase = GS_TASK_FAILED;
                snprintf(t->state, sizeof t->state, "%s", s ? "NO-STATUS" : "LOST");
                if (s)
                    snprintf(t->why, sizeof t->why, "Slurm says %.20s but %.120s has no exit status (is OUT on "
                             "a shared filesystem?)", s->state, log);
                else
                    snprintf(t->why, sizeof t->why, "no longer known to squeue%s, and %.120s has no exit status",
                             a->no_sacct ? "" : " or sacct", log);
            }
        }
    }
    free(ss);
    return st;
}
