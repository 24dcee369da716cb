/*
 * Groth16 .zkey reader and writer (SNARKJS-FORMATS.md section 6).
 *
 * Reading checks the protocol (section 1 = 1, Groth16), the curve primes,
 * every section's exact size, every coordinate's range and every point's
 * curve equation; then, unless GS_IO_TRUST_POINTS, subgroup membership of
 * every point, spread over the pool.  Coefficients are stored as v*R^2 and
 * become our Montgomery v*R by one Montgomery multiplication by plain 1.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "io.h"
#include "io_internal.h"

/*
 * Point sections are decoded (range and curve checks included) in parallel
 * over the pool: each chunk decodes its own slice through its own cursor and
 * reports its first failure; the lowest failing point is then decoded again
 * serially to produce the error message with its exact byte offset.
 */
typedef struct {
    const gs_binfile *bf;
    uint32_t type;
    uint64_t base;          /* file offset of point 0 */
    size_t size;            /* bytes per point */
    void *out;
    const char *what;
    pthread_mutex_t mu;
    size_t bad;
} dec_job;

static gs_status decode_one(const dec_job *j, size_t i, gs_err *err)
{
    gs_bincur c = {j->bf, j->base + i * j->size, j->base + (i + 1) * j->size, j->type, err};
    return j->size == 96 ? gs_io_read_g1(&c, &((gs_g1_affine *)j->out)[i], j->what)
                         : gs_io_read_g2(&c, &((gs_g2_affine *)j->out)[i], j->what);
}

static void dec_chunk(void *ctx, size_t begin, size_t end, unsigned slot)
{
    (void)slot;
    dec_job *j = ctx;
    for (size_t i = begin; i < end; i++)
        if (decode_one(j, i, NULL) != GS_OK) {
            pthread_mutex_lock(&j->mu);
            if (i < j->bad)
                j->bad = i;
            pthread_mutex_unlock(&j->mu);
            return;
        }
}

static gs_status read_point_array(const gs_binfile *bf, uint32_t type, void **out, size_t n,
                                  size_t size, const char *what, gs_pool *pool, gs_err *err)
{
    gs_bincur c;
    gs_status s = gs_binfile_section(bf, type, &c, err);
    if (s != GS_OK)
        return s;
    if (c.end - c.pos != (uint64_t)n * size)
        return gs_bincur_fail(&c, c.pos, GS_ERR_FORMAT,
                              "%s section is %llu bytes, expected %zu points x %zu = %llu", what,
                              (unsigned long long)(c.end - c.pos), n, size,
                              (unsigned long long)n * size);
    size_t elem = size == 96 ? sizeof(gs_g1_affine) : sizeof(gs_g2_affine);
    *out = malloc((n ? n : 1) * elem);
    if (!*out)
        return gs_err_set(err, GS_ERR_NOMEM, "zkey", bf->path, "%zu %s points", n, what);
    dec_job j = {bf, type, c.pos, size, *out, what, PTHREAD_MUTEX_INITIALIZER, (size_t)-1};
    gs_pool_for(pool, n, 4096, dec_chunk, &j);
    if (j.bad != (size_t)-1)
        return decode_one(&j, j.bad, err);
    return GS_OK;
}

static gs_status read_g1_array(const gs_binfile *bf, uint32_t type, gs_g1_affine **out,
                               size_t n, const char *what, gs_pool *pool, gs_err *err)
{
    return read_point_array(bf, type, (void **)out, n, 96, what, pool, err);
}

static gs_status read_g2_array(const gs_binfile *bf, uint32_t type, gs_g2_affine **out,
                               size_t n, const char *what, gs_pool *pool, gs_err *err)
{
    return read_point_array(bf, type, (void **)out, n, 192, what, pool, err);
}

/* Subgroup checks over an array, in parallel; reports the lowest bad index. */
typedef struct {
    const void *pts;
    int g2;
    pthread_mutex_t mu;
    size_t bad;
} sg_job;

static void sg_chunk(void *ctx, size_t begin, size_t end, unsigned slot)
{
    (void)slot;
    sg_job *j = ctx;
    for (size_t i = begin; i < end; i++) {
        int ok = j->g2 ? gs_g2_affine_in_subgroup(&((const gs_g2_affine *)j->pts)[i])
                       : gs_g1_affine_in_subgroup(&((const gs_g1_affine *)j->pts)[i]);
        if (!ok) {
            pthread_mutex_lock(&j->mu);
            if (i < j->bad)
                j->bad = i;
            pthread_mutex_unlock(&j->mu);
            return;
        }
    }
}

