/* SHA-256: FIPS 180-4 vectors through both block functions, and the SHA-NI
 * path against the portable one on random lengths and split points. */
#include <stdlib.h>
#include <string.h>

#include "../test/test.h"
#include "sha256.h"

static void hex_of(char hex[65], const void *p, size_t n, size_t piece)
{
    gs_sha256 c;
    uint8_t d[32];
    gs_sha256_init(&c);
    const uint8_t *b = p;
    for (size_t k = 0; k < n; k += piece)
        gs_sha256_update(&c, b + k, n - k < piece ? n - k : piece);
    gs_sha256_final(d, &c);
    gs_sha256_hex(hex, d);
}

GS_TEST(common_sha256_vectors)
{
    /* FIPS 180-4 examples (NIST CSRC "SHA256.pdf"): "abc" and the 448-bit message. */
    struct { const char *msg, *hex; } v[] = {
        {"abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"},
        {"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
         "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"},
        {"", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"},
    };
    static uint8_t mil[1000000];
    memset(mil, 'a', sizeof mil);
    for (int portable = 0; portable < 2; portable++) {
        gs_sha256_force_portable(portable);
        char hex[65];
        for (size_t i = 0; i < 3; i++) {
            /* Uneven pieces cross block boundaries. */
            hex_of(hex, v[i].msg, strlen(v[i].msg), 7);
            GS_CHECK_MSG(!strcmp(hex, v[i].hex), "%s: vector %zu: %s", gs_sha256_impl(), i, hex);
        }
        /* One million 'a' (FIPS 180-4 example 3), in 1000-byte pieces and whole. */
        hex_of(hex, mil, sizeof mil, 1000);
        GS_CHECK(!strcmp(hex, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"));
        uint8_t d[32];
        gs_sha256_buf(d, mil, sizeof mil);
        gs_sha256_hex(hex, d);
        GS_CHECK(!strcmp(hex, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"));
    }
    gs_sha256_force_portable(0);
}

GS_TEST(common_sha256_impls_agree)
{
    gs_sha256_force_portable(0);
    if (strcmp(gs_sha256_impl(), "sha-ni")) {
        gs_test_skip("no SHA extensions on this CPU: one implementation only");
        return;
    }
    gs_rng *r = gs_test_rng();
    uint8_t *buf = malloc(70000);
    GS_REQUIRE(buf);
    for (size_t i = 0; i < 70000; i++)
        buf[i] = (uint8_t)gs_rng_u64(r);
    for (int t = 0; t < 200; t++) {
        size_t n = gs_rng_u64(r) % 70000, piece = 1 + gs_rng_u64(r) % 300;
        char a[65], b[65];
        gs_sha256_force_portable(0);
        hex_of(a, buf, n, piece);
        gs_sha256_force_portable(1);
        hex_of(b, buf, n, n ? n : 1);
        GS_CHECK_MSG(!strcmp(a, b), "length %zu piece %zu: sha-ni %s portable %s", n, piece, a, b);
    }
    gs_sha256_force_portable(0);
    free(buf);
}
