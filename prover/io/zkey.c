/*
 * Groth16 .zkey loading and writing (SNARKJS-FORMATS.md section 6).
 *
 * Loading = the streaming parse (zkey_read.c: protocol, curve primes, every
 * section's exact size, every coordinate's range, every point's curve
 * equation, the file's SHA-256), then the subgroup checks of every point,
 * unless a key record (keyrec.c) says the key with this very digest passed
 * them before.  When a record may say so, the curve equations wait for the
 * digest too (they ran with the checks the record vouches for): a checked
 * key costs the parse without them (~20% of its CPU time at 2^16).  The
 * checks are the batch test of curve.h (random subset sums, fresh seed from
 * getrandom(2)), spread over the pool; a failure names the point's byte
 * offset.  A key that passes gets a record when a record directory is
 * writable; a record is never needed to prove.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../common/clock.h"
#include "../../common/rng.h"

#include "io.h"
#include "io_internal.h"

/* The key's points that the record or the checks vouch for: the six header
 * points one by one, each array by the batch test (curve.h). */
static gs_status check_points(const gs_pk *pk, const gs_zkey_layout *lay, const char *path,
                              gs_pool *pool, size_t *n_points, gs_err *err)
{
    static const char *const names[6] = {"alpha_1", "beta_1", "beta_2",
                                         "gamma_2", "delta_1", "delta_2"};
    const gs_g1_affine *g1[6] = {&pk->alpha1, &pk->beta1, NULL, NULL, &pk->delta1, NULL};
    const gs_g2_affine *g2[6] = {NULL, NULL, &pk->beta2, &pk->gamma2, NULL, &pk->delta2};
    for (int i = 0; i < 6; i++)
        if (g1[i] ? !gs_g1_affine_in_subgroup(g1[i]) : !gs_g2_affine_in_subgroup(g2[i]))
            return gs_binfile_fail(path, "zkey", err, lay->hdr_off[i], GS_ERR_POINT,
                                   "section 2: %s is not in the prime-order subgroup", names[i]);
    /* Fresh randomness: a key made beforehand cannot aim at the subsets. */
    uint8_t seed[32];
    if (gs_os_random(seed, sizeof seed) != 0)
        return GS_ERR(err, GS_ERR_IO, "zkey", "getrandom failed: no seed for the subgroup test");
    *n_points = 6;
    for (int k = 0; k < 6; k++) {
        uint32_t t = gs_io_zkey_point_types[k];
        const void *pts;
        size_t n = gs_io_zkey_points(pk, t, &pts);
        int g2p = t == 7;
        size_t bad = g2p ? gs_g2_affine_batch_in_subgroup(pts, n, seed, pool)
                         : gs_g1_affine_batch_in_subgroup(pts, n, seed, pool);
        *n_points += n;
        if (bad < n)
            return gs_binfile_fail(path, "zkey", err, lay->sec_off[t] + bad * (g2p ? 192 : 96),
                                   GS_ERR_POINT,
                                   "section %u: %s point %zu is not in the prime-order subgroup",
                                   t, gs_io_zkey_section_name(t), bad);
    }
    return GS_OK;
}

static double secs_since(int64_t t0) { return (double)(gs_now_ns() - t0) / 1e9; }

gs_status gs_zkey_load(gs_pk *out, gs_zkey_info *info, const char *path,
                       const gs_zkey_opts *opts, gs_pool *pool, gs_err *err)
{
    gs_zkey_info scratch;
    gs_zkey_opts dflt = {GS_ZKEY_CHECK_AUTO, NULL};
    if (!info)
        info = &scratch;
    if (!opts)
        opts = &dflt;
    memset(info, 0, sizeof *info);
    char dir[2048] = "";
    if (opts->record_dir)
        snprintf(dir, sizeof dir, "%s", opts->record_dir);
    else
        gs_keyrec_default_dir(dir, sizeof dir);

    gs_zkey_layout lay;
    uint8_t digest[32];
    int64_t t0 = gs_now_ns();
    /* A key a record vouches for passed the curve equation with the
     * subgroup checks: when a record may exist (AUTO), the curve equation
     * waits until the digest has missed the records. */
    int may_skip = opts->check == GS_ZKEY_CHECK_AUTO && dir[0];
    gs_status s = gs_io_zkey_parse(out, &lay, digest, path, !may_skip, pool, err);
    info->read_s = secs_since(t0);
    if (s != GS_OK)
        return s;
    gs_sha256_hex(info->sha256, digest);
    info->size = lay.size;
    if (opts->check == GS_ZKEY_CHECK_SKIP)
        return GS_OK;
    if (may_skip &&
        gs_keyrec_lookup(dir, digest, lay.size, info->record_path, sizeof info->record_path,
                         info->record_note, sizeof info->record_note)) {
        info->record_found = 1;
        return GS_OK;
    }
    t0 = gs_now_ns();
    if (may_skip && (s = gs_io_zkey_check_curve(out, &lay, path, pool, err)) != GS_OK) {
        gs_pk_free(out);
        return s;
    }
    s = check_points(out, &lay, path, pool, &info->points, err);
    info->check_s = secs_since(t0);
    if (s != GS_OK) {
        gs_pk_free(out);
        return s;
    }
    info->checked = 1;
    if (dir[0]) {
        gs_err werr;
        gs_err_clear(&werr);
        if (gs_keyrec_store(dir, digest, lay.size, path, info->record_path,
                            sizeof info->record_path, &werr) == GS_OK)
            info->record_written = 1;
        else
            snprintf(info->record_note, sizeof info->record_note, "%s", werr.msg);
    }
    return GS_OK;
}

gs_status gs_zkey_read(gs_pk *out, const char *path, unsigned flags, gs_pool *pool, gs_err *err)
{
    gs_zkey_opts o = {(flags & GS_IO_TRUST_POINTS) ? GS_ZKEY_CHECK_SKIP : GS_ZKEY_CHECK_FORCE, ""};
    return gs_zkey_load(out, NULL, path, &o, pool, err);
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
