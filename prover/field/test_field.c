/*
 * Fp and Fr tests that need no oracle: field axioms on random elements,
 * Fermat, square roots, batch inversion, wide reduction (against a
 * schoolbook reduction through the field itself), and the snarkjs roots of
 * unity against the published values of SNARKJS-FORMATS.md section 7.1.
 */
#include "field.h"
#include "field_inline.h"
#include "fp_divsteps.h"

#include <string.h>

#include "../../test/test.h"

static int iters(int full) { return gs_test_quick() ? full / 10 : full; }

/* Parses a 0x-prefixed big-endian hex string of up to 64 digits into a plain Fr. */
static int fr_from_hex(gs_fr *out, const char *hex)
{
    uint8_t be[32] = {0};
    size_t n = strlen(hex + 2);
    for (size_t i = 0; i < n; i++) {
        char ch = hex[2 + n - 1 - i];
        int v = ch <= '9' ? ch - '0' : (ch | 0x20) - 'a' + 10;
        be[31 - i / 2] |= (uint8_t)(v << (4 * (i % 2)));
    }
    return gs_fr_from_bytes_be(out, be);
}

GS_TEST(field_fp_axioms)
{
    gs_rng *rng = gs_test_rng();
    for (int i = 0; i < iters(2000); i++) {
        gs_fp a, b, c, t1, t2, t3, one, z;
        gs_fp_random(&a, rng);
        gs_fp_random(&b, rng);
        gs_fp_random(&c, rng);
        gs_fp_one(&one);
        gs_fp_zero(&z);
        /* (a + b) c == a c + b c */
        gs_fp_add(&t1, &a, &b);
        gs_fp_mul(&t1, &t1, &c);
        gs_fp_mul(&t2, &a, &c);
        gs_fp_mul(&t3, &b, &c);
        gs_fp_add(&t2, &t2, &t3);
        GS_CHECK(gs_fp_eq(&t1, &t2));
        /* (a b) c == a (b c) */
        gs_fp_mul(&t1, &a, &b);
        gs_fp_mul(&t1, &t1, &c);
        gs_fp_mul(&t2, &b, &c);
        gs_fp_mul(&t2, &a, &t2);
        GS_CHECK(gs_fp_eq(&t1, &t2));
        /* a - b + b == a, a + (-a) == 0, 2a == a + a, a * 1 == a, a a^-1 == 1 */
        gs_fp_sub(&t1, &a, &b);
        gs_fp_add(&t1, &t1, &b);
        GS_CHECK(gs_fp_eq(&t1, &a));
        gs_fp_neg(&t1, &a);
        gs_fp_add(&t1, &t1, &a);
        GS_CHECK(gs_fp_is_zero(&t1));
        gs_fp_dbl(&t1, &a);
        gs_fp_add(&t2, &a, &a);
        GS_CHECK(gs_fp_eq(&t1, &t2));
        gs_fp_mul(&t1, &a, &one);
        GS_CHECK(gs_fp_eq(&t1, &a));
        gs_fp_inv(&t1, &a);
        gs_fp_mul(&t1, &t1, &a);
        GS_CHECK(gs_fp_eq(&t1, &one) || gs_fp_is_zero(&a));
        gs_fp_inv_var(&t2, &a);
        gs_fp_inv(&t1, &a);
        GS_CHECK(gs_fp_eq(&t1, &t2));
        /* sqrt of a square is a root; lexlargest flips under negation. */
        gs_fp_sqr(&t1, &a);
        GS_REQUIRE(gs_fp_sqrt(&t2, &t1));
        GS_CHECK(gs_fp_eq(&t2, &a) || (gs_fp_neg(&t3, &a), gs_fp_eq(&t2, &t3)));
        gs_fp_neg(&t3, &a);
        if (!gs_fp_is_zero(&a))
            GS_CHECK(gs_fp_is_lexlargest(&a) != gs_fp_is_lexlargest(&t3));
        GS_CHECK(gs_fp_is_zero(&z) && !gs_fp_is_zero(&one));
    }
}

