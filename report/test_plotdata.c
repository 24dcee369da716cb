/* Plot data at the charts' resolution: exact rows when spans fit the
 * pixel columns, merged boxes with the right busy fraction when not, the
 * gap CDF decimated within its stated bound, and charts of a run with
 * many spans that stay small. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../test/test.h"
#include "charts.h"
#include "datafiles.h"
#include "pixels.h"
#include "../diag/run.h"
#include "../common/outfile.h"

typedef struct {
    int n;
    double cov_len;         /* sum of coverage x length */
    double min_cov;
    int64_t lo, hi;         /* hull of the boxes */
    double col[64];         /* coverage per column (window of 64 columns) */
    int64_t w_lo, w_width;
} sink;

static void take(void *ctx, int64_t s, int64_t e, int32_t cls, double cov)
{
    sink *k = ctx;
    (void)cls;
    k->n++;
    k->cov_len += cov * (double)(e - s);
    if (cov < k->min_cov)
        k->min_cov = cov;
    if (k->n == 1 || s < k->lo)
        k->lo = s;
    if (k->n == 1 || e > k->hi)
        k->hi = e;
    if (k->w_width)
        for (int64_t c = (s - k->w_lo) / k->w_width; c < 64 && k->w_lo + c * k->w_width < e; c++)
            if (c >= 0)
                k->col[c] = cov;
}

GS_TEST(report_pixels_exact_and_reduced)
{
    static const int32_t order[] = {0, 1};
    gs_px_window w = {0, 1000000, 100};
    gs_px_item *it = malloc(20000 * sizeof *it);
    GS_REQUIRE(it);
    /* Ten spans fit 100 columns: written as they are. */
    for (int i = 0; i < 10; i++)
        it[i] = (gs_px_item){i * 1000, i * 1000 + 7, 0};
    sink k = {.min_cov = 2};
    GS_CHECK_EQ_INT(gs_px_row(&w, it, 10, order, 2, take, &k), 1);
    GS_CHECK(k.n == 10 && k.min_cov == 1.0 && k.cov_len == 70.0);
    /* 10000 spans busy 30% of every column: one box of coverage 5/16. */
    for (int i = 0; i < 10000; i++)
        it[i] = (gs_px_item){i * 100, i * 100 + 30, 0};
    k = (sink){.min_cov = 2};
    GS_CHECK_EQ_INT(gs_px_row(&w, it, 10000, order, 2, take, &k), 0);
    GS_CHECK_MSG(k.n == 1 && fabs(k.min_cov - 5.0 / 16) < 1e-12 && k.lo == 0 && k.hi == 1000000,
                 "%d boxes, coverage %g", k.n, k.min_cov);
    /* A lone short span of another class stays visible in a reduced row. */
    it[10000] = (gs_px_item){500000, 500001, 1};
    k = (sink){.min_cov = 2};
    GS_CHECK_EQ_INT(gs_px_row(&w, it, 10001, order, 2, take, &k), 0);
    GS_CHECK_MSG(k.n == 2 && fabs(k.min_cov - 1.0 / 16) < 1e-12, "%d boxes, min %g", k.n,
                 k.min_cov);
    /* Random spans: every column's coverage is its busy fraction to half a
     * level, and full columns of a long span come out whole. */
    gs_rng *rng = gs_test_rng();
    gs_px_window w64 = {1000, 1000 + 64 * 10000, 64};
    double busy[64] = {0};
    size_t n = 0;
    for (int c = 0; c < 64; c++) {
        int64_t base = 1000 + c * 10000;
        if (c >= 40 && c < 50) {   /* one long span over columns 40..49 */
            if (c == 40)
                it[n++] = (gs_px_item){base, base + 10 * 10000, 0};
            busy[c] = 1;
            continue;
        }
        int64_t t = base;
        for (;;) {
            int64_t len = 1 + (int64_t)(gs_rng_u64(rng) % 300), gap = 1 + (int64_t)(gs_rng_u64(rng) % 600);
            if (t + len > base + 10000)
                break;
            it[n++] = (gs_px_item){t, t + len, 0};
            busy[c] += (double)len / 10000;
            t += len + gap;
        }
    }
    k = (sink){.min_cov = 2, .w_lo = 1000, .w_width = 10000};
    GS_CHECK_EQ_INT(gs_px_row(&w64, it, n, order, 2, take, &k), 0);
    for (int c = 0; c < 64; c++)
        GS_CHECK_MSG(fabs(k.col[c] - busy[c]) <= 0.5 / 16 + 1e-9, "column %d: %g drawn, %g busy", c,
                     k.col[c], busy[c]);
    free(it);
}

/* A run of many short kernels and launches, with n_gaps gaps of random
 * lengths (log-uniform 1 us .. 100 ms). */
static int many_spans_run(gs_run *r, const char *dir, int n, gs_rng *rng)
{
    memset(r, 0, sizeof *r);
    snprintf(r->dir, sizeof r->dir, "%s", dir);
    if (gs_timeline_create(&r->tl) != GS_OK)
        return 0;
    gs_tl_lane *dev = gs_tl_lane_open(r->tl, "gpu0/stream7", GS_ROLE_DEVICE, 0, 7);
    gs_tl_lane *host = gs_tl_lane_open(r->tl, "thread/11", GS_ROLE_THREAD, -1, -1);
    int64_t t = 1000000;
    for (int i = 0; i < n; i++) {
        int64_t gap = (int64_t)(1000 * pow(10, 5.0 * (double)(gs_rng_u64(rng) % 100000) / 1e5));
        char args[64];
        snprintf(args, sizeof args, "corr=%d", i + 1);
        gs_tl_span(host, GS_SPAN_STEP, "cuda:cudaLaunchKernel", -1, -1, t, t + gap - 500, 0, args);
        snprintf(args, sizeof args, "corr=%d;launch_lane=1", i + 1);
        gs_tl_span(dev, GS_SPAN_KERNEL, "k", -1, -1, t + gap, t + gap + 5500, 0, args);
        t += gap + 5500;
    }
    gs_err err;
    gs_err_clear(&err);
    return gs_analyze(&r->an, r->tl, NULL, &err) == GS_OK;
}

