/*
 * Internal to `gapscope cuda-bench` (cmd_cuda_bench.c: the argument table
 * and parsing; cuda_bench_run.c: the measurements of prover/cuda/bench.h,
 * their table lines and JSON).  Not a contract.
 */
#ifndef GS_CLI_CUDA_BENCH_H
#define GS_CLI_CUDA_BENCH_H

#include <stdio.h>

#include "../common/status.h"
#include "../prover/cuda/bench.h"

/* The arguments of the table in cmd_cuda_bench.c. */
enum { A_FIELD, A_NTT, A_MSM, A_MSM2, A_H2D, A_PROVE, A_G2DEV, A_CLASSIC, A_CHECK, A_REPS, A_WINDOW,
       A_COPIES, A_BOOL, A_STAGING, A_VARIANTS, A_SETS, A_DEVICE, A_JSON, A_HELP, A_COUNT };

/* --sets: knob sets each measurement runs under in turn (on the same
 * inputs: a prove's key is built and made resident once).  A set is
 * "default" (the knobs as the flags left them) or KEY=VALUE,... of knobs
 * read at every run (not GS_CU_KF_ONCE ones); tag: its text, which names
 * its records ("cuda/msm_g1/24@msm_ba=1") and table lines. */
#define GS_CUDA_BENCH_MAX_SETS 12
#define GS_CUDA_BENCH_SET_KNOBS 6
typedef struct {
    char tag[80];
    int n;
    int knob[GS_CUDA_BENCH_SET_KNOBS], value[GS_CUDA_BENCH_SET_KNOBS];
} gs_cuda_bench_set;

/* --staging bits: which ways a/b/c and the witness reach the device. */
enum { STG_PINNED = 1, STG_PAGEABLE = 2, STG_DIRECT = 4 };

/* The parsed command line (on[A_*]: given; lo/hi: ranges of A_NTT, A_MSM,
 * A_MSM2, A_PROVE). */
typedef struct {
    int on[A_COUNT];
    unsigned lo[A_COUNT], hi[A_COUNT];
    int reps, window, device, copies, bool_pct, staging, h2d_log;
    const char *json, *variants;
    int nsets;                 /* 0: no --sets (one pass, untagged names) */
    gs_cuda_bench_set sets[GS_CUDA_BENCH_MAX_SETS];
} gs_cuda_bench_opts;

/* Parses --sets' text into out[] (at most GS_CUDA_BENCH_MAX_SETS): the
 * count, or -1 with what was wrong in why. */
int gs_cuda_bench_parse_sets(gs_cuda_bench_set *out, const char *text, char *why, size_t len);

/* The next "FV/MINB" item of *vp (MINB 1 when left out) into *fv, *minb;
 * advances *vp past it and its comma; 0 on a bad item. */
int gs_cuda_bench_next_variant(const char **vp, int *fv, int *minb);
/* Runs every measurement o selects on b, in the order field, h2d, ntt,
 * msm, msm-g2, prove, writing the table to out (one line per measurement),
 * then the JSON when o->json is set. */
gs_status gs_cuda_bench_run(gs_cu_bench *b, const gs_cuda_bench_opts *o, FILE *out, gs_err *err);

#endif
