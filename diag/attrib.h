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
 * it; *n and *cap track it).  Returns 0 when out of memory.  A device
 * served by a GPU worker lane (same device, or device -1) is attributed by
 * the engine's rule; any other by the launcher rule (attrib_launcher.c). */
int gs_attrib_gap(gs_attrib *at, int32_t device, int64_t a, int64_t b,
                  gs_gap_piece **pieces, size_t *n, size_t *cap);
gs_attrib_rule gs_attrib_rule_of(gs_attrib *at, int32_t device);

/* Details interned by the launcher rule (piece.detail indexes them). */
size_t gs_attrib_detail_count(const gs_attrib *at);
const char *gs_attrib_detail(const gs_attrib *at, size_t i, gs_cause *cause);

/* Appends p to the pieces, merging it into the last piece when they touch
 * and carry the same cause and detail; empty pieces are dropped.  Returns 0
 * when out of memory. */
int gs_attrib_push_piece(gs_gap_piece **v, size_t *n, size_t *cap, gs_gap_piece p);

/* ---- the launcher rule (attrib_launcher.c; diag/README.md, "Attribution
 * of foreign timelines") ---- */
typedef struct gs_launcher gs_launcher;
/* Borrows sp and info (they must outlive it); returns NULL when out of memory. */
gs_launcher *gs_launcher_create(const gs_span *sp, size_t n_sp, const gs_lane_info *const *info,
                                size_t n_lanes);
void gs_launcher_destroy(gs_launcher *L);
int gs_launcher_gap(gs_launcher *L, int32_t device, int64_t a, int64_t b,
                    gs_gap_piece **pieces, size_t *n, size_t *cap);
size_t gs_launcher_detail_count(const gs_launcher *L);
const char *gs_launcher_detail(const gs_launcher *L, size_t i, gs_cause *cause);

/* Precedence rank of a GPU worker step name (higher = closer to launching
 * device work); -1 for names outside the worker loop. */
int gs_attrib_step_rank(const char *name);

#endif
