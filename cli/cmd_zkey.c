/*
 * gapscope zkey export-vk circuit.zkey verification_key.json
 * (also spelled as snarkjs does: zkey export verificationkey ...).
 */
#include <stdio.h>
#include <string.h>

#include "../prover/common/pool.h"
#include "../prover/io/io.h"
#include "cli.h"
#include "cli_util.h"

static int zkey_main(int argc, char **argv)
{
    const char *in = NULL, *out = NULL;
    if (argc == 4 && !strcmp(argv[1], "export-vk")) {
        in = argv[2];
        out = argv[3];
    } else if (argc == 5 && !strcmp(argv[1], "export") && !strcmp(argv[2], "verificationkey")) {
        in = argv[3];
        out = argv[4];
    } else {
        FILE *f = argc >= 2 && !strcmp(argv[1], "--help") ? stdout : stderr;
        fprintf(f, "usage: gapscope zkey export-vk circuit.zkey verification_key.json\n");
        return f == stdout ? 0 : GS_EXIT_USAGE;
    }
    gs_err err;
    gs_err_clear(&err);
    gs_pk pk;
    gs_vk vk;
    memset(&vk, 0, sizeof vk);
    gs_pool *pool = NULL;
    int rc = GS_EXIT_OK;
    if (gs_pool_create(&pool, 0, &err) != GS_OK || gs_zkey_read(&pk, in, 0, pool, &err) != GS_OK) {
        rc = gs_cli_fail("zkey", &err);
        goto out;
    }
    if (gs_vk_from_pk(&vk, &pk, &err) != GS_OK || gs_vk_json_write(out, &vk, &err) != GS_OK)
        rc = gs_cli_fail("zkey", &err);
    gs_pk_free(&pk);
out:
    gs_vk_free(&vk);
    gs_pool_destroy(pool);
    return rc;
}

GS_CLI_COMMAND(zkey, "zkey", "zkey export-vk: the verification key of a .zkey", zkey_main)
