/*
 * Internal to prover/field: Fp and Fp2 multiplication, addition and
 * subtraction as static inline functions, so the tower files (fp2.c, fp6.c,
 * fp12.c) reach the generated assembly without a call per operation.  They
 * compute exactly what gs_fp_* and gs_fp2_* compute (those are defined
 * through them); formulas and sources are in fp2.c.
 */
#ifndef GS_FIELD_FP_INLINE_H
#define GS_FIELD_FP_INLINE_H

#include "field.h"
#include "mont_asm.h"

#ifdef GS_HAVE_MONT_ASM
static inline void fp_mul(gs_fp *out, const gs_fp *a, const gs_fp *b) { gs_mont_mul6_asm(out->l, a->l, b->l); }
static inline void fp_add(gs_fp *out, const gs_fp *a, const gs_fp *b) { gs_mod_add6_asm(out->l, a->l, b->l); }
static inline void fp_sub(gs_fp *out, const gs_fp *a, const gs_fp *b) { gs_mod_sub6_asm(out->l, a->l, b->l); }
#else
static inline void fp_mul(gs_fp *out, const gs_fp *a, const gs_fp *b) { gs_fp_mul(out, a, b); }
static inline void fp_add(gs_fp *out, const gs_fp *a, const gs_fp *b) { gs_fp_add(out, a, b); }
static inline void fp_sub(gs_fp *out, const gs_fp *a, const gs_fp *b) { gs_fp_sub(out, a, b); }
#endif

static inline void fp_dbl(gs_fp *out, const gs_fp *a) { fp_add(out, a, a); }

static inline void fp2_add(gs_fp2 *out, const gs_fp2 *a, const gs_fp2 *b)
{
    fp_add(&out->c0, &a->c0, &b->c0);
    fp_add(&out->c1, &a->c1, &b->c1);
}

static inline void fp2_sub(gs_fp2 *out, const gs_fp2 *a, const gs_fp2 *b)
{
    fp_sub(&out->c0, &a->c0, &b->c0);
    fp_sub(&out->c1, &a->c1, &b->c1);
}

static inline void fp2_dbl(gs_fp2 *out, const gs_fp2 *a) { fp2_add(out, a, a); }

#ifdef GS_HAVE_MONT_ASM
/*
 * Karatsuba (eprint 2006/471 section 3) with lazy reduction (Aranha,
 * Karabina, Longa, Gebotys, Lopez, eprint 2010/526, section 3.1): the three
 * products full width, the two combinations on them, two Montgomery
 * reductions instead of three (180 mulx instead of 216).  Bounds, a and b
 * reduced: a0 + a1, b0 + b1 < 2p unreduced, so (a0 + a1)(b0 + b1) < 4p^2;
 * c1 = that - a0 b0 - a1 b1 = a0 b1 + a1 b0 < 2p^2; c0 = a0 b0 - a1 b1,
 * plus p R when negative; both in [0, p R), the reduction's range
 * (R = 2^384 > 16p).  Same value as the reduced form below.
 */
static inline void fp2_mul(gs_fp2 *out, const gs_fp2 *a, const gs_fp2 *b)
{
    uint64_t t0[12], t1[12], t2[12], sa[6], sb[6];
    gs_mul6_wide_asm(t0, a->c0.l, b->c0.l);
    gs_mul6_wide_asm(t1, a->c1.l, b->c1.l);
    gs_add6_nored_asm(sa, a->c0.l, a->c1.l);
    gs_add6_nored_asm(sb, b->c0.l, b->c1.l);
    gs_mul6_wide_asm(t2, sa, sb);
    gs_sub12_asm(t2, t2, t0);
    gs_sub12_asm(t2, t2, t1);
    gs_sub12_modp_asm(t0, t0, t1);
    gs_redc6_asm(out->c0.l, t0);
    gs_redc6_asm(out->c1.l, t2);
}
#else
/* Karatsuba, eprint 2006/471 section 3, on reduced values. */
static inline void fp2_mul(gs_fp2 *out, const gs_fp2 *a, const gs_fp2 *b)
{
    gs_fp t0, t1, s0, s1;
    fp_mul(&t0, &a->c0, &b->c0);
    fp_mul(&t1, &a->c1, &b->c1);
    fp_add(&s0, &a->c0, &a->c1);
    fp_add(&s1, &b->c0, &b->c1);
    fp_mul(&s0, &s0, &s1);
    fp_sub(&out->c0, &t0, &t1);
    fp_sub(&s0, &s0, &t0);
    fp_sub(&out->c1, &s0, &t1);
}
#endif

/* The norm a0^2 + a1^2 in Fp (1/a = conj(a) / norm): with the assembly,
 * both squares full width and one reduction (a0^2 + a1^2 < 2p^2 < p R). */
static inline void fp2_norm(gs_fp *out, const gs_fp2 *a)
{
#ifdef GS_HAVE_MONT_ASM
    uint64_t t0[12], t1[12];
    gs_mul6_wide_asm(t0, a->c0.l, a->c0.l);
    gs_mul6_wide_asm(t1, a->c1.l, a->c1.l);
    gs_add12_asm(t0, t0, t1);
    gs_redc6_asm(out->l, t0);
#else
    gs_fp t;
    fp_mul(out, &a->c0, &a->c0);
    fp_mul(&t, &a->c1, &a->c1);
    fp_add(out, out, &t);
#endif
}

/* Complex squaring, eprint 2006/471 section 3.1. */
static inline void fp2_sqr(gs_fp2 *out, const gs_fp2 *a)
{
    gs_fp s, d, m;
    fp_add(&s, &a->c0, &a->c1);
    fp_sub(&d, &a->c0, &a->c1);
    fp_mul(&m, &a->c0, &a->c1);
    fp_mul(&out->c0, &s, &d);
    fp_dbl(&out->c1, &m);
}

/* a (u + 1) = (a0 - a1) + (a0 + a1) u */
static inline void fp2_mul_nr(gs_fp2 *out, const gs_fp2 *a)
{
    gs_fp t;
    fp_sub(&t, &a->c0, &a->c1);
    fp_add(&out->c1, &a->c0, &a->c1);
    out->c0 = t;
}

#endif
