/*
 * Device curve arithmetic for the MSM, written once over the coordinate
 * field: G1 (E: y^2 = x^3 + 4 over Fp) and G2 (E': y^2 = x^3 + 4(u + 1)
 * over Fp2) use the same formulas, instantiated with F = F or cu_fp2
 * (the fe_* operations of cu_field.cuh and cu_fp2.cuh are overloads).
 * Internal to prover/cuda.
 *
 * Forms: compact affine points (x, y; the point at infinity is stored as
 * x = y = 0, which is on neither curve): 96 bytes on G1, 192 on G2; and
 * XYZZ buckets (x = X/ZZ, y = Y/ZZZ, ZZ = 0 is infinity), the same bytes
 * as curve.h's gs_g1_xyzz / gs_g2_xyzz.
 *
 * Formulas (a = 0), EFD https://hyperelliptic.org/EFD/g1p/auto-shortw-xyzz.html:
 *   madd-2008-s (XYZZ + affine, 8M + 2S), add-2008-s (XYZZ + XYZZ, 12M + 2S),
 *   dbl-2008-s-1 and mdbl-2008-s-1 (doubling), with the exceptional cases
 *   (infinity, P == Q, P == -Q) handled explicitly so every function is
 *   complete.  The curve constant b does not appear in any of them.
 */
#ifndef GS_CU_EC_CUH
#define GS_CU_EC_CUH

#include "cu_field.cuh"
#include "cu_fp2.cuh"

/* The point formulas are large (10-20 inlined multiplications each): kept
 * out of line so each is compiled once per module (compile time, code
 * size); the call costs little next to the body. */
#define CU_PT static __device__ __noinline__

template <class F> struct cu_aff {
    F x, y;
};
template <class F> struct cu_xyzz {
    F X, Y, ZZ, ZZZ;
};
typedef cu_aff<cu_fp> cu_g1_aff;
typedef cu_xyzz<cu_fp> cu_g1_xyzz;
typedef cu_aff<cu_fp2> cu_g2_aff;
typedef cu_xyzz<cu_fp2> cu_g2_xyzz;

template <class F> CU_DEV bool aff_is_inf(const cu_aff<F> &p)
{
    return fe_is_zero(p.x) && fe_is_zero(p.y);
}
template <class F> CU_DEV bool xyzz_is_inf(const cu_xyzz<F> &p) { return fe_is_zero(p.ZZ); }
template <class F> CU_DEV void xyzz_set_inf(cu_xyzz<F> &r)
{
    fe_zero(r.X);
    fe_one(r.Y);
    fe_zero(r.ZZ);
    fe_zero(r.ZZZ);
}

template <class F> CU_DEV void aff_load(cu_aff<F> &r, const cu_aff<F> *p)
{
    fe_load(r.x, &p->x);
    fe_load(r.y, &p->y);
}

template <class F> CU_DEV void xyzz_load(cu_xyzz<F> &r, const cu_xyzz<F> *p)
{
    fe_load(r.X, &p->X);
    fe_load(r.Y, &p->Y);
    fe_load(r.ZZ, &p->ZZ);
    fe_load(r.ZZZ, &p->ZZZ);
}

template <class F> CU_DEV void xyzz_store(cu_xyzz<F> *p, const cu_xyzz<F> &a)
{
    fe_store(&p->X, a.X);
    fe_store(&p->Y, a.Y);
    fe_store(&p->ZZ, a.ZZ);
    fe_store(&p->ZZZ, a.ZZZ);
}

/* r = 2 * (x, y) for an affine point (mdbl-2008-s-1); the body, inlined
 * where the caller asks (xyzz_add_aff<F, true>), out of line otherwise. */
