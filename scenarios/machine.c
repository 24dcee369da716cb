/*
 * What a model of the machine needs to know about the host a run captured
 * on, written into the run's timeline metadata beside the build
 * fingerprint (timeline/SPANS.md "Metadata keys"):
 *
 *   host.cores        online CPUs (sysconf), the modelled CPU's core count
 *   host.mem_bytes    physical memory
 *   host.cpu_mhz      the first CPU's clock from /proc/cpuinfo ("unknown" if absent)
 *   host.kernel       uname release
 *   run.peak_rss_kib  the process's peak resident set when the engine is
 *                     gone (gs_machine_peak_rss_meta)
 *
 * and a sampler thread that records the process's CPU use as the counter
 * `process_cpu` (cores busy, averaged over each 100 ms interval:
 * CLOCK_PROCESS_CPUTIME_ID difference / wall difference) on its own lane
 * "driver/cpu", so a report shows how loaded the host was while the GPU
 * sat idle, and a prediction can be checked against it.
 *
 * Threads: the sampler owns its lane; start/stop from the driver thread.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "../common/clock.h"
#include "../common/cpuinfo.h"
#include "machine.h"

void gs_machine_meta(gs_timeline *tl)
{
    char buf[128];
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    snprintf(buf, sizeof buf, "%ld", n > 0 ? n : 1);
    gs_timeline_meta_set(tl, "host.cores", buf);
    long pages = sysconf(_SC_PHYS_PAGES), psz = sysconf(_SC_PAGESIZE);
    snprintf(buf, sizeof buf, "%lld", pages > 0 && psz > 0 ? (long long)pages * psz : 0LL);
    gs_timeline_meta_set(tl, "host.mem_bytes", buf);
    if (!gs_cpuinfo_field(buf, sizeof buf, "cpu MHz"))
        snprintf(buf, sizeof buf, "unknown");
    gs_timeline_meta_set(tl, "host.cpu_mhz", buf);
    struct utsname u;
    if (uname(&u) == 0)
        gs_timeline_meta_set(tl, "host.kernel", u.release);
}

void gs_machine_peak_rss_meta(gs_timeline *tl)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long kib = -1;
    if (!f)
        return;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "VmHWM: %ld kB", &kib) == 1)
            break;
    fclose(f);
    if (kib >= 0) {
        snprintf(line, sizeof line, "%ld", kib);
        gs_timeline_meta_set(tl, "run.peak_rss_kib", line);
    }
}

struct gs_cpu_sampler {
    pthread_t th;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int stop;
    gs_tl_lane *lane;
};

static int64_t process_cpu_ns(void)
{
    struct timespec ts;
    if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts) != 0)
        return 0;
    return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void *sampler_main(void *arg)
{
    gs_cpu_sampler *s = arg;
    int64_t w0 = gs_now_ns(), c0 = process_cpu_ns();
    gs_tl_counter(s->lane, "process_cpu", w0, 0.0);
    pthread_mutex_lock(&s->mu);
    while (!s->stop) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        ts.tv_nsec += 100000000;
        ts.tv_sec += ts.tv_nsec / 1000000000;
        ts.tv_nsec %= 1000000000;
        pthread_cond_timedwait(&s->cv, &s->mu, &ts);
        int64_t w1 = gs_now_ns(), c1 = process_cpu_ns();
        if (w1 > w0)
            gs_tl_counter(s->lane, "process_cpu", w1, (double)(c1 - c0) / (double)(w1 - w0));
        w0 = w1;
        c0 = c1;
    }
    pthread_mutex_unlock(&s->mu);
    return NULL;
}

gs_cpu_sampler *gs_cpu_sampler_start(gs_timeline *tl)
{
    gs_cpu_sampler *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->lane = gs_tl_lane_open(tl, "driver/cpu", GS_ROLE_DRIVER, -1, -1);
    pthread_mutex_init(&s->mu, NULL);
    pthread_cond_init(&s->cv, NULL);
    if (!s->lane || pthread_create(&s->th, NULL, sampler_main, s) != 0) {
        pthread_cond_destroy(&s->cv);
        pthread_mutex_destroy(&s->mu);
        free(s);
        return NULL;
    }
    return s;
}

void gs_cpu_sampler_stop(gs_cpu_sampler *s)
{
    if (!s)
        return;
    pthread_mutex_lock(&s->mu);
    s->stop = 1;
    pthread_cond_signal(&s->cv);
    pthread_mutex_unlock(&s->mu);
    pthread_join(s->th, NULL);
    pthread_cond_destroy(&s->cv);
    pthread_mutex_destroy(&s->mu);
    free(s);
}
