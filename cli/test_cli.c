/*
 * End-to-end tests of the gapscope binary ($GS_BIN, set by make test):
 * interop with snarkjs both ways, and bad input giving exit 2 with no
 * partial output.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../prover/cuda/cuda.h"
#include "../prover/curve/curve.h"
#include "../prover/groth16/backend.h"
#include "../prover/io/io.h"
#include "../test/test.h"


static int exists(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0;
}

GS_TEST(cli_prove_then_snarkjs_verifies)
{
    GS_TEST_NEED_BIN();
    const char *d = gs_test_tmpdir();
    char cmd[4096], out[8192];
    snprintf(cmd, sizeof cmd,
             "%s prove --quiet test/fixtures/chain.zkey test/fixtures/chain.wtns %s/proof.json "
             "%s/public.json 2>&1",
             gs_test_bin(), d, d);
    GS_REQUIRE(gs_test_run(cmd, out, sizeof out) == 0);
    /* Our verifier accepts it. */
    snprintf(cmd, sizeof cmd, "%s verify test/fixtures/chain_vk.json %s/public.json %s/proof.json 2>&1",
             gs_test_bin(), d, d);
    GS_CHECK(gs_test_run(cmd, out, sizeof out) == 0 && strstr(out, "OK"));
    /* public.json is identical to snarkjs's. */
    snprintf(cmd, sizeof cmd, "cmp -s test/fixtures/chain_public.json %s/public.json", d);
    GS_CHECK(gs_test_run(cmd, out, sizeof out) == 0);
    if (!gs_test_snarkjs()) {
        gs_test_skip("snarkjs not installed in node_modules (make deps installs it)");
        return;
    }
    snprintf(cmd, sizeof cmd, "%s groth16 verify test/fixtures/chain_vk.json %s/public.json %s/proof.json 2>&1",
             gs_test_snarkjs(), d, d);
    int rc = gs_test_run(cmd, out, sizeof out);
    GS_CHECK_MSG(rc == 0 && strstr(out, "OK!"), "snarkjs said (%d): %s", rc, out);
}

GS_TEST(cli_verify_accepts_snarkjs_proof_and_rejects_tampering)
{
    GS_TEST_NEED_BIN();
    char cmd[4096], out[8192];
    snprintf(cmd, sizeof cmd,
             "%s verify test/fixtures/chain_vk.json test/fixtures/chain_public.json "
             "test/fixtures/chain_proof.json 2>&1",
             gs_test_bin());
    GS_CHECK(gs_test_run(cmd, out, sizeof out) == 0 && strstr(out, "OK"));
    const char *d = gs_test_tmpdir();
    /* Public input k changed from 11 to 12. */
    snprintf(cmd, sizeof cmd, "sed 's/\"11\"/\"12\"/' test/fixtures/chain_public.json > %s/p.json && "
             "%s verify test/fixtures/chain_vk.json %s/p.json test/fixtures/chain_proof.json 2>&1",
             d, gs_test_bin(), d);
    GS_CHECK(gs_test_run(cmd, out, sizeof out) == 1 && strstr(out, "INVALID"));
    /* A missing file is bad input (2), not "invalid". */
    snprintf(cmd, sizeof cmd, "%s verify %s/none.json test/fixtures/chain_public.json "
             "test/fixtures/chain_proof.json 2>&1", gs_test_bin(), d);
    GS_CHECK(gs_test_run(cmd, out, sizeof out) == 2 && strstr(out, "none.json"));
}

