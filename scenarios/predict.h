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

typedef struct gs_util_summary gs_util_summary;

#define GS_PREDICT_MAX_CAPTURES 16
#define GS_PREDICT_MAX_REPS 64
/* Run-to-run spread of the host's speed when no repeats tell it: the
 * synthesis demand of the same 30 partitions across the five H200
 * captures of build eaf73a43535e with 4..12 synthesis threads
 * (traces/h200-g2dev*) has sd 11.5% of its mean; the threads' placement
 * on unequal vCPUs (drawn separately, about 4.5% with 6 threads) leaves
 * 10.6%. */
#define GS_PREDICT_HOST_SD 0.106
/* Half a point: the changed and the unchanged run of one model differ by
 * 0.0-0.1 points when the change binds nothing (H100 r3s3: queue_depth 4,
 * prep inline, trim after unlock, staging direct on base-3's model). */
#define GS_PREDICT_NO_EFFECT 0.005
/* Replicates by default (gapscope predict --reps). */
#define GS_PREDICT_REPS 5
/* A machine profile whose two lone passes over the vCPUs differ by this
 * much or more on average was measured on a moving host: its contention
 * curves hold the neighbours' load as much as the stages', and the
 * interval spans the same prediction with ideal sharing in their place.
 * The committed profiles split there: the steady hosts' 0.7-7.3%
 * (h100-r3s11 a, b, r3s12 d, e, r3s15 a; their synthesis curves within
 * 12% of flat), the moving hosts' 10.9-28.6% (r3s10, r3s11 c, r3s12 a-c,
 * r3s14, r3s4, r3s6, h200-r3s17: curves that rise to 1.39x one thread's
 * speed or fall to 0.61x where the captures show neither; model/MODEL.md
 * 7.10). */
#define GS_PREDICT_PROFILE_MOVING 0.10

/* A prediction's interval (predict_interval.c says how). */
typedef struct gs_prediction {
    double point, lo, hi;           /* GPU util, 0..1 */
    double residual;                /* reproduction error of the first capture */
    double host_sd;                 /* host-speed spread the replicates drew */
    double captured, captured_sd;   /* the captures' util (mean, sd) before the changes */
    int n_captures;
    double rep[GS_PREDICT_MAX_REPS];
    int n_rep;
    double cause_agree;             /* share of replicates with the point's top cause */
    /* With --set changes: the first capture's model run unchanged, and
     * the changes' effect on it (its changed prediction less that run's
     * util).  A change the modelled run does not feel (|effect| under
     * GS_PREDICT_NO_EFFECT) predicts the capture's own utilization: what
     * a run of it shows beyond that is the host's run-to-run speed. */
    int has_effect;
    double unchanged, effect;
    /* The profile's drift (gs_model_profile_drift; -1: none), and with a
     * moving one (>= GS_PREDICT_PROFILE_MOVING) the prediction with ideal
     * sharing in its curves' place, which the interval spans too. */
    double profile_drift;
    /* The capture's host against the profile's (gs_model_profile_level;
     * NAN unknown; prediction.profile_level).  Said, not used: on the one
     * committed set it would change (h200-r3s3, a profile without the
     * vCPU map), spanning ideal sharing as for a drift only raised upper
     * bounds, 86.7 -> 92.9 for base-1, and left its one value outside
     * (synth4, below) outside. */
    double profile_level;
    int has_ideal;
    double ideal;
    char cause[48];
    double share;
} gs_prediction;

typedef struct gs_predict_opts {
    const char *capture;
    const char *const *repeats; /* more captures of the same setting (may be NULL) */
    int n_repeats;
    const char *borrow;         /* another capture lending the stages CAPTURE lacks, or NULL */
    const char *profile;        /* machine profile (NULL: CAPTURE_DIR/machine-profile.json if present) */
    const char *const *sets;    /* section.key=value overrides */
    int n_sets;
    int reps;                   /* replicates of the interval */
    gs_prediction *interval;    /* NULL: the point prediction only; else filled, and the
                                   run directory's timeline carries prediction.* */
    gs_run_opts run;            /* out_dir, quiet, no_report, no_charts */
} gs_predict_opts;

/* Fits the capture's model and runs its (changed) scenario on it; with
 * o->interval also the interval's runs. */
gs_status gs_scn_predict(const gs_predict_opts *o, gs_run_result *res, gs_err *err);
/* The folder of capture c's spans ("." for a bare file name): where
 * calibrate --capture writes the profile predict finds. */
void gs_predict_capture_dir(char *out, size_t cap, const gs_capture *c);
/* The profile a prediction of capture c uses (out "" for none). */
void gs_predict_profile_path(char *out, size_t cap, const gs_predict_opts *o, const gs_capture *c);
/* The interval around point (the first capture's prediction of s on m):
 * runs repeats, the reproduction and the replicates in a scratch
 * directory.  m's replicate state is restored. */
gs_status gs_predict_interval(gs_prediction *out, const gs_predict_opts *o, gs_model *m, const gs_scenario *s,
                              const gs_util_summary *point, gs_err *err);
/* What the --set changes did on the capture's own model, in words (""
 * without an effect): the CLI's "change:" line and, through
 * prediction.change, the report's. */
void gs_prediction_change_text(char *out, size_t cap, const gs_prediction *p);
/* The words on the profile's level beyond GS_MODEL_PROFILE_LEVEL ("" when
 * within or unknown), which predict prints and the report's summary says
 * (prediction.profile_moved). */
void gs_prediction_level_text(char *out, size_t cap, const gs_prediction *p);
/* Adds p as prediction.* metadata to a run directory's spans.csv
 * (prediction.change: gs_prediction_change_text). */
gs_status gs_prediction_write_meta(const gs_prediction *p, const char *spans_csv, gs_err *err);

/* GPU utilization and top idle cause of a timeline (diag's analysis):
 * util 0..1, cause name, its share of the idle time 0..1. */
struct gs_util_summary {
    double util, idle_s, span_s, share;
    char cause[48];
};
gs_status gs_util_summary_of(gs_util_summary *out, const char *spans_csv, gs_err *err);
/* The same from a finished run's analysis fields. */
void gs_util_summary_of_run(gs_util_summary *out, const gs_run_result *r);

#endif
