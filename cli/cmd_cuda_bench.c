/*
 * gapscope cuda-bench: throughput of the CUDA backend's pieces on one
 * device, for bench/RESULTS.md.
 *
 *   --field            Fp and Fr Montgomery multiplications per second
 *   --ntt LO:HI        forward NTT (natural order), 2^LO .. 2^HI, device data
 *   --msm LO:HI        G1 MSM, 2^LO .. 2^HI, points and scalars on the device;
 *                      device time (events) and the host window combination
 *   --msm-g2 LO:HI     the same for the G2 MSM
 *   --h2d LOG          host -> device copy of 2^LOG scalars (32 bytes each):
 *                      staged through the pinned buffers with 4, 8, 12 and
 *                      16 host copy threads (GS_CU_COPY_THREADS), pageable,
 *                      and direct from the buffer page-locked in place
 *                      (gs_cu_host_register, its cost and the unregister's
 *                      timed apart); wall time of upload + sync, GB/s
 *   --prove LO:HI      full proofs through the backend on a synthetic key
 *                      (domain 2^k, n_vars = 2^k, B2 density 1/16), SRS
 *                      resident: per-stage times, prove_start, prove_finish
 *   --g2-device        --prove runs the G2 MSM of B on the device
 *                      (gs_prove_opts.g2_on_device) instead of the CPU
 *   --classic          --prove with a classic-convention key (groth16.h: H
 *                      scalars = quotient coefficients) instead of snarkjs's
 *   --check            MSM: compare sizes <= 2^20 (G2: 2^18) with the CPU MSM
 *   --reps N           timed repetitions after one warm-up (median; default 5)
 *   --window C         MSM window bits (default: automatic)
 *   --copies T         G1 MSM over points with T precomputed window copies
 *                      (gs_cu_g1_precompute; window: --window, else
 *                      gs_cu_msm_pick for 2^HI; the MSM uses min(T, number
 *                      of windows) of them); timed: preparation + MSM
 *   --bool PCT         --prove: PCT% of the witness scalars are 0 or 1 (half
 *                      each), like a PoRep witness; the rest random
 *   --staging S        --prove: how a/b/c and the witness reach the device, a
 *                      comma-separated list of: pinned (staged through the
 *                      backend's pinned buffers), pageable, direct (the
 *                      assignment's own buffers page-locked with
 *                      gs_cuda_assignment_pin, its cost printed: single DMAs,
 *                      no host staging, as from a daemon's pinned synthesis
 *                      buffers); both = pinned,pageable (default), all
 *   --variants LIST    G1 MSM: time each accumulation variant of LIST in turn
 *                      on the same points and copies, FV/MINB items separated
 *                      by commas (GS_CU_FV bits and GS_CU_MSM_MINB, set in the
 *                      environment for each; cu_internal.cuh), e.g. 0/1,7/3;
 *                      names get _fvFVmMINB
 *   --device N         device index (default 0)
 *   --json FILE        also write every repetition as Google Benchmark JSON
 *                      (bench/compare A.json B.json: Mann-Whitney A/B test);
 *                      FILE "-" writes it to stdout and the table to stderr
 *
 * JSON names (real_time in ms, ns for the field, one entry per timed repetition, run_type
 * "iteration", plus a "median" aggregate): cuda/field/fp_mul and fr_mul
 * (ns per multiplication of the whole chip), cuda/ntt/K, cuda/msm_g1/K and
 * cuda/msm_g2/K (device + host combine), cuda/msm_g1_device/K,
 * cuda/h2d/LOG/staged_tN|pageable|direct|register|unregister,
 * cuda/prove/K/pinned|pageable|direct (prove_start + prove_finish) and
 * cuda/prove/K/pinned|pageable|direct/STAGE; cuda/prove/K/direct/pin and
 * /unpin (ms to register and unregister the assignment, one value).
 * GS_CU_ORDER=old and GS_CU_PRIO=0 in the environment select the backend's
 * stream plan before issue 14's pipelining (backend_cuda.c), for A/B.
 *
 * Inputs are drawn on the device (gs_cu_fill_random) or replicated from a
 * few thousand distinct points: timing-representative, not proofs anyone
 * should verify (the synthetic key has no trapdoor relation); proof
 * correctness is what the cuda_* tests check.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/clock.h"
#include "../common/json.h"
#include "../common/outfile.h"
#include "../prover/cuda/cuda_dev.h"
#include "../prover/groth16/backend.h"
#include "../prover/msm/msm.h"
#include "cli.h"
#include "cli_util.h"

#ifndef GS_HAVE_CUDA

static int bench_main(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    fprintf(stderr, "gapscope cuda-bench: this build has no CUDA (rebuild with CUDA=1)\n");
    return GS_EXIT_USAGE;
}

#else

enum { STG_PINNED = 1, STG_PAGEABLE = 2, STG_DIRECT = 4 };

typedef struct {
    int field, check, reps, window, device, g2_device, classic, copies, bool_pct;
    int staging;               /* --prove: STG_* bits */
    int want_ntt, want_msm, want_msm2, want_prove, h2d_log;
    unsigned ntt_lo, ntt_hi, msm_lo, msm_hi, msm2_lo, msm2_hi, prove_lo, prove_hi;
    const char *json;
    const char *variants;      /* --variants, or NULL */
} bench_opts;

/* Every timed repetition, for --json (names as in the file comment). */
typedef struct {
    char name[96];
    const char *unit;          /* "ms", or "ns" for the field figures */
    int n;
    double v[64];
} bench_rec;
static bench_rec *recs;
static size_t n_recs, cap_recs;
static FILE *out; /* the table: stdout, or stderr when the JSON goes to stdout */

