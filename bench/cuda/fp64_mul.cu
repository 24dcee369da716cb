/*
 * Fp Montgomery multiplication on the FP64 pipe, against the integer one
 * (cu_field.cuh's fe_mul_lz), on the GPU it runs on.
 *
 * Why: the MSM and NTT kernels keep the integer multiply pipe ~88% busy
 * (bench/RESULTS.md, "The Fp multiply's floor on the H200"); the FP64 pipe
 * of an H100/H200 SM (64 DFMA lanes, as many as IMAD lanes) sits idle.
 *
 * How (the representation and the proof of exactness):
 *  - a, b < 2p < 2^382 as 8 limbs of 48 bits, each an exact double
 *    (the 12 words are re-cut: limb 2k = w[3k] | (w[3k+1] & 0xffff) << 32,
 *    limb 2k+1 = w[3k+1] >> 16 | w[3k+2] << 16; a limb becomes a double by
 *    putting it in the mantissa of 2^52 and subtracting 2^52).  R = 2^384,
 *    the same Montgomery form as the 12 x 32-bit words.
 *  - a product x y of two limbs (< 2^96) is cut at bit 48 by two FMAs:
 *      h = fma_rz(x, y, 2^100): the exponent stays 100 (x y < 2^96), the
 *          ulp is 2^48, so h = 2^100 + floor(x y / 2^48) 2^48 exactly;
 *      l = fma_rn(x, y, (2^100 + 2^52) - h): (2^100 + 2^52) - h =
 *          2^52 - floor(x y / 2^48) 2^48 is exact, and x y plus it is
 *          (x y mod 2^48) + 2^52, in [2^52, 2^53), exact.
 *    The bit patterns then hold the halves in their low 48 bits:
 *    bits(h) = bits(2^100) + hi, bits(l) = bits(2^52) + lo, and both
 *    constants are 0 mod 2^48.
 *  - 16 columns of 64-bit integers add the bit patterns; each column
 *    starts at minus the constants it will receive (known per column), so
 *    once all its terms are in it holds the true sum (mod 2^64; the sum is
 *    < 2^54).  Before that, its low 48 bits are already right.
 *  - Montgomery reduction by 48-bit words (8 rounds): m = c_i p' mod 2^48
 *    (p' = -p^-1 mod 2^48, one 64-bit integer multiply: the IMAD pipe),
 *    m p added like the products, then c_i (now 0 mod 2^48) carries
 *    c_i >> 48 into c_{i+1}.  The M = sum m_i 2^(48 i) so built is the
 *    unique M < 2^384 with a b + M p = 0 mod 2^384, the same as CIOS on 32-bit
 *    words: the result (a b + M p) / 2^384 < 2p is bit for bit fe_mul_lz's.
 *
 * Standalone (not part of the build):
 *   nvcc -O3 -std=c++17 -arch=sm_90 -Iprover/cuda -o /tmp/fp64_mul bench/cuda/fp64_mul.cu && /tmp/fp64_mul
 *   (or `make bench-tools`: build/bench-tools/fp64_mul)
 */
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "cu_field.cuh"

#define C52 4503599627370496.0                  /* 2^52 */
#define C100 1267650600228229401496703205376.0  /* 2^100 */
#define C100_52 1267650600228233905096330575872.0 /* 2^100 + 2^52 */
#define K52 0x4330000000000000ull
#define K100 0x4630000000000000ull
#define M48 0xffffffffffffull

/* p as 8 limbs of 48 bits, and -p^-1 mod 2^48. */
__device__ __constant__ double c_p48[8];
__device__ __constant__ uint64_t c_pinv48;

__device__ __forceinline__ double limb_to_d(uint32_t lo, uint32_t hi16)
{
    return __dsub_rn(__hiloint2double((int)(0x43300000u | hi16), (int)lo), C52);
}

__device__ __forceinline__ void split48(double d[8], const uint32_t w[12])
{
#pragma unroll
    for (int k = 0; k < 4; k++) {
        d[2 * k] = limb_to_d(w[3 * k], w[3 * k + 1] & 0xffffu);
        d[2 * k + 1] = limb_to_d(__funnelshift_r(w[3 * k + 1], w[3 * k + 2], 16), w[3 * k + 2] >> 16);
    }
}

