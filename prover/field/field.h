/*
 * BLS12-381 fields: Fp (381-bit base field), Fr (255-bit scalar field), and
 * the tower Fp2 = Fp[u]/(u^2+1), Fp6 = Fp2[v]/(v^3-(u+1)),
 * Fp12 = Fp6[w]/(w^2-v).
 *
 * Representation: little-endian 64-bit limbs, Montgomery form with
 * R = 2^384 for Fp and R = 2^256 for Fr (the same R snarkjs uses, so zkey
 * point coordinates are our limbs byte for byte).  Every element passed in
 * or out is fully reduced (< p).  Outputs may alias inputs.
 *
 * Arithmetic never allocates and never fails.  Functions named *_var run in
 * time that depends on their input; the others do not branch on secrets
 * (pow branches on its exponent, which callers treat as public).  There is
 * no mutable shared state: every function is safe to call from any thread.
 *
 * Implementation: fp.c, fr.c (Montgomery CIOS; on x86-64 with BMI2+ADX the
 * generated mulx/adcx/adox assembly of mont_asm.h, portable C otherwise),
 * fp2.c, fp6.c, fp12.c, fp12_cyclotomic.c; constants come from the
 * generators in gen/ (consts.h, frobenius_tables.c, mont_asm.h).
 *
 * Scalars for scalar multiplication and MSM are plain integers < r
 * (gs_scalar, not Montgomery): convert with gs_fr_to_scalar.
 */
#ifndef GS_FIELD_H
#define GS_FIELD_H

#include <stddef.h>
#include <stdint.h>

#include "../../common/rng.h"

#define GS_FP_LIMBS 6
#define GS_FR_LIMBS 4
#define GS_FP_BYTES 48
#define GS_FR_BYTES 32

typedef struct { uint64_t l[GS_FP_LIMBS]; } gs_fp;
typedef struct { uint64_t l[GS_FR_LIMBS]; } gs_fr;
/* A plain (non-Montgomery) integer below r, little-endian limbs. */
typedef struct { uint64_t l[GS_FR_LIMBS]; } gs_scalar;

typedef struct { gs_fp c0, c1; } gs_fp2;          /* c0 + c1 u   */
typedef struct { gs_fp2 c0, c1, c2; } gs_fp6;     /* c0 + c1 v + c2 v^2 */
typedef struct { gs_fp6 c0, c1; } gs_fp12;        /* c0 + c1 w   */

/* The moduli as plain limbs. */
extern const gs_fp GS_FP_MODULUS;   /* p */
extern const gs_fr GS_FR_MODULUS;   /* r */

/* ---- Fp ---------------------------------------------------------------- */
void gs_fp_zero(gs_fp *out);
void gs_fp_one(gs_fp *out);
void gs_fp_set_u64(gs_fp *out, uint64_t v);
int gs_fp_is_zero(const gs_fp *a);
int gs_fp_eq(const gs_fp *a, const gs_fp *b);
void gs_fp_add(gs_fp *out, const gs_fp *a, const gs_fp *b);
void gs_fp_sub(gs_fp *out, const gs_fp *a, const gs_fp *b);
void gs_fp_neg(gs_fp *out, const gs_fp *a);
void gs_fp_dbl(gs_fp *out, const gs_fp *a);
void gs_fp_mul(gs_fp *out, const gs_fp *a, const gs_fp *b);
void gs_fp_sqr(gs_fp *out, const gs_fp *a);
/* a^e, e given as n little-endian 64-bit limbs (plain integer). */
void gs_fp_pow(gs_fp *out, const gs_fp *a, const uint64_t *e, size_t n);
/* Inverse; inverse of 0 is 0.  _var: variable time (binary extended gcd). */
void gs_fp_inv(gs_fp *out, const gs_fp *a);
void gs_fp_inv_var(gs_fp *out, const gs_fp *a);
/* Square root: returns 1 and sets out (either root) if a is a square, else 0
 * (out untouched). */
int gs_fp_sqrt(gs_fp *out, const gs_fp *a);
/* 1 if the plain value of a is > (p-1)/2 (the "lexicographically largest"
 * flag of the Zcash compressed encoding). */
int gs_fp_is_lexlargest(const gs_fp *a);
/* Montgomery <-> plain. */
void gs_fp_to_plain(uint64_t out[GS_FP_LIMBS], const gs_fp *a);
/* Returns 0 (out untouched) if plain >= p. */
int gs_fp_from_plain(gs_fp *out, const uint64_t plain[GS_FP_LIMBS]);
/* Canonical 48-byte encodings of the plain value; decoders return 0 if >= p. */
void gs_fp_to_bytes_le(uint8_t out[GS_FP_BYTES], const gs_fp *a);
void gs_fp_to_bytes_be(uint8_t out[GS_FP_BYTES], const gs_fp *a);
int gs_fp_from_bytes_le(gs_fp *out, const uint8_t in[GS_FP_BYTES]);
int gs_fp_from_bytes_be(gs_fp *out, const uint8_t in[GS_FP_BYTES]);
void gs_fp_random(gs_fp *out, gs_rng *rng);
/* Montgomery batch inversion (zeros stay zero); in place, no heap. */
void gs_fp_batch_inv_var(gs_fp *a, size_t n);
/* Batch inversion of n NONZERO elements with a caller scratch of n elements
 * (the hot loops of batch-affine addition): one inversion in all, 3(n-1)
 * multiplications.  A zero input gives undefined results (no check). */
