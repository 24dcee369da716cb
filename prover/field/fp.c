/*
 * Fp, the 381-bit base field of BLS12-381: six 64-bit limbs in Montgomery
 * form with R = 2^384 (field.h has the contract).  The generic limb code is
 * in limbs.h; here it is instantiated with N = 6 so every loop unrolls.
 */
#include "field.h"

#include "consts.h"
#include "limbs.h"
#include "mont_asm.h"

#define N GS_FP_LIMBS

const gs_fp GS_FP_MODULUS = {GS_FPC_P};
static const uint64_t P[N] = GS_FPC_P;
#ifdef GS_HAVE_MONT_ASM
const uint64_t gs_fp_modulus_asm[N] = GS_FPC_P;
#endif
static const uint64_t R1[N] = GS_FPC_R1;
static const uint64_t R2[N] = GS_FPC_R2;
static const uint64_t R3[N] = GS_FPC_R3;
static const uint64_t PM2[N] = GS_FPC_PM2;
static const uint64_t HALF[N] = GS_FPC_HALF;
static const uint64_t SQRT_EXP[N] = GS_FPC_SQRT_EXP;

void gs_fp_zero(gs_fp *out) { memset(out, 0, sizeof *out); }
void gs_fp_one(gs_fp *out) { memcpy(out->l, R1, sizeof R1); }

void gs_fp_set_u64(gs_fp *out, uint64_t v)
{
    uint64_t plain[N] = {v};
    lb_mont_mul(out->l, plain, R2, P, GS_FPC_N0, N);
}

int gs_fp_is_zero(const gs_fp *a) { return lb_is_zero(a->l, N); }
int gs_fp_eq(const gs_fp *a, const gs_fp *b) { return lb_eq(a->l, b->l, N); }

/* Generated assembly (mont_asm.h) where available, portable code otherwise. */
#ifdef GS_HAVE_MONT_ASM
void gs_fp_add(gs_fp *out, const gs_fp *a, const gs_fp *b)
{
    GS_VERIFY_REDUCED(a->l, P, N);
    GS_VERIFY_REDUCED(b->l, P, N);
    gs_mod_add6_asm(out->l, a->l, b->l);
    GS_VERIFY_REDUCED(out->l, P, N);
}
void gs_fp_sub(gs_fp *out, const gs_fp *a, const gs_fp *b)
{
    GS_VERIFY_REDUCED(a->l, P, N);
    GS_VERIFY_REDUCED(b->l, P, N);
    gs_mod_sub6_asm(out->l, a->l, b->l);
    GS_VERIFY_REDUCED(out->l, P, N);
}
#else
void gs_fp_add(gs_fp *out, const gs_fp *a, const gs_fp *b)
{
    GS_VERIFY_REDUCED(a->l, P, N);
    GS_VERIFY_REDUCED(b->l, P, N);
    lb_mod_add(out->l, a->l, b->l, P, N);
    GS_VERIFY_REDUCED(out->l, P, N);
}
void gs_fp_sub(gs_fp *out, const gs_fp *a, const gs_fp *b)
{
    GS_VERIFY_REDUCED(a->l, P, N);
    GS_VERIFY_REDUCED(b->l, P, N);
    lb_mod_sub(out->l, a->l, b->l, P, N);
    GS_VERIFY_REDUCED(out->l, P, N);
}
#endif

/* 0 - a mod m: a borrow (a != 0) adds m back, so 0 stays 0. */
void gs_fp_neg(gs_fp *out, const gs_fp *a)
{
    static const gs_fp zero;
    gs_fp_sub(out, &zero, a);
}

void gs_fp_dbl(gs_fp *out, const gs_fp *a) { gs_fp_add(out, a, a); }

/* a b R^-1 mod m for a, b < m: mulx/adcx/adox assembly where the target
 * has BMI2 and ADX (mont_asm.h, generated), portable CIOS otherwise; both
 * compute the same function. */
