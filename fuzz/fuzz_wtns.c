/*
 * libFuzzer target: the snarkjs .wtns reader (prover/io/wtns.c), as
 * `gapscope prove` calls it.  A witness that reads back is written again
 * and re-read: the values must survive the round trip.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../prover/io/io.h"
#include "fz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = fz_write("in.wtns", data, size);
    gs_scalar *w = NULL, *w2 = NULL;
    uint32_t n = 0, n2 = 0;
    gs_err err;
    gs_err_clear(&err);
    gs_status st = gs_wtns_read(&w, &n, path, &err);
    if (st != GS_OK) {
        fz_check_error(st, &err, path, 1);
        return 0;
    }
    char out[768];
    snprintf(out, sizeof out, "%s", fz_path("out.wtns"));
    if ((st = gs_wtns_write(out, w, n, &err)) != GS_OK)
        fz_fail("writing back a witness that was read failed: %s", err.msg);
    if ((st = gs_wtns_read(&w2, &n2, out, &err)) != GS_OK)
        fz_fail("re-reading a written witness failed: %s", err.msg);
    if (n2 != n || memcmp(w, w2, (size_t)n * sizeof *w))
        fz_fail("the witness changed in a write/read round trip (%u -> %u values)", n, n2);
    free(w);
    free(w2);
    return 0;
}
