/* MSM tests: signed digits, naive double-and-add oracle, splits, threads. */
#include "msm_internal.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "../../test/test.h"

/* ---- signed digits (no curve needed) ------------------------------------ */

/* sum_{j < nw} d_j 2^(jc) mod r, computed in Fr. */
static void recompose(gs_fr *out, const gs_scalar *k, unsigned c, unsigned nw)
{
    gs_fr acc, two_c, t;
    uint64_t e = 1ull << c;
    gs_fr_zero(&acc);
    gs_fr_set_u64(&two_c, e);
    for (unsigned j = nw; j-- > 0;) {
        int64_t d = gs_msm_digit(k, j, c);
        gs_fr_mul(&acc, &acc, &two_c);
        gs_fr_set_u64(&t, (uint64_t)(d < 0 ? -d : d));
        if (d < 0)
            gs_fr_sub(&acc, &acc, &t);
        else
            gs_fr_add(&acc, &acc, &t);
    }
    *out = acc;
}

/* k mod r as an Fr (k any 256-bit value): Horner over the limbs in base
 * 2^64 = (2^64 - 1) + 1. */
static void scalar_mod_r(gs_fr *out, const gs_scalar *k)
{
    gs_fr acc, t, base, one;
    gs_fr_set_u64(&base, UINT64_MAX);
    gs_fr_one(&one);
    gs_fr_add(&base, &base, &one);
    gs_fr_zero(&acc);
    for (int i = GS_FR_LIMBS; i-- > 0;) {
        gs_fr_mul(&acc, &acc, &base);
        gs_fr_set_u64(&t, k->l[i]);
        gs_fr_add(&acc, &acc, &t);
    }
    *out = acc;
}

GS_TEST(msm_signed_digits_recompose)
{
    gs_scalar ks[40];
    memset(ks, 0, sizeof ks);
    ks[1].l[0] = 1;
    for (int i = 0; i < 4; i++) {
        ks[2].l[i] = UINT64_MAX;              /* 2^256 - 1 */
        ks[3].l[i] = GS_FR_MODULUS.l[i];      /* r */
    }
    ks[3].l[0] -= 1;                          /* r - 1 */
    ks[4].l[3] = 1ull << 63;                  /* 2^255 */
    for (int i = 5; i < 40; i++)
        gs_rng_bytes(gs_test_rng(), &ks[i], sizeof ks[i]);
    int ok = 1, range_ok = 1;
    for (unsigned c = 1; c <= GS_MSM_MAX_WINDOW; c++) {
        for (int i = 0; i < 40; i++) {
            gs_fr want, got;
            scalar_mod_r(&want, &ks[i]);
            recompose(&got, &ks[i], c, (257 + c - 1) / c);
            if (!gs_fr_eq(&want, &got))
                ok = 0;
            for (unsigned j = 0; j < (257 + c - 1) / c; j++) {
                int64_t d = gs_msm_digit(&ks[i], j, c);
                if (d > (1ll << (c - 1)) || d < -(1ll << (c - 1)))
                    range_ok = 0;
            }
        }
    }
    GS_CHECK(ok);
    GS_CHECK(range_ok);
    /* Below 2^255, ceil(256/c) windows suffice (and the top digit's carry
     * never needs another window). */
    int ok255 = 1;
    for (unsigned c = 1; c <= GS_MSM_MAX_WINDOW; c++) {
        unsigned nw = (256 + c - 1) / c;
        for (int i = 0; i < 40; i++) {
            gs_scalar k = ks[i];
            k.l[3] &= ~(1ull << 63);
            if (i == 2)
                k.l[3] = (1ull << 63) - 1;        /* 2^255 - 1 */
            gs_fr want, acc;
            scalar_mod_r(&want, &k);
            recompose(&acc, &k, c, nw);
            if (!gs_fr_eq(&want, &acc))
                ok255 = 0;
        }
    }
    GS_CHECK(ok255);
    /* The plan's windows (the top ones one bit narrower, msm_plan.c) tile
     * bits + 1 bits (257 for any 256-bit scalar, 256 below 2^255, fewer for
     * short scalars) and recompose every scalar below 2^bits. */
    static const unsigned bit_lens[] = {256, 255, 254, 129, 128, 127, 65, 64, 13, 2, 1, 0};
    int okplan = 1;
    for (unsigned c = 1; c <= GS_MSM_MAX_WINDOW; c++) {
        for (size_t bl = 0; bl < sizeof bit_lens / sizeof bit_lens[0]; bl++) {
            unsigned bits = bit_lens[bl];
            gs_msm_cfg cfg = {.window = c};
            msm_plan p;
            gs_msm_plan(&p, 1000, 1, bits, &cfg);
            unsigned top = msm_win_pos(&p, p.n_windows - 1) + msm_win_bits(&p, p.n_windows - 1);
            if (top < bits + 1 || top > bits + c || (c > 1 && p.n_windows * (c - 1) > bits + c))
                okplan = 0;
            if ((bits == 255 || bits == 256) && (top != bits + 1 || p.n_wide < 1))
                okplan = 0;
            for (int i = 0; i < 40; i++) {
                gs_scalar k = ks[i];
                for (unsigned l = 0; l < GS_FR_LIMBS; l++) {
                    unsigned lo = 64 * l;
                    if (bits <= lo)
                        k.l[l] = 0;
                    else if (bits < lo + 64)
                        k.l[l] &= (1ull << (bits - lo)) - 1;
                }
                if (i == 2 && bits)   /* 2^bits - 1: every bit set */
                    for (unsigned l = 0; l < GS_FR_LIMBS; l++)
                        k.l[l] = bits >= 64 * l + 64 ? ~0ull
                                 : bits > 64 * l     ? (1ull << (bits - 64 * l)) - 1
                                                     : 0;
                GS_CHECK(gs_msm_scalar_bits(&k, 1) <= bits);
                gs_fr want, acc, t, two;
                scalar_mod_r(&want, &k);
                gs_fr_zero(&acc);
                gs_fr_set_u64(&two, 2);
                for (unsigned j = p.n_windows; j-- > 0;) {
                    for (unsigned b = 0; b < msm_win_bits(&p, j); b++)
                        gs_fr_mul(&acc, &acc, &two);
                    int64_t d = gs_msm_digit_at(&k, msm_win_pos(&p, j), msm_win_bits(&p, j));
                    if (d > (1ll << (msm_win_bits(&p, j) - 1)) || -d > (1ll << (msm_win_bits(&p, j) - 1)))
                        okplan = 0;
                    gs_fr_set_u64(&t, (uint64_t)(d < 0 ? -d : d));
                    if (d < 0)
                        gs_fr_sub(&acc, &acc, &t);
                    else
                        gs_fr_add(&acc, &acc, &t);
                }
                if (!gs_fr_eq(&want, &acc))
                    okplan = 0;
            }
        }
    }
    GS_CHECK(okplan);
    /* A known recoding: 7 with c = 2 is 2^2*2 - 1 = 8 - 1, digits -1, 2. */
    gs_scalar seven = {{7, 0, 0, 0}};
    GS_CHECK_EQ_INT(gs_msm_digit(&seven, 0, 2), -1);
    GS_CHECK_EQ_INT(gs_msm_digit(&seven, 1, 2), 2);
    GS_CHECK_EQ_INT(gs_msm_digit(&seven, 2, 2), 0);
}

