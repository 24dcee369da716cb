/*
 * R1CS helpers: free, structural validation, and the satisfaction check
 * <A_i,w> * <B_i,w> = <C_i,w> for every constraint i.
 *
 * The check runs over the pool in chunks of constraints; each chunk records
 * the lowest failing index it saw, and the lowest over all chunks is
 * reported, so the message does not depend on thread scheduling.
 */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "groth16.h"

uint32_t gs_r1cs_n_public(const gs_r1cs *r)
{
    return r->n_pub_out + r->n_pub_in;
}

void gs_r1cs_free(gs_r1cs *r)
{
    if (!r)
        return;
    free(r->a_start);
    free(r->b_start);
    free(r->c_start);
    free(r->a_terms);
    free(r->b_terms);
    free(r->c_terms);
    memset(r, 0, sizeof *r);
}

static gs_status validate_matrix(const gs_r1cs *r, const uint64_t *start,
                                 const gs_lc_term *terms, const char *name, gs_err *err)
{
    if (!start || start[0] != 0)
        return GS_ERR(err, GS_ERR_FORMAT, "r1cs", "matrix %s: missing or bad row index", name);
    if (start[r->n_constraints] && !terms)
        return GS_ERR(err, GS_ERR_FORMAT, "r1cs", "matrix %s: terms missing", name);
    for (uint32_t i = 0; i < r->n_constraints; i++) {
        if (start[i + 1] < start[i])
            return GS_ERR(err, GS_ERR_FORMAT, "r1cs",
                          "matrix %s, constraint %u: row start decreases", name, i);
        for (uint64_t k = start[i]; k < start[i + 1]; k++)
            if (terms[k].wire >= r->n_wires)
                return GS_ERR(err, GS_ERR_FORMAT, "r1cs",
                              "matrix %s, constraint %u: wire %u >= n_wires %u", name, i,
                              terms[k].wire, r->n_wires);
    }
    return GS_OK;
}

gs_status gs_r1cs_validate(const gs_r1cs *r, gs_err *err)
{
    uint64_t io = (uint64_t)r->n_pub_out + r->n_pub_in + r->n_prv_in;
    if (r->n_wires == 0 || io >= r->n_wires)
        return GS_ERR(err, GS_ERR_FORMAT, "r1cs",
                      "n_wires %u must exceed 1 + inputs/outputs (%llu)", r->n_wires,
                      (unsigned long long)io);
    gs_status st = validate_matrix(r, r->a_start, r->a_terms, "A", err);
    if (st == GS_OK)
        st = validate_matrix(r, r->b_start, r->b_terms, "B", err);
    if (st == GS_OK)
        st = validate_matrix(r, r->c_start, r->c_terms, "C", err);
    return st;
}

void gs_lc_eval(gs_fr *out, const gs_lc_term *terms, size_t n, const gs_scalar *w)
{
    gs_fr acc, v, t;
    gs_fr_zero(&acc);
    for (size_t k = 0; k < n; k++) {
        /* w is plain; from_scalar makes it Montgomery (caller checked < r). */
        gs_fr_from_scalar(&v, &w[terms[k].wire]);
        gs_fr_mul(&t, &v, &terms[k].coeff);
        gs_fr_add(&acc, &acc, &t);
    }
    *out = acc;
}

typedef struct {
    const gs_r1cs *r;
    const gs_scalar *w;
    _Atomic size_t first_bad;     /* lowest failing constraint index seen */
} check_ctx;

static void check_chunk(void *vctx, size_t begin, size_t end, unsigned slot)
{
    (void)slot;
    check_ctx *c = vctx;
    const gs_r1cs *r = c->r;
    for (size_t i = begin; i < end; i++) {
        gs_fr a, b, cc, ab;
        gs_lc_eval(&a, r->a_terms + r->a_start[i], r->a_start[i + 1] - r->a_start[i], c->w);
        gs_lc_eval(&b, r->b_terms + r->b_start[i], r->b_start[i + 1] - r->b_start[i], c->w);
        gs_lc_eval(&cc, r->c_terms + r->c_start[i], r->c_start[i + 1] - r->c_start[i], c->w);
        gs_fr_mul(&ab, &a, &b);
        if (!gs_fr_eq(&ab, &cc)) {
            gs_atomic_min_size(&c->first_bad, i);
            return;
        }
    }
}

gs_status gs_r1cs_check(const gs_r1cs *r, const gs_scalar *w, size_t n_w,
                        gs_pool *pool, gs_err *err)
{
    if (n_w != r->n_wires)
        return GS_ERR(err, GS_ERR_MISMATCH, "witness", "%zu values for %u wires", n_w,
                      r->n_wires);
    gs_fr tmp;
    for (size_t j = 0; j < n_w; j++)
        if (!gs_fr_from_scalar(&tmp, &w[j]))
            return GS_ERR(err, GS_ERR_RANGE, "witness", "value of wire %zu is >= r", j);
    gs_fr_from_scalar(&tmp, &w[0]);
    if (!gs_fr_is_one(&tmp))
        return GS_ERR(err, GS_ERR_RANGE, "witness", "wire 0 must be 1");
    check_ctx c = { .r = r, .w = w };
    atomic_init(&c.first_bad, SIZE_MAX);
    gs_pool_for(pool, r->n_constraints, 0, check_chunk, &c);
    size_t bad = atomic_load(&c.first_bad);
    if (bad != SIZE_MAX)
        return GS_ERR(err, GS_ERR_UNSAT, "r1cs", "constraint %llu: A.w * B.w != C.w",
                      (unsigned long long)bad);
    return GS_OK;
}