/* Returns the new record (NULL when out of memory: the table still has the
 * figure, the JSON misses it). */
static bench_rec *rec_add(const double *v, int n, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static bench_rec *rec_add(const double *v, int n, const char *fmt, ...)
{
    if (n_recs == cap_recs) {
        size_t cap = cap_recs ? 2 * cap_recs : 64;
        bench_rec *r = realloc(recs, cap * sizeof *r);
        if (!r) return NULL;
        recs = r;
        cap_recs = cap;
    }
    bench_rec *r = &recs[n_recs++];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->name, sizeof r->name, fmt, ap);
    va_end(ap);
    r->unit = "ms";
    r->n = n < 64 ? n : 64;
    memcpy(r->v, v, (size_t)r->n * sizeof *v);
    return r;
}

static int cmp_dbl(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_dbl);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static int parse_range(const char *s, unsigned *lo, unsigned *hi)
{
    unsigned a, b;
    if (sscanf(s, "%u:%u", &a, &b) == 2 && a <= b && b <= 31) {
        *lo = a;
        *hi = b;
        return 1;
    }
    if (sscanf(s, "%u", &a) == 1 && a <= 31) {
        *lo = *hi = a;
        return 1;
    }
    return 0;
}

/* --staging: a comma-separated list of pinned, pageable, direct, both,
 * all; the STG_* bits, or -1. */
static int parse_staging(const char *v)
{
    int bits = 0;
    const char *p = v;
    while (*p) {
        size_t len = strcspn(p, ",");
        static const struct { const char *name; int bits; } names[] = {
            { "pinned", STG_PINNED }, { "pageable", STG_PAGEABLE }, { "direct", STG_DIRECT },
            { "both", STG_PINNED | STG_PAGEABLE }, { "all", STG_PINNED | STG_PAGEABLE | STG_DIRECT },
        };
        int found = 0;
        for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
            if (strlen(names[i].name) == len && !strncmp(p, names[i].name, len)) {
                bits |= names[i].bits;
                found = 1;
            }
        if (!found) return -1;
        p += len;
        if (*p == ',') p++;
    }
    return bits ? bits : -1;
}

#define TRY(x) do { if ((st = (x)) != GS_OK) goto fail; } while (0)

static gs_status bench_ntt(gs_cu_dev *d, const bench_opts *o, gs_err *err)
{
    gs_status st = GS_OK;
    gs_fr *x = NULL;
    double t[64];
    TRY(gs_cu_ntt_prepare(d, o->ntt_hi, err));
    TRY(gs_cu_alloc(d, (void **)&x, ((size_t)1 << o->ntt_hi) * sizeof(gs_fr), err));
    for (unsigned k = o->ntt_lo; k <= o->ntt_hi; k++) {
        size_t n = (size_t)1 << k;
        TRY(gs_cu_fill_random(d, x, n, k, err));
        for (int r = -1; r < o->reps; r++) {
            TRY(gs_cu_mark(d, 0, err));
            TRY(gs_cu_ntt(d, x, k, 0, err));
            TRY(gs_cu_mark(d, 1, err));
            TRY(gs_cu_sync(d, err));
            if (r >= 0) TRY(gs_cu_mark_ms(d, 0, 1, &t[r], err));
        }
        rec_add(t, o->reps, "cuda/ntt/%u", k);
        fprintf(out, "ntt    2^%-2u  forward, natural order   median %9.3f ms  (%d reps)\n", k,
               median(t, o->reps), o->reps);
        fflush(out);
    }
fail:
    gs_cu_free(d, x);
    return st;
}

/* --h2d: copy throughput of each upload path (file comment). */
static gs_status bench_h2d(gs_cu_dev *d, const bench_opts *o, gs_err *err)
{
    gs_status st = GS_OK;
    size_t bytes = ((size_t)1 << o->h2d_log) * 32;
    char *h = malloc(bytes);
    void *dv = NULL;
    double t[64];
    if (!h) return GS_ERR(err, GS_ERR_NOMEM, "cuda-bench", "h2d host buffer of %zu bytes", bytes);
    for (size_t i = 0; i < bytes; i += 8) *(uint64_t *)(h + i) = i * 0x9e3779b97f4a7c15ull;
    TRY(gs_cu_alloc(d, &dv, bytes, err));
    static const int threads[] = { 4, 8, 12, 16 };
    for (int m = 0; m < 6; m++) {
        char name[32];
        int pageable = m == 4, direct = m == 5;
        if (m < 4) {
            char tv[8];
            snprintf(tv, sizeof tv, "%d", threads[m]);
            setenv("GS_CU_COPY_THREADS", tv, 1);
            snprintf(name, sizeof name, "staged_t%d", threads[m]);
        } else {
            unsetenv("GS_CU_COPY_THREADS");
            snprintf(name, sizeof name, "%s", pageable ? "pageable" : "direct");
        }
        if (direct) {
            int64_t g0 = gs_now_ns();
            TRY(gs_cu_host_register(h, bytes, err));
            double reg = (double)(gs_now_ns() - g0) * 1e-6;
            rec_add(&reg, 1, "cuda/h2d/%u/register", o->h2d_log);
            fprintf(out, "h2d    2^%-2u  %.2f GB registered (cudaHostRegister) in %.1f ms\n",
                    o->h2d_log, (double)bytes * 1e-9, reg);
        }
        for (int r = -1; r < o->reps; r++) {
            TRY(gs_cu_sync(d, err));
            int64_t a0 = gs_now_ns();
            st = gs_cu_upload(d, dv, h, bytes, pageable, err);
            if (st == GS_OK) st = gs_cu_sync(d, err);
            int64_t a1 = gs_now_ns();
            if (st != GS_OK) {
                if (direct) gs_cu_host_unregister(h);
                goto fail;
            }
            if (r >= 0) t[r] = (double)(a1 - a0) * 1e-6;
        }
        if (direct) {
            int64_t g0 = gs_now_ns();
            gs_cu_host_unregister(h);
            double unreg = (double)(gs_now_ns() - g0) * 1e-6;
            rec_add(&unreg, 1, "cuda/h2d/%u/unregister", o->h2d_log);
            fprintf(out, "h2d    2^%-2u  unregistered in %.1f ms\n", o->h2d_log, unreg);
        }
        rec_add(t, o->reps, "cuda/h2d/%u/%s", o->h2d_log, name);
        double md = median(t, o->reps);
        fprintf(out, "h2d    2^%-2u  %-10s %.2f GB in %9.3f ms = %6.2f GB/s  (median of %d)\n",
                o->h2d_log, name, (double)bytes * 1e-9, md, (double)bytes * 1e-6 / md, o->reps);
        fflush(out);
    }
fail:
    unsetenv("GS_CU_COPY_THREADS");
    gs_cu_free(d, dv);
    free(h);
    return st;
}