static gs_status check_subgroup(const gs_binfile *bf, uint32_t type, const void *pts, size_t n,
                                int g2, const char *what, gs_pool *pool, gs_err *err)
{
    sg_job j = {pts, g2, PTHREAD_MUTEX_INITIALIZER, (size_t)-1};
    gs_pool_for(pool, n, 256, sg_chunk, &j);
    if (j.bad == (size_t)-1)
        return GS_OK;
    gs_bincur c;
    gs_binfile_section(bf, type, &c, err);
    return gs_bincur_fail(&c, c.pos + j.bad * (g2 ? 192 : 96), GS_ERR_POINT,
                          "%s point %zu is not in the prime-order subgroup", what, j.bad);
}

gs_status gs_zkey_read(gs_pk *out, const char *path, unsigned flags, gs_pool *pool, gs_err *err)
{
    memset(out, 0, sizeof *out);   /* h_conv = GS_H_SNARKJS: what every .zkey holds */
    gs_binfile bf;
    gs_status s = gs_binfile_open(&bf, path, "zkey", 1, err);
    if (s != GS_OK)
        return s;
    gs_bincur c;
    uint32_t protocol, n8q, n8r, ncoefs;
    if ((s = gs_binfile_section(&bf, 1, &c, err)) != GS_OK ||
        (s = gs_bincur_u32(&c, &protocol, "protocol")) != GS_OK)
        goto fail;
    if (protocol != 1) {
        s = gs_bincur_fail(&c, c.pos - 4, GS_ERR_FORMAT,
                           "protocol %u is not Groth16 (1); PLONK/FFLONK keys are not supported",
                           protocol);
        goto fail;
    }
    if ((s = gs_binfile_section(&bf, 2, &c, err)) != GS_OK ||
        (s = gs_bincur_u32(&c, &n8q, "n8q")) != GS_OK)
        goto fail;
    if (n8q != 48 && n8q != 32) {
        s = gs_bincur_fail(&c, c.pos - 4, GS_ERR_FORMAT, "n8q = %u, expected 48", n8q);
        goto fail;
    }
    if ((s = gs_io_check_prime(&c, n8q, 0)) != GS_OK ||
        (s = gs_bincur_u32(&c, &n8r, "n8r")) != GS_OK)
        goto fail;
    if (n8r != 32) {
        s = gs_bincur_fail(&c, c.pos - 4, GS_ERR_FORMAT, "n8r = %u, expected 32", n8r);
        goto fail;
    }
    if ((s = gs_io_check_prime(&c, n8r, 1)) != GS_OK ||
        (s = gs_bincur_u32(&c, &out->n_vars, "nVars")) != GS_OK ||
        (s = gs_bincur_u32(&c, &out->n_public, "nPublic")) != GS_OK ||
        (s = gs_bincur_u32(&c, &out->domain_size, "domainSize")) != GS_OK)
        goto fail;
    if (out->domain_size == 0 || (out->domain_size & (out->domain_size - 1)) ||
        out->domain_size > (1u << 28)) {
        s = gs_bincur_fail(&c, c.pos - 4, GS_ERR_FORMAT,
                           "domainSize %u is not a power of two <= 2^28", out->domain_size);
        goto fail;
    }
    if (out->n_public + 1 > out->n_vars) {
        s = gs_bincur_fail(&c, c.pos - 8, GS_ERR_FORMAT, "nPublic %u >= nVars %u", out->n_public,
                           out->n_vars);
        goto fail;
    }
    out->log_domain = (uint32_t)__builtin_ctz(out->domain_size);
    if ((s = gs_io_read_g1(&c, &out->alpha1, "alpha_1")) != GS_OK ||
        (s = gs_io_read_g1(&c, &out->beta1, "beta_1")) != GS_OK ||
        (s = gs_io_read_g2(&c, &out->beta2, "beta_2")) != GS_OK ||
        (s = gs_io_read_g2(&c, &out->gamma2, "gamma_2")) != GS_OK ||
        (s = gs_io_read_g1(&c, &out->delta1, "delta_1")) != GS_OK ||
        (s = gs_io_read_g2(&c, &out->delta2, "delta_2")) != GS_OK ||
        (s = gs_bincur_end(&c)) != GS_OK)
        goto fail;
    if (!(flags & GS_IO_TRUST_POINTS)) {
        const gs_g1_affine *g1s[3] = {&out->alpha1, &out->beta1, &out->delta1};
        const gs_g2_affine *g2s[3] = {&out->beta2, &out->gamma2, &out->delta2};
        for (int i = 0; i < 3; i++)
            if (!gs_g1_affine_in_subgroup(g1s[i]) || !gs_g2_affine_in_subgroup(g2s[i])) {
                s = gs_bincur_fail(&c, c.pos, GS_ERR_POINT,
                                   "header point is not in the prime-order subgroup");
                goto fail;
            }
    }

    uint32_t n_c = out->n_vars - out->n_public - 1;
    if ((s = read_g1_array(&bf, 3, &out->ic, out->n_public + 1, "IC", pool, err)) != GS_OK ||
        (s = read_g1_array(&bf, 5, &out->a, out->n_vars, "A", pool, err)) != GS_OK ||
        (s = read_g1_array(&bf, 6, &out->b1, out->n_vars, "B1", pool, err)) != GS_OK ||
        (s = read_g2_array(&bf, 7, &out->b2, out->n_vars, "B2", pool, err)) != GS_OK ||
        (s = read_g1_array(&bf, 8, &out->c, n_c, "C", pool, err)) != GS_OK ||
        (s = read_g1_array(&bf, 9, &out->h, out->domain_size, "H", pool, err)) != GS_OK)
        goto fail;

    if ((s = gs_binfile_section(&bf, 4, &c, err)) != GS_OK ||
        (s = gs_bincur_u32(&c, &ncoefs, "nCoefs")) != GS_OK)
        goto fail;
    if (c.end - c.pos != (uint64_t)ncoefs * 44) {
        s = gs_bincur_fail(&c, c.pos, GS_ERR_FORMAT,
                           "coefficients section holds %llu bytes, expected nCoefs %u x 44",
                           (unsigned long long)(c.end - c.pos), ncoefs);
        goto fail;
    }
    out->n_coefs = ncoefs;
    out->coefs = malloc((ncoefs ? ncoefs : 1) * sizeof *out->coefs);
    if (!out->coefs) {
        s = gs_err_set(err, GS_ERR_NOMEM, "zkey", path, "%u coefficients", ncoefs);
        goto fail;
    }
    /* Plain 1 as raw limbs is the Montgomery representation of R^-1, so
     * mont_mul(v R^2, 1) = v R, the Montgomery form of v. */
    gs_fr r_inv = {{1, 0, 0, 0}};
    uint32_t n_rows = out->domain_size;
    for (uint32_t i = 0; i < ncoefs; i++) {
        struct gs_coef *k = &out->coefs[i];
        uint64_t at = c.pos;
        gs_scalar raw;
        if ((s = gs_bincur_u32(&c, &k->matrix, "matrix")) != GS_OK ||
            (s = gs_bincur_u32(&c, &k->row, "constraint")) != GS_OK ||
            (s = gs_bincur_u32(&c, &k->wire, "signal")) != GS_OK ||
            (s = gs_io_read_scalar(&c, &raw, "coefficient")) != GS_OK)
            goto fail;
        if (k->matrix > 1 || k->row >= n_rows || k->wire >= out->n_vars) {
            s = gs_bincur_fail(&c, at, GS_ERR_RANGE,
                               "coefficient %u: matrix %u row %u wire %u out of range "
                               "(matrix 0/1, rows < %u, wires < %u)",
                               i, k->matrix, k->row, k->wire, n_rows, out->n_vars);
            goto fail;
        }
        memcpy(k->value.l, raw.l, sizeof raw.l);
        gs_fr_mul(&k->value, &k->value, &r_inv);
    }

    if (!(flags & GS_IO_TRUST_POINTS)) {
        if ((s = check_subgroup(&bf, 3, out->ic, out->n_public + 1, 0, "IC", pool, err)) != GS_OK ||
            (s = check_subgroup(&bf, 5, out->a, out->n_vars, 0, "A", pool, err)) != GS_OK ||
            (s = check_subgroup(&bf, 6, out->b1, out->n_vars, 0, "B1", pool, err)) != GS_OK ||
            (s = check_subgroup(&bf, 7, out->b2, out->n_vars, 1, "B2", pool, err)) != GS_OK ||
            (s = check_subgroup(&bf, 8, out->c, n_c, 0, "C", pool, err)) != GS_OK ||
            (s = check_subgroup(&bf, 9, out->h, out->domain_size, 0, "H", pool, err)) != GS_OK)
            goto fail;
    }
    gs_binfile_close(&bf);
    return GS_OK;
fail:
    gs_binfile_close(&bf);
    gs_pk_free(out);
    return s;
}