/* Number of (i, j), 0 <= i, j < 8, with i + j = k. */
__host__ __device__ constexpr int cnt(int k)
{
    return (k < 0 || k > 14) ? 0 : (k < 8 ? k + 1 : 15 - k);
}

/* Adds x y's two halves into columns k (low) and k + 1 (high). */
__device__ __forceinline__ void mac(uint64_t *c, int k, double x, double y)
{
    double h = __fma_rz(x, y, C100);
    double l = __fma_rn(x, y, __dsub_rn(C100_52, h));
    c[k] += (uint64_t)__double_as_longlong(l);
    c[k + 1] += (uint64_t)__double_as_longlong(h);
}

/* r = a b 2^-384 mod p in [0, 2p), a, b < 2p; SQR: b = a, the cross
 * products once with one operand doubled (2 x < 2^49, the product < 2^97:
 * h's exponent stays 100). */
template <bool SQR>
__device__ __forceinline__ void fp64_mul(uint32_t r[12], const uint32_t aw[12], const uint32_t bw[12])
{
    double a[8], b[8];
    split48(a, aw);
    if (!SQR) split48(b, bw);
    uint64_t c[17];
    /* Each column receives 2 cnt(k) low halves and 2 cnt(k - 1) high halves
     * (the product and m p alike); squaring: the product's share is
     * the diagonal plus each cross pair once. */
#pragma unroll
    for (int k = 0; k < 17; k++) {
        int lo = SQR ? cnt(k) + (cnt(k) + 1) / 2 : 2 * cnt(k);
        int hi = SQR ? cnt(k - 1) + (cnt(k - 1) + 1) / 2 : 2 * cnt(k - 1);
        c[k] = 0ull - (uint64_t)lo * K52 - (uint64_t)hi * K100;
    }
    if (SQR) {
#pragma unroll
        for (int i = 0; i < 8; i++) {
            mac(c, 2 * i, a[i], a[i]);
            double a2 = __dadd_rn(a[i], a[i]);
#pragma unroll
            for (int j = i + 1; j < 8; j++) mac(c, i + j, a2, a[j]);
        }
    } else {
#pragma unroll
        for (int i = 0; i < 8; i++)
#pragma unroll
            for (int j = 0; j < 8; j++) mac(c, i + j, a[i], b[j]);
    }
#pragma unroll
    for (int i = 0; i < 8; i++) {
        uint64_t m = (c[i] * c_pinv48) & M48;
        double md = __dsub_rn(__hiloint2double((int)(0x43300000u | (uint32_t)(m >> 32)), (int)(uint32_t)m), C52);
#pragma unroll
        for (int j = 0; j < 8; j++) mac(c, i + j, md, c_p48[j]);
        c[i + 1] += c[i] >> 48;
    }
    /* Columns 8..15 hold the result (c[16] receives nothing: cnt(15) = 0). */
    uint64_t L[8];
#pragma unroll
    for (int k = 8; k < 15; k++) {
        L[k - 8] = c[k] & M48;
        c[k + 1] += c[k] >> 48;
    }
    L[7] = c[15];
#pragma unroll
    for (int k = 0; k < 4; k++) {
        r[3 * k] = (uint32_t)L[2 * k];
        r[3 * k + 1] = (uint32_t)(L[2 * k] >> 32) | ((uint32_t)L[2 * k + 1] << 16);
        r[3 * k + 2] = (uint32_t)(L[2 * k + 1] >> 16);
    }
}

/* The same product, finely integrated (product scanning): column k takes
 * its a b terms and its m p terms, then m_k is drawn from it at once, so
 * only two columns are live and the a b terms of a column can run while the
 * previous column's m is still being computed.  m_k p_0's low half is
 * never formed: it is (2^48 - c_k mod 2^48) mod 2^48 by the choice of m_k,
 * so the column's carry is c_k >> 48 plus one if c_k's low 48 bits are not
 * all zero. */
