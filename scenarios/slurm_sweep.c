/*
 * `gapscope sweep --slurm`: the runs of a sweep as one Slurm job array.
 * Array task I runs run I of the sweep's plan (sweep.c: the same shuffled
 * order a local sweep runs, so OUT/run-NNN is the same run either way) as
 * `gapscope sweep ... --task I`; the tasks' run directories are then merged
 * into the tables and the chart a local sweep writes (gs_sweep_plan_tables),
 * plus two files of the cluster:
 *
 *   tasks.csv  run,point,rep,baseline,job,state,node,host,gpus,hardware,exit,dir
 *              one row per task, done or not
 *   slurm.md   the array jobs, the hardware classes the runs ran on (device
 *              names / CPU, from each run's metadata) with their hosts, each
 *              point's figures per class when there is more than one class
 *              (the tables then mix unlike hardware, and say so), and the
 *              tasks that did not end done, with how to resume
 *
 * Every scenario of the plan is built and validated here before anything is
 * submitted, so a bad --vary value costs no cluster time.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../common/outfile.h"
#include "slurm.h"

#define HW_MAX 256
#define MAX_CLASSES 16

/* Appends " 'arg'" to body. */
static int add_arg(char *body, size_t cap, const char *arg)
{
    size_t k = strlen(body);
    if (k + 2 >= cap)
        return 0;
    body[k++] = ' ';
    return gs_slurm_shell_quote(body + k, cap - k, arg);
}

static gs_status task_body(char *body, size_t cap, const gs_sweep_opts *sw, gs_err *err)
{
    char num[32];
    int ok = snprintf(body, cap, "\"$gs\" sweep") < (int)cap;
    if (sw->predict)
        ok = ok && add_arg(body, cap, "--predict") && add_arg(body, cap, sw->predict);
    else
        ok = ok && add_arg(body, cap, sw->scenario);
    for (int k = 0; k < sw->n_vary; k++)
        ok = ok && add_arg(body, cap, "--vary") && add_arg(body, cap, sw->vary[k]);
    for (int k = 0; k < sw->n_sets; k++)
        ok = ok && add_arg(body, cap, "--set") && add_arg(body, cap, sw->sets[k]);
    snprintf(num, sizeof num, "%d", sw->reps > 0 ? sw->reps : 1);
    ok = ok && add_arg(body, cap, "--reps") && add_arg(body, cap, num);
    snprintf(num, sizeof num, "%llu", (unsigned long long)sw->seed);
    ok = ok && add_arg(body, cap, "--seed") && add_arg(body, cap, num);
    ok = ok && add_arg(body, cap, "--out") && add_arg(body, cap, sw->out_dir);
    size_t k = strlen(body);
    ok = ok && snprintf(body + k, cap - k, " --task \"$i\" --quiet\n") < (int)(cap - k);
    return ok ? GS_OK : GS_ERR(err, GS_ERR_RANGE, "sweep", "the task's command line is too long");
}

/* Every point's scenario once, built and validated. */
static gs_status check_plan(const gs_sweep_plan *plan, gs_err *err)
{
    int total = gs_sweep_plan_total(plan);
    for (int i = 0; i < total; i++) {
        int p, r;
        gs_sweep_plan_slot(plan, i, &p, &r);
        if (r != 0)
            continue;
        gs_scenario *s = NULL;
        char tmp[GS_SCN_PATH_MAX];
        gs_status st = gs_sweep_plan_scenario(plan, i, &s, tmp, sizeof tmp, err);
        if (st != GS_OK)
            return st;
        gs_scenario_destroy(s);
        if (tmp[0])
            unlink(tmp);
    }
    return GS_OK;
}

static void csv_field(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++)
        fputc(*s == '"' ? '\'' : *s, f);
    fputc('"', f);
}

