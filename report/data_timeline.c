/*
 * The timeline chart's data (data_internal.h): its rows (lanes.dat,
 * lanes.gp), the variables of meta.gp, the spans of every row
 * (timeline_spans.dat) and the idle gaps shaded by cause
 * (timeline_gaps.dat), once over the whole run and once over the zoom
 * window around the longest gap (timeline_zoom_*.dat).  Each row is drawn
 * at the chart's pixel resolution (pixels.h): exact when its spans fit
 * the columns, else merged, so the files and the charts stay the same
 * size whatever the span count.  Columns: report/README.md.
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "data_internal.h"
#include "pixels.h"

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

/* Reduced rows draw the tall categories (steps, device work) first and
 * the short ones (lock waits and holds, injected delays) over them, as
 * nesting draws them in exact rows. */
static const int32_t cat_order[8] = {7, 6, 2, 0, 1, 4, 3, 5};

/* Tracker rows at most (processes beyond share the last one). */
#define GS_TRACKER_ROWS 64

/* The chart's rows: y of each lane (-1: not drawn), the tracker lock's
 * pseudo-row, and the drawn lanes in row order. */
typedef struct {
    int32_t *y, *order;
    size_t k;          /* drawn lanes */
    size_t tracker_at; /* the tracker rows come before order[tracker_at] (k: last) */
    int rows;
    int32_t n_trk;     /* tracker rows: one per process (merged runs have several) */
    int tracker_y[GS_TRACKER_ROWS];
} rows_t;

/* The tracker row of a lane's process. */
static int32_t trk_index(const gs_run *r, const rows_t *R, int32_t lane)
{
    int32_t p = gs_timeline_lane(r->tl, lane)->process;
    return p < R->n_trk ? p : R->n_trk - 1;
}

/* Items of every row (lane rows and the tracker row), bucketed by y. */
typedef struct {
    gs_px_item *it;
    size_t *first;     /* rows + 1 offsets into it */
} row_items;

static int build_items(row_items *ri, const gs_run *r, const rows_t *R)
{
    size_t n;
    const gs_span *sp = gs_timeline_spans(r->tl, &n);
    ri->first = calloc((size_t)R->rows + 1, sizeof *ri->first);
    if (!ri->first)
        return 0;
    for (int pass = 0; pass < 2; pass++) {
        size_t *fill = ri->first;
        for (size_t i = 0; i < n; i++) {
            const gs_span *s = &sp[i];
            if (s->kind == GS_SPAN_COUNTER || s->kind == GS_SPAN_MARK || s->end_ns <= s->start_ns)
                continue;
            int32_t ys[2] = {R->y[s->lane], -1};
            if (s->kind == GS_SPAN_LOCK_HOLD && gs_vocab_is(s->name, GS_V_TRACKER))
                ys[1] = R->tracker_y[trk_index(r, R, s->lane)];
            for (int j = 0; j < 2; j++) {
                if (ys[j] < 0)
                    continue;
                if (pass == 0)
                    fill[ys[j] + 1]++;
                else
                    ri->it[fill[ys[j]]++] =
                        (gs_px_item){s->start_ns, s->end_ns, j ? 4 : category(s)};
            }
        }
        if (pass == 0) {
            for (int y = 0; y < R->rows; y++)
                ri->first[y + 1] += ri->first[y];
            ri->it = malloc((ri->first[R->rows] + 1) * sizeof *ri->it);
            if (!ri->it)
                return 0;
        } else {
            for (int y = R->rows; y > 0; y--)
                ri->first[y] = ri->first[y - 1];
            ri->first[0] = 0;
        }
    }
    return 1;
}

typedef struct {
    FILE *f;
    const gs_analysis *a;
    int y, tracker;   /* tracker: y is a tracker row */
} emit_ctx;

static void emit_span(void *ctx, int64_t s, int64_t e, int32_t cat, double cov)
{
    emit_ctx *c = ctx;
    fprintf(c->f, "%d %.9f %.9f %d %.2f %.4g\n", c->y, gs_data_sec(c->a, s), gs_data_sec(c->a, e),
            (int)cat, !c->tracker && (cat == 3 || cat == 5 || cat == 4) ? 0.22 : 0.4, cov);
}

static void emit_gap(void *ctx, int64_t s, int64_t e, int32_t cause, double cov)
{
    emit_ctx *c = ctx;
    fprintf(c->f, "%d %.9f %.9f %d %.4g\n", c->y, gs_data_sec(c->a, s), gs_data_sec(c->a, e),
            (int)cause, cov);
}

