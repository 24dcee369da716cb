/*
 * gapscope zkey export-vk circuit.zkey verification_key.json
 * (also spelled as snarkjs does: zkey export verificationkey ...), and
 * gapscope zkey check circuit.zkey: the subgroup checks `prove` makes on
 * a key's first use, run now, with the key record written (prover/io/io.h).
 */
#include <stdio.h>
#include <string.h>

#include "../common/pool.h"
#include "../prover/io/io.h"
#include "cli.h"
#include "cli_util.h"

static void usage(FILE *f)
{
    fprintf(f, "usage: gapscope zkey export-vk circuit.zkey verification_key.json\n"
               "       gapscope zkey check [--key-records DIR|off] circuit.zkey\n"
               "\n"
               "check: every point's subgroup membership, now (as `prove` does on a key's\n"
               "first use), then a key record so proves skip the checks.  Prints the key's\n"
               "SHA-256 and OK (exit 0), or names the bad point's byte offset (exit 1).\n");
}

/* gapscope zkey check [--key-records DIR|off] circuit.zkey */
static int zkey_check(int argc, char **argv)
{
    gs_zkey_opts o = {GS_ZKEY_CHECK_FORCE, NULL};
    const char *in = NULL;
    for (int i = 2; i < argc; i++) {
        if (!strcmp(argv[i], "--key-records") && i + 1 < argc) {
            o.record_dir = strcmp(argv[i + 1], "off") ? argv[i + 1] : "";
            i++;
        } else if (argv[i][0] == '-' || in) {
            usage(stderr);
            return GS_EXIT_USAGE;
        } else {
            in = argv[i];
        }
    }
    if (!in) {
        usage(stderr);
        return GS_EXIT_USAGE;
    }
    gs_err err;
    gs_err_clear(&err);
    gs_pool *pool = NULL;
    gs_pk pk;
    gs_zkey_info info;
    if (gs_pool_create(&pool, 0, &err) != GS_OK)
        return gs_cli_fail("zkey", &err);
    gs_status s = gs_zkey_load(&pk, &info, in, &o, pool, &err);
    gs_pool_destroy(pool);
    if (s != GS_OK) {
        int rc = gs_cli_fail("zkey", &err);
        return s == GS_ERR_POINT ? GS_EXIT_NO : rc;
    }
    gs_pk_free(&pk);
    printf("%s  %s\nOK: %zu points in their subgroups (read %.3f s, checks %.3f s)\n",
           info.sha256, in, info.points, info.read_s, info.check_s);
    if (info.record_written)
        printf("record: %s\n", info.record_path);
    else if (info.record_note[0])
        printf("no record: %s\n", info.record_note);
    return GS_EXIT_OK;
}

static int zkey_main(int argc, char **argv)
{
    const char *in = NULL, *out = NULL;
    if (argc >= 2 && !strcmp(argv[1], "check"))
        return zkey_check(argc, argv);
    if (argc == 4 && !strcmp(argv[1], "export-vk")) {
        in = argv[2];
        out = argv[3];
    } else if (argc == 5 && !strcmp(argv[1], "export") && !strcmp(argv[2], "verificationkey")) {
        in = argv[3];
        out = argv[4];
    } else {
        FILE *f = argc >= 2 && !strcmp(argv[1], "--help") ? stdout : stderr;
        usage(f);
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

GS_CLI_COMMAND(zkey, "zkey", "zkey export-vk | check: a .zkey's verification key; check its points now",
               zkey_main)