void gs_fp_batch_inv_nonzero_var(gs_fp *a, gs_fp *scratch, size_t n);

/* ---- Fr ---------------------------------------------------------------- */
void gs_fr_zero(gs_fr *out);
void gs_fr_one(gs_fr *out);
void gs_fr_set_u64(gs_fr *out, uint64_t v);
int gs_fr_is_zero(const gs_fr *a);
int gs_fr_is_one(const gs_fr *a);
int gs_fr_eq(const gs_fr *a, const gs_fr *b);
void gs_fr_add(gs_fr *out, const gs_fr *a, const gs_fr *b);
void gs_fr_sub(gs_fr *out, const gs_fr *a, const gs_fr *b);
void gs_fr_neg(gs_fr *out, const gs_fr *a);
void gs_fr_dbl(gs_fr *out, const gs_fr *a);
void gs_fr_mul(gs_fr *out, const gs_fr *a, const gs_fr *b);
void gs_fr_sqr(gs_fr *out, const gs_fr *a);
void gs_fr_pow(gs_fr *out, const gs_fr *a, const uint64_t *e, size_t n);
void gs_fr_inv(gs_fr *out, const gs_fr *a);
void gs_fr_inv_var(gs_fr *out, const gs_fr *a);
/* Montgomery batch inversion (zeros stay zero); scratch-free, in place. */
void gs_fr_batch_inv_var(gs_fr *a, size_t n);
void gs_fr_to_plain(uint64_t out[GS_FR_LIMBS], const gs_fr *a);
int gs_fr_from_plain(gs_fr *out, const uint64_t plain[GS_FR_LIMBS]);
void gs_fr_to_scalar(gs_scalar *out, const gs_fr *a);
/* Returns 0 if s >= r. */
int gs_fr_from_scalar(gs_fr *out, const gs_scalar *s);
void gs_fr_to_bytes_le(uint8_t out[GS_FR_BYTES], const gs_fr *a);
void gs_fr_to_bytes_be(uint8_t out[GS_FR_BYTES], const gs_fr *a);
int gs_fr_from_bytes_le(gs_fr *out, const uint8_t in[GS_FR_BYTES]);
int gs_fr_from_bytes_be(gs_fr *out, const uint8_t in[GS_FR_BYTES]);
/* Reduces 64 arbitrary bytes (little-endian integer) mod r: for hashing. */
void gs_fr_from_bytes_wide(gs_fr *out, const uint8_t in[64]);
void gs_fr_random(gs_fr *out, gs_rng *rng);
/* Decimal string of the plain value (snarkjs JSON); buf >= 80 bytes. */
void gs_fr_to_dec(char *buf, size_t len, const gs_fr *a);
/* Parses a decimal string; returns 0 if malformed or >= r. */
int gs_fr_from_dec(gs_fr *out, const char *s);
/* Same for Fp (buf >= 120 bytes). */
void gs_fp_to_dec(char *buf, size_t len, const gs_fp *a);
int gs_fp_from_dec(gs_fp *out, const char *s);

/*
 * Roots of unity, snarkjs's convention (SNARKJS-FORMATS.md section 7.1):
 * nqr = 5, s = 32, w_(2^32) = 5^((r-1)/2^32), w_(2^k) = w_(2^32)^(2^(32-k)).
 * gs_fr_root_of_unity(out, k) sets out = w_(2^k), 0 <= k <= 32 (a larger k
 * is treated as 32).  Costs one 224-bit exponentiation (~10 us): cache it.
 */
#define GS_FR_TWO_ADICITY 32
void gs_fr_root_of_unity(gs_fr *out, unsigned k);
/* A generator of Fr^* (bellman/ff's MULTIPLICATIVE_GENERATOR for
 * BLS12-381): a non-residue, so g^(2^k) != 1 for every k <= 31 and g H is a
 * coset disjoint from any 2^k-element subgroup H (the classic H convention,
 * groth16.h). */
#define GS_FR_GENERATOR 7u

