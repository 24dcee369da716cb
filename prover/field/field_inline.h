/*
 * Field operations as static inline functions for the hot loops of other
 * layers (batch-affine additions in prover/msm and prover/curve), where a
 * function call per operation shows in profiles.  Each computes exactly
 * what its gs_fp_* / gs_fp2_* counterpart computes (test_field.c checks).
 */
#ifndef GS_FIELD_INLINE_H
#define GS_FIELD_INLINE_H

#include <stdint.h>

#include "field.h"

/*
 * out = a - b mod p for reduced a, b: the same function as gs_fp_sub, inlined
 * into the batch-affine loops of the MSM and of the batch subgroup test (a
 * call per subtraction cost ~14% of an MSM, ~11% of the subgroup test).
 * One borrow chain, then p added back under a mask.
 */
static inline void gs_fp_sub_inline(gs_fp *out, const gs_fp *a, const gs_fp *b)
{
#if defined(__x86_64__) && !defined(GS_NO_ASM)
    /* Inline assembly: from intrinsics GCC breaks the carry chains (setb). */
    uint64_t r0 = a->l[0], r1 = a->l[1], r2 = a->l[2], r3 = a->l[3], r4 = a->l[4], r5 = a->l[5], m;
    __asm__("subq %[b0], %[r0]\n\t"
            "sbbq %[b1], %[r1]\n\t"
            "sbbq %[b2], %[r2]\n\t"
            "sbbq %[b3], %[r3]\n\t"
            "sbbq %[b4], %[r4]\n\t"
            "sbbq %[b5], %[r5]\n\t"
            "sbbq %[m], %[m]"
            : [r0] "+r"(r0), [r1] "+r"(r1), [r2] "+r"(r2), [r3] "+r"(r3), [r4] "+r"(r4),
              [r5] "+r"(r5), [m] "=&r"(m)
            : [b0] "m"(b->l[0]), [b1] "m"(b->l[1]), [b2] "m"(b->l[2]), [b3] "m"(b->l[3]),
              [b4] "m"(b->l[4]), [b5] "m"(b->l[5])
            : "cc");
    uint64_t p0 = GS_FP_MODULUS.l[0] & m, p1 = GS_FP_MODULUS.l[1] & m, p2 = GS_FP_MODULUS.l[2] & m,
             p3 = GS_FP_MODULUS.l[3] & m, p4 = GS_FP_MODULUS.l[4] & m, p5 = GS_FP_MODULUS.l[5] & m;
    __asm__("addq %[p0], %[r0]\n\t"
            "adcq %[p1], %[r1]\n\t"
            "adcq %[p2], %[r2]\n\t"
            "adcq %[p3], %[r3]\n\t"
            "adcq %[p4], %[r4]\n\t"
            "adcq %[p5], %[r5]"
            : [r0] "+r"(r0), [r1] "+r"(r1), [r2] "+r"(r2), [r3] "+r"(r3), [r4] "+r"(r4),
              [r5] "+r"(r5)
            : [p0] "rm"(p0), [p1] "rm"(p1), [p2] "rm"(p2), [p3] "rm"(p3), [p4] "rm"(p4),
              [p5] "rm"(p5)
            : "cc");
    out->l[0] = r0;
    out->l[1] = r1;
    out->l[2] = r2;
    out->l[3] = r3;
    out->l[4] = r4;
    out->l[5] = r5;
#else
    uint64_t r[GS_FP_LIMBS], borrow = 0, carry = 0;
    for (int i = 0; i < GS_FP_LIMBS; i++) {
        unsigned __int128 d = (unsigned __int128)a->l[i] - b->l[i] - borrow;
        r[i] = (uint64_t)d;
        borrow = (uint64_t)(d >> 64) & 1;
    }
    uint64_t mask = (uint64_t)0 - borrow;
    for (int i = 0; i < GS_FP_LIMBS; i++) {
        unsigned __int128 s = (unsigned __int128)r[i] + (GS_FP_MODULUS.l[i] & mask) + carry;
        out->l[i] = (uint64_t)s;
        carry = (uint64_t)(s >> 64);
    }
#endif
}

static inline void gs_fp2_sub_inline(gs_fp2 *out, const gs_fp2 *a, const gs_fp2 *b)
{
    gs_fp_sub_inline(&out->c0, &a->c0, &b->c0);
    gs_fp_sub_inline(&out->c1, &a->c1, &b->c1);
}

/*
 * out = a + b mod p for reduced a, b: gs_fp_add inlined (the MSM adds a
 * negated point's y this way instead of negating it first).  One carry
 * chain, then p subtracted unless that borrows; a + b < 2p < 2^384, so the
 * sum itself never carries out.
 */
static inline void gs_fp_add_inline(gs_fp *out, const gs_fp *a, const gs_fp *b)
{
    uint64_t r[GS_FP_LIMBS], s[GS_FP_LIMBS], carry = 0, borrow = 0;
    for (int i = 0; i < GS_FP_LIMBS; i++) {
        unsigned __int128 t = (unsigned __int128)a->l[i] + b->l[i] + carry;
        r[i] = (uint64_t)t;
        carry = (uint64_t)(t >> 64);
    }
    for (int i = 0; i < GS_FP_LIMBS; i++) {
        unsigned __int128 d = (unsigned __int128)r[i] - GS_FP_MODULUS.l[i] - borrow;
        s[i] = (uint64_t)d;
        borrow = (uint64_t)(d >> 64) & 1;
    }
    uint64_t keep = (uint64_t)0 - borrow;            /* all ones: r < p, keep r */
    for (int i = 0; i < GS_FP_LIMBS; i++)
        out->l[i] = (r[i] & keep) | (s[i] & ~keep);
}

static inline void gs_fp2_add_inline(gs_fp2 *out, const gs_fp2 *a, const gs_fp2 *b)
{
    gs_fp_add_inline(&out->c0, &a->c0, &b->c0);
    gs_fp_add_inline(&out->c1, &a->c1, &b->c1);
}

/* a == 0 for reduced a (gs_fp_is_zero inlined). */
static inline int gs_fp_is_zero_inline(const gs_fp *a)
{
    return (a->l[0] | a->l[1] | a->l[2] | a->l[3] | a->l[4] | a->l[5]) == 0;
}

static inline int gs_fp2_is_zero_inline(const gs_fp2 *a)
{
    return gs_fp_is_zero_inline(&a->c0) & gs_fp_is_zero_inline(&a->c1);
}

#endif
