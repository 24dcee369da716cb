/*
 * Device arithmetic for the BLS12-381 fields Fp (381 bits) and Fr (255
 * bits): little-endian 32-bit limbs, Montgomery form with the same R as the
 * host (R = 2^384 for Fp, 2^256 for Fr; field.h), so a gs_fp / gs_fr on the
 * host and a cu_fp / cu_fr on the device are the same bytes.  Every value
 * passed in or out is fully reduced.  Internal to prover/cuda (.cu files).
 *
 * Multiplication is CIOS (Koc, Acar, Kaliski, IEEE Micro 1996, section 5)
 * on 32-bit words.  Each row adds the 64-bit products a[j]*b[i] in two
 * carry chains, even j then odd j: the products of even j occupy word
 * pairs (j, j+1) that do not overlap, so one PTX chain
 *   mad.lo.cc / madc.hi.cc / madc.lo.cc / ...
 * adds them all with a single carry flag; likewise the odd j (shifted by
 * one word) and the reduction m*p.  Both moduli leave a spare top bit, so
 * the CIOS result is < 2p and one conditional subtraction reduces it.
 *
 * The carry flag lives between consecutive asm statements of one unrolled
 * chain; nothing else is placed inside a chain.  Every chain statement is
 * `asm volatile`: the compiler cannot see the carry flag, and would
 * otherwise drop a statement whose register result is dead (the first
 * mad.lo.cc of each reduction row, whose word is shifted out) together
 * with the carry it produces, or move statements across each other.
 */
#ifndef GS_CU_FIELD_CUH
#define GS_CU_FIELD_CUH

#include <stdint.h>

#define CU_DEV __device__ __forceinline__

/* Field descriptors: limb count, -p^-1 mod 2^32, p and R mod p by limb. */
struct cu_fp_cfg {
    static constexpr int N = 12;
    static constexpr uint32_t N0 = 0xfffcfffdu;
    static CU_DEV uint32_t p(int i)
    {
        switch (i) {
        case 0: return 0xffffaaabu; case 1: return 0xb9feffffu;
        case 2: return 0xb153ffffu; case 3: return 0x1eabfffeu;
        case 4: return 0xf6b0f624u; case 5: return 0x6730d2a0u;
        case 6: return 0xf38512bfu; case 7: return 0x64774b84u;
        case 8: return 0x434bacd7u; case 9: return 0x4b1ba7b6u;
        case 10: return 0x397fe69au; default: return 0x1a0111eau;
        }
    }
    static CU_DEV uint32_t one(int i)
    {
        switch (i) {
        case 0: return 0x0002fffdu; case 1: return 0x76090000u;
        case 2: return 0xc40c0002u; case 3: return 0xebf4000bu;
        case 4: return 0x53c758bau; case 5: return 0x5f489857u;
        case 6: return 0x70525745u; case 7: return 0x77ce5853u;
        case 8: return 0xa256ec6du; case 9: return 0x5c071a97u;
        case 10: return 0xfa80e493u; default: return 0x15f65ec3u;
        }
    }
};

struct cu_fr_cfg {
    static constexpr int N = 8;
    static constexpr uint32_t N0 = 0xffffffffu;
    static CU_DEV uint32_t p(int i)
    {
        switch (i) {
        case 0: return 0x00000001u; case 1: return 0xffffffffu;
        case 2: return 0xfffe5bfeu; case 3: return 0x53bda402u;
        case 4: return 0x09a1d805u; case 5: return 0x3339d808u;
        case 6: return 0x299d7d48u; default: return 0x73eda753u;
        }
    }
    static CU_DEV uint32_t one(int i)
    {
        switch (i) {
        case 0: return 0xfffffffeu; case 1: return 0x00000001u;
        case 2: return 0x00034802u; case 3: return 0x5884b7fau;
        case 4: return 0xecbc4ff5u; case 5: return 0x998c4fefu;
        case 6: return 0xacc5056fu; default: return 0x1824b159u;
        }
    }
};

template <class C> struct cu_fe {
    uint32_t l[C::N];
};
typedef cu_fe<cu_fp_cfg> cu_fp;
typedef cu_fe<cu_fr_cfg> cu_fr;

template <class C> CU_DEV void fe_zero(cu_fe<C> &r)
{
#pragma unroll
    for (int i = 0; i < C::N; i++) r.l[i] = 0;
}

template <class C> CU_DEV void fe_one(cu_fe<C> &r)
{
#pragma unroll
    for (int i = 0; i < C::N; i++) r.l[i] = C::one(i);
}

