/*
 * gapscope verify verification_key.json public.json proof.json
 * (snarkjs's argument order): prints OK and exits 0 for a valid proof,
 * prints INVALID and exits 1 otherwise; bad input exits 2.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../prover/io/io.h"
#include "cli.h"
#include "cli_opts.h"
#include "cli_util.h"

static const gs_cli_opt verify_opts[] = {GS_CLI_END};

static const gs_cli_spec verify_spec = {
    .cmd = "verify",
    .usage = "usage: gapscope verify verification_key.json public.json proof.json\n"
             "Exit 0 and OK when the proof is valid, 1 and INVALID when not, 2 on bad input.\n",
    .opts = verify_opts,
    GS_CLI_ARGS(gs_cli_list, v, 3, 3),
};

static int verify_main(int argc, char **argv)
{
    gs_cli_list a = {.n = 0};
    int rc = gs_cli_parse(&verify_spec, &a, argc, argv, NULL);
    if (rc != GS_CLI_GO)
        return rc;
    const char *const *pos = a.v;
    gs_err err;
    gs_err_clear(&err);
    gs_vk vk;
    memset(&vk, 0, sizeof vk);
    gs_proof proof;
    gs_scalar *pub = NULL;
    uint32_t n_pub = 0;
    if (gs_vk_json_read(&vk, pos[0], &err) != GS_OK ||
        gs_public_json_read(&pub, &n_pub, pos[1], &err) != GS_OK ||
        gs_proof_json_read(&proof, pos[2], &err) != GS_OK) {
        rc = gs_cli_fail("verify", &err);
        goto out;
    }
    if (n_pub != vk.n_public) {
        gs_err_set(&err, GS_ERR_MISMATCH, "verify", pos[1],
                   "%u public signals, the verification key expects %u", n_pub, vk.n_public);
        rc = gs_cli_fail("verify", &err);
        goto out;
    }
    gs_status s = gs_groth16_verify(&vk, pub, n_pub, &proof, &err);
    if (s == GS_OK) {
        printf("OK\n");
        rc = GS_EXIT_OK;
    } else if (s == GS_ERR_VERIFY || s == GS_ERR_POINT) {
        printf("INVALID: %s\n", err.msg[0] ? err.msg : gs_status_message(s));
        rc = GS_EXIT_NO;
    } else {
        rc = gs_cli_fail("verify", &err);
    }
out:
    free(pub);
    gs_vk_free(&vk);
    return rc;
}

GS_CLI_COMMAND(verify, "verify", "verify a Groth16 proof (snarkjs JSON files)", verify_main)
