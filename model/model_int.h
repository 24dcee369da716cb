/*
 * The machine model's internals, shared by its files (model.c: the fit;
 * model_query.c: queries; model_print.c: the table and model.json;
 * model_sched.c: a prove's device schedule; model_speed.c: host
 * contention).  Nothing outside model/ includes it.
 */
#ifndef GS_MODEL_INT_H
#define GS_MODEL_INT_H

#include <stddef.h>
#include <stdint.h>

#include "../common/imap.h"
#include "../timeline/timeline.h"
#include "model.h"

#define MAX_STAGES 64
#define MAX_POINTS 32
#define MAX_META 256

typedef struct inst {
    int64_t job;
    int32_t part;
    double v;       /* device/fixed seconds, cpu core-seconds (after inference) */
    double wall;    /* the span's own seconds (cpu and fixed stages) */
    int act;        /* activity index (cpu), -1 */
    /* A staging gap (model_staging.c): its worker's lane, its captured
     * interval and the runnable threads over it. */
    int32_t lane;
    int64_t t0, t1;
    double tload;
} inst;

typedef struct point {
    int kind;       /* gs_job_kind, -1 unknown */
    uint32_t log;   /* 0: size unknown */
    inst *in;
    size_t n, cap;
    gs_imap ix;     /* (job, part) -> its index in in, for job >= 0 (the fit's lookups) */
    double *sorted;
    double median, p10, p90, wall_median;
} point;

typedef struct stage {
    char name[40];
    gs_model_where where;
    int pageable;
    int threads, pool, per_job, emergent;
    int n_measured, n_inferred;
    point pt[MAX_POINTS];
    int n_pt;
    int has_fit;
    double a, b, fit_err;
    double ps_err;   /* cpu: median |inferred / measured - 1|, -1 unknown */
    int rank;
    /* Device stages: where they ran in a prove (model_sched.c): the
     * stream, the stage of another stream they waited for (the name
     * most partitions showed, "" none) and their mean offset from the
     * prove's start (the replay order). */
    int stream;
    char dep[40];
    int dep_n;
    double off_sum;
    int off_n;
    /* CPU stages: the speed class of the contention model (model_speed.c). */
    int speed_class;
    /* Fixed stages: the host staging before a prove's first copy (its
     * values uncontended wall time, model_staging.c). */
    int staging;
    /* Lent by the machine profile (gs_mi_profile_lend), not captured: a
     * capture's measurement of the stage (gs_model_borrow) replaces it. */
    int lent;
} stage;

/* Sizes of one (kind, log) partition: witness wires and domain (from the
 * host_prep and synth spans' args), for the staging copies' bytes. */
typedef struct size_rec {
    int kind;
    uint32_t log;
    uint64_t n_vars, domain;
} size_rec;
#define MAX_SIZES 16

/* How a CPU stage's speed falls as runnable threads grow (model_speed.c):
 * speed(T) = 1 / (1 + beta * (T - 1) / cores) from the capture, or a
 * table of (T, speed) from a machine profile; speed(1) = 1. */
#define GS_SPEED_PTS 24
#define GS_SPEED_LANES 64
typedef struct speed_curve {
    int source;                  /* GS_SPEED_SRC_* */
    double beta, beta_se;        /* capture fit */
    double t_lo, t_hi;           /* the capture's range of T (fit or not) */
    int n_pts;                   /* profile table */
    double pt_t[GS_SPEED_PTS], pt_s[GS_SPEED_PTS];
    double lane_f[GS_SPEED_LANES]; /* per-thread speed factors (mean 1) */
    int n_lane;
    double lane_cv;              /* their spread (profile: at T = cores) */
} speed_curve;
/* GS_SPEED_SRC_PROFILE_OFF: a profile's curve set aside (gs_model_profile_curves):
 * ideal sharing until it is put back. */
enum { GS_SPEED_SRC_NONE, GS_SPEED_SRC_CAPTURE, GS_SPEED_SRC_PROFILE, GS_SPEED_SRC_PROFILE_OFF };

