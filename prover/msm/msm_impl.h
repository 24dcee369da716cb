/*
 * Pippenger MSM written once for G1 and G2 (msm.h has the contract).  The
 * including file defines:
 *   MSM_AFF, MSM_JAC, MSM_XYZZ   the point types
 *   MSM_IN                       the input type (gs_msm_g1_in / gs_msm_g2_in)
 *   MSM_G(name)                  gs_g1_##name or gs_g2_##name
 *   MSM_FN, MSM_FN_CFG, MSM_FN_SUM  the public function names
 * and includes this file once.
 *
 * The inputs of a sum (MSM_FN_SUM) are grouped one by one and then taken as
 * one sequence of points: the ranges below may span inputs.
 * Per task (window j, point range p), on slot s's bucket array B[0 .. 2^(c-1)):
 *   for each point P_i with digit d = d_j(k_i) != 0: B[|d|-1] += sign(d) P_i
 *   S_j,p = sum_b (b+1) B[b], by the running sum from the top bucket used.
 * Then S_j = sum_p S_j,p and out = sum_j 2^(pos_j) S_j (Horner, as many
 * doublings as window j has bits, msm_internal.h).
 * The bucket additions are complete (curve.h), so repeated points and
 * buckets that cancel need no special case.
 */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "../../common/bigmem.h"

#ifndef PREFETCH_AHEAD
#define PREFETCH_AHEAD 2
#endif

#ifndef AFF_AHEAD
#define AFF_AHEAD 4
#endif

#include "msm_affine.h"
#include "msm_affine_reduce.h"
#include "msm_group.h"

/* The inputs' points as one sequence: input k holds indices
 * [off[k], off[k + 1]) of the n. */
typedef struct {
    const MSM_AFF *points[GS_MSM_MAX_INPUTS];
    const gs_scalar *scalars[GS_MSM_MAX_INPUTS];
    size_t off[GS_MSM_MAX_INPUTS + 1];
    size_t n_in;
    size_t n;
    msm_plan plan;
    MSM_XYZZ **buckets;      /* XYZZ mode: one array per slot, allocated on first use */
    MSM_G(aff_scratch) **aff; /* batch-affine mode: one per slot, allocated on first use */
    MSM_JAC *sums;           /* one per task */
    atomic_int nomem;
} MSM_G(msm_ctx);

/* The part of input k among the points [lo, hi): its points and scalars
 * from *pts, *sc; returns how many (0: none). */
static inline size_t MSM_G(input_part)(const MSM_G(msm_ctx) *c, size_t k, size_t lo, size_t hi,
                                       const MSM_AFF **pts, const gs_scalar **sc)
{
    size_t a0 = lo > c->off[k] ? lo : c->off[k];
    size_t a1 = hi < c->off[k + 1] ? hi : c->off[k + 1];
    if (a0 >= a1)
        return 0;
    *pts = c->points[k] + (a0 - c->off[k]);
    *sc = c->scalars[k] + (a0 - c->off[k]);
    return a1 - a0;
}

/* Window (pos, bits) of n points into the XYZZ buckets b; *top grows to
 * one past the highest bucket touched. */
static void MSM_G(xyzz_range)(MSM_XYZZ *b, size_t *top, const MSM_AFF *pts,
                              const gs_scalar *sc, size_t n, unsigned pos, unsigned bits)
{
    /* The digit, and so the bucket, of point i + PREFETCH_AHEAD is known
     * early: prefetch that bucket, whose add is ~10 field
     * multiplications away, so large bucket arrays do not stall. */
    int64_t ring[PREFETCH_AHEAD], e;
    gs_msm_ring_init(ring, PREFETCH_AHEAD, sc, n, pos, bits);
    for (size_t i = 0; i < n; i++) {
        int64_t d = gs_msm_ring_take(ring, PREFETCH_AHEAD, sc, i, n, pos, bits, &e);
        if (e != 0) {
            const char *q = (const char *)&b[gs_msm_bucket(e)];
            for (size_t off = 0; off < sizeof(MSM_XYZZ); off += 64)
                __builtin_prefetch(q + off, 1, 3);
        }
        const MSM_AFF *p = &pts[i];
        if (d == 0 || p->inf)
            continue;
        size_t idx = gs_msm_bucket(d);
        if (idx + 1 > *top)
            *top = idx + 1;
        if (d > 0) {
            MSM_G(xyzz_add_affine)(&b[idx], &b[idx], p);
        } else {
            MSM_AFF neg;
            MSM_G(affine_neg)(&neg, p);
            MSM_G(xyzz_add_affine)(&b[idx], &b[idx], &neg);
        }
    }
}

