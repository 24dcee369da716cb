/*
 * The CUDA backend (backend.h; created through cuda.h) on one device
 * context (cuda_dev.h).
 *
 *   load_pk      uploads the G1 points of H, C ("L"), A and B1 once, sizes
 *                the a/b/c and witness buffers and builds the twiddles of
 *                the 2n-domain; the key stays resident for every proof
 *                until another key is loaded.  Where device memory allows,
 *                each G1 point set also gets t - 1 precomputed copies
 *                (2^(j c) P, gs_cu_g1_precompute) so its MSM takes t
 *                windows per set of buckets (fewer, wider windows; the
 *                window c and t chosen per set by gs_cu_msm_pick within
 *                the memory left after every other buffer; the knob
 *                key_copies, GS_CU_COPIES, caps t, 1 = none).  B2 is
 *                uploaded only when a proof first asks for the G2 MSM on the device
 *                (opts->g2_on_device), then stays resident with the rest:
 *                its non-infinity points, compacted, and their wire
 *                indices (B2 is sparse: only wires that occur in B), with
 *                the precomputed copies that fit (plan_b2; the knob
 *                b2_copies caps them, 1 = none).
 *   prove_start  under the device mutex, on two streams:
 *                  stream 0: H2D of the witness (h2d_w), its scalar
 *                    preparation shared by the three witness MSMs (prep_w:
 *                    0s dropped, 1s summed without buckets, digits sorted
 *                    once), msm_l, msm_a, msm_b1, then with g2_on_device
 *                    the G2 MSM msm_b2 (the witness scalars of B2's wires
 *                    gathered on the device first; it needs nothing of H);
 *                  stream 1, at the same time and at the device's highest
 *                    stream priority (the head of the critical path: the
 *                    witness MSMs must not starve it): H2D of a, b, c
 *                    (h2d) and the H scalars (ntt: iNTT, odd coset, NTT,
 *                    a'b' - c');
 *                  stream 0 again once both are done: msm_h, then the D2H
 *                    of its window sums; the witness MSMs' window sums come
 *                    back before msm_h and the host combines them while
 *                    msm_h runs.
 *                When a, b and c are page-locked (synthesized into pinned
 *                buffers, gs_cuda_assignment_alloc, or registered,
 *                gs_cuda_assignment_pin) their copies are single DMAs
 *                queued before the host waits on the witness preparation,
 *                right behind the witness's DMA; otherwise the host stages
 *                them through pinned buffers (or pageable when asked,
 *                flagged GS_STAGE_F_PAGEABLE) while the witness MSMs run.
 *                stream_order = old (GS_CU_ORDER=old): the plan before issue 14's pipelining
 *                (a/b/c always after the witness MSMs are queued, msm_b2
 *                after msm_h, every combination in prove_finish), for A/B
 *                measurements.  h_first (GS_CU_H_FIRST=1), a diagnostic:
 *                the H chain is queued first and stream 0 waits for it, so
 *                no witness MSM shares the device with the NTTs (each
 *                stage's time alone; the sum is what the overlap hides).
 *                CUDA events between
 *                the stages, converted to the host clock, each stage on
 *                its stream.  The window sums are copied into the proof
 *                state before the mutex is released.
 *   prove_finish without the mutex: the G2 MSM of B on the CPU (the
 *                production default) unless it ran on the device, window
 *                combination of H's sums (and, GS_CU_ORDER=old, of every
 *                MSM's) and the blinding epilogue
 *                (SNARKJS-FORMATS 7.4).
 *
 * Lock order: impl->mu only (the device mutex); it protects the device
 * context and the resident key.  prove_finish touches only its state.
 * The state borrows pk (which must outlive finish/abort) and copies the
 * witness, so the assignment may be freed when prove_start returns.
 * A resident key is identified by its address and sizes: a caller that
 * changes a key in place must load it again.
 *
 * Built without CUDA, gs_backend_cuda_create returns GS_ERR_UNSUPPORTED
 * and gs_cuda_device_count returns 0.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../common/clock.h"
#include "../../timeline/vocab.h"
#include "../groth16/backend.h"
#include "cuda.h"
#include "cuda_dev.h"
#include "knobs.h"

#ifndef GS_HAVE_CUDA

int gs_cu_device_count(void) { return 0; }

int gs_cuda_device_count(void) { return 0; }

gs_status gs_cuda_assignment_pin(gs_assignment *as, gs_err *err)
{
    (void)as;
    return GS_ERR(err, GS_ERR_UNSUPPORTED, "cuda backend",
                  "pinning an assignment needs CUDA (rebuild with CUDA=1)");
}

void gs_cuda_assignment_unpin(gs_assignment *as) { (void)as; }

gs_status gs_cuda_assignment_alloc(gs_assignment *as, uint32_t n_vars, uint32_t domain_size,
                                   gs_err *err)
{
    memset(as, 0, sizeof *as);
    (void)n_vars;
    (void)domain_size;
    return GS_ERR(err, GS_ERR_UNSUPPORTED, "cuda backend",
                  "page-locked assignments need CUDA (rebuild with CUDA=1)");
}

void gs_cuda_assignment_free(gs_assignment *as) { memset(as, 0, sizeof *as); }

gs_status gs_backend_cuda_create(gs_backend **out, int device, gs_err *err)
{
    *out = NULL;
    return GS_ERR(err, GS_ERR_UNSUPPORTED, "cuda backend",
                  "device %d requested but this build has no CUDA (rebuild with CUDA=1)", device);
}

#else

#include "../groth16/g16_internal.h"
#include "../msm/msm.h"

/* Stage boundaries: stream 0 (witness, MSMs), stream 1 (a/b/c, NTT);
 * M_MSM_B2 with g2_on_device only, M_HWAIT with h_first only. */
