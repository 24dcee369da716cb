/*
 * Zcash/Filecoin BLS12-381 point encodings (zkcrypto bls12_381,
 * src/notes/serialization.rs; the format of Zcash, Filecoin, Ethereum 2 and
 * the IETF BLS signature draft).  Big-endian coordinates; the three top bits
 * of byte 0 are flags:
 *
 *   0x80  C: compressed (x only)       set in 48/96-byte, clear in 96/192-byte
 *   0x40  I: point at infinity         all other bits and bytes must be zero
 *   0x20  S: y is lexicographically the larger root (compressed only)
 *
 * G2 puts the c1 half of each Fp2 coordinate before c0.  Decoders check, in
 * this order: flags (GS_ERR_FORMAT), coordinate ranges (GS_ERR_RANGE), curve
 * equation and subgroup (GS_ERR_POINT); on failure *out is left untouched
 * and err (may be NULL) names the byte range at fault.
 */
#include <stdio.h>
#include <string.h>

#include "curve_internal.h"

#define FLAG_C 0x80
#define FLAG_I 0x40
#define FLAG_S 0x20
#define FLAGS (FLAG_C | FLAG_I | FLAG_S)

static const gs_fp g1_b = {GS_CC_B};

/* Checks the flag bits of in[0..len) and an infinity encoding.  Sets *inf and
 * *sign. */
static gs_status check_flags(const uint8_t *in, size_t len, int compressed, const char *what,
                             int *inf, int *sign, gs_err *err)
{
    uint8_t f = in[0] & FLAGS;
    if (compressed && !(f & FLAG_C))
        return gs_err_set(err, GS_ERR_FORMAT, what, "byte 0",
                          "compression flag 0x80 clear in a %zu-byte compressed encoding", len);
    if (!compressed && (f & FLAG_C))
        return gs_err_set(err, GS_ERR_FORMAT, what, "byte 0",
                          "compression flag 0x80 set in a %zu-byte uncompressed encoding", len);
    if (!compressed && (f & FLAG_S))
        return gs_err_set(err, GS_ERR_FORMAT, what, "byte 0",
                          "sign flag 0x20 set in an uncompressed encoding");
    *inf = (f & FLAG_I) != 0;
    *sign = (f & FLAG_S) != 0;
    if (*inf) {
        if (*sign)
            return gs_err_set(err, GS_ERR_FORMAT, what, "byte 0",
                              "infinity flag 0x40 together with sign flag 0x20");
        for (size_t i = 0; i < len; i++) {
            if ((i == 0 ? in[0] & ~FLAGS : in[i]) != 0) {
                char where[32];
                snprintf(where, sizeof where, "byte %zu", i);
                return gs_err_set(err, GS_ERR_FORMAT, what, where,
                                  "nonzero byte 0x%02x in an infinity encoding", in[i]);
            }
        }
    }
    return GS_OK;
}

/* Reads the 48-byte big-endian field element at in + off (flag bits of byte
 * 0 masked when off == 0). */
static gs_status read_fp(gs_fp *out, const uint8_t *in, size_t off, const char *what,
                         const char *coord, gs_err *err)
{
    uint8_t buf[GS_FP_BYTES];
    memcpy(buf, in + off, GS_FP_BYTES);
    if (off == 0)
        buf[0] &= (uint8_t)~FLAGS;
    if (!gs_fp_from_bytes_be(out, buf)) {
        char where[32];
        snprintf(where, sizeof where, "bytes %zu..%zu", off, off + GS_FP_BYTES - 1);
        return gs_err_set(err, GS_ERR_RANGE, what, where, "%s is not below the field modulus p",
                          coord);
    }
    return GS_OK;
}

static void write_fp(uint8_t *out, const gs_fp *a) { gs_fp_to_bytes_be(out, a); }

/* ---- G1 ------------------------------------------------------------------ */

gs_status gs_g1_compress(uint8_t out[48], const gs_g1_affine *a)
{
    memset(out, 0, 48);
    if (a->inf) {
        out[0] = FLAG_C | FLAG_I;
        return GS_OK;
    }
    write_fp(out, &a->x);
    out[0] |= FLAG_C | (gs_fp_is_lexlargest(&a->y) ? FLAG_S : 0);
    return GS_OK;
}

gs_status gs_g1_serialize(uint8_t out[96], const gs_g1_affine *a)
{
    memset(out, 0, 96);
    if (a->inf) {
        out[0] = FLAG_I;
        return GS_OK;
    }
    write_fp(out, &a->x);
    write_fp(out + 48, &a->y);
    return GS_OK;
}

static gs_status g1_finish(gs_g1_affine *out, const gs_g1_affine *p, const char *what, gs_err *err)
{
    if (!gs_g1_affine_is_on_curve(p))
        return gs_err_set(err, GS_ERR_POINT, what, "bytes 0..95", "point is not on the curve");
    if (!gs_g1_affine_in_subgroup(p))
        return gs_err_set(err, GS_ERR_POINT, what, "bytes 0..95",
                          "point is not in the prime-order subgroup G1");
    *out = *p;
    return GS_OK;
}

