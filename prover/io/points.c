/* Field elements and points in snarkjs's binary encodings (SNARKJS-FORMATS.md section 2). */
#include <string.h>

#include "io_internal.h"

/* BN254 primes, to name the curve of a bn128 file in the error. */
static const uint64_t BN254_R[4] = {0x43e1f593f0000001ULL, 0x2833e84879b97091ULL,
                                    0xb85045b68181585dULL, 0x30644e72e131a029ULL};
static const uint64_t BN254_Q[4] = {0x3c208c16d87cfd47ULL, 0x97816a916871ca8dULL,
                                    0xb85045b68181585dULL, 0x30644e72e131a029ULL};

/* On a little-endian host the limbs are the bytes: one copy (gcc did not
 * merge the byte loop, a dependent shift chain of ~200 cycles per
 * coordinate: 15% of the CPU time of loading a 2^16 key). */
void gs_io_limbs_from_le(uint64_t *out, const uint8_t *in, int n_limbs)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    memcpy(out, in, (size_t)n_limbs * 8);
#else
    for (int i = 0; i < n_limbs; i++) {
        uint64_t v = 0;
        for (int k = 7; k >= 0; k--)
            v = v << 8 | in[8 * i + k];
        out[i] = v;
    }
#endif
}

void gs_io_limbs_to_le(uint8_t *out, const uint64_t *in, int n_limbs)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    memcpy(out, in, (size_t)n_limbs * 8);
#else
    for (int i = 0; i < n_limbs; i++)
        for (int k = 0; k < 8; k++)
            out[8 * i + k] = (uint8_t)(in[i] >> (8 * k));
#endif
}

static int limbs_lt(const uint64_t *a, const uint64_t *m, int n)
{
    for (int i = n - 1; i >= 0; i--)
        if (a[i] != m[i])
            return a[i] < m[i];
    return 0;
}

gs_status gs_io_check_prime(gs_bincur *c, uint32_t n8, int scalar)
{
    uint64_t at = c->pos;
    const uint8_t *p;
    gs_status s = gs_bincur_bytes(c, &p, n8, scalar ? "prime r" : "prime q");
    if (s != GS_OK)
        return s;
    if (n8 == 32) {
        uint64_t v[4];
        gs_io_limbs_from_le(v, p, 4);
        if (scalar && !memcmp(v, GS_FR_MODULUS.l, sizeof v))
            return GS_OK;
        if (!memcmp(v, BN254_R, sizeof v) || !memcmp(v, BN254_Q, sizeof v))
            return gs_bincur_fail(c, at, GS_ERR_CURVE,
                                  "unsupported curve bn128 (gapscope supports bls12381)");
    } else if (n8 == 48 && !scalar) {
        uint64_t v[6];
        gs_io_limbs_from_le(v, p, 6);
        if (!memcmp(v, GS_FP_MODULUS.l, sizeof v))
            return GS_OK;
    }
    return gs_bincur_fail(c, at, GS_ERR_CURVE,
                          "unknown %u-byte prime: not BLS12-381's %s (unsupported curve)", n8,
                          scalar ? "r" : "q");
}

gs_status gs_io_read_scalar(gs_bincur *c, gs_scalar *out, const char *what)
{
    uint64_t at = c->pos;
    const uint8_t *p;
    gs_status s = gs_bincur_bytes(c, &p, 32, what);
    if (s != GS_OK)
        return s;
    gs_io_limbs_from_le(out->l, p, 4);
    if (!limbs_lt(out->l, GS_FR_MODULUS.l, 4))
        return gs_bincur_fail(c, at, GS_ERR_RANGE, "%s is not below r", what);
    return GS_OK;
}

gs_status gs_io_read_fr(gs_bincur *c, gs_fr *out, const char *what)
{
    gs_scalar sc;
    gs_status s = gs_io_read_scalar(c, &sc, what);
    if (s == GS_OK)
        gs_fr_from_scalar(out, &sc);
    return s;
}

