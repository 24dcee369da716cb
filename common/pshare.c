/* The processor-sharing rule (contract in pshare.h). */
#include "pshare.h"

void gs_pshare_init(gs_pshare *s, int cores, const int *pool_width, int n_pools, double load)
{
    s->cores = cores;
    s->threads = load;
    s->load = load;
    for (int k = 0; k < GS_PSHARE_MAX_POOLS; k++)
        s->left[k] = k < n_pools && pool_width[k] > 1 ? pool_width[k] - 1 : 0;
}

double gs_pshare_add(gs_pshare *s, double threads, int pool)
{
    double th = threads;
    if (pool >= 0 && pool < GS_PSHARE_MAX_POOLS) {
        double h = threads - 1 < s->left[pool] ? threads - 1 : s->left[pool];
        s->left[pool] -= h;
        th = 1 + h;
    }
    s->threads += th;
    return th;
}

double gs_pshare_rate(const gs_pshare *s)
{
    return s->threads > s->cores ? (double)s->cores / s->threads : 1.0;
}

double gs_pshare_busy(const gs_pshare *s)
{
    return s->threads < s->cores ? s->threads : s->cores;
}

double gs_pshare_runnable(const gs_pshare *s) { return s->threads; }

double gs_pshare_progress(const gs_pshare *s, double granted, gs_pshare_speed_fn speed, void *ctx, int cls)
{
    double share = granted * gs_pshare_rate(s);
    return speed && cls >= 0 ? share * speed(ctx, cls, s->threads - s->load) : share;
}
