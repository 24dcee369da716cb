/*
 * Fp and Fr checked against GMP (a test oracle only): every operation on
 * random inputs (100,000 per operation, 10,000 with --quick) and on the edge
 * values 0, 1, 2, m-1, m-2, (m-1)/2, (m+1)/2, plus range checks of every
 * decoder.  The Montgomery representation itself is checked too: the limbs
 * of a must equal plain(a) * R mod m.
 */
#include "field.h"

#include <stdlib.h>
#include <string.h>

#include "../../test/test.h"

#ifdef GS_HAVE_GMP
#include <gmp.h>

/* One field described generically so both fields share the harness. */
typedef struct {
    const char *name;
    int limbs;
    unsigned rbits; /* log2 R */
    void (*to_plain)(uint64_t *out, const void *a);
    int (*from_plain)(void *out, const uint64_t *plain);
    void (*add)(void *, const void *, const void *);
    void (*sub)(void *, const void *, const void *);
    void (*mul)(void *, const void *, const void *);
    void (*sqr)(void *, const void *);
    void (*neg)(void *, const void *);
    void (*dbl)(void *, const void *);
    void (*inv)(void *, const void *);
    void (*inv_var)(void *, const void *);
    void (*pow)(void *, const void *, const uint64_t *, size_t);
    void (*random)(void *, gs_rng *);
    void (*to_le)(uint8_t *, const void *);
    void (*to_be)(uint8_t *, const void *);
    int (*from_le)(void *, const uint8_t *);
    int (*from_be)(void *, const uint8_t *);
    void (*to_dec)(char *, size_t, const void *);
    int (*from_dec)(void *, const char *);
    int (*eq)(const void *, const void *);
    int (*is_zero)(const void *);
    void (*set_u64)(void *, uint64_t);
    int (*sqrt)(void *, const void *);      /* NULL for Fr */
    int (*lexlargest)(const void *);        /* NULL for Fr */
    const uint64_t *modulus;
} field_ops;

#define W(f) ((void *)(f))
static const field_ops FP = {
    "Fp", GS_FP_LIMBS, 384,
    W(gs_fp_to_plain), W(gs_fp_from_plain), W(gs_fp_add), W(gs_fp_sub), W(gs_fp_mul),
    W(gs_fp_sqr), W(gs_fp_neg), W(gs_fp_dbl), W(gs_fp_inv), W(gs_fp_inv_var), W(gs_fp_pow),
    W(gs_fp_random), W(gs_fp_to_bytes_le), W(gs_fp_to_bytes_be), W(gs_fp_from_bytes_le),
    W(gs_fp_from_bytes_be), W(gs_fp_to_dec), W(gs_fp_from_dec), W(gs_fp_eq), W(gs_fp_is_zero), W(gs_fp_set_u64), W(gs_fp_sqrt),
    W(gs_fp_is_lexlargest), GS_FP_MODULUS.l};
static const field_ops FR = {
    "Fr", GS_FR_LIMBS, 256,
    W(gs_fr_to_plain), W(gs_fr_from_plain), W(gs_fr_add), W(gs_fr_sub), W(gs_fr_mul),
    W(gs_fr_sqr), W(gs_fr_neg), W(gs_fr_dbl), W(gs_fr_inv), W(gs_fr_inv_var), W(gs_fr_pow),
    W(gs_fr_random), W(gs_fr_to_bytes_le), W(gs_fr_to_bytes_be), W(gs_fr_from_bytes_le),
    W(gs_fr_from_bytes_be), W(gs_fr_to_dec), W(gs_fr_from_dec), W(gs_fr_eq), W(gs_fr_is_zero), W(gs_fr_set_u64), NULL, NULL,
    GS_FR_MODULUS.l};

typedef struct { uint64_t l[6]; } elem; /* large enough for both fields */

static void limbs_to_mpz(mpz_t z, const uint64_t *l, int n)
{
    mpz_import(z, (size_t)n, -1, 8, 0, 0, l);
}

static void mpz_to_limbs(uint64_t *l, const mpz_t z, int n)
{
    size_t cnt = 0;
    memset(l, 0, (size_t)n * 8);
    mpz_export(l, &cnt, -1, 8, 0, 0, z);
}