/* ---- Fp2 --------------------------------------------------------------- */
void gs_fp2_zero(gs_fp2 *out);
void gs_fp2_one(gs_fp2 *out);
int gs_fp2_is_zero(const gs_fp2 *a);
int gs_fp2_eq(const gs_fp2 *a, const gs_fp2 *b);
void gs_fp2_add(gs_fp2 *out, const gs_fp2 *a, const gs_fp2 *b);
void gs_fp2_sub(gs_fp2 *out, const gs_fp2 *a, const gs_fp2 *b);
void gs_fp2_neg(gs_fp2 *out, const gs_fp2 *a);
void gs_fp2_dbl(gs_fp2 *out, const gs_fp2 *a);
void gs_fp2_mul(gs_fp2 *out, const gs_fp2 *a, const gs_fp2 *b);
void gs_fp2_sqr(gs_fp2 *out, const gs_fp2 *a);
void gs_fp2_mul_fp(gs_fp2 *out, const gs_fp2 *a, const gs_fp *b);
/* out = a * (u + 1), the Fp6 non-residue. */
void gs_fp2_mul_nr(gs_fp2 *out, const gs_fp2 *a);
void gs_fp2_conj(gs_fp2 *out, const gs_fp2 *a);
void gs_fp2_inv(gs_fp2 *out, const gs_fp2 *a);
/* gs_fp_batch_inv_nonzero_var over Fp2: the norms a0^2 + a1^2 (nonzero for
 * nonzero a: -1 is a non-square) are inverted together in Fp. */
void gs_fp2_batch_inv_nonzero_var(gs_fp2 *a, gs_fp2 *scratch, size_t n);
/* Returns 1 and sets out (either root) if a is a square in Fp2, else 0
 * (out untouched). */
int gs_fp2_sqrt(gs_fp2 *out, const gs_fp2 *a);
/* Zcash sign of an Fp2 element: lexlargest of c1, or of c0 when c1 == 0. */
int gs_fp2_is_lexlargest(const gs_fp2 *a);
void gs_fp2_frobenius(gs_fp2 *out, const gs_fp2 *a); /* a^p = conj(a) */
void gs_fp2_random(gs_fp2 *out, gs_rng *rng);
/* a^e, e as n little-endian 64-bit limbs (variable time in e only). */
void gs_fp2_pow(gs_fp2 *out, const gs_fp2 *a, const uint64_t *e, size_t n);

/* ---- Fp6 --------------------------------------------------------------- */
void gs_fp6_zero(gs_fp6 *out);
void gs_fp6_one(gs_fp6 *out);
int gs_fp6_eq(const gs_fp6 *a, const gs_fp6 *b);
void gs_fp6_add(gs_fp6 *out, const gs_fp6 *a, const gs_fp6 *b);
void gs_fp6_sub(gs_fp6 *out, const gs_fp6 *a, const gs_fp6 *b);
void gs_fp6_neg(gs_fp6 *out, const gs_fp6 *a);
void gs_fp6_mul(gs_fp6 *out, const gs_fp6 *a, const gs_fp6 *b);
void gs_fp6_sqr(gs_fp6 *out, const gs_fp6 *a);
void gs_fp6_mul_by_v(gs_fp6 *out, const gs_fp6 *a);
void gs_fp6_inv(gs_fp6 *out, const gs_fp6 *a);
/* a^(p^k), k = 1..5 (constant tables). */
void gs_fp6_frobenius(gs_fp6 *out, const gs_fp6 *a, unsigned k);
void gs_fp6_random(gs_fp6 *out, gs_rng *rng);

/* ---- Fp12 -------------------------------------------------------------- */
void gs_fp12_zero(gs_fp12 *out);
void gs_fp12_one(gs_fp12 *out);
int gs_fp12_is_one(const gs_fp12 *a);
int gs_fp12_eq(const gs_fp12 *a, const gs_fp12 *b);
void gs_fp12_add(gs_fp12 *out, const gs_fp12 *a, const gs_fp12 *b);
void gs_fp12_sub(gs_fp12 *out, const gs_fp12 *a, const gs_fp12 *b);
void gs_fp12_mul(gs_fp12 *out, const gs_fp12 *a, const gs_fp12 *b);
void gs_fp12_sqr(gs_fp12 *out, const gs_fp12 *a);
void gs_fp12_inv(gs_fp12 *out, const gs_fp12 *a);
void gs_fp12_conj(gs_fp12 *out, const gs_fp12 *a);  /* a^(p^6) */
/* a^(p^k), k = 1..11. */
void gs_fp12_frobenius(gs_fp12 *out, const gs_fp12 *a, unsigned k);
void gs_fp12_pow(gs_fp12 *out, const gs_fp12 *a, const uint64_t *e, size_t n);
/* a^2 for a in the cyclotomic subgroup (a^(p^4-p^2+1) = 1, e.g. any value
 * after the easy part of the final exponentiation); about 2/3 the cost of
 * gs_fp12_sqr.  The result is wrong for other a.  Granger and Scott,
 * eprint 2009/565, section 3.2. */
void gs_fp12_cyclotomic_sqr(gs_fp12 *out, const gs_fp12 *a);
void gs_fp12_random(gs_fp12 *out, gs_rng *rng);

#endif
