/*
 * Internal to prover/circuits: the Poseidon gadget and the Merkle family's
 * synthesis entry with a fault hook for tests.  Not part of the contract.
 */
#ifndef GS_CIRCUITS_INTERNAL_H
#define GS_CIRCUITS_INTERNAL_H

#include "circuits.h"
#include "cs.h"

struct gs_circuit {
    uint32_t log_constraints, depth, n_proofs, n_public;
    gs_r1cs r1cs;
};

/* Witness-side inputs of one merkle_poseidon instance. */
typedef struct {
    gs_fr root;
    uint64_t *index;          /* n_proofs challenged leaf indices */
    gs_fr *leaf;              /* n_proofs */
    gs_fr *sib;               /* n_proofs * depth siblings, leaf level first */
} merkle_inputs;

/* Runs the family's gadgets on s; in = NULL in shape mode. */
void gs_merkle_run(cs *s, uint32_t depth, uint32_t n_proofs, const merkle_inputs *in);
/* Builds the instance of `seed` natively (tree, challenges, paths). */
gs_status gs_merkle_derive_inputs(merkle_inputs *in, const gs_circuit *c, uint64_t seed,
                                  gs_err *err);
void gs_merkle_free_inputs(merkle_inputs *in);

/* In-circuit Poseidon permutation / two-to-one hash (same function as
 * gs_poseidon_perm / gs_poseidon_hash2, values carried in the LCs). */
void gs_poseidon_gadget_perm(cs *s, cs_lc st[GS_POSEIDON_WIDTH]);
void gs_poseidon_gadget_hash2(cs *s, cs_lc *out, const cs_lc *a, const cs_lc *b);

/*
 * gs_circuit_synthesize with a fault: when tamper_wire != 0, that wire's
 * value is incremented after the witness is computed and before the
 * satisfaction check (tests: must give GS_ERR_UNSAT).
 */
gs_status gs_circuit_synthesize_tampered(const gs_circuit *c, const gs_pk *pk, uint64_t seed,
                                         uint32_t tamper_wire, gs_assignment *out,
                                         gs_err *err);

#endif
