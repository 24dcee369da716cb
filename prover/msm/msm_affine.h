/*
 * Batch-affine bucket accumulation, written once for G1 and G2 (included by
 * msm_impl.h; the including file defines MSM_FE, MSM_FE_(op), the inlined
 * MSM_FE_SUB, MSM_FE_ADD and MSM_FE_IS_ZERO, and MSM_BATCH_INV(den,
 * scratch, m), which replaces the m nonzero den[i] by their inverses using
 * m elements of scratch, besides the point types).
 *
 * Buckets are affine points.  Adding P to a full bucket Q is the affine
 * chord rule (Hankerson, Menezes, Vanstone, "Guide to Elliptic Curve
 * Cryptography", section 3.1.2):
 *   lambda = (y_P - y_Q) / (x_P - x_Q),  or 3 x_Q^2 / (2 y_Q) when P = Q,
 *   x = lambda^2 - x_Q - x_P,  y = lambda (x_Q - x) - y_Q,
 * and the divisions of a batch of such additions to distinct buckets share
 * one field inversion by Montgomery's trick (P. Montgomery, "Speeding the
 * Pollard and elliptic curve methods of factorization", Math. Comp. 1987,
 * section 10.3.1): 3M per element for the inversions, 2M + 1S for the rest,
 * against 8M + 2S for an XYZZ mixed addition.  This is the "batch affine"
 * accumulation of production MSMs (e.g. Aztec's barretenberg, gnark-crypto).
 *
 * A bucket waiting in the current batch is busy.  A point whose bucket is
 * busy is deferred to the next batch, at most AFF_MAX_WAITS times, up to
 * `batch` deferred points; otherwise it is added to the bucket's XYZZ spill
 * point (complete mixed addition, curve.h), so the work stays bounded
 * whatever the scalars (all-equal digits fill the deferral list, then
 * spill).  P + (-P) empties the bucket at once; P + P goes into the batch
 * with the tangent slope (y != 0: G1 and G2 points of order r have no
 * 2-torsion).  Infinity points are skipped by the caller.
 *
 * At the end a window's bucket b holds the affine part (if full) plus the
 * spill part (if any); the running sum adds both.
 */

enum { AFF_FULL = 1, AFF_BUSY = 2, AFF_SPILL = 4 };

/* A deferred point meets, at the next batch, the other points deferred
 * from the same busy bucket; waiting only once, ~1.4% of the points
 * spilled at c = 13 with random scalars (~900 per window at 2^16), and a
 * spilled point costs an XYZZ addition and its share of turning the spill
 * affine and adding it (~23 multiplications against 6).  A second wait
 * leaves ~0.15% (bench/RESULTS.md, "CPU MSM overhead"). */
#define AFF_MAX_WAITS 2

#ifndef APPLY_AHEAD
#define APPLY_AHEAD 4
#endif

/* Chains of the batch-affine running sum (msm_affine_reduce.h). */
#define AFF_CHAINS 256

typedef struct {
    void *block;           /* bk, spill_at and st: one allocation (gs_big_alloc_dense) */
    MSM_AFF *bk;           /* n_buckets affine buckets (inf = 0 when full) */
    MSM_XYZZ *spill;       /* spill buckets, dense: spill[spill_at[b]] where AFF_SPILL */
    uint32_t *spill_at;    /* n_buckets, read only where AFF_SPILL */
    size_t n_spill;        /* spill buckets in use this window */
    uint8_t *st;           /* n_buckets states */
    size_t cap;            /* batch capacity: max(batch, 2 AFF_CHAINS) */
    MSM_AFF **tq;          /* batch: the point each pending addition updates */
    const MSM_FE **px;     /* batch: x of the point added to it */
    MSM_FE *num, *den;     /* batch: slope numerator and denominator */
    MSM_FE *pre;           /* batch: scratch of MSM_BATCH_INV */
    size_t m;              /* additions in the batch */
    struct MSM_G(aff_pend) { const MSM_AFF *p; uint32_t b; uint16_t neg, waits; } *pend;
    size_t n_pend, pend_cap;  /* points deferred to the next batch */
    MSM_AFF *tmp;          /* cap points: spill buckets made affine */
    MSM_AFF *run, *acc;    /* AFF_CHAINS running sums */
} MSM_G(aff_scratch);

static void MSM_G(aff_free)(MSM_G(aff_scratch) *s)
{
    if (!s)
        return;
    free(s->block);
    free(s->spill);
    free(s->tq);
    free(s->px);
    free(s->num);
    free(s->den);
    free(s->pre);
    free(s->tmp);
    free(s->pend);
    free(s->run);
    free(s->acc);
    free(s);
}