/* timeline[_zoom]_spans.dat and timeline[_zoom]_gaps.dat over window w. */
static gs_status write_window(const gs_run *r, const row_items *ri, const rows_t *R,
                              const gs_px_window *w, const char *spans_name,
                              const char *gaps_name, gs_err *err)
{
    const gs_analysis *a = r->an;
    gs_dfile d = {0};
    gs_status st = gs_dfile_open(&d, r, spans_name, err);
    if (st != GS_OK)
        return st;
    fprintf(d.o.f, "# y start_s end_s category half_height coverage   categories: 0 kernel 1 copy "
                   "2 queue_wait 3 lock_wait 4 lock_hold 5 injected 6 prove/synth 7 other step\n"
                   "# window %.9f..%.9f s in %d columns; coverage < 1: spans merged at that "
                   "resolution (the box's busy fraction)\n",
            gs_data_sec(a, w->lo_ns), gs_data_sec(a, w->hi_ns), w->cols);
    emit_ctx c = {d.o.f, a, 0, 0};
    for (int y = R->rows - 1; y >= 0; y--) {
        c.y = y;
        c.tracker = 0;
        for (int32_t t = 0; t < R->n_trk; t++)
            c.tracker |= R->tracker_y[t] == y;
        if (gs_px_row(w, ri->it + ri->first[y], ri->first[y + 1] - ri->first[y], cat_order, 8,
                      emit_span, &c) < 0)
            goto nomem;
    }
    if ((st = gs_dfile_close(&d, 1, err)) != GS_OK)
        return st;
    if ((st = gs_dfile_open(&d, r, gaps_name, err)) != GS_OK)
        return st;
    fprintf(d.o.f, "# device start_s end_s cause_index coverage   (idle gap pieces; window "
                   "%.9f..%.9f s in %d columns; coverage < 1: merged at that resolution)\n",
            gs_data_sec(a, w->lo_ns), gs_data_sec(a, w->hi_ns), w->cols);
    int32_t causes[GS_CAUSE_COUNT];
    for (int k = 0; k < GS_CAUSE_COUNT; k++)
        causes[k] = k;
    for (size_t i = 0; i < a->n_dev; i++) {
        const gs_device_analysis *D = &a->dev[i];
        gs_px_item *it = malloc((D->n_pieces + 1) * sizeof *it);
        if (!it)
            goto nomem;
        for (size_t p = 0; p < D->n_pieces; p++)
            it[p] = (gs_px_item){D->pieces[p].start_ns, D->pieces[p].end_ns, D->pieces[p].cause};
        c = (emit_ctx){d.o.f, a, (int)D->device, 0};
        int ok = gs_px_row(w, it, D->n_pieces, causes, GS_CAUSE_COUNT, emit_gap, &c);
        free(it);
        if (ok < 0)
            goto nomem;
    }
    return gs_dfile_close(&d, 1, err);
nomem:
    gs_dfile_close(&d, 0, NULL);
    return gs_err_set(err, GS_ERR_NOMEM, "data files", r->dir, "out of memory");
}

/* The zoom window: the longest gap with twice its length of context each
 * side, inside the timeline (the whole run when there is no gap). */
static void zoom_window(const gs_analysis *a, int64_t *lo, int64_t *hi)
{
    int64_t best = -1;
    *lo = a->t0_ns;
    *hi = a->t1_ns;
    for (size_t d = 0; d < a->n_dev; d++)
        for (size_t g = 0; g < a->dev[d].n_gaps; g++) {
            const gs_gap *gp = &a->dev[d].gaps[g];
            int64_t len = gp->end_ns - gp->start_ns;
            if (len > best) {
                best = len;
                *lo = gp->start_ns - 2 * len > a->t0_ns ? gp->start_ns - 2 * len : a->t0_ns;
                *hi = gp->end_ns + 2 * len < a->t1_ns ? gp->end_ns + 2 * len : a->t1_ns;
            }
        }
}

/* Row labels without the characters gnuplot strings cannot hold. */
static void put_label(FILE *f, const char *s)
{
    for (const char *p = s; *p; p++)
        if (*p != '"' && *p != '\\' && (unsigned char)*p >= 0x20)
            fputc(*p, f);
}

