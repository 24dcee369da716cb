/*
 * Plot data files (run.h, gs_plot_data_write): whitespace-separated
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

#include "../common/outfile.h"
#include "../diag/run.h"

/* plots/common.gp and the templates hold one colour and label per cause. */
_Static_assert(GS_CAUSE_COUNT == 31, "update plots/common.gp cause arrays and meta.gp");

typedef struct {
    gs_outfile o;
    char path[2300];
} dfile;

static gs_status dopen(dfile *d, const gs_run *r, const char *name, gs_err *err)
{
    char dir[2100];
    gs_path_join(dir, sizeof dir, r->dir, "data");
    if (mkdir(dir, 0777) != 0 && errno != EEXIST)
        return gs_err_set(err, GS_ERR_IO, "data files", dir, "cannot create: %s", strerror(errno));
    if (!gs_path_join(d->path, sizeof d->path, dir, name))
        return gs_err_set(err, GS_ERR_ARG, "data files", dir, "path too long");
    return gs_out_open(&d->o, d->path, err);
}

static double sec(const gs_analysis *a, int64_t t)
{
    return (double)(t - a->t0_ns) * 1e-9;
}

/* Lane order of the timeline chart: device streams, the tracker lock,
 * GPU workers, finalizers, synthesis threads, background threads, host
 * threads of foreign timelines. */
static int lane_rank(const gs_lane_info *L)
{
    switch (L->role) {
    case GS_ROLE_DEVICE: return 0;
    case GS_ROLE_GPU_WORKER: return 2;
    case GS_ROLE_FINALIZER: return 3;
    case GS_ROLE_SYNTH: return 4;
    case GS_ROLE_BACKGROUND: return 5;
    case GS_ROLE_THREAD: return 6;
    default: return -1;
    }
}

static gs_timeline *g_tl;
static int cmp_lane(const void *pa, const void *pb)
{
    const gs_lane_info *a = gs_timeline_lane(g_tl, *(const int32_t *)pa);
    const gs_lane_info *b = gs_timeline_lane(g_tl, *(const int32_t *)pb);
    int ra = lane_rank(a), rb = lane_rank(b);
    if (ra != rb)
        return ra - rb;
    if (a->device != b->device)
        return a->device - b->device;
    if (a->stream != b->stream)
        return a->stream - b->stream;
    return a->id - b->id;
}

/* Span categories of timeline_spans.dat (colours in plots/common.gp). */
static int category(const gs_span *s)
{
    switch (s->kind) {
    case GS_SPAN_KERNEL: return 0;
    case GS_SPAN_COPY: return 1;
    case GS_SPAN_LOCK_WAIT: return 3;
    case GS_SPAN_LOCK_HOLD: return 4;
    case GS_SPAN_INJECTED: return 5;
    default:
        if (gs_vocab_is(s->name, GS_V_QUEUE_WAIT))
            return 2;
        if (gs_vocab_is(s->name, GS_V_PROVE_START) || gs_vocab_is(s->name, GS_V_PROVE_FINISH) ||
            gs_vocab_is(s->name, GS_V_SYNTH))
            return 6;
        return 7;
    }
}