/* k*G-style distinct base points: P_0 = G, P_{i+1} = 2 (P_i + G), n of them, affine. */
#define BASE_POINTS(g)                                                                \
    static void g##_base_points(gs_##g##_affine *out, gs_##g *scratch, size_t n)       \
    {                                                                                  \
        gs_##g gen, acc;                                                               \
        gs_##g##_generator(&gen);                                                      \
        acc = gen;                                                                     \
        for (size_t i = 0; i < n; i++) {                                               \
            scratch[i] = acc;                                                          \
            gs_##g##_add(&acc, &acc, &gen);                                            \
            gs_##g##_dbl(&acc, &acc);                                                  \
        }                                                                              \
        gs_##g##_batch_to_affine(out, scratch, n);                                     \
    }
BASE_POINTS(g1)
BASE_POINTS(g2)

/*
 * One curve's pieces for bench_msm: 4096 distinct base points uploaded and
 * replicated to n on the device (*host_base keeps them, for --check), the
 * device MSM, the host take + combine of slot 0 into *res, and the CPU MSM
 * of the same points (base[i % nb]) and scalars into *want.
 */
typedef struct {
    const char *name;
    size_t dev_size, check_max;
    gs_status (*points)(gs_cu_dev *d, void **dp, size_t n, void **host_base, size_t *nbase,
                        gs_err *err);
    gs_status (*msm)(gs_cu_dev *d, int slot, const void *pts, const gs_scalar *sc, size_t n,
                     int window, gs_err *err);
    gs_status (*result)(gs_cu_dev *d, void *res, gs_err *err);
    gs_status (*cpu)(void *want, const void *base, size_t nb, const gs_scalar *sc, size_t n,
                     gs_pool *pool, gs_err *err);
    int (*eq)(const void *a, const void *b);
} bench_curve;

#define BENCH_CURVE(g, DEV_SIZE, UPLOAD, CHECK_MAX)                                       \
    static gs_status g##_points(gs_cu_dev *d, void **dp, size_t n, void **host_base,       \
                                size_t *nbase, gs_err *err)                                \
    {                                                                                      \
        gs_status st;                                                                      \
        size_t nb = 4096 < n ? 4096 : n;                                                   \
        gs_##g *jac = malloc(nb * sizeof *jac);                                            \
        gs_##g##_affine *aff = malloc(nb * sizeof *aff);                                   \
        *host_base = aff;                                                                  \
        *nbase = nb;                                                                       \
        if (!jac || !aff) {                                                                \
            free(jac);                                                                     \
            return GS_ERR(err, GS_ERR_NOMEM, "cuda-bench", "base points");                 \
        }                                                                                  \
        g##_base_points(aff, jac, nb);                                                     \
        free(jac);                                                                         \
        if ((st = gs_cu_alloc(d, dp, n * DEV_SIZE, err)) == GS_OK &&                       \
            (st = UPLOAD) == GS_OK)                                                        \
            st = gs_cu_##g##_replicate(d, *dp, n, nb, err);                                \
        return st;                                                                         \
    }                                                                                      \
    static gs_status g##_result(gs_cu_dev *d, void *res, gs_err *err)                      \
    {                                                                                      \
        return gs_cu_msm_##g##_result(d, 0, res, err);                                     \
    }                                                                                      \
    static gs_status g##_cpu(void *want, const void *base, size_t nb, const gs_scalar *sc, \
                             size_t n, gs_pool *pool, gs_err *err)                         \
    {                                                                                      \
        const gs_##g##_affine *b = base;                                                   \
        gs_##g##_affine *hp = malloc(n * sizeof *hp);                                      \
        if (!hp) return GS_ERR(err, GS_ERR_NOMEM, "cuda-bench", "check points");           \
        for (size_t i = 0; i < n; i++) hp[i] = b[i % nb];                                  \
        gs_status st = gs_msm_##g(want, hp, sc, n, pool);                                  \
        free(hp);                                                                          \
        return st == GS_OK ? GS_OK : GS_ERR(err, st, "cuda-bench", "CPU MSM");             \
    }                                                                                      \
    static int g##_eq(const void *a, const void *b) { return gs_##g##_eq(a, b); }          \
    static const bench_curve g##_curve = { "msm_" #g, DEV_SIZE, CHECK_MAX, g##_points,     \
                                           gs_cu_msm_##g, g##_result, g##_cpu, g##_eq };

