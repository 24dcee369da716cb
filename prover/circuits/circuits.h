/*
 * Native circuits: the CPU-heavy synthesis phase the engine's synthesis
 * workers run.  A circuit family (Merkle inclusion proofs over Poseidon with
 * the x^5 S-box, shaped like Filecoin's PoSt/PoRep circuits) is instantiated
 * at a size; synthesis then builds a real witness (hashing, path
 * computation, real allocations) and the QAP evaluation vectors a, b, c for
 * the proving key made from the same circuit.
 *
 * Contract for the engine: gs_circuit_create once per (family, size), then
 * from any number of threads at once gs_circuit_synthesize (the circuit is
 * read-only after creation).
 */
#ifndef GS_CIRCUITS_H
#define GS_CIRCUITS_H

#include <stddef.h>
#include <stdint.h>

#include "../../common/status.h"
#include "../groth16/groth16.h"

typedef struct gs_circuit gs_circuit;

/*
 * porep_sha: the same Poseidon inclusion proofs, but each proof's leaf is
 * the SHA-256 of a 64-byte private preimage (512 bit wires, two SHA-256
 * compressions, the digest truncated to 254 bits as Filecoin's SHA-256
 * trees do), so most constraints and wires are boolean, as in a PoRep C2
 * witness (about 48,000 constraints per proof for the hash); tree depth
 * clamp(log - 10, 1, 16).
 *
 * merkle_poseidon: n_proofs inclusion proofs of challenged leaves against
 * one root of a binary Poseidon tree of depth D = clamp(log - 8, 1, 16)
 * (PoSt-shaped).  Public inputs: w[1] = root, w[2 .. n_proofs+1] = the
 * challenged leaf indices; private inputs: per proof the leaf, its D
 * siblings and D index bits.  About 265 constraints per tree level.
 *
 * Creates the circuit of `family` ("merkle_poseidon"; NULL = default) with
 * about 2^log_constraints constraints (at most that many, and more than
 * half of it: the QAP domain is then 2^log_constraints or 2^(log+1)).
 * Builds the R1CS shape (constraint matrices) once.
 */
gs_status gs_circuit_create(gs_circuit **out, const char *family,
                            uint32_t log_constraints, gs_err *err);
void gs_circuit_destroy(gs_circuit *c);
const gs_r1cs *gs_circuit_r1cs(const gs_circuit *c);
uint32_t gs_circuit_n_public(const gs_circuit *c);

/*
 * Synthesizes one instance: derives private inputs from `seed` (leaves and
 * paths), computes the whole witness, checks A.w o B.w = C.w (GS_ERR_UNSAT
 * otherwise), and fills `out` (allocating w, a, b, c for the domain of
 * `pk`, which must come from this circuit's R1CS).  Public inputs are
 * w[1 .. n_public].  Thread safe.
 */
gs_status gs_circuit_synthesize(const gs_circuit *c, const gs_pk *pk,
                                uint64_t seed, gs_assignment *out, gs_err *err);
/* The same into the caller's buffers (a reused, e.g. page-locked,
 * assignment of the key's n_vars and domain_size; GS_ERR_MISMATCH
 * otherwise): every entry of w, a, b, c is written.  On failure the
 * contents are unspecified and the buffers stay the caller's. */
gs_status gs_circuit_synthesize_into(const gs_circuit *c, const gs_pk *pk,
                                     uint64_t seed, gs_assignment *out, gs_err *err);
void gs_assignment_free(gs_assignment *a);

/* ---- Poseidon (poseidon.c) ---------------------------------------------- */
/*
 * Poseidon over BLS12-381 Fr, width 3, x^5, R_F = 8, R_P = 57, constants by
 * the reference Grain procedure (eprint 2019/458; gen/poseidon_constants.py,
 * which checks the reference vector poseidonperm_x5_255_3).  Montgomery
 * values in and out.  Thread safe.
 */
#define GS_POSEIDON_WIDTH 3
void gs_poseidon_perm(gs_fr st[GS_POSEIDON_WIDTH]);
/* Two-to-one hash: perm(0, a, b)[0]. */
void gs_poseidon_hash2(gs_fr *out, const gs_fr *a, const gs_fr *b);

/* Shape of a merkle_poseidon circuit: tree depth and inclusion proofs. */
uint32_t gs_circuit_depth(const gs_circuit *c);
uint32_t gs_circuit_n_proofs(const gs_circuit *c);

#endif
