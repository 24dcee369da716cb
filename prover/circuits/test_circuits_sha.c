/*
 * The porep_sha family: the native SHA-256 against FIPS 180-4 vectors (from
 * Python's hashlib), and the whole circuit at 2^16: sizing, a satisfied
 * witness (its public root is computed with the native SHA-256, so any
 * disagreement of the gadget makes the instance unsatisfiable), a witness
 * that is mostly bits, a proof that verifies, and tampered bits that break
 * it.
 */
#include <stdlib.h>
#include <string.h>

#include "../../test/test.h"
#include "../../common/pool.h"
#include "../../common/sha256.h"
#include "../groth16/test_g16_util.h"
#include "circuits_internal.h"

static int hex_eq(const uint8_t *d, size_t n, const char *hex)
{
    for (size_t i = 0; i < n; i++) {
        unsigned v;
        if (sscanf(hex + 2 * i, "%2x", &v) != 1 || v != d[i])
            return 0;
    }
    return 1;
}

GS_TEST(circuits_sha256_native_vectors)
{
    /* One block: "abc" padded. */
    uint32_t st[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                      0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
    uint32_t m[16] = {0x61626380, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 24};
    gs_sha256_compress(st, m);
    uint8_t d[32];
    for (int t = 0; t < 8; t++)
        for (int q = 0; q < 4; q++)
            d[4 * t + q] = (uint8_t)(st[t] >> (24 - 8 * q));
    GS_CHECK(hex_eq(d, 32, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"));
    /* 64 bytes 0, 1, ..., 63 (two compressions). */
    uint8_t in[64];
    for (int i = 0; i < 64; i++)
        in[i] = (uint8_t)i;
    gs_sha256_64(d, in);
    GS_CHECK(hex_eq(d, 32, "fdeab9acf3710362bd2658cdc9a29e8f9c757fcf9811603a8c447cd1d9151108"));
    /* Truncation to 254 bits: the top two bits of the last byte go. */
    memset(d, 0xff, sizeof d);
    gs_fr f;
    gs_scalar x;
    gs_sha256_to_fr(&f, d);
    gs_fr_to_scalar(&x, &f);
    GS_CHECK(x.l[0] == ~0ull && x.l[1] == ~0ull && x.l[2] == ~0ull && x.l[3] == 0x3fffffffffffffffull);
}

GS_TEST(circuits_porep_sha_end_to_end)
{
    gs_err e;
    gs_err_clear(&e);
    gs_circuit *c = NULL;
    gs_pool *pool = NULL;
    gs_pk pk;
    gs_vk vk;
    gs_assignment as, bad;
    memset(&pk, 0, sizeof pk);
    memset(&vk, 0, sizeof vk);
    memset(&as, 0, sizeof as);
    GS_CHECK_EQ_INT(gs_circuit_create(&c, "porep_sha", 15, &e), GS_ERR_ARG);
    GS_REQUIRE(gs_circuit_create(&c, "porep_sha", 16, &e) == GS_OK);
    const gs_r1cs *r = gs_circuit_r1cs(c);
    uint32_t np = gs_circuit_n_public(c), d = gs_circuit_depth(c);
    GS_CHECK(r->n_constraints <= (1u << 16) && r->n_constraints > (1u << 15));
    GS_CHECK_EQ_INT(gs_groth16_log_domain(r->n_constraints, np), 16);
    GS_CHECK_EQ_INT(d, 6);
    GS_CHECK_EQ_INT(r->n_prv_in, gs_circuit_n_proofs(c) * (512 + 2 * d));
    GS_CHECK_OK(gs_r1cs_validate(r, &e));
    GS_REQUIRE(gs_pool_create(&pool, 2, &e) == GS_OK);
    GS_REQUIRE(gs_groth16_setup_seeded(&pk, &vk, r, 5, pool, &e) == GS_OK);
    GS_REQUIRE(gs_circuit_synthesize(c, &pk, 9, &as, &e) == GS_OK);
    GS_CHECK_OK(gs_r1cs_check(r, as.w, as.n_vars, pool, &e));
    /* Mostly bits, as a PoRep witness. */
    size_t bits = 0;
    for (uint32_t i = 0; i < as.n_vars; i++)
        bits += (as.w[i].l[1] | as.w[i].l[2] | as.w[i].l[3]) == 0 && as.w[i].l[0] <= 1;
    GS_CHECK_MSG(bits * 100 >= (size_t)as.n_vars * 85, "only %zu of %u witness values are 0 or 1",
                 bits, as.n_vars);
    gs_proof p;
    GS_REQUIRE(tg_prove_verify(&p, &pk, &vk, &as, &e));
    /* A preimage bit of the first proof, and a wire deep inside its hash. */
    uint32_t first_prv = 1 + np;
    uint32_t wires[2] = {first_prv + 100, first_prv + 512 + 2 * d + 40000};
    for (int k = 0; k < 2; k++) {
        gs_err_clear(&e);
        GS_CHECK_EQ_INT(gs_circuit_synthesize_tampered(c, &pk, 9, wires[k], &bad, &e),
                        GS_ERR_UNSAT);
    }
    gs_assignment_free(&as);
    gs_pk_free(&pk);
    gs_vk_free(&vk);
    gs_pool_destroy(pool);
    gs_circuit_destroy(c);
}