static int cmp_double(const void *pa, const void *pb)
{
    double a = *(const double *)pa, b = *(const double *)pb;
    return (a > b) - (a < b);
}

/* Number of values <= x in sorted v. */
static size_t count_le(const double *v, size_t n, double x)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (v[mid] <= x)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static long file_size(const char *dir, const char *name)
{
    char p[700];
    struct stat sb;
    snprintf(p, sizeof p, "%s/%s", dir, name);
    return stat(p, &sb) == 0 ? (long)sb.st_size : -1;
}

GS_TEST(report_plot_data_bounded)
{
    const char *dir = gs_test_tmpdir();
    int n = gs_test_quick() ? 20000 : 100000;
    gs_run r;
    GS_REQUIRE(many_spans_run(&r, dir, n, gs_test_rng()));
    gs_err err;
    gs_err_clear(&err);
    GS_CHECK_OK(gs_plot_data_write(&r, &err));
    /* The timeline's rows are merged (n spans each, 1400 columns). */
    GS_CHECK_MSG(file_size(dir, "data/timeline_spans.dat") < 2 * 1400 * 48 + 1000, "%ld bytes",
                 file_size(dir, "data/timeline_spans.dat"));
    GS_CHECK_MSG(file_size(dir, "data/timeline_gaps.dat") < 1400 * 48 + 1000, "%ld bytes",
                 file_size(dir, "data/timeline_gaps.dat"));
    /* gaps.dat keeps the 10000 longest, every one at least as long as any
     * gap left out. */
    char p[700], line[512];
    snprintf(p, sizeof p, "%s/data/gaps.dat", dir);
    FILE *f = fopen(p, "r");
    GS_REQUIRE(f);
    int rows = 0;
    double shortest = 1e30;
    while (fgets(line, sizeof line, f))
        if (line[0] != '#') {
            double len;
            GS_CHECK(sscanf(line, "%*d %*d %*f %*f %lf", &len) == 1);
            shortest = fmin(shortest, len);
            rows++;
        }
    fclose(f);
    const gs_device_analysis *D = &r.an->dev[0];
    GS_CHECK_EQ_INT(rows, D->n_gaps < 10000 ? D->n_gaps : 10000);
    size_t longer = 0;
    for (size_t g = 0; g < D->n_gaps; g++)
        longer += (double)(D->gaps[g].end_ns - D->gaps[g].start_ns) * 1e-6 > shortest + 1e-6;
    GS_CHECK_MSG(longer < 10000, "%zu gaps longer than the shortest kept", longer);
    /* The CDF: every point is on the exact curve, and every gap between
     * two points is within 1/4096 of the first one's height. */
    double *len = malloc(D->n_gaps * sizeof *len);
    GS_REQUIRE(len);
    for (size_t g = 0; g < D->n_gaps; g++)
        len[g] = round((double)(D->gaps[g].end_ns - D->gaps[g].start_ns) * 1e-6 * 1e6) / 1e6;
    qsort(len, D->n_gaps, sizeof *len, cmp_double);
    snprintf(p, sizeof p, "%s/data/gap_cdf.dat", dir);
    f = fopen(p, "r");
    GS_REQUIRE(f);
    size_t pts = 0;
    double py = 0;
    while (fgets(line, sizeof line, f)) {
        double x, y;
        if (line[0] == '#' || sscanf(line, "%lf %lf", &x, &y) != 2)
            continue;
        size_t le = count_le(len, D->n_gaps, x + 5e-7), between = count_le(len, D->n_gaps, x - 5e-7);
        GS_CHECK_MSG(fabs((double)le / (double)D->n_gaps - y) < 2e-6, "point %g %g: exact %g", x,
                     y, (double)le / (double)D->n_gaps);
        GS_CHECK_MSG((double)between / (double)D->n_gaps - py < 1.0 / 4096 + 1e-9,
                     "before %g: %g above the last point", x, (double)between / (double)D->n_gaps - py);
        py = y;
        pts++;
    }
    fclose(f);
    free(len);
    GS_CHECK_MSG(pts > 100 && pts < 4096 + 6000, "%zu points", pts);
    /* The charts: every file under 5 MB. */
    char plots[4096];
    int n_ok = 0;
    if (!gs_gnuplot_available() || !gs_plots_dir(plots, sizeof plots, "plots")) {
        gs_test_skip("gnuplot or plots/ not found: charts not checked");
    } else {
        GS_CHECK_OK(gs_charts_render(dir, plots, &n_ok, &err));
        static const char *const ch[] = {"timeline", "timeline_zoom", "gap_cdf", "causes", "util"};
        for (int i = 0; i < 5; i++)
            for (int s = 0; s < 2; s++) {
                char name[64];
                snprintf(name, sizeof name, "charts/%s.%s", ch[i], s ? "svg" : "png");
                long sz = file_size(dir, name);
                GS_CHECK_MSG(sz > 0 && sz < 5L * 1000 * 1000, "%s: %ld bytes", name, sz);
            }
    }
    gs_run_free(&r);
}