static gs_status write_timeline(const gs_run *r, gs_err *err)
{
    const gs_analysis *a = r->an;
    size_t nl = gs_timeline_lane_count(r->tl), n;
    int32_t *order = malloc((nl + 1) * sizeof *order), *y = malloc((nl + 1) * sizeof *y);
    dfile lanes = {0}, spans = {0}, meta = {0};
    gs_status st = GS_OK;
    if (!order || !y) {
        st = gs_err_set(err, GS_ERR_NOMEM, "data files", r->dir, "out of memory");
        goto done;
    }
    size_t k = 0;
    for (size_t i = 0; i < nl; i++) {
        y[i] = -1;
        if (lane_rank(gs_timeline_lane(r->tl, (int32_t)i)) >= 0)
            order[k++] = (int32_t)i;
    }
    g_tl = r->tl;
    qsort(order, k, sizeof *order, cmp_lane);
    if ((st = dopen(&lanes, r, "lanes.dat", err)) != GS_OK)
        goto done;
    fputs("# y lane_id role name   (timeline chart rows, top row has the largest y)\n", lanes.o.f);
    /* Rows top to bottom; y counts down so the first lane is on top. */
    int rows = (int)k + 1, row = 0, tracker_y = -1;
    for (size_t i = 0; i < k; i++) {
        const gs_lane_info *L = gs_timeline_lane(r->tl, order[i]);
        if (L->role != GS_ROLE_DEVICE && tracker_y < 0) {
            tracker_y = rows - 1 - row++;
            fprintf(lanes.o.f, "%d -1 lock tracker_lock\n", tracker_y);
        }
        y[order[i]] = rows - 1 - row++;
        fprintf(lanes.o.f, "%d %d %s %s\n", y[order[i]], (int)L->id, gs_role_name(L->role), L->name);
    }
    if (tracker_y < 0) {
        tracker_y = rows - 1 - row++;
        fprintf(lanes.o.f, "%d -1 lock tracker_lock\n", tracker_y);
    }
    if ((st = gs_out_close(&lanes.o, 1, err)) != GS_OK)
        goto done;
    if ((st = dopen(&spans, r, "timeline_spans.dat", err)) != GS_OK)
        goto done;
    fputs("# y start_s end_s category half_height   categories: 0 kernel 1 copy 2 queue_wait "
          "3 lock_wait 4 lock_hold 5 injected 6 prove/synth 7 other step\n", spans.o.f);
    const gs_span *sp = gs_timeline_spans(r->tl, &n);
    for (size_t i = 0; i < n; i++) {
        const gs_span *s = &sp[i];
        if (s->kind == GS_SPAN_COUNTER || s->kind == GS_SPAN_MARK || s->end_ns <= s->start_ns)
            continue;
        int cat = category(s);
        if (y[s->lane] >= 0)
            fprintf(spans.o.f, "%d %.9f %.9f %d %.2f\n", y[s->lane], sec(a, s->start_ns),
                    sec(a, s->end_ns), cat, cat == 3 || cat == 5 || cat == 4 ? 0.22 : 0.4);
        if (s->kind == GS_SPAN_LOCK_HOLD && gs_vocab_is(s->name, GS_V_TRACKER))
            fprintf(spans.o.f, "%d %.9f %.9f 4 0.4\n", tracker_y, sec(a, s->start_ns),
                    sec(a, s->end_ns));
    }
    if ((st = gs_out_close(&spans.o, 1, err)) != GS_OK)
        goto done;
    /* meta.gp: variables and ytic labels for the templates. */
    if ((st = dopen(&meta, r, "meta.gp", err)) != GS_OK)
        goto done;
    FILE *f = meta.o.f;
    double t_end = sec(a, a->t1_ns);
    fprintf(f, "# generated by gapscope analyze\nn_rows = %d\nt_end = %.9f\nmicro_ms = %g\n",
            rows, t_end, a->cfg.micro_threshold_s * 1e3);
    /* Zoom window: the longest gap with twice its length of context each side. */
    double zlo = 0, zhi = t_end, best = -1;
    for (size_t d = 0; d < a->n_dev; d++)
        for (size_t g = 0; g < a->dev[d].n_gaps; g++) {
            const gs_gap *gp = &a->dev[d].gaps[g];
            double len = (double)(gp->end_ns - gp->start_ns) * 1e-9;
            if (len > best) {
                best = len;
                zlo = fmax(0, sec(a, gp->start_ns) - 2 * len);
                zhi = fmin(t_end, sec(a, gp->end_ns) + 2 * len);
            }
        }
    fprintf(f, "zoom_lo = %.9f\nzoom_hi = %.9f\ndevice_ids = \"", zlo, zhi);
    for (size_t d = 0; d < a->n_dev; d++)
        fprintf(f, "%s%d", d ? " " : "", (int)a->dev[d].device);
    fputs("\"\narray cause_present[31] = [", f);
    for (int c = 0; c < GS_CAUSE_COUNT; c++)
        fprintf(f, "%s%d", c ? "," : "", a->cause_s[c] > 0);
    fputs("]\n", f);
    fprintf(f, "n_devices = %zu\nrun_label = \"", a->n_dev);
    const char *base = strrchr(r->dir, '/');
    for (const char *p = base && base[1] ? base + 1 : r->dir; *p; p++)
        if (*p != '"' && *p != '\\' && (unsigned char)*p >= 0x20)
            fputc(*p, f);
    fputs("\"\n", f);
    if ((st = gs_out_close(&meta.o, 1, err)) != GS_OK)
        goto done;
    if ((st = dopen(&meta, r, "lanes.gp", err)) != GS_OK)
        goto done;
    f = meta.o.f;
    fprintf(f, "# timeline row labels (generated by gapscope analyze)\nset ytics (\"tracker lock\" %d", tracker_y);
    for (size_t i = 0; i < k; i++) {
        const gs_lane_info *L = gs_timeline_lane(r->tl, order[i]);
        fputs(", \"", f);
        for (const char *p = L->name; *p; p++)
            if (*p != '"' && *p != '\\' && (unsigned char)*p >= 0x20)
                fputc(*p, f);
        fprintf(f, "\" %d", y[order[i]]);
    }
    fputs(")\n", f);
    st = gs_out_close(&meta.o, 1, err);
done:
    if (lanes.o.f)
        gs_out_close(&lanes.o, 0, NULL);
    if (spans.o.f)
        gs_out_close(&spans.o, 0, NULL);
    if (meta.o.f)
        gs_out_close(&meta.o, 0, NULL);
    free(order);
    free(y);
    return st;
}

static int cmp_d(const void *pa, const void *pb)
{
    double a = *(const double *)pa, b = *(const double *)pb;
    return (a > b) - (a < b);
}

