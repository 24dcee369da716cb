/*
 * Fp Montgomery multiplication eight at a time with AVX-512 IFMA
 * (vpmadd52luq / vpmadd52huq), against the scalar gs_fp_mul (mulx/adx), on
 * the CPU it runs on.  A measurement of a lever for issue 15 (the CPU
 * prove's MSMs are ~93% field multiplications in batch-affine bucket
 * additions, which are independent of each other: eight can share a
 * vector), not part of the build.
 *
 * Representation: eight lanes, each an independent element; limb i of all
 * eight in one __m512i, 8 limbs of 52 bits (416 bits).  Montgomery form with
 * R' = 2^416 (gs_fp uses 2^384; an MSM would convert its points once, n
 * multiplications against n x windows additions).  Word-by-word Montgomery
 * (CIOS) in radix 2^52: per word b_i, t += a b_i (lo and hi halves of the
 * 104-bit products into limbs j and j+1), m = t_0 p' mod 2^52, t += m p,
 * t_0 is then 0 mod 2^52 and carries t_0 >> 52 into t_1 as the limbs shift
 * down.  A limb receives at most four 52-bit halves per round and lives
 * eight rounds: < 2^57, no overflow of the 64-bit lanes.  Inputs below 2^384
 * give t < a b / R' + p < 2^348 + p < 2p: values stay below 2p (lazy), one
 * normalisation pass (carries) at the end of each multiplication.
 *
 * Checked against gs_fp_mul: ifma(a, b) 2^32 = gs_fp_mul(a, b) mod p, the
 * 2^32 applied as gs_fp_mul(x, 2^416 mod p).
 *
 *   make -j2 CUDA=0 BUILD=build-cpu build-cpu/lib/field.a build-cpu/lib/common.a -lm
 *   gcc -O2 -march=native -o /tmp/ifma_mul bench/cpu/ifma_mul.c build-cpu/lib/field.a build-cpu/lib/common.a -lm
 *   (or `make bench-tools`: build/bench-tools/ifma_mul)
 *   /tmp/ifma_mul
 */
#define _POSIX_C_SOURCE 200809L
#include <immintrin.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../../prover/field/field.h"

#define M52 0xfffffffffffffull

typedef struct {
    __m512i l[8];
} v8fp;

static uint64_t P52[8], PINV52;

static void to52(uint64_t out[8], const uint64_t in[6])
{
    for (int k = 0; k < 8; k++) {
        int bit = 52 * k, w = bit / 64, s = bit % 64;
        uint64_t v = in[w] >> s;
        if (s > 12 && w + 1 < 6) v |= in[w + 1] << (64 - s);
        out[k] = v & M52;
    }
}

static void from52(uint64_t out[6], const uint64_t in[8])
{
    memset(out, 0, 6 * sizeof(uint64_t));
    for (int k = 0; k < 8; k++) {
        int bit = 52 * k, w = bit / 64, s = bit % 64;
        if (w < 6) out[w] |= in[k] << s;
        if (s > 12 && w + 1 < 6) out[w + 1] |= in[k] >> (64 - s);
    }
}

