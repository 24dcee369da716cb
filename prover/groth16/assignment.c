/*
 * From a witness to the QAP evaluation vectors the prover consumes, exactly
 * as snarkjs does it (SNARKJS-FORMATS 7.2, groth16_prove.js / buildABC1):
 * a[row] += v * w[wire] over the A records of the coefficient list, b the
 * same over the B records, and c[i] = a[i] * b[i] for every i < n (the C
 * matrix is never consulted).  On a pool: the witness conversion and c in
 * chunks, the sums as tasks that own a matrix and a range of rows (each
 * reads the whole list; at 2^16 the serial form took 35-48 ms of the
 * `gapscope prove` command, bench/RESULTS.md).
 */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "../../common/bigmem.h"
#include "groth16.h"

gs_status gs_assignment_alloc(gs_assignment *as, uint32_t n_vars, uint32_t domain_size,
                              gs_err *err)
{
    memset(as, 0, sizeof *as);
    as->w = gs_big_alloc((size_t)(n_vars ? n_vars : 1) * sizeof *as->w);
    as->a = gs_big_calloc(domain_size, sizeof *as->a);
    as->b = gs_big_calloc(domain_size, sizeof *as->b);
    as->c = gs_big_calloc(domain_size, sizeof *as->c);
    if (!as->w || !as->a || !as->b || !as->c) {
        gs_assignment_free(as);
        return GS_ERR(err, GS_ERR_NOMEM, "assignment", "%u wires, domain %u", n_vars,
                      domain_size);
    }
    as->n_vars = n_vars;
    as->domain_size = domain_size;
    return GS_OK;
}

void gs_assignment_free(gs_assignment *as)
{
    if (!as)
        return;
    free(as->w);
    free(as->a);
    free(as->b);
    free(as->c);
    memset(as, 0, sizeof *as);
}

/* The work of gs_assignment_from_witness_pool, cut for the pool. */
typedef struct {
    const gs_pk *pk;
    const gs_scalar *w;
    gs_fr *wm;
    gs_assignment *out;
    size_t n_w, n_row_parts;
    _Atomic size_t bad_wire;   /* lowest wire >= r, or n_w */
    _Atomic size_t bad_coef;   /* lowest malformed coefficient, or n_coefs */
} asg_ctx;

static void wires_chunk(void *vctx, size_t begin, size_t end, unsigned slot)
{
    (void)slot;
    asg_ctx *x = vctx;
    for (size_t j = begin; j < end; j++)
        if (!gs_fr_from_scalar(&x->wm[j], &x->w[j])) {
            gs_atomic_min_size(&x->bad_wire, j);
            return;
        }
}

/* Task t: matrix t % 2 (a or b), rows of part t / 2: every task reads the
 * whole list and writes only its own rows, so no two tasks write one
 * element and the sums are added in list order, as serially. */
static void coefs_task(void *vctx, size_t begin, size_t end, unsigned slot)
{
    (void)slot;
    asg_ctx *x = vctx;
    const gs_pk *pk = x->pk;
    uint32_t n = pk->domain_size;
    for (size_t t = begin; t < end; t++) {
        uint32_t m = (uint32_t)(t % 2), part = (uint32_t)(t / 2);
        uint32_t lo = (uint32_t)((uint64_t)n * part / x->n_row_parts);
        uint32_t hi = (uint32_t)((uint64_t)n * (part + 1) / x->n_row_parts);
        gs_fr *dst = m == 0 ? x->out->a : x->out->b;
        for (size_t k = 0; k < pk->n_coefs; k++) {
            const struct gs_coef *cf = &pk->coefs[k];
            if (cf->row >= n || cf->wire >= pk->n_vars || cf->matrix > 1) {
                gs_atomic_min_size(&x->bad_coef, k);
                break;
            }
            if (cf->matrix != m || cf->row < lo || cf->row >= hi)
                continue;
            gs_fr v;
            gs_fr_mul(&v, &cf->value, &x->wm[cf->wire]);
            gs_fr_add(&dst[cf->row], &dst[cf->row], &v);
        }
    }
}

static void c_chunk(void *vctx, size_t begin, size_t end, unsigned slot)
{
    (void)slot;
    asg_ctx *x = vctx;
    for (size_t i = begin; i < end; i++)
        gs_fr_mul(&x->out->c[i], &x->out->a[i], &x->out->b[i]);
}

gs_status gs_assignment_from_witness(gs_assignment *out, const gs_pk *pk,
                                     const gs_scalar *w, size_t n_w, gs_err *err)
{
    return gs_assignment_from_witness_pool(out, pk, w, n_w, NULL, err);
}

gs_status gs_assignment_from_witness_pool(gs_assignment *out, const gs_pk *pk,
                                          const gs_scalar *w, size_t n_w, gs_pool *pool,
                                          gs_err *err)
{
    memset(out, 0, sizeof *out);
    if (n_w != pk->n_vars)
        return GS_ERR(err, GS_ERR_MISMATCH, "witness", "%zu values, proving key has %u "
                      "variables", n_w, pk->n_vars);
    gs_fr *wm = gs_big_alloc((n_w ? n_w : 1) * sizeof *wm);
    if (!wm)
        return GS_ERR(err, GS_ERR_NOMEM, "witness", "%zu values", n_w);
    unsigned width = gs_pool_width(pool);
    asg_ctx x = {.pk = pk, .w = w, .wm = wm, .out = out, .n_w = n_w,
                 .n_row_parts = width > 4 ? 4 : width};
    atomic_init(&x.bad_wire, n_w);
    atomic_init(&x.bad_coef, pk->n_coefs);
    gs_pool_for(pool, n_w, 4096, wires_chunk, &x);
    if (atomic_load(&x.bad_wire) < n_w) {
        free(wm);
        return GS_ERR(err, GS_ERR_RANGE, "witness", "value of wire %zu is >= r",
                      atomic_load(&x.bad_wire));
    }
    gs_status st = gs_assignment_alloc(out, pk->n_vars, pk->domain_size, err);
    if (st != GS_OK) {
        free(wm);
        return st;
    }
    memcpy(out->w, w, n_w * sizeof *w);
    gs_pool_for(pool, 2 * x.n_row_parts, 1, coefs_task, &x);
    size_t k = atomic_load(&x.bad_coef);
    if (k < pk->n_coefs) {
        const struct gs_coef *cf = &pk->coefs[k];
        gs_assignment_free(out);
        free(wm);
        return GS_ERR(err, GS_ERR_FORMAT, "proving key", "coefficient %zu: matrix %u row "
                      "%u wire %u out of range", k, cf->matrix, cf->row, cf->wire);
    }
    gs_pool_for(pool, pk->domain_size, 4096, c_chunk, &x);
    free(wm);
    return GS_OK;
}
