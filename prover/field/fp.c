/*
 * Fp, the 381-bit base field of BLS12-381: six 64-bit limbs in Montgomery
 * form with R = 2^384 (field.h has the contract).  The operations Fp shares
 * with Fr are the template prime_field.inc, instantiated here with N = 6 so
 * every loop unrolls; square roots and the batch inversion of nonzero
 * elements are Fp's own.
 */
#include "field.h"

#include "consts.h"
#include "limbs.h"
#include "mont_asm.h"

#define F gs_fp
#define F_MODULUS GS_FP_MODULUS
#define F_(op) gs_fp_##op
#define FC_(c) GS_FPC_##c
#define N GS_FP_LIMBS
#define F_BYTES GS_FP_BYTES
#define F_ASM_(op) gs_##op##6_asm
#include "prime_field.inc"

static const uint64_t HALF[N] = GS_FPC_HALF;
static const uint64_t SQRT_EXP[N] = GS_FPC_SQRT_EXP;

/* p = 3 mod 4: a^((p+1)/4) is a root whenever a is a square. */
int gs_fp_sqrt(gs_fp *out, const gs_fp *a)
{
    gs_fp s, c;
    gs_fp_pow(&s, a, SQRT_EXP, N);
    gs_fp_sqr(&c, &s);
    int ok = gs_fp_eq(&c, a);
    if (ok) *out = s;
    return ok;
}

int gs_fp_is_lexlargest(const gs_fp *a)
{
    uint64_t t[N];
    gs_fp_to_plain(t, a);
    return lb_lt(HALF, t, N);
}

/* Montgomery's trick (Math. Comp. 1987, section 10.3.1) over one scratch
 * array: scratch[i] = a[0] ... a[i-1], one inversion, then back. */
void gs_fp_batch_inv_nonzero_var(gs_fp *a, gs_fp *scratch, size_t n)
{
    if (n == 0)
        return;
    gs_fp acc = a[0], inv, t;
    for (size_t i = 1; i < n; i++) {
        scratch[i] = acc;
        gs_fp_mul(&acc, &acc, &a[i]);
    }
    gs_fp_inv_var(&inv, &acc);
    for (size_t i = n; i-- > 1;) {
        gs_fp_mul(&t, &inv, &scratch[i]);
        gs_fp_mul(&inv, &inv, &a[i]);
        a[i] = t;
    }
    a[0] = inv;
}
