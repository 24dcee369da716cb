/*
 * Run directories of several processes or hosts joined into one
 * (`gapscope merge DIR... --out DIR`): their timelines on the first one's
 * clock (timeline/merge.h: anchors, offsets, error bound), lanes and
 * devices renumbered, each capture a process of the merged timeline, and
 * their jobs.  The merged directory is an ordinary run directory: analyse,
 * report, gate or export it as any other (its report has the fleet view,
 * fleet.h).
 */
#ifndef GS_DIAG_MERGE_H
#define GS_DIAG_MERGE_H

#include "../timeline/tl_merge.h"

#define GS_MERGE_MAX 64

typedef struct gs_merge_opts {
    const char *dirs[GS_MERGE_MAX];      /* run directories (or spans.csv paths) */
    const char *labels[GS_MERGE_MAX];    /* NULL: the directory's name (made unique) */
    int has_offset[GS_MERGE_MAX];        /* 1: offsets[k] given, no alignment */
    int64_t offsets[GS_MERGE_MAX];       /* ns added to capture k's times */
    size_t n;                            /* 2 .. GS_MERGE_MAX */
    int same_clock;                      /* captures without anchors share the first's clock */
} gs_merge_opts;

typedef struct gs_merge_result {
    gs_tl_align align[GS_MERGE_MAX];     /* per capture (0: the reference) */
    char label[GS_MERGE_MAX][64];
    int64_t error_ns;                    /* the largest bound; -1 unbounded or unknown */
    size_t spans, lanes;
} gs_merge_result;

/* Writes out_dir/spans.csv (and jobs.csv when every capture has one).
 * Errors: GS_ERR_ARG (bad options; a capture that cannot be aligned: the
 * message names it and says what would), GS_ERR_FORMAT / GS_ERR_IO from
 * the readers naming file and line, GS_ERR_RANGE, GS_ERR_NOMEM. */
gs_status gs_run_merge(gs_merge_result *res, const char *out_dir, const gs_merge_opts *o,
                       gs_err *err);

#endif
