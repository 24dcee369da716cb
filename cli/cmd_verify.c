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
#include "cli_util.h"

static int verify_main(int argc, char **argv)
{
    const char *pos[3];
    int n_pos = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            printf("usage: gapscope verify verification_key.json public.json proof.json\n"
                   "Exit 0 and OK when the proof is valid, 1 and INVALID when not, 2 on bad input.\n");
            return 0;
        }
        if (n_pos == 3 || (argv[i][0] == '-' && argv[i][1])) {
            fprintf(stderr, "usage: gapscope verify verification_key.json public.json proof.json\n");
            return GS_EXIT_USAGE;
        }
        pos[n_pos++] = argv[i];
    }
    if (n_pos != 3) {
        fprintf(stderr, "usage: gapscope verify verification_key.json public.json proof.json\n");
        return GS_EXIT_USAGE;
    }
    gs_err err;
    gs_err_clear(&err);
    gs_vk vk;
    memset(&vk, 0, sizeof vk);
    gs_proof proof;
    gs_scalar *pub = NULL;
    uint32_t n_pub = 0;
    int rc;
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
