/*
 * The proving engine: the system under test, shaped like a production
 * pipelined Groth16 daemon (../shared/DOMAIN.md).
 *
 *   driver --submit--> job queue --> synthesis pool (N threads: real circuit
 *   synthesis, real allocations) --> bounded priority GPU queue of
 *   synthesized partitions --> GPU workers (M per device: tracker lock for
 *   fail check + mark busy, then backend prove_start) --> finalizer per
 *   partition (prove_finish, free buffers, tracker lock: store result,
 *   malloc_trim(0), on the last partition assemble + verify) --> results.
 *
 * Every step is recorded in the gs_timeline given at creation (NULL: no
 * capture).  Injection points add labelled work where a scenario asks.
 *
 * Ownership: the engine borrows the timeline and the backends (one per
 * device, created by the caller, e.g. CPU, CUDA or the model device) and
 * must be destroyed before them.  submit/cancel may be called from any
 * thread; create/destroy from one.
 */
#ifndef GS_ENGINE_H
#define GS_ENGINE_H

#include <stddef.h>
#include <stdint.h>

#include "../../common/xtable.h"
#include "../../timeline/timeline.h"
#include "../../common/rng.h"
#include "../../common/status.h"
#include "../groth16/backend.h"
#include "settings.h"

/* Proof kinds.  X(enum, name, default partitions, default priority) */
#define GS_JOB_KIND_TABLE(X)                                  \
    X(GS_KIND_WINNING_POST, "winning_post", 1, 0)             \
    X(GS_KIND_WINDOW_POST, "window_post", 1, 1)               \
    X(GS_KIND_SNAP_DEALS, "snap_deals", 16, 2)                \
    X(GS_KIND_POREP_C2, "porep_c2", 10, 2)                    \
    X(GS_KIND_CIRCUIT, "circuit", 1, 2)
typedef enum { GS_JOB_KIND_TABLE(GS_XT_ID) GS_KIND_COUNT } gs_job_kind;
const char *gs_job_kind_name(gs_job_kind k);
int gs_job_kind_from_name(gs_job_kind *out, const char *name);
/* The table's defaults for a kind (partitions 1 for an unknown kind). */
uint32_t gs_job_kind_partitions(gs_job_kind k);
int gs_job_kind_priority(gs_job_kind k);

/* Policies (the fixes scenarios A/B). */
typedef enum { GS_TRIM_UNDER_LOCK, GS_TRIM_AFTER_UNLOCK, GS_TRIM_BACKGROUND, GS_TRIM_OFF, GS_TRIM_COUNT } gs_trim_policy;
typedef enum { GS_VERIFY_UNDER_LOCK, GS_VERIFY_AFTER_UNLOCK, GS_VERIFY_OFF, GS_VERIFY_COUNT } gs_verify_policy;
/* "under_lock", "after_unlock", "background", "off" (NULL when out of range). */
const char *gs_trim_policy_name(gs_trim_policy p);
const char *gs_verify_policy_name(gs_verify_policy p);

/*
 * Injection points.  X(enum, name).  Where each acts (span inj:<name>
 * nested in the step it delays; draws per (job id, partition)):
 *   tracker_hold  finalizer, under the tracker lock after process_result
 *   malloc_trim   synthetic: inside the malloc_trim step (wherever the trim
 *                 policy puts it; nothing when trim = off); real (`real`,
 *                 `frag_bytes`): the engine keeps a heap of frag_bytes
 *                 fragmented, churns part of it before each finalizer takes
 *                 the lock, and every malloc_trim(0) runs on that heap;
 *                 with `work_per_constraint` every partition (whose draw
 *                 fires) also allocates a working set of that many bytes
 *                 per constraint through malloc during synthesis (blocks
 *                 under the mmap threshold, every page touched) and frees
 *                 it in buffer_release, as production frees its synthesis
 *                 and staging buffers, so every trim finds dirty free pages
 *                 to return whatever the trim policy (trim = off keeps the
 *                 workload and only drops the trim)
 *   synth         synthesis thread, inside `synth`
 *   h2d           GPU worker, `h2d_stage`: a real copy of a, b, c through
 *                 fresh pageable memory, then the drawn delay
 *   host_prep     GPU worker, inside `host_prep`
 *   handoff       GPU worker, inside `handoff`
 *   dealloc       finalizer, inside `buffer_release`
 *   verify        finalizer, inside `verify` (per job: partition -1)
 * A point with `fail` set fails its partition (and job) with
 * GS_ERR_INJECTED when it fires; malloc_trim never fails.
 */
