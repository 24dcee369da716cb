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
 *           setup, B2 upload, a prove's host gaps gap:<stage> and tail
 *           prove_host, a staging pool buffer pin): seconds
 * A prove's device stages keep their streams and the stage of another
 * stream each waited for (the schedule, gs_model_prove_plan).  CPU
 * demand is stored at one thread's speed: each speed class's slowdown
 * with the runnable threads (host contention, from the capture or a
 * machine profile: gs_model_speed) divides it out.
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
/* Speed classes of CPU stages (host contention, model_speed.c): synthesis,
 * host prep, the CPU G2 MSM (a pool task), everything else; and the host
 * staging before a prove's first copy (model_staging.c), no CPU step's. */
enum { GS_SPEED_SYNTH, GS_SPEED_HOST_PREP, GS_SPEED_MSM_B2, GS_SPEED_OTHER, GS_SPEED_STAGING,
       GS_MODEL_SPEED_CLASSES };
const char *gs_model_speed_class_name(int cls);
const char *gs_model_where_name(gs_model_where w);

typedef struct gs_model gs_model;

/* Fits a model from a spans.csv (a run directory's or a committed capture). */
gs_status gs_model_load(gs_model **out, const char *spans_csv, gs_err *err);
/* The same with a machine profile (gapscope calibrate; NULL: none): its
 * contention curves serve every class the capture cannot tell, its copy
 * and page-locking rates the staging changes (model_profile.c). */
gs_status gs_model_load_profiled(gs_model **out, const char *spans_csv, const char *profile,
                                 gs_err *err);
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
/* Speed class of a CPU stage (GS_SPEED_*), -1 for other stages. */
int gs_model_stage_class(const gs_model *m, int stage);
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
/* A run with the GPU workers asleep while their devices work (gpu.host_sync
 * = block): gs_model_device_spin() 0 until called again with 0, which
 * gives the fitted spin back.  From a capture that slept itself
 * (scenario.gpu.host_sync = block) the fitted spin is the asleep worker's
 * CPU, and it stays. */
void gs_model_set_worker_sleeps(gs_model *m, int sleeps);

/* Bytes of one staging buffer of a (kind, log) partition (witness and
 * a, b, c) and the rate a pool buffer is page-locked at, GB/s (the
 * machine profile's, else GS_MODEL_PIN_GBPS). */
double gs_model_pin_bytes(const gs_model *m, int kind, uint32_t log);
double gs_model_pin_gbps(const gs_model *m);
/* engine.g2 = cpu predicted from a capture that ran the G2 MSM on the
 * device: the CUDA backend's copy of the witness for the CPU G2 MSM
 * (fresh memory, one thread, inside prove_start while the device works),
 * seconds of one thread at the profile's state_copy_gbps; 0 when the
 * capture ran g2 = cpu (its own prove_host holds it) or no profile
 * measured the rate. */
double gs_model_state_copy_s(const gs_model *m, int kind, uint32_t log);
/* The same copy's wall seconds while a CPU G2 MSM runs beside `synth`
 * busy synthesis threads (the profile's state_copy_synth rows,
 * interpolated linearly and held flat outside; without them its
 * state_copy_busy_gbps); 0 when not measured or when
 * gs_model_state_copy_s is 0. */
double gs_model_state_copy_busy_s(const gs_model *m, int kind, uint32_t log, double synth);
/* Synthesis threads in modelled CPU work at this moment of the model run
 * (model_work.c). */
int gs_model_synth_busy(void);

/* ---- a prove's device schedule (model_sched.c) ---- */
typedef enum { GS_MODEL_STAGING_PINNED, GS_MODEL_STAGING_PAGEABLE, GS_MODEL_STAGING_DIRECT,
               GS_MODEL_STAGING_COUNT } gs_model_staging_kind;
/* "pinned", "pageable", "direct". */
const char *gs_model_staging_name(int staging);
/* The staging the capture ran (its scenario.engine.staging; pinned when absent). */
int gs_model_staging(const gs_model *m);
#define GS_MODEL_PLAN_MAX 24
#define GS_MODEL_MAX_STREAMS 4
/* A staging gap dropped to a launch: the H200 capture with staging =
 * direct (traces/h200-backlog-s12-direct) starts h2d_w 40 us after the
 * base. */