gs_status gs_g1_decompress(gs_g1_affine *out, const uint8_t in[48], gs_err *err)
{
    const char *what = "G1 point (48-byte compressed)";
    gs_g1_affine p = {0};
    gs_fp rhs;
    int inf, sign;
    gs_status s = check_flags(in, 48, 1, what, &inf, &sign, err);
    if (s != GS_OK)
        return s;
    if (inf) {
        gs_g1_affine_set_inf(out);
        return GS_OK;
    }
    if ((s = read_fp(&p.x, in, 0, what, "x", err)) != GS_OK)
        return s;
    gs_fp_sqr(&rhs, &p.x);
    gs_fp_mul(&rhs, &rhs, &p.x);
    gs_fp_add(&rhs, &rhs, &g1_b);
    if (!gs_fp_sqrt(&p.y, &rhs))
        return gs_err_set(err, GS_ERR_POINT, what, "bytes 0..47",
                          "x is not the x-coordinate of a curve point (x^3 + 4 is not a square)");
    if (gs_fp_is_lexlargest(&p.y) != sign)
        gs_fp_neg(&p.y, &p.y);
    if (!gs_g1_affine_in_subgroup(&p))
        return gs_err_set(err, GS_ERR_POINT, what, "bytes 0..47",
                          "point is not in the prime-order subgroup G1");
    *out = p;
    return GS_OK;
}

gs_status gs_g1_deserialize(gs_g1_affine *out, const uint8_t in[96], gs_err *err)
{
    const char *what = "G1 point (96-byte uncompressed)";
    gs_g1_affine p = {0};
    int inf, sign;
    gs_status s = check_flags(in, 96, 0, what, &inf, &sign, err);
    if (s != GS_OK)
        return s;
    if (inf) {
        gs_g1_affine_set_inf(out);
        return GS_OK;
    }
    if ((s = read_fp(&p.x, in, 0, what, "x", err)) != GS_OK ||
        (s = read_fp(&p.y, in, 48, what, "y", err)) != GS_OK)
        return s;
    return g1_finish(out, &p, what, err);
}

/* ---- G2 ------------------------------------------------------------------ */

static void write_fp2(uint8_t *out, const gs_fp2 *a)
{
    write_fp(out, &a->c1);
    write_fp(out + 48, &a->c0);
}

static gs_status read_fp2(gs_fp2 *out, const uint8_t *in, size_t off, const char *what,
                          const char *coord, gs_err *err)
{
    char name[16];
    gs_status s;
    snprintf(name, sizeof name, "%s.c1", coord);
    if ((s = read_fp(&out->c1, in, off, what, name, err)) != GS_OK)
        return s;
    snprintf(name, sizeof name, "%s.c0", coord);
    return read_fp(&out->c0, in, off + 48, what, name, err);
}

gs_status gs_g2_compress(uint8_t out[96], const gs_g2_affine *a)
{
    memset(out, 0, 96);
    if (a->inf) {
        out[0] = FLAG_C | FLAG_I;
        return GS_OK;
    }
    write_fp2(out, &a->x);
    out[0] |= FLAG_C | (gs_fp2_is_lexlargest(&a->y) ? FLAG_S : 0);
    return GS_OK;
}

gs_status gs_g2_serialize(uint8_t out[192], const gs_g2_affine *a)
{
    memset(out, 0, 192);
    if (a->inf) {
        out[0] = FLAG_I;
        return GS_OK;
    }
    write_fp2(out, &a->x);
    write_fp2(out + 96, &a->y);
    return GS_OK;
}

gs_status gs_g2_decompress(gs_g2_affine *out, const uint8_t in[96], gs_err *err)
{
    const char *what = "G2 point (96-byte compressed)";
    static const gs_fp2 b2 = {{GS_CC_B}, {GS_CC_B}};
    gs_g2_affine p = {0};
    gs_fp2 rhs;
    int inf, sign;
    gs_status s = check_flags(in, 96, 1, what, &inf, &sign, err);
    if (s != GS_OK)
        return s;
    if (inf) {
        gs_g2_affine_set_inf(out);
        return GS_OK;
    }
    if ((s = read_fp2(&p.x, in, 0, what, "x", err)) != GS_OK)
        return s;
    gs_fp2_sqr(&rhs, &p.x);
    gs_fp2_mul(&rhs, &rhs, &p.x);
    gs_fp2_add(&rhs, &rhs, &b2);
    if (!gs_fp2_sqrt(&p.y, &rhs))
        return gs_err_set(err, GS_ERR_POINT, what, "bytes 0..95",
                          "x is not the x-coordinate of a curve point (x^3 + 4(u+1) is not a square)");
    if (gs_fp2_is_lexlargest(&p.y) != sign)
        gs_fp2_neg(&p.y, &p.y);
    if (!gs_g2_affine_in_subgroup(&p))
        return gs_err_set(err, GS_ERR_POINT, what, "bytes 0..95",
                          "point is not in the prime-order subgroup G2");
    *out = p;
    return GS_OK;
}

gs_status gs_g2_deserialize(gs_g2_affine *out, const uint8_t in[192], gs_err *err)
{
    const char *what = "G2 point (192-byte uncompressed)";
    gs_g2_affine p = {0};
    int inf, sign;
    gs_status s = check_flags(in, 192, 0, what, &inf, &sign, err);
    if (s != GS_OK)
        return s;
    if (inf) {
        gs_g2_affine_set_inf(out);
        return GS_OK;
    }
    if ((s = read_fp2(&p.x, in, 0, what, "x", err)) != GS_OK ||
        (s = read_fp2(&p.y, in, 96, what, "y", err)) != GS_OK)
        return s;
    if (!gs_g2_affine_is_on_curve(&p))
        return gs_err_set(err, GS_ERR_POINT, what, "bytes 0..191", "point is not on the curve");
    if (!gs_g2_affine_in_subgroup(&p))
        return gs_err_set(err, GS_ERR_POINT, what, "bytes 0..191",
                          "point is not in the prime-order subgroup G2");
    *out = p;
    return GS_OK;
}
