/*
 * gapscope gate: utilization thresholds on a run (or a scenario it runs
 * first), or a paired base/head comparison: of run directories, or with
 * --slurm of a base and a head scenario run --reps times each, interleaved
 * in one Slurm job array (scenarios/slurm_gate.c).  Exit 0 pass, 1 fail,
 * 2 bad usage or input, 3 internal failure.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../diag/gate.h"
#include "../scenarios/run.h"
#include "../scenarios/scenario.h"
#include "../scenarios/slurm.h"
#include "../common/outdir.h"
#include "cli.h"
#include "cli_slurm.h"
#include "diag_cli.h"

#define MAX_RUNS 256

typedef struct {
    gs_diag_opts d;
    const char *target, *thresholds, *out, *seed, *run_out;
    const char *base[MAX_RUNS], *head[MAX_RUNS];
    int nb, nh, mode; /* mode 1: --base, 2: --head */
    gs_cli_list sets;
    const char *fk[GS_CLI_LIST_MAX], *fv[GS_CLI_LIST_MAX]; /* limits: thresholds-file key, value */
    int nf;
    gs_cli_slurm slurm;
    uint64_t reps;
    const char *base_bin;
} gate_args;

static int take_run(void *ctx, const char *arg)
{
    gate_args *a = ctx;
    if (arg[0] == '-')
        return 0;
    if (a->mode == 1 && a->nb < MAX_RUNS)
        a->base[a->nb++] = arg;
    else if (a->mode == 2 && a->nh < MAX_RUNS)
        a->head[a->nh++] = arg;
    else if (!a->mode && !a->target)
        a->target = arg;
    else
        return 0;
    return 1;
}

/* A limit: opt->data is its key in the thresholds file (gate_limits.c). */
static int set_limit(void *field, const char *val, const gs_cli_opt *opt, const char *cmd)
{
    (void)cmd;
    gate_args *a = field;
    if (a->nf == GS_CLI_LIST_MAX)
        return -1;
    a->fk[a->nf] = opt->data;
    a->fv[a->nf++] = val;
    return 1;
}

static int set_mode(void *field, const char *val, const gs_cli_opt *opt, const char *cmd)
{
    (void)val, (void)cmd;
    *(int *)field = !strcmp(opt->name, "--base") ? 1 : 2;
    return 1;
}

#define LIMIT(name, arg, key, help) {name, NULL, arg, help, set_limit, 0, 0, key, NULL}

static const gs_cli_opt gate_opts[] = {
    GS_CLI_HEADING("limits (override the thresholds file):"),
    LIMIT("--min-util", "X", "min_util", "per device: kernels-or-copies busy / span >= X"),
    LIMIT("--min-util-kernels", "X", "min_util_kernels_only", "per device: kernels busy / span >= X"),
    LIMIT("--max-gap-p99", "DUR", "max_gap_p99", "per device: nearest-rank p99 idle gap <= DUR (50ms)"),
    LIMIT("--max-gap-max", "DUR", "max_gap_max", "per device: longest idle gap <= DUR"),
    LIMIT("--max-cause-share", "C=X", "max_cause_share",
          "idle of cause or group C / summed span <= X (repeatable)"),
    LIMIT("--max-failed-jobs", "N", "max_failed_jobs", "failed + unfinished jobs <= N"),
    LIMIT("--alpha", "X", "alpha", "paired: a check fails only when p < X (default 0.05)"),
    LIMIT("--min-util-drop", "X", "min_util_drop",
          "paired: ... and the median util drops by more than X (0.02)"),
    LIMIT("--min-gap-p99-increase", "DUR", "min_gap_p99_increase",
          "paired: ... and the median gap p99 grows by more than DUR (5ms)"),
    GS_CLI_HEADING("options:"),
    GS_CLI_STR("--thresholds", NULL, "FILE",
               "INI limits (default: ci/thresholds.ini next to the binary,\n"
               "else built-in: min_util 0.90, max_gap_p99 50ms,\n"
               "tracker_lock 0.05)",
               gate_args, thresholds),
    GS_CLI_STR("--out", NULL, "DIR",
               "where gate.junit.xml/gate.json go, created when missing\n"
               "(default: the run directory; paired: the current one)",
               gate_args, out),
    GS_CLI_FN("--base", NULL, NULL, "the runs that follow are the base runs (paired mode)",
              set_mode, gate_args, mode),
    GS_CLI_FN("--head", NULL, NULL, "the runs that follow are the head runs (paired mode)",
              set_mode, gate_args, mode),
    GS_CLI_LIST("--set", "S.K=V", "SCENARIO mode: a setting of the run (repeatable)", gate_args,
                sets),
    GS_CLI_STR("--seed", NULL, "N", "SCENARIO mode: the run's seed", gate_args, seed),
    GS_CLI_STR("--run-out", NULL, "DIR",
               "SCENARIO mode: the run's directory; --slurm: the folder of\n"
               "the runs (default runs/gate-slurm)",
               gate_args, run_out),
    GS_CLI_GROUP(gs_diag_cli_opts, gate_args, d),
    GS_CLI_GROUP(gs_cli_slurm_opts, gate_args, slurm),
    GS_CLI_UINT("--reps", "N", 1000, "--slurm: runs of each side (default 5)", gate_args, reps),
    GS_CLI_STR("--base-bin", NULL, "PATH",
               "--slurm: the gapscope build the base runs use (default: the\n"
               "head's, --gapscope)",
               gate_args, base_bin),
    GS_CLI_END};

