/* The Slurm options shared by `sweep --slurm` and `gate --slurm` (cli_slurm.h). */
#include <stdio.h>
#include <string.h>

#include "cli_slurm.h"

const gs_cli_opt gs_cli_slurm_opts[] = {
    GS_CLI_HEADING("on a Slurm cluster (README: \"Sweeps and gates on Slurm\"):"),
    GS_CLI_FLAG("--slurm", NULL,
                "run the runs as one Slurm job array (one task per run; sbatch,\n"
                "squeue, sacct from PATH; OUT on a filesystem the nodes share)",
                gs_cli_slurm, on),
    GS_CLI_STR("--partition", NULL, "P", "the partition (default: the cluster's)", gs_cli_slurm, partition),
    GS_CLI_UINT("--gpus-per-task", "N", 64, "--gres=gpu:N for every task (default 0: no GRES request)",
                gs_cli_slurm, gpus),
    GS_CLI_UINT("--array-max", "N", 100000, "at most N tasks at once (--array=...%N; default no limit)",
                gs_cli_slurm, array_max),
    GS_CLI_STR("--time", NULL, "LIMIT", "a task's time limit (sbatch --time; default the partition's)",
               gs_cli_slurm, time),
    GS_CLI_LIST("--sbatch", "OPT",
                "one more #SBATCH line, e.g. --sbatch --account=lab or\n"
                "--sbatch --constraint=h100 (repeatable)",
                gs_cli_slurm, sbatch),
    GS_CLI_STR("--gapscope", NULL, "PATH",
               "the binary the tasks run (default: this one; the same path\n"
               "must work on the nodes)",
               gs_cli_slurm, gapscope),
    GS_CLI_UINT("--poll", "S", 3600, "seconds between two looks at the queue (default 5)", gs_cli_slurm, poll),
    GS_CLI_FLAG("--dry-run", NULL, "print the sbatch script, submit nothing", gs_cli_slurm, dry_run),
    GS_CLI_FLAG("--resume", NULL,
                "OUT holds an earlier submission (same options): wait for its\n"
                "tasks still queued or running, submit its failed ones again,\n"
                "then merge",
                gs_cli_slurm, resume),
    GS_CLI_END};

int gs_cli_slurm_apply(gs_slurm_opts *o, const gs_cli_slurm *c, const char *cmd)
{
    memset(o, 0, sizeof *o);
    if (!c->on && (c->partition || c->time || c->gapscope || c->gpus || c->array_max || c->poll || c->sbatch.n ||
                   c->dry_run || c->resume)) {
        fprintf(stderr, "gapscope %s: the Slurm options (--partition, --resume, --dry-run, ...) need --slurm\n", cmd);
        return 0;
    }
    o->partition = c->partition;
    o->time_limit = c->time;
    o->gapscope = c->gapscope;
    o->gpus_per_task = (int)c->gpus;
    o->array_max = (int)c->array_max;
    o->poll_s = c->poll ? (double)c->poll : 5.0;
    o->sbatch_args = c->sbatch.v;
    o->n_sbatch_args = c->sbatch.n;
    o->dry_run = c->dry_run;
    o->resume = c->resume;
    return 1;
}
