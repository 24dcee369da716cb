/*
 * The per-device context: stream, timing events, pinned staging buffers,
 * and the host/device copies built on them (cuda_dev.h).
 *
 * Clock alignment: CUDA events carry device timestamps only relative to
 * one another (cudaEventElapsedTime).  gs_cu_clock_align records a
 * reference event on the idle stream and takes gs_now_ns() before the
 * record and after its synchronize; the midpoint is the reference's host
 * time.  Any later event's host time is ref_host_ns + elapsed(ref, event).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cu_internal.cuh"

extern "C" int gs_cu_device_count(void)
{
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess) {
        (void)cudaGetLastError();
        return 0;
    }
    return n;
}

/* cudaEventBlockingSync under host_sync = block (gs_cu_dev_create). */
static unsigned blocking_events(void)
{
    return gs_cu_knob(GS_CU_K_HOST_SYNC) == GS_CU_SYNC_BLOCK ? cudaEventBlockingSync : 0;
}

extern "C" gs_status gs_cu_dev_create(gs_cu_dev **out, int device, gs_err *err)
{
    gs_status st = GS_OK;
    gs_cu_dev *d = NULL;
    cudaDeviceProp prop;
    int n = gs_cu_device_count(), drv = 0;

    *out = NULL;
    if (device < 0 || device >= n)
        return GS_ERR(err, GS_ERR_NODEV, "cuda", "device %d requested, %d visible", device, n);
    d = (gs_cu_dev *)calloc(1, sizeof *d);
    if (!d) return GS_ERR(err, GS_ERR_NOMEM, "cuda", "context");
    d->device = device;
    CU_TRY_GO(cudaSetDevice(device));
    {
        /* How a host thread waits for this device (knob host_sync,
         * GS_CU_SYNC): the runtime's default (auto) spins while the
         * process has fewer contexts than CPUs, so a GPU worker waiting
         * out a proof is a busy thread to the host's scheduler
         * (traces/h100-r3s6-issue31: ~90% of prove_start's wall is CPU time).
         * block: the worker sleeps until the device is done. */
        static const unsigned sched[] = {/* in GS_CU_SYNC_* order */ cudaDeviceScheduleAuto,
                                         cudaDeviceScheduleSpin, cudaDeviceScheduleYield,
                                         cudaDeviceScheduleBlockingSync};
        int v = gs_cu_knob(GS_CU_K_HOST_SYNC);
        if (v > GS_CU_SYNC_AUTO && v <= GS_CU_SYNC_BLOCK) CU_TRY_GO(cudaSetDeviceFlags(sched[v]));
    }
    CU_TRY_GO(cudaGetDeviceProperties(&prop, device));
    CU_TRY_GO(cudaDriverGetVersion(&drv));
    d->sm_count = prop.multiProcessorCount;
    snprintf(d->desc, sizeof d->desc, "%.120s (sm_%d%d, %d SMs, %.0f GiB), CUDA driver %d.%d",
             prop.name, prop.major, prop.minor, prop.multiProcessorCount,
             (double)prop.totalGlobalMem / (1024.0 * 1024 * 1024), drv / 1000, (drv % 1000) / 10);
    {
        /* Stream 1 (a/b/c and the H NTTs, the head of a proof's critical
         * path) at the highest priority, so the block scheduler feeds it
         * before the witness MSMs of stream 0; knob stream_prio = 0
         * (GS_CU_PRIO=0): both at the default priority. */
        int lo = 0, hi = 0;
        CU_TRY_GO(cudaDeviceGetStreamPriorityRange(&lo, &hi));
        d->prio1 = gs_cu_knob(GS_CU_K_STREAM_PRIO) == 0 ? lo : hi;
    }
    for (int i = 0; i < 2; i++) {
        CU_TRY_GO(cudaStreamCreateWithPriority(&d->streams[i], cudaStreamNonBlocking,
                                               i == 1 ? d->prio1 : 0));
        CU_TRY_GO(cudaEventCreateWithFlags(&d->xev[i], cudaEventDisableTiming));
    }
    d->stream = d->streams[0];
    CU_TRY_GO(cudaHostAlloc((void **)&d->cnt_host, 64, cudaHostAllocDefault));
    /* The events a host thread waits on (the marks: the witness MSMs'
     * fetch; the staging chunks) block it too under host_sync = block:
     * the runtime documents that cudaEventSynchronize busy-waits on an
     * event made without cudaEventBlockingSync (not measured here without
     * the flag). */
    for (int i = 0; i < GS_CU_MARKS; i++)
        CU_TRY_GO(cudaEventCreateWithFlags(&d->mark[i], cudaEventDefault | blocking_events()));
    CU_TRY_GO(cudaEventCreateWithFlags(&d->ref, cudaEventDefault | blocking_events()));
    for (int i = 0; i < 2; i++) {
        CU_TRY_GO(cudaHostAlloc(&d->pin[i], GS_CU_PIN_CHUNK, cudaHostAllocDefault));
        CU_TRY_GO(cudaEventCreateWithFlags(&d->pin_done[i], cudaEventDisableTiming | blocking_events()));
    }
    CU_TRY_GO(cudaMalloc(&d->res_dev, GS_CU_SLOT_BYTES * GS_CU_MSM_SLOTS));
    CU_TRY_GO(cudaHostAlloc(&d->res_host, GS_CU_SLOT_BYTES * GS_CU_MSM_SLOTS, cudaHostAllocDefault));
    *out = d;
    return GS_OK;
fail:
    gs_cu_dev_destroy(d);
    return st;
}