/* plain value of a field element as an mpz. */
static void elem_mpz(const field_ops *F, mpz_t z, const elem *a)
{
    uint64_t t[6];
    F->to_plain(t, a);
    limbs_to_mpz(z, t, F->limbs);
}

static void mpz_elem(const field_ops *F, elem *a, const mpz_t z)
{
    uint64_t t[6];
    mpz_to_limbs(t, z, F->limbs);
    memset(a, 0, sizeof *a);
    int ok = F->from_plain(a, t);
    GS_CHECK(ok);
}

/* Edge value k of the list, or a random element. */
static void sample(const field_ops *F, elem *a, mpz_t m, int idx, gs_rng *rng)
{
    mpz_t z;
    mpz_init(z);
    switch (idx) {
    case 0: mpz_set_ui(z, 0); break;
    case 1: mpz_set_ui(z, 1); break;
    case 2: mpz_set_ui(z, 2); break;
    case 3: mpz_sub_ui(z, m, 1); break;
    case 4: mpz_sub_ui(z, m, 2); break;
    case 5: mpz_sub_ui(z, m, 1); mpz_fdiv_q_2exp(z, z, 1); break;
    case 6: mpz_add_ui(z, m, 1); mpz_fdiv_q_2exp(z, z, 1); break;
    default:
        memset(a, 0, sizeof *a);
        F->random(a, rng);
        mpz_clear(z);
        return;
    }
    mpz_elem(F, a, z);
    mpz_clear(z);
}
#define N_EDGE 7