enum { M_H2DW0, M_H2DW1, M_PREP_W, M_MSM_L, M_MSM_A, M_MSM_B1, M_H2D0, M_H2D1, M_NTT, M_H0,
       M_MSM_H, M_MSM_B2, M_D2H, M_WFETCH, M_HWAIT, M_COUNT };
_Static_assert(M_COUNT <= GS_CU_MARKS, "stage marks");
/* Result slots: the four G1 MSMs, then B2. */
enum { SLOT_B2 = 4 };

typedef struct {
    gs_cu_dev *dev;
    gs_pool *pool;             /* CPU threads for the G2 MSM */
    pthread_mutex_t mu;        /* the device mutex */
    /* Resident key (protected by mu). */
    const gs_pk *pk;
    uint32_t pk_vars, pk_domain;
    void *d_h, *d_a, *d_b1, *d_c;  /* each with t - 1 copies after the points */
    unsigned c_h, t_h, c_w, t_w;  /* MSM windows: H, and the witness sets L, A, B1 */
    char plan[96];                /* the above as text (gs_cuda_backend_plan) */
    gs_fr *d_abc;              /* 3 * domain */
    gs_scalar *d_w;            /* n_vars */
    /* B2, once a proof asked for it: b2_n non-infinity points (compact,
     * each with t_b2 - 1 copies after the points), their wire indices and
     * the gathered witness scalars; its MSM window c_b2. */
    int b2_loaded;
    size_t b2_n;
    unsigned c_b2, t_b2;
    void *d_b2;
    uint32_t *d_b2_idx;
    gs_scalar *d_b2_w;
    char desc[300];
} cuda_impl;

struct gs_prove_state {
    const gs_pk *pk;
    gs_cu_msm_parts g1[4];     /* h, l, a, b1 */
    int g2_dev;                /* B2 ran on the device: g2 holds it */
    gs_cu_msm_g2_parts g2;
    /* The witness MSMs (l, a, b1; b2 with g2_dev) combined on the host
     * while msm_h ran (not with GS_CU_ORDER=old): then g1[1..3] / g2 are
     * empty and these hold the results. */
    int early;
    gs_g1 l, a, b1;
    gs_g2 b2;
    gs_scalar r, s;
    gs_scalar *w;              /* witness copy for the CPU G2 MSM (else NULL) */
};

int gs_cuda_device_count(void) { return gs_cu_device_count(); }

gs_status gs_cuda_assignment_pin(gs_assignment *as, gs_err *err)
{
    gs_status st;
    size_t nw = (size_t)as->n_vars * sizeof(gs_scalar), nd = (size_t)as->domain_size * sizeof(gs_fr);
    if ((st = gs_cu_host_register(as->w, nw, err)) != GS_OK) return st;
    if ((st = gs_cu_host_register(as->a, nd, err)) != GS_OK) goto fail_w;
    if ((st = gs_cu_host_register(as->b, nd, err)) != GS_OK) goto fail_a;
    if ((st = gs_cu_host_register(as->c, nd, err)) != GS_OK) goto fail_b;
    return GS_OK;
fail_b:
    gs_cu_host_unregister(as->b);
fail_a:
    gs_cu_host_unregister(as->a);
fail_w:
    gs_cu_host_unregister(as->w);
    return st;
}

void gs_cuda_assignment_unpin(gs_assignment *as)
{
    gs_cu_host_unregister(as->w);
    gs_cu_host_unregister(as->a);
    gs_cu_host_unregister(as->b);
    gs_cu_host_unregister(as->c);
}

void gs_cuda_assignment_free(gs_assignment *as)
{
    gs_cu_host_free(as->w);
    gs_cu_host_free(as->a);
    gs_cu_host_free(as->b);
    gs_cu_host_free(as->c);
    memset(as, 0, sizeof *as);
}

gs_status gs_cuda_assignment_alloc(gs_assignment *as, uint32_t n_vars, uint32_t domain_size,
                                   gs_err *err)
{
    gs_status st;
    size_t nw = (size_t)(n_vars ? n_vars : 1) * sizeof(gs_scalar);
    size_t nd = (size_t)(domain_size ? domain_size : 1) * sizeof(gs_fr);
    memset(as, 0, sizeof *as);
    if ((st = gs_cu_host_alloc((void **)&as->w, nw, err)) != GS_OK ||
        (st = gs_cu_host_alloc((void **)&as->a, nd, err)) != GS_OK ||
        (st = gs_cu_host_alloc((void **)&as->b, nd, err)) != GS_OK ||
        (st = gs_cu_host_alloc((void **)&as->c, nd, err)) != GS_OK) {
        gs_cuda_assignment_free(as);
        return st;
    }
    memset(as->a, 0, nd);
    memset(as->b, 0, nd);
    memset(as->c, 0, nd);
    as->n_vars = n_vars;
    as->domain_size = domain_size;
    return GS_OK;
}