#define GS_INJ_TABLE(X)                   \
    X(GS_INJ_TRACKER_HOLD, "tracker_hold") \
    X(GS_INJ_MALLOC_TRIM, "malloc_trim")   \
    X(GS_INJ_SYNTH, "synth")               \
    X(GS_INJ_H2D, "h2d")                   \
    X(GS_INJ_HOST_PREP, "host_prep")       \
    X(GS_INJ_HANDOFF, "handoff")           \
    X(GS_INJ_DEALLOC, "dealloc")           \
    X(GS_INJ_VERIFY, "verify")
typedef enum { GS_INJ_TABLE(GS_XT_ID) GS_INJ_COUNT } gs_inj_point;
const char *gs_inj_point_name(gs_inj_point p);
int gs_inj_point_from_name(gs_inj_point *out, const char *name);

typedef enum { GS_DIST_FIXED, GS_DIST_UNIFORM, GS_DIST_LOGNORMAL, GS_DIST_EMPIRICAL, GS_DIST_COUNT } gs_dist_kind;
/* "fixed", "uniform", "lognormal", "empirical". */
const char *gs_dist_kind_name(gs_dist_kind k);
typedef struct gs_dist {
    gs_dist_kind kind;
    double a, b;            /* fixed: a; uniform: [a, b]; lognormal: median a, sigma b (seconds) */
    double *samples;        /* empirical: durations in seconds (owned by the config) */
    size_t n_samples;
} gs_dist;
/* Draws one value (seconds) of d from r: the injection draws, the
 * scenario's arrivals and cancellations. */
double gs_dist_sample(const gs_dist *d, gs_rng *r);
/* Mean of d in seconds (for sweep x values). */
double gs_dist_mean(const gs_dist *d);

typedef struct gs_injection {
    int enabled;
    gs_dist dist;           /* delay in seconds (the engine copies empirical samples) */
    double probability;     /* per occurrence, 0..1 */
    uint64_t seed;          /* draws are reproducible per point */
    int real;               /* malloc_trim: 1 = real malloc_trim(0) on a fragmented heap */
    uint64_t frag_bytes;    /* malloc_trim real mode: heap to fragment */
    int fail;               /* when it fires: fail the delayed step with GS_ERR_INJECTED
                               (its partition fails, and with it the job) */
    uint64_t work_per_constraint; /* malloc_trim real mode: bytes per constraint each
                               partition allocates through malloc at synthesis and
                               frees in buffer_release, before its trim (0: none) */
} gs_injection;

/*
 * The draw of injection point p for one occurrence (job id, partition; -1
 * for per-job points such as verify): returns 1 when it fires (and sets
 * *delay_s to the drawn delay, >= 0), else 0.  Pure: the generator is
 * seeded from (inj->seed, p, job, part) alone, so thread timing cannot
 * change any draw, and two runs with the same seeds draw the same values.
 * A disabled injection never fires.
 */
int gs_injection_draw(const gs_injection *inj, gs_inj_point p, uint64_t job,
                      int32_t part, double *delay_s);

/*
 * Modelled work (model/model_work.c: gapscope predict and backend =
 * model).  With cfg.work set, the engine does none of the real work below:
 * at each of these points it calls work->run, which spends the unit's
 * modelled time (a sleep or CPU work on the virtual clock,
 * common/clock.h) and returns; the backend (the model backend)
 * models the prove itself.  Threads, queues, the tracker lock, policies,
 * injections and spans stay the engine's own.  No real keys, witnesses or
 * proofs exist: jobs complete with verified = 0 (not checked).
 *   setup           first use of a (kind, size): part is the partition
 *   synth           one partition's synthesis
 *   host_prep       the worker's scalar classification
 *   handoff         the worker's hand-off to a finalizer
 *   buffer_release  freeing a partition's buffers
 *   process_result  storing a partition's result (under the tracker lock)
 *   malloc_trim     one malloc_trim(0) (job NULL: the background thread)
 *   pin             one buffer of the staging pool (staging = direct) made
 *                   ready when the pool is filled; no memory is allocated
 *                   (the pool holds empty assignments of the key's sizes)
 *   assemble        a job's proof bytes (part -1)
 *   verify          a job's verification (part -1)
 * The engine also makes its threads participants of the virtual clock
 * (spawn/enter/exit) and waits on its queues, the tracker lock and key
 * creation through the clock's wrappers; those are plain pthread calls
 * when no clock runs.
 */