template <class C> CU_DEV bool fe_is_zero(const cu_fe<C> &a)
{
    uint32_t acc = 0;
#pragma unroll
    for (int i = 0; i < C::N; i++) acc |= a.l[i];
    return acc == 0;
}

template <class C> CU_DEV bool fe_eq(const cu_fe<C> &a, const cu_fe<C> &b)
{
    uint32_t acc = 0;
#pragma unroll
    for (int i = 0; i < C::N; i++) acc |= a.l[i] ^ b.l[i];
    return acc == 0;
}

/* r = a + b mod p. */
template <class C> CU_DEV void fe_add(cu_fe<C> &r, const cu_fe<C> &a, const cu_fe<C> &b)
{
    constexpr int N = C::N;
    uint32_t s[N], d[N], mask;
    asm volatile("add.cc.u32 %0, %1, %2;" : "=r"(s[0]) : "r"(a.l[0]), "r"(b.l[0]));
#pragma unroll
    for (int i = 1; i < N; i++)
        asm volatile("addc.cc.u32 %0, %1, %2;" : "=r"(s[i]) : "r"(a.l[i]), "r"(b.l[i]));
    asm volatile("sub.cc.u32 %0, %1, %2;" : "=r"(d[0]) : "r"(s[0]), "r"(C::p(0)));
#pragma unroll
    for (int i = 1; i < N; i++)
        asm volatile("subc.cc.u32 %0, %1, %2;" : "=r"(d[i]) : "r"(s[i]), "r"(C::p(i)));
    asm volatile("subc.u32 %0, 0, 0;" : "=r"(mask));
    /* mask = all ones when s < p: keep s. */
#pragma unroll
    for (int i = 0; i < N; i++) r.l[i] = (s[i] & mask) | (d[i] & ~mask);
}

/* r = a - b mod p. */
template <class C> CU_DEV void fe_sub(cu_fe<C> &r, const cu_fe<C> &a, const cu_fe<C> &b)
{
    constexpr int N = C::N;
    uint32_t d[N], mask;
    asm volatile("sub.cc.u32 %0, %1, %2;" : "=r"(d[0]) : "r"(a.l[0]), "r"(b.l[0]));
#pragma unroll
    for (int i = 1; i < N; i++)
        asm volatile("subc.cc.u32 %0, %1, %2;" : "=r"(d[i]) : "r"(a.l[i]), "r"(b.l[i]));
    asm volatile("subc.u32 %0, 0, 0;" : "=r"(mask));
    asm volatile("add.cc.u32 %0, %1, %2;" : "=r"(r.l[0]) : "r"(d[0]), "r"(C::p(0) & mask));
#pragma unroll
    for (int i = 1; i < N; i++)
        asm volatile("addc.cc.u32 %0, %1, %2;" : "=r"(r.l[i]) : "r"(d[i]), "r"(C::p(i) & mask));
}

template <class C> CU_DEV void fe_dbl(cu_fe<C> &r, const cu_fe<C> &a) { fe_add(r, a, a); }

/* r = -a mod p (0 stays 0). */
template <class C> CU_DEV void fe_neg(cu_fe<C> &r, const cu_fe<C> &a)
{
    cu_fe<C> z;
    fe_zero(z);
    fe_sub(r, z, a);
}

/*
 * t[0..N+1] += a[0..N-1] * b, with t[N+1] absorbing the final carry.
 * Two chains: even j into words (j, j+1), odd j into words (j, j+1).
 */
template <int N> CU_DEV void mac_row(uint32_t *t, const uint32_t *a, uint32_t b)
{
    asm volatile("mad.lo.cc.u32 %0, %1, %2, %0;" : "+r"(t[0]) : "r"(a[0]), "r"(b));
    asm volatile("madc.hi.cc.u32 %0, %1, %2, %0;" : "+r"(t[1]) : "r"(a[0]), "r"(b));
#pragma unroll
    for (int j = 2; j < N; j += 2) {
        asm volatile("madc.lo.cc.u32 %0, %1, %2, %0;" : "+r"(t[j]) : "r"(a[j]), "r"(b));
        asm volatile("madc.hi.cc.u32 %0, %1, %2, %0;" : "+r"(t[j + 1]) : "r"(a[j]), "r"(b));
    }
    asm volatile("addc.cc.u32 %0, %0, 0;" : "+r"(t[N]));
    asm volatile("addc.u32 %0, %0, 0;" : "+r"(t[N + 1]));

    asm volatile("mad.lo.cc.u32 %0, %1, %2, %0;" : "+r"(t[1]) : "r"(a[1]), "r"(b));
    asm volatile("madc.hi.cc.u32 %0, %1, %2, %0;" : "+r"(t[2]) : "r"(a[1]), "r"(b));
#pragma unroll
    for (int j = 3; j < N; j += 2) {
        asm volatile("madc.lo.cc.u32 %0, %1, %2, %0;" : "+r"(t[j]) : "r"(a[j]), "r"(b));
        asm volatile("madc.hi.cc.u32 %0, %1, %2, %0;" : "+r"(t[j + 1]) : "r"(a[j]), "r"(b));
    }
    asm volatile("addc.u32 %0, %0, 0;" : "+r"(t[N + 1]));
}