BENCH_CURVE(g1, 96, gs_cu_g1_upload(d, *dp, aff, nb, err), 20)
BENCH_CURVE(g2, 192, gs_cu_g2_upload(d, *dp, aff, NULL, nb, err), 18)

/* Sets GS_CU_FV and GS_CU_MSM_MINB from the next "FV/MINB" item of *vp
 * (MINB 1 when left out), advances *vp, writes the name tag; 0 on a bad item. */
static int next_variant(const char **vp, char *vtag, size_t vsz)
{
    int fv = 0, minb = 1, used = 0;
    if (sscanf(*vp, "%d%n/%d%n", &fv, &used, &minb, &used) < 1 || fv < 0 || minb < 1)
        return 0;
    const char *e = *vp + used;
    if (*e != ',' && *e != 0) return 0;
    *vp = *e ? e + 1 : e;
    char b1[16], b2[16];
    snprintf(b1, sizeof b1, "%d", fv);
    snprintf(b2, sizeof b2, "%d", minb);
    setenv("GS_CU_FV", b1, 1);
    setenv("GS_CU_MSM_MINB", b2, 1);
    snprintf(vtag, vsz, "_fv%dm%d", fv, minb);
    return 1;
}

static gs_status bench_msm(gs_cu_dev *d, const bench_curve *cv, unsigned lo, unsigned hi,
                           const bench_opts *o, gs_pool *pool, gs_err *err)
{
    gs_status st = GS_OK;
    void *dp = NULL, *base = NULL;
    gs_scalar *ds = NULL, *hs = NULL;
    size_t nb = 0, nmax = (size_t)1 << hi;
    double td[64], th[64], tt_ms[64];
    gs_g2 res, want; /* room for either curve's result */
    unsigned cc = 0, tt = 1;
    int copies = o->copies > 1 && cv == &g1_curve;
    char tag[32] = "";
    TRY(cv->points(d, &dp, nmax, &base, &nb, err));
    if (copies) {
        /* Room for the copies after the points, then precompute them. */
        void *dp2 = NULL;
        gs_cu_msm_pick(nmax, (unsigned)o->copies, 1, &cc, &tt);
        if (o->window > 0) {
            /* An explicit window: all T copies (the MSM uses at most one
             * per window of c bits: min(T, windows)). */
            cc = (unsigned)o->window;
            tt = (unsigned)o->copies;
        }
        TRY(gs_cu_alloc(d, &dp2, tt * nmax * 96, err));
        TRY(gs_cu_sync(d, err));
        TRY(gs_cu_copy_d2d(d, dp2, dp, nmax * 96, err));
        gs_cu_free(d, dp);
        dp = dp2;
        int64_t p0 = gs_now_ns();
        TRY(gs_cu_g1_precompute(d, dp, nmax, nmax, cc, tt, err));
        fprintf(out, "%s copies: c = %u, t = %u, precomputed for 2^%u points in %.2f s\n",
                cv->name, cc, tt, hi, (double)(gs_now_ns() - p0) * 1e-9);
        snprintf(tag, sizeof tag, "_c%ut%u", cc, tt);
    }
    TRY(gs_cu_alloc(d, (void **)&ds, nmax * sizeof *ds, err));
    TRY(gs_cu_fill_random(d, ds, nmax, 12345, err));
    TRY(gs_cu_sync(d, err));
    /* --variants: one pass per FV/MINB item (one with the environment as
     * it is without); a check that differs fails the command after the
     * other variants ran. */
    int nvar = 1, differs = 0;
    if (o->variants && cv == &g1_curve)
        for (const char *c = o->variants; *c; c++) nvar += *c == ',';
    for (unsigned k = lo; k <= hi; k++) {
        size_t n = (size_t)1 << k;
        const char *vp = o->variants && cv == &g1_curve ? o->variants : NULL;
        for (int vi = 0; vi < nvar; vi++) {
            char vtag[32] = "";
            if (vp && !next_variant(&vp, vtag, sizeof vtag)) {
                st = GS_ERR(err, GS_ERR_ARG, "cuda-bench", "--variants '%s': FV/MINB items",
                            o->variants);
                goto fail;
            }
            for (int r = -1; r < o->reps; r++) {
                TRY(gs_cu_mark(d, 0, err));
                if (copies) {
                    TRY(gs_cu_msm_prepare(d, ds, n, (int)cc, tt, 0, NULL, NULL, err));
                    TRY(gs_cu_msm_g1_prepared(d, 0, dp, nmax, 0, err));
                } else {
                    TRY(cv->msm(d, 0, dp, ds, n, o->window, err));
                }
                TRY(gs_cu_msm_fetch(d, 0, err));
                TRY(gs_cu_mark(d, 1, err));
                TRY(gs_cu_sync(d, err));
                int64_t h0 = gs_now_ns();
                TRY(cv->result(d, &res, err));
                int64_t h1 = gs_now_ns();
                if (r >= 0) {
                    TRY(gs_cu_mark_ms(d, 0, 1, &td[r], err));
                    th[r] = (double)(h1 - h0) * 1e-6;
                    tt_ms[r] = td[r] + th[r];
                }
            }
            rec_add(tt_ms, o->reps, "cuda/%s%s%s/%u", cv->name, tag, vtag, k);
            rec_add(td, o->reps, "cuda/%s%s%s_device/%u", cv->name, tag, vtag, k);
            double md = median(td, o->reps), mh = median(th, o->reps);
            fprintf(out, "%s%s%s 2^%-2u  device %9.3f ms + host combine %6.3f ms = %9.3f ms  (%d reps)",
                   cv->name, tag, vtag, k, md, mh, md + mh, o->reps);
            if (o->check && k <= cv->check_max) {
                hs = realloc(hs, n * sizeof *hs);
                if (!hs) {
                    st = GS_ERR(err, GS_ERR_NOMEM, "cuda-bench", "check scalars");
                    goto fail;
                }
                TRY(gs_cu_download(d, hs, ds, n * sizeof *hs, err));
                TRY(cv->cpu(&want, base, nb, hs, n, pool, err));
                int same = cv->eq(&res, &want);
                fprintf(out, "  check vs CPU: %s", same ? "equal" : "DIFFERENT");
                if (!same && !differs++)
                    GS_ERR(err, GS_ERR_INTERNAL, "cuda-bench", "%s%s 2^%u differs from the CPU",
                           cv->name, vtag, k);
            }
            fprintf(out, "\n");
            fflush(out);
        }
    }
    if (differs) st = GS_ERR_INTERNAL;
fail:
    gs_cu_free(d, dp);
    gs_cu_free(d, ds);
    free(base);
    free(hs);
    return st;
}