#define GS_WORK_TABLE(X)                              \
    X(GS_WORK_SETUP, GS_V_SETUP)                      \
    X(GS_WORK_SYNTH, GS_V_SYNTH)                      \
    X(GS_WORK_HOST_PREP, GS_V_HOST_PREP)              \
    X(GS_WORK_HANDOFF, GS_V_HANDOFF)                  \
    X(GS_WORK_BUFFER_RELEASE, GS_V_BUFFER_RELEASE)    \
    X(GS_WORK_PROCESS_RESULT, GS_V_PROCESS_RESULT)    \
    X(GS_WORK_MALLOC_TRIM, GS_V_MALLOC_TRIM)          \
    X(GS_WORK_ASSEMBLE, GS_V_ASSEMBLE)                \
    X(GS_WORK_VERIFY, GS_V_VERIFY)                    \
    X(GS_WORK_PIN, GS_V_PIN)
typedef enum { GS_WORK_TABLE(GS_XT_ID) GS_WORK_COUNT } gs_work_unit;
/* The name of unit u: the step it stands for (timeline/vocab.h), which is
 * also the model stage that prices it. */
const char *gs_work_unit_name(gs_work_unit u);
struct gs_job_spec;
typedef struct gs_work_model {
    /* Spends unit u for (job, part); job NULL only for a background trim.
     * Called from engine threads concurrently.  An error fails the
     * partition (or job) like a failed step. */
    gs_status (*run)(struct gs_work_model *m, gs_work_unit u, const struct gs_job_spec *job,
                     int32_t part, gs_err *err);
    void *ctx;
} gs_work_model;

/* The engine's configuration.  Defaults, ranges and the keys a scenario
 * sets them with: settings.h. */
typedef struct gs_engine_config {
    int synth_threads;
    int gpu_workers_per_device;
    int finalizer_threads;          /* 0 = a finalizer thread per in-flight partition */
    int queue_depth;                /* bounded GPU queue capacity (partitions) */
    int prove_threads;              /* CPU threads per prove step (CPU backend / CPU G2
                                       MSM); 0 = all cores */
    gs_trim_policy trim;
    gs_verify_policy verify;
    int pageable;                   /* pageable instead of pinned staging */
    int direct;                     /* staging = direct: synthesis writes into
                                       assignments from a pool the engine keeps
                                       (allocated once, reused by later partitions
                                       of the same size); with the CUDA backend
                                       they are page-locked, so prove_start copies
                                       them without staging; with the CPU backend
                                       heap buffers (no allocation per partition) */
    int pin_pool;                   /* staging = direct: buffers the pool holds at
                                       most (0: synth_threads + 2 per GPU
                                       worker + 2).  All of them are allocated when
                                       the first partition of a size needs one, before
                                       any device work (a pinned allocation stalls the
                                       driver, so none happen while the device
                                       proves); synthesis then waits for a free one
                                       (span pin_wait) */
    int g2_on_device;               /* CUDA backend: the B G2 MSM on the GPU in
                                       prove_start instead of the CPU in prove_finish */
    int finish_in_worker;           /* 1: the GPU worker runs prove_finish (the CPU G2
                                       MSM) itself before its next pop, as daemons did
                                       before splitting prove (DOMAIN.md); 0: finalizer */
    int prep_ahead;                 /* 1: each GPU worker has a prep thread that runs
                                       the steps up to host_prep / h2d_stage of the
                                       next partition while the worker's prove_start
                                       of the current one runs (worker.c); 0: inline */
    uint64_t seed;
    gs_h_convention h_conv;         /* H convention of the keys the engine sets up
                                       (groth16.h) */
    gs_injection inj[GS_INJ_COUNT];
    gs_work_model *work;            /* NULL: real work; else modelled (above), borrowed */
} gs_engine_config;
/* Every setting at its default (settings.h), injections off (probability
 * 1, fixed delay 0, seed gs_injection_seed_auto), real work. */
