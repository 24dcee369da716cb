/*
 * The device layer under the CUDA backend (gs_cu_*): one context per
 * visible CUDA device, owning its stream, timing events, pinned staging
 * buffers, NTT twiddle table and MSM scratch, created once and reused.
 * backend_cuda.c builds the gs_backend on it; the backend's tests and its
 * microbenchmarks (bench.h) call it directly.  Nothing outside prover/cuda
 * includes it: the public headers are cuda.h, knobs.h and bench.h.
 *
 * Every function that touches the device returns a gs_status; a failing
 * CUDA call becomes GS_ERR_CUDA with "cuda @ file:line: <call>: <message>"
 * in *err.  Nothing aborts.
 *
 * Data layout: device field elements are the host's Montgomery bytes
 * (gs_fp / gs_fr / gs_fp2, R = 2^384 / 2^256; 32-bit limbs on the device).
 * Points on the device are compact affine (x, y; infinity as x = y = 0):
 * 96 bytes on G1, 192 on G2.  Scalars are plain gs_scalar (32 bytes, < r).
 *
 * Thread safety: a gs_cu_dev is used by one thread at a time (the CUDA
 * backend holds its device mutex around every call); different contexts
 * may be used concurrently.  Functions marked "enqueues" return once the
 * work is queued on the context's stream; gs_cu_sync waits for it.
 *
 * Built without CUDA (GS_HAVE_CUDA undefined) only gs_cu_device_count
 * exists (returning 0) so callers need no #ifdef to ask.
 */
#ifndef GS_CUDA_DEV_H
#define GS_CUDA_DEV_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#include "../../common/status.h"
#include "../curve/curve.h"
#include "../field/field.h"

/* Number of CUDA devices visible (0 without CUDA, a driver or a GPU). */
int gs_cu_device_count(void);

#ifdef GS_HAVE_CUDA

typedef struct gs_cu_dev gs_cu_dev;

/* Creates the context of device `device` (stream, events, pinned staging). */
gs_status gs_cu_dev_create(gs_cu_dev **out, int device, gs_err *err);
void gs_cu_dev_destroy(gs_cu_dev *d);
/* "NVIDIA H200 (sm_90, 132 SMs, 139 GiB), driver 13.0"; owned by d. */
const char *gs_cu_dev_describe(const gs_cu_dev *d);
int gs_cu_dev_index(const gs_cu_dev *d);

/* ---- memory ------------------------------------------------------------ */
gs_status gs_cu_alloc(gs_cu_dev *d, void **p, size_t bytes, gs_err *err);
void gs_cu_free(gs_cu_dev *d, void *p);
/* Free and total device memory (cudaMemGetInfo). */
gs_status gs_cu_mem_info(gs_cu_dev *d, size_t *free_b, size_t *total_b, gs_err *err);
/* Host -> device.  pageable = 0: when src is page-locked already
 * (gs_cu_host_pinned: cudaHostAlloc'd or cudaHostRegister'ed, as a
 * production daemon's synthesis buffers are), one cudaMemcpyAsync straight
 * from it: returns at once, and src must stay unchanged until the stream
 * has done the copy; otherwise staged through the context's two pinned
 * buffers (host memcpy of one chunk overlaps the DMA of the other), and
 * returns when the last chunk is queued.  pageable = 1: cudaMemcpyAsync
 * straight from src (the slow path production daemons hit). */
gs_status gs_cu_upload(gs_cu_dev *d, void *dst, const void *src, size_t bytes,
                       int pageable, gs_err *err);
/* gs_cu_upload that also enqueues stage-timing event `mark` (see below; -1:
 * none) right before the first DMA, not before the host has staged the
 * first chunk: a stage timed from that event covers device work only, so a
 * native timeline counts the same busy time as a CUPTI capture of the same
 * run (issue 13: the staging memcpy of a 2^20 witness, ~3 ms per partition
 * with the device idle, used to count as busy). */
gs_status gs_cu_upload_marked(gs_cu_dev *d, void *dst, const void *src, size_t bytes,
                              int pageable, int mark, gs_err *err);
