/*
 * A chart row of intervals drawn at the chart's pixel resolution
 * (internal to report/: the timeline's lanes and its gap shading).
 *
 * A row (a lane, or a device's idle gaps) holds items: intervals with a
 * class (a span category, a cause).  Drawn over a window [lo, hi) of
 * `cols` pixel columns, a row with at most `cols` items in the window is
 * written exactly, item by item in the given order (coverage 1): the
 * picture is the one every span would give.  A row with more is reduced:
 * per class, the union of its items is accumulated into the columns, and
 * each run of adjacent columns with the same covered fraction (quantized
 * to GS_PX_LEVELS levels; a column with any coverage gets at least one
 * level, so a lone short span stays visible) becomes one box whose
 * coverage is that fraction.  Boxes are then at most classes x cols per
 * row, whatever the span count, and a box's edges are within one column
 * of the items' edges.  Long items (a full column or more) come out as
 * full-coverage boxes, so the reduced picture equals the exact one
 * wherever a column is wholly busy or wholly idle.
 *
 * Not thread safe (no state); allocates scratch memory per call.
 */
#ifndef GS_REPORT_PIXELS_H
#define GS_REPORT_PIXELS_H

#include <stddef.h>
#include <stdint.h>

#define GS_PX_LEVELS 16

typedef struct gs_px_item {
    int64_t start_ns, end_ns;
    int32_t cls;
} gs_px_item;

typedef struct gs_px_window {
    int64_t lo_ns, hi_ns;   /* hi > lo */
    int cols;               /* pixel columns across [lo, hi) */
} gs_px_window;

/* Called once per box, in drawing order; coverage in (0, 1]. */
typedef void (*gs_px_emit)(void *ctx, int64_t start_ns, int64_t end_ns, int32_t cls,
                           double coverage);

/* Writes one row through emit.  Reduced boxes come class by class in the
 * order of `order` (n_order classes; every class of the items must be
 * listed, items of other classes are left out).  Returns 1 when the row
 * was written exactly, 0 when reduced, -1 when out of memory (nothing or
 * part of the row written). */
int gs_px_row(const gs_px_window *w, const gs_px_item *it, size_t n, const int32_t *order,
              int n_order, gs_px_emit emit, void *ctx);

#endif