/* r = a * b * R^-1 mod p (CIOS, see the file comment). */
template <class C> CU_DEV void fe_mul(cu_fe<C> &r, const cu_fe<C> &a, const cu_fe<C> &b)
{
    constexpr int N = C::N;
    uint32_t t[N + 2], pm[N];
#pragma unroll
    for (int i = 0; i < N; i++) pm[i] = C::p(i);
#pragma unroll
    for (int i = 0; i < N + 2; i++) t[i] = 0;
#pragma unroll
    for (int i = 0; i < N; i++) {
        mac_row<N>(t, a.l, b.l[i]);
        uint32_t m = t[0] * C::N0;
        mac_row<N>(t, pm, m);
        /* t[0] is now 0: shift down one word. */
#pragma unroll
        for (int j = 0; j < N + 1; j++) t[j] = t[j + 1];
        t[N + 1] = 0;
    }
    uint32_t d[N], mask;
    asm volatile("sub.cc.u32 %0, %1, %2;" : "=r"(d[0]) : "r"(t[0]), "r"(pm[0]));
#pragma unroll
    for (int i = 1; i < N; i++)
        asm volatile("subc.cc.u32 %0, %1, %2;" : "=r"(d[i]) : "r"(t[i]), "r"(pm[i]));
    asm volatile("subc.u32 %0, %1, 0;" : "=r"(mask) : "r"(t[N]));
    /* t < 2p < 2^(32N): t[N] = 0, mask = all ones iff t < p. */
#pragma unroll
    for (int i = 0; i < N; i++) r.l[i] = (t[i] & mask) | (d[i] & ~mask);
}

template <class C> CU_DEV void fe_sqr(cu_fe<C> &r, const cu_fe<C> &a) { fe_mul(r, a, a); }

/* r = a^(p-2) = a^-1 mod p (Fermat; 0 stays 0), Montgomery in and out.
 * About log2(p) squarings and half as many multiplications: for one-time
 * work (the MSM's precomputed points), not inner loops. */
template <class C> CU_DEV void fe_inv(cu_fe<C> &r, const cu_fe<C> &a)
{
    cu_fe<C> acc;
    fe_one(acc);
    bool started = false;
    for (int i = C::N - 1; i >= 0; i--) {
        uint32_t e = C::p(i) - (i == 0 ? 2u : 0u); /* p is odd and > 2: no borrow */
        for (int b = 31; b >= 0; b--) {
            if (started) fe_mul(acc, acc, acc);
            if ((e >> b) & 1) {
                if (started) fe_mul(acc, acc, a);
                else acc = a;
                started = true;
            }
        }
    }
    r = acc;
}

/* Montgomery -> plain (multiply by 1). */
template <class C> CU_DEV void fe_from_mont(cu_fe<C> &r, const cu_fe<C> &a)
{
    cu_fe<C> one;
    fe_zero(one);
    one.l[0] = 1;
    fe_mul(r, a, one);
}

/* Loads and stores through 16-byte vectors (both sizes are multiples of 16). */
template <class C> CU_DEV void fe_load(cu_fe<C> &r, const cu_fe<C> *p)
{
    const uint4 *v = reinterpret_cast<const uint4 *>(p);
#pragma unroll
    for (int i = 0; i < C::N / 4; i++) {
        uint4 x = v[i];
        r.l[4 * i] = x.x; r.l[4 * i + 1] = x.y; r.l[4 * i + 2] = x.z; r.l[4 * i + 3] = x.w;
    }
}

template <class C> CU_DEV void fe_store(cu_fe<C> *p, const cu_fe<C> &a)
{
    uint4 *v = reinterpret_cast<uint4 *>(p);
#pragma unroll
    for (int i = 0; i < C::N / 4; i++)
        v[i] = make_uint4(a.l[4 * i], a.l[4 * i + 1], a.l[4 * i + 2], a.l[4 * i + 3]);
}

#endif