__device__ __forceinline__ void mac2(uint64_t &lo, uint64_t &hi, double x, double y)
{
    double h = __fma_rz(x, y, C100);
    double l = __fma_rn(x, y, __dsub_rn(C100_52, h));
    lo += (uint64_t)__double_as_longlong(l);
    hi += (uint64_t)__double_as_longlong(h);
}

template <bool SQR>
__device__ __forceinline__ void fp64_mul_fips(uint32_t r[12], const uint32_t aw[12], const uint32_t bw[12])
{
    double a[8], b[8], m[8];
    split48(a, aw);
    if (!SQR) split48(b, bw);
    uint64_t cur, nxt, carry = 0, L[8];
    auto offset = [](int k) -> uint64_t {
        int lo_ab = SQR ? (cnt(k) + 1) / 2 : cnt(k);
        int hi_ab = SQR ? (cnt(k - 1) + 1) / 2 : cnt(k - 1);
        int lo_mp = cnt(k) - (k <= 7 ? 1 : 0), hi_mp = cnt(k - 1);
        return 0ull - (uint64_t)(lo_ab + lo_mp) * K52 - (uint64_t)(hi_ab + hi_mp) * K100;
    };
    nxt = offset(0);
#pragma unroll
    for (int k = 0; k < 16; k++) {
        cur = nxt + carry;
        nxt = offset(k + 1);
        if (SQR) {
            if ((k & 1) == 0 && k / 2 < 8) mac2(cur, nxt, a[k / 2], a[k / 2]);
#pragma unroll
            for (int i = 0; i < 8; i++) {
                int j = k - i;
                if (j > i && j < 8) mac2(cur, nxt, __dadd_rn(a[i], a[i]), a[j]);
            }
        } else {
#pragma unroll
            for (int i = 0; i < 8; i++) {
                int j = k - i;
                if (j >= 0 && j < 8) mac2(cur, nxt, a[i], b[j]);
            }
        }
#pragma unroll
        for (int i = 0; i < 8; i++) {
            int j = k - i;
            if (i < k && j >= 0 && j < 8) mac2(cur, nxt, m[i], c_p48[j]);
        }
        if (k < 8) {
            uint64_t mk = (cur * c_pinv48) & M48;
            m[k] = __dsub_rn(__hiloint2double((int)(0x43300000u | (uint32_t)(mk >> 32)), (int)(uint32_t)mk), C52);
            carry = (cur >> 48) + ((cur & M48) != 0);
            nxt += (uint64_t)__double_as_longlong(__fma_rz(m[k], c_p48[0], C100));
        } else {
            L[k - 8] = cur & M48;
            carry = cur >> 48;
        }
    }
#pragma unroll
    for (int k = 0; k < 4; k++) {
        r[3 * k] = (uint32_t)L[2 * k];
        r[3 * k + 1] = (uint32_t)(L[2 * k] >> 32) | ((uint32_t)L[2 * k + 1] << 16);
        r[3 * k + 2] = (uint32_t)(L[2 * k + 1] >> 16);
    }
}

/* ---- correctness: bit for bit against fe_mul_lz / fe_sqr_lz ---- */

__global__ void k_check(const cu_fp *a, const cu_fp *b, cu_fp *r_int, cu_fp *r_f64, cu_fp *s_int, cu_fp *s_f64,
                        cu_fp *r_fips, cu_fp *s_fips, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    cu_fp x = a[i], y = b[i], t;
    fe_mul_lz(t, x, y);
    r_int[i] = t;
    fp64_mul<false>(t.l, x.l, y.l);
    r_f64[i] = t;
    fe_mul_impl<cu_fp_cfg, false>(t, x, x);
    s_int[i] = t;
    fp64_mul<true>(t.l, x.l, x.l);
    s_f64[i] = t;
    fp64_mul_fips<false>(t.l, x.l, y.l);
    r_fips[i] = t;
    fp64_mul_fips<true>(t.l, x.l, x.l);
    s_fips[i] = t;
}

/* ---- throughput: the shape of `gapscope cuda-bench --field` ---- */