/* The random assignment, filled by FILL_THREADS threads (2^27 wires in
 * seconds): thread t fills [lo, hi) from its own generator. */
#define FILL_THREADS 16
typedef struct {
    gs_assignment *as;
    size_t lo, hi;
    uint64_t seed;
    int bool_pct;
    /* The key's replicated G1 array and B2 over [lo, hi) too (first-touch
     * page faults of ~40 GB at 2^27 are most of the key's build time). */
    gs_g1_affine *pts;
    const gs_g1_affine *base;
    size_t nb;
    gs_g2_affine *b2;
    const gs_g2_affine *base2;
    size_t nb2, b2_live;
} fill_job;

static void *fill_run(void *arg)
{
    fill_job *j = arg;
    gs_rng rng;
    gs_rng_seed(&rng, j->seed);
    if (j->pts)
        for (size_t i = j->lo; i < j->hi; i++) j->pts[i] = j->base[i % j->nb];
    if (j->b2)
        for (size_t i = j->lo; i < j->hi; i++) {
            if (i < j->b2_live) j->b2[i] = j->base2[i % j->nb2];
            else gs_g2_affine_set_inf(&j->b2[i]);
        }
    for (size_t i = j->lo; i < j->hi; i++) {
        gs_fr f;
        gs_fr_random(&f, &rng);
        gs_fr_to_scalar(&j->as->w[i], &f);
        if ((int)gs_rng_below(&rng, 100) < j->bool_pct) {
            memset(&j->as->w[i], 0, sizeof j->as->w[i]);
            j->as->w[i].l[0] = gs_rng_below(&rng, 2);
        }
        gs_fr_random(&j->as->a[i], &rng);
        gs_fr_random(&j->as->b[i], &rng);
        gs_fr_mul(&j->as->c[i], &j->as->a[i], &j->as->b[i]);
    }
    return NULL;
}

/* Frees a key of make_key (its G1 point arrays share one allocation). */
static void key_free(gs_pk *pk)
{
    free(pk->a);
    pk->a = pk->b1 = pk->c = pk->h = NULL;
    gs_pk_free(pk);
}

/*
 * Synthetic key of domain 2^k (see the file comment) and a random
 * assignment (bool_pct% of the witness 0 or 1).  Timing only: the G1 sets
 * are offsets into one replicated array (a = P, b1 = P + 7, c = P + 11,
 * h = P + 13 with P[i] = base[i mod 4096]), so a 2^27 key takes 14 GB of
 * host memory, not 56; free it with key_free.
 */
static gs_status make_key(gs_pk *pk, gs_assignment *as, unsigned k, int bool_pct, gs_err *err)
{
    gs_status st;
    size_t n = (size_t)1 << k, nv = n, np = 1, nb = 4096, nb2 = 64;
    gs_g1 *jac = malloc(nb * sizeof *jac);
    gs_g2 *jac2 = malloc(nb2 * sizeof *jac2);
    gs_g1_affine *base = malloc(nb * sizeof *base), *pts = NULL;
    gs_g2_affine *base2 = malloc(nb2 * sizeof *base2);
    memset(pk, 0, sizeof *pk);
    memset(as, 0, sizeof *as);
    if (!jac || !jac2 || !base || !base2) {
        st = GS_ERR(err, GS_ERR_NOMEM, "cuda-bench", "base points");
        goto fail;
    }
    g1_base_points(base, jac, nb);
    g2_base_points(base2, jac2, nb2);
    pk->n_vars = (uint32_t)nv;
    pk->n_public = (uint32_t)np;
    pk->domain_size = (uint32_t)n;
    pk->log_domain = k;
    pk->alpha1 = base[1];
    pk->beta1 = base[2];
    pk->delta1 = base[3];
    pk->beta2 = base2[1];
    pk->gamma2 = base2[2];
    pk->delta2 = base2[3];
    pk->ic = malloc((np + 1) * sizeof *pk->ic);
    pts = malloc((nv + 16) * sizeof *pts);
    pk->b2 = malloc(nv * sizeof *pk->b2);
    if (!pk->ic || !pts || !pk->b2) {
        free(pts);
        st = GS_ERR(err, GS_ERR_NOMEM, "cuda-bench", "synthetic key of 2^%u", k);
        goto fail;
    }
    for (size_t i = 0; i <= np; i++) pk->ic[i] = base[4 + i];
    for (size_t i = nv; i < nv + 16; i++) pts[i] = base[i % nb];
    pk->a = pts;
    pk->b1 = pts + 7;
    pk->c = pts + 11;
    pk->h = pts + 13;
    /* pts[0 .. nv) and B2 (the first nv / 16 wires live) by the fill threads. */
    if ((st = gs_assignment_alloc(as, (uint32_t)nv, (uint32_t)n, err)) != GS_OK) goto fail;
    pthread_t th[FILL_THREADS];
    fill_job job[FILL_THREADS];
    int started[FILL_THREADS] = { 0 };
    for (int t = 0; t < FILL_THREADS; t++) {
        job[t] = (fill_job){ as, n * (size_t)t / FILL_THREADS, n * (size_t)(t + 1) / FILL_THREADS,
                             (42 + k) * 1000003ull + (uint64_t)t, bool_pct,
                             pts, base, nb, pk->b2, base2, nb2, nv / 16 };
        started[t] = pthread_create(&th[t], NULL, fill_run, &job[t]) == 0;
        if (!started[t]) fill_run(&job[t]);
    }
    for (int t = 0; t < FILL_THREADS; t++)
        if (started[t]) pthread_join(th[t], NULL);
    memset(&as->w[0], 0, sizeof as->w[0]);
    as->w[0].l[0] = 1;
    st = GS_OK;
fail:
    free(jac);
    free(jac2);
    free(base);
    free(base2);
    return st;
}

