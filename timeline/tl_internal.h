/*
 * Internals shared by the timeline's own files (timeline.c, timeline_csv.c,
 * timeline_chrome.c) and diag's file helpers.  Not part of the contract.
 */
#ifndef GS_TL_INTERNAL_H
#define GS_TL_INTERNAL_H

#include <stdio.h>

#include "../common/outfile.h"
#include "timeline.h"

/* Appends a fully specified span (all fields, including holder and value)
 * to a lane; used by the CSV reader.  Same rules as gs_tl_span. */
void gs_tl_append_raw(gs_tl_lane *lane, const gs_span *s);
/* The lane object of a lane id (NULL when out of range). */
gs_tl_lane *gs_tl_lane_by_id(gs_timeline *tl, int32_t id);
/* Number of spans appended so far, over all lanes. */
size_t gs_tl_span_total(const gs_timeline *tl);
/* Sets the dropped-span counter (CSV reader restoring a saved count). */
void gs_tl_set_dropped(gs_timeline *tl, uint64_t n);
/* Meta key under which the dropped-span count is written. */
#define GS_TL_META_DROPPED "timeline.dropped_spans"

#endif