/* The same into batch-affine buckets (msm_affine.h), flushing every
 * `batch` additions. */
static void MSM_G(aff_range)(MSM_G(aff_scratch) *s, size_t *top, const MSM_AFF *pts,
                             const gs_scalar *sc, size_t n, unsigned pos, unsigned bits,
                             size_t batch)
{
    int64_t ring[AFF_AHEAD], e;
    gs_msm_ring_init(ring, AFF_AHEAD, sc, n, pos, bits);
    for (size_t i = 0; i < n; i++) {
        int64_t d = gs_msm_ring_take(ring, AFF_AHEAD, sc, i, n, pos, bits, &e);
        if (e != 0) {
            size_t eb = gs_msm_bucket(e);
            const char *q = (const char *)&s->bk[eb];
            __builtin_prefetch(q, 1, 3);
            __builtin_prefetch(q + sizeof(MSM_AFF) - 1, 1, 3);
            __builtin_prefetch(&s->st[eb], 1, 3);
        }
        const MSM_AFF *p = &pts[i];
        if (d == 0 || p->inf)
            continue;
        size_t idx = gs_msm_bucket(d);
        if (idx + 1 > *top)
            *top = idx + 1;
        MSM_G(aff_insert)(s, idx, p, d < 0, 0);
        if (s->m >= batch)
            MSM_G(aff_flush)(s);
    }
}

static void MSM_G(msm_task)(void *vctx, size_t begin, size_t end, unsigned slot)
{
    MSM_G(msm_ctx) *c = vctx;
    const msm_plan *pl = &c->plan;
    size_t n_buckets = (size_t)1 << (pl->c - 1);
    if (!c->buckets[slot]) {
        c->buckets[slot] = malloc(n_buckets * sizeof(MSM_XYZZ));
        if (!c->buckets[slot]) {
            atomic_store(&c->nomem, 1);
            return;
        }
    }
    MSM_XYZZ *b = c->buckets[slot];
    for (size_t t = begin; t < end; t++) {
        unsigned j = (unsigned)(t / pl->n_parts);
        unsigned pos = msm_win_pos(pl, j), bits = msm_win_bits(pl, j);
        size_t lo = (t % pl->n_parts) * pl->part_len;
        size_t hi = lo + pl->part_len < c->n ? lo + pl->part_len : c->n;
        size_t top = 0;   /* one past the highest bucket touched */
        for (size_t i = 0; i < n_buckets; i++)
            MSM_G(xyzz_set_inf)(&b[i]);
        for (size_t k = 0; k < c->n_in; k++) {
            const MSM_AFF *pts;
            const gs_scalar *sc;
            size_t m = MSM_G(input_part)(c, k, lo, hi, &pts, &sc);
            if (m)
                MSM_G(xyzz_range)(b, &top, pts, sc, m, pos, bits);
        }
        /* Running sum: after step b, run = B[top-1] + ... + B[b] and acc
         * has gained run, so acc = sum_b (b+1) B[b] at the end. */
        MSM_XYZZ run, acc;
        MSM_G(xyzz_set_inf)(&run);
        MSM_G(xyzz_set_inf)(&acc);
        for (size_t i = top; i-- > 0;) {
            MSM_G(xyzz_add)(&run, &run, &b[i]);
            MSM_G(xyzz_add)(&acc, &acc, &run);
        }
        MSM_G(xyzz_to_jacobian)(&c->sums[t], &acc);
    }
}

/* The same task with batch-affine buckets (msm_affine.h). */
static void MSM_G(msm_task_aff)(void *vctx, size_t begin, size_t end, unsigned slot)
{
    MSM_G(msm_ctx) *c = vctx;
    const msm_plan *pl = &c->plan;
    size_t n_buckets = (size_t)1 << (pl->c - 1);
    if (!c->aff[slot]) {
        c->aff[slot] = MSM_G(aff_alloc)(n_buckets, pl->batch);
        if (!c->aff[slot]) {
            atomic_store(&c->nomem, 1);
            return;
        }
    }
    MSM_G(aff_scratch) *s = c->aff[slot];
    for (size_t t = begin; t < end; t++) {
        unsigned j = (unsigned)(t / pl->n_parts);
        unsigned pos = msm_win_pos(pl, j), bits = msm_win_bits(pl, j);
        size_t batch = j < pl->n_wide ? pl->batch : pl->batch_narrow;
        size_t lo = (t % pl->n_parts) * pl->part_len;
        size_t hi = lo + pl->part_len < c->n ? lo + pl->part_len : c->n;
        size_t top = 0;
        memset(s->st, 0, n_buckets);
        s->m = 0;
        s->n_pend = 0;
        s->n_spill = 0;
        for (size_t k = 0; k < c->n_in; k++) {
            const MSM_AFF *pts;
            const gs_scalar *sc;
            size_t m = MSM_G(input_part)(c, k, lo, hi, &pts, &sc);
            if (m)
                MSM_G(aff_range)(s, &top, pts, sc, m, pos, bits, batch);
        }
        MSM_G(aff_finish)(s);
        MSM_G(aff_reduce)(&c->sums[t], s, top);
    }
}

