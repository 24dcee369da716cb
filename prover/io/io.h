/*
 * snarkjs file formats (../shared/SNARKJS-FORMATS.md), BLS12-381 only:
 * read .r1cs, .wtns, .zkey (Groth16); write .zkey, .wtns; read and write
 * proof.json, public.json, verification_key.json.
 *
 * Every reader checks the container (magic, version, section table,
 * section sizes), the curve (a bn128 file is GS_ERR_CURVE "unsupported
 * curve"), field ranges, and points (on curve; in the subgroup unless
 * GS_IO_TRUST_POINTS), and reports the first problem in err as
 * "<kind> @ <path>@<byte offset>: <what was expected>" (JSON:
 * path:line:col).  On failure nothing is returned (outputs zeroed).
 *
 * Writers write to "<path>.tmp.<pid>" and rename it into place, so a failed
 * write leaves no partial file.
 *
 * Ownership: read functions fill caller-provided structs whose arrays they
 * allocate; free them with the groth16 layer's gs_r1cs_free / gs_pk_free /
 * gs_vk_free, and the witness and public arrays with free().
 */
#ifndef GS_IO_H
#define GS_IO_H

#include <stdint.h>

#include "../common/pool.h"
#include "../common/status.h"
#include "../groth16/groth16.h"

#define GS_IO_TRUST_POINTS 0x1u  /* skip subgroup checks (on-curve still checked) */

gs_status gs_r1cs_read(gs_r1cs *out, const char *path, gs_err *err);
/* Witness values (plain scalars, w[0] must be 1). */
gs_status gs_wtns_read(gs_scalar **w, uint32_t *n, const char *path, gs_err *err);
gs_status gs_wtns_write(const char *path, const gs_scalar *w, uint32_t n, gs_err *err);
/* pool may be NULL (single thread); it parallelizes the point checks. */
/* The key read is always a snarkjs-convention key (out->h_conv = GS_H_SNARKJS). */
gs_status gs_zkey_read(gs_pk *out, const char *path, unsigned flags, gs_pool *pool, gs_err *err);
/* GS_ERR_ARG, writing nothing, for a key whose h_conv is not GS_H_SNARKJS
 * (groth16.h: a classic key has no .zkey form). */
gs_status gs_zkey_write(const char *path, const gs_pk *pk, gs_err *err);

gs_status gs_proof_json_write(const char *path, const gs_proof *proof, gs_err *err);
gs_status gs_public_json_write(const char *path, const gs_scalar *pub, uint32_t n, gs_err *err);
/* Includes vk_alphabeta_12 = e(alpha1, beta2). */
gs_status gs_vk_json_write(const char *path, const gs_vk *vk, gs_err *err);

gs_status gs_proof_json_read(gs_proof *out, const char *path, gs_err *err);
gs_status gs_public_json_read(gs_scalar **pub, uint32_t *n, const char *path, gs_err *err);
gs_status gs_vk_json_read(gs_vk *out, const char *path, gs_err *err);

#endif
