/*
 * Sweeps and gates on a Slurm cluster: the runs of a sweep (or the base
 * and head runs of a paired gate) as one job array, one array task per
 * run, on the scheduler the GPU fleet already runs; gapscope runs no
 * scheduler of its own.
 *
 * What a driver does (slurm_array.c, on the commands of slurm.c):
 *
 *   1. writes OUT/slurm/array-K.sbatch: `#SBATCH --array=...` (one task per
 *      run, %array_max), --partition, --gres=gpu:N, --time, extra lines;
 *      the task's run (scenario, run directory OUT/run-NNN) follows from
 *      SLURM_ARRAY_TASK_ID; the task writes OUT/slurm/task-NNN.status
 *      (node, host, GPUs, exit status) and logs to OUT/slurm/task-NNN.log;
 *   2. submits it with `sbatch --parsable` and appends "JOBID TASKS" to
 *      OUT/slurm/jobs;
 *   3. waits: `squeue --array --states=all` for the live tasks, `sacct` for
 *      those squeue no longer knows (where accounting runs), the status
 *      files for the rest; progress lines (pending/running/done/failed)
 *      on stderr;
 *   4. hands the tasks' fates back: done (the Slurm state COMPLETED where
 *      known, and the task's own exit status 0), or failed with the
 *      reason (CANCELLED, FAILED, TIMEOUT, NODE_FAIL, the exit status, or
 *      LOST: no scheduler record and no status file).  Nothing is dropped
 *      silently: a driver lists every failed task, and --resume submits
 *      exactly those again (tasks still pending or running in an earlier
 *      array are waited for, not submitted twice).
 *
 * OUT must be on a filesystem the compute nodes share with the submitting
 * host (the tasks write their run directories there), and the gapscope
 * binary must be reachable at the same path on the nodes.  The commands
 * run as child processes with this process's environment (SLURM_CONF,
 * PATH); their output is parsed line by line and an unexpected line is an
 * error naming the command and the line.
 *
 * Threads: none; one driver per process.
 */
#ifndef GS_SCN_SLURM_H
#define GS_SCN_SLURM_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "../common/status.h"
#include "run.h"

typedef struct gs_slurm_opts {
    const char *partition;          /* --partition (NULL: the cluster's default) */
    int gpus_per_task;              /* --gres=gpu:N (0: no GRES request) */
    int array_max;                  /* at most N tasks at once (0: no limit) */
    const char *time_limit;         /* --time (NULL: the partition's) */
    const char *const *sbatch_args; /* more #SBATCH lines ("--account=x") */
    int n_sbatch_args;
    const char *gapscope;           /* the binary the tasks run (NULL: this one) */
    double poll_s;                  /* between two looks at the queue (<= 0: 5 s) */
    int dry_run;                    /* print the script on stdout, submit nothing */
    int resume;                     /* OUT holds an earlier submission: see above */
    int quiet;                      /* no progress lines */
    /* Nonzero (a signal number) stops the waiting: the tasks keep running
     * on the cluster, the driver merges what is done and says how to
     * resume or cancel. */
    const volatile sig_atomic_t *stop;
} gs_slurm_opts;

/* ---- the commands (slurm.c) ---- */

/* A task's fate as the driver sees it. */
typedef enum { GS_TASK_UNSUBMITTED, GS_TASK_PENDING, GS_TASK_RUNNING, GS_TASK_DONE, GS_TASK_FAILED,
               GS_TASK_PHASE_COUNT } gs_task_phase;
extern const char *const gs_task_phase_names[GS_TASK_PHASE_COUNT];

/* What Slurm says of one array task. */
typedef struct gs_slurm_state {
    char job[32];                   /* array job id ("1234") */
    int task;                       /* array index */
    char state[32];                 /* PENDING RUNNING COMPLETED CANCELLED ... */
    char nodes[128];                /* node list ("" before it runs) */
    int exit_code;                  /* sacct's ExitCode before ':' (-1: not given) */
    int signal;                     /* ... after ':' */
} gs_slurm_state;

