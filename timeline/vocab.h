/*
 * The span vocabulary: every name gapscope's own producers give a span and
 * its consumers look for (SPANS.md says where each appears).  The engine's
 * steps, the stages of a prove that the backends report (device kernels
 * and copies, and host stages nested in prove_start / prove_finish), the
 * locks, the marks and the counters.  Writers (the engine, the backends,
 * the model device, the daemon-log importer) and readers (attribution, the
 * model's fit, plot data, the drivers' run checks) name them through this
 * table; the strings are exactly what spans.csv holds.
 *
 * X(enum, name).  A name that is both a step and a stage (host_prep) is
 * listed once.  Pure lookups, thread safe.
 */
#ifndef GS_VOCAB_H
#define GS_VOCAB_H

#include "../common/xtable.h"

#define GS_VOCAB_TABLE(X)                                                          \
    /* engine steps (STEP spans on the engine's lanes), in pipeline order */      \
    X(GS_V_SETUP, "setup")                     /* first use of a size: circuit, keys */ \
    X(GS_V_SYNTH, "synth")                                                         \
    X(GS_V_PIN, "pin")                         /* staging = direct: the pool filled */ \
    X(GS_V_PIN_WAIT, "pin_wait")               /* waiting for a free pool buffer */ \
    X(GS_V_QUEUE_FULL_WAIT, "queue_full_wait")                                     \
    X(GS_V_QUEUE_WAIT, "queue_wait")                                               \
    X(GS_V_READY_WAIT, "ready_wait")           /* prep = ahead: the prep thread waits */ \
    X(GS_V_STATUS_CHECK, "status_check")                                           \
    X(GS_V_FAIL_CHECK, "fail_check")                                               \
    X(GS_V_MARK_BUSY, "mark_busy")                                                 \
    X(GS_V_HOST_PREP, "host_prep")             /* also the backends' host stage */ \
    X(GS_V_H2D_STAGE, "h2d_stage")                                                 \
    X(GS_V_PROVE_START, "prove_start")                                             \
    X(GS_V_HANDOFF, "handoff")                                                     \
    X(GS_V_PROVE_FINISH, "prove_finish")                                           \
    X(GS_V_BUFFER_RELEASE, "buffer_release")                                       \
    X(GS_V_PROCESS_RESULT, "process_result")                                       \
    X(GS_V_MALLOC_TRIM, "malloc_trim")                                             \
    X(GS_V_ASSEMBLE, "assemble")                                                   \
    X(GS_V_VERIFY, "verify")                                                       \
    X(GS_V_PICKUP_TO_START, "pickup_to_start") /* daemon logs: pick-up to prove */ \
    X(GS_V_MEMORY_RELEASE, "memory_release")   /* attach: memory returned, no trim seen */ \
    /* stages of a prove (gs_stage names: device lanes, or host stages) */         \
    X(GS_V_H2D, "h2d")                                                             \
    X(GS_V_H2D_W, "h2d_w")                                                         \
    X(GS_V_PREP_W, "prep_w")                                                       \
    X(GS_V_INTT, "intt")                                                           \
    X(GS_V_COSET, "coset")                                                         \
    X(GS_V_NTT, "ntt")                                                             \
    X(GS_V_MSM_H, "msm_h")                                                         \
    X(GS_V_BATCH_ADD, "batch_add")                                                 \
    X(GS_V_MSM_C, "msm_c")                                                         \
    X(GS_V_MSM_L, "msm_l")                                                         \
    X(GS_V_MSM_A, "msm_a")                                                         \
    X(GS_V_MSM_B1, "msm_b1")                                                       \
    X(GS_V_MSM_B2, "msm_b2")                   /* device, or the CPU G2 MSM */    \
    X(GS_V_D2H, "d2h")                                                             \
    X(GS_V_DEVICE_MUTEX_WAIT, "device_mutex_wait")                                 \
    X(GS_V_LOAD_B2, "load_b2")                                                     \
    X(GS_V_EPILOGUE, "epilogue")                                                   \
    /* locks (LOCK_WAIT / LOCK_HOLD names) */                                      \
    X(GS_V_TRACKER, "tracker")                                                     \
    X(GS_V_DEVICE_MUTEX, "device_mutex")                                           \
    /* marks and counters */                                                       \
    X(GS_V_SUBMIT, "submit")                                                       \
    X(GS_V_JOB_QUEUED, "job_queued")                                               \
    X(GS_V_JOB_DONE, "job_done")                                                   \
    X(GS_V_JOB_CANCEL, "job_cancel")                                               \
    X(GS_V_GPU_QUEUE_DEPTH, "gpu_queue_depth")                                     \
    X(GS_V_SYNTH_BUSY, "synth_busy")

typedef enum { GS_VOCAB_TABLE(GS_XT_ID) GS_V_COUNT } gs_vocab;

/* The name of v ("queue_wait"); NULL when out of range. */
const char *gs_vocab_name(gs_vocab v);
/* The entry named name: 1 and *out, else 0 (NULL name: 0). */
int gs_vocab_from_name(gs_vocab *out, const char *name);
/* 1 when name (may be NULL) is v's name. */
int gs_vocab_is(const char *name, gs_vocab v);

#endif
