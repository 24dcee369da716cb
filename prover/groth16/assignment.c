/*
 * From a witness to the QAP evaluation vectors the prover consumes, exactly
 * as snarkjs does it (SNARKJS-FORMATS 7.2, groth16_prove.js / buildABC1):
 * a[row] += v * w[wire] over the A records of the coefficient list, b the
 * same over the B records, and c[i] = a[i] * b[i] for every i < n (the C
 * matrix is never consulted).
 */
#include <stdlib.h>
#include <string.h>

#include "../common/bigmem.h"
#include "groth16.h"

gs_status gs_assignment_alloc(gs_assignment *as, uint32_t n_vars, uint32_t domain_size,
                              gs_err *err)
{
    memset(as, 0, sizeof *as);
    as->w = malloc((size_t)(n_vars ? n_vars : 1) * sizeof *as->w);
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

gs_status gs_assignment_from_witness(gs_assignment *out, const gs_pk *pk,
                                     const gs_scalar *w, size_t n_w, gs_err *err)
{
    memset(out, 0, sizeof *out);
    if (n_w != pk->n_vars)
        return GS_ERR(err, GS_ERR_MISMATCH, "witness", "%zu values, proving key has %u "
                      "variables", n_w, pk->n_vars);
    gs_fr *wm = malloc((n_w ? n_w : 1) * sizeof *wm);
    if (!wm)
        return GS_ERR(err, GS_ERR_NOMEM, "witness", "%zu values", n_w);
    for (size_t j = 0; j < n_w; j++)
        if (!gs_fr_from_scalar(&wm[j], &w[j])) {
            free(wm);
            return GS_ERR(err, GS_ERR_RANGE, "witness", "value of wire %zu is >= r", j);
        }
    gs_status st = gs_assignment_alloc(out, pk->n_vars, pk->domain_size, err);
    if (st != GS_OK) {
        free(wm);
        return st;
    }
    memcpy(out->w, w, n_w * sizeof *w);
    for (size_t k = 0; k < pk->n_coefs; k++) {
        const struct gs_coef *cf = &pk->coefs[k];
        if (cf->row >= pk->domain_size || cf->wire >= pk->n_vars || cf->matrix > 1) {
            gs_assignment_free(out);
            free(wm);
            return GS_ERR(err, GS_ERR_FORMAT, "proving key", "coefficient %zu: matrix %u row "
                          "%u wire %u out of range", k, cf->matrix, cf->row, cf->wire);
        }
        gs_fr t;
        gs_fr_mul(&t, &cf->value, &wm[cf->wire]);
        gs_fr *dst = cf->matrix == 0 ? &out->a[cf->row] : &out->b[cf->row];
        gs_fr_add(dst, dst, &t);
    }
    for (size_t i = 0; i < pk->domain_size; i++)
        gs_fr_mul(&out->c[i], &out->a[i], &out->b[i]);
    free(wm);
    return GS_OK;
}
