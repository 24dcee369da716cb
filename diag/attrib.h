/*
 * Gap attribution (internal to diag; the rules are in diag/README.md,
 * "Attribution").
 *
 * gs_attrib_create precomputes, for every host lane, its state segments:
 * the piecewise-constant (innermost span, outermost span) of the lane over
 * time, plus the sorted list of tracker LOCK_HOLD spans.  gs_attrib_gap
 * then splits a device gap into constant-cause pieces.
 *
 * The gs_attrib borrows the timeline's sorted span array: the timeline must
 * not change while it lives.  Not thread safe.
 */
#ifndef GS_ATTRIB_H
#define GS_ATTRIB_H

#include "analysis.h"

typedef struct gs_attrib gs_attrib;

gs_status gs_attrib_create(gs_attrib **out, gs_timeline *tl, gs_err *err);
void gs_attrib_destroy(gs_attrib *at);

/* Appends the pieces of gap [a, b) on device `device` to *pieces (growing
 * it; *n and *cap track it).  Returns 0 when out of memory. */
int gs_attrib_gap(gs_attrib *at, int32_t device, int64_t a, int64_t b,
                  gs_gap_piece **pieces, size_t *n, size_t *cap);

/* Precedence rank of a GPU worker step name (higher = closer to launching
 * device work); -1 for names outside the worker loop. */
int gs_attrib_step_rank(const char *name);

#endif
