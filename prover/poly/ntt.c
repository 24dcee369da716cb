/*
 * Forward and inverse radix-2 NTT, natural order in and out (poly.h).
 *
 * Algorithm: iterative decimation in time (Cooley-Tukey; e.g. Cormen et al.,
 * "Introduction to Algorithms", 3rd ed., section 30.3): a bit-reversal
 * permutation, then log2 n butterfly stages; stage s combines pairs h = 2^(s-1)
 * apart with twiddles w_(2h)^j = w_n^(j n/2h).
 *
 * Memory: the first GS_NTT_BLOCK_LOG stages only mix elements inside aligned
 * blocks of L = 2^12 elements (128 KiB, fits L2), so each block runs them all
 * while cached, with its own contiguous twiddle copy (domain->twl); the
 * j = 0 butterflies (twiddle 1, about n of the n/2 log n) skip the multiply.
 * The later stages go over the whole array two at a time (radix-4 groups of
 * four elements h apart), halving the passes over memory, in a tile-major
 * order that keeps twiddles cached.  The bit reversal is cache-blocked too.
 *
 * Threads: each phase is one gs_pool_for (blocks, then groups per stage
 * pair); the pool call's return is the barrier between stages.
 *
 * The inverse uses intt(a)[j] = ntt(a)[-j mod n] / n (the same twiddles).
 */
#include "poly_internal.h"

/* Reverses the low k bits of i. */
static size_t bit_reverse(size_t i, unsigned k)
{
    uint64_t x = i;
    x = ((x >> 1) & 0x5555555555555555ull) | ((x & 0x5555555555555555ull) << 1);
    x = ((x >> 2) & 0x3333333333333333ull) | ((x & 0x3333333333333333ull) << 2);
    x = ((x >> 4) & 0x0f0f0f0f0f0f0f0full) | ((x & 0x0f0f0f0f0f0f0f0full) << 4);
    x = __builtin_bswap64(x);
    return k ? (size_t)(x >> (64 - k)) : 0;
}

/* (x, y) <- (x + y, x - y): the butterfly with twiddle 1. */
static inline void butterfly1(gs_fr *x, gs_fr *y)
{
    gs_fr t = *y;
    gs_fr_sub(y, x, &t);
    gs_fr_add(x, x, &t);
}

/* (x, y) <- (x + t y, x - t y). */
static inline void butterfly(gs_fr *x, gs_fr *y, const gs_fr *t)
{
    gs_fr p;
    gs_fr_mul(&p, y, t);
    gs_fr_sub(y, x, &p);
    gs_fr_add(x, x, &p);
}

typedef struct {
    const gs_domain *d;
    gs_fr *a;
    unsigned s;      /* phase 2: the first of the stages this pass runs */
} ntt_ctx;

/*
 * Bit-reversal permutation, cache-blocked: write i = (hi, mid, lo) with hi
 * and lo of T bits, so rev(i) = (rev(lo), rev(mid), rev(hi)).  For one pair
 * (mid, rev(mid)) all 2^T x 2^T swaps touch 2^T short rows on each side, so
 * they run from L1 instead of missing the cache on every element.
 * Items are mid values; mid > rev(mid) is left to its partner.
 */
#define BITREV_T 4

static void swap_fr(gs_fr *x, gs_fr *y)
{
    gs_fr t = *x;
    *x = *y;
    *y = t;
}

static void bitrev_chunk(void *vctx, size_t begin, size_t end, unsigned slot)
{
    (void)slot;
    ntt_ctx *c = vctx;
    unsigned k = c->d->log_n, m = k - 2 * BITREV_T;
    size_t tn = (size_t)1 << BITREV_T;
    for (size_t mid = begin; mid < end; mid++) {
        size_t rmid = bit_reverse(mid, m);
        if (rmid < mid)
            continue;
        for (size_t hi = 0; hi < tn; hi++) {
            size_t rhi = bit_reverse(hi, BITREV_T);
            for (size_t lo = 0; lo < tn; lo++) {
                size_t i = (hi << (m + BITREV_T)) | (mid << BITREV_T) | lo;
                size_t j = (bit_reverse(lo, BITREV_T) << (m + BITREV_T)) |
                           (rmid << BITREV_T) | rhi;
                if (rmid != mid || i < j)
                    swap_fr(&c->a[i], &c->a[j]);
            }
        }
    }
}

/* The plain permutation, for sizes below two tiles. */
static void bitrev_small(gs_fr *a, unsigned k)
{
    for (size_t i = 0; i < ((size_t)1 << k); i++) {
        size_t j = bit_reverse(i, k);
        if (i < j)
            swap_fr(&a[i], &a[j]);
    }
}

/* Phase 1: stages 1 .. log_l inside each block of L elements. */
static void block_chunk(void *vctx, size_t begin, size_t end, unsigned slot)
{
    (void)slot;
    ntt_ctx *c = vctx;
    const gs_domain *d = c->d;
    size_t l = (size_t)1 << d->log_l;
    for (size_t blk = begin; blk < end; blk++) {
        gs_fr *x = c->a + blk * l;
        for (unsigned s = 1; s <= d->log_l; s++) {
            size_t h = (size_t)1 << (s - 1);
            unsigned shift = d->log_l - s;   /* w_(2h)^j = w_L^(j L/2h) */
            for (size_t b = 0; b < l; b += 2 * h) {
                butterfly1(&x[b], &x[b + h]);
                for (size_t j = 1; j < h; j++)
                    butterfly(&x[b + j], &x[b + j + h], &d->twl[j << shift]);
            }
        }
    }
}

