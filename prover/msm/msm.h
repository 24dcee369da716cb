/*
 * Multi-scalar multiplication on G1 and G2: out = sum_i scalars[i] * points[i].
 *
 * Algorithm: Pippenger's bucket method (Bernstein et al., "Faster batch
 * forgery identification", eprint 2012/549, section 4) with signed (Booth)
 * digits of c bits, so each window needs only 2^(c-1) buckets.  From
 * c = 9 up buckets are affine points filled by batch-affine additions (one
 * inversion per batch, msm_affine.h); a point whose bucket is already in
 * the batch waits for the next batch (beyond a bound it goes to an XYZZ
 * spill bucket), and the running-sum reduction is batch-affine too
 * (msm_affine_reduce.h); below c = 9, XYZZ buckets (curve.h) and the XYZZ
 * running sum.  Windows are combined by Horner's rule with one doubling
 * per window bit; the top windows are one bit narrower when c does not
 * divide the scalar width (msm_plan.c).  c is chosen from n.  First, when scalars repeat (witness vectors:
 * 0, 1, copies), points with equal scalars are summed and enter the buckets
 * once (msm_group.h); zero scalars and points at infinity are dropped.
 *
 * Inputs: points affine, on the curve (not checked; infinity allowed and
 * skipped); scalars plain integers (gs_scalar, not Montgomery), normally
 * < r; any 256-bit value is handled as that integer.  Repeated points,
 * scalars 0, 1 and r-1, n = 0 (out = infinity) and n = 1 are all fine.
 *
 * Threads: the work is cut into (window, point range) tasks spread over
 * `pool` (NULL = serial), and so are the group sums.  Any number of MSMs may run at once on one pool.
 * The result does not depend on the thread count (as a group element; the
 * Jacobian coordinates may differ, compare with gs_g1_eq).
 *
 * Memory: grouping takes about 20 bytes per point, one point and scalar
 * per group and, per group of several points, its XYZZ, Jacobian and affine
 * sum (about 450 bytes on G1, 900 on G2), freed before returning; then per
 * participating thread one bucket array of 2^(c-1) XYZZ points
 * (at most 6 MiB for G1, 12 MiB for G2; batch-affine adds 2^(c-1) affine
 * points and the batch), plus one Jacobian point per task.
 * Variable time: do not use with secret scalars where timing matters
 * (Groth16 witness scalars are treated as public to the prover host here,
 * as in every production prover).
 *
 * Returns GS_OK, or GS_ERR_NOMEM (out set to infinity) when scratch memory
 * cannot be allocated.
 */
#ifndef GS_MSM_H
#define GS_MSM_H

#include <stddef.h>

#include "../../common/pool.h"
#include "../../common/status.h"
#include "../curve/curve.h"
#include "../field/field.h"

gs_status gs_msm_g1(gs_g1 *out, const gs_g1_affine *points, const gs_scalar *scalars,
                    size_t n, gs_pool *pool);
gs_status gs_msm_g2(gs_g2 *out, const gs_g2_affine *points, const gs_scalar *scalars,
                    size_t n, gs_pool *pool);

/*
 * Explicit tuning, for tests and benchmarks: window bits (1 .. GS_MSM_MAX_WINDOW,
 * 0 = chosen from n) and the number of point ranges each window is cut
 * into (0 = chosen from n and the pool width).  Results are identical.
 */
#define GS_MSM_MAX_WINDOW 16
typedef struct gs_msm_cfg {
    unsigned window;
    size_t parts;
    size_t batch;   /* 0 = chosen from the window; 1 = XYZZ buckets; >= 2 = batch-affine, that batch */
    unsigned group; /* 0 = merge points with equal scalars when that saves >= 5% of them; 1 = never */
} gs_msm_cfg;

gs_status gs_msm_g1_cfg(gs_g1 *out, const gs_g1_affine *points, const gs_scalar *scalars,
                        size_t n, gs_pool *pool, const gs_msm_cfg *cfg);
gs_status gs_msm_g2_cfg(gs_g2 *out, const gs_g2_affine *points, const gs_scalar *scalars,
                        size_t n, gs_pool *pool, const gs_msm_cfg *cfg);

/*
 * A sum of MSMs as one: out = sum over the n_in inputs of
 * sum_i in[k].scalars[i] in[k].points[i] (n_in <= GS_MSM_MAX_INPUTS, else
 * GS_ERR_ARG).  The inputs' points go through one Pippenger: one set of
 * windows and one bucket reduction per window for all of them, cheaper
 * than an MSM per input and adding the results (at 2^16 points per input
 * on 2 threads, bench/RESULTS.md).  Each input's equal scalars are merged
 * on their own (unless in[k].no_group or cfg->group == 1); an input whose
 * scalars are all zero costs nothing.  The window size follows the total
 * number of points and the largest scalar's bit length (short scalars:
 * fewer windows).  Contract otherwise as gs_msm_g1 / gs_msm_g1_cfg.
 */
#define GS_MSM_MAX_INPUTS 8
typedef struct gs_msm_g1_in {
    const gs_g1_affine *points;
    const gs_scalar *scalars;
    size_t n;
    int no_group;      /* 1: do not merge equal scalars (random-looking scalars) */
} gs_msm_g1_in;
typedef struct gs_msm_g2_in {
    const gs_g2_affine *points;
    const gs_scalar *scalars;
    size_t n;
    int no_group;
} gs_msm_g2_in;
gs_status gs_msm_g1_sum(gs_g1 *out, const gs_msm_g1_in *in, size_t n_in, gs_pool *pool,
                        const gs_msm_cfg *cfg);
gs_status gs_msm_g2_sum(gs_g2 *out, const gs_msm_g2_in *in, size_t n_in, gs_pool *pool,
                        const gs_msm_cfg *cfg);

/*
 * Equal-scalar merging pays from GS_MSM_GROUP_MIN_SAVED of the points saved
 * (msm_group.h).  gs_msm_repeats counts the nonzero scalars equal to an
 * earlier one: an upper bound of what merging saves in an MSM over these
 * scalars, over any subset of them, or over c k_i for a constant c != 0 mod
 * r (equal exactly where the k_i are), whatever the points.  A caller that
 * runs several MSMs over one witness (the Groth16 prover: w, its private
 * part, r w) counts once, and when the count is below
 * GS_MSM_GROUP_MIN_SAVED of its smallest MSM passes no_group / cfg.group = 1
 * instead of a hash pass per MSM (~1-2 ms serial each at 2^16, the first
 * ~7 with its tables' page faults).  On the pool: each participant keeps
 * the scalars of its share of hash values.
 */
#define GS_MSM_GROUP_MIN_SAVED 0.05
size_t gs_msm_repeats(const gs_scalar *k, size_t n, gs_pool *pool);

/* The window size the automatic choice picks for n points (for reports). */
unsigned gs_msm_window_for(size_t n);

#endif
