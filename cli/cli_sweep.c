/*
 * gapscope sweep SCENARIO --vary KEY=v1,v2,... [--vary ...] [--reps N]
 *                [--out DIR] [--seed N] [--set section.key=value]... [--quiet]
 * gapscope sweep --predict CAPTURE --vary ... (every run a prediction)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_run.h"
#include "../scenarios/run.h"

#define MAX_ARGS 64

static void usage(FILE *f)
{
    fprintf(f, "usage: gapscope sweep SCENARIO --vary KEY=v1,v2,... [--vary ...] [--reps N] [options]\n"
               "       gapscope sweep --predict CAPTURE --vary KEY=v1,v2,... [options]\n"
               "Runs SCENARIO at every combination of the values, N times each, plus N baseline runs\n"
               "(varied injections off), in one randomized interleaved order; writes sweep.csv,\n"
               "sweep.dat and sensitivity.csv (slope of GPU idle per unit of each key, 95%% CI).\n\n"
               "  --vary inject.POINT=0ms,20ms,50ms   injected delay at POINT (fixed; 0 = off)\n"
               "  --vary SECTION.KEY=a,b,c            any scenario key (split at '|' when present)\n"
               "  --reps N        repetitions per point (default 3)\n"
               "  --out DIR       output folder (default runs/sweep-<scenario>)\n"
               "  --seed N        order of the runs (default 1)\n"
               "  --set K=V       override a setting in every run (repeatable)\n"
               "  --predict CAPTURE  sweep predictions instead of real runs: the capture's own\n"
               "                  scenario on its fitted model (gapscope predict), no SCENARIO\n"
               "  --quiet         no progress lines\n"
               "SIGINT/SIGTERM: the running run stops cleanly (see `gapscope run --help`), the\n"
               "tables cover the complete runs, exit status 128 + signal.\n");
}

int gs_scn_cmd_sweep(int argc, char **argv)
{
    const char *vary[MAX_ARGS], *sets[MAX_ARGS], *scenario = NULL;
    int nv = 0, ns = 0;
    gs_sweep_opts o = {.reps = 3, .seed = 1};
    char out[600];
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        int more = i + 1 < argc;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(a, "--vary") && more && nv < MAX_ARGS)
            vary[nv++] = argv[++i];
        else if (!strcmp(a, "--set") && more && ns < MAX_ARGS)
            sets[ns++] = argv[++i];
        else if (!strcmp(a, "--reps") && more)
            o.reps = atoi(argv[++i]);
        else if (!strcmp(a, "--seed") && more)
            o.seed = strtoull(argv[++i], NULL, 0);
        else if (!strcmp(a, "--out") && more)
            o.out_dir = argv[++i];
        else if (!strcmp(a, "--quiet") || !strcmp(a, "-q"))
            o.quiet = 1;
        else if (!strcmp(a, "--predict") && more)
            o.predict = argv[++i];
        else if (a[0] != '-' && !scenario)
            scenario = a;
        else {
            fprintf(stderr, "gapscope sweep: unexpected argument '%s'\n", a);
            usage(stderr);
            return 2;
        }
    }
    if ((!scenario && !o.predict) || (scenario && o.predict) || nv == 0 || o.reps < 1) {
        usage(stderr);
        return 2;
    }
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
    o.vary = vary;
    o.n_vary = nv;
    o.sets = sets;
    o.n_sets = ns;
    gs_err err;
    gs_err_clear(&err);
    o.stop = &gs_scn_interrupt_sig;
    gs_scn_interrupt_install();
    gs_status st = gs_scn_sweep(&o, &err);
    gs_scn_interrupt_restore();
    if (st != GS_OK) {
        fprintf(stderr, "gapscope sweep: %s\n", err.msg);
        return 2;
    }
    printf("sweep: %s/sweep.csv, %s/sensitivity.csv%s\n", o.out_dir, o.out_dir,
           gs_scn_interrupt_sig ? " (interrupted: complete runs only)" : "");
    return gs_scn_interrupt_sig ? 128 + gs_scn_interrupt_sig : 0;
}
