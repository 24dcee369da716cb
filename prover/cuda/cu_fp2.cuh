/*
 * Device arithmetic in Fp2 = Fp[u] / (u^2 + 1), the field of G2's
 * coordinates: c0 + c1 u with c0, c1 device Fp elements (cu_field.cuh), so
 * a cu_fp2 is the same 96 bytes as the host's gs_fp2 (field.h: c0 then c1,
 * each Montgomery, fully reduced).  Internal to prover/cuda (.cu files).
 *
 * The functions overload cu_field.cuh's fe_* names, so the curve formulas
 * (cu_ec.cuh) are written once over "a field element type" and serve G1
 * over Fp and G2 over Fp2.  Outputs may alias inputs.
 *
 * Multiplication is Karatsuba (3 Fp multiplications), squaring the complex
 * method (2 multiplications), as in the host's fp2.c.  Both are kept out of
 * line: one inlined Fp multiplication is ~600 instructions, and a G2 point
 * addition inlining all ~45 of them would not fit the instruction cache.
 */
#ifndef GS_CU_FP2_CUH
#define GS_CU_FP2_CUH

#include "cu_field.cuh"

struct cu_fp2 {
    cu_fp c0, c1;
};

CU_DEV void fe_zero(cu_fp2 &r)
{
    fe_zero(r.c0);
    fe_zero(r.c1);
}

CU_DEV void fe_one(cu_fp2 &r)
{
    fe_one(r.c0);
    fe_zero(r.c1);
}

CU_DEV bool fe_is_zero(const cu_fp2 &a) { return fe_is_zero(a.c0) && fe_is_zero(a.c1); }

CU_DEV bool fe_eq(const cu_fp2 &a, const cu_fp2 &b)
{
    return fe_eq(a.c0, b.c0) && fe_eq(a.c1, b.c1);
}

CU_DEV void fe_add(cu_fp2 &r, const cu_fp2 &a, const cu_fp2 &b)
{
    fe_add(r.c0, a.c0, b.c0);
    fe_add(r.c1, a.c1, b.c1);
}

CU_DEV void fe_sub(cu_fp2 &r, const cu_fp2 &a, const cu_fp2 &b)
{
    fe_sub(r.c0, a.c0, b.c0);
    fe_sub(r.c1, a.c1, b.c1);
}

CU_DEV void fe_dbl(cu_fp2 &r, const cu_fp2 &a) { fe_add(r, a, a); }

CU_DEV void fe_neg(cu_fp2 &r, const cu_fp2 &a)
{
    fe_neg(r.c0, a.c0);
    fe_neg(r.c1, a.c1);
}

/* (a0 + a1 u)(b0 + b1 u) = (a0 b0 - a1 b1) + ((a0 + a1)(b0 + b1) - a0 b0 - a1 b1) u;
 * the body, inlined into fe_mul (by reference) and fe2_mul_call (by value). */
CU_DEV void fe2_mul_body(cu_fp2 &r, const cu_fp2 &a, const cu_fp2 &b)
{
    cu_fp t0, t1, sa, sb;
    fe_mul(t0, a.c0, b.c0);
    fe_mul(t1, a.c1, b.c1);
    fe_add(sa, a.c0, a.c1);
    fe_add(sb, b.c0, b.c1);
    fe_mul(sa, sa, sb);
    fe_sub(r.c0, t0, t1);
    fe_sub(sa, sa, t0);
    fe_sub(r.c1, sa, t1);
}

static __device__ __noinline__ void fe_mul(cu_fp2 &r, const cu_fp2 &a, const cu_fp2 &b)
{
    fe2_mul_body(r, a, b);
}

/* (a0 + a1 u)^2 = (a0 + a1)(a0 - a1) + 2 a0 a1 u */
CU_DEV void fe2_sqr_body(cu_fp2 &r, const cu_fp2 &a)
{
    cu_fp s, d, m;
    fe_add(s, a.c0, a.c1);
    fe_sub(d, a.c0, a.c1);
    fe_mul(m, a.c0, a.c1);
    fe_mul(r.c0, s, d);
    fe_dbl(r.c1, m);
}

static __device__ __noinline__ void fe_sqr(cu_fp2 &r, const cu_fp2 &a) { fe2_sqr_body(r, a); }

/*
 * The same out of line by value (arguments and result in registers, no
 * stack frame), for G2's bucket loop (cu_ec.cuh's cu_ops_fp2_call): by
 * reference, every call site stores its operands to the caller's local
 * memory and passes their addresses.
 */
static __device__ __noinline__ cu_fp2 fe2_mul_call(cu_fp2 a, cu_fp2 b)
{
    cu_fp2 r;
    fe2_mul_body(r, a, b);
    return r;
}
static __device__ __noinline__ cu_fp2 fe2_sqr_call(cu_fp2 a)
{
    cu_fp2 r;
    fe2_sqr_body(r, a);
    return r;
}

/* r = a^-1 = (a0 - a1 u) / (a0^2 + a1^2) (u^2 = -1; 0 stays 0): one Fp
 * inversion (Fermat), for one-time work (G2's precomputed copies). */
static __device__ __noinline__ void fe_inv(cu_fp2 &r, const cu_fp2 &a)
{
    cu_fp n0, n1, ni;
    fe_mul(n0, a.c0, a.c0);
    fe_mul(n1, a.c1, a.c1);
    fe_add(n0, n0, n1);
    fe_inv(ni, n0);
    fe_mul(r.c0, a.c0, ni);
    fe_mul(n1, a.c1, ni);
    fe_neg(r.c1, n1);
}

CU_DEV void fe_load(cu_fp2 &r, const cu_fp2 *p)
{
    fe_load(r.c0, &p->c0);
    fe_load(r.c1, &p->c1);
}

CU_DEV void fe_store(cu_fp2 *p, const cu_fp2 &a)
{
    fe_store(&p->c0, a.c0);
    fe_store(&p->c1, a.c1);
}

#endif
