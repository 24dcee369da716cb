/*
 * Internal to prover/cuda's .cu files: the context structure and the
 * error-checking macros.  Every CUDA call goes through CU_TRY, which turns
 * a failure into GS_ERR_CUDA naming the call and CUDA's message, and
 * returns it (functions that own resources release them with CU_TRY_GO /
 * a fail label instead).
 */
#ifndef GS_CU_INTERNAL_CUH
#define GS_CU_INTERNAL_CUH

#include <cuda_runtime.h>
#include <stdint.h>

#include "cuda_dev.h"
#include "cu_ec.cuh"
#include "knobs.h"

extern "C" {
#include "../../common/clock.h"
}

#define CU_TRY(call)                                                          \
    do {                                                                      \
        cudaError_t cu_e_ = (call);                                           \
        if (cu_e_ != cudaSuccess)                                             \
            return GS_ERR(err, GS_ERR_CUDA, "cuda", "%s: %s (%s)", #call,     \
                          cudaGetErrorString(cu_e_), cudaGetErrorName(cu_e_)); \
    } while (0)

#define CU_TRY_GO(call)                                                       \
    do {                                                                      \
        cudaError_t cu_e_ = (call);                                           \
        if (cu_e_ != cudaSuccess) {                                           \
            st = GS_ERR(err, GS_ERR_CUDA, "cuda", "%s: %s (%s)", #call,       \
                        cudaGetErrorString(cu_e_), cudaGetErrorName(cu_e_));  \
            goto fail;                                                        \
        }                                                                     \
    } while (0)

/* After a kernel launch: launch errors (bad configuration, sticky faults). */
#define CU_LAUNCHED(what) CU_TRY(cudaGetLastError())

#define GS_CU_PIN_CHUNK ((size_t)64 << 20)
#define GS_CU_MSM_MAXWIN 64     /* windows of any c >= 4 for 255-bit scalars */
#define GS_CU_MSM_PARTS 32      /* per-window partial sums handed to the host */

/* MSM scratch, carved from one device region grown on demand; the
 * batch-affine level 1's per-thread prefix products (msm_ba) apart. */
struct cu_msm_scratch {
    void *base;
    size_t bytes;
    void *cub_temp;
    size_t cub_bytes;
    void *ba;
    size_t ba_bytes;
};

/* The shape of an MSM (cu_msm.cu): n scalars in nwin signed c-bit windows,
 * taken t windows at a time ("groups": window g t + j of point i uses the
 * precomputed copy j, 2^(j c) P_i, so the t windows of a group share one
 * set of buckets); entry value = sign << 31 | j << jshift | scalar index.
 * glv (G1, t = 1, the knob msm_glv): every scalar split in two 128-bit
 * halves (prover/curve/glv.h), nwin windows of each, both halves of a
 * window in its group; j = 1 marks the half over phi(P) (cu_msm.cuh). */
#define GS_CU_MSM_MAXLVL 8
#define GS_CU_MSM_BATR 10       /* batch-affine rounds at most (msm_bat; then XYZZ levels) */
struct cu_msm_plan {
    size_t n;
    unsigned c, nwin, t, ngrp, jshift;
    unsigned glv;                 /* 1: GLV halves, entries per scalar 2 nwin */
    uint32_t B, K;                /* buckets per group (|d| max), key space ngrp << c */
    uint64_t ntot_max;            /* n * nwin (* 2 with glv): entries when no scalar is 0 or 1 */
    unsigned s1log;               /* level 1 sums chunks of 2^s1log entries (MSM_S1 or more) */
    uint32_t t1max, t2max;        /* partial-sum bounds of level 1 and later levels */
    uint32_t L, T;                /* reduction segment length, segments per group */
    int maxlvl;                   /* accumulation levels the scratch has room for */
    size_t psz;                   /* XYZZ point bytes of the curve (G1 or G2) */
    unsigned bat;                 /* level 1 by the batch-affine tree (G1, msm_bat) */
    unsigned bslab;               /* its groups per launch (a slab) */
    uint64_t blist[2];            /* its list buffers' points (a slab's entries / 2, / 4, + keys) */
};

/* Scalars prepared by gs_cu_msm_prepare, for every MSM run on them until
 * the next prepare: scalars > 1 ("big", n_big of them) as sorted bucket
 * entries, scalars equal to 1 as a list of indices (n_one), 0s dropped. */