static void stage_push(gs_stage_list *l, const char *name, gs_stage_kind kind, int dev,
                       int stream, int64_t t0, int64_t t1, uint16_t flags)
{
    if (!l || l->n >= GS_STAGE_MAX) return;
    l->s[l->n++] = (gs_stage){ .name = name, .kind = kind, .device = dev, .stream = stream,
                               .start_ns = t0, .end_ns = t1, .flags = flags };
}

static const char *cuda_describe(gs_backend *be) { return ((cuda_impl *)be->impl)->desc; }

/* Drops the resident B2 (it is uploaded again when a proof asks). */
static void free_b2(cuda_impl *im)
{
    gs_cu_free(im->dev, im->d_b2);
    gs_cu_free(im->dev, im->d_b2_idx);
    gs_cu_free(im->dev, im->d_b2_w);
    im->d_b2 = NULL;
    im->d_b2_idx = NULL;
    im->d_b2_w = NULL;
    im->b2_loaded = 0;
    im->b2_n = 0;
}

static void free_key(cuda_impl *im)
{
    gs_cu_free(im->dev, im->d_h);
    gs_cu_free(im->dev, im->d_a);
    gs_cu_free(im->dev, im->d_b1);
    gs_cu_free(im->dev, im->d_c);
    gs_cu_free(im->dev, im->d_abc);
    gs_cu_free(im->dev, im->d_w);
    im->d_h = im->d_a = im->d_b1 = im->d_c = NULL;
    im->d_abc = NULL;
    im->d_w = NULL;
    free_b2(im);
    im->pk = NULL;
}

static gs_status check_key(const gs_pk *pk, gs_err *err)
{
    if (pk->domain_size != (1u << pk->log_domain) || pk->log_domain == 0 ||
        pk->log_domain >= GS_FR_TWO_ADICITY || pk->n_vars < pk->n_public + 1)
        return GS_ERR(err, GS_ERR_FORMAT, "cuda prove", "proving key: inconsistent sizes "
                      "(domain %u = 2^%u, %u vars, %u public)", pk->domain_size,
                      pk->log_domain, pk->n_vars, pk->n_public);
    if ((unsigned)pk->h_conv >= GS_H_CONV_COUNT)
        return GS_ERR(err, GS_ERR_FORMAT, "cuda prove", "proving key: unknown H convention %d",
                      (int)pk->h_conv);
    return GS_OK;
}

/* Window plans and precomputed copies for the key's G1 sets: H's copies
 * and the witness sets' (L, A, B1: one plan, they share the scalar
 * preparation) chosen together, each up to key_copies (knobs.h, default
 * 16): the pair of the lowest modelled cost (gs_cu_msm_pick; H once, the witness
 * sets three times) whose points, with every other buffer a proof needs
 * and 3 GiB to spare, fit in the free memory.  So at 2^27, where the
 * witness sets cannot have copies, H may still have some. */
static gs_status plan_copies(cuda_impl *im, const gs_pk *pk, gs_err *err)
{
    size_t n = pk->domain_size, nv = pk->n_vars, nc = nv - pk->n_public - 1, m2 = 0;
    size_t fr, total;
    gs_status st = gs_cu_mem_info(im->dev, &fr, &total, err);
    if (st != GS_OK) return st;
    for (uint32_t i = 0; i < pk->n_vars; i++) m2 += !pk->b2[i].inf;
    unsigned mc = (unsigned)gs_cu_knob(GS_CU_K_KEY_COPIES);
    if (mc < 1) mc = 1;
    if (mc > 16) mc = 16;
    size_t scr_2 = gs_cu_msm_scratch_bytes(m2 ? m2 : 1, 0, 1, 1);
    size_t fixed = 3 * n * 32 + nv * 32 + m2 * (192 + 4 + 32) + 2 * n * 32 + ((size_t)3 << 30);
    double best = -1;
    im->t_h = im->t_w = 1;
    gs_cu_msm_pick(n, 1, 0, &im->c_h, &im->t_h);
    gs_cu_msm_pick(nv, 1, 0, &im->c_w, &im->t_w);
    for (unsigned mh = 1; mh <= mc; mh++) {
        unsigned ch, th;
        double cost_h = gs_cu_msm_pick(n, mh, 0, &ch, &th);
        size_t scr_h = gs_cu_msm_scratch_bytes(n, ch, th, 0);
        for (unsigned mw = 1; mw <= mc; mw++) {
            unsigned cw, tw;
            double cost = cost_h + 3 * gs_cu_msm_pick(nv, mw, 0, &cw, &tw);
            size_t scr_w = gs_cu_msm_scratch_bytes(nv, cw, tw, 0);
            size_t scr = scr_h > scr_w ? scr_h : scr_w;
            scr = scr > scr_2 ? scr : scr_2;
            size_t need = 96 * (th * n + tw * (nc + 2 * nv)) + fixed + scr;
            if (need > fr || (best >= 0 && cost >= best)) continue;
            best = cost;
            im->c_h = ch;
            im->t_h = th;
            im->c_w = cw;
            im->t_w = tw;
        }
    }
    return GS_OK;
}

/* The window a proof asks of a set's plan: the one its copies were
 * precomputed for, or, for a set without copies (t = 1), 0: the MSM's
 * automatic window under the knobs in force at this proof (msm_c, msm_win,
 * msm_glv), so a driver that changes them between proofs (cuda-bench
 * --sets) gets them; the planner at load_pk saw the same window unless a
 * knob changed since (the scratch then grows on demand). */