static inline void mont(uint64_t out[N], const uint64_t a[N], const uint64_t b[N])
{
#ifdef GS_HAVE_MONT_ASM
    gs_mont_mul6_asm(out, a, b);
#else
    lb_mont_mul(out, a, b, P, GS_FPC_N0, N);
#endif
}

void gs_fp_mul(gs_fp *out, const gs_fp *a, const gs_fp *b)
{
    GS_VERIFY_REDUCED(a->l, P, N);
    GS_VERIFY_REDUCED(b->l, P, N);
    mont(out->l, a->l, b->l);
    GS_VERIFY_REDUCED(out->l, P, N);
}

void gs_fp_sqr(gs_fp *out, const gs_fp *a) { gs_fp_mul(out, a, a); }

/*
 * Fixed 4-bit window, left to right (Handbook of Applied Cryptography,
 * algorithm 14.82): 15 table multiplications, then per nibble 4 squarings
 * and at most one multiplication.  Leading zero nibbles are skipped.
 * Branches and table indices depend on the exponent only (public).
 */
void gs_fp_pow(gs_fp *out, const gs_fp *a, const uint64_t *e, size_t n)
{
    gs_fp tbl[16], acc;
    int started = 0;
    gs_fp_one(&tbl[0]);
    tbl[1] = *a;
    for (int i = 2; i < 16; i++) gs_fp_mul(&tbl[i], &tbl[i - 1], a);
    acc = tbl[0];
    for (size_t i = n; i-- > 0;) {
        for (int nib = 15; nib >= 0; nib--) {
            unsigned d = (unsigned)(e[i] >> (4 * nib)) & 15;
            if (started) {
                gs_fp_sqr(&acc, &acc);
                gs_fp_sqr(&acc, &acc);
                gs_fp_sqr(&acc, &acc);
                gs_fp_sqr(&acc, &acc);
                if (d) gs_fp_mul(&acc, &acc, &tbl[d]);
            } else if (d) {
                acc = tbl[d];
                started = 1;
            }
        }
    }
    *out = acc;
}

/* Fermat: a^(p-2); 0 maps to 0. */
void gs_fp_inv(gs_fp *out, const gs_fp *a) { gs_fp_pow(out, a, PM2, N); }

/*
 * Binary extended gcd on the Montgomery value aR gives (aR)^-1 = a^-1 R^-1
 * (Pornin's rounds of 31 steps, limbs.h, with the bit-by-bit gcd as the
 * fallback and for 0); one Montgomery multiplication by R^3 turns it into
 * a^-1 R.
 */
void gs_fp_inv_var(gs_fp *out, const gs_fp *a)
{
    uint64_t t[N];
    if (lb_is_zero(a->l, N) || !lb_inv_pornin_var(t, a->l, P, GS_FPC_N0, N))
        lb_inv_plain_var(t, a->l, P, N);
    lb_mont_mul(out->l, t, R3, P, GS_FPC_N0, N);
}

/* p = 3 mod 4: a^((p+1)/4) is a root whenever a is a square. */
int gs_fp_sqrt(gs_fp *out, const gs_fp *a)
{
    gs_fp s, c;
    gs_fp_pow(&s, a, SQRT_EXP, N);
    gs_fp_sqr(&c, &s);
    int ok = gs_fp_eq(&c, a);
    if (ok) *out = s;
    return ok;
}

int gs_fp_is_lexlargest(const gs_fp *a)
{
    uint64_t t[N];
    gs_fp_to_plain(t, a);
    return lb_lt(HALF, t, N);
}

void gs_fp_to_plain(uint64_t out[GS_FP_LIMBS], const gs_fp *a)
{
    static const uint64_t one[N] = {1};
    mont(out, a->l, one);
}

int gs_fp_from_plain(gs_fp *out, const uint64_t plain[GS_FP_LIMBS])
{
    if (!lb_lt(plain, P, N)) return 0;
    mont(out->l, plain, R2);
    return 1;
}

