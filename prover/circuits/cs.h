/*
 * Internal to prover/circuits: a constraint-system builder that runs the
 * same gadget code in two modes (the bellman ConstraintSystem pattern):
 *
 *   shape   : cs_alloc numbers wires, cs_enforce appends a constraint; the
 *             result becomes the circuit's gs_r1cs (built once per circuit);
 *   witness : cs_alloc stores the value, cs_enforce only counts, so wire and
 *             constraint numbering match the shape run exactly.
 *
 * Linear combinations are small fixed arrays that carry their value (in
 * witness mode), so gadgets compute the witness while they describe the
 * constraints.  Wire 0 is the constant 1 (CS_ONE).  All values Montgomery.
 *
 * Errors (allocation failure, an LC overflowing CS_LC_MAX) are sticky in
 * cs->st; callers check it once at the end.
 */
#ifndef GS_CIRCUITS_CS_H
#define GS_CIRCUITS_CS_H

#include "../groth16/groth16.h"

#define CS_ONE 0u
#define CS_LC_MAX 24

typedef struct {
    uint32_t n;
    gs_lc_term t[CS_LC_MAX];
    gs_fr val;                /* value at the current witness (witness mode) */
} cs_lc;

typedef struct {
    uint64_t *start;          /* n_constraints + 1 */
    gs_lc_term *terms;
    size_t n_terms, cap_terms;
} cs_matrix;

typedef struct cs {
    int witness;              /* 1: witness mode, 0: shape mode */
    uint32_t n_wires, n_constraints;
    gs_fr *w;                 /* witness mode: values, capacity w_cap */
    uint32_t w_cap;
    cs_matrix m[3];           /* shape mode: A, B, C */
    uint32_t cap_rows;
    gs_status st;
    const char *why;          /* detail for st */
} cs;

/* Shape mode. */
void cs_init_shape(cs *s);
/* Witness mode for a circuit of exactly n_wires wires (w allocated here). */
void cs_init_witness(cs *s, uint32_t n_wires);
void cs_deinit(cs *s);

/* A new wire with value *val (ignored in shape mode; may be NULL there). */
uint32_t cs_alloc(cs *s, const gs_fr *val);
/* Appends <a> * <b> = <c>. */
void cs_enforce(cs *s, const cs_lc *a, const cs_lc *b, const cs_lc *c);

/* Moves the shape into r (r owns the arrays afterwards; s is emptied). */
gs_status cs_take_r1cs(cs *s, gs_r1cs *r, uint32_t n_pub_in, uint32_t n_prv_in, gs_err *err);

/* ---- linear combinations ------------------------------------------------ */
void lc_zero(cs_lc *out);
/* 1 * wire, with value *val (its witness value; NULL = zero in shape mode). */
void lc_wire(cs_lc *out, const cs *s, uint32_t wire);
void lc_const(cs_lc *out, const gs_fr *k);
/* out += k * a (terms on the same wire are merged). */
void lc_add_scaled(cs *s, cs_lc *out, const cs_lc *a, const gs_fr *k);
void lc_add(cs *s, cs_lc *out, const cs_lc *a);
void lc_sub(cs *s, cs_lc *out, const cs_lc *a);
/* If a has more than max_terms terms, replaces it by a fresh wire v with the
 * constraint a * 1 = v (one constraint). */
void lc_compact(cs *s, cs_lc *a, uint32_t max_terms);

#endif
