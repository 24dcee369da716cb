/*
 * Field kernels for the differential tests (element-wise add, sub, mul,
 * sqr of host arrays, over Fp, Fr and Fp2) and the multiply-throughput
 * benchmark: every thread runs a dependent chain of Montgomery
 * multiplications (x <- x * y), so the count of multiplications over the
 * elapsed time is the chip's rate for this instruction mix, the figure
 * DOMAIN.md compares with (~16 G/s for a plain 12x32-bit CIOS Fp multiply
 * on the H200).
 */
#include <stdlib.h>
#include <string.h>

#include <type_traits>

#include "cu_internal.cuh"

/* The knobs msm_fv (GS_CU_FV) and msm_minb (GS_CU_MSM_MINB), read at every
 * call (once per MSM), so cuda-bench --variants can switch. */
static_assert(CU_FV_DEFAULT == 127, "CU_FV_DEFAULT is the msm_fv knob's default (knobs.h)");
int cu_fv_bits(void) { return gs_cu_knob(GS_CU_K_MSM_FV); }
extern "C" int gs_cu_fv_bits(void) { return cu_fv_bits(); }

int cu_msm_minb(void) { return gs_cu_knob(GS_CU_K_MSM_MINB); }

/* r = x op y (GS_CU_OP_*; square: x^2) with the reduced fe_* overloads. */
template <class F> CU_DEV void fe_op(F &r, const F &x, const F &y, int op)
{
    switch (op) {
    case GS_CU_OP_ADD: fe_add(r, x, y); break;
    case GS_CU_OP_SUB: fe_sub(r, x, y); break;
    case GS_CU_OP_MUL: fe_mul(r, x, y); break;
    default: fe_sqr(r, x); break;
    }
}

/* F: cu_fe<C> or cu_fp2 (the fe_* overloads). */
template <class F>
__global__ void k_field_op(F *out, const F *a, const F *b, size_t n, int op)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    F x, y, r;
    fe_load(x, &a[i]);
    fe_load(y, &b[i]);
    fe_op(r, x, y, op);
    fe_store(&out[i], r);
}

/* r = a + p without reduction (a < p: r < 2p < 2^382). */
template <class C> CU_DEV void fe_add_p(cu_fe<C> &r, const cu_fe<C> &a)
{
    asm volatile("add.cc.u32 %0, %1, %2;" : "=r"(r.l[0]) : "r"(a.l[0]), "r"(C::p(0)));
#pragma unroll
    for (int i = 1; i < C::N; i++)
        asm volatile("addc.cc.u32 %0, %1, %2;" : "=r"(r.l[i]) : "r"(a.l[i]), "r"(C::p(i)));
}

/*
 * Fp ops of a variant (GS_CU_FV): SQR through the variant's fe_sqr; with
 * LAZY, sub / mul / sqr are the lazy primitives (cu_field.cuh) on inputs
 * lifted to [p, 2p) (a + p, unreduced: the top of their input range),
 * their results in [0, 2p) brought to [0, p) by fe_reduce, so a result
 * outside [0, 2p) or a wrong residue differs from the CPU.  sub alternates
 * (a + p) - b (never below 0) and a - (b + p) (always below 0: the 2p
 * correction).
 */
template <class C, bool LAZY>
__global__ void k_fp_op_v(cu_fe<C> *out, const cu_fe<C> *a, const cu_fe<C> *b, size_t n, int op)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    cu_fe<C> x, y, r, xl, yl, t;
    fe_load(x, &a[i]);
    fe_load(y, &b[i]);
    if constexpr (LAZY) {
        fe_add_p(xl, x);
        fe_add_p(yl, y);
        switch (op) {
        case GS_CU_OP_ADD: fe_add(r, x, y); break;
        case GS_CU_OP_SUB:
            if (i & 1) fe_sub_lz(t, x, yl);
            else fe_sub_lz(t, xl, y);
            fe_reduce(r, t);
            break;
        case GS_CU_OP_MUL: fe_mul_lz(t, xl, yl); fe_reduce(r, t); break;
        default: fe_sqr_lz(t, xl); fe_reduce(r, t); break;
        }
    } else {
        fe_op(r, x, y, op);
    }
    fe_store(&out[i], r);
}

/* Chains for the throughput figures: KIND 0 = x <- x y, y <- y x (fe_mul);
 * 1 = x <- x^2 (fe_sqr of C's variant); 2 = fe_mul_lz; 3 = fe_sqr_lz;
 * 4 / 5 = CIOS lazy / reduced (fe_mul_cios, whatever fe_mul builds as);
 * 6 = two independent lazy chains, x <- x y0 by product scanning on the
 * integer pipe beside y <- y x0 on the FP64 pipe (x0, y0 the loaded
 * values; the knob msm_fmul = 2's pairing).
 * Two operations per iteration, each depending on the one before (6: on
 * the one before in its own chain). */
