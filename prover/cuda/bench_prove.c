/*
 * Microbenchmarks (bench.h): full proofs through the CUDA backend on a
 * synthetic key, SRS resident.  The key of domain 2^k has n_vars = 2^k and
 * B2 live on its first n_vars / 16 wires; its G1 sets are offsets into one
 * replicated array (a = P, b1 = P + 7, c = P + 11, h = P + 13 with
 * P[i] = base[i mod 4096]), so a 2^27 key takes 14 GB of host memory, not
 * 56.  The array, B2 and the random assignment (bool_pct% of the witness 0
 * or 1) are filled by FILL_THREADS threads: first-touch page faults of
 * ~40 GB at 2^27 are most of the key's build time.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "../../common/clock.h"
#include "../../common/rng.h"
#include "bench_int.h"
#include "cuda.h"

#ifdef GS_HAVE_CUDA

#define FILL_THREADS 16
#define NBASE 4096
#define NBASE2 64

/* Thread t fills [lo, hi) from its own generator. */
typedef struct {
    gs_assignment *as;
    size_t lo, hi;
    uint64_t seed;
    int bool_pct;
    gs_g1_affine *pts;
    const gs_g1_affine *base;
    size_t nb;
    gs_g2_affine *b2;
    const gs_g2_affine *base2;
    size_t nb2, b2_live;
} fill_job;

static void *fill_run(void *arg)
{
    fill_job *j = arg;
    gs_rng rng;
    gs_rng_seed(&rng, j->seed);
    if (j->pts)
        for (size_t i = j->lo; i < j->hi; i++) j->pts[i] = j->base[i % j->nb];
    if (j->b2)
        for (size_t i = j->lo; i < j->hi; i++) {
            if (i < j->b2_live) j->b2[i] = j->base2[i % j->nb2];
            else gs_g2_affine_set_inf(&j->b2[i]);
        }
    for (size_t i = j->lo; i < j->hi; i++) {
        gs_fr f;
        gs_fr_random(&f, &rng);
        gs_fr_to_scalar(&j->as->w[i], &f);
        if ((int)gs_rng_below(&rng, 100) < j->bool_pct) {
            memset(&j->as->w[i], 0, sizeof j->as->w[i]);
            j->as->w[i].l[0] = gs_rng_below(&rng, 2);
        }
        gs_fr_random(&j->as->a[i], &rng);
        gs_fr_random(&j->as->b[i], &rng);
        gs_fr_mul(&j->as->c[i], &j->as->a[i], &j->as->b[i]);
    }
    return NULL;
}

void gs_cu_bench_key_free(gs_cu_bench *b)
{
    if (b->pinned) gs_cuda_assignment_unpin(&b->as);
    b->pinned = 0;
    if (b->key_built) {
        /* The G1 point arrays share one allocation (pk.a). */
        free(b->pk.a);
        b->pk.a = b->pk.b1 = b->pk.c = b->pk.h = NULL;
        gs_pk_free(&b->pk);
        gs_assignment_free(&b->as);
    }
    b->key_built = 0;
    memset(&b->pk, 0, sizeof b->pk);
    memset(&b->as, 0, sizeof b->as);
}

/* The synthetic key and assignment of the file comment into b->pk, b->as. */
static gs_status make_key(gs_cu_bench *b, unsigned k, int bool_pct, gs_err *err)
{
    gs_status st;
    gs_pk *pk = &b->pk;
    gs_assignment *as = &b->as;
    size_t n = (size_t)1 << k, nv = n, np = 1, nb = NBASE, nb2 = NBASE2;
    gs_g1 *jac = malloc(nb * sizeof *jac);
    gs_g2 *jac2 = malloc(nb2 * sizeof *jac2);
    gs_g1_affine *base = malloc(nb * sizeof *base), *pts = NULL;
    gs_g2_affine *base2 = malloc(nb2 * sizeof *base2);
    b->key_built = 1;
    if (!jac || !jac2 || !base || !base2) {
        st = GS_ERR(err, GS_ERR_NOMEM, "cuda-bench", "base points");
        goto out;
    }
    gs_cu_bench_g1_points(base, jac, nb);
    gs_cu_bench_g2_points(base2, jac2, nb2);
    pk->n_vars = (uint32_t)nv;
    pk->n_public = (uint32_t)np;
    pk->domain_size = (uint32_t)n;
    pk->log_domain = k;
    pk->alpha1 = base[1];
    pk->beta1 = base[2];
    pk->delta1 = base[3];
    pk->beta2 = base2[1];
    pk->gamma2 = base2[2];
    pk->delta2 = base2[3];
    pk->ic = malloc((np + 1) * sizeof *pk->ic);
    pts = malloc((nv + 16) * sizeof *pts);
    pk->b2 = malloc(nv * sizeof *pk->b2);
    if (!pk->ic || !pts || !pk->b2) {
        free(pts);
        st = GS_ERR(err, GS_ERR_NOMEM, "cuda-bench", "synthetic key of 2^%u", k);
        goto out;
    }
    for (size_t i = 0; i <= np; i++) pk->ic[i] = base[4 + i];
    for (size_t i = nv; i < nv + 16; i++) pts[i] = base[i % nb];
    pk->a = pts;
    pk->b1 = pts + 7;
    pk->c = pts + 11;
    pk->h = pts + 13;
    if ((st = gs_assignment_alloc(as, (uint32_t)nv, (uint32_t)n, err)) != GS_OK) goto out;
    pthread_t th[FILL_THREADS];
    fill_job job[FILL_THREADS];
    int started[FILL_THREADS] = { 0 };
    for (int t = 0; t < FILL_THREADS; t++) {
        job[t] = (fill_job){ as, n * (size_t)t / FILL_THREADS, n * (size_t)(t + 1) / FILL_THREADS,
                             (42 + k) * 1000003ull + (uint64_t)t, bool_pct,
                             pts, base, nb, pk->b2, base2, nb2, nv / 16 };
        started[t] = pthread_create(&th[t], NULL, fill_run, &job[t]) == 0;
        if (!started[t]) fill_run(&job[t]);
    }
    for (int t = 0; t < FILL_THREADS; t++)
        if (started[t]) pthread_join(th[t], NULL);
    memset(&as->w[0], 0, sizeof as->w[0]);
    as->w[0].l[0] = 1;
    st = GS_OK;
out:
    free(jac);
    free(jac2);
    free(base);
    free(base2);
    return st;
}

