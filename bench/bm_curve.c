/* Curve and pairing benchmarks (issue 2: pairing <= 2 ms on the 2-core CI machine). */
#include "../prover/pairing/pairing.h"
#include "gsbench.h"

static void random_scalar(gs_scalar *out, gs_rng *rng);

/* random_g1, random_g2: a random point [k]G of the group. */
#define RANDOM_POINT(group)                                                \
    static void random_##group(gs_##group *out, gs_rng *rng)               \
    {                                                                      \
        gs_scalar s;                                                       \
        random_scalar(&s, rng);                                            \
        gs_##group g;                                                      \
        gs_##group##_generator(&g);                                        \
        gs_##group##_mul_var(out, &g, &s);                                 \
    }
RANDOM_POINT(g1)
RANDOM_POINT(g2)

/* A random G1 point in Jacobian (p) and affine (a) form, for the
 * group-law benchmarks: x.p = x.p + y.p, x.p + y.a, 2 x.p in a chain. */
typedef struct {
    gs_g1 p;
    gs_g1_affine a;
} g1_both;

static void random_g1_both(g1_both *out, gs_rng *rng)
{
    random_g1(&out->p, rng);
    gs_g1_to_affine(&out->a, &out->p);
}

GS_BENCH_CHAIN(bm_g1_add, "curve/g1_add_jacobian", NULL, 1, g1_both, random_g1_both,
               gs_g1_add(&x.p, &x.p, &y.p))
GS_BENCH_CHAIN(bm_g1_add_affine, "curve/g1_add_mixed", NULL, 2, g1_both, random_g1_both,
               gs_g1_add_affine(&x.p, &x.p, &y.a))
GS_BENCH_CHAIN(bm_g1_dbl, "curve/g1_dbl", NULL, 3, g1_both, random_g1_both, gs_g1_dbl(&x.p, &x.p))

static void random_scalar(gs_scalar *out, gs_rng *rng)
{
    gs_fr k;
    gs_fr_random(&k, rng);
    gs_fr_to_scalar(out, &k);
}

static void us_unit(gs_bench_reg *r) { gs_bench_unit(r, GS_BENCH_US); }

/* Scalar multiplication benchmarks: GROUP (g1/g2), the multiply function, a seed. */
#define SCALAR_MUL_BENCH(fn_name, label, group, mul_fn, seed)              \
    static void fn_name(gs_bench_state *st)                                \
    {                                                                      \
        gs_rng rng;                                                        \
        gs_rng_seed(&rng, seed);                                           \
        gs_##group a;                                                      \
        gs_scalar s;                                                       \
        random_##group(&a, &rng);                                          \
        random_scalar(&s, &rng);                                           \
        while (gs_bench_keep_running(st))                                  \
            mul_fn(&a, &a, &s);                                            \
        gs_bench_do_not_optimize(&a);                                      \
        gs_bench_set_items_processed(st, gs_bench_iterations(st));         \
    }                                                                      \
    GS_BENCHMARK(fn_name, label, us_unit)

SCALAR_MUL_BENCH(bm_g1_mul, "curve/g1_scalar_mul_var", g1, gs_g1_mul_var, 4)
SCALAR_MUL_BENCH(bm_g1_mul_ct, "curve/g1_scalar_mul_ct", g1, gs_g1_mul, 5)
SCALAR_MUL_BENCH(bm_g2_mul, "curve/g2_scalar_mul_var", g2, gs_g2_mul_var, 6)

static void bm_g1_subgroup(gs_bench_state *st)
{
    gs_rng rng;
    gs_rng_seed(&rng, 7);
    gs_g1 a;
    gs_g1_affine p;
    random_g1(&a, &rng);
    gs_g1_to_affine(&p, &a);
    int acc = 0;
    while (gs_bench_keep_running(st))
        acc += gs_g1_affine_in_subgroup(&p);
    gs_bench_do_not_optimize(&acc);
}
GS_BENCHMARK(bm_g1_subgroup, "curve/g1_subgroup_check", us_unit)

static void bm_pairing(gs_bench_state *st)
{
    gs_rng rng;
    gs_rng_seed(&rng, 8);
    gs_g1 a;
    gs_g2 b;
    gs_g1_affine p;
    gs_g2_affine q;
    random_g1(&a, &rng);
    random_g2(&b, &rng);
    gs_g1_to_affine(&p, &a);
    gs_g2_to_affine(&q, &b);
    gs_fp12 out;
    while (gs_bench_keep_running(st))
        gs_pairing(&out, &p, &q);
    gs_bench_do_not_optimize(&out);
    gs_bench_set_items_processed(st, gs_bench_iterations(st));
}
GS_BENCHMARK(bm_pairing, "pairing/pairing", us_unit)

static void bm_pairing_check4(gs_bench_state *st)
{
    gs_rng rng;
    gs_rng_seed(&rng, 9);
    gs_g1_affine p[4];
    gs_g2_affine q[4];
    for (int i = 0; i < 4; i++) {
        gs_g1 a;
        gs_g2 b;
        random_g1(&a, &rng);
        random_g2(&b, &rng);
        gs_g1_to_affine(&p[i], &a);
        gs_g2_to_affine(&q[i], &b);
    }
    int acc = 0;
    while (gs_bench_keep_running(st))
        acc += gs_pairing_product_is_one(p, q, 4);
    gs_bench_do_not_optimize(&acc);
}
GS_BENCHMARK(bm_pairing_check4, "pairing/product_check_4 (groth16 verify)", us_unit)