template <class C, int KIND>
__global__ void k_field_chain(cu_fe<C> *io, int iters)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    cu_fe<C> x, y;
    fe_load(x, &io[2 * i]);
    fe_load(y, &io[2 * i + 1]);
    const cu_fe<C> x0 = x, y0 = y;
    for (int k = 0; k < iters; k++) {
        if constexpr (KIND == 0) {
            fe_mul(x, x, y);
            fe_mul(y, y, x);
        } else if constexpr (KIND == 1) {
            fe_sqr(x, x);
            fe_sqr(x, x);
        } else if constexpr (KIND == 2) {
            fe_mul_lz(x, x, y);
            fe_mul_lz(y, y, x);
        } else if constexpr (KIND == 4 || KIND == 5) {
            fe_mul_cios<C, KIND == 5>(x, x, y);
            fe_mul_cios<C, KIND == 5>(y, y, x);
        } else if constexpr (KIND == 6) {
            fe_mul_ps<C, false>(x, x, y0);
            fe_mul_f64<C>(y, y, x0);
        } else {
            fe_sqr_lz(x, x);
            fe_sqr_lz(x, x);
        }
    }
    if constexpr (KIND == 0 || KIND == 2 || KIND == 4 || KIND == 5 || KIND == 6) fe_store(&io[2 * i], x);
    else fe_store(&io[2 * i + 1], x);
    if constexpr (KIND == 6) fe_store(&io[2 * i + 1], y);
}

template <class F, class H>
static gs_status field_batch(gs_cu_dev *d, H *out, const H *a, const H *b, size_t n, int op,
                             gs_err *err)
{
    gs_status st = GS_OK;
    F *da = NULL, *db = NULL, *dout = NULL;
    size_t bytes = n * sizeof(H);
    static_assert(sizeof(H) == sizeof(F), "host and device layouts differ");
    if (op < 0 || op >= GS_CU_OP_COUNT) return GS_ERR(err, GS_ERR_ARG, "cuda", "field op %d", op);
    if (n == 0) return GS_OK;
    CU_TRY_GO(cudaSetDevice(d->device));
    CU_TRY_GO(cudaMalloc(&da, bytes));
    CU_TRY_GO(cudaMalloc(&db, bytes));
    CU_TRY_GO(cudaMalloc(&dout, bytes));
    CU_TRY_GO(cudaMemcpyAsync(da, a, bytes, cudaMemcpyHostToDevice, d->stream));
    CU_TRY_GO(cudaMemcpyAsync(db, b, bytes, cudaMemcpyHostToDevice, d->stream));
    {
        unsigned nb = (unsigned)((n + 127) / 128);
        int fv = cu_fv_bits() & (CU_FV_SQR | CU_FV_LAZY);
        typedef cu_fe<cu_cfgv<cu_fp_cfg, CU_FV_SQR>> Fs;
        typedef cu_fe<cu_cfgv<cu_fp_cfg, 0>> Fm;
        typedef cu_fe<cu_cfgv<cu_fp_cfg, CU_FV_SQR | CU_FV_KMUL>> Fk;
        typedef cu_fe<cu_cfgv<cu_fp_cfg, CU_FV_SQR | CU_FV_FMUL>> Ff;
        if constexpr (std::is_same<F, cu_fp>::value) {
            /* The knob msm_kmul with GS_CU_FV's lazy bit: the lazy
             * multiplication by Karatsuba, as the MSM's level 1 takes it. */
            if (gs_cu_knob(GS_CU_K_MSM_KMUL) && (fv & CU_FV_LAZY))
                k_fp_op_v<Fk::cfg, true><<<nb, 128, 0, d->stream>>>((Fk *)dout, (Fk *)da, (Fk *)db, n, op);
            /* The knob msm_fmul (1 or 2) likewise: the lazy multiplication
             * on the FP64 pipe (cu_field_f64.h). */
            else if (gs_cu_knob(GS_CU_K_MSM_FMUL) && (fv & CU_FV_LAZY))
                k_fp_op_v<Ff::cfg, true><<<nb, 128, 0, d->stream>>>((Ff *)dout, (Ff *)da, (Ff *)db, n, op);
            else if (fv == (CU_FV_SQR | CU_FV_LAZY))
                k_fp_op_v<Fs::cfg, true><<<nb, 128, 0, d->stream>>>((Fs *)dout, (Fs *)da, (Fs *)db, n, op);
            else if (fv == CU_FV_LAZY)
                k_fp_op_v<Fm::cfg, true><<<nb, 128, 0, d->stream>>>((Fm *)dout, (Fm *)da, (Fm *)db, n, op);
            else if (fv == CU_FV_SQR)
                k_fp_op_v<Fs::cfg, false><<<nb, 128, 0, d->stream>>>((Fs *)dout, (Fs *)da, (Fs *)db, n, op);
            else
                k_field_op<F><<<nb, 128, 0, d->stream>>>(dout, da, db, n, op);
        } else {
            k_field_op<F><<<nb, 128, 0, d->stream>>>(dout, da, db, n, op);
        }
    }
    CU_TRY_GO(cudaGetLastError());
    CU_TRY_GO(cudaMemcpyAsync(out, dout, bytes, cudaMemcpyDeviceToHost, d->stream));
    CU_TRY_GO(cudaStreamSynchronize(d->stream));
fail:
    cudaFree(da);
    cudaFree(db);
    cudaFree(dout);
    return st;
}

