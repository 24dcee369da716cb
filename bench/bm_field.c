/* Field benchmarks: ns per Fr/Fp/Fp2/Fp12 operation (issue 2's targets: Fp mul <= 40 ns,
 * Fr mul <= 20 ns on the 2-core CI machine). */
#include "../prover/field/field.h"
#include "gsbench.h"

/* One field operation in a dependent chain on random x, y (seed 42). */
#define FIELD_BENCH(fn_name, label, type, rand_fn, op) \
    GS_BENCH_CHAIN(fn_name, label, NULL, 42, type, rand_fn, op)

FIELD_BENCH(bm_fr_mul, "field/fr_mul", gs_fr, gs_fr_random, gs_fr_mul(&x, &x, &y))
FIELD_BENCH(bm_fr_sqr, "field/fr_sqr", gs_fr, gs_fr_random, gs_fr_sqr(&x, &x))
FIELD_BENCH(bm_fr_add, "field/fr_add", gs_fr, gs_fr_random, gs_fr_add(&x, &x, &y))
FIELD_BENCH(bm_fr_inv, "field/fr_inv_var", gs_fr, gs_fr_random, gs_fr_inv_var(&x, &x))
FIELD_BENCH(bm_fp_mul, "field/fp_mul", gs_fp, gs_fp_random, gs_fp_mul(&x, &x, &y))
FIELD_BENCH(bm_fp_sqr, "field/fp_sqr", gs_fp, gs_fp_random, gs_fp_sqr(&x, &x))
FIELD_BENCH(bm_fp_add, "field/fp_add", gs_fp, gs_fp_random, gs_fp_add(&x, &x, &y))
FIELD_BENCH(bm_fp_inv, "field/fp_inv", gs_fp, gs_fp_random, gs_fp_inv(&x, &x))
FIELD_BENCH(bm_fp_inv_var, "field/fp_inv_var", gs_fp, gs_fp_random, gs_fp_inv_var(&x, &x))
FIELD_BENCH(bm_fp2_mul, "field/fp2_mul", gs_fp2, gs_fp2_random, gs_fp2_mul(&x, &x, &y))
FIELD_BENCH(bm_fp2_sqr, "field/fp2_sqr", gs_fp2, gs_fp2_random, gs_fp2_sqr(&x, &x))
FIELD_BENCH(bm_fp12_mul, "field/fp12_mul", gs_fp12, gs_fp12_random, gs_fp12_mul(&x, &x, &y))
FIELD_BENCH(bm_fp12_sqr, "field/fp12_sqr", gs_fp12, gs_fp12_random, gs_fp12_sqr(&x, &x))