static gs_status write_rows(const gs_run *r, const rows_t *R, int64_t zlo, int64_t zhi,
                            gs_err *err)
{
    const gs_analysis *a = r->an;
    gs_dfile d = {0};
    gs_status st = gs_dfile_open(&d, r, "lanes.dat", err);
    if (st != GS_OK)
        return st;
    fputs("# y lane_id role name   (timeline chart rows, top row has the largest y)\n", d.o.f);
    for (size_t i = 0; i <= R->k; i++) {
        for (int32_t t = 0; i == R->tracker_at && t < R->n_trk; t++)
            fprintf(d.o.f, "%d -1 lock tracker_lock\n", R->tracker_y[t]);
        if (i == R->k)
            break;
        const gs_lane_info *L = gs_timeline_lane(r->tl, R->order[i]);
        fprintf(d.o.f, "%d %d %s %s\n", R->y[R->order[i]], (int)L->id, gs_role_name(L->role),
                L->name);
    }
    if ((st = gs_dfile_close(&d, 1, err)) != GS_OK)
        return st;
    if ((st = gs_dfile_open(&d, r, "meta.gp", err)) != GS_OK)
        return st;
    FILE *f = d.o.f;
    fprintf(f, "# generated by gapscope analyze\nn_rows = %d\nt_end = %.9f\nmicro_ms = %g\n",
            R->rows, gs_data_sec(a, a->t1_ns), a->cfg.micro_threshold_s * 1e3);
    fprintf(f, "plot_columns = %d\nzoom_lo = %.9f\nzoom_hi = %.9f\ndevice_ids = \"",
            GS_PLOT_COLUMNS, gs_data_sec(a, zlo), gs_data_sec(a, zhi));
    for (size_t d = 0; d < a->n_dev; d++)
        fprintf(f, "%s%d", d ? " " : "", (int)a->dev[d].device);
    fputs("\"\narray cause_present[25] = [", f);
    for (int c = 0; c < GS_CAUSE_COUNT; c++)
        fprintf(f, "%s%d", c ? "," : "", a->cause_s[c] > 0);
    fputs("]\n", f);
    fprintf(f, "n_devices = %zu\nrun_label = \"", a->n_dev);
    const char *base = strrchr(r->dir, '/');
    put_label(f, base && base[1] ? base + 1 : r->dir);
    fputs("\"\n", f);
    if ((st = gs_dfile_close(&d, 1, err)) != GS_OK)
        return st;
    if ((st = gs_dfile_open(&d, r, "lanes.gp", err)) != GS_OK)
        return st;
    f = d.o.f;
    fputs("# timeline row labels (generated by gapscope analyze)\nset ytics (", f);
    for (int32_t t = 0; t < R->n_trk; t++) {
        char key[64];
        snprintf(key, sizeof key, "process.%d.label", (int)t);
        const char *label = R->n_trk > 1 ? gs_timeline_meta_get(r->tl, key) : NULL;
        fputs(t ? ", \"" : "\"", f);
        if (label) {
            put_label(f, label);
            fputc(':', f);
        }
        fprintf(f, "tracker lock\" %d", R->tracker_y[t]);
    }
    for (size_t i = 0; i < R->k; i++) {
        fputs(", \"", f);
        put_label(f, gs_timeline_lane(r->tl, R->order[i])->name);
        fprintf(f, "\" %d", R->y[R->order[i]]);
    }
    fputs(")\n", f);
    return gs_dfile_close(&d, 1, err);
}

/* Rows top to bottom, y counting down so the first lane is on top: the
 * device streams, the tracker lock, then the host lanes. */
static int assign_rows(rows_t *R, const gs_run *r)
{
    size_t nl = gs_timeline_lane_count(r->tl);
    R->order = malloc((nl + 1) * sizeof *R->order);
    R->y = malloc((nl + 1) * sizeof *R->y);
    if (!R->order || !R->y)
        return 0;
    R->k = 0;
    for (size_t i = 0; i < nl; i++) {
        R->y[i] = -1;
        if (lane_rank(gs_timeline_lane(r->tl, (int32_t)i)) >= 0)
            R->order[R->k++] = (int32_t)i;
    }
    g_tl = r->tl;
    qsort(R->order, R->k, sizeof *R->order, cmp_lane);
    R->n_trk = 1;
    for (size_t i = 0; i < nl; i++)
        if (gs_timeline_lane(r->tl, (int32_t)i)->process >= R->n_trk)
            R->n_trk = gs_timeline_lane(r->tl, (int32_t)i)->process + 1;
    if (R->n_trk > GS_TRACKER_ROWS)
        R->n_trk = GS_TRACKER_ROWS;
    R->rows = (int)R->k + R->n_trk;
    R->tracker_at = R->k;
    for (size_t i = 0; i < R->k; i++)
        if (gs_timeline_lane(r->tl, R->order[i])->role != GS_ROLE_DEVICE) {
            R->tracker_at = i;
            break;
        }
    int row = 0;
    for (size_t i = 0; i <= R->k; i++) {
        for (int32_t t = 0; i == R->tracker_at && t < R->n_trk; t++)
            R->tracker_y[t] = R->rows - 1 - row++;
        if (i < R->k)
            R->y[R->order[i]] = R->rows - 1 - row++;
    }
    return 1;
}

gs_status gs_data_timeline_write(const gs_run *r, gs_err *err)
{
    const gs_analysis *a = r->an;
    rows_t R = {0};
    row_items ri = {0};
    gs_status st;
    if (!assign_rows(&R, r) || !build_items(&ri, r, &R)) {
        st = gs_err_set(err, GS_ERR_NOMEM, "data files", r->dir, "out of memory");
        goto done;
    }
    int64_t zlo, zhi;
    zoom_window(a, &zlo, &zhi);
    gs_px_window whole = {a->t0_ns, a->t1_ns > a->t0_ns ? a->t1_ns : a->t0_ns + 1000000,
                          GS_PLOT_COLUMNS};
    gs_px_window zoom = {zlo, zhi > zlo ? zhi : zlo + 1000000, GS_PLOT_COLUMNS};
    if ((st = write_rows(r, &R, zlo, zhi, err)) != GS_OK ||
        (st = write_window(r, &ri, &R, &whole, "timeline_spans.dat", "timeline_gaps.dat",
                           err)) != GS_OK)
        goto done;
    st = write_window(r, &ri, &R, &zoom, "timeline_zoom_spans.dat", "timeline_zoom_gaps.dat", err);
done:
    free(R.order);
    free(R.y);
    free(ri.it);
    free(ri.first);
    return st;
}
