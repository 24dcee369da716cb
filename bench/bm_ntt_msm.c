/* NTT and MSM benchmarks on all cores of the machine (issue 3: NTT 2^16/2^20, MSM G1
 * 2^16/2^20 on the 2-core CI machine), and the MSMs on one thread (issue 15: the
 * prover's MSM sizes on random full-width scalars; CPU time, steady on a shared
 * machine). */
#include <stdlib.h>

#include "../prover/msm/msm.h"
#include "../prover/poly/poly.h"
#include "gsbench.h"

static gs_pool *pool(void)
{
    static gs_pool *p;
    if (!p)
        gs_pool_create(&p, 0, NULL);
    return p;
}

static void bm_ntt(gs_bench_state *st)
{
    unsigned log = (unsigned)gs_bench_arg(st, 0);
    gs_domain *d;
    if (gs_domain_create(&d, log, pool(), NULL) != GS_OK) {
        gs_bench_skip_with_error(st, "domain");
        return;
    }
    size_t n = (size_t)1 << log;
    gs_fr *a = malloc(n * sizeof *a);
    gs_rng rng;
    gs_rng_seed(&rng, log);
    for (size_t i = 0; i < n; i++)
        gs_fr_random(&a[i], &rng);
    while (gs_bench_keep_running(st))
        gs_domain_ntt(d, a, pool());
    gs_bench_set_items_processed(st, gs_bench_iterations(st) * (int64_t)n);
    free(a);
    gs_domain_destroy(d);
}
static void ntt_args(gs_bench_reg *r)
{
    gs_bench_arg_add(r, 16);
    gs_bench_arg_add(r, 20);
    gs_bench_ms_wall(r, 0);
}
GS_BENCHMARK(bm_ntt, "poly/ntt_log2", ntt_args)

static void random_scalars(gs_scalar **sc, size_t n, uint64_t seed)
{
    *sc = malloc(n * sizeof **sc);
    gs_rng rng;
    gs_rng_seed(&rng, seed);
    for (size_t i = 0; i < n; i++) {
        gs_fr k;
        gs_fr_random(&k, &rng);
        gs_fr_to_scalar(&(*sc)[i], &k);
    }
}

/* n distinct points k*G, k = 1..n (G the group's generator), and random
 * scalars. */
#define MAKE_INPUTS(FN, G)                                                          \
    static void FN(gs_##G##_affine **pts, gs_scalar **sc, size_t n, uint64_t seed)  \
    {                                                                               \
        gs_##G *jac = malloc(n * sizeof *jac);                                      \
        gs_##G g, acc;                                                              \
        gs_##G##_generator(&g);                                                     \
        acc = g;                                                                    \
        for (size_t i = 0; i < n; i++) {                                            \
            jac[i] = acc;                                                           \
            gs_##G##_add(&acc, &acc, &g);                                           \
        }                                                                           \
        *pts = malloc(n * sizeof **pts);                                            \
        gs_##G##_batch_to_affine(*pts, jac, n);                                     \
        free(jac);                                                                  \
        random_scalars(sc, n, seed);                                                \
    }
MAKE_INPUTS(make_inputs, g1)
MAKE_INPUTS(make_inputs_g2, g2)

/* One MSM per iteration over 2^arg points with random full-width scalars, on
 * the pool or (POOL NULL) one thread: with CPU time, ns per point / windows
 * is the cost of a bucket addition plus its share of the reductions. */
#define MSM_BENCH(FN, G, MAKE, POOL)                                                \
    static void FN(gs_bench_state *st)                                              \
    {                                                                               \
        size_t n = (size_t)1 << gs_bench_arg(st, 0);                                \
        gs_##G##_affine *pts;                                                       \
        gs_scalar *sc;                                                              \
        MAKE(&pts, &sc, n, 7);                                                      \
        gs_##G out;                                                                 \
        while (gs_bench_keep_running(st))                                           \
            gs_msm_##G(&out, pts, sc, n, POOL);                                     \
        gs_bench_do_not_optimize(&out);                                             \
        gs_bench_set_items_processed(st, gs_bench_iterations(st) * (int64_t)n);     \
        free(pts);                                                                  \
        free(sc);                                                                   \
    }
MSM_BENCH(bm_msm_g1, g1, make_inputs, pool())
MSM_BENCH(bm_msm_g1_1t, g1, make_inputs, NULL)
MSM_BENCH(bm_msm_g2, g2, make_inputs_g2, pool())
MSM_BENCH(bm_msm_g2_1t, g2, make_inputs_g2, NULL)

static void msm_args(gs_bench_reg *r)
{
    gs_bench_arg_add(r, 12);
    gs_bench_arg_add(r, 16);
    gs_bench_arg_add(r, 20);
    gs_bench_ms_wall(r, 0.5);
}
GS_BENCHMARK(bm_msm_g1, "msm/g1_log2", msm_args)

static void msm_1t_args(gs_bench_reg *r)
{
    gs_bench_arg_add(r, 12);
    gs_bench_arg_add(r, 14);
    gs_bench_arg_add(r, 16);
    gs_bench_unit(r, GS_BENCH_MS);
    gs_bench_min_time(r, 0.5);
}
static void msm_g2_args(gs_bench_reg *r)
{
    gs_bench_arg_add(r, 16);
    gs_bench_ms_wall(r, 0.5);
}
GS_BENCHMARK(bm_msm_g1_1t, "msm/g1_1t_log2", msm_1t_args)
GS_BENCHMARK(bm_msm_g2, "msm/g2_log2", msm_g2_args)
GS_BENCHMARK(bm_msm_g2_1t, "msm/g2_1t_log2", msm_1t_args)
