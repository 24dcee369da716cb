/*
 * Fixture helper (built and run by make_zero_proof_fixture.sh, not part of
 * the library): writes the seeded merkle_poseidon proving key and witness in
 * snarkjs's formats, so snarkjs can prove the same instance.
 *   zero_proof_keys LOG SEED OUTDIR  ->  OUTDIR/circuit.zkey, OUTDIR/witness.wtns
 * Setup trapdoor and synthesis both use SEED (as `gapscope setup` does).
 */
#include <stdio.h>
#include <stdlib.h>

#include "../../io/io.h"
#include "../circuits.h"

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: zero_proof_keys LOG SEED OUTDIR\n");
        return 2;
    }
    unsigned log = (unsigned)strtoul(argv[1], NULL, 10);
    uint64_t seed = strtoull(argv[2], NULL, 10);
    gs_err e;
    gs_err_clear(&e);
    gs_circuit *c;
    gs_pk pk;
    gs_vk vk;
    gs_assignment as;
    char path[4096];
    if (gs_circuit_create(&c, NULL, log, &e) != GS_OK ||
        gs_groth16_setup_seeded(&pk, &vk, gs_circuit_r1cs(c), seed, NULL, &e) != GS_OK ||
        gs_circuit_synthesize(c, &pk, seed, &as, &e) != GS_OK)
        goto fail;
    snprintf(path, sizeof path, "%s/circuit.zkey", argv[3]);
    if (gs_zkey_write(path, &pk, &e) != GS_OK)
        goto fail;
    snprintf(path, sizeof path, "%s/witness.wtns", argv[3]);
    if (gs_wtns_write(path, as.w, as.n_vars, &e) != GS_OK)
        goto fail;
    return 0;
fail:
    fprintf(stderr, "zero_proof_keys: %s\n", e.msg);
    return 1;
}