GS_TEST(msm_plan_shapes)
{
    msm_plan p;
    gs_msm_plan(&p, 0, 4, 256, NULL);
    GS_CHECK(p.n_tasks >= 1);
    for (size_t n = 1; n < 100000; n = n * 3 + 1) {
        for (unsigned w = 1; w <= 8; w *= 2) {
            gs_msm_plan(&p, n, w, 256, NULL);
            GS_CHECK(p.c >= 1 && p.c <= GS_MSM_MAX_WINDOW);
            GS_CHECK(p.n_windows * p.c >= 257);
            gs_msm_plan(&p, n, w, 255, NULL);
            GS_CHECK(p.n_windows * p.c >= 256);
            gs_msm_plan(&p, n, w, 128, NULL);
            GS_CHECK(p.n_windows * p.c >= 129 && p.n_windows * p.c < 129 + 2 * p.c);
            GS_CHECK(p.n_parts >= 1 && p.n_parts * p.part_len >= n);
            GS_CHECK((p.n_parts - 1) * p.part_len < n);
        }
    }
    GS_CHECK_EQ_INT(gs_msm_window_for(1u << 16), 13);
    /* c = 16: 16 windows for scalars below 2^255, 17 otherwise. */
    gs_msm_cfg c16 = {.window = 16};
    gs_msm_plan(&p, 1u << 20, 2, 255, &c16);
    GS_CHECK_EQ_INT(p.n_windows, 16);
    gs_msm_plan(&p, 1u << 20, 2, 256, &c16);
    GS_CHECK_EQ_INT(p.n_windows, 17);
    /* 128-bit scalars (halves of a split scalar): 129 bits, 9 windows. */
    gs_msm_plan(&p, 1u << 20, 2, 128, &c16);
    GS_CHECK_EQ_INT(p.n_windows, 9);
    gs_scalar k2[2] = {{{5, 0, 0, 0}}, {{0, 1ull << 7, 0, 0}}};
    GS_CHECK_EQ_INT(gs_msm_scalar_bits(k2, 2), 72);
    GS_CHECK_EQ_INT(gs_msm_scalar_bits(k2, 1), 3);
}

/* ---- G1 / G2 against double-and-add ------------------------------------ */

#define NAIVE(G, AFF, JAC)                                                    \
    static void naive_##G(JAC *out, const AFF *pts, const gs_scalar *ks, size_t n) \
    {                                                                         \
        gs_##G##_set_inf(out);                                                \
        for (size_t i = 0; i < n; i++) {                                      \
            JAC p, acc;                                                       \
            gs_##G##_from_affine(&p, &pts[i]);                                \
            gs_##G##_set_inf(&acc);                                           \
            for (int b = 255; b >= 0; b--) {                                  \
                gs_##G##_dbl(&acc, &acc);                                     \
                if ((ks[i].l[b / 64] >> (b % 64)) & 1)                        \
                    gs_##G##_add(&acc, &acc, &p);                             \
            }                                                                 \
            gs_##G##_add(out, out, &acc);                                     \
        }                                                                     \
    }