extern "C" void gs_cu_dev_destroy(gs_cu_dev *d)
{
    if (!d) return;
    cudaSetDevice(d->device);
    for (int i = 0; i < 2; i++)
        if (d->streams[i]) cudaStreamSynchronize(d->streams[i]);
    for (int i = 0; i < GS_CU_MARKS; i++)
        if (d->mark[i]) cudaEventDestroy(d->mark[i]);
    if (d->ref) cudaEventDestroy(d->ref);
    for (int i = 0; i < 2; i++) {
        if (d->pin[i]) cudaFreeHost(d->pin[i]);
        if (d->pin_done[i]) cudaEventDestroy(d->pin_done[i]);
    }
    cudaFree(d->tw);
    cudaFree(d->msm.base);
    cudaFree(d->msm.cub_temp);
    cudaFree(d->msm.ba);
    cudaFree(d->res_dev);
    if (d->res_host) cudaFreeHost(d->res_host);
    if (d->cnt_host) cudaFreeHost(d->cnt_host);
    for (int i = 0; i < 2; i++) {
        if (d->xev[i]) cudaEventDestroy(d->xev[i]);
        if (d->streams[i]) cudaStreamDestroy(d->streams[i]);
    }
    (void)cudaGetLastError();
    free(d);
}

extern "C" const char *gs_cu_dev_describe(const gs_cu_dev *d) { return d->desc; }
extern "C" int gs_cu_dev_index(const gs_cu_dev *d) { return d->device; }

extern "C" gs_status gs_cu_alloc(gs_cu_dev *d, void **p, size_t bytes, gs_err *err)
{
    *p = NULL;
    CU_TRY(cudaSetDevice(d->device));
    cudaError_t e = cudaMalloc(p, bytes ? bytes : 16);
    if (e != cudaSuccess) {
        (void)cudaGetLastError();
        *p = NULL;
        return GS_ERR(err, e == cudaErrorMemoryAllocation ? GS_ERR_NOMEM : GS_ERR_CUDA, "cuda",
                      "cudaMalloc(%zu bytes): %s", bytes, cudaGetErrorString(e));
    }
    return GS_OK;
}

extern "C" gs_status gs_cu_mem_info(gs_cu_dev *d, size_t *free_b, size_t *total_b, gs_err *err)
{
    CU_TRY(cudaSetDevice(d->device));
    CU_TRY(cudaMemGetInfo(free_b, total_b));
    return GS_OK;
}

extern "C" void gs_cu_free(gs_cu_dev *d, void *p)
{
    if (!p) return;
    cudaSetDevice(d->device);
    cudaFree(p);
}

/* Host copy into a pinned chunk, split over a few threads: one core copies
 * at ~6 GB/s, well under the ~55 GB/s the DMA takes from pinned memory.
 * The knob copy_threads (GS_CU_COPY_THREADS, 1..32, read per copy; default
 * 8) sets how many, for measurements. */
#define PAR_COPY_THREADS 32