static gs_status write_tasks_csv(const gs_slurm_array *a, const gs_sweep_plan *plan, const gs_run_result *rows,
                                 char (*hw)[HW_MAX], gs_err *err)
{
    char path[GS_SCN_PATH_MAX + 32];
    snprintf(path, sizeof path, "%s/tasks.csv", a->out);
    gs_outfile of;
    gs_status st = gs_out_open(&of, path, err);
    if (st != GS_OK)
        return st;
    fprintf(of.f, "run,point,rep,baseline,job,state,node,host,gpus,hardware,exit,dir\n");
    for (int i = 0; i < a->n; i++) {
        const gs_slurm_task *t = &a->t[i];
        int p, r;
        gs_sweep_plan_slot(plan, i, &p, &r);
        fprintf(of.f, "%d,%d,%d,%d,%s_%d,%s,", i, p, r, p < 0, t->job[0] ? t->job : "", i,
                t->state[0] ? t->state : gs_task_phase_names[t->phase]);
        csv_field(of.f, t->node);
        fputc(',', of.f);
        csv_field(of.f, t->host);
        fputc(',', of.f);
        csv_field(of.f, t->gpus);
        fputc(',', of.f);
        csv_field(of.f, hw[i]);
        fprintf(of.f, ",%d,%s\n", t->exit_code, rows[i].dir);
    }
    return gs_out_close(&of, 1, err);
}