gs_status MSM_FN_SUM(MSM_JAC *out, const MSM_IN *in, size_t n_in, gs_pool *pool,
                     const gs_msm_cfg *cfg)
{
    gs_status st = GS_OK;
    MSM_G(msm_ctx) c = {.n_in = 0};
    unsigned width = gs_pool_width(pool);
    MSM_AFF *gp[GS_MSM_MAX_INPUTS] = {NULL};
    gs_scalar *gk[GS_MSM_MAX_INPUTS] = {NULL};
    MSM_G(set_inf)(out);
    if (n_in > GS_MSM_MAX_INPUTS)
        return GS_ERR_ARG;
    /* Each input grouped on its own (msm_group.h), then appended. */
    unsigned bits = 0;
    for (size_t k = 0; k < n_in; k++) {
        const MSM_AFF *pts = in[k].points;
        const gs_scalar *sc = in[k].scalars;
        size_t n = in[k].n;
        if (n == 0)
            continue;
        if (!(cfg && cfg->group == 1) && !in[k].no_group) {
            size_t gm;
            st = MSM_G(msm_group)(&gp[k], &gk[k], &gm, pts, sc, n, pool);
            if (st != GS_OK)
                goto fail;
            if (gp[k]) {
                pts = gp[k];
                sc = gk[k];
                n = gm;
            }
        }
        unsigned b = gs_msm_scalar_bits(sc, n);
        if (n == 0 || b == 0)
            continue;                                  /* all zero */
        if (b > bits)
            bits = b;
        c.points[c.n_in] = pts;
        c.scalars[c.n_in] = sc;
        c.off[c.n_in] = c.n;
        c.n += n;
        c.n_in++;
    }
    c.off[c.n_in] = c.n;
    if (c.n == 0)
        goto fail;                                     /* infinity */
    gs_msm_plan(&c.plan, c.n, width, bits, cfg);
    atomic_init(&c.nomem, 0);
    c.buckets = calloc(width, sizeof *c.buckets);
    c.aff = calloc(width, sizeof *c.aff);
    c.sums = malloc(c.plan.n_tasks * sizeof *c.sums);
    if (!c.buckets || !c.aff || !c.sums) {
        st = GS_ERR_NOMEM;
        goto fail;
    }
    gs_pool_for(pool, c.plan.n_tasks, 1, c.plan.batch ? MSM_G(msm_task_aff) : MSM_G(msm_task), &c);
    if (atomic_load(&c.nomem)) {
        st = GS_ERR_NOMEM;
        goto fail;
    }
    /* out = sum_j 2^(pos_j) S_j, top window first: window j + 1 starts
     * bits(j) above window j. */
    for (unsigned j = c.plan.n_windows; j-- > 0;) {
        for (unsigned k = 0; k < msm_win_bits(&c.plan, j); k++)
            MSM_G(dbl)(out, out);
        for (size_t p = 0; p < c.plan.n_parts; p++)
            MSM_G(add)(out, out, &c.sums[(size_t)j * c.plan.n_parts + p]);
    }

fail:
    if (st != GS_OK)
        MSM_G(set_inf)(out);
    if (c.buckets)
        for (unsigned s = 0; s < width; s++)
            free(c.buckets[s]);
    if (c.aff)
        for (unsigned s = 0; s < width; s++)
            MSM_G(aff_free)(c.aff[s]);
    free(c.buckets);
    free(c.aff);
    free(c.sums);
    for (size_t k = 0; k < GS_MSM_MAX_INPUTS; k++) {
        free(gp[k]);
        free(gk[k]);
    }
    return st;
}

gs_status MSM_FN_CFG(MSM_JAC *out, const MSM_AFF *points, const gs_scalar *scalars,
                     size_t n, gs_pool *pool, const gs_msm_cfg *cfg)
{
    MSM_IN one = {.points = points, .scalars = scalars, .n = n};
    return MSM_FN_SUM(out, &one, 1, pool, cfg);
}

gs_status MSM_FN(MSM_JAC *out, const MSM_AFF *points, const gs_scalar *scalars, size_t n,
                 gs_pool *pool)
{
    return MSM_FN_CFG(out, points, scalars, n, pool, NULL);
}