#define GS_MODEL_LAUNCH_S 40e-6
/* Page-locking a staging pool's buffer when neither the capture (stage
 * pin) nor a machine profile times it: 16 buffers of 2^20 (2 GiB) in
 * 0.95 s on the H200 host (traces/h200-backlog-s12-direct). */
#define GS_MODEL_PIN_GBPS 2.26
/* Threads of a staging copy when the capture does not say
 * (scenario.gpu.copy_threads): the CUDA backend's default. */
#define GS_MODEL_COPY_THREADS 8
typedef struct gs_model_prove_q {
    int kind;                 /* gs_job_kind, -1 unknown */
    uint32_t log;
    int64_t job;
    int32_t part;
    uint64_t seed;
    int g2_on_device;
    int staging;              /* the predicted run's gs_model_staging_kind */
    double stream_speed[GS_MODEL_MAX_STREAMS]; /* what-if: stream s runs this many times
                                                  faster (0: as captured) */
} gs_model_prove_q;
typedef struct gs_model_plan {
    int n;
    int stage[GS_MODEL_PLAN_MAX];     /* device stage index */
    int stream[GS_MODEL_PLAN_MAX];
    int pageable[GS_MODEL_PLAN_MAX];
    double t0[GS_MODEL_PLAN_MAX], t1[GS_MODEL_PLAN_MAX]; /* seconds from the base */
    double device_end;                /* last stage's end */
    double witness_end;               /* the witness MSMs' (msm_l, msm_a, msm_b1) last end, 0 none */
    double total;                     /* + the prove's host tail */
    /* The host staging before the first stage (a pinned copy's): not in
     * t0/t1, the caller runs it first as CPU work of staging_threads
     * threads, class GS_SPEED_STAGING, lasting staging_s uncontended
     * (model_staging.c); 0 when none. */
    double staging_s;
    int staging_threads;
} gs_model_plan;
/* The device stages of one prove, timed from its base (after the device
 * mutex and the B2 upload): model_sched.c says how.  GS_ERR_UNSUPPORTED
 * when a stage cannot be answered (size out of range, a staging the
 * model cannot time), with detail. */
gs_status gs_model_prove_plan(gs_model_plan *out, const gs_model *m, const gs_model_prove_q *q,
                              gs_err *err);

/* ---- host contention and replicates (model_speed.c) ---- */
/* Work one core-second of class cls does with `runnable` threads wanting
 * the cores, relative to one thread alone (1: ideal sharing). */
double gs_model_speed(const gs_model *m, int cls, double runnable);
/* The wait a staging copy takes beyond its slowdown when it starts with
 * more runnable threads than cores, seconds (0: none; model_staging.c):
 * one scheduler slice when neither the capture nor the machine profile
 * timed such a copy. */
double gs_model_staging_slice_s(const gs_model *m);
/* Sets replicate r (1..n_reps) of a prediction's interval (0: the point
 * prediction, the captured values): every CPU demand of class k is
 * scaled by the inverse of a host speed (the normal quantile
 * 0.05 + 0.9 (r - 1) / (n_reps - 1) of sd host_sd) times the mean
 * per-thread speed of threads[k] threads drawn from the captured threads
 * (NULL: none); and every cost is drawn from its point's instances rather
 * than taken from the captured partition.  Not thread safe: set between
 * runs. */
void gs_model_replicate(gs_model *m, uint64_t r, uint64_t n_reps, const int *threads, double host_sd);
/* The spread (coefficient of variation) of the captured synthesis
 * threads' speeds, 0 when unknown. */
double gs_model_host_spread(const gs_model *m);
/* How far the machine profile's two lone passes over the vCPUs differed
 * (calibrate's drift, 0..1: the host's load moving while it was
 * measured); -1 without a profile or without its vCPU map. */
