/*
 * BLS12-381 groups: G1 on E(Fp): y^2 = x^3 + 4, G2 on E'(Fp2): y^2 = x^3 + 4(u+1).
 *
 * Forms: affine (with an explicit infinity flag), Jacobian (x = X/Z^2,
 * y = Y/Z^3, Z = 0 is infinity) and XYZZ (x = X/ZZ, y = Y/ZZZ, ZZ = 0 is
 * infinity; for MSM buckets).  All coordinates are Montgomery field
 * elements (field.h).  Outputs may alias inputs.  Arithmetic never fails.
 *
 * Formulas: EFD, https://hyperelliptic.org/EFD/g1p/auto-shortw-jacobian-0.html
 * and auto-shortw-xyzz.html (a = 0).
 *
 * Encodings (Zcash/Filecoin BLS12-381 serialization, big-endian):
 * G1 compressed 48 bytes, uncompressed 96; G2 compressed 96, uncompressed
 * 192 (x.c1 before x.c0).  Top bits of byte 0: 0x80 compressed, 0x40
 * infinity, 0x20 y is lexicographically largest (compressed only).
 * Decoders return a gs_status and check flags, range, curve and subgroup.
 *
 * Decoder statuses: GS_ERR_FORMAT (flag bits: compression flag wrong for the
 * length, sign flag in an uncompressed or infinity encoding, nonzero bytes
 * after the infinity flag), GS_ERR_RANGE (a coordinate >= p), GS_ERR_POINT
 * (not on the curve, or not in the prime-order subgroup).  err may be NULL;
 * its message names the byte range ("G1 point (48-byte compressed) @ bytes
 * 0..47: ...").  On failure *out is not written.
 *
 * Subgroup checks use endomorphisms (Scott, eprint 2021/1130): G1 via
 * phi(x, y) = (beta x, y) and phi(P) == [-x^2]P, G2 via psi(P) == [x]P.
 *
 * Thread safety: every function is a pure function of its arguments (no
 * global state, no allocation).  Timing: *_mul is constant time in the
 * scalar (complete formulas, masked swaps); everything else may branch on
 * exceptional cases (infinity, equal or opposite inputs).
 */
#ifndef GS_CURVE_H
#define GS_CURVE_H

#include <stddef.h>
#include <stdint.h>

#include "../../common/pool.h"
#include "../../common/status.h"
#include "../field/field.h"

typedef struct { gs_fp x, y; int inf; } gs_g1_affine;
typedef struct { gs_fp X, Y, Z; } gs_g1;
typedef struct { gs_fp X, Y, ZZ, ZZZ; } gs_g1_xyzz;

typedef struct { gs_fp2 x, y; int inf; } gs_g2_affine;
typedef struct { gs_fp2 X, Y, Z; } gs_g2;
typedef struct { gs_fp2 X, Y, ZZ, ZZZ; } gs_g2_xyzz;

/* ---- G1 ---------------------------------------------------------------- */
void gs_g1_generator(gs_g1 *out);
void gs_g1_affine_generator(gs_g1_affine *out);
void gs_g1_set_inf(gs_g1 *out);
int gs_g1_is_inf(const gs_g1 *a);
void gs_g1_affine_set_inf(gs_g1_affine *out);
void gs_g1_from_affine(gs_g1 *out, const gs_g1_affine *a);
void gs_g1_to_affine(gs_g1_affine *out, const gs_g1 *a);
/* Converts n points with one inversion; out and in must not overlap. */
void gs_g1_batch_to_affine(gs_g1_affine *out, const gs_g1 *in, size_t n);
int gs_g1_eq(const gs_g1 *a, const gs_g1 *b);
int gs_g1_affine_eq(const gs_g1_affine *a, const gs_g1_affine *b);
void gs_g1_neg(gs_g1 *out, const gs_g1 *a);
void gs_g1_affine_neg(gs_g1_affine *out, const gs_g1_affine *a);
void gs_g1_dbl(gs_g1 *out, const gs_g1 *a);
void gs_g1_add(gs_g1 *out, const gs_g1 *a, const gs_g1 *b);      /* complete: handles a==b, inf */
void gs_g1_add_affine(gs_g1 *out, const gs_g1 *a, const gs_g1_affine *b); /* mixed, complete */
/* Scalar multiplication by a plain integer (variable time: public scalars or tests). */
void gs_g1_mul_var(gs_g1 *out, const gs_g1 *a, const gs_scalar *k);
/* Constant-time ladder for secret scalars (k < 2^255, as every k < r). */
void gs_g1_mul(gs_g1 *out, const gs_g1 *a, const gs_scalar *k);
int gs_g1_affine_is_on_curve(const gs_g1_affine *a);   /* inf counts as on curve */
int gs_g1_affine_in_subgroup(const gs_g1_affine *a);
/*
 * Subgroup membership of n affine points (each on the curve; infinity is in
 * the subgroup), spread over pool (NULL: serial).  Returns n when all pass,
 * else the index of a point that is not in the subgroup; that point always
 * fails the exact test above, and every point before it passed.
 *
 * _first_not_in_subgroup runs the exact test on every point (stops early).
 * _batch_in_subgroup tests random subset sums (ec_subgroup_batch.inc): about
 * 10x (G1) and 4x (G2) less work per point than the exact test; if a point is outside the subgroup, all 64 sums pass
 * with probability at most 2^-64 over the choice of seed (32 bytes the
 * caller draws fresh (getrandom(2): rng.h) and never reveals in advance);
 * when a sum fails, the exact test locates the lowest bad point.  The same
 * seed gives the same answer.  No allocation failure is reported: without
 * scratch memory it falls back to the exact test of each point.
 */