static int plan_window(unsigned c, unsigned t) { return t > 1 ? (int)c : 0; }

/* Caller holds im->mu. */
static gs_status load_locked(cuda_impl *im, const gs_pk *pk, gs_err *err)
{
    gs_status st = check_key(pk, err);
    if (st != GS_OK) return st;
    if (im->pk == pk && im->pk_vars == pk->n_vars && im->pk_domain == pk->domain_size)
        return GS_OK;
    free_key(im);
    size_t n = pk->domain_size, nv = pk->n_vars, nc = nv - pk->n_public - 1;
    size_t pt = 96;
    if ((st = plan_copies(im, pk, err)) != GS_OK) goto fail;
    if ((st = gs_cu_alloc(im->dev, &im->d_h, im->t_h * n * pt, err)) != GS_OK ||
        (st = gs_cu_alloc(im->dev, &im->d_a, im->t_w * nv * pt, err)) != GS_OK ||
        (st = gs_cu_alloc(im->dev, &im->d_b1, im->t_w * nv * pt, err)) != GS_OK ||
        (st = gs_cu_alloc(im->dev, &im->d_c, im->t_w * nc * pt, err)) != GS_OK ||
        (st = gs_cu_alloc(im->dev, (void **)&im->d_abc, 3 * n * sizeof(gs_fr), err)) != GS_OK ||
        (st = gs_cu_alloc(im->dev, (void **)&im->d_w, nv * sizeof(gs_scalar), err)) != GS_OK)
        goto fail;
    if ((st = gs_cu_g1_upload(im->dev, im->d_h, pk->h, n, err)) != GS_OK ||
        (st = gs_cu_g1_upload(im->dev, im->d_a, pk->a, nv, err)) != GS_OK ||
        (st = gs_cu_g1_upload(im->dev, im->d_b1, pk->b1, nv, err)) != GS_OK ||
        (st = gs_cu_g1_upload(im->dev, im->d_c, pk->c, nc, err)) != GS_OK ||
        (st = gs_cu_g1_precompute(im->dev, im->d_h, n, n, im->c_h, im->t_h, err)) != GS_OK ||
        (st = gs_cu_g1_precompute(im->dev, im->d_a, nv, nv, im->c_w, im->t_w, err)) != GS_OK ||
        (st = gs_cu_g1_precompute(im->dev, im->d_b1, nv, nv, im->c_w, im->t_w, err)) != GS_OK ||
        (st = gs_cu_g1_precompute(im->dev, im->d_c, nc, nc, im->c_w, im->t_w, err)) != GS_OK ||
        (st = gs_cu_ntt_prepare(im->dev, pk->log_domain + 1, err)) != GS_OK ||
        (st = gs_cu_sync(im->dev, err)) != GS_OK)
        goto fail;
    im->pk = pk;
    im->pk_vars = pk->n_vars;
    im->pk_domain = pk->domain_size;
    snprintf(im->plan, sizeof im->plan, "H c=%u t=%u, witness c=%u t=%u", im->c_h, im->t_h,
             im->c_w, im->t_w);
    return GS_OK;
fail:
    free_key(im);
    return st;
}

/* B2's window plan for its m compacted points: the modelled cheapest
 * (gs_cu_msm_pick) with at most b2_copies precomputed copies (knobs.h,
 * default 16) whose points, indices, scalars and MSM scratch fit in `fr`
 * bytes of free device memory with 3 GiB to spare (the G1 sets are
 * resident by then).  Copies cut B2's windows as they cut the G1 sets':
 * 2^20 points take c = 20 and one set of buckets for 13 windows (t = 13)
 * instead of 22 windows of c = 12 (bench/RESULTS.md, round 3 session 15). */
static void plan_b2(cuda_impl *im, size_t m, size_t fr)
{
    unsigned mc = (unsigned)gs_cu_knob(GS_CU_K_B2_COPIES);
    double best = -1;
    if (mc < 1) mc = 1;
    if (mc > 16) mc = 16;
    gs_cu_msm_pick(m, 1, 0, &im->c_b2, &im->t_b2);
    for (unsigned mt = 2; mt <= mc && m >= 2; mt++) {
        unsigned c, t;
        double cost = gs_cu_msm_pick(m, mt, 0, &c, &t);
        size_t need = m * (192 * (size_t)t + 4 + 32) + gs_cu_msm_scratch_bytes(m, c, t, 1) + ((size_t)3 << 30);
        if (t < 2 || need > fr || (best >= 0 && cost >= best)) continue;
        best = cost;
        im->c_b2 = c;
        im->t_b2 = t;
    }
}

/* Caller holds im->mu and has loaded pk: uploads B2 (compacted, with the
 * copies plan_b2 chose) if it is not resident yet. */