/* Page-locked host memory.  gs_cu_host_pinned: 1 when the first and the
 * last byte of [p, p + bytes) are page-locked memory CUDA knows (any
 * context).  gs_cu_host_register / _unregister: cudaHostRegister (portable)
 * of a caller's buffer and its undoing (p as registered); the pages are
 * pinned once, every later upload from them is direct.  gs_cu_host_alloc /
 * _free: cudaHostAlloc (portable) / cudaFreeHost.  Allocating or
 * registering many GB costs seconds and stalls the device's work (DOMAIN.md:
 * bursts of pinned allocations): do it once, reuse the buffers. */
int gs_cu_host_pinned(const void *p, size_t bytes);
gs_status gs_cu_host_register(void *p, size_t bytes, gs_err *err);
void gs_cu_host_unregister(void *p);
gs_status gs_cu_host_alloc(void **p, size_t bytes, gs_err *err);
void gs_cu_host_free(void *p);
/* Enqueues a device -> device copy. */
gs_status gs_cu_copy_d2d(gs_cu_dev *d, void *dst, const void *src, size_t bytes, gs_err *err);
/* Device -> host, synchronous. */
gs_status gs_cu_download(gs_cu_dev *d, void *dst, const void *src, size_t bytes,
                         gs_err *err);
/* Uploads n G1 points converted to the compact device form (dst: 96*n bytes). */
gs_status gs_cu_g1_upload(gs_cu_dev *d, void *dst, const gs_g1_affine *pts, size_t n,
                          gs_err *err);
/* Uploads n G2 points in the compact device form (dst: 192*n bytes):
 * dst[i] = pts[idx[i]], or pts[i] when idx is NULL (host arrays). */
gs_status gs_cu_g2_upload(gs_cu_dev *d, void *dst, const gs_g2_affine *pts, const uint32_t *idx,
                          size_t n, gs_err *err);
/* Enqueues out[i] = in[idx[i]] for i < m (device arrays; idx[i] < len(in)). */
gs_status gs_cu_gather_scalars(gs_cu_dev *d, gs_scalar *out, const gs_scalar *in,
                               const uint32_t *idx, size_t m, gs_err *err);
/* Waits for all work on both of the context's streams. */
gs_status gs_cu_sync(gs_cu_dev *d, gs_err *err);
/* Streams: a context has two; every function that enqueues uses the
 * current one (0 until changed).  Stream 1 has the device's highest
 * priority (the knob stream_prio = 0 at context creation, knobs.h: the
 * default, like stream 0): blocks of its kernels are scheduled before stream 0's waiting ones.
 * gs_cu_use_stream selects it (k = 0, 1);
 * gs_cu_stream_wait makes stream `waiter` wait for the work enqueued on
 * stream `on` so far.  MSMs must all run on one stream (shared scratch). */
gs_status gs_cu_use_stream(gs_cu_dev *d, int k, gs_err *err);
gs_status gs_cu_stream_wait(gs_cu_dev *d, int waiter, int on, gs_err *err);

/* ---- stage timing -------------------------------------------------------- */
#define GS_CU_MARKS 24
/* Aligns the device clock with gs_now_ns(): records a reference event on
 * the idle stream and notes the host time it completed at (the midpoint
 * of record and synchronize, error below a few microseconds). */
gs_status gs_cu_clock_align(gs_cu_dev *d, gs_err *err);
/* Enqueues event i (0 <= i < GS_CU_MARKS) on the stream. */
gs_status gs_cu_mark(gs_cu_dev *d, int i, gs_err *err);
/* Waits (host) until event i, as last enqueued, has run. */
gs_status gs_cu_mark_sync(gs_cu_dev *d, int i, gs_err *err);
/* After gs_cu_sync: the host time (gs_now_ns base) at which event i ran. */
gs_status gs_cu_mark_ns(gs_cu_dev *d, int i, int64_t *out, gs_err *err);
/* Milliseconds between two recorded events (after gs_cu_sync). */
gs_status gs_cu_mark_ms(gs_cu_dev *d, int from, int to, double *out, gs_err *err);

