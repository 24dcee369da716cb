/*
 * Batch-affine bucket reduction, written once for G1 and G2 (included by
 * msm_impl.h after msm_affine.h).
 *
 * S = sum_b (b+1) B[b] over buckets [0, top).  The running sum is cut into
 * K <= AFF_CHAINS chains of L consecutive buckets; chain k covers
 * [kL, kL + L) and keeps, from its top bucket down,
 *   run_k = sum of its buckets so far,  acc_k = sum of the run_k values,
 * so at the end acc_k = sum_{b in chain} (b - kL + 1) B[b] and
 *   S = sum_k acc_k + L * sum_k k run_k.
 * The K chains advance in step, and step t's K additions acc + run share
 * one batch, and one inversion (msm_affine.h), with step t - 1's K
 * additions run + B: the acc entries come first, so each reads run before
 * the run entry of its chain moves it.  That is about 2 * 6 multiplications
 * per bucket instead of 8M + 2S and 12M + 2S for the XYZZ running sum, and
 * L + 1 inversions per window instead of 2L with a batch per half-step.
 * The last sums (2K XYZZ additions and one small scalar multiplication by
 * L) are cheap next to that.  (The chain split is the
 * usual parallel bucket reduction, e.g. eprint 2022/1321, section 3.)
 *
 * First the spill buckets are folded into the affine ones: made affine in
 * groups (x = X/ZZ, y = Y/ZZZ, with 1/ZZ = (ZZ/ZZZ)^2 since ZZ^3 = ZZZ^2,
 * one batch inversion of the ZZZ values per group), then added in one batch
 * (a bucket has at most one spill point).
 */

static void MSM_G(aff_fold_spills)(MSM_G(aff_scratch) *s, size_t top)
{
    size_t b0 = 0;
    while (b0 < top) {
        size_t k = 0, b1 = b0;
        for (; b1 < top && k < s->cap; b1++)
            if ((s->st[b1] & AFF_SPILL) && !MSM_FE_(is_zero)(&s->spill[s->spill_at[b1]].ZZ))
                s->den[k++] = s->spill[s->spill_at[b1]].ZZZ;
        if (k == 0)
            break;
        MSM_BATCH_INV(s->den, s->pre, k);
        s->m = 0;
        k = 0;
        for (size_t b = b0; b < b1; b++) {
            uint8_t f = s->st[b];
            if (!(f & AFF_SPILL))
                continue;
            f = (uint8_t)(f & ~AFF_SPILL);
            const MSM_XYZZ *z = &s->spill[s->spill_at[b]];
            if (!MSM_FE_(is_zero)(&z->ZZ)) {
                MSM_AFF *a = &s->tmp[k];
                MSM_FE t;
                MSM_FE_(mul)(&a->y, &z->Y, &s->den[k]);
                MSM_FE_(mul)(&t, &z->ZZ, &s->den[k]);
                MSM_FE_(sqr)(&t, &t);
                MSM_FE_(mul)(&a->x, &z->X, &t);
                a->inf = 0;
                k++;
                if (!(f & AFF_FULL)) {
                    s->bk[b] = *a;
                    f |= AFF_FULL;
                } else if (!MSM_G(aff_queue)(s, &s->bk[b], &a->x, &a->y, 0)) {
                    f = (uint8_t)(f & ~AFF_FULL);
                }
            }
            s->st[b] = f;
        }
        MSM_G(aff_apply)(s);
        s->m = 0;
        b0 = b1;
    }
    for (size_t b = b0; b < top; b++)
        s->st[b] = (uint8_t)(s->st[b] & ~AFF_SPILL);   /* infinite spills */
}

/* r += a for affine r, a with inf flags: copy, or queue (r, a finite). */
static inline void MSM_G(aff_chain_add)(MSM_G(aff_scratch) *s, MSM_AFF *r, const MSM_AFF *a)
{
    if (a->inf)
        return;
    if (r->inf)
        *r = *a;
    else
        MSM_G(aff_queue)(s, r, &a->x, &a->y, 0);
}

static void MSM_G(aff_reduce_chains)(MSM_JAC *out, MSM_G(aff_scratch) *s, size_t top)
{
    MSM_G(aff_fold_spills)(s, top);
    size_t L = (top + AFF_CHAINS - 1) / AFF_CHAINS;
    size_t K = (top + L - 1) / L;
    for (size_t k = 0; k < K; k++) {
        s->run[k].inf = 1;
        s->acc[k].inf = 1;
    }
    /* Batch t: acc += run as it is after step t (t < L), then run += B of
     * step t - 1 (t > 0). */
    for (size_t t = L + 1; t-- > 0;) {
        s->m = 0;
        if (t < L)
            for (size_t k = 0; k < K; k++)
                MSM_G(aff_chain_add)(s, &s->acc[k], &s->run[k]);
        if (t > 0)
            for (size_t k = 0, b = t - 1; k < K && b < top; k++, b += L)
                if (s->st[b] & AFF_FULL)
                    MSM_G(aff_chain_add)(s, &s->run[k], &s->bk[b]);
        MSM_G(aff_apply)(s);
        s->m = 0;
    }
    /* T = sum_k k run_k by a running sum over the chains; A = sum_k acc_k. */
    MSM_XYZZ r, T, A;
    MSM_G(xyzz_set_inf)(&r);
    MSM_G(xyzz_set_inf)(&T);
    MSM_G(xyzz_set_inf)(&A);
    for (size_t k = K; k-- > 1;) {
        MSM_G(xyzz_add_affine)(&r, &r, &s->run[k]);
        MSM_G(xyzz_add)(&T, &T, &r);
    }
    for (size_t k = 0; k < K; k++)
        MSM_G(xyzz_add_affine)(&A, &A, &s->acc[k]);
    MSM_JAC tj, aj;
    gs_scalar ls = {{(uint64_t)L, 0, 0, 0}};
    MSM_G(xyzz_to_jacobian)(&tj, &T);
    MSM_G(mul_var)(&tj, &tj, &ls);
    MSM_G(xyzz_to_jacobian)(&aj, &A);
    MSM_G(add)(out, &aj, &tj);
}

/* The chains pay off from a few steps per chain up. */
static void MSM_G(aff_reduce)(MSM_JAC *out, MSM_G(aff_scratch) *s, size_t top)
{
    if (top >= 4 * AFF_CHAINS)
        MSM_G(aff_reduce_chains)(out, s, top);
    else
        MSM_G(aff_reduce_xyzz)(out, s, top);
}
