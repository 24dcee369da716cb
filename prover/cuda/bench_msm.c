/*
 * Microbenchmarks (bench.h): the MSM series.  4096 distinct base points
 * (P_0 = G, P_(i+1) = 2 (P_i + G)) uploaded and replicated to 2^log_max on
 * the device, random scalars drawn there; the MSM timed by the context's
 * events (MSM + fetch of its window sums), the host's take + combine by the
 * host clock; the check against the CPU MSM of the same points
 * (base[i mod 4096]) and scalars.  With copies (G1) the points get their
 * precomputed window copies once and every MSM runs prepare + prepared.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include "../../common/clock.h"
#include "../../common/rng.h"
#include "../msm/msm.h"
#include "bench_int.h"

#ifdef GS_HAVE_CUDA

#define NBASE 4096

/* Both curves' (bench_int.h): one body, written once. */
#define BASE_POINTS(g)                                                            \
    void gs_cu_bench_##g##_points(gs_##g##_affine *out, gs_##g *scratch, size_t n) \
    {                                                                             \
        gs_##g gen, acc;                                                          \
        gs_##g##_generator(&gen);                                                 \
        acc = gen;                                                                \
        for (size_t i = 0; i < n; i++) {                                          \
            scratch[i] = acc;                                                     \
            gs_##g##_add(&acc, &acc, &gen);                                       \
            gs_##g##_dbl(&acc, &acc);                                             \
        }                                                                         \
        gs_##g##_batch_to_affine(out, scratch, n);                                \
    }
BASE_POINTS(g1)
BASE_POINTS(g2)

void gs_cu_bench_msm_free(gs_cu_bench *b)
{
    if (b->dev) {
        gs_cu_free(b->dev, b->msm_pts);
        gs_cu_free(b->dev, b->msm_sc);
    }
    free(b->msm_base);
    b->msm_pts = NULL;
    b->msm_sc = NULL;
    b->msm_base = NULL;
    b->msm_n = b->msm_nbase = 0;
    b->msm_copies = 0;
}

/* The base points on the host (b->msm_base) and n of them on the device. */
static gs_status points(gs_cu_bench *b, size_t n, gs_err *err)
{
    gs_status st;
    size_t nb = NBASE < n ? NBASE : n;
    size_t psz = b->msm_g2 ? sizeof(gs_g2) : sizeof(gs_g1);
    size_t asz = b->msm_g2 ? sizeof(gs_g2_affine) : sizeof(gs_g1_affine);
    void *jac = malloc(nb * psz);
    b->msm_base = malloc(nb * asz);
    b->msm_nbase = nb;
    if (!jac || !b->msm_base) {
        free(jac);
        return GS_ERR(err, GS_ERR_NOMEM, "cuda-bench", "base points");
    }
    if (b->msm_g2) gs_cu_bench_g2_points(b->msm_base, jac, nb);
    else gs_cu_bench_g1_points(b->msm_base, jac, nb);
    free(jac);
    if ((st = gs_cu_alloc(b->dev, &b->msm_pts, n * (b->msm_g2 ? 192 : 96), err)) != GS_OK) return st;
    st = b->msm_g2 ? gs_cu_g2_upload(b->dev, b->msm_pts, b->msm_base, NULL, nb, err)
                   : gs_cu_g1_upload(b->dev, b->msm_pts, b->msm_base, nb, err);
    if (st == GS_OK)
        st = b->msm_g2 ? gs_cu_g2_replicate(b->dev, b->msm_pts, n, nb, err)
                       : gs_cu_g1_replicate(b->dev, b->msm_pts, n, nb, err);
    return st;
}

#define TRY(x) do { if ((st = (x)) != GS_OK) return st; } while (0)