gs_status gs_cu_bench_prove_setup(gs_cu_bench *b, unsigned k, int bool_pct, int classic,
                                  gs_cu_bench_key *info, gs_err *err)
{
    gs_status st;
    memset(info, 0, sizeof *info);
    gs_cu_bench_key_free(b);
    if (!b->be) {
        /* The backend takes the device: the raw context goes first. */
        gs_cu_bench_drop(b);
        gs_cu_dev_destroy(b->dev);
        b->dev = NULL;
        if ((st = gs_backend_cuda_create(&b->be, b->device, err)) != GS_OK) return st;
    }
    int64_t t0 = gs_now_ns();
    if ((st = make_key(b, k, bool_pct, err)) != GS_OK) return st;
    b->pk.h_conv = classic ? GS_H_CLASSIC : GS_H_SNARKJS;
    int64_t t1 = gs_now_ns();
    if ((st = b->be->ops->load_pk(b->be, &b->pk, err)) != GS_OK) return st;
    int64_t t2 = gs_now_ns();
    info->build_s = (double)(t1 - t0) * 1e-9;
    info->load_s = (double)(t2 - t1) * 1e-9;
    gs_cuda_backend_plan(b->be, info->plan, sizeof info->plan);
    return GS_OK;
}

gs_status gs_cu_bench_pin(gs_cu_bench *b, double *ms, gs_err *err)
{
    if (!b->key_built || b->pinned)
        return GS_ERR(err, GS_ERR_STATE, "cuda-bench", "pin without a key, or pinned already");
    int64_t g0 = gs_now_ns();
    gs_status st = gs_cuda_assignment_pin(&b->as, err);
    *ms = (double)(gs_now_ns() - g0) * 1e-6;
    b->pinned = st == GS_OK;
    return st;
}

void gs_cu_bench_unpin(gs_cu_bench *b, double *ms)
{
    int64_t g0 = gs_now_ns();
    if (b->pinned) gs_cuda_assignment_unpin(&b->as);
    b->pinned = 0;
    *ms = (double)(gs_now_ns() - g0) * 1e-6;
}

gs_status gs_cu_bench_prove(gs_cu_bench *b, int pageable, int g2_on_device, int rep,
                            gs_cu_bench_proof *out, gs_err *err)
{
    gs_scalar rr, ss;
    gs_prove_state *ps = NULL;
    gs_proof proof;
    if (!b->be || !b->key_built) return GS_ERR(err, GS_ERR_STATE, "cuda-bench", "prove without a key");
    memset(&rr, 0, sizeof rr);
    memset(&ss, 0, sizeof ss);
    rr.l[0] = 3 + (uint64_t)rep;
    ss.l[0] = 5;
    gs_prove_opts po = { .pageable = pageable, .threads = 0, .g2_on_device = g2_on_device };
    out->stages.n = 0;
    out->t0_ns = gs_now_ns();
    gs_status st = b->be->ops->prove_start(b->be, &b->pk, &b->as, &rr, &ss, &po, &ps, &out->stages, err);
    int64_t a1 = gs_now_ns();
    if (st == GS_OK) st = b->be->ops->prove_finish(b->be, ps, &proof, &out->stages, err);
    int64_t a2 = gs_now_ns();
    out->start_ms = (double)(a1 - out->t0_ns) * 1e-6;
    out->finish_ms = (double)(a2 - a1) * 1e-6;
    gs_cuda_backend_plan(b->be, out->plan, sizeof out->plan);
    return st;
}

#endif /* GS_HAVE_CUDA */