GS_TEST(field_fp_batch_inv)
{
    gs_rng *rng = gs_test_rng();
    enum { M = 600 };
    static gs_fp a[M], b[M];
    gs_fp t;
    for (int i = 0; i < M; i++) {
        if (i % 89 == 5) gs_fp_zero(&a[i]);
        else gs_fp_random(&a[i], rng);
        b[i] = a[i];
    }
    gs_fp_batch_inv_var(b, M);
    for (int i = 0; i < M; i++) {
        gs_fp_inv(&t, &a[i]);
        GS_CHECK(gs_fp_eq(&t, &b[i]));
    }
    gs_fp_batch_inv_var(b, 0);
}

/* The divsteps inversion (fp_divsteps.h, the GPU tree's) on plain limbs
 * against gs_fp_inv: random elements, their unreduced twins a + p (the
 * lazy values a kernel hands it), the largest input 2^383 - 1, the edges
 * 1, 2, p - 1, p - 2, and 0 and p (no inverse: 0 returned, out zeroed). */
static void fp_plain32(uint32_t out[12], const gs_fp *a)
{
    uint64_t w[GS_FP_LIMBS];
    gs_fp_to_plain(w, a);
    for (int i = 0; i < 12; i++) out[i] = (uint32_t)(w[i >> 1] >> (32 * (i & 1)));
}
/* a (12 limbs, < 2^383) mod p as an element. */
static void ds_elem(gs_fp *x, const uint32_t a[12])
{
    uint32_t w[12];
    uint64_t q[GS_FP_LIMBS];
    memcpy(w, a, sizeof w);
    for (;;) {
        for (int i = 0; i < GS_FP_LIMBS; i++) q[i] = (uint64_t)w[2 * i] | (uint64_t)w[2 * i + 1] << 32;
        if (gs_fp_from_plain(x, q)) return;
        int64_t c = 0; /* w >= p: w - p */
        for (int i = 0; i < 12; i++) {
            c += (int64_t)w[i] - (int64_t)gs_ds_p(i);
            w[i] = (uint32_t)c;
            c >>= 32;
        }
    }
}
static void ds_check(const uint32_t a[12], int invertible)
{
    uint32_t r[12];
    GS_CHECK(gs_fp_inv_divsteps(r, a) == invertible);
    if (!invertible) {
        GS_CHECK(gs_ds_is_zero(r));
        return;
    }
    /* r < p, a r = 1, r = gs_fp_inv(a). */
    uint64_t q[GS_FP_LIMBS];
    for (int i = 0; i < GS_FP_LIMBS; i++) q[i] = (uint64_t)r[2 * i] | (uint64_t)r[2 * i + 1] << 32;
    gs_fp x, y, t, one;
    GS_CHECK(gs_fp_from_plain(&y, q));
    ds_elem(&x, a);
    gs_fp_mul(&t, &x, &y);
    gs_fp_one(&one);
    GS_CHECK(gs_fp_eq(&t, &one));
    gs_fp_inv(&t, &x);
    GS_CHECK(gs_fp_eq(&t, &y));
}
GS_TEST(field_fp_inv_divsteps)
{
    gs_rng *rng = gs_test_rng();
    uint32_t a[12], pl[12];
    for (int i = 0; i < 12; i++) pl[i] = gs_ds_p(i);
    const int n = iters(20000);
    for (int k = 0; k < n; k++) {
        gs_fp x;
        gs_fp_random(&x, rng);
        fp_plain32(a, &x);
        ds_check(a, !gs_fp_is_zero(&x));
        /* a + p < 2p < 2^383 */
        uint64_t c = 0;
        for (int i = 0; i < 12; i++) {
            c += (uint64_t)a[i] + pl[i];
            a[i] = (uint32_t)c;
            c >>= 32;
        }
        ds_check(a, !gs_fp_is_zero(&x));
    }
    for (int i = 0; i < 12; i++) a[i] = 0xffffffffu;
    a[11] = 0x7fffffffu; /* 2^383 - 1 */
    ds_check(a, 1);
    static const uint32_t small[] = { 1, 2, 3 };
    for (size_t s = 0; s < sizeof small / sizeof small[0]; s++) {
        memset(a, 0, sizeof a);
        a[0] = small[s];
        ds_check(a, 1);
        /* p - small */
        int64_t c = 0;
        for (int i = 0; i < 12; i++) {
            c += (int64_t)pl[i] - (i == 0 ? small[s] : 0);
            a[i] = (uint32_t)c;
            c >>= 32;
        }
        ds_check(a, 1);
    }
    memset(a, 0, sizeof a);
    ds_check(a, 0);
    ds_check(pl, 0);
    /* 2p: no inverse either */
    uint64_t c = 0;
    for (int i = 0; i < 12; i++) {
        c += (uint64_t)pl[i] * 2;
        a[i] = (uint32_t)c;
        c >>= 32;
    }
    ds_check(a, 0);
}