NAIVE(g1, gs_g1_affine, gs_g1)
NAIVE(g2, gs_g2_affine, gs_g2)

static void rand_scalar(gs_scalar *k)
{
    gs_fr f;
    gs_fr_random(&f, gs_test_rng());
    gs_fr_to_scalar(k, &f);
}

/* Scalar i of a test vector: edge values first, then random. */
static void test_scalar(gs_scalar *k, size_t i)
{
    memset(k, 0, sizeof *k);
    switch (i % 7) {
    case 0: rand_scalar(k); break;
    case 1: k->l[0] = 1; break;
    case 2: memcpy(k->l, GS_FR_MODULUS.l, sizeof k->l); k->l[0] -= 1; break; /* r - 1 */
    case 3: break;                                                         /* 0 */
    default: rand_scalar(k); break;
    }
}

/* Test points: random multiples of the generator, with repeats, a
 * negation and infinities mixed in. */
#define MAKE_POINTS(G, AFF, JAC)                                              \
    static AFF *points_##G(size_t n)                                          \
    {                                                                         \
        JAC *j = malloc((n ? n : 1) * sizeof *j);                             \
        AFF *a = malloc((n ? n : 1) * sizeof *a);                             \
        if (!j || !a) {                                                       \
            free(j);                                                          \
            free(a);                                                          \
            return NULL;                                                      \
        }                                                                     \
        JAC g;                                                                \
        gs_##G##_generator(&g);                                               \
        for (size_t i = 0; i < n; i++) {                                      \
            gs_scalar k;                                                      \
            rand_scalar(&k);                                                  \
            gs_##G##_mul_var(&j[i], &g, &k);                                  \
        }                                                                     \
        gs_##G##_batch_to_affine(a, j, n);                                    \
        for (size_t i = 5; i < n; i += 5)                                     \
            a[i] = a[i - 3];               /* repeated point */               \
        for (size_t i = 7; i < n; i += 11)                                    \
            gs_##G##_affine_neg(&a[i], &a[i - 1]);   /* P and -P */           \
        for (size_t i = 9; i < n; i += 13)                                    \
            gs_##G##_affine_set_inf(&a[i]);                                   \
        free(j);                                                              \
        return a;                                                             \
    }
MAKE_POINTS(g1, gs_g1_affine, gs_g1)
MAKE_POINTS(g2, gs_g2_affine, gs_g2)

