/* prover/io against snarkjs's own files (test/fixtures, made by scripts/make-fixtures.sh). */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../test/test.h"
#include "io.h"
#include "test_io_util.h"

GS_TEST(io_r1cs_wtns_read_circom_files)
{
    gs_r1cs r;
    gs_err e;
    gs_err_clear(&e);
    GS_REQUIRE(gs_r1cs_read(&r, fixture("chain.r1cs"), &e) == GS_OK);
    GS_CHECK_EQ_INT(r.n_constraints, 100);
    GS_CHECK_EQ_INT(r.n_pub_out, 1);
    GS_CHECK_EQ_INT(r.n_pub_in, 1);
    GS_CHECK_EQ_INT(r.n_prv_in, 1);
    gs_scalar *w;
    uint32_t n;
    GS_REQUIRE(gs_wtns_read(&w, &n, fixture("chain.wtns"), &e) == GS_OK);
    GS_CHECK_EQ_INT(n, r.n_wires);
    GS_CHECK(w[0].l[0] == 1);
    GS_CHECK(w[2].l[0] == 11 && !w[2].l[1]); /* public input k */
    GS_CHECK(w[3].l[0] == 3 && !w[3].l[1]);  /* private input x */
    GS_CHECK_OK(gs_r1cs_check(&r, w, n, NULL, &e));
    /* A changed witness no longer satisfies the circuit. */
    w[3].l[0] = 4;
    gs_err_clear(&e);
    GS_CHECK_EQ_INT(gs_r1cs_check(&r, w, n, NULL, &e), GS_ERR_UNSAT);
    free(w);
    gs_r1cs_free(&r);
}

GS_TEST(io_zkey_read_write_round_trip)
{
    gs_pk pk, pk2;
    gs_err e;
    gs_err_clear(&e);
    GS_REQUIRE(gs_zkey_read(&pk, fixture("chain.zkey"), 0, NULL, &e) == GS_OK);
    GS_CHECK_EQ_INT(pk.n_public, 2);
    GS_CHECK_EQ_INT(pk.domain_size, 128);
    GS_CHECK_EQ_INT(pk.n_vars, 103);
    /* Coefficients decode to small plain values for this circuit (1 or r-1). */
    int small = 0;
    for (size_t i = 0; i < pk.n_coefs; i++) {
        uint64_t plain[4];
        gs_fr_to_plain(plain, &pk.coefs[i].value);
        small += (plain[0] == 1 && !plain[1] && !plain[2] && !plain[3]) ||
                 (plain[0] == GS_FR_MODULUS.l[0] - 1 && plain[3] == GS_FR_MODULUS.l[3]);
    }
    GS_CHECK_EQ_INT(small, (int)pk.n_coefs);
    const char *out = tmp_path("rt.zkey");
    GS_REQUIRE(gs_zkey_write(out, &pk, &e) == GS_OK);
    GS_REQUIRE(gs_zkey_read(&pk2, out, 0, NULL, &e) == GS_OK);
    GS_CHECK(pk2.n_coefs == pk.n_coefs && pk2.n_vars == pk.n_vars);
    int same = 1;
    for (size_t i = 0; i < pk.n_coefs; i++)
        same &= pk.coefs[i].matrix == pk2.coefs[i].matrix && pk.coefs[i].row == pk2.coefs[i].row &&
                pk.coefs[i].wire == pk2.coefs[i].wire &&
                gs_fr_eq(&pk.coefs[i].value, &pk2.coefs[i].value);
    GS_CHECK(same);
    for (uint32_t i = 0; i < pk.domain_size; i++)
        same &= gs_g1_affine_eq(&pk.h[i], &pk2.h[i]);
    for (uint32_t i = 0; i < pk.n_vars; i++)
        same &= gs_g2_affine_eq(&pk.b2[i], &pk2.b2[i]) && gs_g1_affine_eq(&pk.a[i], &pk2.a[i]);
    GS_CHECK(same);
    GS_CHECK(gs_g2_affine_eq(&pk.delta2, &pk2.delta2));
    gs_pk_free(&pk);
    gs_pk_free(&pk2);
}