extern "C" gs_status gs_cu_fp_batch(gs_cu_dev *d, gs_fp *out, const gs_fp *a, const gs_fp *b,
                                    size_t n, gs_cu_op op, gs_err *err)
{
    return field_batch<cu_fp>(d, out, a, b, n, (int)op, err);
}

extern "C" gs_status gs_cu_fp2_batch(gs_cu_dev *d, gs_fp2 *out, const gs_fp2 *a, const gs_fp2 *b,
                                     size_t n, gs_cu_op op, gs_err *err)
{
    return field_batch<cu_fp2>(d, out, a, b, n, (int)op, err);
}

extern "C" gs_status gs_cu_fr_batch(gs_cu_dev *d, gs_fr *out, const gs_fr *a, const gs_fr *b,
                                    size_t n, gs_cu_op op, gs_err *err)
{
    return field_batch<cu_fr>(d, out, a, b, n, (int)op, err);
}

/* Fills io with small nonzero Montgomery-looking values (any value < p works). */
template <class C> __global__ void k_field_fill(cu_fe<C> *io, size_t n)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    cu_fe<C> x;
#pragma unroll
    for (int k = 0; k < C::N; k++) x.l[k] = (uint32_t)(i * 2654435761u + k * 40503u + 1);
    x.l[C::N - 1] &= 0x0fffffffu;
    fe_store(&io[i], x);
}

template <class C, int KIND>
static gs_status field_bench(gs_cu_dev *d, double *rate, gs_err *err)
{
    gs_status st = GS_OK;
    cu_fe<C> *io = NULL;
    const int threads = 256, iters = 256;
    const unsigned blocks = (unsigned)d->sm_count * 16;
    const size_t nthr = (size_t)blocks * threads;
    float ms = 0;
    CU_TRY_GO(cudaSetDevice(d->device));
    CU_TRY_GO(cudaMalloc(&io, 2 * nthr * sizeof(cu_fe<C>)));
    k_field_fill<C><<<(unsigned)((2 * nthr + 255) / 256), 256, 0, d->stream>>>(io, 2 * nthr);
    CU_TRY_GO(cudaGetLastError());
    k_field_chain<C, KIND><<<blocks, threads, 0, d->stream>>>(io, 8); /* warm-up */
    CU_TRY_GO(cudaGetLastError());
    CU_TRY_GO(cudaEventRecord(d->mark[0], d->stream));
    k_field_chain<C, KIND><<<blocks, threads, 0, d->stream>>>(io, iters);
    CU_TRY_GO(cudaGetLastError());
    CU_TRY_GO(cudaEventRecord(d->mark[1], d->stream));
    CU_TRY_GO(cudaEventSynchronize(d->mark[1]));
    CU_TRY_GO(cudaEventElapsedTime(&ms, d->mark[0], d->mark[1]));
    *rate = (double)nthr * iters * 2 / ((double)ms * 1e-3);
fail:
    cudaFree(io);
    return st;
}

extern "C" gs_status gs_cu_field_bench(gs_cu_dev *d, int kind, double *mul_per_s, gs_err *err)
{
    typedef cu_cfgv<cu_fp_cfg, CU_FV_SQR> Cs;
    typedef cu_cfgv<cu_fp_cfg, 0> Cm;
    switch (kind) {
    case 0: return field_bench<cu_fp_cfg, 0>(d, mul_per_s, err);
    case 1: return field_bench<cu_fr_cfg, 0>(d, mul_per_s, err);
    case 2: return field_bench<Cm, 1>(d, mul_per_s, err);
    case 3: return field_bench<Cs, 1>(d, mul_per_s, err);
    case 4: return field_bench<Cm, 2>(d, mul_per_s, err);
    case 5: return field_bench<Cs, 3>(d, mul_per_s, err);
    case 6: return field_bench<Cm, 4>(d, mul_per_s, err);
    case 7: return field_bench<cu_fr_cfg, 5>(d, mul_per_s, err);
    case 8: return field_bench<cu_cfgv<cu_fp_cfg, CU_FV_KMUL>, 2>(d, mul_per_s, err);
    case 9: return field_bench<cu_cfgv<cu_fp_cfg, CU_FV_FMUL>, 2>(d, mul_per_s, err);
    case 10: return field_bench<Cm, 6>(d, mul_per_s, err);
    default: return GS_ERR(err, GS_ERR_ARG, "cuda", "field bench kind %d", kind);
    }
}