void gs_engine_config_defaults(gs_engine_config *cfg);
/* Sets setting s from text as a scenario writes it (an integer in the
 * row's range, an unsigned integer, one of its choices).  Returns 0, cfg
 * unchanged, when text is not a value of s. */
int gs_engine_config_set(gs_engine_config *cfg, gs_engine_setting s, const char *text);
/* The seed of injection point p's draws when a scenario says seed = auto:
 * derived from the engine's seed, a different stream per point. */
uint64_t gs_injection_seed_auto(uint64_t seed, gs_inj_point p);

/* One job as submitted.  Partitions of PoRep/SnapDeals are proved
 * separately; other kinds are monolithic (partitions = 1 unless given). */
typedef struct gs_job_spec {
    uint64_t id;                /* caller's id (trace id) */
    gs_job_kind kind;
    uint32_t partitions;
    int priority;               /* lower value = more urgent */
    uint32_t log_constraints;   /* circuit size per partition: 2^log_constraints */
    int64_t intended_ns;        /* intended arrival (latency is measured from it) */
} gs_job_spec;

typedef struct gs_job_result {
    uint64_t id;
    gs_job_kind kind;
    uint32_t partitions;
    gs_status status;           /* GS_OK when completed */
    int verified;               /* 1 verified, 0 not checked, -1 failed */
    int64_t intended_ns, submitted_ns, done_ns;
    char error[GS_ERR_MSG_MAX]; /* first error, empty on success */
    /* Completed jobs: the assembled proof (partitions x 192 bytes, each
     * partition's compressed A | B | C) and the public inputs of every
     * partition (partitions x n_public plain scalars); NULL/0 otherwise.
     * Owned by the engine. */
    const uint8_t *proof;
    size_t proof_len;
    const gs_scalar *publics;
    uint32_t n_public;
    uint32_t log_constraints;   /* the size the job was proved at */
} gs_job_result;

typedef struct gs_engine gs_engine;

/* The host prep a GPU worker does before device work (step host_prep):
 * classify the witness scalars (0 and 1 go to batch additions, the rest
 * to the MSMs).  Also timed by gapscope calibrate. */
void gs_witness_classify(const gs_assignment *as, uint64_t *zeros, uint64_t *ones);

gs_status gs_engine_create(gs_engine **out, const gs_engine_config *cfg,
                           gs_backend **backends, int n_devices,
                           gs_timeline *tl, gs_err *err);
/* Queues a job (never blocks on proving). */
gs_status gs_engine_submit(gs_engine *e, const gs_job_spec *job, gs_err *err);
/* Waits until every submitted job has completed or failed (timeout_ns <= 0: forever).
 * Returns GS_OK, or GS_ERR_STATE on timeout. */
gs_status gs_engine_drain(gs_engine *e, int64_t timeout_ns);
/* Cancels queued work: running partitions finish, the rest fail with GS_ERR_CANCELLED. */
void gs_engine_cancel(gs_engine *e);
/* Cancels one job (the caller's id): it ends with GS_ERR_CANCELLED (error
 * "cancelled: <why>"), exactly once like any job; its partitions not yet
 * proving are dropped where they wait, running ones finish and are
 * discarded.  A MARK "job_cancel" on the driver/engine lane records the
 * request.  Returns GS_OK, or GS_ERR_STATE when the job is not in flight
 * (unknown id, or already finished: its result stands). */
gs_status gs_engine_cancel_job(gs_engine *e, uint64_t id, const char *why, gs_err *err);
/* Results of finished jobs, in completion order.  The array stays valid
 * until the next job completes (after drain: until the next submit) or
 * destroy; the proof/publics arrays it points to stay valid until destroy. */
const gs_job_result *gs_engine_results(gs_engine *e, size_t *n);
/* Stops threads (cancelling what is left) and frees everything. */
void gs_engine_destroy(gs_engine *e);

#endif