static gs_status bench_prove(const bench_opts *o, gs_err *err)
{
    gs_status st = GS_OK;
    gs_backend *be = NULL;
    gs_pk pk;
    gs_assignment as;
    memset(&pk, 0, sizeof pk);
    memset(&as, 0, sizeof as);
    TRY(gs_backend_cuda_create(&be, o->device, err));
    for (unsigned k = o->prove_lo; k <= o->prove_hi; k++) {
        int64_t t0 = gs_now_ns();
        TRY(make_key(&pk, &as, k, o->bool_pct, err));
        pk.h_conv = o->classic ? GS_H_CLASSIC : GS_H_SNARKJS;
        int64_t t1 = gs_now_ns();
        TRY(be->ops->load_pk(be, &pk, err));
        int64_t t2 = gs_now_ns();
        char plan[96];
        gs_cuda_backend_plan(be, plan, sizeof plan);
        fprintf(out, "prove  2^%-2u  synthetic %s key built in %.2f s, made resident (load_pk) in "
               "%.2f s; MSM plan %s\n", k, gs_h_convention_name(pk.h_conv), (double)(t1 - t0) * 1e-9,
               (double)(t2 - t1) * 1e-9, plan);
        const char *eo = getenv("GS_CU_ORDER"), *ep = getenv("GS_CU_PRIO");
        fprintf(out, "prove  2^%-2u  stream plan: %s, stream 1 at the %s priority\n", k,
                eo && !strcmp(eo, "old") ? "before pipelining (GS_CU_ORDER=old)" : "pipelined",
                ep && *ep && atoi(ep) == 0 ? "default (GS_CU_PRIO=0)" : "highest");
        double ts[GS_STAGE_MAX][64], tst[64], tfin[64], ttot[64];
        char last_tl[1024] = "";
        const char *names[GS_STAGE_MAX] = { 0 };
        int nst = 0;
        for (int mode = 0; mode < 3; mode++) {
            static const char *const stg_name[3] = { "pinned", "pageable", "direct" };
            int pageable = mode == 1, pinned_as = 0;
            const char *stg = stg_name[mode];
            char bl[16] = "";
            if (!(o->staging & (1 << mode))) continue;
            if (o->bool_pct) snprintf(bl, sizeof bl, "/bool%d", o->bool_pct);
            if (mode == 2) {
                int64_t g0 = gs_now_ns();
                TRY(gs_cuda_assignment_pin(&as, err));
                double pin_ms = (double)(gs_now_ns() - g0) * 1e-6;
                pinned_as = 1;
                rec_add(&pin_ms, 1, "cuda/prove/%u%s/direct/pin", k, bl);
                fprintf(out, "prove  2^%-2u  direct: the assignment's %.2f GB page-locked "
                        "(gs_cuda_assignment_pin) in %.1f ms\n", k,
                        (double)((size_t)as.n_vars + 3 * (size_t)as.domain_size) * 32 * 1e-9, pin_ms);
            }
            for (int r = -1; r < o->reps; r++) {
                gs_scalar rr, ss;
                memset(&rr, 0, sizeof rr);
                memset(&ss, 0, sizeof ss);
                rr.l[0] = 3 + (uint64_t)r;
                ss.l[0] = 5;
                gs_prove_opts po = { .pageable = pageable, .threads = 0,
                                     .g2_on_device = o->g2_device };
                gs_stage_list sl = { 0 };
                gs_prove_state *ps = NULL;
                gs_proof proof;
                int64_t a0 = gs_now_ns();
                st = be->ops->prove_start(be, &pk, &as, &rr, &ss, &po, &ps, &sl, err);
                int64_t a1 = gs_now_ns();
                if (st == GS_OK) st = be->ops->prove_finish(be, ps, &proof, &sl, err);
                if (st != GS_OK) {
                    if (pinned_as) gs_cuda_assignment_unpin(&as);
                    goto fail;
                }
                int64_t a2 = gs_now_ns();
                if (r < 0) continue;
                tst[r] = (double)(a1 - a0) * 1e-6;
                tfin[r] = (double)(a2 - a1) * 1e-6;
                ttot[r] = (double)(a2 - a0) * 1e-6;
                nst = sl.n;
                for (int i = 0; i < sl.n; i++) {
                    names[i] = sl.s[i].name;
                    ts[i][r] = (double)(sl.s[i].end_ns - sl.s[i].start_ns) * 1e-6;
                }
                if (r == o->reps - 1) {
                    /* The last repetition's timeline: where each stage ran. */
                    last_tl[0] = '\0';
                    size_t used = 0;
                    for (int i = 0; i < sl.n && used < sizeof last_tl; i++) {
                        int wr = snprintf(last_tl + used, sizeof last_tl - used, " %s%s%d %.1f-%.1f",
                                          sl.s[i].name, sl.s[i].device < 0 ? "@host" : "@s",
                                          sl.s[i].device < 0 ? 0 : sl.s[i].stream,
                                          (double)(sl.s[i].start_ns - a0) * 1e-6,
                                          (double)(sl.s[i].end_ns - a0) * 1e-6);
                        if (wr < 0) break;
                        used += (size_t)wr;
                    }
                }
            }
            if (pinned_as) {
                int64_t g0 = gs_now_ns();
                gs_cuda_assignment_unpin(&as);
                double unpin_ms = (double)(gs_now_ns() - g0) * 1e-6;
                rec_add(&unpin_ms, 1, "cuda/prove/%u%s/direct/unpin", k, bl);
                fprintf(out, "prove  2^%-2u  direct: unpinned in %.1f ms\n", k, unpin_ms);
            }
            rec_add(ttot, o->reps, "cuda/prove/%u%s/%s", k, bl, stg);
            for (int i = 0; i < nst; i++)
                rec_add(ts[i], o->reps, "cuda/prove/%u%s/%s/%s", k, bl, stg, names[i]);
            fprintf(out, "prove  2^%-2u  %-8s a/b/c, G2 MSM on the %s: prove_start %9.3f ms, "
                   "prove_finish %9.3f ms, total %9.3f ms  (median of %d)\n", k,
                   stg, o->g2_device ? "device" : "CPU   ",
                   median(tst, o->reps), median(tfin, o->reps),
                   median(tst, o->reps) + median(tfin, o->reps), o->reps);
            fprintf(out, "             stages (median ms):");
            for (int i = 0; i < nst; i++) fprintf(out, " %s %.3f", names[i], median(ts[i], o->reps));
            fprintf(out, "\n             last repetition, ms from prove_start (stage@stream "
                    "start-end):%s\n", last_tl);
            fflush(out);
        }
        key_free(&pk);
        gs_assignment_free(&as);
    }
fail:
    if (be) be->ops->destroy(be);
    key_free(&pk);
    gs_assignment_free(&as);
    return st;
}