GS_TEST(cli_prove_bad_input_exits_2_without_output)
{
    GS_TEST_NEED_BIN();
    const char *d = gs_test_tmpdir();
    char cmd[4096], out[8192], wt[1024], proof[1024];
    /* A witness of the wrong length. */
    gs_scalar w[3] = {{{1, 0, 0, 0}}, {{2, 0, 0, 0}}, {{3, 0, 0, 0}}};
    gs_err e;
    gs_err_clear(&e);
    snprintf(wt, sizeof wt, "%s/short.wtns", d);
    GS_REQUIRE(gs_wtns_write(wt, w, 3, &e) == GS_OK);
    snprintf(proof, sizeof proof, "%s/proof.json", d);
    snprintf(cmd, sizeof cmd, "%s prove --quiet test/fixtures/chain.zkey %s %s %s/public.json 2>&1",
             gs_test_bin(), wt, proof, d);
    GS_CHECK(gs_test_run(cmd, out, sizeof out) == 2);
    GS_CHECK_MSG(strstr(out, "short.wtns") && strstr(out, "103"), "%s", out);
    GS_CHECK(!exists(proof));
    /* A bn128 key. */
    snprintf(cmd, sizeof cmd, "%s prove --quiet test/fixtures/chain_bn128.zkey test/fixtures/chain.wtns %s %s/public.json 2>&1",
             gs_test_bin(), proof, d);
    GS_CHECK(gs_test_run(cmd, out, sizeof out) == 2 && strstr(out, "unsupported curve"));
    GS_CHECK(!exists(proof));
    /* Usage errors. */
    snprintf(cmd, sizeof cmd, "%s prove a b 2>&1", gs_test_bin());
    GS_CHECK(gs_test_run(cmd, out, sizeof out) == 2 && strstr(out, "usage"));
    snprintf(cmd, sizeof cmd, "%s prove --g2-device test/fixtures/chain.zkey "
             "test/fixtures/chain.wtns %s %s/public.json 2>&1", gs_test_bin(), proof, d);
    GS_CHECK(gs_test_run(cmd, out, sizeof out) == 2 && strstr(out, "--g2-device needs --backend cuda"));
    GS_CHECK(!exists(proof));
}

/* Key checks on first use only: the first prove checks and writes a key
 * record, the second finds it, --check-key checks again, --key-records off
 * always checks; a key with a point off its subgroup exits 2 naming the file
 * and offset, with no proof written, and is refused again on the next try. */
GS_TEST(cli_prove_checks_a_key_once)
{
    GS_TEST_NEED_BIN();
    const char *d = gs_test_tmpdir();
    char cmd[8192], out[8192], base[2048], proof[1024];
    snprintf(base, sizeof base, "GAPSCOPE_KEY_RECORDS=%s/rec %s prove", d, gs_test_bin());
    snprintf(proof, sizeof proof, "%s/proof.json", d);
    const char *args = "test/fixtures/chain.zkey test/fixtures/chain.wtns";
    struct { const char *opt, *want; } runs[] = {
        {"", "subgroup checks of 546 points passed"},
        {"", "checked before (record"},
        {"--check-key", "subgroup checks of 546 points passed"},
        {"--key-records off", "subgroup checks of 546 points passed"},
        {"--trusted-key", "subgroup checks skipped"},
    };
    for (size_t i = 0; i < sizeof runs / sizeof *runs; i++) {
        snprintf(cmd, sizeof cmd, "%s %s %s %s %s/public.json 2>&1", base, runs[i].opt, args,
                 proof, d);
        int rc = gs_test_run(cmd, out, sizeof out);
        GS_CHECK_MSG(rc == 0 && strstr(out, runs[i].want), "run %zu (%s): exit %d: %s", i,
                     runs[i].opt, rc, out);
    }
    snprintf(cmd, sizeof cmd, "%s --trusted-key --check-key %s %s %s/public.json 2>&1", base,
             args, proof, d);
    GS_CHECK(gs_test_run(cmd, out, sizeof out) == 2 && strstr(out, "contradict"));
    /* A key whose second non-infinity A point has a 3-torsion part. */
    gs_pk pk;
    gs_err e;
    gs_err_clear(&e);
    GS_REQUIRE(gs_zkey_read(&pk, "test/fixtures/chain.zkey", GS_IO_TRUST_POINTS, NULL, &e) ==
               GS_OK);
    uint32_t i = 0, seen = 0;
    for (; i < pk.n_vars; i++)
        if (!pk.a[i].inf && ++seen == 2)
            break;
    gs_g1_affine t3;
    gs_g1 p;
    gs_fp_zero(&t3.x);
    gs_fp_one(&t3.y);
    gs_fp_add(&t3.y, &t3.y, &t3.y);   /* (0, 2) has order 3 */
    t3.inf = 0;
    gs_g1_from_affine(&p, &pk.a[i]);
    gs_g1_add_affine(&p, &p, &t3);
    gs_g1_to_affine(&pk.a[i], &p);
    char bad[1024];
    snprintf(bad, sizeof bad, "%s/bad.zkey", d);
    GS_REQUIRE(gs_zkey_write(bad, &pk, &e) == GS_OK);
    gs_pk_free(&pk);
    remove(proof);
    for (int rep = 0; rep < 2; rep++) {
        snprintf(cmd, sizeof cmd, "%s --quiet %s test/fixtures/chain.wtns %s %s/public.json 2>&1",
                 base, bad, proof, d);
        int rc = gs_test_run(cmd, out, sizeof out);
        GS_CHECK_MSG(rc == 2 && strstr(out, "bad.zkey@") && strstr(out, "A point") &&
                     strstr(out, "not in the prime-order subgroup"), "exit %d: %s", rc, out);
        GS_CHECK(!exists(proof));
    }
    /* `zkey check`: the same answers ahead of time (exit 1 for a bad point),
     * and a record that the next prove uses. */
    snprintf(cmd, sizeof cmd, "%s zkey check --key-records %s/rec2 %s 2>&1", gs_test_bin(), d, bad);
    int rc = gs_test_run(cmd, out, sizeof out);
    GS_CHECK_MSG(rc == 1 && strstr(out, "bad.zkey@") && strstr(out, "A point"), "%d: %s", rc, out);
    snprintf(cmd, sizeof cmd, "%s zkey check --key-records %s/rec2 test/fixtures/chain.zkey 2>&1",
             gs_test_bin(), d);
    rc = gs_test_run(cmd, out, sizeof out);
    GS_CHECK_MSG(rc == 0 && strstr(out, "OK: 546 points") && strstr(out, "record: ") &&
                 strstr(out, "69f6a4ee67654fd6444dcf138e874c9786d2cb9b48d7805cb1e51afcde8260a5"),
                 "%d: %s", rc, out);
    snprintf(cmd, sizeof cmd, "%s prove --key-records %s/rec2 %s %s %s/public.json 2>&1", gs_test_bin(),
             d, args, proof, d);
    rc = gs_test_run(cmd, out, sizeof out);
    GS_CHECK_MSG(rc == 0 && strstr(out, "checked before"), "%d: %s", rc, out);
}

