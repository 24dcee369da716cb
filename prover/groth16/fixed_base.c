/*
 * Fixed-base scalar multiplication for setup: a comb of precomputed
 * multiples d * 2^(w*i) * G (one row of 2^w - 1 points per w-bit window),
 * so k * G costs ceil(255/w) additions and no doublings (the "fixed-base
 * windowing" of Menezes, van Oorschot, Vanstone, Handbook of Applied
 * Cryptography, 14.6.3).  The accumulators stay affine: a batch of
 * FB_BATCH scalars is processed window by window and the batch's additions
 * in one window share a single field inversion (Montgomery's trick), about
 * 6 multiplications per addition instead of 11 for a mixed Jacobian one,
 * and no final conversion.
 *
 * One template, instantiated for G1 (over Fp) and G2 (over Fp2).
 */
#include <stdlib.h>
#include <string.h>

#include "g16_internal.h"

#define FB_SCALAR_BITS 255u
#define FB_BATCH 1024  /* accumulators sharing one inversion per window */

#define FB_PREFETCH 12  /* table entries requested ahead of their use */

/* Requests every cache line of an object (NULL: nothing). */
static inline void fb_prefetch(const void *p, size_t size)
{
    if (!p)
        return;
    const char *c = p;
    for (size_t o = 0; o < size + 63; o += 64)
        __builtin_prefetch(c + (o < size ? o : size - 1));
}

/* The w-bit digit of k starting at bit `pos`. */
static unsigned digit_at(const gs_scalar *k, unsigned pos, unsigned w)
{
    unsigned limb = pos / 64, off = pos % 64;
    uint64_t v = k->l[limb] >> off;
    if (off + w > 64 && limb + 1 < GS_FR_LIMBS)
        v |= k->l[limb + 1] << (64 - off);
    return (unsigned)(v & ((1ull << w) - 1));
}

