/*
 * Engine internals shared by the engine's own files.  Not a contract.
 *
 * Threads: the caller's threads (submit, cancel, drain), cfg.synth_threads
 * synthesis threads, cfg.gpu_workers_per_device GPU workers per device,
 * finalizers (a fixed pool of cfg.finalizer_threads, or one thread per
 * partition when 0) and, with trim = background, one trim thread.
 *
 * Queues: synth_q (pending partitions, unbounded), gpu_q (synthesized
 * partitions, bounded by cfg.queue_depth), fin_q (proved partitions waiting
 * for a pooled finalizer).  All three are priority heaps ordered by
 * (priority, job sequence, partition index).
 *
 * Lock order (a thread holding one may only take those listed after it):
 *   keys.mu -> (none)            key creation runs outside it
 *   tracker.mu -> bg.mu          (background trim request under the lock)
 *   pq.mu -> drv_mu              (queue-depth counter sampled under the queue lock)
 *   fin.mu, devlane.mu, frag.mu, drv_mu: leaves.
 * Nothing ever waits on a backend or does proving arithmetic while holding
 * tracker.mu, except what a scenario injects (tracker_hold) or the policies
 * under test (malloc_trim / verify under_lock).
 */
#ifndef GS_ENGINE_INT_H
#define GS_ENGINE_INT_H

#include <pthread.h>
#include <stdatomic.h>

#include "../circuits/circuits.h"
#include "engine.h"

#define GS_ENG_MAX_STREAMS 8
#define GS_PROOF_BYTES 192

/* ---- keys.c: circuit + proving/verifying key per (kind, log) ---------- */
typedef struct gs_eng_key {
    gs_job_kind kind;
    uint32_t log;
    int state;                 /* 0 creating, 1 ready, 2 failed (under keys.mu) */
    gs_err err;
    gs_circuit *circuit;
    gs_pk pk;
    gs_vk vk;
    uint32_t n_public;
    struct gs_eng_key *next;
} gs_eng_key;

typedef struct gs_keys {
    pthread_mutex_t mu;
    pthread_cond_t cv;         /* a key left state "creating" */
    gs_eng_key *head;
    gs_backend **be;
    int n_dev;
    gs_h_convention h_conv;    /* of every key set up (set once, before any get) */
    gs_work_model *work;       /* modelled work: keys carry sizes only (set once) */
} gs_keys;

void gs_keys_init(gs_keys *k, gs_backend **be, int n_dev);
void gs_keys_deinit(gs_keys *k);
/* The ready key of (kind, log), created (circuit, insecure seeded setup,
 * load_pk on every backend) by the first caller; others wait for it. */
gs_status gs_keys_get(gs_keys *k, gs_job_kind kind, uint32_t log,
                      gs_eng_key **out, gs_err *err);
/* Seed of the insecure setup of (kind, log): tests recreate the vk from it. */
uint64_t gs_keys_setup_seed(gs_job_kind kind, uint32_t log);

/* ---- jobs and partitions ---------------------------------------------- */
struct gs_engine;

typedef struct gs_job_rec {
    gs_job_spec spec;
    uint64_t seq;
    uint64_t epoch;            /* cancel epoch at submission */
    int64_t submitted_ns;
    /* Under tracker.mu: */
    uint32_t settled;          /* partitions accounted for (ok, failed, skipped) */
    uint32_t stored;           /* partition proofs stored */
    uint32_t busy;             /* partitions marked busy */
    int finishing;             /* verify after unlock in progress */
    gs_err err;                /* first error */
    gs_eng_key *key;
    gs_proof *proofs;          /* partitions */
    uint8_t *have;             /* partitions: proof stored */
    gs_scalar *publics;        /* partitions x n_public */
    uint8_t *assembled;        /* partitions x 192 */
    int verified;
    /* Lock-free reads (set under tracker.mu): the job failed. */
    atomic_int failed;
    struct gs_job_rec *next;
} gs_job_rec;

/* A partition's malloc'd working set (heapfrag.c). */
typedef struct gs_workset {
    void **blk;
    size_t n;
    uint64_t bytes;
} gs_workset;