static const gs_cli_spec gate_spec = {
    .cmd = "gate",
    .usage = "usage: gapscope gate RUN_DIR|spans.csv|SCENARIO.ini [limits] [options]\n"
             "       gapscope gate --base DIR... --head DIR... [limits] [options]\n"
             "       gapscope gate --slurm --base BASE.ini --head HEAD.ini [--reps N] [limits] [options]\n"
             "  Checks a run against utilization limits (a SCENARIO.ini is run first) and\n"
             "  exits 0 when every check holds, 1 when any fails (2: bad input).  Writes\n"
             "  gate.junit.xml and gate.json.  Paired mode compares N base and M head runs\n"
             "  (one-sided Mann-Whitney U test plus a practical-significance floor), and notes\n"
             "  when the runs' host-speed probes put base and head hosts more than 15% apart\n"
             "  (a note, never a failure).  With --slurm the two scenarios are run N times each\n"
             "  as one Slurm job array, base and head tasks interleaved on the same partition,\n"
             "  then compared the same way.\n",
    .opts = gate_opts,
    .positional = take_run,
    .bad = "unknown option '%s' (--help for usage)",
    .bad_opts_only = 1,
    .no_usage = GS_CLI_USAGE_OPT,
};

static int find_default_thresholds(char *buf, size_t n)
{
    char exe[4096];
    ssize_t k = readlink("/proc/self/exe", exe, sizeof exe - 1);
    const char *rel[] = {"/../ci/thresholds.ini", "/../../ci/thresholds.ini"};
    if (k > 0) {
        exe[k] = '\0';
        char *slash = strrchr(exe, '/');
        if (slash)
            *slash = '\0';
        for (int i = 0; i < 2; i++) {
            snprintf(buf, n, "%s%s", exe, rel[i]);
            if (access(buf, R_OK) == 0)
                return 1;
        }
    }
    snprintf(buf, n, "ci/thresholds.ini");
    return access(buf, R_OK) == 0;
}

/* Runs a scenario file; returns the run directory in dir. */
static int run_scenario(const char *path, const char **sets, int nsets, const char *seed,
                        const char *out, int quiet, char *dir, size_t n)
{
    gs_err err;
    gs_err_clear(&err);
    gs_scenario *s = NULL;
    gs_status st = gs_scenario_load(&s, path, &err);
    if (st == GS_OK)
        st = gs_scenario_apply_cli(s, seed, sets, nsets, &err);
    gs_run_opts ro = {.out_dir = out, .quiet = quiet};
    gs_run_result res;
    if (st == GS_OK)
        st = gs_scn_run(s, &ro, &res, &err);
    gs_scenario_destroy(s);
    if (st != GS_OK) {
        fprintf(stderr, "gapscope gate: %s\n", err.msg);
        return st == GS_ERR_NOMEM || st == GS_ERR_INTERNAL ? 3 : 2;
    }
    snprintf(dir, n, "%s", res.dir);
    return 0;
}

static int is_scenario(const char *p)
{
    struct stat sb;
    size_t n = strlen(p);
    return stat(p, &sb) == 0 && S_ISREG(sb.st_mode) && n > 4 && !strcmp(p + n - 4, ".ini");
}

/* --slurm: runs the base and head scenarios as one interleaved array and
 * puts the run directories of the done tasks in place of the scenarios.
 * Returns -1 to go on to the gate, else the exit code. */
