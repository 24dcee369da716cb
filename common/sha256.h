/*
 * SHA-256 (FIPS 180-4): the build fingerprint (the hash of the running
 * binary) and the content digest of proving keys (prover/io/keyrec.h).
 *
 * Two block functions behind one interface: the portable one, and on x86-64
 * CPUs with the SHA extensions (CPUID.7.EBX bit 29) one built on
 * sha256rnds2/sha256msg1/sha256msg2, chosen once at run time (about 1.5-2
 * GB/s against ~0.25 GB/s).  Both give the same digests (test_sha256.c
 * checks the FIPS vectors and random inputs through both).  Not constant
 * time; hashes public data only.
 *
 * A gs_sha256 is one running hash, not thread safe; the functions never
 * allocate.
 */
#ifndef GS_SHA256_H
#define GS_SHA256_H

#include <stddef.h>
#include <stdint.h>

#include "status.h"

typedef struct gs_sha256 {
    uint32_t h[8];
    uint64_t len;
    uint8_t buf[64];
    size_t n;
} gs_sha256;

void gs_sha256_init(gs_sha256 *c);
void gs_sha256_update(gs_sha256 *c, const void *data, size_t n);
void gs_sha256_final(uint8_t out[32], gs_sha256 *c);
/* One-shot digest of a buffer. */
void gs_sha256_buf(uint8_t out[32], const void *data, size_t n);
/* Lower-case hex of a digest, NUL-terminated. */
void gs_sha256_hex(char out[65], const uint8_t digest[32]);
/* Hex digest of a whole file; GS_ERR_IO naming the path when it cannot be read. */
gs_status gs_sha256_file(char out[65], const char *path, gs_err *err);

/* The round constants and initial hash value (FIPS 180-4, 4.2.2 and 5.3.3),
 * and one compression of the portable block function on a message block
 * already in big-endian words: what the SHA-256 circuit gadget
 * (prover/circuits/sha256.c) mirrors constraint by constraint. */
extern const uint32_t gs_sha256_k[64];
extern const uint32_t gs_sha256_iv[8];
void gs_sha256_compress(uint32_t st[8], const uint32_t m[16]);

/* Which block function runs: "sha-ni" or "portable" (for reports and tests). */
const char *gs_sha256_impl(void);
/* Tests only: 1 forces the portable block function, 0 restores the choice. */
void gs_sha256_force_portable(int on);

#endif