/* The scratch batch inversions (nonzero inputs) against single inversions. */
GS_TEST(field_batch_inv_nonzero)
{
    gs_rng *rng = gs_test_rng();
    enum { M = 600 };
    static gs_fp a[M], b[M], sa[M];
    static gs_fp2 a2[M], b2[M], s2[M];
    for (int i = 0; i < M; i++) {
        do gs_fp_random(&a[i], rng); while (gs_fp_is_zero(&a[i]));
        do gs_fp2_random(&a2[i], rng); while (gs_fp2_is_zero(&a2[i]));
        if (i % 97 == 7) gs_fp_zero(&a2[i].c1);    /* Fp elements embedded in Fp2 */
        b[i] = a[i];
        b2[i] = a2[i];
    }
    for (int n = 0; n <= M; n += (n < 3 ? 1 : 299)) {
        for (int i = 0; i < n; i++) {
            b[i] = a[i];
            b2[i] = a2[i];
        }
        gs_fp_batch_inv_nonzero_var(b, sa, (size_t)n);
        gs_fp2_batch_inv_nonzero_var(b2, s2, (size_t)n);
        for (int i = 0; i < n; i++) {
            gs_fp t;
            gs_fp2 t2;
            gs_fp_inv(&t, &a[i]);
            gs_fp2_inv(&t2, &a2[i]);
            GS_CHECK_MSG(gs_fp_eq(&t, &b[i]) && gs_fp2_eq(&t2, &b2[i]), "n %d element %d", n, i);
        }
    }
}

/* The inlined subtraction, addition and zero test equal the field's on
 * random and edge values. */
GS_TEST(field_sub_inline_matches_field)
{
    gs_fp v[8];
    gs_fp_zero(&v[0]);
    gs_fp_one(&v[1]);
    gs_fp_neg(&v[2], &v[1]);                 /* p - 1 (Montgomery -1) */
    for (int i = 0; i < GS_FP_LIMBS; i++)
        v[3].l[i] = GS_FP_MODULUS.l[i];
    v[3].l[0] -= 1;                           /* the integer p - 1 */
    for (int i = 4; i < 8; i++)
        gs_fp_random(&v[i], gs_test_rng());
    int ok = 1;
    for (int r = 0; r < 200; r++) {
        for (int i = 0; i < 8; i++)
            for (int j = 0; j < 8; j++) {
                gs_fp want, got;
                gs_fp_sub(&want, &v[i], &v[j]);
                gs_fp_sub_inline(&got, &v[i], &v[j]);
                if (!gs_fp_eq(&want, &got))
                    ok = 0;
                gs_fp_add(&want, &v[i], &v[j]);
                gs_fp_add_inline(&got, &v[i], &v[j]);
                if (!gs_fp_eq(&want, &got))
                    ok = 0;
                if (gs_fp_is_zero_inline(&v[i]) != gs_fp_is_zero(&v[i]))
                    ok = 0;
            }
        for (int i = 4; i < 8; i++)
            gs_fp_random(&v[i], gs_test_rng());
    }
    GS_CHECK(ok);
    gs_fp2 a, b, want, got;
    gs_fp2_random(&a, gs_test_rng());
    gs_fp2_random(&b, gs_test_rng());
    gs_fp2_sub(&want, &a, &b);
    gs_fp2_sub_inline(&got, &a, &b);
    GS_CHECK(gs_fp2_eq(&want, &got));
    gs_fp2_add(&want, &a, &b);
    gs_fp2_add_inline(&got, &a, &b);
    GS_CHECK(gs_fp2_eq(&want, &got));
    GS_CHECK(!gs_fp2_is_zero_inline(&got));
    gs_fp2_sub_inline(&got, &b, &b);
    GS_CHECK(gs_fp2_is_zero(&got));
    GS_CHECK(gs_fp2_is_zero_inline(&got));
}