/* A Montgomery-form coordinate, LE: the limbs are the bytes; must be < p. */
static gs_status read_fp_mont(gs_bincur *c, gs_fp *out, const char *what, int *all_zero)
{
    uint64_t at = c->pos;
    const uint8_t *p;
    gs_status s = gs_bincur_bytes(c, &p, 48, what);
    if (s != GS_OK)
        return s;
    gs_io_limbs_from_le(out->l, p, 6);
    if (!limbs_lt(out->l, GS_FP_MODULUS.l, 6))
        return gs_bincur_fail(c, at, GS_ERR_RANGE, "%s: coordinate not below p", what);
    for (int i = 0; i < 6; i++)
        if (out->l[i])
            *all_zero = 0;
    return GS_OK;
}

gs_status gs_io_read_g1_as(gs_bincur *c, gs_g1_affine *out, const char *what, int curve)
{
    uint64_t at = c->pos;
    int zero = 1;
    gs_status s;
    if ((s = read_fp_mont(c, &out->x, what, &zero)) != GS_OK ||
        (s = read_fp_mont(c, &out->y, what, &zero)) != GS_OK)
        return s;
    out->inf = zero;
    if (curve && !zero && !gs_g1_affine_is_on_curve(out))
        return gs_io_curve_fail(c->bf->path, c->bf->kind, c->err, at, c->section, what, 0);
    return GS_OK;
}

gs_status gs_io_read_g2_as(gs_bincur *c, gs_g2_affine *out, const char *what, int curve)
{
    uint64_t at = c->pos;
    int zero = 1;
    gs_status s;
    if ((s = read_fp_mont(c, &out->x.c0, what, &zero)) != GS_OK ||
        (s = read_fp_mont(c, &out->x.c1, what, &zero)) != GS_OK ||
        (s = read_fp_mont(c, &out->y.c0, what, &zero)) != GS_OK ||
        (s = read_fp_mont(c, &out->y.c1, what, &zero)) != GS_OK)
        return s;
    out->inf = zero;
    if (curve && !zero && !gs_g2_affine_is_on_curve(out))
        return gs_io_curve_fail(c->bf->path, c->bf->kind, c->err, at, c->section, what, 1);
    return GS_OK;
}

gs_status gs_io_read_g1(gs_bincur *c, gs_g1_affine *out, const char *what)
{
    return gs_io_read_g1_as(c, out, what, 1);
}

gs_status gs_io_read_g2(gs_bincur *c, gs_g2_affine *out, const char *what)
{
    return gs_io_read_g2_as(c, out, what, 1);
}

gs_status gs_io_curve_fail(const char *path, const char *kind, gs_err *err, uint64_t offset,
                           uint32_t section, const char *what, int g2)
{
    return gs_binfile_fail(path, kind, err, offset, GS_ERR_POINT,
                           "section %u: %s: %s point not on the curve", section, what,
                           g2 ? "G2" : "G1");
}

static void put_fp(gs_binbuf *b, const gs_fp *v, int zero)
{
    uint8_t x[48];
    if (zero)
        memset(x, 0, sizeof x);
    else
        gs_io_limbs_to_le(x, v->l, 6);
    gs_binbuf_put(b, x, sizeof x);
}

void gs_io_put_g1(gs_binbuf *b, const gs_g1_affine *p)
{
    put_fp(b, &p->x, p->inf);
    put_fp(b, &p->y, p->inf);
}

void gs_io_put_g2(gs_binbuf *b, const gs_g2_affine *p)
{
    put_fp(b, &p->x.c0, p->inf);
    put_fp(b, &p->x.c1, p->inf);
    put_fp(b, &p->y.c0, p->inf);
    put_fp(b, &p->y.c1, p->inf);
}

void gs_io_put_fr_plain(gs_binbuf *b, const gs_fr *v)
{
    uint8_t x[32];
    gs_fr_to_bytes_le(x, v);
    gs_binbuf_put(b, x, sizeof x);
}