static gs_status write_gaps(const gs_run *r, gs_err *err)
{
    const gs_analysis *a = r->an;
    dfile gaps = {0}, pieces = {0}, cdf = {0}, hist = {0};
    gs_status st;
    if ((st = dopen(&gaps, r, "gaps.dat", err)) != GS_OK ||
        (st = dopen(&pieces, r, "gap_pieces.dat", err)) != GS_OK ||
        (st = dopen(&cdf, r, "gap_cdf.dat", err)) != GS_OK ||
        (st = dopen(&hist, r, "gap_hist.dat", err)) != GS_OK)
        goto done;
    fputs("# device gap start_s end_s len_ms cause_index cause   (cause = most time in the gap)\n",
          gaps.o.f);
    fputs("# device gap start_s end_s len_ms cause_index cause worker_lane holder_lane\n",
          pieces.o.f);
    fputs("# len_ms cdf   (one index block per device, in device order)\n", cdf.o.f);
    size_t total = 0;
    for (size_t d = 0; d < a->n_dev; d++)
        total += a->dev[d].n_gaps;
    double *len = malloc((total + 1) * sizeof *len);
    if (!len) {
        st = gs_err_set(err, GS_ERR_NOMEM, "data files", r->dir, "out of memory");
        goto done;
    }
    size_t m = 0;
    for (size_t d = 0; d < a->n_dev; d++) {
        const gs_device_analysis *D = &a->dev[d];
        fprintf(cdf.o.f, "%s# device %d\n", d ? "\n\n" : "", (int)D->device);
        for (size_t g = 0; g < D->n_gaps; g++) {
            const gs_gap *gp = &D->gaps[g];
            fprintf(gaps.o.f, "%d %zu %.9f %.9f %.6f %d %s\n", (int)D->device, g,
                    sec(a, gp->start_ns), sec(a, gp->end_ns),
                    (double)(gp->end_ns - gp->start_ns) * 1e-6, (int)gp->cause,
                    gs_cause_name(gp->cause));
            for (size_t k = gp->first_piece; k < gp->first_piece + gp->n_pieces; k++) {
                const gs_gap_piece *p = &D->pieces[k];
                fprintf(pieces.o.f, "%d %zu %.9f %.9f %.6f %d %s %d %d\n", (int)D->device, g,
                        sec(a, p->start_ns), sec(a, p->end_ns),
                        (double)(p->end_ns - p->start_ns) * 1e-6, (int)p->cause,
                        gs_cause_name(p->cause), (int)p->worker, (int)p->holder);
            }
        }
        size_t m0 = m;
        for (size_t g = 0; g < D->n_gaps; g++)
            len[m++] = (double)(D->gaps[g].end_ns - D->gaps[g].start_ns) * 1e-6;
        qsort(len + m0, D->n_gaps, sizeof *len, cmp_d);
        for (size_t g = 0; g < D->n_gaps; g++)
            fprintf(cdf.o.f, "%.6f %.6f\n", len[m0 + g], (double)(g + 1) / (double)D->n_gaps);
        if (!D->n_gaps)
            fputs("0 0\n", cdf.o.f);
    }
    /* Histogram over all devices: log bins, 4 per decade, 1 us .. 100 s. */
    fputs("# bin_lo_ms bin_hi_ms count total_s   (all devices; 4 log bins per decade)\n", hist.o.f);
    for (int b = 0; b < 32; b++) {
        double lo = pow(10, -3 + b / 4.0), hi = pow(10, -3 + (b + 1) / 4.0);
        size_t c = 0;
        double t = 0;
        for (size_t i = 0; i < m; i++)
            if ((len[i] >= lo || (b == 0 && len[i] < lo)) && (len[i] < hi || b == 31)) {
                c++;
                t += len[i] * 1e-3;
            }
        fprintf(hist.o.f, "%.6g %.6g %zu %.9f\n", lo, hi, c, t);
    }
    free(len);
    if ((st = gs_out_close(&gaps.o, 1, err)) != GS_OK ||
        (st = gs_out_close(&pieces.o, 1, err)) != GS_OK ||
        (st = gs_out_close(&cdf.o, 1, err)) != GS_OK)
        goto done;
    st = gs_out_close(&hist.o, 1, err);
done:;
    dfile *all[] = {&gaps, &pieces, &cdf, &hist};
    for (int i = 0; i < 4; i++)
        if (all[i]->o.f)
            gs_out_close(&all[i]->o, 0, NULL);
    return st;
}

static gs_status write_causes_util(const gs_run *r, gs_err *err)
{
    const gs_analysis *a = r->an;
    dfile c = {0}, u = {0};
    gs_status st;
    if ((st = dopen(&c, r, "causes.dat", err)) != GS_OK)
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
    if ((st = dopen(&u, r, "util_bins.dat", err)) != GS_OK)
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
            fprintf(u.o.f, "%.6f %.6f %.6f\n", (sec(a, t) + sec(a, e)) / 2,
                    (double)gs_interval_overlap(D->busy, D->n_busy, t, e) / w,
                    (double)gs_interval_overlap(D->kernel, D->n_kernel, t, e) / w);
            t = e;
        }
    }
    return gs_out_close(&u.o, 1, err);
}

gs_status gs_plot_data_write(const gs_run *r, gs_err *err)
{
    gs_status st = write_timeline(r, err);
    if (st == GS_OK)
        st = write_gaps(r, err);
    if (st == GS_OK)
        st = write_causes_util(r, err);
    return st;
}