double gs_model_profile_drift(const gs_model *m);
/* How the host ran in the capture against the machine profile: the
 * capture's synthesis CPU per partition over the profile's at the same
 * runnable threads, less 1 (the median over the capture's measured
 * synthesis steps of the profile's size; +0.2: the capture's host ran 20%
 * slower).  NAN without a profile, its synthesis class, or measured
 * synthesis steps of its size.  Beyond GS_MODEL_PROFILE_LEVEL the host's
 * speed moved between calibrate and the capture (a shared VM's
 * neighbours), and the model notes it: of the 16 sets of round 3
 * (bench/RESULTS.md, round 3 session 19) the 7 within 10% had every
 * thread-count change within 3.2 points, 6 of the 9 beyond had one off by
 * more than 5. */
double gs_model_profile_level(const gs_model *m);
#define GS_MODEL_PROFILE_LEVEL 0.10
/* use 0: the contention curves the machine profile gave (the stages the
 * capture could not time) set aside, ideal sharing in their place; use 1:
 * put back.  Returns how many curves it switched.  Not thread safe: set
 * between runs. */
int gs_model_profile_curves(gs_model *m, int use);
/* What synthesis CPU costs at `threads` synthesis threads with staging
 * `direct` (1: into the pool's reused buffers; 0: pinned or pageable,
 * into fresh memory), relative to the capture's staging: the machine
 * profile's synth_reused ratio at the nearest measured count (or its
 * inverse from a direct capture to fresh memory); 1 when the staging
 * writes the same kind of memory or the profile has no such row
 * (*measured, may be NULL: 0 then, else 1). */
double gs_model_synth_staging_scale(const gs_model *m, int direct, int threads, int *measured);
void gs_model_print_speed(const gs_model *m, FILE *f);

/* ---- machine profile (model_profile.c, gapscope calibrate) ---- */
#define GS_PROFILE_CPUS 256
typedef struct gs_profile_class {
    int n;
    double threads[24], speed[24];   /* speed: one thread's work per core-second at T, 1 at T = 1 */
    double cpu_s[24];                /* mean CPU seconds per unit of work at T */
    double lane_cv;                  /* spread of the threads' speeds at the largest T */
} gs_profile_class;
typedef struct gs_profile {
    char host_cpu[160];
    int cores;
    uint32_t log;                    /* size of the calibration's work (log2 constraints) */
    uint32_t msm_log;                /* the CPU G2 MSM's points (log2) */
    gs_profile_class cls[GS_MODEL_SPEED_CLASSES];
    double copy_gbps, pin_gbps;      /* 0: not measured */
    double state_copy_gbps;          /* one thread's copy of the witness into fresh memory, 0 not measured */
    /* The same copy while the CPU G2 MSM runs on a pool of every CPU (the
     * finalizers' load when engine.g2 = cpu keeps them busy; 0 not
     * measured): on the H100 VMs it ran 10x slower than alone where the
     * processor's share would make it 1.5x (fresh memory's page faults
     * beside the MSM's own allocations). */
    double state_copy_busy_gbps;
    /* The same beside the MSMs and B synthesis threads of the engine's
     * circuit (row i: B = scs_synth[i], the copy's mean GB/s of 5; 0 rows:
     * not measured, state_copy_busy_gbps alone counts): in the H100
     * captures of round 3 session 6 the engine's copy beside 6 synthesis
     * threads took 2.3x and beside 12 3.2x what calibrate timed beside
     * the MSMs alone (36-56 ms against 17). */
    int scs_n;
    double scs_synth[24], scs_gbps[24];
    /* The staging class's copies read this many source buffers in turn
     * (256 MiB together: memory, as the engine's witness is); 1, and
     * every profile from before the field: one source, from the cache. */
    int staging_srcs;
    /* The staging copies' caller spun this long before each copy
     * (GS_CALIBRATE_STAGING_SPIN_MS, an A/B); 0: it slept 2 ms. */
    double staging_spin_ms;
    /* Synthesis at B threads beside one more thread in a busy loop, over
     * the same B alone, CPU per unit (row i: B = sbs_synth[i]; 0 rows: not
     * measured).  Beside a spinning GPU worker the engine's synthesis ran
     * ~18% slower at 12 threads on a 16-vCPU H100 (CPU = wall) and not at
     * 6 (traces/h100-r3s10-issue31): whether any busy core does that on
     * the machine is what this times: the median of 3 alone/beside pairs
     * in alternating order (profiles before round 3 session 11: one
     * pair).  On a steady H100 it is 0.99 and the spin costs nothing
     * (traces/h100-r3s11-issue31 a).  Not an input of predict yet. */
    int sbs_n;
    double sbs_synth[4], sbs_slow[4];
    /* Synthesis at B threads into buffers each thread reuses (staging =
     * direct's pool: written before, so no page faults) over the same B
     * synthesizing into fresh memory as pinned and pageable staging do,
     * CPU per unit: the median of 3 fresh/reused pairs in alternating
     * order (row i: B = sru_synth[i]; 0 rows: not measured, and every
     * profile before round 3 session 12).  On steady 16-vCPU H100 hosts
     * the engine's direct runs spent 3-5% less synthesis CPU per
     * partition than their pinned bases (traces/h100-r3s11-issue31 b,
     * h100-r3s12-issue31 d).  predict scales synthesis by it between a
     * capture's staging and direct (gs_model_synth_staging_scale). */
    int sru_n;
    double sru_synth[4], sru_ratio[4];
    char build[64];
    /* msm_b2's scalars: a witness of the engine's circuit on the wires
     * of its B matrix, the others zero (2, "witness_b": the engine's B2
     * points of the other wires are at infinity, which the MSM skips), on
     * every wire (1, "witness": calibrate before that; the model scales
     * it by the circuit's share of wires in B, gs_calibrate_b_share), or
     * uniform random ones (0: "random", and every profile from before
     * the field), which cost the MSM more. */
    int msm_witness;
    /* The vCPUs one by one (calibrate's map; n_cpus 0: not measured):
     * synthesis speed on each vCPU, relative to the mean vCPU's, alone
     * (mean of two passes) and with every vCPU busy; drift: the mean
     * difference between the two lone passes. */
    int n_cpus;
    double cpu_solo[GS_PROFILE_CPUS], cpu_loaded[GS_PROFILE_CPUS];
    double cpu_drift;
} gs_profile;
/* The spread (coefficient of variation) of the vCPUs' speeds: alone
 * (loaded 0) or all busy (1); 0 without a map. */
