/* The layout of gs_domain, shared by the poly layer's files only. */
#ifndef GS_POLY_INTERNAL_H
#define GS_POLY_INTERNAL_H

#include "poly.h"

/* log2 of the cache block of the NTT's first stages: 2^12 elements = 128 KiB. */
#define GS_NTT_BLOCK_LOG 12

struct gs_domain {
    unsigned log_n;
    size_t n;
    gs_fr w, w_inv, n_inv;   /* w_n, w_n^-1, 1/n */
    gs_fr g, g_inv;          /* w_(2n), its inverse */
    gs_fr *tw;               /* w_n^i, i < n/2; NULL when n == 1 */
    /* The block size of the NTT's cache-blocked first stages, and a copy of
     * the twiddles those stages use: twl[i] = w_L^i = tw[i * n/L], i < L/2
     * (contiguous, so the inner loops do not stride through tw). */
    unsigned log_l;
    gs_fr twl[1u << (GS_NTT_BLOCK_LOG - 1)];
};

#endif
