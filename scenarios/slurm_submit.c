/*
 * Submitting a job array and waiting for it (slurm.h, "an array of runs"):
 * the sbatch script, `sbatch --parsable`, the wait with its progress lines,
 * and the list of the tasks that did not end done.  The record it keeps in
 * OUT/slurm is described in slurm_array.c.
 *
 * The script: #SBATCH lines (array, job name, output, working directory,
 * partition, GRES, time, the user's own), then the task: its status file
 * opened (node, host, GPUs), SIGTERM trapped so that a cancelled task
 * still records its exit status, the body (the caller's gapscope command,
 * seeing $i and $gs), the status file closed (end, signal, exit).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../common/outfile.h"
#include "slurm.h"

#define SUBMIT_TIMEOUT_S 300.0
#define FAIL_LIMIT_S 600.0 /* squeue failing this long ends the wait */
#define QUIET_PROGRESS_S 60.0

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* "0-3,7,9-10%4" of the tasks with mark[i] set. */
static void array_spec(char *buf, size_t cap, const unsigned char *mark, int n, int max)
{
    size_t k = 0;
    buf[0] = '\0';
    for (int i = 0; i < n; i++) {
        if (!mark[i])
            continue;
        int j = i;
        while (j + 1 < n && mark[j + 1])
            j++;
        k += (size_t)snprintf(buf + k, k < cap ? cap - k : 0, j > i ? "%s%d-%d" : "%s%d", k ? "," : "", i, j);
        i = j;
    }
    if (max > 0 && k < cap)
        snprintf(buf + k, cap - k, "%%%d", max);
}

/* One "#SBATCH OPT=VALUE" line with the value quoted when it needs it. */
static void sbatch_line(FILE *f, const char *opt, const char *val)
{
    char q[4200];
    int plain = strcspn(val, " \t'\"\\$`") == strlen(val);
    if (plain || !gs_slurm_shell_quote(q, sizeof q, val))
        fprintf(f, "#SBATCH %s=%s\n", opt, val);
    else
        fprintf(f, "#SBATCH %s=%s\n", opt, q);
}

static void write_script(FILE *f, const gs_slurm_array *a, const char *spec, const char *body,
                         const gs_slurm_opts *o, const char *abs_dir, const char *cwd, const char *bin)
{
    char q[4200], jobname[200], path[4200];
    const char *base = strrchr(a->out, '/');
    snprintf(jobname, sizeof jobname, "gapscope-%s-%.100s", a->name, base && base[1] ? base + 1 : a->out);
    for (char *c = jobname; *c; c++)
        if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') || *c == '-' ||
              *c == '_' || *c == '.'))
            *c = '_';
    fprintf(f, "#!/bin/bash\n");
    fprintf(f, "#SBATCH --job-name=%s\n", jobname);
    fprintf(f, "#SBATCH --array=%s\n", spec);
    snprintf(path, sizeof path, "%s/task-%%3a.log", abs_dir);
    sbatch_line(f, "--output", path);
    fprintf(f, "#SBATCH --open-mode=append\n");
    sbatch_line(f, "--chdir", cwd);
    fprintf(f, "#SBATCH --ntasks=1\n");
    if (o->partition)
        sbatch_line(f, "--partition", o->partition);
    if (o->gpus_per_task > 0)
        fprintf(f, "#SBATCH --gres=gpu:%d\n", o->gpus_per_task);
    if (o->time_limit)
        sbatch_line(f, "--time", o->time_limit);
    for (int k = 0; k < o->n_sbatch_args; k++)
        fprintf(f, "#SBATCH %s\n", o->sbatch_args[k]);
    fprintf(f, "#\n# Written by gapscope %s --slurm: array task I is run I of %s; it records\n"
               "# its node, host, GPUs and exit status in %s/task-III.status.\n",
            a->name, a->out, abs_dir);
    fprintf(f, "set -u\n");
    fprintf(f, "i=${SLURM_ARRAY_TASK_ID:?not started as a Slurm array task}\n");
    gs_slurm_shell_quote(q, sizeof q, bin);
    fprintf(f, "gs=%s\n", q);
    gs_slurm_shell_quote(q, sizeof q, abs_dir);
    fprintf(f, "status=$(printf '%%s/task-%%03d.status' %s \"$i\")\n", q);
    fprintf(f, "gpu_model=\n"
               "if [ -n \"${CUDA_VISIBLE_DEVICES:-}\" ] && command -v nvidia-smi >/dev/null 2>&1; then\n"
               "  gpu_model=$(nvidia-smi --query-gpu=name --format=csv,noheader -i \"$CUDA_VISIBLE_DEVICES\" "
               "2>/dev/null | paste -sd, -)\n"
               "fi\n");
    fprintf(f, "{\n"
               "  echo \"task=$i\"\n"
               "  echo \"job=${SLURM_ARRAY_JOB_ID:-}_$i\"\n"
               "  echo \"node=${SLURMD_NODENAME:-}\"\n"
               "  echo \"host=$(hostname 2>/dev/null)\"\n"
               "  echo \"gpus=${CUDA_VISIBLE_DEVICES:-${SLURM_JOB_GPUS:-}}\"\n"
               "  echo \"gpu_model=$gpu_model\"\n"
               "  echo \"start=$(date +%%s.%%N)\"\n"
               "} > \"$status.tmp\" && mv -f \"$status.tmp\" \"$status\"\n");
    fprintf(f, "sig=\ntrap 'sig=TERM' TERM\n");
    fputs(body, f);
    fprintf(f, "rc=$?\n"
               "{ cat \"$status\"; echo \"end=$(date +%%s.%%N)\"; echo \"signal=$sig\"; echo \"exit=$rc\"; } "
               "> \"$status.tmp\" && mv -f \"$status.tmp\" \"$status\"\n"
               "exit $rc\n");
}

