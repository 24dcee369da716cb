/*
 * Field kernels for the differential tests (element-wise add, sub, mul,
 * sqr of host arrays, over Fp, Fr and Fp2) and the multiply-throughput
 * benchmark: every thread runs a dependent chain of Montgomery
 * multiplications (x <- x * y), so the count of multiplications over the
 * elapsed time is the chip's rate for this instruction mix, the figure
 * DOMAIN.md compares with (~16 G/s for a plain 12x32-bit CIOS Fp multiply
 * on the H200).
 */
#include <string.h>

#include "cu_internal.cuh"

/* F: cu_fe<C> or cu_fp2 (the fe_* overloads). */
template <class F>
__global__ void k_field_op(F *out, const F *a, const F *b, size_t n, int op)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    F x, y, r;
    fe_load(x, &a[i]);
    fe_load(y, &b[i]);
    switch (op) {
    case GS_CU_OP_ADD: fe_add(r, x, y); break;
    case GS_CU_OP_SUB: fe_sub(r, x, y); break;
    case GS_CU_OP_MUL: fe_mul(r, x, y); break;
    default: fe_sqr(r, x); break;
    }
    fe_store(&out[i], r);
}

template <class C>
__global__ void k_field_chain(cu_fe<C> *io, int iters)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    cu_fe<C> x, y;
    fe_load(x, &io[2 * i]);
    fe_load(y, &io[2 * i + 1]);
    for (int k = 0; k < iters; k++) {
        fe_mul(x, x, y);
        fe_mul(y, y, x);
    }
    fe_store(&io[2 * i], x);
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
    k_field_op<F><<<(unsigned)((n + 127) / 128), 128, 0, d->stream>>>(dout, da, db, n, op);
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

template <class C>
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
    k_field_chain<C><<<blocks, threads, 0, d->stream>>>(io, 8); /* warm-up */
    CU_TRY_GO(cudaGetLastError());
    CU_TRY_GO(cudaEventRecord(d->mark[0], d->stream));
    k_field_chain<C><<<blocks, threads, 0, d->stream>>>(io, iters);
    CU_TRY_GO(cudaGetLastError());
    CU_TRY_GO(cudaEventRecord(d->mark[1], d->stream));
    CU_TRY_GO(cudaEventSynchronize(d->mark[1]));
    CU_TRY_GO(cudaEventElapsedTime(&ms, d->mark[0], d->mark[1]));
    *rate = (double)nthr * iters * 2 / ((double)ms * 1e-3);
fail:
    cudaFree(io);
    return st;
}

extern "C" gs_status gs_cu_field_bench(gs_cu_dev *d, int fr, double *mul_per_s, gs_err *err)
{
    return fr ? field_bench<cu_fr_cfg>(d, mul_per_s, err) : field_bench<cu_fp_cfg>(d, mul_per_s, err);
}