GS_TEST(io_zkey_vk_matches_snarkjs_export)
{
    gs_pk pk;
    gs_vk vk_ours, vk_js;
    gs_err e;
    gs_err_clear(&e);
    GS_REQUIRE(gs_zkey_read(&pk, fixture("chain.zkey"), 0, NULL, &e) == GS_OK);
    GS_REQUIRE(gs_vk_from_pk(&vk_ours, &pk, &e) == GS_OK);
    GS_REQUIRE(gs_vk_json_read(&vk_js, fixture("chain_vk.json"), &e) == GS_OK);
    GS_CHECK_EQ_INT(vk_js.n_public, 2);
    GS_CHECK(gs_g1_affine_eq(&vk_ours.alpha1, &vk_js.alpha1));
    GS_CHECK(gs_g2_affine_eq(&vk_ours.beta2, &vk_js.beta2));
    GS_CHECK(gs_g2_affine_eq(&vk_ours.gamma2, &vk_js.gamma2));
    GS_CHECK(gs_g2_affine_eq(&vk_ours.delta2, &vk_js.delta2));
    for (int i = 0; i < 3; i++)
        GS_CHECK(gs_g1_affine_eq(&vk_ours.ic[i], &vk_js.ic[i]));
    /* Our export reads back identically. */
    const char *out = tmp_path("vk.json");
    gs_vk vk3;
    GS_REQUIRE(gs_vk_json_write(out, &vk_ours, &e) == GS_OK);
    GS_REQUIRE(gs_vk_json_read(&vk3, out, &e) == GS_OK);
    GS_CHECK(gs_g2_affine_eq(&vk3.delta2, &vk_js.delta2));
    GS_CHECK(gs_g1_affine_eq(&vk3.ic[2], &vk_js.ic[2]));
    /* vk_alphabeta_12 matches snarkjs's text exactly. */
    unsigned char *a, *b;
    size_t la, lb;
    GS_REQUIRE(read_file(out, &a, &la) && read_file(fixture("chain_vk.json"), &b, &lb));
    const char *pa = strstr((char *)a, "\"vk_alphabeta_12\""), *pb = strstr((char *)b, "\"vk_alphabeta_12\"");
    const char *ea = pa ? strstr(pa, "\"IC\"") : NULL, *eb = pb ? strstr(pb, "\"IC\"") : NULL;
    GS_CHECK(pa && pb && ea && eb && ea - pa == eb - pb && !memcmp(pa, pb, (size_t)(ea - pa)));
    free(a);
    free(b);
    gs_vk_free(&vk3);
    gs_vk_free(&vk_ours);
    gs_vk_free(&vk_js);
    gs_pk_free(&pk);
}

GS_TEST(io_verify_snarkjs_proof)
{
    gs_vk vk;
    gs_proof proof;
    gs_scalar *pub;
    uint32_t n;
    gs_err e;
    gs_err_clear(&e);
    GS_REQUIRE(gs_vk_json_read(&vk, fixture("chain_vk.json"), &e) == GS_OK);
    GS_REQUIRE(gs_proof_json_read(&proof, fixture("chain_proof.json"), &e) == GS_OK);
    GS_REQUIRE(gs_public_json_read(&pub, &n, fixture("chain_public.json"), &e) == GS_OK);
    GS_CHECK_EQ_INT(n, 2);
    GS_CHECK_OK(gs_groth16_verify(&vk, pub, n, &proof, &e));
    pub[1].l[0] ^= 1; /* k = 10 instead of 11 */
    gs_err_clear(&e);
    GS_CHECK_EQ_INT(gs_groth16_verify(&vk, pub, n, &proof, &e), GS_ERR_VERIFY);
    free(pub);
    gs_vk_free(&vk);
}

