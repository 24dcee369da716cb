/*
 * A native circuit proved with a classic-convention key (groth16.h): the
 * zero-blinding proof equals snarkjs's for the snarkjs key of the same
 * trapdoors (the H MSM is the same point in both conventions), a blinded
 * proof verifies with our verifier and with `snarkjs groth16 verify` (the
 * vk is the snarkjs key's), and a tampered one is rejected by ours.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../test/test.h"
#include "../io/io.h"
#include "circuits.h"

GS_TEST(circuits_classic_key_proof_verifies)
{
    const char *fx = "prover/circuits/testdata/merkle10_seed3_zero_proof.json";
    gs_err e;
    gs_err_clear(&e);
    gs_proof want, got;
    gs_circuit *c = NULL;
    gs_pk pk;
    gs_vk vk;
    gs_assignment as;
    GS_REQUIRE(gs_proof_json_read(&want, fx, &e) == GS_OK);
    GS_REQUIRE(gs_circuit_create(&c, NULL, 10, &e) == GS_OK);
    GS_REQUIRE(gs_groth16_setup_seeded_conv(&pk, &vk, gs_circuit_r1cs(c), 3, GS_H_CLASSIC, NULL,
                                            &e) == GS_OK);
    GS_REQUIRE(gs_circuit_synthesize(c, &pk, 3, &as, &e) == GS_OK);
    GS_CHECK_EQ_INT(pk.h_conv, GS_H_CLASSIC);
    gs_scalar zero = { { 0 } };
    GS_REQUIRE(gs_groth16_prove(&got, &pk, &as, &zero, &zero, 2, &e) == GS_OK);
    GS_CHECK(gs_g1_affine_eq(&got.a, &want.a));
    GS_CHECK(gs_g2_affine_eq(&got.b, &want.b));
    GS_CHECK(gs_g1_affine_eq(&got.c, &want.c));

    gs_scalar r, s;
    GS_REQUIRE(gs_groth16_random_rs(&r, &s, &e) == GS_OK);
    GS_REQUIRE(gs_groth16_prove(&got, &pk, &as, &r, &s, 2, &e) == GS_OK);
    GS_CHECK_OK(gs_groth16_verify(&vk, as.w + 1, vk.n_public, &got, &e));
    gs_proof bad = got;
    gs_g1 t, g;
    gs_g1_generator(&g);
    gs_g1_from_affine(&t, &bad.a);
    gs_g1_add(&t, &t, &g);
    gs_g1_to_affine(&bad.a, &t);
    gs_err_clear(&e);
    GS_CHECK_EQ_INT(gs_groth16_verify(&vk, as.w + 1, vk.n_public, &bad, &e), GS_ERR_VERIFY);

    /* The .zkey form is refused; the JSON files are snarkjs's. */
    char path[1200], vkp[1200], pubp[1200], prp[1200];
    const char *d = gs_test_tmpdir();
    snprintf(path, sizeof path, "%s/classic.zkey", d);
    gs_err_clear(&e);
    GS_CHECK_EQ_INT(gs_zkey_write(path, &pk, &e), GS_ERR_ARG);
    snprintf(vkp, sizeof vkp, "%s/vk.json", d);
    snprintf(pubp, sizeof pubp, "%s/public.json", d);
    snprintf(prp, sizeof prp, "%s/proof.json", d);
    GS_REQUIRE(gs_vk_json_write(vkp, &vk, &e) == GS_OK);
    GS_REQUIRE(gs_public_json_write(pubp, as.w + 1, vk.n_public, &e) == GS_OK);
    GS_REQUIRE(gs_proof_json_write(prp, &got, &e) == GS_OK);
    gs_assignment_free(&as);
    gs_pk_free(&pk);
    gs_vk_free(&vk);
    gs_circuit_destroy(c);
    if (!gs_test_snarkjs()) {
        gs_test_skip("snarkjs not installed in node_modules (make deps installs it)");
        return;
    }
    char cmd[6000], out[8192];
    snprintf(cmd, sizeof cmd, "%s groth16 verify %s %s %s 2>&1", gs_test_snarkjs(), vkp, pubp, prp);
    int rc = gs_test_run(cmd, out, sizeof out);
    GS_CHECK_MSG(rc == 0 && strstr(out, "OK!"), "snarkjs said (%d): %s", rc, out);
}