struct cu_msm_prep {
    int valid;
    cu_msm_plan p;
    uint32_t n_big, n_one;
    int levels;                   /* accumulation levels after the first */
    int sel;                      /* half of keys/vals that holds the sorted entries */
    int flat;                     /* level 1 by flat S1-entry chunks (else per bucket) */
    int ba;                       /* flat level 1 by batch-affine pairs (G1, msm_ba) */
    int bat_rounds;               /* the batch-affine tree's rounds (plan's bat), 1 .. GS_CU_MSM_BATR */
};

struct gs_cu_dev {
    int device;
    char desc[256];
    int sm_count;
    cudaStream_t stream;           /* the current one of streams[] */

    cudaEvent_t mark[GS_CU_MARKS];
    cudaEvent_t ref;
    int64_t ref_host_ns;

    /* Pinned staging: two chunks, each with the event of its last copy. */
    void *pin[2];
    cudaEvent_t pin_done[2];

    /* NTT twiddles: tw[m + j] = w_(2m)^j, 2^tw_log entries (0: none). */
    cu_fr *tw;
    unsigned tw_log;

    cu_msm_scratch msm;
    cu_msm_prep prep;
    /* Second stream (copies + NTT beside the MSMs), and the stream the
     * enqueueing functions use now (gs_cu_use_stream). */
    cudaStream_t streams[2];
    cudaEvent_t xev[2];            /* cross-stream dependencies */
    int prio1;                     /* stream 1's priority (CUDA: lower = higher) */
    uint32_t *cnt_host;            /* pinned: MSM preparation counts */
    /* MSM result slots: per-window partial sums (XYZZ points of the curve
     * res_g2 names), pinned host and device, GS_CU_SLOT_BYTES each. */
    char *res_dev;
    char *res_host;
    int res_nwin[GS_CU_MSM_SLOTS], res_c[GS_CU_MSM_SLOTS], res_parts[GS_CU_MSM_SLOTS];
    int res_g2[GS_CU_MSM_SLOTS];
};

/*
 * Variant bits of the G1 level-1 accumulation and of the Fp test and
 * benchmark kernels, for A/B runs on the device: the knob msm_fv (knobs.h;
 * GS_CU_FV in the environment; read at each MSM), default CU_FV_DEFAULT.
 * CU_FV_INL = the rare doubling inlined into the madd (no stack frame),
 * CU_FV_SQR (cu_field.cuh) = the dedicated squaring, CU_FV_LAZY = lazy reduction in the madd,
 * CU_FV_INLN = XYZZ additions inlined in level N and the bucket reduction
 * (retired 2026-12-04 with the level-1 variants FV 0-7: compile time; the
 * bit is now ignored),
 * CU_FV_CALL = (with LAZY) the madd's multiplications and squarings out of
 * line, one body each, so the bucket loop's code fits the instruction cache
 * (cu_ec.cuh's cu_ops_lazy_call).  CU_FV_G2CALL = G2's level 1 (the only
 * bit G2 reads) with its doubling inlined and the Fp2 multiplications out
 * of line by value (cu_ec.cuh's cu_ops_fp2_call) instead of by reference.
 * CU_FV_NCALL = G1's level N and bucket reduction with the XYZZ additions'
 * and doublings' multiplications out of line by value (cu_ec.cuh's
 * cu_ops_reduced_call, xyzz_add_n).
 * The knob msm_minb (GS_CU_MSM_MINB): blocks per SM asked of ptxas for
 * that kernel (default 3; the FV / MINB pairs built are listed in
 * fv_launch_flat: since 2026-12-04 only FV & 23 = 23, i.e. the CALL
 * family, at MINB 2, 3, 4).
 * The flat level 1 takes FV & (7 | CU_FV_CALL) (fv_launch_flat).
 */
#define CU_FV_INL 1
#define CU_FV_LAZY 4
#define CU_FV_INLN 8
#define CU_FV_CALL 16 /* with LAZY: the madd's multiplications out of line (cu_ops_lazy_call) */
#define CU_FV_G2CALL GS_CU_FV_G2CALL /* 32: G2's level 1, Fp2 multiplications by value (cu_ops_fp2_call) */
#define CU_FV_NCALL 64 /* level N and the bucket reduction: XYZZ additions with their multiplications out of line */
#define CU_FV_DEFAULT 127 /* all seven: fastest on the H200, 2026-12-04 (bench/RESULTS.md) */
int cu_fv_bits(void);
int cu_msm_minb(void);

/* Size of one result slot: the most points, of the larger (G2) kind. */
#define GS_CU_SLOT_POINTS (GS_CU_MSM_MAXWIN * GS_CU_MSM_PARTS)
#define GS_CU_SLOT_BYTES (GS_CU_SLOT_POINTS * sizeof(cu_g2_xyzz))

#endif