static int par_copy_threads(void)
{
    int t = gs_cu_knob(GS_CU_K_COPY_THREADS);
    return t < 1 ? 1 : t > PAR_COPY_THREADS ? PAR_COPY_THREADS : t;
}
struct par_copy {
    char *dst;
    const char *src;
    size_t len;
};

static void *par_copy_run(void *arg)
{
    par_copy *c = (par_copy *)arg;
    memcpy(c->dst, c->src, c->len);
    return NULL;
}

static void par_memcpy(void *dst, const void *src, size_t len)
{
    pthread_t th[PAR_COPY_THREADS];
    par_copy job[PAR_COPY_THREADS];
    int started[PAR_COPY_THREADS] = {0};
    int nt = par_copy_threads();
    size_t per = (len / (size_t)nt + 4095) & ~(size_t)4095;
    if (len < ((size_t)4 << 20) || nt == 1) {
        memcpy(dst, src, len);
        return;
    }
    for (int i = 0; i < nt; i++) {
        size_t off = per * (size_t)i;
        job[i].dst = (char *)dst + off;
        job[i].src = (const char *)src + off;
        job[i].len = off >= len ? 0 : (len - off < per ? len - off : per);
    }
    for (int i = 1; i < nt; i++)
        if (job[i].len) started[i] = pthread_create(&th[i], NULL, par_copy_run, &job[i]) == 0;
    par_copy_run(&job[0]);
    for (int i = 1; i < nt; i++) {
        if (started[i]) pthread_join(th[i], NULL);
        else if (job[i].len) par_copy_run(&job[i]);
    }
}

/* 1 when the byte at p is page-locked host memory CUDA knows
 * (cudaHostAlloc, cudaHostRegister). */
static int host_pinned1(const void *p)
{
    cudaPointerAttributes a;
    memset(&a, 0, sizeof a);
    if (cudaPointerGetAttributes(&a, p) != cudaSuccess) {
        (void)cudaGetLastError();
        return 0;
    }
    return a.type == cudaMemoryTypeHost;
}

extern "C" int gs_cu_host_pinned(const void *p, size_t bytes)
{
    if (!p || bytes == 0) return 0;
    return host_pinned1(p) && host_pinned1((const char *)p + bytes - 1);
}

/* The status of a failed page-locking call (its error cleared). */
static gs_status host_mem_err(cudaError_t e, const char *call, size_t bytes, gs_err *err)
{
    (void)cudaGetLastError();
    return GS_ERR(err, e == cudaErrorMemoryAllocation ? GS_ERR_NOMEM : GS_ERR_CUDA, "cuda",
                  "%s(%zu bytes): %s", call, bytes, cudaGetErrorString(e));
}

extern "C" gs_status gs_cu_host_register(void *p, size_t bytes, gs_err *err)
{
    if (!p || bytes == 0) return GS_OK;
    cudaError_t e = cudaHostRegister(p, bytes, cudaHostRegisterPortable);
    return e == cudaSuccess ? GS_OK : host_mem_err(e, "cudaHostRegister", bytes, err);
}

extern "C" void gs_cu_host_unregister(void *p)
{
    if (!p) return;
    if (cudaHostUnregister(p) != cudaSuccess) (void)cudaGetLastError();
}

extern "C" gs_status gs_cu_host_alloc(void **p, size_t bytes, gs_err *err)
{
    *p = NULL;
    cudaError_t e = cudaHostAlloc(p, bytes ? bytes : 16, cudaHostAllocPortable);
    if (e == cudaSuccess) return GS_OK;
    *p = NULL;
    return host_mem_err(e, "cudaHostAlloc", bytes, err);
}

extern "C" void gs_cu_host_free(void *p)
{
    if (p && cudaFreeHost(p) != cudaSuccess) (void)cudaGetLastError();
}

/* Staged copy: chunk k goes through pin[k % 2] once that buffer's previous
 * DMA has completed; a page-locked src goes up in one DMA, no staging.
 * Event `mark` (>= 0) goes right before the first DMA. */