template <int KIND, int MINB> __global__ void __launch_bounds__(128, MINB) k_chain(cu_fp *io, int iters)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    cu_fp x = io[2 * i], y = io[2 * i + 1], u = io[2 * i + 1], v = io[2 * i];
    for (int k = 0; k < iters; k++) {
        if (KIND == 0) {
            fe_mul_lz(x, x, y);
            fe_mul_lz(y, y, x);
        } else if (KIND == 1) {
            fp64_mul<false>(x.l, x.l, y.l);
            fp64_mul<false>(y.l, y.l, x.l);
        } else if (KIND == 2) {
            fe_sqr_lz(x, x);
            fe_sqr_lz(x, x);
        } else if (KIND == 3) {
            fp64_mul<true>(x.l, x.l, x.l);
            fp64_mul<true>(x.l, x.l, x.l);
        } else if (KIND == 4) { /* one integer and one FP64 multiplication per step */
            fe_mul_lz(x, x, y);
            fp64_mul<false>(y.l, y.l, x.l);
        } else if (KIND == 5) { /* two independent chains, FP64 */
            fp64_mul<false>(x.l, x.l, y.l);
            fp64_mul<false>(u.l, u.l, v.l);
        } else if (KIND == 6) { /* two independent chains, IMAD */
            fe_mul_lz(x, x, y);
            fe_mul_lz(u, u, v);
        } else if (KIND == 7) {
            fp64_mul_fips<false>(x.l, x.l, y.l);
            fp64_mul_fips<false>(y.l, y.l, x.l);
        } else if (KIND == 8) {
            fp64_mul_fips<true>(x.l, x.l, x.l);
            fp64_mul_fips<true>(x.l, x.l, x.l);
        } else if (KIND == 10) { /* the dedicated squaring the MSM uses (GS_CU_FV bit 2) */
            typedef cu_fe<cu_cfgv<cu_fp_cfg, CU_FV_SQR>> fs;
            fe_sqr_lz(reinterpret_cast<fs &>(x), reinterpret_cast<fs &>(x));
            fe_sqr_lz(reinterpret_cast<fs &>(x), reinterpret_cast<fs &>(x));
        } else { /* 9: mixed, FIPS */
            fe_mul_lz(x, x, y);
            fp64_mul_fips<false>(y.l, y.l, x.l);
        }
    }
    if (KIND >= 5) {
#pragma unroll
        for (int k = 0; k < 12; k++) x.l[k] ^= u.l[k];
    }
    io[2 * i] = x;
    io[2 * i + 1] = y;
}

template <int K> __global__ void k_dfma_rate(double *out, double seed)
{
    double r[8];
#pragma unroll
    for (int i = 0; i < 8; i++) r[i] = seed + threadIdx.x + i;
    double x = 1.0000001 + seed * 1e-9, y = 1e-7 * seed;
    for (int it = 0; it < 2048; it++) {
#pragma unroll
        for (int i = 0; i < 8; i++) r[i] = K ? __fma_rz(r[i], x, y) : __fma_rn(r[i], x, y);
    }
    double s = 0;
#pragma unroll
    for (int i = 0; i < 8; i++) s += r[i];
    out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}

/* Do the two pipes add up?  K 0: IMAD.WIDE chains only; 1: DFMA chains only;
 * 2: both, interleaved, independent; 3: IADD3 (64-bit adds) only; 4: DFMA and
 * 64-bit adds interleaved. */
template <int K> __global__ void k_dual(uint64_t *out, double seed)
{
    double r[8];
    uint64_t w[8];
    uint32_t x32 = (uint32_t)(seed * 7) * (threadIdx.x + 7) | 1;
#pragma unroll
    for (int i = 0; i < 8; i++) {
        r[i] = seed + threadIdx.x + i;
        w[i] = threadIdx.x * 31 + i * 0x12345;
    }
    double x = 1.0000001 + seed * 1e-9, y = 1e-7 * seed;
    uint64_t z = (uint64_t)threadIdx.x * 0x9e3779b97f4a7c15ull;
    for (int it = 0; it < 2048; it++) {
#pragma unroll
        for (int i = 0; i < 8; i++) {
            if (K == 0 || K == 2) {
                uint32_t lo = (uint32_t)w[i];
                asm volatile("mad.wide.u32 %0, %1, %2, %0;" : "+l"(w[i]) : "r"(lo), "r"(x32));
            }
            if (K == 3 || K == 4) w[i] += z + (w[i] >> 1);
            if (K == 1 || K == 2 || K == 4) r[i] = __fma_rn(r[i], x, y);
        }
    }
    uint64_t s = 0;
#pragma unroll
    for (int i = 0; i < 8; i++) s += w[i] + (uint64_t)__double_as_longlong(r[i]);
    out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}

