/* Helpers shared by the prover/io readers and writers (internal). */
#ifndef GS_IO_INTERNAL_H
#define GS_IO_INTERNAL_H

#include "../../common/sha256.h"
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
/* The same with the curve equation checked only if curve != 0 (the caller
 * then checks it later, gs_io_zkey_check_curve); coordinates are always
 * range-checked. */
gs_status gs_io_read_g1_as(gs_bincur *c, gs_g1_affine *out, const char *what, int curve);
gs_status gs_io_read_g2_as(gs_bincur *c, gs_g2_affine *out, const char *what, int curve);
/* The error of a point off the curve at `offset` (section `section`, part
 * `what`): "section 5: A: G1 point not on the curve". */
gs_status gs_io_curve_fail(const char *path, const char *kind, gs_err *err, uint64_t offset,
                           uint32_t section, const char *what, int g2);
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
 * and the SHA-256 of the bytes decoded.  With curve = 0 the curve equation
 * of the point sections' points is left to gs_io_zkey_check_curve (the six
 * header points are always checked).  On failure out is freed (zeroed). */
gs_status gs_io_zkey_parse(gs_pk *out, gs_zkey_layout *lay, uint8_t digest[32],
                           const char *path, int curve, gs_pool *pool, gs_err *err);
/* The point sections of a .zkey, in snarkjs's file order: 3, 5, 6, 7, 8, 9
 * (IC, A, B1, B2, C, H; 7 holds G2 points).  gs_io_zkey_points: the array
 * of pk holding section `type` and its count from the header fields. */
extern const uint32_t gs_io_zkey_point_types[6];
size_t gs_io_zkey_points(const gs_pk *pk, uint32_t type, const void **pts);
const char *gs_io_zkey_section_name(uint32_t type);
/* The curve equation of every point of the point sections, on the pool;
 * the first failure in file order is reported as the parse would have. */
gs_status gs_io_zkey_check_curve(const gs_pk *pk, const gs_zkey_layout *lay, const char *path,
                                 gs_pool *pool, gs_err *err);

/* Little-endian byte helpers. */
void gs_io_limbs_from_le(uint64_t *out, const uint8_t *in, int n_limbs);
void gs_io_limbs_to_le(uint8_t *out, const uint64_t *in, int n_limbs);

#endif