struct gs_model {
    stage st[MAX_STAGES];
    int n;
    int cores, devices;
    double spin, spin_fit;   /* the worker's device spin: in effect, and as fitted */
    int cpu_measured;
    char source[400];
    char notes[2048];
    char *meta_k[MAX_META], *meta_v[MAX_META];
    int n_meta;
    size_rec sizes[MAX_SIZES];
    int n_sizes;
    int staging;             /* the capture's staging, GS_MODEL_STAGING_* */
    int copy_threads;        /* scenario.gpu.copy_threads, 0 unknown */
    double copy_gbps;        /* host copy into pinned memory, GB/s (profile), 0 unknown */
    double pin_gbps;         /* page-locking a pool buffer, GB/s, 0 unknown */
    double slice_s;          /* staging's scheduler slice beyond the cores, s (model_staging.c) */
    speed_curve speed[GS_MODEL_SPEED_CLASSES];
    speed_curve prof[GS_MODEL_SPEED_CLASSES]; /* the machine profile's, source NONE without */
    char profile[400];       /* its path, "" none */
    gs_profile prof_data;    /* the profile as read (valid when profile[0]) */
    /* Replicate draws (gs_model_replicate): per class a factor on every
     * CPU demand, and draws instead of the captured partitions' values. */
    double scale[GS_MODEL_SPEED_CLASSES];
    int draw;
    /* Placement (model_speed.c, gs_mi_placement): with a profile's vCPU
     * map and a capture whose synthesis spans say their vCPU, the
     * synthesis demand is put at the host's mean vCPU; placed: how many
     * instances, place_f: the captured vCPUs' mean speed relative to a
     * thread on a vCPU drawn at random (1 = average placement). */
    int placed;
    double place_f;
    /* The host's speed in the capture against the profile's (profile_level
     * in model_speed.c): the median over the capture's measured synthesis
     * steps at the profile's size of their CPU over the profile's CPU per
     * unit at the same runnable threads, less 1; NAN unknown. */
    double level;
};

/* A CPU instance's span for the inference. */
typedef struct act {
    int64_t t0, t1;
    double threads;
    int pool;
    double th;       /* threads granted in the step infer_cpu is at */
    double inferred;
    int measured;
    double cpu;
    double tload;    /* runnable threads x seconds over the span (the inference's T) */
    double wsh, wsp; /* its share x seconds, and that times the speed there (infer_cpu with a model) */
    int cls, lane;   /* speed class (model_speed.c), the span's lane */
    int stage;       /* its stage's index */
    int vcpu0, vcpu1; /* the vCPU a synthesis started and ended on (args cpu, cpu_end), -1 unknown */
} act;

typedef struct job_rec {
    int64_t id;
    int kind;
    uint32_t log, parts;
} job_rec;

typedef struct fitctx {
    gs_model *m;
    job_rec *jobs;
    size_t n_jobs, cap_jobs;
    gs_imap job_ix;    /* job id -> its index in jobs */
    gs_imap tail_ix[3]; /* (job, part) -> its first prove_finish, epilogue, msm_b2 step's span */
    act *acts;
    size_t n_acts, cap_acts;
    uint32_t default_log;
    int64_t *ev_t;     /* infer_cpu's sweep: the acts' ends in time order (2 n_acts) */
    size_t *ev_order;  /* and the acts by start time; built by its first call */
    size_t *ps_ix, n_ps; /* the GPU workers' prove_start spans by end time (handoff_release) */
} fitctx;

/* The fit's working state (model_fitctx.c).  A (job, partition) as one
 * map key. */
static inline int64_t gs_mi_job_part_key(int32_t job, int32_t part)
{
    return (int64_t)((uint64_t)(uint32_t)job << 32 | (uint32_t)part);
}
/* The job of id (from its submit or job_queued mark), or NULL. */
job_rec *gs_mi_job_find(fitctx *c, int64_t id);
/* Notes the job of mark s (kind, size, partitions) once; 0 when out of memory. */
int gs_mi_job_note(fitctx *c, const gs_span *s);
/* Indexes each (job, part)'s first prove_finish, epilogue and msm_b2 step
 * (tail_ix, initialized by the caller); 0 when out of memory. */
int gs_mi_tails_index(fitctx *c, const gs_span *sp, size_t n);
/* The (job, part)'s first tail step k (0 prove_finish, 1 epilogue, 2
 * msm_b2) of the spans sp indexed, or NULL. */
const gs_span *gs_mi_tail_find(const fitctx *c, const gs_span *sp, int k, int32_t job, int32_t part);
/* Processor sharing backwards over c->acts on cores (with m: the speed
 * each act ran at); 0 when out of memory. */
int gs_mi_infer_cpu(fitctx *c, int cores, const gs_model *m);
/* When the device mutex that wait w (on device) was released: the latest
 * end inside w of another GPU worker's prove_start on that device; -1
 * when none, -2 when out of memory. */
int64_t gs_mi_handoff_release(fitctx *c, const gs_timeline *tl, const gs_span *sp, size_t n,
                              const gs_span *w, int device);
/* Frees what c holds (not c). */
void gs_mi_fitctx_free(fitctx *c);

/* Fit helpers (model.c). */
double gs_mi_pct(const double *v, size_t n, double q);
const char *gs_mi_arg_str(const char *args, const char *key, char *buf, size_t cap);
uint32_t gs_mi_arg_uint(const char *args, const char *key);
stage *gs_mi_stage_get(gs_model *m, const char *name, gs_model_where where, int pageable);
/* The instance of (job, part) at point p (job >= 0), or NULL. */
inst *gs_mi_inst_find(const point *p, int64_t job, int32_t part);
inst *gs_mi_inst_add(stage *s, int kind, uint32_t log, int64_t job, int32_t part);
void gs_mi_note(gs_model *m, const char *fmt, const char *a, const char *b);
const char *gs_mi_kind_name(int k);
void gs_mi_size_note(gs_model *m, int kind, uint32_t log, uint64_t n_vars, uint64_t domain);
const size_rec *gs_mi_size_find(const gs_model *m, int kind, uint32_t log);