/* Slurm's state word -> phase: PENDING, REQUEUED... pending; RUNNING,
 * CONFIGURING, COMPLETING, SUSPENDED... running; COMPLETED done; every
 * other final state failed.  Unknown words: failed (reported as such). */
gs_task_phase gs_slurm_phase(const char *state);

/* Parses squeue `--noheader --format=%i|%T|%N` output: lines
 * "JOB_TASK|STATE|NODES", or "JOB_[a-b,c%n]|STATE|NODES" for tasks not yet
 * split off (expanded to one state per task).  The states are appended to
 * *out (realloc'd; *n of them).  GS_ERR_FORMAT naming "squeue output" and
 * the line on anything else. */
gs_status gs_slurm_parse_squeue(gs_slurm_state **out, size_t *n, const char *text, gs_err *err);
/* Parses sacct `--noheader --parsable2 --allocations
 * --format=JobID,State,ExitCode,NodeList` output the same way ("CANCELLED
 * by 0" is CANCELLED; ExitCode "2:0" is exit 2, signal 0). */
gs_status gs_slurm_parse_sacct(gs_slurm_state **out, size_t *n, const char *text, gs_err *err);
/* The job id of `sbatch --parsable` output ("1234" or "1234;cluster"). */
gs_status gs_slurm_parse_sbatch(char *job, size_t cap, const char *text, gs_err *err);

/* Runs argv[0] (looked up in PATH) with argv, waits at most timeout_s;
 * its standard output goes to *out (malloc'd, NUL-terminated), its
 * standard error to errbuf (truncated).  *rc: the exit status (128 + n
 * after signal n; 127 when it could not be started).  GS_ERR_IO only when
 * the child could not be run at all or timed out. */
gs_status gs_slurm_exec(char **out, char *errbuf, size_t errcap, int *rc, const char *const *argv,
                        double timeout_s, gs_err *err);

/* ---- an array of runs (slurm_array.c) ---- */

typedef struct gs_slurm_task {
    gs_task_phase phase;
    char job[32];                   /* the array job that ran it last ("" if none) */
    char state[32];                 /* Slurm's last word, or LOST / NO-STATUS */
    char node[128], host[128], gpus[64];  /* from the status file (node also from Slurm) */
    int exit_code;                  /* the task's exit status (-1: unknown) */
    double start_s, end_s;          /* the task's own clock (date +%s.%N) at its start and end (0: unknown) */
    char why[256];                  /* failed: what happened */
    double gone_s;                  /* internal: when it was first missing from every record */
} gs_slurm_task;

typedef struct gs_slurm_array {
    char out[GS_SCN_PATH_MAX];      /* OUT */
    char dir[GS_SCN_PATH_MAX];      /* OUT/slurm */
    char name[64];                  /* job name */
    int n;                          /* tasks 0..n-1 */
    gs_slurm_task *t;
    int rounds;                     /* submissions so far (array-K.sbatch) */
    int no_sacct;                   /* sacct said accounting is off: not asked again */
    /* Set by the driver (may be NULL): 1 when task i's run directory is in
     * place.  A resume submits again a task that ended done earlier but
     * whose run directory is gone. */
    int (*have_output)(const struct gs_slurm_array *a, int i);
} gs_slurm_array;

/* Sets up a for n tasks in OUT (making OUT/slurm unless dry), reading an
 * earlier submission's OUT/slurm/jobs and status files when resuming.
 * body: the shell lines of a task (they see $i, the array index, and $gs,
 * the binary, quoted); saved as OUT/slurm/task.sh, and a resume with a
 * different body is refused (GS_ERR_MISMATCH naming the file): OUT holds
 * another sweep. */
gs_status gs_slurm_array_open(gs_slurm_array *a, const char *out, const char *name, int n, const char *body,
                              const gs_slurm_opts *o, gs_err *err);
