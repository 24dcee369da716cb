/*
 * Internal to prover/field: Fp multiplication, addition and subtraction as
 * static inline functions, so the tower files (fp2.c, ...) reach the
 * generated assembly without a call per operation.  Same functions as
 * gs_fp_mul/add/sub (the portable build simply calls those).
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

#endif