extern "C" gs_status gs_cu_upload_marked(gs_cu_dev *d, void *dst, const void *src, size_t bytes,
                                         int pageable, int mark, gs_err *err)
{
    gs_status st;
    CU_TRY(cudaSetDevice(d->device));
    if (pageable) {
        if (mark >= 0 && (st = gs_cu_mark(d, mark, err)) != GS_OK) return st;
        CU_TRY(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice, d->stream));
        return GS_OK;
    }
    if (bytes > 0 && gs_cu_host_pinned(src, bytes)) {
        /* Page-locked already: one DMA straight from src, no staging. */
        if (mark >= 0 && (st = gs_cu_mark(d, mark, err)) != GS_OK) return st;
        CU_TRY(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice, d->stream));
        return GS_OK;
    }
    size_t off = 0;
    for (int k = 0; off < bytes; k ^= 1) {
        size_t len = bytes - off < GS_CU_PIN_CHUNK ? bytes - off : GS_CU_PIN_CHUNK;
        CU_TRY(cudaEventSynchronize(d->pin_done[k]));
        par_memcpy(d->pin[k], (const char *)src + off, len);
        if (off == 0 && mark >= 0 && (st = gs_cu_mark(d, mark, err)) != GS_OK) return st;
        CU_TRY(cudaMemcpyAsync((char *)dst + off, d->pin[k], len, cudaMemcpyHostToDevice,
                               d->stream));
        CU_TRY(cudaEventRecord(d->pin_done[k], d->stream));
        off += len;
    }
    if (bytes == 0 && mark >= 0) return gs_cu_mark(d, mark, err);
    return GS_OK;
}

extern "C" gs_status gs_cu_upload(gs_cu_dev *d, void *dst, const void *src, size_t bytes,
                                  int pageable, gs_err *err)
{
    return gs_cu_upload_marked(d, dst, src, bytes, pageable, -1, err);
}

extern "C" gs_status gs_cu_copy_d2d(gs_cu_dev *d, void *dst, const void *src, size_t bytes,
                                    gs_err *err)
{
    CU_TRY(cudaSetDevice(d->device));
    CU_TRY(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, d->stream));
    return GS_OK;
}

extern "C" gs_status gs_cu_download(gs_cu_dev *d, void *dst, const void *src, size_t bytes,
                                    gs_err *err)
{
    CU_TRY(cudaSetDevice(d->device));
    CU_TRY(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToHost, d->stream));
    CU_TRY(cudaStreamSynchronize(d->stream));
    return GS_OK;
}

/* Host affine point -> compact device point (infinity: x = y = 0). */
template <class A, class H> static void to_compact(A *out, const H *p)
{
    static_assert(sizeof(out->x) == sizeof(p->x) && sizeof(A) == 2 * sizeof(p->x),
                  "host and device coordinate layouts differ");
    if (p->inf) {
        memset(out, 0, sizeof *out);
    } else {
        memcpy(&out->x, &p->x, sizeof p->x);
        memcpy(&out->y, &p->y, sizeof p->y);
    }
}

/* dst[i] = compact(pts[idx ? idx[i] : i]), converted chunk by chunk into
 * the pinned buffers (each reused once its previous DMA has completed). */
template <class A, class H>
static gs_status upload_compact(gs_cu_dev *d, void *dst, const H *pts, const uint32_t *idx,
                                size_t n, gs_err *err)
{
    const size_t per = GS_CU_PIN_CHUNK / sizeof(A);
    CU_TRY(cudaSetDevice(d->device));
    size_t i = 0;
    for (int k = 0; i < n; k ^= 1) {
        size_t len = n - i < per ? n - i : per;
        CU_TRY(cudaEventSynchronize(d->pin_done[k]));
        A *buf = (A *)d->pin[k];
        for (size_t j = 0; j < len; j++) to_compact(&buf[j], &pts[idx ? idx[i + j] : i + j]);
        CU_TRY(cudaMemcpyAsync((A *)dst + i, buf, len * sizeof(A), cudaMemcpyHostToDevice,
                               d->stream));
        CU_TRY(cudaEventRecord(d->pin_done[k], d->stream));
        i += len;
    }
    return GS_OK;
}

extern "C" gs_status gs_cu_g1_upload(gs_cu_dev *d, void *dst, const gs_g1_affine *pts, size_t n,
                                     gs_err *err)
{
    return upload_compact<cu_g1_aff>(d, dst, pts, NULL, n, err);
}

extern "C" gs_status gs_cu_g2_upload(gs_cu_dev *d, void *dst, const gs_g2_affine *pts,
                                     const uint32_t *idx, size_t n, gs_err *err)
{
    return upload_compact<cu_g2_aff>(d, dst, pts, idx, n, err);
}

