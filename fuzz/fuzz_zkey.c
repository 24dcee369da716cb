/*
 * libFuzzer target: the snarkjs Groth16 .zkey reader (prover/io/zkey.c), as
 * `gapscope prove` and `gapscope zkey export-vk` call it.
 *
 * The first byte of the input picks the reader's flags (bit 0: the
 * --trusted-key mode, on-curve checks only); the rest is the file.  Seeds
 * in fuzz/corpus/zkey carry a 0x00 or 0x01 prefix for that reason.
 */
#include <stdlib.h>

#include "../prover/io/io.h"
#include "fz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    unsigned flags = (data[0] & 1) ? GS_IO_TRUST_POINTS : 0;
    const char *path = fz_write("in.zkey", data + 1, size - 1);
    gs_pk pk;
    gs_err err;
    gs_err_clear(&err);
    gs_status st = gs_zkey_read(&pk, path, flags, NULL, &err);
    if (st == GS_OK)
        gs_pk_free(&pk);
    else
        fz_check_error(st, &err, path, 1);
    return 0;
}