static gs_status load_b2_locked(cuda_impl *im, const gs_pk *pk, gs_err *err)
{
    gs_status st = GS_OK;
    uint32_t *idx = NULL;
    size_t m = 0, fr, total;
    if (im->b2_loaded) return GS_OK;
    if ((st = gs_cu_mem_info(im->dev, &fr, &total, err)) != GS_OK) return st;
    idx = malloc(((size_t)pk->n_vars + 1) * sizeof *idx);
    if (!idx) return GS_ERR(err, GS_ERR_NOMEM, "cuda prove", "B2 index of %u wires", pk->n_vars);
    for (uint32_t i = 0; i < pk->n_vars; i++)
        if (!pk->b2[i].inf) idx[m++] = i;
    plan_b2(im, m, fr);
    if ((st = gs_cu_alloc(im->dev, &im->d_b2, m * 192 * im->t_b2, err)) != GS_OK ||
        (st = gs_cu_alloc(im->dev, (void **)&im->d_b2_idx, m * sizeof *idx, err)) != GS_OK ||
        (st = gs_cu_alloc(im->dev, (void **)&im->d_b2_w, m * sizeof(gs_scalar), err)) != GS_OK ||
        (st = gs_cu_upload(im->dev, im->d_b2_idx, idx, m * sizeof *idx, 0, err)) != GS_OK ||
        (st = gs_cu_g2_upload(im->dev, im->d_b2, pk->b2, idx, m, err)) != GS_OK ||
        (st = gs_cu_g2_precompute(im->dev, im->d_b2, m, m, im->c_b2, im->t_b2, err)) != GS_OK ||
        (st = gs_cu_sync(im->dev, err)) != GS_OK)
        goto fail;
    free(idx);
    im->b2_n = m;
    im->b2_loaded = 1;
    char *b2p = strstr(im->plan, ", B2 ");
    if (b2p) *b2p = 0;
    size_t used = strlen(im->plan);
    if (im->t_b2 > 1) snprintf(im->plan + used, sizeof im->plan - used, ", B2 c=%u t=%u", im->c_b2, im->t_b2);
    else snprintf(im->plan + used, sizeof im->plan - used, ", B2 no copies");
    return GS_OK;
fail:
    free(idx);
    free_b2(im);
    return st;
}

void gs_cuda_backend_plan(gs_backend *be, char *out, size_t len)
{
    cuda_impl *im = be->impl;
    pthread_mutex_lock(&im->mu);
    snprintf(out, len, "%s", im->pk ? im->plan : "");
    pthread_mutex_unlock(&im->mu);
}

static gs_status cuda_load_pk(gs_backend *be, const gs_pk *pk, gs_err *err)
{
    cuda_impl *im = be->impl;
    pthread_mutex_lock(&im->mu);
    gs_status st = load_locked(im, pk, err);
    pthread_mutex_unlock(&im->mu);
    return st;
}

static void state_free(gs_prove_state *ps)
{
    if (!ps) return;
    for (int k = 0; k < 4; k++) gs_cu_msm_parts_free(&ps->g1[k]);
    gs_cu_msm_g2_parts_free(&ps->g2);
    free(ps->w);
    free(ps);
}

/* 1 when the knob stream_order = old (GS_CU_ORDER=old) asks for the
 * stream plan before issue 14's pipelining (for A/B measurements): a/b/c
 * staged after the witness MSMs are enqueued, msm_b2 after msm_h. */
static int order_old(void)
{
    return gs_cu_knob_is(GS_CU_K_STREAM_ORDER, "old");
}

/* Enqueues the H chain on stream 1: H2D of a, b, c (marked right before the
 * first DMA) and the H scalars in the key's convention (groth16.h). */
static gs_status enqueue_h_chain(cuda_impl *im, const gs_pk *pk, const gs_assignment *as,
                                 int pageable, gs_err *err)
{
    gs_cu_dev *d = im->dev;
    size_t n = pk->domain_size;
    gs_fr *da = im->d_abc, *db = da + n, *dc = db + n;
    gs_status st;
    if ((st = gs_cu_use_stream(d, 1, err)) != GS_OK ||
        (st = gs_cu_upload_marked(d, da, as->a, n * sizeof(gs_fr), pageable, M_H2D0, err)) != GS_OK ||
        (st = gs_cu_upload(d, db, as->b, n * sizeof(gs_fr), pageable, err)) != GS_OK ||
        (st = gs_cu_upload(d, dc, as->c, n * sizeof(gs_fr), pageable, err)) != GS_OK ||
        (st = gs_cu_mark(d, M_H2D1, err)) != GS_OK)
        return st;
    st = pk->h_conv == GS_H_CLASSIC
             ? gs_cu_h_scalars_classic(d, (gs_scalar *)da, da, db, dc, pk->log_domain, err)
             : gs_cu_h_scalars(d, (gs_scalar *)da, da, db, dc, pk->log_domain, err);
    if (st == GS_OK) st = gs_cu_mark(d, M_NTT, err);
    return st;
}

/* Enqueues the G2 MSM of B on the current stream (the witness scalars of
 * B2's wires gathered on the device first).  Its preparation waits for the
 * stream's work before it. */
static gs_status enqueue_b2(cuda_impl *im, gs_err *err)
{
    gs_cu_dev *d = im->dev;
    gs_status st;
    if ((st = gs_cu_gather_scalars(d, im->d_b2_w, im->d_w, im->d_b2_idx, im->b2_n, err)) != GS_OK ||
        (st = gs_cu_msm_prepare(d, im->d_b2_w, im->b2_n, plan_window(im->c_b2, im->t_b2), im->t_b2, 1,
                                NULL, NULL, err)) != GS_OK ||
        (st = gs_cu_msm_g2_prepared(d, SLOT_B2, im->d_b2, im->b2_n, 0, err)) != GS_OK)
        return st;
    return gs_cu_mark(d, M_MSM_B2, err);
}

