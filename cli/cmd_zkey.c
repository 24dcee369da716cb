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
#include "cli_opts.h"
#include "cli_util.h"

typedef struct {
    gs_cli_list in;
    const char *records;
} check_args;

static const gs_cli_opt zkey_opts[] = {
    GS_CLI_STR("--key-records", NULL, "DIR|off",
               "check: where the key record goes (as for `gapscope prove`;\n"
               "off: none)",
               check_args, records),
    GS_CLI_END};

static const gs_cli_spec zkey_spec = {
    .cmd = "zkey",
    .usage = "usage: gapscope zkey export-vk circuit.zkey verification_key.json\n"
             "       gapscope zkey check [--key-records DIR|off] circuit.zkey\n"
             "\n"
             "check: every point's subgroup membership, now (as `prove` does on a key's\n"
             "first use), then a key record so proves skip the checks.  Prints the key's\n"
             "SHA-256 and OK (exit 0), or names the bad point's byte offset (exit 1).\n"
             "export-vk (also spelled `export verificationkey`, as snarkjs does): the\n"
             "key's verification key as snarkjs's JSON.\n\n",
    .opts = zkey_opts,
    GS_CLI_ARGS(check_args, in, 1, 1),
};

/* gapscope zkey check [--key-records DIR|off] circuit.zkey (argv[0] "check") */
static int zkey_check(int argc, char **argv)
{
    check_args a = {.records = NULL};
    int rc = gs_cli_parse(&zkey_spec, &a, argc, argv, NULL);
    if (rc != GS_CLI_GO)
        return rc;
    gs_zkey_opts o = {GS_ZKEY_CHECK_FORCE, NULL};
    if (a.records)
        o.record_dir = strcmp(a.records, "off") ? a.records : "";
    const char *in = a.in.v[0];
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
        rc = gs_cli_fail("zkey", &err);
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
        return zkey_check(argc - 1, argv + 1);
    if (argc == 4 && !strcmp(argv[1], "export-vk")) {
        in = argv[2];
        out = argv[3];
    } else if (argc == 5 && !strcmp(argv[1], "export") && !strcmp(argv[2], "verificationkey")) {
        in = argv[3];
        out = argv[4];
    } else if (argc == 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
        gs_cli_help(&zkey_spec, stdout);
        return GS_EXIT_OK;
    } else {
        return gs_cli_usage_error(&zkey_spec);
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