#define SMALL_TEST(G, AFF, JAC, MAXN)                                          \
    GS_TEST(msm_##G##_equals_naive_small)                                      \
    {                                                                          \
        gs_pool *pool;                                                         \
        GS_REQUIRE(gs_pool_create(&pool, 2, NULL) == GS_OK);                   \
        size_t maxn = MAXN;                                                    \
        AFF *pts = points_##G(maxn);                                           \
        gs_scalar *ks = malloc(maxn * sizeof *ks);                             \
        GS_REQUIRE(pts && ks);                                                 \
        for (size_t i = 0; i < maxn; i++)                                      \
            test_scalar(&ks[i], i);                                            \
        for (size_t n = 0; n <= maxn; n++) {                                   \
            JAC want, got;                                                     \
            naive_##G(&want, pts, ks, n);                                      \
            GS_CHECK_OK(gs_msm_##G(&got, pts, ks, n, n % 2 ? pool : NULL));    \
            GS_CHECK_MSG(gs_##G##_eq(&got, &want), #G " msm != naive at n=%zu", n); \
        }                                                                      \
        /* Every window size, and split point ranges, on the full vector. */   \
        JAC want;                                                              \
        naive_##G(&want, pts, ks, maxn);                                       \
        for (unsigned c = 1; c <= GS_MSM_MAX_WINDOW; c++) {                    \
            gs_msm_cfg cfg = {.window = c, .parts = 1 + c % 4, .group = c % 2};   \
            JAC got;                                                           \
            GS_CHECK_OK(gs_msm_##G##_cfg(&got, pts, ks, maxn, pool, &cfg));    \
            GS_CHECK_MSG(gs_##G##_eq(&got, &want), #G " msm window %u", c);    \
        }                                                                      \
        /* Batch-affine buckets forced on small and tiny windows and batches  \
         * (constant bucket collisions, spills, P + P and P - P in a batch),   \
         * and XYZZ buckets forced on a batch-affine window. */                \
        static const unsigned bw[] = {1, 2, 3, 5, 9, 13};                      \
        static const size_t bb[] = {1, 2, 3, 4, 16, 200};                      \
        for (size_t wi = 0; wi < sizeof bw / sizeof bw[0]; wi++)               \
            for (size_t bi = 0; bi < sizeof bb / sizeof bb[0]; bi++) {         \
                gs_msm_cfg cfg = {.window = bw[wi], .parts = 1 + bi % 3, .batch = bb[bi], .group = 1}; \
                JAC got;                                                       \
                GS_CHECK_OK(gs_msm_##G##_cfg(&got, pts, ks, maxn, bi % 2 ? pool : NULL, &cfg)); \
                GS_CHECK_MSG(gs_##G##_eq(&got, &want), #G " msm window %u batch %zu", \
                             bw[wi], bb[bi]);                                  \
            }                                                                  \
        /* A scalar >= 2^255 (all ones) needs the extra window of c = 8, 16. */ \
        {                                                                      \
            gs_scalar keep = ks[4];                                            \
            memset(&ks[4], 0xff, sizeof ks[4]);                                \
            JAC w2;                                                            \
            naive_##G(&w2, pts, ks, maxn);                                     \
            for (unsigned c = 8; c <= 16; c += 8) {                            \
                gs_msm_cfg cfg = {.window = c, .group = c / 8 - 1};                  \
                JAC got;                                                       \
                GS_CHECK_OK(gs_msm_##G##_cfg(&got, pts, ks, maxn, pool, &cfg)); \
                GS_CHECK_MSG(gs_##G##_eq(&got, &w2), #G " 2^256-1, window %u", c); \
            }                                                                  \
            ks[4] = keep;                                                      \
        }                                                                      \
        /* Single points: scalar 0, 1, r-1 (= -P), and P = infinity. */        \
        for (size_t i = 1; i <= 3; i++) {                                      \
            JAC got, w;                                                        \
            naive_##G(&w, &pts[0], &ks[i], 1);                                 \
            GS_CHECK_OK(gs_msm_##G(&got, &pts[0], &ks[i], 1, pool));           \
            GS_CHECK(gs_##G##_eq(&got, &w));                                   \
        }                                                                      \
        {                                                                      \
            JAC got, p, neg;                                                   \
            gs_msm_##G(&got, &pts[0], &ks[2], 1, NULL);                        \
            gs_##G##_from_affine(&p, &pts[0]);                                 \
            gs_##G##_neg(&neg, &p);                                            \
            GS_CHECK(gs_##G##_eq(&got, &neg));                                 \
            GS_CHECK(!gs_##G##_is_inf(&got));                                  \
            gs_msm_##G(&got, &pts[0], &ks[3], 1, NULL);                        \
            GS_CHECK(gs_##G##_is_inf(&got));                                   \
            gs_msm_##G(&got, &pts[0], &ks[1], 1, NULL);                        \
            GS_CHECK(gs_##G##_eq(&got, &p));                                   \
            AFF inf;                                                           \
            gs_##G##_affine_set_inf(&inf);                                     \
            gs_msm_##G(&got, &inf, &ks[0], 1, NULL);                           \
            GS_CHECK(gs_##G##_is_inf(&got));                                   \
        }                                                                      \
        free(pts);                                                             \
        free(ks);                                                              \
        gs_pool_destroy(pool);                                                 \
    }
SMALL_TEST(g1, gs_g1_affine, gs_g1, 64)
SMALL_TEST(g2, gs_g2_affine, gs_g2, (gs_test_quick() ? 24 : 64))

/* A sum of MSMs (gs_msm_*_sum) equals the naive sum of its inputs: an
 * empty input, an all-zero one, short (128-bit) scalars, the same points in
 * two inputs, point ranges that span inputs, forced windows and batches. */
#define SUM_TEST(G, AFF, JAC)                                                  \
    GS_TEST(msm_##G##_sum_of_inputs)                                           \
    {                                                                          \
        enum { N = 64 };                                                       \
        gs_pool *pool;                                                         \
        GS_REQUIRE(gs_pool_create(&pool, 2, NULL) == GS_OK);                   \
        AFF *pts = points_##G(N);                                              \
        gs_scalar ks[N], zero[N], shortk[N], rev[20];                          \
        GS_REQUIRE(pts);                                                       \
        memset(zero, 0, sizeof zero);                                          \
        for (size_t i = 0; i < N; i++) {                                       \
            test_scalar(&ks[i], i);                                            \
            rand_scalar(&shortk[i]);                                           \
            shortk[i].l[2] = shortk[i].l[3] = 0;                               \
        }                                                                      \
        for (size_t i = 0; i < 20; i++)                                        \
            rev[i] = ks[19 - i];                                               \
        gs_msm_##G##_in in[5] = {                                              \
            {.points = pts, .scalars = ks, .n = 20},                           \
            {.points = pts + 20, .scalars = ks + 20, .n = 0},                  \
            {.points = pts + 20, .scalars = zero, .n = 20},                    \
            {.points = pts + 40, .scalars = shortk + 40, .n = 24, .no_group = 1}, \
            {.points = pts, .scalars = rev, .n = 20},                          \
        };                                                                     \
        JAC want, t;                                                           \
        gs_##G##_set_inf(&want);                                               \
        for (size_t k = 0; k < 5; k++) {                                       \
            naive_##G(&t, in[k].points, in[k].scalars, in[k].n);               \
            gs_##G##_add(&want, &want, &t);                                    \
        }                                                                      \
        GS_CHECK(!gs_##G##_is_inf(&want));                                     \
        JAC got;                                                               \
        GS_CHECK_OK(gs_msm_##G##_sum(&got, in, 5, pool, NULL));                \
        GS_CHECK_MSG(gs_##G##_eq(&got, &want), #G " sum, default plan");       \
        GS_CHECK_OK(gs_msm_##G##_sum(&got, in, 5, NULL, NULL));                \
        GS_CHECK_MSG(gs_##G##_eq(&got, &want), #G " sum, serial");             \
        for (unsigned c = 1; c <= GS_MSM_MAX_WINDOW; c += 3) {                 \
            gs_msm_cfg cfg = {.window = c, .parts = 1 + c % 5, .group = c % 2,  \
                              .batch = c % 3 == 0 ? 3 : 0};                    \
            GS_CHECK_OK(gs_msm_##G##_sum(&got, in, 5, c % 2 ? pool : NULL, &cfg)); \
            GS_CHECK_MSG(gs_##G##_eq(&got, &want), #G " sum, window %u", c);   \
        }                                                                      \
        /* Only short scalars: fewer windows, same sum. */                     \
        naive_##G(&want, pts, shortk, N);                                      \
        gs_msm_##G##_in sh = {.points = pts, .scalars = shortk, .n = N};       \
        GS_CHECK_OK(gs_msm_##G##_sum(&got, &sh, 1, pool, NULL));               \
        GS_CHECK_MSG(gs_##G##_eq(&got, &want), #G " short scalars");           \
        /* Nothing but zeros: infinity; too many inputs: GS_ERR_ARG. */        \
        GS_CHECK_OK(gs_msm_##G##_sum(&got, in + 1, 2, pool, NULL));            \
        GS_CHECK(gs_##G##_is_inf(&got));                                       \
        gs_msm_##G##_in many[GS_MSM_MAX_INPUTS + 1];                           \
        for (size_t k = 0; k <= GS_MSM_MAX_INPUTS; k++)                        \
            many[k] = in[0];                                                   \
        GS_CHECK(gs_msm_##G##_sum(&got, many, GS_MSM_MAX_INPUTS + 1, pool, NULL) == GS_ERR_ARG); \
        GS_CHECK(gs_##G##_is_inf(&got));                                       \
        free(pts);                                                             \
        gs_pool_destroy(pool);                                                 \
    }
SUM_TEST(g1, gs_g1_affine, gs_g1)
SUM_TEST(g2, gs_g2_affine, gs_g2)

/* One point repeated n times with scalar 1 and r-1 cancels; k times sums. */
#define REPEAT_TEST(G, AFF, JAC)                                               \
    GS_TEST(msm_##G##_repeated_point)                                          \
    {                                                                          \
        enum { N = 300 };                                                      \
        AFF *pts = points_##G(1);                                              \
        AFF rep[N];                                                            \
        gs_scalar ks[N];                                                       \
        GS_REQUIRE(pts);                                                       \
        for (size_t i = 0; i < N; i++) {                                       \
            rep[i] = pts[0];                                                   \
            memset(&ks[i], 0, sizeof ks[i]);                                   \
            ks[i].l[0] = 3;                                                    \
        }                                                                      \
        JAC got, want, p;                                                      \
        gs_scalar k = {{3 * N, 0, 0, 0}};                                      \
        gs_##G##_from_affine(&p, &pts[0]);                                     \
        gs_##G##_mul_var(&want, &p, &k);                                       \
        GS_CHECK_OK(gs_msm_##G(&got, rep, ks, N, NULL));                       \
        GS_CHECK(gs_##G##_eq(&got, &want));                                    \
        /* Batch-affine: P + P in a batch, then every later point spills. */   \
        static const size_t bb[] = {1, 2, 5, 64};                              \
        for (size_t bi = 0; bi < 4; bi++) {                                    \
            gs_msm_cfg cfg = {.window = 4 + 5 * (unsigned)(bi % 2), .batch = bb[bi], .group = 1}; \
            GS_CHECK_OK(gs_msm_##G##_cfg(&got, rep, ks, N, NULL, &cfg));       \
            GS_CHECK_MSG(gs_##G##_eq(&got, &want), #G " repeated, batch %zu", bb[bi]); \
        }                                                                      \
        for (size_t i = 0; i < N; i += 2) {                                    \
            memcpy(ks[i].l, GS_FR_MODULUS.l, sizeof ks[i].l);                  \
            ks[i].l[0] -= 3;                                                   \
        }                                                                      \
        GS_CHECK_OK(gs_msm_##G(&got, rep, ks, N, NULL));                       \
        GS_CHECK(gs_##G##_is_inf(&got));                                       \
        /* P + (-P) empties the bucket inside a batch; sums cancel. */         \
        for (size_t bi = 0; bi < 4; bi++) {                                    \
            gs_msm_cfg cfg = {.window = 4 + 5 * (unsigned)(bi % 2), .batch = bb[bi], .group = 1}; \
            GS_CHECK_OK(gs_msm_##G##_cfg(&got, rep, ks, N, NULL, &cfg));       \
            GS_CHECK_MSG(gs_##G##_is_inf(&got), #G " cancel, batch %zu", bb[bi]); \
        }                                                                      \
        /* One point short of cancelling: the sum is 3P or -3P. */            \
        for (size_t bi = 0; bi < 4; bi++) {                                    \
            gs_msm_cfg cfg = {.window = 4 + 5 * (unsigned)(bi % 2), .batch = bb[bi], .group = 1}; \
            gs_scalar k3 = {{3, 0, 0, 0}};                                     \
            gs_##G##_mul_var(&want, &p, &k3);                                  \
            GS_CHECK_OK(gs_msm_##G##_cfg(&got, rep + 1, ks + 1, N - 1, NULL, &cfg)); \
            GS_CHECK_MSG(gs_##G##_eq(&got, &want), #G " 3P, batch %zu", bb[bi]); \
        }                                                                      \
        free(pts);                                                             \
    }
REPEAT_TEST(g1, gs_g1_affine, gs_g1)
REPEAT_TEST(g2, gs_g2_affine, gs_g2)

/* Larger n: the whole equals the sum of the halves, threads equal serial. */
#define LARGE_TEST(G, AFF, JAC, LOGN, QLOGN, NAIVE_TOO)                                   \
    GS_TEST(msm_##G##_split_and_threads)                                       \
    {                                                                          \
        size_t n = (size_t)1 << (gs_test_quick() ? QLOGN : LOGN);              \
        gs_pool *pool;                                                         \
        GS_REQUIRE(gs_pool_create(&pool, 2, NULL) == GS_OK);                   \
        AFF *pts = points_##G(n);                                              \
        gs_scalar *ks = malloc(n * sizeof *ks);                                \
        GS_REQUIRE(pts && ks);                                                 \
        for (size_t i = 0; i < n; i++)                                         \
            test_scalar(&ks[i], i);                                            \
        JAC all, serial, lo, hi, sum, parts;                                   \
        GS_CHECK_OK(gs_msm_##G(&all, pts, ks, n, pool));                       \
        GS_CHECK_OK(gs_msm_##G(&serial, pts, ks, n, NULL));                    \
        GS_CHECK_OK(gs_msm_##G(&lo, pts, ks, n / 2 + 1, pool));                \
        GS_CHECK_OK(gs_msm_##G(&hi, pts + n / 2 + 1, ks + n / 2 + 1, n - n / 2 - 1, pool)); \
        gs_##G##_add(&sum, &lo, &hi);                                          \
        gs_msm_cfg cfg = {.window = 0, .parts = 7};                            \
        GS_CHECK_OK(gs_msm_##G##_cfg(&parts, pts, ks, n, pool, &cfg));         \
        GS_CHECK(!gs_##G##_is_inf(&all));                                      \
        GS_CHECK(!gs_##G##_eq(&lo, &all));                                     \
        GS_CHECK(gs_##G##_eq(&all, &serial));                                  \
        GS_CHECK(gs_##G##_eq(&all, &sum));                                     \
        GS_CHECK(gs_##G##_eq(&all, &parts));                                   \
        if (NAIVE_TOO) {                                                       \
            JAC want;                                                          \
            naive_##G(&want, pts, ks, n);                                      \
            GS_CHECK(gs_##G##_eq(&all, &want));                                \
        }                                                                      \
        free(pts);                                                             \
        free(ks);                                                              \
        gs_pool_destroy(pool);                                                 \
    }
LARGE_TEST(g1, gs_g1_affine, gs_g1, 12, 10, 1)
LARGE_TEST(g2, gs_g2_affine, gs_g2, 10, 8, 0)

/* Several MSMs on one pool at once (the engine runs provers concurrently). */
typedef struct {
    gs_pool *pool;
    const gs_g1_affine *pts;
    const gs_scalar *ks;
    size_t n;
    gs_g1 out;
    gs_status st;
} concurrent_arg;

static void *concurrent_main(void *varg)
{
    concurrent_arg *a = varg;
    for (int r = 0; r < 3 && a->st == GS_OK; r++)
        a->st = gs_msm_g1(&a->out, a->pts, a->ks, a->n, a->pool);
    return NULL;
}

GS_TEST(msm_concurrent_calls_share_a_pool)
{
    enum { N_CALLERS = 3 };
    size_t n = 600;
    gs_pool *pool;
    GS_REQUIRE(gs_pool_create(&pool, 3, NULL) == GS_OK);
    gs_g1_affine *pts = points_g1(n);
    gs_scalar *ks = malloc(n * sizeof *ks);
    GS_REQUIRE(pts && ks);
    for (size_t i = 0; i < n; i++)
        test_scalar(&ks[i], i);
    pthread_t th[N_CALLERS];
    concurrent_arg args[N_CALLERS];
    for (int i = 0; i < N_CALLERS; i++) {
        /* Each caller sums a different prefix, so mixed-up scratch shows. */
        args[i] = (concurrent_arg){.pool = pool, .pts = pts, .ks = ks, .n = n - 100 * (size_t)i};
        GS_REQUIRE(pthread_create(&th[i], NULL, concurrent_main, &args[i]) == 0);
    }
    for (int i = 0; i < N_CALLERS; i++) {
        pthread_join(th[i], NULL);
        gs_g1 want;
        GS_CHECK_OK(args[i].st);
        GS_CHECK_OK(gs_msm_g1(&want, pts, ks, args[i].n, NULL));
        GS_CHECK_MSG(gs_g1_eq(&args[i].out, &want), "caller %d", i);
    }
    free(pts);
    free(ks);
    gs_pool_destroy(pool);
}

/*
 * Batch-affine running sum over chains (window 13: thousands of buckets):
 * every point is G or -G with a scalar below 2^12, so window 0 holds
 * neighbouring buckets G, G (run + B = 2 run: tangent), G, -G (run cancels)
 * and empty stretches (acc + run with acc = run), and collisions spill.
 * The sum is (sum of signed scalars) G.
 */
#define CHAIN_TEST(G, AFF, JAC)                                                \
    GS_TEST(msm_##G##_affine_chains)                                           \
    {                                                                          \
        size_t n = gs_test_quick() ? 1500 : 5000;                              \
        AFF *pts = malloc(n * sizeof *pts);                                    \
        gs_scalar *ks = calloc(n, sizeof *ks);                                 \
        GS_REQUIRE(pts && ks);                                                 \
        AFF g, ng;                                                             \
        gs_##G##_affine_generator(&g);                                         \
        gs_##G##_affine_neg(&ng, &g);                                          \
        gs_fr total, t;                                                        \
        gs_fr_zero(&total);                                                    \
        for (size_t i = 0; i < n; i++) {                                       \
            uint64_t k = 1 + (i * 7 + (i / 5) * 3) % 4000;                     \
            int neg = (i / 3) % 4 == 1;                                        \
            if (i % 17 == 0)                                                   \
                k = 1 + (i % 9);   /* crowded low buckets */                   \
            ks[i].l[0] = k;                                                    \
            pts[i] = neg ? ng : g;                                             \
            gs_fr_set_u64(&t, k);                                              \
            if (neg)                                                           \
                gs_fr_sub(&total, &total, &t);                                 \
            else                                                               \
                gs_fr_add(&total, &total, &t);                                 \
        }                                                                      \
        gs_scalar kt;                                                          \
        gs_fr_to_scalar(&kt, &total);                                          \
        JAC want, gj, got;                                                     \
        gs_##G##_generator(&gj);                                               \
        gs_##G##_mul_var(&want, &gj, &kt);                                     \
        static const size_t bb[] = {0, 3, 64, 4096};                           \
        for (size_t bi = 0; bi < 4; bi++) {                                    \
            gs_msm_cfg cfg = {.window = 13, .parts = 1 + bi % 2, .batch = bb[bi], .group = 1}; \
            GS_CHECK_OK(gs_msm_##G##_cfg(&got, pts, ks, n, NULL, &cfg));       \
            GS_CHECK_MSG(gs_##G##_eq(&got, &want), #G " chains, batch %zu", bb[bi]); \
        }                                                                      \
        free(pts);                                                             \
        free(ks);                                                              \
    }
CHAIN_TEST(g1, gs_g1_affine, gs_g1)
CHAIN_TEST(g2, gs_g2_affine, gs_g2)

/*
 * Merging points with equal scalars: many repeated scalars (0, 1, r-1 and a
 * few random values), groups whose points cancel (P and -P with the same
 * scalar), all-zero scalars, against double-and-add and against the MSM
 * with merging off.
 */
#define GROUP_TEST(G, AFF, JAC, N)                                             \
    GS_TEST(msm_##G##_equal_scalars_merged)                                    \
    {                                                                          \
        size_t n = N;                                                          \
        AFF *pts = points_##G(n);                                              \
        gs_scalar *ks = calloc(n, sizeof *ks), vals[5];                        \
        GS_REQUIRE(pts && ks);                                                 \
        for (int v = 0; v < 5; v++)                                            \
            rand_scalar(&vals[v]);                                             \
        vals[0].l[0] = 1, vals[0].l[1] = vals[0].l[2] = vals[0].l[3] = 0;      \
        for (size_t i = 0; i < n; i++) {                                       \
            if (i % 9 == 8)                                                    \
                rand_scalar(&ks[i]);               /* singletons */            \
            else if (i % 9 != 7)                                               \
                ks[i] = vals[i % 5];               /* zero stays for i%9==7 */ \
        }                                                                      \
        /* A group that cancels: P and -P both with scalar vals[1]. */         \
        pts[11] = pts[1];                                                      \
        gs_##G##_affine_neg(&pts[6], &pts[1]);                                 \
        ks[1] = ks[6] = ks[11] = vals[3];                                      \
        gs_##G##_affine_neg(&pts[16], &pts[11]);                               \
        ks[16] = vals[3];                                                      \
        JAC want, got, off;                                                    \
        naive_##G(&want, pts, ks, n);                                          \
        gs_msm_cfg no = {.group = 1};                                          \
        GS_CHECK_OK(gs_msm_##G(&got, pts, ks, n, NULL));                       \
        GS_CHECK_OK(gs_msm_##G##_cfg(&off, pts, ks, n, NULL, &no));            \
        GS_CHECK(!gs_##G##_is_inf(&want));                                     \
        GS_CHECK(gs_##G##_eq(&got, &want));                                    \
        GS_CHECK(gs_##G##_eq(&off, &want));                                    \
        for (unsigned c = 9; c <= 13; c += 4) {                                \
            gs_msm_cfg cfg = {.window = c, .batch = 3};                        \
            GS_CHECK_OK(gs_msm_##G##_cfg(&got, pts, ks, n, NULL, &cfg));       \
            GS_CHECK_MSG(gs_##G##_eq(&got, &want), #G " merged, window %u", c); \
        }                                                                      \
        /* Many groups of several points, summed in slot ranges on a pool:  \
         * equal to the MSM without merging. */                                \
        {                                                                      \
            gs_pool *pool;                                                     \
            GS_REQUIRE(gs_pool_create(&pool, 3, NULL) == GS_OK);               \
            for (size_t i = 0; i < n; i++)                                     \
                ks[i] = vals[i % 5], ks[i].l[0] += i % 23;                     \
            JAC a, b;                                                          \
            GS_CHECK_OK(gs_msm_##G(&a, pts, ks, n, pool));                     \
            GS_CHECK_OK(gs_msm_##G##_cfg(&b, pts, ks, n, NULL, &no));          \
            GS_CHECK(!gs_##G##_is_inf(&a));                                    \
            GS_CHECK_MSG(gs_##G##_eq(&a, &b), #G " merged on a pool");         \
            gs_pool_destroy(pool);                                             \
        }                                                                      \
        /* Only zeros and one cancelling group: infinity. */                   \
        memset(ks, 0, n * sizeof *ks);                                         \
        ks[1] = ks[6] = vals[2];                                               \
        GS_CHECK_OK(gs_msm_##G(&got, pts, ks, n, NULL));                       \
        GS_CHECK(gs_##G##_is_inf(&got));                                       \
        memset(ks, 0, n * sizeof *ks);                                         \
        GS_CHECK_OK(gs_msm_##G(&got, pts, ks, n, NULL));                       \
        GS_CHECK(gs_##G##_is_inf(&got));                                       \
        free(pts);                                                             \
        free(ks);                                                              \
    }
GROUP_TEST(g1, gs_g1_affine, gs_g1, 400)
GROUP_TEST(g2, gs_g2_affine, gs_g2, 400)

/* gs_msm_repeats: the nonzero scalars equal to an earlier one, against a
 * count by sorting; small values, zeros and wide values repeated in runs and
 * scattered, serial and on pools of 2 and 3 (parts of the hash range). */
static int cmp_scalar(const void *x, const void *y)
{
    return memcmp(x, y, sizeof(gs_scalar));
}

GS_TEST(msm_repeats_counts_equal_nonzero_scalars)
{
    static const size_t sizes[] = {0, 1, 2, 17, 1000, 5003};
    gs_pool *p2 = NULL, *p3 = NULL;
    GS_REQUIRE(gs_pool_create(&p2, 2, NULL) == GS_OK);
    GS_REQUIRE(gs_pool_create(&p3, 3, NULL) == GS_OK);
    for (size_t t = 0; t < sizeof sizes / sizeof sizes[0]; t++) {
        size_t n = sizes[t];
        gs_scalar *k = calloc(n ? n : 1, sizeof *k), *s = calloc(n ? n : 1, sizeof *s);
        GS_REQUIRE(k && s);
        for (size_t i = 0; i < n; i++) {
            uint64_t u = gs_rng_below(gs_test_rng(), 8);
            if (u == 0)
                continue;                                    /* zero */
            if (u == 1)
                k[i].l[0] = 1 + gs_rng_below(gs_test_rng(), 3);  /* small, repeats */
            else if (u == 2 && i > 0)
                k[i] = k[gs_rng_below(gs_test_rng(), i)];    /* a copy of an earlier one */
            else
                rand_scalar(&k[i]);
        }
        memcpy(s, k, n * sizeof *s);
        qsort(s, n, sizeof *s, cmp_scalar);
        size_t want = 0;
        for (size_t i = 1; i < n; i++) {
            int zero = (s[i].l[0] | s[i].l[1] | s[i].l[2] | s[i].l[3]) == 0;
            want += !zero && !memcmp(&s[i], &s[i - 1], sizeof *s);
        }
        GS_CHECK_EQ_INT(gs_msm_repeats(k, n, NULL), want);
        GS_CHECK_EQ_INT(gs_msm_repeats(k, n, p2), want);
        GS_CHECK_EQ_INT(gs_msm_repeats(k, n, p3), want);
        free(k);
        free(s);
    }
    gs_pool_destroy(p2);
    gs_pool_destroy(p3);
}
