/*
 * gapscope gate: utilization thresholds on a run (or a scenario it runs
 * first), or a paired base/head comparison.  Exit 0 pass, 1 fail,
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
#include "../common/outdir.h"
#include "cli.h"
#include "diag_cli.h"

#define MAX_RUNS 256
#define MAX_FLAGS 64

static void usage(FILE *f)
{
    fprintf(f,
            "usage: gapscope gate RUN_DIR|spans.csv|SCENARIO.ini [limits] [options]\n"
            "       gapscope gate --base DIR... --head DIR... [limits] [options]\n"
            "  Checks a run against utilization limits (a SCENARIO.ini is run first) and\n"
            "  exits 0 when every check holds, 1 when any fails (2: bad input).  Writes\n"
            "  gate.junit.xml and gate.json.  Paired mode compares N base and M head runs\n"
            "  (one-sided Mann-Whitney U test plus a practical-significance floor).\n"
            "limits (override the thresholds file):\n"
            "  --min-util X               per device: kernels-or-copies busy / span >= X\n"
            "  --min-util-kernels X       per device: kernels busy / span >= X\n"
            "  --max-gap-p99 DUR          per device: nearest-rank p99 idle gap <= DUR (50ms)\n"
            "  --max-gap-max DUR          per device: longest idle gap <= DUR\n"
            "  --max-cause-share C=X      idle of cause or group C / summed span <= X (repeatable)\n"
            "  --max-failed-jobs N        failed + unfinished jobs <= N\n"
            "  --alpha X, --min-util-drop X, --min-gap-p99-increase DUR   (paired mode)\n"
            "options:\n"
            "  --thresholds FILE   INI limits (default: ci/thresholds.ini next to the binary,\n"
            "                      else built-in: min_util 0.90, max_gap_p99 50ms,\n"
            "                      tracker_lock 0.05)\n"
            "  --out DIR           where gate.junit.xml/gate.json go, created when missing\n"
            "                      (default: the run directory; paired: the current one)\n"
            "  --set S.K=V, --seed N, --run-out DIR   (SCENARIO mode: passed to the run)\n"
            "  --micro-ms X, --bin-s X, --quiet\n");
}

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

static int gate_main(int argc, char **argv)
{
    gs_diag_opts o;
    gs_diag_opts_init(&o);
    o.cfg.progress = 0;
    const char *target = NULL, *thresholds = NULL, *out = NULL, *seed = NULL, *run_out = NULL;
    const char *base[MAX_RUNS], *head[MAX_RUNS], *sets[MAX_FLAGS];
    const char *fk[MAX_FLAGS], *fv[MAX_FLAGS];
    int nb = 0, nh = 0, nsets = 0, nf = 0, mode = 0; /* mode 1 base, 2 head */
    static const char *const flags[][2] = {
        {"--min-util", "min_util"}, {"--min-util-kernels", "min_util_kernels_only"},
        {"--max-gap-p99", "max_gap_p99"}, {"--max-gap-max", "max_gap_max"},
        {"--max-cause-share", "max_cause_share"}, {"--max-failed-jobs", "max_failed_jobs"},
        {"--alpha", "alpha"}, {"--min-util-drop", "min_util_drop"},
        {"--min-gap-p99-increase", "min_gap_p99_increase"}};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        int more = i + 1 < argc, k = gs_diag_parse_common(argc, argv, &i, &o), hit = 0;
        if (k < 0) {
            fprintf(stderr, "gapscope gate: bad value for %s\n", argv[i - 1]);
            return 2;
        }
        if (k)
            continue;
        for (size_t f = 0; f < sizeof flags / sizeof flags[0]; f++)
            if (!strcmp(a, flags[f][0]) && more && nf < MAX_FLAGS) {
                fk[nf] = flags[f][1];
                fv[nf++] = argv[++i];
                hit = 1;
                break;
            }
        if (hit)
            continue;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(a, "--thresholds") && more)
            thresholds = argv[++i];
        else if (!strcmp(a, "--out") && more)
            out = argv[++i];
        else if (!strcmp(a, "--run-out") && more)
            run_out = argv[++i];
        else if (!strcmp(a, "--seed") && more)
            seed = argv[++i];
        else if (!strcmp(a, "--set") && more && nsets < MAX_FLAGS)
            sets[nsets++] = argv[++i];
        else if (!strcmp(a, "--base"))
            mode = 1;
        else if (!strcmp(a, "--head"))
            mode = 2;
        else if (a[0] == '-') {
            fprintf(stderr, "gapscope gate: unknown option '%s' (--help for usage)\n", a);
            return 2;
        } else if (mode == 1 && nb < MAX_RUNS)
            base[nb++] = a;
        else if (mode == 2 && nh < MAX_RUNS)
            head[nh++] = a;
        else if (!mode && !target)
            target = a;
        else {
            usage(stderr);
            return 2;
        }
    }
    int paired = nb || nh;
    if ((paired && (!nb || !nh || target)) || (!paired && !target)) {
        usage(stderr);
        return 2;
    }
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
    for (int k = 0; k < nf; k++) {
        char where[64];
        snprintf(where, sizeof where, "--%s", fk[k]);
        if (gs_gate_limits_set(&lim, NULL, fk[k], fv[k], where, &err) != GS_OK) {
            fprintf(stderr, "gapscope gate: %s\n", err.msg);
            return 2;
        }
    }
    char rundir[4200];
    if (target && is_scenario(target)) {
        int rc = run_scenario(target, sets, nsets, seed, run_out, o.quiet, rundir, sizeof rundir);
        if (rc)
            return rc;
        target = rundir;
    }
    gs_gate_result res;
    gs_gate_result_init(&res, paired ? "paired" : "single");
    int n_load = paired ? nb + nh : 1, rc = 0;
    gs_run *runs = calloc((size_t)n_load, sizeof *runs);
    const gs_run **pr = calloc((size_t)n_load, sizeof *pr);
    if (!runs || !pr) {
        free(runs);
        free(pr);
        return 3;
    }
    int loaded = 0;
    for (; loaded < n_load; loaded++) {
        const char *p = !paired ? target : loaded < nb ? base[loaded] : head[loaded - nb];
        if (gs_run_load(&runs[loaded], p, &o.cfg, &err) != GS_OK) {
            fprintf(stderr, "gapscope gate: %s\n", err.msg);
            rc = 2;
            goto done;
        }
        pr[loaded] = &runs[loaded];
    }
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
    const char *dir = out ? out : paired ? "." : runs[0].dir;
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
    gs_gate_result_free(&res);
    return rc;
}

GS_CLI_COMMAND(gate, "gate", "check utilization thresholds of a run (CI gate; exit 1 on failure)",
               gate_main)
