/*
 * The CPU backend (backend.h): the same split as a GPU prover, run on the
 * backend's thread pool.
 *
 *   prove_start  (under the backend's "device" mutex, the stand-in for a
 *                 GPU's per-device lock): copy a, b, c to scratch
 *                 (host_prep), H scalars in the key's convention (intt,
 *                 coset, ntt; groth16.h), then the G1 MSMs: msm_c (H's
 *                 points, the C points of wires > nPublic and B1's points
 *                 by r w, summed in one Pippenger) and msm_a;
 *   prove_finish (no lock, may overlap the next prove_start): msm_b2 on G2
 *                 and the blinding epilogue (SNARKJS-FORMATS 7.4).
 *
 * Stages: device-like work is reported as device 0, stream 0 (KERNEL);
 * the mutex wait, host prep, G2 MSM and epilogue as host stages (device -1).
 *
 * Lock order: impl->mu only; it protects the cached domain and serializes
 * the device-like phase.  prove_finish touches only its own state.
 * The state keeps a copy of the witness and r, s, and borrows pk: pk must
 * outlive prove_finish/prove_abort; the assignment may be freed as soon as
 * prove_start returns.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../common/bigmem.h"
#include "../../common/clock.h"
#include "../../common/cpuinfo.h"
#include "../../timeline/vocab.h"
#include "../msm/msm.h"
#include "backend.h"
#include "g16_internal.h"

typedef struct {
    gs_pool *pool;
    pthread_mutex_t mu;
    gs_domain *dom;          /* protected by mu */
    char desc[160];
} cpu_impl;

struct gs_prove_state {
    const gs_pk *pk;
    gs_g16_g1_part g1;
    gs_scalar r, s;
    const gs_scalar *w;      /* the witness (n_vars): w_own, or the caller's (consume) */
    gs_scalar *w_own;        /* copy of the witness, unless opts->consume */
    gs_msm_cfg wcfg;         /* the MSMs over w: .group = 1 when w barely repeats */
};

static void stage_push(gs_stage_list *l, const char *name, gs_stage_kind kind, int dev,
                       int64_t t0, int64_t t1)
{
    if (!l || l->n >= GS_STAGE_MAX)
        return;
    l->s[l->n++] = (gs_stage){ .name = name, .kind = kind, .device = dev, .stream = 0,
                               .start_ns = t0, .end_ns = t1, .flags = 0 };
}

static const char *cpu_describe(gs_backend *be)
{
    return ((cpu_impl *)be->impl)->desc;
}

/* Caller holds impl->mu. */
static gs_status ensure_domain(cpu_impl *im, uint32_t log, gs_err *err)
{
    if (im->dom && gs_domain_log(im->dom) == log)
        return GS_OK;
    gs_domain_destroy(im->dom);
    im->dom = NULL;
    return gs_domain_create(&im->dom, log, im->pool, err);
}

static gs_status check_inputs(const gs_pk *pk, const gs_assignment *as, gs_err *err)
{
    if ((unsigned)pk->h_conv >= GS_H_CONV_COUNT)
        return GS_ERR(err, GS_ERR_FORMAT, "prove", "proving key: unknown H convention %d",
                      (int)pk->h_conv);
    if (as->n_vars != pk->n_vars || as->domain_size != pk->domain_size)
        return GS_ERR(err, GS_ERR_MISMATCH, "prove", "assignment (%u vars, domain %u) does "
                      "not match the proving key (%u vars, domain %u)", as->n_vars,
                      as->domain_size, pk->n_vars, pk->domain_size);
    if (pk->domain_size != (1u << pk->log_domain) || pk->n_vars < pk->n_public + 1)
        return GS_ERR(err, GS_ERR_FORMAT, "prove", "proving key: inconsistent sizes");
    return GS_OK;
}

static gs_status cpu_load_pk(gs_backend *be, const gs_pk *pk, gs_err *err)
{
    cpu_impl *im = be->impl;
    pthread_mutex_lock(&im->mu);
    gs_status st = ensure_domain(im, pk->log_domain, err);
    pthread_mutex_unlock(&im->mu);
    return st;
}