static int slurm_runs(gate_args *a, char (**dirs)[GS_SCN_PATH_MAX], int quiet)
{
    gs_slurm_opts so;
    if (!gs_cli_slurm_apply(&so, &a->slurm, "gate"))
        return 2;
    if (a->nb != 1 || a->nh != 1 || !is_scenario(a->base[0]) || !is_scenario(a->head[0])) {
        fprintf(stderr, "gapscope gate: --slurm takes one scenario file (.ini) after --base and one after --head\n");
        return 2;
    }
    int reps = a->reps ? (int)a->reps : 5;
    gs_slurm_gate_spec g = {.base = a->base[0], .head = a->head[0], .base_bin = a->base_bin, .sets = a->sets.v,
                            .n_sets = a->sets.n, .reps = reps, .out = a->run_out ? a->run_out : "runs/gate-slurm"};
    unsigned char *done = calloc((size_t)(2 * reps), 1);
    *dirs = calloc((size_t)(2 * reps), sizeof **dirs);
    if (!done || !*dirs) {
        free(done);
        return 3;
    }
    so.quiet = quiet;
    so.stop = &gs_scn_interrupt_sig;
    gs_err err;
    gs_err_clear(&err);
    gs_scn_interrupt_install();
    gs_status st = gs_slurm_gate_runs(&g, &so, *dirs, done, &err);
    gs_scn_interrupt_restore();
    int rc = -1;
    if (st != GS_OK) {
        fprintf(stderr, "gapscope gate: %s\n", err.msg);
        rc = 2;
    } else if (so.dry_run)
        rc = 0;
    else if (gs_scn_interrupt_sig)
        rc = 128 + gs_scn_interrupt_sig;
    a->nb = a->nh = 0;
    for (int i = 0; rc < 0 && i < 2 * reps; i++)
        if (done[i]) {
            if (i % 2)
                a->head[a->nh++] = (*dirs)[i];
            else
                a->base[a->nb++] = (*dirs)[i];
        }
    free(done);
    if (rc < 0 && (a->nb < 2 || a->nh < 2)) {
        fprintf(stderr, "gapscope gate: too few runs ended done (base %d, head %d of %d each) to compare\n", a->nb,
                a->nh, reps);
        rc = 2;
    } else if (rc < 0 && (a->nb < reps || a->nh < reps))
        printf("slurm: compared %d base and %d head runs of %d each (the others failed: listed above)\n", a->nb, a->nh,
               reps);
    return rc;
}

/* Whether base and head runs ran on the same hardware classes (slurm). */
static void hw_note(const gs_run *runs, int nb, int nh)
{
    char b[512] = "", h[512] = "", c[512];
    int mixed = 0;
    for (int i = 0; i < nb + nh; i++) {
        gs_scn_hw_class(c, sizeof c, runs[i].tl);
        char *side = i < nb ? b : h;
        if (!side[0])
            snprintf(side, sizeof b, "%s", c);
        else
            mixed |= strcmp(side, c) != 0;
    }
    if (mixed || strcmp(b, h))
        printf("slurm: WARNING: base and head ran on unlike hardware (base: %s%s; head: %s%s): the comparison "
               "mixes hardware with the change\n", b, mixed ? " and others" : "", h, mixed ? " and others" : "");
    else
        printf("slurm: base and head ran on the same hardware: %s\n", b);
}

