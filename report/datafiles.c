/*
 * Plot data files (datafiles.h, gs_plot_data_write): whitespace-separated
 * columns, "#" comment headers, one index block per device where noted
 * (blocks separated by two blank lines).  Times are seconds since the
 * timeline's first span (t0).  Columns: report/README.md, "Data files".
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "data_internal.h"
#include "datafiles.h"
#include "../common/stats.h"

/* plots/common.gp and the templates hold one colour and label per cause. */
_Static_assert(GS_CAUSE_COUNT == 31, "update plots/common.gp cause arrays and meta.gp");

/* gaps.dat and gap_pieces.dat keep the longest gaps, exact (every gap of
 * the run is in summary.json's statistics and in `gapscope export`). */
#define GS_PLOT_TOP_GAPS 10000
/* gap_cdf.dat: a device with more gaps gets its curve decimated. */
#define GS_PLOT_CDF_POINTS 4096

gs_status gs_dfile_open(gs_dfile *d, const gs_run *r, const char *name, gs_err *err)
{
    char dir[2100];
    gs_path_join(dir, sizeof dir, r->dir, "data");
    if (mkdir(dir, 0777) != 0 && errno != EEXIST)
        return gs_err_set(err, GS_ERR_IO, "data files", dir, "cannot create: %s", strerror(errno));
    if (!gs_path_join(d->path, sizeof d->path, dir, name))
        return gs_err_set(err, GS_ERR_ARG, "data files", dir, "path too long");
    return gs_out_open(&d->o, d->path, err);
}

gs_status gs_dfile_close(gs_dfile *d, int commit, gs_err *err)
{
    if (!d->o.f)
        return GS_OK;
    return gs_out_close(&d->o, commit, err);
}

typedef struct {
    int64_t len;
    size_t dev, gap;
} gap_ref;

/* Longest first; ties in device, then time order. */
static int cmp_ref(const void *pa, const void *pb)
{
    const gap_ref *a = pa, *b = pb;
    if (a->len != b->len)
        return (a->len < b->len) - (a->len > b->len);
    if (a->dev != b->dev)
        return (a->dev > b->dev) - (a->dev < b->dev);
    return (a->gap > b->gap) - (a->gap < b->gap);
}

/* keep[device][gap] = 1 for the GS_PLOT_TOP_GAPS longest gaps (all of
 * them when there are no more); keep is one flag per gap, devices in
 * order.  Returns 0 when out of memory. */
static int top_gaps(unsigned char *keep, const gs_analysis *a, size_t total)
{
    if (total <= GS_PLOT_TOP_GAPS) {
        memset(keep, 1, total);
        return 1;
    }
    gap_ref *v = malloc(total * sizeof *v);
    if (!v)
        return 0;
    size_t k = 0;
    for (size_t d = 0; d < a->n_dev; d++)
        for (size_t g = 0; g < a->dev[d].n_gaps; g++, k++)
            v[k] = (gap_ref){a->dev[d].gaps[g].end_ns - a->dev[d].gaps[g].start_ns, d, k};
    qsort(v, total, sizeof *v, cmp_ref);
    memset(keep, 0, total);
    for (size_t i = 0; i < GS_PLOT_TOP_GAPS; i++)
        keep[v[i].gap] = 1;
    free(v);
    return 1;
}

/* One device's CDF block from its sorted gap lengths (ms): every gap when
 * there are at most GS_PLOT_CDF_POINTS, else the steps that move the curve
 * by at least 1/GS_PLOT_CDF_POINTS in y or 1/1000 of a decade in x, and
 * the last one (so the drawn curve is within those bounds of the exact). */
static void cdf_block(FILE *f, const double *len, size_t n)
{
    if (!n) {
        fputs("0 0\n", f);
        return;
    }
    double last_y = 0, last_x = 0;
    for (size_t g = 0; g < n; g++) {
        double y = (double)(g + 1) / (double)n;
        int step = g + 1 == n || len[g + 1] != len[g];
        if (n > GS_PLOT_CDF_POINTS &&
            (!step || (g + 1 < n && y - last_y < 1.0 / GS_PLOT_CDF_POINTS &&
                       last_x > 0 && len[g] < last_x * 1.0023)))
            continue;
        fprintf(f, "%.6f %.6f\n", len[g], y);
        last_y = y;
        last_x = len[g];
    }
}

/* gap_hist.dat: log bins, 4 per decade from 1 us to 100 s, over all
 * devices; the first bin also counts shorter gaps, the last longer ones. */