static MSM_G(aff_scratch) *MSM_G(aff_alloc)(size_t n_buckets, size_t batch)
{
    MSM_G(aff_scratch) *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    size_t cap = batch > 2 * AFF_CHAINS ? batch : 2 * AFF_CHAINS;
    s->cap = cap;
    /* Buckets, their spill indices and states in one block: every bucket is
     * written, so at c = 15 (~1.8 MB per thread) huge pages save ~450 faults
     * per thread and MSM. */
    size_t bk_bytes = n_buckets * sizeof *s->bk, at_bytes = n_buckets * sizeof *s->spill_at;
    s->block = gs_big_alloc_dense(bk_bytes + at_bytes + n_buckets);
    if (s->block) {
        s->bk = s->block;
        s->spill_at = (uint32_t *)((unsigned char *)s->block + bk_bytes);
        s->st = (uint8_t *)s->block + bk_bytes + at_bytes;
    }
    /* Room for every bucket, but filled from the start: only the pages of
     * the spills a window makes are touched (a point array's worth of
     * sparse page faults otherwise, bench/RESULTS.md). */
    s->spill = malloc(n_buckets * sizeof *s->spill);
    s->tq = malloc(cap * sizeof *s->tq);
    s->px = malloc(cap * sizeof *s->px);
    s->num = malloc(cap * sizeof *s->num);
    s->den = malloc(cap * sizeof *s->den);
    s->pre = malloc(cap * sizeof *s->pre);
    s->tmp = malloc(cap * sizeof *s->tmp);
    s->pend_cap = batch;
    s->pend = malloc(batch * sizeof *s->pend);
    s->run = malloc(AFF_CHAINS * sizeof *s->run);
    s->acc = malloc(AFF_CHAINS * sizeof *s->acc);
    if (!s->block || !s->spill || !s->tq || !s->px || !s->num || !s->den || !s->pre ||
        !s->tmp || !s->pend || !s->run || !s->acc) {
        MSM_G(aff_free)(s);
        return NULL;
    }
    return s;
}

/*
 * Queues Q += A for finite Q and A = (ax, neg ? -ay : ay) (Q not already
 * queued): a chord or a tangent goes into the batch; Q + (-Q) makes Q
 * infinity at once.  Returns 1 if queued.  A negated point costs nothing:
 * its chord slope (-ay - y_Q) / (ax - x_Q) is queued as
 * (ay + y_Q) / (x_Q - ax), and x_Q = ax is read off the denominator.
 */
static inline int MSM_G(aff_queue)(MSM_G(aff_scratch) *s, MSM_AFF *q, const MSM_FE *ax,
                                   const MSM_FE *ay, int neg)
{
    size_t k = s->m;
    if (neg) {
        MSM_FE_ADD(&s->num[k], ay, &q->y);
        MSM_FE_SUB(&s->den[k], &q->x, ax);
    } else {
        MSM_FE_SUB(&s->num[k], ay, &q->y);
        MSM_FE_SUB(&s->den[k], ax, &q->x);
    }
    if (MSM_FE_IS_ZERO(&s->den[k])) {
        if (!MSM_FE_IS_ZERO(&s->num[k])) {
            q->inf = 1;                              /* Q + (-Q) */
            return 0;
        }
        MSM_FE t;                                    /* Q + Q: tangent */
        MSM_FE_(sqr)(&t, &q->x);
        MSM_FE_(dbl)(&s->num[k], &t);
        MSM_FE_(add)(&s->num[k], &s->num[k], &t);
        MSM_FE_(dbl)(&s->den[k], &q->y);
    }
    s->tq[k] = q;
    s->px[k] = ax;
    s->m = k + 1;
    return 1;
}

/* Completes the queued additions: one inversion for all denominators (all
 * nonzero, MSM_BATCH_INV), then each target gets its chord or tangent
 * result. */
static void MSM_G(aff_apply)(MSM_G(aff_scratch) *s)
{
    size_t m = s->m;
    if (m == 0)
        return;
    MSM_BATCH_INV(s->den, s->pre, m);
    for (size_t i = 0; i < m; i++) {
        MSM_FE lam, t;
        MSM_AFF *q = s->tq[i];
        if (i + APPLY_AHEAD < m) {
            /* The target was last touched a batch ago: fetch it early. */
            const char *f = (const char *)s->tq[i + APPLY_AHEAD];
            __builtin_prefetch(f, 1, 3);
            __builtin_prefetch(f + sizeof(MSM_AFF) - 1, 1, 3);
        }
        MSM_FE_(mul)(&lam, &s->num[i], &s->den[i]);
        MSM_FE_(sqr)(&t, &lam);
        MSM_FE_SUB(&t, &t, &q->x);
        MSM_FE_SUB(&t, &t, s->px[i]);           /* x3 */
        MSM_FE_SUB(&q->x, &q->x, &t);           /* x_Q - x3 */
        MSM_FE_(mul)(&lam, &lam, &q->x);
        MSM_FE_SUB(&q->y, &lam, &q->y);
        q->x = t;
    }
}

