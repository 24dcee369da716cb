/*
 * gapscope calibrate: the machine profile (model_profile.c) measured on
 * this host with the engine's own host work, once per machine (contract
 * in model.h).
 *
 * For each thread count T of a ladder (1, 2, 4, ... up to twice the
 * online CPUs, the CPU count itself included), T threads start together
 * at a barrier and each runs the same units of work; every thread's CPU
 * time (CLOCK_THREAD_CPUTIME_ID) per unit is read, so the slowdown beyond
 * fair sharing (memory bandwidth, SMT siblings, the clock under load) is
 * what is measured, not the time slicing:
 *   synth      one partition's synthesis of the engine's circuit
 *              (merkle_poseidon) at 2^log constraints, seeds per thread
 *   host_prep  the GPU worker's scan of one synthesized witness
 *              (gs_witness_classify), repeated
 *   msm_b2     one CPU G2 MSM of 2^msm_log points on a pool of T threads:
 *              its whole CPU time (the pool's helpers included); the
 *              scalars a witness of the engine's circuit on the wires of
 *              its B matrix, the others zero (what the engine's B G2 MSM
 *              multiplies: B2's points of the other wires are at
 *              infinity), not uniform random ones
 * speed[T] = cpu[1] / cpu[T]; lane_cv is the spread of the threads'
 * speeds at T = the CPU count (unequal cores).  The staging class: the
 * pinned staging copy's wall time beside 0..2C busy synthesis threads
 * (calibrate_staging.c).  The witness's copy into fresh memory (the
 * CUDA backend's state for the CPU G2 MSM) alone, beside CPU G2 MSMs on
 * every CPU, and beside those and B busy synthesis threads (B = 0 and
 * the ladder's counts up to the CPUs).  Then a host copy with the
 * CUDA backend's 8 threads (copy_gbps) and, with the CUDA backend, one
 * page-locked staging buffer of 2^log through the caller's allocator
 * (pin_gbps; 0 without one: the CLI passes the CUDA backend's).
 *
 * Threads: the caller's thread runs everything; workers are joined
 * before each level returns.
 */
#define _GNU_SOURCE
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../common/pool.h"
#include "../prover/circuits/circuits.h"
#include "../prover/engine/engine.h"
#include "../prover/msm/msm.h"
#include "model_int.h"
#include "../common/stats.h"

#define MAX_T 256
#define SBS_PAIRS 3 /* alone/beside pairs per busy-loop row (odd: a median) */