static inline void v8_mul(v8fp *r, const v8fp *a, const v8fp *b)
{
    const __m512i zero = _mm512_setzero_si512(), pinv = _mm512_set1_epi64((long long)PINV52);
    __m512i t[9];
    for (int j = 0; j < 9; j++) t[j] = zero;
    for (int i = 0; i < 8; i++) {
        __m512i bi = b->l[i];
        for (int j = 0; j < 8; j++) t[j] = _mm512_madd52lo_epu64(t[j], a->l[j], bi);
        for (int j = 0; j < 8; j++) t[j + 1] = _mm512_madd52hi_epu64(t[j + 1], a->l[j], bi);
        __m512i m = _mm512_madd52lo_epu64(zero, t[0], pinv);
        for (int j = 0; j < 8; j++) {
            __m512i pj = _mm512_set1_epi64((long long)P52[j]);
            t[j] = _mm512_madd52lo_epu64(t[j], pj, m);
            t[j + 1] = _mm512_madd52hi_epu64(t[j + 1], pj, m);
        }
        t[1] = _mm512_add_epi64(t[1], _mm512_srli_epi64(t[0], 52));
        for (int j = 0; j < 8; j++) t[j] = t[j + 1];
        t[8] = zero;
    }
    const __m512i mask = _mm512_set1_epi64((long long)M52);
    for (int j = 0; j < 7; j++) {
        t[j + 1] = _mm512_add_epi64(t[j + 1], _mm512_srli_epi64(t[j], 52));
        t[j] = _mm512_and_si512(t[j], mask);
    }
    for (int j = 0; j < 8; j++) r->l[j] = t[j];
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static uint64_t rs = 0x9e3779b97f4a7c15ull;
static uint64_t rnd(void)
{
    rs ^= rs << 13;
    rs ^= rs >> 7;
    rs ^= rs << 17;
    return rs;
}

static void random_fp(gs_fp *x)
{
    for (int k = 0; k < 6; k++) x->l[k] = rnd();
    x->l[5] &= 0x0fffffffffffffffull; /* < 2^380 < p: a valid internal value */
}

int main(void)
{
    uint64_t p[6];
    memcpy(p, GS_FP_MODULUS.l, sizeof p);
    to52(P52, p);
    uint64_t inv = 1; /* p^-1 mod 2^64 by Newton */
    for (int it = 0; it < 7; it++) inv *= 2 - p[0] * inv;
    PINV52 = (0 - inv) & M52;
    if (((P52[0] * PINV52) & M52) != M52) {
        fprintf(stderr, "p' wrong\n");
        return 1;
    }
    gs_fp c416; /* 2^416 mod p as an internal value: R mod p doubled 32 times */
    gs_fp_one(&c416);
    for (int k = 0; k < 32; k++) gs_fp_add(&c416, &c416, &c416);

    /* Correctness: 8 x 4096 random pairs plus edges. */
    int bad = 0, checked = 0;
    for (int rep = 0; rep < 4096; rep++) {
        gs_fp a[8], b[8];
        for (int lane = 0; lane < 8; lane++) {
            random_fp(&a[lane]);
            random_fp(&b[lane]);
        }
        if (rep == 0) {
            gs_fp_zero(&a[0]);
            memcpy(a[1].l, p, sizeof p);
            a[1].l[0] -= 1; /* p - 1 */
            memcpy(b[1].l, a[1].l, sizeof p);
            gs_fp_one(&a[2]);
        }
        uint64_t la[8][8], lb[8][8];
        v8fp va, vb, vr;
        for (int lane = 0; lane < 8; lane++) {
            to52(la[lane], a[lane].l);
            to52(lb[lane], b[lane].l);
        }
        for (int j = 0; j < 8; j++) {
            uint64_t ta[8], tb[8];
            for (int lane = 0; lane < 8; lane++) {
                ta[lane] = la[lane][j];
                tb[lane] = lb[lane][j];
            }
            va.l[j] = _mm512_loadu_si512(ta);
            vb.l[j] = _mm512_loadu_si512(tb);
        }
        v8_mul(&vr, &va, &vb);
        /* a second multiplication on the lazy result: (a b) b */
        v8fp vr2;
        v8_mul(&vr2, &vr, &vb);
        for (int lane = 0; lane < 8; lane++) {
            for (int pass = 0; pass < 2; pass++) {
                uint64_t l52[8], plain[6];
                for (int j = 0; j < 8; j++) {
                    uint64_t tmp[8];
                    _mm512_storeu_si512(tmp, pass ? vr2.l[j] : vr.l[j]);
                    l52[j] = tmp[lane];
                }
                from52(plain, l52);
                gs_fp x, want, got;
                memcpy(x.l, plain, sizeof plain);
                /* x < 2p: reduce once (p + x < 2^384) */
                gs_fp pm;
                memcpy(pm.l, p, sizeof p);
                unsigned __int128 acc;
                int ge = 1;
                for (int k = 5; k >= 0; k--) {
                    if (x.l[k] != pm.l[k]) {
                        ge = x.l[k] > pm.l[k];
                        break;
                    }
                }
                if (ge) {
                    uint64_t br = 0;
                    for (int k = 0; k < 6; k++) {
                        acc = (unsigned __int128)x.l[k] - pm.l[k] - br;
                        x.l[k] = (uint64_t)acc;
                        br = (uint64_t)(acc >> 64) ? 1 : 0;
                    }
                }
                gs_fp_mul(&got, &x, &c416);
                gs_fp_mul(&want, &a[lane], &b[lane]);
                if (pass) { /* ifma: a b^2 2^-832, so got = a b^2 2^-800; gs_fp_mul twice: a b^2 2^-768 */
                    gs_fp w2;
                    gs_fp_mul(&w2, &want, &b[lane]);
                    want = w2;
                    for (int k = 0; k < 32; k++) gs_fp_add(&got, &got, &got);
                }
                checked++;
                if (!gs_fp_eq(&got, &want)) {
                    if (bad < 3) fprintf(stderr, "lane %d rep %d pass %d differs\n", lane, rep, pass);
                    bad++;
                }
            }
        }
    }
    printf("IFMA Montgomery multiplication: %d of %d results differ from gs_fp_mul\n", bad, checked);

    /* Throughput: 8 independent chains of scalar multiplications vs V vectors
     * of eight lanes (16 / 32 / 64 elements), x <- x y, many iterations. */
    const long iters = 2000000;
    gs_fp sx[8], sy[8];
    for (int k = 0; k < 8; k++) {
        random_fp(&sx[k]);
        random_fp(&sy[k]);
    }
    double best = 1e9;
    for (int rep = 0; rep < 3; rep++) {
        double t0 = now();
        for (long it = 0; it < iters / 8; it++)
            for (int k = 0; k < 8; k++) gs_fp_mul(&sx[k], &sx[k], &sy[k]);
        double dt = now() - t0;
        if (dt < best) best = dt;
    }
    printf("gs_fp_mul, 8 independent chains:   %6.2f ns per multiplication (x%lu)\n", best / iters * 1e9,
           (unsigned long)(sx[0].l[0] & 1));
    for (int V = 1; V <= 4; V *= 2) {
        v8fp vx[4], vy[4];
        for (int v = 0; v < V; v++)
            for (int j = 0; j < 8; j++) {
                vx[v].l[j] = _mm512_set1_epi64((long long)((rnd() & M52) >> (j == 7 ? 30 : 0)));
                vy[v].l[j] = _mm512_set1_epi64((long long)((rnd() & M52) >> (j == 7 ? 30 : 0)));
            }
        best = 1e9;
        for (int rep = 0; rep < 3; rep++) {
            double t0 = now();
            for (long it = 0; it < iters / (8 * V); it++)
                for (int v = 0; v < V; v++) v8_mul(&vx[v], &vx[v], &vy[v]);
            double dt = now() - t0;
            if (dt < best) best = dt;
        }
        uint64_t sink[8];
        _mm512_storeu_si512(sink, vx[0].l[0]);
        printf("IFMA, %d vector(s) of 8 lanes:      %6.2f ns per multiplication (x%lu)\n", V, best / iters * 1e9,
               (unsigned long)(sink[0] & 1));
    }
    return bad ? 1 : 0;
}