/* ---- field (differential tests, throughput) ------------------------------ */
typedef enum { GS_CU_OP_ADD, GS_CU_OP_SUB, GS_CU_OP_MUL, GS_CU_OP_SQR, GS_CU_OP_COUNT } gs_cu_op;
/* out[i] = a[i] op b[i] on the device; host arrays, synchronous. */
gs_status gs_cu_fp_batch(gs_cu_dev *d, gs_fp *out, const gs_fp *a, const gs_fp *b,
                         size_t n, gs_cu_op op, gs_err *err);
gs_status gs_cu_fr_batch(gs_cu_dev *d, gs_fr *out, const gs_fr *a, const gs_fr *b,
                         size_t n, gs_cu_op op, gs_err *err);
gs_status gs_cu_fp2_batch(gs_cu_dev *d, gs_fp2 *out, const gs_fp2 *a, const gs_fp2 *b,
                          size_t n, gs_cu_op op, gs_err *err);
/* Operations per second of dependent Montgomery multiply chains over the
 * whole chip.  kind 0: Fp multiply, 1: Fr multiply, 2: Fp squaring as
 * fe_mul(a, a), 3: Fp dedicated squaring, 4: Fp multiply without the final
 * subtraction (lazy), 5: dedicated lazy squaring (cu_field.cuh); 6 / 7:
 * the CIOS form of 4 / of the Fr multiply (fe_mul_cios), beside the
 * product scanning that fe_mul uses; 8: 4 by Karatsuba (fe_mul_kara, the
 * knob msm_kmul's level-1 multiplication); 9: 4 on the FP64 pipe
 * (fe_mul_f64, msm_fmul = 1); 10: two independent chains per thread, 4 on
 * the integer pipe beside 9 (msm_fmul = 2's pairs). */
gs_status gs_cu_field_bench(gs_cu_dev *d, int kind, double *mul_per_s, gs_err *err);

/* ---- NTT over Fr ---------------------------------------------------------- */
/* Builds the twiddle table w_(2m)^j for m = 1, 2, ..., 2^(log_table-1)
 * (2^log_table entries; snarkjs's roots, field.h).  An NTT of size 2^k
 * needs log_table >= k; the H computation of domain 2^k needs k + 1 for
 * snarkjs keys (its coset factors are table entries), k for classic keys. */
gs_status gs_cu_ntt_prepare(gs_cu_dev *d, unsigned log_table, gs_err *err);
/* Enqueues an in-place NTT of x (device, 2^log_n Montgomery elements),
 * natural order in and out: x[j] <- sum_k x[k] w^(jk); inverse uses w^-1
 * and scales by 1/n (SNARKJS-FORMATS.md 7.1). */
gs_status gs_cu_ntt(gs_cu_dev *d, gs_fr *x, unsigned log_n, int inverse, gs_err *err);
/* Enqueues the H scalars of snarkjs's convention (SNARKJS-FORMATS.md 7.3)
 * for a, b, c (device, 2^log_n each, Montgomery; overwritten): per array
 * iNTT, scale coefficient k by w_(2n)^k, NTT; then out[j] = a'b' - c' as
 * plain scalars (out may be a, reinterpreted).  Needs log_table >= log_n + 1. */
gs_status gs_cu_h_scalars(gs_cu_dev *d, gs_scalar *out, gs_fr *a, gs_fr *b, gs_fr *c,
                          unsigned log_n, gs_err *err);
/* Enqueues the H scalars of the classic convention (groth16.h), the same
 * values as the CPU's gs_g16_h_*_classic: per array iNTT, scale
 * coefficient k by g^k (g = GS_FR_GENERATOR), NTT; then p = a'b' - c',
 * coset iNTT of p with g, times (g^n - 1)^-1, as plain scalars: the
 * coefficients of (A B - C)/Z.  Same buffers and aliasing as
 * gs_cu_h_scalars; needs log_table >= log_n only (keys loaded by the
 * backend have log_n + 1 anyway). */
gs_status gs_cu_h_scalars_classic(gs_cu_dev *d, gs_scalar *out, gs_fr *a, gs_fr *b, gs_fr *c,
                                  unsigned log_n, gs_err *err);

