/*
 * Predictions from a capture (scenarios/predict.c): `gapscope predict`
 * and `gapscope sweep --predict`.
 */
#ifndef GS_SCN_PREDICT_H
#define GS_SCN_PREDICT_H

#include "../model/model.h"
#include "run.h"
#include "scenario.h"

/* Where a capture's files are: spans.csv always; scenario.ini and
 * arrivals.jsonl when present ("" otherwise). */
typedef struct gs_capture {
    char spans[GS_SCN_PATH_MAX];
    char scenario[GS_SCN_PATH_MAX + 32];
    char arrivals[GS_SCN_PATH_MAX + 32];
} gs_capture;

/* path: a run directory, a spans.csv, or X.spans.csv with a directory X/. */
gs_status gs_capture_resolve(gs_capture *c, const char *path, gs_err *err);

/* The capture's scenario on its model (backend = model, its arrivals),
 * with sets applied and validated.  When the arrivals had to be rebuilt
 * from submit marks, tmp_trace names the temporary trace (the caller
 * unlinks it after the run); else it is "". */
gs_status gs_predict_scenario(gs_scenario **out, const gs_capture *c, const gs_model *m,
                              const char *const *sets, int nsets, char *tmp_trace, size_t cap,
                              int quiet, gs_err *err);

typedef struct gs_predict_opts {
    const char *capture;
    const char *borrow;         /* another capture lending the stages CAPTURE lacks, or NULL */
    const char *const *sets;    /* section.key=value overrides */
    int n_sets;
    gs_run_opts run;            /* out_dir, quiet, no_report, no_charts */
} gs_predict_opts;

/* Fits the capture's model and runs its (changed) scenario on it. */
gs_status gs_scn_predict(const gs_predict_opts *o, gs_run_result *res, gs_err *err);

/* GPU utilization and top idle cause of a timeline (diag's analysis):
 * util 0..1, cause name, its share of the idle time 0..1. */
typedef struct gs_util_summary {
    double util, idle_s, span_s, share;
    char cause[48];
} gs_util_summary;
gs_status gs_util_summary_of(gs_util_summary *out, const char *spans_csv, gs_err *err);
/* The same from a finished run's analysis fields. */
void gs_util_summary_of_run(gs_util_summary *out, const gs_run_result *r);

#endif