__global__ void k_gather(gs_scalar *out, const gs_scalar *in, const uint32_t *idx, size_t m)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < m) out[i] = in[idx[i]];
}

extern "C" gs_status gs_cu_gather_scalars(gs_cu_dev *d, gs_scalar *out, const gs_scalar *in,
                                          const uint32_t *idx, size_t m, gs_err *err)
{
    if (m == 0) return GS_OK;
    CU_TRY(cudaSetDevice(d->device));
    k_gather<<<(unsigned)((m + 255) / 256), 256, 0, d->stream>>>(out, in, idx, m);
    CU_LAUNCHED("k_gather");
    return GS_OK;
}

extern "C" gs_status gs_cu_sync(gs_cu_dev *d, gs_err *err)
{
    CU_TRY(cudaSetDevice(d->device));
    for (int i = 0; i < 2; i++) CU_TRY(cudaStreamSynchronize(d->streams[i]));
    CU_TRY(cudaGetLastError());
    return GS_OK;
}

extern "C" gs_status gs_cu_use_stream(gs_cu_dev *d, int k, gs_err *err)
{
    if (k < 0 || k > 1) return GS_ERR(err, GS_ERR_ARG, "cuda", "stream %d (0 or 1)", k);
    d->stream = d->streams[k];
    return GS_OK;
}

extern "C" gs_status gs_cu_stream_wait(gs_cu_dev *d, int waiter, int on, gs_err *err)
{
    if (waiter < 0 || waiter > 1 || on < 0 || on > 1 || waiter == on)
        return GS_ERR(err, GS_ERR_ARG, "cuda", "stream %d waiting on stream %d", waiter, on);
    CU_TRY(cudaSetDevice(d->device));
    CU_TRY(cudaEventRecord(d->xev[on], d->streams[on]));
    CU_TRY(cudaStreamWaitEvent(d->streams[waiter], d->xev[on], 0));
    return GS_OK;
}

extern "C" gs_status gs_cu_clock_align(gs_cu_dev *d, gs_err *err)
{
    CU_TRY(cudaSetDevice(d->device));
    for (int i = 0; i < 2; i++) CU_TRY(cudaStreamSynchronize(d->streams[i]));
    int64_t t0 = gs_now_ns();
    CU_TRY(cudaEventRecord(d->ref, d->stream));
    CU_TRY(cudaEventSynchronize(d->ref));
    int64_t t1 = gs_now_ns();
    d->ref_host_ns = t0 + (t1 - t0) / 2;
    return GS_OK;
}

extern "C" gs_status gs_cu_mark(gs_cu_dev *d, int i, gs_err *err)
{
    if (i < 0 || i >= GS_CU_MARKS)
        return GS_ERR(err, GS_ERR_ARG, "cuda", "mark %d out of range", i);
    CU_TRY(cudaEventRecord(d->mark[i], d->stream));
    return GS_OK;
}

extern "C" gs_status gs_cu_mark_sync(gs_cu_dev *d, int i, gs_err *err)
{
    if (i < 0 || i >= GS_CU_MARKS)
        return GS_ERR(err, GS_ERR_ARG, "cuda", "mark %d out of range", i);
    CU_TRY(cudaSetDevice(d->device));
    CU_TRY(cudaEventSynchronize(d->mark[i]));
    return GS_OK;
}

extern "C" gs_status gs_cu_mark_ns(gs_cu_dev *d, int i, int64_t *out, gs_err *err)
{
    float ms = 0;
    if (i < 0 || i >= GS_CU_MARKS)
        return GS_ERR(err, GS_ERR_ARG, "cuda", "mark %d out of range", i);
    CU_TRY(cudaEventElapsedTime(&ms, d->ref, d->mark[i]));
    *out = d->ref_host_ns + (int64_t)((double)ms * 1e6);
    return GS_OK;
}

extern "C" gs_status gs_cu_mark_ms(gs_cu_dev *d, int from, int to, double *out, gs_err *err)
{
    float ms = 0;
    if (from < 0 || from >= GS_CU_MARKS || to < 0 || to >= GS_CU_MARKS)
        return GS_ERR(err, GS_ERR_ARG, "cuda", "marks %d..%d out of range", from, to);
    CU_TRY(cudaEventElapsedTime(&ms, d->mark[from], d->mark[to]));
    *out = ms;
    return GS_OK;
}