/* The CUDA backend with the G2 MSM on the device, from the command line: the
 * deterministic (zero-blinding) proof equals the CPU backend's byte for
 * byte and verifies.  Needs a device (fails without one under
 * GS_REQUIRE_GPU=1, like the cuda_* tests). */
GS_TEST(cli_prove_cuda_g2_device_equals_cpu)
{
    const char *req = getenv("GS_REQUIRE_GPU");
    if (gs_cuda_device_count() <= 0) {
        if (req && strcmp(req, "1") == 0)
            gs_test_fail(__FILE__, __LINE__, "GS_REQUIRE_GPU=1 but no CUDA device is visible");
        else
            gs_test_skip("no CUDA device");
        return;
    }
    GS_TEST_NEED_BIN();
    const char *d = gs_test_tmpdir();
    char cmd[4096], out[8192];
    static const char *how[2] = { "--backend cpu", "--backend cuda --g2-device" };
    for (int k = 0; k < 2; k++) {
        snprintf(cmd, sizeof cmd, "%s prove --zero-blinding %s test/fixtures/chain.zkey "
                 "test/fixtures/chain.wtns %s/proof%d.json %s/public.json 2>&1", gs_test_bin(), how[k], d,
                 k, d);
        int rc = gs_test_run(cmd, out, sizeof out);
        GS_CHECK_MSG(rc == 0, "prove %s: exit %d: %s", how[k], rc, out);
        if (rc) return;
    }
    /* The device path ran: B2 was made resident (load_b2) for the G2 MSM. */
    GS_CHECK_MSG(strstr(out, "load_b2") && strstr(out, "msm_b2"), "stages: %s", out);
    snprintf(cmd, sizeof cmd, "cmp %s/proof0.json %s/proof1.json 2>&1", d, d);
    GS_CHECK_MSG(gs_test_run(cmd, out, sizeof out) == 0, "proofs differ: %s", out);
    snprintf(cmd, sizeof cmd, "%s verify test/fixtures/chain_vk.json %s/public.json "
             "%s/proof1.json 2>&1", gs_test_bin(), d, d);
    GS_CHECK(gs_test_run(cmd, out, sizeof out) == 0 && strstr(out, "OK"));
}