static void check_field(const field_ops *F)
{
    gs_rng *rng = gs_test_rng();
    long iters = gs_test_quick() ? 10000 : 100000;
    mpz_t m, x, y, e, got, R, t;
    mpz_inits(m, x, y, e, got, R, t, NULL);
    limbs_to_mpz(m, F->modulus, F->limbs);
    mpz_set_ui(R, 1);
    mpz_mul_2exp(R, R, F->rbits);
    mpz_mod(R, R, m);
    int nbytes = F->limbs * 8;
    long fails = 0;

    for (long it = 0; it < iters + N_EDGE * N_EDGE && fails < 20; it++) {
        elem a, b, c;
        int ia = it < N_EDGE * N_EDGE ? (int)(it / N_EDGE) : N_EDGE;
        int ib = it < N_EDGE * N_EDGE ? (int)(it % N_EDGE) : N_EDGE;
        sample(F, &a, m, ia, rng);
        sample(F, &b, m, ib, rng);
        elem_mpz(F, x, &a);
        elem_mpz(F, y, &b);
        long before = gs_test_failures();

        /* Representation: limbs(a) == plain(a) * R mod m. */
        mpz_mul(e, x, R);
        mpz_mod(e, e, m);
        limbs_to_mpz(got, a.l, F->limbs);
        GS_CHECK_MSG(mpz_cmp(e, got) == 0, "%s: Montgomery limbs", F->name);
        GS_CHECK(mpz_cmp(x, m) < 0);

#define CHECK_OP(label, call, expr)                                        \
    do {                                                                   \
        memset(&c, 0, sizeof c);                                           \
        call;                                                              \
        expr;                                                              \
        mpz_mod(e, e, m);                                                  \
        elem_mpz(F, got, &c);                                              \
        GS_CHECK_MSG(mpz_cmp(e, got) == 0, "%s %s wrong (iteration %ld)",  \
                     F->name, label, it);                                  \
    } while (0)

        CHECK_OP("add", F->add(&c, &a, &b), mpz_add(e, x, y));
        CHECK_OP("sub", F->sub(&c, &a, &b), mpz_sub(e, x, y));
        CHECK_OP("mul", F->mul(&c, &a, &b), mpz_mul(e, x, y));
        CHECK_OP("sqr", F->sqr(&c, &a), mpz_mul(e, x, x));
        CHECK_OP("neg", F->neg(&c, &a), mpz_neg(e, x));
        CHECK_OP("dbl", F->dbl(&c, &a), mpz_mul_2exp(e, x, 1));
        /* Aliasing: out == in. */
        c = a;
        F->mul(&c, &c, &b);
        mpz_mul(e, x, y);
        mpz_mod(e, e, m);
        elem_mpz(F, got, &c);
        GS_CHECK_MSG(mpz_cmp(e, got) == 0, "%s mul aliased", F->name);
        if (mpz_sgn(x) == 0) mpz_set_ui(e, 0);
        else mpz_invert(e, x, m);
        CHECK_OP("inv", F->inv(&c, &a), (void)0);
        CHECK_OP("inv_var", F->inv_var(&c, &a), (void)0);
        uint64_t ex[2] = {gs_rng_u64(rng), gs_rng_u64(rng)};
        if (it % 50 < 4) { /* exponents 0, 1, 2^64, and a short one */
            ex[0] = it % 50 == 1 ? 1 : it % 50 == 3 ? 13 : 0;
            ex[1] = it % 50 == 2 ? 1 : 0;
        }
        limbs_to_mpz(t, ex, 2);
        CHECK_OP("pow", F->pow(&c, &a, ex, 2), mpz_powm(e, x, t, m));
        if (F->sqrt) {
            /* sqrt succeeds exactly on squares (Legendre symbol) and squares
             * back to the input; lexlargest is plain > (m-1)/2. */
            int sq = mpz_sgn(x) == 0 || mpz_legendre(x, m) == 1;
            memset(&c, 0, sizeof c);
            int got_sq = F->sqrt(&c, &a);
            GS_CHECK_MSG(got_sq == sq, "%s sqrt existence (iteration %ld)", F->name, it);
            if (got_sq) {
                elem_mpz(F, got, &c);
                mpz_mul(e, got, got);
                mpz_mod(e, e, m);
                GS_CHECK_MSG(mpz_cmp(e, x) == 0, "%s sqrt value", F->name);
            }
            mpz_sub_ui(t, m, 1);
            mpz_fdiv_q_2exp(t, t, 1);
            GS_CHECK_MSG(F->lexlargest(&a) == (mpz_cmp(x, t) > 0), "%s lexlargest", F->name);
        }
        GS_CHECK(F->is_zero(&a) == (mpz_sgn(x) == 0));
        GS_CHECK(F->eq(&a, &b) == (mpz_cmp(x, y) == 0));
        uint64_t small = gs_rng_u64(rng);
        mpz_import(e, 1, -1, 8, 0, 0, &small);
        CHECK_OP("set_u64", F->set_u64(&c, small), (void)0);

        /* Encodings: bytes and decimal text of the plain value. */
        uint8_t le[48], be[48], ref[48];
        char dec[128], *refdec;
        F->to_le(le, &a);
        F->to_be(be, &a);
        memset(ref, 0, sizeof ref);
        size_t cnt = 0;
        mpz_export(ref, &cnt, -1, 1, 0, 0, x);
        GS_CHECK_MSG(memcmp(le, ref, (size_t)nbytes) == 0, "%s to_bytes_le", F->name);
        for (int i = 0; i < nbytes; i++) GS_CHECK(be[i] == le[nbytes - 1 - i]);
        memset(&c, 0, sizeof c);
        GS_CHECK(F->from_le(&c, le) == 1 && F->eq(&c, &a));
        memset(&c, 0, sizeof c);
        GS_CHECK(F->from_be(&c, be) == 1 && F->eq(&c, &a));
        F->to_dec(dec, sizeof dec, &a);
        refdec = mpz_get_str(NULL, 10, x);
        GS_CHECK_MSG(strcmp(dec, refdec) == 0, "%s to_dec %s != %s", F->name, dec, refdec);
        memset(&c, 0, sizeof c);
        GS_CHECK(F->from_dec(&c, refdec) == 1 && F->eq(&c, &a));
        free(refdec);

        if (gs_test_failures() != before) fails++;
    }

    /* Decoders reject m, m+1, m + random, 2^(bits)-1 and out-of-range text. */
    for (int k = 0; k < 200; k++) {
        uint8_t le[48] = {0}, be[48];
        uint64_t pl[6];
        elem c = {{0}};
        if (k == 0) mpz_set(e, m);
        else if (k == 1) mpz_add_ui(e, m, 1);
        else if (k == 2) { mpz_set_ui(e, 1); mpz_mul_2exp(e, e, (mp_bitcnt_t)nbytes * 8); mpz_sub_ui(e, e, 1); }
        else {
            uint64_t rnd[6];
            for (int i = 0; i < 6; i++) rnd[i] = gs_rng_u64(rng);
            limbs_to_mpz(e, rnd, F->limbs);
            if (mpz_cmp(e, m) < 0) mpz_add(e, e, m);
            mpz_set_ui(t, 1);
            mpz_mul_2exp(t, t, (mp_bitcnt_t)nbytes * 8);
            if (mpz_cmp(e, t) >= 0) mpz_set(e, m);
        }
        size_t cnt = 0;
        mpz_export(le, &cnt, -1, 1, 0, 0, e);
        for (int i = 0; i < nbytes; i++) be[i] = le[nbytes - 1 - i];
        mpz_to_limbs(pl, e, F->limbs);
        GS_CHECK(F->from_le(&c, le) == 0);
        GS_CHECK(F->from_be(&c, be) == 0);
        GS_CHECK(F->from_plain(&c, pl) == 0);
        char *s = mpz_get_str(NULL, 10, e);
        GS_CHECK(F->from_dec(&c, s) == 0);
        free(s);
    }
    mpz_clears(m, x, y, e, got, R, t, NULL);
}

