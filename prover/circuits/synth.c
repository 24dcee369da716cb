/*
 * Synthesis of one merkle_poseidon instance (the CPU phase the engine's
 * synthesis workers run): derive the instance from the seed and hash its
 * tree natively, run the gadgets in witness mode (every S-box value), then
 * one pass over the R1CS that both checks A.w * B.w = C.w row by row and
 * writes the QAP vectors a, b, c of snarkjs's layout (SNARKJS-FORMATS 7.2:
 * constraint rows, then a[nCons + i] = w[i] for the public rows i <= nPublic,
 * zero beyond; c = a * b).
 */
#include <stdlib.h>
#include <string.h>

#include "circuits_internal.h"

/* <terms, w> with w Montgomery. */
static void lc_eval_m(gs_fr *out, const gs_lc_term *t, uint64_t n, const gs_fr *w)
{
    gs_fr acc, x;
    gs_fr_zero(&acc);
    for (uint64_t k = 0; k < n; k++) {
        gs_fr_mul(&x, &t[k].coeff, &w[t[k].wire]);
        gs_fr_add(&acc, &acc, &x);
    }
    *out = acc;
}

static gs_status check_pk(const gs_circuit *c, const gs_pk *pk, gs_err *err)
{
    const gs_r1cs *r = &c->r1cs;
    uint32_t log = gs_groth16_log_domain(r->n_constraints, c->n_public);
    if (pk->n_vars != r->n_wires || pk->n_public != c->n_public ||
        pk->domain_size != (1u << log))
        return GS_ERR(err, GS_ERR_MISMATCH, "synthesis", "proving key (%u vars, %u public, "
                      "domain %u) is not this circuit's (%u wires, %u public, domain %u)",
                      pk->n_vars, pk->n_public, pk->domain_size, r->n_wires, c->n_public,
                      1u << log);
    return GS_OK;
}

/* prealloc: out holds buffers of the key's sizes already (the caller's,
 * reused: a, b, c are zeroed past the rows written here); else allocated. */
static gs_status synthesize(const gs_circuit *c, const gs_pk *pk, uint64_t seed,
                            uint32_t tamper_wire, gs_assignment *out, int prealloc,
                            gs_err *err)
{
    const gs_r1cs *r = &c->r1cs;
    if (!prealloc)
        memset(out, 0, sizeof *out);
    merkle_inputs in;
    cs s;
    memset(&s, 0, sizeof s);
    gs_status st = check_pk(c, pk, err);
    if (st != GS_OK)
        return st;
    if (prealloc && (out->n_vars != r->n_wires || out->domain_size != pk->domain_size ||
                     !out->w || !out->a || !out->b || !out->c))
        return GS_ERR(err, GS_ERR_MISMATCH, "synthesis", "buffers for %u wires, domain %u; "
                      "the key needs %u wires, domain %u", out->n_vars, out->domain_size,
                      r->n_wires, pk->domain_size);
    if ((st = gs_merkle_derive_inputs(&in, c, seed, err)) != GS_OK)
        goto fail;

    cs_init_witness(&s, r->n_wires);
    gs_merkle_run(&s, c->depth, c->n_proofs, c->sha, &in);
    if (s.st != GS_OK) {
        st = GS_ERR(err, s.st, "synthesis", "witness run: %s", s.why);
        goto fail;
    }
    if (s.n_wires != r->n_wires || s.n_constraints != r->n_constraints) {
        st = GS_ERR(err, GS_ERR_INTERNAL, "synthesis", "witness run made %u wires / %u "
                    "constraints, shape has %u / %u", s.n_wires, s.n_constraints,
                    r->n_wires, r->n_constraints);
        goto fail;
    }
    if (tamper_wire && tamper_wire < r->n_wires) {
        gs_fr one;
        gs_fr_one(&one);
        gs_fr_add(&s.w[tamper_wire], &s.w[tamper_wire], &one);
    }

    if (prealloc) {
        size_t n = pk->domain_size, rows = r->n_constraints, pub = rows + c->n_public + 1;
        memset(out->a + pub, 0, (n - pub) * sizeof *out->a);
        memset(out->b + rows, 0, (n - rows) * sizeof *out->b);
        memset(out->c + rows, 0, (n - rows) * sizeof *out->c);
    } else if ((st = gs_assignment_alloc(out, r->n_wires, pk->domain_size, err)) != GS_OK) {
        goto fail;
    }
    for (uint32_t i = 0; i < r->n_constraints; i++) {
        gs_fr cc;
        lc_eval_m(&out->a[i], r->a_terms + r->a_start[i], r->a_start[i + 1] - r->a_start[i],
                  s.w);
        lc_eval_m(&out->b[i], r->b_terms + r->b_start[i], r->b_start[i + 1] - r->b_start[i],
                  s.w);
        lc_eval_m(&cc, r->c_terms + r->c_start[i], r->c_start[i + 1] - r->c_start[i], s.w);
        gs_fr_mul(&out->c[i], &out->a[i], &out->b[i]);
        if (!gs_fr_eq(&out->c[i], &cc)) {
            st = GS_ERR(err, GS_ERR_UNSAT, "synthesis", "seed %llu: constraint %u of %u not "
                        "satisfied", (unsigned long long)seed, i, r->n_constraints);
            goto fail;
        }
    }
    for (uint32_t j = 0; j <= c->n_public; j++)
        out->a[r->n_constraints + j] = s.w[j];
    for (uint32_t j = 0; j < r->n_wires; j++)
        gs_fr_to_scalar(&out->w[j], &s.w[j]);
    cs_deinit(&s);
    gs_merkle_free_inputs(&in);
    return GS_OK;
fail:
    if (!prealloc)
        gs_assignment_free(out);
    cs_deinit(&s);
    gs_merkle_free_inputs(&in);
    return st;
}

gs_status gs_circuit_synthesize_tampered(const gs_circuit *c, const gs_pk *pk, uint64_t seed,
                                         uint32_t tamper_wire, gs_assignment *out,
                                         gs_err *err)
{
    return synthesize(c, pk, seed, tamper_wire, out, 0, err);
}

gs_status gs_circuit_synthesize(const gs_circuit *c, const gs_pk *pk, uint64_t seed,
                                gs_assignment *out, gs_err *err)
{
    return synthesize(c, pk, seed, 0, out, 0, err);
}

gs_status gs_circuit_synthesize_into(const gs_circuit *c, const gs_pk *pk, uint64_t seed,
                                     gs_assignment *out, gs_err *err)
{
    return synthesize(c, pk, seed, 0, out, 1, err);
}