static void state_free(gs_prove_state *ps)
{
    if (!ps)
        return;
    free(ps->w_own);
    free(ps);
}

/* out[i] = w[i] r mod r (plain): one Montgomery multiplication each,
 * w[i] (plain, any 256-bit value) times r in Montgomery form. */
typedef struct {
    gs_scalar *out;
    const gs_scalar *w;
    gs_fr r;
} scale_ctx;

static void scale_chunk(void *vctx, size_t begin, size_t end, unsigned slot)
{
    (void)slot;
    const scale_ctx *x = vctx;
    for (size_t i = begin; i < end; i++) {
        gs_fr t;
        memcpy(t.l, x->w[i].l, sizeof t.l);
        gs_fr_mul(&t, &t, &x->r);
        memcpy(x->out[i].l, t.l, sizeof t.l);
    }
}

static void scale_scalars(gs_scalar *out, const gs_scalar *w, size_t n, const gs_fr *r,
                          gs_pool *pool)
{
    scale_ctx x = {.out = out, .w = w, .r = *r};
    gs_pool_for(pool, n, 0, scale_chunk, &x);
}

static gs_status cpu_prove_start(gs_backend *be, const gs_pk *pk, const gs_assignment *as,
                                 const gs_scalar *r, const gs_scalar *s,
                                 const gs_prove_opts *opts, gs_prove_state **out,
                                 gs_stage_list *stages, gs_err *err)
{
    cpu_impl *im = be->impl;
    int consume = opts && opts->consume;
    gs_fr *buf = NULL;
    *out = NULL;
    gs_status st = check_inputs(pk, as, err);
    if (st != GS_OK)
        return st;
    size_t n = pk->domain_size, nv = pk->n_vars, np = pk->n_public;
    gs_prove_state *ps = calloc(1, sizeof *ps);
    if (ps && !consume)
        ps->w_own = gs_big_alloc(nv * sizeof *ps->w_own);
    if (!consume)
        buf = gs_big_alloc(3 * n * sizeof *buf);
    if (!ps || (!consume && (!ps->w_own || !buf))) {
        st = GS_ERR(err, GS_ERR_NOMEM, "prove", "scratch for domain %zu", n);
        goto fail;
    }
    ps->pk = pk;
    ps->r = *r;
    ps->s = *s;
    if (consume) {
        ps->w = as->w;
    } else {
        memcpy(ps->w_own, as->w, nv * sizeof *ps->w_own);
        ps->w = ps->w_own;
    }

    int64_t t0 = gs_now_ns();
    pthread_mutex_lock(&im->mu);
    int64_t t1 = gs_now_ns();
    stage_push(stages, gs_vocab_name(GS_V_DEVICE_MUTEX_WAIT), GS_STAGE_HOST, -1, t0, t1);
    if ((st = ensure_domain(im, pk->log_domain, err)) != GS_OK) {
        pthread_mutex_unlock(&im->mu);
        goto fail;
    }
    gs_fr *a = as->a, *b = as->b, *c = as->c;
    if (!consume) {
        a = buf, b = buf + n, c = buf + 2 * n;
        memcpy(a, as->a, n * sizeof *a);
        memcpy(b, as->b, n * sizeof *b);
        memcpy(c, as->c, n * sizeof *c);
    }
    int64_t t2 = gs_now_ns();
    stage_push(stages, gs_vocab_name(GS_V_HOST_PREP), GS_STAGE_HOST, -1, t1, t2);

    gs_g16_h_intt(im->dom, a, b, c, im->pool);
    int64_t t3 = gs_now_ns();
    stage_push(stages, gs_vocab_name(GS_V_INTT), GS_STAGE_KERNEL, 0, t2, t3);
    int classic = pk->h_conv == GS_H_CLASSIC;
    if (classic)
        gs_g16_h_coset_classic(im->dom, a, b, c, im->pool);
    else
        gs_g16_h_coset(im->dom, a, b, c, im->pool);
    int64_t t4 = gs_now_ns();
    stage_push(stages, gs_vocab_name(GS_V_COSET), GS_STAGE_KERNEL, 0, t3, t4);
    gs_scalar *h = (gs_scalar *)a;   /* join writes element i after reading a[i] */
    if (classic)
        gs_g16_h_ntt_join_classic(h, im->dom, a, b, c, im->pool);
    else
        gs_g16_h_ntt_join(h, im->dom, a, b, c, im->pool);
    int64_t t5 = gs_now_ns();
    stage_push(stages, gs_vocab_name(GS_V_NTT), GS_STAGE_KERNEL, 0, t4, t5);

    /* Two G1 MSMs.  msm_a: A's points by the witness.  msm_c: everything
     * pi_C needs, as one sum of MSMs (gs_msm_g1_sum: one Pippenger over
     * all their points, cheaper than three): H's points by the H scalars,
     * the C points by the private witness, and B1's points by r w, so that
     *   l = C_msm + H_msm + r B1_msm,  h = b1 = infinity,
     * and the epilogue's pi_C = l + h + s pi_a + r (beta_1 + b1 + s delta_1)
     * - r s delta_1 is the same point as with the three MSMs apart (it
     * uses b1 nowhere else).  With r = 0 the B1 input is left out.  H's
     * scalars are the quotient's coefficients, as good as random, so the
     * equal-scalar pass (msm.h) is skipped for them (it would find nothing
     * and cost 1.3-9 ms at 2^16; bench/RESULTS.md, "CPU MSM overhead"). */
    gs_scalar *rw = NULL;
    gs_fr rf;
    if (!gs_fr_from_scalar(&rf, &ps->r)) {
        pthread_mutex_unlock(&im->mu);
        st = GS_ERR(err, GS_ERR_ARG, "prove", "blinding scalar r is not below the group order");
        goto fail;
    }
    int with_b1 = !gs_fr_is_zero(&rf);
    /* r w goes where b and c were (dead once h is made; h is in a), which
     * holds it whenever the wires fit in two domains (in one, b, when b
     * and c are the caller's separate arrays): no new memory. */
    int rw_own = with_b1 && nv > (consume ? n : 2 * n);
    if (with_b1)
        rw = rw_own ? gs_big_alloc(nv * sizeof *rw) : (gs_scalar *)b;
    if (with_b1 && !rw) {
        pthread_mutex_unlock(&im->mu);
        st = GS_ERR(err, GS_ERR_NOMEM, "prove", "r w scalars for %zu wires", nv);
        goto fail;
    }
    if (with_b1)
        scale_scalars(rw, ps->w, nv, &rf, im->pool);
    /* One count of w's repeated values instead of a hash pass per MSM over
     * w, its private part or r w (msm.h: a bound for all of them). */
    size_t n_priv = nv - np - 1;
    int group = gs_msm_repeats(ps->w, nv, im->pool) >=
                GS_MSM_GROUP_MIN_SAVED * (double)(n_priv ? n_priv : 1);
    ps->wcfg = (gs_msm_cfg){.group = group ? 0 : 1};
    gs_msm_g1_in c_in[3] = {
        { .points = pk->h, .scalars = h, .n = n, .no_group = 1 },
        { .points = pk->c, .scalars = ps->w + np + 1, .n = n_priv, .no_group = !group },
        { .points = pk->b1, .scalars = rw, .n = with_b1 ? nv : 0, .no_group = !group },
    };
    gs_g1_set_inf(&ps->g1.h);
    gs_g1_set_inf(&ps->g1.b1);
    st = gs_msm_g1_sum(&ps->g1.l, c_in, 3, im->pool, NULL);
    int64_t t6 = gs_now_ns();
    stage_push(stages, gs_vocab_name(GS_V_MSM_C), GS_STAGE_KERNEL, 0, t5, t6);
    if (rw_own)
        free(rw);
    if (st == GS_OK) {
        st = gs_msm_g1_cfg(&ps->g1.a, pk->a, ps->w, nv, im->pool, &ps->wcfg);
        stage_push(stages, gs_vocab_name(GS_V_MSM_A), GS_STAGE_KERNEL, 0, t6, gs_now_ns());
    }
    pthread_mutex_unlock(&im->mu);
    if (st != GS_OK) {
        GS_ERR(err, st, "prove", "G1 MSM scratch");
        goto fail;
    }
    free(buf);
    *out = ps;
    return GS_OK;
fail:
    free(buf);
    state_free(ps);
    return st;
}

