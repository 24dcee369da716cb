/*
 * The Lagrange basis of the subgroup <w_n> evaluated at one point x, in
 * O(n) field operations and one inversion per chunk:
 *
 *   L_i(x) = (x^n - 1)/n * w_n^i / (x - w_n^i)
 *
 * (SNARKJS-FORMATS 5: L_i(X) = (1/n) sum_k (X w_n^-i)^k, the closed form of
 * that geometric sum).  w_n is snarkjs's root (gs_fr_root_of_unity), so
 * L_i(w_n^j) = [i == j] in the same numbering the H points and the NTT use.
 */
#include "groth16.h"

typedef struct {
    gs_fr *out;
    gs_fr w, x, z;        /* root, point, (x^n - 1)/n */
} lag_ctx;

static void lag_chunk(void *vctx, size_t begin, size_t end, unsigned slot)
{
    (void)slot;
    lag_ctx *c = vctx;
    uint64_t e = begin;
    gs_fr wi, start;
    gs_fr_pow(&start, &c->w, &e, 1);
    /* Pass 1: denominators x - w^i. */
    wi = start;
    for (size_t i = begin; i < end; i++) {
        gs_fr_sub(&c->out[i], &c->x, &wi);
        gs_fr_mul(&wi, &wi, &c->w);
    }
    gs_fr_batch_inv_var(c->out + begin, end - begin);
    /* Pass 2: times z * w^i. */
    wi = start;
    for (size_t i = begin; i < end; i++) {
        gs_fr t;
        gs_fr_mul(&t, &c->z, &wi);
        gs_fr_mul(&c->out[i], &c->out[i], &t);
        gs_fr_mul(&wi, &wi, &c->w);
    }
}

void gs_lagrange_eval(gs_fr *out, uint32_t log_n, const gs_fr *x, gs_pool *pool)
{
    size_t n = (size_t)1 << log_n;
    lag_ctx c = { .out = out, .x = *x };
    gs_fr_root_of_unity(&c.w, log_n);
    /* z = (x^n - 1) / n */
    gs_fr xn = *x, one, ninv;
    for (uint32_t k = 0; k < log_n; k++)
        gs_fr_sqr(&xn, &xn);
    gs_fr_one(&one);
    gs_fr_sub(&xn, &xn, &one);
    gs_fr_set_u64(&ninv, (uint64_t)n);
    gs_fr_inv(&ninv, &ninv);
    gs_fr_mul(&c.z, &xn, &ninv);
    gs_pool_for(pool, n, n < 4096 ? n : 0, lag_chunk, &c);
}
