/*
 * Groth16 over BLS12-381, in snarkjs's conventions (SNARKJS-FORMATS.md):
 * QAP rows = the R1CS constraints followed by one row per public wire
 * (A = w_i), domain n = smallest power of two > nConstraints + nPublic,
 * H points on the odd coset of the 2n-th roots (no division by Z at prove
 * time), gamma = 1 (vk_gamma_2 = G2 generator).
 *
 * H conventions.  A proving key states how its H points fold in the
 * division by Z(X) = X^n - 1 (gs_pk.h_conv); the prover's H scalars follow
 * the key, and both give the same H_msm = h(tau) Z(tau)/delta G1 (h the
 * quotient (A B - C)/Z), hence the same proof for the same r, s:
 *   GS_H_SNARKJS (0, every .zkey): h[j] = L_(2j+1)^(2n)(tau)/delta G1, the
 *     odd-coset Lagrange points; scalars = (A B - C) at w_(2n)^(2j+1):
 *     iNTT, scale by w_(2n)^k, NTT, a'b' - c' (SNARKJS-FORMATS 7.3).
 *   GS_H_CLASSIC (bellman/Zcash style, in-memory keys only): h[i] =
 *     tau^i Z(tau)/delta G1, i < n; scalars = the coefficients of the
 *     quotient h: iNTT, coset NTT on g H with g = GS_FR_GENERATOR (7),
 *     (a'b' - c') (g^n - 1)^-1 (Z is the constant g^n - 1 on that coset),
 *     coset iNTT.  h has degree <= n - 2, so the last scalar is 0 and the
 *     last point is never weighted; it is kept so both conventions have n
 *     points.  A classic key has no .zkey form (gs_zkey_write refuses it).
 *
 * Ownership: _create and _destroy functions allocate and free; structs below own the
 * arrays they point to unless a field says otherwise.
 */
#ifndef GS_GROTH16_H
#define GS_GROTH16_H

#include <stddef.h>
#include <stdint.h>

#include "../../common/pool.h"
#include "../../common/rng.h"
#include "../../common/status.h"
#include "../../common/xtable.h"
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

/* How the H points fold in 1/Z (file comment).  X(enum, name) */
#define GS_H_CONV_TABLE(X)            \
    X(GS_H_SNARKJS, "snarkjs")        \
    X(GS_H_CLASSIC, "classic")
typedef enum { GS_H_CONV_TABLE(GS_XT_ID) GS_H_CONV_COUNT } gs_h_convention;
/* "snarkjs", "classic"; NULL out of range. */
const char *gs_h_convention_name(gs_h_convention c);
/* 1 and *out set when name is one of the names above, else 0. */
int gs_h_convention_from_name(gs_h_convention *out, const char *name);

/* Proving key, the content of a snarkjs .zkey (sections 2-9), plus the H
 * convention (0 = snarkjs, so a zeroed key and every key read from a .zkey
 * are snarkjs keys). */
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
    gs_h_convention h_conv;   /* which H points h holds (file comment) */
    /* When set, ic, a, b1, b2, c and h lie in this one block (the .zkey
     * reader's: one huge-page block instead of six arrays of 4 KiB pages);
     * gs_pk_free frees it instead of the six. */
    void *arena;
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

/* ====================================================================== */
/* Functions (added by the groth16 layer; the types above are the contract */
/* the engine and the CUDA backend were written against).                 */
/* ====================================================================== */

/* ---- R1CS (r1cs.c) ------------------------------------------------------ */

/* nPublic in snarkjs's sense: n_pub_out + n_pub_in (wire 0 not counted). */
uint32_t gs_r1cs_n_public(const gs_r1cs *r);
/* Frees the arrays of r (not r itself) and zeroes it.  NULL-safe. */
void gs_r1cs_free(gs_r1cs *r);
/*
 * Structural check: starts monotone, every wire index < n_wires,
 * n_pub_out + n_pub_in + n_prv_in < n_wires.  GS_ERR_FORMAT naming the
 * constraint and matrix otherwise.
 */
gs_status gs_r1cs_validate(const gs_r1cs *r, gs_err *err);
/* Value of the linear combination terms[0..n) at w (w plain, n_w long;
 * wire indices must be < n_w). Result Montgomery. */
void gs_lc_eval(gs_fr *out, const gs_lc_term *terms, size_t n, const gs_scalar *w);
/*
 * Checks that w (plain scalars, n_w == n_wires, w[0] == 1, every value < r)
 * satisfies every constraint.  GS_ERR_MISMATCH for a wrong length, GS_ERR_RANGE
 * for a value >= r or w[0] != 1, GS_ERR_UNSAT naming the first failing
 * constraint.  pool may be NULL (serial).
 */
gs_status gs_r1cs_check(const gs_r1cs *r, const gs_scalar *w, size_t n_w,
                        gs_pool *pool, gs_err *err);

/* ---- Keys (keys.c) ------------------------------------------------------ */

/* log2 of snarkjs's domain: smallest power of two > n_constraints + n_public
 * (SNARKJS-FORMATS 6.2).  Returns 0 when it would exceed 2^28. */
uint32_t gs_groth16_log_domain(uint32_t n_constraints, uint32_t n_public);
/* Free the arrays of a key and zero it.  NULL-safe. */
void gs_pk_free(gs_pk *pk);
void gs_vk_free(gs_vk *vk);
/* The verifying key of a proving key (copies alpha1, beta2, gamma2, delta2, IC). */
gs_status gs_vk_from_pk(gs_vk *vk, const gs_pk *pk, gs_err *err);

