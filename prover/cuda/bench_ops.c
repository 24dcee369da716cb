/*
 * Microbenchmarks (bench.h): the bench object, the field multiply chains,
 * the NTT and the host -> device copy paths.  A series' inputs (the NTT's
 * buffer, the copies' host and device buffers) stay from one call to the
 * next of the same series and are freed when another series starts, so a
 * run holds one series' memory at a time.  The MSM series is in
 * bench_msm.c, the proofs in bench_prove.c.
 *
 * Built without CUDA only the entry points exist (the bench cannot be
 * opened: GS_ERR_UNSUPPORTED).
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../common/clock.h"
#include "../../common/rng.h"
#include "bench_int.h"

#ifdef GS_HAVE_CUDA

static void ntt_free(gs_cu_bench *b)
{
    if (b->dev) gs_cu_free(b->dev, b->ntt_x);
    b->ntt_x = NULL;
    b->ntt_log = 0;
}

static void h2d_free(gs_cu_bench *b)
{
    if (b->dev) gs_cu_free(b->dev, b->h2d_dev);
    free(b->h2d_host);
    b->h2d_dev = NULL;
    b->h2d_host = NULL;
    b->h2d_log = 0;
}

void gs_cu_bench_drop(gs_cu_bench *b)
{
    ntt_free(b);
    h2d_free(b);
    gs_cu_bench_msm_free(b);
}

gs_status gs_cu_bench_open(gs_cu_bench **out, int device, gs_err *err)
{
    gs_status st;
    *out = NULL;
    gs_cu_bench *b = calloc(1, sizeof *b);
    if (!b) return GS_ERR(err, GS_ERR_NOMEM, "cuda-bench", "bench object");
    b->device = device;
    if ((st = gs_cu_dev_create(&b->dev, device, err)) != GS_OK ||
        (st = gs_pool_create(&b->pool, 0, err)) != GS_OK) {
        gs_cu_bench_close(b);
        return st;
    }
    snprintf(b->desc, sizeof b->desc, "%s", gs_cu_dev_describe(b->dev));
    *out = b;
    return GS_OK;
}

void gs_cu_bench_close(gs_cu_bench *b)
{
    if (!b) return;
    gs_cu_bench_drop(b);
    gs_cu_bench_key_free(b);
    if (b->be) b->be->ops->destroy(b->be);
    gs_cu_dev_destroy(b->dev);
    gs_pool_destroy(b->pool);
    free(b);
}

const char *gs_cu_bench_device(const gs_cu_bench *b) { return b->desc; }

/* Kinds of gs_cu_field_bench (cuda_dev.h), in its order. */
static const char *const field_names[GS_CU_BENCH_FIELD_KINDS] = {
    "fp_mul", "fr_mul", "fp_sqr_mul", "fp_sqr", "fp_mul_lazy", "fp_sqr_lazy", "fp_mul_lazy_cios",
    "fr_mul_cios", "fp_mul_lazy_kara", "fp_mul_lazy_f64", "fp_mul_lazy_mix",
};

const char *gs_cu_bench_field_name(int kind)
{
    return kind >= 0 && kind < GS_CU_BENCH_FIELD_KINDS ? field_names[kind] : "?";
}

gs_status gs_cu_bench_field(gs_cu_bench *b, int kind, double *ns_per_op, gs_err *err)
{
    double g;
    if (!b->dev) return GS_ERR(err, GS_ERR_STATE, "cuda-bench", "the device went to the proofs");
    gs_status st = gs_cu_field_bench(b->dev, kind, &g, err);
    if (st == GS_OK) *ns_per_op = 1e9 / g;
    return st;
}

#define TRY(x) do { if ((st = (x)) != GS_OK) return st; } while (0)

gs_status gs_cu_bench_ntt(gs_cu_bench *b, unsigned k, unsigned log_max, int reps, double *ms,
                          gs_err *err)
{
    gs_status st;
    gs_cu_dev *d = b->dev;
    if (!d) return GS_ERR(err, GS_ERR_STATE, "cuda-bench", "the device went to the proofs");
    if (k > log_max) return GS_ERR(err, GS_ERR_ARG, "cuda-bench", "NTT 2^%u above 2^%u", k, log_max);
    if (!b->ntt_x || b->ntt_log < log_max) {
        gs_cu_bench_drop(b);
        TRY(gs_cu_ntt_prepare(d, log_max, err));
        TRY(gs_cu_alloc(d, (void **)&b->ntt_x, ((size_t)1 << log_max) * sizeof(gs_fr), err));
        b->ntt_log = log_max;
    }
    TRY(gs_cu_fill_random(d, b->ntt_x, (size_t)1 << k, k, err));
    for (int r = -1; r < reps; r++) {
        TRY(gs_cu_mark(d, 0, err));
        TRY(gs_cu_ntt(d, b->ntt_x, k, 0, err));
        TRY(gs_cu_mark(d, 1, err));
        TRY(gs_cu_sync(d, err));
        if (r >= 0) TRY(gs_cu_mark_ms(d, 0, 1, &ms[r], err));
    }
    return GS_OK;
}