/* Google Benchmark's JSON layout, as much of it as bench/compare and
 * Google's own tools read: one "iteration" entry per repetition (real_time
 * = cpu_time, ms) and a "median" aggregate per benchmark. */
static gs_status write_json(const char *path, const char *device, const bench_opts *o, gs_err *err)
{
    gs_outfile of = { 0 };
    FILE *f = stdout;
    gs_status st;
    if (strcmp(path, "-") != 0) {
        if ((st = gs_out_open(&of, path, err)) != GS_OK) return st;
        f = of.f;
    }
    fprintf(f, "{\n  \"context\": {\n    \"executable\": \"gapscope cuda-bench\",\n"
               "    \"device\": ");
    gs_json_str(f, device);
    fprintf(f, ",\n    \"repetitions\": %d,\n    \"library_build_type\": \"release\"\n  },\n"
               "  \"benchmarks\": [", o->reps);
    int first = 1;
    for (size_t i = 0; i < n_recs; i++) {
        const bench_rec *r = &recs[i];
        double v[64];
        for (int k = 0; k <= r->n; k++) {
            int agg = k == r->n;
            double t = agg ? 0 : r->v[k];
            if (agg) {
                memcpy(v, r->v, (size_t)r->n * sizeof *v);
                t = median(v, r->n);
            }
            fprintf(f, "%s\n    {\"name\": ", first ? "" : ",");
            first = 0;
            char nm[128];
            snprintf(nm, sizeof nm, "%s%s", r->name, agg ? "_median" : "");
            gs_json_str(f, nm);
            fprintf(f, ", \"run_name\": ");
            gs_json_str(f, r->name);
            fprintf(f, ", \"run_type\": \"%s\", \"repetitions\": %d, ", agg ? "aggregate" : "iteration",
                    r->n);
            if (agg) fprintf(f, "\"aggregate_name\": \"median\", ");
            else fprintf(f, "\"repetition_index\": %d, ", k);
            fprintf(f, "\"threads\": 1, \"iterations\": 1, \"real_time\": ");
            gs_json_num(f, t);
            fprintf(f, ", \"cpu_time\": ");
            gs_json_num(f, t);
            fprintf(f, ", \"time_unit\": \"%s\"}", r->unit);
        }
    }
    fprintf(f, "\n  ]\n}\n");
    if (f == stdout) {
        fflush(f);
        return ferror(f) ? GS_ERR(err, GS_ERR_IO, "cuda-bench", "writing JSON to stdout") : GS_OK;
    }
    return gs_out_close(&of, 1, err);
}

