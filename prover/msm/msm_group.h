/*
 * Points with equal scalars, merged before the buckets (written once for G1
 * and G2; included by msm_impl.h):
 *   sum_i k_i P_i = sum_k k (sum_{i : k_i = k} P_i).
 * Witness vectors repeat values (booleans, copied wires, constants), and a
 * point merged into its group costs one XYZZ mixed addition (8M + 2S)
 * instead of one bucket addition per window (about 20 of them).  This is
 * the general form of the 0 / 1 scalar classification of production
 * provers: scalar 0 drops the point, scalar 1 leaves one point, the sum.
 *
 * One pass hashes the scalars (open addressing, linear probing, table of
 * at least 2n slots) into groups; points at infinity and zero scalars are
 * dropped.  What a group saves is its points but one, and only when its
 * scalar is wide (>= 2^16): Pippenger skips zero scalars and infinity
 * points almost for free (a digit test per window) and adds a point with a
 * small scalar in one or two windows only, so merging those costs more
 * (an XYZZ addition each, and a copy of every point) than it saves.  When
 * the groups save less than GS_MSM_GROUP_MIN_SAVED (msm.h) of the points,
 * nothing is built (the caller runs on the input as it is).  (Counting the
 * dropped points too made the G2 MSM of a 2^16 circom key, whose B2 has
 * 22,300 points at infinity of 65,612, copy 8 MiB of points to save
 * nothing.)  Otherwise the groups with several points are summed in XYZZ
 * (slot ranges spread over the pool), converted to affine with one batch
 * inversion per range, and the MSM runs on one point per group.
 */

/* Group sums for slots [lo, hi) of `chunks` equal parts: every task scans
 * all points and adds those of its slots, then converts its slots. */
typedef struct {
    const MSM_AFF *points;
    const uint32_t *gid, *cnt;
    MSM_XYZZ *acc;
    MSM_JAC *jac;
    MSM_AFF *aff;
    size_t n, multi, chunks;
} MSM_G(group_ctx);

static void MSM_G(group_task)(void *vctx, size_t begin, size_t end, unsigned slot)
{
    const MSM_G(group_ctx) *g = vctx;
    (void)slot;
    for (size_t t = begin; t < end; t++) {
        size_t lo = t * g->multi / g->chunks, hi = (t + 1) * g->multi / g->chunks;
        for (size_t j = lo; j < hi; j++)
            MSM_G(xyzz_set_inf)(&g->acc[j]);
        for (size_t i = 0; i < g->n; i++) {
            uint32_t id = g->gid[i];
            if (id == UINT32_MAX)
                continue;
            uint32_t sl = g->cnt[id];
            if (sl != UINT32_MAX && sl >= lo && sl < hi)
                MSM_G(xyzz_add_affine)(&g->acc[sl], &g->acc[sl], &g->points[i]);
        }
        for (size_t j = lo; j < hi; j++)
            MSM_G(xyzz_to_jacobian)(&g->jac[j], &g->acc[j]);
        MSM_G(batch_to_affine)(g->aff + lo, g->jac + lo, hi - lo);
    }
}

/*
 * On GS_OK either *gp = NULL (no grouping: use the input) or *gp, *gk hold
 * *gm merged points and their scalars (caller frees both).
 */
static gs_status MSM_G(msm_group)(MSM_AFF **gp, gs_scalar **gk, size_t *gm, const MSM_AFF *points,
                                  const gs_scalar *scalars, size_t n, gs_pool *pool)
{
    gs_status st = GS_ERR_NOMEM;
    *gp = NULL;
    *gk = NULL;
    *gm = 0;
    if (n >= UINT32_MAX / 2)
        return GS_OK;                                  /* 32-bit indices: no grouping */
    size_t tsize = 16;
    while (tsize < 2 * n)
        tsize *= 2;
    uint32_t *tab = calloc(tsize, sizeof *tab);      /* group + 1, 0 = empty */
    uint32_t *gid = malloc(n * sizeof *gid);         /* group of point i */
    uint32_t *first = malloc(n * sizeof *first);     /* first point of group g */
    uint32_t *cnt = calloc(n, sizeof *cnt);          /* points, then XYZZ slot */
    MSM_AFF *pts = NULL, *aff = NULL;
    gs_scalar *ks = NULL;
    MSM_XYZZ *acc = NULL;
    MSM_JAC *jac = NULL;
    uint32_t *slot_g = NULL;
    if (!tab || !gid || !first || !cnt)
        goto fail;
    size_t groups = 0;
    for (size_t i = 0; i < n; i++) {
        const gs_scalar *k = &scalars[i];
        gid[i] = UINT32_MAX;
        if (points[i].inf || (k->l[0] | k->l[1] | k->l[2] | k->l[3]) == 0)
            continue;
        size_t h = (size_t)gs_msm_scalar_hash(k) & (tsize - 1);
        for (;; h = (h + 1) & (tsize - 1)) {
            uint32_t e = tab[h];
            if (e == 0) {
                tab[h] = (uint32_t)groups + 1;
                first[groups] = (uint32_t)i;
                gid[i] = (uint32_t)groups++;
                break;
            }
            if (!memcmp(&scalars[first[e - 1]], k, sizeof *k)) {
                gid[i] = e - 1;
                break;
            }
        }
        cnt[gid[i]]++;
    }
    st = GS_OK;
    size_t saved = 0;
    for (size_t g = 0; g < groups; g++) {
        const gs_scalar *k = &scalars[first[g]];
        if (cnt[g] > 1 && (k->l[1] | k->l[2] | k->l[3] | (k->l[0] >> 16)))
            saved += cnt[g] - 1;
    }
    if ((double)saved < GS_MSM_GROUP_MIN_SAVED * (double)n)
        goto fail;                                     /* not worth it */
    st = GS_ERR_NOMEM;
    size_t multi = 0;
    for (size_t g = 0; g < groups; g++)
        multi += cnt[g] > 1;
    pts = gs_big_alloc((groups ? groups : 1) * sizeof *pts);
    ks = gs_big_alloc((groups ? groups : 1) * sizeof *ks);
    acc = malloc((multi ? multi : 1) * sizeof *acc);
    jac = malloc((multi ? multi : 1) * sizeof *jac);
    aff = malloc((multi ? multi : 1) * sizeof *aff);
    slot_g = malloc((multi ? multi : 1) * sizeof *slot_g);
    if (!pts || !ks || !acc || !jac || !aff || !slot_g)
        goto fail;
    size_t s = 0;
    for (size_t g = 0; g < groups; g++) {
        ks[g] = scalars[first[g]];
        if (cnt[g] > 1) {
            slot_g[s] = (uint32_t)g;
            cnt[g] = (uint32_t)s++;                     /* now the XYZZ slot */
        } else {
            pts[g] = points[first[g]];
            cnt[g] = UINT32_MAX;
        }
    }
    MSM_G(group_ctx) gc = {.points = points, .gid = gid, .cnt = cnt, .acc = acc, .jac = jac,
                           .aff = aff, .n = n, .multi = multi};
    gc.chunks = multi < 64 ? 1 : gs_pool_width(pool);
    gs_pool_for(pool, gc.chunks, 1, MSM_G(group_task), &gc);
    for (size_t j = 0; j < multi; j++)
        pts[slot_g[j]] = aff[j];
    *gp = pts;
    *gk = ks;
    *gm = groups;
    pts = NULL;
    ks = NULL;
    st = GS_OK;

fail:
    free(tab);
    free(gid);
    free(first);
    free(cnt);
    free(pts);
    free(ks);
    free(acc);
    free(jac);
    free(aff);
    free(slot_g);
    return st;
}
