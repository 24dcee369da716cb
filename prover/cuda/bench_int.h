/*
 * Internal to the microbenchmarks (bench.h): the bench object shared by
 * bench_ops.c (open, close, field, NTT, copies), bench_msm.c and
 * bench_prove.c.  Not a contract.
 */
#ifndef GS_CU_BENCH_INT_H
#define GS_CU_BENCH_INT_H

#include "../../common/pool.h"
#include "../curve/curve.h"
#include "bench.h"
#include "cuda_dev.h"

#ifdef GS_HAVE_CUDA

struct gs_cu_bench {
    int device;
    gs_cu_dev *dev;            /* NULL once the proofs' backend took the device */
    gs_pool *pool;             /* CPU threads for the MSM checks */
    char desc[256];
    /* NTT series: table and buffer for 2^ntt_log (0: none yet). */
    unsigned ntt_log;
    gs_fr *ntt_x;
    /* Copies: a host buffer of 2^h2d_log scalars and its device twin. */
    unsigned h2d_log;
    char *h2d_host;
    void *h2d_dev;
    /* MSM series: points (with copies: t per point, stride msm_n), scalars,
     * the host's distinct base points, the last result. */
    int msm_g2, msm_copies;
    unsigned msm_c, msm_t;
    size_t msm_n, msm_nbase;
    void *msm_pts;
    gs_scalar *msm_sc;
    void *msm_base;
    union { gs_g1 g1; gs_g2 g2; } msm_res;
    /* Proofs: the backend, the synthetic key and its assignment. */
    gs_backend *be;
    gs_pk pk;
    gs_assignment as;
    int key_built, pinned;
};

/* Frees every series' inputs (NTT, copies, MSM), before another starts. */
void gs_cu_bench_drop(gs_cu_bench *b);
/* Frees the MSM series' buffers (device and host). */
void gs_cu_bench_msm_free(gs_cu_bench *b);
/* Frees the proofs' key and assignment (not the backend). */
void gs_cu_bench_key_free(gs_cu_bench *b);
/* n distinct affine points P_0 = G, P_(i+1) = 2 (P_i + G) (scratch: n
 * projective points). */
void gs_cu_bench_g1_points(gs_g1_affine *out, gs_g1 *scratch, size_t n);
void gs_cu_bench_g2_points(gs_g2_affine *out, gs_g2 *scratch, size_t n);

#endif /* GS_HAVE_CUDA */

#endif