typedef struct gs_part {
    gs_job_rec *job;
    uint32_t index;
    int prio;
    uint64_t seq;
    gs_eng_key *key;           /* set by synthesis */
    gs_assignment as;
    int has_as;
    int pooled;                /* as is a pool buffer (staging = direct) */
    gs_prove_state *st;
    int finished;              /* prove_finish already ran (finish_in_worker) */
    gs_status finish_status;   /* its status, detail in finish_err */
    gs_err finish_err;
    int dev;                   /* engine device index of the worker that proved it */
    gs_proof proof;
    gs_scalar *pub;            /* copied public inputs (n_public) */
    uint32_t n_pub;
    gs_workset ws;             /* malloc_trim real mode: the partition's working set */
} gs_part;

/* ---- pqueue.c ---------------------------------------------------------- */
typedef void (*gs_pq_depth_fn)(struct gs_engine *e, int64_t t_ns, size_t depth);

typedef struct gs_pq {
    pthread_mutex_t mu;
    atomic_int holder;         /* lane id of the holder when it has a lane, else -1 */
    const char *name;          /* lock name in LOCK_WAIT spans ("gpu_queue", ...) */
    pthread_cond_t not_empty, not_full;
    gs_part **heap;
    size_t n, cap, bound;      /* bound 0: unbounded */
    int closed;
    struct gs_engine *e;
    gs_pq_depth_fn on_depth;   /* called under mu after every change, may be NULL */
} gs_pq;

gs_status gs_pq_init(gs_pq *q, const char *name, size_t bound, struct gs_engine *e,
                     gs_pq_depth_fn on_depth);
void gs_pq_deinit(gs_pq *q);
/* Blocks while full; *t0 and *t1 bracket the blocked time (equal: no wait).
 * Returns 0 (p not queued) when the queue is closed or out of memory.
 * A contended queue lock is recorded on lane (may be NULL) as a LOCK_WAIT
 * named after the queue, with the holder's lane. */
int gs_pq_push(gs_pq *q, gs_part *p, gs_tl_lane *lane, int64_t *t0, int64_t *t1);
/* Blocks while empty; *t0 and *t1 bracket the blocked time (equal: no wait).
 * NULL once closed and empty. */
gs_part *gs_pq_pop(gs_pq *q, gs_tl_lane *lane, int64_t *t0, int64_t *t1);
/* Removes every item with job epoch < epoch into out (caller frees), returns count. */
size_t gs_pq_take_cancelled(gs_pq *q, uint64_t epoch, gs_part ***out);
void gs_pq_close(gs_pq *q);

/* ---- tracker.c --------------------------------------------------------- */
typedef struct gs_tracker {
    pthread_mutex_t mu;
    pthread_cond_t done_cv;    /* a job was published */
    atomic_int holder;         /* lane id of the holder (-1 none / unknown) */
    int64_t hold_start;        /* under mu */
    gs_job_rec *jobs;          /* every job, newest first (freed at destroy) */
    uint64_t next_seq;
    size_t submitted, published;
    gs_job_result *results;
    size_t n_results, cap_results;
} gs_tracker;

gs_status gs_tracker_init(gs_tracker *t);
void gs_tracker_deinit(gs_tracker *t);
/* Lock/unlock with LOCK_WAIT (holder at the start of the wait) and LOCK_HOLD
 * spans (args "what=<what>") on lane (may be NULL). */
void gs_tracker_lock(gs_tracker *t, gs_tl_lane *lane, int32_t job, int32_t part);
void gs_tracker_unlock(gs_tracker *t, gs_tl_lane *lane, int32_t job, int32_t part,
                       const char *what);
/* Caller holds mu.  Records a failure of the job (first error wins) and
 * sets its lock-free `failed` flag; does not settle anything. */
void gs_tracker_fail_locked(struct gs_engine *e, gs_job_rec *j, gs_status s, const char *msg);
/* Caller holds mu.  Counts one partition settled; publishes the job when
 * every partition is settled (and no verify is in progress). */