void gs_fp_to_bytes_le(uint8_t out[GS_FP_BYTES], const gs_fp *a)
{
    uint64_t t[N];
    gs_fp_to_plain(t, a);
    lb_to_bytes_le(out, t, N);
}

void gs_fp_to_bytes_be(uint8_t out[GS_FP_BYTES], const gs_fp *a)
{
    uint8_t t[GS_FP_BYTES];
    gs_fp_to_bytes_le(t, a);
    lb_reverse_bytes(out, t, GS_FP_BYTES);
}

int gs_fp_from_bytes_le(gs_fp *out, const uint8_t in[GS_FP_BYTES])
{
    uint64_t t[N];
    lb_from_bytes_le(t, in, N);
    return gs_fp_from_plain(out, t);
}

int gs_fp_from_bytes_be(gs_fp *out, const uint8_t in[GS_FP_BYTES])
{
    uint8_t t[GS_FP_BYTES];
    lb_reverse_bytes(t, in, GS_FP_BYTES);
    return gs_fp_from_bytes_le(out, t);
}

/* Uniform below p by rejection on a value masked to p's bit length. */
void gs_fp_random(gs_fp *out, gs_rng *rng)
{
    uint64_t t[N];
    do {
        for (int i = 0; i < N; i++) t[i] = gs_rng_u64(rng);
        t[N - 1] &= GS_FPC_TOP_MASK;
    } while (!lb_lt(t, P, N));
    memcpy(out->l, t, sizeof t);
}

void gs_fp_to_dec(char *buf, size_t len, const gs_fp *a)
{
    uint64_t t[N];
    gs_fp_to_plain(t, a);
    lb_to_dec(buf, len, t, N);
}

int gs_fp_from_dec(gs_fp *out, const char *s)
{
    uint64_t t[N];
    if (!lb_from_dec(t, s, N)) return 0;
    return gs_fp_from_plain(out, t);
}

/*
 * Montgomery's trick (one inversion and about 3 multiplications per
 * element), applied to chunks of BATCH elements so the prefix products fit
 * a fixed stack buffer: no heap scratch.  Zeros are skipped and stay zero.
 */
#define BATCH 256

void gs_fp_batch_inv_var(gs_fp *a, size_t n)
{
    gs_fp prefix[BATCH];
    for (size_t base = 0; base < n; base += BATCH) {
        size_t m = n - base < BATCH ? n - base : BATCH;
        gs_fp *x = a + base;
        gs_fp acc, inv, t;
        gs_fp_one(&acc);
        for (size_t i = 0; i < m; i++) {
            prefix[i] = acc; /* product of the nonzero x[0..i-1] */
            if (!gs_fp_is_zero(&x[i])) gs_fp_mul(&acc, &acc, &x[i]);
        }
        gs_fp_inv_var(&inv, &acc); /* inv = (product of nonzero x[0..m-1])^-1 */
        for (size_t i = m; i-- > 0;) {
            if (gs_fp_is_zero(&x[i])) continue;
            gs_fp_mul(&t, &inv, &prefix[i]); /* x[i]^-1 */
            gs_fp_mul(&inv, &inv, &x[i]);
            x[i] = t;
        }
    }
}

/* Montgomery's trick (Math. Comp. 1987, section 10.3.1) over one scratch
 * array: scratch[i] = a[0] ... a[i-1], one inversion, then back. */
void gs_fp_batch_inv_nonzero_var(gs_fp *a, gs_fp *scratch, size_t n)
{
    if (n == 0)
        return;
    gs_fp acc = a[0], inv, t;
    for (size_t i = 1; i < n; i++) {
        scratch[i] = acc;
        gs_fp_mul(&acc, &acc, &a[i]);
    }
    gs_fp_inv_var(&inv, &acc);
    for (size_t i = n; i-- > 1;) {
        gs_fp_mul(&t, &inv, &scratch[i]);
        gs_fp_mul(&inv, &inv, &a[i]);
        a[i] = t;
    }
    a[0] = inv;
}
