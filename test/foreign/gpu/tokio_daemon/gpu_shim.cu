/*
 * The tokio daemon's GPU work (src/main.rs calls it from spawn_blocking):
 * a C ABI over ../gpu_common.cuh, built by ../build.sh with nvcc into
 * libgpushim.a and linked with the CUDA runtime statically (the binary
 * then needs only libcuda.so.1 at run time, and nothing with --cpu-only).
 *
 *   shim_init(cpu_only)                     device 0 + a warm-up kernel
 *   shim_launch(ms, cpu_only)               launches one spin kernel of ms
 *                                           milliseconds; returns
 *                                           CLOCK_MONOTONIC ns at the launch
 *   shim_sync(cpu_only)                     waits for it (the GPU is idle
 *                                           after); returns the time then
 *   shim_now_ns()                           CLOCK_MONOTONIC ns
 */
#include "../gpu_common.cuh"

extern "C" void shim_init(int cpu_only) { gpu_init(cpu_only); }

extern "C" int64_t shim_launch(double ms, int cpu_only)
{
    int64_t t = now_ns();
    gpu_work(ms, cpu_only);
    return t;
}

extern "C" int64_t shim_sync(int cpu_only)
{
    gpu_sync(cpu_only);
    return now_ns();
}

extern "C" int64_t shim_now_ns(void) { return now_ns(); }
