/*
 * Microbenchmarks of the CUDA backend's pieces on one device: what
 * `gapscope cuda-bench` measures (bench/RESULTS.md).  Each measurement
 * runs a warm-up, then `reps` timed repetitions (at most
 * GS_CU_BENCH_MAX_REPS), and returns every repetition's time; the caller
 * aggregates, prints and records them.  The tuning knobs in effect
 * (knobs.h) apply to every measurement, read where they act.
 *
 * Inputs are drawn on the device or replicated from a few thousand
 * distinct points: timing-representative, not proofs anyone should verify
 * (the synthetic key has no trapdoor relation); correctness is what the
 * cuda_* tests check.
 *
 * Ownership: gs_cu_bench_open allocates the bench (a device context, a CPU
 * pool for the checks, and the inputs of the measurement in progress);
 * gs_cu_bench_close frees all of it.  One thread at a time.  Built without
 * CUDA, gs_cu_bench_open returns GS_ERR_UNSUPPORTED (and nothing else can
 * be called).
 */
#ifndef GS_CU_BENCH_H
#define GS_CU_BENCH_H

#include <stdint.h>

#include "../../common/status.h"
#include "../groth16/backend.h"

#define GS_CU_BENCH_MAX_REPS 64

typedef struct gs_cu_bench gs_cu_bench;

gs_status gs_cu_bench_open(gs_cu_bench **out, int device, gs_err *err);
void gs_cu_bench_close(gs_cu_bench *b);
/* "NVIDIA H200 (sm_90, 132 SMs, 139 GiB), CUDA driver 13.0"; owned by b. */
const char *gs_cu_bench_device(const gs_cu_bench *b);

/* ---- field: dependent Montgomery multiply chains over the whole chip ---- */
#define GS_CU_BENCH_FIELD_KINDS 11
/* "fp_mul", "fr_mul", "fp_sqr_mul" (squaring as a multiply), "fp_sqr",
 * "fp_mul_lazy", "fp_sqr_lazy", "fp_mul_lazy_cios", "fr_mul_cios",
 * "fp_mul_lazy_kara" (the knob msm_kmul's multiplication),
 * "fp_mul_lazy_f64" (msm_fmul = 1's: on the FP64 pipe), "fp_mul_lazy_mix"
 * (two independent chains, one integer and one FP64: msm_fmul = 2's pairs). */
const char *gs_cu_bench_field_name(int kind);
/* One run of kind (< GS_CU_BENCH_FIELD_KINDS): ns per operation of the chip. */
gs_status gs_cu_bench_field(gs_cu_bench *b, int kind, double *ns_per_op, gs_err *err);

/* ---- NTT ------------------------------------------------------------------ */
/* Forward NTT (natural order) of 2^k random elements on the device: event
 * time of each repetition in ms[reps].  log_max (>= k): the largest size of
 * the series; twiddles and the buffer are made for it on the first call. */
gs_status gs_cu_bench_ntt(gs_cu_bench *b, unsigned k, unsigned log_max, int reps, double *ms,
                          gs_err *err);

/* ---- host -> device copies -------------------------------------------------- */
typedef enum {
    GS_CU_H2D_STAGED,    /* through the context's pinned buffers (copy_threads knob) */
    GS_CU_H2D_PAGEABLE,  /* cudaMemcpyAsync from pageable memory */
    GS_CU_H2D_DIRECT,    /* from the buffer page-locked in place (cudaHostRegister) */
} gs_cu_h2d_path;
/* Copies 2^log scalars (32 bytes each) from one host buffer (kept for the
 * series) to the device by `path`: wall time of upload + sync per
 * repetition in ms[reps].  DIRECT registers the buffer before the
 * repetitions and unregisters it after: those times in *reg_ms and
 * *unreg_ms (else 0). */
gs_status gs_cu_bench_h2d(gs_cu_bench *b, unsigned log, gs_cu_h2d_path path, int reps, double *ms,
                          double *reg_ms, double *unreg_ms, gs_err *err);

/* ---- MSM --------------------------------------------------------------------- */
typedef struct gs_cu_bench_msm_plan {
    unsigned c, t;          /* with copies: window bits and copies (else 0, 1) */
    double precompute_s;    /* time to precompute the copies */
} gs_cu_bench_msm_plan;
/* Inputs of an MSM series of at most 2^log_max: points (4096 distinct,
 * replicated on the device) and random scalars, G1 or (g2) G2.  copies > 1
 * (G1 only): the points get precomputed window copies for window `window`
 * (all `copies` of them), or with window 0 the plan gs_cu_msm_pick chooses
 * for 2^log_max with at most `copies`. */
gs_status gs_cu_bench_msm_setup(gs_cu_bench *b, int g2, unsigned log_max, int copies, int window,
                                gs_cu_bench_msm_plan *plan, gs_err *err);
/* MSM of the first 2^k points and scalars (window bits; 0 automatic;
 * ignored with copies): per repetition the device time (events: the MSM
 * and the fetch of its window sums) in dev_ms[reps] and the host's window
 * combination in host_ms[reps].  Variant knobs (msm_fv, msm_minb) are
 * read at every MSM. */
gs_status gs_cu_bench_msm(gs_cu_bench *b, unsigned k, int window, int reps, double *dev_ms,
                          double *host_ms, gs_err *err);
/* Compares the last result of gs_cu_bench_msm (size 2^k) with the CPU MSM
 * of the same points and scalars: *equal. */
gs_status gs_cu_bench_msm_check(gs_cu_bench *b, unsigned k, int *equal, gs_err *err);

/* ---- proofs through the backend ------------------------------------------------ */
typedef struct gs_cu_bench_key {
    double build_s, load_s;  /* synthetic key and assignment built; load_pk */
    char plan[96];           /* the backend's MSM plan for it */
} gs_cu_bench_key;
/* A synthetic key of domain 2^k (n_vars = 2^k, B2 density 1/16, classic:
 * the classic H convention, else snarkjs's) and a random assignment
 * (bool_pct% of the witness 0 or 1), made resident on a CUDA backend
 * (created on the first call: the raw device context is released then). */
gs_status gs_cu_bench_prove_setup(gs_cu_bench *b, unsigned k, int bool_pct, int classic,
                                  gs_cu_bench_key *info, gs_err *err);
/* Page-locks the assignment's buffers in place / undoes it (ms taken). */
gs_status gs_cu_bench_pin(gs_cu_bench *b, double *ms, gs_err *err);
void gs_cu_bench_unpin(gs_cu_bench *b, double *ms);
typedef struct gs_cu_bench_proof {
    int64_t t0_ns;           /* prove_start called (gs_now_ns) */
    double start_ms, finish_ms;
    gs_stage_list stages;    /* what prove_start and prove_finish reported */
    char plan[96];           /* the backend's MSM plan after it (B2's once a proof ran it) */
} gs_cu_bench_proof;
/* One proof (prove_start + prove_finish) of the set-up key; rep picks the
 * blinding r (3 + rep; s = 5). */
gs_status gs_cu_bench_prove(gs_cu_bench *b, int pageable, int g2_on_device, int rep,
                            gs_cu_bench_proof *out, gs_err *err);

#endif
