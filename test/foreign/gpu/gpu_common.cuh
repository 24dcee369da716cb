/*
 * Shared by the outside-shaped GPU test programs of test/foreign/gpu (see
 * README.md there).  These programs stand for code nobody on this project
 * wrote: they include nothing of gapscope and print their own ground truth.
 *
 *   now_ns()          CLOCK_MONOTONIC in ns (attach's raw records use it too)
 *   gpu_init(cpu)     cudaSetDevice(0) + a warm-up kernel (no CUDA call at
 *                     all with cpu = 1)
 *   gpu_work(ms, cpu) one spin kernel of `ms` milliseconds on the legacy
 *                     default stream, asynchronous (cpu = 1: nothing runs,
 *                     gpu_sync sleeps until the same deadline instead)
 *   gpu_sync(cpu)     cudaDeviceSynchronize (the GPU is idle after it)
 *   opt_*()           "--name value" options; "--cpu-only" is the flag
 *                     that turns every CUDA call into a sleep
 *   gt_*()            the ground-truth line, one JSON object on stdout:
 *                     GROUND_TRUTH {"program":..., ...}
 *   frag_*()          a fragmented malloc heap whose free half is dirtied
 *                     again before each malloc_trim(0), so every trim has
 *                     pages to return (as a prover's heap does between
 *                     partitions)
 *
 * The kernel spins on %globaltimer (ns), so its length does not depend on
 * the clock the GPU runs at.  Build: nvcc -O2 -arch=sm_90 X.cu -o X
 * (cudart linked statically by default: the binary needs only libcuda.so.1
 * at run time, and none with --cpu-only).
 */
#ifndef FOREIGN_GPU_COMMON_CUH
#define FOREIGN_GPU_COMMON_CUH

#include <cuda_runtime.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define CK(x)                                                                              \
    do {                                                                                   \
        cudaError_t e_ = (x);                                                              \
        if (e_ != cudaSuccess) {                                                           \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); \
            exit(1);                                                                       \
        }                                                                                  \
    } while (0)

static int64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void sleep_until_ns(int64_t t)
{
    for (int64_t d; (d = t - now_ns()) > 0;) {
        struct timespec ts = {(time_t)(d / 1000000000), (long)(d % 1000000000)};
        nanosleep(&ts, NULL);
    }
}

__device__ __forceinline__ uint64_t globaltimer(void)
{
    uint64_t t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

__global__ void spin_kernel(uint64_t ns, unsigned long long *sink)
{
    uint64_t t0 = globaltimer(), t = t0;
    while (t - t0 < ns)
        t = globaltimer();
    if (threadIdx.x == 0 && blockIdx.x == 0)
        *sink = t - t0;
}

static unsigned long long *g_sink;
static int64_t g_deadline;   /* --cpu-only: when the emulated kernel ends */

static void gpu_work(double ms, int cpu)
{
    if (cpu) {
        int64_t t = now_ns();
        g_deadline = (g_deadline > t ? g_deadline : t) + (int64_t)(ms * 1e6);
        return;
    }
    spin_kernel<<<1, 32>>>((uint64_t)(ms * 1e6), g_sink);
    CK(cudaGetLastError());
}

static void gpu_sync(int cpu)
{
    if (cpu)
        sleep_until_ns(g_deadline);
    else
        CK(cudaDeviceSynchronize());
}

static void gpu_init(int cpu)
{
    if (cpu)
        return;
    CK(cudaSetDevice(0));
    CK(cudaMalloc((void **)&g_sink, sizeof *g_sink));
    gpu_work(1, 0);
    gpu_sync(0);
}

/* ---- options ------------------------------------------------------------------ */

static int opt_flag(int argc, char **argv, const char *name)
{
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], name))
            return 1;
    return 0;
}

static double opt_num(int argc, char **argv, const char *name, double def)
{
    for (int i = 1; i + 1 < argc; i++)
        if (!strcmp(argv[i], name)) {
            char *e;
            double v = strtod(argv[i + 1], &e);
            if (*e || v < 0) {
                fprintf(stderr, "%s: %s wants a number >= 0, not '%s'\n", argv[0], name,
                        argv[i + 1]);
                exit(2);
            }
            return v;
        }
    return def;
}

static const char *opt_str(int argc, char **argv, const char *name, const char *def)
{
    for (int i = 1; i + 1 < argc; i++)
        if (!strcmp(argv[i], name))
            return argv[i + 1];
    return def;
}

/* ---- the ground-truth line ------------------------------------------------------ */

static void gt_begin(const char *program, int cpu)
{
    printf("GROUND_TRUTH {\"program\":\"%s\",\"cpu_only\":%d", program, cpu);
}

static void gt_num(const char *key, double v) { printf(",\"%s\":%.6f", key, v); }
static void gt_int(const char *key, long long v) { printf(",\"%s\":%lld", key, v); }
static void gt_str(const char *key, const char *v) { printf(",\"%s\":\"%s\"", key, v); }

static void gt_end(void)
{
    printf("}\n");
    fflush(stdout);
}

/* ---- a fragmented heap ------------------------------------------------------------ */

#define FRAG_BLOCK 8192

typedef struct frag {
    char **blk;
    size_t n;
} frag;

/* n blocks of 8 KiB (mib MiB); the odd ones stay allocated, the even ones
 * are freed (holes between live blocks: no trim can give them back whole). */
static void frag_init(frag *f, double mib)
{
    f->n = (size_t)(mib * 1024 / 8);
    f->blk = (char **)calloc(f->n + 1, sizeof *f->blk);
    if (!f->blk) {
        fprintf(stderr, "out of memory\n");
        exit(1);
    }
    for (size_t i = 0; i < f->n; i++) {
        f->blk[i] = (char *)malloc(FRAG_BLOCK);
        if (!f->blk[i]) {
            fprintf(stderr, "out of memory\n");
            exit(1);
        }
        memset(f->blk[i], (int)i, FRAG_BLOCK);
    }
    for (size_t i = 0; i < f->n; i += 2) {
        free(f->blk[i]);
        f->blk[i] = NULL;
    }
}

/* The holes allocated, written (one byte per 4 KiB page) and freed again:
 * their pages are resident and free, what malloc_trim(0) returns. */
static void frag_dirty(frag *f)
{
    for (size_t i = 0; i < f->n; i += 2) {
        f->blk[i] = (char *)malloc(FRAG_BLOCK);
        if (f->blk[i])
            for (size_t k = 0; k < FRAG_BLOCK; k += 4096)
                f->blk[i][k] = 1;
    }
    for (size_t i = 0; i < f->n; i += 2) {
        free(f->blk[i]);
        f->blk[i] = NULL;
    }
}

#endif