/*
 * Phase 2 work order.  A butterfly group's twiddles depend only on its
 * offset j inside a block, and in the late stages consecutive j of one block
 * use twiddles a page apart.  So an item is a tile of TILE consecutive j in
 * one block, and items run tile-major: the blocks of a tile follow each
 * other and reuse its twiddles from L1, while each item still reads TILE
 * contiguous elements per stream.  h >= 2^GS_NTT_BLOCK_LOG > TILE here.
 */
#define TILE 16

/* Phase 2, one stage s (h = 2^(s-1)); items = (tile, block of 2h). */
static void stage_chunk(void *vctx, size_t begin, size_t end, unsigned slot)
{
    (void)slot;
    ntt_ctx *c = vctx;
    const gs_domain *d = c->d;
    unsigned s = c->s;
    size_t h = (size_t)1 << (s - 1);
    size_t nblk = d->n >> s;
    unsigned shift = d->log_n - s;
    for (size_t u = begin; u < end; u++) {
        size_t j0 = (u / nblk) * TILE;
        gs_fr *x = c->a + (u % nblk) * 2 * h;
        for (size_t j = j0; j < j0 + TILE; j++)
            butterfly(&x[j], &x[j + h], &d->tw[j << shift]);
    }
}

/*
 * Phase 2, stages s and s+1 together; items = (tile, block of 4h), each
 * group four elements j + {0, h, 2h, 3h}.  Stage s pairs (0, h) and
 * (2h, 3h) with w_(2h)^j; stage s+1 pairs (0, 2h) with w_(4h)^j and (h, 3h)
 * with w_(4h)^(j+h).
 */
static void stage2_chunk(void *vctx, size_t begin, size_t end, unsigned slot)
{
    (void)slot;
    ntt_ctx *c = vctx;
    const gs_domain *d = c->d;
    unsigned s = c->s;
    size_t h = (size_t)1 << (s - 1);
    size_t nblk = d->n >> (s + 1);
    unsigned shift1 = d->log_n - s, shift2 = d->log_n - s - 1;
    for (size_t u = begin; u < end; u++) {
        size_t j0 = (u / nblk) * TILE;
        gs_fr *x = c->a + (u % nblk) * 4 * h;
        for (size_t j = j0; j < j0 + TILE; j++) {
            gs_fr *x0 = &x[j], *x1 = x0 + h, *x2 = x1 + h, *x3 = x2 + h;
            const gs_fr *t1 = &d->tw[j << shift1];
            butterfly(x0, x1, t1);
            butterfly(x2, x3, t1);
            butterfly(x0, x2, &d->tw[j << shift2]);
            butterfly(x1, x3, &d->tw[(j + h) << shift2]);
        }
    }
}

void gs_domain_ntt(const gs_domain *d, gs_fr *a, gs_pool *pool)
{
    if (d->n < 2)
        return;
    ntt_ctx c = {.d = d, .a = a};
    if (d->log_n < 2 * BITREV_T + 2)
        bitrev_small(a, d->log_n);
    else
        gs_pool_for(pool, (size_t)1 << (d->log_n - 2 * BITREV_T), 64, bitrev_chunk, &c);
    gs_pool_for(pool, d->n >> d->log_l, 1, block_chunk, &c);
    unsigned s = d->log_l + 1;
    for (; s + 1 <= d->log_n; s += 2) {
        c.s = s;
        gs_pool_for(pool, d->n / 4 / TILE, 64, stage2_chunk, &c);
    }
    if (s == d->log_n) {
        c.s = s;
        gs_pool_for(pool, d->n / 2 / TILE, 128, stage_chunk, &c);
    }
}

/* a[j] <-> a[n-j] for 0 < j < n/2, and everything times 1/n. */
static void reverse_scale_chunk(void *vctx, size_t begin, size_t end, unsigned slot)
{
    (void)slot;
    ntt_ctx *c = vctx;
    const gs_domain *d = c->d;
    for (size_t j = begin; j < end; j++) {
        if (j == 0 || j == d->n / 2) {
            gs_fr_mul(&c->a[j], &c->a[j], &d->n_inv);
            continue;
        }
        gs_fr x, y;
        gs_fr_mul(&x, &c->a[j], &d->n_inv);
        gs_fr_mul(&y, &c->a[d->n - j], &d->n_inv);
        c->a[j] = y;
        c->a[d->n - j] = x;
    }
}

void gs_domain_intt(const gs_domain *d, gs_fr *a, gs_pool *pool)
{
    if (d->n < 2)
        return;
    gs_domain_ntt(d, a, pool);
    ntt_ctx c = {.d = d, .a = a};
    gs_pool_for(pool, d->n / 2 + 1, 8192, reverse_scale_chunk, &c);
}