/* Submits the tasks marked; dry: prints the script instead. */
static gs_status submit(gs_slurm_array *a, const unsigned char *mark, const char *body, const gs_slurm_opts *o,
                        gs_err *err)
{
    char spec[8192], abs_dir[4096], cwd[4096], bin[4096], path[GS_SCN_PATH_MAX + 32];
    int count = 0;
    for (int i = 0; i < a->n; i++)
        count += mark[i];
    array_spec(spec, sizeof spec, mark, a->n, o->array_max);
    if (gs_path_abs(abs_dir, sizeof abs_dir, a->dir) || !getcwd(cwd, sizeof cwd))
        return GS_ERR(err, GS_ERR_IO, "slurm", "cannot make %s absolute", a->dir);
    if (o->gapscope)
        snprintf(bin, sizeof bin, "%s", o->gapscope);
    else {
        ssize_t k = readlink("/proc/self/exe", bin, sizeof bin - 1);
        if (k <= 0)
            return GS_ERR(err, GS_ERR_IO, "slurm", "/proc/self/exe: %s (give --gapscope PATH)", strerror(errno));
        bin[k] = '\0';
    }
    if (o->dry_run) {
        write_script(stdout, a, spec, body, o, abs_dir, cwd, bin);
        return GS_OK;
    }
    snprintf(path, sizeof path, "%s/array-%d.sbatch", a->dir, a->rounds);
    gs_outfile of;
    gs_status st = gs_out_open(&of, path, err);
    if (st != GS_OK)
        return st;
    write_script(of.f, a, spec, body, o, abs_dir, cwd, bin);
    if ((st = gs_out_close(&of, 1, err)) != GS_OK)
        return st;
    for (int i = 0; i < a->n; i++) /* a resubmitted task starts with a clean record */
        if (mark[i]) {
            char sp[GS_SCN_PATH_MAX + 32];
            snprintf(sp, sizeof sp, "%.3900s/task-%03d.status", a->dir, i);
            unlink(sp);
        }
    const char *argv[] = {"sbatch", "--parsable", path, NULL};
    char *text = NULL, errbuf[1024], job[32];
    int rc;
    if ((st = gs_slurm_exec(&text, errbuf, sizeof errbuf, &rc, argv, SUBMIT_TIMEOUT_S, err)) != GS_OK)
        return st;
    if (rc != 0) {
        free(text);
        return gs_err_set(err, GS_ERR_IO, "sbatch", path, "sbatch exited %d: %s", rc,
                          errbuf[0] ? errbuf : rc == 127 ? "not found (is Slurm's client installed?)" : "(no message)");
    }
    st = gs_slurm_parse_sbatch(job, sizeof job, text, err);
    free(text);
    if (st != GS_OK)
        return st;
    snprintf(path, sizeof path, "%s/jobs", a->dir);
    FILE *f = fopen(path, "a");
    if (!f || fprintf(f, "%s %s\n", job, spec) < 0 || fclose(f) != 0)
        return gs_err_set(err, GS_ERR_IO, "slurm", path, "cannot record job %s: %s", job, strerror(errno));
    a->rounds++;
    for (int i = 0; i < a->n; i++)
        if (mark[i]) {
            gs_slurm_task *t = &a->t[i];
            memset(t, 0, sizeof *t);
            t->exit_code = -1;
            t->phase = GS_TASK_PENDING;
            snprintf(t->job, sizeof t->job, "%s", job);
            snprintf(t->state, sizeof t->state, "PENDING");
        }
    if (!o->quiet)
        fprintf(stderr, "gapscope %s: submitted array job %s: %d task%s (--array=%s)%s%s\n", a->name, job, count,
                count == 1 ? "" : "s", spec, o->partition ? " on partition " : "",
                o->partition ? o->partition : "");
    return GS_OK;
}

static void progress(const gs_slurm_array *a, FILE *f)
{
    int c[GS_TASK_PHASE_COUNT];
    gs_slurm_array_counts(a, c);
    fprintf(f, "gapscope %s: %d tasks: %d pending, %d running, %d done, %d failed\n", a->name, a->n,
            c[GS_TASK_PENDING] + c[GS_TASK_UNSUBMITTED], c[GS_TASK_RUNNING], c[GS_TASK_DONE], c[GS_TASK_FAILED]);
}

