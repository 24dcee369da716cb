/*
 * Rows of intervals at a chart's pixel resolution (pixels.h): exact when
 * the row's items fit the columns, else per-class coverage runs.  Called
 * by data_timeline.c for the timeline's lanes and its gap shading.
 */
#include "pixels.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../diag/analysis.h"

static int in_window(const gs_px_window *w, const gs_px_item *x)
{
    return x->end_ns > x->start_ns && x->end_ns > w->lo_ns && x->start_ns < w->hi_ns;
}

/* Adds the disjoint intervals iv (offsets from the window's start, ns)
 * into the columns' covered nanoseconds. */
static void accumulate(double *cov, int cols, double width, const gs_interval *iv, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        double x0 = (double)iv[i].start_ns, x1 = (double)iv[i].end_ns;
        int c0 = (int)(x0 / width), c1 = (int)ceil(x1 / width);
        if (c0 < 0)
            c0 = 0;
        if (c1 > cols)
            c1 = cols;
        for (int c = c0; c < c1; c++) {
            double a = fmax(x0, c * width), b = fmin(x1, (c + 1) * width);
            if (b > a)
                cov[c] += b - a;
        }
    }
}

static int level(double covered, double width)
{
    if (!(covered > 0))
        return 0;
    long l = lround(covered / width * GS_PX_LEVELS);
    return l < 1 ? 1 : l > GS_PX_LEVELS ? GS_PX_LEVELS : (int)l;
}

int gs_px_row(const gs_px_window *w, const gs_px_item *it, size_t n, const int32_t *order,
              int n_order, gs_px_emit emit, void *ctx)
{
    size_t inside = 0;
    for (size_t i = 0; i < n; i++)
        inside += (size_t)in_window(w, &it[i]);
    if (inside <= (size_t)w->cols) {
        for (size_t i = 0; i < n; i++)
            if (in_window(w, &it[i]))
                emit(ctx, it[i].start_ns, it[i].end_ns, it[i].cls, 1.0);
        return 1;
    }
    double *cov = malloc((size_t)w->cols * sizeof *cov);
    gs_interval *iv = malloc(inside * sizeof *iv);
    if (!cov || !iv) {
        free(cov);
        free(iv);
        return -1;
    }
    double width = (double)(w->hi_ns - w->lo_ns) / w->cols;
    for (int k = 0; k < n_order; k++) {
        size_t m = 0;
        for (size_t i = 0; i < n; i++)
            if (it[i].cls == order[k] && in_window(w, &it[i])) {
                int64_t a = it[i].start_ns > w->lo_ns ? it[i].start_ns : w->lo_ns;
                int64_t b = it[i].end_ns < w->hi_ns ? it[i].end_ns : w->hi_ns;
                iv[m++] = (gs_interval){a - w->lo_ns, b - w->lo_ns};
            }
        if (!m)
            continue;
        m = gs_interval_union(iv, m);
        memset(cov, 0, (size_t)w->cols * sizeof *cov);
        accumulate(cov, w->cols, width, iv, m);
        for (int c = 0; c < w->cols;) {
            int l = level(cov[c], width), e = c + 1;
            if (!l) {
                c++;
                continue;
            }
            while (e < w->cols && level(cov[e], width) == l)
                e++;
            emit(ctx, w->lo_ns + llround(c * width), w->lo_ns + llround(e * width), order[k],
                 (double)l / GS_PX_LEVELS);
            c = e;
        }
    }
    free(cov);
    free(iv);
    return 0;
}