template <class F> static __device__ __forceinline__ void xyzz_dbl_aff_body(cu_xyzz<F> &r, const F &x,
                                                                            const F &y)
{
    F U, V, W, S, M, t;
    fe_dbl(U, y);
    fe_sqr(V, U);
    fe_mul(W, U, V);
    fe_mul(S, x, V);
    fe_sqr(t, x);
    fe_dbl(M, t);
    fe_add(M, M, t);
    fe_sqr(t, M);
    fe_sub(t, t, S);
    fe_sub(r.X, t, S);
    fe_sub(t, S, r.X);
    fe_mul(t, M, t);
    fe_mul(U, W, y);
    fe_sub(r.Y, t, U);
    r.ZZ = V;
    r.ZZZ = W;
}

template <class F> CU_PT void xyzz_dbl_aff(cu_xyzz<F> &r, const F &x, const F &y)
{
    xyzz_dbl_aff_body(r, x, y);
}

/* The field operations of xyzz_add_aff_ops: reduced (any F; fe_sqr is the
 * configuration's squaring) or lazy (Fp only, see xyzz_add_aff_lz). */
struct cu_ops_reduced {
    static constexpr bool MUL2 = false; /* see ops_mul2 */
    template <class F> static CU_DEV void mul(F &r, const F &a, const F &b) { fe_mul(r, a, b); }
    template <class F> static CU_DEV void sqr(F &r, const F &a) { fe_sqr(r, a); }
    template <class F> static CU_DEV void sub(F &r, const F &a, const F &b) { fe_sub(r, a, b); }
    template <class F> static CU_DEV bool is_zero(const F &a) { return fe_is_zero(a); }
};
struct cu_ops_lazy {
    static constexpr bool MUL2 = false;
    template <class F> static CU_DEV void mul(F &r, const F &a, const F &b) { fe_mul_lz(r, a, b); }
    template <class F> static CU_DEV void sqr(F &r, const F &a) { fe_sqr_lz(r, a); }
    template <class F> static CU_DEV void sub(F &r, const F &a, const F &b) { fe_sub_lz(r, a, b); }
    template <class F> static CU_DEV bool is_zero(const F &a) { return fe_is_zero_lz(a); }
};

/* r = 2 * a (dbl-2008-s-1); r may alias a.  The body, inlined where the
 * caller asks (xyzz_add_body with INL), out of line otherwise; multiplications and
 * squarings through OPS (cu_ops_reduced_call: out of line by value). */
template <class F, class OPS = cu_ops_reduced>
static __device__ __forceinline__ void xyzz_dbl_body(cu_xyzz<F> &r, const cu_xyzz<F> &a)
{
    if (xyzz_is_inf(a)) {
        r = a;
        return;
    }
    F U, V, W, S, M, t;
    fe_dbl(U, a.Y);
    OPS::sqr(V, U);
    OPS::mul(W, U, V);
    OPS::mul(S, a.X, V);
    OPS::sqr(t, a.X);
    fe_dbl(M, t);
    fe_add(M, M, t);
    F Y1 = a.Y;
    OPS::mul(r.ZZ, V, a.ZZ);
    OPS::mul(r.ZZZ, W, a.ZZZ);
    OPS::sqr(t, M);
    fe_sub(t, t, S);
    fe_sub(r.X, t, S);
    fe_sub(t, S, r.X);
    OPS::mul(t, M, t);
    OPS::mul(U, W, Y1);
    fe_sub(r.Y, t, U);
}

template <class F> CU_PT void xyzz_dbl(cu_xyzz<F> &r, const cu_xyzz<F> &a) { xyzz_dbl_body(r, a); }

/*
 * cu_ops_lazy with the multiplication and squaring out of line (one body
 * each, called by value) instead of inlined at every use: an inlined Fp
 * multiplication is ~600 instructions (~10 KB of sm_90 code), so the
 * inlined madd is ~100 KB of straight-line code that every warp streams
 * through the instruction cache for each bucket addition (ncu on the H200,
 * k_accum_flat at 2^24: 42% of the stall cycles waiting for an instruction
 * fetch).  Out of line, the loop's hot code is two bodies and the glue.
 */
