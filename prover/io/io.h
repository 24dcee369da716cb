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

#include "../../common/pool.h"
#include "../../common/status.h"
#include "../groth16/groth16.h"

#define GS_IO_TRUST_POINTS 0x1u  /* skip subgroup checks (on-curve still checked) */

gs_status gs_r1cs_read(gs_r1cs *out, const char *path, gs_err *err);
/* Witness values (plain scalars, w[0] must be 1). */
gs_status gs_wtns_read(gs_scalar **w, uint32_t *n, const char *path, gs_err *err);
gs_status gs_wtns_write(const char *path, const gs_scalar *w, uint32_t n, gs_err *err);
/* pool may be NULL (single thread); it parallelizes decoding and the point checks. */
/* The key read is always a snarkjs-convention key (out->h_conv = GS_H_SNARKJS). */
/* Subgroup checks every time unless GS_IO_TRUST_POINTS; no key records
 * (gs_zkey_load with GS_ZKEY_CHECK_FORCE or _SKIP and record_dir ""). */
gs_status gs_zkey_read(gs_pk *out, const char *path, unsigned flags, gs_pool *pool, gs_err *err);

/*
 * Loading a proving key whose checks are remembered (zkey.c, keyrec.c).
 *
 * The file is read once, sequentially (never mapped), its SHA-256 computed
 * over exactly the bytes decoded, decoding spread over the pool.  Then:
 *   GS_ZKEY_CHECK_AUTO   subgroup checks of every point unless the record
 *                        directory holds a valid record for this digest and
 *                        size; after checks that pass, a record is written
 *                        (failure to write is not an error: info says why);
 *   GS_ZKEY_CHECK_FORCE  the checks now, whatever the records say (and a
 *                        fresh record);
 *   GS_ZKEY_CHECK_SKIP   no subgroup checks (curve equations still checked).
 * A point outside its subgroup is GS_ERR_POINT naming the file, the byte
 * offset and the point.  The batch test lets a bad point through with
 * probability <= 2^-64 (curve.h).  info may be NULL; opts NULL = AUTO with
 * the default record directory.
 */
typedef enum {
    GS_ZKEY_CHECK_AUTO,
    GS_ZKEY_CHECK_FORCE,
    GS_ZKEY_CHECK_SKIP,
    GS_ZKEY_CHECK_COUNT
} gs_zkey_check;

typedef struct gs_zkey_opts {
    gs_zkey_check check;
    const char *record_dir;  /* NULL: gs_keyrec_default_dir(); "": no records */
} gs_zkey_opts;

typedef struct gs_zkey_info {
    char sha256[65];         /* hex SHA-256 of the file as read (= sha256sum) */
    uint64_t size;           /* bytes */
    int checked;             /* the subgroup checks ran in this call, and passed */
    int record_found;        /* a valid record made the checks unnecessary */
    int record_written;      /* a record was written after the checks */
    char record_path[2200];  /* the record found or written */
    char record_note[600];   /* why a record was not written / not valid, when useful */
    size_t points;           /* points the checks covered */
    double read_s, check_s;  /* seconds: read + decode + hash; subgroup checks */
} gs_zkey_info;

gs_status gs_zkey_load(gs_pk *out, gs_zkey_info *info, const char *path,
                       const gs_zkey_opts *opts, gs_pool *pool, gs_err *err);

/*
 * Key records (keyrec.c).  A record says: the .zkey whose bytes have this
 * SHA-256 and size had every point's subgroup membership checked, by this
 * method.  It lives in DIR/<sha256>.rec, is bound to the digest (name and
 * content), the size and the checker's method tag, and is authenticated by
 * HMAC-SHA256 under DIR/.secret (32 random bytes, mode 0600, made with the
 * first record).  A record that is stale (another digest), edited, copied
 * under another name, from another method or another secret is not valid:
 * the checks run again.  Records are only read when proving, so a
 * read-only directory works (with the records it has).
 *
 * gs_keyrec_default_dir: $GAPSCOPE_KEY_RECORDS when set ("" or "off": no
 * records), else $XDG_CACHE_HOME/gapscope/keys, else
 * $HOME/.cache/gapscope/keys; "" when none can be named.
 * gs_keyrec_lookup: 1 for a valid record (path gets its name), else 0 and
 * note says why when a record existed but was refused.
 * gs_keyrec_store: creates DIR (and parents) if needed, writes atomically.
 */
#define GS_KEYREC_METHOD "subgroup-g1g2 sgb64-v1"
void gs_keyrec_default_dir(char *out, size_t len);
int gs_keyrec_lookup(const char *dir, const uint8_t digest[32], uint64_t size, char *path,
                     size_t path_len, char *note, size_t note_len);
gs_status gs_keyrec_store(const char *dir, const uint8_t digest[32], uint64_t size,
                          const char *key_path, char *path, size_t path_len, gs_err *err);
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
