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

#include "../timeline/timeline.h"
#include "model.h"

#define MAX_STAGES 48
#define MAX_POINTS 32
#define MAX_META 256

typedef struct inst {
    int64_t job;
    int32_t part;
    double v;       /* device/fixed seconds, cpu core-seconds (after inference) */
    double wall;    /* the span's own seconds (cpu and fixed stages) */
    int act;        /* activity index (cpu), -1 */
} inst;

typedef struct point {
    int kind;       /* gs_job_kind, -1 unknown */
    uint32_t log;   /* 0: size unknown */
    inst *in;
    size_t n, cap;
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
} stage;

struct gs_model {
    stage st[MAX_STAGES];
    int n;
    int cores, devices;
    double spin;
    int cpu_measured;
    char source[400];
    char notes[2048];
    char *meta_k[MAX_META], *meta_v[MAX_META];
    int n_meta;
};

/* A CPU instance's span for the inference. */
typedef struct act {
    int64_t t0, t1;
    double threads;
    int pool;
    double inferred;
    int measured;
    double cpu;
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
    act *acts;
    size_t n_acts, cap_acts;
    uint32_t default_log;
} fitctx;

/* Fit helpers (model.c). */
int gs_mi_cmp_d(const void *x, const void *y);
double gs_mi_pct(const double *v, size_t n, double q);
const char *gs_mi_arg_str(const char *args, const char *key, char *buf, size_t cap);
uint32_t gs_mi_arg_uint(const char *args, const char *key);
stage *gs_mi_stage_get(gs_model *m, const char *name, gs_model_where where, int pageable);
inst *gs_mi_inst_add(stage *s, int kind, uint32_t log, int64_t job, int32_t part);
void gs_mi_note(gs_model *m, const char *fmt, const char *a, const char *b);
const char *gs_mi_kind_name(int k);

#endif
