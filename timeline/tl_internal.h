/*
 * Internals shared by the timeline's own files (timeline.c, timeline_csv.c,
 * timeline_chrome.c) and diag's file helpers.  Not part of the contract.
 */
#ifndef GS_TL_INTERNAL_H
#define GS_TL_INTERNAL_H

#include <stdio.h>

#include "../common/outfile.h"
#include "../common/strmap.h"
#include "timeline.h"

/* Appends a fully specified span (all fields, including holder and value)
 * to a lane; used by the CSV reader.  Same rules as gs_tl_span. */
void gs_tl_append_raw(gs_tl_lane *lane, const gs_span *s);
/* The lane object of a lane id (NULL when out of range). */
gs_tl_lane *gs_tl_lane_by_id(gs_timeline *tl, int32_t id);
/* Number of spans appended so far, over all lanes. */
size_t gs_tl_span_total(const gs_timeline *tl);
/* The spans of a lane in append order, one chunk at a time: *it NULL at
 * first; returns the chunk's spans (*n of them), NULL after the last. */
const gs_span *gs_tl_lane_segment(const gs_timeline *tl, int32_t lane, void **it, size_t *n);
size_t gs_tl_lane_size(const gs_timeline *tl, int32_t lane);
/* The sorted view of gs_timeline_spans built anew (tl_sort.c): total spans
 * (every lane's) in (start, end, lane, append order); malloc'd, NULL when
 * out of memory. */
gs_span *gs_tl_sort_spans(const gs_timeline *tl, size_t total);
/* Sets the dropped-span counter (CSV reader restoring a saved count). */
void gs_tl_set_dropped(gs_timeline *tl, uint64_t n);
/* The trace writers' process of a lane: 1 for the host, 100 + d for GPU d
 * (999 for a device lane without a device). */
#define GS_TL_PID_HOST 1
#define GS_TL_PID_GPU0 100
int gs_tl_lane_pid(const gs_lane_info *L);

/* spans.csv's header line (without cpu_ns), the reader's and the writer's. */
#define GS_TL_CSV_HEADER "start_ns,end_ns,lane,kind,name,job,part,flags,holder,value,args"

/* Meta key under which the dropped-span count is written. */
#define GS_TL_META_DROPPED "timeline.dropped_spans"

/*
 * Flows the trace writers draw (tl_flows.c): launch (a GPU worker's
 * prove_start -> each device span of its device/job/partition) and lock
 * (the holder's LOCK_HOLD ending within a wait -> the waiter's LOCK_HOLD of
 * the same lock starting when the wait ended).  Spans are indices into the
 * sorted view (gs_timeline_spans).  Every destination has at most one flow
 * in; a source's flow ids are contiguous (first .. first + count - 1).
 * Ids start at 1.  gs_tl_flows_build allocates; gs_tl_flows_free frees.
 */
#define GS_TL_FLOW_LAUNCH 0
#define GS_TL_FLOW_LOCK   1
typedef struct gs_tl_flow_in {
    size_t dst, src;         /* span indices */
    uint64_t id;
    uint8_t kind;            /* GS_TL_FLOW_* */
} gs_tl_flow_in;
typedef struct gs_tl_flow_out {
    size_t src;
    uint64_t first;
    uint32_t count;
} gs_tl_flow_out;
typedef struct gs_tl_flows {
    gs_tl_flow_in *in;       /* sorted by dst */
    size_t n;
    gs_tl_flow_out *out;     /* sorted by src */
    size_t n_out;
} gs_tl_flows;

/* GS_ERR_NOMEM (nothing allocated) or GS_OK. */
gs_status gs_tl_flows_build(gs_tl_flows *f, gs_timeline *tl, const gs_span *sp, size_t n);
void gs_tl_flows_free(gs_tl_flows *f);
/* Lookups for spans visited in groups [g, h) of nondecreasing g (any
 * order inside a group): *cur (0 at first) follows g.  The flow ending at
 * span (NULL when none); the number of flows leaving span, the first id
 * in *first. */
const gs_tl_flow_in *gs_tl_flow_into(const gs_tl_flows *f, size_t *cur, size_t g, size_t span);
uint32_t gs_tl_flows_from(const gs_tl_flows *f, size_t *cur, size_t g, size_t span, uint64_t *first);

/* What a writer of tl writes: its sorted spans (*sp, *n; NULL when there
 * are none), after gs_timeline_check.  GS_ERR_NOMEM "out of memory sorting
 * spans" or the check's GS_ERR_RANGE, as "what @ path: ...". */
gs_status gs_tl_spans_to_write(const gs_span **sp, size_t *n, gs_timeline *tl, const char *what,
                               const char *path, gs_err *err);

#endif
