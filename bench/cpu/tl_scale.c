/*
 * Trace writers at production scale (issue 32): builds a synthetic
 * engine-shaped timeline of N spans in memory and writes it as
 * timeline.perfetto-trace and/or timeline.json, printing the time of each
 * step and the bytes written.
 *
 * The run: 8 GPUs, one GPU worker and two streams each, 16 synthesis
 * threads, 2 finalizers; per partition (20 spans): synth, a queue-depth
 * counter, a tracker wait (holder: a finalizer) and hold, prove_start with
 * a nested host_prep, an h2d copy and 10 kernels over the two streams, the
 * finalizer's tracker hold, finalize and an injected delay every 16th.
 * Flows: 11 launch flows and one lock flow per partition.
 *
 *   make bench-tools            (or: make -j2 CUDA=0 BUILD=build-cpu build-cpu/bench-tools/tl_scale)
 *   build-cpu/bench-tools/tl_scale 10000000 /tmp/tl perfetto   # or chrome, both
 *   build-cpu/bench-tools/tl_scale 10000000 /tmp/tl perfetto 5 # the write 5 times
 *
 * A trace file already in OUTDIR is deleted before each write, untimed.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../../timeline/timeline.h"
#include "bench_time.h"

#define GPUS 8
#define SYNTH 16
#define FINS 2

static long long file_size(const char *dir, const char *name)
{
    char path[4096];
    struct stat st;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return stat(path, &st) == 0 ? (long long)st.st_size : -1;
}

static gs_timeline *build(size_t n_spans)
{
    static const char *const kern[10] = {"ntt_a", "ntt_b", "ntt_c", "coset", "intt",
                                         "msm_h", "msm_l", "msm_a", "msm_b1", "msm_b2"};
    gs_timeline *tl;
    if (gs_timeline_create(&tl) != GS_OK)
        return NULL;
    gs_timeline_meta_set(tl, "scenario", "tl_scale synthetic");
    gs_tl_lane *drv = gs_tl_lane_open(tl, "driver", GS_ROLE_DRIVER, -1, -1);
    gs_tl_lane *syn[SYNTH], *wk[GPUS], *dev[GPUS][2], *fin[FINS];
    char nm[64];
    for (int i = 0; i < SYNTH; i++) {
        snprintf(nm, sizeof nm, "synth/%d", i);
        syn[i] = gs_tl_lane_open(tl, nm, GS_ROLE_SYNTH, -1, -1);
    }
    for (int i = 0; i < FINS; i++) {
        snprintf(nm, sizeof nm, "finalizer/%d", i);
        fin[i] = gs_tl_lane_open(tl, nm, GS_ROLE_FINALIZER, -1, -1);
    }
    for (int d = 0; d < GPUS; d++) {
        snprintf(nm, sizeof nm, "gpu_worker/%d.0", d);
        wk[d] = gs_tl_lane_open(tl, nm, GS_ROLE_GPU_WORKER, d, -1);
        for (int s = 0; s < 2; s++) {
            snprintf(nm, sizeof nm, "gpu%d/stream%d", d, s);
            dev[d][s] = gs_tl_lane_open(tl, nm, GS_ROLE_DEVICE, d, s);
        }
    }
    int64_t t = 1000000000000LL;
    size_t n = 0;
    for (int32_t p = 0; n < n_spans; p++) {
        int d = p % GPUS, f = p % FINS;
        int32_t job = p / 10, part = p % 10;
        int64_t b = t + (int64_t)(p / GPUS) * 2000000;   /* a partition every 2 ms per GPU */
        gs_tl_span(syn[p % SYNTH], GS_SPAN_STEP, "synth", job, part, b - 900000, b - 100000, 0, NULL);
        gs_tl_counter(drv, "gpu_queue_depth", b - 100000, p % 7);
        gs_tl_span(fin[f], GS_SPAN_LOCK_HOLD, "tracker", job, part, b - 60000, b - 20000, 0,
                   "what=malloc_trim");
        gs_tl_lock_wait(wk[d], "tracker", gs_tl_lane_id(fin[f]), job, part, b - 50000, b - 20000);
        gs_tl_span(wk[d], GS_SPAN_LOCK_HOLD, "tracker", job, part, b - 20000, b - 10000, 0, NULL);
        gs_tl_span(wk[d], GS_SPAN_STEP, "prove_start", job, part, b, b + 1500000, 0, NULL);
        gs_tl_span(wk[d], GS_SPAN_STEP, "host_prep", job, part, b, b + 100000, 0, NULL);
        gs_tl_span(dev[d][0], GS_SPAN_COPY, "h2d", job, part, b + 100000, b + 200000, 0,
                   "bytes=268435456;pageable=0");
        for (int k = 0; k < 10; k++) {
            int64_t s = b + 200000 + (int64_t)k * 120000;
            gs_tl_span(dev[d][k & 1], GS_SPAN_KERNEL, kern[k], job, part, s, s + 110000, 0, NULL);
        }
        gs_tl_span(fin[f], GS_SPAN_STEP, "finalize", job, part, b + 1500000, b + 1700000, 0, NULL);
        n += 19;
        if (p % 16 == 0) {
            gs_tl_span(fin[f], GS_SPAN_INJECTED, "inj:malloc_trim", job, part, b + 1700000,
                       b + 1800000, GS_SPAN_F_INJECTED, "dist=fixed;ms=0.1");
            n++;
        }
    }
    return tl;
}