gs_status gs_slurm_array_run(gs_slurm_array *a, const char *body, const gs_slurm_opts *o, gs_err *err)
{
    unsigned char *mark = calloc((size_t)(a->n > 0 ? a->n : 1), 1);
    gs_status st = GS_OK;
    int squeue_ok, todo = 0;
    if (!mark)
        return GS_ERR(err, GS_ERR_NOMEM, "slurm", "out of memory");
    if (o->resume && (st = gs_slurm_array_look(a, o, 1, &squeue_ok, err)) != GS_OK)
        goto done;
    if (o->resume && !squeue_ok) {
        st = GS_ERR(err, GS_ERR_IO, "slurm", "--resume: squeue failed: cannot tell which tasks still run");
        goto done;
    }
    for (int i = 0; i < a->n; i++) {
        gs_slurm_task *t = &a->t[i];
        if (o->resume && t->phase == GS_TASK_DONE && a->have_output && !a->have_output(a, i)) {
            t->phase = GS_TASK_FAILED;
            snprintf(t->why, sizeof t->why, "ended done, but its run directory is gone or incomplete");
        }
        mark[i] = t->phase == GS_TASK_UNSUBMITTED || t->phase == GS_TASK_FAILED;
        todo += mark[i];
    }
    if (o->resume && !o->quiet) {
        progress(a, stderr);
        fprintf(stderr, "gapscope %s: --resume: %d task%s to submit again\n", a->name, todo, todo == 1 ? "" : "s");
    }
    if (todo && (st = submit(a, mark, body, o, err)) != GS_OK)
        goto done;
    if (o->dry_run)
        goto done;
    double last = now_s(), failing_since = 0;
    int shown[GS_TASK_PHASE_COUNT] = {-1};
    for (;;) {
        int c[GS_TASK_PHASE_COUNT];
        gs_slurm_array_counts(a, c);
        if (!o->quiet && (memcmp(c, shown, sizeof c) || now_s() - last >= QUIET_PROGRESS_S)) {
            progress(a, stderr);
            memcpy(shown, c, sizeof c);
            last = now_s();
        }
        if (!c[GS_TASK_PENDING] && !c[GS_TASK_RUNNING])
            break;
        if (o->stop && *o->stop)
            break;
        double until = now_s() + (o->poll_s > 0 ? o->poll_s : 5.0);
        while (now_s() < until && !(o->stop && *o->stop))
            usleep(50000);
        if (o->stop && *o->stop)
            break;
        if ((st = gs_slurm_array_look(a, o, 0, &squeue_ok, err)) != GS_OK)
            goto done;
        if (squeue_ok)
            failing_since = 0;
        else if (failing_since == 0)
            failing_since = now_s();
        else if (now_s() - failing_since > FAIL_LIMIT_S) {
            st = GS_ERR(err, GS_ERR_IO, "slurm", "squeue kept failing for %.0f s; the tasks may still run: "
                        "--resume waits for them again", FAIL_LIMIT_S);
            goto done;
        }
    }
done:
    free(mark);
    return st;
}

void gs_slurm_array_report(const gs_slurm_array *a, const char *cmd, FILE *f)
{
    int c[GS_TASK_PHASE_COUNT], n = 0;
    char jobs[1024] = "";
    gs_slurm_array_counts(a, c);
    for (int i = 0; i < a->n; i++) {
        const gs_slurm_task *t = &a->t[i];
        if (t->phase == GS_TASK_DONE)
            continue;
        if (n++ < 50)
            fprintf(f, "  task %d (job %s_%d): %s%s%s\n", i, t->job[0] ? t->job : "-", i,
                    gs_task_phase_names[t->phase], t->why[0] ? ": " : "", t->why);
        if ((t->phase == GS_TASK_PENDING || t->phase == GS_TASK_RUNNING) && t->job[0] && !strstr(jobs, t->job) &&
            strlen(jobs) + strlen(t->job) + 2 < sizeof jobs)
            snprintf(jobs + strlen(jobs), sizeof jobs - strlen(jobs), "%s%s", jobs[0] ? " " : "", t->job);
    }
    if (n > 50)
        fprintf(f, "  ... and %d more\n", n - 50);
    if (c[GS_TASK_FAILED])
        fprintf(f, "gapscope %s: %d task%s failed: the same command with --resume runs just %s again\n", cmd,
                c[GS_TASK_FAILED], c[GS_TASK_FAILED] == 1 ? "" : "s", c[GS_TASK_FAILED] == 1 ? "it" : "them");
    if (jobs[0])
        fprintf(f, "gapscope %s: %d task%s still on the cluster: --resume waits for them; scancel %s cancels them\n",
                cmd, c[GS_TASK_PENDING] + c[GS_TASK_RUNNING], c[GS_TASK_PENDING] + c[GS_TASK_RUNNING] == 1 ? "" : "s",
                jobs);
}
