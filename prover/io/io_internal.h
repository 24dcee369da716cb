/* Helpers shared by the prover/io readers and writers (internal). */
#ifndef GS_IO_INTERNAL_H
#define GS_IO_INTERNAL_H

#include "../common/sha256.h"
#include "../curve/curve.h"
#include "../groth16/groth16.h"
#include "binfile.h"

/* Checks a prime field of n8 bytes against BLS12-381's r (scalar = 1) or p
 * (scalar = 0); bn128's primes give GS_ERR_CURVE "unsupported curve bn128". */
gs_status gs_io_check_prime(gs_bincur *c, uint32_t n8, int scalar);
/* A plain little-endian Fr value (< r) -> Montgomery; error names the offset. */
gs_status gs_io_read_fr(gs_bincur *c, gs_fr *out, const char *what);
/* Raw 32 bytes plain LE -> scalar, checked < r. */
gs_status gs_io_read_scalar(gs_bincur *c, gs_scalar *out, const char *what);
/* Affine points in snarkjs's LEM encoding (Montgomery LE coordinates, all
 * zero = infinity).  On-curve is checked here; subgroup checks are done in
 * bulk by the caller (gs_io_check_g1_subgroup). */
gs_status gs_io_read_g1(gs_bincur *c, gs_g1_affine *out, const char *what);
gs_status gs_io_read_g2(gs_bincur *c, gs_g2_affine *out, const char *what);
void gs_io_put_g1(gs_binbuf *b, const gs_g1_affine *p);
void gs_io_put_g2(gs_binbuf *b, const gs_g2_affine *p);
void gs_io_put_fr_plain(gs_binbuf *b, const gs_fr *v);

/* Where a .zkey's parts are, for the subgroup checks' messages. */
typedef struct gs_zkey_layout {
    uint64_t sec_off[11];    /* payload offset of section type t (1..10); 0 if absent */
    uint64_t hdr_off[6];     /* alpha_1, beta_1, beta_2, gamma_2, delta_1, delta_2 */
    uint64_t size;           /* bytes read */
} gs_zkey_layout;

/* The streaming parse (zkey_read.c): every check but subgroup membership,
 * and the SHA-256 of the bytes decoded.  On failure out is freed (zeroed). */
gs_status gs_io_zkey_parse(gs_pk *out, gs_zkey_layout *lay, uint8_t digest[32],
                           const char *path, gs_pool *pool, gs_err *err);

/* Little-endian byte helpers. */
void gs_io_limbs_from_le(uint64_t *out, const uint8_t *in, int n_limbs);
void gs_io_limbs_to_le(uint8_t *out, const uint64_t *in, int n_limbs);

#endif