/* slurm.md: jobs, hardware classes, per-class points, tasks not done. */
static gs_status write_md(const gs_slurm_array *a, const gs_sweep_plan *plan, const gs_run_result *rows,
                          const unsigned char *ran, const unsigned char *beside, char (*hw)[HW_MAX], int *n_classes,
                          gs_err *err)
{
    char path[GS_SCN_PATH_MAX + 32], jobs_path[GS_SCN_PATH_MAX + 16], line[256];
    const char *cls[MAX_CLASSES];
    int nc = 0, c[GS_TASK_PHASE_COUNT];
    for (int i = 0; i < a->n; i++) {
        int k = 0;
        while (k < nc && strcmp(cls[k], hw[i]))
            k++;
        if (ran[i] && k == nc && nc < MAX_CLASSES)
            cls[nc++] = hw[i];
    }
    *n_classes = nc;
    snprintf(path, sizeof path, "%s/slurm.md", a->out);
    gs_outfile of;
    gs_status st = gs_out_open(&of, path, err);
    if (st != GS_OK)
        return st;
    FILE *f = of.f;
    gs_slurm_array_counts(a, c);
    fprintf(f, "# Sweep on Slurm: %s\n\n%d tasks (one per run of the sweep): %d done, %d failed, %d pending, "
               "%d running.\n\nArray jobs (job id, array indexes):\n\n",
            a->out, a->n, c[GS_TASK_DONE], c[GS_TASK_FAILED], c[GS_TASK_PENDING] + c[GS_TASK_UNSUBMITTED],
            c[GS_TASK_RUNNING]);
    snprintf(jobs_path, sizeof jobs_path, "%s/jobs", a->dir);
    FILE *jf = fopen(jobs_path, "r");
    while (jf && fgets(line, sizeof line, jf)) {
        line[strcspn(line, "\n")] = '\0';
        fprintf(f, "- `%s`\n", line);
    }
    if (jf)
        fclose(jf);
    fprintf(f, "\n## Hardware\n\n| class (devices / CPU) | runs | hosts |\n| --- | --- | --- |\n");
    for (int k = 0; k < nc; k++) {
        int n = 0;
        char hosts[1024] = "";
        for (int i = 0; i < a->n; i++) {
            if (!ran[i] || strcmp(hw[i], cls[k]))
                continue;
            n++;
            const char *h = a->t[i].host[0] ? a->t[i].host : a->t[i].node;
            char probe[1100];
            snprintf(probe, sizeof probe, ", %s, ", hosts);
            char needle[140];
            snprintf(needle, sizeof needle, ", %s, ", h);
            if (*h && !strstr(probe, needle) && strlen(hosts) + strlen(h) + 3 < sizeof hosts)
                snprintf(hosts + strlen(hosts), sizeof hosts - strlen(hosts), "%s%s", hosts[0] ? ", " : "", h);
        }
        fprintf(f, "| %s | %d | %s |\n", cls[k], n, hosts);
    }
    int nb = 0, nr = 0;
    for (int i = 0; i < a->n; i++)
        nb += beside[i], nr += ran[i];
    if (nb) {
        char note[512];
        gs_slurm_beside_note(note, sizeof note, nb, nr);
        fprintf(f, "\n**%s.**  The runs that did (task: host):", note);
        for (int i = 0, k = 0; i < a->n; i++)
            if (beside[i] && k++ < 40)
                fprintf(f, "%s %d: %s", k > 1 ? "," : "", i, a->t[i].host[0] ? a->t[i].host : a->t[i].node);
        fprintf(f, "%s\n", nb > 40 ? ", ..." : "");
    } else if (nr)
        fprintf(f, "\nNo two runs ran on one host at the same time (by their start and end in the status files).\n");
    if (nc <= 1)
        fprintf(f, "\nEvery run ran on the same hardware class: the points compare like with like.\n");
    else {
        fprintf(f, "\n**The runs ran on %d hardware classes.** sweep.csv, sweep.dat, sweep_causes.dat and "
                   "sensitivity.csv mix them: a point's spread includes the hardware's difference.  Each "
                   "point per class (pin the hardware with --sbatch --constraint=... to compare like with "
                   "like):\n\n| point | class | runs | GPU idle s (mean) | GPU busy (mean) |\n"
                   "| --- | --- | --- | --- | --- |\n", nc);
        int maxp = -1;
        for (int i = 0; i < a->n; i++) {
            int ip, ir;
            gs_sweep_plan_slot(plan, i, &ip, &ir);
            maxp = ip > maxp ? ip : maxp;
        }
        for (int p = -1; p <= maxp; p++)
            for (int k = 0; k < nc; k++) {
                double idle = 0, util = 0;
                int n = 0;
                for (int i = 0; i < a->n; i++) {
                    int ip, ir;
                    gs_sweep_plan_slot(plan, i, &ip, &ir);
                    if (ip == p && ran[i] && rows[i].analyzed && !strcmp(hw[i], cls[k])) {
                        idle += rows[i].gpu_idle_s;
                        util += rows[i].gpu_util;
                        n++;
                    }
                }
                if (n)
                    fprintf(f, "| %s%d | %s | %d | %.3f | %.1f%% |\n", p < 0 ? "baseline " : "", p, cls[k], n,
                            idle / n, 100 * util / n);
            }
    }
    if (c[GS_TASK_DONE] < a->n) {
        fprintf(f, "\n## Tasks not done\n\nListed in sweep.csv with empty figures and kept out of the other "
                   "tables.  The same command with `--resume` submits exactly these again.\n\n"
                   "| run | job | state | what happened |\n| --- | --- | --- | --- |\n");
        for (int i = 0; i < a->n; i++)
            if (!ran[i])
                fprintf(f, "| %d | %s_%d | %s | %s |\n", i, a->t[i].job, i, gs_task_phase_names[a->t[i].phase],
                        a->t[i].why);
    }
    return gs_out_close(&of, 1, err);
}

/* A run directory with its timeline and summary. */
static int have_run(const gs_slurm_array *a, int i)
{
    char p[GS_SCN_PATH_MAX + 64], q[GS_SCN_PATH_MAX + 64];
    snprintf(p, sizeof p, "%.480s/run-%03d/spans.csv", a->out, i);
    snprintf(q, sizeof q, "%.480s/run-%03d/summary.json", a->out, i);
    return access(p, R_OK) == 0 && access(q, R_OK) == 0;
}