template <class C, bool LZ> static __device__ __noinline__ cu_fe<C> fe_mul_byval(cu_fe<C> a, cu_fe<C> b)
{
    cu_fe<C> r;
    if constexpr (LZ) fe_mul_lz(r, a, b);
    else fe_mul(r, a, b);
    return r;
}
template <class C, bool LZ> static __device__ __noinline__ cu_fe<C> fe_sqr_byval(cu_fe<C> a)
{
    cu_fe<C> r;
    if constexpr (LZ) fe_sqr_lz(r, a);
    else fe_sqr(r, a);
    return r;
}
/* BASE's operations with the multiplication and squaring out of line:
 * lazy ones (LZ, the madd of level 1) or reduced ones (the XYZZ + XYZZ
 * additions and doublings of level N and the bucket reduction,
 * CU_FV_NCALL).  Fp only (the bodies take a cu_fe). */
template <class BASE, bool LZ> struct cu_ops_call : BASE {
    template <class C> static CU_DEV void mul(cu_fe<C> &r, const cu_fe<C> &a, const cu_fe<C> &b)
    {
        r = fe_mul_byval<C, LZ>(a, b);
    }
    template <class C> static CU_DEV void sqr(cu_fe<C> &r, const cu_fe<C> &a) { r = fe_sqr_byval<C, LZ>(a); }
};
typedef cu_ops_call<cu_ops_lazy, true> cu_ops_lazy_call;
typedef cu_ops_call<cu_ops_reduced, false> cu_ops_reduced_call;

/* Two independent lazy multiplications in one out-of-line body (the knob
 * msm_fmul = 2, CU_FV_FMIX): r.x = a1 b1 by product scanning on the
 * integer pipe, r.y = a2 b2 on the FP64 pipe (cu_field_f64.h); inlined
 * side by side, so the scheduler can issue the one while the other waits. */
template <class C> struct cu_fe_pair {
    cu_fe<C> x, y;
};
template <class C>
static __device__ __noinline__ cu_fe_pair<C> fe_mul2_mix_byval(cu_fe<C> a1, cu_fe<C> b1, cu_fe<C> a2, cu_fe<C> b2)
{
    cu_fe_pair<C> r;
    fe_mul_ps<C, false>(r.x, a1, b1);
    fe_mul_f64<C>(r.y, a2, b2);
    return r;
}
/* cu_ops_lazy_call whose independent pairs (ops_mul2) take
 * fe_mul2_mix_byval. */
struct cu_ops_lazy_call_mix : cu_ops_lazy_call {
    static constexpr bool MUL2 = true;
    template <class C>
    static CU_DEV void mul2(cu_fe<C> &r1, const cu_fe<C> &a1, const cu_fe<C> &b1, cu_fe<C> &r2, const cu_fe<C> &a2,
                            const cu_fe<C> &b2)
    {
        cu_fe_pair<C> r = fe_mul2_mix_byval<C>(a1, b1, a2, b2);
        r1 = r.x;
        r2 = r.y;
    }
};

/* r1 = a1 b1, then r2 = a2 b2 (r2's operands never r1): OPS's mul twice,
 * or its mul2 where it has one (OPS::MUL2). */
template <class OPS, class F>
CU_DEV void ops_mul2(F &r1, const F &a1, const F &b1, F &r2, const F &a2, const F &b2)
{
    if constexpr (OPS::MUL2) {
        OPS::mul2(r1, a1, b1, r2, a2, b2);
    } else {
        OPS::mul(r1, a1, b1);
        OPS::mul(r2, a2, b2);
    }
}

/* cu_ops_reduced for G2 (Fp2) with the multiplication and squaring out of
 * line by value (cu_fp2.cuh's fe2_mul_call): the by-reference fe_mul of
 * Fp2 makes every call site store its operands to local memory. */
struct cu_ops_fp2_call : cu_ops_reduced {
    static CU_DEV void mul(cu_fp2 &r, const cu_fp2 &a, const cu_fp2 &b) { r = fe2_mul_call(a, b); }
    static CU_DEV void sqr(cu_fp2 &r, const cu_fp2 &a) { r = fe2_sqr_call(a); }
};