void gs_slurm_array_close(gs_slurm_array *a);
/* Submits every task not done, pending or running (all of them the first
 * time); with o->dry_run prints the script on stdout instead.  Then waits
 * until every task is done or failed, or o->stop.  GS_OK even when tasks
 * failed (their phase says so); errors are the driver's own (sbatch
 * refused the script, squeue kept failing). */
gs_status gs_slurm_array_run(gs_slurm_array *a, const char *body, const gs_slurm_opts *o, gs_err *err);
/* One look at the queue (squeue, then sacct for the tasks it no longer
 * lists, then the status files): the phases of the pending and running
 * tasks.  first: an earlier submission seen on a resume (no grace for
 * tasks nothing knows of).  A failing squeue leaves the phases as they
 * were (*squeue_ok = 0); errors: output that cannot be read. */
gs_status gs_slurm_array_look(gs_slurm_array *a, const gs_slurm_opts *o, int first, int *squeue_ok, gs_err *err);
/* Counts of tasks per phase. */
void gs_slurm_array_counts(const gs_slurm_array *a, int counts[GS_TASK_PHASE_COUNT]);
/* Lines "  task 5 (job 1234_5): CANCELLED on node1, exit 143" of the tasks
 * not done, then how to resume and cancel; `cmd` names the command. */
void gs_slurm_array_report(const gs_slurm_array *a, const char *cmd, FILE *f);

/* Marks in beside[i] (n of them) every task marked in ran that ran on the
 * same host (host, else node) as another such task at the same time, by
 * the start and end its status file gives: their timings include each
 * other's load.  Tasks without both times are not marked.  Returns how
 * many were marked. */
int gs_slurm_array_beside(const gs_slurm_array *a, const unsigned char *ran, unsigned char *beside);
/* The line a driver prints when gs_slurm_array_beside marked k of n runs
 * ("8 of 18 runs ran beside another run on the same host ...: submit with
 * --sbatch --exclusive ..."), without the newline. */
void gs_slurm_beside_note(char *out, size_t cap, int k, int n);

/* Single-quotes s for a POSIX shell into out ('it'\''s').  0 when it does
 * not fit. */
int gs_slurm_shell_quote(char *out, size_t cap, const char *s);

/* ---- drivers ---- */

/* `gapscope sweep --slurm` (slurm_sweep.c): the runs of sw (its options as
 * for gs_scn_sweep, out_dir set) as one array; merges the done runs into
 * OUT's tables and chart (gs_sweep_plan_tables, as a local sweep writes
 * them), tasks.csv (every task: its run, point, rep, Slurm state, node,
 * host, GPUs, hardware, exit) and slurm.md (the hardware classes, which
 * points ran on which, the failed tasks).  *failed: tasks not done. */
gs_status gs_slurm_sweep(const gs_sweep_opts *sw, const gs_slurm_opts *o, int *failed, gs_err *err);

/* `gapscope gate --slurm` (slurm_gate.c): scenario base and scenario head,
 * reps runs each, as one array interleaved (task 2k: base run k, task
 * 2k+1: head run k, so both sides share the partition, its hardware and
 * its hours), into OUT/base-NNN and OUT/head-NNN (`gapscope run ...
 * --no-report`).  sets apply to both sides; the base side may run another
 * gapscope build (base_bin; NULL: the same as the head).  dirs[i] (2 *
 * reps of them) gets task i's run directory and done[i] whether it ended
 * done; the tasks not done are listed on stderr. */
typedef struct gs_slurm_gate_spec {
    const char *base, *head;        /* scenario files */
    const char *base_bin;
    const char *const *sets;
    int n_sets;
    int reps;
    const char *out;
} gs_slurm_gate_spec;
gs_status gs_slurm_gate_runs(const gs_slurm_gate_spec *g, const gs_slurm_opts *o, char (*dirs)[GS_SCN_PATH_MAX],
                             unsigned char *done, gs_err *err);

#endif