gs_status gs_slurm_sweep(const gs_sweep_opts *sw, const gs_slurm_opts *o, int *failed, gs_err *err)
{
    gs_sweep_plan *plan = NULL;
    gs_slurm_array a;
    memset(&a, 0, sizeof a);
    gs_run_result *rows = NULL;
    unsigned char *ran = NULL, *beside = NULL;
    char(*hw)[HW_MAX] = NULL;
    char *body = malloc(65536);
    *failed = 0;
    gs_status st = body ? gs_sweep_plan_create(&plan, sw, err) : GS_ERR(err, GS_ERR_NOMEM, "sweep", "out of memory");
    if (st != GS_OK || (st = check_plan(plan, err)) != GS_OK || (st = task_body(body, 65536, sw, err)) != GS_OK)
        goto done;
    int total = gs_sweep_plan_total(plan);
    if ((st = gs_slurm_array_open(&a, sw->out_dir, "sweep", total, body, o, err)) != GS_OK)
        goto done;
    a.have_output = have_run;
    if ((st = gs_slurm_array_run(&a, body, o, err)) != GS_OK || o->dry_run)
        goto done;
    rows = calloc((size_t)total, sizeof *rows);
    ran = calloc((size_t)total, 1);
    beside = calloc((size_t)total, 1);
    hw = calloc((size_t)total, sizeof *hw);
    if (!rows || !ran || !beside || !hw) {
        st = GS_ERR(err, GS_ERR_NOMEM, "sweep", "out of memory");
        goto done;
    }
    for (int i = 0; i < total; i++) {
        gs_slurm_task *t = &a.t[i];
        char dir[GS_SCN_PATH_MAX];
        snprintf(dir, sizeof dir, "%.480s/run-%03d", sw->out_dir, i);
        if (t->phase == GS_TASK_DONE) {
            gs_err lerr;
            gs_err_clear(&lerr);
            if (gs_scn_result_load(&rows[i], dir, hw[i], HW_MAX, &lerr) != GS_OK) {
                t->phase = GS_TASK_FAILED;
                snprintf(t->why, sizeof t->why, "run directory unreadable: %.200s", lerr.msg);
            } else if (rows[i].interrupted) {
                t->phase = GS_TASK_FAILED;
                snprintf(t->why, sizeof t->why, "the run was interrupted (%s)", gs_scn_signal_name(rows[i].interrupted));
            } else
                ran[i] = 1;
        }
        if (!ran[i]) {
            memset(&rows[i], 0, sizeof rows[i]);
            snprintf(rows[i].verdict, sizeof rows[i].verdict, "slurm task %s_%d %s%s%s", t->job, i,
                     gs_task_phase_names[t->phase], t->why[0] ? ": " : "", t->why);
            *failed += 1;
        }
        snprintf(rows[i].dir, sizeof rows[i].dir, "%s", dir);
    }
    int nc = 0, nb = gs_slurm_array_beside(&a, ran, beside), nr = 0;
    if ((st = gs_sweep_plan_tables(plan, rows, ran, total, err)) != GS_OK ||
        (st = write_tasks_csv(&a, plan, rows, hw, err)) != GS_OK ||
        (st = write_md(&a, plan, rows, ran, beside, hw, &nc, err)) != GS_OK)
        goto done;
    for (int i = 0; i < total; i++)
        nr += ran[i];
    if (nb) {
        char note[512];
        gs_slurm_beside_note(note, sizeof note, nb, nr);
        fprintf(stderr, "gapscope sweep: %s (%s/slurm.md lists them)\n", note, sw->out_dir);
    }
    if (nc > 1)
        fprintf(stderr, "gapscope sweep: the runs ran on %d hardware classes: the tables mix them (%s/slurm.md "
                        "splits each point by class)\n", nc, sw->out_dir);
    if (*failed)
        gs_slurm_array_report(&a, "sweep", stderr);
done:
    gs_slurm_array_close(&a);
    gs_sweep_plan_destroy(plan);
    free(body);
    free(rows);
    free(ran);
    free(beside);
    free(hw);
    return st;
}