/* Caller holds im->mu: the device part of prove_start (stream plan in the
 * file comment).  Leaves the context on stream 0. */
static gs_status device_part(cuda_impl *im, const gs_pk *pk, const gs_assignment *as, int pageable,
                             gs_prove_state *ps, gs_stage_list *stages, int dev, gs_err *err)
{
    gs_cu_dev *d = im->dev;
    size_t n = pk->domain_size, nv = pk->n_vars, np = pk->n_public, nc = nv - np - 1;
    gs_scalar *dh = (gs_scalar *)im->d_abc;
    gs_status st;
    gs_err e2;
    int old = order_old();
    /* The knob h_first (a diagnostic): stream 0 waits for the H chain before
     * the witness preparation, so every stage runs alone. */
    int h_first = !old && gs_cu_knob(GS_CU_K_H_FIRST) == 1;
    /* a, b, c page-locked (the caller synthesized into pinned buffers, or
     * registered them): their H2D needs no host work, so the H chain is
     * enqueued before the host waits on the witness preparation. */
    int direct = !pageable && gs_cu_host_pinned(as->a, n * sizeof(gs_fr)) &&
                 gs_cu_host_pinned(as->b, n * sizeof(gs_fr)) &&
                 gs_cu_host_pinned(as->c, n * sizeof(gs_fr));
#define TRY(x) do { if ((st = (x)) != GS_OK) goto out; } while (0)
    TRY(gs_cu_clock_align(d, err));
    /* Stream 0: the witness first (the witness MSMs can start on 1/4 of the
     * bytes a, b, c take). */
    TRY(gs_cu_use_stream(d, 0, err));
    TRY(gs_cu_upload_marked(d, im->d_w, as->w, nv * sizeof(gs_scalar), pageable, M_H2DW0, err));
    TRY(gs_cu_mark(d, M_H2DW1, err));
    if ((direct || h_first) && !old) {
        /* Stream 1's DMA after the witness's (the link to itself), then the
         * NTTs at stream 1's higher priority beside the witness MSMs (or,
         * h_first, before them). */
        TRY(gs_cu_stream_wait(d, 1, 0, err));
        TRY(enqueue_h_chain(im, pk, as, pageable, err));
        TRY(gs_cu_use_stream(d, 0, err));
        if (h_first) {
            TRY(gs_cu_stream_wait(d, 0, 1, err));
            TRY(gs_cu_mark(d, M_HWAIT, err));
        }
    }
    /* Stream 0: the witness's preparation (the host waits for it) and the
     * three witness MSMs. */
    TRY(gs_cu_msm_prepare(d, im->d_w, nv, plan_window(im->c_w, im->t_w), im->t_w, 0, NULL, NULL, err));
    TRY(gs_cu_mark(d, M_PREP_W, err));
    TRY(gs_cu_msm_g1_prepared(d, 1, im->d_c, nc, np + 1, err));
    TRY(gs_cu_mark(d, M_MSM_L, err));
    TRY(gs_cu_msm_g1_prepared(d, 2, im->d_a, nv, 0, err));
    TRY(gs_cu_mark(d, M_MSM_A, err));
    TRY(gs_cu_msm_g1_prepared(d, 3, im->d_b1, nv, 0, err));
    TRY(gs_cu_mark(d, M_MSM_B1, err));
    if ((!direct && !h_first) || old) {
        /* Staged (or pageable) a/b/c: the host stages them now, while the
         * witness MSMs run. */
        TRY(enqueue_h_chain(im, pk, as, pageable, err));
        TRY(gs_cu_use_stream(d, 0, err));
    }
    /* B2 depends on the witness only: it runs beside the H chain, not after
     * msm_h (its preparation waits for the witness MSMs; a/b/c are queued). */
    if (ps->g2_dev && !old) TRY(enqueue_b2(im, err));
    if (!old) {
        /* The witness MSMs' window sums come back now, to be combined on the
         * host while msm_h runs. */
        for (int k = 1; k < (ps->g2_dev ? SLOT_B2 + 1 : SLOT_B2); k++) TRY(gs_cu_msm_fetch(d, k, err));
        TRY(gs_cu_mark(d, M_WFETCH, err));
    }
    /* Stream 0 once both are done: H. */
    TRY(gs_cu_stream_wait(d, 0, 1, err));
    TRY(gs_cu_mark(d, M_H0, err));
    TRY(gs_cu_msm_prepare(d, dh, n, plan_window(im->c_h, im->t_h), im->t_h, 0, NULL, NULL, err));
    TRY(gs_cu_msm_g1_prepared(d, 0, im->d_h, n, 0, err));
    TRY(gs_cu_mark(d, M_MSM_H, err));
    if (ps->g2_dev && old) TRY(enqueue_b2(im, err));
    if (old)
        for (int k = 1; k < (ps->g2_dev ? SLOT_B2 + 1 : SLOT_B2); k++) TRY(gs_cu_msm_fetch(d, k, err));
    TRY(gs_cu_msm_fetch(d, 0, err));
    TRY(gs_cu_mark(d, M_D2H, err));
    /* While the device works through the queue (msm_h): the witness MSMs'
     * window combination, and the state's copy of the witness for the CPU
     * G2 MSM. */
    if (!old) {
        gs_cu_msm_parts wp;
        gs_cu_msm_g2_parts wp2;
        gs_g1 *dst[4] = { NULL, &ps->l, &ps->a, &ps->b1 };
        TRY(gs_cu_mark_sync(d, M_WFETCH, err));
        for (int k = 1; k < 4; k++) {
            TRY(gs_cu_msm_parts_take(d, k, &wp, err));
            gs_cu_msm_parts_combine(dst[k], &wp);
            gs_cu_msm_parts_free(&wp);
        }
        if (ps->g2_dev) {
            TRY(gs_cu_msm_g2_parts_take(d, SLOT_B2, &wp2, err));
            gs_cu_msm_g2_parts_combine(&ps->b2, &wp2);
            gs_cu_msm_g2_parts_free(&wp2);
        }
        ps->early = 1;
    }
    if (ps->w) memcpy(ps->w, as->w, nv * sizeof *ps->w);
    TRY(gs_cu_sync(d, err));
    TRY(gs_cu_msm_parts_take(d, 0, &ps->g1[0], err));
    if (old) {
        for (int k = 1; k < 4; k++) TRY(gs_cu_msm_parts_take(d, k, &ps->g1[k], err));
        if (ps->g2_dev) TRY(gs_cu_msm_g2_parts_take(d, SLOT_B2, &ps->g2, err));
    }

    /* Stages per stream in the order they ran; msm_b2 (with g2_on_device)
     * right after msm_b1, or, GS_CU_ORDER=old, after msm_h. */
    const int last = (ps->g2_dev && old) ? M_MSM_B2 : M_MSM_H;
    const struct { const char *name; int from, to, stream, copy; } sp[] = {
        { gs_vocab_name(GS_V_H2D_W), M_H2DW0, M_H2DW1, 0, 1 },
        { gs_vocab_name(GS_V_PREP_W), h_first ? M_HWAIT : M_H2DW1, M_PREP_W, 0, 0 },
        { gs_vocab_name(GS_V_MSM_L), M_PREP_W, M_MSM_L, 0, 0 },
        { gs_vocab_name(GS_V_MSM_A), M_MSM_L, M_MSM_A, 0, 0 },
        { gs_vocab_name(GS_V_MSM_B1), M_MSM_A, M_MSM_B1, 0, 0 },
        { gs_vocab_name(GS_V_MSM_B2), M_MSM_B1, M_MSM_B2, 0, 0 },  /* new order only */
        { gs_vocab_name(GS_V_H2D), M_H2D0, M_H2D1, 1, 1 },
        { gs_vocab_name(GS_V_NTT), M_H2D1, M_NTT, 1, 0 },
        { gs_vocab_name(GS_V_MSM_H), M_H0, M_MSM_H, 0, 0 },
        { gs_vocab_name(GS_V_MSM_B2), M_MSM_H, M_MSM_B2, 0, 0 },   /* GS_CU_ORDER=old only */
        { gs_vocab_name(GS_V_D2H), last, M_D2H, 0, 2 },
    };
    for (size_t i = 0; i < sizeof sp / sizeof sp[0]; i++) {
        int64_t t0, t1;
        if (sp[i].to == M_MSM_B2 && (!ps->g2_dev || (sp[i].from == M_MSM_H) != old)) continue;
        TRY(gs_cu_mark_ns(d, sp[i].from, &t0, err));
        TRY(gs_cu_mark_ns(d, sp[i].to, &t1, err));
        uint16_t fl = (sp[i].copy == 1 && pageable) ? GS_STAGE_F_PAGEABLE : 0;
        stage_push(stages, sp[i].name, sp[i].copy ? GS_STAGE_COPY : GS_STAGE_KERNEL, dev,
                   sp[i].stream, t0, t1, fl);
    }
#undef TRY
out:
    /* Back on stream 0 whatever failed (the next proof starts there). */
    gs_err_clear(&e2);
    (void)gs_cu_use_stream(d, 0, &e2);
    return st;
}