/* Bucket b += (neg ? -p : p); p finite and deferred `waits` times so far. */
static inline void MSM_G(aff_insert)(MSM_G(aff_scratch) *s, size_t b, const MSM_AFF *p, int neg,
                                     unsigned waits)
{
    uint8_t f = s->st[b];
    if (f & AFF_BUSY) {
        if (waits < AFF_MAX_WAITS && s->n_pend < s->pend_cap) {
            s->pend[s->n_pend++] =
                (struct MSM_G(aff_pend)){p, (uint32_t)b, (uint16_t)neg, (uint16_t)(waits + 1)};
            return;
        }
        if (!(f & AFF_SPILL)) {
            s->spill_at[b] = (uint32_t)s->n_spill++;   /* at most one per bucket */
            MSM_G(xyzz_set_inf)(&s->spill[s->spill_at[b]]);
            s->st[b] = (uint8_t)(f | AFF_SPILL);
        }
        MSM_XYZZ *z = &s->spill[s->spill_at[b]];
        if (neg) {
            MSM_AFF q;
            MSM_G(affine_neg)(&q, p);
            MSM_G(xyzz_add_affine)(z, z, &q);
        } else {
            MSM_G(xyzz_add_affine)(z, z, p);
        }
        return;
    }
    MSM_AFF *q = &s->bk[b];
    if (!(f & AFF_FULL)) {
        q->x = p->x;
        if (neg)
            MSM_FE_(neg)(&q->y, &p->y);
        else
            q->y = p->y;
        q->inf = 0;
        s->st[b] = (uint8_t)(f | AFF_FULL);
        return;
    }
    if (!MSM_G(aff_queue)(s, q, &p->x, &p->y, neg)) {
        s->st[b] = (uint8_t)(f & ~AFF_FULL);         /* Q + (-Q) */
        return;
    }
    s->st[b] = (uint8_t)(f | AFF_BUSY);
}

/* The bucket batch: apply, then the buckets are free again and the
 * deferred points are inserted anew; one whose bucket another deferred
 * point took first waits again, or spills once it has waited
 * AFF_MAX_WAITS times (with many equal scalars, waiting again and again
 * would leave batches of one).  Entries deferred again here overwrite
 * entries already read. */
static void MSM_G(aff_flush)(MSM_G(aff_scratch) *s)
{
    MSM_G(aff_apply)(s);
    for (size_t i = 0; i < s->m; i++)
        s->st[s->tq[i] - s->bk] &= (uint8_t)~AFF_BUSY;
    s->m = 0;
    size_t n = s->n_pend;
    s->n_pend = 0;
    for (size_t i = 0; i < n; i++) {
        struct MSM_G(aff_pend) e = s->pend[i];
        MSM_G(aff_insert)(s, e.b, e.p, (int)e.neg, e.waits);
    }
}

/* Completes the window: at most AFF_MAX_WAITS + 1 flushes (each after the
 * first applies what the one before placed from the deferred points). */
static void MSM_G(aff_finish)(MSM_G(aff_scratch) *s)
{
    while (s->m || s->n_pend)
        MSM_G(aff_flush)(s);
}

/* S = sum_b (b+1) B[b] over buckets [0, top), B[b] = affine part + spill,
 * by the XYZZ running sum (small windows). */
static void MSM_G(aff_reduce_xyzz)(MSM_JAC *out, const MSM_G(aff_scratch) *s, size_t top)
{
    MSM_XYZZ run, acc;
    MSM_G(xyzz_set_inf)(&run);
    MSM_G(xyzz_set_inf)(&acc);
    for (size_t i = top; i-- > 0;) {
        uint8_t f = s->st[i];
        if (f & AFF_FULL)
            MSM_G(xyzz_add_affine)(&run, &run, &s->bk[i]);
        if (f & AFF_SPILL)
            MSM_G(xyzz_add)(&run, &run, &s->spill[s->spill_at[i]]);
        MSM_G(xyzz_add)(&acc, &acc, &run);
    }
    MSM_G(xyzz_to_jacobian)(out, &acc);
}