static void hist_write(FILE *f, const double *len, size_t m)
{
    size_t count[32] = {0};
    double total[32] = {0};
    for (size_t i = 0; i < m; i++) {
        int b = len[i] > 0 ? (int)floor(4 * (log10(len[i]) + 3)) : 0;
        b = b < 0 ? 0 : b > 31 ? 31 : b;
        /* The bin's edges as the header prints them decide a length on an edge. */
        while (b > 0 && len[i] < pow(10, -3 + b / 4.0))
            b--;
        while (b < 31 && len[i] >= pow(10, -3 + (b + 1) / 4.0))
            b++;
        count[b]++;
        total[b] += len[i] * 1e-3;
    }
    fputs("# bin_lo_ms bin_hi_ms count total_s   (all devices; 4 log bins per decade)\n", f);
    for (int b = 0; b < 32; b++)
        fprintf(f, "%.6g %.6g %zu %.9f\n", pow(10, -3 + b / 4.0), pow(10, -3 + (b + 1) / 4.0),
                count[b], total[b]);
}

static gs_status write_gaps(const gs_run *r, gs_err *err)
{
    const gs_analysis *a = r->an;
    gs_dfile gaps = {0}, pieces = {0}, cdf = {0}, hist = {0};
    gs_status st;
    size_t total = 0, kept = 0;
    for (size_t d = 0; d < a->n_dev; d++)
        total += a->dev[d].n_gaps;
    double *len = malloc((total + 1) * sizeof *len);
    unsigned char *keep = malloc(total + 1);
    if (!len || !keep || !top_gaps(keep, a, total)) {
        st = gs_err_set(err, GS_ERR_NOMEM, "data files", r->dir, "out of memory");
        goto done;
    }
    for (size_t i = 0; i < total; i++)
        kept += keep[i];
    if ((st = gs_dfile_open(&gaps, r, "gaps.dat", err)) != GS_OK ||
        (st = gs_dfile_open(&pieces, r, "gap_pieces.dat", err)) != GS_OK ||
        (st = gs_dfile_open(&cdf, r, "gap_cdf.dat", err)) != GS_OK ||
        (st = gs_dfile_open(&hist, r, "gap_hist.dat", err)) != GS_OK)
        goto done;
    fprintf(gaps.o.f, "# device gap start_s end_s len_ms cause_index cause   (cause = most time "
                      "in the gap; %zu of %zu gaps%s)\n",
            kept, total, kept < total ? ": the longest, in device and time order" : "");
    fprintf(pieces.o.f, "# device gap start_s end_s len_ms cause_index cause worker_lane "
                        "holder_lane   (the pieces of the gaps in gaps.dat)\n");
    fputs("# len_ms cdf   (one index block per device, in device order", cdf.o.f);
    fprintf(cdf.o.f, "; devices with more than %d gaps: the points moving the curve by >= 1/%d "
                     "or 1/1000 decade)\n", GS_PLOT_CDF_POINTS, GS_PLOT_CDF_POINTS);
    size_t m = 0;
    for (size_t d = 0; d < a->n_dev; d++) {
        const gs_device_analysis *D = &a->dev[d];
        fprintf(cdf.o.f, "%s# device %d\n", d ? "\n\n" : "", (int)D->device);
        for (size_t g = 0; g < D->n_gaps; g++) {
            const gs_gap *gp = &D->gaps[g];
            if (!keep[m + g])
                continue;
            fprintf(gaps.o.f, "%d %zu %.9f %.9f %.6f %d %s\n", (int)D->device, g,
                    gs_data_sec(a, gp->start_ns), gs_data_sec(a, gp->end_ns),
                    (double)(gp->end_ns - gp->start_ns) * 1e-6, (int)gp->cause,
                    gs_cause_name(gp->cause));
            for (size_t k = gp->first_piece; k < gp->first_piece + gp->n_pieces; k++) {
                const gs_gap_piece *p = &D->pieces[k];
                fprintf(pieces.o.f, "%d %zu %.9f %.9f %.6f %d %s %d %d\n", (int)D->device, g,
                        gs_data_sec(a, p->start_ns), gs_data_sec(a, p->end_ns),
                        (double)(p->end_ns - p->start_ns) * 1e-6, (int)p->cause,
                        gs_cause_name(p->cause), (int)p->worker, (int)p->holder);
            }
        }
        size_t m0 = m;
        for (size_t g = 0; g < D->n_gaps; g++)
            len[m++] = (double)(D->gaps[g].end_ns - D->gaps[g].start_ns) * 1e-6;
        qsort(len + m0, D->n_gaps, sizeof *len, gs_cmp_double);
        cdf_block(cdf.o.f, len + m0, D->n_gaps);
    }
    hist_write(hist.o.f, len, m);
    if ((st = gs_dfile_close(&gaps, 1, err)) != GS_OK ||
        (st = gs_dfile_close(&pieces, 1, err)) != GS_OK ||
        (st = gs_dfile_close(&cdf, 1, err)) != GS_OK)
        goto done;
    st = gs_dfile_close(&hist, 1, err);
done:;
    gs_dfile *all[] = {&gaps, &pieces, &cdf, &hist};
    for (int i = 0; i < 4; i++)
        gs_dfile_close(all[i], 0, NULL);
    free(len);
    free(keep);
    return st;
}

