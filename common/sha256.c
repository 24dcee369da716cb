/*
 * SHA-256 (FIPS 180-4, sections 4.1.2, 4.2.2, 5.3.3 and 6.2); see sha256.h.
 * The portable block function follows the standard's pseudocode; the SHA-NI
 * one is the instruction sequence of Intel's "Intel SHA Extensions" white
 * paper (Gulley et al., 2013): state kept as ABEF/CDGH, four rounds per
 * sha256rnds2 pair, the message schedule by sha256msg1/sha256msg2.
 */
#include "sha256.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#if defined(__x86_64__) && !defined(GS_NO_ASM)
#include <cpuid.h>
#include <immintrin.h>
#define GS_SHA_X86 1
#endif

const uint32_t gs_sha256_k[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

static uint32_t ror(uint32_t x, int n) { return (x >> n) | (x << (32 - n)); }

void gs_sha256_compress(uint32_t h[8], const uint32_t m[16])
{
    uint32_t w[64];
    for (int i = 0; i < 16; i++)
        w[i] = m[i];
    for (int i = 16; i < 64; i++) {
        uint32_t s0 = ror(w[i - 15], 7) ^ ror(w[i - 15], 18) ^ (w[i - 15] >> 3);
        uint32_t s1 = ror(w[i - 2], 17) ^ ror(w[i - 2], 19) ^ (w[i - 2] >> 10);
        w[i] = w[i - 16] + s0 + w[i - 7] + s1;
    }
    uint32_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], hh = h[7];
    for (int i = 0; i < 64; i++) {
        uint32_t t1 = hh + (ror(e, 6) ^ ror(e, 11) ^ ror(e, 25)) + ((e & f) ^ (~e & g)) + gs_sha256_k[i] + w[i];
        uint32_t t2 = (ror(a, 2) ^ ror(a, 13) ^ ror(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
        hh = g;
        g = f;
        f = e;
        e = d + t1;
        d = c;
        c = b;
        b = a;
        a = t1 + t2;
    }
    h[0] += a; h[1] += b; h[2] += c; h[3] += d;
    h[4] += e; h[5] += f; h[6] += g; h[7] += hh;
}

static void blocks_portable(uint32_t h[8], const uint8_t *p, size_t n)
{
    uint32_t m[16];
    for (; n; n--, p += 64) {
        for (int i = 0; i < 16; i++)
            m[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 | (uint32_t)p[4 * i + 2] << 8 |
                   p[4 * i + 3];
        gs_sha256_compress(h, m);
    }
}

#ifdef GS_SHA_X86
__attribute__((target("sha,sse4.1"))) static void blocks_shani(uint32_t h[8], const uint8_t *p,
                                                                 size_t n)
{
    const __m128i bswap = _mm_set_epi64x(0x0c0d0e0f08090a0bULL, 0x0405060700010203ULL);
    __m128i t = _mm_loadu_si128((const __m128i *)&h[0]);
    __m128i s1 = _mm_loadu_si128((const __m128i *)&h[4]);
    t = _mm_shuffle_epi32(t, 0xB1);               /* CDAB */
    s1 = _mm_shuffle_epi32(s1, 0x1B);             /* EFGH */
    __m128i s0 = _mm_alignr_epi8(t, s1, 8);       /* ABEF */
    s1 = _mm_blend_epi16(s1, t, 0xF0);            /* CDGH */
    for (; n; n--, p += 64) {
        __m128i abef = s0, cdgh = s1, w[4];
        for (int g = 0; g < 16; g++) {
            __m128i m;
            if (g < 4) {
                m = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(p + 16 * g)), bswap);
            } else {
                /* W_t = s1(W_t-2) + W_t-7 + s0(W_t-15) + W_t-16, four at a time. */
                m = _mm_sha256msg1_epu32(w[g & 3], w[(g + 1) & 3]);
                m = _mm_add_epi32(m, _mm_alignr_epi8(w[(g + 3) & 3], w[(g + 2) & 3], 4));
                m = _mm_sha256msg2_epu32(m, w[(g + 3) & 3]);
            }
            w[g & 3] = m;
            __m128i k = _mm_add_epi32(m, _mm_loadu_si128((const __m128i *)&gs_sha256_k[4 * g]));
            s1 = _mm_sha256rnds2_epu32(s1, s0, k);
            k = _mm_shuffle_epi32(k, 0x0E);
            s0 = _mm_sha256rnds2_epu32(s0, s1, k);
        }
        s0 = _mm_add_epi32(s0, abef);
        s1 = _mm_add_epi32(s1, cdgh);
    }
    t = _mm_shuffle_epi32(s0, 0x1B);              /* FEBA */
    s1 = _mm_shuffle_epi32(s1, 0xB1);             /* DCHG */
    s0 = _mm_blend_epi16(t, s1, 0xF0);            /* DCBA */
    s1 = _mm_alignr_epi8(s1, t, 8);               /* HGFE: h[4..7] = E, F, G, H */
    _mm_storeu_si128((__m128i *)&h[0], s0);
    _mm_storeu_si128((__m128i *)&h[4], s1);
}

static int cpu_has_sha(void)
{
    unsigned a, b, c, d;
    if (!__get_cpuid_count(7, 0, &a, &b, &c, &d))
        return 0;
    return (b >> 29) & 1;
}
#endif

typedef void (*blocks_fn)(uint32_t h[8], const uint8_t *p, size_t n);
static _Atomic(blocks_fn) chosen;
static atomic_int force_portable;

static blocks_fn blocks_impl(void)
{
    if (atomic_load_explicit(&force_portable, memory_order_relaxed))
        return blocks_portable;
    blocks_fn f = atomic_load_explicit(&chosen, memory_order_relaxed);
    if (!f) {
        f = blocks_portable;
#ifdef GS_SHA_X86
        if (cpu_has_sha())
            f = blocks_shani;
#endif
        atomic_store_explicit(&chosen, f, memory_order_relaxed);
    }
    return f;
}

const char *gs_sha256_impl(void)
{
    return blocks_impl() == blocks_portable ? "portable" : "sha-ni";
}

void gs_sha256_force_portable(int on)
{
    atomic_store(&force_portable, on);
}

const uint32_t gs_sha256_iv[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                                  0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};

void gs_sha256_init(gs_sha256 *c)
{
    memcpy(c->h, gs_sha256_iv, sizeof gs_sha256_iv);
    c->len = 0;
    c->n = 0;
}

void gs_sha256_update(gs_sha256 *c, const void *data, size_t n)
{
    const uint8_t *p = data;
    blocks_fn f = blocks_impl();
    c->len += n;
    if (c->n) {
        size_t k = 64 - c->n < n ? 64 - c->n : n;
        memcpy(c->buf + c->n, p, k);
        c->n += k;
        p += k;
        n -= k;
        if (c->n < 64)
            return;
        f(c->h, c->buf, 1);
        c->n = 0;
    }
    if (n >= 64) {
        f(c->h, p, n / 64);
        p += n & ~(size_t)63;
        n &= 63;
    }
    memcpy(c->buf, p, n);
    c->n = n;
}

void gs_sha256_final(uint8_t out[32], gs_sha256 *c)
{
    uint64_t bits = c->len * 8;
    uint8_t pad = 0x80, zero = 0, lenb[8];
    gs_sha256_update(c, &pad, 1);
    while (c->n != 56)
        gs_sha256_update(c, &zero, 1);
    for (int i = 0; i < 8; i++)
        lenb[i] = (uint8_t)(bits >> (56 - 8 * i));
    gs_sha256_update(c, lenb, 8);
    for (int i = 0; i < 8; i++) {
        out[4 * i] = (uint8_t)(c->h[i] >> 24);
        out[4 * i + 1] = (uint8_t)(c->h[i] >> 16);
        out[4 * i + 2] = (uint8_t)(c->h[i] >> 8);
        out[4 * i + 3] = (uint8_t)c->h[i];
    }
}

void gs_sha256_buf(uint8_t out[32], const void *data, size_t n)
{
    gs_sha256 c;
    gs_sha256_init(&c);
    gs_sha256_update(&c, data, n);
    gs_sha256_final(out, &c);
}

void gs_sha256_hex(char out[65], const uint8_t digest[32])
{
    static const char hex[] = "0123456789abcdef";
    for (int i = 0; i < 32; i++) {
        out[2 * i] = hex[digest[i] >> 4];
        out[2 * i + 1] = hex[digest[i] & 15];
    }
    out[64] = '\0';
}

gs_status gs_sha256_file(char out[65], const char *path, gs_err *err)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return gs_err_set(err, GS_ERR_IO, "sha256", path, "cannot open: %s", strerror(errno));
    gs_sha256 c;
    gs_sha256_init(&c);
    uint8_t buf[65536], d[32];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0)
        gs_sha256_update(&c, buf, n);
    int bad = ferror(f);
    fclose(f);
    if (bad)
        return gs_err_set(err, GS_ERR_IO, "sha256", path, "read error");
    gs_sha256_final(d, &c);
    gs_sha256_hex(out, d);
    return GS_OK;
}