static double now_s(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* The median of the SBS_PAIRS ratios of a busy-loop row, v kept in its
 * order (the progress line prints it). */
static double pairs_median(const double v[SBS_PAIRS])
{
    double t[SBS_PAIRS];
    memcpy(t, v, sizeof t);
    return gs_median_sort(t, SBS_PAIRS);
}

typedef struct level {
    int kind;                 /* 0 synth, 1 host prep, 2 synth into reuse[i] */
    int reps;
    const gs_circuit *c;
    const gs_pk *pk;
    const gs_assignment *wit;
    pthread_mutex_t mu;       /* guards go */
    pthread_cond_t cv;
    int go;                   /* 1: start (every thread created), -1: give up */
    double cpu[MAX_T];        /* per thread: CPU seconds per unit */
    double wall[MAX_T];       /* per thread: wall seconds per unit */
    int pin[MAX_T];           /* per thread: the vCPU it runs on, -1 any (pinned: 1) */
    int pinned;
    int spinners;             /* threads in a busy loop beside the level */
    gs_status st[MAX_T];
    gs_assignment *reuse;     /* kind 2: thread i's buffer (MAX_T; written once before it is timed) */
} level;

static atomic_int spin_stop;

static void *spinner_main(void *p)
{
    volatile unsigned long n = 0;
    (void)p;
    while (!atomic_load_explicit(&spin_stop, memory_order_relaxed))
        n++;
    return NULL;
}

typedef struct arg {
    level *lv;
    int i;
} arg;

static void *unit_main(void *p)
{
    arg *a = p;
    level *lv = a->lv;
    gs_err err;
    gs_err_clear(&err);
    pthread_mutex_lock(&lv->mu);
    while (!lv->go)
        pthread_cond_wait(&lv->cv, &lv->mu);
    int go = lv->go;
    pthread_mutex_unlock(&lv->mu);
    if (lv->pinned && lv->pin[a->i] >= 0) {
        cpu_set_t set;
        CPU_ZERO(&set);
        CPU_SET(lv->pin[a->i], &set);
        if (pthread_setaffinity_np(pthread_self(), sizeof set, &set) != 0)
            go = -1; /* an offline or forbidden vCPU: the level fails */
    }
    gs_status st = go > 0 ? GS_OK : GS_ERR_INTERNAL;
    gs_assignment *re = lv->kind == 2 && lv->reuse ? &lv->reuse[a->i] : NULL;
    if (lv->kind == 2 && st == GS_OK) {
        /* The pool's buffer: allocated and written once, untimed (the
         * engine's pool fills before synthesis runs into it). */
        if (!re)
            st = GS_ERR_INTERNAL;
        else if (!re->w && (st = gs_assignment_alloc(re, lv->pk->n_vars, lv->pk->domain_size, &err)) == GS_OK)
            st = gs_circuit_synthesize_into(lv->c, lv->pk, 999, re, &err);
    }
    double c0 = now_s(CLOCK_THREAD_CPUTIME_ID), w0 = now_s(CLOCK_MONOTONIC);
    for (int r = 0; r < lv->reps && st == GS_OK; r++) {
        if (lv->kind == 2) {
            st = gs_circuit_synthesize_into(lv->c, lv->pk, 1000u * (uint64_t)a->i + (uint64_t)r + 1, re, &err);
        } else if (lv->kind == 0) {
            gs_assignment as;
            st = gs_circuit_synthesize(lv->c, lv->pk, 1000u * (uint64_t)a->i + (uint64_t)r + 1, &as, &err);
            if (st == GS_OK)
                gs_assignment_free(&as);
        } else {
            uint64_t z, o;
            gs_witness_classify(lv->wit, &z, &o);
        }
    }
    lv->cpu[a->i] = (now_s(CLOCK_THREAD_CPUTIME_ID) - c0) / lv->reps;
    lv->wall[a->i] = (now_s(CLOCK_MONOTONIC) - w0) / lv->reps;
    lv->st[a->i] = st;
    return NULL;
}

/* T threads of lv's work at once: fills mean CPU per unit and the spread. */
static gs_status run_level(level *lv, int t, double *mean, double *cv, gs_err *err)
{
    pthread_t th[MAX_T];
    arg a[MAX_T];
    int started = 0;
    pthread_t sp[4];
    int spun = 0;
    atomic_store(&spin_stop, 0);
    while (spun < lv->spinners && spun < 4 && pthread_create(&sp[spun], NULL, spinner_main, NULL) == 0)
        spun++;
    pthread_mutex_init(&lv->mu, NULL);
    pthread_cond_init(&lv->cv, NULL);
    lv->go = 0;
    for (int i = 0; i < t; i++) {
        a[i] = (arg){.lv = lv, .i = i};
        lv->st[i] = GS_OK;
        if (pthread_create(&th[i], NULL, unit_main, &a[i]) != 0)
            break;
        started++;
    }
    /* All at once (or, when a thread could not start, none: they return). */
    pthread_mutex_lock(&lv->mu);
    lv->go = started == t ? 1 : -1;
    pthread_cond_broadcast(&lv->cv);
    pthread_mutex_unlock(&lv->mu);
    for (int i = 0; i < started; i++)
        pthread_join(th[i], NULL);
    atomic_store(&spin_stop, 1);
    for (int i = 0; i < spun; i++)
        pthread_join(sp[i], NULL);
    pthread_cond_destroy(&lv->cv);
    pthread_mutex_destroy(&lv->mu);
    if (started < t)
        return GS_ERR(err, GS_ERR_INTERNAL, "calibrate", "could start only %d of %d threads", started, t);
    double s = 0, s2 = 0;
    for (int i = 0; i < t; i++) {
        if (lv->st[i] != GS_OK)
            return GS_ERR(err, lv->st[i], "calibrate", "thread %d of %d failed", i, t);
        s += lv->cpu[i];
    }
    *mean = s / t;
    for (int i = 0; i < t; i++)
        s2 += (*mean / lv->cpu[i] - 1) * (*mean / lv->cpu[i] - 1);
    *cv = t > 1 ? sqrt(s2 / (t - 1)) : 0;
    return GS_OK;
}

static int ladder(int cpus, int max_t, int *out)
{
    static const int base[] = {1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192, 256};
    int n = 0, top = max_t > 0 ? max_t : 2 * cpus;
    if (top > MAX_T)
        top = MAX_T;
    for (size_t i = 0; i < sizeof base / sizeof base[0] && base[i] <= top; i++) {
        if (base[i] == 3 && cpus > 4)
            continue;
        out[n++] = base[i];
    }
    /* The CPU count itself. */
    int have = 0;
    for (int i = 0; i < n; i++)
        have |= out[i] == cpus;
    if (!have && cpus <= top) {
        int k = n++;
        while (k > 0 && out[k - 1] > cpus) {
            out[k] = out[k - 1];
            k--;
        }
        out[k] = cpus;
    }
    return n;
}

static void progress(const gs_calibrate_opts *o, const char *what, int t, double cpu, double speed)
{
    if (!o->quiet)
        fprintf(stderr, "calibrate: %-9s T=%-3d %.4f s CPU per unit, speed %.3f\n", what, t, cpu, speed);
}

/* The engine's circuit at 2^log, the sizes of its keys (no keys are
 * made) and one synthesized witness; *c to destroy even on failure. */
static gs_status circuit_of(gs_circuit **c, gs_pk *pk, gs_assignment *wit, uint32_t log, gs_err *err)
{
    gs_status st = gs_circuit_create(c, "merkle_poseidon", log, err);
    if (st != GS_OK)
        return st;
    const gs_r1cs *r = gs_circuit_r1cs(*c);
    memset(pk, 0, sizeof *pk);
    pk->n_vars = r->n_wires;
    pk->n_public = gs_circuit_n_public(*c);
    pk->log_domain = gs_groth16_log_domain(r->n_constraints, pk->n_public);
    pk->domain_size = 1u << pk->log_domain;
    return gs_circuit_synthesize(*c, pk, 7, wit, err);
}

enum { ABBA_SPIN, ABBA_REUSE };

/* Synthesis rows at 3/8 and 3/4 of the CPUs (each 1 or more, the two
 * distinct; ABBA_SPIN leaves a CPU for the loop): per count, SBS_PAIRS
 * pairs of the reference and the variant back to back in alternating
 * order (ABBA: a drift that is linear over a pair of pairs cancels), the
 * median of the pairs' CPU-per-unit ratios variant / reference into
 * ys[], the count into xs[].  ABBA_SPIN: beside one busy-loop thread /
 * alone; ABBA_REUSE: into lv->reuse's buffers / into fresh memory. */
static gs_status abba_rows(level *lv, int cpus, int what, double *xs, double *ys, int *n, int quiet, gs_err *err)
{
    static const char *const label[] = {"beside one busy-loop thread / alone",
                                        "into reused buffers / into fresh memory"};
    gs_status st = GS_OK;
    double cv;
    int bs[2] = {3 * cpus / 8, 3 * cpus / 4};
    for (int i = 0; i < 2 && st == GS_OK; i++) {
        if (bs[i] < 1 || bs[i] + (what == ABBA_SPIN) > cpus || (i && bs[i] == bs[0]) || bs[i] > MAX_T)
            continue;
        double ratio[SBS_PAIRS];
        for (int r = 0; r < SBS_PAIRS && st == GS_OK; r++) {
            double t[2]; /* [0] the reference, [1] the variant */
            for (int h = 0; h < 2 && st == GS_OK; h++) {
                int k = (h + r) % 2; /* r even: the reference first */
                lv->spinners = what == ABBA_SPIN ? k : 0;
                lv->kind = what == ABBA_REUSE && k ? 2 : 0;
                st = run_level(lv, bs[i], &t[k], &cv, err);
            }
            ratio[r] = st == GS_OK && t[0] > 0 ? t[1] / t[0] : 1;
        }
        if (st != GS_OK)
            break;
        double med = pairs_median(ratio);
        xs[*n] = bs[i];
        ys[(*n)++] = med;
        if (!quiet) {
            fprintf(stderr, "calibrate: synth     B=%-3d %s, %d pairs:", bs[i], label[what], SBS_PAIRS);
            for (int r = 0; r < SBS_PAIRS; r++)
                fprintf(stderr, " %.3f", ratio[r]);
            fprintf(stderr, "; median %.3fx\n", med);
        }
    }
    return st;
}

/* synth and host prep over the ladder. */
static gs_status threads_classes(gs_profile *p, const gs_calibrate_opts *o, const int *lad, int nl, int cpus,
                                 gs_err *err)
{
    gs_circuit *c = NULL;
    gs_assignment wit = {0};
    gs_pk pk;
    level *lv = NULL;
    gs_status st = circuit_of(&c, &pk, &wit, p->log, err);
    if (st != GS_OK)
        goto out;
    if (!(lv = calloc(1, sizeof *lv))) {
        st = GS_ERR(err, GS_ERR_NOMEM, "calibrate", "out of memory");
        goto out;
    }
    int synth_reps = 1;   /* the synthesis levels' units (for the busy-loop rows below) */
    for (int k = 0; k < 2 && st == GS_OK; k++) {
        gs_profile_class *pc = &p->cls[k == 0 ? GS_SPEED_SYNTH : GS_SPEED_HOST_PREP];
        *lv = (level){.kind = k, .c = c, .pk = &pk, .wit = &wit, .reps = 1};
        /* Units of about 0.2 s per thread or more. */
        double mean, cv;
        if ((st = run_level(lv, 1, &mean, &cv, err)) != GS_OK)
            break;
        lv->reps = mean > 0 ? (int)ceil((o->unit_s > 0 ? o->unit_s : 0.2) / mean) : 1;
        if (lv->reps < 1)
            lv->reps = 1;
        if (k == 0)
            synth_reps = lv->reps;
        for (int i = 0; i < nl && st == GS_OK; i++) {
            if ((st = run_level(lv, lad[i], &mean, &cv, err)) != GS_OK)
                break;
            pc->threads[pc->n] = lad[i];
            pc->cpu_s[pc->n] = mean;
            pc->speed[pc->n] = pc->cpu_s[0] / mean;
            if (lad[i] <= cpus)
                pc->lane_cv = cv;
            progress(o, gs_model_speed_class_name(k == 0 ? GS_SPEED_SYNTH : GS_SPEED_HOST_PREP), lad[i], mean, pc->speed[pc->n]);
            pc->n++;
        }
    }
    /* Synthesis beside one busy-loop thread (gs_profile.sbs_*): at 3/8
     * and 3/4 of the CPUs (6 and 12 on 16).  The host drifts: on a VM
     * whose lone passes differ by 14% (traces/h100-r3s11-issue31 c) one
     * pair could not tell a 5-10% cost, hence abba_rows' pairs. */
    if (st == GS_OK) {
        *lv = (level){.kind = 0, .c = c, .pk = &pk, .wit = &wit, .reps = synth_reps};
        st = abba_rows(lv, cpus, ABBA_SPIN, p->sbs_synth, p->sbs_slow, &p->sbs_n, o->quiet, err);
    }
    /* Synthesis into reused buffers (staging = direct's pool) against
     * into fresh memory (gs_profile.sru_*), at the same counts, pairs in
     * alternating order as there; the buffers are kept from one level to
     * the next, as the pool keeps them. */
    if (st == GS_OK) {
        gs_assignment *reuse = calloc(MAX_T, sizeof *reuse);
        *lv = (level){.kind = 0, .c = c, .pk = &pk, .wit = &wit, .reps = synth_reps, .reuse = reuse};
        st = reuse ? abba_rows(lv, cpus, ABBA_REUSE, p->sru_synth, p->sru_ratio, &p->sru_n, o->quiet, err)
                   : GS_ERR(err, GS_ERR_NOMEM, "calibrate", "out of memory");
        for (int i = 0; reuse && i < MAX_T; i++)
            gs_assignment_free(&reuse[i]);
        free(reuse);
        lv->reuse = NULL;
    }
    /* The staging copy beside busy synthesis threads (calibrate_staging.c). */
    if (st == GS_OK)
        st = gs_mi_calibrate_staging(p, c, &pk, lad, nl, cpus, o->quiet, err);
out:
    gs_assignment_free(&wit);
    free(lv);
    gs_circuit_destroy(c);
    return st;
}

/* One synthesis unit on every vCPU, `together` threads pinned one to a
 * vCPU at a time (1: each vCPU alone; cpus: all at once): each vCPU's
 * wall seconds into out[vCPU]. */
static gs_status pinned_pass(level *lv, const gs_circuit *c, const gs_pk *pk, int cpus, int together, double *out,
                             gs_err *err)
{
    double mean, cv;
    for (int i0 = 0; i0 < cpus; i0 += together) {
        *lv = (level){.kind = 0, .c = c, .pk = pk, .reps = 1, .pinned = 1};
        for (int i = 0; i < together; i++)
            lv->pin[i] = i0 + i;
        gs_status st = run_level(lv, together, &mean, &cv, err);
        if (st != GS_OK)
            return st;
        for (int i = 0; i < together; i++)
            out[i0 + i] = lv->wall[i];
    }
    return GS_OK;
}

/* The vCPUs one by one (MODEL.md 4, "unequal vCPUs"): one synthesis
 * thread pinned to each online vCPU alone, every vCPU busy at once (one
 * pinned thread each), then each alone again; wall time per unit (a
 * vCPU's steal time and a busy hyperthread sibling on the host both show
 * in it, not in the thread's CPU time).  Speeds relative to their mean;
 * drift: how far the two lone passes differ (the map's staleness).  The
 * circuit at 2^min(log, 18): about 0.2 s a unit. */
static gs_status cpus_map(gs_profile *p, const gs_calibrate_opts *o, int cpus, gs_err *err)
{
    if (cpus > GS_PROFILE_CPUS || cpus > MAX_T)
        return GS_OK; /* a host too wide for the map: the profile goes without */
    gs_circuit *c = NULL;
    gs_assignment wit = {0};
    gs_pk pk;
    level *lv = calloc(1, sizeof *lv);
    double *solo2 = calloc((size_t)cpus, sizeof *solo2);
    gs_status st = lv && solo2 ? circuit_of(&c, &pk, &wit, p->log < 18 ? p->log : 18, err)
                               : GS_ERR(err, GS_ERR_NOMEM, "calibrate", "out of memory");
    /* Alone, all busy, alone again. */
    if (st == GS_OK)
        st = pinned_pass(lv, c, &pk, cpus, 1, p->cpu_solo, err);
    if (st == GS_OK)
        st = pinned_pass(lv, c, &pk, cpus, cpus, p->cpu_loaded, err);
    if (st == GS_OK)
        st = pinned_pass(lv, c, &pk, cpus, 1, solo2, err);
    if (st == GS_OK) {
        /* Seconds per unit -> speed relative to the mean vCPU's. */
        double *v[] = {p->cpu_solo, p->cpu_loaded, solo2};
        for (int a = 0; a < 3; a++) {
            double m = 0;
            for (int i = 0; i < cpus; i++)
                m += 1.0 / v[a][i] / cpus;
            for (int i = 0; i < cpus; i++)
                v[a][i] = 1.0 / v[a][i] / m;
        }
        double d = 0;
        for (int i = 0; i < cpus; i++) {
            d += fabs(p->cpu_solo[i] - solo2[i]) / cpus;
            p->cpu_solo[i] = 0.5 * (p->cpu_solo[i] + solo2[i]);
        }
        p->cpu_drift = d;
        p->n_cpus = cpus;
        if (!o->quiet) {
            double lo = INFINITY, hi = 0;
            for (int i = 0; i < cpus; i++) {
                lo = fmin(lo, p->cpu_solo[i]);
                hi = fmax(hi, p->cpu_solo[i]);
            }
            fprintf(stderr, "calibrate: vCPUs alone %.2f..%.2f of their mean, all busy %.0f%% spread, passes differ %.0f%%\n",
                    lo, hi, 100 * gs_profile_cpu_spread(p, 1), 100 * d);
        }
    }
    gs_assignment_free(&wit);
    gs_circuit_destroy(c);
    free(lv);
    free(solo2);
    return st;
}

/* Per wire of r, 1 when it appears in a term of B (malloc'd; NULL out
 * of memory). */
static char *b_wires(const gs_r1cs *r)
{
    char *in = calloc(r->n_wires ? r->n_wires : 1, 1);
    if (in)
        for (uint64_t t = 0; t < r->b_start[r->n_constraints]; t++)
            if (r->b_terms[t].wire < r->n_wires)
                in[r->b_terms[t].wire] = 1;
    return in;
}

double gs_calibrate_b_share(void)
{
    gs_circuit *c = NULL;
    gs_err err;
    gs_err_clear(&err);
    if (gs_circuit_create(&c, "merkle_poseidon", 12, &err) != GS_OK)
        return 0;
    const gs_r1cs *r = gs_circuit_r1cs(c);
    char *in = b_wires(r);
    double share = 0;
    if (in && r->n_wires) {
        size_t k = 0;
        for (uint32_t i = 0; i < r->n_wires; i++)
            k += in[i];
        share = (double)k / r->n_wires;
    }
    free(in);
    gs_circuit_destroy(c);
    return share;
}

static double state_copy_rate(uint32_t log);
static double state_copy_mean(uint32_t log, int reps);

/* A CPU G2 MSM over and over on a pool until told to stop (the busy
 * finalizers of engine.g2 = cpu, for the state copy beside them). */
typedef struct msm_bg {
    const gs_g2_affine *pts;
    const gs_scalar *sc;
    size_t n;
    gs_pool *pool;
    atomic_int stop;
} msm_bg;

static void *msm_bg_main(void *p)
{
    msm_bg *b = p;
    while (!atomic_load(&b->stop)) {
        gs_g2 out;
        if (gs_msm_g2(&out, b->pts, b->sc, b->n, b->pool) != GS_OK)
            break;
    }
    return NULL;
}

/* The witness's copy into fresh memory (state_copy_rate) while MSMs run
 * on a pool of every CPU, one per CPU at once up to MAX_LOOPS (the
 * engine's finalizers: a backlog with the G2 MSM on the CPU kept 16 in
 * flight on 16 vCPUs, each allocating its buckets; the cap keeps the
 * scratch of a many-core host's MSMs bounded), into
 * p->state_copy_busy_gbps (0 when they could not run); then, with the
 * MSMs still running, beside B busy synthesis threads of the engine's
 * circuit at 2^p->log for B = 0 and the ladder's counts up to the CPUs
 * (the engine's synthesis workers: their partitions' fresh memory meets
 * the copy's page faults too), the mean of 5 copies each, into
 * p->scs_* (no rows when the circuit cannot be made). */
static void state_copy_load(gs_profile *p, const gs_calibrate_opts *o, const gs_g2_affine *pts, const gs_scalar *sc,
                            size_t n, int cpus, const int *lad, int nl)
{
    uint32_t log = p->log;
    enum { MAX_LOOPS = 16 };
    msm_bg b = {.pts = pts, .sc = sc, .n = n};
    atomic_init(&b.stop, 0);
    gs_err err;
    gs_err_clear(&err);
    if (gs_pool_create(&b.pool, (unsigned)cpus, &err) != GS_OK)
        return;
    pthread_t th[MAX_LOOPS];
    int k = 0;
    while (k < cpus && k < MAX_LOOPS && pthread_create(&th[k], NULL, msm_bg_main, &b) == 0)
        k++;
    if (k > 0) {
        struct timespec d = {0, 300000000}; /* the MSMs under way */
        nanosleep(&d, NULL);
        p->state_copy_busy_gbps = state_copy_rate(log);
    }
    gs_circuit *c = NULL;
    gs_assignment wit = {0};
    gs_pk pk;
    gs_mi_synth_bg *bg = NULL;
    if (k > 0 && circuit_of(&c, &pk, &wit, log, &err) == GS_OK && (bg = gs_mi_synth_bg_new(c, &pk)))
        for (int i = -1; i < nl && p->scs_n < 24; i++) {
            int want = i < 0 ? 0 : lad[i];
            if ((i >= 0 && want < 2) || want > cpus || !gs_mi_synth_bg_grow(bg, want))
                continue;
            struct timespec settle = {0, 50 * 1000000L};
            nanosleep(&settle, NULL);
            double t = state_copy_mean(log, 5);
            if (!(t > 0))
                break;
            p->scs_synth[p->scs_n] = want;
            p->scs_gbps[p->scs_n] = (double)((size_t)32 << log) / t / 1e9;
            if (!o->quiet)
                fprintf(stderr, "calibrate: witness copy beside %d G2 MSMs and B=%-3d synthesis threads %.3f GB/s "
                        "(mean of 5)\n", k, want, p->scs_gbps[p->scs_n]);
            p->scs_n++;
        }
    gs_mi_synth_bg_free(bg);
    gs_assignment_free(&wit);
    gs_circuit_destroy(c);
    atomic_store(&b.stop, 1);
    for (int i = 0; i < k; i++)
        pthread_join(th[i], NULL);
    gs_pool_destroy(b.pool);
}

/* The CPU G2 MSM on pools of T threads. */
static gs_status msm_class(gs_profile *p, const gs_calibrate_opts *o, const int *lad, int nl, int cpus, gs_err *err)
{
    size_t n = (size_t)1 << o->msm_log;
    gs_g2 *acc = malloc(n * sizeof *acc);
    gs_g2_affine *pts = malloc(n * sizeof *pts);
    gs_scalar *sc = malloc(n * sizeof *sc);
    char *inb = NULL;
    gs_circuit *c = NULL;
    gs_assignment wit = {0};
    gs_pk pk;
    gs_status st = GS_OK;
    if (!acc || !pts || !sc) {
        st = GS_ERR(err, GS_ERR_NOMEM, "calibrate", "G2 MSM of 2^%u points", o->msm_log);
        goto out;
    }
    /* Points i*G (additions); the scalars a witness of the engine's
     * circuit at that size, as the engine's B G2 MSM multiplies (its
     * values repeat: on this circuit the MSM costs about half what
     * uniform random scalars do), repeated to 2^msm_log (the circuit is
     * made at 2^10 at least). */
    gs_g2 g;
    gs_g2_generator(&g);
    acc[0] = g;
    for (size_t i = 1; i < n; i++)
        gs_g2_add(&acc[i], &acc[i - 1], &g);
    gs_g2_batch_to_affine(pts, acc, n);
    if ((st = circuit_of(&c, &pk, &wit, o->msm_log < 10 ? 10 : o->msm_log, err)) != GS_OK)
        goto out;
    /* The wires outside B zero: the engine's B2 points of those wires are
     * at infinity, which the MSM skips as it skips a zero scalar. */
    if (!(inb = b_wires(gs_circuit_r1cs(c)))) {
        st = GS_ERR(err, GS_ERR_NOMEM, "calibrate", "G2 MSM of 2^%u points", o->msm_log);
        goto out;
    }
    for (size_t i = 0; i < n; i++) {
        size_t k = i % wit.n_vars;
        if (inb[k])
            sc[i] = wit.w[k];
        else
            memset(&sc[i], 0, sizeof sc[i]);
    }
    gs_profile_class *pc = &p->cls[GS_SPEED_MSM_B2];
    for (int i = 0; i < nl && st == GS_OK; i++) {
        if (lad[i] > cpus)
            break; /* the pool is the backend's: one thread per CPU at most */
        gs_pool *pool = NULL;
        if ((st = gs_pool_create(&pool, (unsigned)lad[i], err)) != GS_OK)
            break;
        gs_g2 out;
        int64_t c0 = gs_task_cpu_ns();
        st = gs_msm_g2(&out, pts, sc, n, pool);
        double cpu = (double)(gs_task_cpu_ns() - c0) * 1e-9;
        gs_pool_destroy(pool);
        if (st != GS_OK) {
            GS_ERR(err, st, "calibrate", "G2 MSM on %d threads", lad[i]);
            break;
        }
        pc->threads[pc->n] = lad[i];
        pc->cpu_s[pc->n] = cpu;
        pc->speed[pc->n] = pc->cpu_s[0] / cpu;
        progress(o, gs_model_speed_class_name(GS_SPEED_MSM_B2), lad[i], cpu, pc->speed[pc->n]);
        pc->n++;
    }
    if (st == GS_OK)
        state_copy_load(p, o, pts, sc, n, cpus, lad, nl);
out:
    gs_assignment_free(&wit);
    gs_circuit_destroy(c);
    free(inb);
    free(acc);
    free(pts);
    free(sc);
    return st;
}

/* A host copy on the CUDA backend's staging threads (alone), GB/s. */
static double copy_rate(void)
{
    size_t len = (size_t)64 << 20;
    char *src = malloc(len), *dst = malloc(len);
    double best = 0;
    if (!src || !dst)
        goto out;
    memset(src, 1, len);
    memset(dst, 2, len);
    for (int r = 0; r < 3; r++) {
        double dt = gs_mi_staging_copy(dst, src, len, GS_MODEL_COPY_THREADS);
        if (dt > 0 && (double)len / dt / 1e9 > best)
            best = (double)len / dt / 1e9;
    }
out:
    free(src);
    free(dst);
    return best;
}

/* The CUDA backend's copy of the witness for the CPU G2 MSM (engine.g2 =
 * cpu): one thread, a fresh malloc of 2^log x 32 bytes (mmap'd: its pages
 * faulted in by the copy) and a memcpy into it, reps times (at most 8):
 * the wall seconds of each into t, sorted; 0 when out of memory. */
static int state_copy_times(uint32_t log, int reps, double *t)
{
    size_t len = (size_t)32 << log;
    char *src = malloc(len);
    if (!src)
        return 0;
    memset(src, 3, len);
    for (int r = 0; r < reps; r++) {
        double t0 = now_s(CLOCK_MONOTONIC);
        char *dst = malloc(len);
        if (!dst)
            break;
        memcpy(dst, src, len);
        t[r] = now_s(CLOCK_MONOTONIC) - t0;
        __asm__ volatile("" : : "r"(dst) : "memory");
        free(dst);
    }
    free(src);
    qsort(t, (size_t)reps, sizeof t[0], gs_cmp_double);
    return 1;
}

/* The median of 3 as GB/s (0: not measured). */
static double state_copy_rate(uint32_t log)
{
    double t[3] = {0, 0, 0};
    return state_copy_times(log, 3, t) && t[1] > 0 ? (double)((size_t)32 << log) / t[1] / 1e9 : 0;
}

/* The mean of reps (at most 8) in seconds: beside busy threads most
 * copies run at their pace and some wait for a core, and a prediction
 * adds up the expected time (0: not measured). */
static double state_copy_mean(uint32_t log, int reps)
{
    double t[8] = {0}, s = 0;
    reps = reps < 1 ? 1 : reps > 8 ? 8 : reps;
    if (!state_copy_times(log, reps, t))
        return 0;
    for (int r = 0; r < reps; r++) {
        if (!(t[r] > 0))
            return 0;
        s += t[r] / reps;
    }
    return s;
}

/* One page-locked staging buffer of 2^log through the caller's allocator
 * (the CUDA backend's), GB/s; 0 without one or when it fails. */
static double pin_rate(const gs_calibrate_opts *o, uint32_t log)
{
    gs_assignment as;
    gs_err err;
    gs_err_clear(&err);
    uint32_t dom = 1u << log;
    double t0 = now_s(CLOCK_MONOTONIC);
    if (!o->pin_alloc || !o->pin_free || o->pin_alloc(&as, dom, dom, &err) != GS_OK)
        return 0;
    double dt = now_s(CLOCK_MONOTONIC) - t0;
    o->pin_free(&as);
    return dt > 0 ? 4.0 * 32.0 * dom / dt / 1e9 : 0;
}

gs_status gs_calibrate(gs_profile *p, const gs_calibrate_opts *o, gs_err *err)
{
    memset(p, 0, sizeof *p);
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    int cpus = n > 0 ? (int)n : 1;
    if (o->log < 10 || o->log > 24 || o->msm_log < 8 || o->msm_log > 22)
        return GS_ERR(err, GS_ERR_ARG, "calibrate", "sizes 2^%u (synthesis, 10..24) and 2^%u (MSM, 8..22)", o->log,
                      o->msm_log);
    p->cores = cpus;
    p->log = o->log;
    p->msm_log = o->msm_log;
    int lad[32];
    int nl = ladder(cpus, o->max_threads, lad);
    gs_status st = threads_classes(p, o, lad, nl, cpus, err);
    if (st == GS_OK)
        st = cpus_map(p, o, cpus, err);
    if (st == GS_OK)
        st = msm_class(p, o, lad, nl, cpus, err);
    if (st != GS_OK)
        return st;
    p->msm_witness = 2; /* msm_class's scalars: the witness on B's wires */
    p->copy_gbps = copy_rate();
    p->state_copy_gbps = state_copy_rate(o->log);
    p->pin_gbps = pin_rate(o, o->log);
    if (!o->quiet)
        fprintf(stderr, "calibrate: host copy %.2f GB/s (8 threads), page-locking %.2f GB/s%s, the witness's copy "
                "into fresh memory %.2f GB/s (one thread; %.2f GB/s beside the CPU G2 MSM on every CPU)\n",
                p->copy_gbps, p->pin_gbps, p->pin_gbps > 0 ? "" : " (not measured: no CUDA device)",
                p->state_copy_gbps, p->state_copy_busy_gbps);
    return GS_OK;
}