static int bench_main(int argc, char **argv)
{
    bench_opts o = { .reps = 5, .staging = STG_PINNED | STG_PAGEABLE };
    out = stdout;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--field")) o.field = 1;
        else if (!strcmp(a, "--check")) o.check = 1;
        else if (!strcmp(a, "--classic")) o.classic = 1;
        else if (!strcmp(a, "--ntt") && v && parse_range(v, &o.ntt_lo, &o.ntt_hi)) { o.want_ntt = 1; i++; }
        else if (!strcmp(a, "--msm") && v && parse_range(v, &o.msm_lo, &o.msm_hi)) { o.want_msm = 1; i++; }
        else if (!strcmp(a, "--msm-g2") && v && parse_range(v, &o.msm2_lo, &o.msm2_hi)) { o.want_msm2 = 1; i++; }
        else if (!strcmp(a, "--g2-device")) o.g2_device = 1;
        else if (!strcmp(a, "--h2d") && v && atoi(v) >= 10 && atoi(v) <= 28) { o.h2d_log = atoi(v); i++; }
        else if (!strcmp(a, "--prove") && v && parse_range(v, &o.prove_lo, &o.prove_hi)) { o.want_prove = 1; i++; }
        else if (!strcmp(a, "--reps") && v) { o.reps = atoi(v); i++; }
        else if (!strcmp(a, "--window") && v) { o.window = atoi(v); i++; }
        else if (!strcmp(a, "--device") && v) { o.device = atoi(v); i++; }
        else if (!strcmp(a, "--json") && v) { o.json = v; i++; }
        else if (!strcmp(a, "--copies") && v) { o.copies = atoi(v); i++; }
        else if (!strcmp(a, "--variants") && v) { o.variants = v; i++; }
        else if (!strcmp(a, "--bool") && v) { o.bool_pct = atoi(v); i++; }
        else if (!strcmp(a, "--staging") && v && (o.staging = parse_staging(v)) > 0) i++;
        else {
            fprintf(stderr, "usage: gapscope cuda-bench [--field] [--ntt LO:HI] [--msm LO:HI] "
                            "[--msm-g2 LO:HI] [--h2d LOG] [--prove LO:HI] [--g2-device] [--classic] [--check] "
                            "[--reps N] [--window C] [--copies T] [--bool PCT] [--staging pinned,pageable,direct|both|all] "
                            "[--device N] [--json FILE]\n");
            return GS_EXIT_USAGE;
        }
    }
    if (o.reps < 1 || o.reps > 64) {
        fprintf(stderr, "gapscope cuda-bench: --reps must be 1..64\n");
        return GS_EXIT_USAGE;
    }
    if (o.copies < 0 || o.copies > 16 || o.bool_pct < 0 || o.bool_pct > 100) {
        fprintf(stderr, "gapscope cuda-bench: --copies must be 0..16 and --bool 0..100\n");
        return GS_EXIT_USAGE;
    }
    if (o.json && !strcmp(o.json, "-")) out = stderr;
    gs_err err;
    gs_err_clear(&err);
    gs_status st = GS_OK;
    gs_cu_dev *d = NULL;
    char devname[256] = "";
    gs_pool *pool = NULL;
    TRY(gs_cu_dev_create(&d, o.device, &err));
    TRY(gs_pool_create(&pool, 0, &err));
    snprintf(devname, sizeof devname, "%s", gs_cu_dev_describe(d));
    fprintf(out, "device: %s\n", devname);
    if (o.field) {
        /* kinds of gs_cu_field_bench: Fp mul, Fr mul, Fp sqr as mul, Fp
         * dedicated sqr, Fp lazy mul, Fp lazy dedicated sqr, and the CIOS
         * forms of the lazy Fp and the Fr multiplication. */
        static const char *const names[] = { "fp_mul", "fr_mul", "fp_sqr_mul", "fp_sqr",
                                             "fp_mul_lazy", "fp_sqr_lazy", "fp_mul_lazy_cios", "fr_mul_cios" };
        enum { NKIND = sizeof names / sizeof *names };
        double ns[NKIND][64], g;
        for (int r = 0; r < o.reps; r++) {
            for (int k = 0; k < NKIND; k++) {
                TRY(gs_cu_field_bench(d, k, &g, &err));
                ns[k][r] = 1e9 / g; /* ns per operation of the whole chip */
            }
        }
        for (int k = 0; k < NKIND; k++) {
            bench_rec *rp = rec_add(ns[k], o.reps, "cuda/field/%s", names[k]);
            if (rp) rp->unit = "ns";
        }
        fprintf(out, "field  Fp mont_mul %.2f G/s, Fr mont_mul %.2f G/s (dependent chains, whole chip, "
                     "median of %d)\n", 1 / median(ns[0], o.reps), 1 / median(ns[1], o.reps), o.reps);
        fprintf(out, "field  Fp sqr as mul %.2f G/s, sqr %.2f G/s, lazy mul %.2f G/s, lazy sqr %.2f G/s\n",
                1 / median(ns[2], o.reps), 1 / median(ns[3], o.reps), 1 / median(ns[4], o.reps),
                1 / median(ns[5], o.reps));
        fprintf(out, "field  CIOS forms: Fp lazy mul %.2f G/s, Fr mul %.2f G/s\n", 1 / median(ns[6], o.reps),
                1 / median(ns[7], o.reps));
        fflush(out);
    }
    if (o.h2d_log) TRY(bench_h2d(d, &o, &err));
    if (o.want_ntt) TRY(bench_ntt(d, &o, &err));
    if (o.want_msm) TRY(bench_msm(d, &g1_curve, o.msm_lo, o.msm_hi, &o, pool, &err));
    if (o.want_msm2) TRY(bench_msm(d, &g2_curve, o.msm2_lo, o.msm2_hi, &o, pool, &err));
    if (o.want_prove) {
        gs_cu_dev_destroy(d);
        d = NULL;
        TRY(bench_prove(&o, &err));
    }
    if (o.json) TRY(write_json(o.json, devname, &o, &err));
fail:
    gs_cu_dev_destroy(d);
    gs_pool_destroy(pool);
    free(recs);
    recs = NULL;
    n_recs = cap_recs = 0;
    if (st != GS_OK) return gs_cli_fail("cuda-bench", &err);
    return GS_EXIT_OK;
}

#endif /* GS_HAVE_CUDA */

GS_CLI_COMMAND(cuda_bench, "cuda-bench", "CUDA backend microbenchmarks (field, NTT, MSM, prove)",
               bench_main)
