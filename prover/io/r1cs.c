/*
 * .r1cs reader (SNARKJS-FORMATS.md section 3): header (type 1) and
 * constraints (type 2) into the CSR matrices of gs_r1cs.  The wire-to-label
 * map (type 3) is not needed for proving and is not read.
 */
#include <stdlib.h>
#include <string.h>

#include "io.h"
#include "io_internal.h"

/* Reads one linear combination, appending to *terms (grown as needed). */
static gs_status read_lc(gs_bincur *c, uint32_t n_wires, gs_lc_term **terms, uint64_t *n,
                         uint64_t *cap, const char *mat)
{
    uint32_t k;
    gs_status s = gs_bincur_u32(c, &k, "term count");
    if (s != GS_OK)
        return s;
    if ((uint64_t)k * 36 > c->end - c->pos)
        return gs_bincur_fail(c, c->pos - 4, GS_ERR_FORMAT,
                              "truncated: %s has %u terms, section has room for %llu", mat, k,
                              (unsigned long long)((c->end - c->pos) / 36));
    if (*n + k > *cap) {
        uint64_t nc = *cap ? *cap : 1024;
        while (nc < *n + k)
            nc *= 2;
        gs_lc_term *t = realloc(*terms, nc * sizeof *t);
        if (!t)
            return gs_bincur_fail(c, c->pos, GS_ERR_NOMEM, "out of memory for %llu terms",
                                  (unsigned long long)nc);
        *terms = t;
        *cap = nc;
    }
    for (uint32_t i = 0; i < k; i++) {
        uint32_t wire;
        uint64_t at = c->pos;
        if ((s = gs_bincur_u32(c, &wire, "wire index")) != GS_OK)
            return s;
        if (wire >= n_wires)
            return gs_bincur_fail(c, at, GS_ERR_RANGE, "%s term wire %u >= nWires %u", mat, wire,
                                  n_wires);
        gs_lc_term *t = &(*terms)[(*n)++];
        t->wire = wire;
        if ((s = gs_io_read_fr(c, &t->coeff, "coefficient")) != GS_OK)
            return s;
    }
    return GS_OK;
}

gs_status gs_r1cs_read(gs_r1cs *out, const char *path, gs_err *err)
{
    memset(out, 0, sizeof *out);
    gs_binfile bf;
    gs_status s = gs_binfile_open(&bf, path, "r1cs", 1, err);
    if (s != GS_OK)
        return s;
    gs_bincur c;
    uint32_t n8;
    uint64_t n_labels;
    uint64_t na = 0, nb = 0, nc = 0, capa = 0, capb = 0, capc = 0;
    if ((s = gs_binfile_section(&bf, 1, &c, err)) != GS_OK)
        goto fail;
    if ((s = gs_bincur_u32(&c, &n8, "n8")) != GS_OK)
        goto fail;
    if (n8 != 32) {
        s = gs_bincur_fail(&c, c.pos - 4, GS_ERR_CURVE, "field size n8 = %u, expected 32 (bls12381)", n8);
        goto fail;
    }
    if ((s = gs_io_check_prime(&c, n8, 1)) != GS_OK ||
        (s = gs_bincur_u32(&c, &out->n_wires, "nWires")) != GS_OK ||
        (s = gs_bincur_u32(&c, &out->n_pub_out, "nPubOut")) != GS_OK ||
        (s = gs_bincur_u32(&c, &out->n_pub_in, "nPubIn")) != GS_OK ||
        (s = gs_bincur_u32(&c, &out->n_prv_in, "nPrvIn")) != GS_OK ||
        (s = gs_bincur_u64(&c, &n_labels, "nLabels")) != GS_OK ||
        (s = gs_bincur_u32(&c, &out->n_constraints, "nConstraints")) != GS_OK ||
        (s = gs_bincur_end(&c)) != GS_OK)
        goto fail;
    if (out->n_wires == 0 ||
        (uint64_t)out->n_pub_out + out->n_pub_in + out->n_prv_in >= out->n_wires) {
        s = gs_bincur_fail(&c, c.pos, GS_ERR_FORMAT,
                           "inconsistent header: %u outputs + %u public + %u private inputs "
                           "do not fit in %u wires",
                           out->n_pub_out, out->n_pub_in, out->n_prv_in, out->n_wires);
        goto fail;
    }
    if ((s = gs_binfile_section(&bf, 2, &c, err)) != GS_OK)
        goto fail;
    /* Each constraint holds three term counts (12 bytes) at least: a header
     * promising more than the section can hold is refused before the row
     * arrays are allocated (a 100-byte file once asked for 15 GB). */
    if ((uint64_t)out->n_constraints * 12 > c.end - c.pos) {
        s = gs_bincur_fail(&c, c.pos, GS_ERR_FORMAT,
                           "truncated: nConstraints = %u needs at least %llu bytes, the "
                           "constraints section has %llu",
                           out->n_constraints, (unsigned long long)out->n_constraints * 12,
                           (unsigned long long)(c.end - c.pos));
        goto fail;
    }
    size_t rows = (size_t)out->n_constraints + 1;
    out->a_start = malloc(rows * sizeof(uint64_t));
    out->b_start = malloc(rows * sizeof(uint64_t));
    out->c_start = malloc(rows * sizeof(uint64_t));
    if (!out->a_start || !out->b_start || !out->c_start) {
        s = gs_err_set(err, GS_ERR_NOMEM, "r1cs", path, "%u constraints", out->n_constraints);
        goto fail;
    }
    for (uint32_t i = 0; i < out->n_constraints; i++) {
        out->a_start[i] = na;
        out->b_start[i] = nb;
        out->c_start[i] = nc;
        if ((s = read_lc(&c, out->n_wires, &out->a_terms, &na, &capa, "A")) != GS_OK ||
            (s = read_lc(&c, out->n_wires, &out->b_terms, &nb, &capb, "B")) != GS_OK ||
            (s = read_lc(&c, out->n_wires, &out->c_terms, &nc, &capc, "C")) != GS_OK)
            goto fail;
    }
    out->a_start[out->n_constraints] = na;
    out->b_start[out->n_constraints] = nb;
    out->c_start[out->n_constraints] = nc;
    if ((s = gs_bincur_end(&c)) != GS_OK)
        goto fail;
    gs_binfile_close(&bf);
    return GS_OK;
fail:
    gs_binfile_close(&bf);
    gs_r1cs_free(out);
    return s;
}