GS_TEST(field_fp_vs_gmp) { check_field(&FP); }

/* Fr-only operations: 64-byte wide reduction, batch inversion, scalars. */
GS_TEST(field_fr_wide_batch_vs_gmp)
{
    gs_rng *rng = gs_test_rng();
    long iters = gs_test_quick() ? 10000 : 100000;
    enum { B = 300 };
    static gs_fr batch[B], orig[B];
    mpz_t m, x, e, got;
    mpz_inits(m, x, e, got, NULL);
    limbs_to_mpz(m, GS_FR_MODULUS.l, GS_FR_LIMBS);
    for (long it = 0; it < iters; it++) {
        uint8_t in[64];
        gs_fr c;
        uint64_t pl[4];
        gs_rng_bytes(rng, in, sizeof in);
        if (it == 0) memset(in, 0xff, sizeof in);
        if (it == 1) memset(in, 0, sizeof in);
        mpz_import(x, 64, -1, 1, 0, 0, in);
        mpz_mod(e, x, m);
        gs_fr_from_bytes_wide(&c, in);
        gs_fr_to_plain(pl, &c);
        limbs_to_mpz(got, pl, 4);
        GS_CHECK_MSG(mpz_cmp(e, got) == 0, "from_bytes_wide (iteration %ld)", it);
        gs_scalar sc;
        gs_fr_to_scalar(&sc, &c);
        limbs_to_mpz(got, sc.l, 4);
        GS_CHECK(mpz_cmp(e, got) == 0);
        batch[it % B] = orig[it % B] = c;
        if (it % 17 == 0) gs_fr_zero(&batch[it % B]), gs_fr_zero(&orig[it % B]);
        if (it % B == B - 1) {
            gs_fr_batch_inv_var(batch, B);
            for (int i = 0; i < B; i++) {
                gs_fr_to_plain(pl, &orig[i]);
                limbs_to_mpz(x, pl, 4);
                if (mpz_sgn(x) == 0) mpz_set_ui(e, 0);
                else mpz_invert(e, x, m);
                gs_fr_to_plain(pl, &batch[i]);
                limbs_to_mpz(got, pl, 4);
                GS_CHECK_MSG(mpz_cmp(e, got) == 0, "batch_inv_var element %d", i);
            }
        }
    }
    mpz_clears(m, x, e, got, NULL);
}
GS_TEST(field_fr_vs_gmp) { check_field(&FR); }

#else
GS_TEST(field_fp_vs_gmp) { gs_test_skip("GMP not available (install libgmp-dev)"); }
GS_TEST(field_fr_vs_gmp) { gs_test_skip("GMP not available (install libgmp-dev)"); }
GS_TEST(field_fr_wide_batch_vs_gmp) { gs_test_skip("GMP not available (install libgmp-dev)"); }
#endif
