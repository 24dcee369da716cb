/*
 * Fr, the 255-bit scalar field of BLS12-381: four 64-bit limbs in Montgomery
 * form with R = 2^256 (field.h has the contract).  The generic limb code is
 * in limbs.h; here it is instantiated with N = 4 so every loop unrolls.
 */
#include "field.h"

#include "consts.h"
#include "limbs.h"
#include "mont_asm.h"

#define N GS_FR_LIMBS

const gs_fr GS_FR_MODULUS = {GS_FRC_P};
static const uint64_t P[N] = GS_FRC_P;
#ifdef GS_HAVE_MONT_ASM
const uint64_t gs_fr_modulus_asm[N] = GS_FRC_P;
#endif
static const uint64_t R1[N] = GS_FRC_R1;
static const uint64_t R2[N] = GS_FRC_R2;
static const uint64_t R3[N] = GS_FRC_R3;
static const uint64_t PM2[N] = GS_FRC_PM2;
static const uint64_t TWOADIC_T[N] = GS_FRC_TWOADIC_T;

void gs_fr_zero(gs_fr *out) { memset(out, 0, sizeof *out); }
void gs_fr_one(gs_fr *out) { memcpy(out->l, R1, sizeof R1); }

void gs_fr_set_u64(gs_fr *out, uint64_t v)
{
    uint64_t plain[N] = {v};
    lb_mont_mul(out->l, plain, R2, P, GS_FRC_N0, N);
}

int gs_fr_is_zero(const gs_fr *a) { return lb_is_zero(a->l, N); }
int gs_fr_is_one(const gs_fr *a) { return lb_eq(a->l, R1, N); }
int gs_fr_eq(const gs_fr *a, const gs_fr *b) { return lb_eq(a->l, b->l, N); }

/* Generated assembly (mont_asm.h) where available, portable code otherwise. */
#ifdef GS_HAVE_MONT_ASM
void gs_fr_add(gs_fr *out, const gs_fr *a, const gs_fr *b)
{
    GS_VERIFY_REDUCED(a->l, P, N);
    GS_VERIFY_REDUCED(b->l, P, N);
    gs_mod_add4_asm(out->l, a->l, b->l);
    GS_VERIFY_REDUCED(out->l, P, N);
}
void gs_fr_sub(gs_fr *out, const gs_fr *a, const gs_fr *b)
{
    GS_VERIFY_REDUCED(a->l, P, N);
    GS_VERIFY_REDUCED(b->l, P, N);
    gs_mod_sub4_asm(out->l, a->l, b->l);
    GS_VERIFY_REDUCED(out->l, P, N);
}
#else
void gs_fr_add(gs_fr *out, const gs_fr *a, const gs_fr *b)
{
    GS_VERIFY_REDUCED(a->l, P, N);
    GS_VERIFY_REDUCED(b->l, P, N);
    lb_mod_add(out->l, a->l, b->l, P, N);
    GS_VERIFY_REDUCED(out->l, P, N);
}
void gs_fr_sub(gs_fr *out, const gs_fr *a, const gs_fr *b)
{
    GS_VERIFY_REDUCED(a->l, P, N);
    GS_VERIFY_REDUCED(b->l, P, N);
    lb_mod_sub(out->l, a->l, b->l, P, N);
    GS_VERIFY_REDUCED(out->l, P, N);
}
#endif

/* 0 - a mod m: a borrow (a != 0) adds m back, so 0 stays 0. */
void gs_fr_neg(gs_fr *out, const gs_fr *a)
{
    static const gs_fr zero;
    gs_fr_sub(out, &zero, a);
}

void gs_fr_dbl(gs_fr *out, const gs_fr *a) { gs_fr_add(out, a, a); }

/* a b R^-1 mod m for a, b < m: mulx/adcx/adox assembly where the target
 * has BMI2 and ADX (mont_asm.h, generated), portable CIOS otherwise; both
 * compute the same function. */
static inline void mont(uint64_t out[N], const uint64_t a[N], const uint64_t b[N])
{
#ifdef GS_HAVE_MONT_ASM
    gs_mont_mul4_asm(out, a, b);
#else
    lb_mont_mul(out, a, b, P, GS_FRC_N0, N);
#endif
}