static gs_status write_causes_util(const gs_run *r, gs_err *err)
{
    const gs_analysis *a = r->an;
    gs_dfile c = {0}, u = {0};
    gs_status st;
    if ((st = gs_dfile_open(&c, r, "causes.dat", err)) != GS_OK)
        return st;
    fputs("label", c.o.f);
    for (int k = 0; k < GS_CAUSE_COUNT; k++)
        fprintf(c.o.f, " %s", gs_cause_name((gs_cause)k));
    const char *base = strrchr(r->dir, '/');
    base = base && base[1] ? base + 1 : r->dir;
    fputc('\n', c.o.f);
    for (const char *p = base; *p; p++)
        fputc(*p == ' ' || *p == '\t' ? '_' : *p, c.o.f);
    for (int k = 0; k < GS_CAUSE_COUNT; k++)
        fprintf(c.o.f, " %.9f", a->cause_s[k]);
    fputc('\n', c.o.f);
    if ((st = gs_out_close(&c.o, 1, err)) != GS_OK)
        return st;
    if ((st = gs_dfile_open(&u, r, "util_bins.dat", err)) != GS_OK)
        return st;
    int64_t bin = a->cfg.bin_s > 0 && a->cfg.bin_s < 1e9 ? (int64_t)llround(a->cfg.bin_s * 1e9) : 0;
    if (bin <= 0)
        bin = 200000000;
    /* At most GS_UTIL_BINS_MAX bins per device: a long span (a capture of
     * days, or a hand-made file) widens the bin instead of writing
     * gigabytes (a 9-day span once wrote 130 MB in 0.2 s bins). */
    int64_t widest = 0, asked = bin;
    for (size_t d = 0; d < a->n_dev; d++)
        if (a->dev[d].span_end_ns - a->dev[d].span_start_ns > widest)
            widest = a->dev[d].span_end_ns - a->dev[d].span_start_ns;
    if (widest / bin >= GS_UTIL_BINS_MAX)
        bin = widest / GS_UTIL_BINS_MAX + 1;
    fprintf(u.o.f, "# t_s util util_kernels_only   (bins of %.3f s from each device's span "
                   "start; t_s = bin centre; one index block per device)\n", (double)bin * 1e-9);
    if (bin != asked)
        fprintf(u.o.f, "# bin widened from %.3f s to keep at most %d bins per device\n",
                (double)asked * 1e-9, GS_UTIL_BINS_MAX);
    for (size_t d = 0; d < a->n_dev; d++) {
        const gs_device_analysis *D = &a->dev[d];
        fprintf(u.o.f, "%s# device %d\n", d ? "\n\n" : "", (int)D->device);
        if (!D->n_ops) {
            fputs("0 0 0\n", u.o.f);
            continue;
        }
        for (int64_t t = D->span_start_ns; t < D->span_end_ns;) {
            int64_t e = D->span_end_ns - t > bin ? t + bin : D->span_end_ns;
            double w = (double)(e - t);
            fprintf(u.o.f, "%.6f %.6f %.6f\n", (gs_data_sec(a, t) + gs_data_sec(a, e)) / 2,
                    (double)gs_interval_overlap(D->busy, D->n_busy, t, e) / w,
                    (double)gs_interval_overlap(D->kernel, D->n_kernel, t, e) / w);
            t = e;
        }
    }
    return gs_out_close(&u.o, 1, err);
}

gs_status gs_plot_data_write(const gs_run *r, gs_err *err)
{
    gs_status st = gs_data_timeline_write(r, err);
    if (st == GS_OK)
        st = write_gaps(r, err);
    if (st == GS_OK)
        st = write_causes_util(r, err);
    return st;
}