#define CK(x)                                                                        \
    do {                                                                             \
        cudaError_t e_ = (x);                                                        \
        if (e_ != cudaSuccess) {                                                     \
            fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); \
            exit(1);                                                                 \
        }                                                                            \
    } while (0)

static uint64_t rng_state = 0x1234567887654321ull;
static uint32_t rnd32(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (uint32_t)(rng_state >> 16);
}

static const uint32_t P[12] = {0xffffaaabu, 0xb9feffffu, 0xb153ffffu, 0x1eabfffeu, 0xf6b0f624u, 0x6730d2a0u,
                               0xf38512bfu, 0x64774b84u, 0x434bacd7u, 0x4b1ba7b6u, 0x397fe69au, 0x1a0111eau};

int main(void)
{
    /* p in 48-bit limbs, and -p^-1 mod 2^48 by Newton's iteration. */
    double p48[8];
    uint64_t pl[8];
    for (int k = 0; k < 4; k++) {
        pl[2 * k] = P[3 * k] | (uint64_t)(P[3 * k + 1] & 0xffff) << 32;
        pl[2 * k + 1] = (P[3 * k + 1] >> 16) | (uint64_t)P[3 * k + 2] << 16;
    }
    for (int k = 0; k < 8; k++) p48[k] = (double)pl[k];
    uint64_t inv = 1;
    for (int it = 0; it < 7; it++) inv *= 2 - pl[0] * inv; /* p0^-1 mod 2^64 */
    uint64_t pinv = (0 - inv) & M48;
    if (((pl[0] * pinv) & M48) != M48) {
        fprintf(stderr, "p' wrong\n");
        return 1;
    }
    CK(cudaMemcpyToSymbol(c_p48, p48, sizeof p48));
    CK(cudaMemcpyToSymbol(c_pinv48, &pinv, sizeof pinv));

    /* Correctness on n pairs: random below 2p, plus edges. */
    const int n = 1 << 20;
    cu_fp *ha = (cu_fp *)calloc(n, sizeof(cu_fp)), *hb = (cu_fp *)calloc(n, sizeof(cu_fp));
    for (int i = 0; i < n; i++) {
        for (int k = 0; k < 12; k++) {
            ha[i].l[k] = rnd32();
            hb[i].l[k] = rnd32();
        }
        ha[i].l[11] %= 0x340223d4u; /* top word below 2p's: a < 2p */
        hb[i].l[11] %= 0x340223d4u;
    }
    /* edges: 0, 1, p - 1, p, 2p - 1 (lazy inputs), all-ones below the top */
    uint32_t pm1[12], p2m1[12];
    memcpy(pm1, P, sizeof pm1);
    pm1[0] -= 1;
    uint32_t carry = 0;
    for (int k = 0; k < 12; k++) {
        uint64_t v = (uint64_t)P[k] * 2 + carry;
        p2m1[k] = (uint32_t)v;
        carry = (uint32_t)(v >> 32);
    }
    p2m1[0] -= 1;
    const uint32_t *edges[4] = {pm1, P, p2m1, NULL};
    for (int e = 0; e < 6; e++)
        for (int f = 0; f < 6; f++) {
            int i = e * 6 + f;
            cu_fp *dst[2] = {&ha[i], &hb[i]};
            int sel[2] = {e, f};
            for (int s = 0; s < 2; s++) {
                memset(dst[s]->l, 0, sizeof dst[s]->l);
                if (sel[s] == 1) dst[s]->l[0] = 1;
                else if (sel[s] >= 2 && sel[s] <= 4) memcpy(dst[s]->l, edges[sel[s] - 2], 48);
                else if (sel[s] == 5) {
                    for (int k = 0; k < 11; k++) dst[s]->l[k] = 0xffffffffu;
                    dst[s]->l[11] = 0x340223d3u;
                }
            }
        }
    cu_fp *da, *db, *d1, *d2, *d3, *d4, *d5, *d6;
    CK(cudaMalloc(&d5, n * sizeof(cu_fp)));
    CK(cudaMalloc(&d6, n * sizeof(cu_fp)));
    CK(cudaMalloc(&da, n * sizeof(cu_fp)));
    CK(cudaMalloc(&db, n * sizeof(cu_fp)));
    CK(cudaMalloc(&d1, n * sizeof(cu_fp)));
    CK(cudaMalloc(&d2, n * sizeof(cu_fp)));
    CK(cudaMalloc(&d3, n * sizeof(cu_fp)));
    CK(cudaMalloc(&d4, n * sizeof(cu_fp)));
    CK(cudaMemcpy(da, ha, n * sizeof(cu_fp), cudaMemcpyHostToDevice));
    CK(cudaMemcpy(db, hb, n * sizeof(cu_fp), cudaMemcpyHostToDevice));
    k_check<<<n / 256, 256>>>(da, db, d1, d2, d3, d4, d5, d6, n);
    CK(cudaDeviceSynchronize());
    cu_fp *r1 = (cu_fp *)malloc(n * sizeof(cu_fp)), *r2 = (cu_fp *)malloc(n * sizeof(cu_fp));
    int bad = 0;
    const char *what[4] = {"mul", "sqr", "mul (fips)", "sqr (fips)"};
    cu_fp *ref[4] = {d1, d3, d1, d3}, *got[4] = {d2, d4, d5, d6};
    for (int pass = 0; pass < 4; pass++) {
        CK(cudaMemcpy(r1, ref[pass], n * sizeof(cu_fp), cudaMemcpyDeviceToHost));
        CK(cudaMemcpy(r2, got[pass], n * sizeof(cu_fp), cudaMemcpyDeviceToHost));
        int diff = 0;
        for (int i = 0; i < n; i++)
            if (memcmp(&r1[i], &r2[i], sizeof(cu_fp))) {
                if (diff < 3) {
                    fprintf(stderr, "%s mismatch at %d\n", what[pass], i);
                    for (int k = 11; k >= 0; k--) fprintf(stderr, "%08x", r1[i].l[k]);
                    fprintf(stderr, " int\n");
                    for (int k = 11; k >= 0; k--) fprintf(stderr, "%08x", r2[i].l[k]);
                    fprintf(stderr, " fp64\n");
                }
                diff++;
            }
        printf("%s: %d of %d results differ from the integer CIOS (bit for bit)\n", what[pass], diff, n);
        bad += diff;
    }

    /* Throughput. */
    int sms = 0, clk = 0;
    CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    CK(cudaDeviceGetAttribute(&clk, cudaDevAttrClockRate, 0));
    const char *names[11] = {"fe_mul_lz (IMAD)", "fp64_mul", "fe_sqr_lz (IMAD)", "fp64_sqr", "mixed 1 IMAD + 1 FP64",
                            "fp64_mul, 2 chains", "fe_mul_lz, 2 chains", "fp64_mul_fips", "fp64_sqr_fips",
                            "mixed 1 IMAD + 1 FIPS", "fe_sqr_lz (IMAD)"};
#define KS(M) {k_chain<0, M>, k_chain<1, M>, k_chain<2, M>, k_chain<3, M>, k_chain<4, M>, \
               k_chain<5, M>, k_chain<6, M>, k_chain<7, M>, k_chain<8, M>, k_chain<9, M>, k_chain<10, M>}
    void (*kernsm[3][11])(cu_fp *, int) = {KS(1), KS(6), KS(8)};
    const int minbs[3] = {1, 6, 8};
    for (int mb = 0; mb < 3; mb++) {
        const int threads = 128;
        void (**kerns)(cu_fp *, int) = kernsm[mb];
        unsigned blocks = (unsigned)sms * (4096 / threads);
        size_t nthr = (size_t)blocks * threads;
        cu_fp *io;
        CK(cudaMalloc(&io, 2 * nthr * sizeof(cu_fp)));
        for (size_t off = 0; off < 2 * nthr; off += n)
            CK(cudaMemcpy(io + off, ha, (2 * nthr - off < (size_t)n ? 2 * nthr - off : n) * sizeof(cu_fp),
                          cudaMemcpyHostToDevice));
        cudaEvent_t e0, e1;
        cudaEventCreate(&e0);
        cudaEventCreate(&e1);
        for (int kind = 0; kind < 11; kind++) {
            void (*kern)(cu_fp *, int) = kerns[kind];
            const int iters = 128;
            kern<<<blocks, threads>>>(io, 4);
            CK(cudaGetLastError());
            float best = 1e30f;
            for (int rep = 0; rep < 3; rep++) {
                cudaEventRecord(e0);
                kern<<<blocks, threads>>>(io, iters);
                cudaEventRecord(e1);
                CK(cudaEventSynchronize(e1));
                float ms;
                cudaEventElapsedTime(&ms, e0, e1);
                if (ms < best) best = ms;
            }
            cudaFuncAttributes fa;
            cudaFuncGetAttributes(&fa, kern);
            double rate = (double)nthr * iters * 2 / (best * 1e-3);
            double cyc = (double)sms * 4 * clk * 1e3 / (rate / 32);
            printf("%-24s minblocks %d: %7.2f G mul/s, %6.0f SMSP cycles per warp multiplication (%d regs, %d B local)\n",
                   names[kind], minbs[mb], rate * 1e-9, cyc, fa.numRegs, (int)fa.localSizeBytes);
        }
        cudaFree(io);
    }
    {
        unsigned blocks = (unsigned)sms * 16;
        double *d;
        CK(cudaMalloc(&d, (size_t)blocks * 256 * 8));
        cudaEvent_t e0, e1;
        cudaEventCreate(&e0);
        cudaEventCreate(&e1);
        for (int k = 0; k < 2; k++) {
            void (*kern)(double *, double) = k ? k_dfma_rate<1> : k_dfma_rate<0>;
            kern<<<blocks, 256>>>(d, 3.0);
            cudaEventRecord(e0);
            kern<<<blocks, 256>>>(d, 3.0);
            cudaEventRecord(e1);
            CK(cudaEventSynchronize(e1));
            float ms;
            cudaEventElapsedTime(&ms, e0, e1);
            double warp_inst = (double)blocks * 256 / 32 * 2048 * 8;
            printf("%s: %.2f SMSP cycles per warp instruction\n", k ? "DFMA.RZ" : "DFMA", ms * 1e-3 * clk * 1e3 * sms * 4 / warp_inst);
        }
    }
    {
        unsigned blocks = (unsigned)sms * 16;
        uint64_t *d;
        CK(cudaMalloc(&d, (size_t)blocks * 256 * 8));
        cudaEvent_t e0, e1;
        cudaEventCreate(&e0);
        cudaEventCreate(&e1);
        const char *dn[5] = {"IMAD.WIDE chains", "DFMA chains", "IMAD.WIDE + DFMA interleaved", "64-bit add+shift chains",
                             "64-bit add+shift + DFMA"};
        void (*dk[5])(uint64_t *, double) = {k_dual<0>, k_dual<1>, k_dual<2>, k_dual<3>, k_dual<4>};
        for (int k = 0; k < 5; k++) {
            dk[k]<<<blocks, 256>>>(d, 3.0);
            cudaEventRecord(e0);
            dk[k]<<<blocks, 256>>>(d, 3.0);
            cudaEventRecord(e1);
            CK(cudaEventSynchronize(e1));
            float ms;
            cudaEventElapsedTime(&ms, e0, e1);
            double steps = (double)blocks * 256 / 32 * 2048 * 8;
            printf("%-30s %.2f SMSP cycles per step of each chain\n", dn[k], ms * 1e-3 * clk * 1e3 * sms * 4 / steps);
        }
    }
    return bad ? 1 : 0;
}
