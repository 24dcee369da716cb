/*
 * libFuzzer target: the JSON reader (common/json.c) and the snarkjs
 * proof / public-signals / verification-key readers on top of it
 * (prover/io/json_io.c), as `gapscope verify` calls them.
 *
 * The input is parsed in memory and then, as a file, by each of the three
 * readers.  A document one of them accepts is written back with the
 * matching writer; that output must read back and write out byte for byte
 * the same (the writers' form is a fixed point).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/outfile.h"
#include "../common/json.h"
#include "../prover/io/io.h"
#include "fz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    gs_json *j = NULL;
    gs_err err;
    gs_err_clear(&err);
    gs_status st = gs_json_parse(&j, (const char *)data, size, "mem.json", &err);
    if (st == GS_OK)
        gs_json_free(j);
    else
        fz_check_error(st, &err, "mem.json", 1);

    const char *p = fz_write("in.json", data, size);
    char path[768], a[768], b[768];
    snprintf(path, sizeof path, "%s", p);
    snprintf(a, sizeof a, "%s", fz_path("a.json"));
    snprintf(b, sizeof b, "%s", fz_path("b.json"));

    gs_proof proof;
    gs_err_clear(&err);
    if ((st = gs_proof_json_read(&proof, path, &err)) != GS_OK) {
        fz_check_error(st, &err, path, 1);
    } else {
        if (gs_proof_json_write(a, &proof, &err) != GS_OK ||
            gs_proof_json_read(&proof, a, &err) != GS_OK ||
            gs_proof_json_write(b, &proof, &err) != GS_OK)
            fz_fail("proof round trip: %s", err.msg);
        fz_same_files(a, b, "proof.json");
    }

    gs_scalar *pub = NULL;
    uint32_t n = 0;
    gs_err_clear(&err);
    if ((st = gs_public_json_read(&pub, &n, path, &err)) != GS_OK) {
        fz_check_error(st, &err, path, 1);
    } else {
        if (gs_public_json_write(a, pub, n, &err) != GS_OK)
            fz_fail("public round trip: %s", err.msg);
        free(pub);
        pub = NULL;
        if (gs_public_json_read(&pub, &n, a, &err) != GS_OK ||
            gs_public_json_write(b, pub, n, &err) != GS_OK)
            fz_fail("public round trip: %s", err.msg);
        free(pub);
        fz_same_files(a, b, "public.json");
    }

    gs_vk vk;
    gs_err_clear(&err);
    if ((st = gs_vk_json_read(&vk, path, &err)) != GS_OK) {
        fz_check_error(st, &err, path, 1);
    } else {
        if (gs_vk_json_write(a, &vk, &err) != GS_OK)
            fz_fail("vk round trip: %s", err.msg);
        gs_vk_free(&vk);
        if (gs_vk_json_read(&vk, a, &err) != GS_OK || gs_vk_json_write(b, &vk, &err) != GS_OK)
            fz_fail("vk round trip: %s", err.msg);
        gs_vk_free(&vk);
        fz_same_files(a, b, "verification_key.json");
    }
    static const char *const left[] = {"in.json", "a.json", "b.json", NULL};
    fz_expect_files(left);
    return 0;
}