/* ---- G1 and G2 MSM --------------------------------------------------------- */
#define GS_CU_MSM_SLOTS 5
/* sum_i scalars[i] * pts[i] (device arrays: compact points, plain
 * scalars); its per-window partial sums stay in device result slot `slot`
 * (one result of either curve per slot).  window: bits per window
 * (0 = automatic, else 4..24).  = gs_cu_msm_prepare (t = 1) followed by
 * gs_cu_msm_g1_prepared / _g2_prepared (stride n, skip 0): the host waits
 * for the scalar preparation, the rest is enqueued. */
gs_status gs_cu_msm_g1(gs_cu_dev *d, int slot, const void *pts, const gs_scalar *scalars,
                       size_t n, int window, gs_err *err);
gs_status gs_cu_msm_g2(gs_cu_dev *d, int slot, const void *pts, const gs_scalar *scalars,
                       size_t n, int window, gs_err *err);

/*
 * Scalar preparation shared by several MSMs over the same scalars (the
 * witness MSMs L, A and B1 of a proof).  gs_cu_msm_prepare classifies
 * scalars[0 .. n) on the device: 0s are dropped, 1s listed (their points
 * are summed directly, no buckets), the rest cut into signed c-bit digits
 * (window: 0 = automatic, only with t = 1) and sorted into buckets, t
 * windows sharing one set of buckets (t > 1 needs points with t
 * precomputed copies, gs_cu_g1_precompute; n <= 2^27 then).  The host
 * waits twice for the device (the counts decide the launch sizes); the
 * preparation stays in the context until the next prepare.  g2: the MSMs
 * will be G2 ones (scratch is sized for that curve).  *n_big / *n_one
 * (may be NULL): how many scalars were > 1 / equal to 1.  Knobs read here
 * (knobs.h): msm_c (the automatic window), msm_glv (a G1 plan without
 * copies splits its scalars and takes its own window, whatever `window`
 * says), msm_ba and msm_s1 (level 1's form and chunk, for every MSM on
 * this preparation).
 *
 * gs_cu_msm_g1_prepared enqueues, into `slot`, sum over i in [skip, n) of
 * scalars[i] * P_(i - skip), where copy j of point k is
 * pts[j * stride + k] (j < t; stride >= n - skip).  skip lets an MSM over
 * a suffix of the scalars (the witness without its public part: L) share
 * the preparation.
 */
gs_status gs_cu_msm_prepare(gs_cu_dev *d, const gs_scalar *scalars, size_t n, int window,
                            unsigned t, int g2, uint32_t *n_big, uint32_t *n_one, gs_err *err);
gs_status gs_cu_msm_g1_prepared(gs_cu_dev *d, int slot, const void *pts, size_t stride,
                                size_t skip, gs_err *err);
gs_status gs_cu_msm_g2_prepared(gs_cu_dev *d, int slot, const void *pts, size_t stride,
                                size_t skip, gs_err *err);
/* Fills the precomputed copies of n resident G1 points (device, compact):
 * pts[j * stride + i] = 2^(j c) pts[i] for 1 <= j < t (copy 0 is the
 * points themselves; stride >= n).  Enqueued; uses a temporary device
 * buffer of at most ~1.5 GiB (freed before returning, after a sync). */
gs_status gs_cu_g1_precompute(gs_cu_dev *d, void *pts, size_t n, size_t stride, unsigned c,
                              unsigned t, gs_err *err);
/* The same for n resident G2 points (192 bytes each: gs_cu_g2_upload's
 * layout); the temporaries are batched under the same bound. */
gs_status gs_cu_g2_precompute(gs_cu_dev *d, void *pts, size_t n, size_t stride, unsigned c,
                              unsigned t, gs_err *err);
/* The window plan for an MSM of n scalars over points with at most
 * max_copies precomputed copies: *c bits, *t copies used (t <= max_copies;
 * t = 1 gives the automatic window of gs_cu_msm_g1).  wide: consider the
 * windows above 20 that a standalone MSM measured faster from 2^26 points
 * (22 with 8 copies or more, 24 with 11 or more); the prove's planner
 * passes 0 (its 2^26 / 2^27 plans were measured at c <= 20).  Returns the
 * plan's modelled cost (madd-equivalents: accumulations, sort passes,
 * bucket reduction), for comparing plans.  The knobs msm_c, msm_t and
 * msm_cmax (knobs.h) override it, for measurements. */