void gs_fr_mul(gs_fr *out, const gs_fr *a, const gs_fr *b)
{
    GS_VERIFY_REDUCED(a->l, P, N);
    GS_VERIFY_REDUCED(b->l, P, N);
    mont(out->l, a->l, b->l);
    GS_VERIFY_REDUCED(out->l, P, N);
}

void gs_fr_sqr(gs_fr *out, const gs_fr *a) { gs_fr_mul(out, a, a); }

/*
 * Fixed 4-bit window, left to right (Handbook of Applied Cryptography,
 * algorithm 14.82): 15 table multiplications, then per nibble 4 squarings
 * and at most one multiplication.  Leading zero nibbles are skipped.
 * Branches and table indices depend on the exponent only (public).
 */
void gs_fr_pow(gs_fr *out, const gs_fr *a, const uint64_t *e, size_t n)
{
    gs_fr tbl[16], acc;
    int started = 0;
    gs_fr_one(&tbl[0]);
    tbl[1] = *a;
    for (int i = 2; i < 16; i++) gs_fr_mul(&tbl[i], &tbl[i - 1], a);
    acc = tbl[0];
    for (size_t i = n; i-- > 0;) {
        for (int nib = 15; nib >= 0; nib--) {
            unsigned d = (unsigned)(e[i] >> (4 * nib)) & 15;
            if (started) {
                gs_fr_sqr(&acc, &acc);
                gs_fr_sqr(&acc, &acc);
                gs_fr_sqr(&acc, &acc);
                gs_fr_sqr(&acc, &acc);
                if (d) gs_fr_mul(&acc, &acc, &tbl[d]);
            } else if (d) {
                acc = tbl[d];
                started = 1;
            }
        }
    }
    *out = acc;
}

/* Fermat: a^(r-2); 0 maps to 0. */
void gs_fr_inv(gs_fr *out, const gs_fr *a) { gs_fr_pow(out, a, PM2, N); }

/*
 * Binary extended gcd on the Montgomery value aR gives (aR)^-1 = a^-1 R^-1
 * (Pornin's rounds of 31 steps, limbs.h, with the bit-by-bit gcd as the
 * fallback and for 0); one Montgomery multiplication by R^3 turns it into
 * a^-1 R.
 */
void gs_fr_inv_var(gs_fr *out, const gs_fr *a)
{
    uint64_t t[N];
    if (lb_is_zero(a->l, N) || !lb_inv_pornin_var(t, a->l, P, GS_FRC_N0, N))
        lb_inv_plain_var(t, a->l, P, N);
    lb_mont_mul(out->l, t, R3, P, GS_FRC_N0, N);
}

void gs_fr_to_plain(uint64_t out[GS_FR_LIMBS], const gs_fr *a)
{
    static const uint64_t one[N] = {1};
    mont(out, a->l, one);
}

int gs_fr_from_plain(gs_fr *out, const uint64_t plain[GS_FR_LIMBS])
{
    if (!lb_lt(plain, P, N)) return 0;
    mont(out->l, plain, R2);
    return 1;
}

void gs_fr_to_bytes_le(uint8_t out[GS_FR_BYTES], const gs_fr *a)
{
    uint64_t t[N];
    gs_fr_to_plain(t, a);
    lb_to_bytes_le(out, t, N);
}

void gs_fr_to_bytes_be(uint8_t out[GS_FR_BYTES], const gs_fr *a)
{
    uint8_t t[GS_FR_BYTES];
    gs_fr_to_bytes_le(t, a);
    lb_reverse_bytes(out, t, GS_FR_BYTES);
}

int gs_fr_from_bytes_le(gs_fr *out, const uint8_t in[GS_FR_BYTES])
{
    uint64_t t[N];
    lb_from_bytes_le(t, in, N);
    return gs_fr_from_plain(out, t);
}

int gs_fr_from_bytes_be(gs_fr *out, const uint8_t in[GS_FR_BYTES])
{
    uint8_t t[GS_FR_BYTES];
    lb_reverse_bytes(t, in, GS_FR_BYTES);
    return gs_fr_from_bytes_le(out, t);
}