/* acc += (x, y) with sign: subtract when neg (madd-2008-s).  Inlined into
 * the bucket loop: out of line, acc and p live in local memory across the
 * call; inlined (G1, H200, cuda-bench --msm): 2^24 204.9 -> 182.0 ms,
 * 2^26 757 -> 674 ms.  G2's k_accum1 with it inlined: 120 registers, no
 * spills (`nvcc -Xptxas -v`; its 2 KiB frame holds the arguments of the
 * out-of-line Fp2 multiplications).  INL_DBL: the rare doubling (P == acc)
 * inlined too, so no address of acc escapes to a call (G1's k_accum1 has a
 * 336-byte frame, acc + p.x + y, for the out-of-line one).
 * The body of xyzz_add_aff and xyzz_add_aff_lz, on OPS. */
template <class F, bool INL_DBL, class OPS>
static __device__ __forceinline__ void xyzz_add_aff_ops(cu_xyzz<F> &acc, const cu_aff<F> &p, bool neg)
{
    F y = p.y;
    if (neg) fe_neg(y, y);
    if (xyzz_is_inf(acc)) {
        acc.X = p.x;
        acc.Y = y;
        fe_one(acc.ZZ);
        fe_one(acc.ZZZ);
        return;
    }
    F U2, S2, P, R, PP, PPP, Q, t;
    ops_mul2<OPS>(U2, p.x, acc.ZZ, S2, y, acc.ZZZ);
    OPS::sub(P, U2, acc.X);
    OPS::sub(R, S2, acc.Y);
    if (OPS::is_zero(P)) {
        if (OPS::is_zero(R)) {
            if (INL_DBL) xyzz_dbl_aff_body(acc, p.x, y);
            else xyzz_dbl_aff(acc, p.x, y);
        } else
            xyzz_set_inf(acc);
        return;
    }
    OPS::sqr(PP, P);
    ops_mul2<OPS>(PPP, P, PP, Q, acc.X, PP);
    OPS::sqr(t, R);
    OPS::sub(t, t, PPP);
    OPS::sub(t, t, Q);
    OPS::sub(t, t, Q);
    OPS::sub(Q, Q, t);
    acc.X = t;
    ops_mul2<OPS>(Q, R, Q, t, acc.Y, PPP);
    OPS::sub(acc.Y, Q, t);
    ops_mul2<OPS>(acc.ZZ, acc.ZZ, PP, acc.ZZZ, acc.ZZZ, PPP);
}

template <class F, bool INL_DBL = false>
static __device__ __forceinline__ void xyzz_add_aff(cu_xyzz<F> &acc, const cu_aff<F> &p, bool neg)
{
    xyzz_add_aff_ops<F, INL_DBL, cu_ops_reduced>(acc, p, neg);
}

/*
 * xyzz_add_aff with lazy reduction (Fp only, cu_field.cuh's fe_*_lz): the
 * same madd-2008-s, every coordinate of acc in [0, 2p) instead of [0, p),
 * which drops the final conditional subtraction of all ten multiplications.
 * Bounds: every multiplication's inputs are below 2p (acc's coordinates,
 * the point's reduced x and y, and the results of fe_sub_lz / fe_mul_lz /
 * fe_sqr_lz, all in [0, 2p)), so every result is in [0, 2p) again.  The
 * exceptional cases test P and R with fe_is_zero_lz (0 or p).  acc is at
 * infinity iff ZZ is exactly 0: xyzz_set_inf writes 0, and otherwise ZZ is
 * a product of nonzero residues (ZZ_old * P^2 with P != 0 mod p, or the
 * doubling's (2y)^2, y != 0 as G1 has no point of order 2), never 0 or p.
 * The caller reduces acc (xyzz_reduce) before it leaves the thread.
 */