#define FB_DEFINE(G, F, INV)                                                             \
    typedef struct {                                                             \
        gs_fb_##G *t;                                                            \
        const gs_##G *bases; /* 2^(w*i) * base, nwin entries */                  \
        gs_##G *tmp;         /* nwin rows of projective scratch */               \
    } fb_##G##_build_ctx;                                                        \
                                                                                 \
    static void fb_##G##_build_chunk(void *vctx, size_t begin, size_t end,       \
                                     unsigned slot)                              \
    {                                                                            \
        (void)slot;                                                              \
        fb_##G##_build_ctx *c = vctx;                                            \
        size_t row = ((size_t)1 << c->t->wbits) - 1;                             \
        for (size_t i = begin; i < end; i++) {                                   \
            gs_##G *tmp = c->tmp + i * row;                                      \
            tmp[0] = c->bases[i];                                                \
            for (size_t d = 1; d < row; d++)                                     \
                gs_##G##_add(&tmp[d], &tmp[d - 1], &c->bases[i]);                \
            gs_##G##_batch_to_affine(c->t->tab + i * row, tmp, row);             \
        }                                                                        \
    }                                                                            \
                                                                                 \
    gs_status gs_fb_##G##_init(gs_fb_##G *t, const gs_##G *base, unsigned wbits, \
                               gs_pool *pool, gs_err *err)                       \
    {                                                                            \
        memset(t, 0, sizeof *t);                                                 \
        if (wbits < 1 || wbits > 12)                                             \
            return GS_ERR(err, GS_ERR_ARG, "fixed-base", "window %u bits", wbits); \
        t->wbits = wbits;                                                        \
        t->nwin = (FB_SCALAR_BITS + wbits - 1) / wbits;                          \
        size_t row = ((size_t)1 << wbits) - 1;                                   \
        gs_##G *bases = malloc(t->nwin * sizeof *bases);                         \
        gs_##G *tmp = malloc(t->nwin * row * sizeof *tmp);                       \
        t->tab = malloc(t->nwin * row * sizeof *t->tab);                         \
        if (!bases || !tmp || !t->tab) {                                         \
            free(bases);                                                         \
            free(tmp);                                                           \
            free(t->tab);                                                        \
            t->tab = NULL;                                                       \
            return GS_ERR(err, GS_ERR_NOMEM, "fixed-base", "table of %zu points", \
                          t->nwin * row);                                        \
        }                                                                        \
        bases[0] = *base;                                                        \
        for (unsigned i = 1; i < t->nwin; i++) {                                 \
            bases[i] = bases[i - 1];                                             \
            for (unsigned k = 0; k < wbits; k++)                                 \
                gs_##G##_dbl(&bases[i], &bases[i]);                              \
        }                                                                        \
        fb_##G##_build_ctx c = { t, bases, tmp };                                \
        gs_pool_for(pool, t->nwin, 1, fb_##G##_build_chunk, &c);                 \
        free(bases);                                                             \
        free(tmp);                                                               \
        return GS_OK;                                                            \
    }                                                                            \
                                                                                 \
    void gs_fb_##G##_free(gs_fb_##G *t)                                          \
    {                                                                            \
        free(t->tab);                                                            \
        memset(t, 0, sizeof *t);                                                 \
    }                                                                            \
                                                                                 \
    /* Per-thread scratch for one batch of FB_BATCH scalars. */                 \
    typedef struct {                                                             \
        gs_scalar sc[FB_BATCH];                                                  \
        gs_##F ax[FB_BATCH], ay[FB_BATCH], den[FB_BATCH], pre[FB_BATCH];         \
        const gs_##G##_affine *add[FB_BATCH];                                    \
        uint16_t idx[FB_BATCH];                                                  \
        unsigned char inf[FB_BATCH];                                             \
    } fb_##G##_scratch;                                                          \
                                                                                 \
    typedef struct {                                                             \
        gs_##G##_affine *out;                                                    \
        const gs_fb_##G *t;                                                      \
        const gs_fr *k;                                                          \
        fb_##G##_scratch *scr; /* one per pool slot */                           \
    } fb_##G##_mul_ctx;                                                          \
                                                                                 \
    /* FB_BATCH accumulators in affine form; per window, every addition of  */  \
    /* the batch shares one inversion (Montgomery's trick).                 */  \
    static void fb_##G##_mul_chunk(void *vctx, size_t begin, size_t end,         \
                                   unsigned slot)                                \
    {                                                                            \
        fb_##G##_mul_ctx *c = vctx;                                              \
        const gs_fb_##G *t = c->t;                                               \
        fb_##G##_scratch *z = &c->scr[slot];                                     \
        size_t row = ((size_t)1 << t->wbits) - 1;                                \
        for (size_t b = begin; b < end; b += FB_BATCH) {                         \
            size_t m = end - b < FB_BATCH ? end - b : FB_BATCH;                  \
            for (size_t j = 0; j < m; j++) {                                     \
                gs_fr_to_scalar(&z->sc[j], &c->k[b + j]);                        \
                z->inf[j] = 1;                                                   \
            }                                                                    \
            for (unsigned i = 0; i < t->nwin; i++) {                             \
                size_t cnt = 0;                                                  \
                /* Tables are megabytes: look every entry up first, then   */  \
                /* prefetch FB_PREFETCH entries ahead of their use.         */  \
                for (size_t j = 0; j < m; j++) {                                 \
                    unsigned d = digit_at(&z->sc[j], i * t->wbits, t->wbits);    \
                    z->add[j] = d ? &t->tab[i * row + d - 1] : NULL;             \
                }                                                                \
                for (size_t j = 0; j < m && j < FB_PREFETCH; j++)                \
                    fb_prefetch(z->add[j], sizeof *z->add[j]);                   \
                for (size_t j = 0; j < m; j++) {                                 \
                    if (j + FB_PREFETCH < m)                                     \
                        fb_prefetch(z->add[j + FB_PREFETCH], sizeof *z->add[j]); \
                    const gs_##G##_affine *p = z->add[j];                        \
                    if (!p)                                                      \
                        continue;                                                \
                    if (z->inf[j]) {                                             \
                        z->ax[j] = p->x;                                         \
                        z->ay[j] = p->y;                                         \
                        z->inf[j] = 0;                                           \
                        continue;                                                \
                    }                                                            \
                    /* x(p) != x(acc): acc < d 2^(w i) <= scalar < r as      */  \
                    /* integers, so acc = +-p would force scalar = 0 or r.   */  \
                    gs_##F##_sub(&z->den[cnt], &p->x, &z->ax[j]);                \
                    if (cnt)                                                     \
                        gs_##F##_mul(&z->pre[cnt], &z->pre[cnt - 1],             \
                                     &z->den[cnt]);                              \
                    else                                                         \
                        z->pre[0] = z->den[0];                                   \
                    z->idx[cnt++] = (uint16_t)j;                                 \
                }                                                                \
                if (!cnt)                                                        \
                    continue;                                                    \
                gs_##F inv, dinv, lam, x3, tmp;                                  \
                INV(&inv, &z->pre[cnt - 1]);                                     \
                for (size_t q = cnt; q-- > 0;) {                                 \
                    if (q) {                                                     \
                        gs_##F##_mul(&dinv, &inv, &z->pre[q - 1]);               \
                        gs_##F##_mul(&inv, &inv, &z->den[q]);                    \
                    } else {                                                     \
                        dinv = inv;                                              \
                    }                                                            \
                    size_t j = z->idx[q];                                        \
                    const gs_##G##_affine *p = z->add[j];                        \
                    /* Affine addition, EFD g1p/auto-shortw.html (a = 0). */     \
                    gs_##F##_sub(&lam, &p->y, &z->ay[j]);                        \
                    gs_##F##_mul(&lam, &lam, &dinv);                             \
                    gs_##F##_sqr(&x3, &lam);                                     \
                    gs_##F##_sub(&x3, &x3, &z->ax[j]);                           \
                    gs_##F##_sub(&x3, &x3, &p->x);                               \
                    gs_##F##_sub(&tmp, &z->ax[j], &x3);                          \
                    gs_##F##_mul(&tmp, &tmp, &lam);                              \
                    gs_##F##_sub(&z->ay[j], &tmp, &z->ay[j]);                    \
                    z->ax[j] = x3;                                               \
                }                                                                \
            }                                                                    \
            for (size_t j = 0; j < m; j++) {                                     \
                gs_##G##_affine *o = &c->out[b + j];                             \
                if (z->inf[j]) {                                                 \
                    gs_##G##_affine_set_inf(o);                                  \
                } else {                                                         \
                    o->x = z->ax[j];                                             \
                    o->y = z->ay[j];                                             \
                    o->inf = 0;                                                  \
                }                                                                \
            }                                                                    \
        }                                                                        \
    }                                                                            \
                                                                                 \
    gs_status gs_fb_##G##_mul_many(gs_##G##_affine *out, const gs_fb_##G *t,     \
                                   const gs_fr *k, size_t n, gs_pool *pool,      \
                                   gs_err *err)                                  \
    {                                                                            \
        if (n == 0)                                                              \
            return GS_OK;                                                        \
        unsigned width = gs_pool_width(pool);                                    \
        fb_##G##_mul_ctx c = { out, t, k, malloc(width * sizeof *c.scr) };       \
        if (!c.scr)                                                              \
            return GS_ERR(err, GS_ERR_NOMEM, "fixed-base", "scratch for %u "     \
                          "threads", width);                                     \
        size_t chunk = n / (4 * (size_t)width) + 1;                              \
        chunk = (chunk + FB_BATCH - 1) / FB_BATCH * FB_BATCH;                    \
        gs_pool_for(pool, n, chunk, fb_##G##_mul_chunk, &c);                     \
        free(c.scr);                                                             \
        return GS_OK;                                                            \
    }

FB_DEFINE(g1, fp, gs_fp_inv_var)
FB_DEFINE(g2, fp2, gs_fp2_inv)
