/*
 * MSM planning: the window size and how the work is cut into tasks.
 *
 * Cost model (in point additions): each window costs one bucket addition per
 * point with a nonzero digit plus about 2 * 2^(c-1) additions for the
 * running-sum reduction, so cost(c) ~ ceil(257/c) * (n + 2^c).  The c that
 * minimises it is taken, capped at GS_MSM_MAX_WINDOW.
 *
 * Tasks: a window alone is one task when there are enough windows to keep
 * every thread busy (at least 4 tasks per thread, so the last round is
 * short); otherwise each window's points are cut into ranges, each with its
 * own buckets, as long as a range keeps at least 2^c points (more ranges
 * would spend more on reductions than they save).
 */
#include "msm_internal.h"

static unsigned windows_for(unsigned c)
{
    return (257 + c - 1) / c;
}

unsigned gs_msm_window_for(size_t n)
{
    unsigned best = 1;
    double best_cost = 0;
    for (unsigned c = 1; c <= GS_MSM_MAX_WINDOW; c++) {
        double cost = (double)windows_for(c) * ((double)n + (double)(1ull << c));
        if (c == 1 || cost < best_cost) {
            best = c;
            best_cost = cost;
        }
    }
    return best;
}

size_t gs_msm_batch_for(unsigned c)
{
    if (c < MSM_AFF_MIN_WINDOW)
        return 0;
    size_t b = ((size_t)1 << (c - 1)) / 8;
    return b > MSM_AFF_MAX_BATCH ? MSM_AFF_MAX_BATCH : b;
}

void gs_msm_plan(msm_plan *p, size_t n, unsigned width, const gs_msm_cfg *cfg)
{
    unsigned c = cfg && cfg->window ? cfg->window : gs_msm_window_for(n);
    if (c > GS_MSM_MAX_WINDOW)
        c = GS_MSM_MAX_WINDOW;
    p->c = c;
    p->n_windows = windows_for(c);
    if (cfg && cfg->batch)
        p->batch = cfg->batch == 1 ? 0 : cfg->batch;
    else
        p->batch = gs_msm_batch_for(c);

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