/* Uniform below r by rejection on a value masked to r's bit length. */
void gs_fr_random(gs_fr *out, gs_rng *rng)
{
    uint64_t t[N];
    do {
        for (int i = 0; i < N; i++) t[i] = gs_rng_u64(rng);
        t[N - 1] &= GS_FRC_TOP_MASK;
    } while (!lb_lt(t, P, N));
    memcpy(out->l, t, sizeof t);
}

void gs_fr_to_dec(char *buf, size_t len, const gs_fr *a)
{
    uint64_t t[N];
    gs_fr_to_plain(t, a);
    lb_to_dec(buf, len, t, N);
}

int gs_fr_from_dec(gs_fr *out, const char *s)
{
    uint64_t t[N];
    if (!lb_from_dec(t, s, N)) return 0;
    return gs_fr_from_plain(out, t);
}

void gs_fr_to_scalar(gs_scalar *out, const gs_fr *a) { gs_fr_to_plain(out->l, a); }

int gs_fr_from_scalar(gs_fr *out, const gs_scalar *s) { return gs_fr_from_plain(out, s->l); }

/*
 * in = lo + hi 2^256 with lo, hi < 2^256.  Montgomery multiplication of a
 * value below 2^256 by a reduced constant is valid (product < 2^256 r), so
 * lo R = mont(lo, R^2) and hi 2^256 R = mont(hi, R^3).
 */
void gs_fr_from_bytes_wide(gs_fr *out, const uint8_t in[64])
{
    uint64_t lo[N], hi[N];
    gs_fr a, b;
    lb_from_bytes_le(lo, in, N);
    lb_from_bytes_le(hi, in + 32, N);
    lb_mont_mul(a.l, lo, R2, P, GS_FRC_N0, N);
    lb_mont_mul(b.l, hi, R3, P, GS_FRC_N0, N);
    gs_fr_add(out, &a, &b);
}

/*
 * Montgomery's trick (one inversion and about 3 multiplications per
 * element), applied to chunks of BATCH elements so the prefix products fit
 * a fixed stack buffer: no heap scratch.  Zeros are skipped and stay zero.
 */
#define BATCH 256

void gs_fr_batch_inv_var(gs_fr *a, size_t n)
{
    gs_fr prefix[BATCH];
    for (size_t base = 0; base < n; base += BATCH) {
        size_t m = n - base < BATCH ? n - base : BATCH;
        gs_fr *x = a + base;
        gs_fr acc, inv, t;
        gs_fr_one(&acc);
        for (size_t i = 0; i < m; i++) {
            prefix[i] = acc; /* product of the nonzero x[0..i-1] */
            if (!gs_fr_is_zero(&x[i])) gs_fr_mul(&acc, &acc, &x[i]);
        }
        gs_fr_inv_var(&inv, &acc); /* inv = (product of nonzero x[0..m-1])^-1 */
        for (size_t i = m; i-- > 0;) {
            if (gs_fr_is_zero(&x[i])) continue;
            gs_fr_mul(&t, &inv, &prefix[i]); /* x[i]^-1 */
            gs_fr_mul(&inv, &inv, &x[i]);
            x[i] = t;
        }
    }
}

/*
 * snarkjs's roots of unity (SNARKJS-FORMATS.md section 7.1):
 * w_(2^32) = 5^t with t = (r-1)/2^32, w_(2^k) = w_(2^32)^(2^(32-k)).
 * k > 32 has no root in Fr; it is clamped to 32 (callers must not ask).
 */
void gs_fr_root_of_unity(gs_fr *out, unsigned k)
{
    gs_fr w;
    if (k > GS_FR_TWO_ADICITY) k = GS_FR_TWO_ADICITY;
    gs_fr_set_u64(&w, 5);
    gs_fr_pow(&w, &w, TWOADIC_T, N);
    for (unsigned i = k; i < GS_FR_TWO_ADICITY; i++) gs_fr_sqr(&w, &w);
    *out = w;
}
