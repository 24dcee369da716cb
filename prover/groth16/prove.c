/*
 * The one-shot prover (CLI, tests): the CPU backend's prove_start and
 * prove_finish back to back, and the blinding draw from the OS.
 */
#include <string.h>

#include "backend.h"
#include "groth16.h"

gs_status gs_groth16_random_rs(gs_scalar *r, gs_scalar *s, gs_err *err)
{
    uint8_t bytes[128];
    if (gs_os_random(bytes, sizeof bytes) != 0)
        return GS_ERR(err, GS_ERR_IO, "prove", "getrandom failed for the blinding scalars");
    gs_fr fr, fs;
    /* 512-bit values reduced mod r: statistically uniform in Fr. */
    gs_fr_from_bytes_wide(&fr, bytes);
    gs_fr_from_bytes_wide(&fs, bytes + 64);
    gs_fr_to_scalar(r, &fr);
    gs_fr_to_scalar(s, &fs);
    memset(bytes, 0, sizeof bytes);
    return GS_OK;
}

gs_status gs_groth16_prove(gs_proof *out, const gs_pk *pk, const gs_assignment *as,
                           const gs_scalar *r, const gs_scalar *s, int threads, gs_err *err)
{
    gs_backend *be = NULL;
    gs_prove_state *st = NULL;
    gs_status rc = gs_backend_cpu_create(&be, threads, err);
    if (rc != GS_OK)
        return rc;
    gs_prove_opts opts = { .threads = threads };
    rc = be->ops->prove_start(be, pk, as, r, s, &opts, &st, NULL, err);
    if (rc == GS_OK)
        rc = be->ops->prove_finish(be, st, out, NULL, err);
    be->ops->destroy(be);
    return rc;
}