GS_TEST(field_fp_sqrt_nonresidue)
{
    gs_rng *rng = gs_test_rng();
    gs_fp a, r, m1, one;
    int squares = 0, n = iters(400);
    gs_fp_one(&one);
    gs_fp_neg(&m1, &one);
    /* -1 is a non-residue since p = 3 mod 4. */
    GS_CHECK(!gs_fp_sqrt(&r, &m1));
    GS_CHECK(gs_fp_sqrt(&r, &one));
    GS_CHECK(!gs_fp_is_lexlargest(&one) && gs_fp_is_lexlargest(&m1));
    for (int i = 0; i < n; i++) {
        gs_fp_random(&a, rng);
        int sq = gs_fp_sqrt(&r, &a);
        squares += sq;
        /* Exactly one of a, -a is a square (Euler's criterion). */
        gs_fp_neg(&a, &a);
        GS_CHECK(sq != gs_fp_sqrt(&r, &a) || gs_fp_is_zero(&a));
    }
    /* About half the elements are squares. */
    GS_CHECK(squares > n / 4 && squares < 3 * n / 4);
}

GS_TEST(field_fr_axioms_and_batch_inv)
{
    gs_rng *rng = gs_test_rng();
    enum { M = 700 };
    static gs_fr a[M], b[M];
    gs_fr t, one;
    gs_fr_one(&one);
    GS_CHECK(gs_fr_is_one(&one));
    for (int i = 0; i < M; i++) {
        if (i % 97 == 3) gs_fr_zero(&a[i]);
        else gs_fr_random(&a[i], rng);
        b[i] = a[i];
    }
    gs_fr_batch_inv_var(b, M);
    for (int i = 0; i < M; i++) {
        gs_fr_inv(&t, &a[i]);
        GS_CHECK(gs_fr_eq(&t, &b[i]));
        gs_fr_mul(&t, &t, &a[i]);
        GS_CHECK(gs_fr_is_zero(&a[i]) ? gs_fr_is_zero(&b[i]) : gs_fr_is_one(&t));
    }
    for (int i = 0; i + 2 < M; i++) {
        gs_fr x, y;
        gs_fr_add(&x, &a[i], &a[i + 1]);
        gs_fr_mul(&x, &x, &a[i + 2]);
        gs_fr_mul(&y, &a[i], &a[i + 2]);
        gs_fr_mul(&t, &a[i + 1], &a[i + 2]);
        gs_fr_add(&y, &y, &t);
        GS_CHECK(gs_fr_eq(&x, &y));
        gs_fr_sub(&x, &a[i], &a[i + 1]);
        gs_fr_neg(&y, &a[i + 1]);
        gs_fr_add(&y, &y, &a[i]);
        GS_CHECK(gs_fr_eq(&x, &y));
        gs_scalar s;
        gs_fr_to_scalar(&s, &a[i]);
        GS_CHECK(gs_fr_from_scalar(&x, &s) && gs_fr_eq(&x, &a[i]));
    }
    gs_scalar big = {{GS_FR_MODULUS.l[0], GS_FR_MODULUS.l[1], GS_FR_MODULUS.l[2],
                      GS_FR_MODULUS.l[3]}};
    GS_CHECK(!gs_fr_from_scalar(&t, &big));
}

/* from_bytes_wide(lo || hi) == lo + hi * 2^256 computed in Fr. */
GS_TEST(field_fr_from_bytes_wide)
{
    gs_rng *rng = gs_test_rng();
    gs_fr two128, two256, lo, hi, want, got, t;
    uint64_t e = 128;
    gs_fr_set_u64(&t, 2);
    gs_fr_pow(&two128, &t, &e, 1);
    gs_fr_sqr(&two256, &two128);
    for (int i = 0; i < iters(2000); i++) {
        uint8_t in[64];
        gs_rng_bytes(rng, in, sizeof in);
        if (i == 0) memset(in, 0xff, sizeof in);
        if (i == 1) memset(in, 0, sizeof in);
        /* lo and hi as Fr by halves of 128 bits, which are always < r. */
        gs_fr parts[4];
        for (int k = 0; k < 4; k++) {
            uint64_t pl[4] = {0};
            memcpy(pl, in + 16 * k, 16);
            GS_REQUIRE(gs_fr_from_plain(&parts[k], pl));
        }
        gs_fr_mul(&lo, &parts[1], &two128);
        gs_fr_add(&lo, &lo, &parts[0]);
        gs_fr_mul(&hi, &parts[3], &two128);
        gs_fr_add(&hi, &hi, &parts[2]);
        gs_fr_mul(&want, &hi, &two256);
        gs_fr_add(&want, &want, &lo);
        gs_fr_from_bytes_wide(&got, in);
        GS_CHECK(gs_fr_eq(&got, &want));
    }
}