static gs_status cpu_prove_finish(gs_backend *be, gs_prove_state *ps, gs_proof *out,
                                  gs_stage_list *stages, gs_err *err)
{
    cpu_impl *im = be->impl;
    if (!ps)
        return GS_ERR(err, GS_ERR_STATE, "prove", "finish without a started proof");
    gs_g2 b2;
    int64_t t0 = gs_now_ns();
    gs_status st = gs_msm_g2_cfg(&b2, ps->pk->b2, ps->w, ps->pk->n_vars, im->pool, &ps->wcfg);
    int64_t t1 = gs_now_ns();
    stage_push(stages, gs_vocab_name(GS_V_MSM_B2), GS_STAGE_HOST, -1, t0, t1);
    if (st != GS_OK) {
        GS_ERR(err, st, "prove", "G2 MSM scratch");
        state_free(ps);
        return st;
    }
    gs_g16_epilogue(out, ps->pk, &ps->g1, &b2, &ps->r, &ps->s);
    stage_push(stages, gs_vocab_name(GS_V_EPILOGUE), GS_STAGE_HOST, -1, t1, gs_now_ns());
    memset(&ps->r, 0, sizeof ps->r);
    memset(&ps->s, 0, sizeof ps->s);
    state_free(ps);
    return GS_OK;
}