/* Contention (model_speed.c): the class of a CPU stage; the fit of every
 * class's curve from the measured acts (then the profile's, else none),
 * with notes; the factor g(T) = 1 / speed(T) that normalizes an
 * instance's demand to one thread's speed. */
int gs_mi_speed_class(const char *stage_name);
void gs_mi_speed_fit(fitctx *c);
/* The profile's level against the capture's (m->level; a note when they
 * differ by more than GS_MODEL_PROFILE_LEVEL): after summarize, from the
 * measured synthesis instances at the profile's size. */
void gs_mi_profile_level(gs_model *m, const fitctx *c);
double gs_mi_slowdown(const gs_model *m, int cls, double runnable);
/* A synthesis instance's factor to the host's mean vCPU: its vCPU's speed
 * (the profile's map, at its runnable threads' share of the cores) times
 * E[1/speed] over the host's vCPUs; 1 without a map, without the span's
 * vCPU or for another class.  Counts it in m->placed, m->place_f. */
double gs_mi_placement(gs_model *m, const act *a);
/* A map is used only when the vCPUs differ more than the map's two lone
 * passes do (drift < GS_MAP_STEADY x the vCPUs' spread): else what it
 * shows is the host's load moving while it was measured, not vCPUs. */
#define GS_MAP_STEADY 0.5
int gs_mi_map_steady(const gs_profile *p);
/* Reads the profile at path into m's profile curves and rates (model_profile.c).
 * After the fit, gs_mi_profile_lend adds the CPU G2 MSM (msm_b2, cpu) when
 * the capture ran it on the device only and the profile timed it (0 out
 * of memory). */
int gs_mi_profile_lend(gs_model *m);
/* Takes back the lent stage k (its points freed, its note dropped) for a
 * capture's measurement to take its place (gs_model_borrow). */
void gs_mi_profile_unlend(gs_model *m, int k);
gs_status gs_mi_profile_apply(gs_model *m, const char *path, gs_err *err);

/* The staging class's speed of a copy that took wall w beside T runnable
 * threads, against w0 at T0 (the class's first row), on C cores: its
 * work per second beyond fair sharing, w0 share(T0) / (w share(T)),
 * share(T) = min(1, C / T).  calibrate writes it into each row and the
 * model derives it again from the rows' pooled walls (model_profile.c). */
static inline double gs_mi_wall_speed(double w0, double t0, double w, double t, double cores)
{
    double s0 = t0 > cores ? cores / t0 : 1.0, s = t > cores ? cores / t : 1.0;
    return w0 * s0 / (w * s);
}

/* The host staging before a prove's first copy (model_staging.c): the
 * copy's threads for a copy of bytes; after the speed fit, each staging
 * gap's runnable threads, the staging class's curve from the capture when
 * it tells, and the gaps made uncontended wall time (0 out of memory). */
int gs_mi_staging_threads(const gs_model *m, double bytes);
int gs_mi_staging_fit(fitctx *c, const gs_span *sp, size_t n);
/* gapscope calibrate's staging class (calibrate_staging.c): a staging
 * copy of 32 x 2^p->log bytes timed beside 0, 2, 4, ... busy synthesis
 * threads of circuit c (keys pk), up to the ladder lad[0..nl)'s top (a
 * wider even step where that makes more than 24 rows), into
 * p->cls[GS_SPEED_STAGING]. */
typedef struct gs_circuit gs_circuit;
/* One staging copy of len bytes split over k threads (1..64), the
 * caller one of them, the others forked and joined as the CUDA backend
 * does: its wall seconds. */
double gs_mi_staging_copy(char *dst, const char *src, size_t len, int k);
gs_status gs_mi_calibrate_staging(gs_profile *p, const gs_circuit *c, const gs_pk *pk, const int *lad, int nl,
                                  int cpus, int quiet, gs_err *err);
/* Busy synthesis threads of circuit c (keys pk), each synthesizing
 * partitions until freed (checked between partitions), for calibrate's
 * measurements beside them.  grow: up to `want` running (never fewer);
 * 0 when a thread could not start (count says how many run).  free:
 * stops and joins them. */
typedef struct gs_mi_synth_bg gs_mi_synth_bg;
gs_mi_synth_bg *gs_mi_synth_bg_new(const gs_circuit *c, const gs_pk *pk);
int gs_mi_synth_bg_grow(gs_mi_synth_bg *b, int want);
int gs_mi_synth_bg_count(const gs_mi_synth_bg *b);
void gs_mi_synth_bg_free(gs_mi_synth_bg *b);

/* The schedule of one prove_start (span index i; model_sched.c): gap
 * stages, the tail (prove_host), streams and dependencies.  0 when out of
 * memory. */
int gs_mi_sched_fit(fitctx *c, gs_timeline *tl, const gs_span *sp, size_t n, size_t i, int kind,
                    uint32_t log);

#endif