GS_TEST(field_fr_roots_of_unity_snarkjs)
{
    static const struct { unsigned k; const char *hex; } known[] = {
        {32, "0x0212d79e5b416b6f0fd56dc8d168d6c0c4024ff270b3e0941b788f500b912f1f"},
        {17, "0x05deb333f8727901ebe905bd4fb9ac5c77d85a937ff858ec10251f7d8831e03e"},
        {11, "0x43527a8bca252472eb674a1a620890d7a534af14b61e0abe74a1f6718c130477"},
    };
    gs_fr w, want, t, one, m1;
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++) {
        GS_REQUIRE(fr_from_hex(&want, known[i].hex));
        gs_fr_root_of_unity(&w, known[i].k);
        GS_CHECK_MSG(gs_fr_eq(&w, &want), "w_(2^%u) differs from snarkjs", known[i].k);
    }
    gs_fr_one(&one);
    gs_fr_neg(&m1, &one);
    gs_fr_root_of_unity(&w, 0);
    GS_CHECK(gs_fr_is_one(&w));
    gs_fr_root_of_unity(&w, 1);
    GS_CHECK(gs_fr_eq(&w, &m1));
    for (unsigned k = 1; k <= GS_FR_TWO_ADICITY; k++) {
        gs_fr prev;
        gs_fr_root_of_unity(&w, k);
        gs_fr_root_of_unity(&prev, k - 1);
        gs_fr_sqr(&t, &w);
        GS_CHECK(gs_fr_eq(&t, &prev)); /* w_(2^k)^2 == w_(2^(k-1)) */
        /* primitive: w^(2^(k-1)) == -1 */
        t = w;
        for (unsigned j = 1; j < k; j++) gs_fr_sqr(&t, &t);
        GS_CHECK(gs_fr_eq(&t, &m1));
    }
}

GS_TEST(field_decimal_text)
{
    gs_fr a;
    gs_fp b;
    char buf[128];
    GS_CHECK(gs_fr_from_dec(&a, "0") && gs_fr_is_zero(&a));
    gs_fr_to_dec(buf, sizeof buf, &a);
    GS_CHECK(strcmp(buf, "0") == 0);
    GS_CHECK(gs_fr_from_dec(&a, "00012345678901234567890"));
    gs_fr_to_dec(buf, sizeof buf, &a);
    GS_CHECK(strcmp(buf, "12345678901234567890") == 0);
    GS_CHECK(!gs_fr_from_dec(&a, ""));
    GS_CHECK(!gs_fr_from_dec(&a, "-1"));
    GS_CHECK(!gs_fr_from_dec(&a, "12a"));
    GS_CHECK(!gs_fr_from_dec(&a, " 1"));
    /* r itself and r - 1 */
    GS_CHECK(!gs_fr_from_dec(&a, "52435875175126190479447740508185965837690552500527637822603658699938581184513"));
    GS_CHECK(gs_fr_from_dec(&a, "52435875175126190479447740508185965837690552500527637822603658699938581184512"));
    gs_fr_add(&a, &a, &(gs_fr){{0}});
    gs_fr one;
    gs_fr_one(&one);
    gs_fr_add(&a, &a, &one);
    GS_CHECK(gs_fr_is_zero(&a));
    /* 2^400 does not fit */
    GS_CHECK(!gs_fp_from_dec(&b, "2582249878086908589655919172003011874329705792829223512830659356540647622016841194629645353280137831435903171972747493376"));
    GS_CHECK(gs_fp_from_dec(&b, "4002409555221667393417789825735904156556882819939007885332058136124031650490837864442687629129015664037894272559786"));
    gs_fp_to_dec(buf, sizeof buf, &b);
    GS_CHECK(strcmp(buf, "4002409555221667393417789825735904156556882819939007885332058136124031650490837864442687629129015664037894272559786") == 0);
    GS_CHECK(!gs_fp_from_dec(&b, "4002409555221667393417789825735904156556882819939007885332058136124031650490837864442687629129015664037894272559787"));
}
