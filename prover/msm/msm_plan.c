/*
 * MSM planning: the window size and how the work is cut into tasks.
 *
 * Windows: signed digits need n_windows * c > (highest scalar bit), so
 * scalars below 2^bits need ceil((bits + 1) / c) windows: ceil(257/c) for
 * any 256-bit scalar, ceil(256/c) when every scalar is below 2^255 (every
 * reduced scalar: r < 2^255; that saves a window for c = 16), fewer for
 * short scalars (halves of a split scalar, small values); the caller
 * passes the largest bit length.
 * The n_windows c - (bits + 1) spare bits are taken off the top windows
 * (c - 1 bits each; all windows when there are more spare bits than
 * windows): with equal windows the top one would hold only the scalars'
 * last few bits, e.g. 8 bits of r < 2^254.86 for c = 13, so a few hundred
 * buckets take all n points, and batch-affine buckets that busy keep
 * points waiting and spill them (measured at 2^16: the top window took 1.4x
 * the time of the others, 80k of 82k spills).  Narrowed, the top window's
 * digits reach r / 2^244 ~ 1,850 of its 2,048 buckets.
 *
 * Cost model (in bucket additions): each window costs one addition per
 * point plus about 2^c for the reduction of its 2^(c-1) buckets (two
 * running-sum additions each), or 2^(c-1) for a narrow window, so
 * cost(c) ~ W(c) n + RED_WEIGHT ((wide windows) 2^c + (narrow windows)
 * 2^(c-1)).  A reduction addition costs less than a point's: its batches
 * have no bucket collisions, waits or spills and no digit to extract, and
 * its buckets are read in order (RED_WEIGHT 0.9: where the unweighted
 * model tied, at 2^14 points, c = 12 ran the G1 MSM 5% faster than c = 11
 * on 2 threads, bench/RESULTS.md).  The c that minimises it is taken,
 * capped at GS_MSM_MAX_WINDOW.
 *
 * Tasks: a window alone is one task when there are enough windows to keep
 * every thread busy (at least 4 tasks per thread, so the last round is
 * short); otherwise each window's points are cut into ranges, each with its
 * own buckets, as long as a range keeps at least 2^c points (more ranges
 * would spend more on reductions than they save).
 */
#include "msm_internal.h"

#define RED_WEIGHT 0.9

/* Windows of c bits covering scalars of `bits` bits (signed digits: one
 * more bit), and how many of them are one bit narrower. */
static unsigned windows_for(unsigned c, unsigned bits)
{
    unsigned w = (bits + 1 + c - 1) / c;
    return w ? w : 1;
}

static unsigned narrow_for(unsigned c, unsigned bits)
{
    unsigned wn = windows_for(c, bits), spare = wn * c - (bits + 1);
    return c == 1 ? 0 : spare < wn ? spare : wn;
}

static unsigned window_for(size_t n, unsigned bits)
{
    unsigned best = 1;
    double best_cost = 0;
    for (unsigned c = 1; c <= GS_MSM_MAX_WINDOW; c++) {
        unsigned wn = windows_for(c, bits);
        unsigned narrow = narrow_for(c, bits);
        double cost = (double)wn * (double)n +
                      RED_WEIGHT * ((double)(wn - narrow) * (double)(1ull << c) +
                                    (double)narrow * (double)(1ull << (c - 1)));
        if (c == 1 || cost < best_cost) {
            best = c;
            best_cost = cost;
        }
    }
    return best;
}

unsigned gs_msm_window_for(size_t n)
{
    return window_for(n, 255);
}

size_t gs_msm_batch_for(unsigned c)
{
    if (c < MSM_AFF_MIN_WINDOW)
        return 0;
    size_t b = ((size_t)1 << (c - 1)) / 4;
    return b > MSM_AFF_MAX_BATCH ? MSM_AFF_MAX_BATCH : b;
}

void gs_msm_plan(msm_plan *p, size_t n, unsigned width, unsigned bits, const gs_msm_cfg *cfg)
{
    if (bits > 256)
        bits = 256;
    unsigned c = cfg && cfg->window ? cfg->window : window_for(n, bits);
    if (c > GS_MSM_MAX_WINDOW)
        c = GS_MSM_MAX_WINDOW;
    p->c = c;
    p->n_windows = windows_for(c, bits);
    p->n_wide = p->n_windows - narrow_for(c, bits);
    if (cfg && cfg->batch) {
        p->batch = cfg->batch == 1 ? 0 : cfg->batch;
        p->batch_narrow = p->batch;
    } else {
        p->batch = gs_msm_batch_for(c);
        p->batch_narrow = gs_msm_batch_for(c - 1);
        if (p->batch_narrow < 2)
            p->batch_narrow = p->batch > 3 ? p->batch / 2 : p->batch;
    }

    size_t parts;
    if (cfg && cfg->parts) {
        parts = cfg->parts;
    } else {
        size_t want_tasks = (size_t)width * 4;
        parts = width > 1 ? (want_tasks + p->n_windows - 1) / p->n_windows : 1;
        size_t max_parts = n >> c;
        if (max_parts < 1)
            max_parts = 1;
        if (parts > max_parts)
            parts = max_parts;
    }
    if (parts > n)
        parts = n ? n : 1;
    if (parts < 1)
        parts = 1;
    p->part_len = n ? (n + parts - 1) / parts : 0;
    /* Recount: rounding part_len up may leave trailing ranges empty. */
    p->n_parts = p->part_len ? (n + p->part_len - 1) / p->part_len : 1;
    p->n_tasks = (size_t)p->n_windows * p->n_parts;
}
