/* libFuzzer target: the circom .r1cs reader (prover/io/r1cs.c). */
#include "../prover/io/io.h"
#include "fz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = fz_write("in.r1cs", data, size);
    gs_r1cs r;
    gs_err err;
    gs_err_clear(&err);
    gs_status st = gs_r1cs_read(&r, path, &err);
    if (st == GS_OK)
        gs_r1cs_free(&r);
    else
        fz_check_error(st, &err, path, 1);
    return 0;
}