gs_status gs_cu_bench_msm_setup(gs_cu_bench *b, int g2, unsigned log_max, int copies, int window,
                                gs_cu_bench_msm_plan *plan, gs_err *err)
{
    gs_status st;
    gs_cu_dev *d = b->dev;
    size_t nmax = (size_t)1 << log_max;
    if (!d) return GS_ERR(err, GS_ERR_STATE, "cuda-bench", "the device went to the proofs");
    /* Another series' buffers go first (the NTT's, the copies'). */
    gs_cu_bench_drop(b);
    b->msm_g2 = g2;
    b->msm_n = nmax;
    b->msm_c = 0;
    b->msm_t = 1;
    b->msm_copies = copies > 1 && !g2;
    TRY(points(b, nmax, err));
    if (b->msm_copies) {
        /* Room for the copies after the points, then precompute them. */
        void *dp2 = NULL;
        gs_cu_msm_pick(nmax, (unsigned)copies, 1, &b->msm_c, &b->msm_t);
        if (window > 0) {
            /* An explicit window: all the copies (the MSM uses at most one
             * per window of c bits: min(copies, windows)). */
            b->msm_c = (unsigned)window;
            b->msm_t = (unsigned)copies;
        }
        TRY(gs_cu_alloc(d, &dp2, b->msm_t * nmax * 96, err));
        if ((st = gs_cu_sync(d, err)) != GS_OK ||
            (st = gs_cu_copy_d2d(d, dp2, b->msm_pts, nmax * 96, err)) != GS_OK) {
            gs_cu_free(d, dp2);
            return st;
        }
        gs_cu_free(d, b->msm_pts);
        b->msm_pts = dp2;
        int64_t p0 = gs_now_ns();
        TRY(gs_cu_g1_precompute(d, b->msm_pts, nmax, nmax, b->msm_c, b->msm_t, err));
        plan->precompute_s = (double)(gs_now_ns() - p0) * 1e-9;
    }
    plan->c = b->msm_c;
    plan->t = b->msm_t;
    if (!b->msm_copies) plan->precompute_s = 0;
    TRY(gs_cu_alloc(d, (void **)&b->msm_sc, nmax * sizeof *b->msm_sc, err));
    TRY(gs_cu_fill_random(d, b->msm_sc, nmax, 12345, err));
    return gs_cu_sync(d, err);
}

gs_status gs_cu_bench_msm(gs_cu_bench *b, unsigned k, int window, int reps, double *dev_ms,
                          double *host_ms, gs_err *err)
{
    gs_status st;
    gs_cu_dev *d = b->dev;
    size_t n = (size_t)1 << k;
    if (!d || !b->msm_sc || n > b->msm_n)
        return GS_ERR(err, GS_ERR_STATE, "cuda-bench", "MSM of 2^%u without its inputs", k);
    for (int r = -1; r < reps; r++) {
        TRY(gs_cu_mark(d, 0, err));
        if (b->msm_copies) {
            TRY(gs_cu_msm_prepare(d, b->msm_sc, n, (int)b->msm_c, b->msm_t, 0, NULL, NULL, err));
            TRY(gs_cu_msm_g1_prepared(d, 0, b->msm_pts, b->msm_n, 0, err));
        } else if (b->msm_g2) {
            TRY(gs_cu_msm_g2(d, 0, b->msm_pts, b->msm_sc, n, window, err));
        } else {
            TRY(gs_cu_msm_g1(d, 0, b->msm_pts, b->msm_sc, n, window, err));
        }
        TRY(gs_cu_msm_fetch(d, 0, err));
        TRY(gs_cu_mark(d, 1, err));
        TRY(gs_cu_sync(d, err));
        int64_t h0 = gs_now_ns();
        TRY(b->msm_g2 ? gs_cu_msm_g2_result(d, 0, &b->msm_res.g2, err)
                      : gs_cu_msm_g1_result(d, 0, &b->msm_res.g1, err));
        int64_t h1 = gs_now_ns();
        if (r >= 0) {
            TRY(gs_cu_mark_ms(d, 0, 1, &dev_ms[r], err));
            host_ms[r] = (double)(h1 - h0) * 1e-6;
        }
    }
    return GS_OK;
}

gs_status gs_cu_bench_msm_check(gs_cu_bench *b, unsigned k, int *equal, gs_err *err)
{
    gs_status st;
    size_t n = (size_t)1 << k, nb = b->msm_nbase;
    if (!b->dev || !b->msm_sc || n > b->msm_n)
        return GS_ERR(err, GS_ERR_STATE, "cuda-bench", "MSM check of 2^%u without its inputs", k);
    gs_scalar *hs = malloc(n * sizeof *hs);
    size_t asz = b->msm_g2 ? sizeof(gs_g2_affine) : sizeof(gs_g1_affine);
    char *hp = malloc(n * asz);
    if (!hs || !hp) {
        st = GS_ERR(err, GS_ERR_NOMEM, "cuda-bench", "check of 2^%u", k);
        goto out;
    }
    if ((st = gs_cu_download(b->dev, hs, b->msm_sc, n * sizeof *hs, err)) != GS_OK) goto out;
    for (size_t i = 0; i < n; i++) memcpy(hp + i * asz, (const char *)b->msm_base + (i % nb) * asz, asz);
    if (b->msm_g2) {
        gs_g2 want;
        st = gs_msm_g2(&want, (const gs_g2_affine *)hp, hs, n, b->pool);
        *equal = st == GS_OK && gs_g2_eq(&b->msm_res.g2, &want);
    } else {
        gs_g1 want;
        st = gs_msm_g1(&want, (const gs_g1_affine *)hp, hs, n, b->pool);
        *equal = st == GS_OK && gs_g1_eq(&b->msm_res.g1, &want);
    }
    if (st != GS_OK) st = GS_ERR(err, st, "cuda-bench", "CPU MSM");
out:
    free(hs);
    free(hp);
    return st;
}

#endif /* GS_HAVE_CUDA */
