/* .wtns reader and writer (SNARKJS-FORMATS.md section 4): plain LE values. */
#include <stdlib.h>
#include <string.h>

#include "../../common/bigmem.h"
#include "io.h"
#include "io_internal.h"

gs_status gs_wtns_read(gs_scalar **w, uint32_t *n, const char *path, gs_err *err)
{
    *w = NULL;
    *n = 0;
    gs_binfile bf;
    gs_status s = gs_binfile_open(&bf, path, "wtns", 2, err);
    if (s != GS_OK)
        return s;
    gs_bincur c;
    uint32_t n8, count;
    gs_scalar *v = NULL;
    if ((s = gs_binfile_section(&bf, 1, &c, err)) != GS_OK ||
        (s = gs_bincur_u32(&c, &n8, "n8")) != GS_OK)
        goto fail;
    if (n8 != 32) {
        s = gs_bincur_fail(&c, c.pos - 4, GS_ERR_CURVE, "field size n8 = %u, expected 32", n8);
        goto fail;
    }
    if ((s = gs_io_check_prime(&c, n8, 1)) != GS_OK ||
        (s = gs_bincur_u32(&c, &count, "nWitness")) != GS_OK ||
        (s = gs_bincur_end(&c)) != GS_OK)
        goto fail;
    if ((s = gs_binfile_section(&bf, 2, &c, err)) != GS_OK)
        goto fail;
    if (c.end - c.pos != (uint64_t)count * 32) {
        s = gs_bincur_fail(&c, c.pos, GS_ERR_FORMAT,
                           "values section is %llu bytes, expected nWitness %u x 32 = %llu",
                           (unsigned long long)(c.end - c.pos), count,
                           (unsigned long long)count * 32);
        goto fail;
    }
    if (count == 0) {
        s = gs_bincur_fail(&c, c.pos, GS_ERR_FORMAT, "empty witness");
        goto fail;
    }
    v = gs_big_alloc((size_t)count * sizeof *v);
    if (!v) {
        s = gs_err_set(err, GS_ERR_NOMEM, "wtns", path, "%u values", count);
        goto fail;
    }
    for (uint32_t i = 0; i < count; i++)
        if ((s = gs_io_read_scalar(&c, &v[i], "witness value")) != GS_OK)
            goto fail;
    if (v[0].l[0] != 1 || v[0].l[1] || v[0].l[2] || v[0].l[3]) {
        s = gs_bincur_fail(&c, c.end - (uint64_t)count * 32, GS_ERR_FORMAT,
                           "w[0] must be 1 (the constant wire)");
        goto fail;
    }
    gs_binfile_close(&bf);
    *w = v;
    *n = count;
    return GS_OK;
fail:
    free(v);
    gs_binfile_close(&bf);
    return s;
}

gs_status gs_wtns_write(const char *path, const gs_scalar *w, uint32_t n, gs_err *err)
{
    gs_binbuf b = {0};
    gs_binbuf_put(&b, "wtns", 4);
    gs_binbuf_u32(&b, 2);
    gs_binbuf_u32(&b, 2);
    size_t sec = gs_binbuf_section_begin(&b, 1);
    gs_binbuf_u32(&b, 32);
    uint8_t x[32];
    gs_io_limbs_to_le(x, GS_FR_MODULUS.l, 4);
    gs_binbuf_put(&b, x, 32);
    gs_binbuf_u32(&b, n);
    gs_binbuf_section_end(&b, sec);
    sec = gs_binbuf_section_begin(&b, 2);
    for (uint32_t i = 0; i < n; i++) {
        gs_io_limbs_to_le(x, w[i].l, 4);
        gs_binbuf_put(&b, x, 32);
    }
    gs_binbuf_section_end(&b, sec);
    gs_status s = b.oom ? gs_err_set(err, GS_ERR_NOMEM, "wtns", path, "%u values", n)
                        : gs_file_write_atomic(path, b.data, b.len, "wtns", err);
    gs_binbuf_free(&b);
    return s;
}