double gs_cu_msm_pick(size_t n, unsigned max_copies, int wide, unsigned *c, unsigned *t);
/* The MSM kernel variant bits in force: the knob msm_fv (knobs.h; GS_CU_FV
 * in the environment; read at every MSM; cu_internal.cuh lists the bits).  For
 * tests that run both sides of a bit, e.g. GS_CU_FV_G2CALL: G2's bucket
 * additions with the Fp2 multiplications out of line by value (default)
 * or by reference. */
int gs_cu_fv_bits(void);
#define GS_CU_FV_G2CALL 32
/* Device bytes of the MSM scratch for n scalars with window c and t
 * (G1: g2 = 0), for planning memory. */
size_t gs_cu_msm_scratch_bytes(size_t n, unsigned c, unsigned t, int g2);
/* Enqueues the download of slot's partial sums to pinned host memory. */
gs_status gs_cu_msm_fetch(gs_cu_dev *d, int slot, gs_err *err);

/* A fetched MSM result: per-window partial sums (XYZZ), owned copy. */
typedef struct gs_cu_msm_parts {
    int nwin, per, c;         /* windows, parts per window, window bits */
    gs_g1_xyzz *p;            /* nwin * per points, window-major */
} gs_cu_msm_parts;
typedef struct gs_cu_msm_g2_parts {
    int nwin, per, c;
    gs_g2_xyzz *p;
} gs_cu_msm_g2_parts;
/* After fetch + gs_cu_sync: copies slot's parts out (the slot is then
 * free).  GS_ERR_ARG when the slot holds the other curve's result. */
gs_status gs_cu_msm_parts_take(gs_cu_dev *d, int slot, gs_cu_msm_parts *out, gs_err *err);
gs_status gs_cu_msm_g2_parts_take(gs_cu_dev *d, int slot, gs_cu_msm_g2_parts *out, gs_err *err);
/* out = sum_w 2^(c w) sum_i p[w][i] (Horner; host, any thread). */
void gs_cu_msm_parts_combine(gs_g1 *out, const gs_cu_msm_parts *mp);
void gs_cu_msm_g2_parts_combine(gs_g2 *out, const gs_cu_msm_g2_parts *mp);
void gs_cu_msm_parts_free(gs_cu_msm_parts *mp);
void gs_cu_msm_g2_parts_free(gs_cu_msm_g2_parts *mp);
/* Convenience for tests and benchmarks: take + combine (after fetch + sync). */
gs_status gs_cu_msm_g1_result(gs_cu_dev *d, int slot, gs_g1 *out, gs_err *err);
gs_status gs_cu_msm_g2_result(gs_cu_dev *d, int slot, gs_g2 *out, gs_err *err);

/* ---- the CUDA backend's resident-key plan (backend_cuda.c) ------------------ */
struct gs_backend;
/* "H c=20 t=13, witness c=20 t=13" for the key last loaded on a CUDA
 * backend (empty before a load); out has len bytes. */
void gs_cuda_backend_plan(struct gs_backend *be, char *out, size_t len);

/* ---- benchmark inputs (cu_bench.cu) ---------------------------------------- */
/* Enqueues n pseudo-random values below r into dst (device; usable as
 * gs_scalar or as Montgomery gs_fr), a pure function of (seed, index). */
gs_status gs_cu_fill_random(gs_cu_dev *d, void *dst, size_t n, uint64_t seed, gs_err *err);
/* Enqueues copies of pts[0 .. have) until pts[0 .. n) is filled (device;
 * compact G1 / G2 points). */
gs_status gs_cu_g1_replicate(gs_cu_dev *d, void *pts, size_t n, size_t have, gs_err *err);
gs_status gs_cu_g2_replicate(gs_cu_dev *d, void *pts, size_t n, size_t have, gs_err *err);

#endif /* GS_HAVE_CUDA */

#ifdef __cplusplus
}
#endif

#endif
