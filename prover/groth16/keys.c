/*
 * Key bookkeeping: snarkjs's domain size rule, the H convention names,
 * freeing keys, and deriving the verifying key from a proving key
 * (SNARKJS-FORMATS 6.2, 8: the vk is the zkey's header points and IC
 * section).
 */
#include <stdlib.h>
#include <string.h>

#include "groth16.h"

#define GS_MAX_LOG_DOMAIN 28u

static const char *const h_conv_names[] = {GS_H_CONV_TABLE(GS_XT_COL2)};
_Static_assert(sizeof h_conv_names / sizeof h_conv_names[0] == GS_H_CONV_COUNT,
               "H convention table out of step");

GS_XT_DEFINE_NAMES(gs_h_convention, gs_h_convention, h_conv_names, GS_H_CONV_COUNT)

uint32_t gs_groth16_log_domain(uint32_t n_constraints, uint32_t n_public)
{
    /* cirPower in snarkjs src/zkey_new.js: floor(log2(m)) + 1 for m = nCons + nPub,
     * i.e. the smallest power of two strictly greater than m. */
    uint64_t m = (uint64_t)n_constraints + n_public;
    uint32_t log = 0;
    while (((uint64_t)1 << log) <= m)
        log++;
    return log > GS_MAX_LOG_DOMAIN ? 0 : log;
}

void gs_pk_free(gs_pk *pk)
{
    if (!pk)
        return;
    if (pk->arena) {
        free(pk->arena);
    } else {
        free(pk->ic);
        free(pk->a);
        free(pk->b1);
        free(pk->b2);
        free(pk->c);
        free(pk->h);
    }
    free(pk->coefs);
    memset(pk, 0, sizeof *pk);
}

void gs_vk_free(gs_vk *vk)
{
    if (!vk)
        return;
    free(vk->ic);
    memset(vk, 0, sizeof *vk);
}

gs_status gs_vk_from_pk(gs_vk *vk, const gs_pk *pk, gs_err *err)
{
    memset(vk, 0, sizeof *vk);
    vk->ic = malloc(((size_t)pk->n_public + 1) * sizeof *vk->ic);
    if (!vk->ic)
        return GS_ERR(err, GS_ERR_NOMEM, "vk", "IC of %u points", pk->n_public + 1);
    memcpy(vk->ic, pk->ic, ((size_t)pk->n_public + 1) * sizeof *vk->ic);
    vk->n_public = pk->n_public;
    vk->alpha1 = pk->alpha1;
    vk->beta2 = pk->beta2;
    vk->gamma2 = pk->gamma2;
    vk->delta2 = pk->delta2;
    return GS_OK;
}
