/*
 * The fleet view of a timeline with several devices (diag/README.md,
 * "Fleet view"): devices of one multi-GPU capture, or of several
 * processes or hosts merged onto one clock (gapscope merge).
 *
 * Over the common window (where every device's span runs), the idle that
 * lines up is the time every device is idle at once.  Independent idle
 * lines up too, by chance, in short stretches; to tell a shared cause
 * from chance the devices' idle is shifted against each other
 * (GS_FLEET_SHIFTS circular shifts within the window, by multiples of
 * 1/(GS_FLEET_SHIFTS + 1) of it) and a stretch of the real timeline is
 * **shared** when it is longer than every stretch of every shifted version
 * (and not shorter than the micro threshold): chance alignment of
 * independent idle reaches that length in about 1 run of
 * GS_FLEET_SHIFTS + 1.  Each device's idle then splits into shared (in
 * shared stretches) and its own; its own top cause is the cause of the
 * rest.  The slowest device is the one with the lowest util.
 *
 * Ownership: gs_fleet_analyze allocates, gs_fleet_destroy frees; the
 * fleet keeps no pointer into the analysis.
 */
#ifndef GS_FLEET_H
#define GS_FLEET_H

#include <stdio.h>

#include "analysis.h"

#define GS_FLEET_SHIFTS 32
#define GS_FLEET_TOP 10      /* shared stretches listed (longest first) */

typedef struct gs_fleet_device {
    int32_t device, process;
    double util, idle_s;       /* as the analysis has them */
    double own_s;              /* idle outside shared stretches (idle_s - the fleet's shared_s) */
    double own_cause_s[GS_CAUSE_COUNT];   /* own_s by cause */
    gs_cause own_top;          /* top of own_cause_s (GS_CAUSE_OTHER when none) */
    double own_top_share;      /* of own_s */
} gs_fleet_device;

typedef struct gs_fleet_stretch {
    int64_t start_ns, end_ns;  /* every device idle */
    gs_cause cause[8];         /* per device (first 8): the cause with most time in it */
    /* What every device's cause has in common: the cause's name when they
     * are one cause, else their family when they share one, else NULL. */
    const char *common;
} gs_fleet_stretch;

typedef struct gs_fleet {
    size_t n_dev;
    gs_fleet_device *dev;      /* in the analysis's device order */
    size_t slowest;            /* index into dev: lowest util */
    int64_t window_start_ns, window_end_ns;   /* every device's span runs; empty: none */
    double aligned_s;          /* every device idle, in the window */
    double chance_s;           /* the mean of that over the shifted versions */
    double chance_max_ms;      /* the longest stretch of any shifted version */
    double shared_s;           /* in shared stretches (every device idle in all of it) */
    size_t n_shared;           /* shared stretches */
    gs_fleet_stretch top[GS_FLEET_TOP];   /* the longest shared ones */
    size_t n_top;
} gs_fleet;

/* NULL in *out (and GS_OK) when the analysis has fewer than 2 devices with
 * operations.  GS_ERR_NOMEM. */
gs_status gs_fleet_analyze(gs_fleet **out, const gs_analysis *a, gs_err *err);
void gs_fleet_destroy(gs_fleet *f);
/* One sentence: shared idle or not, the slowest device and why. */
void gs_fleet_verdict(char *buf, size_t n, const gs_fleet *f);
/* summary.json's "fleet" object (diag/README.md, "Fleet view"); times in
 * seconds since t0_ns; labels from meta process.<k>.label of tl. */
void gs_fleet_write_json(FILE *out, const gs_fleet *f, const gs_timeline *tl, int64_t t0_ns);

#endif
