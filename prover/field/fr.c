/*
 * Fr, the 255-bit scalar field of BLS12-381: four 64-bit limbs in Montgomery
 * form with R = 2^256 (field.h has the contract).  The operations Fr shares
 * with Fp are the template prime_field.inc, instantiated here with N = 4 so
 * every loop unrolls; scalars, wide reduction and roots of unity are Fr's
 * own.
 */
#include "field.h"

#include "consts.h"
#include "limbs.h"
#include "mont_asm.h"

#define F gs_fr
#define F_MODULUS GS_FR_MODULUS
#define F_(op) gs_fr_##op
#define FC_(c) GS_FRC_##c
#define N GS_FR_LIMBS
#define F_BYTES GS_FR_BYTES
#define F_ASM_(op) gs_##op##4_asm
#include "prime_field.inc"

static const uint64_t TWOADIC_T[N] = GS_FRC_TWOADIC_T;

int gs_fr_is_one(const gs_fr *a) { return lb_eq(a->l, R1, N); }

void gs_fr_to_scalar(gs_scalar *out, const gs_fr *a) { gs_fr_to_plain(out->l, a); }

int gs_fr_from_scalar(gs_fr *out, const gs_scalar *s) { return gs_fr_from_plain(out, s->l); }

/*
 * in = lo + hi 2^256 with lo, hi < 2^256.  Montgomery multiplication of a
 * value below 2^256 by a reduced constant is valid (product < 2^256 r), so
 * lo R = mont(lo, R^2) and hi 2^256 R = mont(hi, R^3).
 */
void gs_fr_from_bytes_wide(gs_fr *out, const uint8_t in[64])
{
    uint64_t lo[N], hi[N];
    gs_fr a, b;
    lb_from_bytes_le(lo, in, N);
    lb_from_bytes_le(hi, in + 32, N);
    lb_mont_mul(a.l, lo, R2, P, GS_FRC_N0, N);
    lb_mont_mul(b.l, hi, R3, P, GS_FRC_N0, N);
    gs_fr_add(out, &a, &b);
}

/*
 * snarkjs's roots of unity (SNARKJS-FORMATS.md section 7.1):
 * w_(2^32) = 5^t with t = (r-1)/2^32, w_(2^k) = w_(2^32)^(2^(32-k)).
 * k > 32 has no root in Fr; it is clamped to 32 (callers must not ask).
 */
void gs_fr_root_of_unity(gs_fr *out, unsigned k)
{
    gs_fr w;
    if (k > GS_FR_TWO_ADICITY) k = GS_FR_TWO_ADICITY;
    gs_fr_set_u64(&w, 5);
    gs_fr_pow(&w, &w, TWOADIC_T, N);
    for (unsigned i = k; i < GS_FR_TWO_ADICITY; i++) gs_fr_sqr(&w, &w);
    *out = w;
}