static int gate_main(int argc, char **argv)
{
    gate_args a;
    memset(&a, 0, sizeof a);
    gs_diag_opts_init(&a.d);
    a.d.cfg.progress = 0;
    int rc = gs_cli_parse(&gate_spec, &a, argc, argv, NULL);
    if (rc != GS_CLI_GO)
        return rc;
    const char *target = a.target, *thresholds = a.thresholds;
    int nb = a.nb, nh = a.nh, paired = nb || nh;
    if ((paired && (!nb || !nh || target)) || (!paired && !target))
        return gs_cli_usage_error(&gate_spec);
    gs_diag_opts o = a.d;
    gs_gate_limits lim;
    gs_gate_limits_init(&lim);
    gs_err err;
    gs_err_clear(&err);
    char defpath[4200];
    if (!thresholds && find_default_thresholds(defpath, sizeof defpath))
        thresholds = defpath;
    if (thresholds) {
        if (gs_gate_limits_load(&lim, thresholds, &err) != GS_OK) {
            fprintf(stderr, "gapscope gate: %s\n", err.msg);
            return 2;
        }
        if (!o.quiet)
            printf("thresholds: %s\n", thresholds);
    } else {
        lim.min_util = 0.90;
        lim.max_gap_p99_ms = 50;
        gs_gate_limits_set(&lim, NULL, "max_cause_share", "tracker_lock=0.05", "built-in", &err);
        if (!o.quiet)
            printf("thresholds: built-in defaults\n");
    }
    for (int k = 0; k < a.nf; k++) {
        char where[64];
        snprintf(where, sizeof where, "--%s", a.fk[k]);
        if (gs_gate_limits_set(&lim, NULL, a.fk[k], a.fv[k], where, &err) != GS_OK) {
            fprintf(stderr, "gapscope gate: %s\n", err.msg);
            return 2;
        }
    }
    char(*sdirs)[GS_SCN_PATH_MAX] = NULL;
    if (a.slurm.on) {
        if ((rc = slurm_runs(&a, &sdirs, o.quiet)) >= 0) {
            free(sdirs);
            return rc;
        }
        nb = a.nb;
        nh = a.nh;
    } else if (!gs_cli_slurm_apply(&(gs_slurm_opts){0}, &a.slurm, "gate"))
        return 2;
    else if (a.reps || a.base_bin) {
        fprintf(stderr, "gapscope gate: --reps and --base-bin need --slurm\n");
        return 2;
    }
    char rundir[4200];
    if (target && is_scenario(target)) {
        rc = run_scenario(target, a.sets.v, a.sets.n, a.seed, a.run_out, o.quiet, rundir,
                          sizeof rundir);
        if (rc)
            return rc;
        target = rundir;
    }
    gs_gate_result res;
    gs_gate_result_init(&res, paired ? "paired" : "single");
    int n_load = paired ? nb + nh : 1;
    rc = 0;
    gs_run *runs = calloc((size_t)n_load, sizeof *runs);
    const gs_run **pr = calloc((size_t)n_load, sizeof *pr);
    if (!runs || !pr) {
        free(runs);
        free(pr);
        return 3;
    }
    int loaded = 0;
    for (; loaded < n_load; loaded++) {
        const char *p = !paired ? target : loaded < nb ? a.base[loaded] : a.head[loaded - nb];
        if (gs_run_load(&runs[loaded], p, &o.cfg, &err) != GS_OK) {
            fprintf(stderr, "gapscope gate: %s\n", err.msg);
            rc = 2;
            goto done;
        }
        pr[loaded] = &runs[loaded];
    }
    if (a.slurm.on)
        hw_note(runs, nb, nh);
    gs_status st = paired ? gs_gate_paired(&res, pr, (size_t)nb, pr + nb, (size_t)nh, &lim)
                          : gs_gate_evaluate(&res, &runs[0], &lim);
    if (st != GS_OK) {
        rc = 3;
        goto done;
    }
    if (!paired && !o.quiet) {
        char v[1024];
        gs_analysis_verdict(v, sizeof v, runs[0].an);
        printf("run: %s\n%s\n", runs[0].dir, v);
    }
    gs_gate_print(&res, stdout);
    char p1[4300], p2[4300];
    const char *dir = a.out ? a.out : paired ? "." : runs[0].dir;
    gs_path_join(p1, sizeof p1, dir, "gate.junit.xml");
    gs_path_join(p2, sizeof p2, dir, "gate.json");
    /* --out is created when missing; a failed write leaves it as it was. */
    static const char *const outputs[] = {"gate.junit.xml", "gate.json", NULL};
    gs_outdir od;
    if (gs_outdir_begin(&od, dir, outputs, &err) != GS_OK) {
        fprintf(stderr, "gapscope gate: %s\n", err.msg);
        rc = 2;
        goto done;
    }
    if (gs_gate_write_junit(&res, p1, &err) != GS_OK || gs_gate_write_json(&res, p2, &err) != GS_OK) {
        fprintf(stderr, "gapscope gate: %s\n", err.msg);
        rc = gs_outdir_end(&od, 3);
        goto done;
    }
    gs_outdir_commit(&od);
    if (!o.quiet)
        printf("wrote %s and %s\n", p1, p2);
    rc = res.pass ? 0 : 1;
done:
    for (int i = 0; i < loaded; i++)
        gs_run_free(&runs[i]);
    free(runs);
    free(pr);
    free(sdirs);
    gs_gate_result_free(&res);
    return rc;
}

GS_CLI_COMMAND(gate, "gate", "check utilization thresholds of a run (CI gate; exit 1 on failure)",
               gate_main)
