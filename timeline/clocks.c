/*
 * Clock anchors in a timeline's meta and how two captures' clocks relate
 * (tl_merge.h).  Used by the capture sources (the engine's runs, attach) to
 * record the anchor, and by gapscope merge to align captures.
 */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tl_merge.h"

static void set_i64(gs_timeline *tl, const char *key, int64_t v)
{
    char b[32];
    snprintf(b, sizeof b, "%" PRId64, v);
    gs_timeline_meta_set(tl, key, b);
}

void gs_timeline_set_anchor(gs_timeline *tl, const gs_clock_anchor *a)
{
    set_i64(tl, GS_TL_META_ANCHOR_MONO, a->monotonic_ns);
    set_i64(tl, GS_TL_META_ANCHOR_REAL, a->realtime_ns);
    set_i64(tl, GS_TL_META_ANCHOR_UNC, a->uncertainty_ns);
    set_i64(tl, GS_TL_META_ANCHOR_MAXERR, a->maxerror_us);
    set_i64(tl, GS_TL_META_ANCHOR_SYNCED, a->synced);
    if (a->boot_id[0])
        gs_timeline_meta_set(tl, GS_TL_META_BOOT_ID, a->boot_id);
}

static int get_i64(const gs_timeline *tl, const char *key, int64_t *v)
{
    const char *s = gs_timeline_meta_get(tl, key);
    char *e;
    if (!s || !*s)
        return 0;
    long long x = strtoll(s, &e, 10);
    if (*e)
        return 0;
    *v = (int64_t)x;
    return 1;
}

int gs_timeline_get_anchor(const gs_timeline *tl, gs_clock_anchor *a)
{
    int64_t synced = -1;
    memset(a, 0, sizeof *a);
    const char *boot = gs_timeline_meta_get(tl, GS_TL_META_BOOT_ID);
    if (boot)
        snprintf(a->boot_id, sizeof a->boot_id, "%s", boot);
    a->maxerror_us = -1;
    get_i64(tl, GS_TL_META_ANCHOR_MAXERR, &a->maxerror_us);
    get_i64(tl, GS_TL_META_ANCHOR_SYNCED, &synced);
    a->synced = (int)synced;
    return get_i64(tl, GS_TL_META_ANCHOR_MONO, &a->monotonic_ns) &&
           get_i64(tl, GS_TL_META_ANCHOR_REAL, &a->realtime_ns) &&
           get_i64(tl, GS_TL_META_ANCHOR_UNC, &a->uncertainty_ns);
}

int gs_timeline_align(gs_tl_align *out, const gs_timeline *ref, const gs_timeline *tl)
{
    gs_clock_anchor ar, at;
    int hr = gs_timeline_get_anchor(ref, &ar), ht = gs_timeline_get_anchor(tl, &at);
    memset(out, 0, sizeof *out);
    if (ar.boot_id[0] && !strcmp(ar.boot_id, at.boot_id)) {
        snprintf(out->how, sizeof out->how,
                 "same host and boot (boot id %.8s...): one CLOCK_MONOTONIC, offset 0 exactly",
                 ar.boot_id);
        return 1;
    }
    if (!hr || !ht) {
        snprintf(out->how, sizeof out->how, "no clock anchor in %s (recorded by gapscope run and "
                                            "attach since issue 32; imports have none)",
                 !hr && !ht ? "either capture" : !hr ? "the first capture" : "this capture");
        return 0;
    }
    /* wall = t - mono + real on each host; t_ref = wall - real_ref + mono_ref. */
    out->offset_ns = (at.realtime_ns - at.monotonic_ns) - (ar.realtime_ns - ar.monotonic_ns);
    if (ar.synced == 0 || at.synced == 0 || ar.maxerror_us < 0 || at.maxerror_us < 0) {
        out->error_ns = -1;
        snprintf(out->how, sizeof out->how,
                 "wall-clock anchors of two hosts (or boots); unbounded: %s",
                 ar.synced == 0 || at.synced == 0 ? "a host clock was not synchronized (NTP)"
                                                  : "a host's clock error bound is unknown");
        return 1;
    }
    out->error_ns = ar.uncertainty_ns + at.uncertainty_ns + (ar.maxerror_us + at.maxerror_us) * 1000;
    snprintf(out->how, sizeof out->how,
             "wall-clock anchors of two hosts (or boots): error <= reads %lld + %lld ns + "
             "realtime bounds %lld + %lld us (adjtimex maxerror), while both stay synchronized",
             (long long)ar.uncertainty_ns, (long long)at.uncertainty_ns,
             (long long)ar.maxerror_us, (long long)at.maxerror_us);
    return 1;
}
