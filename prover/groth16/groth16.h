/*
 * Groth16 over BLS12-381, in snarkjs's conventions (SNARKJS-FORMATS.md):
 * QAP rows = the R1CS constraints followed by one row per public wire
 * (A = w_i), domain n = smallest power of two > nConstraints + nPublic,
 * H points on the odd coset of the 2n-th roots (no division by Z at prove
 * time), gamma = 1 (vk_gamma_2 = G2 generator).
 *
 * Ownership: *_create/*_destroy allocate and free; structs below own the
 * arrays they point to unless a field says otherwise.
 */
#ifndef GS_GROTH16_H
#define GS_GROTH16_H

#include <stddef.h>
#include <stdint.h>

#include "../common/status.h"
#include "../curve/curve.h"
#include "../field/field.h"

/* One term of a linear combination: coeff * w[wire]. coeff is Montgomery. */
typedef struct { uint32_t wire; gs_fr coeff; } gs_lc_term;

/* R1CS in memory: constraint i is <A_i,w> * <B_i,w> = <C_i,w>.
 * Terms of row i of matrix M are M_terms[M_start[i] .. M_start[i+1]). */
typedef struct gs_r1cs {
    uint32_t n_wires;      /* wire 0 is the constant 1 */
    uint32_t n_pub_out, n_pub_in, n_prv_in;
    uint32_t n_constraints;
    uint64_t *a_start, *b_start, *c_start;   /* n_constraints + 1 each */
    gs_lc_term *a_terms, *b_terms, *c_terms;
} gs_r1cs;

/* Proving key, the content of a snarkjs .zkey (sections 2-9). */
typedef struct gs_pk {
    uint32_t n_vars, n_public, domain_size, log_domain;
    gs_g1_affine alpha1, beta1, delta1;
    gs_g2_affine beta2, gamma2, delta2;
    gs_g1_affine *ic;     /* n_public + 1 */
    gs_g1_affine *a;      /* n_vars (infinity for unused wires) */
    gs_g1_affine *b1;     /* n_vars */
    gs_g2_affine *b2;     /* n_vars */
    gs_g1_affine *c;      /* n_vars - n_public - 1 */
    gs_g1_affine *h;      /* domain_size */
    /* Coefficients (zkey section 4): A and B entries only, coef Montgomery. */
    size_t n_coefs;
    struct gs_coef { uint32_t matrix, row, wire; gs_fr value; } *coefs;
} gs_pk;

typedef struct gs_vk {
    uint32_t n_public;
    gs_g1_affine alpha1;
    gs_g2_affine beta2, gamma2, delta2;
    gs_g1_affine *ic;     /* n_public + 1 */
} gs_vk;

typedef struct gs_proof {
    gs_g1_affine a;
    gs_g2_affine b;
    gs_g1_affine c;
} gs_proof;

/*
 * What synthesis hands to the prover for one partition: the witness (plain
 * scalars, w[0] = 1, length n_vars) and the QAP evaluation vectors
 * a[i] = <A_i,w>, b[i] = <B_i,w>, c[i] = a[i]*b[i] over the n-domain
 * (Montgomery, length domain_size; zero past the last QAP row).
 */
typedef struct gs_assignment {
    uint32_t n_vars, domain_size;
    gs_scalar *w;
    gs_fr *a, *b, *c;
} gs_assignment;

#endif
