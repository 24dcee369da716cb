/*
 * Batch-affine bucket accumulation, written once for G1 and G2 (included by
 * msm_impl.h; the including file defines MSM_FE, MSM_FE_(op), MSM_FE_SUB
 * and MSM_BATCH_INV(den, scratch, m), which replaces the m nonzero den[i]
 * by their inverses using m elements of scratch, besides the point types).
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
 * busy is added to that bucket's XYZZ spill point instead (complete mixed
 * addition, curve.h), so no point ever waits and the work stays bounded
 * whatever the scalars (all-equal digits just spill).  P + (-P) empties the
 * bucket at once; P + P goes into the batch with the tangent slope (y != 0:
 * G1 and G2 points of order r have no 2-torsion).  Infinity points are
 * skipped by the caller.
 *
 * At the end a window's bucket b holds the affine part (if full) plus the
 * spill part (if any); the running sum adds both.
 */

enum { AFF_FULL = 1, AFF_BUSY = 2, AFF_SPILL = 4 };

typedef struct {
    MSM_AFF *bk;           /* n_buckets affine buckets (inf = 0 when full) */
    MSM_XYZZ *spill;       /* n_buckets spill buckets, valid where AFF_SPILL */
    uint8_t *st;           /* n_buckets states */
    uint32_t *bidx;        /* batch: bucket of each pending addition */
    const MSM_FE **px;     /* batch: x of the point added */
    MSM_FE *num, *den;     /* batch: slope numerator and denominator */
    MSM_FE *pre;           /* batch: prefix products of den */
    size_t m;              /* additions in the batch */
} MSM_G(aff_scratch);

static void MSM_G(aff_free)(MSM_G(aff_scratch) *s)
{
    if (!s)
        return;
    free(s->bk);
    free(s->spill);
    free(s->st);
    free(s->bidx);
    free(s->px);
    free(s->num);
    free(s->den);
    free(s->pre);
    free(s);
}

static MSM_G(aff_scratch) *MSM_G(aff_alloc)(size_t n_buckets, size_t batch)
{
    MSM_G(aff_scratch) *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->bk = malloc(n_buckets * sizeof *s->bk);
    s->spill = malloc(n_buckets * sizeof *s->spill);
    s->st = malloc(n_buckets);
    s->bidx = malloc(batch * sizeof *s->bidx);
    s->px = malloc(batch * sizeof *s->px);
    s->num = malloc(batch * sizeof *s->num);
    s->den = malloc(batch * sizeof *s->den);
    s->pre = malloc(batch * sizeof *s->pre);
    if (!s->bk || !s->spill || !s->st || !s->bidx || !s->px || !s->num || !s->den || !s->pre) {
        MSM_G(aff_free)(s);
        return NULL;
    }
    return s;
}

/* Completes the batch: one inversion for all denominators (all nonzero,
 * MSM_BATCH_INV), then each bucket gets its chord or tangent result. */
static void MSM_G(aff_flush)(MSM_G(aff_scratch) *s)
{
    size_t m = s->m;
    if (m == 0)
        return;
    MSM_BATCH_INV(s->den, s->pre, m);
    for (size_t i = 0; i < m; i++) {
        MSM_FE lam, t;
        MSM_AFF *q = &s->bk[s->bidx[i]];
        MSM_FE_(mul)(&lam, &s->num[i], &s->den[i]);
        MSM_FE_(sqr)(&t, &lam);
        MSM_FE_SUB(&t, &t, &q->x);
        MSM_FE_SUB(&t, &t, s->px[i]);           /* x3 */
        MSM_FE_SUB(&q->x, &q->x, &t);           /* x_Q - x3 */
        MSM_FE_(mul)(&lam, &lam, &q->x);
        MSM_FE_SUB(&q->y, &lam, &q->y);
        q->x = t;
        s->st[s->bidx[i]] &= (uint8_t)~AFF_BUSY;
    }
    s->m = 0;
}

/* Bucket b += (neg ? -p : p); p finite. */
static inline void MSM_G(aff_insert)(MSM_G(aff_scratch) *s, size_t b, const MSM_AFF *p, int neg,
                                     size_t batch)
{
    uint8_t f = s->st[b];
    if (f & AFF_BUSY) {
        if (!(f & AFF_SPILL)) {
            MSM_G(xyzz_set_inf)(&s->spill[b]);
            s->st[b] = (uint8_t)(f | AFF_SPILL);
        }
        if (neg) {
            MSM_AFF q;
            MSM_G(affine_neg)(&q, p);
            MSM_G(xyzz_add_affine)(&s->spill[b], &s->spill[b], &q);
        } else {
            MSM_G(xyzz_add_affine)(&s->spill[b], &s->spill[b], p);
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
    MSM_FE y2;
    if (neg)
        MSM_FE_(neg)(&y2, &p->y);
    else
        y2 = p->y;
    size_t k = s->m;
    if (MSM_FE_(eq)(&q->x, &p->x)) {
        if (!MSM_FE_(eq)(&q->y, &y2)) {
            s->st[b] = (uint8_t)(f & ~AFF_FULL);     /* Q + (-Q) */
            return;
        }
        MSM_FE t;                                    /* Q + Q: tangent */
        MSM_FE_(sqr)(&t, &q->x);
        MSM_FE_(dbl)(&s->num[k], &t);
        MSM_FE_(add)(&s->num[k], &s->num[k], &t);
        MSM_FE_(dbl)(&s->den[k], &q->y);
    } else {
        MSM_FE_SUB(&s->num[k], &y2, &q->y);
        MSM_FE_SUB(&s->den[k], &p->x, &q->x);
    }
    s->bidx[k] = (uint32_t)b;
    s->px[k] = &p->x;
    s->st[b] = (uint8_t)(f | AFF_BUSY);
    s->m = k + 1;
    if (s->m == batch)
        MSM_G(aff_flush)(s);
}

/* S = sum_b (b+1) B[b] over buckets [0, top), B[b] = affine part + spill. */
static void MSM_G(aff_reduce)(MSM_JAC *out, const MSM_G(aff_scratch) *s, size_t top)
{
    MSM_XYZZ run, acc;
    MSM_G(xyzz_set_inf)(&run);
    MSM_G(xyzz_set_inf)(&acc);
    for (size_t i = top; i-- > 0;) {
        uint8_t f = s->st[i];
        if (f & AFF_FULL)
            MSM_G(xyzz_add_affine)(&run, &run, &s->bk[i]);
        if (f & AFF_SPILL)
            MSM_G(xyzz_add)(&run, &run, &s->spill[i]);
        MSM_G(xyzz_add)(&acc, &acc, &run);
    }
    MSM_G(xyzz_to_jacobian)(out, &acc);
}