static gs_status cuda_prove_start(gs_backend *be, const gs_pk *pk, const gs_assignment *as,
                                  const gs_scalar *r, const gs_scalar *s,
                                  const gs_prove_opts *opts, gs_prove_state **out,
                                  gs_stage_list *stages, gs_err *err)
{
    cuda_impl *im = be->impl;
    gs_prove_state *ps = NULL;
    gs_status st;
    int g2_dev = opts && opts->g2_on_device;
    *out = NULL;
    if ((st = check_key(pk, err)) != GS_OK) return st;
    if (as->n_vars != pk->n_vars || as->domain_size != pk->domain_size)
        return GS_ERR(err, GS_ERR_MISMATCH, "cuda prove", "assignment (%u vars, domain %u) "
                      "does not match the proving key (%u vars, domain %u)", as->n_vars,
                      as->domain_size, pk->n_vars, pk->domain_size);
    ps = calloc(1, sizeof *ps);
    if (ps && !g2_dev) ps->w = malloc((size_t)pk->n_vars * sizeof *ps->w);
    if (!ps || (!g2_dev && !ps->w)) {
        st = GS_ERR(err, GS_ERR_NOMEM, "cuda prove", "state for %u vars", pk->n_vars);
        goto fail;
    }
    ps->pk = pk;
    ps->g2_dev = g2_dev;
    ps->r = *r;
    ps->s = *s;

    int64_t t0 = gs_now_ns();
    pthread_mutex_lock(&im->mu);
    int64_t t1 = gs_now_ns();
    stage_push(stages, gs_vocab_name(GS_V_DEVICE_MUTEX_WAIT), GS_STAGE_HOST, -1, 0, t0, t1, 0);
    st = load_locked(im, pk, err);
    if (st == GS_OK && g2_dev && !im->b2_loaded) {
        st = load_b2_locked(im, pk, err);
        stage_push(stages, gs_vocab_name(GS_V_LOAD_B2), GS_STAGE_HOST, -1, 0, t1, gs_now_ns(), 0);
    }
    if (st == GS_OK)
        st = device_part(im, pk, as, opts ? opts->pageable : 0, ps, stages, be->device, err);
    pthread_mutex_unlock(&im->mu);
    if (st != GS_OK) goto fail;
    *out = ps;
    return GS_OK;
fail:
    state_free(ps);
    return st;
}

