/*
 * Several captures on one clock: the clock anchor a capture records, how
 * two captures' clocks relate, and the merge of timelines into one
 * (timeline/README.md, "Clock anchors" and "Merged timelines").
 *
 * A capture records its anchor (gs_timeline_set_anchor) at its start: its
 * host's CLOCK_MONOTONIC and CLOCK_REALTIME read together, the kernel's
 * bound on realtime's error, and the boot id.  Two captures of one boot of
 * one host share CLOCK_MONOTONIC: offset 0, exactly.  Otherwise each
 * capture's times map to wall-clock time through its anchor, and the
 * error of the offset is bounded by the two reads' uncertainties plus the
 * two hosts' realtime error bounds at the anchors (adjtimex maxerror),
 * while both stay synchronized; over a long capture add each host's
 * residual frequency error times its length (NTP: about 1 ppm, 3.6 ms an
 * hour).  A capture without an anchor (imports, older runs) can only be
 * merged by saying how (same clock, or an offset).
 *
 * Ownership: gs_timeline_merge creates a new timeline; the inputs are only
 * read (their capture must have stopped).
 */
#ifndef GS_TIMELINE_MERGE_H
#define GS_TIMELINE_MERGE_H

#include "../common/clock.h"
#include "timeline.h"

/* Meta keys of the anchor (values: decimal integers; boot id text). */
#define GS_TL_META_ANCHOR_MONO "clock.anchor.monotonic_ns"
#define GS_TL_META_ANCHOR_REAL "clock.anchor.realtime_ns"
#define GS_TL_META_ANCHOR_UNC "clock.anchor.uncertainty_ns"
#define GS_TL_META_ANCHOR_MAXERR "clock.anchor.maxerror_us"
#define GS_TL_META_ANCHOR_SYNCED "clock.anchor.synced"
#define GS_TL_META_BOOT_ID "clock.boot_id"

/* Records a's fields in tl's meta. */
void gs_timeline_set_anchor(gs_timeline *tl, const gs_clock_anchor *a);
/* Reads them back; 0 when tl has no anchor (boot id alone counts as none). */
int gs_timeline_get_anchor(const gs_timeline *tl, gs_clock_anchor *a);

/* How to put tl's times on ref's clock: t_ref = t + offset_ns. */
typedef struct gs_tl_align {
    int64_t offset_ns;
    int64_t error_ns;          /* bound on |offset error|; -1 unbounded (a clock not synchronized) */
    char how[256];             /* one sentence: which rule, and the bound's terms */
} gs_tl_align;

/* Same boot id: offset 0, error 0.  Both anchored: offset and bound from
 * the anchors.  Returns 0 (how says why) when neither applies. */
int gs_timeline_align(gs_tl_align *out, const gs_timeline *ref, const gs_timeline *tl);

/* One capture of a merge. */
typedef struct gs_tl_merge_in {
    gs_timeline *tl;
    const char *label;         /* lane names get "<label>:" before them; meta process.<k>.label */
    int64_t offset_ns;         /* added to every time of this capture */
} gs_tl_merge_in;

/*
 * Joins n captures into *out: capture k becomes process k.  Its lanes are
 * appended in order (lane ids shifted; names prefixed "<label>:"), its
 * devices renumbered after those of the captures before it (0, 1, ... in
 * capture order, then device order), its times shifted by offset_ns, and
 * the lane ids spans refer to (holder, args launch_lane=) remapped.  Meta:
 * every key of capture k as process.<k>.<key>, its device names as
 * device.<new id>.name, process.<k>.label / .offset_ns / .devices
 * ("old=new,..."), merge.processes = n.  GS_ERR_RANGE when a shifted time
 * leaves +-GS_TL_TIME_LIMIT_NS, GS_ERR_NOMEM.
 */
gs_status gs_timeline_merge(gs_timeline **out, const gs_tl_merge_in *in, size_t n, gs_err *err);

#endif