size_t gs_g1_affine_first_not_in_subgroup(const gs_g1_affine *pts, size_t n, gs_pool *pool);
size_t gs_g1_affine_batch_in_subgroup(const gs_g1_affine *pts, size_t n, const uint8_t seed[32],
                                      gs_pool *pool);
/* XYZZ (for buckets). */
void gs_g1_xyzz_set_inf(gs_g1_xyzz *out);
void gs_g1_xyzz_add_affine(gs_g1_xyzz *out, const gs_g1_xyzz *a, const gs_g1_affine *b);
void gs_g1_xyzz_add(gs_g1_xyzz *out, const gs_g1_xyzz *a, const gs_g1_xyzz *b);
void gs_g1_xyzz_to_jacobian(gs_g1 *out, const gs_g1_xyzz *a);

gs_status gs_g1_compress(uint8_t out[48], const gs_g1_affine *a);
gs_status gs_g1_serialize(uint8_t out[96], const gs_g1_affine *a);
gs_status gs_g1_decompress(gs_g1_affine *out, const uint8_t in[48], gs_err *err);
gs_status gs_g1_deserialize(gs_g1_affine *out, const uint8_t in[96], gs_err *err);

/* ---- G2 (same contracts over Fp2) -------------------------------------- */
void gs_g2_generator(gs_g2 *out);
void gs_g2_affine_generator(gs_g2_affine *out);
void gs_g2_set_inf(gs_g2 *out);
int gs_g2_is_inf(const gs_g2 *a);
void gs_g2_affine_set_inf(gs_g2_affine *out);
void gs_g2_from_affine(gs_g2 *out, const gs_g2_affine *a);
void gs_g2_to_affine(gs_g2_affine *out, const gs_g2 *a);
void gs_g2_batch_to_affine(gs_g2_affine *out, const gs_g2 *in, size_t n);
int gs_g2_eq(const gs_g2 *a, const gs_g2 *b);
int gs_g2_affine_eq(const gs_g2_affine *a, const gs_g2_affine *b);
void gs_g2_neg(gs_g2 *out, const gs_g2 *a);
void gs_g2_affine_neg(gs_g2_affine *out, const gs_g2_affine *a);
void gs_g2_dbl(gs_g2 *out, const gs_g2 *a);
void gs_g2_add(gs_g2 *out, const gs_g2 *a, const gs_g2 *b);
void gs_g2_add_affine(gs_g2 *out, const gs_g2 *a, const gs_g2_affine *b);
void gs_g2_mul_var(gs_g2 *out, const gs_g2 *a, const gs_scalar *k);
void gs_g2_mul(gs_g2 *out, const gs_g2 *a, const gs_scalar *k);
int gs_g2_affine_is_on_curve(const gs_g2_affine *a);
int gs_g2_affine_in_subgroup(const gs_g2_affine *a);
size_t gs_g2_affine_first_not_in_subgroup(const gs_g2_affine *pts, size_t n, gs_pool *pool);
size_t gs_g2_affine_batch_in_subgroup(const gs_g2_affine *pts, size_t n, const uint8_t seed[32],
                                      gs_pool *pool);
void gs_g2_xyzz_set_inf(gs_g2_xyzz *out);
void gs_g2_xyzz_add_affine(gs_g2_xyzz *out, const gs_g2_xyzz *a, const gs_g2_affine *b);
void gs_g2_xyzz_add(gs_g2_xyzz *out, const gs_g2_xyzz *a, const gs_g2_xyzz *b);
void gs_g2_xyzz_to_jacobian(gs_g2 *out, const gs_g2_xyzz *a);

gs_status gs_g2_compress(uint8_t out[96], const gs_g2_affine *a);
gs_status gs_g2_serialize(uint8_t out[192], const gs_g2_affine *a);
gs_status gs_g2_decompress(gs_g2_affine *out, const uint8_t in[96], gs_err *err);
gs_status gs_g2_deserialize(gs_g2_affine *out, const uint8_t in[192], gs_err *err);

#endif
