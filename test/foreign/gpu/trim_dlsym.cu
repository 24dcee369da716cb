/*
 * trim_dlsym: the launching thread calls malloc_trim(0) between kernels
 * through a pointer from dlsym, as Python's ctypes.CDLL("libc.so.6") and
 * Rust crates that bind libc at run time do.  dlsym on a libc handle
 * searches libc itself, so an LD_PRELOAD interposer never sees the call.
 * Issue 30's third row: attach said host_compute 100%, malloc_trim never
 * seen; the truth is malloc_trim on the launcher.
 *
 *   trim_dlsym [--cpu-only] [--iters N] [--kernel-ms K] [--frag-mib M]
 *              [--via libc|next|direct]
 *
 * --via libc (default): dlsym(dlopen("libc.so.6"), "malloc_trim");
 *       next: dlsym(RTLD_NEXT, "malloc_trim") (the next object after this
 *       executable: an LD_PRELOAD library when there is one, so attach's
 *       interposer sees it; a control);  direct: the linked symbol.
 * Per iteration: launch a K ms kernel, dirty the fragmented heap's free
 * half while it runs, cudaDeviceSynchronize (the GPU is idle from here),
 * malloc_trim(0) through the pointer (timed), next iteration.
 * Ground truth (stdout, last line): GROUND_TRUTH {"program":"trim_dlsym",
 * "trim_s": total malloc_trim time (the GPU's idle time between kernels,
 * less a few microseconds per iteration), "gpu_idle_host_s": from each
 * synchronize's return to the next launch, "dirty_over_kernel_s": dirtying
 * that outlasted its kernel (GPU idle that is not the trim; 0 when the
 * kernels are long enough), "via", "expect_family":"malloc_trim"}.
 */
#include <dlfcn.h>
#include <malloc.h>
#include <pthread.h>
#include <sys/syscall.h>

#include "gpu_common.cuh"

int main(int argc, char **argv)
{
    int cpu = opt_flag(argc, argv, "--cpu-only");
    int iters = (int)opt_num(argc, argv, "--iters", 60);
    double kernel_ms = opt_num(argc, argv, "--kernel-ms", 60);
    double mib = opt_num(argc, argv, "--frag-mib", 256);
    const char *via = opt_str(argc, argv, "--via", "libc");
    int (*trim)(size_t) = NULL;
    if (!strcmp(via, "libc")) {
        void *h = dlopen("libc.so.6", RTLD_NOW | RTLD_LOCAL);
        trim = h ? (int (*)(size_t))dlsym(h, "malloc_trim") : NULL;
    } else if (!strcmp(via, "next")) {
        trim = (int (*)(size_t))dlsym(RTLD_NEXT, "malloc_trim");
    } else if (!strcmp(via, "direct")) {
        trim = malloc_trim;
    } else {
        fprintf(stderr, "trim_dlsym: --via libc|next|direct, not '%s'\n", via);
        return 2;
    }
    if (!trim) {
        fprintf(stderr, "trim_dlsym: no malloc_trim (%s)\n", dlerror());
        return 1;
    }
    pthread_setname_np(pthread_self(), "launcher");
    gpu_init(cpu);
    frag heap;
    frag_init(&heap, mib);
    double trim_s = 0, idle_s = 0, over_s = 0;
    int64_t t_sync = 0, t0 = now_ns();
    for (int i = 0; i < iters; i++) {
        int64_t t_launch = now_ns();
        if (t_sync)
            idle_s += (double)(t_launch - t_sync) * 1e-9;
        gpu_work(kernel_ms, cpu);
        frag_dirty(&heap);
        int64_t t_dirty = now_ns();
        if (t_dirty - t_launch > (int64_t)(kernel_ms * 1e6))
            over_s += (double)(t_dirty - t_launch) * 1e-9 - kernel_ms * 1e-3;
        gpu_sync(cpu);
        t_sync = now_ns();
        trim(0);
        trim_s += (double)(now_ns() - t_sync) * 1e-9;
    }
    int64_t t1 = now_ns();
    printf("trim_dlsym: %d iterations in %.2f s, malloc_trim via %s %.3f s\n", iters,
           (double)(t1 - t0) * 1e-9, via, trim_s);
    gt_begin("trim_dlsym", cpu);
    gt_int("iters", iters);
    gt_num("trim_s", trim_s);
    gt_num("gpu_idle_host_s", idle_s);
    gt_num("dirty_over_kernel_s", over_s);
    gt_num("wall_s", (double)(t1 - t0) * 1e-9);
    gt_int("launcher_tid", (long long)syscall(SYS_gettid));
    gt_str("via", via);
    gt_str("expect_family", "malloc_trim");
    gt_end();
    return 0;
}
