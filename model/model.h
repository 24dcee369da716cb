/*
 * The machine model: fitted from a captured timeline, it says how long
 * every unit of work of a partition takes, so the real engine can run a
 * capture's scenario (or a changed one) in modelled time (gapscope
 * predict, backend = model; the method is in model/MODEL.md).
 *
 * Stages.  Each stage is a unit of work with a place and a cost:
 *   device  KERNEL/COPY stages of a prove (h2d, ntt, msm_*, d2h, ...):
 *           seconds of device time per partition (a stage's spans of one
 *           partition added up)
 *   cpu     host work that competes for the cores (synth, host_prep,
 *           handoff, msm_b2 on the CPU, epilogue, buffer_release,
 *           process_result, malloc_trim, assemble, verify): CPU demand in
 *           core-seconds, and how many threads it can use (1, or the
 *           backend pool's width for the CPU G2 MSM)
 *   fixed   work whose length does not depend on the CPU's load (key
 *           setup, B2 upload, the host part of prove_start): seconds
 * A stage's cost is kept per (job kind, log2 size) point: every captured
 * instance (job, partition, value), their median, 10th and 90th
 * percentiles; across two or more sizes a least-squares fit
 * log2(value) = a + b * log2(size).  CPU demand is the span's measured CPU
 * time (cpu_ns, GS_SPAN_F_CPU) when the capture has it, else inferred: the
 * core-seconds the span would have received on the captured machine under
 * processor sharing with the CPU spans around it (model.c says how); the
 * model records which, and what else it assumed.
 *
 * Queries (gs_model_cost) answer a stage for a partition: the instance's
 * own captured value when (kind, size, job, partition) was captured, else
 * a value drawn from the point's instances by a seeded hash of (seed,
 * stage, job, partition) (deterministic), else scaled from the nearest
 * captured size: by the fit, or linearly in 2^size with one size (a query
 * without a size, log 0, as for a background trim, takes any captured
 * size's values).  A size
 * more than GS_MODEL_MAX_EXTRAP sizes (log2) from every captured one is
 * refused, as is a stage the capture lacks (GS_ERR_UNSUPPORTED naming
 * both).  A kind that was not captured borrows the values of a captured
 * kind at that size (every kind runs the same circuit family in this
 * engine), and says so in gs_model_notes.
 *
 * The old device-only interface (gs_model_stage_s and friends) answers
 * from the same fit.
 *
 * Ownership: gs_model_load allocates, gs_model_destroy frees.  A loaded
 * model is read-only: queries are thread safe.
 */
#ifndef GS_MODEL_H
#define GS_MODEL_H

#include <stdint.h>
#include <stdio.h>

#include "../common/status.h"
#include "../prover/groth16/backend.h"

#define GS_MODEL_PAGEABLE_FACTOR 6.9
/* Farthest a query may be from a captured size (log2): 4x the work. */
#define GS_MODEL_MAX_EXTRAP 2

typedef enum { GS_WHERE_DEVICE, GS_WHERE_CPU, GS_WHERE_FIXED, GS_WHERE_COUNT } gs_model_where;
const char *gs_model_where_name(gs_model_where w);

typedef struct gs_model gs_model;

/* Fits a model from a spans.csv (a run directory's or a committed capture). */
gs_status gs_model_load(gs_model **out, const char *spans_csv, gs_err *err);
/* Adds to m every stage of the capture other_csv that m lacks (the CPU G2
 * MSM of a capture that ran it on the CPU, say), noting each in
 * gs_model_notes: a prediction then mixes two captures' costs. */
gs_status gs_model_borrow(gs_model *m, const char *other_csv, gs_err *err);
void gs_model_destroy(gs_model *m);

/* ---- the machine it was captured on ---- */
int gs_model_cores(const gs_model *m);          /* modelled CPU cores */
int gs_model_devices(const gs_model *m);        /* devices seen in the capture */
/* "NVIDIA H200 ... via traces/x.spans.csv" */
const char *gs_model_source(const gs_model *m);
/* Capture meta value (build.git_rev, host.cpu, scenario.engine.g2, ...), NULL if absent. */
const char *gs_model_meta(const gs_model *m, const char *key);
/* 1 when every CPU stage's demand was measured (cpu_ns), 0 when some was inferred. */
int gs_model_cpu_measured(const gs_model *m);
/* What the fit assumed, one sentence per line (NUL-terminated text). */
const char *gs_model_notes(const gs_model *m);

/* ---- stages ---- */
int gs_model_n_stages(const gs_model *m);
const char *gs_model_stage_at(const gs_model *m, int i, gs_model_where *where);
/* Index of stage (name, where), -1 when the capture lacks it. */
int gs_model_find(const gs_model *m, const char *name, gs_model_where where);
/* Threads a CPU stage can use (1 or the pool's width) and whether those
 * come from the backend's pool. */
int gs_model_stage_threads(const gs_model *m, int stage, int *pool);
/* Per-partition cost of stage i for a job of (kind, log) partition (job,
 * part): seconds (device, fixed) or core-seconds (cpu).  Per-job stages
 * (assemble, verify) are per partition of the job: multiply by its
 * partitions.  Errors: GS_ERR_UNSUPPORTED (size out of range) with detail. */
gs_status gs_model_cost(const gs_model *m, int stage, int kind, uint32_t log, int64_t job,
                        int32_t part, uint64_t seed, double *out, gs_err *err);
/* Device stages in device order (h2d first, d2h last), for a prove with
 * the G2 MSM on the device or not: fills names (at most cap), returns the
 * count. */
int gs_model_device_order(const gs_model *m, int g2_on_device, int *idx, int cap);
/* CPU threads a GPU worker keeps busy while its device stages run
 * (prove_start's CPU time over its wall time, 0..1; 0 without CPU times). */
double gs_model_device_spin(const gs_model *m);

/* The fit as a table on f (one line per stage and size: n, median, p10,
 * p90, fit error) and as documented JSON (model/MODEL.md). */
void gs_model_print(const gs_model *m, FILE *f);
gs_status gs_model_write_json(const gs_model *m, const char *path, gs_err *err);

/* ---- the device-only interface of the first model device ---- */
/* Modelled seconds per partition of device `stage` at 2^log_n (< 0: unknown). */
double gs_model_stage_s(const gs_model *m, const char *stage, uint32_t log_n, int pageable);
/* Device stages in device order, and how many. */
int gs_model_stage_count(const gs_model *m);
const char *gs_model_stage_name(const gs_model *m, int i);

/* The model backend (model_backend.c): every prove modelled on the
 * virtual clock (common/clock.h) from m: the device mutex, the
 * device stages at log_n = pk's log_domain + size_shift (MODELLED stages),
 * the CPU G2 MSM or the device one as opts->g2_on_device says, the
 * epilogue as CPU work.  No arithmetic: proofs are all-zero.  pool: the
 * virtual clock's pool id of this device's CPU threads. */
gs_status gs_backend_model_create(gs_backend **out, const gs_model *m, int device,
                                  int size_shift, int pool, uint64_t seed, gs_err *err);

#endif
