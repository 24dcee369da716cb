/*
 * pageable_copy: 4 x 64 MiB host-to-device copies from pageable (malloc'd)
 * memory between kernels, every iteration.  Issue 30's fourth row: attach
 * said util 96%, copies counted as busy, no cause; the truth is kernels
 * starved by copies from pageable memory (the driver stages them through
 * a pinned bounce buffer, at a fraction of the pinned rate).
 *
 *   pageable_copy [--cpu-only] [--iters N] [--kernel-ms K] [--copies C]
 *                 [--copy-mib M] [--pinned]
 *
 * Per iteration: launch a K ms kernel, cudaDeviceSynchronize, then C
 * cudaMemcpy host-to-device of M MiB each from malloc'd memory (timed on
 * the host), next iteration.  CUDA events around each kernel give the
 * device's own account: kernel_idle_s is the sum, over iterations, of the
 * time from one kernel's end to the next one's start (the copies, plus the
 * launch path), in the GPU's clock.  --pinned copies from cudaMallocHost
 * memory instead (a control: the copies are then short).
 * Ground truth (stdout, last line): GROUND_TRUTH {"program":"pageable_copy",
 * "copy_s": host time inside the copies, "kernel_idle_s": as above,
 * "kernel_busy_s": the kernels' own time (events), "copy_gbps",
 * "expect_family":"h2d_pageable" (the kernel-level view's top cause),
 * "expect_view":"kernels"}.  With --cpu-only each copy is a memcpy into a
 * second host buffer (no CUDA call at all).
 */
#include <pthread.h>
#include <sys/syscall.h>

#include "gpu_common.cuh"

int main(int argc, char **argv)
{
    int cpu = opt_flag(argc, argv, "--cpu-only");
    int pinned = opt_flag(argc, argv, "--pinned");
    int iters = (int)opt_num(argc, argv, "--iters", 150);
    double kernel_ms = opt_num(argc, argv, "--kernel-ms", 10);
    int copies = (int)opt_num(argc, argv, "--copies", 4);
    size_t bytes = (size_t)(opt_num(argc, argv, "--copy-mib", 64) * 1048576.0);
    pthread_setname_np(pthread_self(), "launcher");
    gpu_init(cpu);
    char *host = NULL, *dev = NULL;
    if (pinned && !cpu)
        CK(cudaMallocHost((void **)&host, bytes));
    else
        host = (char *)malloc(bytes);
    if (cpu)
        dev = (char *)malloc(bytes);
    else
        CK(cudaMalloc((void **)&dev, bytes * (size_t)copies));
    if (!host || !dev) {
        fprintf(stderr, "pageable_copy: out of memory\n");
        return 1;
    }
    memset(host, 7, bytes);
    cudaEvent_t *ev = NULL;   /* per iteration: kernel start, kernel end */
    if (!cpu) {
        ev = (cudaEvent_t *)calloc(2 * (size_t)iters, sizeof *ev);
        for (int i = 0; i < 2 * iters; i++)
            CK(cudaEventCreate(&ev[i]));
    }
    double copy_s = 0;
    int64_t t0 = now_ns();
    for (int i = 0; i < iters; i++) {
        if (!cpu)
            CK(cudaEventRecord(ev[2 * i], 0));
        gpu_work(kernel_ms, cpu);
        if (!cpu)
            CK(cudaEventRecord(ev[2 * i + 1], 0));
        gpu_sync(cpu);
        int64_t a = now_ns();
        for (int c = 0; c < copies; c++) {
            if (cpu)
                memcpy(dev, host, bytes);
            else
                CK(cudaMemcpy(dev + (size_t)c * bytes, host, bytes, cudaMemcpyHostToDevice));
        }
        copy_s += (double)(now_ns() - a) * 1e-9;
    }
    gpu_sync(cpu);
    int64_t t1 = now_ns();
    double kidle_ms = 0, kbusy_ms = 0;
    for (int i = 0; !cpu && i < iters; i++) {
        float ms;
        CK(cudaEventElapsedTime(&ms, ev[2 * i], ev[2 * i + 1]));
        kbusy_ms += ms;
        if (i + 1 < iters) {
            CK(cudaEventElapsedTime(&ms, ev[2 * i + 1], ev[2 * i + 2]));
            kidle_ms += ms;
        }
    }
    double gb = (double)bytes * copies * iters / 1e9;
    printf("pageable_copy: %d iterations in %.2f s: %d x %.0f MiB %s copies took %.3f s "
           "(%.1f GB/s), kernels idle %.3f s between kernels (events)\n", iters,
           (double)(t1 - t0) * 1e-9, copies, (double)bytes / 1048576.0,
           pinned ? "pinned" : "pageable", copy_s, copy_s > 0 ? gb / copy_s : 0.0,
           kidle_ms * 1e-3);
    gt_begin("pageable_copy", cpu);
    gt_int("iters", iters);
    gt_num("copy_s", copy_s);
    gt_num("kernel_idle_s", kidle_ms * 1e-3);
    gt_num("kernel_busy_s", kbusy_ms * 1e-3);
    gt_num("copy_gbps", copy_s > 0 ? gb / copy_s : 0.0);
    gt_num("wall_s", (double)(t1 - t0) * 1e-9);
    gt_int("launcher_tid", (long long)syscall(SYS_gettid));
    gt_str("memory", pinned ? "pinned" : "pageable");
    gt_str("expect_family", pinned ? "-" : "h2d_pageable");
    gt_str("expect_view", "kernels");
    gt_end();
    return 0;
}
