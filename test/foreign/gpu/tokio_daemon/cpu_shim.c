/*
 * The tokio daemon's GPU work without a GPU: the C ABI of gpu_shim.cu with
 * its --cpu-only path alone (no CUDA at all), so the daemon builds and runs
 * where there is no nvcc or GPU (the CPU tests of `make test`).  A "kernel"
 * launched by shim_launch ends `ms` milliseconds later; shim_sync sleeps
 * until then, as gpu_common.cuh's emulation does.  shim_init(0) (a GPU run)
 * is refused: this build has no device.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static int64_t g_deadline;   /* when the emulated kernel ends */

int64_t shim_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

void shim_init(int cpu_only)
{
    if (!cpu_only) {
        fprintf(stderr, "tokio_daemon: built with the CPU shim (no CUDA): run it with --cpu-only\n");
        exit(2);
    }
}

int64_t shim_launch(double ms, int cpu_only)
{
    (void)cpu_only;
    int64_t t = shim_now_ns();
    g_deadline = (g_deadline > t ? g_deadline : t) + (int64_t)(ms * 1e6);
    return t;
}

int64_t shim_sync(int cpu_only)
{
    (void)cpu_only;
    struct timespec ts = {(time_t)(g_deadline / 1000000000), (long)(g_deadline % 1000000000)};
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR) {
    }
    return shim_now_ns();
}