static void cpu_prove_abort(gs_backend *be, gs_prove_state *ps)
{
    (void)be;
    state_free(ps);
}

static void cpu_destroy(gs_backend *be)
{
    if (!be)
        return;
    cpu_impl *im = be->impl;
    if (im) {
        gs_domain_destroy(im->dom);
        gs_pool_destroy(im->pool);
        pthread_mutex_destroy(&im->mu);
        free(im);
    }
    free(be);
}

static const gs_backend_ops cpu_ops = {
    .name = "cpu",
    /* Heap assignments; the G2 MSM always runs in prove_finish. */
    .caps = { .kind = GS_BE_KIND_HOST, .g2_on_device = 0 },
    .describe = cpu_describe,
    .load_pk = cpu_load_pk,
    .prove_start = cpu_prove_start,
    .prove_finish = cpu_prove_finish,
    .prove_abort = cpu_prove_abort,
    .destroy = cpu_destroy,
};

gs_status gs_backend_cpu_create(gs_backend **out, int threads, gs_err *err)
{
    *out = NULL;
    gs_backend *be = calloc(1, sizeof *be);
    cpu_impl *im = calloc(1, sizeof *im);
    if (!be || !im) {
        free(be);
        free(im);
        return GS_ERR(err, GS_ERR_NOMEM, "cpu backend", "backend object");
    }
    gs_status st = gs_pool_create(&im->pool, threads < 0 ? 0 : (unsigned)threads, err);
    if (st != GS_OK) {
        free(be);
        free(im);
        return st;
    }
    pthread_mutex_init(&im->mu, NULL);
    char model[120];
    if (!gs_cpuinfo_field(model, sizeof model, "model name"))
        snprintf(model, sizeof model, "unknown CPU");
    snprintf(im->desc, sizeof im->desc, "%s, %u threads", model, gs_pool_width(im->pool));
    be->ops = &cpu_ops;
    be->device = -1;
    be->impl = im;
    *out = be;
    return GS_OK;
}