int main(int argc, char **argv)
{
    if (argc != 4 && argc != 5) {
        fprintf(stderr, "usage: tl_scale N_SPANS OUTDIR perfetto|chrome|both [REPEATS]\n");
        return 2;
    }
    size_t n_spans = (size_t)strtoull(argv[1], NULL, 10);
    const char *dir = argv[2];
    gs_trace_format fmt;
    if (!gs_trace_format_from_name(&fmt, argv[3]) || fmt == GS_TRACE_AUTO) {
        fprintf(stderr, "tl_scale: format perfetto, chrome or both\n");
        return 2;
    }
    mkdir(dir, 0755);
    double t0 = now_s();
    gs_timeline *tl = build(n_spans);
    if (!tl)
        return 3;
    double t1 = now_s(), c1 = cpu_s();
    size_t n;
    gs_timeline_spans(tl, &n);
    double t2 = now_s(), c2 = cpu_s();
    gs_err err;
    gs_err_clear(&err);
    int rc = 0;
    const char *fmts[2] = {"perfetto", "chrome"};
    int reps = argc == 5 ? atoi(argv[4]) : 1;
    for (int k = 0; k < 2 * (reps > 0 ? reps : 1); k++) {
        int want = k % 2 == 0 ? fmt != GS_TRACE_CHROME : fmt != GS_TRACE_PERFETTO;
        if (!want)
            continue;
        char old[4096];   /* a file from before costs its deletion: not the write's */
        snprintf(old, sizeof old, "%s/%s", dir, k % 2 == 0 ? GS_TRACE_PERFETTO_FILE : GS_TRACE_CHROME_FILE);
        unlink(old);
        double a = now_s(), ca = cpu_s(), ua, sa, ub, sb;
        usage_s(&ua, &sa);
        gs_status st = gs_timeline_write_traces(tl, dir, k % 2 == 0 ? GS_TRACE_PERFETTO : GS_TRACE_CHROME,
                                                NULL, &err);
        double b = now_s(), cb = cpu_s();
        usage_s(&ub, &sb);
        if (st != GS_OK) {
            fprintf(stderr, "tl_scale: %s\n", err.msg);
            rc = 3;
            break;
        }
        const char *file = k % 2 == 0 ? GS_TRACE_PERFETTO_FILE : GS_TRACE_CHROME_FILE;
        long long bytes = file_size(dir, file);
        printf("%s: %zu spans written in %.2f s (%.2f s CPU: %.2f user, %.2f sys), %lld bytes "
               "(%.1f bytes/span)\n", fmts[k % 2], n, b - a, cb - ca, ub - ua, sb - sa, bytes,
               (double)bytes / (double)n);
    }
    printf("build %.2f s, sort %.2f s (%.2f s CPU)\n", t1 - t0, t2 - t1, c2 - c1);
    gs_timeline_destroy(tl);
    return rc;
}
