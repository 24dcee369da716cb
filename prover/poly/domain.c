/*
 * gs_domain: the constants of one radix-2 evaluation domain and its single
 * twiddle table (poly.h has the contract).
 */
#include "poly_internal.h"

#include <stdlib.h>

/* a[i] = g^i (fill) or a[i] *= g^i (scale) for i in [begin, end): one
 * power per chunk, then steps.  Inlined with a constant scale, so each
 * chunk function below is the loop it was when written out twice. */
typedef struct {
    gs_fr *a;
    gs_fr g;
} powers_ctx;

static inline void powers(const powers_ctx *c, size_t begin, size_t end, int scale)
{
    uint64_t e = begin;
    gs_fr x;
    gs_fr_pow(&x, &c->g, &e, 1);
    for (size_t i = begin; i < end; i++) {
        if (scale)
            gs_fr_mul(&c->a[i], &c->a[i], &x);
        else
            c->a[i] = x;
        gs_fr_mul(&x, &x, &c->g);
    }
}

static void fill_chunk(void *vctx, size_t begin, size_t end, unsigned slot)
{
    (void)slot;
    powers(vctx, begin, end, 0);
}

static void powers_chunk(void *vctx, size_t begin, size_t end, unsigned slot)
{
    (void)slot;
    powers(vctx, begin, end, 1);
}

gs_status gs_domain_create(gs_domain **out, unsigned log_n, gs_pool *pool, gs_err *err)
{
    *out = NULL;
    if (log_n > GS_DOMAIN_MAX_LOG) {
        if (err)
            GS_ERR(err, GS_ERR_ARG, "domain", "log2 size %u exceeds the maximum %u",
                   log_n, GS_DOMAIN_MAX_LOG);
        return GS_ERR_ARG;
    }
    gs_domain *d = calloc(1, sizeof *d);
    if (!d)
        goto nomem;
    d->log_n = log_n;
    d->n = (size_t)1 << log_n;
    gs_fr_root_of_unity(&d->w, log_n);
    gs_fr_inv(&d->w_inv, &d->w);
    gs_fr_set_u64(&d->n_inv, d->n);
    gs_fr_inv(&d->n_inv, &d->n_inv);
    gs_fr_root_of_unity(&d->g, log_n + 1);
    gs_fr_inv(&d->g_inv, &d->g);
    if (d->n >= 2) {
        d->tw = malloc(d->n / 2 * sizeof *d->tw);
        if (!d->tw)
            goto nomem;
        powers_ctx c = {.a = d->tw, .g = d->w};
        gs_pool_for(pool, d->n / 2, 4096, fill_chunk, &c);
    }
    d->log_l = log_n < GS_NTT_BLOCK_LOG ? log_n : GS_NTT_BLOCK_LOG;
    size_t l = (size_t)1 << d->log_l;
    for (size_t i = 0; i < l / 2; i++)
        d->twl[i] = d->tw[i << (log_n - d->log_l)];
    *out = d;
    return GS_OK;

nomem:
    gs_domain_destroy(d);
    if (err)
        GS_ERR(err, GS_ERR_NOMEM, "domain", "twiddle table for 2^%u (%zu bytes)", log_n,
               ((size_t)1 << log_n) / 2 * sizeof(gs_fr));
    return GS_ERR_NOMEM;
}

void gs_domain_destroy(gs_domain *d)
{
    if (!d)
        return;
    free(d->tw);
    free(d);
}

size_t gs_domain_size(const gs_domain *d) { return d->n; }
unsigned gs_domain_log(const gs_domain *d) { return d->log_n; }
const gs_fr *gs_domain_root(const gs_domain *d) { return &d->w; }
const gs_fr *gs_domain_root_inv(const gs_domain *d) { return &d->w_inv; }
const gs_fr *gs_domain_size_inv(const gs_domain *d) { return &d->n_inv; }
const gs_fr *gs_domain_odd_shift(const gs_domain *d) { return &d->g; }
const gs_fr *gs_domain_odd_shift_inv(const gs_domain *d) { return &d->g_inv; }

void gs_poly_mul_powers(gs_fr *a, size_t n, const gs_fr *g, gs_pool *pool)
{
    powers_ctx c = {.a = a, .g = *g};
    gs_pool_for(pool, n, 8192, powers_chunk, &c);
}

void gs_domain_coset_ntt(const gs_domain *d, gs_fr *a, const gs_fr *g, gs_pool *pool)
{
    gs_poly_mul_powers(a, d->n, g, pool);
    gs_domain_ntt(d, a, pool);
}

void gs_domain_coset_intt(const gs_domain *d, gs_fr *a, const gs_fr *g, gs_pool *pool)
{
    gs_fr g_inv;
    gs_fr_inv(&g_inv, g);
    gs_domain_intt(d, a, pool);
    gs_poly_mul_powers(a, d->n, &g_inv, pool);
}

void gs_domain_to_odd_coset(const gs_domain *d, gs_fr *a, gs_pool *pool)
{
    gs_domain_intt(d, a, pool);
    gs_poly_mul_powers(a, d->n, &d->g, pool);
    gs_domain_ntt(d, a, pool);
}