gs_status gs_zkey_write(const char *path, const gs_pk *pk, gs_err *err)
{
    /* A .zkey's H section is snarkjs's odd-coset points: a classic key
     * written there would make snarkjs (and this reader) prove wrongly. */
    if (pk->h_conv != GS_H_SNARKJS) {
        const char *name = gs_h_convention_name(pk->h_conv);
        return gs_err_set(err, GS_ERR_ARG, "zkey", path,
                          "the proving key uses the %s H convention; a .zkey holds only "
                          "snarkjs-convention H points (odd-coset Lagrange points), so this key "
                          "has no .zkey form (snarkjs would prove wrongly with it)",
                          name ? name : "unknown");
    }
    gs_binbuf b = {0};
    uint8_t x[48];
    gs_binbuf_put(&b, "zkey", 4);
    gs_binbuf_u32(&b, 1);
    gs_binbuf_u32(&b, 10);

    size_t sec = gs_binbuf_section_begin(&b, 1);
    gs_binbuf_u32(&b, 1);
    gs_binbuf_section_end(&b, sec);

    sec = gs_binbuf_section_begin(&b, 2);
    gs_binbuf_u32(&b, 48);
    gs_io_limbs_to_le(x, GS_FP_MODULUS.l, 6);
    gs_binbuf_put(&b, x, 48);
    gs_binbuf_u32(&b, 32);
    gs_io_limbs_to_le(x, GS_FR_MODULUS.l, 4);
    gs_binbuf_put(&b, x, 32);
    gs_binbuf_u32(&b, pk->n_vars);
    gs_binbuf_u32(&b, pk->n_public);
    gs_binbuf_u32(&b, pk->domain_size);
    gs_io_put_g1(&b, &pk->alpha1);
    gs_io_put_g1(&b, &pk->beta1);
    gs_io_put_g2(&b, &pk->beta2);
    gs_io_put_g2(&b, &pk->gamma2);
    gs_io_put_g1(&b, &pk->delta1);
    gs_io_put_g2(&b, &pk->delta2);
    gs_binbuf_section_end(&b, sec);

    sec = gs_binbuf_section_begin(&b, 3);
    for (uint32_t i = 0; i <= pk->n_public; i++)
        gs_io_put_g1(&b, &pk->ic[i]);
    gs_binbuf_section_end(&b, sec);

    /* Coefficients as v * R^2: our Montgomery v*R times R (Montgomery form of R^2 is R^3). */
    sec = gs_binbuf_section_begin(&b, 4);
    gs_binbuf_u32(&b, (uint32_t)pk->n_coefs);
    gs_fr one, r_mont;
    gs_fr_one(&one);                  /* raw limbs: R mod r */
    gs_fr_from_plain(&r_mont, one.l); /* the field element R mod r */
    for (size_t i = 0; i < pk->n_coefs; i++) {
        const struct gs_coef *k = &pk->coefs[i];
        gs_binbuf_u32(&b, k->matrix);
        gs_binbuf_u32(&b, k->row);
        gs_binbuf_u32(&b, k->wire);
        gs_fr v;
        gs_fr_mul(&v, &k->value, &r_mont); /* the element v*R: raw limbs v*R^2 */
        gs_io_limbs_to_le(x, v.l, 4);
        gs_binbuf_put(&b, x, 32);
    }
    gs_binbuf_section_end(&b, sec);

    sec = gs_binbuf_section_begin(&b, 5);
    for (uint32_t i = 0; i < pk->n_vars; i++)
        gs_io_put_g1(&b, &pk->a[i]);
    gs_binbuf_section_end(&b, sec);
    sec = gs_binbuf_section_begin(&b, 6);
    for (uint32_t i = 0; i < pk->n_vars; i++)
        gs_io_put_g1(&b, &pk->b1[i]);
    gs_binbuf_section_end(&b, sec);
    sec = gs_binbuf_section_begin(&b, 7);
    for (uint32_t i = 0; i < pk->n_vars; i++)
        gs_io_put_g2(&b, &pk->b2[i]);
    gs_binbuf_section_end(&b, sec);
    sec = gs_binbuf_section_begin(&b, 8);
    for (uint32_t i = 0; i + pk->n_public + 1 < pk->n_vars; i++)
        gs_io_put_g1(&b, &pk->c[i]);
    gs_binbuf_section_end(&b, sec);
    sec = gs_binbuf_section_begin(&b, 9);
    for (uint32_t i = 0; i < pk->domain_size; i++)
        gs_io_put_g1(&b, &pk->h[i]);
    gs_binbuf_section_end(&b, sec);

    /* Section 10, MPC parameters: a zero circuit hash and no contributions
     * (keys from `gapscope setup` come from an insecure test ceremony). */
    sec = gs_binbuf_section_begin(&b, 10);
    uint8_t hash[64] = {0};
    gs_binbuf_put(&b, hash, sizeof hash);
    gs_binbuf_u32(&b, 0);
    gs_binbuf_section_end(&b, sec);

    gs_status s = b.oom ? gs_err_set(err, GS_ERR_NOMEM, "zkey", path, "buffer")
                        : gs_file_write_atomic(path, b.data, b.len, "zkey", err);
    gs_binbuf_free(&b);
    return s;
}
