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
    int sha;                  /* family porep_sha: leaves are SHA-256 of private preimages */
    gs_r1cs r1cs;
};

/* Witness-side inputs of one merkle_poseidon / porep_sha instance. */
typedef struct {
    gs_fr root;
    uint64_t *index;          /* n_proofs challenged leaf indices */
    gs_fr *leaf;              /* n_proofs */
    gs_fr *sib;               /* n_proofs * depth siblings, leaf level first */
    uint8_t *pre;             /* porep_sha: n_proofs * 64 preimage bytes (leaf = their hash) */
} merkle_inputs;

/* Runs the family's gadgets on s; in = NULL in shape mode.  sha: the
 * porep_sha family (each proof's leaf is the SHA-256 of 512 private bits). */
void gs_merkle_run(cs *s, uint32_t depth, uint32_t n_proofs, int sha, const merkle_inputs *in);

/* ---- SHA-256 (sha256.c) ---------------------------------------------------- */
/* SHA-256 of a 64-byte message (two compressions: the message, the padding). */
void gs_sha256_64(uint8_t out[32], const uint8_t in[64]);
/* A digest as a field element: little-endian bytes, top two bits cleared
 * (254 bits), as Filecoin truncates its SHA-256 tree nodes. */
void gs_sha256_to_fr(gs_fr *out, const uint8_t digest[32]);
/* In the circuit: gs_sha256_to_fr(gs_sha256_64(message)) where message bit
 * k (bit k % 8 of byte k / 8) is the bit wire msg_wire0 + k. */
void gs_sha256_gadget_64_to_fr(cs *s, cs_lc *out, uint32_t msg_wire0);
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