/* ---- Setup from toxic waste (setup.c) ---------------------------------- */

/*
 * INSECURE: the trapdoor is known to whoever calls this.  For tests and for
 * the native circuits only; real deployments use a ceremony (snarkjs).
 */
typedef struct gs_toxic { gs_fr tau, alpha, beta, delta; } gs_toxic;

/* Draws alpha, beta, delta != 0 and tau outside the 2^(log_domain+1)-th roots
 * of unity from rng (so every Lagrange formula below is defined). */
void gs_toxic_draw(gs_toxic *out, gs_rng *rng, uint32_t log_domain);

/*
 * Builds the proving and verifying key snarkjs would build for r1cs with
 * these trapdoors (SNARKJS-FORMATS 6.2-6.5, gamma = 1, delta as given):
 * A/B1/B2 = u_j/v_j(tau) G, C and H divided by delta, IC undivided, the
 * coefficient list (A then B terms per constraint, then the public rows).
 * pk and vk are overwritten (free them with gs_pk_free/gs_vk_free).
 * tox must satisfy gs_toxic_draw's conditions (GS_ERR_ARG otherwise).
 */
gs_status gs_groth16_setup(gs_pk *pk, gs_vk *vk, const gs_r1cs *r1cs,
                           const gs_toxic *tox, gs_pool *pool, gs_err *err);
/* Same with trapdoors drawn from gs_rng seeded by seed (INSECURE). */
gs_status gs_groth16_setup_seeded(gs_pk *pk, gs_vk *vk, const gs_r1cs *r1cs,
                                  uint64_t seed, gs_pool *pool, gs_err *err);
/*
 * The same two with the H convention chosen (the two above make snarkjs
 * keys).  A GS_H_CLASSIC key has h[i] = tau^i Z(tau)/delta G1, i < n, and
 * pk->h_conv = GS_H_CLASSIC; every other point, the coefficients and the
 * vk are those of the snarkjs key from the same trapdoors.  GS_ERR_ARG for
 * a convention out of range.
 */
gs_status gs_groth16_setup_conv(gs_pk *pk, gs_vk *vk, const gs_r1cs *r1cs,
                                const gs_toxic *tox, gs_h_convention conv, gs_pool *pool,
                                gs_err *err);
gs_status gs_groth16_setup_seeded_conv(gs_pk *pk, gs_vk *vk, const gs_r1cs *r1cs,
                                       uint64_t seed, gs_h_convention conv, gs_pool *pool,
                                       gs_err *err);

/*
 * Lagrange basis of the size-n subgroup <w_n> (w_n = gs_fr_root_of_unity)
 * at x: out[i] = L_i(x) = (x^n - 1)/n * w_n^i / (x - w_n^i), i < n.
 * Precondition x^n != 1.  O(n) with one batch inversion.
 */
void gs_lagrange_eval(gs_fr *out, uint32_t log_n, const gs_fr *x, gs_pool *pool);

/* ---- Witness -> QAP vectors (assignment.c) ------------------------------ */

/* Allocates w (n_vars) and zeroed a, b, c (domain_size); frees with
 * gs_assignment_free.  On failure *as is zeroed. */
gs_status gs_assignment_alloc(gs_assignment *as, uint32_t n_vars, uint32_t domain_size,
                              gs_err *err);
void gs_assignment_free(gs_assignment *as);
/*
 * snarkjs 7.2: copies w (plain, n_w == pk->n_vars, values < r), then
 * a[row] += v*w[wire] / b[row] likewise from pk->coefs, c = a*b.
 * *out is allocated here.
 */
gs_status gs_assignment_from_witness(gs_assignment *out, const gs_pk *pk,
                                     const gs_scalar *w, size_t n_w, gs_err *err);
/* The same on a pool (NULL: serially; same result, same errors: the
 * lowest failing wire or coefficient is named). */
gs_status gs_assignment_from_witness_pool(gs_assignment *out, const gs_pk *pk,
                                          const gs_scalar *w, size_t n_w, gs_pool *pool,
                                          gs_err *err);

/* ---- Prove and verify (prove.c, verify.c) ------------------------------ */

/* Draws r, s uniformly in Fr from getrandom(2) (GS_ERR_IO if it fails). */
gs_status gs_groth16_random_rs(gs_scalar *r, gs_scalar *s, gs_err *err);
/*
 * One-shot CPU proof (the CPU backend's start + finish):
 * r, s plain blinding scalars (r = s = 0 gives the deterministic proof of
 * SNARKJS-FORMATS 7.4).  threads: 0 = all cores.
 */
gs_status gs_groth16_prove(gs_proof *out, const gs_pk *pk, const gs_assignment *as,
                           const gs_scalar *r, const gs_scalar *s, int threads,
                           gs_err *err);
/*
 * Verifies proof against vk and the public inputs pub[0..n_pub) (plain;
 * n_pub must equal vk->n_public; each must be < r: GS_ERR_RANGE).
 * Proof points must be on their curves and in the prime-order subgroups
 * (GS_ERR_POINT).  Returns GS_OK for a valid proof, GS_ERR_VERIFY if the
 * pairing check fails.
 */
gs_status gs_groth16_verify(const gs_vk *vk, const gs_scalar *pub, size_t n_pub,
                            const gs_proof *proof, gs_err *err);

#endif