template <bool INL_DBL, class C, class OPS = cu_ops_lazy>
static __device__ __forceinline__ void xyzz_add_aff_lz(cu_xyzz<cu_fe<C>> &acc,
                                                       const cu_aff<cu_fe<C>> &p, bool neg)
{
    xyzz_add_aff_ops<cu_fe<C>, INL_DBL, OPS>(acc, p, neg);
}

/* Coordinates in [0, 2p) -> [0, p) (after xyzz_add_aff_lz). */
template <class C> CU_DEV void xyzz_reduce(cu_xyzz<cu_fe<C>> &a)
{
    fe_reduce(a.X, a.X);
    fe_reduce(a.Y, a.Y);
    fe_reduce(a.ZZ, a.ZZ);
    fe_reduce(a.ZZZ, a.ZZZ);
}

/* acc += b (add-2008-s).  INL: the body and its rare doubling inlined
 * (no address of acc escapes to a call, so it stays in registers; the
 * level-N and bucket-reduction kernels under CU_FV_NCALL), else the
 * doubling out of line. */
template <class F, bool INL, class OPS = cu_ops_reduced>
static __device__ __forceinline__ void xyzz_add_body(cu_xyzz<F> &acc, const cu_xyzz<F> &b)
{
    if (xyzz_is_inf(b)) return;
    if (xyzz_is_inf(acc)) {
        acc = b;
        return;
    }
    F U1, U2, S1, S2, P, R, PP, PPP, Q, t;
    OPS::mul(U1, acc.X, b.ZZ);
    OPS::mul(U2, b.X, acc.ZZ);
    OPS::mul(S1, acc.Y, b.ZZZ);
    OPS::mul(S2, b.Y, acc.ZZZ);
    fe_sub(P, U2, U1);
    fe_sub(R, S2, S1);
    if (OPS::is_zero(P)) {
        if (OPS::is_zero(R)) {
            if (INL) xyzz_dbl_body<F, OPS>(acc, acc);
            else xyzz_dbl(acc, acc);
        } else
            xyzz_set_inf(acc);
        return;
    }
    OPS::sqr(PP, P);
    OPS::mul(PPP, P, PP);
    OPS::mul(Q, U1, PP);
    OPS::sqr(t, R);
    fe_sub(t, t, PPP);
    fe_sub(t, t, Q);
    fe_sub(t, t, Q);
    acc.X = t;
    fe_sub(Q, Q, t);
    OPS::mul(Q, R, Q);
    OPS::mul(t, S1, PPP);
    fe_sub(acc.Y, Q, t);
    OPS::mul(acc.ZZ, acc.ZZ, b.ZZ);
    OPS::mul(acc.ZZ, acc.ZZ, PP);
    OPS::mul(acc.ZZZ, acc.ZZZ, b.ZZZ);
    OPS::mul(acc.ZZZ, acc.ZZZ, PPP);
}

template <class F> CU_PT void xyzz_add(cu_xyzz<F> &acc, const cu_xyzz<F> &b) { xyzz_add_body<F, false>(acc, b); }

/* The level-N and bucket-reduction additions by mode NM: 0 out of line,
 * 2 inlined glue with the multiplications out of line by value
 * (CU_FV_NCALL, Fp only).  (Mode 1, everything inlined under CU_FV_INLN,
 * was retired on 2026-12-04; the numbering stays.) */
template <class F, int NM> CU_DEV void xyzz_add_n(cu_xyzz<F> &acc, const cu_xyzz<F> &b)
{
    if constexpr (NM == 2) xyzz_add_body<F, true, cu_ops_reduced_call>(acc, b);
    else xyzz_add(acc, b);
}
template <class F, int NM> CU_DEV void xyzz_dbl_n(cu_xyzz<F> &r, const cu_xyzz<F> &a)
{
    if constexpr (NM == 2) xyzz_dbl_body<F, cu_ops_reduced_call>(r, a);
    else xyzz_dbl(r, a);
}

#endif