static gs_status cuda_prove_finish(gs_backend *be, gs_prove_state *ps, gs_proof *out,
                                   gs_stage_list *stages, gs_err *err)
{
    cuda_impl *im = be->impl;
    if (!ps) return GS_ERR(err, GS_ERR_STATE, "cuda prove", "finish without a started proof");
    gs_g2 b2;
    int64_t t1 = gs_now_ns();
    if (ps->g2_dev) {
        if (ps->early) b2 = ps->b2;
        else gs_cu_msm_g2_parts_combine(&b2, &ps->g2);
    } else {
        int64_t t0 = t1;
        gs_status st = gs_msm_g2(&b2, ps->pk->b2, ps->w, ps->pk->n_vars, im->pool);
        t1 = gs_now_ns();
        stage_push(stages, gs_vocab_name(GS_V_MSM_B2), GS_STAGE_HOST, -1, 0, t0, t1, 0);
        if (st != GS_OK) {
            GS_ERR(err, st, "cuda prove", "G2 MSM scratch");
            state_free(ps);
            return st;
        }
    }
    gs_g16_g1_part g1;
    gs_cu_msm_parts_combine(&g1.h, &ps->g1[0]);
    if (ps->early) {
        g1.l = ps->l;
        g1.a = ps->a;
        g1.b1 = ps->b1;
    } else {
        gs_cu_msm_parts_combine(&g1.l, &ps->g1[1]);
        gs_cu_msm_parts_combine(&g1.a, &ps->g1[2]);
        gs_cu_msm_parts_combine(&g1.b1, &ps->g1[3]);
    }
    gs_g16_epilogue(out, ps->pk, &g1, &b2, &ps->r, &ps->s);
    stage_push(stages, gs_vocab_name(GS_V_EPILOGUE), GS_STAGE_HOST, -1, 0, t1, gs_now_ns(), 0);
    memset(&ps->r, 0, sizeof ps->r);
    memset(&ps->s, 0, sizeof ps->s);
    state_free(ps);
    return GS_OK;
}

static void cuda_prove_abort(gs_backend *be, gs_prove_state *ps)
{
    (void)be;
    state_free(ps);
}

static void cuda_destroy(gs_backend *be)
{
    if (!be) return;
    cuda_impl *im = be->impl;
    if (im) {
        if (im->dev) {
            free_key(im);
            gs_cu_dev_destroy(im->dev);
        }
        gs_pool_destroy(im->pool);
        pthread_mutex_destroy(&im->mu);
        free(im);
    }
    free(be);
}

static const gs_backend_ops cuda_ops = {
    .name = "cuda",
    .caps = { .kind = GS_BE_KIND_GPU, .g2_on_device = 1,
              .assignment_alloc = gs_cuda_assignment_alloc, .assignment_free = gs_cuda_assignment_free,
              .assignment_pin = gs_cuda_assignment_pin, .assignment_unpin = gs_cuda_assignment_unpin },
    .describe = cuda_describe,
    .load_pk = cuda_load_pk,
    .prove_start = cuda_prove_start,
    .prove_finish = cuda_prove_finish,
    .prove_abort = cuda_prove_abort,
    .destroy = cuda_destroy,
};

gs_status gs_backend_cuda_create(gs_backend **out, int device, gs_err *err)
{
    gs_status st;
    *out = NULL;
    int have = gs_cu_device_count();
    if (have == 0) return GS_ERR(err, GS_ERR_NODEV, "cuda backend", "no CUDA device visible");
    if (device < 0 || device >= have)
        return GS_ERR(err, GS_ERR_NODEV, "cuda backend", "device %d requested, %d visible",
                      device, have);
    gs_backend *be = calloc(1, sizeof *be);
    cuda_impl *im = calloc(1, sizeof *im);
    if (!be || !im) {
        free(be);
        free(im);
        return GS_ERR(err, GS_ERR_NOMEM, "cuda backend", "backend object");
    }
    pthread_mutex_init(&im->mu, NULL);
    be->ops = &cuda_ops;
    be->device = device;
    be->impl = im;
    if ((st = gs_cu_dev_create(&im->dev, device, err)) != GS_OK ||
        (st = gs_pool_create(&im->pool, 0, err)) != GS_OK) {
        cuda_destroy(be);
        return st;
    }
    snprintf(im->desc, sizeof im->desc, "%s", gs_cu_dev_describe(im->dev));
    *out = be;
    return GS_OK;
}

#endif /* GS_HAVE_CUDA */