void gs_tracker_settle_locked(struct gs_engine *e, gs_job_rec *j);
/* Caller holds mu.  Appends the job's result and wakes drain. */
void gs_tracker_publish_locked(struct gs_engine *e, gs_job_rec *j);
/* Job-level helpers (no lock): assemble and verify a job's stored proofs. */
void gs_job_assemble(gs_job_rec *j);
gs_status gs_job_verify(gs_job_rec *j, gs_err *err);

/* ---- heapfrag.c -------------------------------------------------------- */
typedef struct gs_heapfrag {
    pthread_mutex_t mu;
    void **slot;
    uint32_t *size;
    void **spacer;             /* live for the heap's life: one after every slot */
    size_t n;
    uint64_t bytes;
    uint64_t seed, round;
} gs_heapfrag;
gs_status gs_heapfrag_init(gs_heapfrag *h, uint64_t bytes, uint64_t seed, gs_err *err);
void gs_heapfrag_deinit(gs_heapfrag *h);
/* Toggles a seeded eighth of the blocks (frees live ones, refills and
 * touches holes), so the next malloc_trim(0) has dirty free pages scattered
 * through the heap to give back.  Returns the bytes freed, or UINT64_MAX
 * when another round was running (this one skipped). */
uint64_t gs_heapfrag_churn(gs_heapfrag *h);
/* A partition's working set: about `bytes` in blocks of seeded sizes under
 * glibc's mmap threshold (so they live in the calling thread's malloc
 * arena), every page written.  An allocation failure stops early and keeps
 * what was allocated (ws->bytes says how much); returns ws->bytes. */
uint64_t gs_workset_alloc(gs_workset *ws, uint64_t bytes, uint64_t seed);
/* Frees every block (any thread); returns the bytes freed.  Idempotent. */
uint64_t gs_workset_free(gs_workset *ws);

/* ---- inject.c ---------------------------------------------------------- */
/* Draws point p for (job, part); when it fires sleeps the delay inside an
 * INJECTED span "inj:<p>" on lane (args dist, delay and `extra`), and
 * returns GS_ERR_INJECTED (detail in err) when the point is set to fail. */
gs_status gs_inject(struct gs_engine *e, gs_inj_point p, gs_tl_lane *lane,
                    const gs_job_rec *j, int32_t part, const char *extra, gs_err *err);
/* Formats "dist=...;a=...;b=..." of d into buf. */
void gs_dist_args(char *buf, size_t len, const gs_dist *d);
/* The seed of synthesis of (job, part). */
uint64_t gs_eng_mix(uint64_t a, uint64_t b);

/* ---- the engine -------------------------------------------------------- */
typedef struct gs_worker {
    struct gs_engine *e;
    int dev, idx;
    pthread_t th;
    int started;
    gs_tl_lane *lane;
} gs_worker;

typedef struct gs_devlanes {
    pthread_mutex_t mu;        /* one writer at a time on the device lanes */
    gs_tl_lane *lane[GS_ENG_MAX_STREAMS];
    char prefix[8];            /* "gpu" or "cpu" */
} gs_devlanes;

typedef struct gs_fin_thread {
    pthread_t th;
    struct gs_fin_thread *next;
} gs_fin_thread;

struct gs_engine {
    gs_engine_config cfg;
    gs_backend **be;
    int n_dev;
    gs_timeline *tl;

    pthread_mutex_t drv_mu;    /* the driver lane's single writer */
    gs_tl_lane *drv_lane;
    atomic_int synth_busy;

    gs_keys keys;
    gs_tracker tr;
    gs_pq synth_q, gpu_q, fin_q;
    gs_heapfrag frag;
    int frag_on;

    atomic_uint_fast64_t epoch;   /* bumped by cancel */
    atomic_int stopping;

    gs_worker *synth;          /* synth threads (dev = -1) */
    int n_synth;
    gs_worker *workers;
    int n_workers;
    gs_devlanes *dl;           /* n_dev */

    /* Finalizers: pooled (cfg.finalizer_threads > 0) or per partition. */
    gs_worker *fin_pool;
    int n_fin_pool;
    pthread_mutex_t fin_mu;
    pthread_cond_t fin_cv;     /* live count reached 0 */
    int fin_live;
    gs_fin_thread *fin_done;   /* exited per-partition threads to join */
    gs_tl_lane **fin_free;     /* per-partition lanes not in use */
    int n_fin_free, cap_fin_free, n_fin_lanes;