gs_status gs_cu_bench_h2d(gs_cu_bench *b, unsigned log, gs_cu_h2d_path path, int reps, double *ms,
                          double *reg_ms, double *unreg_ms, gs_err *err)
{
    gs_status st;
    gs_cu_dev *d = b->dev;
    size_t bytes = ((size_t)1 << log) * 32;
    *reg_ms = *unreg_ms = 0;
    if (!d) return GS_ERR(err, GS_ERR_STATE, "cuda-bench", "the device went to the proofs");
    if (!b->h2d_host || b->h2d_log != log) {
        gs_cu_bench_drop(b);
        if (!(b->h2d_host = malloc(bytes)))
            return GS_ERR(err, GS_ERR_NOMEM, "cuda-bench", "h2d host buffer of %zu bytes", bytes);
        for (size_t i = 0; i < bytes; i += 8) *(uint64_t *)(b->h2d_host + i) = i * 0x9e3779b97f4a7c15ull;
        TRY(gs_cu_alloc(d, &b->h2d_dev, bytes, err));
        b->h2d_log = log;
    }
    int direct = path == GS_CU_H2D_DIRECT, pageable = path == GS_CU_H2D_PAGEABLE;
    if (direct) {
        int64_t g0 = gs_now_ns();
        TRY(gs_cu_host_register(b->h2d_host, bytes, err));
        *reg_ms = (double)(gs_now_ns() - g0) * 1e-6;
    }
    for (int r = -1; r < reps; r++) {
        if ((st = gs_cu_sync(d, err)) != GS_OK) break;
        int64_t a0 = gs_now_ns();
        st = gs_cu_upload(d, b->h2d_dev, b->h2d_host, bytes, pageable, err);
        if (st == GS_OK) st = gs_cu_sync(d, err);
        int64_t a1 = gs_now_ns();
        if (st != GS_OK) break;
        if (r >= 0) ms[r] = (double)(a1 - a0) * 1e-6;
    }
    if (direct) {
        int64_t g0 = gs_now_ns();
        gs_cu_host_unregister(b->h2d_host);
        *unreg_ms = (double)(gs_now_ns() - g0) * 1e-6;
    }
    return st;
}

#else /* !GS_HAVE_CUDA: the entry points, for a build that has no device */

#define NO_CUDA(err) GS_ERR(err, GS_ERR_UNSUPPORTED, "cuda-bench", "this build has no CUDA (rebuild with CUDA=1)")

gs_status gs_cu_bench_open(gs_cu_bench **out, int device, gs_err *err)
{
    (void)device;
    *out = NULL;
    return NO_CUDA(err);
}

void gs_cu_bench_close(gs_cu_bench *b) { (void)b; }
const char *gs_cu_bench_device(const gs_cu_bench *b) { (void)b; return ""; }
const char *gs_cu_bench_field_name(int kind) { (void)kind; return "?"; }

gs_status gs_cu_bench_field(gs_cu_bench *b, int kind, double *ns_per_op, gs_err *err)
{
    (void)b, (void)kind, (void)ns_per_op;
    return NO_CUDA(err);
}

gs_status gs_cu_bench_ntt(gs_cu_bench *b, unsigned k, unsigned log_max, int reps, double *ms,
                          gs_err *err)
{
    (void)b, (void)k, (void)log_max, (void)reps, (void)ms;
    return NO_CUDA(err);
}

gs_status gs_cu_bench_h2d(gs_cu_bench *b, unsigned log, gs_cu_h2d_path path, int reps, double *ms,
                          double *reg_ms, double *unreg_ms, gs_err *err)
{
    (void)b, (void)log, (void)path, (void)reps, (void)ms, (void)reg_ms, (void)unreg_ms;
    return NO_CUDA(err);
}

gs_status gs_cu_bench_msm_setup(gs_cu_bench *b, int g2, unsigned log_max, int copies, int window,
                                gs_cu_bench_msm_plan *plan, gs_err *err)
{
    (void)b, (void)g2, (void)log_max, (void)copies, (void)window, (void)plan;
    return NO_CUDA(err);
}

gs_status gs_cu_bench_msm(gs_cu_bench *b, unsigned k, int window, int reps, double *dev_ms,
                          double *host_ms, gs_err *err)
{
    (void)b, (void)k, (void)window, (void)reps, (void)dev_ms, (void)host_ms;
    return NO_CUDA(err);
}

gs_status gs_cu_bench_msm_check(gs_cu_bench *b, unsigned k, int *equal, gs_err *err)
{
    (void)b, (void)k, (void)equal;
    return NO_CUDA(err);
}

gs_status gs_cu_bench_prove_setup(gs_cu_bench *b, unsigned k, int bool_pct, int classic,
                                  gs_cu_bench_key *info, gs_err *err)
{
    (void)b, (void)k, (void)bool_pct, (void)classic, (void)info;
    return NO_CUDA(err);
}

gs_status gs_cu_bench_pin(gs_cu_bench *b, double *ms, gs_err *err)
{
    (void)b, (void)ms;
    return NO_CUDA(err);
}

void gs_cu_bench_unpin(gs_cu_bench *b, double *ms) { (void)b, (void)ms; }

gs_status gs_cu_bench_prove(gs_cu_bench *b, int pageable, int g2_on_device, int rep,
                            gs_cu_bench_proof *out, gs_err *err)
{
    (void)b, (void)pageable, (void)g2_on_device, (void)rep, (void)out;
    return NO_CUDA(err);
}

#endif /* GS_HAVE_CUDA */