double gs_profile_cpu_spread(const gs_profile *p, int loaded);
gs_status gs_profile_write(const gs_profile *p, const char *path, gs_err *err);
gs_status gs_profile_read(gs_profile *p, const char *path, gs_err *err);
/* The CPU G2 MSM's demand (core-seconds at one thread's speed) for n
 * points from a profile's msm_b2 class: its one-thread time at 2^msm_log
 * points scaled as Pippenger's n / log2 n; 0 without that class. */
double gs_profile_msm_cs(const gs_profile *p, double n);
/* The profile a prediction uses: given, else "machine-profile.json" in
 * the capture's directory when present (out: "" none). */
void gs_profile_find(char *out, size_t cap, const char *given, const char *capture_dir);

/* Measures this host's profile (model/calibrate.c): synthesis of the
 * engine's circuit at 2^log, the worker's host prep, the CPU G2 MSM of
 * 2^msm_log points, with 1..max_threads threads (0: twice the online
 * CPUs), a host copy and, with CUDA, page-locking.  Progress on stderr
 * unless quiet.  host_cpu and build are left to the caller. */
typedef struct gs_calibrate_opts {
    uint32_t log, msm_log;
    int max_threads;
    int quiet;
    double unit_s;      /* each thread's work per level, at least (0: 0.2 s) */
    /* Page-locked staging buffers (the CUDA backend's allocator, with
     * gs_backend_caps.assignment_alloc's contract); NULL: not measured. */
    gs_status (*pin_alloc)(gs_assignment *as, uint32_t n_vars, uint32_t domain_size, gs_err *err);
    void (*pin_free)(gs_assignment *as);
} gs_calibrate_opts;
gs_status gs_calibrate(gs_profile *out, const gs_calibrate_opts *o, gs_err *err);
/* The share of the engine circuit's wires that appear in its B matrix
 * (at 2^12 constraints; 66.7%, the same within half a point from 2^10 to
 * 2^20): the part of the B G2 MSM's points not at infinity.  0 when the
 * circuit cannot be made. */
double gs_calibrate_b_share(void);

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