    /* staging = direct: pool assignments not in use, any size (pin_mu
     * protects the list; n_pinned counts all, in use or not, never more
     * than pin_cap, the list's size).  Page-locked with the CUDA backend
     * (pool_locked), heap buffers otherwise. */
    gs_status (*pool_alloc)(gs_assignment *as, uint32_t n_vars, uint32_t domain_size, gs_err *err);
    void (*pool_free)(gs_assignment *as);
    int pool_locked;
    pthread_mutex_t pin_mu;
    pthread_cond_t pin_cv;     /* a buffer came back, or the engine stops */
    gs_assignment *pin_free;
    int n_pin_free, n_pinned, pin_cap;
    int pin_filling;           /* a synthesis thread is filling the pool */

    /* Background trim. */
    pthread_mutex_t bg_mu;
    pthread_cond_t bg_cv;
    int bg_pending, bg_stop, bg_started;
    pthread_t bg_th;
    gs_tl_lane *bg_lane;
};

/* synth.c / worker.c / finalizer.c thread bodies and helpers. */
void *gs_synth_main(void *arg);
void *gs_worker_main(void *arg);
void *gs_fin_pool_main(void *arg);
void *gs_bg_trim_main(void *arg);
/* Hands a proved partition to a finalizer (pool queue or a new thread). */
gs_status gs_fin_handoff(struct gs_engine *e, gs_part *p, gs_err *err);
/* Joins the per-partition finalizer threads that have exited. */
void gs_fin_reap(struct gs_engine *e);
/* Ends a partition that will not be proved: frees its buffers and state,
 * settles it in the tracker (failing its job with s/msg unless s == GS_OK). */
void gs_part_drop(struct gs_engine *e, gs_part *p, gs_tl_lane *lane, gs_status s,
                  const char *msg);
void gs_part_free(struct gs_engine *e, gs_part *p);
/* Gives back p's assignment: to the pool when it came from there
 * (staging = direct), else freed.  Takes pin_mu. */
void gs_part_release_as(struct gs_engine *e, gs_part *p);
/* Engine teardown (no partition alive): unpins and frees the pool. */
void gs_pin_pool_drain(struct gs_engine *e);
/* Runs the backend's prove_finish for p on lane (span prove_finish, its
 * stages); records the status in p->finish_status / finish_err. */
void gs_part_finish(struct gs_engine *e, gs_part *p, gs_tl_lane *lane);
/* Device-lane spans for the stages a backend reported; host stages go on
 * the worker/finalizer lane. */
void gs_emit_stages(struct gs_engine *e, int dev, gs_tl_lane *lane, const gs_part *p,
                    const gs_stage_list *sl);
void gs_drv_counter(struct gs_engine *e, const char *name, int64_t t, double v);
/* One malloc_trim(0) step (span "malloc_trim" plus a synthetic injected
 * delay when configured) on lane. */
void gs_trim_step(struct gs_engine *e, gs_tl_lane *lane, const gs_job_rec *j, int32_t part);
/* config.c: validation (GS_ERR_RANGE/ARG naming the setting), a deep copy
 * of the empirical samples (the engine owns its copy), and the settings,
 * backend and devices as timeline metadata. */
/* The ranges of settings.h (settings.c); the first setting out of range
 * fails with GS_ERR_RANGE "KEY VALUE not in LO..HI". */
gs_status gs_engine_settings_check(const gs_engine_config *cfg, gs_err *err);
gs_status gs_engine_config_check(const gs_engine_config *c, gs_backend **be, int n_dev,
                                gs_err *err);
gs_status gs_engine_config_copy_samples(gs_engine_config *cfg, gs_err *err);
void gs_engine_write_meta(const gs_engine_config *cfg, gs_backend **be, int n_dev,
                          gs_timeline *tl);
/* Span job id of a job record. */
static inline int32_t gs_jid(const gs_job_rec *j) { return (int32_t)j->spec.id; }

#endif
