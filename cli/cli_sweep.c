/*
 * gapscope sweep SCENARIO --vary KEY=v1,v2,... [--vary ...] [--reps N]
 *                [--out DIR] [--seed N] [--set section.key=value]... [--quiet]
 * gapscope sweep --predict CAPTURE --vary ... (every run a prediction)
 * gapscope sweep SCENARIO --vary ... --slurm [--partition P ...] (one Slurm
 *                array task per run, merged into the same tables)
 * gapscope sweep SCENARIO --vary ... --task I (run I of the sweep alone:
 *                what an array task runs)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../scenarios/run.h"
#include "../scenarios/slurm.h"
#include "cli_run.h"
#include "cli_slurm.h"

typedef struct {
    gs_sweep_opts o;
    gs_cli_list vary, sets, scenario;
    const char *task;
    gs_cli_slurm slurm;
} sweep_args;

static int set_reps(void *field, const char *val, const gs_cli_opt *opt, const char *cmd)
{
    (void)opt, (void)cmd;
    *(int *)field = atoi(val);
    return 1;
}

static int set_seed(void *field, const char *val, const gs_cli_opt *opt, const char *cmd)
{
    (void)opt, (void)cmd;
    *(uint64_t *)field = strtoull(val, NULL, 0);
    return 1;
}

static const gs_cli_opt sweep_opts[] = {
    GS_CLI_LIST("--vary", "KEY=v1,v2,...",
                "the values of a key to run at (repeatable; every combination):\n"
                "inject.POINT=0ms,20ms,50ms  injected delay at POINT (fixed; 0 = off)\n"
                "SECTION.KEY=a,b,c  any scenario key (split at '|' when present)",
                sweep_args, vary),
    GS_CLI_FN("--reps", NULL, "N", "repetitions per point (default 3)", set_reps, sweep_args,
              o.reps),
    GS_CLI_STR("--out", NULL, "DIR", "output folder (default runs/sweep-<scenario>)", sweep_args,
               o.out_dir),
    GS_CLI_FN("--seed", NULL, "N", "order of the runs (default 1)", set_seed, sweep_args, o.seed),
    GS_CLI_LIST("--set", "K=V", "override a setting in every run (repeatable)", sweep_args, sets),
    GS_CLI_STR("--predict", NULL, "CAPTURE",
               "sweep predictions instead of real runs: the capture's own\n"
               "scenario on its fitted model (gapscope predict), no SCENARIO",
               sweep_args, o.predict),
    GS_CLI_FLAG("--quiet", "-q", "no progress lines", sweep_args, o.quiet),
    GS_CLI_STR("--task", NULL, "I",
               "run only run I of the sweep's order (OUT/run-III; no tables):\n"
               "what a Slurm array task runs",
               sweep_args, task),
    GS_CLI_GROUP(gs_cli_slurm_opts, sweep_args, slurm),
    GS_CLI_END};

static const gs_cli_spec sweep_spec = {
    .cmd = "sweep",
    .usage = "usage: gapscope sweep SCENARIO --vary KEY=v1,v2,... [--vary ...] [--reps N] [options]\n"
             "       gapscope sweep --predict CAPTURE --vary KEY=v1,v2,... [options]\n"
             "       gapscope sweep SCENARIO --vary ... --slurm [--partition P] [--gpus-per-task N] ...\n"
             "Runs SCENARIO at every combination of the values, N times each, plus N baseline runs\n"
             "(varied injections off), in one randomized interleaved order; writes sweep.csv,\n"
             "sweep.dat and sensitivity.csv (slope of GPU idle per unit of each key, 95% CI).\n"
             "With --slurm the runs are one Slurm job array (task I = run I, OUT/run-III), merged\n"
             "into the same tables, plus tasks.csv and slurm.md (hosts, GPUs, failed tasks).\n\n",
    .notes = "SIGINT/SIGTERM: the running run stops cleanly (see `gapscope run --help`), the\n"
             "tables cover the complete runs, exit status 128 + signal.  With --slurm it stops\n"
             "the waiting only: the tasks keep running, the tables cover the done ones, and\n"
             "--resume waits for the rest.\n"
             "With --slurm the exit status is 1 when a task did not end done (listed on stderr,\n"
             "in sweep.csv and in OUT/slurm.md; --resume submits just those again).\n",
    .opts = sweep_opts,
    GS_CLI_ARGS(sweep_args, scenario, 0, 1),
    .bad = "unexpected argument '%s'",
};

int gs_scn_cmd_sweep(int argc, char **argv)
{
    sweep_args a = {.o = {.reps = 3, .seed = 1}};
    int rc = gs_cli_parse(&sweep_spec, &a, argc, argv, NULL);
    if (rc != GS_CLI_GO)
        return rc;
    gs_sweep_opts o = a.o;
    const char *scenario = a.scenario.n ? a.scenario.v[0] : NULL;
    char out[600];
    if ((!scenario && !o.predict) || (scenario && o.predict) || a.vary.n == 0 || o.reps < 1)
        return gs_cli_usage_error(&sweep_spec);
    if (!scenario)
        scenario = o.predict;
    if (!o.out_dir) {
        const char *base = strrchr(scenario, '/');
        snprintf(out, sizeof out, "runs/sweep-%.200s", base ? base + 1 : scenario);
        char *dot = strrchr(out, '.');
        if (dot && dot > out + 11)
            *dot = '\0';
        o.out_dir = out;
    }
    o.scenario = scenario;
    o.vary = a.vary.v;
    o.n_vary = a.vary.n;
    o.sets = a.sets.v;
    o.n_sets = a.sets.n;
    gs_slurm_opts so;
    if (!gs_cli_slurm_apply(&so, &a.slurm, "sweep"))
        return gs_cli_usage_error(&sweep_spec);
    if (a.task) {
        char *end;
        long t = strtol(a.task, &end, 10);
        if (*end || end == a.task || t < 0 || t > 1000000 || a.slurm.on) {
            fprintf(stderr, "gapscope sweep: --task expects a run index (0, 1, ...) and no --slurm, got '%s'\n",
                    a.task);
            return 2;
        }
        o.one_task = 1;
        o.task = (int)t;
    }
    gs_err err;
    gs_err_clear(&err);
    o.stop = &gs_scn_interrupt_sig;
    gs_scn_interrupt_install();
    int failed = 0;
    gs_status st;
    if (a.slurm.on) {
        so.quiet = o.quiet;
        so.stop = &gs_scn_interrupt_sig;
        st = gs_slurm_sweep(&o, &so, &failed, &err);
    } else
        st = gs_scn_sweep(&o, &err);
    gs_scn_interrupt_restore();
    if (st != GS_OK) {
        fprintf(stderr, "gapscope sweep: %s\n", err.msg);
        return 2;
    }
    if (so.dry_run)
        return 0;
    if (o.one_task)
        printf("sweep: run %d: %s/run-%03d\n", o.task, o.out_dir, o.task);
    else if (a.slurm.on)
        printf("sweep: %s/sweep.csv, %s/sensitivity.csv, %s/slurm.md%s\n", o.out_dir, o.out_dir, o.out_dir,
               gs_scn_interrupt_sig ? " (interrupted: the done tasks only)" : "");
    else
        printf("sweep: %s/sweep.csv, %s/sensitivity.csv%s\n", o.out_dir, o.out_dir,
               gs_scn_interrupt_sig ? " (interrupted: complete runs only)" : "");
    return gs_scn_interrupt_sig ? 128 + gs_scn_interrupt_sig : failed ? 1 : 0;
}
