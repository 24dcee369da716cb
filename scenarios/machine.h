/*
 * The capturing host as timeline metadata, and a process CPU sampler
 * (scenarios/machine.c: keys and counter documented there and in
 * timeline/SPANS.md).
 */
#ifndef GS_SCN_MACHINE_H
#define GS_SCN_MACHINE_H

#include "../timeline/timeline.h"

/* Sets host.cores, host.mem_bytes, host.cpu_mhz, host.kernel on tl. */
void gs_machine_meta(gs_timeline *tl);
/* Sets run.peak_rss_kib on tl: this process's peak resident set since its
 * exec (VmHWM of /proc/self/status), left unset where it cannot be read.
 * Unlike the ru_maxrss a parent gets from wait4, it does not count the
 * pages the process shared with its parent between fork and exec. */
void gs_machine_peak_rss_meta(gs_timeline *tl);

typedef struct gs_cpu_sampler gs_cpu_sampler;
/* Starts sampling the process CPU into counter `process_cpu` on lane
 * "driver/cpu" of tl every 100 ms; NULL when it cannot (the run goes on
 * without it).  Stop before the timeline is read. */
gs_cpu_sampler *gs_cpu_sampler_start(gs_timeline *tl);
void gs_cpu_sampler_stop(gs_cpu_sampler *s);

#endif