GS_TEST(io_bad_binary_input_is_named)
{
    gs_pk pk;
    gs_r1cs r;
    gs_err e;
    struct {
        const char *src;
        size_t cut;
        long flip_at;
        unsigned char flip;
        gs_status want;
        const char *needle;
    } cases[] = {
        {"chain.zkey", 10, -1, 0, GS_ERR_FORMAT, "too short"},
        {"chain.zkey", 5000, -1, 0, GS_ERR_FORMAT, "truncated"},
        {"chain.zkey", 0, 0, 0x20, GS_ERR_FORMAT, "magic"},
        {"chain.zkey", 0, 4, 0x07, GS_ERR_FORMAT, "version"},
        {"chain_bn128.zkey", 0, -1, 0, GS_ERR_CURVE, "unsupported curve"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char name[32];
        snprintf(name, sizeof name, "bad%zu.zkey", i);
        const char *p = mutate(cases[i].src, name, cases[i].cut, cases[i].flip_at, cases[i].flip);
        GS_REQUIRE(p);
        gs_err_clear(&e);
        GS_CHECK_EQ_INT(gs_zkey_read(&pk, p, 0, NULL, &e), cases[i].want);
        GS_CHECK_MSG(strstr(e.msg, cases[i].needle) && strstr(e.msg, name), "case %zu: %s", i,
                     e.msg);
        GS_CHECK(pk.a == NULL && pk.coefs == NULL);
    }
    gs_err_clear(&e);
    GS_CHECK_EQ_INT(gs_r1cs_read(&r, fixture("chain_bn128.r1cs"), &e), GS_ERR_CURVE);
    GS_CHECK(strstr(e.msg, "bn128") != NULL);
    gs_scalar *w;
    uint32_t n;
    gs_err_clear(&e);
    GS_CHECK_EQ_INT(gs_wtns_read(&w, &n, fixture("chain_bn128.wtns"), &e), GS_ERR_CURVE);
    gs_err_clear(&e);
    GS_CHECK_EQ_INT(gs_zkey_read(&pk, "/nonexistent/x.zkey", 0, NULL, &e), GS_ERR_IO);
}

/* A header promising ~1.9e9 constraints in a 16 KB file is refused with the
 * offset before anything is allocated (it once asked malloc for 15 GB). */
GS_TEST(io_r1cs_constraint_count_beyond_file)
{
    long hdr = section_offset("chain.r1cs", 1);
    GS_REQUIRE(hdr > 0);
    /* nConstraints: after n8, the prime, four u32 counts and the u64 nLabels. */
    long at = hdr + 4 + 32 + 4 * 4 + 8;
    const char *p = mutate("chain.r1cs", "huge.r1cs", 0, at + 3, 0x70);
    GS_REQUIRE(p);
    gs_r1cs r;
    gs_err e;
    gs_err_clear(&e);
    GS_CHECK_EQ_INT(gs_r1cs_read(&r, p, &e), GS_ERR_FORMAT);
    GS_CHECK_MSG(strstr(e.msg, "huge.r1cs@") && strstr(e.msg, "nConstraints"), "message: %s",
                 e.msg);
    GS_CHECK(r.a_start == NULL && r.a_terms == NULL);
}

GS_TEST(io_bad_points_are_rejected_with_offset)
{
    gs_pk pk;
    gs_err e;
    long a = section_offset("chain.zkey", 5);
    GS_REQUIRE(a > 0);
    /* Find a non-infinity A point, then damage its y coordinate's low byte. */
    unsigned char *d;
    size_t len;
    GS_REQUIRE(read_file(fixture("chain.zkey"), &d, &len));
    long at = -1;
    for (long k = 0; k < 103 && at < 0; k++) {
        int zero = 1;
        for (int b = 0; b < 96; b++)
            zero &= d[a + k * 96 + b] == 0;
        if (!zero)
            at = a + k * 96;
    }
    free(d);
    GS_REQUIRE(at > 0);
    const char *p = mutate("chain.zkey", "offcurve.zkey", 0, at + 48, 0x01);
    gs_err_clear(&e);
    GS_CHECK_EQ_INT(gs_zkey_read(&pk, p, 0, NULL, &e), GS_ERR_POINT);
    char want[64];
    snprintf(want, sizeof want, "@%ld", at);
    GS_CHECK_MSG(strstr(e.msg, want) && strstr(e.msg, "not on the curve"), "%s (want %s)", e.msg,
                 want);
    /* A coordinate >= p (top byte of x set to 0xff). */
    p = mutate("chain.zkey", "range.zkey", 0, at + 47, 0xff);
    gs_err_clear(&e);
    GS_CHECK_EQ_INT(gs_zkey_read(&pk, p, 0, NULL, &e), GS_ERR_RANGE);
}

GS_TEST(io_bad_json_input_is_named)
{
    gs_err e;
    gs_scalar *pub;
    uint32_t n;
    gs_proof pr;
    gs_vk vk;
    const char *p = tmp_path("pub.json");
    /* r itself is out of range. */
    GS_REQUIRE(gs_test_write_text(
        p, "[\n \"52435875175126190479447740508185965837690552500527637822603658699938581184513\"\n]"));
    gs_err_clear(&e);
    GS_CHECK_EQ_INT(gs_public_json_read(&pub, &n, p, &e), GS_ERR_RANGE);
    GS_CHECK(strstr(e.msg, "pub.json:2:2") != NULL);
    p = tmp_path("proof.json");
    GS_REQUIRE(gs_test_write_text(p, "{\"pi_a\": [\"1\", \"2\", \"1\"], \"pi_b\": [], \"pi_c\": []}"));
    gs_err_clear(&e);
    GS_CHECK_EQ_INT(gs_proof_json_read(&pr, p, &e), GS_ERR_POINT);
    GS_CHECK(strstr(e.msg, "pi_a") != NULL);
    /* A coordinate >= p: named by path:line:col like every JSON error. */
    GS_REQUIRE(gs_test_write_text(p, "{\"pi_a\": [\"1\",\n  \"40024095552216673934177898257359041565568828199390078853320581361240316"
                                     "50490837864442687629129015664037894272559787\", \"1\"]}"));
    gs_err_clear(&e);
    GS_CHECK_EQ_INT(gs_proof_json_read(&pr, p, &e), GS_ERR_RANGE);
    GS_CHECK_MSG(strstr(e.msg, "proof.json:2:3: '") != NULL, "message: %s", e.msg);
    p = tmp_path("vk.json");
    GS_REQUIRE(gs_test_write_text(p, "{\"protocol\": \"groth16\", \"curve\": \"bn128\", \"nPublic\": 0, "
                                     "\"IC\": []}"));
    gs_err_clear(&e);
    GS_CHECK_EQ_INT(gs_vk_json_read(&vk, p, &e), GS_ERR_CURVE);
    GS_CHECK(strstr(e.msg, "bn128") != NULL);
}

GS_TEST(io_failed_write_leaves_no_file)
{
    gs_err e;
    gs_scalar w[2] = {{{1, 0, 0, 0}}, {{5, 0, 0, 0}}};
    gs_err_clear(&e);
    GS_CHECK_EQ_INT(gs_wtns_write("/nonexistent-dir/x.wtns", w, 2, &e), GS_ERR_IO);
    const char *p = tmp_path("w.wtns");
    GS_REQUIRE(gs_wtns_write(p, w, 2, &e) == GS_OK);
    gs_scalar *r;
    uint32_t n;
    GS_REQUIRE(gs_wtns_read(&r, &n, p, &e) == GS_OK);
    GS_CHECK(n == 2 && r[1].l[0] == 5);
    free(r);
    /* No temporary file is left beside it. */
    char tmp[1100];
    snprintf(tmp, sizeof tmp, "%s.tmp.%ld", p, (long)getpid());
    struct stat st;
    GS_CHECK(stat(tmp, &st) != 0);
}

/* A classic-convention key (groth16.h) has no .zkey form: the writer says so
 * and leaves no file; a key read back from a .zkey is snarkjs-convention. */
GS_TEST(io_zkey_write_refuses_classic_key)
{
    gs_err e;
    gs_pk pk, pk2;
    gs_err_clear(&e);
    GS_REQUIRE(gs_zkey_read(&pk, fixture("chain.zkey"), 0, NULL, &e) == GS_OK);
    GS_CHECK_EQ_INT(pk.h_conv, GS_H_SNARKJS);
    const char *out = tmp_path("classic.zkey");
    pk.h_conv = GS_H_CLASSIC;
    gs_err_clear(&e);
    GS_CHECK_EQ_INT(gs_zkey_write(out, &pk, &e), GS_ERR_ARG);
    GS_CHECK_MSG(strstr(e.msg, "classic") && strstr(e.msg, "no .zkey form") &&
                 strstr(e.msg, "classic.zkey"), "message: %s", e.msg);
    struct stat st;
    GS_CHECK(stat(out, &st) != 0);
    pk.h_conv = GS_H_SNARKJS;
    gs_err_clear(&e);
    GS_REQUIRE(gs_zkey_write(out, &pk, &e) == GS_OK);
    memset(&pk2, 0x5a, sizeof pk2);
    GS_REQUIRE(gs_zkey_read(&pk2, out, 0, NULL, &e) == GS_OK);
    GS_CHECK_EQ_INT(pk2.h_conv, GS_H_SNARKJS);
    gs_pk_free(&pk);
    gs_pk_free(&pk2);
}
