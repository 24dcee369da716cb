/*
 * gapscope calibrate [--capture DIR | -o PROFILE] [--log N] [--msm-log N]
 *                    [--threads N] [--quiet]
 *
 * Measures this machine's profile (model/calibrate.c): how synthesis,
 * the GPU worker's host prep and the CPU G2 MSM slow as threads are
 * added, the pinned staging copy beside busy synthesis threads, the
 * vCPUs one by one, a host copy's bandwidth, the witness's copy into
 * fresh memory and (with CUDA) page-locking, and writes
 * it as JSON (model/MODEL.md, "Host contention").  Run it once per
 * machine, on the machine the captures come from: `gapscope predict`
 * reads DIR/machine-profile.json beside a capture, or --profile.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../model/model.h"
#include "../prover/cuda/cuda.h"
#include "../scenarios/run.h"
#include "cli.h"
#include "cli_opts.h"

typedef struct {
    const char *out, *capture;
    uint64_t log, msm_log, threads;
    int quiet;
} calibrate_args;

static const gs_cli_opt calibrate_opts[] = {
    GS_CLI_STR("--capture", NULL, "DIR", "write DIR/machine-profile.json (predict finds it beside the capture)",
               calibrate_args, capture),
    GS_CLI_STR("--out", "-o", "PROFILE", "write PROFILE (default machine-profile.json)", calibrate_args, out),
    GS_CLI_UINT("--log", "N", 64, "synthesis size 2^N constraints (default 18; the captures' size is best)",
                calibrate_args, log),
    GS_CLI_UINT("--msm-log", "N", 64, "CPU G2 MSM of 2^N points (default log - 2)", calibrate_args, msm_log),
    GS_CLI_UINT("--threads", "N", 4096, "most threads (default twice the online CPUs)", calibrate_args,
                threads),
    GS_CLI_FLAG("--quiet", "-q", "no progress lines", calibrate_args, quiet),
    GS_CLI_END};

static const gs_cli_spec calibrate_spec = {
    .cmd = "calibrate",
    .usage = "usage: gapscope calibrate [--capture DIR | -o PROFILE] [options]\n"
             "Measures this machine's host contention once: synthesis of the engine's circuit, the\n"
             "GPU worker's host prep and the CPU G2 MSM with 1, 2, 4, ... threads (up to twice the\n"
             "CPUs), each thread's CPU time per unit of work, so the slowdown beyond fair sharing\n"
             "(memory bandwidth, SMT siblings, clocks under load) is what is measured; the pinned\n"
             "staging copy's wall time beside 0, 2, 4, ... busy synthesis threads; the vCPUs one\n"
             "by one (a synthesis thread pinned to each, alone twice and all busy: whether this\n"
             "guest's vCPUs differ, or the host's load moves); then a host copy, the witness's\n"
             "copy into fresh memory (the CPU G2 MSM's state: alone, beside the CPU G2 MSMs, and\n"
             "beside those and 0, 2, 4, ... busy synthesis threads) and (CUDA) page-locking.  gapscope\n"
             "predict uses it for every stage the capture cannot tell (model/MODEL.md).\n\n",
    .opts = calibrate_opts,
    .bad = "unexpected argument '%s' (--help for usage)",
    .no_usage = GS_CLI_USAGE_OPT | GS_CLI_USAGE_ARG,
};

static int calibrate_main(int argc, char **argv)
{
    calibrate_args a = {.log = 18};
    int rc = gs_cli_parse(&calibrate_spec, &a, argc, argv, NULL);
    if (rc != GS_CLI_GO)
        return rc;
    const char *out = a.out, *capture = a.capture;
    gs_calibrate_opts o = {.log = (uint32_t)a.log, .msm_log = (uint32_t)a.msm_log, .max_threads = (int)a.threads,
                           .quiet = a.quiet, .pin_alloc = gs_cuda_assignment_alloc,
                           .pin_free = gs_cuda_assignment_free};
    if (!o.msm_log)
        o.msm_log = o.log > 10 ? o.log - 2 : 8;
    char path[4096];
    if (capture)
        snprintf(path, sizeof path, "%s/machine-profile.json", capture);
    else
        snprintf(path, sizeof path, "%s", out ? out : "machine-profile.json");
    gs_profile p;
    gs_err err;
    gs_err_clear(&err);
    gs_status st = gs_calibrate(&p, &o, &err);
    if (st == GS_OK) {
        gs_fingerprint fp;
        gs_fingerprint_get(&fp);
        snprintf(p.host_cpu, sizeof p.host_cpu, "%s", fp.cpu);
        snprintf(p.build, sizeof p.build, "%s", fp.git_rev);
        st = gs_profile_write(&p, path, &err);
    }
    if (st != GS_OK) {
        fprintf(stderr, "gapscope calibrate: %s\n", err.msg);
        return st == GS_ERR_ARG || st == GS_ERR_IO ? 2 : 3;
    }
    printf("%-10s %s\n", "class", "threads:speed (work per CPU second relative to one thread)");
    for (int k = 0; k < GS_MODEL_SPEED_CLASSES; k++) {
        if (!p.cls[k].n)
            continue;
        printf("%-10s", gs_model_speed_class_name(k));
        for (int i = 0; i < p.cls[k].n; i++)
            printf(" %g:%.3f", p.cls[k].threads[i], p.cls[k].speed[i]);
        if (p.cls[k].lane_cv > 0)
            printf("  (threads' spread %.0f%%)", 100 * p.cls[k].lane_cv);
        printf("\n");
    }
    if (p.n_cpus > 0) {
        /* The vCPUs one by one: a guest's vCPUs can differ (a host
         * hyperthread sibling busy with another guest, steal time). */
        printf("vCPUs      synthesis speed on each vCPU alone, relative to their mean (all busy: second line)\n");
        for (int a = 0; a < 2; a++) {
            printf("%-10s", a ? "  all busy" : "  alone");
            for (int i = 0; i < p.n_cpus; i++)
                printf(" %d:%.2f", i, a ? p.cpu_loaded[i] : p.cpu_solo[i]);
            printf("  (spread %.0f%%)\n", 100 * gs_profile_cpu_spread(&p, a));
        }
        printf("  two lone passes differ %.0f%% on average%s\n", 100 * p.cpu_drift,
               p.cpu_drift > 0.05 ? ": the vCPUs' speeds move while measured (other guests' load)" : "");
    }
    if (p.sbs_n > 0 || p.sru_n > 0) {
        /* CPU per unit against synthesis alone into fresh memory. */
        printf("synthesis");
        for (int i = 0; i < p.sbs_n; i++)
            printf("%s%.3fx at %g", i ? ", " : " beside one busy loop ", p.sbs_slow[i], p.sbs_synth[i]);
        for (int i = 0; i < p.sru_n; i++)
            printf("%s%.3fx at %g", i ? ", " : p.sbs_n ? "; into reused buffers (staging = direct) "
                                                        : " into reused buffers (staging = direct) ",
                   p.sru_ratio[i], p.sru_synth[i]);
        printf(" (CPU per unit)\n");
    }
    printf("host copy %.2f GB/s, page-locking %.2f GB/s\n", p.copy_gbps, p.pin_gbps);
    if (p.state_copy_gbps > 0) {
        printf("witness copy into fresh memory %.2f GB/s alone, beside the CPU G2 MSMs %.2f", p.state_copy_gbps,
               p.state_copy_busy_gbps);
        for (int i = 0; i < p.scs_n; i++)
            printf("%s%g synthesis threads: %.2f", i ? ", " : "; and ", p.scs_synth[i], p.scs_gbps[i]);
        printf("\n");
    }
    printf("wrote %s\n", path);
    return 0;
}

GS_CLI_COMMAND(calibrate, "calibrate", "measure this machine's host contention once (a profile predict reuses)",
               calibrate_main)
